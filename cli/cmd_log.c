/* cmd_log.c - `ktraj log RUN`: the events of a run, one per line. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "../export/export.h"
#include "../analyze/analyze.h"
#include "outfmt.h"

static const char usage[] =
	"usage: ktraj log RUN [--kind KIND] [--from SEQ] [--to SEQ] [--json]\n"
	"\n"
	"List the events of a run: seq, time (UTC), kind, actor and a one-line\n"
	"summary.  --kind keeps one kind (message, tool_call, tool_result, edit,\n"
	"compile, bench, profile, question, replay, note).\n"
	"--json prints one object per event: seq, kind, actor, ts (ns or null),\n"
	"parent (seq or null) and per kind: message role, human, text;\n"
	"tool_call tool, call_id; tool_result call_id, ok, exit_code; edit path,\n"
	"op; compile exit_code, command; bench correct (null: not checked),\n"
	"time_ms, speedup, status, and the measurement model's fields\n"
	"(FORMAT.md): workload, scenario, metric, baseline, source, candidate\n"
	"(null when absent), series (the series key `blame speedup` groups by)\n"
	"and sweep (its number when the result is one of a sweep, else null);\n"
	"replay step, verdict; question text, origin; note text; profile tool.\n";

/* The payload fields a log row carries, per kind (index = enum kt_kind). */
static const char *const row_fields[KT_KIND_MAX_ + 1][5] = {
	[KT_KIND_MESSAGE] = { "role", "human", "text" },
	[KT_KIND_TOOL_CALL] = { "tool", "call_id" },
	[KT_KIND_TOOL_RESULT] = { "call_id", "ok", "exit_code" },
	[KT_KIND_EDIT] = { "path", "op" },
	[KT_KIND_COMPILE] = { "exit_code", "command" },
	[KT_KIND_BENCH] = { "correct", "time_ms", "speedup", "status" },
	[KT_KIND_PROFILE] = { "tool" },
	[KT_KIND_QUESTION] = { "text", "origin" },
	[KT_KIND_REPLAY] = { "step", "verdict" },
	[KT_KIND_NOTE] = { "text" },
};

struct log_ctx {
	int json;
	int err;
	kt_an_run *an;  /* the run as the analyzers read it (bench keys) */
};

/* The measurement model's fields of a bench row, and its series key. */
static void bench_key_json(cJSON *o, cJSON *p, const kt_an_run *an,
			   uint64_t seq)
{
	static const char *const f[] = {"workload", "scenario", "metric",
					"baseline", "source", "candidate",
					"source_hash"};
	long i = an ? kt_an_run_find(an, seq) : -1;
	const kt_an_meas *m = i >= 0 && an->ev[i].meas >= 0 ?
			      &an->m[an->ev[i].meas] : NULL;

	if (!cJSON_GetObjectItemCaseSensitive(o, "correct"))
		cJSON_AddNullToObject(o, "correct");
	for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++) {
		const char *v = cli_jstr(p, f[k]);

		if (v)
			cJSON_AddStringToObject(o, f[k], v);
		else
			cJSON_AddNullToObject(o, f[k]);
	}
	if (m)
		cJSON_AddStringToObject(o, "series", m->key);
	else
		cJSON_AddNullToObject(o, "series");
	if (m && m->sweep >= 0)
		cJSON_AddNumberToObject(o, "sweep", (double)m->sweep + 1);
	else
		cJSON_AddNullToObject(o, "sweep");
}

