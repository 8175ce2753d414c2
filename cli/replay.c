/*
 * replay.c - run a bundle in the sandbox and judge it (see replay.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <archive.h>
#include <archive_entry.h>

#include "bundle.h"
#include "cli.h"
#include "export.h"
#include "replay.h"
#include "../replay/sandbox.h"
#include "../import/import.h"
#include "../import/replay_judge.h"
#include "../import/schema.h"

/* ---- the bundle, for the sandbox ---------------------------------------------- */

/* Copy the exported bundle (a compressed tar in in_fd) into a plain tar in
 * a new memory file (*out_fd, rewound): the sandbox unpacks it with `tar`
 * alone, which needs no decompressor there.  Our own bundle, but checked
 * like any archive: only relative names without "..", only files and
 * folders.  *manifest gets manifest.json's text (caller frees). */
static int plain_tar(int in_fd, int *out_fd, char **manifest, char *err, size_t errlen)
{
	struct archive *a = archive_read_new(), *w = archive_write_new();
	struct archive_entry *e;
	int rc = 0, r, fd = memfd_create("ktraj-bundle", MFD_CLOEXEC);

	*out_fd = -1;
	*manifest = NULL;
	if (!a || !w || fd < 0) {
		rc = fd < 0 ? KT_EIO : KT_ENOMEM;
		goto out;
	}
	archive_read_support_filter_all(a);
	archive_read_support_format_tar(a);
	if (lseek(in_fd, 0, SEEK_SET) || archive_read_open_fd(a, in_fd, 1 << 16) != ARCHIVE_OK ||
	    archive_write_set_format_pax_restricted(w) != ARCHIVE_OK ||
	    archive_write_open_fd(w, fd) != ARCHIVE_OK) {
		snprintf(err, errlen, "%s", archive_error_string(a) ? archive_error_string(a) :
			 archive_error_string(w) ? archive_error_string(w) : "bundle");
		rc = KT_EIO;
		goto out;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);
		int is_manifest = name && !strcmp(name, KT_BUNDLE_DIR "/manifest.json");
		size_t mlen = 0;
		char buf[1 << 16];
		la_ssize_t n;

		if (!name || name[0] == '/' || strstr(name, "..") ||
		    (archive_entry_filetype(e) != AE_IFREG &&
		     archive_entry_filetype(e) != AE_IFDIR)) {
			snprintf(err, errlen, "unsafe bundle entry %s", name ? name : "(null)");
			rc = KT_ECORRUPT;
			goto out;
		}
		if (archive_write_header(w, e) != ARCHIVE_OK) {
			snprintf(err, errlen, "%s", archive_error_string(w));
			rc = KT_EIO;
			goto out;
		}
		while ((n = archive_read_data(a, buf, sizeof(buf))) > 0) {
			if (archive_write_data(w, buf, (size_t)n) != n) {
				snprintf(err, errlen, "%s", archive_error_string(w));
				rc = KT_EIO;
				goto out;
			}
			if (is_manifest) {
				char *p = realloc(*manifest, mlen + (size_t)n + 1);

				if (!p) {
					rc = KT_ENOMEM;
					goto out;
				}
				memcpy(p + mlen, buf, (size_t)n);
				mlen += (size_t)n;
				p[mlen] = 0;
				*manifest = p;
			}
		}
		if (n < 0) {
			snprintf(err, errlen, "%s", archive_error_string(a));
			rc = KT_EIO;
			goto out;
		}
	}
	if (r != ARCHIVE_EOF) {
		snprintf(err, errlen, "%s", archive_error_string(a));
		rc = KT_EIO;
		goto out;
	}
	if (archive_write_close(w) != ARCHIVE_OK || lseek(fd, 0, SEEK_SET)) {
		snprintf(err, errlen, "%s", archive_error_string(w));
		rc = KT_EIO;
	}
out:
	if (a)
		archive_read_free(a);
	if (w)
		archive_write_free(w);
	if (rc) {
		if (fd >= 0)
			close(fd);
		free(*manifest);
		*manifest = NULL;
	} else {
		*out_fd = fd;
	}
	return rc;
}

/* A step that needs the GPU: a harness bundle, or one that builds or runs
 * CUDA, on a host that has an NVIDIA device.  It gets /dev/nvidia* and a
 * data-segment limit instead of an address-space one (sandbox.h). */
