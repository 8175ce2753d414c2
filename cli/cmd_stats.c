/* cmd_stats.c - `ktraj stats [RUN]`: sizes and counts. */
#include <string.h>

#include "cli.h"

static const char usage[] =
	"usage: ktraj stats [RUN] [--json]\n"
	"\n"
	"Counts and sizes of the whole store (or of RUN): runs, events per\n"
	"kind, blobs, compression dictionaries, store file size, and raw\n"
	"against stored bytes of events and blobs.  --json prints one object.\n";

static double ratio(uint64_t raw, uint64_t stored)
{
	return stored ? (double)raw / (double)stored : 0.0;
}

int cmd_stats(struct cli *c, int argc, char **argv)
{
	const char *spec = NULL;
	char run[KT_RUN_ID_HEX + 1];
	kt_store_stats st;
	kt_store *s = NULL;
	int i, k, rc, json = 0;

	if (cli_wants_help(argc, argv, usage))
		return KT_EXIT_OK;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (argv[i][0] == '-' && argv[i][1])
			return cli_usage(c, "unknown option '%s'", argv[i]);
		else if (!spec)
			spec = argv[i];
		else
			return cli_usage(c, "unexpected argument '%s'", argv[i]);
	}
	if ((rc = cli_open_run(c, spec, &s, run)))
		goto out;
	memset(&st, 0, sizeof(st));
	rc = kt_store_stats_get(s, spec ? run : NULL, &st);
	if (rc) {
		rc = cli_store_err(c, s, rc, "stats");
		goto out;
	}
	if (json) {
		printf("{");
		if (spec)
			printf("\"run\":\"%s\",", run);
		printf("\"runs\":%llu,\"events\":%llu,\"blobs\":%llu,\"dicts\":%llu,"
		       "\"file_bytes\":%llu,\"event_raw_bytes\":%llu,"
		       "\"event_stored_bytes\":%llu,\"blob_raw_bytes\":%llu,"
		       "\"blob_stored_bytes\":%llu,\"events_by_kind\":{",
		       (unsigned long long)st.runs, (unsigned long long)st.events,
		       (unsigned long long)st.blobs, (unsigned long long)st.dicts,
		       (unsigned long long)st.file_bytes,
		       (unsigned long long)st.event_raw_bytes,
		       (unsigned long long)st.event_stored_bytes,
		       (unsigned long long)st.blob_raw_bytes,
		       (unsigned long long)st.blob_stored_bytes);
		for (k = 1; k <= KT_KIND_MAX_; k++)
			printf("%s\"%s\":%llu", k > 1 ? "," : "", kt_kind_name(k),
			       (unsigned long long)st.events_by_kind[k]);
		printf("}}\n");
		goto out;
	}
	if (spec)
		printf("run              %s\n", run);
	printf("runs             %llu\n", (unsigned long long)st.runs);
	printf("events           %llu\n", (unsigned long long)st.events);
	for (k = 1; k <= KT_KIND_MAX_; k++)
		if (st.events_by_kind[k])
			printf("  %-14s %llu\n", kt_kind_name(k),
			       (unsigned long long)st.events_by_kind[k]);
	printf("blobs            %llu\n", (unsigned long long)st.blobs);
	printf("dictionaries     %llu\n", (unsigned long long)st.dicts);
	printf("store file       %llu bytes\n", (unsigned long long)st.file_bytes);
	printf("event bytes      %llu raw, %llu stored (%.2fx)\n",
	       (unsigned long long)st.event_raw_bytes,
	       (unsigned long long)st.event_stored_bytes,
	       ratio(st.event_raw_bytes, st.event_stored_bytes));
	printf("blob bytes       %llu raw, %llu stored (%.2fx)\n",
	       (unsigned long long)st.blob_raw_bytes,
	       (unsigned long long)st.blob_stored_bytes,
	       ratio(st.blob_raw_bytes, st.blob_stored_bytes));
out:
	kt_store_close(s);
	return rc;
}
