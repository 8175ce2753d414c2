/*
 * mine.c - the question library: candidates from runs, near-duplicate
 * clustering, layer/flag classification, ranking with shrinkage.
 *
 * analysis.md 3.3: shingles (word 2-grams + code-point 3-grams of the
 * normalized text, CJK code-point 2-grams), exact duplicates by hash, then
 * MinHash (128 hashes; Broder 1997) with LSH banding 32 x 4 to find
 * candidate pairs, each confirmed by exact shingle Jaccard >= 0.5 AND token
 * cosine >= 0.6 (the second measure), clustered with union-find; the
 * canonical text is the medoid by mean Jaccard.
 * analysis.md 3.6: score_j = (C*m + G_j) / (C + n_j), the Bayesian average
 * of attributed log gain per ask (m the global mean per ask, C = max(3,
 * median cluster size)).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analyze.h"
#include "an_int.h"

#define NHASH 128
#define BANDS 32
#define ROWS 4

struct cand {
	char *text, *norm;
	kt_an_qsrc src;
	int origin, zh, layer;
	unsigned kind, flags;
	unsigned tflags; /* kt_an_text_flags of text */
	double gain_log;
	int hit;
	uint64_t *sh;   /* shingles, sorted distinct */
	size_t nsh;
	uint64_t *tok;  /* tokens, sorted distinct */
	size_t ntok;
	uint64_t nhash; /* hash of norm */
};

struct kt_an_miner {
	int include_agent;
	struct cand *c;
	size_t n, cap;
	kt_an_qitem *items;
	size_t nitems;
	kt_an_qsrc *srcbuf;
};

int kt_an_miner_new(int include_agent, kt_an_miner **out)
{
	kt_an_miner *m = calloc(1, sizeof(*m));

	*out = m;
	if (!m)
		return KT_ENOMEM;
	m->include_agent = include_agent;
	return KT_OK;
}

void kt_an_miner_free(kt_an_miner *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		free(m->c[i].text);
		free(m->c[i].norm);
		free(m->c[i].sh);
		free(m->c[i].tok);
	}
	free(m->c);
	for (size_t i = 0; i < m->nitems; i++)
		free(m->items[i].src);
	free(m->items);
	free(m);
}

static int add_cand(kt_an_miner *m, const char *run, uint64_t seq,
		    const char *s, size_t n, unsigned kind, int origin,
		    double gain_log, int hit, unsigned extra_flags)
{
	struct cand *c;

	if (KT_GROW(m->c, m->cap, m->n + 1))
		return KT_ENOMEM;
	c = &m->c[m->n];
	memset(c, 0, sizeof(*c));
	c->text = kt_memdupz(s, n);
	if (!c->text)
		return KT_ENOMEM;
	snprintf(c->src.run, sizeof(c->src.run), "%s", run ? run : "");
	c->src.seq = seq;
	c->kind = kind;
	c->origin = origin;
	c->gain_log = gain_log;
	c->hit = hit;
	c->flags = extra_flags;
	m->n++;
	return KT_OK;
}

struct addctx {
	kt_an_miner *m;
	const char *run;
	uint64_t seq;
	int origin;
	double gain;
	int hit;
	unsigned flags;
	int agent_only_interrog;
	int err;
};

static int add_cb(const char *s, size_t n, unsigned kind, void *arg)
{
	struct addctx *a = arg;

	if (a->agent_only_interrog && !(kind & KT_AN_Q_INTERROG))
		return 0;
	a->err = add_cand(a->m, a->run, a->seq, s, n, kind, a->origin, a->gain,
			  a->hit, a->flags);
	return a->err ? 1 : 0;
}

int kt_an_miner_add_text(kt_an_miner *m, const char *run, uint64_t seq,
			 const char *text, size_t len, int origin)
{
	struct addctx a = {m, run, seq, origin, 0, 0, 0, 0, 0};

	kt_an_questions_extract(text, len, add_cb, &a);
	return a.err;
}

int kt_an_miner_add(kt_an_miner *m, const kt_an_run *r, const kt_an_blame *b)
{
	return kt_an_miner_add_n(m, r, b, b ? 1 : 0);
}

