/*
 * shellparse.c - the plan of a finished shell command (shellparse.h).
 *
 * Quoting and expansion follow the POSIX Shell Command Language
 * (pubs.opengroup.org/onlinepubs/9699919799/utilities/V3_chap02.html,
 * 2.2 Quoting, 2.7 Redirection, 2.7.4 Here-Document) and bash's manual for
 * $'...', &>, <<< and echo/printf escapes (gnu.org/software/bash/manual,
 * "ANSI-C Quoting", "Bash Builtins").
 *
 * Which commands ran is inferred from the list operators, the call's final
 * status and the output (see import/README.md "Shell commands"):
 *  - ok: the last pipeline and everything joined to it by && succeeded;
 *  - a message of a command in the output ("cd: x: No such file...",
 *    "./a.out: error while loading...", "k.cu(3): error") shows that it ran,
 *    so everything joined to it by && before it succeeded;
 *  - cd/rm/mv/cp/mkdir/... print a message when they fail, so without one
 *    (and without 2>/dev/null) they succeeded; echo/printf/cat <<EOF with a
 *    redirection cannot fail once reached.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "import.h"
#include "shellparse.h"

#define MAX_CMD (64u << 20)

/* ---- growable buffers ---------------------------------------------------- */
struct buf {
	char *p;
	size_t n, cap;
	int oom;
};

static void bput(struct buf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t c = b->cap ? b->cap : 64;
		char *q;

		while (c < b->n + n + 1)
			c *= 2;
		q = realloc(b->p, c);
		if (!q) {
			b->oom = 1;
			return;
		}
		b->p = q;
		b->cap = c;
	}
	if (n)
		memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

static void bputc(struct buf *b, char c)
{
	bput(b, &c, 1);
}

/* grow an array of elements of size sz so that one more fits */
static int more(void **arr, size_t *cap, size_t n, size_t sz)
{
	void *q;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 4;
	q = realloc(*arr, c * sz);
	if (!q)
		return KT_ENOMEM;
	memset((char *)q + *cap * sz, 0, (c - *cap) * sz);
	*arr = q;
	*cap = c;
	return 0;
}

/* ---- syntax tree --------------------------------------------------------- */
#define W_DYN   1u  /* expansion: the value is not known from the text */
#define W_QUOTE 2u  /* some part was quoted */
#define W_GLOB  4u  /* unquoted * ? [ or brace expansion */

struct word {
	char *v;        /* cooked value (quotes removed) */
	size_t n;
	size_t off, end;/* raw extent in the command */
	unsigned fl;
};

enum { R_OUT = 1, R_APP, R_IN, R_HEREDOC, R_HERESTR, R_DUP, R_ALL, R_ALLAPP };

struct redir {
	int fd;         /* -1 = default for the kind */
	int kind;
	struct word t;  /* target, delimiter or here-string */
	int strip;      /* <<- */
	char *body;     /* here-document body after expansion, or NULL */
	size_t blen;
	int body_unknown;
};

struct scmd {
	struct word *w;
	size_t nw, capw;
	struct redir *r;
	size_t nr, capr;
	size_t off, end;
};

struct pipeline {
	struct scmd *c;
	size_t n, cap;
};

enum { OP_END = 0, OP_AND, OP_OR, OP_SEQ };

struct item {
	struct pipeline p;
	int op;         /* operator after this item */
};

struct hdref {
	size_t item, cmd, red;
};

struct parser {
	const char *s;
	size_t n, i;
	struct item *it;
	size_t nit, capit;
	struct pipeline cur;
	struct scmd sc;
	int in_cmd;
	struct hdref *hd;
	size_t nhd, caphd;
	int opaque;
	size_t opaque_at;       /* where the construct that made it starts */
	size_t opaque_hd;       /* here-documents pending at that point */
	/* loose: compound commands (if/for/while/case, subshells, groups)
	 * are read as plain lists, their keywords and parentheses taken as
	 * separators, to find what the commands inside may have changed */
	int loose;
	int oom;
};

static void word_free(struct word *w)
{
	free(w->v);
	w->v = NULL;
}

static void scmd_free(struct scmd *c)
{
	size_t i;

	for (i = 0; i < c->nw; i++)
		word_free(&c->w[i]);
	for (i = 0; i < c->nr; i++) {
		word_free(&c->r[i].t);
		free(c->r[i].body);
	}
	free(c->w);
	free(c->r);
	memset(c, 0, sizeof(*c));
}

static void pipe_free(struct pipeline *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		scmd_free(&p->c[i]);
	free(p->c);
	memset(p, 0, sizeof(*p));
}

static void parser_free(struct parser *ps)
{
	size_t i;

	for (i = 0; i < ps->nit; i++)
		pipe_free(&ps->it[i].p);
	free(ps->it);
	pipe_free(&ps->cur);
	scmd_free(&ps->sc);
	free(ps->hd);
}

/* ---- lexing -------------------------------------------------------------- */
static int is_name(int c) { return isalnum((unsigned char)c) || c == '_'; }
static int is_meta(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' ||
	       c == '|' || c == '(' || c == ')' || c == '<' || c == '>';
}

/* Skip a balanced $( ... ) or <( ... ) starting after the '('. */
static size_t skip_parens(const char *s, size_t n, size_t i)
{
	int depth = 1;

	while (i < n && depth) {
		char c = s[i];

		if (c == '\\' && i + 1 < n)
			i += 2;
		else if (c == '\'') {
			const char *q = memchr(s + i + 1, '\'', n - i - 1);

			i = q ? (size_t)(q - s) + 1 : n;
		} else if (c == '"') {
			i++;
			while (i < n && s[i] != '"')
				i += (s[i] == '\\' && i + 1 < n) ? 2 : 1;
			i++;
		} else {
			if (c == '(')
				depth++;
			else if (c == ')')
				depth--;
			i++;
		}
	}
	return i > n ? n : i;
}

/* ANSI-C quoting and echo -e / printf escapes.  Reads the escape at s[i]
 * (after the backslash); appends the byte(s); returns chars consumed, or 0
 * for "\c" (stop output).  `octal0`: echo's \0nnn form vs printf's \nnn. */
static size_t c_escape(const char *s, size_t n, size_t i, struct buf *b,
		       int octal0)
{
	char c;
	unsigned v = 0;
	size_t k = 0;

	if (i >= n) {
		bputc(b, '\\');
		return 0 + (i >= n ? 0 : 1);
	}
	c = s[i];
	switch (c) {
	case 'n': bputc(b, '\n'); return 1;
	case 't': bputc(b, '\t'); return 1;
	case 'r': bputc(b, '\r'); return 1;
	case 'a': bputc(b, '\a'); return 1;
	case 'b': bputc(b, '\b'); return 1;
	case 'f': bputc(b, '\f'); return 1;
	case 'v': bputc(b, '\v'); return 1;
	case 'e': case 'E': bputc(b, 27); return 1;
	case '\\': bputc(b, '\\'); return 1;
	case '\'': bputc(b, '\''); return 1;
	case '"': bputc(b, '"'); return 1;
	case '?': bputc(b, '?'); return 1;
	case 'c': return 0;
	case 'x':
		while (k < 2 && i + 1 + k < n &&
		       isxdigit((unsigned char)s[i + 1 + k])) {
			char h = s[i + 1 + k];

			v = v * 16 + (unsigned)(isdigit((unsigned char)h) ? h - '0'
				: (tolower((unsigned char)h) - 'a' + 10));
			k++;
		}
		if (!k) {
			bput(b, "\\x", 2);
			return 1;
		}
		bputc(b, (char)v);
		return 1 + k;
	default:
		if (c >= '0' && c <= '7') {
			size_t start = (octal0 && c == '0') ? 1 : 0;
			size_t lim = octal0 ? 3 : 3;

			while (k < lim && i + start + k < n &&
			       s[i + start + k] >= '0' && s[i + start + k] <= '7') {
				v = v * 8 + (unsigned)(s[i + start + k] - '0');
				k++;
			}
			bputc(b, (char)(v & 0xff));
			return start + k ? start + k : 1;
		}
		bputc(b, '\\');
		bputc(b, c);
		return 1;
	}
}

/* $... at s[i]: appends a literal '$' or marks the word dynamic. */
static size_t dollar(struct parser *ps, size_t i, struct buf *b, unsigned *fl,
		     int in_dq)
{
	const char *s = ps->s;
	size_t n = ps->n;

	if (i + 1 >= n) {
		bputc(b, '$');
		return i + 1;
	}
	if (s[i + 1] == '(') {
		*fl |= W_DYN;
		return skip_parens(s, n, i + 2);
	}
	if (s[i + 1] == '{') {
		const char *q = memchr(s + i + 2, '}', n - i - 2);

		*fl |= W_DYN;
		return q ? (size_t)(q - s) + 1 : n;
	}
	if (!in_dq && s[i + 1] == '\'') {
		size_t j = i + 2;

		*fl |= W_QUOTE;
		while (j < n && s[j] != '\'') {
			if (s[j] == '\\' && j + 1 < n) {
				size_t k = c_escape(s, n, j + 1, b, 0);

				j += 1 + (k ? k : 1);
			} else
				bputc(b, s[j++]);
		}
		if (j >= n)
			*fl |= W_DYN;
		return j + 1 > n ? n : j + 1;
	}
	if (is_name(s[i + 1]) || strchr("@*#?$!-", s[i + 1])) {
		size_t j = i + 1;

		*fl |= W_DYN;
		if (isdigit((unsigned char)s[j]) || !is_name(s[j]))
			return j + 1;
		while (j < n && is_name(s[j]))
			j++;
		return j;
	}
	bputc(b, '$');
	return i + 1;
}

/* Read one word at ps->i into w. */
static void read_word(struct parser *ps, struct word *w)
{
	const char *s = ps->s;
	size_t n = ps->n, i = ps->i;
	struct buf b = { 0 };
	unsigned fl = 0;

	w->off = i;
	bput(&b, "", 0);
	if (i < n && s[i] == '~')
		fl |= W_DYN;
	while (i < n) {
		char c = s[i];

		if (c == '<' && i + 1 < n && s[i + 1] == '(' && i == w->off) {
			fl |= W_DYN;    /* process substitution */
			i = skip_parens(s, n, i + 2);
			continue;
		}
		if (is_meta(c))
			break;
		if (c == '\\') {
			if (i + 1 < n && s[i + 1] == '\n') {
				i += 2;
				continue;
			}
			fl |= W_QUOTE;
			if (i + 1 < n)
				bputc(&b, s[i + 1]);
			i += 2;
		} else if (c == '\'') {
			const char *q = memchr(s + i + 1, '\'', n - i - 1);
			size_t e = q ? (size_t)(q - s) : n;

			fl |= W_QUOTE;
			if (!q)
				fl |= W_DYN;
			bput(&b, s + i + 1, e - i - 1);
			i = e + 1;
		} else if (c == '"' || (c == '$' && i + 1 < n && s[i + 1] == '"')) {
			i += c == '$' ? 2 : 1;
			fl |= W_QUOTE;
			while (i < n && s[i] != '"') {
				if (s[i] == '\\' && i + 1 < n) {
					char d = s[i + 1];

					if (d == '\n') {
						i += 2;
						continue;
					}
					if (d != '$' && d != '`' && d != '"' &&
					    d != '\\')
						bputc(&b, '\\');
					bputc(&b, d);
					i += 2;
				} else if (s[i] == '$') {
					i = dollar(ps, i, &b, &fl, 1);
				} else if (s[i] == '`') {
					const char *q = memchr(s + i + 1, '`',
							       n - i - 1);

					fl |= W_DYN;
					i = q ? (size_t)(q - s) + 1 : n;
				} else
					bputc(&b, s[i++]);
			}
			if (i >= n)
				fl |= W_DYN;
			i++;
		} else if (c == '$') {
			i = dollar(ps, i, &b, &fl, 0);
		} else if (c == '`') {
			const char *q = memchr(s + i + 1, '`', n - i - 1);

			fl |= W_DYN;
			i = q ? (size_t)(q - s) + 1 : n;
		} else {
			if (c == '*' || c == '?' || c == '[')
				fl |= W_GLOB;
			if (c == '{' && i + 1 < n && !isspace((unsigned char)s[i + 1]))
				fl |= W_GLOB;
			bputc(&b, c);
			i++;
		}
	}
	if (i > n)
		i = n;
	if (b.oom)
		ps->oom = 1;
	w->v = b.p;
	w->n = b.n;
	w->end = i;
	w->fl = fl;
	ps->i = i;
}

static void finish_cmd(struct parser *ps)
{
	if (!ps->in_cmd)
		return;
	if (more((void **)&ps->cur.c, &ps->cur.cap, ps->cur.n,
		 sizeof(*ps->cur.c))) {
		ps->oom = 1;
		scmd_free(&ps->sc);
	} else
		ps->cur.c[ps->cur.n++] = ps->sc;
	memset(&ps->sc, 0, sizeof(ps->sc));
	ps->in_cmd = 0;
}

static void finish_item(struct parser *ps, int op)
{
	finish_cmd(ps);
	if (!ps->cur.n)
		return;
	if (more((void **)&ps->it, &ps->capit, ps->nit, sizeof(*ps->it))) {
		ps->oom = 1;
		pipe_free(&ps->cur);
		return;
	}
	ps->it[ps->nit].p = ps->cur;
	ps->it[ps->nit].op = op;
	ps->nit++;
	memset(&ps->cur, 0, sizeof(ps->cur));
}

/* Expand an unquoted here-document body: \$ \` \\ and \newline are quoting,
 * any other $ or ` is an expansion we cannot know. */
static void hd_expand(struct redir *r)
{
	struct buf b = { 0 };
	size_t i;
	const char *s = r->body;

	bput(&b, "", 0);
	for (i = 0; i < r->blen; i++) {
		char c = s[i];

		if (c == '\\' && i + 1 < r->blen &&
		    strchr("$`\\\n", s[i + 1])) {
			if (s[i + 1] != '\n')
				bputc(&b, s[i + 1]);
			i++;
		} else if (c == '`' ||
			   (c == '$' && i + 1 < r->blen &&
			    (is_name(s[i + 1]) || strchr("{(@*#?$!-", s[i + 1])))) {
			r->body_unknown = 1;
			break;
		} else
			bputc(&b, c);
	}
	if (b.oom) {
		r->body_unknown = 1;
		free(b.p);
		return;
	}
	free(r->body);
	r->body = b.p;
	r->blen = b.n;
}

