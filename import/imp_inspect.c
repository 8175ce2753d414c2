/*
 * imp_inspect.c - UK AISI Inspect AI evaluation logs.
 *
 * Format: https://inspect.aisi.org.uk/eval-logs.html and the log schema in
 * UKGovernmentBEIS/inspect_ai src/inspect_ai/log/_log.py (EvalLog,
 * EvalSample, ChatMessage*, events in log/_transcript.py); our notes in
 * ../shared/research/formats.md section 6.
 *
 * Two containers:
 *  - a monolithic ".json" log: {version, status, eval{...}, plan, results,
 *    stats, samples[...]};
 *  - a ".eval" zip, which the driver opens as an archive root: header.json
 *    (the log without samples), samples/<id>_epoch_<n>.json (one EvalSample
 *    each), summaries.json, reductions.json and _journal/... .  Whichever
 *    member the driver hands us first, we read header.json and every sample
 *    through kt_imp_open and claim all members, so the archive is imported
 *    once.  An archive that only has _journal/ (a run still in progress)
 *    gives no run and one warning.
 *
 * One run per sample and epoch; identity
 *   "inspect:<eval_id>:<sample id>:<epoch>"
 * where eval_id falls back to "<run_id>/<task_id>" (logs before eval_id
 * existed) and then to the file's hash.
 *
 * Indirection resolved before anything is emitted (formats.md 6, pitfall 1):
 *  - "attachment://<md5>" strings anywhere in the sample are replaced by
 *    sample.attachments[<md5>];
 *  - format v3 model events carry input=[] and input_refs=[[start,end),...]
 *    ranges into sample.message_pool; the ranges are expanded back into
 *    input.
 *
 * The conversation comes from sample.messages (the final state).  When a
 * sample has none, the input of its last model event plus that event's
 * output is used, and failing that sample.input plus sample.output.  Events
 * only supply timestamps and token usage: a message's time is the time of
 * the model event that produced it (by message id, else by order), a tool
 * result's time is its tool event's completion, input messages get the
 * sample_init time.  Nested sub-agent model calls inside tool events and
 * sandbox exec events are not turned into events (they are tool internals);
 * the exit status of the exec a shell tool ran becomes its result's
 * exit_code and the status of its compile events (link_execs).
 *
 * human:true is set for user messages from the dataset (source "input") and
 * for user messages a person typed at an Inspect input prompt (an `input`
 * event whose text ends with the message); other user messages are written
 * by solvers (e.g. basic_agent's "please proceed") and get actor "system".
 * Shell tools (bash, shell, bash_session) go through kt_shell_classify;
 * text_editor create / str_replace / insert become edits.  Sample scores
 * and errors end the run as one note.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "impx.h"

#define FMT "inspect"

/* ---- detect --------------------------------------------------------------- */

