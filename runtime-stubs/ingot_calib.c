/* ingot_calib.c — the statistics program of `ingot compile --quantize int8`
 * (compiler/driver/calibrate.c). Hosted C99. It links an instrumented build of the
 * model (every tensor to be quantized made an extra output; its runner table is
 * ingot_calib_model_f) and, for the accuracy report, the quantized build
 * instrumented the same way (ingot_calib_model_q, with -DINGOT_CALIB_COMPARE), and
 * runs them over every input set of a list file (one path a line, `per_set` lines a
 * set, in the model's input order):
 *   calib --list L --per-set K --stats OUT [--hist]
 *     per output: "name min max count" and, with --hist, two lines of 2048 counts:
 *     x over [-A, A] and |x| over [0, A], A = max |x| (a second pass over the sets)
 *   calib --list L --per-set K --compare OUT           (INGOT_CALIB_COMPARE)
 *     per output of q matched by name in f: "name sum_ref2 sum_err2 dot sum_q2
 *     max_abs_err top1_agree top1_rows" (rows 0 unless classifier-shaped: [C], [N,C])
 * Non-finite values are left out of the statistics. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingot_runner.h"
#include "ingot_tensor_io.h"

#define CALIB_BINS 2048

extern const ingot_runner_model *const ingot_calib_model_f;
#ifdef INGOT_CALIB_COMPARE
extern const ingot_runner_model *const ingot_calib_model_q;
#endif

/* A model ready to run: its workspace, input and output buffers. */
typedef struct Inst {
	const ingot_runner_model *m;
	void *ws;
	void **in, **out;
} Inst;

/* 64-byte aligned, as the runner allocates (the generated code may check it). */
static void *alloc64(size_t bytes)
{
	void *p = NULL;
	return posix_memalign(&p, 64, bytes ? bytes : 64) ? NULL : p;
}

static int inst_init(Inst *x, const ingot_runner_model *m)
{
	int i;
	x->m = m;
	x->ws = alloc64(m->workspace_size_par(1));
	x->in = (void **)calloc((size_t)m->num_inputs + 1, sizeof *x->in);
	x->out = (void **)calloc((size_t)m->num_outputs + 1, sizeof *x->out);
	if (!x->ws || !x->in || !x->out)
		return -1;
	for (i = 0; i < m->num_inputs; i++)
		if (!(x->in[i] = alloc64(m->inputs[i].bytes)))
			return -1;
	for (i = 0; i < m->num_outputs; i++)
		if (!(x->out[i] = alloc64(m->outputs[i].bytes)))
			return -1;
	return 0;
}

/* Reads set s of the list into x's inputs and runs x. */
static int inst_run(Inst *x, char **paths, int per_set, int s)
{
	char err[512];
	int i, rc;
	for (i = 0; i < x->m->num_inputs; i++) {
		ingot_tensor t;
		const ingot_io *io = &x->m->inputs[i];
		if (i >= per_set || ingot_tensor_read(paths[s * per_set + i], &t, err, sizeof err)) {
			fprintf(stderr, "calib: %s: %s\n", i < per_set ? paths[s * per_set + i] : "?",
			        i < per_set ? err : "missing input");
			return -1;
		}
		if (t.dtype != io->dtype || t.bytes != io->bytes) {
			fprintf(stderr, "calib: %s: input %d '%s' has the wrong type or shape\n",
			        paths[s * per_set + i], i, io->name);
			ingot_tensor_free(&t);
			return -1;
		}
		memcpy(x->in[i], t.data, t.bytes);
		ingot_tensor_free(&t);
	}
	rc = x->m->run_par_v((const void *const *)x->in, x->out, x->ws, NULL);
	if (rc)
		fprintf(stderr, "calib: set %d: the model failed with code %d\n", s, rc);
	return rc;
}

static size_t n_elems(const Inst *x, int i)
{
	return x->m->outputs[i].bytes / sizeof(float);
}

static int is_f32(const Inst *x, int i)
{
	return x->m->outputs[i].dtype == INGOT_DT_F32;
}

