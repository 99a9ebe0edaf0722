/* test_pass_semantics.c — the rewriting passes keep what the graph computes. A small
 * evaluator runs a graph node by node through the reference kernels (ops_run_node)
 * on seeded random inputs, before and after passes:
 *   1. every golden case (tests/golden/cases/NAME.golden): its input IR, then its passes;
 *      outputs agree within 1e-4 (folding BatchNormalization rounds differently), 1e-2
 *      after quantize_weights (int8 weights), bit for bit after fuse_elementwise;
 *   2. the epilogue matrix: Conv / ConvTranspose / Gemm / MatMul, each float dtype,
 *      each activation, with and without a residual Add, fused by fuse_epilogue: the
 *      fused node must reproduce the separate ops bit for bit;
 *   3. after memory planning, every golden case once more with its intermediates in one
 *      garbage-filled workspace of exactly arena_bytes, at their planned offsets (views
 *      not run, in-place ops writing over their input): bit for bit as with a buffer
 *      per value.
 * usage: test_pass_semantics GOLDEN_CASES_DIR */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "opimpl.h"
#include "passes.h"

#include "../harness.h"

/* ---- the evaluator ---- */

typedef struct Run {
	void **buf;              /* per value: data (graph inputs, node outputs) */
	int n;
	unsigned char *ws;       /* planned: the workspace that intermediates live in */
	int64_t n_ws;
} Run;

static uint64_t rng_state;

static double rnd(void)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(rng_state >> 11) / 9007199254740992.0 * 6.0 - 3.0;   /* [-3, 3) */
}

static void fill(const Type *t, void *p)
{
	int64_t n = type_numel(t);
	for (int64_t i = 0; i < n; i++) {
		double v = rnd();
		switch (t->dtype) {
		case DT_F32: ((float *)p)[i] = (float)v; break;
		case DT_F64: ((double *)p)[i] = v; break;
		case DT_F16: ((uint16_t *)p)[i] = ingot_f32_to_f16((float)v); break;
		case DT_BF16: ((uint16_t *)p)[i] = ingot_f32_to_bf16((float)v); break;
		case DT_BOOL: ((uint8_t *)p)[i] = v > 0; break;
		case DT_I64: ((int64_t *)p)[i] = (int64_t)(v * 10); break;
		case DT_I32: ((int32_t *)p)[i] = (int32_t)(v * 10); break;
		default: memset((char *)p + i * (int64_t)dtype_size(t->dtype), 0, dtype_size(t->dtype));
		}
	}
}

static double elem(const Type *t, const void *p, int64_t i)
{
	switch (t->dtype) {
	case DT_F32: return (double)((const float *)p)[i];
	case DT_F64: return ((const double *)p)[i];
	case DT_F16: return (double)ingot_f16_to_f32(((const uint16_t *)p)[i]);
	case DT_BF16: return (double)ingot_bf16_to_f32(((const uint16_t *)p)[i]);
	case DT_BOOL: return ((const uint8_t *)p)[i];
	case DT_I64: return (double)((const int64_t *)p)[i];
	case DT_I32: return ((const int32_t *)p)[i];
	default: return 0;
	}
}

/* Evaluates region 0 with inputs drawn from `seed`; 0 or -1 (a kernel failed).
 * planned: intermediates at their arena offsets in one workspace (r->ws). */
