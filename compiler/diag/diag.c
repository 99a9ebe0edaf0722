/* diag.c — the diagnostic sink: formats located one-line messages and keeps them. */
#include "diag.h"

#include <stdlib.h>
#include <string.h>

void diag_sink_init(DiagSink *s, FILE *echo)
{
	memset(s, 0, sizeof *s);
	s->echo = echo;
}

void diag_sink_free(DiagSink *s)
{
	for (int i = 0; i < s->n_items; i++)
		free(s->items[i].text);
	free(s->items);
	memset(s, 0, sizeof *s);
}

DiagLoc diag_loc_file(const char *file)
{
	DiagLoc l = { file, NULL, NULL, NULL, NULL, -1, NULL };
	return l;
}

/* Appends printf output to buf at *len, never past cap (truncates quietly). */
static void append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;
	if (*len >= cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, cap - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += (size_t)n < cap - *len ? (size_t)n : cap - *len - 1;
}

void diag_vreport(DiagSink *s, DiagSeverity sev, DiagCode code, const DiagLoc *loc,
                  const char *fmt, va_list ap)
{
	char buf[1024];
	size_t len = 0;
	int n;

	buf[0] = 0;
	if (loc && loc->file)
		append(buf, sizeof buf, &len, "%s: ", loc->file);
	if (sev == DIAG_WARNING)
		append(buf, sizeof buf, &len, "warning: ");
	else if (sev == DIAG_NOTE)
		append(buf, sizeof buf, &len, "note: ");
	if (loc && loc->graph)
		append(buf, sizeof buf, &len, "graph '%s' ", loc->graph);
	if (loc && (loc->node || loc->op_type))
		append(buf, sizeof buf, &len, "node '%s' (%s)",
		       loc->node ? loc->node : "", loc->op_type ? loc->op_type : "?");
	if (loc && loc->slot_kind) {
		append(buf, sizeof buf, &len, "%s%s", len && buf[len - 1] != ' ' ? " " : "", loc->slot_kind);
		if (loc->slot >= 0)
			append(buf, sizeof buf, &len, " %d", loc->slot);
		if (loc->tensor)
			append(buf, sizeof buf, &len, " '%s'", loc->tensor);
	} else if (loc && loc->tensor) {
		append(buf, sizeof buf, &len, "%s'%s'", len && buf[len - 1] != ' ' ? " " : "", loc->tensor);
	}
	if (len && buf[len - 1] != ' ')
		append(buf, sizeof buf, &len, ": ");
	if (len < sizeof buf) {
		n = vsnprintf(buf + len, sizeof buf - len, fmt, ap);
		(void)n;
	}
	/* one line, always */
	for (char *p = buf; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';

	if (s->n_items == s->cap_items) {
		int cap = s->cap_items ? s->cap_items * 2 : 16;
		Diag *items = realloc(s->items, (size_t)cap * sizeof *items);
		if (!items)
			die("out of memory");
		s->items = items;
		s->cap_items = cap;
	}
	s->items[s->n_items].sev = sev;
	s->items[s->n_items].code = code;
	s->items[s->n_items].text = strdup(buf);
	if (!s->items[s->n_items].text)
		die("out of memory");
	s->n_items++;
	if (sev == DIAG_ERROR)
		s->n_errors++;
	else if (sev == DIAG_WARNING)
		s->n_warnings++;
	if (s->echo && (!s->quiet || sev == DIAG_ERROR)) {
		if (s->echo_line)
			s->echo_line(s->echo_ctx, s->echo, buf);
		else
			fprintf(s->echo, "%s\n", buf);
	}
}

void diag_report(DiagSink *s, DiagSeverity sev, DiagCode code, const DiagLoc *loc,
                 const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_vreport(s, sev, code, loc, fmt, ap);
	va_end(ap);
}

int diag_has_code(const DiagSink *s, DiagCode code)
{
	for (int i = 0; i < s->n_items; i++)
		if (s->items[i].sev == DIAG_ERROR && s->items[i].code == code)
			return 1;
	return 0;
}

void diag_print_all(const DiagSink *s, FILE *f)
{
	for (int i = 0; i < s->n_items; i++)
		fprintf(f, "%s\n", s->items[i].text);
}

_Noreturn void diag_die(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "ingot: internal error at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
