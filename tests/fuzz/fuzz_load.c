/* fuzz_load.c — fuzz target for the model loader and shape inference: any byte
 * string must give a status (0, or -1 with a diagnostic), never a crash, hang,
 * leak or abort. Built for libFuzzer (clang -fsanitize=fuzzer) or linked with
 * fuzz_replay.c for a deterministic short run in the test suite. */
#include "frontend.h"
#include "fuzz_input.h"
#include "opimpl.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_write_input(data, size, "load");
	Graph g;
	DiagSink d;
	int rc;
	ir_graph_init(&g, path);
	diag_sink_init(&d, NULL);
	rc = onnx_load(&g, path, NULL, &d);
	if (rc == 0)
		rc = ops_infer_graph(&g, &d, true);
	if (rc != 0 && d.n_errors == 0) {
		fprintf(stderr, "fuzz_load: failure without a diagnostic\n");
		abort();
	}
	ir_graph_free(&g);
	diag_sink_free(&d);
	unlink(path);
	return 0;
}
