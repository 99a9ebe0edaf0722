/* c_target.h — the C target's internals (sections: kernels.c, emit.c, emit_par.c). */
#ifndef INGOT_C_TARGET_H
#define INGOT_C_TARGET_H

#include "codegen.h"

/* kernels.c: the runtime-stubs families a graph's calls need, sorted, unique */
typedef struct KernelSet {
	const char *families[64];   /* every family of runtime-stubs/kernels fits (test guards: one model calls them all) */
	int n;
} KernelSet;
void cg_c_kernel_set_add(KernelSet *s, const char *family);
int cg_c_copy_kernels(const KernelSet *s, const char *out_dir, DiagSink *d);
/* Prints a kernel parameter struct as a C99 designated initializer. */
void cg_c_emit_params(Emitter *e, const ParamDesc *d, const void *params);
/* A float (single) or double literal that reads back to the same bits. */
void cg_c_emit_real(Emitter *e, double v, bool single);
/* A C string literal of s, escaped. */
void cg_c_emit_string(Emitter *e, const char *s);

/* emit.c */
int cg_c_emit(const Target *t, Graph *g, const CodegenOptions *o, DiagSink *d);
/* emit_control.c: the slices of a Scan input or output t along its axis (after
 * `skip` leading dims): rows of *inner bytes, *outer of them per step. */
void cg_c_scan_geometry(const Type *t, int skip, int64_t axis, int64_t *outer, int64_t *inner);
/* emit.c: v's index in list[0..n) (a region's inputs or outputs), or -1. */
int cg_c_io_index(const ValueId *list, int n, ValueId v);
/* emit.c: a dynamic output's slot among the run-time dims in the workspace (the
 * int64_t[INGOT_MAX_RANK] slots of 64 bytes after the arena and scratch). */
int cg_c_dynamic_slot(const Graph *g, ValueId v);
/* emit.c: NAME.h, ingot_rt.h and, for --emit exe, the runner (NAME_main.c and its
 * stubs) of a model whose code another backend writes (codegen/llvm), with the
 * weights laid out as w and par_stride bytes of scratch per extra thread. */
int cg_c_emit_api(const Target *t, Graph *g, const CodegenOptions *o, const WeightsLayout *w,
                  int64_t par_stride, DiagSink *d);

/* emit.c: a device target's additions to this output (codegen/opencl). CEmit is one
 * model's emission; the hooks see it through the accessors below. */
typedef struct Ctx CEmit;
typedef struct CEmitHooks {
	/* main-graph node id as code in body: 1 when it did, 0 to leave it to the C
	 * call, -1 on error (diagnostics reported) */
	int (*node)(CEmit *c, Emitter *body, NodeId id, void *state);
	/* NAME.c, before the graph function (which becomes NAME_exec_dev, taking
	 * `NAME_cl *cl` last): the device state and program */
	void (*source)(CEmit *c, Emitter *e, void *state);
	/* NAME.c, after it: NAME_exec(inputs, outputs, workspace, par), which the
	 * NAME_run entry points call, and the device API */
	void (*exec)(CEmit *c, Emitter *e, void *state);
	/* NAME.h, after NAME_run_par_v: the device API */
	void (*header)(CEmit *c, Emitter *e, void *state);
	/* NAME_main.c, before the runner's table: static NAME_runner_dev_open, _run and
	 * _close (ingot_runner_model's dev_*), so the runner sets the device up once */
	void (*runner)(CEmit *c, Emitter *e, void *state);
	const char *ldlibs;          /* the build files' extra libraries ("-lOpenCL") */
	void *state;
} CEmitHooks;
int cg_c_emit_hooked(const Target *t, Graph *g, const CodegenOptions *o, DiagSink *d,
                     const CEmitHooks *h);
Graph *cg_c_graph(const CEmit *c);
const char *cg_c_name(const CEmit *c);             /* the model name; NAME: cg_c_upper */
const char *cg_c_upper(const CEmit *c);
DiagSink *cg_c_diags(const CEmit *c);
/* The emitted weights blob: offset of constant v in NAME_weights, and its size. */
int64_t cg_c_weight_off(const CEmit *c, ValueId v);
int64_t cg_c_weights_size(const CEmit *c);
/* The C expression of v's host storage in the graph function. */
void cg_c_ref(CEmit *c, ValueId v, char *buf, size_t cap);
/* The comment above a node's code (op, ONNX names, inputs, outputs). */
void cg_c_comment(CEmit *c, Emitter *e, NodeId id);
/* A kernel parameter struct `static const T pN = {...};` among the calls' (its
 * kernel family's header is included); returns N. */
int cg_c_add_params(CEmit *c, NodeId id, const KernelCall *kc);

/* emit_par.c: threads and --profile */
/* A node's work for NAME_run_par's split (INGOT_PAR_TASKS): its MACs, or its
 * largest input or output in elements. */
int64_t cg_c_par_work(const Graph *g, NodeId id);
void cg_c_emit_par_pool(Emitter *e, const char *name);               /* NAME.c */
void cg_c_emit_par_api(Emitter *e, const CodegenOptions *o, const char *NAME,
                       int64_t stride);                              /* NAME.h */
void cg_c_emit_prof_api(Emitter *e, const char *name, const char *NAME, int n_prof);
void cg_c_emit_prof_table(Emitter *e, const Graph *g, const char *name, const NodeId *nodes, int n);

#endif
