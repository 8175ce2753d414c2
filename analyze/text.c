/*
 * text.c - lexical analysis shared by the analyzers: layer lexicons, flags,
 * question rules (EN + ZH), task prompts; normalization, content tokens and
 * claims are in tokens.c.
 *
 * Rules and lexicons: ../shared/research/analysis.md 3.2 (candidate
 * extraction), 3.3 (normalization), 3.4 (layer lexicons, seeded from
 * CUDA-L1 arXiv 2507.14111, STARK arXiv 2510.16996, AutoKernel arXiv
 * 2603.21331, Nsight Compute SOL / roofline terms).  Everything works on
 * UTF-8 bytes; CJK is recognized by code point (U+3400-U+9FFF).
 */
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "analyze.h"
#include "an_int.h"
#include "../import/import.h" /* which formats have harness prompts */

static const char *layer_names[KT_AN_NLAYERS] = {
	"unclassified", "algorithm", "operator boundary", "data movement",
	"synchronization", "memory access", "compiler output", "measurement",
};

const char *kt_an_layer_name(int layer)
{
	if (layer < 0 || layer >= KT_AN_NLAYERS)
		return layer_names[0];
	return layer_names[layer];
}

/* ---- UTF-8 helpers ---------------------------------------------------------- */

/* Decode one code point at p (n bytes left); *adv gets its length.  Invalid
 * bytes decode as themselves with length 1 so scanning always advances. */
uint32_t kt_an_u8dec(const unsigned char *p, size_t n, size_t *adv)
{
	uint32_t c = p[0];

	if (c < 0x80 || n < 2) {
		*adv = 1;
		return c;
	}
	if ((c & 0xE0) == 0xC0 && (p[1] & 0xC0) == 0x80) {
		*adv = 2;
		return ((c & 0x1F) << 6) | (p[1] & 0x3F);
	}
	if ((c & 0xF0) == 0xE0 && n >= 3 && (p[1] & 0xC0) == 0x80 &&
	    (p[2] & 0xC0) == 0x80) {
		*adv = 3;
		return ((c & 0x0F) << 12) | ((p[1] & 0x3F) << 6) | (p[2] & 0x3F);
	}
	if ((c & 0xF8) == 0xF0 && n >= 4 && (p[1] & 0xC0) == 0x80 &&
	    (p[2] & 0xC0) == 0x80 && (p[3] & 0xC0) == 0x80) {
		*adv = 4;
		return ((c & 0x07) << 18) | ((p[1] & 0x3F) << 12) |
		       ((p[2] & 0x3F) << 6) | (p[3] & 0x3F);
	}
	*adv = 1;
	return c;
}

int kt_an_is_cjk(uint32_t c)
{
	return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF);
}

int kt_an_is_zh(const char *text, size_t len)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t i = 0, adv;

	while (i < len) {
		if (p[i] < 0x80) { /* ASCII: no decode */
			i++;
			continue;
		}
		if (kt_an_is_cjk(kt_an_u8dec(p + i, len - i, &adv)))
			return 1;
		i += adv;
	}
	return 0;
}

/* Lowercased copy with full-width ASCII (U+FF01..U+FF5E) and the ideographic
 * space folded to ASCII (the part of NFKC that matters for questions). */
char *kt_an_fold(const char *text, size_t len, size_t *outlen)
{
	const unsigned char *p = (const unsigned char *)text;
	char *o = malloc(len + 1);
	size_t i = 0, j = 0, adv;

	if (!o)
		return NULL;
	while (i < len) {
		uint32_t c;

		if (p[i] < 0x80) { /* ASCII, most of it: no decode */
			o[j++] = (char)tolower(p[i++]);
			continue;
		}
		c = kt_an_u8dec(p + i, len - i, &adv);
		if (c >= 0xFF01 && c <= 0xFF5E) {
			o[j++] = (char)tolower((int)(c - 0xFF01 + 0x21));
		} else if (c == 0x3000) {
			o[j++] = ' ';
		} else if (adv == 1) {
			o[j++] = (char)tolower(p[i]);
		} else {
			memcpy(o + j, p + i, adv);
			j += adv;
		}
		i += adv;
	}
	o[j] = 0;
	*outlen = j;
	return o;
}

int kt_an_wordch(int c)
{
	return isalnum(c) || c == '_';
}

const char *kt_an_memmem(const char *h, size_t n, const char *w, size_t wl)
{
	const char *q = h, *end = h + n;

	if (!wl)
		return h;
	while ((size_t)(end - q) >= wl &&
	       (q = memchr(q, w[0], (size_t)(end - q) - wl + 1)) != NULL) {
		if (!memcmp(q + 1, w + 1, wl - 1))
			return q;
		q++;
	}
	return NULL;
}

/* Occurrences of term in s (folded); ASCII terms must start at a word
 * boundary; they may end inside a word when the term ends with '*'. */
static int count_term(const char *s, size_t n, const char *term, int cap)
{
	size_t tl = strlen(term);
	int stem = tl && term[tl - 1] == '*', cnt = 0;
	int ascii = !((unsigned char)term[0] & 0x80);
	const char *p = s, *end = s + n;

	if (stem)
		tl--;
	if (!tl)
		return 0;
	while (p < end && cnt < cap) {
		const char *q = kt_an_memmem(p, (size_t)(end - p), term, tl);

		if (!q)
			break;
		if (ascii) {
			/* '_' starts a word too: launch_fused_kernel */
			int lb = q == s || !isalnum((unsigned char)q[-1]);
			int rb = stem || q + tl == end ||
				 !kt_an_wordch((unsigned char)q[tl]);
			if (lb && rb)
				cnt++;
		} else {
			cnt++;
		}
		p = q + tl;
	}
	return cnt;
}

/* ---- layer lexicons (analysis.md 3.4) ----------------------------------------- */
struct lex {
	const char *term;
	unsigned char layer, weight;
};

