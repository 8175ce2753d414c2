/*
 * fuzz_imp_common.h - shared by the importer fuzz targets: one store per
 * process (recreated every 256 inputs so it stays small), input files written
 * under a scratch folder, kt_import_paths run on them, the store verified,
 * the scratch folder emptied afterwards and removed at exit.  Importers must
 * never crash, leak or corrupt the store; anything they return is fine.
 */
#ifndef KT_FUZZ_IMP_COMMON_H
#define KT_FUZZ_IMP_COMMON_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <ftw.h>
#include <sys/stat.h>

#include "../../store/store.h"
#include "../../import/import.h"
#include "../../replay/replay.h"

static char fz_dir[512];
static kt_store *fz_store;
static unsigned fz_iter;

static inline void fz_quiet(const char *line, void *arg)
{
	(void)line;
	(void)arg;
}

static inline int fz_rm(const char *p, const struct stat *st, int flag,
		 struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static inline void fz_drop_store(void)
{
	char p[600];

	kt_store_close(fz_store);
	fz_store = NULL;
	snprintf(p, sizeof(p), "%s/store.ktraj", fz_dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/store.ktraj-lock", fz_dir);
	unlink(p);
}

static inline void fz_cleanup(void)
{
	fz_drop_store();
	(void)nftw(fz_dir, fz_rm, 16, FTW_DEPTH | FTW_PHYS);
}

/* Open the scratch store; a fresh one every 256 inputs. */
static inline void fz_init(void)
{
	char p[600];
	const char *t = getenv("TMPDIR");

	if (!fz_dir[0]) {
		snprintf(fz_dir, sizeof(fz_dir), "%s/ktfuzz.XXXXXX",
			 t && *t ? t : "/tmp");
		if (!mkdtemp(fz_dir))
			abort();
		atexit(fz_cleanup);
		/* the whole importer table, as `ktraj import` has it: the
		 * replay-result importer is replay/'s (import/registry.c) */
		if (kt_replay_register())
			abort();
	}
	if (fz_store && ++fz_iter % 256 == 0)
		fz_drop_store();
	if (fz_store)
		return;
	snprintf(p, sizeof(p), "%s/store.ktraj", fz_dir);
	if (kt_store_open(p, KT_OPEN_CREATE | KT_OPEN_BULK, &fz_store) != 0)
		abort();
}

/* Write data to <scratch>/in/<rel>, creating folders. */
static inline void fz_put(const char *rel, const void *data, size_t len)
{
	char p[1200];
	FILE *f;

	snprintf(p, sizeof(p), "%s/in/%s", fz_dir, rel);
	for (char *s = p + strlen(fz_dir) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		mkdir(p, 0700);
		*s = '/';
	}
	if (!(f = fopen(p, "wb")))
		abort();
	if (len && fwrite(data, 1, len, f) != len)
		abort();
	fclose(f);
}

/* Import <scratch>/in/<rel> ("" = the whole folder) with options *o
 * (on_warn is set here), check that whatever went in still verifies, then
 * empty the folder. */
static inline void fz_run_opts(const char *rel, kt_import_opts *o)
{
	char p[1200];
	char *pp = p;

	o->on_warn = fz_quiet;
	snprintf(p, sizeof(p), "%s/in%s%s", fz_dir, *rel ? "/" : "", rel);
	(void)kt_import_paths(fz_store, &pp, 1, o);
	if (kt_store_verify(fz_store, NULL, NULL, NULL) == KT_ECORRUPT)
		abort();
	snprintf(p, sizeof(p), "%s/in", fz_dir);
	if (nftw(p, fz_rm, 16, FTW_DEPTH | FTW_PHYS) != 0)
		abort();
}

/* fz_run_opts with only the format forced (NULL = detect). */
static inline void fz_run(const char *rel, const char *format)
{
	kt_import_opts o;

	memset(&o, 0, sizeof(o));
	o.format = format;
	fz_run_opts(rel, &o);
}

/* The first 8 runs of the scratch store (kt_run_foreach callback). */
struct fz_ids {
	char id[8][KT_RUN_ID_HEX + 1];
	int n;
};

static inline int fz_collect(const kt_run_info *ri, void *arg)
{
	struct fz_ids *r = arg;

	if (r->n < 8)
		memcpy(r->id[r->n++], ri->id, KT_RUN_ID_HEX + 1);
	return 0;
}

/* Split data at the first NUL: the part before and after. */
static inline size_t fz_split(const uint8_t *data, size_t size)
{
	const uint8_t *z = memchr(data, 0, size);

	return z ? (size_t)(z - data) : size;
}
#endif
