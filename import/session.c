/*
 * session.c - the import session: what importers call while they read a
 * source (import.h "what importers call"): problems and notes, runs begun
 * and continued, events emitted with their sequence numbers and
 * provenance, blobs, progress.  A re-import re-emits a run's events; the
 * session appends only those past what the store holds, and checks that
 * the source continues the stored run (import/README.md "Re-importing a
 * grown source").  Every store call is made here or in driver.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imp_int.h"
#include "../store/spill.h"

char *kt_imp_strdup(const char *s)
{
	return kt_xstrdup(s ? s : "");
}

/* ---- warnings -------------------------------------------------------------- */

/* What a warning of an importer ends with to say what of the source it
 * drops ("file:3: invalid UTF-8: line skipped").  Under --strict nothing
 * of the source is kept (what --strict means), so they are left out: a
 * line said to be skipped would read as if the rest had been kept.  That
 * first problem is the one line --strict prints for the source. */
static const char *const drop_words[] = {
	": line skipped", ": file skipped", ": skipped", "; skipped",
	"; event not imported", "; not imported",
};

static void drop_suffix(char *msg)
{
	size_t n = strlen(msg);

	for (size_t i = 0; i < sizeof(drop_words) / sizeof(*drop_words); i++) {
		size_t k = strlen(drop_words[i]);

		if (n > k && !strcmp(msg + n - k, drop_words[i])) {
			msg[n - k] = 0;
			return;
		}
	}
}

/* drop: a problem of the source (kt_imp_warn), which --strict discards */
static void warn_line(kt_imp *imp, const char *where, uint64_t line,
		      int drop, const char *fmt, va_list ap)
{
	char msg[1024], out[1400];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (drop && imp->opts->strict)
		drop_suffix(msg);
	if (line)
		snprintf(out, sizeof(out), "%s:%llu: %s", where,
			 (unsigned long long)line, msg);
	else
		snprintf(out, sizeof(out), "%s: %s", where, msg);
	if (imp->opts->on_warn)
		imp->opts->on_warn(out, imp->opts->arg);
}

void kt_imp_warn_at(kt_imp *imp, const char *where, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	warn_line(imp, where, 0, 0, fmt, ap);
	va_end(ap);
}

void kt_imp_fail(kt_imp *imp, int rc)
{
	if (imp && rc && !imp->fail)
		imp->fail = rc;
}

/* A problem of the source being imported, said at where:line. */
static void warn_problem(kt_imp *imp, const char *where, uint64_t line,
			 const char *fmt, va_list ap)
{
	/* --strict stops at the first problem: what an importer still
	 * finds in the source it goes on reading is not reported */
	if (!(imp->opts->strict && imp->failed))
		warn_line(imp, where, line, 1, fmt, ap);
	imp->problems++;
	if (imp->opts->strict)
		imp->failed = 1;
}

void kt_imp_warn(kt_imp *imp, const kt_file *f, uint64_t line,
		 const char *fmt, ...)
{
	va_list ap;

	if (!f && imp->cur)
		f = &imp->cur->f;
	va_start(ap, fmt);
	warn_problem(imp, f && f->path ? f->path : "?", line, fmt, ap);
	va_end(ap);
}

void kt_imp_warn_path(kt_imp *imp, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	warn_problem(imp, path ? path : "?", 0, fmt, ap);
	va_end(ap);
}

void kt_imp_note(kt_imp *imp, const kt_file *f, const char *fmt, ...)
{
	va_list ap;

	if (!f && imp->cur)
		f = &imp->cur->f;
	va_start(ap, fmt);
	warn_line(imp, f && f->path ? f->path : "?", 0, 0, fmt, ap);
	va_end(ap);
}


/* ---- runs and events ----------------------------------------------------- */

static const char *intern(kt_imp *imp, const char *s)
{
	void **v = kt_strmap_slot(&imp->intern, s ? s : "agent", 1);
	const char *k;

	if (!v)
		return "agent";
	/* the map's copy of the key is the interned string; its place in
	 * names is what a spilled actor is stored as */
	k = kt_strmap_slot_key(&imp->intern, v);
	if (!*v) {
		if (KT_GROW(imp->names, imp->names_cap, imp->nnames + 1))
			return "agent";
		imp->names[imp->nnames++] = k;
		*v = (void *)(uintptr_t)imp->nnames;
	}
	return k;
}

/* the spill key of event seq of the run begun acts_gen-th */
static void act_key(const kt_imp *imp, uint64_t seq, char key[40])
{
	snprintf(key, 40, "%llx:%llx", (unsigned long long)imp->acts_gen,
		 (unsigned long long)seq);
}

const char *kt_imp_actor_of(kt_imp *imp, uint64_t seq)
{
	char key[40];
	unsigned char v[4];
	uint32_t at;
	size_t n;
	int rc;

	if (!seq || !imp->acts_first || seq < imp->acts_first ||
	    seq > imp->acts_last)
		return "agent";
	if (imp->acts_last - seq < imp->acts_cap)
		return imp->acts[seq % imp->acts_cap] ?
		       imp->acts[seq % imp->acts_cap] : "agent";
	if (!imp->acts_spill)
		return "agent";
	act_key(imp, seq, key);
	rc = kt_spill_get(imp->acts_spill, 1, key, v, sizeof(v), &n);
	if (rc == KT_ENOTFOUND)
		return "agent";
	if (rc || n != sizeof(v)) {
		/* the source cannot be imported right: it fails whole */
		if (!imp->err)
			imp->err = rc ? rc : KT_EIO;
		return "agent";
	}
	at = (uint32_t)v[0] << 24 | (uint32_t)v[1] << 16 |
	     (uint32_t)v[2] << 8 | v[3];
	return at < imp->nnames ? imp->names[at] : "agent";
}

/* Double the ring, its events keeping their actors (no temporary file
 * for the ones it drops).  0 or KT_ENOMEM. */
static int acts_double(kt_imp *imp)
{
	size_t nc = imp->acts_cap * 2;
	const char **na = calloc(nc, sizeof(*na));
	uint64_t s;

	if (!na)
		return KT_ENOMEM;
	for (s = imp->acts_first; s && s <= imp->acts_last; s++)
		if (imp->acts_last - s < imp->acts_cap)
			na[s % nc] = imp->acts[s % imp->acts_cap];
	free(imp->acts);
	imp->acts = na;
	imp->acts_cap = nc;
	return 0;
}

/* Note that event seq, the one after the last noted (or the run's
 * first), is by actor (interned).  The actor of the event it pushes out
 * of the ring goes to the spill file unless it is "agent", what a seq
 * not found answers anyway.  0, KT_ENOMEM, or kt_spill_put's error. */
