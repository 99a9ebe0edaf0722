/* compile.c — the compile pipeline: ONNX → IR (types inferred, constants folded)
 * → passes of the -O level → target codegen → optionally libNAME.a and the runner,
 * built with the target's C compiler. */
#include "driver.h"
#include "llvm_target.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void driver_sink_init(DiagSink *d, const Options *o, Progress *prog)
{
	diag_sink_init(d, stderr);
	progress_start(prog, o->verbosity);
	d->quiet = o->verbosity < 0;
	d->echo_line = progress_echo;
	d->echo_ctx = prog;
}

int driver_exit_code(const DiagSink *d)
{
	if (diag_has_code(d, DC_UNSUPPORTED))
		return EXIT_UNSUPPORTED;
	if (diag_has_code(d, DC_USAGE))
		return EXIT_USAGE;
	return EXIT_BAD_INPUT;
}

static bool verify_enabled(void)
{
#ifdef NDEBUG
	return getenv("INGOT_VERIFY") != NULL;
#else
	return true;
#endif
}

/* PassCtx.node_scratch: the scratch of node n as target t lowers it (a node it
 * cannot lower needs none: codegen reports it). */
static int64_t target_scratch(const void *target, Graph *g, NodeId n)
{
	const Target *t = target;
	KernelCall kc;
	memset(&kc, 0, sizeof kc);
	if (t->lower(t, g, n, &kc))
		return 0;
	return kc.scratch_bytes;
}

/* PassCtx.on_pass: the pass as the progress display's stage */
static void on_pass(void *user, const char *name, int i, int n, const Graph *g)
{
	char what[128];
	snprintf(what, sizeof what, "pass %s (%d/%d)", name, i + 1, n);
	progress_stage(user, what, g);
}

int driver_run_passes(const Options *o, Graph *g, DiagSink *d)
{
	const char *names[MAX_LIST + 1];
	const char *list[MAX_LIST + 1];
	int n = 0, n_list = 0;
	PassCtx ctx;
	memset(&ctx, 0, sizeof ctx);
	ctx.diags = d;
	ctx.opt_level = o->opt_level;
	ctx.verify = verify_enabled();
	ctx.print_after_all = o->print_ir_after_all;
	ctx.print_after = o->print_ir_after;
	ctx.print_to = (o->print_ir_after_all || o->print_ir_after) ? stderr : NULL;
	ctx.max_workspace = o->max_workspace;
	const Target *t = o->target ? driver_target(o) : NULL;
	PlaceConfig place;
	ctx.target = t;
	if (ctx.target)
		ctx.node_scratch = target_scratch;
	if (o->progress) {
		ctx.on_pass = on_pass;
		ctx.on_pass_user = o->progress;
	}
	if (t && t->host) {   /* --target opencl: the placement, with the target's device */
		memset(&place, 0, sizeof place);
		place.mode = o->placement;
		place.overrides = o->places;
		place.n_overrides = o->n_places;
		place.cost = t->cost;
		place.supported = t->device_supported;
		place.target = t;
		ctx.place = &place;
	}
	if (o->passes_set) {
		n_list = o->n_passes;
		memcpy(list, o->passes, (size_t)n_list * sizeof *list);
	} else {
		/* weight-only int8 first, so fold_qdq finds the int8 weights behind their DQ */
		if (o->weights_int8)
			list[n_list++] = "quantize_weights";
		n_list += pass_pipeline(o->opt_level, list + n_list, MAX_LIST - n_list);
	}
	/* memory planning is what codegen needs: it always runs, last */
	for (int i = 0; i < n_list; i++) {
		bool disabled = strcmp(list[i], "plan_memory") == 0 || strcmp(list[i], "place") == 0;
		for (int k = 0; k < o->n_disabled; k++)
			if (strcmp(o->disabled[k], list[i]) == 0)
				disabled = true;
		if (!disabled)
			names[n++] = list[i];
	}
	if (ctx.place)
		names[n++] = "place";
	names[n++] = "plan_memory";
	int rc = pass_run(g, &ctx, names, n);
	if (ctx.place && o->place_report)
		*o->place_report = place;
	return rc;
}

/* --dot / --svg of a placed graph (--target opencl): nodes coloured by device. */
static const char *device_color(const Graph *g, NodeId n, void *user)
{
	(void)user;
	if (g->nodes[n].op == OP_COPY_TO_DEVICE || g->nodes[n].op == OP_COPY_TO_HOST)
		return DRIVER_COLOR_COPY;
	return g->nodes[n].device ? DRIVER_COLOR_DEVICE : DRIVER_COLOR_CPU;
}

