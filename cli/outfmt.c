/* outfmt.c - text helpers for the read commands (see outfmt.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "outfmt.h"
#include "../store/store.h"

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
		k = kt_utf8_seq(p + i, n - i);
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
