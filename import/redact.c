/*
 * redact.c - stable placeholders for personal data and secrets.
 * Work in progress.
 */
#include <stdlib.h>
#include <string.h>
#include "import.h"

struct kt_redactor { int dummy; };

kt_redactor *kt_redactor_new(void) { return calloc(1, sizeof(kt_redactor)); }
void kt_redactor_free(kt_redactor *r) { free(r); }

char *kt_redact_text(kt_redactor *r, const char *text, size_t len,
		     size_t *out_len)
{
	char *o = malloc(len + 1);

	(void)r;
	if (!o)
		return NULL;
	memcpy(o, text, len);
	o[len] = 0;
	if (out_len)
		*out_len = len;
	return o;
}

int kt_redact_json(kt_redactor *r, cJSON *node)
{
	(void)r; (void)node;
	return 0;
}