static const char *skip_ws(const kt_file *f)
{
	const char *p = (const char *)f->data, *e = p + f->len;

	if (f->len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
		p += 3;
	while (p < e && isspace((unsigned char)*p))
		p++;
	return p < e ? p : NULL;
}

/* Member path inside an .eval archive (below `prefix`): which part is it? */
enum member { M_NONE, M_HEADER, M_SAMPLE, M_SIDE };

static enum member member_kind(const char *rel)
{
	const char *b = kt_impx_base(rel);

	if (strstr(rel, "samples/") && strstr(b, "_epoch_") &&
	    strstr(b, ".json"))
		return M_SAMPLE;
	if (!strcmp(b, "header.json") || strstr(rel, "_journal/start.json"))
		return M_HEADER;
	if (!strcmp(b, "summaries.json") || !strcmp(b, "reductions.json") ||
	    strstr(rel, "_journal/"))
		return M_SIDE;
	return M_NONE;
}

static int detect(const kt_file *f)
{
	const char *p = skip_ws(f);
	enum member m = member_kind(f->rel ? f->rel : "");
	int score = 0;

	if (!p)
		return 0;
	if (*p == '{') {
		/* EvalLog / header: version + eval{task...} near the top */
		if (kt_impx_has(f, 512, "\"version\"") &&
		    kt_impx_has(f, 1024, "\"eval\"") &&
		    kt_impx_has(f, 8192, "\"task\""))
			score = 90;
		/* EvalSample: id, epoch first, then input/messages */
		else if (kt_impx_has(f, 256, "\"epoch\"") &&
			 kt_impx_has(f, 256, "\"id\"") &&
			 (kt_impx_has(f, 1024, "\"input\"") ||
			  kt_impx_has(f, f->len, "\"messages\"")))
			score = m == M_SAMPLE ? 95 : 60;
	}
	/* summaries/reductions/journal files mean nothing on their own; they
	 * only score inside an archive so the first member of an .eval can
	 * start the whole import */
	if (!score && f->member && m == M_SIDE && (*p == '[' || *p == '{'))
		score = 40;
	return score;
}

/* ---- small maps: id -> struct ent, in a kt_strmap -------------------------- */

struct ent {
	int64_t ts;
	uint64_t seq;
	const cJSON *a, *b;	/* borrowed from the sample tree */
};

/* The entry of key, a new one (ts unknown, the rest zero) when there is
 * none; NULL when key is NULL or memory runs out (the caller then goes
 * without it). */
static struct ent *map_put(kt_strmap *m, const char *key)
{
	void **slot = kt_strmap_slot(m, key, 1);
	struct ent *e;

	if (!slot)
		return NULL;
	if (!*slot) {
		if (!(e = calloc(1, sizeof(*e))))
			return NULL;
		e->ts = KT_TS_UNKNOWN;
		*slot = e;
	}
	return *slot;
}

/* ---- per-sample state ------------------------------------------------------ */

struct ctx {
	kt_imp *imp;
	const kt_file *f;	/* file the sample came from */
	uint64_t rec_len;	/* f->len when f is one sample (a member) */
	const cJSON *eval;	/* eval{} of the log (may be NULL) */
	cJSON *sample;
	kt_strmap msg_ts;	/* message id -> ts, usage (a = usage) */
	kt_strmap calls;	/* tool call id -> seq, a = function name,
				   b = arguments */
	kt_strmap tool_ts;	/* tool call id -> completion ts */
	const cJSON **model_ev;	/* top-level model events, in order */
	size_t n_model;
	const cJSON **inputs;	/* `input` events (a person typed) */
	size_t n_inputs;
	int64_t init_ts;
	cJSON *owned;		/* parsed string arguments (calls.b) */
	size_t n_assist;	/* assistant messages seen (order fallback) */
	int missing_att;
	int rc;
};

/* ---- indirection: message pool and attachments ---------------------------- */

/* Expand v3 input_refs ranges of every object below node (model events,
 * also those nested in tool events) from the pool.  End is exclusive:
 * inspect_ai log/_pool.py stores python slices [start, end). */
static void resolve_pool(struct ctx *c, cJSON *node, const cJSON *pool,
			 int depth)
{
	cJSON *it, *refs, *input = NULL, *r;

	/* the pool itself is not expanded: pool entries that carry
	 * input_refs (hostile input) would copy the pool into itself */
	if (!node || node == pool || depth > 200)
		return;
	if (cJSON_IsObject(node) &&
	    cJSON_IsArray(refs = cJSON_GetObjectItemCaseSensitive(node,
							"input_refs"))) {
		int n = cJSON_GetArraySize(pool), bad = 0;

		input = cJSON_CreateArray();
		if (!input) {
			c->rc = KT_ENOMEM;
			return;
		}
		cJSON_ArrayForEach(r, refs) {
			double s, e;

			if (cJSON_GetArraySize(r) != 2 ||
			    !kt_impx_numv(cJSON_GetArrayItem(r, 0), &s) ||
			    !kt_impx_numv(cJSON_GetArrayItem(r, 1), &e) ||
			    s < 0 || e > n || s > e) {
				bad = 1;
				continue;
			}
			for (int i = (int)s; i < (int)e; i++)
				cJSON_AddItemToArray(input, cJSON_Duplicate(
					cJSON_GetArrayItem(pool, i), 1));
		}
		if (bad)
			kt_imp_warn(c->imp, c->f, 0, "model event input_refs "
				    "outside the message pool (%d messages)",
				    n);
		if (cJSON_GetObjectItemCaseSensitive(node, "input"))
			cJSON_ReplaceItemInObjectCaseSensitive(node, "input",
							       input);
		else
			cJSON_AddItemToObject(node, "input", input);
	}
	/* copies just made from the pool are not expanded again: each level
	 * would multiply them (found by fuzz_inspect: a 2 KB input ran for
	 * minutes) */
	cJSON_ArrayForEach(it, node)
		if ((cJSON_IsObject(it) || cJSON_IsArray(it)) && it != input)
			resolve_pool(c, it, pool, depth + 1);
}

#define ATT "attachment://"

static void resolve_att(struct ctx *c, cJSON *node, const cJSON *att,
			int depth)
{
	cJSON *it, *next;

	if (depth > 200)
		return;
	for (it = node ? node->child : NULL; it; it = next) {
		next = it->next;
		if (cJSON_IsString(it) &&
		    !strncmp(it->valuestring, ATT, sizeof(ATT) - 1)) {
			const char *v = kt_json_str(att, it->valuestring +
						    sizeof(ATT) - 1);
			cJSON *ns;

			if (!v) {
				c->missing_att++;
				continue;
			}
			if (!(ns = cJSON_CreateString(v))) {
				c->rc = KT_ENOMEM;
				return;
			}
			/* ReplaceItemViaPointer keeps no key: give it one */
			if (it->string && !(ns->string = strdup(it->string))) {
				cJSON_Delete(ns);
				c->rc = KT_ENOMEM;
				return;
			}
			cJSON_ReplaceItemViaPointer(node, it, ns);
		} else if (cJSON_IsObject(it) || cJSON_IsArray(it)) {
			/* the attachments table itself stays as it is */
			if (depth == 0 && it->string &&
			    !strcmp(it->string, "attachments"))
				continue;
			resolve_att(c, it, att, depth + 1);
		}
	}
}

/* ---- timing from events ---------------------------------------------------- */

static int64_t ev_ts(const cJSON *e)
{
	int64_t t = kt_impx_ts(kt_json_str(e, "completed"));

	return t != KT_TS_UNKNOWN ? t : kt_impx_ts(kt_json_str(e, "timestamp"));
}

static int push(const cJSON ***v, size_t *n, const cJSON *e)
{
	const cJSON **nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return KT_ENOMEM;
	nv[(*n)++] = e;
	*v = nv;
	return 0;
}

static void link_execs(struct ctx *c, const cJSON *events);

static void index_events(struct ctx *c)
{
	const cJSON *e, *events = cJSON_GetObjectItemCaseSensitive(c->sample,
								   "events");

	cJSON_ArrayForEach(e, events) {
		const char *kind = kt_json_str(e, "event");
		int64_t t = ev_ts(e);
		struct ent *m;

		if (!kind)
			continue;
		if (!strcmp(kind, "sample_init") && c->init_ts == KT_TS_UNKNOWN) {
			c->init_ts = kt_impx_ts(kt_json_str(e, "timestamp"));
		} else if (!strcmp(kind, "model")) {
			const cJSON *out = cJSON_GetObjectItemCaseSensitive(e,
								"output");
			const cJSON *ch = cJSON_GetArrayItem(
				cJSON_GetObjectItemCaseSensitive(out,
							"choices"), 0);
			const cJSON *msg = cJSON_GetObjectItemCaseSensitive(ch,
								"message");

			if (push(&c->model_ev, &c->n_model, e))
				c->rc = KT_ENOMEM;
			if ((m = map_put(&c->msg_ts, kt_json_str(msg, "id")))) {
				m->ts = t;
				m->a = cJSON_GetObjectItemCaseSensitive(out,
								"usage");
			}
		} else if (!strcmp(kind, "tool")) {
			if ((m = map_put(&c->tool_ts, kt_json_str(e, "id"))))
				m->ts = t;
		} else if (!strcmp(kind, "input")) {
			if (push(&c->inputs, &c->n_inputs, e))
				c->rc = KT_ENOMEM;
		}
	}
	link_execs(c, events);
}

/* ---- exit codes of shell tools ---------------------------------------------
 * A tool's result message has no exit status; the sandbox `exec` event the
 * tool ran has it (`result`).  Inspect opens a span of type "tool" (name =
 * the function, parent = the tool event's span) around each tool call and
 * logs the exec with that span's id; newer logs may nest the exec in the
 * tool event's own `events`.  The exec whose command line contains the
 * tool's command wins, else the last one (a tool may run a version check
 * first).  Exit codes go only to shell tools (shell_cmd); other tools run
 * helper processes whose status says nothing about the call. */
static const char *shell_cmd(const char *fn, const cJSON *args);

static const cJSON *pick_exec(const cJSON *const *ev, size_t n, size_t from,
			      const char *span, const cJSON *nested,
			      const char *cmd)
{
	const cJSON *best = NULL, *e;
	int best_match = 0;

	for (size_t i = from; i <= n; i++) {
		const char *k, *ecmd;
		int match;

		if (i == n) {
			/* then the exec events nested in the tool event */
			if (!nested)
				break;
			e = nested;
			nested = nested->next;
			i--;
		} else {
			e = ev[i];
			if (!span || !kt_json_str(e, "span_id") ||
			    strcmp(kt_json_str(e, "span_id"), span))
				continue;
		}
		k = kt_json_str(e, "event");
		if (!k || strcmp(k, "sandbox") ||
		    !kt_json_str(e, "action") ||
		    strcmp(kt_json_str(e, "action"), "exec") ||
		    !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(e,
								     "result")))
			continue;
		ecmd = kt_json_str(e, "cmd");
		match = cmd && *cmd && ecmd && strstr(ecmd, cmd);
		if (match || !best_match) {
			best = e;
			best_match = match;
		}
	}
	return best;
}

