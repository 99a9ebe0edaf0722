/* emit_fused.c — per-node code for fused elementwise chains: each FusedElementwise
 * node (passes/fuse_elementwise.c) becomes a static function of NAME.c with the
 * kernel signature, called like any kernel (NAME_run_par splits it).
 *
 * The function walks the output as rows of contiguous elements (dims coalesced
 * where every input's strides allow): inputs broadcast along a row are loaded once
 * per row, inputs broadcast everywhere once per call, and the chain is straight-line
 * code per element in locals. Each step calls the per-element function of its op's
 * reference kernel (kernels/ewmath.h), so on the C target a chain computes the very
 * bits the separate nodes compute (-O0 and -O2 agree).
 *
 * On the SIMD targets the row runs in vectors of the generated vocabulary (ukernel.h)
 * first, then a scalar tail through the same per-element functions. Steps with an
 * exact vector form use it (arithmetic, Abs, Neg, Relu, LeakyRelu, HardSigmoid,
 * HardSwish, Softsign, Reciprocal, Floor, Ceil, Clip, Pow by 2); exp, sigmoid, tanh and
 * erf use the vector math of kernels/simd/vmath.h (within the tolerances stated
 * there); the others (Elu, Log, Selu, Softplus, Sqrt, other Pow) run lane by
 * lane through the per-element function. Tasks take whole
 * vectors of a row, so which elements take the vector path does not depend on the
 * split: NAME_run_par gives NAME_run's bits. The NEON targets run the same code in
 * their vocabulary; on neon32 a vector divide is a refined reciprocal (about 1 ulp)
 * and vector denormals flush to zero, so there Div, Reciprocal and Softsign are
 * within tolerance rather than exact. */
#include "emit_impl.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "elementwise.h"
#include "fused.h"

/* The loop nest of one node: the output dims coalesced, each input's strides. */
typedef struct Nest {
	int rank;
	int64_t dims[INGOT_MAX_RANK];
	int64_t s[INGOT_FE_MAX_IN][INGOT_MAX_RANK];
	int n_in;
	int64_t rows, inner;         /* rows of `inner` contiguous output elements */
	int vf;                      /* vector lanes of the row loop; 1: scalar only */
} Nest;

/* One step of the program, decoded from ingot_fused_params. */
typedef struct Step {
	int code, a, b;              /* registers: inputs 0..n_in-1, then steps */
	float pa, pb, pg;
} Step;

/* The unary codes from ewtable.h's rows: the per-element function (ewmath.h; NULL:
 * none for floats), the ONNX name, the attributes it takes after x ('a' alpha,
 * 'b' beta, 'g' gamma) and the vector form (NULL: none), a uk_* expression in x,
 * A and B (alpha and beta as vectors) and H (the vector al * x + be). */
#define FN_U(fn) #fn
#define FN_UA(fn) #fn
#define FN_UX(fn) NULL
#define VS_VEC(expr) #expr
#define VS_VM(expr) #expr
#define VS_NOVEC NULL
#define X(N, On, fn, R, U, A, PAR, S, V) \
	INGOT_EW_IF_UNARY_##R([U] = { FN_##R(fn), #On, INGOT_EW_ARGS_##PAR, VS_##V },)
static const struct { const char *fn, *onnx, *args, *vec; } unary[INGOT_EW_N_UNARY] = {
	INGOT_EW_TABLE(X)
};
#undef X
#undef FN_U
#undef FN_UA
#undef FN_UX
#undef VS_VEC
#undef VS_VM
#undef VS_NOVEC
_Static_assert(INGOT_EW_N_UNARY <= INGOT_FE_BINARY, "unary codes overlap the binary steps");

static bool is_unary(int code)
{
	return code >= 0 && code < INGOT_EW_N_UNARY;
}

static const char *binary_fn(int code)
{
	switch (code - INGOT_FE_BINARY) {
	case INGOT_EW_ADD: return "add";
	case INGOT_EW_SUB: return "sub";
	case INGOT_EW_MUL: return "mul";
	case INGOT_EW_DIV: return "div";
	case INGOT_EW_POW: return "pow";
	default: return NULL;
	}
}