/* After a newline: read the bodies of the pending here-documents. */
static void read_heredocs(struct parser *ps)
{
	size_t h;

	for (h = 0; h < ps->nhd; h++) {
		struct hdref *ref = &ps->hd[h];
		struct redir *r;
		struct buf b = { 0 };
		int done = 0;

		/* the command may still be the one being built */
		if (ref->item == ps->nit && ref->cmd == ps->cur.n)
			r = &ps->sc.r[ref->red];
		else if (ref->item == ps->nit)
			r = &ps->cur.c[ref->cmd].r[ref->red];
		else
			r = &ps->it[ref->item].p.c[ref->cmd].r[ref->red];
		bput(&b, "", 0);
		while (ps->i < ps->n) {
			const char *ls = ps->s + ps->i;
			const char *nl = memchr(ls, '\n', ps->n - ps->i);
			size_t ll = nl ? (size_t)(nl - ls) : ps->n - ps->i;
			size_t t = 0;

			if (r->strip)
				while (t < ll && ls[t] == '\t')
					t++;
			ps->i += ll + (nl ? 1 : 0);
			if (ll - t == r->t.n && !memcmp(ls + t, r->t.v, r->t.n)) {
				done = 1;
				break;
			}
			bput(&b, ls + t, ll - t);
			if (nl)
				bputc(&b, '\n');
		}
		r->body = b.p;
		r->blen = b.n;
		if (b.oom)
			ps->oom = 1;
		/* bash warns and uses the rest: agents' tools have been seen to
		 * append text after the delimiter, so the body is not known */
		if (!done || b.oom)
			r->body_unknown = 1;
		else if (!(r->t.fl & W_QUOTE))
			hd_expand(r);
	}
	ps->nhd = 0;
}

static const char *const keywords[] = {
	"if", "then", "else", "elif", "fi", "for", "while", "until", "do",
	"done", "case", "esac", "select", "function", "{", "}", "!", "[[",
	"]]", "coproc", NULL
};

static int is_keyword(const struct word *w)
{
	int i;

	if (w->fl & (W_QUOTE | W_DYN))
		return 0;
	for (i = 0; keywords[i]; i++)
		if (!strcmp(w->v, keywords[i]))
			return 1;
	/* name() { ... } */
	return 0;
}

static void set_opaque(struct parser *ps, size_t at)
{
	ps->opaque = 1;
	ps->opaque_at = at;
	ps->opaque_hd = ps->nhd;
}

static void parse(struct parser *ps)
{
	const char *s = ps->s;
	size_t n = ps->n;

	while (ps->i < n && !ps->oom) {
		size_t i = ps->i;
		char c = s[i];

		if (c == ' ' || c == '\t' || c == '\r') {
			ps->i++;
			continue;
		}
		if (c == '\\' && i + 1 < n && s[i + 1] == '\n') {
			ps->i += 2;
			continue;
		}
		if (c == '#' ) {
			const char *nl = memchr(s + i, '\n', n - i);

			ps->i = nl ? (size_t)(nl - s) : n;
			continue;
		}
		if (c == '\n') {
			ps->i++;
			finish_item(ps, OP_SEQ);
			read_heredocs(ps);
			continue;
		}
		if (c == '&' && i + 1 < n && s[i + 1] == '&') {
			ps->i += 2;
			finish_item(ps, OP_AND);
			continue;
		}
		if (c == '|' && i + 1 < n && s[i + 1] == '|') {
			ps->i += 2;
			finish_item(ps, OP_OR);
			continue;
		}
		if (c == ';') {
			if (i + 1 < n && s[i + 1] == ';') {
				if (ps->loose) {
					ps->i += 2;
					finish_item(ps, OP_SEQ);
					continue;
				}
				set_opaque(ps, i);
				return;
			}
			ps->i++;
			finish_item(ps, OP_SEQ);
			continue;
		}
		if (c == '|') {
			ps->i += (i + 1 < n && s[i + 1] == '&') ? 2 : 1;
			finish_cmd(ps);
			continue;
		}
		if (c == '&' && !(i + 1 < n && s[i + 1] == '>')) {
			ps->i++;
			finish_item(ps, OP_SEQ);
			continue;
		}
		if (c == '(' || c == ')') {
			if (ps->loose) {
				ps->i++;
				finish_item(ps, OP_SEQ);
				continue;
			}
			set_opaque(ps, i);
			return;
		}
		/* redirections: [n]> [n]>> [n]< << <<- <<< &> &>> [n]>& [n]<& */
		{
			size_t j = i;
			int fd = -1, kind = 0, strip = 0;

			while (j < n && isdigit((unsigned char)s[j]) && j - i < 3)
				j++;
			if (j > i && j < n && (s[j] == '<' || s[j] == '>'))
				fd = atoi(s + i);
			else
				j = i;
			if (j < n && s[j] == '&' && j + 1 < n && s[j + 1] == '>') {
				kind = R_ALL;
				j += 2;
				if (j < n && s[j] == '>') {
					kind = R_ALLAPP;
					j++;
				}
			} else if (j < n && s[j] == '>') {
				j++;
				kind = R_OUT;
				if (j < n && s[j] == '>') {
					kind = R_APP;
					j++;
				} else if (j < n && s[j] == '|')
					j++;
				else if (j < n && s[j] == '&') {
					kind = R_DUP;
					j++;
				}
			} else if (j < n && s[j] == '<') {
				if (j + 1 < n && s[j + 1] == '(') {
					kind = 0; /* process substitution: a word */
				} else {
					j++;
					kind = R_IN;
					if (j + 1 < n && s[j] == '<' && s[j + 1] == '<') {
						kind = R_HERESTR;
						j += 2;
					} else if (j < n && s[j] == '<') {
						kind = R_HEREDOC;
						j++;
						if (j < n && s[j] == '-') {
							strip = 1;
							j++;
						}
					} else if (j < n && s[j] == '&') {
						kind = R_DUP;
						j++;
					} else if (j < n && s[j] == '>')
						j++; /* <> read-write */
				}
			}
			if (kind) {
				struct redir r = { 0 };

				ps->i = j;
				while (ps->i < n && (s[ps->i] == ' ' || s[ps->i] == '\t'))
					ps->i++;
				r.fd = fd;
				r.kind = kind;
				r.strip = strip;
				if (ps->i < n && !is_meta(s[ps->i]))
					read_word(ps, &r.t);
				else {
					r.t.v = strdup("");
					r.t.fl = W_DYN;
					if (!r.t.v)
						ps->oom = 1;
				}
				if (!ps->in_cmd) {
					ps->in_cmd = 1;
					ps->sc.off = i;
				}
				if (more((void **)&ps->sc.r, &ps->sc.capr, ps->sc.nr,
					 sizeof(r))) {
					ps->oom = 1;
					word_free(&r.t);
					return;
				}
				ps->sc.r[ps->sc.nr++] = r;
				ps->sc.end = ps->i;
				if (kind == R_HEREDOC) {
					if (more((void **)&ps->hd, &ps->caphd, ps->nhd,
						 sizeof(*ps->hd))) {
						ps->oom = 1;
						return;
					}
					ps->hd[ps->nhd].item = ps->nit;
					ps->hd[ps->nhd].cmd = ps->cur.n;
					ps->hd[ps->nhd].red = ps->sc.nr - 1;
					ps->nhd++;
				}
				continue;
			}
		}
		/* a word */
		{
			struct word w = { 0 };

			read_word(ps, &w);
			if (ps->i == i) {       /* cannot happen; be safe */
				word_free(&w);
				ps->i++;
				continue;
			}
			if (!ps->in_cmd) {
				ps->in_cmd = 1;
				ps->sc.off = i;
			}
			if (ps->loose && !ps->sc.nw && is_keyword(&w)) {
				word_free(&w);
				if (!ps->sc.nr)
					ps->in_cmd = 0;
				finish_item(ps, OP_SEQ);
				continue;
			}
			if (!ps->loose && ((!ps->sc.nw && is_keyword(&w)) ||
			    (ps->i < n && s[ps->i] == '(' &&
			     !(w.fl & W_QUOTE)))) {
				word_free(&w);
				set_opaque(ps, i);
				return;
			}
			if (more((void **)&ps->sc.w, &ps->sc.capw, ps->sc.nw,
				 sizeof(w))) {
				word_free(&w);
				ps->oom = 1;
				return;
			}
			ps->sc.w[ps->sc.nw++] = w;
			ps->sc.end = ps->i;
		}
	}
	finish_item(ps, OP_END);
	/* here-documents never closed by a newline */
	for (size_t h = 0; h < ps->nhd; h++) {
		struct hdref *ref = &ps->hd[h];

		if (ref->item < ps->nit &&
		    ref->cmd < ps->it[ref->item].p.n)
			ps->it[ref->item].p.c[ref->cmd].r[ref->red].body_unknown = 1;
	}
	ps->nhd = 0;
}