static void link_execs(struct ctx *c, const cJSON *events)
{
	const cJSON **ev = NULL, *e;
	size_t n = 0, i;
	char *used = NULL;

	n = (size_t)cJSON_GetArraySize(events);
	if (!n || !(ev = malloc(n * sizeof(*ev))) || !(used = calloc(n, 1)))
		goto out;
	i = 0;
	cJSON_ArrayForEach(e, events)
		ev[i++] = e;
	for (i = 0; i < n; i++) {
		const char *k = kt_json_str(ev[i], "event"), *fn, *cmd, *sp;
		const char *tspan = NULL;
		const cJSON *args, *x;
		struct ent *m;
		size_t from = n;

		if (!k || strcmp(k, "tool"))
			continue;
		fn = kt_json_str(ev[i], "function");
		args = cJSON_GetObjectItemCaseSensitive(ev[i], "arguments");
		if (!(cmd = shell_cmd(fn, args)))
			continue;
		sp = kt_json_str(ev[i], "span_id");
		/* the tool span: a span_begin next to the tool event */
		for (size_t d = 1; d <= 3 && !tspan; d++) {
			for (int side = -1; side <= 1 && !tspan; side += 2) {
				size_t j = side < 0 ? i - d : i + d;
				const char *t, *nm, *par;

				if ((side < 0 && d > i) || j >= n || used[j])
					continue;
				k = kt_json_str(ev[j], "event");
				t = kt_json_str(ev[j], "type");
				nm = kt_json_str(ev[j], "name");
				par = kt_json_str(ev[j], "parent_id");
				if (!k || strcmp(k, "span_begin") || !t ||
				    strcmp(t, "tool") || (nm && strcmp(nm, fn)) ||
				    (par && sp && strcmp(par, sp)))
					continue;
				tspan = kt_json_str(ev[j], "id");
				used[j] = 1;
				from = j;
			}
		}
		x = cJSON_GetObjectItemCaseSensitive(ev[i], "events");
		x = pick_exec(ev, n, from, tspan,
			      cJSON_IsArray(x) ? x->child : NULL, cmd);
		if (x && (m = map_put(&c->tool_ts, kt_json_str(ev[i], "id"))))
			m->a = x;
	}
out:
	free(ev);
	free(used);
}

/* Exit status of the shell tool call `call_id`, -1 when unknown. */
static int exit_of(struct ctx *c, const char *call_id)
{
	struct ent *m = kt_strmap_get(&c->tool_ts, call_id);
	double v;

	if (!m || !m->a || !kt_impx_num(m->a, "result", &v) || v < 0 ||
	    v > 255 || v != (int)v)
		return -1;
	return (int)v;
}

/* ---- content ---------------------------------------------------------------- */

static int buf_para(struct kt_buf *b, const char *s)
{
	if (!s || !*s)
		return 0;
	if (b->len && kt_buf_add(b, "\n", 1))
		return KT_ENOMEM;
	return kt_buf_add(b, s, strlen(s));
}

/*
 * Split ChatMessage.content (a string or a list of parts: text, reasoning,
 * image, audio, video, data, ...) into visible text, reasoning text and a
 * list of media kept as blobs (extra.media).
 */
static int split_content(struct ctx *c, const cJSON *content,
			 struct kt_buf *text, struct kt_buf *think,
			 cJSON *extra)
{
	const cJSON *p;
	cJSON *media = NULL;

	if (cJSON_IsString(content))
		return buf_para(text, content->valuestring);
	cJSON_ArrayForEach(p, content) {
		const char *type = kt_json_str(p, "type");

		if (cJSON_IsString(p)) {
			buf_para(text, p->valuestring);
		} else if (!type || !strcmp(type, "text")) {
			buf_para(text, kt_json_str(p, "text"));
		} else if (!strcmp(type, "reasoning")) {
			buf_para(think, kt_json_str(p, "reasoning"));
		} else {
			/* image/audio/video/document: the data (often a
			 * data: URL) goes to a blob, the text gets a marker */
			const char *data = kt_json_str(p, type);
			char hex[KT_HASH_HEX + 1], mark[64];
			cJSON *m = cJSON_CreateObject();

			if (!m)
				return KT_ENOMEM;
			cJSON_AddStringToObject(m, "type", type);
			if (data && kt_imp_blob(c->imp, data, strlen(data),
						NULL, hex) == 0)
				cJSON_AddStringToObject(m, "blob", hex);
			if (kt_json_str(p, "detail"))
				cJSON_AddStringToObject(m, "detail",
						kt_json_str(p, "detail"));
			if (!media && !(media = cJSON_AddArrayToObject(extra,
								"media"))) {
				cJSON_Delete(m);
				return KT_ENOMEM;
			}
			cJSON_AddItemToArray(media, m);
			snprintf(mark, sizeof(mark), "[%s]", type);
			buf_para(text, mark);
		}
	}
	return 0;
}

