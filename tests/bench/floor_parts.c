/* tests/bench/floor_parts.c - the Claude Code import's floor, part by part
 * (issue 21; tests/bench/RESULTS.md "the Claude Code import's floor,
 * measured part by part").
 *
 * Times, each alone on one thread (CPU seconds, least of ROUNDS), the work
 * an import of SESSION cannot skip, on the very bytes the import handles:
 *   - SHA-256 (nettle, as base/base.c) over the message sizes one import
 *     hashed, replayed purpose by purpose from DUMP/sha.bin;
 *   - zstd over the frames one import compressed, from DUMP/zf.*: event
 *     blocks with the trained dictionary (level 3), blobs against their
 *     previous version (level 1, refPrefix) or alone (level 3), the stored
 *     dictionary, the dictionary's training, its CDict;
 *   - built with -DFLOOR_JSON=N instead: JSON parsing of every line of
 *     SESSION, to a tree and freed again, with one C parser (cJSON,
 *     json-c, jansson, yajl, json-parser, or jsmn, which only tokenizes);
 *     simdjson is tests/bench/floor_simdjson.cc.
 * DUMP comes from a throwaway instrumented build (counters in kt_sha_* and
 * the store's zstd calls; RESULTS.md says what it records); without DUMP
 * ("-") only the parsers and the two hashes over the session's own bytes
 * (whole file, every line) run.
 *
 * Build (Debian 12 nettle-dev libzstd-dev; the parsers' -dev packages for
 * the JSON builds; tests/bench/floor_parts.sh builds each and skips a
 * parser whose header is absent):
 *   cc -O2 -o floor_parts tests/bench/floor_parts.c -lnettle -lzstd
 *   cc -O2 -DFLOOR_JSON=1 -o floor_cjson tests/bench/floor_parts.c -lcjson \
 *      -lnettle -lzstd
 * Usage: floor_parts DUMP|- SESSION [ROUNDS]
 * Prints one line per part: "part what calls MB s MB/s".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nettle/sha2.h>
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#define ZDICT_STATIC_LINKING_ONLY
#include <zdict.h>

/* FLOOR_JSON picks the one parser of this build (1 cJSON, 2 json-c,
 * 3 jansson, 4 yajl, 5 json-parser, 6 jsmn): their headers cannot share a
 * translation unit (json-c's json_object type is jansson's function and
 * json-parser's enum value) */
#if FLOOR_JSON == 1
#include <cjson/cJSON.h>
#define HAVE_CJSON 1
#elif FLOOR_JSON == 2
#include <json-c/json.h>
#define HAVE_JSONC 1
#elif FLOOR_JSON == 3
#include <jansson.h>
#define HAVE_JANSSON 1
#elif FLOOR_JSON == 4
#include <yajl/yajl_tree.h>
#define HAVE_YAJL 1
#elif FLOOR_JSON == 5
#include <json-parser/json.h>
#define HAVE_JSONPARSER 1
#elif FLOOR_JSON == 6
#include <jsmn.h>
#define HAVE_JSMN 1
#endif

static int rounds = 5;

static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *slurp(const char *dir, const char *name, size_t *n)
{
	char p[4096];
	FILE *f;
	void *b = NULL;
	long len;

	*n = 0;
	if (dir)
		snprintf(p, sizeof(p), "%s/%s", dir, name);
	else
		snprintf(p, sizeof(p), "%s", name);
	if (!(f = fopen(p, "rb")))
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (b = malloc((size_t)len + 64))) {
		if (fread(b, 1, (size_t)len, f) != (size_t)len) {
			free(b);
			b = NULL;
		} else {
			memset((char *)b + len, 0, 64);
			*n = (size_t)len;
		}
	}
	fclose(f);
	return b;
}

static void row(const char *part, const char *what, uint64_t calls,
		uint64_t bytes, double s)
{
	printf("%-6s %-34s %9llu %9.1f %7.3f %8.0f\n", part, what,
	       (unsigned long long)calls, (double)bytes / 1e6, s,
	       s > 0 ? (double)bytes / 1e6 / s : 0.0);
	fflush(stdout);
}

