/* text.c — reference kernels of string tensors (Cast to/from STRING,
 * StringNormalizer, StringConcat, StringSplit). Every string is read within its
 * INGOT_STRING_CAP slot (an unterminated slot counts as its first
 * INGOT_STRING_CAP - 1 bytes) and written zero-padded, so outputs compare
 * bytewise and never leak old workspace bytes.
 */
#include "text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- numbers to text ---- */

/* Whether text t reads back to v in the precision of dt. */
static INGOT_UNUSED int txt_roundtrips(const char *t, double v, int64_t dt)
{
	switch (dt) {
	case INGOT_DT_F64: return strtod(t, NULL) == v;
	case INGOT_DT_F16: return ingot_f32_to_f16(strtof(t, NULL)) == ingot_f32_to_f16((float)v);
	case INGOT_DT_BF16: return ingot_f32_to_bf16(strtof(t, NULL)) == ingot_f32_to_bf16((float)v);
	default: return strtof(t, NULL) == (float)v;
	}
}

/* numpy's repr of a finite float: shortest round-trip digits, then positional or
 * scientific notation by magnitude. */
static INGOT_UNUSED void txt_float(char *out, double v, int64_t dt)
{
	char e[40], digits[24];
	int p, n = 0, exp10, i, pos = 0;
	const char *c;
	if (isnan(v)) { strcpy(out, "nan"); return; }
	if (isinf(v)) { strcpy(out, v < 0 ? "-inf" : "inf"); return; }
	if (v == 0) { strcpy(out, signbit(v) ? "-0.0" : "0.0"); return; }
	for (p = 1; p <= 17; p++) {
		snprintf(e, sizeof e, "%.*e", p - 1, v);
		if (txt_roundtrips(e, v, dt))
			break;
	}
	/* e = [-]d[.ddd]e(+|-)XX: the digits without the point, and the exponent */
	c = e;
	if (*c == '-')
		c++;
	for (; *c && *c != 'e'; c++)
		if (*c >= '0' && *c <= '9' && n < (int)sizeof digits - 1)
			digits[n++] = *c;
	digits[n] = '\0';
	exp10 = *c == 'e' ? atoi(c + 1) : 0;
	while (n > 1 && digits[n - 1] == '0')
		digits[--n] = '\0';
	if (v < 0)
		out[pos++] = '-';
	if (fabs(v) >= 1e16 || fabs(v) < 1e-4) {
		out[pos++] = digits[0];
		if (n > 1) {
			out[pos++] = '.';
			for (i = 1; i < n; i++)
				out[pos++] = digits[i];
		}
		{                              /* e[+-]XX, at least two digits (|exp| <= 324) */
			int a = exp10 < 0 ? -exp10 : exp10;
			out[pos++] = 'e';
			out[pos++] = exp10 < 0 ? '-' : '+';
			if (a >= 100)
				out[pos++] = (char)('0' + a / 100 % 10);
			out[pos++] = (char)('0' + a / 10 % 10);
			out[pos++] = (char)('0' + a % 10);
			out[pos] = '\0';
		}
		return;
	}
	if (exp10 >= 0) {
		for (i = 0; i <= exp10; i++)
			out[pos++] = i < n ? digits[i] : '0';
		out[pos++] = '.';
		if (n > exp10 + 1)
			for (i = exp10 + 1; i < n; i++)
				out[pos++] = digits[i];
		else
			out[pos++] = '0';
	} else {
		out[pos++] = '0';
		out[pos++] = '.';
		for (i = 0; i < -exp10 - 1; i++)
			out[pos++] = '0';
		for (i = 0; i < n; i++)
			out[pos++] = digits[i];
	}
	out[pos] = '\0';
}