int kt_an_miner_add_n(kt_an_miner *m, const kt_an_run *r,
		      const kt_an_blame *b, size_t nb)
{
	long last_agent = -1; /* the agent message before a candidate */
	long pl_of = -1;      /* the agent message pl is the layer of: many
				 human turns can follow one agent message */
	int pl = KT_AN_L_NONE;

	for (size_t i = 0; i < r->nev; i++) {
		const kt_an_ev *e = &r->ev[i];
		struct addctx a = {m, r->id, e->seq, KT_AN_QO_HUMAN, 0, 0, 0, 0, 0};
		int agent = e->kind == KT_KIND_MESSAGE && !e->human && !e->meta &&
			    e->role == KT_AN_ROLE_ASSISTANT;

		if (!e->text)
			continue;
		if (agent) {
			last_agent = (long)i;
			if (!m->include_agent)
				continue;
			a.origin = KT_AN_QO_AGENT;
			a.agent_only_interrog = 1;
		} else if (e->kind == KT_KIND_QUESTION) {
			a.origin = e->qorigin ? e->qorigin : KT_AN_QO_HUMAN;
			if (a.origin == KT_AN_QO_AGENT && !m->include_agent)
				continue;
		} else if (!(e->kind == KT_KIND_MESSAGE && e->human && !e->meta &&
			     !e->task) || (e->memo & KT_AN_MEMO_NOQ)) {
			/* NOQ: the loader's question rules found none in
			 * this text; extracting them again finds none */
			continue;
		}
		for (size_t w = 0; w < nb; w++)
			for (size_t k = 0; k < b[w].njump; k++)
				if (b[w].jump[k].question == (long)i) {
					a.gain += log(b[w].jump[k].gain) *
						  b[w].jump[k].p_question;
					a.hit = 1;
				}
		/* moves the agent to another layer than it worked in */
		if (last_agent >= 0 && !agent) {
			int l;

			if (pl_of != last_agent) {
				pl = kt_an_ev_layer(&r->ev[last_agent]);
				pl_of = last_agent;
			}
			l = pl != KT_AN_L_NONE ? kt_an_ev_layer(e) : KT_AN_L_NONE;

			if (l != KT_AN_L_NONE && l != pl)
				a.flags |= KT_AN_F_RELOCATE;
		}
		if (e->kind == KT_KIND_QUESTION) {
			/* a question event is a question as a whole */
			unsigned k = kt_an_question_kind(e->text, strlen(e->text));

			a.err = add_cand(m, r->id, e->seq, e->text, strlen(e->text),
					 k ? k : KT_AN_Q_INTERROG, a.origin, a.gain,
					 a.hit, a.flags);
		} else {
			kt_an_questions_extract(e->text, strlen(e->text), add_cb, &a);
		}
		if (a.err)
			return a.err;
	}
	return KT_OK;
}

