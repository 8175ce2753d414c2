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

#include <locale.h>
#include <stddef.h>
#include "../base/archive_dl.h" /* libarchive, loaded when first used */

/*
 * A libarchive read handle that accepts exactly the formats above (the
 * caller opens it and frees it with archive_read_free), or NULL on ENOMEM.
 */
struct archive *kt_archive_reader(void);

/*
 * Member names as UTF-8 while the calling thread reads an archive.
 * libarchive converts the names an archive declares as UTF-8 or UTF-16 (a
 * zip member with flag bit 11, which Python's zipfile and Java set for any
 * non-ASCII name; pax tar's path records; every 7z name) to the thread's
 * locale, and the C locale a program starts in has no non-ASCII
 * characters: such a member came back with no name at all.  Names with no
 * declared charset (Info-ZIP's zip, GNU and ustar tar) are copied as they
 * are either way.  kt_archive_utf8_enter switches LC_CTYPE of the calling
 * thread only (uselocale(3)) to C.UTF-8, so the process's locale and other
 * threads are untouched; kt_archive_utf8_leave puts the thread's previous
 * locale back and frees the one made.  Enter before kt_archive_reader (the
 * reader keeps the charset it first sees) and leave after
 * archive_read_free; pairs nest.  When C.UTF-8 cannot be made, nothing is
 * switched and names convert as they did (non-ASCII ones fail, and the
 * caller says so).
 */
struct kt_archive_utf8 {
	locale_t prev; /* the thread's locale before, (locale_t)0: none set */
	locale_t mine; /* the C.UTF-8 locale made, (locale_t)0: none */
};
void kt_archive_utf8_enter(struct kt_archive_utf8 *u);
void kt_archive_utf8_leave(struct kt_archive_utf8 *u);

/*
 * Whether the first n bytes of p start an archive or a compressed file
 * ktraj opens as one: zip (local header or empty-archive end record), 7z,
 * gzip, zstd, xz, bzip2, or a POSIX tar header ("ustar" at byte 257).
 * 1 or 0.
 */
int kt_archive_magic(const unsigned char *p, size_t n);

#endif
