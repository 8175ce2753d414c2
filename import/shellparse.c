/*
 * shellparse.c - the plan of a finished shell command (shellparse.h): the
 * parser's entry point and the effects of the commands it names.  The
 * lexer is sh_lex.c, single commands sh_cmd.c, the files a command does
 * not name sh_unnamed.c, the working directory sh_cwd.c, the label of the
 * program a bench ran and what pip's output says it built sh_prog.c (their
 * shared tree: sh_int.h).
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
#include "sh_int.h"

/* ---- plan ------------------------------------------------------------------- */

static void ctx_free(struct ctx *x)
{
	free(x->cwd);
	free(x->old.dir);
	while (x->nstk)
		free(x->stk[--x->nstk].dir);
	free(x->stk);
}

char *sh_resolve(struct ctx *x, const struct word *w)
{
	if (w->fl & (W_DYN | W_GLOB) || !w->n)
		return NULL;
	if (w->v[0] != '/' && x->cwd_lost)
		return NULL;
	return kt_sh_path(x->cwd, w->v);
}

struct kt_sh_op *sh_new_op(struct ctx *x, int op, char *path)
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


static void content_free(struct content *c)
{
	size_t i;

	free(c->data.s);
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
	kt_buf_add(&o->data, "", 0);
	for (; i < c->nw; i++) {
		const struct word *w = &c->w[i];
		size_t j;

		if (w->fl & (W_DYN | W_GLOB)) {
			o->kind = 0;
			return;
		}
		if (!first)
			kt_buf_putc(&o->data, ' ');
		first = 0;
		if (!esc) {
			kt_buf_add(&o->data, w->v, w->n);
			continue;
		}
		for (j = 0; j < w->n; j++) {
			if (w->v[j] == '\\' && j + 1 < w->n) {
				size_t k = sh_c_escape(w->v, w->n, j + 1, &o->data, 1);

				if (!k)
					return; /* \c: no more output */
				j += k;
			} else
				kt_buf_putc(&o->data, w->v[j]);
		}
	}
	if (nl)
		kt_buf_putc(&o->data, '\n');
}

