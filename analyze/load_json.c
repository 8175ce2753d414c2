/*
 * load_json.c - the analyzers' in-place JSON scanner: the members of an
 * event's payload found without building a tree (kt_an_js_fields), and the
 * reads of one member (kt_an_js_str, kt_an_js_num, kt_an_js_array; an_int.h
 * documents them).  load.c calls it for every event it loads and falls back
 * to cJSON where it refuses; moved out of load.c, which keeps the loading.
 *
 * JSON grammar: RFC 8259 (https://www.rfc-editor.org/rfc/rfc8259), the
 * number grammar shared with the import check (base/kt_json_scan.h);
 * escape decoding follows cJSON 1.7.15 parse_string /
 * utf16_literal_to_utf8.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "an_int.h"
#include "../base/kt_json_scan.h" /* kt_json_number */
/* ---- payload field scanner ---------------------------------------------------- */
struct js {
	const unsigned char *p, *e;
	int depth;
};

#define JS_MAXDEPTH 256

static void js_ws(struct js *j)
{
	while (j->p < j->e && (*j->p == ' ' || *j->p == '\t' ||
			       *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

/* A string at j->p ('"'): *b and *n its bytes without quotes, *esc whether it
 * holds escapes.  Escapes are validated as cJSON decodes them; \u0000, lone
 * surrogates, raw control bytes and NUL are refused (cJSON would keep some
 * of them, which only sends those texts to the fallback). */
static int js_str(struct js *j, const unsigned char **b, size_t *n, int *esc)
{
	const unsigned char *p = j->p + 1, *e = j->e;

	*esc = 0;
	for (;;) {
		unsigned c;

		/* plain bytes first, 16 at a time: the common case, and most
		 * of a tool result's bytes, which `log --json` skips */
		p = (const unsigned char *)kt_json_str_stop((const char *)p,
							    (const char *)e);
		if (p >= e || *p < 0x20)
			return -1;
		if (*p == '"')
			break;
		*esc = 1;
		if (p + 1 >= e)
			return -1;
		c = p[1];
		if (c == 'u') {
			unsigned cp, lo;

			if (kt_hex4(p + 2, e, &cp) || cp == 0 ||
			    (cp >= 0xDC00 && cp <= 0xDFFF))
				return -1;
			if (cp >= 0xD800 && cp <= 0xDBFF) {
				if (e - p < 12 || p[6] != '\\' || p[7] != 'u' ||
				    kt_hex4(p + 8, e, &lo) || lo < 0xDC00 ||
				    lo > 0xDFFF)
					return -1;
				p += 12;
			} else {
				p += 6;
			}
			continue;
		}
		if (c != 'b' && c != 'f' && c != 'n' && c != 'r' && c != 't' &&
		    c != '"' && c != '\\' && c != '/')
			return -1;
		p += 2;
	}
	*b = j->p + 1;
	*n = (size_t)(p - (j->p + 1));
	j->p = p + 1;
	return 0;
}

static int isdig(unsigned c)
{
	return c >= '0' && c <= '9';
}

/* RFC 8259 section 6, one grammar with the import check's
 * (base/kt_json_scan.h), so that what an import accepted the analyzers
 * read in place. */
static int js_num(struct js *j)
{
	const unsigned char *at;
	const char *why;
	const unsigned char *q = kt_json_number(j->p, j->e, &at, &why);

	if (!q)
		return -1;
	j->p = q;
	return 0;
}

static int js_lit(struct js *j, const char *w, size_t n)
{
	if ((size_t)(j->e - j->p) < n || memcmp(j->p, w, n))
		return -1;
	j->p += n;
	return 0;
}

static int js_val(struct js *j, kt_an_jv *out);

static int js_obj(struct js *j, const char *const *keys, int nkeys,
		  kt_an_jv *out)
{
	if (++j->depth > JS_MAXDEPTH)
		return -1;
	j->p++; /* '{' */
	js_ws(j);
	if (j->p < j->e && *j->p == '}') {
		j->p++;
		j->depth--;
		return 0;
	}
	for (;;) {
		const unsigned char *kb;
		size_t kn;
		int esc, k = -1;
		kt_an_jv v;

		js_ws(j);
		if (j->p >= j->e || *j->p != '"' || js_str(j, &kb, &kn, &esc))
			return -1;
		if (esc && nkeys)
			return -1; /* "te\u0078t" is "text" to cJSON */
		for (int i = 0; i < nkeys; i++)
			if (strlen(keys[i]) == kn && !memcmp(keys[i], kb, kn)) {
				k = i;
				break;
			}
		js_ws(j);
		if (j->p >= j->e || *j->p != ':')
			return -1;
		j->p++;
		js_ws(j);
		if (js_val(j, &v))
			return -1;
		if (k >= 0 && out[k].type == KT_AN_JS_NONE)
			out[k] = v;
		js_ws(j);
		if (j->p < j->e && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->e && *j->p == '}') {
			j->p++;
			j->depth--;
			return 0;
		}
		return -1;
	}
}

static int js_arr(struct js *j)
{
	if (++j->depth > JS_MAXDEPTH)
		return -1;
	j->p++; /* '[' */
	js_ws(j);
	if (j->p < j->e && *j->p == ']') {
		j->p++;
		j->depth--;
		return 0;
	}
	for (;;) {
		js_ws(j);
		if (js_val(j, NULL))
			return -1;
		js_ws(j);
		if (j->p < j->e && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->e && *j->p == ']') {
			j->p++;
			j->depth--;
			return 0;
		}
		return -1;
	}
}

static int js_val(struct js *j, kt_an_jv *out)
{
	const unsigned char *st = j->p;
	kt_an_jv v = {0};
	int rc;

	if (j->p >= j->e)
		return -1;
	switch (*j->p) {
	case '"': {
		const unsigned char *b;
		size_t n;

		rc = js_str(j, &b, &n, &v.esc);
		v.type = KT_AN_JS_STR;
		v.v = (const char *)b;
		v.n = n;
		if (out)
			*out = v;
		return rc;
	}
	case '{':
		rc = js_obj(j, NULL, 0, NULL);
		v.type = KT_AN_JS_OBJ;
		break;
	case '[':
		rc = js_arr(j);
		v.type = KT_AN_JS_ARR;
		break;
	case 't':
		rc = js_lit(j, "true", 4);
		v.type = KT_AN_JS_TRUE;
		break;
	case 'f':
		rc = js_lit(j, "false", 5);
		v.type = KT_AN_JS_FALSE;
		break;
	case 'n':
		rc = js_lit(j, "null", 4);
		v.type = KT_AN_JS_NULL;
		break;
	default:
		rc = js_num(j);
		v.type = KT_AN_JS_NUM;
		break;
	}
	v.v = (const char *)st;
	v.n = (size_t)(j->p - st);
	if (out)
		*out = v;
	return rc;
}

int kt_an_js_fields(const char *p, size_t n, const char *const *keys,
		    int nkeys, kt_an_jv *out)
{
	struct js j = {(const unsigned char *)p, (const unsigned char *)p + n, 0};

	for (int i = 0; i < nkeys; i++)
		memset(&out[i], 0, sizeof(out[i]));
	if (!p)
		return -1;
	js_ws(&j);
	if (j.p >= j.e || *j.p != '{')
		return -1;
	return js_obj(&j, keys, nkeys, out) ? -1 : 0;
}

long kt_an_js_str(const kt_an_jv *v, char *dst, size_t cap)
{
	const unsigned char *p = (const unsigned char *)v->v, *e = p + v->n;
	size_t o = 0;

	if (v->type != KT_AN_JS_STR || !cap)
		return -1;
	if (!v->esc) {
		/* js_str let no NUL or control byte through */
		if (v->n >= cap)
			return -1;
		memcpy(dst, v->v, v->n);
		dst[v->n] = 0;
		return (long)v->n;
	}
	while (p < e) {
		unsigned cp, lo;
		unsigned char u[4];
		size_t ul;

		if (*p != '\\') {
			if (o + 1 >= cap || !*p)
				return -1;
			dst[o++] = (char)*p++;
			continue;
		}
		if (p + 1 >= e)
			return -1;
		switch (p[1]) {
		case 'b': u[0] = '\b'; ul = 1; break;
		case 'f': u[0] = '\f'; ul = 1; break;
		case 'n': u[0] = '\n'; ul = 1; break;
		case 'r': u[0] = '\r'; ul = 1; break;
		case 't': u[0] = '\t'; ul = 1; break;
		case '"': case '\\': case '/': u[0] = p[1]; ul = 1; break;
		case 'u':
			if (kt_hex4(p + 2, e, &cp) || cp == 0 ||
			    (cp >= 0xDC00 && cp <= 0xDFFF))
				return -1;
			if (cp >= 0xD800 && cp <= 0xDBFF) {
				if (e - p < 12 || p[6] != '\\' || p[7] != 'u' ||
				    kt_hex4(p + 8, e, &lo) || lo < 0xDC00 || lo > 0xDFFF)
					return -1;
				cp = 0x10000 + (((cp & 0x3FF) << 10) | (lo & 0x3FF));
				p += 6;
			}
			/* cp is a scalar value here (lone surrogates and
			 * \u0000 refused above): encoded as it is */
			ul = kt_utf8_enc(cp, u);
			p += 4; /* + 2 below */
			break;
		default:
			return -1;
		}
		p += 2;
		if (o + ul >= cap)
			return -1;
		memcpy(dst + o, u, ul);
		o += ul;
	}
	dst[o] = 0;
	return (long)o;
}

/* Clinger's fast path (W. D. Clinger, "How to read floating point numbers
 * accurately", PLDI 1990): a decimal of at most 15 digits times a power of
 * ten of at most 22 is one correctly rounded IEEE operation on two exact
 * doubles, so it equals strtod's correctly rounded result.  -1: use strtod. */
static int fast_num(const char *p, size_t n, double *out)
{
	static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
		1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
		1e19, 1e20, 1e21, 1e22};
	const char *e = p + n;
	uint64_t m = 0;
	int neg = 0, digits = 0, e10 = 0, x = 0, xneg = 0;
	double d;

	if (p < e && *p == '-')
		neg = 1, p++;
	for (; p < e && isdig((unsigned char)*p); p++) {
		if (m || *p != '0')
			digits++;
		m = m * 10 + (uint64_t)(*p - '0');
		if (digits > 15)
			return -1;
	}
	if (p < e && *p == '.')
		for (p++; p < e && isdig((unsigned char)*p); p++) {
			if (m || *p != '0')
				digits++;
			m = m * 10 + (uint64_t)(*p - '0');
			e10--;
			if (digits > 15)
				return -1;
		}
	if (p < e && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			xneg = *p++ == '-';
		for (; p < e && isdig((unsigned char)*p); p++)
			if ((x = x * 10 + (*p - '0')) > 400)
				return -1;
	}
	if (p != e)
		return -1;
	e10 += xneg ? -x : x;
	if (e10 < -22 || e10 > 22)
		return -1;
	d = (double)m;
	d = e10 < 0 ? d / p10[-e10] : d * p10[e10];
	*out = neg ? -d : d;
	return 0;
}

double kt_an_js_num(const kt_an_jv *v)
{
	char b[64], *end;
	double d;

	if (v->type != KT_AN_JS_NUM || v->n >= sizeof(b))
		return NAN;
	if (!fast_num(v->v, v->n, &d))
		return d;
	memcpy(b, v->v, v->n);
	b[v->n] = 0;
	d = strtod(b, &end);
	/* another LC_NUMERIC decimal point: not what cJSON would read */
	return end == b + v->n ? d : NAN;
}

void kt_an_js_array(const kt_an_jv *v, int (*fn)(const kt_an_jv *, void *),
		    void *arg)
{
	struct js j = {(const unsigned char *)v->v,
		       (const unsigned char *)v->v + v->n, 0};
	kt_an_jv el;

	if (v->type != KT_AN_JS_ARR)
		return;
	j.p++;
	js_ws(&j);
	if (j.p < j.e && *j.p == ']')
		return;
	for (;;) {
		js_ws(&j);
		if (js_val(&j, &el) || fn(&el, arg))
			return;
		js_ws(&j);
		if (j.p >= j.e || *j.p != ',')
			return;
		j.p++;
	}
}
