/*
 * imp_opencode.c - OpenCode sessions: the JSON storage tree and the newer
 * SQLite database (opencode.db, read through SQLite's C library).
 * Source: sst/opencode packages/opencode/src/session/message-v2.ts (User
 * and Assistant messages, parts text|reasoning|file|tool|step-start|
 * step-finish|snapshot|patch|agent|subtask|retry|compaction, tool states
 * pending|running|completed|error), session/session.sql.ts (tables
 * session, message, part; `data` holds the JSON without the ids),
 * storage/storage.ts (the tree storage/session/<project>/<id>.json,
 * storage/message/<session>/<id>.json, storage/part/<message>/<id>.json).
 *
 *  - One run per session, identity "opencode:<session id>", from either
 *    source (the tree's files are claimed by whichever of them comes first;
 *    a message or part file without its session file still gives the
 *    run).  Messages in time order (time.created, then id), parts by id.
 *  - A user message's text parts are the person's (human true); synthetic
 *    or ignored text (what OpenCode adds: file contents, tool listings),
 *    compaction markers and the user messages of a child session (parentID:
 *    the task tool's prompt to a sub-agent) are not.  An assistant message's
 *    text parts are the agent's messages (model and token usage on the
 *    first), reasoning parts flagged "thinking".
 *  - Tool parts: a tool call (state.input) and, once completed or failed,
 *    its result (output or error; bash's metadata.exit as exit code), with
 *    times from state.time.  edit {filePath, oldString, newString,
 *    replaceAll}, write {filePath, content}, multiedit and bash {command,
 *    workdir} go through the shared editor and shell analysis; the
 *    session's directory is the cwd.
 *  - step-start/step-finish/snapshot/patch/retry parts are not events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite_dl.h" /* libsqlite3, loaded when first used */

#include "import.h"
#include "impx.h"
#include "impconv.h"

#define SQLITE_MAGIC "SQLite format 3"

/* A session as both sources give it: its info, and its messages each with
 * its parts (arrays of objects, ids filled in). */
typedef struct ocsess {
	cJSON *info;      /* Session.Info or a row of table session; may be {} */
	cJSON *msgs;      /* [{..message.., "parts":[...]}] */
	/* the tree's files, named by "_fi" in the objects read from them (the
	 * provenance of their events); none for the database */
	const kt_file **files;
	size_t nfiles, cap;
} ocsess;

/* Where the object o was read: its file (or f) and the whole of it. */
static const kt_file *origin(const ocsess *s, const cJSON *o,
			     const kt_file *f, kt_impx_span *sp)
{
	const cJSON *fi = cJSON_GetObjectItem(o, "_fi");
	size_t i;

	memset(sp, 0, sizeof(*sp));
	if (!cJSON_IsNumber(fi) || fi->valuedouble < 0 ||
	    (i = (size_t)fi->valuedouble) >= s->nfiles)
		return f;
	sp->len = s->files[i]->len;
	sp->line = 1;
	return s->files[i];
}

static int oc_detect(const kt_file *f)
{
	size_t n = f->len < 4096 ? f->len : 4096;

	if (f->len >= 16 && !memcmp(f->data, SQLITE_MAGIC, 15))
		return kt_impx_has(f, f->len < 65536 ? f->len : 65536,
				   "`part`") &&
		       kt_impx_has(f, f->len < 65536 ? f->len : 65536,
				   "`message`") ? 80 : 0;
	if (!n || f->data[0] != '{')
		return 0;
	/* a message or part file names its session and message ids */
	if (kt_impx_sniff(f->data, n, "sessionID", NULL) &&
	    (kt_impx_sniff(f->data, n, "messageID", NULL) ||
	     kt_impx_sniff(f->data, n, "role", NULL)))
		return 70;
	if (kt_impx_sniff(f->data, n, "projectID", NULL) &&
	    kt_impx_sniff(f->data, n, "directory", NULL) &&
	    kt_impx_sniff(f->data, n, "title", NULL))
		return 70;
	return 0;
}

static double num_at(const cJSON *o, const char *a, const char *b)
{
	const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(o, a), b);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static int64_t ms_ts(const cJSON *o, const char *a, const char *b)
{
	const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(o, a), b);

	return v ? kt_impx_ts_json(v) : KT_TS_UNKNOWN;
}

