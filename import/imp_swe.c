/*
 * imp_swe.c - SWE-agent .traj files (0.x and 1.x, history-only) and
 * mini-swe-agent trajectories (../shared/research/formats.md s.4;
 * SWE-agent/SWE-agent sweagent/types.py, mini-swe-agent
 * src/minisweagent/run/utils/save.py).
 *
 * .traj: {environment, trajectory[{action, observation, response, thought,
 * state, execution_time?, messages?}], history[{role, content, agent,
 * is_demo?, thought?, action?, tool_calls?, tool_call_ids?,
 * message_type?}], info{exit_status, submission, model_stats, ...},
 * replay_config?}.  history and trajectory repeat each other; history is
 * read (demonstrations, is_demo, are not part of the run) and trajectory
 * step i adds state/execution_time to action i.  A file whose history has
 * no agent turn is read from trajectory; a file with only history is read
 * from history.  Fields written as Python repr strings in some versions
 * (state, messages, tool_calls, tool_call_ids, model_stats) are decoded.
 *
 * The first user message is the issue a person wrote (human); the other
 * user/tool messages are observations (tool results).  Edits are rebuilt
 * where the text allows it: an `open` window that shows the whole file
 * seeds the workspace; `create f`, `edit S:E ... end_of_edit`, the
 * function-calling edit {search, replace} and insert, and
 * str_replace_editor commands change it when their base is known; a
 * failed edit (SWE-agent reverts edits that add syntax errors) changes
 * nothing.  Files added by info.submission (new file mode) seed the end
 * state.  There are no timestamps (every event has ts unknown).
 *
 * mini-swe-agent ("trajectory_format": "mini-swe-agent-1"): messages[{role,
 * content (string or parts)}]; the action is the ```bash block of an
 * assistant message and the result the next user message
 * "<returncode>N</returncode><output>...</output>".
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "import.h"
#include "impx.h"
#include "jsonstrict.h"

#define DETECT_WINDOW 16384

typedef struct scall {
	uint64_t seq;
	long ai;           /* index of the action (trajectory step) */
	char *id, *tool, *action;
	cJSON *args;
} scall;

typedef struct swx {
	kt_imp *imp;
	const kt_file *f;
	char *cwd, *open_file;
	scall *pend;
	size_t npend, cap;
	long nact;         /* actions so far (index into trajectory) */
	const cJSON *traj;
	const char *submission; /* info.submission, or NULL */
	int seen_issue, sub_done;
} swx;

/* ---- detection ------------------------------------------------------------ */
static int swe_detect(const kt_file *f)
{
	const unsigned char *d = f->data;
	const char *b = kt_basename(f->rel ? f->rel : f->path);
	size_t n, bl = strlen(b);
	int traj = bl > 5 && strcmp(b + bl - 5, ".traj") == 0;

	if (kt_impx_detect_open(f, DETECT_WINDOW, &n) != '{')
		return 0;
	if (kt_impx_sniff(d, n, "trajectory_format", NULL) &&
	    memmem(d, n, "mini-swe-agent", 14))
		return 95;
	if (kt_impx_sniff(d, n, "history", NULL) &&
	    kt_impx_sniff(d, n, "role", NULL) &&
	    (kt_impx_sniff(d, n, "agent", NULL) ||
	     kt_impx_sniff(d, n, "message_type", NULL) ||
	     kt_impx_sniff(d, n, "trajectory", NULL)))
		return traj ? 90 : 80;
	if (kt_impx_sniff(d, n, "trajectory", NULL) &&
	    kt_impx_sniff(d, n, "action", NULL) &&
	    kt_impx_sniff(d, n, "observation", NULL))
		return traj ? 85 : 70;
	if (kt_impx_sniff(d, n, "messages", NULL) &&
	    kt_impx_sniff(d, n, "mini_version", NULL))
		return 80;
	return 0;
}

/* ---- small helpers ------------------------------------------------------- */
static void set_str(char **dst, const char *s, size_t n)
{
	char *t = strndup(s, n);

	if (t) {
		free(*dst);
		*dst = t;
	}
}

/* A field that may be a value or a Python/JSON repr of one (detached copy,
 * caller frees; NULL when absent, or out of memory: *rc KT_ENOMEM, else
 * 0). */
static cJSON *field(const cJSON *o, const char *key, int *rc)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	cJSON *d;

	*rc = 0;
	if (!v)
		return NULL;
	if (cJSON_IsString(v) && (v->valuestring[0] == '{' ||
				  v->valuestring[0] == '[') &&
	    (d = kt_impx_parse_lenient(v->valuestring, rc)))
		return d;
	if (*rc == KT_ENOMEM)
		return NULL;
	*rc = 0;
	if (!(d = cJSON_Duplicate(v, 1)))
		*rc = KT_ENOMEM;
	return d;
}

static int truthy(const cJSON *v)
{
	return cJSON_IsTrue(v) ||
	       (cJSON_IsString(v) && (strcmp(v->valuestring, "True") == 0 ||
				      strcmp(v->valuestring, "true") == 0)) ||
	       (cJSON_IsNumber(v) && v->valuedouble != 0);
}

/* "(Open file: X)" and "(Current directory: Y)" footers of observations */
static void footer_state(swx *x, const char *obs)
{
	const char *p;

	if ((p = strstr(obs, "(Open file: "))) {
		const char *e = strchr(p, ')');

		p += 12;
		if (e && e > p) {
			if (strncmp(p, "n/a", 3) == 0 && e - p == 3) {
				free(x->open_file);
				x->open_file = NULL;
			} else {
				set_str(&x->open_file, p, (size_t)(e - p));
			}
		}
	}
	if ((p = strstr(obs, "(Current directory: "))) {
		const char *e = strchr(p, ')');

		p += 20;
		if (e && e > p)
			set_str(&x->cwd, p, (size_t)(e - p));
	}
}

