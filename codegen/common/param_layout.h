/* param_layout.h — build-time checks that a SIMD target's kernel parameter struct
 * lays out the reference kernel's fields identically (a model directory holds only
 * the kernel families it uses, so each target header repeats the field lists), and
 * the ParamDesc of a target struct. Before SAME_FIELD, #define REF as the reference
 * struct and TGT as the target's. */
#ifndef INGOT_PARAM_LAYOUT_H
#define INGOT_PARAM_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#define KIND_OF(e) _Generic((e), int64_t: 1, float: 2, double: 3, default: 4)
/* one field of an INGOT_*_FIELDS list: same offset, size and kind in REF and TGT */
#define SAME_FIELD(kind, name) \
	_Static_assert(offsetof(REF, name) == offsetof(TGT, name) && \
	               sizeof(((REF *)0)->name) == sizeof(((TGT *)0)->name) && \
	               KIND_OF(((REF *)0)->name) == KIND_OF(((TGT *)0)->name), \
	               "target parameter field " #name " differs from the reference");

/* NAME_desc: the ParamDesc of struct T with field list FIELDS (PARAM_STRUCT = T) */
#define DESC(NAME, T, FIELDS) \
	static const ParamField NAME##_fields[] = { FIELDS(PARAM_FIELD) }; \
	static const ParamDesc NAME##_desc = PARAM_DESC(T, NAME##_fields);

#endif /* INGOT_PARAM_LAYOUT_H */
