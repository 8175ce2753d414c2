/*
 * stalls.c - stretches of one series without a significant gain
 * (analysis.md 2.7, patience in the sense of Keras EarlyStopping), with
 * what the agent kept saying there.
 *
 * A stall is read on one series only (successive attempts at one key,
 * kt_an_series_build): the results of another workload or scenario are
 * not attempts at this one, a sweep is one attempt, and a re-run of
 * unchanged code under test (kt_an_code_changed) is a repeat, none.  A stretch ends
 * at a jump, and also where the running best has grown by more than the
 * threshold without one (several small gains, or a new best with no code
 * change): a run that improved is not stalled.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "an_int.h"

int kt_an_is_agent_text(const kt_an_ev *e)
{
	return e->kind == KT_KIND_MESSAGE && e->text && !e->human &&
	       !e->meta && e->role != KT_AN_ROLE_USER &&
	       e->role != KT_AN_ROLE_SYSTEM;
}

struct claimtab {
	struct {
		const char *key;
		int count;
		double lo, hi;
		long ev;
	} c[16];
	int n;
	long cur_ev;
	const char *seen[16];
	int nseen;
};

static void claim_cb(const char *key, double pct, void *arg)
{
	struct claimtab *t = arg;
	int i;

	for (i = 0; i < t->nseen; i++)
		if (t->seen[i] == key)
			break;
	for (int k = 0; k < t->n; k++)
		if (t->c[k].key == key) {
			if (i == t->nseen)
				t->c[k].count++; /* once per message */
			if (pct >= 0) {
				if (t->c[k].lo < 0 || pct < t->c[k].lo)
					t->c[k].lo = pct;
				if (pct > t->c[k].hi)
					t->c[k].hi = pct;
			}
			goto seen;
		}
	if (t->n < 16) {
		t->c[t->n].key = key;
		t->c[t->n].count = 1;
		t->c[t->n].lo = pct;
		t->c[t->n].hi = pct;
		t->c[t->n].ev = t->cur_ev;
		t->n++;
	}
seen:
	if (i == t->nseen && t->nseen < 16)
		t->seen[t->nseen++] = key;
}

/* The jump of b landing on point p, -1 when none (a new best the blame
 * did not keep). */
static long jump_at(const kt_an_blame *b, size_t p)
{
	for (size_t k = 0; k < b->njump; k++)
		if (b->jump[k].p_land == p)
			return (long)k;
	return -1;
}

/* Fill st's layer, claim and left-out counts from the events of
 * (from, st->seq_last] and the results before `to`. */
static void stall_text(const kt_an_run *r, const kt_an_series *se,
		       const kt_an_opts *o, kt_an_stall *st, uint64_t from,
		       uint64_t to)
{
	double sc[KT_AN_NLAYERS] = {0};
	struct claimtab ct;
	long li = kt_an_run_find(r, from);
	int bl = KT_AN_L_NONE, bi = -1;
	size_t lo = 0, hi = r->nm;
	uint64_t lo_seq = st->p_first ? st->seq_first : from + 1;

	memset(&ct, 0, sizeof(ct));
	/* what the series left out there, up to what ended it, and why */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->ev[r->m[mid].ev].seq < lo_seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t mi = lo; mi < r->nm && r->ev[r->m[mi].ev].seq < to; mi++) {
		switch (kt_an_meas_excluded(r, se, o, mi)) {
		case KT_AN_EX_INCORRECT: st->ex.incorrect++; break;
		case KT_AN_EX_UNKNOWN: st->ex.unknown++; break;
		case KT_AN_EX_NOTIME: st->ex.notime++; break;
		case KT_AN_EX_NOREF: st->ex.noref++; break;
		case KT_AN_EX_FAILED: st->ex.failed++; break;
		case KT_AN_EX_UNPARSED: st->ex.unparsed++; break;
		}
	}
	/* the layer of everything said there: summed lexicon weights */
	for (size_t i = li < 0 ? kt_an_run_lower(r, from) : (size_t)li;
	     i < r->nev && r->ev[i].seq <= st->seq_last; i++) {
		const kt_an_ev *e = &r->ev[i];
		double s1[KT_AN_NLAYERS];

		if (e->seq <= from && from)
			continue;
		if (!(kt_an_is_agent_text(e) ||
		      (e->kind == KT_KIND_NOTE && e->text)))
			continue;
		kt_an_layer_of(e->text, strlen(e->text), s1);
		for (int l = 0; l < KT_AN_NLAYERS; l++)
			sc[l] += s1[l];
		ct.cur_ev = (long)i;
		ct.nseen = 0;
		kt_an_claims(e->text, strlen(e->text), claim_cb, &ct);
	}
	for (int l = 1; l < KT_AN_NLAYERS; l++)
		if (sc[l] > 0 && (bl == KT_AN_L_NONE || sc[l] > sc[bl]))
			bl = l;
	st->layer = bl;
	for (int c = 0; c < ct.n; c++)
		if (bi < 0 || ct.c[c].count > ct.c[bi].count)
			bi = c;
	if (bi < 0)
		return;
	st->claim_count = ct.c[bi].count;
	st->claim_ev = ct.c[bi].ev;
	if (ct.c[bi].lo < 0)
		snprintf(st->claim, sizeof(st->claim), "%s", ct.c[bi].key);
	else if (ct.c[bi].hi - ct.c[bi].lo < 0.05)
		snprintf(st->claim, sizeof(st->claim), "%s at %.1f %% of peak",
			 ct.c[bi].key, ct.c[bi].lo);
	else
		snprintf(st->claim, sizeof(st->claim),
			 "%s at %.1f-%.1f %% of peak", ct.c[bi].key,
			 ct.c[bi].lo, ct.c[bi].hi);
}

