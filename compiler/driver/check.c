/* check.c — `ingot check`: compiles each test directory in the ONNX backend-test
 * layout (model.onnx, test_data_set_N/input_J.pb, output_J.pb), builds the runner,
 * runs every data set (through --runner for cross builds) and compares outputs:
 * floats |a-b| <= atol + rtol*|b| with NaN equal to NaN, integers and bools exactly,
 * dtype and shape must match. One line per directory, then the four counts.
 *
 * Each test runs in a forked child (a compiler crash becomes an ERROR line, -j runs
 * tests in parallel). The kernels are compiled once per run into a library that
 * every test links (-DINGOT_EXTERN_KERNELS), with the tensor I/O and the runner's
 * main(), so a test compiles only its model.c and its runner table (model_main.c
 * with -DINGOT_RUNNER_EXTERN), as one unit.
 * Symbolic input dims are fixed from data set 0; graph inputs that must be known at
 * compile time (a Reshape's shape, Slice's starts...) are bound to the data set's
 * values with --bind. Sequence and optional data (check_value.c) become one runner
 * input or output per element, their lengths fixed with --shape NAME.J=. */
#include "driver.h"
#include "ingot_tensor_io.h"
#include "ukgen.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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

/* One tensor the runner takes: a tensor input's file, or one element of a sequence
 * or optional input (written as its own TensorProto), with the --shape it fixes. */
typedef struct Entry {
	char name[256];
	char path[4200];
	ShapeOverride so;            /* so.name points to name */
} Entry;

/* A data set's inputs as the compiled model takes them. */
typedef struct Inputs {
	Entry e[MAX_LIST];
	int n;
	ShapeOverride extra[MAX_IO];  /* NAME=[] (empty sequence), NAME=none (empty optional) */
	char extra_name[MAX_IO][256];
	int n_extra;
} Inputs;

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
	qsort(names, (size_t)n, sizeof *names, driver_cmp_str);
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
			if (!driver_is_file(s->inputs[k]))
				break;
			s->n_inputs++;
		}
		for (int k = 0; k < MAX_IO; k++) {
			snprintf(s->outputs[k], sizeof s->outputs[k], "%s/%s/output_%d.pb", dir, names[i], k);
			if (!driver_is_file(s->outputs[k]))
				break;
			s->n_outputs++;
		}
		if (used < max)
			used++;
		free(names[i]);
	}
	return used;
}

/* Graph inputs whose values flow into a slot that must be a compile-time constant
 * (a shape, axes, pads...), or into any input of node `also` (NULL: none). Shape and Size only look at their input's shape, so the
 * walk stops there. */
static void inputs_needing_const(Graph *g, bool *need, const char *also)
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
			if (also && strcmp(ir_node_name(g, main->nodes[k]), also) == 0)
				mask = ~0u;   /* compiling it said a value must be known at compile time */
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

static Entry *add_entry(Inputs *x, const char *name, const ingot_tensor *t)
{
	if (x->n == MAX_LIST)
		return NULL;
	Entry *e = &x->e[x->n++];
	memset(e, 0, sizeof *e);
	snprintf(e->name, sizeof e->name, "%s", name);
	e->so.name = e->name;
	e->so.rank = t->rank;
	memcpy(e->so.dims, t->dims, sizeof e->so.dims);
	return e;
}

/* Reads data set `s`'s input files as the model's inputs (k: what each is) into x;
 * sequence elements go to files of their own in work. */
