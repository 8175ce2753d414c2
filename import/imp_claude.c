/*
 * imp_claude.c - Claude Code session transcripts (JSONL), 1.x and 2.x.
 *
 * Format: one JSON object per line, ~/.claude/projects/<cwd>/<session>.jsonl;
 * 2.x keeps sub-agents in <session>/subagents/agent-<id>.jsonl.  Field
 * reference: ../shared/research/formats.md section 1, and
 * https://github.com/jeremedia/claude-code-log-format (CLAUDE_CODE_LOG_FORMAT.md,
 * documents 2.0.49), https://github.com/daaain/claude-code-log (test data).
 *
 * Mapping:
 *  - assistant lines: one API response is split over several lines sharing
 *    message.id; they are buffered and emitted together so the usage of the
 *    response (the last line's, output_tokens grows) is counted once, on
 *    the first event of the response.  text -> message, thinking -> message
 *    with flag "thinking", tool_use -> tool_call.
 *  - user lines: tool_result blocks -> tool_result (toolUseResult per tool
 *    seeds the workspace and gives edits), text/images -> message.  human is
 *    true only for typed text: never meta lines, compaction summaries,
 *    command wrappers, interruptions or sub-agent prompts.
 *  - system lines -> message role system; summary lines -> note.
 *  - sub-agents: inline sidechains (isSidechain) are told apart by their
 *    parentUuid chains (a fresh root starts one; its prompt equals the
 *    spawning Task's input.prompt, whose tool_use id names it); 2.x
 *    subagents/ files are imported where their Task result appears (or at
 *    the end).  Every sub-agent event has actor "agent:<id>" and payload
 *    "subagent".
 * Malformed lines are warned as file:line and skipped.  Assistant responses
 * are in imp_claude_asst.c, user, system and summary lines in
 * imp_claude_user.c, the state they share in imp_claude_int.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imp_claude_int.h"
#include "jsonstrict.h"
#include "parse_ahead.h"
#include "ktraj_jsonl.h"

void cc_call_free(void *p)
{
	struct call *c = p;

	free(c->name);
	cJSON_Delete(c->input);
	free(c->cwd);
	free(c->actor);
	free(c->sub);
	free(c);
}

/* ---- helpers --------------------------------------------------------------- */

/* A Claude Code timestamp ("2025-07-17T12:34:56.789Z", offsets too) to
 * ns since the epoch; what follows the time is not looked at.  The epoch
 * itself is no time a session was written: it is what ktraj's claude_code
 * export writes for an event of unknown time (its readers need a
 * timestamp on every line), so it reads back as unknown. */
int64_t cc_iso_ns(const char *s)
{
	const char *end;
	int64_t ns = kt_iso8601_ns(s, &end);

	return ns == 0 ? KT_TS_UNKNOWN : ns;
}

/* Deepest bracket nesting outside strings (only used to explain a parse
 * failure). */
static int max_depth(const char *s, size_t n)
{
	int d = 0, m = 0, in = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (in) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in = 0;
		} else if (c == '"') {
			in = 1;
		} else if (c == '{' || c == '[') {
			if (++d > m)
				m = d;
		} else if (c == '}' || c == ']') {
			d--;
		}
	}
	return m;
}

/* An image's data: base64 in either alphabet, padding and line breaks
 * skipped (NULL when it is not base64 or out of memory). */
unsigned char *cc_b64dec(const char *s, size_t *out)
{
	unsigned char *bin;

	return kt_base64_decode_ex(s, strlen(s), KT_B64_LENIENT, &bin, out) ?
	       NULL : bin;
}

/* payload[key] = s without a copy: a string reference, so s must outlive
 * the payload (strings of the parsed line do: kt_imp_emit prints and frees
 * the payload before it returns; kt_redact_json swaps in owned copies). */
int cc_add_ref(cJSON *p, const char *key, const char *s)
{
	cJSON *v = cJSON_CreateStringReference(s);

	if (!v)
		return KT_ENOMEM;
	cJSON_AddItemToObject(p, key, v);
	return 0;
}

/* Add text to payload[key]: by reference when it fits CC_INLINE_MAX, else
 * a copy cut on a UTF-8 boundary.  *kept: the bytes kept inline. */
static int add_cut(cJSON *p, const char *key, const char *s, size_t n,
		   size_t *kept)
{
	char *cut;

	*kept = n;
	if (n <= CC_INLINE_MAX)
		return cc_add_ref(p, key, s);
	*kept = kt_utf8_floor(s, CC_INLINE_MAX);
	cut = strndup(s, *kept);
	if (!cut)
		return KT_ENOMEM;
	cJSON_AddStringToObject(p, key, cut);
	free(cut);
	return 0;
}

int cc_add_blob(kt_imp *imp, cJSON *p, const char *blob_key, const char *s,
		size_t n)
{
	char hex[KT_HASH_HEX + 1];
	int rc = kt_imp_blob(imp, s, n, NULL, hex);

	if (!rc)
		cJSON_AddStringToObject(p, blob_key, hex);
	return rc;
}

/* Add text to payload[key], cut to CC_INLINE_MAX on a UTF-8 boundary; the
 * whole text goes to a blob named by payload[blob_key] when cut.  s (n
 * bytes, NUL-terminated) must outlive the payload (see add_ref). */
int cc_add_text(kt_imp *imp, cJSON *p, const char *key,
		const char *blob_key, const char *s, size_t n)
{
	size_t kept;
	int rc;

	if ((rc = add_cut(p, key, s, n, &kept)) || kept == n)
		return rc;
	return cc_add_blob(imp, p, blob_key, s, n);
}

int cc_result_head(cJSON *p, const char *call_id, int ok, const char *text,
		   size_t n, size_t *kept)
{
	if (!cJSON_AddStringToObject(p, "call_id", call_id) ||
	    !cJSON_AddBoolToObject(p, "ok", ok))
		return KT_ENOMEM;
	return add_cut(p, "output", text, n, kept);
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
		s++;
	return s;
}

/* Why a user text is not human (flag name), or NULL when a person typed
 * it. */