int kt_an_stalls(const kt_an_run *r, const kt_an_blame *b,
		 const kt_an_opts *o, kt_an_stall **out, size_t *nout)
{
	const kt_an_series *se = &b->series;
	kt_an_stall *v = NULL;
	size_t n = 0, cap = 0, start = 0;
	double ref;

	*out = NULL;
	*nout = 0;
	if (!se->n || se->unordered)
		return KT_OK;
	ref = se->pt[0].best;
	for (size_t k = 1; k <= se->n; k++) {
		int ended = k == se->n ? KT_AN_STALL_END :
			    se->pt[k].accepted ? KT_AN_STALL_JUMP :
			    log(se->pt[k].best / ref) > se->theta ?
			    KT_AN_STALL_GAIN : -1;
		size_t last = k - 1, len = last - start + 1, att = 1;
		uint32_t calls = se->pt[last].call - se->pt[start].call;

		if (ended < 0)
			continue;
		/* only attempts make a stall: re-running unchanged code is
		 * measuring it again (vsla_cuda_dev: seven runs of
		 * ./benchmark.sh over one libvsla are one attempt) */
		for (size_t q = start + 1; q <= last; q++)
			att += !se->pt[q].repeat;
		if (att >= (size_t)o->stall_rounds ||
		    (att >= 2 && calls >= (uint32_t)o->stall_calls)) {
			kt_an_stall *st;
			uint64_t from = start ? se->pt[start - 1].seq : 0,
				 to = k < se->n ? se->pt[k].seq_first : UINT64_MAX;

			if (KT_GROW(v, cap, n + 1)) {
				free(v);
				return KT_ENOMEM;
			}
			st = &v[n++];
			memset(st, 0, sizeof(*st));
			st->p_first = start;
			st->p_last = last;
			st->length = len;
			st->attempts = att;
			st->calls = calls;
			st->seq_first = se->pt[start].seq_first;
			st->seq_last = se->pt[last].seq;
			st->ended = ended;
			st->ended_by_jump = ended == KT_AN_STALL_JUMP ?
					    jump_at(b, k) : -1;
			st->gain = se->pt[last].best / ref;
			st->claim_ev = -1;
			/* a series' first stall starts after the last result of
			 * another series before it: what the agent said about
			 * another problem is not this stall */
			for (size_t mi = se->pt[0].meas; !start && o->workload &&
			     mi-- > 0;)
				if (strcmp(r->m[mi].key, o->workload)) {
					from = r->ev[r->m[mi].ev].seq;
					break;
				}
			stall_text(r, se, o, st, from, to);
		}
		if (k < se->n) {
			start = k;
			ref = se->pt[k].best;
		}
	}
	*out = v;
	*nout = n;
	return KT_OK;
}
