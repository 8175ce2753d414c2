/*
 * udiff.c - unified diff of two texts by lines (see export.h).
 *
 * Lines are interned to integers first, so the O(ND) search compares ints.
 * The search marks which lines of a are deleted and which lines of b are
 * inserted; hunks are cut from those marks the way GNU diff does.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"

struct line {
	const char *p;
	size_t len;
	int nl; /* ends with '\n' ("a" and "a\n" differ, as in diff) */
};

struct side {
	struct line *l;
	long n;
	long *id;
	char *mark; /* deleted (a) or inserted (b) */
};

struct ud {
	struct side a, b;
};

static int split_lines(const char *p, size_t len, struct side *s)
{
	size_t i, start = 0, cap = 16;

	s->n = 0;
	s->l = malloc(cap * sizeof(*s->l));
	if (!s->l)
		return -1;
	for (i = 0; i <= len; i++) {
		if (i < len && p[i] != '\n')
			continue;
		if (i == len && start == len)
			break;
		if (KT_GROW(s->l, cap, (size_t)s->n + 1))
			return -1;
		s->l[s->n].p = p + start;
		s->l[s->n].len = i - start;
		s->l[s->n].nl = i < len;
		s->n++;
		start = i + 1;
	}
	s->id = malloc(((size_t)s->n + 1) * sizeof(*s->id));
	s->mark = calloc((size_t)s->n + 1, 1);
	return s->id && s->mark ? 0 : -1;
}

static uint64_t line_hash(const struct line *l)
{
	/* the newline flag as one more byte */
	return (kt_fnv1a(KT_FNV1A_INIT, l->p, l->len) ^ (uint64_t)l->nl) *
	       1099511628211ull;
}

static int line_eq(const struct line *x, const struct line *y)
{
	return x->len == y->len && x->nl == y->nl &&
	       memcmp(x->p, y->p, x->len) == 0;
}

/* Equal lines get equal ids: open addressing over both sides' lines. */
static int intern(struct ud *u)
{
	size_t cap = 16, mask, i, k;
	long total = u->a.n + u->b.n, next = 0, j;
	struct line **slot;
	long *slot_id;
	int side;

	while (cap < 2 * (size_t)total + 2)
		cap *= 2;
	mask = cap - 1;
	slot = calloc(cap, sizeof(*slot));
	slot_id = malloc(cap * sizeof(*slot_id));
	if (!slot || !slot_id) {
		free(slot);
		free(slot_id);
		return -1;
	}
	for (side = 0; side < 2; side++) {
		struct side *s = side ? &u->b : &u->a;

		for (j = 0; j < s->n; j++) {
			k = (size_t)line_hash(&s->l[j]) & mask;
			for (i = 0; slot[k] && !line_eq(slot[k], &s->l[j]); i++)
				k = (k + 1) & mask;
			if (!slot[k]) {
				slot[k] = &s->l[j];
				slot_id[k] = next++;
			}
			s->id[j] = slot_id[k];
		}
	}
	free(slot);
	free(slot_id);
	return 0;
}

static int diff_range(struct ud *u, long a0, long a1, long b0, long b1);

/*
 * Find the middle snake of a[a0,a1) vs b[b0,b1) and recurse on both sides
 * of it.  Both ranges are non-empty and share no prefix or suffix here.
 */
static int bisect(struct ud *u, long a0, long a1, long b0, long b1)
{
	const long *A = u->a.id + a0, *B = u->b.id + b0;
	long n = a1 - a0, m = b1 - b0;
	long max_d = (n + m + 1) / 2, off = max_d, vlen = 2 * max_d + 2;
	long delta = n - m, d, k1, k2, x1, y1, x2, y2;
	long k1start = 0, k1end = 0, k2start = 0, k2end = 0;
	int front = (delta & 1) != 0;
	long *v1 = malloc(2 * (size_t)vlen * sizeof(*v1)), *v2;

	if (!v1)
		return -1;
	v2 = v1 + vlen;
	for (d = 0; d < vlen; d++)
		v1[d] = v2[d] = -1;
	v1[off + 1] = v2[off + 1] = 0;
	for (d = 0; d < max_d; d++) {
		for (k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
			long ko = off + k1;

			if (k1 == -d || (k1 != d && v1[ko - 1] < v1[ko + 1]))
				x1 = v1[ko + 1];
			else
				x1 = v1[ko - 1] + 1;
			y1 = x1 - k1;
			while (x1 < n && y1 < m && A[x1] == B[y1]) {
				x1++;
				y1++;
			}
			v1[ko] = x1;
			if (x1 > n) {
				k1end += 2;
			} else if (y1 > m) {
				k1start += 2;
			} else if (front) {
				long k2o = off + delta - k1;

				if (k2o >= 0 && k2o < vlen && v2[k2o] != -1 &&
				    x1 >= n - v2[k2o])
					goto split;
			}
		}
		for (k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
			long ko = off + k2;

			if (k2 == -d || (k2 != d && v2[ko - 1] < v2[ko + 1]))
				x2 = v2[ko + 1];
			else
				x2 = v2[ko - 1] + 1;
			y2 = x2 - k2;
			while (x2 < n && y2 < m &&
			       A[n - x2 - 1] == B[m - y2 - 1]) {
				x2++;
				y2++;
			}
			v2[ko] = x2;
			if (x2 > n) {
				k2end += 2;
			} else if (y2 > m) {
				k2start += 2;
			} else if (!front) {
				long k1o = off + delta - k2;

				if (k1o >= 0 && k1o < vlen && v1[k1o] != -1) {
					x1 = v1[k1o];
					y1 = off + x1 - k1o;
					if (x1 >= n - x2)
						goto split;
				}
			}
		}
	}
	/* No common line at all: replace everything. */
	free(v1);
	memset(u->a.mark + a0, 1, (size_t)n);
	memset(u->b.mark + b0, 1, (size_t)m);
	return 0;
split:
	free(v1);
	if (diff_range(u, a0, a0 + x1, b0, b0 + y1))
		return -1;
	return diff_range(u, a0 + x1, a1, b0 + y1, b1);
}

