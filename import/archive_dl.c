/*
 * archive_dl.c - libarchive loaded at its first use (archive_dl.h says why).
 */
#define KT_ARCHIVE_DL_IMPL
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include "../base/kt_base.h"
#include "../base/kt_dl.h"
#include "archive_dl.h"

struct kt_archive_api kt_ar;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char why[256];

static void load(void)
{
#define KT_AR_SYM(f) { #f, (void **)&kt_ar.f },
	static const struct kt_dl_sym syms[] = { KT_ARCHIVE_FUNCS(KT_AR_SYM) };
#undef KT_AR_SYM

	loaded = kt_dl_load(KT_ARCHIVE_SONAME, syms,
			    sizeof(syms) / sizeof(syms[0]), why,
			    sizeof(why)) == 0;
}

int kt_archive_load(void)
{
	pthread_once(&once, load);
	if (loaded)
		return 0;
	errno = ELIBACC;
	return KT_EIO;
}

const char *kt_archive_load_error(void)
{
	return why;
}

int kt_archive_fail(char *err, size_t errlen)
{
	if (!kt_archive_load())
		return KT_ENOMEM;
	if (err && errlen)
		snprintf(err, errlen, "cannot load libarchive (%s)", why);
	return KT_EIO;
}
