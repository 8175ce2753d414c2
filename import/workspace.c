/*
 * workspace.c - file contents per run while importing (kt_ws_*).
 *
 * The workspace is what the importer believes each file holds after every
 * step.  Writes emit `edit` events (before/after blobs) only when content
 * changes, so a failed or no-op tool call changes nothing; observed content
 * (a Read result, Claude Code's originalFile) corrects the belief silently
 * and is recorded in the tool_result's "observed" array, which the store
 * indexes, so `ktraj cat RUN PATH --at SEQ` can give the true content.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "imp_int.h"

static void ent_free(void *p)
{
	struct kt_ws_ent *e = p;

	free(e->data);
	free(e);
}

void kt_ws_reset(struct kt_ws *ws)
{
	/* the table keeps its size: the next run's files are then placed,
	 * and walked (perfreport.c), as they always were */
	kt_strmap_clear(&ws->map, ent_free);
	ws->held = 0;
	free(ws->code);
	ws->code = NULL;
	ws->ncode = ws->nsorted = ws->capcode = 0;
	kt_buf_free(&ws->codebuf);
}

void kt_ws_free(struct kt_ws *ws)
{
	kt_ws_reset(ws);
	kt_strmap_free(&ws->map, NULL);
}

static int harness_path(const char *path);

static struct kt_ws_ent *ws_find(struct kt_ws *ws, const char *path,
				 int create)
{
	void **v = kt_strmap_slot(&ws->map, path, create);
	struct kt_ws_ent *e;

	if (v && *v)
		((struct kt_ws_ent *)*v)->used = ++ws->tick;
	if (!v || *v || !create)
		return v ? *v : NULL;
	/* a new path (or one whose entry failed to allocate before) */
	if (!(e = calloc(1, sizeof(*e))))
		return NULL;
	e->path = kt_strmap_slot_key(&ws->map, v);
	e->harness = harness_path(e->path);
	e->used = ++ws->tick;
	*v = e;
	return e;
}

/* Whether e holds content, in memory or dropped to the store. */
static int ws_has(const struct kt_ws_ent *e)
{
	return e->data || e->evicted;
}

int kt_ws_load(kt_imp *imp, struct kt_ws_ent *e)
{
	void *d;
	size_t n;
	int rc;

	if (!e->evicted)
		return 0;
	if ((rc = kt_blob_get(imp->s, e->hash, &d, &n)) != 0) {
		if (!imp->err)
			imp->err = rc;
		return rc;
	}
	e->data = d;
	e->len = n;
	e->evicted = 0;
	imp->ws.held += n;
	return 0;
}

/* Drop e's content (kt_ws_load reads it back when it is needed again). */
static void ws_drop(struct kt_ws *ws, struct kt_ws_ent *e)
{
	ws->held -= e->len;
	free(e->data);
	e->data = NULL;
	/* a deleted file's last content is never read again */
	e->evicted = !e->deleted;
}

static int by_use(const void *a, const void *b)
{
	uint64_t x = (*(struct kt_ws_ent *const *)a)->used;
	uint64_t y = (*(struct kt_ws_ent *const *)b)->used;

	return x < y ? -1 : x > y;
}

/*
 * Past kt_imp_ws_bytes of contents held, drop the least recently used
 * down to 3/4 of it (so a session that keeps writing new files sorts the
 * table once per quarter of the budget, not at every write).  Only what
 * the store can give back goes: contents stored as a blob (hashed), and
 * deleted files' old contents; never keep (the entry just written).  An
 * import of a session that wrote a thousand files kept them all (23.6 MB
 * of a 1 GB gen_claude.py session; issue 21).
 */
