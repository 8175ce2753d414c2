/*
 * util.h - small helpers shared by the harness parent (C) and the child
 * (CUDA C++): a growable string buffer with JSON writers, SHA-256 and FNV-1a.
 */
#ifndef KTH_UTIL_H
#define KTH_UTIL_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kth_buf {
	char *s;
	size_t n, cap;
	int oom; /* set once an allocation failed; further appends are dropped */
} kth_buf;

void kb_init(kth_buf *b);
void kb_free(kth_buf *b);
void kb_printf(kth_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void kb_put(kth_buf *b, const char *s, size_t n);
/* JSON string (quotes included), escaping control bytes. */
void kb_jstr(kth_buf *b, const char *s);
/* JSON number or null for non-finite values (JSON has no NaN). */
void kb_jnum(kth_buf *b, double v);
/* `"key":` with a leading comma unless b ends with '{' or '['. */
void kb_key(kth_buf *b, const char *key);
/* "s" with NULs and invalid UTF-8 kept (JSON readers accept bytes as is);
 * only the first `max` bytes, then "...[truncated]". */
void kb_jstr_n(kth_buf *b, const char *s, size_t n, size_t max);

/* SHA-256 (FIPS 180-4). */
void kth_sha256(const void *data, size_t len, unsigned char out[32]);
void kth_hex(const unsigned char *bin, size_t n, char *out);
/* FNV-1a 64 (http://www.isthe.com/chongo/tech/comp/fnv/). */
uint64_t kth_fnv64(uint64_t h, const void *data, size_t len);
#define KTH_FNV_INIT 0xcbf29ce484222325ULL

/* warmup calls of one arm that the sample estimate reads */
#define KTH_WARMUP_KEEP 512

/* Timed samples per block for one arm, from its warmup: budget_ms / blocks
 * divided by the median of the per-call times call_ms[0..n) (ms; only the
 * first KTH_WARMUP_KEEP are read; a median under 1 us counts as 1 us),
 * clamped to [min_s, max_s]; n < 1 gives min_s.  The median and not the
 * mean over the warmup: a one-time cost in an arm's first call (a
 * library's set-up) would otherwise count as its speed and leave it the
 * minimum number of samples.  *est_ms (may be NULL) gets the median, NaN
 * for n < 1. */
int kth_samples_per_block(const double *call_ms, int n, double budget_ms, int blocks,
			  int min_s, int max_s, double *est_ms);

/* Read a whole file; malloc'ed, NUL-terminated; NULL on error. */
char *kth_read_file(const char *path, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