static int by_time_id(const void *pa, const void *pb)
{
	const cJSON *a = *(const cJSON *const *)pa, *b = *(const cJSON *const *)pb;
	double ta = num_at(a, "time", "created"), tb = num_at(b, "time", "created");
	const char *ia = kt_json_str(a, "id"), *ib = kt_json_str(b, "id");

	if (ta != tb)
		return ta < tb ? -1 : 1;
	return strcmp(ia ? ia : "", ib ? ib : "");
}

static int by_id(const void *pa, const void *pb)
{
	const cJSON *a = *(const cJSON *const *)pa, *b = *(const cJSON *const *)pb;
	const char *ia = kt_json_str(a, "id"), *ib = kt_json_str(b, "id");

	return strcmp(ia ? ia : "", ib ? ib : "");
}

/* Sort the items of array arr with cmp (cJSON has no sort). */
static int sort_array(cJSON *arr, int (*cmp)(const void *, const void *))
{
	int n = cJSON_GetArraySize(arr), i;
	cJSON **v;

	if (n < 2)
		return 0;
	if (!(v = malloc((size_t)n * sizeof(*v))))
		return KT_ENOMEM;
	for (i = 0; i < n; i++)
		v[i] = cJSON_DetachItemFromArray(arr, 0);
	qsort(v, (size_t)n, sizeof(*v), cmp);
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, v[i]);
	free(v);
	return 0;
}

/* ---- emitting one session --------------------------------------------- */
static int effects(kt_conv *cv, const char *tool, const cJSON *args,
		   uint64_t call, uint64_t res, const char *out, int ok,
		   int64_t ts)
{
	cJSON *a = kt_impx_opencode_args(args);
	int rc;

	if (!a)
		return KT_ENOMEM;
	rc = kt_impx_tool_effects(cv->imp, tool, a, cv->cwd, call, res, out,
				  cv->ec, ok, ts);
	cJSON_Delete(a);
	return rc < 0 ? rc : 1;
}

static int tool_part(kt_conv *cv, const cJSON *p, const kt_impx_span *sp)
{
	const cJSON *st = cJSON_GetObjectItem(p, "state");
	const char *status = kt_json_str(st, "status");
	const char *id = kt_json_str(p, "callID");
	int64_t t0 = ms_ts(st, "time", "start"), t1 = ms_ts(st, "time", "end");
	const cJSON *ex = cJSON_GetObjectItem(cJSON_GetObjectItem(st, "metadata"),
					      "exit");
	cJSON *extra = NULL;
	int rc;

	if (kt_json_str(st, "title") && (extra = cJSON_CreateObject()))
		cJSON_AddStringToObject(extra, "title", kt_json_str(st, "title"));
	rc = kt_conv_call(cv, id, kt_json_str(p, "tool"),
			  cJSON_GetObjectItem(st, "input"), extra, 0, t0, sp,
			  NULL);
	if (rc || !status || (strcmp(status, "completed") &&
			      strcmp(status, "error")))
		return rc; /* pending or running: no result yet */
	cv->ec = cJSON_IsNumber(ex) ? ex->valueint : -1;
	if (!strcmp(status, "error"))
		rc = kt_conv_result_ec(cv, id, kt_json_str(st, "error"), 0, cv->ec,
				       NULL, t1, sp);
	else
		rc = kt_conv_result_ec(cv, id, kt_json_str(st, "output"),
				       cv->ec > 0 ? 0 : 1, cv->ec, NULL, t1, sp);
	cv->ec = -1;
	return rc;
}

static cJSON *usage_of(const cJSON *m)
{
	const cJSON *t = cJSON_GetObjectItem(m, "tokens");
	cJSON *u;

	if (!cJSON_IsObject(t) || !(u = cJSON_CreateObject()))
		return NULL;
	kt_imp_add_count(u, "input", cJSON_GetNumberValue(
		cJSON_GetObjectItem(t, "input")));
	kt_imp_add_count(u, "output", cJSON_GetNumberValue(
		cJSON_GetObjectItem(t, "output")));
	kt_imp_add_count(u, "cache_read", num_at(t, "cache", "read"));
	kt_imp_add_count(u, "cache_creation", num_at(t, "cache", "write"));
	return u;
}

