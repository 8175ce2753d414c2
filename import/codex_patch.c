/*
 * codex_patch.c - parse and apply Codex's apply_patch format.
 *
 * Reference: openai/codex codex-rs/apply-patch/src/{parser.rs,lib.rs,
 * seek_sequence.rs} (grammar and matching rules summarized in
 * codex_patch.h).  Behaviour we keep on purpose: Rust's str::lines() drops
 * a '\r' before each '\n' of the patch, but the file being patched is split
 * on '\n' only, so CRLF files keep their '\r' in every line.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "codex_patch.h"

#define CP_MAX_LINES 1000000u

static const char BEGIN_M[] = "*** Begin Patch";
static const char END_M[] = "*** End Patch";
static const char ADD_M[] = "*** Add File: ";
static const char DEL_M[] = "*** Delete File: ";
static const char UPD_M[] = "*** Update File: ";
static const char MOVE_M[] = "*** Move to: ";
static const char EOF_M[] = "*** End of File";

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

static kt_cp_line trim(kt_cp_line l)
{
	while (l.n && is_ws(l.s[0])) {
		l.s++;
		l.n--;
	}
	while (l.n && is_ws(l.s[l.n - 1]))
		l.n--;
	return l;
}

static kt_cp_line rtrim(kt_cp_line l)
{
	while (l.n && is_ws(l.s[l.n - 1]))
		l.n--;
	return l;
}

static int leq(kt_cp_line a, const char *lit)
{
	size_t n = strlen(lit);

	return a.n == n && memcmp(a.s, lit, n) == 0;
}

static int lpre(kt_cp_line a, const char *lit)
{
	size_t n = strlen(lit);

	return a.n >= n && memcmp(a.s, lit, n) == 0;
}

void kt_cpatch_free(kt_cpatch *p)
{
	size_t i, j;

	if (!p)
		return;
	for (i = 0; i < p->n_hunks; i++) {
		kt_cp_hunk *h = &p->hunks[i];

		free(h->path);
		free(h->move_to);
		free(h->contents);
		for (j = 0; j < h->n_chunks; j++) {
			free(h->chunks[j].old_l);
			free(h->chunks[j].new_l);
		}
		free(h->chunks);
	}
	free(p->hunks);
	free(p->text);
	free(p);
}

static void seterr(char *err, size_t errlen, size_t line, const char *what)
{
	if (!err || !errlen)
		return;
	if (line)
		snprintf(err, errlen, "patch line %zu: %s", line, what);
	else
		snprintf(err, errlen, "%s", what);
}

/* Growable arrays of lines for a chunk. */
static int push_line(kt_cp_line **arr, size_t *n, size_t *cap, kt_cp_line l)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		kt_cp_line *na = realloc(*arr, nc * sizeof(*na));

		if (!na)
			return KT_ENOMEM;
		*arr = na;
		*cap = nc;
	}
	(*arr)[(*n)++] = l;
	return 0;
}

/*
 * Parse one update chunk starting at lines[0] (parser.rs
 * parse_update_file_chunk).  *used gets the number of lines consumed.
 */
static int parse_chunk(const kt_cp_line *lines, size_t n, size_t lineno,
		       int allow_missing_ctx, kt_cp_chunk *c, size_t *used,
		       char *err, size_t errlen)
{
	size_t start = 0, parsed = 0, i, co = 0, cn = 0;
	int rc;

	memset(c, 0, sizeof(*c));
	if (n == 0) {
		seterr(err, errlen, lineno, "update hunk has no lines");
		return KT_EPARSE;
	}
	if (leq(lines[0], "@@")) {
		start = 1;
	} else if (lpre(lines[0], "@@ ")) {
		c->ctx.s = lines[0].s + 3;
		c->ctx.n = lines[0].n - 3;
		start = 1;
	} else if (!allow_missing_ctx) {
		seterr(err, errlen, lineno,
		       "expected update chunk to start with @@");
		return KT_EPARSE;
	}
	if (start >= n) {
		seterr(err, errlen, lineno + 1, "update hunk has no lines");
		return KT_EPARSE;
	}
	for (i = start; i < n; i++) {
		kt_cp_line l = lines[i], body;

		if (leq(l, EOF_M)) {
			if (parsed == 0) {
				seterr(err, errlen, lineno + 1,
				       "update hunk has no lines");
				return KT_EPARSE;
			}
			c->eof = 1;
			parsed++;
			break;
		}
		body.s = l.n ? l.s + 1 : l.s;
		body.n = l.n ? l.n - 1 : 0;
		if (l.n == 0) {
			if ((rc = push_line(&c->old_l, &c->n_old, &co, body)) ||
			    (rc = push_line(&c->new_l, &c->n_new, &cn, body)))
				return rc;
		} else if (l.s[0] == ' ') {
			if ((rc = push_line(&c->old_l, &c->n_old, &co, body)) ||
			    (rc = push_line(&c->new_l, &c->n_new, &cn, body)))
				return rc;
		} else if (l.s[0] == '+') {
			if ((rc = push_line(&c->new_l, &c->n_new, &cn, body)))
				return rc;
		} else if (l.s[0] == '-') {
			if ((rc = push_line(&c->old_l, &c->n_old, &co, body)))
				return rc;
		} else {
			if (parsed == 0) {
				seterr(err, errlen, lineno + 1,
				       "unexpected line in update hunk (not ' ', '+' or '-')");
				return KT_EPARSE;
			}
			break; /* the start of the next chunk or hunk */
		}
		parsed++;
	}
	*used = parsed + start;
	return 0;
}

