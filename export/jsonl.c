/*
 * jsonl.c - `ktraj export --format jsonl`: a run as ktraj JSONL
 * (import/ktraj_jsonl.h, FORMAT.md "JSONL").  A run line with the run's name,
 * format and meta comes first (`ktraj import` restores them, `ktraj
 * append` skips it).  Each blob an event refers to
 * is written once, on a line before the first event that needs it, so
 * `ktraj append` into another store rebuilds the same events and the same
 * workspace, and the event hashes come out identical.
 *
 * With redaction, payloads, provenance and text blobs are redacted; a
 * redacted blob has new content, so its references are rewritten to the new
 * hash, and the event hash and chain are left out (they no longer apply).
 */
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "../import/import.h"
#include "../import/ktraj_jsonl.h"
#include "../import/impx.h"       /* JSON printed as cJSON prints it */
#include "../import/jsonstrict.h" /* kt_json_check */

struct blobset {
	struct bent {
		unsigned char h[KT_HASH_LEN];
		unsigned char nh[KT_HASH_LEN]; /* hash after redaction */
		int used;
	} *e;
	size_t cap, n;
};

static size_t bs_slot(const struct blobset *b, const unsigned char *h)
{
	size_t k;

	memcpy(&k, h, sizeof(k));
	k &= b->cap - 1;
	while (b->e[k].used && memcmp(b->e[k].h, h, KT_HASH_LEN))
		k = (k + 1) & (b->cap - 1);
	return k;
}

static struct bent *bs_find(const struct blobset *b, const unsigned char *h)
{
	size_t k;

	if (!b->cap)
		return NULL;
	k = bs_slot(b, h);
	return b->e[k].used ? &b->e[k] : NULL;
}

static struct bent *bs_add(struct blobset *b, const unsigned char *h)
{
	size_t k, i;

	if (2 * (b->n + 1) > b->cap) {
		struct blobset nb = { 0 };

		nb.cap = b->cap ? 2 * b->cap : 64;
		nb.e = calloc(nb.cap, sizeof(*nb.e));
		if (!nb.e)
			return NULL;
		for (i = 0; i < b->cap; i++)
			if (b->e[i].used)
				nb.e[bs_slot(&nb, b->e[i].h)] = b->e[i];
		nb.n = b->n;
		free(b->e);
		*b = nb;
	}
	k = bs_slot(b, h);
	memcpy(b->e[k].h, h, KT_HASH_LEN);
	b->e[k].used = 1;
	b->n++;
	return &b->e[k];
}

struct ref {
	cJSON *item;       /* the string member holding the hash */
	const char *hint;  /* "path" beside it, or NULL */
	unsigned char h[KT_HASH_LEN];
};

struct refs {
	struct ref *r;
	size_t n, cap;
};

/* Blob references: every string of 64 hex chars in a payload that names a
 * stored blob (edit before/after, observed[].blob, *_blob fields...), the
 * same rule as the store's verify (FORMAT.md "JSONL"). */
static int is_hash_hex(const char *v)
{
	return v && strlen(v) == KT_HASH_HEX &&
	       strspn(v, "0123456789abcdefABCDEF") == KT_HASH_HEX;
}

static int collect(cJSON *node, struct refs *rs)
{
	cJSON *c, *path = cJSON_GetObjectItemCaseSensitive(node, "path");
	const char *hint = cJSON_IsString(path) ? path->valuestring : NULL;

	cJSON_ArrayForEach(c, node) {
		if (cJSON_IsString(c) && is_hash_hex(c->valuestring)) {
			struct ref *r;

			if (KT_GROW(rs->r, rs->cap, rs->n + 1))
				return KT_ENOMEM;
			r = &rs->r[rs->n];
			if (kt_unhex(c->valuestring, r->h, KT_HASH_LEN))
				continue;
			r->item = c;
			r->hint = hint;
			rs->n++;
		} else if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
			int rc = collect(c, rs);

			if (rc)
				return rc;
		}
	}
	return 0;
}

static int put_line(FILE *out, cJSON *o)
{
	char *t = cJSON_PrintUnformatted(o);

	if (!t)
		return KT_ENOMEM;
	fputs(t, out);
	fputc('\n', out);
	free(t);
	return ferror(out) ? KT_EIO : 0;
}

/* Write the blob line of ref (once per export) and note its hash after
 * redaction. */