static const struct lex lexicon[] = {
	/* algorithm */
	{"algorithm", 1, 2}, {"complexity", 1, 2}, {"reformulat*", 1, 2},
	{"mathematically equivalent", 1, 3}, {"reorder the computation", 1, 2},
	{"precompute*", 1, 2}, {"closed form", 1, 3}, {"approximat*", 1, 1},
	{"online softmax", 1, 3}, {"redundant computation", 1, 3},
	{"skip work", 1, 2}, {"sparsity", 1, 2}, {"winograd", 1, 3},
	{"fft", 1, 2}, {"single-pass", 1, 2}, {"single pass", 1, 2},
	{"two-pass", 1, 2}, {"two passes", 1, 2}, {"one output element", 1, 2},
	{"register blocking", 1, 2}, {"register tile", 1, 2},
	{"register tiling", 1, 2}, {"8x8", 1, 1}, {"work per thread", 1, 2},
	{"算法", 1, 2}, {"复杂度", 1, 2}, {"数学等价", 1, 3}, {"重写公式", 1, 2},
	{"冗余计算", 1, 3}, {"预计算", 1, 2}, {"近似", 1, 1},
	{"寄存器分块", 1, 3}, {"输出元素", 1, 2}, {"只算一个", 1, 2},
	/* operator boundary */
	{"fuse*", 2, 3}, {"fusion", 2, 3}, {"fusing", 2, 3},
	{"separate kernels", 2, 3}, {"launch overhead", 2, 3},
	{"kernel launch*", 2, 2}, {"epilogue", 2, 2},
	{"intermediate tensor", 2, 3}, {"materializ*", 2, 2},
	{"cuda graph*", 2, 3}, {"torch op", 2, 2}, {"end-to-end", 2, 2},
	{"end to end", 2, 1}, {"amdahl", 2, 3}, {"融合", 2, 3}, {"算子", 2, 2},
	{"算子边界", 2, 3}, {"启动开销", 2, 3}, {"中间结果", 2, 2},
	{"合并kernel", 2, 3}, {"拆分", 2, 1},
	/* data movement */
	{"hbm", 3, 3}, {"dram", 3, 3}, {"global memory traffic", 3, 3},
	{"bandwidth", 3, 3}, {"bytes moved", 3, 3}, {"memory traffic", 3, 3},
	{"arithmetic intensity", 3, 3}, {"memcpy", 3, 2}, {"host-device", 3, 2},
	{"pcie", 3, 2}, {"prefetch*", 3, 2}, {"cp.async", 3, 3}, {"tma", 3, 3},
	{"tensor memory accelerator", 3, 3},
	/* producer warps load (TMA, cp.async) while consumer warps compute:
	 * a way to overlap data movement, as pipelining is */
	{"warp specializ*", 3, 3}, {"warp-specializ*", 3, 3},
	{"double buffer*", 3, 3}, {"pipelining", 3, 2}, {"l2 reuse", 3, 2},
	{"memory-bound", 3, 3}, {"memory bound", 3, 3}, {"global loads", 3, 2},
	{"global memory", 3, 1}, {"read twice", 3, 2}, {"redundant reads", 3, 2},
	{"数据搬运", 3, 3}, {"带宽", 3, 3}, {"显存", 3, 2}, {"拷贝", 3, 1},
	{"传输", 3, 1}, {"预取", 3, 2}, {"双缓冲", 3, 3}, {"访存量", 3, 3},
	{"算术强度", 3, 3},
	/* synchronization */
	{"__syncthreads", 4, 3}, {"syncthreads", 4, 3}, {"barrier*", 4, 2},
	{"atomic*", 4, 3}, {"contention", 4, 2}, {"race", 4, 2},
	{"stream*", 4, 1}, {"cudadevicesynchronize", 4, 3}, {"grid sync", 4, 3},
	{"cooperative group*", 4, 3}, {"shfl*", 4, 3}, {"shuffle*", 4, 2},
	{"mbarrier*", 4, 3},
	{"warp shuffle*", 4, 3}, {"warp-level reduction", 4, 3}, {"serializ*", 4, 2}, {"同步", 4, 3},
	{"屏障", 4, 3}, {"原子操作", 4, 3}, {"竞争", 4, 2}, {"串行化", 4, 2},
	/* memory access */
	{"coalesc*", 5, 3}, {"uncoalesc*", 5, 3}, {"stride*", 5, 2}, {"bank conflict*", 5, 3},
	{"shared memory", 5, 3}, {"shared-memory", 5, 3}, {"smem", 5, 3},
	{"__shared__", 5, 3}, {"tiling", 5, 3}, {"tile*", 5, 2},
	{"vectoriz*", 5, 3}, {"vector load*", 5, 3}, {"float4", 5, 3},
	{"16 bytes wide", 5, 3}, {"128-bit", 5, 2}, {"alignment", 5, 2},
	{"aligned", 5, 1}, {"cache hit", 5, 2}, {"register spill*", 5, 3},
	{"layout", 5, 2}, {"transpose", 5, 2}, {"padding", 5, 2}, {"pad", 5, 1},
	{"occupancy", 5, 2}, {"合并访存", 5, 3}, {"访存模式", 5, 3},
	{"共享内存", 5, 3}, {"bank冲突", 5, 3}, {"分块", 5, 2}, {"向量化", 5, 3},
	{"对齐", 5, 2}, {"缓存命中", 5, 2}, {"寄存器溢出", 5, 3},
	{"数据布局", 5, 2}, {"占用率", 5, 2},
	/* shared memory to registers in the tensor cores' fragment layout */
	{"ldmatrix", 5, 3}, {"stmatrix", 5, 3},
	/* compiler output */
	{"ptx", 6, 3}, {"sass", 6, 3}, {"nvcc", 6, 1}, {"-o3", 6, 2},
	{"use_fast_math", 6, 3}, {"fast math", 6, 2}, {"unroll*", 6, 3},
	{"#pragma", 6, 2}, {"inline", 6, 1}, {"register count", 6, 3},
	{"-xptxas", 6, 3}, {"cuobjdump", 6, 3}, {"instruction mix", 6, 3},
	{"fma", 6, 2}, {"triton ir", 6, 3}, {"autotune", 6, 2},
	/* tensor cores: which matrix instructions the compiled kernel issues
	 * (instruction-level, as the instruction mix) */
	{"tensor core*", 6, 3}, {"tensor-core*", 6, 3}, {"wgmma", 6, 3},
	{"mma.sync", 6, 3}, {"mma", 6, 2}, {"wmma", 6, 3}, {"hmma", 6, 3},
	{"tcgen05", 6, 3}, {"张量核心", 6, 3},
	{"编译器", 6, 3}, {"汇编", 6, 3}, {"指令", 6, 2}, {"展开", 6, 2},
	{"寄存器数量", 6, 3}, {"编译选项", 6, 3}, {"反汇编", 6, 3},
	/* measurement */
	{"benchmark*", 7, 2}, {"timing", 7, 3}, {"warmup", 7, 3},
	{"warm-up", 7, 3}, {"cudaevent*", 7, 3}, {"profil*", 7, 2},
	{"ncu", 7, 3}, {"nsys", 7, 3}, {"nsight", 7, 3}, {"sol%", 7, 2},
	{"roofline", 7, 2}, {"achieved occupancy", 7, 3}, {"variance", 7, 2},
	{"noise", 7, 2}, {"median", 7, 2}, {"cache flush", 7, 3},
	{"baseline", 7, 1}, {"caching results", 7, 3}, {"measure*", 7, 2},
	{"accurate", 7, 2}, {"replicable", 7, 2}, {"same operations", 7, 2},
	{"测量", 7, 3}, {"计时", 7, 3}, {"预热", 7, 3}, {"基准", 7, 2},
	{"性能分析", 7, 3}, {"理论峰值", 7, 3}, {"噪声", 7, 2}, {"方差", 7, 2},
	{"中位数", 7, 2}, {"缓存结果", 7, 3},
};

