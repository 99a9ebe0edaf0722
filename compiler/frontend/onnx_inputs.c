/* onnx_inputs.c — frontend: graph inputs get static types. The declared element
 * type is kept; symbolic dims are fixed by --shape (the whole shape of one input)
 * or --dim (one symbol), else a leading symbolic dim becomes 1 with a warning and
 * any other is an error. --bind turns an input into a constant (a number list in
 * the declared element type, or a .pb/.npy file).
 */
#include "onnx_internal.h"
#include "opimpl.h"

#include <stdlib.h>
#include <string.h>

static const ShapeOverride *find_shape(const Loader *L, const char *name)
{
	for (int i = 0; i < L->opt->n_shapes; i++)
		if (L->opt->shapes[i].name && strcmp(L->opt->shapes[i].name, name) == 0)
			return &L->opt->shapes[i];
	return NULL;
}

static const Binding *find_bind(const Loader *L, const char *name)
{
	for (int i = 0; i < L->opt->n_binds; i++)
		if (L->opt->binds[i].name && strcmp(L->opt->binds[i].name, name) == 0)
			return &L->opt->binds[i];
	return NULL;
}

bool onnx_input_is_bound(const Loader *L, const char *name)
{
	return find_bind(L, name) != NULL;
}

/* The declared shape: rank (-1 if absent) and, per dim, a value or -1 with the
 * symbol (NULL for a dim that has neither). */
typedef struct Declared {
	int rank;
	int64_t dims[IR_MAX_RANK];
	const char *sym[IR_MAX_RANK];
	bool is_static;
} Declared;

static int read_declared(Loader *L, const Onnx__TensorShapeProto *sp, const DiagLoc *loc,
                         Declared *dc)
{
	memset(dc, 0, sizeof *dc);
	dc->rank = -1;
	if (!sp)
		return 0;
	if (onnx_check_unknown(L, &sp->base, loc))
		return -1;
	if (sp->n_dim > IR_MAX_RANK)
		return onnx_fail(L, DC_UNSUPPORTED, loc, "rank %zu exceeds the maximum of %d",
		                 sp->n_dim, IR_MAX_RANK);
	dc->rank = (int)sp->n_dim;
	dc->is_static = true;
	for (int i = 0; i < dc->rank; i++) {
		const Onnx__TensorShapeProto__Dimension *dim = sp->dim[i];
		dc->dims[i] = -1;
		if (onnx_check_unknown(L, &dim->base, loc))
			return -1;
		if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
			if (dim->dim_value < 0)
				return onnx_fail(L, DC_SHAPE, loc, "negative dim %lld at index %d",
				                 (long long)dim->dim_value, i);
			dc->dims[i] = dim->dim_value;
		} else {
			dc->is_static = false;
			if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
			    dim->dim_param && dim->dim_param[0])
				dc->sym[i] = dim->dim_param;
		}
	}
	return 0;
}

/* The value --dim gives symbol sym (v unchanged if none); -1 for a negative one. */
static int find_dim(Loader *L, const char *sym, const DiagLoc *loc, int64_t *v)
{
	for (int k = 0; sym && k < L->opt->n_dims; k++) {
		const DimOverride *o = &L->opt->dims[k];
		if (o->symbol && strcmp(o->symbol, sym) == 0) {
			if (o->value < 0)
				return onnx_fail(L, DC_USAGE, loc, "--dim %s is negative", o->symbol);
			*v = o->value;
			L->dim_used[k] = true;
		}
	}
	return 0;
}

