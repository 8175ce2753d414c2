/*
 * kt_bench.c - store benchmark driver (tests/bench/run.sh runs it).
 *
 *   kt_bench import STORE FILE   ktraj JSONL -> store through the C API
 *                                (the `ktraj append` line parser, payloads
 *                                printed once by cJSON, KT_EV_CANONICAL,
 *                                10000 events per transaction, bulk mode)
 *   kt_bench read STORE N HOW [cold]
 *                                N point reads (kt_event_read) of uniformly
 *                                random seqs of the largest run; HOW is head,
 *                                body or bodyhash (KT_READ_HEAD, BODY,
 *                                BODY|HASH); "cold" turns the block cache off
 *                                (every BODY read decompresses its block);
 *                                prints the cache hit rate; the cache size
 *                                is the store's default unless
 *                                KT_BENCH_CACHE_MB is set
 *   kt_bench scan STORE HOW      kt_event_scan of every run with HOW
 *
 * Each prints one line "name=value ..." with wall and CPU seconds; the CPU
 * figure is the fair one on a shared machine where one thread does the
 * work.  A BODY scan also runs helper threads when the process may use more
 * than one CPU; its rate is then the wall-clock one (events_per_s_wall).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "../../store/store.h"
#include "../../import/ktraj_jsonl.h"

static double now(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int die(const char *what, kt_store *s, int rc)
{
	fprintf(stderr, "kt_bench: %s: %s (%s)\n", what, kt_strerror(rc),
		s ? kt_store_errmsg(s) : "");
	exit(1);
}

static int do_import(const char *store, const char *file)
{
	int fd = open(file, O_RDONLY), rc;
	struct stat st;
	const char *p, *end, *nl;
	kt_store *s;
	char run[KT_RUN_ID_HEX + 1], err[200];
	uint64_t seq = 0, blobs = 0, lines = 0;
	double w0, c0, w, c, in_store = 0, t;

	if (fd < 0 || fstat(fd, &st) != 0) {
		perror(file);
		return 1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	end = p + st.st_size;
	w0 = now(CLOCK_MONOTONIC);
	c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	rc = kt_store_open(store, KT_OPEN_CREATE | KT_OPEN_BULK, &s);
	if (rc)
		die("open", NULL, rc);
	kt_run_id_from_identity("bench:gen", run);
	if ((rc = kt_store_begin(s)) ||
	    (rc = kt_run_create(s, run, "bench", "bench", NULL)))
		die("create run", s, rc);
	for (; p < end; p = nl + 1) {
		kt_jsonl_rec r;
		kt_event ev;
		char *pl, *prov = NULL;
		unsigned char h[KT_HASH_LEN];

		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (nl == p)
			continue;
		lines++;
		rc = kt_jsonl_parse(p, (size_t)(nl - p), &r, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "line %llu: %s\n",
				(unsigned long long)lines, err);
			return 1;
		}
		if (r.is_blob) {
			t = now(CLOCK_PROCESS_CPUTIME_ID);
			rc = kt_blob_put(s, r.data, r.len, r.path, h);
			in_store += now(CLOCK_PROCESS_CPUTIME_ID) - t;
			if (rc)
				die("blob", s, rc);
			blobs++;
			kt_jsonl_release(&r);
			continue;
		}
		memset(&ev, 0, sizeof(ev));
		ev.seq = ++seq;
		ev.parent = r.parent;
		ev.ts_ns = r.has_ts ? r.ts_ns : KT_TS_UNKNOWN;
		ev.kind = r.kind;
		ev.actor = r.actor ? r.actor : "agent";
		pl = cJSON_PrintUnformatted(r.payload);
		if (r.prov)
			prov = cJSON_PrintUnformatted(r.prov);
		ev.payload = pl;
		ev.prov_json = prov;
		ev.flags = KT_EV_CANONICAL;
		t = now(CLOCK_PROCESS_CPUTIME_ID);
		rc = kt_event_append(s, run, &ev);
		in_store += now(CLOCK_PROCESS_CPUTIME_ID) - t;
		if (rc)
			die("append", s, rc);
		free(pl);
		free(prov);
		kt_jsonl_release(&r);
		if (seq % 10000 == 0) {
			t = now(CLOCK_PROCESS_CPUTIME_ID);
			if ((rc = kt_store_commit(s)) || (rc = kt_store_begin(s)))
				die("commit", s, rc);
			in_store += now(CLOCK_PROCESS_CPUTIME_ID) - t;
		}
	}
	t = now(CLOCK_PROCESS_CPUTIME_ID);
	if ((rc = kt_store_commit(s)))
		die("commit", s, rc);
	if ((rc = kt_store_close(s)))
		die("close", NULL, rc);
	in_store += now(CLOCK_PROCESS_CPUTIME_ID) - t;
	w = now(CLOCK_MONOTONIC) - w0;
	c = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
	/* store_cpu_s: inside kt_blob_put/kt_event_append/commit/close; the
	 * rest is reading and parsing the JSONL (the importer's share) */
	printf("import bytes=%lld events=%llu blobs=%llu wall_s=%.3f cpu_s=%.3f "
	       "mb_per_s_cpu=%.1f events_per_s_cpu=%.0f store_cpu_s=%.3f "
	       "store_mb_per_s_cpu=%.1f\n",
	       (long long)st.st_size, (unsigned long long)seq,
	       (unsigned long long)blobs, w, c, (double)st.st_size / c / 1e6,
	       (double)seq / c, in_store, (double)st.st_size / in_store / 1e6);
	return 0;
}

