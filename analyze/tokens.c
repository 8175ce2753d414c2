/*
 * tokens.c - the text measures attribution compares: normalization (for
 * duplicate questions), content tokens and their containment (EN words,
 * ZH character n-grams), and claims of a bound (percent of peak).
 *
 * Rules: ../shared/research/analysis.md 3.3 (normalization); the UTF-8
 * and folding helpers are text.c's (an_int.h).
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "analyze.h"
#include "an_int.h"

/* ---- normalization (analysis.md 3.3) ------------------------------------------ */
static const char *tech_keep[] = {
	"shared", "smem", "dram", "hbm", "l1", "l2", "ncu", "nsys", "ptx", "sass",
	"warp", "coalesc", "fuse", "fusion", "tile", "tiling", "float4",
	"__shared__", "__syncthreads", "cp.async", "tma", "fp16", "bf16", "fp32",
	"fp8", "gemm", "cuda", "gpu", "cpu", "sm", "wgmma", "wmma", "hmma",
	"mma.", "ldmatrix", "stmatrix", "tcgen05", "mbarrier", NULL};

static int keep_tech(const char *w, size_t n)
{
	for (int i = 0; tech_keep[i]; i++) {
		size_t l = strlen(tech_keep[i]);

		if (n >= l && !strncmp(w, tech_keep[i], l))
			return 1;
	}
	return 0;
}

int kt_an_normalize(const char *text, size_t len, char **out)
{
	size_t n, i = 0, j = 0, adv;
	char *f = kt_an_fold(text ? text : "", text ? len : 0, &n), *o;
	const unsigned char *p;

	*out = NULL;
	if (!f)
		return KT_ENOMEM;
	o = malloc(n * 2 + 16);
	if (!o) {
		free(f);
		return KT_ENOMEM;
	}
	p = (const unsigned char *)f;
#define SP() do { if (j && o[j - 1] != ' ') o[j++] = ' '; } while (0)
	while (i < n) {
		if (p[i] == '`') { /* inline code span */
			size_t k = i + 1;

			while (k < n && p[k] != '`')
				k++;
			SP();
			memcpy(o + j, "<id>", 4);
			j += 4;
			i = k < n ? k + 1 : n;
			continue;
		}
		if (kt_an_wordch(p[i]) || p[i] == '/' || p[i] == '.' || p[i] == '~') {
			/* a token of word chars, slashes and dots */
			size_t k = i, w;
			int slash = 0, dot = 0, under = 0, digit = 0, alpha = 0,
			    upper = 0;

			while (k < n && (kt_an_wordch(p[k]) || p[k] == '/' ||
					 p[k] == '.' || p[k] == '~' || p[k] == '-' ||
					 p[k] == '\'')) {
				slash |= p[k] == '/';
				under |= p[k] == '_';
				digit |= isdigit(p[k]) != 0;
				alpha |= isalpha(p[k]) != 0;
				if (p[k] == '.' && k + 1 < n && isalnum(p[k + 1]))
					dot = 1;
				k++;
			}
			/* strip trailing dots/dashes: sentence punctuation */
			w = k;
			while (w > i && (p[w - 1] == '.' || p[w - 1] == '-' ||
					 p[w - 1] == '\''))
				w--;
			if (w == i) {
				i = k;
				continue;
			}
			/* CamelCase needs the original case */
			for (size_t q = i + 1; q < w && text && q < len; q++)
				if (isupper((unsigned char)text[q]) &&
				    islower((unsigned char)text[q - 1]))
					upper = 1;
			SP();
			if (keep_tech(f + i, w - i)) {
				memcpy(o + j, f + i, w - i);
				j += w - i;
			} else if (slash && alpha) {
				memcpy(o + j, "<path>", 6), j += 6;
			} else if (dot && alpha) {
				memcpy(o + j, "<path>", 6), j += 6;
			} else if (!alpha && digit) {
				memcpy(o + j, "<num>", 5), j += 5;
			} else if (under || (upper && w - i > 3) ||
				   (digit && alpha && w - i > 4)) {
				memcpy(o + j, "<id>", 4), j += 4;
			} else if (!alpha && !digit) {
				/* bare slashes or dots: punctuation */
			} else {
				memcpy(o + j, f + i, w - i);
				j += w - i;
			}
			i = k;
			continue;
		}
		if (p[i] < 0x80) { /* other ASCII punctuation and spaces */
			SP();
			i++;
			continue;
		}
		{
			uint32_t c = kt_an_u8dec(p + i, n - i, &adv);

			if (kt_an_is_cjk(c)) {
				memcpy(o + j, f + i, adv);
				j += adv;
			} else {
				SP(); /* CJK punctuation and other symbols */
			}
			i += adv;
		}
	}
#undef SP
	while (j && o[j - 1] == ' ')
		j--;
	o[j] = 0;
	free(f);
	*out = o;
	return KT_OK;
}

