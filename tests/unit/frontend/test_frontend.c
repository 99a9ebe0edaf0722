/* test_frontend.c — unit tests of the ONNX frontend on models that gen_models.py
 * writes at test time: every line of DIR/manifest.txt (valid, malformed, hostile
 * files: expected status and diagnostic), then deeper checks of the valid ones
 * (types, constants in every storage form, --shape/--dim/--bind, omitted inputs).
 *
 *     test_frontend DIR                 run the tests on generated models
 *     test_frontend --dump FILE.onnx    print the diagnostics and the imported IR
 *     test_frontend --load-all DIR      load DIR/<test>/model.onnx (node tests), summary
 */
#include "frontend.h"
#include "opimpl.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"

static const char *model_dir;

typedef struct Loaded {
	Graph g;
	DiagSink d;
	int rc;
	char path[1024];
} Loaded;

static int load_opts(Loaded *l, const char *name, const FrontendOptions *o)
{
	snprintf(l->path, sizeof l->path, "%s/%s", model_dir, name);
	ir_graph_init(&l->g, l->path);
	diag_sink_init(&l->d, NULL);
	l->rc = onnx_load(&l->g, l->path, o, &l->d);
	return l->rc;
}

static int load(Loaded *l, const char *name) { return load_opts(l, name, NULL); }

static void unload(Loaded *l)
{
	ir_graph_free(&l->g);
	diag_sink_free(&l->d);
}

static void show(const Loaded *l)
{
	fprintf(stderr, "  %s: rc %d\n", l->path, l->rc);
	for (int i = 0; i < l->d.n_items; i++)
		fprintf(stderr, "    %s\n", l->d.items[i].text);
}

static bool has_diag(const Loaded *l, DiagSeverity sev, const char *sub)
{
	for (int i = 0; i < l->d.n_items; i++)
		if (l->d.items[i].sev == sev && strstr(l->d.items[i].text, sub))
			return true;
	return false;
}

static bool verify(const Graph *g)
{
	char err[256];
	if (ir_verify(g, err, sizeof err) == 0)
		return true;
	fprintf(stderr, "  ir_verify: %s\n", err);
	return false;
}

/* ---- the manifest: status and diagnostic of every generated file ---- */

static bool run_case(const char *expect, const char *name, const char *sub)
{
	Loaded l;
	bool ok = true;
	load(&l, name);
	for (int i = 0; i < l.d.n_items; i++)      /* every line names the file */
		ok &= strstr(l.d.items[i].text, l.path) == l.d.items[i].text;
	if (strcmp(expect, "ok") == 0) {
		ok &= l.rc == 0 && l.d.n_errors == 0 && verify(&l.g);
	} else if (strcmp(expect, "fail") == 0) {
		ok &= l.rc == -1 && l.d.n_errors == 1 && (!*sub || has_diag(&l, DIAG_ERROR, sub));
	} else if (strncmp(expect, "unsupported:", 12) == 0) {
		int n = 0;
		for (int i = 0; i < l.d.n_items; i++)
			n += l.d.items[i].sev == DIAG_ERROR && l.d.items[i].code == DC_UNSUPPORTED;
		ok &= l.rc == -1 && n == atoi(expect + 12) && l.d.n_errors == n &&
		      (!*sub || has_diag(&l, DIAG_ERROR, sub));
	} else if (strcmp(expect, "any") == 0) {
		ok &= l.rc == 0 ? verify(&l.g) : l.d.n_errors >= 1;
	} else {
		fprintf(stderr, "bad manifest expectation '%s'\n", expect);
		ok = false;
	}
	CHECK(ok, "%s (expected %s%s%s%s)", name, expect, *sub ? ": '" : "", sub, *sub ? "'" : "");
	if (!ok)
		show(&l);
	unload(&l);
	return ok;
}

