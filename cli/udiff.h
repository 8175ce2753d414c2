/*
 * udiff.h - line-based unified diff (the format of GNU diff -u and git),
 * computed with Myers' O(ND) algorithm in linear space (E. W. Myers, "An
 * O(ND) Difference Algorithm and Its Variations", Algorithmica 1(2), 1986,
 * section 4b; the bisection follows diff-match-patch's diff_bisect,
 * https://github.com/google/diff-match-patch).
 */
#ifndef KT_UDIFF_H
#define KT_UDIFF_H
#include <stddef.h>
#include <stdio.h>

/*
 * Write the unified diff of a -> b to out: "--- label_a" / "+++ label_b"
 * headers, then hunks with `context` lines of context (3 in diff -u).  A
 * last line without a newline is marked "\ No newline at end of file".
 * Buffers are borrowed; they need no NUL terminator.  A NULL buffer with
 * length 0 is an empty file.
 * Returns the number of hunks written (0: identical, nothing written), or
 * -1 when memory runs out (out may hold a partial diff).
 */
int kt_udiff(const char *a, size_t alen, const char *b, size_t blen,
	     const char *label_a, const char *label_b, int context,
	     FILE *out);
#endif
