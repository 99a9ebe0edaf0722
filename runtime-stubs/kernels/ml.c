/* ml.c — reference kernels of the ai.onnx.ml ops (ml.h): tree ensembles walked over
 * the normalized node table, their post transforms as ONNX's reference implementation
 * writes them (including PROBIT's approximate inverse erf), LabelEncoder by linear
 * search, Binarizer, ArrayFeatureExtractor, Scaler, LinearRegressor, Normalizer and Imputer. */
#include "ml.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* The largest finite value of a float dtype (MIN/MAX aggregation's start). */
static double tree_big(int64_t dt)
{
	return dt == INGOT_DT_F64 ? DBL_MAX : dt == INGOT_DT_F16 ? 65504.0 : (double)FLT_MAX;
}

static double tree_x(int64_t dt, const void *x, int64_t i)
{
	switch (dt) {
	case INGOT_DT_I32: return (double)(float)((const int32_t *)x)[i];
	case INGOT_DT_I64: return (double)(float)((const int64_t *)x)[i];
	default: return ingot_ldf(dt, x, i);
	}
}

static int tree_branch(const int64_t *row, double th, const double *set, double x,
                       int64_t legacy_nan)
{
	if (x != x && (row[4] || legacy_nan))
		return row[4] != 0;
	switch (row[1]) {
	case INGOT_TREE_LEQ: return x <= th;
	case INGOT_TREE_LT: return x < th;
	case INGOT_TREE_GTE: return x >= th;
	case INGOT_TREE_GT: return x > th;
	case INGOT_TREE_EQ: return x == th;
	case INGOT_TREE_NEQ: return x != th;
	default: {
		int64_t k;
		for (k = 0; k < row[6]; k++)
			if (set[row[5] + k] == x)
				return 1;
		return 0;
	}
	}
}

/* The reference's inverse erf: Winitzki's approximation with a = 0.147. */
static double tree_erfinv(double x)
{
	double sgn = x < 0 ? -1.0 : 1.0, l, v, v2;
	x = (1.0 - x) * (1.0 + x);
	if (x == 0)
		return 0;
	l = log(x);
	v = 2.0 / (3.14159265358979323846 * 0.147) + 0.5 * l;
	v2 = 1.0 / 0.147 * l;
	return sgn * sqrt(-v + sqrt(v * v - v2));
}

static void tree_post(int64_t post, double *s, int64_t n)
{
	int64_t j;
	double mx, sum = 0;
	switch (post) {
	case INGOT_TREE_POST_SOFTMAX:
		mx = s[0];
		for (j = 1; j < n; j++)
			mx = s[j] > mx ? s[j] : mx;
		for (j = 0; j < n; j++) {
			s[j] = exp(s[j] - mx);
			sum += s[j];
		}
		for (j = 0; j < n; j++)
			s[j] /= sum;
		break;
	case INGOT_TREE_POST_SOFTMAX_ZERO:
		mx = s[0];
		for (j = 1; j < n; j++)
			mx = s[j] > mx ? s[j] : mx;
		for (j = 0; j < n; j++) {
			if (s[j] > 0.0000001 || s[j] < -0.0000001)
				s[j] = exp(s[j] - mx);
			else
				s[j] *= exp(-mx);
			sum += s[j];
		}
		for (j = 0; j < n; j++)
			s[j] = sum == 0 ? 0.5 : s[j] / sum;
		break;
	case INGOT_TREE_POST_LOGISTIC:
		for (j = 0; j < n; j++) {
			double v = 1.0 / (1.0 + exp(-fabs(s[j])));
			s[j] = s[j] < 0 ? 1.0 - v : v;
		}
		break;
	case INGOT_TREE_POST_PROBIT:
		for (j = 0; j < n; j++)
			s[j] = 1.41421356 * tree_erfinv(s[j] * 2 - 1);
		break;
	default:
		break;
	}
}

