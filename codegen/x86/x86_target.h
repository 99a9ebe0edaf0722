/* x86_target.h — the x86 targets (x86-avx2, x86-avx512): f32 Conv, MatMul and Gemm
 * lower to the kernels of runtime-stubs/kernels/x86/ over the generated
 * microkernels (codegen/common/ukgen.c), with constant weights pre-packed at
 * compile time into the microkernels' panel layout; f32 RNN/GRU/LSTM to the x86
 * recurrent kernel (W packed likewise, R as panels of R^T); QLinearConv, ConvInteger,
 * QLinearMatMul and MatMulInteger with constant 8-bit weights to the int8 kernels of
 * x86/qgemm.h (weights packed with their sums); all other nodes lower to the
 * reference kernels. Sections: lower.c, prepack.c. */
#ifndef INGOT_X86_TARGET_H
#define INGOT_X86_TARGET_H

#include "codegen.h"

/* lower.c */
int cg_x86_lower(const Target *t, Graph *g, NodeId n, KernelCall *kc);

/* prepack.c: before the weights are laid out, replaces each constant weight an x86
 * kernel reads with a packed copy (same type and size, Value.packed set). */
int cg_x86_prepare(const Target *t, Graph *g);

/* How node n runs on target t: 0 reference kernel, else X86_* below. *ref gets the
 * reference lowering. */
enum { X86_REF, X86_CONV, X86_MATMUL, X86_GEMM, X86_POOL, X86_UNARY, X86_SOFTMAX,
       X86_LAYERNORM, X86_RNN, X86_GPOOL, X86_MUNARY, X86_BINARY, X86_QCONV, X86_QMATMUL,
       X86_QBINARY, X86_QMAXPOOL };
int cg_x86_kind(const Target *t, Graph *g, NodeId n, KernelCall *ref, bool *packable);

/* The input slot of an int8 node's weights: 3 for QLinearConv / QLinearMatMul, else 1. */
int cg_x86_q_slot(const Graph *g, NodeId n);

/* Whether a Conv (its reference parameters) runs as Winograd F(2x2, 3x3): when its
 * weights can be pre-transformed (packable) and the geometry suits. */
bool cg_x86_winograd(const void *conv_params, bool packable);
/* Whether a 1-D Conv runs as Winograd F(9 - k, k) (x86/wino1d.h), likewise. */
bool cg_x86_wino1d(const void *conv_params, bool packable);
/* Whether a Conv on the direct kernel puts its output channels on the vector lanes
 * (packed = 4, x86/dconv.h) for a target of `lanes` floats. */
bool cg_x86_dc_lanes(const void *conv_params, bool packable, int lanes);

/* layout.c: which of Conv node n's tensors are blocked (runtime-stubs/kernels/x86/
 * pwconv.h): bit 0 its input, bit 1 its output; 0 for every other node. */
int cg_x86_layout(const Target *t, Graph *g, NodeId n);
/* Whether Conv node n runs in ingot_x86_pwconv: when a tensor of it is blocked, or
 * its output channels fill whole vectors and its pixels do not. */
bool cg_x86_pwconv(const Target *t, Graph *g, NodeId n);

#endif