/* element i of a numeric tensor as text (at most 31 bytes) */
static INGOT_UNUSED void txt_format(char *out, int64_t dt, const void *x, int64_t i)
{
	switch (dt) {
	case INGOT_DT_F32: txt_float(out, (double)((const float *)x)[i], dt); break;
	case INGOT_DT_F64: txt_float(out, ((const double *)x)[i], dt); break;
	case INGOT_DT_F16: txt_float(out, (double)ingot_f16_to_f32(((const uint16_t *)x)[i]), dt); break;
	case INGOT_DT_BF16: txt_float(out, (double)ingot_bf16_to_f32(((const uint16_t *)x)[i]), dt); break;
	case INGOT_DT_BOOL: strcpy(out, ((const uint8_t *)x)[i] ? "True" : "False"); break;
	case INGOT_DT_I8: snprintf(out, 32, "%d", (int)((const int8_t *)x)[i]); break;
	case INGOT_DT_U8: snprintf(out, 32, "%u", (unsigned)((const uint8_t *)x)[i]); break;
	case INGOT_DT_I16: snprintf(out, 32, "%d", (int)((const int16_t *)x)[i]); break;
	case INGOT_DT_U16: snprintf(out, 32, "%u", (unsigned)((const uint16_t *)x)[i]); break;
	case INGOT_DT_I32: snprintf(out, 32, "%ld", (long)((const int32_t *)x)[i]); break;
	case INGOT_DT_U32: snprintf(out, 32, "%lu", (unsigned long)((const uint32_t *)x)[i]); break;
	case INGOT_DT_I64: snprintf(out, 32, "%lld", (long long)((const int64_t *)x)[i]); break;
	case INGOT_DT_U64: snprintf(out, 32, "%llu", (unsigned long long)((const uint64_t *)x)[i]); break;
	default: out[0] = '\0'; break;
	}
}

/* ---- text to numbers ---- */

/* s without leading and trailing blanks, NUL-terminated in buf */
static INGOT_UNUSED const char *txt_trim(const char *s, char *buf)
{
	size_t n = ingot_str_len(s), a = 0;
	while (a < n && (s[a] == ' ' || s[a] == '\t' || s[a] == '\n' || s[a] == '\r'))
		a++;
	while (n > a && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	memcpy(buf, s + a, n - a);
	buf[n - a] = '\0';
	return buf;
}

static INGOT_UNUSED void txt_parse(const char *s, int64_t dt, void *y, int64_t i)
{
	char buf[INGOT_STRING_CAP], *end;
	const char *t = txt_trim(s, buf);
	int whole;
	double d;
	if (dt == INGOT_DT_F32 || dt == INGOT_DT_F16 || dt == INGOT_DT_BF16) {
		float f = strtof(t, &end);
		if (end == t || *end)
			f = NAN;
		if (dt == INGOT_DT_F32)
			((float *)y)[i] = f;
		else
			((uint16_t *)y)[i] = dt == INGOT_DT_F16 ? ingot_f32_to_f16(f) : ingot_f32_to_bf16(f);
		return;
	}
	d = strtod(t, &end);
	whole = end != t && !*end;
	if (dt == INGOT_DT_F64) {
		((double *)y)[i] = whole ? d : NAN;
		return;
	}
	if (dt == INGOT_DT_BOOL) {
		((uint8_t *)y)[i] = (uint8_t)(whole ? d != 0 : strcmp(t, "True") == 0 || strcmp(t, "true") == 0);
		return;
	}
	if (dt == INGOT_DT_U64 || dt == INGOT_DT_U32 || dt == INGOT_DT_U16 || dt == INGOT_DT_U8) {
		unsigned long long u = strtoull(t, &end, 10);
		if (end == t || *end)
			u = whole && d >= 0 && d < 18446744073709551616.0 ? (unsigned long long)d : 0;
		switch (dt) {
		case INGOT_DT_U8: ((uint8_t *)y)[i] = (uint8_t)u; break;
		case INGOT_DT_U16: ((uint16_t *)y)[i] = (uint16_t)u; break;
		case INGOT_DT_U32: ((uint32_t *)y)[i] = (uint32_t)u; break;
		default: ((uint64_t *)y)[i] = (uint64_t)u; break;
		}
		return;
	}
	{
		long long v = strtoll(t, &end, 10);
		if (end == t || *end)
			v = whole && fabs(d) < 9.2e18 ? (long long)d : 0;
		switch (dt) {
		case INGOT_DT_I8: ((int8_t *)y)[i] = (int8_t)v; break;
		case INGOT_DT_I16: ((int16_t *)y)[i] = (int16_t)v; break;
		case INGOT_DT_I32: ((int32_t *)y)[i] = (int32_t)v; break;
		default: ((int64_t *)y)[i] = (int64_t)v; break;
		}
	}
}

INGOT_KERNEL int ingot_cast_str(const void *params, const void *const *in, void *const *out,
                                void *scratch, int task, int n_tasks)
{
	const ingot_cast_str_params *p = (const ingot_cast_str_params *)params;
	int64_t lo, hi, i;
	(void)scratch;
	if (!in[0] || !out[0] || n_tasks < 1 || (p->from != INGOT_DT_STRING && p->to != INGOT_DT_STRING))
		return INGOT_EINVAL;
	lo = p->n * task / n_tasks;
	hi = p->n * (task + 1) / n_tasks;
	for (i = lo; i < hi; i++) {
		const char *src = (const char *)in[0] + i * INGOT_STRING_CAP;
		char *dst = (char *)out[0] + i * INGOT_STRING_CAP;
		if (p->to != INGOT_DT_STRING) {
			txt_parse(src, p->to, out[0], i);
			continue;
		}
		if (p->from == INGOT_DT_STRING) {
			size_t n = ingot_str_len(src);
			memmove(dst, src, n);
			memset(dst + n, 0, INGOT_STRING_CAP - n);
		} else {
			char t[40];
			size_t n;
			txt_format(t, p->from, in[0], i);
			n = strlen(t);
			memset(dst, 0, INGOT_STRING_CAP);
			memcpy(dst, t, n);
		}
	}
	return INGOT_OK;
}

/* ---- StringNormalizer ---- */

static INGOT_UNUSED char txt_lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c; }
static INGOT_UNUSED char txt_upper(char c) { return c >= 'a' && c <= 'z' ? (char)(c - 32) : c; }

