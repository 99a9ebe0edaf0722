/* test_regex.c — unit test of RegexFullMatch's engine: the RE2-subset compiler
 * (compiler/ops/regex.c) and the Thompson NFA kernel (runtime-stubs/kernels/regex.c).
 * Expected results follow RE2's documented full-match semantics (tests/ort compares
 * many patterns with RE2 itself through ONNX Runtime); this test adds what ORT
 * cannot show: RE2's error messages for invalid patterns, valid RE2 that ingot
 * rejects as unsupported, the size limits, linear time on patterns that make
 * backtracking engines explode, invalid UTF-8 and unterminated slots in the input,
 * a damaged program, splitting the strings over tasks, and random patterns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "opimpl.h"
#include "regex.h"
#include "../harness.h"

/* Runs the kernel on n slots with program prog over n_tasks tasks; returns its code. */
static int run(const int32_t *prog, int64_t words, const ingot_str *x, int64_t n, bool *y, int n_tasks)
{
	ingot_regex_params p = { n, words };
	int32_t *scratch = calloc((size_t)(words > 1 && prog[1] > 0 ? prog[1] : 1), 4 * sizeof(int32_t));
	const void *in[2] = { x, prog };
	void *out[1] = { y };
	int rc = 0;
	for (int t = 0; t < n_tasks && rc == 0; t++)
		rc = ingot_regex_full_match(&p, in, out, scratch, t, n_tasks);
	free(scratch);
	return rc;
}

/* Whether pattern fully matches s (-1: the pattern did not compile). */
static int match(const char *pattern, const char *s)
{
	Arena a;
	int32_t *prog;
	int64_t words;
	char err[256];
	ingot_str x;
	bool y = false;
	int r = -1;
	arena_init(&a);
	memset(&x, 0, sizeof x);
	strncpy(x.s, s, sizeof x.s - 1);
	if (regex_compile(&a, pattern, &prog, &words, err, sizeof err) == 0)
		r = run(prog, words, &x, 1, &y, 1) == 0 ? y : -1;
	arena_free(&a);
	return r;
}