static int diff_range(struct ud *u, long a0, long a1, long b0, long b1)
{
	while (a0 < a1 && b0 < b1 && u->a.id[a0] == u->b.id[b0]) {
		a0++;
		b0++;
	}
	while (a0 < a1 && b0 < b1 && u->a.id[a1 - 1] == u->b.id[b1 - 1]) {
		a1--;
		b1--;
	}
	if (a0 == a1 || b0 == b1) {
		memset(u->a.mark + a0, 1, (size_t)(a1 - a0));
		memset(u->b.mark + b0, 1, (size_t)(b1 - b0));
		return 0;
	}
	return bisect(u, a0, a1, b0, b1);
}

enum { OP_EQ, OP_DEL, OP_INS };
struct op {
	int type;
	long ai, bj; /* lines of a and b consumed before this op */
};

static void put_line(FILE *out, char c, const struct line *l)
{
	fputc(c, out);
	fwrite(l->p, 1, l->len, out);
	fputc('\n', out);
	if (!l->nl)
		fputs("\\ No newline at end of file\n", out);
}

/* GNU diff prints "l,n", or "l" when n is 1; an empty range names the
 * line before it. */
static void put_range(FILE *out, long start, long count)
{
	if (count == 1)
		fprintf(out, "%ld", start + 1);
	else
		fprintf(out, "%ld,%ld", count ? start + 1 : start, count);
}

static int emit(struct ud *u, int context, const char *la, const char *lb,
		FILE *out)
{
	long nops = 0, i = 0, j = 0, h, e, k, next;
	int hunks = 0;
	struct op *ops = malloc(((size_t)u->a.n + (size_t)u->b.n + 1) *
				sizeof(*ops));

	if (!ops)
		return -1;
	while (i < u->a.n || j < u->b.n) {
		ops[nops].ai = i;
		ops[nops].bj = j;
		if (i < u->a.n && u->a.mark[i]) {
			ops[nops++].type = OP_DEL;
			i++;
		} else if (j < u->b.n && u->b.mark[j]) {
			ops[nops++].type = OP_INS;
			j++;
		} else {
			ops[nops++].type = OP_EQ;
			i++;
			j++;
		}
	}
	for (k = 0; k < nops; k = e) {
		long na = 0, nb = 0;

		while (k < nops && ops[k].type == OP_EQ)
			k++;
		if (k == nops)
			break;
		/* The hunk ends where more than 2*context equal lines follow
		 * its last change. */
		e = k;
		for (;;) {
			while (e < nops && ops[e].type != OP_EQ)
				e++;
			next = e;
			while (next < nops && ops[next].type == OP_EQ)
				next++;
			if (next == nops || next - e > 2L * context)
				break;
			e = next;
		}
		h = k - context < 0 ? 0 : k - context;
		e = e + context > nops ? nops : e + context;
		for (i = h; i < e; i++) {
			na += ops[i].type != OP_INS;
			nb += ops[i].type != OP_DEL;
		}
		if (!hunks)
			fprintf(out, "--- %s\n+++ %s\n", la, lb);
		fputs("@@ -", out);
		put_range(out, ops[h].ai, na);
		fputs(" +", out);
		put_range(out, ops[h].bj, nb);
		fputs(" @@\n", out);
		for (i = h; i < e; i++) {
			if (ops[i].type == OP_EQ)
				put_line(out, ' ', &u->a.l[ops[i].ai]);
			else if (ops[i].type == OP_DEL)
				put_line(out, '-', &u->a.l[ops[i].ai]);
			else
				put_line(out, '+', &u->b.l[ops[i].bj]);
		}
		hunks++;
	}
	free(ops);
	return hunks;
}

int kt_export_udiff(const char *a, size_t alen, const char *b, size_t blen,
	     const char *label_a, const char *label_b, int context,
	     FILE *out)
{
	struct ud u;
	int rc = -1;

	memset(&u, 0, sizeof(u));
	if (context < 0)
		context = 0;
	if (split_lines(a ? a : "", a ? alen : 0, &u.a) ||
	    split_lines(b ? b : "", b ? blen : 0, &u.b) || intern(&u) ||
	    diff_range(&u, 0, u.a.n, 0, u.b.n))
		goto out;
	rc = emit(&u, context, label_a, label_b, out);
out:
	free(u.a.l);
	free(u.a.id);
	free(u.a.mark);
	free(u.b.l);
	free(u.b.id);
	free(u.b.mark);
	return rc;
}