static int act_note(kt_imp *imp, uint64_t seq, const char *actor)
{
	const char *out;
	int rc;

	if (!imp->acts) {
		/* a budget of ids past any real need (KTRAJ_IMPORT_IDS=1T)
		 * asks for no ring that size: 1M events, 8 MiB */
		imp->acts_cap = kt_imp_ids(imp) < (1u << 20) ?
				(size_t)kt_imp_ids(imp) : (1u << 20);
		if (!(imp->acts = calloc(imp->acts_cap, sizeof(*imp->acts))))
			return KT_ENOMEM;
	}
	if (!imp->acts_first)
		imp->acts_first = seq;
	while (seq - imp->acts_first >= imp->acts_cap &&
	       (out = imp->acts[seq % imp->acts_cap]) &&
	       strcmp(out, "agent")) {
		void **v = kt_strmap_slot(&imp->intern, out, 0);
		uint32_t at = v ? (uint32_t)(uintptr_t)*v - 1 : 0;
		unsigned char b[4] = { at >> 24, at >> 16, at >> 8, at };
		char key[40];

		if (!imp->acts_spill && !imp->acts_no_spill &&
		    kt_spill_open(&imp->acts_spill) == KT_EIO)
			imp->acts_no_spill = 1;
		if (!imp->acts_spill) {
			/* no temporary file: the actors stay in memory */
			if ((rc = acts_double(imp)))
				return rc;
			continue;
		}
		if (!v)
			return KT_ENOMEM;
		act_key(imp, seq - imp->acts_cap, key);
		if ((rc = kt_spill_put(imp->acts_spill, 1, key, b, sizeof(b))))
			return rc;
		if (imp->opts->stats)
			imp->opts->stats->actors_spilled++;
		break;
	}
	imp->acts[seq % imp->acts_cap] = actor;
	imp->acts_last = seq;
	if (imp->opts->stats && imp->acts_cap > imp->opts->stats->actor_ring)
		imp->opts->stats->actor_ring = imp->acts_cap;
	return 0;
}

int kt_imp_next_written(const kt_imp *imp)
{
	return imp->in_run && !imp->failed && !imp->frozen && !imp->tail &&
		imp->seq + 1 > imp->stored_n;
}

/* Add r to arr, or count it into the entry of its run; at, when given,
 * maps a run id to its place + 1 (an import of 10,000 runs looked
 * through every report for each: tests/bench/RESULTS.md, p21i3) */
static int rep_add(struct kt_runrep **arr, size_t *n, size_t *cap,
		   kt_strmap *at, const struct kt_runrep *r)
{
	struct kt_runrep *e = NULL;
	void **slot = NULL;
	size_t i;

	if (at) {
		if (!(slot = kt_strmap_slot(at, r->id, 1)))
			return KT_ENOMEM;
		if (*slot)
			e = &(*arr)[(size_t)(uintptr_t)*slot - 1];
	} else {
		for (i = 0; i < *n && !e; i++)
			if (!strcmp((*arr)[i].id, r->id))
				e = &(*arr)[i];
	}
	if (e) {
		e->added += r->added;
		if (r->events > e->events)
			e->events = r->events;
		return 0;
	}
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		struct kt_runrep *na = realloc(*arr, nc * sizeof(*na));

		if (!na)
			return KT_ENOMEM;
		*arr = na;
		*cap = nc;
	}
	(*arr)[*n] = *r;
	(*arr)[*n].name = kt_imp_strdup(r->name ? r->name : "");
	(*arr)[*n].format = kt_imp_strdup(r->format ? r->format : "");
	(*n)++;
	if (slot)
		*slot = (void *)(uintptr_t)*n;
	return 0;
}

static void reps_free(struct kt_runrep *arr, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(arr[i].name);
		free(arr[i].format);
	}
	free(arr);
}

static void runreps_clear(struct kt_runrep *arr, size_t *n)
{
	for (size_t i = 0; i < *n; i++) {
		free(arr[i].name);
		free(arr[i].format);
	}
	*n = 0;
}

void kt_imp_source_end(kt_imp *imp, int keep)
{
	size_t i;

	if (keep == 2) {
		/* the names move to the batch's list (room made by
		 * kt_imp_batch_reserve); its ids merge when it is reported
		 * (rep_add), in the order the sources came */
		if (imp->npend)
			memcpy(imp->batch.pend + imp->batch.npend, imp->pend,
			       imp->npend * sizeof(*imp->pend));
		imp->batch.npend += imp->npend;
		imp->npend = 0;
		return;
	}
	for (i = 0; keep && i < imp->npend; i++)
		rep_add(&imp->reps, &imp->nreps, &imp->reps_cap, &imp->rep_at,
			&imp->pend[i]);
	runreps_clear(imp->pend, &imp->npend);
}

int kt_imp_batch_reserve(kt_imp *imp)
{
	if (KT_GROW(imp->batch.pend, imp->batch.pend_cap,
		    imp->batch.npend + imp->npend) ||
	    KT_GROW(imp->batch.files, imp->batch.files_cap,
		    imp->batch.nfiles + 1))
		return KT_ENOMEM;
	return 0;
}

void kt_imp_batch_done(kt_imp *imp, int keep)
{
	for (size_t i = 0; keep && i < imp->batch.npend; i++)
		rep_add(&imp->reps, &imp->nreps, &imp->reps_cap, &imp->rep_at,
			&imp->batch.pend[i]);
	runreps_clear(imp->batch.pend, &imp->batch.npend);
	imp->batch.nfiles = 0;
	imp->batch.bytes = 0;
}

void kt_imp_check_reemit(kt_imp *imp)
{
	if (imp->in_run && !imp->opts->redact)
		imp->check_reemit = 1;
}

void kt_imp_check_reemit_all(kt_imp *imp)
{
	if (imp->in_run && !imp->opts->redact)
		imp->check_reemit = 2;
}

int kt_imp_reemit_pause(kt_imp *imp, uint64_t first, uint64_t last)
{
	if (!imp->check_reemit || imp->last_line < 0 ||
	    (uint64_t)imp->last_line < first || (uint64_t)imp->last_line > last)
		return 0;
	imp->reemit_paused = imp->check_reemit;
	imp->check_reemit = 0;
	return 1;
}

void kt_imp_reemit_resume(kt_imp *imp)
{
	if (imp->reemit_paused && imp->in_run)
		imp->check_reemit = imp->reemit_paused;
	imp->reemit_paused = 0;
}

