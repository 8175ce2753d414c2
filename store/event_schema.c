/*
 * event_schema.c - type check of event payloads (event_model.h).  The
 * tables below are FORMAT.md section 2 "Event kinds", field by field; a
 * change there is a change here.  Fields the schema names without a type (note "...",
 * bench "fingerprint" members) are not checked below the level it gives.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>
#include "event_model.h"

enum {
	T_STR = 1, /* string */
	T_BOOL,    /* true or false */
	T_INT,     /* whole number, |x| < 10^15 */
	T_UINT,    /* T_INT >= 0: a count */
	T_SEQ,     /* T_INT >= 1: a seq of the same run */
	T_NNUM,    /* finite number >= 0: a time, a rate, an error bound */
	T_PNUM,    /* finite number > 0: a ratio of times */
	T_HASH,    /* 64 lowercase hex chars */
	T_ENUM,    /* one of vals */
	T_OBJ,     /* object; sub: its members checked (NULL: any) */
	T_ARR      /* array; sub: the type of each element (NULL: any) */
};

struct field {
	const char *name;          /* NULL ends a table */
	unsigned char ty;          /* T_* */
	unsigned char null;        /* null allowed (FORMAT.md "|null") */
	const char *const *vals;   /* T_ENUM: NULL-terminated */
	const struct field *sub;   /* T_OBJ: member table; T_ARR: one entry */
};

#define F(n, t) { n, t, 0, NULL, NULL }
#define FN(n, t) { n, t, 1, NULL, NULL }
#define FE(n, v) { n, T_ENUM, 0, v, NULL }
#define FO(n, s) { n, T_OBJ, 0, NULL, s }
#define FA(n, e) { n, T_ARR, 0, NULL, e }
#define END { NULL, 0, 0, NULL, NULL }
/* every payload MAY carry extra (FORMAT.md section 2) */
#define EXTRA FO("extra", NULL)

/* 10^15 - 1: every whole number up to it is a double exactly and comes
 * back from cJSON's canonical print (%1.15g) unchanged; 5000000000000001
 * prints as 5e+15 (FORMAT.md section 1 "Numbers": larger ones travel as
 * strings) */
#define INT_MAX_EXACT 999999999999999.0

static const char *const roles[] = { "user", "assistant", "system", NULL };
static const char *const ops[] = { "create", "modify", "delete", "rename",
				   "unknown", NULL };
static const char *const q_origins[] = { "human", "library", "agent", NULL };
static const char *const verdicts[] = { "reproduced", "faster", "slower",
					"diverged", "failed", NULL };
static const char *const r_origins[] = { "bundle", NULL };
/* whose idea the code a bench measured is, when the source says so */
static const char *const b_origins[] = { "human", "agent", NULL };

static const struct field el_str[] = { F("", T_STR) };

static const struct field usage[] = {
	F("input", T_UINT), F("output", T_UINT), F("cache_read", T_UINT),
	F("cache_creation", T_UINT), END
};
static const struct field message[] = {
	FE("role", roles), F("human", T_BOOL), F("text", T_STR),
	F("model", T_STR), FO("usage", usage), F("subagent", T_STR),
	F("msg_id", T_STR), FA("flags", el_str), EXTRA, END
};

static const struct field tool_call[] = {
	F("tool", T_STR), F("call_id", T_STR), FO("args", NULL),
	F("subagent", T_STR), EXTRA, END
};

static const struct field observed[] = {
	F("path", T_STR), FN("blob", T_HASH), END
};
static const struct field el_observed[] = { FO("", observed) };
static const struct field tool_result[] = {
	F("call_id", T_STR), F("ok", T_BOOL), F("output", T_STR),
	FN("output_blob", T_HASH), F("exit_code", T_INT),
	FA("observed", el_observed), EXTRA, END
};

