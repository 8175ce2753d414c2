/*
 * elfcheck.c - the static check of a compiled candidate: every dynamic
 * symbol it imports or exports is matched against a deny list (exploit
 * classes of shared/research/harness.md §2: side streams (1), host threads
 * (2), timer interposition (4), allocations that outlive a call (5, 6),
 * hardware-state changes (13), library fallbacks (14), graph replay (15)).
 * ELF layout per the System V gABI (https://refspecs.linuxbase.org/elf/gabi4+/).
 */
#include <elf.h>
#include <fnmatch.h>
#include <string.h>
#include <stdlib.h>

#include "check.h"
#include "util.h"

/* Glob patterns; a trailing comment says why. */
static const char *const deny[] = {
	"pthread_create", "thrd_create", "fork", "vfork", "clone", "clone3",
	"exec[lv]*", "system", "popen", "posix_spawn*",      /* host work */
	"dlopen", "dlmopen", "dlsym", "dlvsym",              /* hidden calls */
	"cudaStream*", "cudaLaunchHostFunc", "cuStream*",
	"cuLaunchHostFunc",                                  /* side streams */
	"cudaEvent*", "cuEvent*", "clock_gettime", "gettimeofday",
	"clock", "time", "timespec_get",                     /* timers */
	"cudaGraph*", "cuGraph*",                            /* replay */
	"cudaDeviceSynchronize", "cudaThreadSynchronize", "cuCtxSynchronize",
	"cudaDeviceSetLimit", "cudaCtxResetPersistingL2Cache",
	"cudaDeviceReset", "cudaSetDevice", "cudaDeviceSetCacheConfig",
	"cuCtx*", "cuDevicePrimaryCtx*",                     /* device state */
	"cudaMalloc*", "cudaFree*", "cudaHostAlloc", "cudaMallocHost",
	"cuMem*", "cudaMemcpy", "cudaMemcpyToSymbol", "cudaMemcpyFromSymbol",
	"cudaMemcpy2D", "cudaMemcpy3D", "cudaMemset",        /* sync/alloc */
	"nvml*", "cublas*", "cublasLt*", "cudnn*", "cufft*", "curand*",
	"cusparse*", "cusolver*", "nccl*", "cutensor*",      /* libraries */
	"fopen*", "open", "open64", "openat*", "mmap*", "mprotect",
	"syscall", "ptrace", "process_vm_*",                 /* memory scans */
	"setenv", "putenv", "signal", "sigaction",         /* side effects */
	NULL
};

static int denied(const char *name)
{
	int i;

	for (i = 0; deny[i]; i++)
		if (!fnmatch(deny[i], name, 0))
			return 1;
	return 0;
}

int kth_elf_check(const char *path, kth_buf *forbidden, int *nbad)
{
	size_t len, i, j;
	char *img = kth_read_file(path, &len);
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	int rc = -1;

	*nbad = 0;
	if (!img)
		return -1;
	eh = (const Elf64_Ehdr *)img;
	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff == 0 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff > len || eh->e_shnum > (len - eh->e_shoff) / sizeof(Elf64_Shdr))
		goto out;
	sh = (const Elf64_Shdr *)(img + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *str;
		const Elf64_Sym *sym;
		size_t nsym;

		if (sh[i].sh_type != SHT_DYNSYM && sh[i].sh_type != SHT_SYMTAB)
			continue;
		if (sh[i].sh_link >= eh->e_shnum || sh[i].sh_offset > len ||
		    sh[i].sh_size > len - sh[i].sh_offset)
			goto out;
		str = &sh[sh[i].sh_link];
		if (str->sh_offset > len || str->sh_size > len - str->sh_offset)
			goto out;
		sym = (const Elf64_Sym *)(img + sh[i].sh_offset);
		nsym = sh[i].sh_size / sizeof(Elf64_Sym);
		for (j = 0; j < nsym; j++) {
			const char *name;
			int type = ELF64_ST_TYPE(sym[j].st_info);

			if (sym[j].st_name >= str->sh_size)
				continue;
			if (type != STT_FUNC && type != STT_NOTYPE &&
			    type != STT_OBJECT && type != STT_GNU_IFUNC)
				continue;
			name = img + str->sh_offset + sym[j].st_name;
			if (!memchr(name, 0, str->sh_size - sym[j].st_name) || !*name)
				continue;
			if (!denied(name))
				continue;
			/* The same name can sit in .symtab and .dynsym. */
			if (forbidden->s && strstr(forbidden->s, name))
				continue;
			if (*nbad)
				kb_put(forbidden, ",", 1);
			kb_jstr(forbidden, name);
			(*nbad)++;
		}
	}
	rc = 0;
out:
	free(img);
	return rc;
}
