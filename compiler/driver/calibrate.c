/* calibrate.c — `--quantize int8 --calibrate DIR`: post-training quantization.
 *
 * The graph, imported and inferred, gets the float simplifications (quant_prepare),
 * then a plan (quant_plan: which nodes run in int8, which activations need a range).
 * Calibration runs an instrumented build of the fp32 model: the same graph with every
 * planned activation made an extra output, compiled for the host with the kernel
 * library of `ingot check` (its INGOT_CHECK_CACHE too) and linked with
 * runtime-stubs/ingot_calib.c, which runs it over every input set and writes min/max
 * and, for percentile, entropy and mse, 2048-bin histograms. The ranges give the
 * QuantizeLinear/DequantizeLinear pairs (quant_apply); fold_qdq then makes the
 * integer nodes. For the accuracy report, the quantized graph is built instrumented
 * the same way (the dequantized activations as extra outputs) and ingot_calib.c runs
 * both builds on the same inputs (calibrate_report.c reads what it measured).
 *
 * DIR holds the input sets: the check layout, DIR/test_data_set_N/input_K.pb (or
 * .npy), K in the model's input order; or, for a single-input model, a flat folder
 * of .pb/.npy files, one set each, in name order. Graph inputs feed no node that
 * needs a range of their own from the instrumented build: their statistics come
 * from the files. */
#include "driver.h"
#include "ingot_tensor_io.h"
#include "passes.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BINS 2048
#define QBINS 128                    /* the entropy method's quantized bins (ORT, TensorRT) */

/* One tensor's statistics. */
typedef struct Stat {
	char *name;
	double lo, hi;
	double *hist;                    /* 2*BINS: x over [-A, A], then |x| over [0, A]; or NULL */
} Stat;

typedef struct Calib {
	const Options *o;
	Graph *g;
	DiagSink *d;
	char work[4096];
	char **paths;                    /* n_sets * n_in absolute paths */
	int n_sets, n_in;
	Stat *stats;
	int n_stats;
	char lib[4200];
} Calib;

static int fail(DiagSink *d, const char *file, const char *fmt, const char *a, const char *b)
{
	DiagLoc l = diag_loc_file(file);
	diag_report(d, DIAG_ERROR, DC_GENERIC, &l, fmt, a, b);
	return EXIT_BAD_INPUT;
}

static bool has_ext(const char *s, const char *ext)
{
	size_t n = strlen(s), e = strlen(ext);
	return n > e && strcmp(s + n - e, ext) == 0;
}

/* Sorted entries of dir that are test_data_set_* folders (sets) or .pb/.npy files. */
static int list_entries(const char *dir, bool sets, char ***out)
{
	DIR *dd = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	int n = 0, cap = 0;
	if (!dd)
		return 0;
	while ((e = readdir(dd))) {
		char p[4400];
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		if (e->d_name[0] == '.')
			continue;
		if (sets ? strncmp(e->d_name, "test_data_set_", 14) == 0 && driver_is_dir(p)
		         : (has_ext(e->d_name, ".pb") || has_ext(e->d_name, ".npy")) && driver_is_file(p))
			*VEC_PUSH(v, n, cap) = strdup(p);
	}
	closedir(dd);
	if (n)
		qsort(v, (size_t)n, sizeof *v, driver_cmp_str);
	*out = v;
	return n;
}

