/* rnn.c — reference kernel of RNN, GRU and LSTM. Each (direction, batch entry)
 * pair is one independent recurrence: its state, cell, gates and the current input
 * row live in double in the scratch, and every gate is a dot product of a W or R row
 * with that row or state. Only the dot products see the stored dtype, so one code
 * path serves f32, f64, f16 and bf16.
 */
#include "rnn.h"

#include <math.h>
#include <string.h>

/* sum(w[off + k] * v[k]) for k < n, with the dtype switch outside the loop. */
static INGOT_UNUSED double rnn_dot(int64_t dt, const void *w, int64_t off, const double *v,
                                   int64_t n)
{
	double s = 0.0;
	int64_t k;
	switch (dt) {
	case INGOT_DT_F32: {              /* eight partial sums: independent adds */
		const float *p = (const float *)w + off;
		double s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0, s5 = 0.0, s6 = 0.0, s7 = 0.0;
		for (k = 0; k + 8 <= n; k += 8) {
			s += (double)p[k] * v[k];
			s1 += (double)p[k + 1] * v[k + 1];
			s2 += (double)p[k + 2] * v[k + 2];
			s3 += (double)p[k + 3] * v[k + 3];
			s4 += (double)p[k + 4] * v[k + 4];
			s5 += (double)p[k + 5] * v[k + 5];
			s6 += (double)p[k + 6] * v[k + 6];
			s7 += (double)p[k + 7] * v[k + 7];
		}
		for (; k < n; k++)
			s += (double)p[k] * v[k];
		s += ((s1 + s2) + (s3 + s4)) + ((s5 + s6) + s7);
		break;
	}
	case INGOT_DT_F64: {
		const double *p = (const double *)w + off;
		for (k = 0; k < n; k++)
			s += p[k] * v[k];
		break;
	}
	case INGOT_DT_F16: {
		const uint16_t *p = (const uint16_t *)w + off;
		for (k = 0; k < n; k++)
			s += (double)ingot_f16_to_f32(p[k]) * v[k];
		break;
	}
	case INGOT_DT_BF16: {
		const uint16_t *p = (const uint16_t *)w + off;
		for (k = 0; k < n; k++)
			s += (double)ingot_bf16_to_f32(p[k]) * v[k];
		break;
	}
	default: break;
	}
	return s;
}

/* One activation of the k-th function of the list (see rnn.h), pre-activation x. */
typedef struct rnn_fn { int64_t kind; double a, b; } rnn_fn;

static INGOT_UNUSED double rnn_act(const rnn_fn *f, double x)
{
	switch (f->kind) {
	case INGOT_RNN_RELU: return x > 0.0 ? x : 0.0;
	case INGOT_RNN_TANH: return tanh(x);
	case INGOT_RNN_SIGMOID: {    /* never exp of a large positive value; one exp call */
		const double e = exp(-fabs(x));
		return x >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
	}
	case INGOT_RNN_AFFINE: return f->a * x + f->b;
	case INGOT_RNN_LEAKY_RELU: return x < 0.0 ? f->a * x : x;
	case INGOT_RNN_THRESHOLDED_RELU: return x > f->a ? x : 0.0;
	case INGOT_RNN_SCALED_TANH: return f->a * tanh(f->b * x);
	case INGOT_RNN_HARD_SIGMOID: {
		double y = f->a * x + f->b;
		return y < 0.0 ? 0.0 : y > 1.0 ? 1.0 : y;
	}
	case INGOT_RNN_ELU: return x < 0.0 ? f->a * (exp(x) - 1.0) : x;
	case INGOT_RNN_SOFTSIGN: return x / (1.0 + fabs(x));
	case INGOT_RNN_SOFTPLUS: return x > 0.0 ? x + log1p(exp(-x)) : log1p(exp(x));
	default: return x;
	}
}

static INGOT_UNUSED rnn_fn rnn_fn_at(const ingot_rnn_params *p, int64_t i)
{
	const float a[6] = { p->a0, p->a1, p->a2, p->a3, p->a4, p->a5 };
	const float b[6] = { p->b0, p->b1, p->b2, p->b3, p->b4, p->b5 };
	rnn_fn f;
	f.kind = i >= 0 && i < 6 ? p->acts[i] : 0;
	f.a = i >= 0 && i < 6 ? (double)a[i] : 0.0;
	f.b = i >= 0 && i < 6 ? (double)b[i] : 0.0;
	return f;
}

