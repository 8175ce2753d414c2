/* cmd_log.c - `ktraj log RUN`: the events of a run, one per line. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "../export/export.h"
#include "../analyze/analyze.h"
#include "../analyze/an_int.h"  /* the payload field scanner */
#include "../import/impx.h"     /* JSON printed as cJSON prints it */
#include "outfmt.h"

static const char usage[] =
	"usage: ktraj log RUN [--kind KIND] [--from SEQ] [--to SEQ] [--json]\n"
	"\n"
	"List the events of a run: seq, time (UTC), kind, actor and a one-line\n"
	"summary.  --kind keeps one kind (message, tool_call, tool_result, edit,\n"
	"compile, bench, profile, question, replay, note).\n"
	"--json prints one object per event: seq, kind, actor, ts (ns or null),\n"
	"parent (seq or null) and per kind: message role, human, text;\n"
	"tool_call tool, call_id; tool_result call_id, ok, exit_code; edit path,\n"
	"op; compile exit_code, command; bench correct (null: not checked),\n"
	"time_ms, speedup, status, ref_time_ms (null when absent), the\n"
	"measurement model's fields (FORMAT.md): workload, scenario, metric,\n"
	"baseline, source, candidate, source_hash (null when absent); when the\n"
	"result has them graded (the grader's own record, e.g. reward.json),\n"
	"reward (the grader's reward) and flags (e.g. [\"suspicious\"]); series\n"
	"(the series key `blame speedup` groups by) and sweep (its number when\n"
	"the result is one of a sweep, else null);\n"
	"replay step, verdict; question text, origin; note text; profile tool.\n";

/* The payload fields a log row carries, per kind (index = enum kt_kind). */
static const char *const row_fields[KT_KIND_MAX_ + 1][5] = {
	[KT_KIND_MESSAGE] = { "role", "human", "text" },
	[KT_KIND_TOOL_CALL] = { "tool", "call_id" },
	[KT_KIND_TOOL_RESULT] = { "call_id", "ok", "exit_code" },
	[KT_KIND_EDIT] = { "path", "op" },
	[KT_KIND_COMPILE] = { "exit_code", "command" },
	[KT_KIND_BENCH] = { "correct", "time_ms", "speedup", "status" },
	[KT_KIND_PROFILE] = { "tool" },
	[KT_KIND_QUESTION] = { "text", "origin" },
	[KT_KIND_REPLAY] = { "step", "verdict" },
	[KT_KIND_NOTE] = { "text" },
};

/* The measurement model's fields of a bench row. */
static const char *const bench_fields[] = {"workload", "scenario", "metric",
					   "baseline", "source", "candidate",
					   "source_hash"};
#define N_BENCH_FIELDS (sizeof(bench_fields) / sizeof(bench_fields[0]))

struct log_ctx {
	int json;
	int err;
	kt_an_run *an;  /* the run's results as the analyzers read them
			   (bench keys) */
	struct kt_buf out; /* the row being written (json_row) */
};

/* The members of a bench row the fast path (json_row) leaves to log_json:
 * a graded result's verdict.  graded is true/false, reward a number kept
 * in extra.reward (benchpat.c), flags an array such as ["suspicious"]. */
static void graded_json(cJSON *o, cJSON *p)
{
	const cJSON *g = cJSON_GetObjectItemCaseSensitive(p, "graded");
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(p, "extra");
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(x, "reward");
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(p, "flags");

	if (cJSON_IsBool(g))
		cJSON_AddBoolToObject(o, "graded", cJSON_IsTrue(g));
	if (cJSON_IsNumber(r))
		cJSON_AddNumberToObject(o, "reward", r->valuedouble);
	if (cJSON_IsArray(f))
		cJSON_AddItemToObject(o, "flags", cJSON_Duplicate(f, 1));
}

/* The measurement model's fields of a bench row, and its series key. */
static void bench_key_json(cJSON *o, cJSON *p, const kt_an_run *an,
			   uint64_t seq)
{
	const char *const *f = bench_fields;
	long i = an ? kt_an_run_find(an, seq) : -1;
	const kt_an_meas *m = i >= 0 && an->ev[i].meas >= 0 ?
			      &an->m[an->ev[i].meas] : NULL;
	const cJSON *ref = cJSON_GetObjectItemCaseSensitive(p, "ref_time_ms");

	if (!cJSON_GetObjectItemCaseSensitive(o, "correct"))
		cJSON_AddNullToObject(o, "correct");
	if (cJSON_IsNumber(ref))
		cJSON_AddNumberToObject(o, "ref_time_ms", ref->valuedouble);
	else
		cJSON_AddNullToObject(o, "ref_time_ms");
	for (size_t k = 0; k < N_BENCH_FIELDS; k++) {
		const char *v = kt_json_str(p, f[k]);

		if (v)
			cJSON_AddStringToObject(o, f[k], v);
		else
			cJSON_AddNullToObject(o, f[k]);
	}
	graded_json(o, p);
	if (m)
		cJSON_AddStringToObject(o, "series", m->key);
	else
		cJSON_AddNullToObject(o, "series");
	if (m && m->sweep >= 0)
		cJSON_AddNumberToObject(o, "sweep", (double)m->sweep + 1);
	else
		cJSON_AddNullToObject(o, "sweep");
}

