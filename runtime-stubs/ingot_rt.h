/* ingot_rt.h — the shared runtime types of every generated model: status codes,
 * element types, I/O descriptors, the uniform kernel signature and the macros that
 * declare kernel parameter structs. Freestanding: only <stdbool.h>, <stddef.h>, <stdint.h>.
 *
 * Usage (from a generated model's header):
 *     #include "ingot_rt.h"
 *     extern const ingot_io m_inputs[];      // name, dtype, rank, dims, bytes
 *     int rc = m_run(x, y, workspace);       // 0 or an INGOT_E* code
 */
#ifndef INGOT_RT_H
#define INGOT_RT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Return codes of every generated entry point and every kernel. */
#define INGOT_OK       0
#define INGOT_EINVAL   1  /* bad argument (NULL buffer, misaligned workspace) */
#define INGOT_ERANGE   2  /* an index input was out of range, or a string result did not fit its
                              * slot; nothing was read or written out of bounds */
#define INGOT_EDEVICE  3  /* an accelerator call failed (OpenCL) */

#define INGOT_MAX_RANK 8

/* Element types use the ONNX TensorProto.DataType numbers. ORDER DTYPE */
enum {
	INGOT_DT_UNDEF = 0, INGOT_DT_F32 = 1, INGOT_DT_U8 = 2, INGOT_DT_I8 = 3,
	INGOT_DT_U16 = 4, INGOT_DT_I16 = 5, INGOT_DT_I32 = 6, INGOT_DT_I64 = 7,
	INGOT_DT_STRING = 8, INGOT_DT_BOOL = 9, INGOT_DT_F16 = 10, INGOT_DT_F64 = 11,
	INGOT_DT_U32 = 12, INGOT_DT_U64 = 13, INGOT_DT_C64 = 14, INGOT_DT_C128 = 15,
	INGOT_DT_BF16 = 16, INGOT_DT_F8E4M3FN = 17, INGOT_DT_F8E4M3FNUZ = 18,
	INGOT_DT_F8E5M2 = 19, INGOT_DT_F8E5M2FNUZ = 20, INGOT_DT_U4 = 21, INGOT_DT_I4 = 22,
	INGOT_DT_F4E2M1 = 23, INGOT_DT_F8E8M0 = 24, INGOT_DT_U2 = 25, INGOT_DT_I2 = 26
};
/* The 8-bit floats (FLOAT8E8M0 too) are carried as their uint8_t bit pattern. The 4-
 * and 2-bit types take one byte per element in memory and at the API (ONNX files pack
 * two or four per byte, the first in the lowest bits; tensor I/O unpacks them): UINT4 as
 * uint8_t 0..15, INT4 as int8_t -8..7, FLOAT4E2M1 as uint8_t holding the 4-bit code
 * (sign in bit 3), UINT2 as uint8_t 0..3, INT2 as int8_t -2..1. */

/* String tensors (ONNX STRING): every element is a fixed slot of INGOT_STRING_CAP
 * bytes holding a NUL-terminated byte string (UTF-8 in ONNX files) of at most
 * INGOT_STRING_CAP - 1 bytes, zero-padded. Callers write inputs into such slots and
 * read outputs from them; a string op never allocates and never writes past a slot
 * (a result that would not fit makes it return INGOT_ERANGE). The slot size is
 * fixed for every model, so ingot plans memory with it like any element size. */
#define INGOT_STRING_CAP 64
typedef struct ingot_str {
	char s[INGOT_STRING_CAP];
} ingot_str;

/* One graph input or output, as the generated m_inputs[] / m_outputs[] describe it. */
typedef struct ingot_io {
	const char *name;                 /* the ONNX value name */
	int dtype;                        /* INGOT_DT_* */
	int rank;
	int64_t dims[INGOT_MAX_RANK];     /* static dims; unused entries are 0 */
	size_t bytes;                     /* whole tensor size in bytes */
} ingot_io;

/* Every kernel has this signature. `params` points at the kernel's own
 * `static const` parameter struct; in[] and out[] follow the ONNX node's slots
 * (an omitted optional input is NULL); the node's share of the work is
 * [task * n / n_tasks, (task + 1) * n / n_tasks). */
typedef int (*ingot_kernel_fn)(const void *params, const void *const *in,
                               void *const *out, void *scratch, int task, int n_tasks);