/* The pre-activation, clipped when asked. */
static INGOT_UNUSED double rnn_clip(const ingot_rnn_params *p, double x)
{
	double c = (double)p->clip;
	if (!p->has_clip)
		return x;
	return x < -c ? -c : x > c ? c : x;
}

/* Where things are: element offsets for time t, direction d, batch entry b. */
static INGOT_UNUSED int64_t rnn_x_off(const ingot_rnn_params *p, int64_t t, int64_t b)
{
	return (p->layout ? b * p->seq + t : t * p->batch + b) * p->input;
}

static INGOT_UNUSED int64_t rnn_y_off(const ingot_rnn_params *p, int64_t t, int64_t d, int64_t b)
{
	return (p->layout ? (b * p->seq + t) * p->dirs + d : (t * p->dirs + d) * p->batch + b)
	       * p->hidden;
}

static INGOT_UNUSED int64_t rnn_s_off(const ingot_rnn_params *p, int64_t d, int64_t b)
{
	return (p->layout ? b * p->dirs + d : d * p->batch + b) * p->hidden;
}

/* Buffers of one recurrence step. */
typedef struct rnn_ctx {
	const void *w, *r, *bias, *peep;   /* this direction's W, R, B, P */
	int64_t w_off, r_off, b_off, p_off;
	rnn_fn f, g, h;
	double *hs, *cs, *gates, *x, *tmp;
} rnn_ctx;

/* gates[j] = W[j] . x + R[j] . h + Wb[j] + Rb[j] for gate rows j0..j1 */
static INGOT_UNUSED void rnn_rows(const ingot_rnn_params *p, const rnn_ctx *c, int64_t j0,
                                  int64_t j1, int with_r)
{
	int64_t j, gh = (p->kind == INGOT_RNN_LSTM ? 4 : p->kind == INGOT_RNN_GRU ? 3 : 1) * p->hidden;
	for (j = j0; j < j1; j++) {
		double s = rnn_dot(p->dtype, c->w, c->w_off + j * p->input, c->x, p->input);
		if (with_r)
			s += rnn_dot(p->dtype, c->r, c->r_off + j * p->hidden, c->hs, p->hidden);
		if (p->has_b)
			s += ingot_ldf(p->dtype, c->bias, c->b_off + j) +
			     (with_r ? ingot_ldf(p->dtype, c->bias, c->b_off + gh + j) : 0.0);
		c->gates[j] = s;
	}
}

static INGOT_UNUSED void rnn_step(const ingot_rnn_params *p, const rnn_ctx *c)
{
	const int64_t H = p->hidden;
	int64_t j;
	if (p->kind == INGOT_RNN_SIMPLE) {
		rnn_rows(p, c, 0, H, 1);
		for (j = 0; j < H; j++)
			c->hs[j] = rnn_act(&c->f, rnn_clip(p, c->gates[j]));
		return;
	}
	if (p->kind == INGOT_RNN_GRU) {
		double *z = c->gates, *r = c->gates + H, *hh = c->gates + 2 * H;
		rnn_rows(p, c, 0, 2 * H, 1);
		rnn_rows(p, c, 2 * H, 3 * H, 0);         /* W_h . x + Wb_h */
		for (j = 0; j < 2 * H; j++)
			c->gates[j] = rnn_act(&c->f, rnn_clip(p, c->gates[j]));
		for (j = 0; j < H; j++)
			c->tmp[j] = p->linear_before_reset ? c->hs[j] : r[j] * c->hs[j];
		for (j = 0; j < H; j++) {
			double rh = rnn_dot(p->dtype, c->r, c->r_off + (2 * H + j) * H, c->tmp, H) +
			            (p->has_b ? ingot_ldf(p->dtype, c->bias, c->b_off + 5 * H + j) : 0.0);
			hh[j] += p->linear_before_reset ? r[j] * rh : rh;
		}
		for (j = 0; j < H; j++) {
			double cand = rnn_act(&c->g, rnn_clip(p, hh[j]));
			c->hs[j] = (1.0 - z[j]) * cand + z[j] * c->hs[j];
		}
		return;
	}
	rnn_rows(p, c, 0, 4 * H, 1);                 /* LSTM: i, o, f, c */
	for (j = 0; j < H; j++) {
		double pi = c->peep ? ingot_ldf(p->dtype, c->peep, c->p_off + j) : 0.0;
		double po = c->peep ? ingot_ldf(p->dtype, c->peep, c->p_off + H + j) : 0.0;
		double pf = c->peep ? ingot_ldf(p->dtype, c->peep, c->p_off + 2 * H + j) : 0.0;
		double ig = rnn_act(&c->f, rnn_clip(p, c->gates[j] + pi * c->cs[j]));
		double fg = p->input_forget ? 1.0 - ig
		            : rnn_act(&c->f, rnn_clip(p, c->gates[2 * H + j] + pf * c->cs[j]));
		double cg = rnn_act(&c->g, rnn_clip(p, c->gates[3 * H + j]));
		double og;
		c->cs[j] = fg * c->cs[j] + ig * cg;
		og = rnn_act(&c->f, rnn_clip(p, c->gates[H + j] + po * c->cs[j]));
		c->hs[j] = og * rnn_act(&c->h, c->cs[j]);
	}
}