static int eval(Graph *g, uint64_t seed, Run *r, bool planned)
{
	const Region *reg = &g->regions[0];
	r->n = g->n_values;
	r->buf = calloc((size_t)r->n, sizeof *r->buf);
	r->ws = NULL;
	if (planned) {   /* exactly arena_bytes (ASan sees overruns), garbage first */
		r->n_ws = g->arena_bytes;
		r->ws = malloc((size_t)g->arena_bytes + 1);
		for (int64_t i = 0; i < g->arena_bytes; i++)
			r->ws[i] = (unsigned char)(0xa5 ^ (i * 131));
	}
	rng_state = seed;
	for (int i = 0; i < reg->n_inputs; i++) {
		const Value *v = &g->values[reg->inputs[i]];
		r->buf[reg->inputs[i]] = calloc(1, (size_t)type_bytes(&v->type) + 1);
		fill(&v->type, r->buf[reg->inputs[i]]);
	}
	for (int i = 0; i < reg->n_nodes; i++) {
		const Node *n = &g->nodes[reg->nodes[i]];
		const void *in[16];
		void *out[16];
		if (n->dead)
			continue;
		for (int k = 0; k < n->n_in; k++)
			in[k] = n->in[k] == IR_NONE ? NULL : g->values[n->in[k]].is_const
			        ? ir_const_data(g, n->in[k]) : r->buf[n->in[k]];
		for (int k = 0; k < n->n_out; k++) {
			out[k] = NULL;
			if (n->out[k] == IR_NONE)
				continue;
			if (planned && g->values[n->out[k]].arena_off >= 0) {
				out[k] = r->ws + g->values[n->out[k]].arena_off;
				continue;
			}
			out[k] = calloc(1, (size_t)type_bytes(&g->values[n->out[k]].type) + 1);
			r->buf[n->out[k]] = out[k];
		}
		for (int k = 0; k < n->n_out; k++)   /* read back through the workspace */
			if (n->out[k] != IR_NONE && !r->buf[n->out[k]])
				r->buf[n->out[k]] = out[k];
		if (planned && plan_node_is_alias(g, reg->nodes[i])) {
			CHECK(out[0] == in[0], "%s: a view is not its input's storage", ir_node_name(g, reg->nodes[i]));
			continue;
		}
		if (ops_run_node(g, reg->nodes[i], in, out))
			return -1;
	}
	return 0;
}

static void run_free(Run *r)
{
	for (int i = 0; i < r->n; i++)
		if (!r->ws || (uintptr_t)r->buf[i] < (uintptr_t)r->ws ||
		    (uintptr_t)r->buf[i] > (uintptr_t)r->ws + (uintptr_t)r->n_ws)
			free(r->buf[i]);
	free(r->buf);
	free(r->ws);
}

/* Compares the graph outputs of a (before) and b (after) by position. */
static void compare(const char *what, Graph *ga, Run *ra, Graph *gb, Run *rb, double tol,
                    bool bitwise)
{
	const Region *a = &ga->regions[0], *b = &gb->regions[0];
	CHECK(a->n_outputs == b->n_outputs, "%s: output count %d vs %d", what, a->n_outputs,
	      b->n_outputs);
	for (int i = 0; i < a->n_outputs && i < b->n_outputs; i++) {
		const Value *va = &ga->values[a->outputs[i]], *vb = &gb->values[b->outputs[i]];
		const void *pa = va->is_const ? ir_const_data(ga, a->outputs[i]) : ra->buf[a->outputs[i]];
		const void *pb = vb->is_const ? ir_const_data(gb, b->outputs[i]) : rb->buf[b->outputs[i]];
		CHECK(strcmp(va->name, vb->name) == 0, "%s: output %d renamed %s -> %s", what, i,
		      va->name, vb->name);
		/* the element type and shape: fold_qdq adds the quantized annotation */
		bool same = va->type.dtype == vb->type.dtype && type_same_shape(&va->type, &vb->type);
		CHECK(same, "%s: output %s changed type", what, va->name);
		if (!pa || !pb || !same)
			continue;
		if (bitwise) {
			CHECK(memcmp(pa, pb, (size_t)type_bytes(&va->type)) == 0, "%s: output %s differs",
			      what, va->name);
			continue;
		}
		for (int64_t k = 0; k < type_numel(&va->type); k++) {
			double x = elem(&va->type, pa, k), y = elem(&vb->type, pb, k);
			if (!(fabs(x - y) <= tol + tol * fabs(x)) && !(x != x && y != y)) {
				CHECK(0, "%s: output %s[%lld] %.9g vs %.9g", what, va->name, (long long)k, x, y);
				break;
			}
		}
	}
}