static void ws_evict(kt_imp *imp, const struct kt_ws_ent *keep)
{
	struct kt_ws *ws = &imp->ws;
	uint64_t max = kt_imp_ws_bytes(imp);
	struct kt_ws_ent **v;
	size_t i, n = 0;

	/* --redact stores redacted blobs (not the content believed); a
	 * failed source may not have stored them at all */
	if (ws->held <= max || imp->opts->redact || imp->failed || imp->err ||
	    !(v = malloc(ws->map.n * sizeof(*v))))
		return;
	for (i = 0; i < ws->map.cap; i++) {
		struct kt_ws_ent *e = ws->map.vals[i];

		if (e && e != keep && e->data &&
		    (e->deleted || (e->stored && e->hashed && !e->unknown)))
			v[n++] = e;
	}
	qsort(v, n, sizeof(*v), by_use);
	for (i = 0; i < n && ws->held > max / 4 * 3; i++)
		ws_drop(ws, v[i]);
	free(v);
}

char *kt_ws_path(const char *cwd, const char *path)
{
	size_t lc, lp, n = 0, i;
	char *buf, *out, *p;
	size_t *marks, nm = 0;
	int absolute;

	if (!path)
		return NULL;
	lp = strlen(path);
	lc = (cwd && *cwd && path[0] != '/') ? strlen(cwd) : 0;
	buf = malloc(lc + lp + 2);
	out = malloc(lc + lp + 2);
	marks = malloc((lc + lp + 2) * sizeof(*marks));
	if (!buf || !out || !marks) {
		free(buf);
		free(out);
		free(marks);
		return NULL;
	}
	if (lc) {
		memcpy(buf, cwd, lc);
		buf[lc] = '/';
		memcpy(buf + lc + 1, path, lp + 1);
	} else {
		memcpy(buf, path, lp + 1);
	}
	absolute = buf[0] == '/';
	if (absolute)
		out[n++] = '/';
	/* walk components; marks[] remembers where each output one starts */
	p = buf;
	while (*p) {
		char *c;
		size_t k;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		c = p;
		while (*p && *p != '/')
			p++;
		k = (size_t)(p - c);
		if (k == 1 && c[0] == '.')
			continue;
		if (k == 2 && c[0] == '.' && c[1] == '.') {
			if (nm > 0 && !(n - marks[nm - 1] == 2 &&
					out[marks[nm - 1]] == '.' &&
					out[marks[nm - 1] + 1] == '.')) {
				n = marks[--nm];
				if (n > (size_t)absolute)
					n--; /* the separator before it */
				continue;
			}
			if (absolute)
				continue; /* "/.." is "/" */
		}
		if (n > (size_t)absolute)
			out[n++] = '/';
		marks[nm++] = n;
		for (i = 0; i < k; i++)
			out[n++] = c[i];
	}
	if (n == 0)
		out[n++] = '.';
	out[n] = 0;
	free(buf);
	free(marks);
	return out;
}

/*
 * The entry of path, NULL when the run never named it; *np the path made
 * canonical (kt_ws_path), which the caller frees.  0, or KT_ENOMEM (also
 * for a NULL path) with nothing to free.
 */
static int ws_at(kt_imp *imp, const char *path, char **np,
		 struct kt_ws_ent **e)
{
	if (!(*np = kt_ws_path(NULL, path)))
		return KT_ENOMEM;
	*e = ws_find(&imp->ws, *np, 0);
	return 0;
}

/*
 * The entry of path, made when the run never named it, for content the
 * caller is about to record; *np as for ws_at.  0; KT_EINVAL for NULL
 * content, KT_ENOMEM (also for a NULL path); on error nothing to free.
 */
static int ws_at_new(kt_imp *imp, const char *path, const char *content,
		     char **np, struct kt_ws_ent **e)
{
	if (!(*np = kt_ws_path(NULL, path)) || !content)
		return *np ? (free(*np), KT_EINVAL) : KT_ENOMEM;
	if (!(*e = ws_find(&imp->ws, *np, 1))) {
		free(*np);
		return KT_ENOMEM;
	}
	return 0;
}

const char *kt_ws_get(kt_imp *imp, const char *path, size_t *len)
{
	char *np;
	struct kt_ws_ent *e;

	if (ws_at(imp, path, &np, &e))
		return NULL;
	free(np);
	if (!e || e->deleted || kt_ws_load(imp, e) || !e->data)
		return NULL;
	if (len)
		*len = e->len;
	return e->data;
}

