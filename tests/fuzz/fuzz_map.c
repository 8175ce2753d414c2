/*
 * fuzz_map.c - the map reader and the map importer (import/imp_map.c): the
 * input up to its first NUL is a map (kt_map_parse), the rest records read
 * with it; kt_map_looks_like_rounds runs on the records too.
 */
#include "fuzz_imp_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = fz_split(data, size);
	char err[200];
	kt_map *m = NULL;
	kt_import_opts o;

	if (kt_map_parse((const char *)data, n, &m, err, sizeof(err)) || !m)
		return 0;
	if (n < size) {
		(void)kt_map_looks_like_rounds((const char *)data + n + 1,
					       size - n - 1);
		fz_init();
		fz_put("rounds.jsonl", data + n + 1, size - n - 1);
		memset(&o, 0, sizeof(o));
		o.format = "map";
		o.map = m;
		fz_run_opts("", &o);
	}
	kt_map_free(m);
	return 0;
}
