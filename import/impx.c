/*
 * impx.c - helpers shared by the Inspect AI and GPU-kernel benchmark
 * importers (see impx.h).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "impx.h"
#include "jsonstrict.h"

int64_t kt_impx_ts(const char *s)
{
	return kt_iso8601_ns(s, NULL);
}

int kt_impx_numv(const cJSON *v, double *out)
{
	char *end;
	double d;

	if (cJSON_IsNumber(v)) {
		d = v->valuedouble;
	} else if (cJSON_IsString(v) && v->valuestring[0]) {
		errno = 0;
		d = strtod(v->valuestring, &end);
		while (*end == ' ')
			end++;
		if (*end || errno == ERANGE)
			return 0;
	} else {
		return 0;
	}
	if (!isfinite(d))
		return 0;
	*out = d;
	return 1;
}

int kt_impx_num(const cJSON *o, const char *key, double *out)
{
	return kt_impx_numv(cJSON_GetObjectItemCaseSensitive(o, key), out);
}

cJSON *kt_impx_usage(const cJSON *u, const char *const keys[4])
{
	static const char *const ours[4] = { "input", "output", "cache_read",
					     "cache_creation" };
	cJSON *o;
	double v;
	int i;

	if (!cJSON_IsObject(u) || !(o = cJSON_CreateObject()))
		return NULL;
	for (i = 0; i < 4; i++)
		if (keys[i] && kt_impx_num(u, keys[i], &v))
			kt_imp_add_count(o, ours[i], v);
	return o;
}

int kt_impx_bool(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	const char *s;

	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v) ? 1 : 0;
	if (cJSON_IsNumber(v) && (v->valuedouble == 0 || v->valuedouble == 1))
		return v->valuedouble == 1;
	if (!cJSON_IsString(v))
		return -1;
	s = v->valuestring;
	if (!strcmp(s, "True") || !strcmp(s, "true") || !strcmp(s, "1"))
		return 1;
	if (!strcmp(s, "False") || !strcmp(s, "false") || !strcmp(s, "0"))
		return 0;
	return -1;
}

int kt_impx_emit(kt_imp *imp, int kind, uint64_t parent, int64_t ts_ns,
		 const char *actor, cJSON *payload, const kt_file *f,
		 uint64_t line, uint64_t off, uint64_t len, uint64_t *seq)
{
	kt_ev ev;

	memset(&ev, 0, sizeof(ev));
	ev.kind = kind;
	ev.parent = parent;
	ev.ts_ns = ts_ns;
	ev.actor = actor;
	ev.payload = payload;
	ev.file = f;
	ev.line = line;
	ev.off = off;
	ev.rec_len = len;
	return kt_imp_emit(imp, &ev, seq);
}

int kt_impx_text(kt_imp *imp, cJSON *payload, const char *key,
		 const char *blob_key, const char *text, size_t len)
{
	char hex[KT_HASH_HEX + 1];
	char *clean;
	size_t n, cut;
	int rc = 0;

	if (!text)
		text = "", len = 0;
	if (!(clean = kt_utf8_fix(text, len, KT_UTF8_DROP_NUL, &n, NULL)))
		return KT_ENOMEM;
	cut = n;
	if (n > KT_IMPX_INLINE_MAX) {
		cut = kt_utf8_floor(clean, KT_IMPX_INLINE_MAX);
		if (blob_key) {
			rc = kt_imp_blob(imp, text, len, NULL, hex);
			if (rc == 0 && !cJSON_AddStringToObject(payload,
								blob_key, hex))
				rc = KT_ENOMEM;
		}
		clean[cut] = 0;
	}
	if (rc == 0 && !cJSON_AddStringToObject(payload, key, clean))
		rc = KT_ENOMEM;
	free(clean);
	return rc;
}

cJSON *kt_impx_parse(kt_imp *imp, const kt_file *f)
{
	cJSON *root;
	int rc;

	root = kt_cjson_parse((const char *)f->data, f->len, NULL, &rc);
	if (!root) {
		/* out of memory is the import's failure, not the file's */
		if (rc == KT_ENOMEM)
			kt_imp_fail(imp, rc);
		else
			kt_imp_json_bad(imp, f, 0, (const char *)f->data,
					f->len);
		return NULL;
	}
	/* bytes after the document, raw control characters, numbers like
	 * 01: not JSON (RFC 8259), so the file is refused like one cJSON
	 * cannot parse */
	kt_imp_json_strict(imp, f, 0, (const char *)f->data, f->len, &root);
	return root;
}

int kt_impx_file_run(const kt_file *f, char **name, cJSON **meta)
{
	const char *rel = f->rel ? f->rel : kt_basename(f->path);
	char *dot;

	*name = strdup(kt_basename(rel));
	*meta = *name ? cJSON_CreateObject() : NULL;
	if (!*meta) {
		free(*name);
		*name = NULL;
		return KT_ENOMEM;
	}
	if ((dot = strrchr(*name, '.')) && dot != *name)
		*dot = 0;
	cJSON_AddStringToObject(*meta, "source", rel);
	return 0;
}

int kt_impx_jsonl(kt_imp *imp, const kt_file *f,
		  int (*fn)(cJSON *rec, uint64_t line, uint64_t off,
			    uint64_t len, void *arg), void *arg)
{
	const char *p = (const char *)f->data, *end = p + f->len;
	uint64_t line = 0;
	int rc = 0;

	while (p < end && rc == 0) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *q = p;
		size_t n;
		cJSON *rec;

		line++;
		while (q < le && isspace((unsigned char)*q))
			q++;
		n = (size_t)(le - p);
		if (q < le) {
			rec = kt_cjson_parse(p, n, NULL, &rc);
			if (!rec && rc == KT_ENOMEM) {
				break;
			} else if (!rec) {
				rc = 0;
				kt_imp_json_bad(imp, f, line, p, n);
			} else if (kt_imp_json_strict(imp, f, line, p, n,
						      &rec)) {
				/* warned */
			} else {
				rc = fn(rec, line, (uint64_t)(p -
					(const char *)f->data), n, arg);
				cJSON_Delete(rec);
			}
		}
		p = nl ? nl + 1 : end;
	}
	return rc;
}

