/*
 * cmd_hook.c - `ktraj hook`: live recording from inside the agents.
 *
 *   ktraj hook claude-code   a Claude Code command hook: one hook event as
 *                            JSON on stdin (https://docs.claude.com/en/docs/
 *                            claude-code/hooks, "Hook Input"), recorded as
 *                            ktraj events of the session's run
 *   ktraj hook codex JSON    Codex's `notify` program: one
 *                            agent-turn-complete payload as the last
 *                            argument (Codex docs/config.md "notify")
 *   ktraj hook install       the hooks written into .claude/settings.json
 *                            (`install gemini-cli`: .gemini/settings.json)
 *
 * The mapping of hook events to ktraj events is import/hook.c; this file
 * reads the event, opens the store, prints and installs.  A hook never exits
 * 2: Claude Code reads exit 2 as "block this tool call / prompt", and a
 * recorder must never change what the agent does; failures exit 1 with one
 * line on stderr, and stdout stays empty (Claude Code adds the stdout of
 * SessionStart and UserPromptSubmit hooks to the model's context).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "../import/import.h"

static const char usage[] =
	"usage: ktraj hook claude-code\n"
	"       ktraj hook gemini-cli\n"
	"       ktraj hook codex JSON\n"
	"       ktraj hook install [claude-code|gemini-cli] [--settings FILE]\n"
	"       ktraj hook install --codex\n"
	"\n"
	"claude-code  record one Claude Code hook event (JSON on stdin) in the\n"
	"             run \"claude-code:<session_id>\": SessionStart and\n"
	"             SessionEnd -> note, UserPromptSubmit -> the typed message\n"
	"             (human), PreToolUse -> tool_call, PostToolUse and\n"
	"             PostToolUseFailure -> tool_result, Stop -> the assistant's\n"
	"             last message; other events are ignored\n"
	"gemini-cli   record one Gemini CLI hook event (JSON on stdin) in the\n"
	"             run \"gemini-cli:<session_id>\": SessionStart and\n"
	"             SessionEnd -> note, BeforeAgent -> the typed message\n"
	"             (human), AfterTool -> tool_call and tool_result,\n"
	"             AfterAgent -> the agent's response; prints {} (Gemini CLI\n"
	"             reads a hook's stdout as JSON)\n"
	"codex        record a Codex `notify` payload (agent-turn-complete) in\n"
	"             the run \"codex:<thread-id>\": the turn's input messages\n"
	"             (human) and the assistant's last message\n"
	"install      add the claude-code hook for SessionStart,\n"
	"             UserPromptSubmit, PreToolUse, PostToolUse and Stop to\n"
	"             .claude/settings.json (or --settings FILE), keeping every\n"
	"             other setting; running it again changes nothing.  The\n"
	"             hook names this ktraj and this store by absolute path.\n"
	"             `install gemini-cli` adds the gemini-cli hook (named\n"
	"             ktraj) for SessionStart, BeforeAgent, AfterTool,\n"
	"             AfterAgent and SessionEnd to .gemini/settings.json\n"
	"             the same way.  --codex prints the `notify` line for\n"
	"             ~/.codex/config.toml instead\n"
	"\n"
	"A hook exits 0, or 1 with one line on stderr; never 2 (which Claude\n"
	"Code reads as blocking the agent).  An event on stdin holds at most\n"
	"256 MiB; more is refused (exit 1) before more is read.\n";

/* A hook's exit code: a recorder reports, it never blocks the agent. */
static int hook_exit(int rc)
{
	return rc ? KT_EXIT_FAIL : KT_EXIT_OK;
}

/* Free h and close its store s; the hook's exit code for rc. */
static int finish(struct cli *c, kt_hook *h, kt_store *s, int rc)
{
	kt_hook_free(h);
	if (s) {
		int rc2 = kt_store_close(s);

		if (!rc && rc2)
			rc = cli_store_err(c, NULL, rc2, "closing the store");
	}
	return hook_exit(rc);
}

/* The message of a kt_hook_* error: its refusal, else the store's. */
static int hook_err(struct cli *c, const kt_hook *h, int rc)
{
	if (h->why)
		return cli_err(c, "%s", h->why);
	return cli_store_err(c, h->s, rc, h->name);
}

/* The session's run of hook event `in`, opened for writing into h: 0 or
 * the exit code of an error printed. */
static int open_session(struct cli *c, kt_hook *h, const char *agent,
			const cJSON *in, int nul)
{
	int exists, rc;

	rc = kt_hook_session(h, agent, in, nul);
	if (rc)
		return hook_err(c, h, rc);
	rc = cli_open(c, 0, &h->s);
	if (rc)
		return rc;
	return cli_record_run(c, h->s, h->name, h->source, h->run, &exists);
}

