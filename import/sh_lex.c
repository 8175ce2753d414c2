/*
 * sh_lex.c - the shell command parser's lexer and parser: words in every
 * quoting style, expansions marked unknown, redirections and here-document
 * bodies, pipelines and lists, into the syntax tree of sh_int.h.
 *
 * Quoting and expansion follow the POSIX Shell Command Language
 * (pubs.opengroup.org/onlinepubs/9699919799/utilities/V3_chap02.html,
 * 2.2 Quoting, 2.7 Redirection, 2.7.4 Here-Document) and bash's manual for
 * $'...', &>, <<< and echo/printf escapes (gnu.org/software/bash/manual,
 * "ANSI-C Quoting", "Bash Builtins").
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "import.h"
#include "sh_int.h"

/* ---- growable arrays ----------------------------------------------------- */

/* grow an array of elements of size sz so that one more fits */
int sh_more(void **arr, size_t *cap, size_t n, size_t sz)
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

void sh_parser_free(struct parser *ps)
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
size_t sh_c_escape(const char *s, size_t n, size_t i, struct kt_buf *b,
		       int octal0)
{
	char c;
	unsigned v = 0;
	size_t k = 0;

	if (i >= n) {
		kt_buf_putc(b, '\\');
		return 0 + (i >= n ? 0 : 1);
	}
	c = s[i];
	switch (c) {
	case 'n': kt_buf_putc(b, '\n'); return 1;
	case 't': kt_buf_putc(b, '\t'); return 1;
	case 'r': kt_buf_putc(b, '\r'); return 1;
	case 'a': kt_buf_putc(b, '\a'); return 1;
	case 'b': kt_buf_putc(b, '\b'); return 1;
	case 'f': kt_buf_putc(b, '\f'); return 1;
	case 'v': kt_buf_putc(b, '\v'); return 1;
	case 'e': case 'E': kt_buf_putc(b, 27); return 1;
	case '\\': kt_buf_putc(b, '\\'); return 1;
	case '\'': kt_buf_putc(b, '\''); return 1;
	case '"': kt_buf_putc(b, '"'); return 1;
	case '?': kt_buf_putc(b, '?'); return 1;
	case 'c': return 0;
	case 'x':
		while (k < 2 && i + 1 + k < n &&
		       isxdigit((unsigned char)s[i + 1 + k])) {
			char h = s[i + 1 + k];

			v = v * 16 + (unsigned)kt_hexval((unsigned char)h);
			k++;
		}
		if (!k) {
			kt_buf_add(b, "\\x", 2);
			return 1;
		}
		kt_buf_putc(b, (char)v);
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
			kt_buf_putc(b, (char)(v & 0xff));
			return start + k ? start + k : 1;
		}
		kt_buf_putc(b, '\\');
		kt_buf_putc(b, c);
		return 1;
	}
}

/* $... at s[i]: appends a literal '$' or marks the word dynamic. */
static size_t dollar(struct parser *ps, size_t i, struct kt_buf *b,
		     unsigned *fl, int in_dq)
{
	const char *s = ps->s;
	size_t n = ps->n;

	if (i + 1 >= n) {
		kt_buf_putc(b, '$');
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
				size_t k = sh_c_escape(s, n, j + 1, b, 0);

				j += 1 + (k ? k : 1);
			} else
				kt_buf_putc(b, s[j++]);
		}
		if (j >= n)
			*fl |= W_DYN;
		return j + 1 > n ? n : j + 1;
	}
	if (sh_is_name(s[i + 1]) || strchr("@*#?$!-", s[i + 1])) {
		size_t j = i + 1;

		*fl |= W_DYN;
		if (isdigit((unsigned char)s[j]) || !sh_is_name(s[j]))
			return j + 1;
		while (j < n && sh_is_name(s[j]))
			j++;
		return j;
	}
	kt_buf_putc(b, '$');
	return i + 1;
}