static int expand_inputs(const char *work, const IoKinds *k, const DataSet *set, int s, Inputs *x,
                         char *line, size_t cap)
{
	memset(x, 0, sizeof *x);
	for (int i = 0; i < set->n_inputs; i++) {
		IoKind kind = i < k->n_in ? k->in[i] : IO_TENSOR;
		const char *base = i < k->n_in ? k->in_name[i] : "";
		CheckValue v;
		char err[512];
		if (check_value_read(set->inputs[i], kind, &v, err, sizeof err)) {
			snprintf(line, cap, "input %d: %s", i, err);
			check_value_free(&v);
			return -1;
		}
		if (kind == IO_TENSOR) {
			Entry *e = add_entry(x, v.t[0].name, &v.t[0]);
			if (e)
				snprintf(e->path, sizeof e->path, "%s", set->inputs[i]);
		} else if ((v.none || (v.seq && v.n == 0)) && x->n_extra < MAX_IO) {
			ShapeOverride *so = &x->extra[x->n_extra];
			snprintf(x->extra_name[x->n_extra], sizeof x->extra_name[0], "%s", base);
			so->name = x->extra_name[x->n_extra++];
			so->kind = v.none ? SHAPE_NONE : SHAPE_EMPTY_SEQUENCE;
		}
		/* sequence elements (and a present optional's tensor) get files of their own */
		for (int j = 0; kind != IO_TENSOR && j < v.n; j++) {
			char name[300];
			snprintf(name, sizeof name, v.seq ? "%s.%d" : "%s", base, j);
			Entry *e = add_entry(x, name, &v.t[j]);
			if (!e)
				break;
			snprintf(e->path, sizeof e->path, "%s/set%d_in%d_%d.pb", work, s, i, j);
			snprintf(v.t[j].name, sizeof v.t[j].name, "%s", name);
			if (ingot_tensor_write(e->path, &v.t[j], err, sizeof err)) {
				snprintf(line, cap, "input %d element %d: %s", i, j, err);
				check_value_free(&v);
				return -1;
			}
		}
		check_value_free(&v);
		if (x->n == MAX_LIST) {
			snprintf(line, cap, "more than %d input tensors", MAX_LIST);
			return -1;
		}
	}
	return 0;
}

typedef struct CheckEnv {
	const Options *o;
	const char *work;            /* this test's work directory */
	const char *kernels_lib;     /* prebuilt kernels, or NULL */
	const IoKinds *kinds;        /* what each graph input and output is */
	const char *cl_cache;        /* --target opencl: the runners' program binary cache */
} CheckEnv;

static int run_set(const CheckEnv *env, const char *dir, const DataSet *set, int set_idx,
                   const Inputs *ins, const bool *bound, const Options *co, char *line, size_t cap,
                   char *const_node, size_t const_cap)
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
	const_node[0] = 0;
	if (rc && diag_has_code(&d, DC_CONST_INPUT)) {
		/* the node that needs a value at compile time: "...: node 'NAME' (Op)..." */
		for (int i = 0; i < d.n_items && !const_node[0]; i++) {
			const char *p = d.items[i].code == DC_CONST_INPUT ? strstr(d.items[i].text, "node '")
			                                                    : NULL;
			const char *q = p ? strstr(p + 6, "' (") : NULL;
			if (q && (size_t)(q - p - 6) < const_cap)
				snprintf(const_node, const_cap, "%.*s", (int)(q - p - 6), p + 6);
		}
	}
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
	if (env->cl_cache) {
		argv[argc++] = "--cl-cache";
		argv[argc++] = env->cl_cache;
	}
	for (int i = 0; i < ins->n && argc < 150; i++) {
		if (bound[i])
			continue;
		argv[argc++] = "--input";
		argv[argc++] = ins->e[i].path;
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
	CheckTol tol = { o->rtol, o->atol, o->rtol_set, o->atol_set };
	check_read_tolerance(dir, &tol);   /* the command line wins over the file */
	/* the runner's output files: one per tensor, sequences flattened */
	int idx = 0, n_got = 0, n_want = 0;
	CheckValue *want_all = calloc((size_t)(set->n_outputs ? set->n_outputs : 1), sizeof *want_all);
	if (!want_all)
		die("out of memory");
	for (;; n_got++) {
		char p[4200];
		snprintf(p, sizeof p, "%s/output_%d.pb", res_dir, n_got);
		if (!driver_is_file(p))
			break;
	}
	for (int k = 0; k < set->n_outputs; k++) {
		IoKind kind = k < env->kinds->n_out ? env->kinds->out[k] : IO_TENSOR;
		char err[512];
		if (check_value_read(set->outputs[k], kind, &want_all[k], err, sizeof err)) {
			snprintf(line, cap, "expected output %d: %s", k, err);
			for (int j = 0; j <= k; j++)
				check_value_free(&want_all[j]);
			free(want_all);
			return R_ERROR;
		}
		n_want += want_all[k].n;
	}
	for (int k = 0; k < set->n_outputs; k++)
		check_value_free(&want_all[k]);
	free(want_all);
	if (n_got != n_want) {
		snprintf(line, cap, "data set %d: the model gave %d output tensors, the test data has %d",
		         set_idx, n_got, n_want);
		return R_FAIL;
	}
	for (int k = 0; k < set->n_outputs; k++) {
		IoKind kind = k < env->kinds->n_out ? env->kinds->out[k] : IO_TENSOR;
		const char *oname = k < env->kinds->n_out ? env->kinds->out_name[k] : "";
		char path[4200], err[512], why[512];
		CheckValue want;
		if (check_value_read(set->outputs[k], kind, &want, err, sizeof err)) {
			snprintf(line, cap, "expected output %d: %s", k, err);
			check_value_free(&want);
			return R_ERROR;
		}
		for (int j = 0; j < want.n; j++) {
			ingot_tensor got;
			char elem[32] = "";
			if (kind != IO_TENSOR)
				snprintf(elem, sizeof elem, " element %d", j);
			snprintf(path, sizeof path, "%s/output_%d.pb", res_dir, idx++);
			if (ingot_tensor_read(path, &got, err, sizeof err)) {
				snprintf(line, cap, "output %d%s missing: %s", k, elem, err);
				check_value_free(&want);
				return R_FAIL;
			}
			rc = check_compare(&got, &want.t[j], &tol, why, sizeof why);
			if (rc)
				snprintf(line, cap, "data set %d output %d '%s'%s: %s", set_idx, k,
				         want.t[j].name[0] ? want.t[j].name : oname, elem, why);
			ingot_tensor_free(&got);
			if (rc) {
				check_value_free(&want);
				return R_FAIL;
			}
		}
		check_value_free(&want);
	}
	return R_PASS;
}

