/* check.c — `ingot check`: compiles each test directory in the ONNX backend-test
 * layout (model.onnx, test_data_set_N/input_J.pb, output_J.pb), builds the runner,
 * runs every data set (through --runner for cross builds) and compares outputs:
 * floats |a-b| <= atol + rtol*|b| with NaN equal to NaN, integers and bools exactly,
 * dtype and shape must match. One line per directory, then the four counts.
 *
 * Each test runs in a forked child (a compiler crash becomes an ERROR line, -j runs
 * tests in parallel). The kernels are compiled once per run into a library that
 * every test links (-DINGOT_EXTERN_KERNELS), so a test compiles only its model.c.
 * Symbolic input dims are fixed from data set 0; graph inputs that must be known at
 * compile time (a Reshape's shape, Slice's starts...) are bound to the data set's
 * values with --bind. */
#include "driver.h"
#include "ingot_tensor_io.h"
#include "ukgen.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { R_PASS, R_FAIL, R_UNSUPPORTED, R_ERROR };
static const char *const result_names[] = { "PASS", "FAIL", "UNSUPPORTED", "ERROR" };

#define MAX_IO 64
#define MAX_SETS 16

typedef struct DataSet {
	char inputs[MAX_IO][4096];
	int n_inputs;
	char outputs[MAX_IO][4096];
	int n_outputs;
} DataSet;

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of entries of dir starting with prefix (malloc'd). */
static int list_dir(const char *dir, const char *prefix, char **names, int max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max)
		if (e->d_name[0] != '.' && strncmp(e->d_name, prefix, strlen(prefix)) == 0)
			names[n++] = strdup(e->d_name);
	closedir(d);
	qsort(names, (size_t)n, sizeof *names, cmp_str);
	return n;
}

static int load_sets(const char *test_dir, DataSet *sets, int max)
{
	char *names[MAX_SETS], dir[4096];
	int n, used = 0;
	/* absolute paths: the runner executes in its own directory */
	if (!realpath(test_dir, dir))
		snprintf(dir, sizeof dir, "%s", test_dir);
	n = list_dir(dir, "test_data_set_", names, MAX_SETS);
	for (int i = 0; i < n; i++) {
		DataSet *s = &sets[used];
		memset(s, 0, sizeof *s);
		for (int k = 0; k < MAX_IO; k++) {
			snprintf(s->inputs[k], sizeof s->inputs[k], "%s/%s/input_%d.pb", dir, names[i], k);
			if (!is_file(s->inputs[k]))
				break;
			s->n_inputs++;
		}
		for (int k = 0; k < MAX_IO; k++) {
			snprintf(s->outputs[k], sizeof s->outputs[k], "%s/%s/output_%d.pb", dir, names[i], k);
			if (!is_file(s->outputs[k]))
				break;
			s->n_outputs++;
		}
		if (used < max)
			used++;
		free(names[i]);
	}
	return used;
}

static void read_tolerance(const char *dir, double *rtol, double *atol)
{
	char path[4096], key[32];
	double v;
	FILE *f;
	snprintf(path, sizeof path, "%s/tolerance", dir);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fscanf(f, " %31[a-z] = %lf", key, &v) == 2) {
		if (strcmp(key, "rtol") == 0)
			*rtol = v;
		else if (strcmp(key, "atol") == 0)
			*atol = v;
	}
	fclose(f);
}

static double elem_f64(const ingot_tensor *t, size_t i, bool *is_float)
{
	const unsigned char *p = t->data;
	*is_float = true;
	switch (t->dtype) {
	case INGOT_DT_F32: { float v; memcpy(&v, p + 4 * i, 4); return v; }
	case INGOT_DT_F64: { double v; memcpy(&v, p + 8 * i, 8); return v; }
	case INGOT_DT_F16: { uint16_t v; memcpy(&v, p + 2 * i, 2); return ingot_f16_to_f32(v); }
	case INGOT_DT_BF16: { uint16_t v; memcpy(&v, p + 2 * i, 2); return ingot_bf16_to_f32(v); }
	default: *is_float = false; return 0;
	}
}