/* Copy every member of o not named in `known` into extra (created lazily
 * in payload). */
static void keep_unknown(cJSON *payload, const cJSON *o,
			 const char *const *known)
{
	const cJSON *it;
	cJSON *extra = cJSON_GetObjectItemCaseSensitive(payload, "extra");

	cJSON_ArrayForEach(it, o) {
		int k = 0;

		for (const char *const *n = known; *n && !k; n++)
			k = it->string && !strcmp(it->string, *n);
		if (k || !it->string)
			continue;
		if (!extra && !(extra = cJSON_AddObjectToObject(payload,
								 "extra")))
			return;
		cJSON_AddItemToObject(extra, it->string,
				      cJSON_Duplicate(it, 1));
	}
}

static cJSON *usage_of(const cJSON *u)
{
	static const char *const keys[4] = { "input_tokens", "output_tokens",
		"input_tokens_cache_read", "input_tokens_cache_write" };

	/* counts as written: one out of range is left out (store/event_model.h) */
	return kt_impx_usage(u, keys);
}

/* ---- tools ------------------------------------------------------------------ */

static const char *shell_cmd(const char *fn, const cJSON *args)
{
	const char *cmd;

	if (!fn)
		return NULL;
	if (!strcmp(fn, "bash") || !strcmp(fn, "shell") ||
	    !strcmp(fn, "run") || !strcmp(fn, "execute_bash") ||
	    !strcmp(fn, "exec")) {
		if ((cmd = kt_json_str(args, "cmd")) ||
		    (cmd = kt_json_str(args, "command")))
			return cmd;
	}
	if (!strcmp(fn, "bash_session")) {
		const char *act = kt_json_str(args, "action");

		if (!act || !strcmp(act, "type_submit") ||
		    !strcmp(act, "run"))
			return kt_json_str(args, "input");
	}
	return NULL;
}

/* Inspect's text_editor tool (inspect_ai/tool/_tools/_text_editor.py):
 * command create|str_replace|insert|view|undo_edit. */
static int editor_edit(struct ctx *c, const char *fn, const cJSON *args,
		       uint64_t call)
{
	const char *cmd = kt_json_str(args, "command");
	const char *path = kt_json_str(args, "path");

	if (!fn || !cmd || !path ||
	    (strcmp(fn, "text_editor") && strcmp(fn, "str_replace_editor") &&
	     strcmp(fn, "str_replace_based_edit_tool")))
		return 0;
	if (!strcmp(cmd, "create")) {
		const char *t = kt_json_str(args, "file_text");

		return t ? kt_ws_write(c->imp, path, t, strlen(t), call, fn) : 0;
	}
	if (!strcmp(cmd, "str_replace")) {
		const char *o = kt_json_str(args, "old_str");
		const char *n = kt_json_str(args, "new_str");
		int rc;

		if (!o)
			return 0;
		rc = kt_ws_replace(c->imp, path, o, n ? n : "", 0, call, fn);
		return rc == KT_ENOTFOUND ? 0 : rc;
	}
	if (!strcmp(cmd, "insert")) {
		const char *n = kt_json_str(args, "new_str"), *cur, *at;
		size_t len;
		double line;
		struct kt_buf b = { 0 };
		int rc = 0;

		if (!n || !kt_impx_num(args, "insert_line", &line) ||
		    !(cur = kt_ws_get(c->imp, path, &len)))
			return 0;
		/* insert after line `line` (0 = at the top) */
		at = cur;
		for (long i = 0; i < (long)line && at < cur + len; i++) {
			const char *nl = memchr(at, '\n', (size_t)(cur + len -
								   at));
			at = nl ? nl + 1 : cur + len;
		}
		if (kt_buf_add(&b, cur, (size_t)(at - cur)) ||
		    (at > cur && at[-1] != '\n' && kt_buf_add(&b, "\n", 1)) ||
		    kt_buf_add(&b, n, strlen(n)) || kt_buf_add(&b, "\n", 1) ||
		    kt_buf_add(&b, at, (size_t)(cur + len - at)))
			rc = KT_ENOMEM;
		else
			rc = kt_ws_write(c->imp, path, b.s, b.len, call, fn);
		free(b.s);
		return rc;
	}
	return 0;
}

/* ---- messages --------------------------------------------------------------- */

static const char *const msg_known[] = {
	"id", "role", "content", "tool_calls", "tool_call_id", "function",
	"error", "model", NULL
};

/* Was this user message typed at an Inspect input prompt?  Sets *ts. */
static int typed(struct ctx *c, const char *text, int64_t *ts)
{
	size_t n = text ? strlen(text) : 0;

	while (n && isspace((unsigned char)text[n - 1]))
		n--;
	for (size_t i = 0; n && i < c->n_inputs; i++) {
		const char *in = kt_json_str(c->inputs[i], "input");
		size_t m = in ? strlen(in) : 0;

		while (m && isspace((unsigned char)in[m - 1]))
			m--;
		if (m >= n && !memcmp(in + m - n, text, n)) {
			*ts = kt_impx_ts(kt_json_str(c->inputs[i],
						     "timestamp"));
			return 1;
		}
	}
	return 0;
}