/* The input files of every set, checked against the model's inputs. */
static int find_sets(Calib *c)
{
	const Options *o = c->o;
	const Region *main = &c->g->regions[0];
	char dir[4096], **ents;
	int n, cap = 0, n_paths = 0;
	c->n_in = main->n_inputs;
	if (!driver_is_dir(o->calibrate))
		return fail(c->d, o->calibrate, "--calibrate: no such directory%s%s", "", "");
	if (!realpath(o->calibrate, dir))
		snprintf(dir, sizeof dir, "%s", o->calibrate);
	n = list_entries(dir, true, &ents);
	if (n) {
		for (int s = 0; s < n; s++) {
			for (int k = 0; k < c->n_in; k++) {
				char p[4500];
				snprintf(p, sizeof p, "%s/input_%d.pb", ents[s], k);
				if (!driver_is_file(p))
					snprintf(p, sizeof p, "%s/input_%d.npy", ents[s], k);
				if (!driver_is_file(p)) {
					fail(c->d, ents[s], "--calibrate: the set has no input_%s.pb or .npy%s",
					     (snprintf(dir, sizeof dir, "%d", k), dir), "");
					return EXIT_BAD_INPUT;
				}
				*VEC_PUSH(c->paths, n_paths, cap) = strdup(p);
			}
			free(ents[s]);
		}
		free(ents);
		c->n_sets = n;
	} else {
		n = list_entries(dir, false, &ents);
		if (n && c->n_in != 1) {
			for (int s = 0; s < n; s++)
				free(ents[s]);
			free(ents);
			return fail(c->d, o->calibrate, "--calibrate: a flat folder of .pb/.npy files is for "
			            "single-input models; this one has more: use test_data_set_N/input_K.pb%s%s",
			            "", "");
		}
		c->paths = ents;
		c->n_sets = n;
	}
	if (c->n_sets == 0)
		return fail(c->d, o->calibrate, "--calibrate: no input sets (test_data_set_N/input_K.pb, "
		            "or .pb/.npy files for a single-input model)%s%s", "", "");
	/* every file must be what the model takes */
	for (int i = 0; i < c->n_sets * c->n_in; i++) {
		const Type *want = &c->g->values[main->inputs[i % c->n_in]].type;
		ingot_tensor t;
		char err[512], ws[256], gs[256];
		if (ingot_tensor_read(c->paths[i], &t, err, sizeof err))
			return fail(c->d, c->paths[i], "--calibrate: %s%s", err, "");
		bool same = (int)t.dtype == (int)want->dtype && t.rank == want->rank;
		for (int k = 0; same && k < t.rank; k++)
			same = t.dims[k] == want->dims[k];
		if (!same) {
			Type tt = type_make((DType)t.dtype, t.rank, t.dims);
			type_format(&tt, gs, sizeof gs);
			type_format(want, ws, sizeof ws);
			ingot_tensor_free(&t);
			return fail(c->d, c->paths[i], "--calibrate: the model's input takes %s, this file is %s",
			            ws, gs);
		}
		ingot_tensor_free(&t);
	}
	return EXIT_OK;
}

static Stat *stat_find(Calib *c, const char *name)
{
	for (int i = 0; i < c->n_stats; i++)
		if (strcmp(c->stats[i].name, name) == 0)
			return &c->stats[i];
	return NULL;
}

static bool wants_hist(const Options *o)
{
	return o->calibration != CALIB_MINMAX;
}

/* The graph inputs' statistics, from the files (two passes with a histogram). */
static void input_stats(Calib *c)
{
	const Region *main = &c->g->regions[0];
	int cap = c->n_stats;
	for (int k = 0; k < c->n_in; k++) {
		const Value *v = &c->g->values[main->inputs[k]];
		if (v->type.dtype != DT_F32)
			continue;
		Stat *s = VEC_PUSH(c->stats, c->n_stats, cap);
		memset(s, 0, sizeof *s);
		s->name = strdup(v->name);
		s->lo = INFINITY;
		s->hi = -INFINITY;
		if (wants_hist(c->o) && !(s->hist = calloc(2 * BINS, sizeof *s->hist)))
			die("out of memory");
		for (int pass = 0; pass < (s->hist ? 2 : 1); pass++)
			for (int i = 0; i < c->n_sets; i++) {
				ingot_tensor t;
				char err[256];
				if (ingot_tensor_read(c->paths[i * c->n_in + k], &t, err, sizeof err))
					continue;
				const float *x = t.data;
				double a = fmax(fabs(s->lo), fabs(s->hi));
				for (size_t e = 0; e < t.bytes / sizeof(float); e++) {
					double f = x[e];
					if (!isfinite(f))
						continue;
					if (pass == 0) {
						s->lo = f < s->lo ? f : s->lo;
						s->hi = f > s->hi ? f : s->hi;
					} else if (a > 0) {
						int b = (int)((f + a) / (2 * a) * BINS);
						s->hist[b < 0 ? 0 : b >= BINS ? BINS - 1 : b] += 1;
						b = (int)(fabs(f) / a * BINS);
						s->hist[BINS + (b >= BINS ? BINS - 1 : b)] += 1;
					}
				}
				ingot_tensor_free(&t);
			}
		if (s->lo > s->hi)
			s->lo = s->hi = 0;
	}
}

