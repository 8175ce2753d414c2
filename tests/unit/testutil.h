/*
 * testutil.h - shared by the cmocka unit tests: includes in the order cmocka
 * needs, a fresh temporary store per test, a run built event by event for
 * the analyzer and export tests, and the corpus location (tests that use
 * ../shared/corpus skip cleanly when it is absent).
 */
#ifndef KT_TESTUTIL_H
#define KT_TESTUTIL_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "../../store/store.h"

/* A new empty directory; caller frees the string.  Removed by tu_rmrf. */
static inline char *tu_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *p = malloc(4096);

	if (!p)
		return NULL;
	snprintf(p, 4096, "%s/kttest.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(p)) {
		free(p);
		return NULL;
	}
	return p;
}

static inline void tu_rmrf(const char *dir)
{
	char cmd[4200];

	if (!dir || !*dir)
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "warning: could not remove %s\n", dir);
}

/* The corpus directory ($CORPUS or ../shared/corpus), or NULL. */
static inline const char *tu_corpus(void)
{
	static char buf[4096];
	const char *c = getenv("CORPUS");
	struct stat st;

	if (!c || !*c)
		c = "../shared/corpus";
	if (stat(c, &st) != 0 || !S_ISDIR(st.st_mode))
		return NULL;
	snprintf(buf, sizeof(buf), "%s", c);
	return buf;
}

/* Read a whole file; NULL when absent.  Caller frees. */
static inline char *tu_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1))) {
		if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		} else {
			buf[n] = 0;
			if (len)
				*len = (size_t)n;
		}
	}
	fclose(f);
	return buf;
}
/* ---- a store of the test's own ------------------------------------------- */

/*
 * A new temporary directory in *dir (caller releases it with tu_store_gone)
 * and the path DIR/NAME in path (cap bytes); the store created there, open
 * with KT_OPEN_CREATE | flags.  The test fails when any of it fails.
 */
static inline kt_store *tu_store_new(char **dir, char *path, size_t cap,
				     const char *name, unsigned flags)
{
	kt_store *s = NULL;

	*dir = tu_tmpdir();
	assert_non_null(*dir);
	snprintf(path, cap, "%s/%s", *dir, name);
	assert_int_equal(kt_store_open(path, KT_OPEN_CREATE | flags, &s), 0);
	return s;
}

/* Close s (NULL: already closed), remove dir with what is in it, free it. */
static inline void tu_store_gone(kt_store *s, char *dir)
{
	if (s)
		kt_store_close(s);
	tu_rmrf(dir);
	free(dir);
}

/* ---- a run built event by event (analyzer and export tests) -------------- */

struct tu_run {
	char *dir;
	kt_store *s;
	char id[KT_RUN_ID_HEX + 1];
	uint64_t seq;	/* of the last event appended */
	int64_t ts;	/* of the last event appended, ns */
};

/*
 * A store of its own with one run, identity and name `name`, format
 * "test", created in a write transaction that stays open: the test appends
 * with tu_run_ev and commits.  Events start at 2023-11-14 22:13:20 UTC.
 */
static inline void tu_run_open(struct tu_run *r, const char *name)
{
	char path[4200];

	memset(r, 0, sizeof(*r));
	r->s = tu_store_new(&r->dir, path, sizeof(path), "s.ktraj", 0);
	kt_run_id_from_identity(name, r->id);
	assert_int_equal(kt_store_begin(r->s), KT_OK);
	assert_int_equal(kt_run_create(r->s, r->id, name, "test", NULL), KT_OK);
	r->ts = 1700000000000000000LL;
}

/* Append one event (seq, parent, ts_ns, kind, actor, payload) to run id
 * of s, in the write transaction open; returns seq. */
static inline uint64_t tu_append(kt_store *s, const char *id, uint64_t seq,
				 uint64_t parent, int64_t ts_ns, int kind,
				 const char *actor, const char *payload)
{
	kt_event ev = {0};

	ev.seq = seq;
	ev.parent = parent;
	ev.ts_ns = ts_ns;
	ev.kind = kind;
	ev.actor = actor;
	ev.payload = payload;
	ev.payload_len = strlen(payload);
	assert_int_equal(kt_event_append(s, id, &ev), KT_OK);
	return seq;
}

/* Append the next event, dt_ns after the previous one; returns its seq. */
static inline uint64_t tu_run_ev(struct tu_run *r, int kind, const char *actor,
				 int64_t dt_ns, const char *payload)
{
	return tu_append(r->s, r->id, ++r->seq, 0, r->ts += dt_ns, kind,
			 actor, payload);
}

static inline void tu_run_close(struct tu_run *r)
{
	tu_store_gone(r->s, r->dir);
}
/* How many threads of this process are named name (pthread_setname_np;
 * /proc/self/task/N/comm): ktraj's own helpers, told from any a sanitizer
 * runs. */
static inline int tu_threads_named(const char *name)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char p[300], comm[64] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "/proc/self/task/%s/comm", e->d_name);
		if (!(f = fopen(p, "r")))
			continue;
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
		n += !strcmp(comm, name);
	}
	closedir(d);
	return n;
}
#endif