static int parse_hunk(const kt_cp_line *lines, size_t n, size_t lineno,
		      kt_cp_hunk *h, size_t *used, char *err, size_t errlen)
{
	kt_cp_line first = trim(lines[0]);
	struct kt_buf c = { 0 };
	size_t i;
	int rc;

	memset(h, 0, sizeof(*h));
	if (lpre(first, ADD_M)) {
		h->op = KT_CP_ADD;
		if (!(h->path = kt_memdupz(first.s + strlen(ADD_M),
				     first.n - strlen(ADD_M))))
			return KT_ENOMEM;
		for (i = 1; i < n && lines[i].n && lines[i].s[0] == '+'; i++) {
			kt_buf_add(&c, lines[i].s + 1, lines[i].n - 1);
			kt_buf_putc(&c, '\n');
		}
		h->contents_len = c.len;
		/* "" for an added empty file */
		if (!(h->contents = kt_buf_take(&c)))
			return KT_ENOMEM;
		*used = i;
		return 0;
	}
	if (lpre(first, DEL_M)) {
		h->op = KT_CP_DELETE;
		if (!(h->path = kt_memdupz(first.s + strlen(DEL_M),
				     first.n - strlen(DEL_M))))
			return KT_ENOMEM;
		*used = 1;
		return 0;
	}
	if (lpre(first, UPD_M)) {
		size_t parsed = 1, ccap = 0;

		h->op = KT_CP_UPDATE;
		if (!(h->path = kt_memdupz(first.s + strlen(UPD_M),
				     first.n - strlen(UPD_M))))
			return KT_ENOMEM;
		if (n > 1 && lpre(lines[1], MOVE_M)) {
			if (!(h->move_to = kt_memdupz(lines[1].s + strlen(MOVE_M),
						lines[1].n - strlen(MOVE_M))))
				return KT_ENOMEM;
			parsed++;
		}
		while (parsed < n) {
			size_t cu = 0;

			if (trim(lines[parsed]).n == 0) {
				parsed++;
				continue;
			}
			if (lines[parsed].n && lines[parsed].s[0] == '*')
				break;
			if (h->n_chunks == ccap) {
				size_t nc = ccap ? ccap * 2 : 4;
				kt_cp_chunk *na = realloc(h->chunks,
							  nc * sizeof(*na));

				if (!na)
					return KT_ENOMEM;
				h->chunks = na;
				ccap = nc;
			}
			rc = parse_chunk(lines + parsed, n - parsed,
					 lineno + parsed, h->n_chunks == 0,
					 &h->chunks[h->n_chunks], &cu, err,
					 errlen);
			h->n_chunks++; /* freed by kt_cpatch_free either way */
			if (rc)
				return rc;
			parsed += cu;
		}
		if (h->n_chunks == 0) {
			seterr(err, errlen, lineno, "update file hunk is empty");
			return KT_EPARSE;
		}
		*used = parsed;
		return 0;
	}
	seterr(err, errlen, lineno,
	       "not a valid hunk header (*** Add File/Delete File/Update File)");
	return KT_EPARSE;
}

