/* ingot_tensor_io.c — TensorProto / .npy reader and writer (placeholder). */
#include "ingot_tensor_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

INGOT_TENSOR_IO_API int ingot_tensor_parse_pb(const uint8_t *buf, size_t len, ingot_tensor *t,
                                              char *err, size_t cap)
{
	(void)buf; (void)len; (void)t;
	snprintf(err, cap, "not implemented");
	return -1;
}

INGOT_TENSOR_IO_API int ingot_tensor_read(const char *path, ingot_tensor *t, char *err, size_t cap)
{
	(void)path; (void)t;
	snprintf(err, cap, "not implemented");
	return -1;
}

INGOT_TENSOR_IO_API int ingot_tensor_write(const char *path, const ingot_tensor *t, char *err, size_t cap)
{
	(void)path; (void)t;
	snprintf(err, cap, "not implemented");
	return -1;
}

INGOT_TENSOR_IO_API void ingot_tensor_free(ingot_tensor *t)
{
	free(t->data);
	t->data = NULL;
}