static int read_list(const char *path, char ***paths)
{
	FILE *f = fopen(path, "r");
	char line[8192];
	int n = 0, cap = 0;
	if (!f)
		return -1;
	*paths = NULL;
	while (fgets(line, sizeof line, f)) {
		size_t len = strcspn(line, "\r\n");
		line[len] = 0;
		if (!len)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			*paths = (char **)realloc(*paths, (size_t)cap * sizeof **paths);
			if (!*paths)
				return -1;
		}
		(*paths)[n] = (char *)malloc(len + 1);
		if (!(*paths)[n])
			return -1;
		memcpy((*paths)[n++], line, len + 1);
	}
	fclose(f);
	return n;
}

static int stats(Inst *f, char **paths, int per_set, int n_sets, int hist, FILE *out)
{
	int n = f->m->num_outputs, i, s;
	double *lo = (double *)malloc(sizeof(double) * (size_t)n), *hi = (double *)malloc(sizeof(double) * (size_t)n);
	double *cnt = (double *)calloc((size_t)n, sizeof(double));
	double *h = hist ? (double *)calloc((size_t)n * 2 * CALIB_BINS, sizeof(double)) : NULL;
	if (!lo || !hi || !cnt || (hist && !h))
		return -1;
	for (i = 0; i < n; i++) {
		lo[i] = INFINITY;
		hi[i] = -INFINITY;
	}
	for (s = 0; s < n_sets; s++) {
		if (inst_run(f, paths, per_set, s))
			return -1;
		for (i = 0; i < n; i++) {
			const float *v = (const float *)f->out[i];
			size_t k, m = n_elems(f, i);
			double l = lo[i], u = hi[i];
			if (!is_f32(f, i))
				continue;
			for (k = 0; k < m; k++) {
				double x = v[k];
				if (!isfinite(x))
					continue;
				l = x < l ? x : l;
				u = x > u ? x : u;
			}
			lo[i] = l;
			hi[i] = u;
			cnt[i] += (double)m;
		}
	}
	for (s = 0; hist && s < n_sets; s++) {
		if (inst_run(f, paths, per_set, s))
			return -1;
		for (i = 0; i < n; i++) {
			const float *v = (const float *)f->out[i];
			size_t k, m = n_elems(f, i);
			double a = fabs(lo[i]) > fabs(hi[i]) ? fabs(lo[i]) : fabs(hi[i]);
			double *hx = h + (size_t)i * 2 * CALIB_BINS, *ha = hx + CALIB_BINS;
			if (!is_f32(f, i) || !(a > 0) || !isfinite(a))
				continue;
			for (k = 0; k < m; k++) {
				double x = v[k];
				int b;
				if (!isfinite(x))
					continue;
				b = (int)((x + a) / (2 * a) * CALIB_BINS);
				hx[b < 0 ? 0 : b >= CALIB_BINS ? CALIB_BINS - 1 : b] += 1;
				b = (int)(fabs(x) / a * CALIB_BINS);
				ha[b >= CALIB_BINS ? CALIB_BINS - 1 : b] += 1;
			}
		}
	}
	for (i = 0; i < n; i++) {
		int b;
		fprintf(out, "%s %.9g %.9g %.0f\n", f->m->outputs[i].name, lo[i] <= hi[i] ? lo[i] : 0.0,
		        lo[i] <= hi[i] ? hi[i] : 0.0, cnt[i]);
		for (b = 0; hist && b < 2 * CALIB_BINS; b++)
			fprintf(out, "%.0f%c", h[(size_t)i * 2 * CALIB_BINS + (size_t)b],
			        b == CALIB_BINS - 1 || b == 2 * CALIB_BINS - 1 ? '\n' : ' ');
	}
	free(lo);
	free(hi);
	free(cnt);
	free(h);
	return 0;
}

#ifdef INGOT_CALIB_COMPARE
typedef struct Acc {
	int f;                         /* the matching output of model f, -1: none */
	double ref2, err2, dot, q2, max_abs, agree, rows;
} Acc;

