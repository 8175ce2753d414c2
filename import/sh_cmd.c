/*
 * sh_cmd.c - what the shell command parser knows of single commands:
 * paths (kt_sh_path), wrappers skipped to find the real command, build and
 * benchmark commands, the evidence in the output that a command ran or
 * failed, and compiler diagnostics (import/README.md "Shell commands").
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "import.h"
#include "sh_int.h"

/* ---- paths --------------------------------------------------------------- */
char *kt_sh_path(const char *cwd, const char *path)
{
	struct kt_buf b = { 0 };
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
	kt_buf_add(&b, "", 0);
	if (abs)
		kt_buf_putc(&b, '/');
	for (k = 0; k < nc; k++) {
		if (k)
			kt_buf_putc(&b, '/');
		kt_buf_add(&b, comp[k], clen[k]);
	}
	if (!abs && !nc)
		kt_buf_putc(&b, '.');
	if (b.err) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

/* ---- commands -------------------------------------------------------------- */
int sh_wis(const struct word *w, const char *s)
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
		if (!sh_is_name(*p) || (p == w->v && isdigit((unsigned char)*p)))
			return 0;
	return 1;
}

/* Index of the real command word after env assignments and wrappers like
 * `timeout 60`, `env X=1`, `time`, `nice -n 5`, `sudo`, `taskset -c 0`.
 * Returns nw when there is none. */
