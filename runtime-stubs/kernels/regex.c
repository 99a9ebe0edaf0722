/* regex.c — RegexFullMatch's reference kernel (regex.h): Thompson's construction
 * run as a set of NFA states advanced in lock step over the input.
 *
 * At each position the current list holds the instructions that wait for a
 * character (CHAR, ANY, CLASS, NCLASS) or that finish (MATCH). Adding a state
 * follows JMP, SPLIT and ASSERT at once (the epsilon closure) with an explicit
 * stack, and a per-instruction mark (the position it was last added at) keeps
 * every instruction in a list at most once: a step costs O(n_inst), a string
 * O(n_inst * length), and patterns like (a*)* or (a|a)*b cannot blow up. The
 * string fully matches when a MATCH state is in the list after its last
 * character. Greedy and lazy repetitions differ only in which match a search
 * reports; for a full match they accept the same strings, so one NFA serves both.
 */
#include "regex.h"

#include <string.h>

typedef struct RxVm {
	const int32_t *inst;     /* n_inst instructions of 3 words */
	const int32_t *ranges;   /* (lo, hi) pairs */
	int32_t n_inst;
	int32_t *mark;           /* per instruction: position + 1 when last added */
	int32_t *stack;          /* n_inst entries: each instruction is pushed once per position */
} RxVm;

/* Checks a program before it runs: header, sizes, jump targets and range slices,
 * so a damaged constant gives INGOT_EINVAL instead of a wild read. */
static int rx_valid(const int32_t *p, int64_t words)
{
	int64_t n, r, pc;
	if (words < INGOT_RX_HEADER || p[0] != INGOT_RX_MAGIC)
		return 0;
	n = p[1];
	r = p[2];
	if (n < 1 || r < 0 || words != INGOT_RX_HEADER + 3 * n + 2 * r)
		return 0;
	for (pc = 0; pc < n; pc++) {
		const int32_t *in = p + INGOT_RX_HEADER + 3 * pc;
		int64_t x = in[1], y = in[2];
		switch (in[0]) {
		case INGOT_RX_MATCH:
			break;
		case INGOT_RX_SPLIT:
		case INGOT_RX_JMP:
			if (x < 0 || x >= n || (in[0] == INGOT_RX_SPLIT && (y < 0 || y >= n)))
				return 0;
			break;
		case INGOT_RX_CLASS:
		case INGOT_RX_NCLASS:
			if (x < 0 || y < 0 || x + y > r || pc + 1 >= n)
				return 0;
			break;
		case INGOT_RX_CHAR:
		case INGOT_RX_ANY:
		case INGOT_RX_ASSERT:
			if (pc + 1 >= n)
				return 0;
			break;
		default:
			return 0;
		}
	}
	return 1;
}

/* The code point at s[*i] (n bytes in all), advancing *i past it; a byte that
 * starts no valid UTF-8 sequence (overlong, surrogate, above U+10FFFF, cut short)
 * is the character 0x110000 + byte. */
static int32_t rx_decode(const unsigned char *s, size_t n, size_t *i)
{
	unsigned b = s[*i];
	int32_t cp, min;
	size_t len, k;
	if (b < 0x80) {
		(*i)++;
		return (int32_t)b;
	}
	if (b >= 0xc0 && b < 0xe0) {
		len = 2; min = 0x80; cp = (int32_t)(b & 0x1f);
	} else if (b >= 0xe0 && b < 0xf0) {
		len = 3; min = 0x800; cp = (int32_t)(b & 0x0f);
	} else if (b >= 0xf0 && b < 0xf5) {
		len = 4; min = 0x10000; cp = (int32_t)(b & 0x07);
	} else {
		len = 0; min = 0; cp = 0;
	}
	for (k = 1; len && k < len; k++) {
		if (*i + k >= n || (s[*i + k] & 0xc0) != 0x80) {
			len = 0;
			break;
		}
		cp = (cp << 6) | (int32_t)(s[*i + k] & 0x3f);
	}
	if (!len || cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
		(*i)++;
		return (int32_t)(0x110000 + b);
	}
	*i += len;
	return cp;
}

