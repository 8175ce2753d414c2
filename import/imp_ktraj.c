/*
 * imp_ktraj.c - the "ktraj" importer of the ktraj JSONL interchange; the
 * line parser it shares with `ktraj append` is ktraj_jsonl.c.  Format:
 * ktraj_jsonl.h and FORMAT.md "JSONL".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "ktraj_jsonl.h"
#include "impx.h"
#include "jsonstrict.h"

/* ---- the importer --------------------------------------------------------- */
/* A first line that does not parse (cut short, a wrong type) would hide a
 * whole file from `import` without --format: when it still reads as a
 * ktraj line, up to DETECT_LINES lines of at most DETECT_MAX bytes are
 * tried, and the first that parses decides, with a lower score. */
#define DETECT_LINES 4
#define DETECT_MAX (1u << 20)

static int ktraj_detect(const kt_file *f)
{
	const char *p = (const char *)f->data, *end = p + f->len, *nl;
	kt_jsonl_rec r;
	int score = 0, tries;

	if (end - p >= 3 && !memcmp(p, KT_UTF8_BOM, 3))
		p += 3;
	for (tries = 0; tries < DETECT_LINES && p < end; tries++) {
		while (p < end && (*p == '\n' || *p == '\r' || *p == ' '))
			p++;
		if (p >= end || *p != '{')
			return 0;
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if ((size_t)(nl - p) > (tries ? DETECT_MAX : 64u << 20))
			return 0;
		/* (most lines of other formats end here, unparsed) */
		if (kt_jsonl_not_ktraj(p, nl))
			return 0;
		if (kt_jsonl_parse(p, (size_t)(nl - p), &r, NULL, 0) == 0) {
			/* kind + payload object (or a checked blob) is
			 * specific; seq and actor make it certain */
			score = r.is_blob || r.is_run || (r.has_seq && r.actor)
					? 95 : 70;
			kt_jsonl_release(&r);
			return tries ? score - 20 : score;
		}
		if (!kt_jsonl_ish(p, nl))
			return 0;
		p = nl;
	}
	return 0;
}

static void stem(const char *rel, char *out, size_t n)
{
	const char *b = strrchr(rel, '/');
	char *dot;

	snprintf(out, n, "%s", b ? b + 1 : rel);
	dot = strrchr(out, '.');
	if (dot && dot != out)
		*dot = 0;
}

/* 32 lowercase hex: a run id as `ktraj export` writes it */
static int is_run_id(const char *s)
{
	return strlen(s) == KT_RUN_ID_HEX &&
	       strspn(s, "0123456789abcdef") == KT_RUN_ID_HEX;
}

static uint64_t prov_u64(const cJSON *prov, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(prov, key);

	return cJSON_IsNumber(v) && v->valuedouble >= 0 &&
	       v->valuedouble < 9e15 ? (uint64_t)v->valuedouble : 0;
}

/*
 * Whether the event of line r, stored as seq `seq` with provenance `prov`
 * (canonical text or NULL), hashes to the "hash" the line carries: the
 * canonical bytes are built from the line as given (before --redact), as
 * the store builds them (FORMAT.md "Canonical event bytes").  *ok gets the
 * answer; errors KT_ENOMEM, KT_ELIMIT (the event is too large to store
 * anyway: it is reported as a mismatch by the caller then).
 */
static int line_hash_ok(const kt_jsonl_rec *r, uint64_t seq,
			const char *prov, struct kt_buf *pb, int *ok)
{
	kt_event e;
	unsigned char *c = NULL, h[KT_HASH_LEN];
	size_t cn;
	int rc;

	*ok = 0;
	rc = kt_imp_json_print(r->payload, pb);
	if (rc)
		return rc;
	memset(&e, 0, sizeof(e));
	e.seq = seq;
	e.parent = r->parent;
	e.ts_ns = r->ts_ns;
	e.kind = r->kind;
	e.actor = r->actor ? r->actor : "agent";
	e.prov_json = prov;
	e.payload = pb->s;
	e.payload_len = pb->len;
	rc = kt_event_canonical(&e, &c, &cn);
	if (rc)
		return rc;
	kt_sha256(c, cn, h);
	free(c);
	*ok = !memcmp(h, r->hash, KT_HASH_LEN);
	return 0;
}

