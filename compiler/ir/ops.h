/* ops.h — the op set: one X-macro table generates the Op enum, the ONNX names, the
 * arity, the properties passes ask about and the link to each op's implementation
 * group (compiler/ops/<group>.c).
 *
 * Columns: X(ENUM, OnnxName, group, min_in, max_in, min_out, max_out, const_inputs, flags)
 *   group         the OpImpl `op_impl_<group>` that imports, infers and lowers it;
 *                 one group serves a family of ops that share a kernel
 *   max_in -1     variadic
 *   const_inputs  bit mask of input slots that must be known at compile time
 *                 (shapes, axes, pads...); a graph input there needs --bind
 *   flags         OPF_* properties (below), 0 for none; passes test them with
 *                 op_has(op, OPF_...) instead of keeping lists of ops
 * Keep alphabetical within a group; append groups at the end. ORDER OPS
 */
#ifndef INGOT_OPS_H
#define INGOT_OPS_H

/* Op properties (the flags column). Each names the pass that relies on it; a
 * flag is a promise about the op's semantics or kernel, so set it only when that
 * holds for every node of the op. */
typedef enum OpFlag {
	/* output 0 may share input 0's bytes: a view, no code (plan_memory) */
	OPF_VIEW = 1u << 0,
	/* output 0 is input 0's data in another shape: a chain of them is one Reshape
	 * (fold_chains) */
	OPF_RESHAPE = 1u << 1,
	/* output 0 is input 0 with its dims permuted by the `perm` attribute (default:
	 * reversed): chains compose, the identity permutation is a copy (fold_chains,
	 * remove_identity) */
	OPF_PERMUTE = 1u << 2,
	/* a plain copy of input 0 when its one output has input 0's type (remove_identity) */
	OPF_NOOP_SAME_TYPE = 1u << 3,
	/* the kernel may write its output over an input of the same dtype and element
	 * count: element i is read before element i is written (plan_memory) */
	OPF_INPLACE = 1u << 4,
	/* an f32 node of it can be one step of a FusedElementwise program, with the
	 * kernel parameters it lowers to alone (fuse_elementwise) */
	OPF_FUSE_STEP = 1u << 5,
	/* carries the fused-epilogue attributes (activation, act_params, residual; the
	 * residual is the last input slot): Conv, ConvTranspose, Gemm, MatMul
	 * (fuse_epilogue, fold_batchnorm) */
	OPF_LINEAR = 1u << 6,
	/* an activation a linear op's epilogue can apply (fuse_epilogue; the name and
	 * parameters: ops_epilogue_act) */
	OPF_ACTIVATION = 1u << 7,
	/* a two-input op with f(a, b) == f(b, a) (NaN payloads aside) */
	OPF_COMMUTATIVE = 1u << 8,
	/* draws random numbers: never folded or merged (ops_node_random, cse) */
	OPF_RANDOM = 1u << 9,
	/* random only in training mode (ops_dropout_training), else a copy of input 0
	 * whose other outputs are masks: Dropout (ops_node_random, cse, remove_identity) */
	OPF_RANDOM_TRAINING = 1u << 10,
	/* the OpenCL target has a device kernel for some f32 nodes of it; which ones
	 * (dtype, attributes) the target's predicate says (passes/place.c) */
	OPF_DEVICE = 1u << 11,
	/* an op of the ai.onnx.ml domain: the frontend takes it only from that domain, and
	 * its node's opset is the model's ai.onnx.ml opset (frontend/onnx_graph.c) */
	OPF_ML = 1u << 12,
} OpFlag;