/* The end of a run checked with kt_imp_check_reemit: say what changed. */
static void reemit_report(kt_imp *imp)
{
	if (imp->changed_seq) {
		uint64_t extra = imp->seq > imp->stored_n ?
				 imp->seq - imp->stored_n : 0;

		char more[96] = "";

		if (extra)
			snprintf(more, sizeof(more),
				 "; %llu new event%s of this source not added",
				 (unsigned long long)extra, extra == 1 ? "" : "s");
		/* at the line it came from: where the file was edited */
		kt_imp_warn(imp, imp->changed_file, imp->changed_line,
			    "changed since run %.12s was imported (its step %llu differs): the run keeps the %llu events first imported%s",
			    imp->run_id, (unsigned long long)imp->changed_seq,
			    (unsigned long long)imp->stored_n, more);
	} else if (!imp->frozen && !imp->failed && !imp->tail &&
		   imp->seq < imp->stored_n) {
		kt_imp_warn(imp, NULL, 0,
			    "gives %llu events, but run %.12s holds %llu from an earlier import: the source changed since; the run is kept as it was",
			    (unsigned long long)imp->seq, imp->run_id,
			    (unsigned long long)imp->stored_n);
	}
}

static void bench_key_free(void *v)
{
	cJSON_Delete(v);
}

/* The metric and baseline of bench payload b as one map key, in buf. */
static const char *metric_key(const cJSON *b, char *buf, size_t cap)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(b, "metric");
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(b, "baseline");

	if (!cJSON_IsString(m))
		return NULL;
	snprintf(buf, cap, "%s\x1f%s", m->valuestring,
		 cJSON_IsString(l) ? l->valuestring : "");
	return buf;
}

static const char *const series_fields[] = { "workload", "scenario" };

int kt_imp_bench_key_note(kt_imp *imp, const cJSON *b)
{
	char buf[512];
	const char *k = metric_key(b, buf, sizeof(buf));
	cJSON *o, **slot;
	size_t i;

	if (!k)
		return 0;
	if (!(o = cJSON_CreateObject()))
		return KT_ENOMEM;
	for (i = 0; i < 2; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(
			b, series_fields[i]);

		if (cJSON_IsString(v) &&
		    !cJSON_AddStringToObject(o, series_fields[i], v->valuestring)) {
			cJSON_Delete(o);
			return KT_ENOMEM;
		}
	}
	if (!(slot = (cJSON **)kt_strmap_slot(&imp->bench_keys, k, 1))) {
		cJSON_Delete(o);
		return KT_ENOMEM;
	}
	cJSON_Delete(*slot);
	*slot = o;
	return 0;
}

int kt_imp_bench_key(kt_imp *imp, cJSON *b)
{
	char buf[512];
	const char *k = metric_key(b, buf, sizeof(buf));
	const cJSON *o = k ? kt_strmap_get(&imp->bench_keys, k) : NULL;
	size_t i;

	if (!o || cJSON_GetObjectItemCaseSensitive(b, "workload") ||
	    cJSON_GetObjectItemCaseSensitive(b, "scenario"))
		return 0;
	for (i = 0; i < 2; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(
			o, series_fields[i]);

		if (v && !cJSON_AddStringToObject(b, series_fields[i],
						  v->valuestring))
			return KT_ENOMEM;
	}
	return 1;
}

int kt_imp_run_end(kt_imp *imp)
{
	struct kt_runrep r;
	int rc;

	if (!imp->in_run)
		return 0;
	if (imp->check_reemit)
		reemit_report(imp);
	/* (a changed source was reported above, and froze the run) */
	if (imp->tail && imp->seq > imp->stored_n && !imp->frozen &&
	    !imp->failed) {
		uint64_t extra = imp->seq - imp->stored_n;

		kt_imp_warn(imp, NULL, 0,
			    "run %s has %llu event%s appended after its import (ktraj append, bench --record or replay): the %llu new event%s of this source %s not added, a run's events are never renumbered",
			    imp->run_id, (unsigned long long)imp->tail,
			    imp->tail == 1 ? "" : "s",
			    (unsigned long long)extra, extra == 1 ? "" : "s",
			    extra == 1 ? "is" : "are");
	}
	imp->check_reemit = 0;
	imp->reemit_paused = 0;
	imp->changed_seq = 0;
	imp->changed_file = NULL;
	imp->changed_line = 0;
	imp->in_run = 0;
	if (imp->new_meta) { /* no event came: the run was never created */
		free(imp->new_meta);
		imp->new_meta = NULL;
		rc = 0;
		goto reset;
	}
	memset(&r, 0, sizeof(r));
	memcpy(r.id, imp->run_id, sizeof(r.id));
	r.name = imp->run_name;
	r.format = imp->run_format;
	/* what the store holds now */
	r.events = imp->stored_n + imp->tail + imp->added;
	r.added = imp->added;
	rc = rep_add(&imp->pend, &imp->npend, &imp->pend_cap, NULL, &r);
reset:
	imp->tail = 0;
	free(imp->run_name);
	free(imp->run_format);
	imp->run_name = imp->run_format = NULL;
	kt_ws_reset(&imp->ws);
	cJSON_Delete(imp->bench_seen);
	imp->bench_seen = NULL;
	kt_strmap_clear(&imp->bench_keys, bench_key_free);
	kt_strmap_clear(&imp->bench_files, NULL);
	imp->bench_hint.metric = imp->bench_hint.baseline = NULL;
	imp->task_read = 0;
	imp->bench_hint.task_metric = imp->bench_hint.task_info = NULL;
	if (imp->red) {
		kt_redactor_free(imp->red);
		imp->red = NULL;
	}
	return rc;
}

int kt_imp_run_finish(kt_imp *imp, int rc)
{
	int r2 = kt_imp_run_end(imp);

	return rc ? rc : r2;
}

/* realpath(v->fspath), malloc'ed or NULL.  A file that walk found under a
 * folder root as a regular file (no link, and walk enters no folder
 * through a link) is its root's real path and rel, known without the
 * getcwd and readlink per path component that realpath costs each file
 * of a large folder. */
static char *source_realpath(const struct kt_root *r,
			     const struct kt_vfile *v)
{
	size_t dl, al;
	char *abs;

	if (!v->walked_plain || r->kind != KT_ROOT_DIR || !r->abs || !r->dir ||
	    !v->rel)
		return realpath(v->fspath, NULL);
	dl = strlen(r->dir);
	/* fspath is dir "/" rel, as walk joined it */
	if (strncmp(v->fspath, r->dir, dl) || v->fspath[dl] != '/' ||
	    strcmp(v->fspath + dl + 1, v->rel))
		return realpath(v->fspath, NULL);
	al = strlen(r->abs);
	if (!(abs = malloc(al + strlen(v->rel) + 2)))
		return NULL;
	/* (the root "/" is the one real path that ends in '/') */
	sprintf(abs, "%s%s%s", r->abs, al && r->abs[al - 1] == '/' ? "" : "/",
		v->rel);
	return abs;
}

