/*
 * jsonstrict_bench.c FILE [REPS] - CPU cost of the RFC 8259 check
 * (import/jsonstrict.c) on every line of a JSONL file, next to cJSON's parse
 * of the same lines.  Prints, least of REPS (default 20) passes, CPU seconds:
 *   - check: one kt_json_check pass over all lines (the lines come from
 *     memory, as the first touch of each line would);
 *   - check in cache: a line checked right after cJSON parsed it, as the
 *     importers do ("parse+check" minus "parse");
 *   - parse: cJSON_ParseWithLength + cJSON_Delete of every line.
 * Used by tests/bench/jsonstrict.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "import/jsonstrict.h"

static double cpu(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	FILE *f;
	char *d, **ls;
	size_t *ln, n, k = 0, cap = 1024;
	long bad = 0;
	int reps = argc > 2 ? atoi(argv[2]) : 20;
	double best[3] = { 1e9, 1e9, 1e9 };

	if (argc < 2 || !(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: jsonstrict_bench FILE.jsonl [REPS]\n");
		return 2;
	}
	fseek(f, 0, SEEK_END);
	n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	d = malloc(n + 1);
	ls = malloc(cap * sizeof(*ls));
	ln = malloc(cap * sizeof(*ln));
	if (!d || !ls || !ln || fread(d, 1, n, f) != n)
		return 1;
	fclose(f);
	for (char *p = d, *e = d + n; p < e;) {
		char *nl = memchr(p, '\n', (size_t)(e - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(e - p);

		if (k == cap) {
			cap *= 2;
			ls = realloc(ls, cap * sizeof(*ls));
			ln = realloc(ln, cap * sizeof(*ln));
			if (!ls || !ln)
				return 1;
		}
		if (l) {
			ls[k] = p;
			ln[k++] = l;
		}
		p = nl ? nl + 1 : e;
	}
	for (int r = 0; r < reps; r++) {
		double t0 = cpu(), t1, t2, t3;

		for (size_t i = 0; i < k; i++)
			bad += kt_json_check(ls[i], ln[i], 0, NULL, NULL) != 0;
		t1 = cpu();
		for (size_t i = 0; i < k; i++)
			cJSON_Delete(cJSON_ParseWithLength(ls[i], ln[i]));
		t2 = cpu();
		for (size_t i = 0; i < k; i++) {
			cJSON_Delete(cJSON_ParseWithLength(ls[i], ln[i]));
			bad += kt_json_check(ls[i], ln[i], 0, NULL, NULL) != 0;
		}
		t3 = cpu();
		if (t1 - t0 < best[0])
			best[0] = t1 - t0;
		if (t2 - t1 < best[1])
			best[1] = t2 - t1;
		if (t3 - t2 < best[2])
			best[2] = t3 - t2;
	}
	printf("%zu lines, %.1f MB, %ld refused; least of %d passes, CPU s:\n",
	       k, (double)n / 1e6, bad / reps / 2, reps);
	printf("| check | %.4f | %.0f MB/s |\n", best[0],
	       (double)n / 1e6 / best[0]);
	printf("| parse (cJSON) | %.4f | %.0f MB/s |\n", best[1],
	       (double)n / 1e6 / best[1]);
	printf("| parse + check | %.4f | check in cache ~%.4f |\n", best[2],
	       best[2] - best[1]);
	return 0;
}
