/*
 * blame.c - speedup jumps, their edits, the question (or the agent alone)
 * behind them, and stalls.
 *
 * Algorithm: ../shared/research/analysis.md 2.6 (a)-(d) and 2.7.
 *  (a) a new best counts when log(s) - log(best) > theta (series.c);
 *      accepted increments within merge_rounds measurements with no question
 *      between them merge into one jump unless an edit lies between and the
 *      later increment clears max(2 theta, ln 1.2) by itself (a distinct
 *      change is a distinct jump); gain = after / before.  A jump needs an edit in a
 *      run that records edits, and a gain of at least min_gain.
 *  (b) passive bracketing: E* = edits between the last measurement below
 *      and the first above each increment.
 *  (c) candidates: questions after the previous landing, before the last
 *      edit of E*, within window_calls tool calls, each scored on lag,
 *      overlap, uptake, layer match and relocation and weighed together
 *      against the agent alone (attrib.c).
 *  (d) the run test: runtest.c.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "an_int.h"

int kt_an_is_question_ev(const kt_an_run *r, size_t i)
{
	const kt_an_ev *e = &r->ev[i];

	if (e->kind == KT_KIND_QUESTION)
		return e->qorigin == KT_AN_QO_HUMAN ||
		       e->qorigin == KT_AN_QO_LIBRARY;
	return e->kind == KT_KIND_MESSAGE && e->qorigin == KT_AN_QO_HUMAN;
}

const char *kt_an_meas_suspect(const kt_an_meas *m)
{
	switch (m->suspect) {
	case KT_AN_SUSPECT_FLAGGED:
		return "flagged suspicious by the verifier";
	case KT_AN_SUSPECT_TINY:
		return "under 1 us and not checked";
	default:
		return NULL;
	}
}

const char *kt_an_point_suspect(const kt_an_run *r, const kt_an_series *se,
				size_t p)
{
	const kt_an_point *pt = &se->pt[p];
	uint64_t lo = pt->seq_first && pt->seq_first < pt->seq ?
		      pt->seq_first : pt->seq;
	size_t i = 0, hi = r->nm;

	if (r->m[pt->meas].suspect)
		return kt_an_meas_suspect(&r->m[pt->meas]);
	/* r->m is in seq order (the loader's): the point's results are one
	 * stretch of it, found by bisection; a walk over every result for
	 * each jump was a tenth of blame's CPU on a 1M-event run */
	while (i < hi) {
		size_t mid = i + (hi - i) / 2;

		if (r->ev[r->m[mid].ev].seq < lo)
			i = mid + 1;
		else
			hi = mid;
	}
	for (; i < r->nm && r->ev[r->m[i].ev].seq <= pt->seq; i++)
		if (r->m[i].suspect && (!se->key || !*se->key ||
					!strcmp(r->m[i].key, se->key)))
			return kt_an_meas_suspect(&r->m[i]);
	return NULL;
}

size_t kt_an_series_suspects(const kt_an_run *r, const kt_an_series *se,
			     uint64_t *seqs, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nm; i++) {
		/* a series without a key is the whole run (a report of one
		 * series blames every result) */
		if (!r->m[i].suspect ||
		    (se->key && *se->key &&
		     (!r->m[i].key || strcmp(r->m[i].key, se->key))))
			continue;
		if (n < max)
			seqs[n] = r->ev[r->m[i].ev].seq;
		n++;
	}
	return n;
}

int kt_an_declared_idea(const kt_an_run *r, size_t i)
{
	const kt_an_ev *e = &r->ev[i], *b = i + 1 < r->nev ? e + 1 : NULL;

	return e->kind == KT_KIND_MESSAGE && e->human && !e->meta &&
	       !e->task && e->text && *e->text && b &&
	       b->kind == KT_KIND_BENCH && b->meas >= 0 &&
	       r->m[b->meas].idea_human;
}

static int is_agent_text(const kt_an_ev *e)
{
	return e->kind == KT_KIND_MESSAGE && e->text && !e->human &&
	       !e->meta && e->role != KT_AN_ROLE_USER &&
	       e->role != KT_AN_ROLE_SYSTEM;
}

/* ---- bounded text ------------------------------------------------------------- */
/* Append n bytes of s and a newline to b unless b already holds limit bytes;
 * a piece is cut to what is left under the limit (its newline may pass it by
 * one).  The layer and token scorers read at most this much of an agent's
 * words or a change: a long run's messages would otherwise cost time
 * without moving the score.  Out of memory is b->err (sticky). */
#define TEXT_MAX 65536 /* bytes of a change or of the agent's words scored */
static void bput(struct kt_buf *b, size_t limit, const char *s, size_t n)
{
	if (b->err || b->len >= limit)
		return;
	if (n > limit - b->len)
		n = limit - b->len;
	kt_buf_add(b, s, n);
	kt_buf_putc(b, '\n');
}

