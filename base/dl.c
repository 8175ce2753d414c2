/*
 * dl.c - libraries loaded at their first use (kt_dl.h).
 */
#include <dlfcn.h>
#include <stdio.h>

#include "kt_base.h"
#include "kt_dl.h"

int kt_dl_load(const char *soname, const struct kt_dl_sym *syms, size_t n,
	       char *why, size_t wl)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	const char *e;

	if (!h) {
		e = dlerror();
		snprintf(why, wl, "%s", e ? e : soname);
		return KT_EIO;
	}
	for (size_t i = 0; i < n; i++) {
		if ((*syms[i].slot = dlsym(h, syms[i].name)) != NULL)
			continue;
		snprintf(why, wl, "%s: no %s", soname, syms[i].name);
		for (size_t j = 0; j < n; j++)
			*syms[j].slot = NULL;
		dlclose(h);
		return KT_EIO;
	}
	return 0;
}
