/* wsutil.c - workspace paths and content for cat and diff (see wsutil.h). */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "wsutil.h"

struct suffix_ctx {
	const char *want;
	size_t wlen;
	char *match;
	char *second;
	int n;
};

static int suffix_cb(const char *path, void *arg)
{
	struct suffix_ctx *x = arg;
	size_t pl = strlen(path);

	if (pl > x->wlen && path[pl - x->wlen - 1] == '/' &&
	    !strcmp(path + pl - x->wlen, x->want) &&
	    !(x->match && !strcmp(x->match, path)) &&
	    !(x->second && !strcmp(x->second, path))) {
		x->n++;
		if (x->n == 1)
			x->match = strdup(path);
		else if (x->n == 2)
			x->second = strdup(path);
	}
	return 0;
}

/* Paths of edits with op "unknown" that end in "/<want>": a file whose
 * content became unknown is not in the live listing (the paths index keeps
 * it as deleted), yet `cat RUN suffix` must say it is unknown, as `cat RUN
 * full-path` does, rather than "no file". */
struct unk_ctx {
	struct suffix_ctx *x;
	kt_store *s;
	const char *run;
	uint64_t at_a, at_b;
	int err;
};

static int jstr_is(const cJSON *o, const char *key, const char *want);

static int unk_cb(const kt_event *ev, void *arg)
{
	struct unk_ctx *u = arg;
	const cJSON *pv;
	cJSON *p = cJSON_ParseWithLength(ev->payload, ev->payload_len);
	int n0 = u->x->n, rc = 0;

	if (!p)
		return 0;
	pv = cJSON_GetObjectItemCaseSensitive(p, "path");
	if (jstr_is(p, "op", "unknown") && cJSON_IsString(pv))
		suffix_cb(pv->valuestring, u->x);
	if (u->x->n > n0) {
		/* count it only when it is unknown at one of the steps */
		const char *got = u->x->n == 1 ? u->x->match : u->x->second;
		int ua = got ? cli_ws_unknown(u->s, u->run, got, u->at_a, NULL)
			     : KT_ENOMEM;
		int ub = ua == 0 && u->at_b != u->at_a ?
			 cli_ws_unknown(u->s, u->run, got, u->at_b, NULL) : ua;

		if (ua < 0 || ub < 0) {
			u->err = ua < 0 ? ua : ub;
			rc = 1;
		} else if (!ua && !ub) {
			u->x->n--;
			if (u->x->n == 0) {
				free(u->x->match);
				u->x->match = NULL;
			} else {
				free(u->x->second);
				u->x->second = NULL;
			}
		}
	}
	cJSON_Delete(p);
	return rc;
}

int cli_path_resolve(struct cli *c, kt_store *s, const char *run,
		     const char *path, uint64_t at_a, uint64_t at_b,
		     char **out)
{
	struct suffix_ctx x = { 0 };
	unsigned char h[KT_HASH_LEN];
	int deleted, rc;

	*out = NULL;
	rc = kt_path_at(s, run, path, at_a > at_b ? at_a : at_b, h, &deleted);
	if (rc == 0) {
		*out = strdup(path);
		return *out ? 0 : cli_err(c, "out of memory");
	}
	if (rc != KT_ENOTFOUND)
		return cli_store_err(c, s, rc, path);
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	x.want = path;
	x.wlen = strlen(path);
	/* the listing has the files that exist at a step: a file deleted
	 * between the two steps is in one of them */
	rc = x.wlen ? kt_path_foreach(s, run, at_a, suffix_cb, &x) : 0;
	if (!rc && x.wlen && at_b != at_a)
		rc = kt_path_foreach(s, run, at_b, suffix_cb, &x);
	if (!rc && x.wlen && x.n == 0) {
		struct unk_ctx u = { &x, s, run, at_a, at_b, 0 };
		uint64_t last = !at_a || !at_b ? 0 : at_a > at_b ? at_a : at_b;

		rc = kt_event_scan(s, run, 1, last, KT_KIND_BIT(KT_KIND_EDIT),
				   KT_READ_BODY, unk_cb, &u);
		if (u.err)
			rc = u.err;
		else if (rc == 1)
			rc = 0;
	}
	if (rc) {
		rc = cli_store_err(c, s, rc, "listing paths");
	} else if (x.n == 0) {
		char where[1200], at[64] = "";
		int wrc = cli_ws_where(s, run, path, where, sizeof(where));

		if (at_a && at_b && at_a != at_b)
			snprintf(at, sizeof(at), " at step %llu or %llu",
				 (unsigned long long)at_a,
				 (unsigned long long)at_b);
		else if (at_a || at_b)
			snprintf(at, sizeof(at), " at step %llu",
				 (unsigned long long)(at_a ? at_a : at_b));
		if (wrc) {
			rc = cli_store_err(c, s, wrc, path);
		} else {
			cli_err(c, "no file '%s' in the workspace of run %.12s%s (%s)",
				path, run, at, where);
			rc = KT_EXIT_NOTFOUND;
		}
	} else if (x.n > 1) {
		cli_err(c, "'%s' matches %d files (%s, %s%s); give more of the path",
			path, x.n, x.match ? x.match : "?",
			x.second ? x.second : "?", x.n > 2 ? ", ..." : "");
		rc = KT_EXIT_USAGE;
	} else if (!x.match) {
		rc = cli_err(c, "out of memory");
	} else {
		*out = x.match;
		x.match = NULL;
	}
	free(x.match);
	free(x.second);
	return rc;
}