int kt_cpatch_parse(const char *text, size_t len, kt_cpatch **out, char *err,
		    size_t errlen)
{
	kt_cpatch *p = NULL;
	kt_cp_line *lines = NULL, *body;
	size_t nl = 0, cap = 0, nbody, i, hcap = 0, lineno;
	char *s, *e;
	int rc;

	*out = NULL;
	if (err && errlen)
		err[0] = 0;
	if (!text)
		return KT_EINVAL;
	if (!(p = calloc(1, sizeof(*p))) || !(p->text = kt_memdupz(text, len))) {
		rc = KT_ENOMEM;
		goto out;
	}
	/* patch.trim().lines() */
	s = p->text;
	e = p->text + len;
	while (s < e && is_ws(*s))
		s++;
	while (e > s && is_ws(e[-1]))
		e--;
	while (s < e) {
		char *nlp = memchr(s, '\n', (size_t)(e - s));
		kt_cp_line l;

		l.s = s;
		l.n = nlp ? (size_t)(nlp - s) : (size_t)(e - s);
		if (l.n && l.s[l.n - 1] == '\r')
			l.n--;
		if (nl >= CP_MAX_LINES) {
			seterr(err, errlen, 0, "patch has too many lines");
			rc = KT_ELIMIT;
			goto out;
		}
		if ((rc = push_line(&lines, &nl, &cap, l)))
			goto out;
		if (!nlp)
			break;
		s = nlp + 1;
	}
	/* Boundaries, strict then the <<EOF heredoc leniency of parser.rs. */
	body = lines;
	nbody = nl;
	lineno = 1;
	if (nbody >= 4 && !leq(trim(body[0]), BEGIN_M) &&
	    (leq(body[0], "<<EOF") || leq(body[0], "<<'EOF'") ||
	     leq(body[0], "<<\"EOF\"")) &&
	    rtrim(body[nbody - 1]).n >= 3 &&
	    memcmp(rtrim(body[nbody - 1]).s + rtrim(body[nbody - 1]).n - 3,
		   "EOF", 3) == 0) {
		body++;
		nbody -= 2;
		lineno = 2;
	}
	if (nbody == 0 || !leq(trim(body[0]), BEGIN_M)) {
		seterr(err, errlen, lineno,
		       "the first line of the patch must be '*** Begin Patch'");
		rc = KT_EPARSE;
		goto out;
	}
	if (nbody < 2 || !leq(trim(body[nbody - 1]), END_M)) {
		seterr(err, errlen, lineno + nbody - 1,
		       "the last line of the patch must be '*** End Patch'");
		rc = KT_EPARSE;
		goto out;
	}
	lineno++;
	body++;
	nbody -= 2;
	i = 0;
	while (i < nbody) {
		size_t used = 0;

		if (p->n_hunks == hcap) {
			size_t nc = hcap ? hcap * 2 : 4;
			kt_cp_hunk *nh = realloc(p->hunks, nc * sizeof(*nh));

			if (!nh) {
				rc = KT_ENOMEM;
				goto out;
			}
			p->hunks = nh;
			hcap = nc;
		}
		rc = parse_hunk(body + i, nbody - i, lineno + i,
				&p->hunks[p->n_hunks], &used, err, errlen);
		p->n_hunks++;
		if (rc)
			goto out;
		i += used;
	}
	*out = p;
	p = NULL;
	rc = 0;
out:
	free(lines);
	kt_cpatch_free(p);
	return rc;
}

int kt_cpatch_find(const char *text, size_t len, const char **start,
		   size_t *plen)
{
	const char *b, *e;

	if (!text || !len)
		return 0;
	b = memmem(text, len, BEGIN_M, strlen(BEGIN_M));
	if (!b)
		return 0;
	e = memmem(b, len - (size_t)(b - text), END_M, strlen(END_M));
	*start = b;
	*plen = e ? (size_t)(e - b) + strlen(END_M) : len - (size_t)(b - text);
	return 1;
}

/* ---- application ------------------------------------------------------- */

/* Next character of s for the Unicode-folding comparison: the punctuation
 * seek_sequence.rs folds becomes its ASCII look-alike. */
static int fold_next(const unsigned char **p, const unsigned char *e)
{
	const unsigned char *s = *p;

	if (s[0] == 0xC2 && e - s >= 2 && s[1] == 0xA0) {
		*p += 2;
		return ' ';
	}
	if (s[0] == 0xE2 && e - s >= 3) {
		unsigned c1 = s[1], c2 = s[2];

		*p += 3;
		if (c1 == 0x80 && c2 >= 0x90 && c2 <= 0x95)
			return '-';
		if (c1 == 0x88 && c2 == 0x92)
			return '-';
		if (c1 == 0x80 && c2 >= 0x98 && c2 <= 0x9B)
			return '\'';
		if (c1 == 0x80 && c2 >= 0x9C && c2 <= 0x9F)
			return '"';
		if (c1 == 0x80 && ((c2 >= 0x82 && c2 <= 0x8A) || c2 == 0xAF))
			return ' ';
		if (c1 == 0x81 && c2 == 0x9F)
			return ' ';
		*p -= 3;
	}
	if (s[0] == 0xE3 && e - s >= 3 && s[1] == 0x80 && s[2] == 0x80) {
		*p += 3;
		return ' ';
	}
	*p += 1;
	return s[0];
}