static void run_manifest(void)
{
	char p[1024], line[1024];
	int n = 0, bad = 0;
	snprintf(p, sizeof p, "%s/manifest.txt", model_dir);
	FILE *f = fopen(p, "r");
	CHECK(f, "cannot open %s", p);
	if (!f)
		return;
	while (fgets(line, sizeof line, f)) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = 0;
		char *name = strchr(line, ' ');
		if (!name)
			continue;
		*name++ = 0;
		char *sub = strchr(name, ' ');
		if (sub)
			*sub++ = 0;
		n++;
		bad += !run_case(line, name, sub ? sub : "");
	}
	fclose(f);
	printf("manifest: %d models, %d failed\n", n, bad);
}

/* ---- deeper checks ---- */

static ValueId find(Loaded *l, const char *name) { return ir_value_find(&l->g, 0, name); }

static bool dims_are(const Value *v, int rank, const int64_t *dims)
{
	if (v->type.rank != rank)
		return false;
	for (int i = 0; i < rank; i++)
		if (v->type.dims[i] != dims[i])
			return false;
	return true;
}

/* element i of a constant, as a double */
static double elem(Loaded *l, ValueId v, int64_t i)
{
	const void *p = ir_const_data(&l->g, v);
	switch (l->g.values[v].type.dtype) {
	case DT_F32: return ((const float *)p)[i];
	case DT_F64: return ((const double *)p)[i];
	case DT_F16: return ingot_f16_to_f32(((const uint16_t *)p)[i]);
	case DT_BF16: return ingot_bf16_to_f32(((const uint16_t *)p)[i]);
	case DT_I8: return ((const int8_t *)p)[i];
	case DT_U8: case DT_BOOL: return ((const uint8_t *)p)[i];
	case DT_I16: return ((const int16_t *)p)[i];
	case DT_U16: return ((const uint16_t *)p)[i];
	case DT_I32: return ((const int32_t *)p)[i];
	case DT_U32: return ((const uint32_t *)p)[i];
	case DT_I64: return (double)((const int64_t *)p)[i];
	case DT_U64: return (double)((const uint64_t *)p)[i];
	default: return NAN;
	}
}

static bool const_is(Loaded *l, const char *name, DType dt, int rank, const int64_t *dims,
                     const double *vals)
{
	ValueId v = find(l, name);
	if (v == IR_NONE || !l->g.values[v].is_const || l->g.values[v].type.dtype != dt ||
	    !dims_are(&l->g.values[v], rank, dims)) {
		fprintf(stderr, "  constant '%s' missing or of the wrong type\n", name);
		return false;
	}
	int64_t n = type_numel(&l->g.values[v].type);
	for (int64_t i = 0; i < n; i++)
		if (elem(l, v, i) != vals[i]) {
			fprintf(stderr, "  constant '%s'[%lld] = %g, expected %g\n", name, (long long)i,
			        elem(l, v, i), vals[i]);
			return false;
		}
	return true;
}

static void test_basic(void)
{
	Loaded l;
	CHECK(load(&l, "basic.onnx") == 0);
	CHECK(l.g.opset == 13 && l.g.ir_version == 8);
	CHECK(l.g.producer && strcmp(l.g.producer, "gen 1.0") == 0);
	Region *r = &l.g.regions[0];
	CHECK(r->n_inputs == 1 && r->n_outputs == 1 && r->n_nodes == 2);
	ValueId x = find(&l, "x"), b = find(&l, "b"), y = find(&l, "y");
	CHECK(x != IR_NONE && r->inputs[0] == x && l.g.values[x].is_input);
	CHECK(dims_are(&l.g.values[x], 2, (const int64_t[]){ 1, 3 }));
	CHECK(l.g.values[x].type.dtype == DT_F32);
	CHECK(l.d.n_warnings == 1 && has_diag(&l, DIAG_WARNING, "input 'x': symbolic dim 0 'N' set to 1"));
	CHECK(const_is(&l, "b", DT_F32, 1, (const int64_t[]){ 3 }, (const double[]){ 1, 2, 3 }));
	CHECK(!l.g.values[b].is_input);
	Node *add = &l.g.nodes[r->nodes[0]], *relu = &l.g.nodes[r->nodes[1]];
	CHECK(add->op == OP_ADD && add->opset == 13 && add->n_in == 2 && add->in[0] == x &&
	      add->in[1] == b && add->n_origins == 1 && strcmp(add->origins[0], "add0") == 0);
	CHECK(relu->op == OP_RELU && strcmp(relu->origins[0], "Relu_1") == 0 && relu->out[0] == y);
	CHECK(r->outputs[0] == y && l.g.values[y].is_output && l.g.values[y].type.dtype == DT_F32);
	unload(&l);
}