static int emit_message(struct ctx *c, const cJSON *m, int *first_user)
{
	const char *role = kt_json_str(m, "role");
	const char *id = kt_json_str(m, "id");
	const char *src = kt_json_str(m, "source");
	struct kt_buf text = { 0 }, think = { 0 };
	cJSON *p = NULL, *extra_tmp = cJSON_CreateObject();
	const cJSON *tc, *tcall;
	struct ent *e;
	int64_t ts = KT_TS_UNKNOWN;
	uint64_t seq = 0;
	int rc = 0, human = 0;
	const char *actor = "system";

	if (!extra_tmp)
		return KT_ENOMEM;
	if (!role) {
		kt_imp_warn(c->imp, c->f, 0, "message without a role: skipped");
		goto out;
	}
	if ((rc = split_content(c, cJSON_GetObjectItemCaseSensitive(m,
						"content"), &text, &think,
				extra_tmp)))
		goto out;
	if (!strcmp(role, "tool")) {
		const char *call_id = kt_json_str(m, "tool_call_id");
		const cJSON *err = cJSON_GetObjectItemCaseSensitive(m, "error");
		struct ent *call = kt_strmap_get(&c->calls, call_id);
		struct ent *tt = kt_strmap_get(&c->tool_ts, call_id);
		const char *fn = kt_json_str(m, "function");
		int ok = !err || cJSON_IsNull(err);
		uint64_t rseq;
		const char *cmd;
		int xc = -1;

		if (!fn && call)
			fn = call->a ? call->a->valuestring : NULL;
		if (tt)
			ts = tt->ts;
		if (!(p = cJSON_CreateObject()))
			goto nomem;
		cJSON_AddStringToObject(p, "call_id", call_id ? call_id : "");
		cJSON_AddBoolToObject(p, "ok", ok);
		if ((rc = kt_impx_text(c->imp, p, "output", "output_blob",
				       text.s, text.len)))
			goto out;
		keep_unknown(p, m, msg_known);
		if (!ok || fn) {
			cJSON *x = cJSON_GetObjectItemCaseSensitive(p, "extra");

			if (!x)
				x = cJSON_AddObjectToObject(p, "extra");
			if (!ok)
				cJSON_AddItemToObject(x, "error",
						      cJSON_Duplicate(err, 1));
			if (fn)
				cJSON_AddStringToObject(x, "function", fn);
		}
		cmd = call ? shell_cmd(fn, call->b) : NULL;
		if (cmd && (xc = exit_of(c, call_id)) >= 0)
			cJSON_AddNumberToObject(p, "exit_code", xc);
		rc = kt_impx_emit(c->imp, KT_KIND_TOOL_RESULT,
				  call ? call->seq : 0, ts, "tool", p, c->f, 0,
				  0, c->rec_len, &rseq);
		p = NULL;
		if (rc || !call)
			goto out;
		if (cmd)
			rc = kt_shell_classify(c->imp, call->seq, rseq, cmd,
					       NULL, text.s ? text.s : "", xc,
					       ok && xc <= 0, ts);
		else if (ok)
			rc = editor_edit(c, fn, call->b, call->seq);
		goto out;
	}

	if (!strcmp(role, "assistant")) {
		actor = "agent";
		e = kt_strmap_get(&c->msg_ts, id);
		/* old logs have no message ids: the k-th assistant message
		 * came from the k-th model event */
		if (!e && !id && c->n_assist < c->n_model) {
			const cJSON *me = c->model_ev[c->n_assist];
			const cJSON *out = cJSON_GetObjectItemCaseSensitive(me,
								"output");

			ts = ev_ts(me);
			if (!(p = cJSON_CreateObject()))
				goto nomem;
			cJSON_AddItemToObject(p, "usage", usage_of(
				cJSON_GetObjectItemCaseSensitive(out,
								 "usage")));
		} else if (e) {
			ts = e->ts;
			if (!(p = cJSON_CreateObject()))
				goto nomem;
			cJSON_AddItemToObject(p, "usage", usage_of(e->a));
		}
		c->n_assist++;
	} else if (!strcmp(role, "user")) {
		int64_t t2;

		if ((src && !strcmp(src, "input")) ||
		    (!src && *first_user && c->n_inputs == 0)) {
			human = 1;
			ts = c->init_ts;
		} else if (typed(c, text.s, &t2)) {
			human = 1;
			ts = t2;
		}
		*first_user = 0;
		actor = human ? "human" : "system";
	} else {
		ts = c->init_ts;
	}
	if (!p && !(p = cJSON_CreateObject()))
		goto nomem;
	/* reasoning first: it precedes the visible answer */
	if (think.len) {
		cJSON *q = cJSON_CreateObject();
		cJSON *fl;

		if (!q)
			goto nomem;
		cJSON_AddStringToObject(q, "role", role);
		cJSON_AddBoolToObject(q, "human", 0);
		kt_impx_text(c->imp, q, "text", NULL, think.s, think.len);
		fl = cJSON_AddArrayToObject(q, "flags");
		cJSON_AddItemToArray(fl, cJSON_CreateString("thinking"));
		if (id)
			cJSON_AddStringToObject(q, "msg_id", id);
		if ((rc = kt_impx_emit(c->imp, KT_KIND_MESSAGE, 0, ts, actor,
				       q, c->f, 0, 0, c->rec_len, &seq)))
			goto out;
	}
	tc = cJSON_GetObjectItemCaseSensitive(m, "tool_calls");
	/* an assistant turn that only calls tools has no message of its own */
	if (text.len || !cJSON_GetArraySize(tc) || strcmp(role, "assistant")) {
		cJSON *usage = cJSON_DetachItemFromObject(p, "usage");

		cJSON_AddStringToObject(p, "role", role);
		cJSON_AddBoolToObject(p, "human", human);
		kt_impx_text(c->imp, p, "text", NULL, text.s, text.len);
		if (kt_json_str(m, "model"))
			cJSON_AddStringToObject(p, "model",
						kt_json_str(m, "model"));
		if (usage && cJSON_GetArraySize(usage))
			cJSON_AddItemToObject(p, "usage", usage);
		else
			cJSON_Delete(usage);
		if (id)
			cJSON_AddStringToObject(p, "msg_id", id);
		keep_unknown(p, m, msg_known);
		if (cJSON_GetObjectItemCaseSensitive(extra_tmp, "media")) {
			cJSON *x = cJSON_GetObjectItemCaseSensitive(p, "extra");

			if (!x)
				x = cJSON_AddObjectToObject(p, "extra");
			cJSON_AddItemToObject(x, "media",
				cJSON_DetachItemFromObject(extra_tmp, "media"));
		}
		rc = kt_impx_emit(c->imp, KT_KIND_MESSAGE, 0, ts, actor, p,
				  c->f, 0, 0, c->rec_len, &seq);
		p = NULL;
		if (rc)
			goto out;
	}
	cJSON_ArrayForEach(tcall, tc) {
		const char *cid = kt_json_str(tcall, "id");
		const char *fn = kt_json_str(tcall, "function");
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(tcall,
								"arguments");
		cJSON *q = cJSON_CreateObject(), *a = NULL;
		static const char *const tc_known[] = {
			"id", "function", "arguments", NULL
		};
		uint64_t cseq;

		if (!q)
			goto nomem;
		cJSON_AddStringToObject(q, "tool", fn ? fn : "");
		cJSON_AddStringToObject(q, "call_id", cid ? cid : "");
		/* arguments are an object; some providers leave a JSON
		 * string, kept parsed when it parses (out of memory is
		 * not a string that does not) */
		if (cJSON_IsString(args)) {
			a = kt_cjson_parse(args->valuestring,
					   strlen(args->valuestring), NULL, &rc);
			if (rc == KT_ENOMEM) {
				cJSON_Delete(q);
				goto out;
			}
			rc = 0;
		}
		if (cJSON_IsString(args) && a && cJSON_IsObject(a)) {
			cJSON_AddItemToObject(q, "args", a);
		} else {
			if (cJSON_IsString(args))
				cJSON_Delete(a);
			a = cJSON_IsObject(args) ? cJSON_Duplicate(args, 1) :
				cJSON_CreateObject();
			if (a && args && !cJSON_IsObject(args))
				cJSON_AddItemToObject(a, "_raw",
						      cJSON_Duplicate(args, 1));
			cJSON_AddItemToObject(q, "args", a);
		}
		keep_unknown(q, tcall, tc_known);
		if ((rc = kt_impx_emit(c->imp, KT_KIND_TOOL_CALL, seq, ts,
				       actor, q, c->f, 0, 0, c->rec_len, &cseq)))
			goto out;
		if (cid && (e = map_put(&c->calls, cid))) {
			e->seq = cseq;
			e->a = cJSON_GetObjectItemCaseSensitive(tcall,
								"function");
			e->b = args;
			/* keep string arguments parsed for the tool result */
			if (cJSON_IsString(args) && c->owned) {
				a = kt_cjson_parse(args->valuestring,
						   strlen(args->valuestring),
						   NULL, &rc);
				if (rc == KT_ENOMEM)
					goto out;
				rc = 0;
				if (a) {
					cJSON_AddItemToArray(c->owned, a);
					e->b = a;
				}
			}
		}
	}
	goto out;
nomem:
	rc = KT_ENOMEM;
out:
	cJSON_Delete(p);
	cJSON_Delete(extra_tmp);
	free(text.s);
	free(think.s);
	return rc;
}

