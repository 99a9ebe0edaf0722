/* ingot_runner.h — what the command-line runner (ingot_runner.c) knows of a model.
 * NAME_main.c fills one ingot_runner_model from NAME.h and passes it to
 * ingot_runner_main, so the runner itself is the same code for every model: ingot
 * check builds it once, into the kernel library every test links
 * (INGOT_RUNNER_EXTERN: the model's NAME_main.c then only exports its table). */
#ifndef INGOT_RUNNER_H
#define INGOT_RUNNER_H

#include "ingot_rt.h"

typedef struct ingot_runner_model {
	const char *name;
	int num_inputs, num_outputs;
	const ingot_io *inputs, *outputs;           /* NAME_inputs, NAME_outputs */
	size_t (*workspace_size_par)(int n_threads);   /* NAME_WORKSPACE_SIZE_PAR(n) */
	int (*run_par_v)(const void *const inputs[], void *const outputs[], void *workspace,
	                 const ingot_par *par);
	ingot_par *(*par_create)(int n_threads);
	void (*par_destroy)(ingot_par *par);
	int (*out_dims)(const void *workspace, int i, int64_t dims[INGOT_MAX_RANK]);
	void (*seed)(void *workspace, uint64_t seed);  /* NAME_seed, or NULL: no unseeded random ops */
	/* --profile builds: NAME_run_prof_v and NAME_prof_nodes, else NULL and 0 */
	int (*run_prof_v)(const void *const inputs[], void *const outputs[], void *workspace,
	                  const ingot_par *par, const ingot_prof *prof);
	const ingot_prof_node *prof_nodes;
	int num_prof_nodes;
	/* --target opencl: the device set up once for all the runs of the process
	 * (NAME_cl_init with cache_dir, NULL: no binary cache), info getting one line of
	 * what init did; NULL on failure, info saying why. Else all three are NULL and
	 * the runs go through run_par_v. */
	void *(*dev_open)(const char *cache_dir, char *info, size_t cap);
	int (*dev_run)(void *dev, const void *const inputs[], void *const outputs[], void *workspace,
	               const ingot_par *par);
	void (*dev_close)(void *dev);
} ingot_runner_model;

#ifdef INGOT_RUNNER_EXTERN
/* the model a prebuilt runner's main() runs (NAME_main.c defines it) */
extern const ingot_runner_model *const ingot_runner_the_model;
#endif

#endif /* INGOT_RUNNER_H */