/* the value pattern of gen_models.py's val() */
static double pattern(int i, const char *dt)
{
	if (strcmp(dt, "bool") == 0)
		return i % 2;
	int v = (i * 37) % 11;
	bool is_signed = !(dt[0] == 'u');
	return is_signed ? v - 5 : v;
}

static void test_dtypes(void)
{
	static const struct { const char *name; DType dt; } dts[] = {
		{ "f32", DT_F32 }, { "u8", DT_U8 }, { "i8", DT_I8 }, { "u16", DT_U16 },
		{ "i16", DT_I16 }, { "i32", DT_I32 }, { "i64", DT_I64 }, { "bool", DT_BOOL },
		{ "f16", DT_F16 }, { "f64", DT_F64 }, { "u32", DT_U32 }, { "u64", DT_U64 },
		{ "bf16", DT_BF16 },
	};
	Loaded l;
	CHECK(load(&l, "dtypes.onnx") == 0);
	for (int k = 0; k < COUNTOF(dts); k++) {
		double want[6];
		char name[32];
		for (int i = 0; i < 6; i++)
			want[i] = pattern(i, dts[k].name);
		snprintf(name, sizeof name, "%s_raw", dts[k].name);
		CHECK(const_is(&l, name, dts[k].dt, 2, (const int64_t[]){ 2, 3 }, want));
		snprintf(name, sizeof name, "%s_typed", dts[k].name);
		CHECK(const_is(&l, name, dts[k].dt, 2, (const int64_t[]){ 2, 3 }, want));
	}
	ValueId big = find(&l, "u64_big");
	CHECK(big != IR_NONE && l.g.values[big].type.rank == 0 &&
	      *(const uint64_t *)ir_const_data(&l.g, big) == 9223372036854775813ull);
	CHECK(const_is(&l, "empty", DT_F32, 2, (const int64_t[]){ 0, 4 }, NULL));
	CHECK(l.g.regions[0].n_outputs == 2 * COUNTOF(dts) + 2 && l.g.regions[0].n_inputs == 0);
	unload(&l);
}

static void test_constants(void)
{
	Loaded l;
	CHECK(load(&l, "constants.onnx") == 0);
	CHECK(const_is(&l, "c_tensor", DT_I32, 2, (const int64_t[]){ 2, 2 }, (const double[]){ 1, 2, 3, 4 }));
	CHECK(const_is(&l, "c_float", DT_F32, 0, NULL, (const double[]){ 2.5 }));
	CHECK(const_is(&l, "c_floats", DT_F32, 1, (const int64_t[]){ 3 }, (const double[]){ 1, 2, 3 }));
	CHECK(const_is(&l, "c_int", DT_I64, 0, NULL, (const double[]){ 7 }));
	CHECK(const_is(&l, "c_ints", DT_I64, 1, (const int64_t[]){ 2 }, (const double[]){ 4, 5 }));
	CHECK(l.g.regions[0].n_nodes == 1 && l.g.nodes[0].op == OP_IDENTITY);
	unload(&l);
}

static void test_ext(void)
{
	Loaded l;
	CHECK(load(&l, "ext/model.onnx") == 0);
	CHECK(const_is(&l, "w", DT_F32, 1, (const int64_t[]){ 4 }, (const double[]){ 1.5, 2.5, 3.5, 4.5 }));
	CHECK(const_is(&l, "w2", DT_I64, 1, (const int64_t[]){ 2 }, (const double[]){ 7, 8 }));
	unload(&l);
}