static int log_json(const kt_event *ev, cJSON *p, const kt_an_run *an)
{
	cJSON *o = cJSON_CreateObject();
	const char *kn = kt_kind_name(ev->kind);
	int i;

	if (!o)
		return KT_ENOMEM;
	cJSON_AddNumberToObject(o, "seq", (double)ev->seq);
	cJSON_AddStringToObject(o, "kind", kn ? kn : "unknown");
	cJSON_AddStringToObject(o, "actor", ev->actor ? ev->actor : "");
	kt_export_add_ns(o, "ts", ev->ts_ns);
	if (ev->parent)
		cJSON_AddNumberToObject(o, "parent", (double)ev->parent);
	else
		cJSON_AddNullToObject(o, "parent");
	if (ev->kind > 0 && ev->kind <= KT_KIND_MAX_)
		for (i = 0; i < 5 && row_fields[ev->kind][i]; i++) {
			cJSON *v = cJSON_GetObjectItemCaseSensitive(p, row_fields[ev->kind][i]);

			if (v)
				cJSON_AddItemToObject(o, row_fields[ev->kind][i],
						      cJSON_Duplicate(v, 1));
		}
	if (ev->kind == KT_KIND_BENCH)
		bench_key_json(o, p, an, ev->seq);
	return cli_put_json(o);
}

/*
 * --json rows without a cJSON tree: log_json's bytes, put together from the
 * event header and the payload members in place (the run loader's field
 * scanner, an_int.h).  A stored payload is canonical (FORMAT.md §3: what
 * cJSON prints from its parse), so a member's bytes are what log_json
 * prints for it; each is still checked to be so (a string's escapes in
 * cJSON's form, a number printed again by cJSON's rule), because an
 * importer's KT_EV_CANONICAL claim is not verified.  Returns 1 where that
 * does not hold (a payload the scanner refuses, an object or array member,
 * a string with another escape): log_json prints that row.
 */

/* Whether the escapes of string bytes v[0..n) are those cJSON prints: \"
 * \\ \b \f \n \r \t, and \u00xx (lower case) for other control bytes.
 * The scanner let no raw control byte through. */
static int cjson_escapes(const char *v, size_t n)
{
	const char *e = v + n, *p = v;

	while ((p = memchr(p, '\\', (size_t)(e - p)))) {
		unsigned c;

		if (p + 1 >= e)
			return 0;
		switch (p[1]) {
		case '"': case '\\': case 'b': case 'f': case 'n': case 'r':
		case 't':
			p += 2;
			continue;
		case 'u':
			break;
		default:
			return 0;
		}
		if (e - p < 6 || p[2] != '0' || p[3] != '0' ||
		    (p[4] != '0' && p[4] != '1') ||
		    !((p[5] >= '0' && p[5] <= '9') || (p[5] >= 'a' && p[5] <= 'f')))
			return 0;
		c = (unsigned)(p[4] - '0') << 4 |
		    (unsigned)(p[5] <= '9' ? p[5] - '0' : p[5] - 'a' + 10);
		if (c == 0 || c == '\b' || c == '\f' || c == '\n' || c == '\r' ||
		    c == '\t')
			return 0;
		p += 6;
	}
	return 1;
}

/* The decimal digits of n at the end of t[0..20); returns where they start.
 * snprintf("%llu") was a measurable share of a full `log --json` scan
 * (three numbers a row, vfprintf's set-up each time). */
static char *u64_digits(uint64_t n, char t[20])
{
	char *p = t + 20;

	do
		*--p = (char)('0' + n % 10);
	while (n /= 10);
	return p;
}

/* Append n as "%llu" prints it; 0 or KT_ENOMEM. */
static int put_dec(struct kt_buf *b, uint64_t n)
{
	char t[20], *p = u64_digits(n, t);

	return kt_buf_add(b, p, (size_t)(t + 20 - p)) ? KT_ENOMEM : 0;
}

/* Append seq or parent n as log_json prints it (a cJSON number): its
 * digits below 1e15, cJSON's "%1.15g" from there (1e+15). */
