/* onnx_write.c — writes the main graph back as an ONNX model: what `--emit-qdq` uses
 * to hand the quantized graph (QuantizeLinear / DequantizeLinear pairs, int8 weights,
 * as passes/quantize.c leaves it before fold_qdq) to other runtimes, with exactly the
 * scales and zero points ingot computes with.
 *
 * Nodes keep their ONNX op, their origin name and their typed attributes, written from
 * each group's attribute table: an integer or enum field at its declared default is
 * left out (so attributes newer than the model's opset, which all default, are not
 * written), lists that are absent or empty are left out, floats are always written.
 * Constants become initializers (raw data; the 4- and 2-bit types packed two or four to
 * a byte as ONNX stores them), graph inputs and outputs keep their names and get their
 * static types. The model imports ai.onnx at the graph's opset, which must be 13 or
 * newer (per-axis DequantizeLinear), and ai.onnx.ml at its nodes' opset when it has
 * ai.onnx.ml nodes (written in that domain; FlexAttention in ai.onnx.preview and the
 * optimizers in ai.onnx.preview.training, version 1 each). What cannot be written is
 * one error naming the node: control flow bodies, ingot's own ops, the ai.onnx.ml ops
 * but Binarizer and ArrayFeatureExtractor (their imports turn attributes into constant
 * inputs), string and scalar-typed attributes or constants. */
#include "frontend.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx.pb-c.h"
#include "opimpl.h"

typedef struct Writer {
	Graph *g;
	const char *path;
	DiagSink *d;
	Onnx__TensorProto **inits;
	int n_inits;
	bool *is_init;                 /* per value: already an initializer */
	int ml_opset;                  /* of the ai.onnx.ml nodes written, 0 if none */
	bool preview, training;        /* ai.onnx.preview / .training nodes written */
} Writer;

static void *zalloc(Writer *w, size_t n)
{
	return arena_alloc(&w->g->arena, n ? n : 1);
}

static int fail_node(Writer *w, NodeId id, const char *what)
{
	DiagLoc l = ir_node_loc(w->g, id);
	diag_report(w->d, DIAG_ERROR, DC_UNSUPPORTED, &l, "--emit-qdq cannot write %s", what);
	return -1;
}

static bool writable_dtype(DType t)
{
	return t != DT_UNDEF && t != DT_STRING && t != DT_C64 && t != DT_C128;
}

static Onnx__ValueInfoProto *value_info(Writer *w, ValueId v)
{
	const Type *t = &w->g->values[v].type;
	Onnx__ValueInfoProto *vi = zalloc(w, sizeof *vi);
	Onnx__TypeProto *tp = zalloc(w, sizeof *tp);
	Onnx__TypeProto__Tensor *tt = zalloc(w, sizeof *tt);
	Onnx__TensorShapeProto *sh = zalloc(w, sizeof *sh);
	onnx__value_info_proto__init(vi);
	onnx__type_proto__init(tp);
	onnx__type_proto__tensor__init(tt);
	onnx__tensor_shape_proto__init(sh);
	sh->n_dim = (size_t)t->rank;
	sh->dim = zalloc(w, (size_t)t->rank * sizeof *sh->dim);
	for (int i = 0; i < t->rank; i++) {
		Onnx__TensorShapeProto__Dimension *dm = zalloc(w, sizeof *dm);
		onnx__tensor_shape_proto__dimension__init(dm);
		dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
		dm->dim_value = t->dims[i];
		sh->dim[i] = dm;
	}
	tt->has_elem_type = true;
	tt->elem_type = (int32_t)t->dtype;   /* ingot's dtype codes are ONNX's */
	tt->shape = sh;
	tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	tp->tensor_type = tt;
	vi->name = (char *)w->g->values[v].name;
	vi->type = tp;
	return vi;
}

/* Constant v as an initializer (once). 0 or -1 (an unwritable dtype). */
static int add_init(Writer *w, NodeId user, ValueId v)
{
	const Value *val = &w->g->values[v];
	if (w->is_init[v])
		return 0;
	if (!writable_dtype(val->type.dtype))
		return fail_node(w, user, "a string or complex constant");
	Onnx__TensorProto *t = zalloc(w, sizeof *t);
	onnx__tensor_proto__init(t);
	t->name = (char *)val->name;
	t->has_data_type = true;
	t->data_type = (int32_t)val->type.dtype;
	t->n_dims = (size_t)val->type.rank;
	t->dims = zalloc(w, (size_t)val->type.rank * sizeof *t->dims);
	memcpy(t->dims, val->type.dims, (size_t)val->type.rank * sizeof *t->dims);
	t->has_raw_data = true;
	t->raw_data.len = (size_t)type_bytes(&val->type);
	t->raw_data.data = (uint8_t *)ir_const_data(w->g, v);
	if (ingot_dtype_is_packed(val->type.dtype)) {   /* one byte per element in memory */
		size_t n = t->raw_data.len;
		uint8_t *packed = zalloc(w, ingot_packed_bytes(val->type.dtype, n));
		ingot_pack_sub(val->type.dtype, t->raw_data.data, packed, n);
		t->raw_data.data = packed;
		t->raw_data.len = ingot_packed_bytes(val->type.dtype, n);
	}
	w->inits[w->n_inits++] = t;
	w->is_init[v] = true;
	return 0;
}