static int jstr_is(const cJSON *o, const char *key, const char *want)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) && !strcmp(v->valuestring, want);
}

/* Walks back from `at` to the last edit or observation of path: the paths
 * index records an unknown edit as "deleted" (FORMAT.md 6.7), so only the
 * event tells the two apart.  Few steps back in practice: it is asked only
 * for a path the index calls deleted. */
int cli_ws_unknown(kt_store *s, const char *run, const char *path,
		   uint64_t at, uint64_t *by)
{
	kt_run_info ri;
	kt_event ev;
	uint64_t seq;
	int rc;

	if (!at) {
		if ((rc = kt_run_get(s, run, &ri)))
			return rc;
		at = ri.n_events;
	}
	for (seq = at; seq >= 1; seq--) {
		cJSON *p, *o;
		int hit = -1;

		if ((rc = kt_event_read(s, run, seq, KT_READ_HEAD, &ev)))
			return rc;
		if (ev.kind != KT_KIND_EDIT && ev.kind != KT_KIND_TOOL_RESULT)
			continue;
		if ((rc = kt_event_read(s, run, seq, KT_READ_BODY, &ev)))
			return rc;
		p = cJSON_ParseWithLength(ev.payload, ev.payload_len);
		if (!p)
			continue;
		if (ev.kind == KT_KIND_EDIT) {
			if (jstr_is(p, "path", path))
				hit = jstr_is(p, "op", "unknown");
			else if (jstr_is(p, "from", path) ||
				 jstr_is(p, "old_path", path))
				hit = 0; /* renamed away */
		} else {
			cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(
					   p, "observed"))
				if (jstr_is(o, "path", path))
					hit = 0;
		}
		cJSON_Delete(p);
		if (hit >= 0) {
			if (hit && by)
				*by = ev.parent ? ev.parent : seq;
			return hit;
		}
	}
	return 0;
}

int cli_ws_content(kt_store *s, const char *run, const char *path,
		   uint64_t at, void **data, size_t *len, int *deleted)
{
	unsigned char h[KT_HASH_LEN];
	int rc;

	*data = NULL;
	*len = 0;
	*deleted = 0;
	rc = kt_path_at(s, run, path, at, h, deleted);
	if (rc)
		return rc;
	if (*deleted) {
		rc = cli_ws_unknown(s, run, path, at, NULL);
		if (rc < 0)
			return rc;
		*deleted = rc ? 2 : 1;
		return KT_ENOTFOUND;
	}
	return cli_blob_named(s, h, data, len);
}

int cli_blob_named(kt_store *s, const unsigned char h[KT_HASH_LEN],
		   void **data, size_t *len)
{
	int rc = kt_blob_get(s, h, data, len);

	return rc == KT_ENOTFOUND ? KT_ECORRUPT : rc;
}

