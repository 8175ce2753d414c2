/* cmd_export.c - `ktraj export`: a run as JSONL, ATIF, NDJSON tables or a
 * replay bundle.  Options are checked here against the chosen exporter's
 * flags; the exporters are the table of export/export.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli.h"
#include "wsutil.h"
#include "../export/export.h"

static const char usage[] =
	"usage: ktraj export RUN [--format jsonl|atif|claude_code|sts|otlp]\n"
	"                        [--redact] [--verify] [-o FILE]\n"
	"       ktraj export RUN|--all [--hidden] --format ndjson --partition DIR [--redact]\n"
	"                    [--since-last] [--part-size SIZE] [--compress C]\n"
	"       ktraj export RUN --step SEQ --bundle FILE.tar.gz|DIR/\n"
	"\n"
	"--format jsonl  (default) ktraj JSONL, one event per line with the\n"
	"                blobs its events refer to (FORMAT.md \"JSONL\"); `ktraj\n"
	"                append NAME` or `ktraj import` read it back\n"
	"--format atif   one ATIF JSON document (Agent Trajectory Interchange)\n"
	"--format claude_code\n"
	"                a Claude Code session transcript (JSONL)\n"
	"--format sts     Session Trace Simple Format JSONL (Hugging Face Hub)\n"
	"--format otlp    OTLP/JSON GenAI spans (Jaeger, Phoenix, Langfuse)\n"
	"--format ndjson --partition DIR\n"
	"                NDJSON tables (runs, events, bench, questions) in the\n"
	"                Hive layout, `run` a column of every row:\n"
	"                DIR/<table>/format=<importer>/date=<day>/part-E-K.ndjson.zst\n"
	"                and DIR/_manifest.json (files, rows, the watermark)\n"
	"--since-last    add to DIR's export only the runs and events it lacks\n"
	"                (without it, a DIR that holds an export is refused)\n"
	"--all           every run but hidden ones (`ktraj hide`); --hidden: those too\n"
	"--part-size SIZE\n"
	"                uncompressed bytes per file (default 128M; K, M, G, T)\n"
	"--compress zstd|gzip|none\n"
	"                how each file is compressed (default zstd)\n"
	"--step SEQ --bundle FILE\n"
	"                a self-contained replay bundle of step SEQ: a .tar.gz\n"
	"                (`tar -xzf` unpacks it; .tar.zst and .tar by name), or\n"
	"                the unpacked folder when FILE ends in / or is a directory;\n"
	"                a name of another archive type (.zip, .tar.xz...) is\n"
	"                refused (exit 2)\n"
	"--redact        replace e-mails, user names, host names and secrets with\n"
	"                stable placeholders (every format but --bundle)\n"
	"--verify        (jsonl) check each file content against its hash as it\n"
	"                is read, exit 3 on damage; without it the reader of the\n"
	"                blob lines checks them (the other formats always check)\n"
	"-o FILE         write to FILE instead of stdout\n";

/* The names of the formats --format takes (every exporter but the
 * KT_EXPORT_STEP ones) whose flags hold all of `flags`, from the exporter
 * table, joined by sep: so the messages below name whatever the table
 * says, "ndjson" for KT_EXPORT_DIR today. */
static const char *formats_with(unsigned flags, const char *sep,
				char *names, size_t cap)
{
	size_t n = 0;

	names[0] = 0;
	for (size_t i = 0; kt_exporters[i]; i++)
		if (!(kt_exporters[i]->flags & KT_EXPORT_STEP) &&
		    (kt_exporters[i]->flags & flags) == flags && n < cap)
			n += (size_t)snprintf(names + n, cap - n, "%s%s",
					      n ? sep : "", kt_exporters[i]->name);
	return names;
}

/* "unknown format 'x' (jsonl, atif, ndjson)": the formats --format takes,
 * from the exporter table. */
static int unknown_format(struct cli *c, const char *format)
{
	char names[256];

	return cli_usage(c, "unknown format '%s' (%s)", format,
			 formats_with(0, ", ", names, sizeof(names)));
}

/* The suffixes of archive or compression types that a bundle is not: the
 * bundle is a tar, compressed as its name says (.tar.gz, .tgz or any other
 * name: gzip; .tar.zst or .tzst: zstd; .tar: none; replay/bundle.c), so a
 * name ending in one of these would hold something else than it says. */
static const char *const not_bundle[] = {
	".zip", ".7z", ".rar", ".tar.xz", ".txz", ".xz", ".tar.bz2", ".tbz2",
	".tbz", ".bz2", ".tar.lz4", ".lz4", ".tar.lzma", ".lzma", ".tar.lz",
	".lz", ".tar.Z", ".zst", ".jar", NULL
};

/* --bundle FILE whose suffix says another archive type (x.zip): a usage
 * error naming what the bundle would be and the names that say so; 0 for
 * a name the bundle writer honours (or a folder). */
static int bad_bundle_name(struct cli *c, const char *path)
{
	size_t n = strlen(path);
	struct stat st;

	if ((n && path[n - 1] == '/') || (!stat(path, &st) && S_ISDIR(st.st_mode)))
		return 0;
	for (size_t i = 0; not_bundle[i]; i++) {
		size_t k = strlen(not_bundle[i]);

		/* .zst after .tar is the zstd tar the writer makes */
		if (!strcmp(not_bundle[i], ".zst") && n >= 8 &&
		    !strcasecmp(path + n - 8, ".tar.zst"))
			continue;
		/* (n == k: a name that is the suffix alone, ".zip") */
		if (n >= k && !strcasecmp(path + n - k, not_bundle[i]))
			return cli_usage(c, "--bundle %s: a %s name, but a bundle is "
					 "a tar: name it .tar.gz or .tgz (gzip), "
					 ".tar.zst or .tzst (zstd), .tar, or DIR/",
					 path, not_bundle[i]);
	}
	return 0;
}