static int cmp_u64h(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Where edit_delta's pieces go: straight into a bounded buffer (bput), or
 * into a jump's memo of them (dmemo) to be put later, once per reader. */
struct dsink {
	struct kt_buf *out;   /* bput(out, limit, ...) when set */
	struct dmemo *m;      /* else kept here */
	size_t limit;
};

/* One edit's pieces as edit_delta puts them, each cut as no bput under
 * `limit` could take more of it, and none after the piece that reaches the
 * limit (bput takes none of those).  Put back with dmemo_put, they leave
 * any buffer as edit_delta would have: blame puts one edit's delta once
 * for the jump's change and once more for every candidate asked before
 * it, and each time read its blobs (up to 127 deltas from a keyframe)
 * and compared their lines again. */
struct dmemo {
	struct kt_buf txt;    /* the pieces, one after another */
	size_t *end;          /* end of piece k in txt */
	size_t n, cap;
	size_t used;          /* what bput would count: pieces + newlines */
	int state;            /* 0 not made, 1 made, -1 out of memory */
};

static void dput(struct dsink *d, const char *p, size_t n)
{
	struct dmemo *m = d->m;

	if (d->out) {
		bput(d->out, d->limit, p, n);
		return;
	}
	if (m->state < 0 || m->used >= d->limit)
		return;
	if (n > d->limit - m->used)
		n = d->limit - m->used;
	if (KT_GROW(m->end, m->cap, m->n + 1) || kt_buf_add(&m->txt, p, n)) {
		m->state = -1;
		return;
	}
	m->end[m->n++] = m->txt.len;
	m->used += n + 1;
}

/* Lines of `after` that are not lines of `before` (the added text). */
static void edit_delta_to(kt_store *s, const kt_an_run *r, const kt_an_ev *e,
			  struct dsink *out)
{
	void *bd = NULL, *ad = NULL;
	size_t bl = 0, al = 0, nh = 0, cap = 0;
	uint64_t *h = NULL;
	unsigned char *used = NULL;

	if (e->text)
		dput(out, e->text, strlen(e->text));
	if (!s || e->edit < 0 || !r->ed[e->edit].has_after ||
	    kt_blob_get(s, r->ed[e->edit].after, &ad, &al))
		return;
	if (r->ed[e->edit].has_before &&
	    kt_blob_get(s, r->ed[e->edit].before, &bd, &bl))
		bd = NULL, bl = 0;
	for (size_t i = 0; bd && i < bl;) {
		const char *nl = memchr((char *)bd + i, '\n', bl - i);
		size_t j = nl ? (size_t)(nl - (char *)bd) : bl;
		uint64_t x = kt_fnv1a(KT_FNV1A_INIT, (char *)bd + i, j - i);

		if (KT_GROW(h, cap, nh + 1))
			goto out;
		h[nh++] = x;
		i = j + 1;
	}
	/* a multiset difference: a line added once more than it was there
	 * counts as added (sorted hashes; each old line matches once) */
	if (nh) {
		used = calloc(nh, 1);
		if (!used)
			goto out;
		qsort(h, nh, sizeof(*h), cmp_u64h);
	}
	for (size_t i = 0; i < al;) {
		const char *nl = memchr((char *)ad + i, '\n', al - i);
		size_t j = nl ? (size_t)(nl - (char *)ad) : al, lo = 0, hi = nh;
		uint64_t x = kt_fnv1a(KT_FNV1A_INIT, (char *)ad + i, j - i);

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (h[mid] < x)
				lo = mid + 1;
			else
				hi = mid;
		}
		while (lo < nh && h[lo] == x && used[lo])
			lo++;
		if (lo < nh && h[lo] == x)
			used[lo] = 1;
		else if (j > i)
			dput(out, (char *)ad + i, j - i);
		i = j + 1;
	}
out:
	free(used);
	free(h);
	free(bd);
	free(ad);
}

/* edit_delta_to straight into out. */
static void edit_delta(kt_store *s, const kt_an_run *r, const kt_an_ev *e,
		       struct kt_buf *out, size_t limit)
{
	struct dsink d = { out, NULL, limit };

	edit_delta_to(s, r, e, &d);
}

/* edit_delta of e into out, from m (made on first use).  Without memory
 * for the memo, the delta is made again straight into out. */
static void edit_delta_memo(kt_store *s, const kt_an_run *r,
			    const kt_an_ev *e, struct dmemo *m,
			    struct kt_buf *out, size_t limit)
{
	size_t from = 0;

	if (!m) {
		edit_delta(s, r, e, out, limit);
		return;
	}
	if (m->state == 0) {
		struct dsink d = { NULL, m, limit };

		m->state = 1;
		edit_delta_to(s, r, e, &d);
	}
	if (m->state < 0) {
		edit_delta(s, r, e, out, limit);
		return;
	}
	for (size_t k = 0; k < m->n; k++) {
		bput(out, limit, m->txt.s ? m->txt.s + from : "",
		     m->end[k] - from);
		from = m->end[k];
	}
}

static void dmemo_free(struct dmemo *m, size_t n)
{
	for (size_t i = 0; m && i < n; i++) {
		kt_buf_free(&m[i].txt);
		free(m[i].end);
	}
	free(m);
}

static const char *plan_markers[] = {
	"hypothesis", "plan", "i think", "i'll", "i will", "let's", "let me",
	"should", "try", "switch", "instead", "bottleneck", "because", "going to",
	"next", "strategy", "root cause", "improve", "optimiz", "reduce",
	/* a guess at the cause is a hypothesis as much as "i think" */
	"my guess", "i guess", "i suspect",
	"改为", "应该", "尝试", "瓶颈", "打算", "计划", "试试", "优化", "我猜",
	NULL};

