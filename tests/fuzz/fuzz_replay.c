/* fuzz_replay.c — a deterministic stand-in for libFuzzer: feeds every seed file and
 * N mutations of them (bit flips, byte overwrites, truncations, splices of another
 * seed) to LLVMFuzzerTestOneInput. Same arguments, same inputs, every run.
 *   fuzz_replay N SEED...      */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t state = 0x2545f4914f6cdd1dull;
static uint32_t next(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return (uint32_t)state;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "fuzz_replay: cannot read %s\n", path);
		exit(2);
	}
	buf = malloc(n ? (size_t)n : 1);   /* exactly n bytes, as libFuzzer hands them: ASan
	                                     * then sees a read one past the end */
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		exit(2);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

int main(int argc, char **argv)
{
	int n_seeds = argc - 2;
	long rounds;
	uint8_t **seeds;
	size_t *lens;
	if (argc < 3) {
		fprintf(stderr, "usage: fuzz_replay N SEED...\n");
		return 2;
	}
	rounds = atol(argv[1]);
	seeds = calloc((size_t)n_seeds, sizeof *seeds);
	lens = calloc((size_t)n_seeds, sizeof *lens);
	if (!seeds || !lens)
		return 2;
	for (int i = 0; i < n_seeds; i++) {
		seeds[i] = slurp(argv[i + 2], &lens[i]);
		LLVMFuzzerTestOneInput(seeds[i], lens[i]);
	}
	for (long r = 0; r < rounds; r++) {
		int s = (int)(next() % (uint32_t)n_seeds);
		size_t len = lens[s], cap = len + 64;
		uint8_t *buf = malloc(cap);
		if (!buf)
			return 2;
		memcpy(buf, seeds[s], len);
		int edits = 1 + (int)(next() % 4);
		for (int e = 0; e < edits && len > 0; e++) {
			size_t at = next() % len;
			switch (next() % 5) {
			case 0: buf[at] ^= (uint8_t)(1u << (next() % 8)); break;
			case 1: buf[at] = (uint8_t)next(); break;
			case 2: len = at; break;                       /* truncate */
			case 3: buf[at] = (uint8_t)(0x80 | next()); break; /* long varints */
			case 4: {                                      /* splice another seed in */
				int o = (int)(next() % (uint32_t)n_seeds);
				size_t take = lens[o] < cap - at ? lens[o] : cap - at;
				take = take > 32 ? 32 : take;
				memcpy(buf + at, seeds[o] + (lens[o] > take ? next() % (lens[o] - take) : 0), take);
				if (at + take > len)
					len = at + take;
				break;
			}
			}
		}
		uint8_t *exact = malloc(len ? len : 1);   /* the mutation, in exactly len bytes */
		if (!exact)
			return 2;
		memcpy(exact, buf, len);
		free(buf);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	printf("fuzz_replay: %d seeds, %ld mutations, no crash\n", n_seeds, rounds);
	return 0;
}
