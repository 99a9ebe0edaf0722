/* ir.h — the intermediate representation shared by every layer after the frontend.
 *
 * A Graph owns everything in one arena (freed in one call) plus a growable `blob`
 * holding constant tensor bytes (weights, folded and packed constants). IR objects
 * refer to each other by integer ids (ValueId, NodeId, RegionId), never by pointer,
 * so vectors can grow and passes can rewrite freely.
 *
 * Regions: region 0 is the main graph; If/Loop/Scan bodies are nested regions with
 * their own inputs and outputs, in the same id space.
 *
 * Sections follow the implementing files: arena.c, types.c, graph.c, attrs.c,
 * print.c, parse.c, dot.c, verify.c.
 */
#ifndef INGOT_IR_H
#define INGOT_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "ingot_rt.h"
#include "ops.h"

#define IR_MAX_RANK INGOT_MAX_RANK
#define IR_NONE (-1)
#define COUNTOF(a) ((int)(sizeof(a) / sizeof((a)[0])))

typedef int32_t ValueId;
typedef int32_t NodeId;
typedef int32_t RegionId;

/* ---- arena.c: bump allocator, the one overflow-checked vector helper, hashes ---- */

typedef struct ArenaChunk ArenaChunk;
typedef struct Arena {
	ArenaChunk *head;
	size_t chunk_size;   /* bytes per new chunk; small in test builds so growth paths run */
	size_t total;        /* bytes handed out, for statistics */
} Arena;

void arena_init(Arena *a);
void arena_free(Arena *a);
void *arena_alloc(Arena *a, size_t size);            /* zeroed, 16-byte aligned; dies on OOM */
void *arena_array(Arena *a, size_t n, size_t elem);  /* zeroed, overflow-checked */
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...);

/* Grows *items (malloc-owned) so that it holds at least `need` elements. */
void vec_reserve(void **items, int *cap, int need, size_t elem);
/* Asks for transparent huge pages over the 2 MB-aligned part of [p, p+n), if the system
 * has them: a big array or buffer is then faulted in 2 MB at a time, not 4 KB (a big
 * model's compile touches ~300 MB; a page fault costs microseconds, in a VM most). */
void mem_advise_huge(void *p, size_t n);
#define VEC_PUSH(items, n, cap) \
	(vec_reserve((void **)&(items), &(cap), (n) + 1, sizeof *(items)), &(items)[(n)++])

/* Multiplies/adds sizes, reporting overflow (returns false) instead of wrapping. */
bool size_mul(int64_t a, int64_t b, int64_t *out);
bool size_add(int64_t a, int64_t b, int64_t *out);
/* FNV-1a of n bytes, continuing from h (start from IR_FNV32/IR_FNV64): the 32-bit one
 * checks the text IR's constant blobs, the 64-bit one keys ingot check's cache. */
#define IR_FNV32 2166136261u
#define IR_FNV64 0xcbf29ce484222325ull
uint32_t ir_fnv1a32(uint32_t h, const void *p, size_t n);
uint64_t ir_fnv1a64(uint64_t h, const void *p, size_t n);

/* ---- types.c: element types, layouts, quantization, tensor types ---- */

typedef enum DType {
	DT_UNDEF = INGOT_DT_UNDEF, DT_F32 = INGOT_DT_F32, DT_U8 = INGOT_DT_U8,
	DT_I8 = INGOT_DT_I8, DT_U16 = INGOT_DT_U16, DT_I16 = INGOT_DT_I16,
	DT_I32 = INGOT_DT_I32, DT_I64 = INGOT_DT_I64, DT_STRING = INGOT_DT_STRING,
	DT_BOOL = INGOT_DT_BOOL, DT_F16 = INGOT_DT_F16, DT_F64 = INGOT_DT_F64,
	DT_U32 = INGOT_DT_U32, DT_U64 = INGOT_DT_U64, DT_C64 = INGOT_DT_C64,
	DT_C128 = INGOT_DT_C128, DT_BF16 = INGOT_DT_BF16,
	DT_F8E4M3FN = INGOT_DT_F8E4M3FN, DT_F8E4M3FNUZ = INGOT_DT_F8E4M3FNUZ,
	DT_F8E5M2 = INGOT_DT_F8E5M2, DT_F8E5M2FNUZ = INGOT_DT_F8E5M2FNUZ,
	DT_U4 = INGOT_DT_U4, DT_I4 = INGOT_DT_I4, DT_F4E2M1 = INGOT_DT_F4E2M1,
	DT_F8E8M0 = INGOT_DT_F8E8M0, DT_U2 = INGOT_DT_U2, DT_I2 = INGOT_DT_I2,
	DT_COUNT
} DType;

