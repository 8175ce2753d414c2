/*
 * cmd_replay.c - `ktraj replay RUN SEQ` / `ktraj replay RUN --all-bench`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "outfmt.h"
#include "../replay/replay.h"
#include "../replay/sandbox.h"
#include "replay_plan.h"
#include "wsutil.h"

/* RUNs one `replay --plan` takes */
#define KT_PLAN_MAX_RUNS 4096

/* the replay event's numbers are exact below 10^15 (FORMAT.md section 1) */
#define KT_REPLAY_MAX_BYTES (1ull << 50)
/* --cache-max's default: a few hundred harness builds' objects */
#define KT_REPLAY_CACHE_MAX (4ull << 30)

static const char usage[] =
	"usage: ktraj replay RUN SEQ [--json] [--timeout S] [--mem SIZE] [--allow-network]\n"
	"       ktraj replay RUN --all-bench|--all-compile|--steps SEL [--shard I/N] [--json] [...]\n"
	"       ktraj replay --plan DIR RUN... --all-bench|--all-compile|--steps SEL\n"
	"                    [--array-max M] [--array-size K] [--timeout S]\n"
	"       ktraj replay --task DIR N [--timeout S] [...]\n"
	"       ktraj replay --collect DIR [--json]\n"
	"\n"
	"Re-execute a recorded step: export its bundle (workspace at the step,\n"
	"recorded commands, harness sources for `ktraj bench` steps), run it in a\n"
	"sandbox, compare with the recording and record a `replay` event.\n"
	"\n"
	"Verdicts: reproduced, faster, slower, diverged, failed (with the reason).\n"
	"Isolation (recorded in the replay event): the step runs under bubblewrap\n"
	"(apt-get install bubblewrap) in new user, PID, mount, IPC, UTS, network\n"
	"and cgroup namespaces, with no capabilities, a seccomp filter, a\n"
	"read-only root holding only the toolchain (/usr, /etc/ld.so.cache,\n"
	"/etc/alternatives; nothing of $HOME, /root, /run), a private /dev (the\n"
	"NVIDIA devices for GPU steps), its workspace, /tmp and /dev/shm on\n"
	"size-limited tmpfs, and it dies with ktraj.  As root it runs as nobody.\n"
	"Exit status: 0 when every step ran and was judged (whatever the\n"
	"verdict), 4 when the run or step does not exist, 1 when a step could\n"
	"not be exported or run, or bubblewrap is missing.\n"
	"SIZE is bytes, or a number with K, M, G or T (also KiB, MiB, GiB, TiB:\n"
	"powers of 1024), as 16G.\n"
	"  --json           one row per replayed step: run, step, verdict, reason\n"
	"  --timeout S      wall-clock limit per step (default 600)\n"
	"  --mem SIZE       address-space limit per process, RLIMIT_AS (default\n"
	"                   16 GiB; RLIMIT_DATA for GPU steps, whose driver\n"
	"                   reserves address space; not the GPU's memory); with\n"
	"                   a cgroup (root) the whole step's memory, shared\n"
	"                   memory and its files included, is also capped at\n"
	"                   --mem + --max-output\n"
	"  --max-output SIZE  all the step may write, its tmpfs (default half of\n"
	"                   --mem): half the workspace, 3/8 /tmp, 1/8 /dev/shm\n"
	"  --max-procs N    processes in the sandbox (default 256)\n"
	"  --allow-network  keep the host's network\n"
	"  --gpu            the GPU profile (/dev/nvidia*, /sys read-only,\n"
	"                   RLIMIT_DATA) for a step that needs it and is not a\n"
	"                   bench step, an nvcc compile or a run of what nvcc built\n"
	"  --no-sandbox     run without bubblewrap: your full file system access,\n"
	"                   with the limits alone (only for trajectories you trust)\n"
	"  --all-bench      replay every bench step, reusing compiled binaries\n"
	"  --all-compile    every compile step;  --steps SEL  the steps listed\n"
	"                   (\"3,7,10-12\")\n"
	"  --shard I/N      only share I of N of the chosen steps (0 <= I < N):\n"
	"                   the N shares are disjoint and cover them, for\n"
	"                   engines that give each worker a number\n"
	"Plans (README \"Replay on a cluster\"): --plan DIR writes a bundle per\n"
	"chosen step, DIR/plan.json, Slurm array scripts (slurm.sbatch, and\n"
	"slurm-gpu.sbatch with --gres=gpu:1 for GPU steps; --array-max M caps\n"
	"the tasks running at once; more than --array-size K tasks (default\n"
	"1000, under Slurm's default MaxArraySize) are split into array jobs of\n"
	"K that DIR/submit.sh submits) and DIR/local.sh (xargs -P here).\n"
	"Each task runs `ktraj replay --task DIR N`: the bundle in the sandbox,\n"
	"its result in DIR/results/.  --collect DIR records every result as a\n"
	"replay event on its step (again adds nothing) and reports missing,\n"
	"failed and diverged tasks (exit 1 when one is missing or failed).\n"
	"  --cache DIR      where compiled binaries are kept and reused by source\n"
	"                   hash (default: a temp dir for this command); the step\n"
	"                   writes it, so it must be writable by the step's user\n"
	"  --cache-max SIZE  the cache's size (default 4 GiB): before each step\n"
	"                   and after the last, its oldest entries are removed\n"
	"                   until it fits (said on stderr); a step that adds more\n"
	"                   than this is stopped (verdict failed)\n";

