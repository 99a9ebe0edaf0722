/* fused.c — FusedElementwise (see fused.h): the program runs block by block, each
 * step through the reference kernel of its op on INGOT_FE_BLOCK-element registers,
 * so a fused chain computes exactly what the separate nodes compute. */
#include "fused.h"

#include "elementwise.h"

typedef struct fe_step {
	int code, a, b;
	ingot_unary_params u;
	ingot_binary_params bin;
	ingot_clip_params clip;
} fe_step;

/* The parameters of every step, as the separate kernels take them. */
static INGOT_UNUSED int fe_decode(const ingot_fused_params *p, fe_step *st)
{
	const float pa[INGOT_FE_MAX_OPS] = { p->pa0, p->pa1, p->pa2, p->pa3, p->pa4, p->pa5, p->pa6, p->pa7 };
	const float pb[INGOT_FE_MAX_OPS] = { p->pb0, p->pb1, p->pb2, p->pb3, p->pb4, p->pb5, p->pb6, p->pb7 };
	const float pg[INGOT_FE_MAX_OPS] = { p->pg0, p->pg1, p->pg2, p->pg3, p->pg4, p->pg5, p->pg6, p->pg7 };
	int k, n_reg = (int)p->n_in;
	for (k = 0; k < (int)p->n_ops; k++) {
		fe_step *s = &st[k];
		int64_t w = p->ops[k];
		int flags = (int)pg[k];
		s->code = (int)(w & 0xff);
		s->a = (int)((w >> 8) & 0xff);
		s->b = (int)((w >> 16) & 0xff);
		if (s->a >= n_reg || (s->code >= INGOT_FE_BINARY && s->code < INGOT_FE_CLIP && s->b >= n_reg))
			return INGOT_EINVAL;
		n_reg++;
		s->u.op = s->code;
		s->u.dtype = INGOT_DT_F32;
		s->u.alpha = pa[k];
		s->u.beta = pb[k];
		s->u.gamma = pg[k];
		s->bin.op = s->code - INGOT_FE_BINARY;
		s->bin.dtype_a = s->bin.dtype_b = s->bin.dtype_out = INGOT_DT_F32;
		s->bin.rank = 1;
		s->bin.sa[0] = s->bin.sb[0] = 1;
		s->clip.dtype = INGOT_DT_F32;
		s->clip.n_in = 1;
		s->clip.has_lo = flags & 1;
		s->clip.has_hi = (flags >> 1) & 1;
		s->clip.lo = (double)pa[k];
		s->clip.hi = (double)pb[k];
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_fused_elementwise(const void *params, const void *const *in,
                                         void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_fused_params *p = (const ingot_fused_params *)params;
	const int64_t *s[INGOT_FE_MAX_IN] = { p->s0, p->s1, p->s2, p->s3 };
	fe_step st[INGOT_FE_MAX_OPS];
	float buf[INGOT_FE_MAX_IN + INGOT_FE_MAX_OPS][INGOT_FE_BLOCK];
	const float *reg[INGOT_FE_MAX_IN + INGOT_FE_MAX_OPS];
	int64_t idx[INGOT_MAX_RANK], lo, hi, i;
	int rank = (int)p->rank, n_in = (int)p->n_in, n_ops = (int)p->n_ops, d, j, k, rc;
	float *y = (float *)out[0];
	(void)scratch;
	if (rank < 1 || rank > INGOT_MAX_RANK || n_in < 1 || n_in > INGOT_FE_MAX_IN || n_ops < 1 ||
	    n_ops > INGOT_FE_MAX_OPS || !y || fe_decode(p, st))
		return INGOT_EINVAL;
	for (j = 0; j < n_in; j++)
		if (!in[j])
			return INGOT_EINVAL;
	if (n_tasks < 1)
		n_tasks = 1;
	lo = p->n * task / n_tasks;
	hi = p->n * (task + 1) / n_tasks;
	for (d = rank - 1, i = lo; d >= 0; d--) {   /* the multi-index of element lo */
		idx[d] = p->dims[d] ? i % p->dims[d] : 0;
		i = p->dims[d] ? i / p->dims[d] : 0;
	}
	for (i = lo; i < hi;) {
		int64_t run = p->dims[rank - 1] - idx[rank - 1];
		int len = (int)(run < hi - i ? run : hi - i);
		if (len > INGOT_FE_BLOCK)
			len = INGOT_FE_BLOCK;
		for (j = 0; j < n_in; j++) {   /* inputs: in place when contiguous, else a block */
			const float *x = (const float *)in[j];
			int64_t off = 0;
			for (d = 0; d < rank; d++)
				off += idx[d] * s[j][d];
			if (s[j][rank - 1] == 1) {
				reg[j] = x + off;
			} else {
				for (k = 0; k < len; k++)
					buf[j][k] = x[off + k * s[j][rank - 1]];
				reg[j] = buf[j];
			}
		}
		for (k = 0; k < n_ops; k++) {
			fe_step *t = &st[k];
			float *r = buf[n_in + k];
			const void *a[3] = { reg[t->a], t->b < n_in + k ? reg[t->b] : NULL, NULL };
			void *const o[1] = { r };
			if (t->code < INGOT_FE_BINARY) {
				t->u.n = len;
				rc = ingot_unary(&t->u, a, o, NULL, 0, 1);
			} else if (t->code < INGOT_FE_CLIP) {
				t->bin.n = len;
				t->bin.dims[0] = len;
				rc = ingot_binary(&t->bin, a, o, NULL, 0, 1);
			} else {
				t->clip.n = len;
				rc = ingot_clip(&t->clip, a, o, NULL, 0, 1);
			}
			if (rc)
				return rc;
			reg[n_in + k] = r;
		}
		for (k = 0; k < len; k++)
			y[i + k] = reg[n_in + n_ops - 1][k];
		idx[rank - 1] += len;
		for (d = rank - 1; d > 0 && idx[d] >= p->dims[d]; d--) {
			idx[d] = 0;
			idx[d - 1]++;
		}
		i += len;
	}
	return INGOT_OK;
}