/* e's content is no longer known (a write the trajectory does not show):
 * its bytes are dropped from the held total and it reads as unknown until
 * a full write or a Read gives it back */
static void ent_forget(kt_imp *imp, struct kt_ws_ent *e)
{
	if (e->data)
		imp->ws.held -= e->len;
	free(e->data);
	e->data = NULL;
	e->evicted = 0;
	e->len = 0;
	e->deleted = 0;
	e->stored = 0;
	e->unknown = 1;
}

static int put_blob(kt_imp *imp, struct kt_ws_ent *e, char hex[KT_HASH_HEX + 1])
{
	int rc = 0;

	if (!e->stored && kt_imp_next_written(imp)) {
		rc = kt_imp_blob(imp, e->data, e->len, e->path, hex);
		e->stored = rc == 0;
		/* the store hashed the content already: keep its hash */
		e->hashed = kt_unhex(hex, e->hash, KT_HASH_LEN) == 0;
	} else {
		if (!e->hashed)
			kt_sha256(e->data, e->len, e->hash);
		e->hashed = 1;
		kt_hex(e->hash, KT_HASH_LEN, hex);
	}
	return rc;
}

/* Whether a file or folder name is a benchmark's: it starts with "bench"
 * (bench/, benchmarks/, benchmark.sh) or holds it after a separator
 * (run_benchmark.py, cufft_benchmark.c) - not "KernelBench/", the folder
 * a whole task may live in. */
static int bench_name(const char *s, size_t n)
{
	for (size_t i = 0; i + 5 <= n; i++)
		if ((!i || s[i - 1] == '_' || s[i - 1] == '-' ||
		     s[i - 1] == '.') && !strncasecmp(s + i, "bench", 5))
			return 1;
	return 0;
}

/* Whether path names a benchmark harness or a plot script rather than the
 * code under test: a folder or file with a benchmark's name (bench_name)
 * or a file whose name starts with "plot".  vsla_cuda_dev re-ran
 * ./benchmark.sh seven times while editing only benchmark.sh,
 * bench/run_benchmark.py and bench/src/gpu_head_to_head.c: unchanged
 * libvsla, measured seven times (FORMAT.md section 14 "Code under test"). */
static int harness_path(const char *path)
{
	const char *p = path, *s;

	while ((s = strchr(p, '/'))) {
		if (bench_name(p, (size_t)(s - p)))
			return 1;
		p = s + 1;
	}
	return bench_name(p, strlen(p)) || !strncasecmp(p, "plot", 4);
}

/* Whether text defines a GPU kernel (CUDA/HIP __global__, Triton or Numba
 * jit, an inline extension or a raw-kernel string): a benchmark script
 * that carries its own kernel is the code under test. */
static int kernel_text(const char *d, size_t len)
{
	static const char *const mark[] = {
		"__global__", "triton.jit", "cuda.jit", "load_inline",
		"RawKernel", "SourceModule", "__device__", NULL };

	for (int i = 0; mark[i]; i++)
		if (memmem(d, len, mark[i], strlen(mark[i])))
			return 1;
	return 0;
}

static int set_content(struct kt_ws *ws, struct kt_ws_ent *e,
		       const char *content, size_t len)
{
	char *d = kt_memdupz(content, len);

	if (!d)
		return KT_ENOMEM;
	if (e->data)
		ws->held -= e->len;
	ws->held += len;
	free(e->data);
	e->data = d;
	e->evicted = 0;
	e->len = len;
	e->deleted = 0;
	e->unknown = 0;
	e->stored = 0;
	e->hashed = 0; /* hashed when first needed (the blob put hashes it) */
	e->kernel = e->harness && kernel_text(d, len);
	return 0;
}

