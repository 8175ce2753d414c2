/* fuzz_perfreport.c - Triton perf_report tables and the Benchmark(...) of
 * the script that declares their unit: the input up to its first NUL is
 * the script (a command's heredoc), the rest the command's output. */
#include <stdlib.h>
#include <string.h>
#include "../../import/imp_int.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	const char *d = (const char *)data, *z = memchr(d, 0, size);
	char *cmd;
	cJSON *r = NULL;
	int unread;

	if (!z)
		return 0;
	cmd = strndup(d, (size_t)(z - d));
	if (!cmd)
		return 0;
	if (kt_perf_report(NULL, cmd, z + 1, size - (size_t)(z + 1 - d), &r,
			   &unread) == 0)
		cJSON_Delete(r);
	free(cmd);
	return 0;
}