/* The most bytes one hook event may hold on stdin: as `import --max-line`'s
 * default, the longest JSON line ktraj reads.  An agent that sends more is
 * not sending a hook event (or is piping something unbounded, /dev/zero):
 * it is refused before more than this is held. */
#define HOOK_MAX_EVENT ((size_t)256 << 20)

/* The hook event on stdin as a JSON object (NULL: cli_err said why), and
 * in *nul whether its session_id holds a NUL (kt_hook_key_has_nul). */
static cJSON *read_event(struct cli *c, int *nul)
{
	/* address space for the most an event may hold, one byte more to
	 * tell "exactly the limit" from "more": only the pages read into
	 * are memory, and nothing is copied as it grows */
	char *buf = mmap(NULL, HOOK_MAX_EVENT + 1, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	size_t len = 0, n;
	cJSON *in;

	if (buf == MAP_FAILED) {
		cli_err(c, "out of memory");
		return NULL;
	}
	while (len <= HOOK_MAX_EVENT &&
	       (n = fread(buf + len, 1, HOOK_MAX_EVENT + 1 - len, stdin)) > 0)
		len += n;
	if (len > HOOK_MAX_EVENT) {
		munmap(buf, HOOK_MAX_EVENT + 1);
		cli_err(c, "stdin holds more than %zu MiB, the limit of one hook event: not recorded",
			HOOK_MAX_EVENT >> 20);
		return NULL;
	}
	in = len ? cJSON_ParseWithLength(buf, len) : NULL;
	*nul = kt_hook_key_has_nul(len ? buf : NULL, len, "session_id");
	munmap(buf, HOOK_MAX_EVENT + 1);
	if (!cJSON_IsObject(in)) {
		cJSON_Delete(in);
		cli_err(c, "stdin is not a hook event (a JSON object)");
		return NULL;
	}
	return in;
}

/* The hooks that read one event on stdin (import/hook.c maps them). */
static const struct hook_agent {
	const char *name;	/* ktraj hook NAME */
	int reply_json;		/* prints {}: the agent reads stdout as JSON */
} hook_agents[] = {
	{ "claude-code", 0 },
	{ "gemini-cli", 1 },
};

/* One hook event of agent a on stdin, recorded by import/hook.c. */
static int hook_stdin(struct cli *c, const struct hook_agent *a)
{
	kt_hook h = { 0 };
	cJSON *in;
	const char *ev;
	int rc, nul;

	if (!(in = read_event(c, &nul)))
		return KT_EXIT_FAIL;
	ev = kt_json_str(in, "hook_event_name");
	if (!ev) {
		cJSON_Delete(in);
		return cli_err(c, "the hook input has no hook_event_name");
	}
	if (!kt_hook_handles(a->name, ev)) {
		cJSON_Delete(in);
		if (a->reply_json)
			fputs("{}\n", stdout);
		return KT_EXIT_OK;
	}
	rc = open_session(c, &h, a->name, in, nul);
	if (!rc && (rc = kt_hook_record(&h, in)))
		rc = hook_err(c, &h, rc);
	if (!rc && a->reply_json)
		fputs("{}\n", stdout);
	cJSON_Delete(in);
	return finish(c, &h, h.s, rc);
}

/* ---- Codex ---------------------------------------------------------------- */

static int hook_codex(struct cli *c, const char *json)
{
	kt_hook h = { 0 };
	cJSON *in = cJSON_Parse(json);
	const char *type = kt_json_str(in, "type");
	int rc;

	if (!cJSON_IsObject(in)) {
		cJSON_Delete(in);
		return hook_exit(cli_err(c, "the notify argument is not a JSON object"));
	}
	if (!type || strcmp(type, "agent-turn-complete")) {
		cJSON_Delete(in); /* the only kind Codex sends today */
		return 0;
	}
	rc = open_session(c, &h, "codex", in,
			  kt_hook_key_has_nul(json, strlen(json), "thread-id"));
	if (!rc && (rc = kt_hook_record(&h, in)))
		rc = hook_err(c, &h, rc);
	cJSON_Delete(in);
	return finish(c, &h, h.s, rc);
}

/* ---- install -------------------------------------------------------------- */

static int abs_paths(struct cli *c, char *exe, size_t elen, char *store,
		     size_t slen)
{
	ssize_t n = readlink("/proc/self/exe", exe, elen - 1);
	char *dir;

	if (n <= 0)
		return cli_err(c, "cannot find the ktraj executable: %s", strerror(errno));
	exe[n] = 0;
	if (c->store_path[0] == '/') {
		snprintf(store, slen, "%s", c->store_path);
		return 0;
	}
	dir = getcwd(NULL, 0);
	if (!dir)
		return cli_err(c, "cannot read the current directory: %s", strerror(errno));
	snprintf(store, slen, "%s/%s", dir, c->store_path);
	free(dir);
	return 0;
}

/* Where and how one agent's hooks are installed. */
struct hook_target {
	const char *agent;	   /* the `ktraj hook` sub-command, "claude-code" */
	const char *label;	   /* for the one line printed, "Claude Code" */
	const char *dir;	   /* project settings folder, made when missing */
	const char *const *events; /* NULL-terminated */
	const char *tool_events[2]; /* events whose groups take a tool matcher */
	const char *name;	   /* the hook's "name" member, or NULL */
};

/* The hook entry of one event: a matcher group whose command is ours is
 * brought up to date; else one is added. */
static int add_hook(cJSON *hooks, const struct hook_target *t,
		    const char *event, const char *cmd, const char *needle)
{
	cJSON *list = cJSON_GetObjectItemCaseSensitive(hooks, event), *g, *h, *grp;
	int changed = 0;

	if (!cJSON_IsArray(list)) {
		cJSON_DeleteItemFromObjectCaseSensitive(hooks, event);
		list = cJSON_AddArrayToObject(hooks, event);
		changed = 1;
	}
	cJSON_ArrayForEach(g, list)
		cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(g, "hooks")) {
			const char *hc = kt_json_str(h, "command");

			if (hc && strstr(hc, needle)) {
				if (strcmp(hc, cmd)) {
					cJSON_ReplaceItemInObjectCaseSensitive(
						h, "command", cJSON_CreateString(cmd));
					changed = 1;
				}
				return changed;
			}
		}
	grp = cJSON_CreateObject();
	if ((t->tool_events[0] && !strcmp(event, t->tool_events[0])) ||
	    (t->tool_events[1] && !strcmp(event, t->tool_events[1])))
		/* "*" is every tool in both agents' matcher syntax */
		cJSON_AddStringToObject(grp, "matcher", "*");
	h = cJSON_CreateObject();
	if (t->name)
		cJSON_AddStringToObject(h, "name", t->name);
	cJSON_AddStringToObject(h, "type", "command");
	cJSON_AddStringToObject(h, "command", cmd);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(grp, "hooks"), h);
	cJSON_AddItemToArray(list, grp);
	return 1;
}