static void test_matches(void)
{
	static const struct { const char *pat, *s; int want; } cases[] = {
		{ "abc", "abc", 1 }, { "abc", "abcd", 0 }, { "abc", "ab", 0 }, { "", "", 1 }, { "", "a", 0 },
		{ "a|ab", "ab", 1 },                    /* full match: any alternative may cover it */
		{ "(a|ab)(c|bcd)", "abcd", 1 },
		{ "a.c", "a\xc3\xa9" "c", 1 },           /* . is one code point, not one byte */
		{ "a..c", "a\xc3\xa9" "c", 0 },
		{ ".", "\n", 0 }, { "(?s).", "\n", 1 }, { "[^a]", "\n", 1 },
		{ "\\s", "\v", 0 }, { "\\s", "\f", 1 }, { "\\S+", "ab", 1 },
		{ "\\d+", "0123456789", 1 }, { "\\d", "\xd9\xa3", 0 },   /* \d is ASCII only */
		{ "\\w+", "a_Z9", 1 }, { "\\W", "-", 1 }, { "\\W", "_", 0 },
		{ "[\\D]", "x", 1 }, { "[\\D]", "5", 0 }, { "[^\\d\\s]+", "ab", 1 }, { "[^\\d\\s]+", "a b", 0 },
		{ "[a-c-]+", "a-c", 1 }, { "[]a]+", "]a", 1 }, { "[^]a]", "b", 1 },
		{ "[[:alpha:]]+", "abC", 1 }, { "[[:^alpha:]]", "1", 1 }, { "[[:^alpha:]]", "a", 0 },
		{ "[[:xdigit:]]+", "09afAF", 1 }, { "[[:punct:]]+", "!/:@[`{~", 1 },
		{ "colou?r", "color", 1 }, { "colou?r", "colour", 1 }, { "colou?r", "colouur", 0 },
		{ "a{3}", "aaa", 1 }, { "a{3}", "aa", 0 }, { "a{2,}", "aaaaa", 1 }, { "a{2,}", "a", 0 },
		{ "a{2,3}", "aaa", 1 }, { "a{2,3}", "aaaa", 0 }, { "a{0}b", "b", 1 }, { "(ab){0,2}", "abab", 1 },
		{ "a{,2}", "a{,2}", 1 },                /* not a repetition: literal braces */
		{ "x{", "x{", 1 }, { "a*?b+?c??", "aabb", 1 }, { "(?U)a+", "aaa", 1 },
		{ "^abc$", "abc", 1 }, { "a^b", "ab", 0 }, { "a$b", "ab", 0 }, { "\\Aab\\z", "ab", 1 },
		{ "(?m)a$\\n^b", "a\nb", 1 }, { "a$\\nb", "a\nb", 0 },
		{ "a\\bb", "ab", 0 }, { "a\\b b", "a b", 1 }, { "a\\Bb", "ab", 1 }, { "\\b", "", 0 }, { "\\B", "", 1 },
		{ "(?i)hello", "HeLLo", 1 }, { "(?i)caf\xc3\xa9", "CAF\xc3\x89", 1 },
		{ "(?i)k", "\xe2\x84\xaa", 1 },         /* the Kelvin sign folds to k */
		{ "(?i)[a-c]+", "AbC", 1 }, { "(?i)[^k]", "K", 0 },
		{ "(?i)a(?-i)b", "Ab", 1 }, { "(?i)a(?-i)b", "AB", 0 }, { "(?i:a)b", "Ab", 1 }, { "(?i:a)b", "AB", 0 },
		{ "a(?i)b|c", "aC", 0 }, { "a(?i)b|c", "C", 1 },   /* flags last to the group's end */
		{ "\\x41\\x{e9}", "A\xc3\xa9", 1 }, { "\\101", "A", 1 }, { "\\0", "", 0 },
		{ "\\Qa.b*\\E+", "a.b**", 1 }, { "\\Qa.b", "a.b", 1 }, { "\\.\\*\\\\", ".*\\", 1 },
		{ "\\t\\n\\r\\f\\v\\a", "\t\n\r\f\v\a", 1 },
		{ "(?P<y>\\d{4})-(?<m>\\d\\d)", "2024-05", 1 }, { "(?:ab)+", "abab", 1 },
		{ "(a*)*b", "aaab", 1 }, { "(a*)+", "", 1 }, { "(|a)+", "aa", 1 }, { "()", "", 1 },
		{ "\xe6\x97\xa5+", "\xe6\x97\xa5\xe6\x97\xa5", 1 }, { "[\xe6\x97\xa5-\xe6\x97\xa7]", "\xe6\x97\xa6", 1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int got = match(cases[i].pat, cases[i].s);
		CHECK(got == cases[i].want, "/%s/ on \"%s\": got %d, expected %d", cases[i].pat, cases[i].s,
		      got, cases[i].want);
	}
}

static void test_errors(void)
{
	static const struct { const char *pat, *msg; int rc; } cases[] = {
		{ "a**", "bad repetition operator: **", -1 }, { "a++", "bad repetition operator: ++", -1 },
		{ "a{2}{3}", "bad repetition operator: {2}{3}", -1 }, { "a*??", "bad repetition operator", -1 },
		{ "*a", "missing argument to repetition operator: *", -1 },
		{ "(+)", "missing argument to repetition operator: +", -1 },
		{ "a|?", "missing argument to repetition operator: ?", -1 },
		{ "a{1001}", "invalid repetition size: {1001}", -1 },
		{ "a{2,1}", "invalid repetition size: {2,1}", -1 },
		{ "(a{500}){3}", "invalid repetition size", -1 },
		{ "(a", "missing ): (a", -1 }, { "a)", "unexpected ): a)", -1 },
		{ "[a", "missing ]: [a", -1 }, { "[z-a]", "invalid character class range: z-a", -1 },
		{ "[[:foo:]]", "invalid character class range: [:foo:]", -1 },
		{ "\\1", "invalid escape sequence: \\1", -1 }, { "\\q", "invalid escape sequence: \\q", -1 },
		{ "\\Z", "invalid escape sequence: \\Z", -1 }, { "a\\", "trailing \\", -1 },
		{ "\\x{110000}", "invalid escape sequence", -1 }, { "\\xg", "invalid escape sequence", -1 },
		{ "(?=a)", "(?=", -1 }, { "(?!a)", "(?!", -1 }, { "(?<=a)", "(?<=", -1 },
		{ "(?P=n)", "backreferences", -1 }, { "(?x)a", "invalid or unsupported Perl syntax", -1 },
		{ "(?i", "invalid or unsupported Perl syntax", -1 }, { "(?P<>a)", "invalid named capture group", -1 },
		{ "a\xff", "invalid UTF-8", -1 },
		{ "\\pL", "Unicode class", -2 }, { "\\p{Greek}", "Unicode class", -2 }, { "\\C", "\\C", -2 },
	};
	Arena a;
	arena_init(&a);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char err[256] = "";
		int32_t *prog;
		int64_t words;
		int rc = regex_compile(&a, cases[i].pat, &prog, &words, err, sizeof err);
		CHECK(rc == cases[i].rc && strstr(err, cases[i].msg), "/%s/: got %d '%s', expected %d '%s'",
		      cases[i].pat, rc, err, cases[i].rc, cases[i].msg);
	}
	arena_free(&a);
}