/* 0 or KT_ENOMEM */
static int state_of(swx *x, const cJSON *step)
{
	int rc;
	cJSON *st = field(step, "state", &rc);
	const char *of, *wd;

	if (!st)
		return rc;
	of = kt_json_str(st, "open_file");
	wd = kt_json_str(st, "working_dir");
	if (wd && *wd)
		set_str(&x->cwd, wd, strlen(wd));
	if (of && strcmp(of, "n/a") != 0)
		set_str(&x->open_file, of, strlen(of));
	cJSON_Delete(st);
	return 0;
}

/*
 * The whole file shown in an editor window: "[File: P (N lines total)]"
 * followed by "k:text" for every k in 1..N.  Returns malloc'ed content and
 * its path, or NULL when the window is partial.
 */
static char *window_file(const char *obs, char **path)
{
	const char *p = strstr(obs, "[File: "), *q, *e;
	long total, k = 1;
	struct kt_buf b = { 0 };
	char *buf;

	*path = NULL;
	if (!p)
		return NULL;
	p += 7;
	q = strstr(p, " lines total)]");
	e = q;
	if (!q)
		return NULL;
	while (e > p && e[-1] != '(')
		e--;
	if (e <= p + 1)
		return NULL;
	total = strtol(e, NULL, 10);
	if (total < 0 || total > 1000000)
		return NULL;
	*path = strndup(p, (size_t)(e - 1 - p));
	if (*path) { /* strip the space before "(" and a '\r' */
		size_t pl = strlen(*path);

		while (pl && ((*path)[pl - 1] == ' ' || (*path)[pl - 1] == '\r'))
			(*path)[--pl] = 0;
	}
	p = strchr(q, '\n');
	while (p && k <= total) {
		const char *ls = p + 1, *le = strchr(ls, '\n'), *c;
		long num;
		char *endp;

		if (!le)
			le = ls + strlen(ls);
		while (ls < le && *ls == ' ')
			ls++;
		num = strtol(ls, &endp, 10);
		if (endp == ls || *endp != ':') {
			if (strncmp(ls, "(", 1) == 0 && k > total)
				break;
			goto partial;
		}
		if (num != k)
			goto partial;
		c = endp + 1;
		{
			size_t ln = (size_t)(le - c);

			if (ln && c[ln - 1] == '\r')
				ln--;
			kt_buf_add(&b, c, ln);
			kt_buf_putc(&b, '\n');
		}
		k++;
		p = *le ? le : NULL;
	}
	if (k <= total)
		goto partial;
	/* "" for an empty file; NULL when out of memory */
	if ((buf = kt_buf_take(&b)))
		return buf;
partial:
	kt_buf_free(&b);
	free(*path);
	*path = NULL;
	return NULL;
}

static int obs_failed(const char *obs)
{
	return strstr(obs, "Your proposed edit has introduced new syntax") ||
	       strstr(obs, "Your edit was not applied") ||
	       strstr(obs, "No file open") || strncmp(obs, "Error:", 6) == 0 ||
	       strncmp(obs, "ERROR:", 6) == 0 ||
	       strstr(obs, "No replacement was performed") ||
	       strstr(obs, "did not appear verbatim") ||
	       strstr(obs, "already exists");
}

/* Tools of SWE-agent's own command language (everything else is bash). */
static int special(const char *w, size_t n)
{
	static const char *const cmds[] = {
		"open", "goto", "scroll_up", "scroll_down", "create", "edit",
		"insert", "submit", "find_file", "search_file", "search_dir",
		"filemap", "str_replace_editor", "exit_forfeit", "exit_cost",
		"exit_context", "exit_error", "exit_format", "skip", NULL
	};
	int i;

	for (i = 0; cmds[i]; i++)
		if (strlen(cmds[i]) == n && memcmp(cmds[i], w, n) == 0)
			return 1;
	return 0;
}

/* ---- edits --------------------------------------------------------------- */
static char *resolve(swx *x, const char *p)
{
	return kt_ws_path(x->cwd, p);
}

/* Replace lines s..e (1-based, inclusive) of path with text; nothing
 * when the file's content is unknown. */
static int edit_lines(swx *x, const char *path, long s, long e,
		      const char *text, uint64_t call)
{
	int rc;

	if (e < s - 1) /* -1 is not "to the end" here */
		return 0;
	rc = kt_impx_replace_lines(x->imp, path, s, e, text, KT_IMPX_LINES_NL_END,
				 call, "edit");
	return rc == KT_ENOTFOUND ? 0 : rc;
}