const DotStyle *driver_dot_style(const Options *o)
{
	static const char *const legend[] = { "device", DRIVER_COLOR_DEVICE, "CPU", DRIVER_COLOR_CPU,
		                              "copy", DRIVER_COLOR_COPY, NULL };
	static const DotStyle placed = { device_color, NULL, legend };
	const Target *t = o->target ? driver_target(o) : NULL;
	return t && t->host ? &placed : NULL;
}

int driver_build_graph(const Options *o, Graph *g, DiagSink *d)
{
	FrontendOptions fo;
	char err[512];
	memset(&fo, 0, sizeof fo);
	fo.shapes = o->shapes;
	fo.n_shapes = o->n_shapes;
	fo.dims = o->dims;
	fo.n_dims = o->n_dims;
	fo.binds = o->binds;
	fo.n_binds = o->n_binds;
	ir_graph_init(g, o->model);
	progress_stage(o->progress, "import", NULL);
	if (onnx_load(g, o->model, &fo, d))
		return driver_exit_code(d);
	if (verify_enabled() && ir_verify(g, err, sizeof err))
		die("IR invalid after import: %s", err);
	progress_stage(o->progress, "shape inference", g);
	if (ops_infer_graph(g, d, true))
		return driver_exit_code(d);
	if (o->svg_before && driver_write_svg(g, NULL, o->svg_before, "--svg-before", d))
		return EXIT_BAD_INPUT;
	if (o->quantize)
		progress_stage(o->progress, "quantize (calibration and report)", g);
	if (o->quantize && driver_quantize_graph(o, g, d))
		return driver_exit_code(d);
	/* the QDQ graph as quantize.c leaves it, before any pass folds it */
	if (o->emit_qdq && onnx_write_model(g, o->emit_qdq, d))
		return driver_exit_code(d);
	if (driver_run_passes(o, g, d))
		return driver_exit_code(d);
	progress_stage(o->progress, "writing dumps and pictures", g);
	if (o->dot) {
		FILE *f = fopen(o->dot, "w");
		if (!f) {
			DiagLoc l = diag_loc_file(o->dot);
			diag_report(d, DIAG_ERROR, DC_IO, &l, "cannot write: %s", strerror(errno));
			return EXIT_BAD_INPUT;
		}
		ir_dot(g, driver_dot_style(o), f);
		fclose(f);
	}
	if (o->svg && driver_write_svg(g, driver_dot_style(o), o->svg, "--svg", d))
		return EXIT_BAD_INPUT;
	if (o->dump_ir) {
		if (strcmp(o->dump_ir, "-") == 0) {
			ir_print(g, stdout);
		} else if (ir_dump(g, o->dump_ir)) {
			DiagLoc l = diag_loc_file(o->dump_ir);
			diag_report(d, DIAG_ERROR, DC_IO, &l, "cannot write: %s", strerror(errno));
			return EXIT_BAD_INPUT;
		}
	}
	return EXIT_OK;
}

/* The model name from its file: "models/kws-v2.onnx" → "kws_v2". */
static void default_name(const char *path, char *buf, size_t cap)
{
	const char *base = strrchr(path, '/');
	char stem[200];
	size_t n;
	base = base ? base + 1 : path;
	n = strcspn(base, ".");
	if (n >= sizeof stem)
		n = sizeof stem - 1;
	memcpy(stem, base, n);
	stem[n] = 0;
	cg_ident(stem, buf, cap);
	if (!cg_valid_model_name(buf))
		snprintf(buf, cap, "model");
}

const char *driver_ar_for(const char *cc, char *buf, size_t cap)
{
	const char *dash = strrchr(cc, '-');
	const char *slash = strrchr(cc, '/');
	/* aarch64-linux-gnu-gcc → aarch64-linux-gnu-ar; gcc, clang, cc → ar */
	if (dash && (!slash || dash > slash) && (strcmp(dash, "-gcc") == 0 || strcmp(dash, "-cc") == 0)) {
		snprintf(buf, cap, "%.*sar", (int)(dash - cc + 1), cc);
		return buf;
	}
	return "ar";
}

bool driver_runs_natively(const char *target)
{
#if defined(__aarch64__)
	return strcmp(target, "neon32") != 0;
#elif defined(__arm__)
	return strcmp(target, "neon32") == 0 || strcmp(target, "c") == 0;
#else
	return strcmp(target, "neon") != 0 && strcmp(target, "neon32") != 0;
#endif
}

static bool file_exists(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return stat(path, &st) == 0;
}

static int build_step(const char **argv, const char *cwd, DiagSink *d, const char *what)
{
	char out[2048];
	int rc = proc_run(argv, cwd, 600, out, sizeof out);
	if (rc != 0) {
		DiagLoc l = diag_loc_file(cwd);
		char *nl;
		/* the first line that names an error, else the first line */
		char *first = strstr(out, "error");
		if (!first)
			first = out;
		while (first > out && first[-1] != '\n')
			first--;
		if ((nl = strchr(first, '\n')))
			*nl = 0;
		diag_report(d, DIAG_ERROR, DC_IO, &l, "%s failed (%s, exit %d): %s", what, argv[0], rc, first);
		return -1;
	}
	return 0;
}