static int needs_gpu(const cJSON *manifest, const char *mtext)
{
	if (access("/dev/nvidiactl", F_OK))
		return 0;
	return cJSON_GetObjectItem(manifest, "harness") || strstr(mtext, "nvcc") ||
	       strstr(mtext, ".cu\"") || strstr(mtext, "cuda");
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

static int record(kt_store *s, const char *run, uint64_t seq, cJSON *payload,
		  char *err, size_t errlen)
{
	cli_event e;
	int rc;

	cli_event_init(&e, KT_KIND_REPLAY, "harness", seq, payload);
	rc = cli_record(s, run, &e);
	if (rc)
		snprintf(err, errlen, "recording the replay: %s", kt_strerror(rc));
	return rc;
}

int kt_replay_step(kt_store *s, const char *run, uint64_t seq,
		   const kt_replay_limits *lim, const char *cache_dir,
		   cJSON **out, char *err, size_t errlen)
{
	char path[64], reason[2048];
	cJSON *manifest = NULL, *result = NULL, *payload = NULL, *res;
	kt_sandbox_result sr = { 0 };
	kt_sandbox_spec sp = { 0 };
	const char *verdict;
	char *gpu = NULL, *mtext = NULL;
	int rc, kind, bfd, tfd = -1;

	*out = NULL;
	/* the bundle never touches the disk: a kill -9 of ktraj leaves
	 * nothing of it behind */
	bfd = memfd_create("ktraj-bundle.tar.zst", MFD_CLOEXEC);
	if (bfd < 0) {
		snprintf(err, errlen, "cannot create a memory file: %s", strerror(errno));
		return KT_EIO;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", bfd);
	rc = kt_export_bundle(s, run, seq, path, err, errlen);
	if (rc)
		goto out;
	rc = plain_tar(bfd, &tfd, &mtext, err, errlen);
	if (rc)
		goto out;
	manifest = mtext ? cJSON_Parse(mtext) : NULL;
	if (!manifest) {
		snprintf(err, errlen, "bundle has no readable manifest");
		rc = KT_ECORRUPT;
		goto out;
	}
	kind = kt_kind_from_name(cJSON_GetStringValue(cJSON_GetObjectItem(manifest, "kind")) ?
				 cJSON_GetStringValue(cJSON_GetObjectItem(manifest, "kind")) : "");
	sp.timeout_s = lim->timeout_s;
	sp.cpu_s = lim->cpu_s;
	sp.mem_bytes = lim->mem_bytes;
	sp.output_bytes = lim->output_bytes;
	sp.file_bytes = lim->file_bytes;
	sp.max_procs = lim->max_procs;
	sp.allow_network = lim->allow_network;
	sp.no_sandbox = lim->no_sandbox;
	sp.gpu = needs_gpu(manifest, mtext);
	sp.cache_dir = cache_dir;
	sp.bundle_dir = KT_BUNDLE_DIR;
	rc = kt_sandbox_run(tfd, &sp, &sr, err, errlen);
	if (rc)
		goto out;
	result = sr.out ? cJSON_Parse(sr.out) : NULL;
	gpu = gpu_name();
	verdict = kt_replay_judge(kind, manifest, sr.timed_out ? NULL : result, gpu,
				  reason, sizeof(reason));
	if (sr.timed_out)
		snprintf(reason + strlen(reason), sizeof(reason) - strlen(reason),
			 "%sstopped by the %u s watchdog", *reason ? "; " : "", lim->timeout_s);
	else if (!result && WIFEXITED(sr.status) && WEXITSTATUS(sr.status) >= 125 && *sr.diag)
		snprintf(reason + strlen(reason), sizeof(reason) - strlen(reason),
			 "%sthe sandbox said: %.300s", *reason ? "; " : "", sr.diag);
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
	cJSON_AddBoolToObject(payload, "network_isolated",
			      cJSON_IsTrue(cJSON_GetObjectItem(sr.isolation, "network")));
	cJSON_AddItemToObject(payload, "isolation", sr.isolation);
	sr.isolation = NULL;
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
	rc = record(s, run, seq, payload, err, errlen);
	if (rc)
		goto out;
	*out = payload;
	payload = NULL;
out:
	close(bfd);
	if (tfd >= 0)
		close(tfd);
	kt_sandbox_result_free(&sr);
	free(mtext);
	free(gpu);
	cJSON_Delete(manifest);
	cJSON_Delete(result);
	cJSON_Delete(payload);
	return rc;
}
