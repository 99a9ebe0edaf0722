/* spectral.c — op groups dft (DFT), stft (STFT), window (HannWindow, HammingWindow,
 * BlackmanWindow) and mel (MelWeightMatrix): attributes, inference, lowering to
 * runtime-stubs/kernels/spectral.c.
 *
 * Sizes come from constant inputs (DFT's dft_length and, from opset 20, axis;
 * STFT's frame_step and frame_length; the window size; all of MelWeightMatrix's
 * inputs): infer() reads them once into the attribute struct, the one place lower()
 * uses, so the kernels never read those slots (generated code passes NULL there).
 * DFT's opset 17 `axis` attribute and opset 20 `axis` input end up in the same
 * field, normalized; the last dim (re/im) is never a valid axis. */
#include "opimpl.h"

#include <string.h>

#include "spectral.h"

/* Transform sizes stay far from the kernels' int64 index arithmetic. */
#define SP_MAX ((int64_t)1 << 24)

static const DType sp_float[] = { DT_F32, DT_F16, DT_F64, DT_BF16, DT_UNDEF };

/* A constant scalar integer input in [lo, SP_MAX]. */
static int const_int(InferCtx *c, int slot, const char *what, int64_t lo, int64_t *out)
{
	int64_t *v;
	int n;
	if (infer_const_ints(c, slot, &v, &n))
		return -1;
	if (n != 1 || infer_in(c, slot)->rank > 1)
		return infer_fail(c, slot, "expected a scalar %s, got %d values", what, n);
	if (v[0] < lo || v[0] > SP_MAX)
		return infer_fail(c, slot, "expected a %s in [%lld, %lld], got %lld", what,
		                  (long long)lo, (long long)SP_MAX, (long long)v[0]);
	*out = v[0];
	return 0;
}

/* ---- DFT ---- */

typedef struct DftAttrs {
	int64_t axis;        /* normalized; from the attribute (< 20) or input 2 (>= 20) */
	int64_t inverse, onesided;
	int64_t dft_length;  /* from input 1; 0 when absent (the axis length) */
} DftAttrs;

static const AttrField dft_fields[] = {
	{ "axis", AK_INT, offsetof(DftAttrs, axis), NULL },
	{ "inverse", AK_INT, offsetof(DftAttrs, inverse), NULL },
	{ "onesided", AK_INT, offsetof(DftAttrs, onesided), NULL },
	{ "dft_length", AK_INT, offsetof(DftAttrs, dft_length), NULL },
};

static int dft_import(ImportCtx *c)
{
	DftAttrs *a = c->attrs;
	/* opset 20 moved axis to an input with default -2; before, attribute default 1 */
	int64_t def = ir_node(c->g, c->node)->opset >= 20 ? -2 : 1;
	if (import_int(c, "axis", def, &a->axis) || import_int(c, "inverse", 0, &a->inverse) ||
	    import_int(c, "onesided", 0, &a->onesided))
		return -1;
	if (ir_node(c->g, c->node)->opset >= 20)
		a->axis = -2;
	if (a->inverse != 0 && a->inverse != 1)
		return import_fail(c, "inverse", "expected 0 or 1, got %lld", (long long)a->inverse);
	if (a->onesided != 0 && a->onesided != 1)
		return import_fail(c, "onesided", "expected 0 or 1, got %lld", (long long)a->onesided);
	return 0;
}