/* Big programs: 1000 copies are fine, more than 65536 instructions are not. */
static void test_limits(void)
{
	char pat[8192], err[256];
	int32_t *prog;
	int64_t words;
	Arena a;
	arena_init(&a);
	CHECK(regex_compile(&a, "\\w{1000}", &prog, &words, err, sizeof err) == 0, "\\w{1000}: %s", err);
	pat[0] = '\0';
	for (int i = 0; i < 70; i++)
		snprintf(pat + strlen(pat), sizeof pat - strlen(pat), "%sa{1000}", i ? "|" : "");
	CHECK(regex_compile(&a, pat, &prog, &words, err, sizeof err) == -1 && strstr(err, "too large"),
	      "70 x a{1000}: expected 'pattern too large', got '%s'", err);
	memset(pat, '(', 1001);
	pat[1001] = '\0';
	CHECK(regex_compile(&a, pat, &prog, &words, err, sizeof err) == -1 && strstr(err, "deeper"),
	      "1001 open groups: expected a nesting error, got '%s'", err);
	arena_free(&a);
}

/* Patterns that take exponential time in a backtracking engine run in
 * O(length * program size) here: 63 characters never take long. */
static void test_linear(void)
{
	static const char *const pats[] = { "(a*)*b", "(a|aa)*c", "(x+x+)+y", "(a?){63}a{63}b",
	                                     "(.*)*(.*)*(.*)*z" };
	char s[64];
	memset(s, 'a', 63);
	s[63] = '\0';
	for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
		for (int k = 0; k < 200; k++)
			CHECK(match(pats[i], s) == 0, "/%s/ on 63 a's: expected no match", pats[i]);
	}
	CHECK(match("(a?){63}a{63}", s) == 1, "(a?){63}a{63} must match 63 a's");
}

