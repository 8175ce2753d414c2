/*
 * ndjson.c - the store as NDJSON tables in the Hive layout that DuckDB,
 * Spark and Polars read directly, in files of bounded size:
 *
 *   DIR/_manifest.json
 *   DIR/<table>/format=<importer>/date=<YYYY-MM-DD>/part-<E>-<K>.ndjson.zst
 *
 * Tables: runs, events, bench, questions.  Partitions are keyed by the
 * run's importer and the run's UTC day (its first event with a time, else
 * when it was recorded; run_day_ns): low cardinality, so a
 * million runs make a few partitions, not a directory per run (Spark's and
 * DuckDB's guides ask for files of 100 MB - 1 GB).  `run` is a column of
 * every row.  <E> is the export's number (1 for the first, one more for each
 * --since-last), <K> the part's number within its partition in that export;
 * a part is closed once it holds part_size uncompressed bytes.
 *
 * _manifest.json (README "Exporting tables"; written last, by rename, and
 * only by an export that wrote a row):
 *   {"ktraj_export": 1, "schema": 2, "compress": "zstd"|"gzip"|"none",
 *    "part_size": bytes, "partition_by": ["format", "date"],
 *    "columns": {table: [names...]},
 *    "exports": [{"n": E, "finished": ISO-8601, "runs": n, "new_runs": n,
 *                 "rows": {table: n}, "files": [{"path", "table", "rows",
 *                 "bytes"}]}],
 *    "watermark": {"runs": n, "events": n, "by_run": {id: events}}}
 * The watermark is what the export holds: every event of run id up to seq
 * by_run[id].  Since the store is append-only (events are never rewritten,
 * FORMAT.md), a later export with since_last writes only events past it,
 * and a new `runs` row for each run that grew (its latest row, the one with
 * the most events, is the run's state).
 *
 * Crash safety: parts are written under a hidden ".part-...tmp" name (a
 * glob on the suffix misses it, and Spark and Hadoop skip names that start
 * with a dot) and stay there when complete; once every part of the export
 * is written they are renamed into place (publish), then the manifest is
 * replaced by rename.  An export that dies leaves its parts hidden, or,
 * dying within those renames, outside the manifest; they carry the number
 * the next attempt will use, which deletes them before it writes
 * (remove_stale).
 *
 * Memory is bounded by the open parts (at most MAX_OPEN compressor states,
 * the least recently used one is closed first) and one run's payloads at a
 * time, not by the store's size.
 *
 * With redaction, every string of a run's name, meta and event payloads
 * goes through the same redactor (one per run) as `--format jsonl
 * --redact`; the tables are built from the redacted payload.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <dirent.h>

#include "../base/archive_dl.h" /* libarchive, loaded when first used */
#include <cjson/cJSON.h>

#include "../analyze/analyze.h"
#include "export.h"
#include "../import/import.h"

enum { T_RUNS, T_EVENTS, T_BENCH, T_QUESTIONS, T_N };
static const char *const table_name[T_N] = { "runs", "events", "bench", "questions" };

/* Columns after `run` (and for events/bench/questions after their header);
 * every row of a table has every column, null when the event lacks it, so
 * schema inference is the same in every file. */
static const char *const run_cols[] = { "name", "format", "events", "created",
					"head", "meta" };
static const char *const ev_cols[] = {
	"role", "human", "text", "tool", "call_id", "ok", "path",
	"exit_code", "correct", "time_ms", "speedup", "step", "verdict",
};
static const char *const bench_cols[] = {
	"workload", "scenario", "metric", "baseline", "graded", "source",
	"candidate", "time_ms", "min_ms", "max_ms", "n", "ref_time_ms",
	"speedup", "correct", "tflops", "gbps", "source_hash", "status",
};
#define NCOLS(a) (sizeof(a) / sizeof(a[0]))

#define SCHEMA 2
#define MAX_OPEN 32 /* open part files (compressor states) at once */

struct part {
	struct archive *a;
	char tmp[4096];
	uint64_t rows, bytes, used;
};

struct partition {           /* one table's files under format=/date= */
	char *dir;           /* "<table>/format=<f>/date=<d>", relative */
	int table;
	unsigned next_k;     /* number of the next part file */
	struct part p;       /* the open part, p.a NULL when none */
};

struct file_rec {
	char *path;
	int table;
	uint64_t rows, bytes;
};