/* ---- SHA-256 ------------------------------------------------------------- */
struct sharec {
	uint32_t site, add;
	uint64_t len;
};

/* Hashes the site's messages over bytes taken in turn from the session (the
 * content does not change SHA-256's cost; the sizes do). */
static double sha_site(const struct sharec *r, size_t nr, uint32_t site,
		       const unsigned char *src, size_t srcn, uint64_t *calls,
		       uint64_t *bytes)
{
	double best = 1e9;

	for (int k = 0; k < rounds; k++) {
		struct sha256_ctx c;
		unsigned char h[SHA256_DIGEST_SIZE], acc = 0;
		size_t off = 0;
		int streaming = 0;
		double t0 = cpu_now();

		*calls = *bytes = 0;
		for (size_t i = 0; i < nr; i++) {
			size_t n = r[i].len;

			if (r[i].site != site)
				continue;
			if (off + n > srcn)
				off = 0;
			if (n > srcn)
				n = srcn;
			if (r[i].add) {
				/* one message over all of the site's pieces */
				if (!streaming)
					sha256_init(&c);
				streaming = 1;
				sha256_update(&c, n, src + off);
			} else {
				sha256_init(&c);
				sha256_update(&c, n, src + off);
				sha256_digest(&c, sizeof(h), h);
				acc ^= h[0];
			}
			off += n;
			(*calls)++;
			*bytes += n;
		}
		if (streaming) {
			sha256_digest(&c, sizeof(h), h);
			acc ^= h[0];
		}
		double t = cpu_now() - t0;
		if (acc == 0x5a)
			t += 1e-12; /* keeps the digests live */
		if (t < best)
			best = t;
	}
	return best;
}

static void sha_part(const char *dump, const unsigned char *src, size_t srcn,
		     const size_t *lines, size_t nlines)
{
	size_t n = 0;
	struct sharec *r = dump ? slurp(dump, "sha.bin", &n) : NULL;
	uint64_t calls = 0, bytes = 0, tc = 0, tb = 0;
	double total = 0;

	if (r) {
		size_t nr = n / sizeof(*r);
		uint32_t maxs = 0;
		char *names = slurp(dump, "sha.sites", &n);

		for (size_t i = 0; i < nr; i++)
			if (r[i].site > maxs)
				maxs = r[i].site;
		for (uint32_t s = 0; s <= maxs; s++) {
			char what[64] = "", *p;
			double t = sha_site(r, nr, s, src, srcn, &calls, &bytes);

			if (!calls)
				continue;
			snprintf(what, sizeof(what), "site %u", s);
			/* sha.sites: "INDEX NAME" a line */
			for (p = names; p && *p;) {
				unsigned idx;
				int used;
				char nm[48];

				if (sscanf(p, "%u %47s%n", &idx, nm, &used) == 2 &&
				    idx == s)
					snprintf(what, sizeof(what), "%s", nm);
				p = strchr(p, '\n');
				p = p ? p + 1 : NULL;
			}
			row("sha", what, calls, bytes, t);
			tc += calls;
			tb += bytes;
			total += t;
		}
		row("sha", "TOTAL", tc, tb, total);
		free(names);
		free(r);
		return;
	}
	/* no dump: the two hashes over the session's own bytes */
	{
		double best = 1e9, bl = 1e9;

		for (int k = 0; k < rounds; k++) {
			struct sha256_ctx c;
			unsigned char h[SHA256_DIGEST_SIZE];
			double t0 = cpu_now();

			sha256_init(&c);
			sha256_update(&c, srcn, src);
			sha256_digest(&c, sizeof(h), h);
			double t1 = cpu_now();
			for (size_t i = 0; i < nlines; i++) {
				sha256_init(&c);
				sha256_update(&c, lines[2 * i + 1],
					      src + lines[2 * i]);
				sha256_digest(&c, sizeof(h), h);
			}
			double t2 = cpu_now();
			if (t1 - t0 < best)
				best = t1 - t0;
			if (t2 - t1 < bl)
				bl = t2 - t1;
		}
		row("sha", "source_file", 1, srcn, best);
		row("sha", "each_line", nlines, srcn - nlines, bl);
	}
}

