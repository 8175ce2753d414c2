/*
 * crypto_dl.h - OpenSSL's libcrypto (SHA-256 only), loaded when first
 * needed.
 *
 * ktraj uses libcrypto for SHA-256 alone (event hashes and chains, blob
 * names, run checksums, input file hashes), and linking it cost every
 * command ~4 ms of start-up on the 2-vCPU build machine (a 4.5 MB library
 * with the most relocations of the binary's: `LD_DEBUG=statistics`;
 * tests/bench/RESULTS.md "Issue 21"), `ktraj ls` included, which hashes
 * nothing.  So the binary does not link it (the same scheme as
 * import/archive_dl.h): a source that calls EVP includes this header
 * instead of <openssl/evp.h>, and each function below is a pointer of
 * kt_cr, filled by kt_crypto_load() from the distribution's shared library
 * (dlopen of KT_CRYPTO_SONAME).  EVP_MD_CTX_new() loads it first and gives
 * NULL when it cannot be loaded; EVP_Digest and EVP_MD_fetch fail (0,
 * NULL) then; the others need a context, so they run after a load.  The
 * CLI loads it before every command that may hash and says so, in one
 * line, when it cannot (cli/main.c).  Headers still come from pkg-config
 * (libssl-dev).
 */
#ifndef KT_CRYPTO_DL_H
#define KT_CRYPTO_DL_H

#include <stddef.h>

#include <openssl/evp.h>

/* OpenSSL 3's soname on Debian 12: the one pkg-config's -lcrypto links */
#define KT_CRYPTO_SONAME "libcrypto.so.3"

#define KT_CRYPTO_FUNCS(X) \
	X(EVP_Digest) \
	X(EVP_DigestFinal_ex) \
	X(EVP_DigestInit_ex) \
	X(EVP_DigestUpdate) \
	X(EVP_MD_CTX_free) \
	X(EVP_MD_CTX_new) \
	X(EVP_MD_fetch) \
	X(EVP_sha256)

struct kt_crypto_api {
#define KT_CR_MEMBER(f) __typeof__(f) *f;
	KT_CRYPTO_FUNCS(KT_CR_MEMBER)
#undef KT_CR_MEMBER
};
extern struct kt_crypto_api kt_cr;

/*
 * Load libcrypto and fill kt_cr, once per process (thread-safe).  0, or
 * KT_EIO with errno ELIBACC when the library or one of the functions is
 * missing (kt_crypto_load_error() then says which, in dlerror's words).
 */
int kt_crypto_load(void);
/* Why the load failed ("" when it did not). */
const char *kt_crypto_load_error(void);

#ifndef KT_CRYPTO_DL_IMPL
#define EVP_Digest(d, n, md, s, t, e) \
	(kt_crypto_load() ? 0 : kt_cr.EVP_Digest(d, n, md, s, t, e))
#define EVP_DigestFinal_ex kt_cr.EVP_DigestFinal_ex
#define EVP_DigestInit_ex kt_cr.EVP_DigestInit_ex
#define EVP_DigestUpdate kt_cr.EVP_DigestUpdate
/* NULL (no context: perhaps no library) is a no-op, as in OpenSSL */
#define EVP_MD_CTX_free(c) ((c) ? kt_cr.EVP_MD_CTX_free(c) : (void)0)
#define EVP_MD_CTX_new() (kt_crypto_load() ? NULL : kt_cr.EVP_MD_CTX_new())
#define EVP_MD_fetch(c, a, p) \
	(kt_crypto_load() ? NULL : kt_cr.EVP_MD_fetch(c, a, p))
#define EVP_sha256 kt_cr.EVP_sha256
#endif

#endif