static int dft_infer(InferCtx *c)
{
	DftAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0);
	int64_t axis = a->axis, n;
	int r = x->rank;
	if (infer_check_dtype(c, 0, sp_float))
		return -1;
	if (r < 2 || (x->dims[r - 1] != 1 && x->dims[r - 1] != 2))
		return infer_fail(c, 0, "expected [..., signal, 1 or 2] (real or complex), got rank %d "
		                  "with last dim %lld", r, (long long)(r ? x->dims[r - 1] : 0));
	if (infer_node(c)->opset >= 20 && infer_has(c, 2)) {
		int64_t *v;
		int nv;
		if (infer_const_ints(c, 2, &v, &nv))
			return -1;
		if (nv != 1)
			return infer_fail(c, 2, "expected a scalar axis, got %d values", nv);
		axis = v[0];
	}
	if (axis < -r || axis > r - 2 || axis == -1)
		return infer_fail_attr(c, "axis", "expected a value in [%d, -2] or [0, %d] (the last "
		                       "dim holds re/im), got %lld", -r, r - 2, (long long)axis);
	a->axis = axis < 0 ? axis + r : axis;
	a->dft_length = 0;
	if (infer_has(c, 1) && const_int(c, 1, "dft_length", 1, &a->dft_length))
		return -1;
	/* irfft (inverse and onesided): n / 2 + 1 bins in, n real samples out, n by
	 * default 2 * (bins - 1) */
	const bool irfft = a->inverse && a->onesided;
	n = a->dft_length ? a->dft_length : irfft ? 2 * (x->dims[a->axis] - 1) : x->dims[a->axis];
	if (n < 1 || n > SP_MAX)
		return infer_fail(c, 0, "signal length %lld along axis %lld is not supported",
		                  (long long)n, (long long)a->axis);
	Type *y = infer_out(c, 0);
	*y = type_make(x->dtype, r, x->dims);
	y->dims[a->axis] = a->onesided && !irfft ? n / 2 + 1 : n;
	y->dims[r - 1] = irfft ? 1 : 2;
	return 0;
}

#define PARAM_STRUCT ingot_dft_params
static const ParamField dft_pfields[] = { INGOT_DFT_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc dft_desc = PARAM_DESC(ingot_dft_params, dft_pfields);

static int dft_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const DftAttrs *a = n->attrs;
	const Type *x = &ir_value(c->g, n->in[0])->type;
	const Type *y = &ir_value(c->g, n->out[0])->type;
	int ax = (int)a->axis, r = x->rank;
	ingot_dft_params *p = lower_params(c, &dft_desc);
	p->dtype = x->dtype;
	p->outer = 1;
	for (int i = 0; i < ax; i++)
		p->outer *= x->dims[i];
	p->n_in = x->dims[ax];
	p->inner = 1;
	for (int i = ax + 1; i < r - 1; i++)
		p->inner *= x->dims[i];
	p->in_c = x->dims[r - 1];
	p->n_fft = a->dft_length ? a->dft_length : x->dims[ax];
	p->n_out = y->dims[ax];
	p->inverse = a->inverse;
	p->irfft = a->inverse && a->onesided;
	if (p->irfft && !a->dft_length)
		p->n_fft = 2 * (x->dims[ax] - 1);
	LOWER_CALL(c, ingot_dft, &dft_desc, p);
	return 0;
}

/* ---- STFT ---- */

typedef struct StftAttrs {
	int64_t onesided;
	int64_t frame_step, frame_length;    /* from inputs 1 and 3 (or the window) */
} StftAttrs;

static const AttrField stft_fields[] = {
	{ "onesided", AK_INT, offsetof(StftAttrs, onesided), NULL },
	{ "frame_step", AK_INT, offsetof(StftAttrs, frame_step), NULL },
	{ "frame_length", AK_INT, offsetof(StftAttrs, frame_length), NULL },
};

static int stft_import(ImportCtx *c)
{
	StftAttrs *a = c->attrs;
	if (import_int(c, "onesided", 1, &a->onesided))
		return -1;
	if (a->onesided != 0 && a->onesided != 1)
		return import_fail(c, "onesided", "expected 0 or 1, got %lld", (long long)a->onesided);
	return 0;
}

static int stft_infer(InferCtx *c)
{
	StftAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0), *w = infer_in(c, 2);
	int64_t flen = 0;
	if (infer_check_dtype(c, 0, sp_float) || infer_same_dtype(c, 0, 2))
		return -1;
	if (x->rank != 3 || (x->dims[2] != 1 && x->dims[2] != 2))
		return infer_fail(c, 0, "expected [batch, signal_length, 1 or 2], got rank %d", x->rank);
	if (const_int(c, 1, "frame_step", 1, &a->frame_step))
		return -1;
	if (w && w->rank != 1)
		return infer_fail(c, 2, "expected a 1-D window, got rank %d", w->rank);
	if (infer_has(c, 3) && const_int(c, 3, "frame_length", 1, &flen))
		return -1;
	if (w && flen && w->dims[0] != flen)
		return infer_fail(c, 2, "expected %lld values (frame_length), got %lld",
		                  (long long)flen, (long long)w->dims[0]);
	if (w)
		flen = w->dims[0];
	if (flen < 1)
		return infer_fail(c, -1, "expected a window or a frame_length");
	if (flen > x->dims[1])
		return infer_fail(c, 0, "frame length %lld exceeds the signal length %lld",
		                  (long long)flen, (long long)x->dims[1]);
	a->frame_length = flen;
	int64_t dims[4] = { x->dims[0], (x->dims[1] - flen) / a->frame_step + 1,
	                    a->onesided ? flen / 2 + 1 : flen, 2 };
	*infer_out(c, 0) = type_make(x->dtype, 4, dims);
	return 0;
}

