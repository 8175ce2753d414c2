/*
 * archive_dl.c - libarchive loaded at its first use (archive_dl.h says why).
 */
#define KT_ARCHIVE_DL_IMPL
#include <stdio.h>

#include "kt_base.h"
#include "kt_dl.h"
#include "archive_dl.h"

struct kt_archive_api kt_ar;

#define KT_AR_SYM(f) { #f, (void **)&kt_ar.f },
static const struct kt_dl_sym syms[] = { KT_ARCHIVE_FUNCS(KT_AR_SYM) };
#undef KT_AR_SYM
static struct kt_dl_lib lib = { KT_ARCHIVE_SONAME, syms,
				sizeof(syms) / sizeof(syms[0]), 0, "" };

int kt_archive_load(void)
{
	return kt_dl_use(&lib);
}

const char *kt_archive_load_error(void)
{
	return lib.why;
}

int kt_archive_fail(char *err, size_t errlen)
{
	if (!kt_archive_load())
		return KT_ENOMEM;
	if (err && errlen)
		snprintf(err, errlen, "cannot load libarchive (%s)", lib.why);
	return KT_EIO;
}

void kt_archive_utf8_enter(struct kt_archive_utf8 *u)
{
	u->prev = (locale_t)0;
	u->mine = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	if (u->mine)
		u->prev = uselocale(u->mine);
}

void kt_archive_utf8_leave(struct kt_archive_utf8 *u)
{
	if (!u->mine)
		return;
	uselocale(u->prev);
	freelocale(u->mine);
	u->mine = (locale_t)0;
}
