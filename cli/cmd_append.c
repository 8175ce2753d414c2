/* cmd_append.c - `ktraj append NAME`: live recording from stdin. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "../import/ktraj_jsonl.h"

static const char usage[] =
	"usage: ktraj append NAME [--json]\n"
	"\n"
	"Read ktraj JSONL from stdin (FORMAT.md \"JSONL\"; what `ktraj export\n"
	"--format jsonl` writes) and append each event to run NAME, creating\n"
	"the run with identity \"append:NAME\" (so its id is the same in every\n"
	"store).  Each line is committed durably before the next is read, so a\n"
	"recorder may stream events as they happen.\n"
	"An event line needs \"kind\" and \"payload\"; \"seq\" may be left out\n"
	"(the next one) or given (it must be the next one: a seq that exists\n"
	"fails), \"actor\" defaults to \"agent\", a missing \"ts\" is the time of\n"
	"arrival (null: unknown).  A \"hash\" field is checked against the\n"
	"stored event.  Blob lines {\"blob\",\"text\"|\"base64\"} store file\n"
	"contents for later events.  The first bad line stops the command;\n"
	"what came before it stays.  Prints what was appended (--json: one\n"
	"object).\n";

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct app {
	struct cli *c;
	kt_store *s;
	const char *name;
	char run[KT_RUN_ID_HEX + 1];
	int have_run;
	uint64_t n;      /* events in the run */
	uint64_t added, blobs;
};

/* The run exists after this (created on the first event). */
static int ensure_run(struct app *a)
{
	kt_run_info ri;
	char ident[1100], *meta;
	cJSON *m;
	int rc;

	if (a->have_run)
		return 0;
	snprintf(ident, sizeof(ident), "append:%s", a->name);
	kt_run_id_from_identity(ident, a->run);
	rc = kt_run_get(a->s, a->run, &ri);
	if (rc == 0) {
		a->n = ri.n_events;
		a->have_run = 1;
		return 0;
	}
	if (rc != KT_ENOTFOUND)
		return rc;
	m = cJSON_CreateObject();
	if (!m)
		return KT_ENOMEM;
	cJSON_AddStringToObject(m, "identity", ident);
	cJSON_AddStringToObject(m, "source", "append");
	meta = cJSON_PrintUnformatted(m);
	cJSON_Delete(m);
	if (!meta)
		return KT_ENOMEM;
	rc = kt_run_create(a->s, a->run, a->name, "append", meta);
	free(meta);
	if (rc == 0) {
		a->n = 0;
		a->have_run = 1;
	}
	return rc;
}