static bool is_binary(int code)
{
	return code >= INGOT_FE_BINARY && code < INGOT_FE_CLIP;
}

/* The nest of p: size-1 dims dropped, neighbours merged where every input steps
 * through both as through one dim. */
static void make_nest(const ingot_fused_params *p, Nest *L)
{
	const int64_t *s[INGOT_FE_MAX_IN] = { p->s0, p->s1, p->s2, p->s3 };
	memset(L, 0, sizeof *L);
	L->n_in = (int)p->n_in;
	for (int d = 0; d < (int)p->rank; d++) {
		int r = L->rank;
		bool merge = r > 0;
		if (p->dims[d] == 1 && (p->rank > 1 || d > 0))
			continue;
		for (int j = 0; j < L->n_in && merge; j++)
			merge = L->s[j][r - 1] == s[j][d] * p->dims[d];
		if (merge) {
			L->dims[r - 1] *= p->dims[d];
			for (int j = 0; j < L->n_in; j++)
				L->s[j][r - 1] = s[j][d];
			continue;
		}
		L->dims[r] = p->dims[d];
		for (int j = 0; j < L->n_in; j++)
			L->s[j][r] = s[j][d];
		L->rank++;
	}
	if (L->rank == 0) {   /* every dim was 1 */
		L->rank = 1;
		L->dims[0] = 1;
	}
	L->inner = L->dims[L->rank - 1];
	L->rows = 1;
	for (int d = 0; d < L->rank - 1; d++)
		L->rows *= L->dims[d];
}

/* Where input j is read: everywhere the same element, once per row, or per element. */
enum { IN_CALL, IN_ROW, IN_ELEM };

static int input_kind(const Nest *L, int j)
{
	if (L->s[j][L->rank - 1] != 0)
		return IN_ELEM;
	for (int d = 0; d < L->rank - 1; d++)
		if (L->s[j][d] != 0)
			return IN_ROW;
	return IN_CALL;
}

static void real(Emitter *e, float v)
{
	cg_c_emit_real(e, (double)v, true);
}

/* ---- the comment: the chain as one formula ---- */

static void formula(Emitter *e, const Graph *g, const Node *n, const Step *st, int r)
{
	char name[200];
	if (r < n->n_in) {
		cg_comment_text(g->values[n->in[r]].name, name, sizeof name);
		em_printf(e, "%s", name);
		return;
	}
	const Step *t = &st[r - n->n_in];
	if (t->code == INGOT_FE_CLIP) {
		int flags = (int)t->pg;
		em_printf(e, "Clip(");
		formula(e, g, n, st, t->a);
		if (flags & 1)
			em_printf(e, ", min=%.9g", (double)t->pa);
		if (flags & 2)
			em_printf(e, ", max=%.9g", (double)t->pb);
		em_printf(e, ")");
		return;
	}
	if (is_binary(t->code)) {
		static const char ops[] = "+?/?????*?^-";
		em_printf(e, "(");
		formula(e, g, n, st, t->a);
		em_printf(e, " %c ", ops[t->code - INGOT_FE_BINARY]);
		formula(e, g, n, st, t->b);
		em_printf(e, ")");
		return;
	}
	em_printf(e, "%s(", unary[t->code].onnx);
	formula(e, g, n, st, t->a);
	for (const char *a = unary[t->code].args; *a; a++)
		em_printf(e, ", %s=%.9g", *a == 'a' ? "alpha" : *a == 'b' ? "beta" : "gamma",
		          (double)(*a == 'a' ? t->pa : *a == 'b' ? t->pb : t->pg));
	em_printf(e, ")");
}

