/*
 * load.c - load a run into memory for the analyzers.
 *
 * Two scans (store.h kt_event_scan): the headers of the tool calls (their
 * count up to each event is the analyzers' clock), then the bodies of the
 * kinds the analyzers read.  Tool results, the bulk of a run's bytes, are
 * never touched.  Payload members are found in place by a strict scanner
 * (load_json.c; an_int.h) with cJSON as the fallback, and only the texts an
 * analyzer reads are copied, into one arena per run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cjson/cJSON.h>
#include <sys/mman.h>
#include "an_int.h"

/* ---- large arrays ------------------------------------------------------------ */
#if defined(__SANITIZE_ADDRESS__)
#define KT_AN_NO_MMAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define KT_AN_NO_MMAP 1
#endif
#endif

/* In front of every block: how to release it. */
struct bighdr {
	void *map;        /* mmap start, NULL for calloc */
	size_t maplen, n; /* mapping length; usable bytes */
	char pad[40];     /* 64 bytes: keeps the array 64-byte aligned */
};

#define HUGE_SZ (2u << 20)

/* n bytes, zeroed when `zero`: arena blocks and arrays whose elements are
 * written whole before any read skip calloc's clearing, which for a block
 * of 64 KiB had jemalloc purge and re-fault pages once per small run
 * (a tenth of `questions mine` over 1,000 runs). */
static void *big_alloc(size_t n, int zero)
{
	struct bighdr *h = NULL;

	if (n > SIZE_MAX / 2)
		return NULL;
#if !defined(KT_AN_NO_MMAP) && defined(MADV_HUGEPAGE) && defined(MAP_ANONYMOUS)
	if (n >= HUGE_SZ / 8) {
		/* a 2 MiB-aligned start inside a mapping one huge page longer */
		size_t len = ((n + sizeof(*h) + HUGE_SZ - 1) / HUGE_SZ + 1) *
			     HUGE_SZ;
		void *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m != MAP_FAILED) {
			uintptr_t a = ((uintptr_t)m + HUGE_SZ - 1) &
				      ~(uintptr_t)(HUGE_SZ - 1);

			/* advice only: without huge pages this is plain mmap */
			(void)madvise((void *)a, len - (a - (uintptr_t)m),
				      MADV_HUGEPAGE);
			h = (struct bighdr *)a;
			h->map = m;
			h->maplen = len;
			h->n = n;
			return h + 1;
		}
	}
#endif
	h = zero ? calloc(1, sizeof(*h) + n) : malloc(sizeof(*h) + n);
	if (!h)
		return NULL;
	h->map = NULL;
	h->n = n;
	return h + 1;
}

void *kt_an_big(size_t n)
{
	return big_alloc(n, 1);
}

void *kt_an_big_grow(void *p, size_t n)
{
	struct bighdr *h = p ? (struct bighdr *)p - 1 : NULL;
	void *q;

	if (h && n <= h->n)
		return p;
	if (!(q = kt_an_big(n)))
		return NULL;
	if (h)
		memcpy(q, p, h->n);
	kt_an_big_free(p);
	return q;
}

void kt_an_big_free(void *p)
{
	struct bighdr *h;

	if (!p)
		return;
	h = (struct bighdr *)p - 1;
	if (h->map)
		munmap(h->map, h->maplen);
	else
		free(h);
}

/* ---- arena ------------------------------------------------------------------- */
struct arena {
	struct arena *next;
	size_t used, cap;
	char d[];
};

#define ARENA_BLOCK 65536

/* n bytes of r's arena (NULL when out of memory).  Blocks double from
 * 64 KiB to 2 MiB, so a long run's texts sit in a few huge pages. */
static char *arena_get(kt_an_run *r, size_t n)
{
	struct arena *a = r->arena;

	if (!a || a->cap - a->used < n) {
		size_t cap = a ? a->cap * 2 : ARENA_BLOCK;
		struct arena *b;

		if (cap > 32 * ARENA_BLOCK)
			cap = 32 * ARENA_BLOCK;
		if (n > cap / 4)
			cap = n;
		b = big_alloc(sizeof(*b) + cap, 0);
		if (!b)
			return NULL;
		b->used = 0;
		b->cap = cap;
		/* a big text gets a block of its own behind the current one,
		 * so the current block's free space stays in use */
		if (a && cap == n) {
			b->next = a->next;
			a->next = b;
		} else {
			b->next = a;
			r->arena = b;
		}
		b->used = n;
		return b->d;
	}
	a->used += n;
	return a->d + a->used - n;
}

