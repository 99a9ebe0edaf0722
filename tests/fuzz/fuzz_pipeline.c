/* fuzz_pipeline.c — fuzz target for the middle of `ingot compile`: load → shape
 * inference → the -O2 pass pipeline → the memory plan, without codegen, with
 * ir_verify after every pass (an invalid graph is an internal error: abort). Any
 * input must end in 0 or -1 with a diagnostic. libFuzzer's -timeout bounds each input
 * (tests/fuzz/run_libfuzzer.sh gives 5 s); the loader's own limits bound memory. */
#include "frontend.h"
#include "fuzz_input.h"
#include "opimpl.h"
#include "passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_write_input(data, size, "pipeline");
	const char *names[64];
	Graph g;
	DiagSink d;
	PassCtx ctx;
	int rc, n;
	ir_graph_init(&g, path);
	diag_sink_init(&d, NULL);
	rc = onnx_load(&g, path, NULL, &d);
	if (rc == 0)
		rc = ops_infer_graph(&g, &d, true);
	if (rc == 0) {
		memset(&ctx, 0, sizeof ctx);
		ctx.diags = &d;
		ctx.opt_level = 2;
		ctx.verify = true;
		n = pass_pipeline(2, names, 63);
		names[n++] = "plan_memory";
		rc = pass_run(&g, &ctx, names, n);
	}
	if (rc != 0 && d.n_errors == 0) {
		fprintf(stderr, "fuzz_pipeline: failure without a diagnostic\n");
		abort();
	}
	ir_graph_free(&g);
	diag_sink_free(&d);
	unlink(path);
	return 0;
}
