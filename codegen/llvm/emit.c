/* emit.c — --backend llvm: a model's NAME.o through the LLVM-C API, no C compiler.
 *
 * The kernels come as bitcode built into ingot (kernels_bc.c through clang at build
 * time, one module per target, bitcode.S). The graph is built with the IR builder
 * from the same lowering the C backend uses: per node, the target's KernelCall, its
 * parameter struct as a private constant (the bytes the C backend prints as an
 * initializer), the in[]/out[] pointer arrays into the inputs, outputs, weights and
 * arena offsets, and the call, whose non-zero code is returned. Graph and kernels
 * are linked into one module (LLVMLinkModules2); everything but the model's API is
 * internalized, so unused kernels go and each call site sees its constant
 * parameters and shapes when the whole module is optimised (the inliner specialises
 * the kernels to this model). The weights are one constant global (one
 * LLVMConstStringInContext for the blob). NAME.h and the runner come from the C
 * backend (cg_c_emit_api), so both backends give the same API.
 *
 * The bitcode of c, x86-avx2 and x86-avx512 is the host's (x86-64), that of neon
 * aarch64's and that of neon32 armv7's (hard-float): the default --triple is the
 * bitcode's, and a --triple of another architecture is refused.
 *
 * A data-dependent output size (NonZero, Unique...) is written by its kernel into the
 * workspace's dims slots and read back by NAME_out_dims, as on the C path.
 *
 * If, Loop and Scan bodies are emitted inline in the graph function (a branch, a
 * loop; the C path makes each body a function): a body's inputs and outputs are
 * pointer slots, and outer values are the enclosing function's own.
 *
 * Not yet: random ops without a seed, --profile and --target opencl: each is one error line naming the
 * node or option. */
#include "llvm_target.h"
#include "c_target.h"
#include "control_export.h"

#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/IPO.h>
#include <llvm-c/Transforms/PassManagerBuilder.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* bitcode.S: the kernels of each target, between BEGIN and END, and their architecture */
#define BITCODES(X) X("c", c, "x86_64") X("x86-avx2", x86_avx2, "x86_64") X("x86-avx512", x86_avx512, "x86_64") \
	X("neon", neon, "aarch64") X("neon32", neon32, "arm")
#define DECLARE(tname, tid, arch) extern const char ingot_llvm_bc_##tid[], ingot_llvm_bc_##tid##_end[];
BITCODES(DECLARE)

bool cg_llvm_available(void)
{
	return true;
}

/* The kernels' bitcode of target t and its architecture (a triple's first part), or NULL. */
static const char *target_bitcode(const Target *t, size_t *len, const char **arch)
{
#define FIND(tname, tid, tarch) \
	if (strcmp(t->name, tname) == 0) { \
		*len = (size_t)(ingot_llvm_bc_##tid##_end - ingot_llvm_bc_##tid); \
		*arch = tarch; \
		return ingot_llvm_bc_##tid; \
	}
	BITCODES(FIND)
#undef FIND
	return NULL;
}

/* The architecture of a triple, its text up to the first '-', with the 32-bit arm
 * spellings (arm, armv7, armv7a, armv7l, thumbv7...) as one. */
static size_t triple_arch(const char *triple, const char **arch)
{
	size_t n = strcspn(triple, "-");
	*arch = triple;
	if ((n >= 3 && strncmp(triple, "arm", 3) == 0 && strncmp(triple, "arm64", 5) != 0) ||
	    (n >= 5 && strncmp(triple, "thumb", 5) == 0)) {
		*arch = "arm";
		return 3;
	}
	return n;
}

/* A control-flow body being emitted inline: its inputs' and outputs' storage as
 * slots (allocas holding an i8*), loaded at each use; other values resolve in the
 * enclosing scope (the same function, so outer values need no capture). */
typedef struct LScope {
	RegionId r;
	LLVMValueRef *bin, *bout;
	const struct LScope *up;
} LScope;

typedef struct L {
	Graph *g;
	const CodegenOptions *o;
	const Target *t;
	DiagSink *d;
	WeightsLayout w;
	LLVMContextRef ctx;
	LLVMModuleRef m;
	LLVMBuilderRef b;
	LLVMTypeRef i8, i8p, i8pp, i32, i64, kfn;
	LLVMValueRef weights;        /* NAME_weights, or NULL without weights */
	LLVMValueRef fn;             /* the function being built */
	LLVMValueRef inputs, outputs, ws, scratch, scratch_more, par;
	LLVMValueRef par_call;       /* ingot_llvm_par_call */
	int *main_in, *main_out;     /* per value: its index among the graph's inputs/outputs */
	const LScope *scope;         /* the body being emitted, or NULL in the main region */
	int n_calls;
	int64_t par_stride;
} L;

static void loc_error(L *l, NodeId id, const char *msg)
{
	DiagLoc loc = ir_node_loc(l->g, id);
	diag_report(l->d, DIAG_ERROR, DC_UNSUPPORTED, &loc, "%s", msg);
}

static void file_error(L *l, const char *fmt, const char *arg)
{
	DiagLoc loc = diag_loc_file(l->o->source_name ? l->o->source_name : "");
	diag_report(l->d, DIAG_ERROR, DC_UNSUPPORTED, &loc, fmt, arg);
}

static LLVMValueRef i32c(L *l, int64_t v) { return LLVMConstInt(l->i32, (unsigned long long)v, 1); }
static LLVMValueRef i64c(L *l, int64_t v) { return LLVMConstInt(l->i64, (unsigned long long)v, 1); }

/* base + off, an i8* */
static LLVMValueRef byte_ptr(L *l, LLVMValueRef base, int64_t off)
{
	LLVMValueRef idx = i64c(l, off);
	return off ? LLVMBuildInBoundsGEP2(l->b, l->i8, base, &idx, 1, "") : base;
}

/* array[k], an i8* loaded from an i8** */
static LLVMValueRef load_slot(L *l, LLVMValueRef array, int k)
{
	LLVMValueRef idx = i64c(l, k);
	LLVMValueRef p = LLVMBuildInBoundsGEP2(l->b, l->i8p, array, &idx, 1, "");
	return LLVMBuildLoad2(l->b, l->i8p, p, "");
}

/* The storage of value v in the graph function (cg_c_value_ref's main-region rules). */
static LLVMValueRef value_ref(L *l, ValueId v)
{
	const Value *val = &l->g->values[v];
	int k;
	for (const LScope *sc = l->scope; sc && !val->is_const; sc = sc->up) {   /* cg_c_value_ref's body rules */
		const Region *reg = &l->g->regions[sc->r];
		if ((k = cg_c_io_index(reg->inputs, reg->n_inputs, v)) >= 0)
			return LLVMBuildLoad2(l->b, l->i8p, sc->bin[k], "");
		if ((k = cg_c_io_index(reg->outputs, reg->n_outputs, v)) >= 0)
			return LLVMBuildLoad2(l->b, l->i8p, sc->bout[k], "");
		if (val->arena_off >= 0)
			return byte_ptr(l, l->ws, val->arena_off);
	}
	if ((k = l->main_out[v]) >= 0 && val->producer != IR_NONE && !l->g->nodes[val->producer].dead)
		return load_slot(l, l->outputs, k);
	if ((k = l->main_in[v]) >= 0)
		return load_slot(l, l->inputs, k);
	if (val->is_const && type_bytes(&val->type) == 0)
		return LLVMConstNull(l->i8p);
	if (val->is_const)
		return LLVMConstInBoundsGEP2(l->i8, l->weights, (LLVMValueRef[]){ i64c(l, l->w.off[v]) }, 1);
	if (val->arena_off >= 0)
		return byte_ptr(l, l->ws, val->arena_off);
	die("value '%s' has no storage", val->name);
}

/* The workspace offset of the dims slot of dynamic output v (cg_c_emit_api's layout). */
static int64_t dims_off(L *l, ValueId v)
{
	return l->g->arena_bytes + l->g->scratch_bytes + 64 * (int64_t)cg_c_dynamic_slot(l->g, v);
}

/* A private constant of n bytes, aligned `align`: a parameter struct. */
static LLVMValueRef const_bytes(L *l, const void *data, size_t n, unsigned align, const char *name)
{
	LLVMValueRef init = LLVMConstStringInContext(l->ctx, data, (unsigned)n, 1);
	LLVMValueRef gv = LLVMAddGlobal(l->m, LLVMTypeOf(init), name);
	LLVMSetInitializer(gv, init);
	LLVMSetGlobalConstant(gv, 1);
	LLVMSetLinkage(gv, LLVMPrivateLinkage);
	LLVMSetUnnamedAddress(gv, LLVMGlobalUnnamedAddr);
	LLVMSetAlignment(gv, align);
	return LLVMConstBitCast(gv, l->i8p);
}

/* An alloca'd array of n i8* in the entry block, filled with vals. */
static LLVMValueRef ptr_array(L *l, LLVMValueRef *vals, int n, const char *name)
{
	LLVMBasicBlockRef cur = LLVMGetInsertBlock(l->b);
	LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(l->fn);
	LLVMValueRef first = LLVMGetFirstInstruction(entry);
	LLVMTypeRef at = LLVMArrayType(l->i8p, (unsigned)(n > 0 ? n : 1));
	if (first)
		LLVMPositionBuilderBefore(l->b, first);
	else
		LLVMPositionBuilderAtEnd(l->b, entry);
	LLVMValueRef a = LLVMBuildAlloca(l->b, at, name);
	LLVMPositionBuilderAtEnd(l->b, cur);
	for (int k = 0; k < n; k++) {
		LLVMValueRef idx[2] = { i64c(l, 0), i64c(l, k) };
		LLVMBuildStore(l->b, vals[k], LLVMBuildInBoundsGEP2(l->b, at, a, idx, 2, ""));
	}
	LLVMValueRef idx[2] = { i64c(l, 0), i64c(l, 0) };
	return LLVMBuildInBoundsGEP2(l->b, at, a, idx, 2, name);
}

/* `if (rc != 0) return rc;` then continue in a new block. */
static void return_if_error(L *l, LLVMValueRef rc)
{
	LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(l->ctx, l->fn, "fail");
	LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(l->ctx, l->fn, "next");
	LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntNE, rc, i32c(l, 0), ""), fail, next);
	LLVMPositionBuilderAtEnd(l->b, fail);
	LLVMBuildRet(l->b, rc);
	LLVMPositionBuilderAtEnd(l->b, next);
}

