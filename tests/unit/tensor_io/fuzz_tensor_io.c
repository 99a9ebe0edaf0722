/* fuzz_tensor_io.c — libFuzzer target for the tensor file readers: any bytes must give
 * a status (and, on success, a self-consistent tensor), never a crash or a leak.
 * Linked into test_tensor_io, which drives it with mutated files; standalone:
 *   clang -g -fsanitize=fuzzer,address,undefined -Iruntime-stubs \
 *     tests/unit/tensor_io/fuzz_tensor_io.c runtime-stubs/ingot_tensor_io.c
 */
#include "ingot_tensor_io.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int consistent(const ingot_tensor *t)
{
	size_t es = ingot_tensor_elem_size(t->dtype), i;
	uint64_t n = 1;
	unsigned sum = 0;
	int d;
	if (!es || t->rank < 0 || t->rank > INGOT_MAX_RANK || !t->data)
		return 0;
	for (d = 0; d < t->rank; d++) {
		if (t->dims[d] < 0)
			return 0;
		n *= (uint64_t)t->dims[d];
	}
	if (n * es != t->bytes)
		return 0;
	for (i = 0; i < t->bytes; i++)     /* every byte readable (ASan) and initialized (MSan) */
		sum += ((const uint8_t *)t->data)[i];
	return sum < 0xffffffffu;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int k;
	for (k = 0; k < 3; k++) {
		ingot_tensor t;
		char err[256];
		int rc;
		err[0] = '\0';
		rc = k == 0 ? ingot_tensor_parse(data, size, &t, err, sizeof err)
		   : k == 1 ? ingot_tensor_parse_pb(data, size, &t, err, sizeof err)
		   : ingot_tensor_parse_npy(data, size, &t, err, sizeof err);
		if (rc == 0) {
			if (!consistent(&t))
				abort();
			ingot_tensor_free(&t);
		} else if (rc != -1 || err[0] == '\0' || strchr(err, '\n') || t.data) {
			abort();
		}
	}
	return 0;
}
