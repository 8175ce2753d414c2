/*
 * text.c - UTF-8, ISO-8601 and base64 (kt_base.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "kt_base.h"
#include "kt_json_scan.h"

/* ---- byte search ---------------------------------------------------------- */
void *kt_memmem(const void *hay, size_t hn, const void *needle, size_t nl)
{
	const unsigned char *h = hay, *n = needle;
	size_t i = 0;

	if (nl < 3 || hn < nl)
		return memmem(hay, hn, needle, nl);
#if defined(__SSE2__)
	{
		/* the needle's ends are often quotes, as common in JSON as
		 * any byte: the bytes inside them tell more positions apart */
		const size_t b = nl - 2;
		const __m128i va = _mm_set1_epi8((char)n[1]);
		const __m128i vb = _mm_set1_epi8((char)n[b]);

		/* all 16 starts i..i+15 hold the whole needle inside hay */
		for (; hn - i >= nl + 15; i += 16) {
			__m128i x = _mm_loadu_si128(
				(const __m128i *)(const void *)(h + i + 1));
			__m128i y = _mm_loadu_si128(
				(const __m128i *)(const void *)(h + i + b));
			unsigned m = (unsigned)_mm_movemask_epi8(_mm_and_si128(
				_mm_cmpeq_epi8(x, va), _mm_cmpeq_epi8(y, vb)));

			while (m) {
				unsigned j = (unsigned)__builtin_ctz(m);

				if (h[i + j] == n[0] && !memcmp(h + i + j, n, nl))
					return (void *)(h + i + j);
				m &= m - 1;
			}
		}
	}
#endif
	/* the last starts (or all of them without SSE2) */
	return memmem(h + i, hn - i, needle, nl);
}

/* ---- UTF-8 (RFC 3629 section 4) ------------------------------------------ */
size_t kt_utf8_seq(const unsigned char *s, size_t n)
{
	unsigned c;

	if (!n)
		return 0;
	c = s[0];
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return n >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef)
		return n >= 3 && (s[1] & 0xc0) == 0x80 &&
		       (s[2] & 0xc0) == 0x80 &&
		       !(c == 0xe0 && s[1] < 0xa0) &&
		       !(c == 0xed && s[1] > 0x9f) ? 3 : 0;
	if (c >= 0xf0 && c <= 0xf4)
		return n >= 4 && (s[1] & 0xc0) == 0x80 &&
		       (s[2] & 0xc0) == 0x80 && (s[3] & 0xc0) == 0x80 &&
		       !(c == 0xf0 && s[1] < 0x90) &&
		       !(c == 0xf4 && s[1] > 0x8f) ? 4 : 0;
	return 0;
}

/* RFC 3629's syntax, byte by byte outside runs of ASCII, which are skipped
 * 16 bytes (SSE2: the high bits) or 8 at a time. */
int kt_utf8_valid(const char *text, size_t n, size_t *bad)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0;

	while (i < n) {
		size_t k;

		if (s[i] < 0x80) {
#if defined(__SSE2__)
			while (i + 16 <= n &&
			       !_mm_movemask_epi8(_mm_loadu_si128(
				       (const __m128i *)(const void *)(s + i))))
				i += 16;
#endif
			while (i + 8 <= n) {
				uint64_t w;

				memcpy(&w, s + i, 8);
				if (w & 0x8080808080808080ull)
					break;
				i += 8;
			}
			while (i < n && s[i] < 0x80)
				i++;
			continue;
		}
		if (!(k = kt_utf8_seq(s + i, n - i)))
			break;
		i += k;
	}
	if (i >= n)
		return 1;
	if (bad)
		*bad = i;
	return 0;
}