/* Compares actual with expected; writes the first difference into why. */
static int compare(const ingot_tensor *got, const ingot_tensor *want, double rtol, double atol,
                   char *why, size_t cap)
{
	size_t es = ingot_dtype_size(want->dtype), n;
	if (got->dtype != want->dtype) {
		snprintf(why, cap, "dtype %d, expected %d", got->dtype, want->dtype);
		return -1;
	}
	bool same = got->rank == want->rank;
	for (int k = 0; same && k < want->rank; k++)
		same = got->dims[k] == want->dims[k];
	if (!same) {
		char a[128] = "", b[128] = "";
		for (int k = 0; k < got->rank; k++)
			snprintf(a + strlen(a), sizeof a - strlen(a), k ? ",%lld" : "%lld", (long long)got->dims[k]);
		for (int k = 0; k < want->rank; k++)
			snprintf(b + strlen(b), sizeof b - strlen(b), k ? ",%lld" : "%lld", (long long)want->dims[k]);
		snprintf(why, cap, "shape [%s], expected [%s]", a, b);
		return -1;
	}
	if (es == 0 || got->bytes != want->bytes) {
		snprintf(why, cap, "%zu bytes, expected %zu", got->bytes, want->bytes);
		return -1;
	}
	n = want->bytes / es;
	if (want->dtype == INGOT_DT_STRING) {     /* slots: compare up to the NUL */
		for (size_t i = 0; i < n; i++) {
			const char *a = (const char *)got->data + i * es, *b = (const char *)want->data + i * es;
			if (strncmp(a, b, es) != 0) {
				snprintf(why, cap, "element %zu: got \"%.*s\", expected \"%.*s\"", i,
				         (int)strnlen(a, es), a, (int)strnlen(b, es), b);
				return -1;
			}
		}
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		bool fl;
		double a = elem_f64(got, i, &fl), b = elem_f64(want, i, &fl);
		if (fl) {
			if (isnan(a) && isnan(b))
				continue;
			if (isinf(b) && a == b)
				continue;
			if (!(fabs(a - b) <= atol + rtol * fabs(b))) {
				snprintf(why, cap, "element %zu: got %.9g, expected %.9g", i, a, b);
				return -1;
			}
		} else if (memcmp((const char *)got->data + i * es, (const char *)want->data + i * es, es)) {
			long long x = 0, y = 0;
			memcpy(&x, (const char *)got->data + i * es, es < 8 ? es : 8);
			memcpy(&y, (const char *)want->data + i * es, es < 8 ? es : 8);
			snprintf(why, cap, "element %zu: got %lld, expected %lld (raw)", i, x, y);
			return -1;
		}
	}
	return 0;
}

/* Graph inputs whose values flow into a slot that must be a compile-time constant
 * (a shape, axes, pads...). Shape and Size only look at their input's shape, so the
 * walk stops there. */
static void inputs_needing_const(Graph *g, bool *need)
{
	const Region *main = &g->regions[0];
	bool *reach = calloc((size_t)g->n_values + 1, sizeof *reach);
	if (!reach)
		die("out of memory");
	for (int i = 0; i < main->n_inputs; i++) {
		need[i] = false;
		memset(reach, 0, (size_t)g->n_values * sizeof *reach);
		reach[main->inputs[i]] = true;
		for (int k = 0; k < main->n_nodes && !need[i]; k++) {
			const Node *n = &g->nodes[main->nodes[k]];
			unsigned mask = op_info(n->op)->const_inputs;
			bool any = false;
			if (n->op == OP_SHAPE || n->op == OP_SIZE)
				continue;
			for (int s = 0; s < n->n_in; s++) {
				if (n->in[s] == IR_NONE || !reach[n->in[s]])
					continue;
				any = true;
				if (s < 32 && (mask & (1u << s)))
					need[i] = true;
			}
			if (any)
				for (int s = 0; s < n->n_out; s++)
					if (n->out[s] != IR_NONE)
						reach[n->out[s]] = true;
		}
	}
	free(reach);
}

