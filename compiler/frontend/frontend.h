/* frontend.h — loading ONNX models into the IR. The only layer that sees protobuf-c
 * types; the message is freed before onnx_load() returns.
 *
 *     FrontendOptions o = { 0 };
 *     if (onnx_load(&g, "model.onnx", &o, &diags)) ... report and exit 1
 */
#ifndef INGOT_FRONTEND_H
#define INGOT_FRONTEND_H

#include "ir.h"

/* --shape NAME=1x3x224x224 */
/* --shape NAME=DIMS; for a sequence input, NAME.0=DIMS, NAME.1=DIMS, ... give its
 * length and element shapes, NAME=[] makes it empty; NAME=none, an optional input
 * absent (a present optional is given like its value). */
typedef enum ShapeKind { SHAPE_TENSOR, SHAPE_EMPTY_SEQUENCE, SHAPE_NONE } ShapeKind;
typedef struct ShapeOverride {
	const char *name;
	int rank;
	int64_t dims[IR_MAX_RANK];
	ShapeKind kind;
} ShapeOverride;

/* --dim SYMBOL=V */
typedef struct DimOverride {
	const char *symbol;
	int64_t value;
} DimOverride;

/* --bind NAME=FILE|VALUE: VALUE is a number or a comma-separated list ("1,3,-1"),
 * taking the input's declared element type and shape (a list: 1-D of its length);
 * FILE is a TensorProto .pb or .npy file. */
typedef struct Binding {
	const char *name;
	const char *spec;
} Binding;

typedef struct FrontendOptions {
	const ShapeOverride *shapes;
	int n_shapes;
	const DimOverride *dims;
	int n_dims;
	const Binding *binds;
	int n_binds;
} FrontendOptions;

/* onnx_load.c: reads `path` into g (initialized by the caller with ir_graph_init).
 * Fills the main region's inputs (graph inputs that are not initializers, unless
 * bound) and outputs, constants (initializers, Constant nodes) in the blob, and one
 * IR node per ONNX node with typed attributes. Shapes of inputs are static when it
 * returns. Unsupported ops are all reported (DC_UNSUPPORTED) before it fails.
 * Returns 0, or -1 with diagnostics in d. Does not run shape inference. */
int onnx_load(Graph *g, const char *path, const FrontendOptions *opt, DiagSink *d);

/* onnx_write.c: the main graph as an ONNX model at path (--emit-qdq). 0, or -1 with
 * one diagnostic naming the node that cannot be written. */
int onnx_write_model(Graph *g, const char *path, DiagSink *d);

/* onnx_load.c: what kind of value each graph input (those without an initializer,
 * in order) and output is, for `check` to read test data: sequences and optionals
 * come as SequenceProto / OptionalProto files. */
typedef enum IoKind { IO_TENSOR, IO_SEQUENCE, IO_OPTIONAL } IoKind;
#define IO_KINDS_MAX 64
typedef struct IoKinds {
	int n_in, n_out;                   /* at most IO_KINDS_MAX each (the rest: tensors) */
	IoKind in[IO_KINDS_MAX], out[IO_KINDS_MAX];
	char in_name[IO_KINDS_MAX][256], out_name[IO_KINDS_MAX][256];
} IoKinds;
int onnx_io_kinds(const char *path, IoKinds *k, DiagSink *d);

/* onnx_scan.c: validates the raw protobuf wire format before protobuf-c sees it:
 * nesting deeper than 64, truncation (reported with its byte offset), lengths past
 * the end. Returns 0 or -1 with a diagnostic. */
int onnx_prescan(const uint8_t *data, size_t len, const char *file, DiagSink *d);

/* onnx_tensor.c: reads a TensorProto .pb or a .npy file into a fresh constant-like
 * buffer (malloc-owned *data) and its type. Used by --bind and `check`. */
int onnx_read_tensor_file(const char *path, Type *t, void **data, DiagSink *d);

#endif /* INGOT_FRONTEND_H */
