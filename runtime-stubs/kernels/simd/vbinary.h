/* simd/vbinary.h — f32 Add, Sub, Mul and Div with broadcasting in the generated
 * vector vocabulary (the uk_* of a target's ukernel.h, which the includer includes
 * first; without it only the op codes are declared), shared by the x86 and NEON
 * binary kernels. The output walks its multi-index in inner runs; a run where each
 * side is contiguous or one value (a per-channel scale, a bias) goes in vectors,
 * the last one masked, other strides element by element. One IEEE operation per
 * element, so exactly the reference kernel's results, whatever the split.
 */
#ifndef INGOT_KERNELS_SIMD_VBINARY_H
#define INGOT_KERNELS_SIMD_VBINARY_H

#include "ingot_rt.h"

/* = elementwise.h's INGOT_EW_ADD, _DIV, _MUL and _SUB (codegen/x86/lower.c asserts it) */
enum { INGOT_VB_ADD = 0, INGOT_VB_DIV = 2, INGOT_VB_MUL = 8, INGOT_VB_SUB = 11 };

static inline int vb_op_ok(int64_t op)
{
	return op == INGOT_VB_ADD || op == INGOT_VB_SUB || op == INGOT_VB_MUL || op == INGOT_VB_DIV;
}

#ifdef UK_VF   /* the vocabulary is there */

static inline uk_vec vb_op(int64_t op, uk_vec a, uk_vec b)
{
	switch (op) {
	case INGOT_VB_ADD: return uk_add(a, b);
	case INGOT_VB_SUB: return uk_sub(a, b);
	case INGOT_VB_MUL: return uk_mul(a, b);
	default: return uk_div(a, b);
	}
}

static inline float vb_op1(int64_t op, float a, float b)
{
	switch (op) {
	case INGOT_VB_ADD: return a + b;
	case INGOT_VB_SUB: return a - b;
	case INGOT_VB_MUL: return a * b;
	default: return a / b;
	}
}

/* One inner run of len outputs, a and b advancing by sa and sb. */
static inline void vb_run(int64_t op, const float *a, int64_t sa, const float *b, int64_t sb,
                          float *y, int64_t len)
{
	int64_t j = 0;
	if ((sa == 0 || sa == 1) && (sb == 0 || sb == 1)) {
		const uk_vec va = uk_bcast(a[0]), vb = uk_bcast(b[0]);
		for (; j + UK_VF <= len; j += UK_VF)
			uk_store(y + j, vb_op(op, sa ? uk_load(a + j) : va, sb ? uk_load(b + j) : vb));
		if (j < len) {
			const uk_mask m = uk_mask_n(len - j);
			uk_storem(y + j, m, vb_op(op, sa ? uk_loadm(a + j, m) : va, sb ? uk_loadm(b + j, m) : vb));
		}
		return;
	}
	for (; j < len; j++)
		y[j] = vb_op1(op, a[j * sa], b[j * sb]);
}

/* Outputs [lo, hi) of y = op(a, b) over dims[0..rank) (1 <= rank <= INGOT_MAX_RANK,
 * all dims >= 1 when lo < hi), a and b read with element strides sa and sb per
 * output dim. */
static inline void vb_binary(int64_t op, const float *a, const float *b, float *y, int rank,
                             const int64_t *dims, const int64_t *sa, const int64_t *sb, int64_t lo,
                             int64_t hi)
{
	int64_t idx[INGOT_MAX_RANK], i = lo;
	for (int d = rank - 1; d >= 0; d--) {   /* the multi-index of element lo */
		idx[d] = i % dims[d];
		i /= dims[d];
	}
	for (i = lo; i < hi;) {
		int64_t len = dims[rank - 1] - idx[rank - 1], oa = 0, ob = 0;
		if (len > hi - i)
			len = hi - i;
		for (int d = 0; d < rank; d++) {
			oa += idx[d] * sa[d];
			ob += idx[d] * sb[d];
		}
		vb_run(op, a + oa, sa[rank - 1], b + ob, sb[rank - 1], y + i, len);
		idx[rank - 1] += len;
		for (int d = rank - 1; d > 0 && idx[d] >= dims[d]; d--) {
			idx[d] = 0;
			idx[d - 1]++;
		}
		i += len;
	}
}

#endif /* UK_VF */
#endif /* INGOT_KERNELS_SIMD_VBINARY_H */
