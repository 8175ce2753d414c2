/*
 * fuzz_codex_patch.c - libFuzzer target for Codex's apply_patch grammar
 * (import/codex_patch.c): the input is patch text and, after the first NUL
 * byte, a file to apply every Update hunk to.  Also runs the heredoc
 * finder and the Python-literal decoder other importers rely on.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../../import/codex_patch.h"
#include "../../import/impx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *t = (const char *)data, *ps;
	const uint8_t *z = memchr(data, 0, size);
	size_t a = z ? (size_t)(z - data) : size, pl, i;
	kt_cpatch *p = NULL;
	char err[128], *base;
	cJSON *j;

	if (kt_cpatch_find(t, a, &ps, &pl) && pl > a)
		abort();
	if (kt_cpatch_parse(t, a, &p, err, sizeof(err)) == 0) {
		base = malloc(size - a + 1);
		if (!base)
			abort();
		memcpy(base, data + a + (a < size), size - a - (a < size));
		base[size - a - (a < size)] = 0;
		for (i = 0; i < p->n_hunks; i++) {
			char *out = NULL;
			size_t n = 0;

			if (p->hunks[i].op == KT_CP_UPDATE &&
			    kt_cpatch_apply_update(&p->hunks[i], base,
						   strlen(base), &out, &n) == 0) {
				if (strlen(out) != n)
					abort();
				free(out);
			}
		}
		free(base);
		kt_cpatch_free(p);
	}
	j = kt_impx_pylit(t, a);
	cJSON_Delete(j);
	return 0;
}