size_t dtype_size(DType t);            /* bytes per element (a string: its INGOT_STRING_CAP slot); 0 for undef */
const char *dtype_name(DType t);       /* IR text name: f32, i64, bool, ... */
const char *dtype_c_type(DType t);     /* C type in generated code: float, int64_t, ... */
const char *dtype_onnx_name(DType t);  /* FLOAT, INT64, ... */
DType dtype_parse(const char *s);      /* inverse of dtype_name; DT_UNDEF if unknown */
bool dtype_is_float(DType t);          /* f16, bf16, f32, f64 */
bool dtype_is_int(DType t);            /* signed or unsigned integers, not bool */
bool dtype_is_signed(DType t);         /* signed integers and floats */
bool dtype_is_valid(int code);         /* a known ONNX dtype number we can carry */
bool dtype_is_small(DType t);          /* the 8- and 4-bit floats, int4/uint4, int2/uint2 */

typedef enum Layout {
	LAYOUT_PLAIN = 0,     /* row-major, ONNX order */
	LAYOUT_BLOCKED        /* channels split into blocks of Type.block (NCHW16c) */
} Layout;

/* Quantization parameters: per tensor (axis = -1, n = 1) or per axis. */
typedef struct Quant {
	int axis;
	int n;
	const float *scale;
	const int32_t *zero_point;
} Quant;

typedef struct Type {
	DType dtype;
	int rank;                      /* 0 = scalar */
	int64_t dims[IR_MAX_RANK];     /* static; a dim of 0 is a legal empty tensor */
	Layout layout;
	int block;                     /* block size when layout is BLOCKED */
	const Quant *quant;            /* NULL unless quantized */
} Type;

Type type_make(DType dt, int rank, const int64_t *dims);
int64_t type_numel(const Type *t);     /* product of dims (1 for a scalar) */
int64_t type_bytes(const Type *t);     /* THE byte size of a value of this type */
bool type_equal(const Type *a, const Type *b);
bool type_same_shape(const Type *a, const Type *b);
/* numpy-style broadcast of a and b into out (dtype of a); false if incompatible */
bool type_broadcast(const Type *a, const Type *b, Type *out);
/* "f32[1,3,224,224]"; returns buf */
char *type_format(const Type *t, char *buf, size_t cap);

/* ---- graph.c: values, nodes, regions, the graph and its constant blob ---- */

/* A sequence or optional resolved at compile time (DESIGN: sequences): the ordered
 * list of the values it holds. Only inference sees these; no sequence reaches the
 * passes or codegen. */
typedef struct SeqVal {
	bool none;               /* an empty optional (n = 0); a present optional is its value */
	int n;                   /* number of elements */
	const int32_t *elems;    /* ValueIds of the elements, graph arena */
	int dtype;               /* DType of the tensors in it (for an empty one) */
} SeqVal;

typedef struct Value {
	const char *name;        /* ONNX name (unique per graph); arena-owned */
	Type type;
	RegionId region;         /* the region it is defined in */
	NodeId producer;         /* IR_NONE for inputs and constants */
	int producer_slot;
	bool is_const;           /* data at blob + const_off, type_bytes(&type) bytes */
	int64_t const_off;
	bool is_input, is_output;/* region boundary markers (main graph: the model I/O) */
	bool dynamic;            /* data-dependent size: type.dims are the upper bound and the
	                            kernel reports the actual dims at run time (NonZero, NMS) */
	int64_t arena_off;       /* planned offset in the workspace, -1 if none */
	ValueId alias_of;        /* shares storage with this value (in-place / view), or IR_NONE */
	bool packed;             /* constant data permuted by codegen into a SIMD target's kernel
	                            layout (codegen/x86/prepack.c); only that kernel reads it */
	ValueId packed_from;     /* when packed: the constant it was made from (its type is
	                            the one the op's reference lowering expects) */
	const SeqVal *seq;       /* a sequence or optional (type = its element dtype, scalar); NULL
	                            for a tensor */
} Value;

typedef struct Node {
	Op op;
	int opset;               /* the ai.onnx opset the node was imported under */
	ValueId *in;             /* IR_NONE for an omitted optional input */
	int n_in;
	ValueId *out;            /* IR_NONE for an omitted optional output */
	int n_out;
	void *attrs;             /* the op group's typed attribute struct */
	const char **origins;    /* ONNX node names this node came from (fusion keeps all) */
	int n_origins;
	int origins_cap;         /* > 0: origins is this node's own array with room for this
	                            many (rw_origins_append grows it geometrically); 0: an
	                            exact-size array that may be shared, copied on growth.
	                            Whoever sets origins directly sets this to 0 */
	RegionId region;
	RegionId *bodies;        /* nested regions (If branches, Loop/Scan bodies) */
	int n_bodies;
	bool dead;               /* removed; skipped by every walk */
	bool device;             /* placed on the OpenCL device (passes/place.c); prints on(device) */
} Node;