/* Reads what calib --stats wrote. */
static int read_stats(Calib *c, const char *path, bool hist)
{
	FILE *f = fopen(path, "r");
	char name[1024];
	double lo, hi, cnt;
	int cap = c->n_stats;
	if (!f)
		return -1;
	while (fscanf(f, "%1023s %lf %lf %lf", name, &lo, &hi, &cnt) == 4) {
		Stat *s = VEC_PUSH(c->stats, c->n_stats, cap);
		memset(s, 0, sizeof *s);
		s->name = strdup(name);
		s->lo = lo;
		s->hi = hi;
		if (hist) {
			if (!(s->hist = malloc(2 * BINS * sizeof *s->hist)))
				die("out of memory");
			for (int b = 0; b < 2 * BINS; b++)
				if (fscanf(f, "%lf", &s->hist[b]) != 1) {
					fclose(f);
					return -1;
				}
		}
	}
	fclose(f);
	return 0;
}

/* ---- ranges from statistics ---- */

static void range_percentile(const Stat *s, double p, double *lo, double *hi)
{
	double total = 0, run = 0, a = fmax(fabs(s->lo), fabs(s->hi)), w = 2 * a / BINS;
	int b, left = 0, right = BINS - 1;
	for (b = 0; b < BINS; b++)
		total += s->hist[b];
	for (b = 0; b < BINS; b++) {
		run += s->hist[b];
		if (run >= total * (1 - p / 100) && run > 0) {
			left = b;
			break;
		}
	}
	run = 0;
	for (b = BINS - 1; b >= 0; b--) {
		run += s->hist[b];
		if (run >= total * (1 - p / 100) && run > 0) {
			right = b;
			break;
		}
	}
	*lo = fmax(s->lo, -a + w * left);
	*hi = fmin(s->hi, -a + w * (right + 1));
}

/* TensorRT's KL threshold on the |x| histogram (ORT's entropy calibrator). */
static void range_entropy(const Stat *s, double *lo, double *hi)
{
	const double *h = s->hist + BINS;
	double a = fmax(fabs(s->lo), fabs(s->hi)), best = INFINITY;
	int best_i = BINS;
	double *p = malloc(BINS * sizeof *p), *q = malloc(BINS * sizeof *q);
	if (!p || !q)
		die("out of memory");
	for (int i = QBINS; i <= BINS; i += 4) {
		double outl = 0, sp = 0, sq = 0, kl = 0;
		for (int b = i; b < BINS; b++)
			outl += h[b];
		memcpy(p, h, (size_t)i * sizeof *p);
		p[i - 1] += outl;
		/* Q: the first i bins merged into QBINS, each spread back over its nonzero bins */
		for (int j = 0; j < QBINS; j++) {
			int b0 = j * i / QBINS, b1 = (j + 1) * i / QBINS, nz = 0;
			double sum = 0;
			for (int b = b0; b < b1; b++) {
				sum += h[b];
				nz += h[b] > 0;
			}
			for (int b = b0; b < b1; b++)
				q[b] = h[b] > 0 ? sum / nz : 0;
		}
		for (int b = 0; b < i; b++) {
			sp += p[b];
			sq += q[b];
		}
		if (sp <= 0 || sq <= 0)
			continue;
		for (int b = 0; b < i; b++)
			if (p[b] > 0)
				kl += p[b] / sp * log((p[b] / sp) / (q[b] > 0 ? q[b] / sq : 1e-12));
		if (kl < best) {
			best = kl;
			best_i = i;
		}
	}
	free(p);
	free(q);
	double t = a * best_i / BINS;
	*lo = fmax(s->lo, -t);
	*hi = fmin(s->hi, t);
}

