/*
 * replay_plan.c - the parts of `ktraj replay` that go past one machine:
 * choosing steps (--all-bench, --all-compile, --steps SEL, --shard I/N),
 * writing a plan (--plan DIR), running one of its tasks (--task DIR N) and
 * collecting the results (--collect DIR).  The library does the work
 * (replay/plan.c); this file parses and reports.
 */
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "outfmt.h"
#include "replay_plan.h"
#include "../import/import.h"
#include "../replay/replay.h"

struct pick {
	const struct replay_sel *sel;
	uint64_t *seq;
	size_t n, cap;
	int err;
};

/* Whether seq is in SEL: "3,7,10-12". */
static int in_list(const char *list, uint64_t seq)
{
	const char *p = list;

	while (*p) {
		char *end;
		unsigned long long a = strtoull(p, &end, 10), b = a;

		if (*end == '-')
			b = strtoull(end + 1, &end, 10);
		if (seq >= a && seq <= b)
			return 1;
		p = *end == ',' ? end + 1 : end;
	}
	return 0;
}

int cli_replay_sel_check(const char *list)
{
	const char *p = list;

	if (!list || !*list)
		return -1;
	while (*p) {
		char *end;
		unsigned long long a, b;

		if (*p < '0' || *p > '9')
			return -1;
		a = strtoull(p, &end, 10);
		b = a;
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				return -1;
			b = strtoull(end + 1, &end, 10);
		}
		if (!a || b < a || (*end && *end != ',') || (*end == ',' && !end[1]))
			return -1;
		p = *end ? end + 1 : end;
	}
	return 0;
}

static int pick(const kt_event *ev, void *arg)
{
	struct pick *p = arg;
	const struct replay_sel *s = p->sel;

	if (!((s->all_bench && ev->kind == KT_KIND_BENCH) ||
	      (s->all_compile && ev->kind == KT_KIND_COMPILE) ||
	      (s->steps && in_list(s->steps, ev->seq))))
		return 0;
	if (KT_GROW(p->seq, p->cap, p->n + 1)) {
		p->err = KT_ENOMEM;
		return 1;
	}
	p->seq[p->n++] = ev->seq;
	return 0;
}

int cli_replay_select(kt_store *s, const char *run, const struct replay_sel *sel,
		      uint64_t **seqs, size_t *n)
{
	struct pick p = { .sel = sel };
	size_t i, k = 0;
	int rc;

	*seqs = NULL;
	*n = 0;
	/* every kind when --steps names seqs; the kind's own scan otherwise */
	rc = kt_event_foreach_head(s, run, 1, 0,
				   sel->steps ? 0 : sel->all_bench && !sel->all_compile ?
				   KT_KIND_BENCH : !sel->all_bench ? KT_KIND_COMPILE : 0,
				   pick, &p);
	if (!rc)
		rc = p.err;
	if (rc) {
		free(p.seq);
		return rc;
	}
	/* share I of N: the steps at positions I, I+N, ... of this list, so
	 * the N shares are disjoint and cover it (the list is in seq order,
	 * the same on every worker) */
	for (i = 0; i < p.n; i++)
		if (!sel->shard_n || i % sel->shard_n == sel->shard_i)
			p.seq[k++] = p.seq[i];
	*seqs = p.seq;
	*n = k;
	return 0;
}

int cli_replay_shard_parse(const char *v, struct replay_sel *sel)
{
	char *end;
	unsigned long i, n;

	i = strtoul(v, &end, 10);
	if (end == v || *end != '/' || !end[1])
		return -1;
	n = strtoul(end + 1, &end, 10);
	if (*end || !n || n > UINT_MAX || i >= n)
		return -1;
	sel->shard_i = (unsigned)i;
	sel->shard_n = (unsigned)n;
	return 0;
}

char *cli_replay_task_args(int argc, char **argv)
{
	static const char *const flags[] = { "--allow-network", "--no-sandbox", "--gpu", NULL };
	static const char *const valued[] = { "--timeout", "--mem", "--max-output",
		"--max-procs", "--cache", "--cache-max", NULL };
	struct kt_buf b = { 0 };
	int i, k;

	for (i = 1; i < argc; i++) {
		for (k = 0; flags[k]; k++)
			if (!strcmp(argv[i], flags[k]))
				kt_buf_printf(&b, "%s%s", b.len ? " " : "", flags[k]);
		for (k = 0; valued[k]; k++)
			if (!strcmp(argv[i], valued[k]) && i + 1 < argc) {
				/* the value as given, one sh word */
				kt_buf_printf(&b, "%s%s ", b.len ? " " : "", valued[k]);
				kt_buf_sh_quote(&b, argv[++i]);
				break;
			}
	}
	return b.len ? kt_buf_take(&b) : (kt_buf_free(&b), NULL);
}