static int log_json(const kt_event *ev, cJSON *p, const kt_an_run *an)
{
	cJSON *o = cJSON_CreateObject();
	const char *kn = kt_kind_name(ev->kind);
	int i;

	if (!o)
		return KT_ENOMEM;
	cJSON_AddNumberToObject(o, "seq", (double)ev->seq);
	cJSON_AddStringToObject(o, "kind", kn ? kn : "unknown");
	cJSON_AddStringToObject(o, "actor", ev->actor ? ev->actor : "");
	kt_export_add_ns(o, "ts", ev->ts_ns);
	if (ev->parent)
		cJSON_AddNumberToObject(o, "parent", (double)ev->parent);
	else
		cJSON_AddNullToObject(o, "parent");
	if (ev->kind > 0 && ev->kind <= KT_KIND_MAX_)
		for (i = 0; i < 5 && row_fields[ev->kind][i]; i++) {
			cJSON *v = cJSON_GetObjectItemCaseSensitive(p, row_fields[ev->kind][i]);

			if (v)
				cJSON_AddItemToObject(o, row_fields[ev->kind][i],
						      cJSON_Duplicate(v, 1));
		}
	if (ev->kind == KT_KIND_BENCH)
		bench_key_json(o, p, an, ev->seq);
	return cli_put_json(o);
}

static int log_row(const kt_event *ev, void *arg)
{
	struct log_ctx *x = arg;
	cJSON *p = cJSON_ParseWithLength(ev->payload, ev->payload_len);
	const char *kn = kt_kind_name(ev->kind);
	char when[32], raw[512], line[200];
	int rc = 0;

	if (x->json) {
		rc = log_json(ev, p, x->an);
	} else {
		kt_export_ts_short(ev->ts_ns, when, sizeof(when));
		kt_export_event_summary(ev, p, raw, sizeof(raw));
		cli_oneline(raw, 120, line);
		printf("%6llu  %-19s  %-11s %-12.12s %s\n",
		       (unsigned long long)ev->seq, when, kn ? kn : "?",
		       ev->actor ? ev->actor : "", line);
	}
	cJSON_Delete(p);
	if (rc)
		x->err = rc;
	return rc;
}

int cmd_log(struct cli *c, int argc, char **argv)
{
	struct log_ctx x = { 0, 0, NULL };
	const char *spec = NULL;
	char run[KT_RUN_ID_HEX + 1];
	uint64_t from = 1, to = 0;
	kt_store *s = NULL;
	int i, rc, kind = 0;

	if (cli_wants_help(argc, argv, usage))
		return KT_EXIT_OK;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			x.json = 1;
		} else if (!strcmp(argv[i], "--kind") &&
			   cli_has_value(argc, argv, i)) {
			kind = kt_kind_from_name(argv[++i]);
			if (!kind)
				return cli_usage(c, "unknown kind '%s'", argv[i]);
		} else if ((!strcmp(argv[i], "--from") || !strcmp(argv[i], "--to")) &&
			   cli_has_value(argc, argv, i)) {
			uint64_t *dst = argv[i][2] == 'f' ? &from : &to;

			if (cli_u64(argv[i + 1], dst))
				return cli_usage(c, "%s needs a sequence number", argv[i]);
			i++;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_bad_option(c, usage, argv[i]);
		} else if (!spec) {
			spec = argv[i];
		} else {
			return cli_usage(c, "unexpected argument '%s'", argv[i]);
		}
	}
	if (!spec)
		return cli_usage(c, "which run? (ktraj log RUN)");
	/* to 0 is the end of the run */
	if (to && to < from)
		return cli_usage(c, "--from %llu is after --to %llu",
				 (unsigned long long)from, (unsigned long long)to);
	rc = cli_open(c, 0, &s);
	if (rc)
		return rc;
	rc = cli_run(c, s, spec, run);
	if (rc)
		goto out;
	/* bench rows show their series key, which needs the run's results */
	if (x.json && (!kind || kind == KT_KIND_BENCH) &&
	    (rc = kt_an_run_load(s, run, &x.an))) {
		rc = cli_store_err(c, s, rc, "reading events");
		goto out;
	}
	rc = kt_event_foreach(s, run, from ? from : 1, to, kind, log_row, &x);
	if (rc)
		rc = cli_store_err(c, s, rc, "reading events");
out:
	kt_an_run_free(x.an);
	kt_store_close(s);
	return rc;
}