static int put_blob(kt_store *s, kt_redactor *red, struct blobset *seen,
		    const struct ref *ref, FILE *out, struct kt_buf *line,
		    char *err, size_t errlen, uint64_t seq)
{
	void *data = NULL;
	char *red_data = NULL, *red_path = NULL, *b64 = NULL;
	char hex[KT_HASH_HEX + 1];
	size_t len;
	struct bent *e;
	int rc;

	if (bs_find(seen, ref->h))
		return 0;
	kt_hex(ref->h, KT_HASH_LEN, hex);
	rc = kt_blob_get(s, ref->h, &data, &len);
	if (rc == KT_ENOTFOUND)
		return 0; /* a hex string that names no blob is just text */
	if (rc) {
		snprintf(err, errlen, "seq %llu: blob %s: %s",
			 (unsigned long long)seq, hex, kt_strerror(rc));
		return rc;
	}
	rc = KT_ENOMEM;
	e = bs_add(seen, ref->h);
	if (!e)
		goto out;
	memcpy(e->nh, ref->h, KT_HASH_LEN);
	if (red && kt_export_is_text(data, len)) {
		size_t rl;

		red_data = kt_redact_text(red, data, len, &rl);
		if (!red_data)
			goto out;
		free(data);
		data = red_data;
		red_data = NULL;
		len = rl;
		kt_sha256(data, len, e->nh);
		kt_hex(e->nh, KT_HASH_LEN, hex);
	}
	if (ref->hint && red) {
		size_t pl;

		red_path = kt_redact_text(red, ref->hint, strlen(ref->hint),
					  &pl);
		if (!red_path)
			goto out;
	}
	/* printed in parts as cJSON prints the object {"blob","path"?,
	 * "text"|"base64"}: file versions are most of an export's bytes, and
	 * cJSON's printer copied and escaped each twice */
	kt_buf_reset(line);
	if (kt_buf_add(line, "{\"blob\":\"", 9) ||
	    kt_buf_add(line, hex, KT_HASH_HEX) ||
	    kt_buf_add(line, "\"", 1) ||
	    (ref->hint && (kt_buf_add(line, ",\"path\":", 8) ||
			   kt_json_put_str(line, red_path ? red_path : ref->hint))))
		goto out;
	if (kt_export_is_text(data, len)) {
		if (kt_buf_add(line, ",\"text\":", 8) || kt_json_put_str(line, data))
			goto out;
	} else {
		b64 = kt_base64_encode(data, len);
		if (!b64 || kt_buf_add(line, ",\"base64\":\"", 11) ||
		    kt_buf_add(line, b64, strlen(b64)) ||
		    kt_buf_add(line, "\"", 1))
			goto out;
	}
	if (kt_buf_add(line, "}\n", 2))
		goto out;
	rc = fwrite(line->s, 1, line->len, out) == line->len ? 0 : KT_EIO;
out:
	free(data);
	free(red_path);
	free(b64);
	return rc;
}

struct exp {
	kt_store *s;
	const char *run;
	kt_redactor *red;
	struct blobset seen;
	struct refs rs;
	FILE *out;
	char *err;
	size_t errlen;
	struct kt_buf line;  /* the event line being written (fast_event) */
};

/* Whether JSON text p[0..n) may hold a blob reference: a string of 64 hex
 * digits ('"', 64 of them, '"'; keys match too, which only costs the slow
 * path).  cJSON escapes no hex digit, so canonical text shows each as is. */
static int may_ref(const char *p, size_t n)
{
	const char *e = p + n, *q = p;

	while (e - q >= KT_HASH_HEX + 2 && (q = memchr(q, '"', (size_t)(e - q)))) {
		if (e - q >= KT_HASH_HEX + 2 && q[KT_HASH_HEX + 1] == '"' &&
		    strspn(q + 1, "0123456789abcdefABCDEF") >= KT_HASH_HEX)
			return 1;
		q++;
	}
	return 0;
}

/*
 * The event line of ev from its stored bytes: payload and provenance are
 * canonical (FORMAT.md §3: what cJSON prints from their parse), so the line
 * kt_export_event + cJSON would print holds them byte for byte, and the
 * parse and print of every payload (most of an export's time) is skipped.
 * A payload that may name a blob is parsed for its references only (their
 * blob lines come first).  Returns 1, writing nothing, for an event that
 * needs the tree: under --redact, or a payload or provenance that
 * kt_json_check refuses (cJSON may read such a text otherwise).
 */
