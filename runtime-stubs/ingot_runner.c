/* ingot_runner.c — the command-line runner shared by every generated executable.
 * Hosted C99 + POSIX clocks. The runner is the same code for every model: NAME_main.c
 * describes its model in an ingot_runner_model (ingot_runner.h), includes this file
 * and calls ingot_runner_main; ingot check compiles it once, with
 * INGOT_RUNNER_EXTERN, into the library its tests link, where main() runs
 * ingot_runner_the_model.
 *   ./m --input in0.pb [--input in1.pb] [--output-dir D]   run once, write output_N.pb/.npy
 *   ./m --bench N [--threads T] [--input ...]               time N runs after 10 warm-ups
 *   --seed S: unseeded random ops start every run from seed S (NAME_seed), else seed 0
 * The last line of --bench is `median_us=X p10_us=X p90_us=X runs=N`. --threads T runs
 * the model through NAME_run_par on a pool of T threads. A model compiled with
 * --profile (run_prof_v set) times every node and prints a table of them, slowest
 * first: after the bench runs on stdout, after a single run on stderr;
 * --profile-svg FILE also draws it as an SVG bar chart.
 * A device model (--target opencl) sets the device up once, before the runs:
 * --cl-cache DIR keeps its program binary there (ingot_cl_options.cache_dir), and
 * --cl-info (or --bench) prints `cl_init_us=X program=binary|source|none cache=...` on
 * stderr.
 *
 * The workspace is exactly its size on the heap (NAME_WORKSPACE_SIZE, or
 * NAME_WORKSPACE_SIZE_PAR(T) with threads; so AddressSanitizer sees any access past
 * it) and filled with garbage before each run; a plain run runs twice, over
 * different garbage, and fails unless both give the same bytes: a kernel that reads
 * memory it never wrote, or a wrong memory plan, shows up. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ingot_runner.h"

#ifdef INGOT_RUNNER_EXTERN_TENSOR_IO
#include "ingot_tensor_io.h"   /* ingot check links one prebuilt copy into every runner */
#else
#define INGOT_TENSOR_IO_API static INGOT_UNUSED
#include "ingot_tensor_io.c"
#endif

#define MAX_RUNNER_INPUTS 64

static const ingot_runner_model *M;   /* the model being run */
static void *dev;                     /* its device (M->dev_open), or NULL */

static int usage(const char *argv0)
{
	fprintf(stderr,
	        "usage: %s --input FILE [--input FILE ...] [--output-dir DIR]\n"
	        "       %s --bench N [--threads T] [--input FILE ...]\n"
	        "--profile-svg FILE (a model compiled with --profile) draws the node times as SVG.\n"
	        "--seed S seeds the random ops that have no seed attribute (default 0).\n"
	        "--cl-cache DIR keeps an OpenCL model's program binary in DIR; --cl-info says\n"
	        "how the device was set up.\n"
	        "Runs model '%s'. Inputs are ONNX TensorProto .pb or numpy .npy files, in the\n"
	        "model's input order; outputs are written as output_<i>.pb (.npy if the inputs were).\n",
	        argv0, argv0, M->name);
	return 2;
}

/* Exactly `bytes` (no slack after it), 64-byte aligned; never NULL for 0 bytes. */
static void *alloc_exact(size_t bytes)
{
	void *p = NULL;
	if (posix_memalign(&p, 64, bytes ? bytes : 64))
		return NULL;
	return p;
}

/* Garbage of the given seed: NaNs, huge and tiny floats, odd integers. */
static void fill_garbage(void *p, size_t bytes, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1u;
	size_t i;
	for (i = 0; i < bytes; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		((unsigned char *)p)[i] = (unsigned char)(x >> 24);
	}
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rng_next(void)
{
	rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng_state >> 33);
}

/* Seeded random data: floats in [-1, 1) (strings: such a float as text), integers
 * and bools in {0, 1} (valid as indices of any non-empty axis). */
