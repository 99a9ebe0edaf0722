/* option_table.c — every option of the command line, once: which subcommands take
 * it, its argument and a line of help. The parser (options.c) rejects a flag that
 * is not here, and the man page (`ingot --man`, installed as ingot.1) and the bash
 * completion (`ingot --bash-completion`) are printed from it, so neither can drift
 * from the CLI. Keep in the order of docs/cli.md's synopsis. */
#include "driver.h"

#include <string.h>

#define ALL (OPT_COMPILE | OPT_CHECK | OPT_INSPECT | OPT_OPT)
#define BUILD (OPT_COMPILE | OPT_CHECK | OPT_INSPECT)

const DriverOption driver_options[] = {
	{ "-o", "DIR", OPT_COMPILE, NULL, "write the generated files into DIR (default: the model name)" },
	{ "--name", "NAME", BUILD, NULL, "the C prefix of every generated symbol (default: from the file name)" },
	{ "--target", "T", ALL, "@targets", "the target: c, x86-avx2, x86-avx512, neon, neon32, opencl or host" },
	{ "--host-target", "T", ALL, "c x86-avx2 x86-avx512 neon neon32 host",
	  "with --target opencl: the CPU target of the nodes that stay on the host (default host)" },
	{ "--placement", "auto|device|cpu", ALL, "auto device cpu",
	  "with --target opencl: what runs on the device (default auto: the cost model decides)" },
	{ "--place", "NODE=cpu|device", ALL, NULL, "with --target opencl: place a node (ONNX name or op type)" },
	{ "--cpu", "CPU", BUILD, NULL, "a tuning (caches, ISA extensions) within the target" },
	{ "--emit", "c|lib|exe", OPT_COMPILE, "c lib exe",
	  "what to produce, comma-separated: the C sources (always), libNAME.a, the runner NAME" },
	{ "-O0..-O3", NULL, ALL, NULL, "the optimization level of ingot's passes (default -O2)" },
	{ "--passes", "a,b", ALL, "@passes", "run these passes instead of the level's pipeline" },
	{ "--disable-pass", "P", ALL, "@passes", "leave pass P out of the pipeline" },
	{ "--shape", "NAME=1x3x224x224", BUILD, NULL, "fix the dims of input NAME" },
	{ "--dim", "SYM=V", BUILD, NULL, "fix the symbolic dim SYM to V" },
	{ "--bind", "NAME=FILE|VALUE", BUILD, NULL, "freeze input NAME to a constant (a .pb/.npy file or a value)" },
	{ "--weights", "c|incbin|extern", BUILD, "c incbin extern",
	  "how the weights are emitted: a C array, an .incbin blob, or provided by the caller" },
	{ "--weights-section", "SEC", BUILD, NULL, "the linker section of the weights" },
	{ "--max-workspace", "BYTES", ALL, NULL, "fail when the workspace would exceed BYTES" },
	{ "--cc", "CC", BUILD, NULL, "the C compiler of --emit lib|exe and check (default: the target's)" },
	{ "--cflags", "FLAGS", BUILD, NULL, "extra C compiler flags for those builds" },
	{ "--backend", "c|llvm", BUILD, "c llvm",
	  "c (default): C sources; llvm: NAME.o through LLVM, no C compiler (a -Dllvm=enabled build)" },
	{ "--triple", "TRIPLE", BUILD, NULL, "with --backend llvm: the LLVM target triple (default: the target's kernel bitcode's)" },
	{ "--dump-ir", "FILE|-", BUILD, NULL, "write the final IR (with the memory plan) to FILE, - for stdout" },
	{ "--print-ir-after-all", NULL, ALL, NULL, "print the IR to stderr after every pass" },
	{ "--print-ir-after", "PASS", ALL, "@passes", "print the IR to stderr after pass PASS" },
	{ "--dot", "FILE", BUILD, NULL, "write the final graph for Graphviz" },
	{ "--svg", "FILE", BUILD, NULL, "draw the final graph as SVG (needs Graphviz's dot)" },
	{ "--svg-before", "FILE", BUILD, NULL, "draw the imported graph as SVG (needs Graphviz's dot)" },
	{ "--profile", NULL, BUILD, NULL, "time every node in the generated code (the runner prints a table)" },
	{ "-q", NULL, OPT_COMPILE | OPT_INSPECT, NULL, "silent but errors" },
	{ "-v", NULL, OPT_COMPILE | OPT_INSPECT, NULL, "print the time of each stage and pass" },
	{ "--quantize", "int8|weights-int8", BUILD, "int8 weights-int8",
	  "quantize: int8 (calibrated post-training) or weights-int8 (MatMul/Gemm weights only)" },
	{ "--calibrate", "DIR", BUILD, NULL, "the input sets --quantize int8 calibrates on" },
	{ "--calibration", "METHOD", BUILD, "minmax percentile entropy mse",
	  "minmax (default), percentile[=P], entropy or mse" },
	{ "--keep-float", "NODE|OPTYPE,..", BUILD, NULL, "keep these nodes or op types float" },
	{ "--activations", "u8|s8", BUILD, "u8 s8", "int8 activations: u8 asymmetric (default) or s8 symmetric" },
	{ "--reduce-range", NULL, BUILD, NULL, "7-bit int8 weights in [-64, 64] (ORT's reduce_range)" },
	{ "--emit-qdq", "FILE.onnx", BUILD, NULL, "write the quantized graph as a QDQ ONNX model" },
	{ "--json", NULL, OPT_INSPECT, NULL, "print one JSON object instead of the report" },
	{ "--no-offsets", NULL, OPT_OPT, NULL, "print the IR without the memory plan" },
	{ "--runner", "CMD", OPT_CHECK, NULL, "run the test programs through CMD (e.g. qemu-aarch64)" },
	{ "--rtol", "R", OPT_CHECK, NULL, "relative tolerance of float outputs (default 1e-3)" },
	{ "--atol", "A", OPT_CHECK, NULL, "absolute tolerance of float outputs (default 1e-7)" },
	{ "-j", "N", OPT_CHECK, NULL, "run N tests at a time (also --jobs N)" },
	{ "--jobs", "N", OPT_CHECK, NULL, "the same as -j N" },
	{ "--timeout", "S", OPT_CHECK, NULL, "seconds a test may run (default 300)" },
};
const int driver_n_options = (int)(sizeof driver_options / sizeof driver_options[0]);