static const char *const claude_events[] = {
	"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop",
	NULL,
};
static const struct hook_target claude_target = {
	"claude-code", "Claude Code", ".claude", claude_events,
	{ "PreToolUse", "PostToolUse" }, NULL,
};

/* Gemini CLI: docs/hooks/index.md and reference.md of google-gemini/
 * gemini-cli ("Configuration"): the same {"hooks": {EVENT: [{matcher,
 * hooks: [{name, type, command}]}]}} shape as Claude Code, in
 * .gemini/settings.json; a tool matcher is a regex where "*" means every
 * tool.  The name lets `/hooks disable ktraj` find it. */
static const char *const gemini_events[] = {
	"SessionStart", "BeforeAgent", "AfterTool", "AfterAgent", "SessionEnd",
	NULL,
};
static const struct hook_target gemini_target = {
	"gemini-cli", "Gemini CLI", ".gemini", gemini_events,
	{ "AfterTool", NULL }, "ktraj",
};

static int hook_install(struct cli *c, const struct hook_target *t,
			const char *settings, int codex)
{
	char exe[4096], store[4096], cmd[17000], needle[64], dflt[64];
	struct kt_buf qb = { 0 };
	char tmp[4200], *old = NULL, *text = NULL;
	cJSON *doc, *hooks;
	size_t i;
	int changed = 0, rc = 0;
	FILE *f;

	if (abs_paths(c, exe, sizeof(exe), store, sizeof(store)))
		return KT_EXIT_FAIL;
	if (codex) {
		/* TOML basic strings take JSON's escapes for these paths */
		cJSON *a = cJSON_CreateArray();
		char *line;

		cJSON_AddItemToArray(a, cJSON_CreateString(exe));
		cJSON_AddItemToArray(a, cJSON_CreateString("--store"));
		cJSON_AddItemToArray(a, cJSON_CreateString(store));
		cJSON_AddItemToArray(a, cJSON_CreateString("hook"));
		cJSON_AddItemToArray(a, cJSON_CreateString("codex"));
		line = cJSON_PrintUnformatted(a);
		cJSON_Delete(a);
		if (!line)
			return cli_err(c, "out of memory");
		printf("# add to ~/.codex/config.toml (top level):\nnotify = %s\n", line);
		free(line);
		return 0;
	}
	/* both agents run hook commands with a shell: each path one word */
	snprintf(needle, sizeof(needle), " hook %s", t->agent);
	kt_buf_sh_quote(&qb, exe);
	kt_buf_puts(&qb, " --store ");
	kt_buf_sh_quote(&qb, store);
	kt_buf_puts(&qb, needle);
	if (qb.err || qb.len >= sizeof(cmd)) {
		const char *why = qb.err ? "out of memory" :
			"the paths of ktraj and the store are too long for a hook command";

		kt_buf_free(&qb);
		return cli_err(c, "%s", why);
	}
	memcpy(cmd, qb.s, qb.len + 1);
	kt_buf_free(&qb);
	if (!settings) {
		if (mkdir(t->dir, 0777) && errno != EEXIST)
			return cli_err(c, "%s: %s", t->dir, strerror(errno));
		snprintf(dflt, sizeof(dflt), "%s/settings.json", t->dir);
		settings = dflt;
	}
	if (!(old = cli_slurp(settings, NULL)) && errno != ENOENT)
		return cli_err(c, "%s: %s", settings, strerror(errno));
	doc = old && old[strspn(old, " \t\r\n")] ? cJSON_Parse(old) : cJSON_CreateObject();
	free(old);
	if (!cJSON_IsObject(doc)) {
		cJSON_Delete(doc);
		/* the user's file is left as it is: we cannot merge into it */
		return cli_err(c, "%s is not a JSON object; not changed", settings);
	}
	hooks = cJSON_GetObjectItemCaseSensitive(doc, "hooks");
	if (!cJSON_IsObject(hooks)) {
		if (hooks) {
			cJSON_Delete(doc);
			return cli_err(c, "%s: \"hooks\" is not an object; not changed",
				       settings);
		}
		hooks = cJSON_AddObjectToObject(doc, "hooks");
	}
	for (i = 0; t->events[i]; i++)
		changed |= add_hook(hooks, t, t->events[i], cmd, needle);
	if (!changed) {
		cJSON_Delete(doc);
		printf("%s already records to %s\n", settings, store);
		return 0;
	}
	text = cJSON_Print(doc);
	cJSON_Delete(doc);
	snprintf(tmp, sizeof(tmp), "%s.ktraj-tmp", settings);
	/* replaced whole by rename: the agent never reads half a file */
	if (!text || !(f = fopen(tmp, "w"))) {
		free(text);
		return cli_err(c, "%s: %s", tmp, text ? strerror(errno) : "out of memory");
	}
	if (fputs(text, f) < 0 || fputc('\n', f) == EOF)
		rc = -1;
	if (fclose(f))
		rc = -1;
	free(text);
	if (rc || rename(tmp, settings)) {
		rc = cli_err(c, "%s: %s", settings, strerror(errno));
		unlink(tmp);
		return rc;
	}
	printf("%s: %s sessions are recorded to %s\n", settings, t->label, store);
	return 0;
}