/* ---- shingles and MinHash ---------------------------------------------------- */
static uint64_t mix(uint64_t z)
{
	z += 0x9E3779B97F4A7C15ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static uint64_t fnv(const void *d, size_t n)
{
	return kt_fnv1a(KT_FNV1A_INIT, d, n);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Start offsets of the UTF-8 code points of s. */
static size_t cp_starts(const char *s, size_t n, size_t *st)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			st[k++] = i;
	st[k] = n;
	return k;
}

static int shingles(const char *norm, uint64_t **out, size_t *nout)
{
	size_t n = strlen(norm), k = 0, ncp, nw = 0;
	size_t *st = malloc((n + 2) * sizeof(*st));
	size_t *ws = malloc((n + 2) * sizeof(*ws)), *we = malloc((n + 2) * sizeof(*we));
	uint64_t *v = malloc((2 * n + 4) * sizeof(*v));

	*out = NULL;
	*nout = 0;
	if (!st || !ws || !we || !v) {
		free(st);
		free(ws);
		free(we);
		free(v);
		return KT_ENOMEM;
	}
	ncp = cp_starts(norm, n, st);
	/* code-point 3-grams (2-grams for CJK-only text keep short ZH
	 * questions comparable) */
	{
		int zh = kt_an_is_zh(norm, n);
		size_t g = zh ? 2 : 3;

		for (size_t i = 0; i + g <= ncp; i++)
			v[k++] = fnv(norm + st[i], st[i + g] - st[i]) ^ g;
		if (ncp < g && n)
			v[k++] = fnv(norm, n);
	}
	/* word 2-grams */
	for (size_t i = 0; i < n;) {
		while (i < n && norm[i] == ' ')
			i++;
		if (i >= n)
			break;
		ws[nw] = i;
		while (i < n && norm[i] != ' ')
			i++;
		we[nw++] = i;
	}
	for (size_t i = 0; i + 1 < nw; i++)
		v[k++] = mix(fnv(norm + ws[i], we[i + 1] - ws[i]));
	free(st);
	free(ws);
	free(we);
	if (!k) {
		free(v);
		return KT_OK;
	}
	qsort(v, k, sizeof(*v), cmp_u64);
	n = 1;
	for (size_t i = 1; i < k; i++)
		if (v[i] != v[n - 1])
			v[n++] = v[i];
	*out = v;
	*nout = n;
	return KT_OK;
}

static double jaccard(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	size_t i = 0, j = 0, c = 0;

	if (!na && !nb)
		return 1;
	while (i < na && j < nb) {
		if (a[i] == b[j])
			c++, i++, j++;
		else if (a[i] < b[j])
			i++;
		else
			j++;
	}
	return (double)c / (double)(na + nb - c);
}

static double cosine_set(const uint64_t *a, size_t na, const uint64_t *b,
			 size_t nb)
{
	if (!na || !nb)
		return na == nb;
	return kt_an_containment(a, na, b, nb) * (double)na / sqrt((double)na * nb);
}

static void minhash(const uint64_t *sh, size_t n, uint64_t mh[NHASH])
{
	for (int k = 0; k < NHASH; k++) {
		uint64_t best = UINT64_MAX, seed = mix((uint64_t)k + 1);

		for (size_t i = 0; i < n; i++) {
			uint64_t h = mix(sh[i] ^ seed);

			if (h < best)
				best = h;
		}
		mh[k] = best;
	}
}

double kt_an_jaccard_text(const char *a, const char *b, double *est)
{
	char *na = NULL, *nb = NULL;
	uint64_t *sa = NULL, *sb = NULL, ma[NHASH], mb[NHASH];
	size_t la = 0, lb = 0;
	double j = 0;

	if (kt_an_normalize(a, strlen(a), &na) || kt_an_normalize(b, strlen(b), &nb) ||
	    shingles(na, &sa, &la) || shingles(nb, &sb, &lb))
		goto out;
	j = jaccard(sa, la, sb, lb);
	if (est) {
		int eq = 0;

		minhash(sa, la, ma);
		minhash(sb, lb, mb);
		for (int k = 0; k < NHASH; k++)
			eq += ma[k] == mb[k];
		*est = (double)eq / NHASH;
	}
out:
	free(na);
	free(nb);
	free(sa);
	free(sb);
	return j;
}

/* ---- union-find ------------------------------------------------------------------ */
static size_t uf_find(size_t *p, size_t x)
{
	while (p[x] != x) {
		p[x] = p[p[x]];
		x = p[x];
	}
	return x;
}

static void uf_union(size_t *p, size_t a, size_t b)
{
	a = uf_find(p, a);
	b = uf_find(p, b);
	if (a != b) {
		/* the smaller index is the root: deterministic */
		if (a < b)
			p[b] = a;
		else
			p[a] = b;
	}
}

struct bkey {
	uint64_t key;
	size_t idx;
};

static int cmp_bkey(const void *a, const void *b)
{
	const struct bkey *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* bk in cmp_bkey's order, given bk in idx order (how finish fills it):
 * a stable LSD radix sort by key, so equal keys keep idx order, the one
 * order cmp_bkey allows.  The 33 sorts of a finish (the exact band and 32
 * LSH bands) by qsort were 3 % of `questions mine` over 1,000 runs.
 * Without memory for the second array, qsort: the same order. */
static void sort_bkeys(struct bkey *bk, size_t n)
{
	struct bkey *tmp = n > 1 ? malloc(n * sizeof(*tmp)) : NULL, *a = bk,
		    *b = tmp, *t;
	size_t cnt[256];

	if (!tmp) {
		if (n > 1)
			qsort(bk, n, sizeof(*bk), cmp_bkey);
		return;
	}
	for (int sh = 0; sh < 64; sh += 8) {
		size_t sum = 0;

		memset(cnt, 0, sizeof(cnt));
		for (size_t i = 0; i < n; i++)
			cnt[(a[i].key >> sh) & 0xff]++;
		for (int d = 0; d < 256; d++) {
			size_t c = cnt[d];

			cnt[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			b[cnt[(a[i].key >> sh) & 0xff]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	/* eight passes: the sorted keys are back in bk */
	free(tmp);
}

static int same(const struct cand *a, const struct cand *b)
{
	return jaccard(a->sh, a->nsh, b->sh, b->nsh) >= 0.5 &&
	       cosine_set(a->tok, a->ntok, b->tok, b->ntok) >= 0.6;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_item(const void *a, const void *b)
{
	const kt_an_qitem *x = a, *y = b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->text, y->text);
}

static int cmp_src(const void *a, const void *b)
{
	const kt_an_qsrc *x = a, *y = b;
	int c = strcmp(x->run, y->run);

	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* c gets what f's text gave f (the same text): its normal form, shingles,
 * tokens, language, layer and text flags.  KT_ENOMEM, or 0. */
static int copy_derived(struct cand *c, const struct cand *f)
{
	size_t nl = strlen(f->norm) + 1;

	c->norm = malloc(nl);
	c->sh = f->nsh ? malloc(f->nsh * sizeof(*c->sh)) : NULL;
	c->tok = f->ntok ? malloc(f->ntok * sizeof(*c->tok)) : NULL;
	if (!c->norm || (f->nsh && !c->sh) || (f->ntok && !c->tok))
		return KT_ENOMEM;
	memcpy(c->norm, f->norm, nl);
	if (f->nsh)
		memcpy(c->sh, f->sh, f->nsh * sizeof(*c->sh));
	if (f->ntok)
		memcpy(c->tok, f->tok, f->ntok * sizeof(*c->tok));
	c->nsh = f->nsh;
	c->ntok = f->ntok;
	c->nhash = f->nhash;
	c->zh = f->zh;
	c->layer = f->layer;
	c->tflags = f->tflags;
	c->flags |= f->tflags;
	return KT_OK;
}

int kt_an_miner_finish(kt_an_miner *m, const kt_an_qitem **items, size_t *n)
{
	size_t *par = NULL, *root_item = NULL, *srccap = NULL, i, k;
	kt_strmap first = {0}; /* text -> 1 + index of its first candidate */
	struct bkey *bk = NULL;
	uint64_t (*mh)[NHASH] = NULL;
	int rc = KT_ENOMEM;
	double tot_gain = 0;
	size_t tot_n = 0;

	*items = NULL;
	*n = 0;
	for (i = 0; i < m->nitems; i++)
		free(m->items[i].src);
	free(m->items);
	m->items = NULL;
	m->nitems = 0;
	if (!m->n)
		return KT_OK;
	par = malloc(m->n * sizeof(*par));
	root_item = malloc(m->n * sizeof(*root_item));
	mh = malloc(m->n * sizeof(*mh));
	bk = malloc(m->n * (BANDS + 1) * sizeof(*bk));
	if (!par || !root_item || !mh || !bk)
		goto out;
	/* the same text asked in many runs (a library question, "why is it
	 * slow?") is normalized, shingled and hashed once: a table of the
	 * first candidate of each text */
	for (i = 0; i < m->n; i++) {
		struct cand *c = &m->c[i];
		void **slot = kt_strmap_slot(&first, c->text, 1);
		const struct cand *f = NULL;

		if (!slot)
			goto out;
		if (*slot)
			f = &m->c[(uintptr_t)*slot - 1];
		par[i] = i;
		if (f) {
			if (!c->norm && copy_derived(c, f))
				goto out;
			memcpy(mh[i], mh[f - m->c], sizeof(mh[i]));
			continue;
		}
		*slot = (void *)(uintptr_t)(i + 1);
		if (!c->norm) {
			if (kt_an_normalize(c->text, strlen(c->text), &c->norm) ||
			    shingles(c->norm, &c->sh, &c->nsh) ||
			    kt_an_tokens(c->norm, strlen(c->norm), &c->tok, &c->ntok))
				goto out;
			c->nhash = fnv(c->norm, strlen(c->norm));
			c->zh = kt_an_is_zh(c->text, strlen(c->text));
			c->layer = kt_an_layer_of(c->text, strlen(c->text), NULL);
			c->tflags = kt_an_text_flags(c->text, strlen(c->text));
			c->flags |= c->tflags;
		}
		minhash(c->sh, c->nsh, mh[i]);
	}
	/* exact duplicates: one extra "band" keyed by the norm hash */
	for (i = 0; i < m->n; i++) {
		bk[i].key = m->c[i].nhash;
		bk[i].idx = i;
	}
	sort_bkeys(bk, m->n);
	for (i = 1; i < m->n; i++)
		if (bk[i].key == bk[i - 1].key &&
		    !strcmp(m->c[bk[i].idx].norm, m->c[bk[i - 1].idx].norm))
			uf_union(par, bk[i].idx, bk[i - 1].idx);
	/* LSH bands: candidates share all ROWS hashes of a band; each is
	 * checked against its bucket's first member and its predecessor */
	for (int b = 0; b < BANDS; b++) {
		for (i = 0; i < m->n; i++) {
			bk[i].key = fnv(&mh[i][b * ROWS], ROWS * sizeof(uint64_t)) ^
				    (uint64_t)b;
			bk[i].idx = i;
		}
		sort_bkeys(bk, m->n);
		for (i = 1, k = 0; i < m->n; i++) {
			if (bk[i].key != bk[k].key) {
				k = i;
				continue;
			}
			if (uf_find(par, bk[i].idx) != uf_find(par, bk[k].idx) &&
			    same(&m->c[bk[i].idx], &m->c[bk[k].idx]))
				uf_union(par, bk[i].idx, bk[k].idx);
			if (i - 1 != k &&
			    uf_find(par, bk[i].idx) != uf_find(par, bk[i - 1].idx) &&
			    same(&m->c[bk[i].idx], &m->c[bk[i - 1].idx]))
				uf_union(par, bk[i].idx, bk[i - 1].idx);
		}
	}
	/* clusters -> items */
	for (i = 0; i < m->n; i++)
		root_item[i] = SIZE_MAX;
	m->items = calloc(m->n, sizeof(*m->items));
	srccap = calloc(m->n, sizeof(*srccap)); /* capacity of items[].src */
	if (!m->items || !srccap)
		goto out;
	for (i = 0; i < m->n; i++) {
		size_t r = uf_find(par, i);
		kt_an_qitem *it;
		struct cand *c = &m->c[i];

		if (root_item[r] == SIZE_MAX) {
			root_item[r] = m->nitems++;
			it = &m->items[root_item[r]];
			it->origin = c->origin;
		}
		it = &m->items[root_item[r]];
		it->count++;
		it->hits += c->hit;
		it->gain_log += c->gain_log;
		it->flags |= c->flags;
		it->kind |= c->kind;
		if (KT_GROW(it->src, srccap[root_item[r]], it->nsrc + 1))
			goto out;
		it->src[it->nsrc++] = c->src;
		tot_gain += c->gain_log;
		tot_n++;
	}
	/* canonical member (medoid by mean Jaccard; clusters up to 64),
	 * layer of the canonical text, runs.  Members are listed per item
	 * by a counting sort so this stays linear. */
	{
		size_t *off = calloc(m->nitems + 1, sizeof(*off));
		size_t *mem = malloc(m->n * sizeof(*mem));

		if (!off || !mem) {
			free(off);
			free(mem);
			goto out;
		}
		for (i = 0; i < m->n; i++)
			off[root_item[uf_find(par, i)] + 1]++;
		for (k = 0; k < m->nitems; k++)
			off[k + 1] += off[k];
		for (i = 0; i < m->n; i++) {
			size_t t = root_item[uf_find(par, i)];

			mem[off[t]++] = i;
		}
		for (k = m->nitems; k > 0; k--)
			off[k] = off[k - 1];
		off[0] = 0;
		for (size_t t = 0; t < m->nitems; t++) {
			kt_an_qitem *it = &m->items[t];
			double best = -1;
			size_t bi = SIZE_MAX;

			for (size_t a = off[t]; a < off[t + 1]; a++) {
				double mj = 0;

				i = mem[a];
				if (it->count <= 64)
					for (size_t b2 = off[t]; b2 < off[t + 1]; b2++)
						if (b2 != a)
							mj += jaccard(m->c[i].sh, m->c[i].nsh,
								      m->c[mem[b2]].sh,
								      m->c[mem[b2]].nsh);
				/* ties: shorter text, then the first seen */
				if (bi == SIZE_MAX || mj > best + 1e-12 ||
				    (fabs(mj - best) <= 1e-12 &&
				     strlen(m->c[i].text) < strlen(m->c[bi].text))) {
					best = mj;
					bi = i;
				}
			}
			it->text = m->c[bi].text;
			it->norm = m->c[bi].norm;
			it->zh = m->c[bi].zh;
			it->origin = m->c[bi].origin;
			/* the canonical text's own layer: the same text has the
			 * same layer in the library, in blame and in the report */
			it->layer = m->c[bi].layer;
			qsort(it->src, it->nsrc, sizeof(*it->src), cmp_src);
			it->nruns = 0;
			for (k = 0; k < it->nsrc; k++)
				if (!k || strcmp(it->src[k].run, it->src[k - 1].run))
					it->nruns++;
		}
		free(off);
		free(mem);
	}
	/* shrinkage (analysis.md 3.6) */
	{
		size_t *cnt = malloc(m->nitems * sizeof(*cnt)), cmed;
		double mean = tot_n ? tot_gain / (double)tot_n : 0, C;

		if (!cnt)
			goto out;
		for (k = 0; k < m->nitems; k++)
			cnt[k] = m->items[k].count;
		qsort(cnt, m->nitems, sizeof(*cnt), cmp_size);
		cmed = cnt[m->nitems / 2];
		free(cnt);
		C = cmed < 3 ? 3.0 : (double)cmed;
		for (k = 0; k < m->nitems; k++) {
			kt_an_qitem *it = &m->items[k];

			/* the prior pulls a gain measured on few asks toward
			 * the mean; a question that never preceded a jump has
			 * none to pull, and no gain */
			it->score = it->hits ? (C * mean + it->gain_log) /
					       (C + (double)it->count) : 0;
		}
	}
	qsort(m->items, m->nitems, sizeof(*m->items), cmp_item);
	*items = m->items;
	*n = m->nitems;
	rc = KT_OK;
out:
	kt_strmap_free(&first, NULL);
	free(srccap);
	free(par);
	free(root_item);
	free(mh);
	free(bk);
	return rc;
}

/* ---- suggestions ------------------------------------------------------------- */
static int any_question(const char *s, size_t n, unsigned kind, void *arg)
{
	(void)s;
	(void)n;
	*(unsigned *)arg |= kind;
	return 0;
}

double kt_an_suggest_fit_why(int stuck, int claim, int profiled,
			     const char *text, int layer, unsigned flags,
			     int evidence, int *why)
{
	unsigned kind = 0;
	double fit = 0;
	int bound = (flags & KT_AN_F_BOUND) != 0, w = KT_AN_SUG_FITS;

	if (!text) {
		w = KT_AN_SUG_NOT_QUESTION;
		goto no;
	}
	kt_an_questions_extract(text, strlen(text), any_question, &kind);
	if (!kind)
		kind = kt_an_question_kind(text, strlen(text));
	if (!kind) {
		w = KT_AN_SUG_NOT_QUESTION; /* an instruction */
		goto no;
	}
	if (layer == KT_AN_L_NONE && !bound) {
		w = KT_AN_SUG_NO_LAYER; /* a request about nothing in the kernel */
		goto no;
	}
	if (layer == stuck && stuck != KT_AN_L_NONE && !bound) {
		w = KT_AN_SUG_SAME_LAYER; /* more of what the agent is doing */
		goto no;
	}
	if (!evidence && !bound && !(flags & KT_AN_F_RELOCATE)) {
		w = KT_AN_SUG_NO_EVIDENCE;
		goto no;
	}
	if (layer != stuck && layer != KT_AN_L_NONE)
		fit += 0.5;
	if (flags & KT_AN_F_RELOCATE)
		fit += 0.2;
	if (bound)
		fit += claim ? 1.0 : !profiled ? 0.5 : 0.2;
	if (why)
		*why = w;
	return fit;
no:
	if (why)
		*why = w;
	return -1;
}

double kt_an_suggest_fit(int stuck, int claim, int profiled, const char *text,
			 int layer, unsigned flags)
{
	return kt_an_suggest_fit_why(stuck, claim, profiled, text, layer, flags,
				     1, NULL);
}
