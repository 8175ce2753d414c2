/* cmd_append.c - `ktraj append NAME`: live recording from stdin. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "../import/ktraj_jsonl.h"
#include "../import/jsonstrict.h"

static const char usage[] =
	"usage: ktraj append NAME [--json]\n"
	"\n"
	"Read ktraj JSONL from stdin (FORMAT.md \"JSONL\"; what `ktraj export\n"
	"--format jsonl` writes) and append each event to run NAME: the run NAME\n"
	"names (its full id or its name; a mere id prefix is refused, so a\n"
	"short name never lands in another run), else a new run named NAME\n"
	"with identity \"append:NAME\"\n"
	"(so its id is the same in every store), created with the first event;\n"
	"a new run's NAME must be one line of valid UTF-8.\n"
	"A NAME that matches several runs is an error.  Each line is committed\n"
	"durably before the next is read, so a recorder may stream events as\n"
	"they happen.\n"
	"An event line needs \"kind\" and \"payload\"; \"seq\" may be left out\n"
	"(the next one) or given (it must be the next one: a seq that exists\n"
	"fails), \"actor\" defaults to \"agent\", a missing \"ts\" is the time of\n"
	"arrival (null: unknown; a negative one is refused).  A \"hash\" field\n"
	"is checked against the stored event.  The payload's fields that\n"
	"FORMAT.md section 2 types (\"correct\" true/false/null, \"time_ms\"\n"
	"a number >= 0, \"op\" one of its values...) must have their type;\n"
	"other fields are kept as given.  Blob lines\n"
	"{\"blob\",\"text\"|\"base64\"} store file contents for later events;\n"
	"a blob an event names (edit before/after, *_blob fields, observed and\n"
	"images) must be stored already or come on an earlier line, else the\n"
	"event is refused.  A blob line creates the run NAME like an event\n"
	"does (stdin with blob lines only leaves a run of 0 events, which the\n"
	"next append adds to); stdin without events or blobs creates nothing.\n"
	"A run line {\"run\":{...}} (what export writes first) gives a new run\n"
	"the exported run's meta (its working directory, task, ...; the\n"
	"exported id, format, identity and source go to meta \"origin\"); a\n"
	"run that exists keeps its own.\n"
	"The first bad line stops the command; what came before it stays.\n"
	"Exit 1 for a bad line (the error names its line), 2 for bad usage.\n"
	"Prints what was appended (--json: one object).\n";

struct app {
	struct cli *c;
	kt_store *s;
	const char *name;
	char run[KT_RUN_ID_HEX + 1];
	int have_run;    /* the run exists (found, or created by an event
			    or a blob line) */
	uint64_t n;      /* events in the run */
	uint64_t added, blobs;
	cJSON *meta;     /* a new run's meta, from the input's run line */
};

/*
 * The meta of the run NAME creates, from a run line (what `export` writes
 * first): every field of the exported run's meta (its working directory
 * "cwd", task, sources...) is kept, so a replay bundle of the copy finds
 * its workspace as the original's does.  identity and source are the new
 * run's ("append:NAME", "append": its id is derived from them); the
 * exported run's id, format, identity and source go to "origin".
 */
static int take_run_line(struct app *a, const kt_jsonl_rec *r)
{
	cJSON *m = r->meta ? cJSON_Duplicate(r->meta, 1) : cJSON_CreateObject();
	cJSON *o = cJSON_CreateObject();
	static const char *const moved[] = { "identity", "source" };
	size_t i;

	if (!m || !o || !cJSON_AddItemToObject(m, "origin", o)) {
		cJSON_Delete(m);
		cJSON_Delete(o);
		return KT_ENOMEM;
	}
	if (r->run)
		cJSON_AddStringToObject(o, "run", r->run);
	if (r->format)
		cJSON_AddStringToObject(o, "format", r->format);
	for (i = 0; i < sizeof(moved) / sizeof(moved[0]); i++) {
		cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(m, moved[i]);

		if (v)
			cJSON_AddItemToObject(o, moved[i], v);
	}
	cJSON_Delete(a->meta);
	a->meta = m;
	return 0;
}

/* A store error on line lineno.  What the line's data caused (a payload
 * the store refuses, an event or blob too large) exits 1 like every bad
 * line, not with the usage code cli_exit_code gives KT_EINVAL. */
