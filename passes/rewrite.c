/* rewrite.c — what only the passes use of the rewriting helpers (rewrite.h): access to
 * a node's attributes through its op's AttrField table, and comparing attributes.
 * The graph editing they share with inference is graph_rewrite.c. */
#include "rewrite.h"

#include <string.h>

const AttrField *rw_attr_field(Op op, const char *name, AttrKind kind)
{
	const OpImpl *impl = op_info(op)->impl;
	for (int i = 0; i < impl->n_fields; i++)
		if (impl->fields[i].kind == kind && strcmp(impl->fields[i].name, name) == 0)
			return &impl->fields[i];
	return NULL;
}

void *rw_attr(Graph *g, NodeId id, const char *name, AttrKind kind)
{
	const Node *n = &g->nodes[id];
	const AttrField *af = rw_attr_field(n->op, name, kind);
	return af && n->attrs ? (char *)n->attrs + af->off : NULL;
}

int rw_enum_index(const AttrField *af, const char *value)
{
	for (int i = 0; af->enums && af->enums[i]; i++)
		if (strcmp(af->enums[i], value) == 0)
			return i;
	return -1;
}

bool rw_attrs_equal(Op op, const void *a, const void *b)
{
	const OpImpl *impl = op_info(op)->impl;
	if (!impl->attr_size)
		return true;
	for (int i = 0; i < impl->n_fields; i++) {
		const AttrField *af = &impl->fields[i];
		const char *pa = (const char *)a + af->off, *pb = (const char *)b + af->off;
		switch (af->kind) {
		case AK_INT:
			if (memcmp(pa, pb, sizeof(int64_t)))
				return false;
			break;
		case AK_FLOAT:
			if (memcmp(pa, pb, sizeof(float)))
				return false;
			break;
		case AK_ENUM:
			if (memcmp(pa, pb, sizeof(int)))
				return false;
			break;
		case AK_INTS: {
			const IntList *la = (const IntList *)(const void *)pa;
			const IntList *lb = (const IntList *)(const void *)pb;
			if (la->n != lb->n || (la->n > 0 && memcmp(la->v, lb->v, (size_t)la->n * sizeof *la->v)))
				return false;
			break;
		}
		case AK_FLOATS: {
			const FloatList *la = (const FloatList *)(const void *)pa;
			const FloatList *lb = (const FloatList *)(const void *)pb;
			if (la->n != lb->n || (la->n > 0 && memcmp(la->v, lb->v, (size_t)la->n * sizeof *la->v)))
				return false;
			break;
		}
		case AK_SCALAR: {
			const Scalar *sa = (const Scalar *)(const void *)pa;
			const Scalar *sb = (const Scalar *)(const void *)pb;
			if (sa->dtype != sb->dtype || memcmp(sa->bytes, sb->bytes, dtype_size(sa->dtype)))
				return false;
			break;
		}
		}
	}
	return true;
}