static LLVMValueRef kernel_fn(L *l, const char *name)
{
	LLVMValueRef f = LLVMGetNamedFunction(l->m, name);
	return f ? f : LLVMAddFunction(l->m, name, l->kfn);
}

/* One node as a kernel call (emit.c's emit_call without the C text). */
static int emit_call(L *l, NodeId id)
{
	Graph *g = l->g;
	const Node *n = &g->nodes[id];
	KernelCall kc;
	char name[64];
	if (l->t->lower(l->t, g, id, &kc)) {
		char msg[160];
		snprintf(msg, sizeof msg, "no kernel for this node on target '%s'", l->t->name);
		loc_error(l, id, msg);
		return -1;
	}
	if (kc.rng) {
		loc_error(l, id, "random ops without a seed are not supported by --backend llvm yet");
		return -1;
	}
	LLVMValueRef params = LLVMConstNull(l->i8p);
	if (kc.pdesc) {
		snprintf(name, sizeof name, "p%d", l->n_calls);
		params = const_bytes(l, kc.params, kc.pdesc->size, 8, name);
	}
	unsigned compile_time = op_info(n->op)->const_inputs;
	LLVMValueRef in[n->n_in + 1], out[2 * n->n_out + 1];
	for (int k = 0; k < n->n_in; k++)
		in[k] = n->in[k] == IR_NONE || (k < 32 && (compile_time & (1u << k))) ? LLVMConstNull(l->i8p)
		                                                                     : value_ref(l, n->in[k]);
	int n_out = n->n_out;
	for (int k = 0; k < n->n_out; k++)
		out[k] = n->out[k] == IR_NONE ? LLVMConstNull(l->i8p) : value_ref(l, n->out[k]);
	for (int k = 0; k < n->n_out; k++)   /* a data-dependent size: where the kernel writes the dims */
		if (n->out[k] != IR_NONE && g->values[n->out[k]].dynamic) {
			if (l->scope) {
				loc_error(l, id, "an output with a data-dependent size inside a control-flow body: not supported");
				return -1;
			}
			out[n_out++] = byte_ptr(l, l->ws, dims_off(l, n->out[k]));
		}
	LLVMValueRef ain = ptr_array(l, in, n->n_in, "in"), aout = ptr_array(l, out, n_out, "out");
	LLVMValueRef fn = kernel_fn(l, kc.fn_name), rc;
	if (kc.split) {   /* NAME_run_par may split it over threads */
		int64_t stride = (kc.scratch_bytes + 63) / 64 * 64, work = cg_c_par_work(g, id);
		int64_t tasks = work / 131072 < 1 ? 1 : work / 131072 > 256 ? 256 : work / 131072;  /* INGOT_PAR_TASKS */
		if (stride > l->par_stride)
			l->par_stride = stride;
		LLVMTypeRef pt[] = { l->i8p, l->i32, LLVMPointerType(l->kfn, 0), l->i8p, l->i8pp, l->i8pp, l->i8p,
		                     l->i8p, l->i64 };
		LLVMTypeRef pft = LLVMFunctionType(l->i32, pt, 9, 0);
		if (!l->par_call)
			l->par_call = LLVMAddFunction(l->m, "ingot_llvm_par_call", pft);
		/* the stride is known only after every call: a placeholder global, set at the end */
		LLVMValueRef sv = LLVMGetNamedGlobal(l->m, "ingot_llvm_par_stride");
		LLVMValueRef args[] = { l->par, i32c(l, tasks), fn, params, ain, aout, l->scratch, l->scratch_more,
		                        LLVMBuildLoad2(l->b, l->i64, sv, "stride") };
		rc = LLVMBuildCall2(l->b, pft, l->par_call, args, 9, "rc");
	} else {
		LLVMValueRef args[] = { params, ain, aout, l->scratch, i32c(l, 0), i32c(l, 1) };
		rc = LLVMBuildCall2(l->b, l->kfn, fn, args, 6, "rc");
	}
	return_if_error(l, rc);
	l->n_calls++;
	return 0;
}

static int emit_region(L *l, RegionId r);

/* An alloca in the entry block. */
static LLVMValueRef entry_alloca(L *l, LLVMTypeRef t, const char *name)
{
	LLVMBasicBlockRef cur = LLVMGetInsertBlock(l->b);
	LLVMValueRef first = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(l->fn));
	if (first)
		LLVMPositionBuilderBefore(l->b, first);
	else
		LLVMPositionBuilderAtEnd(l->b, LLVMGetEntryBasicBlock(l->fn));
	LLVMValueRef a = LLVMBuildAlloca(l->b, t, name);
	LLVMPositionBuilderAtEnd(l->b, cur);
	return a;
}

/* n pointer slots (allocas of i8*) of a body's inputs or outputs. */
static LLVMValueRef *slots(L *l, int n, const char *name)
{
	LLVMValueRef *s = arena_array(&l->g->arena, (size_t)(n > 0 ? n : 1), sizeof *s);
	for (int k = 0; k < n; k++)
		s[k] = entry_alloca(l, l->i8p, name);
	return s;
}