static int rx_is_word(int32_t c)
{
	return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

/* Whether assertion `at` holds between characters prev and next (-1: none). */
static int rx_holds(int32_t at, int32_t prev, int32_t next)
{
	switch (at) {
	case INGOT_RX_AT_BEGIN_TEXT: return prev < 0;
	case INGOT_RX_AT_END_TEXT: return next < 0;
	case INGOT_RX_AT_BEGIN_LINE: return prev < 0 || prev == '\n';
	case INGOT_RX_AT_END_LINE: return next < 0 || next == '\n';
	case INGOT_RX_AT_WORD: return rx_is_word(prev) != rx_is_word(next);
	case INGOT_RX_AT_NOT_WORD: return rx_is_word(prev) == rx_is_word(next);
	default: return 0;
	}
}

/* Adds instruction pc and its epsilon closure at the position marked `gen`
 * (between characters prev and next) to list (*n entries). */
static void rx_add(const RxVm *vm, int32_t *list, int32_t *n, int32_t pc, int32_t gen,
                   int32_t prev, int32_t next)
{
	int32_t sp = 0;
	if (vm->mark[pc] == gen)
		return;
	vm->mark[pc] = gen;
	vm->stack[sp++] = pc;
	while (sp > 0) {
		const int32_t *in;
		int32_t to[2], n_to = 0, k;
		pc = vm->stack[--sp];
		in = vm->inst + 3 * pc;
		switch (in[0]) {
		case INGOT_RX_JMP:
			to[n_to++] = in[1];
			break;
		case INGOT_RX_SPLIT:
			to[n_to++] = in[2];
			to[n_to++] = in[1];
			break;
		case INGOT_RX_ASSERT:
			if (rx_holds(in[1], prev, next))
				to[n_to++] = pc + 1;
			break;
		default:                 /* waits for a character, or MATCH */
			list[(*n)++] = pc;
			break;
		}
		for (k = 0; k < n_to; k++)
			if (vm->mark[to[k]] != gen) {
				vm->mark[to[k]] = gen;
				vm->stack[sp++] = to[k];
			}
	}
}

/* Whether instruction in (a character test) accepts c. */
static int rx_accepts(const RxVm *vm, const int32_t *in, int32_t c)
{
	int32_t k, hit = 0;
	switch (in[0]) {
	case INGOT_RX_CHAR: return c == in[1];
	case INGOT_RX_ANY: return in[1] || c != '\n';
	case INGOT_RX_CLASS:
	case INGOT_RX_NCLASS:
		for (k = in[1]; k < in[1] + in[2] && !hit; k++)
			hit = c >= vm->ranges[2 * k] && c <= vm->ranges[2 * k + 1];
		return in[0] == INGOT_RX_CLASS ? hit : !hit;
	default: return 0;
	}
}

/* Whether the n bytes at s match the whole program. */
static int rx_full_match(const RxVm *vm, int32_t *cur, int32_t *nxt, const unsigned char *s,
                         size_t n)
{
	size_t i = 0;
	int32_t n_cur = 0, gen = 1, prev = -1, c, k;
	memset(vm->mark, 0, (size_t)vm->n_inst * sizeof *vm->mark);
	c = n > 0 ? rx_decode(s, n, &i) : -1;
	rx_add(vm, cur, &n_cur, 0, gen, prev, c);
	while (c >= 0 && n_cur > 0) {
		int32_t next = i < n ? rx_decode(s, n, &i) : -1, n_nxt = 0, *t;
		gen++;
		for (k = 0; k < n_cur; k++) {
			const int32_t *in = vm->inst + 3 * cur[k];
			if (rx_accepts(vm, in, c))
				rx_add(vm, nxt, &n_nxt, cur[k] + 1, gen, c, next);
		}
		t = cur;
		cur = nxt;
		nxt = t;
		n_cur = n_nxt;
		prev = c;
		c = next;
	}
	if (c >= 0)
		return 0;                /* no state survived to the end */
	for (k = 0; k < n_cur; k++)
		if (vm->inst[3 * cur[k]] == INGOT_RX_MATCH)
			return 1;
	return 0;
}

INGOT_KERNEL int ingot_regex_full_match(const void *params, const void *const *in,
                                        void *const *out, void *scratch, int task, int n_tasks)
{
	const ingot_regex_params *p = (const ingot_regex_params *)params;
	const char *x = (const char *)in[0];
	const int32_t *prog = (const int32_t *)in[1];
	bool *y = (bool *)out[0];
	int32_t *sc = (int32_t *)scratch;
	int64_t i, lo, hi;
	RxVm vm;
	if (!x || !prog || !y || !sc || n_tasks < 1 || !rx_valid(prog, p->prog_words))
		return INGOT_EINVAL;
	vm.n_inst = prog[1];
	vm.inst = prog + INGOT_RX_HEADER;
	vm.ranges = vm.inst + 3 * (int64_t)vm.n_inst;
	vm.mark = sc + 2 * (int64_t)vm.n_inst;
	vm.stack = sc + 3 * (int64_t)vm.n_inst;
	lo = p->n * task / n_tasks;
	hi = p->n * (task + 1) / n_tasks;
	for (i = lo; i < hi; i++) {
		const char *s = x + i * INGOT_STRING_CAP;
		y[i] = rx_full_match(&vm, sc, sc + vm.n_inst, (const unsigned char *)s, ingot_str_len(s)) != 0;
	}
	return INGOT_OK;
}
