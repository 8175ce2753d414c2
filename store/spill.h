/*
 * spill.h - where an importer's id sets go once they pass their memory
 * budget (issue 21: import peak memory bounded whatever the input size).
 *
 * A kt_spill is a temporary LMDB environment in $TMPDIR (else /tmp), the
 * file unlinked as soon as it is open: nothing of it outlives the process,
 * a kill -9 included, and it is never part of the store.  It holds
 * (set, key) -> value records: set is a small tag naming the id set (one
 * environment serves several), key a NUL-terminated id string.  The
 * importer keeps its recent ids in a kt_strmap and moves them here in one
 * sorted pass when the map is full (kt_spill_put each, in key order, then
 * kt_strmap_clear), and looks an id up here only when the map misses.
 *
 * Memory: LMDB's dirty pages are committed every KT_SPILL_TXN puts, and
 * the environment's read-only map is dropped from the process's resident
 * pages (madvise MADV_DONTNEED; the pages stay in the file) every
 * KT_SPILL_TOUCH operations, so what this costs in RSS is bounded by those
 * two whatever the number of ids.
 *
 * Keys are stored whole, so a lookup answers exactly; an id longer than
 * LMDB's key limit (511 bytes) is stored under its SHA-256 with the set's
 * tag | 0x80, apart from every whole key (a wrong answer would take a
 * SHA-256 collision between two such ids).
 */
#ifndef KT_SPILL_H
#define KT_SPILL_H

#include <stddef.h>

typedef struct kt_spill kt_spill;

/* Open one, empty.  0, KT_EIO (no temporary file or LMDB refused it:
 * errno kept) or KT_ENOMEM. */
int kt_spill_open(kt_spill **out);
/* Set (set: a tag, 0..127) key to the n bytes at val (n <= 64; a copy).
 * 0, KT_EINVAL, KT_EIO (LMDB failed, the disk is full included) or
 * KT_ENOMEM. */
int kt_spill_put(kt_spill *sp, unsigned set, const char *key,
		 const void *val, size_t n);
/* The value of (set, key) copied into val (cap bytes; *n its length, may
 * be NULL).  0 when found, KT_ENOTFOUND when not, KT_EIO, KT_EINVAL. */
int kt_spill_get(kt_spill *sp, unsigned set, const char *key, void *val,
		 size_t cap, size_t *n);
/* Close and free it (NULL is fine); its file is gone with it. */
void kt_spill_close(kt_spill *sp);

#endif
