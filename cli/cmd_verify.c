/* cmd_verify.c - `ktraj verify [RUN]`: recompute every hash. */
#include <string.h>

#include "cli.h"

static const char usage[] =
	"usage: ktraj verify [RUN] [--json]\n"
	"\n"
	"Recompute the hash of every event and the hash chain of every run (or\n"
	"of RUN), and the SHA-256 of every blob they refer to; check that\n"
	"every blob an event names (edit before/after, *_blob fields, observed\n"
	"and images; FORMAT.md \"Blob references\") is stored, that each run\n"
	"record (name, format, meta) matches its checksum and that the name\n"
	"and workspace (paths) indexes match the runs and events they are built\n"
	"from.  LMDB's own pages are checked first (LMDB trusts them, and a\n"
	"damaged one could crash it).  Exit 0 when all match; exit 3 naming the\n"
	"first bad run and event, LMDB page or blob (with an event that names\n"
	"the blob) when the store is corrupt.  Runs written by a ktraj before\n"
	"run checksums have none: verify counts them.  --json prints one\n"
	"object: ok, runs, events, no_checksum (runs without one) and, without\n"
	"RUN, unfinished (imports under way or killed, whose runs are invisible\n"
	"until they finish or the next import reclaims them: the text form's\n"
	"\"note: N unfinished imports\"), or ok false with run, seq (0: the run\n"
	"record, or a blob no event names) and error.\n";

static int count_run(const kt_run_info *ri, void *arg)
{
	uint64_t *n = arg;

	n[0]++;
	n[1] += ri->n_events;
	n[2] += !ri->checksum;
	return 0;
}

int cmd_verify(struct cli *c, int argc, char **argv)
{
	const char *spec = NULL, *bad_run = NULL;
	char run[KT_RUN_ID_HEX + 1];
	uint64_t bad_seq = 0, n[3] = { 0, 0, 0 };
	kt_store *s = NULL;
	int i, rc, json = 0;
	uint64_t unf = 0;

	if (cli_wants_help(argc, argv, usage))
		return KT_EXIT_OK;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
			continue;
		}
		if (argv[i][0] == '-' && argv[i][1])
			return cli_usage(c, "unknown option '%s'", argv[i]);
		if (spec)
			return cli_usage(c, "unexpected argument '%s'", argv[i]);
		spec = argv[i];
	}
	/* LMDB trusts its pages: check them before it reads any */
	rc = cli_open(c, KT_OPEN_CHECK, &s);
	if (rc == KT_EXIT_CORRUPT && json) {
		/* a damaged LMDB page, or not a store at all */
		const char *d = kt_store_open_errmsg();

		printf("{\"ok\":false,\"run\":\"\",\"seq\":0,\"error\":");
		cli_json_str(stdout, d && *d ? d : "corrupt");
		printf("}\n");
	}
	if (rc)
		return rc;
	/* a damaged run record is reported below, as verify reports damage
	 * (the run, seq 0, --json) */
	if (spec && (rc = kt_run_resolve(s, spec, run)) &&
	    !(rc == KT_ECORRUPT && run[0])) {
		rc = cli_run_failed(c, s, spec, rc);
		goto out;
	}
	rc = kt_store_verify(s, spec ? run : NULL, &bad_run, &bad_seq);
	/* then the blobs the events name: an edit whose content was never
	 * stored reads back as a file that does not exist */
	if (!rc)
		rc = kt_store_verify_blobrefs(s, spec ? run : NULL, &bad_run,
					      &bad_seq);
	if (rc == KT_ECORRUPT && kt_store_changed(s))
		rc = KT_ECHANGED; /* printed below: exit 1, not 3 */
	if (rc == KT_ECORRUPT) {
		const char *d = kt_store_errmsg(s);
		size_t bl = bad_run ? strlen(bad_run) : 0;

		/* the detail starts "run ID[ seq N]: " when it names the run
		 * the line names already */
		if (d && bl && !strncmp(d, "run ", 4) &&
		    !strncmp(d + 4, bad_run, bl)) {
			const char *q = strstr(d + 4 + bl, ": ");

			if (q)
				d = q + 2;
		}

		if (bad_seq)
			cli_err(c, "run %s seq %llu: corrupt%s%s",
				bad_run ? bad_run : "?",
				(unsigned long long)bad_seq, d && *d ? ": " : "",
				d ? d : "");
		else if (bad_run && *bad_run)
			cli_err(c, "run %s: corrupt%s%s", bad_run,
				d && *d ? ": " : "", d ? d : "");
		else /* a blob or a database no run owns */
			cli_err(c, "corrupt%s%s", d && *d ? ": " : "",
				d ? d : "");
		if (json) {
			printf("{\"ok\":false,\"run\":\"%s\",\"seq\":%llu,\"error\":",
			       bad_run ? bad_run : "", (unsigned long long)bad_seq);
			cli_json_str(stdout, d && *d ? d : "corrupt");
			printf("}\n");
		}
		rc = KT_EXIT_CORRUPT;
		goto out;
	}
	if (rc) {
		rc = cli_store_err(c, s, rc, "verify");
		goto out;
	}
	if (spec) {
		kt_run_info ri;

		if (kt_run_get(s, run, &ri) == 0)
			count_run(&ri, n);
	} else {
		kt_run_foreach(s, count_run, n);
	}
	/* imports under way, or killed: no run of them is visible (a store
	 * too old to mark them has none) */
	if (!spec && kt_store_unfinished(s, &unf))
		unf = 0;
	if (json && spec)
		printf("{\"ok\":true,\"runs\":%llu,\"events\":%llu,"
		       "\"no_checksum\":%llu}\n",
		       (unsigned long long)n[0], (unsigned long long)n[1],
		       (unsigned long long)n[2]);
	else if (json)
		printf("{\"ok\":true,\"runs\":%llu,\"events\":%llu,"
		       "\"no_checksum\":%llu,\"unfinished\":%llu}\n",
		       (unsigned long long)n[0], (unsigned long long)n[1],
		       (unsigned long long)n[2], (unsigned long long)unf);
	else if (n[2])
		printf("ok: %llu run%s, %llu events verified; %llu run "
		       "record%s without checksum (written before ktraj had "
		       "them: name, format and meta unchecked)\n",
		       (unsigned long long)n[0], n[0] == 1 ? "" : "s",
		       (unsigned long long)n[1], (unsigned long long)n[2],
		       n[2] == 1 ? "" : "s");
	else
		printf("ok: %llu run%s, %llu events verified\n",
		       (unsigned long long)n[0], n[0] == 1 ? "" : "s",
		       (unsigned long long)n[1]);
	if (unf && !json)
		printf("note: %llu unfinished import%s (%s invisible; one whose "
		       "importer died is reclaimed by the next import)\n",
		       (unsigned long long)unf, unf == 1 ? "" : "s",
		       unf == 1 ? "its run is" : "their runs are");
out:
	kt_store_close(s);
	return rc;
}
