/* ingot.cl — the OpenCL C kernels of --target opencl (f32). Each takes the very
 * parameter struct the reference kernel of its node takes (the compiler lowers the
 * node once, through the reference lowering; codegen/opencl prepends the structs,
 * generated from the same field lists), then a (buffer, byte offset) pair per input
 * slot and per output: the device pool mirrors the host arena's offsets, the weights
 * are one buffer uploaded at init. The formulas are ewtable.h's (prepended with
 * ewmath.h), so a device node computes what the C kernel computes, up to the
 * device's rounding of exp/log/tanh (OpenCL's ULP bounds).
 *
 * One work-item per output element, except the GEMM-shaped kernels (MatMul, Gemm,
 * 1x1 Conv), which tile through local memory: INGOT_CL_TILE x INGOT_CL_TILE
 * work-groups (the target description's size, a build option). */
#pragma OPENCL FP_CONTRACT OFF

#define INGOT_CL_IN(b, o) ((__global const float *)((b) + (o)))
#define INGOT_CL_OUT(b, o) ((__global float *)((b) + (o)))
#define INGOT_CL_BUF(name) __global const uchar *name##_b, long name##_o
#define INGOT_CL_OBUF(name) __global uchar *name##_b, long name##_o

/* ---- the per-element math ---- */

#define INGOT_CL_F(fn) ingot_ewf_##fn
#define INGOT_CL_UNARY_CASE(N, On, fn, R, U, A, PAR, S, V) INGOT_EW_IF_FLOAT_##R( \
	case U: return INGOT_EW_CALL_##PAR(INGOT_CL_F, fn);)
/* an ingot_unary op code on x, al, be, ga the op's attributes */
static inline float ingot_cl_unary_op(long op, float x, float al, float be, float ga)
{
	(void)al; (void)be; (void)ga;
	switch (op) {
	INGOT_EW_TABLE(INGOT_CL_UNARY_CASE)
	default: return x;
	}
}

/* an ingot_binary op code of the float arithmetic */
static inline float ingot_cl_binary_op(long op, float x, float y)
{
	switch (op) {
	case INGOT_EW_ADD: return ingot_ewf_add(x, y);
	case INGOT_EW_SUB: return ingot_ewf_sub(x, y);
	case INGOT_EW_MUL: return ingot_ewf_mul(x, y);
	case INGOT_EW_DIV: return ingot_ewf_div(x, y);
	case INGOT_EW_POW: return ingot_ewf_pow(x, y);
	case INGOT_EW_MAX: return ingot_ewf_max(x, y);
	case INGOT_EW_MIN: return ingot_ewf_min(x, y);
	default: return x;
	}
}

/* The fused epilogue of Conv, Gemm, MatMul: + residual, then the activation. */
static inline float ingot_cl_epi(float v, long act, float al, float be, long has_res,
                                 __global const float *res, long idx)
{
	if (has_res)
		v = v + res[idx];
	return act ? ingot_ewf_act(act, v, al, be) : v;
}

/* ---- elementwise ---- */

__kernel void ingot_cl_unary(ingot_unary_params p, INGOT_CL_BUF(x), INGOT_CL_OBUF(y))
{
	long i = get_global_id(0);
	if (i < p.n)
		INGOT_CL_OUT(y_b, y_o)[i] = ingot_cl_unary_op(p.op, INGOT_CL_IN(x_b, x_o)[i], p.alpha,
		                                              p.beta, p.gamma);
}

/* numpy broadcasting: sa/sb are the inputs' element strides per output dim */
__kernel void ingot_cl_binary(ingot_binary_params p, INGOT_CL_BUF(a), INGOT_CL_BUF(b),
                              INGOT_CL_OBUF(y))
{
	long i = get_global_id(0), rem = i, oa = 0, ob = 0;
	if (i >= p.n)
		return;
	for (int d = (int)p.rank - 1; d >= 0; d--) {
		long id = rem % p.dims[d];
		rem /= p.dims[d];
		oa += id * p.sa[d];
		ob += id * p.sb[d];
	}
	INGOT_CL_OUT(y_b, y_o)[i] = ingot_cl_binary_op(p.op, INGOT_CL_IN(a_b, a_o)[oa],
	                                               INGOT_CL_IN(b_b, b_o)[ob]);
}

