/* outfmt.c - text helpers for the read commands (see outfmt.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "outfmt.h"
#include "../store/store.h"
#include "../import/ktraj_jsonl.h"

void cli_oneline(const char *s, size_t max, char *out)
{
	size_t n = 0;
	int space = 0;

	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
		    c == '\f' || c == '\v') {
			space = n > 0;
			continue;
		}
		if (c < 0x20 || c == 0x7f)
			c = '?';
		if (n + space + 1 > max) {
			/* drop a trailing incomplete UTF-8 sequence */
			size_t i = n, need;

			while (i > 0 && ((unsigned char)out[i - 1] & 0xc0) == 0x80)
				i--;
			if (i > 0 && (unsigned char)out[i - 1] >= 0xc0) {
				unsigned char l = (unsigned char)out[i - 1];

				need = l >= 0xf0 ? 4 : l >= 0xe0 ? 3 : 2;
				if (n - (i - 1) < need)
					n = i - 1;
			}
			memcpy(out + n, "...", 4);
			return;
		}
		if (space)
			out[n++] = ' ';
		space = 0;
		out[n++] = (char)c;
	}
	out[n] = 0;
}

void cli_ts_short(int64_t ts_ns, char *buf, size_t len)
{
	time_t sec;
	struct tm tm;

	if (ts_ns == KT_TS_UNKNOWN) {
		snprintf(buf, len, "-");
		return;
	}
	sec = (time_t)(ts_ns / 1000000000);
	if (ts_ns < 0 && ts_ns % 1000000000)
		sec--;
	if (!gmtime_r(&sec, &tm) ||
	    !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "-");
}

/* Length of the valid UTF-8 sequence at p (RFC 3629), 0 when there is none */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t need, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] < 0xc2 || p[0] > 0xf4)
		return 0;
	need = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : 2;
	if (n < need)
		return 0;
	for (i = 1; i < need; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f) ||
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] > 0x8f))
		return 0;
	return need;
}

int cli_put_safe(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0, k;

	while (i < n) {
		unsigned c = p[i];

		if ((c >= 0x20 && c < 0x7f) || c == '\t' || c == '\n') {
			i++;
			continue;
		}
		k = utf8_len(p + i, n - i);
		/* U+0080..U+009F are C2 80..C2 9F */
		if (k > 1 && !(c == 0xc2 && p[i + 1] < 0xa0)) {
			i += k;
			continue;
		}
		fwrite(p + run, 1, i - run, f);
		if (k == 2)
			fprintf(f, "M-^%c", (p[i + 1] - 0x80) + 0x40);
		else if (c == 0x7f)
			fputs("^?", f);
		else if (c < 0x20)
			fprintf(f, "^%c", c + 0x40);
		else
			fprintf(f, "\\x%02x", c);
		i += k ? k : 1;
		run = i;
	}
	fwrite(p + run, 1, n - run, f);
	return ferror(f) ? -1 : 0;
}

const char *cli_jstr(const cJSON *o, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(it) ? it->valuestring : NULL;
}

int cli_is_text(const void *data, size_t n)
{
	const unsigned char *p = data;
	size_t i = 0;

	while (i < n) {
		unsigned c = p[i];
		size_t k, need;

		if (c == 0)
			return 0;
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			need = 1;
		else if (c >= 0xe0 && c <= 0xef)
			need = 2;
		else if (c >= 0xf0 && c <= 0xf4)
			need = 3;
		else
			return 0;
		for (k = 1; k <= need; k++)
			if (i + k >= n || (p[i + k] & 0xc0) != 0x80)
				return 0;
		/* overlong 3/4-byte forms, surrogates, > U+10FFFF */
		if ((c == 0xe0 && p[i + 1] < 0xa0) ||
		    (c == 0xed && p[i + 1] >= 0xa0) ||
		    (c == 0xf0 && p[i + 1] < 0x90) ||
		    (c == 0xf4 && p[i + 1] >= 0x90))
			return 0;
		i += need + 1;
	}
	return 1;
}

int cli_json_add_bytes(cJSON *o, const char *key, const void *data,
		       size_t len, int b64)
{
	char k[64], *t;
	int text = cli_is_text(data, len);

	if (text && b64 != CLI_BYTES_BASE64) {
		/* data may lack the NUL cJSON wants */
		t = malloc(len + 1);
		if (!t)
			return -1;
		memcpy(t, data, len);
		t[len] = 0;
		if (!cJSON_AddStringToObject(o, key, t)) {
			free(t);
			return -1;
		}
		free(t);
		return 1;
	}
	if (b64 == CLI_BYTES_TEXT)
		return 0;
	snprintf(k, sizeof(k), "%s_base64", key);
	t = kt_base64_encode(data, len);
	if (!t || !cJSON_AddStringToObject(o, k, t)) {
		free(t);
		return -1;
	}
	free(t);
	return text;
}

int cli_put_json(cJSON *o)
{
	char *t = o ? cJSON_PrintUnformatted(o) : NULL;
	int rc = 0;

	if (!t)
		rc = KT_ENOMEM;
	else if (puts(t) < 0)
		rc = KT_EIO;
	free(t);
	cJSON_Delete(o);
	return rc;
}
