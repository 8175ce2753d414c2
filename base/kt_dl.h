/*
 * kt_dl.h - a shared library the binary does not link, loaded when first
 * needed (base/archive_dl.h, import/sqlite_dl.h say which and why).
 */
#ifndef KT_DL_H
#define KT_DL_H

#include <stddef.h>

/* One function to look up: its name and where its address goes. */
struct kt_dl_sym {
	const char *name;
	void **slot;
};

/* A library and the functions taken from it (kt_dl_use). */
struct kt_dl_lib {
	const char *soname;
	const struct kt_dl_sym *syms;
	size_t n;
	int state;      /* 0 not tried, 1 loaded, -1 failed (why says why) */
	char why[256];
};

/*
 * Load lib once per process (thread-safe): dlopen its soname with
 * RTLD_NOW | RTLD_LOCAL (its symbols, and those of what it pulls in, stay
 * out of the process's global scope) and fill the slots of its syms; the
 * handle stays open for the process's life.  0; or KT_EIO with errno
 * ELIBACC, every slot NULL, and lib->why saying what failed in dlerror's
 * words or "SONAME: no NAME" (a later call fails the same way).
 */
int kt_dl_use(struct kt_dl_lib *lib);

#endif
