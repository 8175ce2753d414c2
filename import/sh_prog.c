/*
 * sh_prog.c - the program a command ran, for the plan (shellparse.c): the
 * label of a bench's source (the command's words, or for inline Python the
 * file it runs or its first statement) and what pip's output says about a
 * native build.  Moved out of shellparse.c, which keeps the plan; the
 * declarations are in sh_int.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "import.h"
#include "sh_int.h"

/* Whether pip's output shows it compiling native code: setuptools'
 * build_ext ("running build_ext", "building 'fused' extension"),
 * torch's cpp_extension ("Emitting ninja build file"), a compiler's command
 * line (pip -v) or a build error (kt_out_build_error).  A pure-Python
 * editable build ("Building editable for marshmallow ... done") and
 * `pip install numpy` that downloads a wheel show none. */
int sh_pip_built(const char *out)
{
	static const char *const m[] = { "running build_ext", "building '",
		"Emitting ninja build file", NULL };
	static const char *const cc[] = { "gcc ", "g++ ", "c++ ", "cc ",
		"nvcc ", "clang ", "clang++ ", "x86_64-linux-gnu-gcc ",
		"x86_64-linux-gnu-g++ ", NULL };
	const char *l;
	size_t at, n;
	int i;

	if (!out)
		return 0;
	for (i = 0; m[i]; i++)
		if (strstr(out, m[i]))
			return 1;
	for (l = out; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *w = l + strspn(l, " \t"), *e = w + strcspn(w, " \n");
		const char *b = w;

		/* the compiler's name, maybe with its directory */
		for (const char *q = w; q < e; q++)
			if (*q == '/')
				b = q + 1;
		for (i = 0; cc[i]; i++)
			if (!strncmp(b, cc[i], strlen(cc[i])) &&
			    memchr(b, '-', (size_t)(strchrnul(b, '\n') - b)))
				return 1;
	}
	return kt_out_build_error(out, strlen(out), &at, &n) != NULL;
}

/* Whether pip's output says a build failed: its own summary of a build
 * subprocess that failed, or the build's error (kt_out_build_error). */
int sh_pip_failed(const char *out)
{
	size_t at, n;

	return out && (strstr(out, "error: subprocess-exited-with-error") ||
		       strstr(out, "did not run successfully") ||
		       strstr(out, "Failed to build ") ||
		       strstr(out, "ERROR: Failed building ") ||
		       kt_out_build_error(out, strlen(out), &at, &n));
}

int sh_pip_quiet_built(const char *out)
{
	return out && (strstr(out, "Building editable for ") ||
		       strstr(out, "Building wheel for ")) &&
	       (strstr(out, "Successfully built ") ||
		strstr(out, "finished with status 'done'")) &&
	       !sh_pip_failed(out);
}

char *sh_pip_local_dir(struct ctx *x, const struct scmd *c, size_t a,
		       int *oom)
{
	/* the options of pip install that take a value */
	static const char *const val[] = { "-r", "--requirement", "-c",
		"--constraint", "-t", "--target", "--prefix", "--root", "-i",
		"--index-url", "--extra-index-url", "-f", "--find-links",
		"-C", "--config-settings", "--platform", "--python-version",
		"--implementation", "--abi", "--src", "--upgrade-strategy",
		"--progress-bar", "--log", "--cache-dir", "--global-option",
		"--install-option", NULL };
	const struct word *t = NULL;
	size_t i, k;
	char *v, *r;

	for (i = a + 1; i < c->nw && !sh_wis(&c->w[i], "install"); i++)
		;
	for (i++; i < c->nw; i++) {
		const char *w = c->w[i].v;

		if (!strcmp(w, "-e") || !strcmp(w, "--editable"))
			continue;       /* the target follows */
		if (w[0] == '-') {
			for (k = 0; val[k] && strcmp(w, val[k]); k++)
				;
			i += val[k] != NULL;
			continue;
		}
		if (t)
			return NULL;    /* several targets */
		t = &c->w[i];
	}
	if (!t || (t->fl & W_DYN) || strstr(t->v, "://") ||
	    !strncmp(t->v, "git+", 4) ||
	    !(t->v[0] == '.' || t->v[0] == '/' || strchr(t->v, '/')))
		return NULL;
	/* ".[dev]": the directory without its extras */
	if (!(v = strndup(t->v, strcspn(t->v, "[")))) {
		*oom = 1;
		return NULL;
	}
	r = kt_ws_path(x->cwd && !x->cwd_lost ? x->cwd : NULL, v);
	free(v);
	if (!r)
		*oom = 1;
	return r;
}

/* A script without a name: python - (stdin) or python -c. */
int sh_anon_prog(const char *name)
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

/* The Python file that inline code runs by name (runpy.run_path("F"),
 * exec(open("F").read()), subprocess / os.system running "F.py"): the
 * first quoted *.py on such a line, or NULL. */
static char *runs_file(const char *code, size_t n)
{
	static const char *const how[] = { "run_path(", "exec(open(",
		"subprocess.", "os.system(", NULL };
	size_t i = 0;

	while (i < n) {
		const char *l = code + i, *e = memchr(l, '\n', n - i), *q;
		int k;

		if (!e)
			e = code + n;
		i = (size_t)(e - code) + 1;
		for (k = 0; how[k]; k++)
			if (memmem(l, (size_t)(e - l), how[k], strlen(how[k])))
				break;
		if (!how[k])
			continue;
		for (q = l; q < e; q++) {
			const char *z, *b;

			if (*q != '"' && *q != '\'')
				continue;
			if (!(z = memchr(q + 1, *q, (size_t)(e - q - 1))))
				break;
			/* the last word of the string: "python verify.py" */
			for (b = z; b > q + 1 && b[-1] != ' '; b--)
				;
			if (z - b > 3 && z - b < 120 && !memcmp(z - 3, ".py", 3))
				return strndup(b, (size_t)(z - b));
			q = z;
		}
	}
	return NULL;
}

/* The label of inline code run by prog (its word as typed), how: "-c",
 * "- (heredoc)" or "- (here-string)": the file the code runs when it
 * names one, else "PROG HOW: first statement", a description that stays
 * the same while the code does.  A line from inside the script alone
 * named no program. */
static char *inline_source(const char *code, size_t n, const char *prog,
			   const char *how)
{
	char *f = runs_file(code, n), *st, *r = NULL;

	if (f)
		return f;
	st = first_statement(code, n);
	if (asprintf(&r, "%s %s%s%s", prog, how, st ? ": " : "",
		     st ? st : "") < 0)
		r = NULL;
	free(st);
	return r;
}

/* The command that measured, for a bench's `source`: its words from the
 * program on (at most 200 bytes), or for code on stdin or in -c
 * inline_source, since "python -" names nothing. */
char *sh_bench_source(const struct scmd *c, size_t a)
{
	char buf[208];
	size_t i, k = 0;

	for (i = a + 1; i < c->nw; i++)
		if (!strcmp(c->w[i].v, "-c") && i + 1 < c->nw)
			return inline_source(c->w[i + 1].v,
					     strlen(c->w[i + 1].v),
					     c->w[a].v, "-c");
	for (i = 0; i < c->nr; i++)
		if ((c->r[i].kind == R_HEREDOC || c->r[i].kind == R_HERESTR) &&
		    c->r[i].body && (c->nw == a + 1 ||
				     !strcmp(c->w[c->nw - 1].v, "-")))
			return inline_source(c->r[i].body, c->r[i].blen,
					     c->w[a].v,
					     c->r[i].kind == R_HEREDOC ?
					     "- (heredoc)" : "- (here-string)");
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
