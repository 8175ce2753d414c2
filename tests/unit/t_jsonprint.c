/* t_jsonprint.c - kt_imp_json_print prints exactly what
 * cJSON_PrintUnformatted prints (the store trusts the bytes as canonical):
 * escapes, numbers, empty and nested containers, string references, and
 * every line of the Claude Code corpus; plus a reused buffer and a redacted
 * string reference (the importer points payloads at parsed input). */
#include <limits.h>
#include <math.h>
#include <dirent.h>
#include "testutil.h"
#include "../../import/imp_int.h"
#include "../../import/jsonstrict.h"

/* both printers agree on item */
static void same(const cJSON *item, struct kt_buf *b)
{
	char *want = cJSON_PrintUnformatted(item);

	assert_non_null(want);
	assert_int_equal(kt_imp_json_print(item, b), 0);
	if (strcmp(b->s, want))
		fail_msg("print differs\n  got  %s\n  want %s", b->s, want);
	assert_int_equal(b->len, strlen(want));
	cJSON_free(want);
}

static void t_strings(void **st)
{
	struct kt_buf b = { 0 };
	char all[256];
	cJSON *o = cJSON_CreateObject();
	int i;

	(void)st;
	for (i = 1; i < 256; i++)
		all[i - 1] = (char)i;  /* every byte but NUL, UTF-8 or not */
	all[255] = 0;
	cJSON_AddStringToObject(o, "all", all);
	cJSON_AddStringToObject(o, "q\"k\\e\ty", "a\"b\\c\b\f\n\r\t\x01\x1f\x7f");
	cJSON_AddStringToObject(o, "utf8", "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80");
	cJSON_AddStringToObject(o, "", "");
	cJSON_AddItemToObject(o, "ref", cJSON_CreateStringReference("by ref\n"));
	cJSON_AddRawToObject(o, "raw", "{\"x\": [1, 2]}");
	same(o, &b);
	cJSON_Delete(o);
	kt_buf_free(&b);
}

/* Escapes on each side of the 16-byte windows the printer scans by, in
 * strings long enough to take the wide path, and at their very end. */
static void t_string_windows(void **st)
{
	static const char esc[] = { '"', '\\', '\n', '\x01', '\x1f' };
	struct kt_buf b = { 0 };
	char s[80];

	(void)st;
	for (size_t e = 0; e < sizeof(esc); e++)
		for (size_t at = 0; at < 48; at++)
			for (size_t len = at + 1; len < at + 34; len += 11) {
				cJSON *v;

				memset(s, 'x', len);
				s[at] = esc[e];
				s[len] = 0;
				v = cJSON_CreateString(s);
				assert_non_null(v);
				kt_buf_reset(&b);
				same(v, &b);
				cJSON_Delete(v);
			}
	kt_buf_free(&b);
}

/* kt_json_escape on strings with several escapes in one 16-byte window
 * (source text has one every ~20 bytes) and all escapes (a worst case that
 * fills the 6 * n bytes it may use: the buffer is exactly that, so a
 * sanitizer build sees a write past it), against cJSON. */
static void t_escape_dense(void **st)
{
	static const char pick[] = "ab\"\\\n\t\x01\x1f\xc3\xa9 z";
	uint64_t r = 0x2545f4914f6cdd1dull;
	char s[130];

	(void)st;
	for (size_t len = 0; len < sizeof(s) - 1; len++)
		for (int round = 0; round < 24; round++) {
			char *got = malloc(6 * len + 1), *want;
			cJSON *v;
			size_t n;

			assert_non_null(got);
			for (size_t i = 0; i < len; i++) {
				r ^= r << 13, r ^= r >> 7, r ^= r << 17;
				/* round 0: every byte escaped as \u00xx */
				s[i] = round ? pick[r % (sizeof(pick) - 1)] :
					       (char)(1 + r % 8);
			}
			s[len] = 0;
			n = kt_json_escape(got, s, len);
			got[n] = 0;
			v = cJSON_CreateString(s);
			want = cJSON_PrintUnformatted(v);
			assert_non_null(want);
			want[strlen(want) - 1] = 0; /* the quotes */
			assert_string_equal(got, want + 1);
			cJSON_free(want);
			cJSON_Delete(v);
			free(got);
		}
}

static void t_numbers(void **st)
{
	static const double v[] = {
		0, -0.0, 1, -1, 42, 0.1, -2.5, 1e20, -1e-7, 3.141592653589793,
		2147483647.0, 2147483648.0, -2147483648.0, -2147483649.0,
		1759745743621318000.0, 1.7976931348623157e308, 5e-324,
		12.000000000000002, 100.5, 999999999999999.0, 1e15,
		-999999999999999.0, 123456789012345.0, 4503599627370497.0,
	};
	struct kt_buf b = { 0 };
	cJSON *a = cJSON_CreateArray();
	size_t i;

	(void)st;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
	cJSON_AddItemToArray(a, cJSON_CreateNumber(NAN));
	cJSON_AddItemToArray(a, cJSON_CreateNumber(INFINITY));
	same(a, &b);
	cJSON_Delete(a);
	kt_buf_free(&b);
}