static void emit_comment(Emitter *e, Ctx *c, NodeId id, const Nest *L, const Step *st, int n_ops,
                         const char *fn)
{
	const Node *n = &c->g->nodes[id];
	char name[256], desc[512];
	static const char *const where[] = { "one value", "one value per row", "streamed" };
	em_printf(e, "/* %s: FusedElementwise of ONNX nodes ", fn);
	for (int i = 0; i < n->n_origins; i++) {
		cg_comment_text(n->origins[i], name, sizeof name);
		em_printf(e, i ? ", '%s'" : "'%s'", name);
	}
	em_printf(e, "\n *   ");
	cg_comment_text(c->g->values[n->out[0]].name, name, sizeof name);
	em_printf(e, "%s = ", name);
	formula(e, c->g, n, st, n->n_in + n_ops - 1);
	em_printf(e, "\n");
	for (int j = 0; j < n->n_in; j++) {
		cg_c_value_desc(c->g, n->in[j], desc, sizeof desc);
		em_line(e, " * in[%d] %s: %s", j, desc, where[input_kind(L, j)]);
	}
	cg_c_value_desc(c->g, n->out[0], desc, sizeof desc);
	em_line(e, " * out[0] %s: %" PRId64 " row%s of %" PRId64 " contiguous elements%s */", desc, L->rows,
	        L->rows == 1 ? "" : "s", L->inner,
	        L->vf > 1 ? ", in vectors then a scalar tail" : "");
}

/* ---- the body ---- */

/* The current indent, to continue with em_printf. */
static void indent(Emitter *e)
{
	for (int i = 0; i < e->indent; i++)
		em_printf(e, "\t");
}

/* The per-element call of step t on operands a and b: ingot_ewf_<op>(a[, b][, attrs]). */
static void scalar_call(Emitter *e, const Step *t, const char *a, const char *b)
{
	if (t->code == INGOT_FE_CLIP) {
		int flags = (int)t->pg;
		em_printf(e, "ingot_ewf_clip(%s, %d, ", a, flags & 1);
		real(e, flags & 1 ? t->pa : 0.0f);
		em_printf(e, ", %d, ", (flags >> 1) & 1);
		real(e, flags & 2 ? t->pb : 0.0f);
	} else if (is_binary(t->code)) {
		em_printf(e, "ingot_ewf_%s(%s, %s", binary_fn(t->code), a, b);
	} else {
		em_printf(e, "ingot_ewf_%s(%s", unary[t->code].fn, a);
		for (const char *p = unary[t->code].args; *p; p++) {
			em_printf(e, ", ");
			real(e, *p == 'a' ? t->pa : *p == 'b' ? t->pb : t->pg);
		}
	}
	em_printf(e, ")");
}

/* A register's name: x<j> for input j, s<k> for step k (vectors: vx<j>, v<k>). */
static void reg_name(char *buf, size_t cap, int r, int n_in, bool vec)
{
	snprintf(buf, cap, r < n_in ? "%sx%d" : "%s%d", vec ? "v" : r < n_in ? "" : "s",
	         r < n_in ? r : r - n_in);
}

/* The scalar statement of step k: `const float s<k> = ingot_ewf_<op>(...);` */
static void scalar_step(Emitter *e, const Step *t, int k, int n_in)
{
	char a[16], b[16];
	reg_name(a, sizeof a, t->a, n_in, false);
	reg_name(b, sizeof b, t->b, n_in, false);
	indent(e);
	em_printf(e, "const float s%d = ", k);
	scalar_call(e, t, a, b);
	em_printf(e, ";\n");
}

/* Is input j a constant whose every element is 2 (Pow's exact x * x)? */
static bool const_two(const Graph *g, ValueId v)
{
	const Value *val = &g->values[v];
	int64_t m = type_numel(&val->type);
	if (!val->is_const || val->type.dtype != DT_F32 || m < 1)
		return false;
	const float *x = ir_const_data(g, v);
	for (int64_t i = 0; i < m; i++)
		if (x[i] != 2.0f)
			return false;
	return true;
}