struct ctx {
	kt_store *s;
	const kt_export_args *args;
	const char *dir;
	char *err;
	size_t errlen;
	int rc;
	unsigned export_n;
	uint64_t part_size, clock;
	kt_strmap parts;       /* dir -> struct partition */
	size_t n_open;
	struct file_rec *files;
	size_t nfiles, capfiles;
	uint64_t rows[T_N];
	kt_strmap mark;        /* run id -> (void *)(events + 1), previous */
	cJSON *manifest;       /* the previous manifest, NULL when none */
	/* this export's watermark and counts */
	cJSON *by_run;
	uint64_t runs, new_runs, events_total;
	/* run ids are collected first: kt_event_foreach must not run inside
	 * kt_run_foreach's callback on the same handle */
	char (*ids)[KT_RUN_ID_HEX + 1];
	size_t n, cap;
};

struct tables {                 /* one run being written */
	struct ctx *c;
	const char *run;
	kt_redactor *red;       /* NULL: no redaction */
	struct partition *pt[T_N];
	uint64_t from;          /* rows only for seq > from */
	int err;
	const char *format;     /* the run's importer: task prompts (questions) */
	kt_an_qstate qst;       /* the agent has spoken or called a tool
				   (task prompts come before) */
};

static int mkdir_p(const char *path)
{
	char tmp[4096], *p;

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return KT_ELIMIT;
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0777) && errno != EEXIST)
			return KT_EIO;
		*p = '/';
	}
	if (mkdir(tmp, 0777) && errno != EEXIST)
		return KT_EIO;
	return 0;
}

static const char *suffix(const kt_export_args *a)
{
	return a->compress == KT_EXPORT_GZIP ? ".ndjson.gz" :
	       a->compress == KT_EXPORT_NONE ? ".ndjson" : ".ndjson.zst";
}

/* Close the open part of pt: finish the stream and record it for publish
 * and the manifest (under its final name; it keeps its hidden one). */
static int part_close(struct ctx *c, struct partition *pt)
{
	struct part *p = &pt->p;
	struct file_rec *f;
	char final[4096];
	const char *base;
	int rc = 0;

	if (!p->a)
		return 0;
	if (archive_write_close(p->a) != ARCHIVE_OK) {
		rc = KT_EIO;
		snprintf(c->err, c->errlen, "%s: %s", p->tmp,
			 archive_error_string(p->a) ? archive_error_string(p->a) : "write error");
	}
	archive_write_free(p->a);
	p->a = NULL;
	c->n_open--;
	/* dir/.part-E-K.ext.tmp -> dir/part-E-K.ext */
	base = strrchr(p->tmp, '/') + 1;
	snprintf(final, sizeof(final), "%.*s%.*s", (int)(base - p->tmp), p->tmp,
		 (int)strlen(base) - 5, base + 1);
	if (rc) {
		unlink(p->tmp);
		return rc;
	}
	if (KT_GROW(c->files, c->capfiles, c->nfiles + 1))
		return KT_ENOMEM;
	f = &c->files[c->nfiles];
	if (!(f->path = kt_xstrdup(final + strlen(c->dir) + 1)))
		return KT_ENOMEM;
	f->table = pt->table;
	f->rows = p->rows;
	f->bytes = p->bytes;
	c->nfiles++;
	return 0;
}

struct lru { struct partition *pt; uint64_t used; };

static void lru_scan(kt_strmap *m, struct lru *l)
{
	size_t i;

	for (i = 0; i < m->cap; i++) {
		struct partition *pt = m->keys[i] ? m->vals[i] : NULL;

		if (pt && pt->p.a && (!l->pt || pt->p.used < l->used)) {
			l->pt = pt;
			l->used = pt->p.used;
		}
	}
}

