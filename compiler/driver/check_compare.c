/* check_compare.c — `ingot check`: an output against its expected tensor. Floats
 * (every float type, widened to double) pass when |got - want| <= atol + rtol |want|,
 * NaN matches NaN and an infinity itself; other dtypes must match bit for bit and
 * strings up to their NUL. A test directory may set rtol and atol in a `tolerance`
 * file ("rtol = 1e-3"); what neither it nor the command line sets is the element
 * type's default: f64 outputs are held to f64 precision (driver.h). */
#include "driver.h"
#include "ingot_tensor_io.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void check_read_tolerance(const char *dir, CheckTol *tol)
{
	char path[4096], key[32];
	double v;
	FILE *f;
	snprintf(path, sizeof path, "%s/tolerance", dir);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fscanf(f, " %31[a-z] = %lf", key, &v) == 2) {
		if (strcmp(key, "rtol") == 0 && !tol->rtol_set) {
			tol->rtol = v;
			tol->rtol_set = true;
		} else if (strcmp(key, "atol") == 0 && !tol->atol_set) {
			tol->atol = v;
			tol->atol_set = true;
		}
	}
	fclose(f);
}

static double elem_f64(const ingot_tensor *t, size_t i, bool *is_float)
{
	const unsigned char *p = t->data;
	*is_float = true;
	switch (t->dtype) {
	case INGOT_DT_F32: { float v; memcpy(&v, p + 4 * i, 4); return v; }
	case INGOT_DT_F64: { double v; memcpy(&v, p + 8 * i, 8); return v; }
	case INGOT_DT_F16: { uint16_t v; memcpy(&v, p + 2 * i, 2); return ingot_f16_to_f32(v); }
	case INGOT_DT_BF16: { uint16_t v; memcpy(&v, p + 2 * i, 2); return ingot_bf16_to_f32(v); }
	case INGOT_DT_F8E4M3FN: case INGOT_DT_F8E4M3FNUZ: case INGOT_DT_F8E5M2:
	case INGOT_DT_F8E5M2FNUZ: case INGOT_DT_F4E2M1: case INGOT_DT_F8E8M0:
		return ingot_small_to_f32(t->dtype, p[i]);
	default: *is_float = false; return 0;
	}
}

int check_compare(const ingot_tensor *got, const ingot_tensor *want, const CheckTol *tol,
                  char *why, size_t cap)
{
	size_t es = ingot_dtype_size(want->dtype), n;
	bool f64 = want->dtype == INGOT_DT_F64;
	double rtol = f64 && !tol->rtol_set ? CHECK_F64_RTOL : tol->rtol;
	double atol = f64 && !tol->atol_set ? CHECK_F64_ATOL : tol->atol;
	if (got->dtype != want->dtype) {
		snprintf(why, cap, "dtype %d, expected %d", got->dtype, want->dtype);
		return -1;
	}
	bool same = got->rank == want->rank;
	for (int k = 0; same && k < want->rank; k++)
		same = got->dims[k] == want->dims[k];
	if (!same) {
		char a[128] = "", b[128] = "";
		for (int k = 0; k < got->rank; k++)
			snprintf(a + strlen(a), sizeof a - strlen(a), k ? ",%lld" : "%lld", (long long)got->dims[k]);
		for (int k = 0; k < want->rank; k++)
			snprintf(b + strlen(b), sizeof b - strlen(b), k ? ",%lld" : "%lld", (long long)want->dims[k]);
		snprintf(why, cap, "shape [%s], expected [%s]", a, b);
		return -1;
	}
	if (es == 0 || got->bytes != want->bytes) {
		snprintf(why, cap, "%zu bytes, expected %zu", got->bytes, want->bytes);
		return -1;
	}
	n = want->bytes / es;
	if (want->dtype == INGOT_DT_STRING) {     /* slots: compare up to the NUL */
		for (size_t i = 0; i < n; i++) {
			const char *a = (const char *)got->data + i * es, *b = (const char *)want->data + i * es;
			if (strncmp(a, b, es) != 0) {
				snprintf(why, cap, "element %zu: got \"%.*s\", expected \"%.*s\"", i,
				         (int)strnlen(a, es), a, (int)strnlen(b, es), b);
				return -1;
			}
		}
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		bool fl;
		double a = elem_f64(got, i, &fl), b = elem_f64(want, i, &fl);
		if (fl) {
			if (isnan(a) && isnan(b))
				continue;
			if (isinf(b) && a == b)
				continue;
			if (!(fabs(a - b) <= atol + rtol * fabs(b))) {
				snprintf(why, cap, "element %zu: got %.9g, expected %.9g", i, a, b);
				return -1;
			}
		} else if (memcmp((const char *)got->data + i * es, (const char *)want->data + i * es, es)) {
			long long x = 0, y = 0;
			memcpy(&x, (const char *)got->data + i * es, es < 8 ? es : 8);
			memcpy(&y, (const char *)want->data + i * es, es < 8 ? es : 8);
			snprintf(why, cap, "element %zu: got %lld, expected %lld (raw)", i, x, y);
			return -1;
		}
	}
	return 0;
}