static int one_message(kt_conv *cv, const ocsess *s, const kt_file *f,
		       const cJSON *m)
{
	kt_impx_span mspan;
	const kt_file *mf = origin(s, m, f, &mspan);
	const kt_impx_span *msp = &mspan;
	const char *role = kt_json_str(m, "role");
	int user = role && !strcmp(role, "user");
	/* a child session's user messages are its parent agent's prompt */
	int sub = kt_json_str(s->info, "parentID") != NULL;
	int64_t mts = ms_ts(m, "time", "created");
	const cJSON *p;
	int rc = 0, first = 1;

	if (!role || (strcmp(role, "user") && strcmp(role, "assistant"))) {
		kt_imp_warn(cv->imp, mf, msp->line, "message without a user "
			    "or assistant role: skipped");
		return 0;
	}
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(m, "parts")) {
		const char *ty = kt_json_str(p, "type");
		const char *t = kt_json_str(p, "text");
		kt_impx_span sp;
		int64_t ts = ms_ts(p, "time", "start");

		cv->f = origin(s, p, f, &sp);
		if (ts == KT_TS_UNKNOWN)
			ts = mts;
		if (!ty)
			continue;
		if ((!strcmp(ty, "text") || !strcmp(ty, "reasoning")) && t &&
		    *t) {
			int meta = cJSON_IsTrue(cJSON_GetObjectItem(p,
						"synthetic")) ||
				   cJSON_IsTrue(cJSON_GetObjectItem(p, "ignored"));
			cJSON *more = cJSON_CreateObject();

			if (more && kt_json_str(m, "id"))
				cJSON_AddStringToObject(more, "msg_id",
							kt_json_str(m, "id"));
			if (more && !user && first) {
				cJSON *u = usage_of(m);

				if (kt_json_str(m, "modelID"))
					cJSON_AddStringToObject(more, "model",
						kt_json_str(m, "modelID"));
				if (u)
					cJSON_AddItemToObject(more, "usage", u);
				first = 0;
			}
			rc = kt_conv_msg(cv, user ? "user" : "assistant",
					 user && !meta && !sub, t,
					 !strcmp(ty, "reasoning") ? "thinking" :
					 meta ? "meta" : user && sub ?
					 "subagent_prompt" : NULL, more, ts, &sp,
					 NULL);
		} else if (!strcmp(ty, "compaction")) {
			rc = kt_conv_msg(cv, "system", 0, "compaction",
					 "meta,compact_summary", NULL, ts, &sp,
					 NULL);
		} else if (!strcmp(ty, "tool")) {
			rc = tool_part(cv, p, &sp);
		}
		if (rc)
			break;
	}
	return rc;
}

static int emit_session(kt_imp *imp, const kt_file *f, const char *sid,
			ocsess *s)
{
	cJSON *meta = cJSON_CreateObject();
	const char *title = kt_json_str(s->info, "title");
	const char *dir = kt_json_str(s->info, "directory");
	const cJSON *m;
	char ident[300];
	kt_conv cv;
	int rc;

	if (!meta)
		return KT_ENOMEM;
	snprintf(ident, sizeof(ident), "opencode:%.250s", sid);
	if (dir)
		cJSON_AddStringToObject(meta, "cwd", dir);
	if (kt_json_str(s->info, "parentID"))
		cJSON_AddStringToObject(meta, "parent_session",
					kt_json_str(s->info, "parentID"));
	if (kt_json_str(s->info, "version"))
		cJSON_AddStringToObject(meta, "opencode_version",
					kt_json_str(s->info, "version"));
	if ((rc = sort_array(s->msgs, by_time_id))) {
		cJSON_Delete(meta);
		return rc;
	}
	if ((rc = kt_imp_run_begin(imp, ident, title ? title : sid, "opencode",
				   meta)))
		return rc;
	if (!(rc = kt_conv_init(&cv, imp, f, dir))) {
		cv.effects = effects;
		cv.ec = -1;
		cJSON_ArrayForEach(m, s->msgs)
			if ((rc = sort_array(cJSON_GetObjectItem(m, "parts"),
					     by_id)) ||
			    (rc = one_message(&cv, s, f, m)))
				break;
		kt_conv_free(&cv);
	}
	return kt_imp_run_finish(imp, rc);
}

