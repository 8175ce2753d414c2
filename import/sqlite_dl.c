/*
 * sqlite_dl.c - libsqlite3 loaded at its first use (sqlite_dl.h says why).
 */
#define KT_SQLITE_DL_IMPL
#include <errno.h>
#include <pthread.h>

#include "../base/kt_base.h"
#include "../base/kt_dl.h"
#include "sqlite_dl.h"

struct kt_sqlite_api kt_sq;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char why[256];

static void load(void)
{
#define KT_SQ_SYM(f) { #f, (void **)&kt_sq.f },
	static const struct kt_dl_sym syms[] = { KT_SQLITE_FUNCS(KT_SQ_SYM) };
#undef KT_SQ_SYM

	loaded = kt_dl_load(KT_SQLITE_SONAME, syms,
			    sizeof(syms) / sizeof(syms[0]), why,
			    sizeof(why)) == 0;
}

int kt_sqlite_load(void)
{
	pthread_once(&once, load);
	if (loaded)
		return 0;
	errno = ELIBACC;
	return KT_EIO;
}

const char *kt_sqlite_load_error(void)
{
	return why;
}