struct bench_list {
	uint64_t *seq;
	size_t n, cap;
};

static int collect(const kt_event *ev, void *arg)
{
	struct bench_list *b = arg;

	if (KT_GROW(b->seq, b->cap, b->n + 1))
		return 1;
	b->seq[b->n++] = ev->seq;
	return 0;
}

/* Replay step seq and record its verdict as a `replay` event on it (the
 * library runs and judges; recording is the command's, as for append and
 * bench --record). */
static int replay_one(kt_store *s, const char *run, uint64_t seq,
		      const kt_replay_limits *lim, const char *cache,
		      cJSON **out, char *err, size_t errlen)
{
	kt_rec_event e;
	int rc = kt_replay_step(s, run, seq, lim, cache, out, err, errlen);

	if (rc)
		return rc;
	kt_rec_event_init(&e, KT_KIND_REPLAY, "harness", seq, *out);
	rc = kt_record(s, run, &e);
	if (rc) {
		snprintf(err, errlen, "recording the replay: %s", kt_strerror(rc));
		cJSON_Delete(*out);
		*out = NULL;
	}
	return rc;
}

static void put_safe(FILE *f, const char *s)
{
	cli_put_safe(f, s, strlen(s));
}

static void print_row(const char *run, const cJSON *p, int json)
{
	const cJSON *v = cJSON_GetObjectItem(p, "verdict");
	const cJSON *r = cJSON_GetObjectItem(p, "reason");
	const cJSON *st = cJSON_GetObjectItem(p, "step");

	if (json) {
		cJSON *row = cJSON_Duplicate(p, 1);

		cJSON_AddStringToObject(row, "run", run);
		cli_put_json(row);
		return;
	}
	/* the reason quotes the trajectory (file names the command needs,
	 * the recorded GPU, the harness's and the sandbox's messages) */
	printf("step %d: ", st ? st->valueint : 0);
	put_safe(stdout, cJSON_GetStringValue(v) ? cJSON_GetStringValue(v) : "?");
	fputs(" - ", stdout);
	put_safe(stdout, cJSON_GetStringValue(r) ? cJSON_GetStringValue(r) : "");
	putchar('\n');
}

/* Once per command: why the step had no cgroup of its own (the replay
 * event's isolation.cgroup_why), since its memory is then bounded per
 * process only and the user may want to give it one. */
static void note_cgroup(const struct cli *c, const cJSON *p, int *said)
{
	const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(
		cJSON_GetObjectItem(p, "isolation"), "cgroup_why"));

	if (*said || !why)
		return;
	*said = 1;
	fprintf(stderr, "ktraj: %s: no cgroup for the step (memory limited per process, not in "
		"total): ", c->cmd ? c->cmd : "replay");
	put_safe(stderr, why);
	fputc('\n', stderr);
}