/* Kernel parameter structs are declared from one field list, so the compiler can
 * both fill them (constant folding) and print them as C initializers:
 *     #define INGOT_CLIP_FIELDS(F) F(I64, n) F(F32, lo) F(DIMS, dims)
 *     INGOT_PARAMS(ingot_clip_params, INGOT_CLIP_FIELDS)
 * Field kinds: I64 int64_t, F32 float, F64 double, DIMS int64_t[INGOT_MAX_RANK],
 * PADS int64_t[2 * INGOT_MAX_RANK]. */
#define INGOT_FIELD_I64(name)  int64_t name;
#define INGOT_FIELD_F32(name)  float name;
#define INGOT_FIELD_F64(name)  double name;
#define INGOT_FIELD_DIMS(name) int64_t name[INGOT_MAX_RANK];
#define INGOT_FIELD_PADS(name) int64_t name[2 * INGOT_MAX_RANK];
#define INGOT_FIELD(kind, name) INGOT_FIELD_##kind(name)
#define INGOT_PARAMS(type, FIELDS) typedef struct type { FIELDS(INGOT_FIELD) } type;

/* Linkage of kernels: external when linked into the ingot compiler (and into a
 * prebuilt kernel library), `static` when a generated model #includes them, so
 * two models link into one program without clashes. */
#ifndef INGOT_KERNEL
#define INGOT_KERNEL
#endif
#if defined(__GNUC__)
#define INGOT_UNUSED __attribute__((unused))
#define INGOT_ALIGNED64 __attribute__((aligned(64)))
#else
#define INGOT_UNUSED
#define INGOT_ALIGNED64
#endif

/* The length of the string in slot s: up to its NUL, at most INGOT_STRING_CAP - 1
 * (an unterminated slot counts as its first INGOT_STRING_CAP - 1 bytes). */
static inline INGOT_UNUSED size_t ingot_str_len(const char *s)
{
	size_t n = 0;
	while (n < INGOT_STRING_CAP - 1 && s[n] != '\0')
		n++;
	return n;
}

/* ---- threads: NAME_run_par ----
 * A node whose kernel splits its work over disjoint outputs runs as one job of
 * n_tasks tasks; the caller's pool runs them concurrently and returns when every
 * task has finished (the barrier between nodes). ingot_par.c is a pthreads pool
 * (NAME_par_create); on a system without pthreads, fill an ingot_par yourself with a
 * `run` that hands the tasks to your own threads. */
typedef struct ingot_par_job {
	ingot_kernel_fn fn;             /* the node's kernel */
	const void *params;
	const void *const *in;
	void *const *out;
	unsigned char *scratch;         /* task 0's kernel scratch */
	unsigned char *scratch_more;    /* task t > 0: scratch_more + (t - 1) * scratch_stride */
	size_t scratch_stride;
	int n_tasks;                    /* 2..n_threads */
} ingot_par_job;

typedef struct ingot_par {
	int n_threads;    /* tasks per split node, >= 1; the workspace is NAME_WORKSPACE_SIZE_PAR(n_threads) */
	/* Runs tasks 0 .. job->n_tasks-1 (ingot_par_task), concurrently or not, and
	 * returns after all of them: 0, or the first non-zero code in task order. */
	int (*run)(const struct ingot_par *par, const ingot_par_job *job);
	void *impl;       /* the pool's own state */
} ingot_par;

/* How many tasks a node of `work` MACs or elements is split into, at most: nodes
 * under 2 * INGOT_PAR_GRAIN run whole, since waking a thread and the barrier cost
 * microseconds (a few even when the worker polls, tens when it sleeps or shares its
 * core), while 2 * 131072 MACs take about 5 us on one core of a desktop CPU. Define
 * INGOT_PAR_GRAIN when compiling NAME.c to tune it (1 splits every splittable node:
 * the tests do that). */
#ifndef INGOT_PAR_GRAIN
#define INGOT_PAR_GRAIN 131072
#endif
#define INGOT_PAR_TASKS(work) ((work) / INGOT_PAR_GRAIN < 1 ? 1 : \
                               (work) / INGOT_PAR_GRAIN > 256 ? 256 : (int)((work) / INGOT_PAR_GRAIN))