static char *arena_dup(kt_an_run *r, const char *s, size_t n)
{
	char *d = arena_get(r, n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

char *kt_an_arena_dup(kt_an_run *r, const char *s, size_t n)
{
	return arena_dup(r, s, n);
}

/* ---- loading ------------------------------------------------------------------ */
struct loadctx {
	kt_store *s;
	kt_an_run *r;
	unsigned flags;
	size_t cap, mcap, ecap, tccap, pos;
	char *tmp;          /* decoded strings of one payload */
	size_t tmpcap;
	const char *last_work, *last_scen, *last_metric, *last_base,
		   *last_src, *last_cand, *last_step;
	int acted;          /* an assistant message was seen */
#define QMEMO 16
	struct qmemo {
		const char *text;
		size_t n;
		uint64_t h;
		int q;
	} memo[QMEMO];
	unsigned memo_next;
	struct ehead {      /* edits of the header scan, in seq order */
		uint64_t seq, parent;
		int64_t ts;
		uint32_t call;
	} *eh;
	size_t neh, ehcap, ehpos;
	int err;
};

int kt_an_profiler_payload(const char *p, size_t n)
{
	size_t pl = n < 512 ? n : 512;

	if (!p)
		return 0;
	return memmem(p, pl, "ncu ", 4) || memmem(p, pl, "nsys ", 5) ||
	       memmem(p, pl, "nsight", 6) || memmem(p, pl, "rocprof", 7);
}

/* Result m flagged "ref_other_hardware" (KernelBench: kernel and reference
 * timed on two GPUs, FORMAT.md "KernelBench"): its reference time is no
 * reference for it, and m->other_hw names both GPUs. */
static int other_hw_of(kt_an_run *r, const kt_event *e, kt_an_meas *m)
{
	int prc;
	cJSON *j = kt_cjson_parse(e->payload, e->payload_len, NULL, &prc);
	const cJSON *f, *fl = cJSON_GetObjectItemCaseSensitive(j, "flags");
	const cJSON *arr = cJSON_IsArray(fl) ? fl : NULL;
	const cJSON *fp = cJSON_GetObjectItemCaseSensitive(j, "fingerprint");
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, "extra");
	const char *hw, *rhw;
	struct kt_buf t = { 0 };
	int rc = 0, on = 0;

	/* a stored payload is JSON: NULL ran out of memory */
	if (!j && prc == KT_ENOMEM)
		return prc;
	cJSON_ArrayForEach(f, arr)
		on |= cJSON_IsString(f) &&
		      !strcmp(f->valuestring, "ref_other_hardware");
	hw = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(fp,
								 "hardware"));
	rhw = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x,
							"ref_hardware"));
	if (on) {
		m->ref_ms = -1;
		m->speedup = -1;
		if (kt_buf_printf(&t, "%s, the reference on %s",
				  hw ? hw : "one GPU", rhw ? rhw : "another") ||
		    !(m->other_hw = arena_dup(r, t.s, t.len)))
			rc = KT_ENOMEM;
		kt_buf_free(&t);
	}
	cJSON_Delete(j);
	return rc;
}

/* The reward (extra.reward) and flags (["suspicious", ...], joined by
 * ", " into the run's arena) of result m, from its payload: a graded
 * result's, or any that carries flags (a verifier's JSON printed by a
 * command: benchpat_json.c). */
/* The figures printed beside result m's but not chosen (its payload's
 * `alternatives`, FORMAT.md section 2) as "speedup_vs_eager x5.850
 * (eager), ..." into the run's arena (m->also). */
static int alternatives_of(kt_an_run *r, const kt_event *e, kt_an_meas *m)
{
	int prc;
	cJSON *j = kt_cjson_parse(e->payload, e->payload_len, NULL, &prc);
	const cJSON *a, *al = cJSON_GetObjectItemCaseSensitive(j,
								"alternatives");
	const cJSON *arr = cJSON_IsArray(al) ? al : NULL;
	struct kt_buf b = { 0 };
	int rc = 0;

	/* a stored payload is JSON: NULL ran out of memory */
	if (!j && prc == KT_ENOMEM)
		return prc;
	cJSON_ArrayForEach(a, arr) {
		const cJSON *mt = cJSON_GetObjectItemCaseSensitive(a, "metric");
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(a, "value");
		const cJSON *bs = cJSON_GetObjectItemCaseSensitive(a, "baseline");
		char t[64];

		if (!cJSON_IsString(mt))
			continue;
		if ((b.len && kt_buf_add(&b, ", ", 2)) ||
		    kt_buf_add(&b, mt->valuestring, strlen(mt->valuestring)))
			rc = KT_ENOMEM;
		if (cJSON_IsNumber(v)) {
			snprintf(t, sizeof(t), " x%.3f", v->valuedouble);
			if (kt_buf_add(&b, t, strlen(t)))
				rc = KT_ENOMEM;
		}
		if (cJSON_IsString(bs) && *bs->valuestring &&
		    (kt_buf_add(&b, " (", 2) ||
		     kt_buf_add(&b, bs->valuestring, strlen(bs->valuestring)) ||
		     kt_buf_add(&b, ")", 1)))
			rc = KT_ENOMEM;
	}
	if (!rc && b.len && !(m->also = arena_dup(r, b.s, b.len)))
		rc = KT_ENOMEM;
	kt_buf_free(&b);
	cJSON_Delete(j);
	return rc;
}

/* Whether flags ("a, b, c", as graded_of joins them) hold word w whole. */
static int flag_has(const char *flags, const char *w)
{
	size_t n = strlen(w);

	for (const char *s = flags; s && *s; ) {
		const char *e = strstr(s, ", ");
		size_t len = e ? (size_t)(e - s) : strlen(s);

		if (len == n && !strncmp(s, w, n))
			return 1;
		s = e ? e + 2 : s + len;
	}
	return 0;
}

static int graded_of(kt_an_run *r, const kt_event *e, kt_an_meas *m)
{
	int prc;
	cJSON *j = kt_cjson_parse(e->payload, e->payload_len, NULL, &prc);
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, "extra");
	const cJSON *rw = cJSON_GetObjectItemCaseSensitive(x, "reward");
	const cJSON *f, *fl = cJSON_GetObjectItemCaseSensitive(j, "flags");
	const cJSON *arr = cJSON_IsArray(fl) ? fl : NULL;
	struct kt_buf b = { 0 };
	int rc = 0;

	/* a stored payload is JSON: NULL ran out of memory */
	if (!j && prc == KT_ENOMEM)
		return prc;
	if (cJSON_IsNumber(rw))
		m->reward = rw->valuedouble;
	cJSON_ArrayForEach(f, arr)
		if (cJSON_IsString(f) &&
		    ((b.len && kt_buf_add(&b, ", ", 2)) ||
		     kt_buf_add(&b, f->valuestring, strlen(f->valuestring))))
			rc = KT_ENOMEM;
	if (!rc && b.len && !(m->flags = arena_dup(r, b.s, b.len)))
		rc = KT_ENOMEM;
	kt_buf_free(&b);
	cJSON_Delete(j);
	return rc;
}