/* The clip range (min, max scaled by alpha) of least quantization error over the
 * histogram's bin centers. */
static void range_mse(const QuantConfig *qc, const Stat *s, double *lo, double *hi)
{
	double a = fmax(fabs(s->lo), fabs(s->hi)), w = 2 * a / BINS, best = INFINITY;
	*lo = s->lo;
	*hi = s->hi;
	for (int k = 100; k >= 20; k--) {
		double alpha = k / 100.0, err = 0;
		float scale;
		int32_t zp;
		quant_params(qc, (float)(s->lo * alpha), (float)(s->hi * alpha), &scale, &zp);
		double qmin = qc->s8_acts ? -128 : 0, qmax = qc->s8_acts ? 127 : 255;
		for (int b = 0; b < BINS; b++) {
			if (s->hist[b] <= 0)
				continue;
			double x = -a + w * (b + 0.5), qv = rint(x / scale) + zp;
			qv = qv < qmin ? qmin : qv > qmax ? qmax : qv;
			double e = x - (qv - zp) * scale;
			err += s->hist[b] * e * e;
		}
		if (err < best) {
			best = err;
			*lo = s->lo * alpha;
			*hi = s->hi * alpha;
		}
	}
}

static void stat_range(const Options *o, const QuantConfig *qc, const Stat *s, float *lo, float *hi)
{
	double l = s->lo, h = s->hi;
	bool hist = s->hist && fmax(fabs(s->lo), fabs(s->hi)) > 0;
	if (hist && o->calibration == CALIB_PERCENTILE)
		range_percentile(s, o->percentile, &l, &h);
	else if (hist && o->calibration == CALIB_ENTROPY)
		range_entropy(s, &l, &h);
	else if (hist && o->calibration == CALIB_MSE)
		range_mse(qc, s, &l, &h);
	*lo = (float)l;
	*hi = (float)h;
}

/* ---- the instrumented builds ---- */

/* The options of a build made here: the host, the default pipeline, weights as a
 * binary blob (fast to build), nothing printed or dumped. */
static Options nested(const Options *o, int stage, const QuantRanges *r)
{
	Options n = *o;
	n.qstage = stage;
	n.qranges = r;
	n.qreport = NULL;
	n.target = cg_target_lookup("host")->name;
	n.cpu = NULL;
	n.tuned_set = false;   /* the host's target, not the one --cpu / --target host tuned */
	n.host = false;
	n.cc = NULL;
	n.cflags = NULL;
	n.opt_level = 2;
	n.passes_set = false;
	n.n_passes = 0;
	n.n_disabled = 0;
	n.weights = WEIGHTS_INCBIN;
	n.weights_section = NULL;
	n.max_workspace = 0;
	n.dump_ir = NULL;
	n.dot = NULL;
	n.svg = NULL;
	n.svg_before = NULL;
	n.progress = NULL;
	n.print_ir_after_all = false;
	n.print_ir_after = NULL;
	n.profile = false;
	n.json = false;
	return n;
}

static int run_tool(Calib *c, const char **argv, const char *cwd, const char *what)
{
	char out[2048];
	int rc = proc_run(argv, cwd, 1800, out, sizeof out);
	if (rc) {
		char *nl = strchr(out, '\n');
		if (nl)
			*nl = 0;
		DiagLoc l = diag_loc_file(c->o->model);
		diag_report(c->d, DIAG_ERROR, DC_GENERIC, &l, "calibration: %s failed (exit %d): %s", what, rc, out);
		return -1;
	}
	return 0;
}

