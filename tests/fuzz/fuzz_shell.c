/* fuzz_shell.c - the shell command parser (and the diff header reader on
 * the output): input is "command\0output". */
#include <stdlib.h>
#include <string.h>
#include "../../import/import.h"
#include "../../import/shellparse.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *buf = malloc(size + 2);
	const char *out;
	struct kt_sh_plan p;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = 0;
	buf[size + 1] = 0;
	out = buf + strlen(buf) + 1;
	if (kt_sh_plan_build(buf, size & 1 ? "/w" : NULL, out, -1,
			     (int)(size & 2), &p) == 0)
		kt_sh_plan_free(&p);
	(void)kt_shell_runs_bench(buf);
	/* the output as a patch: the files its headers name */
	{
		char **t = NULL;
		size_t n = 0, i;

		if (kt_sh_diff_targets(out, strlen(out), size & 1 ? "/w" : NULL,
				       (int)(size % 4) - 1, &t, &n) == 0) {
			for (i = 0; i < n; i++)
				free(t[i]);
			free(t);
		}
	}
	free(buf);
	return 0;
}