/* Is t Pow by a constant 2 (its vector form x * x does not read the exponent)? */
static bool pow_by_two(const Graph *g, const Node *n, const Step *t)
{
	return t->code == INGOT_FE_BINARY + INGOT_EW_POW && t->b < n->n_in && const_two(g, n->in[t->b]);
}

/* vec (ewtable.h's vector form) with x, A, B and H replaced by the operand a, the
 * vectors alpha and beta, and the temporary t<k>, into buf. */
static void vec_subst(char *buf, size_t cap, const char *vec, int k, const char *a,
                      const char *lit_a, const char *lit_b)
{
	size_t len = 0;
	buf[0] = 0;
	for (const char *p = vec; *p;) {
		const char *q = p;
		char word[16];
		if (isalpha((unsigned char)*p) || *p == '_' || isdigit((unsigned char)*p)) {
			while (isalnum((unsigned char)*q) || *q == '_' || *q == '.')
				q++;
		} else {
			q++;
		}
		const char *rep = NULL;
		if (q - p == 1 && !isdigit((unsigned char)*p)) {
			rep = *p == 'x' ? a : *p == 'A' ? lit_a : *p == 'B' ? lit_b : NULL;
			if (*p == 'H') {
				snprintf(word, sizeof word, "t%d", k);
				rep = word;
			}
		}
		if (rep)
			len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%s", rep);
		else
			len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%.*s", (int)(q - p), p);
		p = q;
	}
	if (len >= cap)
		die("vector form too long: %s", vec);
}

/* The vector statements of a unary step with vector form vec: where vec reads H,
 * first `t<k> = al * x + be` (HardSigmoid's argument, as ukernel.h's vm_unit
 * takes it), then `v<k> = vec`. */
static void vector_unary(Emitter *e, const char *vec, int k, const char *a, const char *lit_a,
                         const char *lit_b)
{
	char buf[512];
	if (strchr(vec, 'H')) {
		snprintf(buf, sizeof buf, "uk_add(uk_mul(%s, %s), %s)", lit_a, a, lit_b);
		em_line(e, "const uk_vec t%d = %s;", k, buf);
	}
	vec_subst(buf, sizeof buf, vec, k, a, lit_a, lit_b);
	em_line(e, "const uk_vec v%d = %s;", k, buf);
}

/* The vector statement of step k (`uk_vec v<k> = ...;`), or a lane-by-lane loop
 * through the per-element function where the op has no vector form here. */