/* The lexicon bucketed by first byte, with term lengths: built once (it
 * was built on every call, ~260 strlen, most of a short question's cost,
 * and blame and mining classify thousands of texts). */
enum { NTERMS = sizeof(lexicon) / sizeof(lexicon[0]) };
static struct {
	unsigned short head[256], next[NTERMS], tl[NTERMS];
} lex_idx;
static pthread_once_t lex_once = PTHREAD_ONCE_INIT;

static void lex_build(void)
{
	memset(lex_idx.head, 0xff, sizeof(lex_idx.head));
	for (size_t i = NTERMS; i-- > 0;) {
		unsigned char b = (unsigned char)lexicon[i].term[0];

		lex_idx.tl[i] = (unsigned short)strlen(lexicon[i].term);
		lex_idx.next[i] = lex_idx.head[b];
		lex_idx.head[b] = (unsigned short)i;
	}
}

int kt_an_layer_of(const char *text, size_t len, double scores[KT_AN_NLAYERS])
{
	double sc[KT_AN_NLAYERS] = {0};
	size_t n, i;
	char *f;
	int best = KT_AN_L_NONE;

	if (scores)
		memset(scores, 0, sizeof(sc));
	if (!text || !len)
		return KT_AN_L_NONE;
	/* long texts: the first 16 KiB say enough and keep this linear */
	if (len > 16384)
		len = 16384;
	f = kt_an_fold(text, len, &n);
	if (!f)
		return KT_AN_L_NONE;
	{
		/* one pass: terms bucketed by first byte, tried where they can
		 * start (ASCII terms at word starts only) */
		const unsigned short *head = lex_idx.head, *next = lex_idx.next,
				     *tl = lex_idx.tl;
		unsigned char cnt[NTERMS] = {0};
		const unsigned char *p = (const unsigned char *)f;

		pthread_once(&lex_once, lex_build);
		for (size_t k = 0; k < n; k++) {
			int ws = k == 0 || !isalnum(p[k - 1]);

			if (p[k] < 0x80 && !ws)
				continue;
			for (unsigned short t = head[p[k]]; t != 0xffff; t = next[t]) {
				size_t l = tl[t];
				int stem = lexicon[t].term[l - 1] == '*';

				if (stem)
					l--;
				/* the first byte matched (the bucket); most
				 * terms differ at the second */
				if (k + l > n ||
				    (l > 1 && f[k + 1] != lexicon[t].term[1]) ||
				    memcmp(f + k, lexicon[t].term, l))
					continue;
				if (p[k] < 0x80 && !stem && k + l < n &&
				    kt_an_wordch(p[k + l]))
					continue;
				if (cnt[t] < 4) {
					cnt[t]++;
					sc[lexicon[t].layer] += lexicon[t].weight;
				}
			}
		}
	}
	free(f);
	for (i = 1; i < KT_AN_NLAYERS; i++)
		if (sc[i] > sc[best] || (best == KT_AN_L_NONE && sc[i] > 0))
			best = (int)i;
	if (scores)
		memcpy(scores, sc, sizeof(sc));
	return best;
}

static const char *relocate_terms[] = {
	"instead of", "not the kernel", "real bottleneck", "rather than",
	"outside the kernel", "where is the time", "where does the time",
	"what limits", "what is limiting", "the bottleneck is not",
	"真正的瓶颈", "换个角度", "时间花在哪", "瓶颈在哪", "而是", "有没有试过",
};
/* A claimed performance bound: these name one by themselves. */
static const char *bound_terms[] = {
	"theoretical", "peak", "upper bound", "roofline", "sol", "already optimal",
	"can't be faster", "cannot be faster", "can't go faster",
	"memory-bound", "memory bound", "compute-bound", "compute bound",
	"bandwidth-bound", "bandwidth bound", "latency-bound", "latency bound",
	"speed of light", "speed-of-light",
	"理论上限", "上限", "已经到极限", "极限", "不可能更快", "峰值", NULL,
};
/* Doubt or limit words that challenge a bound only next to a performance
 * context ("are you sure it is at the bandwidth limit?"): alone they are
 * any instruction ("make sure ... by limiting its run time", "prove the
 * patch is correct"). */
static const char *bound_doubt[] = {
	"limit*", "prove", "evidence", "are you sure", "证据", "你确定", NULL,
};
static const char *bound_context[] = {
	"bandwidth", "throughput", "latency", "flops", "tflops", "gb/s", "tb/s",
	"dram", "hbm", "occupancy", "faster", "speedup", "speed", "optimal",
	"bottleneck", "带宽", "吞吐", "延迟", "更快", "瓶颈", NULL,
};