static int parse(Graph *g, const char *text)
{
	DiagSink d;
	diag_sink_init(&d, stderr);
	ir_graph_init(g, "test.ir");
	int rc = ir_parse(g, text, strlen(text), "/nonexistent.bin", &d);
	diag_sink_free(&d);
	return rc;
}

static int run_passes(Graph *g, const char *list)
{
	const char *names[32];
	char buf[512], *save = NULL;
	int n = 0;
	PassCtx ctx;
	DiagSink d;
	snprintf(buf, sizeof buf, "%s", list);
	for (char *t = strtok_r(buf, ",", &save); t && n < 32; t = strtok_r(NULL, ",", &save))
		names[n++] = t;
	diag_sink_init(&d, stderr);
	memset(&ctx, 0, sizeof ctx);
	ctx.diags = &d;
	ctx.verify = true;
	ctx.opt_level = 2;
	int rc = pass_run(g, &ctx, names, n);
	diag_sink_free(&d);
	return rc;
}

static int live_nodes(const Graph *g)
{
	int n = 0;
	for (int i = 0; i < g->regions[0].n_nodes; i++)
		n += !g->nodes[g->regions[0].nodes[i]].dead;
	return n;
}

/* Before/after one IR text and pass list. Returns the live node count after. */
static int check_text(const char *what, const char *text, const char *passes, double tol,
                      bool bitwise)
{
	Graph a, b;
	Run ra, rb, rp;
	int after = -1;
	memset(&rp, 0, sizeof rp);
	if (parse(&a, text) || parse(&b, text)) {
		CHECK(0, "%s: does not parse", what);
		return -1;
	}
	if (run_passes(&b, passes)) {
		CHECK(0, "%s: passes %s failed", what, passes);
	} else if (eval(&a, 42, &ra, false) | eval(&b, 42, &rb, false)) {
		CHECK(0, "%s: evaluation failed", what);
		run_free(&ra);
		run_free(&rb);
	} else {
		compare(what, &a, &ra, &b, &rb, tol, bitwise);
		after = live_nodes(&b);
		char planned[300];
		snprintf(planned, sizeof planned, "%s, planned", what);
		if (run_passes(&b, "plan_memory") || eval(&b, 42, &rp, true))
			CHECK(0, "%s: planned evaluation failed", what);
		else
			compare(planned, &b, &rb, &b, &rp, 0, true);
		run_free(&rp);
		run_free(&ra);
		run_free(&rb);
	}
	ir_graph_free(&a);
	ir_graph_free(&b);
	return after;
}

/* ---- 1. golden cases ---- */

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s;
	long n;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	s = calloc(1, (size_t)n + 1);
	if (fread(s, 1, (size_t)n, f) != (size_t)n)
		n = 0;
	s[n] = 0;
	fclose(f);
	return s;
}