static void vector_step(Emitter *e, const Graph *g, const Node *n, const Step *t, int k, int vf)
{
	int n_in = n->n_in;
	char a[16], b[16], lit[2][48], buf[512];
	reg_name(a, sizeof a, t->a, n_in, true);
	reg_name(b, sizeof b, t->b, n_in, true);
	for (int i = 0; i < 2; i++) {   /* alpha/lo, beta/hi as vectors */
		Emitter le;
		em_init(&le);
		real(&le, i ? t->pb : t->pa);
		snprintf(lit[i], sizeof lit[i], "uk_bcast(%s)", le.buf);
		em_free(&le);
	}
	const char *expr = NULL;
	int flags = (int)t->pg;
	if (is_unary(t->code) && unary[t->code].vec) {
		vector_unary(e, unary[t->code].vec, k, a, lit[0], lit[1]);
		return;
	}
	switch (t->code) {
	case INGOT_FE_BINARY + INGOT_EW_ADD: expr = "uk_add(%1$s, %2$s)"; break;
	case INGOT_FE_BINARY + INGOT_EW_SUB: expr = "uk_sub(%1$s, %2$s)"; break;
	case INGOT_FE_BINARY + INGOT_EW_MUL: expr = "uk_mul(%1$s, %2$s)"; break;
	case INGOT_FE_BINARY + INGOT_EW_DIV: expr = "uk_div(%1$s, %2$s)"; break;
	case INGOT_FE_BINARY + INGOT_EW_POW:   /* x^2 is x * x in the reference too */
		if (pow_by_two(g, n, t))
			expr = "uk_mul(%1$s, %1$s)";
		break;
	case INGOT_FE_CLIP:   /* v < lo ? lo : v, then hi < v ? hi : v; NaN stays */
		if (flags & 1) {
			snprintf(buf, sizeof buf, "uk_sel_lt(%s, %s, %s, %s)", a, lit[0], a, lit[0]);
			em_line(e, "const uk_vec t%d = %s;", k, buf);
		} else {
			em_line(e, "const uk_vec t%d = %s;", k, a);
		}
		if (flags & 2)
			em_line(e, "const uk_vec v%d = uk_sel_lt(%s, t%d, t%d, %s);", k, lit[1], k, k, lit[1]);
		else
			em_line(e, "const uk_vec v%d = t%d;", k, k);
		return;
	default: break;
	}
	if (expr) {
		snprintf(buf, sizeof buf, expr, a, b, lit[0], lit[1]);
		em_line(e, "const uk_vec v%d = %s;", k, buf);
		return;
	}
	/* no vector form: lane by lane through the per-element function */
	em_line(e, "uk_vec v%d;", k);
	em_line(e, "{   /* %s: no vector form here, lane by lane */", is_unary(t->code) ?
	        unary[t->code].onnx : "Pow");
	e->indent++;
	if (is_binary(t->code))
		em_line(e, "float l0[%d], l1[%d];", vf, vf);
	else
		em_line(e, "float l0[%d];", vf);
	em_line(e, "int q;");
	em_line(e, "uk_store(l0, %s);", a);
	if (is_binary(t->code))
		em_line(e, "uk_store(l1, %s);", b);
	em_line(e, "for (q = 0; q < %d; q++)", vf);
	indent(e);
	em_printf(e, "\tl0[q] = ");
	scalar_call(e, t, "l0[q]", "l1[q]");
	em_printf(e, ";\n");
	em_line(e, "v%d = uk_load(l0);", k);
	e->indent--;
	em_line(e, "}");
}

/* The offset of input j's row r: the row's multi-index times j's strides, with
 * neighbouring dims that j steps through as one dim taken together. */
static void row_offset(Emitter *e, const Nest *L, int j)
{
	bool first = true;   /* (j has a nonzero stride in some outer dim) */
	int64_t below = 1;   /* rows per step of dim d */
	for (int d = L->rank - 2; d >= 0;) {
		int64_t span = L->dims[d], stride = L->s[j][d];
		int top = d;
		while (top > 0 && stride != 0 && L->s[j][top - 1] == stride * span)
			span *= L->dims[--top];
		if (stride != 0) {
			em_printf(e, first ? "r" : " + r");
			if (below > 1)
				em_printf(e, " / %" PRId64, below);
			if (top > 0)
				em_printf(e, " %% %" PRId64, span);
			if (stride != 1)
				em_printf(e, " * %" PRId64, stride);
			first = false;
		}
		below *= span;
		d = top - 1;
	}
}

