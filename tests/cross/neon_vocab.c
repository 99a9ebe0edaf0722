/* The generated NEON vector vocabulary (kernels/neon/ukernel.h, codegen/common/ukgen.c)
 * on known values: transposes, masked loads and stores, the transposing store, lane
 * sums, divide and floor (armv7 implements the last three as helpers). Each mismatch is
 * reported as file:line (tests/unit/harness.h) and the exit status is 1. Built by
 * neon_test.py. */
#include "ukernel.h"
#include "../unit/harness.h"

int main(void)
{
	float a[32], c[64] = { 0 }, o[4];
	uk_vec r[8];
	for (int i = 0; i < 32; i++)
		a[i] = (float)i;
	for (int i = 0; i < 8; i++)
		r[i] = uk_load(a + 4 * i);
	uk_transpose(r);                          /* the 4 x 4 block r[0..4) */
	for (int i = 0; i < 4; i++) {
		uk_store(o, r[i]);
		for (int j = 0; j < 4; j++)
			CHECK(o[j] == a[4 * j + i], "transpose: [%d][%d] = %g", i, j, o[j]);
	}
	for (int i = 0; i < 8; i++)
		r[i] = uk_load(a + 4 * i);
	uk_store_t8(c, 9, r, 3, 5);               /* c[ch * 9 + j] = r[j][ch], ch < 3, j < 5 */
	for (int ch = 0; ch < 4; ch++)
		for (int j = 0; j < 9; j++)
			CHECK(c[ch * 9 + j] == (ch < 3 && j < 5 ? a[4 * j + ch] : 0.0f),
			      "store_t8: c[%d] = %g", ch * 9 + j, c[ch * 9 + j]);
	o[2] = o[3] = -1.0f;
	uk_storem(o, uk_mask_n(2), uk_loadm(a + 5, uk_mask_n(3)));
	CHECK(o[0] == 5.0f && o[1] == 6.0f && o[2] == -1.0f && o[3] == -1.0f);
	uk_store(o, uk_loadm(a + 5, uk_mask_n(1)));
	CHECK(o[0] == 5.0f && o[1] == 0.0f && o[3] == 0.0f);
	CHECK(uk_hsum(uk_sub(uk_load(a + 4), uk_load(a))) == 16.0f);
	CHECK(uk_hsum(uk_div(uk_load(a + 4), uk_bcast(2.0f))) == 11.0f);
	CHECK(uk_hsum(uk_floor(uk_load(a + 1))) == 10.0f);
	CHECK(uk_hsum(uk_floor(uk_bcast(-1.5f))) == -8.0f);
	CHECK(uk_hsum(uk_fma(uk_bcast(2.0f), uk_load(a), uk_bcast(1.0f))) == 16.0f);
	return harness_done("vocab");
}
