/* ml.c — op groups of the small ai.onnx.ml ops, lowered to runtime-stubs/kernels/ml.c:
 * label_encoder (LabelEncoder, opsets 1, 2 and 4), binarizer (Binarizer) and
 * array_feature_extractor (ArrayFeatureExtractor). The tree ensembles are ml_tree.c.
 *
 * LabelEncoder's keys, values and default become constant inputs 1-3 at import (the
 * struct stays numeric). Opset 1 maps strings to their index in classes_strings or
 * back, which way depending on X's dtype, so its import appends both directions'
 * data (classes, their indices, default_int64, default_string) and inference, which
 * knows the dtype, keeps that direction's three; opsets 2 and 4 append keys, values
 * and the default of the values' type.
 */
#include "opimpl.h"

#include <stdio.h>
#include <string.h>

#include "ml.h"

/* ---- label_encoder: LabelEncoder ---- */

typedef struct LabelEncAttrs {
	int64_t n_keys;
	int64_t legacy;      /* opset 1 before inference: inputs 1-4 are classes, indices,
	                        default_int64, default_string */
	int64_t nan_match;   /* opset 4: a NaN key matches NaN */
} LabelEncAttrs;

static const AttrField label_enc_fields[] = {
	{ "n_keys", AK_INT, offsetof(LabelEncAttrs, n_keys), NULL },
	{ "legacy", AK_INT, offsetof(LabelEncAttrs, legacy), NULL },
	{ "nan_match", AK_INT, offsetof(LabelEncAttrs, nan_match), NULL },
};

/* A string attribute as one slot (def when absent). */
static char *str_attr(ImportCtx *c, const char *name, const char *def)
{
	const RawAttr *a = import_find(c, name);
	if (a && a->kind != RA_STRING) {
		import_fail(c, name, "expected a string");
		return NULL;
	}
	const char *s = a ? a->s : def;
	return ops_str_slots(c, name, &s, 1);
}

/* One of keys_/values_ {strings, int64s, floats, tensor}: its dtype, count and data. */
static int le_list(ImportCtx *c, const char *pre, DType *dt, int64_t *n, void **data)
{
	static const char *const kinds[] = { "strings", "int64s", "floats", "tensor" };
	const RawAttr *found = NULL;
	char name[32];
	int which = -1;
	for (int k = 0; k < 4; k++) {
		snprintf(name, sizeof name, "%s_%s", pre, kinds[k]);
		const RawAttr *a = import_find(c, name);
		if (!a)
			continue;
		if (found)
			return import_fail(c, a->name, "%s is given as well: give one of them", found->name);
		found = a;
		which = k;
	}
	if (!found)
		return import_fail(c, NULL, "LabelEncoder needs one of %s_strings, %s_int64s, %s_floats "
		                   "and %s_tensor", pre, pre, pre, pre);
	switch (which) {
	case 0:
		if (found->kind != RA_STRINGS)
			return import_fail(c, found->name, "expected strings");
		*dt = DT_STRING;
		*n = found->n;
		*data = ops_str_slots(c, found->name, found->strings, found->n);
		return *data ? 0 : -1;
	case 1:
		if (found->kind != RA_INTS)
			return import_fail(c, found->name, "expected ints");
		*dt = DT_I64;
		*n = found->n;
		*data = (void *)found->ints;
		return 0;
	case 2:
		if (found->kind != RA_FLOATS)
			return import_fail(c, found->name, "expected floats");
		*dt = DT_F32;
		*n = found->n;
		*data = (void *)found->floats;
		return 0;
	default: {
		if (found->kind != RA_TENSOR)
			return import_fail(c, found->name, "expected a tensor");
		const Value *v = &c->g->values[found->tensor];
		static const DType ok[] = { DT_STRING, DT_I64, DT_I32, DT_I16, DT_F32, DT_F64 };
		*dt = v->type.dtype;
		*n = type_numel(&v->type);
		*data = (void *)ir_const_data(c->g, found->tensor);
		for (size_t k = 0; k < COUNTOF(ok); k++)
			if (ok[k] == *dt)
				return 0;
		return import_fail(c, found->name, "unsupported tensor type %s (string, int16, int32, "
		                   "int64, float or double)", dtype_name(*dt));
	}
	}
}