/* Region b's nodes inline, its inputs and outputs in the slots bin and bout. */
static int emit_body(L *l, RegionId b, LLVMValueRef *bin, LLVMValueRef *bout)
{
	LScope sc = { b, bin, bout, l->scope };
	l->scope = &sc;
	int rc = emit_region(l, b);
	l->scope = sc.up;
	return rc;
}

/* The dims of dynamic graph output v, written into its dims slot: dims[], with
 * dims[0] = dim0 when dim0 is given (a Loop's scan outputs: the trip count). */
static void set_dims(L *l, ValueId v, const int64_t *dims, LLVMValueRef dim0)
{
	const Type *t = &l->g->values[v].type;
	for (int q = 0; q < t->rank; q++) {
		LLVMValueRef p = LLVMBuildBitCast(l->b, byte_ptr(l, l->ws, dims_off(l, v) + 8 * q),
		                                  LLVMPointerType(l->i64, 0), "");
		LLVMBuildStore(l->b, q == 0 && dim0 ? dim0 : i64c(l, dims[q]), p);
	}
}

/* The buffer node output q is written to: the node's own (omitted outputs,
 * scattered scan outputs) or the output's storage. */
static LLVMValueRef ctrl_out(L *l, const Node *n, const CtrlTemp *t, int q)
{
	const CtrlAttrs *a = n->attrs;
	if (t->out_buf[q] >= 0)
		return byte_ptr(l, l->ws, a->ws_off + t->out_buf[q]);
	return n->out[q] == IR_NONE ? LLVMConstNull(l->i8p) : value_ref(l, n->out[q]);
}

/* If (codegen/c/emit_control.c's emit_if): a branch on the condition into either
 * body, whose outputs are the node's. */
static int emit_if(L *l, NodeId id, const CtrlTemp *t)
{
	const Graph *g = l->g;
	const Node *n = &g->nodes[id];
	LLVMValueRef *bout = slots(l, n->n_out, "bout");
	for (int q = 0; q < n->n_out; q++)
		LLVMBuildStore(l->b, ctrl_out(l, n, t, q), bout[q]);
	LLVMValueRef c = LLVMBuildLoad2(l->b, l->i8, value_ref(l, n->in[0]), "cond");
	LLVMBasicBlockRef bb[2] = { LLVMAppendBasicBlockInContext(l->ctx, l->fn, "then"),
	                            LLVMAppendBasicBlockInContext(l->ctx, l->fn, "else") };
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(l->ctx, l->fn, "endif");
	LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntNE, c, LLVMConstInt(l->i8, 0, 0), ""), bb[0], bb[1]);
	for (int b = 0; b < 2; b++) {
		LLVMPositionBuilderAtEnd(l->b, bb[b]);
		if (emit_body(l, n->bodies[b], NULL, bout))
			return -1;
		for (int q = 0; q < n->n_out; q++)
			if (n->out[q] != IR_NONE && g->values[n->out[q]].dynamic)
				set_dims(l, n->out[q], g->values[g->regions[n->bodies[b]].outputs[q]].type.dims, NULL);
		LLVMBuildBr(l->b, done);
	}
	LLVMPositionBuilderAtEnd(l->b, done);
	return 0;
}

/* Loop (emit_control.c's emit_loop): the carried values in two buffers swapped per
 * iteration, scan outputs written in place at iteration `it`. */
static int emit_loop(L *l, NodeId id, const CtrlTemp *t)
{
	const Graph *g = l->g;
	const Node *n = &g->nodes[id];
	const CtrlAttrs *a = n->attrs;
	const Region *br = &g->regions[n->bodies[0]];
	int nc = t->n_carried;
	bool has_m = n->n_in > 0 && n->in[0] != IR_NONE, has_cond = n->n_in > 1 && n->in[1] != IR_NONE;
	LLVMValueRef m = NULL;
	if (has_m) {
		const void *mv = ir_const_data(g, n->in[0]);
		int64_t mc;
		if (mv)
			memcpy(&mc, mv, sizeof mc);
		m = mv ? i64c(l, mc > 0 ? mc : 0)
		       : LLVMBuildLoad2(l->b, l->i64, LLVMBuildBitCast(l->b, value_ref(l, n->in[0]),
		                                                        LLVMPointerType(l->i64, 0), ""), "m");
	}
	LLVMValueRef cond = entry_alloca(l, l->i8, "cond"), cond_out = entry_alloca(l, l->i8, "cond_out");
	LLVMValueRef it = entry_alloca(l, l->i64, "it");
	LLVMValueRef c0 = LLVMConstInt(l->i8, 1, 0);
	if (has_cond && ir_const_data(g, n->in[1]))   /* constants of const_inputs slots are not in the weights */
		c0 = LLVMConstInt(l->i8, ((const unsigned char *)ir_const_data(g, n->in[1]))[0] != 0, 0);
	else if (has_cond)
		c0 = LLVMBuildZExt(l->b, LLVMBuildICmp(l->b, LLVMIntNE, LLVMBuildLoad2(l->b, l->i8, value_ref(l, n->in[1]), ""),
		                                       LLVMConstInt(l->i8, 0, 0), ""), l->i8, "");
	LLVMBuildStore(l->b, c0, cond);
	LLVMBuildStore(l->b, i64c(l, 0), it);
	LLVMValueRef *cur = slots(l, nc, "cur"), *nxt = slots(l, nc, "nxt");
	for (int j = 0; j < nc; j++) {
		LLVMBuildStore(l->b, byte_ptr(l, l->ws, a->ws_off + t->carried[0][j]), cur[j]);
		LLVMBuildStore(l->b, byte_ptr(l, l->ws, a->ws_off + t->carried[1][j]), nxt[j]);
		int64_t bytes = type_bytes(&g->values[br->outputs[1 + j]].type);
		if (bytes)
			LLVMBuildMemCpy(l->b, byte_ptr(l, l->ws, a->ws_off + t->carried[0][j]), 1, value_ref(l, n->in[2 + j]), 1,
			                i64c(l, bytes));
	}
	LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(l->ctx, l->fn, "loop");
	LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(l->ctx, l->fn, "body");
	LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(l->ctx, l->fn, "endloop");
	LLVMBuildBr(l->b, head);
	LLVMPositionBuilderAtEnd(l->b, head);
	LLVMValueRef itv = LLVMBuildLoad2(l->b, l->i64, it, "it"), go = LLVMConstInt(LLVMInt1TypeInContext(l->ctx), 1, 0);
	if (has_m)
		go = LLVMBuildICmp(l->b, LLVMIntSLT, itv, m, "");
	if (has_cond)
		go = LLVMBuildAnd(l->b, go, LLVMBuildICmp(l->b, LLVMIntNE, LLVMBuildLoad2(l->b, l->i8, cond, ""),
		                                          LLVMConstInt(l->i8, 0, 0), ""), "");
	LLVMBuildCondBr(l->b, go, body, exit);
	LLVMPositionBuilderAtEnd(l->b, body);
	LLVMBuildStore(l->b, LLVMConstInt(l->i8, 0, 0), cond_out);
	LLVMValueRef *bin = slots(l, 2 + nc, "bin"), *bout = slots(l, 1 + n->n_out, "bout");
	LLVMBuildStore(l->b, LLVMBuildBitCast(l->b, it, l->i8p, ""), bin[0]);
	LLVMBuildStore(l->b, cond, bin[1]);
	LLVMBuildStore(l->b, cond_out, bout[0]);
	for (int j = 0; j < nc; j++) {
		LLVMBuildStore(l->b, LLVMBuildLoad2(l->b, l->i8p, cur[j], ""), bin[2 + j]);
		LLVMBuildStore(l->b, LLVMBuildLoad2(l->b, l->i8p, nxt[j], ""), bout[1 + j]);
	}
	for (int q = nc; q < n->n_out; q++) {
		LLVMValueRef p = ctrl_out(l, n, t, q);
		if (t->out_buf[q] < 0 && n->out[q] != IR_NONE) {
			LLVMValueRef off = LLVMBuildMul(l->b, itv, i64c(l, type_bytes(&g->values[br->outputs[1 + q]].type)), "");
			p = LLVMBuildInBoundsGEP2(l->b, l->i8, p, &off, 1, "");
		}
		LLVMBuildStore(l->b, p, bout[1 + q]);
	}
	if (emit_body(l, n->bodies[0], bin, bout))
		return -1;
	for (int j = 0; j < nc; j++) {   /* swap */
		LLVMValueRef x = LLVMBuildLoad2(l->b, l->i8p, cur[j], "");
		LLVMBuildStore(l->b, LLVMBuildLoad2(l->b, l->i8p, nxt[j], ""), cur[j]);
		LLVMBuildStore(l->b, x, nxt[j]);
	}
	if (has_cond)   /* without a condition input the body's condition output is ignored */
		LLVMBuildStore(l->b, LLVMBuildLoad2(l->b, l->i8, cond_out, ""), cond);
	LLVMBuildStore(l->b, LLVMBuildAdd(l->b, LLVMBuildLoad2(l->b, l->i64, it, ""), i64c(l, 1), ""), it);
	LLVMBuildBr(l->b, head);
	LLVMPositionBuilderAtEnd(l->b, exit);
	for (int j = 0; j < nc; j++) {
		int64_t bytes = type_bytes(&g->values[br->outputs[1 + j]].type);
		if (n->out[j] != IR_NONE && bytes)
			LLVMBuildMemCpy(l->b, value_ref(l, n->out[j]), 1, LLVMBuildLoad2(l->b, l->i8p, cur[j], ""), 1,
			                i64c(l, bytes));
	}
	for (int q = nc; q < n->n_out; q++)
		if (n->out[q] != IR_NONE && g->values[n->out[q]].dynamic)
			set_dims(l, n->out[q], g->values[n->out[q]].type.dims, LLVMBuildLoad2(l->b, l->i64, it, ""));
	return 0;
}

