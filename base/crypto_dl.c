/*
 * crypto_dl.c - libcrypto loaded at its first use (crypto_dl.h says why).
 */
#define KT_CRYPTO_DL_IMPL
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include "kt_base.h"
#include "kt_dl.h"
#include "crypto_dl.h"

struct kt_crypto_api kt_cr;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char why[256];

static void load(void)
{
#define KT_CR_SYM(f) { #f, (void **)&kt_cr.f },
	static const struct kt_dl_sym syms[] = { KT_CRYPTO_FUNCS(KT_CR_SYM) };
#undef KT_CR_SYM

	loaded = kt_dl_load(KT_CRYPTO_SONAME, syms, sizeof(syms) / sizeof(syms[0]), why,
			    sizeof(why)) == 0;
}

int kt_crypto_load(void)
{
	pthread_once(&once, load);
	if (loaded)
		return 0;
	errno = ELIBACC;
	return KT_EIO;
}

const char *kt_crypto_load_error(void)
{
	return why;
}
