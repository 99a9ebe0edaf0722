/* ml.h — reference kernels of the ai.onnx.ml ops: the tree ensembles
 * (TreeEnsembleClassifier, TreeEnsembleRegressor, TreeEnsemble), LabelEncoder,
 * Binarizer and ArrayFeatureExtractor. The frontend normalizes every tree format
 * into one node table (compiler/ops/ml_tree.c), so one kernel walks them all. */
#ifndef INGOT_KERNELS_ML_H
#define INGOT_KERNELS_ML_H

#include "ingot_rt.h"

/* Node modes of the tree table (column 1). */
enum {
	INGOT_TREE_LEQ, INGOT_TREE_LT, INGOT_TREE_GTE, INGOT_TREE_GT, INGOT_TREE_EQ,
	INGOT_TREE_NEQ, INGOT_TREE_MEMBER, INGOT_TREE_LEAF
};
/* Columns of a tree-table row (int64): the feature, the mode, the row of the true and
 * of the false child, missing_value_tracks_true, and a range [a, a + b): a leaf's
 * weights, a BRANCH_MEMBER node's set members. */
#define INGOT_TREE_COLS 7
/* aggregate (the spec's order): AVERAGE, SUM, MIN, MAX; post: NONE, SOFTMAX, LOGISTIC,
 * SOFTMAX_ZERO, PROBIT. */
enum { INGOT_TREE_AVERAGE, INGOT_TREE_SUM, INGOT_TREE_MIN, INGOT_TREE_MAX };
enum { INGOT_TREE_POST_NONE, INGOT_TREE_POST_SOFTMAX, INGOT_TREE_POST_LOGISTIC,
       INGOT_TREE_POST_SOFTMAX_ZERO, INGOT_TREE_POST_PROBIT };
/* labels: 0 none (a regressor), 1 int64 classlabels, 2 string classlabels, 3 the one
 * int64 label 1 (a binary model: labels 0 or 1) */
enum { INGOT_TREE_LABELS_NONE, INGOT_TREE_LABELS_I64, INGOT_TREE_LABELS_STR,
       INGOT_TREE_LABELS_ONE };

/* in[0] X [n_rows, n_feat] (x_dtype: f16, f32, f64, i32 or i64; integers go through
 * float as the reference casts them), in[1] the table [n_nodes, INGOT_TREE_COLS],
 * in[2] thresholds (f64, one per row), in[3] the trees' root rows [n_trees], in[4]
 * leaf target (class) ids and in[5] leaf weights (f64), in[6] base values (f64,
 * n_cols, read when has_base), in[7] set members (f64), in[8] the class labels
 * (classifier). A regressor writes out[0] [n_rows, n_cols] of y_dtype; a classifier
 * writes out[0] its labels [n_rows] and, when has_z (the node has the output), out[1]
 * the scores [n_rows, n_z] of y_dtype. Every comparison and sum is double's. NaN features: missing_value_tracks_
 * true decides; when it is 0, legacy_nan (opsets 1 and 3) takes the false branch, else
 * (opset 5) the comparison decides. The scratch holds n_z doubles. A walk longer than
 * n_nodes (a cycle) gives INGOT_EINVAL. Tasks split the rows. */
#define INGOT_TREE_ENSEMBLE_FIELDS(F) F(I64, x_dtype) F(I64, y_dtype) F(I64, n_rows) \
	F(I64, n_feat) F(I64, n_nodes) F(I64, n_trees) F(I64, n_cols) F(I64, n_z) \
	F(I64, aggregate) F(I64, post) F(I64, has_base) F(I64, legacy_nan) F(I64, avg_each) \
	F(I64, classifier) F(I64, binary) F(I64, labels) F(I64, has_z)
INGOT_PARAMS(ingot_tree_ensemble_params, INGOT_TREE_ENSEMBLE_FIELDS)
INGOT_KERNEL int ingot_tree_ensemble(const void *params, const void *const *in,
                                     void *const *out, void *scratch, int task, int n_tasks);

