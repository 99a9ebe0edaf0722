/* x86/rnn.c — f32 RNN, GRU and LSTM for the x86 targets, in the generated vector
 * vocabulary (ukernel.h). The reference kernel (rnn.c) does two scalar dot
 * products per gate row and step in double; here the work splits the way it is
 * bound:
 *   - the input projections W x + Wb of every step do not depend on the state, so
 *     they are one GEMM per direction up front (the driver of sgemm.c, W packed at
 *     compile time as its B panels), into scratch;
 *   - each step is then a matvec h R^T against R packed as panels of R^T (rnn.h):
 *     h[k] is broadcast and multiplied into INGOT_X86_RNN_NV vector accumulators
 *     per panel, which start from the step's projection plus Rb, so R streams
 *     once per step in long unit-stride runs and nothing is reduced across lanes;
 *   - the gate activations run over whole gate rows (sigmoid and tanh through the
 *     x86 unary kernel of eltwise.c, the others inline), and the cell and state
 *     updates are vector loops; row tails use masked loads and stores.
 * Batch entries and directions run one after another, each streaming R once per
 * step: the steps are bound by FMA throughput plus R's stream from L2 (256 KB per
 * step at hidden 128), so sharing the stream between entries would save only the
 * latter. The kernel is not split across tasks.
 * Everything stays f32, so results differ from the reference by rounding (and by
 * the vector sigmoid/tanh's stated ulp bounds). The lowering keeps the reference
 * kernel for other dtypes and for Elu and Softplus (ingot_x86_rnn_act_ok). */
#include "rnn.h"
#include "eltwise.h"
#include "sgemm.h"
#if !defined(__has_include) || __has_include("ukernel.h")   /* absent: stubs built alone */
#include "ukernel.h"

#include <string.h>

#define XR_NB (INGOT_X86_RNN_NV * UK_VF)   /* rows of R per recurrent panel */

/* The first `left` lanes of p (all of them when left >= UK_VF); the rest read 0
 * and are not written. */
static inline uk_vec xr_ld(const float *p, int64_t left)
{
	return left >= UK_VF ? uk_load(p) : uk_loadm(p, uk_mask_n(left));
}

static inline void xr_st(float *p, int64_t left, uk_vec v)
{
	if (left >= UK_VF)
		uk_store(p, v);
	else
		uk_storem(p, uk_mask_n(left), v);
}

/* x0[j] + x1[j] (either may be NULL: 0) for the `left` rows from j on (a vector) */
static inline uk_vec xr_init(const float *x0, const float *x1, int64_t j, int64_t left)
{
	uk_vec a = uk_zero();
	if (left <= 0)
		return a;
	if (x0)
		a = xr_ld(x0 + j, left);
	if (x1)
		a = uk_add(a, xr_ld(x1 + j, left));
	return a;
}

/* One panel of w rows: out[i] = x0[i] + x1[i] + sum_k h[k] * pp[k * w + i], in nv
 * accumulators. Inlined with constant nv and full (w = XR_NB: no masks), so the
 * accumulators are registers (an array indexed in a loop stayed in memory). */
