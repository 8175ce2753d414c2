/*
 * fuzz_harness_json.c - libFuzzer target for the task-spec JSON reader of
 * ktraj-harness (harness/kt_json.c, which builds without the store's
 * libraries, hence included here directly).  Checks that the reader never
 * crashes, and that getters on whatever tree it returns stay in bounds.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../harness/kt_json.c"

static size_t walk(const kj *v, int depth)
{
	size_t n = 0;

	for (; v; v = v->next) {
		n++;
		if (v->type == KJ_STR && v->str)
			n += strlen(v->str) > 0;
		if (v->key)
			(void)kj_get(v, v->key);
		if (depth < 80)
			n += walk(v->child, depth + 1);
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];
	kj *root = kj_parse((const char *)data, size, err, sizeof(err));

	if (root) {
		(void)walk(root, 0);
		(void)kj_num(root, "input_sets", 5);
		(void)kj_str(root, "task", "");
		(void)kj_bool(root, "causal", 0);
		(void)kj_at(kj_get(root, "scenarios"), 3);
		kj_free(root);
	} else if (!err[0]) {
		__builtin_trap(); /* a failure always says why */
	}
	return 0;
}