const char *cc_nonhuman_flag(const cJSON *o, const char *text)
{
	const char *t = skip_ws(text ? text : "");

	if (jtrue(o, "isCompactSummary"))
		return "compact_summary";
	if (jtrue(o, "isMeta") ||
	    !strncmp(t, "Caveat: The messages below were generated by the user while running local commands", 60) ||
	    !strncmp(t, "<system-reminder>", 17))
		return "meta";
	if (!strncmp(t, "<command-", 9) || !strncmp(t, "<local-command-", 15) ||
	    !strncmp(t, "<bash-", 6) || !strncmp(t, "<user-memory-input>", 19))
		return "command";
	if (!strncmp(t, "[Request interrupted by user", 28))
		return "interrupt";
	if (!strncmp(t, "This session is being continued from a previous conversation", 60))
		return "compact_summary";
	if (jtrue(o, "isSidechain"))
		return "subagent_prompt";
	return NULL;
}

/* The text of a user message when it is human, else NULL (pre-scan). */
static char *human_text(const cJSON *o)
{
	const cJSON *m = jget(o, "message"), *c, *b;
	struct kt_buf tb = { 0 };

	if (!cJSON_IsObject(m))
		return NULL;
	c = jget(m, "content");
	if (cJSON_IsString(c)) {
		if (cc_nonhuman_flag(o, c->valuestring))
			return NULL;
		return strdup(c->valuestring);
	}
	if (!cJSON_IsArray(c))
		return NULL;
	cJSON_ArrayForEach(b, c) {
		const char *t = jstr(b, "type");

		if (t && !strcmp(t, "tool_result")) {
			free(tb.s);
			return NULL;
		}
		if (t && !strcmp(t, "text") && jstr(b, "text")) {
			if (tb.len)
				kt_buf_add(&tb, "\n", 1);
			kt_buf_add(&tb, jstr(b, "text"), strlen(jstr(b, "text")));
		}
	}
	if (!tb.s || cc_nonhuman_flag(o, tb.s)) {
		free(tb.s);
		return NULL;
	}
	return tb.s;
}

/* The first line of text; the driver cuts it to a name's length after
 * redaction (a secret cut first would survive it). */
static char *name_from(const char *text)
{
	const char *t = skip_ws(text);

	return strndup(t, strcspn(t, "\n\r"));
}

/* ---- line iteration ----------------------------------------------------- */

typedef int (*line_fn)(struct cc *cc, const kt_file *f, const char *s,
		       size_t n, uint64_t line, uint64_t off, void *arg);

static int each_line(struct cc *cc, const kt_file *f, line_fn fn, void *arg,
		     uint64_t max_lines)
{
	const char *d = (const char *)f->data, *end = d + f->len, *p = d;
	uint64_t line = 0, last_prog = 0;
	int rc = 0;

	while (p < end && !rc) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		line++;
		if (max_lines && line > max_lines)
			break;
		if (n && p[n - 1] == '\r')
			n--;
		rc = fn(cc, f, p, n, line, (uint64_t)(p - d), arg);
		p = nl ? nl + 1 : end;
		if (cc && f == cc->f && (uint64_t)(p - d) - last_prog > (8u << 20)) {
			last_prog = (uint64_t)(p - d);
			kt_imp_progress(cc->imp, last_prog);
		}
	}
	return rc;
}

static cJSON *parse_line(struct cc *cc, const kt_file *f, const char *s,
			 size_t n, uint64_t line);

/*
 * A line with bytes that are not UTF-8 (a tool's binary output pasted in
 * a text field, a write cut inside a character), parsed with each
 * maximal invalid sequence replaced by U+FFFD, as an escaped lone
 * surrogate is (Unicode 15.0 section 3.9 "U+FFFD Substitution of Maximal
 * Subparts"; here each byte kt_utf8_seq refuses is one subpart): the line
 * is kept, and one warning per file says so, naming the first line
 * and byte.
 */
static cJSON *parse_repaired(struct cc *cc, const kt_file *f, const char *s,
			     size_t n, uint64_t line)
{
	size_t i = 0, o, first;
	char *fx;
	cJSON *obj;

	/* the copy is not the file's start, where alone a byte order mark
	 * is taken (strict_flags): one opening the file is left out of it,
	 * else the line was refused for its mark instead of repaired */
	if (f && s == (const char *)f->data && n >= 3 &&
	    !memcmp(s, "\xef\xbb\xbf", 3))
		i = 3;
	if (!(fx = kt_utf8_fix(s + i, n - i, 0, &o, &first))) {
		kt_imp_fail(cc->imp, KT_ENOMEM);
		return NULL;
	}
	first += i;
	obj = parse_line(cc, f, fx, o, line);
	free(fx);
	if (obj && cc->utf8_warned != f) {
		cc->utf8_warned = f;
		kt_imp_warn(cc->imp, f, line,
			    "invalid UTF-8 at byte %zu: replaced by U+FFFD "
			    "(said once per file)", first);
	}
	return obj;
}

