/* app.c — a program that uses a compiled model: it links libdigits.a (made by
 * `ingot compile digits.onnx --emit lib`), classifies one 8x8 image and prints the
 * ten class probabilities and the winner. No allocation: the workspace is static. */
#include <stdio.h>

#include "digits.h"

static unsigned char workspace[DIGITS_WORKSPACE_SIZE > 0 ? DIGITS_WORKSPACE_SIZE : 1]
	__attribute__((aligned(64)));

int main(void)
{
	float image[1 * 1 * 8 * 8] = { 0 };
	float probs[10];
	int best = 0;

	/* the same sample make_model.py --reference uses: a vertical stroke */
	for (int row = 1; row < 7; row++)
		image[row * 8 + 4] = 1.0f;
	image[2 * 8 + 3] = 0.5f;

	int rc = digits_run(image, probs, workspace);
	if (rc != 0) {
		fprintf(stderr, "digits_run failed: %d\n", rc);
		return 1;
	}
	for (int i = 0; i < 10; i++) {
		printf("%s%.6f", i ? " " : "", (double)probs[i]);
		if (probs[i] > probs[best])
			best = i;
	}
	printf("\nclass %d (input '%s', %d bytes of workspace)\n", best, digits_inputs[0].name,
	       DIGITS_WORKSPACE_SIZE);
	return 0;
}