/* ---- paths --------------------------------------------------------------- */
char *kt_sh_path(const char *cwd, const char *path)
{
	struct buf b = { 0 };
	const char *comp[512];
	size_t clen[512], nc = 0, k;
	const char *srcs[2];
	int abs, s;

	if (!path)
		return NULL;
	abs = path[0] == '/' || (cwd && cwd[0] == '/');
	srcs[0] = path[0] == '/' ? NULL : cwd;
	srcs[1] = path;
	for (s = 0; s < 2; s++) {
		const char *p = srcs[s];

		while (p && *p) {
			const char *e;

			while (*p == '/')
				p++;
			if (!*p)
				break;
			e = strchr(p, '/');
			if (!e)
				e = p + strlen(p);
			if (e - p == 1 && p[0] == '.') {
				/* nothing */
			} else if (e - p == 2 && p[0] == '.' && p[1] == '.' &&
				   nc && !(clen[nc - 1] == 2 &&
					   !memcmp(comp[nc - 1], "..", 2))) {
				nc--;
			} else if (e - p == 2 && p[0] == '.' && p[1] == '.' &&
				   abs) {
				/* /.. is / */
			} else if (nc < 512) {
				comp[nc] = p;
				clen[nc] = (size_t)(e - p);
				nc++;
			}
			p = e;
		}
	}
	bput(&b, "", 0);
	if (abs)
		bputc(&b, '/');
	for (k = 0; k < nc; k++) {
		if (k)
			bputc(&b, '/');
		bput(&b, comp[k], clen[k]);
	}
	if (!abs && !nc)
		bputc(&b, '.');
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	return b.p;
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* ---- commands -------------------------------------------------------------- */
static int wis(const struct word *w, const char *s)
{
	return !(w->fl & W_DYN) && !strcmp(w->v, s);
}

static int assignment(const struct word *w)
{
	const char *e = strchr(w->v, '=');
	const char *p;

	if (!e || e == w->v || (w->fl & W_QUOTE && w->v[0] == '"'))
		return 0;
	for (p = w->v; p < e; p++)
		if (!is_name(*p) || (p == w->v && isdigit((unsigned char)*p)))
			return 0;
	return 1;
}

/* Index of the real command word after env assignments and wrappers like
 * `timeout 60`, `env X=1`, `time`, `nice -n 5`, `sudo`, `taskset -c 0`.
 * Returns nw when there is none. */
static size_t unwrap(const struct scmd *c)
{
	size_t i = 0, nw = c->nw;

	while (i < nw && assignment(&c->w[i]))
		i++;
	while (i < nw && !(c->w[i].fl & W_DYN)) {
		const char *b = base(c->w[i].v);

		if (!strcmp(b, "env")) {
			i++;
			while (i < nw && (c->w[i].v[0] == '-' ||
					  assignment(&c->w[i]))) {
				if (!strcmp(c->w[i].v, "-u") ||
				    !strcmp(c->w[i].v, "-C"))
					i++;
				i++;
			}
		} else if (!strcmp(b, "timeout")) {
			i++;
			while (i < nw && c->w[i].v[0] == '-') {
				if (!strcmp(c->w[i].v, "-s") ||
				    !strcmp(c->w[i].v, "-k"))
					i++;
				i++;
			}
			i++;    /* the duration */
		} else if (!strcmp(b, "time") || !strcmp(b, "nohup") ||
			   !strcmp(b, "exec") || !strcmp(b, "command") ||
			   !strcmp(b, "builtin") || !strcmp(b, "ccache") ||
			   !strcmp(b, "stdbuf") || !strcmp(b, "sudo") ||
			   !strcmp(b, "nice") || !strcmp(b, "ionice") ||
			   !strcmp(b, "numactl") || !strcmp(b, "taskset") ||
			   !strcmp(b, "chrt")) {
			int takes = !strcmp(b, "nice") || !strcmp(b, "taskset") ||
				    !strcmp(b, "numactl") || !strcmp(b, "sudo") ||
				    !strcmp(b, "ionice") || !strcmp(b, "chrt");

			i++;
			while (i < nw && c->w[i].v[0] == '-') {
				const char *o = c->w[i].v;

				if (takes && strlen(o) == 2 && !strchr("pE", o[1]))
					i++;
				i++;
			}
			/* taskset MASK cmd, chrt PRIO cmd */
			if ((!strcmp(b, "taskset") || !strcmp(b, "chrt")) &&
			    i < nw && isxdigit((unsigned char)c->w[i].v[0]) &&
			    i > 0 && c->w[i - 1].v[0] != '-')
				i++;
		} else
			break;
	}
	return i;
}

static int has_help(const struct scmd *c, size_t a)
{
	size_t i;

	for (i = a + 1; i < c->nw; i++)
		if (wis(&c->w[i], "--help") || wis(&c->w[i], "-h") ||
		    wis(&c->w[i], "--version") || wis(&c->w[i], "-V") ||
		    wis(&c->w[i], "-version"))
			return 1;
	return 0;
}

static const char *const src_ext[] = { ".cu", ".c", ".cc", ".cpp", ".cxx",
	".c++", ".C", ".cuh", ".hip", ".m", ".mm", ".ptx", NULL };

static int is_source(const char *v)
{
	size_t n = strlen(v), k;
	int i;

	if (v[0] == '-')
		return 0;
	for (i = 0; src_ext[i]; i++) {
		k = strlen(src_ext[i]);
		if (n > k && !strcmp(v + n - k, src_ext[i]))
			return 1;
	}
	return 0;
}

enum { CC_NONE = 0, CC_COMPILER, CC_MAKE, CC_NINJA, CC_CMAKE };

/* "gcc", "g++-12", "x86_64-linux-gnu-gcc", "clang++-17", "nvcc", ... */
static int compiler_name(const char *b)
{
	static const char *const cc[] = { "gcc", "g++", "cc", "c++", "clang",
		"clang++", "nvcc", "hipcc", "nvc", "nvc++", "icx", "icpx",
		"mpicc", "mpicxx", "mpic++", "tcc", NULL };
	char t[64];
	size_t n = strlen(b), k;
	const char *d;
	int i;

	if (n >= sizeof(t))
		return 0;
	memcpy(t, b, n + 1);
	/* version suffix: gcc-12, clang++-17 */
	d = strrchr(t, '-');
	if (d && d[1] && strspn(d + 1, "0123456789.") == strlen(d + 1))
		t[d - t] = 0;
	/* target prefix: x86_64-linux-gnu-gcc */
	d = strrchr(t, '-');
	if (d)
		memmove(t, d + 1, strlen(d + 1) + 1);
	for (i = 0; cc[i]; i++)
		if (!strcmp(t, cc[i]))
			return 1;
	(void)k;
	return 0;
}

static int build_kind(const struct scmd *c, size_t a)
{
	const char *b;
	size_t i;

	if (a >= c->nw || (c->w[a].fl & W_DYN))
		return CC_NONE;
	b = base(c->w[a].v);
	if (compiler_name(b)) {
		if (has_help(c, a))
			return CC_NONE;
		for (i = a + 1; i < c->nw; i++)
			if (!(c->w[i].fl & W_DYN) && is_source(c->w[i].v))
				return CC_COMPILER;
		return CC_NONE;
	}
	if (!strcmp(b, "make") || !strcmp(b, "gmake")) {
		if (has_help(c, a))
			return CC_NONE;
		for (i = a + 1; i < c->nw; i++) {
			const char *v = c->w[i].v;

			if (!strcmp(v, "clean") || !strcmp(v, "distclean") ||
			    !strcmp(v, "-n") || !strcmp(v, "--dry-run") ||
			    !strcmp(v, "-q") || !strcmp(v, "help") ||
			    !strcmp(v, "-p"))
				return CC_NONE;
		}
		return CC_MAKE;
	}
	if (!strcmp(b, "ninja")) {
		for (i = a + 1; i < c->nw; i++)
			if (!strcmp(c->w[i].v, "-t") || !strcmp(c->w[i].v, "-n") ||
			    !strcmp(c->w[i].v, "clean"))
				return CC_NONE;
		return has_help(c, a) ? CC_NONE : CC_NINJA;
	}
	if (!strcmp(b, "cmake")) {
		for (i = a + 1; i < c->nw; i++)
			if (wis(&c->w[i], "--build"))
				return CC_CMAKE;
	}
	return CC_NONE;
}

/* Programs whose output is never a benchmark of the agent's code. */
static const char *const not_bench[] = {
	"ls", "cat", "grep", "egrep", "rg", "find", "echo", "printf", "head",
	"tail", "sed", "awk", "cd", "rm", "mv", "cp", "mkdir", "rmdir", "git",
	"pip", "pip3", "uv", "conda", "apt", "apt-get", "yum", "dnf", "brew",
	"nvidia-smi", "which", "whereis", "type", "file", "nm", "objdump",
	"readelf", "ldd", "make", "gmake", "cmake", "ninja", "ctest", "valgrind",
	"gdb", "strace", "ltrace", "chmod", "chown", "touch", "wc", "sort",
	"uniq", "diff", "du", "df", "ps", "kill", "pkill", "export", "source",
	".", "tar", "zip", "unzip", "curl", "wget", "ssh", "scp", "rsync",
	"less", "more", "vim", "vi", "nano", "tee", "xargs", "true", "false",
	"test", "[", "sleep", "date", "env", "set", "unset", "pwd", "whoami",
	"hostname", "uname", "lscpu", "free", "top", "htop", "cuobjdump",
	"nvdisasm", "clang-format", "black", "ruff", "flake8", "mypy",
	"pylint", "jq", "yq", "sha256sum", "md5sum", "ln", "readlink",
	"realpath", "basename", "dirname", "tr", "cut", "paste", "column",
	"stat", "history", "alias", "docker", "kubectl", "npm", "npx", "node",
	"cargo", "go", "rustc", "javac", "java", "dmesg", "journalctl",
	"systemctl", "lsof", "netstat", "ss", "ping", "mount", "umount",
	"lspci", "lsmod", "modprobe", "patch", "xxd", "hexdump", "od",
	"strings", "c++filt", "addr2line", "ar", "ranlib", "strip", "ld",
	"pkg-config", "sh", "bash", "zsh", "python-config", NULL
};

static int in_list(const char *const *l, const char *s)
{
	int i;

	for (i = 0; l[i]; i++)
		if (!strcmp(l[i], s))
			return 1;
	return 0;
}

static int has_ext(const char *v, const char *ext)
{
	size_t n = strlen(v), k = strlen(ext);

	return n > k && !strcmp(v + n - k, ext);
}

/* Whether simple command c (real command at a) runs a benchmark-like
 * program; *name gets a pointer to its name inside c. */
/* A script without a name: python - (stdin) or python -c. */
static int anon_prog(const char *name)
{
	return name && (!strcmp(name, "python -") ||
			!strcmp(name, "python -c"));
}

/* The first statement of inline code: not blank, a comment or an import
 * (the first line that is not blank when all are imports). */
static char *first_statement(const char *code, size_t n)
{
	size_t i = 0, fb = n, fe = n;

	while (i < n) {
		size_t e = i, b;

		while (e < n && code[e] != '\n')
			e++;
		b = i;
		while (b < e && (code[b] == ' ' || code[b] == '\t'))
			b++;
		if (b < e && code[b] != '#' && strncmp(code + b, "import ", 7) &&
		    strncmp(code + b, "from ", 5))
			return strndup(code + b, e - b < 160 ? e - b : 160);
		if (b < e && fb == n) {
			fb = b;
			fe = e;
		}
		i = e + 1;
	}
	return fb < n ? strndup(code + fb, fe - fb < 160 ? fe - fb : 160) : NULL;
}

/* The command that measured, for a bench's `source`: its words from the
 * program on (at most 200 bytes), or for code on stdin or in -c its first
 * statement, since "python -" names nothing. */
static char *bench_source(const struct scmd *c, size_t a)
{
	char buf[208];
	size_t i, k = 0;

	for (i = a + 1; i < c->nw; i++)
		if (!strcmp(c->w[i].v, "-c") && i + 1 < c->nw)
			return first_statement(c->w[i + 1].v,
					       strlen(c->w[i + 1].v));
	for (i = 0; i < c->nr; i++)
		if ((c->r[i].kind == R_HEREDOC || c->r[i].kind == R_HERESTR) &&
		    c->r[i].body && (c->nw == a + 1 ||
				     !strcmp(c->w[c->nw - 1].v, "-")))
			return first_statement(c->r[i].body, c->r[i].blen);
	for (i = a; i < c->nw && k < 200; i++) {
		int w = snprintf(buf + k, sizeof(buf) - k, "%s%s", k ? " " : "",
				 (c->w[i].fl & W_DYN) ? "$..." : c->w[i].v);

		if (w < 0 || (size_t)w >= sizeof(buf) - k) {
			k = sizeof(buf) - 1;
			break;
		}
		k += (size_t)w;
	}
	buf[k] = 0;
	return k ? strdup(buf) : NULL;
}

static int bench_cmd(const struct scmd *c, size_t a, const char **name)
{
	const char *v, *b;
	size_t i;

	if (a >= c->nw || (c->w[a].fl & W_DYN) || has_help(c, a))
		return 0;
	v = c->w[a].v;
	b = base(v);
	*name = b;
	if (!strncmp(b, "python", 6) || !strcmp(b, "pypy3") ||
	    !strcmp(b, "torchrun") || !strcmp(b, "accelerate") ||
	    !strcmp(b, "deepspeed")) {
		for (i = a + 1; i < c->nw; i++) {
			const char *x = c->w[i].v;

			if (!strcmp(x, "-m") && i + 1 < c->nw) {
				*name = c->w[i + 1].v;
				return strcmp(*name, "pip") && strcmp(*name, "venv") &&
				       strcmp(*name, "json.tool") &&
				       strcmp(*name, "http.server");
			}
			if (!strcmp(x, "-c")) {
				*name = "python -c";
				return 1;
			}
			if (!strcmp(x, "-")) {
				*name = "python -";
				return 1;
			}
			if (x[0] != '-') {
				*name = base(x);
				return 1;
			}
		}
		/* a script on stdin: python <<'EOF' ... EOF */
		for (i = 0; i < c->nr; i++)
			if (c->r[i].kind == R_HEREDOC || c->r[i].kind == R_HERESTR) {
				*name = "python -";
				return 1;
			}
		return 0;
	}
	if (!strcmp(b, "ncu") || !strcmp(b, "nsys") || !strcmp(b, "nvprof") ||
	    !strcmp(b, "rocprof") || !strcmp(b, "hyperfine") ||
	    !strcmp(b, "compute-sanitizer") || !strcmp(b, "mpirun") ||
	    !strcmp(b, "srun") || !strcmp(b, "mpiexec")) {
		for (i = a + 1; i < c->nw; i++)
			if (c->w[i].v[0] != '-' && (c->w[i].v[0] == '.' ||
						    strchr(c->w[i].v, '/'))) {
				*name = base(c->w[i].v);
				break;
			}
		return 1;
	}
	if ((!strcmp(b, "bash") || !strcmp(b, "sh")) && a + 1 < c->nw &&
	    has_ext(c->w[a + 1].v, ".sh")) {
		*name = base(c->w[a + 1].v);
		return 1;
	}
	if (!strcmp(b, "make") || !strcmp(b, "gmake")) {
		for (i = a + 1; i < c->nw; i++)
			if (c->w[i].v[0] != '-' && !strchr(c->w[i].v, '=') &&
			    (strstr(c->w[i].v, "bench") || strstr(c->w[i].v, "run") ||
			     strstr(c->w[i].v, "perf"))) {
				*name = c->w[i].v;
				return 1;
			}
		return 0;
	}
	if ((!strcmp(b, "cargo") && a + 1 < c->nw && wis(&c->w[a + 1], "bench")) ||
	    (!strcmp(b, "go") && a + 1 < c->nw && wis(&c->w[a + 1], "test") &&
	     strstr(c->w[c->nw - 1].v, "bench")))
		return 1;
	if (!strcmp(b, "pytest")) {
		for (i = a + 1; i < c->nw; i++)
			if (strstr(c->w[i].v, "benchmark"))
				return 1;
		return 0;
	}
	if (in_list(not_bench, b) || compiler_name(b))
		return 0;
	/* a program of the agent's: ./x, build/x, /abs/x, or a *bench* tool */
	if (strchr(v, '/') || strstr(b, "bench"))
		return 1;
	return 0;
}

/* ---- output evidence ------------------------------------------------------ */
/* "name:" at a line start or after ": " (bash: "line 1: cd: x: No such"). */
static int out_msg(const char *out, const char *name)
{
	size_t k = strlen(name);
	const char *p = out;

	if (!out || !k)
		return 0;
	while ((p = strstr(p, name))) {
		int start = p == out || p[-1] == '\n' ||
			    (p - out >= 2 && p[-1] == ' ' && p[-2] == ':');

		if (start && p[k] == ':')
			return 1;
		p += k;
	}
	return 0;
}

static int out_has(const char *out, const char *s)
{
	return out && strstr(out, s);
}

/* commands that print "<name>: ..." to stderr when they fail */
static const char *const trusted[] = { "cd", "rm", "mv", "cp", "mkdir",
	"rmdir", "touch", "chmod", "ln", "pushd", "popd", "export", "true",
	":", "set", "unset", "source", ".", "ls", "echo", "printf", NULL };

/* a command that cannot fail once reached */
static int infallible(const char *b)
{
	return !strcmp(b, "export") || !strcmp(b, "true") || !strcmp(b, ":") ||
	       !strcmp(b, "echo") || !strcmp(b, "printf") || !strcmp(b, "set") ||
	       !strcmp(b, "unset");
}

static int stderr_hidden(const struct scmd *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++) {
		const struct redir *r = &c->r[i];

		if ((r->fd == 2 && (r->kind == R_OUT || r->kind == R_APP)) ||
		    r->kind == R_ALL || r->kind == R_ALLAPP ||
		    (r->fd == 2 && r->kind == R_DUP && strcmp(r->t.v, "1")))
			return 1;
	}
	return 0;
}

/* ---- diagnostics ------------------------------------------------------------ */
static int diag_head(const char *l, size_t n, int *err)
{
	static const char *const errs[] = { ": error", "error:", "fatal error",
		"nvcc fatal", "collect2:", "undefined reference",
		"ld returned", "make: ***", "]: ***", "ninja: build stopped",
		"FAILED: ", "CMake Error", "Error 1", "Error 2",
		"compilation terminated", "ptxas fatal", NULL };
	static const char *const warns[] = { ": warning", "warning:", ": note:",
		"In function", "In file included from", "CMake Warning",
		"ptxas info", "ptxas warning", ": remark", NULL };
	static const char *const tools[] = { "In file included from",
		"                 from ", "collect2", "/usr/bin/ld", "ld:",
		"nvcc", "ptxas", "cc1", "gcc", "g++", "clang", "fatal error",
		"compilation terminated", "error:", "warning:", "make:", "make[",
		"gmake", "ninja:", "FAILED:", "CMake ", NULL };
	char t[512];
	size_t k = n < sizeof(t) - 1 ? n : sizeof(t) - 1, j;
	int i, fmt = 0;

	memcpy(t, l, k);
	t[k] = 0;
	/* only compiler-shaped lines: "path:12:3: ...", "path(12): ...",
	 * "x.c: In function", or a build tool's own prefix; a program's
	 * "./a.out: error while loading ..." is not a diagnostic */
	j = strcspn(t, " :(");
	if (j && (t[j] == ':' || t[j] == '(') && isdigit((unsigned char)t[j + 1]))
		fmt = 1;
	if (strstr(t, ": In function") || strstr(t, ": In member function") ||
	    strstr(t, "undefined reference") || strstr(t, ": At top level"))
		fmt = 1;
	for (i = 0; tools[i] && !fmt; i++)
		if (!strncmp(t, tools[i], strlen(tools[i])))
			fmt = 1;
	if (!fmt)
		return 0;
	for (i = 0; errs[i]; i++)
		if (strstr(t, errs[i])) {
			*err = 1;
			return 1;
		}
	for (i = 0; warns[i]; i++)
		if (strstr(t, warns[i]))
			return 1;
	return 0;
}

/* Diagnostic lines of out (headers and their indented context) that
 * mention one of names (or all when names is NULL).  *err: an error. */
static char *diagnostics(const char *out, char **names, size_t nn,
			 int want_unattributed, size_t *len, int *err)
{
	struct buf b = { 0 };
	const char *p = out;
	int keep = 0;

	*err = 0;
	*len = 0;
	if (!out)
		return NULL;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t ll = nl ? (size_t)(nl - p) : strlen(p);
		int e = 0;

		if (diag_head(p, ll, &e)) {
			int mine = names == NULL;
			size_t k;

			if (!mine) {
				int any = 0;

				for (k = 0; k < nn; k++) {
					const char *bn = base(names[k]);
					const char *m = p;

					while ((m = strstr(m, bn)) && m < p + ll) {
						any = 1;
						break;
					}
					if (any)
						break;
				}
				mine = any || want_unattributed;
			}
			keep = mine;
			if (mine && e)
				*err = 1;
		} else if (!(ll && (p[0] == ' ' || p[0] == '\t')))
			keep = 0;
		if (keep) {
			bput(&b, p, ll);
			bputc(&b, '\n');
		}
		p += ll + (nl ? 1 : 0);
	}
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	*len = b.n;
	return b.p;
}

/* "Exit code N" (Claude Code), "exit code: N", "exited with code N",
 * "exit status N" near the top of the output: the call's status. */
static int exit_marker(const char *out)
{
	static const char *const m[] = { "Exit code ", "Exit code: ",
		"exit code: ", "Exit Code: ",
		"exited with code ", "Exit status ", "exit status ",
		"Process exited with code ", NULL };
	int i;

	if (!out)
		return -1;
	const char *p, *last = NULL;

	for (i = 0; m[i]; i++) {
		p = strstr(out, m[i]);
		if (p && p - out < 200 &&
		    isdigit((unsigned char)p[strlen(m[i])]))
			return atoi(p + strlen(m[i]));
	}
	/* OpenHands: "[The command completed with exit code 1.]" at the end */
	for (p = out; (p = strstr(p, "with exit code ")); p++)
		last = p;
	if (last && isdigit((unsigned char)last[15]))
		return atoi(last + 15);
	return -1;
}

