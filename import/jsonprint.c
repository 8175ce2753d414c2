/*
 * jsonprint.c - cJSON_PrintUnformatted's exact bytes into a reused buffer.
 *
 * kt_imp_emit prints every payload once and hands the text to the store as
 * canonical (KT_EV_CANONICAL: the store then hashes the bytes as given), so
 * the text must be byte for byte what cJSON_PrintUnformatted prints (cJSON
 * 1.7.x, cJSON.c print_value/print_string_ptr/print_number): keys and
 * strings with '"' '\\' \b \f \n \r \t escaped, other bytes below 0x20 as
 * \u00xx (lowercase hex), every other byte as is; whole numbers below
 * 1e15 as their digits; no whitespace.  Other numbers go through cJSON
 * itself, so their rounding is cJSON's.  What this saves: cJSON sizes strings in one
 * pass and copies in another, grows its buffer from 256 bytes by doubling
 * and reallocs the result; here one buffer serves a whole import.
 * tests/unit/t_jsonprint.c checks it against cJSON_PrintUnformatted.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "impx.h"
#include "jsonstrict.h"

/* A string as cJSON prints it (kt_json_escape between the quotes). */
static int put_str(struct kt_buf *b, const char *s)
{
	const char *p = s ? s : "";
	size_t n = strlen(p);
	char *o;

	/* worst case 6 bytes per input byte */
	if (b->err)
		return b->err;
	if (n > (SIZE_MAX - 3 - b->len) / 6 ||
	    kt_buf_reserve(b, b->len + 6 * n + 3))
		return b->err = KT_ENOMEM;
	o = b->s + b->len;
	*o++ = '"';
	o += kt_json_escape(o, p, n);
	*o++ = '"';
	b->len = (size_t)(o - b->s);
	b->s[b->len] = 0;
	return 0;
}

static int put_num(struct kt_buf *b, const cJSON *item)
{
	double d = item->valuedouble;
	char tmp[32], *t;
	int k, rc;

	/* cJSON prints "%1.15g" (then "%1.17g" when that does not read back):
	 * for a whole number below 1e15 that is its digits, as "%lld" */
	if (d > -1e15 && d < 1e15 && d == (double)(long long)d &&
	    !(d == 0 && signbit(d))) {
		k = snprintf(tmp, sizeof(tmp), "%lld", (long long)d);
		return kt_buf_add(b, tmp, (size_t)k);
	}
	/* fractions, big numbers, -0, NaN: exactly as cJSON prints them */
	t = cJSON_PrintUnformatted(item);
	if (!t)
		return KT_ENOMEM;
	rc = kt_buf_add(b, t, strlen(t));
	cJSON_free(t);
	return rc;
}

static int put_value(struct kt_buf *b, const cJSON *item)
{
	const cJSON *c;
	int rc;

	switch (item->type & 0xff) {
	case cJSON_NULL:
		return kt_buf_add(b, "null", 4);
	case cJSON_False:
		return kt_buf_add(b, "false", 5);
	case cJSON_True:
		return kt_buf_add(b, "true", 4);
	case cJSON_Number:
		return put_num(b, item);
	case cJSON_Raw:
		if (!item->valuestring)
			return KT_EINVAL;
		return kt_buf_add(b, item->valuestring, strlen(item->valuestring));
	case cJSON_String:
		return put_str(b, item->valuestring);
	case cJSON_Array:
		if ((rc = kt_buf_add(b, "[", 1)))
			return rc;
		for (c = item->child; c; c = c->next) {
			if ((rc = put_value(b, c)))
				return rc;
			if (c->next && (rc = kt_buf_add(b, ",", 1)))
				return rc;
		}
		return kt_buf_add(b, "]", 1);
	case cJSON_Object:
		if ((rc = kt_buf_add(b, "{", 1)))
			return rc;
		for (c = item->child; c; c = c->next) {
			if ((rc = put_str(b, c->string)) ||
			    (rc = kt_buf_add(b, ":", 1)) ||
			    (rc = put_value(b, c)))
				return rc;
			if (c->next && (rc = kt_buf_add(b, ",", 1)))
				return rc;
		}
		return kt_buf_add(b, "}", 1);
	default:
		return KT_EINVAL; /* cJSON_Invalid: cJSON prints nothing */
	}
}

int kt_imp_json_print(const cJSON *item, struct kt_buf *b)
{
	int rc;

	if (!item || !b)
		return KT_EINVAL;
	kt_buf_reset(b);
	rc = put_value(b, item);
	if (rc)
		kt_buf_reset(b);
	return rc;
}

/* Pieces of a JSON text for writers that assemble one without a cJSON tree
 * (`log --json`, the jsonl export): the same bytes as the printer above. */
int kt_json_put_str(struct kt_buf *b, const char *s)
{
	return put_str(b, s);
}

int kt_json_put_num(struct kt_buf *b, double d)
{
	cJSON item;

	/* a number item as cJSON_CreateNumber makes it (valueint saturated) */
	memset(&item, 0, sizeof(item));
	item.type = cJSON_Number;
	item.valuedouble = d;
	item.valueint = d >= INT_MAX ? INT_MAX : d <= (double)INT_MIN ? INT_MIN :
			(int)d;
	return put_num(b, &item);
}