/* ---- zstd ---------------------------------------------------------------- */
struct zrec {
	uint32_t kind, level, dict, wlog;
	uint64_t n, refn, out, pad0, pad1;
};

static const char *const zkind[] = {
	"", "event_blocks+dict(l3)", "event_blocks_plain(l3)",
	"blobs_alone(l3)", "blobs_vs_previous(l1,prefix)",
	"stored_dictionary(l3)", "dictionary_training(fastCover)",
};

static void zstd_part(const char *dump)
{
	size_t ni, ns, nrf, nlen;
	struct zrec *ix = slurp(dump, "zf.idx", &ni);
	unsigned char *src = slurp(dump, "zf.src", &ns);
	unsigned char *ref = slurp(dump, "zf.ref", &nrf);
	size_t *slen = slurp(dump, "samples.len", &nlen);
	const unsigned char *dict = NULL;
	size_t dictn = 0, nr, cap = 0;
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	ZSTD_CDict *cd = NULL;
	void *dst = NULL;
	double total = 0;
	uint64_t tc = 0, tb = 0;

	if (!ix || !src || !cc) {
		fprintf(stderr, "floor_parts: %s: no zf.idx/zf.src\n", dump);
		exit(1);
	}
	nr = ni / sizeof(*ix);
	/* the trained dictionary is kind 6's "ref" */
	{
		size_t so = 0, ro = 0;

		for (size_t i = 0; i < nr; i++) {
			if (ix[i].kind == 6 && ix[i].refn) {
				dict = ref + ro;
				dictn = ix[i].refn;
			}
			if (ix[i].n > cap)
				cap = ix[i].n;
			so += ix[i].n;
			ro += ix[i].refn;
		}
		if (so != ns || ro != nrf) {
			fprintf(stderr, "floor_parts: %s: index and data differ\n",
				dump);
			exit(1);
		}
	}
	cap = ZSTD_compressBound(cap);
	dst = malloc(cap);
	if (dict) {
		double best = 1e9;

		for (int k = 0; k < rounds; k++) {
			double t0 = cpu_now();
			ZSTD_CDict *c = ZSTD_createCDict(dict, dictn, 3);
			double t = cpu_now() - t0;

			if (t < best)
				best = t;
			if (cd)
				ZSTD_freeCDict(cd);
			cd = c;
		}
		row("zstd", "dictionary_cdict", 1, dictn, best);
		total += best;
	}
	for (uint32_t kind = 1; kind <= 6; kind++) {
		double best = 1e9;
		uint64_t calls = 0, bytes = 0, out = 0, want = 0;

		for (int k = 0; k < rounds; k++) {
			size_t so = 0, ro = 0;
			double t0 = cpu_now();

			calls = bytes = out = want = 0;
			for (size_t i = 0; i < nr; i++) {
				const struct zrec *z = &ix[i];
				const unsigned char *s = src + so, *rf = ref + ro;
				size_t r = 0;

				so += z->n;
				ro += z->refn;
				if (z->kind != kind)
					continue;
				ZSTD_CCtx_reset(cc, ZSTD_reset_session_and_parameters);
				switch (kind) {
				case 1:
					r = ZSTD_compress_usingCDict(cc, dst, cap, s,
								     z->n, cd);
					break;
				case 2: case 3:
					ZSTD_CCtx_setParameter(cc,
						ZSTD_c_compressionLevel, (int)z->level);
					r = ZSTD_compress2(cc, dst, cap, s, z->n);
					break;
				case 4:
					ZSTD_CCtx_setParameter(cc,
						ZSTD_c_compressionLevel, (int)z->level);
					ZSTD_CCtx_setParameter(cc, ZSTD_c_windowLog,
							       (int)z->wlog);
					ZSTD_CCtx_refPrefix(cc, rf, z->refn);
					r = ZSTD_compress2(cc, dst, cap, s, z->n);
					break;
				case 5:
					r = ZSTD_compressCCtx(cc, dst, cap, s, z->n,
							      (int)z->level);
					break;
				case 6: {
					ZDICT_fastCover_params_t fp;
					void *d = malloc(z->out);

					/* store/store_codec.c dict_train's */
					memset(&fp, 0, sizeof(fp));
					fp.k = 200;
					fp.d = 8;
					fp.f = 18;
					fp.accel = 10;
					fp.zParams.compressionLevel = (int)z->level;
					fp.zParams.dictID = z->dict;
					r = slen && d ?
					    ZDICT_trainFromBuffer_fastCover(d,
						z->out, s, slen, z->wlog, fp) : 0;
					if (ZDICT_isError(r))
						r = 0;
					free(d);
					break;
				}
				}
				if (ZSTD_isError(r))
					r = 0;
				calls++;
				bytes += z->n;
				out += r;
				want += kind == 6 ? z->refn : z->out;
			}
			double t = cpu_now() - t0;
			if (t < best)
				best = t;
		}
		if (!calls)
			continue;
		row("zstd", zkind[kind], calls, bytes, best);
		if (out != want)
			printf("zstd   # %s: %llu bytes out, the import made %llu\n",
			       zkind[kind], (unsigned long long)out,
			       (unsigned long long)want);
		tc += calls;
		tb += bytes;
		total += best;
	}
	row("zstd", "TOTAL", tc, tb, total);
	ZSTD_freeCDict(cd);
	ZSTD_freeCCtx(cc);
	free(dst);
	free(ix);
	free(src);
	free(ref);
	free(slen);
}

