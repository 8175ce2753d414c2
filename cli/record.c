/*
 * record.c - the command side of live recording: kt_record_run's refusals
 * as the messages `append`, `hook` and `bench --record` print (the
 * recording itself is store/store_record.c).
 */
#include "cli.h"

int cli_record_run(struct cli *c, kt_store *s, const char *name,
		   const char *source, char run[KT_RUN_ID_HEX + 1], int *exists)
{
	int refused, rc;

	rc = kt_record_run(s, name, source, run, exists, &refused);
	if (!rc)
		return 0;
	if (!refused)
		return cli_store_err(c, s, rc, name);
	if (rc == KT_EEXIST)
		cli_err(c, "'%s' is a prefix of run %s's id, not a run name: give the full id to add to that run, or another name for a new one",
			name, run);
	else if (rc == KT_EAMBIG)
		cli_err(c, "'%s' matches several runs (a name, or an id prefix); give the run id",
			name);
	else
		cli_err(c, "a new run's name must be one line of valid UTF-8 without control characters (tabs, newlines, escapes); this one is not");
	return KT_EXIT_USAGE;
}