struct skips {
	const struct cli *c;
	size_t n;
};

/* A chosen step left out of the plan: said as `replay RUN --all-bench`
 * says it, on its own line. */
static void plan_skipped(void *ctx, const char *run, uint64_t seq, const char *why)
{
	struct skips *k = ctx;

	(void)seq; /* why names the step */
	fprintf(stderr, "ktraj: %s: run %.12s: %s: not planned\n", k->c->cmd, run, why);
	k->n++;
}

/* Append text and then dir + file as one sh word, quoted only when it
 * needs it (a space, a quote, $...), so the hint can be pasted into a
 * shell.  -1 (nothing appended) when file is named but dir + file does
 * not exist: that script was not written. */
static int hint(struct kt_buf *b, const char *text, const char *dir, const char *file)
{
	static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				    "0123456789_./:@%+=,-";
	char w[4300];

	snprintf(w, sizeof(w), "%s%s", dir, file);
	if (*file && access(w, F_OK))
		return -1;
	kt_buf_puts(b, text);
	if (*w && !w[strspn(w, plain)])
		kt_buf_puts(b, w);
	else
		kt_buf_sh_quote(b, w);
	return 0;
}

int cli_replay_plan(struct cli *c, const char *dir, char **specs, int nspecs,
		    const struct replay_sel *sel, const kt_replay_plan_opts *o,
		    const char *self)
{
	struct skips sk = { c, 0 };
	kt_replay_plan_opts po = *o;
	kt_replay_plan_step *st = NULL;
	size_t n = 0, cap = 0, k, m;
	kt_store *s = NULL;
	char err[1024] = "", run[KT_RUN_ID_HEX + 1], exe[4096];
	uint64_t *seqs = NULL;
	int i, rc;

	/* a plan names runs: a missing store is "no store", not made */
	if ((rc = cli_open(c, CLI_OPEN_EXISTING, &s)))
		return rc;
	for (i = 0; i < nspecs; i++) {
		if ((rc = cli_run(c, s, specs[i], run)))
			goto out;
		if ((rc = cli_replay_select(s, run, sel, &seqs, &m))) {
			rc = cli_store_err(c, s, rc, "listing steps");
			goto out;
		}
		for (k = 0; k < m; k++) {
			if (KT_GROW(st, cap, n + 1)) {
				rc = cli_err(c, "out of memory");
				goto out;
			}
			memcpy(st[n].run, run, sizeof(run));
			st[n++].seq = seqs[k];
		}
		free(seqs);
		seqs = NULL;
	}
	if (!n) {
		rc = cli_err(c, "no step of %s is selected: nothing to plan", nspecs > 1 ? "these runs" : specs[0]);
		goto out;
	}
	if (!self) {
		/* the scripts call this very binary, by its absolute path */
		ssize_t l = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (l <= 0) {
			rc = cli_err(c, "cannot tell where ktraj is: set KTRAJ to its path");
			goto out;
		}
		exe[l] = 0;
		self = exe;
	}
	po.skipped = plan_skipped;
	po.skipped_ctx = &sk;
	rc = kt_replay_plan_write(s, st, n, dir, self, &po, err, sizeof(err));
	if (rc) {
		rc = cli_err(c, "%s", err[0] ? err : kt_strerror(rc));
		goto out;
	}
	{
		struct kt_buf h = { 0 };
		char su[4300];

		snprintf(su, sizeof(su), "%s/submit.sh", dir);
		kt_buf_printf(&h, "planned %zu steps in %s:", n - sk.n, dir);
		if (!access(su, F_OK)) {
			hint(&h, " `sh ", dir, "/submit.sh");
			kt_buf_puts(&h, "` (every array job: more tasks than one array may hold);");
		} else {
			if (!hint(&h, " `sbatch ", dir, "/slurm.sbatch"))
				kt_buf_puts(&h, "` (CPU steps);");
			if (!hint(&h, " `sbatch ", dir, "/slurm-gpu.sbatch"))
				kt_buf_puts(&h, "` (GPU steps);");
		}
		hint(&h, " or `", dir, "/local.sh");
		hint(&h, "` here; then `ktraj replay --collect ", dir, "");
		kt_buf_puts(&h, "`\n");
		/* the folder is the user's argument: its control characters
		 * are shown, not sent to the terminal */
		if (h.s)
			cli_put_safe(stdout, h.s, h.len);
		kt_buf_free(&h);
		/* as `replay --all-bench`: 1 when a chosen step could not
		 * be exported (the plan holds the others) */
		rc = sk.n ? KT_EXIT_FAIL : 0;
	}
out:
	free(seqs);
	free(st);
	kt_store_close(s);
	return rc;
}