/* ingot check's one compilation unit of a test: NAME.c and the runner table of
 * NAME_main.c (built with -DINGOT_RUNNER_EXTERN). */
static int write_check_unit(const char *out_dir, const char *file, const char *name, DiagSink *d)
{
	char text[512];
	int n = snprintf(text, sizeof text, "/* ingot check: %s.c with the runner table of %s_main.c */\n"
	                 "#include \"%s.c\"\n#include \"%s_main.c\"\n", name, name, name, name);
	return cg_write_bytes(out_dir, file, text, (size_t)n, d);
}

/* --backend llvm --emit exe: the runner NAME_main.c (with ingot check's prebuilt
 * runner library, only its model table) linked with NAME.o. */
static int link_llvm_runner(const char *cc, char **flags, int n_flags, const char *name, const char *out_dir,
                            const char *extern_kernels_lib, DiagSink *d)
{
	const char *argv[96];
	char main_c[160], obj[160];
	int argc = 0;
	snprintf(main_c, sizeof main_c, "%s_main.c", name);
	snprintf(obj, sizeof obj, "%s.o", name);
	argv[argc++] = cc;
	for (int k = 0; k < n_flags; k++)
		argv[argc++] = flags[k];
	argv[argc++] = "-o";
	argv[argc++] = name;
	if (extern_kernels_lib)
		argv[argc++] = "-DINGOT_RUNNER_EXTERN";
	argv[argc++] = main_c;
	argv[argc++] = obj;
	if (extern_kernels_lib)
		argv[argc++] = extern_kernels_lib;
	argv[argc++] = "-lm";
	argv[argc++] = "-pthread";
	argv[argc] = NULL;
	return build_step(argv, out_dir, d, "linking the runner");
}

int driver_build_outputs(const Options *o, const char *name, const char *out_dir,
                         const char *extern_kernels_lib, DiagSink *d)
{
	const Target *t = driver_target(o);
	const char *cc = o->cc ? o->cc : t->cc;
	char *flags[64];
	const char *argv[96];
	char src[3][160], obj[3][160], lib[160], exe[160], arbuf[256], main_c[160];
	int n_flags, n_src = 0, argc, rc = 0;

	n_flags = proc_split(t->cflags, flags, 32);
	if (o->cpu)
		n_flags += proc_split(cg_target_cpu_flags(t->host ? t->host : t, o->cpu), flags + n_flags, 8);
	if (o->cflags)
		n_flags += proc_split(o->cflags, flags + n_flags, 22);
	if (o->backend_llvm) {   /* NAME.o and libNAME.a are written: only the runner is left */
		rc = (o->emit & EMIT_EXE) ? link_llvm_runner(cc, flags, n_flags, name, out_dir, extern_kernels_lib, d) : 0;
		goto done;
	}
	snprintf(src[n_src++], sizeof src[0], "%s.c", name);
	if (file_exists(out_dir, (snprintf(src[n_src], sizeof src[0], "%s_weights.c", name), src[n_src])))
		n_src++;
	else if (file_exists(out_dir, (snprintf(src[n_src], sizeof src[0], "%s_weights.S", name), src[n_src])))
		n_src++;
	/* ingot check (extern_kernels_lib set, and an executable): NAME.c is compiled with
	 * NAME_main.c, as one unit, in the link step below */
	for (int i = extern_kernels_lib && (o->emit & EMIT_EXE) ? 1 : 0; i < n_src && !rc; i++) {
		size_t len = strlen(src[i]);
		snprintf(obj[i], sizeof obj[i], "%.*s.o", (int)(len - 2), src[i]);
		argc = 0;
		argv[argc++] = cc;
		for (int k = 0; k < n_flags; k++)
			argv[argc++] = flags[k];
		if (extern_kernels_lib)
			argv[argc++] = "-DINGOT_EXTERN_KERNELS";
		if (src[i][len - 1] == 'S')
			argv[argc++] = "-Wa,-I.";
		argv[argc++] = "-c";
		argv[argc++] = src[i];
		argv[argc++] = "-o";
		argv[argc++] = obj[i];
		argv[argc] = NULL;
		rc = build_step(argv, out_dir, d, "compiling the generated code");
	}
	/* ingot check (extern_kernels_lib set) links the objects and skips the archive */
	if (!rc && !extern_kernels_lib) {
		snprintf(lib, sizeof lib, "lib%s.a", name);
		argc = 0;
		argv[argc++] = driver_ar_for(cc, arbuf, sizeof arbuf);
		argv[argc++] = "rcs";
		argv[argc++] = lib;
		for (int i = 0; i < n_src; i++)
			argv[argc++] = obj[i];
		argv[argc] = NULL;
		unlink(lib);
		rc = build_step(argv, out_dir, d, "archiving the library");
	}
	if (!rc && (o->emit & EMIT_EXE)) {
		snprintf(exe, sizeof exe, "%s", name);
		snprintf(main_c, sizeof main_c, "%s_main.c", name);
		argc = 0;
		argv[argc++] = cc;
		for (int k = 0; k < n_flags; k++)
			argv[argc++] = flags[k];
		argv[argc++] = "-o";
		argv[argc++] = exe;
		if (extern_kernels_lib) {
			/* ingot check: the kernels, the tensor I/O and the runner (main) are in
			 * the prebuilt library; NAME_check.c is NAME.c plus NAME_main.c's table
			 * of the model, so one compiler run builds the test's own code */
			snprintf(main_c, sizeof main_c, "%s_check.c", name);
			if (write_check_unit(out_dir, main_c, name, d)) {
				rc = -1;
				goto done;
			}
			argv[argc++] = "-DINGOT_EXTERN_KERNELS";
			argv[argc++] = "-DINGOT_RUNNER_EXTERN";
			argv[argc++] = main_c;
			for (int i = 1; i < n_src; i++)
				argv[argc++] = obj[i];
			argv[argc++] = extern_kernels_lib;
		} else {
			argv[argc++] = main_c;
			argv[argc++] = lib;
		}
		if (t->host)
			argv[argc++] = "-lOpenCL";   /* --target opencl: the ICD loader */
		argv[argc++] = "-lm";
		argv[argc++] = "-pthread";   /* NAME_run_par's pool */
		argv[argc] = NULL;
		rc = build_step(argv, out_dir, d, extern_kernels_lib ? "building the runner" : "linking the runner");
	}
done:
	for (int k = 0; k < n_flags; k++)
		free(flags[k]);
	return rc;
}