/* ---- the JSON storage tree ------------------------------------------------ */
typedef struct treex {
	kt_imp *imp;
	const char *want;  /* basename looked for, or NULL: collect all */
	char *found;
	cJSON *list;       /* rels, when collecting */
} treex;

static int on_rel(const char *rel, void *arg)
{
	treex *t = arg;

	if (!t->want) {
		if (strlen(rel) > 5 && !strcmp(rel + strlen(rel) - 5, ".json"))
			cJSON_AddItemToArray(t->list, cJSON_CreateString(rel));
		return 0;
	}
	if (!strcmp(kt_impx_base(rel), t->want)) {
		t->found = strdup(rel);
		return 1;
	}
	return 0;
}

/* The file at rel parsed and claimed, its file remembered in s and named
 * by "_fi"; NULL (warned) when it does not parse. */
static cJSON *tree_doc(kt_imp *imp, ocsess *s, const char *rel)
{
	const kt_file *g = NULL;
	cJSON *o;

	if (kt_imp_open(imp, rel, &g) || !g)
		return NULL;
	kt_imp_claim(imp, rel);
	if (!(o = kt_impx_parse(imp, g)) || !cJSON_IsObject(o))
		return o;
	if (s->nfiles == s->cap) {
		size_t nc = s->cap ? 2 * s->cap : 16;
		const kt_file **nf = realloc(s->files, nc * sizeof(*nf));

		if (!nf)
			return o;
		s->files = nf;
		s->cap = nc;
	}
	s->files[s->nfiles] = g;
	cJSON_AddNumberToObject(o, "_fi", (double)s->nfiles++);
	return o;
}

/* The storage root of rel: what comes before its "message/", "part/" or
 * "session/" folder (malloc'ed, "" when at the top). */
static char *tree_root(const char *rel)
{
	static const char *const dirs[] = { "session/", "message/", "part/",
					    NULL };
	const char *best = NULL;

	for (int i = 0; dirs[i]; i++) {
		const char *p = rel;

		while ((p = strstr(p, dirs[i]))) {
			if ((p == rel || p[-1] == '/') && (!best || p > best))
				best = p;
			p++;
		}
	}
	return strndup(rel, best ? (size_t)(best - rel) : 0);
}