/* The messages to import: sample.messages, else the last model call's input
 * and output, else input + output.  Returns a new array (caller frees). */
static cJSON *conversation(struct ctx *c)
{
	const cJSON *msgs = cJSON_GetObjectItemCaseSensitive(c->sample,
							     "messages");
	const cJSON *in, *out, *ch;
	cJSON *conv;

	if (cJSON_GetArraySize(msgs) > 0)
		return cJSON_Duplicate(msgs, 1);
	if (!(conv = cJSON_CreateArray()))
		return NULL;
	if (c->n_model) {
		const cJSON *me = c->model_ev[c->n_model - 1], *m;

		cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(me,
								"input"))
			cJSON_AddItemToArray(conv, cJSON_Duplicate(m, 1));
		out = cJSON_GetObjectItemCaseSensitive(me, "output");
	} else {
		in = cJSON_GetObjectItemCaseSensitive(c->sample, "input");
		if (cJSON_IsString(in)) {
			cJSON *u = cJSON_CreateObject();

			cJSON_AddStringToObject(u, "role", "user");
			cJSON_AddStringToObject(u, "content", in->valuestring);
			cJSON_AddStringToObject(u, "source", "input");
			cJSON_AddItemToArray(conv, u);
		} else if (cJSON_IsArray(in)) {
			const cJSON *m;

			cJSON_ArrayForEach(m, in)
				cJSON_AddItemToArray(conv,
						     cJSON_Duplicate(m, 1));
		}
		out = cJSON_GetObjectItemCaseSensitive(c->sample, "output");
	}
	ch = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(out,
							"choices"), 0);
	if (cJSON_GetObjectItemCaseSensitive(ch, "message"))
		cJSON_AddItemToArray(conv, cJSON_Duplicate(
			cJSON_GetObjectItemCaseSensitive(ch, "message"), 1));
	return conv;
}

/* ---- one sample = one run --------------------------------------------------- */

static void id_text(const cJSON *v, char *out, size_t n)
{
	if (cJSON_IsString(v))
		snprintf(out, n, "%s", v->valuestring);
	else if (cJSON_IsNumber(v))
		snprintf(out, n, "%.17g", v->valuedouble);
	else
		snprintf(out, n, "?");
}

static char *eval_key(const cJSON *eval, const kt_file *f)
{
	const char *eid = kt_json_str(eval, "eval_id");
	const char *rid = kt_json_str(eval, "run_id");
	const char *tid = kt_json_str(eval, "task_id");
	char *k = NULL;

	if (eid && *eid)
		return strdup(eid);
	if (rid && tid)
		return asprintf(&k, "%s/%s", rid, tid) < 0 ? NULL : k;
	return strdup(f->sha_hex);
}

static cJSON *run_meta(const cJSON *log, const cJSON *eval,
		       const cJSON *sample)
{
	cJSON *m = cJSON_CreateObject(), *x;
	static const char *const ek[] = {
		"eval_id", "run_id", "task", "task_id", "created", "model",
		"eval_set_id", NULL
	};
	static const char *const sk[] = {
		"uuid", "target", "scores", "metadata", "model_usage",
		"total_time", "working_time", "error", "limit", NULL
	};

	if (!m)
		return NULL;
	cJSON_AddStringToObject(m, "source", FMT);
	if (kt_json_str(eval, "model"))
		cJSON_AddStringToObject(m, "model", kt_json_str(eval, "model"));
	if (!(x = cJSON_AddObjectToObject(m, "extra")))
		return m;
	for (const char *const *k = ek; *k; k++)
		if (cJSON_GetObjectItemCaseSensitive(eval, *k))
			cJSON_AddItemToObject(x, *k, cJSON_Duplicate(
				cJSON_GetObjectItemCaseSensitive(eval, *k), 1));
	if (cJSON_GetObjectItemCaseSensitive(log, "version"))
		cJSON_AddItemToObject(x, "log_version", cJSON_Duplicate(
			cJSON_GetObjectItemCaseSensitive(log, "version"), 1));
	if (kt_json_str(log, "status"))
		cJSON_AddStringToObject(x, "status", kt_json_str(log, "status"));
	for (const char *const *k = sk; *k; k++)
		if (cJSON_GetObjectItemCaseSensitive(sample, *k))
			cJSON_AddItemToObject(x, *k, cJSON_Duplicate(
				cJSON_GetObjectItemCaseSensitive(sample, *k),
				1));
	return m;
}

