/*
 * store_record.c - live recording: one event appended durably in a
 * transaction of its own (store.h "Live recording").  `append`, `hook`,
 * `bench --record` and `replay` all write through here, so the rules (next
 * seq read inside the transaction, the run created with its first event,
 * blob and event committed together) live in one place.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "store.h"

int64_t kt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void kt_rec_event_init(kt_rec_event *e, int kind, const char *actor,
		       uint64_t parent, cJSON *payload)
{
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->actor = actor;
	e->parent = parent;
	e->payload = payload;
	e->ts_ns = kt_now_ns();
}

int kt_record_run(kt_store *s, const char *name, const char *source,
		  char run[KT_RUN_ID_HEX + 1], int *exists, int *refused)
{
	char ident[1100];
	const unsigned char *p = (const unsigned char *)name;
	size_t n, i;
	int rc, bad;

	*refused = 0;
	rc = kt_run_resolve(s, name, run);
	if (rc == 0) {
		kt_run_info ri;

		/* a write goes to a run named exactly, or by its full id: a
		 * short name that happens to be a prefix of an imported run's
		 * id ("beef", "cafe") must not append to that run */
		if (strcmp(name, run) != 0 && (rc = kt_run_get(s, run, &ri)))
			return rc;
		if (strcmp(name, run) != 0 &&
		    (!ri.name || strcmp(ri.name, name) != 0)) {
			*refused = 1;
			return KT_EEXIST;
		}
		*exists = 1;
		return 0;
	}
	if (rc == KT_EAMBIG)
		*refused = 1;
	if (rc != KT_ENOTFOUND)
		return rc;
	/* a new run's name is printed by ls, tables and reports: one line of
	 * valid UTF-8, as the importer makes imported names (runname.c).
	 * Refused rather than cleaned: the identity, hence the run id, is
	 * made from the name as given. */
	n = strlen(name);
	bad = !kt_is_text(name, n);
	for (i = 0; i < n && !bad; i++)
		bad = p[i] < 0x20 || p[i] == 0x7f;
	if (bad) {
		*refused = 1;
		return KT_EINVAL;
	}
	snprintf(ident, sizeof(ident), "%s:%s", source, name);
	kt_run_id_from_identity(ident, run);
	*exists = 0;
	return 0;
}

/* The run record of a run created by kt_record: its identity (so the id
 * can be recomputed), its source and the caller's fields. */
static char *new_meta(const kt_rec_event *e)
{
	cJSON *m = e->new_meta ? cJSON_Duplicate(e->new_meta, 1) :
		cJSON_CreateObject();
	char ident[1100], *t;

	if (!m)
		return NULL;
	snprintf(ident, sizeof(ident), "%s:%s", e->new_source, e->new_name);
	if (!cJSON_GetObjectItemCaseSensitive(m, "identity"))
		cJSON_AddStringToObject(m, "identity", ident);
	if (!cJSON_GetObjectItemCaseSensitive(m, "source"))
		cJSON_AddStringToObject(m, "source", e->new_source);
	t = cJSON_PrintUnformatted(m);
	cJSON_Delete(m);
	return t;
}

int kt_record_create(kt_store *s, const char *run, const char *name,
		     const char *source, const cJSON *meta)
{
	kt_rec_event e;
	char *m;
	int rc;

	memset(&e, 0, sizeof(e));
	e.new_name = name;
	e.new_source = source;
	e.new_meta = meta;
	m = new_meta(&e);
	if (!m)
		return KT_ENOMEM;
	rc = kt_run_create(s, run, name, source, m);
	free(m);
	return rc;
}

/* Everything between begin and commit; the caller aborts on error. */
static int record_txn(kt_store *s, const char *run, kt_rec_event *e,
		      kt_event *ev, char **text, char **prov)
{
	kt_run_info ri;
	int rc;

	rc = kt_run_get(s, run, &ri);
	if (rc == KT_ENOTFOUND && e->new_name) {
		char *meta = new_meta(e);

		if (!meta)
			return KT_ENOMEM;
		rc = kt_run_create(s, run, e->new_name, e->new_source, meta);
		free(meta);
		ri.n_events = 0;
		if (!rc)
			e->created = 1;
	}
	if (rc)
		return rc;
	e->run_events = ri.n_events;
	if (e->blob) {
		unsigned char h[KT_HASH_LEN];
		char hex[KT_HASH_HEX + 1];

		rc = kt_blob_put(s, e->blob, e->blob_len, e->blob_hint, h);
		if (rc)
			return rc;
		kt_hex(h, KT_HASH_LEN, hex);
		cJSON_DeleteItemFromObjectCaseSensitive(e->payload, e->blob_key);
		if (!cJSON_AddStringToObject(e->payload, e->blob_key, hex))
			return KT_ENOMEM;
	}
	*text = cJSON_PrintUnformatted(e->payload);
	*prov = e->prov ? cJSON_PrintUnformatted(e->prov) : NULL;
	if (!*text || (e->prov && !*prov))
		return KT_ENOMEM;
	memset(ev, 0, sizeof(*ev));
	ev->seq = e->seq ? e->seq : ri.n_events + 1;
	ev->parent = e->parent;
	ev->ts_ns = e->ts_ns;
	ev->kind = e->kind;
	ev->actor = e->actor;
	ev->prov_json = *prov;
	ev->payload = *text;
	ev->payload_len = strlen(*text);
	ev->flags = KT_EV_CANONICAL; /* printed by cJSON from a tree */
	rc = kt_event_append(s, run, ev);
	if (rc)
		return rc;
	if (e->expect && memcmp(ev->hash, e->expect, KT_HASH_LEN)) {
		e->mismatch = 1;
		return KT_ECORRUPT;
	}
	return 0;
}

int kt_record(kt_store *s, const char *run, kt_rec_event *e)
{
	kt_event ev;
	char *text = NULL, *prov = NULL;
	int rc;

	e->created = e->mismatch = 0;
	rc = kt_store_begin(s);
	if (rc)
		return rc;
	rc = record_txn(s, run, e, &ev, &text, &prov);
	if (rc) {
		kt_store_abort(s);
		e->created = 0;
		goto out;
	}
	rc = kt_store_commit(s);
	if (rc) {
		e->created = 0;
		goto out;
	}
	e->seq = ev.seq;
	e->run_events = ev.seq;
	memcpy(e->hash, ev.hash, KT_HASH_LEN);
out:
	free(text);
	free(prov);
	return rc;
}