static INGOT_UNUSED int txt_equal(const char *a, const char *b, int case_sensitive)
{
	size_t n = ingot_str_len(a), k;
	if (n != ingot_str_len(b))
		return 0;
	for (k = 0; k < n; k++)
		if (case_sensitive ? a[k] != b[k] : txt_lower(a[k]) != txt_lower(b[k]))
			return 0;
	return 1;
}

INGOT_KERNEL int ingot_strnorm(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks)
{
	const ingot_strnorm_params *p = (const ingot_strnorm_params *)params;
	const char *x = (const char *)in[0];
	const char *stop = p->n_stop > 0 ? (const char *)in[1] : NULL;   /* in[] may end at 0 */
	char *y = (char *)out[0];
	int64_t *dims = (int64_t *)out[1];
	int64_t i, j, k = 0;
	(void)scratch;
	(void)n_tasks;
	if (task != 0)
		return INGOT_OK;
	if (!x || !y || !dims || (p->n_stop > 0 && !stop))
		return INGOT_EINVAL;
	for (i = 0; i < p->n; i++) {
		const char *s = x + i * INGOT_STRING_CAP;
		char *d = y + k * INGOT_STRING_CAP;
		size_t n = ingot_str_len(s), c;
		int is_stop = 0;
		for (j = 0; j < p->n_stop && !is_stop; j++)
			is_stop = txt_equal(s, stop + j * INGOT_STRING_CAP, (int)p->case_sensitive);
		if (is_stop)
			continue;
		memmove(d, s, n);          /* k <= i: in place when y aliases x */
		memset(d + n, 0, INGOT_STRING_CAP - n);
		for (c = 0; c < n; c++)
			d[c] = p->action == INGOT_CASE_LOWER ? txt_lower(d[c])
			       : p->action == INGOT_CASE_UPPER ? txt_upper(d[c]) : d[c];
		k++;
	}
	if (k == 0) {
		memset(y, 0, INGOT_STRING_CAP);
		k = 1;
	}
	memset(dims, 0, sizeof(int64_t) * INGOT_MAX_RANK);
	dims[0] = p->two_dim ? 1 : k;
	dims[1] = p->two_dim ? k : 0;
	return INGOT_OK;
}

