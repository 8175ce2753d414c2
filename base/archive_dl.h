/*
 * archive_dl.h - libarchive, loaded when first needed.
 *
 * Only import (archives and compressed files), replay bundles, the sandbox
 * and the table export use libarchive, and linking it made every command
 * load it with what it links (libxml2, ICU, nettle, lzma, ...: 10 of the
 * binary's 22 libraries, most of the start-up of `ktraj ls` on a small
 * store; tests/bench/RESULTS.md "Issue 21").  So the binary does not link
 * it: a source that calls libarchive includes this header instead of
 * <archive.h>, and each libarchive function it names is a pointer of
 * kt_ar, filled by kt_archive_load() from the distribution's shared
 * library (dlopen of KT_ARCHIVE_SONAME).  The functions that make a handle
 * (archive_read_new, archive_write_new, archive_write_disk_new,
 * archive_entry_new) load it first and give NULL with errno ELIBACC when it
 * cannot be loaded; every other call needs such a handle, so it runs after
 * a load.  Headers still come from pkg-config (libarchive-dev).
 *
 * To call another libarchive function, add it to KT_ARCHIVE_FUNCS and a
 * #define below.
 */
#ifndef KT_ARCHIVE_DL_H
#define KT_ARCHIVE_DL_H

#include <locale.h>
#include <stddef.h>

#include <archive.h>
#include <archive_entry.h>

/* libarchive 3's soname on Debian (and most distributions): the one
 * pkg-config's -larchive links */
#define KT_ARCHIVE_SONAME "libarchive.so.13"

#define KT_ARCHIVE_FUNCS(X) \
	X(archive_entry_filetype) \
	X(archive_entry_free) \
	X(archive_entry_hardlink) \
	X(archive_entry_new) \
	X(archive_entry_pathname) \
	X(archive_entry_perm) \
	X(archive_entry_mtime) \
	X(archive_entry_set_filetype) \
	X(archive_entry_set_mtime) \
	X(archive_entry_set_pathname) \
	X(archive_entry_set_perm) \
	X(archive_entry_set_size) \
	X(archive_entry_size) \
	X(archive_entry_size_is_set) \
	X(archive_entry_symlink) \
	X(archive_error_string) \
	X(archive_filter_bytes) \
	X(archive_format) \
	X(archive_read_data) \
	X(archive_read_free) \
	X(archive_read_new) \
	X(archive_read_next_header) \
	X(archive_read_open_fd) \
	X(archive_read_open_filename) \
	X(archive_read_open_memory) \
	X(archive_read_support_filter_all) \
	X(archive_read_support_format_7zip) \
	X(archive_read_support_format_all) \
	X(archive_read_support_format_ar) \
	X(archive_read_support_format_cpio) \
	X(archive_read_support_format_raw) \
	X(archive_read_support_format_tar) \
	X(archive_read_support_format_zip) \
	X(archive_write_add_filter_gzip) \
	X(archive_write_add_filter_none) \
	X(archive_write_add_filter_zstd) \
	X(archive_write_close) \
	X(archive_write_data) \
	X(archive_write_disk_new) \
	X(archive_write_disk_set_options) \
	X(archive_write_finish_entry) \
	X(archive_write_free) \
	X(archive_write_header) \
	X(archive_write_new) \
	X(archive_write_open_fd) \
	X(archive_write_open_filename) \
	X(archive_write_set_bytes_in_last_block) \
	X(archive_write_set_filter_option) \
	X(archive_write_set_format_pax_restricted) \
	X(archive_write_set_format_raw)

struct kt_archive_api {
#define KT_AR_MEMBER(f) __typeof__(f) *f;
	KT_ARCHIVE_FUNCS(KT_AR_MEMBER)
#undef KT_AR_MEMBER
};
extern struct kt_archive_api kt_ar;

/*
 * Load libarchive and fill kt_ar, once per process (thread-safe).  0, or
 * KT_EIO with errno ELIBACC when the library or one of the functions is
 * missing (kt_archive_load_error() then says which, in dlerror's words).
 */
int kt_archive_load(void);
/* Why the load failed ("" when it did not). */
const char *kt_archive_load_error(void);
/*
 * For a caller whose libarchive handle came back NULL: KT_ENOMEM when
 * libarchive is loaded (the handle's allocation failed), else KT_EIO with
 * "cannot load libarchive (<dlerror's words>)" in err (errlen bytes,
 * truncated, NUL-terminated; err may be NULL), so a missing or broken
 * library is not reported as "out of memory".
 */
int kt_archive_fail(char *err, size_t errlen);

