/* options.c — parsing the command line of every subcommand into Options. Bad
 * usage gives one line on stderr and exit code 2, never a crash. */
#include "driver.h"
#include "llvm_target.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void driver_usage(FILE *f)
{
	fputs("usage: ingot compile MODEL.onnx [-o DIR] [--name NAME] [--target T] [--cpu CPU]\n"
	      "                     [--emit c|lib|exe[,..]] [-O0..-O3] [--passes a,b] [--disable-pass P]\n"
	      "                     [--shape NAME=1x3x224x224] [--dim SYM=V] [--bind NAME=FILE|VALUE]\n"
	      "                     [--weights c|incbin|extern] [--weights-section SEC]\n"
	      "                     [--max-workspace BYTES] [--cc CC] [--cflags \"...\"]\n"
	      "                     [--dump-ir FILE|-] [--print-ir-after-all] [--print-ir-after PASS]\n"
	      "                     [--dot FILE] [--svg FILE] [--svg-before FILE] [--profile] [-q|-v]\n"
	      "                     [--placement auto|device|cpu] [--place NODE=cpu|device] [--host-target T]\n"
	      "                     [--quantize weights-int8] [--quantize int8 --calibrate DIR\n"
	      "                      [--emit-qdq FILE.onnx]\n"
	      "                      [--calibration minmax|percentile[=P]|\n"
	      "                      entropy|mse] [--keep-float NODE|OPTYPE,..] [--activations u8|s8]\n"
	      "                      [--reduce-range]]\n"
	      "       ingot check DIR... [compile options] [--runner \"CMD\"] [--rtol R] [--atol A]\n"
	      "                     [-j N] [--timeout S]\n"
	      "       ingot inspect MODEL.onnx [compile options] [--json]\n"
	      "       ingot opt FILE.ir [--passes a,b | -O2] [--print-ir-after-all] [--no-offsets]\n"
	      "       ingot --version | --man (the man page, roff) | --bash-completion\n"
	      "targets: c (portable C99), x86-avx2, x86-avx512, neon (aarch64), neon32 (armv7 + NEON),\n"
	      "         opencl (a device plus --host-target for the rest), host;\n"
	      "exit codes: 0 ok, 1 bad input, 2 usage, 3 unsupported ops\n",
	      f);
}

static int usage_error(const char *fmt, const char *arg)
{
	fputs("ingot: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs(" (see ingot --help)\n", stderr);
	return -1;
}

static bool parse_i64(const char *s, int64_t *out)
{
	char *end;
	long long v;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return false;
	*out = v;
	return true;
}

static bool parse_double(const char *s, double *out)
{
	char *end;
	errno = 0;
	*out = strtod(s, &end);
	return !errno && end != s && !*end && *out >= 0;
}

/* Splits "a,b,c" into list (strings point into a strdup'd copy, kept for the run). */
static int split_list(const char *s, const char **list, int *n, const char *flag)
{
	/* the entries point into copy, which lives as long as the options (to exit) */
	char *copy = strdup(s), *save = NULL;
	const int n0 = *n;
	if (!copy)
		return -1;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n == MAX_LIST) {
			*n = n0;
			free(copy);
			return usage_error("too many entries in %s", flag);
		}
		list[(*n)++] = tok;
	}
	if (*n == n0)                /* no entries: nothing points into copy */
		free(copy);
	return 0;
}

static int parse_shape(const char *s, Options *o)
{
	const char *eq = strrchr(s, '=');
	ShapeOverride *so;
	if (!eq || eq == s || o->n_shapes == MAX_LIST)
		return usage_error("--shape expects NAME=D0xD1x..., got '%s'", s);
	so = &o->shapes[o->n_shapes];
	memset(so, 0, sizeof *so);
	so->name = strndup(s, (size_t)(eq - s));
	const char *p = eq + 1;
	if (*p == 0) {          /* a scalar: NAME= */
		o->n_shapes++;
		return 0;
	}
	if (strcmp(p, "[]") == 0 || strcmp(p, "none") == 0) {   /* an empty sequence / optional */
		so->kind = p[0] == '[' ? SHAPE_EMPTY_SEQUENCE : SHAPE_NONE;
		o->n_shapes++;
		return 0;
	}
	while (*p) {
		char *end;
		long long v;
		if (!isdigit((unsigned char)*p))
			return usage_error("--shape expects NAME=D0xD1x... with non-negative dims, got '%s'", s);
		errno = 0;
		v = strtoll(p, &end, 10);
		if (errno || so->rank == IR_MAX_RANK)
			return usage_error("--shape dims out of range in '%s'", s);
		so->dims[so->rank++] = v;
		p = end;
		if (*p == 'x' || *p == 'X' || *p == ',')
			p++;
		else if (*p)
			return usage_error("--shape expects NAME=D0xD1x..., got '%s'", s);
	}
	o->n_shapes++;
	return 0;
}