/* Whether t states a plan; markers are matched on a lowercased copy of the
 * first 4 KiB ("I will", "Let's" at a sentence start). */
static int plan_like(const char *t)
{
	char low[4096];
	size_t n = strlen(t);

	if (n >= sizeof(low))
		n = sizeof(low) - 1;
	for (size_t i = 0; i < n; i++)
		low[i] = (char)tolower((unsigned char)t[i]);
	low[n] = 0;
	for (int i = 0; plan_markers[i]; i++)
		if (kt_an_memmem(low, n, plan_markers[i],
				 strlen(plan_markers[i])))
			return 1;
	return 0;
}

static const char *ack_phrases[] = {
	"you're right", "you are right", "good point", "good catch", "indeed",
	"correct,", "right,", "you're correct", "确实", "你说得对", "说得对",
	"没错", "对，", NULL};

/*
 * The layer of a jump's change, from three texts in order of precedence:
 *  1. plan: the agent's last plan-like message after the measurement
 *     before and before the first responsible edit - what it said it was
 *     changing (a Write of a whole file adds many lines of other layers);
 *  2. code: the lines the responsible edits added (and their paths);
 *  3. words: everything the agent said from the measurement before to the
 *     landing.
 * The first that classifies decides (kt_an_layer_of: the same text always
 * gets the same layer), so a jump whose hypothesis is that plan shows the
 * hypothesis' layer as its edit layer.
 */
static int jump_layer(const char *plan, const char *code, size_t ncode,
		      const char *words, size_t nwords)
{
	int l = plan ? kt_an_layer_of(plan, strlen(plan), NULL) : KT_AN_L_NONE;

	if (l == KT_AN_L_NONE && code)
		l = kt_an_layer_of(code, ncode, NULL);
	if (l == KT_AN_L_NONE && words)
		l = kt_an_layer_of(words, nwords, NULL);
	return l;
}

/* ---- jumps and attribution ------------------------------------------------------ */
static int question_between(const kt_an_run *r, uint64_t a, uint64_t b)
{
	long i = kt_an_run_find(r, a);

	for (i = i < 0 ? 0 : i; i >= 0 && (size_t)i < r->nev &&
	     r->ev[i].seq < b; i++)
		if (r->ev[i].seq > a && kt_an_is_question_ev(r, (size_t)i))
			return 1;
	return 0;
}

static int layer_of_agent_before(const kt_an_run *r, size_t qi)
{
	struct kt_buf b = {0};
	int n = 0, l;

	for (long i = (long)qi - 1; i >= 0 && n < 4; i--)
		if (is_agent_text(&r->ev[i])) {
			bput(&b, 8192, r->ev[i].text, strlen(r->ev[i].text));
			n++;
		}
	l = b.s ? kt_an_layer_of(b.s, b.len, NULL) : KT_AN_L_NONE;
	kt_buf_free(&b);
	return l;
}

struct profctx {
	int seen;
};

static int prof_cb(const kt_event *e, void *arg)
{
	struct profctx *p = arg;

	if (kt_an_profiler_payload(e->payload, e->payload_len))
		return 1;
	return ++p->seen >= 3 ? 2 : 0;
}

/* Whether one of the first 3 tool calls after q runs a profiler, counting
 * only those after event `from` (q, or the measurement of the agent's
 * first answer to q: the rule of the loaded-calls path in blame_one) and
 * before seq `before`; read errors count as no. */
static int profiler_after(kt_store *s, const kt_an_run *r, const kt_an_ev *q,
			  const kt_an_ev *from, uint64_t before)
{
	struct profctx p = {0};

	p.seen = (int)(kt_an_calls_at(r, from->seq) - q->call);
	if (p.seen >= 3 || before <= from->seq + 1 ||
	    kt_an_calls_at(r, before - 1) == kt_an_calls_at(r, from->seq))
		return 0;
	return kt_event_scan(s, r->id, from->seq + 1, before - 1,
			     KT_KIND_BIT(KT_KIND_TOOL_CALL), KT_READ_BODY,
			     prof_cb, &p) == 1;
}

/* The agent's first message after event qi (a question, or the last
 * measurement after it) when it is plan-like and the first responsible
 * edit after qi follows with no human message in between (the agent
 * answered q with what it then did); else -1. */
static long answered_by_plan(const kt_an_run *r, size_t qi, const kt_an_jump *j)
{
	size_t first = SIZE_MAX;
	long said = -1;

	for (size_t i = 0; i < j->nedits; i++)
		if (j->edits[i] > qi) {
			first = j->edits[i];
			break;
		}
	for (size_t i = qi + 1; i < r->nev && i < first; i++) {
		const kt_an_ev *e = &r->ev[i];

		if (e->kind == KT_KIND_MESSAGE && e->human && !e->meta)
			return -1;
		if (said < 0 && is_agent_text(e) && *e->text) {
			if (!plan_like(e->text))
				return -1;
			said = (long)i;
		}
	}
	return first != SIZE_MAX ? said : -1;
}

/* Whether agent text m takes up question q's words: 15 % of q's content
 * tokens or more in m (the line between a plan of the agent's own and an
 * answer to q).  KT_ENOMEM or 0. */