static int fold_eq(kt_cp_line a, kt_cp_line b)
{
	const unsigned char *pa, *ea, *pb, *eb;

	a = trim(a);
	b = trim(b);
	pa = (const unsigned char *)a.s;
	ea = pa + a.n;
	pb = (const unsigned char *)b.s;
	eb = pb + b.n;
	while (pa < ea && pb < eb)
		if (fold_next(&pa, ea) != fold_next(&pb, eb))
			return 0;
	return pa == ea && pb == eb;
}

static int line_eq(kt_cp_line a, kt_cp_line b, int pass)
{
	switch (pass) {
	case 0:
		return a.n == b.n && memcmp(a.s, b.s, a.n) == 0;
	case 1:
		a = rtrim(a);
		b = rtrim(b);
		return a.n == b.n && memcmp(a.s, b.s, a.n) == 0;
	case 2:
		a = trim(a);
		b = trim(b);
		return a.n == b.n && memcmp(a.s, b.s, a.n) == 0;
	default:
		return fold_eq(a, b);
	}
}

/* seek_sequence.rs: index of pat in lines at or after start, or -1. */
static long seek(const kt_cp_line *lines, size_t n, const kt_cp_line *pat,
		 size_t np, size_t start, int eof)
{
	size_t from, i, j;
	int pass;

	if (np == 0)
		return (long)start;
	if (np > n)
		return -1;
	from = eof ? n - np : start;
	for (pass = 0; pass < 4; pass++)
		for (i = from; i + np <= n; i++) {
			for (j = 0; j < np; j++)
				if (!line_eq(lines[i + j], pat[j], pass))
					break;
			if (j == np)
				return (long)i;
		}
	return -1;
}

typedef struct repl {
	size_t start, old_len;
	const kt_cp_line *nl;
	size_t n_new;
} repl;