/* Runs one task of a job. */
static inline INGOT_UNUSED int ingot_par_task(const ingot_par_job *job, int task)
{
	unsigned char *s = task == 0 ? job->scratch :
	                   job->scratch_more + (size_t)(task - 1) * job->scratch_stride;
	return job->fn(job->params, job->in, job->out, s, task, job->n_tasks);
}

/* One node of NAME_run_par: on up to max_tasks tasks of par, or on the caller's
 * thread when par is NULL or single-threaded. */
static inline INGOT_UNUSED int ingot_par_call(const ingot_par *par, int max_tasks, ingot_kernel_fn fn,
                                                 const void *params, const void *const *in,
                                                 void *const *out, unsigned char *scratch,
                                                 unsigned char *scratch_more, size_t stride)
{
	ingot_par_job job;
	int n = par && par->run ? par->n_threads : 1;
	if (n > max_tasks)
		n = max_tasks;
	if (n <= 1)
		return fn(params, in, out, scratch, 0, 1);
	job.fn = fn;
	job.params = params;
	job.in = in;
	job.out = out;
	job.scratch = scratch;
	job.scratch_more = scratch_more;
	job.scratch_stride = stride;
	job.n_tasks = n;
	return par->run(par, &job);
}

/* ---- --profile builds: NAME_run_prof_v times each node with the caller's clock ---- */
typedef struct ingot_prof {
	double (*clock)(void *ctx);     /* the caller's monotonic clock, in seconds */
	void *ctx;
	double *seconds;                /* [NAME_PROF_NODES]: each node's time is added here */
} ingot_prof;

/* One timed node, as NAME_prof_nodes[] lists them in execution order. */
typedef struct ingot_prof_node {
	const char *names;              /* the ONNX node names ('+' between the members of a fused node) */
	const char *op;                 /* the IR op */
	const char *shape;              /* the first output's type, e.g. "f32[1,64,56,56]" */
	int64_t macs;                   /* multiply-accumulates by formula (0 for ops without) */
} ingot_prof_node;

/* float16 / bfloat16 are carried as uint16_t; these convert exactly (round to
 * nearest even on narrowing, NaN stays NaN). */
static inline INGOT_UNUSED float ingot_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits;
	union { uint32_t u; float f; } v;
	if (exp == 0) {
		if (man == 0) {
			bits = sign;
		} else {                       /* subnormal: normalize */
			exp = 113;
			while (!(man & 0x400u)) { man <<= 1; exp--; }
			man &= 0x3ffu;
			bits = sign | (exp << 23) | (man << 13);
		}
	} else if (exp == 31) {
		bits = sign | 0x7f800000u | (man << 13);
	} else {
		bits = sign | ((exp + 112u) << 23) | (man << 13);
	}
	v.u = bits;
	return v.f;
}

static inline INGOT_UNUSED uint16_t ingot_f32_to_f16(float f)
{
	union { uint32_t u; float f; } v;
	uint32_t x, sign, man;
	int32_t exp;
	v.f = f;
	x = v.u;
	sign = (x >> 16) & 0x8000u;
	exp = (int32_t)((x >> 23) & 0xffu);
	man = x & 0x7fffffu;
	if (exp == 255)                     /* inf or NaN */
		return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0u));
	exp -= 112;
	if (exp >= 31)
		return (uint16_t)(sign | 0x7c00u);
	if (exp <= 0) {                     /* subnormal or zero in half */
		uint32_t shift, half, rem, r;
		if (exp < -10)
			return (uint16_t)sign;
		man |= 0x800000u;
		shift = (uint32_t)(14 - exp);
		r = man >> shift;
		rem = man & ((1u << shift) - 1u);
		half = 1u << (shift - 1u);
		if (rem > half || (rem == half && (r & 1u)))
			r++;
		return (uint16_t)(sign | r);
	}
	{
		uint32_t r = ((uint32_t)exp << 10) | (man >> 13);
		uint32_t rem = man & 0x1fffu;
		if (rem > 0x1000u || (rem == 0x1000u && (r & 1u)))
			r++;                        /* may carry into the exponent: correct */
		return (uint16_t)(sign | r);
	}
}

static inline INGOT_UNUSED float ingot_bf16_to_f32(uint16_t h)
{
	union { uint32_t u; float f; } v;
	v.u = (uint32_t)h << 16;
	return v.f;
}

