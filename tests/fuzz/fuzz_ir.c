/* fuzz_ir.c — fuzz target for the text IR parser (`ingot opt`'s input): any byte
 * string must give 0 (a graph that ir_verify accepts and that prints) or -1 with a
 * diagnostic, never a crash, hang, leak or abort. A parsed graph is printed and the
 * print parsed again: the reparse must succeed (what the roundtrip suite shows for
 * the golden files, here for any text the parser accepts). */
#include "ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Graph g;
	DiagSink d;
	char err[512];
	int rc;
	ir_graph_init(&g, "fuzz.ir");
	diag_sink_init(&d, NULL);
	/* no weights file: a const that points into one is an error, not a read */
	rc = ir_parse(&g, (const char *)data, size, "/nonexistent/fuzz.ir.bin", &d);
	if (rc != 0 && d.n_errors == 0) {
		fprintf(stderr, "fuzz_ir: failure without a diagnostic\n");
		abort();
	}
	if (rc == 0 && ir_verify(&g, err, sizeof err)) {
		fprintf(stderr, "fuzz_ir: the parser accepted an invalid graph: %s\n", err);
		abort();
	}
	if (rc == 0) {
		static char path[512], blob[520];
		const char *tmp = getenv("TMPDIR");
		char *text;
		size_t len;
		Graph g2;
		DiagSink d2;
		FILE *f;
		long n;
		if (!path[0]) {
			snprintf(path, sizeof path, "%s/ingot-fuzzir-%d.ir", tmp && *tmp ? tmp : "/tmp", (int)getpid());
			snprintf(blob, sizeof blob, "%s.bin", path);
		}
		/* the dump writes constants over 16 elements into PATH.bin, which the reparse reads */
		if (ir_dump(&g, path))
			abort();
		f = fopen(path, "rb");
		if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
			abort();
		len = (size_t)n;
		text = malloc(len + 1);
		if (!text || fread(text, 1, len, f) != len)
			abort();
		fclose(f);
		ir_graph_init(&g2, "fuzz.ir");
		diag_sink_init(&d2, NULL);
		if (ir_parse(&g2, text, len, blob, &d2)) {
			fprintf(stderr, "fuzz_ir: the printed graph does not parse again:\n%.*s\n", (int)len, text);
			diag_print_all(&d2, stderr);
			abort();
		}
		ir_graph_free(&g2);
		diag_sink_free(&d2);
		free(text);
		unlink(path);
		unlink(blob);
	}
	ir_graph_free(&g);
	diag_sink_free(&d);
	return 0;
}
