/*
 * store_run.c - runs: the run record (FORMAT.md §6.2: created, name,
 * format, meta, n_events, head) with its checksum (§6.10) and its
 * run_names entry, written when a run is created and decoded for
 * kt_run_get and kt_run_foreach; run ids from identities; and resolving
 * what a user names a run by (a full id, a name, an abbreviation).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cjson/cJSON.h>
#include "store_int.h"

void kt_run_id_from_identity(const char *identity, char out[KT_RUN_ID_HEX + 1])
{
	unsigned char h[KT_HASH_LEN];

	kt_sha256(identity, identity ? strlen(identity) : 0, h);
	kt_hex(h, KT_RUN_ID_HEX / 2, out);
}

int kt_run_bin(kt_store *s, const char *id, unsigned char bin[KT_RUN_BIN])
{
	if (!id || strlen(id) != KT_RUN_ID_HEX ||
	    kt_unhex(id, bin, KT_RUN_BIN) != 0)
		return kt_err(s, KT_EINVAL, "bad run id '%.40s'",
			      id ? id : "(null)");
	return 0;
}

/* ---- run records -------------------------------------------------------- */

static int json_object_text(const char *text, char **out)
{
	cJSON *j;

	*out = NULL;
	if (!text)
		return 0;
	j = cJSON_Parse(text);
	if (!j || !cJSON_IsObject(j)) {
		cJSON_Delete(j);
		return KT_EINVAL;
	}
	*out = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	return *out ? 0 : KT_ENOMEM;
}