/* Whether a command named b occurs before item i, command k. */
static int claimed(const struct parser *ps, size_t i, size_t k, const char *b)
{
	size_t a, x, y;

	for (x = 0; x <= i && x < ps->nit; x++)
		for (y = 0; y < ps->it[x].p.n && (x < i || y < k); y++) {
			const struct scmd *c = &ps->it[x].p.c[y];

			a = unwrap(c);
			if (a < c->nw && !(c->w[a].fl & W_DYN) &&
			    !strcmp(base(c->w[a].v), b))
				return 1;
		}
	return 0;
}

/* ---- plan ------------------------------------------------------------------- */
enum { UNK = -1, NO = 0, YES = 1 };

/* A working directory as the model knows it: dir NULL and lost 0 is the
 * directory the command started in when the caller does not know it
 * (relative paths then stay relative); lost 1 is one we cannot follow. */
struct wdir {
	char *dir;
	int lost;
};

struct ctx {
	struct kt_sh_plan *p;
	const char *out;
	char *cwd;      /* current, or NULL */
	int cwd_lost;   /* a cd that may or may not have run */
	/* bash's OLDPWD (`cd -`), known once a cd of this command set it:
	 * what it was before the command, the model cannot tell */
	struct wdir old;
	int old_known;
	/* pushd's directory stack, the entries this command pushed (what
	 * was on it before is not known) */
	struct wdir *stk;
	size_t nstk, capstk;
	int oom;
};

static void ctx_free(struct ctx *x)
{
	free(x->cwd);
	free(x->old.dir);
	while (x->nstk)
		free(x->stk[--x->nstk].dir);
	free(x->stk);
}

static char *resolve(struct ctx *x, const struct word *w)
{
	if (w->fl & (W_DYN | W_GLOB) || !w->n)
		return NULL;
	if (w->v[0] != '/' && x->cwd_lost)
		return NULL;
	return kt_sh_path(x->cwd, w->v);
}

static struct kt_sh_op *new_op(struct ctx *x, int op, char *path)
{
	struct kt_sh_plan *p = x->p;
	size_t cap = p->nops;

	/* capacity doubles at powers of two */
	if (!path)
		return NULL;
	if ((cap & (cap - 1)) == 0) {
		size_t c = cap ? cap * 2 : 4;
		struct kt_sh_op *q = realloc(p->ops, c * sizeof(*q));

		if (!q) {
			free(path);
			x->oom = 1;
			return NULL;
		}
		p->ops = q;
	}
	memset(&p->ops[p->nops], 0, sizeof(p->ops[0]));
	p->ops[p->nops].op = op;
	p->ops[p->nops].path = path;
	return &p->ops[p->nops++];
}

/* What a producer writes to stdout. */
struct content {
	int kind;       /* 0 unknown, 1 data, 2 files */
	struct buf data;
	char **files;
	size_t nfiles;
};

static void content_free(struct content *c)
{
	size_t i;

	free(c->data.p);
	for (i = 0; i < c->nfiles; i++)
		free(c->files[i]);
	free(c->files);
	memset(c, 0, sizeof(*c));
}

static void echo_content(const struct scmd *c, size_t a, struct content *o)
{
	size_t i = a + 1;
	int nl = 1, esc = 0, first = 1;

	for (; i < c->nw; i++) {
		const char *v = c->w[i].v;

		if (v[0] != '-' || !v[1] || strspn(v + 1, "neE") != strlen(v + 1))
			break;
		if (strchr(v, 'n'))
			nl = 0;
		if (strchr(v, 'e'))
			esc = 1;
		if (strchr(v, 'E'))
			esc = strrchr(v, 'E') < strrchr(v, 'e') ? esc : 0;
	}
	o->kind = 1;
	bput(&o->data, "", 0);
	for (; i < c->nw; i++) {
		const struct word *w = &c->w[i];
		size_t j;

		if (w->fl & (W_DYN | W_GLOB)) {
			o->kind = 0;
			return;
		}
		if (!first)
			bputc(&o->data, ' ');
		first = 0;
		if (!esc) {
			bput(&o->data, w->v, w->n);
			continue;
		}
		for (j = 0; j < w->n; j++) {
			if (w->v[j] == '\\' && j + 1 < w->n) {
				size_t k = c_escape(w->v, w->n, j + 1, &o->data, 1);

				if (!k)
					return; /* \c: no more output */
				j += k;
			} else
				bputc(&o->data, w->v[j]);
		}
	}
	if (nl)
		bputc(&o->data, '\n');
}

static void printf_content(const struct scmd *c, size_t a, struct content *o)
{
	size_t i = a + 1, j;
	const struct word *f;

	if (i < c->nw && wis(&c->w[i], "--"))
		i++;
	/* printf -v var: no output; printf fmt args: not interpreted here */
	if (i >= c->nw || i + 1 != c->nw || c->w[i].v[0] == '-' ||
	    (c->w[i].fl & (W_DYN | W_GLOB)))
		return;
	f = &c->w[i];
	o->kind = 1;
	bput(&o->data, "", 0);
	for (j = 0; j < f->n; j++) {
		char ch = f->v[j];

		if (ch == '\\' && j + 1 < f->n) {
			size_t k = c_escape(f->v, f->n, j + 1, &o->data, 0);

			if (!k)
				return;
			j += k;
		} else if (ch == '%') {
			if (j + 1 < f->n && f->v[j + 1] == '%') {
				bputc(&o->data, '%');
				j++;
			} else {
				o->kind = 0;    /* a conversion without args */
				return;
			}
		} else
			bputc(&o->data, ch);
	}
}

/* stdin of c: a here-document or here-string, else the pipe content. */
static int stdin_content(const struct scmd *c, struct content *pipe_in,
			 struct content *o)
{
	size_t i;
	const struct redir *in = NULL;

	for (i = 0; i < c->nr; i++)
		if ((c->r[i].kind == R_HEREDOC || c->r[i].kind == R_HERESTR ||
		     c->r[i].kind == R_IN) && (c->r[i].fd <= 0))
			in = &c->r[i];
	if (in) {
		if (in->kind == R_IN || (in->kind == R_HEREDOC && in->body_unknown) ||
		    (in->kind == R_HERESTR && (in->t.fl & (W_DYN | W_GLOB))))
			return 0;
		o->kind = 1;
		bput(&o->data, "", 0);
		if (in->kind == R_HEREDOC)
			bput(&o->data, in->body ? in->body : "", in->blen);
		else {
			bput(&o->data, in->t.v, in->t.n);
			bputc(&o->data, '\n');
		}
		return 1;
	}
	if (pipe_in && pipe_in->kind) {
		*o = *pipe_in;
		memset(pipe_in, 0, sizeof(*pipe_in));
		return 1;
	}
	return 0;
}

static void copy_content(struct content *dst, const struct content *src,
			 int *oom)
{
	size_t i;

	memset(dst, 0, sizeof(*dst));
	dst->kind = src->kind;
	if (src->kind == 1) {
		bput(&dst->data, src->data.p ? src->data.p : "", src->data.n);
		if (dst->data.oom)
			*oom = 1;
	} else if (src->kind == 2) {
		dst->files = calloc(src->nfiles ? src->nfiles : 1, sizeof(char *));
		if (!dst->files) {
			*oom = 1;
			dst->kind = 0;
			return;
		}
		for (i = 0; i < src->nfiles; i++) {
			dst->files[i] = strdup(src->files[i]);
			if (!dst->files[i])
				*oom = 1;
			dst->nfiles++;
		}
	}
}

/* Emit a write of content to path (taking a copy). */
static void put_write(struct ctx *x, int op, char *path,
		      const struct content *ct)
{
	struct kt_sh_op *o;
	struct content cp;

	if (!path)
		return;
	if (!strcmp(path, "/dev/null") || !strncmp(path, "/dev/", 5) ||
	    !strncmp(path, "/proc/", 6)) {
		free(path);
		return;
	}
	/* "bash: d/f: No such file or directory": the redirection failed */
	if (x->out) {
		const char *b = base(path);
		char pat[512];

		snprintf(pat, sizeof(pat), "%s: No such file", b);
		if (strstr(x->out, pat)) {
			free(path);
			return;
		}
		snprintf(pat, sizeof(pat), "%s: Permission denied", b);
		if (strstr(x->out, pat)) {
			free(path);
			return;
		}
	}
	o = new_op(x, op, path);
	if (!o)
		return;
	copy_content(&cp, ct, &x->oom);
	if (cp.kind == 1) {
		o->have_data = 1;
		o->data = cp.data.p ? cp.data.p : strdup("");
		o->len = cp.data.n;
		if (!o->data)
			x->oom = 1;
	} else {
		o->files = cp.files;
		o->nfiles = cp.nfiles;
	}
}

/* Apply the stdout redirections of c for content ct.  Returns 1 when stdout
 * went to a file (so nothing flows down the pipe). */
static int redirect_out(struct ctx *x, const struct scmd *c,
			const struct content *ct, int apply)
{
	size_t i, last = (size_t)-1;
	int any = 0;
	struct content empty = { 0 };

	empty.kind = 1;
	for (i = 0; i < c->nr; i++) {
		const struct redir *r = &c->r[i];

		if (((r->kind == R_OUT || r->kind == R_APP) && r->fd <= 1) ||
		    r->kind == R_ALL || r->kind == R_ALLAPP)
			last = i;
		if (r->kind == R_DUP && r->fd <= 1)
			last = (size_t)-1; /* >&2: goes elsewhere */
	}
	for (i = 0; i < c->nr; i++) {
		const struct redir *r = &c->r[i];
		int app;

		if (!(((r->kind == R_OUT || r->kind == R_APP) && r->fd <= 1) ||
		      r->kind == R_ALL || r->kind == R_ALLAPP))
			continue;
		any = 1;
		if (!apply)
			continue;
		app = r->kind == R_APP || r->kind == R_ALLAPP;
		/* earlier redirections of the same stdout only truncate */
		if (i != last) {
			if (!app)
				put_write(x, KT_SH_WRITE, resolve(x, &r->t), &empty);
			continue;
		}
		put_write(x, !ct->kind ? KT_SH_UNKNOWN :
			  app ? KT_SH_APPEND : KT_SH_WRITE, resolve(x, &r->t),
			  ct);
	}
	return any;
}

/* Every file c redirects output to (any fd), as changed in a way we do not
 * know: the output of a program, or of a command that may not have run. */
static void unknown_out(struct ctx *x, const struct scmd *c)
{
	struct content none = { 0 };

	for (size_t i = 0; i < c->nr; i++) {
		const struct redir *r = &c->r[i];

		if (r->kind == R_OUT || r->kind == R_APP || r->kind == R_ALL ||
		    r->kind == R_ALLAPP)
			put_write(x, KT_SH_UNKNOWN, resolve(x, &r->t), &none);
	}
}

/* sed -i / perl -i: the files edited in place (their new content is not
 * worked out).  GNU sed: -i[SUFFIX] or --in-place[=SUFFIX], script from
 * -e/-f or the first operand; BSD's `-i ''` / `-i .bak` suffix word is
 * skipped.  perl: -i[EXT] inside a switch cluster (-pi, -i.bak), program
 * from -e/-E or the first operand.  A glob makes the known files it
 * matches unknown, a word with $vars every known file under the cwd. */
static void unknown_operand(struct ctx *x, const struct word *w, int under);

static void inplace_ops(struct ctx *x, const struct scmd *c, size_t a,
			int perl)
{
	int inplace = 0, have_script = 0, dd = 0, bsd_suffix = 0;
	size_t i, first = (size_t)-1;
	const struct word *ops[64];
	size_t nops = 0;

	for (i = a + 1; i < c->nw; i++) {
		const struct word *w = &c->w[i];
		const char *v = w->v;

		if (bsd_suffix) {
			bsd_suffix = 0;
			if (!w->n || v[0] == '.')
				continue;
		}
		if (!dd && w->n > 1 && v[0] == '-' && !(w->fl & W_DYN)) {
			if (!strcmp(v, "--")) {
				dd = 1;
				continue;
			}
			if (v[1] == '-') {
				if (!strncmp(v, "--in-place", 10))
					inplace = 1;
				else if (!strncmp(v, "--expression", 12) ||
					 !strncmp(v, "--file", 6)) {
					have_script = 1;
					if (!strchr(v, '='))
						i++;
				} else if (!strcmp(v, "--line-length"))
					i++;
				continue;
			}
			for (const char *f = v + 1; *f; f++) {
				if (*f == 'i') {
					inplace = 1;
					/* -i alone: BSD may take a suffix word */
					if (!perl && f == v + 1 && !f[1])
						bsd_suffix = 1;
					break; /* the rest is a suffix */
				}
				if (*f == 'e' || (perl && *f == 'E') ||
				    (!perl && *f == 'f')) {
					have_script = 1;
					if (!f[1])
						i++; /* script in the next word */
					break;
				}
				if (!perl && *f == 'l') {
					if (!f[1])
						i++;
					break;
				}
				if (perl && (*f == 'M' || *f == 'm' ||
					     *f == 'I' || *f == 'x' ||
					     *f == 'C' || *f == '0'))
					break; /* takes the rest of the word */
			}
			continue;
		}
		if (first == (size_t)-1) {
			first = i;
			if (!have_script)
				continue; /* the script itself */
		}
		if (nops < 64)
			ops[nops++] = w;
	}
	for (i = 0; inplace && i < nops; i++)
		unknown_operand(x, ops[i], 0);
}

/* Non-option arguments of c after a (for rm/mv/cp/cat/tee). */
static size_t args_of(const struct scmd *c, size_t a, const struct word **v,
		      size_t max, int *opts_ok, const char *allowed)
{
	size_t i, k = 0;
	int dd = 0;

	*opts_ok = 1;
	for (i = a + 1; i < c->nw; i++) {
		const struct word *w = &c->w[i];

		if (!dd && w->v[0] == '-' && w->v[1]) {
			if (!strcmp(w->v, "--")) {
				dd = 1;
				continue;
			}
			if (w->v[1] == '-' || strspn(w->v + 1, allowed) !=
			    strlen(w->v + 1))
				*opts_ok = 0;
			continue;
		}
		if (k < max)
			v[k] = w;
		k++;
	}
	return k;
}

/* Forget where the command is: relative paths from here on name nothing
 * we can follow; OLDPWD and the stack are not known either. */
static void cwd_lose(struct ctx *x)
{
	free(x->cwd);
	x->cwd = NULL;
	x->cwd_lost = 1;
	free(x->old.dir);
	x->old.dir = NULL;
	x->old_known = 0;
	while (x->nstk)
		free(x->stk[--x->nstk].dir);
}

/* Change to d (owned; lost: a directory we cannot follow), the old one
 * becoming OLDPWD as bash's cd, pushd and popd do. */
static void cwd_go(struct ctx *x, struct wdir d)
{
	free(x->old.dir);
	x->old.dir = x->cwd;
	x->old.lost = x->cwd_lost;
	x->old_known = 1;
	x->cwd = d.dir;
	x->cwd_lost = d.lost;
}

/* Where a cd operand leads: lost when it expands or is relative to a
 * directory we do not know.  Returns 0, or -1 on ENOMEM. */