/* The command's error line for an err that may quote the trajectory (the
 * sandbox's messages, a result's field): as cli_err, terminal-safe. */
static int err_safe(const struct cli *c, const char *err)
{
	fprintf(stderr, "ktraj: %s: ", c->cmd ? c->cmd : "replay");
	put_safe(stderr, err);
	fputc('\n', stderr);
	return KT_EXIT_FAIL;
}

/* Keep the cache within --cache-max (the steps grow a host directory);
 * what was removed is said on stderr. */
static void trim_cache(const struct cli *c, const char *dir, uint64_t max)
{
	unsigned n;
	uint64_t gone, total;

	if (!dir || !max || kt_sandbox_cache_trim(dir, max, &n, &gone, &total) || !n)
		return;
	fprintf(stderr, "ktraj: %s: cache %s held %llu bytes, over --cache-max %llu: "
		"removed its %u oldest entries (%llu bytes)\n", c->cmd ? c->cmd : "replay", dir,
		(unsigned long long)total, (unsigned long long)max, n,
		(unsigned long long)gone);
}

int cmd_replay(struct cli *c, int argc, char **argv)
{
	kt_replay_limits lim = { 600, 1200, 16ull << 30, 4ull << 30, 0, 0, 0, 0, 0,
				 KT_REPLAY_CACHE_MAX };
	const char *spec = NULL, *seqs = NULL, *cache_opt = NULL;
	const char *plan_dir = NULL, *task_dir = NULL, *collect_dir = NULL;
	struct replay_sel sel = { 0 };
	kt_replay_plan_opts popt = { 0 };
	/* the RUNs of --plan; on the stack, so that every early return of
	 * the option parsing leaves nothing behind */
	char *specs[KT_PLAN_MAX_RUNS], *task_args = NULL;
	int nspecs = 0;
	char run[KT_RUN_ID_HEX + 1], err[1024] = "";
	char cache[4200];
	kt_janitor jan = { -1, -1 };
	struct bench_list b = { 0 };
	kt_store *s = NULL;
	int json = 0, all = 0, i, rc = 0, failed = 0, said = 0;
	size_t k;
	uint64_t seq = 0;

	if (cli_wants_help(argc, argv, usage))
		return 0;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--all-bench"))
			all = sel.all_bench = 1;
		else if (!strcmp(argv[i], "--all-compile"))
			all = sel.all_compile = 1;
		else if (!strcmp(argv[i], "--steps") && cli_has_value(argc, argv, i)) {
			if (cli_replay_sel_check(argv[++i]))
				return cli_usage(c, "--steps: bad value '%s' (e.g. 3,7,10-12)", argv[i]);
			sel.steps = argv[i];
			all = 1;
		} else if (!strcmp(argv[i], "--shard") && cli_has_value(argc, argv, i)) {
			if (cli_replay_shard_parse(argv[++i], &sel))
				return cli_usage(c, "--shard: bad value '%s' (I/N with 0 <= I < N)", argv[i]);
		} else if (!strcmp(argv[i], "--array-max") && cli_has_value(argc, argv, i)) {
			uint64_t v;

			if (cli_u64(argv[++i], &v) || !v || v > 1u << 20)
				return cli_usage(c, "--array-max: bad value '%s' (a count)", argv[i]);
			popt.array_max = (unsigned)v;
		} else if (!strcmp(argv[i], "--array-size") && cli_has_value(argc, argv, i)) {
			uint64_t v;

			if (cli_u64(argv[++i], &v) || !v || v > 1u << 20)
				return cli_usage(c, "--array-size: bad value '%s' (a count)", argv[i]);
			popt.array_size = (unsigned)v;
		} else if (!strcmp(argv[i], "--plan") && cli_has_value(argc, argv, i))
			plan_dir = argv[++i];
		else if (!strcmp(argv[i], "--task") && cli_has_value(argc, argv, i))
			task_dir = argv[++i];
		else if (!strcmp(argv[i], "--collect") && cli_has_value(argc, argv, i))
			collect_dir = argv[++i];
		else if (!strcmp(argv[i], "--allow-network"))
			lim.allow_network = 1;
		else if (!strcmp(argv[i], "--no-sandbox"))
			lim.no_sandbox = 1;
		else if (!strcmp(argv[i], "--gpu"))
			lim.gpu = 1;
		else if (!strcmp(argv[i], "--max-output") &&
			 cli_has_value(argc, argv, i)) {
			if ((rc = cli_size_opt(c, argv[i], argv[i + 1], 4096, KT_REPLAY_MAX_BYTES,
					       &lim.output_bytes)))
				return rc;
			i++;
		} else if (!strcmp(argv[i], "--max-procs") &&
			   cli_has_value(argc, argv, i)) {
			uint64_t v;

			if (cli_u64(argv[++i], &v) || !v || v > 1u << 20)
				return cli_usage(c, "--max-procs needs a count");
			lim.max_procs = (unsigned)v;
		}
		else if (!strcmp(argv[i], "--timeout") &&
			   cli_has_value(argc, argv, i)) {
			uint64_t v;

			if (cli_u64(argv[++i], &v) || !v)
				return cli_usage(c, "--timeout needs seconds");
			lim.timeout_s = (unsigned)v;
			lim.cpu_s = (unsigned)(2 * v);
		} else if (!strcmp(argv[i], "--cache") &&
			   cli_has_value(argc, argv, i)) {
			cache_opt = argv[++i];
		} else if (!strcmp(argv[i], "--cache-max") &&
			   cli_has_value(argc, argv, i)) {
			if ((rc = cli_size_opt(c, argv[i], argv[i + 1], 4096, KT_REPLAY_MAX_BYTES,
					       &lim.cache_max)))
				return rc;
			i++;
		} else if (!strcmp(argv[i], "--mem") &&
			   cli_has_value(argc, argv, i)) {
			if ((rc = cli_size_opt(c, argv[i], argv[i + 1], 1, KT_REPLAY_MAX_BYTES,
					       &lim.mem_bytes)))
				return rc;
			i++;
		} else if (argv[i][0] == '-' && argv[i][1] && !cli_negnum(argv[i]))
			return cli_bad_option(c, usage, argv[i]);
		else if (plan_dir) {
			if (nspecs == KT_PLAN_MAX_RUNS)
				return cli_usage(c, "--plan takes at most %d runs: make several plans",
						 KT_PLAN_MAX_RUNS);
			specs[nspecs++] = argv[i];
		} else if (!spec)
			spec = argv[i];
		else if (!seqs)
			seqs = argv[i];
		else
			return cli_usage(c, "too many arguments");
	}
	if (!!plan_dir + !!task_dir + !!collect_dir > 1) {
		return cli_usage(c, "--plan, --task and --collect are separate steps: give one");
	}
	if (plan_dir) {
		popt.timeout_s = lim.timeout_s;
		popt.mem_bytes = lim.mem_bytes;
		popt.output_bytes = lim.output_bytes;
		/* the limits given here are every task's */
		popt.task_args = task_args = cli_replay_task_args(argc, argv);
		if (!nspecs || !all)
			rc = cli_usage(c, "--plan DIR needs RUN... and --all-bench, --all-compile or --steps SEL");
		else if (sel.shard_n)
			rc = cli_usage(c, "--shard goes with a replay here, not with --plan (a plan's tasks are the shares)");
		else
			rc = cli_replay_plan(c, plan_dir, specs, nspecs, &sel, &popt,
					     getenv("KTRAJ") && *getenv("KTRAJ") ? getenv("KTRAJ") : NULL);
		free(task_args);
		return rc;
	}
	if (task_dir) {
		if (!spec || seqs || all)
			return cli_usage(c, "--task DIR N: the plan's folder and one task number");
		if (!lim.no_sandbox) {
			char bw[4096], ver[64];

			if (kt_sandbox_find(bw, sizeof(bw), ver, sizeof(ver)))
				return cli_err(c, "bubblewrap (bwrap) is not installed: apt-get install "
					       "bubblewrap, or --no-sandbox to run the step without isolation");
		}
		return cli_replay_task(c, task_dir, spec, &lim, cache_opt);
	}
	if (collect_dir) {
		if (spec || all)
			return cli_usage(c, "--collect DIR takes no RUN or step");
		return cli_replay_collect(c, collect_dir, json);
	}
	if (!spec || (!seqs && !all) || (seqs && all))
		return cli_usage(c, "give RUN and SEQ, or RUN --all-bench, --all-compile or --steps SEL");
	if (sel.shard_n && !all)
		return cli_usage(c, "--shard I/N shares out --all-bench, --all-compile or --steps");
	if (seqs && (cli_u64(seqs, &seq) || !seq))
		return cli_bad_step(c, NULL, seqs);
	if (!lim.no_sandbox) {
		char bw[4096], ver[64];

		if (kt_sandbox_find(bw, sizeof(bw), ver, sizeof(ver)))
			return cli_err(c, "bubblewrap (bwrap) is not installed: apt-get install "
				       "bubblewrap, or --no-sandbox to run the step without isolation");
	}
	if ((rc = cli_open_run(c, spec, &s, run)) ||
	    (seqs && (rc = cli_seq(c, s, run, seqs, &seq))))
		goto out;
	if (all) {
		rc = cli_replay_select(s, run, &sel, &b.seq, &b.n);
		if (rc) {
			rc = cli_store_err(c, s, rc, "listing steps");
			goto out;
		}
		if (!b.n) {
			rc = sel.shard_n ? 0 : cli_err(c, "run %s has no %s steps", spec,
				sel.steps ? "such" : sel.all_bench ? "bench" : "compile");
			goto out;
		}
		snprintf(cache, sizeof(cache), "%s/ktraj-cache.XXXXXX",
			 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if (!cache_opt && !mkdtemp(cache)) {
			rc = cli_err(c, "cannot create a cache directory");
			goto out;
		}
		/* a kill -9 of ktraj must not leave it behind */
		if (!cache_opt && kt_sandbox_janitor(cache, &jan)) {
			rmdir(cache);
			rc = cli_err(c, "cannot start the cleanup of the cache directory");
			goto out;
		}
		/* as root the step runs as nobody and writes the cache */
		if (!cache_opt && !lim.no_sandbox && getuid() == 0 &&
		    chown(cache, kt_sandbox_uid(), (gid_t)-1)) {
			rc = cli_err(c, "cannot hand the cache directory to the sandbox");
			goto out;
		}
	} else {
		collect(&(kt_event){ .seq = seq }, &b);
	}
	for (k = 0; k < b.n; k++) {
		cJSON *p = NULL;

		if (all && c->progress)
			fprintf(stderr, "\rktraj: replay: [%zu/%zu] step %llu ", k + 1, b.n,
				(unsigned long long)b.seq[k]);
		trim_cache(c, cache_opt ? cache_opt : all ? cache : NULL, lim.cache_max);
		rc = replay_one(s, run, b.seq[k], &lim,
				cache_opt ? cache_opt : all ? cache : NULL, &p, err, sizeof(err));
		if (rc) {
			int code = cli_exit_code(rc);

			if (all && c->progress)
				fputc('\n', stderr);
			err_safe(c, err);
			if (!all) {
				rc = code == KT_EXIT_USAGE ? KT_EXIT_FAIL : code;
				goto out;
			}
			/* --all-bench: a step that could not even be bundled
			 * still gets its row, verdict failed */
			p = cJSON_CreateObject();
			cJSON_AddNumberToObject(p, "step", (double)b.seq[k]);
			cJSON_AddStringToObject(p, "verdict", KT_REPLAY_FAILED);
			cJSON_AddStringToObject(p, "reason", err);
			print_row(run, p, json);
			cJSON_Delete(p);
			failed++;
			continue;
		}
		note_cgroup(c, p, &said);
		print_row(run, p, json);
		cJSON_Delete(p);
	}
	if (all && c->progress)
		fputc('\n', stderr);
	trim_cache(c, cache_opt, lim.cache_max);
	rc = failed ? KT_EXIT_FAIL : 0;
out:
	kt_sandbox_janitor_done(&jan);
	free(b.seq);
	kt_store_close(s);
	return rc;
}