INGOT_KERNEL int ingot_rnn(const void *params, const void *const *in, void *const *out,
                           void *scratch, int task, int n_tasks)
{
	const ingot_rnn_params *p = (const ingot_rnn_params *)params;
	const int64_t H = p->hidden, I = p->input;
	const int64_t G = p->kind == INGOT_RNN_LSTM ? 4 : p->kind == INGOT_RNN_GRU ? 3 : 1;
	const void *x = in[0];
	const int32_t *lens = p->has_lens ? (const int32_t *)in[4] : NULL;
	const void *h0 = p->has_h0 ? in[5] : NULL, *c0 = p->has_c0 ? in[6] : NULL;
	void *y = p->n_out > 0 ? out[0] : NULL, *yh = p->n_out > 1 ? out[1] : NULL;
	void *yc = p->n_out > 2 && p->kind == INGOT_RNN_LSTM ? out[2] : NULL;
	rnn_ctx c;
	int64_t d, b, s, j;
	(void)n_tasks;
	if (task != 0)
		return INGOT_OK;
	if (!x || !in[1] || !in[2] || !scratch || (p->has_b && !in[3]) || (p->has_lens && !lens) ||
	    (p->has_h0 && !h0) || (p->has_c0 && !c0) || (p->has_p && !in[7]))
		return INGOT_EINVAL;
	for (b = 0; lens && b < p->batch; b++)
		if (lens[b] < 0 || lens[b] > p->seq)
			return INGOT_ERANGE;
	memset(&c, 0, sizeof c);
	c.w = in[1];
	c.r = in[2];
	c.bias = p->has_b ? in[3] : NULL;
	c.peep = p->has_p ? in[7] : NULL;
	c.hs = (double *)scratch;
	c.cs = c.hs + H;
	c.tmp = c.cs + H;
	c.gates = c.tmp + H;
	c.x = c.gates + G * H;
	for (d = 0; d < p->dirs; d++) {
		int rev = p->dirs == 2 ? d == 1 : p->reverse != 0;
		c.w_off = d * G * H * I;
		c.r_off = d * G * H * H;
		c.b_off = d * 2 * G * H;
		c.p_off = d * 3 * H;
		c.f = rnn_fn_at(p, d * p->per_dir);
		c.g = rnn_fn_at(p, d * p->per_dir + 1);
		c.h = rnn_fn_at(p, d * p->per_dir + 2);
		for (b = 0; b < p->batch; b++) {
			int64_t len = lens ? (int64_t)lens[b] : p->seq, so = rnn_s_off(p, d, b);
			for (j = 0; j < H; j++) {
				c.hs[j] = h0 ? ingot_ldf(p->dtype, h0, so + j) : 0.0;
				c.cs[j] = c0 ? ingot_ldf(p->dtype, c0, so + j) : 0.0;
			}
			for (s = 0; s < len; s++) {
				int64_t t = rev ? len - 1 - s : s, xo = rnn_x_off(p, t, b);
				for (j = 0; j < I; j++)
					c.x[j] = ingot_ldf(p->dtype, x, xo + j);
				rnn_step(p, &c);
				for (j = 0; y && j < H; j++)
					ingot_stf(p->dtype, y, rnn_y_off(p, t, d, b) + j, c.hs[j]);
			}
			for (s = len; y && s < p->seq; s++)
				for (j = 0; j < H; j++)
					ingot_stf(p->dtype, y, rnn_y_off(p, s, d, b) + j, 0.0);
			for (j = 0; j < H; j++) {
				if (yh)
					ingot_stf(p->dtype, yh, so + j, c.hs[j]);
				if (yc)
					ingot_stf(p->dtype, yc, so + j, c.cs[j]);
			}
		}
	}
	return INGOT_OK;
}

/* ---- LinearAttention ---- */