#define IR_OPS(X) \
	/* elementwise: unary math and activations */ \
	X(ABS, Abs, unary, 1, 1, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_DEVICE) \
	X(CEIL, Ceil, unary, 1, 1, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_DEVICE) \
	X(ELU, Elu, unary, 1, 1, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_DEVICE) \
	X(ERF, Erf, unary, 1, 1, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_DEVICE) \
	X(EXP, Exp, unary, 1, 1, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_DEVICE) \
	X(FLOOR, Floor, unary, 1, 1, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_DEVICE) \
	X(HARD_SIGMOID, HardSigmoid, unary, 1, 1, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_ACTIVATION | OPF_DEVICE) \
	X(HARD_SWISH, HardSwish, unary, 1, 1, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_ACTIVATION | OPF_DEVICE) \
	X(LEAKY_RELU, LeakyRelu, unary, 1, 1, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_ACTIVATION | OPF_DEVICE) \
	X(LOG, Log, unary, 1, 1, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_DEVICE) \
	X(NEG, Neg, unary, 1, 1, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_DEVICE) \
	X(NOT, Not, unary, 1, 1, 1, 1, 0, OPF_INPLACE) \
	X(RECIPROCAL, Reciprocal, unary, 1, 1, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_DEVICE) \
	X(RELU, Relu, unary, 1, 1, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_ACTIVATION | OPF_DEVICE) \
	X(SELU, Selu, unary, 1, 1, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_DEVICE) \
	X(SIGMOID, Sigmoid, unary, 1, 1, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_ACTIVATION | OPF_DEVICE) \
	X(SOFTPLUS, Softplus, unary, 1, 1, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_DEVICE) \
	X(SOFTSIGN, Softsign, unary, 1, 1, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_DEVICE) \
	X(SQRT, Sqrt, unary, 1, 1, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_DEVICE) \
	X(SWISH, Swish, unary, 1, 1, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_ACTIVATION | OPF_DEVICE) \
	X(TANH, Tanh, unary, 1, 1, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_ACTIVATION | OPF_DEVICE) \
	/* elementwise: binary with numpy broadcasting */ \
	X(ADD, Add, binary, 2, 2, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_COMMUTATIVE | OPF_DEVICE) \
	X(AND, And, binary, 2, 2, 1, 1, 0, OPF_INPLACE | OPF_COMMUTATIVE) \
	X(DIV, Div, binary, 2, 2, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_DEVICE) \
	X(EQUAL, Equal, binary, 2, 2, 1, 1, 0, OPF_INPLACE | OPF_COMMUTATIVE) \
	X(GREATER, Greater, binary, 2, 2, 1, 1, 0, OPF_INPLACE) \
	X(GREATER_OR_EQUAL, GreaterOrEqual, binary, 2, 2, 1, 1, 0, OPF_INPLACE) \
	X(LESS, Less, binary, 2, 2, 1, 1, 0, OPF_INPLACE) \
	X(LESS_OR_EQUAL, LessOrEqual, binary, 2, 2, 1, 1, 0, OPF_INPLACE) \
	X(MUL, Mul, binary, 2, 2, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_COMMUTATIVE | OPF_DEVICE) \
	X(OR, Or, binary, 2, 2, 1, 1, 0, OPF_INPLACE | OPF_COMMUTATIVE) \
	X(POW, Pow, binary, 2, 2, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP) \
	X(SUB, Sub, binary, 2, 2, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_DEVICE) \
	X(XOR, Xor, binary, 2, 2, 1, 1, 0, OPF_INPLACE | OPF_COMMUTATIVE) \
	/* elementwise: variadic with broadcasting */ \
	X(MAX, Max, variadic, 1, -1, 1, 1, 0, 0) \
	X(MEAN, Mean, variadic, 1, -1, 1, 1, 0, 0) \
	X(MIN, Min, variadic, 1, -1, 1, 1, 0, 0) \
	X(SUM, Sum, variadic, 1, -1, 1, 1, 0, 0) \
	/* elementwise: the rest */ \
	X(CAST, Cast, cast, 1, 1, 1, 1, 0, OPF_NOOP_SAME_TYPE) \
	X(CLIP, Clip, clip, 1, 3, 1, 1, 0, OPF_INPLACE | OPF_FUSE_STEP | OPF_ACTIVATION) \
	X(DROPOUT, Dropout, identity, 1, 3, 1, 2, 0, OPF_RANDOM_TRAINING) \
	X(IDENTITY, Identity, identity, 1, 1, 1, 1, 0, OPF_VIEW | OPF_NOOP_SAME_TYPE) \
	X(BIT_CAST, BitCast, bitcast, 1, 1, 1, 1, 0, 0) \
	X(WHERE, Where, where, 3, 3, 1, 1, 0, 0) \
	/* linear algebra and convolution */ \
	X(CONV, Conv, conv, 2, 4, 1, 1, 0, OPF_LINEAR | OPF_DEVICE) \
	X(CONV_TRANSPOSE, ConvTranspose, conv_transpose, 2, 4, 1, 1, 0, OPF_LINEAR) \
	X(GEMM, Gemm, gemm, 2, 4, 1, 1, 0, OPF_LINEAR | OPF_DEVICE) \
	X(MATMUL, MatMul, matmul, 2, 3, 1, 1, 0, OPF_LINEAR | OPF_DEVICE) \
	/* pooling */ \
	X(AVERAGE_POOL, AveragePool, pool, 1, 1, 1, 1, 0, OPF_DEVICE) \
	X(MAX_POOL, MaxPool, pool, 1, 1, 1, 2, 0, OPF_DEVICE) \
	X(GLOBAL_AVERAGE_POOL, GlobalAveragePool, global_pool, 1, 1, 1, 1, 0, OPF_DEVICE) \
	X(GLOBAL_MAX_POOL, GlobalMaxPool, global_pool, 1, 1, 1, 1, 0, OPF_DEVICE) \
	/* normalization and softmax */ \
	X(BATCH_NORMALIZATION, BatchNormalization, batchnorm, 5, 5, 1, 3, 0, 0) \
	X(INSTANCE_NORMALIZATION, InstanceNormalization, instancenorm, 3, 3, 1, 1, 0, 0) \
	X(LAYER_NORMALIZATION, LayerNormalization, layernorm, 2, 3, 1, 3, 0, OPF_DEVICE) \
	X(LOG_SOFTMAX, LogSoftmax, softmax, 1, 1, 1, 1, 0, OPF_DEVICE) \
	X(SOFTMAX, Softmax, softmax, 1, 1, 1, 1, 0, OPF_DEVICE) \
	/* reductions (axes as attribute or as input 1) */ \
	X(REDUCE_L1, ReduceL1, reduce, 1, 2, 1, 1, 0x2, OPF_DEVICE) \
	X(REDUCE_L2, ReduceL2, reduce, 1, 2, 1, 1, 0x2, OPF_DEVICE) \
	X(REDUCE_LOG_SUM, ReduceLogSum, reduce, 1, 2, 1, 1, 0x2, OPF_DEVICE) \
	X(REDUCE_LOG_SUM_EXP, ReduceLogSumExp, reduce, 1, 2, 1, 1, 0x2, OPF_DEVICE) \
	X(REDUCE_MAX, ReduceMax, reduce, 1, 2, 1, 1, 0x2, OPF_DEVICE) \
	X(REDUCE_MEAN, ReduceMean, reduce, 1, 2, 1, 1, 0x2, OPF_DEVICE) \
	X(REDUCE_MIN, ReduceMin, reduce, 1, 2, 1, 1, 0x2, OPF_DEVICE) \
	X(REDUCE_PROD, ReduceProd, reduce, 1, 2, 1, 1, 0x2, OPF_DEVICE) \
	X(REDUCE_SUM, ReduceSum, reduce, 1, 2, 1, 1, 0x2, OPF_DEVICE) \
	X(REDUCE_SUM_SQUARE, ReduceSumSquare, reduce, 1, 2, 1, 1, 0x2, OPF_DEVICE) \
	/* data movement and shapes */ \
	X(CONCAT, Concat, concat, 1, -1, 1, 1, 0, OPF_DEVICE) \
	X(CONSTANT_OF_SHAPE, ConstantOfShape, constant_of_shape, 1, 1, 1, 1, 0x1, 0) \
	X(EXPAND, Expand, expand, 2, 2, 1, 1, 0x2, 0) \
	X(FLATTEN, Flatten, reshape, 1, 1, 1, 1, 0, OPF_VIEW | OPF_RESHAPE | OPF_NOOP_SAME_TYPE | OPF_DEVICE) \
	X(GATHER, Gather, gather, 2, 2, 1, 1, 0, OPF_DEVICE) \
	X(PAD, Pad, pad, 1, 4, 1, 1, 0xe, OPF_DEVICE) \
	X(RANGE, Range, range, 3, 3, 1, 1, 0x7, 0) \
	X(RESHAPE, Reshape, reshape, 1, 2, 1, 1, 0x2, OPF_VIEW | OPF_RESHAPE | OPF_NOOP_SAME_TYPE | OPF_DEVICE) \
	X(SHAPE, Shape, shape, 1, 1, 1, 1, 0, 0) \
	X(SIZE, Size, shape, 1, 1, 1, 1, 0, 0) \
	X(SLICE, Slice, slice, 1, 5, 1, 1, 0x1e, OPF_DEVICE) \
	X(SPLIT, Split, split, 1, 2, 1, -1, 0x2, 0) \
	X(SQUEEZE, Squeeze, reshape, 1, 2, 1, 1, 0x2, OPF_VIEW | OPF_RESHAPE | OPF_NOOP_SAME_TYPE | OPF_DEVICE) \
	X(TILE, Tile, tile, 2, 2, 1, 1, 0x2, 0) \
	X(TRANSPOSE, Transpose, transpose, 1, 1, 1, 1, 0, OPF_PERMUTE | OPF_DEVICE) \
	X(UNSQUEEZE, Unsqueeze, reshape, 1, 2, 1, 1, 0x2, OPF_VIEW | OPF_RESHAPE | OPF_NOOP_SAME_TYPE | OPF_DEVICE) \
	/* arith.c, arith_matrix.c */ \
	X(SIN, Sin, unary_math, 1, 1, 1, 1, 0x0, 0) \
	X(COS, Cos, unary_math, 1, 1, 1, 1, 0x0, 0) \
	X(TAN, Tan, unary_math, 1, 1, 1, 1, 0x0, 0) \
	X(ASIN, Asin, unary_math, 1, 1, 1, 1, 0x0, 0) \
	X(ACOS, Acos, unary_math, 1, 1, 1, 1, 0x0, 0) \
	X(ATAN, Atan, unary_math, 1, 1, 1, 1, 0x0, 0) \
	X(SINH, Sinh, unary_math, 1, 1, 1, 1, 0x0, 0) \
	X(COSH, Cosh, unary_math, 1, 1, 1, 1, 0x0, 0) \
	X(ASINH, Asinh, unary_math, 1, 1, 1, 1, 0x0, 0) \
	X(ACOSH, Acosh, unary_math, 1, 1, 1, 1, 0x0, 0) \
	X(ATANH, Atanh, unary_math, 1, 1, 1, 1, 0x0, 0) \
	X(SIGN, Sign, unary_math, 1, 1, 1, 1, 0x0, 0) \
	X(ROUND, Round, unary_math, 1, 1, 1, 1, 0x0, 0) \
	X(IS_NAN, IsNaN, unary_math, 1, 1, 1, 1, 0x0, 0) \
	X(IS_INF, IsInf, unary_math, 1, 1, 1, 1, 0x0, 0) \
	X(CELU, Celu, unary_math, 1, 1, 1, 1, 0x0, 0) \
	X(MISH, Mish, unary_math, 1, 1, 1, 1, 0x0, 0) \
	X(GELU, Gelu, unary_math, 1, 1, 1, 1, 0x0, OPF_ACTIVATION) \
	X(THRESHOLDED_RELU, ThresholdedRelu, unary_math, 1, 1, 1, 1, 0x0, 0) \
	X(SHRINK, Shrink, unary_math, 1, 1, 1, 1, 0x0, 0) \
	X(MOD, Mod, int_binary, 2, 2, 1, 1, 0x0, 0) \
	X(BIT_SHIFT, BitShift, int_binary, 2, 2, 1, 1, 0x0, 0) \
	X(BITWISE_AND, BitwiseAnd, bitwise, 2, 2, 1, 1, 0x0, OPF_COMMUTATIVE) \
	X(BITWISE_NOT, BitwiseNot, bitwise, 1, 1, 1, 1, 0x0, 0) \
	X(BITWISE_OR, BitwiseOr, bitwise, 2, 2, 1, 1, 0x0, OPF_COMMUTATIVE) \
	X(BITWISE_XOR, BitwiseXor, bitwise, 2, 2, 1, 1, 0x0, OPF_COMMUTATIVE) \
	X(PRELU, PRelu, prelu, 2, 2, 1, 1, 0x0, 0) \
	X(HARDMAX, Hardmax, hardmax, 1, 1, 1, 1, 0x0, 0) \
	X(CUM_SUM, CumSum, cumsum, 2, 2, 1, 1, 0x2, 0) \
	X(CUM_PROD, CumProd, cumsum, 2, 2, 1, 1, 0x2, 0) \
	X(DET, Det, det, 1, 1, 1, 1, 0x0, 0) \
	X(EINSUM, Einsum, einsum, 1, -1, 1, 1, 0x0, 0) \
	X(TRILU, Trilu, trilu, 1, 2, 1, 1, 0x2, 0) \
	X(EYE_LIKE, EyeLike, eye_like, 1, 1, 1, 1, 0x0, 0) \
	X(ONE_HOT, OneHot, one_hot, 3, 3, 1, 1, 0x2, 0) \
	X(CAST_LIKE, CastLike, cast_like, 2, 2, 1, 1, 0x0, 0) \
	/* indexing.c */ \
	X(GATHER_ELEMENTS, GatherElements, gather_elements, 2, 2, 1, 1, 0x0, 0) \
	X(GATHER_ND, GatherND, gather_nd, 2, 2, 1, 1, 0x0, 0) \
	X(SCATTER, Scatter, scatter_elements, 3, 3, 1, 1, 0x0, 0) \
	X(SCATTER_ELEMENTS, ScatterElements, scatter_elements, 3, 3, 1, 1, 0x0, 0) \
	X(SCATTER_ND, ScatterND, scatter_nd, 3, 3, 1, 1, 0x0, 0) \
	X(TENSOR_SCATTER, TensorScatter, tensor_scatter, 2, 3, 1, 1, 0x0, 0) \
	X(COMPRESS, Compress, compress, 2, 2, 1, 1, 0x0, 0) \
	X(NON_ZERO, NonZero, nonzero, 1, 1, 1, 1, 0x0, 0) \
	X(UNIQUE, Unique, unique, 1, 1, 1, 4, 0x0, 0) \
	X(REVERSE_SEQUENCE, ReverseSequence, reverse_sequence, 2, 2, 1, 1, 0x0, 0) \
	X(ARG_MAX, ArgMax, arg, 1, 1, 1, 1, 0x0, 0) \
	X(ARG_MIN, ArgMin, arg, 1, 1, 1, 1, 0x0, 0) \
	X(TOP_K, TopK, topk, 1, 2, 2, 2, 0x2, 0) \
	X(DEPTH_TO_SPACE, DepthToSpace, depth_space, 1, 1, 1, 1, 0x0, 0) \
	X(SPACE_TO_DEPTH, SpaceToDepth, depth_space, 1, 1, 1, 1, 0x0, 0) \
	X(TF_IDF_VECTORIZER, TfIdfVectorizer, tfidf, 1, 2, 1, 1, 0x0, 0) \
	/* image.c */ \
	X(RESIZE, Resize, resize, 1, 4, 1, 1, 0xe, OPF_DEVICE) \
	X(UPSAMPLE, Upsample, upsample, 1, 2, 1, 1, 0x2, OPF_DEVICE) \
	X(GRID_SAMPLE, GridSample, grid_sample, 2, 2, 1, 1, 0x0, 0) \
	X(AFFINE_GRID, AffineGrid, affine_grid, 2, 2, 1, 1, 0x2, 0) \
	X(ROI_ALIGN, RoiAlign, roi_align, 3, 3, 1, 1, 0x0, 0) \
	X(NON_MAX_SUPPRESSION, NonMaxSuppression, nms, 2, 5, 1, 1, 0x0, 0) \
	X(MAX_UNPOOL, MaxUnpool, max_unpool, 2, 3, 1, 1, 0x4, 0) \
	X(LRN, LRN, lrn, 1, 1, 1, 1, 0x0, 0) \
	X(LP_POOL, LpPool, lp_pool, 1, 1, 1, 1, 0x0, 0) \
	X(RMS_NORMALIZATION, RMSNormalization, rms_norm, 2, 2, 1, 1, 0x0, 0) \
	X(GLOBAL_LP_POOL, GlobalLpPool, global_lp_pool, 1, 1, 1, 1, 0x0, 0) \
	X(LP_NORMALIZATION, LpNormalization, lp_norm, 1, 1, 1, 1, 0x0, 0) \
	X(MEAN_VARIANCE_NORMALIZATION, MeanVarianceNormalization, mvn, 1, 1, 1, 1, 0x0, 0) \
	X(GROUP_NORMALIZATION, GroupNormalization, group_norm, 3, 3, 1, 1, 0x0, 0) \
	X(COL2IM, Col2Im, col2im, 3, 3, 1, 1, 0x6, 0) \
	X(DEFORM_CONV, DeformConv, deform_conv, 3, 5, 1, 1, 0x0, 0) \
	X(MAX_ROI_POOL, MaxRoiPool, max_roi_pool, 2, 2, 1, 1, 0x0, 0) \
	/* quant.c */ \
	X(QUANTIZE_LINEAR, QuantizeLinear, quantize, 2, 3, 1, 1, 0x0, 0) \
	X(DEQUANTIZE_LINEAR, DequantizeLinear, dequantize, 2, 3, 1, 1, 0x0, 0) \
	X(DYNAMIC_QUANTIZE_LINEAR, DynamicQuantizeLinear, dynamic_quantize, 1, 1, 3, 3, 0x0, 0) \
	X(QLINEAR_CONV, QLinearConv, qlinear_conv, 8, 9, 1, 1, 0x0, 0) \
	X(QLINEAR_MATMUL, QLinearMatMul, qlinear_matmul, 8, 9, 1, 1, 0x0, 0) \
	X(MATMUL_INTEGER, MatMulInteger, matmul_integer, 2, 4, 1, 1, 0x0, 0) \
	X(CONV_INTEGER, ConvInteger, conv_integer, 2, 4, 1, 1, 0x0, 0) \
	/* spectral.c */ \
	X(DFT, DFT, dft, 1, 3, 1, 1, 0x6, 0) \
	X(STFT, STFT, stft, 2, 4, 1, 1, 0xa, 0) \
	X(BLACKMAN_WINDOW, BlackmanWindow, window, 1, 1, 1, 1, 0x1, 0) \
	X(HAMMING_WINDOW, HammingWindow, window, 1, 1, 1, 1, 0x1, 0) \
	X(HANN_WINDOW, HannWindow, window, 1, 1, 1, 1, 0x1, 0) \
	X(MEL_WEIGHT_MATRIX, MelWeightMatrix, mel, 5, 5, 1, 1, 0x1f, 0) \
	/* loss.c */ \
	X(SOFTMAX_CROSS_ENTROPY_LOSS, SoftmaxCrossEntropyLoss, sce_loss, 2, 3, 1, 2, 0x0, 0) \
	X(NEGATIVE_LOG_LIKELIHOOD_LOSS, NegativeLogLikelihoodLoss, nll_loss, 2, 3, 1, 1, 0x0, 0) \
	X(ADAGRAD, Adagrad, adagrad, 3, -1, 1, -1, 0x0, 0) \
	X(ADAM, Adam, adam, 3, -1, 1, -1, 0x0, 0) \
	X(MOMENTUM, Momentum, momentum, 3, -1, 1, -1, 0x0, 0) \
	/* rnn.c */ \
	X(GRU, GRU, rnn, 3, 8, 0, 3, 0x0, 0) \
	X(LSTM, LSTM, rnn, 3, 8, 0, 3, 0x0, 0) \
	X(RNN, RNN, rnn, 3, 8, 0, 3, 0x0, 0) \
	/* control.c */ \
	X(IF, If, if_else, 1, 1, 1, -1, 0x0, 0) \
	X(LOOP, Loop, loop, 0, -1, 1, -1, 0x3, 0) \
	X(SCAN, Scan, scan, 0, -1, 1, -1, 0x0, 0) \
	/* sequence.c: resolved during inference, never lowered */ \
	X(CONCAT_FROM_SEQUENCE, ConcatFromSequence, sequence, 1, 1, 1, 1, 0x0, 0) \
	X(OPTIONAL, Optional, sequence, 0, 1, 1, 1, 0x0, 0) \
	X(OPTIONAL_GET_ELEMENT, OptionalGetElement, sequence, 1, 1, 1, 1, 0x0, 0) \
	X(OPTIONAL_HAS_ELEMENT, OptionalHasElement, sequence, 0, 1, 1, 1, 0x0, 0) \
	X(SEQUENCE_AT, SequenceAt, sequence, 2, 2, 1, 1, 0x2, 0) \
	X(SEQUENCE_CONSTRUCT, SequenceConstruct, sequence, 1, -1, 1, 1, 0x0, 0) \
	X(SEQUENCE_EMPTY, SequenceEmpty, sequence, 0, 0, 1, 1, 0x0, 0) \
	X(SEQUENCE_ERASE, SequenceErase, sequence, 1, 2, 1, 1, 0x2, 0) \
	X(SEQUENCE_INSERT, SequenceInsert, sequence, 2, 3, 1, 1, 0x4, 0) \
	X(SEQUENCE_LENGTH, SequenceLength, sequence, 1, 1, 1, 1, 0x0, 0) \
	X(SEQUENCE_MAP, SequenceMap, sequence_map, 1, -1, 1, -1, 0x0, 0) \
	X(SPLIT_TO_SEQUENCE, SplitToSequence, sequence, 1, 2, 1, 1, 0x2, 0) \
	/* center_crop_pad.c: rewritten by inference into Slice/Pad, never lowered */ \
	X(CENTER_CROP_PAD, CenterCropPad, center_crop_pad, 2, 2, 1, 1, 0x2, 0) \
	/* attention.c, rotary_embedding.c: rewritten by inference into MatMul, Softmax, ... */ \
	X(ATTENTION, Attention, attention, 3, 7, 1, 4, 0x0, 0) \
	X(ROTARY_EMBEDDING, RotaryEmbedding, rotary_embedding, 3, 4, 1, 1, 0x0, 0) \
	/* causal_conv.c, swiglu.c: rewritten by inference into Concat, Conv, Slice, Swish, Mul */ \
	X(CAUSAL_CONV_WITH_STATE, CausalConvWithState, causal_conv, 2, 4, 1, 2, 0x0, 0) \
	X(SWIGLU, SwiGLU, swiglu, 2, 2, 1, 1, 0x0, 0) \
	/* linear_attention.c: the recurrence of ingot_linear_attention (kernels/rnn.c) */ \
	X(LINEAR_ATTENTION, LinearAttention, linear_attention, 3, 7, 1, 2, 0x0, 0) \
	/* flex_attention.c (ai.onnx.preview): rewritten into MatMul, Softmax and its subgraphs */ \
	X(FLEX_ATTENTION, FlexAttention, flex_attention, 3, 3, 1, 1, 0x0, 0) \
	/* text.c; input 1 holds the stopwords attribute as a constant (set at import) */ \
	X(STRING_NORMALIZER, StringNormalizer, string_normalizer, 1, 2, 1, 1, 0x0, 0) \
	/* text.c: StringSplit's input 1 holds its delimiter, RegexFullMatch's input 1 its \
	 * pattern compiled to an NFA program (regex.c); both set at import */ \
	X(REGEX_FULL_MATCH, RegexFullMatch, regex_full_match, 1, 2, 1, 1, 0x0, 0) \
	X(STRING_CONCAT, StringConcat, string_concat, 2, 2, 1, 1, 0x0, 0) \
	X(STRING_SPLIT, StringSplit, string_split, 1, 2, 2, 2, 0x0, 0) \
	/* imgdec.c */ \
	X(IMAGE_DECODER, ImageDecoder, image_decoder, 1, 1, 1, 1, 0x0, 0) \
	/* random.c: never folded or merged (ops_node_random) */ \
	X(BERNOULLI, Bernoulli, random, 1, 1, 1, 1, 0x0, OPF_RANDOM) \
	X(MULTINOMIAL, Multinomial, random, 1, 1, 1, 1, 0x0, OPF_RANDOM) \
	X(RANDOM_NORMAL, RandomNormal, random, 0, 0, 1, 1, 0x0, OPF_RANDOM) \
	X(RANDOM_NORMAL_LIKE, RandomNormalLike, random, 1, 1, 1, 1, 0x0, OPF_RANDOM) \
	X(RANDOM_UNIFORM, RandomUniform, random, 0, 0, 1, 1, 0x0, OPF_RANDOM) \
	X(RANDOM_UNIFORM_LIKE, RandomUniformLike, random, 1, 1, 1, 1, 0x0, OPF_RANDOM) \
	/* ai.onnx.ml (OPF_ML). ml_tree.c: every tree format becomes one node table, \
	 * appended at import as constant inputs 1-7 (8: a classifier's labels); ml.c: \
	 * LabelEncoder's keys, values and default become inputs 1-3 */ \
	X(ARRAY_FEATURE_EXTRACTOR, ArrayFeatureExtractor, array_feature_extractor, 2, 2, 1, 1, 0x0, OPF_ML) \
	X(BINARIZER, Binarizer, binarizer, 1, 1, 1, 1, 0x0, OPF_ML) \
	X(IMPUTER, Imputer, ml_linear, 1, 2, 1, 1, 0x0, OPF_ML) \
	X(LABEL_ENCODER, LabelEncoder, label_encoder, 1, 5, 1, 1, 0x0, OPF_ML) \
	X(LINEAR_REGRESSOR, LinearRegressor, ml_linear, 1, 3, 1, 1, 0x0, OPF_ML) \
	X(NORMALIZER, Normalizer, ml_linear, 1, 1, 1, 1, 0x0, OPF_ML) \
	X(SCALER, Scaler, ml_linear, 1, 3, 1, 1, 0x0, OPF_ML) \
	X(TREE_ENSEMBLE, TreeEnsemble, tree_ensemble, 1, 8, 1, 1, 0x0, OPF_ML) \
	X(TREE_ENSEMBLE_CLASSIFIER, TreeEnsembleClassifier, tree_ensemble, 1, 9, 1, 2, 0x0, OPF_ML) \
	X(TREE_ENSEMBLE_REGRESSOR, TreeEnsembleRegressor, tree_ensemble, 1, 8, 1, 1, 0x0, OPF_ML) \
	/* fused.c: ingot's own ops, made by passes (not ONNX; rejected at import) */ \
	X(FUSED_ELEMENTWISE, FusedElementwise, fused_elementwise, 1, 4, 1, 1, 0x0, OPF_INPLACE | OPF_DEVICE) \
	/* elementwise.c: the explicit transfers of passes/place.c between the host's memory \
	 * and the OpenCL device's (a copy on the C target) */ \
	X(COPY_TO_DEVICE, CopyToDevice, device_copy, 1, 1, 1, 1, 0x0, 0) \
	X(COPY_TO_HOST, CopyToHost, device_copy, 1, 1, 1, 1, 0x0, 0) \
	/* control.c: an If branch that cannot be shaped, replaced by a run-time error */ \
	X(BRANCH_ERROR, BranchError, branch_error, 1, 1, 0, -1, 0x0, 0) \
	/* qlinear.c, pool.c: the integer forms of QDQ patterns (passes/fold_qdq.c) */ \
	X(MATMUL_W8, MatMulW8, matmul_w8, 3, 4, 1, 1, 0x0, 0) \
	X(QLINEAR_ADD, QLinearAdd, qlinear_binary, 8, 8, 1, 1, 0x0, 0) \
	X(QLINEAR_AVERAGE_POOL, QLinearAveragePool, pool, 5, 5, 1, 1, 0x0, 0) \
	X(QLINEAR_GLOBAL_AVERAGE_POOL, QLinearGlobalAveragePool, global_pool, 5, 5, 1, 1, 0x0, 0) \
	X(QLINEAR_LOOKUP, QLinearLookup, qlinear_lookup, 2, 2, 1, 1, 0x0, OPF_INPLACE) \
	X(QLINEAR_MUL, QLinearMul, qlinear_binary, 8, 8, 1, 1, 0x0, 0)