unsigned kt_an_text_flags(const char *text, size_t len)
{
	unsigned fl = 0;
	size_t n, i;
	char *f;

	if (!text || !len)
		return 0;
	f = kt_an_fold(text, len > 16384 ? 16384 : len, &n);
	if (!f)
		return 0;
	for (i = 0; i < sizeof(relocate_terms) / sizeof(*relocate_terms); i++)
		if (count_term(f, n, relocate_terms[i], 1))
			fl |= KT_AN_F_RELOCATE;
	for (i = 0; bound_terms[i] && !(fl & KT_AN_F_BOUND); i++)
		if (count_term(f, n, bound_terms[i], 1))
			fl |= KT_AN_F_BOUND;
	for (i = 0; bound_doubt[i] && !(fl & KT_AN_F_BOUND); i++)
		if (count_term(f, n, bound_doubt[i], 1))
			for (size_t k = 0; bound_context[k]; k++)
				if (count_term(f, n, bound_context[k], 1)) {
					fl |= KT_AN_F_BOUND;
					break;
				}
	free(f);
	return fl;
}

/* ---- question rules (analysis.md 3.2) -------------------------------------- */

/* Whether the '?' at p[i] is a symbol rather than a question mark: right
 * after a quote, backtick, space, '(' or the start, or a "??" run. */
static int symbol_qmark(const unsigned char *p, size_t n, size_t i)
{
	size_t a = i;

	while (a > 0 && p[a - 1] == '?')
		a--;
	if (i + 1 < n && p[i + 1] == '?' && a == i)
		return symbol_qmark(p, n, i + 1) || a == 0 || p[a - 1] == ' ';
	if (a == 0)
		return 1;
	if (a < i && (p[a - 1] == ' ' || p[a - 1] == '\t'))
		return 1;
	return p[a - 1] == '"' || p[a - 1] == '\'' || p[a - 1] == '`' ||
	       p[a - 1] == ' ' || p[a - 1] == '\t' || p[a - 1] == '(' ||
	       (a >= 3 && p[a - 3] == 0xE2 && p[a - 2] == 0x80 &&
		(p[a - 1] == 0x9C || p[a - 1] == 0x9D || p[a - 1] == 0x98 ||
		 p[a - 1] == 0x99));
}

/* A sentence that carries LaTeX or code: a backslash command (\mathrm,
 * \cite), braces, or an assignment/call shape - quoted material, not a
 * question a person asks. */
static int code_like(const char *s, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++) {
		if (s[i] == '\\' && isalpha((unsigned char)s[i + 1]))
			return 1;
		if (s[i] == '{' || s[i] == '}' || (s[i] == ';' && i + 1 == n - 1))
			return 1;
		if (s[i] == '(' && s[i + 1] == ')')
			return 1;
	}
	return 0;
}

/* A line of pasted tabular or reference material: cells split by tabs or
 * by runs of 4+ spaces after text. */
static int tabular_line(const char *l, size_t n)
{
	size_t k = 0, sp = 0;
	int text = 0;

	while (k < n && (l[k] == ' ' || l[k] == '\t'))
		k++;
	for (; k < n; k++) {
		if (l[k] == '\t' && text)
			return 1;
		if (l[k] == ' ') {
			if (++sp >= 4 && text)
				return 1;
		} else {
			sp = 0;
			text = 1;
		}
	}
	return 0;
}


/* A line that introduces material a person pasted rather than wrote: it
 * ends with ':' and says the text was copied or pasted ("Here is the
 * reference text I copied:"), or opens with "here is/are" or "below is"
 * and names reference material ("Here are the abstracts:").  What follows
 * it, up to the next blank line, is someone else's text: titles such as
 * "Why is softmax memory bound?" are not the person's questions. */
static int paste_intro(const char *l, size_t n)
{
	static const char *said[] = {"copied", "pasted", "copy-paste",
				     "copy paste", NULL};
	static const char *open[] = {"here is ", "here's ", "here are ",
				     "below is ", "below are ",
				     "the following ", NULL};
	static const char *nouns[] = {"reference", "abstract", "bibliograph",
				      "citation", "excerpt", "passage",
				      "quote", "titles", NULL};
	char b[256];
	size_t i, k = 0;
	int said_it = 0, opens = 0, named = 0;

	while (n > 0 && (l[n - 1] == ' ' || l[n - 1] == '\t' ||
			 l[n - 1] == '\r' || l[n - 1] == '*'))
		n--;
	if (!n || l[n - 1] != ':' || n >= sizeof(b))
		return 0;
	while (k < n && (l[k] == '*' || l[k] == ' '))
		k++;
	for (i = 0; k < n; k++)
		b[i++] = (char)tolower((unsigned char)l[k]);
	b[i] = 0;
	for (i = 0; said[i]; i++)
		said_it |= strstr(b, said[i]) != NULL;
	for (i = 0; open[i]; i++)
		opens |= !strncmp(b, open[i], strlen(open[i]));
	for (i = 0; nouns[i]; i++)
		named |= strstr(b, nouns[i]) != NULL;
	return said_it || (opens && named);
}

/* A line of a reference list: "Smith, J. (2021). Title ...", "[3] Jones,
 * K. ... (2020)", or a BibTeX entry's first line "@article{key,".  Its
 * title may end with '?' but no one asked it. */
static int citation_line(const char *l, size_t n)
{
	size_t k = 0, i;

	if (n >= 2 && l[0] == '@' && isalpha((unsigned char)l[1])) {
		for (k = 1; k < n && isalpha((unsigned char)l[k]); k++)
			;
		return k < n && l[k] == '{';
	}
	if (k < n && l[k] == '[') {
		for (k++; k < n && isdigit((unsigned char)l[k]); k++)
			;
		if (k >= n || l[k] != ']')
			return 0;
		for (k++; k < n && l[k] == ' '; k++)
			;
	}
	/* Surname, I. */
	if (k >= n || !isupper((unsigned char)l[k]))
		return 0;
	for (k++; k < n && (isalpha((unsigned char)l[k]) || l[k] == '-' ||
			    l[k] == '\''); k++)
		;
	if (k + 3 >= n || l[k] != ',' || l[k + 1] != ' ' ||
	    !isupper((unsigned char)l[k + 2]) || l[k + 3] != '.')
		return 0;
	/* and a year in parentheses: (1999) .. (2099) */
	for (i = k; i + 5 < n; i++)
		if (l[i] == '(' && (l[i + 1] == '1' || l[i + 1] == '2') &&
		    isdigit((unsigned char)l[i + 2]) &&
		    isdigit((unsigned char)l[i + 3]) &&
		    isdigit((unsigned char)l[i + 4]) &&
		    (l[i + 5] == ')' || l[i + 5] == ','))
			return 1;
	return 0;
}


