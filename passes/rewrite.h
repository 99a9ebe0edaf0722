/* rewrite.h — what the rewriting passes share. The graph editing they share with the
 * expansions that inference runs (use counts, redirects, constants, in-place edits) is
 * the ops layer's toolkit, graph_rewrite.h; this header adds what only passes use:
 * typed attribute access through an op's AttrField table.
 *
 * Sections: rewrite.c.
 */
#ifndef INGOT_REWRITE_H
#define INGOT_REWRITE_H

#include "graph_rewrite.h"

/* The field `name` of an op's attribute table with the given kind, or NULL. */
const AttrField *rw_attr_field(Op op, const char *name, AttrKind kind);
/* The field's storage in node n's attributes, or NULL when the op lacks it. */
void *rw_attr(Graph *g, NodeId n, const char *name, AttrKind kind);
/* Index of `value` in an AK_ENUM field's names, or -1. */
int rw_enum_index(const AttrField *af, const char *value);
/* Field-by-field equality of two attribute structs of op (floats bitwise). */
bool rw_attrs_equal(Op op, const void *a, const void *b);

#endif /* INGOT_REWRITE_H */