/* ---- JSON ---------------------------------------------------------------- */
/* lines[2i] offset, lines[2i+1] length; each line ends in a NUL in buf */
typedef int (*parse_fn)(char *p, size_t n);

#ifdef HAVE_CJSON
static int p_cjson(char *p, size_t n)
{
	cJSON *o = cJSON_ParseWithLength(p, n);

	cJSON_Delete(o);
	return o != NULL;
}

/* parse and print back unformatted: the print's cost is this row less the
 * parse's (the canonical event bytes are printed by cJSON, FORMAT.md §3) */
static int p_cjson_print(char *p, size_t n)
{
	cJSON *o = cJSON_ParseWithLength(p, n);
	char *t = o ? cJSON_PrintUnformatted(o) : NULL;

	cJSON_Delete(o);
	free(t);
	return t != NULL;
}
#endif
#ifdef HAVE_JSONC
static struct json_tokener *jtok;
static int p_jsonc(char *p, size_t n)
{
	json_object *o;

	json_tokener_reset(jtok);
	o = json_tokener_parse_ex(jtok, p, (int)n);
	json_object_put(o);
	return o != NULL;
}
#endif
#ifdef HAVE_JANSSON
static int p_jansson(char *p, size_t n)
{
	json_error_t e;
	json_t *o = json_loadb(p, n, 0, &e);

	json_decref(o);
	return o != NULL;
}
#endif
#ifdef HAVE_YAJL
static int p_yajl(char *p, size_t n)
{
	yajl_val v = yajl_tree_parse(p, NULL, 0);

	(void)n;
	yajl_tree_free(v);
	return v != NULL;
}
#endif
#ifdef HAVE_JSONPARSER
static int p_jsonparser(char *p, size_t n)
{
	json_value *v = json_parse(p, n);

	json_value_free(v);
	return v != NULL;
}
#endif
#ifdef HAVE_JSMN
static jsmntok_t *jt;
static unsigned jtn;
static int p_jsmn(char *p, size_t n)
{
	jsmn_parser jp;
	int r;

	for (;;) {
		jsmn_init(&jp);
		r = jsmn_parse(&jp, p, n, jt, jtn);
		if (r != JSMN_ERROR_NOMEM)
			break;
		jtn = jtn ? 2 * jtn : 4096;
		jt = realloc(jt, jtn * sizeof(*jt));
		if (!jt)
			return 0;
	}
	return r > 0;
}
#endif