static int cwd_target(struct ctx *x, const struct word *w, struct wdir *d)
{
	d->dir = NULL;
	d->lost = 1;
	if ((w->fl & (W_DYN | W_GLOB)) ||
	    (w->v[0] != '/' && (x->cwd_lost || !x->cwd)))
		return 0;
	if (!(d->dir = kt_sh_path(x->cwd, w->v)))
		return -1;
	d->lost = 0;
	return 0;
}

static char *dup_or_null(const char *s, int *oom)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		*oom = 1;
	return d;
}

/*
 * cd, pushd and popd (bash manual, "Bourne Shell Builtins" and "Directory
 * Stack Builtins"): `cd` alone goes home (not known: lost), `cd -` to
 * OLDPWD, `pushd DIR` pushes the current directory and goes to DIR,
 * `pushd` alone swaps with the top of the stack, `popd` goes to the top
 * and removes it.  Anything else (+N/-N, a stack entry pushed before this
 * command, a step that may or may not have run) loses the cwd.
 */
static void set_cwd(struct ctx *x, const struct scmd *c, size_t a, int succ)
{
	const char *b = base(c->w[a].v);
	const struct word *arg = NULL;
	struct wdir d = { NULL, 1 };
	size_t i, na = 0;
	int is_cd = !strcmp(b, "cd");

	if (succ == NO)
		return;
	for (i = a + 1; i < c->nw; i++) {
		const struct word *w = &c->w[i];

		/* cd -L/-P only choose how symlinks are followed */
		if (!na && is_cd && (wis(w, "-L") || wis(w, "-P") ||
				     wis(w, "--")))
			continue;
		if (!na)
			arg = w;
		na++;
	}
	if (succ == UNK || na > 1)
		goto lose;
	if (arg && !is_cd && (arg->fl & W_DYN || arg->v[0] == '+' ||
			      arg->v[0] == '-'))
		goto lose;      /* pushd/popd +N -N -n */
	if (is_cd) {
		if (arg && wis(arg, "-")) {
			if (!x->old_known)
				goto lose;
			d.lost = x->old.lost;
			d.dir = dup_or_null(x->old.dir, &x->oom);
		} else if (arg && cwd_target(x, arg, &d)) {
			x->oom = 1;
		}
		/* no operand: $HOME, which we do not know (d lost) */
		if (x->oom)
			return;
		cwd_go(x, d);
		return;
	}
	if (!strcmp(b, "pushd")) {
		struct wdir top = { NULL, 0 };

		if (!arg) {
			/* swap the two top entries */
			if (!x->nstk)
				goto lose;
			top = x->stk[--x->nstk];
		} else if (cwd_target(x, arg, &top)) {
			x->oom = 1;
			return;
		}
		if (more((void **)&x->stk, &x->capstk, x->nstk,
			 sizeof(*x->stk))) {
			free(top.dir);
			x->oom = 1;
			return;
		}
		x->stk[x->nstk].dir = dup_or_null(x->cwd, &x->oom);
		x->stk[x->nstk++].lost = x->cwd_lost;
		if (x->oom) {
			free(top.dir);
			return;
		}
		cwd_go(x, top);
		return;
	}
	/* popd */
	if (arg || !x->nstk)
		goto lose;
	cwd_go(x, x->stk[--x->nstk]);
	return;
lose:
	cwd_lose(x);
}

/*
 * rm: what it removed.  `certain` (it ran and succeeded): a literal
 * operand is deleted, and with -r/-R every file known under it.  A glob or
 * a word that expands makes what it may name unknown instead: the known
 * files a glob matches (with -r also those under a directory it matches),
 * for $vars every known file under the cwd (unknown_operand).  Not certain
 * (it may have run, or ran in a loop): every operand that way.  An option
 * rm does not have may be -r by another name: then as not certain, -r.
 */
/* Whether an rm operand names / itself ("/", "//"...). */
static int rm_root(const char *v, size_t n)
{
	return n && strspn(v, "/") == n;
}

/* GNU rm refuses an operand whose last component is . or .. ("refusing
 * to remove '.' or '..' directory") and, by default (--preserve-root), /
 * itself: it removes nothing of them.  With --no-preserve-root (and -r)
 * it removes / like any directory: rm_ops lets it through. */
static int rm_refused(const char *v, size_t n)
{
	const char *b;
	size_t bl;

	if (rm_root(v, n))
		return 1;
	while (n > 1 && v[n - 1] == '/')
		n--;
	b = memrchr(v, '/', n);
	b = b ? b + 1 : v;
	bl = (size_t)(v + n - b);
	return (bl == 1 && b[0] == '.') ||
	       (bl == 2 && b[0] == '.' && b[1] == '.');
}

static void rm_ops(struct ctx *x, const struct scmd *c, size_t a,
		   int certain)
{
	static const char *const longs[] = { "--force", "--verbose", "--dir",
		"--one-file-system", "--no-preserve-root", "--preserve-root",
		"--preserve-root=all", "--interactive", "--interactive=never",
		"--interactive=once", "--interactive=always", NULL };
	size_t i, j;
	int dd = 0, rec = 0, odd = 0, root_ok = 0;

	for (i = a + 1; i < c->nw; i++) {
		const char *v = c->w[i].v;

		if (dd || c->w[i].n < 2 || v[0] != '-' ||
		    (c->w[i].fl & W_DYN))
			continue;
		if (!strcmp(v, "--")) {
			dd = 1;
			continue;
		}
		if (v[1] == '-') {
			for (j = 0; longs[j] && strcmp(longs[j], v); j++)
				;
			if (!strcmp(v, "--recursive"))
				rec = 1;
			else if (!longs[j])
				odd = 1;
			/* the last of them counts */
			if (!strcmp(v, "--no-preserve-root"))
				root_ok = 1;
			else if (!strncmp(v, "--preserve-root", 15))
				root_ok = 0;
			continue;
		}
		if (strspn(v + 1, "rRfivdI") != strlen(v + 1))
			odd = 1;
		if (strpbrk(v + 1, "rR"))
			rec = 1;
	}
	if (odd) {
		certain = 0;
		rec = 1;
	}
	for (dd = 0, i = a + 1; i < c->nw && !x->oom; i++) {
		const struct word *w = &c->w[i];
		char *p = NULL, *q;

		if (!dd && w->n > 1 && w->v[0] == '-' && !(w->fl & W_DYN)) {
			if (!strcmp(w->v, "--"))
				dd = 1;
			continue;
		}
		if (!w->n && !(w->fl & W_DYN))
			continue;
		if (!(w->fl & (W_DYN | W_GLOB)) && rm_refused(w->v, w->n) &&
		    !(rec && root_ok && rm_root(w->v, w->n)))
			continue;
		/* a relative name after the cwd was lost names nothing we
		 * can follow, as for writes (set_cwd) */
		if (!(w->fl & (W_DYN | W_GLOB)) && !(p = resolve(x, w)))
			continue;
		if (!certain || (w->fl & (W_DYN | W_GLOB))) {
			size_t from = x->p->nops;

			free(p);
			unknown_operand(x, w, rec);
			/* a removal cannot make an absent file exist */
			for (j = from; j < x->p->nops; j++)
				x->p->ops[j].present_only = 1;
			continue;
		}
		if (rec) {
			q = strdup(p);
			if (!q) {
				free(p);
				x->oom = 1;
				return;
			}
			(void)new_op(x, KT_SH_DELETE_UNDER, q);
		}
		if (rm_root(w->v, w->n))
			free(p);        /* / is no file: only what is under it */
		else
			(void)new_op(x, KT_SH_DELETE, p);
	}
}

/* rm / mv / cp of a command known to have succeeded */
static void file_ops(struct ctx *x, const struct scmd *c, size_t a,
		     const char *b)
{
	const struct word *v[64];
	int ok;
	size_t k, i;

	if (!strcmp(b, "rm")) {
		rm_ops(x, c, a, 1);
		return;
	}
	if (strcmp(b, "mv") && strcmp(b, "cp"))
		return;
	k = args_of(c, a, v, 64, &ok, strcmp(b, "mv") ? "fvpaL" : "fv");
	if (!ok || k < 2 || k > 64)
		return;
	for (i = 0; i + 1 < k; i++) {
		const struct word *dst = v[k - 1];
		char *src = resolve(x, v[i]), *dp;
		struct content ct = { 0 };
		size_t dl = dst->n;
		int dir = k > 2 || (dl && dst->v[dl - 1] == '/') ||
			  wis(dst, ".") || wis(dst, "..");

		if (!src)
			continue;
		/* mv a b where b may be a directory: only when b looks like
		 * a file name (has an extension) */
		if (!dir && !strchr(base(dst->v), '.')) {
			free(src);
			continue;
		}
		if (dir) {
			struct buf pb = { 0 };
			struct word w = *dst;

			bput(&pb, dst->v, dst->n);
			bputc(&pb, '/');
			bput(&pb, base(src), strlen(base(src)));
			if (pb.oom) {
				free(src);
				x->oom = 1;
				return;
			}
			w.v = pb.p;
			w.n = pb.n;
			dp = resolve(x, &w);
			free(pb.p);
		} else
			dp = resolve(x, dst);
		if (!dp || !strcmp(dp, src)) {
			free(dp);
			free(src);
			continue;
		}
		ct.kind = 2;
		ct.files = &src;
		ct.nfiles = 1;
		put_write(x, KT_SH_WRITE, dp, &ct);
		if (!strcmp(b, "mv"))
			(void)new_op(x, KT_SH_DELETE, src);
		else
			free(src);
	}
}

/* producers: echo, printf, cat, tee; returns what flows down the pipe */
static void run_producer(struct ctx *x, const struct scmd *c, size_t a,
			 const char *b, struct content *pipe_in,
			 struct content *pipe_out, int reached)
{
	struct content ct = { 0 };
	const struct word *v[64];
	int ok;
	size_t k, i;

	if (!strcmp(b, "echo"))
		echo_content(c, a, &ct);
	else if (!strcmp(b, "printf"))
		printf_content(c, a, &ct);
	else if (!strcmp(b, "cat")) {
		k = args_of(c, a, v, 64, &ok, "");
		if (!ok || k > 64)
			ct.kind = 0;
		else if (!k)
			stdin_content(c, pipe_in, &ct);
		else {
			ct.kind = 2;
			ct.files = calloc(k, sizeof(char *));
			if (!ct.files)
				x->oom = 1, ct.kind = 0;
			for (i = 0; ct.kind && i < k; i++) {
				char *r = wis(v[i], "-") ? NULL : resolve(x, v[i]);

				if (!r) {
					content_free(&ct);
					break;
				}
				ct.files[ct.nfiles++] = r;
			}
		}
	} else if (!strcmp(b, "tee")) {
		int app = 0;

		for (i = a + 1; i < c->nw; i++)
			if (c->w[i].v[0] == '-' && strchr(c->w[i].v, 'a'))
				app = 1;
		k = args_of(c, a, v, 64, &ok, "aip");
		stdin_content(c, pipe_in, &ct);
		/* tee of output we cannot tell (python gen.py | tee f) */
		if (reached && ok && k <= 64)
			for (i = 0; i < k; i++)
				put_write(x, !ct.kind ? KT_SH_UNKNOWN :
					  app ? KT_SH_APPEND : KT_SH_WRITE,
					  resolve(x, v[i]), &ct);
	}
	if (!redirect_out(x, c, &ct, reached)) {
		*pipe_out = ct;
		return;
	}
	content_free(&ct);
}

/* bash's `time`: "real\t1m2.345s" (one such line only), in ms; else -1 */
static double real_ms(const char *out)
{
	const char *p, *q;
	double m, sec;
	char *e;

	if (!out)
		return -1;
	if (!strncmp(out, "real\t", 5))
		q = out + 5;
	else if ((p = strstr(out, "\nreal\t")))
		q = p + 6;
	else
		return -1;
	if (strstr(q, "\nreal\t"))
		return -1;
	m = strtod(q, &e);
	if (e == q || *e != 'm')
		return -1;
	q = e + 1;
	sec = strtod(q, &e);
	if (e == q || *e != 's' || m < 0 || sec < 0)
		return -1;
	return (m * 60 + sec) * 1e3;
}

static void add_compile(struct ctx *x, const struct scmd *c, size_t a,
			int kind, const char *cmdtext, int succ, int last,
			int exit_code, int ok, int in_pipe_tail)
{
	struct kt_sh_plan *p = x->p;
	struct kt_sh_compile *cc;
	size_t i;
	struct buf arch = { 0 };

	{
		struct kt_sh_compile *q = realloc(p->cc, (p->ncc + 1) * sizeof(*q));

		if (!q) {
			x->oom = 1;
			return;
		}
		p->cc = q;
	}
	cc = &p->cc[p->ncc++];
	memset(cc, 0, sizeof(*cc));
	cc->exit_code = -1;
	cc->duration_ms = -1;
	for (i = 0; i < a; i++)
		if (wis(&c->w[i], "time"))
			cc->duration_ms = real_ms(x->out);
	cc->command = strndup(cmdtext + c->off, c->end - c->off);
	cc->cwd = x->cwd && !x->cwd_lost ? strdup(x->cwd) : NULL;
	cc->compiler = strdup(kind == CC_MAKE ? "make" : kind == CC_NINJA ? "ninja"
			      : kind == CC_CMAKE ? "cmake" : base(c->w[a].v));
	cc->flags = calloc(c->nw, sizeof(char *));
	cc->sources = calloc(c->nw, sizeof(char *));
	if (!cc->command || !cc->compiler || !cc->flags || !cc->sources) {
		x->oom = 1;
		return;
	}
	bput(&arch, "", 0);
	for (i = a + 1; i < c->nw; i++) {
		const struct word *w = &c->w[i];
		const char *v = w->v, *sm = NULL;

		if (kind == CC_COMPILER && !(w->fl & W_DYN) && is_source(v)) {
			char *r = resolve(x, w);

			cc->sources[cc->nsources++] = r ? r : strdup(v);
			continue;
		}
		cc->flags[cc->nflags++] = strdup(v);
		/* -arch=sm_80, -arch sm_80, --gpu-architecture=sm_90a,
		 * -gencode arch=compute_80,code=sm_80, --cuda-gpu-arch=sm_80 */
		if (!strncmp(v, "-arch=", 6) || !strncmp(v, "--gpu-architecture=", 19) ||
		    !strncmp(v, "--cuda-gpu-arch=", 16) || !strncmp(v, "--offload-arch=", 15))
			sm = strchr(v, '=') + 1;
		else if ((!strcmp(v, "-arch") || !strcmp(v, "--gpu-architecture")) &&
			 i + 1 < c->nw)
			sm = c->w[i + 1].v;
		else if (strstr(v, "code=sm_") || strstr(v, "code=[sm_"))
			sm = strstr(v, "sm_");
		if (sm && *sm) {
			size_t l = strcspn(sm, ",] ");

			if (!strstr(arch.p, sm) || l != strlen(sm)) {
				if (arch.n)
					bputc(&arch, ',');
				bput(&arch, sm, l);
			}
		}
	}
	if (arch.n)
		cc->arch = arch.p;
	else
		free(arch.p);
	(void)last;
	(void)exit_code;
	(void)ok;
	(void)succ;
	(void)in_pipe_tail;
}

