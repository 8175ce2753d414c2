/*
 * t_import_archives.c - the import driver on what lies beside a source and
 * on archives inside archives (import/driver.c):
 *  - a KernelBench results file finds its baseline_time*.json beside it in
 *    a tar.gz or zip as in its folder or by its own path: same run id and
 *    the same events (speedups included);
 *  - an Inspect .eval (a zip) inside a .tar.gz or .zip imports as the
 *    .eval itself does; a nested archive expands within what is left of
 *    its enclosing archive's bound (a nested bomb stops with KT_ELIMIT);
 *    an archive two levels down is skipped and reported;
 *  - re-importing a grown source (a Claude Code log, a KernelAgent trace
 *    folder) into a run that got events after its import (ktraj append,
 *    bench --record, replay) writes nothing and says so once; an unchanged
 *    source stays silent.
 * Fixtures: tests/data/import/{kernelbench,inspect,claude,kernelagent}
 * (ours); the
 * archives are written here with libarchive.
 */
#include "testutil.h"
/* the shared helpers this file has no use for are not errors */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "imp_testlib.h"

#include <archive.h>
#include <archive_entry.h>

/* ---- writing archives -------------------------------------------------------- */

struct mem {
	const char *name;
	const void *data;
	size_t len;
	size_t zeros;   /* or this many zero bytes (data NULL) */
};

/* Write members to path as "tgz" or "zip"; 0 or -1. */
static int write_archive(const char *path, const char *kind,
			 const struct mem *m, int n)
{
	struct archive *a = archive_write_new();
	static char zero[65536];
	int i, rc = -1;

	if (!strcmp(kind, "zip")) {
		archive_write_set_format_zip(a);
	} else {
		archive_write_set_format_pax_restricted(a);
		archive_write_add_filter_gzip(a);
	}
	if (archive_write_open_filename(a, path) != ARCHIVE_OK)
		goto out;
	for (i = 0; i < n; i++) {
		struct archive_entry *e = archive_entry_new();
		size_t len = m[i].data ? m[i].len : m[i].zeros;

		archive_entry_set_pathname(e, m[i].name);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_size(e, (la_int64_t)len);
		if (archive_write_header(a, e) != ARCHIVE_OK) {
			archive_entry_free(e);
			goto out;
		}
		if (m[i].data) {
			if (archive_write_data(a, m[i].data, len) != (la_ssize_t)len) {
				archive_entry_free(e);
				goto out;
			}
		} else {
			for (size_t k = 0; k < len; k += sizeof(zero)) {
				size_t c = len - k < sizeof(zero) ?
					   len - k : sizeof(zero);

				if (archive_write_data(a, zero, c) != (la_ssize_t)c) {
					archive_entry_free(e);
					goto out;
				}
			}
		}
		archive_entry_free(e);
	}
	rc = archive_write_close(a) == ARCHIVE_OK ? 0 : -1;
out:
	archive_write_free(a);
	return rc;
}

static char *slurp_fix(const char *rel, size_t *len)
{
	char p[4200];
	char *d = tu_slurp(it_fixture(p, sizeof(p), rel), len);

	assert_non_null(d);
	return d;
}

