/*
 * archive_policy.c - the archive formats ktraj reads (archive_policy.h).
 * libarchive: https://libarchive.org (archive_read_format(3),
 * archive_read_filter(3)).
 */
#include <string.h>

#include "archive_policy.h"

struct archive *kt_archive_reader(void)
{
	struct archive *a = archive_read_new();
	/* containers, then "raw" for one compressed file: libarchive bids
	 * every enabled format and takes the best, so raw only wins when no
	 * container does (filled here: the functions are loaded, not linked) */
	int (*const formats[])(struct archive *) = {
		archive_read_support_format_tar,
		archive_read_support_format_zip,
		archive_read_support_format_7zip,
		archive_read_support_format_cpio,
		archive_read_support_format_ar,
		archive_read_support_format_raw,
	};

	if (!a)
		return NULL;
	archive_read_support_filter_all(a);
	for (size_t i = 0; i < sizeof(formats) / sizeof(*formats); i++)
		formats[i](a);
	return a;
}

int kt_archive_magic(const unsigned char *p, size_t n)
{
	if (n >= 4 && p[0] == 'P' && p[1] == 'K' &&
	    ((p[2] == 3 && p[3] == 4) || (p[2] == 5 && p[3] == 6)))
		return 1;
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return 1;
	if (n >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f &&
	    p[3] == 0xfd)
		return 1;
	/* 7z's signature header (7zFormat.txt): the 7zip reader is in the
	 * table above, but a .7z was not sniffed as an archive at all */
	if (n >= 6 && !memcmp(p, "7z\xbc\xaf\x27\x1c", 6))
		return 1;
	if (n >= 6 && !memcmp(p, "\xfd" "7zXZ\0", 6))
		return 1;
	if (n >= 3 && !memcmp(p, "BZh", 3))
		return 1;
	if (n >= 262 && !memcmp(p + 257, "ustar", 5))
		return 1;
	return 0;
}