static int starts_word(const char *s, const char *w)
{
	size_t l;

	/* most words of a list differ at the first byte: no strlen then */
	if (*w && *s != *w)
		return 0;
	l = strlen(w);

	return strncmp(s, w, l) == 0 && !kt_an_wordch((unsigned char)s[l]) &&
	       s[l] != '\'';
}

static const char *skip_sp(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '"' || *s == '\'' ||
	       *s == '*' || *s == '-' || *s == '(')
		s++;
	return s;
}

/* Skip one leading word (letters, digits, apostrophes). */
static const char *skip_word(const char *s)
{
	while (kt_an_wordch((unsigned char)*s) || *s == '\'')
		s++;
	return skip_sp(s);
}

static const char *wh_words[] = {"what", "why", "how", "which", "who",
				 "whether", "whats", "what's", "hows", NULL};
static const char *wh_need_q[] = {"when", "where", NULL};
static const char *aux_words[] = {
	"is", "are", "was", "were", "do", "does", "did", "can", "could",
	"should", "would", "will", "have", "has", "had", "shall", "may",
	"might", "isn't", "aren't", "don't", "doesn't", "didn't", "can't",
	"won't", "wouldn't", "couldn't", "shouldn't", "isnt", "arent", "dont",
	"doesnt", "didnt", "cant", NULL};
/* after "do"/"have"/"will"...: these make an imperative ("Do the ...") */
static const char *imper_next[] = {"the", "a", "an", "it", "this", "that",
				   "so", "not", "both", "all", "some", "one",
				   "these", "those", "look", NULL};
static const char *prefixes[] = {
	"please", "pls", "can you", "could you", "would you", "i need you to",
	"i want you to", "we need to", "you need to", "you should", "let's",
	"lets", "now", "ok", "okay", "so", "also", "and", "but", "then",
	"first", "maybe", "just", NULL};
static const char *strong_challenge[] = {
	"verify", "prove", "confirm", "double-check", "double check",
	"make sure", "ensure", "validate", "sanity check", "sanity-check", NULL};
static const char *weak_challenge[] = {
	"check", "measure", "profile", "compare", "benchmark", "show",
	"look at", "test", "investigate", "figure out", "find out", "explain",
	NULL};
static const char *weak_objects[] = {
	"that", "whether", "if", "why", "how", "what", "where", "which", "who",
	NULL};
static const char *perf_words[] = {
	"bandwidth", "bound", "peak", "roofline", "ncu", "nsys", "bottleneck",
	"occupancy", "limit", "throughput", "dram", "hbm", "sol", "speedup",
	"latency", NULL};
static const char *claim_words[] = {
	"really", "actually", "claim", "you said", "your", "correct",
	"faster", "slower", "optimal", "fastest", NULL};
static const char *doubt_en[] = {
	"are you sure", "i doubt", "that can't", "that cannot", "why not",
	"what if", "not the bottleneck", "where is the time",
	"where does the time", "is that really", "really the limit",
	"can't be faster", "cannot be faster", "can't go faster",
	"already optimal", "how do you know", "how do we know", NULL};
static const char *courtesy[] = {
	"continue", "go on", "keep going", "proceed", "ok", "okay", "thanks",
	"thank you", "yes", "no", "sure", "go ahead", "do it", "next", NULL};
/* ZH markers (analysis.md 3.2) */
static const char *zh_wh[] = {"为什么", "为何", "怎么", "怎样", "如何",
			      "什么", "哪里", "哪个", "哪", "多少", "是否",
			      "有没有", "是不是", "能不能", "会不会", "对不对",
			      "可不可以", "要不要", NULL};
static const char *zh_challenge[] = {
	"检查", "确认", "验证", "测一下", "测量", "量一下", "profile一下",
	"对比", "证明", "你确定", "真的吗", "瓶颈在哪", "时间花在哪",
	"理论上限", "已经到极限", "上限", NULL};
static const char *zh_final[] = {"吗", "呢", "么", NULL};
/* Polite openers of a request for work ("Can you run the benchmarks ...",
 * "Can we get the other two libraries working ...", the agent's "Would you
 * like me to ...", "Want me to add tests?"): the inverted auxiliary is
 * courtesy, not a question (issue 15, raw lines 206 and 398 of the corpus'
 * vsla_cuda_dev session). */
static const char *req_open[] = {
	"can you", "could you", "would you", "will you", "can we", "could we",
	"can't you", "cant you", "won't you", "can u", "could u",
	"do you want me to", "do you want us to", "want me to", NULL};
static const char *req_lead[] = {"so", "and", "ok", "okay", "also", "now",
				 "then", "but", "please", "hey", "just", NULL};
/* after an opener: verbs of knowing or saying ask for an answer ("can you
 * tell me the register count?", "could you be sure ...") */
static const char *req_ask[] = {"be", "tell", "explain", "say", "see",
				"think", "know", "imagine", "believe",
				"guess", "describe", NULL};
static const char *req_wh[] = {"what", "why", "how", "which", "who", "whom",
			       "whose", "whether", "where", "when", "if",
			       "whats", "what's", NULL};

static int match_any_start(const char *s, const char **list, size_t *len)
{
	for (int i = 0; list[i]; i++)
		if (starts_word(s, list[i])) {
			if (len)
				*len = strlen(list[i]);
			return 1;
		}
	return 0;
}

static int contains_any(const char *s, size_t n, const char **list)
{
	for (int i = 0; list[i]; i++)
		if (count_term(s, n, list[i], 1))
			return 1;
	return 0;
}

/* Content tokens: ASCII words of >= 2 letters plus CJK characters / 2. */
static int content_tokens(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, adv;
	int words = 0, cjk = 0;

	while (i < n) {
		if (isalnum(p[i])) {
			size_t st = i;

			while (i < n && (kt_an_wordch(p[i]) || p[i] == '\''))
				i++;
			if (i - st >= 2)
				words++;
			continue;
		}
		if (kt_an_is_cjk(kt_an_u8dec(p + i, n - i, &adv)))
			cjk++;
		i += adv;
	}
	return words + cjk / 2;
}

