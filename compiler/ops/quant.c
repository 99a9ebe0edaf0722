/* quant.c — op groups quantize (QuantizeLinear), dequantize (DequantizeLinear) and
 * dynamic_quantize (DynamicQuantizeLinear): attributes per opset (axis 13, saturate
 * 19, block_size and output_dtype 21, precision 23), inference of the quantized
 * type and of how scale / zero point map onto x (per tensor, per axis, blocked),
 * lowering to runtime-stubs/kernels/quant.c. The integer products (QLinearConv,
 * QLinearMatMul, MatMulInteger, ConvInteger) live in qlinear.c.
 *
 * The quantized type may be an 8- or 16-bit integer, int4/uint4, int2/uint2 (opset
 * 25), an 8-bit float or float4e2m1; the scale may be float8e8m0 (opset 24, the MX
 * formats' power-of-two scale). `saturate` only concerns the 8-bit floats. */
#include "opimpl.h"
#include "op_attrs.h"

#include <string.h>

#include "quant.h"


static const AttrField quant_fields[] = {
	{ "axis", AK_INT, offsetof(QuantAttrs, axis), NULL },
	{ "saturate", AK_INT, offsetof(QuantAttrs, saturate), NULL, .has_default = true, .def = 1 },
	{ "block_size", AK_INT, offsetof(QuantAttrs, block_size), NULL, .has_default = true, .def = 0 },
	{ "output_dtype", AK_INT, offsetof(QuantAttrs, output_dtype), NULL, .has_default = true, .def = 0 },
	{ "precision", AK_INT, offsetof(QuantAttrs, precision), NULL, .has_default = true, .def = 0 },
};

static int unsupported(InferCtx *c, const char *fmt, const char *what)
{
	DiagLoc l = ir_node_loc(c->g, c->node);
	diag_report(c->diags, DIAG_ERROR, DC_UNSUPPORTED, &l, fmt, what);
	return -1;
}

static int quant_import(ImportCtx *c)
{
	QuantAttrs *a = c->attrs;
	int opset = ir_node(c->g, c->node)->opset;
	bool q = ir_node(c->g, c->node)->op == OP_QUANTIZE_LINEAR;
	if (import_int(c, "axis", 1, &a->axis) || import_int(c, "saturate", 1, &a->saturate) ||
	    import_int(c, "block_size", 0, &a->block_size) ||
	    import_int(c, "output_dtype", 0, &a->output_dtype) ||
	    import_int(c, "precision", 0, &a->precision))
		return -1;
	if (opset < 13)
		a->axis = 1;                 /* per-tensor only; the value is unused */
	if (opset < 21)
		a->block_size = 0;
	if (opset < 21 || (!q && opset < 23))
		a->output_dtype = 0;
	if (!q || opset < 23)
		a->precision = 0;
	if (a->block_size < 0)
		return import_fail(c, "block_size", "expected a value >= 0, got %lld",
		                   (long long)a->block_size);
	if (a->output_dtype != 0 && !dtype_is_valid((int)a->output_dtype))
		return import_fail(c, "output_dtype", "unknown element type %lld",
		                   (long long)a->output_dtype);
	if (a->precision != 0 && !dtype_is_valid((int)a->precision))
		return import_fail(c, "precision", "unknown element type %lld", (long long)a->precision);
	return 0;
}

/* How scale (slot 1) and zero point (slot 2) map onto x: fills mode and the
 * (outer, axis_len, inner) view of x the kernel indexes with. */
typedef struct QLayout {
	int64_t mode, outer, axis_len, inner, block, s_axis_len;
} QLayout;