/* in[0] X [n] (key_dtype: string, f32, f64, i16, i32 or i64), in[1] keys [n_keys] of
 * key_dtype, in[2] values [n_keys] of val_dtype, in[3] the default [1]; out[0] [n]:
 * the value of the first key equal to x, else the default. A NaN key matches a NaN
 * only when nan_match is set (opset 4; before, a NaN matches nothing). */
#define INGOT_LABEL_ENCODER_FIELDS(F) F(I64, key_dtype) F(I64, val_dtype) F(I64, n) \
	F(I64, n_keys) F(I64, nan_match)
INGOT_PARAMS(ingot_label_encoder_params, INGOT_LABEL_ENCODER_FIELDS)
INGOT_KERNEL int ingot_label_encoder(const void *params, const void *const *in,
                                     void *const *out, void *scratch, int task, int n_tasks);

/* out[0] = in[0] > threshold ? 1 : 0 in X's dtype (f32, f64, i32, i64), n elements;
 * the comparison is double's, so NaN gives 0. */
#define INGOT_BINARIZER_FIELDS(F) F(I64, dtype) F(I64, n) F(F64, threshold)
INGOT_PARAMS(ingot_binarizer_params, INGOT_BINARIZER_FIELDS)
INGOT_KERNEL int ingot_binarizer(const void *params, const void *const *in,
                                 void *const *out, void *scratch, int task, int n_tasks);

/* out[0][o, j] = in[0][o, idx[j]] over outer rows of n_last elements of esize bytes,
 * in[1] idx: n_idx int64s; an index outside [0, n_last) gives INGOT_ERANGE. */
#define INGOT_ARRAY_FEATURE_FIELDS(F) F(I64, esize) F(I64, outer) F(I64, n_last) \
	F(I64, n_idx)
INGOT_PARAMS(ingot_array_feature_params, INGOT_ARRAY_FEATURE_FIELDS)
INGOT_KERNEL int ingot_array_feature(const void *params, const void *const *in,
                                     void *const *out, void *scratch, int task, int n_tasks);

/* Scaler, LinearRegressor and Normalizer (kind INGOT_ML_SCALER / _LINREG / _NORM_MAX,
 * _NORM_L1, _NORM_L2) over rows of cols elements of X (dtype f32, f64, i32 or i64);
 * out[0] is f32. Normalizer (the spec's reference): y = x / max(z, 1e-30), z the row's
 * largest |x|, sum of |x| or Euclidean norm, in double. Scaler: y[r, c] =
 * (x - in[1][c]) * in[2][c] in float, in[1] / in[2] (f32) of n_a / n_b elements, 1 or
 * cols (one element broadcasts). LinearRegressor: y[r, t] = sum_c x[r, c] *
 * in[1][t * cols + c] + in[2][t] (n_b = 0: no intercepts), targets outputs a row,
 * accumulated in double. Imputer (INGOT_ML_IMPUTE): y = x, but in[1][c] (f64, n_a
 * elements, 1 or cols) where x equals `replaced` (NaN: where x is NaN), in X's dtype. */
enum { INGOT_ML_SCALER = 0, INGOT_ML_LINREG = 1, INGOT_ML_NORM_MAX = 2, INGOT_ML_NORM_L1 = 3,
       INGOT_ML_NORM_L2 = 4, INGOT_ML_IMPUTE = 5 };
#define INGOT_ML_LINEAR_FIELDS(F) F(I64, kind) F(I64, dtype) F(I64, rows) F(I64, cols) \
	F(I64, n_a) F(I64, n_b) F(I64, targets) F(F64, replaced)
INGOT_PARAMS(ingot_ml_linear_params, INGOT_ML_LINEAR_FIELDS)
INGOT_KERNEL int ingot_ml_linear(const void *params, const void *const *in,
                                 void *const *out, void *scratch, int task, int n_tasks);

#endif