static inline INGOT_UNUSED uint16_t ingot_f32_to_bf16(float f)
{
	union { uint32_t u; float f; } v;
	v.f = f;
	if ((v.u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((v.u >> 16) | 0x40u);   /* quiet NaN */
	v.u += 0x7fffu + ((v.u >> 16) & 1u);
	return (uint16_t)(v.u >> 16);
}

/* ---- 8-bit and 4-bit floats (ONNX FLOAT8E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ, FLOAT4E2M1).
 * E4M3FN: bias 7, no infinity, NaN = S.1111.111, largest 448. E4M3FNUZ: bias 8, one NaN
 * (0x80), no -0, largest 240. E5M2: bias 15, IEEE-like inf and NaN, largest 57344.
 * E5M2FNUZ: bias 16, one NaN (0x80), no -0, largest 57344. E2M1: bias 1, values
 * 0, 0.5, 1, 1.5, 2, 3, 4, 6, no inf or NaN: +-inf saturates to +-6 and NaN becomes
 * the zero of the opposite sign (NaN -0, -NaN +0), as ml_dtypes' float4_e2m1fn, the
 * ONNX reference's type, converts (its quiet_NaN is -0, negated for a negative NaN).
 * Widening is exact; narrowing rounds to
 * nearest even, as the ONNX reference and ONNX Runtime do, including their two
 * deviations from plain rounding when saturate is 0: E4M3FN maps [480, 496) to 448,
 * E5M2 maps [61440, 65536) to NaN. */
static inline INGOT_UNUSED float ingot_bits_f32(uint32_t u)
{
	union { uint32_t u; float f; } v;
	v.u = u;
	return v.f;
}

static inline INGOT_UNUSED uint32_t ingot_f32_bits(float f)
{
	union { uint32_t u; float f; } v;
	v.f = f;
	return v.u;
}

/* exponent bits, mantissa bits, bias and largest finite code of a small float */
static inline INGOT_UNUSED void ingot_small_float(int dt, int *eb, int *mb, int *bias, int *maxc)
{
	switch (dt) {
	case INGOT_DT_F8E4M3FN: *eb = 4; *mb = 3; *bias = 7; *maxc = 0x7e; break;
	case INGOT_DT_F8E4M3FNUZ: *eb = 4; *mb = 3; *bias = 8; *maxc = 0x7f; break;
	case INGOT_DT_F8E5M2: *eb = 5; *mb = 2; *bias = 15; *maxc = 0x7b; break;
	case INGOT_DT_F8E5M2FNUZ: *eb = 5; *mb = 2; *bias = 16; *maxc = 0x7f; break;
	default: *eb = 2; *mb = 1; *bias = 1; *maxc = 0x7; break;   /* F4E2M1 */
	}
}

/* FLOAT8E8M0 (opset 24, the scale of the MX formats): no sign, no mantissa, the value
 * 2^(code - 127); 0xff is NaN. From float (ONNX's to_float8e8m0, the reference of Cast
 * 24): the input rounds to f32 first; its sign is ignored; NaN and inf give 0xff; the
 * f32 exponent field is the code, rounded by round_mode: INGOT_E8M0_UP (the default)
 * adds one when any mantissa bit is set, INGOT_E8M0_DOWN keeps it, INGOT_E8M0_NEAREST
 * adds one when mantissa bit 22 is set and so is bit 21, a lower bit, or the exponent
 * field is nonzero (ties round up). With saturate, 0xfe never rounds up to 0xff.
 * f32 zero and subnormals have exponent field 0: zero gives code 0 (2^-127) and
 * subnormals round from there. */
enum { INGOT_E8M0_UP = 0, INGOT_E8M0_DOWN = 1, INGOT_E8M0_NEAREST = 2 };

static inline INGOT_UNUSED uint8_t ingot_f32_to_e8m0(float f, int saturate, int round_mode)
{
	uint32_t b = ingot_f32_bits(f), e = (b >> 23) & 0xffu, up;
	if (e == 0xffu)
		return 0xff;
	if (round_mode == INGOT_E8M0_DOWN)
		up = 0;
	else if (round_mode == INGOT_E8M0_NEAREST)
		up = (b & 0x400000u) && ((b & 0x3fffffu) || e > 0);
	else
		up = (b & 0x7fffffu) != 0;
	if (saturate && e == 0xfeu)
		up = 0;
	return (uint8_t)(e + up);
}

static inline INGOT_UNUSED float ingot_e8m0_to_f32(uint8_t v)
{
	if (v == 0xff)
		return ingot_bits_f32(0x7fc00000u);
	return v ? ingot_bits_f32((uint32_t)v << 23) : ingot_bits_f32(0x00400000u);   /* 2^-127 */
}

static inline INGOT_UNUSED float ingot_small_to_f32(int dt, uint8_t v)
{
	int eb, mb, bias, maxc, sb, e, m;
	uint32_t r;
	if (dt == INGOT_DT_F8E8M0)
		return ingot_e8m0_to_f32(v);
	ingot_small_float(dt, &eb, &mb, &bias, &maxc);
	sb = eb + mb;                                 /* the sign bit's position */
	v &= (uint8_t)((2u << sb) - 1u);
	if ((dt == INGOT_DT_F8E4M3FNUZ || dt == INGOT_DT_F8E5M2FNUZ) && v == 0x80)
		return ingot_bits_f32(0x7fc00000u);
	if (dt == INGOT_DT_F8E4M3FN && (v & 0x7f) == 0x7f)
		return ingot_bits_f32(0x7fc00000u);
	e = (v >> mb) & ((1 << eb) - 1);
	m = v & ((1 << mb) - 1);
	r = (uint32_t)(v >> sb) << 31;
	if (dt == INGOT_DT_F8E5M2 && e == 31)
		return ingot_bits_f32(r | (m ? 0x7fc00000u : 0x7f800000u));
	if (e == 0) {                                 /* subnormal: m * 2^(1 - bias - mb) */
		float x = (float)m * ingot_bits_f32((uint32_t)(127 + 1 - bias - mb) << 23);
		return r ? -x : x;
	}
	return ingot_bits_f32(r | (uint32_t)(e - bias + 127) << 23 | (uint32_t)m << (23 - mb));
}

static inline INGOT_UNUSED uint8_t ingot_f32_to_small(int dt, float f, int saturate)
{
	int eb, mb, bias, maxc, E, emin, shift;
	int uz = dt == INGOT_DT_F8E4M3FNUZ || dt == INGOT_DT_F8E5M2FNUZ;
	uint32_t b = ingot_f32_bits(f), a = b & 0x7fffffffu, mant, q, rem, half, code;
	uint8_t s, nan, ovf;
	if (dt == INGOT_DT_F8E8M0)
		return ingot_f32_to_e8m0(f, saturate, INGOT_E8M0_UP);
	ingot_small_float(dt, &eb, &mb, &bias, &maxc);
	s = (uint8_t)((b >> 31) << (eb + mb));
	nan = dt == INGOT_DT_F4E2M1 ? (uint8_t)(s ^ 0x8) : uz ? 0x80 : (uint8_t)(s | 0x7f);
	ovf = dt == INGOT_DT_F4E2M1 || saturate ? (uint8_t)(s | maxc)
	      : dt == INGOT_DT_F8E5M2 ? (uint8_t)(s | 0x7c) : nan;
	if (a > 0x7f800000u)
		return nan;
	if (a == 0x7f800000u)
		return ovf;
	if (!saturate && dt == INGOT_DT_F8E4M3FN && a >= 0x43f00000u && a < 0x43f80000u)
		return (uint8_t)(s | 0x7e);               /* [480, 496): the reference's 448 */
	if (!saturate && dt == INGOT_DT_F8E5M2 && a >= 0x47700000u && a < 0x47800000u)
		return (uint8_t)(s | 0x7f);               /* [61440, 65536): the reference's NaN */
	E = (int)(a >> 23) - 127;
	emin = 1 - bias;
	if (E > 40)                                   /* far above every small float */
		return ovf;
	if ((a >> 23) == 0) {                         /* f32 subnormals round to zero */
		q = 0;
	} else {
		mant = (a & 0x7fffffu) | 0x800000u;
		shift = 23 - mb + (E < emin ? emin - E : 0);
		if (shift > 25) {
			q = 0;
		} else {
			q = mant >> shift;
			rem = mant & ((1u << shift) - 1u);
			half = 1u << (shift - 1);
			if (rem > half || (rem == half && (q & 1u)))
				q++;
		}
	}
	code = (uint32_t)(E > emin ? E - emin : 0) << mb;
	code = q ? code + q : 0;
	if (code > (uint32_t)maxc)
		return ovf;
	if (code == 0)
		return uz ? 0 : s;
	return (uint8_t)(s | code);
}

/* INT4 / UINT4 from an integer: the low 4 bits (two's complement), as Cast does. */
static inline INGOT_UNUSED int8_t ingot_wrap_i4(int64_t v)
{
	int r = (int)((uint64_t)v & 0xfu);
	return (int8_t)(r >= 8 ? r - 16 : r);
}

/* INT2 from an integer: the low 2 bits (two's complement). */
static inline INGOT_UNUSED int8_t ingot_wrap_i2(int64_t v)
{
	int r = (int)((uint64_t)v & 0x3u);
	return (int8_t)(r >= 2 ? r - 4 : r);
}

/* ONNX files (raw_data, int32_data) pack INT4, UINT4 and FLOAT4E2M1 two elements per
 * byte, the first in the low nibble, and INT2 and UINT2 four per byte, the first in the
 * lowest two bits; in memory each element has a byte of its own. ingot_dtype_pack is
 * the number of elements per byte in a file: 2 or 4 for those, else 1. */
static inline INGOT_UNUSED int ingot_dtype_pack(int64_t dt)
{
	if (dt == INGOT_DT_U4 || dt == INGOT_DT_I4 || dt == INGOT_DT_F4E2M1)
		return 2;
	return dt == INGOT_DT_U2 || dt == INGOT_DT_I2 ? 4 : 1;
}

static inline INGOT_UNUSED int ingot_dtype_is_packed(int64_t dt)
{
	return ingot_dtype_pack(dt) > 1;              /* any packed (4- or 2-bit) type */
}

/* Bytes of n elements of dt as an ONNX file packs them. */
static inline INGOT_UNUSED size_t ingot_packed_bytes(int64_t dt, size_t n)
{
	size_t k = (size_t)ingot_dtype_pack(dt);
	return (n + k - 1) / k;
}

/* Unpacks n elements of packed dtype dt from src, one byte each into dst (INT4 and INT2
 * sign-extended to int8_t). */
static inline INGOT_UNUSED void ingot_unpack_sub(int64_t dt, const uint8_t *src, uint8_t *dst,
                                                 size_t n)
{
	size_t i, k = (size_t)ingot_dtype_pack(dt), bits = 8 / k;
	unsigned mask = (1u << bits) - 1u, sign = 1u << (bits - 1);
	int sgn = dt == INGOT_DT_I4 || dt == INGOT_DT_I2;
	for (i = 0; i < n; i++) {
		unsigned v = (src[i / k] >> (bits * (i % k))) & mask;
		dst[i] = (uint8_t)(sgn && (v & sign) ? v | ~mask : v);
	}
}

/* Packs n one-byte elements of packed dtype dt from src into ingot_packed_bytes(dt, n)
 * bytes of dst, the first element in the lowest bits (ingot_unpack_sub's inverse). */
static inline INGOT_UNUSED void ingot_pack_sub(int64_t dt, const uint8_t *src, uint8_t *dst,
                                               size_t n)
{
	size_t i, k = (size_t)ingot_dtype_pack(dt), bits = 8 / k;
	unsigned mask = (1u << bits) - 1u;
	for (i = 0; i < n; i += k) {
		unsigned b = 0;
		size_t j;
		for (j = 0; j < k && i + j < n; j++)
			b |= (src[i + j] & mask) << (bits * j);
		dst[i / k] = (uint8_t)b;
	}
}

/* Size in bytes of one element of an INGOT_DT_* type (0 for unknown ones). */
static inline INGOT_UNUSED size_t ingot_dtype_size(int dt)
{
	switch (dt) {
	case INGOT_DT_F32: case INGOT_DT_I32: case INGOT_DT_U32: return 4;
	case INGOT_DT_U8: case INGOT_DT_I8: case INGOT_DT_BOOL: return 1;
	case INGOT_DT_F8E4M3FN: case INGOT_DT_F8E4M3FNUZ: case INGOT_DT_F8E5M2:
	case INGOT_DT_F8E5M2FNUZ: case INGOT_DT_U4: case INGOT_DT_I4: case INGOT_DT_F4E2M1: return 1;
	case INGOT_DT_F8E8M0: case INGOT_DT_U2: case INGOT_DT_I2: return 1;
	case INGOT_DT_U16: case INGOT_DT_I16: case INGOT_DT_F16: case INGOT_DT_BF16: return 2;
	case INGOT_DT_I64: case INGOT_DT_F64: case INGOT_DT_U64: case INGOT_DT_C64: return 8;
	case INGOT_DT_C128: return 16;
	case INGOT_DT_STRING: return INGOT_STRING_CAP;
	default: return 0;
	}
}

/* ---- one element of a float tensor, as double (reference kernels' scalar paths) ---- */

/* Whether dt is one of the float types the scalar paths compute in: f32, f64, f16, bf16. */
static inline INGOT_UNUSED int ingot_dtype_is_float(int64_t dt)
{
	return dt == INGOT_DT_F32 || dt == INGOT_DT_F64 || dt == INGOT_DT_F16 || dt == INGOT_DT_BF16;
}

/* Whether dt is an 8-bit or 4-bit float (carried as its uint8_t code). */
static inline INGOT_UNUSED int ingot_dtype_is_small_float(int64_t dt)
{
	return dt == INGOT_DT_F8E4M3FN || dt == INGOT_DT_F8E4M3FNUZ || dt == INGOT_DT_F8E5M2 ||
	       dt == INGOT_DT_F8E5M2FNUZ || dt == INGOT_DT_F4E2M1 || dt == INGOT_DT_F8E8M0;
}

/* Element i of p, of float dtype dt, widened to double (exact); 0 for any other dtype. */
static inline INGOT_UNUSED double ingot_ldf(int64_t dt, const void *p, int64_t i)
{
	switch (dt) {
	case INGOT_DT_F32: return (double)((const float *)p)[i];
	case INGOT_DT_F64: return ((const double *)p)[i];
	case INGOT_DT_F16: return (double)ingot_f16_to_f32(((const uint16_t *)p)[i]);
	case INGOT_DT_BF16: return (double)ingot_bf16_to_f32(((const uint16_t *)p)[i]);
	default: return 0.0;
	}
}

/* Element i of p, of any numeric dtype (integers, 4-bit integers, bool as 0 or 1, and
 * every float type), as double: exact but for 64-bit integers beyond 2^53, which round
 * to nearest. 0 for other dtypes. */
static inline INGOT_UNUSED double ingot_ld_num(int64_t dt, const void *p, int64_t i)
{
	switch (dt) {
	case INGOT_DT_I8: case INGOT_DT_I4: case INGOT_DT_I2: return (double)((const int8_t *)p)[i];
	case INGOT_DT_U8: case INGOT_DT_U4: case INGOT_DT_U2: return (double)((const uint8_t *)p)[i];
	case INGOT_DT_BOOL: return ((const uint8_t *)p)[i] ? 1.0 : 0.0;
	case INGOT_DT_I16: return (double)((const int16_t *)p)[i];
	case INGOT_DT_U16: return (double)((const uint16_t *)p)[i];
	case INGOT_DT_I32: return (double)((const int32_t *)p)[i];
	case INGOT_DT_U32: return (double)((const uint32_t *)p)[i];
	case INGOT_DT_I64: return (double)((const int64_t *)p)[i];
	case INGOT_DT_U64: return (double)((const uint64_t *)p)[i];
	case INGOT_DT_F8E4M3FN: case INGOT_DT_F8E4M3FNUZ: case INGOT_DT_F8E5M2:
	case INGOT_DT_F8E5M2FNUZ: case INGOT_DT_F4E2M1: case INGOT_DT_F8E8M0:
		return (double)ingot_small_to_f32((int)dt, ((const uint8_t *)p)[i]);
	default: return ingot_ldf(dt, p, i);
	}
}

/* Stores v as element i of p, of float dtype dt: f32 rounds to nearest, f16 and bf16
 * round to float first and then to nearest even; any other dtype stores nothing. */
static inline INGOT_UNUSED void ingot_stf(int64_t dt, void *p, int64_t i, double v)
{
	switch (dt) {
	case INGOT_DT_F32: ((float *)p)[i] = (float)v; break;
	case INGOT_DT_F64: ((double *)p)[i] = v; break;
	case INGOT_DT_F16: ((uint16_t *)p)[i] = ingot_f32_to_f16((float)v); break;
	case INGOT_DT_BF16: ((uint16_t *)p)[i] = ingot_f32_to_bf16((float)v); break;
	default: break;
	}
}

#endif /* INGOT_RT_H */
