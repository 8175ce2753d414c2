/*
 * cli.h - what every cli/cmd_*.c shares: global options, store opening,
 * run resolution, error and output helpers.  Only cli/ prints or exits.
 *
 * Exit codes (documented in README.md and `ktraj help`):
 *   0 success, 1 failure (the error line says why), 2 usage error,
 *   3 verification found corruption, 4 not found (run, event, path).
 */
#ifndef KT_CLI_H
#define KT_CLI_H

#include <stdio.h>
#include "../store/store.h"

#define KT_EXIT_OK 0
#define KT_EXIT_FAIL 1
#define KT_EXIT_USAGE 2
#define KT_EXIT_CORRUPT 3
#define KT_EXIT_NOTFOUND 4

#define KT_CMD_WRITES 0x1u   /* opens the store for writing */
#define KT_CMD_CREATES 0x2u  /* and creates it when it is missing (README
			      * "Store location" names these commands); a
			      * writer without it (hide, unhide) needs the
			      * store, as a reader does */

/* A cli_open flag of the CLI's own (past the KT_OPEN_* bits): the store
 * must be there even for a command that creates one, as the command names
 * a run in it (replay RUN): no empty store is left behind by "no run". */
#define CLI_OPEN_EXISTING 0x10000u

struct cli {
	const char *store_path; /* --store, else $KTRAJ_STORE, else default */
	const char *cmd;        /* command name for error lines */
	unsigned flags;         /* KT_CMD_* of the command */
	int progress;           /* 1 when stderr is a terminal, 0 with --no-progress */
};

#define X(name, flags, summary) int cmd_##name(struct cli *c, int argc, char **argv);
#include "commands.h"
#undef X

