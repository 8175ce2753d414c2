/*
 * seccomp_dl.c - libseccomp loaded at its first use (seccomp_dl.h says why).
 */
#define KT_SECCOMP_DL_IMPL

#include "../base/kt_base.h"
#include "../base/kt_dl.h"
#include "seccomp_dl.h"

struct kt_seccomp_api kt_sc;

#define KT_SC_SYM(f) { #f, (void **)&kt_sc.f },
static const struct kt_dl_sym syms[] = { KT_SECCOMP_FUNCS(KT_SC_SYM) };
#undef KT_SC_SYM
static struct kt_dl_lib lib = { KT_SECCOMP_SONAME, syms,
				sizeof(syms) / sizeof(syms[0]), 0, "" };

int kt_seccomp_load(void)
{
	return kt_dl_use(&lib);
}

const char *kt_seccomp_load_error(void)
{
	return lib.why;
}
