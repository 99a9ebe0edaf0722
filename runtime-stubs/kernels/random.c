/* random.c — reference kernels of the random ops on Philox4x32-10 (random.h says
 * how counters, keys and the workspace state are laid out). Every element's value
 * depends only on (key, stream, run, element index), so tasks and threads split
 * the work freely and the output is the same for any split. */
#include "random.h"

#include <math.h>
#include <string.h>

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u
#define SEEDED_KEY_HI 0x6a09e667u       /* marks the key of a node with a `seed` */

INGOT_KERNEL void ingot_philox4x32(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
	uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3], k0 = key[0], k1 = key[1];
	for (int r = 0; r < 10; r++) {
		uint64_t p0 = (uint64_t)PHILOX_M0 * c0, p1 = (uint64_t)PHILOX_M1 * c2;
		uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
		c1 = (uint32_t)p1;
		c3 = (uint32_t)p0;
		c0 = n0;
		c2 = n2;
		k0 += PHILOX_W0;
		k1 += PHILOX_W1;
	}
	out[0] = c0;
	out[1] = c1;
	out[2] = c2;
	out[3] = c3;
}

INGOT_KERNEL void ingot_rng_seed(void *state, uint64_t seed)
{
	uint64_t *s = (uint64_t *)state;
	s[0] = INGOT_RNG_MAGIC;
	s[1] = seed;
	s[2] = 0;
}

INGOT_KERNEL void ingot_rng_begin(void *state)
{
	uint64_t *s = (uint64_t *)state;
	if (s[0] != INGOT_RNG_MAGIC)
		ingot_rng_seed(state, 0);
	s[2]++;
}

/* The key and counter words of one node's stream for this run. */
typedef struct Stream { uint32_t key[2], stream, run; } Stream;

static int stream_init(Stream *st, const void *state, int64_t seeded, int64_t seed_bits,
                       int64_t stream)
{
	if (seeded) {
		st->key[0] = (uint32_t)seed_bits;
		st->key[1] = SEEDED_KEY_HI;
		st->stream = 0;
		st->run = 0;
		return INGOT_OK;
	}
	if (!state)
		return INGOT_EINVAL;
	const uint64_t *s = (const uint64_t *)state;
	st->key[0] = (uint32_t)s[1];
	st->key[1] = (uint32_t)(s[1] >> 32) ^ (uint32_t)(s[2] >> 32);
	st->stream = (uint32_t)stream;
	st->run = (uint32_t)s[2];
	return INGOT_OK;
}

/* The 64-bit word of element i (half of block i / 2). */
static uint64_t word_at(const Stream *st, int64_t i)
{
	uint64_t b = (uint64_t)i >> 1;
	uint32_t ctr[4] = { (uint32_t)b, (uint32_t)(b >> 32), st->stream, st->run }, o[4];
	ingot_philox4x32(ctr, st->key, o);
	return (i & 1) ? ((uint64_t)o[2] << 32 | o[3]) : ((uint64_t)o[0] << 32 | o[1]);
}

/* u in [0, 1) from the top m bits of w. */
static double unit(uint64_t w, int m)
{
	return (double)(w >> (64 - m)) * ldexp(1.0, -m);
}

static int mant_bits(int64_t dt)
{
	switch (dt) {
	case INGOT_DT_F32: return 24;
	case INGOT_DT_F16: return 11;
	case INGOT_DT_BF16: return 8;
	default: return 53;
	}
}

/* Standard normal of element i: Box-Muller on block i / 2, cos for even i, sin for odd. */
static double normal_at(const Stream *st, int64_t i)
{
	uint64_t b = (uint64_t)i >> 1;
	uint32_t ctr[4] = { (uint32_t)b, (uint32_t)(b >> 32), st->stream, st->run }, o[4];
	ingot_philox4x32(ctr, st->key, o);
	double u1 = ((double)(((uint64_t)o[0] << 32 | o[1]) >> 11) + 1.0) * ldexp(1.0, -53);
	double u2 = (double)(((uint64_t)o[2] << 32 | o[3]) >> 11) * ldexp(1.0, -53);
	double r = sqrt(-2.0 * log(u1)), t = 6.283185307179586 * u2;
	return r * ((i & 1) ? sin(t) : cos(t));
}

/* Stores v (a float, or 0/1 for Bernoulli and masks) as dtype dt. */
static void st(int64_t dt, void *p, int64_t i, double v)
{
	switch (dt) {
	case INGOT_DT_BOOL: case INGOT_DT_U8: ((uint8_t *)p)[i] = (uint8_t)(v != 0); break;
	case INGOT_DT_I8: ((int8_t *)p)[i] = (int8_t)(v != 0); break;
	case INGOT_DT_U16: ((uint16_t *)p)[i] = (uint16_t)(v != 0); break;
	case INGOT_DT_I16: ((int16_t *)p)[i] = (int16_t)(v != 0); break;
	case INGOT_DT_I32: ((int32_t *)p)[i] = (int32_t)(v != 0); break;
	case INGOT_DT_U32: ((uint32_t *)p)[i] = (uint32_t)(v != 0); break;
	case INGOT_DT_I64: ((int64_t *)p)[i] = (int64_t)(v != 0); break;
	case INGOT_DT_U64: ((uint64_t *)p)[i] = (uint64_t)(v != 0); break;
	default: ingot_stf(dt, p, i, v); break;   /* the float types */
	}
}

