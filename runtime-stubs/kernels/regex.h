/* regex.h — RegexFullMatch's reference kernel: a Thompson NFA simulation over a
 * program that the compiler builds from the RE2 pattern at compile time
 * (compiler/ops/regex.c) and stores as a constant int32 tensor. Matching visits
 * each program instruction at most once per input character, so the time is
 * linear in the string length whatever the pattern, and the memory is fixed by
 * the program size (kernel scratch), never allocated. Freestanding: <string.h> only.
 *
 * The program tensor (int32): [INGOT_RX_MAGIC, n_inst, n_ranges,
 * then n_inst instructions of 3 words (op, x, y), then n_ranges pairs (lo, hi)].
 * Instruction pc continues at pc + 1 unless its op says otherwise. Characters are
 * Unicode code points decoded from UTF-8; a byte that starts no valid sequence is
 * one character of its own (0x110000 + byte) that only `.` and negated classes
 * match. */
#ifndef INGOT_KERNELS_REGEX_H
#define INGOT_KERNELS_REGEX_H

#include "ingot_rt.h"

#define INGOT_RX_MAGIC  0x52583031   /* "RX01": the layout above */
#define INGOT_RX_HEADER 3            /* words before the first instruction */

/* Opcodes (word 0 of an instruction). ORDER RX_OP */
enum {
	INGOT_RX_CHAR,     /* x: the code point */
	INGOT_RX_ANY,      /* any character; x = 0: except '\n' */
	INGOT_RX_CLASS,    /* a character in ranges [x, x + y) */
	INGOT_RX_NCLASS,   /* a character in none of ranges [x, x + y) */
	INGOT_RX_SPLIT,    /* continue at both x and y (consumes nothing) */
	INGOT_RX_JMP,      /* continue at x */
	INGOT_RX_ASSERT,   /* continue at pc + 1 if assertion x (INGOT_RX_AT_*) holds here */
	INGOT_RX_MATCH     /* the whole pattern matched */
};

/* Zero-width assertions (x of INGOT_RX_ASSERT). ORDER RX_AT */
enum {
	INGOT_RX_AT_BEGIN_TEXT,   /* ^ (and \A) */
	INGOT_RX_AT_END_TEXT,     /* $ (and \z) */
	INGOT_RX_AT_BEGIN_LINE,   /* ^ under (?m): start of text or after '\n' */
	INGOT_RX_AT_END_LINE,     /* $ under (?m): end of text or before '\n' */
	INGOT_RX_AT_WORD,         /* \b: between an ASCII word character and a non-word one */
	INGOT_RX_AT_NOT_WORD      /* \B */
};

/* RegexFullMatch: out[0][i] (bool) = whether the whole of string i of in[0] (n
 * strings) matches the program in[1] (prog_words int32s, checked on entry: a
 * malformed program returns INGOT_EINVAL). Scratch: 4 * n_inst int32s (two thread
 * lists, a visit mark per instruction and a work stack). Tasks take disjoint
 * ranges of strings. */
#define INGOT_REGEX_FIELDS(F) F(I64, n) F(I64, prog_words)
INGOT_PARAMS(ingot_regex_params, INGOT_REGEX_FIELDS)

INGOT_KERNEL int ingot_regex_full_match(const void *params, const void *const *in,
                                        void *const *out, void *scratch, int task, int n_tasks);

#endif /* INGOT_KERNELS_REGEX_H */
