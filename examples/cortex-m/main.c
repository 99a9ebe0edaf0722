/* main.c — runs the digits model on a Cortex-M4 (no OS, no malloc): the workspace
 * is a static array, the weights sit in flash (.rodata.model), and the outputs are
 * compared with numpy's reference (expected.h) and printed over semihosting. */
#include <stdint.h>

#include "digits.h"
#include "expected.h"
#include "semihost.h"

static unsigned char workspace[DIGITS_WORKSPACE_SIZE > 0 ? DIGITS_WORKSPACE_SIZE : 1]
	__attribute__((aligned(64)));

/* "0.123456" for |x| < 10, with no printf in the image */
static char *fmt_fixed(char *p, float x)
{
	int32_t v = (int32_t)(x * 1000000.0f + (x < 0 ? -0.5f : 0.5f));
	if (v < 0) {
		*p++ = '-';
		v = -v;
	}
	*p++ = (char)('0' + v / 1000000 % 10);
	*p++ = '.';
	for (int32_t d = 100000; d >= 1; d /= 10)
		*p++ = (char)('0' + v / d % 10);
	return p;
}

int main(void)
{
	float image[64] = { 0 };
	float probs[10];
	char line[160], *p = line;
	int ok = 1;

	for (int row = 1; row < 7; row++)
		image[row * 8 + 4] = 1.0f;
	image[2 * 8 + 3] = 0.5f;
	if (digits_run(image, probs, workspace) != 0) {
		semihost_puts("digits_run failed\n");
		return 1;
	}
	for (int i = 0; i < 10; i++) {
		float d = probs[i] - expected_probs[i];
		if (d < 0)
			d = -d;
		if (d > 1e-5f + 1e-3f * expected_probs[i])
			ok = 0;
		p = fmt_fixed(p, probs[i]);
		*p++ = ' ';
	}
	p[-1] = '\n';
	*p = 0;
	semihost_puts(line);
	semihost_puts(ok ? "cortex-m: outputs match numpy\n" : "cortex-m: outputs DIFFER from numpy\n");
	return ok ? 0 : 1;
}
