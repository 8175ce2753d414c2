/* cmd_export.c - `ktraj export`: a run as JSONL, ATIF, NDJSON tables or a
 * replay bundle.  The exporters live in jsonl_export.c, export_atif.c,
 * export_ndjson.c and bundle.c (export.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "export.h"

static const char usage[] =
	"usage: ktraj export RUN [--format jsonl|atif] [--redact] [-o FILE]\n"
	"       ktraj export RUN|--all --format ndjson --partition DIR [--redact]\n"
	"       ktraj export RUN --step SEQ --bundle FILE.tar.zst\n"
	"\n"
	"--format jsonl  (default) ktraj JSONL, one event per line with the\n"
	"                blobs its events refer to (FORMAT.md \"JSONL\"); `ktraj\n"
	"                append NAME` or `ktraj import` read it back\n"
	"--format atif   one ATIF JSON document (Agent Trajectory Interchange)\n"
	"--format ndjson --partition DIR\n"
	"                zstd-compressed NDJSON tables partitioned by run:\n"
	"                DIR/<table>/run=<id>/part-0.ndjson.zst (--all: every run)\n"
	"--step SEQ --bundle FILE\n"
	"                a self-contained replay bundle of step SEQ\n"
	"--redact        replace e-mails, user names, host names and secrets with\n"
	"                stable placeholders (every format but --bundle)\n"
	"-o FILE         write to FILE instead of stdout\n";

int cmd_export(struct cli *c, int argc, char **argv)
{
	const char *spec = NULL, *format = NULL, *out_path = NULL;
	const char *partition = NULL, *bundle = NULL, *step_arg = NULL;
	char run[KT_RUN_ID_HEX + 1], err[512] = "";
	int i, rc, all = 0, redact = 0;
	uint64_t step = 0;
	kt_store *s = NULL;
	FILE *out = stdout;

	if (cli_wants_help(argc, argv, usage))
		return KT_EXIT_OK;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		int more = cli_has_value(argc, argv, i);

		if (!strcmp(a, "--format") && more)
			format = argv[++i];
		else if (!strncmp(a, "--format=", 9))
			format = a + 9;
		else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && more)
			out_path = argv[++i];
		else if (!strcmp(a, "--partition") && more)
			partition = argv[++i];
		else if (!strcmp(a, "--bundle") && more)
			bundle = argv[++i];
		else if (!strcmp(a, "--step") && more)
			step_arg = argv[++i];
		else if (!strcmp(a, "--redact"))
			redact = 1;
		else if (!strcmp(a, "--all"))
			all = 1;
		else if (a[0] == '-' && a[1])
			return cli_bad_option(c, usage, a);
		else if (!spec)
			spec = a;
		else
			return cli_usage(c, "unexpected argument '%s'", a);
	}
	if (!format)
		format = partition ? "ndjson" : "jsonl";
	if (bundle || step_arg) {
		if (!bundle || !step_arg)
			return cli_usage(c, "--step SEQ and --bundle FILE go together");
		if (cli_u64(step_arg, &step) || !step)
			return cli_usage(c, "--step needs a sequence number >= 1");
	} else if (!strcmp(format, "ndjson")) {
		if (!partition)
			return cli_usage(c, "--format ndjson needs --partition DIR");
	} else if (strcmp(format, "jsonl") && strcmp(format, "atif")) {
		return cli_usage(c, "unknown format '%s' (jsonl, atif, ndjson)", format);
	} else if (partition) {
		return cli_usage(c, "--partition goes with --format ndjson");
	}
	if (all && spec)
		return cli_usage(c, "give RUN or --all, not both");
	if (all && (bundle || strcmp(format, "ndjson")))
		return cli_usage(c, "--all works with --format ndjson --partition only");
	if (!all && !spec)
		return cli_usage(c, "which run? (ktraj export RUN ...)");
	rc = cli_open(c, 0, &s);
	if (rc)
		return rc;
	if (spec && (rc = cli_run(c, s, spec, run)))
		goto out;
	if (bundle) {
		rc = kt_export_bundle(s, run, step, bundle, err, sizeof(err));
	} else if (partition) {
		rc = kt_export_ndjson(s, all ? NULL : run, partition, redact,
				      err, sizeof(err));
	} else {
		if (out_path && !(out = fopen(out_path, "w"))) {
			rc = cli_err(c, "%s: %s", out_path, strerror(errno));
			out = stdout;
			goto out;
		}
		if (!strcmp(format, "jsonl"))
			rc = kt_export_jsonl(s, run, redact, out, err, sizeof(err));
		else
			rc = kt_export_atif(s, run, redact, out, err, sizeof(err));
		if (out != stdout) {
			if (fclose(out) && !rc)
				rc = KT_EIO;
			out = stdout;
			if (rc)
				unlink(out_path);
		} else if (fflush(stdout) && !rc) {
			rc = KT_EIO;
		}
	}
	if (rc) {
		cli_err(c, "%s", err[0] ? err : kt_strerror(rc));
		rc = cli_exit_code(rc);
		if (rc == KT_EXIT_USAGE)
			rc = KT_EXIT_FAIL; /* a bad step is not a usage error */
		if (rc == KT_EXIT_OK)
			rc = KT_EXIT_FAIL;
	}
out:
	kt_store_close(s);
	return rc;
}
