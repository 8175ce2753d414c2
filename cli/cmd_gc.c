/* cmd_gc.c - `ktraj gc --dry-run`: what a compaction of the store would
 * reclaim.  There is no compaction yet: the store is append-only, and a
 * compaction means copying the live records into a new file. */
#include <string.h>

#include "cli.h"

static const char usage[] =
	"usage: ktraj gc --dry-run [--json]\n"
	"\n"
	"Report what a compaction would reclaim, changing nothing: the events\n"
	"of hidden runs (`ktraj hide`; their stored bytes) and hide/unhide\n"
	"records a later one of the same run overrides.  Blobs are shared\n"
	"between runs and not counted.  Compaction itself is not implemented\n"
	"yet: without --dry-run gc exits with the usage code.\n";

struct gc_ctx {
	kt_store *s;
	uint64_t runs, events, bytes;
	int err;
};

static int add_hidden(const kt_run_info *ri, void *arg)
{
	struct gc_ctx *g = arg;
	kt_store_stats st;
	char id[KT_RUN_ID_HEX + 1];
	int h;

	memcpy(id, ri->id, sizeof(id));
	h = kt_run_hidden(g->s, id);
	if (h < 0)
		return h;
	if (!h)
		return 0;
	memset(&st, 0, sizeof(st));
	if ((h = kt_store_stats_get(g->s, id, &st)) != 0)
		return h;
	g->runs++;
	g->events += st.events;
	g->bytes += st.event_stored_bytes;
	return 0;
}

int cmd_gc(struct cli *c, int argc, char **argv)
{
	struct gc_ctx g = { 0 };
	kt_marks_stats ms;
	kt_store *s = NULL;
	int i, rc, dry = 0, json = 0;

	if (cli_wants_help(argc, argv, usage))
		return KT_EXIT_OK;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dry-run") || !strcmp(argv[i], "-n"))
			dry = 1;
		else if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (argv[i][0] == '-' && argv[i][1])
			return cli_bad_option(c, usage, argv[i]);
		else
			return cli_usage(c, "unexpected argument '%s'", argv[i]);
	}
	if (!dry)
		return cli_usage(c, "compaction is not implemented yet; "
				 "`ktraj gc --dry-run` reports what it would reclaim");
	if ((rc = cli_open(c, 0, &s)) != 0)
		return rc;
	g.s = s;
	rc = kt_run_foreach(s, add_hidden, &g);
	if (!rc)
		rc = kt_run_marks_stats(s, &ms);
	if (rc) {
		rc = cli_store_err(c, s, rc, "gc");
		goto out;
	}
	if (json) {
		printf("{\"hidden_runs\":%llu,\"hidden_events\":%llu,"
		       "\"hidden_event_bytes\":%llu,\"superseded_records\":%llu,"
		       "\"superseded_bytes\":%llu,\"reclaimable_bytes\":%llu}\n",
		       (unsigned long long)g.runs, (unsigned long long)g.events,
		       (unsigned long long)g.bytes,
		       (unsigned long long)ms.superseded,
		       (unsigned long long)ms.superseded_bytes,
		       (unsigned long long)(g.bytes + ms.superseded_bytes));
		goto out;
	}
	printf("hidden runs          %llu (%llu events, %llu bytes stored)\n",
	       (unsigned long long)g.runs, (unsigned long long)g.events,
	       (unsigned long long)g.bytes);
	printf("superseded records   %llu (%llu bytes)\n",
	       (unsigned long long)ms.superseded,
	       (unsigned long long)ms.superseded_bytes);
	printf("a compaction would reclaim about %llu bytes; dry run, nothing changed\n",
	       (unsigned long long)(g.bytes + ms.superseded_bytes));
out:
	kt_store_close(s);
	return rc;
}