typedef struct Region {
	RegionId parent;         /* IR_NONE for the main graph */
	const char *name;
	NodeId *nodes;           /* in execution (topological) order */
	int n_nodes, cap_nodes;
	ValueId *inputs;
	int n_inputs, cap_inputs;
	ValueId *outputs;
	int n_outputs, cap_outputs;
} Region;

typedef struct Graph {
	Arena arena;                 /* lifetime: the graph */
	Value *values;
	int n_values, cap_values;
	Node *nodes;
	int n_nodes, cap_nodes;
	Region *regions;
	int n_regions, cap_regions;
	uint8_t *blob;               /* lifetime: blob; constant bytes, each 64-byte aligned */
	int64_t blob_size, blob_cap;
	const char *file;            /* the model path, as the user named it (for diagnostics) */
	const char *producer;        /* producer_name from the model, informative */
	int64_t ir_version;
	int opset;                   /* ai.onnx opset of the main graph */
	bool qdq_folded;             /* fold_qdq or fold_constants has run: DequantizeLinear of
	                                constants folds (before, its integer weights wait for
	                                fold_qdq) */
	/* results of memory planning (bytes) */
	int64_t arena_bytes, scratch_bytes;
	int64_t naive_bytes;         /* all intermediates without reuse */
	int64_t peak_live_bytes;     /* largest sum of simultaneously live intermediates */
} Graph;

void ir_graph_init(Graph *g, const char *file);
void ir_graph_free(Graph *g);
RegionId ir_region_new(Graph *g, RegionId parent, const char *name);
ValueId ir_value_new(Graph *g, RegionId r, const char *name, const Type *t);
ValueId ir_value_new_const(Graph *g, RegionId r, const char *name, const Type *t, const void *data);
ValueId ir_value_find(const Graph *g, RegionId r, const char *name); /* r, then parents */
/* Appends a node to region r; in/out are copied. Sets the outputs' producer. */
NodeId ir_node_new(Graph *g, RegionId r, Op op, int opset, const ValueId *in, int n_in,
                   const ValueId *out, int n_out, const char *origin);
void ir_region_add_input(Graph *g, RegionId r, ValueId v);
void ir_region_add_output(Graph *g, RegionId r, ValueId v);
int64_t ir_blob_add(Graph *g, const void *data, int64_t bytes);   /* returns offset */
static inline Value *ir_value(Graph *g, ValueId v) { return &g->values[v]; }
static inline Node *ir_node(Graph *g, NodeId n) { return &g->nodes[n]; }
static inline const void *ir_const_data(const Graph *g, ValueId v)
{
	return g->values[v].is_const ? g->blob + g->values[v].const_off : NULL;
}
/* Makes a value constant with the given bytes (type_bytes of its type). */
void ir_value_set_const(Graph *g, ValueId v, const void *data);
/* The first non-dead node name for diagnostics ("" if none). */
const char *ir_node_name(const Graph *g, NodeId n);
const char *ir_op_name(Op op);        /* ONNX op type */
const char *ir_op_group(Op op);       /* its implementation group (ops.h), e.g. "conv" */
Op ir_op_lookup(const char *onnx_name); /* OP_COUNT if unknown */
int ir_op_since(Op op);                 /* the ai.onnx opset that introduced it, 0: unchecked */
DiagLoc ir_node_loc(const Graph *g, NodeId n);

/* ---- attrs.c: typed attribute structs, their field tables, import helpers ---- */

typedef struct IntList { int64_t *v; int n; } IntList;      /* n = -1: absent */
typedef struct FloatList { float *v; int n; } FloatList;    /* n = -1: absent */
typedef struct Scalar { DType dtype; uint8_t bytes[8]; } Scalar; /* a 1-element tensor */

typedef enum AttrKind {
	AK_INT,     /* int64_t */
	AK_FLOAT,   /* float */
	AK_INTS,    /* IntList */
	AK_FLOATS,  /* FloatList */
	AK_ENUM,    /* int, index into AttrField.enums (strings become enums at import) */
	AK_SCALAR   /* Scalar */
} AttrKind;

/* One field of an op group's attribute struct; drives IR print and parse. Tables name
 * only the members a field uses (the rest are zero). An AK_INT or AK_ENUM field with a
 * default prints only when its value differs from it, and parses as it when absent;
 * other absent scalars parse as 0, absent lists as n = -1. */
typedef struct AttrField {
	const char *name;
	AttrKind kind;
	size_t off;
	const char *const *enums;   /* AK_ENUM: NULL-terminated names */
	bool has_default;
	int64_t def;                /* the default value (AK_ENUM: its index) */
} AttrField;

