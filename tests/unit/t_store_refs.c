/*
 * t_store_refs.c - blob references of payloads (FORMAT.md "Blob
 * references"): which fields are references, kt_blobref_check, and
 * kt_store_verify_blobrefs naming the run and seq of an event whose blob
 * is not stored (the store API appends such events; the writers above it
 * refuse them).
 */
#include <cjson/cJSON.h>
#include "testutil.h"
#include "../../store/store.h"

struct fx {
	char *dir;
	char path[4200];
	kt_store *s;
	char hex[3][KT_HASH_HEX + 1]; /* [0], [1] stored; [2] not */
};

static const char run_a[] = "0123456789abcdef0123456789abcdef";
static const char run_b[] = "fedcba9876543210fedcba9876543210";

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	unsigned char h[KT_HASH_LEN];

	assert_non_null(f);
	f->s = tu_store_new(&f->dir, f->path, sizeof(f->path), "r.ktraj", 0);
	assert_int_equal(kt_store_begin(f->s), 0);
	assert_int_equal(kt_run_create(f->s, run_a, "a", "test", NULL), 0);
	assert_int_equal(kt_run_create(f->s, run_b, "b", "test", NULL), 0);
	assert_int_equal(kt_blob_put(f->s, "one\n", 4, "k.cu", h), 0);
	kt_hex(h, KT_HASH_LEN, f->hex[0]);
	assert_int_equal(kt_blob_put(f->s, "two\n", 4, "k.cu", h), 0);
	kt_hex(h, KT_HASH_LEN, f->hex[1]);
	assert_int_equal(kt_store_commit(f->s), 0);
	kt_sha256("never stored", 12, h);
	kt_hex(h, KT_HASH_LEN, f->hex[2]);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	tu_store_gone(f->s, f->dir);
	free(f);
	return 0;
}

static void append(struct fx *f, const char *run, int kind, const char *payload)
{
	kt_event ev;
	kt_run_info ri;

	assert_int_equal(kt_run_get(f->s, run, &ri), 0);
	memset(&ev, 0, sizeof(ev));
	ev.seq = ri.n_events + 1;
	ev.ts_ns = KT_TS_UNKNOWN;
	ev.kind = kind;
	ev.actor = "agent";
	ev.payload = payload;
	assert_int_equal(kt_store_begin(f->s), 0);
	assert_int_equal(kt_event_append(f->s, run, &ev), 0);
	assert_int_equal(kt_store_commit(f->s), 0);
}

/* "field=value|field=value|..." of a payload's references */
static int list_cb(kt_blobref *r, void *arg)
{
	char *out = arg;
	size_t n = strlen(out);

	snprintf(out + n, 1024 - n, "%s%s=%s", n ? "|" : "", r->field,
		 r->ok ? "hash" : "bad");
	return 0;
}

static char *refs_of(int kind, const char *payload)
{
	static char out[1024];
	cJSON *p = cJSON_Parse(payload);

	assert_non_null(p);
	out[0] = 0;
	assert_int_equal(kt_blobref_foreach(kind, p, list_cb, out), 0);
	cJSON_Delete(p);
	return out;
}