static int fast_event(struct exp *x, const kt_event *ev)
{
	const char *kn = kt_kind_name(ev->kind);
	size_t pl = ev->prov_json ? strlen(ev->prov_json) : 0;
	struct kt_buf *b = &x->line;
	char num[32], hex[KT_HASH_HEX + 1];
	int rc = 0;

	if (x->red ||
	    kt_json_check(ev->payload, ev->payload_len, KT_JSON_NONUL, NULL,
			  NULL) ||
	    (pl && kt_json_check(ev->prov_json, pl, KT_JSON_NONUL, NULL, NULL)))
		return 1;
	if (may_ref(ev->payload, ev->payload_len)) {
		cJSON *p = cJSON_ParseWithLength(ev->payload, ev->payload_len);

		if (!p)
			return KT_ENOMEM; /* kt_json_check took it */
		x->rs.n = 0;
		rc = collect(p, &x->rs);
		for (size_t i = 0; !rc && i < x->rs.n; i++)
			rc = put_blob(x->s, NULL, &x->seen, &x->rs.r[i],
				      x->out, &x->line, x->err, x->errlen,
				      ev->seq);
		cJSON_Delete(p);
		if (rc)
			return rc;
	}
	kt_buf_reset(b);
	rc = kt_buf_add(b, "{\"run\":", 7) || kt_json_put_str(b, x->run) ||
	     kt_buf_add(b, ",\"seq\":", 7) || kt_json_put_num(b, (double)ev->seq) ||
	     kt_buf_add(b, ",\"parent\":", 10) ||
	     (ev->parent ? kt_json_put_num(b, (double)ev->parent) :
			   kt_buf_add(b, "null", 4));
	if (ev->ts_ns == KT_TS_UNKNOWN)
		snprintf(num, sizeof(num), "null");
	else
		snprintf(num, sizeof(num), "%lld", (long long)ev->ts_ns);
	rc = rc || kt_buf_add(b, ",\"ts\":", 6) ||
	     kt_buf_add(b, num, strlen(num)) ||
	     kt_buf_add(b, ",\"kind\":", 8) ||
	     kt_json_put_str(b, kn ? kn : "unknown") ||
	     kt_buf_add(b, ",\"actor\":", 9) ||
	     kt_json_put_str(b, ev->actor ? ev->actor : "") ||
	     kt_buf_add(b, ",\"prov\":", 8) ||
	     (pl ? kt_buf_add(b, ev->prov_json, pl) :
		   kt_buf_add(b, "null", 4)) ||
	     kt_buf_add(b, ",\"payload\":", 11) ||
	     kt_buf_add(b, ev->payload, ev->payload_len);
	kt_hex(ev->hash, KT_HASH_LEN, hex);
	rc = rc || kt_buf_add(b, ",\"hash\":\"", 9) ||
	     kt_buf_add(b, hex, KT_HASH_HEX);
	kt_hex(ev->chain, KT_HASH_LEN, hex);
	rc = rc || kt_buf_add(b, "\",\"chain\":\"", 11) ||
	     kt_buf_add(b, hex, KT_HASH_HEX) || kt_buf_add(b, "\"}\n", 3);
	if (rc)
		return KT_ENOMEM;
	return fwrite(b->s, 1, b->len, x->out) == b->len ? 0 : KT_EIO;
}

/* One event (and the blob lines it needs first); a scan callback. */
static int exp_event(const kt_event *ev, void *arg)
{
	struct exp *x = arg;
	uint64_t seq = ev->seq;
	cJSON *o, *payload;
	size_t i;
	int rc = fast_event(x, ev);

	if (rc <= 0) {
		if (rc && !x->err[0])
			snprintf(x->err, x->errlen, "seq %llu: %s",
				 (unsigned long long)seq, kt_strerror(rc));
		return rc;
	}
	o = kt_export_event(x->run, ev);
	if (!o) {
		snprintf(x->err, x->errlen, "seq %llu: payload is not JSON",
			 (unsigned long long)seq);
		return KT_ECORRUPT;
	}
	payload = cJSON_GetObjectItemCaseSensitive(o, "payload");
	x->rs.n = 0;
	rc = collect(payload, &x->rs);
	for (i = 0; !rc && i < x->rs.n; i++)
		rc = put_blob(x->s, x->red, &x->seen, &x->rs.r[i], x->out,
			      &x->line, x->err, x->errlen, seq);
	if (!rc && x->red) {
		rc = kt_redact_json(x->red, payload);
		if (!rc)
			rc = kt_redact_json(x->red, cJSON_GetObjectItemCaseSensitive(o, "prov"));
		for (i = 0; !rc && i < x->rs.n; i++) {
			struct bent *e = bs_find(&x->seen, x->rs.r[i].h);
			char hex[KT_HASH_HEX + 1];

			if (!e)
				continue;
			kt_hex(e->nh, KT_HASH_LEN, hex);
			if (!cJSON_SetValuestring(x->rs.r[i].item, hex))
				rc = KT_ENOMEM;
		}
		cJSON_DeleteItemFromObjectCaseSensitive(o, "hash");
		cJSON_DeleteItemFromObjectCaseSensitive(o, "chain");
	}
	if (!rc)
		rc = put_line(x->out, o);
	cJSON_Delete(o);
	if (rc && !x->err[0])
		snprintf(x->err, x->errlen, "seq %llu: %s",
			 (unsigned long long)seq, kt_strerror(rc));
	return rc;
}

