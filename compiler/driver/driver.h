/* driver.h — the ingot command line (docs/cli.md): option parsing shared by
 * compile / check / inspect / opt, the compile pipeline, and the subcommands.
 *
 * Sections: options.c, compile.c, proc.c, check.c, check_compare.c, check_value.c,
 * calibrate.c, calibrate_report.c, picture.c, progress.c, option_table.c, inspect.c,
 * inspect_report.c, main.c.
 */
#ifndef INGOT_DRIVER_H
#define INGOT_DRIVER_H

#include "codegen.h"
#include "frontend.h"

#include <pthread.h>
#include <string.h>
#include <sys/stat.h>

/* Exit codes of `compile` (contract). */
enum { EXIT_OK = 0, EXIT_BAD_INPUT = 1, EXIT_USAGE = 2, EXIT_UNSUPPORTED = 3 };

typedef enum Command { CMD_COMPILE, CMD_CHECK, CMD_INSPECT, CMD_OPT } Command;

#define MAX_LIST 64

/* --calibration: how an activation's range comes from its statistics */
typedef enum CalibMethod { CALIB_MINMAX, CALIB_PERCENTILE, CALIB_ENTROPY, CALIB_MSE } CalibMethod;

/* Activation ranges by value name, from calibration (calibrate.c). */
typedef struct QuantRanges {
	int n;
	char **names;
	float *lo, *hi;
} QuantRanges;

/* The accuracy report of a quantized compile (calibrate_report.c). */
typedef struct QuantReportNode {
	char *node, *op, *value;
	double sqnr_db;              /* QUANT_SQNR_EXACT when the int8 output has no error */
	bool measured;
} QuantReportNode;
typedef struct QuantReportOutput {
	char *name;
	double cosine, max_abs_err;
	int top1_agree, top1_rows;   /* rows 0: not classifier-shaped */
} QuantReportOutput;
typedef struct QuantReportFloat {
	char *node, *op, *why;
} QuantReportFloat;
#define QUANT_SQNR_EXACT 999.0
typedef struct QuantReport {
	bool done;
	const char *method;
	double percentile;
	bool s8_acts;
	bool reduce_range;
	int n_sets;                  /* calibrated on */
	int n_report_sets;           /* compared on (the first ones) */
	double calib_seconds;        /* calibration alone (build, run, statistics), wall clock */
	double seconds;              /* calibration and report, wall clock */
	QuantReportNode *nodes;      /* worst SQNR first */
	int n_nodes;
	QuantReportOutput *outputs;
	int n_outputs;
	QuantReportFloat *floats;
	int n_floats;
} QuantReport;

/* The builds calibration makes of the model (Options.qstage). */
enum { QSTAGE_NONE, QSTAGE_F32, QSTAGE_INT8 };

/* The progress display of a compile (progress.c). */
typedef struct Progress {
	int verbosity;                   /* -1 -q, 0 default, 1 -v */
	bool live;                       /* the one-line display is on (stderr a terminal, not -q) */
	double after_s;                  /* shown once the compile has run this long (s) */
	double start, stage_start;       /* monotonic seconds */
	char stage[160];                 /* what runs now ("pass fuse_epilogue (9/16)"); "" none */
	int nodes;                       /* live nodes of the main graph, at the stage's start */
	bool shown;                      /* a progress line is on the terminal */
	pthread_mutex_t mu;              /* the ticker thread redraws while a stage runs */
	pthread_t thread;
	bool thread_on, stop;
} Progress;

