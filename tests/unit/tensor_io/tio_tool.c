/* tio_tool.c — command-line bridge for test_interop.py, built the way a generated
 * runner builds the reader: INGOT_TENSOR_IO_API is `static` and the .c is #included.
 *   tio_tool read IN RAW [IN RAW ...]  per file, one line on stdout
 *                                      "dtype=D rank=R dims=a,b bytes=N name=S" (data to RAW)
 *                                      or "error: IN: reason"; exit 1 if any failed
 *   tio_tool convert IN OUT [IN OUT ...]  read IN, write OUT (.npy by extension, else .pb);
 *                                      per pair, one line on stdout: "ok" or
 *                                      "error: FILE: reason"; exit 1 if any failed
 * (many files a run: test_interop.py reads and writes thousands, and a sanitizer
 * build pays its start-up once a process) */
#define INGOT_TENSOR_IO_API static
#include "ingot_tensor_io.c"

static int read_one(const char *in, const char *raw)
{
	ingot_tensor t;
	char err[512];
	FILE *f;
	int i;
	if (ingot_tensor_read(in, &t, err, sizeof err) != 0) {
		printf("error: %s: %s\n", in, err);
		return 1;
	}
	f = fopen(raw, "wb");
	if (!f || fwrite(t.data, 1, t.bytes, f) != t.bytes || fclose(f) != 0) {
		printf("error: cannot write %s\n", raw);
		ingot_tensor_free(&t);
		return 1;
	}
	printf("dtype=%d rank=%d dims=", t.dtype, t.rank);
	for (i = 0; i < t.rank; i++)
		printf(i ? ",%lld" : "%lld", (long long)t.dims[i]);
	printf(" bytes=%lu name=%s\n", (unsigned long)t.bytes, t.name);
	ingot_tensor_free(&t);
	return 0;
}

static int convert_one(const char *in, const char *out)
{
	ingot_tensor t;
	char err[512];
	int rc = 0;
	if (ingot_tensor_read(in, &t, err, sizeof err) != 0) {
		printf("error: %s: %s\n", in, err);
		return 1;
	}
	if (ingot_tensor_write(out, &t, err, sizeof err) != 0) {
		printf("error: %s: %s\n", out, err);
		rc = 1;
	} else {
		printf("ok\n");
	}
	ingot_tensor_free(&t);
	return rc;
}

int main(int argc, char **argv)
{
	int i, rc = 0, convert = argc > 1 && strcmp(argv[1], "convert") == 0;
	if (argc < 4 || argc % 2 != 0 || (!convert && strcmp(argv[1], "read") != 0)) {
		fprintf(stderr, "usage: tio_tool read IN RAW [IN RAW ...] | tio_tool convert IN OUT [IN OUT ...]\n");
		return 2;
	}
	for (i = 2; i < argc; i += 2)
		rc |= convert ? convert_one(argv[i], argv[i + 1]) : read_one(argv[i], argv[i + 1]);
	return rc;
}