/* Whether the folded sentence s..e is a request for work in question form:
 * a polite opener (req_open, after req_lead words), then an action, with no
 * wh-word or "if" anywhere and no optimization technique named.  A named
 * technique ("Could you prefetch the next tile with cp.async?") proposes a
 * change of layer and stays a question; a benchmark run alone is routine
 * work, so measurement counts as a technique only with a term of weight 3
 * (warm-up, timing, ncu...: a method, not "run the benchmarks"). */
static int work_request(const char *s, const char *e)
{
	double sc[KT_AN_NLAYERS];
	size_t pl;
	int l;

	while (match_any_start(s, req_lead, &pl))
		s = skip_sp(s + pl);
	if (!match_any_start(s, req_open, &pl))
		return 0;
	s = skip_sp(s + pl);
	while (match_any_start(s, req_lead, &pl))
		s = skip_sp(s + pl);
	if (!kt_an_wordch((unsigned char)*s) || match_any_start(s, req_ask, NULL) ||
	    contains_any(s, (size_t)(e - s), req_wh) ||
	    contains_any(s, (size_t)(e - s), bound_terms))
		return 0;
	kt_an_layer_of(s, (size_t)(e - s), sc);
	for (l = 1; l < KT_AN_NLAYERS; l++)
		if (l == KT_AN_L_MEASURE ? sc[l] >= 3 : sc[l] > 0)
			return 0;
	return 1;
}

/* How a sentence asks: it ends with a question mark ('?' or '？'); it has
 * a question's form (wh-word or inverted auxiliary first, a tag question,
 * 吗/呢, 为什么, A-not-A) - not a '?' alone. */
#define KT_AN_QH_MARKED 0x1u
#define KT_AN_QH_FORM   0x2u

/* kt_an_question_kind, and in *how the KT_AN_QH_* bits (extract needs them
 * for list items, headings and lead-ins). */
static unsigned question_kind(const char *sent, size_t len, unsigned *how)
{
	unsigned kind = 0;
	size_t n;
	char *f;
	const char *s, *e;
	int zh, form = 0;

	if (how)
		*how = 0;
	if (!sent || !len || len > 600)
		return 0;
	f = kt_an_fold(sent, len, &n);
	if (!f)
		return 0;
	zh = kt_an_is_zh(f, n);
	if (content_tokens(f, n) < 3 || code_like(f, n))
		goto out;
	s = skip_sp(f);
	/* trim trailing spaces and closing quotes to see the final mark */
	e = f + n;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '"' ||
			 e[-1] == '\'' || e[-1] == ')' || e[-1] == '*'))
		e--;
	{
		int qmark = e > s && e[-1] == '?' &&
			    !symbol_qmark((const unsigned char *)f, (size_t)(e - f),
					  (size_t)(e - f) - 1);
		/* courtesy: "can you continue?" and the like */
		const char *c = s;
		size_t pl;

		while (match_any_start(c, prefixes, &pl))
			c = skip_sp(c + pl);
		for (int i = 0; courtesy[i]; i++) {
			size_t cl = strlen(courtesy[i]);

			if (strncmp(c, courtesy[i], cl) == 0) {
				const char *r = c + cl;

				while (*r == ' ' || *r == '?' || *r == '.' ||
				       *r == '!' || *r == ',')
					r++;
				if (content_tokens(r, strlen(r)) == 0)
					goto out;
			}
		}
		if (qmark)
			kind |= KT_AN_Q_INTERROG;
		if (match_any_start(s, wh_words, NULL))
			form = 1;
		if (qmark && match_any_start(s, wh_need_q, NULL))
			form = 1;
		if (match_any_start(s, aux_words, &pl)) {
			const char *nx = skip_sp(s + pl);
			int imper = match_any_start(nx, imper_next, NULL) &&
				    (starts_word(s, "do") ||
				     starts_word(s, "have") ||
				     starts_word(s, "will"));

			if (!imper && kt_an_wordch((unsigned char)*nx))
				form = 1;
		}
		/* tag questions and ", can you ..." in the middle */
		if (strstr(s, ", right?") || strstr(s, ", no?") ||
		    strstr(s, ", can you ") || strstr(s, ", could you ") ||
		    strstr(s, "i wonder") || strstr(s, "any idea"))
			form = 1;
		if (form)
			kind |= KT_AN_Q_INTERROG;
		/* challenge verbs after an optional polite prefix */
		c = s;
		while (match_any_start(c, prefixes, &pl))
			c = skip_sp(c + pl);
		if (match_any_start(c, strong_challenge, &pl)) {
			/* "verify that/whether ...", or about a performance
			 * figure or a claim; "verify the paper compiles" is a
			 * request to do a task */
			const char *nx = skip_sp(c + pl);

			if (match_any_start(nx, weak_objects, NULL) ||
			    contains_any(s, (size_t)(e - s), perf_words) ||
			    contains_any(s, (size_t)(e - s), claim_words))
				kind |= KT_AN_Q_CHALLENGE;
		}
		else if (match_any_start(c, weak_challenge, &pl)) {
			const char *nx = skip_sp(c + pl);
			int k;

			/* "check whether/that ...", or a performance claim */
			for (k = 0; k < 4 && *nx; k++) {
				if (match_any_start(nx, weak_objects, NULL))
					break;
				nx = skip_word(nx);
			}
			if ((k < 4 && *nx) ||
			    contains_any(s, (size_t)(e - s), perf_words))
				kind |= KT_AN_Q_CHALLENGE;
		}
		if ((kind & KT_AN_Q_INTERROG) && work_request(s, e))
			kind &= ~KT_AN_Q_INTERROG, form = 0;
		if (contains_any(s, (size_t)(e - s), doubt_en))
			kind |= KT_AN_Q_DOUBT;
		if (zh) {
			const char *q = e;
			size_t adv;

			for (int i = 0; zh_wh[i]; i++)
				if (strstr(s, zh_wh[i]))
					kind |= KT_AN_Q_INTERROG, form = 1;
			for (int i = 0; zh_challenge[i]; i++)
				if (strstr(s, zh_challenge[i]))
					kind |= KT_AN_Q_CHALLENGE;
			/* sentence-final particle before 。/？/！ */
			while (q > s) {
				const char *b = s + kt_utf8_floor(
						s, (size_t)(q - 1 - s));
				uint32_t cp = kt_an_u8dec((const unsigned char *)b,
						    (size_t)(q - b), &adv);
				if (cp == 0x3002 || cp == 0xFF01 || cp == '.' ||
				    cp == '!' || cp == ' ' || cp == '?') {
					q = b;
					continue;
				}
				for (int i = 0; zh_final[i]; i++)
					if ((size_t)(q - b) == strlen(zh_final[i]) &&
					    !memcmp(b, zh_final[i], (size_t)(q - b)))
						kind |= KT_AN_Q_INTERROG, form = 1;
				break;
			}
			/* A-not-A over CJK: X不X / X没X */
			{
				const unsigned char *p = (const unsigned char *)s;
				size_t m = (size_t)(e - s), i = 0, a1, a2, a3;

				while (i < m) {
					uint32_t x = kt_an_u8dec(p + i, m - i, &a1);

					if (kt_an_is_cjk(x) && i + a1 < m) {
						uint32_t y = kt_an_u8dec(p + i + a1,
								   m - i - a1, &a2);
						if ((y == 0x4E0D || y == 0x6CA1) &&
						    i + a1 + a2 < m &&
						    kt_an_u8dec(p + i + a1 + a2,
							  m - i - a1 - a2,
							  &a3) == x)
							kind |= KT_AN_Q_INTERROG, form = 1;
					}
					i += a1;
				}
			}
		}
		if (kind && (contains_any(s, (size_t)(e - s), bound_terms)))
			kind |= KT_AN_Q_DOUBT;
		if (how)
			*how = (qmark || (e - s >= 3 && !memcmp(e - 3, "\xEF\xBC\x9F", 3)) ?
				KT_AN_QH_MARKED : 0) | (form ? KT_AN_QH_FORM : 0);
	}