/* Marks the entries of ins that must be bound to the data set's values (bound[]);
 * returns whether it marked one that was not yet. */
static bool mark_bound(const char *model, const Options *co, const Inputs *ins, const char *also,
                       bool *bound)
{
	Graph g;
	DiagSink d;
	FrontendOptions fo;
	bool more = false;
	memset(&fo, 0, sizeof fo);
	fo.shapes = co->shapes;
	fo.n_shapes = co->n_shapes;
	diag_sink_init(&d, NULL);
	ir_graph_init(&g, model);
	if (onnx_load(&g, model, &fo, &d) == 0) {
		bool need[MAX_LIST] = { 0 };
		const Region *main = &g.regions[0];
		if (main->n_inputs <= MAX_LIST)
			inputs_needing_const(&g, need, also);
		for (int i = 0; i < main->n_inputs && i < MAX_LIST; i++)
			for (int k = 0; k < ins->n; k++)
				if (need[i] && !bound[k] && strcmp(ins->e[k].name, g.values[main->inputs[i]].name) == 0)
					bound[k] = more = true;
	}
	ir_graph_free(&g);
	diag_sink_free(&d);
	return more;
}

static int run_test(const CheckEnv *env, const char *dir, char *line, size_t cap)
{
	const Options *o = env->o;
	char model[4096];
	DataSet *sets = calloc(MAX_SETS, sizeof *sets);
	int n_sets, result = R_PASS;
	bool bound[MAX_LIST] = { 0 };
	static Options co;

	snprintf(model, sizeof model, "%s/model.onnx", dir);
	if (!sets)
		return R_ERROR;
	if (!driver_is_file(model)) {
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
	IoKinds kinds;
	{
		DiagSink d;
		diag_sink_init(&d, NULL);
		if (onnx_io_kinds(model, &kinds, &d))
			memset(&kinds, 0, sizeof kinds);   /* compiling reports the problem */
		diag_sink_free(&d);
	}
	CheckEnv tenv = *env;
	tenv.kinds = &kinds;
	Inputs *ins = malloc(sizeof *ins);
	if (!ins)
		die("out of memory");
	/* fix input shapes from data set 0 */
	if (expand_inputs(env->work, &kinds, &sets[0], 0, ins, line, cap)) {
		free(ins);
		free(sets);
		return R_ERROR;
	}
	for (int i = 0; i < ins->n && co.n_shapes < MAX_LIST; i++)
		co.shapes[co.n_shapes++] = ins->e[i].so;
	for (int i = 0; i < ins->n_extra && co.n_shapes < MAX_LIST; i++)
		co.shapes[co.n_shapes++] = ins->extra[i];
	/* the inputs the command line binds (--bind): left out of the runner's inputs, the
	 * user's value wins over the data set's */
	bool user_bound[MAX_LIST] = { 0 };
	for (int i = 0; i < ins->n && i < MAX_LIST; i++)
		for (int k = 0; k < o->n_binds; k++)
			if (strcmp(ins->e[i].name, o->binds[k].name) == 0)
				user_bound[i] = bound[i] = true;
	/* which inputs must be bound to the data set's values */
	mark_bound(model, &co, ins, NULL, bound);
	int base_binds = co.n_binds;
	bool retried = false;
	for (int s = 0; s < n_sets && result == R_PASS; s++) {
		co.n_binds = base_binds;
		if (s > 0 && expand_inputs(env->work, &kinds, &sets[s], s, ins, line, cap)) {
			result = R_ERROR;
			break;
		}
		for (int i = 0; i < ins->n && i < MAX_LIST; i++)
			if (bound[i] && !user_bound[i] && co.n_binds < MAX_LIST) {
				co.binds[co.n_binds].name = ins->e[i].name;
				co.binds[co.n_binds++].spec = ins->e[i].path;
			}
		char need_node[256];
		result = run_set(&tenv, dir, &sets[s], s, ins, bound, &co, line, cap, need_node,
		                 sizeof need_node);
		/* a node needs a value at compile time that the ops' table does not tell
		 * (an If choosing between optionals): bind what reaches it and retry once */
		if (result == R_ERROR && need_node[0] && !retried &&
		    mark_bound(model, &co, ins, need_node, bound)) {
			retried = true;
			s--;
			result = R_PASS;
		}
	}
	free(ins);
	free(sets);
	return result;
}

/* The tests still run when the prebuild fails (each compiles its own kernels), but
 * tests/simd/check_x86.sh and tests/cross/check_target.sh fail on this line. */
static void prebuild_failed(const char *what, const char *detail)
{
	fprintf(stderr, "ingot check: note: prebuilding kernels failed, each test compiles its own: %s%s%s\n",
	        what, *what ? " " : "", detail);
}

static uint64_t fnv1a_str(uint64_t h, const char *s)
{
	return ir_fnv1a64(h, s, strlen(s) + 1);
}

/* Hashes the file at path into h; false when it cannot be read. */
static bool fnv1a_file(uint64_t *h, const char *path)
{
	char buf[65536];
	size_t n;
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		*h = ir_fnv1a64(*h, buf, n);
	bool ok = !ferror(f);
	fclose(f);
	return ok;
}

/* Which files build_kernels_lib compiles and how: bump it whenever that changes, so a
 * cache never hands out a library built by an older recipe. */
#define KERNELS_LIB_RECIPE "3: kernels/*.c of the target, ingot_tensor_io.c, ingot_runner.c (extern)"

/* INGOT_CHECK_CACHE=DIR keeps each prebuilt kernel library as
 * DIR/kernels-KEY.a, KEY a hash of the recipe, the compiler, its flags and every byte
 * the library is built from (the stubs this ingot embeds and the generated
 * microkernels), so the many `ingot check` runs of a test suite compile the kernels
 * once per flag set. Returns true and fills path with the cache file's name when the
 * cache is on. */
static bool kernels_cache_path(const char *cc, char **flags, int n_flags, const char *work,
                               const Target *t, char *path, size_t cap)
{
	const char *dir = getenv("INGOT_CHECK_CACHE");
	char uk[4200];
	uint64_t h = IR_FNV64;
	if (!dir || !*dir || cg_mkdir_p(dir, NULL))
		return false;
	h = fnv1a_str(h, KERNELS_LIB_RECIPE);
	h = fnv1a_str(h, cc);
	for (int k = 0; k < n_flags; k++)
		h = fnv1a_str(h, flags[k]);
	for (const IngotStub *s = ingot_stubs; s->path; s++) {
		h = fnv1a_str(h, s->path);
		h = ir_fnv1a64(h, s->text, s->size);
	}
	if (t->simd[0]) {
		snprintf(uk, sizeof uk, "%s/kernels/%s/ukernel.h", work, t->simd);
		if (!fnv1a_file(&h, uk))
			return false;
	}
	snprintf(path, cap, "%s/kernels-%016llx.a", dir, (unsigned long long)h);
	return true;
}

/* Copies src to dst through dst.PID and a rename, so concurrent runs never read a
 * half-written file; true on success. */
static bool copy_file_atomic(const char *src, const char *dst)
{
	char tmp[4200], buf[65536];
	size_t n;
	bool ok;
	snprintf(tmp, sizeof tmp, "%s.%ld", dst, (long)getpid());
	FILE *in = fopen(src, "rb"), *out = in ? fopen(tmp, "wb") : NULL;
	ok = in && out;
	while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
		ok = fwrite(buf, 1, n, out) == n;
	ok = ok && !ferror(in);
	if (in)
		fclose(in);
	if (out && fclose(out))
		ok = false;
	if (ok && rename(tmp, dst))
		ok = false;
	if (!ok)
		unlink(tmp);
	return ok;
}

/* Locks cache + ".lock" (flock: released when its holder exits, however it exits);
 * the descriptor, or -1 when it cannot (the caller then just builds). */
static int cache_lock(const char *cache)
{
	char path[4300];
	snprintf(path, sizeof path, "%s.lock", cache);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0 && flock(fd, LOCK_EX) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Compiles every embedded kernel file, and the runners' tensor I/O, once into
 * work/libingot_kernels.a (or takes it from INGOT_CHECK_CACHE). */
const char *driver_kernels_lib(const Options *o, const char *work, char *lib, size_t cap)
{
	const Target *t = driver_target(o)->host ? driver_target(o)->host : driver_target(o);
	const char *cc = o->cc ? o->cc : t->cc;
	char kdir[4096], out[2048], objs[64][64], simd_dir[4200];
	char *flags[64];
	const char *argv[96];
	char cache[4200];
	bool cached;
	int n_flags, n_objs = 0, rc = 0, lock = -1;
	snprintf(kdir, sizeof kdir, "%s/kernels", work);
	snprintf(simd_dir, sizeof simd_dir, "%s/kernels/%s", work, t->simd[0] ? t->simd : ".");
	if (cg_mkdir_p(kdir, NULL) || cg_mkdir_p(simd_dir, NULL)) {
		prebuild_failed("cannot create", simd_dir);
		return NULL;
	}
	for (const IngotStub *s = ingot_stubs; s->path; s++) {
		const char *sub = strncmp(s->path, "kernels/", 8) == 0 ? strchr(s->path + 8, '/') : NULL;
		/* another target's SIMD folder is not needed here; kernels/simd/ (the vector
		 * math every SIMD target's kernels include) is */
		if (sub && (!t->simd[0] || strncmp(s->path + 8, t->simd, (size_t)(sub - s->path - 8)) != 0) &&
		    !(t->simd[0] && strncmp(s->path, "kernels/simd/", 13) == 0))
			continue;
		if (cg_copy_stub(work, s->path, NULL)) {
			prebuild_failed("cannot write", s->path);
			return NULL;
		}
	}
	if (ukgen_write(t, work, NULL)) {
		prebuild_failed("cannot write", "the generated microkernels");
		return NULL;
	}
	n_flags = proc_split(t->cflags, flags, 32);
	if (o->cpu)
		n_flags += proc_split(cg_target_cpu_flags(t, o->cpu), flags + n_flags, 8);
	if (o->cflags)
		n_flags += proc_split(o->cflags, flags + n_flags, 22);
	snprintf(lib, cap, "%s/libingot_kernels.a", work);
	cached = kernels_cache_path(cc, flags, n_flags, work, t, cache, sizeof cache);
	/* a run that finds no library waits for any other run building the same one (the
	 * lock), then looks again: two tests starting together build it once */
	if (cached && (copy_file_atomic(cache, lib) ||
	               ((lock = cache_lock(cache)) >= 0 && copy_file_atomic(cache, lib)))) {
		for (int k = 0; k < n_flags; k++)
			free(flags[k]);
		if (lock >= 0)
			close(lock);
		return lib;
	}
	for (const IngotStub *s = ingot_stubs; s->path && !rc; s++) {
		size_t len = strlen(s->path);
		const char *sub = strchr(s->path + 8, '/');
		/* every runner's tensor I/O, and the runner itself (the same code for every
		 * model: each test's model_main.c only exports its ingot_runner_model) */
		bool tio = strcmp(s->path, "ingot_tensor_io.c") == 0;
		bool runner = strcmp(s->path, "ingot_runner.c") == 0;
		if ((!tio && !runner && strncmp(s->path, "kernels/", 8)) || strcmp(s->path + len - 2, ".c"))
			continue;
		/* a SIMD folder (kernels/neon/) only for its own targets */
		if (sub && (!t->simd[0] || strncmp(s->path + 8, t->simd, (size_t)(sub - s->path - 8)) != 0))
			continue;
		if (n_objs == (int)(sizeof objs / sizeof objs[0])) {   /* never a library short of one */
			snprintf(out, sizeof out, "more than %d kernel files", n_objs);
			rc = 1;
			break;
		}
		int argc = 0;
		snprintf(objs[n_objs], sizeof objs[0], "%.*s.o", (int)(len - 2), s->path);
		argv[argc++] = cc;
		for (int k = 0; k < n_flags; k++)
			argv[argc++] = flags[k];
		if (runner) {
			argv[argc++] = "-DINGOT_RUNNER_EXTERN";
			argv[argc++] = "-DINGOT_RUNNER_EXTERN_TENSOR_IO";
		}
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
		prebuild_failed("", out);
		if (lock >= 0)
			close(lock);
		return NULL;
	}
	if (cached)
		copy_file_atomic(lib, cache);   /* a cache that cannot be written only costs time */
	if (lock >= 0)
		close(lock);
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
		if (driver_is_file(path) || !driver_is_dir(o->dirs[i])) {
			*VEC_PUSH(tests, n_tests, cap_tests) = strdup(o->dirs[i]);
			continue;
		}
		/* a directory of test directories */
		char *names[8192];
		int n = list_dir(o->dirs[i], "", names, 8192);
		for (int k = 0; k < n; k++) {
			char sub[4096];
			snprintf(sub, sizeof sub, "%s/%s", o->dirs[i], names[k]);
			if (driver_is_dir(sub))
				*VEC_PUSH(tests, n_tests, cap_tests) = strdup(sub);
			free(names[k]);
		}
	}
	snprintf(work_root, sizeof work_root, "%s/ingot-check-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(work_root)) {
		fprintf(stderr, "ingot check: cannot create a work directory: %s\n", strerror(errno));
		return EXIT_BAD_INPUT;
	}
	kernels_lib = driver_kernels_lib(o, work_root, lib_buf, sizeof lib_buf);
	if (kernels_lib)
		setenv("INGOT_KERNELS_LIB", kernels_lib, 1);
	/* --target opencl: every test's program is the same text, so one binary cache
	 * (INGOT_CHECK_CACHE/opencl, else this run's) spares each runner the compile */
	const char *cl_cache = NULL;
	char cl_cache_buf[4200];
	if (strcmp(driver_target(o)->name, "opencl") == 0) {
		const char *dir = getenv("INGOT_CHECK_CACHE");
		snprintf(cl_cache_buf, sizeof cl_cache_buf, "%s/opencl", dir && *dir ? dir : work_root);
		if (cg_mkdir_p(cl_cache_buf, NULL) == 0)
			cl_cache = cl_cache_buf;
	}

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
				CheckEnv env = { o, work, kernels_lib, NULL, cl_cache };
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
