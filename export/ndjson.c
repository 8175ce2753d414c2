/*
 * ndjson.c - the store as zstd-compressed NDJSON tables, partitioned
 * by run in the Hive layout that DuckDB, Spark and Polars read directly:
 *
 *   DIR/runs/run=<id>/part-0.ndjson.zst
 *   DIR/events/run=<id>/part-0.ndjson.zst
 *   DIR/bench/run=<id>/part-0.ndjson.zst
 *   DIR/questions/run=<id>/part-0.ndjson.zst
 *
 * The run id lives in the directory name only (the partition column), so a
 * reader never sees two `run` columns.  Columns are documented in README.md
 * ("Exporting tables"); every row of a table has every column (null when the
 * event has no such field) so schema inference is stable across files.
 * Written with libarchive's raw format and zstd filter.
 *
 * With redaction, every string of a run's name, meta and event payloads
 * goes through the same redactor (one per run) as `--format jsonl
 * --redact`; the tables are built from the redacted payload.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <archive.h>
#include <archive_entry.h>
#include <cjson/cJSON.h>

#include "../analyze/analyze.h"
#include "export.h"
#include "../import/import.h"

enum { T_RUNS, T_EVENTS, T_BENCH, T_QUESTIONS, T_N };
static const char *const table_name[T_N] = { "runs", "events", "bench", "questions" };

struct tables {
	kt_redactor *red; /* NULL: no redaction */
	char *buf[T_N];
	size_t len[T_N];
	FILE *f[T_N];
	int err;
	const char *format; /* the run's importer: task prompts (questions) */
	int acted;          /* the agent has spoken (task prompts come before) */
};

/* Whether human message payload p asks a question (kt_an_human_question). */
static int human_question(const struct tables *t, const cJSON *p)
{
	const char *text = cJSON_GetStringValue(cJSON_GetObjectItem(p, "text"));

	return text && kt_an_human_question(t->format, !t->acted, 0, text,
					    strlen(text));
}

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

/* Write one row; the object is consumed. */
static void row(struct tables *t, int table, cJSON *o)
{
	char *s = o ? cJSON_PrintUnformatted(o) : NULL;

	if (!s) {
		t->err = KT_ENOMEM;
	} else {
		fputs(s, t->f[table]);
		fputc('\n', t->f[table]);
	}
	free(s);
	cJSON_Delete(o);
}

static void copy_field(cJSON *dst, const cJSON *p, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(p, key);

	cJSON_AddItemToObject(dst, key, v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
}


static int each_event(const kt_event *ev, void *arg)
{
	static const char *const ev_cols[] = {
		"role", "human", "text", "tool", "call_id", "ok", "path",
		"exit_code", "correct", "time_ms", "speedup", "step", "verdict",
	};
	static const char *const bench_cols[] = {
		"workload", "scenario", "time_ms", "min_ms", "max_ms", "n",
		"ref_time_ms", "speedup", "correct", "tflops", "gbps",
		"source_hash", "status",
	};
	struct tables *t = arg;
	cJSON *p = cJSON_ParseWithLength(ev->payload, ev->payload_len), *o;
	char *pj = NULL;
	size_t i;

	if (!p) {
		t->err = KT_ECORRUPT;
		return 1;
	}
	if (t->red) {
		int rc = kt_redact_json(t->red, p);

		if (rc || !(pj = cJSON_PrintUnformatted(p))) {
			t->err = rc ? rc : KT_ENOMEM;
			cJSON_Delete(p);
			return 1;
		}
	}
	o = cJSON_CreateObject();
	kt_export_event_head(o, ev);
	for (i = 0; i < sizeof(ev_cols) / sizeof(ev_cols[0]); i++)
		copy_field(o, p, ev_cols[i]);
	cJSON_AddStringToObject(o, "payload", pj ? pj : ev->payload);
	free(pj);
	row(t, T_EVENTS, o);

	if (ev->kind == KT_KIND_MESSAGE &&
	    !cJSON_IsTrue(cJSON_GetObjectItem(p, "human")) &&
	    cJSON_IsString(cJSON_GetObjectItem(p, "role")) &&
	    !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(p, "role")),
		    "assistant"))
		t->acted = 1;
	if (ev->kind == KT_KIND_BENCH) {
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "seq", (double)ev->seq);
		kt_export_add_ns(o, "ts", ev->ts_ns);
		for (i = 0; i < sizeof(bench_cols) / sizeof(bench_cols[0]); i++)
			copy_field(o, p, bench_cols[i]);
		row(t, T_BENCH, o);
	}
	/* the definition of a question every analyzer uses (kt_an_human_question) */
	if (ev->kind == KT_KIND_QUESTION ||
	    (ev->kind == KT_KIND_MESSAGE &&
	     cJSON_IsTrue(cJSON_GetObjectItem(p, "human")) &&
	     human_question(t, p))) {
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "seq", (double)ev->seq);
		kt_export_add_ns(o, "ts", ev->ts_ns);
		copy_field(o, p, "text");
		if (ev->kind == KT_KIND_QUESTION) {
			copy_field(o, p, "origin");
			copy_field(o, p, "layer");
		} else {
			cJSON_AddStringToObject(o, "origin", "human");
			cJSON_AddNullToObject(o, "layer");
		}
		row(t, T_QUESTIONS, o);
	}
	cJSON_Delete(p);
	return t->err ? 1 : 0;
}