out:
	free(f);
	return kind;
}

unsigned kt_an_question_kind(const char *sent, size_t len)
{
	return question_kind(sent, len, NULL);
}

/* A line that starts a pasted terminal session or a traceback. */
static int pasted_start(const char *l, size_t n)
{
	const char *d, *at;

	if (n >= 9 && !strncmp(l, "Traceback", 9))
		return 1;
	if (n >= 2 && l[0] == '$' && l[1] == ' ')
		return 1;
	/* user@host:path$ command */
	at = memchr(l, '@', n);
	d = at ? memchr(at, '$', n - (size_t)(at - l)) : NULL;
	if (at && d && memchr(at, ':', (size_t)(d - at)) &&
	    !memchr(l, ' ', (size_t)(at - l)))
		return 1;
	return 0;
}

/* Markdown structure that is no sentence of its own (issue 15, the agent's
 * messages under --agent): a heading ("## Next Steps") or a line that is
 * all bold ("**Why CuPy is valuable:**", "**Next steps?**") is a title;
 * returns 1.  A list item ("- Would provide ...", "1. Add GPU convolution
 * benchmarking first?") or a lead-in that ends with ':' ("Would you like me
 * to:") is a fragment: returns 2.  Otherwise 0.  l..l+n is the line
 * without its indentation. */
static int md_line(const char *l, size_t n)
{
	size_t k = 0;

	while (n > 0 && (l[n - 1] == ' ' || l[n - 1] == '\t' || l[n - 1] == '\r'))
		n--;
	if (n >= 2 && l[0] == '#' && (l[1] == '#' || l[1] == ' '))
		return 1;
	if (n >= 5 && !strncmp(l, "**", 2) && !strncmp(l + n - 2, "**", 2) &&
	    !memmem(l + 2, n - 4, "**", 2))
		return 1;
	if (n >= 2 && (l[0] == '-' || l[0] == '*' || l[0] == '+') && l[1] == ' ')
		return 2;
	if (n >= 4 && !memcmp(l, "\xE2\x80\xA2", 3) && l[3] == ' ') /* • */
		return 2;
	while (k < n && k < 3 && isdigit((unsigned char)l[k]))
		k++;
	if (k && k + 1 < n && (l[k] == '.' || l[k] == ')') && l[k + 1] == ' ')
		return 2;
	while (n > 0 && l[n - 1] == '*')
		n--;
	return n > 0 && l[n - 1] == ':' ? 2 : 0;
}

/* Sentence end: ASCII . ! ? ; followed by space/end, or 。？！；. */
static size_t sent_end(const unsigned char *p, size_t n, size_t i, size_t *adv)
{
	uint32_t c = kt_an_u8dec(p + i, n - i, adv);

	/* '?' written as a symbol: quoted ("?"), standing alone ("with ?
	 * marks"), or LaTeX's "??" for an undefined reference */
	if (c == '?' && symbol_qmark(p, n, i))
		return 0;
	if (c == '?' || c == '!' || c == ';' || c == '.') {
		size_t j = i + 1;

		if (c == '.') { /* "vs.", "e.g.", "etc." do not end a sentence */
			static const char *abbr[] = {"vs", "e.g", "i.e", "etc",
						     "approx", "cf", "eg", "ie",
						     /* not "ms": "takes 3 ms."
						      * ends a sentence */
						     "st", "dr", "mr", "mrs",
						     "prof", "jr", "sr", "mt",
						     "fig", NULL};
			for (int k = 0; abbr[k]; k++) {
				size_t al = strlen(abbr[k]);

				if (i >= al && !strncasecmp((const char *)p + i - al,
							    abbr[k], al) &&
				    (i == al || !isalnum(p[i - al - 1])))
					return 0;
			}
		}

		while (j < n && (p[j] == '?' || p[j] == '!' || p[j] == '.'))
			j++;
		if (j == n || p[j] == ' ' || p[j] == '\t' || p[j] == '\n' ||
		    p[j] == '"' || p[j] == ')')
			return j;
		return 0;
	}
	if (c == 0x3002 || c == 0xFF1F || c == 0xFF01 || c == 0xFF1B) {
		size_t j = i + *adv;

		return j;
	}
	return 0;
}

