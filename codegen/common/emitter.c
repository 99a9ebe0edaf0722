/* emitter.c — the codegen text buffer: indented lines, then one write to disk; or, for
 * a big file, streamed to it through a fixed buffer. */
#include "codegen.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void em_init(Emitter *e) { memset(e, 0, sizeof *e); }

#define STREAM_BUF ((size_t)64 << 10)

void em_free(Emitter *e)
{
	if (e->f)
		fclose(e->f);
	free(e->buf);
	free(e->path);
	memset(e, 0, sizeof *e);
}

static void em_flush(Emitter *e)
{
	if (e->len && !e->err && fwrite(e->buf, 1, e->len, e->f) != e->len)
		e->err = errno ? errno : EIO;
	e->len = 0;
}

int em_open(Emitter *e, const char *dir, const char *name, DiagSink *d)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	em_init(e);
	e->path = malloc(n);
	e->buf = malloc(STREAM_BUF);
	if (!e->path || !e->buf)
		die("out of memory");
	snprintf(e->path, n, "%s/%s", dir, name);
	e->cap = STREAM_BUF;
	e->f = fopen(e->path, "wb");
	if (!e->f) {
		DiagLoc l = diag_loc_file(e->path);
		if (d)
			diag_report(d, DIAG_ERROR, DC_IO, &l, "cannot write: %s", strerror(errno));
		em_free(e);
		return -1;
	}
	return 0;
}

int em_close(Emitter *e, DiagSink *d)
{
	em_flush(e);
	if (fclose(e->f) != 0 && !e->err)
		e->err = errno ? errno : EIO;
	e->f = NULL;
	int err = e->err;
	if (err && d) {
		DiagLoc l = diag_loc_file(e->path);
		diag_report(d, DIAG_ERROR, DC_IO, &l, "cannot write: %s", strerror(err));
	}
	em_free(e);
	return err ? -1 : 0;
}

/* Room for n more bytes and the terminating 0 (a buffered emitter). */
static void reserve(Emitter *e, size_t n)
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
		mem_advise_huge(p, cap);
	}
}

void em_raw(Emitter *e, const char *s, size_t n)
{
	if (e->f) {   /* streamed: through the buffer, or straight to the file if it's big */
		if (e->len + n > e->cap)
			em_flush(e);
		if (n >= e->cap) {
			if (!e->err && fwrite(s, 1, n, e->f) != n)
				e->err = errno ? errno : EIO;
		} else {
			memcpy(e->buf + e->len, s, n);
			e->len += n;
		}
		return;
	}
	reserve(e, n);
	memcpy(e->buf + e->len, s, n);
	e->len += n;
	e->buf[e->len] = 0;
}

/* Formats straight into the buffer's free part (no copy through a temporary), which is
 * made at least SMALL bytes first; a longer text is formatted again once it fits. */
#define SMALL ((size_t)512)
static void em_vprintf(Emitter *e, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	if (e->f && e->cap - e->len < SMALL)
		em_flush(e);
	else if (!e->f)
		reserve(e, SMALL);
	size_t room = e->cap - e->len;
	int n = vsnprintf(e->buf + e->len, room, fmt, ap);
	if (n < 0)
		die("bad format");
	if ((size_t)n < room) {
		e->len += (size_t)n;
	} else if (!e->f) {
		reserve(e, (size_t)n);
		vsnprintf(e->buf + e->len, (size_t)n + 1, fmt, ap2);
		e->len += (size_t)n;
	} else {   /* longer than a streamed emitter's whole buffer */
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