size_t sh_unwrap(const struct scmd *c)
{
	size_t i = 0, nw = c->nw;

	while (i < nw && assignment(&c->w[i]))
		i++;
	while (i < nw && !(c->w[i].fl & W_DYN)) {
		const char *b = kt_basename(c->w[i].v);

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
		if (sh_wis(&c->w[i], "--help") || sh_wis(&c->w[i], "-h") ||
		    sh_wis(&c->w[i], "--version") || sh_wis(&c->w[i], "-V") ||
		    sh_wis(&c->w[i], "-version"))
			return 1;
	return 0;
}

static const char *const src_ext[] = { ".cu", ".c", ".cc", ".cpp", ".cxx",
	".c++", ".C", ".cuh", ".hip", ".m", ".mm", ".ptx", NULL };

int sh_is_source(const char *v)
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

int sh_build_kind(const struct scmd *c, size_t a)
{
	const char *b;
	size_t i;

	if (a >= c->nw || (c->w[a].fl & W_DYN))
		return CC_NONE;
	b = kt_basename(c->w[a].v);
	if (compiler_name(b)) {
		if (has_help(c, a))
			return CC_NONE;
		for (i = a + 1; i < c->nw; i++)
			if (!(c->w[i].fl & W_DYN) && sh_is_source(c->w[i].v))
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
			if (sh_wis(&c->w[i], "--build"))
				return CC_CMAKE;
	}
	/* `pip install .` (pip3, python -m pip, uv pip) builds a package
	 * that has an extension from source; whether it did is in its output
	 * (kt_sh_plan_build keeps it only then: `pip install numpy` that
	 * downloads a wheel is no compile) */
	{
		size_t k = a;

		if (!strcmp(b, "uv") && k + 1 < c->nw &&
		    sh_wis(&c->w[k + 1], "pip"))
			k++;
		else if (!strncmp(b, "python", 6) && k + 2 < c->nw &&
			 sh_wis(&c->w[k + 1], "-m") &&
			 (sh_wis(&c->w[k + 2], "pip") ||
			  sh_wis(&c->w[k + 2], "pip3")))
			k += 2;
		else if (strncmp(b, "pip", 3) ||
			 strspn(b + 3, "0123456789.") != strlen(b + 3))
			k = c->nw;     /* no pip, pip3, pip3.11 */
		if (k + 1 < c->nw && sh_wis(&c->w[k + 1], "install"))
			return has_help(c, a) ? CC_NONE : CC_PIP;
	}
	/* `python setup.py build_ext` (and build, develop, install) builds a
	 * Python/C++ extension with g++/nvcc: a compile, not a program run */
	if (!strncmp(b, "python", 6) && a + 2 < c->nw &&
	    !strcmp(kt_basename(c->w[a + 1].v), "setup.py"))
		for (i = a + 2; i < c->nw; i++)
			if (sh_wis(&c->w[i], "build_ext") ||
			    sh_wis(&c->w[i], "build") ||
			    sh_wis(&c->w[i], "develop") ||
			    sh_wis(&c->w[i], "install"))
				return has_help(c, a) ? CC_NONE : CC_SETUP;
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

int sh_in_list(const char *const *l, const char *s)
{
	int i;

	/* the first byte before the call: the lists are long and a
	 * command's words rarely in them */
	for (i = 0; l[i]; i++)
		if (l[i][0] == s[0] && !strcmp(l[i], s))
			return 1;
	return 0;
}

int sh_has_ext(const char *v, const char *ext)
{
	size_t n = strlen(v), k = strlen(ext);

	return n > k && !strcmp(v + n - k, ext);
}

/* Whether simple command c (real command at a) runs a benchmark-like
 * program; *name gets a pointer to its name inside c. */
int sh_bench_cmd(const struct scmd *c, size_t a, const char **name)
{
	const char *v, *b;
	size_t i;

	if (a >= c->nw || (c->w[a].fl & W_DYN) || has_help(c, a))
		return 0;
	v = c->w[a].v;
	b = kt_basename(v);
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
				*name = kt_basename(x);
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
				*name = kt_basename(c->w[i].v);
				break;
			}
		return 1;
	}
	if ((!strcmp(b, "bash") || !strcmp(b, "sh")) && a + 1 < c->nw &&
	    sh_has_ext(c->w[a + 1].v, ".sh")) {
		*name = kt_basename(c->w[a + 1].v);
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
	if ((!strcmp(b, "cargo") && a + 1 < c->nw && sh_wis(&c->w[a + 1], "bench")) ||
	    (!strcmp(b, "go") && a + 1 < c->nw && sh_wis(&c->w[a + 1], "test") &&
	     strstr(c->w[c->nw - 1].v, "bench")))
		return 1;
	if (!strcmp(b, "pytest")) {
		for (i = a + 1; i < c->nw; i++)
			if (strstr(c->w[i].v, "benchmark"))
				return 1;
		return 0;
	}
	if (sh_in_list(not_bench, b) || compiler_name(b))
		return 0;
	/* a program of the agent's: ./x, build/x, /abs/x, or a *bench* tool */
	if (strchr(v, '/') || strstr(b, "bench"))
		return 1;
	return 0;
}

/* ---- output evidence ------------------------------------------------------ */
/* "name:" at a line start or after ": " (bash: "line 1: cd: x: No such"). */
int sh_out_msg(const char *out, const char *name)
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

int sh_out_has(const char *out, const char *s)
{
	return out && strstr(out, s);
}

/* commands that print "<name>: ..." to stderr when they fail */
const char *const sh_trusted[] = { "cd", "rm", "mv", "cp", "mkdir",
	"rmdir", "touch", "chmod", "ln", "pushd", "popd", "export", "true",
	":", "set", "unset", "source", ".", "ls", "echo", "printf", NULL };

/* a command that cannot fail once reached */
int sh_infallible(const char *b)
{
	return !strcmp(b, "export") || !strcmp(b, "true") || !strcmp(b, ":") ||
	       !strcmp(b, "echo") || !strcmp(b, "printf") || !strcmp(b, "set") ||
	       !strcmp(b, "unset");
}

int sh_stderr_hidden(const struct scmd *c)
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
char *sh_diagnostics(const char *out, char **names, size_t nn,
			 int want_unattributed, size_t *len, int *err)
{
	struct kt_buf b = { 0 };
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
					const char *bn = kt_basename(names[k]);
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
			kt_buf_add(&b, p, ll);
			kt_buf_putc(&b, '\n');
		}
		p += ll + (nl ? 1 : 0);
	}
	if (b.err) {
		free(b.s);
		return NULL;
	}
	*len = b.len;
	return b.s;
}

/* "Exit code N" (Claude Code), "exit code: N", "exited with code N",
 * "exit status N" near the top of the output: the call's status. */
int sh_exit_marker(const char *out)
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
int sh_claimed(const struct parser *ps, size_t i, size_t k, const char *b)
{
	size_t a, x, y;

	for (x = 0; x <= i && x < ps->nit; x++)
		for (y = 0; y < ps->it[x].p.n && (x < i || y < k); y++) {
			const struct scmd *c = &ps->it[x].p.c[y];

			a = sh_unwrap(c);
			if (a < c->nw && !(c->w[a].fl & W_DYN) &&
			    !strcmp(kt_basename(c->w[a].v), b))
				return 1;
		}
	return 0;
}
