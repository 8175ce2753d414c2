/*
 * t_export_roundtrip.c - export -> import gives the same run: sessions of
 * three formats are imported into one store, each run is written through
 * the exporter table's "jsonl" entry, and that file is imported into a
 * second store; the run id, name and format and every event's hash and
 * chain hash must come out identical (the hash covers seq, parent, ts,
 * kind, actor, payload and provenance: FORMAT.md "Hashes").
 */
#include "testutil.h"
#include "imp_fixture.h"
#include "../../export/export.h"

struct hashes {
	uint64_t n;
	unsigned char h[256][KT_HASH_LEN], chain[256][KT_HASH_LEN];
};

static int collect(const kt_event *ev, void *arg)
{
	struct hashes *hs = arg;

	if (hs->n >= 256)
		return 1;
	memcpy(hs->h[hs->n], ev->hash, KT_HASH_LEN);
	memcpy(hs->chain[hs->n], ev->chain, KT_HASH_LEN);
	hs->n++;
	return 0;
}

static void hashes_of(kt_store *s, const char *run, struct hashes *hs)
{
	kt_run_info ri;

	memset(hs, 0, sizeof(*hs));
	assert_int_equal(kt_run_get(s, run, &ri), 0);
	assert_true(ri.n_events > 0 && ri.n_events <= 256);
	assert_int_equal(kt_event_scan(s, run, 1, ri.n_events, 0, KT_READ_HASH,
				       collect, hs), 0);
	assert_int_equal(hs->n, ri.n_events);
}

static void roundtrip(const char *path, const char *format)
{
	const kt_exporter *ex = kt_exporter_find("jsonl");
	struct ifx *a, *b;
	void *sa, *sb;
	int i;

	assert_non_null(ex);
	assert_true(ex->flags & KT_EXPORT_STREAM);
	if_setup(&sa);
	if_setup(&sb);
	a = sa;
	b = sb;
	if_import(a, path, format, 0); /* a sample may carry warnings */
	assert_true(a->nruns > 0);
	for (i = 0; i < a->nruns; i++) {
		kt_export_args args = { .run = a->ids[i] };
		struct hashes *ha = malloc(sizeof(*ha)), *hb = malloc(sizeof(*hb));
		char file[4300], err[256] = "", na[256], fa[64];
		kt_run_info ri;
		uint64_t k;

		assert_non_null(ha);
		assert_non_null(hb);
		snprintf(file, sizeof(file), "%s/run%d.jsonl", a->dir, i);
		args.out = fopen(file, "w");
		assert_non_null(args.out);
		if (ex->write(a->s, &args, err, sizeof(err)))
			fail_msg("%s: export of run %s: %s", path, a->ids[i], err);
		assert_int_equal(fclose(args.out), 0);
		assert_int_equal(if_import(b, file, NULL, 1), 0);
		assert_int_equal(b->nruns, 1);
		assert_string_equal(b->ids[0], a->ids[i]);
		assert_int_equal(kt_run_get(a->s, a->ids[i], &ri), 0);
		snprintf(na, sizeof(na), "%s", ri.name ? ri.name : "");
		snprintf(fa, sizeof(fa), "%s", ri.format ? ri.format : "");
		assert_int_equal(kt_run_get(b->s, a->ids[i], &ri), 0);
		assert_string_equal(ri.name ? ri.name : "", na);
		assert_string_equal(ri.format ? ri.format : "", fa);
		hashes_of(a->s, a->ids[i], ha);
		hashes_of(b->s, a->ids[i], hb);
		assert_int_equal(ha->n, hb->n);
		for (k = 0; k < ha->n; k++) {
			if (memcmp(ha->h[k], hb->h[k], KT_HASH_LEN) ||
			    memcmp(ha->chain[k], hb->chain[k], KT_HASH_LEN))
				fail_msg("%s: run %s event %llu hashes differ after export + import",
					 path, a->ids[i], (unsigned long long)k + 1);
		}
		free(ha);
		free(hb);
	}
	if_teardown(&sa);
	if_teardown(&sb);
}

static void t_claude(void **st)
{
	(void)st;
	roundtrip("tests/data/sample/softmax_session.jsonl", "claude_code");
}

static void t_codex(void **st)
{
	(void)st;
	roundtrip("tests/data/import/codex/workdir.jsonl", "codex");
}

static void t_atif(void **st)
{
	(void)st;
	roundtrip("tests/data/import/atif/parent.trajectory.json", "atif");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_claude),
		cmocka_unit_test(t_codex),
		cmocka_unit_test(t_atif),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
