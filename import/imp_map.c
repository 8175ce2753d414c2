/*
 * imp_map.c - per-round JSON/JSONL logs read with a declarative map
 * (`ktraj import --map MAP.json FILE`, README "Custom round logs",
 * FORMAT.md section 11).
 *
 * Kernel-optimization systems write their own round logs: one JSON object
 * per attempt (a tree-search node, a round with its hypothesis and measured
 * runtime).  The map names, for each ktraj field, the record's field that
 * holds it (a dotted path, "a.b.0.c") or a constant ({"const": V}, or any
 * value that is not a string).  Each record becomes, in file order, a
 * message with its idea (`text`, when mapped) and a bench event; `parent`
 * links a record to the bench of the record whose `step` it names.
 * Records that name different `run` values go to different runs.
 *
 * A bad map is refused whole with one line (kt_map_parse); a bad record is
 * reported with one line at its line and skipped (a problem: --strict stops).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "import.h"
#include "impx.h"
#include "jsonstrict.h"
#include "../base/kt_json_scan.h" /* kt_json_number */

/* map keys, in the order the help lists them */
enum { M_RUN, M_STEP, M_PARENT, M_TS, M_TIME, M_REF, M_SPEEDUP, M_CORRECT,
	M_TEXT, M_WORKLOAD, M_SCENARIO, M_METRIC, M_BASELINE, M_N };

static const char *const mkeys[M_N] = { "run", "step", "parent", "ts",
	"time_ms", "ref_time_ms", "speedup", "correct", "text", "workload",
	"scenario", "metric", "baseline" };

struct mfield {
	char *path;             /* dotted path, or NULL */
	cJSON *cval;            /* constant, or NULL */
};

struct kt_map {
	struct mfield f[M_N];
	int hib;                /* higher_is_better: -1 not given */
	char *origin_field;
	cJSON *origin_human;    /* array of values */
	/* sha256 of what the map says (map_digest): kept in the run's meta
	 * ("map"), so a re-import with another map is told apart */
	char digest[KT_HASH_HEX + 1];
};

void kt_map_free(kt_map *m)
{
	int i;

	if (!m)
		return;
	for (i = 0; i < M_N; i++) {
		free(m->f[i].path);
		cJSON_Delete(m->f[i].cval);
	}
	free(m->origin_field);
	cJSON_Delete(m->origin_human);
	free(m);
}

/* 1-based line of the nth (from 0) `"key"` in the map's text (for
 * messages; a value spelled like the key may be found instead). */
static unsigned line_of(const char *t, size_t n, const char *key, int nth)
{
	char q[80];
	const char *p;
	unsigned l = 1;
	size_t i;

	snprintf(q, sizeof(q), "\"%s\"", key);
	p = strstr(t, q);
	while (p && nth-- > 0)
		p = strstr(p + 1, q);
	if (!p || (size_t)(p - t) > n)
		return 1;
	for (i = 0; t + i < p; i++)
		l += t[i] == '\n';
	return l;
}

static int bad(char *err, size_t cap, unsigned line, const char *fmt,
	       const char *a)
{
	int k = snprintf(err, cap, "%u: ", line);

	if (k > 0 && (size_t)k < cap)
		snprintf(err + k, cap - (size_t)k, fmt, a);
	return KT_EPARSE;
}

/* A stated higher_is_better must agree with the figure the value goes
 * through, whatever the metric is called: blame and stalls read time_ms as
 * lower-is-better (a gain is before / after) and speedup as higher-is-better
 * (after / before).  A throughput (TFLOPS, GB/s) mapped through time_ms with
 * higher_is_better true would be read backwards, every gain a loss, and a
 * time through speedup with false the same: refuse both and say which key
 * fits.  The metric's name (a constant "throughput") changes nothing. */
static int hib_contradicts(const kt_map *m, const char *text, size_t len,
			   char *err, size_t cap)
{
	int time = m->f[M_TIME].path || m->f[M_TIME].cval;
	int named = m->f[M_METRIC].path || m->f[M_METRIC].cval;
	unsigned ln = line_of(text, len, "higher_is_better", 0);

	if (time && m->hib == 1)
		return bad(err, cap, ln, "higher_is_better: true contradicts "
			   "%s (a time: lower is better); map a higher-is-better "
			   "figure (a throughput) through speedup",
			   named ? "time_ms" : "the metric \"time\"");
	if (!time && m->hib == 0)
		return bad(err, cap, ln, "higher_is_better: false contradicts "
			   "%s (a speedup: higher is better); map a "
			   "lower-is-better figure (a time) through time_ms",
			   named ? "speedup" : "the metric \"speedup\"");
	return 0;
}