int cli_seq(struct cli *c, kt_store *s, const char *run, const char *arg,
	    uint64_t *seq)
{
	kt_run_info ri;
	int rc;

	if (cli_u64(arg, seq) || *seq == 0)
		return cli_bad_step(c, NULL, arg);
	rc = kt_run_get(s, run, &ri);
	if (rc)
		return cli_store_err(c, s, rc, run);
	if (*seq > ri.n_events)
		return cli_no_step(c, run, *seq, ri.n_events);
	return 0;
}

/* cli_ws_where's walk over the paths index: the stretches of the first
 * path that matches (the path itself, else paths ending in "/<want>") */
struct where_ctx {
	const char *want;
	size_t wlen;
	int exact;            /* want is stored: only its entries come */
	int paths;            /* matching paths seen */
	char first[512];        /* paths indexed are at most 400 bytes */
	char second[512];       /* the second path that matches */
	char last[512];         /* the path of the entry before */
	uint64_t n_events, start;
	int in;               /* a stretch is open at start */
	int spans;
	char text[200];
	size_t len;
};

static void where_span(struct where_ctx *w, uint64_t end)
{
	size_t room = sizeof(w->text) - w->len;
	int k;

	w->in = 0;
	if (end < w->start)
		return;
	if (++w->spans > 4) {
		if (w->spans == 5 && room > 5)
			w->len += (size_t)snprintf(w->text + w->len, room, ", ...");
		return;
	}
	k = end == w->start ?
	    snprintf(w->text + w->len, room, "%s%llu", w->spans > 1 ? ", " : "",
		     (unsigned long long)end) :
	    snprintf(w->text + w->len, room, "%s%llu-%llu",
		     w->spans > 1 ? ", " : "", (unsigned long long)w->start,
		     (unsigned long long)end);
	if (k > 0 && (size_t)k < room)
		w->len += (size_t)k;
}

static int where_cb(const char *path, uint64_t seq, int deleted, void *arg)
{
	struct where_ctx *w = arg;
	size_t pl = strlen(path);

	if (!w->exact && !(pl > w->wlen && path[pl - w->wlen - 1] == '/' &&
			   !strcmp(path + pl - w->wlen, w->want)))
		return 0;
	/* entries of one path are adjacent: a new path starts where the
	 * path changes; only the first one's stretches are told */
	if (!w->paths || strcmp(path, w->last)) {
		snprintf(w->last, sizeof(w->last), "%s", path);
		if (w->paths++ == 1)
			snprintf(w->second, sizeof(w->second), "%s", path);
		if (w->paths > 1)
			return 0;
		snprintf(w->first, sizeof(w->first), "%s", path);
	} else if (strcmp(path, w->first)) {
		return 0;
	}
	if (!deleted && !w->in) {
		w->in = 1;
		w->start = seq;
	} else if (deleted && w->in) {
		where_span(w, seq - 1);
	}
	return 0;
}

int cli_ws_where(kt_store *s, const char *run, const char *path, char *buf,
		 size_t n)
{
	struct where_ctx w = { .want = path, .wlen = strlen(path) };
	unsigned char h[KT_HASH_LEN];
	kt_run_info ri;
	int rc, del;

	if ((rc = kt_run_get(s, run, &ri)))
		return rc;
	w.n_events = ri.n_events;
	rc = kt_path_at(s, run, path, 0, h, &del);
	w.exact = rc == 0;
	if (rc && rc != KT_ENOTFOUND)
		return rc;
	rc = w.wlen ? kt_path_changes(s, run, w.exact ? path : NULL,
				      where_cb, &w) : 0;
	if (rc)
		return rc;
	if (w.in)
		where_span(&w, w.n_events);
	if (w.paths > 1)
		snprintf(buf, n, "%d files end in '%s': %s, %s%s; give more of "
			 "the path", w.paths, path, w.first, w.second,
			 w.paths > 2 ? ", ..." : "");
	else if (!w.spans)
		snprintf(buf, n, "it never exists in this run");
	else
		snprintf(buf, n, "%s exists at step%s %s",
			 w.exact ? "it" : w.first,
			 w.spans == 1 && !strchr(w.text, '-') ? "" : "s", w.text);
	return 0;
}