static int write_zst(const char *path, const char *data, size_t len)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	int rc = KT_EIO;

	if (!a || !e) {
		rc = KT_ENOMEM;
		goto out;
	}
	if (archive_write_add_filter_zstd(a) != ARCHIVE_OK ||
	    archive_write_set_format_raw(a) != ARCHIVE_OK ||
	    archive_write_open_filename(a, path) != ARCHIVE_OK)
		goto out;
	archive_entry_set_pathname(e, "part-0.ndjson");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_size(e, (la_int64_t)len);
	if (archive_write_header(a, e) != ARCHIVE_OK)
		goto out;
	if (len && archive_write_data(a, data, len) != (la_ssize_t)len)
		goto out;
	if (archive_write_close(a) != ARCHIVE_OK)
		goto out;
	rc = 0;
out:
	archive_entry_free(e);
	if (a)
		archive_write_free(a);
	return rc;
}

struct ctx {
	kt_store *s;
	const char *dir;
	int redact, hidden;
	char *err;
	size_t errlen;
	int rc;
	/* run ids are collected first: kt_event_foreach must not run inside
	 * kt_run_foreach's callback on the same handle */
	char (*ids)[KT_RUN_ID_HEX + 1];
	size_t n, cap;
};

static int collect(const kt_run_info *ri, void *arg)
{
	struct ctx *c = arg;
	int h;

	if (!c->hidden && (h = kt_run_hidden(c->s, ri->id)) != 0) {
		c->rc = h < 0 ? h : 0;
		return h < 0;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		void *p = realloc(c->ids, cap * sizeof(*c->ids));

		if (!p) {
			c->rc = KT_ENOMEM;
			return 1;
		}
		c->ids = p;
		c->cap = cap;
	}
	memcpy(c->ids[c->n++], ri->id, KT_RUN_ID_HEX + 1);
	return 0;
}

static int export_run(struct ctx *c, const char *id)
{
	struct tables t = { 0 };
	kt_run_info ri;
	cJSON *o, *meta;
	char path[4096], hex[KT_HASH_HEX + 1];
	int rc, i;

	for (i = 0; i < T_N; i++) {
		t.f[i] = open_memstream(&t.buf[i], &t.len[i]);
		if (!t.f[i]) {
			rc = KT_ENOMEM;
			goto out;
		}
	}
	rc = kt_run_get(c->s, id, &ri);
	if (rc)
		goto out;
	t.format = ri.format;
	if (c->redact && !(t.red = kt_redactor_new())) {
		rc = KT_ENOMEM;
		goto out;
	}
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", ri.name ? ri.name : "");
	cJSON_AddStringToObject(o, "format", ri.format ? ri.format : "");
	cJSON_AddNumberToObject(o, "events", (double)ri.n_events);
	kt_export_add_ns(o, "created", ri.created_ns);
	kt_hex(ri.head, KT_HASH_LEN, hex);
	cJSON_AddStringToObject(o, "head", hex);
	meta = ri.meta_json ? cJSON_Parse(ri.meta_json) : NULL;
	cJSON_AddItemToObject(o, "meta", meta ? meta : cJSON_CreateObject());
	/* the name is often the first prompt; "head" is 64 hex, which the
	 * redactor may take for a secret, so only name and meta */
	if (t.red &&
	    ((rc = kt_redact_json(t.red, cJSON_GetObjectItemCaseSensitive(o, "name"))) ||
	     (rc = kt_redact_json(t.red, cJSON_GetObjectItemCaseSensitive(o, "meta"))))) {
		cJSON_Delete(o);
		goto out;
	}
	row(&t, T_RUNS, o);
	rc = kt_event_foreach(c->s, id, 1, 0, 0, each_event, &t);
	if (!rc && t.err)
		rc = t.err;
	if (rc)
		goto out;
	for (i = 0; i < T_N; i++) {
		if (fflush(t.f[i])) {
			rc = KT_EIO;
			goto out;
		}
		snprintf(path, sizeof(path), "%s/%s/run=%s", c->dir, table_name[i], id);
		if ((rc = mkdir_p(path)))
			goto out;
		snprintf(path, sizeof(path), "%s/%s/run=%s/part-0.ndjson.zst",
			 c->dir, table_name[i], id);
		if ((rc = write_zst(path, t.buf[i], t.len[i])))
			goto out;
	}
out:
	if (rc)
		snprintf(c->err, c->errlen, "run %s: %s", id, kt_strerror(rc));
	for (i = 0; i < T_N; i++) {
		if (t.f[i])
			fclose(t.f[i]);
		free(t.buf[i]);
	}
	kt_redactor_free(t.red);
	return rc;
}

static int write_ndjson(kt_store *s, const kt_export_args *args, char *err,
			size_t errlen)
{
	const char *run = args->run, *dir = args->path;
	struct ctx c = { .s = s, .dir = dir, .redact = args->redact,
			 .hidden = args->hidden, .err = err, .errlen = errlen };
	size_t i;
	int rc;

	if ((rc = mkdir_p(dir))) {
		snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
		return rc;
	}
	if (run) {
		rc = export_run(&c, run);
		goto out;
	}
	rc = kt_run_foreach(s, collect, &c);
	if (!rc)
		rc = c.rc;
	if (rc) {
		snprintf(err, errlen, "listing runs: %s", kt_strerror(rc));
		goto out;
	}
	for (i = 0; i < c.n && !rc; i++)
		rc = export_run(&c, c.ids[i]);
out:
	free(c.ids);
	return rc;
}

const kt_exporter kt_exporter_ndjson = { "ndjson", KT_EXPORT_DIR | KT_EXPORT_ALL,
					 write_ndjson };
