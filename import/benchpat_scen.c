/*
 * benchpat_scen.c - the scenario parameters of kt_bench_parse's results:
 * the problem size a result was measured at, from a table cell under a
 * size header (bp_scen_cell) or a line of sizes (bp_size_line), so that
 * results at different sizes are never compared.  Split from benchpat.c
 * along its sections; benchpat_int.h is what they share.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "benchpat_int.h"

/* ---- scenario parameters: the problem size a result was measured at ------ */
/* Whether a lower-case name (a table header, the name of a "Size1: 1000"
 * pair) names a problem size or shape: its values are part of the
 * scenario, so results at different sizes are never compared (FORMAT.md
 * section 2 "scenario").  Counts of the measurement itself (iterations,
 * repeats, warmup, runs) are not sizes. */
int bp_shape_name(const char *low)
{
	static const char *const exact[] = { "n", "m", "k", "b", "h", "d", "l",
		"bs", "nnz", NULL };
	static const char *const part[] = { "size", "shape", "dim", "batch",
		"seq", "len", "rows", "cols", "columns", "elements", "numel",
		"hidden", "heads", "channels", "width", "height", "matrix",
		"tokens", "vocab", "features", NULL };
	static const char *const not_size[] = { "iter", "repeat", "warm",
		"run", "time", "trial", "sample", NULL };
	size_t k = strlen(low);
	int i;

	/* "n", "N1", "k_2": a dimension's letter, maybe numbered */
	while (k && (isdigit((unsigned char)low[k - 1]) || low[k - 1] == '_'))
		k--;
	for (i = 0; exact[i]; i++)
		if (k && strlen(exact[i]) == k && !strncmp(low, exact[i], k))
			return 1;
	if (bp_any_word(low, not_size))
		return 0;
	return bp_any_word(low, part);
}

/* Whether s[0..n) is a size: a whole number or a shape of whole numbers
 * ("1024x1024", "64 x 64 x 32", "128*256", "2\xc3\x974"); 2 for a shape of
 * several dimensions, 1 for one number, 0 for anything else. */
static int shape_value(const char *s, size_t n)
{
	size_t i = 0, dims = 0;

	while (i < n) {
		size_t d = i;

		while (i < n && isdigit((unsigned char)s[i]))
			i++;
		if (i == d || i - d > 12)
			return 0;
		dims++;
		while (i < n && s[i] == ' ')
			i++;
		if (i == n)
			break;
		if (s[i] == 'x' || s[i] == 'X' || s[i] == '*')
			i++;
		else if (n - i >= 2 && !memcmp(s + i, "\xc3\x97", 2))
			i += 2;
		else
			return 0;
		while (i < n && s[i] == ' ')
			i++;
		if (i == n)
			return 0;
	}
	return dims > 1 ? 2 : (int)dims;
}

/* "name=value" of a size into d (cap bytes): the name in lower case with
 * runs of other characters as one '_' ("Size (elems)" -> size_elems), the
 * value without spaces. */
static void scen_param(char *d, size_t cap, const char *name, size_t nn,
		       const char *val, size_t vn)
{
	char buf[128];
	size_t k = 0, i;

	for (i = 0; i < nn && k < 60; i++) {
		unsigned char c = (unsigned char)name[i];

		if (isalnum(c))
			buf[k++] = (char)tolower(c);
		else if (k && buf[k - 1] != '_')
			buf[k++] = '_';
	}
	while (k && buf[k - 1] == '_')
		k--;
	if (!k)
		return;
	buf[k++] = '=';
	for (i = 0; i < vn && k < sizeof(buf) - 1; i++)
		if (val[i] != ' ')
			buf[k++] = val[i];
	buf[k] = 0;
	if (d[0] && strlen(d) + 1 < cap)
		strcat(d, " ");
	strncat(d, buf, cap - strlen(d) - 1);
}

/* A table cell of a column that is no measurement: text names the
 * scenario ("vector_addition"), and so does a size under a size header or
 * a shape ("Size" 128 -> size=128, "Matrix" 64x64 -> matrix=64x64); other
 * numbers (counts, errors) are not read. */
void bp_scen_cell(char *d, size_t cap, const char *head, size_t hn,
		  const char *c, size_t cn)
{
	char hl[96], p[160] = "";
	double x;
	int sv;

	if (!bp_num_at(c, cn, 0, &x)) {
		bp_scen_add(d, cap, c, cn);
		return;
	}
	bp_lower(hl, head, hn, sizeof(hl));
	sv = shape_value(c, cn);
	if (sv == 2 || (sv == 1 && bp_shape_name(hl))) {
		scen_param(p, sizeof(p), head, hn, c, cn);
		bp_scen_add(d, cap, p, strlen(p));
	}
}

/* Whether the sizes a and b (size_line's "n=64 m=32") name the same
 * sizes in the same order, whatever their values. */
int bp_same_keys(const char *a, const char *b)
{
	for (;;) {
		size_t ka = strcspn(a, "="), kb = strcspn(b, "=");

		if (ka != kb || strncmp(a, b, ka))
			return 0;
		a = strchr(a, ' ');
		b = strchr(b, ' ');
		if (!a || !b)
			return !a && !b;
		a++;
		b++;
	}
}

/* A line of sizes only, "Size1: 1000, Size2: 1500, Iterations: 100" or
 * "Matrix A: 64x64, Matrix B: 64x64": every comma-separated part a
 * "name: value" or "name=value" with a whole number or shape for value.
 * Writes the sizes among them ("size1=1000 size2=1500") to out (cap bytes)
 * and returns 1; 0 (out "") when the line is anything else or names no
 * size. */