/* err comes from bundle member names and plan files: printed the
 * terminal-safe way */
static int safe_err(struct cli *c, const char *msg)
{
	fprintf(stderr, "ktraj: %s: ", c->cmd);
	cli_put_safe(stderr, msg, strlen(msg));
	fputc('\n', stderr);
	return KT_EXIT_FAIL;
}

int cli_replay_task(struct cli *c, const char *dir, const char *task,
		    const kt_replay_limits *lim, const char *cache)
{
	char err[1024] = "";
	uint64_t t;
	int rc;

	if (cli_u64(task, &t) || t > UINT_MAX)
		return cli_usage(c, "--task DIR N: N is a task number, not '%s'", task);
	rc = kt_replay_task_run(dir, (unsigned)t, lim, cache, err, sizeof(err));
	if (rc) {
		safe_err(c, err[0] ? err : kt_strerror(rc));
		return cli_exit_code(rc) == KT_EXIT_USAGE ? KT_EXIT_FAIL : cli_exit_code(rc);
	}
	return 0;
}

struct recorded {
	char sha[KT_HASH_HEX + 1];
	char vbuf[32];
	char *reason;
	size_t rlen;
	int found;
};

static int find_recorded(const kt_event *ev, void *arg)
{
	struct recorded *r = arg;
	cJSON *p = cJSON_ParseWithLength(ev->payload, ev->payload_len);
	const char *sha = cJSON_GetStringValue(cJSON_GetObjectItem(p, "result_sha"));

	if (sha && !strcmp(sha, r->sha)) {
		const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(p, "verdict"));
		const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(p, "reason"));

		snprintf(r->vbuf, sizeof(r->vbuf), "%s", v ? v : "?");
		snprintf(r->reason, r->rlen, "%s", why ? why : "");
		r->found = 1;
	}
	cJSON_Delete(p);
	return r->found;
}

static void on_warn(const char *line, void *arg)
{
	safe_err(arg, line);
}

/* A task's result file as text: a regular file of at most RESULT_MAX bytes,
 * never through a link (a plan folder is data: its files are read, not
 * followed).  NULL when absent or not such a file. */
#define RESULT_MAX (8u << 20)
static char *read_result(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *buf = NULL;
	ssize_t n = 0, r;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > RESULT_MAX ||
	    !(buf = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return NULL;
	}
	while (n < st.st_size && (r = read(fd, buf + n, (size_t)(st.st_size - n))) > 0)
		n += r;
	close(fd);
	buf[n] = 0;
	return buf;
}

/* Whether result (a task's result.json) is about the task's own step: a
 * step writes its result itself and could name another run's. */
static int result_is_task(const cJSON *res, const cJSON *t)
{
	const cJSON *m = cJSON_GetObjectItem(res, "manifest");
	const char *run = cJSON_GetStringValue(cJSON_GetObjectItem(m, "run"));
	const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(m, "kind"));
	const char *tkind = cJSON_GetStringValue(cJSON_GetObjectItem(t, "kind"));
	const cJSON *seq = cJSON_GetObjectItem(m, "seq");

	return run && cJSON_IsNumber(seq) &&
	       !strcmp(run, cJSON_GetStringValue(cJSON_GetObjectItem(t, "run"))) &&
	       seq->valuedouble == cJSON_GetObjectItem(t, "step")->valuedouble &&
	       (!tkind || (kind && !strcmp(kind, tkind)));
}