static void t_containers(void **st)
{
	static const char *const docs[] = {
		"{}", "[]", "[[],{}]", "{\"a\":{\"b\":{\"c\":[1,[2,[3,{}]]]}}}",
		"[null,true,false,\"x\",1.5,{\"k\":null}]",
		"{\"dup\":1,\"dup\":2}",
	};
	struct kt_buf b = { 0 };
	cJSON *o, *ref, *in;
	size_t i;

	(void)st;
	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		o = cJSON_Parse(docs[i]);
		assert_non_null(o);
		same(o, &b);
		cJSON_Delete(o);
	}
	/* an object reference prints as the object it points at */
	in = cJSON_Parse("{\"command\":\"nvcc -O3 k.cu\",\"n\":[1,2]}");
	o = cJSON_CreateObject();
	ref = cJSON_CreateObjectReference(in->child);
	cJSON_AddItemToObject(o, "args", ref);
	same(o, &b);
	cJSON_Delete(o);
	cJSON_Delete(in);
	kt_buf_free(&b);
}

/* Redacting a payload that points at parsed input replaces the referenced
 * strings with owned ones: the input keeps its text, nothing is freed
 * twice (ASan checks the latter). */
static void t_redact_ref(void **st)
{
	const char *in = "mail me at someone@example.com";
	char *copy = strdup(in);
	cJSON *o = cJSON_CreateObject();
	kt_redactor *r = kt_redactor_new();
	struct kt_buf b = { 0 };

	(void)st;
	assert_non_null(copy);
	cJSON_AddItemToObject(o, "text", cJSON_CreateStringReference(copy));
	assert_int_equal(kt_redact_json(r, o), 0);
	assert_string_equal(copy, in);
	assert_null(strstr(cJSON_GetObjectItem(o, "text")->valuestring,
			   "someone@example.com"));
	same(o, &b);
	cJSON_Delete(o);
	kt_redactor_free(r);
	free(copy);
	kt_buf_free(&b);
}

static void corpus_file(const char *path, struct kt_buf *b, size_t *lines)
{
	size_t len = 0;
	char *d = tu_slurp(path, &len), *p, *nl;

	if (!d)
		return;
	for (p = d; p < d + len; p = nl + 1) {
		cJSON *o;

		nl = memchr(p, '\n', (size_t)(d + len - p));
		if (!nl)
			nl = d + len;
		o = cJSON_ParseWithLength(p, (size_t)(nl - p));
		if (o) {
			same(o, b);
			(*lines)++;
		}
		cJSON_Delete(o);
	}
	free(d);
}

static void t_corpus(void **st)
{
	const char *c = tu_corpus();
	char dir[4200], path[8400];
	struct kt_buf b = { 0 };
	struct dirent *de;
	size_t lines = 0;
	DIR *d;

	(void)st;
	if (!c)
		skip();
	snprintf(dir, sizeof(dir), "%s/claude_code", c);
	d = opendir(dir);
	if (!d)
		skip();
	while ((de = readdir(d))) {
		if (!strstr(de->d_name, ".jsonl"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		corpus_file(path, &b, &lines);
	}
	closedir(d);
	assert_true(lines > 100);
	kt_buf_free(&b);
}

/* The parts writers put together without a tree (kt_json_put_num,
 * kt_json_put_str, `log --json` and the jsonl export) print as cJSON does:
 * whole numbers in and out of int range, fractions that need 17 digits,
 * -0, huge and tiny values; strings with every escape. */
static void t_parts(void **st)
{
	static const double nums[] = {
		0, -0.0, 1, -1, 42, INT_MAX, (double)INT_MAX + 1, INT_MIN,
		(double)INT_MIN - 1, 4294967296.0, 1e15 - 1, 1e15, 1e17,
		9007199254740993.0, 0.1, 1.0 / 3, -2.5e-7, 1e300, -1e-300,
		123456789.125, 5e-324
	};
	static const char *const strs[] = {
		"", "plain", "q\"b\\s/\b\f\n\r\t", "\x01\x1f\x7f",
		"h\xc3\xa9llo \xf0\x9f\x98\x80", "\xff not UTF-8"
	};
	struct kt_buf b = { 0 };

	(void)st;
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		cJSON *n = cJSON_CreateNumber(nums[i]);
		char *want = cJSON_PrintUnformatted(n);

		kt_buf_reset(&b);
		assert_int_equal(kt_json_put_num(&b, nums[i]), 0);
		if (strcmp(b.s, want))
			fail_msg("%.17g: got %s, cJSON %s", nums[i], b.s, want);
		cJSON_free(want);
		cJSON_Delete(n);
	}
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		cJSON *v = cJSON_CreateString(strs[i]);
		char *want = cJSON_PrintUnformatted(v);

		kt_buf_reset(&b);
		assert_int_equal(kt_buf_add(&b, "[", 1), 0);
		assert_int_equal(kt_json_put_str(&b, strs[i]), 0);
		assert_int_equal(kt_buf_add(&b, "]", 1), 0);
		assert_int_equal(b.len, strlen(want) + 2);
		assert_memory_equal(b.s + 1, want, strlen(want));
		cJSON_free(want);
		cJSON_Delete(v);
	}
	kt_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_strings),
		cmocka_unit_test(t_string_windows),
		cmocka_unit_test(t_escape_dense),
		cmocka_unit_test(t_numbers),
		cmocka_unit_test(t_containers),
		cmocka_unit_test(t_redact_ref),
		cmocka_unit_test(t_corpus),
		cmocka_unit_test(t_parts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