int bp_size_line(const char *l, size_t n, char *out, size_t cap)
{
	size_t i = 0;

	out[0] = 0;
	while (i < n) {
		size_t a = i, e, s, z, v;
		char nl[96];
		int sv;

		while (i < n && l[i] != ',' && l[i] != ';')
			i++;
		e = i++;
		while (a < e && isspace((unsigned char)l[a]))
			a++;
		for (s = a; s < e && l[s] != ':' && l[s] != '='; s++)
			if (!isalnum((unsigned char)l[s]) && (!l[s] ||
							      !strchr(" _-.", l[s])))
				goto none;
		if (s == a || s == e || s - a > 40 || !isalpha((unsigned char)l[a]))
			goto none;
		z = s;
		while (z > a && isspace((unsigned char)l[z - 1]))
			z--;
		v = s + 1;
		while (v < e && isspace((unsigned char)l[v]))
			v++;
		while (e > v && isspace((unsigned char)l[e - 1]))
			e--;
		if (!(sv = shape_value(l + v, e - v)))
			goto none;
		bp_lower(nl, l + a, z - a, sizeof(nl));
		if (sv == 2 || bp_shape_name(nl))
			scen_param(out, cap, l + a, z - a, l + v, e - v);
	}
	return out[0] != 0;
none:
	out[0] = 0;
	return 0;
}

/* ---- operators: several in one output ------------------------------------ */
/* The operator and shape of result r: from a "kernel" column's cell (the
 * scenario is then the shape), else the label's leading word ("softmax"
 * of "softmax   [4096, 4096]") and the rest; 1 when there is a name and
 * a shape holding a digit, else 0. */
static int op_shape(const struct res *r, char *name, size_t ncap,
		    const char **shape)
{
	const char *s = r->scen, *e;
	size_t n;

	if (r->cand[0]) {
		if (!r->cand_weak)
			return 0;       /* a variant column: candidates */
		if (strlen(r->cand) >= ncap)
			return 0;
		memcpy(name, r->cand, strlen(r->cand) + 1);
		*shape = r->scen;
		return strpbrk(r->scen, "0123456789") != NULL;
	}
	/* under headings ("=== Add ===", "Tiled:"), the leading word is
	 * a heading's: what the headings name is not told apart here */
	if (r->headed || !isalpha((unsigned char)*s))
		return 0;
	for (e = s; isalnum((unsigned char)*e) || (*e && strchr("_-.", *e)); e++)
		;
	n = (size_t)(e - s);
	/* "size=128", "n=64": a size, not a name */
	if (*e == '=' || n >= ncap)
		return 0;
	while (*e && strchr(" \t:/|,-", *e))
		e++;
	if (!*e || !strpbrk(e, "0123456789"))
		return 0;
	/* the shape right after the name: "[4096, 4096]", "4096x4096",
	 * "(8, 1024)", "shape=...", never more words ("Vector Addition
	 * Benchmark / size1=1000": a heading, not an operator and a shape) */
	if (!isdigit((unsigned char)*e) && *e != '[' && *e != '(') {
		const char *q = e;

		while (isalnum((unsigned char)*q) || *q == '_')
			q++;
		if (q == e || *q != '=')
			return 0;
	}
	memcpy(name, s, n);
	name[n] = 0;
	*shape = e;
	return 1;
}

/* Each line result of s with a name over a shape and no candidate gets
 * the name as its candidate and the shape as its scenario. */
static void name_candidates(struct rs *s)
{
	char na[64];
	const char *sa;
	size_t i;

	for (i = 0; i < s->n; i++) {
		struct res *r = &s->r[i];
		char sh[256];

		/* a table's own column ("Operation") says what its cells
		 * are; only printed lines are read this way */
		if (!strcmp(r->pattern, "json") ||
		    !strcmp(r->pattern, "table") || r->cand[0] ||
		    !op_shape(r, na, sizeof(na), &sa))
			continue;
		snprintf(sh, sizeof(sh), "%s", sa);
		snprintf(r->cand, sizeof(r->cand), "%s", na);
		snprintf(r->scen, sizeof(r->scen), "%s", sh);
	}
}

void bp_split_operators(struct rs *s)
{
	char na[64], nb[64];
	const char *sa, *sb;
	size_t i, k;
	int names = 0;

	for (i = 0; i < s->n; i++) {
		if (!strcmp(s->r[i].pattern, "json") ||
		    !op_shape(&s->r[i], na, sizeof(na), &sa))
			continue;
		for (k = i + 1; k < s->n; k++) {
			if (!strcmp(s->r[k].pattern, "json") ||
			    !op_shape(&s->r[k], nb, sizeof(nb), &sb) ||
			    !strcmp(na, nb))
				continue;
			/* one shape under two names: variants of one
			 * operator (naive, tiled), not two operators: each
			 * name a candidate of the shape's series, never
			 * blended into one point with the others */
			if (!strcmp(sa, sb)) {
				name_candidates(s);
				return;
			}
			names = 1;
		}
	}
	if (!names)
		return;
	for (i = 0; i < s->n; i++) {
		struct res *r = &s->r[i];
		char sh[256];

		if (!strcmp(r->pattern, "json") ||
		    !op_shape(r, na, sizeof(na), &sa))
			continue;
		snprintf(sh, sizeof(sh), "%s", sa);
		snprintf(r->wl, sizeof(r->wl), "%s", na);
		snprintf(r->scen, sizeof(r->scen), "%s", sh);
		if (r->cand_weak)
			r->cand[0] = 0;
	}
}