/*
 * Member names as UTF-8 while the calling thread reads an archive.
 * Import (archives), `ktraj show --source` and the replay sandbox (bundle
 * tars, which Python's tarfile writes as pax with UTF-8 path records) all
 * read through it, so a name one accepts the others read alike.
 * libarchive converts the names an archive declares as UTF-8 or UTF-16 (a
 * zip member with flag bit 11, which Python's zipfile and Java set for any
 * non-ASCII name; pax tar's path records; every 7z name) to the thread's
 * locale, and the C locale a program starts in has no non-ASCII
 * characters: such a member came back with no name at all.  Names with no
 * declared charset (Info-ZIP's zip, GNU and ustar tar) are copied as they
 * are either way.  kt_archive_utf8_enter switches LC_CTYPE of the calling
 * thread only (uselocale(3)) to C.UTF-8, so the process's locale and other
 * threads are untouched; kt_archive_utf8_leave puts the thread's previous
 * locale back and frees the one made.  Enter before the handles are made
 * (kt_archive_reader, archive_read_new, archive_write_new: a handle keeps
 * the charset it first sees) and leave after they are freed; pairs nest.  When C.UTF-8 cannot be made, nothing is
 * switched and names convert as they did (non-ASCII ones fail, and the
 * caller says so).
 */
struct kt_archive_utf8 {
	locale_t prev; /* the thread's locale before, (locale_t)0: none set */
	locale_t mine; /* the C.UTF-8 locale made, (locale_t)0: none */
};
void kt_archive_utf8_enter(struct kt_archive_utf8 *u);
void kt_archive_utf8_leave(struct kt_archive_utf8 *u);

#ifndef KT_ARCHIVE_DL_IMPL
#define archive_entry_filetype kt_ar.archive_entry_filetype
#define archive_entry_free kt_ar.archive_entry_free
#define archive_entry_hardlink kt_ar.archive_entry_hardlink
#define archive_entry_new() (kt_archive_load() ? NULL : kt_ar.archive_entry_new())
#define archive_entry_pathname kt_ar.archive_entry_pathname
#define archive_entry_perm kt_ar.archive_entry_perm
#define archive_entry_mtime kt_ar.archive_entry_mtime
#define archive_entry_set_filetype kt_ar.archive_entry_set_filetype
#define archive_entry_set_mtime kt_ar.archive_entry_set_mtime
#define archive_entry_set_pathname kt_ar.archive_entry_set_pathname
#define archive_entry_set_perm kt_ar.archive_entry_set_perm
#define archive_entry_set_size kt_ar.archive_entry_set_size
#define archive_entry_size kt_ar.archive_entry_size
#define archive_entry_size_is_set kt_ar.archive_entry_size_is_set
#define archive_entry_symlink kt_ar.archive_entry_symlink
#define archive_error_string kt_ar.archive_error_string
#define archive_filter_bytes kt_ar.archive_filter_bytes
#define archive_format kt_ar.archive_format
#define archive_read_data kt_ar.archive_read_data
#define archive_read_free kt_ar.archive_read_free
#define archive_read_new() (kt_archive_load() ? NULL : kt_ar.archive_read_new())
#define archive_read_next_header kt_ar.archive_read_next_header
#define archive_read_open_fd kt_ar.archive_read_open_fd
#define archive_read_open_filename kt_ar.archive_read_open_filename
#define archive_read_open_memory kt_ar.archive_read_open_memory
#define archive_read_support_filter_all kt_ar.archive_read_support_filter_all
#define archive_read_support_format_7zip kt_ar.archive_read_support_format_7zip
#define archive_read_support_format_all kt_ar.archive_read_support_format_all
#define archive_read_support_format_ar kt_ar.archive_read_support_format_ar
#define archive_read_support_format_cpio kt_ar.archive_read_support_format_cpio
#define archive_read_support_format_raw kt_ar.archive_read_support_format_raw
#define archive_read_support_format_tar kt_ar.archive_read_support_format_tar
#define archive_read_support_format_zip kt_ar.archive_read_support_format_zip
#define archive_write_add_filter_gzip kt_ar.archive_write_add_filter_gzip
#define archive_write_add_filter_none kt_ar.archive_write_add_filter_none
#define archive_write_add_filter_zstd kt_ar.archive_write_add_filter_zstd
#define archive_write_close kt_ar.archive_write_close
#define archive_write_data kt_ar.archive_write_data
#define archive_write_disk_new() (kt_archive_load() ? NULL : kt_ar.archive_write_disk_new())
#define archive_write_disk_set_options kt_ar.archive_write_disk_set_options
#define archive_write_finish_entry kt_ar.archive_write_finish_entry
#define archive_write_free kt_ar.archive_write_free
#define archive_write_header kt_ar.archive_write_header
#define archive_write_new() (kt_archive_load() ? NULL : kt_ar.archive_write_new())
#define archive_write_open_fd kt_ar.archive_write_open_fd
#define archive_write_open_filename kt_ar.archive_write_open_filename
#define archive_write_set_bytes_in_last_block kt_ar.archive_write_set_bytes_in_last_block
#define archive_write_set_filter_option kt_ar.archive_write_set_filter_option
#define archive_write_set_format_pax_restricted kt_ar.archive_write_set_format_pax_restricted
#define archive_write_set_format_raw kt_ar.archive_write_set_format_raw
#endif

#endif