/* ---- StringConcat ---- */

/* The elements of a and b that output element i reads: i's coordinates through the
 * strides (0 where broadcast). */
static void str_bcast_at(const ingot_str_concat_params *p, int64_t i, int64_t *oa, int64_t *ob)
{
	int64_t rem = i, d;
	*oa = *ob = 0;
	for (d = p->rank - 1; d >= 0; d--) {
		int64_t k = p->dims[d] > 0 ? rem % p->dims[d] : 0;
		rem = p->dims[d] > 0 ? rem / p->dims[d] : 0;
		*oa += k * p->sa[d];
		*ob += k * p->sb[d];
	}
}

/* Checks the buffers and params of a two-input string broadcast and gives this task's
 * output range [*lo, *hi). */
static int str_bcast_span(const ingot_str_concat_params *p, const void *a, const void *b,
                          const void *y, int task, int n_tasks, int64_t *lo, int64_t *hi)
{
	if (!a || !b || !y || n_tasks < 1 || p->rank < 0 || p->rank > INGOT_MAX_RANK)
		return INGOT_EINVAL;
	*lo = p->n * task / n_tasks;
	*hi = p->n * (task + 1) / n_tasks;
	return INGOT_OK;
}

INGOT_KERNEL int ingot_str_concat(const void *params, const void *const *in, void *const *out,
                                  void *scratch, int task, int n_tasks)
{
	const ingot_str_concat_params *p = (const ingot_str_concat_params *)params;
	const char *a = (const char *)in[0], *b = (const char *)in[1];
	char *y = (char *)out[0];
	int64_t i, lo, hi;
	int rc = str_bcast_span(p, a, b, y, task, n_tasks, &lo, &hi);
	(void)scratch;
	if (rc)
		return rc;
	for (i = lo; i < hi; i++) {
		int64_t oa, ob;
		const char *sa, *sb;
		char *dst = y + i * INGOT_STRING_CAP, t[INGOT_STRING_CAP];
		size_t na, nb;
		str_bcast_at(p, i, &oa, &ob);
		sa = a + oa * INGOT_STRING_CAP;
		sb = b + ob * INGOT_STRING_CAP;
		na = ingot_str_len(sa);
		nb = ingot_str_len(sb);
		if (na + nb > INGOT_STRING_CAP - 1) {     /* does not fit a slot */
			memset(dst, 0, INGOT_STRING_CAP);
			rc = INGOT_ERANGE;
			continue;
		}
		memset(t, 0, sizeof t);                   /* through t: y may alias a or b */
		memcpy(t, sa, na);
		memcpy(t + na, sb, nb);
		memcpy(dst, t, INGOT_STRING_CAP);
	}
	return rc;
}

INGOT_KERNEL int ingot_str_equal(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks)
{
	const ingot_str_concat_params *p = (const ingot_str_concat_params *)params;
	const char *a = (const char *)in[0], *b = (const char *)in[1];
	uint8_t *y = (uint8_t *)out[0];
	int64_t i, lo, hi;
	int rc = str_bcast_span(p, a, b, y, task, n_tasks, &lo, &hi);
	(void)scratch;
	if (rc)
		return rc;
	for (i = lo; i < hi; i++) {
		int64_t oa, ob;
		const char *sa, *sb;
		size_t na;
		str_bcast_at(p, i, &oa, &ob);
		sa = a + oa * INGOT_STRING_CAP;
		sb = b + ob * INGOT_STRING_CAP;
		na = ingot_str_len(sa);
		y[i] = (uint8_t)(na == ingot_str_len(sb) && memcmp(sa, sb, na) == 0);
	}
	return INGOT_OK;
}

/* ---- StringSplit ---- */