static const char *const msg_keys[] = {"role", "human", "flags", "text",
					"extra"};
static const char *const q_keys[] = {"text", "origin"};
static const char *const edit_keys[] = {"path", "before", "after"};
static const char *const bench_keys[] = {
	"correct", "source_hash", "workload", "time_ms", "speedup",
	"ref_time_ms", "min_ms", "max_ms", "n", "candidate_blob", "scenario",
	"metric", "baseline", "source", "candidate", "status", "graded",
	"round", "flags", "origin", "extra", "choice", "alternatives",
	"reason"};

/*
 * One payload, read either by the scanner or (when it refuses) by cJSON;
 * the accessors give what cJSON_GetObjectItemCaseSensitive would.
 */
struct pl {
	const char *const *keys;
	int nkeys;
	kt_an_jv f[24];
	cJSON *j;
	char *tmp;          /* scanner: decoded strings, payload_len + keys */
	size_t tmpused, tmpcap;
};

enum { V_ABSENT = 0, V_STR, V_NUM, V_TRUE, V_FALSE, V_OTHER };

/* Type of member k (V_*). */
static int pl_type(const struct pl *p, int k)
{
	if (p->j) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(p->j, p->keys[k]);

		return !v ? V_ABSENT : cJSON_IsString(v) ? V_STR :
		       cJSON_IsNumber(v) ? V_NUM : cJSON_IsTrue(v) ? V_TRUE :
		       cJSON_IsFalse(v) ? V_FALSE : V_OTHER;
	}
	switch (p->f[k].type) {
	case KT_AN_JS_NONE: return V_ABSENT;
	case KT_AN_JS_STR: return V_STR;
	case KT_AN_JS_NUM: return V_NUM;
	case KT_AN_JS_TRUE: return V_TRUE;
	case KT_AN_JS_FALSE: return V_FALSE;
	default: return V_OTHER;
	}
}

/* String member k, decoded and NUL-terminated, or NULL when k is not a
 * string.  Valid while the payload is. */
static const char *pl_str(struct pl *p, int k)
{
	char *d;

	if (p->j) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(p->j, p->keys[k]);

		return cJSON_IsString(v) ? v->valuestring : NULL;
	}
	if (p->f[k].type != KT_AN_JS_STR ||
	    p->tmpused + p->f[k].n + 1 > p->tmpcap)
		return NULL;
	/* decoding never grows a string: tmp has payload_len + 1 per key */
	d = p->tmp + p->tmpused;
	{
		long l = kt_an_js_str(&p->f[k], d, p->f[k].n + 1);

		if (l < 0)
			return NULL; /* cannot happen after js_fields */
		p->tmpused += (size_t)l + 1;
	}
	return d;
}

/* String member k copied into r's arena (*len its length), or NULL when
 * k is not a string; *oom set when out of memory. */
static char *pl_text(struct pl *p, int k, kt_an_run *r, size_t *len,
		     int *oom)
{
	char *d;
	long l;

	*oom = 0;
	if (p->j) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(p->j, p->keys[k]);

		if (!cJSON_IsString(v))
			return NULL;
		*len = strlen(v->valuestring);
		d = arena_dup(r, v->valuestring, *len);
		*oom = !d;
		return d;
	}
	if (p->f[k].type != KT_AN_JS_STR)
		return NULL;
	/* decoded straight into the arena: never longer than the escaped */
	if (!(d = arena_get(r, p->f[k].n + 1))) {
		*oom = 1;
		return NULL;
	}
	l = kt_an_js_str(&p->f[k], d, p->f[k].n + 1);
	if (l < 0)
		return NULL; /* cannot happen after js_fields */
	*len = (size_t)l;
	return d;
}

static double pl_num(const struct pl *p, int k)
{
	if (p->j) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(p->j, p->keys[k]);

		return cJSON_IsNumber(v) ? v->valuedouble : -1.0;
	}
	return p->f[k].type == KT_AN_JS_NUM ? kt_an_js_num(&p->f[k]) : -1.0;
}

static int flag_el(const kt_an_jv *v, void *arg)
{
	int *meta = arg;

	/* only "thinking" is not meta */
	if (v->type == KT_AN_JS_STR &&
	    !(v->n == 8 && !v->esc && !memcmp(v->v, "thinking", 8))) {
		char b[16];

		if (v->esc && kt_an_js_str(v, b, sizeof(b)) >= 0 &&
		    !strcmp(b, "thinking"))
			return 0;
		*meta = 1;
		return 1;
	}
	return 0;
}

/* Whether array member k has a string element other than "thinking". */
/* Whether a parsed "flags" array holds a flag other than "thinking". */
static int json_meta_flags(const cJSON *fl)
{
	const cJSON *x;

	cJSON_ArrayForEach(x, fl)
		if (cJSON_IsString(x) && strcmp(x->valuestring, "thinking"))
			return 1;
	return 0;
}

/* Whether a parsed object has "source": "input". */
static int json_input_source(const cJSON *extra)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(extra, "source");

	return cJSON_IsString(x) && !strcmp(x->valuestring, "input");
}

static int pl_meta_flags(const struct pl *p, int k)
{
	int meta = 0;

	if (p->j)
		return json_meta_flags(cJSON_GetObjectItemCaseSensitive(p->j,
								       p->keys[k]));
	kt_an_js_array(&p->f[k], flag_el, &meta);
	return meta;
}

/* Object member k's string member "step" (a round log's own step name,
 * import --map's extra.step) cut to cap - 1 bytes into b; NULL when
 * there is none. */