static int put_seq(struct kt_buf *b, uint64_t n)
{
	if (n < 1000000000000000ull)
		return put_dec(b, n);
	return kt_json_put_num(b, (double)n) ? KT_ENOMEM : 0;
}

/* Whether the number text p[0..n) is what cJSON prints for its value, so
 * that its bytes can be copied: -?(0|[1-9][0-9]*)(\.[0-9]*[1-9])? with at
 * most 15 significant digits, -0 excepted and, for a fraction, its first
 * significant digit at 10^-4 or above.  cJSON 1.7 prints a whole number
 * as "%d" (below 1e15 the digits) and another as "%1.15g"; a decimal of at
 * most 15 significant digits reads to the nearest double and "%.15g" of
 * that double rounds back to the same decimal (DBL_DIG, C11 5.2.4.2.2),
 * which %g prints without trailing zeros and in fixed notation for
 * exponents -4..14; that text reads back to the same double, so cJSON's
 * "%1.17g" retry is not taken.  Anything else (an exponent, 1.50, 1e-05
 * written out, more digits) is printed again by cJSON's rule. */
static int num_as_printed(const char *p, size_t n)
{
	const char *e = p + n, *q;
	int sig = 0, lead = 0, neg = n && *p == '-';

	p += neg;
	if (p >= e || *p < '0' || *p > '9')
		return 0;
	if (*p == '0') {
		/* 0, or 0.xxx (-0 and 0 before more digits are not printed) */
		if (++p == e)
			return !neg;
		if (*p != '.')
			return 0;
	} else {
		for (; p < e && *p >= '0' && *p <= '9'; p++)
			sig++;
		if (p == e)
			return sig <= 15;
		if (*p != '.')
			return 0;
	}
	q = ++p; /* the fraction */
	for (; p < e && *p >= '0' && *p <= '9'; p++) {
		if (sig)
			sig++;
		else if (*p == '0')
			lead++;
		else
			sig = 1;
	}
	return p == e && p > q && p[-1] != '0' && sig && sig <= 15 &&
	       lead <= 3;
}

/* Append number v (type NUM) as cJSON prints it: its bytes where
 * num_as_printed says they are that, else read and printed again. */
static int put_num_text(struct kt_buf *b, const kt_an_jv *v)
{
	if (num_as_printed(v->v, v->n))
		return kt_buf_add(b, v->v, v->n) ? KT_ENOMEM : 0;
	return kt_json_put_num(b, kt_an_js_num(v)) ? KT_ENOMEM : 0;
}

/* Append ,"key": for a member key (the row keys above: plain ASCII, nothing
 * to escape), without kt_json_put_str's strlen and escape pass. */
static int put_key(struct kt_buf *b, const char *key)
{
	size_t n = strlen(key);
	char *o;

	if (kt_buf_reserve(b, b->len + n + 5))
		return KT_ENOMEM;
	o = b->s + b->len;
	*o++ = ',';
	*o++ = '"';
	memcpy(o, key, n);
	o += n;
	*o++ = '"';
	*o++ = ':';
	*o = 0;
	b->len = (size_t)(o - b->s);
	return 0;
}

/* Append string s as cJSON prints it: copied between quotes when it holds
 * nothing to escape (a kind name, an actor such as "agent": every row has
 * both), else kt_json_put_str's escape pass; 0 or KT_ENOMEM. */
static int put_text_str(struct kt_buf *b, const char *s)
{
	size_t n = strlen(s);

	if (kt_json_str_stop(s, s + n) != s + n)
		return kt_json_put_str(b, s) ? KT_ENOMEM : 0;
	return kt_buf_add(b, "\"", 1) || kt_buf_add(b, s, n) ||
	       kt_buf_add(b, "\"", 1) ? KT_ENOMEM : 0;
}

/* "key":value of member v as log_json prints it; 1 when it cannot say. */
static int put_member(struct kt_buf *b, const char *key, const kt_an_jv *v)
{
	int rc;

	if (put_key(b, key))
		return KT_ENOMEM;
	switch (v->type) {
	case KT_AN_JS_STR:
		if (v->esc && !cjson_escapes(v->v, v->n))
			return 1;
		rc = kt_buf_add(b, "\"", 1) || kt_buf_add(b, v->v, v->n) ||
		     kt_buf_add(b, "\"", 1);
		break;
	case KT_AN_JS_NUM:
		rc = put_num_text(b, v);
		break;
	case KT_AN_JS_TRUE: case KT_AN_JS_FALSE: case KT_AN_JS_NULL:
		rc = kt_buf_add(b, v->v, v->n);
		break;
	default:
		return 1;
	}
	return rc ? KT_ENOMEM : 0;
}