typedef enum Op {
#define X(e, name, group, a, b, c, d, k, f) OP_##e,
	IR_OPS(X)
#undef X
	OP_COUNT
} Op;

/* ingot's own ops (made by passes, in the text IR) come last; no ONNX model has them */
#define OP_FIRST_INTERNAL OP_FUSED_ELEMENTWISE

/* The implementation groups, each defined in compiler/ops/<group>.c. ORDER GROUPS */
#define IR_OP_GROUPS(G) \
	G(unary) G(binary) G(variadic) G(cast) G(clip) G(identity) G(where) \
	G(conv) G(conv_transpose) G(gemm) G(matmul) G(pool) G(global_pool) \
	G(batchnorm) G(instancenorm) G(layernorm) G(softmax) G(reduce) \
	G(concat) G(constant_of_shape) G(expand) G(gather) G(pad) G(range) \
	G(reshape) G(shape) G(slice) G(split) G(tile) G(transpose) \
	G(unary_math) G(int_binary) G(bitwise) G(prelu) G(hardmax) G(cumsum) G(det) G(einsum) G(trilu) \
	G(eye_like) G(one_hot) G(cast_like) G(gather_elements) G(gather_nd) G(scatter_elements) G(scatter_nd) G(compress) \
	G(nonzero) G(unique) G(reverse_sequence) G(arg) G(topk) G(depth_space) G(tfidf) G(resize) \
	G(upsample) G(grid_sample) G(affine_grid) G(roi_align) G(nms) G(max_unpool) G(lrn) G(lp_pool) G(global_lp_pool) G(rms_norm) G(lp_norm) \
	G(mvn) G(group_norm) G(col2im) G(deform_conv) G(max_roi_pool) G(quantize) G(dequantize) G(dynamic_quantize) G(qlinear_conv) G(qlinear_matmul) \
	G(matmul_integer) G(conv_integer) G(dft) G(stft) G(window) G(mel) G(sce_loss) G(nll_loss) \
	G(adagrad) G(adam) G(momentum) G(rnn) G(if_else) G(loop) G(scan) \
	G(sequence) G(sequence_map) G(center_crop_pad) G(attention) G(rotary_embedding) G(string_normalizer) \
	G(regex_full_match) G(string_concat) G(string_split) G(image_decoder) G(random) G(fused_elementwise) \
	G(qlinear_binary) G(qlinear_lookup) G(matmul_w8) G(branch_error) G(device_copy) \
	G(bitcast) G(tensor_scatter) G(causal_conv) G(swiglu) G(linear_attention) \
	G(flex_attention) G(array_feature_extractor) G(binarizer) G(label_encoder) G(ml_linear) \
	G(tree_ensemble)

#endif /* INGOT_OPS_H */
