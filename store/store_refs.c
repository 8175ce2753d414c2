/*
 * store_refs.c - the blob references of event payloads (FORMAT.md §3 "Blob
 * references"; which fields hold them is the event model's,
 * store/event_model.c): the check that each names a stored
 * blob (kt_store_verify_blobrefs, in store_verify.c, walks every event with
 * it), and which event names a given blob.
 *
 * An edit whose "after" names content that was never stored reads back as
 * a file that does not exist (`ktraj cat`), so writers refuse such events
 * (`ktraj append`, the ktraj JSONL importer) and `ktraj verify` reports
 * one already stored.  The fields are named by the schema, not found by
 * looking for hex text: a 64-hex string elsewhere (a commit id, a source
 * hash, a tool argument) is text, and a missing blob there is no error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "store_int.h"

struct check {
	kt_store *s;
	kt_blobref *bad;
	int err;
};

static int check_one(kt_blobref *r, void *arg)
{
	struct check *c = arg;
	int rc;

	if (r->ok) {
		rc = kt_blob_exists(c->s, r->hash);
		if (rc == 1)
			return 0;
		c->err = rc < 0 ? rc : KT_ENOTFOUND;
	} else {
		c->err = KT_EINVAL;
	}
	if (c->bad)
		*c->bad = *r;
	return 1;
}

int kt_blobref_check(kt_store *s, int kind, cJSON *payload, kt_blobref *bad)
{
	struct check c = { s, bad, 0 };
	int rc;

	if (!s)
		return KT_EINVAL;
	rc = kt_blobref_foreach(kind, payload, check_one, &c);
	if (rc < 0)
		return rc;
	return c.err;
}

/* ---- the runs a check walks --------------------------------------------- */

static int list_run(const kt_run_info *ri, void *arg)
{
	struct kt_runlist *l = arg;

	if (KT_GROW(l->id, l->cap, l->n + 1))
		return KT_ENOMEM;
	memcpy(l->id[l->n++], ri->id, KT_RUN_ID_HEX + 1);
	return 0;
}

int kt_run_list(kt_store *s, const char *run, struct kt_runlist *l)
{
	if (run) {
		kt_run_info ri;
		int rc = kt_run_get(s, run, &ri);

		return rc ? rc : list_run(&ri, l);
	}
	return kt_run_foreach(s, list_run, l);
}

/* ---- which event names a blob (verify's message) ---------------------- */

struct vfind {
	const unsigned char *hash;
	char hex[KT_HASH_HEX + 1];
	uint64_t seq;
	int kind;
	char field[64];
};

static int find_one(kt_blobref *r, void *arg)
{
	struct vfind *v = arg;

	if (!r->ok || memcmp(r->hash, v->hash, KT_HASH_LEN))
		return 0;
	snprintf(v->field, sizeof(v->field), "%s", r->field);
	return 1;
}

static int find_ev(const kt_event *ev, void *arg)
{
	struct vfind *v = arg;
	cJSON *p;
	int rc;

	/* the hex text first: only payloads holding it are parsed (a
	 * reference field is lower-case hex; kt_unhex takes either case) */
	if (!ev->payload || !memmem(ev->payload, ev->payload_len, v->hex,
				    KT_HASH_HEX))
		return 0;
	p = cJSON_ParseWithLength(ev->payload, ev->payload_len);
	if (!p)
		return 0;
	rc = kt_blobref_foreach(ev->kind, p, find_one, v);
	cJSON_Delete(p);
	if (rc == 1) {
		v->seq = ev->seq;
		v->kind = ev->kind;
	}
	return rc;
}

int kt_blobref_find(kt_store *s, const char *run,
		    const unsigned char hash[KT_HASH_LEN],
		    char out[KT_RUN_ID_HEX + 1], uint64_t *seq, char *what,
		    size_t wl)
{
	struct kt_runlist l = { 0 };
	struct vfind v;
	int rc;

	memset(&v, 0, sizeof(v));
	v.hash = hash;
	kt_hex(hash, KT_HASH_LEN, v.hex);
	rc = kt_run_list(s, run, &l);
	for (size_t i = 0; rc == 0 && i < l.n; i++) {
		rc = kt_event_scan(s, l.id[i], 0, 0, 0, KT_READ_BODY, find_ev,
				   &v);
		if (rc == 1) {
			const char *k = kt_kind_name(v.kind);

			memcpy(out, l.id[i], KT_RUN_ID_HEX + 1);
			*seq = v.seq;
			snprintf(what, wl, "%s \"%s\"", k ? k : "event",
				 v.field);
			rc = 0;
			goto out;
		}
	}
	if (rc == 0)
		rc = KT_ENOTFOUND;
out:
	free(l.id);
	return rc;
}

/* ---- the blob references of raw payload text (verify, stats) ---------- */

static int hash_cmp(const void *a, const void *b)
{
	return memcmp(a, b, KT_HASH_LEN);
}

/* Collect "<64 hex>" JSON strings of a text: the blobs it references. */
int kt_collect_refs(const char *p, size_t n, struct kt_buf *refs)
{
	for (size_t i = 0; i + 66 <= n; i++) {
		unsigned char h[KT_HASH_LEN];
		char tmp[KT_HASH_HEX + 1];

		if (p[i] != '"' || p[i + 65] != '"')
			continue;
		memcpy(tmp, p + i + 1, KT_HASH_HEX);
		tmp[KT_HASH_HEX] = 0;
		if (kt_unhex(tmp, h, KT_HASH_LEN))
			continue;
		if (kt_buf_reserve(refs, refs->len + KT_HASH_LEN))
			return KT_ENOMEM;
		memcpy(refs->p + refs->len, h, KT_HASH_LEN);
		refs->len += KT_HASH_LEN;
		i += 65;
	}
	return 0;
}

/* Sort and deduplicate refs; returns the count. */
size_t kt_refs_uniq(struct kt_buf *refs)
{
	size_t n = refs->len / KT_HASH_LEN, u = 0;

	if (n)
		qsort(refs->p, n, KT_HASH_LEN, hash_cmp);
	for (size_t i = 0; i < n; i++)
		if (!u || memcmp(refs->p + (u - 1) * KT_HASH_LEN,
				 refs->p + i * KT_HASH_LEN, KT_HASH_LEN))
			memmove(refs->p + u++ * KT_HASH_LEN,
				refs->p + i * KT_HASH_LEN, KT_HASH_LEN);
	refs->len = u * KT_HASH_LEN;
	return u;
}

int kt_refs_cb(const kt_event *ev, void *arg)
{
	struct kt_buf *refs = arg;

	if (!refs || !ev->payload)
		return 0;
	return kt_collect_refs(ev->payload, ev->payload_len, refs);
}