int cmd_export(struct cli *c, int argc, char **argv)
{
	const char *spec = NULL, *format = NULL, *out_path = NULL;
	const char *partition = NULL, *bundle = NULL, *step_arg = NULL;
	const char *part_size = NULL, *compress = NULL;
	char run[KT_RUN_ID_HEX + 1], err[512] = "", fmts[256];
	int i, rc, all = 0, redact = 0, hidden = 0, created = 0, lost = 0, werr = 0;
	struct stat lst;
	uint64_t step = 0;
	kt_store *s = NULL;
	FILE *out = stdout;
	const kt_exporter *ex;
	kt_export_args args = { 0 };

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
		else if (!strcmp(a, "--verify"))
			args.verify = 1;
		else if (!strcmp(a, "--since-last"))
			args.since_last = 1;
		else if (!strcmp(a, "--part-size") && more)
			part_size = argv[++i];
		else if (!strcmp(a, "--compress") && more)
			compress = argv[++i];
		else if (!strcmp(a, "--all"))
			all = 1;
		else if (!strcmp(a, "--hidden"))
			hidden = 1;
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
			return cli_bad_step(c, "--step", step_arg);
		if ((rc = bad_bundle_name(c, bundle)))
			return rc;
		ex = kt_exporter_find("bundle");
	} else {
		ex = kt_exporter_find(format);
		if (!ex || (ex->flags & KT_EXPORT_STEP))
			return unknown_format(c, format);
		if ((ex->flags & KT_EXPORT_DIR) && !partition)
			return cli_usage(c, "--format %s needs --partition DIR", format);
		if (!(ex->flags & KT_EXPORT_DIR) && partition)
			return cli_usage(c, "--partition goes with --format %s",
					 formats_with(KT_EXPORT_DIR, "|", fmts,
						      sizeof(fmts)));
	}
	if ((args.since_last || part_size || compress) && !partition)
		return cli_usage(c, "--since-last, --part-size and --compress go with --format %s --partition DIR",
				 formats_with(KT_EXPORT_DIR, "|", fmts, sizeof(fmts)));
	if (part_size && (rc = cli_size_opt(c, "--part-size", part_size, 4096, (uint64_t)1 << 40,
					    &args.part_size)))
		return rc;
	if (compress) {
		if (!strcmp(compress, "zstd"))
			args.compress = KT_EXPORT_ZSTD;
		else if (!strcmp(compress, "gzip"))
			args.compress = KT_EXPORT_GZIP;
		else if (!strcmp(compress, "none"))
			args.compress = KT_EXPORT_NONE;
		else
			return cli_usage(c, "--compress: bad value '%s' (zstd, gzip or none)", compress);
	}
	if (all && spec)
		return cli_usage(c, "give RUN or --all, not both");
	if (all && !(ex->flags & KT_EXPORT_ALL))
		return cli_usage(c, "--all works with --format %s --partition only",
				 formats_with(KT_EXPORT_ALL | KT_EXPORT_DIR, "|", fmts,
					      sizeof(fmts)));
	if (!all && !spec)
		return cli_usage(c, "which run? (ktraj export RUN ...)");
	if (hidden && !all)
		return cli_usage(c, "--hidden goes with --all");
	if (args.verify && !(ex->flags & KT_EXPORT_VERIFY))
		return cli_usage(c, "--verify goes with --format %s (the other formats check every file content they read)",
				 formats_with(KT_EXPORT_VERIFY, "|", fmts, sizeof(fmts)));
	if ((rc = cli_open_run(c, spec, &s, run)) ||
	    (step_arg && (rc = cli_seq(c, s, run, step_arg, &step))))
		goto out;
	args.run = all ? NULL : run;
	args.step = step;
	args.redact = redact;
	args.hidden = hidden;
	args.path = bundle ? bundle : partition;
	if (ex->flags & KT_EXPORT_STREAM) {
		/* a failed export removes only a file it made: never a
		 * device (`-o /dev/full` as root), a link or a file that
		 * was there before */
		created = out_path && lstat(out_path, &lst) != 0 &&
			  errno == ENOENT;
		if (out_path && !(out = fopen(out_path, "w"))) {
			rc = cli_err(c, "%s: %s", out_path, strerror(errno));
			out = stdout;
			goto out;
		}
		args.out = out;
		errno = 0;
		rc = ex->write(s, &args, err, sizeof(err));
		/* the failed write's errno (ENOSPC): the stream keeps only
		 * its error flag, and a later fflush reports nothing */
		werr = errno;
		lost = ferror(out);
		if (out != stdout) {
			if (fclose(out) && !rc) {
				rc = KT_EIO;
				werr = errno;
				lost = 1;
			}
			out = stdout;
			if (rc && created)
				unlink(out_path);
		} else if ((fflush(stdout) || ferror(stdout)) && !rc) {
			rc = KT_EIO;
			werr = errno;
			lost = 1;
		}
	} else {
		uint64_t rows = 1;

		args.rows = (ex->flags & KT_EXPORT_DIR) ? &rows : NULL;
		rc = ex->write(s, &args, err, sizeof(err));
		if (!rc && !rows)
			fprintf(stderr, "ktraj: %s: nothing %sto export: no file written, "
				"%s/_manifest.json left as it was\n", c->cmd,
				args.since_last ? "new " : "", args.path);
	}
	if (rc && lost)
		/* the output, not the store ("seq 2: I/O error") */
		cli_err(c, "%s: %s", out_path ? out_path : "writing the output",
			strerror(werr ? werr : EIO));
	else if (rc)
		cli_err(c, "%s", err[0] ? err : kt_strerror(rc));
	if (rc) {
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
