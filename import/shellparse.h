/*
 * shellparse.h - private to import/: what a finished shell command did,
 * worked out from its text and output alone (no store, no workspace), so
 * that it can be unit-tested; import/shell.c turns a plan into events.
 *
 * The grammar covered is the part of POSIX sh / bash that agents use for
 * one-shot commands: simple commands with words in every quoting style,
 * redirections (> >> < << <<- <<< &> n>&m), pipelines, and lists joined by
 * && || ; & and newlines.  Anything else (subshells, groups, if/for/while,
 * functions) makes the rest of the line opaque: no write, compile or bench
 * after it is claimed, but what the commands inside may have changed is
 * still made unknown (a loose reading, README "Files a command does not
 * name").  The rule throughout is "no edit rather than a wrong edit", and
 * "unknown rather than stale".
 */
#ifndef KT_SHELLPARSE_H
#define KT_SHELLPARSE_H

#include <stddef.h>

/* KT_SH_UNKNOWN: the command changed (or may have changed) the file in a
 * way its text does not tell (sed -i, perl -pi, `python gen.py > f`): the
 * workspace must forget the file's content rather than keep a stale one. */
enum { KT_SH_WRITE = 1, KT_SH_APPEND, KT_SH_DELETE, KT_SH_UNKNOWN,
	/* The command changed files it does not name, so every file the
	 * workspace knows in a set becomes unknown (README "Shell commands",
	 * "Files a command does not name"):
	 *  KT_SH_UNKNOWN_UNDER  path is a directory: the files under it;
	 *                       "" = every file the workspace knows
	 *  KT_SH_UNKNOWN_GLOB   path is an fnmatch(3) pattern (FNM_PATHNAME):
	 *                       the files it matches (sed -i s/a/b/ k*.cu)
	 *  KT_SH_PATCH          path is a patch file applied to dir with -p
	 *                       strip (patch -p1 < x.diff, git apply x.patch):
	 *                       the files its headers name, as the workspace
	 *                       knows the patch; every file under dir when it
	 *                       does not know it */
	KT_SH_UNKNOWN_UNDER, KT_SH_UNKNOWN_GLOB, KT_SH_PATCH,
	/*  KT_SH_DELETE_UNDER   path is a directory removed whole (rm -r):
	 *                       every file known under it is deleted
	 *  KT_SH_UNKNOWN_TREE   path is an fnmatch(3) pattern that may name
	 *                       directories (rm -r d/x*): the files it
	 *                       matches and every file under a match */
	KT_SH_DELETE_UNDER, KT_SH_UNKNOWN_TREE };

/* One file change.  Content is data[0..len) when have_data, else the
 * concatenation of files[] as the workspace knows them (cat a b > c,
 * cp a c, mv a c); the caller drops the op when one of them is unknown. */
struct kt_sh_op {
	int op;                 /* KT_SH_* */
	char *path;             /* absolute when the cwd is known, normalized */
	int have_data;
	char *data;
	size_t len;
	char **files;
	size_t nfiles;
	char *dir;              /* KT_SH_PATCH: where it applies (NULL unknown) */
	int present_only;       /* KT_SH_UNKNOWN*: a removal (rm) that may
				   have run: files known absent stay so */
	int strip;              /* KT_SH_PATCH: -pN; -1 = basename (patch
				   without -p) */
};

struct kt_sh_compile {
	char *command;          /* text of the build command itself */
	char *cwd;              /* NULL when unknown */
	char *compiler;         /* "nvcc", "gcc", "make", "cmake", "ninja"... */
	char **flags;           /* arguments that are not sources */
	size_t nflags;
	char **sources;         /* resolved like op paths */
	size_t nsources;
	char *arch;             /* "sm_90a", "sm_80,sm_90", or NULL */
	int exit_code;          /* -1 = unknown (null in the payload) */
	int failed;             /* exit code unknown, but the output shows
				 * the build failed (ok: false) */
	double duration_ms;     /* from `time`'s "real" line; < 0 unknown */
	/* pip that built the local package in this directory and said only
	 * that it did (sh_pip_quiet_built): a compile (exit 0) only when its
	 * setup.py / pyproject.toml / setup.cfg, as the workspace holds it,
	 * declares an extension (kt_shell_classify); NULL otherwise */
	char *ext_dir;
	char *diag;             /* compiler diagnostics text, or NULL */
	size_t diag_len;
};

struct kt_sh_plan {
	struct kt_sh_op *ops;
	size_t nops;
	struct kt_sh_compile *cc;
	size_t ncc;
	int bench;              /* a benchmark-like program ran */
	char *bench_prog;       /* its name ("bench_gemm", "run.py"), or NULL */
	char *bench_src;        /* the command that measured ("python verify.py
				 * ref.py sol.py"; for a script on stdin or in
				 * -c, its first statement), or NULL */
	int opaque;             /* part of the command was not understood */
	int nothing_ran;        /* the call was refused before running */
};

/*
 * Work out the plan of a finished command.  cwd may be NULL (relative
 * paths then stay relative); output may be NULL; exit_code -1 = unknown;
 * ok = the tool call succeeded.  Returns 0 or KT_ENOMEM; on error *p is
 * left empty.  Free with kt_sh_plan_free().
 */
int kt_sh_plan_build(const char *cmd, const char *cwd, const char *output,
		     int exit_code, int ok, struct kt_sh_plan *p);
void kt_sh_plan_free(struct kt_sh_plan *p);

/*
 * The files a unified or git diff changes: the paths of its "--- ",
 * "+++ " and "diff --git" headers (not /dev/null), with `strip` leading
 * components removed (-1: all but the last, as patch does without -p),
 * resolved against dir.  *out gets a malloc'ed array of *n malloc'ed
 * paths, each once (at most 4096).  Returns 0 or KT_ENOMEM.
 */
int kt_sh_diff_targets(const char *text, size_t len, const char *dir,
		       int strip, char ***out, size_t *n);

/* "a/./b/../c" -> "a/c", joined to cwd when relative and cwd != NULL;
 * malloc'ed, NULL on allocation failure. */
char *kt_sh_path(const char *cwd, const char *path);

#endif
