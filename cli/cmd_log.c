/* cmd_log.c - placeholder until the command lands; it fails honestly. */
#include "cli.h"

int cmd_log(struct cli *c, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_err(c, "not implemented yet");
}