static void add_source(cJSON *arr, struct kt_root *r, struct kt_vfile *v)
{
	cJSON *o = cJSON_CreateObject();
	char *abs = NULL;

	if (!o)
		return;
	if (v->fspath)
		abs = source_realpath(r, v);
	if (r->kind == KT_ROOT_STDIN || (r->kind == KT_ROOT_ARCHIVE &&
					 (!strcmp(r->display, "-") ||
					  (r->abs && !strcmp(r->abs, "-")))))
		cJSON_AddStringToObject(o, "path", "-");
	else
		cJSON_AddStringToObject(o, "path", abs ? abs :
					r->kind == KT_ROOT_ARCHIVE && r->abs ?
					r->abs : v->display);
	cJSON_AddStringToObject(o, "file", v->display);
	if (r->in) /* the member of path that holds this archive */
		cJSON_AddStringToObject(o, "in", r->in);
	if (v->member)
		cJSON_AddStringToObject(o, "member", v->member);
	if (v->loaded) {
		kt_in_hash_wait(v);
		cJSON_AddStringToObject(o, "sha", v->f.sha_hex);
	}
	cJSON_AddItemToArray(arr, o);
	free(abs);
}

static long long prov_num(const cJSON *p, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(p, k);

	return cJSON_IsNumber(v) ? (long long)v->valuedouble : -1;
}

/* Whether a stored event was written by an import: every importer but
 * the ktraj one gives its events a provenance with the source's hash, and
 * none writes replay events onto a run it re-emits (ktraj append, bench
 * --record and replay store no provenance; an imported replay bundle
 * result's replay event has one). */
static int by_import(const kt_event *ev, const cJSON *prov)
{
	return ev->kind != KT_KIND_REPLAY &&
	       cJSON_IsString(cJSON_GetObjectItemCaseSensitive(prov, "src"));
}

/* What the last imported event of the run came from (kind, line, offset),
 * and how many events were stored after it (imp->tail; stored_n then
 * counts the imported ones).  A ktraj JSONL source carries its events'
 * provenance itself, appended events included: all its events count.
 * 0, or KT_ENOMEM: a provenance whose parse ran out of memory would
 * read as no provenance, and the imported events after it be counted as
 * appended ones, so the run would be continued at the wrong event. */
static int remember_last(kt_imp *imp)
{
	kt_event ev;
	cJSON *p = NULL;
	int scan = imp->im && strcmp(imp->im->name, "ktraj") != 0;

	imp->last_kind = 0;
	imp->last_line = imp->last_off = -1;
	imp->tail = 0;
	while (imp->stored_n) {
		uint64_t t0 = st_start(imp);
		int rc = kt_event_get(imp->s, imp->run_id, imp->stored_n, &ev);

		st_stop(imp, t0);
		if (rc)
			return 0;
		p = NULL;
		if (ev.prov_json &&
		    !(p = kt_cjson_parse(ev.prov_json, strlen(ev.prov_json),
					 NULL, &rc)) && rc == KT_ENOMEM)
			return rc;
		if (!scan || by_import(&ev, p))
			break;
		cJSON_Delete(p);
		p = NULL;
		imp->tail++;
		imp->stored_n--;
	}
	if (!imp->stored_n)
		return 0;
	imp->last_kind = ev.kind;
	imp->last_line = prov_num(p, "line");
	imp->last_off = prov_num(p, "off");
	cJSON_Delete(p);
	return 0;
}

/* The current run is imp->run_id, of which the store holds `stored`
 * events; the next one emitted gets seq stored + 1. */
static void run_start(kt_imp *imp, uint64_t stored)
{
	imp->in_run = 1;
	imp->seq = stored;
	/* the actors noted are this run's: an earlier run's would answer
	 * for seqs this run has not emitted */
	imp->acts_first = 0;
	imp->acts_last = 0;
	imp->acts_gen++;
	imp->stored_n = stored;
	imp->added = 0;
	imp->tail = 0;
	imp->last_ts = KT_TS_UNKNOWN;
}

/* id NULL: the id of identity; else the run id itself (identity NULL). */
static int by_idx(const void *a, const void *b)
{
	size_t x = (*(struct kt_vfile *const *)a)->idx;
	size_t y = (*(struct kt_vfile *const *)b)->idx;

	return x < y ? -1 : x > y;
}