static void emit_function(Emitter *e, Ctx *c, NodeId id, const Nest *L, const Step *st, int n_ops,
                          const char *fn)
{
	const Node *n = &c->g->nodes[id];
	const int vf = L->vf, n_in = L->n_in, last = n_in + n_ops - 1;
	const int64_t chunks = (L->inner + vf - 1) / vf;
	int used[INGOT_FE_MAX_IN + INGOT_FE_MAX_OPS] = { 0 };
	bool vused[INGOT_FE_MAX_IN] = { false };   /* input j's vector is read */
	for (int k = 0; k < n_ops; k++) {
		used[st[k].a]++;
		if (st[k].a < n_in)
			vused[st[k].a] = true;
		if (is_binary(st[k].code)) {
			used[st[k].b]++;
			if (st[k].b < n_in && !pow_by_two(c->g, n, &st[k]))
				vused[st[k].b] = true;
		}
	}
	emit_comment(e, c, id, L, st, n_ops, fn);
	em_line(e, "static int %s(const void *params, const void *const *in, void *const *out,", fn);
	em_line(e, "\tvoid *scratch, int task, int n_tasks)");
	em_line(e, "{");
	e->indent++;
	for (int j = 0; j < n_in; j++)
		em_line(e, "const float *in%d = (const float *)in[%d];", j, j);
	em_line(e, "float *y = (float *)out[0];");
	if (L->rows * L->inner > 0)
		em_line(e, "int64_t c0, c1, r;");
	em_blank(e);
	em_line(e, "(void)params;");
	em_line(e, "(void)scratch;");
	indent(e);
	em_printf(e, "if (");
	for (int j = 0; j < n_in; j++)
		em_printf(e, "!in%d || ", j);
	em_printf(e, "!y)\n");
	em_line(e, "\treturn INGOT_EINVAL;");
	if (L->rows * L->inner == 0) {   /* an empty output: nothing to compute */
		em_line(e, "(void)task;");
		em_line(e, "(void)n_tasks;");
		em_line(e, "return INGOT_OK;");
		e->indent--;
		em_line(e, "}");
		em_blank(e);
		return;
	}
	em_line(e, "if (n_tasks < 1) {");
	em_line(e, "\ttask = 0;");
	em_line(e, "\tn_tasks = 1;");
	em_line(e, "}");
	em_line(e, "/* tasks take whole chunks of %d element%s of a row */", vf, vf > 1 ? "s" : "");
	em_line(e, "c0 = %" PRId64 "LL * task / n_tasks;", L->rows * chunks);
	em_line(e, "c1 = %" PRId64 "LL * (task + 1) / n_tasks;", L->rows * chunks);
	for (int j = 0; j < n_in; j++)
		if (input_kind(L, j) == IN_CALL) {
			em_line(e, "const float x%d = in%d[0];", j, j);
			if (vf > 1 && vused[j])
				em_line(e, "const uk_vec vx%d = uk_bcast(x%d);", j, j);
		}
	em_line(e, "for (r = c0 / %" PRId64 "; r * %" PRId64 " < c1; r++) {", chunks, chunks);
	e->indent++;
	char times[16] = "";
	if (vf > 1)
		snprintf(times, sizeof times, " * %d", vf);
	em_line(e, "const int64_t j0 = r * %" PRId64 " < c0 ? (c0 - r * %" PRId64 ")%s : 0;", chunks,
	        chunks, times);
	em_line(e, "const int64_t j1 = (r + 1) * %" PRId64 " > c1 ? (c1 - r * %" PRId64 ")%s : %" PRId64 ";",
	        chunks, chunks, times, L->inner);
	for (int j = 0; j < n_in; j++) {
		int kind = input_kind(L, j);
		if (kind == IN_CALL)
			continue;
		bool same = true;   /* every row reads the same elements */
		for (int d = 0; d < L->rank - 1; d++)
			same = same && L->s[j][d] == 0;
		indent(e);
		if (kind == IN_ELEM && same) {
			em_printf(e, "const float *row%d = in%d;\n", j, j);
			continue;
		}
		em_printf(e, kind == IN_ELEM ? "const float *row%d = in%d + " : "const float x%d = in%d[", j, j);
		row_offset(e, L, j);
		em_printf(e, kind == IN_ELEM ? ";\n" : "];\n");
		if (kind == IN_ROW && vf > 1 && vused[j])
			em_line(e, "const uk_vec vx%d = uk_bcast(x%d);", j, j);
	}
	em_line(e, "float *rowy = y + r * %" PRId64 ";", L->inner);
	em_line(e, "int64_t j = j0;");
	em_blank(e);
	if (vf > 1) {
		em_line(e, "for (; j + %d <= j1; j += %d) {", vf, vf);
		e->indent++;
		for (int j = 0; j < n_in; j++)
			if (input_kind(L, j) == IN_ELEM && vused[j])
				em_line(e, "const uk_vec vx%d = uk_load(row%d + j);", j, j);
		for (int k = 0; k < n_ops; k++)
			vector_step(e, c->g, n, &st[k], k, vf);
		for (int k = 0; k < n_ops - 1; k++)
			if (!used[n_in + k])
				em_line(e, "(void)v%d;", k);
		em_line(e, "uk_store(rowy + j, v%d);", last - n_in);
		e->indent--;
		em_line(e, "}");
	}
	em_line(e, "for (; j < j1; j++) {");
	e->indent++;
	for (int j = 0; j < n_in; j++)
		if (input_kind(L, j) == IN_ELEM)
			em_line(e, "const float x%d = row%d[j];", j, j);
	for (int k = 0; k < n_ops; k++)
		scalar_step(e, &st[k], k, n_in);
	for (int k = 0; k < n_ops - 1; k++)
		if (!used[n_in + k])
			em_line(e, "(void)s%d;", k);
	em_line(e, "rowy[j] = s%d;", last - n_in);
	e->indent--;
	em_line(e, "}");
	e->indent--;
	em_line(e, "}");
	em_line(e, "return INGOT_OK;");
	e->indent--;
	em_line(e, "}");
	em_blank(e);
}

