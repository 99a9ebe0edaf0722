/* kernels_bc.c — every runtime-stubs kernel family and the thread pool in one unit,
 * which meson builds into LLVM bitcode once per target at ingot's build time
 * (clang -emit-llvm, the target's flags) and embeds in ingot (bitcode.S). The LLVM
 * backend links it with the graph function of a model, internalizes and drops what
 * the model does not call, and optimises the whole (codegen/llvm/emit.c). The x86
 * and neon families need the generated ukernel.h of their target (llvm_kgen writes it). */
#include "elementwise.c"
#include "linalg.c"
#include "conv.c"
#include "pool.c"
#include "norm.c"
#include "reduce.c"
#include "shape.c"
#include "arith.c"
#include "indexing.c"
#include "image.c"
#include "image_norm.c"
#include "quant.c"
#include "spectral.c"
#include "loss.c"
#include "rnn.c"
#include "text.c"
#include "regex.c"
#include "imgdec.c"
#include "imgdec_jpeg.c"
#include "imgdec_png.c"
#include "fused.c"
#include "random.c"
#include "deform_conv.c"
#include "roi_pool.c"
#include "ml.c"
#ifdef INGOT_BC_X86
#include "x86/sgemm.c"
#include "x86/dwconv.c"
#include "x86/dconv.c"
#include "x86/pooling.c"
#include "x86/pwconv.c"
#include "x86/eltwise.c"
#include "x86/rnn.c"
#include "x86/wino1d.c"
#include "x86/qgemm.c"
#endif
#ifdef INGOT_BC_NEON
#include "neon/gemm.c"
#include "neon/eltwise.c"
#include "neon/pooling.c"
#include "neon/qgemm.c"
#endif
#include "ingot_par.c"

/* What the graph function of codegen/llvm/emit.c calls besides the kernels: the
 * pool (NAME_par_create, NAME_par_destroy) and a split node (ingot_rt.h's inline
 * ingot_par_call, which has no symbol of its own). */
ingot_par *ingot_llvm_par_create(int n_threads);
void ingot_llvm_par_destroy(ingot_par *par);
int ingot_llvm_par_call(const ingot_par *par, int max_tasks, ingot_kernel_fn fn, const void *params,
                        const void *const *in, void *const *out, unsigned char *scratch,
                        unsigned char *scratch_more, size_t stride);

ingot_par *ingot_llvm_par_create(int n_threads)
{
	return ingot_par_create(n_threads);
}

void ingot_llvm_par_destroy(ingot_par *par)
{
	ingot_par_destroy(par);
}

int ingot_llvm_par_call(const ingot_par *par, int max_tasks, ingot_kernel_fn fn, const void *params,
                        const void *const *in, void *const *out, unsigned char *scratch,
                        unsigned char *scratch_more, size_t stride)
{
	return ingot_par_call(par, max_tasks, fn, params, in, out, scratch, scratch_more, stride);
}