static int compare(Inst *f, Inst *q, char **paths, int per_set, int n_sets, FILE *out)
{
	int n = q->m->num_outputs, i, j, s;
	Acc *a = (Acc *)calloc((size_t)n + 1, sizeof *a);
	if (!a)
		return -1;
	for (i = 0; i < n; i++) {
		a[i].f = -1;
		for (j = 0; j < f->m->num_outputs; j++)
			if (strcmp(q->m->outputs[i].name, f->m->outputs[j].name) == 0 && is_f32(q, i) &&
			    is_f32(f, j) && q->m->outputs[i].bytes == f->m->outputs[j].bytes)
				a[i].f = j;
	}
	for (s = 0; s < n_sets; s++) {
		if (inst_run(f, paths, per_set, s) || inst_run(q, paths, per_set, s))
			return -1;
		for (i = 0; i < n; i++) {
			const ingot_io *io = &q->m->outputs[i];
			const float *y, *r;
			size_t k, m;
			if (a[i].f < 0)
				continue;
			y = (const float *)q->out[i];
			r = (const float *)f->out[a[i].f];
			m = n_elems(q, i);
			for (k = 0; k < m; k++) {
				double e = (double)y[k] - (double)r[k];
				if (!isfinite(e))
					continue;
				a[i].ref2 += (double)r[k] * r[k];
				a[i].q2 += (double)y[k] * y[k];
				a[i].dot += (double)r[k] * y[k];
				a[i].err2 += e * e;
				a[i].max_abs = fabs(e) > a[i].max_abs ? fabs(e) : a[i].max_abs;
			}
			if ((io->rank == 1 || io->rank == 2) && io->dims[io->rank - 1] > 1) {
				size_t c = (size_t)io->dims[io->rank - 1], row, rows = m / c;
				for (row = 0; row < rows; row++) {
					size_t bq = 0, br = 0;
					for (k = 1; k < c; k++) {
						bq = y[row * c + k] > y[row * c + bq] ? k : bq;
						br = r[row * c + k] > r[row * c + br] ? k : br;
					}
					a[i].agree += bq == br;
					a[i].rows += 1;
				}
			}
		}
	}
	for (i = 0; i < n; i++)
		if (a[i].f >= 0)
			fprintf(out, "%s %.17g %.17g %.17g %.17g %.9g %.0f %.0f\n", q->m->outputs[i].name, a[i].ref2,
			        a[i].err2, a[i].dot, a[i].q2, a[i].max_abs, a[i].agree, a[i].rows);
	free(a);
	return 0;
}
#endif

int main(int argc, char **argv)
{
	const char *list = NULL, *stats_out = NULL, *cmp_out = NULL;
	int per_set = 1, hist = 0, i, n, rc;
	char **paths;
	Inst f;
	FILE *out;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--list") == 0 && i + 1 < argc)
			list = argv[++i];
		else if (strcmp(argv[i], "--per-set") == 0 && i + 1 < argc)
			per_set = atoi(argv[++i]);
		else if (strcmp(argv[i], "--stats") == 0 && i + 1 < argc)
			stats_out = argv[++i];
		else if (strcmp(argv[i], "--compare") == 0 && i + 1 < argc)
			cmp_out = argv[++i];
		else if (strcmp(argv[i], "--hist") == 0)
			hist = 1;
		else {
			fprintf(stderr, "usage: %s --list FILE --per-set K (--stats OUT [--hist] | --compare OUT)\n",
			        argv[0]);
			return 2;
		}
	}
	if (!list || per_set < 1 || (!stats_out == !cmp_out)) {
		fprintf(stderr, "%s: needs --list, --per-set and one of --stats, --compare\n", argv[0]);
		return 2;
	}
	n = read_list(list, &paths);
	if (n < 0 || inst_init(&f, ingot_calib_model_f)) {
		fprintf(stderr, "%s: cannot read %s, or out of memory\n", argv[0], list);
		return 1;
	}
	out = fopen(stats_out ? stats_out : cmp_out, "w");
	if (!out) {
		fprintf(stderr, "%s: cannot write %s\n", argv[0], stats_out ? stats_out : cmp_out);
		return 1;
	}
	if (stats_out) {
		rc = stats(&f, paths, per_set, n / per_set, hist, out);
	} else {
#ifdef INGOT_CALIB_COMPARE
		Inst q;
		rc = inst_init(&q, ingot_calib_model_q) ? -1 : compare(&f, &q, paths, per_set, n / per_set, out);
#else
		fprintf(stderr, "%s: built without the quantized model\n", argv[0]);
		rc = 2;
#endif
	}
	if (fclose(out))
		rc = -1;
	return rc ? 1 : 0;
}
