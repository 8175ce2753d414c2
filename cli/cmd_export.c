/* cmd_export.c - placeholder until the command lands; it fails honestly. */
#include "cli.h"

int cmd_export(struct cli *c, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_err(c, "not implemented yet");
}