/* Files whose content is not the code measured (notes, results, logs). */
static int not_code(const char *path)
{
	static const char *const ext[] = { ".md", ".txt", ".rst", ".json",
					   ".jsonl", ".csv", ".log", NULL };
	const char *dot = strrchr(path, '.');
	int i;

	if (!dot || strchr(dot, '/'))
		return 0;
	for (i = 0; ext[i]; i++)
		if (!strcmp(dot, ext[i]))
			return 1;
	return 0;
}

/* Adds e to the code files of kt_ws_code_hash (unsorted tail). */
static int code_add(struct kt_ws *ws, struct kt_ws_ent *e)
{
	if (not_code(e->path))
		return 0;
	if (KT_GROW(ws->code, ws->capcode, ws->ncode + 1))
		return KT_ENOMEM;
	memset(&ws->code[ws->ncode], 0, sizeof(*ws->code));
	ws->code[ws->ncode].path = e->path;
	ws->code[ws->ncode].plen = strlen(e->path);
	ws->code[ws->ncode++].e = e;
	return 0;
}

/* emit_edit with the payload's `extra` (owned: freed on every path; NULL
 * for none). */
static int emit_edit_x(kt_imp *imp, const char *path, const char *op,
		       const char *before, const char *after, uint64_t call,
		       const char *tool, cJSON *extra)
{
	cJSON *p = cJSON_CreateObject();
	kt_ev ev;

	if (!p) {
		cJSON_Delete(extra);
		return KT_ENOMEM;
	}
	cJSON_AddStringToObject(p, "path", path);
	cJSON_AddStringToObject(p, "op", op);
	if (before)
		cJSON_AddStringToObject(p, "before", before);
	else
		cJSON_AddNullToObject(p, "before");
	if (after)
		cJSON_AddStringToObject(p, "after", after);
	else
		cJSON_AddNullToObject(p, "after");
	cJSON_AddStringToObject(p, "tool", tool ? tool : "?");
	if (call)
		cJSON_AddNumberToObject(p, "call", (double)call);
	if (extra)
		cJSON_AddItemToObject(p, "extra", extra);
	{
		struct kt_ws_ent *e = ws_find(&imp->ws, path, 0);

		if (e) {
			if (!e->edited && code_add(&imp->ws, e)) {
				cJSON_Delete(p);
				return KT_ENOMEM;
			}
			e->edited = 1;
			e->edits++;
		}
	}
	memset(&ev, 0, sizeof(ev));
	ev.kind = KT_KIND_EDIT;
	ev.parent = call;
	ev.ts_ns = imp->last_ts;
	ev.actor = kt_imp_actor_of(imp, call);
	ev.payload = p;
	/* an edit comes from the record of the result that reported it */
	ev.file = imp->ev_file;
	ev.line = imp->ev_line;
	ev.off = imp->ev_off;
	ev.rec_len = imp->ev_len;
	return kt_imp_emit(imp, &ev, NULL);
}

static int emit_edit(kt_imp *imp, const char *path, const char *op,
		     const char *before, const char *after, uint64_t call,
		     const char *tool)
{
	return emit_edit_x(imp, path, op, before, after, call, tool, NULL);
}

int kt_ws_write(kt_imp *imp, const char *path, const char *content,
		size_t len, uint64_t call, const char *tool)
{
	char *np;
	struct kt_ws_ent *e;
	char bh[KT_HASH_HEX + 1], ah[KT_HASH_HEX + 1];
	int had, unk, rc;

	if ((rc = ws_at_new(imp, path, content, &np, &e)))
		return rc;
	unk = e->unknown;
	had = (ws_has(e) && !e->deleted) || unk;
	if (had && !unk) {
		if ((rc = kt_ws_load(imp, e)) != 0)
			goto out;
		if (e->len == len && !memcmp(e->data, content, len)) {
			free(np);
			return 0; /* no change, no edit */
		}
		rc = put_blob(imp, e, bh);
		if (rc)
			goto out;
	}
	rc = set_content(&imp->ws, e, content, len);
	if (rc)
		goto out;
	rc = put_blob(imp, e, ah);
	if (rc)
		goto out;
	/* over unknown content: a modify whose before is not known */
	rc = emit_edit(imp, np, had ? "modify" : "create",
		       had && !unk ? bh : NULL, ah, call, tool);
	ws_evict(imp, e);
out:
	free(np);
	return rc;
}

