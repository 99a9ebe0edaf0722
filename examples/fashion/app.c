/* app.c — classifies the 10,000 Fashion-MNIST test images with a compiled model.
 *
 *     app IMAGES LABELS [PREDICTIONS [COUNT]]
 *
 * IMAGES and LABELS are the data set's idx files, gunzipped (t10k-images-idx3-ubyte,
 * t10k-labels-idx1-ubyte). It links libfashion.a (made by `ingot compile NET.onnx --name
 * fashion --emit lib`), runs it once per image (pixels / 255 in, ten logits out), takes
 * the largest logit as the class, and prints the accuracy and the images per second.
 * PREDICTIONS, when given, receives the predicted classes as one line of digits, one per
 * image, so that run.sh can compare them with torch's; COUNT limits the run to the first
 * COUNT images (run.sh's qemu run, where emulation is about 30x slower). The workspace is static: no
 * allocation besides the data set itself. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fashion.h"

static unsigned char workspace[FASHION_WORKSPACE_SIZE > 0 ? FASHION_WORKSPACE_SIZE : 1]
	__attribute__((aligned(64)));

/* The payload of an idx file of unsigned bytes (magic 00 00 08 NDIM, then NDIM u32
 * big-endian dims) whose dims after the first multiply to ITEM: returns the data and sets
 * *count to the first dim, or prints one line and returns NULL. */
static unsigned char *read_idx(const char *path, unsigned ndim, size_t item, size_t *count)
{
	FILE *f = fopen(path, "rb");
	unsigned char head[4 + 4 * 3];
	unsigned char *data = NULL;
	size_t per = 1;

	if (!f) {
		fprintf(stderr, "app: cannot open %s\n", path);
		return NULL;
	}
	if (fread(head, 1, 4 + 4 * ndim, f) != 4 + 4 * ndim || head[0] || head[1] ||
	    head[2] != 0x08 || head[3] != ndim) {
		fprintf(stderr, "app: %s: not an idx file of %u-d unsigned bytes\n", path, ndim);
		goto out;
	}
	for (unsigned i = 0; i < ndim; i++) {
		const unsigned char *d = head + 4 + 4 * i;
		size_t v = (size_t)d[0] << 24 | (size_t)d[1] << 16 | (size_t)d[2] << 8 | d[3];
		if (i == 0)
			*count = v;
		else
			per *= v;
	}
	if (per != item || *count == 0 || *count > 1000000) {
		fprintf(stderr, "app: %s: items of %zu bytes (want %zu), %zu of them\n", path,
			per, item, *count);
		goto out;
	}
	data = malloc(*count * item);
	if (!data || fread(data, item, *count, f) != *count) {
		fprintf(stderr, "app: %s: shorter than its %zu items\n", path, *count);
		free(data);
		data = NULL;
	}
out:
	fclose(f);
	return data;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	enum { PIXELS = 28 * 28, CLASSES = 10 };
	size_t n = 0, n_labels = 0, correct = 0;
	unsigned char *images, *labels;
	float image[PIXELS], logits[CLASSES];
	char *pred;
	FILE *out = NULL;

	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: app IMAGES LABELS [PREDICTIONS [COUNT]]\n");
		return 2;
	}
	if (fashion_inputs[0].bytes != sizeof image || fashion_outputs[0].bytes != sizeof logits) {
		fprintf(stderr, "app: the model does not take 1x1x28x28 floats to 10 logits\n");
		return 1;
	}
	images = read_idx(argv[1], 3, PIXELS, &n);
	labels = images ? read_idx(argv[2], 1, 1, &n_labels) : NULL;
	if (!labels)
		return 1;
	if (n != n_labels) {
		fprintf(stderr, "app: %zu images but %zu labels\n", n, n_labels);
		return 1;
	}
	if (argc == 5) {
		char *end;
		unsigned long count = strtoul(argv[4], &end, 10);
		if (*end || count == 0) {
			fprintf(stderr, "app: COUNT must be a positive number, not '%s'\n", argv[4]);
			return 2;
		}
		if (count < n)
			n = count;
	}
	pred = malloc(n + 1);
	if (!pred)
		return 1;

	double start = now();
	for (size_t i = 0; i < n; i++) {
		int best = 0;
		for (int p = 0; p < PIXELS; p++)
			image[p] = (float)images[i * PIXELS + p] / 255.0f;
		int rc = fashion_run(image, logits, workspace);
		if (rc != 0) {
			fprintf(stderr, "app: fashion_run failed on image %zu: %d\n", i, rc);
			return 1;
		}
		for (int c = 1; c < CLASSES; c++)
			if (logits[c] > logits[best])
				best = c;
		pred[i] = (char)('0' + best);
		correct += best == labels[i];
	}
	double seconds = now() - start;
	pred[n] = '\0';

	printf("accuracy %.2f%% (%zu of %zu test images)\n", 100.0 * (double)correct / (double)n,
	       correct, n);
	printf("%.0f images/s (%.1f us per image, one thread, %d bytes of workspace)\n",
	       (double)n / seconds, 1e6 * seconds / (double)n, FASHION_WORKSPACE_SIZE);
	if (argc >= 4) {
		out = fopen(argv[3], "w");
		if (!out || fprintf(out, "%s\n", pred) < 0 || fclose(out) != 0) {
			fprintf(stderr, "app: cannot write %s\n", argv[3]);
			return 1;
		}
	}
	free(pred);
	free(images);
	free(labels);
	return 0;
}