typedef struct Options {
	Command cmd;
	const char *model;               /* compile/inspect: MODEL.onnx; opt: FILE.ir */
	const char *dirs[4096];          /* check: test directories */
	int n_dirs;
	const char *out_dir;             /* -o */
	const char *name;                /* --name */
	const char *target;              /* --target */
	const char *host_target;         /* --host-target (opencl's host nodes), NULL: host */
	PlaceMode placement;             /* --placement (opencl) */
	PlaceOverride places[MAX_LIST];  /* --place NODE=cpu|device */
	int n_places;
	const char *cpu;                 /* --cpu */
	bool host;                       /* --target host: tuned from the machine */
	CpuInfo host_cpu;                /* with host: what cg_cpu_detect found */
	Target tuned;                    /* the target as --cpu / host describe it */
	bool tuned_set;                  /* driver_target returns tuned */
	unsigned emit;                   /* EMIT_* */
	int opt_level;                   /* -O0..-O3 */
	const char *passes[MAX_LIST];    /* --passes a,b */
	int n_passes;
	bool passes_set;
	const char *disabled[MAX_LIST];  /* --disable-pass */
	int n_disabled;
	ShapeOverride shapes[MAX_LIST];
	int n_shapes;
	DimOverride dims[MAX_LIST];
	int n_dims;
	Binding binds[MAX_LIST];
	int n_binds;
	WeightsMode weights;
	const char *weights_section;
	int64_t max_workspace;
	const char *cc;
	const char *cflags;
	bool backend_llvm;               /* --backend llvm */
	const char *triple;              /* --triple */
	const char *quantize;            /* --quantize int8 */
	bool weights_int8;               /* --quantize weights-int8 */
	const char *calibrate;           /* --calibrate DIR */
	CalibMethod calibration;         /* --calibration */
	double percentile;               /* --calibration percentile=P */
	const char *keep_float[MAX_LIST];/* --keep-float NODE|OPTYPE,... */
	int n_keep_float;
	bool s8_acts;                    /* --activations s8 */
	bool reduce_range;               /* --reduce-range: 7-bit weights */
	int qstage;                      /* QSTAGE_*: an instrumented build of calibrate.c */
	const QuantRanges *qranges;      /* QSTAGE_INT8: the ranges to quantize with */
	QuantReport *qreport;            /* filled by a quantized build when set */
	PlaceConfig *place_report;       /* --target opencl: the placement's result, when set */
	const char *dump_ir;
	bool print_ir_after_all;
	const char *print_ir_after;
	const char *dot;
	const char *svg;                 /* --svg FILE: the final graph */
	const char *svg_before;          /* --svg-before FILE: the imported graph */
	const char *emit_qdq;            /* --emit-qdq FILE.onnx */
	bool profile;
	int verbosity;                   /* -q -1, -v 1, else 0 */
	Progress *progress;              /* the display of this build, or NULL */
	bool json;                       /* inspect --json */
	bool no_offsets;                 /* opt --no-offsets */
	/* check */
	const char *runner;
	double rtol, atol;
	bool rtol_set, atol_set;
	int jobs;
	int timeout_s;
	char flags_text[1024];           /* the flags as given, stamped into generated headers */
} Options;

/* Paths and names, for check.c and calibrate.c. */
static inline bool driver_is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static inline bool driver_is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* qsort's comparison of char * entries */
static inline int driver_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* option_table.c: every option once (the parser rejects others; the man page and the
 * bash completion are printed from it). */
enum { OPT_COMPILE = 1, OPT_CHECK = 2, OPT_INSPECT = 4, OPT_OPT = 8 };
typedef struct DriverOption {
	const char *name;                /* "--svg"; "-O0..-O3" stands for the four levels */
	const char *arg;                 /* its argument's metavariable, NULL for a flag */
	unsigned cmds;                   /* OPT_*: the subcommands that take it */
	const char *choices;             /* completion words of the argument ("c lib exe"),
	                                    "@targets", "@passes", or NULL */
	const char *help;                /* one line */
} DriverOption;
extern const DriverOption driver_options[];
extern const int driver_n_options;
/* The entry of flag for cmd, NULL if cmd does not take it. */
const DriverOption *driver_option_lookup(const char *flag, Command cmd);
void driver_print_man(FILE *f);            /* ingot --man: roff */
void driver_print_bash_completion(FILE *f);/* ingot --bash-completion */

/* options.c: the target the options name (--target, and --host-target for opencl). */
const Target *driver_target(const Options *o);
/* options.c: parses argv[first..]; reports a one-line usage error and returns -1. */
int driver_parse_options(Command cmd, int argc, char **argv, int first, Options *o);
void driver_usage(FILE *f);

/* compile.c: load + infer/fold + passes; the graph is ready for codegen. Returns an
 * EXIT_* code; diagnostics in d. */
int driver_build_graph(const Options *o, Graph *g, DiagSink *d);
/* The -O level's pipeline (or --passes), minus --disable-pass, then memory planning. */
int driver_run_passes(const Options *o, Graph *g, DiagSink *d);
/* The whole `compile`: graph, emit, and build lib/exe as asked. */
int driver_compile(const Options *o, DiagSink *d);
/* Exit code for a failed run: 3 when an op is unsupported, 2 usage, else 1. */
int driver_exit_code(const DiagSink *d);
/* Builds libNAME.a / the runner in out_dir with cc (fork/exec, no shell). */
int driver_build_outputs(const Options *o, const char *name, const char *out_dir,
                         const char *extern_kernels_lib, DiagSink *d);

/* compile.c: the archiver that goes with a C compiler (aarch64-linux-gnu-gcc →
 * aarch64-linux-gnu-ar); whether programs of a target run on this machine. */
const char *driver_ar_for(const char *cc, char *buf, size_t cap);
bool driver_runs_natively(const char *target);

/* proc.c: runs argv in cwd with a timeout (0 = none); stdout+stderr captured into
 * out (first cap-1 bytes). Returns the exit status, 124 on timeout, -1 if it could
 * not start, 128+N when killed by signal N. */
int proc_run(const char *const argv[], const char *cwd, int timeout_s, char *out, size_t cap);
/* Splits a command string on whitespace into argv (malloc'd strings). */
int proc_split(const char *cmd, char **argv, int max);

