/*
 * plan.c - replay plans: many steps replayed by an engine the user already
 * has (a Slurm array job, xargs -P on one box, one command per worker of
 * Kubernetes indexed Jobs or Ray), their results collected back (replay.h
 * "plans").
 *
 * A plan is a folder:
 *   plan.json            {"ktraj_plan": 1, "tasks": [{"task", "run",
 *                         "step", "kind", "bundle", "gpu", "expected"}]}
 *   bundles/<task>.tar.gz   one replay bundle per step (replay.h layout)
 *   results/<task>.json     written by the task: the bundle's result.json
 *                           (format "replay_result", read by `ktraj import`)
 *   results/<task>.err      why a task produced no result (when it did not)
 *   slurm.sbatch, slurm-gpu.sbatch  array jobs over the CPU / GPU tasks
 *   tasks-cpu.txt, tasks-gpu.txt    the task numbers each array runs
 *   local.sh             every task on this machine through xargs -P
 * Every task runs `ktraj replay --task DIR N`: the bundle in the sandbox
 * (sandbox.h) under the limits given there, never without it unless that
 * command says --no-sandbox.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay_int.h"
#include "sandbox.h"

/* Write text to path through path.tmp and a rename.  The temp file is
 * created new (O_EXCL) and never through a link (O_NOFOLLOW): a link
 * planted under that name (the folder is the caller's, but be sure) is
 * removed, not followed. */
static int put_file(const char *path, const char *text, int mode, char *err,
		    size_t errlen)
{
	char tmp[4200];
	size_t n = strlen(text), off = 0;
	int fd, ok = 1;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		return KT_EIO;
	}
	while (ok && off < n) {
		ssize_t w = write(fd, text + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		ok = w > 0;
		off += ok ? (size_t)w : 0;
	}
	ok = ok && !fchmod(fd, (mode_t)mode) && !fsync(fd);
	ok = !close(fd) && ok && !rename(tmp, path);
	if (!ok) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		unlink(tmp);
		return KT_EIO;
	}
	return 0;
}

static int mkdir_in(const char *dir, const char *sub, char *err, size_t errlen)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	if (mkdir(path, 0777) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
		return KT_EIO;
	}
	return 0;
}

