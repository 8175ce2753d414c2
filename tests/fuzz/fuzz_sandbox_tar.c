/*
 * fuzz_sandbox_tar.c - kt_sandbox_plain_tar (replay/sandbox.h) on any
 * bytes: it must not crash or leak, and whatever it accepts must read back
 * as a tar whose every member has a relative name without ".." and is a
 * file or a folder (what the sandbox's `tar -x` is handed).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <archive.h>
#include <archive_entry.h>
#include "../../replay/sandbox.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int in = memfd_create("fuzz", MFD_CLOEXEC), out = -1;
	char err[256], *manifest = NULL;

	if (in < 0)
		return 0;
	if (size > (1u << 20) || write(in, data, size) != (ssize_t)size) {
		close(in);
		return 0;
	}
	if (kt_sandbox_plain_tar(in, "b/manifest.json", 1u << 26, &out, &manifest, err, sizeof(err)) == 0) {
		struct archive *a = archive_read_new();
		struct archive_entry *e;

		archive_read_support_format_tar(a);
		if (archive_read_open_fd(a, out, 1 << 16) != ARCHIVE_OK)
			abort();
		while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
			const char *n = archive_entry_pathname(e);

			if (!n || n[0] == '/' || strstr(n, "..") ||
			    (archive_entry_filetype(e) != AE_IFREG &&
			     archive_entry_filetype(e) != AE_IFDIR))
				abort();
		}
		archive_read_free(a);
		close(out);
	}
	free(manifest);
	close(in);
	return 0;
}
