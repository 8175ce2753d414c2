/*
 * fuzz_store_value.c - libFuzzer target for the stored-value decoders: the
 * event block (header, varint rows, raw or zstd frame, dictionary id, body
 * lengths) and the header page (checkpoint, kind/parent/ts rows) of layout
 * v2, the blob record (codecs, delta chains, depth), dictionaries, the
 * verify path, and append of arbitrary payload text (canonicalization,
 * paths index, open blocks, verify's rebuild of the paths index), and the
 * run record (lengths, checksum, name index).
 *
 * The first input byte picks the target; the rest is written as a value
 * straight into the store's databases inside a write transaction that is
 * aborted afterwards, so every input starts from the same clean store.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../store/store_int.h"

static kt_store *S;
static char dir[64], run[KT_RUN_ID_HEX + 1];
static unsigned char runbin[KT_RUN_BIN];

static void cleanup(void)
{
	char p[128];

	kt_store_close(S);
	snprintf(p, sizeof(p), "%s/f.ktraj", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/f.ktraj-lock", dir);
	unlink(p);
	rmdir(dir);
}

static int init(void)
{
	char p[128];
	kt_event ev;

	snprintf(dir, sizeof(dir), "/tmp/ktfuzz.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(p, sizeof(p), "%s/f.ktraj", dir);
	if (kt_store_open(p, KT_OPEN_CREATE | KT_OPEN_BULK, &S))
		return -1;
	atexit(cleanup);
	kt_run_id_from_identity("fuzz", run);
	kt_unhex(run, runbin, KT_RUN_BIN);
	if (kt_store_begin(S) || kt_run_create(S, run, "f", "fuzz", NULL))
		return -1;
	memset(&ev, 0, sizeof(ev));
	ev.seq = 1;
	ev.kind = KT_KIND_NOTE;
	ev.actor = "agent";
	ev.payload = "{\"text\":\"seed\"}";
	if (kt_event_append(S, run, &ev) || kt_store_commit(S))
		return -1;
	return 0;
}

static int nop(const kt_event *ev, void *arg)
{
	(void)arg;
	return ev->payload[ev->payload_len] != 0; /* must be NUL-terminated */
}

static int nop_head(const kt_event *ev, void *arg)
{
	(void)arg;
	return ev->payload != NULL;
}

static int nop_run(const kt_run_info *ri, void *arg)
{
	(void)arg;
	return ri->name == NULL;
}

static int nop_path(const char *p, void *arg)
{
	(void)p;
	(void)arg;
	return 0;
}

static int nop_change(const char *p, uint64_t seq, int deleted, void *arg)
{
	return (void)seq, (void)deleted, nop_path(p, arg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	unsigned char key[KT_RUN_BIN + 8], h[KT_HASH_LEN];
	const char *bad;
	uint64_t bseq;
	kt_event ev;
	void *d;
	size_t n;

	if (!ready) {
		if (init())
			abort();
		ready = 1;
	}
	if (size < 1)
		return 0;
	if (kt_store_begin(S))
		abort();
	switch (data[0] % 6) {
	case 0: { /* a block value replacing the seed's note block, or one of
		   * another kind at seq 1 or 2 */
		int kind = data[0] & 0x80 ? KT_KIND_NOTE : 1 + (data[0] >> 3) % 10;
		unsigned char bk[KT_RUN_BIN + 9];

		memcpy(bk, runbin, KT_RUN_BIN);
		bk[KT_RUN_BIN] = (unsigned char)kind;
		kt_be64(bk + KT_RUN_BIN + 1, 1 + ((data[0] >> 6) & 1));
		kt_put(S, KT_DB_BLOCKS, bk, sizeof(bk), data + 1, size - 1, 0);
		kt_event_get(S, run, 1, &ev);
		kt_event_read(S, run, 1, KT_READ_BODY, &ev);
		kt_event_foreach(S, run, 0, 0, 0, nop, NULL);
		kt_store_verify(S, NULL, &bad, &bseq);
		break;
	}
	case 3: /* a header page replacing the seed's page */
		memcpy(key, runbin, KT_RUN_BIN);
		kt_be64(key + KT_RUN_BIN, 1);
		kt_put(S, KT_DB_PAGES, key, sizeof(key), data + 1, size - 1, 0);
		kt_event_head(S, run, 1, &ev);
		kt_event_get(S, run, 1, &ev);
		kt_event_foreach_head(S, run, 0, 0, 0, nop_head, NULL);
		kt_event_foreach(S, run, 0, 0, 0, nop, NULL);
		kt_store_verify(S, run, &bad, &bseq);
		break;
	case 5: { /* a run record replacing the seed's */
		kt_run_info ri;

		kt_put(S, KT_DB_RUNS, runbin, KT_RUN_BIN, data + 1, size - 1, 0);
		kt_run_get(S, run, &ri);
		kt_run_foreach(S, nop_run, NULL);
		kt_store_verify(S, NULL, &bad, &bseq);
		kt_store_verify(S, run, &bad, &bseq);
		break;
	}
	case 1: /* a blob record (possibly a delta naming itself or another) */
		kt_sha256("a", 1, h);
		kt_put(S, KT_DB_BLOBS, h, KT_HASH_LEN, data + 1, size - 1, 0);
		if (kt_blob_get(S, h, &d, &n) == 0)
			free(d);
		kt_store_verify(S, NULL, &bad, &bseq);
		break;
	case 2: { /* a dictionary, then a block compressed with it or raw */
		unsigned char id[4], bk[KT_RUN_BIN + 9];
		size_t half = (size - 1) / 2;

		kt_be32(id, KT_DICT_ID_BASE);
		kt_put(S, KT_DB_DICTS, id, 4, data + 1, half, 0);
		kt_dicts_load(S, S->wtxn);
		memcpy(bk, runbin, KT_RUN_BIN);
		bk[KT_RUN_BIN] = KT_KIND_NOTE;
		kt_be64(bk + KT_RUN_BIN + 1, 1);
		kt_put(S, KT_DB_BLOCKS, bk, sizeof(bk), data + 1 + half,
		       size - 1 - half, 0);
		kt_event_get(S, run, 1, &ev);
		kt_store_verify(S, run, &bad, &bseq);
		break;
	}
	default: { /* append arbitrary payload text as an edit / tool_result */
		char *pl = malloc(size);

		if (!pl)
			abort();
		memcpy(pl, data + 1, size - 1);
		pl[size - 1] = 0;
		memset(&ev, 0, sizeof(ev));
		ev.seq = 2;
		ev.parent = 1;
		ev.kind = data[0] & 0x10 ? KT_KIND_EDIT : KT_KIND_TOOL_RESULT;
		ev.actor = "agent";
		ev.payload = pl;
		ev.payload_len = size - 1;
		ev.flags = data[0] & 0x20 ? KT_EV_CANONICAL : 0;
		if (kt_event_append(S, run, &ev) == 0) {
			kt_event_get(S, run, 2, &ev);
			kt_path_foreach(S, run, 0, nop_path, NULL);
			kt_path_changes(S, run, NULL, nop_change, NULL);
			kt_store_verify(S, run, &bad, &bseq);
		}
		free(pl);
		break;
	}
	}
	kt_store_abort(S);
	return 0;
}
