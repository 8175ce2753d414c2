/*
 * store_ahead.c - decode event blocks ahead of a scan on helper threads.
 *
 * A BODY scan spends ~80 % of its time in zstd (tests/bench/RESULTS.md
 * "session 6"): ~1.4 GB/s of decoded bodies on one core, ~1.17 KB per event
 * on the benchmark, so one core cannot scan 1M events/s whatever the rest
 * costs.  The blocks a scan will need next are known in advance (each kind's
 * stream is read in key order), so a scan hands them to a few threads, each
 * with its own decompression context and staging buffer ("one CCtx and one
 * DCtx per process or thread", ../shared/research/storage_style.md §2), and
 * takes the bodies when it reaches them.  The threads live only while one
 * kt_event_scan runs and touch nothing of the handle: frames are read where
 * the scan's read transaction maps them, dictionaries from the scan's own
 * copies, and each job writes only its own buffer.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>
#include <zstd.h>
#include "store_int.h"

enum { J_FREE, J_QUEUED, J_RUNNING, J_DONE };

struct ajob {
	int state;
	const void *frame;
	size_t flen, raw_len;
	const unsigned char *dict; /* dictionary content, dlen bytes */
	size_t dlen;
	unsigned char *dst;        /* raw_len bytes */
	int rc;
	const char *why;           /* zstd's static error text */
};

struct aworker {
	pthread_t t;
	struct kt_ahead *a;
	ZSTD_DCtx *dc;
	unsigned char *stage;      /* the dictionary's content, then room */
	size_t cap;
	const unsigned char *sdict; /* whose content stage holds */
};

struct kt_ahead {
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	struct ajob job[KT_AHEAD_JOBS];
	int ring[KT_AHEAD_JOBS];   /* queued jobs, oldest first */
	int rhead, rlen;
	int stop, nw;
	struct aworker w[KT_AHEAD_THREADS];
	struct aworker mine;       /* the scan's thread, when it decodes a
				      job no helper has started */
};

/*
 * Decompress one job with the worker's context.  A frame with a
 * dictionary is decoded right after a copy of the dictionary's content and
 * copied out, as the scan's own path does (sbuf_decode in store_scan.c):
 * matches into the dictionary are then plain back references.
 */
static void decode(struct aworker *w, struct ajob *j)
{
	size_t r;

	j->rc = 0;
	j->why = NULL;
	if (!j->dict) {
		r = ZSTD_decompressDCtx(w->dc, j->dst, j->raw_len, j->frame,
					j->flen);
	} else {
		if (w->cap < j->dlen + j->raw_len) {
			size_t n = j->dlen + j->raw_len;
			unsigned char *p = realloc(w->stage, n);

			if (!p) {
				j->rc = KT_ENOMEM;
				j->why = "out of memory";
				return;
			}
			w->stage = p;
			w->cap = n;
			w->sdict = NULL;
		}
		if (w->sdict != j->dict) {
			memcpy(w->stage, j->dict, j->dlen);
			w->sdict = j->dict;
		}
		r = ZSTD_decompress_usingDict(w->dc, w->stage + j->dlen,
					      j->raw_len, j->frame, j->flen,
					      w->stage, j->dlen);
		if (!ZSTD_isError(r) && r == j->raw_len)
			memcpy(j->dst, w->stage + j->dlen, j->raw_len);
	}
	if (ZSTD_isError(r)) {
		j->rc = KT_ECORRUPT;
		j->why = ZSTD_getErrorName(r);
	} else if (r != j->raw_len) {
		j->rc = KT_ECORRUPT;
		j->why = "frame content size differs";
	}
}