/* Emits the instrumented build `name` (tag f or q) into work/name and compiles it to
 * objects: its unit exports the runner table as ingot_calib_model_<tag>. */
static int build_model(Calib *c, const Options *bo, const char *name, char tag)
{
	const Target *t = cg_target_lookup(bo->target);
	char dir[4200], unit[256], def[128], *flags[64];
	const char *argv[96];
	Graph g;
	DiagSink d2;
	int rc;
	snprintf(dir, sizeof dir, "%s/%s", c->work, name);
	diag_sink_init(&d2, NULL);
	rc = driver_build_graph(bo, &g, &d2);
	if (!rc)
		rc = driver_emit(bo, &g, name, dir, EMIT_C | EMIT_EXE, &d2);
	ir_graph_free(&g);
	for (int i = 0; rc && i < d2.n_items; i++)
		if (d2.items[i].sev == DIAG_ERROR) {
			DiagLoc l = diag_loc_file(c->o->model);
			diag_report(c->d, DIAG_ERROR, d2.items[i].code, &l, "calibration build: %s", d2.items[i].text);
			break;
		}
	diag_sink_free(&d2);
	if (rc)
		return -1;
	int n = snprintf(unit, sizeof unit, "/* calibration: %s.c with its runner table */\n"
	                 "#include \"%s.c\"\n#include \"%s_main.c\"\n", name, name, name);
	if (cg_write_bytes(dir, "unit.c", unit, (size_t)n, c->d))
		return -1;
	int n_flags = proc_split(t->cflags, flags, 60);
	for (int pass = 0; pass < 2 && !rc; pass++) {
		int argc = 0;
		argv[argc++] = t->cc;
		for (int k = 0; k < n_flags; k++)
			argv[argc++] = flags[k];
		argv[argc++] = "-DINGOT_EXTERN_KERNELS";
		if (pass == 0) {
			snprintf(def, sizeof def, "-Dingot_runner_the_model=ingot_calib_model_%c", tag);
			argv[argc++] = "-DINGOT_RUNNER_EXTERN";
			argv[argc++] = def;
			argv[argc++] = "-c";
			argv[argc++] = "unit.c";
			argv[argc++] = "-o";
			argv[argc++] = "unit.o";
		} else {
			snprintf(unit, sizeof unit, "%s_weights.S", name);
			argv[argc++] = "-Wa,-I.";
			argv[argc++] = "-c";
			argv[argc++] = unit;
			argv[argc++] = "-o";
			argv[argc++] = "weights.o";
		}
		argv[argc] = NULL;
		rc = run_tool(c, argv, dir, "compiling the instrumented model");
	}
	for (int k = 0; k < n_flags; k++)
		free(flags[k]);
	return rc;
}

/* Links ingot_calib.c with the built models and runs it in mode (--stats/--compare). */
/* The report runs the int8 build on the first REPORT_SETS sets only: until the
 * integer SIMD kernels land, its QLinearConv is the scalar reference kernel. */
#define REPORT_SETS 10