static int run_begin(kt_imp *imp, const char *id, const char *identity,
		     const char *name, const char *format, cJSON *meta)
{
	kt_run_info info;
	int rc;
	char *mj = NULL;
	cJSON *srcs;
	size_t i;
	uint64_t t0;

	if (imp->in_run)
		kt_imp_run_end(imp);
	if (id ? strlen(id) != KT_RUN_ID_HEX ||
		 strspn(id, "0123456789abcdef") != KT_RUN_ID_HEX :
		 !identity || !*identity) {
		cJSON_Delete(meta);
		return KT_EINVAL;
	}
	if (id)
		memcpy(imp->run_id, id, KT_RUN_ID_HEX + 1);
	else
		kt_run_id_from_identity(identity, imp->run_id);
	run_start(imp, 0);
	/* one line of valid UTF-8: ls --json, tables and reports print it */
	name = name ? name : id ? id : identity;
	imp->run_name = kt_utf8_fix(name, strlen(name), KT_UTF8_CTRL_SPACE,
				    NULL, NULL);
	imp->run_format = kt_imp_strdup(format ? format : "");
	if (imp->opts->redact && !imp->red) {
		imp->red = kt_redactor_new();
		/* names seen anywhere in the source are replaced from their
		 * first mention on */
		if (imp->red && imp->cur)
			kt_redactor_learn(imp->red,
					  (const char *)imp->cur->f.data,
					  imp->cur->f.len);
	}
	if (imp->red && imp->run_name) {
		/* the name is often the first prompt: it is published too */
		size_t rl;
		char *rn = kt_redact_text(imp->red, imp->run_name,
					  strlen(imp->run_name), &rl);

		if (rn) {
			free(imp->run_name);
			imp->run_name = rn;
		}
	}
	/* a pre-scan (or the redactor) read the file to its end before
	 * the run began: the events are read from the start again */
	if (imp->cur)
		kt_in_drop_all(imp->cur);
	/* cut after redaction: a cut secret would not be recognized */
	if (imp->run_name)
		kt_imp_name_cut(imp->run_name, KT_IMP_NAME_MAX);
	t0 = st_start(imp);
	rc = kt_run_get(imp->s, imp->run_id, &info);
	st_stop(imp, t0);
	imp->frozen = 0;
	imp->plain_stored = 0;
	if (rc == 0) {
		imp->stored_n = info.n_events;
		if ((rc = remember_last(imp)) != 0) {
			cJSON_Delete(meta);
			if (!imp->err)
				imp->err = rc;
			return rc;
		}
		/* the run stays as first stored: say so when that copy was
		 * not redacted, or it would be published as it is */
		imp->plain_stored = imp->opts->redact &&
		    !(info.meta_json && strstr(info.meta_json,
					       "\"redacted\":true"));
		/* the meta the importer gives first went through the
		 * redactor before the events when the run was stored: so it
		 * does now, for the placeholders' numbers (kt_imp_emit) */
		if (imp->red && !imp->plain_stored && meta)
			kt_redact_json(imp->red, meta);
		if (imp->plain_stored)
			kt_imp_warn(imp, NULL, 0,
				    "run %.12s was imported before without --redact and stays as stored, not redacted (import into a new store for a redacted copy)",
				    imp->run_id);
		if (info.name) {
			free(imp->run_name);
			imp->run_name = kt_imp_strdup(info.name);
		}
		cJSON_Delete(meta);
		return 0;
	}
	if (rc != KT_ENOTFOUND) {
		cJSON_Delete(meta);
		if (!imp->err)
			imp->err = rc;
		return rc;
	}
	if (imp->failed) {
		cJSON_Delete(meta);
		return 0;
	}
	if (!meta || !cJSON_IsObject(meta)) {
		cJSON_Delete(meta);
		meta = cJSON_CreateObject();
	}
	if (!meta)
		return KT_ENOMEM;
	if (identity && !cJSON_GetObjectItemCaseSensitive(meta, "identity"))
		cJSON_AddStringToObject(meta, "identity", identity);
	if (!cJSON_GetObjectItemCaseSensitive(meta, "sources") &&
	    (srcs = cJSON_AddArrayToObject(meta, "sources"))) {
		struct kt_root *r = imp->root;
		struct kt_vfile **with = malloc((r->nloaded + 1) *
						sizeof(*with));
		size_t n = 0;

		if (!with) {
			cJSON_Delete(meta);
			return KT_ENOMEM;
		}
		add_source(srcs, r, imp->cur);
		/* the claimed files loaded with it, in the root's order */
		for (i = 0; i < r->nloaded; i++) {
			struct kt_vfile *v = r->loaded[i];

			if (v != imp->cur && v->claimed && v->loaded)
				with[n++] = v;
		}
		qsort(with, n, sizeof(*with), by_idx);
		for (i = 0; i < n; i++)
			add_source(srcs, r, with[i]);
		free(with);
	}
	if (!cJSON_GetObjectItemCaseSensitive(meta, "source"))
		cJSON_AddStringToObject(meta, "source", imp->cur->display);
	if (imp->red) {
		kt_redact_json(imp->red, meta);
		if (!cJSON_GetObjectItemCaseSensitive(meta, "redacted"))
			cJSON_AddTrueToObject(meta, "redacted");
	}
	mj = cJSON_PrintUnformatted(meta);
	cJSON_Delete(meta);
	if (!mj)
		return KT_ENOMEM;
	/* created by the first event (run_create): the store is append-only,
	 * an empty run could never be removed */
	imp->new_meta = mj;
	return 0;
}

/* Store the run begun by run_begin, if it is not stored yet. */
static int run_create(kt_imp *imp)
{
	uint64_t t0;
	int rc;

	if (!imp->new_meta)
		return 0;
	t0 = st_start(imp);
	rc = kt_run_create(imp->s, imp->run_id, imp->run_name,
			   imp->run_format, imp->new_meta);
	st_stop(imp, t0);
	free(imp->new_meta);
	imp->new_meta = NULL;
	if (rc && !imp->err)
		imp->err = rc;
	return rc;
}

int kt_imp_run_begin(kt_imp *imp, const char *identity, const char *name,
		     const char *format, cJSON *meta)
{
	return run_begin(imp, NULL, identity, name, format, meta);
}

int kt_imp_run_begin_id(kt_imp *imp, const char *id, const char *name,
			const char *format, cJSON *meta)
{
	return run_begin(imp, id, NULL, name, format, meta);
}

int kt_imp_run_continue(kt_imp *imp, const char *id)
{
	kt_run_info info;
	uint64_t t0;
	int rc;

	if (imp->in_run)
		kt_imp_run_end(imp);
	if (!id)
		return KT_EINVAL;
	t0 = st_start(imp);
	rc = kt_run_get(imp->s, id, &info);
	st_stop(imp, t0);
	if (rc)
		return rc;
	memcpy(imp->run_id, info.id, sizeof(imp->run_id));
	free(imp->run_name);
	free(imp->run_format);
	imp->run_name = kt_imp_strdup(info.name);
	imp->run_format = kt_imp_strdup(info.format);
	/* every event emitted from here on is new: no re-emitted prefix to
	 * skip or compare, nothing stored after an import to wait behind */
	run_start(imp, info.n_events);
	imp->last_kind = 0;
	imp->frozen = 0;
	imp->plain_stored = 0;
	imp->check_reemit = 0;
	return 0;
}

int kt_imp_stored_head(kt_imp *imp, uint64_t seq, kt_event *ev)
{
	uint64_t t0;
	int rc;

	if (!imp->in_run)
		return KT_EINVAL;
	t0 = st_start(imp);
	rc = kt_event_head(imp->s, imp->run_id, seq, ev);
	st_stop(imp, t0);
	return rc;
}

int kt_imp_stored_foreach(kt_imp *imp, int kind,
			  int (*fn)(const kt_event *, void *), void *arg)
{
	uint64_t t0;
	int rc;

	if (!imp->in_run)
		return KT_EINVAL;
	t0 = st_start(imp);
	rc = kt_event_foreach(imp->s, imp->run_id, 1, 0, kind, fn, arg);
	st_stop(imp, t0);
	return rc;
}

int kt_imp_blob_stored(kt_imp *imp, const unsigned char hash[KT_HASH_LEN])
{
	uint64_t t0 = st_start(imp);
	int rc = kt_blob_exists(imp->s, hash);

	st_stop(imp, t0);
	return rc;
}

int kt_imp_stored_meta(kt_imp *imp, char **meta)
{
	kt_run_info info;
	int rc;

	*meta = NULL;
	/* a stored run has an event: none stored is a run not yet created */
	if (!imp->in_run || !imp->stored_n)
		return 0;
	if ((rc = kt_run_get(imp->s, imp->run_id, &info)) != 0)
		return rc;
	*meta = kt_imp_strdup(info.meta_json ? info.meta_json : "{}");
	return *meta ? 0 : KT_ENOMEM;
}