#define PARAM_STRUCT ingot_stft_params
static const ParamField stft_pfields[] = { INGOT_STFT_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc stft_desc = PARAM_DESC(ingot_stft_params, stft_pfields);

static int stft_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const StftAttrs *a = n->attrs;
	const Type *x = &ir_value(c->g, n->in[0])->type;
	const Type *y = &ir_value(c->g, n->out[0])->type;
	ingot_stft_params *p = lower_params(c, &stft_desc);
	p->dtype = x->dtype;
	p->batch = x->dims[0];
	p->sig_len = x->dims[1];
	p->in_c = x->dims[2];
	p->frames = y->dims[1];
	p->step = a->frame_step;
	p->flen = a->frame_length;
	p->n_out = y->dims[2];
	p->has_window = n->n_in > 2 && n->in[2] != IR_NONE;
	LOWER_CALL(c, ingot_stft, &stft_desc, p);
	return 0;
}

/* ---- windows and the mel matrix ---- */

typedef struct WinAttrs {
	int64_t output_datatype;
	int64_t periodic;            /* windows only */
	int64_t size;                /* windows: from input 0 */
} WinAttrs;

static const AttrField win_fields[] = {
	{ "output_datatype", AK_INT, offsetof(WinAttrs, output_datatype), NULL },
	{ "periodic", AK_INT, offsetof(WinAttrs, periodic), NULL },
	{ "size", AK_INT, offsetof(WinAttrs, size), NULL },
};

static int win_import(ImportCtx *c)
{
	WinAttrs *a = c->attrs;
	if (import_int(c, "output_datatype", DT_F32, &a->output_datatype) ||
	    import_int(c, "periodic", 1, &a->periodic))
		return -1;
	if (!dtype_is_valid((int)a->output_datatype))
		return import_fail(c, "output_datatype", "unknown element type %lld",
		                   (long long)a->output_datatype);
	if (a->periodic != 0 && a->periodic != 1)
		return import_fail(c, "periodic", "expected 0 or 1, got %lld", (long long)a->periodic);
	return 0;
}

static int check_out_dtype(InferCtx *c, int64_t dt)
{
	for (int i = 0; dtl_numeric[i] != DT_UNDEF; i++)
		if (dtl_numeric[i] == dt)
			return 0;
	return infer_fail_attr(c, "output_datatype", "expected a numeric type, got %s",
	                       dtype_name((DType)dt));
}

static int win_infer(InferCtx *c)
{
	WinAttrs *a = infer_node(c)->attrs;
	if (check_out_dtype(c, a->output_datatype) || const_int(c, 0, "size", 0, &a->size))
		return -1;
	*infer_out(c, 0) = type_make((DType)a->output_datatype, 1, &a->size);
	return 0;
}

#define PARAM_STRUCT ingot_window_params
static const ParamField window_pfields[] = { INGOT_WINDOW_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc window_desc = PARAM_DESC(ingot_window_params, window_pfields);

static int win_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const WinAttrs *a = n->attrs;
	ingot_window_params *p = lower_params(c, &window_desc);
	p->dtype = a->output_datatype;
	p->kind = n->op == OP_HANN_WINDOW ? INGOT_WIN_HANN
	          : n->op == OP_HAMMING_WINDOW ? INGOT_WIN_HAMMING : INGOT_WIN_BLACKMAN;
	p->size = a->size;
	p->periodic = a->periodic;
	LOWER_CALL(c, ingot_window, &window_desc, p);
	return 0;
}

typedef struct MelAttrs {
	int64_t output_datatype;
	/* from the five constant inputs */
	int64_t num_mel_bins, dft_length, sample_rate;
	float lower_edge_hertz, upper_edge_hertz;    /* for the IR text */
	double lo_hz, hi_hz;                         /* what the kernel uses, exact */
} MelAttrs;