static void first_diag_line(const DiagSink *d, DiagCode only, char *buf, size_t cap)
{
	size_t len = 0;
	buf[0] = 0;
	for (int i = 0; i < d->n_items; i++) {
		const Diag *x = &d->items[i];
		if (x->sev != DIAG_ERROR || (only != DC_GENERIC && x->code != only))
			continue;
		const char *text = x->text;
		const char *colon = strstr(text, ".onnx: ");   /* drop the path: the line names the dir */
		if (colon)
			text = colon + 7;
		int n = snprintf(buf + len, cap - len, "%s%s", len ? "; " : "", text);
		if (n < 0 || (size_t)n >= cap - len)
			break;
		len += (size_t)n;
		if (only == DC_GENERIC)
			break;
	}
}

typedef struct CheckEnv {
	const Options *o;
	const char *work;            /* this test's work directory */
	const char *kernels_lib;     /* prebuilt kernels, or NULL */
} CheckEnv;

static int run_set(const CheckEnv *env, const char *dir, const DataSet *set, int set_idx,
                   const bool *bound, const Options *co, char *line, size_t cap)
{
	const Options *o = env->o;
	char out_dir[4096], res_dir[4096], exe[4096], out[2048];
	const char *argv[160];
	char *runner[64];
	int argc = 0, rc;
	DiagSink d;

	snprintf(out_dir, sizeof out_dir, "%s/set%d", env->work, set_idx);
	snprintf(res_dir, sizeof res_dir, "%s/set%d/out", env->work, set_idx);
	Options opts = *co;
	opts.out_dir = out_dir;
	opts.name = "model";
	opts.emit = EMIT_C | EMIT_EXE;
	diag_sink_init(&d, NULL);
	rc = driver_compile(&opts, &d);
	if (rc) {
		if (diag_has_code(&d, DC_UNSUPPORTED)) {
			first_diag_line(&d, DC_UNSUPPORTED, line, cap);
			diag_sink_free(&d);
			return R_UNSUPPORTED;
		}
		first_diag_line(&d, DC_GENERIC, line, cap);
		diag_sink_free(&d);
		return R_ERROR;
	}
	diag_sink_free(&d);

	if (cg_mkdir_p(res_dir, NULL) != 0) {
		snprintf(line, cap, "cannot create %s", res_dir);
		return R_ERROR;
	}
	snprintf(exe, sizeof exe, "%s/model", out_dir);
	if (o->runner)
		for (int k = 0, n = proc_split(o->runner, runner, 64); k < n; k++)
			argv[argc++] = runner[k];
	argv[argc++] = exe;
	for (int i = 0; i < set->n_inputs; i++) {
		if (bound[i])
			continue;
		argv[argc++] = "--input";
		argv[argc++] = set->inputs[i];
	}
	argv[argc++] = "--output-dir";
	argv[argc++] = res_dir;
	argv[argc] = NULL;
	rc = proc_run(argv, out_dir, o->timeout_s, out, sizeof out);
	if (rc != 0) {
		char *nl = strchr(out, '\n');
		if (nl)
			*nl = 0;
		if (rc == 124)
			snprintf(line, cap, "runner timed out after %d s", o->timeout_s);
		else
			snprintf(line, cap, "runner exit %d: %s", rc, out);
		return R_ERROR;
	}
	double rtol = o->rtol, atol = o->atol;
	read_tolerance(dir, &rtol, &atol);
	if (o->rtol_set)
		rtol = o->rtol;
	if (o->atol_set)
		atol = o->atol;
	for (int k = 0; k < set->n_outputs; k++) {
		char path[4200], err[512], why[512];
		ingot_tensor got, want;
		snprintf(path, sizeof path, "%s/output_%d.pb", res_dir, k);
		if (ingot_tensor_read(set->outputs[k], &want, err, sizeof err)) {
			snprintf(line, cap, "expected output %d: %s", k, err);
			return R_ERROR;
		}
		if (ingot_tensor_read(path, &got, err, sizeof err)) {
			snprintf(line, cap, "output %d missing: %s", k, err);
			ingot_tensor_free(&want);
			return R_FAIL;
		}
		rc = compare(&got, &want, rtol, atol, why, sizeof why);
		if (rc)
			snprintf(line, cap, "data set %d output %d '%s': %s", set_idx, k, want.name, why);
		ingot_tensor_free(&got);
		ingot_tensor_free(&want);
		if (rc)
			return R_FAIL;
	}
	return R_PASS;
}