/* A counted loop `for (i = 0; i < n; i++)`: begin returns i in the body's block;
 * end closes it and continues after it. */
typedef struct CLoop {
	LLVMValueRef i;
	LLVMBasicBlockRef head, exit;
} CLoop;

static LLVMValueRef cloop_begin(L *l, CLoop *c, int64_t n, const char *name)
{
	c->i = entry_alloca(l, l->i64, name);
	LLVMBuildStore(l->b, i64c(l, 0), c->i);
	c->head = LLVMAppendBasicBlockInContext(l->ctx, l->fn, name);
	LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(l->ctx, l->fn, "body");
	c->exit = LLVMAppendBasicBlockInContext(l->ctx, l->fn, "end");
	LLVMBuildBr(l->b, c->head);
	LLVMPositionBuilderAtEnd(l->b, c->head);
	LLVMValueRef iv = LLVMBuildLoad2(l->b, l->i64, c->i, name);
	LLVMBuildCondBr(l->b, LLVMBuildICmp(l->b, LLVMIntSLT, iv, i64c(l, n), ""), body, c->exit);
	LLVMPositionBuilderAtEnd(l->b, body);
	return iv;
}

static void cloop_end(L *l, CLoop *c)
{
	LLVMBuildStore(l->b, LLVMBuildAdd(l->b, LLVMBuildLoad2(l->b, l->i64, c->i, ""), i64c(l, 1), ""), c->i);
	LLVMBuildBr(l->b, c->head);
	LLVMPositionBuilderAtEnd(l->b, c->exit);
}

/* p + off (a run-time byte offset) */
static LLVMValueRef ptr_add(L *l, LLVMValueRef p, LLVMValueRef off)
{
	return LLVMBuildInBoundsGEP2(l->b, l->i8, p, &off, 1, "");
}

/* `rows` rows of `inner` bytes: dst + o * dst_step <- src + o * src_step. */
static void copy_rows(L *l, LLVMValueRef dst, int64_t dst_step, LLVMValueRef src, int64_t src_step, int64_t rows,
                      int64_t inner)
{
	CLoop c;
	LLVMValueRef o = cloop_begin(l, &c, rows, "o");
	LLVMBuildMemCpy(l->b, ptr_add(l, dst, LLVMBuildMul(l->b, o, i64c(l, dst_step), "")), 1,
	                ptr_add(l, src, LLVMBuildMul(l->b, o, i64c(l, src_step), "")), 1, i64c(l, inner));
	cloop_end(l, &c);
}

/* Scan (emit_control.c's emit_scan): per batch entry, `len` steps; scan inputs read
 * in place or gathered into the node's slice buffer, scan outputs written in place
 * or scattered from theirs; the carried values swap between two buffers. */
static int emit_scan(L *l, NodeId id, const CtrlTemp *t)
{
	const Graph *g = l->g;
	const Node *n = &g->nodes[id];
	const CtrlAttrs *a = n->attrs;
	const Region *br = &g->regions[n->bodies[0]];
	int base = n->opset < 9 ? 1 : 0, nc = t->n_carried, ns = t->n_scan_in;
	int64_t len = a->trip;
	LLVMValueRef *cur = slots(l, nc, "cur"), *nxt = slots(l, nc, "nxt");
	LLVMValueRef *bin = slots(l, nc + ns, "bin"), *bout = slots(l, n->n_out, "bout");
	CLoop cb, ct;
	LLVMValueRef bv = cloop_begin(l, &cb, a->batch, "b");
	for (int j = 0; j < nc; j++) {
		LLVMBuildStore(l->b, byte_ptr(l, l->ws, a->ws_off + t->carried[0][j]), cur[j]);
		LLVMBuildStore(l->b, byte_ptr(l, l->ws, a->ws_off + t->carried[1][j]), nxt[j]);
		int64_t bytes = type_bytes(&g->values[br->inputs[j]].type);
		if (bytes)
			LLVMBuildMemCpy(l->b, byte_ptr(l, l->ws, a->ws_off + t->carried[0][j]), 1,
			                ptr_add(l, value_ref(l, n->in[base + j]), LLVMBuildMul(l->b, bv, i64c(l, bytes), "")), 1,
			                i64c(l, bytes));
	}
	LLVMValueRef tv = cloop_begin(l, &ct, len, "t"), rev = LLVMBuildSub(l->b, i64c(l, len - 1), tv, "");
	for (int j = 0; j < nc; j++)
		LLVMBuildStore(l->b, LLVMBuildLoad2(l->b, l->i8p, cur[j], ""), bin[j]);
	for (int j = 0; j < ns; j++) {
		const Type *in = &g->values[n->in[base + nc + j]].type;
		int64_t outer, inner;
		cg_c_scan_geometry(in, base, a->scan_input_axes.v[j], &outer, &inner);
		LLVMValueRef pos = a->scan_input_directions.v[j] ? rev : tv, src = value_ref(l, n->in[base + nc + j]);
		/* (b * outer * len + pos) * inner: the first row of this step */
		LLVMValueRef first = LLVMBuildMul(l->b, LLVMBuildAdd(l->b, LLVMBuildMul(l->b, bv, i64c(l, outer * len), ""),
		                                                     pos, ""), i64c(l, inner), "");
		if (t->scan_in[j] < 0) {
			LLVMBuildStore(l->b, ptr_add(l, src, first), bin[nc + j]);
			continue;
		}
		LLVMValueRef buf = byte_ptr(l, l->ws, a->ws_off + t->scan_in[j]);
		copy_rows(l, buf, inner, ptr_add(l, src, first), len * inner, outer, inner);
		LLVMBuildStore(l->b, buf, bin[nc + j]);
	}
	for (int j = 0; j < nc; j++)
		LLVMBuildStore(l->b, LLVMBuildLoad2(l->b, l->i8p, nxt[j], ""), bout[j]);
	LLVMValueRef *first_out = arena_array(&l->g->arena, (size_t)(n->n_out > 0 ? n->n_out : 1), sizeof *first_out);
	for (int q = nc; q < n->n_out; q++) {
		int64_t outer = 1, inner = 0;
		if (n->out[q] == IR_NONE) {
			LLVMBuildStore(l->b, byte_ptr(l, l->ws, a->ws_off + t->out_buf[q]), bout[q]);
			continue;
		}
		cg_c_scan_geometry(&g->values[n->out[q]].type, base, a->scan_output_axes.v[q - nc], &outer, &inner);
		LLVMValueRef pos = a->scan_output_directions.v[q - nc] ? rev : tv;
		first_out[q] = ptr_add(l, value_ref(l, n->out[q]),
		                       LLVMBuildMul(l->b, LLVMBuildAdd(l->b, LLVMBuildMul(l->b, bv, i64c(l, outer * len), ""),
		                                                       pos, ""), i64c(l, inner), ""));
		LLVMBuildStore(l->b, t->out_buf[q] >= 0 ? byte_ptr(l, l->ws, a->ws_off + t->out_buf[q]) : first_out[q],
		               bout[q]);
	}
	if (emit_body(l, n->bodies[0], bin, bout))
		return -1;
	for (int q = nc; q < n->n_out; q++) {   /* scan outputs along an inner axis: scatter the rows */
		int64_t outer, inner;
		if (t->out_buf[q] < 0 || n->out[q] == IR_NONE)
			continue;
		cg_c_scan_geometry(&g->values[n->out[q]].type, base, a->scan_output_axes.v[q - nc], &outer, &inner);
		copy_rows(l, first_out[q], len * inner, byte_ptr(l, l->ws, a->ws_off + t->out_buf[q]), inner, outer, inner);
	}
	for (int j = 0; j < nc; j++) {   /* swap */
		LLVMValueRef x = LLVMBuildLoad2(l->b, l->i8p, cur[j], "");
		LLVMBuildStore(l->b, LLVMBuildLoad2(l->b, l->i8p, nxt[j], ""), cur[j]);
		LLVMBuildStore(l->b, x, nxt[j]);
	}
	cloop_end(l, &ct);
	for (int j = 0; j < nc; j++) {
		int64_t bytes = type_bytes(&g->values[br->inputs[j]].type);
		if (n->out[j] != IR_NONE && bytes)
			LLVMBuildMemCpy(l->b, ptr_add(l, value_ref(l, n->out[j]), LLVMBuildMul(l->b, bv, i64c(l, bytes), "")), 1,
			                LLVMBuildLoad2(l->b, l->i8p, cur[j], ""), 1, i64c(l, bytes));
	}
	cloop_end(l, &cb);
	return 0;
}

