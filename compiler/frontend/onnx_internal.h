/* onnx_internal.h — what the frontend's files share. Private to compiler/frontend/:
 * the only header that exposes protobuf-c types, so it must never be included from
 * another layer.
 *
 * Sections follow the implementing files: onnx_load.c (the model, the name map,
 * located errors), onnx_tensor.c (TensorProto decoding, external data, --bind
 * values), onnx_inputs.c (graph input types and overrides), onnx_function.c
 * (model-local functions, inlined), onnx_graph.c (initializers, nodes, attributes,
 * outputs).
 */
#ifndef INGOT_ONNX_INTERNAL_H
#define INGOT_ONNX_INTERNAL_H

#include "frontend.h"
#include "onnx.pb-c.h"

/* ---- onnx_load.c ---- */

/* name → value, one per region (a subgraph's scope sees its parents'). Keys are
 * arena strings owned by the graph; the table itself is malloc-owned. */
typedef struct NameMap {
	const char **keys;
	ValueId *vals;
	size_t cap, n;
} NameMap;

void onnx_names_init(NameMap *m);
void onnx_names_free(NameMap *m);
ValueId onnx_names_get(const NameMap *m, const char *name);   /* IR_NONE if absent */
void onnx_names_put(NameMap *m, const char *key, ValueId v);  /* key: arena-owned */

typedef struct OnnxFunction OnnxFunction;

/* The state of one onnx_load() call. */
typedef struct Loader {
	Graph *g;
	DiagSink *d;
	const char *file;             /* the model path as the user named it */
	const char *dir;              /* its directory (graph arena), for external data */
	const FrontendOptions *opt;
	int opset;                    /* ai.onnx opset of the model */
	int ml_opset;                 /* its ai.onnx.ml opset, 0 when it imports none */
	bool *dim_used;               /* per opt->dims entry: matched some symbolic dim */
	int n_attr_consts;            /* counter for names of attribute tensors */
	OnnxFunction *functions;      /* the model's local functions (onnx_function.c) */
	size_t n_functions;
	int n_fn_calls;               /* inlined calls so far, for unique value prefixes */
} Loader;

/* Reports an error at the model file with an optional location template. */
int onnx_fail(Loader *L, DiagCode code, const DiagLoc *loc, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;
/* Rejects fields this onnx.proto does not know (written by a newer ONNX), by name
 * where we know it, unless ignoring them cannot change the meaning (metadata). */
int onnx_check_unknown(Loader *L, const ProtobufCMessage *m, const DiagLoc *loc);

/* ---- onnx_tensor.c ---- */

/* ONNX TensorProto.DataType name for diagnostics ("FLOAT8E4M3FN"), or NULL. */
const char *onnx_dtype_label(int code);
/* Maps an ONNX element type to a DType we can carry; reports (naming `loc`) and
 * returns -1 for undefined, string, complex and newer or unknown types. */
int onnx_dtype_check(Loader *L, int code, const DiagLoc *loc, DType *out);
/* Decodes a TensorProto in any storage form into a new constant value of region r
 * named `name`. Returns IR_NONE (with a diagnostic naming `loc`) on error. */
ValueId onnx_tensor_import(Loader *L, const Onnx__TensorProto *t, RegionId r,
                           const char *name, const DiagLoc *loc);
/* ir_value_new_const, reporting (rather than dying) when the blob cannot grow. */
ValueId onnx_const_new(Loader *L, RegionId r, const char *name, const Type *t,
                       const void *data, const DiagLoc *loc);
/* Parses a --bind VALUE ("3", "1,3,-1") into `dt`, *data malloc-owned with *n
 * elements. Returns 1 if spec is not a number list (so it names a file), 0 on
 * success, -1 on a bad value (reported). */
int onnx_parse_bind_value(Loader *L, const char *spec, DType dt, const DiagLoc *loc,
                          void **data, int64_t *n);

/* ---- onnx_inputs.c ---- */

/* The element type of the tensors inside a type (through sequences and optionals),
 * 0 when there is none. */
int onnx_type_elem(const Onnx__TypeProto *tp);

/* Creates the value of graph input vi in region r: a typed region input, or a
 * constant when --bind names it. Returns the value or IR_NONE (reported). */
ValueId onnx_input_import(Loader *L, const Onnx__ValueInfoProto *vi, RegionId r);
/* Whether --bind names this input. */
bool onnx_input_is_bound(const Loader *L, const char *name);
/* Reports --shape/--bind names that match no graph input. */
int onnx_inputs_check_names(Loader *L, const Onnx__GraphProto *gp);
/* The bound of a graph output whose size depends on the data (ImageDecoder's image):
 * --shape NAME=DIMS, else its declared dims with symbolic ones fixed by --dim and
 * unknown ones 0; *rank -1 when nothing is declared. 0 or -1 (reported). */
int onnx_output_bound(Loader *L, const Onnx__ValueInfoProto *vi, const DiagLoc *loc, int *rank,
                      int64_t *dims);
/* Warns about --dim symbols that matched no input dim (nor an image's bound). */
void onnx_inputs_warn_unused_dims(Loader *L);

/* ---- onnx_function.c ---- */

/* Reads ModelProto.functions (with their attribute defaults) into L. 0 or -1. */
int onnx_functions_init(Loader *L, const Onnx__ModelProto *m);
void onnx_functions_free(Loader *L);
/* The function a node of this domain and op_type calls, or NULL. */
const OnnxFunction *onnx_function_find(const Loader *L, const char *domain, const char *name);
/* *out = gp with every function call inlined (recursively). *opsets: NULL when
 * nothing was inlined, else the ai.onnx opset of each node of out (graph arena). */
int onnx_functions_expand(Loader *L, const Onnx__GraphProto *gp, const char *graph_name,
                          Onnx__GraphProto *out, int **opsets);

/* ---- onnx_graph.c ---- */

/* Imports a GraphProto into region r (inputs, initializers, nodes, outputs). */
int onnx_graph_import(Loader *L, const Onnx__GraphProto *gp, RegionId r);

#endif /* INGOT_ONNX_INTERNAL_H */