static int shares_words(const char *q, const uint64_t *tm, size_t ntm,
			int *yes)
{
	uint64_t *tq = NULL;
	size_t ntq = 0;

	if (kt_an_tokens(q, strlen(q), &tq, &ntq))
		return KT_ENOMEM;
	*yes = kt_an_containment(tq, ntq, tm, ntm) >= 0.15;
	free(tq);
	return KT_OK;
}

/*
 * The agent alone's weight for jump j: o->w_self, +0.3 when the agent
 * states a plan of its own after the latest candidate question and before
 * the last responsible edit (last_seq) that shares no words with any
 * question.  The first agent message after that question is its answer
 * to it (in other words than the question's, often), not a plan of its
 * own, and is skipped; so are acknowledgements ("you're right, ...").
 */
static int self_plan(const kt_an_run *r, const kt_an_jump *j, uint64_t last_seq,
		     double *self)
{
	size_t latest = 0, i;
	int answered = 0;
	long li = kt_an_run_find(r, last_seq);

	for (size_t ci = 0; ci < j->ncand; ci++)
		if (j->cand[ci].ev >= latest)
			latest = j->cand[ci].ev;
	for (i = latest + 1; j->ncand && li >= 0 && i < (size_t)li; i++) {
		const kt_an_ev *e = &r->ev[i];
		uint64_t *tm = NULL;
		size_t ntm = 0;
		int indep = 1;

		if (!is_agent_text(e) || !*e->text)
			continue;
		if (!answered) {
			answered = 1;
			continue;
		}
		if (!plan_like(e->text))
			continue;
		for (int a = 0; ack_phrases[a] && indep; a++)
			if (strstr(e->text, ack_phrases[a]))
				indep = 0;
		if (!indep)
			continue;
		if (kt_an_tokens(e->text, strlen(e->text), &tm, &ntm))
			return KT_ENOMEM;
		for (size_t ci = 0; ci < j->ncand && indep; ci++) {
			int shared;

			if (shares_words(r->ev[j->cand[ci].ev].text, tm, ntm,
					 &shared)) {
				free(tm);
				return KT_ENOMEM;
			}
			indep = !shared;
		}
		free(tm);
		if (indep) {
			*self += 0.3;
			break;
		}
	}
	return KT_OK;
}

/* Whether bench event e belongs to the series being blamed (o->workload;
 * NULL: every result is of the one series).  A bench event with no result
 * (not an object) belongs to none of several. */
static int same_series(const kt_an_run *r, const kt_an_opts *o,
		       const kt_an_ev *e)
{
	if (!o->workload)
		return 1;
	return e->meas >= 0 && !strcmp(r->m[e->meas].key, o->workload);
}

/* The code states before point p's result: *a, the seq of the last
 * measurement of this series before it, and *t >= *a, of the last result
 * of any series before it.  A result of this series the series left out
 * (incorrect, not checked, no time: kt_an_meas_excluded) is no
 * measurement and cuts nothing: the edits before a wrong kernel and the
 * fix after it are one change from the last measurement below to the
 * first above (blame --help).  Results the same command printed (one
 * parent) are one measurement and cut nothing either. */
static void measured_before(const kt_an_run *r, const kt_an_opts *o,
			    const kt_an_series *se, size_t p, uint64_t *a,
			    uint64_t *t)
{
	size_t me = r->m[se->pt[p].meas].ev;
	int any = 0;

	*a = *t = se->pt[p - 1].seq;
	for (long k = (long)me - 1; k >= 0 && r->ev[k].seq > *a; k--) {
		if (r->ev[k].kind != KT_KIND_BENCH ||
		    kt_an_one_command_ev(r, (size_t)k, me))
			continue;
		if (r->ev[k].meas >= 0 && same_series(r, o, &r->ev[k]) &&
		    kt_an_meas_excluded(r, se, o, (size_t)r->ev[k].meas))
			continue;
		if (!any++)
			*t = r->ev[k].seq;
		if (same_series(r, o, &r->ev[k])) {
			*a = r->ev[k].seq;
			break;
		}
	}
}

/*
 * Where the edits of point p (a jump's landing) start, given a, the seq of
 * the series' result before it.  When that result and p's were printed by
 * one output (the same nonzero parent: one table of variants) and declare
 * different candidates, nothing lies between them, yet the code that
 * wrote p's candidate does lie before the output: its edits are those
 * since the series' last result printed by an earlier output.  Then
 * j->edits_before_output is set (and j->cand_first when no earlier result
 * of the series declared p's candidate) and that result's seq returned
 * (0: none, every edit since the start); else a unchanged.
 */
static uint64_t output_before(const kt_an_run *r, const kt_an_opts *o,
			      const kt_an_series *se, size_t p, kt_an_jump *j,
			      uint64_t a)
{
	const kt_an_meas *mp = &r->m[se->pt[p].meas],
			 *mq = &r->m[se->pt[p - 1].meas];
	uint64_t par = r->ev[mp->ev].parent, from = 0;
	int first = 1;

	if (!par || r->ev[mq->ev].parent != par ||
	    !kt_an_code_differs(mq, mp))
		return a;
	for (long k = (long)mp->ev - 1; k >= 0; k--) {
		const kt_an_ev *e = &r->ev[k];

		if (e->kind != KT_KIND_BENCH || !same_series(r, o, e))
			continue;
		if (e->parent != par && !from)
			from = e->seq;
		if (e->meas >= 0 && *mp->candidate &&
		    !strcmp(r->m[e->meas].candidate, mp->candidate) &&
		    e->parent != par)
			first = 0;
	}
	j->edits_before_output = 1;
	j->cand_first = first && *mp->candidate;
	return from;
}