/* Fixes every dim of an unbound input (docs/design.md, The IR: shapes are static). */
static int resolve_dims(Loader *L, const char *name, const Declared *dc, const DiagLoc *loc,
                        Type *ty)
{
	const ShapeOverride *so = find_shape(L, name);
	if (so) {
		if (so->rank < 0 || so->rank > IR_MAX_RANK)
			return onnx_fail(L, DC_USAGE, loc, "--shape rank %d is not supported", so->rank);
		if (dc->rank >= 0 && so->rank != dc->rank)
			return onnx_fail(L, DC_SHAPE, loc, "--shape gives rank %d, the model declares "
			                 "rank %d", so->rank, dc->rank);
		for (int i = 0; i < so->rank; i++) {
			if (so->dims[i] < 0)
				return onnx_fail(L, DC_USAGE, loc, "--shape dim %d is negative", i);
			if (dc->rank >= 0 && dc->dims[i] >= 0 && dc->dims[i] != so->dims[i])
				return onnx_fail(L, DC_SHAPE, loc, "--shape gives dim %d = %lld, the model "
				                 "declares %lld", i, (long long)so->dims[i],
				                 (long long)dc->dims[i]);
			ty->dims[i] = so->dims[i];
		}
		ty->rank = so->rank;
		return 0;
	}
	if (dc->rank < 0)
		return onnx_fail(L, DC_SHAPE, loc, "input has no shape; give one with --shape %s=DxDx..",
		                 name);
	ty->rank = dc->rank;
	for (int i = 0; i < dc->rank; i++) {
		int64_t v = dc->dims[i];
		if (v < 0 && find_dim(L, dc->sym[i], loc, &v))
			return -1;
		if (v < 0 && i == 0) {
			DiagLoc l = *loc;
			l.file = L->file;
			diag_report(L->d, DIAG_WARNING, DC_SHAPE, &l, "symbolic dim 0%s%s%s set to 1 "
			            "(use --shape or --dim to choose)", dc->sym[0] ? " '" : "",
			            dc->sym[0] ? dc->sym[0] : "", dc->sym[0] ? "'" : "");
			v = 1;
		}
		if (v < 0) {
			if (dc->sym[i])
				return onnx_fail(L, DC_SHAPE, loc, "dim %d ('%s') is symbolic; fix it with "
				                 "--dim %s=V or --shape", i, dc->sym[i], dc->sym[i]);
			return onnx_fail(L, DC_SHAPE, loc, "dim %d is unknown; fix it with --shape", i);
		}
		ty->dims[i] = v;
	}
	return 0;
}

static ValueId bind_input(Loader *L, const char *name, const Binding *b, DType dt,
                          const Declared *dc, RegionId r, const DiagLoc *loc)
{
	void *data = NULL;
	int64_t n = 0;
	Type ty;
	char tb[128];
	int k = onnx_parse_bind_value(L, b->spec ? b->spec : "", dt, loc, &data, &n);
	if (k < 0)
		return IR_NONE;
	if (k == 0) {
		/* a number list: the declared shape when it is static and fits, else 1-D
		 * (a scalar for a declared scalar) */
		if (dc->rank >= 0 && dc->is_static) {
			Type decl = type_make(dt, dc->rank, dc->dims);
			if (type_numel(&decl) != n) {
				onnx_fail(L, DC_SHAPE, loc, "--bind gives %lld values, the input is %s",
				          (long long)n, type_format(&decl, tb, sizeof tb));
				free(data);
				return IR_NONE;
			}
			ty = decl;
		} else if (dc->rank == 0 && n == 1) {
			ty = type_make(dt, 0, NULL);
		} else {
			ty = type_make(dt, 1, &n);
		}
	} else {
		if (onnx_read_tensor_file(b->spec, &ty, &data, L->d))
			return IR_NONE;
		if (ty.dtype != dt) {
			onnx_fail(L, DC_TYPE, loc, "--bind file '%s' holds %s elements, the input is %s",
			          b->spec, dtype_name(ty.dtype), dtype_name(dt));
			free(data);
			return IR_NONE;
		}
		bool ok = dc->rank < 0 || dc->rank == ty.rank;
		for (int i = 0; ok && dc->rank >= 0 && i < ty.rank; i++)
			ok = dc->dims[i] < 0 || dc->dims[i] == ty.dims[i];
		if (!ok) {
			onnx_fail(L, DC_SHAPE, loc, "--bind file '%s' has shape %s, which does not fit "
			          "the declared shape", b->spec, type_format(&ty, tb, sizeof tb));
			free(data);
			return IR_NONE;
		}
	}
	ValueId v = onnx_const_new(L, r, name, &ty, data, loc);
	free(data);
	return v;
}

/* A tensor input named `name` (a graph input, or an element of a sequence input). */
static ValueId tensor_input(Loader *L, const char *name, const Onnx__TypeProto *tp, RegionId r,
                            const DiagLoc *in_loc)
{
	DiagLoc loc = *in_loc;
	Declared dc;
	DType dt;
	const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
	const ShapeOverride *so = find_shape(L, name);
	loc.tensor = name;
	if (onnx_check_unknown(L, &tt->base, &loc))
		return IR_NONE;
	if (!tt->has_elem_type) {
		onnx_fail(L, DC_TYPE, &loc, "input has no element type");
		return IR_NONE;
	}
	if (onnx_dtype_check(L, tt->elem_type, &loc, &dt))
		return IR_NONE;
	if (read_declared(L, tt->shape, &loc, &dc))
		return IR_NONE;
	if (so && so->kind != SHAPE_TENSOR) {
		onnx_fail(L, DC_USAGE, &loc, "--shape %s=%s, but the input is a tensor", name,
		          so->kind == SHAPE_NONE ? "none" : "[]");
		return IR_NONE;
	}

	const Binding *b = find_bind(L, name);
	if (b)
		return bind_input(L, name, b, dt, &dc, r, &loc);

	Type ty = type_make(dt, 0, NULL);
	if (resolve_dims(L, name, &dc, &loc, &ty))
		return IR_NONE;
	if (type_bytes(&ty) < 0) {
		onnx_fail(L, DC_LIMIT, &loc, "input size overflows 64 bits");
		return IR_NONE;
	}
	ValueId v = ir_value_new(L->g, r, name, &ty);
	ir_region_add_input(L->g, r, v);
	return v;
}

