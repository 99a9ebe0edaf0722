/* embedded.h — the runtime-stubs sources built into ingot (tools/embed_stubs.py). */
#ifndef INGOT_EMBEDDED_H
#define INGOT_EMBEDDED_H

#include <stddef.h>

typedef struct IngotStub {
	const char *path;    /* relative to runtime-stubs/, e.g. "kernels/conv.c" */
	size_t size;
	const char *text;
} IngotStub;

extern const IngotStub ingot_stubs[];   /* terminated by { 0, 0, 0 } */

#endif
