/* op_attrs.h — the typed attributes the ops layer exports to passes: the struct an
 * op group imports a node's attributes into (strings already enums, opset defaults
 * applied), and one accessor per struct that returns node id's attributes, or NULL
 * when its op belongs to another group. A pass reads and writes these fields; it
 * never looks an attribute up by name. The AttrField tables (names, order,
 * defaults: the text IR) stay beside each import in the op files.
 *
 * A group whose struct is not here keeps it private to its op file. When a pass
 * needs one, move the struct here unchanged, declare its accessor below and add a
 * row to op_attrs.c's ONE_GROUP list (a function when several groups share it).
 *
 * Sections: op_attrs.c (the accessors); each struct names the op file that fills it.
 */
#ifndef INGOT_OP_ATTRS_H
#define INGOT_OP_ATTRS_H

#include "ir.h"

/* The fused epilogue of Conv, ConvTranspose, Gemm and MatMul (conv.c, linalg.c): never
 * imported from ONNX, set by passes/fuse_epilogue.c. The kernels add the residual (a
 * trailing input: Conv and Gemm 3, MatMul 2) after the bias, then apply the activation. */
typedef struct EpilogueAttrs {
	int activation;              /* an INGOT_EW_ACT_* code (ewmath.h); 0: none */
	FloatList act_params;        /* n = -1 when the activation takes none */
	int64_t residual;            /* 1: the trailing input is added first */
} EpilogueAttrs;

/* op_attrs.c: by activation code (INGOT_EW_N_ACT of them, ewtable.h), its name in the
 * text IR (ewtable.h's fn column; "none", NULL-terminated as AttrField names are) and
 * how many act_params it takes. Conv's and MatMul/Gemm's AttrField tables share them. */
extern const char *const op_act_names[];
extern const int op_act_n_params[];

/* conv.c: groups conv (Conv) and conv_transpose (ConvTranspose) */
typedef struct ConvAttrs {
	int auto_pad;                        /* NOTSET, SAME_UPPER, SAME_LOWER, VALID */
	int64_t group;
	IntList dilations, kernel_shape, pads, strides;
	EpilogueAttrs ep;
	IntList output_padding, output_shape;    /* ConvTranspose only */
} ConvAttrs;

/* linalg.c: group gemm (Gemm) */
typedef struct GemmAttrs {
	EpilogueAttrs ep;
	float alpha, beta;
	int64_t trans_a, trans_b;            /* 0 or 1 */
} GemmAttrs;

/* linalg.c: group matmul (MatMul) */
typedef struct MatmulAttrs {
	EpilogueAttrs ep;
} MatmulAttrs;

/* norm.c: group batchnorm (BatchNormalization) */
typedef struct BatchNormAttrs {
	float epsilon;
	float momentum;
	int64_t training_mode;   /* 1: normalize with batch statistics, update running ones */
} BatchNormAttrs;

/* norm.c, rms_norm.c: groups layernorm (LayerNormalization) and rms_norm
 * (RMSNormalization); defaults axis -1, epsilon 1e-5, stash_type float */
typedef struct NormAttrs {
	int64_t axis;            /* first normalized dim; may be negative */
	float epsilon;
	int64_t stash_type;      /* the statistics' dtype (LayerNorm's Mean / InvStdDev outputs) */
} NormAttrs;

/* reduce.c: group reduce (ReduceSum, ReduceMean, ...) */
typedef struct ReduceAttrs {
	IntList axes;                    /* n = -1: absent (input 1 or all dims) */
	int64_t keepdims;                /* 0 or 1 */
	int64_t noop_with_empty_axes;    /* 0 or 1: empty axes pass the input through */
} ReduceAttrs;

/* shape_ops.c: group reshape (Reshape, Flatten, Squeeze, Unsqueeze) */
typedef struct ReshapeAttrs {
	IntList shape;      /* Reshape before opset 5 (later: input 1) */
	IntList allowzero;  /* Reshape (opset 14): [1] makes a 0 a literal zero dim */
	IntList axis;       /* Flatten: [axis], default [1] */
	IntList axes;       /* Squeeze/Unsqueeze before opset 13 (later: input 1) */
} ReshapeAttrs;

/* shape_ops.c: group transpose (Transpose) */
typedef struct TransposeAttrs {
	IntList perm;          /* filled with the reversed default by infer */
} TransposeAttrs;

/* elementwise.c: group unary (Relu, LeakyRelu, HardSigmoid, Elu, Selu, ...) */
typedef struct UnaryAttrs {
	FloatList alpha, beta, gamma;   /* n = -1 for ops without the attribute */
} UnaryAttrs;

/* elementwise.c: group clip (Clip) */
typedef struct ClipAttrs {
	FloatList min, max;     /* opset < 11 attributes; n = -1 when absent (unbounded) */
} ClipAttrs;