/* ---- content tokens ------------------------------------------------------------ */
static const char *stopwords[] = {
	"the", "and", "for", "are", "but", "not", "you", "your", "all", "any",
	"can", "had", "her", "was", "one", "our", "out", "has", "have", "him",
	"his", "how", "its", "let", "may", "now", "see", "than", "that", "the",
	"this", "those", "these", "then", "them", "they", "there", "what",
	"when", "where", "which", "while", "who", "why", "will", "with",
	"would", "could", "should", "from", "into", "onto", "about", "just",
	"also", "been", "being", "did", "does", "doing", "done", "each",
	"were", "very", "more", "most", "some", "such", "only", "own", "same",
	"too", "here", "use", "using", "used", "get", "got", "try", "trying",
	"make", "lets", "let's", "please", "thing", "things", "now", "yes",
	"okay", "need", "want", "like", "still", "did", "dont", "don't", "isn't",
	"it's", "i'm", "we're", "you're", "ours", "via", "per", "over", "after",
	"before", "again", "because", "think", "know", NULL};

/* The longest stopword ("because"): a longer word, most of a text's
 * words of 3+ bytes, is not one, without a walk of the list (the walk,
 * a strlen and a strncmp a word, was ~8 % of `questions mine`) */
#define STOP_MAX 7u

static int is_stop(const char *w, size_t n)
{
	if (n > STOP_MAX)
		return 0;
	for (int i = 0; stopwords[i]; i++)
		if (stopwords[i][0] == w[0] && strlen(stopwords[i]) == n &&
		    !memcmp(stopwords[i], w, n))
			return 1;
	return 0;
}


static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int kt_an_tokens(const char *text, size_t len, uint64_t **out, size_t *nout)
{
	size_t n, i = 0, cap = 64, k = 0, adv;
	char *f;
	uint64_t *v;
	const unsigned char *p;
	uint32_t prev = 0;
	size_t prevpos = 0, prevadv = 0;

	*out = NULL;
	*nout = 0;
	if (!text || !len)
		return KT_OK;
	f = kt_an_fold(text, len, &n);
	v = malloc(cap * sizeof(*v));
	if (!f || !v) {
		free(f);
		free(v);
		return KT_ENOMEM;
	}
	p = (const unsigned char *)f;
	while (i < n) {
		uint64_t h = 0;
		int have = 0;

		if (kt_an_wordch(p[i])) {
			size_t st = i;

			while (i < n && (kt_an_wordch(p[i]) || p[i] == '\''))
				i++;
			/* plural folding keeps "conflicts" ~ "conflict" */
			size_t wl = i - st;
			if (wl > 4 && p[st + wl - 1] == 's' && p[st + wl - 2] != 's')
				wl--;
			if (wl >= 3 && !is_stop(f + st, wl) &&
			    !(isdigit(p[st]) && wl < 3)) {
				h = kt_fnv1a(KT_FNV1A_INIT, f + st, wl);
				have = 1;
			}
			prev = 0;
		} else {
			uint32_t c = kt_an_u8dec(p + i, n - i, &adv);

			if (kt_an_is_cjk(c)) {
				if (prev) {
					h = kt_fnv1a(KT_FNV1A_INIT, f + prevpos,
						     prevadv + adv);
					have = 1;
				}
				prev = c;
				prevpos = i;
				prevadv = adv;
			} else {
				prev = 0;
			}
			i += adv;
		}
		if (have) {
			if (KT_GROW(v, cap, k + 1)) {
				free(v);
				free(f);
				return KT_ENOMEM;
			}
			v[k++] = h;
		}
	}
	free(f);
	if (!k) {
		free(v);
		return KT_OK;
	}
	qsort(v, k, sizeof(*v), cmp_u64);
	n = 1;
	for (i = 1; i < k; i++)
		if (v[i] != v[n - 1])
			v[n++] = v[i];
	*out = v;
	*nout = n;
	return KT_OK;
}

double kt_an_containment(const uint64_t *a, size_t na, const uint64_t *b,
			 size_t nb)
{
	size_t i = 0, j = 0, c = 0;

	if (!na)
		return 0;
	while (i < na && j < nb) {
		if (a[i] == b[j]) {
			c++;
			i++;
			j++;
		} else if (a[i] < b[j]) {
			i++;
		} else {
			j++;
		}
	}
	return (double)c / (double)na;
}

/* ---- claims ------------------------------------------------------------------- */
struct claim_pat {
	const char *pat, *key;
};

/* Longer patterns first: a sentence yields its first match only. */
static const struct claim_pat claim_pats[] = {
	{"memory bandwidth bound", "memory-bound"},
	{"memory-bandwidth-bound", "memory-bound"},
	{"memory bandwidth-bound", "memory-bound"},
	{"bandwidth-bound", "memory-bound"}, {"bandwidth bound", "memory-bound"},
	{"memory-bound", "memory-bound"}, {"memory bound", "memory-bound"},
	{"bound by memory", "memory-bound"}, {"limited by memory", "memory-bound"},
	{"limited by bandwidth", "memory-bound"},
	{"dram-bound", "memory-bound"}, {"hbm-bound", "memory-bound"},
	{"compute-bound", "compute-bound"}, {"compute bound", "compute-bound"},
	{"limited by compute", "compute-bound"},
	{"latency-bound", "latency-bound"}, {"latency bound", "latency-bound"},
	{"launch-bound", "launch-bound"}, {"occupancy-limited", "occupancy-limited"},
	{"already optimal", "already optimal"}, {"near the limit", "near the limit"},
	{"at the roofline", "at the roofline"}, {"near peak", "near peak"},
	{"带宽上限", "memory-bound"}, {"带宽瓶颈", "memory-bound"},
	{"访存瓶颈", "memory-bound"}, {"计算瓶颈", "compute-bound"},
	{"已经到极限", "near the limit"}, {"理论上限", "near the limit"},
	{NULL, NULL}};

