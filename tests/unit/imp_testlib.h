/*
 * imp_testlib.h - shared by the importer unit tests of Codex, ATIF,
 * SWE-agent and OpenHands (t_import_{codex,atif,swe,openhands}.c): import
 * files into a fresh store through the real driver and count what landed.
 * Include after testutil.h.
 */
#ifndef KT_IMP_TESTLIB_H
#define KT_IMP_TESTLIB_H
#include <cjson/cJSON.h>
#include "../../store/store.h"
#include "../../import/import.h"

#define IT_MAX_RUNS 16

typedef struct it_run {
	char id[KT_RUN_ID_HEX + 1];
	char name[256], format[64];
	uint64_t events, added;
} it_run;

typedef struct it_ctx {
	char *dir, path[4200];
	kt_store *s;
	it_run runs[IT_MAX_RUNS];
	int nruns, nwarn;
	char warns[8192];
} it_ctx;

typedef struct it_counts {
	int msg, human, call, result, edit, compile, bench, other;
	int result_ok, usage;
} it_counts;

static void it_on_run(const char *id, const char *name, const char *format,
		      uint64_t events, uint64_t added, void *arg)
{
	it_ctx *c = arg;
	it_run *r;

	if (c->nruns >= IT_MAX_RUNS)
		return;
	r = &c->runs[c->nruns++];
	snprintf(r->id, sizeof(r->id), "%s", id);
	snprintf(r->name, sizeof(r->name), "%s", name ? name : "");
	snprintf(r->format, sizeof(r->format), "%s", format ? format : "");
	r->events = events;
	r->added = added;
}

static void it_on_warn(const char *line, void *arg)
{
	it_ctx *c = arg;
	size_t n = strlen(c->warns);

	c->nwarn++;
	snprintf(c->warns + n, sizeof(c->warns) - n, "%s\n", line);
}

static void it_open(it_ctx *c)
{
	memset(c, 0, sizeof(*c));
	c->dir = tu_tmpdir();
	assert_non_null(c->dir);
	snprintf(c->path, sizeof(c->path), "%s/s.ktraj", c->dir);
	assert_int_equal(kt_store_open(c->path, KT_OPEN_CREATE, &c->s), 0);
}

static void it_close(it_ctx *c)
{
	kt_store_close(c->s);
	tu_rmrf(c->dir);
	free(c->dir);
	c->dir = NULL;
}

/* Import paths (format may be NULL); returns kt_import_paths' code. */
static int it_import(it_ctx *c, const char *format, int strict, int n, ...)
{
	char *paths[8];
	kt_import_opts o;
	va_list ap;
	int i;

	assert_true(n <= 8);
	va_start(ap, n);
	for (i = 0; i < n; i++)
		paths[i] = va_arg(ap, char *);
	va_end(ap);
	memset(&o, 0, sizeof(o));
	o.format = format;
	o.strict = strict;
	o.on_run = it_on_run;
	o.on_warn = it_on_warn;
	o.arg = c;
	c->nruns = 0;
	c->nwarn = 0;
	c->warns[0] = 0;
	return kt_import_paths(c->s, paths, n, &o);
}

typedef struct it_walk {
	it_counts *k;
	char *last_edit_path;
} it_walk;

static int it_count_ev(const kt_event *ev, void *arg)
{
	it_counts *k = arg;
	cJSON *p;

	switch (ev->kind) {
	case KT_KIND_MESSAGE:
		k->msg++;
		p = cJSON_Parse(ev->payload);
		if (p && cJSON_IsTrue(cJSON_GetObjectItem(p, "human")))
			k->human++;
		if (p && cJSON_GetObjectItem(p, "usage"))
			k->usage++;
		cJSON_Delete(p);
		break;
	case KT_KIND_TOOL_CALL: k->call++; break;
	case KT_KIND_TOOL_RESULT:
		k->result++;
		p = cJSON_Parse(ev->payload);
		if (p && cJSON_IsTrue(cJSON_GetObjectItem(p, "ok")))
			k->result_ok++;
		cJSON_Delete(p);
		break;
	case KT_KIND_EDIT: k->edit++; break;
	case KT_KIND_COMPILE: k->compile++; break;
	case KT_KIND_BENCH: k->bench++; break;
	default: k->other++; break;
	}
	return 0;
}

static it_counts it_count(it_ctx *c, const char *run)
{
	it_counts k;

	memset(&k, 0, sizeof(k));
	assert_int_equal(kt_event_foreach(c->s, run, 1, 0, 0, it_count_ev, &k),
			 0);
	return k;
}

/* The payload of event seq (parsed; caller frees). */
static cJSON *it_payload(it_ctx *c, const char *run, uint64_t seq, int *kind,
			 char *actor, size_t an)
{
	kt_event ev;

	assert_int_equal(kt_event_get(c->s, run, seq, &ev), 0);
	if (kind)
		*kind = ev.kind;
	if (actor)
		snprintf(actor, an, "%s", ev.actor ? ev.actor : "");
	return cJSON_Parse(ev.payload);
}

/* Content of path in run as of seq (0 = latest); malloc'ed or NULL. */
static char *it_cat(it_ctx *c, const char *run, const char *path, uint64_t at)
{
	unsigned char h[KT_HASH_LEN];
	int del = 0;
	void *data = NULL;
	size_t len = 0;

	if (kt_path_at(c->s, run, path, at, h, &del) != 0 || del)
		return NULL;
	if (kt_blob_get(c->s, h, &data, &len) != 0)
		return NULL;
	return data;
}

/* Corpus file path, or NULL (test skips) when the corpus is absent. */
static const char *it_corpus(char *buf, size_t n, const char *rel)
{
	const char *c = tu_corpus();

	if (!c)
		return NULL;
	if ((size_t)snprintf(buf, n, "%.2000s/%.1000s", c, rel) >= n)
		return NULL;
	return buf;
}

/* Fixture path under tests/data/import (tests run from the project root,
 * or from anywhere with $KT_SRC pointing at it). */
static const char *it_fixture(char *buf, size_t n, const char *rel)
{
	const char *src = getenv("KT_SRC");

	snprintf(buf, n, "%s%stests/data/import/%s", src ? src : "",
		 src ? "/" : "", rel);
	return buf;
}

#define IT_EXPECT(k, m, h, tc, tr, ed)                                      \
	do {                                                                \
		assert_int_equal((k).msg, (m));                             \
		assert_int_equal((k).human, (h));                           \
		assert_int_equal((k).call, (tc));                           \
		assert_int_equal((k).result, (tr));                         \
		assert_int_equal((k).edit, (ed));                           \
	} while (0)

#endif
