/*
 * commands.h - the ktraj command table (git.c style): one X() per command,
 * one file cli/cmd_<name>.c per command defining
 *     int cmd_<name>(struct cli *c, int argc, char **argv);
 * argv[0] is the command name; global options are already removed.
 */
X(init,      KT_CMD_WRITES | KT_CMD_CREATES, "create an empty store")
X(import,    KT_CMD_WRITES | KT_CMD_CREATES, "import trajectories from files, folders, archives or stdin")
X(append,    KT_CMD_WRITES | KT_CMD_CREATES, "append ktraj JSONL events from stdin to a run (live recording)")
X(hook,      KT_CMD_WRITES | KT_CMD_CREATES, "record Claude Code / Gemini CLI / Codex sessions live from their hooks; install them")
X(ls,        0,             "list runs")
X(hide,      KT_CMD_WRITES, "hide runs from ls, search, questions mine and export")
X(unhide,    KT_CMD_WRITES, "show hidden runs again")
X(gc,        0,             "report what a compaction would reclaim (--dry-run)")
X(log,       0,             "list the events of a run")
X(show,      0,             "show one event in full")
X(cat,       0,             "print a file of a run's workspace at a step")
X(diff,      0,             "unified diff of a run's workspace between two steps")
X(verify,    0,             "recompute hash chains, blob hashes, run checksums, indexes")
X(stats,     0,             "sizes and counts of the store or a run")
X(search,    0,             "full-text search over messages and tool text")
X(export,    0,             "export a run (jsonl, atif, claude_code, sts, otlp, ndjson tables, replay bundle)")
X(blame,     0,             "blame speedup: which question preceded each speedup jump")
X(stalls,    0,             "stretches without significant gain")
X(questions, 0,             "mine questions into a library; suggest questions for a run")
X(report,    0,             "write an offline HTML report of a run")
X(bench,     KT_CMD_WRITES | KT_CMD_CREATES, "run the verification harness on a kernel and record it")
X(replay,    KT_CMD_WRITES | KT_CMD_CREATES, "re-execute a recorded step and compare with the recording")
