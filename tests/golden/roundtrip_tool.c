/* roundtrip_tool.c — print → parse → print over many models in one process (so the
 * sanitizer build pays its start-up once, not twice per model): each MODEL.onnx is
 * imported as `ingot inspect MODEL.onnx --dump-ir A.ir` does (driver_build_graph,
 * ir_dump), A.ir is read back as `ingot opt A.ir --passes dce` does (ir_parse, the
 * passes, ir_print), and the two texts must be byte-identical. One line per model:
 *   SAME NAME | DIFFERS NAME: why | NOT_COMPILABLE NAME: the first error
 * NAME is the model's directory name. tests/golden/roundtrip.sh reads the lines.
 *   roundtrip_tool TMPDIR MODEL.onnx... */
#include "driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file's bytes (NUL-terminated) and their count in *len; NULL if unreadable. */
static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;
	if (!f)
		return NULL;
	do {
		if (n + 4096 >= cap) {
			char *p = realloc(buf, cap = cap ? cap * 2 : 65536);
			if (!p) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = p;
		}
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
	} while (r > 0);
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

/* The first error of d on one line (what `ingot` would print first). */
static const char *first_error(const DiagSink *d)
{
	for (int i = 0; i < d->n_items; i++)
		if (d->items[i].sev == DIAG_ERROR)
			return d->items[i].text;
	return "(no message)";
}

/* The model's directory name: ".../node/test_abs/model.onnx" → "test_abs". */
static void test_name(const char *model, char *buf, size_t cap)
{
	const char *end = strrchr(model, '/'), *start = end;
	while (start && start > model && start[-1] != '/')
		start--;
	if (!end || end == model)
		snprintf(buf, cap, "%s", model);
	else
		snprintf(buf, cap, "%.*s", (int)(end - start), start);
}

static void one(const Options *inspect, const Options *opt, const char *model)
{
	static Options o;
	Graph g, g2;
	DiagSink d, d2;
	char name[512], blob[4200];
	char *printed = NULL;
	size_t len = 0, plen = 0;
	o = *inspect;
	o.model = model;
	test_name(model, name, sizeof name);
	diag_sink_init(&d, NULL);
	if (driver_build_graph(&o, &g, &d)) {
		char line[400];
		snprintf(line, sizeof line, "%s", first_error(&d));
		line[strcspn(line, "\n")] = 0;
		printf("NOT_COMPILABLE %s: %s\n", name, line);
		ir_graph_free(&g);
		diag_sink_free(&d);
		return;
	}
	ir_graph_free(&g);
	diag_sink_free(&d);
	char *text = read_all(inspect->dump_ir, &len);
	if (!text) {
		printf("DIFFERS %s: cannot read %s\n", name, inspect->dump_ir);
		return;
	}
	snprintf(blob, sizeof blob, "%s.bin", inspect->dump_ir);
	diag_sink_init(&d2, NULL);
	ir_graph_init(&g2, inspect->dump_ir);
	if (ir_parse(&g2, text, len, blob, &d2) || driver_run_passes(opt, &g2, &d2)) {
		char line[400];
		snprintf(line, sizeof line, "%s", first_error(&d2));
		line[strcspn(line, "\n")] = 0;
		printf("DIFFERS %s: the dump does not parse: %s\n", name, line);
	} else {
		FILE *m = open_memstream(&printed, &plen);
		if (!m) {
			printf("DIFFERS %s: out of memory\n", name);
		} else {
			ir_print(&g2, m);
			fclose(m);
			if (plen != len || memcmp(printed, text, len) != 0) {
				size_t k = 0;
				while (k < len && k < plen && printed[k] == text[k])
					k++;
				printf("DIFFERS %s: the texts differ from byte %zu\n", name, k);
			} else {
				printf("SAME %s\n", name);
			}
		}
	}
	free(printed);
	free(text);
	ir_graph_free(&g2);
	diag_sink_free(&d2);
}

int main(int argc, char **argv)
{
	static Options inspect, opt;
	char a_ir[4096];
	if (argc < 3) {
		fprintf(stderr, "usage: roundtrip_tool TMPDIR MODEL.onnx...\n");
		return 2;
	}
	snprintf(a_ir, sizeof a_ir, "%s/a.ir", argv[1]);
	/* the options of the two commands, parsed as ingot parses them */
	char ingot[] = "ingot", inspect_cmd[] = "inspect", dump_ir[] = "--dump-ir", opt_cmd[] = "opt",
	     passes[] = "--passes", dce[] = "dce";
	char *inspect_argv[] = { ingot, inspect_cmd, argv[2], dump_ir, a_ir, NULL };
	char *opt_argv[] = { ingot, opt_cmd, a_ir, passes, dce, NULL };
	if (driver_parse_options(CMD_INSPECT, 5, inspect_argv, 2, &inspect) ||
	    driver_parse_options(CMD_OPT, 5, opt_argv, 2, &opt))
		return 2;
	for (int i = 2; i < argc; i++) {
		one(&inspect, &opt, argv[i]);
		fflush(stdout);
	}
	return 0;
}
