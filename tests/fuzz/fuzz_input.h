/* fuzz_input.h — the loader reads a path, so the load and pipeline targets write each
 * input to TMPDIR/ingot-fuzz-TAG-PID.onnx first (one file per process, reused). */
#ifndef INGOT_FUZZ_INPUT_H
#define INGOT_FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *fuzz_write_input(const uint8_t *data, size_t size, const char *tag)
{
	static char path[512];
	const char *tmp = getenv("TMPDIR");
	FILE *f;
	if (!path[0])
		snprintf(path, sizeof path, "%s/ingot-fuzz-%s-%d.onnx", tmp && *tmp ? tmp : "/tmp", tag,
		         (int)getpid());
	f = fopen(path, "wb");
	if (!f)
		abort();
	if (size && fwrite(data, 1, size, f) != size)
		abort();
	fclose(f);
	return path;
}

#endif
