/*
 * fuzz_ktraj_import.c - libFuzzer target for the ktraj importer
 * (import/imp_ktraj.c ktraj_import): the input is one ktraj JSONL file,
 * imported with the format forced into a scratch store.  Besides crashes,
 * leaks and a store that no longer verifies, it is a bug when the store
 * refuses an event the importer built (a parent not before its seq, an
 * event over the limits): that fails the transaction and loses the whole
 * file, where the importer must skip or mend the one line (ktraj_jsonl.h).
 * The detector runs on the input too (it looks past a first line that does
 * not parse).  Every event the importer stored must pass the payload type
 * check (store/event_model.h): a line that fails it is skipped, and nothing the
 * importer does to a payload afterwards (moving an edit's "call" or a
 * replay's "step", rewriting blob references under --redact) may make one
 * fail.
 */
#include "fuzz_imp_common.h"
#include "../../import/ktraj_jsonl.h"

static int ev_typed(const kt_event *ev, void *arg)
{
	cJSON *p = cJSON_ParseWithLength(ev->payload, ev->payload_len);
	char why[300];

	(void)arg;
	if (p && kt_imp_check_payload(ev->kind, p, why, sizeof(why))) {
		fprintf(stderr, "stored event %llu fails the type check: %s\n",
			(unsigned long long)ev->seq, why);
		abort();
	}
	cJSON_Delete(p);
	return 0;
}

struct ids {
	char (*id)[KT_RUN_ID_HEX + 1];
	size_t n, cap;
};

/* collected first: no event reads inside the run iteration */
static int run_id(const kt_run_info *ri, void *arg)
{
	struct ids *r = arg;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		void *t = realloc(r->id, cap * sizeof(*r->id));

		if (!t)
			abort();
		r->id = t;
		r->cap = cap;
	}
	memcpy(r->id[r->n++], ri->id, sizeof(*r->id));
	return 0;
}

static void check_typed(void)
{
	struct ids r = { NULL, 0, 0 };
	size_t i;

	(void)kt_run_foreach(fz_store, run_id, &r);
	for (i = 0; i < r.n; i++)
		(void)kt_event_foreach(fz_store, r.id[i], 1, 0, 0, ev_typed,
				       NULL);
	free(r.id);
}

static void on_warn(const char *line, void *arg)
{
	char head[600];
	size_t n;

	(void)arg;
	/* driver.c process_source: "<file>: not imported: <kt_strerror>:
	 * <store message>".  Matched right after the file's own path: a line
	 * warning ("<file>:<line>: unknown kind \"...\"") echoes the input,
	 * which may itself hold these words. */
	n = (size_t)snprintf(head, sizeof(head), "%s/in/a.jsonl: not imported: ",
			     fz_dir);
	if (n >= sizeof(head) || strncmp(line, head, n))
		return;
	if (!strncmp(line + n, "invalid argument", 16) ||
	    !strncmp(line + n, "size limit exceeded", 19)) {
		fprintf(stderr, "whole file refused by the store: %s\n", line);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kt_import_opts o;
	kt_file kf;
	char p[1200], *pp = p;
	unsigned char *copy = malloc(size + 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = 0; /* kt_file data is NUL-terminated past len */
	memset(&kf, 0, sizeof(kf));
	kf.path = kf.rel = "a.jsonl";
	kf.data = copy;
	kf.len = size;
	(void)kt_importer_ktraj.detect(&kf);
	free(copy);
	fz_init();
	fz_put("a.jsonl", data, size);
	memset(&o, 0, sizeof(o));
	o.format = "ktraj";
	o.on_warn = on_warn;
	snprintf(p, sizeof(p), "%s/in/a.jsonl", fz_dir);
	(void)kt_import_paths(fz_store, &pp, 1, &o);
	if (kt_store_verify(fz_store, NULL, NULL, NULL) == KT_ECORRUPT)
		abort();
	check_typed();
	snprintf(p, sizeof(p), "%s/in", fz_dir);
	if (nftw(p, fz_rm, 16, FTW_DEPTH | FTW_PHYS) != 0)
		abort();
	return 0;
}