static void golden_cases(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	CHECK(d != NULL, "cannot open %s", dir);
	while (d && (e = readdir(d)) != NULL) {
		char path[4096], passes[512];
		size_t len = strlen(e->d_name);
		if (len < 8 || strcmp(e->d_name + len - 7, ".golden") != 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		char *s = read_file(path), *p, *in, *ex;
		if (!s || !(p = strstr(s, "# passes:")) || !(in = strstr(s, "# input\n")) ||
		    !(ex = strstr(s, "# expected\n"))) {
			CHECK(0, "%s: malformed", e->d_name);
			free(s);
			continue;
		}
		/* the rest of the line, blanks trimmed: an empty list runs no passes */
		const char *q = p + 9 + strspn(p + 9, " \t");
		int k = (int)strcspn(q, "\n");
		while (k > 0 && (q[k - 1] == ' ' || q[k - 1] == '\t' || q[k - 1] == '\r'))
			k--;
		snprintf(passes, sizeof passes, "%.*s", k, q);
		*ex = 0;
		/* fused elementwise loops run each op's own kernel: the same bits; int8 weights
		 * (quantize_weights) round each weight to 1/254 of its column's range */
		bool exact = strncmp(passes, "fuse_elementwise", 16) == 0;
		bool lossy = strstr(passes, "quantize_weights") != NULL;
		check_text(e->d_name, in + 8, passes, exact ? 0 : lossy ? 1e-2 : 1e-4, exact);
		free(s);
		n++;
	}
	if (d)
		closedir(d);
	printf("golden cases evaluated: %d\n", n);
}

/* ---- 2. the epilogue matrix ---- */

static void epilogue_matrix(void)
{
	static const char *const dts[] = { "f32", "f64", "f16", "bf16" };
	static const char *const acts[] = {
		"Relu(%s)", "Clip(%s, %%lo, %%hi)", "LeakyRelu(%s) {alpha=[0.100000001]}",
		"Sigmoid(%s)", "HardSigmoid(%s) {alpha=[0.200000003], beta=[0.5]}", "HardSwish(%s)",
		"Tanh(%s)", "Clip(%s, _, %%hi)", NULL
	};
	static const char *const lins[] = {
		"Conv(%%x, %%w, %%b) {group=1, pads=[1,1,1,1]} : %s[1,2,3,3]",
		"ConvTranspose(%%x, %%w, %%b) {group=1, pads=[1,1,1,1]} : %s[1,2,3,3]",
		"Gemm(%%a, %%gw, %%gb) {alpha=0.5, beta=2, transA=0, transB=1} : %s[3,4]",
		"MatMul(%%a, %%mw) : %s[3,4]",
	};
	static const char *const shapes[] = { "[1,2,3,3]", "[1,2,3,3]", "[3,4]", "[3,4]" };
	int cases = 0, fused_ok = 0;
	for (int di = 0; di < 4; di++)
		for (int li = 0; li < 4; li++) {
			const char *dt = dts[di];
			if (li < 2 && strcmp(dt, "bf16") == 0)
				continue;                    /* Conv has no bf16 */
			for (int ai = -1; acts[ai < 0 ? 0 : ai]; ai++)
				for (int res = 0; res < 2; res++) {
					char text[4096], lin[256], act[256], what[128];
					int k = 0;
					if (ai < 0 && !res)
						continue;
					k += snprintf(text + k, sizeof text - (size_t)k,
					              "// ingot IR, opset 13\n"
					              "input %%x : %s[1,2,3,3]\ninput %%w : %s[2,2,3,3]\n"
					              "input %%b : %s[2]\ninput %%a : %s[3,5]\ninput %%gw : %s[4,5]\n"
					              "input %%gb : %s[4]\ninput %%mw : %s[5,4]\ninput %%r : %s%s\n"
					              "const %%lo : %s[] = [-0.5]\nconst %%hi : %s[] = [1.25]\n",
					              dt, dt, dt, dt, dt, dt, dt, dt, shapes[li], dt, dt);
					snprintf(lin, sizeof lin, lins[li], dt);
					k += snprintf(text + k, sizeof text - (size_t)k, "%%y0 = %s\n", lin);
					const char *last = "%y0";
					if (res) {
						k += snprintf(text + k, sizeof text - (size_t)k,
						              "%%y1 = Add(%%r, %%y0) : %s%s\n", dt, shapes[li]);
						last = "%y1";
					}
					if (ai >= 0) {
						snprintf(act, sizeof act, acts[ai], last);
						k += snprintf(text + k, sizeof text - (size_t)k, "%%y2 = %s : %s%s\n",
						              act, dt, shapes[li]);
						last = "%y2";
					}
					snprintf(text + k, sizeof text - (size_t)k, "output %s\n", last);
					snprintf(what, sizeof what, "epilogue %s %.7s act %d residual %d", dt,
					         lins[li], ai, res);
					int after = check_text(what, text, "fuse_epilogue", 0, true);
					CHECK(after == 1, "%s: %d nodes after fusion, expected 1", what, after);
					cases++;
					fused_ok += after == 1;
				}
		}
	printf("epilogue cases: %d, fully fused: %d\n", cases, fused_ok);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_pass_semantics GOLDEN_CASES_DIR\n");
		return 2;
	}
	golden_cases(argv[1]);
	epilogue_matrix();
	return harness_done("pass_semantics");
}