int kt_an_questions_extract(const char *text, size_t len, kt_an_q_cb cb,
			    void *arg)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t ls = 0;
	int fence = 0;
	int paste = 0; /* 1: after a paste_intro line, 2: in the pasted block */

	if (!text)
		return 0;
	while (ls < len) {
		size_t le = ls, i, st;
		int frag;

		while (le < len && p[le] != '\n')
			le++;
		/* line filters */
		{
			const char *l = text + ls;
			size_t ln = le - ls, k = 0;

			while (k < ln && (l[k] == ' ' || l[k] == '\t'))
				k++;
			if (ln - k >= 3 && !strncmp(l + k, "```", 3)) {
				fence = !fence;
				paste = 0; /* a fenced block is the paste */
				goto next;
			}
			/* pasted material runs to the next blank line
			 * after it */
			if (paste && !fence) {
				if (k < ln && l[k] != '\r') {
					paste = 2;
					goto next;
				}
				if (paste == 2)
					paste = 0;
				goto next;
			}
			if (!fence && paste_intro(l + k, ln - k)) {
				paste = 1;
				goto next;
			}
			if (!fence && citation_line(l + k, ln - k))
				goto next;
			if (fence || (k < ln && l[k] == '>') ||
			    k >= 4 || (ln - k >= 4 && !strncmp(l + k, "http", 4)))
				goto next;
			if (pasted_start(l + k, ln - k) || tabular_line(l, ln))
				return 0; /* the rest is pasted output */
			frag = md_line(l + k, ln - k);
			if (frag == 1)
				goto next;
		}
		st = ls;
		i = ls;
		while (i <= le) {
			size_t adv = 1, e = i < le ? sent_end(p, le, i, &adv) : le;

			if (i == le || e) {
				size_t a = st, b = i == le ? le : e;

				while (a < b && (p[a] == ' ' || p[a] == '\t' ||
						 p[a] == '-' || p[a] == '*'))
					a++;
				while (b > a && (p[b - 1] == ' ' || p[b - 1] == '\r'))
					b--;
				if (b > a) {
					unsigned how;
					unsigned k = question_kind(text + a, b - a,
								   &how);

					/* in a list item or a lead-in, a
					 * menu option ("Or do both?") or a
					 * bullet fragment ("Would provide
					 * ..."): only a marked question of
					 * full form, a challenge or a doubt
					 * is asked */
					if (frag && !(k & (KT_AN_Q_CHALLENGE |
							   KT_AN_Q_DOUBT)) &&
					    how != (KT_AN_QH_MARKED | KT_AN_QH_FORM))
						k = 0;
					if (k) {
						int rc = cb(text + a, b - a, k, arg);
						if (rc)
							return rc;
					}
				}
				if (i == le)
					break;
				st = e;
				i = e;
				continue;
			}
			i += adv;
		}
next:
		ls = le + 1;
	}
	return 0;
}

/* ---- task prompts ------------------------------------------------------------ */

int kt_an_task_prompt(const char *format, int before_agent, int input_source,
		      const char *text, size_t len)
{
	static const char *const statement[] = {
		"<issue>", "please solve this issue", "we're currently solving",
		"we are currently solving", "your task is to", NULL};
	const kt_importer *im;
	size_t n, k = 0;
	char *f;
	int hit = 0;

	if (input_source)
		return 1;
	/* which formats: their importers say (KT_IMPF_HARNESS_PROMPTS) */
	if (before_agent && (im = kt_importer_of_format(format)) &&
	    (im->flags & KT_IMPF_HARNESS_PROMPTS))
		return 1;
	if (!text || !len)
		return 0;
	f = kt_an_fold(text, len > 4096 ? 4096 : len, &n);
	if (!f)
		return 0;
	while (k < n && (f[k] == ' ' || f[k] == '\n' || f[k] == '\t'))
		k++;
	if (len >= 200 && (!strncmp(f + k, "you are a ", 10) ||
			   !strncmp(f + k, "you are an ", 11)))
		hit = 1;
	for (int i = 0; !hit && statement[i]; i++)
		if (kt_an_memmem(f, n, statement[i], strlen(statement[i])))
			hit = 1;
	free(f);
	return hit;
}

static int any_q_cb(const char *s, size_t n, unsigned kind, void *arg)
{
	(void)s;
	(void)n;
	(void)kind;
	(void)arg;
	return 1;
}

int kt_an_has_question(const char *text, size_t len)
{
	return kt_an_questions_extract(text, len, any_q_cb, NULL) != 0;
}

static int layer_cb(const char *s, size_t n, unsigned kind, void *arg)
{
	double *sum = arg, sc[KT_AN_NLAYERS];

	(void)kind;
	kt_an_layer_of(s, n, sc);
	for (int l = 0; l < KT_AN_NLAYERS; l++)
		sum[l] += sc[l];
	return 0;
}

int kt_an_msg_layer(const char *text, size_t len)
{
	double sum[KT_AN_NLAYERS] = {0};
	int best = KT_AN_L_NONE;

	kt_an_questions_extract(text, len, layer_cb, sum);
	/* kt_an_layer_of's choice over the summed scores */
	for (int l = 1; l < KT_AN_NLAYERS; l++)
		if (sum[l] > sum[best] || (best == KT_AN_L_NONE && sum[l] > 0))
			best = l;
	return best;
}

int kt_an_msg_task(const char *format, const kt_an_qstate *st,
		   const kt_an_msg *m)
{
	return m->human && !m->meta && m->text &&
	       kt_an_task_prompt(format, !st->acted && !st->calls,
				 m->input_source, m->text, m->len);
}

int kt_an_msg_question(const char *format, const kt_an_qstate *st,
		       const kt_an_msg *m,
		       int (*has_q)(void *arg, const char *text, size_t len),
		       void *arg)
{
	if (!m->human || m->meta || !m->text || kt_an_msg_task(format, st, m))
		return 0;
	return has_q ? has_q(arg, m->text, m->len) :
		       kt_an_has_question(m->text, m->len);
}

int kt_an_human_question(const char *format, int before_agent,
			 int input_source, const char *text, size_t len)
{
	return !kt_an_task_prompt(format, before_agent, input_source, text,
				  len) && kt_an_has_question(text, len);
}

int kt_an_ev_layer(const kt_an_ev *e)
{
	int l;

	if (!e->text)
		return KT_AN_L_NONE;
	if (e->memo & KT_AN_MEMO_LAYER)
		return (e->memo & KT_AN_MEMO_LAYER) - 1;
	l = kt_an_layer_of(e->text, strlen(e->text), NULL);
	/* the events live in the run's writable arrays (kt_an_run.ev) */
	((kt_an_ev *)e)->memo |= (unsigned char)(l + 1);
	return l;
}