/* arith.c: group unary_math (Gelu, Celu, Shrink, IsInf, trigonometry, ...) */
typedef struct MathAttrs {
	FloatList alpha;            /* Celu, ThresholdedRelu; n = -1 for other ops */
	FloatList bias, lambd;      /* Shrink */
	IntList detect_positive, detect_negative;   /* IsInf */
	IntList approximate;        /* Gelu: 0 none, 1 tanh */
} MathAttrs;

/* fused.c: group fused_elementwise (FusedElementwise, made by passes/fuse_elementwise.c) */
typedef struct FusedAttrs {
	IntList prog;                /* 3 per step: code, a, b */
	FloatList params;            /* 3 per step: alpha/lo, beta/hi, gamma/clip flags */
} FusedAttrs;

/* quant.c: groups quantize (QuantizeLinear) and dequantize (DequantizeLinear) */
typedef struct QuantAttrs {
	int64_t axis;
	int64_t saturate;
	int64_t block_size;        /* 0: per tensor or per axis */
	int64_t output_dtype;      /* ONNX dtype number, 0: from the zero point / scale */
	int64_t precision;         /* QuantizeLinear 23: dtype of the division, 0: numpy's */
} QuantAttrs;

/* qlinear.c: the clamp of the quantized output that passes/fold_qdq.c sets for a
 * Relu or Clip it folds into the requantization (the output is clamped to
 * [y_min, y_max] as well as to its dtype's range); never read from a model, so an
 * imported node keeps the defaults, which clamp nothing. */
#define Q_NO_MIN INT32_MIN
#define Q_NO_MAX INT32_MAX

/* qlinear.c: groups qlinear_conv (QLinearConv) and conv_integer (ConvInteger) */
typedef struct QConvAttrs {
	int auto_pad;                        /* as ConvAttrs */
	int64_t group;
	IntList dilations, kernel_shape, pads, strides;
	int64_t y_min, y_max;
} QConvAttrs;

/* qlinear.c: groups qlinear_matmul (QLinearMatMul) and matmul_integer (MatMulInteger),
 * and the clamp of qlinear_binary (QLinearAdd, QLinearMul) */
typedef struct QmmAttrs {
	int64_t y_min, y_max;
} QmmAttrs;

/* slice_concat.c: group pad (Pad) */
typedef struct PadAttrs {
	int mode;              /* INGOT_PAD_* (indices into pad_modes) */
	IntList pads;          /* [begin..., end...] over every axis; from input 1 (opset 11) */
	Scalar value;          /* in the data's dtype once inferred; from input 2 (opset 11) */
} PadAttrs;

/* pool.c: group pool (AveragePool, MaxPool, LpPool) */
typedef struct PoolAttrs {
	int auto_pad;                        /* 0 NOTSET, SAME_UPPER, SAME_LOWER, VALID */
	int64_t ceil_mode, count_include_pad, storage_order;    /* 0 or 1 */
	IntList dilations, kernel_shape, pads, strides;
} PoolAttrs;

/* op_attrs.c: node id's attributes, or NULL when its op is not of the group(s) named */
EpilogueAttrs *ops_epilogue_attrs(Graph *g, NodeId id);    /* Conv, ConvTranspose, Gemm, MatMul */
ConvAttrs *ops_conv_attrs(Graph *g, NodeId id);            /* Conv, ConvTranspose */
GemmAttrs *ops_gemm_attrs(Graph *g, NodeId id);
MatmulAttrs *ops_matmul_attrs(Graph *g, NodeId id);
BatchNormAttrs *ops_batchnorm_attrs(Graph *g, NodeId id);
NormAttrs *ops_norm_attrs(Graph *g, NodeId id);            /* LayerNorm, RMSNorm */
ReduceAttrs *ops_reduce_attrs(Graph *g, NodeId id);
ReshapeAttrs *ops_reshape_attrs(Graph *g, NodeId id);
TransposeAttrs *ops_transpose_attrs(Graph *g, NodeId id);
UnaryAttrs *ops_unary_attrs(Graph *g, NodeId id);
ClipAttrs *ops_clip_attrs(Graph *g, NodeId id);
MathAttrs *ops_math_attrs(Graph *g, NodeId id);
FusedAttrs *ops_fused_attrs(Graph *g, NodeId id);
QuantAttrs *ops_quant_attrs(Graph *g, NodeId id);          /* QuantizeLinear, DequantizeLinear */
QConvAttrs *ops_qconv_attrs(Graph *g, NodeId id);          /* QLinearConv, ConvInteger */
QmmAttrs *ops_qmm_attrs(Graph *g, NodeId id);              /* QLinearMatMul, MatMulInteger */
PadAttrs *ops_pad_attrs(Graph *g, NodeId id);
PoolAttrs *ops_pool_attrs(Graph *g, NodeId id);            /* AveragePool, MaxPool, LpPool */
QmmAttrs *ops_qbinary_attrs(Graph *g, NodeId id);          /* QLinearAdd, QLinearMul */

#endif /* INGOT_OP_ATTRS_H */