static int rm_entry(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* Slurm refuses an array index at or past MaxArraySize, 1001 by default
 * (slurm.conf(5)): a plan's array jobs hold at most this many tasks
 * unless --array-size says otherwise. */
#define KT_PLAN_ARRAY_SIZE 1000

/* What ktraj and bubblewrap use beside the step in a task's job. */
#define KT_PLAN_JOB_SLACK (256ull << 20)

/* The memory a task's job asks for, in MiB (0: none): the step's cgroup
 * limit, --mem + --max-output (sandbox.c), the bundle unpacked into host
 * memory before the step starts, up to half of --max-output
 * (kt_replay_bundle_cap), and the slack.  Without --mem a Slurm job gets
 * the partition's DefMemPerCPU (often a few GB), and the job's own cgroup
 * would kill the task before the step's limit said why. */
static uint64_t job_mib(const kt_replay_plan_opts *o)
{
	uint64_t out = o->output_bytes ? o->output_bytes : o->mem_bytes / 2;

	if (!o->mem_bytes)
		return 0;
	return (o->mem_bytes + out + out / 2 + KT_PLAN_JOB_SLACK + (1u << 20) - 1) >> 20;
}

/* sbatch's "--array=0-<count - 1>[%max]" for count tasks (count >= 1),
 * max of them at once (0: no cap). */
static void put_array(struct kt_buf *b, size_t count, unsigned max)
{
	kt_buf_printf(b, "--array=0-%zu", count - 1);
	if (max)
		kt_buf_printf(b, "%%%u", max);
}

/*
 * Append dir followed by pattern as one argument of an #SBATCH line.
 * sbatch reads its directives with its own rules, not sh's (the directive
 * reader of Slurm's src/sbatch/opt.c, and sbatch(1) "filename pattern"):
 * an argument ends at unquoted white space, quotes of either kind are
 * taken away, a backslash escapes the next character and an unquoted #
 * starts a comment.  In double quotes with " escaped, only % is left: it
 * opens a replacement symbol (pattern's %A, %a) and %% is a plain %.  A
 * line break (the directive ends there) or a backslash that reaches Slurm
 * (then it expands no symbol and drops the backslashes) has no spelling:
 * KT_EINVAL.
 */
static int sbatch_path(struct kt_buf *b, const char *dir, const char *pattern)
{
	const char *p;

	if (strpbrk(dir, "\n\r\\"))
		return KT_EINVAL;
	kt_buf_putc(b, '"');
	for (p = dir; *p; p++) {
		if (*p == '"' || *p == '%')
			kt_buf_putc(b, *p == '"' ? '\\' : '%');
		kt_buf_putc(b, *p);
	}
	kt_buf_puts(b, pattern);
	return kt_buf_putc(b, '"');
}

/* submit.sh: its comment and the function each array job is submitted
 * with.  A plan is submitted whole or not at all: when sbatch refuses one
 * array job (no job id: a limit, a bad option, the controller down), the
 * ones submitted before it are cancelled, since a rerun of submit.sh
 * would submit them twice.  With --wait sbatch's status is its job's: a
 * job id came back, so nothing is cancelled and the rest still go. */
#define SUBMIT_HEAD \
	"#!/bin/sh\n# ktraj replay plan: every array job of the plan (Slurm refuses arrays\n" \
	"# past MaxArraySize); sbatch options may be given, e.g. sh submit.sh --wait.\n" \
	"# When sbatch fails, the array jobs submitted before are cancelled (scancel).\n" \
	"set -eu\n"
#define SUBMIT_FN \
	"ids= cl= failed=0\n" \
	"submit() {\n" \
	"\tst=0\n" \
	"\tout=$(sbatch --parsable \"$@\") || st=$?\n" \
	"\tid=${out%%;*}\n" \
	"\tcase $id in\n" \
	"\t''|*[!0-9]*)\n" \
	"\t\techo \"submit.sh: sbatch failed (status $st)${ids:+: cancelling the array jobs submitted before it:$ids}\" >&2\n" \
	"\t\t[ -z \"$ids\" ] || scancel ${cl:+-M \"$cl\"} $ids ||\n" \
	"\t\t\techo \"submit.sh: scancel failed: cancel$ids yourself\" >&2\n" \
	"\t\texit 1 ;;\n" \
	"\tesac\n" \
	"\tcase $out in *\\;*) cl=${out#*;} ;; esac\n" \
	"\tids=\"$ids $id\" prev=$id\n" \
	"\techo \"submitted array job $id\"\n" \
	"\tif [ \"$st\" -ne 0 ]; then\n" \
	"\t\techo \"submit.sh: array job $id ended with status $st\" >&2\n" \
	"\t\tfailed=1\n" \
	"\tfi\n" \
	"}\n"

static int write_scripts(const char *dir, const char *ktraj, const cJSON *tasks,
			 const kt_replay_plan_opts *o, char *err, size_t errlen)
{
	struct kt_buf list[2], b, sub;

	memset(list, 0, sizeof(list));
	memset(&b, 0, sizeof(b));
	memset(&sub, 0, sizeof(sub));
	size_t n[2] = { 0, 0 }, off,
	       size = o->array_size ? o->array_size : KT_PLAN_ARRAY_SIZE;
	const cJSON *t;
	char path[PATH_MAX + 64], *text;
	int g, rc = 0;

	cJSON_ArrayForEach(t, tasks) {
		g = cJSON_IsTrue(cJSON_GetObjectItem(t, "gpu"));
		kt_buf_printf(&list[g], "%d\n", cJSON_GetObjectItem(t, "task")->valueint);
		n[g]++;
	}
	for (g = 0; g < 2 && !rc; g++) {
		snprintf(path, sizeof(path), "%s/tasks-%s.txt", dir, g ? "gpu" : "cpu");
		text = kt_buf_take(&list[g]);
		rc = text ? put_file(path, text, 0644, err, errlen) : KT_ENOMEM;
		free(text);
		if (rc || !n[g])
			continue;
		/* an array task reads its task number from the list: index i
		 * is line i + 1 */
		kt_buf_puts(&b, "#!/bin/sh\n# ktraj replay plan: one array task per step (");
		kt_buf_puts(&b, g ? "GPU" : "CPU");
		kt_buf_printf(&b, " steps). Submit: sbatch %s\n", g ? "slurm-gpu.sbatch" : "slurm.sbatch");
		kt_buf_puts(&b, "#SBATCH --job-name=ktraj-replay\n");
		kt_buf_puts(&b, "#SBATCH ");
		put_array(&b, n[g] < size ? n[g] : size, o->array_max);
		kt_buf_puts(&b, "\n#SBATCH --ntasks=1\n");
		kt_buf_printf(&b, "#SBATCH --cpus-per-task=%u\n", o->cpus_per_task ? o->cpus_per_task : 1);
		kt_buf_printf(&b, "#SBATCH --time=%u\n", (o->timeout_s ? o->timeout_s : 600) / 60 + 5);
		if (job_mib(o))
			kt_buf_printf(&b, "#SBATCH --mem=%lluM\n", (unsigned long long)job_mib(o));
		if (g)
			kt_buf_puts(&b, "#SBATCH --gres=gpu:1\n");
		kt_buf_puts(&b, "#SBATCH --output=");
		if (sbatch_path(&b, dir, "/logs/%A_%a.out")) {
			/* the path is not echoed: its line break would
			 * split the one-line message */
			snprintf(err, errlen, "the plan folder's path has a line break or "
				 "a backslash, which a Slurm script cannot name");
			rc = KT_EINVAL;
			break;
		}
		kt_buf_putc(&b, '\n');
		kt_buf_puts(&b, "set -eu\nPLAN=");
		kt_buf_sh_quote(&b, dir);
		kt_buf_puts(&b, "\nKTRAJ=${KTRAJ:-");
		kt_buf_sh_quote(&b, ktraj);
		/* submit.sh starts the array jobs past the first with the
		 * offset of their first task */
		kt_buf_printf(&b, "}\nTASK=$(sed -n \"$((SLURM_ARRAY_TASK_ID + ${KTRAJ_TASK_OFFSET:-0} + 1))p\" \"$PLAN/tasks-%s.txt\")\n",
			    g ? "gpu" : "cpu");
		kt_buf_printf(&b, "exec \"$KTRAJ\" replay --task \"$PLAN\" \"$TASK\"%s%s\n",
			      o->task_args ? " " : "", o->task_args ? o->task_args : "");
		/* once one group is split, submit.sh is the plan's one
		 * entry point: it submits the other group too */
		for (off = 0; (n[0] > size || n[1] > size) && off < n[g]; off += size) {
			if (!sub.len) {
				kt_buf_puts(&sub, SUBMIT_HEAD "PLAN=");
				kt_buf_sh_quote(&sub, dir);
				kt_buf_puts(&sub, "\n" SUBMIT_FN);
			}
			/* %M caps one array job only: under --array-max each
			 * array of a group waits for the one before it, so
			 * the cap holds for the group as a whole */
			if (!off)
				kt_buf_puts(&sub, "prev=\n");
			kt_buf_printf(&sub, "submit \"$@\" %s",
				      o->array_max ? "${prev:+--dependency=afterany:$prev} " : "");
			put_array(&sub, n[g] - off < size ? n[g] - off : size, o->array_max);
			kt_buf_printf(&sub, " --export=ALL,KTRAJ_TASK_OFFSET=%zu \"$PLAN/%s\"\n", off,
				      g ? "slurm-gpu.sbatch" : "slurm.sbatch");
		}
		snprintf(path, sizeof(path), "%s/%s", dir, g ? "slurm-gpu.sbatch" : "slurm.sbatch");
		text = kt_buf_take(&b);
		rc = text ? put_file(path, text, 0755, err, errlen) : KT_ENOMEM;
		free(text);
	}
	if (!rc && sub.len) {
		kt_buf_puts(&sub, "exit $failed\n");
		snprintf(path, sizeof(path), "%s/submit.sh", dir);
		text = kt_buf_take(&sub);
		rc = text ? put_file(path, text, 0755, err, errlen) : KT_ENOMEM;
		free(text);
	}
	if (!rc) {
		kt_buf_puts(&b, "#!/bin/sh\n# ktraj replay plan: every task on this machine, JOBS at once\n"
			       "# (default: the number of CPUs). GPU tasks share the visible GPUs.\nset -eu\nPLAN=");
		kt_buf_sh_quote(&b, dir);
		kt_buf_puts(&b, "\nKTRAJ=${KTRAJ:-");
		kt_buf_sh_quote(&b, ktraj);
		kt_buf_printf(&b, "}\ncat \"$PLAN/tasks-cpu.txt\" \"$PLAN/tasks-gpu.txt\" |\n"
			      "\txargs -P \"${JOBS:-$(nproc)}\" -I{} \"$KTRAJ\" replay --task \"$PLAN\" {}%s%s\n",
			      o->task_args ? " " : "", o->task_args ? o->task_args : "");
		snprintf(path, sizeof(path), "%s/local.sh", dir);
		text = kt_buf_take(&b);
		rc = text ? put_file(path, text, 0755, err, errlen) : KT_ENOMEM;
		free(text);
	}
	kt_buf_free(&list[0]);
	kt_buf_free(&list[1]);
	kt_buf_free(&b);
	kt_buf_free(&sub);
	return rc;
}

/* The manifest of the bundle at path and whether its step needs the GPU. */
static int bundle_manifest(const char *path, cJSON **manifest, int *gpu,
			   char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), tfd = -1, rc;
	char *mtext = NULL;

	*manifest = NULL;
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return KT_EIO;
	}
	/* a bundle ktraj has just written: its size is the store's */
	rc = kt_sandbox_plain_tar(fd, KT_REPLAY_BUNDLE_DIR "/manifest.json", 0, &tfd,
				  &mtext, err, errlen);
	close(fd);
	if (tfd >= 0)
		close(tfd);
	if (!rc && !(*manifest = mtext ? cJSON_Parse(mtext) : NULL)) {
		snprintf(err, errlen, "%s: no readable manifest", path);
		rc = KT_ECORRUPT;
	}
	if (!rc)
		/* what the step runs, not whether this machine has a GPU:
		 * plans are made on login nodes for GPU nodes */
		*gpu = kt_sandbox_step_gpu(*manifest);
	free(mtext);
	return rc;
}