static int part_open(struct ctx *c, struct partition *pt)
{
	struct part *p = &pt->p;
	struct archive_entry *e;
	char path[4096];
	int ok, f;

	if (c->n_open >= MAX_OPEN) {
		struct lru l = { 0 };
		int rc;

		lru_scan(&c->parts, &l);
		if (l.pt && (rc = part_close(c, l.pt)))
			return rc;
	}
	if (snprintf(path, sizeof(path), "%s/%s", c->dir, pt->dir) >= (int)sizeof(path) ||
	    mkdir_p(path)) {
		snprintf(c->err, c->errlen, "cannot create %s/%s: %s", c->dir,
			 pt->dir, strerror(errno));
		return KT_EIO;
	}
	if (snprintf(p->tmp, sizeof(p->tmp), "%s/.part-%05u-%05u%s.tmp", path,
		     c->export_n, pt->next_k++, suffix(c->args)) >= (int)sizeof(p->tmp)) {
		snprintf(c->err, c->errlen, "%s: path too long", c->dir);
		return KT_ELIMIT;
	}
	p->rows = p->bytes = 0;
	if (!(p->a = archive_write_new()) || !(e = archive_entry_new())) {
		if (p->a)
			archive_write_free(p->a);
		p->a = NULL;
		return kt_archive_fail(c->err, c->errlen);
	}
	f = c->args->compress;
	/* raw format: the file is the compressed stream of the rows alone, with
	 * no padding after it (a tar-style last block would add NUL bytes) */
	ok = (f == KT_EXPORT_GZIP ? archive_write_add_filter_gzip(p->a) :
	      f == KT_EXPORT_NONE ? archive_write_add_filter_none(p->a) :
	      archive_write_add_filter_zstd(p->a)) == ARCHIVE_OK &&
	     archive_write_set_format_raw(p->a) == ARCHIVE_OK &&
	     archive_write_set_bytes_in_last_block(p->a, 1) == ARCHIVE_OK &&
	     archive_write_open_filename(p->a, p->tmp) == ARCHIVE_OK;
	if (ok) {
		archive_entry_set_pathname(e, "part.ndjson");
		archive_entry_set_filetype(e, AE_IFREG);
		ok = archive_write_header(p->a, e) == ARCHIVE_OK;
	}
	archive_entry_free(e);
	if (!ok) {
		snprintf(c->err, c->errlen, "%s: %s", p->tmp,
			 archive_error_string(p->a) ? archive_error_string(p->a) : "cannot write");
		archive_write_free(p->a);
		p->a = NULL;
		unlink(p->tmp);
		return KT_EIO;
	}
	c->n_open++;
	return 0;
}

/* Write one row (the object is consumed) to the run's partition of table. */
static void row(struct tables *t, int table, cJSON *o)
{
	struct ctx *c = t->c;
	struct partition *pt = t->pt[table];
	char *s = NULL;
	size_t len;
	int rc = 0;

	if (t->err)
		goto out;
	if (!o || !(s = cJSON_PrintUnformatted(o))) {
		t->err = KT_ENOMEM;
		goto out;
	}
	len = strlen(s);
	s[len++] = '\n'; /* replaces the NUL: written by length */
	if (pt->p.a && pt->p.rows && pt->p.bytes + len > c->part_size)
		rc = part_close(c, pt);
	if (!rc && !pt->p.a)
		rc = part_open(c, pt);
	if (!rc && archive_write_data(pt->p.a, s, len) != (la_ssize_t)len) {
		snprintf(c->err, c->errlen, "%s: %s", pt->p.tmp,
			 archive_error_string(pt->p.a) ? archive_error_string(pt->p.a) : "write error");
		rc = KT_EIO;
	}
	if (rc) {
		t->err = rc;
		goto out;
	}
	pt->p.rows++;
	pt->p.bytes += len;
	pt->p.used = ++c->clock;
	c->rows[table]++;
out:
	free(s);
	cJSON_Delete(o);
}

