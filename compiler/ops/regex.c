/* regex.c — RegexFullMatch's pattern, compiled at compile time: RE2 syntax is
 * parsed into a small tree, then emitted as the NFA program that
 * runtime-stubs/kernels/regex.c simulates (regex.h documents its layout).
 *
 * Supported (RE2's meaning): literals (UTF-8), `.`, classes `[...]` with ranges,
 * negation, escapes, \d \w \s \D \W \S and [:alpha:]-style POSIX classes; anchors
 * ^ $ \A \z \b \B; groups ( ), (?:...), (?P<name>...), (?<name>...); alternation;
 * * + ? {n} {n,} {n,m} and their lazy forms; \Q...\E; flags (?imsU) and
 * (?imsU:...). Case folding under (?i) covers ASCII, Latin-1, Greek and Cyrillic
 * letters and the Kelvin, Angstrom and long-s signs; other scripts match their own
 * case only. Not RE2 (backreferences, lookaround, possessive `*+`) is an invalid
 * pattern, as in RE2; RE2's Unicode classes (\pL, \p{Greek}) and \C are valid RE2
 * that ingot does not implement (reported as unsupported).
 *
 * The tree makes repetition simple: x{n,m} emits x n times, then m - n optional
 * copies; counted repetitions nest to at most 1000 copies in all, as RE2 checks,
 * and a program holds at most REGEX_MAX_INST instructions, so the kernel's scratch
 * (16 bytes per instruction) stays bounded.
 */
#include "opimpl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regex.h"

#define REGEX_MAX_INST  65536
#define REGEX_MAX_DEPTH 1000     /* group nesting */
#define REGEX_MAX_REPEAT 1000    /* RE2's limit on {n,m}, also for nested counts multiplied */
#define RX_TOP 0x1100ff          /* the largest character: an invalid byte 0xff (regex.h) */

enum { RN_EMPTY, RN_CHAR, RN_ANY, RN_CLASS, RN_NCLASS, RN_ASSERT, RN_CAT, RN_ALT, RN_REPEAT };
enum { RXF_I = 1, RXF_M = 2, RXF_S = 4, RXF_U = 8 };   /* (?i) (?m) (?s) (?U) */

typedef struct RxNode {
	int kind;                /* RN_* */
	int32_t a, b;            /* CHAR: a = code point; ANY: a = matches '\n'; ASSERT: a = INGOT_RX_AT_*;
	                          * CLASS/NCLASS: ranges [a, a + b); REPEAT: min a, max b (-1: none) */
	int kid, last;           /* CAT/ALT: first and last child; REPEAT: the child */
	int next;                /* next sibling */
	bool braces;             /* REPEAT written {n,m}: counts against REGEX_MAX_REPEAT */
} RxNode;

typedef struct RxParser {
	const char *s;           /* the pattern */
	size_t i, n;
	RxNode *nodes;
	int n_nodes, cap_nodes;
	int32_t *ranges;         /* committed (lo, hi) pairs: the program's range table */
	int n_ranges, cap_ranges;
	int32_t *set;            /* the class being built, (lo, hi) pairs */
	int n_set, cap_set;
	int32_t *prog;           /* emitted instructions, 3 words each */
	int n_inst, cap_inst;
	int depth;
	bool quoting;            /* inside \Q...\E */
	bool unsupported;        /* the error is valid RE2 that ingot lacks */
	char *err;
	size_t err_cap;
} RxParser;

static int rx_fail(RxParser *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->err, p->err_cap, fmt, ap);
	va_end(ap);
	return -1;
}

static int rx_unsupported(RxParser *p, const char *what)
{
	p->unsupported = true;
	return rx_fail(p, "%s is not supported", what);
}

static int rx_node(RxParser *p, int kind, int32_t a, int32_t b)
{
	RxNode *nd = VEC_PUSH(p->nodes, p->n_nodes, p->cap_nodes);
	memset(nd, 0, sizeof *nd);
	nd->kind = kind;
	nd->a = a;
	nd->b = b;
	nd->kid = nd->last = nd->next = -1;
	return p->n_nodes - 1;
}

static void rx_append(RxParser *p, int parent, int kid)
{
	RxNode *nd = &p->nodes[parent];
	if (nd->kid < 0)
		nd->kid = kid;
	else
		p->nodes[nd->last].next = kid;
	p->nodes[parent].last = kid;
}