int onnx_type_elem(const Onnx__TypeProto *tp)
{
	for (int guard = 0; tp && guard < 64; guard++) {
		if (tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
			return tp->tensor_type->has_elem_type ? tp->tensor_type->elem_type : 0;
		if (tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE)
			tp = tp->sequence_type->elem_type;
		else if (tp->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE)
			tp = tp->optional_type->elem_type;
		else
			return 0;
	}
	return 0;
}

/* Most elements a sequence input may have. */
#define MAX_SEQ_INPUT 4096

/* A sequence or optional input: the length of a sequence and the presence of an
 * optional are fixed at compile time by --shape; each element is its own tensor
 * input NAME.0, NAME.1, ... (a present optional tensor is the input NAME). */
static ValueId seq_input(Loader *L, const char *name, const Onnx__TypeProto *tp, RegionId r,
                         const DiagLoc *loc)
{
	const ShapeOverride *so = find_shape(L, name);
	bool optional = tp->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE;
	const Onnx__TypeProto *inner = optional ? tp->optional_type->elem_type : tp;
	int code = onnx_type_elem(tp);
	DType dt = DT_F32;
	if (code && onnx_dtype_check(L, code, loc, &dt))
		return IR_NONE;
	if (so && so->kind == SHAPE_NONE) {
		if (!optional) {
			onnx_fail(L, DC_USAGE, loc, "--shape %s=none, but the input is not an optional", name);
			return IR_NONE;
		}
		ValueId v = ir_value_new(L->g, r, name, NULL);
		ops_seq_set(L->g, v, true, 0, NULL, dt);
		return v;
	}
	if (!inner || inner->value_case == ONNX__TYPE_PROTO__VALUE__NOT_SET) {
		onnx_fail(L, DC_TYPE, loc, "input has no element type");
		return IR_NONE;
	}
	if (inner->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
		return tensor_input(L, name, inner, r, loc);
	const Onnx__TypeProto *et = inner->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE
	                            ? inner->sequence_type->elem_type : NULL;
	if (!et || et->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) {
		onnx_fail(L, DC_UNSUPPORTED, loc, "%s inputs are supported only when they hold tensors "
		          "or sequences of tensors", optional ? "optional" : "sequence");
		return IR_NONE;
	}
	int n = 0;
	if (!so || so->kind != SHAPE_EMPTY_SEQUENCE) {
		for (; n < MAX_SEQ_INPUT; n++) {
			const char *en = arena_printf(&L->g->arena, "%s.%d", name, n);
			if (!find_shape(L, en) && !find_bind(L, en))
				break;
		}
		if (n == 0) {
			onnx_fail(L, DC_SHAPE, loc, "sequence input: give its length and element shapes "
			          "with --shape %s.0=DxD.. --shape %s.1=DxD.. (--shape %s=[] for an empty "
			          "sequence)", name, name, name);
			return IR_NONE;
		}
	} else if (so->kind == SHAPE_EMPTY_SEQUENCE && find_shape(L, arena_printf(&L->g->arena, "%s.0",
	                                                                          name))) {
		onnx_fail(L, DC_USAGE, loc, "--shape %s=[] makes it empty, but --shape %s.0 gives an "
		          "element", name, name);
		return IR_NONE;
	}
	ValueId *elems = arena_array(&L->g->arena, (size_t)(n ? n : 1), sizeof *elems);
	for (int j = 0; j < n; j++) {
		elems[j] = tensor_input(L, arena_printf(&L->g->arena, "%s.%d", name, j), et, r, loc);
		if (elems[j] == IR_NONE)
			return IR_NONE;
	}
	ValueId v = ir_value_new(L->g, r, name, NULL);
	ops_seq_set(L->g, v, false, n, elems, dt);
	return v;
}

ValueId onnx_input_import(Loader *L, const Onnx__ValueInfoProto *vi, RegionId r)
{
	const char *name = vi->name;
	DiagLoc loc = diag_loc_file(L->file);

	loc.slot_kind = "input";
	loc.tensor = name;
	if (onnx_check_unknown(L, &vi->base, &loc))
		return IR_NONE;
	const Onnx__TypeProto *tp = vi->type;
	if (!tp || tp->value_case == ONNX__TYPE_PROTO__VALUE__NOT_SET) {
		onnx_fail(L, DC_TYPE, &loc, "input has no type");
		return IR_NONE;
	}
	if (onnx_check_unknown(L, &tp->base, &loc))
		return IR_NONE;
	if (tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE ||
	    tp->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE)
		return seq_input(L, name, tp, r, &loc);
	if (tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) {
		onnx_fail(L, DC_UNSUPPORTED, &loc, "%s inputs are not supported",
		          tp->value_case == ONNX__TYPE_PROTO__VALUE_MAP_TYPE ? "map" : "sparse tensor");
		return IR_NONE;
	}
	return tensor_input(L, name, tp, r, &loc);
}

int onnx_output_bound(Loader *L, const Onnx__ValueInfoProto *vi, const DiagLoc *loc, int *rank,
                      int64_t *dims)
{
	const ShapeOverride *so = find_shape(L, vi->name);
	const Onnx__TypeProto *tp = vi->type;
	Declared dc;
	*rank = -1;
	if (so) {
		if (so->kind != SHAPE_TENSOR || so->rank < 0 || so->rank > IR_MAX_RANK)
			return onnx_fail(L, DC_USAGE, loc, "--shape for an output takes dims (HxWxC)");
		*rank = so->rank;
		memcpy(dims, so->dims, (size_t)so->rank * sizeof *dims);
		return 0;
	}
	if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
		return 0;
	if (read_declared(L, tp->tensor_type->shape, loc, &dc))
		return -1;
	*rank = dc.rank;
	for (int i = 0; i < dc.rank; i++) {
		dims[i] = dc.dims[i];
		if (dims[i] < 0 && find_dim(L, dc.sym[i], loc, &dims[i]))
			return -1;
		if (dims[i] < 0)
			dims[i] = 0;
	}
	return 0;
}

/* A graph output that an ImageDecoder node writes (--shape may give its bound). */
static bool is_image_output(const Onnx__GraphProto *gp, const char *name)
{
	bool out = false;
	for (size_t i = 0; i < gp->n_output; i++)
		out |= gp->output[i]->name && strcmp(gp->output[i]->name, name) == 0;
	for (size_t i = 0; out && i < gp->n_node; i++) {
		const Onnx__NodeProto *n = gp->node[i];
		if (n->op_type && strcmp(n->op_type, "ImageDecoder") == 0 && n->n_output > 0 &&
		    n->output[0] && strcmp(n->output[0], name) == 0)
			return true;
	}
	return false;
}

/* A graph input's name, or NAME.J naming element J of a sequence input NAME. */
static bool is_graph_input(const Onnx__GraphProto *gp, const char *name)
{
	for (size_t i = 0; i < gp->n_input; i++) {
		const char *in = gp->input[i]->name;
		size_t len = in ? strlen(in) : 0;
		if (!in)
			continue;
		if (strcmp(in, name) == 0)
			return true;
		if (strncmp(in, name, len) == 0 && name[len] == '.' && name[len + 1] &&
		    strspn(name + len + 1, "0123456789") == strlen(name + len + 1) &&
		    gp->input[i]->type && gp->input[i]->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
			return true;
	}
	return false;
}

int onnx_inputs_check_names(Loader *L, const Onnx__GraphProto *gp)
{
	DiagLoc loc = diag_loc_file(L->file);
	int rc = 0;
	for (int i = 0; i < L->opt->n_shapes; i++) {
		const char *n = L->opt->shapes[i].name ? L->opt->shapes[i].name : "";
		if (!is_graph_input(gp, n) && !is_image_output(gp, n))
			rc = onnx_fail(L, DC_USAGE, &loc, "--shape names '%s', which is not a graph input "
			               "(nor an ImageDecoder's output)", n);
	}
	for (int i = 0; i < L->opt->n_binds; i++) {
		const char *n = L->opt->binds[i].name ? L->opt->binds[i].name : "";
		if (!is_graph_input(gp, n))
			rc = onnx_fail(L, DC_USAGE, &loc, "--bind names '%s', which is not a graph input", n);
	}
	return rc;
}

void onnx_inputs_warn_unused_dims(Loader *L)
{
	DiagLoc loc = diag_loc_file(L->file);
	for (int i = 0; i < L->opt->n_dims; i++)
		if (!L->dim_used[i])
			diag_report(L->d, DIAG_WARNING, DC_USAGE, &loc, "--dim %s matches no symbolic dim "
			            "of an input (or of an ImageDecoder's image)", L->opt->dims[i].symbol ? L->opt->dims[i].symbol : "");
}