/* "ktraj: <cmd>: <message>\n" on stderr.  Returns KT_EXIT_FAIL. */
int cli_err(const struct cli *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Same with a usage hint; returns KT_EXIT_USAGE. */
int cli_usage(const struct cli *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Map a KT_E* code to an exit code (KT_ENOTFOUND -> 4, KT_ECORRUPT -> 3). */
int cli_exit_code(int err);
/* Print an error for a store call: "ktraj: <cmd>: <what>: <strerror>[: detail]";
 * returns cli_exit_code(err). */
int cli_store_err(const struct cli *c, kt_store *s, int err, const char *what);

/* Open the store at c->store_path (flags: KT_OPEN_* and CLI_OPEN_EXISTING);
 * commands with KT_CMD_CREATES create it when missing (not with
 * CLI_OPEN_EXISTING); for any other a missing store is "no store at PATH",
 * exit 4, and nothing is created.  Prints the error itself; returns 0 or an
 * exit code. */
int cli_open(struct cli *c, unsigned flags, kt_store **s);
/* Resolve RUN (id, unique prefix, name); prints the error itself.  A run
 * record it must read that is damaged is KT_EXIT_CORRUPT, as everywhere. */
int cli_run(struct cli *c, kt_store *s, const char *spec,
	    char out[KT_RUN_ID_HEX + 1]);
/* The opening of a command that reads the store: cli_open (flags 0; with
 * CLI_OPEN_EXISTING when spec is not NULL, as a missing store has no run),
 * then, when spec is not NULL, cli_run of spec into run.  Prints the error
 * itself; returns 0 or an exit code.  *s is the open store, also after a
 * failed cli_run, or NULL when it did not open: the caller closes it in
 * either case (kt_store_close takes NULL). */
int cli_open_run(struct cli *c, const char *spec, kt_store **s,
		 char run[KT_RUN_ID_HEX + 1]);
/* The error of kt_run_resolve(s, spec, ...) = rc, printed as cli_run
 * prints it; returns the exit code. */
int cli_run_failed(struct cli *c, kt_store *s, const char *spec, int rc);

/*
 * For a command's option loop, on an option it did not take: a usage error
 * (returns KT_EXIT_USAGE), "OPT needs a value" when usage_text shows OPT
 * with a value, in its synopsis (the lines up to the first blank one:
 * "[--kind KIND]", "-o FILE") or opening a line of its option list
 * ("  --cache DIR  ..."): the loop only leaves such an option when nothing
 * follows it.  Else "unknown option 'OPT'".
 */
int cli_bad_option(const struct cli *c, const char *usage_text,
		   const char *opt);

/*
 * For a command's option loop: whether the option argv[i] has its value
 * after it - an argument that is there and does not read as an option
 * ("-x", "--xy", "--"; "-" alone and numbers such as "-1" or "-.5" are
 * values).  When it has not, the loop leaves the option to cli_bad_option,
 * so `--format -o x` is "--format needs a value" as a last `--format` is,
 * not "-o" taken for the format.  A value that starts with '-' is given
 * as --opt=VALUE where the command takes that form.
 */
int cli_has_value(int argc, char **argv, int i);

/* For commands that walk every run (ls, search, questions mine): 1 when
 * run `id` is hidden (`ktraj hide`) and `all` (their --all) is 0, so the
 * walk leaves it out; else 0; a negative KT_E* code when the hide record
 * cannot be read (kt_run_hidden). */
int cli_hidden_skip(kt_store *s, const char *id, int all);

/*
 * 1 when arg reads as a negative number ("-1", "-0", "-2.5"), else 0.  The
 * option loop of a command that takes a step passes such an argument on as
 * the step, so `ktraj show RUN -1` gets the step's message (cli_bad_step)
 * rather than "unknown option '-1'".
 */
int cli_negnum(const char *arg);

/*
 * The usage error of a step argument that is not a sequence number >= 1:
 * "[OPT: ]a step is a sequence number >= 1, not 'ARG'" (opt NULL for a
 * positional SEQ, else the option, e.g. "--from").  Returns KT_EXIT_USAGE.
 * Every command that takes a step says it so.
 */
int cli_bad_step(const struct cli *c, const char *opt, const char *arg);

/*
 * The error of step `seq` past the end of run `run` (its first 12 hex
 * chars are printed) that has n events: "run RUN has no step N (it has M
 * events)".  Returns KT_EXIT_NOTFOUND.
 */
int cli_no_step(const struct cli *c, const char *run, uint64_t seq,
		uint64_t n);

/*
 * An unknown subcommand `sub` of a command that has subcommands (blame,
 * questions, hook): "unknown subcommand 'SUB' (valid: A, B or C)", as a
 * usage error; valid is NULL-terminated.  Returns KT_EXIT_USAGE.
 */
int cli_bad_subcommand(const struct cli *c, const char *sub,
		       const char *const *valid);

/* An unknown event kind given to --kind (log, search): "unknown kind
 * 'NAME' (valid: message, tool_call, ... or note)" as a usage error;
 * returns KT_EXIT_USAGE. */
int cli_bad_kind(const struct cli *c, const char *name);

/* When argv has -h/--help: print usage to stdout and return 1. */
int cli_wants_help(int argc, char **argv, const char *usage);

/* Parse a decimal u64; 0 on success. */
int cli_u64(const char *s, uint64_t *out);
/* Parse a size: a decimal u64 with an optional K, M, G or T suffix
 * (powers of 1024, also as KiB/KB...); 0 on success, -1 when malformed or
 * past 2^64. */
int cli_size(const char *s, uint64_t *out);
/* Option opt's value v as a size (cli_size) from min to max bytes into
 * *out: 0, or KT_EXIT_USAGE after the usage line that names opt, v and
 * the range (every size option says the same). */
int cli_size_opt(const struct cli *c, const char *opt, const char *v, uint64_t min,
		 uint64_t max, uint64_t *out);

/*
 * Environment setting `name` as a size or count (cli_size: a decimal
 * number with an optional K, M, G or T suffix) from min to max into *out;
 * *out is left as it is when name is unset or empty.  Returns 0, or
 * KT_EXIT_USAGE after the error line "NAME must be ... from MIN to MAX,
 * not 'VALUE'" (what: "a size" or "a number").  Every setting the CLI
 * reads is checked before the store opens, so a bad one leaves no store
 * behind (as KTRAJ_CACHE_MB and KTRAJ_SCAN_THREADS are in cli_open).
 */
int cli_env_size(const struct cli *c, const char *name, const char *what,
		 uint64_t min, uint64_t max, uint64_t *out);

/* The whole file at path, NUL-terminated (*len without the NUL; len may
 * be NULL); malloc'ed.  NULL with errno set when it cannot be opened or
 * read, or memory runs out. */
char *cli_slurp(const char *path, size_t *len);

/* JSON string escaping to a FILE (quotes included). */
void cli_json_str(FILE *f, const char *s);
/* ---- live recording (record.c over store/store_record.c) --------------- */

/*
 * kt_record_run (store.h) for a command: the run that `ktraj append NAME` /
 * `bench --record NAME` / `hook` write to.  Prints the error itself (a
 * name matching several runs, a prefix of another run's id, a new name
 * that is not one line of valid UTF-8: KT_EXIT_USAGE; a store error as
 * cli_store_err); returns 0 or an exit code.
 */
int cli_record_run(struct cli *c, kt_store *s, const char *name,
		   const char *source, char run[KT_RUN_ID_HEX + 1], int *exists);
#endif