static const struct field edit[] = {
	F("path", T_STR), FE("op", ops), FN("before", T_HASH),
	FN("after", T_HASH), F("tool", T_STR), F("call", T_SEQ),
	F("from", T_STR), EXTRA, END
};

static const struct field compile[] = {
	F("command", T_STR), F("cwd", T_STR), F("compiler", T_STR),
	F("version", T_STR), FA("flags", el_str), F("arch", T_STR),
	FN("exit_code", T_INT), F("ok", T_BOOL), F("duration_ms", T_NNUM),
	FN("diagnostics_blob", T_HASH), FN("output_hash", T_HASH),
	FA("sources", el_str), EXTRA, END
};

static const struct field bench_error[] = {
	FN("max_abs", T_NNUM), FN("max_rel", T_NNUM), END
};
static const struct field bench[] = {
	F("workload", T_STR), F("scenario", T_STR),
	FN("candidate_blob", T_HASH), FN("source_hash", T_HASH),
	F("reference", T_STR), FN("time_ms", T_NNUM), FN("min_ms", T_NNUM),
	FN("max_ms", T_NNUM), F("n", T_UINT), FN("ref_time_ms", T_NNUM),
	FN("speedup", T_PNUM), FN("correct", T_BOOL),
	FO("error", bench_error), FO("fingerprint", NULL),
	FN("tflops", T_NNUM), FN("gbps", T_NNUM), F("pattern", T_STR),
	F("status", T_STR), FE("origin", b_origins), EXTRA, END
};

static const struct field profile[] = {
	F("tool", T_STR), FO("metrics", NULL), FN("source_hash", T_HASH),
	EXTRA, END
};

static const struct field question[] = {
	F("text", T_STR), FE("origin", q_origins), F("library_id", T_STR),
	F("layer", T_STR), EXTRA, END
};

static const struct field results[] = {
	F("exit_code", T_INT), F("duration_ms", T_NNUM),
	FO("measured", NULL), END
};
static const char *const rlimits[] = { "RLIMIT_AS", "RLIMIT_DATA", NULL };
static const struct field iso_limits[] = {
	F("timeout_s", T_UINT), F("cpu_s", T_UINT), FE("memory", rlimits),
	F("mem_bytes", T_UINT), F("file_bytes", T_UINT), F("procs", T_UINT),
	F("output_bytes", T_UINT), F("cache_bytes", T_UINT), END
};
static const struct field isolation[] = {
	F("sandbox", T_STR), F("version", T_STR), FA("namespaces", el_str),
	F("seccomp", T_BOOL), F("caps", T_STR), F("uid", T_STR),
	F("root", T_STR), F("dev", T_STR), F("gpu_devices", T_UINT),
	F("work_bytes", T_UINT), F("tmp_bytes", T_UINT), F("shm_bytes", T_UINT),
	F("cache", T_BOOL), F("network", T_BOOL), FO("limits", iso_limits),
	/* replay events written before the sandbox */
	F("pid", T_BOOL), F("readonly_root", T_BOOL), END
};
static const struct field replay[] = {
	F("step", T_SEQ), FE("verdict", verdicts), F("reason", T_STR),
	FO("results", results), FO("expected", NULL), FA("missing", el_str),
	F("gpu", T_STR), F("network_isolated", T_BOOL),
	FO("isolation", isolation), FN("result_sha", T_HASH),
	FE("origin", r_origins), EXTRA, END
};

static const struct field note[] = { F("text", T_STR), EXTRA, END };

static const struct field *const kinds[KT_KIND_MAX_ + 1] = {
	[KT_KIND_MESSAGE] = message,
	[KT_KIND_TOOL_CALL] = tool_call,
	[KT_KIND_TOOL_RESULT] = tool_result,
	[KT_KIND_EDIT] = edit,
	[KT_KIND_COMPILE] = compile,
	[KT_KIND_BENCH] = bench,
	[KT_KIND_PROFILE] = profile,
	[KT_KIND_QUESTION] = question,
	[KT_KIND_REPLAY] = replay,
	[KT_KIND_NOTE] = note,
};