/* A control-flow node, its bodies inline (the C path makes them functions). */
static int emit_control(L *l, NodeId id)
{
	const Node *n = &l->g->nodes[id];
	CtrlTemp t;
	ctrl_temp_layout(l->g, id, &t);
	return n->op == OP_IF ? emit_if(l, id, &t) : n->op == OP_LOOP ? emit_loop(l, id, &t) : emit_scan(l, id, &t);
}

/* The nodes of region r, in order. */
static int emit_region(L *l, RegionId r)
{
	const Region *reg = &l->g->regions[r];
	for (int i = 0; i < reg->n_nodes; i++) {
		NodeId id = reg->nodes[i];
		if (l->g->nodes[id].dead || plan_node_is_alias(l->g, id))   /* views: nothing to run */
			continue;
		if (l->g->nodes[id].n_bodies ? emit_control(l, id) : emit_call(l, id))
			return -1;
	}
	return 0;
}

/* static int NAME_exec(const void *const inputs[], void *const outputs[], void *ws, const ingot_par *par) */
static int emit_exec(L *l, LLVMValueRef exec)
{
	Graph *g = l->g;
	const Region *main = &g->regions[0];
	l->fn = exec;
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(l->ctx, exec, "entry");
	LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(l->ctx, exec, "einval");
	LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(l->ctx, exec, "body");
	LLVMPositionBuilderAtEnd(l->b, bad);
	LLVMBuildRet(l->b, i32c(l, INGOT_EINVAL));
	LLVMPositionBuilderAtEnd(l->b, entry);
	l->inputs = LLVMGetParam(exec, 0);
	l->outputs = LLVMGetParam(exec, 1);
	l->ws = LLVMGetParam(exec, 2);
	l->par = LLVMGetParam(exec, 3);
	/* !inputs || !outputs || (WORKSPACE_SIZE > 0 && !workspace) || workspace % 64 */
	LLVMValueRef badv = LLVMBuildOr(l->b, LLVMBuildIsNull(l->b, l->inputs, ""),
	                                LLVMBuildIsNull(l->b, l->outputs, ""), "");
	if (g->arena_bytes + g->scratch_bytes > 0)
		badv = LLVMBuildOr(l->b, badv, LLVMBuildIsNull(l->b, l->ws, ""), "");
	LLVMValueRef low = LLVMBuildAnd(l->b, LLVMBuildPtrToInt(l->b, l->ws, l->i64, ""), i64c(l, 63), "");
	badv = LLVMBuildOr(l->b, badv, LLVMBuildICmp(l->b, LLVMIntNE, low, i64c(l, 0), ""), "bad");
	LLVMBuildCondBr(l->b, badv, bad, body);
	LLVMPositionBuilderAtEnd(l->b, body);
	l->scratch = byte_ptr(l, l->ws, g->arena_bytes);
	l->scratch_more = byte_ptr(l, l->ws, g->arena_bytes + g->scratch_bytes);
	if (emit_region(l, 0))
		return -1;
	/* graph outputs no node writes: inputs passed through, constants, duplicates */
	for (int i = 0; i < main->n_outputs; i++) {
		ValueId v = main->outputs[i];
		const Value *val = &g->values[v];
		int first = l->main_out[v];
		bool written = val->producer != IR_NONE && !g->nodes[val->producer].dead;
		if ((written && first == i) || type_bytes(&val->type) == 0)
			continue;
		LLVMValueRef src = written ? load_slot(l, l->outputs, first) : value_ref(l, v);
		LLVMBuildMemCpy(l->b, load_slot(l, l->outputs, i), 1, src, 1, i64c(l, type_bytes(&val->type)));
	}
	LLVMBuildRet(l->b, i32c(l, 0));
	return 0;
}

static LLVMValueRef add_fn(L *l, const char *suffix, LLVMTypeRef ty)
{
	char name[160];
	snprintf(name, sizeof name, "%s_%s", l->o->name, suffix);
	return LLVMAddFunction(l->m, name, ty);
}