static void t_fields(void **state)
{
	struct fx *f = *state;
	char pl[2048];

	/* an edit: before and after; null is no reference */
	snprintf(pl, sizeof(pl),
		 "{\"path\":\"k.cu\",\"op\":\"modify\",\"before\":\"%s\",\"after\":\"%s\",\"tool\":\"Edit\"}",
		 f->hex[0], f->hex[1]);
	assert_string_equal(refs_of(KT_KIND_EDIT, pl),
			    "before=hash|after=hash");
	assert_string_equal(refs_of(KT_KIND_EDIT,
				    "{\"path\":\"k\",\"op\":\"delete\",\"before\":null,\"after\":null}"),
			    "");
	/* before/after of another kind are not references */
	snprintf(pl, sizeof(pl), "{\"text\":\"x\",\"before\":\"%s\"}",
		 f->hex[2]);
	assert_string_equal(refs_of(KT_KIND_NOTE, pl), "");
	/* *_blob of the payload and of extra, observed[] and images[] */
	snprintf(pl, sizeof(pl),
		 "{\"call_id\":\"c\",\"ok\":true,\"output\":\"\",\"output_blob\":\"%s\","
		 "\"observed\":[{\"path\":\"a\",\"blob\":\"%s\"},{\"path\":\"b\",\"blob\":null},{\"path\":\"c\",\"blob\":7}],"
		 "\"images\":[{\"blob\":\"%s\",\"media_type\":\"image/png\"}],"
		 "\"extra\":{\"log_blob\":\"nothex\",\"other\":\"%s\"},"
		 "\"source_hash\":\"%s\",\"args\":{\"x_blob\":\"%s\"}}",
		 f->hex[0], f->hex[1], f->hex[0], f->hex[2], f->hex[2],
		 f->hex[2]);
	assert_string_equal(refs_of(KT_KIND_TOOL_RESULT, pl),
			    "output_blob=hash|extra.log_blob=bad|"
			    "observed[0].blob=hash|observed[2].blob=bad|"
			    "images[0].blob=hash");
	assert_string_equal(refs_of(KT_KIND_COMPILE,
				    "{\"command\":\"nvcc\",\"exit_code\":0,\"diagnostics_blob\":null}"),
			    "");
	/* not an object: nothing */
	assert_string_equal(refs_of(KT_KIND_NOTE, "[1,2]"), "");
}

static void t_check(void **state)
{
	struct fx *f = *state;
	kt_blobref bad;
	char pl[512];
	cJSON *p;

	snprintf(pl, sizeof(pl),
		 "{\"workload\":\"w\",\"time_ms\":1,\"correct\":true,\"candidate_blob\":\"%s\"}",
		 f->hex[0]);
	p = cJSON_Parse(pl);
	assert_int_equal(kt_blobref_check(f->s, KT_KIND_BENCH, p, &bad), 0);
	cJSON_Delete(p);
	snprintf(pl, sizeof(pl),
		 "{\"workload\":\"w\",\"time_ms\":1,\"correct\":true,\"candidate_blob\":\"%s\"}",
		 f->hex[2]);
	p = cJSON_Parse(pl);
	assert_int_equal(kt_blobref_check(f->s, KT_KIND_BENCH, p, &bad),
			 KT_ENOTFOUND);
	assert_string_equal(bad.field, "candidate_blob");
	assert_string_equal(bad.item->valuestring, f->hex[2]);
	cJSON_Delete(p);
	p = cJSON_Parse("{\"command\":\"nvcc\",\"exit_code\":1,\"diagnostics_blob\":\"abc\"}");
	assert_int_equal(kt_blobref_check(f->s, KT_KIND_COMPILE, p, &bad),
			 KT_EINVAL);
	assert_string_equal(bad.field, "diagnostics_blob");
	cJSON_Delete(p);
	/* a blob put in the open write transaction counts */
	{
		unsigned char h[KT_HASH_LEN];
		char hx[KT_HASH_HEX + 1];

		assert_int_equal(kt_store_begin(f->s), 0);
		assert_int_equal(kt_blob_put(f->s, "three", 5, NULL, h), 0);
		kt_hex(h, KT_HASH_LEN, hx);
		snprintf(pl, sizeof(pl),
			 "{\"role\":\"user\",\"human\":true,\"text\":\"\",\"images\":[{\"blob\":\"%s\"}]}",
			 hx);
		p = cJSON_Parse(pl);
		assert_int_equal(kt_blobref_check(f->s, KT_KIND_MESSAGE, p,
						  NULL), 0);
		kt_store_abort(f->s);
		/* aborted: gone again */
		assert_int_equal(kt_blobref_check(f->s, KT_KIND_MESSAGE, p,
						  NULL), KT_ENOTFOUND);
		cJSON_Delete(p);
	}
}