static int repl_cmp(const void *a, const void *b)
{
	const repl *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void put_piece(char *buf, size_t *pos, size_t *np, size_t *last,
		      kt_cp_line l)
{
	if (*np)
		buf[(*pos)++] = '\n';
	memcpy(buf + *pos, l.s, l.n);
	*pos += l.n;
	*last = l.n;
	(*np)++;
}

int kt_cpatch_apply_update(const kt_cp_hunk *h, const char *orig, size_t olen,
			   char **out, size_t *outlen)
{
	kt_cp_line *lines = NULL;
	repl *rs = NULL;
	size_t n = 0, cap = 0, i, k, li = 0, total = 0, pos = 0, cur;
	size_t npieces = 0, last_len = 0;
	const char *s = orig, *e = orig + olen;
	char *buf = NULL;
	int rc = 0;

	*out = NULL;
	*outlen = 0;
	if (!h || h->op != KT_CP_UPDATE || (!orig && olen))
		return KT_EINVAL;
	/* original.split('\n'), dropping the empty piece after a final '\n' */
	for (;;) {
		const char *nlp = s < e ? memchr(s, '\n', (size_t)(e - s)) : NULL;
		kt_cp_line l;

		l.s = s ? s : "";
		l.n = nlp ? (size_t)(nlp - s) : (size_t)(e - s);
		if ((rc = push_line(&lines, &n, &cap, l)))
			goto out;
		if (!nlp)
			break;
		s = nlp + 1;
	}
	if (n && lines[n - 1].n == 0)
		n--;
	if (!(rs = calloc(h->n_chunks ? h->n_chunks : 1, sizeof(*rs)))) {
		rc = KT_ENOMEM;
		goto out;
	}
	for (k = 0; k < h->n_chunks; k++) {
		const kt_cp_chunk *c = &h->chunks[k];
		size_t np = c->n_old, nn = c->n_new;
		long at;

		if (c->ctx.s) {
			at = seek(lines, n, &c->ctx, 1, li, 0);
			if (at < 0) {
				rc = KT_ENOTFOUND;
				goto out;
			}
			li = (size_t)at + 1;
		}
		if (np == 0) {
			/* pure addition: at the end, before a final empty line */
			rs[k].start = (n && lines[n - 1].n == 0) ? n - 1 : n;
			rs[k].old_len = 0;
			rs[k].nl = c->new_l;
			rs[k].n_new = nn;
			continue;
		}
		at = seek(lines, n, c->old_l, np, li, c->eof);
		if (at < 0 && c->old_l[np - 1].n == 0) {
			np--;
			if (nn && c->new_l[nn - 1].n == 0)
				nn--;
			at = seek(lines, n, c->old_l, np, li, c->eof);
		}
		if (at < 0) {
			rc = KT_ENOTFOUND;
			goto out;
		}
		rs[k].start = (size_t)at;
		rs[k].old_len = np;
		rs[k].nl = c->new_l;
		rs[k].n_new = nn;
		li = (size_t)at + np;
	}
	if (h->n_chunks > 1)
		qsort(rs, h->n_chunks, sizeof(*rs), repl_cmp);
	/* Emit lines in order: untouched ranges and replacements.  Overlapping
	 * replacements (possible with a pure addition) apply in start order,
	 * which for non-overlapping input equals Codex's reverse splicing. */
	for (i = 0; i < n; i++)
		total += lines[i].n + 1;
	for (k = 0; k < h->n_chunks; k++)
		for (i = 0; i < rs[k].n_new; i++)
			total += rs[k].nl[i].n + 1;
	if (!(buf = malloc(total + 2))) {
		rc = KT_ENOMEM;
		goto out;
	}
	cur = 0;
	for (k = 0; k <= h->n_chunks; k++) {
		size_t upto = k < h->n_chunks ? rs[k].start : n;

		if (upto > n)
			upto = n;
		for (; cur < upto; cur++)
			put_piece(buf, &pos, &npieces, &last_len, lines[cur]);
		if (k == h->n_chunks)
			break;
		for (i = 0; i < rs[k].n_new; i++)
			put_piece(buf, &pos, &npieces, &last_len, rs[k].nl[i]);
		if (rs[k].start + rs[k].old_len > cur)
			cur = rs[k].start + rs[k].old_len;
	}
	/* lib.rs: if the last line is not empty push "", then join("\n") */
	if (npieces && last_len)
		buf[pos++] = '\n';
	buf[pos] = 0;
	*out = buf;
	*outlen = pos;
	buf = NULL;
out:
	free(buf);
	free(rs);
	free(lines);
	return rc;
}

int kt_cpatch_apply_ws(kt_imp *imp, const kt_cpatch *p, const char *cwd,
		       uint64_t call, const char *tool, int *n_applied,
		       int *n_unknown)
{
	size_t i;
	int rc = 0, app = 0, unk = 0;

	for (i = 0; p && i < p->n_hunks; i++) {
		const kt_cp_hunk *h = &p->hunks[i];
		char *path = kt_ws_path(cwd, h->path), *dst = NULL;
		char *res = NULL;
		size_t rlen = 0, blen = 0;
		const char *base;
		int r = 0;

		if (!path) {
			rc = KT_ENOMEM;
			break;
		}
		switch (h->op) {
		case KT_CP_ADD:
			r = kt_ws_write(imp, path, h->contents, h->contents_len,
					call, tool);
			if (!r)
				app++;
			break;
		case KT_CP_DELETE:
			r = kt_ws_delete(imp, path, call, tool);
			if (!r)
				app++;
			else if (r == KT_ENOTFOUND)
				r = 0, unk++;
			break;
		case KT_CP_UPDATE:
			base = kt_ws_get(imp, path, &blen);
			if (!base) {
				unk++;
				break;
			}
			r = kt_cpatch_apply_update(h, base, blen, &res, &rlen);
			if (r == KT_ENOTFOUND) {
				r = 0;
				unk++;
				break;
			}
			if (r)
				break;
			if (h->move_to) {
				if (!(dst = kt_ws_path(cwd, h->move_to))) {
					r = KT_ENOMEM;
					break;
				}
				r = kt_ws_delete(imp, path, call, tool);
				if (r == KT_ENOTFOUND)
					r = 0;
				if (!r)
					r = kt_ws_write(imp, dst, res, rlen, call,
							tool);
			} else {
				r = kt_ws_write(imp, path, res, rlen, call, tool);
			}
			if (!r)
				app++;
			break;
		}
		free(res);
		free(dst);
		free(path);
		if (r) {
			rc = r;
			break;
		}
	}
	if (n_applied)
		*n_applied = app;
	if (n_unknown)
		*n_unknown = unk;
	return rc;
}