/* Element i of a float tensor of dtype dt, as a double. */
static INGOT_UNUSED double la_ld(int64_t dt, const void *p, int64_t i)
{
	switch (dt) {
	case INGOT_DT_F64: return ((const double *)p)[i];
	case INGOT_DT_F16: return (double)ingot_f16_to_f32(((const uint16_t *)p)[i]);
	case INGOT_DT_BF16: return (double)ingot_bf16_to_f32(((const uint16_t *)p)[i]);
	default: return (double)((const float *)p)[i];
	}
}

static INGOT_UNUSED void la_st(int64_t dt, void *p, int64_t i, double v)
{
	switch (dt) {
	case INGOT_DT_F64: ((double *)p)[i] = v; break;
	case INGOT_DT_F16: ((uint16_t *)p)[i] = ingot_f32_to_f16((float)v); break;
	case INGOT_DT_BF16: ((uint16_t *)p)[i] = ingot_f32_to_bf16((float)v); break;
	default: ((float *)p)[i] = (float)v; break;
	}
}

INGOT_KERNEL int ingot_linear_attention(const void *params, const void *const *in,
                                        void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_linear_attention_params *p = (const ingot_linear_attention_params *)params;
	const void *q = in[0], *k = in[1], *v = in[2];
	const void *past = p->has_past ? in[3] : NULL, *decay = p->gating ? in[4] : NULL;
	const void *beta = p->delta ? in[5] : NULL, *erase = p->has_erase ? in[6] : NULL;
	void *y = out[0], *present = p->n_out > 1 ? out[1] : NULL;
	const int64_t dk = p->dk, dv = p->dv, hkv = p->kv_heads, hq = p->q_heads;
	const int64_t rep = hkv > 0 ? hq / hkv : 0;
	double *s = (double *)scratch, *u, *ke;
	int64_t b, h, t, i, m, r;
	(void)n_tasks;
	if (task != 0)
		return INGOT_OK;
	if (!q || !k || !v || !y || !s || (p->has_past && !past) || (p->gating && !decay) ||
	    (p->delta && !beta) || (p->has_erase && !erase) || rep < 1)
		return INGOT_EINVAL;
	u = s + dk * dv;
	ke = u + dv;
	for (b = 0; b < p->batch; b++)
		for (h = 0; h < hkv; h++) {
			const int64_t s_off = (b * hkv + h) * dk * dv;
			for (i = 0; i < dk * dv; i++)
				s[i] = past ? la_ld(p->dtype, past, s_off + i) : 0.0;
			for (t = 0; t < p->seq; t++) {
				const int64_t row = b * p->seq + t;
				const int64_t k_off = row * hkv * dk + h * dk, v_off = row * hkv * dv + h * dv;
				if (p->gating)
					for (i = 0; i < dk; i++) {
						double g = exp(la_ld(p->dtype, decay, p->decay_per_key ?
						                     row * hkv * dk + h * dk + i : row * hkv + h));
						for (m = 0; m < dv; m++)
							s[i * dv + m] *= g;
					}
				for (m = 0; m < dv; m++)
					u[m] = la_ld(p->dtype, v, v_off + m);
				if (p->delta) {
					double bt = la_ld(p->dtype, beta, p->beta_shared ? row : row * hkv + h);
					for (i = 0; i < dk; i++)
						ke[i] = la_ld(p->dtype, k, k_off + i) *
						        (erase ? la_ld(p->dtype, erase, k_off + i) : 1.0);
					for (m = 0; m < dv; m++) {
						double got = 0.0;
						for (i = 0; i < dk; i++)
							got += s[i * dv + m] * ke[i];
						u[m] = bt * (u[m] - got);
					}
				}
				for (i = 0; i < dk; i++) {
					double ki = la_ld(p->dtype, k, k_off + i);
					for (m = 0; m < dv; m++)
						s[i * dv + m] += ki * u[m];
				}
				for (r = 0; r < rep; r++) {
					const int64_t qh = h * rep + r;
					const int64_t q_off = row * hq * dk + qh * dk, y_off = row * hq * dv + qh * dv;
					for (m = 0; m < dv; m++) {
						double acc = 0.0;
						for (i = 0; i < dk; i++)
							acc += la_ld(p->dtype, q, q_off + i) * s[i * dv + m];
						la_st(p->dtype, y, y_off + m, p->scale * acc);
					}
				}
			}
			if (present)
				for (i = 0; i < dk * dv; i++)
					la_st(p->dtype, present, s_off + i, s[i]);
		}
	return INGOT_OK;
}