static const char *pl_step(const struct pl *p, int k, char *b, size_t cap)
{
	static const char *const step_key[] = {"step"};
	kt_an_jv v;

	if (p->j) {
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(p->j, p->keys[k]),
			"step");

		if (!cJSON_IsString(s))
			return NULL;
		snprintf(b, cap, "%s", s->valuestring);
		return b;
	}
	if (p->f[k].type != KT_AN_JS_OBJ ||
	    kt_an_js_fields(p->f[k].v, p->f[k].n, step_key, 1, &v) ||
	    v.type != KT_AN_JS_STR || v.n >= cap)
		return NULL;
	return kt_an_js_str(&v, b, cap) < 0 ? NULL : b;
}

/* Whether object member k has "source": "input" (Inspect's sample input). */
static int pl_input_source(const struct pl *p, int k)
{
	static const char *const src_key[] = {"source"};
	kt_an_jv v;
	char b[8];

	if (p->j)
		return json_input_source(cJSON_GetObjectItemCaseSensitive(p->j,
									 p->keys[k]));
	if (p->f[k].type != KT_AN_JS_OBJ ||
	    kt_an_js_fields(p->f[k].v, p->f[k].n, src_key, 1, &v))
		return 0;
	return kt_an_js_str(&v, b, sizeof(b)) == 5 && !strcmp(b, "input");
}

/* The same reading of a message payload as fill()'s (msg_keys), for
 * callers that hold it parsed (the NDJSON export). */
void kt_an_msg_of_json(const cJSON *payload, kt_an_msg *m)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(payload, "text");

	memset(m, 0, sizeof(*m));
	if (!cJSON_IsObject(payload))
		return;
	if (cJSON_IsString(t)) {
		m->text = t->valuestring;
		m->len = strlen(t->valuestring);
	}
	m->human = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(payload,
								 "human"));
	m->meta = json_meta_flags(cJSON_GetObjectItemCaseSensitive(payload,
								   "flags"));
	m->input_source = json_input_source(
		cJSON_GetObjectItemCaseSensitive(payload, "extra"));
}

/* Number members that the scanner could not read as cJSON does. */
static int pl_nums_ok(const struct pl *p)
{
	for (int k = 0; k < p->nkeys; k++)
		if (p->f[k].type == KT_AN_JS_NUM && isnan(kt_an_js_num(&p->f[k])))
			return 0;
	return 1;
}

/* Open the payload of e with the given keys: 0, or -1 when it is not a
 * JSON object (a bare event), or KT_ENOMEM. */
static int pl_open(struct loadctx *c, const kt_event *e,
		   const char *const *keys, int nkeys, struct pl *p)
{
	memset(p, 0, sizeof(*p));
	p->keys = keys;
	p->nkeys = nkeys;
	if (!e->payload)
		return -1;
	if (!kt_an_js_fields(e->payload, e->payload_len, keys, nkeys, p->f) &&
	    pl_nums_ok(p)) {
		size_t need = e->payload_len + (size_t)nkeys + 1;

		if (KT_GROW(c->tmp, c->tmpcap, need))
			return KT_ENOMEM;
		p->tmp = c->tmp;
		p->tmpcap = c->tmpcap;
		/* cJSON_ArrayForEach walks an object's members too: flags given
		 * as an object are left to cJSON */
		if (!(keys == msg_keys && p->f[2].type == KT_AN_JS_OBJ))
			return 0;
	}
	{
		int prc;

		p->j = kt_cjson_parse(e->payload, e->payload_len, NULL, &prc);
		if (!p->j && prc == KT_ENOMEM)
			return prc;
	}
	if (!p->j || !cJSON_IsObject(p->j)) {
		cJSON_Delete(p->j);
		p->j = NULL;
		return -1;
	}
	return 0;
}

static void hash_of(const char *s, unsigned char *h, unsigned char *has)
{
	*has = s && strlen(s) == KT_HASH_HEX && kt_unhex(s, h, KT_HASH_LEN) == 0;
}

/* Room for element n of *v (kt_an_big memory). */
static int grow(void **v, size_t *cap, size_t n, size_t elsz, size_t first)
{
	if (n < *cap)
		return 0;
	{
		size_t nc = *cap ? *cap * 2 : first;
		void *nv = kt_an_big_grow(*v, nc * elsz);

		if (!nv)
			return KT_ENOMEM;
		*v = nv;
		*cap = nc;
	}
	return 0;
}

/* A 128-bit key of s (NULL: absent) cut to max bytes: two FNV-1a 64
 * streams with different offset bases, the second one mixed (splitmix64
 * finalizer).  Sources are only compared for equality, and at 2^-127 a
 * collision among a run's sources is not a practical concern, while the
 * text itself (65 bytes per measurement) was most of a long run's memory. */
static void src_key(const char *s, size_t max, uint64_t k[2])
{
	uint64_t a, b;
	size_t i;

	k[0] = k[1] = 0;
	if (!s || !*s)
		return;
	i = strnlen(s, max);
	a = kt_fnv1a(KT_FNV1A_INIT, s, i);
	b = kt_fnv1a(0x84222325cbf29ce4ull, s, i);
	b ^= i;
	b = (b ^ (b >> 30)) * 0xBF58476D1CE4E5B9ull;
	b = (b ^ (b >> 27)) * 0x94D049BB133111EBull;
	k[0] = a | 1; /* never 0,0 */
	k[1] = b ^ (b >> 31);
}

/* s (NULL: "") cut to max bytes, in the arena; the same text as *last
 * (workloads repeat, so do a candidate's hashes) is not copied again. */
static const char *intern(struct loadctx *c, const char *s, size_t max,
			  const char **last)
{
	size_t n = s ? strlen(s) : 0;

	if (n > max)
		n = max;
	if (!n)
		return "";
	if (*last && !strncmp(*last, s, n) && !(*last)[n])
		return *last;
	*last = arena_dup(c->r, s, n);
	return *last;
}

