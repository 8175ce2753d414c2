/*
 * jsonstrict.c - RFC 8259 check of JSON texts (see jsonstrict.h).
 *
 * Grammar: RFC 8259 sections 2-7, https://www.rfc-editor.org/rfc/rfc8259.
 * The check runs on every line of every import after cJSON has parsed it,
 * so it must cost little next to cJSON: string bodies, most of the bytes
 * of real trajectories, are skipped 16 bytes at a time (SSE2, or 8 with a
 * portable word loop) looking only for '"', '\\' and bytes below 0x20;
 * everything outside strings is short and walked byte by byte.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "../base/kt_json_scan.h" /* kt_json_special16, kt_json_number */
#include "jsonstrict.h"

/* RFC 8259 section 2: ws = *( %x20 / %x09 / %x0A / %x0D ) */
static const unsigned char *skip_ws(const unsigned char *p,
				    const unsigned char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' ||
			   *p == '\t'))
		p++;
	return p;
}

/* the second byte of a two-byte escape [7] */
static const unsigned char esc1[256] = {
	['"'] = 1, ['\\'] = 1, ['/'] = 1, ['b'] = 1, ['f'] = 1, ['n'] = 1,
	['r'] = 1, ['t'] = 1,
};

/* The bytes kt_json_escape writes as a backslash and one letter. */
static const char esc_short[256] = {
	['"'] = '"', ['\\'] = '\\', ['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n',
	['\r'] = 'r', ['\t'] = 't',
};

/* The escape of byte c (one kt_json_str_stop stops at) at o; returns the
 * end of what it wrote. */
static inline char *esc_put(char *o, unsigned char c)
{
	static const char hx[] = "0123456789abcdef";

	o[0] = '\\';
	if (esc_short[c]) {
		o[1] = esc_short[c];
		return o + 2;
	}
	memcpy(o + 1, "u00", 3);
	o[4] = hx[c >> 4];
	o[5] = hx[c & 15];
	return o + 6;
}

/* jsonstrict.h.  Source text has an escape every ~20 bytes (each '\n'),
 * so the cost is per escape: a 16-byte window is stored whole at o, and
 * after each escape in it the rest of the window is stored again, 16 bytes
 * read from just past the escape (hence 32 bytes of input needed), the
 * window's mask kept; no call and no rescan per plain run. */
size_t kt_json_escape(char *dst, const char *src, size_t n)
{
	const unsigned char *p = (const unsigned char *)src, *e = p + n;
	char *o = dst;

#if defined(__SSE2__)
	while (e - p >= 32) {
		unsigned bits = kt_json_special16(p, 0), i = 0, k;

		_mm_storeu_si128((__m128i *)(void *)o,
				 _mm_loadu_si128((const __m128i *)(const void *)p));
		while (bits) {
			k = (unsigned)__builtin_ctz(bits);
			bits &= bits - 1;
			o = esc_put(o + (k - i), p[k]);
			i = k + 1;
			_mm_storeu_si128((__m128i *)(void *)o,
					 _mm_loadu_si128((const __m128i *)
							 (const void *)(p + i)));
		}
		o += 16 - i;
		p += 16;
	}
#endif
	for (;;) {
		const char *stop = kt_json_str_stop((const char *)p,
						    (const char *)e);

		if (stop != (const char *)p)
			memcpy(o, p, (size_t)(stop - (const char *)p));
		o += stop - (const char *)p;
		p = (const unsigned char *)stop;
		if (p == e)
			break;
		o = esc_put(o, *p++);
	}
	return (size_t)(o - dst);
}

/*
 * First byte at or after p that is '"', '\\', below 0x20 or 0x80 and more
 * (the start of a UTF-8 sequence, which check_string checks), or end.
 * With SSE2, two-byte escapes (\n, \", ...: most escapes in source text)
 * that lie inside one 16-byte window are stepped over without leaving the
 * window; the caller handles every other escape.
 */
static const unsigned char *str_skip(const unsigned char *p,
				     const unsigned char *end)
{
#if defined(__SSE2__)
	while (end - p >= 16) {
		unsigned bits = kt_json_special16(p, 1), i;

		while (bits && (i = (unsigned)__builtin_ctz(bits)) < 15 &&
		       p[i] == '\\' && esc1[p[i + 1]])
			bits &= ~(3u << i);
		if (bits)
			return p + __builtin_ctz(bits);
		p += 16;
	}
#endif
	while (p < end && *p != '"' && *p != '\\' && *p >= 0x20 && *p < 0x80)
		p++;
	return p;
}

/* String at p (its opening quote) [7]; NULL and *why on a problem, *at
 * where. */
static const unsigned char *check_string(const unsigned char *p,
					 const unsigned char *end,
					 const unsigned char **at,
					 const char **why, unsigned flags)
{
	unsigned cp, lo;

	p++;
	for (;;) {
		p = str_skip(p, end);
		if (p >= end) {
			*why = "unterminated string";
			goto bad;
		}
		if (*p == '"')
			return p + 1;
		if (*p >= 0x80) {
			size_t k = kt_utf8_seq(p, (size_t)(end - p));

			if (!k && (flags & KT_JSON_UTF8)) {
				*why = KT_JSON_UTF8_WHY;
				goto bad;
			}
			p += k ? k : 1;
			continue;
		}
		if (*p < 0x20) {
			*why = "raw control character in a string";
			goto bad;
		}
		/* a backslash */
		if (end - p < 2) {
			*why = "unterminated string";
			goto bad;
		}
		if (esc1[p[1]]) {
			p += 2;
			continue;
		}
		if (p[1] != 'u') {
			*why = "invalid escape in a string";
			goto bad;
		}
		if (kt_hex4(p + 2, end, &cp)) {
			*why = "invalid \\u escape in a string";
			goto bad;
		}
		if (!cp && (flags & KT_JSON_NONUL)) {
			*why = KT_JSON_NUL_WHY;
			goto bad;
		}
		if (cp >= 0xdc00 && cp <= 0xdfff) {
			*why = "unpaired UTF-16 surrogate escape in a string";
			goto bad;
		}
		if (cp >= 0xd800 && cp <= 0xdbff) {
			if (end - p < 12 || p[6] != '\\' || p[7] != 'u' ||
			    kt_hex4(p + 8, end, &lo) || lo < 0xdc00 ||
			    lo > 0xdfff) {
				*why = "unpaired UTF-16 surrogate escape in a string";
				goto bad;
			}
			p += 12;
		} else {
			p += 6;
		}
	}
bad:
	*at = p;
	return NULL;
}


int kt_json_check(const char *text, size_t n, unsigned flags, size_t *off,
		  const char **why)
{
	const unsigned char *s = (const unsigned char *)text, *p = s;
	const unsigned char *end = s + n, *at = NULL;
	/* one bit per open container: 1 object, 0 array */
	uint64_t stack[(KT_JSON_MAX_DEPTH + 63) / 64] = { 0 };
	int depth = 0;
	const char *w = NULL;

	if ((flags & KT_JSON_BOM) && n >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
		p += 3;
	p = skip_ws(p, end);
	for (;;) {
		/* a value is expected at p */
		if (p >= end) {
			w = "unexpected end of the text";
			goto bad;
		}
		switch (*p) {
		case '{':
		case '[': {
			int obj = *p == '{';

			if (depth >= KT_JSON_MAX_DEPTH) {
				w = "nested deeper than the parser allows";
				goto bad;
			}
			if (obj)
				stack[depth / 64] |= 1ull << (depth % 64);
			else
				stack[depth / 64] &= ~(1ull << (depth % 64));
			depth++;
			p = skip_ws(p + 1, end);
			if (p < end && *p == (obj ? '}' : ']')) {
				depth--; /* empty */
				p++;
				break;
			}
			if (obj)
				goto key;
			continue;
		}
		case '"':
			if (!(p = check_string(p, end, &at, &w, flags)))
				goto bad_at;
			break;
		case 't':
			if (end - p < 4 || memcmp(p, "true", 4))
				goto literal;
			p += 4;
			break;
		case 'f':
			if (end - p < 5 || memcmp(p, "false", 5))
				goto literal;
			p += 5;
			break;
		case 'n':
			if (end - p < 4 || memcmp(p, "null", 4))
				goto literal;
			p += 4;
			break;
		case '-': case '0': case '1': case '2': case '3': case '4':
		case '5': case '6': case '7': case '8': case '9':
			if (!(p = kt_json_number(p, end, &at, &w)))
				goto bad_at;
			break;
		case 0xef:
			if (end - p >= 3 && p[1] == 0xbb && p[2] == 0xbf) {
				w = KT_JSON_BOM_WHY;
				goto bad;
			}
			/* fall through */
		default:
			goto unexpected;
		}
		/* after a value: a separator, a closing bracket or the end */
		for (;;) {
			int obj;

			p = skip_ws(p, end);
			if (!depth) {
				if (p < end) {
					w = "data after the JSON value";
					goto bad;
				}
				return 0;
			}
			if (p >= end) {
				w = "unexpected end of the text";
				goto bad;
			}
			obj = stack[(depth - 1) / 64] >> ((depth - 1) % 64) & 1;
			if (*p == (obj ? '}' : ']')) {
				depth--;
				p++;
				continue;
			}
			if (*p != ',')
				goto unexpected;
			p = skip_ws(p + 1, end);
			if (obj)
				goto key;
			break;
		}
		continue;
key:
		/* member = string name-separator value [4] */
		if (p >= end || *p != '"') {
			w = p >= end ? "unexpected end of the text" :
				       "object key is not a string";
			goto bad;
		}
		if (!(p = check_string(p, end, &at, &w, flags)))
			goto bad_at;
		p = skip_ws(p, end);
		if (p >= end || *p != ':') {
			w = "':' expected after an object key";
			goto bad;
		}
		p = skip_ws(p + 1, end);
	}
literal:
	w = "invalid literal";
	goto bad;
unexpected:
	w = *p < 0x20 ? "control character outside a string" :
			"unexpected character";
bad:
	at = p;
	/* a mark between tokens (before a key, after a value) is named as
	 * one wherever it stands, not as the token that was expected */
	if (end - at >= 3 && at[0] == 0xef && at[1] == 0xbb && at[2] == 0xbf)
		w = KT_JSON_BOM_WHY;
bad_at:
	if (off)
		*off = (size_t)(at - s);
	if (why)
		*why = w;
	return KT_EPARSE;
}

cJSON *kt_json_parse(const char *s, size_t n, unsigned flags, int *rc)
{
	cJSON *o = kt_cjson_parse(s, n, NULL, rc);

	if (o && kt_json_check(s, n, flags, NULL, NULL)) {
		cJSON_Delete(o);
		o = NULL;
		if (rc)
			*rc = KT_EPARSE;
	}
	return o;
}

static int is_hex(unsigned c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

/* Whether s[off..n) is where a text cut inside a value stops: the first
 * len bytes (or fewer) of lit. */
static int prefix_of(const char *s, size_t n, size_t off, const char *lit)
{
	size_t l = strlen(lit);

	return off < n && n - off < l && !memcmp(s + off, lit, n - off);
}

/* jsonstrict.h.  From what kt_json_check refuses and where: every problem
 * it reports at the end of the text is one of running out (an unclosed
 * container, a key without its ':' or value, a number that needs another
 * digit); the others it reports where the token began, so the rest must
 * be checked to be a prefix of one (a literal, a \u escape, the low half
 * of a surrogate pair). */
int kt_json_truncated(const char *text, size_t n, unsigned flags)
{
	const unsigned char *s = (const unsigned char *)text;
	const char *why = NULL;
	size_t off = 0, i = 0;

	if ((flags & KT_JSON_BOM) && n >= 3 && !memcmp(s, KT_UTF8_BOM, 3))
		i = 3;
	/* nothing but white space: no value was begun */
	if (skip_ws(s + i, s + n) == s + n ||
	    !kt_json_check(text, n, flags, &off, &why))
		return 0;
	if (!strcmp(why, "unterminated string"))
		return 1;       /* reported only where the text ends */
	if (!strcmp(why, "invalid literal"))
		return prefix_of(text, n, off, "true") ||
		       prefix_of(text, n, off, "false") ||
		       prefix_of(text, n, off, "null");
	if (!strcmp(why, "invalid \\u escape in a string")) {
		/* off: the backslash; "\\u" and fewer than 4 hex digits */
		if (n - off >= 6)
			return 0;
		for (i = off + 2; i < n; i++)
			if (!is_hex(s[i]))
				return 0;
		return 1;
	}
	if (!strcmp(why, "unpaired UTF-16 surrogate escape in a string")) {
		/* off: a high surrogate's \\uD800..\\uDBFF (complete: a
		 * shorter one is an invalid \\u escape), then a prefix of
		 * the low one's \\uDC00..\\uDFFF where the text ends */
		if (n - off >= 12 || (s[off + 2] | 0x20) != 'd' ||
		    !strchr("89ab", s[off + 3] | 0x20))
			return 0;
		for (i = off + 6; i < n; i++) {
			unsigned c = s[i];

			switch (i - off - 6) {
			case 0: if (c != '\\') return 0; break;
			case 1: if (c != 'u') return 0; break;
			case 2: if ((c | 0x20) != 'd') return 0; break;
			case 3: if (!strchr("cdef", c | 0x20)) return 0; break;
			default: if (!is_hex(c)) return 0; break;
			}
		}
		return 1;
	}
	if (!strcmp(why, KT_JSON_BOM_WHY) || !strcmp(why, KT_JSON_NUL_WHY))
		return 0;
	/* an unclosed container, a key or value missing, a number ending
	 * in '-', '.' or 'e': all at the very end */
	return off == n;
}

/* jsonstrict.h */
char *kt_json_fix_surrogates(const char *s, size_t n, size_t *first)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = NULL;
	size_t i = 0;

	/* a backslash only ever stands in a string, as an escape's start */
	while (i + 1 < n) {
		unsigned cp, lo;

		if (p[i] != '\\') {
			i++;
			continue;
		}
		if (p[i + 1] != 'u' || kt_hex4(p + i + 2, p + n, &cp)) {
			i += 2;
			continue;
		}
		if (cp >= 0xd800 && cp <= 0xdbff && n - i >= 12 &&
		    p[i + 6] == '\\' && p[i + 7] == 'u' &&
		    !kt_hex4(p + i + 8, p + n, &lo) && lo >= 0xdc00 && lo <= 0xdfff) {
			i += 12;
			continue;
		}
		if (cp >= 0xd800 && cp <= 0xdfff) {
			if (!out) {
				out = kt_memdupz(s, n);
				if (!out)
					return NULL;
				if (first)
					*first = i;
			}
			memcpy(out + i, "\\ufffd", 6);
		}
		i += 6;
	}
	return out;
}