static void range(int64_t total, int task, int n_tasks, int64_t *lo, int64_t *hi)
{
	if (n_tasks < 1)
		n_tasks = 1;
	*lo = total * task / n_tasks;
	*hi = total * (task + 1) / n_tasks;
}

/* Rows [lo, hi) of Multinomial: the cumulative softmax weights of each row in cdf,
 * then the first class whose cumulative weight exceeds u * total (binary search). */
static void multinomial(const ingot_random_params *p, const Stream *s, const void *x, void *y,
                        double *cdf, int64_t lo, int64_t hi)
{
	int64_t c = p->classes;
	for (int64_t r = lo; r < hi; r++) {
		double mx = -HUGE_VAL, tot = 0.0;
		for (int64_t k = 0; k < c; k++) {
			double v = ingot_ldf(p->in_dtype, x, r * c + k);
			if (v > mx)
				mx = v;
		}
		for (int64_t k = 0; k < c; k++) {
			double v = ingot_ldf(p->in_dtype, x, r * c + k);
			tot += mx == -HUGE_VAL ? 0.0 : exp(v - mx);
			cdf[k] = tot;
		}
		for (int64_t j = 0; j < p->samples; j++) {
			int64_t i = r * p->samples + j, a = 0, b = c - 1;
			double t = unit(word_at(s, i), 53) * tot;
			while (a < b) {              /* first k with cdf[k] > t */
				int64_t m = a + (b - a) / 2;
				if (cdf[m] > t)
					b = m;
				else
					a = m + 1;
			}
			if (p->dtype == INGOT_DT_I32)
				((int32_t *)y)[i] = (int32_t)a;
			else
				((int64_t *)y)[i] = a;
		}
	}
}

INGOT_KERNEL int ingot_random(const void *params, const void *const *in, void *const *out,
                              void *scratch, int task, int n_tasks)
{
	const ingot_random_params *p = (const ingot_random_params *)params;
	Stream s;
	int64_t lo, hi, i;
	int m = mant_bits(p->dtype);
	if (!out[0] || stream_init(&s, in[p->rng_slot], p->seeded, p->seed_bits, p->stream))
		return INGOT_EINVAL;
	if (p->kind == INGOT_RAND_MULTINOMIAL) {
		if (!in[0] || (!scratch && p->classes > 0) || p->classes < 1)
			return INGOT_EINVAL;
		range(p->rows, task, n_tasks, &lo, &hi);
		multinomial(p, &s, in[0], out[0], (double *)scratch, lo, hi);
		return INGOT_OK;
	}
	if (p->kind == INGOT_RAND_BERNOULLI && !in[0])
		return INGOT_EINVAL;
	range(p->n, task, n_tasks, &lo, &hi);
	for (i = lo; i < hi; i++) {
		switch (p->kind) {
		case INGOT_RAND_UNIFORM:
			st(p->dtype, out[0], i, p->a + (p->b - p->a) * unit(word_at(&s, i), m));
			break;
		case INGOT_RAND_NORMAL:
			st(p->dtype, out[0], i, p->a + p->b * normal_at(&s, i));
			break;
		default:                             /* Bernoulli */
			st(p->dtype, out[0], i,
			   unit(word_at(&s, i), 53) < ingot_ldf(p->in_dtype, in[0], i));
			break;
		}
	}
	return INGOT_OK;
}

INGOT_KERNEL int ingot_dropout(const void *params, const void *const *in, void *const *out,
                               void *scratch, int task, int n_tasks)
{
	const ingot_dropout_params *p = (const ingot_dropout_params *)params;
	double ratio = p->ratio;
	int training = p->training != 0;
	int64_t lo, hi, i, es = (int64_t)ingot_dtype_size((int)p->dtype);
	void *mask = p->has_mask ? out[1] : NULL;
	Stream s;
	(void)scratch;
	if (!in[0] || !out[0])
		return INGOT_EINVAL;
	if (p->n_in > 1 && in[1])
		ratio = ingot_ldf(p->ratio_dtype, in[1], 0);
	if (p->n_in > 2 && in[2])
		training = *(const uint8_t *)in[2] != 0;
	if (training && !(ratio >= 0.0 && ratio < 1.0))
		return INGOT_EINVAL;
	if (training && ratio > 0.0 &&
	    stream_init(&s, in[p->rng_slot], p->seeded, p->seed_bits, p->stream))
		return INGOT_EINVAL;
	range(p->n, task, n_tasks, &lo, &hi);
	if (!training || ratio == 0.0) {         /* a copy, every element kept */
		if (hi > lo)
			memcpy((char *)out[0] + lo * es, (const char *)in[0] + lo * es, (size_t)((hi - lo) * es));
		for (i = lo; mask && i < hi; i++)
			st(p->mask_dtype, mask, i, 1.0);
		return INGOT_OK;
	}
	double scale = 1.0 / (1.0 - ratio);
	for (i = lo; i < hi; i++) {
		int keep = unit(word_at(&s, i), 53) >= ratio;
		st(p->dtype, out[0], i, keep ? ingot_ldf(p->dtype, in[0], i) * scale : 0.0);
		if (mask)
			st(p->mask_dtype, mask, i, keep);
	}
	return INGOT_OK;
}