int kt_replay_plan_write(kt_store *s, const kt_replay_plan_step *steps,
			 size_t n, const char *dir, const char *ktraj,
			 const kt_replay_plan_opts *o, char *err, size_t errlen)
{
	cJSON *plan = cJSON_CreateObject(), *tasks, *skipped = NULL;
	size_t k = 0; /* tasks so far: they are numbered without gaps */
	int made = 0;
	char path[4096], rel[64], abs[PATH_MAX], *text = NULL;
	size_t i;
	int rc;

	err[0] = 0;
	if (!plan || !(tasks = cJSON_AddArrayToObject(plan, "tasks"))) {
		cJSON_Delete(plan);
		return KT_ENOMEM;
	}
	cJSON_AddNumberToObject(plan, "ktraj_plan", 1);
	/* a folder of the caller's making: in one that exists, somebody else
	 * may have planted links under the names written below, or may swap
	 * the scripts before they run */
	if (!(made = !mkdir(dir, 0755))) {
		int e = errno;

		if (e == EEXIST)
			snprintf(err, errlen, "%s exists: a plan goes into a new folder", dir);
		else
			snprintf(err, errlen, "cannot create %s: %s", dir, strerror(e));
		rc = e == EEXIST ? KT_EEXIST : KT_EIO;
		goto out;
	}
	if ((rc = mkdir_in(dir, "bundles", err, errlen)) ||
	    (rc = mkdir_in(dir, "results", err, errlen)) ||
	    (rc = mkdir_in(dir, "logs", err, errlen)))
		goto out;
	for (i = 0; i < n; i++) {
		cJSON *t, *m = NULL;
		int gpu = 0;

		snprintf(rel, sizeof(rel), "bundles/%06zu.tar.gz", k);
		snprintf(path, sizeof(path), "%s/%s", dir, rel);
		rc = kt_replay_bundle_write(s, steps[i].run, steps[i].seq, path,
					    err, errlen);
		if (rc == KT_EINVAL && o->skipped) {
			/* nothing to replay in this step: the others are
			 * still worth a plan */
			if (!skipped && !(skipped = cJSON_AddArrayToObject(plan, "skipped"))) {
				rc = KT_ENOMEM;
				goto out;
			}
			t = cJSON_CreateObject();
			cJSON_AddItemToArray(skipped, t);
			cJSON_AddStringToObject(t, "run", steps[i].run);
			cJSON_AddNumberToObject(t, "step", (double)steps[i].seq);
			cJSON_AddStringToObject(t, "reason", err);
			o->skipped(o->skipped_ctx, steps[i].run, steps[i].seq, err);
			err[0] = 0;
			continue;
		}
		if (!rc)
			rc = bundle_manifest(path, &m, &gpu, err, errlen);
		if (rc) {
			char e[512];

			snprintf(e, sizeof(e), "%s", err);
			snprintf(err, errlen, "run %s step %llu: %s", steps[i].run,
				 (unsigned long long)steps[i].seq, e);
			cJSON_Delete(m);
			goto out;
		}
		t = cJSON_CreateObject();
		cJSON_AddItemToArray(tasks, t);
		cJSON_AddNumberToObject(t, "task", (double)k++);
		cJSON_AddStringToObject(t, "run", steps[i].run);
		cJSON_AddNumberToObject(t, "step", (double)steps[i].seq);
		cJSON_AddItemToObject(t, "kind", cJSON_Duplicate(cJSON_GetObjectItem(m, "kind"), 1));
		cJSON_AddStringToObject(t, "bundle", rel);
		cJSON_AddBoolToObject(t, "gpu", gpu);
		cJSON_AddItemToObject(t, "expected",
				      cJSON_Duplicate(cJSON_GetObjectItem(m, "expect"), 1));
		cJSON_Delete(m);
	}
	if (!k) {
		snprintf(err, errlen, "none of the %zu chosen steps has anything to replay", n);
		rc = KT_ENOTFOUND;
		goto out;
	}
	/* the scripts run wherever the engine starts them: absolute paths */
	if (!realpath(dir, abs)) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		rc = KT_EIO;
		goto out;
	}
	if ((rc = write_scripts(abs, ktraj, tasks, o, err, errlen)))
		goto out;
	/* plan.json last: a folder without it is no plan */
	snprintf(path, sizeof(path), "%s/plan.json", dir);
	if (!(text = cJSON_Print(plan))) {
		rc = KT_ENOMEM;
		goto out;
	}
	rc = put_file(path, text, 0644, err, errlen);
