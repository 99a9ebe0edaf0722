/* fuzz_imgdec.c — ImageDecoder's kernel on damaged images: every file given (a
 * valid image) is truncated at many lengths and has bits flipped and bytes
 * overwritten (a fixed pseudo-random sequence), and each variant is decoded from a
 * buffer of exactly its size, so ASan (CI's sanitizer build) sees any read past it.
 * Every decode must return 0, INGOT_EINVAL or INGOT_ERANGE with dims inside the
 * bound. usage: fuzz_imgdec N_VARIANTS FILE...   Prints one summary line per file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imgdec.h"

#define MAX_H 256
#define MAX_W 256

static uint32_t rng_state = 12345u;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

/* Decodes data[0, n) (copied into a buffer of exactly n bytes); -1 on a broken contract. */
static int decode(const uint8_t *data, size_t n, int format, int *ok)
{
	uint8_t *copy = malloc(n ? n : 1), *out = malloc(MAX_H * MAX_W * 3);
	int64_t dims[INGOT_MAX_RANK], sb = ingot_imgdec_scratch_bytes((int64_t)n, MAX_H, MAX_W);
	void *scratch = malloc((size_t)sb);
	ingot_imgdec_params p = { (int64_t)n, MAX_H, MAX_W, format, 1 };
	const void *in[1];
	void *o[2];
	int rc, bad = 0;
	if (!copy || !out || !scratch) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	memcpy(copy, data, n);
	in[0] = copy;
	o[0] = out;
	o[1] = dims;
	rc = ingot_image_decoder(&p, in, o, scratch, 0, 1);
	if (rc != 0 && rc != INGOT_EINVAL && rc != INGOT_ERANGE)
		bad = 1;
	if (rc == 0 && (dims[0] < 1 || dims[0] > MAX_H || dims[1] < 1 || dims[1] > MAX_W ||
	                dims[2] != (format == INGOT_PIX_GRAY ? 1 : 3)))
		bad = 1;
	if (rc != 0 && (dims[0] != 0 || dims[1] != 0))
		bad = 1;                 /* a failed decode reports an empty image */
	if (bad)
		fprintf(stderr, "rc %d, dims %lld x %lld x %lld, %zu bytes\n", rc, (long long)dims[0],
		        (long long)dims[1], (long long)dims[2], n);
	*ok += rc == 0;
	free(copy);
	free(out);
	free(scratch);
	return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
	int n_var = argc > 1 ? atoi(argv[1]) : 0, fail = 0;
	if (argc < 3 || n_var <= 0) {
		fprintf(stderr, "usage: fuzz_imgdec N_VARIANTS FILE...\n");
		return 2;
	}
	for (int f = 2; f < argc; f++) {
		static uint8_t data[1 << 20], buf[1 << 20];
		FILE *fp = fopen(argv[f], "rb");
		size_t n;
		int ok = 0, v;
		if (!fp) {
			fprintf(stderr, "%s: cannot open\n", argv[f]);
			return 1;
		}
		n = fread(data, 1, sizeof data, fp);
		fclose(fp);
		if (decode(data, n, INGOT_PIX_RGB, &ok) || ok != 1) {
			fprintf(stderr, "%s: the intact image does not decode\n", argv[f]);
			fail = 1;
			continue;
		}
		for (v = 0; v < n_var; v++) {
			size_t len = n, k;
			memcpy(buf, data, n);
			switch (v % 4) {
			case 0:              /* truncated */
				len = rnd() % n;
				break;
			case 1:              /* a few bits flipped */
				for (k = 0; k < 1 + rnd() % 4; k++)
					buf[rnd() % n] ^= (uint8_t)(1u << (rnd() % 8));
				break;
			case 2:              /* bytes overwritten, header fields likely */
				for (k = 0; k < 1 + rnd() % 3; k++)
					buf[rnd() % (n < 64 ? n : 64)] = (uint8_t)rnd();
				break;
			default:             /* flipped and truncated */
				buf[rnd() % n] ^= (uint8_t)(1u << (rnd() % 8));
				len = n / 2 + rnd() % (n - n / 2);
				break;
			}
			if (decode(buf, len, (int)(rnd() % 3), &ok)) {
				fprintf(stderr, "%s: variant %d broke the contract\n", argv[f], v);
				fail = 1;
				break;
			}
		}
		printf("%s: %d variants, %d decoded\n", argv[f], n_var, ok - 1);
	}
	return fail;
}