/* Parse one line; warns and returns NULL when it is not a usable object. */
static cJSON *parse_line(struct cc *cc, const kt_file *f, const char *s,
			 size_t n, uint64_t line)
{
	const char *end = NULL;
	cJSON *o;
	size_t i;
	int prc;

	for (i = 0; i < n && (s[i] == ' ' || s[i] == '\t'); i++)
		;
	if (i == n)
		return NULL; /* blank */
	if (n > CC_MAX_LINE) {
		kt_imp_warn(cc->imp, f, line,
			    "line of %zu bytes is over the 100 MB limit: skipped", n);
		return NULL;
	}
	/* UTF-8 is checked with the strict JSON check below, in its pass
	 * (kt_imp_json_strict_utf8), or here when cJSON refuses the line */
	o = kt_cjson_parse(s, n, &end, &prc);
	/* out of memory: the import fails, the line is not bad */
	if (!o && prc == KT_ENOMEM) {
		kt_imp_fail(cc->imp, prc);
		return NULL;
	}
	if (!o && !kt_utf8_valid(s, n, NULL))
		return parse_repaired(cc, f, s, n, line);
	if (!o) {
		/* Node writes a string cut inside a surrogate pair as a
		 * lone \ud83d: keep the line, with U+FFFD for the half */
		size_t at = 0;
		char *fx = kt_json_fix_surrogates(s, n, &at);

		if (fx) {
			o = kt_cjson_parse(fx, n, &end, &prc);
			if (!o && prc == KT_ENOMEM) {
				free(fx);
				kt_imp_fail(cc->imp, prc);
				return NULL;
			}
			if (o && kt_imp_json_strict(cc->imp, f, line, fx, n,
						    &o)) {
				free(fx);
				return NULL;    /* warned */
			}
			free(fx);
			if (o) {
				kt_imp_warn(cc->imp, f, line,
					    "unpaired UTF-16 surrogate escape at byte %zu: replaced by U+FFFD",
					    at);
				goto parsed;
			}
		}
		if (kt_imp_json_bom(cc->imp, f, line, s, n))
			return NULL;    /* warned, as every importer does */
		if (max_depth(s, n) >= CJSON_NESTING_LIMIT)
			kt_imp_warn(cc->imp, f, line,
				    "JSON nested deeper than %d levels: line skipped",
				    CJSON_NESTING_LIMIT);
		else    /* truncated or what RFC 8259 refuses, as every
			 * importer says it */
			kt_imp_json_bad(cc->imp, f, line, s, n);
		return NULL;
	}
	switch (kt_imp_json_strict_utf8(cc->imp, f, line, s, n, &o)) {
	case 0:
		break;
	case -1:
		return parse_repaired(cc, f, s, n, line);
	default:
		return NULL;    /* warned */
	}
parsed:
	if (!cJSON_IsObject(o)) {
		kt_imp_warn(cc->imp, f, line, "not a JSON object: line skipped");
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* ---- detection ------------------------------------------------------------ */

static int cc_detect(const kt_file *f)
{
	const char *d = (const char *)f->data;
	size_t n = f->len < 65536 ? f->len : 65536, i = 0;
	const char *nl;
	size_t ln;
	int score = 0;

	while (i < n && (d[i] == ' ' || d[i] == '\n' || d[i] == '\r' ||
			 d[i] == '\t'))
		i++;
	if (i >= n || d[i] != '{')
		return 0;
	nl = memchr(d + i, '\n', n - i);
	ln = nl ? (size_t)(nl - (d + i)) : n - i;
	/* look at the first line (or the first 64 KiB of it) */
	{
		char *tmp = strndup(d + i, ln < n ? ln : n);

		if (!tmp)
			return 0;
		if (strstr(tmp, "\"sessionId\"") &&
		    (strstr(tmp, "\"parentUuid\"") || strstr(tmp, "\"isSidechain\"") ||
		     strstr(tmp, "\"userType\"")))
			score = 90;
		else if (strstr(tmp, "\"type\"") && strstr(tmp, "\"leafUuid\""))
			score = 80;
		else if (strstr(tmp, "\"parentUuid\"") && strstr(tmp, "\"uuid\"") &&
			 strstr(tmp, "\"type\""))
			score = 60;
		else if (strstr(tmp, "\"message\"") &&
			 (strstr(tmp, "\"type\":\"user\"") ||
			  strstr(tmp, "\"type\": \"user\"") ||
			  strstr(tmp, "\"type\":\"assistant\"") ||
			  strstr(tmp, "\"type\": \"assistant\"")))
			score = 40; /* a bare-bones line of the same shape */
		free(tmp);
	}
	if (!score && strstr(f->rel ? f->rel : "", ".jsonl")) {
		/* 2.x may open with bookkeeping lines (file-history-snapshot,
		 * queue-operation) that can be large: look further */
		size_t m = f->len < (1u << 20) ? f->len : (1u << 20);

		if (memmem(d, m, "\"sessionId\"", 11) &&
		    memmem(d, m, "\"parentUuid\"", 12))
			score = 50;
	}
	return score;
}

/* ---- run --------------------------------------------------------------- */

int cc_ensure_run(struct cc *cc, const char *human)
{
	int rc;
	char *nm = NULL;

	if (cc->begun)
		return 0;
	if (!cc->name && human)
		nm = name_from(human);
	rc = kt_imp_run_begin(cc->imp, cc->identity,
			      cc->name ? cc->name : nm && *nm ? nm : cc->stem,
			      "claude_code", cc->meta);
	cc->meta = NULL;
	free(nm);
	cc->begun = 1;
	/* a session grows by appending: its lines imported before come
	 * back as they were, and an earlier line that changed (a message
	 * edited in the file, another version of the session) is said, not
	 * taken for the same history */
	if (!rc)
		kt_imp_check_reemit(cc->imp);
	return rc;
}

/*
 * The fields this importer reads from a line (or knowingly leaves to the
 * run: sessionId, cwd, version, gitBranch), at the top, in "message" and
 * in its "usage".  Any other field a line has (userType, requestId,
 * entrypoint, stop_reason, service_tier, Claude Code 2.x's usage
 * iterations, speed, inference_geo, ...) is kept by unknown_fields.
 */
static const char *const top_known[] = {
	"agentId", "compactMetadata", "content", "cwd", "gitBranch",
	"isCompactSummary", "isMeta", "isSidechain", "leafUuid", "level",
	"logicalParentUuid", "message", "parentUuid", "sessionId", "subtype",
	"summary", "timestamp", "toolUseResult", "type", "uuid", "version",
	NULL
};
static const char *const msg_known[] = {
	"content", "id", "model", "role", "type", "usage", NULL
};
static const char *const usage_known[] = {
	"cache_creation_input_tokens", "cache_read_input_tokens",
	"input_tokens", "output_tokens", NULL
};

static int known(const char *const *names, const char *k)
{
	/* the first byte before the call: a line's members against 21
	 * names was ~1.5 % of a Claude Code import in strcmp alone */
	for (; *names; names++)
		if (**names == *k && !strcmp(*names, k))
			return 1;
	return 0;
}

/* Copies of the members of o whose names are not in names into *into
 * (created on the first); 0 or KT_ENOMEM. */
static int copy_unknown(const cJSON *o, const char *const *names,
			cJSON **into)
{
	const cJSON *it;
	cJSON *c;

	cJSON_ArrayForEach(it, o) {
		if (!it->string || known(names, it->string))
			continue;
		if (!*into && !(*into = cJSON_CreateObject()))
			return KT_ENOMEM;
		if (!(c = cJSON_Duplicate(it, 1)) ||
		    !cJSON_AddItemToObject(*into, it->string, c)) {
			cJSON_Delete(c);
			return KT_ENOMEM;
		}
	}
	return 0;
}

/*
 * The fields of line o this importer does not read, so that nothing the
 * source said is lost: {"top": {...}, "message": {...}, "usage": {...}}
 * with the parts that have any, or NULL (none, or out of memory: *rc).
 */
static cJSON *unknown_fields(const cJSON *o, int *rc)
{
	cJSON *u = NULL, *top = NULL, *msg = NULL, *use = NULL;
	const cJSON *m = jget(o, "message");
	const cJSON *us = cJSON_IsObject(m) ? jget(m, "usage") : NULL;

	*rc = copy_unknown(o, top_known, &top);
	if (!*rc && cJSON_IsObject(m))
		*rc = copy_unknown(m, msg_known, &msg);
	if (!*rc && cJSON_IsObject(us))
		*rc = copy_unknown(us, usage_known, &use);
	if (!*rc && (top || msg || use) && !(u = cJSON_CreateObject()))
		*rc = KT_ENOMEM;
	if (*rc) {
		cJSON_Delete(top);
		cJSON_Delete(msg);
		cJSON_Delete(use);
		return NULL;
	}
	if (top)
		cJSON_AddItemToObject(u, "top", top);
	if (msg)
		cJSON_AddItemToObject(u, "message", msg);
	if (use)
		cJSON_AddItemToObject(u, "usage", use);
	return u;
}

int cc_emit(struct cc *cc, const struct pline *pl, int kind,
		uint64_t parent, int64_t ts, const char *actor, cJSON *payload,
		uint64_t *seq)
{
	int rc = cc_ensure_run(cc, NULL);

	/* the first event of a line keeps the fields of the line nobody
	 * read, in extra.unknown (a line of several events: once) */
	if ((!rc || rc == KT_EEXIST) &&
	    (cc->kept_f != pl->f || cc->kept_line != pl->line)) {
		int urc;
		cJSON *u = unknown_fields(pl->o, &urc), *x;

		cc->kept_f = pl->f;
		cc->kept_line = pl->line;
		if (urc) {
			cJSON_Delete(payload);
			return urc;
		}
		if (u) {
			x = cJSON_GetObjectItemCaseSensitive(payload, "extra");
			if (!x)
				x = cJSON_AddObjectToObject(payload, "extra");
			if (!cJSON_IsObject(x) ||
			    !cJSON_AddItemToObject(x, "unknown", u)) {
				cJSON_Delete(u);
				cJSON_Delete(payload);
				return KT_ENOMEM;
			}
		}
	}

	if (rc && rc != KT_EEXIST) {
		cJSON_Delete(payload);
		return rc;
	}
	return kt_impx_emit(cc->imp, kind, parent, ts, actor, payload, pl->f,
			    pl->line, pl->off, pl->len, seq);
}

/* ---- sub-agents ------------------------------------------------------------ */

/* The sub-agent a line belongs to (NULL = main thread); owned by cc. */
const char *cc_line_agent(struct cc *cc, const cJSON *o,
			      const struct pline *pl)
{
	const char *aid = jstr(o, "agentId"), *uuid = jstr(o, "uuid");
	const char *par = jstr(o, "parentUuid");
	const char *id = NULL;
	void **slot;
	char buf[64];

	if (pl->agent)
		return pl->agent;
	if (!jtrue(o, "isSidechain"))
		return NULL;
	if (par)
		id = kt_strmap_get(&cc->side, par);
	if (!id && aid)
		id = aid;
	if (!id) {
		/* a fresh sidechain: its prompt names the Task that spawned
		 * it (formats.md 1: the only link in 1.x) */
		const cJSON *m = jget(o, "message"), *c;

		c = cJSON_IsObject(m) ? jget(m, "content") : NULL;
		if (cJSON_IsString(c))
			id = kt_strmap_get(&cc->tasks, c->valuestring);
		else if (cJSON_IsArray(c) && cJSON_GetArraySize(c) > 0 &&
			 jstr(cJSON_GetArrayItem(c, 0), "text"))
			id = kt_strmap_get(&cc->tasks,
				    jstr(cJSON_GetArrayItem(c, 0), "text"));
		if (!id) {
			snprintf(buf, sizeof(buf), "sidechain-%u", ++cc->nside);
			id = buf;
		}
	}
	/* keep the id alive in the map (values are owned strings) */
	if (uuid && (slot = kt_strmap_slot(&cc->side, uuid, 1))) {
		if (!*slot)
			*slot = strdup(id);
		return *slot;
	}
	slot = kt_strmap_slot(&cc->side, id, 1); /* ids without uuid: key by id */
	if (slot && !*slot)
		*slot = strdup(id);
	return slot ? *slot : NULL;
}

void cc_actor_of(const char *agent, char *buf, size_t n,
		     const char *dflt)
{
	if (agent)
		snprintf(buf, n, "agent:%s", agent);
	else
		snprintf(buf, n, "%s", dflt);
}

static int process_file(struct cc *cc, const kt_file *f, const char *agent);

int cc_run_subfile(struct cc *cc, const char *agent)
{
	size_t i;
	const kt_file *sf;
	int rc;

	for (i = 0; i < cc->nsubs; i++) {
		if (cc->subs[i].done || strcmp(cc->subs[i].agent, agent))
			continue;
		cc->subs[i].done = 1;
		if (cc->depth > 2 || kt_imp_open(cc->imp, cc->subs[i].rel, &sf))
			return 0;
		cc->depth++;
		rc = process_file(cc, sf, cc->subs[i].agent);
		cc->depth--;
		return rc;
	}
	return 0;
}

/* ---- per line ------------------------------------------------------------ */

/* The first line of a uuid: where its bytes are (in the file being read). */
struct uline {
	const kt_file *f;
	const char *s;
	size_t n;
	uint64_t line;
};

/* rc of an operation on the spill file, its cause said when it is the
 * file's (KT_EIO: $TMPDIR full or failing, errno kept by store_spill.c):
 * the import fails and the driver keeps nothing of the file. */
static int spill_rc(struct cc *cc, int rc)
{
	if (rc == KT_EIO)
		kt_imp_note(cc->imp, cc->f, "the temporary file of its ids "
			    "(in $TMPDIR, else /tmp) failed: %s", strerror(errno));
	return rc;
}

/* A spilled uline: where the line is in the session file (cc->f). */
struct uline_rec {
	uint64_t off, n, line;
};

/*
 * A line given twice (same uuid, same bytes: a log concatenated with
 * itself, a line written again) is skipped with a warning; its text would
 * otherwise be a second message (tool calls and results are kept once by
 * id anyway).  Lines that share a uuid but differ are all read.  Only a
 * uuid seen before costs a comparison (hashing every line cost ~10 % of
 * the import); lines of sub-agent files are not compared.  A uuid spilled
 * (cc_ids_settle) is compared with its line read again from the file.
 * Returns 0 (new), 1 (a repeat: warned, skip it) or an error
 * (KT_ENOMEM, cc_ids_settle's, kt_spill_get's).
 */
static int seen_line(struct cc *cc, const kt_file *f, const cJSON *o,
		     const char *s, size_t n, uint64_t line)
{
	const char *uuid = jstr(o, "uuid");
	struct uline *u, spilled;
	struct uline_rec r;
	void **slot;
	int rc;

	/* the session file stays mapped while cc reads it; sub-agent files
	 * come and go */
	if (!uuid || f != cc->f)
		return 0;
	slot = kt_strmap_slot(&cc->lines, uuid, 0);
	u = slot ? *slot : NULL;
	if (!slot && cc->spill) {
		rc = kt_spill_get(cc->spill, CC_SET_LINES, uuid, &r, sizeof(r),
				  NULL);
		if (rc && rc != KT_ENOTFOUND)
			return spill_rc(cc, rc);
		if (!rc) {
			spilled.f = f;
			spilled.s = (const char *)f->data + r.off;
			spilled.n = (size_t)r.n;
			spilled.line = r.line;
			u = &spilled;
		}
	}
	if (u || slot) {
		if (u && u->f == f && u->n == n && !memcmp(u->s, s, n)) {
			kt_imp_warn(cc->imp, f, line,
				    "repeats line %llu (uuid %.60s): skipped",
				    (unsigned long long)u->line, uuid);
			return 1;
		}
		return 0;
	}
	u = malloc(sizeof(*u));
	slot = u ? kt_strmap_slot(&cc->lines, uuid, 1) : NULL;
	if (!slot) {
		free(u);
		return KT_ENOMEM;
	}
	u->f = f;
	u->s = s;
	u->n = n;
	u->line = line;
	*slot = u;
	return cc_ids_settle(cc, &cc->lines, CC_SET_LINES);
}

int cc_id_known(struct cc *cc, const kt_strmap *m, unsigned set,
		const char *id)
{
	int rc;

	if (kt_strmap_slot((kt_strmap *)m, id, 0))
		return 1;
	if (!cc->spill)
		return 0;
	rc = kt_spill_get(cc->spill, set, id, NULL, 0, NULL);
	return rc == KT_ENOTFOUND ? 0 : rc ? spill_rc(cc, rc) : 1;
}

struct idref {
	const char *key;
	void *val;
};

static int idref_cmp(const void *a, const void *b)
{
	return strcmp(((const struct idref *)a)->key,
		      ((const struct idref *)b)->key);
}

int cc_ids_settle(struct cc *cc, kt_strmap *m, unsigned set)
{
	uint64_t *at = &cc->ids_at[set];
	struct idref *v;
	size_t i, k = 0, keep = 0;
	int rc = 0;

	if (!*at)
		*at = kt_imp_ids(cc->imp);
	if (m->n < *at || cc->no_spill)
		return 0;
	if (!cc->spill && (rc = kt_spill_open(&cc->spill)) == KT_EIO) {
		/* an import needs no writable $TMPDIR: it only loses its
		 * bound on memory */
		kt_imp_note(cc->imp, cc->f, "no temporary file for the ids past "
			    "%llu (%s): they stay in memory",
			    (unsigned long long)*at, strerror(errno));
		cc->no_spill = 1;
		return 0;
	}
	if (rc)
		return rc;
	if (!(v = malloc(m->n * sizeof(*v))))
		return KT_ENOMEM;
	for (i = 0; i < m->cap; i++)
		if (m->keys[i])
			v[k++] = (struct idref){ m->keys[i], m->vals[i] };
	/* in key order, LMDB's puts of one transaction share leaves */
	qsort(v, k, sizeof(*v), idref_cmp);
	for (i = 0; i < k && !rc; i++) {
		struct uline *u = v[i].val;
		struct uline_rec r;

		if (set == CC_SET_CALLS && v[i].val) {
			/* a call waiting for its result keeps its state */
			if (!(v[keep].key = kt_memdupz(v[i].key, strlen(v[i].key))))
				rc = KT_ENOMEM;
			v[keep++].val = v[i].val;
			continue;
		}
		if (set != CC_SET_LINES) {
			rc = kt_spill_put(cc->spill, set, v[i].key, "", 0);
			continue;
		}
		r.off = (uint64_t)(u->s - (const char *)cc->f->data);
		r.n = u->n;
		r.line = u->line;
		rc = kt_spill_put(cc->spill, set, v[i].key, &r, sizeof(r));
	}
	spill_rc(cc, rc);
	if (!rc) {
		kt_strmap_clear(m, set == CC_SET_LINES ? free : NULL);
		/* a call the map cannot take back is dropped (the import
		 * fails with KT_ENOMEM) */
		for (i = 0; i < keep; i++)
			if (rc || (rc = kt_strmap_put(m, v[i].key, v[i].val)))
				cc_call_free(v[i].val);
	}
	for (i = 0; i < keep; i++)
		free((char *)v[i].key);
	free(v);
	/* calls waiting for results stay: spill again only when the set has
	 * grown as much again */
	if (!rc && m->n * 2 > *at)
		*at = m->n * 2;
	return rc;
}

static int on_line(struct cc *cc, const kt_file *f, const char *s, size_t n,
		   uint64_t line, uint64_t off, void *arg)
{
	const char *agent = arg;
	/* a tree parsed ahead is what parse_line gives for the line, which
	 * warns nothing then; the lines it left are parsed (and warned) here */
	cJSON *o = kt_pa_take(cc->pa, off, n);
	const char *type, *mid = NULL;
	struct pline pl;
	const cJSON *m;
	int rc = 0;

	if (!o && !(o = parse_line(cc, f, s, n, line)))
		return 0;
	pl.o = o;
	pl.f = f;
	pl.line = line;
	pl.off = off;
	pl.len = n;
	pl.agent = agent;
	type = jstr(o, "type");
	if (!type) {
		kt_imp_warn(cc->imp, f, line, "no \"type\" string: line skipped");
		cJSON_Delete(o);
		return 0;
	}
	if ((rc = seen_line(cc, f, o, s, n, line)) != 0) {
		cJSON_Delete(o);
		return rc > 0 ? 0 : rc;
	}
	if (!strcmp(type, "assistant")) {
		m = jget(o, "message");
		mid = cJSON_IsObject(m) ? jstr(m, "id") : NULL;
		if (cc->npend && (!mid || !cc->pend_id || strcmp(mid, cc->pend_id)))
			rc = cc_flush_response(cc);
		if (rc) {
			cJSON_Delete(o);
			return rc;
		}
		if (cc->npend == cc->pcap) {
			size_t nc = cc->pcap ? cc->pcap * 2 : 8;
			struct pline *np = realloc(cc->pend, nc * sizeof(*np));

			if (!np) {
				cJSON_Delete(o);
				return KT_ENOMEM;
			}
			cc->pend = np;
			cc->pcap = nc;
		}
		if (!cc->npend && mid)
			cc->pend_id = strdup(mid);
		cc->pend[cc->npend++] = pl;
		if (!mid)
			rc = cc_flush_response(cc);
		return rc;
	}
	if (cc->npend)
		rc = cc_flush_response(cc);
	if (!rc) {
		if (!strcmp(type, "user"))
			rc = cc_handle_user(cc, &pl);
		else if (!strcmp(type, "system"))
			rc = cc_handle_system(cc, &pl);
		else if (!strcmp(type, "summary"))
			rc = cc_handle_summary(cc, &pl);
		/* file-history-snapshot, queue-operation, progress, ...:
		 * bookkeeping of the client, not part of the trajectory */
	}
	cJSON_Delete(o);
	return rc;
}

static int process_file(struct cc *cc, const kt_file *f, const char *agent)
{
	/* a sub-agent's file is walked from inside its parent's walk: the
	 * parent's parse-ahead waits meanwhile, bounded, and is its own */
	struct kt_parse_ahead *outer = cc->pa;
	int rc;

	cc->pa = NULL;
	/* no thread (too small, one CPU, KTRAJ_THREADS=1, none could be
	 * made): every line parsed here, as always */
	if (kt_threads_for(f->len))
		kt_pa_start((const char *)f->data, f->len, &cc->pa);
	rc = each_line(cc, f, on_line, (void *)(uintptr_t)agent, 0);
	kt_pa_stop(cc->pa);
	cc->pa = outer;
	if (!rc && cc->npend)
		rc = cc_flush_response(cc);
	return rc;
}

/* ---- pre-scan: identity, name, meta ---------------------------------- */

struct prescan {
	char *session, *summary, *human, *agent;
	char *cwd, *version, *branch; /* from the line with the session id */
	kt_imp *imp;
};

static int pre_line(struct cc *cc, const kt_file *f, const char *s, size_t n,
		    uint64_t line, uint64_t off, void *arg)
{
	struct prescan *ps = arg;
	cJSON *o;
	int rc;

	(void)cc;
	(void)f;
	(void)line;
	(void)off;
	/* the name comes from the first human text near the top; do not
	 * parse a whole session twice looking for one */
	if (ps->session && (ps->human || line > 200))
		return 1;
	if (!memmem(s, n, "\"sessionId\"", 11) && !memmem(s, n, "\"type\"", 6))
		return 0;
	/* with the session known, only a "user" line can still name the run:
	 * the others (assistant lines, most of a small file) are not parsed
	 * twice.  Unsure (an escape, a damaged line, the first line's BOM):
	 * parsed as before. */
	if (ps->session && s != (const char *)f->data) {
		const char *v;
		size_t vn;

		if (kt_jsonl_top_member(s, s + n, "type", &v, &vn) &&
		    (*v != '"' || (!memchr(v, '\\', vn) &&
				   !(vn == 6 && !memcmp(v, "\"user\"", 6)))))
			return 0;
		/* a tool's result (a "user" line whose content holds a
		 * tool_result part, where Claude Code writes it) never names
		 * the run: human_text gives NULL for it.  `"type":"tool_result"`
		 * with bare quotes is structure, never text inside a string */
		if (memmem(s, n, "\"type\":\"tool_result\"", 20))
			return 0;
	}
	/* names and meta only from lines the import accepts (parse_line) */
	if (!kt_utf8_valid(s, n, NULL))
		return 0;
	o = kt_json_parse(s, n, KT_JSON_NONUL |
			  (s == (const char *)f->data ? KT_JSON_BOM : 0), &rc);
	if (!o && rc == KT_ENOMEM) {
		kt_imp_fail(ps->imp, rc);
		return 1;
	}
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return 0;
	}
	if (!ps->session && jstr(o, "sessionId")) {
		ps->session = strdup(jstr(o, "sessionId"));
		/* a sub-agent's own file starts as its sidechain */
		if (jstr(o, "agentId") && jtrue(o, "isSidechain"))
			ps->agent = strdup(jstr(o, "agentId"));
		if (jstr(o, "cwd"))
			ps->cwd = strdup(jstr(o, "cwd"));
		if (jstr(o, "version"))
			ps->version = strdup(jstr(o, "version"));
		if (jstr(o, "gitBranch"))
			ps->branch = strdup(jstr(o, "gitBranch"));
	}

	if (!ps->human && jstr(o, "type") && !strcmp(jstr(o, "type"), "user"))
		ps->human = human_text(o);
	cJSON_Delete(o);
	return 0;
}

/* The summary of the line holding `at` (a match inside it), or NULL
 * (out of memory: kt_imp_fail too). */
static char *summary_at(struct prescan *ps, const kt_file *f, const char *at)
{
	const char *d = (const char *)f->data, *end = d + f->len, *a = at, *b;
	char *r = NULL;
	cJSON *o;
	int rc;

	while (a > d && a[-1] != '\n')
		a--;
	b = memchr(at, '\n', (size_t)(end - at));
	if (!b)
		b = end;
	/* a line the import skips as invalid UTF-8 names nothing */
	if (!kt_utf8_valid(a, (size_t)(b - a), NULL))
		return NULL;
	o = kt_json_parse(a, (size_t)(b - a),
			  KT_JSON_NONUL | (a == d ? KT_JSON_BOM : 0), &rc);
	if (!o && rc == KT_ENOMEM)
		kt_imp_fail(ps->imp, rc);
	if (cJSON_IsObject(o) && jstr(o, "summary") && *jstr(o, "summary"))
		r = name_from(jstr(o, "summary"));
	cJSON_Delete(o);
	return r;
}

/* The first needle at or after p: read through kt_imp_find, which
 * searches a big file without faulting its pages in (the import pass
 * after this one faults them in once). */
static const char *find_str(struct prescan *ps, const kt_file *f,
			    const char *p, const char *needle)
{
	const char *d = (const char *)f->data;
	int64_t o = kt_imp_find(ps->imp, f, (uint64_t)(p - d), needle,
				strlen(needle));

	return o < 0 ? NULL : d + o;
}

/*
 * The run name from a summary line: the first line with "type":"summary",
 * else the first with "type": "summary".  One pass over the file for
 * "summary" (both spellings end with it) instead of one memmem per
 * spelling: the whole file is scanned when there is no summary.
 */
static void find_summary(const kt_file *f, struct prescan *ps)
{
	static const char pat[] = "\"summary\"";
	const char *d = (const char *)f->data, *end = d + f->len, *p = d, *q;
	const char *first[2] = { NULL, NULL }; /* "type":, "type": */

	while (p < end && (q = find_str(ps, f, p, pat))) {
		p = q + 1;
		if (q - d >= 7 && !memcmp(q - 7, "\"type\":", 7)) {
			if (!first[0])
				first[0] = q;
			break; /* the first spelling wins from here on */
		}
		if (!first[1] && q - d >= 8 && !memcmp(q - 8, "\"type\": ", 8))
			first[1] = q;
	}
	if (first[0])
		ps->summary = summary_at(ps, f, first[0]);
	if (ps->summary)
		return;
	/* the second spelling only after a failed first: it may lie past
	 * where the scan stopped */
	while (!first[1] && p < end && (q = find_str(ps, f, p, pat))) {
		p = q + 1;
		if (q - d >= 8 && !memcmp(q - 8, "\"type\": ", 8))
			first[1] = q;
	}
	if (first[1])
		ps->summary = summary_at(ps, f, first[1]);
}

static char *file_stem(const kt_file *f)
{
	const char *r = f->rel && *f->rel ? f->rel : f->path;
	const char *b = strrchr(r, '/');
	char *s = strdup(b ? b + 1 : r), *dot;

	if (!s)
		return NULL;
	dot = strstr(s, ".jsonl");
	if (dot && dot != s)
		*dot = 0;
	if (!*s || !strcmp(s, "-")) {
		free(s);
		s = strdup("stdin");
	}
	return s;
}

struct sublist {
	struct cc *cc;
	const char *prefix;
	const char *session; /* siblings: only files of this session */
};

static int on_sub(const char *rel, void *arg)
{
	struct sublist *sl = arg;
	struct cc *cc = sl->cc;
	const char *b = rel + strlen(sl->prefix), *e;
	struct subfile *ns;

	if (strchr(b, '/') || !(e = strstr(b, ".jsonl")) || e[6])
		return 0;
	if (sl->session) {
		/* 2.0.x kept agent-<id>.jsonl beside the sessions of a
		 * project: ours when its lines carry our session id */
		const kt_file *sf;
		char pat[600];
		size_t n;
		int l1, l2;

		if (strlen(sl->session) > 500 || kt_imp_open(cc->imp, rel, &sf))
			return 0;
		n = sf->len < 65536 ? sf->len : 65536;
		l1 = snprintf(pat, sizeof(pat), "\"sessionId\":\"%s\"", sl->session);
		if (!memmem(sf->data, n, pat, (size_t)l1)) {
			l2 = snprintf(pat, sizeof(pat), "\"sessionId\": \"%s\"",
				      sl->session);
			if (!memmem(sf->data, n, pat, (size_t)l2))
				return 0;
		}
		b = rel + strlen(sl->prefix) - 6; /* keep "agent-" out */
	}
	ns = realloc(cc->subs, (cc->nsubs + 1) * sizeof(*ns));
	if (!ns)
		return KT_ENOMEM;
	cc->subs = ns;
	if (!strncmp(b, "agent-", 6))
		b += 6;
	ns[cc->nsubs].rel = strdup(rel);
	ns[cc->nsubs].agent = strndup(b, (size_t)(e - b));
	ns[cc->nsubs].done = 0;
	if (!ns[cc->nsubs].rel || !ns[cc->nsubs].agent) {
		free(ns[cc->nsubs].rel);
		free(ns[cc->nsubs].agent);
		return KT_ENOMEM;
	}
	cc->nsubs++;
	return 0;
}

static void side_free(void *p)
{
	free(p);
}

static int cc_import(kt_imp *imp, const kt_file *f)
{
	struct cc cc;
	struct prescan ps;
	char *prefix = NULL;
	const char *rel = f->rel ? f->rel : "";
	size_t i, lr;
	int rc = 0;

	memset(&cc, 0, sizeof(cc));
	memset(&ps, 0, sizeof(ps));
	ps.imp = imp;
	cc.imp = imp;
	cc.f = f;
	cc.stem = file_stem(f);
	each_line(NULL, f, pre_line, &ps, 0);
	find_summary(f, &ps);
	lr = strlen(rel);
	/* A 2.0.x sub-agent file beside its session's file (agent-<id>.jsonl
	 * next to <session>.jsonl) is imported with the session, which
	 * claims it; it makes a run of its own only when named alone. */
	if (ps.agent && ps.session && strlen(ps.session) < 256 &&
	    !(f->root && f->path && !strcmp(f->root, f->path))) {
		const char *sl_ = strrchr(rel, '/');
		size_t dl = sl_ ? (size_t)(sl_ - rel) + 1 : 0;
		char sib[600];
		const kt_file *pf;

		if (dl < 300) {
			memcpy(sib, rel, dl);
			snprintf(sib + dl, sizeof(sib) - dl, "%s.jsonl", ps.session);
			if (strcmp(sib, rel) && kt_imp_open(imp, sib, &pf) == 0)
				goto out;
		}
	}
	/* 2.x sub-agent files beside the session: <stem>/subagents/ */
	if (lr > 6 && !strcmp(rel + lr - 6, ".jsonl") &&
	    !strstr(rel, "/subagents/") &&
	    (prefix = malloc(lr + 16))) {
		struct sublist sl;

		memcpy(prefix, rel, lr - 6);
		strcpy(prefix + lr - 6, "/subagents/");
		sl.cc = &cc;
		sl.prefix = prefix;
		sl.session = NULL;
		kt_imp_list(imp, prefix, on_sub, &sl);
		if (ps.session && !ps.agent) {
			const char *sl_ = strrchr(rel, '/');
			size_t dl = sl_ ? (size_t)(sl_ - rel) + 1 : 0;

			memcpy(prefix, rel, dl);
			strcpy(prefix + dl, "agent-");
			sl.session = ps.session;
			kt_imp_list(imp, prefix, on_sub, &sl);
		}
		for (i = 0; i < cc.nsubs; i++) {
			const kt_file *sf;

			kt_imp_claim(imp, cc.subs[i].rel);
			kt_imp_open(imp, cc.subs[i].rel, &sf);
		}
	}
	{
		size_t n = strlen(ps.session ? ps.session : cc.stem ? cc.stem : "") + 64 +
			(ps.agent ? strlen(ps.agent) : 0);

		cc.identity = malloc(n);
		if (!cc.identity) {
			rc = KT_ENOMEM;
			goto out;
		}
		/* a sub-agent file imported on its own is not its parent */
		if (ps.agent)
			snprintf(cc.identity, n, "claude_code:%s:agent-%s",
				 ps.session ? ps.session : cc.stem, ps.agent);
		else
			snprintf(cc.identity, n, "claude_code:%s",
				 ps.session ? ps.session : cc.stem);
	}
	cc.name = ps.summary ? ps.summary : ps.human ? name_from(ps.human) : NULL;
	if (ps.summary)
		ps.summary = NULL;
	cc.meta = cJSON_CreateObject();
	if (cc.meta) {
		cJSON_AddStringToObject(cc.meta, "format", "claude_code");
		if (ps.session)
			cJSON_AddStringToObject(cc.meta, "session", ps.session);
		if (ps.cwd)
			cJSON_AddStringToObject(cc.meta, "cwd", ps.cwd);
		if (ps.version)
			cJSON_AddStringToObject(cc.meta, "version", ps.version);
		if (ps.branch)
			cJSON_AddStringToObject(cc.meta, "git_branch", ps.branch);
	}
	rc = process_file(&cc, f, NULL);
	for (i = 0; i < cc.nsubs && !rc; i++) {
		if (!cc.subs[i].done)
			rc = cc_run_subfile(&cc, cc.subs[i].agent);
	}
	if (!rc && !cc.begun)
		rc = cc_ensure_run(&cc, NULL); /* an empty session is still a run */
	if (!rc)
		rc = kt_imp_run_end(imp);
out:
	for (i = 0; i < cc.npend; i++)
		cJSON_Delete(cc.pend[i].o);
	free(cc.pend);
	free(cc.pend_id);
	for (i = 0; i < cc.nsubs; i++) {
		free(cc.subs[i].rel);
		free(cc.subs[i].agent);
	}
	free(cc.subs);
	kt_strmap_free(&cc.calls, cc_call_free);
	kt_strmap_free(&cc.seen_res, NULL);
	kt_strmap_free(&cc.usage_done, NULL);
	kt_strmap_free(&cc.side, side_free);
	kt_strmap_free(&cc.tasks, side_free);
	kt_strmap_free(&cc.lines, free);
	kt_spill_close(cc.spill);
	cJSON_Delete(cc.meta);
	free(ps.cwd);
	free(ps.version);
	free(ps.branch);
	free(ps.session);
	free(ps.summary);
	free(ps.human);
	free(ps.agent);
	free(prefix);
	free(cc.identity);
	free(cc.name);
	free(cc.stem);
	return rc;
}

const kt_importer kt_importer_claude_code = {
	.name = "claude_code",
	.summary = "Claude Code session JSONL (1.x and 2.x, with subagents/ files)",
	.detect = cc_detect,
	.import = cc_import,
	.flags = KT_IMPF_LATE_SHA,
};
