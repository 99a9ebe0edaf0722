/* rewrite.c — what only the passes use of the rewriting helpers (rewrite.h): comparing
 * two nodes' attributes through their op's AttrField table. The graph editing they
 * share with inference is graph_rewrite.c; attributes are read and written through
 * the typed structs of op_attrs.h. */
#include "rewrite.h"

#include <string.h>

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