/* ---- files a command does not name ----------------------------------------
 * Scripts, patches, git and loops change files their command line does not
 * name.  The workspace must not keep stale content for them, so the plan
 * marks a set of known files unknown: those under a directory (the cwd, or
 * every known file when the cwd is not known), those matching a glob, or
 * those a patch names.  The rules are in import/README.md, "Files a command
 * does not name"; false positives cost a re-read, so a script counts only
 * when its name or its inline code says that it edits. */

/* Every known file under dir (NULL: the cwd when known, else all). */
static void wide_under(struct ctx *x, const char *dir)
{
	const char *d = dir ? dir : (x->cwd && !x->cwd_lost) ? x->cwd : "";
	char *p = strdup(d);

	if (!p) {
		x->oom = 1;
		return;
	}
	(void)new_op(x, KT_SH_UNKNOWN_UNDER, p);
}

/* The path a literal word names, for a directory scope: NULL when the
 * word expands or the cwd is lost (the caller then widens to all). */
static char *scope_of(struct ctx *x, const struct word *w)
{
	if (w->fl & (W_DYN | W_GLOB) || !w->n)
		return NULL;
	if (w->v[0] != '/' && (x->cwd_lost || !x->cwd))
		return NULL;
	return kt_sh_path(x->cwd, w->v);
}

/* Every known file a path operand may name: itself and what lies under
 * it (it may be a directory: `git checkout -- src`), the files a glob
 * matches, or for a word that expands, every known file under the cwd. */
static void unknown_operand(struct ctx *x, const struct word *w, int under)
{
	struct content none = { 0 };
	char *p;

	if (!w->n && !(w->fl & W_DYN))
		return;
	if (!(w->fl & (W_DYN | W_GLOB))) {
		p = scope_of(x, w);
		if (!p) {
			wide_under(x, "");
			return;
		}
		if (under)
			(void)new_op(x, KT_SH_UNKNOWN_UNDER, p);
		else
			put_write(x, KT_SH_UNKNOWN, p, &none);
		return;
	}
	if (w->fl & W_DYN) {
		wide_under(x, NULL);
		return;
	}
	/* a glob: fnmatch has no braces, so {a,b} widens to its directory */
	if (!strchr(w->v, '{')) {
		p = w->v[0] == '/' ? kt_sh_path(NULL, w->v) :
		    x->cwd && !x->cwd_lost ? kt_sh_path(x->cwd, w->v) : NULL;
		if (p)
			(void)new_op(x, under ? KT_SH_UNKNOWN_TREE :
				     KT_SH_UNKNOWN_GLOB, p);
		else if (w->v[0] != '/' && (x->cwd_lost || !x->cwd))
			wide_under(x, "");
		else
			x->oom = 1;
		return;
	}
	{
		const char *sl = NULL, *q;
		struct word lit = *w;
		char tmp[4096];

		for (q = w->v; *q && !strchr("*?[{", *q); q++)
			if (*q == '/')
				sl = q;
		if (!sl || (size_t)(sl - w->v) >= sizeof(tmp)) {
			wide_under(x, NULL);
			return;
		}
		memcpy(tmp, w->v, (size_t)(sl - w->v));
		tmp[sl - w->v] = 0;
		if (!tmp[0])
			strcpy(tmp, "/");
		lit.v = tmp;
		lit.n = strlen(tmp);
		lit.fl = 0;
		p = scope_of(x, &lit);
		if (p)
			(void)new_op(x, KT_SH_UNKNOWN_UNDER, p);
		else
			wide_under(x, "");
	}
}

/* Words of a script name that say it edits files: fix_kernel.py,
 * apply_patch.sh, rewriteLaunch.py ("rewrite", "launch"). */
static const char *const edit_words[] = {
	"fix", "fixes", "fixed", "fixup", "fixer", "patch", "patches",
	"patched", "patcher", "apply", "rewrite", "rewriter", "edit", "edits",
	"editor", "replace", "replacer", "update", "updater", "modify",
	"refactor", "codemod", "migrate", "inplace", NULL
};

static int edit_named(const char *path)
{
	const char *p = base(path);
	char tok[32];
	size_t k = 0;
	int longtok = 0;

	for (;; p++) {
		int c = (unsigned char)*p;
		int cut = !c || !isalnum(c) ||
			  (k && isupper(c) && islower((unsigned char)p[-1]));

		if (cut) {
			tok[k] = 0;
			if (k && !longtok && in_list(edit_words, tok))
				return 1;
			k = 0;
			longtok = 0;
			if (!c)
				return 0;
			if (!isalnum(c))
				continue;
		}
		if (k + 1 < sizeof(tok))
			tok[k++] = (char)tolower(c);
		else
			longtok = 1;
	}
}

static const char *find_in(const char *t, size_t n, const char *pat)
{
	return memmem(t, n, pat, strlen(pat));
}

/* Whether inline Python (python -c, python - <<EOF) writes files: a write
 * call, a rename or removal, or open() with a mode that writes. */
static int code_writes(const char *t, size_t n)
{
	static const char *const calls[] = {
		".write(", ".writelines(", "write_text(", "write_bytes(",
		"os.replace(", "os.rename(", "os.remove(", "os.unlink(",
		".unlink(", ".rename(", "shutil.move(", "shutil.copy",
		"fileinput.", NULL
	};
	const char *p = t, *e = t + n;
	int i;

	if (!t)
		return 0;
	for (i = 0; calls[i]; i++)
		if (find_in(t, n, calls[i]))
			return 1;
	while ((p = find_in(p, (size_t)(e - p), "open("))) {
		int depth = 0;
		const char *q = p + 5, *m = NULL;

		/* the mode: the second argument, or mode= */
		for (; q < e && *q != '\n'; q++) {
			if (*q == '(' || *q == '[')
				depth++;
			else if ((*q == ')' || *q == ']') && depth-- == 0)
				break;
			else if (*q == ',' && depth == 0 && !m)
				m = q + 1;
			else if (!strncmp(q, "mode=", 5) && q + 5 < e)
				m = q + 5;
		}
		if (m) {
			while (m < e && (*m == ' ' || !strncmp(m, "mode=", 5)))
				m += *m == ' ' ? 1 : 5;
			if (m < e && (*m == '\'' || *m == '"')) {
				const char *z = m + 1;

				while (z < e && strchr("rwxabt+U", *z))
					z++;
				if (z < e && *z == *m && z > m + 1 &&
				    memchr(m + 1, 'w', (size_t)(z - m - 1)))
					return 1;
				if (z < e && *z == *m &&
				    (memchr(m + 1, 'a', (size_t)(z - m - 1)) ||
				     memchr(m + 1, 'x', (size_t)(z - m - 1)) ||
				     memchr(m + 1, '+', (size_t)(z - m - 1))))
					return 1;
			}
		}
		p += 5;
	}
	return 0;
}

/* The text a command reads on stdin from a here-document or string. */
static const char *stdin_text(const struct scmd *c, size_t *len)
{
	const char *t = NULL;
	size_t i;

	*len = 0;
	for (i = 0; i < c->nr; i++) {
		const struct redir *r = &c->r[i];

		if (r->kind == R_HEREDOC && r->body) {
			t = r->body;
			*len = r->blen;
		} else if (r->kind == R_HERESTR) {
			t = r->t.v;
			*len = r->t.n;
		} else if (r->kind == R_IN) {
			t = NULL;
			*len = 0;
		}
	}
	return t;
}

/* The file a command reads on stdin (< f), or NULL. */
static const struct word *stdin_file(const struct scmd *c)
{
	const struct word *w = NULL;
	size_t i;

	for (i = 0; i < c->nr; i++)
		if (c->r[i].kind == R_IN && (c->r[i].fd <= 0))
			w = &c->r[i].t;
		else if (c->r[i].kind == R_HEREDOC || c->r[i].kind == R_HERESTR)
			w = NULL;
	return w;
}

/* A patch applied to dir: its targets when the text is here, else a
 * KT_SH_PATCH op for the workspace to read the patch file. */
static void patch_ops(struct ctx *x, const char *text, size_t len,
		      const struct word *file, const char *dir, int strip)
{
	char **t = NULL;
	size_t n = 0, i;
	const char *d = dir ? dir : (x->cwd && !x->cwd_lost) ? x->cwd : NULL;

	if (text) {
		if (kt_sh_diff_targets(text, len, d, strip, &t, &n)) {
			x->oom = 1;
			return;
		}
		if (!n)
			wide_under(x, d ? d : "");
		for (i = 0; i < n; i++) {
			struct content none = { 0 };

			put_write(x, KT_SH_UNKNOWN, t[i], &none);
		}
		free(t);
		return;
	}
	if (file) {
		char *p = resolve(x, file);
		struct kt_sh_op *o;

		if (p && (o = new_op(x, KT_SH_PATCH, p))) {
			o->strip = strip;
			if (d && !(o->dir = strdup(d)))
				x->oom = 1;
			return;
		}
	}
	wide_under(x, d ? d : "");
}

/* patch(1): -pN, -i F, -d D, --dry-run, [origfile [patchfile]] */
static void patch_cmd(struct ctx *x, const struct scmd *c, size_t a)
{
	const struct word *input = NULL, *orig = NULL;
	char *dir = NULL;
	int strip = -1, dd = 0;
	size_t i, len;
	const char *text;

	for (i = a + 1; i < c->nw; i++) {
		const struct word *w = &c->w[i];
		const char *v = w->v;

		if (!dd && v[0] == '-' && v[1]) {
			const char *arg = NULL;

			if (!strcmp(v, "--")) {
				dd = 1;
				continue;
			}
			if (!strcmp(v, "--dry-run") || !strcmp(v, "-C") ||
			    !strcmp(v, "--check"))
				goto out;
			if (!strncmp(v, "--strip=", 8))
				strip = atoi(v + 8);
			else if (!strncmp(v, "--input=", 8) ||
				 !strncmp(v, "--directory=", 12)) {
				/* a word of its own is easier: rare, widen */
				wide_under(x, NULL);
				goto out;
			} else if (v[1] == 'p' || v[1] == 'i' || v[1] == 'd' ||
				   v[1] == 'o') {
				if (v[2])
					arg = v + 2;
				else if (i + 1 < c->nw)
					arg = c->w[++i].v;
				if (!arg)
					continue;
				if (v[1] == 'p')
					strip = atoi(arg);
				else if (v[1] == 'i')
					input = v[2] ? NULL : &c->w[i];
				else if (v[1] == 'o' && !v[2])
					unknown_operand(x, &c->w[i], 0);
				else if (v[1] == 'd' && !v[2]) {
					free(dir);
					dir = scope_of(x, &c->w[i]);
					if (!dir) {
						wide_under(x, "");
						goto out;
					}
				}
				if (v[2] && v[1] != 'p') {
					wide_under(x, NULL);
					goto out;
				}
			} else if (strlen(v) == 2 && strchr("BDFgrVYz", v[1]))
				i++;
			continue;
		}
		if (!orig)
			orig = w;
		else if (!input)
			input = w;
	}
	if (orig && (input || stdin_file(c) || stdin_text(c, &len))) {
		/* patch FILE < x.diff: the one file named */
		unknown_operand(x, orig, 0);
		goto out;
	}
	if (orig && !input) {
		/* `... | patch k.cu`: the patch on stdin applies to k.cu */
		unknown_operand(x, orig, 0);
		goto out;
	}
	text = stdin_text(c, &len);
	patch_ops(x, input ? NULL : text, len, input ? input : stdin_file(c),
		  dir, strip);
out:
	free(dir);
}

/* git subcommands that rewrite the working tree */
static void git_cmd(struct ctx *x, const struct scmd *c, size_t a)
{
	size_t i = a + 1, j;
	char *scope = NULL;
	const char *sub;
	int dd = 0, paths = 0, any = 0, hard = 0, newb = 0, check = 0,
	    cached = 0, index = 0, strip = 1;
	const struct word *ops[64];
	size_t nops = 0;

	while (i < c->nw && c->w[i].v[0] == '-') {
		if (!strcmp(c->w[i].v, "-C") && i + 1 < c->nw) {
			free(scope);
			scope = scope_of(x, &c->w[i + 1]);
			if (!scope && !(scope = strdup("")))
				x->oom = 1;
			i++;
		} else if (!strcmp(c->w[i].v, "-c") && i + 1 < c->nw)
			i++;
		i++;
	}
	if (i >= c->nw || (c->w[i].fl & W_DYN))
		goto out;
	sub = c->w[i].v;
	for (j = i + 1; j < c->nw; j++) {
		const char *v = c->w[j].v;

		if (!dd && !strcmp(v, "--")) {
			dd = 1;
			paths = 1;
			continue;
		}
		if (!dd && v[0] == '-' && v[1]) {
			hard |= !strcmp(v, "--hard") || !strcmp(v, "--merge") ||
				!strcmp(v, "--keep");
			newb |= !strcmp(v, "-b") || !strcmp(v, "-B") ||
				!strcmp(v, "--orphan") || !strcmp(v, "-c") ||
				!strcmp(v, "-C") || !strcmp(v, "--create");
			check |= !strcmp(v, "--check") || !strcmp(v, "--stat") ||
				 !strcmp(v, "--numstat") || !strcmp(v, "--summary") ||
				 !strcmp(v, "-n") || !strcmp(v, "--dry-run");
			cached |= !strcmp(v, "--cached") || !strcmp(v, "--staged");
			index |= !strcmp(v, "--index") || !strcmp(v, "--worktree") ||
				 !strcmp(v, "-W") || !strcmp(v, "--apply");
			if (!strncmp(v, "-p", 2) && v[2])
				strip = atoi(v + 2);
			if ((!strcmp(v, "-s") || !strcmp(v, "--source")) &&
			    j + 1 < c->nw)
				j++;
			continue;
		}
		any = 1;
		if (nops < 64)
			ops[nops++] = &c->w[j];
	}
	if (!strcmp(sub, "checkout") || !strcmp(sub, "restore")) {
		int restore = sub[0] == 'r';

		if (newb || (restore && cached && !index))
			goto out;
		if (!restore && !paths && nops == 1) {
			const char *v = ops[0]->v;

			/* one word that does not look like a path: a
			 * branch or commit, the whole tree changes */
			if (strcmp(v, ".") && !strchr(v, '/') &&
			    !strchr(v, '.') && !(ops[0]->fl & W_GLOB)) {
				wide_under(x, scope ? scope : "");
				goto out;
			}
		}
		for (j = 0; j < nops; j++) {
			const char *v = ops[j]->v;

			/* checkout TREE-ISH paths...: skip the tree-ish */
			if (!restore && !paths && j == 0 && nops > 1 &&
			    strcmp(v, ".") && !strchr(v, '.') &&
			    !(ops[j]->fl & (W_GLOB | W_DYN)))
				continue;
			unknown_operand(x, ops[j], 1);
		}
		goto out;
	}
	if ((!strcmp(sub, "switch") && !newb) ||
	    (!strcmp(sub, "reset") && hard) || !strcmp(sub, "merge") ||
	    !strcmp(sub, "pull") || !strcmp(sub, "rebase") ||
	    !strcmp(sub, "cherry-pick") || !strcmp(sub, "revert") ||
	    !strcmp(sub, "am") || (!strcmp(sub, "clean") && !check)) {
		wide_under(x, scope ? scope : "");
		goto out;
	}
	if (!strcmp(sub, "stash")) {
		const char *s2 = nops ? ops[0]->v : "push";

		if (!strcmp(s2, "push") || !strcmp(s2, "save") ||
		    !strcmp(s2, "pop") || !strcmp(s2, "apply") ||
		    !strcmp(s2, "branch") || !any)
			wide_under(x, scope ? scope : "");
		goto out;
	}
	if (!strcmp(sub, "apply")) {
		size_t len;
		const char *text;

		if ((check && !index) || (cached && !index))
			goto out;
		if (!nops) {
			text = stdin_text(c, &len);
			patch_ops(x, text, len, text ? NULL : stdin_file(c),
				  scope, strip);
		}
		for (j = 0; j < nops; j++)
			patch_ops(x, NULL, 0, ops[j], scope, strip);
	}
out:
	free(scope);
}