/* Whether constant v fits member k, as a record's value would be read
 * (one_record): NULL when it does, else what the member takes.  A constant
 * that one_record would drop (a bool as a time, a number as the text)
 * would be a map that silently means nothing. */
static const char *const_misfit(int k, const cJSON *v)
{
	switch (k) {
	case M_TIME: case M_REF: case M_SPEEDUP:
		return cJSON_IsNumber(v) ? NULL : "a number";
	case M_CORRECT:
		if (cJSON_IsBool(v) || (cJSON_IsNumber(v) &&
		    (v->valuedouble == 0 || v->valuedouble == 1)))
			return NULL;
		if (cJSON_IsString(v))
			for (const char *const *w = (const char *const[]){
			     "true", "yes", "pass", "passed", "false", "no",
			     "fail", "failed", NULL }; *w; w++)
				if (!strcasecmp(v->valuestring, *w))
					return NULL;
		return "true or false (or \"pass\"/\"fail\", 1/0)";
	case M_TEXT:
		return cJSON_IsString(v) && *v->valuestring ? NULL :
		       "a non-empty string";
	case M_TS:
		return (cJSON_IsString(v) || cJSON_IsNumber(v)) &&
		       kt_impx_ts_json(v) != KT_TS_UNKNOWN ? NULL :
		       "a time (ISO-8601 string or seconds since the epoch)";
	default:        /* run, step, parent and the bench's names */
		return (cJSON_IsString(v) && *v->valuestring) ||
		       cJSON_IsNumber(v) ? NULL : "a string or a number";
	}
}

/* What m says, in a fixed order (member order, spacing and a constant
 * written bare or as {"const": V} change nothing): sha256 hex into
 * m->digest.  KT_ENOMEM or 0. */
static int map_digest(kt_map *m)
{
	cJSON *d = cJSON_CreateArray(), *x;
	char *t;
	int i;

	for (i = 0; d && i < M_N; i++) {
		x = m->f[i].path ? cJSON_CreateString(m->f[i].path) :
		    m->f[i].cval ? cJSON_Duplicate(m->f[i].cval, 1) :
				   cJSON_CreateNull();
		cJSON_AddItemToArray(d, x);
	}
	if (d) {
		cJSON_AddItemToArray(d, cJSON_CreateNumber(m->hib));
		cJSON_AddItemToArray(d, m->origin_field ?
				     cJSON_CreateString(m->origin_field) :
				     cJSON_CreateNull());
		cJSON_AddItemToArray(d, m->origin_human ?
				     cJSON_Duplicate(m->origin_human, 1) :
				     cJSON_CreateNull());
	}
	t = d && cJSON_GetArraySize(d) == M_N + 3 ? cJSON_PrintUnformatted(d) :
						     NULL;
	cJSON_Delete(d);
	if (!t)
		return KT_ENOMEM;
	kt_sha256_hex(t, strlen(t), m->digest);
	free(t);
	return 0;
}

