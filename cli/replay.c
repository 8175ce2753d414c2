/*
 * replay.c - run a bundle under limits and judge it (see replay.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <archive.h>
#include <archive_entry.h>

#include "bundle.h"
#include "export.h"
#include "replay.h"
#include "../import/import.h"

/* ---- judging ---------------------------------------------------------------- */

static void add_reason(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_reason(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n && n + 2 < len) {
		strcat(buf, "; ");
		n += 2;
	}
	if (n >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

static double num(const cJSON *o, const char *k, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* First line of text (at most n bytes) into out. */
static void first_line(const char *text, char *out, size_t n)
{
	size_t i = 0;

	out[0] = 0;
	if (!text)
		return;
	while (*text == '\n' || *text == ' ')
		text++;
	while (text[i] && text[i] != '\n' && i + 1 < n) {
		out[i] = text[i];
		i++;
	}
	out[i] = 0;
}

static void missing_reason(const cJSON *manifest, char *reason, size_t len)
{
	const cJSON *m = cJSON_GetObjectItem(manifest, "missing"), *it;
	char list[512] = "";
	int n = 0;

	cJSON_ArrayForEach(it, m) {
		if (!cJSON_IsString(it))
			continue;
		if (n++ < 5) {
			if (*list)
				strncat(list, ", ", sizeof(list) - strlen(list) - 1);
			strncat(list, it->valuestring, sizeof(list) - strlen(list) - 1);
		}
	}
	if (n)
		add_reason(reason, len, "the trajectory never showed %d file(s) the command needs (%s%s)",
			   n, list, n > 5 ? ", ..." : "");
}

/* The measured result matching the recorded scenario: harness NDJSON rows
 * in stdout first, else benchmark patterns in the text. */
static cJSON *measured(const cJSON *manifest, const cJSON *result)
{
	const char *out = jstr(result, "stdout");
	const char *want = jstr(cJSON_GetObjectItem(manifest, "expect"), "scenario");
	cJSON *arr = NULL, *it, *pick = NULL;
	const char *p;

	if (!out)
		return NULL;
	/* harness rows: one JSON object per line with time_ms */
	for (p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *e = strchr(p, '\n');
		cJSON *row;

		if (*p != '{')
			continue;
		row = cJSON_ParseWithLength(p, e ? (size_t)(e - p) : strlen(p));
		if (!row)
			continue;
		if (cJSON_GetObjectItem(row, "time_ms") &&
		    (!want || !jstr(row, "scenario") || !strcmp(jstr(row, "scenario"), want))) {
			cJSON_Delete(pick);
			pick = row;
			if (want)
				break;
		} else {
			cJSON_Delete(row);
		}
	}
	if (pick)
		return pick;
	if (kt_bench_parse(out, strlen(out), &arr) || !arr)
		return NULL;
	cJSON_ArrayForEach(it, arr) {
		if (!cJSON_IsNumber(cJSON_GetObjectItem(it, "time_ms")))
			continue;
		if (!want || !jstr(it, "scenario") || !strcmp(jstr(it, "scenario"), want)) {
			pick = cJSON_Duplicate(it, 1);
			break;
		}
	}
	cJSON_Delete(arr);
	return pick;
}

const char *kt_replay_judge(int kind, const cJSON *manifest,
			    const cJSON *result, const char *gpu_here,
			    char *reason, size_t len)
{
	const cJSON *expect = cJSON_GetObjectItem(manifest, "expect");
	const cJSON *fp = cJSON_GetObjectItem(manifest, "fingerprint");
	const char *verdict = KT_V_REPRODUCED;
	const char *gpu_then = jstr(fp, "gpu_name") ? jstr(fp, "gpu_name") : jstr(fp, "gpu");
	int rc;

	reason[0] = 0;
	if (gpu_then && (!gpu_here || strcmp(gpu_then, gpu_here)))
		add_reason(reason, len, "recorded on %s, replayed on %s", gpu_then,
			   gpu_here ? gpu_here : "a machine without a GPU");
	if (!result) {
		add_reason(reason, len, "the bundle produced no result (killed by a limit or crashed)");
		return KT_V_FAILED;
	}
	rc = (int)num(result, "exit_code", -1);
	if (kind == KT_KIND_COMPILE || kind == KT_KIND_TOOL_CALL ||
	    kind == KT_KIND_TOOL_RESULT) {
		const cJSON *e = cJSON_GetObjectItem(expect, "exit_code");
		int want = cJSON_IsNumber(e) ? e->valueint : 0;
		char line[200];

		if ((rc == 0) == (want == 0)) {
			add_reason(reason, len, rc == 0 ? "same outcome: the command succeeded"
				   : "same outcome: the command failed as recorded (exit %d)", rc);
			return KT_V_REPRODUCED;
		}
		if (rc != 0) {
			first_line(jstr(result, "stderr"), line, sizeof(line));
			add_reason(reason, len, "the command failed here (exit %d) but succeeded in the recording%s%s",
				   rc, *line ? ": " : "", line);
			missing_reason(manifest, reason, len);
			if (!gpu_here && !gpu_then)
				add_reason(reason, len, "no GPU on this machine");
			return KT_V_FAILED;
		}
		add_reason(reason, len, "the command succeeded here but failed in the recording (exit %d)", want);
		return KT_V_DIVERGED;
	}
	/* bench */
	{
		cJSON *m = measured(manifest, result);
		const cJSON *ec = cJSON_GetObjectItem(expect, "correct");
		const cJSON *gc;
		double t0 = num(expect, "time_ms", NAN), t1;
		double lo = num(expect, "min_ms", NAN), hi = num(expect, "max_ms", NAN);
		double band = num(manifest, "noise_band", 0.05), spread;

		if (!m) {
			char line[200];

			first_line(jstr(result, "stderr"), line, sizeof(line));
			add_reason(reason, len, "no benchmark result in the output (exit %d%s%s)", rc,
				   *line ? ": " : "", line);
			missing_reason(manifest, reason, len);
			return KT_V_FAILED;
		}
		gc = cJSON_GetObjectItem(m, "correct");
		t1 = num(m, "time_ms", NAN);
		if (cJSON_IsBool(ec) && cJSON_IsBool(gc) && cJSON_IsTrue(ec) != cJSON_IsTrue(gc)) {
			add_reason(reason, len, "correctness differs: recorded %s, replayed %s",
				   cJSON_IsTrue(ec) ? "correct" : "incorrect",
				   cJSON_IsTrue(gc) ? "correct" : "incorrect");
			cJSON_Delete(m);
			return KT_V_DIVERGED;
		}
		if (isnan(t0) || isnan(t1)) {
			add_reason(reason, len, "no recorded time to compare with");
			cJSON_Delete(m);
			return KT_V_REPRODUCED;
		}
		spread = (!isnan(lo) && !isnan(hi) && t0 > 0) ? (hi - lo) / 2 / t0 : 0;
		if (spread > band)
			band = spread;
		if (band < 0.03)
			band = 0.03;
		if (fabs(t1 - t0) <= band * t0) {
			add_reason(reason, len, "median %.4g ms vs recorded %.4g ms, inside the %.1f %% band",
				   t1, t0, band * 100);
			verdict = KT_V_REPRODUCED;
		} else if (t1 < t0) {
			add_reason(reason, len, "median %.4g ms vs recorded %.4g ms: %.2fx faster (band %.1f %%)",
				   t1, t0, t0 / t1, band * 100);
			verdict = KT_V_FASTER;
		} else {
			add_reason(reason, len, "median %.4g ms vs recorded %.4g ms: %.2fx slower (band %.1f %%)",
				   t1, t0, t1 / t0, band * 100);
			verdict = KT_V_SLOWER;
		}
		cJSON_Delete(m);
	}
	return verdict;
}

/* ---- running ---------------------------------------------------------------- */

static int extract(const char *tarball, const char *dir, char *err, size_t errlen)
{
	struct archive *a = archive_read_new(), *w = archive_write_disk_new();
	struct archive_entry *e;
	int rc = 0, r;

	if (!a || !w) {
		rc = KT_ENOMEM;
		goto out;
	}
	archive_read_support_filter_all(a);
	archive_read_support_format_tar(a);
	archive_write_disk_set_options(w, ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_SECURE_NODOTDOT |
				       ARCHIVE_EXTRACT_SECURE_SYMLINKS |
				       ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS);
	if (archive_read_open_filename(a, tarball, 1 << 16) != ARCHIVE_OK) {
		snprintf(err, errlen, "%s", archive_error_string(a));
		rc = KT_EIO;
		goto out;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		char path[8192];
		const void *buf;
		size_t sz;
		la_int64_t off;

		snprintf(path, sizeof(path), "%s/%s", dir, archive_entry_pathname(e));
		archive_entry_set_pathname(e, path);
		if (archive_write_header(w, e) != ARCHIVE_OK) {
			snprintf(err, errlen, "%s", archive_error_string(w));
			rc = KT_EIO;
			goto out;
		}
		while (archive_read_data_block(a, &buf, &sz, &off) == ARCHIVE_OK)
			if (archive_write_data_block(w, buf, sz, off) != ARCHIVE_OK) {
				snprintf(err, errlen, "%s", archive_error_string(w));
				rc = KT_EIO;
				goto out;
			}
		archive_write_finish_entry(w);
	}
	if (r != ARCHIVE_EOF) {
		snprintf(err, errlen, "%s", archive_error_string(a));
		rc = KT_EIO;
	}
out:
	if (a)
		archive_read_free(a);
	if (w)
		archive_write_free(w);
	return rc;
}

/* Run `sh script` in its own process group under the limits.  Returns 0
 * when it ran (whatever its status), KT_ECHILD when it could not start or
 * was killed by the watchdog (*timed_out set). */
static int run_limited(const char *script, const kt_replay_limits *lim,
		       const char *cache_dir, int *timed_out, int *netns)
{
	pid_t pid;
	int status, pfd[2];
	time_t start = time(NULL);
	char ns = 0;

	*timed_out = 0;
	*netns = 0;
	if (pipe(pfd))
		return KT_ECHILD;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return KT_ECHILD;
	}
	if (pid == 0) {
		struct rlimit rl;
		int devnull = open("/dev/null", O_RDWR);

		close(pfd[0]);
		setpgid(0, 0);
		if (!lim->allow_network &&
		    (unshare(CLONE_NEWNET) == 0 ||
		     unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0))
			ns = 1;
		if (write(pfd[1], &ns, 1) != 1)
			_exit(126);
		close(pfd[1]);
		rl.rlim_cur = rl.rlim_max = lim->cpu_s;
		setrlimit(RLIMIT_CPU, &rl);
		rl.rlim_cur = rl.rlim_max = lim->mem_bytes;
		setrlimit(RLIMIT_DATA, &rl);
		if (devnull >= 0) {
			dup2(devnull, 0);
			dup2(devnull, 1);
			dup2(devnull, 2);
		}
		if (cache_dir)
			setenv("KTRAJ_CACHE", cache_dir, 1);
		execl("/bin/sh", "sh", script, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	if (read(pfd[0], &ns, 1) == 1)
		*netns = ns;
	close(pfd[0]);
	setpgid(pid, pid);
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return KT_ECHILD;
		if ((unsigned)(time(NULL) - start) > lim->timeout_s) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			*timed_out = 1;
			return KT_ECHILD;
		}
		usleep(20000);
	}
	/* whatever the script left running dies with its group */
	kill(-pid, SIGKILL);
	return 0;
}

static char *gpu_name(void)
{
	FILE *f = popen("nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null", "r");
	char line[256];
	char *out = NULL;

	if (!f)
		return NULL;
	if (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		if (*line)
			out = strdup(line);
	}
	pclose(f);
	return out;
}

static cJSON *read_json(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;
	cJSON *j = NULL;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) &&
	    (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
		buf[n] = 0;
		j = cJSON_Parse(buf);
	}
	free(buf);
	fclose(f);
	return j;
}

static int record(kt_store *s, const char *run, uint64_t seq, cJSON *payload,
		  char *err, size_t errlen)
{
	kt_run_info ri;
	kt_event ev = { 0 };
	char *text = cJSON_PrintUnformatted(payload);
	struct timespec now;
	int rc;

	if (!text)
		return KT_ENOMEM;
	clock_gettime(CLOCK_REALTIME, &now);
	rc = kt_store_begin(s);
	if (rc)
		goto out;
	rc = kt_run_get(s, run, &ri);
	if (rc) {
		kt_store_abort(s);
		goto out;
	}
	ev.seq = ri.n_events + 1;
	ev.parent = seq;
	ev.ts_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	ev.kind = KT_KIND_REPLAY;
	ev.actor = "harness";
	ev.payload = text;
	ev.payload_len = strlen(text);
	rc = kt_event_append(s, run, &ev);
	if (rc) {
		kt_store_abort(s);
		goto out;
	}
	rc = kt_store_commit(s);
out:
	if (rc)
		snprintf(err, errlen, "recording the replay: %s", kt_strerror(rc));
	free(text);
	return rc;
}

int kt_replay_step(kt_store *s, const char *run, uint64_t seq,
		   const kt_replay_limits *lim, const char *cache_dir,
		   cJSON **out, char *err, size_t errlen)
{
	char dir[] = "/tmp/ktraj-replay.XXXXXX";
	char tarball[256], xdir[256], script[512], resfile[512], reason[2048];
	cJSON *manifest = NULL, *result = NULL, *payload = NULL, *res;
	const char *verdict;
	char *gpu = NULL;
	int rc, timed_out = 0, netns = 0, kind;

	*out = NULL;
	if (!mkdtemp(dir)) {
		snprintf(err, errlen, "cannot create a temp directory: %s", strerror(errno));
		return KT_EIO;
	}
	snprintf(tarball, sizeof(tarball), "%s/bundle.tar.zst", dir);
	snprintf(xdir, sizeof(xdir), "%s/x", dir);
	rc = kt_export_bundle(s, run, seq, tarball, err, errlen);
	if (rc)
		goto out;
	if (mkdir(xdir, 0700)) {
		rc = KT_EIO;
		goto out;
	}
	rc = extract(tarball, xdir, err, errlen);
	if (rc)
		goto out;
	snprintf(script, sizeof(script), "%s/%s/run.sh", xdir, KT_BUNDLE_DIR);
	snprintf(resfile, sizeof(resfile), "%s/%s/result.json", xdir, KT_BUNDLE_DIR);
	snprintf(reason, sizeof(reason), "%s/%s/manifest.json", xdir, KT_BUNDLE_DIR);
	manifest = read_json(reason);
	if (!manifest) {
		snprintf(err, errlen, "bundle has no readable manifest");
		rc = KT_ECORRUPT;
		goto out;
	}
	kind = kt_kind_from_name(jstr(manifest, "kind") ? jstr(manifest, "kind") : "");
	run_limited(script, lim, cache_dir, &timed_out, &netns);
	result = read_json(resfile);
	gpu = gpu_name();
	verdict = kt_replay_judge(kind, manifest, timed_out ? NULL : result, gpu,
				  reason, sizeof(reason));
	if (timed_out)
		snprintf(reason + strlen(reason), sizeof(reason) - strlen(reason),
			 "%sstopped by the %u s watchdog", *reason ? "; " : "", lim->timeout_s);
	payload = cJSON_CreateObject();
	cJSON_AddNumberToObject(payload, "step", (double)seq);
	cJSON_AddStringToObject(payload, "verdict", verdict);
	cJSON_AddStringToObject(payload, "reason", reason);
	res = cJSON_AddObjectToObject(payload, "results");
	if (result) {
		static const char *const keep[] = { "exit_code", "duration_ms", NULL };
		int i;

		for (i = 0; keep[i]; i++)
			if (cJSON_GetObjectItem(result, keep[i]))
				cJSON_AddItemToObject(res, keep[i],
					cJSON_Duplicate(cJSON_GetObjectItem(result, keep[i]), 1));
		{
			cJSON *m = measured(manifest, result);

			if (m)
				cJSON_AddItemToObject(res, "measured", m);
		}
	}
	cJSON_AddItemToObject(payload, "expected",
			      cJSON_Duplicate(cJSON_GetObjectItem(manifest, "expect"), 1));
	cJSON_AddItemToObject(payload, "missing",
			      cJSON_Duplicate(cJSON_GetObjectItem(manifest, "missing"), 1));
	cJSON_AddStringToObject(payload, "gpu", gpu ? gpu : "");
	cJSON_AddBoolToObject(payload, "network_isolated", netns);
	rc = record(s, run, seq, payload, err, errlen);
	if (rc)
		goto out;
	*out = payload;
	payload = NULL;
out:
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0) { /* a leftover temp dir is harmless */ }
	}
	free(gpu);
	cJSON_Delete(manifest);
	cJSON_Delete(result);
	cJSON_Delete(payload);
	return rc;
}
