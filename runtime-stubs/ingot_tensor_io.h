/* ingot_tensor_io.h — reading and writing tensors as ONNX TensorProto (.pb) and
 * numpy (.npy) files, for generated executables and for `ingot check`.
 * Hosted C (stdio): never part of a model's library, only of its runner.
 *
 *     ingot_tensor t;
 *     if (ingot_tensor_read("input_0.pb", &t, err, sizeof err) == 0) { ...; ingot_tensor_free(&t); }
 */
#ifndef INGOT_TENSOR_IO_H
#define INGOT_TENSOR_IO_H

#include <stddef.h>
#include <stdint.h>

#include "ingot_rt.h"

typedef struct ingot_tensor {
	char name[256];                  /* TensorProto name ("" for .npy) */
	int dtype;                       /* INGOT_DT_* */
	int rank;
	int64_t dims[INGOT_MAX_RANK];
	size_t bytes;                    /* numel * element size (strings: INGOT_STRING_CAP slots) */
	void *data;                      /* malloc-owned, little-endian, row-major */
} ingot_tensor;

#ifndef INGOT_TENSOR_IO_API
#define INGOT_TENSOR_IO_API
#endif

/* Reads a .pb (TensorProto: raw_data or any typed *_data field) or .npy file
 * (chosen by content: .npy starts with "\x93NUMPY"). Returns 0, or -1 with a one-line
 * reason in err (without the path: callers print "PATH: reason"). Strings
 * (string_data) are read into zero-padded INGOT_STRING_CAP slots; a longer one is an
 * error. */
INGOT_TENSOR_IO_API int ingot_tensor_read(const char *path, ingot_tensor *t, char *err, size_t cap);
/* Parses a TensorProto from memory. */
INGOT_TENSOR_IO_API int ingot_tensor_parse_pb(const uint8_t *buf, size_t len, ingot_tensor *t,
                                              char *err, size_t cap);
/* Writes a TensorProto with raw_data (string_data for strings) (.pb) or, when path
 * ends in ".npy", an .npy file (not for strings). */
INGOT_TENSOR_IO_API int ingot_tensor_write(const char *path, const ingot_tensor *t, char *err, size_t cap);
INGOT_TENSOR_IO_API void ingot_tensor_free(ingot_tensor *t);

/* Parses a .npy file from memory (versions 1.0, 2.0, 3.0; C order; the dtypes above,
 * big-endian ones byte-swapped). npy has no bfloat16: written as '<u2', read as uint16. */
INGOT_TENSOR_IO_API int ingot_tensor_parse_npy(const uint8_t *buf, size_t len, ingot_tensor *t,
                                               char *err, size_t cap);
/* Parses either format from memory, chosen by content as ingot_tensor_read does. */
INGOT_TENSOR_IO_API int ingot_tensor_parse(const uint8_t *buf, size_t len, ingot_tensor *t,
                                           char *err, size_t cap);
/* Bytes per element of an INGOT_DT_* type this file can carry; 0 for the others
 * (undefined, complex, unknown); INGOT_STRING_CAP for strings. */
INGOT_TENSOR_IO_API size_t ingot_tensor_elem_size(int dtype);
/* numpy's name of an INGOT_DT_* type ("float32", "bfloat16"), for messages. */
INGOT_TENSOR_IO_API const char *ingot_tensor_dtype_name(int dtype);
/* "float32[2,3]": a type for messages, into s (cut short if it does not fit). */
INGOT_TENSOR_IO_API void ingot_tensor_shape_str(char *s, size_t cap, int dtype, int rank,
                                                const int64_t *dims);

#endif /* INGOT_TENSOR_IO_H */