static int tree_import(kt_imp *imp, const kt_file *f, cJSON *doc)
{
	const char *rel = f->rel ? f->rel : kt_impx_base(f->path);
	const char *sid = kt_json_str(doc, "sessionID");
	char *root = tree_root(rel), *pre = NULL, *nm = NULL;
	treex t;
	ocsess s;
	const cJSON *r;
	int rc = 0;

	memset(&t, 0, sizeof(t));
	memset(&s, 0, sizeof(s));
	t.imp = imp;
	if (!sid && kt_json_str(doc, "projectID"))
		sid = kt_json_str(doc, "id"); /* the session file itself */
	if (!root || !sid) {
		free(root);
		if (!sid)
			kt_imp_warn(imp, f, 0, "no session id: file skipped");
		return root ? 0 : KT_ENOMEM;
	}
	s.msgs = cJSON_CreateArray();
	t.list = cJSON_CreateArray();
	if (!s.msgs || !t.list || !(pre = malloc(strlen(root) + strlen(sid) +
						  64)) ||
	    !(nm = malloc(strlen(sid) + 8))) {
		rc = KT_ENOMEM;
		goto out;
	}
	/* the session file: session/<project>/<id>.json */
	sprintf(nm, "%s.json", sid);
	sprintf(pre, "%ssession/", root);
	t.want = nm;
	kt_imp_list(imp, pre, on_rel, &t);
	if (t.found)
		s.info = tree_doc(imp, &s, t.found);
	if (!s.info)
		s.info = cJSON_CreateObject();
	t.want = NULL;
	sprintf(pre, "%smessage/%s/", root, sid);
	kt_imp_list(imp, pre, on_rel, &t);
	cJSON_ArrayForEach(r, t.list) {
		cJSON *m = tree_doc(imp, &s, r->valuestring), *parts;
		treex tp;
		const char *mid = kt_json_str(m, "id");
		char *pp;
		const cJSON *q;

		if (!cJSON_IsObject(m) || !mid) {
			cJSON_Delete(m);
			continue;
		}
		memset(&tp, 0, sizeof(tp));
		tp.list = cJSON_CreateArray();
		parts = cJSON_AddArrayToObject(m, "parts");
		if (!tp.list || !parts ||
		    !(pp = malloc(strlen(root) + strlen(mid) + 16))) {
			cJSON_Delete(tp.list);
			cJSON_Delete(m);
			rc = KT_ENOMEM;
			goto out;
		}
		sprintf(pp, "%spart/%s/", root, mid);
		kt_imp_list(imp, pp, on_rel, &tp);
		free(pp);
		cJSON_ArrayForEach(q, tp.list) {
			cJSON *p = tree_doc(imp, &s, q->valuestring);

			if (cJSON_IsObject(p))
				cJSON_AddItemToArray(parts, p);
			else
				cJSON_Delete(p);
		}
		cJSON_Delete(tp.list);
		cJSON_AddItemToArray(s.msgs, m);
	}
	if (!cJSON_GetArraySize(s.msgs))
		kt_imp_warn(imp, f, 0, "session %s has no message files under "
			    "%smessage/%s/", sid, root, sid);
	else
		rc = emit_session(imp, f, sid, &s);
out:
	free(t.found);
	cJSON_Delete(t.list);
	cJSON_Delete(s.info);
	cJSON_Delete(s.msgs);
	free(s.files);
	free(root);
	free(pre);
	free(nm);
	return rc;
}

/* ---- the SQLite database ------------------------------------------------ */
/* A row's `data` JSON with the ids the table keeps beside it; NULL when
 * it is not a JSON object, or when memory ran out (*nomem set: not a bad
 * row). */
static cJSON *row_data(sqlite3_stmt *st, int data_col, const char *const *ids,
		       const int *cols, int *nomem)
{
	const unsigned char *d = sqlite3_column_text(st, data_col);
	int rc = 0;
	cJSON *o = d ? kt_cjson_parse((const char *)d, strlen((const char *)d),
				      NULL, &rc) : NULL;

	if (rc == KT_ENOMEM)
		*nomem = 1;
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return NULL;
	}
	for (int i = 0; ids[i]; i++) {
		const unsigned char *v = sqlite3_column_text(st, cols[i]);

		cJSON_DeleteItemFromObjectCaseSensitive(o, ids[i]);
		if (v)
			cJSON_AddStringToObject(o, ids[i], (const char *)v);
	}
	return o;
}

static int db_session(kt_imp *imp, const kt_file *f, sqlite3 *db,
		      const char *sid, cJSON *info)
{
	static const char *const mid[] = { "id", "sessionID", NULL };
	static const int mcol[] = { 0, 1 };
	static const char *const pid[] = { "id", "messageID", NULL };
	static const int pcol[] = { 0, 1 };
	sqlite3_stmt *ms = NULL, *ps = NULL;
	ocsess s;
	int rc = 0, bad = 0, nomem = 0;

	memset(&s, 0, sizeof(s));
	s.info = info;
	if (!(s.msgs = cJSON_CreateArray()))
		return KT_ENOMEM;
	if (sqlite3_prepare_v2(db, "SELECT id, session_id, data FROM message "
			       "WHERE session_id = ?1 ORDER BY time_created, id",
			       -1, &ms, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT id, message_id, data FROM part "
			       "WHERE message_id = ?1 ORDER BY id", -1, &ps,
			       NULL) != SQLITE_OK) {
		kt_imp_warn(imp, f, 0, "not an OpenCode database: %s: file "
			    "skipped", sqlite3_errmsg(db));
		rc = KT_EPARSE;
		goto out;
	}
	sqlite3_bind_text(ms, 1, sid, -1, SQLITE_TRANSIENT);
	while (sqlite3_step(ms) == SQLITE_ROW) {
		cJSON *m = row_data(ms, 2, mid, mcol, &nomem), *parts;

		if (nomem) {
			rc = KT_ENOMEM;
			goto out;
		}
		if (!m) {
			bad++;
			continue;
		}
		parts = cJSON_AddArrayToObject(m, "parts");
		sqlite3_reset(ps);
		sqlite3_bind_text(ps, 1, kt_json_str(m, "id"), -1,
				  SQLITE_TRANSIENT);
		while (parts && sqlite3_step(ps) == SQLITE_ROW) {
			cJSON *p = row_data(ps, 2, pid, pcol, &nomem);

			if (nomem) {
				cJSON_Delete(m);
				rc = KT_ENOMEM;
				goto out;
			}
			if (p)
				cJSON_AddItemToArray(parts, p);
			else
				bad++;
		}
		cJSON_AddItemToArray(s.msgs, m);
	}
	if (bad)
		kt_imp_warn(imp, f, 0, "session %s: %d message or part rows "
			    "whose data is not a JSON object: skipped", sid, bad);
	rc = emit_session(imp, f, sid, &s);
out:
	sqlite3_finalize(ms);
	sqlite3_finalize(ps);
	cJSON_Delete(s.msgs);
	return rc;
}

