/* text.h — reference kernels of string tensors: Cast to and from STRING,
 * StringNormalizer, StringConcat and StringSplit (RegexFullMatch: regex.h). A string element is an INGOT_STRING_CAP-byte slot holding a
 * NUL-terminated, zero-padded byte string (ingot_rt.h). These kernels format and
 * parse numbers with the C library (snprintf, strtod/strtof), which every hosted
 * libc and newlib provide; models without string tensors never include this file.
 */
#ifndef INGOT_KERNELS_TEXT_H
#define INGOT_KERNELS_TEXT_H

#include "ingot_rt.h"

/* y = x converted over n elements, from or to INGOT_DT_STRING (either side may be
 * any element type; string to string copies). Numbers become text as numpy's
 * astype(str) writes them: the shortest digits that read back to the same value
 * in the source's own precision (f16, bf16, f32 or f64), positional for
 * 1e-4 <= |x| < 1e16 ("0.5", "100.0"), else scientific ("1e-05", "1.5e+20"); "nan",
 * "inf", "-inf"; integers in decimal; bools "True"/"False". Text becomes a number
 * as numpy parses it: decimal or exponent notation, "NaN", "INF", "-INF", "+INF" in
 * any case, leading and trailing blanks; text that is not a number gives NaN (to
 * floats) or 0 (to integers), "True"/"False" give 1/0. */
#define INGOT_CAST_STR_FIELDS(F) F(I64, from) F(I64, to) F(I64, n)
INGOT_PARAMS(ingot_cast_str_params, INGOT_CAST_STR_FIELDS)

INGOT_KERNEL int ingot_cast_str(const void *params, const void *const *in, void *const *out,
                                void *scratch, int task, int n_tasks);

/* Values of the `action` field (case_change_action). */
#define INGOT_CASE_NONE  0
#define INGOT_CASE_LOWER 1
#define INGOT_CASE_UPPER 2

/* StringNormalizer: in[0] n strings (shape [n] or [1, n]), in[1] the n_stop
 * stopwords (in[] ends at slot 0 when n_stop is 0). The strings that are not stopwords (compared
 * exactly, or ASCII case-insensitively when case_sensitive is 0) are written to
 * out[0] in order, then their case changed (ASCII letters only; other bytes are
 * kept). out[0] holds up to max(n, 1) slots; out[1] (int64[INGOT_MAX_RANK]) gets the
 * actual dims: [k] or [1, k] (two_dim), and [1] / [1, 1] holding "" when every
 * string was a stopword. Not split across tasks (task 0 does it). */
#define INGOT_STRNORM_FIELDS(F) F(I64, n) F(I64, n_stop) F(I64, action) \
	F(I64, case_sensitive) F(I64, two_dim)
INGOT_PARAMS(ingot_strnorm_params, INGOT_STRNORM_FIELDS)

INGOT_KERNEL int ingot_strnorm(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks);

/* StringConcat: y[i] = a[.] followed by b[.] over the n elements of the output
 * (dims, rank <= 8, row-major); sa/sb are the element strides of a and b per
 * output dim, 0 where broadcast. A result over INGOT_STRING_CAP - 1 bytes is left
 * empty and the kernel returns INGOT_ERANGE. Tasks take disjoint ranges of y. */
#define INGOT_STR_CONCAT_FIELDS(F) F(I64, n) F(I64, rank) F(DIMS, dims) F(DIMS, sa) F(DIMS, sb)
INGOT_PARAMS(ingot_str_concat_params, INGOT_STR_CONCAT_FIELDS)

INGOT_KERNEL int ingot_str_concat(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks);

/* Equal on strings (opset 19): y[i] (bool, one byte) = 1 when a[.] and b[.] hold the
 * same bytes, over the n elements of the output, broadcast as StringConcat (the same
 * params). Tasks take disjoint ranges of y. */
INGOT_KERNEL int ingot_str_equal(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks);

/* StringSplit, as ONNX Runtime does it: each of the n strings of in[0] (shape
 * in_dims, rank < 8) splits on the delimiter in[1] (has_delim; else on runs of
 * spaces, U+0020 only, with leading and trailing spaces dropped), at most maxsplit
 * times when maxsplit >= 0. out[0] (may be NULL) gets the pieces, row i padded with
 * "" to the widest row's count k (the rest of the bound zeroed); out[1] (int64, when has_z) each row's count. The
 * last dim is data-dependent: the compiler sizes out[0] as in_dims + [bound], bound
 * an upper bound (a 63-byte string has at most 64 pieces on a 1-byte delimiter,
 * 63 / len + 1 in general, 32 on spaces, maxsplit + 1 at most), and with dims_slot >= 0
 * the actual dims (in_dims + [k]) go to out[dims_slot]; with dims_slot < 0 the
 * shape is static and bound is k. Not split across tasks (task 0 does it). */
#define INGOT_STR_SPLIT_FIELDS(F) F(I64, n) F(I64, rank) F(DIMS, in_dims) F(I64, bound) \
	F(I64, maxsplit) F(I64, has_delim) F(I64, has_z) F(I64, dims_slot)
INGOT_PARAMS(ingot_str_split_params, INGOT_STR_SPLIT_FIELDS)

INGOT_KERNEL int ingot_str_split(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks);

#endif /* INGOT_KERNELS_TEXT_H */