/* run_v, run_par_v, run, run_par, out_dims, par_create, par_destroy */
static void emit_api(L *l, LLVMValueRef exec, LLVMTypeRef exec_t)
{
	const Region *main = &l->g->regions[0];
	LLVMTypeRef t3[] = { l->i8pp, l->i8pp, l->i8p }, t4[] = { l->i8pp, l->i8pp, l->i8p, l->i8p };
	for (int par = 0; par < 2; par++) {   /* NAME_run_v, NAME_run_par_v */
		LLVMValueRef f = add_fn(l, par ? "run_par_v" : "run_v", LLVMFunctionType(l->i32, par ? t4 : t3, 3 + par, 0));
		LLVMPositionBuilderAtEnd(l->b, LLVMAppendBasicBlockInContext(l->ctx, f, "entry"));
		LLVMValueRef a[] = { LLVMGetParam(f, 0), LLVMGetParam(f, 1), LLVMGetParam(f, 2),
		                     par ? LLVMGetParam(f, 3) : LLVMConstNull(l->i8p) };
		LLVMBuildRet(l->b, LLVMBuildCall2(l->b, exec_t, exec, a, 4, ""));
	}
	int np = main->n_inputs + main->n_outputs;
	for (int par = 0; par < 2; par++) {   /* NAME_run(in..., out..., ws), NAME_run_par(..., par) */
		LLVMTypeRef pt[np + 2];
		for (int i = 0; i < np + 2; i++)
			pt[i] = l->i8p;
		LLVMValueRef f = add_fn(l, par ? "run_par" : "run", LLVMFunctionType(l->i32, pt, (unsigned)(np + 1 + par), 0));
		l->fn = f;
		LLVMPositionBuilderAtEnd(l->b, LLVMAppendBasicBlockInContext(l->ctx, f, "entry"));
		LLVMValueRef in[main->n_inputs + 1], out[main->n_outputs + 1];
		for (int i = 0; i < main->n_inputs; i++)
			in[i] = LLVMGetParam(f, (unsigned)i);
		for (int i = 0; i < main->n_outputs; i++)
			out[i] = LLVMGetParam(f, (unsigned)(main->n_inputs + i));
		LLVMValueRef a[] = { ptr_array(l, in, main->n_inputs, "in"), ptr_array(l, out, main->n_outputs, "out"),
		                     LLVMGetParam(f, (unsigned)np), par ? LLVMGetParam(f, (unsigned)np + 1)
		                                                        : LLVMConstNull(l->i8p) };
		LLVMBuildRet(l->b, LLVMBuildCall2(l->b, exec_t, exec, a, 4, ""));
	}
	/* int NAME_out_dims(const void *ws, int i, int64_t dims[]): the static dims */
	LLVMTypeRef i64p = LLVMPointerType(l->i64, 0);
	LLVMTypeRef od[] = { l->i8p, l->i32, i64p };
	LLVMValueRef f = add_fn(l, "out_dims", LLVMFunctionType(l->i32, od, 3, 0));
	LLVMPositionBuilderAtEnd(l->b, LLVMAppendBasicBlockInContext(l->ctx, f, "entry"));
	LLVMValueRef idx = LLVMGetParam(f, 1), dims = LLVMGetParam(f, 2);
	LLVMBasicBlockRef none = LLVMAppendBasicBlockInContext(l->ctx, f, "none");
	LLVMValueRef sw = LLVMBuildSwitch(l->b, idx, none, (unsigned)main->n_outputs);
	LLVMPositionBuilderAtEnd(l->b, none);
	LLVMBuildRet(l->b, i32c(l, -1));
	for (int i = 0; i < main->n_outputs; i++) {
		const Type *t = &l->g->values[main->outputs[i]].type;
		LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(l->ctx, f, "out");
		LLVMAddCase(sw, i32c(l, i), bb);
		LLVMPositionBuilderAtEnd(l->b, bb);
		for (int k = 0; k < t->rank; k++) {
			LLVMValueRef ki = i64c(l, k);
			LLVMBuildStore(l->b, i64c(l, t->dims[k]), LLVMBuildInBoundsGEP2(l->b, l->i64, dims, &ki, 1, ""));
		}
		if (l->g->values[main->outputs[i]].dynamic) {   /* the run's dims, given its workspace */
			LLVMBasicBlockRef cp = LLVMAppendBasicBlockInContext(l->ctx, f, "dyn");
			LLVMBasicBlockRef ret = LLVMAppendBasicBlockInContext(l->ctx, f, "ret");
			LLVMValueRef ws = LLVMGetParam(f, 0);
			LLVMBuildCondBr(l->b, LLVMBuildIsNull(l->b, ws, ""), ret, cp);
			LLVMPositionBuilderAtEnd(l->b, cp);
			LLVMBuildMemCpy(l->b, LLVMBuildBitCast(l->b, dims, l->i8p, ""), 1,
			                byte_ptr(l, ws, dims_off(l, main->outputs[i])), 1, i64c(l, 8 * (int64_t)t->rank));
			LLVMBuildBr(l->b, ret);
			LLVMPositionBuilderAtEnd(l->b, ret);
		}
		LLVMBuildRet(l->b, i32c(l, t->rank));
	}
	/* NAME_par_create / NAME_par_destroy: the pool of kernels_bc.c */
	LLVMTypeRef pc_t = LLVMFunctionType(l->i8p, &l->i32, 1, 0), pd_t = LLVMFunctionType(LLVMVoidTypeInContext(l->ctx), &l->i8p, 1, 0);
	LLVMValueRef pc = LLVMAddFunction(l->m, "ingot_llvm_par_create", pc_t);
	LLVMValueRef pd = LLVMAddFunction(l->m, "ingot_llvm_par_destroy", pd_t);
	f = add_fn(l, "par_create", pc_t);
	LLVMPositionBuilderAtEnd(l->b, LLVMAppendBasicBlockInContext(l->ctx, f, "entry"));
	LLVMValueRef arg = LLVMGetParam(f, 0);
	LLVMBuildRet(l->b, LLVMBuildCall2(l->b, pc_t, pc, &arg, 1, ""));
	f = add_fn(l, "par_destroy", pd_t);
	LLVMPositionBuilderAtEnd(l->b, LLVMAppendBasicBlockInContext(l->ctx, f, "entry"));
	arg = LLVMGetParam(f, 0);
	LLVMBuildCall2(l->b, pd_t, pd, &arg, 1, "");
	LLVMBuildRetVoid(l->b);
}

/* NAME_inputs / NAME_outputs: const ingot_io[] (ingot_rt.h's layout) */
static void emit_io_table(L *l, LLVMTypeRef io_t, const char *which, const ValueId *vals, int n)
{
	LLVMValueRef rows[n > 0 ? n : 1];
	for (int i = 0; i < n || (i == 0 && n == 0); i++) {
		const Value *v = n ? &l->g->values[vals[i]] : NULL;
		const char *nm = v ? v->name : "";
		LLVMValueRef s = LLVMConstStringInContext(l->ctx, nm, (unsigned)strlen(nm), 0);
		LLVMValueRef sg = LLVMAddGlobal(l->m, LLVMTypeOf(s), "ioname");
		LLVMSetInitializer(sg, s);
		LLVMSetGlobalConstant(sg, 1);
		LLVMSetLinkage(sg, LLVMPrivateLinkage);
		LLVMSetUnnamedAddress(sg, LLVMGlobalUnnamedAddr);
		LLVMValueRef dims[INGOT_MAX_RANK];
		for (int k = 0; k < INGOT_MAX_RANK; k++)
			dims[k] = i64c(l, v && k < v->type.rank ? v->type.dims[k] : 0);
		LLVMValueRef f[] = { LLVMConstBitCast(sg, l->i8p), i32c(l, v ? (int)v->type.dtype : 0),
		                     i32c(l, v ? v->type.rank : 0), LLVMConstArray(l->i64, dims, INGOT_MAX_RANK),
		                     i64c(l, v ? type_bytes(&v->type) : 0) };
		rows[i] = LLVMConstNamedStruct(io_t, f, 5);
	}
	char name[160];
	snprintf(name, sizeof name, "%s_%s", l->o->name, which);
	LLVMValueRef arr = LLVMConstArray(io_t, rows, (unsigned)(n > 0 ? n : 1));
	LLVMValueRef gv = LLVMAddGlobal(l->m, LLVMTypeOf(arr), name);
	LLVMSetInitializer(gv, arr);
	LLVMSetGlobalConstant(gv, 1);
	LLVMSetAlignment(gv, 8);
}