int cmd_hook(struct cli *c, int argc, char **argv)
{
	const struct hook_target *t = &claude_target;
	const char *settings = NULL;
	int i, codex = 0;

	if (cli_wants_help(argc, argv, usage))
		return KT_EXIT_OK;
	if (argc < 2)
		return cli_usage(c, "which hook? (claude-code, gemini-cli, codex or install)");
	for (i = 0; i < (int)(sizeof(hook_agents) / sizeof(*hook_agents)); i++)
		if (!strcmp(argv[1], hook_agents[i].name)) {
			if (argc > 2)
				return hook_exit(cli_err(c, "%s takes no arguments (the event comes on stdin)",
							 argv[1]));
			return hook_stdin(c, &hook_agents[i]);
		}
	if (!strcmp(argv[1], "codex")) {
		/* Codex appends the payload as the last argument */
		if (argc < 3)
			return hook_exit(cli_err(c, "codex needs the notify JSON as its last argument"));
		return hook_codex(c, argv[argc - 1]);
	}
	if (strcmp(argv[1], "install"))
		return cli_bad_subcommand(c, argv[1], (const char *const[]){
			"claude-code", "gemini-cli", "codex", "install", NULL });
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--settings") && cli_has_value(argc, argv, i))
			settings = argv[++i];
		else if (!strcmp(argv[i], "--codex") || !strcmp(argv[i], "codex"))
			codex = 1;
		else if (!strcmp(argv[i], "gemini-cli"))
			t = &gemini_target;
		else if (!strcmp(argv[i], "claude-code"))
			t = &claude_target;
		else if (argv[i][0] == '-' && argv[i][1])
			return cli_bad_option(c, usage, argv[i]);
		else /* an argument: the agent whose hooks to install */
			return cli_usage(c, "install: unknown agent '%s' (known: "
					 "claude-code, gemini-cli or codex)", argv[i]);
	}
	return hook_install(c, t, settings, codex);
}
