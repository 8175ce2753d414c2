/*
 * crypto_dl.c - libcrypto loaded at its first use (crypto_dl.h says why).
 */
#define KT_CRYPTO_DL_IMPL

#include "kt_base.h"
#include "kt_dl.h"
#include "crypto_dl.h"

struct kt_crypto_api kt_cr;

#define KT_CR_SYM(f) { #f, (void **)&kt_cr.f },
static const struct kt_dl_sym syms[] = { KT_CRYPTO_FUNCS(KT_CR_SYM) };
#undef KT_CR_SYM
static struct kt_dl_lib lib = { KT_CRYPTO_SONAME, syms,
				sizeof(syms) / sizeof(syms[0]), 0, "" };

int kt_crypto_load(void)
{
	return kt_dl_use(&lib);
}

const char *kt_crypto_load_error(void)
{
	return lib.why;
}