/* Distance from the span [b, e) of s[0..n) to the nearest of words[]
 * within 40 bytes either side; SIZE_MAX when none. */
static size_t near_word(const char *s, size_t n, size_t b, size_t e,
			const char *const *words)
{
	size_t v0 = b > 40 ? b - 40 : 0, w1 = e + 40 < n ? e + 40 : n, best = SIZE_MAX;

	for (int k = 0; words[k]; k++) {
		size_t tl = strlen(words[k]);

		for (const char *m = s + v0; m + tl <= s + w1 &&
		     (m = memmem(m, (size_t)(s + w1 - m), words[k], tl)); m++) {
			size_t at = (size_t)(m - s),
			       d = at + tl <= b ? b - (at + tl) : at >= e ? at - e : 0;

			if (d < best)
				best = d;
		}
	}
	return best;
}

static const char *const mem_words[] = {"memory", "dram", "hbm", "bandwidth",
					"l2", "带宽", "访存", "内存", NULL};
static const char *const cmp_words[] = {"compute", "sm ", "sm%", "tensor",
					"flop", "alu", "fma", "occupancy",
					"计算", "算力", NULL};

/* The percentage of peak stated near a match: "82.8% of peak", "at 87 %".
 * A memory claim takes a figure of memory (its nearest resource word is a
 * memory word), a compute claim one of compute: "memory-bound: 47 %
 * memory SOL, 9 % SM throughput" is memory-bound at 47 %, never 9-47 %. */
static double find_pct(const char *s, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '%')
			continue;
		size_t e = i;

		while (e > 0 && s[e - 1] == ' ')
			e--;
		size_t b = e;
		while (b > 0 && (isdigit((unsigned char)s[b - 1]) || s[b - 1] == '.'))
			b--;
		if (b == e)
			continue;
		/* only percentages that talk about peak/throughput/bandwidth */
		{
			size_t w0 = i + 1, w1 = i + 40 < n ? i + 40 : n;
			size_t v0 = b > 40 ? b - 40 : 0;
			int ok = 0;
			const char *ctx[] = {"peak", "throughput", "bandwidth",
					     "sol", "roofline", "of theoretical",
					     "峰值", "带宽", NULL};

			for (int k = 0; ctx[k]; k++) {
				size_t tl = strlen(ctx[k]);

				if ((w1 > w0 && memmem(s + w0, w1 - w0, ctx[k], tl)) ||
				    memmem(s + v0, b - v0, ctx[k], tl))
					ok = 1;
			}
			if (!ok)
				continue;
		}
		if (!strcmp(key, "memory-bound") || !strcmp(key, "compute-bound")) {
			size_t dm = near_word(s, n, b, i + 1, mem_words),
			       dc = near_word(s, n, b, i + 1, cmp_words);
			int mem = key[0] == 'm';

			if (mem ? !(dm < dc) : !(dc < dm))
				continue;
		}
		return strtod(s + b, NULL);
	}
	return -1;
}

int kt_an_claims(const char *text, size_t len,
		 void (*cb)(const char *key, double pct, void *arg), void *arg)
{
	size_t n, st = 0, i;
	char *f;
	int cnt = 0;

	if (!text || !len)
		return 0;
	f = kt_an_fold(text, len > 65536 ? 65536 : len, &n);
	if (!f)
		return 0;
	for (i = 0; i <= n; i++) {
		int end = i == n || f[i] == '\n' ||
			  ((f[i] == '.' || f[i] == ';' || f[i] == '!') &&
			   (i + 1 == n || f[i + 1] == ' ' || f[i + 1] == '\n' ||
			    f[i + 1] == '"'));

		if (!end && i + 3 <= n && !memcmp(f + i, "\xe3\x80\x82", 3))
			end = 1;
		if (!end)
			continue;
		if (i > st) {
			for (int k = 0; claim_pats[k].pat; k++) {
				const char *m = memmem(f + st, i - st, claim_pats[k].pat,
						       strlen(claim_pats[k].pat));
				if (!m)
					continue;
				/* "not memory-bound" is not the claim */
				if (m - f >= 4 + (long)st && !memcmp(m - 4, "not ", 4))
					break;
				cnt++;
				if (cb)
					cb(claim_pats[k].key,
					   find_pct(f + st, i - st,
						    claim_pats[k].key), arg);
				break;
			}
		}
		st = i + 1;
	}
	free(f);
	return cnt;
}
