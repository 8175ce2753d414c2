/*
 * fuzz_anpayload.c - the analyzers' payload field scanner (analyze/load_json.c)
 * against cJSON: whenever the scanner accepts an input, cJSON must accept
 * it too and give the same member types, decoded strings, numbers and
 * array elements (the run loader relies on that to skip building cJSON
 * trees and stay byte-identical).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "../../analyze/an_int.h"

static const char *const keys[] = {"text", "role", "human", "flags", "n",
				   "time_ms", "a", ""};
#define NK ((int)(sizeof(keys) / sizeof(keys[0])))

struct elctx {
	const cJSON *x;
	int bad;
};

static int same_value(const kt_an_jv *v, const cJSON *c);

static int el_cb(const kt_an_jv *v, void *arg)
{
	struct elctx *e = arg;

	if (!e->x || !same_value(v, e->x)) {
		e->bad = 1;
		return 1;
	}
	e->x = e->x->next;
	return 0;
}

static int same_value(const kt_an_jv *v, const cJSON *c)
{
	switch (v->type) {
	case KT_AN_JS_STR: {
		char *d;
		long l;
		int ok;

		if (!cJSON_IsString(c))
			return 0;
		d = malloc(v->n + 1);
		if (!d)
			return 1;
		l = kt_an_js_str(v, d, v->n + 1);
		ok = l >= 0 && (size_t)l == strlen(c->valuestring) &&
		     !strcmp(d, c->valuestring);
		free(d);
		return ok;
	}
	case KT_AN_JS_NUM: {
		double d = kt_an_js_num(v);

		/* NaN: another decimal point, the loader falls back; else
		 * the same bits (the sign of zero too) */
		return cJSON_IsNumber(c) &&
		       (isnan(d) || !memcmp(&d, &c->valuedouble, sizeof(d)));
	}
	case KT_AN_JS_TRUE:
		return cJSON_IsTrue(c);
	case KT_AN_JS_FALSE:
		return cJSON_IsFalse(c);
	case KT_AN_JS_NULL:
		return cJSON_IsNull(c);
	case KT_AN_JS_OBJ:
		return cJSON_IsObject(c);
	case KT_AN_JS_ARR: {
		struct elctx e = {c->child, 0};

		if (!cJSON_IsArray(c))
			return 0;
		kt_an_js_array(v, el_cb, &e);
		return !e.bad && !e.x;
	}
	default:
		return 0;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kt_an_jv f[NK];
	cJSON *j;

	if (size > 65536)
		return 0;
	if (kt_an_js_fields((const char *)data, size, keys, NK, f))
		return 0;
	j = cJSON_ParseWithLength((const char *)data, size);
	if (!j || !cJSON_IsObject(j))
		abort(); /* accepted by the scanner, refused by cJSON */
	for (int k = 0; k < NK; k++) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(j, keys[k]);

		if (f[k].type == KT_AN_JS_NONE ? c != NULL :
		    !c || !same_value(&f[k], c))
			abort();
	}
	cJSON_Delete(j);
	return 0;
}