const char *kt_imp_run_id(const kt_imp *imp)
{
	return imp->in_run ? imp->run_id : NULL;
}

const struct kt_map *kt_imp_map(const kt_imp *imp)
{
	return imp->opts ? imp->opts->map : NULL;
}

/* JSON string body escaping into buf; returns bytes written (buf is big).
 * cJSON_PrintUnformatted's escapes (cJSON.c print_string_ptr; jsonprint.c),
 * so prov_json is canonical as printed (KT_EV_PROV_CANONICAL). */
static size_t json_esc(char *out, const char *s)
{
	static const char hx[] = "0123456789abcdef";
	static const char short_esc[0x20] = {
		['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r',
		['\t'] = 't',
	};
	size_t n = 0;
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++) {
		if (*p == '"' || *p == '\\') {
			out[n++] = '\\';
			out[n++] = (char)*p;
		} else if (*p < 0x20 && short_esc[*p]) {
			out[n++] = '\\';
			out[n++] = short_esc[*p];
		} else if (*p < 0x20) {
			out[n++] = '\\';
			out[n++] = 'u';
			out[n++] = '0';
			out[n++] = '0';
			out[n++] = hx[*p >> 4];
			out[n++] = hx[*p & 15];
		} else {
			out[n++] = (char)*p;
		}
	}
	out[n] = 0;
	return n;
}

static void provc_free(kt_imp *imp)
{
	free(imp->provc.path);
	free(imp->provc.member);
	free(imp->provc.pre);
	free(imp->provc.suf);
	memset(&imp->provc, 0, sizeof(imp->provc));
}

/* imp->provc for f: what every event of f has before "line" and after
 * "len", escaped.  KT_ENOMEM. */
static int provc_for(kt_imp *imp, const kt_file *f)
{
	size_t lp = strlen(f->path), lm = f->member ? strlen(f->member) : 0;

	if (imp->cur && f == &imp->cur->f) /* KT_IMPF_LATE_SHA */
		kt_in_hash_wait(imp->cur);
	if (imp->provc.pre && !strcmp(imp->provc.sha, f->sha_hex) &&
	    !strcmp(imp->provc.path, f->path) &&
	    (imp->provc.member && f->member ?
	     !strcmp(imp->provc.member, f->member) :
	     imp->provc.member == f->member))
		return 0;
	provc_free(imp);
	snprintf(imp->provc.sha, sizeof(imp->provc.sha), "%s", f->sha_hex);
	imp->provc.path = strdup(f->path);
	imp->provc.member = f->member ? strdup(f->member) : NULL;
	imp->provc.pre = malloc(6 * lp + 96);
	imp->provc.suf = malloc(6 * lm + 16);
	if (!imp->provc.path || (f->member && !imp->provc.member) ||
	    !imp->provc.pre || !imp->provc.suf) {
		provc_free(imp);
		return KT_ENOMEM;
	}
	imp->provc.lpre = (size_t)sprintf(imp->provc.pre,
					  "{\"src\":\"%s\",\"file\":\"",
					  f->sha_hex);
	imp->provc.lpre += json_esc(imp->provc.pre + imp->provc.lpre,
				    f->path);
	imp->provc.pre[imp->provc.lpre++] = '"';
	imp->provc.lsuf = 0;
	if (f->member) {
		imp->provc.lsuf = (size_t)sprintf(imp->provc.suf,
						  ",\"member\":\"");
		imp->provc.lsuf += json_esc(imp->provc.suf + imp->provc.lsuf,
					    f->member);
		imp->provc.suf[imp->provc.lsuf++] = '"';
	}
	imp->provc.suf[imp->provc.lsuf++] = '}';
	imp->provc.suf[imp->provc.lsuf] = 0;
	return 0;
}

/* ",\"KEY\":" and v in decimal at p; the end */
static char *put_num(char *p, const char *key, size_t lk, uint64_t v)
{
	char d[20];
	size_t n = 0;

	memcpy(p, key, lk);
	p += lk;
	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n)
		*p++ = d[--n];
	return p;
}

/* The provenance of ev of f, as cJSON prints it (KT_EV_PROV_CANONICAL):
 * {"src","file","line","off","len"[,"rec"][,"member"]}, malloc'd; NULL for no
 * memory.  "rec" (FORMAT.md §1) is the record's own hash, so `show
 * --source` still finds it in a log that grew since (its "src" then
 * differs).  What is the same for every event of f is printed once per file
 * (provc_for): two sprintf and the path's escape per event were ~1.4 % of
 * a Claude Code import's instructions. */
static char *prov_json(kt_imp *imp, const kt_file *f, const kt_ev *ev)
{
	static const char kl[] = ",\"line\":", ko[] = ",\"off\":",
			  kn[] = ",\"len\":";
	char *buf, *p;

	if (provc_for(imp, f))
		return NULL;
	buf = malloc(imp->provc.lpre + imp->provc.lsuf + 3 * 20 + 32 +
		     2 * KT_REC_HASH_LEN + 12);
	if (!buf)
		return NULL;
	memcpy(buf, imp->provc.pre, imp->provc.lpre);
	p = buf + imp->provc.lpre;
	p = put_num(p, kl, sizeof(kl) - 1, ev->line);
	p = put_num(p, ko, sizeof(ko) - 1, ev->off);
	p = put_num(p, kn, sizeof(kn) - 1, ev->rec_len);
	if (ev->rec_len && ev->off <= f->len && ev->rec_len <= f->len - ev->off) {
		const unsigned char *r = (const unsigned char *)f->data +
					 ev->off;

		if (imp->provc.rec_at != r || imp->provc.rec_len != ev->rec_len) {
			unsigned char h[KT_HASH_LEN];

			kt_sha256(r, (size_t)ev->rec_len, h);
			kt_hex(h, KT_REC_HASH_LEN, imp->provc.rec);
			imp->provc.rec_at = r;
			imp->provc.rec_len = ev->rec_len;
		}
		memcpy(p, ",\"rec\":\"", 8);
		memcpy(p + 8, imp->provc.rec, 2 * KT_REC_HASH_LEN);
		p += 8 + 2 * KT_REC_HASH_LEN;
		*p++ = '"';
	}
	memcpy(p, imp->provc.suf, imp->provc.lsuf + 1);
	return buf;
}

/* Whether ev, re-emitted as event imp->seq, differs from the stored one
 * in kind or payload, and with `all` in parent, ts and actor too: 1 it
 * does, 0 it does not, -1 unknown (the stored event cannot be read, or
 * the payload printed). */