int kt_ws_replace(kt_imp *imp, const char *path, const char *old_s,
		  const char *new_s, int all, uint64_t call, const char *tool)
{
	size_t len, nl;
	const char *cur = kt_ws_get(imp, path, &len);
	char *nc;
	int rc;

	if (!cur || !old_s || !new_s)
		return KT_ENOTFOUND;
	nc = kt_str_replace(cur, len, old_s, strlen(old_s), new_s,
			    strlen(new_s), all, &nl);
	if (!nc)
		return KT_ENOTFOUND;
	rc = kt_ws_write(imp, path, nc, nl, call, tool);
	free(nc);
	return rc;
}

/* kt_ws_delete (del 1) and kt_ws_invalidate (del 0): what is believed of
 * path is given up, its last known content stored as the edit's before. */
static int ws_forget(kt_imp *imp, const char *path, uint64_t call,
		     const char *tool, int del)
{
	char *np, bh[KT_HASH_HEX + 1];
	struct kt_ws_ent *e;
	int rc, known;

	if ((rc = ws_at(imp, path, &np, &e)))
		return rc;
	if (del && e && e->unknown) {
		/* a file of unknown content is deleted all the same */
		e->unknown = 0;
		e->deleted = 1;
		rc = emit_edit(imp, np, "delete", NULL, NULL, call, tool);
		goto out;
	}
	known = e && ws_has(e) && !e->deleted;
	if (del && !known) {
		rc = KT_ENOTFOUND;
		goto out;
	}
	/* nothing believed (never seen, or already unknown): nothing stale */
	if (!del && (!e || e->unknown || (!ws_has(e) && !e->deleted)))
		goto out;
	/* an evicted content is stored and hashed: put_blob needs no data */
	if (known && (rc = put_blob(imp, e, bh)))
		goto out;
	if (del) {
		e->deleted = 1;
		e->evicted = 0; /* its data is never read again */
	} else {
		ent_forget(imp, e);
	}
	rc = emit_edit(imp, np, del ? "delete" : "unknown", known ? bh : NULL,
		       NULL, call, tool);
out:
	free(np);
	return rc;
}

int kt_ws_edit_unknown(kt_imp *imp, const char *path, const char *old_s,
		       const char *new_s, int all, uint64_t call,
		       const char *tool)
{
	char *np, bh[KT_HASH_HEX + 1];
	struct kt_ws_ent *e;
	cJSON *x;
	int rc, known;

	if (!old_s || !new_s)
		return KT_EINVAL;
	if ((rc = ws_at_new(imp, path, "", &np, &e)))
		return rc;
	known = ws_has(e) && !e->deleted && !e->unknown;
	/* an evicted content is stored and hashed: put_blob needs no data */
	if (known && (rc = put_blob(imp, e, bh)))
		goto out;
	ent_forget(imp, e);
	/* the hunk is all the source shows of the change */
	if (!(x = cJSON_CreateObject()) ||
	    !cJSON_AddStringToObject(x, "old_string", old_s) ||
	    !cJSON_AddStringToObject(x, "new_string", new_s) ||
	    (all && !cJSON_AddTrueToObject(x, "replace_all"))) {
		cJSON_Delete(x);
		rc = KT_ENOMEM;
		goto out;
	}
	rc = emit_edit_x(imp, np, "unknown", known ? bh : NULL, NULL, call,
			 tool, x);
out:
	free(np);
	return rc;
}

int kt_ws_delete(kt_imp *imp, const char *path, uint64_t call,
		 const char *tool)
{
	return ws_forget(imp, path, call, tool, 1);
}

int kt_ws_invalidate(kt_imp *imp, const char *path, uint64_t call,
		     const char *tool)
{
	return ws_forget(imp, path, call, tool, 0);
}

