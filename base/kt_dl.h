/*
 * kt_dl.h - a shared library the binary does not link, loaded when first
 * needed (import/archive_dl.h, base/crypto_dl.h say which and why).
 */
#ifndef KT_DL_H
#define KT_DL_H

#include <stddef.h>

/* One function to look up: its name and where its address goes. */
struct kt_dl_sym {
	const char *name;
	void **slot;
};

/*
 * dlopen soname (RTLD_NOW | RTLD_LOCAL: its symbols, and those of what it
 * pulls in, stay out of the process's global scope) and fill the n slots
 * of syms.  0, the handle kept open for the process's life; or KT_EIO with
 * every slot NULL and why (wl bytes, NUL-terminated) saying what failed in
 * dlerror's words or "SONAME: no NAME".  Not thread-safe: callers run it
 * once (pthread_once).
 */
int kt_dl_load(const char *soname, const struct kt_dl_sym *syms, size_t n,
	       char *why, size_t wl);

#endif
