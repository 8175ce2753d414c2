/*
 * fuzz_cgroup.c - kt_cgroup_locate (replay/cgroup.h) on any text: the
 * first byte picks the controller ("" for cgroup v2, memory, pids,
 * freezer), the rest up to the first form feed is /proc/self/cgroup and
 * what follows /proc/self/mountinfo.  It must not crash, and a directory
 * it finds must lie under the mount point it names, without "..".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../../replay/cgroup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const ctl[] = { "", "memory", "pids", "freezer" };
	char *text, *mi, dir[KT_CGROUP_PATH], mnt[KT_CGROUP_PATH];
	size_t n;

	if (!size)
		return 0;
	text = malloc(size);
	if (!text)
		abort();
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	mi = strchr(text, '\f');
	if (mi)
		*mi++ = 0;
	if (!kt_cgroup_locate(text, mi ? mi : "", ctl[data[0] % 4], dir, sizeof(dir), mnt,
			      sizeof(mnt))) {
		n = strlen(mnt);
		if (strncmp(dir, mnt, n) || (dir[n] && dir[n] != '/'))
			abort();
		if (strstr(dir + n, "/../") ||
		    (strlen(dir + n) >= 3 && !strcmp(dir + strlen(dir) - 3, "/..")))
			abort();
	}
	free(text);
	return 0;
}