int kt_ws_observe(kt_imp *imp, const char *path, const char *content,
		  size_t len, cJSON *payload)
{
	char *np;
	struct kt_ws_ent *e;
	char hex[KT_HASH_HEX + 1];
	cJSON *arr, *o;
	int rc;

	if ((rc = ws_at_new(imp, path, content, &np, &e)))
		return rc;
	if (!e->deleted && (rc = kt_ws_load(imp, e)) != 0)
		goto out;
	if (e->data && !e->deleted && e->len == len &&
	    !memcmp(e->data, content, len))
		goto out; /* what we believed: nothing to record */
	rc = set_content(&imp->ws, e, content, len);
	if (rc)
		goto out;
	/* the blob goes with the tool_result about to be emitted */
	rc = put_blob(imp, e, hex);
	if (rc || !payload)
		goto out;
	arr = cJSON_GetObjectItemCaseSensitive(payload, "observed");
	if (!arr)
		arr = cJSON_AddArrayToObject(payload, "observed");
	o = cJSON_CreateObject();
	if (!arr || !o) {
		cJSON_Delete(o);
		rc = KT_ENOMEM;
		goto out;
	}
	cJSON_AddStringToObject(o, "path", np);
	cJSON_AddStringToObject(o, "blob", hex);
	cJSON_AddItemToArray(arr, o);
	ws_evict(imp, e);
out:
	free(np);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorts ws->code: the tail added since the last call, merged into the
 * sorted head.  A bench result comes after each few edits, and sorting
 * the whole list each time was a third of kt_ws_code_hash on a session
 * that had written a few hundred files (perf, 2026-12-03). */
static int code_sort(struct kt_ws *ws)
{
	size_t h = ws->nsorted, n = ws->ncode, i = 0, j = h, k = 0;
	struct kt_ws_code *t;

	if (h == n)
		return 0;
	/* path is the first member: cmp_str compares it */
	qsort(ws->code + h, n - h, sizeof(*ws->code), cmp_str);
	if (h && strcmp(ws->code[h - 1].path, ws->code[h].path) > 0) {
		if (!(t = malloc(n * sizeof(*t))))
			return KT_ENOMEM;
		while (i < h && j < n)
			t[k++] = strcmp(ws->code[i].path, ws->code[j].path) < 0 ?
				 ws->code[i++] : ws->code[j++];
		while (i < h)
			t[k++] = ws->code[i++];
		while (j < n)
			t[k++] = ws->code[j++];
		memcpy(ws->code, t, n * sizeof(*t));
		free(t);
	}
	ws->nsorted = n;
	return 0;
}

int kt_ws_code_hash(kt_imp *imp, char hex[KT_HASH_HEX + 1])
{
	struct kt_ws *ws = &imp->ws;
	struct kt_buf *b = &ws->codebuf;
	size_t i;
	int rc;

	if (!ws->ncode)
		return 0;
	if ((rc = code_sort(ws)))
		return rc;
	b->len = 0;
	for (i = 0; i < ws->ncode; i++) {
		struct kt_ws_code *c = &ws->code[i];
		struct kt_ws_ent *e = c->e;

		/* a harness file is not the code measured unless it holds
		 * a kernel; of unknown content it cannot be told: counted */
		if (!e->unknown && !e->kernel && e->harness)
			continue;
		kt_buf_add(b, c->path, c->plen + 1);
		if (e->unknown)
			kt_buf_printf(b, "unknown %u", e->edits);
		else if (e->deleted || !ws_has(e))
			kt_buf_puts(b, "deleted");
		else {
			if (!e->hashed)
				kt_sha256(e->data, e->len, e->hash);
			e->hashed = 1;
			/* most files are unchanged since the last result */
			if (!c->hexed || memcmp(c->of, e->hash, KT_HASH_LEN)) {
				char h[KT_HASH_HEX + 1];

				kt_hex(e->hash, KT_HASH_LEN, h);
				memcpy(c->hex, h, KT_HASH_HEX);
				memcpy(c->of, e->hash, KT_HASH_LEN);
				c->hexed = 1;
			}
			kt_buf_add(b, c->hex, KT_HASH_HEX);
		}
		kt_buf_putc(b, 0);
	}
	if ((rc = b->err) != 0) {
		kt_buf_free(b);
		return rc;
	}
	kt_sha256_hex(b->p, b->len, hex);
	return 1;
}

/* Whether path lies in dir: dir itself or below it ("" = everywhere).
 * "/" is everywhere too: a relative path (its run's cwd was not known)
 * names a file below / all the same (`rm -rf --no-preserve-root /`). */
static int under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!n || (n == 1 && dir[0] == '/'))
		return 1;
	return !strncmp(path, dir, n) && (path[n] == 0 || path[n] == '/');
}