/* Walks every tree for one row into acc[0 .. n_cols). */
static int tree_row(const ingot_tree_ensemble_params *p, const void *const *in, int64_t r,
                    double *acc)
{
	const int64_t *tab = (const int64_t *)in[1], *roots = (const int64_t *)in[3];
	const int64_t *tgt = (const int64_t *)in[4];
	const double *th = (const double *)in[2], *w = (const double *)in[5];
	const double *set = (const double *)in[7];
	int64_t t, k;
	for (t = 0; t < p->n_trees; t++) {
		int64_t at = roots[t], steps = 0;
		const int64_t *row = tab + at * INGOT_TREE_COLS;
		while (row[1] != INGOT_TREE_LEAF) {
			double x = tree_x(p->x_dtype, in[0], r * p->n_feat + row[0]);
			at = tree_branch(row, th[at], set, x, p->legacy_nan) ? row[2] : row[3];
			if (++steps > p->n_nodes)
				return INGOT_EINVAL;
			row = tab + at * INGOT_TREE_COLS;
		}
		for (k = row[5]; k < row[5] + row[6]; k++) {
			double v = w[k];
			double *a = &acc[tgt[k]];
			if (p->aggregate == INGOT_TREE_MIN)
				*a = v < *a ? v : *a;
			else if (p->aggregate == INGOT_TREE_MAX)
				*a = v > *a ? v : *a;
			else if (p->aggregate == INGOT_TREE_AVERAGE && p->avg_each)
				*a += v / (double)p->n_trees;
			else
				*a += v;
		}
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_tree_ensemble(const void *params, const void *const *in,
                                     void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_tree_ensemble_params *p = (const ingot_tree_ensemble_params *)params;
	const double *base = (const double *)in[6];
	double *s = (double *)scratch;
	int64_t r, j, r0 = task * p->n_rows / n_tasks, r1 = (task + 1) * p->n_rows / n_tasks;
	void *y = !p->classifier ? out[0] : p->has_z ? out[1] : NULL;
	if (!in[0] || !in[1] || !in[2] || !in[3] || !in[4] || !in[5] || !in[6] || !in[7] || !s)
		return INGOT_EINVAL;
	for (r = r0; r < r1; r++) {
		double start = p->aggregate == INGOT_TREE_MIN ? tree_big(p->y_dtype)
		               : p->aggregate == INGOT_TREE_MAX ? -tree_big(p->y_dtype) : 0.0;
		int64_t best = 0;
		int rc;
		for (j = 0; j < p->n_z; j++)   /* a classifier starts from its base values */
			s[j] = p->classifier && p->has_base && j < p->n_cols ? base[j] : start;
		if ((rc = tree_row(p, in, r, s)) != INGOT_OK)
			return rc;
		if (p->aggregate == INGOT_TREE_AVERAGE && !p->avg_each)
			for (j = 0; j < p->n_cols; j++)
				s[j] /= (double)p->n_trees;
		if (!p->classifier && p->has_base)   /* a regressor adds them after aggregating */
			for (j = 0; j < p->n_cols; j++)
				s[j] += base[j];
		if (p->binary) {   /* one score column: class 1 is it, class 0 its complement */
			s[1] = s[0];
			s[0] = p->post == INGOT_TREE_POST_NONE || p->post == INGOT_TREE_POST_PROBIT
			       ? 1.0 - s[1] : -s[1];
		}
		tree_post(p->post, s, p->n_z);
		for (j = 1; j < p->n_z; j++)
			if (s[j] > s[best])
				best = j;
		if (y)
			for (j = 0; j < p->n_z; j++)
				ingot_stf(p->y_dtype, y, r * p->n_z + j, s[j]);
		if (p->labels == INGOT_TREE_LABELS_I64)
			((int64_t *)out[0])[r] = ((const int64_t *)in[8])[best];
		else if (p->labels == INGOT_TREE_LABELS_ONE)
			((int64_t *)out[0])[r] = best == 1;
		else if (p->labels == INGOT_TREE_LABELS_STR)
			memcpy((char *)out[0] + r * INGOT_STRING_CAP,
			       (const char *)in[8] + best * INGOT_STRING_CAP, INGOT_STRING_CAP);
	}
	return INGOT_OK;
}

/* ---- LabelEncoder ---- */

static int le_match(int64_t dt, const void *x, int64_t i, const void *k, int64_t j,
                    int64_t nan_match)
{
	switch (dt) {
	case INGOT_DT_STRING: {
		const char *a = (const char *)x + i * INGOT_STRING_CAP;
		const char *b = (const char *)k + j * INGOT_STRING_CAP;
		size_t n = ingot_str_len(a);
		return n == ingot_str_len(b) && memcmp(a, b, n) == 0;
	}
	case INGOT_DT_F32: case INGOT_DT_F64: {
		double a = ingot_ldf(dt, x, i), b = ingot_ldf(dt, k, j);
		return a == b || (nan_match && a != a && b != b);
	}
	case INGOT_DT_I16: return ((const int16_t *)x)[i] == ((const int16_t *)k)[j];
	case INGOT_DT_I32: return ((const int32_t *)x)[i] == ((const int32_t *)k)[j];
	default: return ((const int64_t *)x)[i] == ((const int64_t *)k)[j];
	}
}

static size_t ml_esize(int64_t dt)
{
	switch (dt) {
	case INGOT_DT_STRING: return INGOT_STRING_CAP;
	case INGOT_DT_F64: case INGOT_DT_I64: return 8;
	case INGOT_DT_I16: return 2;
	default: return 4;
	}
}

INGOT_KERNEL int ingot_label_encoder(const void *params, const void *const *in,
                                     void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_label_encoder_params *p = (const ingot_label_encoder_params *)params;
	size_t vs = ml_esize(p->val_dtype);
	int64_t i, j, i0 = task * p->n / n_tasks, i1 = (task + 1) * p->n / n_tasks;
	(void)scratch;
	if (!in[0] || !in[1] || !in[2] || !in[3] || !out[0])
		return INGOT_EINVAL;
	for (i = i0; i < i1; i++) {
		const unsigned char *v = (const unsigned char *)in[3];
		for (j = 0; j < p->n_keys; j++)
			if (le_match(p->key_dtype, in[0], i, in[1], j, p->nan_match)) {
				v = (const unsigned char *)in[2] + (size_t)j * vs;
				break;
			}
		memcpy((unsigned char *)out[0] + (size_t)i * vs, v, vs);
	}
	return INGOT_OK;
}

/* ---- Binarizer, ArrayFeatureExtractor ---- */

INGOT_KERNEL int ingot_binarizer(const void *params, const void *const *in,
                                 void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_binarizer_params *p = (const ingot_binarizer_params *)params;
	int64_t i, i0 = task * p->n / n_tasks, i1 = (task + 1) * p->n / n_tasks;
	(void)scratch;
	if (!in[0] || !out[0])
		return INGOT_EINVAL;
	for (i = i0; i < i1; i++) {
		int on = ingot_ld_num(p->dtype, in[0], i) > p->threshold;
		if (p->dtype == INGOT_DT_I64)
			((int64_t *)out[0])[i] = on;
		else if (p->dtype == INGOT_DT_I32)
			((int32_t *)out[0])[i] = on;
		else
			ingot_stf(p->dtype, out[0], i, on);
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_array_feature(const void *params, const void *const *in,
                                     void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_array_feature_params *p = (const ingot_array_feature_params *)params;
	const int64_t *idx = (const int64_t *)in[1];
	const unsigned char *x = (const unsigned char *)in[0];
	unsigned char *y = (unsigned char *)out[0];
	size_t es = (size_t)p->esize;
	int64_t o, j;
	(void)scratch;
	(void)n_tasks;
	if (task != 0)
		return INGOT_OK;
	if (!x || !idx || !y)
		return INGOT_EINVAL;
	for (j = 0; j < p->n_idx; j++)
		if (idx[j] < 0 || idx[j] >= p->n_last)
			return INGOT_ERANGE;
	for (o = 0; o < p->outer; o++)
		for (j = 0; j < p->n_idx; j++)
			memcpy(y + (size_t)(o * p->n_idx + j) * es, x + (size_t)(o * p->n_last + idx[j]) * es,
			       es);
	return INGOT_OK;
}

/* ---- Scaler, LinearRegressor ---- */

INGOT_KERNEL int ingot_ml_linear(const void *params, const void *const *in,
                                 void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_ml_linear_params *p = (const ingot_ml_linear_params *)params;
	const float *a = (const float *)in[1], *b = (const float *)in[2];
	float *y = (float *)out[0];
	int64_t r, c, t, r0 = task * p->rows / n_tasks, r1 = (task + 1) * p->rows / n_tasks;
	(void)scratch;
	if (p->kind == INGOT_ML_IMPUTE) {   /* integers compared and kept as integers */
		const double *iv = (const double *)in[1];
		int nan = p->replaced != p->replaced;
		if (!in[0] || !iv || !out[0] || p->n_a < 1)
			return INGOT_EINVAL;
		for (r = r0; r < r1; r++)
			for (c = 0; c < p->cols; c++) {
				int64_t i = r * p->cols + c;
				double put = iv[p->n_a == 1 ? 0 : c];
				if (p->dtype == INGOT_DT_I64) {
					int64_t v = ((const int64_t *)in[0])[i];
					((int64_t *)out[0])[i] = v == (int64_t)p->replaced ? (int64_t)put : v;
				} else if (p->dtype == INGOT_DT_I32) {
					int32_t v = ((const int32_t *)in[0])[i];
					((int32_t *)out[0])[i] = v == (int32_t)p->replaced ? (int32_t)put : v;
				} else {
					double v = ingot_ld_num(p->dtype, in[0], i);
					ingot_stf(p->dtype, out[0], i, (nan ? v != v : v == p->replaced) ? put : v);
				}
			}
		return INGOT_OK;
	}
	if (p->kind >= INGOT_ML_NORM_MAX) {
		if (!in[0] || !y)
			return INGOT_EINVAL;
		for (r = r0; r < r1; r++) {
			double z = 0;
			for (c = 0; c < p->cols; c++) {
				double v = fabs(ingot_ld_num(p->dtype, in[0], r * p->cols + c));
				z = p->kind == INGOT_ML_NORM_MAX ? (v > z ? v : z) :
				    p->kind == INGOT_ML_NORM_L1 ? z + v : z + v * v;
			}
			if (p->kind == INGOT_ML_NORM_L2)
				z = sqrt(z);
			if (z < 1e-30)
				z = 1e-30;
			for (c = 0; c < p->cols; c++)
				y[r * p->cols + c] = (float)(ingot_ld_num(p->dtype, in[0], r * p->cols + c) / z);
		}
		return INGOT_OK;
	}
	if (!in[0] || !a || !y || (p->n_b && !b) || p->n_a < 1)
		return INGOT_EINVAL;
	for (r = r0; r < r1; r++) {
		if (p->kind == INGOT_ML_SCALER) {
			for (c = 0; c < p->cols; c++) {
				float x = (float)ingot_ld_num(p->dtype, in[0], r * p->cols + c);
				float off = a[p->n_a == 1 ? 0 : c], sc = b[p->n_b == 1 ? 0 : c];
				y[r * p->cols + c] = (x - off) * sc;
			}
			continue;
		}
		for (t = 0; t < p->targets; t++) {
			double acc = p->n_b ? (double)b[t] : 0.0;
			for (c = 0; c < p->cols; c++)
				acc += ingot_ld_num(p->dtype, in[0], r * p->cols + c) *
				       (double)a[t * p->cols + c];
			y[r * p->targets + t] = (float)acc;
		}
	}
	return INGOT_OK;
}