/* ---- tables of fixed-size keys ------------------------------------------
 * The blob names and the seqs below have fixed-size keys and values: one
 * open-addressing table of entries of w bytes, the key's kn bytes first
 * (all zero: a free slot), then the value. */
struct ftab {
	unsigned char *e;
	size_t kn, w, n, cap;
};

static int ftab_free(const struct ftab *m, const unsigned char *e)
{
	for (size_t j = 0; j < m->kn; j++)
		if (e[j])
			return 0;
	return 1;
}

static size_t ftab_slot(const struct ftab *m, const unsigned char *k)
{
	uint64_t h;
	size_t i;

	/* Fibonacci hashing of the first 8 key bytes: dense seqs spread
	 * over the table, SHA-256 bytes are uniform anyway */
	memcpy(&h, k, sizeof(h));
	i = (size_t)((h * 0x9E3779B97F4A7C15ull) >> 32);
	for (i &= m->cap - 1;; i = (i + 1) & (m->cap - 1)) {
		const unsigned char *e = m->e + i * m->w;

		if (!memcmp(e, k, m->kn) || ftab_free(m, e))
			return i;
	}
}

/* The value of key k, or NULL when k is not in m. */
static const unsigned char *ftab_get(const struct ftab *m,
				     const unsigned char *k)
{
	const unsigned char *e;

	if (!m->cap)
		return NULL;
	e = m->e + ftab_slot(m, k) * m->w;
	return memcmp(e, k, m->kn) ? NULL : e + m->kn;
}

/* k (not all zero) -> v (w - kn bytes); 0 or KT_ENOMEM */
static int ftab_put(struct ftab *m, const unsigned char *k,
		    const void *v)
{
	unsigned char *e;
	size_t i;

	if (2 * (m->n + 1) > m->cap) {
		struct ftab nm = *m;

		nm.cap = m->cap ? 2 * m->cap : 256;
		nm.e = calloc(nm.cap, m->w);
		if (!nm.e)
			return KT_ENOMEM;
		for (i = 0; i < m->cap; i++) {
			e = m->e + i * m->w;
			if (!ftab_free(m, e))
				memcpy(nm.e + ftab_slot(&nm, e) * m->w, e, m->w);
		}
		free(m->e);
		*m = nm;
	}
	e = m->e + ftab_slot(m, k) * m->w;
	if (memcmp(e, k, m->kn))
		m->n++;
	memcpy(e, k, m->kn);
	memcpy(e + m->kn, v, m->w - m->kn);
	return 0;
}

/* ---- blobs given by the file --------------------------------------------
 * The blob lines read so far: each name, and the hash its content was
 * stored under (another one under --redact, which rewrites text).  An
 * event may only name a blob given by an earlier line or already stored
 * (FORMAT.md "Blob line"); under --strict nothing is stored once a problem
 * is seen, so the file's own blobs are known from here, not the store. */
struct refchk {
	kt_imp *imp;
	const struct ftab *m;
	kt_blobref bad;
	int why;      /* KT_EINVAL not a hash, KT_ENOTFOUND not given */
	int rewrite;  /* some reference names a blob stored under another
			 hash (--redact) */
};

static int ref_known(kt_blobref *r, void *arg)
{
	struct refchk *c = arg;
	const unsigned char *st;
	int rc;

	if (!r->ok) {
		c->why = KT_EINVAL;
	} else if ((st = ftab_get(c->m, r->hash)) != NULL) {
		if (memcmp(st, r->hash, KT_HASH_LEN))
			c->rewrite = 1;
		return 0;
	} else if ((rc = kt_imp_blob_stored(c->imp, r->hash)) != 0) {
		return rc < 0 ? rc : 0;
	} else {
		c->why = KT_ENOTFOUND;
	}
	c->bad = *r;
	return 1;
}

