/*
 * util.c - string buffer, JSON writing, hashing.  SHA-256 follows FIPS 180-4
 * (https://csrc.nist.gov/pubs/fips/180-4/upd1/final).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void kb_init(kth_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void kb_free(kth_buf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

static int kb_grow(kth_buf *b, size_t add)
{
	size_t cap;
	char *t;

	if (b->oom)
		return -1;
	if (b->n + add + 1 <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < b->n + add + 1)
		cap *= 2;
	t = realloc(b->s, cap);
	if (!t) {
		b->oom = 1;
		return -1;
	}
	b->s = t;
	b->cap = cap;
	return 0;
}

void kb_put(kth_buf *b, const char *s, size_t n)
{
	if (kb_grow(b, n))
		return;
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = 0;
}

void kb_printf(kth_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || kb_grow(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->n, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)n;
}

void kb_jstr_n(kth_buf *b, const char *s, size_t n, size_t max)
{
	size_t i, lim = n < max ? n : max;

	kb_put(b, "\"", 1);
	for (i = 0; i < lim; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"': kb_put(b, "\\\"", 2); break;
		case '\\': kb_put(b, "\\\\", 2); break;
		case '\n': kb_put(b, "\\n", 2); break;
		case '\r': kb_put(b, "\\r", 2); break;
		case '\t': kb_put(b, "\\t", 2); break;
		default:
			if (c < 0x20 || c == 0x7f)
				kb_printf(b, "\\u%04x", c);
			else if (c >= 0x80)
				kb_put(b, "?", 1); /* keep output valid UTF-8 */
			else
				kb_put(b, (const char *)&c, 1);
		}
	}
	if (n > max)
		kb_put(b, "...[truncated]", 14);
	kb_put(b, "\"", 1);
}

void kb_jstr(kth_buf *b, const char *s)
{
	if (!s) {
		kb_put(b, "null", 4);
		return;
	}
	kb_jstr_n(b, s, strlen(s), (size_t)-1);
}

void kb_jnum(kth_buf *b, double v)
{
	if (!isfinite(v))
		kb_put(b, "null", 4);
	else if (v == (double)(long long)v && fabs(v) < 9e15)
		kb_printf(b, "%lld", (long long)v);
	else
		kb_printf(b, "%.6g", v);
}

void kb_key(kth_buf *b, const char *key)
{
	if (b->n && b->s[b->n - 1] != '{' && b->s[b->n - 1] != '[')
		kb_put(b, ",", 1);
	kb_jstr(b, key);
	kb_put(b, ":", 1);
}

static const uint32_t K256[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha_block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, hh, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = h[0]; b = h[1]; c = h[2]; d = h[3];
	e = h[4]; f = h[5]; g = h[6]; hh = h[7];
	for (i = 0; i < 64; i++) {
		t1 = hh + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) +
		     ((e & f) ^ (~e & g)) + K256[i] + w[i];
		t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) +
		     ((a & b) ^ (a & c) ^ (b & c));
		hh = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	h[0] += a; h[1] += b; h[2] += c; h[3] += d;
	h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

void kth_sha256(const void *data, size_t len, unsigned char out[32])
{
	uint32_t h[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
			  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	const unsigned char *p = data;
	unsigned char tail[128];
	size_t i, rest = len % 64, tl;
	uint64_t bits = (uint64_t)len * 8;

	for (i = 0; i + 64 <= len; i += 64)
		sha_block(h, p + i);
	memset(tail, 0, sizeof(tail));
	if (rest)
		memcpy(tail, p + len - rest, rest);
	tail[rest] = 0x80;
	tl = rest + 1 + 8 <= 64 ? 64 : 128;
	for (i = 0; i < 8; i++)
		tail[tl - 1 - i] = (unsigned char)(bits >> (8 * i));
	sha_block(h, tail);
	if (tl == 128)
		sha_block(h, tail + 64);
	for (i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(h[i] >> 8);
		out[4 * i + 3] = (unsigned char)h[i];
	}
}

void kth_hex(const unsigned char *bin, size_t n, char *out)
{
	static const char hx[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = hx[bin[i] >> 4];
		out[2 * i + 1] = hx[bin[i] & 15];
	}
	out[2 * n] = 0;
}

uint64_t kth_fnv64(uint64_t h, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

char *kth_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL, *t;
	size_t n = 0, cap = 0, r;

	if (!f)
		return NULL;
	for (;;) {
		if (n + 65536 + 1 > cap) {
			cap = cap ? cap * 2 : 131072;
			t = realloc(buf, cap);
			if (!t) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = t;
		}
		r = fread(buf + n, 1, 65536, f);
		n += r;
		if (r < 65536)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

int kth_samples_per_block(const double *call_ms, int n, double budget_ms, int blocks,
			  int min_s, int max_s, double *est_ms)
{
	double v[KTH_WARMUP_KEEP], med, per;

	if (n > KTH_WARMUP_KEEP)
		n = KTH_WARMUP_KEEP;
	if (est_ms)
		*est_ms = NAN;
	if (n < 1 || blocks < 1)
		return min_s;
	/* insertion sort: at most KTH_WARMUP_KEEP values, once per arm */
	for (int i = 0; i < n; i++) {
		int j = i;

		while (j > 0 && v[j - 1] > call_ms[i]) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = call_ms[i];
	}
	med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	if (est_ms)
		*est_ms = med;
	per = budget_ms / blocks / (med > 1e-3 ? med : 1e-3);
	if (!(per < max_s))
		return max_s;
	return per < min_s ? min_s : (int)per;
}
