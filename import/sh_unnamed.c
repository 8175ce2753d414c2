/*
 * sh_unnamed.c - files a shell command changes without naming them
 * (scripts, patches, git, formatters, find/xargs, loops): the plan marks
 * them unknown (import/README.md "Files a command does not name").
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "import.h"
#include "sh_int.h"

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
	(void)sh_new_op(x, KT_SH_UNKNOWN_UNDER, p);
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
void sh_unknown_operand(struct ctx *x, const struct word *w, int under)
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
			(void)sh_new_op(x, KT_SH_UNKNOWN_UNDER, p);
		else
			sh_put_write(x, KT_SH_UNKNOWN, p, &none);
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
			(void)sh_new_op(x, under ? KT_SH_UNKNOWN_TREE :
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
			(void)sh_new_op(x, KT_SH_UNKNOWN_UNDER, p);
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
	const char *p = kt_basename(path);
	char tok[32];
	size_t k = 0;
	int longtok = 0;

	for (;; p++) {
		int c = (unsigned char)*p;
		int cut = !c || !isalnum(c) ||
			  (k && isupper(c) && islower((unsigned char)p[-1]));

		if (cut) {
			tok[k] = 0;
			if (k && !longtok && sh_in_list(edit_words, tok))
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

			sh_put_write(x, KT_SH_UNKNOWN, t[i], &none);
		}
		free(t);
		return;
	}
	if (file) {
		char *p = sh_resolve(x, file);
		struct kt_sh_op *o;

		if (p && (o = sh_new_op(x, KT_SH_PATCH, p))) {
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
					sh_unknown_operand(x, &c->w[i], 0);
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
		sh_unknown_operand(x, orig, 0);
		goto out;
	}
	if (orig && !input) {
		/* `... | patch k.cu`: the patch on stdin applies to k.cu */
		sh_unknown_operand(x, orig, 0);
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
			sh_unknown_operand(x, ops[j], 1);
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
		if (sh_wis(&c->w[a + 1], "format"))
			inplace = 1;
		else if (sh_wis(&c->w[a + 1], "check"))
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
		sh_unknown_operand(x, &c->w[i], 1);
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
		const char *b = kt_basename(c->w[i].v);
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
		sh_unknown_operand(x, &c->w[i], 1);
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
				sh_unknown_operand(x, dir, 1);
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
				sh_unknown_operand(x, &c->w[i], 0);
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
				sh_unknown_operand(x, &c->w[i], 0);
		}
		return 1;
	}
	if (!strcmp(b, "dd")) {
		for (i = a + 1; i < c->nw; i++)
			if (!strncmp(c->w[i].v, "of=", 3)) {
				struct word w = c->w[i];

				w.v += 3;
				w.n -= 3;
				sh_unknown_operand(x, &w, 0);
			}
		return 1;
	}
	return 0;
}

/* Commands that change files they do not name (a command that may have
 * run: reached and not known to have failed). */
void sh_wide_ops(struct ctx *x, const struct scmd *c, size_t a,
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
	if ((strchr(c->w[a].v, '/') || sh_has_ext(b, ".py") ||
	     sh_has_ext(b, ".sh") || sh_has_ext(b, ".pl")) && edit_named(b))
		wide_under(x, NULL);
}

/* The commands of an opaque construct (loop, if, subshell, group, case)
 * and what follows it, read loosely: each may have run any number of
 * times, so what it writes is unknown (never a write or a delete), and no
 * compile or bench is claimed from it. */
int sh_loose_ops(struct ctx *x, const char *s, size_t n)
{
	struct parser ps = { 0 };
	size_t i, k;

	ps.s = s;
	ps.n = n;
	ps.loose = 1;
	sh_parse(&ps);
	if (ps.oom) {
		sh_parser_free(&ps);
		return KT_ENOMEM;
	}
	for (i = 0; i < ps.nit && !x->oom; i++)
		for (k = 0; k < ps.it[i].p.n && !x->oom; k++) {
			const struct scmd *c = &ps.it[i].p.c[k];
			size_t a = sh_unwrap(c);
			const char *b;
			const struct word *v[64];
			struct content none = { 0 };
			size_t m, j;
			int ok;

			sh_unknown_out(x, c);
			if (a >= c->nw)
				continue;
			b = (c->w[a].fl & W_DYN) ? "" : kt_basename(c->w[a].v);
			/* a literal cd is followed: what comes after it in
			 * the construct runs there, when it runs at all
			 * (`(cd build && make)`); so are pushd and popd */
			if (!strcmp(b, "cd") || !strcmp(b, "pushd") ||
			    !strcmp(b, "popd")) {
				sh_set_cwd(x, c, a, YES);
				continue;
			}
			if (!strcmp(b, "sed") || !strcmp(b, "perl"))
				sh_inplace_ops(x, c, a, b[0] == 'p');
			if (!strcmp(b, "rm"))
				sh_rm_ops(x, c, a, 0);
			else if (!strcmp(b, "mv") ||
			    !strcmp(b, "cp") || !strcmp(b, "tee")) {
				m = sh_args_of(c, a, v, 64, &ok, "");
				/* mv sources and every target: unknown;
				 * cp's sources stay */
				for (j = 0; j < m && j < 64; j++)
					if ((b[0] != 'c' || j + 1 == m) &&
					    !(v[j]->fl & (W_DYN | W_GLOB)))
						sh_put_write(x, KT_SH_UNKNOWN,
							  sh_resolve(x, v[j]), &none);
			}
			sh_wide_ops(x, c, a, b);
		}
	sh_parser_free(&ps);
	return x->oom ? KT_ENOMEM : 0;
}