static int first_run(const kt_run_info *ri, void *arg)
{
	kt_run_info *out = arg;

	if (ri->n_events > out->n_events) {
		memcpy(out->id, ri->id, sizeof(out->id));
		out->n_events = ri->n_events;
	}
	return 0;
}

static unsigned how;
static int cold;

static unsigned parse_how(const char *h)
{
	if (strcmp(h, "head") == 0)
		return KT_READ_HEAD;
	if (strcmp(h, "body") == 0)
		return KT_READ_BODY;
	if (strcmp(h, "bodyhash") == 0)
		return KT_READ_BODY | KT_READ_HASH;
	fprintf(stderr, "kt_bench: HOW is head, body or bodyhash\n");
	exit(2);
}

static int do_read(const char *store, long n)
{
	kt_store *s;
	kt_run_info best;
	uint64_t x = 0x2545f4914f6cdd1dull, bytes = 0;
	double w0, c0, w, c;
	int rc;

	rc = kt_store_open(store, KT_OPEN_RDONLY, &s);
	if (rc)
		die("open", NULL, rc);
	memset(&best, 0, sizeof(best));
	kt_run_foreach(s, first_run, &best);
	if (!best.n_events)
		die("no events", s, KT_ENOTFOUND);
	if (cold)
		kt_store_set_cache(s, 0);
	else if (getenv("KT_BENCH_CACHE_MB"))
		kt_store_set_cache(s, (size_t)atol(getenv("KT_BENCH_CACHE_MB"))
				   << 20);
	w0 = now(CLOCK_MONOTONIC);
	c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	for (long i = 0; i < n; i++) {
		kt_event ev;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		rc = kt_event_read(s, best.id, 1 + x % best.n_events, how,
				   &ev);
		if (rc)
			die("get", s, rc);
		bytes += ev.payload_len;
	}
	w = now(CLOCK_MONOTONIC) - w0;
	c = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
	{
		uint64_t hits, miss;

		kt_store_cache_stats(s, &hits, &miss);
		printf("read n=%ld wall_s=%.3f cpu_s=%.3f reads_per_s_cpu=%.0f "
		       "payload_mb=%.1f cache_hit=%.3f\n", n, w, c,
		       (double)n / c, (double)bytes / 1e6,
		       hits + miss ? (double)hits / (double)(hits + miss) : 0);
	}
	kt_store_close(s);
	return 0;
}

struct scan { uint64_t n, bytes; kt_store *s; };

static int scan_ev(const kt_event *ev, void *arg)
{
	struct scan *sc = arg;

	sc->n++;
	sc->bytes += ev->payload_len;
	return 0;
}

static int scan_run(const kt_run_info *ri, void *arg)
{
	struct scan *sc = arg;
	char id[KT_RUN_ID_HEX + 1];

	memcpy(id, ri->id, sizeof(id));
	return kt_event_scan(sc->s, id, 0, 0, 0, how, scan_ev, sc);
}

static int do_scan(const char *store)
{
	struct scan sc = { 0 };
	double w0, c0, w, c;
	int rc;

	rc = kt_store_open(store, KT_OPEN_RDONLY, &sc.s);
	if (rc)
		die("open", NULL, rc);
	w0 = now(CLOCK_MONOTONIC);
	c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	rc = kt_run_foreach(sc.s, scan_run, &sc);
	if (rc)
		die("scan", sc.s, rc);
	w = now(CLOCK_MONOTONIC) - w0;
	c = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
	/* cpu is of every thread: a scan decodes ahead on helper threads
	 * when the process may use more than one CPU (store.h
	 * kt_store_set_scan_threads), so its rate is wall-clock */
	printf("scan events=%llu wall_s=%.3f cpu_s=%.3f events_per_s_wall=%.0f "
	       "events_per_s_cpu=%.0f payload_mb_per_s=%.0f\n",
	       (unsigned long long)sc.n, w, c, (double)sc.n / w,
	       (double)sc.n / c, (double)sc.bytes / w / 1e6);
	kt_store_close(sc.s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "import") == 0)
		return do_import(argv[2], argv[3]);
	if ((argc == 5 || argc == 6) && strcmp(argv[1], "read") == 0) {
		how = parse_how(argv[4]);
		cold = argc == 6 && strcmp(argv[5], "cold") == 0;
		return do_read(argv[2], atol(argv[3]));
	}
	if (argc == 4 && strcmp(argv[1], "scan") == 0) {
		how = parse_how(argv[3]);
		return do_scan(argv[2]);
	}
	fprintf(stderr, "usage: kt_bench import STORE FILE | read STORE N HOW "
		"[cold] | scan STORE HOW  (HOW: head, body, bodyhash)\n");
	return 2;
}
