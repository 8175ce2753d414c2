/* replay_plan.h - step selection, plans, plan tasks and collection for
 * `ktraj replay` (cli/replay_plan.c over replay/plan.c). */
#ifndef KT_CLI_REPLAY_PLAN_H
#define KT_CLI_REPLAY_PLAN_H
#include <stddef.h>
#include <stdint.h>
#include "../replay/replay.h"

struct cli;

/* Which steps of a run: bench steps, compile steps, listed seqs (any
 * kind), and share shard_i of shard_n (shard_n 0: all). */
struct replay_sel {
	int all_bench, all_compile;
	const char *steps;   /* "3,7,10-12" or NULL */
	unsigned shard_i, shard_n;
};

/* 0 when list is a valid SEL ("N", "A-B", comma separated, >= 1). */
int cli_replay_sel_check(const char *list);
/* "I/N" with I < N into sel; 0 or -1. */
int cli_replay_shard_parse(const char *v, struct replay_sel *sel);
/* The seqs of run that sel picks, in seq order (*seqs malloc'ed, caller
 * frees).  The store's codes. */
int cli_replay_select(kt_store *s, const char *run, const struct replay_sel *sel,
		      uint64_t **seqs, size_t *n);
/* The limits options of argv (--timeout, --mem, --max-output, --max-procs,
 * --cache, --cache-max, --allow-network, --no-sandbox, --gpu) as sh words
 * for the plan's `replay --task` lines; malloc'ed, NULL when none (or no
 * memory). */
char *cli_replay_task_args(int argc, char **argv);
/* `replay --plan DIR RUN...`: exit code. */
int cli_replay_plan(struct cli *c, const char *dir, char **specs, int nspecs,
		    const struct replay_sel *sel, const kt_replay_plan_opts *o,
		    const char *self);
/* `replay --task DIR N`: exit code. */
int cli_replay_task(struct cli *c, const char *dir, const char *task,
		    const kt_replay_limits *lim, const char *cache);
/* `replay --collect DIR`: exit code (1 when a task is missing or failed). */
int cli_replay_collect(struct cli *c, const char *dir, int json);
#endif