static int run_calib(Calib *c, bool compare, const char *result, bool hist)
{
	const Target *t = cg_target_lookup("host");
	char *flags[64], list[4300], exe[4300];
	const char *argv[96];
	int argc = 0, rc;
	snprintf(list, sizeof list, "%s/sets.txt", c->work);
	FILE *f = fopen(list, "w");
	if (!f)
		return fail(c->d, list, "cannot write: %s%s", strerror(errno), "") ? -1 : -1;
	int n_sets = compare && c->n_sets > REPORT_SETS ? REPORT_SETS : c->n_sets;
	for (int i = 0; i < n_sets * c->n_in; i++) {
		char abs[4096];
		fprintf(f, "%s\n", realpath(c->paths[i], abs) ? abs : c->paths[i]);
	}
	fclose(f);
	snprintf(exe, sizeof exe, "calib_%s", compare ? "compare" : "stats");
	int n_flags = proc_split(t->cflags, flags, 60);
	argv[argc++] = t->cc;
	for (int k = 0; k < n_flags; k++)
		argv[argc++] = flags[k];
	if (compare)
		argv[argc++] = "-DINGOT_CALIB_COMPARE";
	argv[argc++] = "-o";
	argv[argc++] = exe;
	argv[argc++] = "ingot_calib.c";
	argv[argc++] = "calf/unit.o";
	argv[argc++] = "calf/weights.o";
	if (compare) {
		argv[argc++] = "calq/unit.o";
		argv[argc++] = "calq/weights.o";
	}
	argv[argc++] = c->lib;
	argv[argc++] = "-lm";
	argv[argc++] = "-pthread";
	argv[argc] = NULL;
	rc = run_tool(c, argv, c->work, "linking the calibration program");
	for (int k = 0; k < n_flags; k++)
		free(flags[k]);
	if (rc)
		return -1;
	char per[16], path[4300];
	snprintf(per, sizeof per, "%d", c->n_in);
	snprintf(path, sizeof path, "./%s", exe);
	argc = 0;
	argv[argc++] = path;
	argv[argc++] = "--list";
	argv[argc++] = list;
	argv[argc++] = "--per-set";
	argv[argc++] = per;
	argv[argc++] = compare ? "--compare" : "--stats";
	argv[argc++] = result;
	if (hist)
		argv[argc++] = "--hist";
	argv[argc] = NULL;
	return run_tool(c, argv, c->work, compare ? "running the report's builds" : "running the instrumented model");
}

/* The planned values as extra graph outputs (graph inputs: their files have them). */
static void add_outputs(Graph *g, const QuantPlan *p, const ValueId *vals, int n)
{
	for (int i = 0; i < n; i++) {
		ValueId v = vals[i];
		if (v == IR_NONE || g->values[v].is_output || g->values[v].is_input || g->values[v].is_const)
			continue;
		ir_region_add_output(g, 0, v);
		g->values[v].is_output = true;
	}
	(void)p;
}

/* The values to instrument: every planned activation and quantized output. */
static int planned_values(const QuantPlan *p, ValueId **out)
{
	int n = 0;
	*out = malloc((size_t)(p->n_values + p->n_nodes + 1) * sizeof **out);
	if (!*out)
		die("out of memory");
	for (ValueId v = 0; v < p->n_values; v++)
		if (p->range_of[v] != IR_NONE)
			(*out)[n++] = v;
	return n;
}

static int prepare_and_plan(const Options *o, Graph *g, DiagSink *d, QuantPlan *plan)
{
	PassCtx ctx;
	memset(&ctx, 0, sizeof ctx);
	ctx.diags = d;
	ctx.opt_level = 2;
	if (quant_prepare(g, &ctx))
		return -1;
	quant_plan(g, o->keep_float, o->n_keep_float, plan);
	return 0;
}

/* Applies the ranges (by name) of r to the plan's range values. */
static int apply_ranges(const Options *o, Graph *g, const QuantPlan *plan, const QuantRanges *r, DiagSink *d)
{
	QuantConfig qc = { o->s8_acts, o->reduce_range };
	float *lo = calloc((size_t)plan->n_values + 1, sizeof *lo), *hi = calloc((size_t)plan->n_values + 1, sizeof *hi);
	if (!lo || !hi)
		die("out of memory");
	for (ValueId v = 0; v < plan->n_values; v++) {
		if (plan->range_of[v] != v)
			continue;
		for (int k = 0; k < r->n; k++)
			if (strcmp(r->names[k], g->values[v].name) == 0) {
				lo[v] = r->lo[k];
				hi[v] = r->hi[k];
			}
	}
	int rc = quant_apply(g, &qc, plan, lo, hi, d);
	free(lo);
	free(hi);
	return rc;
}

static void rm_rf(const char *path)
{
	const char *argv[] = { "rm", "-rf", path, NULL };
	char out[256];
	proc_run(argv, NULL, 120, out, sizeof out);
}