/* The substrings of the n bytes at s as (start, length) pairs in tok (at most
 * INGOT_STRING_CAP of them: a 63-byte string splits into 64 pieces at most);
 * returns their count. ONNX Runtime's rules: an empty string has none; without a
 * delimiter, runs of spaces separate and leading and trailing spaces go; after
 * maxsplit splits (maxsplit >= 0) the rest is one piece (its trailing spaces
 * removed when splitting on spaces). */
static int txt_split(const char *s, size_t n, const char *delim, size_t nd, int64_t maxsplit,
                     unsigned char tok[][2])
{
	size_t pos = 0, end;
	int k = 0;
	if (n == 0)
		return 0;
	if (nd == 0) {
		while (pos < n && s[pos] == ' ')
			pos++;
		while (pos < n) {
			if (k == maxsplit) {
				end = n;
				while (s[end - 1] == ' ')
					end--;
			} else {
				for (end = pos; end < n && s[end] != ' '; end++)
					;
			}
			tok[k][0] = (unsigned char)pos;
			tok[k++][1] = (unsigned char)(end - pos);
			for (pos = end; pos < n && s[pos] == ' '; pos++)
				;
			if (k - 1 == maxsplit)
				break;
		}
		return k;
	}
	for (;;) {
		end = pos;
		while (end + nd <= n && memcmp(s + end, delim, nd) != 0)
			end++;
		if (k == maxsplit || end + nd > n)
			end = n;
		tok[k][0] = (unsigned char)pos;
		tok[k++][1] = (unsigned char)(end - pos);
		if (end == n)
			return k;
		pos = end + nd;
	}
}

INGOT_KERNEL int ingot_str_split(const void *params, const void *const *in, void *const *out,
                                 void *scratch, int task, int n_tasks)
{
	const ingot_str_split_params *p = (const ingot_str_split_params *)params;
	const char *x = (const char *)in[0];
	const char *delim = p->has_delim ? (const char *)in[1] : NULL;
	char *y = (char *)out[0];
	int64_t *z = p->has_z ? (int64_t *)out[1] : NULL;
	int64_t *dims = p->dims_slot >= 0 ? (int64_t *)out[p->dims_slot] : NULL;
	size_t nd = delim ? ingot_str_len(delim) : 0;
	unsigned char tok[INGOT_STRING_CAP][2];
	int64_t i, width = 0, j;
	(void)scratch;
	(void)n_tasks;
	if (task != 0)
		return INGOT_OK;
	if (!x || (p->has_delim && !delim) || (p->has_z && !z) || (p->dims_slot >= 0 && !dims))
		return INGOT_EINVAL;
	/* the widest split decides the last dim; then each row is written at that stride */
	for (i = 0; i < p->n; i++) {
		const char *s = x + i * INGOT_STRING_CAP;
		int64_t k = txt_split(s, ingot_str_len(s), delim, nd, p->maxsplit, tok);
		width = k > width ? k : width;
		if (z)
			z[i] = k;
	}
	if (y && width > p->bound)
		return INGOT_ERANGE;     /* cannot happen: bound is an upper bound (text.h) */
	if (!dims)
		width = p->bound;        /* a static shape (known input): its own last dim */
	for (i = 0; i < p->n && y; i++) {
		const char *s = x + i * INGOT_STRING_CAP;
		int64_t k = txt_split(s, ingot_str_len(s), delim, nd, p->maxsplit, tok);
		for (j = 0; j < width; j++) {
			char *d = y + (i * width + j) * INGOT_STRING_CAP;
			size_t len = j < k ? tok[j][1] : 0;
			memset(d, 0, INGOT_STRING_CAP);
			if (len)
				memcpy(d, s + tok[j][0], len);
		}
	}
	if (y && width < p->bound)      /* the unused rest of the bound: no stale bytes */
		memset(y + p->n * width * INGOT_STRING_CAP, 0,
		       (size_t)(p->n * (p->bound - width)) * INGOT_STRING_CAP);
	if (dims) {
		memset(dims, 0, sizeof(int64_t) * INGOT_MAX_RANK);
		for (j = 0; j < p->rank; j++)
			dims[j] = p->in_dims[j];
		dims[p->rank] = width;
	}
	return INGOT_OK;
}