static void fill_random(const ingot_io *io, void *data)
{
	size_t es = ingot_dtype_size(io->dtype), n = es ? io->bytes / es : 0, i;
	for (i = 0; i < n; i++) {
		float f = (float)((double)rng_next() / 2147483648.0 - 1.0);
		uint32_t b = rng_next() & 1u;
		switch (io->dtype) {
		case INGOT_DT_F32: ((float *)data)[i] = f; break;
		case INGOT_DT_F64: ((double *)data)[i] = (double)f; break;
		case INGOT_DT_F16: ((uint16_t *)data)[i] = ingot_f32_to_f16(f); break;
		case INGOT_DT_BF16: ((uint16_t *)data)[i] = ingot_f32_to_bf16(f); break;
		case INGOT_DT_STRING:              /* the float as text, zero-padded */
			memset((char *)data + i * es, 0, es);
			snprintf((char *)data + i * es, es, "%g", (double)f);
			break;
		default:
			memset((char *)data + i * es, 0, es);
			((unsigned char *)data)[i * es] = (unsigned char)b;   /* little-endian */
		}
	}
}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b);

/* per-node slots of a profile row */
#define PROF_N (M->num_prof_nodes > 0 ? (size_t)M->num_prof_nodes : 1u)

static double prof_clock(void *ctx)
{
	(void)ctx;
	return now_us() / 1e6;
}

static const double *prof_sort_key;
static int cmp_prof(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	double tx = prof_sort_key[x], ty = prof_sort_key[y];
	return tx > ty ? -1 : tx < ty ? 1 : x - y;   /* slowest first, then in run order */
}

/* Each node's median time over `runs` rows of per-node seconds (one row per run) into
 * med, the nodes slowest first into order; returns the sum of the medians. */
static double prof_medians(const double *rows, int runs, double *med, int *order)
{
	double total = 0, *col = (double *)malloc(sizeof(double) * (size_t)runs);
	int i, r;
	if (!col)
		return -1;
	for (i = 0; i < M->num_prof_nodes; i++) {
		for (r = 0; r < runs; r++)
			col[r] = rows[(size_t)r * PROF_N + (size_t)i];
		qsort(col, (size_t)runs, sizeof col[0], cmp_double);
		med[i] = runs % 2 ? col[runs / 2] : 0.5 * (col[runs / 2 - 1] + col[runs / 2]);
		order[i] = i;
		total += med[i];
	}
	free(col);
	prof_sort_key = med;
	qsort(order, (size_t)M->num_prof_nodes, sizeof order[0], cmp_prof);
	return total;
}

/* The per-node table: each node's median time, its share of the sum of the medians,
 * GFLOP/s (2 FLOPs per MAC). */
static void print_profile(FILE *f, const double *med, const int *order, double total, int runs)
{
	int i;
	fprintf(f, "profile: %d nodes, median of %d run%s, %.2f us in nodes\n", M->num_prof_nodes, runs,
	        runs == 1 ? "" : "s", total * 1e6);
	fprintf(f, "%12s %7s %9s  %-20s %-24s %s\n", "time_us", "share%", "GFLOP/s", "op", "shape", "onnx_nodes");
	for (i = 0; i < M->num_prof_nodes; i++) {
		const ingot_prof_node *n = &M->prof_nodes[order[i]];
		double t = med[order[i]];
		char gf[32] = "-";
		if (n->macs > 0 && t > 0)
			snprintf(gf, sizeof gf, "%.2f", 2.0 * (double)n->macs / t / 1e9);
		fprintf(f, "%12.2f %7.2f %9s  %-20s %-24s %s\n", t * 1e6, total > 0 ? 100.0 * t / total : 0.0, gf,
		        n->op, n->shape, n->names);
	}
}

/* s with XML's five special characters escaped */
static void svg_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, f);
		}
	}
}

/* --profile-svg FILE: the table as a bar chart, one bar per node, slowest first, its
 * length in proportion to the node's median time. Returns 0, or -1 (cannot write). */
