/* fuzz_image.c — fuzz target for ImageDecoder's kernel (PNG, JPEG, BMP, PNM as
 * runtime-stubs/kernels/imgdec*.c decode them): the first byte picks the pixel format,
 * the rest is the file, decoded from a buffer of exactly its size. Every decode
 * returns 0 with dims inside the bound, or INGOT_EINVAL/INGOT_ERANGE with empty dims. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imgdec.h"

#define MAX_H 256
#define MAX_W 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[MAX_H * MAX_W * 3];
	int64_t dims[INGOT_MAX_RANK], sb;
	int format, rc;
	uint8_t *copy;
	void *scratch;
	if (size < 1)
		return 0;
	format = data[0] % 3;
	data++;
	size--;
	copy = malloc(size ? size : 1);
	sb = ingot_imgdec_scratch_bytes((int64_t)size, MAX_H, MAX_W);
	scratch = malloc((size_t)sb);
	if (!copy || !scratch)
		abort();
	memcpy(copy, data, size);
	{
		ingot_imgdec_params p = { (int64_t)size, MAX_H, MAX_W, format, 1 };
		const void *in[1] = { copy };
		void *o[2] = { out, dims };
		rc = ingot_image_decoder(&p, in, o, scratch, 0, 1);
	}
	if (rc != 0 && rc != INGOT_EINVAL && rc != INGOT_ERANGE)
		abort();
	if (rc == 0 && (dims[0] < 1 || dims[0] > MAX_H || dims[1] < 1 || dims[1] > MAX_W ||
	                dims[2] != (format == INGOT_PIX_GRAY ? 1 : 3)))
		abort();
	if (rc != 0 && (dims[0] != 0 || dims[1] != 0))
		abort();
	free(copy);
	free(scratch);
	return 0;
}
