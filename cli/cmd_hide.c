/* cmd_hide.c - `ktraj hide RUN...` / `ktraj unhide RUN...`: leave runs out
 * of listings without deleting anything (FORMAT.md §6.1 "Run marks"). */
#include <string.h>

#include "cli.h"

static const char hide_usage[] =
	"usage: ktraj hide RUN...\n"
	"\n"
	"Hide runs imported by mistake: ls, search, questions mine and export\n"
	"leave them out unless given --all.  Nothing is deleted: the store\n"
	"stays append-only (a hide record is appended), the run still reads\n"
	"by its id or name, and `ktraj unhide RUN` shows it again.\n";

static const char unhide_usage[] =
	"usage: ktraj unhide RUN...\n"
	"\n"
	"Show runs hidden with `ktraj hide` again (an unhide record is\n"
	"appended).  `ktraj ls --all` lists hidden runs too.\n";

/* one transaction for all the runs named: all marked, or none */
static int mark(struct cli *c, int argc, char **argv, int hide,
		const char *usage)
{
	char run[KT_RUN_ID_HEX + 1];
	kt_store *s = NULL;
	int i, rc, done;

	if (cli_wants_help(argc, argv, usage))
		return KT_EXIT_OK;
	if (argc < 2)
		return cli_usage(c, "needs a RUN");
	for (i = 1; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1])
			return cli_bad_option(c, usage, argv[i]);
	if ((rc = cli_open(c, 0, &s)) != 0)
		return rc;
	if ((rc = kt_store_begin(s)) != 0) {
		rc = cli_store_err(c, s, rc, "begin");
		goto out;
	}
	for (i = 1; i < argc; i++) {
		if ((rc = cli_run(c, s, argv[i], run)) != 0)
			goto abort;
		done = kt_run_hide(s, run, hide);
		if (done < 0) {
			rc = cli_store_err(c, s, done, run);
			goto abort;
		}
		printf("%s %s%s\n", hide ? "hid" : "unhid", run,
		       done == 1 ? (hide ? " (already hidden)" :
				    " (was not hidden)") : "");
	}
	if ((rc = kt_store_commit(s)) != 0)
		rc = cli_store_err(c, s, rc, "commit");
	goto out;
abort:
	kt_store_abort(s);
out:
	kt_store_close(s);
	return rc;
}

int cmd_hide(struct cli *c, int argc, char **argv)
{
	return mark(c, argc, argv, 1, hide_usage);
}

int cmd_unhide(struct cli *c, int argc, char **argv)
{
	return mark(c, argc, argv, 0, unhide_usage);
}

int cli_hidden_skip(kt_store *s, const char *id, int all)
{
	int h;

	if (all)
		return 0;
	h = kt_run_hidden(s, id);
	return h < 0 ? h : h == 1;
}
