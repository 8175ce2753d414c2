/*
 * archive_policy.h - the one list of archive formats ktraj reads, for the
 * import driver (import/input.c) and `ktraj show --source` (cli/cmd_show.c),
 * which reads a record back from the archive it was imported from.
 *
 * Container formats only (tar, zip, 7z, cpio, ar) and a single compressed
 * file (libarchive's "raw" format), each through every filter libarchive
 * has (gzip, zstd, xz, bzip2, ...).  Not archive_read_support_format_all:
 * its mtree reader takes a text file (a .jsonl.gz) for a manifest, makes
 * each line a member name and reads the files so named from the disk, and
 * its text "formats" would shadow the raw one that a compressed log needs.
 * To read another format, add it to the table in archive_policy.c (and its
 * magic bytes to kt_archive_magic when it is a container).
 */
#ifndef KT_ARCHIVE_POLICY_H
#define KT_ARCHIVE_POLICY_H

#include <stddef.h>
#include "../base/archive_dl.h" /* libarchive, loaded when first used */

/*
 * A libarchive read handle that accepts exactly the formats above (the
 * caller opens it and frees it with archive_read_free), or NULL on ENOMEM.
 */
struct archive *kt_archive_reader(void);

/* Member names as UTF-8: kt_archive_utf8_enter and kt_archive_utf8_leave
 * (base/archive_dl.h), shared with the replay sandbox's bundle reader. */

/*
 * Whether the first n bytes of p start an archive or a compressed file
 * ktraj opens as one: zip (local header or empty-archive end record), 7z,
 * gzip, zstd, xz, bzip2, or a POSIX tar header ("ustar" at byte 257).
 * 1 or 0.
 */
int kt_archive_magic(const unsigned char *p, size_t n);

#endif