static const AttrField mel_fields[] = {
	{ "output_datatype", AK_INT, offsetof(MelAttrs, output_datatype), NULL },
	{ "num_mel_bins", AK_INT, offsetof(MelAttrs, num_mel_bins), NULL },
	{ "dft_length", AK_INT, offsetof(MelAttrs, dft_length), NULL },
	{ "sample_rate", AK_INT, offsetof(MelAttrs, sample_rate), NULL },
	{ "lower_edge_hertz", AK_FLOAT, offsetof(MelAttrs, lower_edge_hertz), NULL },
	{ "upper_edge_hertz", AK_FLOAT, offsetof(MelAttrs, upper_edge_hertz), NULL },
};

static int mel_import(ImportCtx *c)
{
	MelAttrs *a = c->attrs;
	if (import_int(c, "output_datatype", DT_F32, &a->output_datatype))
		return -1;
	if (!dtype_is_valid((int)a->output_datatype))
		return import_fail(c, "output_datatype", "unknown element type %lld",
		                   (long long)a->output_datatype);
	return 0;
}

/* A constant scalar float input (any float dtype). */
static int const_float(InferCtx *c, int slot, const char *what, double *out)
{
	double *v;
	int n;
	if (infer_check_dtype(c, slot, sp_float) || infer_const_f64s(c, slot, &v, &n))
		return -1;
	if (n != 1)
		return infer_fail(c, slot, "expected a scalar %s, got %d values", what, n);
	if (!(v[0] >= 0.0 && v[0] <= 1e9))
		return infer_fail(c, slot, "expected a %s in [0, 1e9] Hz, got %g", what, v[0]);
	*out = v[0];
	return 0;
}

static int mel_infer(InferCtx *c)
{
	MelAttrs *a = infer_node(c)->attrs;
	double lo, hi;
	if (check_out_dtype(c, a->output_datatype) ||
	    const_int(c, 0, "num_mel_bins", 1, &a->num_mel_bins) ||
	    const_int(c, 1, "dft_length", 1, &a->dft_length) ||
	    const_int(c, 2, "sample_rate", 1, &a->sample_rate) ||
	    const_float(c, 3, "lower_edge_hertz", &lo) ||
	    const_float(c, 4, "upper_edge_hertz", &hi) || infer_same_dtype(c, 3, 4))
		return -1;
	if (hi < lo)
		return infer_fail(c, 4, "expected at least lower_edge_hertz (%g), got %g", lo, hi);
	a->lower_edge_hertz = (float)lo;
	a->upper_edge_hertz = (float)hi;
	a->lo_hz = lo;
	a->hi_hz = hi;
	int64_t dims[2] = { a->dft_length / 2 + 1, a->num_mel_bins };
	*infer_out(c, 0) = type_make((DType)a->output_datatype, 2, dims);
	return 0;
}

#define PARAM_STRUCT ingot_mel_params
static const ParamField mel_pfields[] = { INGOT_MEL_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc mel_desc = PARAM_DESC(ingot_mel_params, mel_pfields);

static int mel_lower(LowerCtx *c)
{
	Node *n = ir_node(c->g, c->node);
	const MelAttrs *a = n->attrs;
	ingot_mel_params *p = lower_params(c, &mel_desc);
	p->dtype = a->output_datatype;
	p->n_mel = a->num_mel_bins;
	p->dft_length = a->dft_length;
	p->sample_rate = a->sample_rate;
	p->lower_hz = a->lo_hz;
	p->upper_hz = a->hi_hz;
	LOWER_CALL(c, ingot_mel, &mel_desc, p);
	return 0;
}

const OpImpl op_impl_dft = {
	sizeof(DftAttrs), dft_fields, COUNTOF(dft_fields), dft_import, dft_infer, dft_lower
};
const OpImpl op_impl_stft = {
	sizeof(StftAttrs), stft_fields, COUNTOF(stft_fields), stft_import, stft_infer, stft_lower
};
const OpImpl op_impl_window = {
	sizeof(WinAttrs), win_fields, COUNTOF(win_fields), win_import, win_infer, win_lower
};
const OpImpl op_impl_mel = {
	sizeof(MelAttrs), mel_fields, COUNTOF(mel_fields), mel_import, mel_infer, mel_lower
};