/* The graph module: weights, io tables, NAME_exec and the API. */
static int build_graph(L *l)
{
	Graph *g = l->g;
	const Region *main = &g->regions[0];
	char name[160];
	int n = g->n_values;
	l->main_in = arena_array(&g->arena, (size_t)(n ? n : 1), sizeof *l->main_in);
	l->main_out = arena_array(&g->arena, (size_t)(n ? n : 1), sizeof *l->main_out);
	for (int i = 0; i < n; i++)
		l->main_in[i] = l->main_out[i] = -1;
	for (int i = main->n_inputs - 1; i >= 0; i--)
		l->main_in[main->inputs[i]] = i;
	for (int i = main->n_outputs - 1; i >= 0; i--)
		l->main_out[main->outputs[i]] = i;

	if (l->w.size > 0) {
		snprintf(name, sizeof name, "%s_weights", l->o->name);
		LLVMTypeRef wt = LLVMArrayType(l->i8, (unsigned)l->w.size);
		l->weights = LLVMAddGlobal(l->m, wt, name);
		LLVMSetAlignment(l->weights, 64);
		if (l->o->weights != WEIGHTS_EXTERN) {   /* read-only data: one constant for the blob */
			uint8_t *blob = cg_weights_pack(&l->w);
			LLVMSetInitializer(l->weights,
			                   LLVMConstStringInContext(l->ctx, (const char *)blob, (unsigned)l->w.size, 1));
			free(blob);
			LLVMSetGlobalConstant(l->weights, 1);
			if (l->o->weights_section)
				LLVMSetSection(l->weights, l->o->weights_section);
		}
	}
	LLVMTypeRef io_t = LLVMStructCreateNamed(l->ctx, "ingot_io");
	LLVMTypeRef f[] = { l->i8p, l->i32, l->i32, LLVMArrayType(l->i64, INGOT_MAX_RANK), l->i64 };
	LLVMStructSetBody(io_t, f, 5, 0);
	emit_io_table(l, io_t, "inputs", main->inputs, main->n_inputs);
	emit_io_table(l, io_t, "outputs", main->outputs, main->n_outputs);

	LLVMValueRef sv = LLVMAddGlobal(l->m, l->i64, "ingot_llvm_par_stride");
	LLVMSetLinkage(sv, LLVMPrivateLinkage);
	LLVMSetGlobalConstant(sv, 1);
	LLVMTypeRef et[] = { l->i8pp, l->i8pp, l->i8p, l->i8p };
	LLVMTypeRef exec_t = LLVMFunctionType(l->i32, et, 4, 0);
	LLVMValueRef exec = add_fn(l, "exec", exec_t);
	LLVMSetLinkage(exec, LLVMInternalLinkage);
	if (emit_exec(l, exec))
		return -1;
	LLVMSetInitializer(sv, i64c(l, l->par_stride));
	emit_api(l, exec, exec_t);
	return 0;
}

/* A function's string attribute (target-cpu, target-features), or NULL. */
static const char *fn_attr(LLVMValueRef f, const char *key, unsigned *len)
{
	LLVMAttributeRef a = LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, key, (unsigned)strlen(key));
	return a ? LLVMGetStringAttributeValue(a, len) : NULL;
}

/* The model's API stays external; the rest (kernels, pool) becomes internal, so
 * what the graph does not call is dropped and the rest is specialised. Every
 * function also gets the kernels' target-cpu and target-features (the inliner
 * needs them to match). */
static void internalize(L *l, const char *cpu, unsigned cpu_len, const char *feat, unsigned feat_len)
{
	size_t plen = strlen(l->o->name);
	for (LLVMValueRef f = LLVMGetFirstFunction(l->m); f; f = LLVMGetNextFunction(f)) {
		if (LLVMIsDeclaration(f))
			continue;
		size_t len;
		const char *nm = LLVMGetValueName2(f, &len);
		if (!(len > plen && strncmp(nm, l->o->name, plen) == 0 && nm[plen] == '_'))
			LLVMSetLinkage(f, LLVMInternalLinkage);
		if (cpu && !fn_attr(f, "target-cpu", &(unsigned){ 0 }))
			LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
			                        LLVMCreateStringAttribute(l->ctx, "target-cpu", 10, cpu, cpu_len));
		if (feat && !fn_attr(f, "target-features", &(unsigned){ 0 }))
			LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
			                        LLVMCreateStringAttribute(l->ctx, "target-features", 15, feat, feat_len));
	}
	for (LLVMValueRef gv = LLVMGetFirstGlobal(l->m); gv; gv = LLVMGetNextGlobal(gv)) {
		size_t len;
		const char *nm = LLVMGetValueName2(gv, &len);
		if (!LLVMIsDeclaration(gv) && !(len > plen && strncmp(nm, l->o->name, plen) == 0 && nm[plen] == '_'))
			LLVMSetLinkage(gv, LLVMInternalLinkage);
	}
}

/* The external symbols the object defines (the archive's index), NUL-separated. */
static char *defined_symbols(LLVMModuleRef m, size_t *len, int *count)
{
	size_t cap = 256, n = 0;
	char *buf = malloc(cap);
	*count = 0;
	for (int pass = 0; pass < 2; pass++)
		for (LLVMValueRef v = pass ? LLVMGetFirstGlobal(m) : LLVMGetFirstFunction(m); v;
		     v = pass ? LLVMGetNextGlobal(v) : LLVMGetNextFunction(v)) {
			size_t k;
			const char *nm = LLVMGetValueName2(v, &k);
			if (LLVMIsDeclaration(v) || LLVMGetLinkage(v) != LLVMExternalLinkage)
				continue;
			while (n + k + 1 > cap)
				buf = realloc(buf, cap *= 2);
			memcpy(buf + n, nm, k + 1);
			n += k + 1;
			(*count)++;
		}
	*len = n;
	return buf;
}

static void be32(char *p, uint32_t v)
{
	p[0] = (char)(v >> 24), p[1] = (char)(v >> 16), p[2] = (char)(v >> 8), p[3] = (char)v;
}

/* libNAME.a: NAME.o with a symbol index, as `ar rcs` writes it (GNU format, zero
 * dates and ids, so the bytes depend on the object alone). */