/* code formatters that rewrite the files they are given */
static void formatter_cmd(struct ctx *x, const struct scmd *c, size_t a,
			  const char *b)
{
	int inplace = strcmp(b, "clang-format") && strcmp(b, "autopep8") &&
		      strcmp(b, "yapf");
	size_t i, k = 0, first = a + 1;

	if (!strcmp(b, "ruff")) {
		if (a + 1 >= c->nw)
			return;
		if (wis(&c->w[a + 1], "format"))
			inplace = 1;
		else if (wis(&c->w[a + 1], "check"))
			inplace = 0;
		else
			return;
		first = a + 2;
	}
	for (i = first; i < c->nw; i++) {
		const char *v = c->w[i].v;

		if (!strcmp(v, "-i") || !strcmp(v, "--in-place") ||
		    !strcmp(v, "--fix"))
			inplace = 1;
		if (!strcmp(v, "--check") || !strcmp(v, "--diff") ||
		    !strcmp(v, "--dry-run") || !strcmp(v, "-n") ||
		    !strcmp(v, "--help") || !strcmp(v, "--version"))
			return;
	}
	if (!inplace)
		return;
	for (i = first; i < c->nw; i++) {
		if (c->w[i].v[0] == '-' && !(c->w[i].fl & W_DYN))
			continue;
		unknown_operand(x, &c->w[i], 1);
		k++;
	}
	if (!k && !strcmp(b, "ruff"))
		wide_under(x, NULL);
}

/* Whether words [from, to) run sed or perl in place. */
static int runs_inplace(const struct scmd *c, size_t from, size_t to)
{
	size_t i, j;

	for (i = from; i < to; i++) {
		const char *b = base(c->w[i].v);
		int perl = !strcmp(b, "perl");

		if (strcmp(b, "sed") && !perl)
			continue;
		for (j = i + 1; j < to; j++) {
			const char *v = c->w[j].v;

			if (!strncmp(v, "--in-place", 10))
				return 1;
			if (v[0] != '-' || v[1] == '-')
				continue;
			for (v++; *v && (isalpha((unsigned char)*v)); v++) {
				if (*v == 'i')
					return 1;
				if (*v == 'e' || *v == 'E' || *v == 'f')
					break;
			}
		}
	}
	return 0;
}

/* find DIR... -exec sed -i ... / -delete; xargs sed -i ... */
static void find_xargs_cmd(struct ctx *x, const struct scmd *c, size_t a,
			   int find)
{
	size_t i, nd = 0;
	int hit = 0;

	if (!find) {
		if (runs_inplace(c, a + 1, c->nw))
			wide_under(x, NULL);
		for (i = a + 1; i < c->nw; i++)
			if (edit_named(c->w[i].v) &&
			    (strchr(c->w[i].v, '.') || strchr(c->w[i].v, '/')))
				hit = 1;
		if (hit)
			wide_under(x, NULL);
		return;
	}
	for (i = a + 1; i < c->nw; i++) {
		const char *v = c->w[i].v;

		if (!strcmp(v, "-delete"))
			hit = 1;
		if ((!strcmp(v, "-exec") || !strcmp(v, "-execdir") ||
		     !strcmp(v, "-ok")) && runs_inplace(c, i + 1, c->nw))
			hit = 1;
	}
	if (!hit)
		return;
	for (i = a + 1; i < c->nw; i++) {
		const char *v = c->w[i].v;

		if ((v[0] == '-' || v[0] == '(' || v[0] == '!') &&
		    !(c->w[i].fl & W_DYN))
			break;
		nd++;
		unknown_operand(x, &c->w[i], 1);
	}
	if (!nd)
		wide_under(x, NULL);
}

static int is_python(const char *b)
{
	return !strncmp(b, "python", 6) || !strncmp(b, "pypy", 4);
}

/*
 * Tools that write files they reach rather than name: archive extraction
 * (tar x, unzip, 7z x) and rsync make every known file under the cwd (or
 * tar's -C folder; --directory=DIR is not read: the cwd) unknown; awk -i inplace, truncate and dd of= make the
 * files they are given unknown.  1 when c was one of them.
 */
static int unpack_like(struct ctx *x, const struct scmd *c, size_t a,
		       const char *b)
{
	size_t i;

	if (!strcmp(b, "tar") || !strcmp(b, "bsdtar")) {
		const struct word *dir = NULL;
		int ext = 0;

		for (i = a + 1; i < c->nw; i++) {
			const char *v = c->w[i].v;

			if (!strcmp(v, "-C") && i + 1 < c->nw)
				dir = &c->w[++i];
			else if (!strcmp(v, "--extract") || !strcmp(v, "--get"))
				ext = 1;
			else if (i == a + 1 && v[0] != '-' && strchr(v, 'x'))
				ext = 1; /* tar xzf a.tgz */
			else if (v[0] == '-' && v[1] != '-' && strchr(v, 'x'))
				ext = 1; /* tar -xzf a.tgz */
		}
		if (ext) {
			if (dir)
				unknown_operand(x, dir, 1);
			else
				wide_under(x, NULL);
		}
		return 1;
	}
	if (!strcmp(b, "unzip") || !strcmp(b, "rsync") ||
	    (!strcmp(b, "7z") && a + 1 < c->nw &&
	     (!strcmp(c->w[a + 1].v, "x") || !strcmp(c->w[a + 1].v, "e")))) {
		wide_under(x, NULL);
		return 1;
	}
	if (!strcmp(b, "awk") || !strcmp(b, "gawk")) {
		int inplace = 0;
		size_t prog = 0;

		for (i = a + 1; i < c->nw; i++) {
			const char *v = c->w[i].v;

			if ((!strcmp(v, "-i") || !strcmp(v, "--include")) &&
			    i + 1 < c->nw &&
			    !strcmp(c->w[i + 1].v, "inplace")) {
				inplace = 1;
				i++;
			} else if (!strcmp(v, "-iinplace") ||
				   !strcmp(v, "--include=inplace")) {
				inplace = 1;
			} else if (!strcmp(v, "-f") || !strcmp(v, "-v") ||
				   !strcmp(v, "-F")) {
				if (!strcmp(v, "-f"))
					prog = i + 1; /* the program file */
				i++;
			} else if (v[0] != '-' && !prog) {
				prog = i; /* the program text */
			} else if (v[0] != '-' && inplace && i != prog) {
				unknown_operand(x, &c->w[i], 0);
			}
		}
		return 1;
	}
	if (!strcmp(b, "truncate")) {
		for (i = a + 1; i < c->nw; i++) {
			const char *v = c->w[i].v;

			if (!strcmp(v, "-s") || !strcmp(v, "-r"))
				i++;
			else if (v[0] != '-')
				unknown_operand(x, &c->w[i], 0);
		}
		return 1;
	}
	if (!strcmp(b, "dd")) {
		for (i = a + 1; i < c->nw; i++)
			if (!strncmp(c->w[i].v, "of=", 3)) {
				struct word w = c->w[i];

				w.v += 3;
				w.n -= 3;
				unknown_operand(x, &w, 0);
			}
		return 1;
	}
	return 0;
}

/* Commands that change files they do not name (a command that may have
 * run: reached and not known to have failed). */
static void wide_ops(struct ctx *x, const struct scmd *c, size_t a,
		     const char *b)
{
	size_t i, len;
	const char *t;

	if (!*b)
		return;
	if (is_python(b)) {
		for (i = a + 1; i < c->nw; i++) {
			const char *v = c->w[i].v;

			if (!strcmp(v, "-c")) {
				if (i + 1 < c->nw &&
				    code_writes(c->w[i + 1].v, c->w[i + 1].n))
					wide_under(x, NULL);
				return;
			}
			if (!strcmp(v, "-m"))
				return;
			if (!strcmp(v, "-"))
				break;
			if (v[0] == '-') {
				if (!strcmp(v, "-W") || !strcmp(v, "-X"))
					i++;
				continue;
			}
			if (edit_named(v))
				wide_under(x, NULL);
			return;
		}
		t = stdin_text(c, &len);
		if (t && code_writes(t, len))
			wide_under(x, NULL);
		return;
	}
	if (!strcmp(b, "patch")) {
		patch_cmd(x, c, a);
		return;
	}
	if (!strcmp(b, "git")) {
		git_cmd(x, c, a);
		return;
	}
	if (!strcmp(b, "clang-format") || !strcmp(b, "black") ||
	    !strcmp(b, "isort") || !strcmp(b, "autopep8") ||
	    !strcmp(b, "yapf") || !strcmp(b, "ruff")) {
		formatter_cmd(x, c, a, b);
		return;
	}
	if (!strcmp(b, "find") || !strcmp(b, "xargs")) {
		find_xargs_cmd(x, c, a, b[0] == 'f');
		return;
	}
	if (unpack_like(x, c, a, b))
		return;
	/* a script run by its interpreter or by path: fix_all.sh */
	if (!strcmp(b, "bash") || !strcmp(b, "sh") || !strcmp(b, "zsh") ||
	    !strcmp(b, "node") || !strcmp(b, "ruby") || !strcmp(b, "perl")) {
		if (runs_inplace(c, a, c->nw))
			return; /* perl -pi fix.pl k.cu: the files named */
		for (i = a + 1; i < c->nw; i++) {
			const char *v = c->w[i].v;

			if (v[0] == '-') {
				if (!strcmp(v, "-c") || !strcmp(v, "-e") ||
				    !strcmp(v, "-E"))
					return; /* inline code */
				continue;
			}
			if (edit_named(v))
				wide_under(x, NULL);
			return;
		}
		return;
	}
	if ((strchr(c->w[a].v, '/') || has_ext(b, ".py") ||
	     has_ext(b, ".sh") || has_ext(b, ".pl")) && edit_named(b))
		wide_under(x, NULL);
}

/* The commands of an opaque construct (loop, if, subshell, group, case)
 * and what follows it, read loosely: each may have run any number of
 * times, so what it writes is unknown (never a write or a delete), and no
 * compile or bench is claimed from it. */
static int loose_ops(struct ctx *x, const char *s, size_t n)
{
	struct parser ps = { 0 };
	size_t i, k;

	ps.s = s;
	ps.n = n;
	ps.loose = 1;
	parse(&ps);
	if (ps.oom) {
		parser_free(&ps);
		return KT_ENOMEM;
	}
	for (i = 0; i < ps.nit && !x->oom; i++)
		for (k = 0; k < ps.it[i].p.n && !x->oom; k++) {
			const struct scmd *c = &ps.it[i].p.c[k];
			size_t a = unwrap(c);
			const char *b;
			const struct word *v[64];
			struct content none = { 0 };
			size_t m, j;
			int ok;

			unknown_out(x, c);
			if (a >= c->nw)
				continue;
			b = (c->w[a].fl & W_DYN) ? "" : base(c->w[a].v);
			/* a literal cd is followed: what comes after it in
			 * the construct runs there, when it runs at all
			 * (`(cd build && make)`); so are pushd and popd */
			if (!strcmp(b, "cd") || !strcmp(b, "pushd") ||
			    !strcmp(b, "popd")) {
				set_cwd(x, c, a, YES);
				continue;
			}
			if (!strcmp(b, "sed") || !strcmp(b, "perl"))
				inplace_ops(x, c, a, b[0] == 'p');
			if (!strcmp(b, "rm"))
				rm_ops(x, c, a, 0);
			else if (!strcmp(b, "mv") ||
			    !strcmp(b, "cp") || !strcmp(b, "tee")) {
				m = args_of(c, a, v, 64, &ok, "");
				/* mv sources and every target: unknown;
				 * cp's sources stay */
				for (j = 0; j < m && j < 64; j++)
					if ((b[0] != 'c' || j + 1 == m) &&
					    !(v[j]->fl & (W_DYN | W_GLOB)))
						put_write(x, KT_SH_UNKNOWN,
							  resolve(x, v[j]), &none);
			}
			wide_ops(x, c, a, b);
		}
	parser_free(&ps);
	return x->oom ? KT_ENOMEM : 0;
}

/* "a/b/c" with strip components removed (-1: the base name), or NULL */
static const char *strip_path(const char *p, int strip)
{
	if (strip < 0)
		return base(p);
	while (strip-- > 0) {
		const char *s = strchr(p, '/');

		if (!s)
			return NULL;
		p = s + 1;
		while (*p == '/')
			p++;
	}
	return *p ? p : NULL;
}

int kt_sh_diff_targets(const char *text, size_t len, const char *dir,
		       int strip, char ***out, size_t *n)
{
	const char *p = text, *e = text + len;
	char **v = NULL;
	size_t nv = 0, cap = 0;

	*out = NULL;
	*n = 0;
	while (p && p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		const char *le = nl ? nl : e, *ps = NULL, *pe;
		char name[4096];
		const char *st;
		size_t i;

		if (le - p > 4 && (!strncmp(p, "--- ", 4) ||
				   !strncmp(p, "+++ ", 4)))
			ps = p + 4;
		else if (le - p > 11 && !strncmp(p, "diff --git ", 11))
			ps = p + 11; /* "a/x b/x": the first is enough */
		if (ps) {
			while (ps < le && *ps == ' ')
				ps++;
			for (pe = ps; pe < le && *pe != '\t' && *pe != '\r' &&
			     !(p[0] == 'd' && *pe == ' '); pe++)
				;
			/* "--- a/x 2024-01-01 ..." (no tab): cut a date */
			if (p[0] != 'd') {
				const char *sp = memchr(ps, ' ', (size_t)(pe - ps));

				if (sp && sp + 1 < pe &&
				    isdigit((unsigned char)sp[1]))
					pe = sp;
			}
			if (pe > ps && (size_t)(pe - ps) < sizeof(name)) {
				memcpy(name, ps, (size_t)(pe - ps));
				name[pe - ps] = 0;
				st = strcmp(name, "/dev/null") ?
				     strip_path(name, strip) : NULL;
				if (st) {
					char *r = kt_sh_path(st[0] == '/' ? NULL :
							     dir, st);

					if (!r)
						goto oom;
					for (i = 0; i < nv; i++)
						if (!strcmp(v[i], r))
							break;
					if (i < nv || nv >= 4096) {
						free(r);
					} else {
						if (nv == cap) {
							size_t nc = cap ? cap * 2 : 8;
							char **q = realloc(v, nc * sizeof(*q));

							if (!q) {
								free(r);
								goto oom;
							}
							v = q;
							cap = nc;
						}
						v[nv++] = r;
					}
				}
			}
		}
		p = nl ? nl + 1 : NULL;
	}
	*out = v;
	*n = nv;
	return 0;
oom:
	while (nv)
		free(v[--nv]);
	free(v);
	return KT_ENOMEM;
}