/* E* of jump j, first pass: every edit since the result of the same series
 * before each increment (event indices, ascending, into j->edits); a
 * result of another series in between does not cut them off (issue 15: a
 * jump right after another workload's result lost its edits).  Their
 * paths are read next; own_edits then drops those of other series' files.
 * KT_ENOMEM or 0. */
static int jump_edits(const kt_an_run *r, const kt_an_opts *o,
		      const kt_an_series *se, kt_an_jump *j)
{
	long li;
	size_t i, cap = j->nedits; /* the array holds at least nedits */

	for (size_t p = j->p_land; p <= j->p_last; p++) {
		uint64_t a, t, b;

		if (p != j->p_land && !se->pt[p].accepted)
			continue;
		measured_before(r, o, se, p, &a, &t);
		b = se->pt[p].seq;
		if (p == j->p_land)
			a = output_before(r, o, se, p, j, a);
		li = kt_an_run_find(r, a);
		for (i = li < 0 ? 0 : (size_t)li; i < r->nev && r->ev[i].seq < b; i++) {
			if (r->ev[i].kind != KT_KIND_EDIT || r->ev[i].seq <= a)
				continue;
			if (KT_GROW(j->edits, cap, j->nedits + 1))
				return KT_ENOMEM;
			j->edits[j->nedits++] = i;
		}
	}
	return KT_OK;
}

/* Whether one of the edits idx[0..n) edited path. */
static int path_among(const kt_an_run *r, const size_t *idx, size_t n,
		      const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (r->ev[idx[i]].text && !strcmp(r->ev[idx[i]].text, path))
			return 1;
	return 0;
}

/* E* of jump j, second pass (paths read): an edit made before another
 * series' result, which measured it, is this jump's only when its file is
 * one edited after that result too, right before this series measured.
 * Otherwise interleaved workloads lent each other their edits: a jump of
 * attn.cu took the softmax.cu edits of the softmax results in between, and
 * with them the questions that led to those (issue 15: agent-alone jumps
 * given to a question asked about the other kernel).  When nothing was
 * edited since the last result of any series, the earlier edits are the
 * only change this series measured and all stay; an edit whose path is
 * not known stays. */
static void own_edits(const kt_an_run *r, const kt_an_opts *o,
		      const kt_an_series *se, kt_an_jump *j)
{
	size_t w = 0, i = 0;

	for (size_t p = j->p_land; p <= j->p_last; p++) {
		uint64_t a, t, b;
		size_t lo, mid, hi;

		if (p != j->p_land && !se->pt[p].accepted)
			continue;
		measured_before(r, o, se, p, &a, &t);
		b = se->pt[p].seq;
		for (; i < j->nedits && r->ev[j->edits[i]].seq <= a; i++)
			j->edits[w++] = j->edits[i];
		for (lo = mid = i; mid < j->nedits &&
		     r->ev[j->edits[mid]].seq < t; mid++)
			;
		for (hi = mid; hi < j->nedits && r->ev[j->edits[hi]].seq < b; hi++)
			;
		for (i = lo; i < hi; i++) {
			const char *pth = r->ev[j->edits[i]].text;

			if (i >= mid || mid == hi || !pth ||
			    path_among(r, j->edits + mid, hi - mid, pth))
				j->edits[w++] = j->edits[i];
		}
	}
	for (; i < j->nedits; i++)
		j->edits[w++] = j->edits[i];
	j->nedits = w;
}

/* Read the bodies of every jump's edits with one scan (a run's edits sit
 * in a few blocks: one decode each, not one per jump). */
static int fetch_edits(kt_store *s, kt_an_run *r, const kt_an_blame *b)
{
	size_t n = 0, k, *all;
	int rc;

	for (k = 0; k < b->njump; k++)
		n += b->jump[k].nedits;
	if (!s || !n)
		return KT_OK;
	if (!(all = malloc(n * sizeof(*all))))
		return KT_ENOMEM;
	/* jumps follow one another: the lists are ascending end to end */
	for (k = 0, n = 0; k < b->njump; k++) {
		memcpy(all + n, b->jump[k].edits,
		       b->jump[k].nedits * sizeof(*all));
		n += b->jump[k].nedits;
	}
	rc = kt_an_edits_fetch(s, r, all, n);
	free(all);
	return rc;
}

