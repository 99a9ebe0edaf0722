/* fuzz_tensor.c — fuzz target for the generated runner's tensor readers
 * (runtime-stubs/ingot_tensor_io.c: TensorProto .pb and .npy, chosen by content as
 * the runner does): any bytes give 0 with a consistent tensor (bytes = numel times
 * the element size, every byte readable) or -1 with a one-line reason. */
#include "ingot_tensor_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ingot_tensor t;
	char err[256];
	int rc;
	err[0] = 0;
	memset(&t, 0, sizeof t);
	rc = ingot_tensor_parse(data, size, &t, err, sizeof err);
	if (rc != 0 && (!err[0] || strchr(err, '\n'))) {
		fprintf(stderr, "fuzz_tensor: failure without a one-line reason ('%s')\n", err);
		abort();
	}
	if (rc == 0) {
		size_t numel = 1, es = ingot_tensor_elem_size(t.dtype);
		volatile uint8_t sum = 0;
		if (t.rank < 0 || t.rank > INGOT_MAX_RANK || es == 0)
			abort();
		for (int i = 0; i < t.rank; i++) {
			if (t.dims[i] < 0)
				abort();
			numel *= (size_t)t.dims[i];
		}
		if (t.bytes != numel * es) {
			fprintf(stderr, "fuzz_tensor: %zu bytes for %zu elements of %zu\n", t.bytes, numel, es);
			abort();
		}
		for (size_t i = 0; i < t.bytes; i++)  /* ASan sees a short buffer */
			sum = (uint8_t)(sum + ((const uint8_t *)t.data)[i]);
		(void)sum;
		ingot_tensor_free(&t);
	}
	return 0;
}