static int write_archive(L *l, const char *obj_path, const char *obj_name, const char *syms, size_t syms_len,
                         int n_syms)
{
	FILE *f = fopen(obj_path, "rb");
	if (!f) {
		file_error(l, "cannot read the object file: %s", strerror(errno));
		return -1;
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	size_t idx = 4 + 4 * (size_t)n_syms + syms_len, idx_pad = idx + (idx & 1);
	size_t member = 8 + 60 + idx_pad, total = member + 60 + (size_t)n + ((size_t)n & 1);
	char *buf = calloc(1, total + 1), hdr[61];
	if (!buf || fread(buf + member + 60, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(buf);
		file_error(l, "cannot read the object file %s", obj_path);
		return -1;
	}
	fclose(f);
	memcpy(buf, "!<arch>\n", 8);
	snprintf(hdr, sizeof hdr, "%-16.16s%-12d%-6d%-6d%-8o%-10zu`\n", "/", 0, 0, 0, 0, idx);
	memcpy(buf + 8, hdr, 60);
	be32(buf + 68, (uint32_t)n_syms);
	for (int i = 0; i < n_syms; i++)
		be32(buf + 72 + 4 * i, (uint32_t)member);
	memcpy(buf + 72 + 4 * (size_t)n_syms, syms, syms_len);
	if (idx & 1)
		buf[68 + idx] = '\n';
	char name[40];
	snprintf(name, sizeof name, "%.15s/", obj_name);
	snprintf(hdr, sizeof hdr, "%-16.16s%-12d%-6d%-6d%-8o%-10ld`\n", name, 0, 0, 0, 0644, n);
	memcpy(buf + member, hdr, 60);
	if (n & 1)
		buf[total - 1] = '\n';
	char lib[160];
	snprintf(lib, sizeof lib, "lib%s.a", l->o->name);
	int rc = cg_write_bytes(l->o->out_dir, lib, buf, total, l->d);
	free(buf);
	return rc;
}

static int emit_object(L *l, const char *triple_opt)
{
	char *err = NULL;
	size_t bc_len;
	const char *arch;
	const char *bc = target_bitcode(l->t, &bc_len, &arch);
	int rc = -1;
	LLVMTargetRef target;
	LLVMTargetMachineRef tm = NULL;
	LLVMModuleRef km = NULL;
	LLVMInitializeX86TargetInfo();
	LLVMInitializeX86Target();
	LLVMInitializeX86TargetMC();
	LLVMInitializeX86AsmPrinter();
	LLVMInitializeX86AsmParser();   /* the kernels' inline asm */
	LLVMInitializeAArch64TargetInfo();
	LLVMInitializeAArch64Target();
	LLVMInitializeAArch64TargetMC();
	LLVMInitializeAArch64AsmPrinter();
	LLVMInitializeAArch64AsmParser();   /* the kernels' inline asm */
	LLVMInitializeARMTargetInfo();
	LLVMInitializeARMTarget();
	LLVMInitializeARMTargetMC();
	LLVMInitializeARMAsmPrinter();
	LLVMInitializeARMAsmParser();   /* the kernels' inline asm */
	LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRange(bc, bc_len, "kernels", 0);
	if (LLVMParseBitcodeInContext2(l->ctx, mb, &km))
		die("the embedded kernel bitcode of target '%s' does not load", l->t->name);
	LLVMDisposeMemoryBuffer(mb);
	/* the default triple is the bitcode's (cg_llvm_emit checked another's architecture) */
	char bc_triple[128];
	snprintf(bc_triple, sizeof bc_triple, "%s", LLVMGetTarget(km));
	const char *triple = triple_opt ? triple_opt : bc_triple;
	if (LLVMGetTargetFromTriple(triple, &target, &err)) {
		file_error(l, "--triple: %s", err);
		LLVMDisposeModule(km);
		goto out;
	}
	/* the kernels' CPU and features (clang's -m flags of the target) */
	const char *cpu = NULL, *feat = NULL;
	unsigned cpu_len = 0, feat_len = 0;
	for (LLVMValueRef f = LLVMGetFirstFunction(km); f && !cpu; f = LLVMGetNextFunction(f))
		if (!LLVMIsDeclaration(f)) {
			cpu = fn_attr(f, "target-cpu", &cpu_len);
			feat = fn_attr(f, "target-features", &feat_len);
		}
	char cpu_s[64] = "generic", *feat_s = calloc(1, feat_len + 1);
	if (cpu)
		snprintf(cpu_s, sizeof cpu_s, "%.*s", (int)cpu_len, cpu);
	if (feat)
		memcpy(feat_s, feat, feat_len);
	LLVMSetDataLayout(l->m, LLVMGetDataLayoutStr(km));
	LLVMSetTarget(l->m, LLVMGetTarget(km));
	if (LLVMLinkModules2(km, l->m))
		die("linking the graph with the kernel bitcode failed");
	l->m = km;
	LLVMSetTarget(km, triple);
	internalize(l, cpu ? cpu_s : NULL, cpu_len, feat ? feat_s : NULL, feat_len);
	tm = LLVMCreateTargetMachine(target, triple, cpu_s, feat_s, LLVMCodeGenLevelAggressive, LLVMRelocPIC,
	                             LLVMCodeModelDefault);
	free(feat_s);
	LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
	char *dl = LLVMCopyStringRepOfTargetData(td);
	LLVMSetDataLayout(km, dl);
	LLVMDisposeMessage(dl);
	LLVMDisposeTargetData(td);
	/* drop the unused kernels first, then the whole-module -O3 pipeline */
	LLVMPassManagerRef pm = LLVMCreatePassManager();
	LLVMAddGlobalDCEPass(pm);
	LLVMRunPassManager(pm, km);
	LLVMDisposePassManager(pm);
	LLVMPassManagerBuilderRef pmb = LLVMPassManagerBuilderCreate();
	LLVMPassManagerBuilderSetOptLevel(pmb, 3);
	LLVMPassManagerBuilderUseInlinerWithThreshold(pmb, 275);
	pm = LLVMCreatePassManager();
	LLVMPassManagerBuilderPopulateModulePassManager(pmb, pm);
	LLVMRunPassManager(pm, km);
	LLVMDisposePassManager(pm);
	LLVMPassManagerBuilderDispose(pmb);
	char obj[4096], obj_name[160];
	snprintf(obj_name, sizeof obj_name, "%s.o", l->o->name);
	snprintf(obj, sizeof obj, "%s/%s", l->o->out_dir, obj_name);
	if (LLVMTargetMachineEmitToFile(tm, km, obj, LLVMObjectFile, &err)) {
		file_error(l, "writing the object file: %s", err);
		goto out;
	}
	rc = 0;
	if (l->o->emit & (EMIT_LIB | EMIT_EXE)) {
		size_t syms_len;
		int n_syms;
		char *syms = defined_symbols(km, &syms_len, &n_syms);
		rc = write_archive(l, obj, obj_name, syms, syms_len, n_syms);
		free(syms);
	}
out:
	if (tm)
		LLVMDisposeTargetMachine(tm);
	LLVMDisposeMessage(err);
	return rc;
}

int cg_llvm_emit(const Target *t, Graph *g, const CodegenOptions *o, const char *triple, DiagSink *d)
{
	L l;
	int rc;
	memset(&l, 0, sizeof l);
	l.g = g;
	l.o = o;
	l.t = t;
	l.d = d;
	if (t->host) {
		file_error(&l, "--target %s: --backend llvm builds the CPU targets only", t->name);
		return -1;
	}
	if (o->profile) {
		file_error(&l, "%s--profile is not supported by --backend llvm yet", "");
		return -1;
	}
	size_t bc_len, an;
	const char *arch, *targ;
	if (!target_bitcode(t, &bc_len, &arch)) {
		file_error(&l, "--backend llvm has no kernel bitcode for target '%s' yet", t->name);
		return -1;
	}
	if (triple && ((an = triple_arch(triple, &targ)) != strlen(arch) || strncmp(targ, arch, an) != 0)) {
		char msg[300];
		snprintf(msg, sizeof msg, "--triple %s: the kernel bitcode of --target %s is for %s (give a %s triple "
		         "or the --target of that architecture)", triple, t->name, arch, arch);
		file_error(&l, "%s", msg);
		return -1;
	}
	if (cg_mkdir_p(o->out_dir, d) || (t->prepare && t->prepare(t, g)))
		return -1;
	cg_weights_layout(g, &l.w);
	if (l.w.size > (int64_t)UINT_MAX) {   /* LLVMArrayType and the constant take unsigned */
		char n[32];
		snprintf(n, sizeof n, "%lld", (long long)l.w.size);
		file_error(&l, "%s bytes of weights: the LLVM backend takes at most 4 GiB (use --backend c)", n);
		cg_weights_free(&l.w);
		return -1;
	}
	l.ctx = LLVMContextCreate();
	l.m = LLVMModuleCreateWithNameInContext(o->name, l.ctx);
	l.b = LLVMCreateBuilderInContext(l.ctx);
	l.i8 = LLVMInt8TypeInContext(l.ctx);
	l.i8p = LLVMPointerType(l.i8, 0);
	l.i8pp = LLVMPointerType(l.i8p, 0);
	l.i32 = LLVMInt32TypeInContext(l.ctx);
	l.i64 = LLVMInt64TypeInContext(l.ctx);
	LLVMTypeRef kt[] = { l.i8p, l.i8pp, l.i8pp, l.i8p, l.i32, l.i32 };
	l.kfn = LLVMFunctionType(l.i32, kt, 6, 0);
	rc = build_graph(&l);
	LLVMDisposeBuilder(l.b);
	if (!rc)
		rc = cg_c_emit_api(t, g, o, &l.w, l.par_stride, d);
	if (!rc)
		rc = emit_object(&l, triple);   /* l.m: the linked module from here on */
	LLVMDisposeModule(l.m);
	LLVMContextDispose(l.ctx);
	cg_weights_free(&l.w);
	return rc;
}
