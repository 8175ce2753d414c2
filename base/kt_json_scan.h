/*
 * kt_json_scan.h - the pieces of JSON grammar that more than one scanner
 * walks: the 16-byte test under the fast string scanners
 * (kt_json_str_stop in base/text.c, kt_json_escape and the RFC 8259
 * check's string walk in import/jsonstrict.c), and the number grammar with
 * cJSON's length cap (the RFC 8259 check, and the analyzers' in-place
 * payload scanner in analyze/load_json.c).  A header of its own, not
 * kt_base.h, so that only those sources see SSE2's types; static inline so
 * that each loop keeps it inlined, as it was when each scanner had its own
 * copy.
 */
#ifndef KT_JSON_SCAN_H
#define KT_JSON_SCAN_H

/* Bytes of one JSON number at most: cJSON copies at most 63 into its
 * strtod buffer, so a longer number accepted by a scanner would be one
 * cJSON reads differently. */
#define KT_JSON_MAX_NUMBER 63

#define KT_JSON_DIGIT(c) ((unsigned)(c) - '0' < 10u)

/*
 * The end of the JSON number that starts at p (RFC 8259 section 6:
 * -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?), reading no byte
 * at or past end.  A number is at most KT_JSON_MAX_NUMBER bytes.
 * Returns the byte after the number, or NULL when p starts no number
 * allowed here; then *at is where it goes wrong (the byte that breaks the
 * grammar; p itself for one too long) and *why says how, a static English
 * phrase.  Pure; p < end is not required.
 */
static inline const unsigned char *kt_json_number(const unsigned char *p,
						  const unsigned char *end,
						  const unsigned char **at,
						  const char **why)
{
	const unsigned char *s = p;

	if (p < end && *p == '-')
		p++;
	if (p >= end || !KT_JSON_DIGIT(*p)) {
		*why = "number without digits";
		goto bad;
	}
	if (*p == '0') {
		p++;
		if (p < end && KT_JSON_DIGIT(*p)) {
			*why = "number with a leading zero";
			goto bad;
		}
	} else {
		while (p < end && KT_JSON_DIGIT(*p))
			p++;
	}
	if (p < end && *p == '.') {
		p++;
		if (p >= end || !KT_JSON_DIGIT(*p)) {
			*why = "number without digits after its decimal point";
			goto bad;
		}
		while (p < end && KT_JSON_DIGIT(*p))
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (p >= end || !KT_JSON_DIGIT(*p)) {
			*why = "number without digits in its exponent";
			goto bad;
		}
		while (p < end && KT_JSON_DIGIT(*p))
			p++;
	}
	if (p - s > KT_JSON_MAX_NUMBER) {
		p = s;
		*why = "number longer than 63 characters";
		goto bad;
	}
	return p;
bad:
	*at = p;
	return NULL;
}

#if defined(__SSE2__)
#include <emmintrin.h>

/* Bit i set when p[i] is '"', '\\' or below 0x20 (16 bytes at p: a
 * string's end, an escape, or a byte RFC 8259 section 7 forbids raw); with
 * hi, also when p[i] is 0x80 or more (the start of a UTF-8 sequence). */
static inline unsigned kt_json_special16(const unsigned char *p, int hi)
{
	const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
	const __m128i c1f = _mm_set1_epi8(0x1f);
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
	/* unsigned x <= 0x1f  <=>  min(x, 0x1f) == x */
	__m128i m = _mm_or_si128(
		_mm_or_si128(_mm_cmpeq_epi8(x, q), _mm_cmpeq_epi8(x, bs)),
		_mm_cmpeq_epi8(_mm_min_epu8(x, c1f), x));

	return (unsigned)_mm_movemask_epi8(m) |
	       (hi ? (unsigned)_mm_movemask_epi8(x) : 0);
}
#endif

#endif
