/* cmd_cat.c - `ktraj cat RUN PATH [--at SEQ]`: a workspace file at a step. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "outfmt.h"
#include "../export/export.h"
#include "wsutil.h"

static const char usage[] =
	"usage: ktraj cat RUN PATH [--at SEQ] [--json [--base64]] [--raw]\n"
	"\n"
	"Print the content of PATH in the workspace of RUN after step SEQ\n"
	"(default: after the last step), as rebuilt from the run's edits and\n"
	"observed file contents.  PATH is a path as `ktraj log` shows it, or a\n"
	"suffix of exactly one such path (src/x.cu).  Exit 4 when the file did\n"
	"not exist at that step (never created, or deleted: an edit, `rm`,\n"
	"`rm -r DIR` in a shell command), or when its content is unknown there\n"
	"(a command changed it in a way the trajectory does not show: a glob,\n"
	"a script, `git checkout`, ...; the message names the step).  Exit 3\n"
	"when the store does not hold the content an edit names (damage).\n"
	"--json    one object: run, path, at (the step), blob (SHA-256 hex of\n"
	"          the content), bytes, binary, and content (the text; left out\n"
	"          for a file that is not UTF-8 text)\n"
	"--base64  with --json: content_base64 (the exact bytes) instead of\n"
	"          content, for every file\n"
	"--raw     the bytes as stored also on a terminal: there, without it,\n"
	"          control characters print visibly (ESC as ^[); a file or pipe\n"
	"          always gets the bytes as stored\n";

static int put_json(struct cli *c, kt_store *s, const char *run,
		    const char *path, uint64_t at, const void *data, size_t len,
		    int b64)
{
	unsigned char h[KT_HASH_LEN];
	char hex[KT_HASH_HEX + 1];
	kt_run_info ri;
	cJSON *o = cJSON_CreateObject();
	int rc = 0;

	if (!at) {
		rc = kt_run_get(s, run, &ri);
		if (rc) {
			cJSON_Delete(o);
			return cli_store_err(c, s, rc, run);
		}
		at = ri.n_events;
	}
	kt_sha256(data, len, h);
	kt_hex(h, KT_HASH_LEN, hex);
	if (o) {
		cJSON_AddStringToObject(o, "run", run);
		cJSON_AddStringToObject(o, "path", path);
		cJSON_AddNumberToObject(o, "at", (double)at);
		cJSON_AddStringToObject(o, "blob", hex);
		cJSON_AddNumberToObject(o, "bytes", (double)len);
		cJSON_AddBoolToObject(o, "binary", !kt_is_text(data, len));
	}
	if (o && kt_export_add_bytes(o, "content", data, len,
				    b64 ? KT_EXPORT_BYTES_BASE64 : KT_EXPORT_BYTES_TEXT) < 0) {
		cJSON_Delete(o);
		o = NULL;
	}
	rc = cli_put_json(o);
	if (rc)
		return cli_err(c, rc == KT_ENOMEM ? "out of memory" : "write error");
	return 0;
}

int cmd_cat(struct cli *c, int argc, char **argv)
{
	const char *spec = NULL, *path = NULL, *at_arg = NULL;
	char run[KT_RUN_ID_HEX + 1], *stored = NULL;
	uint64_t at = 0;
	void *data = NULL;
	size_t len;
	kt_store *s = NULL;
	int i, rc, deleted, json = 0, b64 = 0, raw = 0;

	if (cli_wants_help(argc, argv, usage))
		return KT_EXIT_OK;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--at") && cli_has_value(argc, argv, i))
			at_arg = argv[++i];
		else if (!strncmp(argv[i], "--at=", 5))
			at_arg = argv[i] + 5;
		else if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--raw"))
			raw = 1;
		else if (!strcmp(argv[i], "--base64"))
			b64 = 1;
		else if (argv[i][0] == '-' && argv[i][1])
			return cli_bad_option(c, usage, argv[i]);
		else if (!spec)
			spec = argv[i];
		else if (!path)
			path = argv[i];
		else
			return cli_usage(c, "unexpected argument '%s'", argv[i]);
	}
	if (!path)
		return cli_usage(c, "needs RUN and PATH");
	if (b64 && !json)
		return cli_usage(c, "--base64 goes with --json");
	if ((rc = cli_open_run(c, spec, &s, run)) ||
	    (at_arg && (rc = cli_seq(c, s, run, at_arg, &at))) ||
	    (rc = cli_path_resolve(c, s, run, path, at, at, &stored)))
		goto out;
	rc = cli_ws_content(s, run, stored, at, &data, &len, &deleted);
	if (rc == KT_ENOTFOUND && deleted == 2) {
		uint64_t by = 0;

		cli_ws_unknown(s, run, stored, at, &by);
		cli_err(c, "%s has unknown content %s%s (step %llu changed it in a way the trajectory does not show)",
			stored, at_arg ? "at step " : "after the last step",
			at_arg ? at_arg : "", (unsigned long long)by);
		rc = KT_EXIT_NOTFOUND;
	} else if (rc == KT_ENOTFOUND) {
		char where[1200] = "";

		if (cli_ws_where(s, run, stored, where, sizeof(where)))
			where[0] = 0; /* the message stands without it */
		cli_err(c, "%s %s %s%s%s%s%s", stored,
			deleted ? "was deleted" : "did not exist yet",
			at_arg ? "at step " : "after the last step",
			at_arg ? at_arg : "", *where ? " (" : "", where,
			*where ? ")" : "");
		rc = KT_EXIT_NOTFOUND;
	} else if (rc) {
		rc = cli_store_err(c, s, rc, stored);
	} else if (json) {
		rc = put_json(c, s, run, stored, at, data, len, b64);
	} else if (!raw && isatty(STDOUT_FILENO)) {
		if (cli_put_safe(stdout, (const char *)data, len) ||
		    fflush(stdout))
			rc = cli_err(c, "write error");
	} else if (fwrite(data, 1, len, stdout) != len || fflush(stdout)) {
		rc = cli_err(c, "write error");
	}
out:
	free(data);
	free(stored);
	kt_store_close(s);
	return rc;
}
