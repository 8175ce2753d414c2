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
	cJSON *item;       /* the string member holding the hash (tree path) */
	const char *hint;  /* "path" beside it, or NULL (tree path) */
	const char *raw;   /* or that "path" as it stands in the canonical
			      payload, quotes included (raw_len bytes) */
	size_t raw_len;
	size_t depth;      /* scan_refs: the container holding it */
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

static struct ref *ref_add(struct refs *rs)
{
	struct ref *t;

	if (KT_GROW(rs->r, rs->cap, rs->n + 1))
		return NULL;
	t = rs->r;
	memset(&t[rs->n], 0, sizeof(*t));
	return &t[rs->n];
}

static int collect(cJSON *node, struct refs *rs)
{
	cJSON *c, *path = cJSON_GetObjectItemCaseSensitive(node, "path");
	const char *hint = cJSON_IsString(path) ? path->valuestring : NULL;

	cJSON_ArrayForEach(c, node) {
		if (cJSON_IsString(c) && is_hash_hex(c->valuestring)) {
			struct ref *r = ref_add(rs);

			if (!r)
				return KT_ENOMEM;
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

/* Output is gathered in whole lines and written in pieces of about this
 * size: one write per line was ~100,000 writes for 100,000 events. */
#define EXP_FLUSH ((size_t)1 << 20)

struct exp {
	kt_store *s;
	const char *run;
	kt_redactor *red;
	int verify;           /* check each blob against its hash (--verify) */
	struct blobset seen;
	struct refs rs;
	FILE *out;
	char *err;
	size_t errlen;
	struct kt_buf buf;   /* whole lines not written yet */
	struct frame {        /* scan_refs: the containers open at a byte */
		int obj;
		int path_seen;        /* its first "path" member was met */
		const char *hint;     /* and was this string token, or NULL */
		size_t hint_len;
		size_t first;         /* its references start at rs.r[first] */
	} *fr;
	size_t frcap;
};

/* Write the lines gathered in x->buf. */
static int flush(struct exp *x)
{
	size_t n = x->buf.len;

	x->buf.len = 0;
	if (n && fwrite(x->buf.s, 1, n, x->out) != n)
		return KT_EIO;
	return 0;
}

/* A line was added to x->buf: write the lines once there are enough. */
static int line_done(struct exp *x)
{
	return x->buf.len >= EXP_FLUSH ? flush(x) : 0;
}

/* Write the blob line of ref (once per export) and note its hash after
 * redaction.  The content is read without its hash check unless --verify
 * or --redact: a reader of the line checks it against the name the line
 * gives (FORMAT.md §9), which a redacted text blob no longer has. */
static int put_blob(struct exp *x, const struct ref *ref, uint64_t seq)
{
	const void *data;
	char *red_data = NULL, *red_path = NULL, *b64 = NULL;
	char hex[KT_HASH_HEX + 1];
	struct kt_buf *line = &x->buf;
	size_t len, start = line->len;
	struct bent *e;
	int rc;

	if (bs_find(&x->seen, ref->h))
		return 0;
	kt_hex(ref->h, KT_HASH_LEN, hex);
	rc = kt_blob_view(x->s, ref->h, x->verify || x->red ? 0 :
			  KT_BLOB_NOCHECK, &data, &len);
	if (rc == KT_ENOTFOUND)
		return 0; /* a hex string that names no blob is just text */
	if (rc) {
		snprintf(x->err, x->errlen, "seq %llu: blob %s: %s",
			 (unsigned long long)seq, hex, kt_strerror(rc));
		return rc;
	}
	rc = KT_ENOMEM;
	e = bs_add(&x->seen, ref->h);
	if (!e)
		goto out;
	memcpy(e->nh, ref->h, KT_HASH_LEN);
	if (x->red && kt_is_text(data, len)) {
		size_t rl;

		red_data = kt_redact_text(x->red, data, len, &rl);
		if (!red_data)
			goto out;
		data = red_data;
		len = rl;
		kt_sha256(data, len, e->nh);
		kt_hex(e->nh, KT_HASH_LEN, hex);
	}
	if (ref->hint && x->red) {
		size_t pl;

		red_path = kt_redact_text(x->red, ref->hint, strlen(ref->hint),
					  &pl);
		if (!red_path)
			goto out;
	}
	/* printed in parts as cJSON prints the object {"blob","path"?,
	 * "text"|"base64"}: file versions are most of an export's bytes, and
	 * cJSON's printer copied and escaped each twice */
	if (kt_buf_add(line, "{\"blob\":\"", 9) ||
	    kt_buf_add(line, hex, KT_HASH_HEX) ||
	    kt_buf_add(line, "\"", 1) ||
	    (ref->hint && (kt_buf_add(line, ",\"path\":", 8) ||
			   kt_json_put_str(line, red_path ? red_path : ref->hint))) ||
	    (ref->raw && (kt_buf_add(line, ",\"path\":", 8) ||
			  kt_buf_add(line, ref->raw, ref->raw_len))))
		goto out;
	if (kt_is_text(data, len)) {
		/* the content holds no NUL: kt_json_put_str's strlen is len */
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
	rc = line_done(x);
out:
	if (rc && line->len > start)
		line->len = start;
	free(red_data);
	free(red_path);
	free(b64);
	return rc;
}

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
 * collect() on the canonical text p[0..n) (one that kt_json_check took),
 * without a cJSON tree: every string value (not key) of 64 hex digits
 * inside the payload's containers, in document order, each with the first
 * "path" member of the object holding it when that is a string (as
 * cJSON_GetObjectItemCaseSensitive finds it), as its token.  The token is
 * what kt_json_put_str prints of the string: canonical text prints each string
 * as cJSON does, and "path" as a key has no escape.  0 or KT_ENOMEM.
 */
static int scan_refs(struct exp *x, const char *p, size_t n)
{
	const char *e = p + n, *q = p;
	size_t d = 0; /* containers open */
	int want_path = 0; /* the next value is a first "path" member's */

	x->rs.n = 0;
	while (q < e) {
		const char *s, *t;
		char hex[KT_HASH_HEX + 1];
		struct ref *r;

		switch (*q) {
		case '{':
		case '[':
			if (KT_GROW(x->fr, x->frcap, d + 1))
				return KT_ENOMEM;
			x->fr[d].obj = *q == '{';
			x->fr[d].path_seen = 0;
			x->fr[d].hint = NULL;
			x->fr[d].hint_len = 0;
			x->fr[d].first = x->rs.n;
			d++;
			want_path = 0;
			q++;
			continue;
		case '}':
		case ']':
			if (!d)
				return 0; /* kt_json_check took no such text */
			d--;
			/* its own references get its "path" (those of the
			 * containers inside it have theirs) */
			for (size_t i = x->fr[d].first; i < x->rs.n; i++)
				if (x->rs.r[i].depth == d + 1) {
					x->rs.r[i].raw = x->fr[d].hint;
					x->rs.r[i].raw_len = x->fr[d].hint_len;
				}
			q++;
			continue;
		case '"':
			break;
		case ' ': case '\t': case '\n': case '\r': case ',':
			q++;
			continue;
		default: /* a number or literal: not a string value */
			want_path = 0;
			q++;
			continue;
		}
		s = q + 1;
		for (t = s;; t += 2) {
			t = kt_json_str_stop(t, e);
			if (t >= e)
				return 0;
			if (*t == '"')
				break;
		}
		q = t + 1;
		while (q < e && (*q == ' ' || *q == '\t' || *q == '\n' ||
				 *q == '\r'))
			q++;
		if (q < e && *q == ':') { /* a key */
			if (d && x->fr[d - 1].obj && !x->fr[d - 1].path_seen &&
			    t - s == 4 && !memcmp(s, "path", 4)) {
				x->fr[d - 1].path_seen = 1;
				want_path = 1;
			}
			q++;
			continue;
		}
		if (want_path) {
			x->fr[d - 1].hint = s - 1;
			x->fr[d - 1].hint_len = (size_t)(t + 1 - (s - 1));
			want_path = 0;
		}
		if (!d || t - s != KT_HASH_HEX ||
		    strspn(s, "0123456789abcdefABCDEF") < KT_HASH_HEX)
			continue;
		if (!(r = ref_add(&x->rs)))
			return KT_ENOMEM;
		memcpy(hex, s, KT_HASH_HEX);
		hex[KT_HASH_HEX] = 0;
		if (kt_unhex(hex, r->h, KT_HASH_LEN))
			continue;
		r->depth = d;
		x->rs.n++;
	}
	return 0;
}

/* v in decimal as "%lld" prints it: three snprintf calls an event were
 * ~5 % of an export. */
static int put_int(struct kt_buf *b, long long v)
{
	char t[24], *e = t + sizeof(t), *p = e;
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v :
				       (unsigned long long)v;

	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	return kt_buf_add(b, p, (size_t)(e - p));
}

/* A seq as cJSON prints the number (double)seq (kt_json_put_num): its digits
 * below 1e15. */
static int put_seq(struct kt_buf *b, uint64_t seq)
{
	return seq < 1000000000000000ull ? put_int(b, (long long)seq) :
					   kt_json_put_num(b, (double)seq);
}

/*
 * The event line of ev from its stored bytes: payload and provenance are
 * canonical (FORMAT.md §3: what cJSON prints from their parse), so the line
 * kt_export_event + cJSON would print holds them byte for byte, and the
 * parse and print of every payload (most of an export's time) is skipped.
 * The blob lines of a payload's references come first.  Returns 1, writing
 * nothing, for an event that needs the tree: under --redact, or a payload
 * or provenance that kt_json_check refuses (cJSON may read such a text
 * otherwise).
 */
static int fast_event(struct exp *x, const kt_event *ev)
{
	const char *kn = kt_kind_name(ev->kind);
	size_t pl = ev->prov_json ? strlen(ev->prov_json) : 0, start;
	struct kt_buf *b = &x->buf;
	char hex[KT_HASH_HEX + 1];
	int rc = 0;

	if (x->red ||
	    kt_json_check(ev->payload, ev->payload_len, KT_JSON_NONUL, NULL,
			  NULL) ||
	    (pl && kt_json_check(ev->prov_json, pl, KT_JSON_NONUL, NULL, NULL)))
		return 1;
	if (may_ref(ev->payload, ev->payload_len)) {
		rc = scan_refs(x, ev->payload, ev->payload_len);
		for (size_t i = 0; !rc && i < x->rs.n; i++)
			rc = put_blob(x, &x->rs.r[i], ev->seq);
		if (rc)
			return rc;
	}
	start = b->len;
	rc = kt_buf_add(b, "{\"run\":", 7) || kt_json_put_str(b, x->run) ||
	     kt_buf_add(b, ",\"seq\":", 7) || put_seq(b, ev->seq) ||
	     kt_buf_add(b, ",\"parent\":", 10) ||
	     (ev->parent ? put_seq(b, ev->parent) : kt_buf_add(b, "null", 4));
	rc = rc || kt_buf_add(b, ",\"ts\":", 6) ||
	     (ev->ts_ns == KT_TS_UNKNOWN ? kt_buf_add(b, "null", 4) :
					   put_int(b, (long long)ev->ts_ns)) ||
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
	if (rc) {
		b->len = start;
		return KT_ENOMEM;
	}
	return line_done(x);
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
		rc = put_blob(x, &x->rs.r[i], seq);
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
		rc = flush(x); /* the blob lines before the line */
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
	x.verify = args->verify;
	rc = put_run(run, &ri, x.red, out);
	if (rc) {
		snprintf(err, errlen, "run line: %s", kt_strerror(rc));
		goto out;
	}
	/* one scan in seq order: the store computes the hash chain as it goes
	 * (a point read with KT_READ_HASH would rehash from a checkpoint) */
	rc = kt_event_scan(s, run, 1, ri.n_events, 0,
			   KT_READ_BODY | KT_READ_HASH, exp_event, &x);
	/* the whole lines before a failure are written, as they were when
	 * each line was written at once */
	if (flush(&x) && !rc) {
		rc = KT_EIO;
		snprintf(err, errlen, "write: %s", kt_strerror(rc));
	}
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
	kt_buf_free(&x.buf);
	free(x.fr);
	kt_redactor_free(x.red);
	return rc;
}

const kt_exporter kt_exporter_jsonl = { "jsonl", KT_EXPORT_STREAM | KT_EXPORT_VERIFY,
					      write_jsonl };