/* A reference to a blob stored under another hash names that one. */
static int ref_rewrite(kt_blobref *r, void *arg)
{
	const unsigned char *st = r->ok ? ftab_get(arg, r->hash) : NULL;
	char hex[KT_HASH_HEX + 1];

	if (!st || !memcmp(st, r->hash, KT_HASH_LEN))
		return 0;
	kt_hex(st, KT_HASH_LEN, hex);
	return cJSON_SetValuestring(r->item, hex) ? 0 : KT_ENOMEM;
}

/*
 * Whether every blob the event of r names is given or stored: 0 yes, 1 no
 * (reported at line; the event is skipped like a bad line), else an error.
 * *rewrite is set when a reference must be rewritten (ref_rewrite).
 */
static int refs_ok(kt_imp *imp, const kt_file *f, uint64_t line,
		   const struct ftab *m, const kt_jsonl_rec *r, int *rewrite)
{
	struct refchk c = { imp, m, { { 0 }, NULL, 0, { 0 } }, 0, 0 };
	const char *k = kt_kind_name(r->kind);
	int rc = kt_blobref_foreach(r->kind, r->payload, ref_known, &c);

	*rewrite = c.rewrite;
	if (rc < 0)
		return rc;
	if (!rc)
		return 0;
	if (c.why == KT_EINVAL)
		kt_imp_warn(imp, f, line,
			    "%s \"%s\" is not a blob hash (64 hex chars or null); event not imported",
			    k, c.bad.field);
	else
		kt_imp_warn(imp, f, line,
			    "%s \"%s\" names blob %s, which is not stored and no blob line before this one gives (blob lines must come before the events that name them); event not imported",
			    k, c.bad.field, c.bad.item->valuestring);
	return 1;
}

/* ---- events the store would refuse --------------------------------------
 * FORMAT.md section 3: an actor is at most 65535 bytes and an event's body
 * (10 bytes, actor, provenance, payload) at most 64 MiB.  The store refuses
 * a larger event by failing the transaction, which loses the whole file;
 * such a line is skipped (reported) here instead.  cJSON prints a value in
 * at most ~3.2x its text (strings never grow; "1e14," prints as 16 bytes),
 * so a line under CHECK_LINE cannot reach the limit and is not printed an
 * extra time.  PROV_ROOM is room for the provenance the driver writes (file
 * path, archive member). */
#define EV_ACTOR_MAX 65535u
#define EV_BODY_MAX (64u << 20)
#define EV_CHECK_LINE (16u << 20)
#define EV_PROV_ROOM (64u << 10)

/* 0 storable, 1 not (reported at line), else an error */
static int too_large(kt_imp *imp, const kt_file *f, uint64_t line,
		     const kt_jsonl_rec *r, size_t n, struct kt_buf *pb)
{
	size_t al = r->actor ? strlen(r->actor) : 0, pl = EV_PROV_ROOM;
	int rc;

	if (al > EV_ACTOR_MAX) {
		kt_imp_warn(imp, f, line,
			    "\"actor\" is %zu bytes (at most %u); event not imported",
			    al, EV_ACTOR_MAX);
		return 1;
	}
	if (n < EV_CHECK_LINE)
		return 0;
	if (r->prov) {
		if ((rc = kt_imp_json_print(r->prov, pb)) != 0)
			return rc;
		pl += pb->len;
	}
	if ((rc = kt_imp_json_print(r->payload, pb)) != 0)
		return rc;
	if (10 + al + pl + pb->len <= EV_BODY_MAX)
		return 0;
	kt_imp_warn(imp, f, line,
		    "event too large to store (%zu bytes of payload; an event is at most 64 MiB, FORMAT.md section 3); not imported",
		    pb->len);
	return 1;
}

/* ---- seqs of the run being imported ------------------------------------
 * Source seq -> stored seq (0: the event was skipped), so that "parent"
 * (and the seqs a payload holds: seq_fields) follows its event when a
 * skipped line moves later seqs down.  Keys are seqs (>= 1); key 0 marks a
 * free slot.  Cleared at each new run. */
