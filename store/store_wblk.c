/*
 * store_wblk.c - sealed event blocks compressed on a worker thread while
 * the writer fills the next one (issue 21: zstd was ~25 % of a Claude Code
 * import, tests/bench/RESULTS.md "Issue 21: the import rows").
 *
 * One block in flight at a time (double buffering): the writer hands over
 * a sealed block and goes on; the next hand-over, or anything that must see
 * the block stored, waits for the worker and puts the frame in the writer's
 * own thread, since an LMDB write transaction belongs to the thread that
 * began it (lmdb.h, mdb_txn_begin).  The worker has its own compression
 * context ("one CCtx per thread", storage_style.md §2) and reads only the
 * job it was given and the dictionary the writer chose at hand-over, so the
 * frame is the one kt_ev_compress would have made in the writer.
 */
#include <pthread.h>
#include <stdlib.h>
#include <zstd.h>
#include "store_int.h"

struct kt_wb {
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	pthread_t t;
	int busy;               /* a job is handed over and not yet put */
	int ready;              /* the worker finished it */
	int stop;
	ZSTD_CCtx *cc;          /* the worker's own */
	/* the job: the block value is built in val (header, then frame) */
	unsigned char key[KT_RUN_BIN + 9];
	struct kt_buf raw, val;   /* raw: the bodies, when handed over */
	const unsigned char *src; /* the bodies: raw.p or the caller's */
	size_t n, hl, fr;
	void *cdict;
	uint32_t did, dict;
};

static void *wb_main(void *arg)
{
	struct kt_wb *w = arg;

	/* seen as such in top -H and /proc/PID/task/N/comm */
	pthread_setname_np(pthread_self(), "ktraj-blocks");
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->stop && (!w->busy || w->ready))
			pthread_cond_wait(&w->work, &w->mu);
		if (w->stop)
			break;
		pthread_mutex_unlock(&w->mu);
		/* the writer touches none of the job until ready is set */
		w->fr = kt_ev_compress_with(w->cc, w->cdict, w->did, w->src,
					    w->n, w->val.p + w->hl,
					    w->val.cap - w->hl, &w->dict);
		pthread_mutex_lock(&w->mu);
		w->ready = 1;
		pthread_cond_signal(&w->done);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* The worker, started on first use; NULL when it cannot be. */
static struct kt_wb *wb_get(kt_store *s)
{
	struct kt_wb *w = s->wb;

	if (w)
		return w;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	if (!(w->cc = ZSTD_createCCtx()))
		goto no_cc;
	if (pthread_mutex_init(&w->mu, NULL) != 0)
		goto no_mu;
	if (pthread_cond_init(&w->work, NULL) != 0)
		goto no_work;
	if (pthread_cond_init(&w->done, NULL) != 0)
		goto no_done;
	if (kt_thread_start(&w->t, wb_main, w) != 0)
		goto no_thread;
	s->wb = w;
	return w;
no_thread:
	pthread_cond_destroy(&w->done);
no_done:
	pthread_cond_destroy(&w->work);
no_work:
	pthread_mutex_destroy(&w->mu);
no_mu:
	ZSTD_freeCCtx(w->cc);
no_cc:
	free(w);
	return NULL;
}

/* Wait until the job in flight, if any, is compressed: 1 when there is
 * one (then it is the writer's until busy is cleared), else 0. */
static int wb_wait(struct kt_wb *w)
{
	if (!w || !w->busy)
		return 0;
	pthread_mutex_lock(&w->mu);
	while (!w->ready)
		pthread_cond_wait(&w->done, &w->mu);
	pthread_mutex_unlock(&w->mu);
	return 1;
}

/* The job is done with: the worker, which reads the flags under the lock,
 * waits for the next. */
static void wb_idle(struct kt_wb *w)
{
	pthread_mutex_lock(&w->mu);
	w->busy = 0;
	w->ready = 0;
	pthread_mutex_unlock(&w->mu);
}

int kt_wb_settle(kt_store *s)
{
	struct kt_wb *w = s->wb;
	unsigned char *p;
	size_t fr;
	int rc;

	if (!wb_wait(w))
		return 0;
	p = w->val.p;
	fr = w->fr;
	/* as block_write (store_append.c) lays a value out */
	if (fr) {
		p[0] = KT_CODEC_ZSTD;
	} else {
		p[0] = KT_CODEC_RAW;
		w->dict = 0;
		memcpy(p + w->hl, w->src, w->n);
		fr = w->n;
	}
	kt_be32(p + 2, w->dict);
	rc = kt_put(s, KT_DB_BLOCKS, w->key, sizeof(w->key), p, w->hl + fr, 0);
	wb_idle(w);
	return rc;
}

void kt_wb_drop(kt_store *s)
{
	struct kt_wb *w = s->wb;

	if (wb_wait(w))
		wb_idle(w);
}

/* The job's header, key and dictionary set, the bodies not yet: 0, 1
 * (no worker), KT_ENOMEM or the put's code of the block before. */
static int wb_job(kt_store *s, const unsigned char *key,
		  const unsigned char *hdr, size_t hl, size_t n)
{
	struct kt_wb *w;
	int rc;

	if ((rc = kt_wb_settle(s)) != 0)
		return rc;
	if (!(w = wb_get(s)))
		return 1;
	if (kt_buf_reserve(&w->val, hl + ZSTD_compressBound(n)))
		return kt_err(s, KT_ENOMEM, "block value");
	memcpy(w->val.p, hdr, hl);
	w->hl = hl;
	memcpy(w->key, key, sizeof(w->key));
	/* chosen here, where kt_ev_compress would choose it: a dictionary
	 * trained later serves later blocks only */
	w->cdict = kt_ev_cdict(s, &w->did);
	return 0;
}

static void wb_go(struct kt_wb *w)
{
	pthread_mutex_lock(&w->mu);
	w->busy = 1;
	w->ready = 0;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->mu);
}

int kt_wb_hand(kt_store *s, const unsigned char *key, const unsigned char *hdr,
	       size_t hl, struct kt_buf *raw)
{
	struct kt_wb *w;
	struct kt_buf t;
	int rc = wb_job(s, key, hdr, hl, raw->len);

	if (rc)
		return rc;
	w = s->wb;
	t = w->raw;
	w->raw = *raw;
	*raw = t;
	raw->len = 0;
	w->src = w->raw.p;
	w->n = w->raw.len;
	wb_go(w);
	return 0;
}

int kt_wb_lend(kt_store *s, const unsigned char *key, const unsigned char *hdr,
	       size_t hl, const unsigned char *src, size_t n)
{
	int rc = wb_job(s, key, hdr, hl, n);

	if (rc)
		return rc;
	s->wb->src = src;
	s->wb->n = n;
	wb_go(s->wb);
	return 0;
}

void kt_wb_close(kt_store *s)
{
	struct kt_wb *w = s->wb;

	if (!w)
		return;
	kt_wb_drop(s);
	pthread_mutex_lock(&w->mu);
	w->stop = 1;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->t, NULL);
	pthread_cond_destroy(&w->done);
	pthread_cond_destroy(&w->work);
	pthread_mutex_destroy(&w->mu);
	ZSTD_freeCCtx(w->cc);
	free(w->raw.p);
	free(w->val.p);
	free(w);
	s->wb = NULL;
}
