/*
 * fuzz_claude.c - libFuzzer target for the Claude Code importer: the input
 * is a session file, imported with the format forced into a scratch store
 * (recreated now and then so it stays small).  Any crash, leak or
 * sanitizer report is a bug; warnings and errors are expected.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../import/import.h"

static char dir[256];
static kt_store *st;
static unsigned iter;

static void quiet(const char *line, void *arg)
{
	(void)line;
	(void)arg;
}

static void cleanup(void)
{
	static const char *const names[] = { "s.ktraj", "s.ktraj-lock",
		"in.jsonl", "in.bin", NULL };
	char p[300];
	int i;

	kt_store_close(st);
	st = NULL;
	for (i = 0; names[i]; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
}

static kt_store *store(void)
{
	char p[300];

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "%s/fuzz_claude.XXXXXX",
			 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
		if (!mkdtemp(dir))
			abort();
		atexit(cleanup);
	}
	if (st && ++iter % 256 == 0) {
		kt_store_close(st);
		st = NULL;
		snprintf(p, sizeof(p), "%s/s.ktraj", dir);
		unlink(p);
		snprintf(p, sizeof(p), "%s/s.ktraj-lock", dir);
		unlink(p);
	}
	if (!st) {
		snprintf(p, sizeof(p), "%s/s.ktraj", dir);
		if (kt_store_open(p, KT_OPEN_CREATE | KT_OPEN_BULK, &st))
			abort();
	}
	return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[300];
	char *paths[1];
	kt_import_opts o;
	FILE *f;

	kt_store *s = store();
	snprintf(path, sizeof(path), "%s/in.jsonl", dir);
	f = fopen(path, "wb");
	if (!f)
		abort();
	fwrite(data, 1, size, f);
	fclose(f);
	memset(&o, 0, sizeof(o));
	o.format = "claude_code";
	o.on_warn = quiet;
	paths[0] = path;
	kt_import_paths(s, paths, 1, &o);
	/* whatever went in must still verify */
	if (kt_store_verify(s, NULL, NULL, NULL) == KT_ECORRUPT)
		abort();
	return 0;
}