static void report_plan(QuantReport *rep, Graph *g, const QuantPlan *p)
{
	const Region *main = &g->regions[0];
	int cap_n = 0, cap_f = 0, cap_o = 0;
	for (int i = 0; i < main->n_outputs; i++) {
		QuantReportOutput *o = VEC_PUSH(rep->outputs, rep->n_outputs, cap_o);
		memset(o, 0, sizeof *o);
		o->name = strdup(g->values[main->outputs[i]].name);
	}
	for (int i = 0; i < main->n_nodes; i++) {
		NodeId id = main->nodes[i];
		if (g->nodes[id].dead || id >= p->n_nodes)
			continue;
		if (p->why_float[id]) {
			QuantReportFloat *f = VEC_PUSH(rep->floats, rep->n_floats, cap_f);
			f->node = strdup(ir_node_name(g, id));
			f->op = strdup(ir_op_name(g->nodes[id].op));
			f->why = strdup(p->why_float[id]);
			continue;
		}
		ValueId v = p->out_of[id];
		bool seen = false;
		for (int k = 0; k < rep->n_nodes && !seen; k++)
			seen = strcmp(rep->nodes[k].value, g->values[v == IR_NONE ? 0 : v].name) == 0;
		if (v == IR_NONE || seen)
			continue;
		QuantReportNode *n = VEC_PUSH(rep->nodes, rep->n_nodes, cap_n);
		memset(n, 0, sizeof *n);
		n->node = strdup(ir_node_name(g, id));
		n->op = strdup(ir_op_name(g->nodes[id].op));
		n->value = strdup(g->values[v].name);
	}
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *method_name(CalibMethod m)
{
	static const char *const names[] = { "minmax", "percentile", "entropy", "mse" };
	return names[m];
}

static int calibrate(const Options *o, Graph *g, DiagSink *d, QuantPlan *plan)
{
	Calib c;
	QuantRanges r = { 0 };
	QuantConfig qc = { o->s8_acts, o->reduce_range };
	const char *tmp = getenv("TMPDIR");
	double t0 = now_s();
	int rc = EXIT_BAD_INPUT;
	memset(&c, 0, sizeof c);
	c.o = o;
	c.g = g;
	c.d = d;
	if ((rc = find_sets(&c)))
		goto out;
	rc = EXIT_BAD_INPUT;
	snprintf(c.work, sizeof c.work, "%s/ingot-calib-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(c.work)) {
		fail(d, c.work, "cannot create a work directory: %s%s", strerror(errno), "");
		goto out;
	}
	/* the kernel library is the same for every model: kept in ingot check's cache,
	 * by default in the user's cache folder */
	const char *home = getenv("HOME"), *xdg = getenv("XDG_CACHE_HOME");
	if (!getenv("INGOT_CHECK_CACHE") && ((xdg && *xdg) || (home && *home))) {
		char cache[4200];
		snprintf(cache, sizeof cache, "%s%s/ingot", xdg && *xdg ? xdg : home, xdg && *xdg ? "" : "/.cache");
		setenv("INGOT_CHECK_CACHE", cache, 0);
	}
	Options fo = nested(o, QSTAGE_F32, NULL);
	if (!driver_kernels_lib(&fo, c.work, c.lib, sizeof c.lib)) {
		fail(d, o->model, "calibration: building the kernel library failed%s%s", "", "");
		goto out;
	}
	if (build_model(&c, &fo, "calf", 'f'))
		goto out;
	char path[4300];
	snprintf(path, sizeof path, "%s/stats.txt", c.work);
	if (run_calib(&c, false, path, wants_hist(o)))
		goto out;
	if (read_stats(&c, path, wants_hist(o))) {
		fail(d, path, "calibration: cannot read the statistics%s%s", "", "");
		goto out;
	}
	input_stats(&c);
	double t_calib = now_s() - t0;
	/* the ranges, by name, of the plan's range values */
	r.names = calloc((size_t)plan->n_values + 1, sizeof *r.names);
	r.lo = calloc((size_t)plan->n_values + 1, sizeof *r.lo);
	r.hi = calloc((size_t)plan->n_values + 1, sizeof *r.hi);
	if (!r.names || !r.lo || !r.hi)
		die("out of memory");
	for (ValueId v = 0; v < plan->n_values; v++) {
		if (plan->range_of[v] != v)
			continue;
		Stat *s = stat_find(&c, g->values[v].name);
		if (!s) {
			fail(d, o->model, "calibration: no statistics for '%s'%s", g->values[v].name, "");
			goto out;
		}
		r.names[r.n] = s->name;
		stat_range(o, &qc, s, &r.lo[r.n], &r.hi[r.n]);
		r.n++;
	}
	QuantReport *rep = o->qreport;
	if (rep)
		report_plan(rep, g, plan);
	if (apply_ranges(o, g, plan, &r, d))
		goto out;
	if (rep) {
		Options qo = nested(o, QSTAGE_INT8, &r);
		snprintf(path, sizeof path, "%s/compare.txt", c.work);
		if (build_model(&c, &qo, "calq", 'q') || run_calib(&c, true, path, false))
			goto out;
		if (quant_report_read(rep, path)) {
			fail(d, path, "calibration: cannot read the report's measurements%s%s", "", "");
			goto out;
		}
		rep->method = method_name(o->calibration);
		rep->percentile = o->calibration == CALIB_PERCENTILE ? o->percentile : 0;
		rep->s8_acts = o->s8_acts;
		rep->reduce_range = o->reduce_range;
		rep->n_sets = c.n_sets;
		rep->n_report_sets = c.n_sets < REPORT_SETS ? c.n_sets : REPORT_SETS;
		rep->calib_seconds = t_calib;
		rep->seconds = now_s() - t0;
		rep->done = true;
	}
	rc = EXIT_OK;
out:
	if (c.work[0] && !getenv("INGOT_KEEP"))
		rm_rf(c.work);
	for (int i = 0; i < c.n_sets * c.n_in; i++)
		free(c.paths[i]);
	free(c.paths);
	for (int i = 0; i < c.n_stats; i++) {
		free(c.stats[i].name);
		free(c.stats[i].hist);
	}
	free(c.stats);
	free(r.names);
	free(r.lo);
	free(r.hi);
	return rc;
}

int driver_quantize_graph(const Options *o, Graph *g, DiagSink *d)
{
	QuantPlan plan;
	ValueId *vals = NULL;
	int rc = EXIT_OK, n;
	if (prepare_and_plan(o, g, d, &plan))
		return driver_exit_code(d);
	n = planned_values(&plan, &vals);
	switch (o->qstage) {
	case QSTAGE_F32:
		add_outputs(g, &plan, vals, n);
		break;
	case QSTAGE_INT8:
		if (apply_ranges(o, g, &plan, o->qranges, d))
			rc = driver_exit_code(d);
		else
			add_outputs(g, &plan, vals, n);   /* the pairs' dequantized outputs keep the names */
		break;
	default:
		/* a --keep-float entry must name something */
		for (int k = 0; k < o->n_keep_float; k++) {
			bool found = false;
			const Region *main = &g->regions[0];
			for (int i = 0; i < main->n_nodes && !found; i++)
				found = !g->nodes[main->nodes[i]].dead &&
				        quant_keep_matches(g, main->nodes[i], &o->keep_float[k], 1);
			if (!found && ir_op_lookup(o->keep_float[k]) == OP_COUNT) {
				DiagLoc l = diag_loc_file(o->model);
				diag_report(d, DIAG_ERROR, DC_USAGE, &l,
				            "--keep-float '%s' names no node and no op type of the model", o->keep_float[k]);
				rc = EXIT_USAGE;
			}
		}
		if (!rc)
			rc = calibrate(o, g, d, &plan);
	}
	free(vals);
	quant_plan_free(&plan);
	return rc;
}