/* The effect of one SWE-agent command on the workspace (call succeeded). */
static int swe_edit(swx *x, const char *tool, const cJSON *args,
		    const char *action, uint64_t call, const char *obs)
{
	char *path = NULL;
	int rc = 0;

	if (strcmp(tool, "create") == 0) {
		const char *fn = kt_impx_str2(args, "filename", "path");
		char tmp[1024] = "";

		if (!fn && action) {
			const char *p = action + 6;

			while (*p == ' ')
				p++;
			snprintf(tmp, sizeof(tmp), "%s", p);
			tmp[strcspn(tmp, "\n\r ")] = 0;
			fn = tmp;
		}
		if (fn && *fn && (path = resolve(x, fn))) {
			if (!kt_ws_get(x->imp, path, NULL))
				rc = kt_ws_write(x->imp, path, "", 0, call,
						 "create");
			free(x->open_file);
			x->open_file = strdup(path);
		}
	} else if (strcmp(tool, "edit") == 0 && x->open_file) {
		const char *se = kt_json_str(args, "search");
		const char *re = kt_json_str(args, "replace");

		if (!(path = resolve(x, x->open_file)))
			return KT_ENOMEM;
		if (se && re) {
			const cJSON *all = cJSON_GetObjectItem(args,
							       "replace-all");

			rc = kt_ws_replace(x->imp, path, se, re, truthy(all),
					   call, "edit");
			if (rc == KT_ENOTFOUND)
				rc = 0;
		} else if (action && strncmp(action, "edit ", 5) == 0) {
			long s, e;
			const char *body = strchr(action, '\n'), *end;
			char *text;

			if (sscanf(action + 5, "%ld:%ld", &s, &e) == 2 && body) {
				body++;
				end = strstr(body, "end_of_edit");
				if (!end)
					end = body + strlen(body);
				if ((text = strndup(body, (size_t)(end - body)))) {
					rc = edit_lines(x, path, s, e, text, call);
					free(text);
				}
			}
		}
	} else if (strcmp(tool, "insert") == 0 && x->open_file) {
		const char *t = kt_json_str(args, "text");
		const cJSON *ln = cJSON_GetObjectItem(args, "line");
		size_t blen;
		const char *base;

		if (!t || !(path = resolve(x, x->open_file)))
			return t ? KT_ENOMEM : 0;
		base = kt_ws_get(x->imp, path, &blen);
		if (base) {
			long at = cJSON_IsNumber(ln) ? (long)ln->valuedouble : -1;

			if (at < 0) { /* at the end */
				long lines = 0;
				size_t i;

				for (i = 0; i < blen; i++)
					lines += base[i] == '\n';
				if (blen && base[blen - 1] != '\n')
					lines++;
				at = lines;
			}
			rc = edit_lines(x, path, at + 1, at, t, call);
		}
	} else if (strcmp(tool, "str_replace_editor") == 0) {
		rc = kt_impx_tool_effects(x->imp, tool, args, x->cwd, call, 0,
					obs ? obs : "", -1, 1, KT_TS_UNKNOWN);
		rc = rc < 0 ? rc : 0;
	}
	free(path);
	return rc;
}

static int submission_files(swx *x, const char *diff, cJSON *payload);

/* ---- calls and results ------------------------------------------------ */
static void scall_clear(scall *c)
{
	free(c->id);
	free(c->tool);
	free(c->action);
	cJSON_Delete(c->args);
	memset(c, 0, sizeof(*c));
}

static int add_call(swx *x, const char *id, const char *tool, cJSON *args,
		    const char *action, uint64_t parent, const kt_impx_span *sp)
{
	cJSON *pl = cJSON_CreateObject();
	scall *c;
	char idb[40];

	if (!pl || !args) {
		cJSON_Delete(pl);
		cJSON_Delete(args);
		return KT_ENOMEM;
	}
	if (x->npend == x->cap) {
		size_t nc = x->cap ? x->cap * 2 : 4;
		scall *np = realloc(x->pend, nc * sizeof(*np));

		if (!np) {
			cJSON_Delete(pl);
			cJSON_Delete(args);
			return KT_ENOMEM;
		}
		x->pend = np;
		x->cap = nc;
	}
	if (!id) {
		snprintf(idb, sizeof(idb), "action-%ld", x->nact + 1);
		id = idb;
	}
	c = &x->pend[x->npend++];
	memset(c, 0, sizeof(*c));
	c->ai = x->nact;
	c->id = strdup(id);
	c->tool = strdup(tool);
	c->action = action ? strdup(action) : NULL;
	c->args = args;
	cJSON_AddStringToObject(pl, "tool", tool);
	cJSON_AddStringToObject(pl, "call_id", id);
	cJSON_AddItemToObject(pl, "args", cJSON_Duplicate(args, 1));
	x->nact++;
	return kt_impx_emit_valid(x->imp, NULL, KT_KIND_TOOL_CALL, parent, KT_TS_UNKNOWN,
			  "agent", pl, sp->line, sp->off, sp->len, &c->seq);
}

/* Whether tool (args) is one of SWE-agent's commands that change a file. */
static int is_edit_tool(const char *tool, const cJSON *args)
{
	const char *scmd = kt_json_str(args, "command");

	return strcmp(tool, "edit") == 0 || strcmp(tool, "create") == 0 ||
	       strcmp(tool, "insert") == 0 ||
	       (strcmp(tool, "str_replace_editor") == 0 &&
		!(scmd && strcmp(scmd, "view") == 0));
}

/* The whole file an observation shows (an editor window, or a
 * str_replace_editor view without a range): *wpath gets its path; NULL
 * when it shows none. */
static char *shown_file(const char *tool, const cJSON *args, const char *obs,
			char **wpath)
{
	char *wtext = window_file(obs, wpath);

	if (!wtext && strcmp(tool, "str_replace_editor") == 0 &&
	    kt_json_str(args, "path") && kt_json_str(args, "command") &&
	    strcmp(kt_json_str(args, "command"), "view") == 0 &&
	    !cJSON_GetObjectItem(args, "view_range") &&
	    (wtext = kt_impx_cat_n(obs)))
		*wpath = strdup(kt_json_str(args, "path"));
	return wtext;
}

/* A file shown by a call that does not change it seeds the workspace
 * (payload: the result about to be emitted, may be NULL). */
static int seed_shown(swx *x, const char *wpath, const char *wtext,
		      cJSON *payload)
{
	char *p;
	int rc;

	if (!wtext || !wpath)
		return 0;
	if (!(p = resolve(x, wpath)))
		return KT_ENOMEM;
	rc = kt_ws_observe(x->imp, p, wtext, strlen(wtext), payload);
	free(p);
	return rc;
}

/* What call `call` (result rseq, observation obs) did to the workspace,
 * after its result is emitted: an edit command's change (when ok) and the
 * file its window shows after it; a bash command through
 * kt_shell_classify.  0 or a negative KT_E* code. */