struct ctx {
	char path[192]; /* "bench.error.max_abs", "tool_result.observed[2]" */
	char *why;
	size_t whylen;
};

/* Append s to c->path from byte at; returns the new length (cut, never
 * past the buffer: a long name only shortens the message). */
static size_t path_put(struct ctx *c, size_t at, const char *fmt,
		       const char *s, long i)
{
	int n;

	if (at >= sizeof(c->path) - 1)
		return at;
	n = s ? snprintf(c->path + at, sizeof(c->path) - at, fmt, s)
	      : snprintf(c->path + at, sizeof(c->path) - at, fmt, i);
	if (n < 0)
		return at;
	at += (size_t)n;
	return at < sizeof(c->path) ? at : sizeof(c->path) - 1;
}

/* What the schema wants, in words. */
static void want(const struct field *f, char *b, size_t n)
{
	static const char *const words[] = {
		[T_STR] = "a string",
		[T_BOOL] = "true or false",
		[T_INT] = "an integer",
		[T_UINT] = "an integer >= 0",
		[T_SEQ] = "a seq (an integer >= 1)",
		[T_NNUM] = "a number >= 0",
		[T_PNUM] = "a number > 0",
		[T_HASH] = "a hash (64 lowercase hex chars)",
		[T_OBJ] = "an object",
		[T_ARR] = "an array",
	};
	size_t o = 0;
	int i;

	b[0] = 0;
	if (f->ty == T_ENUM) {
		o = (size_t)snprintf(b, n, "one of");
		for (i = 0; f->vals[i] && o < n; i++)
			o += (size_t)snprintf(b + o, n - o, "%s \"%s\"",
					      i ? "," : "", f->vals[i]);
	} else {
		o = (size_t)snprintf(b, n, "%s", words[f->ty]);
	}
	if (f->null && f->ty == T_BOOL)
		snprintf(b, n, "true, false or null");
	else if (f->null && o < n)
		snprintf(b + o, n - o, " or null");
}

/* The value as found, in words: its type, and for scalars the value
 * (a string cut at 32 bytes on a UTF-8 boundary, control characters and
 * quotes shown as '?', so the message stays one line). */
static void got(const cJSON *v, char *b, size_t n)
{
	if (cJSON_IsNull(v)) {
		snprintf(b, n, "null");
	} else if (cJSON_IsTrue(v)) {
		snprintf(b, n, "true");
	} else if (cJSON_IsFalse(v)) {
		snprintf(b, n, "false");
	} else if (cJSON_IsNumber(v)) {
		snprintf(b, n, "number %.15g", v->valuedouble);
	} else if (cJSON_IsString(v) && v->valuestring) {
		char s[40];
		size_t i, len = strlen(v->valuestring), cut = len;

		if (cut > 32)
			cut = kt_utf8_floor(v->valuestring, 32);
		for (i = 0; i < cut; i++) {
			unsigned char ch = (unsigned char)v->valuestring[i];

			s[i] = ch < 0x20 || ch == 0x7f || ch == '"' ||
			       ch == '\\' ? '?' : (char)ch;
		}
		s[cut] = 0;
		snprintf(b, n, "string \"%s\"%s", s, cut < len ? "..." : "");
	} else if (cJSON_IsArray(v)) {
		snprintf(b, n, "an array");
	} else if (cJSON_IsObject(v)) {
		snprintf(b, n, "an object");
	} else {
		snprintf(b, n, "an invalid value");
	}
}

static int fail(struct ctx *c, const struct field *f, const cJSON *v)
{
	char w[160], g[64];

	if (c->why && c->whylen) {
		want(f, w, sizeof(w));
		got(v, g, sizeof(g));
		snprintf(c->why, c->whylen, "%s: expected %s, got %s", c->path,
			 w, g);
	}
	return KT_EPARSE;
}