/* check.c: the kernels (with the tensor I/O and the runner) compiled once into
 * work/libingot_kernels.a, or taken from INGOT_CHECK_CACHE; NULL when that fails. */
const char *driver_kernels_lib(const Options *o, const char *work, char *lib, size_t cap);

/* compile.c: emits the code of a built graph as name into out_dir (emit: EMIT_*). */
int driver_emit(const Options *o, Graph *g, const char *name, const char *out_dir, unsigned emit,
                DiagSink *d);

/* calibrate.c: --quantize int8 on a graph just imported and inferred: the float
 * simplifications, calibration on instrumented builds of the model (Options.qstage),
 * the QDQ pairs, and the accuracy report into o->qreport. Returns an EXIT_* code. */
int driver_quantize_graph(const Options *o, Graph *g, DiagSink *d);

/* calibrate_report.c: the report's comparison of the int8 build with the fp32 build
 * (the file calib --compare wrote), and the report as text or JSON. */
int quant_report_read(QuantReport *r, const char *path);
void quant_report_print(const QuantReport *r, FILE *f);
void quant_report_json(const QuantReport *r, FILE *f);
void quant_report_free(QuantReport *r);

/* picture.c: g drawn by Graphviz (dot -Tsvg) into path; flag names the option in the
 * error when dot is missing. Returns 0, or -1 with a diagnostic. */
int driver_write_svg(const Graph *g, const DotStyle *style, const char *path, const char *flag,
                     DiagSink *d);
/* compile.c: how --dot/--svg colour the final graph: by device (fill colours below)
 * for --target opencl, else NULL (by op family). */
#define DRIVER_COLOR_DEVICE "#f4a582"
#define DRIVER_COLOR_CPU "#92c5de"
#define DRIVER_COLOR_COPY "#ffffbf"
const DotStyle *driver_dot_style(const Options *o);

/* progress.c: start (verbosity -1/0/1), a new stage (g: for the node count, may be
 * NULL; p may be NULL: nothing), the end (clears the line; -v: the total);
 * progress_echo is the DiagSink echo_line hook (clears the line, prints, under the lock). */
void progress_start(Progress *p, int verbosity);
void progress_stage(Progress *p, const char *what, const Graph *g);
void progress_echo(void *p, FILE *f, const char *line);
void progress_end(Progress *p);
/* compile.c: the diagnostics sink of a command on stderr, with o's -q, its progress
 * display started in prog (the caller ends it with progress_end). */
void driver_sink_init(DiagSink *d, const Options *o, Progress *prog);

/* inspect_report.c: inspect's default output, of a built graph g with weights w, the
 * op histogram hist (OP_COUNT counts), and the totals inspect.c computed. */
/* inspect_place.c: the placement of --target opencl (partitions, copies, the cost
 * model's estimates and islands, why each CPU node stays there), as text or as the
 * "placement" member of --json. */
void inspect_place_print(const Options *o, Graph *g, const PlaceConfig *pc, bool json);
void inspect_report_print(const Options *o, const Graph *g, const WeightsLayout *w, const int *hist,
                          int n_nodes, int64_t params, int64_t macs);
/* With --cpu or --target host: the machine detected, the core and the blocking chosen
 * (json: as a ", \"cpu\": {...}" member) */
void inspect_target_print(const Options *o, bool json);

/* the subcommands */
/* check_value.c: a test data file read as the value the model declares there: the
 * tensors the compiled model takes or gives for it (a sequence: one per element; an
 * empty optional: none). Returns 0, or -1 with a one-line reason in err. */
typedef struct CheckValue {
	int n;
	struct ingot_tensor *t;          /* n tensors, malloc-owned */
	bool none;                       /* an empty optional */
	bool seq;                        /* a sequence (possibly inside an optional) */
} CheckValue;
int check_value_read(const char *path, IoKind kind, CheckValue *v, char *err, size_t cap);
void check_value_free(CheckValue *v);

/* check_compare.c: the tolerance rule of `ingot check`. A value given (--rtol/--atol,
 * or a test's `tolerance` file) holds for every float type; one not given takes the
 * element type's default: f64 CHECK_F64_RTOL/ATOL, other floats rtol/atol's defaults
 * (ONNX's 1e-3, 1e-7). */
#define CHECK_F64_RTOL 1e-12
#define CHECK_F64_ATOL 1e-15
typedef struct CheckTol {
	double rtol, atol;
	bool rtol_set, atol_set;
} CheckTol;
/* Reads rtol and atol from dir/tolerance when there is one, for those not set yet. */
void check_read_tolerance(const char *dir, CheckTol *tol);
/* Compares got with want: 0, or -1 with the first difference in why. */
int check_compare(const struct ingot_tensor *got, const struct ingot_tensor *want, const CheckTol *tol,
                  char *why, size_t cap);

int cmd_compile(const Options *o);
int cmd_check(const Options *o);
int cmd_inspect(const Options *o);
int cmd_opt(const Options *o);

#endif /* INGOT_DRIVER_H */
