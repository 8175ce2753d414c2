/*
 * base.c - error texts, strings, hex, SHA-256 and cJSON getters (kt_base.h).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cjson/cJSON.h>
#include "kt_base.h"

const char *kt_strerror(int err)
{
	switch (err) {
	case KT_OK: return "success";
	case KT_EIO: return "I/O error";
	case KT_ENOMEM: return "out of memory";
	case KT_ENOTFOUND: return "not found";
	case KT_EEXIST: return "already exists";
	case KT_ECORRUPT: return "corrupt data";
	case KT_EVERSION: return "store format not supported by this ktraj (an older store: export its runs with the ktraj that wrote it; a newer one: upgrade ktraj)";
	case KT_EINVAL: return "invalid argument";
	case KT_EAMBIG: return "ambiguous";
	case KT_ERDONLY: return "store opened read-only";
	case KT_EBUSY: return "busy";
	case KT_ELIMIT: return "size limit exceeded";
	case KT_EPARSE: return "malformed input";
	case KT_ENODEV: return "no CUDA device";
	case KT_ECHILD: return "child process failed";
	case KT_ECHANGED: return "the store changed during the read (another process wrote it; this reader cannot take its lock): read again";
	}
	return "unknown error";
}

/* ---- strings ------------------------------------------------------------- */
char *kt_xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

const char *kt_basename(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : (p ? p : "");
}

/* ---- hex ----------------------------------------------------------------- */
char *kt_str_replace(const char *s, size_t n, const char *o, size_t lo,
		     const char *nw, size_t ln, int all, size_t *outlen)
{
	size_t cnt = 0, cap, w = 0;
	const char *p = s, *end = s + n, *q;
	char *out;

	if (lo == 0)
		return NULL;
	while ((q = memmem(p, (size_t)(end - p), o, lo))) {
		cnt++;
		p = q + lo;
		if (!all)
			break;
	}
	if (!cnt)
		return NULL;
	cap = n + cnt * ln + 1;
	out = malloc(cap);
	if (!out)
		return NULL;
	p = s;
	while (cnt-- && (q = memmem(p, (size_t)(end - p), o, lo))) {
		memcpy(out + w, p, (size_t)(q - p));
		w += (size_t)(q - p);
		memcpy(out + w, nw, ln);
		w += ln;
		p = q + lo;
	}
	memcpy(out + w, p, (size_t)(end - p));
	w += (size_t)(end - p);
	out[w] = 0;
	*outlen = w;
	return out;
}

int kt_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int kt_hex4(const unsigned char *p, const unsigned char *end, unsigned *cp)
{
	unsigned v = 0;

	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		int d = kt_hexval(p[i]);

		if (d < 0)
			return -1;
		v = v << 4 | (unsigned)d;
	}
	*cp = v;
	return 0;
}

void kt_hex(const unsigned char *bin, size_t n, char *out)
{
	static const char d[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = d[bin[i] >> 4];
		out[2 * i + 1] = d[bin[i] & 15];
	}
	out[2 * n] = 0;
}

int kt_unhex(const char *hex, unsigned char *bin, size_t n)
{
	if (!hex)
		return KT_EINVAL;
	for (size_t i = 0; i < n; i++) {
		int a = kt_hexval((unsigned char)hex[2 * i]), b;

		if (a < 0)
			return KT_EINVAL;
		b = kt_hexval((unsigned char)hex[2 * i + 1]);
		if (b < 0)
			return KT_EINVAL;
		bin[i] = (unsigned char)(a << 4 | b);
	}
	return hex[2 * n] ? KT_EINVAL : KT_OK;
}

/* ---- SHA-256 ------------------------------------------------------------- */
void kt_sha_start(kt_sha_ctx *c)
{
	sha256_init(c);
}

void kt_sha_add(kt_sha_ctx *c, const void *data, size_t len)
{
	sha256_update(c, len, data);
}

void kt_sha_finish(kt_sha_ctx *c, unsigned char out[KT_HASH_LEN])
{
	sha256_digest(c, KT_HASH_LEN, out);
}

void kt_sha256(const void *data, size_t len, unsigned char out[KT_HASH_LEN])
{
	kt_sha_ctx c;

	/* Nettle's fat build uses SHA-NI when present (storage_style.md §4) */
	sha256_init(&c);
	sha256_update(&c, len, data);
	sha256_digest(&c, KT_HASH_LEN, out);
}

void kt_sha256_hex(const void *data, size_t len, char out[KT_HASH_HEX + 1])
{
	unsigned char h[KT_HASH_LEN];

	kt_sha256(data, len, h);
	kt_hex(h, KT_HASH_LEN, out);
}

/* ---- cJSON --------------------------------------------------------------- */
cJSON *kt_json_get(const struct cJSON *o, const char *key)
{
	cJSON *c;

	if (!o || !key)
		return NULL;
	for (c = o->child; c && c->string; c = c->next)
		if (c->string[0] == key[0] && !strcmp(c->string, key))
			return c;
	return NULL;
}

const char *kt_json_str(const struct cJSON *o, const char *key)
{
	const cJSON *v;

	if (!cJSON_IsObject(o))
		return NULL;
	v = kt_json_get(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

int kt_threads_for(uint64_t bytes)
{
	const char *e = getenv("KTRAJ_THREADS");
	cpu_set_t set;

	if (bytes <= KT_THREADS_MIN || (e && !strcmp(e, "1")))
		return 0;
	/* the CPUs this process may use, not the machine's: under taskset
	 * one CPU the second thread would only take turns with the first */
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0;
	return CPU_COUNT(&set) >= 2;
}

/* The hand-off of kt_thread_start: on the caller's stack, which the caller
 * keeps until the thread has said it is ready. */
struct thread_start {
	void *(*fn)(void *);
	void *arg;
	void *room;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int ready;
};

static void *thread_start_main(void *p)
{
	struct thread_start *ts = p;
	void *(*fn)(void *) = ts->fn;
	void *arg = ts->arg;

	/* the room is this thread's while the caller waits: its allocator
	 * (an arena, a cache) is made out of it */
	munmap(ts->room, KT_THREAD_ROOM);
	free(malloc(1));
	pthread_mutex_lock(&ts->mu);
	ts->ready = 1;
	pthread_cond_signal(&ts->cv);
	pthread_mutex_unlock(&ts->mu);
	return fn(arg);
}

int kt_thread_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	struct thread_start ts = { .fn = fn, .arg = arg };
	int rc;

	ts.room = mmap(NULL, KT_THREAD_ROOM, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (ts.room == MAP_FAILED)
		return ENOMEM;
	if ((rc = pthread_mutex_init(&ts.mu, NULL)) != 0) {
		munmap(ts.room, KT_THREAD_ROOM);
		return rc;
	}
	if ((rc = pthread_cond_init(&ts.cv, NULL)) != 0) {
		pthread_mutex_destroy(&ts.mu);
		munmap(ts.room, KT_THREAD_ROOM);
		return rc;
	}
	rc = pthread_create(t, NULL, thread_start_main, &ts);
	if (rc) {
		munmap(ts.room, KT_THREAD_ROOM);
	} else {
		pthread_mutex_lock(&ts.mu);
		while (!ts.ready)
			pthread_cond_wait(&ts.cv, &ts.mu);
		pthread_mutex_unlock(&ts.mu);
	}
	pthread_cond_destroy(&ts.cv);
	pthread_mutex_destroy(&ts.mu);
	return rc;
}
