/* kernels.c — the OpenCL C program of --target opencl, written into NAME.c as
 * string literals (the program is built once, by NAME_cl_init). Its parts, in order:
 *   1. a prelude: the C names the shared headers use (int64_t, expf...) mapped to
 *      OpenCL C, and the op codes the kernels switch on, printed from the compiler's
 *      own enums so the two cannot disagree;
 *   2. runtime-stubs/kernels/ewtable.h and ewmath.h, the per-element math of the
 *      reference kernels (their float half: they skip the rest under OpenCL C);
 *   3. the parameter structs, generated from the runtime-stubs field lists, so the
 *      host's struct (kernels/<family>.h) and the device's have one layout (a double
 *      field is a ulong of its bits on a device without cl_khr_fp64: no kernel
 *      needs double precision);
 *   4. runtime-stubs/kernels/opencl/ingot.cl, the kernels.
 */
#include "opencl_target.h"

#include "conv.h"
#include "elementwise.h"
#include "image.h"
#include "fused.h"
#include "linalg.h"
#include "norm.h"
#include "pool.h"
#include "reduce.h"
#include "shape.h"

#include <string.h>

#define OCL_STR2(x) #x
#define OCL_STR(x) OCL_STR2(x)
#define OCL_FIELD(kind, name) OCL_FIELD_##kind(name)
#define OCL_FIELD_I64(n) "\tlong " #n ";\n"
#define OCL_FIELD_F32(n) "\tfloat " #n ";\n"
#define OCL_FIELD_F64(n) "\tINGOT_CL_F64 " #n ";\n"   /* prelude: double or its bits */
#define OCL_FIELD_DIMS(n) "\tlong " #n "[" OCL_STR(INGOT_MAX_RANK) "];\n"
#define OCL_FIELD_PADS(n) "\tlong " #n "[2 * " OCL_STR(INGOT_MAX_RANK) "];\n"
#define OCL_STRUCT(T, FIELDS) "typedef struct " #T " {\n" FIELDS(OCL_FIELD) "} " #T ";\n"

/* the structs of the reference kernels ingot.cl's kernels stand in for */
static const char structs[] =
	OCL_STRUCT(ingot_unary_params, INGOT_UNARY_FIELDS)
	OCL_STRUCT(ingot_binary_params, INGOT_BINARY_FIELDS)
	OCL_STRUCT(ingot_fused_params, INGOT_FUSED_FIELDS)
	OCL_STRUCT(ingot_matmul_params, INGOT_MATMUL_FIELDS)
	OCL_STRUCT(ingot_gemm_params, INGOT_GEMM_FIELDS)
	OCL_STRUCT(ingot_conv_params, INGOT_CONV_FIELDS)
	OCL_STRUCT(ingot_pool_params, INGOT_POOL_FIELDS)
	OCL_STRUCT(ingot_global_pool_params, INGOT_GLOBAL_POOL_FIELDS)
	OCL_STRUCT(ingot_softmax_params, INGOT_SOFTMAX_FIELDS)
	OCL_STRUCT(ingot_layernorm_params, INGOT_LAYERNORM_FIELDS)
	OCL_STRUCT(ingot_reduce_params, INGOT_REDUCE_FIELDS)
	OCL_STRUCT(ingot_strided_params, INGOT_STRIDED_FIELDS)
	OCL_STRUCT(ingot_concat_params, INGOT_CONCAT_FIELDS)
	OCL_STRUCT(ingot_gather_params, INGOT_GATHER_FIELDS)
	OCL_STRUCT(ingot_pad_params, INGOT_PAD_FIELDS)
	OCL_STRUCT(ingot_resize_params, INGOT_RESIZE_FIELDS);

/* the libm names ewmath.h's float functions call (INGOT_EW_M(fn) is fn##f) */
static const char *const libm[] = { "fabs", "ceil", "expm1", "erf", "erfc", "exp", "floor", "fmax",
	                            "fmin", "log", "log1p", "sqrt", "tanh", "pow" };

