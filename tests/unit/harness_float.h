/* harness_float.h — harness.h plus what needs the IR's dtypes (ir.h): an element as a
 * double and the comparison rule of `ingot check`, for the op unit tests built on numpy
 * cases (arith, norm_reduce, image, indexing, loss_rnn: tests/unit/<group>/test_*.c, each
 * with its own TCase layout in front of its generated cases.h). Include it instead of
 * harness.h, as "../harness_float.h".
 */
#ifndef INGOT_TEST_HARNESS_FLOAT_H
#define INGOT_TEST_HARNESS_FLOAT_H

#include "harness.h"

#include <math.h>
#include <string.h>

#include "ir.h"

/* Element i of a float tensor of dtype dt (f32, f64, f16, bf16) as a double; 0 otherwise. */
static inline double elem(int dt, const void *p, int64_t i)
{
	switch (dt) {
	case DT_F32: { float v; memcpy(&v, (const char *)p + 4 * i, 4); return v; }
	case DT_F64: { double v; memcpy(&v, (const char *)p + 8 * i, 8); return v; }
	case DT_F16: case DT_BF16: {
		uint16_t h;
		memcpy(&h, (const char *)p + 2 * i, 2);
		return dt == DT_F16 ? ingot_f16_to_f32(h) : ingot_bf16_to_f32(h);
	}
	default: return 0;
	}
}

/* n elements of dtype dt with the rule of `ingot check` (|got - want| <= atol + rtol |want|,
 * NaN equals NaN); the first mismatch fails as "NAME: output K [I]: got A, expected B",
 * without "output K" when k < 0. */
static inline void check_floats(const char *name, int k, int dt, const void *got, const void *want,
                                int64_t n, double rtol, double atol)
{
	for (int64_t i = 0; i < n; i++) {
		double a = elem(dt, got, i), b = elem(dt, want, i);
		if ((isnan(a) && isnan(b)) || a == b)
			continue;
		if (!(fabs(a - b) <= atol + rtol * fabs(b))) {
			if (k < 0)
				CHECK(0, "%s: [%lld]: got %.9g, expected %.9g", name, (long long)i, a, b);
			else
				CHECK(0, "%s: output %d [%lld]: got %.9g, expected %.9g", name, k, (long long)i,
				      a, b);
			return;
		}
	}
}

/* bytes of an output: floats by check_floats, every other dtype bytewise ("NAME: output K
 * differs", "NAME: output differs" when k < 0). */
static inline void check_output(const char *name, int k, int dt, const void *got, const void *want,
                                int64_t bytes, double rtol, double atol)
{
	if (!dtype_is_float((DType)dt)) {
		if (k < 0)
			CHECK(memcmp(got, want, (size_t)bytes) == 0, "%s: output differs", name);
		else
			CHECK(memcmp(got, want, (size_t)bytes) == 0, "%s: output %d differs", name, k);
		return;
	}
	check_floats(name, k, dt, got, want, bytes / (int64_t)dtype_size((DType)dt), rtol, atol);
}

#endif