static int quant_layout(InferCtx *c, QLayout *ly)
{
	const QuantAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0), *s = infer_in(c, 1), *z = infer_in(c, 2);
	int opset = infer_node(c)->opset;
	int64_t axis = 0;
	memset(ly, 0, sizeof *ly);
	ly->mode = INGOT_Q_TENSOR;
	ly->outer = ly->axis_len = ly->block = ly->s_axis_len = 1;
	ly->inner = type_numel(x);
	/* a one-value scale and zero point may differ in rank ([] and [1]) */
	bool one = a->block_size == 0 && s->rank <= 1 && type_numel(s) == 1 && z &&
	           z->rank <= 1 && type_numel(z) == 1;
	if (z && !one && !type_same_shape(s, z)) {
		char b1[96], b2[96];
		return infer_fail(c, 2, "expected the shape of the scale %s, got %s",
		                  type_format(s, b1, sizeof b1), type_format(z, b2, sizeof b2));
	}
	if (a->block_size == 0 && s->rank <= 1 && type_numel(s) == 1)
		return 0;
	if (opset < 13)
		return infer_fail(c, 1, "expected a scalar scale (per-axis scales need opset 13), got "
		                  "rank %d", s->rank);
	if (x->rank == 0)
		return infer_fail(c, 1, "expected a scalar scale for a scalar input, got rank %d",
		                  s->rank);
	if (infer_normalize_axis(c, a->axis, x->rank, &axis))
		return -1;
	ly->outer = 1;
	for (int i = 0; i < axis; i++)
		ly->outer *= x->dims[i];
	ly->axis_len = x->dims[axis];
	ly->inner = 1;
	for (int i = (int)axis + 1; i < x->rank; i++)
		ly->inner *= x->dims[i];
	if (a->block_size == 0) {
		if (s->rank != 1 || s->dims[0] != x->dims[axis])
			return infer_fail(c, 1, "expected a scalar or a 1-D scale of %lld values (dim %lld "
			                  "of x), got rank %d", (long long)x->dims[axis], (long long)axis,
			                  s->rank);
		ly->mode = INGOT_Q_AXIS;
		return 0;
	}
	/* blocked: scale shaped like x except ceil(dim / block_size) along the axis */
	int64_t nb = (x->dims[axis] + a->block_size - 1) / a->block_size;
	bool ok = s->rank == x->rank;
	for (int i = 0; ok && i < x->rank; i++)
		ok = s->dims[i] == (i == axis ? nb : x->dims[i]);
	if (!ok) {
		char b1[96];
		return infer_fail(c, 1, "expected the shape of x with %lld (ceil of dim %lld / "
		                  "block_size %lld) along the axis, got %s", (long long)nb,
		                  (long long)axis, (long long)a->block_size,
		                  type_format(s, b1, sizeof b1));
	}
	ly->mode = INGOT_Q_BLOCK;
	ly->block = a->block_size;
	ly->s_axis_len = nb;
	return 0;
}

static const DType q_x_dtypes[] = { DT_F32, DT_F16, DT_BF16, DT_F64, DT_I32, DT_UNDEF };
static const DType q_scale_dtypes[] = { DT_F32, DT_F16, DT_BF16, DT_F64, DT_F8E8M0, DT_UNDEF };
static const DType q_int_dtypes[] = { DT_U8, DT_I8, DT_U16, DT_I16, DT_U4, DT_I4, DT_U2, DT_I2,
                                      DT_F8E4M3FN, DT_F8E4M3FNUZ, DT_F8E5M2, DT_F8E5M2FNUZ,
                                      DT_F4E2M1, DT_UNDEF };
static const DType dq_x_dtypes[] = { DT_U8, DT_I8, DT_U16, DT_I16, DT_I32, DT_U4, DT_I4, DT_U2,
                                     DT_I2, DT_F8E4M3FN, DT_F8E4M3FNUZ, DT_F8E5M2, DT_F8E5M2FNUZ,
                                     DT_F4E2M1, DT_UNDEF };

static bool in_list(const DType *l, int64_t dt)
{
	for (int i = 0; l[i] != DT_UNDEF; i++)
		if ((int64_t)l[i] == dt)
			return true;
	return false;
}

/* The dtype numpy divides x by the scale in, unless `precision` says otherwise. */
static DType quant_div_dtype(const QuantAttrs *a, DType x, DType s)
{
	if (a->precision)
		return (DType)a->precision;
	if (x == DT_I32 || x == DT_F64 || s == DT_F64)
		return DT_F64;
	return x == s ? x : DT_F32;
}

static int quant_infer(InferCtx *c)
{
	const QuantAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0), *z = infer_in(c, 2);
	int64_t ydt = z ? (int64_t)z->dtype : a->output_dtype ? a->output_dtype : DT_U8;
	QLayout ly;
	if (infer_check_dtype(c, 0, q_x_dtypes) || infer_check_dtype(c, 1, q_scale_dtypes) ||
	    infer_check_dtype(c, 2, q_int_dtypes))
		return -1;
	if (z && a->output_dtype && a->output_dtype != ydt)
		return infer_fail_attr(c, "output_dtype", "expected %s (the zero point's type), got %s",
		                       dtype_name((DType)ydt), dtype_name((DType)a->output_dtype));
	if (!in_list(q_int_dtypes, ydt))
		return unsupported(c, "QuantizeLinear to %s is not supported",
		                   dtype_name((DType)ydt));
	if (a->precision && !dtype_is_float((DType)a->precision))
		return unsupported(c, "QuantizeLinear with precision %s is not supported",
		                   dtype_name((DType)a->precision));
	if (quant_layout(c, &ly))
		return -1;
	*infer_out(c, 0) = type_make((DType)ydt, x->rank, x->dims);
	return 0;
}

