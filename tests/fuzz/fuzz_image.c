/* fuzz_image.c — fuzz target for ImageDecoder's kernel (PNG, JPEG, BMP, PNM as
 * runtime-stubs/kernels/imgdec*.c decode them): the first byte picks the pixel format,
 * the rest is the file, decoded from a buffer of exactly its size. Every decode
 * returns 0 with dims inside the bound, or INGOT_EINVAL/INGOT_ERANGE with empty dims.
 *
 * The scratch (up to ~750 KB for the 256x256 bound) is one buffer kept across inputs:
 * a fresh malloc of that size is an mmap and munmap per input under ASan, and those
 * page faults and TLB flushes were 60% of the run (430 exec/s). Each input gets the
 * buffer's last `sb` bytes, so an overrun still meets the allocation's redzone; the
 * bytes before them are poisoned, so an underrun is reported too; and the region is
 * refilled with ASan's malloc byte so nothing carries over from the previous input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imgdec.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(FUZZ_ASAN)
#define FUZZ_ASAN 1
#endif
#ifdef FUZZ_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* The last `n` bytes of a buffer kept across calls (grown when too small), the rest
 * poisoned, filled with 0xbe (what ASan's malloc writes). */
static void *scratch_tail(size_t n)
{
	static uint8_t *buf;
	static size_t cap;
	if (n > cap) {
		free(buf);
		buf = malloc(n);
		if (!buf)
			abort();
		cap = n;
	}
	UNPOISON(buf, cap);
	POISON(buf, cap - n);
	memset(buf + (cap - n), 0xbe, n);
	return buf + (cap - n);
}

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
	if (!copy || sb < 0)
		abort();
	scratch = scratch_tail((size_t)sb);
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
	return 0;
}
