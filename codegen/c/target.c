/* target.c — the portable C99 target: the reference kernels from runtime-stubs,
 * called in order from one generated function. Every other target falls back to it. */
#include "c_target.h"

#include <string.h>

const Target cg_target_c = {
	.name = "c",
	.cc = "cc",
	.cflags = "-O2 -std=c99 -Wall -Wextra -I.",
	.lower = cg_c_lower,
	.emit = cg_c_emit,
};

const Target *cg_target_lookup(const char *name)
{
	static const Target *const targets[] = { &cg_target_c };
	for (int i = 0; i < COUNTOF(targets); i++)
		if (strcmp(targets[i]->name, name) == 0)
			return targets[i];
	return NULL;
}
