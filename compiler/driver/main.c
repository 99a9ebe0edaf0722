/* main.c — ingot's entry point: picks the subcommand; the only place that exits. */
#include "driver.h"

#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* glibc gives the heap's free top back to the system above 128 KB and maps blocks over
 * 128 KB (growing with what is freed) one by one, so a big model's memory is faulted in
 * twice: the decoded protobuf message, freed after import, then the IR and the emitted
 * text in fresh pages (each page fault costs, in a VM most of all). Keeping the heap
 * makes the later allocations reuse those pages: 10^5 graph inputs took 82,000 page
 * faults and 2.3 s, 56,000 and 1.9 s kept. Blocks of 32 MB and more (weights) are still
 * mapped alone: realloc moves them without a copy, and free gives them back. */
static void tune_malloc(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

int main(int argc, char **argv)
{
	static Options o;
	Command cmd;
	tune_malloc();
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		driver_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : EXIT_OK;
	}
	if (strcmp(argv[1], "--man") == 0) {
		driver_print_man(stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--bash-completion") == 0) {
		driver_print_bash_completion(stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("ingot %s\n", INGOT_VERSION);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "compile") == 0)
		cmd = CMD_COMPILE;
	else if (strcmp(argv[1], "check") == 0)
		cmd = CMD_CHECK;
	else if (strcmp(argv[1], "inspect") == 0)
		cmd = CMD_INSPECT;
	else if (strcmp(argv[1], "opt") == 0)
		cmd = CMD_OPT;
	else {
		fprintf(stderr, "ingot: unknown command '%s' (expected compile, check, inspect or opt)\n",
		        argv[1]);
		return EXIT_USAGE;
	}
	if (driver_parse_options(cmd, argc, argv, 2, &o))
		return EXIT_USAGE;
	switch (cmd) {
	case CMD_COMPILE: return cmd_compile(&o);
	case CMD_CHECK: return cmd_check(&o);
	case CMD_INSPECT: return cmd_inspect(&o);
	case CMD_OPT: return cmd_opt(&o);
	}
	return EXIT_USAGE;
}