/* ---- character sets ---- */

static void set_add(RxParser *p, int32_t lo, int32_t hi)
{
	vec_reserve((void **)&p->set, &p->cap_set, p->n_set + 2, sizeof *p->set);
	p->set[p->n_set++] = lo;
	p->set[p->n_set++] = hi;
}

static int cmp_range(const void *a, const void *b)
{
	const int32_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Sorts the pairs of set[from..] and merges overlapping or adjacent ones. */
static void set_normalize(RxParser *p, int from)
{
	int n = (p->n_set - from) / 2, k = 0;
	int32_t *r = p->set + from;
	qsort(r, (size_t)n, 2 * sizeof *r, cmp_range);
	for (int i = 0; i < n; i++) {
		if (k > 0 && r[2 * i] <= r[2 * k - 1] + 1) {
			if (r[2 * i + 1] > r[2 * k - 1])
				r[2 * k - 1] = r[2 * i + 1];
		} else {
			r[2 * k] = r[2 * i];
			r[2 * k + 1] = r[2 * i + 1];
			k++;
		}
	}
	p->n_set = from + 2 * k;
}

/* Replaces the pairs of set[from..] by their complement within [0, RX_TOP]. */
static void set_negate(RxParser *p, int from)
{
	int n, k;
	int32_t lo = 0, *old;
	set_normalize(p, from);
	n = (p->n_set - from) / 2;
	old = malloc((size_t)(2 * n + 1) * sizeof *old);
	if (!old)
		die("out of memory");
	memcpy(old, p->set + from, (size_t)(2 * n) * sizeof *old);
	p->n_set = from;
	for (k = 0; k < n; k++) {
		if (old[2 * k] > lo)
			set_add(p, lo, old[2 * k] - 1);
		lo = old[2 * k + 1] + 1;
	}
	if (lo <= RX_TOP)
		set_add(p, lo, RX_TOP);
	free(old);
}

/* Simple case folding: each row maps [lo, hi] to [lo + delta, hi + delta]. Every
 * member of a fold orbit maps to every other one directly, so one pass suffices. */
static const int32_t fold_rows[][3] = {
	{ 'A', 'Z', 32 }, { 'a', 'z', -32 },
	{ 0xc0, 0xd6, 32 }, { 0xd8, 0xde, 32 }, { 0xe0, 0xf6, -32 }, { 0xf8, 0xfe, -32 },
	{ 0x391, 0x3a1, 32 }, { 0x3a3, 0x3ab, 32 }, { 0x3b1, 0x3c1, -32 }, { 0x3c3, 0x3cb, -32 },
	{ 0x386, 0x386, 38 }, { 0x388, 0x38a, 37 }, { 0x38c, 0x38c, 64 }, { 0x38e, 0x38f, 63 },
	{ 0x3ac, 0x3ac, -38 }, { 0x3ad, 0x3af, -37 }, { 0x3cc, 0x3cc, -64 }, { 0x3cd, 0x3ce, -63 },
	{ 0x400, 0x40f, 80 }, { 0x410, 0x42f, 32 }, { 0x430, 0x44f, -32 }, { 0x450, 0x45f, -80 },
	{ 'K', 'K', 0x212a - 'K' }, { 'k', 'k', 0x212a - 'k' },
	{ 0x212a, 0x212a, 'K' - 0x212a }, { 0x212a, 0x212a, 'k' - 0x212a },
	{ 'S', 'S', 0x17f - 'S' }, { 's', 's', 0x17f - 's' },
	{ 0x17f, 0x17f, 'S' - 0x17f }, { 0x17f, 0x17f, 's' - 0x17f },
	{ 0xc5, 0xc5, 0x212b - 0xc5 }, { 0xe5, 0xe5, 0x212b - 0xe5 },
	{ 0x212b, 0x212b, 0xc5 - 0x212b }, { 0x212b, 0x212b, 0xe5 - 0x212b },
	{ 0x3c2, 0x3c2, 0x3c3 - 0x3c2 }, { 0x3c2, 0x3c2, 0x3a3 - 0x3c2 },
	{ 0x3c3, 0x3c3, 0x3c2 - 0x3c3 }, { 0x3a3, 0x3a3, 0x3c2 - 0x3a3 },
};

static void set_fold(RxParser *p, int from)
{
	int end = p->n_set;
	for (int i = from; i < end; i += 2)
		for (size_t r = 0; r < COUNTOF(fold_rows); r++) {
			int32_t lo = p->set[i] > fold_rows[r][0] ? p->set[i] : fold_rows[r][0];
			int32_t hi = p->set[i + 1] < fold_rows[r][1] ? p->set[i + 1] : fold_rows[r][1];
			if (lo <= hi)
				set_add(p, lo + fold_rows[r][2], hi + fold_rows[r][2]);
		}
}

/* Moves the set (from `from`) into the range table as a CLASS or NCLASS node. */
static int set_commit(RxParser *p, int from, bool negated)
{
	set_normalize(p, from);
	int n = (p->n_set - from) / 2, first = p->n_ranges / 2;
	for (int i = from; i < p->n_set; i++)
		*VEC_PUSH(p->ranges, p->n_ranges, p->cap_ranges) = p->set[i];
	p->n_set = from;
	return rx_node(p, negated ? RN_NCLASS : RN_CLASS, first, n);
}

/* A literal code point: a CHAR, or under (?i) the class of its case variants. */
static int rx_literal(RxParser *p, int32_t c, int flags)
{
	int from = p->n_set;
	if (!(flags & RXF_I))
		return rx_node(p, RN_CHAR, c, 0);
	set_add(p, c, c);
	set_fold(p, from);
	set_normalize(p, from);
	if (p->n_set - from == 2 && p->set[from] == p->set[from + 1]) {
		p->n_set = from;
		return rx_node(p, RN_CHAR, c, 0);
	}
	return set_commit(p, from, false);
}

/* \d \s \w (upper case: negated) into the set; 0, or -1 if c is none of them. */
static int set_perl(RxParser *p, int c)
{
	int from = p->n_set;
	switch (c | 0x20) {
	case 'd': set_add(p, '0', '9'); break;
	case 's': set_add(p, '\t', '\n'); set_add(p, '\f', '\r'); set_add(p, ' ', ' '); break;
	case 'w':
		set_add(p, '0', '9');
		set_add(p, 'A', 'Z');
		set_add(p, 'a', 'z');
		set_add(p, '_', '_');
		break;
	default: return -1;
	}
	if (c >= 'A' && c <= 'Z')
		set_negate(p, from);
	return 0;
}

/* [:name:] and [:^name:] at p->i (just after "[:"); 0 or -1. */
static int set_posix(RxParser *p)
{
	static const struct { const char *name; const char *ranges; } cls[] = {
		{ "alnum", "09AZaz" }, { "alpha", "AZaz" }, { "ascii", "\x01\x7f" },
		{ "blank", "\t\t  " }, { "cntrl", "\x01\x1f\x7f\x7f" }, { "digit", "09" },
		{ "graph", "!~" }, { "lower", "az" }, { "print", " ~" },
		{ "punct", "!/:@[`{~" }, { "space", "\t\r  " }, { "upper", "AZ" },
		{ "word", "09AZaz__" }, { "xdigit", "09AFaf" },
	};
	size_t start = p->i;
	bool neg = p->i < p->n && p->s[p->i] == '^';
	const char *end = strstr(p->s + p->i, ":]");
	size_t len;
	int from = p->n_set;
	if (!end)
		return rx_fail(p, "missing ]: %s", p->s);
	len = (size_t)(end - (p->s + p->i)) - neg;
	for (size_t k = 0; k < COUNTOF(cls); k++) {
		if (strlen(cls[k].name) != len || strncmp(cls[k].name, p->s + p->i + neg, len) != 0)
			continue;
		for (const char *r = cls[k].ranges; *r; r += 2)
			set_add(p, (unsigned char)r[0], (unsigned char)r[1]);
		if (strcmp(cls[k].name, "ascii") == 0 || strcmp(cls[k].name, "cntrl") == 0)
			set_add(p, 0, 0);    /* NUL cannot sit in the C string above */
		if (neg)
			set_negate(p, from);
		p->i = (size_t)(end - p->s) + 2;
		return 0;
	}
	return rx_fail(p, "invalid character class range: [:%.*s:]", (int)(end - (p->s + start)),
	               p->s + start);
}

/* ---- lexing ---- */

/* The UTF-8 code point at p->i, advancing; -1 (error set) if invalid. */
static int32_t rx_next_char(RxParser *p)
{
	const unsigned char *s = (const unsigned char *)p->s;
	unsigned b = s[p->i];
	int len = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 :
	          b >= 0xf0 && b < 0xf5 ? 4 : 0;
	int32_t cp = len == 1 ? (int32_t)b : (int32_t)(b & (0x7f >> len));
	for (int k = 1; k < len; k++) {
		if (p->i + (size_t)k >= p->n || (s[p->i + (size_t)k] & 0xc0) != 0x80) {
			len = 0;
			break;
		}
		cp = (cp << 6) | (s[p->i + (size_t)k] & 0x3f);
	}
	if (!len || (len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff)) {
		rx_fail(p, "invalid UTF-8 in pattern at byte %zu", p->i);
		return -1;
	}
	p->i += (size_t)len;
	return cp;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	return (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1;
}

enum { ESC_CHAR, ESC_SET, ESC_ASSERT, ESC_QUOTE };

/* The escape at p->i (just after the backslash): a character (*cp), a perl class
 * added to the set, an assertion (*cp = INGOT_RX_AT_*) or \Q. -1 on error. */
static int rx_escape(RxParser *p, int32_t *cp)
{
	static const char simple[] = "a\af\ft\tn\nr\rv\v";
	size_t at = p->i - 1;
	int c;
	if (p->i >= p->n)
		return rx_fail(p, "trailing \\");
	c = (unsigned char)p->s[p->i++];
	for (const char *e = simple; *e; e += 2)
		if (c == e[0]) {
			*cp = e[1];
			return ESC_CHAR;
		}
	if (c == '0' || (c >= '1' && c <= '7' && p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '7')) {
		*cp = c - '0';      /* octal: up to three digits */
		for (int k = 1; k < 3 && p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '7'; k++)
			*cp = *cp * 8 + (p->s[p->i++] - '0');
		return ESC_CHAR;
	}
	if (c == 'x') {
		int32_t v = 0;
		if (p->i < p->n && p->s[p->i] == '{') {
			size_t k = ++p->i;
			while (p->i < p->n && hexval(p->s[p->i]) >= 0 && v <= 0x10ffff)
				v = v * 16 + hexval(p->s[p->i++]);
			if (p->i == k || p->i >= p->n || p->s[p->i] != '}' || v > 0x10ffff)
				return rx_fail(p, "invalid escape sequence: %.*s", (int)(p->i - at), p->s + at);
			p->i++;
		} else {
			if (p->i + 2 > p->n || hexval(p->s[p->i]) < 0 || hexval(p->s[p->i + 1]) < 0)
				return rx_fail(p, "invalid escape sequence: \\x%.2s", p->s + p->i);
			v = hexval(p->s[p->i]) * 16 + hexval(p->s[p->i + 1]);
			p->i += 2;
		}
		*cp = v;
		return ESC_CHAR;
	}
	if (set_perl(p, c) == 0)
		return ESC_SET;
	switch (c) {
	case 'b': *cp = INGOT_RX_AT_WORD; return ESC_ASSERT;
	case 'B': *cp = INGOT_RX_AT_NOT_WORD; return ESC_ASSERT;
	case 'A': *cp = INGOT_RX_AT_BEGIN_TEXT; return ESC_ASSERT;
	case 'z': *cp = INGOT_RX_AT_END_TEXT; return ESC_ASSERT;
	case 'Q': return ESC_QUOTE;
	case 'p': case 'P': return rx_unsupported(p, "a Unicode class (\\p, \\P)");
	case 'C': return rx_unsupported(p, "\\C (any byte)");
	default: break;
	}
	if (c < 0x80 && !((c | 0x20) >= 'a' && (c | 0x20) <= 'z') && !(c >= '0' && c <= '9')) {
		*cp = c;                 /* escaped punctuation stands for itself */
		return ESC_CHAR;
	}
	p->i = at + 1;
	if (c >= 0x80 && rx_next_char(p) < 0)
		return -1;
	return rx_fail(p, "invalid escape sequence: %.*s", (int)(c < 0x80 ? 2 : p->i - at), p->s + at);
}

/* ---- parsing ---- */

static int parse_alt(RxParser *p, int *flags);

/* [...] at p->i (just after '['). */
static int parse_class(RxParser *p, int flags)
{
	size_t start = p->i - 1;
	int from = p->n_set;
	bool neg = p->i < p->n && p->s[p->i] == '^', first = true;
	p->i += neg;
	for (;;) {
		int32_t lo, hi;
		if (p->i >= p->n)
			return rx_fail(p, "missing ]: %s", p->s + start);
		if (p->s[p->i] == ']' && !first)
			break;
		first = false;
		if (p->s[p->i] == '[' && p->i + 1 < p->n && p->s[p->i + 1] == ':') {
			p->i += 2;
			if (set_posix(p))
				return -1;
			continue;
		}
		size_t item = p->i;
		if (p->s[p->i] == '\\') {
			p->i++;
			int k = rx_escape(p, &lo);
			if (k < 0)
				return -1;
			if (k == ESC_SET)
				continue;
			if (k != ESC_CHAR)
				return rx_fail(p, "invalid escape sequence: %.*s", (int)(p->i - item), p->s + item);
		} else if ((lo = rx_next_char(p)) < 0) {
			return -1;
		}
		hi = lo;
		if (p->i + 1 < p->n && p->s[p->i] == '-' && p->s[p->i + 1] != ']') {
			p->i++;
			if (p->s[p->i] == '\\') {
				p->i++;
				int k = rx_escape(p, &hi);
				if (k < 0)
					return -1;
				if (k != ESC_CHAR)
					return rx_fail(p, "invalid character class range: %.*s",
					               (int)(p->i - item), p->s + item);
			} else if ((hi = rx_next_char(p)) < 0) {
				return -1;
			}
			if (hi < lo)
				return rx_fail(p, "invalid character class range: %.*s", (int)(p->i - item),
				               p->s + item);
		}
		set_add(p, lo, hi);
	}
	p->i++;
	if (flags & RXF_I)
		set_fold(p, from);
	return set_commit(p, from, neg);
}

/* (?flags) or (?flags: at p->i (just after "(?"); sets *f. 1 for ')', 2 for ':'. */
static int parse_flags(RxParser *p, int *f, size_t start)
{
	bool off = false, any = false;
	for (; p->i < p->n; p->i++) {
		int c = p->s[p->i], bit = c == 'i' ? RXF_I : c == 'm' ? RXF_M : c == 's' ? RXF_S :
		                         c == 'U' ? RXF_U : 0;
		if (c == ')' || c == ':') {
			if (!any || (off && p->s[p->i - 1] == '-'))
				break;
			p->i++;
			return c == ')' ? 1 : 2;
		}
		if (c == '-' && !off) {
			off = true;
			continue;
		}
		if (!bit)
			break;
		*f = off ? *f & ~bit : *f | bit;
		any = true;
	}
	return rx_fail(p, "invalid or unsupported Perl syntax: %.*s", (int)(p->i + 1 - start),
	               p->s + start);
}

/* A group at p->i (just after '('): the node, or -2 for a flags-only group (which
 * changes *flags for the rest of the enclosing group). */
static int parse_group(RxParser *p, int *flags)
{
	size_t start = p->i - 1;
	int f = *flags;
	if (++p->depth > REGEX_MAX_DEPTH)
		return rx_fail(p, "pattern nests groups deeper than %d", REGEX_MAX_DEPTH);
	if (p->i < p->n && p->s[p->i] == '?') {
		p->i++;
		const char *r = p->s + p->i;
		if (strncmp(r, "P<", 2) == 0 || (r[0] == '<' && r[1] != '=' && r[1] != '!')) {
			size_t k = p->i += r[0] == 'P' ? 2 : 1;
			while (p->i < p->n && (p->s[p->i] == '_' || ((p->s[p->i] | 0x20) >= 'a' &&
			       (p->s[p->i] | 0x20) <= 'z') || (p->s[p->i] >= '0' && p->s[p->i] <= '9')))
				p->i++;
			if (p->i == k || p->i >= p->n || p->s[p->i] != '>')
				return rx_fail(p, "invalid named capture group: %.*s",
				               (int)(p->i + 1 - start), p->s + start);
			p->i++;
		} else if (r[0] == ':') {
			p->i++;
		} else if (r[0] == '=' || r[0] == '!' || r[0] == '<' || r[0] == 'P') {
			return rx_fail(p, "invalid or unsupported Perl syntax: %.*s (lookaround and "
			               "backreferences are not RE2)", (int)(r[0] == '<' ? 4 : 3), p->s + start);
		} else {
			int k = parse_flags(p, &f, start);
			if (k < 0)
				return -1;
			if (k == 1) {
				*flags = f;
				p->depth--;
				return -2;
			}
		}
	}
	int nd = parse_alt(p, &f);
	if (nd < 0)
		return -1;
	if (p->i >= p->n || p->s[p->i] != ')')
		return rx_fail(p, "missing ): %s", p->s);
	p->i++;
	p->depth--;
	return nd;
}

/* One atom at p->i: the node, -2 when it was only a flags group, -1 on error. */
static int parse_atom(RxParser *p, int *flags)
{
	int32_t c;
	if (p->quoting) {
		if (strncmp(p->s + p->i, "\\E", 2) == 0) {
			p->i += 2;
			p->quoting = false;
			return -2;
		}
		if ((c = rx_next_char(p)) < 0)
			return -1;
		if (strncmp(p->s + p->i, "\\E", 2) == 0) {   /* \Qab\E* repeats the b */
			p->i += 2;
			p->quoting = false;
		}
		return rx_literal(p, c, *flags);
	}
	switch (p->s[p->i]) {
	case '(':
		p->i++;
		return parse_group(p, flags);
	case '[':
		p->i++;
		return parse_class(p, *flags);
	case '.':
		p->i++;
		return rx_node(p, RN_ANY, (*flags & RXF_S) != 0, 0);
	case '^':
		p->i++;
		return rx_node(p, RN_ASSERT, *flags & RXF_M ? INGOT_RX_AT_BEGIN_LINE : INGOT_RX_AT_BEGIN_TEXT, 0);
	case '$':
		p->i++;
		return rx_node(p, RN_ASSERT, *flags & RXF_M ? INGOT_RX_AT_END_LINE : INGOT_RX_AT_END_TEXT, 0);
	case '\\': {
		int from = p->n_set;
		p->i++;
		switch (rx_escape(p, &c)) {
		case ESC_CHAR: return rx_literal(p, c, *flags);
		case ESC_SET: return set_commit(p, from, false);
		case ESC_ASSERT: return rx_node(p, RN_ASSERT, c, 0);
		case ESC_QUOTE: p->quoting = true; return -2;
		default: return -1;
		}
	}
	default:
		return (c = rx_next_char(p)) < 0 ? -1 : rx_literal(p, c, *flags);
	}
}

/* A repetition operator at p->i: 1 with *min, *max set and p->i past it, or 0. A
 * '{' that starts no valid {n}, {n,} or {n,m} is a literal, as in RE2. */
static int parse_repeat_op(RxParser *p, int *min, int *max, bool *braces)
{
	char c = p->i < p->n ? p->s[p->i] : 0;
	*braces = false;
	if (c == '*' || c == '+' || c == '?') {
		*min = c == '+';
		*max = c == '?' ? 1 : -1;
		p->i++;
		return 1;
	}
	if (c != '{')
		return 0;
	size_t k = p->i + 1;
	long lo = -1, hi;
	for (; k < p->n && p->s[k] >= '0' && p->s[k] <= '9'; k++)   /* saturates above 1e5 */
		lo = lo > 100000 ? lo : (lo < 0 ? 0 : lo) * 10 + (p->s[k] - '0');
	if (lo < 0)
		return 0;
	hi = lo;
	if (k < p->n && p->s[k] == ',') {
		k++;
		hi = -1;
		for (; k < p->n && p->s[k] >= '0' && p->s[k] <= '9'; k++)
			hi = hi > 100000 ? hi : (hi < 0 ? 0 : hi) * 10 + (p->s[k] - '0');
	}
	if (k >= p->n || p->s[k] != '}')
		return 0;
	size_t start = p->i;
	p->i = k + 1;
	if (lo > REGEX_MAX_REPEAT || hi > REGEX_MAX_REPEAT || (hi >= 0 && hi < lo))
		return rx_fail(p, "invalid repetition size: %.*s", (int)(p->i - start), p->s + start);
	*min = (int)lo;
	*max = (int)hi;
	*braces = true;
	return 1;
}

/* A sequence of repeated atoms up to '|', ')' or the end. */
static int parse_concat(RxParser *p, int *flags)
{
	int cat = rx_node(p, RN_CAT, 0, 0);
	while (p->i < p->n && (p->quoting || (p->s[p->i] != '|' && p->s[p->i] != ')'))) {
		size_t op_at = p->i;
		int min, max, nd;
		bool braces;
		if (!p->quoting) {
			int k = parse_repeat_op(p, &min, &max, &braces);
			if (k < 0)
				return -1;
			if (k > 0)
				return rx_fail(p, "missing argument to repetition operator: %.*s",
				               (int)(p->i - op_at), p->s + op_at);
		}
		nd = parse_atom(p, flags);
		if (nd == -1)
			return -1;
		if (nd == -2)
			continue;
		op_at = p->i;
		int k = p->quoting ? 0 : parse_repeat_op(p, &min, &max, &braces);
		if (k < 0)
			return -1;
		if (k > 0) {
			if (p->i < p->n && p->s[p->i] == '?')
				p->i++;          /* lazy: the same strings fully match */
			int rep = rx_node(p, RN_REPEAT, min, max);
			p->nodes[rep].kid = nd;
			p->nodes[rep].braces = braces;
			nd = rep;
			size_t again = p->i;
			k = parse_repeat_op(p, &min, &max, &braces);
			if (k < 0)
				return -1;
			if (k > 0)
				return rx_fail(p, "bad repetition operator: %.*s", (int)(p->i - op_at),
				               p->s + op_at);
			p->i = again;
		}
		rx_append(p, cat, nd);
	}
	return cat;
}

static int parse_alt(RxParser *p, int *flags)
{
	int first = parse_concat(p, flags), alt;
	if (first < 0 || p->i >= p->n || p->s[p->i] != '|')
		return first;
	alt = rx_node(p, RN_ALT, 0, 0);
	rx_append(p, alt, first);
	while (p->i < p->n && p->s[p->i] == '|') {
		p->i++;
		int nd = parse_concat(p, flags);
		if (nd < 0)
			return -1;
		rx_append(p, alt, nd);
	}
	return alt;
}

/* ---- emitting the program ---- */

static int emit_inst(RxParser *p, int op, int32_t x, int32_t y)
{
	if (p->n_inst >= REGEX_MAX_INST)
		return rx_fail(p, "pattern too large: over %d NFA instructions", REGEX_MAX_INST);
	vec_reserve((void **)&p->prog, &p->cap_inst, 3 * (p->n_inst + 1), sizeof *p->prog);
	p->prog[3 * p->n_inst] = op;
	p->prog[3 * p->n_inst + 1] = x;
	p->prog[3 * p->n_inst + 2] = y;
	return p->n_inst++;
}

/* Emits node nd; `copies` is how many times counted repetitions around it repeat it. */
static int emit_node(RxParser *p, int nd, int64_t copies)
{
	const RxNode *n = &p->nodes[nd];
	int pc, k;
	switch (n->kind) {
	case RN_EMPTY: return 0;
	case RN_CHAR: return emit_inst(p, INGOT_RX_CHAR, n->a, 0) < 0 ? -1 : 0;
	case RN_ANY: return emit_inst(p, INGOT_RX_ANY, n->a, 0) < 0 ? -1 : 0;
	case RN_CLASS: return emit_inst(p, INGOT_RX_CLASS, n->a, n->b) < 0 ? -1 : 0;
	case RN_NCLASS: return emit_inst(p, INGOT_RX_NCLASS, n->a, n->b) < 0 ? -1 : 0;
	case RN_ASSERT: return emit_inst(p, INGOT_RX_ASSERT, n->a, 0) < 0 ? -1 : 0;
	case RN_CAT:
		for (k = n->kid; k >= 0; k = p->nodes[k].next)
			if (emit_node(p, k, copies))
				return -1;
		return 0;
	case RN_ALT: {
		/* SPLIT next, alt2; e1; JMP end; alt2: SPLIT ... ; e_last; end: */
		int jmps = -1;           /* chain of JMPs to patch, linked through their x */
		for (k = n->kid; k >= 0; k = p->nodes[k].next) {
			int split = -1;
			if (p->nodes[k].next >= 0 && (split = emit_inst(p, INGOT_RX_SPLIT, p->n_inst + 1, 0)) < 0)
				return -1;
			if (emit_node(p, k, copies))
				return -1;
			if (split >= 0) {
				if ((pc = emit_inst(p, INGOT_RX_JMP, jmps, 0)) < 0)
					return -1;
				jmps = pc;
				p->prog[3 * split + 2] = p->n_inst;
			}
		}
		while (jmps >= 0) {
			int prev = p->prog[3 * jmps + 1];
			p->prog[3 * jmps + 1] = p->n_inst;
			jmps = prev;
		}
		return 0;
	}
	case RN_REPEAT: {
		int min = n->a, max = n->b, kid = n->kid;
		if (n->braces) {
			copies *= max >= 0 ? (max > 0 ? max : 1) : (min > 0 ? min : 1);
			if (copies > REGEX_MAX_REPEAT)
				return rx_fail(p, "invalid repetition size: nested counted repetitions "
				               "repeat over %d times", REGEX_MAX_REPEAT);
		}
		for (k = 0; k < min - (max < 0 && min > 0); k++)
			if (emit_node(p, kid, copies))
				return -1;
		if (max < 0 && min > 0) {          /* x+ : L: x; SPLIT L, next */
			pc = p->n_inst;
			if (emit_node(p, kid, copies) || emit_inst(p, INGOT_RX_SPLIT, pc, p->n_inst + 1) < 0)
				return -1;
		} else if (max < 0) {              /* x* : L: SPLIT L+1, end; x; JMP L; end: */
			if ((pc = emit_inst(p, INGOT_RX_SPLIT, p->n_inst + 1, 0)) < 0 ||
			    emit_node(p, kid, copies) || emit_inst(p, INGOT_RX_JMP, pc, 0) < 0)
				return -1;
			p->prog[3 * pc + 2] = p->n_inst;
		} else {                            /* max - min optional copies, skipping to end */
			int first = p->n_inst;
			for (k = min; k < max; k++)
				if (emit_inst(p, INGOT_RX_SPLIT, p->n_inst + 1, -1) < 0 || emit_node(p, kid, copies))
					return -1;
			for (pc = first; pc < p->n_inst; pc++)
				if (p->prog[3 * pc] == INGOT_RX_SPLIT && p->prog[3 * pc + 2] == -1)
					p->prog[3 * pc + 2] = p->n_inst;
		}
		return 0;
	}
	default:
		die("regex: bad node kind %d", n->kind);
	}
}

int regex_compile(Arena *a, const char *pattern, int32_t **prog, int64_t *n_words,
                  char *err, size_t err_cap)
{
	RxParser p;
	int flags = 0, root, rc = -1;
	memset(&p, 0, sizeof p);
	p.s = pattern;
	p.n = strlen(pattern);
	p.err = err;
	p.err_cap = err_cap;
	root = parse_alt(&p, &flags);
	if (root >= 0 && p.i < p.n)
		root = rx_fail(&p, "unexpected ): %s", pattern);
	if (root >= 0 && emit_node(&p, root, 1) == 0 && emit_inst(&p, INGOT_RX_MATCH, 0, 0) >= 0) {
		*n_words = INGOT_RX_HEADER + 3 * (int64_t)p.n_inst + p.n_ranges;
		*prog = arena_array(a, (size_t)*n_words, sizeof **prog);
		(*prog)[0] = INGOT_RX_MAGIC;
		(*prog)[1] = p.n_inst;
		(*prog)[2] = p.n_ranges / 2;
		memcpy(*prog + INGOT_RX_HEADER, p.prog, (size_t)(3 * p.n_inst) * sizeof *p.prog);
		if (p.n_ranges)
			memcpy(*prog + INGOT_RX_HEADER + 3 * p.n_inst, p.ranges, (size_t)p.n_ranges * sizeof *p.ranges);
		rc = 0;
	} else if (p.unsupported) {
		rc = -2;
	}
	free(p.nodes);
	free(p.ranges);
	free(p.set);
	free(p.prog);
	return rc;
}
