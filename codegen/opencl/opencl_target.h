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
	int dims;                    /* NDRange dimensions, 1..3 */
	int64_t gws[3], lws[3];      /* global and local sizes; lws[0] == 0: the driver's */
} OclCall;

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