static unsigned cmd_bit(Command cmd)
{
	switch (cmd) {
	case CMD_COMPILE: return OPT_COMPILE;
	case CMD_CHECK: return OPT_CHECK;
	case CMD_INSPECT: return OPT_INSPECT;
	case CMD_OPT: return OPT_OPT;
	}
	return 0;
}

const DriverOption *driver_option_lookup(const char *flag, Command cmd)
{
	for (int i = 0; i < driver_n_options; i++) {
		const DriverOption *d = &driver_options[i];
		bool level = d->name[1] == 'O' && flag[0] == '-' && flag[1] == 'O' && flag[2] >= '0' &&
		             flag[2] <= '3' && !flag[3];
		if ((level || strcmp(d->name, flag) == 0) && (d->cmds & cmd_bit(cmd)))
			return d;
	}
	return NULL;
}

/* roff text: a leading '.' or '\'' and every backslash and '-' escaped */
static void roff(FILE *f, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", f);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

static void man_section(FILE *f, const char *title, unsigned cmds)
{
	fprintf(f, ".SH %s\n", title);
	for (int i = 0; i < driver_n_options; i++) {
		const DriverOption *d = &driver_options[i];
		if (d->cmds != cmds)
			continue;
		fputs(d->arg ? ".TP\n.BI \"" : ".TP\n.B \"", f);
		roff(f, d->name);
		if (d->arg) {
			fputs(" \" \"", f);
			roff(f, d->arg);
		}
		fputs("\"\n", f);
		roff(f, d->help);
		fputc('\n', f);
	}
}

void driver_print_man(FILE *f)
{
	fprintf(f, ".\\\" ingot.1, generated by ingot --man from its option table (compiler/driver/option_table.c)\n"
	        ".TH INGOT 1 \"\" \"ingot %s\" \"User Commands\"\n.SH NAME\ningot \\- an ahead\\-of\\-time ONNX "
	        "to C compiler\n.SH SYNOPSIS\n", INGOT_VERSION);
	fputs(".B ingot compile\n.I MODEL.onnx\n[options]\n.br\n"
	      ".B ingot check\n.I DIR...\n[compile options] [check options]\n.br\n"
	      ".B ingot inspect\n.I MODEL.onnx\n[compile options] [\\-\\-json]\n.br\n"
	      ".B ingot opt\n.I FILE.ir\n[\\-\\-passes a,b | \\-O2] [\\-\\-print\\-ir\\-after\\-all] [\\-\\-no\\-offsets]\n"
	      ".br\n.B ingot \\-\\-help | \\-h | \\-\\-version | \\-\\-man | \\-\\-bash\\-completion\n"
	      ".SH DESCRIPTION\n"
	      "ingot compiles an ONNX model into dependency\\-free C (portable C99, x86 SIMD, ARM NEON): "
	      "NAME.h, NAME.c, the kernels it uses, the weights, a Makefile, a CMakeLists.txt, NAME.pc "
	      "and NAMEConfig.cmake, so that the directory builds alone and installs with "
	      "make install PREFIX=DIR.\n"
	      ".B check\ncompiles and runs ONNX backend\\-test directories and compares the outputs;\n"
	      ".B inspect\nprints what a model costs (a report, or JSON);\n"
	      ".B opt\nruns passes on text IR.\n", f);
	man_section(f, "OPTIONS OF COMPILE, CHECK AND INSPECT", BUILD);
	man_section(f, "OPTIONS OF EVERY COMMAND", ALL);
	man_section(f, "COMPILE", OPT_COMPILE);
	man_section(f, "COMPILE AND INSPECT", OPT_COMPILE | OPT_INSPECT);
	man_section(f, "INSPECT", OPT_INSPECT);
	man_section(f, "CHECK", OPT_CHECK);
	man_section(f, "OPT", OPT_OPT);
	fputs(".SH EXIT STATUS\n0 ok, 1 bad input, 2 bad usage, 3 unsupported ops (all listed, each with node name "
	      "and op type).\n.SH ENVIRONMENT\n.TP\n.B INGOT_CHECK_CACHE\nwhere check keeps its kernel libraries\n"
	      ".TP\n.B INGOT_PROGRESS_AFTER\nseconds before the progress line appears (default 2)\n"
	      ".SH SEE ALSO\n.BR dot (1),\n.BR pkg\\-config (1).\nThe docs/ folder of the source tree, "
	      "docs/cli.md above all.\n", f);
}

/* the words completing option d's argument: its choices, else files for FILE/DIR */
static void completion_case(FILE *f, const DriverOption *d)
{
	if (!d->arg)
		return;
	fprintf(f, "\t%s)\n\t\t", d->name);
	if (d->choices && strcmp(d->choices, "@targets") == 0) {
		char names[512];
		snprintf(names, sizeof names, "%s", cg_target_names());
		for (char *p = names; *p; p++)
			if (*p == ',')
				*p = ' ';
		fprintf(f, "COMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))", names);
	} else if (d->choices && strcmp(d->choices, "@passes") == 0) {
		int n;
		const Pass *p = pass_list(&n);
		fputs("COMPREPLY=($(compgen -W \"", f);
		for (int i = 0; i < n; i++)
			fprintf(f, "%s%s", i ? " " : "", p[i].name);
		fputs("\" -- \"$cur\"))", f);
	} else if (d->choices) {
		fprintf(f, "COMPREPLY=($(compgen -W \"%s\" -- \"$cur\"))", d->choices);
	} else if (strstr(d->arg, "DIR")) {
		fputs("COMPREPLY=($(compgen -d -- \"$cur\"))", f);
	} else if (strstr(d->arg, "FILE")) {
		fputs("COMPREPLY=($(compgen -f -- \"$cur\"))", f);
	} else {
		fputs("COMPREPLY=()", f);
	}
	fputs("\n\t\treturn;;\n", f);
}

void driver_print_bash_completion(FILE *f)
{
	static const struct { const char *name; unsigned bit; } cmds[] = {
		{ "compile", OPT_COMPILE }, { "check", OPT_CHECK }, { "inspect", OPT_INSPECT }, { "opt", OPT_OPT },
	};
	fputs("# bash completion of ingot, generated by ingot --bash-completion from its option table\n"
	      "_ingot() {\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} opts=\n"
	      "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"compile check inspect opt --help --version\" -- \"$cur\"))\n"
	      "\t\treturn\n\tfi\n\tcase \"$prev\" in\n", f);
	for (int i = 0; i < driver_n_options; i++)
		completion_case(f, &driver_options[i]);
	fputs("\tesac\n\tcase \"${COMP_WORDS[1]}\" in\n", f);
	for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
		fprintf(f, "\t%s) opts=\"", cmds[c].name);
		for (int i = 0, first = 1; i < driver_n_options; i++) {
			const DriverOption *d = &driver_options[i];
			if (!(d->cmds & cmds[c].bit))
				continue;
			fputs(first ? "" : " ", f);
			first = 0;
			if (d->name[1] == 'O')
				fputs("-O0 -O1 -O2 -O3", f);
			else
				fputs(d->name, f);
		}
		fputs("\";;\n", f);
	}
	fputs("\tesac\n\tif [[ $cur == -* ]]; then\n\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	      "\telse\n\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n\tfi\n}\ncomplete -F _ingot ingot\n", f);
}