static int after_call(swx *x, const char *tool, const cJSON *args,
		      const char *action, uint64_t call, uint64_t rseq,
		      const char *obs, int exit_code, int ok,
		      const char *wpath, const char *wtext)
{
	int rc = 0;

	if (is_edit_tool(tool, args)) {
		if (ok)
			rc = swe_edit(x, tool, args, action, call, obs);
		/* the window after the edit corrects the workspace */
		if (!rc && wtext)
			rc = seed_shown(x, wpath, wtext, NULL);
	} else if (strcmp(tool, "bash") == 0) {
		const char *cmd = kt_json_str(args, "command");

		if (cmd) {
			rc = kt_shell_classify(x->imp, call, rseq, cmd, x->cwd,
					       obs, exit_code, ok,
					       KT_TS_UNKNOWN);
			if (rc > 0)
				rc = 0;
		}
	}
	return rc;
}

int kt_impx_swe_effects(kt_imp *imp, const char *tool, const cJSON *args,
			const char *cwd, uint64_t call, uint64_t res,
			const char *out, int exit_code, int ok)
{
	swx x;
	char *wpath = NULL, *wtext;
	size_t n = out ? strlen(out) : 0;
	int rc = 0;

	/* str_replace_editor: the shared editor code (swe_edit sends it
	 * there).  The footer ends the observation: only its tail is
	 * searched (every import's results come through here) */
	if (!tool || !out || !strcmp(tool, "str_replace_editor") ||
	    !strstr(out + (n > 8192 ? n - 8192 : 0), "\n(Current directory: "))
		return 0;
	memset(&x, 0, sizeof(x));
	x.imp = imp;
	if (cwd && !(x.cwd = strdup(cwd)))
		return KT_ENOMEM;
	footer_state(&x, out);
	wtext = shown_file(tool, args, out, &wpath);
	if (!is_edit_tool(tool, args))
		rc = seed_shown(&x, wpath, wtext, NULL);
	if (!rc)
		rc = after_call(&x, tool, args, kt_json_str(args, "command"),
				call, res, out, exit_code, ok, wpath, wtext);
	free(wtext);
	free(wpath);
	free(x.cwd);
	free(x.open_file);
	return rc < 0 ? rc : 1;
}

/* The result of pending call c: obs is the observation text. */
static int finish_call(swx *x, scall *c, const char *obs, int exit_code,
		       const kt_impx_span *sp, const cJSON *tstep)
{
	cJSON *pl = cJSON_CreateObject();
	char *wpath = NULL, *wtext;
	int edit_tool, ok, rc;
	uint64_t rseq = 0;

	if (!pl || (tstep && state_of(x, tstep))) {
		cJSON_Delete(pl);
		return KT_ENOMEM;
	}
	footer_state(x, obs);
	wtext = shown_file(c->tool, c->args, obs, &wpath);
	edit_tool = is_edit_tool(c->tool, c->args);
	ok = exit_code > 0 ? 0 : !obs_failed(obs);
	cJSON_AddStringToObject(pl, "call_id", c->id);
	cJSON_AddBoolToObject(pl, "ok", ok);
	if ((rc = kt_impx_set_output(x->imp, pl, obs)))
		goto out;
	if (exit_code >= 0)
		cJSON_AddNumberToObject(pl, "exit_code", exit_code);
	if (tstep) {
		const cJSON *et = cJSON_GetObjectItem(tstep, "execution_time");
		cJSON *ex = cJSON_AddObjectToObject(pl, "extra");

		if (ex && cJSON_IsNumber(et))
			cJSON_AddNumberToObject(ex, "execution_time",
						et->valuedouble);
		else if (ex && cJSON_IsString(et))
			cJSON_AddNumberToObject(ex, "execution_time",
						atof(et->valuestring));
	}
	if (!edit_tool && (rc = seed_shown(x, wpath, wtext, pl)))
		goto out;
	/* the submitted diff shows the whole content of the files it adds */
	if (strcmp(c->tool, "submit") == 0 && x->submission && !x->sub_done) {
		x->sub_done = 1;
		if ((rc = submission_files(x, x->submission, pl)))
			goto out;
	}
	rc = kt_impx_emit_valid(x->imp, NULL, KT_KIND_TOOL_RESULT, c->seq, KT_TS_UNKNOWN,
			"tool", pl, sp->line, sp->off, sp->len, &rseq);
	pl = NULL;
	if (!rc)
		rc = after_call(x, c->tool, c->args, c->action, c->seq, rseq,
				obs, exit_code, ok, wpath, wtext);
out:
	cJSON_Delete(pl);
	free(wtext);
	free(wpath);
	return rc;
}

/* Next word of a POSIX-shell-quoted string (SWE-agent writes tool
 * arguments with Python's shlex.quote: 'a'"'"'b'); malloc'ed, NULL at the
 * end or on ENOMEM (*oom set). */
static char *sh_word(const char **pp, int *oom)
{
	const char *p = *pp;
	size_t n = 0, cap;
	char *w;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (!*p) {
		*pp = p;
		return NULL;
	}
	cap = strlen(p) + 1;
	if (!(w = malloc(cap))) {
		*oom = 1;
		return NULL;
	}
	while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
		if (*p == '\'') {
			for (p++; *p && *p != '\''; p++)
				w[n++] = *p;
			if (*p)
				p++;
		} else if (*p == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1] && strchr("\"\\$`\n", p[1]))
					p++;
				w[n++] = *p;
			}
			if (*p)
				p++;
		} else {
			if (*p == '\\' && p[1])
				p++;
			w[n++] = *p++;
		}
	}
	w[n] = 0;
	*pp = p;
	return w;
}

/* "str_replace_editor CMD PATH [--file_text T] [--old_str O] [--new_str N]
 * [--insert_line L] [--view_range A B]" (SWE-agent's edit_anthropic tool
 * bundle, invoked as a command) as the arguments a function call would
 * carry, so it is an edit or a view like one, never a shell command.
 * Returns 0 when the string is not of that form (args untouched). */