/* The run line (FORMAT.md "JSONL"): {"run":{"id","name","format","meta"}}
 * for `ktraj import`; redacted with the redactor of the events.  The run's
 * description sits under "run", the key event lines use for the run id, so
 * exports of the same events into runs of other names differ only there. */
static int put_run(const char *run, const kt_run_info *ri, kt_redactor *red,
		   FILE *out)
{
	cJSON *o = cJSON_CreateObject(), *r = cJSON_CreateObject(), *meta;
	int rc = KT_ENOMEM;

	if (!o || !r) {
		cJSON_Delete(o);
		cJSON_Delete(r);
		return rc;
	}
	cJSON_AddItemToObject(o, "run", r);
	meta = ri->meta_json ? cJSON_Parse(ri->meta_json) : NULL;
	if (!cJSON_AddStringToObject(r, "id", run) ||
	    !cJSON_AddStringToObject(r, "name", ri->name ? ri->name : "") ||
	    !cJSON_AddStringToObject(r, "format", ri->format ? ri->format : ""))
		goto out;
	if (cJSON_IsObject(meta)) {
		cJSON_AddItemToObject(r, "meta", meta);
		meta = NULL;
	}
	if (red &&
	    ((rc = kt_redact_json(red, cJSON_GetObjectItemCaseSensitive(r, "name"))) ||
	     (cJSON_GetObjectItemCaseSensitive(r, "meta") &&
	      (rc = kt_redact_json(red, cJSON_GetObjectItemCaseSensitive(r, "meta"))))))
		goto out;
	rc = put_line(out, o);
out:
	cJSON_Delete(meta);
	cJSON_Delete(o);
	return rc;
}

static int write_jsonl(kt_store *s, const kt_export_args *args, char *err,
		       size_t errlen)
{
	const char *run = args->run;
	int redact = args->redact;
	FILE *out = args->out;
	struct exp x = { 0 };
	kt_run_info ri;
	char dummy[8];
	int rc;

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = 0;
	rc = kt_run_get(s, run, &ri);
	if (rc) {
		snprintf(err, errlen, "run %s: %s", run, kt_strerror(rc));
		return rc;
	}
	if (redact && !(x.red = kt_redactor_new()))
		return KT_ENOMEM;
	x.s = s;
	x.run = run;
	x.out = out;
	x.err = err;
	x.errlen = errlen;
	rc = put_run(run, &ri, x.red, out);
	if (rc) {
		snprintf(err, errlen, "run line: %s", kt_strerror(rc));
		goto out;
	}
	/* one scan in seq order: the store computes the hash chain as it goes
	 * (a point read with KT_READ_HASH would rehash from a checkpoint) */
	rc = kt_event_scan(s, run, 1, ri.n_events, 0,
			   KT_READ_BODY | KT_READ_HASH, exp_event, &x);
	if (rc && !err[0])
		snprintf(err, errlen, "%s%s%s", kt_strerror(rc),
			 *kt_store_errmsg(s) ? ": " : "", kt_store_errmsg(s));
	if (!rc && fflush(out)) {
		rc = KT_EIO;
		snprintf(err, errlen, "write: %s", kt_strerror(rc));
	}
out:
	free(x.rs.r);
	free(x.seen.e);
	kt_buf_free(&x.line);
	kt_redactor_free(x.red);
	return rc;
}

const kt_exporter kt_exporter_jsonl = { "jsonl", KT_EXPORT_STREAM, write_jsonl };
