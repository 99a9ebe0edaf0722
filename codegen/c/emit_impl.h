/* emit_impl.h — what emit.c and emit_control.c share: the state of one model's
 * emission and the function scopes of NAME.c. Private to codegen/c. */
#ifndef INGOT_CODEGEN_C_EMIT_IMPL_H
#define INGOT_CODEGEN_C_EMIT_IMPL_H

#include "c_target.h"
#include "control_export.h"

typedef struct Ctx {
	Graph *g;
	const CodegenOptions *o;
	const Target *t;
	WeightsLayout w;
	char NAME[80];
	char **param_names;          /* per main-region input/output: the typed run() name */
	int n_indexed;               /* values main_in / main_out cover (those before emission) */
	int *main_in, *main_out;     /* per value: its first index among the main region's
	                              * inputs / outputs, or -1 (cg_c_io_index, in O(1)) */
	int64_t dims_off;            /* workspace offset of the run-time dims of dynamic outputs */
	int n_dynamic;               /* outputs with data-dependent sizes */
	int64_t rng_off;             /* workspace offset of the random ops' state (random.h) */
	bool has_rng;                /* a call reads that state: it exists, NAME_seed too */
	KernelSet *ks;               /* kernel families the calls use */
	DiagSink *d;
	Emitter params;              /* kernel parameter structs, one per call */
	int n_calls;
	Emitter funcs;               /* body functions of control-flow nodes */
	int n_funcs;
	int n_fused;                 /* FusedElementwise functions emitted (their names) */
	int64_t par_stride;          /* per-task scratch of the split calls, 64-byte multiple */
	int n_par;                   /* calls NAME_run_par splits over threads */
	int n_prof;                  /* nodes timed by --profile (main region) */
	NodeId *prof_nodes;          /* which ones, in order (graph arena) */
	const CEmitHooks *hooks;     /* a device target's additions, or NULL */
} Ctx;

/* The function being emitted: NAME_run_v (region 0) or a body's function, which
 * reaches outer values that live outside the workspace (graph inputs and outputs,
 * enclosing bodies' inputs and outputs) through its cap[] argument. */
typedef struct Scope {
	RegionId r;
	ValueId *caps;
	int n_caps;
} Scope;

/* emit.c */
/* The C expression of a value's storage inside NAME_run_v or a body function. */
void cg_c_value_ref(Ctx *c, const Scope *s, ValueId v, char *buf, size_t cap);
void cg_c_node_comment(Emitter *e, Ctx *c, NodeId id, const char *indent);
/* "name f32[2,3]" of a value, safe in a comment. */
void cg_c_value_desc(const Graph *g, ValueId v, char *buf, size_t cap);
/* The nodes of a region, in order, as calls. */
int cg_c_emit_nodes(Ctx *c, const Scope *s, Emitter *body);

/* emit_fused.c: a FusedElementwise node as its own static function of NAME.c (into
 * c->funcs), replacing kc's reference kernel ingot_fused_elementwise. */
int cg_c_emit_fused(Ctx *c, NodeId id, KernelCall *kc);
/* Lanes of the fused functions' vector loop on target t; 1: scalar only. */
int cg_c_fused_lanes(const Target *t);

/* emit_control.c: a control-flow node (If, Loop, Scan): its bodies as static
 * functions NAME_body_<k>, and the branch or loop calling them. */
int cg_c_emit_control(Ctx *c, const Scope *s, Emitter *body, NodeId id);

#endif
