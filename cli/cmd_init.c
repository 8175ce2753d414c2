/* cmd_init.c - `ktraj init`: create an empty store. */
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static const char usage[] =
	"usage: ktraj init\n"
	"\n"
	"Create an empty store at --store PATH, $KTRAJ_STORE or ./" KT_DEFAULT_STORE
	"\n(a file plus PATH-lock).  An existing store is left as it is.\n";

int cmd_init(struct cli *c, int argc, char **argv)
{
	struct stat st;
	kt_store *s = NULL;
	int existed, rc;

	if (cli_wants_help(argc, argv, usage))
		return KT_EXIT_OK;
	if (argc > 1)
		return cli_usage(c, "unexpected argument '%s'", argv[1]);
	existed = stat(c->store_path, &st) == 0;
	rc = cli_open(c, 0, &s);
	if (rc)
		return rc;
	rc = kt_store_close(s);
	if (rc)
		return cli_store_err(c, NULL, rc, c->store_path);
	printf("%s ktraj store at %s\n",
	       existed ? "existing" : "initialized empty", c->store_path);
	return KT_EXIT_OK;
}