static int parse_kv(const char *s, const char *flag, const char **key, const char **val)
{
	const char *eq = strchr(s, '=');
	if (!eq || eq == s || !eq[1])
		return usage_error("%s expects NAME=VALUE", flag);
	*key = strndup(s, (size_t)(eq - s));
	*val = eq + 1;
	return 0;
}

static int parse_emit(const char *s, Options *o)
{
	o->emit = 0;
	/* no strdup'd token list: nothing of it would outlive this call (a leak) */
	for (const char *p = s; *p;) {
		size_t len = strcspn(p, ",");
		if (len == 1 && *p == 'c')
			o->emit |= EMIT_C;
		else if (len == 3 && strncmp(p, "lib", 3) == 0)
			o->emit |= EMIT_C | EMIT_LIB;
		else if (len == 3 && strncmp(p, "exe", 3) == 0)
			o->emit |= EMIT_C | EMIT_EXE;
		else if (len)
			return usage_error("--emit expects c, lib or exe (comma-separated), got '%s'", s);
		p += len + (p[len] == ',');
	}
	return o->emit ? 0 : usage_error("--emit expects c, lib or exe, got '%s'", s);
}

/* --calibration minmax | percentile[=P] | entropy | mse */
static int parse_calibration(const char *s, Options *o)
{
	o->percentile = 99.99;
	if (strcmp(s, "minmax") == 0)
		o->calibration = CALIB_MINMAX;
	else if (strcmp(s, "entropy") == 0)
		o->calibration = CALIB_ENTROPY;
	else if (strcmp(s, "mse") == 0)
		o->calibration = CALIB_MSE;
	else if (strncmp(s, "percentile", 10) == 0 && (!s[10] || s[10] == '=')) {
		o->calibration = CALIB_PERCENTILE;
		if (s[10] && (!parse_double(s + 11, &o->percentile) || o->percentile <= 50 || o->percentile > 100))
			return usage_error("--calibration percentile=P expects 50 < P <= 100, got '%s'", s);
	} else {
		return usage_error("--calibration expects minmax, percentile[=P], entropy or mse, got '%s'", s);
	}
	return 0;
}

static void append_flag(Options *o, const char *a)
{
	size_t len = strlen(o->flags_text);
	if (len + strlen(a) + 2 < sizeof o->flags_text)
		snprintf(o->flags_text + len, sizeof o->flags_text - len, "%s%s", len ? " " : "", a);
}

const Target *driver_target(const Options *o)
{
	if (o->tuned_set)
		return &o->tuned;
	if (strcmp(o->target, "opencl") == 0)
		return cg_target_opencl(cg_target_lookup(o->host_target ? o->host_target : "host"));
	return cg_target_lookup(o->target);
}

/* --place NODE=cpu|device */
static int parse_place(const char *v, Options *o)
{
	const char *eq = strrchr(v, '=');
	if (!eq || eq == v || (strcmp(eq + 1, "cpu") && strcmp(eq + 1, "device")))
		return usage_error("--place expects NODE=cpu or NODE=device, got '%s'", v);
	if (o->n_places == MAX_LIST)
		return usage_error("too many --place options%s", "");
	o->places[o->n_places].node = strndup(v, (size_t)(eq - v));
	o->places[o->n_places++].device = strcmp(eq + 1, "device") == 0;
	return 0;
}