/* FusedElementwise: the node's program (fused.h) per element, in registers */
__kernel void ingot_cl_fused(ingot_fused_params p, INGOT_CL_BUF(x0), INGOT_CL_BUF(x1),
                             INGOT_CL_BUF(x2), INGOT_CL_BUF(x3), INGOT_CL_OBUF(y))
{
	const float pa[INGOT_FE_MAX_OPS] = { p.pa0, p.pa1, p.pa2, p.pa3, p.pa4, p.pa5, p.pa6, p.pa7 };
	const float pb[INGOT_FE_MAX_OPS] = { p.pb0, p.pb1, p.pb2, p.pb3, p.pb4, p.pb5, p.pb6, p.pb7 };
	const float pg[INGOT_FE_MAX_OPS] = { p.pg0, p.pg1, p.pg2, p.pg3, p.pg4, p.pg5, p.pg6, p.pg7 };
	float reg[INGOT_FE_MAX_IN + INGOT_FE_MAX_OPS];
	long i = get_global_id(0), rem = i, off[INGOT_FE_MAX_IN] = { 0, 0, 0, 0 };
	int k;
	if (i >= p.n)
		return;
	for (int d = (int)p.rank - 1; d >= 0; d--) {
		long id = rem % p.dims[d];
		rem /= p.dims[d];
		off[0] += id * p.s0[d];
		off[1] += id * p.s1[d];
		off[2] += id * p.s2[d];
		off[3] += id * p.s3[d];
	}
	reg[0] = INGOT_CL_IN(x0_b, x0_o)[off[0]];
	if (p.n_in > 1)
		reg[1] = INGOT_CL_IN(x1_b, x1_o)[off[1]];
	if (p.n_in > 2)
		reg[2] = INGOT_CL_IN(x2_b, x2_o)[off[2]];
	if (p.n_in > 3)
		reg[3] = INGOT_CL_IN(x3_b, x3_o)[off[3]];
	for (k = 0; k < p.n_ops; k++) {
		long w = p.ops[k];
		int code = (int)(w & 0xff), a = (int)((w >> 8) & 0xff), b = (int)((w >> 16) & 0xff);
		float v = reg[a];
		if (code < INGOT_FE_BINARY) {
			v = ingot_cl_unary_op(code, v, pa[k], pb[k], pg[k]);
		} else if (code < INGOT_FE_CLIP) {
			v = ingot_cl_binary_op(code - INGOT_FE_BINARY, v, reg[b]);
		} else {   /* Clip: lo, hi, has_lo | has_hi << 1 */
			int flags = (int)pg[k];
			v = (flags & 1) && v < pa[k] ? pa[k] : v;
			v = (flags & 2) && v > pb[k] ? pb[k] : v;
		}
		reg[p.n_in + k] = v;
	}
	INGOT_CL_OUT(y_b, y_o)[i] = reg[p.n_in + p.n_ops - 1];
}

/* ---- GEMM-shaped: tiles of A and B through local memory ---- */

/* One output of the product of the m x k matrix a (element (i, kk) at
 * a[i * a_si + kk * a_sk]) and the k x n matrix b (b[kk * b_sk + j * b_sj]), for
 * the work-group's tile; rows i >= m and columns j >= n load zeros and write nothing. */