static int end_note(struct ctx *c)
{
	const cJSON *scores = cJSON_GetObjectItemCaseSensitive(c->sample,
							       "scores");
	const cJSON *err = cJSON_GetObjectItemCaseSensitive(c->sample, "error");
	const cJSON *s;
	struct kt_buf t = { 0 };
	cJSON *p;
	int rc;

	if (!cJSON_IsObject(scores) && (!err || cJSON_IsNull(err)))
		return 0;
	cJSON_ArrayForEach(s, scores) {
		char line[512], val[128];
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(s, "value");
		char *pv = v ? cJSON_PrintUnformatted(v) : NULL;

		snprintf(val, sizeof(val), "%s", pv ? pv : "null");
		free(pv);
		snprintf(line, sizeof(line), "score %s: %s",
			 s->string ? s->string : "?", val);
		buf_para(&t, line);
	}
	if (err && !cJSON_IsNull(err))
		buf_para(&t, kt_json_str(err, "message") ?
			 kt_json_str(err, "message") : "sample error");
	if (!(p = cJSON_CreateObject())) {
		free(t.s);
		return KT_ENOMEM;
	}
	cJSON_AddStringToObject(p, "text", t.s ? t.s : "");
	if (cJSON_IsObject(scores))
		cJSON_AddItemToObject(p, "scores", cJSON_Duplicate(scores, 1));
	if (err && !cJSON_IsNull(err))
		cJSON_AddItemToObject(p, "error", cJSON_Duplicate(err, 1));
	free(t.s);
	rc = kt_impx_emit(c->imp, KT_KIND_NOTE, 0, KT_TS_UNKNOWN, "system", p,
			  c->f, 0, 0, c->rec_len, NULL);
	return rc;
}

/*
 * Import one EvalSample (owned by the caller; resolved in place).
 * log: the EvalLog or header object (may be NULL).
 */
static int import_sample(kt_imp *imp, const kt_file *f, const cJSON *log,
			 cJSON *sample)
{
	const cJSON *eval = cJSON_GetObjectItemCaseSensitive(log, "eval");
	const cJSON *pool = cJSON_GetObjectItemCaseSensitive(sample,
							     "message_pool");
	const cJSON *att = cJSON_GetObjectItemCaseSensitive(sample,
							    "attachments");
	const char *task = kt_json_str(eval, "task");
	char sid[128], ep[64], *ident = NULL, *name = NULL, *key = NULL;
	struct ctx c;
	cJSON *conv = NULL;
	const cJSON *m;
	int rc = 0, first_user = 1;

	memset(&c, 0, sizeof(c));
	c.imp = imp;
	c.f = f;
	c.eval = eval;
	c.sample = sample;
	c.init_ts = KT_TS_UNKNOWN;
	/* a sample file (.eval member) is the raw record; a monolithic log
	 * has no byte range per sample (cJSON keeps none) */
	if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(log, "samples")))
		c.rec_len = f->len;
	if (!(c.owned = cJSON_CreateArray()))
		return KT_ENOMEM;
	if (!cJSON_IsObject(sample)) {
		cJSON_Delete(c.owned);
		kt_imp_warn(imp, f, 0, "sample is not an object; skipped");
		return 0;
	}
	id_text(cJSON_GetObjectItemCaseSensitive(sample, "id"), sid,
		sizeof(sid));
	id_text(cJSON_GetObjectItemCaseSensitive(sample, "epoch"), ep,
		sizeof(ep));
	if (!cJSON_GetObjectItemCaseSensitive(sample, "epoch"))
		snprintf(ep, sizeof(ep), "1");
	if (!(key = eval_key(eval, f)) ||
	    asprintf(&ident, "inspect:%s:%s:%s", key, sid, ep) < 0 ||
	    asprintf(&name, "%s/%s/e%s", task ? task : "inspect", sid, ep) < 0) {
		ident = name = NULL;
		rc = KT_ENOMEM;
		goto out;
	}
	if (cJSON_IsArray(pool))
		resolve_pool(&c, sample, pool, 0);
	/* without an attachments table every reference is a dangling one */
	resolve_att(&c, sample, cJSON_IsObject(att) ? att : NULL, 0);
	if (c.missing_att)
		kt_imp_warn(imp, f, 0, "sample %s epoch %s: %d attachment:// "
			    "reference(s) not in attachments", sid, ep,
			    c.missing_att);
	if (c.rc) {
		rc = c.rc;
		goto out;
	}
	index_events(&c);
	if ((rc = kt_imp_run_begin(imp, ident, name, FMT,
				   run_meta(log, eval, sample))))
		goto out;
	if (!(conv = conversation(&c))) {
		rc = KT_ENOMEM;
		goto end;
	}
	cJSON_ArrayForEach(m, conv) {
		if (!cJSON_IsObject(m)) {
			kt_imp_warn(imp, f, 0, "sample %s: message is not an "
				    "object; skipped", sid);
			continue;
		}
		if ((rc = emit_message(&c, m, &first_user)))
			goto end;
	}
	rc = end_note(&c);
end:
	rc = kt_imp_run_finish(imp, rc);
out:
	cJSON_Delete(conv);
	cJSON_Delete(c.owned);
	kt_strmap_free(&c.msg_ts, free);
	kt_strmap_free(&c.calls, free);
	kt_strmap_free(&c.tool_ts, free);
	free(c.model_ev);
	free(c.inputs);
	free(ident);
	free(name);
	free(key);
	return rc;
}

/* ---- archives (.eval) -------------------------------------------------------- */

struct members {
	char **rel;
	size_t n;
	const char *prefix;
	size_t plen;
};