/* The default of value type dt: default_tensor (opset 4) or default_string/int64/float. */
static int le_default(ImportCtx *c, DType dt, unsigned char *out)
{
	const RawAttr *t = import_find(c, "default_tensor");
	if (t) {
		if (t->kind != RA_TENSOR || c->g->values[t->tensor].type.dtype != dt ||
		    type_numel(&c->g->values[t->tensor].type) != 1)
			return import_fail(c, "default_tensor", "expected one value of the values' type %s",
			                   dtype_name(dt));
		memcpy(out, ir_const_data(c->g, t->tensor), dtype_size(dt));
		return 0;
	}
	if (dt == DT_STRING) {
		char *s = str_attr(c, "default_string", "_Unused");
		if (!s)
			return -1;
		memcpy(out, s, INGOT_STRING_CAP);
		return 0;
	}
	if (dt == DT_F32 || dt == DT_F64) {
		float f;
		if (import_float(c, "default_float", -0.0f, &f))
			return -1;
		if (dt == DT_F32)
			memcpy(out, &f, sizeof f);
		else {
			double d = f;
			memcpy(out, &d, sizeof d);
		}
		return 0;
	}
	int64_t v;
	if (import_int(c, "default_int64", -1, &v))
		return -1;
	if (dt == DT_I64)
		memcpy(out, &v, 8);
	else if (dt == DT_I32) {
		int32_t w = (int32_t)v;
		memcpy(out, &w, 4);
	} else {
		int16_t w = (int16_t)v;
		memcpy(out, &w, 2);
	}
	return 0;
}

static int label_enc_import(ImportCtx *c)
{
	LabelEncAttrs *a = c->attrs;
	Node *nd = &c->g->nodes[c->node];
	if (nd->n_in != 1)
		return import_fail(c, NULL, "LabelEncoder takes 1 input, got %d", nd->n_in);
	if (nd->opset < 2) {
		const RawAttr *cl = import_find(c, "classes_strings");
		int64_t def;
		if (!cl || cl->kind != RA_STRINGS)
			return import_fail(c, "classes_strings", "expected strings (required at opset 1)");
		char *slots = ops_str_slots(c, "classes_strings", cl->strings, cl->n);
		char *dstr = str_attr(c, "default_string", "_Unused");
		if (!slots || !dstr || import_int(c, "default_int64", -1, &def))
			return -1;
		int64_t *idx = arena_array(&c->g->arena, (size_t)(cl->n ? cl->n : 1), sizeof *idx);
		for (int i = 0; i < cl->n; i++)
			idx[i] = i;
		a->n_keys = cl->n;
		a->legacy = 1;
		ops_append_const_input(c, "classes", DT_STRING, cl->n ? cl->n : 1, slots);
		ops_append_const_input(c, "indices", DT_I64, cl->n ? cl->n : 1, idx);
		ops_append_const_input(c, "default_int64", DT_I64, 1, &def);
		ops_append_const_input(c, "default_string", DT_STRING, 1, dstr);
		return 0;
	}
	DType kt, vt;
	int64_t nk, nv;
	void *kd, *vd;
	unsigned char def[INGOT_STRING_CAP];
	if (le_list(c, "keys", &kt, &nk, &kd) || le_list(c, "values", &vt, &nv, &vd))
		return -1;
	if (nk != nv)
		return import_fail(c, NULL, "%lld keys but %lld values", (long long)nk, (long long)nv);
	memset(def, 0, sizeof def);
	if (le_default(c, vt, def))
		return -1;
	a->n_keys = nk;
	a->nan_match = nd->opset >= 4;
	if (nk == 0) {   /* every element gets the default: one unused key keeps tensors non-empty */
		kd = arena_array(&c->g->arena, 1, dtype_size(kt));
		vd = arena_array(&c->g->arena, 1, dtype_size(vt));
	}
	ops_append_const_input(c, "keys", kt, nk ? nk : 1, kd);
	ops_append_const_input(c, "values", vt, nk ? nk : 1, vd);
	ops_append_const_input(c, "default", vt, 1, def);
	return 0;
}