struct smap {
	struct ftab t;    /* source seq -> stored seq, uint64_t each */
	uint64_t hi;      /* the greatest source seq of the run so far (a
			     line without "seq" counts as the next one) */
	uint64_t bad;     /* lines that did not parse since the last event
			     line, of this run or the next */
};

/* 1 and *stored when src was seen in this run, else 0 */
static int smap_get(const struct smap *m, uint64_t src, uint64_t *stored)
{
	const unsigned char *v;

	if (!src || !(v = ftab_get(&m->t, (const unsigned char *)&src)))
		return 0;
	memcpy(stored, v, sizeof(*stored));
	return 1;
}

/* src (>= 1) -> stored (0: skipped); KT_ENOMEM */
static int smap_put(struct smap *m, uint64_t src, uint64_t stored)
{
	return ftab_put(&m->t, (const unsigned char *)&src, &stored);
}

/* A new run: its seqs start again.  m->bad stays, since a line that did
 * not parse before the first event of a run may have been one of its. */
static void smap_clear(struct smap *m)
{
	if (m->t.cap)
		memset(m->t.e, 0, m->t.cap * m->t.w);
	m->t.n = 0;
	m->hi = 0;
}

/*
 * Event line r of the current run parsed (stored or skipped).  A line
 * that did not parse has no seq we could read, yet its event took one:
 * when r's seq jumps past every seq so far and such lines came between,
 * the seqs after the greatest one are taken as theirs (at most one per
 * line), so a "parent" naming them is dropped instead of landing on
 * whatever event is stored there once later seqs move down.  A jump
 * without such lines (seqs from 5, a gap) marks nothing.  KT_ENOMEM.
 */
static int note_seq(struct smap *m, const kt_jsonl_rec *r)
{
	uint64_t k;
	int rc;

	if (!r->has_seq) {
		m->hi++;
		m->bad = 0;
		return 0;
	}
	for (k = m->hi + 1; k < r->seq && k <= m->hi + m->bad; k++)
		if ((rc = smap_put(m, k, 0)) != 0)
			return rc;
	if (r->seq > m->hi)
		m->hi = r->seq;
	m->bad = 0;
	return 0;
}

/* Whether event line r would begin another run than the current one. */
static int starts_run(const kt_jsonl_rec *r, int in_run, const char *cur_run)
{
	return !in_run || (r->run && (!cur_run || strcmp(r->run, cur_run)));
}

/*
 * Notes that the event of r (seq given) was skipped, so that a later
 * "parent" naming it is dropped.  A skipped first event of a new run
 * starts that run's map (*fresh: the run switch keeps it).  KT_ENOMEM.
 */
static int note_skip(struct smap *m, int *fresh, const kt_jsonl_rec *r,
		     int in_run, const char *cur_run)
{
	int rc;

	if (!*fresh && starts_run(r, in_run, cur_run)) {
		smap_clear(m);
		*fresh = 1;
	}
	rc = note_seq(m, r);
	if (rc || !r->has_seq)
		return rc;
	return smap_put(m, r->seq, 0);
}

/*
 * Payload members that hold a seq of the same run (FORMAT.md section 2:
 * edit "call", the tool_call; replay "step", the step replayed) follow
 * their event like "parent": moved down with it, or removed (reported)
 * when it was not imported.  A value that is not a whole number >= 1 is
 * left as it is.
 */
