/*
 * dl.c - libraries loaded at their first use (kt_dl.h).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include "kt_base.h"
#include "kt_dl.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static int load(struct kt_dl_lib *lib)
{
	void *h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
	const char *e;

	if (!h) {
		e = dlerror();
		snprintf(lib->why, sizeof(lib->why), "%s", e ? e : lib->soname);
		return -1;
	}
	for (size_t i = 0; i < lib->n; i++) {
		if ((*lib->syms[i].slot = dlsym(h, lib->syms[i].name)) != NULL)
			continue;
		snprintf(lib->why, sizeof(lib->why), "%s: no %s", lib->soname,
			 lib->syms[i].name);
		for (size_t j = 0; j < lib->n; j++)
			*lib->syms[j].slot = NULL;
		dlclose(h);
		return -1;
	}
	return 1;
}

int kt_dl_use(struct kt_dl_lib *lib)
{
	/* the common case, once loaded: one load of an int (SHA-256 of
	 * every event asks) */
	int st = __atomic_load_n(&lib->state, __ATOMIC_ACQUIRE);

	if (!st) {
		pthread_mutex_lock(&mu);
		if (!(st = lib->state))
			__atomic_store_n(&lib->state, st = load(lib),
					 __ATOMIC_RELEASE);
		pthread_mutex_unlock(&mu);
	}
	if (st > 0)
		return 0;
	errno = ELIBACC;
	return KT_EIO;
}
