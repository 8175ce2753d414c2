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

#define KT_CMD_WRITES 0x1u

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

/* Open the store at c->store_path; with write commands it is created when
 * missing.  Prints the error itself; returns 0 or an exit code. */
int cli_open(struct cli *c, unsigned flags, kt_store **s);
/* Resolve RUN (id, unique prefix, name); prints the error itself. */
int cli_run(struct cli *c, kt_store *s, const char *spec,
	    char out[KT_RUN_ID_HEX + 1]);

/* When argv has -h/--help: print usage to stdout and return 1. */
int cli_wants_help(int argc, char **argv, const char *usage);

/* Parse a decimal u64; 0 on success. */
int cli_u64(const char *s, uint64_t *out);

/* JSON string escaping to a FILE (quotes included). */
void cli_json_str(FILE *f, const char *s);
#endif
