/* imgdec.c — op group image_decoder: ImageDecoder (opset 20), encoded bytes to a
 * uint8 [H, W, C] image, lowered to runtime-stubs/kernels/imgdec.c.
 *
 * The image's size depends on the data. A constant input (an initializer, or an
 * input frozen with --bind) is measured here from its header, so the output type
 * is static and folding decodes it at compile time. Otherwise the output gets an
 * upper bound [max_height, max_width, C], is marked `dynamic`, and the kernel
 * reports the actual dims (indexing.c describes the convention). The bound is not
 * an ONNX attribute: the frontend takes it from the output's declared shape, whose
 * symbolic dims --dim fixes, or from --shape OUTPUT=HxWxC (ops_imgdec_set_bound),
 * and it sizes the decoder's working memory (kernel scratch) too.
 */
#include "opimpl.h"

#include <stdlib.h>

#include "imgdec.h"

typedef struct ImgDecAttrs {
	int format;                  /* INGOT_PIX_*: pixel_format */
	int64_t max_height;          /* the largest image allowed (0: not given) */
	int64_t max_width;
} ImgDecAttrs;

static const char *const format_names[] = { "RGB", "BGR", "Grayscale", NULL };

static const AttrField imgdec_fields[] = {
	{ "pixel_format", AK_ENUM, offsetof(ImgDecAttrs, format), format_names },
	{ "max_height", AK_INT, offsetof(ImgDecAttrs, max_height), NULL },
	{ "max_width", AK_INT, offsetof(ImgDecAttrs, max_width), NULL },
};

static int imgdec_import(ImportCtx *c)
{
	ImgDecAttrs *a = c->attrs;
	return import_enum(c, "pixel_format", format_names, INGOT_PIX_RGB, &a->format);
}

void ops_imgdec_set_bound(Graph *g, NodeId n, int64_t max_h, int64_t max_w)
{
	ImgDecAttrs *a = g->nodes[n].attrs;
	IR_ASSERT(g->nodes[n].op == OP_IMAGE_DECODER);
	a->max_height = max_h;
	a->max_width = max_w;
}

/* The size of a constant image: its header, then a whole decode, so that a corrupt
 * image is reported here rather than by folding or at run time. */
static int imgdec_measure(InferCtx *c, const void *data, int64_t n, int format, int64_t *h,
                          int64_t *w)
{
	int64_t cap = ingot_imgdec_scratch_bytes(n, 0, 0), dims[INGOT_MAX_RANK];
	void *mem = malloc((size_t)cap), *out[2] = { NULL, dims };
	const void *in[1] = { data };
	int rc = mem ? ingot_imgdec_probe(data, n, mem, cap, h, w) : -1;
	free(mem);
	if (rc == 0 && ingot_imgdec_scratch_bytes(n, *h, *w) < 0)
		return infer_fail(c, 0, "the constant image is too large (%lldx%lld)", (long long)*h,
		                  (long long)*w);
	if (rc == 0) {
		ingot_imgdec_params p = { n, *h, *w, format, 1 };
		mem = malloc((size_t)ingot_imgdec_scratch_bytes(n, *h, *w));
		out[0] = malloc((size_t)(*h * *w * 3));
		rc = mem && out[0] ? ingot_image_decoder(&p, in, out, mem, 0, 1) : -1;
		free(mem);
		free(out[0]);
	}
	if (rc < 0)
		die("out of memory");
	if (rc)
		return infer_fail(c, 0, "the constant image is no PNG, JPEG, BMP or binary PNM that "
		                  "can be read, or it is corrupt");
	return 0;
}

static int imgdec_infer(InferCtx *c)
{
	static const DType u8_only[] = { DT_U8, DT_UNDEF };
	ImgDecAttrs *a = infer_node(c)->attrs;
	const Type *x = infer_in(c, 0);
	const void *data = infer_const(c, 0);
	int64_t dims[3] = { a->max_height, a->max_width, a->format == INGOT_PIX_GRAY ? 1 : 3 };
	bool dynamic = !data;
	if (infer_check_dtype(c, 0, u8_only))
		return -1;
	if (x->rank != 1)
		return infer_fail(c, 0, "expected a 1-D tensor of encoded bytes, got rank %d", x->rank);
	if (data && imgdec_measure(c, data, x->dims[0], a->format, &dims[0], &dims[1]))
		return -1;
	if (dynamic && (dims[0] <= 0 || dims[1] <= 0))
		return infer_fail(c, -1, "the image size depends on the input bytes: give the largest "
		                  "image as the output's declared shape [H, W, C], with --dim SYMBOL=V "
		                  "for its symbolic dims, or --shape %s=HxWx%lld",
		                  c->g->values[infer_node(c)->out[0]].name, (long long)dims[2]);
	if (ingot_imgdec_scratch_bytes(x->dims[0], dims[0], dims[1]) < 0)
		return infer_fail(c, -1, "image size %lldx%lld is too large (at most 2^24 a side and "
		                  "2^36 pixels)", (long long)dims[0], (long long)dims[1]);
	Type *y = infer_out(c, 0);
	*y = type_make(DT_U8, 3, dims);
	c->g->values[infer_node(c)->out[0]].dynamic = dynamic;
	return 0;
}

#define PARAM_STRUCT ingot_imgdec_params
static const ParamField imgdec_pfields[] = { INGOT_IMGDEC_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc imgdec_desc = PARAM_DESC(ingot_imgdec_params, imgdec_pfields);

static int imgdec_lower(LowerCtx *c)
{
	const Node *n = &c->g->nodes[c->node];
	const ImgDecAttrs *a = n->attrs;
	const Type *y = lower_out(c, 0);
	ingot_imgdec_params *p = lower_params(c, &imgdec_desc);
	p->n = lower_in(c, 0)->dims[0];
	p->max_h = y->dims[0];
	p->max_w = y->dims[1];
	p->format = a->format;
	p->dims_slot = c->g->values[n->out[0]].dynamic ? 1 : -1;
	LOWER_CALL(c, ingot_image_decoder, &imgdec_desc, p);
	c->kc.scratch_bytes = ingot_imgdec_scratch_bytes(p->n, p->max_h, p->max_w);
	return 0;
}

const OpImpl op_impl_image_decoder = { sizeof(ImgDecAttrs), imgdec_fields, COUNTOF(imgdec_fields),
                                       imgdec_import, imgdec_infer, imgdec_lower };