/* Whether a human message holds a question sentence.  People repeat
 * themselves ("continue", "ok, keep going"): the last few distinct texts
 * and their answers are remembered. */
static int has_question(void *arg, const char *t, size_t n)
{
	struct loadctx *c = arg;
	uint64_t h = kt_fnv1a(KT_FNV1A_INIT, t, n);
	struct qmemo *m;
	int q;

	for (int i = 0; i < QMEMO; i++) {
		m = &c->memo[i];
		if (m->text && m->h == h && m->n == n && !memcmp(m->text, t, n))
			return m->q;
	}
	q = kt_an_has_question(t, n);
	m = &c->memo[c->memo_next++ % QMEMO];
	m->text = t; /* in the arena: lives as long as the load */
	m->n = n;
	m->h = h;
	m->q = q;
	return q;
}

/* Fill v from the body of e. */
static int fill(struct loadctx *c, kt_an_ev *v, const kt_event *e)
{
	kt_an_run *r = c->r;
	struct pl p;
	int rc;

	if (e->kind == KT_KIND_TOOL_CALL) {
		/* no parse: tool calls can carry whole files as arguments */
		if (e->payload && (c->flags & KT_AN_LOAD_EVERY)) {
			const char *t = memmem(e->payload, e->payload_len,
					       "\"tool\":\"", 8);
			const char *q = t ? memchr(t + 8, '"', e->payload_len -
						   (size_t)(t + 8 - e->payload)) :
					    NULL;

			if (q && q - (t + 8) < 64 &&
			    !(v->text = arena_dup(r, t + 8, (size_t)(q - (t + 8)))))
				return KT_ENOMEM;
		}
		v->profiler = (unsigned char)kt_an_profiler_payload(e->payload,
								     e->payload_len);
		return 0;
	}
	switch (e->kind) {
	case KT_KIND_MESSAGE:
		rc = pl_open(c, e, msg_keys, 5, &p);
		break;
	case KT_KIND_QUESTION: case KT_KIND_NOTE:
		rc = pl_open(c, e, q_keys, 2, &p);
		break;
	case KT_KIND_EDIT:
		rc = pl_open(c, e, edit_keys, 3, &p);
		break;
	case KT_KIND_BENCH:
		rc = pl_open(c, e, bench_keys, 24, &p);
		break;
	default:
		return 0;
	}
	if (rc == -1)
		return 0; /* not an object: a bare event */
	if (rc)
		return rc;
	rc = KT_ENOMEM;
	if (e->kind == KT_KIND_MESSAGE) {
		const char *role = pl_str(&p, 0);
		size_t tl = 0;

		v->role = !role ? KT_AN_ROLE_OTHER :
			  !strcmp(role, "user") ? KT_AN_ROLE_USER :
			  !strcmp(role, "assistant") ? KT_AN_ROLE_ASSISTANT :
			  !strcmp(role, "system") ? KT_AN_ROLE_SYSTEM :
			  KT_AN_ROLE_OTHER;
		v->human = pl_type(&p, 1) == V_TRUE;
		v->meta = (unsigned char)pl_meta_flags(&p, 2);
		/* texts nobody reads stay in the store: tool output relayed as
		 * user messages, system prompts, meta lines */
		if ((c->flags & KT_AN_LOAD_EVERY) ||
		    (!v->meta && (v->human || (v->role != KT_AN_ROLE_USER &&
					       v->role != KT_AN_ROLE_SYSTEM)))) {
			int oom;

			v->text = pl_text(&p, 3, r, &tl, &oom);
			if (oom)
				goto out;
		}
		{
			kt_an_msg m = { v->text, tl, v->human, v->meta, 0 };
			kt_an_qstate st = { c->acted, v->call };

			if (v->human && !v->meta && v->text)
				m.input_source = pl_input_source(&p, 4);
			v->task = (unsigned char)kt_an_msg_task(r->format, &st,
								&m);
			/* kt_an_msg_question with the "holds a question"
			 * answer memoized, and without asking kt_an_msg_task
			 * a second time (its task-prompt rules fold the text) */
			if (!v->task && m.human && !m.meta && m.text) {
				if (has_question(c, m.text, m.len))
					v->qorigin = KT_AN_QO_HUMAN;
				else if (strlen(m.text) == m.len)
					v->memo |= KT_AN_MEMO_NOQ;
			}
		}
		if (!v->human && v->role == KT_AN_ROLE_ASSISTANT)
			c->acted = 1;
	} else if (e->kind == KT_KIND_QUESTION || e->kind == KT_KIND_NOTE) {
		const char *t = pl_str(&p, 0), *o;

		if (t && !(v->text = arena_dup(r, t, strlen(t))))
			goto out;
		o = pl_str(&p, 1);
		if (e->kind == KT_KIND_QUESTION)
			v->qorigin = !o || !strcmp(o, "human") ? KT_AN_QO_HUMAN :
				     !strcmp(o, "library") ? KT_AN_QO_LIBRARY :
				     KT_AN_QO_AGENT;
	} else if (e->kind == KT_KIND_EDIT) {
		const char *path = pl_str(&p, 0);
		kt_an_edit *ed;

		if (path && !(v->text = arena_dup(r, path, strlen(path))))
			goto out;
		if (grow((void **)&r->ed, &c->ecap, r->ned, sizeof(*r->ed), 64))
			goto out;
		ed = &r->ed[r->ned];
		hash_of(pl_str(&p, 1), ed->before, &ed->has_before);
		hash_of(pl_str(&p, 2), ed->after, &ed->has_after);
		v->edit = (long)r->ned++;
	} else {
		kt_an_meas *m;
		int cj = pl_type(&p, 0);
		const char *h = pl_str(&p, 1), *w = pl_str(&p, 2);

		/* the reference timed on its own is no attempt of the agent's
		 * (FORMAT.md section 14 "Reference timings") */
		if (pl_str(&p, 15) && !strcmp(pl_str(&p, 15), "reference")) {
			r->nref++;
			rc = 0;
			goto out;
		}
		if (grow((void **)&r->m, &c->mcap, r->nm, sizeof(*r->m), 64))
			goto out;
		m = &r->m[r->nm];
		memset(m, 0, sizeof(*m));
		m->ev = (size_t)(v - r->ev);
		m->time_ms = pl_num(&p, 3);
		m->speedup = pl_num(&p, 4);
		m->ref_ms = pl_num(&p, 5);
		m->min_ms = pl_num(&p, 6);
		m->max_ms = pl_num(&p, 7);
		m->n = (int)(pl_num(&p, 8) > 0 ? pl_num(&p, 8) : 0);
		m->correct = cj == V_TRUE ? 1 : cj == V_FALSE ? 0 : -1;
		const char *st = pl_str(&p, 15);

		if (!h)
			h = pl_str(&p, 9);
		m->hashed = h && *h;
		/* a declared candidate identifies the code as a hash does */
		const char *cd = pl_str(&p, 14);

		if (!h)
			h = cd;
		/* the lengths of the fixed buffers these once were */
		src_key(h, 71, m->hkey);
		/* and beside a hash tells apart the variants one script
		 * times (a table's rows): they are no repeats of one code */
		if (m->hashed && cd && *cd) {
			uint64_t ck[2];

			src_key(cd, 255, ck);
			m->hkey[0] = (m->hkey[0] ^ ck[0]) | 1;
			m->hkey[1] ^= ck[1];
		}
		m->sweep = -1;
		m->key = "";
		m->unparsed = st && !strcmp(st, "unparsed");
		/* FlashInfer RUNTIME_ERROR/TIMEOUT, KernelBench runtime_error
		 * (FORMAT.md section 14 "Failed to run") */
		m->failed = st && (!strcasecmp(st, "runtime_error") ||
				   !strcasecmp(st, "timeout"));
		m->graded = pl_type(&p, 16) == V_TRUE;
		m->reward = -1;
		m->flags = "";
		m->round = pl_type(&p, 17) == V_NUM;
		{
			const char *og = pl_str(&p, 19);

			m->idea_human = og && !strcmp(og, "human");
		}
		/* the grader's verdict: one result a run, read whole; a
		 * verifier's flags on any result (rare: read whole too) */
		if ((m->graded || pl_type(&p, 18) == V_OTHER) &&
		    (rc = graded_of(r, e, m)))
			goto out;
		if (!m->unparsed && pl_type(&p, 18) == V_OTHER &&
		    (rc = other_hw_of(r, e, m)))
			goto out;
		m->choice = "";
		m->also = "";
		if (m->unparsed)
			m->why_unparsed = "";
		{
			const char *why = m->unparsed ? pl_str(&p, 23) : NULL;

			if (why && *why && !(m->why_unparsed = arena_dup(r, why,
						strnlen(why, KT_AN_FIELD_MAX)))) {
				rc = KT_ENOMEM;
				goto out;
			}
		}
		{
			const char *ch = pl_str(&p, 21);

			if (ch && *ch && !(m->choice = arena_dup(r, ch,
								 strlen(ch)))) {
				rc = KT_ENOMEM;
				goto out;
			}
		}
		if (pl_type(&p, 22) == V_OTHER &&
		    (rc = alternatives_of(r, e, m)))
			goto out;
		m->suspect = flag_has(m->flags, "suspicious") ?
			     KT_AN_SUSPECT_FLAGGED :
			     m->time_ms > 0 && m->time_ms < 1e-3 &&
			     m->correct < 0 ? KT_AN_SUSPECT_TINY :
			     KT_AN_SUSPECT_NONE;
		rc = KT_ENOMEM;
		if (!(m->workload = intern(c, w, KT_AN_FIELD_MAX,
					   &c->last_work)) ||
		    !(m->scenario = intern(c, pl_str(&p, 10), KT_AN_FIELD_MAX,
					   &c->last_scen)) ||
		    !(m->metric = intern(c, pl_str(&p, 11), KT_AN_FIELD_MAX,
					 &c->last_metric)) ||
		    !(m->baseline = intern(c, pl_str(&p, 12), KT_AN_FIELD_MAX,
					   &c->last_base)) ||
		    !(m->source = intern(c, pl_str(&p, 13), KT_AN_FIELD_MAX,
					 &c->last_src)) ||
		    !(m->candidate = intern(c, pl_str(&p, 14), KT_AN_FIELD_MAX,
					    &c->last_cand)))
			goto out;
		{
			char sb[KT_AN_FIELD_MAX + 1];

			if (!(m->step = intern(c, pl_step(&p, 20, sb, sizeof(sb)),
					       KT_AN_FIELD_MAX, &c->last_step)))
				goto out;
		}
		v->meas = (long)r->nm++;
	}
	rc = 0;
out:
	cJSON_Delete(p.j);
	return rc;
}