#if INGOT_X86_RNN_NV != 8
#error "xr_panel is written out for 8 vectors"
#endif
#define XR_EACH(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
static inline UK_INLINE void xr_panel(const int nv, const int full, const float *pp, int64_t K,
                                      int64_t w, const float *h, const float *x0, const float *x1,
                                      float *out)
{
	const uk_mask last = uk_mask_n(full ? UK_VF : w - (nv - 1) * UK_VF);
	uk_vec a0, a1, a2, a3, a4, a5, a6, a7;
#define XR_INIT(v) a##v = xr_init(x0, x1, (v) * UK_VF, (v) < nv ? w - (v) * UK_VF : 0);
	XR_EACH(XR_INIT)
	for (int64_t k = 0; k < K; k++) {
		const uk_vec hb = uk_bcast(h[k]);
		const float *row = pp + k * w;
#define XR_FMA(v) \
		if ((v) < nv) \
			a##v = uk_fma(full || (v) + 1 < nv ? uk_load(row + (v) * UK_VF) \
			                                   : uk_loadm(row + (v) * UK_VF, last), hb, a##v);
		XR_EACH(XR_FMA)
	}
#define XR_STORE(v) \
	if ((v) < nv) \
		xr_st(out + (v) * UK_VF, w - (v) * UK_VF, a##v);
	XR_EACH(XR_STORE)
#undef XR_INIT
#undef XR_FMA
#undef XR_STORE
}

/* out[j] = x0[j] + x1[j] + sum_k h[k] * R[j][k] for j < n, R packed as panels of
 * XR_NB rows over K = hidden (rnn.h); x0 or x1 may be NULL (0). */
static void xr_matvec(const float *rp, int64_t K, int64_t n, const float *h, const float *x0,
                      const float *x1, float *out)
{
	for (int64_t j0 = 0; j0 < n; j0 += XR_NB) {
		const int64_t w = n - j0 < XR_NB ? n - j0 : XR_NB;
		const float *pp = rp + j0 * K, *y0 = x0 ? x0 + j0 : NULL, *y1 = x1 ? x1 + j0 : NULL;
		float *o = out + j0;
		switch (w == XR_NB ? 0 : (w + UK_VF - 1) / UK_VF) {
		case 0: xr_panel(8, 1, pp, K, w, h, y0, y1, o); break;
		case 1: xr_panel(1, 0, pp, K, w, h, y0, y1, o); break;
		case 2: xr_panel(2, 0, pp, K, w, h, y0, y1, o); break;
		case 3: xr_panel(3, 0, pp, K, w, h, y0, y1, o); break;
		case 4: xr_panel(4, 0, pp, K, w, h, y0, y1, o); break;
		case 5: xr_panel(5, 0, pp, K, w, h, y0, y1, o); break;
		case 6: xr_panel(6, 0, pp, K, w, h, y0, y1, o); break;
		case 7: xr_panel(7, 0, pp, K, w, h, y0, y1, o); break;
		default: xr_panel(8, 0, pp, K, w, h, y0, y1, o); break;
		}
	}
}

/* One activation function of the list (rnn.h): kind, alpha, beta. */
typedef struct xr_fn {
	int64_t kind;
	float a, b;
} xr_fn;

static xr_fn xr_fn_at(const ingot_x86_rnn_params *p, int64_t i)
{
	const float a[6] = { p->a0, p->a1, p->a2, p->a3, p->a4, p->a5 };
	const float b[6] = { p->b0, p->b1, p->b2, p->b3, p->b4, p->b5 };
	xr_fn f = { 0, 0.0f, 0.0f };
	if (i >= 0 && i < 6) {
		f.kind = p->acts[i];
		f.a = a[i];
		f.b = b[i];
	}
	return f;
}

/* v = x * s over n floats */
static void xr_scale(float *v, int64_t n, float s)
{
	const uk_vec sv = uk_bcast(s);
	for (int64_t j = 0; j < n; j += UK_VF)
		xr_st(v + j, n - j, uk_mul(xr_ld(v + j, n - j), sv));
}

/* sigmoid or tanh of v[0..n) in place, by the x86 unary kernel */
static void xr_unary(float *v, int64_t n, int64_t op)
{
	ingot_x86_unary_params u;
	const void *in[1];
	void *out[1];
	memset(&u, 0, sizeof u);
	u.op = op;
	u.dtype = INGOT_DT_F32;
	u.n = n;
	in[0] = v;
	out[0] = v;
	(void)ingot_x86_unary(&u, in, out, NULL, 0, 1);
}

/* v[0..n) = f(v) in place, the pre-activations clipped first when `clip` and the
 * node has a clip; NaN propagates as in the reference. */
static void xr_act(const ingot_x86_rnn_params *p, const xr_fn *f, float *v, int64_t n, int clip)
{
	const uk_vec a = uk_bcast(f->a), b = uk_bcast(f->b), zero = uk_zero(), one = uk_bcast(1.0f);
	if (clip && p->has_clip) {     /* max/min return their second operand for NaN: NaN stays */
		const uk_vec hi = uk_bcast(p->clip), lo = uk_bcast(-p->clip);
		for (int64_t j = 0; j < n; j += UK_VF)
			xr_st(v + j, n - j, uk_min(hi, uk_max(lo, xr_ld(v + j, n - j))));
	}
	switch (f->kind) {
	case INGOT_X86_RNN_SIGMOID: xr_unary(v, n, INGOT_X86_EW_SIGMOID); return;
	case INGOT_X86_RNN_TANH: xr_unary(v, n, INGOT_X86_EW_TANH); return;
	case INGOT_X86_RNN_SCALED_TANH:          /* a * tanh(b * x) */
		xr_scale(v, n, f->b);
		xr_unary(v, n, INGOT_X86_EW_TANH);
		xr_scale(v, n, f->a);
		return;
	default: break;
	}
	for (int64_t j = 0; j < n; j += UK_VF) {
		const uk_vec x = xr_ld(v + j, n - j);
		uk_vec y;
		switch (f->kind) {
		case INGOT_X86_RNN_RELU: y = uk_sel_lt(zero, x, zero, x); break;          /* NaN: 0 */
		case INGOT_X86_RNN_AFFINE: y = uk_fma(a, x, b); break;
		case INGOT_X86_RNN_LEAKY_RELU: y = uk_select_lt(x, zero, uk_mul(a, x)); break;
		case INGOT_X86_RNN_THRESHOLDED_RELU: y = uk_sel_lt(a, x, zero, x); break;
		case INGOT_X86_RNN_HARD_SIGMOID:
			y = uk_fma(a, x, b);
			y = uk_sel_lt(one, y, uk_sel_lt(y, zero, y, zero), one);
			break;
		case INGOT_X86_RNN_SOFTSIGN: y = uk_div(x, uk_add(one, uk_abs(x))); break;
		default: y = x; break;               /* excluded by ingot_x86_rnn_act_ok */
		}
		xr_st(v + j, n - j, y);
	}
}

/* One (direction, batch entry) recurrence: this direction's packed R, Rb and P,
 * its functions, and the buffers of hidden floats (gates: gates * hidden). */
typedef struct xr_ctx {
	const ingot_x86_rnn_params *p;
	const float *rp, *rb, *peep;
	xr_fn f, g, h;
	float *hs, *cs, *tmp, *gates;
} xr_ctx;

static void xr_step_simple(const xr_ctx *c, const float *xw)
{
	const int64_t H = c->p->hidden;
	xr_matvec(c->rp, H, H, c->hs, xw, c->rb, c->gates);
	xr_act(c->p, &c->f, c->gates, H, 1);
	memcpy(c->hs, c->gates, (size_t)H * sizeof *c->hs);
}

/* z, r = f(xw + Rb + R h); h~ = g(xw_h + r * (R_h h + Rb_h)) with
 * linear_before_reset, else g(xw_h + R_h (r * h) + Rb_h); h = h~ + z * (h - h~) */
static void xr_step_gru(const xr_ctx *c, const float *xw)
{
	const int64_t H = c->p->hidden;
	const float *rh = c->rp + 2 * H * H, *rbh = c->rb ? c->rb + 2 * H : NULL;
	float *z = c->gates, *r = c->gates + H, *hh = c->gates + 2 * H;
	int64_t j;
	xr_matvec(c->rp, H, 2 * H, c->hs, xw, c->rb, c->gates);
	xr_act(c->p, &c->f, c->gates, 2 * H, 1);
	if (c->p->linear_before_reset) {
		xr_matvec(rh, H, H, c->hs, rbh, NULL, c->tmp);
		for (j = 0; j < H; j += UK_VF)
			xr_st(hh + j, H - j, uk_fma(xr_ld(r + j, H - j), xr_ld(c->tmp + j, H - j),
			                            xr_ld(xw + 2 * H + j, H - j)));
	} else {
		for (j = 0; j < H; j += UK_VF)
			xr_st(c->tmp + j, H - j, uk_mul(xr_ld(r + j, H - j), xr_ld(c->hs + j, H - j)));
		xr_matvec(rh, H, H, c->tmp, xw + 2 * H, rbh, hh);
	}
	xr_act(c->p, &c->g, hh, H, 1);
	for (j = 0; j < H; j += UK_VF) {
		const uk_vec cand = xr_ld(hh + j, H - j), hv = xr_ld(c->hs + j, H - j);
		const uk_vec d = uk_fma(cand, uk_bcast(-1.0f), hv);
		xr_st(c->hs + j, H - j, uk_fma(xr_ld(z + j, H - j), d, cand));
	}
}

/* i, o, f, c gates (ONNX order); peepholes P in order i, o, f:
 * i = f(xw_i + Rb_i + R_i h + P_i * c), f likewise (1 - i with input_forget),
 * c = f * c + i * g(.), o = f(... + P_o * c_new), h = o * h(c) */
static void xr_step_lstm(const xr_ctx *c, const float *xw)
{
	const ingot_x86_rnn_params *p = c->p;
	const int64_t H = p->hidden;
	float *ig = c->gates, *og = c->gates + H, *fg = c->gates + 2 * H, *cg = c->gates + 3 * H;
	int64_t j;
	xr_matvec(c->rp, H, 4 * H, c->hs, xw, c->rb, c->gates);
	if (c->peep) {
		for (j = 0; j < H; j += UK_VF) {
			const uk_vec cv = xr_ld(c->cs + j, H - j);
			xr_st(ig + j, H - j, uk_fma(xr_ld(c->peep + j, H - j), cv, xr_ld(ig + j, H - j)));
			xr_st(fg + j, H - j, uk_fma(xr_ld(c->peep + 2 * H + j, H - j), cv, xr_ld(fg + j, H - j)));
		}
		xr_act(p, &c->f, ig, H, 1);
		if (!p->input_forget)
			xr_act(p, &c->f, fg, H, 1);
	} else {                        /* i, o (and f) in one pass: o needs no new cell */
		xr_act(p, &c->f, c->gates, p->input_forget ? 2 * H : 3 * H, 1);
	}
	xr_act(p, &c->g, cg, H, 1);
	for (j = 0; j < H; j += UK_VF) {
		const int64_t left = H - j;
		const uk_vec iv = xr_ld(ig + j, left);
		const uk_vec fv = p->input_forget ? uk_fma(iv, uk_bcast(-1.0f), uk_bcast(1.0f))
		                                  : xr_ld(fg + j, left);
		const uk_vec cn = uk_fma(fv, xr_ld(c->cs + j, left), uk_mul(iv, xr_ld(cg + j, left)));
		xr_st(c->cs + j, left, cn);
		xr_st(c->tmp + j, left, cn);
		if (c->peep)
			xr_st(og + j, left, uk_fma(xr_ld(c->peep + H + j, left), cn, xr_ld(og + j, left)));
	}
	if (c->peep)
		xr_act(p, &c->f, og, H, 1);
	xr_act(p, &c->h, c->tmp, H, 0);
	for (j = 0; j < H; j += UK_VF)
		xr_st(c->hs + j, H - j, uk_mul(xr_ld(og + j, H - j), xr_ld(c->tmp + j, H - j)));
}

/* Element offsets of X's (and the projections') row, Y's row and a state row. */
static int64_t xr_row(const ingot_x86_rnn_params *p, int64_t t, int64_t b)
{
	return p->layout ? b * p->seq + t : t * p->batch + b;
}

static int64_t xr_y_off(const ingot_x86_rnn_params *p, int64_t t, int64_t d, int64_t b)
{
	return (p->layout ? (b * p->seq + t) * p->dirs + d : (t * p->dirs + d) * p->batch + b)
	       * p->hidden;
}

static int64_t xr_s_off(const ingot_x86_rnn_params *p, int64_t d, int64_t b)
{
	return (p->layout ? b * p->dirs + d : d * p->batch + b) * p->hidden;
}

/* xw (rows of X x gates * hidden) = X W_d^T + Wb_d, by the GEMM driver */
static int xr_project(const ingot_x86_rnn_params *p, const float *x, const float *w,
                      const float *wb, float *xw)
{
	const int64_t gh = ingot_x86_rnn_gates(p->kind) * p->hidden;
	ingot_x86_gemm_params gp;
	const void *in[4];
	void *out[1];
	memset(&gp, 0, sizeof gp);
	gp.dtype = INGOT_DT_F32;
	gp.m = p->seq * p->batch;
	gp.n = gh;
	gp.k = p->input;
	gp.trans_b = 1;                 /* W is gates*hidden x input */
	gp.alpha = 1.0f;
	gp.beta = 1.0f;
	gp.has_c = wb != NULL;
	gp.c_rs = 0;                    /* one bias row for every row of X */
	gp.c_cs = 1;
	gp.packed = p->packed & 1;
	in[0] = x;
	in[1] = w;
	in[2] = wb;
	in[3] = NULL;
	out[0] = xw;
	return ingot_x86_gemm(&gp, in, out, NULL, 0, 1);
}

INGOT_KERNEL int ingot_x86_rnn(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks)
{
	const ingot_x86_rnn_params *p = (const ingot_x86_rnn_params *)params;
	const int64_t H = p->hidden, I = p->input, M = p->seq * p->batch;
	const int64_t G = ingot_x86_rnn_gates(p->kind);
	const float *x = (const float *)in[0], *w = (const float *)in[1], *r = (const float *)in[2];
	const float *bias = p->has_b ? (const float *)in[3] : NULL;
	const float *peep = p->has_p ? (const float *)in[7] : NULL;
	const int32_t *lens = p->has_lens ? (const int32_t *)in[4] : NULL;
	const float *h0 = p->has_h0 ? (const float *)in[5] : NULL;
	const float *c0 = p->has_c0 ? (const float *)in[6] : NULL;
	float *y = p->n_out > 0 ? (float *)out[0] : NULL, *yh = p->n_out > 1 ? (float *)out[1] : NULL;
	float *yc = p->n_out > 2 && p->kind == INGOT_X86_RNN_LSTM ? (float *)out[2] : NULL;
	float *xw = (float *)scratch, *rbuf, *state;
	xr_ctx c;
	(void)n_tasks;
	if (task != 0)
		return INGOT_OK;
	if (p->dtype != INGOT_DT_F32 || !x || !w || !r || !scratch || (p->has_b && !bias) ||
	    (p->has_lens && !lens) || (p->has_h0 && !h0) || (p->has_c0 && !c0) || (p->has_p && !peep) ||
	    ((p->packed & 2) && p->r_nb != XR_NB))
		return INGOT_EINVAL;
	for (int64_t i = 0; i < p->dirs * p->per_dir; i++)
		if (!ingot_x86_rnn_act_ok(p->acts[i]))
			return INGOT_EINVAL;
	for (int64_t b = 0; lens && b < p->batch; b++)
		if (lens[b] < 0 || lens[b] > p->seq)
			return INGOT_ERANGE;
	rbuf = xw + p->dirs * M * G * H;
	state = p->packed & 2 ? rbuf : rbuf + G * H * H;
	memset(&c, 0, sizeof c);
	c.p = p;
	c.hs = state;
	c.cs = c.hs + H;
	c.tmp = c.cs + H;
	c.gates = c.tmp + H;
	for (int64_t d = 0; d < p->dirs; d++) {
		const int rev = p->dirs == 2 ? d == 1 : p->reverse != 0;
		float *xwd = xw + d * M * G * H;
		int rc = xr_project(p, x, w + d * G * H * I, bias ? bias + d * 2 * G * H : NULL, xwd);
		if (rc)
			return rc;
		if (p->packed & 2) {
			c.rp = r + d * G * H * H;
		} else {
			ingot_x86_rnn_pack_r(r + d * G * H * H, p->kind, H, XR_NB, rbuf);
			c.rp = rbuf;
		}
		c.rb = bias ? bias + d * 2 * G * H + G * H : NULL;
		c.peep = peep ? peep + d * 3 * H : NULL;
		c.f = xr_fn_at(p, d * p->per_dir);
		c.g = xr_fn_at(p, d * p->per_dir + 1);
		c.h = xr_fn_at(p, d * p->per_dir + 2);
		for (int64_t b = 0; b < p->batch; b++) {
			const int64_t len = lens ? (int64_t)lens[b] : p->seq, so = xr_s_off(p, d, b);
			if (h0)
				memcpy(c.hs, h0 + so, (size_t)H * sizeof *c.hs);
			else
				memset(c.hs, 0, (size_t)H * sizeof *c.hs);
			if (c0)
				memcpy(c.cs, c0 + so, (size_t)H * sizeof *c.cs);
			else
				memset(c.cs, 0, (size_t)H * sizeof *c.cs);
			for (int64_t s = 0; s < len; s++) {
				const int64_t t = rev ? len - 1 - s : s;
				const float *xwr = xwd + xr_row(p, t, b) * G * H;
				if (p->kind == INGOT_X86_RNN_LSTM)
					xr_step_lstm(&c, xwr);
				else if (p->kind == INGOT_X86_RNN_GRU)
					xr_step_gru(&c, xwr);
				else
					xr_step_simple(&c, xwr);
				if (y)
					memcpy(y + xr_y_off(p, t, d, b), c.hs, (size_t)H * sizeof *y);
			}
			for (int64_t s = len; y && s < p->seq; s++)
				memset(y + xr_y_off(p, s, d, b), 0, (size_t)H * sizeof *y);
			if (yh)
				memcpy(yh + so, c.hs, (size_t)H * sizeof *yh);
			if (yc)
				memcpy(yc + so, c.cs, (size_t)H * sizeof *yc);
		}
	}
	return INGOT_OK;
}
#endif /* ukernel.h */