static int dequant_infer(InferCtx *c)
{
	const QuantAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0), *s = infer_in(c, 1);
	QLayout ly;
	if (infer_check_dtype(c, 0, dq_x_dtypes) || infer_check_dtype(c, 1, q_scale_dtypes) ||
	    infer_same_dtype(c, 0, 2))
		return -1;
	DType ydt = a->output_dtype ? (DType)a->output_dtype : s->dtype;
	if (!dtype_is_float(ydt))
		return infer_fail_attr(c, "output_dtype", "expected a float type, got %s",
		                       dtype_name(ydt));
	if (quant_layout(c, &ly))
		return -1;
	*infer_out(c, 0) = type_make(ydt, x->rank, x->dims);
	return 0;
}

#define PARAM_STRUCT ingot_quantize_params
static const ParamField quantize_pfields[] = { INGOT_QUANTIZE_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc quantize_desc = PARAM_DESC(ingot_quantize_params, quantize_pfields);
#define PARAM_STRUCT ingot_dequantize_params
static const ParamField dequantize_pfields[] = { INGOT_DEQUANTIZE_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc dequantize_desc = PARAM_DESC(ingot_dequantize_params, dequantize_pfields);
#define PARAM_STRUCT ingot_dynquant_params
static const ParamField dynquant_pfields[] = { INGOT_DYNQUANT_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc dynquant_desc = PARAM_DESC(ingot_dynquant_params, dynquant_pfields);

/* Recomputes the layout for lowering (infer accepted the node already). */
static int lower_layout(LowerCtx *c, QLayout *ly)
{
	InferCtx ic = { c->g, c->node, NULL };
	DiagSink quiet;
	int rc;
	diag_sink_init(&quiet, NULL);
	ic.diags = &quiet;
	rc = quant_layout(&ic, ly);
	diag_sink_free(&quiet);
	return rc;
}

static int quant_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const QuantAttrs *a = n->attrs;
	QLayout ly;
	if (n->out[0] == IR_NONE || lower_layout(c, &ly))
		return -1;
	const Type *x = &ir_value(c->g, n->in[0])->type, *s = &ir_value(c->g, n->in[1])->type;
	const Type *y = &ir_value(c->g, n->out[0])->type;
	bool has_zp = n->n_in > 2 && n->in[2] != IR_NONE;
	if (n->op == OP_QUANTIZE_LINEAR) {
		ingot_quantize_params *p = lower_params(c, &quantize_desc);
		p->x_dtype = x->dtype;
		p->s_dtype = s->dtype;
		p->y_dtype = y->dtype;
		p->div_dtype = quant_div_dtype(a, x->dtype, s->dtype);
		p->saturate = a->saturate != 0;
		p->has_zp = has_zp;
		p->mode = ly.mode;
		p->outer = ly.outer;
		p->axis_len = ly.axis_len;
		p->inner = ly.inner;
		p->block = ly.block;
		p->s_axis_len = ly.s_axis_len;
		LOWER_CALL(c, ingot_quantize, &quantize_desc, p);
		return 0;
	}
	ingot_dequantize_params *p = lower_params(c, &dequantize_desc);
	p->x_dtype = x->dtype;
	p->s_dtype = s->dtype;
	p->y_dtype = y->dtype;
	p->has_zp = has_zp;
	p->mode = ly.mode;
	p->outer = ly.outer;
	p->axis_len = ly.axis_len;
	p->inner = ly.inner;
	p->block = ly.block;
	p->s_axis_len = ly.s_axis_len;
	LOWER_CALL(c, ingot_dequantize, &dequantize_desc, p);
	return 0;
}

/* ---- DynamicQuantizeLinear ---- */

static const DType dynq_dtypes[] = { DT_F32, DT_UNDEF };

static int dynquant_infer(InferCtx *c)
{
	const Type *x = infer_in(c, 0);
	Type *o;
	if (infer_check_dtype(c, 0, dynq_dtypes))
		return -1;
	if ((o = infer_out(c, 0)) != NULL)
		*o = type_make(DT_U8, x->rank, x->dims);
	if ((o = infer_out(c, 1)) != NULL)
		*o = type_make(DT_F32, 0, NULL);
	if ((o = infer_out(c, 2)) != NULL)
		*o = type_make(DT_U8, 0, NULL);
	return 0;
}

static int dynquant_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	ingot_dynquant_params *p = lower_params(c, &dynquant_desc);
	p->n = type_numel(&ir_value(c->g, n->in[0])->type);
	LOWER_CALL(c, ingot_dynquant, &dynquant_desc, p);
	return 0;
}

const OpImpl op_impl_quantize = {
	sizeof(QuantAttrs), quant_fields, COUNTOF(quant_fields), quant_import, quant_infer,
	quant_lower
};
const OpImpl op_impl_dequantize = {
	sizeof(QuantAttrs), quant_fields, COUNTOF(quant_fields), quant_import, dequant_infer,
	quant_lower
};
const OpImpl op_impl_dynamic_quantize = { 0, NULL, 0, NULL, dynquant_infer, dynquant_lower };
