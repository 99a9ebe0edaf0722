/* loss.c — reference kernels of NegativeLogLikelihoodLoss / SoftmaxCrossEntropyLoss
 * (one kernel: SCE is NLL over a log-softmax) and of the training optimizers.
 * Loads and stores go through one dtype switch; these ops are small next to the
 * matmuls around them, and one code path keeps every dtype's result identical.
 */
#include "loss.h"

#include <math.h>
#include <string.h>

static INGOT_UNUSED int64_t loss_label(int64_t dt, const void *p, int64_t i)
{
	return dt == INGOT_DT_I32 ? (int64_t)((const int32_t *)p)[i] : ((const int64_t *)p)[i];
}

/* log(sum(exp(x - max))) + max over the C scores of position (i, j): log-softmax is
 * x - this. Subtracting the max keeps exp from overflowing. */
static INGOT_UNUSED double loss_lse(const ingot_nll_params *p, const void *x, int64_t i, int64_t j)
{
	int64_t k, base = i * p->c * p->d + j;
	double mx = -HUGE_VAL, s = 0.0;
	for (k = 0; k < p->c; k++) {
		double v = ingot_ldf(p->dtype, x, base + k * p->d);
		if (v > mx)
			mx = v;
	}
	if (!(mx > -HUGE_VAL))       /* all -inf (or NaN): let the NaN / -inf propagate */
		return mx;
	for (k = 0; k < p->c; k++)
		s += exp(ingot_ldf(p->dtype, x, base + k * p->d) - mx);
	return log(s) + mx;
}

INGOT_KERNEL int ingot_nll(const void *params, const void *const *in, void *const *out,
                           void *scratch, int task, int n_tasks)
{
	const ingot_nll_params *p = (const ingot_nll_params *)params;
	const void *x = in[0], *lab = in[1];
	const void *w = p->has_weight ? in[2] : NULL;
	double sum = 0.0, wsum = 0.0;
	int64_t i, j, k, m = p->n * p->d;
	(void)scratch;
	(void)n_tasks;
	if (task != 0)
		return INGOT_OK;
	if (!x || !lab || (p->has_weight && !w) || (p->has_log_prob && !out[1]))
		return INGOT_EINVAL;
	for (i = 0; i < m; i++) {    /* validate every label before writing anything */
		int64_t t = loss_label(p->label_dtype, lab, i);
		if (!(p->has_ii && t == p->ignore_index) && (t < 0 || t >= p->c))
			return INGOT_ERANGE;
	}
	for (i = 0; i < p->n; i++) {
		for (j = 0; j < p->d; j++) {
			int64_t pos = i * p->d + j, t = loss_label(p->label_dtype, lab, pos);
			double lse = p->softmax ? loss_lse(p, x, i, j) : 0.0, wt, l = 0.0;
			if (p->has_log_prob)
				for (k = 0; k < p->c; k++) {
					int64_t e = (i * p->c + k) * p->d + j;
					ingot_stf(p->dtype, out[1], e, ingot_ldf(p->dtype, x, e) - lse);
				}
			if (p->has_ii && t == p->ignore_index) {
				wt = 0.0;
			} else {
				wt = w ? ingot_ldf(p->dtype, w, t) : 1.0;
				l = -wt * (ingot_ldf(p->dtype, x, (i * p->c + t) * p->d + j) - lse);
			}
			if (p->reduction == INGOT_LOSS_NONE && out[0])
				ingot_stf(p->dtype, out[0], pos, l);
			sum += l;
			wsum += wt;
		}
	}
	if (!out[0])
		return INGOT_OK;
	if (p->reduction == INGOT_LOSS_SUM)
		ingot_stf(p->dtype, out[0], 0, sum);
	else if (p->reduction == INGOT_LOSS_MEAN)   /* all ignored: 0 / 0 is NaN, as numpy */
		ingot_stf(p->dtype, out[0], 0, wsum != 0.0 ? sum / wsum : (double)NAN);
	return INGOT_OK;
}

/* Updates one element; v and h are the accumulators (unused ones ignored). */
static INGOT_UNUSED void loss_optim_step(const ingot_optim_params *p, double r, int64_t t,
                                         double x, double g, double *v, double *h, double *xn)
{
	double gr = (double)p->norm_coefficient * x + g;
	switch (p->algo) {
	case INGOT_OPTIM_ADAGRAD: {
		double rr = r / (1.0 + (double)t * (double)p->decay_factor);
		*h += gr * gr;
		*xn = x - rr * gr / (sqrt(*h) + (double)p->epsilon);
		break;
	}
	case INGOT_OPTIM_MOMENTUM:
	case INGOT_OPTIM_NESTEROV: {
		/* the gradient's coefficient is 1 at the first step */
		double b = t > 0 ? (double)p->beta : 1.0;
		*v = (double)p->alpha * *v + b * gr;
		*xn = p->algo == INGOT_OPTIM_MOMENTUM ? x - r * *v
		      : x - r * (gr + (double)p->alpha * *v);
		break;
	}
	default: {                   /* Adam */
		double a = (double)p->alpha, b = (double)p->beta, rr = r;
		*v = a * *v + (1.0 - a) * gr;
		*h = b * *h + (1.0 - b) * gr * gr;
		if (t > 0)               /* bias correction of both moments */
			rr = r * sqrt(1.0 - pow(b, (double)t)) / (1.0 - pow(a, (double)t));
		*xn = (1.0 - (double)p->norm_coefficient_post) *
		      (x - rr * *v / (sqrt(*h) + (double)p->epsilon));
		break;
	}
	}
}

INGOT_KERNEL int ingot_optim(const void *params, const void *const *in, void *const *out,
                             void *scratch, int task, int n_tasks)
{
	const ingot_optim_params *p = (const ingot_optim_params *)params;
	int64_t n = p->n, k, i, n_state = p->algo == INGOT_OPTIM_ADAM ? 2 : 1;
	double r;
	int64_t t;
	(void)scratch;
	(void)n_tasks;
	if (task != 0)
		return INGOT_OK;
	if (n < 1 || n > 2 * INGOT_MAX_RANK || !in[0] || !in[1])
		return INGOT_EINVAL;
	r = ingot_ldf(p->r_dtype, in[0], 0);
	memcpy(&t, in[1], sizeof t);
	for (k = 0; k < n; k++) {
		const void *xs = in[2 + k], *gs = in[2 + n + k];
		const void *vs = in[2 + 2 * n + k];
		const void *hs = n_state == 2 ? in[2 + 3 * n + k] : vs;
		void *xo = k < p->n_out ? out[k] : NULL;
		void *vo = n + k < p->n_out ? out[n + k] : NULL;
		void *ho = n_state == 2 && 2 * n + k < p->n_out ? out[2 * n + k] : NULL;
		if (!xs || !gs || !vs || !hs)
			return INGOT_EINVAL;
		for (i = 0; i < p->numel[k]; i++) {
			double x = ingot_ldf(p->dtype, xs, i), g = ingot_ldf(p->dtype, gs, i);
			double xn = 0.0;
			double v = ingot_ldf(p->dtype, vs, i), h = ingot_ldf(p->dtype, hs, i);
			loss_optim_step(p, r, t, x, g, &v, &h, &xn);
			if (xo)
				ingot_stf(p->dtype, xo, i, xn);
			if (vo)              /* Adagrad's one accumulator is H */
				ingot_stf(p->dtype, vo, i, p->algo == INGOT_OPTIM_ADAGRAD ? h : v);
			if (n_state == 2 && ho)
				ingot_stf(p->dtype, ho, i, h);
		}
	}
	return INGOT_OK;
}