size_t kt_utf8_enc(unsigned long cp, unsigned char t[4])
{
	size_t k = 0;

	if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		cp = 0xFFFD;
	if (cp < 0x80) {
		t[k++] = (unsigned char)cp;
	} else if (cp < 0x800) {
		t[k++] = (unsigned char)(0xC0 | (cp >> 6));
		t[k++] = (unsigned char)(0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		t[k++] = (unsigned char)(0xE0 | (cp >> 12));
		t[k++] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		t[k++] = (unsigned char)(0x80 | (cp & 0x3F));
	} else {
		t[k++] = (unsigned char)(0xF0 | (cp >> 18));
		t[k++] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
		t[k++] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		t[k++] = (unsigned char)(0x80 | (cp & 0x3F));
	}
	return k;
}

int kt_utf8_put(struct kt_buf *b, unsigned long cp)
{
	unsigned char t[4];

	return kt_buf_add(b, t, kt_utf8_enc(cp, t));
}

size_t kt_utf8_floor(const char *s, size_t at)
{
	while (at > 0 && ((unsigned char)s[at] & 0xc0) == 0x80)
		at--;
	return at;
}

char *kt_utf8_fix(const char *s, size_t len, unsigned flags,
		  size_t *out_len, size_t *first_bad)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0, k, first = len;
	char *out;

	/* worst case: every byte becomes the 3-byte U+FFFD */
	if (len > (SIZE_MAX - 1) / 3 || !(out = malloc(len * 3 + 1)))
		return NULL;
	while (i < len) {
		if (p[i] == 0 && (flags & KT_UTF8_DROP_NUL)) {
			i++;
			continue;
		}
		k = kt_utf8_seq(p + i, len - i);
		if (!k) {
			if (first == len)
				first = i;
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		} else if (k == 1 && (flags & KT_UTF8_CTRL_SPACE) &&
			   (p[i] < 0x20 || p[i] == 0x7f)) {
			out[o++] = ' ';
			i++;
		} else {
			memcpy(out + o, p + i, k);
			o += k;
			i += k;
		}
	}
	out[o] = 0;
	if (out_len)
		*out_len = o;
	if (first_bad)
		*first_bad = first;
	return out;
}

int kt_is_text(const void *data, size_t len)
{
	return !memchr(data, 0, len) && kt_utf8_valid(data, len, NULL);
}

/* kt_base.h.  16 bytes a step with SSE2, 8 with plain 64-bit words
 * otherwise (a byte is '"', '\\' or below 0x20 when the word's
 * has-zero-byte test fires for w ^ '"', w ^ '\\' or w - 0x20). */
const char *kt_json_str_stop(const char *p, const char *end)
{
	const unsigned char *q = (const unsigned char *)p;
	const unsigned char *e = (const unsigned char *)end;

#if defined(__SSE2__)
	while (e - q >= 16) {
		unsigned bits = kt_json_special16(q, 0);

		if (bits)
			return (const char *)q + __builtin_ctz(bits);
		q += 16;
	}
#else
	const uint64_t ones = 0x0101010101010101ull, high = ones * 0x80;

	while (e - q >= 8) {
		uint64_t w, a, b, c;

		memcpy(&w, q, 8);
		a = w ^ (ones * '"');
		b = w ^ (ones * '\\');
		c = ((a - ones) & ~a) | ((b - ones) & ~b) |
		    ((w - ones * 0x20) & ~w);
		if (c & high)
			break;
		q += 8;
	}
#endif
	while (q < e && *q != '"' && *q != '\\' && *q >= 0x20)
		q++;
	return (const char *)q;
}