int cg_c_fused_lanes(const Target *t)
{
	return t->simd[0] ? t->vector_bits / 32 : 1;
}

int cg_c_emit_fused(Ctx *c, NodeId id, KernelCall *kc)
{
	const ingot_fused_params *p = kc->params;
	const Node *n = &c->g->nodes[id];
	const float pa[INGOT_FE_MAX_OPS] = { p->pa0, p->pa1, p->pa2, p->pa3, p->pa4, p->pa5, p->pa6, p->pa7 };
	const float pb[INGOT_FE_MAX_OPS] = { p->pb0, p->pb1, p->pb2, p->pb3, p->pb4, p->pb5, p->pb6, p->pb7 };
	const float pg[INGOT_FE_MAX_OPS] = { p->pg0, p->pg1, p->pg2, p->pg3, p->pg4, p->pg5, p->pg6, p->pg7 };
	Step st[INGOT_FE_MAX_OPS];
	Nest L;
	char ident[64], *fn;
	int n_ops = (int)p->n_ops;
	if (n_ops < 1 || n_ops > INGOT_FE_MAX_OPS || p->n_in != n->n_in || n->n_out != 1)
		return -1;
	for (int k = 0; k < n_ops; k++) {
		st[k].code = (int)(p->ops[k] & 0xff);
		st[k].a = (int)((p->ops[k] >> 8) & 0xff);
		st[k].b = (int)((p->ops[k] >> 16) & 0xff);
		st[k].pa = pa[k];
		st[k].pb = pb[k];
		st[k].pg = pg[k];
		if (st[k].code < 0 || (is_unary(st[k].code) && !unary[st[k].code].fn) ||
		    (!is_unary(st[k].code) && st[k].code != INGOT_FE_CLIP && !binary_fn(st[k].code)))
			return -1;
	}
	make_nest(p, &L);
	/* x86 targets: vectors of the generated vocabulary (NEON: scalar, see the top) */
	L.vf = cg_c_fused_lanes(c->t);
	cg_ident(n->n_origins ? n->origins[n->n_origins - 1] : c->g->values[n->out[0]].name, ident,
	         sizeof ident);
	size_t len = strlen(c->o->name) + strlen(ident) + 32;
	fn = arena_alloc(&c->g->arena, len);
	snprintf(fn, len, "%s_fused%d_%s", c->o->name, c->n_fused++, ident);
	emit_function(&c->funcs, c, id, &L, st, n_ops, fn);
	kc->fn_name = fn;
	kc->pdesc = NULL;
	kc->params = NULL;
	kc->family = "elementwise";   /* kernels/ewmath.h comes with it */
	if (L.vf > 1)                 /* the vector math: kernels/simd/vmath.h comes with it */
		cg_c_kernel_set_add(c->ks, c->t->simd[0] == 'x' ? "x86/eltwise" : "neon/eltwise");
	kc->split = true;             /* tasks own whole chunks of rows */
	return 0;
}