static void *worker_main(void *arg)
{
	struct aworker *w = arg;
	struct kt_ahead *a = w->a;

	pthread_mutex_lock(&a->mu);
	for (;;) {
		struct ajob *j;
		int i;

		while (!a->stop && a->rlen == 0)
			pthread_cond_wait(&a->work, &a->mu);
		if (a->stop)
			break;
		i = a->ring[a->rhead];
		a->rhead = (a->rhead + 1) % KT_AHEAD_JOBS;
		a->rlen--;
		j = &a->job[i];
		j->state = J_RUNNING;
		pthread_mutex_unlock(&a->mu);
		decode(w, j);
		pthread_mutex_lock(&a->mu);
		j->state = J_DONE;
		pthread_cond_broadcast(&a->done);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

int kt_ahead_threads(void)
{
	cpu_set_t set;
	int n;

	/* the CPUs this process may run on, not the machine's: a scan pinned
	 * to one core (taskset) gains nothing from threads that wait for it.
	 * One helper is not worth its hand-offs: on the 2-vCPU build machine
	 * a BODY scan with one gave 0.82M events/s, 0.98M/s without
	 * (tests/bench/RESULTS.md "session 6"); with three, 2x on the device */
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0;
	n = CPU_COUNT(&set) - 1;
	return n < 2 ? 0 : n > KT_AHEAD_THREADS ? KT_AHEAD_THREADS : n;
}

int kt_ahead_open(int nthreads, struct kt_ahead **out)
{
	struct kt_ahead *a;
	int i;

	*out = NULL;
	if (nthreads > KT_AHEAD_THREADS)
		nthreads = KT_AHEAD_THREADS;
	if (nthreads <= 0)
		return KT_EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return KT_ENOMEM;
	if (pthread_mutex_init(&a->mu, NULL) != 0)
		goto no_mutex;
	if (pthread_cond_init(&a->work, NULL) != 0)
		goto no_work;
	if (pthread_cond_init(&a->done, NULL) != 0)
		goto no_done;
	for (i = 0; i < nthreads; i++) {
		struct aworker *w = &a->w[a->nw];

		w->a = a;
		w->dc = ZSTD_createDCtx();
		if (!w->dc)
			break;
		if (kt_thread_start(&w->t, worker_main, w) != 0) {
			ZSTD_freeDCtx(w->dc);
			w->dc = NULL;
			break;
		}
		a->nw++;
	}
	if (a->nw == 0) {
		kt_ahead_close(a);
		return KT_ENOMEM;
	}
	*out = a;
	return 0;
no_done:
	pthread_cond_destroy(&a->work);
no_work:
	pthread_mutex_destroy(&a->mu);
no_mutex:
	free(a);
	return KT_ENOMEM;
}

void kt_ahead_close(struct kt_ahead *a)
{
	if (!a)
		return;
	pthread_mutex_lock(&a->mu);
	a->stop = 1;
	pthread_cond_broadcast(&a->work);
	pthread_mutex_unlock(&a->mu);
	for (int i = 0; i < a->nw; i++) {
		pthread_join(a->w[i].t, NULL);
		ZSTD_freeDCtx(a->w[i].dc);
		free(a->w[i].stage);
	}
	free(a->mine.stage); /* its context is the process's (kt_dctx) */
	pthread_cond_destroy(&a->done);
	pthread_cond_destroy(&a->work);
	pthread_mutex_destroy(&a->mu);
	free(a);
}

int kt_ahead_submit(struct kt_ahead *a, const void *frame, size_t flen,
		    size_t raw_len, const unsigned char *dict, size_t dlen,
		    unsigned char *dst)
{
	int i, id = -1;

	pthread_mutex_lock(&a->mu);
	for (i = 0; i < KT_AHEAD_JOBS; i++)
		if (a->job[i].state == J_FREE) {
			id = i;
			break;
		}
	if (id >= 0) {
		struct ajob *j = &a->job[id];

		j->frame = frame;
		j->flen = flen;
		j->raw_len = raw_len;
		j->dict = dict;
		j->dlen = dlen;
		j->dst = dst;
		j->state = J_QUEUED;
		a->ring[(a->rhead + a->rlen) % KT_AHEAD_JOBS] = id;
		a->rlen++;
		pthread_cond_signal(&a->work);
	}
	pthread_mutex_unlock(&a->mu);
	return id;
}

int kt_ahead_wait(struct kt_ahead *a, int id, const char **why)
{
	struct ajob *j = &a->job[id];
	int rc;

	pthread_mutex_lock(&a->mu);
	if (j->state == J_QUEUED && (a->mine.dc = kt_dctx()) != NULL) {
		/* no helper has it yet: decode it here rather than wait for
		 * one (with one helper both then decode) */
		int i, n = a->rlen;

		for (i = 0; i < n; i++)
			if (a->ring[(a->rhead + i) % KT_AHEAD_JOBS] == id)
				break;
		for (; i + 1 < n; i++)
			a->ring[(a->rhead + i) % KT_AHEAD_JOBS] =
				a->ring[(a->rhead + i + 1) % KT_AHEAD_JOBS];
		a->rlen--;
		j->state = J_RUNNING;
		pthread_mutex_unlock(&a->mu);
		decode(&a->mine, j);
		pthread_mutex_lock(&a->mu);
		j->state = J_DONE;
	}
	while (j->state != J_DONE)
		pthread_cond_wait(&a->done, &a->mu);
	rc = j->rc;
	*why = j->why;
	j->state = J_FREE;
	pthread_mutex_unlock(&a->mu);
	return rc;
}
