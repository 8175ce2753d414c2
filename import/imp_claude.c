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
 * Malformed lines are warned as file:line and skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "impx.h"
#include "jsonstrict.h"
#include "schema.h"

#define CC_MAX_LINE (100u << 20)      /* lines over 100 MB are skipped */
#define CC_INLINE_MAX (64u * 1024u)   /* tool output kept inline */

/* ---- state ----------------------------------------------------------------- */

struct call {
	uint64_t seq;
	char *name;
	cJSON *input;
	char *cwd;
	char *actor;
	char *sub;
	int64_t ts;
};

struct pline {
	cJSON *o;
	const kt_file *f;
	uint64_t line, off, len;
	const char *agent;   /* forced sub-agent (2.x subagent file) */
};

struct subfile {
	char *rel;
	char *agent;
	int done;
};

struct cc {
	kt_imp *imp;
	const kt_file *f;          /* the session file */
	int begun;
	char *identity, *name, *stem;
	cJSON *meta;
	kt_strmap calls;         /* tool_use id -> struct call */
	kt_strmap seen_use;      /* tool_use ids emitted */
	kt_strmap seen_res;      /* tool_result ids emitted */
	kt_strmap usage_done;    /* message ids whose usage is counted */
	kt_strmap side;          /* sidechain uuid -> sub-agent id */
	kt_strmap tasks;         /* Task prompt -> tool_use id */
	kt_strmap lines;         /* uuid -> struct uline of its first line */
	struct pline *pend;
	size_t npend, pcap;
	char *pend_id;
	struct subfile *subs;
	size_t nsubs;
	unsigned nside;
	int depth;                 /* subagent file nesting */
	const kt_file *utf8_warned; /* the file whose repair was warned */
	const kt_file *kept_f;     /* the line whose unknown fields were */
	uint64_t kept_line;        /* kept (unknown_fields) */
};

static void call_free(void *p)
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

/* the string member k of o (kt_json_str; the short name keeps the
 * reading lines short) */
static const char *jstr(const cJSON *o, const char *k)
{
	return kt_json_str(o, k);
}

static int jtrue(const cJSON *o, const char *k)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static const cJSON *jget(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* A Claude Code timestamp ("2025-07-17T12:34:56.789Z", offsets too) to
 * ns since the epoch; what follows the time is not looked at.  The epoch
 * itself is no time a session was written: it is what ktraj's claude_code
 * export writes for an event of unknown time (its readers need a
 * timestamp on every line), so it reads back as unknown. */
static int64_t iso_ns(const char *s)
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
static unsigned char *b64dec(const char *s, size_t *out)
{
	unsigned char *bin;

	return kt_base64_decode_ex(s, strlen(s), KT_B64_LENIENT, &bin, out) ?
	       NULL : bin;
}

/* payload[key] = s without a copy: a string reference, so s must outlive
 * the payload (strings of the parsed line do: kt_imp_emit prints and frees
 * the payload before it returns; kt_redact_json swaps in owned copies). */
static int add_ref(cJSON *p, const char *key, const char *s)
{
	cJSON *v = cJSON_CreateStringReference(s);

	if (!v)
		return KT_ENOMEM;
	cJSON_AddItemToObject(p, key, v);
	return 0;
}

/* Add text to payload[key], cut to CC_INLINE_MAX on a UTF-8 boundary; the
 * whole text goes to a blob named by payload[blob_key] when cut.  s (n
 * bytes, NUL-terminated) must outlive the payload (see add_ref). */
static int add_text(kt_imp *imp, cJSON *p, const char *key,
		    const char *blob_key, const char *s, size_t n)
{
	char hex[KT_HASH_HEX + 1], *cut;
	size_t k;
	int rc;

	if (n <= CC_INLINE_MAX)
		return add_ref(p, key, s);
	rc = kt_imp_blob(imp, s, n, NULL, hex);
	if (rc)
		return rc;
	k = CC_INLINE_MAX;
	while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80)
		k--;
	cut = strndup(s, k);
	if (!cut)
		return KT_ENOMEM;
	cJSON_AddStringToObject(p, key, cut);
	free(cut);
	cJSON_AddStringToObject(p, blob_key, hex);
	return 0;
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
		s++;
	return s;
}

/* Why a user text is not human (flag name), or NULL when a person typed
 * it. */
