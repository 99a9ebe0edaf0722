/* kgen.c — build-time helper of the LLVM backend (codegen/llvm/meson.build): for a
 * target, writes the generated SIMD vocabulary DIR/kernels/<simd>/ukernel.h (what
 * `ingot compile` writes next to a model) and prints the target's C flags, which
 * bitcode.py hands to clang for that target's kernel bitcode. */
#include "codegen.h"
#include "ukgen.h"

#include <stdio.h>

int main(int argc, char **argv)
{
	DiagSink d;
	const Target *t = argc == 3 ? cg_target_lookup(argv[1]) : NULL;
	if (!t) {
		fprintf(stderr, "usage: llvm_kgen TARGET DIR (targets: %s)\n", cg_target_names());
		return 2;
	}
	diag_sink_init(&d, stderr);
	int rc = t->simd[0] ? ukgen_write(t, argv[2], &d) : 0;
	diag_sink_free(&d);
	if (rc)
		return 1;
	printf("%s\n", t->cflags);
	return 0;
}