/* The layout of an op's attribute struct (size 0: none), which IR print, parse and
 * ir_node_new go by. The ops layer defines ir_op_attrs (compiler/ops/opimpl.c, from
 * each group's OpImpl), so the IR never sees an op's implementation: it declares what
 * it needs and the layer above supplies it at link time. */
typedef struct OpAttrLayout {
	size_t attr_size;
	const AttrField *fields;
	int n_fields;
} OpAttrLayout;
OpAttrLayout ir_op_attrs(Op op);
/* A comment the IR printer writes above node n (FusedElementwise: its program), or
 * false when it has none; defined by the ops layer too. */
bool ir_node_comment(const Graph *g, NodeId n, char *buf, size_t cap);

/* An attribute as the frontend read it, before an op group types it. */
typedef enum RawAttrKind {
	RA_INT, RA_FLOAT, RA_STRING, RA_INTS, RA_FLOATS, RA_STRINGS, RA_TENSOR, RA_GRAPH
} RawAttrKind;
typedef struct RawAttr {
	const char *name;
	RawAttrKind kind;
	int64_t i;
	float f;
	const char *s;
	const int64_t *ints;
	const float *floats;
	const char *const *strings;
	int n;                       /* element count of ints/floats/strings */
	ValueId tensor;              /* RA_TENSOR: a constant value (outside any region's nodes) */
	RegionId graph;              /* RA_GRAPH: the imported subgraph */
} RawAttr;

/* Context handed to an op group's import(): fill c->attrs from the raw list. */
typedef struct ImportCtx {
	Graph *g;
	NodeId node;
	void *attrs;                 /* zeroed attr_size bytes, already attached to the node */
	const RawAttr *raw;
	int n_raw;
	DiagSink *diags;
} ImportCtx;

const RawAttr *import_find(const ImportCtx *c, const char *name);
int import_int(ImportCtx *c, const char *name, int64_t def, int64_t *out);
int import_float(ImportCtx *c, const char *name, float def, float *out);
int import_ints(ImportCtx *c, const char *name, IntList *out);      /* absent: n = -1 */
int import_floats(ImportCtx *c, const char *name, FloatList *out);  /* absent: n = -1 */
int import_enum(ImportCtx *c, const char *name, const char *const *names, int def, int *out);
int import_scalar(ImportCtx *c, const char *name, const Scalar *def, Scalar *out);
/* Reports a bad attribute value at this node; returns -1. */
int import_fail(ImportCtx *c, const char *attr, const char *fmt, ...);
/* An integer attribute as the frontend would have read it (for nodes made by passes). */
RawAttr raw_attr_int(const char *name, int64_t v);
double scalar_to_f64(const Scalar *s);
Scalar scalar_from_f64(DType dt, double v);

/* ---- print.c / parse.c: the text IR (docs/ir.md) ---- */

void ir_print(const Graph *g, FILE *f);
/* The same text without the memory plan (no @arena+N, no workspace line): what the
 * golden tests of passes other than plan_memory compare, so a planner change leaves them. */
void ir_print_unplanned(const Graph *g, FILE *f);
/* Writes the text IR to path and the constant blob to path + ".bin"; 0 or -1 (errno). */
int ir_dump(const Graph *g, const char *path);
/* Parses text IR; constants over 16 elements come from blob_file. Returns 0 or -1. */
int ir_parse(Graph *g, const char *text, size_t len, const char *blob_file, DiagSink *d);

/* ---- dot.c: a Graphviz picture of the main graph (--dot, --svg FILE) ---- */

/* How ir_dot colours nodes: node_color, when set and not returning NULL, gives a
 * node's fill colour ("#rrggbb"; the hook for device placement), else its op
 * family's colour (ir_op_family). legend, when set, replaces the op families'
 * legend: name, colour pairs, NULL-terminated. */
typedef struct DotStyle {
	const char *(*node_color)(const Graph *g, NodeId n, void *user);
	void *user;
	const char *const *legend;
} DotStyle;
/* The op's family for pictures ("conv/matmul", "elementwise", "pool", ...) and its colour. */
const char *ir_op_family(Op op, const char **color);
/* The intermediate with the longest live range in the schedule (most nodes from
 * its producer to its last reader; ties: more bytes, then the lower id), IR_NONE if
 * none; *steps gets that length: the nodes from its producer to its last reader, both
 * counted. */
ValueId ir_widest_live_range(const Graph *g, int *steps);
/* style may be NULL (family colours). */
void ir_dot(const Graph *g, const DotStyle *style, FILE *f);

/* ---- verify.c ---- */

/* Checks structural invariants; a failure is a compiler bug (returns -1, message). */
int ir_verify(const Graph *g, char *err, size_t cap);

#endif /* INGOT_IR_H */
