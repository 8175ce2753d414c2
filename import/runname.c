/*
 * runname.c - run names and text blobs as the driver stores them
 * (imp_int.h).  A run name is printed by `ls`, `ls --json`, NDJSON tables
 * and reports, so it must be valid UTF-8 on one line; it is cut only after
 * redaction so that no part of a secret survives the cut.
 */
#include <string.h>

#include "imp_int.h"

void kt_imp_name_cut(char *s, size_t max)
{
	size_t n = strlen(s), cut;

	if (n > max) {
		cut = kt_utf8_floor(s, max);
		/* inside a word (maybe a token the redactor did not see
		 * whole): drop the word rather than keep a piece of it */
		if (s[cut] != ' ' && cut > 0 && s[cut - 1] != ' ') {
			size_t w = cut;

			while (w > 0 && s[w - 1] != ' ')
				w--;
			if (w > 0)
				cut = w;
		}
		s[cut] = 0;
		n = cut;
	}
	while (n > 0 && s[n - 1] == ' ')
		s[--n] = 0;
}