static void ev_init(kt_an_ev *v, const kt_event *e)
{
	memset(v, 0, sizeof(*v));
	v->seq = e->seq;
	v->parent = e->parent;
	v->ts = e->ts_ns;
	v->kind = e->kind;
	v->meas = -1;
	v->edit = -1;
}

/* Header scan: tool call seqs; edits (their bodies are read when blame
 * needs them, kt_an_edits_fetch); with KT_AN_LOAD_EVERY every event. */
static int head_cb(const kt_event *e, void *arg)
{
	struct loadctx *c = arg;
	kt_an_run *r = c->r;

	if (e->kind == KT_KIND_TOOL_CALL) {
		if ((c->err = grow((void **)&r->tc, &c->tccap, r->ncalls,
				   sizeof(*r->tc), 1024)))
			return 1;
		r->tc[r->ncalls++] = e->seq;
	}
	if (c->flags & KT_AN_LOAD_EVERY) {
		if ((c->err = grow((void **)&r->ev, &c->cap, r->nev,
				   sizeof(*r->ev), 256)))
			return 1;
		ev_init(&r->ev[r->nev], e);
		r->ev[r->nev++].call = r->ncalls;
	} else if (e->kind == KT_KIND_EDIT) {
		if ((c->err = grow((void **)&c->eh, &c->ehcap, c->neh,
				   sizeof(*c->eh), 256)))
			return 1;
		c->eh[c->neh].seq = e->seq;
		c->eh[c->neh].parent = e->parent;
		c->eh[c->neh].ts = e->ts_ns;
		c->eh[c->neh++].call = r->ncalls;
	}
	return 0;
}