static int reemit_cmp(kt_imp *imp, const kt_ev *ev, int all)
{
	kt_event st;
	uint64_t t0 = st_start(imp);
	int rc = kt_event_read(imp->s, imp->run_id, imp->seq, KT_READ_BODY,
			       &st);

	st_stop(imp, t0);
	if (rc)
		return -1;
	if (st.kind != ev->kind)
		return 1;
	if (all &&
	    (st.parent != ev->parent || st.ts_ns != ev->ts_ns ||
	     strcmp(st.actor ? st.actor : "", ev->actor ? ev->actor : "")))
		return 1;
	if (!ev->payload || kt_imp_json_print(ev->payload, &imp->pbuf))
		return -1;
	return st.payload_len != imp->pbuf.len ||
	       memcmp(st.payload, imp->pbuf.s, imp->pbuf.len) != 0;
}

/* For kt_imp_check_reemit: a payload cJSON cannot print counts as the
 * same. */
static int reemit_differs(kt_imp *imp, const kt_ev *ev)
{
	return reemit_cmp(imp, ev, imp->check_reemit == 2) == 1;
}

/* Whether ev, re-emitted as the last stored event of the run but from
 * another line or offset than that event's provenance, is that event all
 * the same (kind, parent, ts, actor, payload): the source holds the same
 * events, on other lines (a byte-identical line repeated, which the
 * importer skips, or such a line gone).  Then this source continues the
 * run: the stored events keep their provenance (the copy they were
 * imported from), the new ones get theirs in this copy.  Under --redact
 * ev's payload is redacted already, as the stored one was (kt_imp_emit). */
static int moved_same(kt_imp *imp, const kt_ev *ev)
{
	return ev->kind == imp->last_kind && reemit_cmp(imp, ev, 1) == 0;
}

int kt_imp_emit(kt_imp *imp, kt_ev *ev, uint64_t *seq)
{
	kt_event e;
	const kt_file *f;
	const char *pj = NULL;
	char *prov = NULL;
	int rc = 0;
	uint64_t t0;

	if (!imp->in_run) {
		cJSON_Delete(ev->payload);
		ev->payload = NULL;
		return KT_EINVAL;
	}
	/* The task a person set names the baseline to beat ("make it
	 * faster than torch.compile"): when an output prints speedups over
	 * several baselines and no verifier names the graded one, that one
	 * is the result (bp_choose_speedup; FORMAT.md section 14 "Graded
	 * result").  The first human message is the task in every format
	 * whose importer does not say otherwise. */
	if (ev->kind == KT_KIND_MESSAGE && !imp->task_read &&
	    cJSON_IsTrue(cJSON_GetObjectItem(ev->payload, "human"))) {
		const cJSON *t = cJSON_GetObjectItem(ev->payload, "text");

		imp->task_read = 1;
		if (cJSON_IsString(t))
			kt_imp_task(imp, t->valuestring);
	}
	if ((rc = act_note(imp, imp->seq + 1, intern(imp, ev->actor)))) {
		cJSON_Delete(ev->payload);
		ev->payload = NULL;
		return rc;
	}
	imp->seq++;
	if (seq)
		*seq = imp->seq;
	if (ev->ts_ns != KT_TS_UNKNOWN)
		imp->last_ts = ev->ts_ns;
	if (ev->kind != KT_KIND_EDIT) {
		imp->ev_file = ev->file;
		imp->ev_line = ev->line;
		imp->ev_off = ev->off;
		imp->ev_len = ev->rec_len;
	}
	/* --redact: every payload, those of the events stored already too,
	 * goes through the redactor in the source's order before anything
	 * compares it with a stored one.  Placeholders are numbered as they
	 * are met ("<email-1>", ...), so a re-import numbers them as the
	 * import that stored the run did, and an event re-emitted at the
	 * stored end reads as stored (moved_same).  A run stored without
	 * --redact (run_begin warns) is compared as it is. */
	if (imp->red && !imp->plain_stored && ev->payload &&
	    cJSON_IsObject(ev->payload))
		kt_redact_json(imp->red, ev->payload);
	/* A source that re-emits a run must re-emit its stored events in
	 * the same order (a grown log does); when the event at the stored
	 * end does not match, this is another source with the same
	 * identity, and appending would splice two histories. */
	if (imp->seq == imp->stored_n && imp->last_kind &&
	    (ev->kind != imp->last_kind ||
	     (imp->last_line >= 0 && (long long)ev->line != imp->last_line) ||
	     (imp->last_off >= 0 && (long long)ev->off != imp->last_off)) &&
	    !moved_same(imp, ev)) {
		imp->frozen = 1;
		kt_imp_warn(imp, ev->file, ev->line,
			    "run %s already holds %llu events that this source does not continue (same identity, other content): nothing appended",
			    imp->run_id, (unsigned long long)imp->stored_n);
	}
	if (imp->check_reemit && imp->seq <= imp->stored_n && !imp->frozen &&
	    !imp->failed && !imp->err && reemit_differs(imp, ev)) {
		imp->frozen = 1;
		imp->changed_seq = imp->seq;
		imp->changed_file = ev->file ? ev->file : &imp->cur->f;
		/* (a ktraj export's events keep the lines of the source
		 * they were first imported from, not of this file) */
		imp->changed_line = imp->check_reemit == 2 ? 0 : ev->line;
	}
	if (imp->seq <= imp->stored_n || imp->failed || imp->err ||
	    imp->frozen || imp->tail)
		goto out;
	if (!ev->payload || !cJSON_IsObject(ev->payload)) {
		rc = KT_EINVAL;
		goto out;
	}
	if (imp->red && imp->plain_stored)
		kt_redact_json(imp->red, ev->payload);
	/* cJSON_PrintUnformatted's bytes, in a buffer reused for every event */
	if (kt_imp_json_print(ev->payload, &imp->pbuf) == 0)
		pj = imp->pbuf.s;
	f = ev->file ? ev->file : &imp->cur->f;
	if (ev->prov_json) /* "" = none */
		prov = *ev->prov_json ? kt_imp_strdup(ev->prov_json) : NULL;
	else
		prov = prov_json(imp, f, ev);
	if (!pj || (!prov && !(ev->prov_json && !*ev->prov_json))) {
		rc = KT_ENOMEM;
		goto out;
	}
	memset(&e, 0, sizeof(e));
	e.seq = imp->seq;
	e.parent = ev->parent;
	e.ts_ns = ev->ts_ns;
	e.kind = ev->kind;
	e.actor = ev->actor ? ev->actor : "agent";
	e.prov_json = prov;
	e.payload = pj;
	e.payload_len = imp->pbuf.len;
	e.flags = KT_EV_CANONICAL; /* pj is cJSON's print: skip a reparse */
	if (!ev->prov_json) /* printed by prov_json(), cJSON's way too */
		e.flags |= KT_EV_PROV_CANONICAL;
	if ((rc = run_create(imp)))
		goto out;
	t0 = st_start(imp);
	rc = kt_event_append(imp->s, imp->run_id, &e);
	/* a big source is committed in batches, its runs invisible until
	 * the last (FORMAT.md §6.11): memory holds a batch, not the file */
	if (rc == 0)
		rc = kt_store_checkpoint(imp->s, imp->opts->batch ?
					 (size_t)imp->opts->batch :
					 KT_IMP_BATCH);
	st_stop(imp, t0);
	if (rc == 0) {
		imp->added++;
		if (imp->opts->stats)
			imp->opts->stats->events++;
	} else if (!imp->err)
		imp->err = rc;
out:
	cJSON_Delete(ev->payload);
	ev->payload = NULL;
	free(prov);
	return rc;
}

