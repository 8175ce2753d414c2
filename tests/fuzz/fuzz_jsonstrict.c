/*
 * fuzz_jsonstrict.c - the RFC 8259 check (import/jsonstrict.c) that every
 * imported line and document passes after cJSON.
 *   - a text it accepts is one cJSON parses whole (nothing after it), and
 *     what cJSON prints of it is accepted again;
 *   - it agrees with a plain recursive-descent reading of the RFC 8259
 *     grammar below (no 16-byte skipping), on accept and on reject;
 *   - offsets stay inside the text, a reason is always given;
 *   - KT_JSON_BOM changes nothing but a leading byte order mark;
 *   - KT_JSON_UTF8 accepts exactly what is accepted without it and is
 *     UTF-8 (kt_utf8_valid), and refuses UTF-8 at the first bad byte;
 *   - kt_json_truncated: a text it calls cut is refused, and every proper
 *     prefix of an accepted text (up to 512 bytes) is either accepted,
 *     blank, or called cut.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../import/jsonstrict.h"

struct rd {
	const unsigned char *p, *e;
	int depth;
};

static void ws(struct rd *r)
{
	while (r->p < r->e && (*r->p == ' ' || *r->p == '\t' ||
			       *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

static int hex(struct rd *r, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++, r->p++) {
		int c;

		if (r->p >= r->e)
			return 0;
		c = *r->p;
		if (c >= '0' && c <= '9')
			*v = *v * 16 + (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v = *v * 16 + (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v = *v * 16 + (unsigned)(c - 'A' + 10);
		else
			return 0;
	}
	return 1;
}

static int str(struct rd *r)
{
	unsigned v, w;

	r->p++;
	for (;;) {
		if (r->p >= r->e || *r->p < 0x20)
			return 0;
		if (*r->p == '"') {
			r->p++;
			return 1;
		}
		if (*r->p++ != '\\')
			continue;
		if (r->p >= r->e)
			return 0;
		if (strchr("\"\\/bfnrt", *r->p) && *r->p) {
			r->p++;
			continue;
		}
		if (*r->p++ != 'u' || !hex(r, &v))
			return 0;
		if (v >= 0xdc00 && v <= 0xdfff)
			return 0;
		if (v >= 0xd800 && v <= 0xdbff) {
			if (r->e - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u')
				return 0;
			r->p += 2;
			if (!hex(r, &w) || w < 0xdc00 || w > 0xdfff)
				return 0;
		}
	}
}

#define D(c) ((c) >= '0' && (c) <= '9')

static int num(struct rd *r)
{
	const unsigned char *s = r->p;

	if (*r->p == '-')
		r->p++;
	if (r->p >= r->e || !D(*r->p))
		return 0;
	if (*r->p++ != '0')
		while (r->p < r->e && D(*r->p))
			r->p++;
	if (r->p < r->e && *r->p == '.') {
		if (++r->p >= r->e || !D(*r->p))
			return 0;
		while (r->p < r->e && D(*r->p))
			r->p++;
	}
	if (r->p < r->e && (*r->p == 'e' || *r->p == 'E')) {
		r->p++;
		if (r->p < r->e && (*r->p == '+' || *r->p == '-'))
			r->p++;
		if (r->p >= r->e || !D(*r->p))
			return 0;
		while (r->p < r->e && D(*r->p))
			r->p++;
	}
	/* "01": the next token would start with a digit */
	if (r->p < r->e && D(*r->p))
		return 0;
	return r->p - s <= KT_JSON_MAX_NUMBER;
}

static int lit(struct rd *r, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(r->e - r->p) < n || memcmp(r->p, w, n))
		return 0;
	r->p += n;
	return 1;
}

static int value(struct rd *r)
{
	int obj;

	ws(r);
	if (r->p >= r->e)
		return 0;
	switch (*r->p) {
	case '"': return str(r);
	case 't': return lit(r, "true");
	case 'f': return lit(r, "false");
	case 'n': return lit(r, "null");
	case '{': case '[':
		break;
	default:
		return *r->p == '-' || D(*r->p) ? num(r) : 0;
	}
	obj = *r->p++ == '{';
	if (++r->depth > KT_JSON_MAX_DEPTH)
		return 0;
	ws(r);
	if (r->p < r->e && *r->p == (obj ? '}' : ']')) {
		r->p++;
		r->depth--;
		return 1;
	}
	for (;;) {
		if (obj) {
			ws(r);
			if (r->p >= r->e || *r->p != '"' || !str(r))
				return 0;
			ws(r);
			if (r->p >= r->e || *r->p++ != ':')
				return 0;
		}
		if (!value(r))
			return 0;
		ws(r);
		if (r->p >= r->e)
			return 0;
		if (*r->p == ',') {
			r->p++;
			continue;
		}
		if (*r->p++ != (obj ? '}' : ']'))
			return 0;
		r->depth--;
		return 1;
	}
}

static int ref_ok(const uint8_t *d, size_t n)
{
	struct rd r = { d, d + n, 0 };

	if (!value(&r))
		return 0;
	ws(&r);
	return r.p == r.e;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *why = NULL, *end = NULL;
	size_t off = (size_t)-1;
	int rc = kt_json_check(s, size, 0, &off, &why);
	int bom = size >= 3 && !memcmp(s, KT_UTF8_BOM, 3);
	cJSON *o;

	if (rc != 0 && rc != KT_EPARSE)
		abort();
	if (rc && (off > size || !why))
		abort();
	if ((rc == 0) != ref_ok(data, size))
		abort();
	if (kt_json_truncated(s, size, 0) && !rc)
		abort();
	if (!rc && size <= 512)
		for (size_t k = 1; k < size; k++) {
			size_t b = 0;

			while (b < k && s[b] && strchr(" \t\n\r", s[b]))
				b++;
			if (b < k && kt_json_truncated(s, k, 0) ==
			    !kt_json_check(s, k, 0, NULL, NULL))
				abort();
		}
	/* KT_JSON_UTF8 = accepted and UTF-8; the bad byte is where it stops */
	{
		size_t u8off = (size_t)-1, bad = (size_t)-1;
		const char *u8why = NULL;
		int valid = kt_utf8_valid(s, size, &bad);
		int u8 = kt_json_check(s, size, KT_JSON_UTF8, &u8off, &u8why);

		if ((u8 == 0) != (rc == 0 && valid))
			abort();
		if (u8 && u8why && !strcmp(u8why, KT_JSON_UTF8_WHY) &&
		    (valid || u8off != bad))
			abort();
		if (!rc && !valid && strcmp(u8why, KT_JSON_UTF8_WHY))
			abort();
	}
	/* the flag only skips a leading mark */
	if (kt_json_check(s, size, KT_JSON_BOM, NULL, NULL) !=
	    (bom ? kt_json_check(s + 3, size - 3, 0, NULL, NULL) : rc))
		abort();
	if (rc)
		return 0;
	o = cJSON_ParseWithLengthOpts(s, size, &end, 0);
	if (!o)
		abort(); /* accepted here but not by cJSON */
	while (end < s + size && (*end == ' ' || *end == '\t' ||
				  *end == '\n' || *end == '\r'))
		end++;
	if (end != s + size)
		abort();
	{
		char *p = cJSON_PrintUnformatted(o);

		/* cJSON prints NaN/inf as null and escapes controls: its
		 * output is JSON again */
		if (p && kt_json_check(p, strlen(p), 0, NULL, NULL))
			abort();
		cJSON_free(p);
	}
	cJSON_Delete(o);
	return 0;
}