#define LABEL_CHARS 68   /* of 11 px monospace in the 460 px label column */
static int write_profile_svg(const char *path, const double *med, const int *order, double total, int runs)
{
	const double label_w = 460, bar_w = 380, row_h = 18, top = 44;
	double tmax = M->num_prof_nodes > 0 ? med[order[0]] : 0;
	char label[LABEL_CHARS + 1];
	FILE *f = fopen(path, "w");
	int i;
	if (!f)
		return -1;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
	        "font-family=\"monospace\" font-size=\"11\">\n"
	        "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
	        label_w + bar_w + 160, top + row_h * M->num_prof_nodes + 10);
	fputs("<text x=\"8\" y=\"18\" font-size=\"13\">", f);
	svg_text(f, M->name);
	fprintf(f, ": %d nodes, median of %d run%s, %.2f us in nodes</text>\n", M->num_prof_nodes, runs,
	        runs == 1 ? "" : "s", total * 1e6);
	fprintf(f, "<text x=\"8\" y=\"36\" fill=\"#555555\">op, ONNX nodes</text>"
	        "<text x=\"%.0f\" y=\"36\" fill=\"#555555\">median time</text>\n", label_w);
	for (i = 0; i < M->num_prof_nodes; i++) {
		const ingot_prof_node *n = &M->prof_nodes[order[i]];
		double t = med[order[i]], y = top + row_h * i;
		double w = tmax > 0 ? bar_w * t / tmax : 0;
		fprintf(f, "<g class=\"node\"><title>");
		svg_text(f, n->op);
		fputs(" ", f);
		svg_text(f, n->names);
		fprintf(f, " %s: %.2f us</title>\n<text x=\"8\" y=\"%.0f\">", n->shape, t * 1e6, y + 12);
		/* the label fits its column (the title has it all) */
		snprintf(label, sizeof label, "%s %s", n->op, n->names);
		if (strlen(label) > LABEL_CHARS)
			strcpy(label + LABEL_CHARS - 3, "...");
		svg_text(f, label);
		fprintf(f, "</text>\n<rect class=\"bar\" x=\"%.0f\" y=\"%.0f\" width=\"%.3f\" height=\"%.0f\" "
		        "fill=\"#4393c3\" data-us=\"%.2f\"/>\n<text x=\"%.1f\" y=\"%.0f\">%.2f us %.1f%%</text></g>\n",
		        label_w, y + 2, w, row_h - 4, t * 1e6, label_w + w + 6, y + 12, t * 1e6,
		        total > 0 ? 100.0 * t / total : 0.0);
	}
	fputs("</svg>\n", f);
	return fclose(f) ? -1 : 0;
}

/* The table on f and, when svg is set, the chart; returns 0 or -1 (the chart failed). */
static int report_profile(FILE *f, const char *svg, const double *rows, int runs, const char *argv0)
{
	double *med = (double *)malloc(sizeof(double) * PROF_N), total;
	int *order = (int *)malloc(sizeof(int) * PROF_N), rc = 0;
	if (!med || !order || (total = prof_medians(rows, runs, med, order)) < 0) {
		free(med);
		free(order);
		fprintf(stderr, "%s: out of memory\n", argv0);
		return -1;
	}
	print_profile(f, med, order, total, runs);
	if (svg && write_profile_svg(svg, med, order, total, runs)) {
		fprintf(stderr, "%s: cannot write %s\n", argv0, svg);
		rc = -1;
	}
	free(med);
	free(order);
	return rc;
}

/* --seed S: a model with unseeded random ops (seed = NAME_seed) starts every
 * run from seed S; without it the workspace's garbage holds no seed, so seed 0. */
static int have_seed;
static unsigned long long seed_value;

