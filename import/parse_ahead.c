/*
 * parse_ahead.c - JSONL lines parsed on a second thread ahead of the
 * importer (parse_ahead.h).
 *
 * One producer (the thread), one consumer (the importer), a ring of
 * KT_PA_LINES slots under one mutex.  Each line of the file gets a slot,
 * parsed or not, so the importer takes them in the order it walks the
 * lines and never guesses which it must parse itself.  The thread waits
 * for room before it parses (the ring bounds the trees alive, not one
 * more), and once full it sleeps until the importer has emptied half the
 * ring: waking it for every slot freed would cost a context switch a line.
 *
 * cJSON parses on both threads at once (the importer parses the lines left
 * to it, and payload JSON).  Its parse keeps nothing global but the
 * position of the last error (cJSON_GetErrorPtr), which both threads then
 * write; ktraj never reads it (kt_cjson_parse tells failures apart by its
 * own per-thread count), so what it holds does not matter.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "parse_ahead.h"
#include "jsonstrict.h"
#include "../base/kt_base.h"

struct slot {
	cJSON *o;        /* NULL: not parsed ahead */
	uint64_t off;    /* where the line starts in data */
	size_t n;        /* its bytes, '\r' and '\n' left out */
};

struct kt_parse_ahead {
	pthread_t t;
	pthread_mutex_t mu;
	pthread_cond_t more, room;
	const char *data;
	size_t len;
	struct slot ring[KT_PA_LINES];
	size_t head, tail;   /* slots taken, slots filled (never wrap) */
	size_t bytes;        /* source bytes of the parsed slots waiting */
	int stop, done;
	int want_more, want_room; /* who sleeps: signal only then */
};

/* The line s[0..n) as the importer would keep it without a warning, or
 * NULL: the fast path of parse_line (imp_claude.c) and nothing else. */
static cJSON *parse_fast(const char *s, size_t n, int at_start)
{
	unsigned fl = KT_JSON_NONUL | KT_JSON_UTF8 | (at_start ? KT_JSON_BOM : 0);
	cJSON *o;
	int rc;

	if (!n || n > KT_PA_MAX_LINE)
		return NULL;
	o = kt_cjson_parse(s, n, NULL, &rc);
	if (!o)
		return NULL; /* bad, or out of memory: the importer says which */
	if (!cJSON_IsObject(o) || kt_json_check(s, n, fl, NULL, NULL)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static void *pa_main(void *arg)
{
	kt_parse_ahead *a = arg;
	const char *p = a->data, *end = a->data + a->len;

	pthread_setname_np(pthread_self(), "ktraj-parse");
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct slot sl;
		size_t need;

		if (n && p[n - 1] == '\r')
			n--;
		/* a line too long to parse ahead holds no tree */
		need = n <= KT_PA_MAX_LINE ? n : 0;
		pthread_mutex_lock(&a->mu);
		while (!a->stop && (a->tail - a->head == KT_PA_LINES ||
				    (a->bytes && a->bytes + need > KT_PA_BYTES))) {
			a->want_room = 1;
			pthread_cond_wait(&a->room, &a->mu);
		}
		a->want_room = 0;
		if (a->stop) {
			pthread_mutex_unlock(&a->mu);
			break;
		}
		pthread_mutex_unlock(&a->mu);
		/* only this thread fills slots: the room seen stays */
		sl.o = parse_fast(p, n, p == a->data);
		sl.off = (uint64_t)(p - a->data);
		sl.n = n;
		pthread_mutex_lock(&a->mu);
		a->ring[a->tail % KT_PA_LINES] = sl;
		a->tail++;
		if (sl.o)
			a->bytes += n;
		if (a->want_more)
			pthread_cond_signal(&a->more);
		pthread_mutex_unlock(&a->mu);
		p = nl ? nl + 1 : end;
	}
	pthread_mutex_lock(&a->mu);
	a->done = 1;
	pthread_cond_signal(&a->more);
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

int kt_pa_start(const char *data, size_t len, kt_parse_ahead **out)
{
	kt_parse_ahead *a;

	*out = NULL;
	if (!(a = calloc(1, sizeof(*a))))
		return KT_ENOMEM;
	a->data = data;
	a->len = len;
	if (pthread_mutex_init(&a->mu, NULL) != 0)
		goto no_mutex;
	if (pthread_cond_init(&a->more, NULL) != 0)
		goto no_more;
	if (pthread_cond_init(&a->room, NULL) != 0)
		goto no_room;
	if (kt_thread_start(&a->t, pa_main, a) != 0) {
		pthread_cond_destroy(&a->room);
		pthread_cond_destroy(&a->more);
		pthread_mutex_destroy(&a->mu);
		free(a);
		return KT_EIO;
	}
	*out = a;
	return 0;
no_room:
	pthread_cond_destroy(&a->more);
no_more:
	pthread_mutex_destroy(&a->mu);
no_mutex:
	free(a);
	return KT_ENOMEM;
}

cJSON *kt_pa_take(kt_parse_ahead *a, uint64_t off, size_t n)
{
	cJSON *o = NULL;

	if (!a)
		return NULL;
	pthread_mutex_lock(&a->mu);
	for (;;) {
		struct slot *sl;

		while (a->head == a->tail && !a->done) {
			a->want_more = 1;
			pthread_cond_wait(&a->more, &a->mu);
		}
		a->want_more = 0;
		if (a->head == a->tail)
			break; /* past the last line: the caller parses */
		sl = &a->ring[a->head % KT_PA_LINES];
		if (sl->off > off)
			break; /* not split as the caller splits: its own */
		a->head++;
		if (sl->o)
			a->bytes -= sl->n;
		if (sl->off == off && sl->n == n) {
			o = sl->o;
			break;
		}
		/* a line the caller walked past without taking it, or
		 * split otherwise */
		cJSON_Delete(sl->o);
		if (sl->off == off)
			break;
	}
	if (a->want_room && a->tail - a->head <= KT_PA_LINES / 2)
		pthread_cond_signal(&a->room);
	pthread_mutex_unlock(&a->mu);
	return o;
}

void kt_pa_stop(kt_parse_ahead *a)
{
	if (!a)
		return;
	pthread_mutex_lock(&a->mu);
	a->stop = 1;
	pthread_cond_signal(&a->room);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->t, NULL);
	for (; a->head != a->tail; a->head++)
		cJSON_Delete(a->ring[a->head % KT_PA_LINES].o);
	pthread_cond_destroy(&a->room);
	pthread_cond_destroy(&a->more);
	pthread_mutex_destroy(&a->mu);
	free(a);
}
