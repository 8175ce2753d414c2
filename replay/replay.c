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
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <archive.h>
#include <archive_entry.h>

#include "replay_int.h"
#include "../import/import.h"
#include "../import/schema.h"

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
				       ARCHIVE_EXTRACT_SECURE_SYMLINKS);
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

		const char *name = archive_entry_pathname(e);

		/* Our own bundle, but checked like any archive: entries are
		 * re-rooted under dir, so an absolute or ".." name is refused
		 * here rather than by libarchive (which sees dir's absolute
		 * prefix). */
		if (!name || name[0] == '/' || strstr(name, "..") ||
		    archive_entry_filetype(e) == AE_IFLNK) {
			snprintf(err, errlen, "unsafe bundle entry %s", name ? name : "(null)");
			rc = KT_ECORRUPT;
			goto out;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, name);
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

/* Isolation reached for a replay (bits, reported in the replay event). */
#define ISO_NET 0x1   /* own network namespace: no network */
#define ISO_PID 0x2   /* own PID namespace: it cannot signal the host's
			 processes, and everything it started dies with it */
#define ISO_FS 0x4    /* own mount namespace with / read-only and a fresh
			 /tmp: it can write only the bundle, the cache, its
			 /tmp and the other mounts (/dev/shm, /run, /proc) */

static void mkdir_p(const char *path)
{
	char t[4200], *p;

	snprintf(t, sizeof(t), "%s", path);
	for (p = t + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			mkdir(t, 0755);
			*p = '/';
		}
	mkdir(t, 0755);
}

/* Make `dir` (opened as fd) appear writable at its own path again. */
static int rebind(int fd, const char *dir)
{
	char src[64];

	snprintf(src, sizeof(src), "/proc/self/fd/%d", fd);
	mkdir_p(dir);
	return mount(src, dir, NULL, MS_BIND | MS_REC, NULL);
}

/* In the child, inside its own mount namespace: a fresh empty /tmp (tools
 * that ignore TMPDIR still work, and see nothing of the host's), the root
 * file system read-only, and the bundle and cache directories writable at
 * their usual paths.  Returns 0 when all of it worked. */
static int fs_readonly(const char *bundle, const char *cache)
{
	int bfd = open(bundle, O_PATH | O_DIRECTORY);
	int cfd = cache ? open(cache, O_PATH | O_DIRECTORY) : -1;
	int rc = -1;

	if (bfd < 0 || (cache && cfd < 0))
		goto out;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		goto out;
	/* a /proc of the new PID namespace: the CUDA driver looks itself up
	 * there and finds no device through the host's (seen on the H200) */
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		goto out;
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777"))
		goto out;
	if (rebind(bfd, bundle) || (cache && rebind(cfd, cache)))
		goto out;
	rc = mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL);
out:
	if (bfd >= 0)
		close(bfd);
	if (cfd >= 0)
		close(cfd);
	return rc;
}

/* Run `sh script` (inside bundle dir `dir`) in its own process group under
 * the limits: CPU time, data segment, file size, a wall-clock watchdog and,
 * where the kernel allows (root, or a user namespace), no network, its own
 * PID namespace and a read-only root file system.  Returns 0 when it ran
 * (whatever its status), KT_ECHILD when it could not start or was killed by
 * the watchdog (*timed_out set).  *iso gets the ISO_* bits reached. */