static int editor_args(const char *action, cJSON *args, int *oom)
{
	const char *p = action;
	char *w[64];
	size_t n = 0, i;
	int ok = 0;

	while (n < 64 && (w[n] = sh_word(&p, oom)))
		n++;
	if (*oom || n < 3 || strcmp(w[0], "str_replace_editor") ||
	    w[1][0] == '-' || w[2][0] == '-')
		goto out;
	cJSON_AddStringToObject(args, "command", w[1]);
	cJSON_AddStringToObject(args, "path", w[2]);
	for (i = 3; i + 1 < n; i++) {
		const char *k = w[i];

		if (!strcmp(k, "--file_text") || !strcmp(k, "--old_str") ||
		    !strcmp(k, "--new_str")) {
			cJSON_AddStringToObject(args, k + 2, w[++i]);
		} else if (!strcmp(k, "--insert_line")) {
			cJSON_AddNumberToObject(args, "insert_line",
						atof(w[++i]));
		} else if (!strcmp(k, "--view_range") && i + 2 < n) {
			cJSON *r = cJSON_AddArrayToObject(args, "view_range");

			cJSON_AddItemToArray(r, cJSON_CreateNumber(atof(w[i + 1])));
			cJSON_AddItemToArray(r, cJSON_CreateNumber(atof(w[i + 2])));
			i += 2;
		}
	}
	ok = 1;
out:
	for (i = 0; i < n; i++)
		free(w[i]);
	return ok;
}

/* Tool and args of a 0.x action string. */
static int action_call(swx *x, const char *action, uint64_t parent,
		       const kt_impx_span *sp)
{
	const char *a = action;
	size_t n;
	char tool[64];
	cJSON *args = cJSON_CreateObject();
	char *trim;

	while (*a == ' ' || *a == '\n')
		a++;
	n = strcspn(a, " \n\t");
	if (!args)
		return KT_ENOMEM;
	trim = strdup(a);
	if (trim) {
		size_t l = strlen(trim);

		while (l && (trim[l - 1] == '\n' || trim[l - 1] == ' '))
			trim[--l] = 0;
	}
	if (n == 18 && !memcmp(a, "str_replace_editor", 18)) {
		int oom = 0;

		if (editor_args(trim ? trim : a, args, &oom)) {
			int rc = add_call(x, NULL, "str_replace_editor", args,
					  trim ? trim : a, parent, sp);

			free(trim);
			return rc;
		}
		if (oom) {
			free(trim);
			cJSON_Delete(args);
			return KT_ENOMEM;
		}
	}
	cJSON_AddStringToObject(args, "command", trim ? trim : a);
	if (n && n < sizeof(tool) && special(a, n)) {
		memcpy(tool, a, n);
		tool[n] = 0;
	} else {
		strcpy(tool, "bash");
	}
	{
		int rc = add_call(x, NULL, tool, args, trim ? trim : a, parent,
				  sp);

		free(trim);
		return rc;
	}
}

static int flush_pending(swx *x, const char *obs, int ec, const char *only_id,
			 const kt_impx_span *sp)
{
	size_t i, j = 0;
	int rc = 0;

	for (i = 0; i < x->npend; i++) {
		scall *c = &x->pend[i];

		if (!rc && (!only_id || strcmp(only_id, c->id) == 0)) {
			const cJSON *ts = NULL;

			/* the trajectory step of this action */
			if (cJSON_IsArray(x->traj) && c->ai < 1000000000L)
				ts = cJSON_GetArrayItem(x->traj, (int)c->ai);
			rc = finish_call(x, c, obs, ec, sp, ts);
			scall_clear(c);
			continue;
		}
		if (i != j)
			x->pend[j] = x->pend[i];
		j++;
	}
	x->npend = j;
	return rc;
}

/* ---- SWE-agent .traj ------------------------------------------------------ */
static const char *const HIST_KNOWN[] = {
	"role", "content", "agent", "is_demo", "thought", "action", "tool_calls",
	"tool_call_ids", "message_type", NULL
};

static int history_msg(swx *x, const cJSON *m, const kt_impx_span *sp)
{
	const char *role = kt_json_str(m, "role");
	const char *mt = kt_json_str(m, "message_type");
	char *text = kt_impx_content_text(cJSON_GetObjectItem(m, "content"));
	cJSON *tcs = NULL, *ids = NULL, *msg;
	uint64_t mseq = 0;
	int rc = 0;

	if (!role)
		role = "user";
	if (strcmp(role, "system") == 0 ||
	    (mt && strcmp(mt, "system_prompt") == 0)) {
		msg = kt_impx_msg("system", 0, text, "meta");
		rc = kt_impx_emit_valid(x->imp, NULL, KT_KIND_MESSAGE, 0, KT_TS_UNKNOWN,
				"system", msg, sp->line, sp->off, sp->len, NULL);
	} else if (strcmp(role, "assistant") == 0) {
		const char *action = kt_json_str(m, "action");
		const cJSON *tc;

		msg = kt_impx_msg("assistant", 0, text && *text ? text :
				kt_json_str(m, "thought"), NULL);
		kt_impx_keep_extra(msg, m, HIST_KNOWN);
		if ((rc = kt_impx_emit_valid(x->imp, NULL, KT_KIND_MESSAGE, 0,
				     KT_TS_UNKNOWN, "agent", msg, sp->line,
				     sp->off, sp->len, &mseq)))
			goto out;
		/* an action without its observation (the run ended): close */
		if (x->npend && (rc = flush_pending(x, "", -1, NULL, sp)))
			goto out;
		if (!(tcs = field(m, "tool_calls", &rc)) && rc)
			goto out;
		if (cJSON_IsArray(tcs) && cJSON_GetArraySize(tcs) > 0) {
			cJSON_ArrayForEach(tc, tcs) {
				const cJSON *fn = cJSON_GetObjectItem(tc,
								      "function");
				const char *name = kt_json_str(fn, "name");

				rc = add_call(x, kt_json_str(tc, "id"),
					      name ? name : "unknown",
					      kt_impx_args(cJSON_GetObjectItem(fn,
							"arguments")),
					      action, mseq, sp);
				if (rc)
					goto out;
			}
		} else if (action && *action) {
			rc = action_call(x, action, mseq, sp);
		}
	} else {
		/* user or tool: the issue, or an observation */
		if (!(ids = field(m, "tool_call_ids", &rc)) && rc)
			goto out;
		if (x->npend && cJSON_IsArray(ids) &&
		    cJSON_GetArraySize(ids) > 0) {
			const cJSON *id;

			cJSON_ArrayForEach(id, ids)
				if (cJSON_IsString(id) &&
				    (rc = flush_pending(x, text ? text : "", -1,
							id->valuestring, sp)))
					goto out;
			if (x->npend) /* ids that named no call */
				rc = flush_pending(x, text ? text : "", -1,
						   NULL, sp);
		} else if (x->npend) {
			rc = flush_pending(x, text ? text : "", -1, NULL, sp);
		} else {
			int human = !x->seen_issue && strcmp(role, "user") == 0;

			msg = kt_impx_msg("user", human, text,
					human ? NULL : "meta");
			x->seen_issue = 1;
			rc = kt_impx_emit_valid(x->imp, NULL, KT_KIND_MESSAGE, 0,
					KT_TS_UNKNOWN, human ? "human" : "system",
					msg, sp->line, sp->off, sp->len, NULL);
		}
	}
out:
	cJSON_Delete(tcs);
	cJSON_Delete(ids);
	free(text);
	return rc;
}

