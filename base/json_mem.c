/*
 * json_mem.c - cJSON parses that tell out of memory from bad text
 * (kt_base.h, "cJSON parses").
 *
 * cJSON_Parse* return NULL both for text that is not JSON and when one of
 * their allocations fails, and cJSON keeps nothing that tells the two
 * apart: cJSON_GetErrorPtr points into the text in both cases (at the
 * byte where the parse stopped).  So cJSON allocates through a wrapper
 * that counts, per thread, the allocations that failed; a parse that
 * returns NULL after the count moved ran out of memory.
 *
 * The hooks are installed once, on the first parse.  free stays free, so
 * what cJSON allocated before (or prints, with its own buffer) is freed
 * the same way.  cJSON then grows a print buffer with malloc and a copy
 * instead of realloc (it uses realloc only with the default hooks): a copy
 * of the output per doubling, small beside formatting it.
 */
#include <pthread.h>
#include <stdlib.h>
#include <cjson/cJSON.h>
#include "kt_base.h"

static _Thread_local unsigned long fails;   /* allocations that failed */
static _Thread_local int in_parse;          /* inside kt_cjson_parse */
static _Thread_local long fail_at = -1;     /* kt_cjson_fail_at */

static void *counted_malloc(size_t n)
{
	void *p;

	if (in_parse && fail_at >= 0 && fail_at-- == 0)
		p = NULL;
	else
		p = malloc(n);
	if (!p)
		fails++;
	return p;
}

static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

static void hooks_install(void)
{
	cJSON_Hooks h = { counted_malloc, free };

	cJSON_InitHooks(&h);
}

cJSON *kt_cjson_parse(const char *s, size_t n, const char **end, int *rc)
{
	unsigned long before;
	cJSON *o;

	pthread_once(&hooks_once, hooks_install);
	if (!s) {
		if (rc)
			*rc = KT_EPARSE;
		return NULL;
	}
	before = fails;
	in_parse = 1;
	o = cJSON_ParseWithLengthOpts(s, n, end, 0);
	in_parse = 0;
	if (rc)
		*rc = o ? 0 : fails != before ? KT_ENOMEM : KT_EPARSE;
	return o;
}

long kt_cjson_fail_at(long nth)
{
	long was = fail_at;

	fail_at = nth;
	return was;
}