static void test_misc(void)
{
	Loaded l;
	CHECK(load(&l, "optional.onnx") == 0);
	Node *mid = &l.g.nodes[0], *trail = &l.g.nodes[1];
	CHECK(mid->n_in == 3 && mid->in[1] == IR_NONE && mid->in[2] == find(&l, "mx"));
	CHECK(trail->n_in == 2 && trail->in[1] == find(&l, "mn"));
	unload(&l);

	CHECK(load(&l, "no_opset.onnx") == 0);
	CHECK(l.g.opset == 1 && l.g.nodes[0].opset == 1);
	unload(&l);

	CHECK(load(&l, "init_input.onnx") == 0);
	CHECK(l.g.regions[0].n_inputs == 1 && l.g.regions[0].inputs[0] == find(&l, "x2"));
	CHECK(const_is(&l, "w", DT_F32, 1, (const int64_t[]){ 2 }, (const double[]){ 5, 6 }));
	unload(&l);

	/* --bind overrides an initializer that backs a graph input */
	Binding bw = { "w", "1,2" };
	FrontendOptions o = { 0 };
	o.binds = &bw;
	o.n_binds = 1;
	CHECK(load_opts(&l, "init_input.onnx", &o) == 0);
	CHECK(const_is(&l, "w", DT_F32, 1, (const int64_t[]){ 2 }, (const double[]){ 1, 2 }));
	unload(&l);

	CHECK(load(&l, "unsupported.onnx") == -1);
	CHECK(has_diag(&l, DIAG_ERROR, "node 'foo1' (FooOp): unsupported op 'FooOp'"));
	CHECK(has_diag(&l, DIAG_ERROR, "node 'Gelu_1' (Gelu): unsupported op 'Gelu' of domain 'com.microsoft'"));
	CHECK(has_diag(&l, DIAG_ERROR, "node 'bar1' (BarOp)"));
	unload(&l);
}

/* --shape, --dim and --bind on inputs a: f32[batch,3], b: i64[batch,seq], c: f32[], d: i64[2] */
typedef struct InputCase {
	ShapeOverride shapes[2];
	int n_shapes;
	DimOverride dims[2];
	int n_dims;
	Binding binds[2];
	int n_binds;
} InputCase;

static int load_inputs(Loaded *l, const InputCase *c)
{
	FrontendOptions o = { c->shapes, c->n_shapes, c->dims, c->n_dims, c->binds, c->n_binds };
	int rc = load_opts(l, "inputs.onnx", &o);
	if (rc == 0)
		CHECK(verify(&l->g));
	return rc;
}

static bool input_dims(Loaded *l, const char *name, int rank, const int64_t *dims)
{
	ValueId v = find(l, name);
	bool ok = v != IR_NONE && l->g.values[v].is_input && dims_are(&l->g.values[v], rank, dims);
	if (!ok)
		fprintf(stderr, "  input '%s' missing or of the wrong shape\n", name);
	return ok;
}

static void expect_fail(Loaded *l, const char *sub)
{
	bool ok = l->rc == -1 && l->d.n_errors == 1 && has_diag(l, DIAG_ERROR, sub);
	if (!ok) {
		fprintf(stderr, "expected one error containing '%s'\n", sub);
		show(l);
	}
	CHECK(ok);
}