static int import_history(swx *x, const cJSON *hist, const kt_impx_span *sp,
			  long nsp)
{
	const cJSON *m;
	long i = -1;
	int rc = 0;

	cJSON_ArrayForEach(m, hist) {
		kt_impx_span s;

		i++;
		s = kt_impx_span_at(sp, nsp, i);
		if (!cJSON_IsObject(m)) {
			kt_imp_warn(x->imp, x->f, s.line,
				    "history entry is not an object");
			continue;
		}
		if (truthy(cJSON_GetObjectItem(m, "is_demo")))
			continue; /* a demonstration, not this run */
		if ((rc = history_msg(x, m, &s)))
			return rc;
	}
	if (x->npend) {
		kt_impx_span z = { 0, 0, 0 };

		rc = flush_pending(x, "", -1, NULL, &z);
	}
	return rc;
}

static int import_trajectory(swx *x, const cJSON *traj, const kt_impx_span *sp,
			     long nsp)
{
	const cJSON *st;
	long i = -1;
	int rc = 0;

	cJSON_ArrayForEach(st, traj) {
		kt_impx_span s;
		const char *th, *ac, *ob;
		uint64_t mseq = 0;
		cJSON *msg;

		i++;
		s = kt_impx_span_at(sp, nsp, i);
		th = kt_impx_str2(st, "response", "thought");
		ac = kt_json_str(st, "action");
		ob = kt_json_str(st, "observation");
		msg = kt_impx_msg("assistant", 0, th, NULL);
		if ((rc = kt_impx_emit_valid(x->imp, NULL, KT_KIND_MESSAGE, 0,
				     KT_TS_UNKNOWN, "agent", msg, s.line, s.off,
				     s.len, &mseq)))
			return rc;
		if (!ac || !*ac)
			continue;
		if ((rc = action_call(x, ac, mseq, &s)) ||
		    (rc = flush_pending(x, ob ? ob : "", -1, NULL, &s)))
			return rc;
	}
	return 0;
}

/* New files in the submitted diff: their whole content is known. */
static int submission_files(swx *x, const char *diff, cJSON *payload)
{
	const char *p = diff;
	int rc = 0;

	while (p && (p = strstr(p, "\n--- /dev/null"))) {
		const char *pp = strstr(p + 1, "\n+++ b/"), *h, *e;
		char *path = NULL, *rel, *buf = NULL;
		size_t n = 0;

		if (!pp)
			break;
		pp += 7;
		e = strchr(pp, '\n');
		if (!e)
			break;
		rel = strndup(pp, (size_t)(e - pp));
		h = strstr(e, "\n@@ ");
		if (rel && h && (h = strchr(h + 1, '\n'))) {
			if (!(buf = malloc(strlen(h) + 1))) {
				free(rel);
				return KT_ENOMEM;
			}
			h++;
			while (*h == '+' || *h == '\\') {
				const char *le = strchr(h, '\n');
				size_t ln = le ? (size_t)(le - h) : strlen(h);

				if (*h == '+') {
					memcpy(buf + n, h + 1, ln - 1);
					n += ln - 1;
					buf[n++] = '\n';
				} else if (n) {
					n--; /* "\ No newline at end of file" */
				}
				if (!le)
					break;
				h = le + 1;
			}
			buf[n] = 0;
			if ((path = resolve(x, rel)) && !kt_ws_get(x->imp, path,
								   NULL))
				rc = kt_ws_observe(x->imp, path, buf, n,
						   payload);
		}
		free(path);
		free(buf);
		free(rel);
		if (rc)
			break;
		p = e;
	}
	return rc;
}

/* ---- mini-swe-agent ------------------------------------------------------------ */
static char *bash_block(const char *t)
{
	const char *s = t ? strstr(t, "```bash") : NULL, *e;

	if (!s)
		s = t ? strstr(t, "```sh\n") : NULL;
	if (!s)
		return NULL;
	s = strchr(s, '\n');
	if (!s)
		return NULL;
	s++;
	e = strstr(s, "```");
	if (!e)
		return NULL;
	while (e > s && (e[-1] == '\n' || e[-1] == ' '))
		e--;
	return strndup(s, (size_t)(e - s));
}

