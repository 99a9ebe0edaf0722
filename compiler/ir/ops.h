/* ops.h — the op set: one X-macro table generates the Op enum, the ONNX names, the
 * arity and the link to each op's implementation group (compiler/ops/<group>.c).
 *
 * Columns: X(ENUM, OnnxName, group, min_in, max_in, min_out, max_out, const_inputs)
 *   group         the OpImpl `op_impl_<group>` that imports, infers and lowers it;
 *                 one group serves a family of ops that share a kernel
 *   max_in -1     variadic
 *   const_inputs  bit mask of input slots that must be known at compile time
 *                 (shapes, axes, pads...); a graph input there needs --bind
 * Keep alphabetical within a group; append groups at the end. ORDER OPS
 */
#ifndef INGOT_OPS_H
#define INGOT_OPS_H

#define IR_OPS(X) \
	/* elementwise: unary math and activations */ \
	X(ABS, Abs, unary, 1, 1, 1, 1, 0) \
	X(CEIL, Ceil, unary, 1, 1, 1, 1, 0) \
	X(ELU, Elu, unary, 1, 1, 1, 1, 0) \
	X(ERF, Erf, unary, 1, 1, 1, 1, 0) \
	X(EXP, Exp, unary, 1, 1, 1, 1, 0) \
	X(FLOOR, Floor, unary, 1, 1, 1, 1, 0) \
	X(HARD_SIGMOID, HardSigmoid, unary, 1, 1, 1, 1, 0) \
	X(HARD_SWISH, HardSwish, unary, 1, 1, 1, 1, 0) \
	X(LEAKY_RELU, LeakyRelu, unary, 1, 1, 1, 1, 0) \
	X(LOG, Log, unary, 1, 1, 1, 1, 0) \
	X(NEG, Neg, unary, 1, 1, 1, 1, 0) \
	X(NOT, Not, unary, 1, 1, 1, 1, 0) \
	X(RECIPROCAL, Reciprocal, unary, 1, 1, 1, 1, 0) \
	X(RELU, Relu, unary, 1, 1, 1, 1, 0) \
	X(SELU, Selu, unary, 1, 1, 1, 1, 0) \
	X(SIGMOID, Sigmoid, unary, 1, 1, 1, 1, 0) \
	X(SOFTPLUS, Softplus, unary, 1, 1, 1, 1, 0) \
	X(SOFTSIGN, Softsign, unary, 1, 1, 1, 1, 0) \
	X(SQRT, Sqrt, unary, 1, 1, 1, 1, 0) \
	X(TANH, Tanh, unary, 1, 1, 1, 1, 0) \
	/* elementwise: binary with numpy broadcasting */ \
	X(ADD, Add, binary, 2, 2, 1, 1, 0) \
	X(AND, And, binary, 2, 2, 1, 1, 0) \
	X(DIV, Div, binary, 2, 2, 1, 1, 0) \
	X(EQUAL, Equal, binary, 2, 2, 1, 1, 0) \
	X(GREATER, Greater, binary, 2, 2, 1, 1, 0) \
	X(GREATER_OR_EQUAL, GreaterOrEqual, binary, 2, 2, 1, 1, 0) \
	X(LESS, Less, binary, 2, 2, 1, 1, 0) \
	X(LESS_OR_EQUAL, LessOrEqual, binary, 2, 2, 1, 1, 0) \
	X(MUL, Mul, binary, 2, 2, 1, 1, 0) \
	X(OR, Or, binary, 2, 2, 1, 1, 0) \
	X(POW, Pow, binary, 2, 2, 1, 1, 0) \
	X(SUB, Sub, binary, 2, 2, 1, 1, 0) \
	X(XOR, Xor, binary, 2, 2, 1, 1, 0) \
	/* elementwise: variadic with broadcasting */ \
	X(MAX, Max, variadic, 1, -1, 1, 1, 0) \
	X(MEAN, Mean, variadic, 1, -1, 1, 1, 0) \
	X(MIN, Min, variadic, 1, -1, 1, 1, 0) \
	X(SUM, Sum, variadic, 1, -1, 1, 1, 0) \
	/* elementwise: the rest */ \
	X(CAST, Cast, cast, 1, 1, 1, 1, 0) \
	X(CLIP, Clip, clip, 1, 3, 1, 1, 0) \
	X(DROPOUT, Dropout, identity, 1, 3, 1, 2, 0) \
	X(IDENTITY, Identity, identity, 1, 1, 1, 1, 0) \
	X(WHERE, Where, where, 3, 3, 1, 1, 0) \
	/* linear algebra and convolution */ \
	X(CONV, Conv, conv, 2, 3, 1, 1, 0) \
	X(CONV_TRANSPOSE, ConvTranspose, conv_transpose, 2, 3, 1, 1, 0) \
	X(GEMM, Gemm, gemm, 2, 3, 1, 1, 0) \
	X(MATMUL, MatMul, matmul, 2, 2, 1, 1, 0) \
	/* pooling */ \
	X(AVERAGE_POOL, AveragePool, pool, 1, 1, 1, 1, 0) \
	X(MAX_POOL, MaxPool, pool, 1, 1, 1, 2, 0) \
	X(GLOBAL_AVERAGE_POOL, GlobalAveragePool, global_pool, 1, 1, 1, 1, 0) \
	X(GLOBAL_MAX_POOL, GlobalMaxPool, global_pool, 1, 1, 1, 1, 0) \
	/* normalization and softmax */ \
	X(BATCH_NORMALIZATION, BatchNormalization, batchnorm, 5, 5, 1, 3, 0) \
	X(INSTANCE_NORMALIZATION, InstanceNormalization, instancenorm, 3, 3, 1, 1, 0) \
	X(LAYER_NORMALIZATION, LayerNormalization, layernorm, 2, 3, 1, 3, 0) \
	X(LOG_SOFTMAX, LogSoftmax, softmax, 1, 1, 1, 1, 0) \
	X(SOFTMAX, Softmax, softmax, 1, 1, 1, 1, 0) \
	/* reductions (axes as attribute or as input 1) */ \
	X(REDUCE_L1, ReduceL1, reduce, 1, 2, 1, 1, 0x2) \
	X(REDUCE_L2, ReduceL2, reduce, 1, 2, 1, 1, 0x2) \
	X(REDUCE_LOG_SUM, ReduceLogSum, reduce, 1, 2, 1, 1, 0x2) \
	X(REDUCE_LOG_SUM_EXP, ReduceLogSumExp, reduce, 1, 2, 1, 1, 0x2) \
	X(REDUCE_MAX, ReduceMax, reduce, 1, 2, 1, 1, 0x2) \
	X(REDUCE_MEAN, ReduceMean, reduce, 1, 2, 1, 1, 0x2) \
	X(REDUCE_MIN, ReduceMin, reduce, 1, 2, 1, 1, 0x2) \
	X(REDUCE_PROD, ReduceProd, reduce, 1, 2, 1, 1, 0x2) \
	X(REDUCE_SUM, ReduceSum, reduce, 1, 2, 1, 1, 0x2) \
	X(REDUCE_SUM_SQUARE, ReduceSumSquare, reduce, 1, 2, 1, 1, 0x2) \
	/* data movement and shapes */ \
	X(CONCAT, Concat, concat, 1, -1, 1, 1, 0) \
	X(CONSTANT_OF_SHAPE, ConstantOfShape, constant_of_shape, 1, 1, 1, 1, 0x1) \
	X(EXPAND, Expand, expand, 2, 2, 1, 1, 0x2) \
	X(FLATTEN, Flatten, reshape, 1, 1, 1, 1, 0) \
	X(GATHER, Gather, gather, 2, 2, 1, 1, 0) \
	X(PAD, Pad, pad, 1, 4, 1, 1, 0xe) \
	X(RANGE, Range, range, 3, 3, 1, 1, 0x7) \
	X(RESHAPE, Reshape, reshape, 1, 2, 1, 1, 0x2) \
	X(SHAPE, Shape, shape, 1, 1, 1, 1, 0) \
	X(SIZE, Size, shape, 1, 1, 1, 1, 0) \
	X(SLICE, Slice, slice, 1, 5, 1, 1, 0x1e) \
	X(SPLIT, Split, split, 1, 2, 1, -1, 0x2) \
	X(SQUEEZE, Squeeze, reshape, 1, 2, 1, 1, 0x2) \
	X(TILE, Tile, tile, 2, 2, 1, 1, 0x2) \
	X(TRANSPOSE, Transpose, transpose, 1, 1, 1, 1, 0) \
	X(UNSQUEEZE, Unsqueeze, reshape, 1, 2, 1, 1, 0x2)

typedef enum Op {
#define X(e, name, group, a, b, c, d, k) OP_##e,
	IR_OPS(X)
#undef X
	OP_COUNT
} Op;

/* The implementation groups, each defined in compiler/ops/<group>.c. ORDER GROUPS */
#define IR_OP_GROUPS(G) \
	G(unary) G(binary) G(variadic) G(cast) G(clip) G(identity) G(where) \
	G(conv) G(conv_transpose) G(gemm) G(matmul) G(pool) G(global_pool) \
	G(batchnorm) G(instancenorm) G(layernorm) G(softmax) G(reduce) \
	G(concat) G(constant_of_shape) G(expand) G(gather) G(pad) G(range) \
	G(reshape) G(shape) G(slice) G(split) G(tile) G(transpose)

#endif /* INGOT_OPS_H */