static inline float ingot_cl_tile_dot(__global const float *a, long a_si, long a_sk,
                                      __global const float *b, long b_sk, long b_sj, long m,
                                      long n, long k, long i, long j,
                                      __local float (*as)[INGOT_CL_TILE],
                                      __local float (*bs)[INGOT_CL_TILE])
{
	int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
	float acc = 0.0f;
	for (long k0 = 0; k0 < k; k0 += INGOT_CL_TILE) {
		long ka = k0 + tx, kb = k0 + ty;
		as[ty][tx] = i < m && ka < k ? a[i * a_si + ka * a_sk] : 0.0f;
		bs[ty][tx] = kb < k && j < n ? b[kb * b_sk + j * b_sj] : 0.0f;
		barrier(CLK_LOCAL_MEM_FENCE);
		for (int t = 0; t < INGOT_CL_TILE; t++)
			acc += as[ty][t] * bs[t][tx];
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	return acc;
}

/* MatMul: (batch, m, k) x (batch, k, n), batch dims broadcast through a_bstr/b_bstr;
 * dims 0, 1, 2 of the range: column, row, batch */
__kernel void ingot_cl_matmul(ingot_matmul_params p, INGOT_CL_BUF(a), INGOT_CL_BUF(b),
                              INGOT_CL_BUF(r), INGOT_CL_OBUF(y))
{
	__local float as[INGOT_CL_TILE][INGOT_CL_TILE], bs[INGOT_CL_TILE][INGOT_CL_TILE];
	long j = get_global_id(0), i = get_global_id(1), bi = get_global_id(2);
	long rem = bi, aoff = 0, boff = 0;
	for (int d = (int)p.nb - 1; d >= 0; d--) {
		long idx = rem % p.bdims[d];
		rem /= p.bdims[d];
		aoff += idx * p.a_bstr[d];
		boff += idx * p.b_bstr[d];
	}
	float acc = ingot_cl_tile_dot(INGOT_CL_IN(a_b, a_o) + aoff, p.k, 1, INGOT_CL_IN(b_b, b_o) + boff,
	                              p.n, 1, p.m, p.n, p.k, i, j, as, bs);
	if (i < p.m && j < p.n) {
		long o = (bi * p.m + i) * p.n + j;
		INGOT_CL_OUT(y_b, y_o)[o] = ingot_cl_epi(acc, p.act, p.act_alpha, p.act_beta,
		                                         p.has_residual, INGOT_CL_IN(r_b, r_o), o);
	}
}

/* Gemm: alpha * op(A) @ op(B) + beta * C (C at i * c_rs + j * c_cs) */
__kernel void ingot_cl_gemm(ingot_gemm_params p, INGOT_CL_BUF(a), INGOT_CL_BUF(b),
                            INGOT_CL_BUF(c), INGOT_CL_BUF(r), INGOT_CL_OBUF(y))
{
	__local float as[INGOT_CL_TILE][INGOT_CL_TILE], bs[INGOT_CL_TILE][INGOT_CL_TILE];
	long j = get_global_id(0), i = get_global_id(1);
	float acc = ingot_cl_tile_dot(INGOT_CL_IN(a_b, a_o), p.trans_a ? 1 : p.k, p.trans_a ? p.m : 1,
	                              INGOT_CL_IN(b_b, b_o), p.trans_b ? 1 : p.n, p.trans_b ? p.k : 1,
	                              p.m, p.n, p.k, i, j, as, bs);
	if (i < p.m && j < p.n) {
		float v = acc * p.alpha;
		if (p.has_c && p.beta != 0.0f)
			v += p.beta * INGOT_CL_IN(c_b, c_o)[i * p.c_rs + j * p.c_cs];
		INGOT_CL_OUT(y_b, y_o)[i * p.n + j] = ingot_cl_epi(v, p.act, p.act_alpha, p.act_beta,
		                                                   p.has_residual, INGOT_CL_IN(r_b, r_o),
		                                                   i * p.n + j);
	}
}

/* ---- convolution (2-D) ---- */

/* A 1x1 Conv with unit strides, no pads, one group: per image, the (M x C) weights
 * times the (C x H*W) input; dims 0, 1, 2: pixel, output channel, image */
__kernel void ingot_cl_conv1x1(ingot_conv_params p, INGOT_CL_BUF(x), INGOT_CL_BUF(w),
                               INGOT_CL_BUF(bias), INGOT_CL_BUF(r), INGOT_CL_OBUF(y))
{
	__local float as[INGOT_CL_TILE][INGOT_CL_TILE], bs[INGOT_CL_TILE][INGOT_CL_TILE];
	long j = get_global_id(0), i = get_global_id(1), n = get_global_id(2);
	long C = p.x_dims[1], M = p.y_dims[1], P = p.y_dims[2] * p.y_dims[3];
	float acc = ingot_cl_tile_dot(INGOT_CL_IN(w_b, w_o), C, 1, INGOT_CL_IN(x_b, x_o) + n * C * P,
	                              P, 1, M, P, C, i, j, as, bs);
	if (i < M && j < P) {
		long o = (n * M + i) * P + j;
		if (p.has_bias)
			acc += INGOT_CL_IN(bias_b, bias_o)[i];
		INGOT_CL_OUT(y_b, y_o)[o] = ingot_cl_epi(acc, p.act, p.act_alpha, p.act_beta,
		                                         p.has_residual, INGOT_CL_IN(r_b, r_o), o);
	}
}

/* Direct convolution, one output per work-item; groups included, so a depthwise
 * Conv (group = C) reads one input channel per output */
__kernel void ingot_cl_conv(ingot_conv_params p, INGOT_CL_BUF(x), INGOT_CL_BUF(w),
                            INGOT_CL_BUF(bias), INGOT_CL_BUF(r), INGOT_CL_OBUF(y))
{
	long u = get_global_id(0);
	long N = p.y_dims[0], M = p.y_dims[1], OH = p.y_dims[2], OW = p.y_dims[3];
	long C = p.x_dims[1], H = p.x_dims[2], W = p.x_dims[3];
	long Cg = p.w_dims[1], KH = p.w_dims[2], KW = p.w_dims[3], Mg = M / p.group;
	__global const float *xp = INGOT_CL_IN(x_b, x_o), *wp = INGOT_CL_IN(w_b, w_o);
	if (u >= N * M * OH * OW)
		return;
	long ow = u % OW, t = u / OW, oh = t % OH;
	t /= OH;
	long m = t % M, n = t / M, g = m / Mg;
	float acc = p.has_bias ? INGOT_CL_IN(bias_b, bias_o)[m] : 0.0f;
	for (long c = 0; c < Cg; c++) {
		__global const float *xc = xp + ((n * C + g * Cg + c) * H) * W;
		__global const float *wc = wp + (m * Cg + c) * KH * KW;
		for (long kh = 0; kh < KH; kh++) {
			long ih = oh * p.strides[0] + kh * p.dilations[0] - p.pads[0];
			if (ih < 0 || ih >= H)
				continue;
			for (long kw = 0; kw < KW; kw++) {
				long iw = ow * p.strides[1] + kw * p.dilations[1] - p.pads[1];
				if (iw >= 0 && iw < W)
					acc += xc[ih * W + iw] * wc[kh * KW + kw];
			}
		}
	}
	INGOT_CL_OUT(y_b, y_o)[u] = ingot_cl_epi(acc, p.act, p.act_alpha, p.act_beta, p.has_residual,
	                                         INGOT_CL_IN(r_b, r_o), u);
}

/* ---- pooling and softmax ---- */

/* MaxPool / AveragePool (2-D, no indices): window at o * stride - pad, dilated */
__kernel void ingot_cl_pool(ingot_pool_params p, INGOT_CL_BUF(x), INGOT_CL_OBUF(y))
{
	long u = get_global_id(0);
	long OH = p.y_dims[2], OW = p.y_dims[3], H = p.x_dims[2], W = p.x_dims[3];
	if (u >= p.y_dims[0] * p.y_dims[1] * OH * OW)
		return;
	long ow = u % OW, oh = u / OW % OH, plane = u / (OW * OH);
	__global const float *xp = INGOT_CL_IN(x_b, x_o) + plane * H * W;
	float best = 0.0f, sum = 0.0f;
	long cnt = 0, padded = 0;
	bool found = false;
	for (long kh = 0; kh < p.kernel[0]; kh++) {
		long ih = oh * p.strides[0] - p.pads[0] + kh * p.dilations[0];
		for (long kw = 0; kw < p.kernel[1]; kw++) {
			long iw = ow * p.strides[1] - p.pads[1] + kw * p.dilations[1];
			padded += ih >= -p.pads[0] && ih < H + p.pads[2] && iw >= -p.pads[1] && iw < W + p.pads[3];
			if (ih < 0 || ih >= H || iw < 0 || iw >= W)
				continue;
			float v = xp[ih * W + iw];
			if (p.kind == INGOT_POOL_MAX) {
				if (!found || v > best)
					best = v;
				found = true;
			} else {
				sum += v;
				cnt++;
			}
		}
	}
	if (p.kind != INGOT_POOL_MAX) {
		if (p.count_include_pad)
			cnt = padded;
		best = cnt ? sum / (float)cnt : 0.0f;
	}
	INGOT_CL_OUT(y_b, y_o)[u] = best;
}

/* GlobalMaxPool / GlobalAveragePool: one plane per work-item */
__kernel void ingot_cl_global_pool(ingot_global_pool_params p, INGOT_CL_BUF(x), INGOT_CL_OBUF(y))
{
	long u = get_global_id(0);
	if (u >= p.planes)
		return;
	__global const float *xp = INGOT_CL_IN(x_b, x_o) + u * p.size;
	float acc = p.kind == INGOT_POOL_MAX && p.size ? xp[0] : 0.0f;
	for (long i = 0; i < p.size; i++) {
		if (p.kind == INGOT_POOL_MAX)
			acc = xp[i] > acc ? xp[i] : acc;
		else
			acc += xp[i];
	}
	if (p.kind != INGOT_POOL_MAX)
		acc = p.size ? acc / (float)p.size : 0.0f;
	INGOT_CL_OUT(y_b, y_o)[u] = acc;
}

/* Softmax / LogSoftmax over n of the [outer, n, inner] view: one row per work-item */
__kernel void ingot_cl_softmax(ingot_softmax_params p, INGOT_CL_BUF(x), INGOT_CL_OBUF(y))
{
	long r = get_global_id(0), n = p.n, s = p.inner;
	if (r >= p.outer * s)
		return;
	__global const float *xr = INGOT_CL_IN(x_b, x_o) + r / s * n * s + r % s;
	__global float *yr = INGOT_CL_OUT(y_b, y_o) + r / s * n * s + r % s;
	float mx = -INFINITY, sum = 0.0f;
	for (long j = 0; j < n; j++) {
		float v = xr[j * s];
		if (v > mx || v != v)
			mx = v;
	}
	for (long j = 0; j < n; j++)
		sum += exp(xr[j * s] - mx);
	if (p.log) {
		float ls = log(sum);
		for (long j = 0; j < n; j++)
			yr[j * s] = xr[j * s] - mx - ls;
	} else {
		for (long j = 0; j < n; j++)
			yr[j * s] = exp(xr[j * s] - mx) / sum;
	}
}

/* ---- LayerNormalization and the reductions ---- */

/* LayerNormalization over the inner elements of each of the outer rows, and the
 * optional f32 Mean / InvStdDev outputs: one row per work-item, mean and variance in
 * two passes */
__kernel void ingot_cl_layernorm(ingot_layernorm_params p, INGOT_CL_BUF(x), INGOT_CL_BUF(s),
                                 INGOT_CL_BUF(b), INGOT_CL_OBUF(mo), INGOT_CL_OBUF(io),
                                 INGOT_CL_OBUF(y))
{
	long r = get_global_id(0), n = p.inner;
	if (r >= p.outer)
		return;
	__global const float *xr = INGOT_CL_IN(x_b, x_o) + r * n, *sc = INGOT_CL_IN(s_b, s_o);
	__global const float *bi = INGOT_CL_IN(b_b, b_o);
	__global float *yr = INGOT_CL_OUT(y_b, y_o) + r * n;
	float mean = 0.0f, var = 0.0f, inv;
	for (long j = 0; j < n; j++)
		mean += xr[j];
	mean = n ? mean / (float)n : 0.0f;
	for (long j = 0; j < n; j++)
		var += (xr[j] - mean) * (xr[j] - mean);
	var = n ? var / (float)n : 0.0f;
	inv = 1.0f / sqrt(var + p.epsilon);
	if (p.has_mean)
		INGOT_CL_OUT(mo_b, mo_o)[r] = mean;
	if (p.has_inv)
		INGOT_CL_OUT(io_b, io_o)[r] = inv;
	for (long j = 0; j < n; j++) {
		long rem = j, si = 0, bo = 0;
		for (int d = (int)p.nrank - 1; d >= 0; d--) {
			long id = rem % p.ndims[d];
			rem /= p.ndims[d];
			si += id * p.s_str[d];
			bo += id * p.b_str[d];
		}
		float v = (xr[j] - mean) * inv * sc[si];
		yr[j] = p.has_bias ? v + bi[bo] : v;
	}
}

/* Reduce*: one output element per work-item, walking its reduced sub-box in the
 * reference kernel's order (row-major over the reduced dims of the collapsed shape) */
__kernel void ingot_cl_reduce(ingot_reduce_params p, INGOT_CL_BUF(x), INGOT_CL_OBUF(y))
{
	long o = get_global_id(0), kd[8], ks[8], rd[8], rs[8], stride = 1, n_out = 1, n_red = 1;
	long base = 0, rem;
	int nk = 0, nr = 0, d;
	for (d = (int)p.rank - 1; d >= 0; d--) {
		if ((p.rmask >> d) & 1) {
			rd[nr] = p.dims[d];
			rs[nr++] = stride;
			n_red *= p.dims[d];
		} else {
			kd[nk] = p.dims[d];
			ks[nk++] = stride;
			n_out *= p.dims[d];
		}
		stride *= p.dims[d];
	}
	if (o >= n_out)
		return;
	for (d = 0, rem = o; d < nk; d++) {   /* kd[0] is the innermost kept dim */
		base += rem % kd[d] * ks[d];
		rem /= kd[d];
	}
	__global const float *xp = INGOT_CL_IN(x_b, x_o) + base;
	float acc = 0.0f, mx = -INFINITY;
	long mode = p.mode;
	if (mode == INGOT_REDUCE_MAX)
		acc = -INFINITY;
	else if (mode == INGOT_REDUCE_MIN)
		acc = INFINITY;
	else if (mode == INGOT_REDUCE_PROD)
		acc = 1.0f;
	for (int pass = mode == INGOT_REDUCE_LOG_SUM_EXP ? 0 : 1; pass < 2; pass++) {
		if (pass == 1 && mode == INGOT_REDUCE_LOG_SUM_EXP &&
		    (mx != mx || mx == INFINITY || mx == -INFINITY))
			break;
		for (long i = 0; i < n_red; i++) {
			long off = 0;
			for (d = 0, rem = i; d < nr; d++) {   /* rd[0] is the innermost reduced dim */
				off += rem % rd[d] * rs[d];
				rem /= rd[d];
			}
			float v = xp[off];
			if (pass == 0) {
				if (v > mx || v != v)
					mx = v;
				continue;
			}
			switch (mode) {
			case INGOT_REDUCE_MAX: if (v > acc || v != v) acc = v; break;
			case INGOT_REDUCE_MIN: if (v < acc || v != v) acc = v; break;
			case INGOT_REDUCE_PROD: acc *= v; break;
			case INGOT_REDUCE_SUM_SQUARE: case INGOT_REDUCE_L2: acc += v * v; break;
			case INGOT_REDUCE_L1: acc += v < 0.0f ? -v : v; break;
			case INGOT_REDUCE_LOG_SUM_EXP: acc += exp(v - mx); break;
			default: acc += v; break;
			}
		}
	}
	if (mode == INGOT_REDUCE_L2)
		acc = sqrt(acc);
	else if (mode == INGOT_REDUCE_MEAN)
		acc = acc / (float)n_red;
	else if (mode == INGOT_REDUCE_LOG_SUM)
		acc = log(acc);
	else if (mode == INGOT_REDUCE_LOG_SUM_EXP)
		acc = mx != mx || mx == INFINITY || mx == -INFINITY ? mx : mx + log(acc);
	INGOT_CL_OUT(y_b, y_o)[o] = acc;
}

/* ---- data movement (4-byte elements, copied as bits: f32, int32, uint32) ---- */

#define INGOT_CL_IN_U(b, o) ((__global const uint *)((b) + (o)))
#define INGOT_CL_OUT_U(b, o) ((__global uint *)((b) + (o)))

/* Transpose, Slice: out[i0..] = in[offset + sum_k i_k * strides[k]] */
__kernel void ingot_cl_strided(ingot_strided_params p, INGOT_CL_BUF(x), INGOT_CL_OBUF(y))
{
	long i = get_global_id(0), n = 1, rem = i, off = p.offset;
	for (int d = 0; d < (int)p.rank; d++)
		n *= p.dims[d];
	if (i >= n)
		return;
	for (int d = (int)p.rank - 1; d >= 0; d--) {
		off += rem % p.dims[d] * p.strides[d];
		rem /= p.dims[d];
	}
	INGOT_CL_OUT_U(y_b, y_o)[i] = INGOT_CL_IN_U(x_b, x_o)[off];
}

/* Concat of up to 7 inputs: `outer` rows, input k contributing row_bytes[k] bytes per
 * row. A negative row_bytes[k] is a gap of that many bytes, written by another
 * launch: a Concat of more inputs is launched in parts (codegen/opencl/emit.c), each
 * [gap][its inputs][gap], over its own columns only. */
__kernel void ingot_cl_concat(ingot_concat_params p, INGOT_CL_BUF(x0), INGOT_CL_BUF(x1),
                              INGOT_CL_BUF(x2), INGOT_CL_BUF(x3), INGOT_CL_BUF(x4),
                              INGOT_CL_BUF(x5), INGOT_CL_BUF(x6), INGOT_CL_OBUF(y))
{
	long e = get_global_id(0), row = 0, cols = 0, gap = 0, c, k;
	for (k = 0; k < p.n; k++) {
		long w = p.row_bytes[k] / 4;
		row += w < 0 ? -w : w;
		cols += w < 0 ? 0 : w;
	}
	gap = p.n && p.row_bytes[0] < 0 ? -p.row_bytes[0] / 4 : 0;
	if (e >= p.outer * cols)
		return;
	c = e % cols;
	for (k = 0; k < p.n && (p.row_bytes[k] < 0 || c >= p.row_bytes[k] / 4); k++)
		c -= p.row_bytes[k] < 0 ? 0 : p.row_bytes[k] / 4;
	long src = e / cols * (p.row_bytes[k] / 4) + c;
	__global const uchar *b = k == 0 ? x0_b : k == 1 ? x1_b : k == 2 ? x2_b : k == 3 ? x3_b :
	                          k == 4 ? x4_b : k == 5 ? x5_b : x6_b;
	long bo = k == 0 ? x0_o : k == 1 ? x1_o : k == 2 ? x2_o : k == 3 ? x3_o :
	          k == 4 ? x4_o : k == 5 ? x5_o : x6_o;
	INGOT_CL_OUT_U(y_b, y_o)[e / cols * row + gap + e % cols] = INGOT_CL_IN_U(b, bo)[src];
}

/* Gather along the middle axis of [outer, axis_dim, inner] with int32 or int64
 * indices; an index out of range writes 0 and sets the status word (the run then
 * returns INGOT_ERANGE) */
__kernel void ingot_cl_gather(ingot_gather_params p, INGOT_CL_BUF(x), INGOT_CL_BUF(ix),
                              __global int *status, long status_o, INGOT_CL_OBUF(y))
{
	long e = get_global_id(0), in = p.inner, j, o, idx;
	if (e >= p.outer * p.n_idx * in)
		return;
	o = e / (p.n_idx * in);
	j = e / in % p.n_idx;
	idx = p.idx_size == 8 ? ((__global const long *)(ix_b + ix_o))[j]
	                      : (long)((__global const int *)(ix_b + ix_o))[j];
	if (idx < 0)
		idx += p.axis_dim;
	if (idx < 0 || idx >= p.axis_dim) {
		status[status_o / 4] = 1;
		INGOT_CL_OUT_U(y_b, y_o)[e] = 0;
		return;
	}
	INGOT_CL_OUT_U(y_b, y_o)[e] = INGOT_CL_IN_U(x_b, x_o)[(o * p.axis_dim + idx) * in + e % in];
}

/* Pad: output coordinate o reads input coordinate o - begin, mapped by the mode
 * (shape.c's pad_coord); constant mode writes the value's bits outside */
__kernel void ingot_cl_pad(ingot_pad_params p, INGOT_CL_BUF(x), INGOT_CL_OBUF(y))
{
	long i = get_global_id(0), n = 1, rem = i, off = 0, stride = 1;
	bool outside = false;
	for (int d = 0; d < (int)p.rank; d++)
		n *= p.out_dims[d];
	if (i >= n)
		return;
	for (int d = (int)p.rank - 1; d >= 0; d--) {
		long c = rem % p.out_dims[d] - p.begin[d], m = p.in_dims[d];
		rem /= p.out_dims[d];
		if (c < 0 || c >= m) {
			if (m <= 0 || p.mode == INGOT_PAD_CONSTANT) {
				outside = true;
			} else if (p.mode == INGOT_PAD_REFLECT) {
				long period = 2 * (m - 1);
				if (period == 0) {
					c = 0;
				} else {
					c %= period;
					c = c < 0 ? c + period : c;
					c = c < m ? c : period - c;
				}
			} else if (p.mode == INGOT_PAD_EDGE) {
				c = c < 0 ? 0 : m - 1;
			} else {
				c %= m;
				c = c < 0 ? c + m : c;
			}
		}
		off += c * stride;
		stride *= m;
	}
	INGOT_CL_OUT_U(y_b, y_o)[i] = outside ? (uint)p.value : INGOT_CL_IN_U(x_b, x_o)[off];
}

/* ---- Resize (every mode: nearest, n-linear, cubic, antialias): the taps of each
 * resized axis come from a table the compiler computed with the reference kernel's
 * ingot_resize_taps (codegen/opencl/lower.c), so the device needs no double
 * precision and picks the very pixels the C kernel picks. Table t (32-bit words):
 * word 0 the extrapolation value (float bits), then for each axis d with taps[d] > 0
 * in axis order, y_dims[d] * taps[d] pairs (input index, weight as float bits); an
 * index of -1 marks a tf_crop_and_resize extrapolation. Weights multiply from 1 in
 * axis order and the sum runs in float, the first axis's taps slowest. ---- */
__kernel void ingot_cl_resize(ingot_resize_params p, INGOT_CL_BUF(x), INGOT_CL_BUF(t), INGOT_CL_OBUF(y))
{
	__global const uint *tab = INGOT_CL_IN_U(t_b, t_o);
	__global const uint *ax[8];
	long i = get_global_id(0), total = 1, rem, xs[8], k[8], st[8], off = 0, at = 1;
	int rank = (int)p.rank, d, na = 0;
	for (d = 0; d < rank; d++)
		total *= p.y_dims[d];
	if (i >= total)
		return;
	for (d = rank - 1, rem = 1; d >= 0; d--) {
		xs[d] = rem;
		rem *= p.x_dims[d];
	}
	for (d = 0, rem = i; d < rank; d++) {   /* each axis's taps for this output index */
		long o, inner = 1;
		for (int e = d + 1; e < rank; e++)
			inner *= p.y_dims[e];
		o = rem / inner;
		rem %= inner;
		if (!p.taps[d]) {
			off += o * xs[d];
			continue;
		}
		ax[na] = tab + at + 2 * o * p.taps[d];
		if ((int)ax[na][0] < 0) {
			INGOT_CL_OUT(y_b, y_o)[i] = as_float(tab[0]);
			return;
		}
		k[na] = p.taps[d];
		st[na] = xs[d];
		at += 2 * p.y_dims[d] * p.taps[d];
		na++;
	}
	if (p.mode == INGOT_INTERP_NEAREST) {   /* one tap per axis, weight 1 */
		for (d = 0; d < na; d++)
			off += (long)ax[d][0] * st[d];
		INGOT_CL_OUT_U(y_b, y_o)[i] = INGOT_CL_IN_U(x_b, x_o)[off];
		return;
	}
	long n = 1, c;
	for (d = 0; d < na; d++)
		n *= k[d];
	float acc = 0.0f;
	for (c = 0; c < n; c++) {   /* the last axis's tap fastest */
		float wt = 1.0f;
		long o2 = off, q = c, j[8];
		for (d = na - 1; d >= 0; d--) {
			j[d] = q % k[d];
			q /= k[d];
		}
		for (d = 0; d < na; d++) {
			o2 += (long)ax[d][2 * j[d]] * st[d];
			wt *= as_float(ax[d][2 * j[d] + 1]);
		}
		acc += wt * INGOT_CL_IN(x_b, x_o)[o2];
	}
	INGOT_CL_OUT(y_b, y_o)[i] = acc;
}