/* One run: through the profiling entry point when the model has one. */
static int run_model(const void *const *inputs, void *const *outputs, void *ws, const ingot_par *par,
                     double *prof_seconds)
{
	if (have_seed && M->seed)
		M->seed(ws, (uint64_t)seed_value);
	if (M->run_prof_v) {
		ingot_prof prof;
		prof.clock = prof_clock;
		prof.ctx = NULL;
		prof.seconds = prof_seconds;
		return M->run_prof_v(inputs, outputs, ws, par, prof_seconds ? &prof : NULL);
	}
	if (dev)
		return M->dev_run(dev, inputs, outputs, ws, par);
	return M->run_par_v(inputs, outputs, ws, par);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int check_input(int i, const ingot_tensor *t, const char *path)
{
	const ingot_io *io = &M->inputs[i];
	char want[256], got[256];
	int k, same = t->dtype == io->dtype && t->rank == io->rank;
	for (k = 0; same && k < io->rank; k++)
		same = t->dims[k] == io->dims[k];
	if (same && t->bytes == io->bytes)
		return 0;
	ingot_tensor_shape_str(want, sizeof want, io->dtype, io->rank, io->dims);
	ingot_tensor_shape_str(got, sizeof got, t->dtype, t->rank, t->dims);
	fprintf(stderr, "%s: input %d '%s': expected %s, got %s\n", path, i, io->name, want, got);
	return -1;
}

static size_t out_bytes(void *ws, int i)
{
	int64_t dims[INGOT_MAX_RANK];
	int rank = M->out_dims(ws, i, dims), k;
	size_t n = ingot_dtype_size(M->outputs[i].dtype);
	for (k = 0; k < rank; k++)
		n *= (size_t)dims[k];
	return n;
}

/* Runs the model over a workspace (and outputs) of garbage, keeps the outputs, runs
 * again over other garbage: the results must be the same bytes. */
static int run_twice(const char *argv0, const void *const *inputs, void *const *outputs, void *ws,
                     size_t ws_bytes, const ingot_par *par, double *prof)
{
	size_t slots = M->num_outputs > 0 ? (size_t)M->num_outputs : 1u;
	void **first = (void **)calloc(slots, sizeof *first);
	size_t *n_first = (size_t *)calloc(slots, sizeof *n_first);
	int rc = -1, i;
	if (!first || !n_first) {
		fprintf(stderr, "%s: out of memory\n", argv0);
		goto done;
	}
	for (i = 0; i < M->num_outputs; i++)
		fill_garbage(outputs[i], M->outputs[i].bytes, 100u + (uint32_t)i);
	fill_garbage(ws, ws_bytes, 1);
	if ((rc = run_model(inputs, outputs, ws, par, NULL)) != 0)
		goto done;
	for (i = 0; i < M->num_outputs; i++) {
		size_t n = out_bytes(ws, i);
		n_first[i] = n;
		first[i] = malloc(n ? n : 1);
		if (!first[i]) {
			fprintf(stderr, "%s: out of memory\n", argv0);
			rc = -1;
			goto done;
		}
		memcpy(first[i], outputs[i], n);
		fill_garbage(outputs[i], M->outputs[i].bytes, 200u + (uint32_t)i);
	}
	fill_garbage(ws, ws_bytes, 2);
	rc = run_model(inputs, outputs, ws, par, prof);     /* the timed run of --profile */
	for (i = 0; i < M->num_outputs; i++) {
		size_t n = out_bytes(ws, i);
		if (rc == 0 && (n != n_first[i] || memcmp(first[i], outputs[i], n) != 0)) {
			fprintf(stderr, "%s: output %d differs between two runs over different workspace "
			        "garbage (a kernel reads, or leaves, memory it never wrote)\n", argv0, i);
			rc = -1;
		}
	}
done:
	for (i = 0; first && i < M->num_outputs; i++)
		free(first[i]);
	free(first);
	free(n_first);
	return rc;
}

#ifdef INGOT_RUNNER_EXTERN
#define INGOT_RUNNER_API
int ingot_runner_main(const ingot_runner_model *model, int argc, char **argv);
#else
#define INGOT_RUNNER_API static
#endif

/* The runner's command line for `model`; returns main's exit status. */
INGOT_RUNNER_API int ingot_runner_main(const ingot_runner_model *model, int argc, char **argv)
{
	const char *in_files[MAX_RUNNER_INPUTS], *out_dir = ".", *prof_svg = NULL, *cl_cache = NULL;
	int n_in_files = 0, bench = 0, threads = 1, i, rc = 0, status = 1, npy = 0, cl_info = 0;
	const void **inputs = NULL;
	void **outputs = NULL, **bases = NULL;
	void *ws = NULL;
	size_t ws_bytes;
	char err[512];
	int n_bases = 0;
	ingot_par *par = NULL;
	double *prof_seconds = NULL;

	M = model;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--input") == 0 && i + 1 < argc) {
			if (n_in_files == MAX_RUNNER_INPUTS) {
				fprintf(stderr, "%s: too many --input files\n", argv[0]);
				return 2;
			}
			in_files[n_in_files++] = argv[++i];
		} else if (strcmp(argv[i], "--output-dir") == 0 && i + 1 < argc) {
			out_dir = argv[++i];
		} else if (strcmp(argv[i], "--cl-cache") == 0 && i + 1 < argc) {
			cl_cache = argv[++i];
		} else if (strcmp(argv[i], "--cl-info") == 0) {
			cl_info = 1;
		} else if (strcmp(argv[i], "--profile-svg") == 0 && i + 1 < argc) {
			if (!M->run_prof_v) {
				fprintf(stderr, "%s: --profile-svg needs a model compiled with ingot compile --profile\n",
				        argv[0]);
				return 2;
			}
			prof_svg = argv[++i];
		} else if (strcmp(argv[i], "--bench") == 0 && i + 1 < argc) {
			bench = atoi(argv[++i]);
			if (bench <= 0) {
				fprintf(stderr, "%s: --bench needs a positive count\n", argv[0]);
				return 2;
			}
		} else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
			char *end;
			seed_value = strtoull(argv[++i], &end, 0);
			if (*end || end == argv[i]) {
				fprintf(stderr, "%s: --seed needs an unsigned integer\n", argv[0]);
				return 2;
			}
			have_seed = 1;
		} else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
			threads = atoi(argv[++i]);
			if (threads <= 0) {
				fprintf(stderr, "%s: --threads needs a positive count\n", argv[0]);
				return 2;
			}
		} else {
			return usage(argv[0]);
		}
	}
	if (!bench && n_in_files == 0 && M->num_inputs > 0)
		return usage(argv[0]);
	if (M->dev_open) {   /* the device: once, for every run below */
		double t0 = now_us(), t1;
		dev = M->dev_open(cl_cache, err, sizeof err);
		t1 = now_us();
		if (!dev) {
			fprintf(stderr, "%s: %s\n", argv[0], err);
			return 1;
		}
		if (cl_info || bench)
			fprintf(stderr, "cl_init_us=%.0f %s\n", t1 - t0, err);
	}
	if (n_in_files && n_in_files != M->num_inputs) {
		fprintf(stderr, "%s: model '%s' has %d inputs, got %d --input files\n", argv[0], M->name,
		        M->num_inputs, n_in_files);
		return 2;
	}
	inputs = (const void **)calloc((size_t)M->num_inputs + 1, sizeof *inputs);
	outputs = (void **)calloc((size_t)M->num_outputs + 1, sizeof *outputs);
	bases = (void **)calloc((size_t)M->num_inputs + (size_t)M->num_outputs + 1, sizeof *bases);
	/* one row of per-node times per timed run */
	if (M->run_prof_v)
		prof_seconds = (double *)calloc((size_t)(bench > 0 ? bench : 1) * PROF_N, sizeof(double));
	if (!inputs || !outputs || !bases || (M->run_prof_v && !prof_seconds)) {
		fprintf(stderr, "%s: out of memory\n", argv[0]);
		goto out;
	}
	if (threads > 1) {
		par = M->par_create(threads);
		if (!par || par->n_threads < threads)
			fprintf(stderr, "%s: note: running on %d thread%s, not %d\n", argv[0], par ? par->n_threads : 1,
			        par && par->n_threads > 1 ? "s" : "", threads);
	}

	ws_bytes = M->workspace_size_par(par ? par->n_threads : 1);
	ws = alloc_exact(ws_bytes);
	if (!ws) {
		fprintf(stderr, "%s: out of memory\n", argv[0]);
		goto out;
	}
	for (i = 0; i < M->num_inputs; i++) {
		void *buf = bases[n_bases] = alloc_exact(M->inputs[i].bytes);
		n_bases++;
		if (!buf) {
			fprintf(stderr, "%s: out of memory\n", argv[0]);
			goto out;
		}
		if (n_in_files) {
			ingot_tensor t;
			size_t len = strlen(in_files[i]);
			if (ingot_tensor_read(in_files[i], &t, err, sizeof err)) {
				fprintf(stderr, "%s: %s\n", in_files[i], err);
				goto out;
			}
			if (check_input(i, &t, in_files[i])) {
				ingot_tensor_free(&t);
				goto out;
			}
			if (t.bytes)
				memcpy(buf, t.data, t.bytes);
			ingot_tensor_free(&t);
			npy |= len > 4 && strcmp(in_files[i] + len - 4, ".npy") == 0;
		} else {
			fill_random(&M->inputs[i], buf);
		}
		inputs[i] = buf;
	}
	for (i = 0; i < M->num_outputs; i++) {
		outputs[i] = bases[n_bases] = alloc_exact(M->outputs[i].bytes);
		n_bases++;
		if (!outputs[i]) {
			fprintf(stderr, "%s: out of memory\n", argv[0]);
			goto out;
		}
	}

	if (bench) {
		double *t = (double *)malloc(sizeof(double) * (size_t)bench);
		if (!t)
			goto out;
		fill_garbage(ws, ws_bytes, 1);
		for (i = 0; i < 10 && rc == 0; i++)
			rc = run_model(inputs, outputs, ws, par, NULL);
		for (i = 0; i < bench && rc == 0; i++) {
			double t0 = now_us();
			rc = run_model(inputs, outputs, ws, par, prof_seconds ? prof_seconds + (size_t)i * PROF_N : NULL);
			t[i] = now_us() - t0;
		}
		if (rc == 0) {
			if (prof_seconds && report_profile(stdout, prof_svg, prof_seconds, bench, argv[0]))
				rc = 1;
			qsort(t, (size_t)bench, sizeof *t, cmp_double);
			printf("median_us=%.2f p10_us=%.2f p90_us=%.2f runs=%d\n", t[bench / 2],
			       t[bench / 10], t[(bench * 9) / 10 < bench ? (bench * 9) / 10 : bench - 1], bench);
		}
		free(t);
	} else {
		rc = run_twice(argv[0], inputs, outputs, ws, ws_bytes, par, prof_seconds);
		if (rc == 0 && prof_seconds && report_profile(stderr, prof_svg, prof_seconds, 1, argv[0]))
			rc = 1;
		for (i = 0; i < M->num_outputs && rc == 0; i++) {
			ingot_tensor t;
			char path[4096];
			int k;
			memset(&t, 0, sizeof t);
			strncpy(t.name, M->outputs[i].name, sizeof t.name - 1);
			t.dtype = M->outputs[i].dtype;
			t.rank = M->out_dims(ws, i, t.dims);   /* data-dependent sizes too */
			t.bytes = ingot_dtype_size(t.dtype);
			for (k = 0; k < t.rank; k++)
				t.bytes *= (size_t)t.dims[k];
			t.data = outputs[i];
			snprintf(path, sizeof path, "%s/output_%d.%s", out_dir, i, npy ? "npy" : "pb");
			if (ingot_tensor_write(path, &t, err, sizeof err)) {
				fprintf(stderr, "%s: %s\n", path, err);
				rc = -1;
			}
		}
	}
	if (rc > 0)
		fprintf(stderr, "%s: run failed with code %d (%s)\n", argv[0], rc,
		        rc == INGOT_ERANGE ? "an index input is out of range, a string result does not "
		                             "fit its slot, or a data-dependent size exceeds its bound" :
		        rc == INGOT_EINVAL ? "invalid argument" : "device error");
	status = rc == 0 ? 0 : 1;
out:
	for (i = 0; i < n_bases; i++)
		free(bases[i]);
	free(bases);
	free(inputs);
	free(outputs);
	free(ws);
	free(prof_seconds);
	if (par)
		M->par_destroy(par);
	if (dev)
		M->dev_close(dev);
	dev = NULL;
	return status;
}

#ifdef INGOT_RUNNER_EXTERN
int main(int argc, char **argv)
{
	return ingot_runner_main(ingot_runner_the_model, argc, argv);
}
#endif
