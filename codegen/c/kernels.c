/* kernels.c — which runtime-stubs kernel files a model needs, copying them next
 * to it, and printing kernel parameter structs as C initializers. */
#include "c_target.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cg_c_kernel_set_add(KernelSet *s, const char *family)
{
	int i = 0;
	if (strcmp(family, "fused") == 0)   /* FusedElementwise runs the elementwise kernels */
		cg_c_kernel_set_add(s, "elementwise");
	if (strcmp(family, "x86/rnn") == 0) {   /* it runs the x86 GEMM and sigmoid/tanh kernels */
		cg_c_kernel_set_add(s, "x86/eltwise");
		cg_c_kernel_set_add(s, "x86/sgemm");
	}
	if (strcmp(family, "imgdec") == 0) {   /* ImageDecoder runs the format decoders */
		cg_c_kernel_set_add(s, "imgdec_jpeg");
		cg_c_kernel_set_add(s, "imgdec_png");
	}
	/* they take ingot_x86_conv's parameters (sgemm.h) */
	if (strcmp(family, "x86/dwconv") == 0 || strcmp(family, "x86/dconv") == 0 ||
	    strcmp(family, "x86/pwconv") == 0 || strcmp(family, "x86/wino1d") == 0)
		cg_c_kernel_set_add(s, "x86/sgemm");
	if (strcmp(family, "x86/wino1d") == 0)   /* its output goes through ingot_x86_dc_store_t */
		cg_c_kernel_set_add(s, "x86/dconv");
	while (i < s->n && strcmp(s->families[i], family) < 0)
		i++;
	if (i < s->n && strcmp(s->families[i], family) == 0)
		return;
	if (s->n == COUNTOF(s->families))
		die("too many kernel families");
	memmove(&s->families[i + 1], &s->families[i], (size_t)(s->n - i) * sizeof s->families[0]);
	s->families[i] = family;
	s->n++;
}

/* Header-only files a family's kernels include besides their own header. */
static const struct {
	const char *family, *header;
} extra_headers[] = {
	{ "neon/eltwise", "kernels/simd/vmath.h" },
	{ "neon/eltwise", "kernels/simd/vbinary.h" },
	{ "neon/gemm", "kernels/simd/vmath.h" },
	{ "neon/gemm", "kernels/ewmath.h" },       /* the scalar activations */
	{ "x86/eltwise", "kernels/simd/vmath.h" },
	{ "x86/eltwise", "kernels/simd/vbinary.h" },
	{ "x86/sgemm", "kernels/simd/vmath.h" },
	{ "x86/sgemm", "kernels/ewmath.h" },       /* the scalar activations */
	{ "elementwise", "kernels/ewmath.h" },   /* also what fused chains call */
	{ "arith", "kernels/ewmath.h" },
	{ "conv", "kernels/ewmath.h" },
	{ "linalg", "kernels/ewmath.h" },
};

int cg_c_copy_kernels(const KernelSet *s, const char *out_dir, DiagSink *d)
{
	char dir[4096], path[256];
	snprintf(dir, sizeof dir, "%s/kernels", out_dir);
	/* ewtable.h: the unary and activation codes, which the headers of several
	 * families (elementwise, conv, linalg, their SIMD forms) take from it */
	if (cg_mkdir_p(dir, d) || cg_copy_stub(out_dir, "ingot_rt.h", d) ||
	    cg_copy_stub(out_dir, "kernels/ewtable.h", d))
		return -1;
	for (size_t i = 0; i < COUNTOF(extra_headers); i++) {
		int k = 0;
		while (k < s->n && strcmp(s->families[k], extra_headers[i].family) != 0)
			k++;
		if (k == s->n)
			continue;
		if (cg_copy_stub(out_dir, extra_headers[i].header, d))
			return -1;
	}
	for (int i = 0; i < s->n; i++) {
		const char *slash = strchr(s->families[i], '/');
		if (slash) {          /* a target's SIMD family: kernels/neon/gemm.c */
			snprintf(dir, sizeof dir, "%s/kernels/%.*s", out_dir, (int)(slash - s->families[i]),
			         s->families[i]);
			if (cg_mkdir_p(dir, d))
				return -1;
		}
		snprintf(path, sizeof path, "kernels/%s.c", s->families[i]);
		if (cg_copy_stub(out_dir, path, d))
			return -1;
		snprintf(path, sizeof path, "kernels/%s.h", s->families[i]);
		if (cg_copy_stub(out_dir, path, d))
			return -1;
	}
	return 0;
}

static void emit_i64(Emitter *e, int64_t v)
{
	if (v == INT64_MIN)
		em_printf(e, "(-9223372036854775807LL - 1)");
	else if (v > INT32_MAX || v < INT32_MIN)
		em_printf(e, "%lldLL", (long long)v);
	else
		em_printf(e, "%lld", (long long)v);
}

/* A float literal that reads back to the same bits. */
void cg_c_emit_real(Emitter *e, double v, bool single)
{
	char buf[64];
	if (isnan(v)) {
		em_printf(e, "NAN");
		return;
	}
	if (isinf(v)) {
		em_printf(e, v < 0 ? "-INFINITY" : "INFINITY");
		return;
	}
	snprintf(buf, sizeof buf, single ? "%.9g" : "%.17g", v);
	if (!strpbrk(buf, ".eEn"))
		strcat(buf, ".0");
	em_printf(e, "%s%s", buf, single ? "f" : "");
}

static void emit_array(Emitter *e, const int64_t *v, int n)
{
	int last = n - 1;
	while (last > 0 && v[last] == 0)
		last--;
	em_printf(e, "{");
	for (int i = 0; i <= last; i++) {
		if (i)
			em_printf(e, ", ");
		emit_i64(e, v[i]);
	}
	em_printf(e, "}");
}

void cg_c_emit_params(Emitter *e, const ParamDesc *d, const void *params)
{
	const char *base = params;
	em_printf(e, "{");
	for (int i = 0; i < d->n_fields; i++) {
		const ParamField *f = &d->fields[i];
		const char *p = base + f->off;
		em_printf(e, i ? ", .%s = " : " .%s = ", f->name);
		switch (f->kind) {
		case PK_I64: {
			int64_t v;
			memcpy(&v, p, sizeof v);
			emit_i64(e, v);
			break;
		}
		case PK_F32: {
			float v;
			memcpy(&v, p, sizeof v);
			cg_c_emit_real(e, (double)v, true);
			break;
		}
		case PK_F64: {
			double v;
			memcpy(&v, p, sizeof v);
			cg_c_emit_real(e, v, false);
			break;
		}
		case PK_DIMS:
		case PK_PADS: {
			int64_t v[2 * IR_MAX_RANK];
			int n = f->kind == PK_DIMS ? IR_MAX_RANK : 2 * IR_MAX_RANK;
			memcpy(v, p, (size_t)n * sizeof v[0]);
			emit_array(e, v, n);
			break;
		}
		}
	}
	em_printf(e, " }");
}

/* A C string literal (escaped; bytes outside printable ASCII as octal). */
void cg_c_emit_string(Emitter *e, const char *s)
{
	em_printf(e, "\"");
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			em_printf(e, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			em_printf(e, "\\%03o", ch);
		else
			em_printf(e, "%c", ch);
	}
	em_printf(e, "\"");
}