static const char *nonhuman_flag(const cJSON *o, const char *text)
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
		if (nonhuman_flag(o, c->valuestring))
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
	if (!tb.s || nonhuman_flag(o, tb.s)) {
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
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0, k, bad = 0, first = 0;
	char *fx = malloc(3 * n + 1);
	cJSON *obj;

	if (!fx) {
		kt_imp_warn(cc->imp, f, line, "out of memory: line skipped");
		return NULL;
	}
	while (i < n) {
		k = kt_utf8_seq(p + i, n - i);
		if (k) {
			memcpy(fx + o, p + i, k);
			o += k;
			i += k;
			continue;
		}
		if (!bad++)
			first = i;
		memcpy(fx + o, "\xef\xbf\xbd", 3);
		o += 3;
		i++;
	}
	fx[o] = 0;
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
	o = cJSON_ParseWithLengthOpts(s, n, &end, 0);
	if (!o && !kt_utf8_valid(s, n, NULL))
		return parse_repaired(cc, f, s, n, line);
	if (!o) {
		/* Node writes a string cut inside a surrogate pair as a
		 * lone \ud83d: keep the line, with U+FFFD for the half */
		size_t at = 0;
		char *fx = kt_json_fix_surrogates(s, n, &at);

		if (fx) {
			o = cJSON_ParseWithLengthOpts(fx, n, &end, 0);
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

static int ensure_run(struct cc *cc, const char *human)
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
	for (; *names; names++)
		if (!strcmp(*names, k))
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

static int emit(struct cc *cc, const struct pline *pl, int kind,
		uint64_t parent, int64_t ts, const char *actor, cJSON *payload,
		uint64_t *seq)
{
	kt_ev ev;
	int rc = ensure_run(cc, NULL);

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
	memset(&ev, 0, sizeof(ev));
	ev.kind = kind;
	ev.parent = parent;
	ev.ts_ns = ts;
	ev.actor = actor;
	ev.payload = payload;
	ev.file = pl->f;
	ev.line = pl->line;
	ev.off = pl->off;
	ev.rec_len = pl->len;
	return kt_imp_emit(cc->imp, &ev, seq);
}

/* ---- sub-agents ------------------------------------------------------------ */

/* The sub-agent a line belongs to (NULL = main thread); owned by cc. */
static const char *line_agent(struct cc *cc, const cJSON *o,
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

static void actor_of(const char *agent, char *buf, size_t n,
		     const char *dflt)
{
	if (agent)
		snprintf(buf, n, "agent:%s", agent);
	else
		snprintf(buf, n, "%s", dflt);
}

static int process_file(struct cc *cc, const kt_file *f, const char *agent);

static int run_subfile(struct cc *cc, const char *agent)
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

/* ---- assistant ------------------------------------------------------------ */

static cJSON *usage_json(const cJSON *u)
{
	cJSON *o = cJSON_CreateObject();
	const cJSON *v;

	if (!o)
		return NULL;
	/* counts as written: one out of range is left out (schema.h) */
	v = jget(u, "input_tokens");
	kt_imp_add_count(o, "input", cJSON_IsNumber(v) ? v->valuedouble : 0);
	v = jget(u, "output_tokens");
	kt_imp_add_count(o, "output", cJSON_IsNumber(v) ? v->valuedouble : 0);
	v = jget(u, "cache_read_input_tokens");
	kt_imp_add_count(o, "cache_read", cJSON_IsNumber(v) ? v->valuedouble : 0);
	v = jget(u, "cache_creation_input_tokens");
	kt_imp_add_count(o, "cache_creation", cJSON_IsNumber(v) ? v->valuedouble : 0);
	return o;
}

static int flush_response(struct cc *cc)
{
	const cJSON *usage = NULL;
	const char *mid = cc->pend_id;
	int give_usage = 0, rc = 0;
	size_t i;

	for (i = 0; i < cc->npend; i++) {
		const cJSON *m = jget(cc->pend[i].o, "message");
		const cJSON *u = cJSON_IsObject(m) ? jget(m, "usage") : NULL;

		if (cJSON_IsObject(u))
			usage = u;
	}
	if (usage) {
		if (!mid) {
			give_usage = 1;
		} else if (!kt_strmap_get(&cc->usage_done, mid)) {
			void **s = kt_strmap_slot(&cc->usage_done, mid, 1);

			if (s)
				*s = (void *)1;
			give_usage = 1;
		}
	}
	for (i = 0; i < cc->npend && !rc; i++) {
		struct pline *pl = &cc->pend[i];
		const cJSON *o = pl->o, *m = jget(o, "message"), *c, *b;
		const char *model = cJSON_IsObject(m) ? jstr(m, "model") : NULL;
		const char *agent = line_agent(cc, o, pl);
		int64_t ts = iso_ns(jstr(o, "timestamp"));
		char actor[300];

		actor_of(agent, actor, sizeof(actor), "agent");
		if (!cJSON_IsObject(m)) {
			kt_imp_warn(cc->imp, pl->f, pl->line,
				    "assistant line without a message object: skipped");
			continue;
		}
		c = jget(m, "content");
		if (cJSON_IsString(c)) {
			cJSON *p = cJSON_CreateObject();

			cJSON_AddStringToObject(p, "role", "assistant");
			cJSON_AddBoolToObject(p, "human", 0);
			cJSON_AddStringToObject(p, "text", c->valuestring);
			if (model)
				cJSON_AddStringToObject(p, "model", model);
			if (give_usage) {
				cJSON_AddItemToObject(p, "usage", usage_json(usage));
				give_usage = 0;
			}
			if (agent)
				cJSON_AddStringToObject(p, "subagent", agent);
			if (mid)
				cJSON_AddStringToObject(p, "msg_id", mid);
			rc = emit(cc, pl, KT_KIND_MESSAGE, 0, ts, actor, p, NULL);
			continue;
		}
		if (!cJSON_IsArray(c)) {
			kt_imp_warn(cc->imp, pl->f, pl->line,
				    "assistant message.content is neither a string nor a list: skipped");
			continue;
		}
		cJSON_ArrayForEach(b, c) {
			const char *t = jstr(b, "type");
			cJSON *p;

			if (!cJSON_IsObject(b) || !t) {
				kt_imp_warn(cc->imp, pl->f, pl->line,
					    "content block is not a typed object: skipped");
				continue;
			}
			if (!strcmp(t, "text") || !strcmp(t, "thinking")) {
				const char *txt = jstr(b, !strcmp(t, "text") ?
						       "text" : "thinking");

				if (!txt)
					continue;
				p = cJSON_CreateObject();
				cJSON_AddStringToObject(p, "role", "assistant");
				cJSON_AddBoolToObject(p, "human", 0);
				add_ref(p, "text", txt);
				if (model)
					cJSON_AddStringToObject(p, "model", model);
				if (give_usage) {
					cJSON_AddItemToObject(p, "usage",
							      usage_json(usage));
					give_usage = 0;
				}
				if (agent)
					cJSON_AddStringToObject(p, "subagent", agent);
				if (mid)
					cJSON_AddStringToObject(p, "msg_id", mid);
				if (t[1] == 'h') {
					cJSON *fl = cJSON_AddArrayToObject(p, "flags");

					cJSON_AddItemToArray(fl, cJSON_CreateString("thinking"));
				}
				rc = emit(cc, pl, KT_KIND_MESSAGE, 0, ts, actor, p,
					  NULL);
			} else if (!strcmp(t, "tool_use") ||
				   !strcmp(t, "server_tool_use")) {
				const char *id = jstr(b, "id"), *nm = jstr(b, "name");
				const cJSON *in = jget(b, "input");
				struct call *cl;
				void **slot;
				uint64_t seq = 0;

				if (!id || !nm) {
					kt_imp_warn(cc->imp, pl->f, pl->line,
						    "tool_use without id or name: skipped");
					continue;
				}
				if (kt_strmap_get(&cc->seen_use, id))
					continue; /* the same call written twice */
				slot = kt_strmap_slot(&cc->seen_use, id, 1);
				if (slot)
					*slot = (void *)1;
				cl = calloc(1, sizeof(*cl));
				if (!cl)
					return KT_ENOMEM;
				/* the call keeps its own copy; the payload points
				 * at the parsed input (redaction may rewrite that
				 * in place, never the call's copy) */
				cl->input = cJSON_IsObject(in) ?
					cJSON_Duplicate(in, 1) : cJSON_CreateObject();
				p = cJSON_CreateObject();
				cJSON_AddStringToObject(p, "tool", nm);
				cJSON_AddStringToObject(p, "call_id", id);
				cJSON_AddItemToObject(p, "args", cJSON_IsObject(in) ?
						      cJSON_CreateObjectReference(in->child) :
						      cJSON_CreateObject());
				if (agent)
					cJSON_AddStringToObject(p, "subagent", agent);
				if (give_usage) {
					cJSON_AddItemToObject(p, "usage",
							      usage_json(usage));
					give_usage = 0;
				}
				if (mid)
					cJSON_AddStringToObject(p, "msg_id", mid);
				rc = emit(cc, pl, KT_KIND_TOOL_CALL, 0, ts, actor, p,
					  &seq);
				slot = kt_strmap_slot(&cc->calls, id, 1);
				if (!slot) {
					call_free(cl);
					return KT_ENOMEM;
				}
				if (*slot)
					call_free(*slot);
				*slot = cl;
				cl->seq = seq;
				cl->name = strdup(nm);
				cl->cwd = jstr(o, "cwd") ? strdup(jstr(o, "cwd")) : NULL;
				cl->actor = strdup(actor);
				cl->sub = agent ? strdup(agent) : NULL;
				cl->ts = ts;
				if ((!strcmp(nm, "Task") || !strcmp(nm, "Agent")) &&
				    jstr(cl->input, "prompt") &&
				    (slot = kt_strmap_slot(&cc->tasks,
						    jstr(cl->input, "prompt"), 1)) &&
				    !*slot)
					*slot = strdup(id);
			}
			/* redacted_thinking, tool results of server tools:
			 * nothing a person or the workspace needs */
		}
	}
	for (i = 0; i < cc->npend; i++)
		cJSON_Delete(cc->pend[i].o);
	cc->npend = 0;
	free(cc->pend_id);
	cc->pend_id = NULL;
	return rc;
}

/* ---- tool results ------------------------------------------------------ */

/* Apply (old -> new) once or everywhere to buf; 0 on success. */
static int str_apply(char **buf, size_t *len, const char *o, const char *nw,
		     int all)
{
	size_t lo = strlen(o), ln = strlen(nw), cnt = 0, w = 0;
	const char *s = *buf, *end = s + *len, *p = s, *q;
	char *out;

	if (!lo) {
		if (*len)
			return -1;
		out = strdup(nw);
		if (!out)
			return -1;
		free(*buf);
		*buf = out;
		*len = ln;
		return 0;
	}
	while ((q = memmem(p, (size_t)(end - p), o, lo))) {
		cnt++;
		p = q + lo;
		if (!all)
			break;
	}
	if (!cnt)
		return -1;
	out = malloc(*len + cnt * ln + 1);
	if (!out)
		return -1;
	p = s;
	while (cnt-- && (q = memmem(p, (size_t)(end - p), o, lo))) {
		memcpy(out + w, p, (size_t)(q - p));
		w += (size_t)(q - p);
		memcpy(out + w, nw, ln);
		w += ln;
		p = q + lo;
	}
	memcpy(out + w, p, (size_t)(end - p));
	w += (size_t)(end - p);
	out[w] = 0;
	free(*buf);
	*buf = out;
	*len = w;
	return 0;
}

static char *tool_path(const struct call *cl, const cJSON *tur)
{
	const char *p = cJSON_IsObject(tur) ? jstr(tur, "filePath") : NULL;

	if (!p)
		p = jstr(cl->input, "file_path");
	if (!p)
		p = jstr(cl->input, "path");
	if (!p)
		return NULL;
	return kt_ws_path(cl->cwd, p);
}

/* Seed the workspace from what the result shows (before it is emitted). */
static int observe(struct cc *cc, const struct call *cl, const cJSON *tur,
		   cJSON *payload)
{
	const char *tn = cl->name;
	char *path;
	int rc = 0;

	if (!cJSON_IsObject(tur))
		return 0;
	path = tool_path(cl, tur);
	if (!path)
		return 0;
	if (!strcmp(tn, "Read")) {
		const cJSON *fo = jget(tur, "file");
		const cJSON *sl = jget(fo, "startLine"), *nl = jget(fo, "numLines");
		const cJSON *tl = jget(fo, "totalLines");
		const char *content = jstr(fo, "content");
		int whole;

		whole = content &&
			(!cJSON_IsNumber(sl) || sl->valuedouble <= 1) &&
			(cJSON_IsNumber(nl) && cJSON_IsNumber(tl) ?
			 nl->valuedouble >= tl->valuedouble :
			 !jget(cl->input, "offset") && !jget(cl->input, "limit"));
		if (whole)
			rc = kt_ws_observe(cc->imp, path, content, strlen(content),
					   payload);
	} else if (!strcmp(tn, "Edit") || !strcmp(tn, "MultiEdit") ||
		   !strcmp(tn, "Write")) {
		const char *orig = jstr(tur, "originalFile");

		if (!orig)
			orig = jstr(tur, "originalFileContents");
		if (orig)
			rc = kt_ws_observe(cc->imp, path, orig, strlen(orig),
					   payload);
	}
	free(path);
	return rc;
}

/* The change a successful edit tool made (after its result is emitted). */
static int apply_edit(struct cc *cc, const struct call *cl, const cJSON *tur)
{
	const char *tn = cl->name;
	char *path = tool_path(cl, tur), *buf = NULL;
	const char *cur;
	size_t len = 0;
	int rc = 0;

	if (!path)
		return 0;
	if (!strcmp(tn, "Write")) {
		const char *c = jstr(cl->input, "content");

		if (!c && cJSON_IsObject(tur))
			c = jstr(tur, "content");
		if (c)
			rc = kt_ws_write(cc->imp, path, c, strlen(c), cl->seq,
					 "Write");
		goto out;
	}
	cur = kt_ws_get(cc->imp, path, &len);
	if (cur) {
		buf = malloc(len + 1);
		if (!buf) {
			rc = KT_ENOMEM;
			goto out;
		}
		memcpy(buf, cur, len);
		buf[len] = 0;
	} else {
		buf = strdup("");
		len = 0;
		if (!buf) {
			rc = KT_ENOMEM;
			goto out;
		}
	}
	if (!strcmp(tn, "Edit")) {
		const char *o = jstr(cl->input, "old_string");
		const char *n = jstr(cl->input, "new_string");

		if (!o && cJSON_IsObject(tur))
			o = jstr(tur, "oldString");
		if (!n && cJSON_IsObject(tur))
			n = jstr(tur, "newString");
		if (!o || !n || (!cur && *o) ||
		    str_apply(&buf, &len, o, n,
			      cJSON_IsTrue(jget(cl->input, "replace_all"))))
			goto out; /* content unknown: nothing reliable */
	} else if (!strcmp(tn, "MultiEdit")) {
		const cJSON *edits = jget(cl->input, "edits"), *e;

		if (!cJSON_IsArray(edits) || (!cur && cJSON_GetArraySize(edits) &&
		    jstr(cJSON_GetArrayItem(edits, 0), "old_string") &&
		    *jstr(cJSON_GetArrayItem(edits, 0), "old_string")))
			goto out;
		cJSON_ArrayForEach(e, edits) {
			const char *o = jstr(e, "old_string");
			const char *n = jstr(e, "new_string");

			if (!o || !n || str_apply(&buf, &len, o, n,
				cJSON_IsTrue(jget(e, "replace_all"))))
				goto out;
		}
	} else {
		goto out;
	}
	rc = kt_ws_write(cc->imp, path, buf, len, cl->seq, tn);
out:
	free(buf);
	free(path);
	return rc;
}

/* toolUseResult without what the payload already holds (big copies).  Only
 * the kept members are copied (a Read's whole file is never duplicated just
 * to be deleted); like cJSON_DeleteItemFromObject, only the first member of
 * a dropped name is left out. */
static cJSON *tur_extra(const cJSON *tur)
{
	static const char *const drop[] = {
		"stdout", "stderr", "originalFile", "originalFileContents",
		"content", "structuredPatch", "file", "oldString", "newString",
		"edits", "oldTodos", "newTodos", "results", "filenames", "usage",
		NULL
	};
	unsigned dropped = 0; /* bit i: drop[i] was left out once */
	const cJSON *c;
	cJSON *x = NULL, *d;
	int i;

	if (!cJSON_IsObject(tur))
		return NULL;
	for (c = tur->child; c; c = c->next) {
		for (i = 0; drop[i]; i++)
			if (!(dropped & (1u << i)) && c->string &&
			    !strcmp(c->string, drop[i]))
				break;
		if (drop[i]) {
			dropped |= 1u << i;
			continue;
		}
		if (!x && !(x = cJSON_CreateObject()))
			return NULL;
		d = cJSON_Duplicate(c, 1);
		if (!d) {
			cJSON_Delete(x);
			return NULL;
		}
		cJSON_AddItemToObject(x, c->string ? c->string : "", d);
	}
	return x;
}

static int handle_result(struct cc *cc, const struct pline *pl,
			 const cJSON *b, const char *agent, const char *actor)
{
	const cJSON *o = pl->o, *tur = jget(o, "toolUseResult");
	const char *id = jstr(b, "tool_use_id");
	const cJSON *content = jget(b, "content");
	struct call *cl;
	struct kt_buf out = { 0 };
	const char *text;       /* the output: content itself or out.s */
	size_t tn;
	cJSON *p, *imgs = NULL, *x;
	int ok, rc = 0, exit_code = -1;
	int64_t ts = iso_ns(jstr(o, "timestamp"));
	uint64_t rseq = 0;
	void **slot;
	const char *aid;

	if (!id) {
		kt_imp_warn(cc->imp, pl->f, pl->line,
			    "tool_result without tool_use_id: skipped");
		return 0;
	}
	if (kt_strmap_get(&cc->seen_res, id))
		return 0;
	slot = kt_strmap_slot(&cc->seen_res, id, 1);
	if (slot)
		*slot = (void *)1;
	cl = kt_strmap_get(&cc->calls, id);
	/* a 2.x sub-agent finished: its own file goes before its result */
	aid = jstr(o, "agentId");
	if (!aid && cJSON_IsObject(tur))
		aid = jstr(tur, "agentId");
	if (aid && !agent && cc->nsubs) {
		rc = run_subfile(cc, aid);
		if (rc)
			return rc;
	}
	ok = !cJSON_IsTrue(jget(b, "is_error"));
	if (cJSON_IsObject(tur) && cJSON_IsTrue(jget(tur, "interrupted")))
		ok = 0;
	if (cJSON_IsString(content)) {
		; /* used in place below */
	} else if (cJSON_IsArray(content)) {
		const cJSON *c;

		cJSON_ArrayForEach(c, content) {
			const char *t = jstr(c, "type");

			if (cJSON_IsString(c)) {
				if (out.len)
					kt_buf_add(&out, "\n", 1);
				kt_buf_add(&out, c->valuestring, strlen(c->valuestring));
			} else if (t && !strcmp(t, "text") && jstr(c, "text")) {
				if (out.len)
					kt_buf_add(&out, "\n", 1);
				kt_buf_add(&out, jstr(c, "text"), strlen(jstr(c, "text")));
			} else if (t && !strcmp(t, "image")) {
				const cJSON *src = jget(c, "source");
				const char *data = jstr(src, "data");
				unsigned char *bin;
				size_t bl;
				char hex[KT_HASH_HEX + 1];

				if (!data || !(bin = b64dec(data, &bl)))
					continue;
				rc = kt_imp_blob(cc->imp, bin, bl, NULL, hex);
				free(bin);
				if (rc)
					break;
				if (!imgs)
					imgs = cJSON_CreateArray();
				x = cJSON_CreateObject();
				cJSON_AddStringToObject(x, "blob", hex);
				if (jstr(src, "media_type"))
					cJSON_AddStringToObject(x, "media_type",
								jstr(src, "media_type"));
				cJSON_AddItemToArray(imgs, x);
			}
		}
	}
	if (!out.s && !cJSON_IsString(content))
		kt_buf_add(&out, "", 0);
	text = cJSON_IsString(content) ? content->valuestring : out.s;
	tn = cJSON_IsString(content) ? strlen(text) : out.len;
	p = cJSON_CreateObject();
	if (!p || !text) {
		free(out.s);
		cJSON_Delete(p);
		cJSON_Delete(imgs);
		return KT_ENOMEM;
	}
	cJSON_AddStringToObject(p, "call_id", id);
	cJSON_AddBoolToObject(p, "ok", ok);
	rc = rc ? rc : add_text(cc->imp, p, "output", "output_blob", text, tn);
	if (cl && !strcmp(cl->name, "Bash") && ok) {
		exit_code = 0; /* Claude Code marks a non-zero exit is_error */
		cJSON_AddNumberToObject(p, "exit_code", 0);
	} else if (cl && !strcmp(cl->name, "Bash") &&
		   !strncmp(text, "Exit code ", 10) &&
		   text[10] >= '0' && text[10] <= '9') {
		/* 2.x starts a failed command's result with its status */
		exit_code = atoi(text + 10);
		cJSON_AddNumberToObject(p, "exit_code", exit_code);
	}
	if (imgs)
		cJSON_AddItemToObject(p, "images", imgs);
	if (agent)
		cJSON_AddStringToObject(p, "subagent", agent);
	x = tur_extra(tur);
	if (cJSON_IsString(tur)) {
		x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "toolUseResult", tur->valuestring);
	}
	if (x)
		cJSON_AddItemToObject(p, "extra", x);
	if (cl && ok && !rc)
		rc = observe(cc, cl, tur, p);
	if (rc) {
		cJSON_Delete(p);
		free(out.s);
		return rc;
	}
	rc = emit(cc, pl, KT_KIND_TOOL_RESULT, cl ? cl->seq : 0, ts, actor, p,
		  &rseq);
	if (!rc && cl && ok)
		rc = apply_edit(cc, cl, tur);
	if (!rc && cl && !strcmp(cl->name, "Bash") &&
	    jstr(cl->input, "command"))
		rc = kt_shell_classify(cc->imp, cl->seq, rseq,
				       jstr(cl->input, "command"), cl->cwd,
				       text, exit_code, ok, ts);
	free(out.s);
	return rc;
}

/* ---- user, system, summary ----------------------------------------------- */

static int handle_user(struct cc *cc, const struct pline *pl)
{
	const cJSON *o = pl->o, *m = jget(o, "message"), *c, *b;
	const char *agent = line_agent(cc, o, pl);
	int64_t ts = iso_ns(jstr(o, "timestamp"));
	struct kt_buf tb = { 0 };
	cJSON *imgs = NULL, *p, *fl;
	const char *flag;
	char actor[300];
	int rc = 0, any_text = 0;

	if (!cJSON_IsObject(m)) {
		kt_imp_warn(cc->imp, pl->f, pl->line,
			    "user line: message is not an object: skipped");
		return 0;
	}
	c = jget(m, "content");
	if (cJSON_IsString(c)) {
		kt_buf_add(&tb, c->valuestring, strlen(c->valuestring));
		any_text = 1;
	} else if (cJSON_IsArray(c)) {
		actor_of(agent, actor, sizeof(actor), "tool");
		cJSON_ArrayForEach(b, c) {
			const char *t = jstr(b, "type");

			if (!cJSON_IsObject(b) || !t) {
				kt_imp_warn(cc->imp, pl->f, pl->line,
					    "content block is not a typed object: skipped");
				continue;
			}
			if (!strcmp(t, "tool_result")) {
				rc = handle_result(cc, pl, b, agent, actor);
				if (rc)
					goto out;
			} else if (!strcmp(t, "text") && jstr(b, "text")) {
				if (tb.len)
					kt_buf_add(&tb, "\n", 1);
				kt_buf_add(&tb, jstr(b, "text"), strlen(jstr(b, "text")));
				any_text = 1;
			} else if (!strcmp(t, "image")) {
				const cJSON *src = jget(b, "source");
				const char *data = jstr(src, "data");
				unsigned char *bin;
				size_t bl;
				char hex[KT_HASH_HEX + 1];
				cJSON *x;

				if (!data || !(bin = b64dec(data, &bl))) {
					kt_imp_warn(cc->imp, pl->f, pl->line,
						    "image block without base64 data: skipped");
					continue;
				}
				rc = kt_imp_blob(cc->imp, bin, bl, NULL, hex);
				free(bin);
				if (rc)
					goto out;
				if (!imgs)
					imgs = cJSON_CreateArray();
				x = cJSON_CreateObject();
				cJSON_AddStringToObject(x, "blob", hex);
				if (jstr(src, "media_type"))
					cJSON_AddStringToObject(x, "media_type",
								jstr(src, "media_type"));
				cJSON_AddItemToArray(imgs, x);
				any_text = 1;
			}
		}
	} else {
		kt_imp_warn(cc->imp, pl->f, pl->line,
			    "user line: message.content is %s: skipped",
			    c ? "neither a string nor a list" : "missing");
		return 0;
	}
	if (!any_text)
		goto out;
	if (!tb.s)
		kt_buf_add(&tb, "", 0);
	flag = nonhuman_flag(o, tb.s);
	if (agent && !flag)
		flag = "subagent_prompt";
	if (!flag) {
		rc = ensure_run(cc, tb.s);
		if (rc && rc != KT_EEXIST)
			goto out;
	}
	actor_of(agent, actor, sizeof(actor), flag ? "system" : "human");
	p = cJSON_CreateObject();
	if (!p) {
		rc = KT_ENOMEM;
		goto out;
	}
	cJSON_AddStringToObject(p, "role", "user");
	cJSON_AddBoolToObject(p, "human", !flag);
	rc = add_text(cc->imp, p, "text", "text_blob", tb.s, tb.len);
	if (agent)
		cJSON_AddStringToObject(p, "subagent", agent);
	if (flag) {
		fl = cJSON_AddArrayToObject(p, "flags");
		cJSON_AddItemToArray(fl, cJSON_CreateString(flag));
	}
	if (imgs) {
		cJSON_AddItemToObject(p, "images", imgs);
		imgs = NULL;
	}
	if (jstr(o, "uuid")) {
		cJSON *x = cJSON_AddObjectToObject(p, "extra");

		cJSON_AddStringToObject(x, "uuid", jstr(o, "uuid"));
		if (jstr(o, "parentUuid"))
			cJSON_AddStringToObject(x, "parentUuid", jstr(o, "parentUuid"));
	}
	if (rc) {
		cJSON_Delete(p);
		goto out;
	}
	rc = emit(cc, pl, KT_KIND_MESSAGE, 0, ts, actor, p, NULL);
out:
	cJSON_Delete(imgs);
	free(tb.s);
	return rc;
}

static int handle_system(struct cc *cc, const struct pline *pl)
{
	const cJSON *o = pl->o;
	const char *text = jstr(o, "content"), *sub = jstr(o, "subtype");
	cJSON *p = cJSON_CreateObject(), *x, *fl;
	const cJSON *v;

	if (!p)
		return KT_ENOMEM;
	cJSON_AddStringToObject(p, "role", "system");
	cJSON_AddBoolToObject(p, "human", 0);
	cJSON_AddStringToObject(p, "text", text ? text : "");
	fl = cJSON_AddArrayToObject(p, "flags");
	cJSON_AddItemToArray(fl, cJSON_CreateString(sub ? sub : "system"));
	x = cJSON_AddObjectToObject(p, "extra");
	if (jstr(o, "level"))
		cJSON_AddStringToObject(x, "level", jstr(o, "level"));
	if (jstr(o, "logicalParentUuid"))
		cJSON_AddStringToObject(x, "logicalParentUuid",
					jstr(o, "logicalParentUuid"));
	v = jget(o, "compactMetadata");
	if (cJSON_IsObject(v))
		cJSON_AddItemToObject(x, "compactMetadata", cJSON_Duplicate(v, 1));
	if (jstr(o, "uuid"))
		cJSON_AddStringToObject(x, "uuid", jstr(o, "uuid"));
	return emit(cc, pl, KT_KIND_MESSAGE, 0, iso_ns(jstr(o, "timestamp")),
		    "system", p, NULL);
}

static int handle_summary(struct cc *cc, const struct pline *pl)
{
	const cJSON *o = pl->o, *m = jget(o, "message");
	const char *s = jstr(o, "summary");
	cJSON *p = cJSON_CreateObject(), *fl;

	if (!p)
		return KT_ENOMEM;
	if (s) {
		cJSON_AddStringToObject(p, "text", s);
		cJSON_AddStringToObject(p, "kind", "summary");
		if (jstr(o, "leafUuid"))
			cJSON_AddStringToObject(p, "leafUuid", jstr(o, "leafUuid"));
		return emit(cc, pl, KT_KIND_NOTE, 0,
			    iso_ns(jstr(o, "timestamp")), "system", p, NULL);
	}
	if (cJSON_IsObject(m) && jstr(m, "content")) {
		cJSON_AddStringToObject(p, "role", "user");
		cJSON_AddBoolToObject(p, "human", 0);
		cJSON_AddStringToObject(p, "text", jstr(m, "content"));
		fl = cJSON_AddArrayToObject(p, "flags");
		cJSON_AddItemToArray(fl, cJSON_CreateString("compact_summary"));
		return emit(cc, pl, KT_KIND_MESSAGE, 0,
			    iso_ns(jstr(o, "timestamp")), "system", p, NULL);
	}
	cJSON_Delete(p);
	kt_imp_warn(cc->imp, pl->f, pl->line, "summary line without text: skipped");
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

/*
 * A line given twice (same uuid, same bytes: a log concatenated with
 * itself, a line written again) is skipped with a warning; its text would
 * otherwise be a second message (tool calls and results are kept once by
 * id anyway).  Lines that share a uuid but differ are all read.  Only a
 * uuid seen before costs a comparison (hashing every line cost ~10 % of
 * the import); lines of sub-agent files are not compared.  Returns 0
 * (new), -1 (a repeat: warned, skip it) or KT_ENOMEM.
 */
static int seen_line(struct cc *cc, const kt_file *f, const cJSON *o,
		     const char *s, size_t n, uint64_t line)
{
	const char *uuid = jstr(o, "uuid");
	struct uline *u;
	void **slot;

	/* the session file stays mapped while cc reads it; sub-agent files
	 * come and go */
	if (!uuid || f != cc->f)
		return 0;
	slot = kt_strmap_slot(&cc->lines, uuid, 0);
	if (slot) {
		u = *slot;
		if (u && u->f == f && u->n == n && !memcmp(u->s, s, n)) {
			kt_imp_warn(cc->imp, f, line,
				    "repeats line %llu (uuid %.60s): skipped",
				    (unsigned long long)u->line, uuid);
			return -1;
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
	return 0;
}

static int on_line(struct cc *cc, const kt_file *f, const char *s, size_t n,
		   uint64_t line, uint64_t off, void *arg)
{
	const char *agent = arg;
	cJSON *o = parse_line(cc, f, s, n, line);
	const char *type, *mid = NULL;
	struct pline pl;
	const cJSON *m;
	int rc = 0;

	if (!o)
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
		return rc < 0 ? 0 : rc;
	}
	if (!strcmp(type, "assistant")) {
		m = jget(o, "message");
		mid = cJSON_IsObject(m) ? jstr(m, "id") : NULL;
		if (cc->npend && (!mid || !cc->pend_id || strcmp(mid, cc->pend_id)))
			rc = flush_response(cc);
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
			rc = flush_response(cc);
		return rc;
	}
	if (cc->npend)
		rc = flush_response(cc);
	if (!rc) {
		if (!strcmp(type, "user"))
			rc = handle_user(cc, &pl);
		else if (!strcmp(type, "system"))
			rc = handle_system(cc, &pl);
		else if (!strcmp(type, "summary"))
			rc = handle_summary(cc, &pl);
		/* file-history-snapshot, queue-operation, progress, ...:
		 * bookkeeping of the client, not part of the trajectory */
	}
	cJSON_Delete(o);
	return rc;
}

static int process_file(struct cc *cc, const kt_file *f, const char *agent)
{
	int rc = each_line(cc, f, on_line, (void *)(uintptr_t)agent, 0);

	if (!rc && cc->npend)
		rc = flush_response(cc);
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
	/* names and meta only from lines the import accepts (parse_line) */
	if (!kt_utf8_valid(s, n, NULL))
		return 0;
	o = kt_json_parse(s, n, KT_JSON_NONUL |
			  (s == (const char *)f->data ? KT_JSON_BOM : 0));
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

/* The summary of the line holding `at` (a match inside it), or NULL. */
static char *summary_at(const kt_file *f, const char *at)
{
	const char *d = (const char *)f->data, *end = d + f->len, *a = at, *b;
	char *r = NULL;
	cJSON *o;

	while (a > d && a[-1] != '\n')
		a--;
	b = memchr(at, '\n', (size_t)(end - at));
	if (!b)
		b = end;
	/* a line the import skips as invalid UTF-8 names nothing */
	if (!kt_utf8_valid(a, (size_t)(b - a), NULL))
		return NULL;
	o = kt_json_parse(a, (size_t)(b - a),
			  KT_JSON_NONUL | (a == d ? KT_JSON_BOM : 0));
	if (cJSON_IsObject(o) && jstr(o, "summary") && *jstr(o, "summary"))
		r = name_from(jstr(o, "summary"));
	cJSON_Delete(o);
	return r;
}

/*
 * The run name from a summary line: the first line with "type":"summary",
 * else the first with "type": "summary".  One pass over the file for
 * "summary" (both spellings end with it) instead of one memmem per
 * spelling: the whole file is scanned when there is no summary.
 */
/* memmem(p, end - p, needle) for a needle without NUL, over data with a NUL
 * at *end (kt_file.data): glibc's strstr is vectorized (AVX-512/EVEX) and
 * its memmem is not; on the 100 MB benchmark session strstr scanned in
 * 15 ms what memmem scanned in 45 ms.  Data between NUL bytes is searched
 * one stretch at a time. */
/* In windows, each given back once searched: a session without a summary
 * line is searched to its end. */
static const char *find_str(struct prescan *ps, const kt_file *f,
			    const char *p, const char *end, const char *needle)
{
	size_t nl = strlen(needle), w = 16u << 20;

	while (p < end) {
		size_t n = (size_t)(end - p) > w + nl ? w + nl : (size_t)(end - p);
		const char *q = memmem(p, n, needle, nl);

		if (q)
			return q;
		p += n > nl ? n - nl : n;
		kt_imp_read_to(ps->imp, f, (uint64_t)(p - (const char *)f->data));
	}
	return NULL;
}

static void find_summary(const kt_file *f, struct prescan *ps)
{
	static const char pat[] = "\"summary\"";
	const char *d = (const char *)f->data, *end = d + f->len, *p = d, *q;
	const char *first[2] = { NULL, NULL }; /* "type":, "type": */

	while (p < end && (q = find_str(ps, f, p, end, pat))) {
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
		ps->summary = summary_at(f, first[0]);
	if (ps->summary)
		return;
	/* the second spelling only after a failed first: it may lie past
	 * where the scan stopped */
	while (!first[1] && p < end && (q = find_str(ps, f, p, end, pat))) {
		p = q + 1;
		if (q - d >= 8 && !memcmp(q - 8, "\"type\": ", 8))
			first[1] = q;
	}
	if (first[1])
		ps->summary = summary_at(f, first[1]);
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
			rc = run_subfile(&cc, cc.subs[i].agent);
	}
	if (!rc && !cc.begun)
		rc = ensure_run(&cc, NULL); /* an empty session is still a run */
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
	kt_strmap_free(&cc.calls, call_free);
	kt_strmap_free(&cc.seen_use, NULL);
	kt_strmap_free(&cc.seen_res, NULL);
	kt_strmap_free(&cc.usage_done, NULL);
	kt_strmap_free(&cc.side, side_free);
	kt_strmap_free(&cc.tasks, side_free);
	kt_strmap_free(&cc.lines, free);
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
};
