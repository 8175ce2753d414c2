/*
 * perfreport.c - Triton perf_report tables, read with the unit the script
 * that printed them declares (kt_perf_report).
 *
 * triton.testing.perf_report(Benchmark(x_names=[...], line_names=[...],
 * ylabel=..., plot_name=...)) with print_data=True prints "<plot_name>:"
 * and then pandas' DataFrame.to_string() of the x columns and one column
 * per line name, an index column first (triton/testing.py, Mark._run).
 * The values are whatever the benchmarked function returned - milliseconds
 * from do_bench, or GB/s or TFLOP/s a tutorial computes from them - and
 * only `ylabel` says which.  It is not printed, so the unit comes from the
 * script that ran: the command's own text (a heredoc) or a file the
 * trajectory wrote or showed.  The Benchmark whose plot_name is the
 * table's title gives it.  A ylabel without a unit (kt_bench_label_kind)
 * is answered by the function the Benchmark decorates when every return
 * of it is triton.testing.do_bench(...) itself (milliseconds by
 * do_bench's contract); otherwise, or with no such Benchmark, the table
 * stays unread (FORMAT.md section 14 "Unparsed output"): a number is
 * never guessed to be a time.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "imp_int.h"

#define PR_NAMES 8

struct pr_bench {
	char ylabel[96];
	char x[PR_NAMES][48];   /* x_names */
	int nx;
	size_t end;             /* offset of the Benchmark call's ')' */
};

/* A Python string literal at s (after optional f/r prefixes): its text
 * into d, the length of the literal, 0 when none. */
static size_t py_str(const char *s, const char *e, char *d, size_t cap)
{
	const char *p = s;
	char q;
	size_t k = 0;

	while (p < e && (*p == 'f' || *p == 'r' || *p == 'F' || *p == 'R'))
		p++;
	if (p >= e || (*p != '"' && *p != '\''))
		return 0;
	q = *p++;
	while (p < e && *p != q && *p != '\n') {
		if (*p == '\\' && p + 1 < e)
			p++;
		if (k + 1 < cap)
			d[k++] = *p;
		p++;
	}
	if (p >= e || *p != q)
		return 0;
	d[k] = 0;
	return (size_t)(p + 1 - s);
}

/* The value of keyword argument `name=` in the call text [s, e): its
 * start, or NULL. */