static char *mini_output(const char *t, int *ec)
{
	const char *s = strstr(t, "<output>"), *e;
	int rc;

	*ec = kt_impx_exit_code(t, &rc);
	if (rc)
		return NULL;    /* out of memory, as the copies below */
	if (!s)
		return strdup(t);
	s += 8;
	if (*s == '\n')
		s++;
	e = strstr(s, "</output>");
	return strndup(s, e ? (size_t)(e - s) : strlen(s));
}

static int import_mini(swx *x, const cJSON *msgs, const kt_impx_span *sp,
		       long nsp)
{
	const cJSON *m;
	long i = -1;
	int rc = 0, seen_task = 0;

	cJSON_ArrayForEach(m, msgs) {
		const char *role = kt_json_str(m, "role");
		char *text = kt_impx_content_text(cJSON_GetObjectItem(m, "content"));
		kt_impx_span s;
		cJSON *msg;
		uint64_t mseq = 0;

		i++;
		s = kt_impx_span_at(sp, nsp, i);
		if (!role)
			role = "user";
		if (strcmp(role, "assistant") == 0) {
			const cJSON *resp = cJSON_GetObjectItem(
				cJSON_GetObjectItem(m, "extra"), "response");
			const cJSON *us = cJSON_GetObjectItem(resp, "usage");
			char *cmd = bash_block(text);

			msg = kt_impx_msg("assistant", 0, text, NULL);
			if (msg && kt_json_str(resp, "model"))
				cJSON_AddStringToObject(msg, "model",
							kt_json_str(resp, "model"));
			if (msg && cJSON_IsObject(us)) {
				cJSON *u = cJSON_AddObjectToObject(msg, "usage");
				double pt = cJSON_GetNumberValue(
					cJSON_GetObjectItem(us, "prompt_tokens"));
				double ct = cJSON_GetNumberValue(
					cJSON_GetObjectItem(us,
							    "completion_tokens"));

				if (u) {
					/* counts as written: one out of
					 * range is left out (store/event_model.h) */
					kt_imp_add_count(u, "input",
							 pt == pt ? pt : 0);
					kt_imp_add_count(u, "output",
							 ct == ct ? ct : 0);
					cJSON_AddNumberToObject(u, "cache_read", 0);
					cJSON_AddNumberToObject(u,
								"cache_creation", 0);
				}
			}
			if (x->npend)
				rc = flush_pending(x, "", -1, NULL, &s);
			if (!rc)
				rc = kt_impx_emit_valid(x->imp, NULL, KT_KIND_MESSAGE, 0,
						KT_TS_UNKNOWN, "agent", msg, s.line,
						s.off, s.len, &mseq);
			else
				cJSON_Delete(msg);
			if (!rc && cmd) {
				cJSON *args = cJSON_CreateObject();

				if (args)
					cJSON_AddStringToObject(args, "command",
								cmd);
				rc = add_call(x, NULL, "bash", args, cmd, mseq,
					      &s);
			}
			free(cmd);
		} else if (strcmp(role, "system") == 0) {
			msg = kt_impx_msg("system", 0, text, "meta");
			rc = kt_impx_emit_valid(x->imp, NULL, KT_KIND_MESSAGE, 0,
					KT_TS_UNKNOWN, "system", msg, s.line,
					s.off, s.len, NULL);
		} else if (x->npend && text && strstr(text, "<returncode>")) {
			int ec;
			char *out = mini_output(text, &ec);

			rc = out ? flush_pending(x, out, ec, NULL, &s) :
				   KT_ENOMEM;
			free(out);
		} else {
			int human = !seen_task && strcmp(role, "user") == 0;

			if (x->npend)
				rc = flush_pending(x, text ? text : "", -1, NULL,
						   &s);
			seen_task = 1;
			msg = kt_impx_msg("user", human, text,
					human ? NULL : "meta");
			if (!rc)
				rc = kt_impx_emit_valid(x->imp, NULL, KT_KIND_MESSAGE, 0,
						KT_TS_UNKNOWN,
						human ? "human" : "system", msg,
						s.line, s.off, s.len, NULL);
			else
				cJSON_Delete(msg);
		}
		free(text);
		if (rc)
			return rc;
	}
	if (x->npend) {
		kt_impx_span z = { 0, 0, 0 };

		rc = flush_pending(x, "", -1, NULL, &z);
	}
	return rc;
}

/* ---- the file --------------------------------------------------------------- */
/* The directory the trajectory's first command ran in, as it says it: a
 * trajectory step's state.working_dir or "(Current directory: ...)"
 * footer, else the first history message's footer.  The run's meta
 * "cwd": an export writes it (claude_code lines' "cwd"), so that its
 * import resolves relative paths (`rm reproduce.py`) as this import does.
 * Heap string or NULL (none said, or KT_ENOMEM in *rc). */
static char *first_cwd(const cJSON *traj, const cJSON *hist, int *rc)
{
	swx y;
	const cJSON *e;

	memset(&y, 0, sizeof(y));
	*rc = 0;
	cJSON_ArrayForEach(e, traj) {
		const char *o = kt_json_str(e, "observation");

		if ((*rc = state_of(&y, e)) || y.cwd)
			break;
		if (o)
			footer_state(&y, o);
		if (y.cwd)
			break;
	}
	if (!*rc && !y.cwd)
		cJSON_ArrayForEach(e, hist) {
			const char *t = kt_json_str(e, "content");

			if (t && !truthy(cJSON_GetObjectItem(e, "is_demo")))
				footer_state(&y, t);
			if (y.cwd)
				break;
		}
	free(y.open_file);
	return y.cwd;
}