static int run_test(const CheckEnv *env, const char *dir, char *line, size_t cap)
{
	const Options *o = env->o;
	char model[4096], err[512];
	DataSet *sets = calloc(MAX_SETS, sizeof *sets);
	int n_sets, result = R_PASS;
	bool bound[MAX_IO] = { 0 };
	static Options co;

	snprintf(model, sizeof model, "%s/model.onnx", dir);
	if (!sets)
		return R_ERROR;
	if (!is_file(model)) {
		snprintf(line, cap, "no model.onnx");
		free(sets);
		return R_ERROR;
	}
	n_sets = load_sets(dir, sets, MAX_SETS);
	if (n_sets == 0) {
		snprintf(line, cap, "no test_data_set_*");
		free(sets);
		return R_ERROR;
	}
	co = *o;
	co.model = model;
	/* fix input shapes from data set 0 */
	for (int i = 0; i < sets[0].n_inputs && co.n_shapes < MAX_LIST; i++) {
		ingot_tensor t;
		if (ingot_tensor_read(sets[0].inputs[i], &t, err, sizeof err)) {
			snprintf(line, cap, "input %d: %s", i, err);
			free(sets);
			return R_ERROR;
		}
		ShapeOverride *so = &co.shapes[co.n_shapes++];
		memset(so, 0, sizeof *so);
		so->name = strdup(t.name);
		so->rank = t.rank;
		memcpy(so->dims, t.dims, sizeof so->dims);
		ingot_tensor_free(&t);
	}
	/* which inputs must be bound to the data set's values */
	{
		Graph g;
		DiagSink d;
		FrontendOptions fo;
		memset(&fo, 0, sizeof fo);
		fo.shapes = co.shapes;
		fo.n_shapes = co.n_shapes;
		diag_sink_init(&d, NULL);
		ir_graph_init(&g, model);
		if (onnx_load(&g, model, &fo, &d) == 0) {
			bool need[MAX_IO] = { 0 };
			const Region *main = &g.regions[0];
			if (main->n_inputs <= MAX_IO)
				inputs_needing_const(&g, need);
			for (int i = 0; i < main->n_inputs && i < MAX_IO; i++)
				for (int k = 0; k < co.n_shapes; k++)
					if (need[i] && strcmp(co.shapes[k].name, g.values[main->inputs[i]].name) == 0)
						bound[k] = true;
		}
		ir_graph_free(&g);
		diag_sink_free(&d);
	}
	int base_binds = co.n_binds;
	for (int s = 0; s < n_sets && result == R_PASS; s++) {
		co.n_binds = base_binds;
		for (int i = 0; i < sets[s].n_inputs && i < co.n_shapes; i++)
			if (bound[i] && co.n_binds < MAX_LIST) {
				co.binds[co.n_binds].name = co.shapes[i].name;
				co.binds[co.n_binds++].spec = sets[s].inputs[i];
			}
		result = run_set(env, dir, &sets[s], s, bound, &co, line, cap);
	}
	free(sets);
	return result;
}

