/* opencl_target.h — the OpenCL target's internals (sections: lower.c, kernels.c,
 * emit.c). It runs the nodes passes/place.c put on the device as OpenCL C kernels
 * and every other node through its host target (Target.host), whose C output it
 * extends (c_target.h's CEmitHooks). */
#ifndef INGOT_OPENCL_TARGET_H
#define INGOT_OPENCL_TARGET_H

#include "c_target.h"

/* lower.c: a device node as a launch of one kernel of runtime-stubs/kernels/opencl/ */
typedef struct OclCall {
	KernelCall ref;              /* the reference lowering: the params the kernel takes */
	const char *kernel;          /* __kernel name; NULL: no kernel (a view's copy) */
	int n_slots;                 /* input slots the kernel takes (missing ones: a dummy) */
	bool status;                 /* then the status word (an index out of range) */
	int n_extra_out;             /* then outputs 1..n_extra_out (missing ones: a dummy);
	                              * output 0 comes last */
	bool table;                  /* input slot 1 is a table the compiler computes
	                              * (cg_ocl_table), in NAME_cl_tables */
	int dims;                    /* NDRange dimensions, 1..3 */
	int64_t gws[3], lws[3];      /* global and local sizes; lws[0] == 0: the driver's */
} OclCall;

/* The table of a call with oc->table (Resize's taps, ingot.cl's ingot_cl_resize) as
 * 32-bit words, malloc'd; *n_words set. */
uint32_t *cg_ocl_table(const OclCall *oc, int64_t *n_words);

/* ingot_cl_concat's input slots (x0..x6: INGOT_CL_MAX_BUFS - 1); a Concat of more
 * inputs launches once per OCL_CONCAT_PART of them (emit.c), with two gap slots. */
#define INGOT_CL_CONCAT_SLOTS 7
#define OCL_CONCAT_PART (INGOT_CL_CONCAT_SLOTS - 2)
/* Concat input k's bytes per row (row_bytes, then row_bytes_hi past 16). */
int64_t cg_ocl_concat_bytes(const void *concat_params, int k);

/* Whether the device can run node n (Target.supported of PlaceConfig); why not. */
bool cg_ocl_supported(const void *target, Graph *g, NodeId n, const char **why);
/* The launch of device node n; -1 when it has no kernel (a compiler bug after place). */
int cg_ocl_call(const Target *t, Graph *g, NodeId n, OclCall *oc);
/* Target.lower: device nodes need no kernel scratch; the rest lower on the host. */
int cg_ocl_lower(const Target *t, Graph *g, NodeId n, KernelCall *kc);
/* Target.prepare: the host target's, which leaves device nodes alone. */
int cg_ocl_prepare(const Target *t, Graph *g);

/* kernels.c: the OpenCL C program of a model: the per-element math (ewtable.h,
 * ewmath.h), the parameter structs, the kernels (ingot.cl), as C string literals
 * NAME_cl_source[] (one per part), and its build options. */
void cg_ocl_emit_program(Emitter *e, const Target *t, const char *name);

/* emit.c: Target.emit */
int cg_ocl_emit(const Target *t, Graph *g, const CodegenOptions *o, DiagSink *d);

#endif