/* Move the edits read by the header scan with seq < `before` into r->ev. */
static int flush_edits(struct loadctx *c, uint64_t before)
{
	kt_an_run *r = c->r;

	while (c->ehpos < c->neh && c->eh[c->ehpos].seq < before) {
		const struct ehead *h = &c->eh[c->ehpos++];
		kt_an_ev *v;

		if (grow((void **)&r->ev, &c->cap, r->nev, sizeof(*r->ev), 256))
			return KT_ENOMEM;
		v = &r->ev[r->nev++];
		memset(v, 0, sizeof(*v));
		v->seq = h->seq;
		v->parent = h->parent;
		v->ts = h->ts;
		v->kind = KT_KIND_EDIT;
		v->call = h->call;
		v->meas = -1;
		v->edit = -1;
		v->lazy = 1;
	}
	return 0;
}

/* Body scan: the kinds the analyzers read. */
static int body_cb(const kt_event *e, void *arg)
{
	struct loadctx *c = arg;
	kt_an_run *r = c->r;
	kt_an_ev *v;

	if (c->flags & KT_AN_LOAD_EVERY) {
		while (c->pos < r->nev && r->ev[c->pos].seq < e->seq)
			c->pos++;
		/* appended after the header scan: not part of this load */
		if (c->pos == r->nev || r->ev[c->pos].seq != e->seq)
			return 0;
		v = &r->ev[c->pos];
	} else {
		if ((c->err = flush_edits(c, e->seq)) ||
		    (c->err = grow((void **)&r->ev, &c->cap, r->nev,
				   sizeof(*r->ev), 256)))
			return 1;
		v = &r->ev[r->nev++];
		ev_init(v, e);
		while (c->pos < r->ncalls && r->tc[c->pos] <= e->seq)
			c->pos++;
		v->call = (uint32_t)c->pos;
	}
	if ((c->err = fill(c, v, e)))
		return 1;
	return 0;
}

/* One scan of every kind read, where a header scan (tool calls, edits) and
 * a body scan (the kinds filled) read the run's header pages twice and,
 * with the chain check, which decodes and hashes every block whatever kinds
 * are asked, decoded the blocks of the body kinds twice too.  Tool calls
 * and edits are taken as head_cb takes them (edits stay lazy) and the body
 * kinds as body_cb fills them, all in seq order, so r ends as the two
 * scans leave it. */
static int one_cb(const kt_event *e, void *arg)
{
	struct loadctx *c = arg;
	kt_an_run *r = c->r;

	if (e->kind == KT_KIND_TOOL_CALL || e->kind == KT_KIND_EDIT) {
		if (head_cb(e, arg))
			return 1;
		if (e->kind == KT_KIND_EDIT || !(c->flags & KT_AN_LOAD_TOOLS))
			return 0;
	}
	/* the calls before e (and e itself when it is one): body_cb's count
	 * of r->tc up to e->seq */
	c->pos = r->ncalls;
	return body_cb(e, arg);
}

