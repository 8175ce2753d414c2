/*
 * imp_fixture.h - helpers for importer tests (t_import_inspect.c,
 * t_import_gpu.c): a temporary store, kt_import_paths with the run ids and
 * warnings collected, and a run's events loaded with parsed payloads so
 * tests can count kinds and look at fields.  Include after testutil.h.
 */
#ifndef KT_IMP_FIXTURE_H
#define KT_IMP_FIXTURE_H
#include <cjson/cJSON.h>
#include "../../store/store.h"
#include "../../import/import.h"

#define IF_MAX_RUNS 512

struct ifx {
	char *dir;
	char path[4200];
	kt_store *s;
	/* last import */
	char ids[IF_MAX_RUNS][KT_RUN_ID_HEX + 1];
	char names[IF_MAX_RUNS][128];
	uint64_t added[IF_MAX_RUNS];
	int nruns, nwarn;
	char warns[8192];
};

struct iev {
	int kind;
	uint64_t seq, parent;
	int64_t ts;
	char actor[64];
	cJSON *p;
};

struct ievs {
	struct iev *v;
	size_t n;
};

static inline int if_setup(void **state)
{
	struct ifx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->dir = tu_tmpdir();
	assert_non_null(f->dir);
	snprintf(f->path, sizeof(f->path), "%s/s.ktraj", f->dir);
	assert_int_equal(kt_store_open(f->path, KT_OPEN_CREATE, &f->s), 0);
	*state = f;
	return 0;
}

static inline int if_teardown(void **state)
{
	struct ifx *f = *state;

	kt_store_close(f->s);
	tu_rmrf(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

static inline void if_on_run(const char *id, const char *name, const char *format,
		      uint64_t events, uint64_t added, void *arg)
{
	struct ifx *f = arg;

	(void)format;
	(void)events;
	if (f->nruns >= IF_MAX_RUNS)
		return;
	snprintf(f->ids[f->nruns], sizeof(f->ids[0]), "%s", id);
	snprintf(f->names[f->nruns], sizeof(f->names[0]), "%s", name);
	f->added[f->nruns++] = added;
}

static inline void if_on_warn(const char *line, void *arg)
{
	struct ifx *f = arg;
	size_t n = strlen(f->warns);

	f->nwarn++;
	snprintf(f->warns + n, sizeof(f->warns) - n, "%s\n", line);
}

/* Import one path (format NULL = detect); returns kt_import_paths' code. */
static inline int if_import(struct ifx *f, const char *path, const char *format,
		     int strict)
{
	kt_import_opts o;
	char *p = (char *)path;

	memset(&o, 0, sizeof(o));
	o.format = format;
	o.strict = strict;
	o.on_run = if_on_run;
	o.on_warn = if_on_warn;
	o.arg = f;
	f->nruns = f->nwarn = 0;
	f->warns[0] = 0;
	return kt_import_paths(f->s, &p, 1, &o);
}

/* The run reported with this name, or -1. */
static inline int if_run_named(const struct ifx *f, const char *name)
{
	for (int i = 0; i < f->nruns; i++)
		if (!strcmp(f->names[i], name))
			return i;
	return -1;
}

static inline int if_collect(const kt_event *ev, void *arg)
{
	struct ievs *e = arg;
	struct iev *nv = realloc(e->v, (e->n + 1) * sizeof(*nv));

	assert_non_null(nv);
	e->v = nv;
	memset(&nv[e->n], 0, sizeof(nv[0]));
	nv[e->n].kind = ev->kind;
	nv[e->n].seq = ev->seq;
	nv[e->n].parent = ev->parent;
	nv[e->n].ts = ev->ts_ns;
	snprintf(nv[e->n].actor, sizeof(nv[0].actor), "%s",
		 ev->actor ? ev->actor : "");
	nv[e->n].p = cJSON_ParseWithLength(ev->payload, ev->payload_len);
	assert_non_null(nv[e->n].p);
	e->n++;
	return 0;
}

static inline struct ievs if_events(struct ifx *f, const char *run)
{
	struct ievs e = { NULL, 0 };

	assert_int_equal(kt_event_foreach(f->s, run, 1, 0, 0, if_collect, &e),
			 0);
	return e;
}

static inline void if_free(struct ievs *e)
{
	for (size_t i = 0; i < e->n; i++)
		cJSON_Delete(e->v[i].p);
	free(e->v);
	e->v = NULL;
	e->n = 0;
}

static inline size_t if_count(const struct ievs *e, int kind)
{
	size_t n = 0;

	for (size_t i = 0; i < e->n; i++)
		n += !kind || e->v[i].kind == kind;
	return n;
}

/* Events of `kind` whose boolean field `key` is true (1) / false (0) /
 * null or absent (-1). */
static inline size_t if_count_bool(const struct ievs *e, int kind, const char *key,
			    int want)
{
	size_t n = 0;

	for (size_t i = 0; i < e->n; i++) {
		const cJSON *v;
		int got;

		if (e->v[i].kind != kind)
			continue;
		v = cJSON_GetObjectItemCaseSensitive(e->v[i].p, key);
		got = cJSON_IsTrue(v) ? 1 : cJSON_IsFalse(v) ? 0 : -1;
		n += got == want;
	}
	return n;
}

/* Events of `kind` whose string field `key` equals `val`. */
static inline size_t if_count_str(const struct ievs *e, int kind, const char *key,
			   const char *val)
{
	size_t n = 0;

	for (size_t i = 0; i < e->n; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(e->v[i].p,
								  key);

		if (e->v[i].kind == kind && cJSON_IsString(v) &&
		    !strcmp(v->valuestring, val))
			n++;
	}
	return n;
}

/* Events of `kind` whose number field `key` lies in (lo, hi). */
static inline size_t if_count_num(const struct ievs *e, int kind, const char *key,
			   double lo, double hi)
{
	size_t n = 0;

	for (size_t i = 0; i < e->n; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(e->v[i].p,
								  key);

		if (e->v[i].kind == kind && cJSON_IsNumber(v) &&
		    v->valuedouble > lo && v->valuedouble < hi)
			n++;
	}
	return n;
}

/* The n-th (0-based) event of `kind`, or NULL. */
static inline const struct iev *if_nth(const struct ievs *e, int kind, size_t nth)
{
	for (size_t i = 0; i < e->n; i++)
		if (e->v[i].kind == kind && nth-- == 0)
			return &e->v[i];
	return NULL;
}

/* Whether any payload of the run contains `needle` when printed. */
static inline int if_any_text(const struct ievs *e, const char *needle)
{
	for (size_t i = 0; i < e->n; i++) {
		char *s = cJSON_PrintUnformatted(e->v[i].p);
		int hit = s && strstr(s, needle) != NULL;

		free(s);
		if (hit)
			return 1;
	}
	return 0;
}

static inline double if_num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : -1e300;
}

/* Path under the corpus, or skip the test when there is no corpus. */
#define IF_CORPUS(buf, rel)                                                \
	do {                                                               \
		const char *c_ = tu_corpus();                              \
		if (!c_) {                                                 \
			skip();                                            \
			return;                                            \
		}                                                          \
		if (snprintf(buf, sizeof(buf), "%s/%s", c_, rel) >=        \
		    (int)sizeof(buf))                                      \
			fail_msg("corpus path too long");                  \
	} while (0)
#endif