static int blame_one(kt_store *s, kt_an_run *r, const kt_an_opts *o,
		     const kt_an_series *se, kt_an_jump *j, uint64_t lower)
{
	struct kt_buf resp = {0};
	uint64_t land_seq = se->pt[j->p_land].seq, last_seq;
	long li;
	size_t i;
	int rc = KT_ENOMEM;
	uint64_t *tr = NULL;
	size_t ntr = 0, ccap = j->ncand; /* j->cand holds at least ncand */
	/* each edit's delta, made once for the change and every candidate
	 * (NULL: none kept, each made where it is put) */
	struct dmemo *dm = j->nedits ? calloc(j->nedits, sizeof(*dm)) : NULL;

	j->anchor_seq = j->nedits ? r->ev[j->edits[0]].seq :
				    se->pt[j->p_prev].seq + 1;
	last_seq = j->nedits ? r->ev[j->edits[j->nedits - 1]].seq : land_seq;
	for (i = 0; i < j->nedits; i++) {
		const char *pth = r->ev[j->edits[i]].text;

		if (pth && (strstr(pth, "bench") || strstr(pth, "timing") ||
			    strstr(pth, "harness") || strstr(pth, "measure")))
			j->artifact = 1;
	}
	/* candidates */
	li = kt_an_run_find(r, last_seq);
	if (li < 0)
		li = (long)r->nev;
	for (long qi = li - 1; qi >= 0 && r->ev[qi].seq > lower; qi--) {
		const kt_an_ev *q = &r->ev[qi];
		kt_an_cand *c;
		long ei, k;
		uint32_t at_call;
		int64_t at_ts;

		if ((!kt_an_is_question_ev(r, (size_t)qi) &&
		     !kt_an_declared_idea(r, (size_t)qi)) || !q->text)
			continue;
		/* grown from another series' record (a tree log's parent):
		 * about that workload, never this jump's idea, as in the
		 * run test */
		if (kt_an_other_series_q(r, se, (size_t)qi))
			continue;
		/* first responsible edit after q, else the landing */
		ei = -1;
		for (i = 0; i < j->nedits; i++)
			if (j->edits[i] > (size_t)qi) {
				ei = (long)j->edits[i];
				break;
			}
		k = ei >= 0 ? ei : kt_an_run_find(r, land_seq);
		if (k < 0)
			continue;
		at_call = r->ev[k].call;
		at_ts = r->ev[k].ts;
		if (at_call - q->call > (uint32_t)o->window_calls)
			break;
		if (KT_GROW(j->cand, ccap, j->ncand + 1))
			goto out;
		c = &j->cand[j->ncand++];
		memset(c, 0, sizeof(*c));
		c->ev = (size_t)qi;
		c->lag_calls = (double)(at_call - q->call);
		c->lag_min = (at_ts != KT_TS_UNKNOWN && q->ts != KT_TS_UNKNOWN &&
			      at_ts >= q->ts) ? (double)(at_ts - q->ts) / 60e9 : -1;
		c->layer = kt_an_ev_layer(q);
	}
	/* the layer of the change (jump_layer): the agent's plan for it, the
	 * added lines, the agent's words since the measurement before */
	{
		struct kt_buf code = {0}, words = {0};
		uint64_t from = se->pt[j->p_prev].seq,
			 first = j->nedits ? r->ev[j->edits[0]].seq : land_seq;
		long plan = -1;

		for (i = 0; i < j->nedits; i++)
			edit_delta_memo(s, r, &r->ev[j->edits[i]],
					dm ? &dm[i] : NULL, &code, TEXT_MAX);
		li = kt_an_run_find(r, from);
		for (i = li < 0 ? 0 : (size_t)li; i < r->nev &&
		     r->ev[i].seq < land_seq; i++) {
			if (!is_agent_text(&r->ev[i]))
				continue;
			bput(&words, TEXT_MAX, r->ev[i].text, strlen(r->ev[i].text));
			if (r->ev[i].seq < first && *r->ev[i].text &&
			    plan_like(r->ev[i].text))
				plan = (long)i;
		}
		if (code.err || words.err) {
			kt_buf_free(&code);
			kt_buf_free(&words);
			goto out;
		}
		j->edit_layer = jump_layer(plan >= 0 ? r->ev[plan].text : NULL,
					   code.s, code.len, words.s, words.len);
		kt_buf_free(&code);
		kt_buf_free(&words);
	}
	/* score every candidate */
	for (size_t ci = 0; ci < j->ncand; ci++) {
		kt_an_cand *c = &j->cand[ci];
		const kt_an_ev *q = &r->ev[c->ev];
		uint64_t *tq = NULL;
		size_t ntq = 0, agent_msgs = 0;
		size_t from;
		int acted = 0; /* taken up in words or deeds, not only by
				  a profiler run that may have been planned
				  anyway */

		kt_buf_free(&resp);
		/* a measurement between q and the change means the agent's
		 * first answer to q was tried and measured already: q is judged
		 * on what the agent said and did after that measurement */
		from = c->ev;
		for (i = c->ev + 1; i < r->nev && r->ev[i].seq < land_seq; i++) {
			if (r->ev[i].kind == KT_KIND_EDIT && j->nedits &&
			    i >= j->edits[0])
				break;
			if (r->ev[i].kind == KT_KIND_BENCH)
				from = i;
		}
		for (i = from + 1; i < r->nev && r->ev[i].seq < land_seq; i++) {
			const kt_an_ev *e = &r->ev[i];

			/* acting on it with no word in between is uptake too */
			if (e->kind == KT_KIND_EDIT && !agent_msgs && !c->uptake &&
			    j->nedits && i >= j->edits[0])
				c->uptake = 0.5, acted = 1;
			if (is_agent_text(e)) {
				bput(&resp, TEXT_MAX, e->text, strlen(e->text));
				if (agent_msgs++ == 0) {
					/* uptake: the first reply acknowledges or echoes q */
					uint64_t *ta = NULL;
					size_t nta = 0;

					for (int a = 0; ack_phrases[a]; a++)
						if (strstr(e->text, ack_phrases[a]))
							c->uptake = 1, acted = 1;
					if (kt_an_tokens(q->text, strlen(q->text),
							 &tq, &ntq) ||
					    kt_an_tokens(e->text, strlen(e->text),
							 &ta, &nta)) {
						free(ta);
						free(tq);
						goto out;
					}
					if (kt_an_containment(tq, ntq, ta, nta) >= 0.25)
						c->uptake = 1, acted = 1;
					free(ta);
				}
			}
			if (e->kind == KT_KIND_TOOL_CALL && e->profiler &&
			    e->call - q->call <= 3) {
				c->uptake = 1;
			}
		}
		/* runs loaded without tool call bodies: read the (at most 3)
		 * calls after q here */
		if (c->uptake < 1 && s && !(r->load & KT_AN_LOAD_TOOLS) &&
		    profiler_after(s, r, q, &r->ev[from], land_seq))
			c->uptake = 1;
		for (i = 0; i < j->nedits; i++)
			if (j->edits[i] > c->ev)
				edit_delta_memo(s, r, &r->ev[j->edits[i]],
						dm ? &dm[i] : NULL, &resp,
						TEXT_MAX);
		if (resp.err) {
			free(tq);
			goto out;
		}
		if (!tq && kt_an_tokens(q->text, strlen(q->text), &tq, &ntq))
			goto out;
		if (resp.s && kt_an_tokens(resp.s, resp.len, &tr, &ntr)) {
			free(tq);
			goto out;
		}
		c->overlap = kt_an_containment(tq, ntq, tr, ntr);
		free(tq);
		free(tr);
		tr = NULL;
		ntr = 0;
		c->layer_match = c->layer != KT_AN_L_NONE &&
				 c->layer == j->edit_layer;
		if (c->layer_match &&
		    layer_of_agent_before(r, c->ev) != c->layer)
			c->relocation = 1;
		/* the agent's first words after q state a plan and the change
		 * follows before anyone speaks again: it acted on q even when
		 * it did not repeat q's words.  After the measurement of its
		 * first answer to q, a plan that shares no words with q is a
		 * new idea of its own (self_plan weighs that same message for
		 * the agent alone), not q taken up again: it counted both
		 * ways, and a question answered, measured and left gained the
		 * next agent-alone jump (tests/plant2 null sessions) */
		if (c->uptake < 0.5) {
			long pl = answered_by_plan(r, from, j);
			int take = pl >= 0;

			if (take && from != c->ev) {
				uint64_t *tm = NULL;
				size_t ntm = 0;
				const char *pt = r->ev[pl].text;

				if (kt_an_tokens(pt, strlen(pt), &tm, &ntm) ||
				    shares_words(q->text, tm, ntm, &take)) {
					free(tm);
					goto out;
				}
				free(tm);
			}
			if (take)
				c->uptake = 0.5, acted = 1;
		}
		/* a bench that declares its code the idea of the person's
		 * message right before it (origin "human", FORMAT.md section
		 * 2; a round log's record) is that idea acted on, with nothing
		 * said or edited between */
		if (kt_an_declared_idea(r, c->ev) &&
		    r->ev[c->ev + 1].seq == land_seq)
			c->uptake = 1, acted = 1;
		c->raw = kt_an_cand_raw(c, o, c->layer != KT_AN_L_NONE ||
			(kt_an_text_flags(q->text, strlen(q->text)) &
			 KT_AN_F_BOUND) || c->overlap >= 0.1 || acted);
	}
	{
		double self = o->w_self;

		if ((rc = self_plan(r, j, last_seq, &self)))
			goto out;
		rc = KT_ENOMEM;
		kt_an_decide(j, self);
	}
	/* the agent's own hypothesis right before the responsible edit */
	{
		/* agent alone: the last responsible edit (earlier ones in E*
		 * were tries); a question: the first edit after it; no edit
		 * (a new candidate measured, as `bench --record` records it):
		 * the landing, so the words between the two measurements count */
		uint64_t stop = se->pt[j->p_prev].seq,
			 at = j->nedits ? r->ev[j->edits[j->nedits - 1]].seq :
				  se->pt[j->p_land].seq_first;
		long best = -1, near = -1;

		if (j->question >= 0) {
			stop = r->ev[j->question].seq;
			for (i = 0; i < j->nedits; i++)
				if (j->edits[i] > (size_t)j->question) {
					at = r->ev[j->edits[i]].seq;
					break;
				}
		}
		/* `at` may be an event of a kind not loaded */
		li = (long)kt_an_run_lower(r, at);
		for (long k = li - 1; k >= 0 && r->ev[k].seq > stop; k--) {
			if (!is_agent_text(&r->ev[k]) || !*r->ev[k].text)
				continue;
			if (near < 0)
				near = k;
			if (plan_like(r->ev[k].text)) {
				best = k;
				break;
			}
		}
		j->hypothesis = best >= 0 ? best : near;
		j->hyp_layer = j->hypothesis >= 0 ?
			kt_an_ev_layer(&r->ev[j->hypothesis]) : 0;
	}
	rc = KT_OK;
out:
	kt_buf_free(&resp);
	free(tr);
	dmemo_free(dm, j->nedits);
	return rc;
}