int kt_an_run_load_ex(kt_store *s, const char *run, unsigned flags,
		      kt_an_run **out)
{
	struct loadctx c = {0};
	kt_run_info info;
	kt_an_run *r;
	unsigned body = KT_KIND_BIT(KT_KIND_MESSAGE) |
			KT_KIND_BIT(KT_KIND_QUESTION) | KT_KIND_BIT(KT_KIND_NOTE) |
			KT_KIND_BIT(KT_KIND_BENCH);
	unsigned head = KT_KIND_BIT(KT_KIND_TOOL_CALL) |
			KT_KIND_BIT(KT_KIND_EDIT);
	int rc;

	*out = NULL;
	rc = kt_run_get(s, run, &info);
	if (rc)
		return rc;
	r = calloc(1, sizeof(*r));
	if (!r)
		return KT_ENOMEM;
	snprintf(r->id, sizeof(r->id), "%s", info.id);
	snprintf(r->format, sizeof(r->format), "%s",
		 info.format ? info.format : "");
	r->load = flags;
	r->name = strdup(info.name ? info.name : "");
	if (!r->name) {
		rc = KT_ENOMEM;
		goto out;
	}
	c.r = r;
	c.s = s;
	c.flags = flags;
	if (flags & KT_AN_LOAD_EVERY) {
		head = 0;
		body |= KT_KIND_BIT(KT_KIND_EDIT);
	}
	if (flags & KT_AN_LOAD_TOOLS)
		body |= KT_KIND_BIT(KT_KIND_TOOL_CALL);
	/* a series key needs the results and their parents, nothing else */
	if (flags & KT_AN_LOAD_MEAS)
		body = KT_KIND_BIT(KT_KIND_BENCH);
	if (!(flags & (KT_AN_LOAD_EVERY | KT_AN_LOAD_MEAS))) {
		/* room for every event the run has: pages never written are
		 * never touched (big_alloc), and a later append still grows */
		if (info.n_events < (1ull << 26)) {
			c.cap = c.mcap = (size_t)info.n_events + 1;
			if (!(r->ev = big_alloc(c.cap * sizeof(*r->ev), 0)) ||
			    !(r->m = big_alloc(c.mcap * sizeof(*r->m), 0))) {
				rc = KT_ENOMEM;
				goto out;
			}
		}
		rc = flags & KT_AN_LOAD_CHECK ?
		     kt_event_scan(s, r->id, 1, 0, head | body,
				   KT_READ_BODY | KT_READ_HASH, one_cb, &c) :
		     kt_event_scan_mixed(s, r->id, 1, 0, body, head & ~body,
					 one_cb, &c);
		goto scanned;
	}
	rc = flags & KT_AN_LOAD_MEAS ? 0 :
	     kt_event_scan(s, r->id, 1, 0, head, flags & KT_AN_LOAD_CHECK ?
			   KT_READ_HASH : KT_READ_HEAD, head_cb, &c);
	/* the events to come, at most: one allocation, no regrowth */
	if (!rc && !c.err && !(flags & (KT_AN_LOAD_EVERY | KT_AN_LOAD_MEAS)) &&
	    info.n_events >= r->ncalls + c.neh &&
	    info.n_events < (1ull << 26)) {
		size_t nb = (size_t)info.n_events - r->ncalls - c.neh + 1;

		c.cap = nb + c.neh;
		c.mcap = nb;
		/* not cleared: every element is written whole (ev_init,
		 * flush_edits, fill) before it counts */
		if (!(r->ev = big_alloc(c.cap * sizeof(*r->ev), 0)) ||
		    !(r->m = big_alloc(c.mcap * sizeof(*r->m), 0)))
			c.err = KT_ENOMEM;
	}
	if (!rc && !c.err) {
		c.pos = 0;
		rc = kt_event_scan(s, r->id, 1, 0, body, KT_READ_BODY, body_cb, &c);
	}
scanned:
	if (!rc && !c.err)
		c.err = flush_edits(&c, UINT64_MAX);
	if (c.err)
		rc = c.err;
	if (!rc)
		rc = kt_an_series_keys(r, KT_AN_BY_DEFAULT);
	if (rc)
		goto out;
	free(c.tmp);
	kt_an_big_free(c.eh);
	*out = r;
	return KT_OK;
out:
	free(c.tmp);
	kt_an_big_free(c.eh);
	kt_an_run_free(r);
	return rc;
}

struct fetchctx {
	struct loadctx c;
	const size_t *idx;
	size_t n, k;
};

static int fetch_cb(const kt_event *e, void *arg)
{
	struct fetchctx *f = arg;
	kt_an_ev *v;

	while (f->k < f->n && f->c.r->ev[f->idx[f->k]].seq < e->seq)
		f->k++;
	if (f->k == f->n)
		return 1; /* past the last one wanted */
	v = &f->c.r->ev[f->idx[f->k]];
	if (v->seq != e->seq || v->kind != KT_KIND_EDIT || !v->lazy)
		return 0;
	if ((f->c.err = fill(&f->c, v, e)))
		return 1;
	v->lazy = 0;
	return 0;
}

int kt_an_edits_fetch(kt_store *s, kt_an_run *r, const size_t *idx, size_t n)
{
	struct fetchctx f = {.idx = idx, .n = n};
	uint64_t first = 0, last = 0;
	int rc;

	for (size_t i = 0; i < n; i++)
		if (r->ev[idx[i]].kind == KT_KIND_EDIT && r->ev[idx[i]].lazy) {
			if (!first)
				first = r->ev[idx[i]].seq;
			last = r->ev[idx[i]].seq;
		}
	if (!first)
		return KT_OK;
	if (!s)
		return KT_EINVAL;
	f.c.r = r;
	f.c.s = s;
	f.c.flags = r->load;
	f.c.ecap = r->ned; /* grow() doubles from here: no spare room known */
	/* one masked scan over the edits' range: their block is decoded once,
	 * into the scan's own buffer (a point read per edit decoded it into
	 * a new cache entry each, a third of blame's own time on a long run) */
	rc = kt_event_scan(s, r->id, first, last, KT_KIND_BIT(KT_KIND_EDIT),
			   KT_READ_BODY, fetch_cb, &f);
	free(f.c.tmp);
	if (f.c.err)
		return f.c.err;
	return rc == 1 ? KT_OK : rc;
}

int kt_an_run_load(kt_store *s, const char *run, kt_an_run **out)
{
	return kt_an_run_load_ex(s, run, 0, out);
}

void kt_an_run_free(kt_an_run *r)
{
	if (!r)
		return;
	while (r->arena) {
		struct arena *a = r->arena;

		r->arena = a->next;
		kt_an_big_free(a);
	}
	kt_an_big_free(r->ev);
	kt_an_big_free(r->m);
	kt_an_big_free(r->ed);
	kt_an_big_free(r->tc);
	free(r->name);
	free(r);
}

long kt_an_run_find(const kt_an_run *r, uint64_t seq)
{
	size_t lo = kt_an_run_lower(r, seq);

	return lo < r->nev && r->ev[lo].seq == seq ? (long)lo : -1;
}

size_t kt_an_run_lower(const kt_an_run *r, uint64_t seq)
{
	size_t lo = 0, hi = r->nev;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->ev[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint32_t kt_an_calls_at(const kt_an_run *r, uint64_t seq)
{
	size_t lo = 0, hi = r->ncalls;

	if (!r->tc) {
		size_t k = kt_an_run_lower(r, seq);

		if (k < r->nev && r->ev[k].seq == seq)
			return r->ev[k].call;
		return k ? r->ev[k - 1].call : 0;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->tc[mid] <= seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (uint32_t)lo;
}
