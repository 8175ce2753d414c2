/*
 * t_udiff.c - the unified diff of export/udiff.c (kt_export_udiff): exact output on small cases
 * (the format of GNU diff -u), and on random inputs that applying the diff
 * to a gives b and that the diff is minimal (as many changed lines as
 * len(a) + len(b) - 2 * LCS, computed by dynamic programming).
 */
#include "testutil.h"
#include "../../export/export.h"

static char *run_diff(const char *a, const char *b, int ctx, int *hunks)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*hunks = kt_export_udiff(a, strlen(a), b, strlen(b), "a", "b", ctx, f);
	fclose(f);
	return buf;
}

static void expect(const char *a, const char *b, int ctx, const char *want)
{
	int h;
	char *got = run_diff(a, b, ctx, &h);

	assert_true(h >= 0);
	assert_string_equal(got, want);
	free(got);
}

static void t_identical(void **st)
{
	int h;
	char *got = run_diff("x\ny\n", "x\ny\n", 3, &h);

	(void)st;
	assert_int_equal(h, 0);
	assert_string_equal(got, "");
	free(got);
	got = run_diff("", "", 3, &h);
	assert_int_equal(h, 0);
	free(got);
}

static void t_exact(void **st)
{
	(void)st;
	expect("a\nb\nc\n", "a\nB\nc\n", 3,
	       "--- a\n+++ b\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
	/* new and deleted files: an empty range names the line before */
	expect("", "x\ny\n", 3, "--- a\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n");
	expect("x\n", "", 3, "--- a\n+++ b\n@@ -1 +0,0 @@\n-x\n");
	/* a missing final newline is a difference of its own */
	expect("a\nb", "a\nb\n", 3,
	       "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n"
	       "\\ No newline at end of file\n+b\n");
	/* pure insertion in the middle, one line of context */
	expect("1\n2\n3\n4\n", "1\n2\nX\n3\n4\n", 1,
	       "--- a\n+++ b\n@@ -2,2 +2,3 @@\n 2\n+X\n 3\n");
}

static void t_hunks(void **st)
{
	char a[4096] = "", b[4096] = "";
	int i, h;
	char *out;

	(void)st;
	for (i = 0; i < 40; i++) {
		char l[16];

		snprintf(l, sizeof(l), "%d\n", i);
		strcat(a, l);
		strcat(b, i == 5 || i == 30 ? "changed\n" : l);
	}
	out = run_diff(a, b, 3, &h);
	assert_int_equal(h, 2); /* 24 equal lines apart: two hunks */
	assert_non_null(strstr(out, "@@ -3,7 +3,7 @@\n"));
	assert_non_null(strstr(out, "@@ -28,7 +28,7 @@\n"));
	free(out);
	out = run_diff(a, b, 12, &h);
	assert_int_equal(h, 1); /* 24 <= 2 * 12: merged */
	free(out);
}

/* Apply a unified diff to a; returns the result (malloc'ed) or NULL when
 * the diff does not fit a. */
static char *apply(const char *a, const char *diff)
{
	size_t alen = strlen(a), cap = strlen(a) + strlen(diff) + 1, rl = 0;
	char *r = malloc(cap);
	const char *ap = a, *d = diff;
	int last_from_a = 0; /* where the previous line went */

	if (!r)
		return NULL;
	while (*d) {
		const char *eol = strchr(d, '\n');
		size_t n = eol ? (size_t)(eol - d) : strlen(d);

		if (!strncmp(d, "--- ", 4) || !strncmp(d, "+++ ", 4)) {
			/* header */
		} else if (!strncmp(d, "@@ -", 4)) {
			long s = strtol(d + 4, NULL, 10);
			const char *comma = memchr(d, ',', n);
			const char *sp = memchr(d + 4, ' ', n - 4);
			long cnt = (comma && comma < sp) ?
				strtol(comma + 1, NULL, 10) : 1;
			long start = cnt ? s - 1 : s, line = 0;
			const char *q = a;

			/* copy lines of a up to the hunk */
			while (line < start) {
				const char *e = strchr(q, '\n');

				q = e ? e + 1 : a + alen;
				line++;
			}
			if (q < ap)
				goto bad;
			memcpy(r + rl, ap, (size_t)(q - ap));
			rl += (size_t)(q - ap);
			ap = q;
		} else if (d[0] == ' ' || d[0] == '-') {
			size_t al = strcspn(ap, "\n");

			if (al != n - 1 || memcmp(ap, d + 1, al))
				goto bad;
			if (d[0] == ' ') {
				memcpy(r + rl, ap, al + (ap[al] == '\n'));
				rl += al + (ap[al] == '\n');
			}
			ap += al + (ap[al] == '\n');
			last_from_a = d[0] == ' ' ? 2 : 1;
		} else if (d[0] == '+') {
			memcpy(r + rl, d + 1, n - 1);
			rl += n - 1;
			r[rl++] = '\n';
			last_from_a = 0;
		} else if (d[0] == '\\') {
			if (last_from_a == 0 && rl && r[rl - 1] == '\n')
				rl--;
		} else {
			goto bad;
		}
		d += n + (eol != NULL);
	}
	memcpy(r + rl, ap, strlen(ap));
	rl += strlen(ap);
	r[rl] = 0;
	return r;
bad:
	free(r);
	return NULL;
}

static long lcs(const char **x, int n, const char **y, int m)
{
	long *t = calloc((size_t)(n + 1) * (size_t)(m + 1), sizeof(long)), v;
	int i, j;

	assert_non_null(t);
	for (i = n - 1; i >= 0; i--)
		for (j = m - 1; j >= 0; j--)
			t[i * (m + 1) + j] = !strcmp(x[i], y[j]) ?
				1 + t[(i + 1) * (m + 1) + j + 1] :
				(t[(i + 1) * (m + 1) + j] > t[i * (m + 1) + j + 1] ?
				 t[(i + 1) * (m + 1) + j] : t[i * (m + 1) + j + 1]);
	v = t[0];
	free(t);
	return v;
}

static void t_random(void **st)
{
	static const char *alpha[] = { "a", "b", "c", "d", "{", "}", "" };
	const char *x[80], *y[80];
	char a[1024], b[1024];
	unsigned seed = 12345;
	int iter;

	(void)st;
	for (iter = 0; iter < 2000; iter++) {
		int n, m, i, h, changed = 0, ctx = iter % 4;
		char *out, *res, *p;

#define RND() (seed = seed * 1103515245u + 12345u, (seed >> 16) & 0x7fff)
		n = (int)(RND() % 40);
		m = (int)(RND() % 40);
		a[0] = b[0] = 0;
		for (i = 0; i < n; i++) {
			x[i] = alpha[RND() % 7];
			strcat(strcat(a, x[i]), "\n");
		}
		for (i = 0; i < m; i++) {
			/* b is mostly a with mutations, sometimes unrelated */
			y[i] = (i < n && RND() % 4) ? x[i] : alpha[RND() % 7];
			strcat(strcat(b, y[i]), "\n");
		}
		if (iter % 5 == 0 && n) /* no newline at the end of a */
			a[strlen(a) - 1] = 0;
		out = run_diff(a, b, ctx, &h);
		assert_true(h >= 0);
		res = apply(a, out);
		if (!res || strcmp(res, b))
			fail_msg("diff does not turn a into b:\n%s---\n%s", a,
				 out);
		for (p = out; *p; p = strchr(p, '\n') + 1) {
			if ((*p == '+' || *p == '-') && p[1] != *p)
				changed++;
			if (!strchr(p, '\n'))
				break;
		}
		if (iter % 5 != 0 || !n)
			assert_int_equal(changed, n + m - 2 * lcs(x, n, y, m));
		free(res);
		free(out);
	}
}

static void t_large(void **st)
{
	size_t n = 20000, i;
	char *a = malloc(n * 8 + 1), *b = malloc(n * 8 + 1);
	FILE *f = fopen("/dev/null", "w");

	(void)st;
	assert_non_null(a);
	assert_non_null(b);
	for (i = 0; i < n; i++) {
		sprintf(a + 7 * i, "a%05zu\n", i);
		sprintf(b + 7 * i, "b%05zu\n", i);
	}
	/* nothing in common: linear space, one hunk */
	assert_int_equal(kt_export_udiff(a, strlen(a), b, strlen(b), "a", "b", 3, f),
			 1);
	fclose(f);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_identical),
		cmocka_unit_test(t_exact),
		cmocka_unit_test(t_hunks),
		cmocka_unit_test(t_random),
		cmocka_unit_test(t_large),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