/* Input edge cases, a damaged program, tasks. */
static void test_kernel(void)
{
	Arena a;
	int32_t *prog, bad[64];
	int64_t words;
	char err[256];
	ingot_str x[5];
	bool y[5], y3[5];
	arena_init(&a);
	CHECK(regex_compile(&a, "[^a]", &prog, &words, err, sizeof err) == 0, "%s", err);
	memset(x, 0, sizeof x);
	strcpy(x[0].s, "\xff");                 /* an invalid byte: one character of its own */
	strcpy(x[1].s, "\xc3");                 /* a sequence cut short */
	strcpy(x[2].s, "\xe2\x84\xaa");         /* one code point, three bytes */
	strcpy(x[3].s, "aa");
	memset(x[4].s, 'b', sizeof x[4].s);    /* no NUL: the first 63 bytes count */
	CHECK(run(prog, words, x, 5, y, 1) == 0, "run");
	for (int i = 0; i < 5; i++)
		CHECK(y[i] == (i < 3), "/[^a]/ on string %d: got %d", i, y[i]);
	for (int k = 62; k <= 64; k++) {        /* an unterminated slot reads as 63 bytes */
		char pat[16];
		int32_t *p2;
		int64_t w2;
		snprintf(pat, sizeof pat, "b{%d}", k);
		CHECK(regex_compile(&a, pat, &p2, &w2, err, sizeof err) == 0 &&
		      run(p2, w2, &x[4], 1, &y[4], 1) == 0 && y[4] == (k == 63), "/%s/ on a full slot", pat);
	}
	CHECK(match("\\xff", "\xff") == 0 && match("\\x{ff}", "\xc3\xbf") == 1, "invalid byte vs U+00FF");
	CHECK(match("a", "\xff") == 0 && match("..", "\xc3") == 0, "invalid bytes match only . and [^...]");
	CHECK(run(prog, words, x, 5, y3, 3) == 0 && memcmp(y, y3, sizeof y) == 0, "3 tasks differ from 1");
	/* damaged programs: INGOT_EINVAL, never a wild read */
	CHECK(words <= (int64_t)(sizeof bad / sizeof bad[0]), "program too big for the test");
	memcpy(bad, prog, (size_t)words * sizeof *bad);
	bad[0] ^= 1;
	CHECK(run(bad, words, x, 1, y, 1) == INGOT_EINVAL, "bad magic accepted");
	memcpy(bad, prog, (size_t)words * sizeof *bad);
	bad[INGOT_RX_HEADER] = INGOT_RX_JMP;
	bad[INGOT_RX_HEADER + 1] = bad[1];
	CHECK(run(bad, words, x, 1, y, 1) == INGOT_EINVAL, "jump past the end accepted");
	memcpy(bad, prog, (size_t)words * sizeof *bad);
	bad[INGOT_RX_HEADER + 2] = bad[2] + 1;  /* the class reads one range too many */
	CHECK(run(bad, words, x, 1, y, 1) == INGOT_EINVAL, "class past the range table accepted");
	CHECK(run(prog, words - 1, x, 1, y, 1) == INGOT_EINVAL, "wrong size accepted");
	arena_free(&a);
}

/* Random patterns over regex syntax: the compiler either rejects one with a message
 * or yields a program the kernel accepts and runs (under ASan/UBSan in CI). */
static void test_random_patterns(void)
{
	static const char alpha[] = "ab.()[]{}*+?|^$\\-,0123:dDwWsSbBAzQEPpx=!<>iUms\xc3\xa9\xff";
	unsigned seed = 12345;
	ingot_str x[3];
	bool y[3];
	memset(x, 0, sizeof x);
	strcpy(x[0].s, "ab");
	strcpy(x[1].s, "a\xc3\xa9-b,1");
	memset(x[2].s, 'a', sizeof x[2].s);
	for (int it = 0; it < 20000; it++) {
		char pat[24], err[256] = "";
		int32_t *prog;
		int64_t words;
		int n = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 16, rc;
		Arena a;
		for (int k = 0; k < n; k++) {
			seed = seed * 1103515245u + 12345u;
			pat[k] = alpha[(seed >> 16) % (sizeof alpha - 1)];
		}
		pat[n] = '\0';
		arena_init(&a);
		rc = regex_compile(&a, pat, &prog, &words, err, sizeof err);
		if (rc == 0)
			CHECK(run(prog, words, x, 3, y, 1) == 0, "/%s/: the kernel rejects its program", pat);
		else
			CHECK((rc == -1 || rc == -2) && err[0], "/%s/: rc %d without a message", pat, rc);
		arena_free(&a);
	}
}

int main(void)
{
	test_matches();
	test_errors();
	test_limits();
	test_linear();
	test_kernel();
	test_random_patterns();
	return harness_done("regex");
}