static int label_enc_infer(InferCtx *c)
{
	Node *n = infer_node(c);
	LabelEncAttrs *a = n->attrs;
	const Type *x = infer_in(c, 0);
	if (a->legacy) {
		/* opset 1: X's dtype says the direction; keep that direction's keys, values and
		 * default as inputs 1-3, the form of the later opsets */
		bool from_str = x->dtype == DT_STRING;
		if (!from_str && x->dtype != DT_I64)
			return infer_fail(c, 0, "expected string or int64 (LabelEncoder 1), got %s",
			                  dtype_name(x->dtype));
		ValueId in[4] = { n->in[0], n->in[from_str ? 1 : 2], n->in[from_str ? 2 : 1],
		                  n->in[from_str ? 3 : 4] };
		memcpy(n->in, in, sizeof in);
		n->n_in = 4;
		a->legacy = 0;
	}
	if (x->dtype != infer_in(c, 1)->dtype)
		return infer_fail(c, 0, "expected the keys' type %s, got %s",
		                  dtype_name(infer_in(c, 1)->dtype), dtype_name(x->dtype));
	return ops_set_out(c, 0, infer_in(c, 2)->dtype, x->rank, x->dims);
}

#define PARAM_STRUCT ingot_label_encoder_params
static const ParamField label_enc_pfields[] = { INGOT_LABEL_ENCODER_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc label_enc_desc = PARAM_DESC(ingot_label_encoder_params, label_enc_pfields);

static int label_enc_lower(LowerCtx *c)
{
	const LabelEncAttrs *a = c->g->nodes[c->node].attrs;
	ingot_label_encoder_params *p = lower_params(c, &label_enc_desc);
	p->key_dtype = lower_in(c, 0)->dtype;
	p->val_dtype = lower_in(c, 2)->dtype;
	p->n = type_numel(lower_in(c, 0));
	p->n_keys = a->n_keys;
	p->nan_match = a->nan_match;
	LOWER_CALL(c, ingot_label_encoder, &label_enc_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_label_encoder = { sizeof(LabelEncAttrs), label_enc_fields,
                                       COUNTOF(label_enc_fields), label_enc_import,
                                       label_enc_infer, label_enc_lower };

/* ---- binarizer: Binarizer ---- */

typedef struct BinarizerAttrs {
	float threshold;     /* default 0 */
} BinarizerAttrs;

static const AttrField binarizer_fields[] = {
	{ "threshold", AK_FLOAT, offsetof(BinarizerAttrs, threshold), NULL },
};

static int binarizer_import(ImportCtx *c)
{
	BinarizerAttrs *a = c->attrs;
	return import_float(c, "threshold", 0.0f, &a->threshold);
}

static const DType ml_num[] = { DT_F32, DT_F64, DT_I64, DT_I32, DT_UNDEF };

static int binarizer_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0);
	if (infer_check_dtype(c, 0, ml_num))
		return -1;
	return ops_set_out(c, 0, x->dtype, x->rank, x->dims);
}

#define PARAM_STRUCT ingot_binarizer_params
static const ParamField binarizer_pfields[] = { INGOT_BINARIZER_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc binarizer_desc = PARAM_DESC(ingot_binarizer_params, binarizer_pfields);

static int binarizer_lower(LowerCtx *c)
{
	const BinarizerAttrs *a = c->g->nodes[c->node].attrs;
	ingot_binarizer_params *p = lower_params(c, &binarizer_desc);
	p->dtype = lower_in(c, 0)->dtype;
	p->n = type_numel(lower_in(c, 0));
	p->threshold = a->threshold;
	LOWER_CALL(c, ingot_binarizer, &binarizer_desc, p);
	c->kc.split = true;   /* tasks own disjoint outputs */
	return 0;
}

const OpImpl op_impl_binarizer = { sizeof(BinarizerAttrs), binarizer_fields,
                                   COUNTOF(binarizer_fields), binarizer_import, binarizer_infer,
                                   binarizer_lower };

/* ---- array_feature_extractor: ArrayFeatureExtractor ---- */

static const DType afe_types[] = { DT_F32, DT_F64, DT_I64, DT_I32, DT_STRING, DT_UNDEF };
static const DType i64_only[] = { DT_I64, DT_UNDEF };

static int afe_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0), *y = infer_in(c, 1);
	if (infer_check_dtype(c, 0, afe_types) || infer_check_dtype(c, 1, i64_only))
		return -1;
	if (x->rank < 1)
		return infer_fail(c, 0, "expected at least rank 1, got a scalar");
	/* ONNX Runtime's rule, which the reference follows: 1-D data gives one row */
	int64_t dims[IR_MAX_RANK];
	int rank = x->rank == 1 ? 2 : x->rank;
	dims[0] = 1;
	for (int d = 0; d < x->rank - 1; d++)
		dims[d] = x->dims[d];
	dims[rank - 1] = type_numel(y);
	return ops_set_out(c, 0, x->dtype, rank, dims);
}

