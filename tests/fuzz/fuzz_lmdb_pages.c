/*
 * fuzz_lmdb_pages.c - libFuzzer target for the check of LMDB's own pages
 * (store/store_pages.c) and for what it promises: a file it passes does
 * not crash LMDB or verify.
 *
 * First input byte 0: the rest is a whole file, checked in memory (meta
 * pages, page size, garbage).  Otherwise the rest is patches to a small
 * valid store built at start-up (runs, events, blobs, a branch page, an
 * overflow run): 4-byte records, be24 offset (mod the file size) and the
 * new byte.  The patched file is checked in memory; when the check passes,
 * it is written out and opened with KT_OPEN_CHECK and verified, as
 * `ktraj verify` does, so LMDB reads it; then opened for writing, as
 * `ktraj append` does, and a run of one event written to it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../store/store_int.h"

static char dir[64], path[128];
static unsigned char *base, *work;
static size_t nbase;

static void cleanup(void)
{
	char p[160];

	unlink(path);
	snprintf(p, sizeof(p), "%s-lock", path);
	unlink(p);
	rmdir(dir);
}

static int build(void)
{
	static const char run[] = "00112233445566778899aabbccddeeff";
	unsigned char h[KT_HASH_LEN], big[6000];
	char hx[KT_HASH_HEX + 1], pl[300];
	uint32_t x = 7;
	kt_store *s;
	kt_event ev;
	FILE *f;

	snprintf(dir, sizeof(dir), "/tmp/ktfuzzpg.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/f.ktraj", dir);
	atexit(cleanup);
	if (kt_store_open(path, KT_OPEN_CREATE, &s) || kt_store_begin(s) ||
	    kt_run_create(s, run, "fuzz", "test", NULL))
		return -1;
	for (size_t i = 0; i < sizeof(big); i++) {
		x = x * 1103515245u + 12345u;
		big[i] = (unsigned char)(x >> 16);
	}
	if (kt_blob_put(s, big, sizeof(big), "big.bin", h))
		return -1;
	for (int i = 0; i < 120; i++) {
		char body[48];
		int n = snprintf(body, sizeof(body), "fuzz blob %d\n", i);

		if (kt_blob_put(s, body, (size_t)n, NULL, h))
			return -1;
		kt_hex(h, KT_HASH_LEN, hx);
		memset(&ev, 0, sizeof(ev));
		ev.seq = (uint64_t)i + 1;
		ev.ts_ns = KT_TS_UNKNOWN;
		ev.kind = KT_KIND_EDIT;
		ev.actor = "agent";
		snprintf(pl, sizeof(pl), "{\"path\":\"f%d.cu\",\"op\":\"create\","
			 "\"before\":null,\"after\":\"%s\",\"tool\":\"Write\"}",
			 i % 5, hx);
		ev.payload = pl;
		if (kt_event_append(s, run, &ev))
			return -1;
	}
	if (kt_store_commit(s) || kt_store_close(s))
		return -1;
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (long)(nbase = (size_t)ftell(f)) <= 0)
		return -1;
	base = malloc(nbase);
	work = malloc(nbase);
	rewind(f);
	if (!base || !work || fread(base, 1, nbase, f) != nbase)
		return -1;
	fclose(f);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	char why[200];
	uint64_t tx;
	int rc;

	if (!ready) {
		if (build())
			abort();
		ready = 1;
	}
	if (size < 1)
		return 0;
	if (data[0] == 0) {
		struct kt_pgsrc src = { -1, data + 1, size - 1 };

		kt_pages_check_src(&src, KT_PAGES_NEWEST, 0, &tx, why,
				   sizeof(why));
		return 0;
	}
	memcpy(work, base, nbase);
	for (size_t i = 1; i + 4 <= size; i += 4) {
		size_t off = ((size_t)data[i] << 16 | (size_t)data[i + 1] << 8 |
			      data[i + 2]) % nbase;

		work[off] = data[i + 3];
	}
	{
		struct kt_pgsrc src = { -1, work, nbase };

		rc = kt_pages_check_src(&src, KT_PAGES_NEWEST, 0, &tx, why,
					sizeof(why));
	}
	if (rc == 0) {
		FILE *f = fopen(path, "wb");
		kt_store *s;
		const char *br;
		uint64_t bs;

		if (!f || fwrite(work, 1, nbase, f) != nbase || fclose(f))
			abort();
		if (kt_store_open(path, KT_OPEN_RDONLY | KT_OPEN_CHECK, &s) == 0) {
			if (kt_store_verify(s, NULL, &br, &bs) == 0)
				kt_store_verify_blobrefs(s, NULL, &br, &bs);
			kt_store_close(s);
		}
		if (kt_store_open(path, KT_OPEN_CREATE | KT_OPEN_BULK |
				  KT_OPEN_CHECK, &s) == 0) {
			static const char run[] =
				"ffeeddccbbaa99887766554433221100";
			kt_event ev;

			memset(&ev, 0, sizeof(ev));
			ev.seq = 1;
			ev.ts_ns = KT_TS_UNKNOWN;
			ev.kind = KT_KIND_NOTE;
			ev.actor = "harness";
			ev.payload = "{\"text\":\"written by the fuzzer\"}";
			if (kt_store_begin(s) == 0) {
				if (kt_run_create(s, run, "w", "test", NULL) ||
				    kt_event_append(s, run, &ev))
					kt_store_abort(s);
				else
					kt_store_commit(s);
			}
			kt_store_close(s);
		}
	}
	return 0;
}
