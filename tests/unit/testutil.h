/*
 * testutil.h - shared by the cmocka unit tests: includes in the order cmocka
 * needs, a fresh temporary store path per test, and the corpus location
 * (tests that use ../shared/corpus skip cleanly when it is absent).
 */
#ifndef KT_TESTUTIL_H
#define KT_TESTUTIL_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

/* A new empty directory; caller frees the string.  Removed by tu_rmrf. */
static inline char *tu_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *p = malloc(4096);

	if (!p)
		return NULL;
	snprintf(p, 4096, "%s/kttest.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(p)) {
		free(p);
		return NULL;
	}
	return p;
}

static inline void tu_rmrf(const char *dir)
{
	char cmd[4200];

	if (!dir || !*dir)
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "warning: could not remove %s\n", dir);
}

/* The corpus directory ($CORPUS or ../shared/corpus), or NULL. */
static inline const char *tu_corpus(void)
{
	static char buf[4096];
	const char *c = getenv("CORPUS");
	struct stat st;

	if (!c || !*c)
		c = "../shared/corpus";
	if (stat(c, &st) != 0 || !S_ISDIR(st.st_mode))
		return NULL;
	snprintf(buf, sizeof(buf), "%s", c);
	return buf;
}

/* Read a whole file; NULL when absent.  Caller frees. */
static inline char *tu_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1))) {
		if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		} else {
			buf[n] = 0;
			if (len)
				*len = (size_t)n;
		}
	}
	fclose(f);
	return buf;
}
#endif