static void test_inputs(void)
{
	char pb[1024], npy[1024], npy32[1024];
	Loaded l;
	snprintf(pb, sizeof pb, "%s/bind_d.pb", model_dir);
	snprintf(npy, sizeof npy, "%s/bind_d.npy", model_dir);
	snprintf(npy32, sizeof npy32, "%s/bind_d_f32.npy", model_dir);

	InputCase c1 = { .dims = { { "seq", 5 } }, .n_dims = 1 };
	CHECK(load_inputs(&l, &c1) == 0);
	CHECK(input_dims(&l, "a", 2, (const int64_t[]){ 1, 3 }));
	CHECK(input_dims(&l, "b", 2, (const int64_t[]){ 1, 5 }));
	CHECK(input_dims(&l, "c", 0, NULL));
	CHECK(input_dims(&l, "d", 1, (const int64_t[]){ 2 }));
	CHECK(l.d.n_warnings == 2 && has_diag(&l, DIAG_WARNING, "input 'a': symbolic dim 0 'batch' set to 1"));
	CHECK(l.g.values[find(&l, "b")].type.dtype == DT_I64);
	unload(&l);

	InputCase c2 = { .dims = { { "batch", 2 }, { "seq", 5 } }, .n_dims = 2 };
	CHECK(load_inputs(&l, &c2) == 0);
	CHECK(input_dims(&l, "a", 2, (const int64_t[]){ 2, 3 }));
	CHECK(input_dims(&l, "b", 2, (const int64_t[]){ 2, 5 }));
	CHECK(l.d.n_warnings == 0);
	unload(&l);

	InputCase c3 = { .shapes = { { "b", 2, { 4, 5 }, SHAPE_TENSOR } }, .n_shapes = 1,
	                 .dims = { { "batch", 2 } }, .n_dims = 1 };
	CHECK(load_inputs(&l, &c3) == 0);
	CHECK(input_dims(&l, "a", 2, (const int64_t[]){ 2, 3 }));
	CHECK(input_dims(&l, "b", 2, (const int64_t[]){ 4, 5 }));
	unload(&l);

	InputCase c4 = { .shapes = { { "a", 3, { 1, 3, 3 }, SHAPE_TENSOR } }, .n_shapes = 1,
	                 .dims = { { "seq", 5 } }, .n_dims = 1 };
	load_inputs(&l, &c4);
	expect_fail(&l, "input 'a': --shape gives rank 3, the model declares rank 2");
	unload(&l);

	InputCase c5 = { .shapes = { { "a", 2, { 2, 4 }, SHAPE_TENSOR } }, .n_shapes = 1,
	                 .dims = { { "seq", 5 } }, .n_dims = 1 };
	load_inputs(&l, &c5);
	expect_fail(&l, "--shape gives dim 1 = 4, the model declares 3");
	unload(&l);

	InputCase c6 = { .dims = { { "seq", 5 } }, .n_dims = 1,
	                 .binds = { { "c", "0.5" }, { "d", "3,4" } }, .n_binds = 2 };
	CHECK(load_inputs(&l, &c6) == 0);
	CHECK(const_is(&l, "c", DT_F32, 0, NULL, (const double[]){ 0.5 }));
	CHECK(const_is(&l, "d", DT_I64, 1, (const int64_t[]){ 2 }, (const double[]){ 3, 4 }));
	CHECK(l.g.regions[0].n_inputs == 2);
	unload(&l);

	InputCase c7 = { .dims = { { "seq", 5 } }, .n_dims = 1, .binds = { { "d", "1.7,-2" } }, .n_binds = 1 };
	CHECK(load_inputs(&l, &c7) == 0);
	CHECK(const_is(&l, "d", DT_I64, 1, (const int64_t[]){ 2 }, (const double[]){ 1, -2 }));
	unload(&l);

	InputCase c8 = { .dims = { { "seq", 5 } }, .n_dims = 1, .binds = { { "d", "1,2,3" } }, .n_binds = 1 };
	load_inputs(&l, &c8);
	expect_fail(&l, "--bind gives 3 values, the input is i64[2]");
	unload(&l);

	InputCase c9 = { .dims = { { "seq", 5 } }, .n_dims = 1, .binds = { { "zz", "1" } }, .n_binds = 1 };
	load_inputs(&l, &c9);
	expect_fail(&l, "--bind names 'zz', which is not a graph input");
	unload(&l);

	InputCase c10 = { .dims = { { "batch", 1 } }, .n_dims = 1, .binds = { { "b", "1,2" } }, .n_binds = 1 };
	CHECK(load_inputs(&l, &c10) == 0);   /* symbolic declared shape: 1-D of the list */
	CHECK(const_is(&l, "b", DT_I64, 1, (const int64_t[]){ 2 }, (const double[]){ 1, 2 }));
	unload(&l);

	InputCase c11 = { .dims = { { "zzz", 3 }, { "seq", 5 } }, .n_dims = 2 };
	CHECK(load_inputs(&l, &c11) == 0);
	CHECK(has_diag(&l, DIAG_WARNING, "--dim zzz matches no symbolic dim"));
	unload(&l);

	InputCase c12 = { .shapes = { { "nope", 1, { 1 }, SHAPE_TENSOR } }, .n_shapes = 1 };
	load_inputs(&l, &c12);
	expect_fail(&l, "--shape names 'nope'");
	unload(&l);

	InputCase c13 = { .dims = { { "seq", 5 } }, .n_dims = 1, .binds = { { "c", "abc" } }, .n_binds = 1 };
	load_inputs(&l, &c13);
	expect_fail(&l, "cannot read tensor");
	unload(&l);

	/* from files (ingot_tensor_read) */
	InputCase c14 = { .dims = { { "seq", 5 } }, .n_dims = 1, .binds = { { "d", pb } }, .n_binds = 1 };
	CHECK(load_inputs(&l, &c14) == 0);
	CHECK(const_is(&l, "d", DT_I64, 1, (const int64_t[]){ 2 }, (const double[]){ 11, 12 }));
	if (l.rc)
		show(&l);
	unload(&l);
	InputCase c15 = { .dims = { { "seq", 5 } }, .n_dims = 1, .binds = { { "d", npy } }, .n_binds = 1 };
	CHECK(load_inputs(&l, &c15) == 0);
	CHECK(const_is(&l, "d", DT_I64, 1, (const int64_t[]){ 2 }, (const double[]){ 21, 22 }));
	unload(&l);
	InputCase c16 = { .dims = { { "seq", 5 } }, .n_dims = 1, .binds = { { "d", npy32 } }, .n_binds = 1 };
	load_inputs(&l, &c16);
	expect_fail(&l, "holds f32 elements, the input is i64");
	unload(&l);
}