static void prelude(Emitter *e)
{
	static const struct { const char *name; int v; } codes[] = {
		{ "INGOT_EW_ADD", INGOT_EW_ADD }, { "INGOT_EW_SUB", INGOT_EW_SUB },
		{ "INGOT_EW_MUL", INGOT_EW_MUL }, { "INGOT_EW_DIV", INGOT_EW_DIV },
		{ "INGOT_EW_POW", INGOT_EW_POW }, { "INGOT_EW_MAX", INGOT_EW_MAX },
		{ "INGOT_EW_MIN", INGOT_EW_MIN }, { "INGOT_FE_MAX_IN", INGOT_FE_MAX_IN },
		{ "INGOT_FE_MAX_OPS", INGOT_FE_MAX_OPS }, { "INGOT_FE_BINARY", INGOT_FE_BINARY },
		{ "INGOT_FE_CLIP", INGOT_FE_CLIP }, { "INGOT_POOL_MAX", INGOT_POOL_MAX },
		{ "INGOT_POOL_AVG", INGOT_POOL_AVG }, { "INGOT_REDUCE_MEAN", INGOT_REDUCE_MEAN },
		{ "INGOT_REDUCE_MAX", INGOT_REDUCE_MAX }, { "INGOT_REDUCE_MIN", INGOT_REDUCE_MIN },
		{ "INGOT_REDUCE_PROD", INGOT_REDUCE_PROD },
		{ "INGOT_REDUCE_SUM_SQUARE", INGOT_REDUCE_SUM_SQUARE },
		{ "INGOT_REDUCE_L1", INGOT_REDUCE_L1 }, { "INGOT_REDUCE_L2", INGOT_REDUCE_L2 },
		{ "INGOT_REDUCE_LOG_SUM", INGOT_REDUCE_LOG_SUM },
		{ "INGOT_REDUCE_LOG_SUM_EXP", INGOT_REDUCE_LOG_SUM_EXP },
		{ "INGOT_PAD_CONSTANT", INGOT_PAD_CONSTANT }, { "INGOT_PAD_REFLECT", INGOT_PAD_REFLECT },
		{ "INGOT_PAD_EDGE", INGOT_PAD_EDGE }, { "INGOT_INTERP_NEAREST", INGOT_INTERP_NEAREST },
		{ "INGOT_CTM_ALIGN_CORNERS", INGOT_CTM_ALIGN_CORNERS },
		{ "INGOT_CTM_ASYMMETRIC", INGOT_CTM_ASYMMETRIC },
		{ "INGOT_CTM_TF_CROP_AND_RESIZE", INGOT_CTM_TF_CROP_AND_RESIZE },
		{ "INGOT_CTM_PYTORCH_HALF_PIXEL", INGOT_CTM_PYTORCH_HALF_PIXEL },
		{ "INGOT_CTM_HALF_PIXEL_SYMMETRIC", INGOT_CTM_HALF_PIXEL_SYMMETRIC },
		{ "INGOT_CTM_TF_HALF_PIXEL_FOR_NN", INGOT_CTM_TF_HALF_PIXEL_FOR_NN },
		{ "INGOT_NEAREST_ROUND_PREFER_CEIL", INGOT_NEAREST_ROUND_PREFER_CEIL },
		{ "INGOT_NEAREST_FLOOR", INGOT_NEAREST_FLOOR }, { "INGOT_NEAREST_CEIL", INGOT_NEAREST_CEIL },
		{ "INGOT_NEAREST_SIMPLE", INGOT_NEAREST_SIMPLE },
	};
	em_printf(e, "/* prelude: the C names of the shared headers in OpenCL C */\n");
	em_printf(e, "typedef long int64_t;\ntypedef ulong uint64_t;\n");
	/* a field name that is an OpenCL C keyword (pool's `kernel`) */
	em_printf(e, "#define kernel ingot_kernel\n");
	/* a double field (Resize's scales) as its bits where the device has no doubles:
	 * same size and alignment, and no kernel reads one */
	em_printf(e, "#ifdef cl_khr_fp64\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
	          "#define INGOT_CL_F64 double\n#else\n#define INGOT_CL_F64 ulong\n#endif\n");
	for (size_t i = 0; i < sizeof libm / sizeof *libm; i++)
		em_printf(e, "#define %sf %s\n", libm[i], libm[i]);
	for (size_t i = 0; i < sizeof codes / sizeof *codes; i++)
		em_printf(e, "#define %s %d\n", codes[i].name, codes[i].v);
}

static const char *stub_text(const char *path)
{
	const IngotStub *s = cg_stub_find(path);
	if (!s)
		die("runtime stub '%s' is not embedded", path);
	return s->text;
}

/* One part of the program as a string literal, a line per literal. */
static void emit_part(Emitter *e, const char *what, const char *text)
{
	em_line(e, "\t/* %s */", what);
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text + 1) : strlen(text);
		em_printf(e, "\t\"");
		for (size_t i = 0; i < n; i++) {
			unsigned char ch = (unsigned char)text[i];
			if (ch == '"' || ch == '\\' || ch == '?')   /* '?': no trigraphs under -std=c99 */
				em_printf(e, "\\%c", ch);
			else if (ch == '\n')
				em_printf(e, "\\n");
			else if (ch == '\t')
				em_printf(e, "\\t");
			else if (ch < 0x20 || ch >= 0x7f)
				em_printf(e, "\\%03o", ch);
			else
				em_printf(e, "%c", ch);
		}
		em_printf(e, "\"\n");
		text += n;
	}
	em_printf(e, "\t,\n");
}

void cg_ocl_emit_program(Emitter *e, const Target *t, const char *name)
{
	Emitter pre;
	em_init(&pre);
	prelude(&pre);
	em_line(e, "/* The OpenCL C program (runtime-stubs/kernels/opencl/ingot.cl and the shared");
	em_line(e, " * per-element math), built once by %s_cl_init. */", name);
	em_line(e, "static const char *const %s_cl_source[] = {", name);
	emit_part(e, "prelude", pre.buf);
	emit_part(e, "kernels/ewtable.h", stub_text("kernels/ewtable.h"));
	emit_part(e, "kernels/ewmath.h", stub_text("kernels/ewmath.h"));
	emit_part(e, "the parameter structs of the reference kernels", structs);
	emit_part(e, "kernels/opencl/ingot.cl", stub_text("kernels/opencl/ingot.cl"));
	em_line(e, "};");
	em_line(e, "static const char %s_cl_build_options[] = \"-DINGOT_CL_TILE=%d\";", name,
	        t->cl_tile > 0 ? t->cl_tile : 16);
	em_blank(e);
	em_free(&pre);
}