int kt_an_blame_run(kt_store *s, kt_an_run *r, const kt_an_opts *o,
		    kt_an_blame *out)
{
	kt_an_series *se = &out->series;
	size_t jcap = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = kt_an_series_build(r, o, se);
	if (rc)
		return rc;
	for (size_t i = 1; i < se->n; i++) {
		kt_an_jump *j;

		if (!se->pt[i].accepted)
			continue;
		if (out->njump) {
			j = &out->jump[out->njump - 1];
			/* distinct changes measured one after the other are
			 * two jumps: only a re-measurement of the same code
			 * (no edit in between) merges */
			if (i - j->p_last <= (size_t)o->merge_rounds &&
			    !question_between(r, se->pt[j->p_last].seq,
					      se->pt[i].seq) &&
			    !kt_an_code_changed(r, se->pt[j->p_last].seq,
						se->pt[i].seq,
						&r->m[se->pt[j->p_last].meas],
						&r->m[se->pt[i].meas], 1)) {
				j->p_last = i;
				j->after = se->pt[i].best;
				j->gain = j->after / j->before;
				continue;
			}
		}
		if (KT_GROW(out->jump, jcap, out->njump + 1)) {
			rc = KT_ENOMEM;
			goto fail;
		}
		j = &out->jump[out->njump++];
		memset(j, 0, sizeof(*j));
		j->p_prev = i - 1;
		j->p_land = j->p_last = i;
		/* a tree search's child: over its own branch's best, and
		 * what it reached is its own level (the run's best may be
		 * another branch's) */
		j->before = se->pt[i].base;
		j->after = se->pt[i].branch ? se->pt[i].speedup :
					       se->pt[i].best;
		j->gain = j->after / j->before;
		j->question = j->hypothesis = -1;
	}
	for (size_t k = 0; k < out->njump; k++)
		if ((rc = jump_edits(r, o, se, &out->jump[k])))
			goto fail;
	if ((rc = fetch_edits(s, r, out)))
		goto fail;
	for (size_t k = 0; k < out->njump; k++)
		own_edits(r, o, se, &out->jump[k]);
	for (size_t k = 0; k < out->njump; k++) {
		uint64_t lower = k ? se->pt[out->jump[k - 1].p_last].seq : 0;

		rc = blame_one(s, r, o, se, &out->jump[k], lower);
		if (rc)
			goto fail;
	}
	/* no jump without a change: in a run that records edits, a new best
	 * with no edit since the measurement before is the same code measured
	 * again (noise); nor one whose gain ended under --min-gain */
	{
		size_t w = 0;

		for (size_t k = 0; k < out->njump; k++) {
			kt_an_jump *j = &out->jump[k];

			if ((r->ned && !j->nedits) || j->gain < o->min_gain) {
				free(j->edits);
				free(j->cand);
				continue;
			}
			out->jump[w++] = *j;
		}
		out->njump = w;
	}
	/* a tree search's child is over its branch's best; the reader
	 * also needs what it gained over the series' best so far (another
	 * branch's, perhaps) */
	for (size_t k = 0; k < out->njump; k++) {
		kt_an_jump *j = &out->jump[k];
		const kt_an_point *pb = &se->pt[j->p_land - 1];

		j->series_best_pt = pb->best_pt;
		j->series_gain = j->after / pb->best;
	}
	rc = kt_an_runtest(r, o, out);
	if (rc)
		goto fail;
	return KT_OK;
fail:
	kt_an_blame_free(out);
	return rc;
}

