/* emitter.c — the codegen text buffer: indented lines, then one write to disk. */
#include "codegen.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void em_init(Emitter *e) { memset(e, 0, sizeof *e); }

void em_free(Emitter *e)
{
	free(e->buf);
	memset(e, 0, sizeof *e);
}

void em_raw(Emitter *e, const char *s, size_t n)
{
	if (e->len + n + 1 > e->cap) {
		size_t cap = e->cap ? e->cap : 4096;
		while (cap < e->len + n + 1)
			cap *= 2;
		char *p = realloc(e->buf, cap);
		if (!p)
			die("out of memory");
		e->buf = p;
		e->cap = cap;
	}
	memcpy(e->buf + e->len, s, n);
	e->len += n;
	e->buf[e->len] = 0;
}

static void em_vprintf(Emitter *e, const char *fmt, va_list ap)
{
	char small[512];
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	if (n < 0)
		die("bad format");
	if ((size_t)n < sizeof small) {
		em_raw(e, small, (size_t)n);
	} else {
		char *big = malloc((size_t)n + 1);
		if (!big)
			die("out of memory");
		vsnprintf(big, (size_t)n + 1, fmt, ap2);
		em_raw(e, big, (size_t)n);
		free(big);
	}
	va_end(ap2);
}

void em_printf(Emitter *e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	em_vprintf(e, fmt, ap);
	va_end(ap);
}

void em_blank(Emitter *e) { em_raw(e, "\n", 1); }

void em_line(Emitter *e, const char *fmt, ...)
{
	va_list ap;
	if (fmt[0])
		for (int i = 0; i < e->indent; i++)
			em_raw(e, "\t", 1);
	va_start(ap, fmt);
	em_vprintf(e, fmt, ap);
	va_end(ap);
	em_raw(e, "\n", 1);
}

int cg_write_bytes(const char *dir, const char *name, const void *data, size_t n, DiagSink *d)
{
	char path[4096];
	FILE *f;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0) {
		DiagLoc l = diag_loc_file(path);
		if (d)     /* d may be NULL: the caller reports on its own */
			diag_report(d, DIAG_ERROR, DC_IO, &l, "cannot write: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int em_write_file(const Emitter *e, const char *dir, const char *name, DiagSink *d)
{
	return cg_write_bytes(dir, name, e->buf ? e->buf : "", e->len, d);
}

int cg_mkdir_p(const char *path, DiagSink *d)
{
	char buf[4096];
	size_t n = strlen(path);
	if (n == 0 || n >= sizeof buf)
		return -1;
	memcpy(buf, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != 0)
			continue;
		char c = buf[i];
		buf[i] = 0;
		if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
			DiagLoc l = diag_loc_file(buf);
			if (d)
				diag_report(d, DIAG_ERROR, DC_IO, &l, "cannot create directory: %s", strerror(errno));
			return -1;
		}
		buf[i] = c;
	}
	return 0;
}
