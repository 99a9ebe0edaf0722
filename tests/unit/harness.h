/* harness.h — the check harness every C test program shares: the failure count, CHECK,
 * CHECK_AT and harness_done. It needs only the C library, so the stubs-only tests (par,
 * tensor_io), the cross-compiled tests/cross/neon_kernels.c and the C program of
 * tests/driver/test_api.py use it too; harness_float.h adds `ingot check`'s comparison
 * rule on IR dtypes. Users: tests/unit/<group>/test_*.c (include "../harness.h" or
 * "../harness_float.h" once per program), tests/cross/neon_kernels.c, tests/driver/test_api.py.
 *
 *     CHECK(n == 3);                          file:line: check failed: n == 3
 *     CHECK(n == 3, "%s: n = %d", name, n);   file:line: NAME: n = 4
 *     return harness_done("group");           "group: N failure(s)", exit status 1
 */
#ifndef INGOT_TEST_HARNESS_H
#define INGOT_TEST_HARNESS_H

#include <stdarg.h>
#include <stdio.h>

static int failures;

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4)))
#endif
static inline void harness_fail(const char *file, int line, const char *fmt, ...);

/* Counts a failure and reports it on stderr as "file:line: message". */
static inline void harness_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	failures++;
	fprintf(stderr, "%s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* CHECK(cond) and CHECK(cond, fmt, ...): a failure when cond is false, reported at the
 * CHECK's file:line with the message, or "check failed: COND" without one.
 * CHECK_AT(file, line, cond[, fmt, ...]) reports at a caller's line (helpers that take
 * __LINE__). HARNESS_PICK_ counts the arguments without an empty __VA_ARGS__ (ISO C99/C11
 * require one): cond alone selects HARNESS_CHECK1_, 2 to 20 arguments HARNESS_CHECKN_. */
#define CHECK(...) HARNESS_CHECK_(__FILE__, __LINE__, #__VA_ARGS__, __VA_ARGS__)
#define CHECK_AT(file, line, ...) HARNESS_CHECK_(file, line, #__VA_ARGS__, __VA_ARGS__)
#define HARNESS_CHECK_(file, line, text, ...) \
	HARNESS_PICK_(__VA_ARGS__, HARNESS_N19_, HARNESS_CHECK1_, 0)(file, line, text, __VA_ARGS__)
#define HARNESS_N19_ HARNESS_CHECKN_, HARNESS_CHECKN_, HARNESS_CHECKN_, HARNESS_CHECKN_, \
	HARNESS_CHECKN_, HARNESS_CHECKN_, HARNESS_CHECKN_, HARNESS_CHECKN_, HARNESS_CHECKN_, \
	HARNESS_CHECKN_, HARNESS_CHECKN_, HARNESS_CHECKN_, HARNESS_CHECKN_, HARNESS_CHECKN_, \
	HARNESS_CHECKN_, HARNESS_CHECKN_, HARNESS_CHECKN_, HARNESS_CHECKN_, HARNESS_CHECKN_
#define HARNESS_PICK_(...) HARNESS_PICK21_(__VA_ARGS__)
#define HARNESS_PICK21_(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, \
                        a17, a18, a19, a20, name, ...) name
#define HARNESS_CHECK1_(file, line, text, cond) do { \
	if (!(cond)) \
		harness_fail(file, line, "check failed: %s", text); \
} while (0)
#define HARNESS_CHECKN_(file, line, text, cond, ...) do { \
	if (!(cond)) \
		harness_fail(file, line, __VA_ARGS__); \
} while (0)

/* The end of main: "NAME: N failure(s)" on stderr and 1 after failures, else
 * "NAME: all checks passed" on stdout and 0. */
static inline int harness_done(const char *name)
{
	if (failures) {
		fprintf(stderr, "%s: %d failure(s)\n", name, failures);
		return 1;
	}
	printf("%s: all checks passed\n", name);
	return 0;
}

#endif
