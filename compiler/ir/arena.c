/* arena.c — the IR's memory: a chunked bump allocator freed in one call, and the
 * one overflow-checked growable-vector helper. Test builds shrink chunks and grow
 * small vectors one element at a time (INGOT_TEST_SMALL_CHUNKS) so that the growth
 * paths always run. */
#include "ir.h"

#include <stdarg.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

struct ArenaChunk {
	ArenaChunk *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
};

#ifdef INGOT_TEST_SMALL_CHUNKS
#define CHUNK_SIZE 256
#else
#define CHUNK_SIZE (64 * 1024)
#endif

void arena_init(Arena *a)
{
	a->head = NULL;
	a->chunk_size = CHUNK_SIZE;
	a->total = 0;
}

void arena_free(Arena *a)
{
	ArenaChunk *c = a->head;
	while (c) {
		ArenaChunk *next = c->next;
		free(c);
		c = next;
	}
	a->head = NULL;
	a->total = 0;
}

void *arena_alloc(Arena *a, size_t size)
{
	ArenaChunk *c = a->head;
	size = (size + 15) & ~(size_t)15;
	if (size == 0)
		size = 16;
	if (!c || c->cap - c->used < size) {
		size_t cap = size > a->chunk_size ? size : a->chunk_size;
		if (cap > SIZE_MAX - sizeof *c)
			die("arena allocation too large");
		c = malloc(sizeof *c + cap);
		if (!c)
			die("out of memory (%zu bytes)", cap);
		c->used = 0;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
	}
	void *p = c->data + c->used;
	c->used += size;
	a->total += size;
	memset(p, 0, size);
	return p;
}

void *arena_array(Arena *a, size_t n, size_t elem)
{
	if (elem && n > SIZE_MAX / elem)
		die("arena array overflow");
	return arena_alloc(a, n * elem);
}

char *arena_strdup(Arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = arena_alloc(a, n);
	memcpy(p, s, n);
	return p;
}

char *arena_printf(Arena *a, const char *fmt, ...)
{
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = arena_alloc(a, (size_t)(n < 0 ? 0 : n) + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	return p;
}

void mem_advise_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t huge = (uintptr_t)2 << 20;
	uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), b = ((uintptr_t)p + n) & ~(huge - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_HUGEPAGE);   /* only a hint: an error changes nothing */
#else
	(void)p;
	(void)n;
#endif
}

void vec_reserve(void **items, int *cap, int need, size_t elem)
{
	if (need <= *cap)
		return;
	if (need < 0 || need > INT32_MAX / 2)
		die("vector too large");
#ifdef INGOT_TEST_SMALL_CHUNKS
	/* one element at a time up to 64, so every growth path runs, then doubling as in a
	 * plain build (one at a time throughout made a 65536-instruction regex program
	 * quadratic: 168 s under ASan) */
	int ncap = *cap < 64 ? need : *cap;
#else
	int ncap = *cap ? *cap : 8;
#endif
	while (ncap < need)
		ncap *= 2;
	if ((size_t)ncap > SIZE_MAX / elem)
		die("vector too large");
	void *p = realloc(*items, (size_t)ncap * elem);
	if (!p)
		die("out of memory");
	mem_advise_huge(p, (size_t)ncap * elem);
	memset((char *)p + (size_t)*cap * elem, 0, (size_t)(ncap - *cap) * elem);
	*items = p;
	*cap = ncap;
}

bool size_mul(int64_t a, int64_t b, int64_t *out)
{
	if (a < 0 || b < 0)
		return false;
	if (a != 0 && b > INT64_MAX / a)
		return false;
	*out = a * b;
	return true;
}

bool size_add(int64_t a, int64_t b, int64_t *out)
{
	if (a < 0 || b < 0 || a > INT64_MAX - b)
		return false;
	*out = a + b;
	return true;
}

uint32_t ir_fnv1a32(uint32_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

uint64_t ir_fnv1a64(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}
