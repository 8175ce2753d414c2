/*
 * shell.c - typed events from finished shell tool calls (kt_shell_classify).
 * Work in progress: the parsing lives in shellparse.c.
 */
#include "import.h"

int kt_shell_classify(kt_imp *imp, uint64_t call, uint64_t result,
		      const char *cmd, const char *cwd, const char *output,
		      int exit_code, int ok, int64_t ts_ns)
{
	(void)imp; (void)call; (void)result; (void)cmd; (void)cwd;
	(void)output; (void)exit_code; (void)ok; (void)ts_ns;
	return 0;
}