/* One line in one durable transaction.  Prints its own error. */
static int append_line(struct app *a, const char *line, size_t len,
		       uint64_t lineno)
{
	kt_jsonl_rec r;
	kt_event ev;
	char err[200], *payload = NULL, *prov = NULL;
	unsigned char h[KT_HASH_LEN];
	int rc;

	rc = kt_jsonl_parse(line, len, &r, err, sizeof(err));
	if (rc == KT_ENOMEM)
		return cli_err(a->c, "line %llu: out of memory",
			       (unsigned long long)lineno);
	if (rc) {
		cli_err(a->c, "line %llu: %s", (unsigned long long)lineno, err);
		return KT_EXIT_FAIL;
	}
	rc = kt_store_begin(a->s);
	if (rc)
		goto store_err;
	if (r.is_blob) {
		rc = kt_blob_put(a->s, r.data, r.len, r.path, h);
		if (!rc)
			rc = kt_store_commit(a->s);
		if (rc)
			goto store_err;
		a->blobs++;
		kt_jsonl_release(&r);
		return 0;
	}
	rc = ensure_run(a);
	if (rc)
		goto store_err;
	if (r.has_seq && r.seq <= a->n) {
		kt_store_abort(a->s);
		cli_err(a->c, "line %llu: seq %llu exists (run %s has %llu events); events are never rewritten",
			(unsigned long long)lineno, (unsigned long long)r.seq,
			a->name, (unsigned long long)a->n);
		kt_jsonl_release(&r);
		return KT_EXIT_FAIL;
	}
	if (r.has_seq && r.seq > a->n + 1) {
		kt_store_abort(a->s);
		cli_err(a->c, "line %llu: seq %llu would leave a gap (run %s has %llu events; the next is %llu)",
			(unsigned long long)lineno, (unsigned long long)r.seq,
			a->name, (unsigned long long)a->n,
			(unsigned long long)a->n + 1);
		kt_jsonl_release(&r);
		return KT_EXIT_FAIL;
	}
	payload = cJSON_PrintUnformatted(r.payload);
	prov = r.prov ? cJSON_PrintUnformatted(r.prov) : NULL;
	if (!payload || (r.prov && !prov)) {
		rc = KT_ENOMEM;
		goto store_err;
	}
	memset(&ev, 0, sizeof(ev));
	ev.seq = r.has_seq ? r.seq : a->n + 1;
	ev.parent = r.parent;
	ev.ts_ns = r.has_ts ? r.ts_ns : now_ns();
	ev.kind = r.kind;
	ev.actor = r.actor ? r.actor : "agent";
	ev.prov_json = prov;
	ev.payload = payload;
	ev.payload_len = strlen(payload);
	ev.flags = KT_EV_CANONICAL; /* printed by cJSON from a parsed tree */
	rc = kt_event_append(a->s, a->run, &ev);
	if (rc)
		goto store_err;
	if (r.has_hash && memcmp(ev.hash, r.hash, KT_HASH_LEN)) {
		kt_store_abort(a->s);
		cli_err(a->c, "line %llu: seq %llu does not hash to the \"hash\" it carries (changed in transit?); not appended",
			(unsigned long long)lineno, (unsigned long long)ev.seq);
		rc = KT_EXIT_FAIL;
		goto out;
	}
	rc = kt_store_commit(a->s);
	if (rc)
		goto store_err;
	a->n = ev.seq;
	a->added++;
	goto out;
store_err:
	kt_store_abort(a->s);
	{
		char what[64];

		snprintf(what, sizeof(what), "line %llu", (unsigned long long)lineno);
		rc = cli_store_err(a->c, a->s, rc, what);
	}
out:
	free(payload);
	free(prov);
	kt_jsonl_release(&r);
	return rc;
}

int cmd_append(struct cli *c, int argc, char **argv)
{
	struct app a;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	uint64_t lineno = 0;
	int i, rc = 0, json = 0;

	if (cli_wants_help(argc, argv, usage))
		return KT_EXIT_OK;
	memset(&a, 0, sizeof(a));
	a.c = c;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (argv[i][0] == '-' && argv[i][1])
			return cli_usage(c, "unknown option '%s'", argv[i]);
		else if (!a.name)
			a.name = argv[i];
		else
			return cli_usage(c, "unexpected argument '%s'", argv[i]);
	}
	if (!a.name || !*a.name)
		return cli_usage(c, "needs the run NAME");
	if (strlen(a.name) > 1000)
		return cli_usage(c, "NAME is too long");
	rc = cli_open(c, 0, &a.s);
	if (rc)
		return rc;
	while ((n = getline(&line, &cap, stdin)) > 0) {
		size_t l = (size_t)n;

		lineno++;
		while (l && (line[l - 1] == '\n' || line[l - 1] == '\r'))
			l--;
		if (strspn(line, " \t") >= l)
			continue;
		rc = append_line(&a, line, l, lineno);
		if (rc)
			break;
	}
	if (!rc && ferror(stdin))
		rc = cli_err(c, "reading stdin failed");
	if (!rc && !a.have_run && !a.blobs)
		fprintf(stderr, "ktraj: append: no events on stdin\n");
	if ((a.have_run || a.blobs) && (!rc || a.added || a.blobs)) {
		FILE *o = rc ? stderr : stdout;

		if (json) {
			fprintf(o, "{\"run\":\"%s\",\"name\":", a.have_run ? a.run : "");
			cli_json_str(o, a.name);
			fprintf(o, ",\"added\":%llu,\"events\":%llu,\"blobs\":%llu}\n",
				(unsigned long long)a.added,
				(unsigned long long)a.n, (unsigned long long)a.blobs);
		}
		else
			fprintf(o, "%s%llu events appended to %s (run %s, %llu events)\n",
				rc ? "before the error: " : "",
				(unsigned long long)a.added, a.name,
				a.have_run ? a.run : "-", (unsigned long long)a.n);
	}
	free(line);
	{
		int rc2 = kt_store_close(a.s);

		if (!rc && rc2)
			rc = cli_store_err(c, NULL, rc2, "closing the store");
	}
	return rc;
}