int kt_map_parse(const char *text, size_t len, kt_map **out, char *err,
		 size_t cap)
{
	cJSON *j, *c;
	kt_map *m;
	int rc = 0, i, any = 0;

	*out = NULL;
	if (cap)
		err[0] = 0;
	j = kt_json_parse(text, len, KT_JSON_BOM | KT_JSON_NONUL, &rc);
	if (!j && rc == KT_ENOMEM) {
		if (cap)
			snprintf(err, cap, "out of memory");
		return rc;
	}
	if (!j)
		return bad(err, cap, 1, "%snot valid JSON", "");
	if (!cJSON_IsObject(j)) {
		cJSON_Delete(j);
		return bad(err, cap, 1, "%sa map is a JSON object", "");
	}
	if (!(m = calloc(1, sizeof(*m)))) {
		cJSON_Delete(j);
		return KT_ENOMEM;
	}
	m->hib = -1;
	cJSON_ArrayForEach(c, j) {
		unsigned ln = line_of(text, len, c->string, 0);
		const cJSON *d;

		for (d = j->child; d != c; d = d->next)
			if (!strcmp(d->string, c->string))
				break;
		if (d != c) {
			rc = bad(err, cap, line_of(text, len, c->string, 1),
				 "\"%s\": given twice", c->string);
			break;
		}
		if (!strcmp(c->string, "higher_is_better")) {
			const cJSON *b = cJSON_GetObjectItem(c, "const");

			if (!cJSON_IsObject(c) || !b || cJSON_GetArraySize(c) != 1)
				b = c;          /* {"const": B} is B */
			if (!cJSON_IsBool(b)) {
				rc = bad(err, cap, ln, "%shigher_is_better: "
					 "expected true or false", "");
				break;
			}
			m->hib = cJSON_IsTrue(b);
			continue;
		}
		if (!strcmp(c->string, "origin")) {
			const cJSON *fd = cJSON_GetObjectItem(c, "field");
			const cJSON *hu = cJSON_GetObjectItem(c, "human");

			if (!cJSON_IsObject(c) || !cJSON_IsString(fd) ||
			    !*fd->valuestring || !cJSON_IsArray(hu)) {
				rc = bad(err, cap, ln, "%sorigin: expected "
					 "{\"field\": F, \"human\": [values]}",
					 "");
				break;
			}
			if (!(m->origin_field = strdup(fd->valuestring)) ||
			    !(m->origin_human = cJSON_Duplicate(hu, 1))) {
				rc = KT_ENOMEM;
				break;
			}
			continue;
		}
		for (i = 0; i < M_N; i++)
			if (!strcmp(c->string, mkeys[i]))
				break;
		if (i == M_N) {
			rc = bad(err, cap, ln, "\"%s\": not a map key (run, step, "
				 "parent, ts, time_ms, ref_time_ms, speedup, "
				 "higher_is_better, correct, text, origin, "
				 "workload, scenario, metric, baseline)",
				 c->string);
			break;
		}
		if (cJSON_IsString(c)) {
			if (!*c->valuestring) {
				rc = bad(err, cap, ln, "%s: an empty field name",
					 c->string);
				break;
			}
			m->f[i].path = strdup(c->valuestring);
		} else if (cJSON_IsObject(c) && cJSON_GetObjectItem(c, "const") &&
			   cJSON_GetArraySize(c) == 1) {
			m->f[i].cval = cJSON_Duplicate(cJSON_GetObjectItem(c,
								"const"), 1);
		} else if (cJSON_IsNumber(c) || cJSON_IsBool(c)) {
			m->f[i].cval = cJSON_Duplicate(c, 1);
		} else {
			rc = bad(err, cap, ln, "%s: expected a field name "
				 "(\"a.b\") or a constant ({\"const\": V})",
				 c->string);
			break;
		}
		if (!m->f[i].path && !m->f[i].cval) {
			rc = KT_ENOMEM;
			break;
		}
		if (m->f[i].cval && const_misfit(i, m->f[i].cval)) {
			char v[48];
			char *pv = cJSON_PrintUnformatted(m->f[i].cval);
			int k = snprintf(err, cap, "%u: %s: the constant ", ln,
					 c->string);

			snprintf(v, sizeof(v), "%s", pv ? pv : "?");
			free(pv);
			if (k > 0 && (size_t)k < cap)
				snprintf(err + k, cap - (size_t)k, "%s is not "
					 "%s", v, const_misfit(i, m->f[i].cval));
			rc = KT_EPARSE;
			break;
		}
		any |= i == M_TIME || i == M_SPEEDUP;
	}
	if (!rc && !any)
		rc = bad(err, cap, 1, "%sthe map names neither time_ms nor "
			 "speedup", "");
	if (!rc && m->hib >= 0)
		rc = hib_contradicts(m, text, len, err, cap);
	if (!rc)
		rc = map_digest(m);
	cJSON_Delete(j);
	if (rc) {
		kt_map_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

/* The value at a dotted path ("a.b.0.c": members, array indexes). */
static const cJSON *at_path(const cJSON *o, const char *path)
{
	char seg[128];
	const char *p = path;

	while (o && *p) {
		size_t n = strcspn(p, ".");

		if (n >= sizeof(seg))
			return NULL;
		memcpy(seg, p, n);
		seg[n] = 0;
		p += n + (p[n] == '.');
		if (cJSON_IsArray(o) && n && strspn(seg, "0123456789") == n)
			o = cJSON_GetArrayItem(o, atoi(seg));
		else if (cJSON_IsObject(o))
			o = cJSON_GetObjectItemCaseSensitive(o, seg);
		else
			return NULL;
	}
	return o;
}

static const cJSON *get(const kt_map *m, int k, const cJSON *rec)
{
	if (m->f[k].cval)
		return m->f[k].cval;
	if (!m->f[k].path)
		return NULL;
	return at_path(rec, m->f[k].path);
}

/* A value as text (string, number, bool), in buf; NULL for none/null. */
static const char *as_text(const cJSON *v, char *buf, size_t cap)
{
	if (cJSON_IsString(v))
		return v->valuestring;
	if (cJSON_IsNumber(v)) {
		snprintf(buf, cap, "%.17g", v->valuedouble);
		return buf;
	}
	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v) ? "true" : "false";
	return NULL;
}

typedef struct mctx {
	kt_imp *imp;
	const kt_file *f;
	const kt_map *m;
	int quiet;              /* the first pass: problems are said once */
	/* step value -> seq of its bench, in this run */
	char **steps;
	uint64_t *seqs;
	size_t n, cap;
	/* mapped field paths some record holds (M_N: the origin field) */
	unsigned char found[M_N + 1];
	double round;           /* the record's attempt number (one_record) */
} mctx;

static uint64_t step_seq(const mctx *x, const char *step)
{
	size_t i;

	for (i = x->n; i-- > 0;)
		if (!strcmp(x->steps[i], step))
			return x->seqs[i];
	return 0;
}

static int remember(mctx *x, const char *step, uint64_t seq)
{
	if (x->n == x->cap) {
		size_t c = x->cap ? 2 * x->cap : 64;
		char **s = realloc(x->steps, c * sizeof(*s));
		uint64_t *q;

		if (!s)
			return KT_ENOMEM;
		x->steps = s;
		if (!(q = realloc(x->seqs, c * sizeof(*q))))
			return KT_ENOMEM;
		x->seqs = q;
		x->cap = c;
	}
	if (!(x->steps[x->n] = strdup(step)))
		return KT_ENOMEM;
	x->seqs[x->n++] = seq;
	return 0;
}

/* A record's correctness: 1, 0, or -1 when not checked (absent, null,
 * or a value that says neither: FORMAT.md section 11.1 lists the words). */
static int correct_of(const cJSON *c)
{
	static const char *const yes[] = { "true", "yes", "pass", "passed" };
	static const char *const no[] = { "false", "no", "fail", "failed" };
	size_t i;

	if (cJSON_IsBool(c))
		return cJSON_IsTrue(c);
	if (cJSON_IsNumber(c) && (c->valuedouble == 0 || c->valuedouble == 1))
		return c->valuedouble == 1;
	for (i = 0; cJSON_IsString(c) && i < 4; i++) {
		if (!strcasecmp(c->valuestring, yes[i]))
			return 1;
		if (!strcasecmp(c->valuestring, no[i]))
			return 0;
	}
	return -1;
}

/* Whether s is one finite number and nothing else (white space around
 * it allowed): *d is then that number.  JSON logs often quote numbers
 * ("ms": "1.0"); a quoted number is read as the number.  Only a JSON
 * number (RFC 8259 grammar, kt_json_number) is one: strtod alone would
 * read "0x10" as 16, "inf" and "1e3f"-like C forms a log writer never
 * meant as a figure. */
static int quoted_number(const char *s, double *d)
{
	const unsigned char *b, *e, *at;
	const char *why;

	while (isspace((unsigned char)*s))
		s++;
	b = (const unsigned char *)s;
	e = b + strlen(s);
	while (e > b && isspace(e[-1]))
		e--;
	if (e == b || kt_json_number(b, e, &at, &why) != e)
		return 0;
	*d = strtod(s, NULL);
	return isfinite(*d);
}

/* A number field: 1 and *v, 0 when absent or null or no value.  A number
 * or a quoted number is read; anything else (a word, a bool, an object)
 * and a negative number are no value, warned once each (*warned set):
 * the record's other fields, its idea above all, are kept.  0 is how
 * some logs say "not measured" (a tree search's skipped node): no value,
 * as null, not warned - the record keeps its idea, and is a bench only
 * when its check failed (one_record). */
static int num_field(mctx *x, int k, const cJSON *rec, uint64_t line,
		     double *v, int *warned)
{
	const cJSON *c = get(x->m, k, rec);
	const char *path = x->m->f[k].path ? x->m->f[k].path : "const";
	double d;

	if (!c || cJSON_IsNull(c))
		return 0;
	if (cJSON_IsNumber(c))
		d = c->valuedouble;
	else if (!cJSON_IsString(c) || !quoted_number(c->valuestring, &d)) {
		kt_imp_warn(x->imp, x->f, line, "%s: field \"%s\" is not a "
			    "number; no %s kept", mkeys[k], path, mkeys[k]);
		*warned = 1;
		return 0;
	}
	if (d < 0) {
		kt_imp_warn(x->imp, x->f, line, "%s: field \"%s\" is %g, "
			    "below 0; no %s kept", mkeys[k], path, d, mkeys[k]);
		*warned = 1;
		return 0;
	}
	if (d == 0)
		return 0;
	*v = d < 1e300 ? d : -1;
	return 1;
}

static int one_record(mctx *x, const cJSON *rec, uint64_t line, uint64_t off,
		      uint64_t rlen)
{
	const kt_map *m = x->m;
	char b1[64], b2[64];
	const char *step = as_text(get(m, M_STEP, rec), b1, sizeof(b1));
	const char *par = as_text(get(m, M_PARENT, rec), b2, sizeof(b2));
	const char *text;
	double t = -2, ref = -2, sp = -2;
	int64_t ts = kt_impx_ts_json(get(m, M_TS, rec));
	uint64_t parent = 0, seq = 0;
	int human = 0, rc, k, warned = 0, ok;
	cJSON *p;
	static const int strs[] = { M_WORKLOAD, M_SCENARIO, M_METRIC,
				    M_BASELINE };

	num_field(x, M_TIME, rec, line, &t, &warned);
	num_field(x, M_REF, rec, line, &ref, &warned);
	num_field(x, M_SPEEDUP, rec, line, &sp, &warned);
	ok = correct_of(get(m, M_CORRECT, rec));
	text = cJSON_IsString(get(m, M_TEXT, rec)) ?
	       get(m, M_TEXT, rec)->valuestring : NULL;
	if (par) {
		parent = step_seq(x, par);
		if (!parent)
			kt_imp_warn(x->imp, x->f, line, "parent \"%s\": no "
				    "earlier record has this step; kept "
				    "without a parent", par);
	}
	if (m->origin_field) {
		const cJSON *o = at_path(rec, m->origin_field), *h;

		cJSON_ArrayForEach(h, m->origin_human)
			if (o && cJSON_Compare(o, h, 1))
				human = 1;
	}
	if (text && *text) {
		cJSON *msg = kt_impx_msg(human ? "user" : "assistant", human, text,
				       NULL);

		rc = kt_impx_emit_valid(x->imp, NULL, KT_KIND_MESSAGE, parent, ts,
				human ? "human" : "agent", msg, line, off, rlen,
				&seq);
		if (rc)
			return rc;
	}
	/* no time and no speedup (absent, null, or a value warned above):
	 * nothing was measured, so no bench: a bench without a figure would
	 * start a series of its own.  Its idea stays a message, which a
	 * later record's parent may name.  A failed check is an attempt
	 * even unmeasured (a tree search's wrong node): still a bench */
	if (t == -2 && sp == -2 && ok != 0) {
		if (!seq && !warned)
			kt_imp_warn(x->imp, x->f, line, "no time_ms or speedup "
				    "and no text; nothing kept");
		return seq && step ? remember(x, step, seq) : 0;
	}
	seq = 0;
	if (!(p = cJSON_CreateObject()))
		return KT_ENOMEM;
	if (t > 0)
		cJSON_AddNumberToObject(p, "time_ms", t);
	else
		cJSON_AddNullToObject(p, "time_ms");
	if (ref > 0)
		cJSON_AddNumberToObject(p, "ref_time_ms", ref);
	if (sp > 0)
		cJSON_AddNumberToObject(p, "speedup", sp);
	if (ok >= 0)
		cJSON_AddBoolToObject(p, "correct", ok);
	else
		cJSON_AddNullToObject(p, "correct");   /* not checked */
	for (k = 0; k < 4; k++) {
		char b3[64];
		const char *s = as_text(get(m, strs[k], rec), b3, sizeof(b3));

		if (s && *s)
			cJSON_AddStringToObject(p, mkeys[strs[k]], s);
	}
	if (!cJSON_GetObjectItem(p, "metric"))
		cJSON_AddStringToObject(p, "metric", t > -2 || (sp == -2 &&
					(m->f[M_TIME].path || m->f[M_TIME].cval)) ?
					"time" : "speedup");
	cJSON_AddStringToObject(p, "source", "map");
	/* the record says whose idea this code is: blame credits the person
	 * (FORMAT.md section 2 `origin`), whether the idea asks or states */
	if (human && text && *text)
		cJSON_AddStringToObject(p, "origin", "human");
	/* the record's attempt number orders the run's results (FORMAT.md
	 * section 11.1), and its step names the candidate it measured, so
	 * two records are two versions of the code */
	cJSON_AddNumberToObject(p, "round", x->round);
	if (step && !cJSON_GetObjectItem(p, "candidate"))
		cJSON_AddStringToObject(p, "candidate", step);
	if (step || m->hib >= 0) {
		cJSON *e = cJSON_AddObjectToObject(p, "extra");

		if (e && step)
			cJSON_AddStringToObject(e, "step", step);
		if (e && m->hib >= 0)
			cJSON_AddBoolToObject(e, "higher_is_better", m->hib);
	}
	/* the measurement is the agent's whoever had the idea: a person's
	 * idea is said by its message (actor human) and the bench's origin */
	rc = kt_impx_emit_valid(x->imp, NULL, KT_KIND_BENCH, parent, ts,
			"agent", p, line, off, rlen, &seq);
	if (!rc && step)
		rc = remember(x, step, seq);
	return rc;
}

/* Warn of a line s[0..n) that is no JSON at all, saying where and why.
 * Python's json.dumps writes NaN, Infinity and -Infinity for float
 * figures it cannot write in JSON; no JSON reader takes them, and a user
 * who sees only "not an object" cannot tell why their log was refused. */
static void bad_line(mctx *x, const char *s, size_t n, uint64_t line)
{
	size_t off = 0, k;
	const char *why = "not JSON";
	static const char *const py[] = { "NaN", "Infinity", "-Infinity",
					   NULL };

	kt_json_check(s, n, KT_JSON_NONUL, &off, &why);
	for (k = 0; py[k]; k++)
		if (off < n && n - off >= strlen(py[k]) &&
		    !memcmp(s + off, py[k], strlen(py[k])))
			break;
	if (py[k])
		kt_imp_warn(x->imp, x->f, line, "not valid JSON: %s at byte "
			    "%zu (NaN and Infinity are not JSON numbers; "
			    "Python's json.dumps writes them unless "
			    "allow_nan=False); record skipped", py[k], off + 1);
	else
		kt_imp_warn(x->imp, x->f, line, "not valid JSON: %s at byte "
			    "%zu; record skipped", why, off + 1);
}

/* The records of f: JSONL objects, or one JSON array of objects.  Calls
 * fn for each object with its line, offset and length; a line that is not
 * JSON, or JSON but not an object, is warned (which of the two, and why)
 * and skipped. */
typedef int (*rec_fn)(mctx *x, const cJSON *rec, uint64_t line, uint64_t off,
		      uint64_t len, void *arg);

static int each_record(mctx *x, rec_fn fn, void *arg)
{
	const char *t = (const char *)x->f->data;
	size_t n = x->f->len, i = 0;
	uint64_t line = 0;
	int rc = 0;

	while (i < n && isspace((unsigned char)t[i]))
		i++;
	if (i < n && t[i] == '[') {
		cJSON *a = kt_json_parse(t, n, KT_JSON_BOM | KT_JSON_NONUL,
					 &rc), *o;

		if (!a && rc == KT_ENOMEM)
			return rc;
		if (!cJSON_IsArray(a)) {
			cJSON_Delete(a);
			if (!x->quiet)
				kt_imp_warn(x->imp, x->f, 0, "not a JSON array "
					    "of records nor JSONL");
			return KT_EPARSE;
		}
		cJSON_ArrayForEach(o, a) {
			line++;
			if (!cJSON_IsObject(o)) {
				if (!x->quiet)
					kt_imp_warn(x->imp, x->f, 0, "record "
						    "%llu is not an object; "
						    "skipped",
						    (unsigned long long)line);
			}
			else if ((rc = fn(x, o, 0, 0, 0, arg)))
				break;
		}
		cJSON_Delete(a);
		return rc;
	}
	i = 0;
	while (i < n && !rc) {
		const char *nl = memchr(t + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - t) : n, b = i;
		cJSON *o;

		line++;
		i = e + 1;
		while (b < e && isspace((unsigned char)t[b]))
			b++;
		if (b == e)
			continue;
		o = kt_json_parse(t + b, e - b, KT_JSON_NONUL, &rc);
		if (!o && rc == KT_ENOMEM)
			break;
		rc = 0;
		if (!o && !x->quiet)
			bad_line(x, t + b, e - b, line);
		else if (!cJSON_IsObject(o)) {
			if (!x->quiet)
				kt_imp_warn(x->imp, x->f, line, "not a JSON "
					    "object; record skipped");
		}
		else
			rc = fn(x, o, line, b, e - b, arg);
		cJSON_Delete(o);
	}
	return rc;
}

/* ---- runs: records grouped by their `run` value, in order of appearance */
struct runs {
	char **v;
	size_t n;
	const char *want;       /* the run being imported */
};

static const char *run_of(const kt_map *m, const cJSON *rec, char *buf,
			  size_t cap)
{
	const char *r = as_text(get(m, M_RUN, rec), buf, cap);

	return r && *r ? r : "";
}

static int collect_run(mctx *x, const cJSON *rec, uint64_t line, uint64_t off,
		       uint64_t len, void *arg)
{
	struct runs *r = arg;
	char b[64];
	const char *v = run_of(x->m, rec, b, sizeof(b));
	size_t i;
	char **q;

	(void)line, (void)off, (void)len;
	for (i = 0; i < M_N; i++)
		if (x->m->f[i].path && at_path(rec, x->m->f[i].path))
			x->found[i] = 1;   /* null too: "no parent" is a value */
	if (x->m->origin_field && at_path(rec, x->m->origin_field))
		x->found[M_N] = 1;
	for (i = 0; i < r->n; i++)
		if (!strcmp(r->v[i], v))
			return 0;
	if (!(q = realloc(r->v, (r->n + 1) * sizeof(*q))))
		return KT_ENOMEM;
	r->v = q;
	if (!(r->v[r->n] = strdup(v)))
		return KT_ENOMEM;
	r->n++;
	return 0;
}

/* One record of the run being imported, kept until the run's records
 * are put in attempt order (by_round). */
struct rec {
	cJSON *j;
	uint64_t line, off, len;
	double round;           /* the step's number, else the file position */
	size_t pos;
};

struct recs {
	struct runs *r;
	struct rec *v;
	size_t n, cap;
	int numbered;           /* every record's step is a number */
};

static int import_rec(mctx *x, const cJSON *rec, uint64_t line, uint64_t off,
		      uint64_t len, void *arg)
{
	struct recs *rs = arg;
	char b[64];
	const cJSON *st = get(x->m, M_STEP, rec);
	struct rec *e;

	if (strcmp(run_of(x->m, rec, b, sizeof(b)), rs->r->want))
		return 0;
	if (KT_GROW(rs->v, rs->cap, rs->n + 1))
		return KT_ENOMEM;
	e = &rs->v[rs->n];
	if (!(e->j = cJSON_Duplicate(rec, 1)))
		return KT_ENOMEM;
	e->line = line, e->off = off, e->len = len;
	e->pos = rs->n++;
	e->round = cJSON_IsNumber(st) ? st->valuedouble : (double)e->pos + 1;
	rs->numbered &= cJSON_IsNumber(st);
	return 0;
}

/* Attempt order: by round, file order among equal rounds. */
static int by_round(const void *a, const void *b)
{
	const struct rec *p = a, *q = b;

	if (p->round != q->round)
		return p->round < q->round ? -1 : 1;
	return p->pos < q->pos ? -1 : p->pos > q->pos;
}

/* The records of run r->want as events, in attempt order: by the step
 * when every record's step is a number (a round log written out of
 * order), else in file order (a journal appends each attempt as it is
 * evaluated), each bench with its attempt number as `round`. */
static int import_run(mctx *x, struct runs *r)
{
	struct recs rs = { r, NULL, 0, 0, 1 };
	size_t i;
	int rc = each_record(x, import_rec, &rs);

	if (!rc && rs.numbered)
		qsort(rs.v, rs.n, sizeof(*rs.v), by_round);
	/* some steps numbers, some not: none orders, the file does */
	for (i = 0; !rc && !rs.numbered && i < rs.n; i++)
		rs.v[i].round = (double)rs.v[i].pos + 1;
	for (i = 0; !rc && i < rs.n; i++) {
		x->round = rs.v[i].round;
		rc = one_record(x, rs.v[i].j, rs.v[i].line, rs.v[i].off,
				rs.v[i].len);
	}
	for (i = 0; i < rs.n; i++)
		cJSON_Delete(rs.v[i].j);
	free(rs.v);
	return rc;
}

/* A mapped field that no record holds is a map that does not fit the
 * file (a misspelt name, a path one level off): said once per field, a
 * problem (--strict stops). */
static void unmatched(mctx *x)
{
	int i;

	for (i = 0; i <= M_N; i++) {
		const char *path = i < M_N ? x->m->f[i].path :
				   x->m->origin_field;

		if (path && !x->found[i])
			kt_imp_warn(x->imp, x->f, 0, "map: field \"%s\" (%s) "
				    "is in no record", path,
				    i < M_N ? mkeys[i] : "origin");
	}
}

/*
 * Whether the run just begun was stored from this file with another map:
 * the run keeps its events as first read (seqs are never renumbered, a
 * store is append-only), so this map's reading would be silently dropped
 * or, past the stored events, appended onto the other reading.  Say it
 * once and add nothing; a map whose `run` names another run keeps both
 * readings.  A run stored without a digest (imported before maps were
 * recorded in its meta, or a copy of such a run) cannot be told apart:
 * an event-by-event comparison would also flag what this version reads
 * differently from the same map, so it is said and nothing is added
 * either, rather than appending onto a reading of unknown origin.
 * 1 said (nothing to add), 0 import, or KT_ENOMEM / a store error.
 */
static int other_map(kt_imp *imp, const kt_file *f, const kt_map *m)
{
	char *sm;
	cJSON *j, *h;
	int rc = kt_imp_stored_meta(imp, &sm), other;

	if (rc || !sm)
		return rc;
	j = kt_cjson_parse(sm, strlen(sm), NULL, &rc);
	free(sm);
	if (!j && rc == KT_ENOMEM)
		return rc;
	/* a meta that is not a JSON object holds no digest either */
	h = cJSON_GetObjectItemCaseSensitive(j, "map");
	if (cJSON_IsString(h)) {
		other = strcmp(h->valuestring, m->digest) != 0;
		if (other)
			kt_imp_warn(imp, f, 0, "already imported as run %.12s "
				    "with another map; nothing added (a map "
				    "whose \"run\" names another run keeps "
				    "both readings)", kt_imp_run_id(imp));
	} else {
		other = 1;
		kt_imp_warn(imp, f, 0, "already imported as run %.12s without "
			    "a map digest (stored before maps were recorded): "
			    "cannot tell whether this map differs from the "
			    "one used then; nothing added (a map whose \"run\" "
			    "names another run keeps both readings)",
			    kt_imp_run_id(imp));
	}
	cJSON_Delete(j);
	return other;
}

static int map_detect(const kt_file *f)
{
	(void)f;
	return 0;       /* only with --map */
}

static int map_import(kt_imp *imp, const kt_file *f)
{
	const kt_map *m = kt_imp_map(imp);
	mctx x;
	struct runs r = { NULL, 0, NULL };
	size_t i, j;
	int rc;

	if (!m) {
		kt_imp_warn(imp, f, 0, "format map needs --map MAP.json");
		return KT_EINVAL;
	}
	memset(&x, 0, sizeof(x));
	x.imp = imp;
	x.f = f;
	x.m = m;
	x.quiet = 1;
	rc = each_record(&x, collect_run, &r);
	x.quiet = 0;
	if (rc == KT_EPARSE)    /* say it once, then give up */
		rc = each_record(&x, collect_run, &r);
	if (!rc)
		unmatched(&x);
	for (i = 0; !rc && i < r.n; i++) {
		const char *base = kt_impx_base(f->rel ? f->rel : f->path);
		size_t n = strlen(base) + strlen(r.v[i]) + 8;
		char *ident = malloc(n);
		cJSON *meta = cJSON_CreateObject();

		if (!ident || !meta) {
			free(ident);
			cJSON_Delete(meta);
			rc = KT_ENOMEM;
			break;
		}
		snprintf(ident, n, "map:%s:%s", base, r.v[i]);
		cJSON_AddStringToObject(meta, "source", base);
		cJSON_AddStringToObject(meta, "map", m->digest);
		r.want = r.v[i];
		rc = kt_imp_run_begin(imp, ident, *r.v[i] ? r.v[i] : base, "map",
				      meta);
		free(ident);
		if (rc)
			break;
		rc = other_map(imp, f, m);
		if (rc == 1)
			rc = 0;
		else if (!rc)
			rc = import_run(&x, &r);
		rc = kt_imp_run_finish(imp, rc);
		for (j = 0; j < x.n; j++)
			free(x.steps[j]);
		x.n = 0;
	}
	for (i = 0; i < r.n; i++)
		free(r.v[i]);
	free(r.v);
	for (j = 0; j < x.n; j++)
		free(x.steps[j]);
	free(x.steps);
	free(x.seqs);
	return rc;
}

int kt_map_looks_like_rounds(const char *t, size_t n)
{
	static const char *const keys[] = { "time_ms", "_ms\"", "\"ms\"",
		"runtime",
		"latency", "speedup", "\"time\"", "elapsed", NULL };
	size_t i = 0, objs = 0, hits = 0;

	/* the first few lines: JSON objects, most with a time-like field */
	while (i < n && objs < 8) {
		const char *nl = memchr(t + i, '\n', n - i);
		size_t e = nl ? (size_t)(nl - t) : n, b = i, k;
		int hit = 0;

		i = e + 1;
		while (b < e && isspace((unsigned char)t[b]))
			b++;
		if (b == e)
			continue;
		if (t[b] != '{' || t[e - 1 - (t[e - 1] == '\r')] != '}')
			return 0;
		objs++;
		for (k = 0; keys[k] && !hit; k++) {
			size_t kl = strlen(keys[k]), q;

			for (q = b; q + kl <= e && !hit; q++)
				hit = !memcmp(t + q, keys[k], kl);
		}
		hits += hit;
	}
	return objs >= 2 && hits * 2 >= objs;
}

const kt_importer kt_importer_map = {
	.name = "map",
	.summary = "per-round JSON/JSONL read with --map MAP.json (README "
		   "\"Custom round logs\")",
	.detect = map_detect,
	.import = map_import,
};
