/*
 * seccomp_dl.h - libseccomp, loaded when first needed.
 *
 * Only `replay` (its sandbox's seccomp filter, sandbox.c) uses libseccomp,
 * and linking it made every command load it at start-up.  So the binary
 * does not link it (the scheme of base/archive_dl.h): sandbox.c includes
 * this header instead of <seccomp.h>, and each function below is a pointer
 * of kt_sc, filled by kt_seccomp_load() from the distribution's shared
 * library (dlopen of KT_SECCOMP_SONAME).  kt_sandbox_seccomp_fd() loads it
 * before its first call; when the load fails there is no filter, and a
 * sandboxed replay refuses to run (it never runs a step unfiltered).
 * Headers still come from pkg-config (libseccomp-dev).
 */
#ifndef KT_SECCOMP_DL_H
#define KT_SECCOMP_DL_H

#include <seccomp.h>

/* libseccomp 2's soname on Debian (and most distributions) */
#define KT_SECCOMP_SONAME "libseccomp.so.2"

#define KT_SECCOMP_FUNCS(X) \
	X(seccomp_export_bpf) \
	X(seccomp_init) \
	X(seccomp_release) \
	X(seccomp_rule_add) \
	X(seccomp_syscall_resolve_name)

struct kt_seccomp_api {
#define KT_SC_MEMBER(f) __typeof__(f) *f;
	KT_SECCOMP_FUNCS(KT_SC_MEMBER)
#undef KT_SC_MEMBER
};
extern struct kt_seccomp_api kt_sc;

/*
 * Load libseccomp and fill kt_sc, once per process (thread-safe).  0, or
 * KT_EIO with errno ELIBACC when the library or one of the functions is
 * missing (kt_seccomp_load_error() then says which, in dlerror's words;
 * a later call fails the same way).  Every other function of this header
 * needs a load that returned 0.
 */
int kt_seccomp_load(void);
/* Why the load failed ("" when it did not). */
const char *kt_seccomp_load_error(void);

#ifndef KT_SECCOMP_DL_IMPL
#define seccomp_export_bpf kt_sc.seccomp_export_bpf
#define seccomp_init kt_sc.seccomp_init
#define seccomp_release kt_sc.seccomp_release
#define seccomp_rule_add kt_sc.seccomp_rule_add
#define seccomp_syscall_resolve_name kt_sc.seccomp_syscall_resolve_name
#endif

#endif
