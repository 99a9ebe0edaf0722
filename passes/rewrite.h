/* rewrite.h — what the rewriting passes share. The graph editing they share with the
 * expansions that inference runs (use counts, redirects, constants, in-place edits) is
 * the ops layer's toolkit, graph_rewrite.h; this header adds what only passes use:
 * comparing attribute structs. A pass reads and writes attributes through the typed
 * structs of op_attrs.h, never by name.
 *
 * Sections: rewrite.c.
 */
#ifndef INGOT_REWRITE_H
#define INGOT_REWRITE_H

#include "graph_rewrite.h"

/* Field-by-field equality of two attribute structs of op (floats bitwise). */
bool rw_attrs_equal(Op op, const void *a, const void *b);

#endif /* INGOT_REWRITE_H */