static const char *kwarg(const char *s, const char *e, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = s; p + n < e; p++) {
		const char *v;

		if (memcmp(p, name, n) ||
		    (p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_')))
			continue;
		v = p + n;
		while (v < e && (*v == ' ' || *v == '\t'))
			v++;
		if (v < e && *v == '=' && (v + 1 >= e || v[1] != '=')) {
			v++;
			while (v < e && isspace((unsigned char)*v))
				v++;
			return v;
		}
	}
	return NULL;
}

/* Whether the plot_name literal (an f-string's {...} match anything)
 * names the title t. */
static int name_match(const char *pat, const char *t)
{
	if (!*pat)
		return !*t;
	if (*pat == '{') {
		const char *c = strchr(pat, '}');

		if (!c)
			return 0;
		for (const char *u = t;; u++) {
			if (name_match(c + 1, u))
				return 1;
			if (!*u)
				return 0;
		}
	}
	return *pat == *t && name_match(pat + 1, t + 1);
}

/* End of the call whose '(' is at s (strings skipped), or NULL. */
static const char *call_end(const char *s, const char *e)
{
	int depth = 0;
	char q = 0;

	for (const char *p = s; p < e; p++) {
		if (q) {
			if (*p == '\\')
				p++;
			else if (*p == q)
				q = 0;
		} else if (*p == '"' || *p == '\'') {
			q = *p;
		} else if (*p == '(' || *p == '[' || *p == '{') {
			depth++;
		} else if ((*p == ')' || *p == ']' || *p == '}') && --depth == 0) {
			return p;
		}
	}
	return NULL;
}

/* The Benchmark(...) in src whose plot_name names title: 1 and *b, or 0. */
static int find_bench(const char *src, size_t n, const char *title,
		      struct pr_bench *b)
{
	const char *e = src + n, *p = src;
	static const char call[] = "Benchmark(";

	while ((p = memmem(p, (size_t)(e - p), call, sizeof(call) - 1))) {
		const char *a = p + sizeof(call) - 2, *z = call_end(a, e), *v;
		char pn[128];

		p += sizeof(call) - 1;
		if (!z)
			break;
		if (!(v = kwarg(a, z, "plot_name")) ||
		    !py_str(v, z, pn, sizeof(pn)) || !name_match(pn, title))
			continue;
		memset(b, 0, sizeof(*b));
		b->end = (size_t)(z - src);
		if ((v = kwarg(a, z, "ylabel")))
			py_str(v, z, b->ylabel, sizeof(b->ylabel));
		if ((v = kwarg(a, z, "x_names")) && *v == '[') {
			const char *q = v + 1;

			while (q < z && *q != ']' && b->nx < PR_NAMES) {
				size_t k = py_str(q, z, b->x[b->nx],
						  sizeof(b->x[0]));

				if (k) {
					b->nx++;
					q += k;
				} else {
					q++;
				}
			}
		}
		return 1;
	}
	return 0;
}

/* Whitespace-separated fields of line [l, l+n): their starts and ends. */
static int fields(const char *l, size_t n, const char **st, size_t *len,
		  int max)
{
	int k = 0;
	size_t i = 0;

	while (i < n && k < max) {
		while (i < n && isspace((unsigned char)l[i]))
			i++;
		if (i >= n)
			break;
		st[k] = l + i;
		while (i < n && !isspace((unsigned char)l[i]))
			i++;
		len[k] = (size_t)(l + i - st[k]);
		k++;
	}
	return k;
}

static int is_num(const char *s, size_t n, double *v)
{
	char b[64], *end;

	if (!n || n >= sizeof(b))
		return 0;
	memcpy(b, s, n);
	b[n] = 0;
	*v = strtod(b, &end);
	return end == b + n && isfinite(*v);
}

/* Whether a line name is the reference a kernel is compared with. */
static int ref_name(const char *s, size_t n)
{
	static const char *const w[] = { "torch", "cublas", "cudnn", "eager",
		"naive", "reference", "baseline", "compile", "native", NULL };
	char b[64];

	if (n >= sizeof(b))
		n = sizeof(b) - 1;
	for (size_t i = 0; i < n; i++)
		b[i] = (char)tolower((unsigned char)s[i]);
	b[n] = 0;
	for (int i = 0; w[i]; i++)
		if (strstr(b, w[i]))
			return 1;
	return 0;
}

#define PR_COLS 16

/* The table below the title line ending at *at: one result per row and
 * candidate column into arr.  Returns the rows read. */
static int read_table(const char *t, size_t len, size_t at,
		      const struct pr_bench *b, int kind, double scale,
		      cJSON *arr)
{
	const char *hs[PR_COLS], *rs[PR_COLS + 1];
	size_t hl[PR_COLS], rl[PR_COLS + 1];
	const char *l = t + at, *nl = memchr(l, '\n', len - at);
	size_t n = nl ? (size_t)(nl - l) : len - at;
	int nh = fields(l, n, hs, hl, PR_COLS), rows = 0, ref = -1;

	if (nh <= b->nx || b->nx < 1)
		return 0;
	/* the header starts with the x_names */
	for (int c = 0; c < b->nx; c++)
		if (hl[c] != strlen(b->x[c]) || memcmp(hs[c], b->x[c], hl[c]))
			return 0;
	for (int c = b->nx; c < nh; c++)
		if (ref < 0 && ref_name(hs[c], hl[c]))
			ref = c;
	at += n + (nl ? 1 : 0);
	while (at < len) {
		double x[PR_COLS + 1];
		int nr, ok = 1;

		l = t + at;
		nl = memchr(l, '\n', len - at);
		n = nl ? (size_t)(nl - l) : len - at;
		nr = fields(l, n, rs, rl, PR_COLS + 1);
		if (nr != nh + 1)
			break;
		for (int c = 0; c < nr && ok; c++)
			ok = is_num(rs[c], rl[c], &x[c]);
		if (!ok)
			break;
		at += n + (nl ? 1 : 0);
		for (int c = b->nx; c < nh; c++) {
			char scen[256] = "", cell[80];
			double v = x[c + 1] * scale, r;
			cJSON *o;

			if (c == ref || !(v > 0))
				continue;
			for (int k = 0; k < b->nx; k++) {
				snprintf(cell, sizeof(cell), "%s%s=%g",
					 k ? " " : "", b->x[k], x[k + 1]);
				strncat(scen, cell, sizeof(scen) - strlen(scen) - 1);
			}
			if (nh - b->nx - (ref >= 0) > 1) {
				snprintf(cell, sizeof(cell), " / %.*s",
					 (int)(hl[c] < 60 ? hl[c] : 60), hs[c]);
				strncat(scen, cell, sizeof(scen) - strlen(scen) - 1);
			}
			if (!(o = cJSON_CreateObject()))
				return -1;
			r = ref >= 0 ? x[ref + 1] * scale : NAN;
			if (kind == KT_BU_TIME) {
				cJSON_AddNumberToObject(o, "time_ms", v);
				if (r > 0) {
					cJSON_AddNumberToObject(o, "ref_time_ms", r);
					cJSON_AddNumberToObject(o, "speedup", r / v);
				}
			} else {
				cJSON_AddNullToObject(o, "time_ms");
				cJSON_AddNumberToObject(o, kind == KT_BU_GBPS ?
							"gbps" : "tflops", v);
				/* the same work at either rate: their ratio is
				 * the ratio of the times */
				if (r > 0)
					cJSON_AddNumberToObject(o, "speedup", v / r);
			}
			cJSON_AddNullToObject(o, "correct");
			cJSON_AddStringToObject(o, "scenario", scen);
			cJSON_AddStringToObject(o, "pattern", "perf_report");
			cJSON_AddStringToObject(o, "metric", kind == KT_BU_TIME ?
						"time" : kind == KT_BU_GBPS ?
						"gbps" : "tflops");
			if (ref >= 0) {
				char bl[64];

				snprintf(bl, sizeof(bl), "%.*s",
					 (int)(hl[ref] < 60 ? hl[ref] : 60), hs[ref]);
				cJSON_AddStringToObject(o, "baseline", bl);
			}
			cJSON_AddItemToArray(arr, o);
		}
		rows++;
	}
	return rows;
}

/* Start of the line holding p. */
static const char *line_of(const char *src, const char *p)
{
	while (p > src && p[-1] != '\n')
		p--;
	return p;
}

/* Spaces and tabs at p, before e. */
static size_t blanks(const char *p, const char *e)
{
	const char *q = p;

	while (q < e && (*q == ' ' || *q == '\t'))
		q++;
	return (size_t)(q - p);
}

/* Indentation of the line holding p, which lies before e (a tab counts
 * as one). */
static size_t indent_at(const char *src, const char *p, const char *e)
{
	return blanks(line_of(src, p), e);
}

/* Whether the expression at p, to its line's end (a comment aside), is
 * one call of triton.testing.do_bench or do_bench_cudagraph and nothing
 * else: milliseconds by their contract ("Benchmark the runtime of the
 * provided function ... in ms"; with quantiles, a tuple of ms whose first
 * perf_report prints). */
static int do_bench_call(const char *p, const char *e)
{
	static const char *const f[] = { "triton.testing.do_bench(",
		"triton.testing.do_bench_cudagraph(", "testing.do_bench(",
		"do_bench(", "do_bench_cudagraph(", NULL };
	const char *z;

	for (int i = 0; f[i]; i++) {
		size_t k = strlen(f[i]);

		if ((size_t)(e - p) <= k || memcmp(p, f[i], k))
			continue;
		if (!(z = call_end(p + k - 1, e)))
			return 0;
		for (z++; z < e && (*z == ' ' || *z == '\t'); z++)
			;
		return z >= e || *z == '\n' || *z == '#' || *z == '\r';
	}
	return 0;
}

/* Whether the function perf_report decorates right after the Benchmark
 * ending at src[at] (the decorator holds it, or names a list of configs
 * that does) returns do_bench's value itself at every return: then the
 * table is in ms whatever the ylabel says.  A function that computes
 * from the time (GB/s, TFLOP/s), or any other return, is no answer. */
static int returns_do_bench(const char *src, size_t n, size_t at)
{
	const char *e = src + n, *d = src + at, *body, *q;
	size_t ind;
	int nret = 0;

	/* the next def at a line's start, after a decorator naming
	 * perf_report */
	for (;;) {
		const char *l;

		if (!(d = memmem(d, (size_t)(e - d), "def ", 4)))
			return 0;
		for (l = d; l > src && (l[-1] == ' ' || l[-1] == '\t'); l--)
			;
		if (l == src || l[-1] == '\n')
			break;
		d += 4;
	}
	{
		const char *dec = d;

		/* back to the '@' that starts a line above it: the
		 * decorator, which holds the Benchmark or names its list */
		while (dec > src && !(*dec == '@' &&
				      indent_at(src, dec, e) ==
				      (size_t)(dec - line_of(src, dec))))
			dec--;
		if (*dec != '@' || !memmem(dec, (size_t)(d - dec),
					   "perf_report", 11))
			return 0;
	}
	ind = indent_at(src, d, e);
	if (!(body = memchr(d, '\n', (size_t)(e - d))))
		return 0;
	for (q = body + 1; q < e;) {
		const char *le = memchr(q, '\n', (size_t)(e - q)), *t;
		size_t li = blanks(q, e);

		if (!le)
			le = e;
		t = q + li;
		if (t < le && *t != '#' && *t != '\r' && li <= ind)
			break;          /* the body ended */
		if ((size_t)(le - t) >= 7 && !memcmp(t, "return", 6) &&
		    (t[6] == ' ' || t[6] == '\t')) {
			t += 7;
			while (t < le && (*t == ' ' || *t == '\t'))
				t++;
			if (!do_bench_call(t, e))
				return 0;
			nret++;
		} else if ((size_t)(le - t) >= 6 && !memcmp(t, "return", 6) &&
			   (t + 6 == le || t[6] == '\r' || t[6] == '#')) {
			return 0;       /* a bare return gives None */
		}
		q = le + (le < e);
	}
	return nret > 0;
}

/* The unit a script gives a table titled title: kind and scale, or 0. */
static int unit_for(kt_imp *imp, const char *cmd, const char *title,
		    struct pr_bench *b, double *scale)
{
	const char *src = NULL;
	size_t n = 0;
	int kind;

	if (cmd && find_bench(cmd, strlen(cmd), title, b)) {
		src = cmd;
		n = strlen(cmd);
	}
	for (size_t i = 0; !src && imp && i < imp->ws.map.cap; i++) {
		struct kt_ws_ent *w = imp->ws.map.vals[i];

		/* a content the workspace dropped is read back (it stays
		 * held until the workspace's next write) */
		if (w && !w->deleted && !kt_ws_load(imp, w) && w->data &&
		    memmem(w->data, w->len, "perf_report", 11) &&
		    find_bench(w->data, w->len, title, b)) {
			src = w->data;
			n = w->len;
		}
	}
	if (!src)
		return 0;
	kind = kt_bench_label_kind(b->ylabel, scale);
	if (!kind && returns_do_bench(src, n, b->end)) {
		*scale = 1;
		kind = KT_BU_TIME;
	}
	return kind;
}

int kt_perf_report(kt_imp *imp, const char *cmd, const char *out,
		   size_t len, cJSON **results, int *unread)
{
	size_t i = 0;
	cJSON *arr;

	*results = NULL;
	*unread = 0;
	if (!out)
		return KT_EINVAL;
	if (!(arr = cJSON_CreateArray()))
		return KT_ENOMEM;
	while (i < len) {
		const char *l = out + i, *nl = memchr(l, '\n', len - i);
		size_t n = nl ? (size_t)(nl - l) : len - i;
		char title[128];
		struct pr_bench b;
		double scale = 1;
		int kind, got;

		i += n + (nl ? 1 : 0);
		/* "<plot_name>:" alone on its line, a header and a row below */
		if (n < 2 || n >= sizeof(title) || l[n - 1] != ':' ||
		    memchr(l, ' ', n) || i >= len)
			continue;
		memcpy(title, l, n - 1);
		title[n - 1] = 0;
		/* the shape first (a header, then a row with an index and
		 * one more field): "Results:" lines are common, scripts
		 * are looked up only under a table */
		{
			const char *h = out + i, *hn = memchr(h, '\n', len - i);
			size_t m = hn ? (size_t)(hn - h) : len - i, k;
			const char *rs[PR_COLS + 1];
			size_t rl[PR_COLS + 1];
			int nf = fields(h, m, rs, rl, PR_COLS);
			double x;

			if (nf < 2 || !hn)
				continue;
			k = (size_t)(hn + 1 - out);
			h = out + k;
			hn = memchr(h, '\n', len - k);
			m = hn ? (size_t)(hn - h) : len - k;
			if (fields(h, m, rs, rl, PR_COLS + 1) != nf + 1 ||
			    !is_num(rs[0], rl[0], &x))
				continue;
		}
		kind = unit_for(imp, cmd, title, &b, &scale);
		if (kind == KT_BU_TIME || kind == KT_BU_GBPS ||
		    kind == KT_BU_TFLOPS) {
			got = read_table(out, len, i, &b, kind, scale, arr);
			if (got < 0) {
				cJSON_Delete(arr);
				return KT_ENOMEM;
			}
			if (got)
				continue;
		}
		/* a table under a title but no unit known for it */
		++*unread;
	}
	*results = arr;
	return 0;
}