const char *kt_impx_base(const char *p)
{
	return p ? kt_basename(p) : NULL;
}

int kt_impx_has(const kt_file *f, size_t n, const char *needle)
{
	size_t m = strlen(needle);

	if (n > f->len)
		n = f->len;
	/* a "key" needle: the detectors' sniff filter may know it is absent */
	if (m >= 2 && needle[0] == '"' && needle[m - 1] == '"' &&
	    kt_impx_span_absent(f->data, n, needle + 1, m - 2))
		return 0;
	return m <= n && memmem(f->data, n, needle, m) != NULL;
}

int kt_impx_detect_open(const kt_file *f, size_t window, size_t *n)
{
	size_t i = 0;

	*n = f->len < window ? f->len : window;
	while (i < *n && isspace(f->data[i]))
		i++;
	return i < *n ? f->data[i] : 0;
}

/* ---- strict JSON warnings (impx.h) ---- */

/* The words a warning about line `line` (0: the whole file) ends with:
 * what is not kept.  Under --strict nothing of the source is kept and the
 * driver says so, so the driver leaves them out (kt_imp_warn). */
static const char *skipped(uint64_t line)
{
	return line ? "line skipped" : "file skipped";
}

/* "file:line: invalid JSON (RFC 8259): WHY at byte OFF: line skipped",
 * or for a whole file (line 0) at the line of OFF, "file skipped" */
static void strict_warn(kt_imp *imp, const kt_file *f, uint64_t line,
			const char *s, size_t off, const char *why)
{
	/* \u0000 is valid JSON: do not call it invalid */
	const char *pre = strcmp(why, KT_JSON_NUL_WHY) ?
			  "invalid JSON (RFC 8259): " : "";

	if (line) {
		kt_imp_warn(imp, f, line, "%s%s at byte %zu: %s",
			    pre, why, off, skipped(line));
	} else {
		/* a whole-file document: say on which line */
		uint64_t l = 1;

		for (size_t i = 0; i < off; i++)
			l += s[i] == '\n';
		kt_imp_warn(imp, f, l, "%s%s at byte %zu: %s",
			    pre, why, off, skipped(0));
	}
}

static unsigned strict_flags(const kt_file *f, const char *s)
{
	return KT_JSON_NONUL |
	       (f && s == (const char *)f->data ? KT_JSON_BOM : 0);
}

int kt_imp_json_strict(kt_imp *imp, const kt_file *f, uint64_t line,
		       const char *s, size_t n, cJSON **o)
{
	const char *why = NULL;
	size_t off = 0;

	if (!*o || !kt_json_check(s, n, strict_flags(f, s), &off, &why))
		return 0;
	strict_warn(imp, f, line, s, off, why);
	cJSON_Delete(*o);
	*o = NULL;
	return 1;
}

int kt_imp_json_strict_utf8(kt_imp *imp, const kt_file *f, uint64_t line,
			    const char *s, size_t n, cJSON **o)
{
	if (!*o || !kt_json_check(s, n, strict_flags(f, s) | KT_JSON_UTF8,
				  NULL, NULL))
		return 0;
	/* something is wrong: invalid UTF-8 anywhere is said first, as when
	 * the caller checked it before parsing */
	if (!kt_utf8_valid(s, n, NULL)) {
		cJSON_Delete(*o);
		*o = NULL;
		return -1;
	}
	return kt_imp_json_strict(imp, f, line, s, n, o);
}

int kt_imp_json_bom(kt_imp *imp, const kt_file *f, uint64_t line,
		    const char *s, size_t n)
{
	const char *why = NULL;
	size_t off = 0;

	if (!kt_json_check(s, n, strict_flags(f, s), &off, &why) ||
	    strcmp(why, KT_JSON_BOM_WHY))
		return 0;
	strict_warn(imp, f, line, s, off, why);
	return 1;
}

/* RFC 8259 section 2's white space */
static int json_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int kt_imp_json_cut(kt_imp *imp, const kt_file *f, uint64_t line,
		    const char *s, size_t n)
{
	const char *fs = f ? (const char *)f->data : NULL, *fe, *q;

	/* s must lie in f (a caller's repaired copy is not where f ends) */
	if (!fs || s < fs || n > f->len || s - fs > (ptrdiff_t)(f->len - n))
		return 0;
	fe = fs + f->len;
	for (q = s + n; q < fe; q++)
		if (!json_ws(*q))
			return 0;
	/* a \u0000 or a byte order mark before the cut is not what ends it */
	if (!kt_json_truncated(s, n, s == fs ? KT_JSON_BOM : 0))
		return 0;
	kt_imp_warn(imp, f, line, "truncated: the file ends inside a JSON "
		    "value: %s", skipped(line));
	return 1;
}

int kt_imp_json_bad(kt_imp *imp, const kt_file *f, uint64_t line,
		    const char *s, size_t n)
{
	const char *why = NULL;
	size_t off = 0;

	if (kt_imp_json_cut(imp, f, line, s, n))
		return 1;
	if (kt_json_check(s, n, strict_flags(f, s), &off, &why)) {
		strict_warn(imp, f, line, s, off, why);
		return 1;
	}
	/* cJSON refused what the check accepts: it ran out of memory */
	kt_imp_warn(imp, f, line, "JSON not parsed (out of memory?): %s",
		    skipped(line));
	return 1;
}