/* Compiles every embedded kernel file once into work/libingot_kernels.a. */
static const char *build_kernels_lib(const Options *o, const char *work, char *lib, size_t cap)
{
	const Target *t = cg_target_lookup(o->target);
	const char *cc = o->cc ? o->cc : t->cc;
	char kdir[4096], out[2048], objs[32][64], simd_dir[4200];
	char *flags[64];
	const char *argv[96];
	int n_flags, n_objs = 0, rc = 0;
	snprintf(kdir, sizeof kdir, "%s/kernels", work);
	snprintf(simd_dir, sizeof simd_dir, "%s/kernels/%s", work, t->simd[0] ? t->simd : ".");
	if (cg_mkdir_p(kdir, NULL) || cg_mkdir_p(simd_dir, NULL))
		return NULL;
	n_flags = proc_split(t->cflags, flags, 32);
	if (o->cpu)
		n_flags += proc_split(cg_target_cpu_flags(t, o->cpu), flags + n_flags, 8);
	if (o->cflags)
		n_flags += proc_split(o->cflags, flags + n_flags, 22);
	for (const IngotStub *s = ingot_stubs; s->path; s++) {
		const char *sub = strncmp(s->path, "kernels/", 8) == 0 ? strchr(s->path + 8, '/') : NULL;
		/* another target's SIMD folder is not needed here */
		if (sub && (!t->simd[0] || strncmp(s->path + 8, t->simd, (size_t)(sub - s->path - 8)) != 0))
			continue;
		if (cg_copy_stub(work, s->path, NULL)) {
			fprintf(stderr, "ingot check: cannot write %s/%s\n", work, s->path);
			return NULL;
		}
	}
	if (ukgen_write(t, work, NULL))
		return NULL;
	for (const IngotStub *s = ingot_stubs; s->path && !rc; s++) {
		size_t len = strlen(s->path);
		const char *sub = strchr(s->path + 8, '/');
		if (strncmp(s->path, "kernels/", 8) || strcmp(s->path + len - 2, ".c") || n_objs == 32)
			continue;
		/* a SIMD folder (kernels/neon/) only for its own targets */
		if (sub && (!t->simd[0] || strncmp(s->path + 8, t->simd, (size_t)(sub - s->path - 8)) != 0))
			continue;
		int argc = 0;
		snprintf(objs[n_objs], sizeof objs[0], "%.*s.o", (int)(len - 2), s->path);
		argv[argc++] = cc;
		for (int k = 0; k < n_flags; k++)
			argv[argc++] = flags[k];
		argv[argc++] = "-c";
		argv[argc++] = s->path;
		argv[argc++] = "-o";
		argv[argc++] = objs[n_objs++];
		argv[argc] = NULL;
		rc = proc_run(argv, work, 600, out, sizeof out);
	}
	if (!rc) {
		int argc = 0;
		char arbuf[256];
		argv[argc++] = driver_ar_for(cc, arbuf, sizeof arbuf);
		argv[argc++] = "rcs";
		argv[argc++] = "libingot_kernels.a";
		for (int i = 0; i < n_objs; i++)
			argv[argc++] = objs[i];
		argv[argc] = NULL;
		rc = proc_run(argv, work, 600, out, sizeof out);
	}
	for (int k = 0; k < n_flags; k++)
		free(flags[k]);
	if (rc) {
		fprintf(stderr, "ingot check: note: prebuilding kernels failed, each test compiles its own: %s\n",
		        out);
		return NULL;
	}
	snprintf(lib, cap, "%s/libingot_kernels.a", work);
	return lib;
}

static void rm_rf(const char *path)
{
	const char *argv[] = { "rm", "-rf", path, NULL };
	char out[256];
	proc_run(argv, NULL, 120, out, sizeof out);
}

typedef struct Job {
	pid_t pid;
	int index;
	time_t start;
} Job;

