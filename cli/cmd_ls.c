/* cmd_ls.c - `ktraj ls`: the runs of the store. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "../export/export.h"
#include "outfmt.h"

static const char usage[] =
	"usage: ktraj ls [--json]\n"
	"\n"
	"List the runs of the store: id, events, format, creation time, name.\n"
	"--json prints one object per run: run, name, format, events, created\n"
	"(ns since the epoch or null), meta.\n";

struct ls_ctx {
	int json, n;
};

static int ls_row(const kt_run_info *ri, void *arg)
{
	struct ls_ctx *x = arg;
	char when[32];

	x->n++;
	if (x->json) {
		cJSON *o = cJSON_CreateObject(), *meta;

		if (!o)
			return KT_ENOMEM;
		cJSON_AddStringToObject(o, "run", ri->id);
		cJSON_AddStringToObject(o, "name", ri->name ? ri->name : "");
		cJSON_AddStringToObject(o, "format", ri->format ? ri->format : "");
		cJSON_AddNumberToObject(o, "events", (double)ri->n_events);
		kt_export_add_ns(o, "created", ri->created_ns);
		meta = ri->meta_json ? cJSON_Parse(ri->meta_json) : NULL;
		if (meta)
			cJSON_AddItemToObject(o, "meta", meta);
		return cli_put_json(o);
	}
	if (x->n == 1)
		printf("%-12s %8s  %-12s %-19s  %s\n", "RUN", "EVENTS", "FORMAT",
		       "CREATED (UTC)", "NAME");
	cli_ts_short(ri->created_ns, when, sizeof(when));
	printf("%-12.12s %8llu  %-12s %-19s  %s\n", ri->id,
	       (unsigned long long)ri->n_events, ri->format ? ri->format : "",
	       when, ri->name ? ri->name : "");
	return 0;
}

int cmd_ls(struct cli *c, int argc, char **argv)
{
	struct ls_ctx x = { 0, 0 };
	kt_store *s = NULL;
	int i, rc;

	if (cli_wants_help(argc, argv, usage))
		return KT_EXIT_OK;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			x.json = 1;
		else
			return cli_usage(c, "unexpected argument '%s'", argv[i]);
	}
	rc = cli_open(c, 0, &s);
	if (rc)
		return rc;
	rc = kt_run_foreach(s, ls_row, &x);
	if (rc < 0)
		rc = cli_store_err(c, s, rc, "listing runs");
	else if (x.n == 0 && !x.json)
		fprintf(stderr, "no runs in %s (add some with `ktraj import`)\n",
			c->store_path);
	kt_store_close(s);
	return rc;
}