static void free_op(struct kt_sh_op *o)
{
	size_t i;

	free(o->path);
	free(o->data);
	for (i = 0; i < o->nfiles; i++)
		free(o->files[i]);
	free(o->files);
	free(o->dir);
}

static void free_cc(struct kt_sh_compile *c)
{
	size_t i;

	free(c->command);
	free(c->cwd);
	free(c->compiler);
	for (i = 0; i < c->nflags; i++)
		free(c->flags[i]);
	free(c->flags);
	for (i = 0; i < c->nsources; i++)
		free(c->sources[i]);
	free(c->sources);
	free(c->arch);
	free(c->diag);
}

void kt_sh_plan_free(struct kt_sh_plan *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nops; i++)
		free_op(&p->ops[i]);
	free(p->ops);
	for (i = 0; i < p->ncc; i++)
		free_cc(&p->cc[i]);
	free(p->cc);
	free(p->bench_prog);
	free(p->bench_src);
	memset(p, 0, sizeof(*p));
}

/* per-compile bookkeeping for the exit code decision */
struct ccinfo {
	size_t item;
	int kind;
	int pipe_tail;  /* last command of its pipeline */
	const char *argv0;
};

int kt_sh_plan_build(const char *cmd, const char *cwd, const char *output,
		     int exit_code, int ok, struct kt_sh_plan *p)
{
	struct parser ps = { 0 };
	struct ctx x = { 0 };
	int *reached = NULL, *succ = NULL, *fail = NULL, st;
	struct ccinfo *ci = NULL;
	size_t i, k, nci = 0, last_reached = 0;
	int rc = 0;

	memset(p, 0, sizeof(*p));
	if (!cmd)
		return 0;
	if (output && (strstr(output, "The user doesn't want to proceed") ||
		       strstr(output, "tool use was rejected"))) {
		p->nothing_ran = 1;
		return 0;
	}
	ps.s = cmd;
	ps.n = strlen(cmd);
	if (ps.n > MAX_CMD)
		return 0;
	parse(&ps);
	if (ps.oom) {
		rc = KT_ENOMEM;
		goto out;
	}
	p->opaque = ps.opaque;
	if (!ps.nit) {
		/* opaque from the start ("for f in ...; do ...; done") */
		if (ps.opaque && !ps.opaque_hd && ps.opaque_at < ps.n) {
			x.p = p;
			x.out = output;
			if (cwd && !(x.cwd = strdup(cwd)))
				rc = KT_ENOMEM;
			else
				rc = loose_ops(&x, cmd + ps.opaque_at,
					       ps.n - ps.opaque_at);
		}
		goto out;
	}
	reached = malloc(ps.nit * sizeof(int));
	succ = malloc(ps.nit * sizeof(int));
	fail = calloc(ps.nit, sizeof(int));
	if (!reached || !succ || !fail) {
		rc = KT_ENOMEM;
		goto out;
	}
	for (i = 0; i < ps.nit; i++)
		reached[i] = succ[i] = UNK;

	/* 1. the final status: the last pipeline and its && chain succeeded */
	if (ok && !ps.opaque && (exit_code <= 0)) {
		/* unless the chain hangs off an ||: "a || b" ok says little */
		for (i = ps.nit - 1; i > 0 && ps.it[i - 1].op == OP_AND; i--)
			;
		if (i == 0 || ps.it[i - 1].op != OP_OR)
			for (; i < ps.nit; i++)
				reached[i] = succ[i] = YES;
	} else if (!ok && exit_code > 0 && !ps.opaque && ps.nit == 1) {
		/* one pipeline that ran and ended non-zero (Inspect gives
		 * the status of every shell call) */
		reached[0] = YES;
		succ[0] = NO;
	}
	/* 2. messages in the output */
	for (i = 0; i < ps.nit; i++) {
		struct pipeline *pl = &ps.it[i].p;
		int ev = 0;

		for (k = 0; k < pl->n; k++) {
			struct scmd *c = &pl->c[k];
			size_t a = unwrap(c);
			const char *v, *b;

			if (a >= c->nw || (c->w[a].fl & W_DYN))
				continue;
			v = c->w[a].v;
			b = base(v);
			if (stderr_hidden(c))
				continue;
			{
				/* a message names a command, not an item: with
				 * "make clean && make" it is the first make's */
				int evi = !claimed(&ps, i, k, b) &&
					  (out_msg(output, v) || out_msg(output, b));
				size_t j;

				if (!evi && build_kind(c, a) == CC_COMPILER)
					for (j = a + 1; j < c->nw && !evi; j++) {
						char pat[600];

						if (!is_source(c->w[j].v))
							continue;
						snprintf(pat, sizeof(pat), "%s:",
							 base(c->w[j].v));
						evi = out_has(output, pat);
						snprintf(pat, sizeof(pat), "%s(",
							 base(c->w[j].v));
						evi = evi || out_has(output, pat);
					}
				if (!evi)
					continue;
				ev = 1;
				if (in_list(trusted, b) && pl->n == 1)
					fail[i] = 1;
			}
		}
		if (!ev)
			continue;
		reached[i] = YES;
		if (fail[i])
			succ[i] = NO;
		k = i;
		while (k > 0 && ps.it[k - 1].op == OP_AND) {
			k--;
			reached[k] = YES;
			if (succ[k] == UNK)
				succ[k] = YES;
		}
		if (k > 0 && ps.it[k - 1].op == OP_OR && succ[k - 1] == UNK)
			succ[k - 1] = NO;
	}
	/* 3. forward: who ran, given the operators */
	st = UNK;       /* status so far: YES = 0, NO = non-zero */
	for (i = 0; i < ps.nit; i++) {
		struct pipeline *pl = &ps.it[i].p;
		struct scmd *lc = &pl->c[pl->n - 1];
		size_t a = unwrap(lc);
		const char *b = a < lc->nw ? base(lc->w[a].v) : "";

		if (reached[i] == UNK) {
			int op = i ? ps.it[i - 1].op : OP_SEQ;

			if (op == OP_SEQ)
				reached[i] = YES;
			else if (op == OP_AND)
				reached[i] = st == YES ? YES : st == NO ? NO : UNK;
			else
				reached[i] = st == NO ? YES : st == YES ? NO : UNK;
		}
		if (reached[i] == YES && succ[i] == UNK && pl->n == 1) {
			if (a >= lc->nw && lc->nr)
				succ[i] = YES;  /* bare redirection: > f */
			else if (a < lc->nw && !(lc->w[a].fl & W_DYN) &&
				 (infallible(b) ||
				  (in_list(trusted, b) && !stderr_hidden(lc) &&
				   !fail[i])))
				succ[i] = YES;
		}
		if (reached[i] == YES)
			st = succ[i];
		else if (reached[i] == UNK)
			st = st == succ[i] ? st : UNK;
	}
	for (i = 0; i < ps.nit; i++)
		if (reached[i] != NO)
			last_reached = i;

	/* bash: "warning: here-document at line N delimited by end-of-file":
	 * the tool changed the text after we saw it (Claude Code 1.0 appends
	 * "< /dev/null"), so no body is what it looks like */
	if (out_has(output, "delimited by end-of-file"))
		for (i = 0; i < ps.nit; i++)
			for (k = 0; k < ps.it[i].p.n; k++) {
				struct scmd *c = &ps.it[i].p.c[k];
				size_t r;

				for (r = 0; r < c->nr; r++)
					if (c->r[r].kind == R_HEREDOC)
						c->r[r].body_unknown = 1;
			}
	/* 4. effects */
	if (cwd) {
		x.cwd = strdup(cwd);
		if (!x.cwd) {
			rc = KT_ENOMEM;
			goto out;
		}
	}
	x.p = p;
	x.out = output;
	ci = calloc(1, sizeof(*ci));
	for (i = 0; i < ps.nit && !x.oom; i++) {
		struct pipeline *pl = &ps.it[i].p;
		struct content pipe = { 0 };

		for (k = 0; k < pl->n; k++) {
			struct scmd *c = &pl->c[k];
			size_t a = unwrap(c);
			const char *b, *bn = NULL;
			struct content out = { 0 };
			int bk;

			if (a >= c->nw) {
				/* "> f" alone truncates f */
				struct content empty = { 0 };

				empty.kind = 1;
				if (reached[i] == YES)
					redirect_out(&x, c, &empty, 1);
				content_free(&pipe);
				continue;
			}
			b = (c->w[a].fl & W_DYN) ? "" : base(c->w[a].v);
			if (!strcmp(b, "echo") || !strcmp(b, "printf") ||
			    !strcmp(b, "cat") || !strcmp(b, "tee")) {
				run_producer(&x, c, a, b, &pipe, &out,
					     reached[i] == YES);
			} else if (!strcmp(b, "cd") || !strcmp(b, "pushd") ||
				   !strcmp(b, "popd")) {
				if (pl->n == 1 && reached[i] != NO)
					set_cwd(&x, c, a, reached[i] == YES ?
						succ[i] : UNK);
			} else {
				if (pl->n == 1 && reached[i] == YES &&
				    succ[i] == YES)
					file_ops(&x, c, a, b);
				else if (reached[i] != NO && succ[i] != NO &&
					 !strcmp(b, "rm"))
					rm_ops(&x, c, a, 0); /* may have run */
				/* a program's output, or in-place edits of a
				 * command that may have run */
				if (reached[i] != NO && succ[i] != NO &&
				    (!strcmp(b, "sed") || !strcmp(b, "perl")))
					inplace_ops(&x, c, a, b[0] == 'p');
				/* scripts, patch, git, formatters */
				if (reached[i] != NO && succ[i] != NO)
					wide_ops(&x, c, a, b);
				if (reached[i] != NO)
					unknown_out(&x, c);
			}
			if (reached[i] == UNK && (!strcmp(b, "echo") ||
			    !strcmp(b, "printf") || !strcmp(b, "cat") ||
			    !strcmp(b, "tee")))
				unknown_out(&x, c); /* may have run */
			content_free(&pipe);
			pipe = out;
			if (reached[i] == NO)
				continue;
			bk = build_kind(c, a);
			if (bk) {
				struct ccinfo *q = realloc(ci, (nci + 1) * sizeof(*q));

				if (!q) {
					x.oom = 1;
					break;
				}
				ci = q;
				ci[nci].item = i;
				ci[nci].kind = bk;
				ci[nci].pipe_tail = k + 1 == pl->n;
				ci[nci].argv0 = c->w[a].v;
				nci++;
				add_compile(&x, c, a, bk, cmd, succ[i],
					    i == last_reached, exit_code, ok,
					    k + 1 == pl->n);
			}
			/* a named program measures rather than a script
			 * on stdin before it (often the edit of a file) */
			if ((!p->bench || anon_prog(p->bench_prog)) &&
			    bench_cmd(c, a, &bn) &&
			    (!p->bench || !anon_prog(bn))) {
				p->bench = 1;
				free(p->bench_prog);
				free(p->bench_src);
				p->bench_prog = strdup(bn);
				p->bench_src = bench_source(c, a);
			}
		}
		content_free(&pipe);
	}
	/* 4b. what an opaque construct (a loop, a subshell...) may have
	 * changed; not when here-documents begun before it are pending (their
	 * bodies lie in its text) */
	if (!x.oom && ps.opaque && !ps.opaque_hd && ps.opaque_at < ps.n)
		rc = loose_ops(&x, cmd + ps.opaque_at, ps.n - ps.opaque_at);
	if (x.oom || rc) {
		rc = KT_ENOMEM;
		goto out;
	}
	/* 5. compile outcomes */
	for (k = 0; k < p->ncc && k < nci; k++) {
		struct kt_sh_compile *cc = &p->cc[k];
		int err = 0, s;
		size_t dl = 0;
		int unattributed = cc->nsources == 0 || k + 1 == p->ncc;
		char nf[300];

		cc->diag = diagnostics(output, p->ncc == 1 ? NULL : cc->sources,
				       cc->nsources, unattributed, &dl, &err);
		cc->diag_len = dl;
		if (cc->diag && !dl) {
			free(cc->diag);
			cc->diag = NULL;
		}
		i = ci[k].item;
		s = ci[k].pipe_tail || ps.it[i].p.n == 1 ? succ[i] : UNK;
		snprintf(nf, sizeof(nf), "%s: command not found", ci[k].argv0);
		if (reached[i] == UNK) {
			/* shown to have run only by diagnostics about its own
			 * sources; otherwise drop it */
			size_t ol = 0;
			int oe = 0;
			char *own = cc->nsources ? diagnostics(output, cc->sources,
					cc->nsources, 0, &ol, &oe) : NULL;

			free(own);
			if (!ol) {
				cc->exit_code = -2;
				continue;
			}
		}
		if (out_has(output, nf)) {
			cc->exit_code = 127;
			continue;
		}
		if (s == YES) {
			cc->exit_code = 0;
			continue;
		}
		if (err || s == NO) {
			int m = exit_marker(output);

			if (i == last_reached && exit_code > 0 && !ok)
				cc->exit_code = exit_code;
			else if (i == last_reached && m > 0)
				cc->exit_code = m;
			else if (out_has(cc->diag, "make: ***") ||
				 out_has(cc->diag, "]: ***"))
				cc->exit_code = 2;      /* GNU make on error */
			else if (ci[k].kind == CC_NINJA &&
				 out_has(cc->diag, "ninja: build stopped"))
				cc->exit_code = 1;
			else if (ci[k].kind == CC_COMPILER && err)
				cc->exit_code = 1;      /* gcc/clang/nvcc */
			continue;
		}
		/* not shown to fail: ok and no error means success */
		if (ok && !err)
			cc->exit_code = 0;
	}
	/* drop compiles that were not shown to run */
	for (k = 0, i = 0; k < p->ncc; k++) {
		if (p->cc[k].exit_code == -2) {
			free_cc(&p->cc[k]);
			continue;
		}
		p->cc[i++] = p->cc[k];
	}
	p->ncc = i;
out:
	ctx_free(&x);
	free(reached);
	free(succ);
	free(fail);
	free(ci);
	parser_free(&ps);
	if (rc)
		kt_sh_plan_free(p);
	return rc;
}

int kt_shell_runs_bench(const char *cmd)
{
	struct parser ps = { 0 };
	size_t i, k;
	int r = 0;

	if (!cmd)
		return 0;
	ps.s = cmd;
	ps.n = strlen(cmd);
	if (ps.n > MAX_CMD)
		return 0;
	parse(&ps);
	for (i = 0; i < ps.nit && !r; i++)
		for (k = 0; k < ps.it[i].p.n && !r; k++) {
			const char *bn;
			struct scmd *c = &ps.it[i].p.c[k];

			r = bench_cmd(c, unwrap(c), &bn);
		}
	parser_free(&ps);
	return r;
}