int kt_an_blame_workloads(kt_store *s, kt_an_run *r, const kt_an_opts *o,
			  kt_an_blame **out, const char ***wl, size_t *n)
{
	kt_an_opts ow = *o;
	kt_an_blame *b = NULL;
	const char **w = NULL;
	size_t nw = 0, nb = 0;
	int rc;

	*out = NULL;
	*wl = NULL;
	*n = 0;
	if ((rc = kt_an_workloads(r, &w, &nw)))
		return rc;
	if (nw < 2) {
		free(w);
		w = NULL;
		nw = 1;
	}
	b = calloc(nw, sizeof(*b));
	if (!b) {
		rc = KT_ENOMEM;
		goto fail;
	}
	for (nb = 0; nb < nw; nb++) {
		if (w)
			ow.workload = w[nb];
		if ((rc = kt_an_blame_run(s, r, &ow, &b[nb])))
			goto fail;
	}
	*out = b;
	*wl = w;
	*n = nw;
	return KT_OK;
fail:
	kt_an_blame_workloads_free(b, w, nb);
	return rc;
}

void kt_an_blame_workloads_free(kt_an_blame *b, const char **wl, size_t n)
{
	for (size_t i = 0; b && i < n; i++)
		kt_an_blame_free(&b[i]);
	free(b);
	free(wl);
}

void kt_an_blame_free(kt_an_blame *b)
{
	for (size_t i = 0; i < b->njump; i++) {
		free(b->jump[i].edits);
		free(b->jump[i].cand);
	}
	free(b->jump);
	b->jump = NULL;
	b->njump = 0;
	kt_an_series_free(&b->series);
}