static int collect(const char *rel, void *arg)
{
	struct members *ms = arg;
	const char *r = rel + ms->plen;
	char **nv;

	/* only the members an .eval has: header.json, summaries.json,
	 * reductions.json, _journal/..., samples/<one level> */
	if (strchr(r, '/') ? strncmp(r, "_journal/", 9) &&
	    (strncmp(r, "samples/", 8) || strchr(r + 8, '/')) :
	    member_kind(r) == M_NONE)
		return 0;
	if (!(nv = realloc(ms->rel, (ms->n + 1) * sizeof(*nv))))
		return KT_ENOMEM;
	ms->rel = nv;
	if (!(nv[ms->n] = strdup(rel)))
		return KT_ENOMEM;
	ms->n++;
	return 0;
}

/* Natural order: "samples/2_epoch_1.json" before "samples/10_epoch_1.json". */
static int natcmp(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;

	while (*x && *y) {
		if (isdigit((unsigned char)*x) && isdigit((unsigned char)*y)) {
			unsigned long long u = strtoull(x, (char **)&x, 10);
			unsigned long long v = strtoull(y, (char **)&y, 10);

			if (u != v)
				return u < v ? -1 : 1;
		} else if (*x != *y) {
			return (unsigned char)*x - (unsigned char)*y;
		} else {
			x++, y++;
		}
	}
	return (unsigned char)*x - (unsigned char)*y;
}

static int import_archive(kt_imp *imp, const kt_file *f, const char *prefix)
{
	struct members ms = { NULL, 0, prefix, strlen(prefix) };
	const kt_file *hf = NULL, *sf;
	cJSON *header = NULL, *sample;
	char *hrel = NULL;
	size_t nsamples = 0;
	int rc;

	if ((rc = kt_imp_list(imp, prefix, collect, &ms)))
		goto out;
	/* header.json is written at the end; _journal/start.json at the
	 * start (same eval{}), so an unfinished log still has identities */
	if (asprintf(&hrel, "%sheader.json", prefix) >= 0 &&
	    kt_imp_open(imp, hrel, &hf) != 0) {
		free(hrel);
		hrel = NULL;
		if (asprintf(&hrel, "%s_journal/start.json", prefix) < 0 ||
		    kt_imp_open(imp, hrel, &hf) != 0)
			hf = NULL;
	}
	if (hf)
		header = kt_impx_parse(imp, hf);
	if (ms.n > 1) /* ms.rel is NULL in an archive without samples */
		qsort(ms.rel, ms.n, sizeof(*ms.rel), natcmp);
	for (size_t i = 0; i < ms.n; i++) {
		kt_imp_claim(imp, ms.rel[i]);
		if (member_kind(ms.rel[i] + ms.plen) != M_SAMPLE)
			continue;
		if (kt_imp_open(imp, ms.rel[i], &sf) != 0) {
			kt_imp_warn(imp, f, 0, "cannot open member %s",
				    ms.rel[i]);
			continue;
		}
		nsamples++;
		if (!(sample = kt_impx_parse(imp, sf)))
			continue;
		rc = import_sample(imp, sf, header, sample);
		cJSON_Delete(sample);
		if (rc)
			goto out;
	}
	if (!nsamples)
		kt_imp_warn(imp, f, 0, "Inspect log has no samples (an "
			    "unfinished run, or written without samples)");
out:
	cJSON_Delete(header);
	free(hrel);
	for (size_t i = 0; i < ms.n; i++)
		free(ms.rel[i]);
	free(ms.rel);
	return rc;
}

/* ---- entry ------------------------------------------------------------------- */

static int import(kt_imp *imp, const kt_file *f)
{
	const char *rel = f->rel ? f->rel : "";
	enum member mk = member_kind(rel);
	cJSON *root = NULL, *s;
	const cJSON *samples;
	char *prefix = NULL;
	const char *cut = NULL;
	int rc = 0;

	/* the archive prefix: everything before samples/, _journal/ or the
	 * header/summaries/reductions basename */
	if (mk == M_SAMPLE)
		cut = strstr(rel, "samples/");
	else if (strstr(rel, "_journal/"))
		cut = strstr(rel, "_journal/");
	else
		cut = kt_impx_base(rel);
	if (mk == M_HEADER && !strstr(rel, "_journal/")) {
		/* header.json of an .eval, or a monolithic log that happens
		 * to be called so: only the latter has samples[] */
		if (!(root = kt_impx_parse(imp, f)))
			return KT_EPARSE;
		if (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root,
								"samples")))
			mk = M_NONE;
	}
	if (mk != M_NONE) {
		cJSON_Delete(root);
		if (!(prefix = strndup(rel, (size_t)(cut - rel))))
			return KT_ENOMEM;
		rc = import_archive(imp, f, prefix);
		free(prefix);
		return rc;
	}
	if (!root && !(root = kt_impx_parse(imp, f)))
		return KT_EPARSE;
	samples = cJSON_GetObjectItemCaseSensitive(root, "samples");
	if (cJSON_GetObjectItemCaseSensitive(root, "eval") &&
	    cJSON_IsArray(samples)) {
		cJSON_ArrayForEach(s, samples)
			if ((rc = import_sample(imp, f, root, s)))
				break;
		if (!cJSON_GetArraySize(samples))
			kt_imp_warn(imp, f, 0, "Inspect log has no samples");
	} else if (cJSON_GetObjectItemCaseSensitive(root, "eval")) {
		kt_imp_warn(imp, f, 0, "Inspect log has no samples (status %s)",
			    kt_json_str(root, "status") ?
			    kt_json_str(root, "status") : "unknown");
	} else if (cJSON_GetObjectItemCaseSensitive(root, "epoch")) {
		/* a lone sample file outside its archive */
		rc = import_sample(imp, f, NULL, root);
	} else {
		kt_imp_warn(imp, f, 0, "not an Inspect log or sample");
		rc = KT_EPARSE;
	}
	cJSON_Delete(root);
	return rc;
}

const kt_importer kt_importer_inspect = {
	.name = FMT,
	.summary = "Inspect AI eval logs (.json, .eval zip): one run per "
		   "sample and epoch",
	.detect = detect,
	.import = import,
	.flags = KT_IMPF_HARNESS_PROMPTS,
};