int driver_parse_options(Command cmd, int argc, char **argv, int first, Options *o)
{
	memset(o, 0, sizeof *o);
	o->cmd = cmd;
	o->target = "c";
	o->emit = EMIT_C;
	o->opt_level = 2;
	o->rtol = 1e-3;
	o->atol = 1e-7;
	o->jobs = 1;
	o->timeout_s = 300;
	for (int i = first; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_ARG() do { if (!v) return usage_error("%s needs an argument", a); i++; } while (0)
		if (a[0] != '-' || strcmp(a, "-") == 0) {
			if (cmd == CMD_CHECK) {
				if (o->n_dirs == COUNTOF(o->dirs))
					return usage_error("too many directories%s", "");
				o->dirs[o->n_dirs++] = a;
			} else if (!o->model) {
				o->model = a;
			} else {
				return usage_error("unexpected argument '%s'", a);
			}
			continue;
		}
		/* the option table (option_table.c) is the list of what each command takes */
		if (!driver_option_lookup(a, cmd))
			return usage_error("unknown option '%s'", a);
		/* flags that change the generated code are stamped into its header */
		if (strcmp(a, "-o") && strcmp(a, "--json") && strcmp(a, "-j") && strcmp(a, "--timeout") &&
		    strcmp(a, "--runner") && strcmp(a, "--dump-ir") && strcmp(a, "--dot") &&
		    strcmp(a, "--svg") && strcmp(a, "--svg-before") && strcmp(a, "-q") && strcmp(a, "-v") &&
		    strcmp(a, "--emit-qdq") && strncmp(a, "--print-ir", 10)) {
			append_flag(o, a);
			if (v && a[1] == '-' && strcmp(a, "--print-ir-after-all") && strcmp(a, "--profile"))
				append_flag(o, v);
		}
		if (strcmp(a, "-o") == 0) {
			NEED_ARG();
			o->out_dir = v;
		} else if (strcmp(a, "--name") == 0) {
			NEED_ARG();
			if (!cg_valid_model_name(v))
				return usage_error("--name must be a C identifier (letters, digits, _) other than "
				                   "a keyword, ingot_*, kernels or Makefile, got '%s'", v);
			o->name = v;
		} else if (strcmp(a, "--target") == 0) {
			NEED_ARG();
			if (!cg_target_lookup(v)) {
				fprintf(stderr, "ingot: unknown target '%s' (targets: %s)\n", v, cg_target_names());
				return -1;
			}
			o->target = cg_target_lookup(v)->name;   /* host resolves to this machine's best */
			o->host = strcmp(v, "host") == 0;
		} else if (strcmp(a, "--host-target") == 0) {
			NEED_ARG();
			if (!cg_target_lookup(v) || cg_target_lookup(v)->host)
				return usage_error("--host-target expects a CPU target (c, x86-avx2, x86-avx512, "
				                   "neon, neon32, host), got '%s'", v);
			o->host_target = cg_target_lookup(v)->name;
		} else if (strcmp(a, "--placement") == 0) {
			NEED_ARG();
			if (strcmp(v, "auto") == 0)
				o->placement = PLACE_AUTO;
			else if (strcmp(v, "device") == 0)
				o->placement = PLACE_DEVICE;
			else if (strcmp(v, "cpu") == 0)
				o->placement = PLACE_CPU;
			else
				return usage_error("--placement expects auto, device or cpu, got '%s'", v);
		} else if (strcmp(a, "--place") == 0) {
			NEED_ARG();
			if (parse_place(v, o))
				return -1;
		} else if (strcmp(a, "--cpu") == 0) {
			NEED_ARG();
			o->cpu = v;
		} else if (strcmp(a, "--emit") == 0) {
			NEED_ARG();
			if (parse_emit(v, o))
				return -1;
		} else if (a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && a[3] == 0) {
			o->opt_level = a[2] - '0';
		} else if (strcmp(a, "--passes") == 0) {
			NEED_ARG();
			o->passes_set = true;
			if (split_list(v, o->passes, &o->n_passes, "--passes"))
				return -1;
			for (int k = 0; k < o->n_passes; k++)
				if (!pass_lookup(o->passes[k]))
					return usage_error("unknown pass '%s'", o->passes[k]);
		} else if (strcmp(a, "--disable-pass") == 0) {
			NEED_ARG();
			if (!pass_lookup(v))
				return usage_error("unknown pass '%s'", v);
			if (o->n_disabled == MAX_LIST)
				return usage_error("too many %s", a);
			o->disabled[o->n_disabled++] = v;
		} else if (strcmp(a, "--shape") == 0) {
			NEED_ARG();
			if (parse_shape(v, o))
				return -1;
		} else if (strcmp(a, "--dim") == 0) {
			const char *key, *val;
			NEED_ARG();
			if (parse_kv(v, a, &key, &val) || o->n_dims == MAX_LIST)
				return -1;
			if (!parse_i64(val, &o->dims[o->n_dims].value) || o->dims[o->n_dims].value < 0)
				return usage_error("--dim expects SYMBOL=non-negative integer, got '%s'", v);
			o->dims[o->n_dims++].symbol = key;
		} else if (strcmp(a, "--bind") == 0) {
			NEED_ARG();
			if (o->n_binds == MAX_LIST)
				return usage_error("too many %s", a);
			if (parse_kv(v, a, &o->binds[o->n_binds].name, &o->binds[o->n_binds].spec))
				return -1;
			o->n_binds++;
		} else if (strcmp(a, "--weights") == 0) {
			NEED_ARG();
			if (strcmp(v, "c") == 0)
				o->weights = WEIGHTS_C;
			else if (strcmp(v, "incbin") == 0)
				o->weights = WEIGHTS_INCBIN;
			else if (strcmp(v, "extern") == 0)
				o->weights = WEIGHTS_EXTERN;
			else
				return usage_error("--weights expects c, incbin or extern, got '%s'", v);
		} else if (strcmp(a, "--weights-section") == 0) {
			NEED_ARG();
			for (const char *p = v; *p; p++)
				if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_')
					return usage_error("--weights-section expects a section name like .rodata.model, got '%s'", v);
			o->weights_section = v;
		} else if (strcmp(a, "--max-workspace") == 0) {
			NEED_ARG();
			if (!parse_i64(v, &o->max_workspace) || o->max_workspace <= 0)
				return usage_error("--max-workspace expects a positive byte count, got '%s'", v);
		} else if (strcmp(a, "--cc") == 0) {
			NEED_ARG();
			o->cc = v;
		} else if (strcmp(a, "--backend") == 0) {
			NEED_ARG();
			if (strcmp(v, "c") != 0 && strcmp(v, "llvm") != 0)
				return usage_error("--backend expects c or llvm, got '%s'", v);
			o->backend_llvm = strcmp(v, "llvm") == 0;
			if (o->backend_llvm && !cg_llvm_available())
				return usage_error("--backend %s: this ingot was built without LLVM; rebuild it with "
				                   "`meson setup -Dllvm=enabled` (Debian packages llvm-14-dev and clang-14)", v);
		} else if (strcmp(a, "--triple") == 0) {
			NEED_ARG();
			o->triple = v;
		} else if (strcmp(a, "--cflags") == 0) {
			NEED_ARG();
			o->cflags = v;
		} else if (strcmp(a, "--quantize") == 0) {
			NEED_ARG();
			if (strcmp(v, "weights-int8") == 0)
				o->weights_int8 = true;
			else if (strcmp(v, "int8") == 0)
				o->quantize = v;
			else
				return usage_error("--quantize expects int8 or weights-int8, got '%s'", v);
		} else if (strcmp(a, "--calibrate") == 0) {
			NEED_ARG();
			o->calibrate = v;
		} else if (strcmp(a, "--calibration") == 0) {
			NEED_ARG();
			if (parse_calibration(v, o))
				return -1;
		} else if (strcmp(a, "--keep-float") == 0) {
			NEED_ARG();
			if (split_list(v, o->keep_float, &o->n_keep_float, "--keep-float"))
				return -1;
		} else if (strcmp(a, "--activations") == 0) {
			NEED_ARG();
			if (strcmp(v, "u8") && strcmp(v, "s8"))
				return usage_error("--activations expects u8 or s8, got '%s'", v);
			o->s8_acts = v[0] == 's';
		} else if (strcmp(a, "--reduce-range") == 0) {
			o->reduce_range = true;
		} else if (strcmp(a, "--dump-ir") == 0) {
			NEED_ARG();
			o->dump_ir = v;
		} else if (strcmp(a, "--print-ir-after-all") == 0) {
			o->print_ir_after_all = true;
		} else if (strcmp(a, "--print-ir-after") == 0) {
			NEED_ARG();
			if (!pass_lookup(v))
				return usage_error("unknown pass '%s'", v);
			o->print_ir_after = v;
		} else if (strcmp(a, "--emit-qdq") == 0) {
			NEED_ARG();
			o->emit_qdq = v;
		} else if (strcmp(a, "--dot") == 0) {
			NEED_ARG();
			o->dot = v;
		} else if (strcmp(a, "--svg") == 0) {
			NEED_ARG();
			o->svg = v;
		} else if (strcmp(a, "--svg-before") == 0) {
			NEED_ARG();
			o->svg_before = v;
		} else if (strcmp(a, "--profile") == 0) {
			o->profile = true;
		} else if ((strcmp(a, "-q") == 0 || strcmp(a, "-v") == 0) &&
		           (cmd == CMD_COMPILE || cmd == CMD_INSPECT)) {
			o->verbosity = a[1] == 'q' ? -1 : 1;
		} else if (strcmp(a, "--json") == 0 && cmd == CMD_INSPECT) {
			o->json = true;
		} else if (strcmp(a, "--no-offsets") == 0 && cmd == CMD_OPT) {
			o->no_offsets = true;
		} else if (strcmp(a, "--runner") == 0 && cmd == CMD_CHECK) {
			NEED_ARG();
			o->runner = v;
		} else if (strcmp(a, "--rtol") == 0 && cmd == CMD_CHECK) {
			NEED_ARG();
			if (!parse_double(v, &o->rtol))
				return usage_error("--rtol expects a non-negative number, got '%s'", v);
			o->rtol_set = true;
		} else if (strcmp(a, "--atol") == 0 && cmd == CMD_CHECK) {
			NEED_ARG();
			if (!parse_double(v, &o->atol))
				return usage_error("--atol expects a non-negative number, got '%s'", v);
			o->atol_set = true;
		} else if ((strcmp(a, "-j") == 0 || strcmp(a, "--jobs") == 0) && cmd == CMD_CHECK) {
			int64_t j;
			NEED_ARG();
			if (!parse_i64(v, &j) || j < 1 || j > 256)
				return usage_error("-j expects 1..256, got '%s'", v);
			o->jobs = (int)j;
		} else if (strcmp(a, "--timeout") == 0 && cmd == CMD_CHECK) {
			int64_t t;
			NEED_ARG();
			if (!parse_i64(v, &t) || t < 1 || t > 86400)
				return usage_error("--timeout expects seconds (1..86400), got '%s'", v);
			o->timeout_s = (int)t;
		} else {
			return usage_error("unknown option '%s'", a);
		}
#undef NEED_ARG
	}
	const Target *t = driver_target(o);
	if (o->cpu && !cg_target_cpu_flags(t->host ? t->host : t, o->cpu)) {
		fprintf(stderr, "ingot: target '%s' has no --cpu '%s' (see targets/targets.h)\n", o->target, o->cpu);
		return -1;
	}
	if (o->host)
		cg_cpu_detect(&o->host_cpu);
	if (!t->host && (o->cpu || o->host)) {   /* the blocking follows the core (opencl: not yet) */
		const char *cpu = o->cpu ? o->cpu : o->host_cpu.cpu;
		if (cg_target_tune(t, cpu, o->host ? &o->host_cpu : NULL, &o->tuned) != 0)
			cg_target_tune(t, NULL, &o->host_cpu, &o->tuned);   /* a core of another target */
		o->tuned_set = true;
		t = &o->tuned;
	}
	if ((o->host_target || o->placement != PLACE_AUTO || o->n_places) && !t->host)
		return usage_error("--host-target, --placement and --place are for --target opencl%s", "");
	if (t->host && o->profile)
		return usage_error("--profile is not supported with --target opencl yet%s", "");
	if (cmd == CMD_CHECK && !o->runner && t->emulator[0] &&
	    !driver_runs_natively(t->host ? t->host->name : o->target))
		o->runner = t->emulator;
	if (cmd == CMD_CHECK && o->n_dirs == 0)
		return usage_error("check needs at least one test directory%s", "");
	if (o->emit_qdq && !o->quantize)
		return usage_error("--emit-qdq writes the model --quantize int8 makes: it needs "
		                   "--quantize int8%s", "");
	if (o->quantize && o->weights_int8)
		return usage_error("--quantize int8 and weights-int8 exclude each other%s", "");
	if (o->quantize && cmd != CMD_COMPILE && cmd != CMD_INSPECT)
		return usage_error("--quantize is for compile and inspect%s", "");
	if (o->quantize && !o->calibrate)
		return usage_error("--quantize int8 needs --calibrate DIR (input sets to calibrate on)%s", "");
	if (!o->quantize && (o->calibrate || o->n_keep_float || o->s8_acts || o->percentile ||
	                     o->reduce_range))
		return usage_error("--calibrate, --calibration, --keep-float, --activations and "
		                   "--reduce-range need "
		                   "--quantize int8%s", "");
	if (cmd != CMD_CHECK && !o->model)
		return usage_error("missing the model file%s", "");
	return 0;
}