static __attribute__((unused)) void json_one(const char *name, parse_fn f,
					     char *buf,
		     const size_t *lines, size_t nlines, uint64_t bytes)
{
	double best = 1e9;
	size_t ok = 0;

	for (int k = 0; k < rounds; k++) {
		double t0 = cpu_now();

		ok = 0;
		for (size_t i = 0; i < nlines; i++)
			ok += (size_t)f(buf + lines[2 * i], lines[2 * i + 1]);
		double t = cpu_now() - t0;
		if (t < best)
			best = t;
	}
	row("json", name, nlines, bytes, best);
	if (ok != nlines)
		printf("json   # %s: %zu of %zu lines parsed\n", name, ok, nlines);
}

static void json_part(char *buf, const size_t *lines, size_t nlines,
		      uint64_t bytes)
{
#ifdef HAVE_CJSON
	json_one("cJSON", p_cjson, buf, lines, nlines, bytes);
	json_one("cJSON_parse+print(not_a_parser)", p_cjson_print, buf, lines,
		 nlines, bytes);
#endif
#ifdef HAVE_JSONC
	jtok = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH);
	json_one("json-c", p_jsonc, buf, lines, nlines, bytes);
	json_tokener_free(jtok);
#endif
#ifdef HAVE_JANSSON
	json_one("jansson", p_jansson, buf, lines, nlines, bytes);
#endif
#ifdef HAVE_YAJL
	json_one("yajl", p_yajl, buf, lines, nlines, bytes);
#endif
#ifdef HAVE_JSONPARSER
	json_one("json-parser", p_jsonparser, buf, lines, nlines, bytes);
#endif
#ifdef HAVE_JSMN
	json_one("jsmn(tokens_only)", p_jsmn, buf, lines, nlines, bytes);
	free(jt);
#endif
	(void)buf;
	(void)lines;
	(void)nlines;
	(void)bytes;
}

int main(int argc, char **argv)
{
	const char *dump;
	unsigned char *raw;
	char *buf;
	size_t n, nlines = 0, *lines, cap = 1024;
	uint64_t jbytes = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: floor_parts DUMP|- SESSION [ROUNDS]\n");
		return 2;
	}
	dump = strcmp(argv[1], "-") ? argv[1] : NULL;
	if (argc > 3)
		rounds = atoi(argv[3]) > 0 ? atoi(argv[3]) : 1;
	if (!(raw = slurp(NULL, argv[2], &n))) {
		fprintf(stderr, "floor_parts: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	/* the lines, each NUL-terminated in a copy (yajl wants C strings) */
	buf = malloc(n + 64);
	lines = malloc(2 * cap * sizeof(*lines));
	if (!buf || !lines)
		return 1;
	memcpy(buf, raw, n + 64);
	for (size_t o = 0; o < n;) {
		char *e = memchr(buf + o, '\n', n - o);
		size_t l = e ? (size_t)(e - buf) - o : n - o;

		if (nlines == cap) {
			cap *= 2;
			lines = realloc(lines, 2 * cap * sizeof(*lines));
			if (!lines)
				return 1;
		}
		if (l) {
			lines[2 * nlines] = o;
			lines[2 * nlines + 1] = l;
			nlines++;
			jbytes += l;
		}
		if (e)
			*e = 0;
		o += l + 1;
	}
	printf("# floor_parts: %s, %zu bytes, %zu lines, least of %d rounds, "
	       "CPU seconds of this thread\n", argv[2], n, nlines, rounds);
	printf("%-6s %-34s %9s %9s %7s %8s\n", "part", "what", "calls", "MB",
	       "s", "MB/s");
#ifdef FLOOR_JSON
	(void)dump;
	(void)sha_part;
	(void)zstd_part;
	json_part(buf, lines, nlines, jbytes);
#else
	(void)json_part;
	sha_part(dump, raw, n, lines, nlines);
	if (dump)
		zstd_part(dump);
#endif
	free(lines);
	free(buf);
	free(raw);
	return 0;
}