int cmd_check(const Options *o)
{
	char **tests = NULL;
	int n_tests = 0, cap_tests = 0;
	int counts[4] = { 0 };
	char work_root[4096], lib_buf[4200];
	const char *tmp = getenv("TMPDIR");
	const char *kernels_lib;

	for (int i = 0; i < o->n_dirs; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/model.onnx", o->dirs[i]);
		if (is_file(path) || !is_dir(o->dirs[i])) {
			*VEC_PUSH(tests, n_tests, cap_tests) = strdup(o->dirs[i]);
			continue;
		}
		/* a directory of test directories */
		char *names[8192];
		int n = list_dir(o->dirs[i], "", names, 8192);
		for (int k = 0; k < n; k++) {
			char sub[4096];
			snprintf(sub, sizeof sub, "%s/%s", o->dirs[i], names[k]);
			if (is_dir(sub))
				*VEC_PUSH(tests, n_tests, cap_tests) = strdup(sub);
			free(names[k]);
		}
	}
	snprintf(work_root, sizeof work_root, "%s/ingot-check-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(work_root)) {
		fprintf(stderr, "ingot check: cannot create a work directory: %s\n", strerror(errno));
		return EXIT_BAD_INPUT;
	}
	kernels_lib = build_kernels_lib(o, work_root, lib_buf, sizeof lib_buf);
	if (kernels_lib)
		setenv("INGOT_KERNELS_LIB", kernels_lib, 1);

	/* results are printed in input order as they become available */
	int *result = malloc(((size_t)n_tests + 1) * sizeof *result);
	char **lines = calloc((size_t)n_tests + 1, sizeof *lines);
	Job *jobs = calloc((size_t)o->jobs, sizeof *jobs);
	int next = 0, printed = 0, running = 0;
	if (!result || !lines || !jobs)
		die("out of memory");
	fflush(stdout);
	while (printed < n_tests) {
		while (running < o->jobs && next < n_tests) {
			int slot = 0;
			while (jobs[slot].pid)
				slot++;
			pid_t pid = fork();
			if (pid == 0) {
				char work[4200], line[1500] = "", file[4300];
				CheckEnv env = { o, work, kernels_lib };
				snprintf(work, sizeof work, "%s/t%d", work_root, next);
				cg_mkdir_p(work, NULL);
				int r = run_test(&env, tests[next], line, sizeof line);
				snprintf(file, sizeof file, "%s/t%d.result", work_root, next);
				FILE *f = fopen(file, "w");
				if (f) {
					fprintf(f, "%d %s", r, line);
					fclose(f);
				}
				if (!getenv("INGOT_KEEP"))
					rm_rf(work);
				_exit(0);
			}
			if (pid < 0)
				die("fork failed");
			jobs[slot].pid = pid;
			jobs[slot].index = next++;
			jobs[slot].start = time(NULL);
			running++;
		}
		int status;
		pid_t done = waitpid(-1, &status, WNOHANG);
		if (done <= 0) {
			for (int s = 0; s < o->jobs; s++)
				if (jobs[s].pid && time(NULL) - jobs[s].start > 3L * o->timeout_s + 60)
					kill(jobs[s].pid, SIGKILL);
			struct timespec nap = { 0, 5000000 };
			nanosleep(&nap, NULL);
		} else {
			for (int s = 0; s < o->jobs; s++) {
				if (jobs[s].pid != done)
					continue;
				int idx = jobs[s].index;
				char file[4300], buf[1600] = "";
				snprintf(file, sizeof file, "%s/t%d.result", work_root, idx);
				FILE *f = fopen(file, "r");
				int r = R_ERROR;
				if (f && fscanf(f, "%d ", &r) == 1 && fgets(buf, sizeof buf, f)) {
				} else if (WIFSIGNALED(status)) {
					snprintf(buf, sizeof buf, "ingot crashed (signal %d)", WTERMSIG(status));
				} else if (!buf[0] && r != R_PASS) {
					snprintf(buf, sizeof buf, "no result (exit status %d)", status);
				}
				if (f)
					fclose(f);
				if (r < R_PASS || r > R_ERROR)
					r = R_ERROR;
				result[idx] = r;
				lines[idx] = strdup(buf);
				jobs[s].pid = 0;
				running--;
			}
		}
		while (printed < n_tests && lines[printed]) {
			int r = result[printed];
			counts[r]++;
			if (r == R_PASS)
				printf("PASS %s\n", tests[printed]);
			else
				printf("%s %s: %s\n", result_names[r], tests[printed], lines[printed]);
			fflush(stdout);
			printed++;
		}
	}
	printf("%d passed, %d failed, %d unsupported, %d errors\n", counts[R_PASS], counts[R_FAIL],
	       counts[R_UNSUPPORTED], counts[R_ERROR]);
	if (!getenv("INGOT_KEEP"))
		rm_rf(work_root);
	for (int i = 0; i < n_tests; i++) {
		free(tests[i]);
		free(lines[i]);
	}
	free(tests);
	free(lines);
	free(result);
	free(jobs);
	return counts[R_PASS] == n_tests ? EXIT_OK : EXIT_BAD_INPUT;
}