static Onnx__AttributeProto *attr_new(Writer *w, const char *name, Onnx__AttributeProto__AttributeType type)
{
	Onnx__AttributeProto *a = zalloc(w, sizeof *a);
	onnx__attribute_proto__init(a);
	a->name = (char *)name;
	a->has_type = true;
	a->type = type;
	return a;
}

/* Whether an enum field names element types, indexed by ONNX's dtype code (the tables
 * marked ORDER DTYPE: Cast's `to`, the random ops' and EyeLike's `dtype`), which ONNX
 * stores as ints. */
static bool dtype_indexed(const AttrField *fd)
{
	return fd->enums && fd->enums[0] && fd->enums[1] && strcmp(fd->enums[1], "f32") == 0;
}

/* The node's typed attributes as AttributeProtos (see the file comment). */
static int node_attrs(Writer *w, NodeId id, Onnx__NodeProto *np)
{
	const Node *n = &w->g->nodes[id];
	OpAttrLayout lay = ir_op_attrs(n->op);
	np->attribute = zalloc(w, (size_t)lay.n_fields * sizeof *np->attribute);
	for (int f = 0; f < lay.n_fields; f++) {
		const AttrField *fd = &lay.fields[f];
		const char *p = (const char *)n->attrs + fd->off;
		Onnx__AttributeProto *a = NULL;
		switch (fd->kind) {
		case AK_INT: {
			int64_t v;
			memcpy(&v, p, sizeof v);
			if (fd->has_default && v == fd->def)
				continue;
			a = attr_new(w, fd->name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
			a->has_i = true;
			a->i = v;
			break;
		}
		case AK_ENUM: {
			int v;
			memcpy(&v, p, sizeof v);
			if (fd->has_default && v == fd->def)
				continue;
			if (dtype_indexed(fd)) {   /* an element type: ONNX's int code */
				a = attr_new(w, fd->name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
				a->has_i = true;
				a->i = v;
				break;
			}
			a = attr_new(w, fd->name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
			a->has_s = true;
			a->s.data = (uint8_t *)fd->enums[v];
			a->s.len = strlen(fd->enums[v]);
			break;
		}
		case AK_FLOAT: {
			float v;
			memcpy(&v, p, sizeof v);
			a = attr_new(w, fd->name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
			a->has_f = true;
			a->f = v;
			break;
		}
		case AK_INTS: {
			const IntList *l = (const IntList *)(const void *)p;
			if (l->n <= 0)
				continue;
			if (strcmp(fd->name, "axis") == 0 && l->n == 1) {   /* Flatten's, kept as a list */
				a = attr_new(w, fd->name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
				a->has_i = true;
				a->i = l->v[0];
				break;
			}
			a = attr_new(w, fd->name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
			a->n_ints = (size_t)l->n;
			a->ints = l->v;
			break;
		}
		case AK_FLOATS: {
			const FloatList *l = (const FloatList *)(const void *)p;
			if (l->n <= 0)
				continue;
			a = attr_new(w, fd->name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
			a->n_floats = (size_t)l->n;
			a->floats = l->v;
			break;
		}
		default:
			return fail_node(w, id, "a tensor-valued attribute");
		}
		np->attribute[np->n_attribute++] = a;
	}
	return 0;
}

/* The node's domain: ai.onnx ("") but for the ai.onnx.ml ops (their opset noted for
 * the model's opset_import), FlexAttention and the training optimizers. */
static const char *node_domain(Writer *w, NodeId id)
{
	const Node *n = &w->g->nodes[id];
	if (op_has(n->op, OPF_ML)) {
		if (n->opset > w->ml_opset)
			w->ml_opset = n->opset;
		return "ai.onnx.ml";
	}
	if (n->op == OP_FLEX_ATTENTION) {
		w->preview = true;
		return "ai.onnx.preview";
	}
	if (n->op == OP_ADAGRAD || n->op == OP_ADAM || n->op == OP_MOMENTUM) {
		w->training = true;
		return "ai.onnx.preview.training";
	}
	return "";
}

static Onnx__NodeProto *node_proto(Writer *w, NodeId id)
{
	const Node *n = &w->g->nodes[id];
	Onnx__NodeProto *np = zalloc(w, sizeof *np);
	onnx__node_proto__init(np);
	if (n->op >= OP_FIRST_INTERNAL) {
		fail_node(w, id, "ingot's own ops (write the graph before the passes)");
		return NULL;
	}
	if (n->n_bodies) {
		fail_node(w, id, "control flow bodies yet");
		return NULL;
	}
	/* the other ai.onnx.ml ops hold attributes the import moved into constant inputs */
	if (op_has(n->op, OPF_ML) && n->op != OP_BINARIZER && n->op != OP_ARRAY_FEATURE_EXTRACTOR) {
		fail_node(w, id, "this ai.onnx.ml op yet (its attributes became constant inputs)");
		return NULL;
	}
	np->op_type = (char *)ir_op_name(n->op);
	np->name = (char *)ir_node_name(w->g, id);
	np->domain = (char *)node_domain(w, id);
	np->n_input = (size_t)n->n_in;
	np->input = zalloc(w, (size_t)n->n_in * sizeof *np->input);
	for (int i = 0; i < n->n_in; i++) {
		ValueId v = n->in[i];
		np->input[i] = (char *)(v == IR_NONE ? "" : w->g->values[v].name);
		if (v != IR_NONE && w->g->values[v].is_const && add_init(w, id, v))
			return NULL;
	}
	np->n_output = (size_t)n->n_out;
	np->output = zalloc(w, (size_t)n->n_out * sizeof *np->output);
	for (int i = 0; i < n->n_out; i++)
		np->output[i] = (char *)(n->out[i] == IR_NONE ? "" : w->g->values[n->out[i]].name);
	return node_attrs(w, id, np) ? NULL : np;
}

static void add_opset(Onnx__ModelProto *mp, Onnx__OperatorSetIdProto *os,
                      Onnx__OperatorSetIdProto **osp, const char *domain, int version)
{
	Onnx__OperatorSetIdProto *o = &os[mp->n_opset_import];
	onnx__operator_set_id_proto__init(o);
	o->domain = (char *)domain;
	o->has_version = true;
	o->version = version;
	osp[mp->n_opset_import++] = o;
}

int onnx_write_model(Graph *g, const char *path, DiagSink *d)
{
	Writer w = { g, path, d, NULL, 0, NULL, 0, false, false };
	const Region *r = &g->regions[0];
	DiagLoc fl = diag_loc_file(path);
	int rc = -1;
	if (g->opset < 13) {
		diag_report(d, DIAG_ERROR, DC_UNSUPPORTED, &fl, "--emit-qdq writes opset 13 or newer "
		            "(per-axis DequantizeLinear); the model imports opset %d", g->opset);
		return -1;
	}
	w.inits = zalloc(&w, (size_t)g->n_values * sizeof *w.inits);
	w.is_init = calloc((size_t)g->n_values + 1, sizeof *w.is_init);
	if (!w.is_init)
		die("out of memory");
	Onnx__GraphProto gp;
	Onnx__ModelProto mp;
	Onnx__OperatorSetIdProto os[4];
	Onnx__OperatorSetIdProto *osp[4];
	onnx__graph_proto__init(&gp);
	onnx__model_proto__init(&mp);
	gp.name = (char *)"ingot_qdq";
	gp.node = zalloc(&w, (size_t)r->n_nodes * sizeof *gp.node);
	for (int i = 0; i < r->n_nodes; i++) {
		NodeId id = r->nodes[i];
		if (g->nodes[id].dead)
			continue;
		Onnx__NodeProto *np = node_proto(&w, id);
		if (!np)
			goto out;
		gp.node[gp.n_node++] = np;
	}
	gp.input = zalloc(&w, (size_t)r->n_inputs * sizeof *gp.input);
	for (int i = 0; i < r->n_inputs; i++)
		if (!g->values[r->inputs[i]].is_const)
			gp.input[gp.n_input++] = value_info(&w, r->inputs[i]);
	gp.output = zalloc(&w, (size_t)r->n_outputs * sizeof *gp.output);
	for (int i = 0; i < r->n_outputs; i++) {
		ValueId v = r->outputs[i];
		if (g->values[v].is_const || g->values[v].producer == IR_NONE) {
			diag_report(d, DIAG_ERROR, DC_UNSUPPORTED, &fl, "--emit-qdq cannot write graph "
			            "output '%s': a constant or an input", g->values[v].name);
			goto out;
		}
		gp.output[gp.n_output++] = value_info(&w, v);
	}
	gp.n_initializer = (size_t)w.n_inits;
	gp.initializer = w.inits;
	add_opset(&mp, os, osp, "", g->opset);
	if (w.ml_opset)
		add_opset(&mp, os, osp, "ai.onnx.ml", w.ml_opset);
	if (w.preview)
		add_opset(&mp, os, osp, "ai.onnx.preview", 1);
	if (w.training)
		add_opset(&mp, os, osp, "ai.onnx.preview.training", 1);
	mp.has_ir_version = true;
	mp.ir_version = g->opset >= 24 ? 11 : 8;   /* as tests/ort's models of opset >= 24 */
	mp.opset_import = osp;
	mp.producer_name = (char *)"ingot";
	mp.producer_version = (char *)"--emit-qdq";
	mp.graph = &gp;
	size_t len = onnx__model_proto__get_packed_size(&mp);
	uint8_t *buf = malloc(len ? len : 1);
	if (!buf)
		die("out of memory (%zu bytes of ONNX)", len);
	onnx__model_proto__pack(&mp, buf);
	FILE *f = fopen(path, "wb");
	bool ok = f && fwrite(buf, 1, len, f) == len;
	if (f && fclose(f) != 0)
		ok = false;
	if (ok)
		rc = 0;
	else
		diag_report(d, DIAG_ERROR, DC_IO, &fl, "cannot write: %s", strerror(errno));
	free(buf);
out:
	free(w.is_init);
	return rc;
}