int cli_replay_collect(struct cli *c, const char *dir, int json)
{
	static const char *const verdicts[] = { KT_REPLAY_REPRODUCED, KT_REPLAY_FASTER,
		KT_REPLAY_SLOWER, KT_REPLAY_DIVERGED, KT_REPLAY_FAILED };
	size_t count[5] = { 0 }, missing = 0, nres = 0, ntask;
	char err[1024] = "", path[4300], reason[2048];
	char **paths = NULL;
	const cJSON *t, *tasks;
	cJSON *plan = NULL, **res = NULL;
	kt_store *s = NULL;
	kt_import_opts io = { .format = "replay_result", .on_warn = on_warn };
	int rc, i;

	io.arg = c;
	if ((rc = kt_replay_plan_load(dir, &plan, err, sizeof(err)))) {
		safe_err(c, err);
		return cli_exit_code(rc) == KT_EXIT_USAGE ? KT_EXIT_FAIL : cli_exit_code(rc);
	}
	tasks = cJSON_GetObjectItem(plan, "tasks");
	ntask = (size_t)cJSON_GetArraySize(tasks);
	paths = calloc(ntask + 1, sizeof(*paths));
	res = calloc(ntask + 1, sizeof(*res));
	if (!paths || !res) {
		rc = cli_err(c, "out of memory");
		goto out;
	}
	/* only results about their own task's step are recorded */
	i = 0;
	cJSON_ArrayForEach(t, tasks) {
		char *text;

		snprintf(path, sizeof(path), "%s/results/%06d.json", dir, i);
		if ((text = read_result(path))) {
			res[i] = cJSON_Parse(text);
			free(text);
		}
		if (res[i] && result_is_task(res[i], t) &&
		    !(paths[nres++] = kt_xstrdup(path))) {
			rc = cli_err(c, "out of memory");
			goto out;
		}
		i++;
	}
	if ((rc = cli_open(c, 0, &s)))
		goto out;
	/* results already recorded add nothing (their result_sha is there) */
	if (nres && (rc = kt_import_paths(s, paths, (int)nres, &io)) &&
	    rc != KT_ENOTFOUND) {
		rc = cli_store_err(c, s, rc, "recording the results");
		goto out;
	}
	rc = 0;
	i = 0;
	cJSON_ArrayForEach(t, tasks) {
		const char *verdict = "missing";
		struct recorded r = { .reason = reason, .rlen = sizeof(reason) };
		struct stat ls;
		const char *run = cJSON_GetStringValue(cJSON_GetObjectItem(t, "run"));
		int v, id = i++;
		cJSON *row;
		char *text;

		if (res[id] && !result_is_task(res[id], t)) {
			verdict = "rejected";
			snprintf(reason, sizeof(reason), "the result is not about this task's step "
				 "(its manifest names another run or step): not recorded");
			missing++;
		} else if (res[id]) {
			/* the verdict is the one recorded: the replay event
			 * whose result_sha is this result's */
			char *canon = cJSON_PrintUnformatted(res[id]);
			unsigned char h[KT_HASH_LEN];

			if (canon) {
				kt_sha256(canon, strlen(canon), h);
				kt_hex(h, KT_HASH_LEN, r.sha);
				free(canon);
			}
			snprintf(reason, sizeof(reason), "the result is in no replay event of run %s", run);
			verdict = "not recorded (see the warning above)";
			if (kt_event_foreach_body(s, run, 1, 0, KT_KIND_REPLAY, find_recorded, &r) < 0)
				verdict = "not recorded (the run cannot be read)";
			if (r.found)
				verdict = r.vbuf;
			else
				missing++;
		} else if (snprintf(path, sizeof(path), "%s/results/%06d.json", dir, id) > 0 &&
			   !lstat(path, &ls)) {
			/* there, but not what a task writes: saying "has not
			 * run" would send the user to rerun it */
			verdict = "rejected";
			snprintf(reason, sizeof(reason), "results/%06d.json is not a result (a link, "
				 "not a regular file, over %u MiB, or not JSON): not recorded",
				 id, RESULT_MAX >> 20);
			missing++;
		} else {
			snprintf(path, sizeof(path), "%s/results/%06d.err", dir, id);
			text = read_result(path);
			snprintf(reason, sizeof(reason), "%s", text ? text : "the task has not run (no result)");
			reason[strcspn(reason, "\n")] = 0;
			free(text);
			missing++;
		}
		for (v = 0; v < 5; v++)
			if (!strcmp(verdict, verdicts[v]))
				count[v]++;
		if (json) {
			row = cJSON_CreateObject();
			cJSON_AddNumberToObject(row, "task", id);
			cJSON_AddStringToObject(row, "run", run);
			cJSON_AddItemToObject(row, "step", cJSON_Duplicate(cJSON_GetObjectItem(t, "step"), 1));
			cJSON_AddStringToObject(row, "verdict", verdict);
			cJSON_AddStringToObject(row, "reason", reason);
			cli_put_json(row); /* frees row */
		} else if (strcmp(verdict, KT_REPLAY_REPRODUCED)) {
			printf("task %d (run %.8s step %d): ", id, run,
			       cJSON_GetObjectItem(t, "step")->valueint);
			cli_put_safe(stdout, verdict, strlen(verdict));
			fputs(" - ", stdout);
			cli_put_safe(stdout, reason, strlen(reason));
			putchar('\n');
		}
	}
	if (!json)
		printf("%zu tasks: %zu reproduced, %zu faster, %zu slower, %zu diverged, "
		       "%zu failed, %zu missing\n", ntask, count[0],
		       count[1], count[2], count[3], count[4], missing);
	rc = missing || count[4] ? KT_EXIT_FAIL : 0;
out:
	for (i = 0; paths && paths[i]; i++)
		free(paths[i]);
	free(paths);
	for (i = 0; res && (size_t)i < ntask; i++)
		cJSON_Delete(res[i]);
	free(res);
	cJSON_Delete(plan);
	kt_store_close(s);
	return rc;
}