uint64_t kt_fnv1a(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

/* ---- time ---------------------------------------------------------------- */
int64_t kt_days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? (unsigned)-3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* Exactly n digits at *p, which moves past them; -1 when they are not
 * there. */
static int digits(const char **p, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return -1;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	return v;
}

int64_t kt_iso8601_ns(const char *s, const char **end)
{
	int y, mo, d, h = 0, mi = 0, sec = 0, off = 0;
	int64_t frac = 0, ns;
	const char *p = s;

	if (!s)
		return KT_TS_UNKNOWN;
	while (*p == ' ')
		p++;
	if ((y = digits(&p, 4)) < 0 || *p++ != '-' ||
	    (mo = digits(&p, 2)) < 1 || mo > 12 || *p++ != '-' ||
	    (d = digits(&p, 2)) < 1 || d > 31)
		return KT_TS_UNKNOWN;
	if (*p == 'T' || *p == 't' || *p == ' ') {
		p++;
		if ((h = digits(&p, 2)) < 0 || h > 23 || *p++ != ':' ||
		    (mi = digits(&p, 2)) < 0 || mi > 59)
			return KT_TS_UNKNOWN;
		if (*p == ':') {
			p++;
			if ((sec = digits(&p, 2)) < 0 || sec > 60)
				return KT_TS_UNKNOWN;
			if (*p == '.' || *p == ',') {
				int n = 0;

				p++;
				if (!isdigit((unsigned char)*p))
					return KT_TS_UNKNOWN;
				for (; isdigit((unsigned char)*p); p++, n++)
					if (n < 9)
						frac = frac * 10 + (*p - '0');
				for (; n < 9; n++)
					frac *= 10;
			}
		}
		if (*p == 'Z' || *p == 'z') {
			p++;
		} else if (*p == '+' || *p == '-') {
			int sign = *p++ == '-' ? -1 : 1, oh, om = 0;

			if ((oh = digits(&p, 2)) < 0 || oh > 23)
				return KT_TS_UNKNOWN;
			if (*p == ':')
				p++;
			if (isdigit((unsigned char)*p) &&
			    ((om = digits(&p, 2)) < 0 || om > 59))
				return KT_TS_UNKNOWN;
			off = sign * (oh * 3600 + om * 60);
		}
	} else if (end) {
		return KT_TS_UNKNOWN;
	}
	if (end) {
		*end = p;
	} else {
		while (*p == ' ')
			p++;
		if (*p)
			return KT_TS_UNKNOWN;
	}
	ns = (kt_days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 +
	      h * 3600 + mi * 60 + sec - off);
	/* int64 ns since 1970 spans 1677..2262: outside that, unknown */
	if (ns >= INT64_MAX / 1000000000 || ns <= INT64_MIN / 1000000000)
		return KT_TS_UNKNOWN;
	return ns * 1000000000 + frac;
}

/* ---- base64 (RFC 4648 section 4; section 5 for the URL-safe alphabet) ---- */
static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *kt_base64_encode(const void *data, size_t len)
{
	const unsigned char *p = data;
	char *out = malloc((len + 2) / 3 * 4 + 1), *o = out;
	size_t i;

	if (!out)
		return NULL;
	for (i = 0; i + 2 < len; i += 3) {
		*o++ = b64[p[i] >> 2];
		*o++ = b64[(p[i] & 3) << 4 | p[i + 1] >> 4];
		*o++ = b64[(p[i + 1] & 15) << 2 | p[i + 2] >> 6];
		*o++ = b64[p[i + 2] & 63];
	}
	if (i < len) {
		*o++ = b64[p[i] >> 2];
		if (i + 1 < len) {
			*o++ = b64[(p[i] & 3) << 4 | p[i + 1] >> 4];
			*o++ = b64[(p[i + 1] & 15) << 2];
		} else {
			*o++ = b64[(p[i] & 3) << 4];
			*o++ = '=';
		}
		*o++ = '=';
	}
	*o = 0;
	return out;
}

static int b64val(int c, unsigned flags)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || ((flags & KT_B64_LENIENT) && c == '-'))
		return 62;
	if (c == '/' || ((flags & KT_B64_LENIENT) && c == '_'))
		return 63;
	return -1;
}

int kt_base64_decode_ex(const char *s, size_t len, unsigned flags,
			unsigned char **out, size_t *out_len)
{
	unsigned char *buf;
	uint32_t acc = 0;
	size_t i, n = 0;
	int bits = 0;

	if (!(flags & KT_B64_LENIENT)) {
		while (len && s[len - 1] == '=')
			len--;
		if (len % 4 == 1)
			return KT_EPARSE;
	}
	buf = malloc(len / 4 * 3 + 4);
	if (!buf)
		return KT_ENOMEM;
	for (i = 0; i < len; i++) {
		int v;

		if ((flags & KT_B64_LENIENT) && s[i] &&
		    strchr("=\n\r ", s[i]))
			continue;
		if ((v = b64val((unsigned char)s[i], flags)) < 0) {
			free(buf);
			return KT_EPARSE;
		}
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf[n++] = (unsigned char)(acc >> bits);
		}
	}
	buf[n] = 0;
	*out = buf;
	*out_len = n;
	return 0;
}

int kt_base64_decode(const char *s, size_t len, unsigned char **out,
		     size_t *out_len)
{
	return kt_base64_decode_ex(s, len, 0, out, out_len);
}