/* ---- debug aids ---- */

static int dump(const char *path)
{
	Graph g;
	DiagSink d;
	ir_graph_init(&g, path);
	diag_sink_init(&d, stderr);
	int rc = onnx_load(&g, path, NULL, &d);
	if (rc == 0)
		ir_print(&g, stdout);
	ir_graph_free(&g);
	diag_sink_free(&d);
	return rc ? 1 : 0;
}

/* Loads DIR/<test>/model.onnx for every test, as the node tests are laid out. */
static int load_all(const char *dir)
{
	DIR *dd = opendir(dir);
	struct dirent *e;
	int n = 0, ok = 0, unsup = 0, err = 0;
	if (!dd) {
		fprintf(stderr, "cannot open %s\n", dir);
		return 1;
	}
	while ((e = readdir(dd))) {
		char p[2048];
		Graph g;
		DiagSink d;
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s/model.onnx", dir, e->d_name);
		ir_graph_init(&g, p);
		diag_sink_init(&d, NULL);
		int rc = onnx_load(&g, p, NULL, &d);
		char verr[256];
		n++;
		if (rc == 0 && ir_verify(&g, verr, sizeof verr) != 0) {
			printf("VERIFY %s: %s\n", e->d_name, verr);
			err++;
		} else if (rc == 0) {
			ok++;
		} else if (diag_has_code(&d, DC_UNSUPPORTED)) {
			unsup++;
			printf("UNSUPPORTED %s: %s\n", e->d_name, d.n_items ? d.items[0].text : "");
		} else {
			err++;
			printf("ERROR %s: %s\n", e->d_name, d.n_items ? d.items[0].text : "(no diagnostic)");
		}
		ir_graph_free(&g);
		diag_sink_free(&d);
	}
	closedir(dd);
	printf("%d models: %d loaded, %d unsupported, %d errors\n", n, ok, unsup, err);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--dump") == 0)
		return dump(argv[2]);
	if (argc == 3 && strcmp(argv[1], "--load-all") == 0)
		return load_all(argv[2]);
	if (argc != 2) {
		fprintf(stderr, "usage: test_frontend DIR | --dump FILE | --load-all DIR\n");
		return 2;
	}
	model_dir = argv[1];
	run_manifest();
	test_basic();
	test_dtypes();
	test_constants();
	test_ext();
	test_misc();
	test_inputs();
	return harness_done("frontend");
}