static void copy_field(cJSON *dst, const cJSON *p, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(p, key);

	cJSON_AddItemToObject(dst, key, v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
}

/* Whether message payload p is a question a person asked: the analyzers'
 * definition (kt_an_msg_question) with the run's state before it. */
static int human_question(const struct tables *t, const cJSON *p)
{
	kt_an_msg m;

	kt_an_msg_of_json(p, &m);
	return kt_an_msg_question(t->format, &t->qst, &m, NULL, NULL);
}

/* A row object that starts with the run column. */
static cJSON *new_row(const struct tables *t)
{
	cJSON *o = cJSON_CreateObject();

	if (o)
		cJSON_AddStringToObject(o, "run", t->run);
	return o;
}

static int each_event(const kt_event *ev, void *arg)
{
	struct tables *t = arg;
	cJSON *p = cJSON_ParseWithLength(ev->payload, ev->payload_len), *o;
	char *pj = NULL;
	int emit = ev->seq > t->from;
	size_t i;

	if (!p) {
		t->err = KT_ECORRUPT;
		return 1;
	}
	if (emit && t->red) {
		int rc = kt_redact_json(t->red, p);

		if (rc || !(pj = cJSON_PrintUnformatted(p))) {
			t->err = rc ? rc : KT_ENOMEM;
			cJSON_Delete(p);
			return 1;
		}
	}
	if (emit) {
		o = new_row(t);
		kt_export_event_head(o, ev);
		for (i = 0; i < NCOLS(ev_cols); i++)
			copy_field(o, p, ev_cols[i]);
		cJSON_AddStringToObject(o, "payload", pj ? pj : ev->payload);
		row(t, T_EVENTS, o);
	}
	free(pj);

	if (emit && ev->kind == KT_KIND_BENCH) {
		o = new_row(t);
		cJSON_AddNumberToObject(o, "seq", (double)ev->seq);
		kt_export_add_ns(o, "ts", ev->ts_ns);
		for (i = 0; i < NCOLS(bench_cols); i++)
			copy_field(o, p, bench_cols[i]);
		row(t, T_BENCH, o);
	}
	/* the definition of a question every analyzer uses
	 * (kt_an_msg_question); judged with the state of the whole run, so
	 * an incremental export decides as a full one would */
	if (ev->kind == KT_KIND_QUESTION ||
	    (ev->kind == KT_KIND_MESSAGE && human_question(t, p))) {
		if (emit) {
			o = new_row(t);
			cJSON_AddNumberToObject(o, "seq", (double)ev->seq);
			kt_export_add_ns(o, "ts", ev->ts_ns);
			copy_field(o, p, "text");
			if (ev->kind == KT_KIND_QUESTION) {
				copy_field(o, p, "origin");
				copy_field(o, p, "layer");
			} else {
				const cJSON *tx = cJSON_GetObjectItem(p, "text");
				const char *ts = cJSON_GetStringValue(tx);

				cJSON_AddStringToObject(o, "origin", "human");
				/* the layer `questions mine` gives the
				 * message's questions, "unclassified" as
				 * there when no layer term */
				cJSON_AddStringToObject(o, "layer",
					kt_an_layer_name(kt_an_msg_layer(
						ts, ts ? strlen(ts) : 0)));
			}
			row(t, T_QUESTIONS, o);
		}
	}
	if (ev->kind == KT_KIND_MESSAGE &&
	    !cJSON_IsTrue(cJSON_GetObjectItem(p, "human")) &&
	    cJSON_IsString(cJSON_GetObjectItem(p, "role")) &&
	    !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(p, "role")),
		    "assistant"))
		t->qst.acted = 1;
	if (ev->kind == KT_KIND_TOOL_CALL)
		t->qst.calls++;
	cJSON_Delete(p);
	return t->err ? 1 : 0;
}

/* A partition value: the characters Hive paths and shells take as they are;
 * anything else (and an empty value) becomes '_'. */