/* Rows collect in x->out and go to stdout this many bytes at a time: one
 * fwrite a row was stdio's copy and bookkeeping per row, and a reused
 * buffer keeps the pages it has touched (a fresh one is zeroed by the
 * kernel). */
#define LOG_FLUSH_AT (64 * 1024)

/* Write what x->out holds; 0 or KT_EIO. */
static int log_flush(struct log_ctx *x)
{
	struct kt_buf *b = &x->out;
	int rc = b->len && fwrite(b->s, 1, b->len, stdout) != b->len ?
		 KT_EIO : 0;

	b->len = 0;
	return rc;
}

/* Append the row of ev to x->out (flushed by the caller); 0, 1 (log_json's
 * row: x->out as it was) or an error code. */
static int json_row_add(struct log_ctx *x, const kt_event *ev)
{
	const char *keys[5 + N_BENCH_FIELDS + 4];
	kt_an_jv v[5 + N_BENCH_FIELDS + 4];
	const char *kn = kt_kind_name(ev->kind);
	struct kt_buf *b = &x->out;
	int nk = 0, nrow, rc, i;

	if (ev->kind > 0 && ev->kind <= KT_KIND_MAX_)
		while (nk < 5 && row_fields[ev->kind][nk])
			keys[nk] = row_fields[ev->kind][nk], nk++;
	nrow = nk;
	if (ev->kind == KT_KIND_BENCH) {
		keys[nk++] = "ref_time_ms";
		for (size_t k = 0; k < N_BENCH_FIELDS; k++)
			keys[nk++] = bench_fields[k];
		keys[nk++] = "graded";
		keys[nk++] = "extra";
		keys[nk++] = "flags";
	}
	if (kt_an_js_fields(ev->payload, ev->payload_len, keys, nk, v))
		return 1;
	/* a graded verdict (graded_json) or an extra that may hold a reward
	 * (FlashInfer's extra.workload_uuid on every trace does not):
	 * log_json's row */
	if (ev->kind == KT_KIND_BENCH && (v[nk - 3].type != KT_AN_JS_NONE ||
					  v[nk - 1].type != KT_AN_JS_NONE ||
					  (v[nk - 2].type != KT_AN_JS_NONE &&
					   memmem(ev->payload, ev->payload_len,
						  "\"reward\"", 8))))
		return 1;
	if (ev->kind == KT_KIND_BENCH)
		nk -= 3;
	rc = kt_buf_add(b, "{\"seq\":", 7) || put_seq(b, ev->seq) ||
	     kt_buf_add(b, ",\"kind\":", 8) ||
	     put_text_str(b, kn ? kn : "unknown") ||
	     kt_buf_add(b, ",\"actor\":", 9) ||
	     put_text_str(b, ev->actor ? ev->actor : "") ||
	     kt_buf_add(b, ",\"ts\":", 6);
	if (!rc && ev->ts_ns == KT_TS_UNKNOWN)
		rc = kt_buf_add(b, "null", 4);
	else if (!rc)
		rc = (ev->ts_ns < 0 && kt_buf_add(b, "-", 1)) ||
		     put_dec(b, ev->ts_ns < 0 ? -(uint64_t)ev->ts_ns :
						(uint64_t)ev->ts_ns);
	if (!rc)
		rc = ev->parent ? kt_buf_add(b, ",\"parent\":", 10) ||
				  put_seq(b, ev->parent) :
				  kt_buf_add(b, ",\"parent\":null", 14);
	if (rc)
		return KT_ENOMEM;
	for (i = 0; !rc && i < nrow; i++)
		if (v[i].type != KT_AN_JS_NONE)
			rc = put_member(b, keys[i], &v[i]);
	if (!rc && ev->kind == KT_KIND_BENCH) {
		long j = x->an ? kt_an_run_find(x->an, ev->seq) : -1;
		const kt_an_meas *m = j >= 0 && x->an->ev[j].meas >= 0 ?
				      &x->an->m[x->an->ev[j].meas] : NULL;

		if (v[0].type == KT_AN_JS_NONE) /* "correct" */
			rc = kt_buf_add(b, ",\"correct\":null", 15);
		for (; !rc && i < nk; i++) {
			if (v[i].type == KT_AN_JS_STR ||
			    (i == nrow && v[i].type == KT_AN_JS_NUM)) {
				rc = put_member(b, keys[i], &v[i]);
			} else {
				rc = put_key(b, keys[i]) ||
				     kt_buf_add(b, "null", 4) ? KT_ENOMEM : 0;
			}
		}
		if (!rc)
			rc = kt_buf_add(b, ",\"series\":", 10) ||
			     (m ? kt_json_put_str(b, m->key) :
				  kt_buf_add(b, "null", 4)) ||
			     kt_buf_add(b, ",\"sweep\":", 9) ||
			     (m && m->sweep >= 0 ?
			      kt_json_put_num(b, (double)m->sweep + 1) :
			      kt_buf_add(b, "null", 4)) ? KT_ENOMEM : 0;
	}
	if (rc)
		return rc;
	return kt_buf_add(b, "}\n", 2) ? KT_ENOMEM : 0;
}