int driver_emit(const Options *o, Graph *g, const char *name, const char *out_dir, unsigned emit,
                DiagSink *d)
{
	CodegenOptions co;
	const Target *t = driver_target(o);
	const char *base = strrchr(o->model, '/');
	memset(&co, 0, sizeof co);
	co.name = name;
	co.out_dir = out_dir;
	co.emit = emit;
	co.weights = o->weights;
	co.weights_section = o->weights_section;
	co.flags_text = o->flags_text;
	co.source_name = base ? base + 1 : o->model;
	co.profile = o->profile;
	co.cpu_flags = o->cpu ? cg_target_cpu_flags(t->host ? t->host : t, o->cpu) : NULL;
	int rc = (o->backend_llvm ? cg_llvm_emit(t, g, &co, o->triple, d) : t->emit(t, g, &co, d))
	         ? EXIT_BAD_INPUT : EXIT_OK;
	if (rc && diag_has_code(d, DC_UNSUPPORTED))
		rc = EXIT_UNSUPPORTED;
	return rc;
}

int driver_compile(const Options *o, DiagSink *d)
{
	Graph g;
	char name[80], out_dir[4096];
	int rc = driver_build_graph(o, &g, d);
	if (rc) {
		ir_graph_free(&g);
		return rc;
	}
	if (o->name)
		snprintf(name, sizeof name, "%s", o->name);
	else
		default_name(o->model, name, sizeof name);
	snprintf(out_dir, sizeof out_dir, "%s", o->out_dir ? o->out_dir : name);
	progress_stage(o->progress, "codegen", &g);
	rc = driver_emit(o, &g, name, out_dir, o->emit, d);
	ir_graph_free(&g);
	if (!rc && (o->emit & (EMIT_LIB | EMIT_EXE)))
		progress_stage(o->progress, o->emit & EMIT_EXE ? "building the library and the runner (cc)"
		                                               : "building the library (cc)", NULL);
	if (!rc && (o->emit & (EMIT_LIB | EMIT_EXE)) &&
	    driver_build_outputs(o, name, out_dir, getenv("INGOT_KERNELS_LIB"), d))
		rc = EXIT_BAD_INPUT;
	return rc;
}

int cmd_compile(const Options *o)
{
	DiagSink d;
	int rc;
	QuantReport rep;
	Progress prog;
	Options oq = *o;
	memset(&rep, 0, sizeof rep);
	oq.qreport = o->quantize ? &rep : NULL;
	driver_sink_init(&d, o, &prog);
	oq.progress = &prog;
	rc = driver_compile(&oq, &d);
	progress_end(&prog);
	d.echo_line = NULL;          /* the display is gone */
	diag_sink_free(&d);
	if (!rc && rep.done && o->verbosity >= 0)
		quant_report_print(&rep, stderr);
	quant_report_free(&rep);
	return rc;
}
