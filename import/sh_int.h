/*
 * sh_int.h - what the files of the shell command parser share (sh_lex.c,
 * sh_cmd.c, shellparse.c, sh_unnamed.c, sh_cwd.c, sh_prog.c): the syntax
 * tree, the plan's context and the functions one file calls in another.
 * Internal to import/; the parser's interface is shellparse.h.
 */
#ifndef KT_SH_INT_H
#define KT_SH_INT_H

#include <ctype.h>
#include <stddef.h>
#include "shellparse.h"
#include "../base/kt_base.h"

/* bytes of a command line the parser reads */
#define MAX_CMD (64u << 20)

/* a character of a shell variable name */
static inline int sh_is_name(int c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* ---- syntax tree (sh_lex.c) ---- */
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

/* build kinds (sh_cmd.c sh_build_kind) */
enum { CC_NONE = 0, CC_COMPILER, CC_MAKE, CC_NINJA, CC_CMAKE, CC_SETUP,
       CC_PIP };

/* ---- the plan's context (shellparse.c) ---- */
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

/* What a producer writes to stdout. */
struct content {
	int kind;       /* 0 unknown, 1 data, 2 files */
	struct kt_buf data;
	char **files;
	size_t nfiles;
};

/* ---- sh_lex.c: the lexer and parser (words, redirections, here-documents, pipelines, lists) ---- */
int sh_more(void **arr, size_t *cap, size_t n, size_t sz);
void sh_parser_free(struct parser *ps);
size_t sh_c_escape(const char *s, size_t n, size_t i, struct kt_buf *b,
		       int octal0);
void sh_parse(struct parser *ps);

/* ---- sh_cmd.c: commands (wrappers, builds, benchmarks), output evidence, diagnostics ---- */
int sh_wis(const struct word *w, const char *s);
size_t sh_unwrap(const struct scmd *c);
int sh_is_source(const char *v);
int sh_build_kind(const struct scmd *c, size_t a);
int sh_in_list(const char *const *l, const char *s);
int sh_has_ext(const char *v, const char *ext);
int sh_bench_cmd(const struct scmd *c, size_t a, const char **name);
int sh_out_msg(const char *out, const char *name);
int sh_out_has(const char *out, const char *s);
int sh_infallible(const char *b);
int sh_stderr_hidden(const struct scmd *c);
char *sh_diagnostics(const char *out, char **names, size_t nn,
			 int want_unattributed, size_t *len, int *err);
int sh_exit_marker(const char *out);
int sh_claimed(const struct parser *ps, size_t i, size_t k, const char *b);

/* commands that print a message when they fail (sh_cmd.c) */
extern const char *const sh_trusted[];

/* ---- shellparse.c: the plan (writes, deletes, compiles) ---- */
char *sh_resolve(struct ctx *x, const struct word *w);
struct kt_sh_op *sh_new_op(struct ctx *x, int op, char *path);
void sh_put_write(struct ctx *x, int op, char *path,
		      const struct content *ct);
void sh_unknown_out(struct ctx *x, const struct scmd *c);
void sh_inplace_ops(struct ctx *x, const struct scmd *c, size_t a,
			int perl);
size_t sh_args_of(const struct scmd *c, size_t a, const struct word **v,
		      size_t max, int *opts_ok, const char *allowed);
void sh_rm_ops(struct ctx *x, const struct scmd *c, size_t a,
		   int certain);

/* ---- sh_prog.c: the program a command ran, what pip's output says ---- */
/* 1 when pip's output (NULL: none) shows native code compiled, else 0 */
int sh_pip_built(const char *out);
/* 1 when pip's output (NULL: none) says a build failed, else 0 */
int sh_pip_failed(const char *out);
/* 1 when pip's output (NULL: none) says it built a package from source
 * and the build succeeded, as a quiet `pip install -e .` prints it
 * ("Building editable for X (pyproject.toml) ... done", "Successfully
 * built X") with no word of what ran: a pure-Python package prints the
 * same.  Else 0. */
int sh_pip_quiet_built(const char *out);
/* The local package directory `pip install` at word a builds (".", "-e
 * ./ext", "/w/pkg[dev]"), resolved against x's cwd like op paths: malloc'd;
 * NULL when it installs no local directory, several targets, a target
 * not known from the text, or out of memory (*oom set). */
char *sh_pip_local_dir(struct ctx *x, const struct scmd *c, size_t a,
		       int *oom);
/* 1 for a script without a name ("python -", "python -c"; NULL: 0) */
int sh_anon_prog(const char *name);
/* the bench source label of c's program at word a: malloc'd, NULL when
 * empty or out of memory */
char *sh_bench_source(const struct scmd *c, size_t a);

/* ---- sh_cwd.c: the working directory (cd, pushd, popd) ---- */
void sh_set_cwd(struct ctx *x, const struct scmd *c, size_t a, int succ);

/* ---- sh_unnamed.c: files a command does not name ---- */
void sh_unknown_operand(struct ctx *x, const struct word *w, int under);
void sh_wide_ops(struct ctx *x, const struct scmd *c, size_t a,
		     const char *b);
int sh_loose_ops(struct ctx *x, const char *s, size_t n);

#endif
