/*
 * sqlite_dl.c - libsqlite3 loaded at its first use (sqlite_dl.h says why).
 */
#define KT_SQLITE_DL_IMPL

#include "../base/kt_base.h"
#include "../base/kt_dl.h"
#include "sqlite_dl.h"

struct kt_sqlite_api kt_sq;

#define KT_SQ_SYM(f) { #f, (void **)&kt_sq.f },
static const struct kt_dl_sym syms[] = { KT_SQLITE_FUNCS(KT_SQ_SYM) };
#undef KT_SQ_SYM
static struct kt_dl_lib lib = { KT_SQLITE_SONAME, syms,
				sizeof(syms) / sizeof(syms[0]), 0, "" };

int kt_sqlite_load(void)
{
	return kt_dl_use(&lib);
}

const char *kt_sqlite_load_error(void)
{
	return lib.why;
}
