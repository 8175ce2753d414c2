/*
 * shellparse.h - private to import/: what a finished shell command did,
 * worked out from its text and output alone (no store, no workspace), so
 * that it can be unit-tested; import/shell.c turns a plan into events.
 *
 * The grammar covered is the part of POSIX sh / bash that agents use for
 * one-shot commands: simple commands with words in every quoting style,
 * redirections (> >> < << <<- <<< &> n>&m), pipelines, and lists joined by
 * && || ; & and newlines.  Anything else (subshells, groups, if/for/while,
 * functions) makes the rest of the line opaque: nothing after it is
 * claimed.  The rule throughout is "no edit rather than a wrong edit".
 */
#ifndef KT_SHELLPARSE_H
#define KT_SHELLPARSE_H

#include <stddef.h>

/* KT_SH_UNKNOWN: the command changed (or may have changed) the file in a
 * way its text does not tell (sed -i, perl -pi, `python gen.py > f`): the
 * workspace must forget the file's content rather than keep a stale one. */
enum { KT_SH_WRITE = 1, KT_SH_APPEND, KT_SH_DELETE, KT_SH_UNKNOWN };

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
	double duration_ms;     /* from `time`'s "real" line; < 0 unknown */
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

/* "a/./b/../c" -> "a/c", joined to cwd when relative and cwd != NULL;
 * malloc'ed, NULL on allocation failure. */
char *kt_sh_path(const char *cwd, const char *path);

#endif