/* Read one word at ps->i into w. */
static void read_word(struct parser *ps, struct word *w)
{
	const char *s = ps->s;
	size_t n = ps->n, i = ps->i;
	struct kt_buf b = { 0 };
	unsigned fl = 0;

	w->off = i;
	kt_buf_add(&b, "", 0);
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
				kt_buf_putc(&b, s[i + 1]);
			i += 2;
		} else if (c == '\'') {
			const char *q = memchr(s + i + 1, '\'', n - i - 1);
			size_t e = q ? (size_t)(q - s) : n;

			fl |= W_QUOTE;
			if (!q)
				fl |= W_DYN;
			kt_buf_add(&b, s + i + 1, e - i - 1);
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
						kt_buf_putc(&b, '\\');
					kt_buf_putc(&b, d);
					i += 2;
				} else if (s[i] == '$') {
					i = dollar(ps, i, &b, &fl, 1);
				} else if (s[i] == '`') {
					const char *q = memchr(s + i + 1, '`',
							       n - i - 1);

					fl |= W_DYN;
					i = q ? (size_t)(q - s) + 1 : n;
				} else
					kt_buf_putc(&b, s[i++]);
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
			kt_buf_putc(&b, c);
			i++;
		}
	}
	if (i > n)
		i = n;
	if (b.err)
		ps->oom = 1;
	w->v = b.s;
	w->n = b.len;
	w->end = i;
	w->fl = fl;
	ps->i = i;
}

static void finish_cmd(struct parser *ps)
{
	if (!ps->in_cmd)
		return;
	if (sh_more((void **)&ps->cur.c, &ps->cur.cap, ps->cur.n,
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
	if (sh_more((void **)&ps->it, &ps->capit, ps->nit, sizeof(*ps->it))) {
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
	struct kt_buf b = { 0 };
	size_t i;
	const char *s = r->body;

	kt_buf_add(&b, "", 0);
	for (i = 0; i < r->blen; i++) {
		char c = s[i];

		if (c == '\\' && i + 1 < r->blen &&
		    strchr("$`\\\n", s[i + 1])) {
			if (s[i + 1] != '\n')
				kt_buf_putc(&b, s[i + 1]);
			i++;
		} else if (c == '`' ||
			   (c == '$' && i + 1 < r->blen &&
			    (sh_is_name(s[i + 1]) || strchr("{(@*#?$!-", s[i + 1])))) {
			r->body_unknown = 1;
			break;
		} else
			kt_buf_putc(&b, c);
	}
	if (b.err) {
		r->body_unknown = 1;
		free(b.s);
		return;
	}
	free(r->body);
	r->body = b.s;
	r->blen = b.len;
}

/* After a newline: read the bodies of the pending here-documents. */
static void read_heredocs(struct parser *ps)
{
	size_t h;

	for (h = 0; h < ps->nhd; h++) {
		struct hdref *ref = &ps->hd[h];
		struct redir *r;
		struct kt_buf b = { 0 };
		int done = 0;

		/* the command may still be the one being built */
		if (ref->item == ps->nit && ref->cmd == ps->cur.n)
			r = &ps->sc.r[ref->red];
		else if (ref->item == ps->nit)
			r = &ps->cur.c[ref->cmd].r[ref->red];
		else
			r = &ps->it[ref->item].p.c[ref->cmd].r[ref->red];
		kt_buf_add(&b, "", 0);
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
			kt_buf_add(&b, ls + t, ll - t);
			if (nl)
				kt_buf_putc(&b, '\n');
		}
		r->body = b.s;
		r->blen = b.len;
		if (b.err)
			ps->oom = 1;
		/* bash warns and uses the rest: agents' tools have been seen to
		 * append text after the delimiter, so the body is not known */
		if (!done || b.err)
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

void sh_parse(struct parser *ps)
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
				if (sh_more((void **)&ps->sc.r, &ps->sc.capr, ps->sc.nr,
					 sizeof(r))) {
					ps->oom = 1;
					word_free(&r.t);
					return;
				}
				ps->sc.r[ps->sc.nr++] = r;
				ps->sc.end = ps->i;
				if (kind == R_HEREDOC) {
					if (sh_more((void **)&ps->hd, &ps->caphd, ps->nhd,
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
			if (sh_more((void **)&ps->sc.w, &ps->sc.capw, ps->sc.nw,
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