static int run_limited(const char *script, const char *dir,
		       const kt_replay_limits *lim, const char *cache_dir,
		       int *timed_out, int *iso)
{
	pid_t pid;
	int status, pfd[2];
	time_t start = time(NULL);
	char got = 0;

	*timed_out = 0;
	*iso = 0;
	if (cache_dir)
		mkdir(cache_dir, 0700);
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
		int devnull = open("/dev/null", O_RDWR), flags = CLONE_NEWNS | CLONE_NEWPID;
		char tmp[4200], home[4200];
		pid_t init;

		close(pfd[0]);
		setpgid(0, 0);
		if (!lim->allow_network)
			flags |= CLONE_NEWNET;
		if (unshare(flags) == 0) {
			got = ISO_PID | (lim->allow_network ? 0 : ISO_NET);
		} else if (!lim->allow_network &&
			   (unshare(CLONE_NEWNET) == 0 ||
			    unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0)) {
			got = ISO_NET;
		}
		/* the first child in a new PID namespace is its init: when it
		 * exits, the kernel kills everything left in the namespace */
		init = fork();
		if (init < 0)
			_exit(126);
		if (init > 0) {
			close(pfd[1]);
			while (waitpid(init, &status, 0) < 0 && errno == EINTR)
				;
			_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128);
		}
		if ((got & ISO_PID) && fs_readonly(dir, cache_dir) == 0)
			got |= ISO_FS;
		if (write(pfd[1], &got, 1) != 1)
			_exit(126);
		close(pfd[1]);
		rl.rlim_cur = rl.rlim_max = lim->cpu_s;
		setrlimit(RLIMIT_CPU, &rl);
		rl.rlim_cur = rl.rlim_max = lim->mem_bytes;
		setrlimit(RLIMIT_DATA, &rl);
		rl.rlim_cur = rl.rlim_max = lim->file_bytes;
		setrlimit(RLIMIT_FSIZE, &rl);
		if (devnull >= 0) {
			dup2(devnull, 0);
			dup2(devnull, 1);
			dup2(devnull, 2);
		}
		/* temp files and caches of compilers and the CUDA driver go
		 * into the bundle, the only place that stays writable */
		snprintf(tmp, sizeof(tmp), "%s/tmp", dir);
		snprintf(home, sizeof(home), "%s/home", dir);
		mkdir(tmp, 0700);
		mkdir(home, 0700);
		setenv("TMPDIR", tmp, 1);
		setenv("HOME", home, 1);
		if (cache_dir)
			setenv("KTRAJ_CACHE", cache_dir, 1);
		execl("/bin/sh", "sh", script, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	if (read(pfd[0], &got, 1) == 1)
		*iso = got;
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
	/* whatever the script left running in its group dies with it (in a
	 * PID namespace the kernel has done so already) */
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

/* The JSON document in file `path`, or NULL when it cannot be read or
 * parsed. */
static cJSON *read_json(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0;
	cJSON *j = NULL;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END)) {
		long n = ftell(f);

		if (n >= 0 && !fseek(f, 0, SEEK_SET) &&
		    (buf = malloc((size_t)n + 1)))
			len = fread(buf, 1, (size_t)n, f);
	}
	fclose(f);
	if (buf) {
		buf[len] = 0;
		j = cJSON_Parse(buf);
	}
	free(buf);
	return j;
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
	int rc, timed_out = 0, iso = 0, kind;

	*out = NULL;
	if (!mkdtemp(dir)) {
		snprintf(err, errlen, "cannot create a temp directory: %s", strerror(errno));
		return KT_EIO;
	}
	snprintf(tarball, sizeof(tarball), "%s/bundle.tar.gz", dir);
	snprintf(xdir, sizeof(xdir), "%s/x", dir);
	rc = kt_replay_bundle_write(s, run, seq, tarball, err, errlen);
	if (rc)
		goto out;
	if (mkdir(xdir, 0700)) {
		rc = KT_EIO;
		goto out;
	}
	rc = extract(tarball, xdir, err, errlen);
	if (rc)
		goto out;
	snprintf(script, sizeof(script), "%s/%s/run.sh", xdir, KT_REPLAY_BUNDLE_DIR);
	snprintf(resfile, sizeof(resfile), "%s/%s/result.json", xdir, KT_REPLAY_BUNDLE_DIR);
	snprintf(reason, sizeof(reason), "%s/%s/manifest.json", xdir, KT_REPLAY_BUNDLE_DIR);
	manifest = read_json(reason);
	if (!manifest) {
		snprintf(err, errlen, "bundle has no readable manifest");
		rc = KT_ECORRUPT;
		goto out;
	}
	kind = kt_kind_from_name(cJSON_GetStringValue(cJSON_GetObjectItem(manifest, "kind")) ?
				 cJSON_GetStringValue(cJSON_GetObjectItem(manifest, "kind")) : "");
	{
		char bdir[300];

		snprintf(bdir, sizeof(bdir), "%s/%s", xdir, KT_REPLAY_BUNDLE_DIR);
		run_limited(script, bdir, lim, cache_dir, &timed_out, &iso);
	}
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
			cJSON *m = kt_replay_measured(manifest, result);

			if (m)
				cJSON_AddItemToObject(res, "measured", m);
		}
	}
	cJSON_AddItemToObject(payload, "expected",
			      cJSON_Duplicate(cJSON_GetObjectItem(manifest, "expect"), 1));
	cJSON_AddItemToObject(payload, "missing",
			      cJSON_Duplicate(cJSON_GetObjectItem(manifest, "missing"), 1));
	cJSON_AddStringToObject(payload, "gpu", gpu ? gpu : "");
	cJSON_AddBoolToObject(payload, "network_isolated", (iso & ISO_NET) != 0);
	{
		cJSON *is = cJSON_AddObjectToObject(payload, "isolation");

		cJSON_AddBoolToObject(is, "network", (iso & ISO_NET) != 0);
		cJSON_AddBoolToObject(is, "pid", (iso & ISO_PID) != 0);
		cJSON_AddBoolToObject(is, "readonly_root", (iso & ISO_FS) != 0);
	}
	/* result.json and the manifest are files of the bundle, where the
	 * replayed commands run and may write (result.json's writer, .result,
	 * is one of them too), and a bundle can be edited by hand: what the
	 * payload takes from them gets the type check of every payload from
	 * outside (import of a result.json, append; import/schema.h), so a
	 * wrong type is refused instead of stored */
	if (kt_imp_check_payload(KT_KIND_REPLAY, payload, reason,
				 sizeof(reason))) {
		snprintf(err, errlen, "step %llu: the replay's result does not "
			 "fit a replay event (%s): nothing recorded",
			 (unsigned long long)seq, reason);
		rc = KT_EPARSE;
		goto out;
	}
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