static void t_verify(void **state)
{
	struct fx *f = *state;
	const char *bad_run = NULL;
	uint64_t bad_seq = 0;
	char pl[512];

	snprintf(pl, sizeof(pl),
		 "{\"path\":\"k.cu\",\"op\":\"create\",\"before\":null,\"after\":\"%s\",\"tool\":\"Write\"}",
		 f->hex[0]);
	append(f, run_a, KT_KIND_EDIT, pl);
	append(f, run_a, KT_KIND_NOTE, "{\"text\":\"a 64-hex string in a note is text\"}");
	snprintf(pl, sizeof(pl), "{\"text\":\"%s\"}", f->hex[2]);
	append(f, run_a, KT_KIND_NOTE, pl);
	assert_int_equal(kt_store_verify_blobrefs(f->s, NULL, &bad_run,
						  &bad_seq), 0);
	assert_null(bad_run);
	assert_int_equal(kt_store_verify(f->s, NULL, &bad_run, &bad_seq), 0);

	/* run b, seq 2: a tool_result whose output_blob was never stored */
	append(f, run_b, KT_KIND_NOTE, "{\"text\":\"first\"}");
	snprintf(pl, sizeof(pl),
		 "{\"call_id\":\"c\",\"ok\":true,\"output\":\"...\",\"output_blob\":\"%s\"}",
		 f->hex[2]);
	append(f, run_b, KT_KIND_TOOL_RESULT, pl);
	assert_int_equal(kt_store_verify_blobrefs(f->s, NULL, &bad_run,
						  &bad_seq), KT_ECORRUPT);
	assert_non_null(bad_run);
	assert_string_equal(bad_run, run_b);
	assert_int_equal(bad_seq, 2);
	assert_non_null(strstr(kt_store_errmsg(f->s), "output_blob"));
	assert_non_null(strstr(kt_store_errmsg(f->s), f->hex[2]));
	/* one run: a is fine, b is not */
	assert_int_equal(kt_store_verify_blobrefs(f->s, run_a, &bad_run,
						  &bad_seq), 0);
	assert_int_equal(kt_store_verify_blobrefs(f->s, run_b, &bad_run,
						  &bad_seq), KT_ECORRUPT);
	assert_int_equal(bad_seq, 2);
	/* the hash chain itself is intact: the other verify passes */
	assert_int_equal(kt_store_verify(f->s, NULL, &bad_run, &bad_seq), 0);
	/* an unknown run */
	assert_int_equal(kt_store_verify_blobrefs(f->s,
		"00000000000000000000000000000000", &bad_run, &bad_seq),
		KT_ENOTFOUND);
}

static void t_verify_edit_not_hex(void **state)
{
	struct fx *f = *state;
	const char *bad_run = NULL;
	uint64_t bad_seq = 0;

	append(f, run_a, KT_KIND_NOTE, "{\"text\":\"x\"}");
	append(f, run_a, KT_KIND_NOTE, "{\"text\":\"y\"}");
	append(f, run_a, KT_KIND_EDIT,
	       "{\"path\":\"k.cu\",\"op\":\"create\",\"before\":null,\"after\":\"k.cu v2\",\"tool\":\"Write\"}");
	assert_int_equal(kt_store_verify_blobrefs(f->s, NULL, &bad_run,
						  &bad_seq), KT_ECORRUPT);
	assert_string_equal(bad_run, run_a);
	assert_int_equal(bad_seq, 3);
	assert_non_null(strstr(kt_store_errmsg(f->s), "\"after\" is not a blob hash"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(t_check, setup, teardown),
		cmocka_unit_test_setup_teardown(t_verify, setup, teardown),
		cmocka_unit_test_setup_teardown(t_verify_edit_not_hex, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