static void printf_content(const struct scmd *c, size_t a, struct content *o)
{
	size_t i = a + 1, j;
	const struct word *f;

	if (i < c->nw && sh_wis(&c->w[i], "--"))
		i++;
	/* printf -v var: no output; printf fmt args: not interpreted here */
	if (i >= c->nw || i + 1 != c->nw || c->w[i].v[0] == '-' ||
	    (c->w[i].fl & (W_DYN | W_GLOB)))
		return;
	f = &c->w[i];
	o->kind = 1;
	kt_buf_add(&o->data, "", 0);
	for (j = 0; j < f->n; j++) {
		char ch = f->v[j];

		if (ch == '\\' && j + 1 < f->n) {
			size_t k = sh_c_escape(f->v, f->n, j + 1, &o->data, 0);

			if (!k)
				return;
			j += k;
		} else if (ch == '%') {
			if (j + 1 < f->n && f->v[j + 1] == '%') {
				kt_buf_putc(&o->data, '%');
				j++;
			} else {
				o->kind = 0;    /* a conversion without args */
				return;
			}
		} else
			kt_buf_putc(&o->data, ch);
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
		kt_buf_add(&o->data, "", 0);
		if (in->kind == R_HEREDOC)
			kt_buf_add(&o->data, in->body ? in->body : "", in->blen);
		else {
			kt_buf_add(&o->data, in->t.v, in->t.n);
			kt_buf_putc(&o->data, '\n');
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
		kt_buf_add(&dst->data, src->data.s ? src->data.s : "", src->data.len);
		if (dst->data.err)
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
void sh_put_write(struct ctx *x, int op, char *path,
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
		const char *b = kt_basename(path);
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
	o = sh_new_op(x, op, path);
	if (!o)
		return;
	copy_content(&cp, ct, &x->oom);
	if (cp.kind == 1) {
		o->have_data = 1;
		o->data = cp.data.s ? cp.data.s : strdup("");
		o->len = cp.data.len;
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
				sh_put_write(x, KT_SH_WRITE, sh_resolve(x, &r->t), &empty);
			continue;
		}
		sh_put_write(x, !ct->kind ? KT_SH_UNKNOWN :
			  app ? KT_SH_APPEND : KT_SH_WRITE, sh_resolve(x, &r->t),
			  ct);
	}
	return any;
}

/* Every file c redirects output to (any fd), as changed in a way we do not
 * know: the output of a program, or of a command that may not have run. */
void sh_unknown_out(struct ctx *x, const struct scmd *c)
{
	struct content none = { 0 };

	for (size_t i = 0; i < c->nr; i++) {
		const struct redir *r = &c->r[i];

		if (r->kind == R_OUT || r->kind == R_APP || r->kind == R_ALL ||
		    r->kind == R_ALLAPP)
			sh_put_write(x, KT_SH_UNKNOWN, sh_resolve(x, &r->t), &none);
	}
}

/* sed -i / perl -i: the files edited in place (their new content is not
 * worked out).  GNU sed: -i[SUFFIX] or --in-place[=SUFFIX], script from
 * -e/-f or the first operand; BSD's `-i ''` / `-i .bak` suffix word is
 * skipped.  perl: -i[EXT] inside a switch cluster (-pi, -i.bak), program
 * from -e/-E or the first operand.  A glob makes the known files it
 * matches unknown, a word with $vars every known file under the cwd. */

void sh_inplace_ops(struct ctx *x, const struct scmd *c, size_t a,
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
		sh_unknown_operand(x, ops[i], 0);
}

/* Non-option arguments of c after a (for rm/mv/cp/cat/tee). */
size_t sh_args_of(const struct scmd *c, size_t a, const struct word **v,
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

void sh_rm_ops(struct ctx *x, const struct scmd *c, size_t a,
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
		if (!(w->fl & (W_DYN | W_GLOB)) && !(p = sh_resolve(x, w)))
			continue;
		if (!certain || (w->fl & (W_DYN | W_GLOB))) {
			size_t from = x->p->nops;

			free(p);
			sh_unknown_operand(x, w, rec);
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
			(void)sh_new_op(x, KT_SH_DELETE_UNDER, q);
		}
		if (rm_root(w->v, w->n))
			free(p);        /* / is no file: only what is under it */
		else
			(void)sh_new_op(x, KT_SH_DELETE, p);
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
		sh_rm_ops(x, c, a, 1);
		return;
	}
	if (strcmp(b, "mv") && strcmp(b, "cp"))
		return;
	k = sh_args_of(c, a, v, 64, &ok, strcmp(b, "mv") ? "fvpaL" : "fv");
	if (!ok || k < 2 || k > 64)
		return;
	for (i = 0; i + 1 < k; i++) {
		const struct word *dst = v[k - 1];
		char *src = sh_resolve(x, v[i]), *dp;
		struct content ct = { 0 };
		size_t dl = dst->n;
		int dir = k > 2 || (dl && dst->v[dl - 1] == '/') ||
			  sh_wis(dst, ".") || sh_wis(dst, "..");

		if (!src)
			continue;
		/* mv a b where b may be a directory: only when b looks like
		 * a file name (has an extension) */
		if (!dir && !strchr(kt_basename(dst->v), '.')) {
			free(src);
			continue;
		}
		if (dir) {
			struct kt_buf pb = { 0 };
			struct word w = *dst;

			kt_buf_add(&pb, dst->v, dst->n);
			kt_buf_putc(&pb, '/');
			kt_buf_add(&pb, kt_basename(src), strlen(kt_basename(src)));
			if (pb.err) {
				free(src);
				x->oom = 1;
				return;
			}
			w.v = pb.s;
			w.n = pb.len;
			dp = sh_resolve(x, &w);
			free(pb.s);
		} else
			dp = sh_resolve(x, dst);
		if (!dp || !strcmp(dp, src)) {
			free(dp);
			free(src);
			continue;
		}
		ct.kind = 2;
		ct.files = &src;
		ct.nfiles = 1;
		sh_put_write(x, KT_SH_WRITE, dp, &ct);
		if (!strcmp(b, "mv"))
			(void)sh_new_op(x, KT_SH_DELETE, src);
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
		k = sh_args_of(c, a, v, 64, &ok, "");
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
				char *r = sh_wis(v[i], "-") ? NULL : sh_resolve(x, v[i]);

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
		k = sh_args_of(c, a, v, 64, &ok, "aip");
		stdin_content(c, pipe_in, &ct);
		/* tee of output we cannot tell (python gen.py | tee f) */
		if (reached && ok && k <= 64)
			for (i = 0; i < k; i++)
				sh_put_write(x, !ct.kind ? KT_SH_UNKNOWN :
					  app ? KT_SH_APPEND : KT_SH_WRITE,
					  sh_resolve(x, v[i]), &ct);
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
	struct kt_buf arch = { 0 };

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
		if (sh_wis(&c->w[i], "time"))
			cc->duration_ms = real_ms(x->out);
	cc->command = strndup(cmdtext + c->off, c->end - c->off);
	cc->cwd = x->cwd && !x->cwd_lost ? strdup(x->cwd) : NULL;
	cc->compiler = strdup(kind == CC_MAKE ? "make" : kind == CC_NINJA ? "ninja"
			      : kind == CC_CMAKE ? "cmake" : kind == CC_SETUP ?
			      "setup.py" : kind == CC_PIP ? "pip" :
			      kt_basename(c->w[a].v));
	cc->flags = calloc(c->nw, sizeof(char *));
	cc->sources = calloc(c->nw, sizeof(char *));
	if (kind == CC_PIP)
		cc->ext_dir = sh_pip_local_dir(x, c, a, &x->oom);
	if (!cc->command || !cc->compiler || !cc->flags || !cc->sources) {
		x->oom = 1;
		return;
	}
	kt_buf_add(&arch, "", 0);
	for (i = a + 1; i < c->nw; i++) {
		const struct word *w = &c->w[i];
		const char *v = w->v, *sm = NULL;

		if (kind == CC_COMPILER && !(w->fl & W_DYN) && sh_is_source(v)) {
			char *r = sh_resolve(x, w);

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

			if (!strstr(arch.s, sm) || l != strlen(sm)) {
				if (arch.len)
					kt_buf_putc(&arch, ',');
				kt_buf_add(&arch, sm, l);
			}
		}
	}
	if (arch.len)
		cc->arch = arch.s;
	else
		free(arch.s);
	(void)last;
	(void)exit_code;
	(void)ok;
	(void)succ;
	(void)in_pipe_tail;
}

/* "a/b/c" with strip components removed (-1: the base name), or NULL */
static const char *strip_path(const char *p, int strip)
{
	if (strip < 0)
		return kt_basename(p);
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
	free(c->ext_dir);
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

/* Parse cmd into ps (zeroed); 0, nothing parsed, when cmd is longer than
 * the parser reads (MAX_CMD). */
static int parse_cmd(struct parser *ps, const char *cmd)
{
	ps->s = cmd;
	ps->n = strlen(cmd);
	if (ps->n > MAX_CMD)
		return 0;
	sh_parse(ps);
	return 1;
}

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
	if (!parse_cmd(&ps, cmd))
		return 0;
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
				rc = sh_loose_ops(&x, cmd + ps.opaque_at,
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
			size_t a = sh_unwrap(c);
			const char *v, *b;

			if (a >= c->nw || (c->w[a].fl & W_DYN))
				continue;
			v = c->w[a].v;
			b = kt_basename(v);
			if (sh_stderr_hidden(c))
				continue;
			{
				/* a message names a command, not an item: with
				 * "make clean && make" it is the first make's */
				int evi = !sh_claimed(&ps, i, k, b) &&
					  (sh_out_msg(output, v) || sh_out_msg(output, b));
				size_t j;

				if (!evi && sh_build_kind(c, a) == CC_COMPILER)
					for (j = a + 1; j < c->nw && !evi; j++) {
						char pat[600];

						if (!sh_is_source(c->w[j].v))
							continue;
						snprintf(pat, sizeof(pat), "%s:",
							 kt_basename(c->w[j].v));
						evi = sh_out_has(output, pat);
						snprintf(pat, sizeof(pat), "%s(",
							 kt_basename(c->w[j].v));
						evi = evi || sh_out_has(output, pat);
					}
				if (!evi)
					continue;
				ev = 1;
				if (sh_in_list(sh_trusted, b) && pl->n == 1)
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
		size_t a = sh_unwrap(lc);
		const char *b = a < lc->nw ? kt_basename(lc->w[a].v) : "";

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
				 (sh_infallible(b) ||
				  (sh_in_list(sh_trusted, b) && !sh_stderr_hidden(lc) &&
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
	if (sh_out_has(output, "delimited by end-of-file"))
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
			size_t a = sh_unwrap(c);
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
			b = (c->w[a].fl & W_DYN) ? "" : kt_basename(c->w[a].v);
			if (!strcmp(b, "echo") || !strcmp(b, "printf") ||
			    !strcmp(b, "cat") || !strcmp(b, "tee")) {
				run_producer(&x, c, a, b, &pipe, &out,
					     reached[i] == YES);
			} else if (!strcmp(b, "cd") || !strcmp(b, "pushd") ||
				   !strcmp(b, "popd")) {
				if (pl->n == 1 && reached[i] != NO)
					sh_set_cwd(&x, c, a, reached[i] == YES ?
						succ[i] : UNK);
			} else {
				if (pl->n == 1 && reached[i] == YES &&
				    succ[i] == YES)
					file_ops(&x, c, a, b);
				else if (reached[i] != NO && succ[i] != NO &&
					 !strcmp(b, "rm"))
					sh_rm_ops(&x, c, a, 0); /* may have run */
				/* a program's output, or in-place edits of a
				 * command that may have run */
				if (reached[i] != NO && succ[i] != NO &&
				    (!strcmp(b, "sed") || !strcmp(b, "perl")))
					sh_inplace_ops(&x, c, a, b[0] == 'p');
				/* scripts, patch, git, formatters */
				if (reached[i] != NO && succ[i] != NO)
					sh_wide_ops(&x, c, a, b);
				if (reached[i] != NO)
					sh_unknown_out(&x, c);
			}
			if (reached[i] == UNK && (!strcmp(b, "echo") ||
			    !strcmp(b, "printf") || !strcmp(b, "cat") ||
			    !strcmp(b, "tee")))
				sh_unknown_out(&x, c); /* may have run */
			content_free(&pipe);
			pipe = out;
			if (reached[i] == NO)
				continue;
			bk = sh_build_kind(c, a);
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
			if ((!p->bench || sh_anon_prog(p->bench_prog)) &&
			    sh_bench_cmd(c, a, &bn) &&
			    (!p->bench || !sh_anon_prog(bn))) {
				p->bench = 1;
				free(p->bench_prog);
				free(p->bench_src);
				p->bench_prog = strdup(bn);
				p->bench_src = sh_bench_source(c, a);
			}
		}
		content_free(&pipe);
	}
	/* 4b. what an opaque construct (a loop, a subshell...) may have
	 * changed; not when here-documents begun before it are pending (their
	 * bodies lie in its text) */
	if (!x.oom && ps.opaque && !ps.opaque_hd && ps.opaque_at < ps.n)
		rc = sh_loose_ops(&x, cmd + ps.opaque_at, ps.n - ps.opaque_at);
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

		cc->diag = sh_diagnostics(output, p->ncc == 1 ? NULL : cc->sources,
				       cc->nsources, unattributed, &dl, &err);
		cc->diag_len = dl;
		if (cc->diag && !dl) {
			free(cc->diag);
			cc->diag = NULL;
		}
		i = ci[k].item;
		s = ci[k].pipe_tail || ps.it[i].p.n == 1 ? succ[i] : UNK;
		if (ci[k].kind == CC_PIP) {
			size_t at = 0, n = 0;

			if (!sh_pip_built(output)) {
				/* built nothing, or (quiet) nothing said of
				 * what it built: the workspace may tell */
				cc->exit_code = cc->ext_dir &&
					sh_pip_quiet_built(output) &&
					(s == YES || (ok && exit_code <= 0)) ?
					0 : -2;
				continue;
			}
			/* its output shows the native build itself */
			free(cc->ext_dir);
			cc->ext_dir = NULL;
			/* pip indents its build's output: the build
			 * error's own text is the diagnostic */
			if (!cc->diag && kt_out_build_error(output,
					strlen(output), &at, &n) &&
			    (cc->diag = strndup(output + at, n)))
				cc->diag_len = n;
			if (s != YES && sh_pip_failed(output)) {
				/* pip exits 1 when a build fails */
				cc->exit_code = i == last_reached &&
						exit_code > 0 && !ok ? exit_code : 1;
				continue;
			}
			if (s == YES || (ok && exit_code <= 0))
				cc->exit_code = 0;
			continue;
		}
		snprintf(nf, sizeof(nf), "%s: command not found", ci[k].argv0);
		if (reached[i] == UNK) {
			/* shown to have run only by diagnostics about its own
			 * sources; otherwise drop it */
			size_t ol = 0;
			int oe = 0;
			char *own = cc->nsources ? sh_diagnostics(output, cc->sources,
					cc->nsources, 0, &ol, &oe) : NULL;

			free(own);
			if (!ol) {
				cc->exit_code = -2;
				continue;
			}
		}
		if (sh_out_has(output, nf)) {
			cc->exit_code = 127;
			continue;
		}
		if (s == YES) {
			cc->exit_code = 0;
			continue;
		}
		if (err || s == NO) {
			int m = sh_exit_marker(output);

			if (i == last_reached && exit_code > 0 && !ok)
				cc->exit_code = exit_code;
			else if (i == last_reached && m > 0)
				cc->exit_code = m;
			else if (sh_out_has(cc->diag, "make: ***") ||
				 sh_out_has(cc->diag, "]: ***"))
				cc->exit_code = 2;      /* GNU make on error */
			else if (ci[k].kind == CC_NINJA &&
				 sh_out_has(cc->diag, "ninja: build stopped"))
				cc->exit_code = 1;
			else if (ci[k].kind == CC_SETUP && output &&
				 kt_out_build_error(output, strlen(output),
						    &(size_t){0}, &(size_t){0}))
				cc->exit_code = 1;      /* setuptools */
			else if (ci[k].kind == CC_COMPILER && err)
				cc->exit_code = 1;      /* gcc/clang/nvcc */
			else if (ci[k].kind == CC_CMAKE &&
				 sh_out_has(cc->diag, "ninja: build stopped"))
				/* failed; what cmake --build returned for
				 * it the text does not say */
				cc->failed = 1;
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
	sh_parser_free(&ps);
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
	if (!parse_cmd(&ps, cmd))
		return 0;
	for (i = 0; i < ps.nit && !r; i++)
		for (k = 0; k < ps.it[i].p.n && !r; k++) {
			const char *bn;
			struct scmd *c = &ps.it[i].p.c[k];

			r = sh_bench_cmd(c, sh_unwrap(c), &bn);
		}
	sh_parser_free(&ps);
	return r;
}
