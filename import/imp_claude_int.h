/*
 * imp_claude_int.h - the Claude Code importer's per-file state, shared by
 * imp_claude.c (line iteration, detection, run, sub-agents, pre-scan),
 * imp_claude_asst.c (assistant responses) and imp_claude_user.c (tool
 * results, user, system and summary lines).  Internal to those three.
 */
#ifndef KT_IMP_CLAUDE_INT_H
#define KT_IMP_CLAUDE_INT_H

#include <stdint.h>

#include "import.h"
#include "impx.h"
#include "../store/spill.h"

#define CC_MAX_LINE (100u << 20)      /* lines over 100 MB are skipped */
#define CC_INLINE_MAX (64u * 1024u)   /* tool output kept inline */

/* ---- state ----------------------------------------------------------------- */

/* The id sets that grow with the input, as kt_spill tags: the session's
 * line uuids (lines), tool_use ids (calls), tool_result ids (seen_res) and
 * message ids whose usage is counted (usage_done). */
enum { CC_SET_LINES = 1, CC_SET_CALLS, CC_SET_RES, CC_SET_USAGE, CC_SETS };

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
	kt_strmap calls;         /* tool_use id emitted -> struct call,
				    NULL once its result is handled */
	kt_strmap seen_res;      /* tool_result ids emitted */
	kt_strmap usage_done;    /* message ids whose usage is counted */
	kt_strmap side;          /* sidechain uuid -> sub-agent id */
	kt_strmap tasks;         /* Task prompt -> tool_use id */
	kt_strmap lines;         /* uuid -> struct uline of its first line */
	kt_spill *spill;           /* the id sets' ids past their budget
				      (cc_ids_settle), NULL until then */
	int no_spill;              /* no temporary file could be made: the
				      ids stay in memory (cc_ids_settle) */
	uint64_t ids_at[CC_SETS];  /* a set's size that spills it */
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
	struct kt_parse_ahead *pa; /* lines of the file being walked parsed
				      on a second thread; NULL: none */
};

/* the string member k of o (kt_json_str; the short name keeps the
 * reading lines short) */
static inline const char *jstr(const cJSON *o, const char *k)
{
	return kt_json_str(o, k);
}

static inline int jtrue(const cJSON *o, const char *k)
{
	return cJSON_IsTrue(kt_json_get(o, k));
}

static inline const cJSON *jget(const cJSON *o, const char *k)
{
	return kt_json_get(o, k);
}

/* Whether id is in id set m (tag set): a key of m (whatever its value) or
 * spilled.  1, 0, or kt_spill_get's error. */
int cc_id_known(struct cc *cc, const kt_strmap *m, unsigned set,
		const char *id);
/* Call after adding a key to id set m: past the set's budget
 * (kt_imp_ids) its ids go to cc->spill in key order and m is emptied;
 * only calls still waiting for their result (a non-NULL value in calls)
 * stay.  When no temporary file can be made ($TMPDIR not writable:
 * kt_spill_open's KT_EIO) the session's ids stay in memory, as they did
 * before the spill existed, and one note says so (kt_imp_note: not a
 * problem, --strict goes on).  0, or kt_spill_open's KT_ENOMEM or
 * kt_spill_put's error. */
int cc_ids_settle(struct cc *cc, kt_strmap *m, unsigned set);
/* the call a tool_use id names (a kt_strmap value): frees it */
void cc_call_free(void *p);
/* a Claude Code timestamp (ISO 8601) to ns since the epoch;
 * KT_TS_UNKNOWN for none, a bad one or the epoch itself */
int64_t cc_iso_ns(const char *s);
/* an image's base64 data (either alphabet, padding and line breaks
 * skipped) decoded into a malloc'd buffer of *out bytes; NULL when it is
 * not base64 or out of memory */
unsigned char *cc_b64dec(const char *s, size_t *out);
/* payload[key] = s without a copy (s must outlive the payload);
 * 0 or KT_ENOMEM */
int cc_add_ref(cJSON *p, const char *key, const char *s);
/* payload[key] = text s (n bytes), cut to CC_INLINE_MAX with the whole
 * text in a blob named by payload[blob_key]; 0 or kt_imp_blob's error */
int cc_add_text(kt_imp *imp, cJSON *p, const char *key,
		const char *blob_key, const char *s, size_t n);
/* payload[blob_key] = the hex name of text s (n bytes) stored as a blob;
 * 0 or kt_imp_blob's error */
int cc_add_blob(kt_imp *imp, cJSON *p, const char *blob_key, const char *s,
		size_t n);
/* The head of a Claude Code tool_result payload, the one mapping the
 * transcript importer (handle_result) and the hooks (hook.c, PostToolUse)
 * share: p["call_id"], p["ok"] and p["output"] = text (n bytes,
 * NUL-terminated), without a copy when it fits CC_INLINE_MAX (text must
 * outlive the payload), else its first bytes cut on a UTF-8 boundary.
 * *kept: the bytes kept inline; when < n the caller stores the whole text
 * as p["output_blob"] (FORMAT.md: output is at most 64 KiB inline).
 * 0 or KT_ENOMEM. */
int cc_result_head(cJSON *p, const char *call_id, int ok, const char *text,
		   size_t n, size_t *kept);
/* why a user text is not human (a flag name), or NULL */
const char *cc_nonhuman_flag(const cJSON *o, const char *text);
/* begin the run once (named by the first human text when the session has
 * no name); kt_imp_run_begin's codes */
int cc_ensure_run(struct cc *cc, const char *human);
/* emit one event of line pl (payload owned and freed here; the line's
 * unread fields go to extra.unknown once); kt_imp_emit's codes */
int cc_emit(struct cc *cc, const struct pline *pl, int kind,
	    uint64_t parent, int64_t ts, const char *actor, cJSON *payload,
	    uint64_t *seq);
/* the sub-agent line o belongs to, NULL for the main thread (owned by cc) */
const char *cc_line_agent(struct cc *cc, const cJSON *o,
			  const struct pline *pl);
/* the actor of an event: "agent:<agent>", else dflt, into buf (n bytes) */
void cc_actor_of(const char *agent, char *buf, size_t n, const char *dflt);
/* import the 2.x subagents/ file of agent now, once; 0 or an error */
int cc_run_subfile(struct cc *cc, const char *agent);

/* imp_claude_asst.c: emit the buffered lines of one API response */
int cc_flush_response(struct cc *cc);
/* imp_claude_user.c: one user, system or summary line; 0 or an error
 * (a line that cannot be used is warned and gives 0) */
int cc_handle_user(struct cc *cc, const struct pline *pl);
int cc_handle_system(struct cc *cc, const struct pline *pl);
int cc_handle_summary(struct cc *cc, const struct pline *pl);

#endif