#define PARAM_STRUCT ingot_array_feature_params
static const ParamField afe_pfields[] = { INGOT_ARRAY_FEATURE_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc afe_desc = PARAM_DESC(ingot_array_feature_params, afe_pfields);

static int afe_lower(LowerCtx *c)
{
	const Type *x = lower_in(c, 0);
	ingot_array_feature_params *p = lower_params(c, &afe_desc);
	p->esize = (int64_t)dtype_size(x->dtype);
	p->n_last = x->dims[x->rank - 1];
	p->outer = type_numel(x) / (p->n_last ? p->n_last : 1);
	p->n_idx = type_numel(lower_in(c, 1));
	if (p->n_last == 0)
		p->outer = 0;
	LOWER_CALL(c, ingot_array_feature, &afe_desc, p);
	return 0;
}

const OpImpl op_impl_array_feature_extractor = { 0, NULL, 0, NULL, afe_infer, afe_lower };

/* ---- ml_linear: Scaler, LinearRegressor, Normalizer and Imputer (ai.onnx.ml 1). The
 * lists become constant inputs 1-2 at import: Scaler's offset and scale (absent: 0 and
 * 1), LinearRegressor's coefficients and intercepts (absent: one unused 0, n_b = 0);
 * Imputer's imputed values (f64); Normalizer has none ---- */

typedef struct MlLinearAttrs {
	int64_t n_a, n_b;     /* elements of inputs 1 and 2 (n_b = 0: no intercepts) */
	int64_t targets;      /* LinearRegressor: outputs per row */
	int norm;             /* Normalizer: 0 MAX, 1 L1, 2 L2 */
	int64_t int_values;   /* Imputer: 1 when given int64s (an integer X), 0 floats */
	int64_t replaced_i;   /* Imputer: the value replaced, int64s given */
	float replaced_f;     /* Imputer: the value replaced, floats given (NaN: NaNs) */
} MlLinearAttrs;

static const char *const ml_norm_names[] = { "MAX", "L1", "L2", NULL };

static const AttrField ml_linear_fields[] = {
	{ "n_a", AK_INT, offsetof(MlLinearAttrs, n_a), NULL },
	{ "n_b", AK_INT, offsetof(MlLinearAttrs, n_b), NULL },
	{ "targets", AK_INT, offsetof(MlLinearAttrs, targets), NULL },
	{ "norm", AK_ENUM, offsetof(MlLinearAttrs, norm), ml_norm_names, .has_default = true,
	  .def = 0 },
	{ "int_values", AK_INT, offsetof(MlLinearAttrs, int_values), NULL, .has_default = true,
	  .def = 0 },
	{ "replaced_i", AK_INT, offsetof(MlLinearAttrs, replaced_i), NULL, .has_default = true,
	  .def = 0 },
	{ "replaced_f", AK_FLOAT, offsetof(MlLinearAttrs, replaced_f), NULL },
};

/* A float-list attribute appended as an f32 input; absent: one element def (*n = 0
 * when def_absent is 0 and the list is absent or empty). */
static int ml_float_input(ImportCtx *c, const char *name, float def, int def_absent, int64_t *n)
{
	const RawAttr *a = import_find(c, name);
	if (a && a->kind != RA_FLOATS && a->kind != RA_FLOAT)
		return import_fail(c, name, "expected floats");
	const float *v = a ? (a->kind == RA_FLOAT ? &a->f : a->floats) : &def;
	int64_t k = a ? (a->kind == RA_FLOAT ? 1 : a->n) : 1;
	*n = (a && k > 0) || def_absent ? k : 0;
	if (k == 0)
		v = &def, k = 1;
	ops_append_const_input(c, name, DT_F32, k, (void *)v);
	return 0;
}

/* Imputer: imputed_value_floats or _int64s as an f64 input 1, replaced_value_float or
 * _int64 as `replaced`. */
static int imputer_import(ImportCtx *c, MlLinearAttrs *a)
{
	const RawAttr *fl = import_find(c, "imputed_value_floats");
	const RawAttr *il = import_find(c, "imputed_value_int64s");
	if (!fl == !il)
		return import_fail(c, NULL, "Imputer needs one of imputed_value_floats and "
		                   "imputed_value_int64s");
	const RawAttr *v = fl ? fl : il;
	if ((fl && v->kind != RA_FLOATS && v->kind != RA_FLOAT) ||
	    (il && v->kind != RA_INTS && v->kind != RA_INT) ||
	    ((v->kind == RA_FLOATS || v->kind == RA_INTS) && v->n < 1))
		return import_fail(c, v->name, "expected a non-empty list");
	int64_t n = v->kind == RA_FLOATS || v->kind == RA_INTS ? v->n : 1;
	double *d = arena_array(&c->g->arena, (size_t)n, sizeof *d);
	for (int64_t i = 0; i < n; i++)
		d[i] = v->kind == RA_FLOATS ? v->floats[i] : v->kind == RA_FLOAT ? v->f :
		       v->kind == RA_INTS ? (double)v->ints[i] : (double)v->i;
	a->n_a = n;
	a->int_values = il != NULL;
	if (import_int(c, "replaced_value_int64", 0, &a->replaced_i) ||
	    import_float(c, "replaced_value_float", 0.0f, &a->replaced_f))
		return -1;
	ops_append_const_input(c, v->name, DT_F64, n, d);
	return 0;
}

static int ml_linear_import(ImportCtx *c)
{
	MlLinearAttrs *a = c->attrs;
	const Node *nd = &c->g->nodes[c->node];
	if (nd->n_in != 1)
		return import_fail(c, NULL, "%s takes 1 input, got %d", ir_op_name(nd->op), nd->n_in);
	if (nd->op == OP_IMPUTER)
		return imputer_import(c, a);
	if (nd->op == OP_NORMALIZER) {
		const RawAttr *nm = import_find(c, "norm");
		if (!nm)
			return import_fail(c, "norm", "required (MAX, L1 or L2)");
		return import_enum(c, "norm", ml_norm_names, 0, &a->norm);
	}
	if (nd->op == OP_SCALER) {
		a->targets = 0;
		return ml_float_input(c, "offset", 0.0f, 1, &a->n_a) ||
		       ml_float_input(c, "scale", 1.0f, 1, &a->n_b);
	}
	const RawAttr *pt = import_find(c, "post_transform");
	if (pt && (pt->kind != RA_STRING || strcmp(pt->s, "NONE") != 0))
		return import_fail(c, "post_transform", "only NONE is supported, got '%s'",
		                   pt->kind == RA_STRING ? pt->s : "?");
	if (!import_find(c, "coefficients"))
		return import_fail(c, "coefficients", "required");
	if (import_int(c, "targets", 1, &a->targets))
		return -1;
	if (a->targets < 1)
		return import_fail(c, "targets", "expected at least 1, got %lld", (long long)a->targets);
	return ml_float_input(c, "coefficients", 0.0f, 1, &a->n_a) ||
	       ml_float_input(c, "intercepts", 0.0f, 0, &a->n_b);
}

static int ml_linear_infer(InferCtx *c)
{
	const Node *nd = infer_node(c);
	const MlLinearAttrs *a = nd->attrs;
	const Type *x = infer_in(c, 0);
	if (infer_check_dtype(c, 0, ml_num))
		return -1;
	int64_t cols = x->rank ? x->dims[x->rank - 1] : 1;
	if (nd->op == OP_IMPUTER) {
		bool int_x = x->dtype == DT_I64 || x->dtype == DT_I32;
		if (int_x != (a->int_values != 0))
			return infer_fail(c, 0, "%s input with imputed_value_%s: expected %s", dtype_name(x->dtype),
			                  a->int_values ? "int64s" : "floats",
			                  a->int_values ? "i64 or i32" : "f32 or f64");
		if (a->n_a != 1 && a->n_a != cols)
			return infer_fail(c, 0, "%lld imputed values: expected 1 or the %lld features",
			                  (long long)a->n_a, (long long)cols);
		return ops_set_out(c, 0, x->dtype, x->rank, x->dims);
	}
	if (nd->op == OP_NORMALIZER) {
		if (x->rank < 1 || x->rank > 2)
			return infer_fail(c, 0, "expected [N, C] or [C], got rank %d", x->rank);
		return ops_set_out(c, 0, DT_F32, x->rank, x->dims);
	}
	if (nd->op == OP_SCALER) {
		if ((a->n_a != 1 && a->n_a != cols) || (a->n_b != 1 && a->n_b != cols))
			return infer_fail(c, 0, "offset has %lld and scale %lld values: expected 1 or the "
			                  "%lld features each", (long long)a->n_a, (long long)a->n_b,
			                  (long long)cols);
		return ops_set_out(c, 0, DT_F32, x->rank, x->dims);
	}
	if (x->rank < 1 || x->rank > 2)
		return infer_fail(c, 0, "expected [N, C] or [C], got rank %d", x->rank);
	if (a->n_a != a->targets * cols || (a->n_b && a->n_b != a->targets))
		return infer_fail(c, 0, "%lld coefficients and %lld intercepts do not fit %lld targets "
		                  "of %lld features", (long long)a->n_a, (long long)a->n_b,
		                  (long long)a->targets, (long long)cols);
	int64_t dims[2] = { x->rank == 2 ? x->dims[0] : 1, a->targets };
	return ops_set_out(c, 0, DT_F32, 2, dims);
}

#define PARAM_STRUCT ingot_ml_linear_params
static const ParamField ml_linear_pfields[] = { INGOT_ML_LINEAR_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc ml_linear_desc = PARAM_DESC(ingot_ml_linear_params, ml_linear_pfields);

static int ml_linear_lower(LowerCtx *c)
{
	const Node *nd = &c->g->nodes[c->node];
	const MlLinearAttrs *a = nd->attrs;
	const Type *x = lower_in(c, 0);
	ingot_ml_linear_params *p = lower_params(c, &ml_linear_desc);
	p->kind = nd->op == OP_SCALER ? INGOT_ML_SCALER : nd->op == OP_LINEAR_REGRESSOR ?
	          INGOT_ML_LINREG : nd->op == OP_IMPUTER ? INGOT_ML_IMPUTE : INGOT_ML_NORM_MAX + a->norm;
	p->replaced = a->int_values ? (double)a->replaced_i : (double)a->replaced_f;
	p->dtype = x->dtype;
	p->cols = x->rank ? x->dims[x->rank - 1] : 1;
	p->rows = p->cols ? type_numel(x) / p->cols : 0;
	p->n_a = a->n_a;
	p->n_b = a->n_b;
	p->targets = a->targets;
	LOWER_CALL(c, ingot_ml_linear, &ml_linear_desc, p);
	c->kc.split = true;   /* tasks own disjoint rows */
	return 0;
}

const OpImpl op_impl_ml_linear = { sizeof(MlLinearAttrs), ml_linear_fields,
                                   COUNTOF(ml_linear_fields), ml_linear_import, ml_linear_infer,
                                   ml_linear_lower };
