/* check.h - static check of a candidate shared object (elfcheck.c). */
#ifndef KTH_CHECK_H
#define KTH_CHECK_H
#include "util.h"
#ifdef __cplusplus
extern "C" {
#endif
/* Append the JSON strings (comma-separated, no brackets) of every denied
 * symbol the object imports or defines to `forbidden`; *nbad counts them.
 * Returns 0, or -1 when the file is not a readable ELF64 object. */
int kth_elf_check(const char *path, kth_buf *forbidden, int *nbad);
#ifdef __cplusplus
}
#endif
#endif
