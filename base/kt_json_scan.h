/*
 * kt_json_scan.h - the 16-byte test under the fast JSON string scanners:
 * kt_json_str_stop (base/text.c), and kt_json_escape and the RFC 8259
 * check's string walk (import/jsonstrict.c).  A header of its own, not
 * kt_base.h, so that only those sources see SSE2's types; static inline so
 * that each loop keeps it inlined, as it was when all three lived in one
 * file.
 */
#ifndef KT_JSON_SCAN_H
#define KT_JSON_SCAN_H

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