static int db_import(kt_imp *imp, const kt_file *f)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	unsigned char *copy;
	int rc = 0, n = 0;

	if (kt_sqlite_load()) {
		kt_imp_warn(imp, f, 0, "cannot read SQLite databases without "
			    "libsqlite3 (%s): file skipped",
			    kt_sqlite_load_error());
		return KT_EPARSE;
	}
	/* SQLite reads the file from memory: the input may be an archive
	 * member, and nothing is written back */
	if (!(copy = sqlite3_malloc64(f->len ? f->len : 1)))
		return KT_ENOMEM;
	memcpy(copy, f->data, f->len);
	if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK ||
	    sqlite3_deserialize(db, "main", copy, (sqlite3_int64)f->len,
				(sqlite3_int64)f->len,
				SQLITE_DESERIALIZE_FREEONCLOSE |
				SQLITE_DESERIALIZE_READONLY) != SQLITE_OK) {
		kt_imp_warn(imp, f, 0, "not a readable SQLite database: file "
			    "skipped");
		sqlite3_close(db);
		return KT_EPARSE;
	}
	/* the file is untrusted: no writes through a corrupt schema */
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	if (sqlite3_prepare_v2(db, "SELECT id, title, directory, parent_id, "
			       "version, time_created FROM session ORDER BY "
			       "time_created, id", -1, &st, NULL) != SQLITE_OK) {
		kt_imp_warn(imp, f, 0, "no OpenCode session table: %s: file "
			    "skipped", sqlite3_errmsg(db));
		sqlite3_close(db);
		return KT_EPARSE;
	}
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		static const char *const k[] = { "id", "title", "directory",
						 "parentID", "version", NULL };
		cJSON *info = cJSON_CreateObject();

		if (!info) {
			rc = KT_ENOMEM;
			break;
		}
		for (int i = 0; k[i]; i++)
			if (sqlite3_column_text(st, i))
				cJSON_AddStringToObject(info, k[i], (const char *)
					sqlite3_column_text(st, i));
		if (kt_json_str(info, "id")) {
			rc = db_session(imp, f, db, kt_json_str(info, "id"), info);
			n++;
		}
		cJSON_Delete(info);
	}
	if (!rc && !n)
		kt_imp_warn(imp, f, 0, "no sessions in the database");
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc;
}

static int oc_import(kt_imp *imp, const kt_file *f)
{
	cJSON *doc;
	int rc;

	if (f->len >= 16 && !memcmp(f->data, SQLITE_MAGIC, 15))
		return db_import(imp, f);
	if (!(doc = kt_impx_parse(imp, f)))
		return KT_EPARSE;
	rc = tree_import(imp, f, doc);
	cJSON_Delete(doc);
	return rc;
}

const kt_importer kt_importer_opencode = {
	.name = "opencode",
	.summary = "OpenCode sessions: storage/ JSON tree or opencode.db",
	.detect = oc_detect,
	.import = oc_import,
};
