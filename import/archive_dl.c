/*
 * archive_dl.c - libarchive loaded at its first use (archive_dl.h says why).
 */
#define KT_ARCHIVE_DL_IMPL
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../base/kt_base.h"
#include "archive_dl.h"

struct kt_archive_api kt_ar;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char why[256];

static void load(void)
{
	/* RTLD_LOCAL: its symbols (and those of the libraries it pulls in)
	 * stay out of the process's global scope */
	void *h = dlopen(KT_ARCHIVE_SONAME, RTLD_NOW | RTLD_LOCAL);
	const char *e;

	if (!h) {
		e = dlerror();
		snprintf(why, sizeof(why), "%s", e ? e : KT_ARCHIVE_SONAME);
		return;
	}
#define KT_AR_SYM(f)                                                     \
	if (!(*(void **)&kt_ar.f = dlsym(h, #f))) {                      \
		snprintf(why, sizeof(why), "%s: no %s", KT_ARCHIVE_SONAME, \
			 #f);                                              \
		dlclose(h);                                                \
		memset(&kt_ar, 0, sizeof(kt_ar));                          \
		return;                                                    \
	}
	KT_ARCHIVE_FUNCS(KT_AR_SYM)
#undef KT_AR_SYM
	loaded = 1; /* the handle stays open for the process's lifetime */
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