out:
	free(text);
	cJSON_Delete(plan);
	/* the folder this call made goes with its failure, so the same
	 * command can be given again (an existing folder is refused) */
	if (rc && rc != KT_EEXIST && made)
		(void)nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return rc;
}

int kt_replay_plan_load(const char *dir, cJSON **plan, char *err, size_t errlen)
{
	char path[4096];
	struct kt_buf b = { 0 };
	size_t k;
	int rc;
	const cJSON *t, *tasks;

	*plan = NULL;
	snprintf(path, sizeof(path), "%s/plan.json", dir);
	if ((rc = kt_buf_read_file(&b, path))) {
		if (rc != KT_ENOMEM)
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		kt_buf_free(&b);
		return rc;
	}
	*plan = b.s ? cJSON_ParseWithLength(b.s, b.len) : NULL;
	kt_buf_free(&b);
	tasks = cJSON_GetObjectItem(*plan, "tasks");
	if (!cJSON_IsArray(tasks))
		goto bad;
	k = 0;
	cJSON_ArrayForEach(t, tasks) {
		const cJSON *id = cJSON_GetObjectItem(t, "task");
		const char *bundle = cJSON_GetStringValue(cJSON_GetObjectItem(t, "bundle"));
		const char *run = cJSON_GetStringValue(cJSON_GetObjectItem(t, "run"));

		/* the task's files are named from these: nothing that leaves
		 * the plan's folder */
		if (!cJSON_IsNumber(id) || id->valuedouble != (double)k++ || !bundle ||
		    strncmp(bundle, "bundles/", 8) || strstr(bundle, "..") ||
		    strchr(bundle + 8, '/') || !run || strlen(run) != KT_RUN_ID_HEX ||
		    strspn(run, "0123456789abcdef") != KT_RUN_ID_HEX ||
		    !cJSON_IsNumber(cJSON_GetObjectItem(t, "step")) ||
		    cJSON_GetObjectItem(t, "step")->valuedouble < 1)
			goto bad;
	}
	return 0;
bad:
	snprintf(err, errlen, "%s: not a ktraj replay plan", path);
	cJSON_Delete(*plan);
	*plan = NULL;
	return KT_EPARSE;
}