static void part_value(const char *v, char *out, size_t n)
{
	size_t i = 0;

	for (; v && *v && i + 1 < n && i < 64; v++)
		out[i++] = ((*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z') ||
			    (*v >= '0' && *v <= '9') || *v == '_' || *v == '-' ||
			    *v == '.') ? *v : '_';
	if (!i || (i == 1 && out[0] == '.') || (i == 2 && !strncmp(out, "..", 2)))
		out[i++] = '_';
	out[i] = 0;
}

/* kt_event_foreach_head callback: the first event with a time. */
static int first_ts(const kt_event *ev, void *arg)
{
	if (ev->ts_ns == KT_TS_UNKNOWN)
		return 0;
	*(int64_t *)arg = ev->ts_ns;
	return 1;
}

/* The run's day: when its first event with a time happened (the session,
 * not its import), else when the run was recorded (formats with no
 * times).  Events never change, so a run that grows keeps its day. */
static int64_t run_day_ns(struct ctx *c, const char *id)
{
	int64_t ts = KT_TS_UNKNOWN;

	(void)kt_event_foreach_head(c->s, id, 1, 0, 0, first_ts, &ts);
	return ts;
}

static struct partition *partition_get(struct ctx *c, int table,
				       const kt_run_info *ri, int64_t day_ns)
{
	char fmt[80], day[16] = "unknown", key[256];
	struct partition *pt;
	void **slot;

	part_value(ri->format, fmt, sizeof(fmt));
	if (day_ns != KT_TS_UNKNOWN && day_ns >= 0) {
		time_t sec = (time_t)(day_ns / 1000000000);
		struct tm tm;

		if (gmtime_r(&sec, &tm))
			strftime(day, sizeof(day), "%Y-%m-%d", &tm);
	}
	snprintf(key, sizeof(key), "%s/format=%s/date=%s", table_name[table],
		 fmt, day);
	if (!(slot = kt_strmap_slot(&c->parts, key, 1)))
		return NULL;
	if (*slot)
		return *slot;
	if (!(pt = calloc(1, sizeof(*pt))) || !(pt->dir = kt_xstrdup(key))) {
		free(pt);
		return NULL;
	}
	pt->table = table;
	*slot = pt;
	return pt;
}

static int export_run(struct ctx *c, const char *id)
{
	struct tables t = { .c = c, .run = id };
	kt_run_info ri;
	cJSON *o, *meta;
	char hex[KT_HASH_HEX + 1];
	void *prev;
	uint64_t n_events;
	int64_t day_ns;
	int rc, i;

	rc = kt_run_get(c->s, id, &ri);
	if (rc)
		goto out;
	prev = kt_strmap_get(&c->mark, id);
	t.from = prev ? (uint64_t)(uintptr_t)prev - 1 : 0;
	n_events = ri.n_events;
	c->runs++;
	c->events_total += n_events;
	if (!cJSON_AddNumberToObject(c->by_run, id, (double)n_events)) {
		rc = KT_ENOMEM;
		goto out;
	}
	if (prev && t.from >= n_events)
		goto out; /* nothing new */
	c->new_runs += !prev;
	/* the scan may end the read ri's strings point into: read again
	 * (n_events stays the one counted above) */
	day_ns = run_day_ns(c, id);
	if ((rc = kt_run_get(c->s, id, &ri)))
		goto out;
	if (day_ns == KT_TS_UNKNOWN)
		day_ns = ri.created_ns;
	for (i = 0; i < T_N; i++)
		if (!(t.pt[i] = partition_get(c, i, &ri, day_ns))) {
			rc = KT_ENOMEM;
			goto out;
		}
	t.format = ri.format;
	if (c->args->redact && !(t.red = kt_redactor_new())) {
		rc = KT_ENOMEM;
		goto out;
	}
	o = new_row(&t);
	cJSON_AddStringToObject(o, run_cols[0], ri.name ? ri.name : "");
	cJSON_AddStringToObject(o, run_cols[1], ri.format ? ri.format : "");
	cJSON_AddNumberToObject(o, run_cols[2], (double)n_events);
	kt_export_add_ns(o, run_cols[3], ri.created_ns);
	kt_hex(ri.head, KT_HASH_LEN, hex);
	cJSON_AddStringToObject(o, run_cols[4], hex);
	meta = ri.meta_json ? cJSON_Parse(ri.meta_json) : NULL;
	cJSON_AddItemToObject(o, run_cols[5], meta ? meta : cJSON_CreateObject());
	/* the name is often the first prompt; "head" is 64 hex, which the
	 * redactor may take for a secret, so only name and meta */
	if (t.red &&
	    ((rc = kt_redact_json(t.red, cJSON_GetObjectItemCaseSensitive(o, "name"))) ||
	     (rc = kt_redact_json(t.red, cJSON_GetObjectItemCaseSensitive(o, "meta"))))) {
		cJSON_Delete(o);
		goto out;
	}
	row(&t, T_RUNS, o);
	/* up to the events the run had when its row was read, so the
	 * watermark and the rows agree while another process appends */
	if (!t.err)
		rc = kt_event_foreach_body(c->s, id, 1, n_events, 0, each_event, &t);
	if (!rc && t.err)
		rc = t.err;
out:
	if (rc && !c->err[0])
		snprintf(c->err, c->errlen, "run %s: %s", id, kt_strerror(rc));
	kt_redactor_free(t.red);
	return rc;
}

static int collect(const kt_run_info *ri, void *arg)
{
	struct ctx *c = arg;
	int h;

	if (!c->args->hidden && (h = kt_run_hidden(c->s, ri->id)) != 0) {
		c->rc = h < 0 ? h : 0;
		return h < 0;
	}
	if (KT_GROW(c->ids, c->cap, c->n + 1)) {
		c->rc = KT_ENOMEM;
		return 1;
	}
	memcpy(c->ids[c->n++], ri->id, KT_RUN_ID_HEX + 1);
	return 0;
}

static const char *const compress_name[] = { "zstd", "gzip", "none" };

/* Read DIR/_manifest.json of an earlier export.  0 with c->manifest NULL
 * when there is none. */
static int read_manifest(struct ctx *c)
{
	char path[4096];
	const cJSON *ex, *by, *x, *cp, *ps;
	struct kt_buf b = { 0 };
	int rc;

	snprintf(path, sizeof(path), "%s/_manifest.json", c->dir);
	if ((rc = kt_buf_read_file(&b, path))) {
		kt_buf_free(&b);
		if (rc == KT_ENOTFOUND)
			return 0;
		if (rc == KT_EIO)
			snprintf(c->err, c->errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	c->manifest = cJSON_ParseWithLength(b.s ? b.s : "", b.len);
	kt_buf_free(&b);
	ex = cJSON_GetObjectItemCaseSensitive(c->manifest, "exports");
	by = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(c->manifest, "watermark"), "by_run");
	cp = cJSON_GetObjectItemCaseSensitive(c->manifest, "compress");
	ps = cJSON_GetObjectItemCaseSensitive(c->manifest, "part_size");
	if (!cJSON_IsArray(ex) || !cJSON_IsObject(by) || !cJSON_IsString(cp) ||
	    !cJSON_IsNumber(ps) ||
	    !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(c->manifest, "schema"))) {
		snprintf(c->err, c->errlen, "%s: not a ktraj export manifest", path);
		return KT_EPARSE;
	}
	if (cJSON_GetObjectItemCaseSensitive(c->manifest, "schema")->valuedouble != SCHEMA) {
		snprintf(c->err, c->errlen, "%s: an export of another schema (%g; this ktraj writes %d): export to a new folder",
			 path, cJSON_GetObjectItemCaseSensitive(c->manifest, "schema")->valuedouble, SCHEMA);
		return KT_EVERSION;
	}
	if (strcmp(cp->valuestring, compress_name[c->args->compress])) {
		snprintf(c->err, c->errlen, "%s: the export is compressed with %s, not %s: add to it with --compress %s",
			 path, cp->valuestring, compress_name[c->args->compress], cp->valuestring);
		return KT_EINVAL;
	}
	c->export_n = (unsigned)cJSON_GetArraySize(ex) + 1;
	cJSON_ArrayForEach(x, by) {
		if (!cJSON_IsNumber(x) || x->valuedouble < 0 || !x->string) {
			snprintf(c->err, c->errlen, "%s: bad watermark entry", path);
			return KT_EPARSE;
		}
		if (kt_strmap_put(&c->mark, x->string,
				  (void *)(uintptr_t)((uint64_t)x->valuedouble + 1)))
			return KT_ENOMEM;
	}
	return 0;
}

/* Part files named part-<E>-* of this export number: left by an attempt
 * that died before its manifest (they are in no manifest).  nftw passes no
 * argument to its callback, hence the file-scope number (an export runs on
 * one thread). */
static unsigned stale_n;
static int stale_rm(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	char pre[32];
	const char *b = path + ftw->base;

	(void)st;
	snprintf(pre, sizeof(pre), ".part-%05u-", stale_n);
	if (type == FTW_F && (!strncmp(b, pre, strlen(pre)) || !strncmp(b, pre + 1, strlen(pre + 1))))
		unlink(path);
	return 0;
}

/* Whether dir has run=<id> folders: the layout of ktraj before the
 * manifest (one folder per run). */
static int old_layout(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int old = 0;

	while (d && !old && (e = readdir(d)))
		old = !strncmp(e->d_name, "run=", 4);
	if (d)
		closedir(d);
	return old;
}

static int remove_stale(struct ctx *c)
{
	int i;

	stale_n = c->export_n;
	for (i = 0; i < T_N; i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", c->dir, table_name[i]);
		if (access(path, F_OK))
			continue;
		if (nftw(path, stale_rm, 16, FTW_PHYS)) {
			snprintf(c->err, c->errlen, "%s: %s", path, strerror(errno));
			return KT_EIO;
		}
	}
	return 0;
}

static void add_names(cJSON *a, const char *const *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
}

/* Every table's columns, in row order (the manifest's "columns"). */
static cJSON *columns(void)
{
	static const char *const run[] = { "run" };
	static const char *const head[] = { "run", "seq", "parent", "ts", "kind",
					    "actor" };
	static const char *const payload[] = { "payload" };
	static const char *const bq[] = { "run", "seq", "ts" };
	static const char *const q[] = { "text", "origin", "layer" };
	cJSON *o = cJSON_CreateObject(), *a;

	a = cJSON_AddArrayToObject(o, "runs");
	add_names(a, run, NCOLS(run));
	add_names(a, run_cols, NCOLS(run_cols));
	a = cJSON_AddArrayToObject(o, "events");
	add_names(a, head, NCOLS(head));
	add_names(a, ev_cols, NCOLS(ev_cols));
	add_names(a, payload, NCOLS(payload));
	a = cJSON_AddArrayToObject(o, "bench");
	add_names(a, bq, NCOLS(bq));
	add_names(a, bench_cols, NCOLS(bench_cols));
	a = cJSON_AddArrayToObject(o, "questions");
	add_names(a, bq, NCOLS(bq));
	add_names(a, q, NCOLS(q));
	return o;
}

/* The manifest of this export: the earlier one with this export added and
 * the watermark replaced, written to a temp file and renamed over. */
static int write_manifest(struct ctx *c)
{
	cJSON *m = c->manifest, *ex, *e, *rows, *files, *wm;
	char path[4096], tmp[4200], iso[40];
	struct timespec now;
	char *text = NULL;
	FILE *f;
	size_t i;
	int rc = KT_ENOMEM;

	if (!m) {
		if (!(m = c->manifest = cJSON_CreateObject()))
			return KT_ENOMEM;
		cJSON_AddNumberToObject(m, "ktraj_export", 1);
		cJSON_AddNumberToObject(m, "schema", SCHEMA);
		cJSON_AddStringToObject(m, "compress", compress_name[c->args->compress]);
		cJSON_AddNumberToObject(m, "part_size", (double)c->part_size);
		cJSON_AddItemToObject(m, "partition_by", cJSON_CreateArray());
		cJSON_AddItemToArray(cJSON_GetObjectItem(m, "partition_by"),
				     cJSON_CreateString("format"));
		cJSON_AddItemToArray(cJSON_GetObjectItem(m, "partition_by"),
				     cJSON_CreateString("date"));
		cJSON_AddItemToObject(m, "columns", columns());
		cJSON_AddArrayToObject(m, "exports");
	}
	ex = cJSON_GetObjectItemCaseSensitive(m, "exports");
	e = cJSON_CreateObject();
	if (!ex || !e)
		goto out;
	cJSON_AddItemToArray(ex, e);
	cJSON_AddNumberToObject(e, "n", c->export_n);
	clock_gettime(CLOCK_REALTIME, &now);
	kt_export_ts_iso((int64_t)now.tv_sec * 1000000000 + now.tv_nsec, iso, sizeof(iso));
	cJSON_AddStringToObject(e, "finished", iso);
	cJSON_AddNumberToObject(e, "runs", (double)c->runs);
	cJSON_AddNumberToObject(e, "new_runs", (double)c->new_runs);
	rows = cJSON_AddObjectToObject(e, "rows");
	for (i = 0; i < T_N; i++)
		cJSON_AddNumberToObject(rows, table_name[i], (double)c->rows[i]);
	files = cJSON_AddArrayToObject(e, "files");
	for (i = 0; i < c->nfiles; i++) {
		cJSON *fo = cJSON_CreateObject();

		cJSON_AddItemToArray(files, fo);
		cJSON_AddStringToObject(fo, "path", c->files[i].path);
		cJSON_AddStringToObject(fo, "table", table_name[c->files[i].table]);
		cJSON_AddNumberToObject(fo, "rows", (double)c->files[i].rows);
		cJSON_AddNumberToObject(fo, "bytes", (double)c->files[i].bytes);
	}
	cJSON_DeleteItemFromObjectCaseSensitive(m, "watermark");
	wm = cJSON_AddObjectToObject(m, "watermark");
	if (!wm)
		goto out;
	cJSON_AddNumberToObject(wm, "runs", (double)c->runs);
	cJSON_AddNumberToObject(wm, "events", (double)c->events_total);
	cJSON_AddItemToObject(wm, "by_run", c->by_run);
	c->by_run = NULL;
	if (!(text = cJSON_Print(m)))
		goto out;
	snprintf(path, sizeof(path), "%s/_manifest.json", c->dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	rc = KT_EIO;
	if (!(f = fopen(tmp, "w"))) {
		snprintf(c->err, c->errlen, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	if (fputs(text, f) < 0 || fputc('\n', f) < 0 || fflush(f) ||
	    fsync(fileno(f))) {
		snprintf(c->err, c->errlen, "%s: %s", tmp, strerror(errno));
		fclose(f);
		unlink(tmp);
		goto out;
	}
	if (fclose(f) || rename(tmp, path)) {
		snprintf(c->err, c->errlen, "%s: %s", path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	rc = 0;
out:
	free(text);
	return rc;
}

static void free_partition(void *v)
{
	struct partition *pt = v;

	if (pt->p.a) {
		archive_write_free(pt->p.a);
		unlink(pt->p.tmp);
	}
	free(pt->dir);
	free(pt);
}

static int close_all(struct ctx *c)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < c->parts.cap; i++) {
		struct partition *pt = c->parts.keys[i] ? c->parts.vals[i] : NULL;

		if (pt && pt->p.a && !rc)
			rc = part_close(c, pt);
	}
	return rc;
}

/* Rename every part of this export from its hidden name into place: only
 * now, with all of them written, so a reader's glob never sees part of an
 * export that died. */
static int publish(struct ctx *c)
{
	char tmp[4200], final[4200];
	size_t i;

	for (i = 0; i < c->nfiles; i++) {
		const char *path = c->files[i].path, *base = strrchr(path, '/') + 1;

		snprintf(final, sizeof(final), "%s/%s", c->dir, path);
		snprintf(tmp, sizeof(tmp), "%s/%.*s.%s.tmp", c->dir, (int)(base - path), path, base);
		if (rename(tmp, final)) {
			snprintf(c->err, c->errlen, "%s: %s", final, strerror(errno));
			return KT_EIO;
		}
	}
	return 0;
}

static int write_ndjson(kt_store *s, const kt_export_args *args, char *err,
			size_t errlen)
{
	struct ctx c = { .s = s, .args = args, .dir = args->path, .err = err,
			 .errlen = errlen, .export_n = 1 };
	char path[4096];
	uint64_t rows = 0;
	size_t i;
	int rc;

	err[0] = 0;
	c.part_size = args->part_size ? args->part_size : KT_EXPORT_PART_SIZE;
	if ((unsigned)args->compress > KT_EXPORT_NONE) {
		snprintf(err, errlen, "unknown compression");
		return KT_EINVAL;
	}
	if ((rc = mkdir_p(args->path))) {
		snprintf(err, errlen, "cannot create %s: %s", args->path, strerror(errno));
		return rc;
	}
	if ((rc = read_manifest(&c)))
		goto out;
	if (c.manifest && !args->since_last) {
		snprintf(err, errlen, "%s holds an export already: add to it with --since-last, or export to a new folder",
			 args->path);
		rc = KT_EEXIST;
		goto out;
	}
	if (c.manifest) {
		/* the part size of the folder's first export, so its files
		 * stay alike */
		c.part_size = (uint64_t)cJSON_GetObjectItemCaseSensitive(
			c.manifest, "part_size")->valuedouble;
	} else {
		/* a folder of the old layout (run=<id> directories, no
		 * manifest) would mix two layouts */
		snprintf(path, sizeof(path), "%s/events", args->path);
		if (old_layout(path)) {
			snprintf(err, errlen, "%s has tables but no _manifest.json (an export of an older ktraj?): export to a new folder",
				 args->path);
			rc = KT_EEXIST;
			goto out;
		}
	}
	if ((rc = remove_stale(&c)))
		goto out;
	if (!(c.by_run = cJSON_CreateObject())) {
		rc = KT_ENOMEM;
		goto out;
	}
	if (args->run) {
		rc = export_run(&c, args->run);
	} else {
		rc = kt_run_foreach(s, collect, &c);
		if (!rc)
			rc = c.rc;
		if (rc) {
			snprintf(err, errlen, "listing runs: %s", kt_strerror(rc));
			goto out;
		}
		for (i = 0; i < c.n && !rc; i++)
			rc = export_run(&c, c.ids[i]);
	}
	if (!rc)
		rc = close_all(&c);
	if (!rc)
		rc = publish(&c);
	if (!rc && args->run && c.manifest) {
		/* one run added to a folder of every run: keep the others'
		 * marks */
		const cJSON *old = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(c.manifest, "watermark"), "by_run");
		const cJSON *x;

		cJSON_ArrayForEach(x, old)
			if (!cJSON_GetObjectItemCaseSensitive(c.by_run, x->string)) {
				cJSON_AddNumberToObject(c.by_run, x->string, x->valuedouble);
				c.runs++;
				c.events_total += (uint64_t)x->valuedouble;
			}
	}
	for (i = 0; i < T_N; i++)
		rows += c.rows[i];
	if (args->rows)
		*args->rows = rows;
	/* nothing written: no entry (an empty one per nightly run would
	 * grow the manifest), and the watermark stands as it is */
	if (!rc && rows)
		rc = write_manifest(&c);
out:
	if (rc && !err[0])
		snprintf(err, errlen, "%s", kt_strerror(rc));
	kt_strmap_free(&c.parts, free_partition); /* unlinks unfinished parts */
	if (rc && rc != KT_EEXIST && c.export_n && c.by_run)
		remove_stale(&c); /* the parts of this failed export: in no
				     manifest, they would be read twice */
	kt_strmap_free(&c.mark, NULL);
	for (i = 0; i < c.nfiles; i++)
		free(c.files[i].path);
	free(c.files);
	free(c.ids);
	cJSON_Delete(c.by_run);
	cJSON_Delete(c.manifest);
	return rc;
}

const kt_exporter kt_exporter_ndjson = { "ndjson", KT_EXPORT_DIR | KT_EXPORT_ALL,
					 write_ndjson };