/* known: the SHA-256 of data when the importer has it, else NULL */
static int imp_blob(kt_imp *imp, const void *data, size_t len,
		    const char *path_hint, const unsigned char *known,
		    char hex[KT_HASH_HEX + 1])
{
	unsigned char h[KT_HASH_LEN];
	char *rd = NULL, *rp = NULL;
	uint64_t t0;
	int rc;

	/* --redact: text blobs are stored redacted, so the hash returned
	 * (and every reference to it) names the redacted content */
	if (imp->opts->redact && kt_is_text(data, len)) {
		size_t rl;

		if (!imp->red && (imp->red = kt_redactor_new()) && imp->cur)
			kt_redactor_learn(imp->red,
					  (const char *)imp->cur->f.data,
					  imp->cur->f.len);
		if (!imp->red || !(rd = kt_redact_text(imp->red, data, len, &rl)) ||
		    (path_hint && !(rp = kt_redact_text(imp->red, path_hint,
							strlen(path_hint), NULL)))) {
			free(rd);
			kt_sha256(data, len, h);
			kt_hex(h, KT_HASH_LEN, hex);
			if (!imp->err)
				imp->err = KT_ENOMEM;
			return KT_ENOMEM;
		}
		data = rd;
		len = rl;
		if (rp)
			path_hint = rp;
		known = NULL;
	}
	if (imp->failed || imp->err) {
		if (known)
			memcpy(h, known, KT_HASH_LEN);
		else
			kt_sha256(data, len, h);
		kt_hex(h, KT_HASH_LEN, hex);
		free(rd);
		free(rp);
		return 0;
	}
	t0 = st_start(imp);
	if (known) {
		memcpy(h, known, KT_HASH_LEN);
		rc = kt_blob_put_hashed(imp->s, data, len, path_hint, h);
	} else {
		rc = kt_blob_put(imp->s, data, len, path_hint, h);
	}
	st_stop(imp, t0);
	if (imp->opts->stats)
		imp->opts->stats->blobs++;
	if (rc) {
		if (!imp->err)
			imp->err = rc;
		if (!known)
			kt_sha256(data, len, h);
	}
	kt_hex(h, KT_HASH_LEN, hex);
	free(rd);
	free(rp);
	return rc;
}

int kt_imp_blob(kt_imp *imp, const void *data, size_t len,
		const char *path_hint, char hex[KT_HASH_HEX + 1])
{
	return imp_blob(imp, data, len, path_hint, NULL, hex);
}

int kt_imp_blob_hashed(kt_imp *imp, const void *data, size_t len,
		       const char *path_hint,
		       const unsigned char sha[KT_HASH_LEN],
		       char hex[KT_HASH_HEX + 1])
{
	return imp_blob(imp, data, len, path_hint, sha, hex);
}


void kt_imp_read_to(kt_imp *imp, const kt_file *f, uint64_t off)
{
	size_t i;

	if (!imp || !imp->root)
		return;
	if (imp->cur && &imp->cur->f == f) { /* the usual case: one step */
		kt_in_drop(imp->cur, off);
		return;
	}
	for (i = 0; i < imp->root->n; i++)
		if (&imp->root->v[i]->f == f) {
			kt_in_drop(imp->root->v[i], off);
			return;
		}
}

int64_t kt_imp_find(kt_imp *imp, const kt_file *f, uint64_t from,
		    const void *needle, size_t nl)
{
	const unsigned char *q;
	size_t i;

	if (imp && imp->root && imp->cur && &imp->cur->f == f)
		return kt_in_find(imp->cur, from, needle, nl);
	for (i = 0; imp && imp->root && i < imp->root->n; i++)
		if (&imp->root->v[i]->f == f)
			return kt_in_find(imp->root->v[i], from, needle, nl);
	if (!nl || from >= f->len)
		return -1;
	q = kt_memmem(f->data + from, f->len - from, needle, nl);
	return q ? (int64_t)(q - f->data) : -1;
}

void kt_imp_progress(kt_imp *imp, uint64_t done)
{
	/* the position is where the importer reads: memory keeps a window */
	if (imp->cur && done)
		kt_in_drop(imp->cur, done);
	if (imp->opts->progress && imp->opts->on_progress)
		imp->opts->on_progress(imp->bytes_done + done, imp->bytes_total,
				       imp->opts->arg);
}

uint64_t kt_imp_ids(const kt_imp *imp)
{
	return imp->opts->ids ? imp->opts->ids : KT_IMPORT_IDS;
}

uint64_t kt_imp_ws_bytes(const kt_imp *imp)
{
	return imp->opts->ws_bytes ? imp->opts->ws_bytes : KT_IMPORT_WS;
}


void kt_imp_session_free(kt_imp *imp)
{
	reps_free(imp->reps, imp->nreps);
	kt_strmap_free(&imp->rep_at, NULL);
	free(imp->pend);
	reps_free(imp->batch.pend, imp->batch.npend);
	free(imp->batch.files);
	free(imp->acts);
	free(imp->names);
	kt_spill_close(imp->acts_spill);
	kt_strmap_free(&imp->intern, NULL);
	kt_ws_free(&imp->ws);
	cJSON_Delete(imp->bench_seen);
	kt_strmap_free(&imp->bench_keys, bench_key_free);
	kt_strmap_free(&imp->bench_files, NULL);
	if (imp->red)
		kt_redactor_free(imp->red);
	free(imp->run_name);
	free(imp->run_format);
	free(imp->new_meta);
	kt_buf_free(&imp->pbuf);
	provc_free(imp);
}