int kt_replay_task_run(const char *dir, unsigned task, const kt_replay_limits *lim,
		       const char *cache_dir, char *err, size_t errlen)
{
	cJSON *plan = NULL, *manifest = NULL;
	const cJSON *t;
	kt_sandbox_spec sp = { 0 };
	kt_sandbox_result sr = { 0 };
	char path[4096], why[1024] = "", oom[256] = "";
	char *mtext = NULL, *text = NULL;
	cJSON *res = NULL;
	int rc, fd = -1, tfd = -1;

	err[0] = 0;
	if ((rc = kt_replay_plan_load(dir, &plan, err, errlen)))
		return rc;
	if (!(t = cJSON_GetArrayItem(cJSON_GetObjectItem(plan, "tasks"), (int)task))) {
		snprintf(err, errlen, "%s: no task %u in the plan", dir, task);
		rc = KT_ENOTFOUND;
		goto out;
	}
	snprintf(path, sizeof(path), "%s/%s", dir,
		 cJSON_GetStringValue(cJSON_GetObjectItem(t, "bundle")));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		rc = KT_EIO;
		goto out;
	}
	/* the plan's bundle may have been edited since: bounded before
	 * anything of it is unpacked on this host */
	rc = kt_sandbox_plain_tar(fd, KT_REPLAY_BUNDLE_DIR "/manifest.json",
				  kt_replay_bundle_cap(lim), &tfd, &mtext, err, errlen);
	if (rc)
		goto out;
	if (!(manifest = mtext ? cJSON_Parse(mtext) : NULL)) {
		snprintf(err, errlen, "%s: no readable manifest", path);
		rc = KT_ECORRUPT;
		goto out;
	}
	kt_replay_spec(&sp, lim, manifest, cache_dir);
	if ((rc = kt_sandbox_run(tfd, &sp, &sr, err, errlen)))
		goto out;
	/* a process the OOM killer took says only "Killed" (exit 137): the
	 * step's cgroup knows why */
	if (sr.oom_kills)
		snprintf(oom, sizeof(oom), "out of memory (limit %.0f bytes, --mem + --max-output): "
			 "the OOM killer stopped %u process%s",
			 cJSON_GetNumberValue(cJSON_GetObjectItem(
				 cJSON_GetObjectItem(sr.isolation, "cgroup"), "mem_bytes")),
			 sr.oom_kills, sr.oom_kills == 1 ? "" : "es");
	if (sr.timed_out)
		snprintf(why, sizeof(why), "%s%s%sstopped by the %u s watchdog\n", *oom ? "killed: " : "",
			 oom, *oom ? "; " : "", lim->timeout_s);
	else if (!sr.out)
		snprintf(why, sizeof(why), "%s%s%sno result.json (exit status %d)%s%.300s\n",
			 *oom ? "killed: " : "", oom, *oom ? "; " : "",
			 WIFEXITED(sr.status) ? WEXITSTATUS(sr.status) : 128 + WTERMSIG(sr.status),
			 *sr.diag ? "; the sandbox said: " : "", sr.diag);
	else if (*oom && (res = cJSON_Parse(sr.out)) &&
		 cJSON_AddStringToObject(res, "killed", oom) && (text = cJSON_Print(res))) {
		/* the step wrote its result and a process of it was killed
		 * (a build, a child): said in the result, which `--collect`
		 * and `ktraj import` put in the verdict's reason */
		free(sr.out);
		sr.out = text;
		sr.out_len = strlen(text);
	}
	snprintf(path, sizeof(path), "%s/results/%06u.%s", dir, task, *why ? "err" : "json");
	rc = put_file(path, *why ? why : sr.out, 0644, err, errlen);
	if (!rc) {
		/* the other file of the task, from an earlier try, goes */
		snprintf(path, sizeof(path), "%s/results/%06u.%s", dir, task, *why ? "json" : "err");
		unlink(path);
	}
out:
	if (fd >= 0)
		close(fd);
	if (tfd >= 0)
		close(tfd);
	kt_sandbox_result_free(&sr);
	free(mtext);
	cJSON_Delete(res);
	cJSON_Delete(manifest);
	cJSON_Delete(plan);
	return rc;
}