static void seq_fields(kt_imp *imp, const kt_file *f, uint64_t line,
		       const struct smap *m, int kind, cJSON *payload)
{
	const char *key = kind == KT_KIND_EDIT ? "call"
			: kind == KT_KIND_REPLAY ? "step" : NULL;
	cJSON *it = key ? cJSON_GetObjectItemCaseSensitive(payload, key)
			: NULL;
	uint64_t src, st;

	/* 2^53: a double holds every whole number up to it */
	if (!cJSON_IsNumber(it) || !(it->valuedouble >= 1 &&
				     it->valuedouble <= 9007199254740992.0))
		return;
	src = (uint64_t)it->valuedouble;
	if ((double)src != it->valuedouble || !smap_get(m, src, &st) ||
	    st == src)
		return;
	if (st) {
		cJSON_SetNumberValue(it, (double)st);
		return;
	}
	kt_imp_warn(imp, f, line,
		    "%s \"%s\" %llu was not imported; removed from the payload",
		    kt_kind_name(kind), key, (unsigned long long)src);
	cJSON_DeleteItemFromObjectCaseSensitive(payload, key);
}

/* Bad lines, negative "ts" and changed lines ("hash"): the rules are in
 * ktraj_jsonl.h. */
static int ktraj_import(kt_imp *imp, const kt_file *f)
{
	const char *p = (const char *)f->data, *end = p + f->len;
	char *cur_run = NULL, *prov = NULL, name[256], err[200],
	     hex[KT_HASH_HEX + 1];
	uint64_t line = 0, got, run_n = 0, last_prog = 0;
	int in_run = 0, rc = 0, events = 0, by_id = 0, hash_ok = 1, rewrite = 0;
	int fresh = 0;
	struct kt_buf pb = { 0 };
	/* blob name -> the hash its content was stored under */
	struct ftab bm = { NULL, KT_HASH_LEN, 2 * KT_HASH_LEN, 0, 0 };
	/* only seqs moved or skipped: else the same */
	struct smap sm = { { NULL, sizeof(uint64_t), 2 * sizeof(uint64_t),
			     0, 0 }, 0, 0 };

	stem(f->rel ? f->rel : f->path, name, sizeof(name));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		kt_jsonl_rec r;
		kt_ev ev;

		line++;
		/* RFC 8259 section 8.1: a byte order mark opening the file
		 * may be ignored (kt_jsonl_parse refuses one anywhere) */
		if (line == 1 && n >= 3 && !memcmp(p, KT_UTF8_BOM, 3)) {
			p += 3;
			n -= 3;
		}
		if (strspn(p, " \t\r") >= n)
			goto next;
		rc = kt_jsonl_parse(p, n, &r, err, sizeof(err));
		if (rc == KT_ENOMEM)
			goto out;
		if (rc) {
			const char *why;
			size_t off;

			/* a byte order mark, a line that is not JSON, a cut
			 * last line: in the words of every importer
			 * (impx.h kt_imp_json_bad, "...: line
			 * skipped") */
			if (!kt_imp_json_bom(imp, f, line, p, n) &&
			    !(kt_json_check(p, n, 0, &off, &why) &&
			      kt_imp_json_bad(imp, f, line, p, n)))
				kt_imp_warn(imp, f, line, "%s", err);
			sm.bad++;
			rc = 0;
			goto next;
		}
		/* ns since the epoch: before 1970 is a recorder's bug (a
		 * relative or uninitialized clock), as for `ktraj append` */
		if (r.has_ts && r.ts_ns != KT_TS_UNKNOWN && r.ts_ns < 0) {
			kt_imp_warn(imp, f, line,
				    "\"ts\" %lld is before 1970 (ns since the epoch; null = unknown); not imported",
				    (long long)r.ts_ns);
			rc = note_skip(&sm, &fresh, &r, in_run, cur_run);
			kt_jsonl_release(&r);
			if (rc)
				goto out;
			goto next;
		}
		if (r.is_blob) {
			unsigned char st[KT_HASH_LEN];

			/* the parser checked the content against r.blob */
			rc = kt_imp_blob_hashed(imp, r.data, r.len, r.path,
						r.blob, hex);
			if (!rc && (kt_unhex(hex, st, KT_HASH_LEN) ||
				    ftab_put(&bm, r.blob, st)))
				rc = KT_ENOMEM;
			kt_jsonl_release(&r);
			if (rc)
				goto out;
			goto next;
		}
		/* an event is skipped, reported, when it names a blob neither
		 * given nor stored (it would read back as a file that does
		 * not exist), when its typed fields (FORMAT.md section 2)
		 * have the wrong type (every reader would misread it), or
		 * when the store would refuse it (too_large); rc > 0 */
		if (!r.is_run) {
			rc = refs_ok(imp, f, line, &bm, &r, &rewrite);
			if (!rc && kt_imp_check_payload(r.kind, r.payload, err,
							sizeof(err))) {
				kt_imp_warn(imp, f, line,
					    "%s; event not imported", err);
				rc = 1;
			}
			if (!rc)
				rc = too_large(imp, f, line, &r, n, &pb);
			if (rc) {
				if (rc > 0)
					rc = note_skip(&sm, &fresh, &r,
						       in_run, cur_run);
				kt_jsonl_release(&r);
				if (rc)
					goto out;
				goto next;
			}
		}
		/* A new source run starts a new ktraj run (concatenated
		 * exports).  A run id (what `ktraj export` writes) is kept
		 * as the run's id, so export + import into another store
		 * gives the same run and importing it again adds nothing;
		 * any other "run" string is an identity. */
		if (r.is_run || !in_run ||
		    (r.run && (!cur_run || strcmp(r.run, cur_run)))) {
			char ident[300];
			/* a run line (export) gives the run's name, format
			 * and meta back */
			cJSON *meta = r.meta ? cJSON_Duplicate(r.meta, 1)
					     : cJSON_CreateObject();
			const char *nm = r.name ? r.name : name;
			const char *fmt = r.format && *r.format ? r.format
								: "ktraj";

			if (in_run && (rc = kt_imp_run_end(imp)))
				goto fail_rec;
			free(cur_run);
			cur_run = strdup(r.run ? r.run : f->sha_hex);
			if (!cur_run || !meta) {
				cJSON_Delete(meta);
				rc = KT_ENOMEM;
				goto fail_rec;
			}
			if (!r.meta)
				cJSON_AddStringToObject(meta, "source_run",
							cur_run);
			by_id = r.run && is_run_id(r.run);
			if (by_id) {
				/* stdin has no name to give it */
				rc = kt_imp_run_begin_id(imp, r.run,
							 strcmp(nm, "-") ? nm
							 : r.run, fmt, meta);
			} else {
				snprintf(ident, sizeof(ident), "ktraj:%s",
					 cur_run);
				rc = kt_imp_run_begin(imp, ident, nm, fmt,
						      meta);
			}
			if (rc)
				goto fail_rec;
			/* a run id names an exported run: a copy that differs
			 * from the stored run must not pass for it */
			if (by_id)
				kt_imp_check_reemit_all(imp);
			in_run = 1;
			run_n = 0;
			if (!fresh)
				smap_clear(&sm);
			fresh = 0;
		}
		if (r.is_run) {
			/* a bad line before it was of the run before */
			sm.bad = 0;
			kt_jsonl_release(&r);
			goto next;
		}
		if ((rc = note_seq(&sm, &r)) != 0)
			goto fail_rec;
		memset(&ev, 0, sizeof(ev));
		ev.kind = r.kind;
		/* the parent's stored seq: a skipped line moved it, or it
		 * was not imported (then none, reported) */
		ev.parent = r.parent;
		if (smap_get(&sm, r.parent, &ev.parent) && !ev.parent) {
			kt_imp_warn(imp, f, line,
				    "parent %llu was not imported; event stored with no parent",
				    (unsigned long long)r.parent);
		} else if (ev.parent > run_n) {
			/* the store refuses it (and so the whole file): the
			 * event is kept, its parent is not */
			kt_imp_warn(imp, f, line,
				    "parent %llu is not an earlier event (this one is stored as seq %llu); event stored with no parent",
				    (unsigned long long)r.parent,
				    (unsigned long long)(run_n + 1));
			ev.parent = 0;
		}
		ev.ts_ns = r.ts_ns;
		ev.actor = r.actor ? r.actor : "agent";
		ev.payload = cJSON_DetachItemViaPointer(r.root, r.payload);
		ev.line = line;
		ev.off = (uint64_t)(p - (const char *)f->data);
		ev.rec_len = n;
		/* An exported event (its run is a run id) keeps its
		 * provenance, null included (the record it came from, which
		 * `show --source` opens), and so its hash; other lines came
		 * from this file. */
		prov = r.prov && (r.has_hash || by_id)
			       ? cJSON_PrintUnformatted(r.prov) : NULL;
		if (r.prov && (r.has_hash || by_id) && !prov) {
			cJSON_Delete(ev.payload);
			rc = KT_ENOMEM;
			goto fail_rec;
		}
		/* A line whose event does not hash to its "hash" was changed
		 * after export.  It is reported (--strict drops the source)
		 * and still imported as it reads now: skipping it would
		 * shift every later seq and so every "parent" after it.  The
		 * hash is of the line's own seq and prov, as exported. */
		hash_ok = 1;
		if (r.has_hash) {
			rc = line_hash_ok(&r, r.has_seq ? r.seq : run_n + 1,
					  prov, &pb, &hash_ok);
			if (rc == KT_ENOMEM) {
				cJSON_Delete(ev.payload);
				goto fail_rec;
			}
			rc = 0;
		}
		if (by_id && cJSON_GetObjectItemCaseSensitive(r.root, "prov")) {
			ev.prov_json = prov ? prov : "";
			/* the driver tells a grown source from another one by
			 * the line and offset of the last stored event */
			ev.line = prov_u64(r.prov, "line");
			ev.off = prov_u64(r.prov, "off");
			ev.rec_len = prov_u64(r.prov, "len");
		}
		/* after the hash check, which takes the line as given */
		seq_fields(imp, f, line, &sm, r.kind, ev.payload);
		if (rewrite &&
		    (rc = kt_blobref_foreach(r.kind, ev.payload, ref_rewrite,
					     &bm)) != 0) {
			cJSON_Delete(ev.payload);
			goto fail_rec;
		}
		if (!hash_ok)
			kt_imp_warn(imp, f, line,
				    "seq %llu does not hash to its \"hash\" (the line was changed after export)",
				    (unsigned long long)(r.has_seq ? r.seq
						       : run_n + 1));
		rc = kt_imp_emit(imp, &ev, &got);
		free(prov);
		prov = NULL;
		if (rc)
			goto fail_rec;
		events++;
		run_n = got;
		fresh = 0;
		/* moved, or given again after a skipped line of that seq */
		if (r.has_seq && (r.seq != got || sm.t.n) &&
		    (rc = smap_put(&sm, r.seq, got)) != 0)
			goto fail_rec;
		if (r.has_seq && r.seq != got)
			kt_imp_warn(imp, f, line,
				    "seq %llu stored as %llu (seqs must be dense from 1)",
				    (unsigned long long)r.seq,
				    (unsigned long long)got);
		kt_jsonl_release(&r);
next:
		p += n + (nl != NULL);
		/* where it reads: memory keeps a window of a big file or of
		 * stdin (input.c), not all of it */
		if ((uint64_t)(p - (const char *)f->data) - last_prog > (8u << 20)) {
			last_prog = (uint64_t)(p - (const char *)f->data);
			kt_imp_progress(imp, last_prog);
		}
		continue;
fail_rec:
		kt_jsonl_release(&r);
		goto out;
	}
	if (!events)
		kt_imp_warn(imp, f, 0, "no events in this ktraj JSONL file");
out:
	if (in_run)
		rc = kt_imp_run_finish(imp, rc);
	free(cur_run);
	free(prov);
	kt_buf_free(&pb);
	free(bm.e);
	free(sm.t.e);
	return rc;
}

const kt_importer kt_importer_ktraj = {
	.name = "ktraj",
	.summary = "ktraj JSONL interchange (ktraj export --format jsonl)",
	.detect = ktraj_detect,
	.import = ktraj_import,
};
