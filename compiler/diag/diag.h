/* diag.h — diagnostics: located, one-line messages about bad input, collected in a
 * sink so that every problem (every unsupported op, say) is reported at once.
 *
 * Two channels (STYLE.md, Errors): bad input gives a Diag and a returned status;
 * a compiler bug hits IR_ASSERT / die(), which print file:line and abort.
 *
 * Printed form:  model.onnx: node 'conv_12' (Conv) input 1 'W': expected rank 4, got 2
 */
#ifndef INGOT_DIAG_H
#define INGOT_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

typedef enum DiagSeverity { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } DiagSeverity;

typedef enum DiagCode {
	DC_GENERIC,
	DC_IO,           /* cannot read or write a file */
	DC_PARSE,        /* malformed .onnx / .pb / IR text */
	DC_UNSUPPORTED,  /* op, dtype or attribute value ingot does not implement */
	DC_SHAPE,        /* shape mismatch or an unfixable symbolic dim */
	DC_TYPE,         /* element type mismatch or unknown dtype */
	DC_CONST_INPUT,  /* an input that must be known at compile time is not */
	DC_USAGE,        /* bad command line */
	DC_LIMIT         /* a resource limit (workspace, nesting) was exceeded */
} DiagCode;

/* Where a diagnostic points; every field is optional (NULL / -1). */
typedef struct DiagLoc {
	const char *file;       /* the model file, as the user named it */
	const char *graph;      /* subgraph path, e.g. "loop_0/body"; NULL for the main graph */
	const char *node;       /* ONNX node name */
	const char *op_type;    /* ONNX op type */
	const char *slot_kind;  /* "input", "output" or "attribute" */
	int slot;               /* slot index, -1 for none */
	const char *tensor;     /* value or attribute name */
} DiagLoc;

typedef struct Diag {
	DiagSeverity sev;
	DiagCode code;
	char *text;             /* the fully formatted line, without newline (owned) */
} Diag;

typedef struct DiagSink {
	Diag *items;
	int n_items, cap_items;
	int n_errors, n_warnings;
	FILE *echo;             /* when set, each diagnostic is also printed at once */
	bool quiet;             /* -q: echo errors only (warnings and notes are still kept) */
	/* when set, prints each echoed line instead of fprintf (the driver's progress
	 * display clears its line first, under its lock) */
	void (*echo_line)(void *ctx, FILE *f, const char *line);
	void *echo_ctx;
} DiagSink;

/* diag.c */
void diag_sink_init(DiagSink *s, FILE *echo);
void diag_sink_free(DiagSink *s);
DiagLoc diag_loc_file(const char *file);
void diag_report(DiagSink *s, DiagSeverity sev, DiagCode code, const DiagLoc *loc,
                 const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;
void diag_vreport(DiagSink *s, DiagSeverity sev, DiagCode code, const DiagLoc *loc,
                  const char *fmt, va_list ap);
int diag_has_code(const DiagSink *s, DiagCode code);
void diag_print_all(const DiagSink *s, FILE *f);

/* A compiler bug: print file:line and abort. Never used for bad input. */
_Noreturn void diag_die(const char *file, int line, const char *fmt, ...);
#define die(...) diag_die(__FILE__, __LINE__, __VA_ARGS__)
#define IR_ASSERT(cond) \
	((cond) ? (void)0 : diag_die(__FILE__, __LINE__, "assertion failed: %s", #cond))

#endif /* INGOT_DIAG_H */