static void write_file(const char *path, const void *d, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(d, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* ---- comparing runs ------------------------------------------------------------ */

struct evlist {
	char **row;     /* "kind parent actor payload" per event */
	size_t n;
};

static int ev_row(const kt_event *ev, void *arg)
{
	struct evlist *l = arg;
	char *r;

	if (asprintf(&r, "%d %llu %s %.*s", ev->kind,
		     (unsigned long long)ev->parent, ev->actor ? ev->actor : "",
		     (int)ev->payload_len, ev->payload) < 0)
		return -1;
	l->row = realloc(l->row, (l->n + 1) * sizeof(*l->row));
	l->row[l->n++] = r;
	return 0;
}

static struct evlist events_of(kt_store *s, const char *run)
{
	struct evlist l = { NULL, 0 };

	assert_int_equal(kt_event_foreach(s, run, 1, 0, 0, ev_row, &l), 0);
	return l;
}

static void evlist_free(struct evlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->row[i]);
	free(l->row);
}

/* The runs of two imports have the same ids and the same events. */
static void same_runs(it_ctx *a, it_ctx *b)
{
	assert_true(a->nruns > 0);
	assert_int_equal(a->nruns, b->nruns);
	for (int i = 0; i < a->nruns; i++) {
		const it_run *x = &a->runs[i], *y = NULL;
		struct evlist ea, eb;

		for (int j = 0; j < b->nruns; j++)
			if (!strcmp(b->runs[j].id, x->id))
				y = &b->runs[j];
		assert_non_null(y);
		assert_int_equal(x->events, y->events);
		ea = events_of(a->s, x->id);
		eb = events_of(b->s, y->id);
		assert_int_equal(ea.n, eb.n);
		assert_int_equal(ea.n, x->events);
		for (size_t k = 0; k < ea.n; k++)
			assert_string_equal(ea.row[k], eb.row[k]);
		evlist_free(&ea);
		evlist_free(&eb);
	}
}

static const it_run *run_named(const it_ctx *c, const char *name)
{
	for (int i = 0; i < c->nruns; i++)
		if (!strcmp(c->runs[i].name, name))
			return &c->runs[i];
	return NULL;
}

/* bench events of run that carry key as a number */
static int count_num(kt_store *s, const char *run, const char *key)
{
	int n = 0;
	uint64_t seq;
	kt_event ev;

	for (seq = 1; kt_event_get(s, run, seq, &ev) == 0; seq++) {
		cJSON *p;

		if (ev.kind != KT_KIND_BENCH)
			continue;
		p = cJSON_ParseWithLength(ev.payload, ev.payload_len);
		n += cJSON_IsNumber(cJSON_GetObjectItem(p, key));
		cJSON_Delete(p);
	}
	return n;
}

/* ---- KernelBench: the baseline beside the results ------------------------------- */

static void test_kb_baseline_beside(void **state)
{
	it_ctx dir, tgz, zip, one;
	char *res, *base, p[4400];
	size_t lr = 0, lb = 0;
	const it_run *r;
	struct mem m[2];

	(void)state;
	res = slurp_fix("kernelbench/results_level1_strings.json", &lr);
	base = slurp_fix("kernelbench/baseline_time_torch_fx.json", &lb);
	/* the folder: the two files alone */
	it_open(&dir);
	snprintf(p, sizeof(p), "%s/kb", dir.dir);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/kb/baseline_time_torch_fx.json", dir.dir);
	write_file(p, base, lb);
	snprintf(p, sizeof(p), "%s/kb/results_level1_strings.json", dir.dir);
	write_file(p, res, lr);
	snprintf(p, sizeof(p), "%s/kb", dir.dir);
	assert_int_equal(it_import(&dir, NULL, 0, 1, p), 0);
	assert_int_equal(dir.nruns, 2); /* the baseline is a run too */
	r = run_named(&dir, "results_level1_strings");
	assert_non_null(r);
	/* joined: the fixture's level-1 problems 1 and 2 have a baseline */
	assert_true(count_num(dir.s, r->id, "ref_time_ms") > 0);
	assert_true(count_num(dir.s, r->id, "speedup") > 0);

	/* the same folder in a tar.gz and a zip (baseline sorts first) */
	m[0] = (struct mem){ "kb/baseline_time_torch_fx.json", base, lb, 0 };
	m[1] = (struct mem){ "kb/results_level1_strings.json", res, lr, 0 };
	it_open(&tgz);
	snprintf(p, sizeof(p), "%s/kb.tar.gz", tgz.dir);
	assert_int_equal(write_archive(p, "tgz", m, 2), 0);
	assert_int_equal(it_import(&tgz, NULL, 0, 1, p), 0);
	same_runs(&dir, &tgz);
	it_open(&zip);
	snprintf(p, sizeof(p), "%s/kb.zip", zip.dir);
	assert_int_equal(write_archive(p, "zip", m, 2), 0);
	assert_int_equal(it_import(&zip, NULL, 0, 1, p), 0);
	same_runs(&dir, &zip);

	/* the results file by its own path: the baseline beside it on disk */
	it_open(&one);
	snprintf(p, sizeof(p), "%s/kb/results_level1_strings.json", dir.dir);
	assert_int_equal(it_import(&one, NULL, 0, 1, p), 0);
	assert_int_equal(one.nruns, 1);
	assert_string_equal(one.runs[0].id, r->id);
	{
		struct evlist a = events_of(dir.s, r->id);
		struct evlist b = events_of(one.s, r->id);

		assert_int_equal(a.n, b.n);
		for (size_t k = 0; k < a.n; k++)
			assert_string_equal(a.row[k], b.row[k]);
		evlist_free(&a);
		evlist_free(&b);
	}
	it_close(&one);
	it_close(&zip);
	it_close(&tgz);
	it_close(&dir);
	free(res);
	free(base);
}

/* the same on the corpus: level 3 results and the H100 baseline */
static void test_kb_corpus_archive(void **state)
{
	it_ctx dir, tgz;
	char p[4200], q[4400], *res, *base;
	size_t lr = 0, lb = 0;
	struct mem m[2];
	const it_run *r;

	(void)state;
	if (!it_corpus(p, sizeof(p), "gpu_kernel/kernelbench")) {
		skip();
		return;
	}
	it_open(&dir);
	assert_int_equal(it_import(&dir, NULL, 0, 1, p), 0);
	r = run_named(&dir, "best_k_kernels_level3");
	assert_non_null(r);
	assert_int_equal(count_num(dir.s, r->id, "ref_time_ms"), 113);
	snprintf(q, sizeof(q), "%s/best_k_kernels_level3.json", p);
	res = tu_slurp(q, &lr);
	snprintf(q, sizeof(q), "%s/baseline_time_torch_H100_Modal.json", p);
	base = tu_slurp(q, &lb);
	assert_non_null(res);
	assert_non_null(base);
	m[0] = (struct mem){ "kernelbench/baseline_time_torch_H100_Modal.json",
			     base, lb, 0 };
	m[1] = (struct mem){ "kernelbench/best_k_kernels_level3.json", res, lr,
			     0 };
	it_open(&tgz);
	snprintf(q, sizeof(q), "%s/kb.tar.gz", tgz.dir);
	assert_int_equal(write_archive(q, "tgz", m, 2), 0);
	assert_int_equal(it_import(&tgz, NULL, 0, 1, q), 0);
	assert_int_equal(tgz.nruns, 2);
	assert_non_null(run_named(&tgz, "best_k_kernels_level3"));
	assert_string_equal(run_named(&tgz, "best_k_kernels_level3")->id,
			    r->id);
	assert_int_equal(count_num(tgz.s, r->id, "ref_time_ms"), 113);
	/* A6000 results over an H100 baseline: no speedup (FORMAT.md 11.4) */
	assert_int_equal(count_num(tgz.s, r->id, "speedup"), 0);
	it_close(&tgz);
	it_close(&dir);
	free(res);
	free(base);
}

/* ---- archives inside archives ---------------------------------------------------- */

static void test_eval_in_archives(void **state)
{
	it_ctx ev, tgz, zip;
	char p[4200], q[4400], *eval;
	size_t le = 0;
	struct mem m[2];
	const char *kinds[] = { "tgz", "zip" };
	it_ctx *cs[] = { &tgz, &zip };

	(void)state;
	eval = slurp_fix("inspect/mini.eval", &le);
	it_open(&ev);
	assert_int_equal(it_import(&ev, NULL, 0, 1,
				   it_fixture(p, sizeof(p), "inspect/mini.eval")),
			 0);
	assert_true(ev.nruns >= 2);
	m[0] = (struct mem){ "logs/2026-11-29_mini.eval", eval, le, 0 };
	m[1] = (struct mem){ "logs/notes.txt", "not a trajectory\n", 17, 0 };
	for (int i = 0; i < 2; i++) {
		it_open(cs[i]);
		snprintf(q, sizeof(q), "%s/logs.%s", cs[i]->dir, kinds[i]);
		assert_int_equal(write_archive(q, kinds[i], m, 2), 0);
		assert_int_equal(it_import(cs[i], NULL, 0, 1, q), 0);
		/* no "nested too deep" line: the .eval was imported */
		assert_null(strstr(cs[i]->warns, "nested"));
		same_runs(&ev, cs[i]);
		/* importing the archive again adds nothing */
		assert_int_equal(it_import(cs[i], NULL, 0, 1, q), 0);
		for (int k = 0; k < cs[i]->nruns; k++)
			assert_int_equal(cs[i]->runs[k].added, 0);
		it_close(cs[i]);
	}
	it_close(&ev);
	free(eval);
}

/* the corpus .eval files inside a .tar.gz give the runs of the files */
static void test_eval_corpus_in_tgz(void **state)
{
	it_ctx ev, tgz;
	char p[4200], q[4400];
	const char *names[] = { "inspect_message_dedup_v3.eval",
				"inspect_popularity_10samples.eval" };
	char *d[2];
	size_t l[2] = { 0, 0 };
	struct mem m[2];

	(void)state;
	if (!it_corpus(p, sizeof(p), "inspect")) {
		skip();
		return;
	}
	it_open(&ev);
	for (int i = 0; i < 2; i++) {
		snprintf(q, sizeof(q), "%s/%s", p, names[i]);
		d[i] = tu_slurp(q, &l[i]);
		assert_non_null(d[i]);
		m[i] = (struct mem){ names[i], d[i], l[i], 0 };
	}
	{
		char a[4400], b[4400];

		snprintf(a, sizeof(a), "%s/%s", p, names[0]);
		snprintf(b, sizeof(b), "%s/%s", p, names[1]);
		assert_int_equal(it_import(&ev, NULL, 0, 2, a, b), 0);
	}
	assert_int_equal(ev.nruns, 11); /* 1 + 10 samples */
	it_open(&tgz);
	snprintf(q, sizeof(q), "%s/evals.tar.gz", tgz.dir);
	assert_int_equal(write_archive(q, "tgz", m, 2), 0);
	assert_int_equal(it_import(&tgz, NULL, 0, 1, q), 0);
	same_runs(&ev, &tgz);
	it_close(&tgz);
	it_close(&ev);
	free(d[0]);
	free(d[1]);
}

/* An .eval whose member inflates to 256 MiB, in a .tar.gz of a few KB:
 * the enclosing archive's bound (1 MiB floor) is what is left to it. */
static void test_nested_bomb(void **state)
{
	it_ctx c;
	char q[4400], inner[4400];
	size_t li = 0;
	char *id;
	struct mem m[1];

	(void)state;
	it_open(&c);
	snprintf(inner, sizeof(inner), "%s/bomb.eval", c.dir);
	m[0] = (struct mem){ "samples/1_epoch_1.json", NULL, 0, 256u << 20 };
	assert_int_equal(write_archive(inner, "zip", m, 1), 0);
	id = tu_slurp(inner, &li);
	assert_non_null(id);
	assert_true(li < (1u << 20));
	m[0] = (struct mem){ "x/bomb.eval", id, li, 0 };
	snprintf(q, sizeof(q), "%s/outer.tar.gz", c.dir);
	assert_int_equal(write_archive(q, "tgz", m, 1), 0);
	assert_int_equal(it_import(&c, NULL, 0, 1, q), KT_ELIMIT);
	assert_int_equal(c.nruns, 0);
	assert_non_null(strstr(c.warns, "outer.tar.gz:x/bomb.eval"));
	assert_non_null(strstr(c.warns, "enclosing archive's bound"));
	/* the same .eval on its own is bounded by its own size (x200) */
	assert_int_equal(it_import(&c, NULL, 0, 1, inner), KT_ELIMIT);
	assert_null(strstr(c.warns, "enclosing"));
	it_close(&c);
	free(id);
}

/* a zip in a zip in a tar.gz: the innermost is skipped and reported */
static void test_nested_too_deep(void **state)
{
	it_ctx c;
	char p[4400], *z1, *z2;
	size_t l1 = 0, l2 = 0;
	const char line[] = "{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,"
		"\"sessionId\":\"s-deep\",\"timestamp\":\"2025-01-01T00:00:00Z\","
		"\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n";
	struct mem m[2];

	(void)state;
	it_open(&c);
	m[0] = (struct mem){ "s.jsonl", line, sizeof(line) - 1, 0 };
	snprintf(p, sizeof(p), "%s/z1.zip", c.dir);
	assert_int_equal(write_archive(p, "zip", m, 1), 0);
	z1 = tu_slurp(p, &l1);
	m[0] = (struct mem){ "in/z1.zip", z1, l1, 0 };
	m[1] = (struct mem){ "top.jsonl", line, sizeof(line) - 1, 0 };
	snprintf(p, sizeof(p), "%s/z2.zip", c.dir);
	assert_int_equal(write_archive(p, "zip", m, 2), 0);
	z2 = tu_slurp(p, &l2);
	m[0] = (struct mem){ "z2.zip", z2, l2, 0 };
	snprintf(p, sizeof(p), "%s/t.tar.gz", c.dir);
	assert_int_equal(write_archive(p, "tgz", m, 1), 0);
	assert_int_equal(it_import(&c, NULL, 0, 1, p), 0);
	/* z2.zip (one level down) imported its top.jsonl */
	assert_int_equal(c.nruns, 1);
	assert_int_equal(c.runs[0].added, 1);
	assert_non_null(strstr(c.warns,
			       "t.tar.gz:z2.zip:in/z1.zip: archive nested too deep: skipped"));
	it_close(&c);
	free(z1);
	free(z2);
}

/* ---- events appended after an import --------------------------------------------- */

/* Append one event to run as ktraj append does (no provenance) or as an
 * imported replay bundle result does (a replay event with one). */
static void append_ev(kt_store *s, const char *run, int kind, const char *prov)
{
	kt_event e;
	kt_run_info ri;

	assert_int_equal(kt_run_get(s, run, &ri), 0);
	memset(&e, 0, sizeof(e));
	e.seq = ri.n_events + 1;
	e.ts_ns = KT_TS_UNKNOWN;
	e.kind = kind;
	e.actor = "human";
	e.prov_json = prov;
	e.payload = kind == KT_KIND_REPLAY ?
		"{\"step\":1,\"verdict\":\"reproduced\",\"reason\":\"x\",\"results\":{}}" :
		"{\"text\":\"looked at it\"}";
	e.payload_len = strlen(e.payload);
	assert_int_equal(kt_store_begin(s), 0);
	assert_int_equal(kt_event_append(s, run, &e), 0);
	assert_int_equal(kt_store_commit(s), 0);
}

static void test_grown_after_append(void **state)
{
	it_ctx c;
	char p[4200], live[4400], run[KT_RUN_ID_HEX + 1];
	char *src, *cut;
	size_t ls = 0, half;
	uint64_t n0;
	kt_run_info ri;

	(void)state;
	src = tu_slurp(it_fixture(p, sizeof(p), "claude/s2x.jsonl"), &ls);
	assert_non_null(src);
	/* the first half of the lines: a live log seen mid-session */
	cut = src + ls / 2;
	while (*cut && *cut != '\n')
		cut++;
	half = (size_t)(cut - src) + 1;
	it_open(&c);
	snprintf(live, sizeof(live), "%s/live.jsonl", c.dir);
	write_file(live, src, half);
	assert_int_equal(it_import(&c, "claude_code", 0, 1, live), 0);
	assert_int_equal(c.nruns, 1);
	n0 = c.runs[0].events;
	assert_true(n0 > 1);
	memcpy(run, c.runs[0].id, sizeof(run));

	/* a note appended to the run; the unchanged log: silent, nothing */
	append_ev(c.s, run, KT_KIND_NOTE, NULL);
	assert_int_equal(it_import(&c, "claude_code", 0, 1, live), 0);
	assert_int_equal(c.nwarn, 0);
	assert_int_equal(c.runs[0].added, 0);
	assert_int_equal(c.runs[0].events, n0 + 1);

	/* the log grew: one line says so, nothing is written */
	write_file(live, src, ls);
	assert_int_equal(it_import(&c, "claude_code", 0, 1, live), 0);
	assert_int_equal(c.nwarn, 1);
	assert_non_null(strstr(c.warns, "live.jsonl: run "));
	assert_non_null(strstr(c.warns, run));
	assert_non_null(strstr(c.warns, "has 1 event appended after its import"));
	assert_null(strstr(c.warns, "does not continue"));
	assert_int_equal(c.runs[0].added, 0);
	assert_int_equal(c.runs[0].events, n0 + 1);
	assert_int_equal(kt_run_get(c.s, run, &ri), 0);
	assert_int_equal(ri.n_events, n0 + 1);
	/* --strict: the problem stops the source */
	assert_int_equal(it_import(&c, "claude_code", 1, 1, live), KT_EPARSE);
	assert_int_equal(kt_run_get(c.s, run, &ri), 0);
	assert_int_equal(ri.n_events, n0 + 1);

	/* a replay event (with a provenance, as from a bundle result) after
	 * the note counts as appended too */
	append_ev(c.s, run, KT_KIND_REPLAY,
		  "{\"src\":\"00\",\"file\":\"result.json\",\"line\":0,\"off\":0,\"len\":0}");
	assert_int_equal(it_import(&c, "claude_code", 0, 1, live), 0);
	assert_int_equal(c.nwarn, 1);
	assert_non_null(strstr(c.warns, "has 2 events appended after its import"));
	assert_int_equal(c.runs[0].events, n0 + 2);
	it_close(&c);

	/* without an appended event the grown log adds its new events */
	it_open(&c);
	snprintf(live, sizeof(live), "%s/live.jsonl", c.dir);
	write_file(live, src, half);
	assert_int_equal(it_import(&c, "claude_code", 0, 1, live), 0);
	write_file(live, src, ls);
	assert_int_equal(it_import(&c, "claude_code", 0, 1, live), 0);
	assert_int_equal(c.nwarn, 0);
	assert_true(c.runs[0].added > 0);
	assert_int_equal(c.runs[0].events, n0 + c.runs[0].added);
	it_close(&c);
	free(src);
}

/* A KernelAgent trace folder (re-emission checked against the stored
 * events) that gained a round after a note was appended: said too. */
static void test_kernelagent_appended(void **state)
{
	it_ctx c;
	char p[4200], cmd[20000], d[4400], run[KT_RUN_ID_HEX + 1];
	uint64_t n0;

	(void)state;
	it_open(&c);
	snprintf(d, sizeof(d), "%s/trace", c.dir);
	snprintf(cmd, sizeof(cmd), "cp -r '%s' '%s' && mv '%s/optimization_trace/round_2' '%s/r2'",
		 it_fixture(p, sizeof(p), "kernelagent/trace_fx"), d, d, c.dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(it_import(&c, NULL, 0, 1, d), 0);
	assert_int_equal(c.nruns, 1);
	assert_int_equal(c.nwarn, 0);
	n0 = c.runs[0].events;
	memcpy(run, c.runs[0].id, sizeof(run));
	append_ev(c.s, run, KT_KIND_NOTE, NULL);
	snprintf(cmd, sizeof(cmd), "mv '%s/r2' '%s/optimization_trace/round_2'",
		 c.dir, d);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(it_import(&c, NULL, 0, 1, d), 0);
	assert_int_equal(c.nwarn, 1);
	assert_non_null(strstr(c.warns, "has 1 event appended after its import"));
	assert_int_equal(c.runs[0].added, 0);
	assert_int_equal(c.runs[0].events, n0 + 1);
	it_close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kb_baseline_beside),
		cmocka_unit_test(test_kb_corpus_archive),
		cmocka_unit_test(test_eval_in_archives),
		cmocka_unit_test(test_eval_corpus_in_tgz),
		cmocka_unit_test(test_nested_bomb),
		cmocka_unit_test(test_nested_too_deep),
		cmocka_unit_test(test_grown_after_append),
		cmocka_unit_test(test_kernelagent_appended),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