/* The --json row of ev: appended to x->out and written in LOG_FLUSH_AT
 * pieces; 1 when log_json must print it (x->out written first, so rows
 * keep their order). */
static int json_row(struct log_ctx *x, const kt_event *ev)
{
	size_t row = x->out.len;
	int rc = json_row_add(x, ev);

	if (rc) {
		/* a row is written whole or not at all, as before */
		x->out.len = row;
		if (rc == 1 && log_flush(x))
			return KT_EIO;
		return rc;
	}
	return x->out.len >= LOG_FLUSH_AT ? log_flush(x) : 0;
}

static int log_row(const kt_event *ev, void *arg)
{
	struct log_ctx *x = arg;
	cJSON *p;
	const char *kn = kt_kind_name(ev->kind);
	char when[32], raw[512], line[200];
	int rc = 0;

	if (x->json && (rc = json_row(x, ev)) <= 0) {
		if (rc)
			x->err = rc;
		return rc;
	}
	rc = 0;
	p = cJSON_ParseWithLength(ev->payload, ev->payload_len);
	if (x->json) {
		rc = log_json(ev, p, x->an);
	} else {
		kt_export_ts_short(ev->ts_ns, when, sizeof(when));
		kt_export_event_summary(ev, p, raw, sizeof(raw));
		cli_oneline(raw, 120, line);
		printf("%6llu  %-19s  %-11s %-12.12s %s\n",
		       (unsigned long long)ev->seq, when, kn ? kn : "?",
		       ev->actor ? ev->actor : "", line);
	}
	cJSON_Delete(p);
	if (rc)
		x->err = rc;
	return rc;
}

int cmd_log(struct cli *c, int argc, char **argv)
{
	struct log_ctx x = { 0 };
	const char *spec = NULL;
	char run[KT_RUN_ID_HEX + 1];
	uint64_t from = 1, to = 0;
	kt_store *s = NULL;
	int i, rc, kind = 0;

	if (cli_wants_help(argc, argv, usage))
		return KT_EXIT_OK;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			x.json = 1;
		} else if (!strcmp(argv[i], "--kind") &&
			   cli_has_value(argc, argv, i)) {
			kind = kt_kind_from_name(argv[++i]);
			if (!kind)
				return cli_bad_kind(c, argv[i]);
		} else if ((!strcmp(argv[i], "--from") || !strcmp(argv[i], "--to")) &&
			   cli_has_value(argc, argv, i)) {
			uint64_t *dst = argv[i][2] == 'f' ? &from : &to;

			if (cli_u64(argv[i + 1], dst) || !*dst)
				return cli_bad_step(c, argv[i], argv[i + 1]);
			i++;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return cli_bad_option(c, usage, argv[i]);
		} else if (!spec) {
			spec = argv[i];
		} else {
			return cli_usage(c, "unexpected argument '%s'", argv[i]);
		}
	}
	if (!spec)
		return cli_usage(c, "which run? (ktraj log RUN)");
	/* to 0 is the end of the run */
	if (to && to < from)
		return cli_usage(c, "--from %llu is after --to %llu",
				 (unsigned long long)from, (unsigned long long)to);
	if ((rc = cli_open_run(c, spec, &s, run)))
		goto out;
	/* bench rows show their series key, which needs the run's results */
	if (x.json && (!kind || kind == KT_KIND_BENCH) &&
	    (rc = kt_an_run_load_ex(s, run, KT_AN_LOAD_MEAS, &x.an))) {
		rc = cli_store_err(c, s, rc, "reading events");
		goto out;
	}
	rc = kt_event_foreach_body(s, run, from ? from : 1, to, kind, log_row, &x);
	/* the rows before a failed one are printed, as they were when each
	 * row was written on its own */
	if (x.json && log_flush(&x) && !rc)
		rc = KT_EIO;
	if (rc)
		rc = cli_store_err(c, s, rc, "reading events");
out:
	kt_an_run_free(x.an);
	kt_buf_free(&x.out);
	kt_store_close(s);
	return rc;
}