static int is_int(double d)
{
	return isfinite(d) && floor(d) == d && fabs(d) <= INT_MAX_EXACT;
}

static int is_hash(const char *s)
{
	size_t i;

	for (i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[64] == 0;
}

static int check_members(struct ctx *c, const struct field *tab,
			 const cJSON *obj, size_t at);

/* Value v of field f, whose name is c->path[0..at). */
static int check_value(struct ctx *c, const struct field *f, const cJSON *v,
		       size_t at)
{
	double d = cJSON_IsNumber(v) ? v->valuedouble : 0;
	int ok = 0, i;

	if (cJSON_IsNull(v))
		return f->null ? 0 : fail(c, f, v);
	switch (f->ty) {
	case T_STR:
		ok = cJSON_IsString(v) && v->valuestring;
		break;
	case T_BOOL:
		ok = cJSON_IsBool(v);
		break;
	case T_INT:
		ok = cJSON_IsNumber(v) && is_int(d);
		break;
	case T_UINT:
		ok = cJSON_IsNumber(v) && is_int(d) && d >= 0;
		break;
	case T_SEQ:
		ok = cJSON_IsNumber(v) && is_int(d) && d >= 1;
		break;
	case T_NNUM:
		ok = cJSON_IsNumber(v) && isfinite(d) && d >= 0;
		break;
	case T_PNUM:
		ok = cJSON_IsNumber(v) && isfinite(d) && d > 0;
		break;
	case T_HASH:
		ok = cJSON_IsString(v) && v->valuestring &&
		     is_hash(v->valuestring);
		break;
	case T_ENUM:
		if (!cJSON_IsString(v) || !v->valuestring)
			break;
		for (i = 0; f->vals[i] && !ok; i++)
			ok = !strcmp(v->valuestring, f->vals[i]);
		break;
	case T_OBJ:
		if (!cJSON_IsObject(v))
			break;
		return f->sub ? check_members(c, f->sub, v, at) : 0;
	case T_ARR: {
		const cJSON *e;
		long k = 0;
		int rc;

		if (!cJSON_IsArray(v))
			break;
		if (!f->sub)
			return 0;
		cJSON_ArrayForEach(e, v) {
			rc = check_value(c, f->sub, e,
					 path_put(c, at, "[%ld]", NULL, k++));
			if (rc)
				return rc;
		}
		return 0;
	}
	}
	if (ok)
		return 0;
	c->path[at] = 0;
	return fail(c, f, v);
}

/* Each member of obj that tab names (every copy of a duplicate key). */
static int check_members(struct ctx *c, const struct field *tab,
			 const cJSON *obj, size_t at)
{
	const cJSON *m;
	const struct field *f;
	int rc;

	cJSON_ArrayForEach(m, obj) {
		if (!m->string)
			continue;
		for (f = tab; f->name; f++)
			if (!strcmp(f->name, m->string))
				break;
		if (!f->name)
			continue; /* not in the schema: kept as given */
		rc = check_value(c, f, m, path_put(c, at, ".%s", f->name, 0));
		if (rc)
			return rc;
	}
	c->path[at] = 0;
	return 0;
}

int kt_imp_add_count(cJSON *o, const char *key, double v)
{
	if (!(is_int(v) && v >= 0))
		return 0;
	return cJSON_AddNumberToObject(o, key, v) != NULL;
}

int kt_imp_check_payload(int kind, const cJSON *payload, char *why,
			 size_t whylen)
{
	struct ctx c;
	const char *k = kt_kind_name(kind);

	if (why && whylen)
		why[0] = 0;
	if (kind < 1 || kind > KT_KIND_MAX_ || !kinds[kind] || !k ||
	    !cJSON_IsObject(payload))
		return KT_EINVAL;
	c.why = why;
	c.whylen = whylen;
	return check_members(&c, kinds[kind], payload,
			     path_put(&c, 0, "%s", k, 0));
}