/* Every path the workspace believes something of (content, or absence
 * with `gone`; unknown content with `unk`) under dir or matching glob with
 * fnmatch flags fl, in path order, into *out (pointers into the table). */
static int ws_where(kt_imp *imp, const char *dir, const char *glob, int fl,
		    int gone, int unk, const char ***out, size_t *n)
{
	const char **v = NULL;
	char *nd = NULL;
	size_t nv = 0, i;

	*out = NULL;
	*n = 0;
	if ((dir && glob) || (!dir && !glob))
		return KT_EINVAL;
	if (dir && *dir && !(nd = kt_ws_path(NULL, dir)))
		return KT_ENOMEM;
	if (imp->ws.map.n && !(v = malloc(imp->ws.map.n * sizeof(*v)))) {
		free(nd);
		return KT_ENOMEM;
	}
	for (i = 0; i < imp->ws.map.cap; i++) {
		const struct kt_ws_ent *e = imp->ws.map.vals[i];

		if (!e)
			continue;
		if (e->unknown ? !unk :
		    e->deleted ? !gone : !ws_has(e))
			continue;
		if (glob ? fnmatch(glob, e->path, fl) != 0 :
		    !under(e->path, nd ? nd : ""))
			continue;
		if (nv < imp->ws.map.n)
			v[nv++] = e->path;
	}
	/* in path order: the same source gives the same events */
	if (nv > 1)
		qsort(v, nv, sizeof(*v), cmp_str);
	free(nd);
	*out = v;
	*n = nv;
	return 0;
}

int kt_ws_invalidate_match(kt_imp *imp, const char *dir, const char *glob,
			   unsigned how, uint64_t call, const char *tool)
{
	const char **v;
	size_t nv, i;
	/* FNM_LEADING_DIR (GNU): a match of a leading part of the path
	 * followed by '/' matches, so the files under a matched directory */
	int fl = FNM_PATHNAME | (how & KT_WS_TREE ? FNM_LEADING_DIR : 0);
	/* what the workspace believes: content, or absence */
	int rc = ws_where(imp, dir, glob, fl, !(how & KT_WS_PRESENT), 0, &v,
			  &nv);

	/* kt_ws_invalidate looks each up again; the table does not move
	 * (no entry is added), so the path pointers stay valid */
	for (i = 0; i < nv && !rc; i++)
		rc = kt_ws_invalidate(imp, v[i], call, tool);
	free(v);
	return rc;
}

int kt_ws_invalidate_where(kt_imp *imp, const char *dir, const char *glob,
			   uint64_t call, const char *tool)
{
	return kt_ws_invalidate_match(imp, dir, glob, 0, call, tool);
}

int kt_ws_delete_under(kt_imp *imp, const char *dir, uint64_t call,
		       const char *tool)
{
	const char **v;
	size_t nv, i;
	int rc;

	/* "" (every file) is never what a removal names */
	if (!dir || !*dir)
		return KT_EINVAL;
	/* files with content, known or not; not those already absent */
	rc = ws_where(imp, dir, NULL, 0, 0, 1, &v, &nv);
	for (i = 0; i < nv && !rc; i++) {
		rc = kt_ws_delete(imp, v[i], call, tool);
		if (rc == KT_ENOTFOUND)
			rc = 0;
	}
	free(v);
	return rc;
}