static int line_err(struct app *a, uint64_t lineno, int rc)
{
	char what[64];
	int ex;

	snprintf(what, sizeof(what), "line %llu", (unsigned long long)lineno);
	ex = cli_store_err(a->c, a->s, rc, what);
	return rc == KT_EINVAL || rc == KT_ELIMIT || rc == KT_EPARSE ?
		KT_EXIT_FAIL : ex;
}

/* One line in one durable transaction.  Prints its own error. */
static int append_line(struct app *a, const char *line, size_t len,
		       uint64_t lineno)
{
	kt_jsonl_rec r;
	kt_rec_event e;
	char err[200];
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
	if (r.is_run) {
		/* the target run is named on the command line; a new one
		 * takes the line's meta, an existing run keeps its own */
		if (!a->have_run && take_run_line(a, &r))
			rc = cli_err(a->c, "line %llu: out of memory",
				     (unsigned long long)lineno);
		goto out;
	}
	/* ns since the epoch: a time before 1970 is a recorder's bug (a
	 * relative or uninitialized clock), not a time; null is unknown */
	if (r.has_ts && r.ts_ns != KT_TS_UNKNOWN && r.ts_ns < 0) {
		cli_err(a->c, "line %llu: \"ts\" %lld is before 1970 (ns since the epoch; null = unknown); not appended",
			(unsigned long long)lineno, (long long)r.ts_ns);
		rc = KT_EXIT_FAIL;
		goto out;
	}
	if (r.is_blob) {
		/* a blob line creates the run as an event would, in the same
		 * transaction: a recorder that sends file contents first has
		 * its run from then on (and `ls` shows it started) */
		rc = kt_store_begin(a->s);
		if (!rc && !a->have_run) {
			rc = kt_record_create(a->s, a->run, a->name, "append",
					       a->meta);
			if (rc == KT_EEXIST) /* another writer made it */
				rc = 0;
		}
		if (!rc)
			rc = kt_blob_put(a->s, r.data, r.len, r.path, h);
		if (rc)
			kt_store_abort(a->s);
		else
			rc = kt_store_commit(a->s);
		if (rc) {
			rc = line_err(a, lineno, rc);
		} else {
			a->blobs++;
			a->have_run = 1;
		}
		goto out;
	}
	/* a blob the event names must be stored already: an edit whose
	 * "after" names nothing would read back as a file that does not
	 * exist (blobs are never deleted, so checking before the event's
	 * transaction is enough) */
	{
		kt_blobref bad;
		const char *k = kt_kind_name(r.kind);

		rc = kt_blobref_check(a->s, r.kind, r.payload, &bad);
		if (rc == KT_ENOTFOUND) {
			cli_err(a->c, "line %llu: %s \"%s\" names blob %s, which is not stored (a blob line must come before the first event that names it); not appended",
				(unsigned long long)lineno, k, bad.field,
				bad.item->valuestring);
			rc = KT_EXIT_FAIL;
			goto out;
		}
		if (rc == KT_EINVAL) {
			cli_err(a->c, "line %llu: %s \"%s\" is not a blob hash (64 hex chars or null); not appended",
				(unsigned long long)lineno, k, bad.field);
			rc = KT_EXIT_FAIL;
			goto out;
		}
		if (rc) {
			rc = line_err(a, lineno, rc);
			goto out;
		}
	}
	/* the typed fields of FORMAT.md section 2: readers (log --json,
	 * blame, stats) would misread "correct":"yes" or "time_ms":"fast" */
	if (kt_imp_check_payload(r.kind, r.payload, err, sizeof(err))) {
		cli_err(a->c, "line %llu: %s; not appended",
			(unsigned long long)lineno, err);
		rc = KT_EXIT_FAIL;
		goto out;
	}
	kt_rec_event_init(&e, r.kind, r.actor ? r.actor : "agent", r.parent,
		       r.payload);
	e.seq = r.has_seq ? r.seq : 0;
	if (r.has_ts)
		e.ts_ns = r.ts_ns;
	e.prov = r.prov;
	e.expect = r.has_hash ? r.hash : NULL;
	e.new_name = a->name;
	e.new_source = "append";
	e.new_meta = a->meta;
	rc = kt_record(a->s, a->run, &e);
	if (e.created || !rc)
		a->have_run = 1;
	a->n = e.run_events;
	if (rc == KT_EEXIST) {
		cli_err(a->c, "line %llu: seq %llu exists (run %s has %llu events); events are never rewritten",
			(unsigned long long)lineno, (unsigned long long)r.seq,
			a->name, (unsigned long long)a->n);
		rc = KT_EXIT_FAIL;
	} else if (rc == KT_EINVAL && r.has_seq && r.seq > a->n + 1) {
		cli_err(a->c, "line %llu: seq %llu would leave a gap (run %s has %llu events; the next is %llu)",
			(unsigned long long)lineno, (unsigned long long)r.seq,
			a->name, (unsigned long long)a->n,
			(unsigned long long)a->n + 1);
		rc = KT_EXIT_FAIL;
	} else if (rc == KT_ECORRUPT && e.mismatch) {
		cli_err(a->c, "line %llu: seq %llu does not hash to the \"hash\" it carries (changed in transit?); not appended",
			(unsigned long long)lineno,
			(unsigned long long)(r.has_seq ? r.seq : a->n + 1));
		rc = KT_EXIT_FAIL;
	} else if (rc == KT_EINVAL &&
		   r.parent >= (r.has_seq ? r.seq : a->n + 1)) {
		cli_err(a->c, "line %llu: parent %llu is not an earlier event (this one would be seq %llu of run %s); not appended",
			(unsigned long long)lineno, (unsigned long long)r.parent,
			(unsigned long long)(r.has_seq ? r.seq : a->n + 1),
			a->name);
		rc = KT_EXIT_FAIL;
	} else if (rc) {
		rc = line_err(a, lineno, rc);
	} else {
		a->added++;
	}
out:
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
	rc = cli_record_run(c, a.s, a.name, "append", a.run, &a.have_run);
	if (!rc && a.have_run) {
		kt_run_info ri;

		rc = kt_run_get(a.s, a.run, &ri);
		if (rc)
			rc = cli_store_err(c, a.s, rc, a.name);
		else
			a.n = ri.n_events;
	}
	if (rc) {
		kt_store_close(a.s);
		return rc;
	}
	while ((n = getline(&line, &cap, stdin)) > 0) {
		size_t l = (size_t)n;
		char *t = line;

		lineno++;
		while (l && (line[l - 1] == '\n' || line[l - 1] == '\r'))
			l--;
		/* RFC 8259 section 8.1: a byte order mark opening the input
		 * may be ignored, as the importer does; anywhere else the
		 * line is refused (kt_jsonl_parse) */
		if (lineno == 1 && l >= 3 && !memcmp(t, KT_UTF8_BOM, 3)) {
			t += 3;
			l -= 3;
		}
		if (strspn(t, " \t") >= l)
			continue;
		rc = append_line(&a, t, l, lineno);
		if (rc)
			break;
	}
	if (!rc && ferror(stdin))
		rc = cli_err(c, "reading stdin failed");
	if (!rc && !a.added && !a.blobs)
		fprintf(stderr, "ktraj: append: no events on stdin\n");
	if (a.added || a.blobs) {
		FILE *o = rc ? stderr : stdout;

		if (json) {
			fprintf(o, "{\"run\":\"%s\",\"name\":", a.have_run ? a.run : "");
			cli_json_str(o, a.name);
			fprintf(o, ",\"added\":%llu,\"events\":%llu,\"blobs\":%llu}\n",
				(unsigned long long)a.added,
				(unsigned long long)a.n, (unsigned long long)a.blobs);
		} else {
			fprintf(o, "%s%llu event%s appended to %s (run %s, %llu event%s)",
				rc ? "before the error: " : "",
				(unsigned long long)a.added,
				a.added == 1 ? "" : "s", a.name,
				a.have_run ? a.run : "-", (unsigned long long)a.n,
				a.n == 1 ? "" : "s");
			if (a.blobs)
				fprintf(o, "; %llu blob%s stored",
					(unsigned long long)a.blobs,
					a.blobs == 1 ? "" : "s");
			fputc('\n', o);
		}
	}
	free(line);
	cJSON_Delete(a.meta);
	{
		int rc2 = kt_store_close(a.s);

		if (!rc && rc2)
			rc = cli_store_err(c, NULL, rc2, "closing the store");
	}
	return rc;
}