int kt_run_create(kt_store *s, const char *id, const char *name,
		  const char *format, const char *meta_json)
{
	unsigned char bin[KT_RUN_BIN], *v = NULL, *k = NULL;
	size_t nl, fl, ml, vl, kl;
	char *meta = NULL;
	struct timespec ts;
	int rc;
	MDB_val key, val;

	if (!s)
		return KT_EINVAL;
	if (!s->wtxn)
		return kt_err(s, KT_EBUSY, "run create outside a transaction");
	rc = kt_run_bin(s, id, bin);
	if (rc)
		return rc;
	name = name ? name : "";
	format = format ? format : "";
	nl = strlen(name);
	fl = strlen(format);
	if (nl > 65535 || fl > 65535)
		return kt_err(s, KT_ELIMIT, "run name or format too long");
	if (json_object_text(meta_json, &meta) != 0)
		return kt_err(s, KT_EINVAL, "run meta is not a JSON object");
	ml = meta ? strlen(meta) : 0;
	key.mv_size = KT_RUN_BIN;
	key.mv_data = bin;
	rc = mdb_get(s->wtxn, s->dbi[KT_DB_RUNS], &key, &val);
	if (rc == 0) {
		rc = kt_err(s, KT_EEXIST, "run %s exists", id);
		goto out;
	}
	if (rc != MDB_NOTFOUND) {
		rc = kt_mdb_err(s, rc, "run lookup");
		goto out;
	}
	/* the run may be an unfinished import's (FORMAT.md §6.11) */
	if ((rc = kt_ck_claim(s, bin, id)) != 0)
		goto out;
	vl = 8 + 2 + nl + 2 + fl + 4 + ml + KT_RUNREC_TAIL;
	v = malloc(vl);
	kl = (nl > KT_NAME_MAX_KEY ? KT_NAME_MAX_KEY : nl) + 1 + KT_RUN_BIN;
	k = malloc(kl);
	if (!v || !k) {
		rc = kt_err(s, KT_ENOMEM, "run record");
		goto out;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	kt_be64(v, (uint64_t)((int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec));
	kt_be16(v + 8, (uint16_t)nl);
	memcpy(v + 10, name, nl);
	kt_be16(v + 10 + nl, (uint16_t)fl);
	memcpy(v + 12 + nl, format, fl);
	kt_be32(v + 12 + nl + fl, (uint32_t)ml);
	if (ml)
		memcpy(v + 16 + nl + fl, meta, ml);
	kt_be64(v + vl - KT_RUNREC_TAIL, 0);
	kt_chain_h0(v + vl - KT_HASH_LEN);
	rc = kt_put(s, KT_DB_RUNS, bin, KT_RUN_BIN, v, vl, MDB_NOOVERWRITE);
	if (rc)
		goto out;
	{
		/* the checksum of name, format and meta (FORMAT.md §6.10) */
		MDB_val rv = { vl, v };
		unsigned char sum[KT_HASH_LEN];

		kt_runrec_sum(bin, &rv, sum);
		rc = kt_put(s, KT_DB_SUMS, bin, KT_RUN_BIN, sum, sizeof(sum), 0);
		if (rc)
			goto out;
	}
	if (nl) {
		/* a name can repeat; the key carries the id.  Names are
		 * indexed by their first KT_NAME_MAX_KEY bytes and checked
		 * against the run record on resolve */
		memcpy(k, name, kl - 1 - KT_RUN_BIN);
		k[kl - 1 - KT_RUN_BIN] = 0;
		memcpy(k + kl - KT_RUN_BIN, bin, KT_RUN_BIN);
		rc = kt_put(s, KT_DB_NAMES, k, kl, "", 0, 0);
	}
	if (rc == 0)
		rc = kt_ck_created(s, bin);
out:
	free(meta);
	free(v);
	free(k);
	return rc;
}

/* n_events and head: the last 40 bytes of a v2 run record (FORMAT.md §6.2),
 * after the lengths-checked name, format and meta. */
int kt_runrec_tail(kt_store *s, const MDB_val *v, uint64_t *n,
		   unsigned char head[KT_HASH_LEN])
{
	const unsigned char *p = v->mv_data;
	size_t sz = v->mv_size, nl, fl, ml;

	if (sz < 16 + KT_RUNREC_TAIL)
		goto bad;
	nl = kt_rd16(p + 8);
	if (sz < 16 + nl + KT_RUNREC_TAIL)
		goto bad;
	fl = kt_rd16(p + 10 + nl);
	if (sz < 16 + nl + fl + KT_RUNREC_TAIL)
		goto bad;
	ml = kt_rd32(p + 12 + nl + fl);
	if (sz != 16 + nl + fl + ml + KT_RUNREC_TAIL)
		goto bad;
	*n = kt_rd64(p + sz - KT_RUNREC_TAIL);
	memcpy(head, p + sz - KT_HASH_LEN, KT_HASH_LEN);
	return 0;
bad:
	return kt_err(s, KT_ECORRUPT, "bad run record");
}

/* Whether the key bin of a run with no checksum (have 0 from
 * kt_runrec_check) is the key its record was written under.  The checksum
 * covers the run id (kt_runrec_sum), so a checked run's key is sound; an
 * unchecked one is either a run of a store older than run_sums, or a run
 * whose key was damaged (the checksum is then looked up under an id it was
 * never written under).  Both other places that name the run are
 * consulted, one lookup each: the run_names key (name, 0x00, id) when the
 * run has a name, and its first ev_blocks key when it has events (the
 * checks `verify` makes over the whole store, here for one run).  0, or
 * KT_ECORRUPT naming the run. */
static int run_key_sound(kt_store *s, MDB_txn *txn, const unsigned char *bin,
			 const MDB_val *v, uint64_t n_events)
{
	const unsigned char *p = v->mv_data;
	size_t nl = kt_rd16(p + 8);
	char hx[KT_RUN_ID_HEX + 1];
	const char *why = NULL;
	int rc;

	if (nl) {
		unsigned char key[KT_NAME_MAX_KEY + 1 + KT_RUN_BIN];
		size_t pl = nl > KT_NAME_MAX_KEY ? KT_NAME_MAX_KEY : nl;
		MDB_val nk = { pl + 1 + KT_RUN_BIN, key }, nv;

		memcpy(key, p + 10, pl);
		key[pl] = 0;
		memcpy(key + pl + 1, bin, KT_RUN_BIN);
		rc = mdb_get(txn, s->dbi[KT_DB_NAMES], &nk, &nv);
		if (rc == MDB_NOTFOUND)
			why = "its name is not indexed under this id";
		else if (rc)
			return kt_mdb_err(s, rc, "run_names");
	}
	if (!why && n_events) {
		MDB_cursor *c;
		MDB_val k = { KT_RUN_BIN, (void *)bin }, bv;

		rc = mdb_cursor_open(txn, s->dbi[KT_DB_BLOCKS], &c);
		if (rc)
			return kt_mdb_err(s, rc, "cursor");
		rc = mdb_cursor_get(c, &k, &bv, MDB_SET_RANGE);
		mdb_cursor_close(c);
		if (rc == MDB_NOTFOUND || (rc == 0 && (k.mv_size < KT_RUN_BIN ||
				memcmp(k.mv_data, bin, KT_RUN_BIN))))
			why = "no events are stored under this id";
		else if (rc)
			return kt_mdb_err(s, rc, "ev_blocks");
	}
	if (!why)
		return 0;
	kt_hex(bin, KT_RUN_BIN, hx);
	return kt_err(s, KT_ECORRUPT, "run %s: its key does not match its "
		      "record (%s): a damaged run id", hx, why);
}

/* Decode a runs record into info (strings into s->run_*), checked against
 * its checksum (one lookup and a SHA-256 of name, format and meta), or
 * when it has none, its key against its name and events (run_key_sound). */
static int run_decode(kt_store *s, MDB_txn *txn, const unsigned char *bin,
		      const MDB_val *v, kt_run_info *info)
{
	const unsigned char *p = v->mv_data;
	size_t nl, fl, ml;
	int rc;

	memset(info, 0, sizeof(*info));
	rc = kt_runrec_tail(s, v, &info->n_events, info->head);
	if (rc)
		return rc;
	rc = kt_runrec_check(s, txn, bin, v, &info->checksum);
	if (!rc && !info->checksum)
		rc = run_key_sound(s, txn, bin, v, info->n_events);
	if (rc)
		return rc;
	nl = kt_rd16(p + 8);
	fl = kt_rd16(p + 10 + nl);
	ml = kt_rd32(p + 12 + nl + fl);
	kt_hex(bin, KT_RUN_BIN, info->id);
	info->created_ns = (int64_t)kt_rd64(p);
	free(s->run_name);
	free(s->run_format);
	free(s->run_meta);
	s->run_name = kt_memdupz(p + 10, nl);
	s->run_format = kt_memdupz(p + 12 + nl, fl);
	s->run_meta = ml ? kt_memdupz(p + 16 + nl + fl, ml) : kt_memdupz("{}", 2);
	if (!s->run_name || !s->run_format || !s->run_meta)
		return kt_err(s, KT_ENOMEM, "run info");
	info->name = s->run_name;
	info->format = s->run_format;
	info->meta_json = s->run_meta;
	return 0;
}

int kt_run_get(kt_store *s, const char *id, kt_run_info *info)
{
	unsigned char bin[KT_RUN_BIN];
	MDB_txn *txn;
	MDB_val v;
	int rc;

	if (!s || !info)
		return KT_EINVAL;
	if (!id) /* one run: NULL is a bad run id, not the whole store */
		return kt_run_bin(s, id, bin);
	if ((rc = kt_run_begin(s, id, bin, &txn)) != 0)
		return rc;
	if (!(rc = kt_run_rec(s, txn, bin, id, &v)))
		rc = run_decode(s, txn, bin, &v, info);
	kt_rd_end(s, txn);
	return rc;
}

/* kt_run_foreach and kt_run_foreach_sound: past_bad, a run whose key or
 * record is damaged is skipped and the walk goes on; the first damage is
 * the answer once it is done (its message kept: a later damaged run would
 * overwrite it). */
static int run_walk(kt_store *s, int (*fn)(const kt_run_info *, void *),
		    void *arg, int past_bad, size_t *nbad)
{
	MDB_txn *txn;
	MDB_cursor *c = NULL;
	MDB_val k, v;
	unsigned char bin[KT_RUN_BIN];
	kt_run_info info;
	int rc, op = MDB_FIRST, bad = 0;
	char first[sizeof(s->err)];

	if (!s || !fn)
		return KT_EINVAL;
	if ((rc = kt_ev_flush(s)) != 0)
		return rc;
	if ((rc = kt_rd_cursor(s, KT_DB_RUNS, &txn, &c)))
		return rc;
	while ((rc = mdb_cursor_get(c, &k, &v, op)) == 0) {
		op = MDB_NEXT;
		if (k.mv_size != KT_RUN_BIN) {
			rc = kt_err(s, KT_ECORRUPT, "bad run key");
		} else {
			memcpy(bin, k.mv_data, KT_RUN_BIN);
			rc = run_decode(s, txn, bin, &v, &info);
		}
		if (rc == KT_ECORRUPT && past_bad) {
			if (!bad++)
				memcpy(first, s->err, sizeof(first));
			continue;
		}
		if (rc)
			goto out;
		rc = fn(&info, arg);
		if (rc)
			goto out;
	}
	rc = rc == MDB_NOTFOUND ? 0 : kt_mdb_err(s, rc, "cursor");
	if (!rc && bad)
		rc = kt_err(s, KT_ECORRUPT, "%s", first);
out:
	if (nbad)
		*nbad = (size_t)bad;
	return kt_rd_close(s, txn, c, rc);
}

int kt_run_foreach(kt_store *s, int (*fn)(const kt_run_info *, void *),
		   void *arg)
{
	if (!s || !fn)
		return KT_EINVAL;
	return run_walk(s, fn, arg, 0, NULL);
}

int kt_run_foreach_sound(kt_store *s,
			 int (*fn)(const kt_run_info *, void *), void *arg,
			 size_t *nbad)
{
	if (nbad)
		*nbad = 0;
	if (!s || !fn)
		return KT_EINVAL;
	return run_walk(s, fn, arg, 1, nbad);
}

static int is_hex(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (kt_hexval((unsigned char)p[i]) < 0)
			return 0;
	return 1;
}

/* The record v of run bin, checked as kt_run_get checks it.  Resolving
 * must not pass over a damaged record (its name may be the one asked
 * for), nor land on one: the caller would take the damage for "no such
 * run" or for "not a run name", and `append` would start a new run. */
static int run_sound(kt_store *s, MDB_txn *txn, const unsigned char *bin,
		     const MDB_val *v)
{
	unsigned char head[KT_HASH_LEN];
	char hx[KT_RUN_ID_HEX + 1];
	uint64_t n;
	int have;

	if (kt_runrec_tail(s, v, &n, head) != 0) {
		kt_hex(bin, KT_RUN_BIN, hx);
		return kt_err(s, KT_ECORRUPT, "run %s: bad run record", hx);
	}
	return kt_runrec_check(s, txn, bin, v, &have);
}

/* Runs whose name equals spec: count and the first id.  KT_ECORRUPT with
 * *count -1 and found = the run when a run the index lists under spec has
 * a damaged record.  orphan (when *has_orphan) gets the first id the
 * index lists under spec that has no run record: with no sound run of
 * that name, the mark of a damaged run id (its `runs` key changed). */
static int resolve_name(kt_store *s, MDB_txn *txn, const char *spec,
			unsigned char found[KT_RUN_BIN], int *count,
			unsigned char orphan[KT_RUN_BIN], int *has_orphan)
{
	size_t sl = strlen(spec), kl = sl > KT_NAME_MAX_KEY ? KT_NAME_MAX_KEY : sl;
	MDB_cursor *c;
	MDB_val k, v;
	char *kb;
	int rc, err = 0;

	*count = 0;
	if (!sl)
		return 0;
	kb = kt_memdupz(spec, kl);
	if (!kb)
		return KT_ENOMEM;
	rc = mdb_cursor_open(txn, s->dbi[KT_DB_NAMES], &c);
	if (rc) {
		free(kb);
		return kt_mdb_err(s, rc, "cursor");
	}
	k.mv_size = kl + 1;
	k.mv_data = kb;
	rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE);
	while (rc == 0 && k.mv_size == kl + 1 + KT_RUN_BIN &&
	       memcmp(k.mv_data, kb, kl + 1) == 0) {
		const unsigned char *id = (unsigned char *)k.mv_data + kl + 1;
		MDB_val rk = { KT_RUN_BIN, (void *)id }, rv;

		rc = mdb_get(txn, s->dbi[KT_DB_RUNS], &rk, &rv);
		/* a run still being imported has its name held out too
		 * (FORMAT.md §6.11), so a name without a record is damage */
		if (rc == MDB_NOTFOUND && !*has_orphan &&
		    !kt_unfinished_has(s, txn, id)) {
			memcpy(orphan, id, KT_RUN_BIN);
			*has_orphan = 1;
		}
		if (rc == 0 && (err = run_sound(s, txn, id, &rv)) != 0) {
			memcpy(found, id, KT_RUN_BIN);
			*count = -1;
			break;
		}
		/* long names: the index holds a prefix; compare in full */
		if (rc == 0 && rv.mv_size >= 10 + sl &&
		    kt_rd16((unsigned char *)rv.mv_data + 8) == sl &&
		    memcmp((unsigned char *)rv.mv_data + 10, spec, sl) == 0) {
			if ((*count)++ == 0)
				memcpy(found, id, KT_RUN_BIN);
		}
		rc = mdb_cursor_get(c, &k, &v, MDB_NEXT);
	}
	mdb_cursor_close(c);
	free(kb);
	if (err)
		return err;
	return rc == 0 || rc == MDB_NOTFOUND ? 0 : kt_mdb_err(s, rc, "cursor");
}

/* A run id prefix of sl hex digits as the bytes keys begin with: nb whole
 * bytes, then, for an odd sl, the last digit as a high nibble. */
struct id_prefix {
	unsigned char b[KT_RUN_BIN];
	size_t nb;
	int odd, last;
};

static void id_prefix(const char *spec, size_t sl, struct id_prefix *p)
{
	memset(p, 0, sizeof(*p));
	p->nb = sl / 2;
	p->odd = (int)(sl & 1);
	for (size_t i = 0; i < p->nb; i++)
		p->b[i] = (unsigned char)(kt_hexval((unsigned char)spec[2 * i]) << 4 |
					  kt_hexval((unsigned char)spec[2 * i + 1]));
	if (p->odd) {
		p->last = kt_hexval((unsigned char)spec[sl - 1]);
		p->b[p->nb] = (unsigned char)(p->last << 4);
	}
}

/* Whether key k (at least a run id long) begins with prefix p. */
static int id_prefix_has(const struct id_prefix *p, const MDB_val *k)
{
	const unsigned char *d = k->mv_data;

	return k->mv_size >= KT_RUN_BIN && memcmp(d, p->b, p->nb) == 0 &&
	       (!p->odd || (d[p->nb] >> 4) == p->last);
}

/* Positions c at the first key >= the prefix. */
static int id_prefix_seek(MDB_cursor *c, struct id_prefix *p, MDB_val *k,
			  MDB_val *v)
{
	k->mv_size = p->nb + (size_t)p->odd;
	k->mv_data = p->b;
	return mdb_cursor_get(c, k, v, MDB_SET_RANGE);
}

static int resolve_prefix(kt_store *s, MDB_txn *txn, const char *spec,
			  unsigned char found[KT_RUN_BIN], int *count)
{
	struct id_prefix pre;
	MDB_cursor *c;
	MDB_val k, v;
	int rc;

	*count = 0;
	id_prefix(spec, strlen(spec), &pre);
	rc = mdb_cursor_open(txn, s->dbi[KT_DB_RUNS], &c);
	if (rc)
		return kt_mdb_err(s, rc, "cursor");
	rc = id_prefix_seek(c, &pre, &k, &v);
	while (rc == 0 && k.mv_size == KT_RUN_BIN && id_prefix_has(&pre, &k)) {
		if ((*count)++ == 0)
			memcpy(found, k.mv_data, KT_RUN_BIN);
		if (*count > 1)
			break;
		rc = mdb_cursor_get(c, &k, &v, MDB_NEXT);
	}
	mdb_cursor_close(c);
	return rc == 0 || rc == MDB_NOTFOUND ? 0 : kt_mdb_err(s, rc, "cursor");
}

/* The id of a run whose events ev_blocks holds under an id that begins
 * with the sl hex digits of spec (a full id or a prefix), when `runs` has
 * no record of it and it is not an import in progress: its key was
 * damaged.  1 and orphan set when found, 0 when not, else an error. */
static int resolve_orphan_events(kt_store *s, MDB_txn *txn, const char *spec,
				 size_t sl, unsigned char orphan[KT_RUN_BIN])
{
	struct id_prefix pre;
	int rc, hit = 0;
	MDB_cursor *c;
	MDB_val k, v;

	id_prefix(spec, sl, &pre);
	rc = mdb_cursor_open(txn, s->dbi[KT_DB_BLOCKS], &c);
	if (rc)
		return kt_mdb_err(s, rc, "cursor");
	rc = id_prefix_seek(c, &pre, &k, &v);
	/* the first run's blocks only: no sound run has this prefix (the
	 * caller found none), so any run under it lacks its record */
	if (rc == 0 && id_prefix_has(&pre, &k)) {
		MDB_val rk = { KT_RUN_BIN, k.mv_data }, rv;

		memcpy(orphan, k.mv_data, KT_RUN_BIN);
		hit = mdb_get(txn, s->dbi[KT_DB_RUNS], &rk, &rv) == MDB_NOTFOUND &&
		      !kt_unfinished_has(s, txn, orphan);
	}
	mdb_cursor_close(c);
	if (rc && rc != MDB_NOTFOUND)
		return kt_mdb_err(s, rc, "cursor");
	return hit;
}

int kt_run_resolve(kt_store *s, const char *spec, char out[KT_RUN_ID_HEX + 1])
{
	unsigned char bin[KT_RUN_BIN], orphan[KT_RUN_BIN];
	MDB_txn *txn;
	size_t sl;
	int rc, n = 0, has_orphan = 0, by_name = 0;

	if (!s || !spec || !*spec)
		return KT_EINVAL;
	out[0] = 0;
	sl = strlen(spec);
	rc = kt_rd_begin(s, &txn);
	if (rc)
		return rc;
	/* order as git: a full id, then a name, then an abbreviation */
	if (sl == KT_RUN_ID_HEX && kt_unhex(spec, bin, KT_RUN_BIN) == 0) {
		MDB_val k = { KT_RUN_BIN, bin }, v;

		if (mdb_get(txn, s->dbi[KT_DB_RUNS], &k, &v) == 0) {
			n = 1;
			goto done;
		}
	}
	rc = resolve_name(s, txn, spec, bin, &n, orphan, &has_orphan);
	by_name = has_orphan;
	if (rc)
		goto done;
	/* A name that is also the prefix of another run's id would silently
	 * hide that run: such a spec is ambiguous (unlike git, which warns,
	 * a wrong run here writes a report or a replay of the wrong run). */
	if (sl >= 4 && sl <= KT_RUN_ID_HEX && is_hex(spec, sl)) {
		unsigned char pbin[KT_RUN_BIN] = { 0 };
		int pn = 0;

		rc = resolve_prefix(s, txn, spec, pbin, &pn);
		if (rc)
			goto done;
		if (!n) {
			n = pn;
			memcpy(bin, pbin, KT_RUN_BIN);
		} else if (pn && (pn > 1 || memcmp(pbin, bin, KT_RUN_BIN))) {
			n = 2;
		}
		if (n == 0 && !has_orphan) {
			rc = resolve_orphan_events(s, txn, spec, sl, orphan);
			has_orphan = rc == 1;
			rc = rc == 1 ? 0 : rc;
		}
	}
done:
	if (rc == 0 && n == 1) {
		MDB_val k = { KT_RUN_BIN, bin }, v;

		rc = mdb_get(txn, s->dbi[KT_DB_RUNS], &k, &v);
		rc = rc ? kt_mdb_err(s, rc, "run lookup") :
			  run_sound(s, txn, bin, &v);
		n = rc == KT_ECORRUPT ? -1 : n;
	}
	kt_rd_end(s, txn);
	/* a damaged record: out names the run (verify reports it) */
	if (rc == KT_ECORRUPT && n < 0)
		kt_hex(bin, KT_RUN_BIN, out);
	if (rc)
		return rc;
	/* named in run_names or ev_blocks, yet without a record: not
	 * "no such run" but a damaged run id (ls says the same of it) */
	if (n == 0 && has_orphan) {
		kt_hex(orphan, KT_RUN_BIN, out);
		return kt_err(s, KT_ECORRUPT, "run %s: its record is missing "
			      "(its %s stored): a damaged run id", out,
			      by_name ? "name is" : "events are");
	}
	if (n == 0)
		return kt_err(s, KT_ENOTFOUND, "no run '%.100s'", spec);
	if (n > 1)
		return kt_err(s, KT_EAMBIG, "'%.100s' matches several runs",
			      spec);
	kt_hex(bin, KT_RUN_BIN, out);
	return 0;
}