static int swe_import(kt_imp *imp, const kt_file *f)
{
	swx x;
	cJSON *doc, *meta = NULL, *info;
	const cJSON *hist, *traj, *msgs;
	const char *fmt;
	char ident[KT_HASH_HEX + 16], *name = NULL;
	kt_impx_span *sp = NULL;
	long nsp;
	int rc = 0, mini, agent_turns = 0;

	memset(&x, 0, sizeof(x));
	x.imp = imp;
	x.f = f;
	if (!(doc = kt_impx_parse(imp, f)))
		return KT_EPARSE;
	if (!cJSON_IsObject(doc)) {
		kt_imp_warn(imp, f, 0, "not a JSON object: not a SWE-agent trajectory");
		cJSON_Delete(doc);
		return KT_EPARSE;
	}
	hist = cJSON_GetObjectItem(doc, "history");
	traj = cJSON_GetObjectItem(doc, "trajectory");
	msgs = cJSON_GetObjectItem(doc, "messages");
	fmt = kt_json_str(doc, "trajectory_format");
	mini = (fmt && strncmp(fmt, "mini-swe-agent", 14) == 0) ||
	       (cJSON_IsArray(msgs) && !cJSON_IsArray(hist));
	if (!mini && !cJSON_IsArray(hist) && !cJSON_IsArray(traj)) {
		kt_imp_warn(imp, f, 0, "no history, trajectory or messages: "
			    "not a SWE-agent trajectory");
		cJSON_Delete(doc);
		return KT_EPARSE;
	}
	/* no session id exists: the content names the run */
	snprintf(ident, sizeof(ident), "%s:%.32s",
		 mini ? "mini_swe_agent" : "swe_agent", f->sha_hex);
	if ((rc = kt_impx_file_run(f, &name, &meta)))
		goto out;
	if (fmt)
		cJSON_AddStringToObject(meta, "trajectory_format", fmt);
	if (kt_json_str(doc, "environment"))
		cJSON_AddStringToObject(meta, "environment",
					kt_json_str(doc, "environment"));
	if (!(info = field(doc, "info", &rc)) && rc)
		goto out;
	if (cJSON_IsObject(info)) {
		cJSON *ms = field(info, "model_stats", &rc);

		if (rc) {
			cJSON_Delete(info);
			goto out;
		}
		if (ms) {
			cJSON_DeleteItemFromObject(info, "model_stats");
			cJSON_AddItemToObject(info, "model_stats", ms);
		}
		cJSON_DeleteItemFromObject(info, "config");
		cJSON_AddItemToObject(meta, "info", info);
	} else {
		cJSON_Delete(info);
	}
	{
		cJSON *rc_ = field(doc, "replay_config", &rc);
		const cJSON *ag = cJSON_GetObjectItem(rc_, "agent");
		const cJSON *model = cJSON_GetObjectItem(ag, "model");
		const char *mn = kt_impx_str2(model, "name", "model_name");

		if (mn)
			cJSON_AddStringToObject(meta, "model", mn);
		cJSON_Delete(rc_);
		if (rc)
			goto out;
	}
	x.submission = kt_json_str(cJSON_GetObjectItem(doc, "info"), "submission");
	/* one importer, one format name (--format swe_agent); the flavour is
	 * in the meta */
	if (mini && !fmt)
		cJSON_AddStringToObject(meta, "trajectory_format",
					"mini-swe-agent");
	{
		char *wd = first_cwd(traj, hist, &rc);

		if (wd && *wd)
			cJSON_AddStringToObject(meta, "cwd", wd);
		free(wd);
		if (rc)
			goto out;
	}
	if ((rc = kt_imp_run_begin(imp, ident, name, "swe_agent", meta)))
		goto out;
	meta = NULL;
	if (mini) {
		nsp = kt_impx_spans((const char *)f->data, f->len, "messages", &sp);
		rc = import_mini(&x, msgs, sp, nsp);
	} else {
		const cJSON *m;

		cJSON_ArrayForEach(m, hist)
			if (!truthy(cJSON_GetObjectItem(m, "is_demo")) &&
			    kt_json_str(m, "role") &&
			    strcmp(kt_json_str(m, "role"), "assistant") == 0)
				agent_turns++;
		if (agent_turns || !cJSON_IsArray(traj) ||
		    cJSON_GetArraySize(traj) == 0) {
			x.traj = traj;
			nsp = kt_impx_spans((const char *)f->data, f->len,
					  "history", &sp);
			rc = import_history(&x, hist, sp, nsp);
		} else {
			const cJSON *m2;

			/* system prompt and issue from history, steps from
			 * trajectory */
			nsp = kt_impx_spans((const char *)f->data, f->len,
					  "history", &sp);
			{
				long i = -1;

				cJSON_ArrayForEach(m2, hist) {
					kt_impx_span s;

					i++;
					s = kt_impx_span_at(sp, nsp, i);
					if (!cJSON_IsObject(m2) ||
					    truthy(cJSON_GetObjectItem(m2,
								"is_demo")))
						continue;
					if ((rc = history_msg(&x, m2, &s)))
						break;
				}
			}
			free(sp);
			sp = NULL;
			x.traj = traj;
			if (!rc) {
				nsp = kt_impx_spans((const char *)f->data, f->len,
						  "trajectory", &sp);
				rc = import_trajectory(&x, traj, sp, nsp);
			}
		}
	}
	rc = kt_imp_run_finish(imp, rc);
out:
	while (x.npend)
		scall_clear(&x.pend[--x.npend]);
	free(x.pend);
	free(x.cwd);
	free(x.open_file);
	free(sp);
	free(name);
	cJSON_Delete(meta);
	cJSON_Delete(doc);
	return rc;
}

const kt_importer kt_importer_swe_agent = {
	.name = "swe_agent",
	.summary = "SWE-agent .traj (0.x, 1.x, history-only) and mini-swe-agent "
		   "trajectories",
	.detect = swe_detect,
	.import = swe_import,
	.flags = KT_IMPF_HARNESS_PROMPTS,
	.aliases = (const char *const[]){ "mini_swe_agent", NULL },
};
