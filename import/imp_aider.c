/*
 * imp_aider.c - Aider chat history Markdown (.aider.chat.history.md).
 * Source: Aider-AI/aider aider/io.py (append_chat_history, user_input,
 * tool_output), aider/coders/editblock_coder.py (SEARCH/REPLACE blocks and
 * the file name line before them), aider/coders/base_coder.py ("Applied
 * edit to", "Running" of shell commands).
 *
 * The file is appended to by every session of one repository:
 *   "# aider chat started at YYYY-MM-DD hh:mm:ss"  a session begins
 *   "#### text"     what the person typed, one line each (a multi-line
 *                   input repeats the prefix on every line)
 *   "> text"        Aider's own output (status, prompts and the answers
 *                   typed to them, token counts), with two trailing spaces
 *   anything else   the model's reply, as Markdown
 * Output:
 *  - One run per file: identity "aider:<file name>:<first session start>",
 *    so a grown history continues its run.  Each session start is a meta
 *    system message carrying the start time (local time, no zone: taken as
 *    UTC); other lines carry no time.
 *  - "####" groups: user messages, human true ("/add ..." commands too,
 *    flagged "command": the person typed them); the answer to a y/n prompt
 *    ("...? (Y)es/(N)o ...: skip") is a meta user line, human false.  ">" groups: one meta
 *    system message each.  Replies: assistant messages.
 *  - Each SEARCH/REPLACE block of a reply is a tool call "edit_block"
 *    {path, search, replace}; its result comes from Aider's output after
 *    the reply: "Applied edit to PATH" (ok, the block applied to the
 *    workspace), a "SearchReplaceNoExactMatch ... in PATH" naming the
 *    block's text (failed, nothing changed; the other blocks of that reply
 *    applied, as Aider says), and no such line before the next input (not
 *    applied: ok false).  Paths are relative to the repository root.
 *  - "> Running CMD" is a shell tool call; its output is not in the history
 *    (the result says so) and the command goes through kt_shell_classify.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "impx.h"
#include "impconv.h"

#define HDR "# aider chat started at "

typedef struct ablock {
	char *path, *search, *replace;
	uint64_t call;         /* n of its call id "edit-<n>" */
} ablock;

typedef struct aiderx {
	kt_conv cv;
	kt_imp *imp;
	const kt_file *f;
	struct kt_buf user, reply, status;
	int cur;               /* 'u', 'a', 's' or 0: the open group */
	int err_tail;          /* a failed-match report continues unquoted */
	kt_impx_span sp;       /* the open group's first line */
	ablock *blk;
	size_t nblk, cap;
	uint64_t nruns, ncalls;
} aiderx;

static int aider_detect(const kt_file *f)
{
	size_t n = f->len < 4096 ? f->len : 4096;

	if (kt_impx_has(f, n, HDR))
		return 90;
	return 0;
}

static void blocks_clear(aiderx *x)
{
	for (size_t i = 0; i < x->nblk; i++) {
		free(x->blk[i].path);
		free(x->blk[i].search);
		free(x->blk[i].replace);
	}
	x->nblk = 0;
}

/* The text of a group: its buffer taken, trailing blank lines dropped. */
static char *take(struct kt_buf *b)
{
	char *t = kt_buf_take(b);
	size_t n;

	if (!t)
		return NULL;
	n = strlen(t);
	while (n && (t[n - 1] == '\n' || t[n - 1] == ' '))
		t[--n] = 0;
	return t;
}

/* Results for the blocks still waiting, from Aider's output `st` (NULL:
 * nothing more will say, so none applied). */
static int resolve(aiderx *x, const char *st)
{
	int rc = 0;

	for (size_t i = 0; i < x->nblk && !rc; i++) {
		ablock *b = &x->blk[i];
		char *ap = NULL, *miss = NULL;
		const char *why;
		int ok;
		char cid[32];

		if (st && (ap = malloc(strlen(b->path) + 32)) &&
		    (miss = malloc(strlen(b->path) + 32))) {
			sprintf(ap, "Applied edit to %s", b->path);
			sprintf(miss, "exactly match lines in %s", b->path);
		}
		if (!ap || !miss) {
			free(ap);
			free(miss);
			if (st)
				return KT_ENOMEM;
			ap = miss = NULL;
		}
		if (st && strstr(st, miss) && strstr(st, b->search)) {
			ok = 0;
			why = "SEARCH text not found: not applied";
		} else if (st && (strstr(st, ap) ||
				  strstr(st, "failed to match"))) {
			ok = 1;
			why = "applied";
		} else {
			ok = 0;
			why = "no \"Applied edit\" line follows: not applied";
		}
		free(ap);
		free(miss);
		snprintf(cid, sizeof(cid), "edit-%llu",
			 (unsigned long long)b->call);
		rc = kt_conv_result(&x->cv, cid, why, ok, NULL, KT_TS_UNKNOWN,
				    &x->sp);
	}
	blocks_clear(x);
	return rc;
}

/* Aider's fence and file-name line rules (editblock_coder.py strip_filename
 * in spirit): the name is the nearest line before the block that is not
 * blank and not a fence, stripped of Markdown decoration. */
static char *block_path(const char *text, const char *blk)
{
	const char *e = blk;

	while (e > text) {
		const char *s = e - 1, *a, *z;

		while (s > text && s[-1] != '\n')
			s--;
		a = s;
		z = e - 1; /* the newline ending that line */
		while (a < z && strchr(" \t*#`:", *a))
			a++;
		while (z > a && strchr(" \t\r*`:", z[-1]))
			z--;
		if (z > a && strncmp(s, "```", 3) && strncmp(s, "~~~", 3))
			return strndup(a, (size_t)(z - a));
		e = s;
		if (e == text)
			break;
	}
	return NULL;
}

static int on_reply(aiderx *x, const char *t, uint64_t msg)
{
	const char *p = t;
	int rc = 0;

	while (!rc && (p = strstr(p, "<<<<<<< SEARCH"))) {
		const char *mid, *end, *s;
		char *path;
		cJSON *args;
		ablock *b;
		char cid[32];

		if ((p != t && p[-1] != '\n') ||
		    !(mid = strstr(p, "\n=======")) ||
		    !(end = strstr(mid, "\n>>>>>>> REPLACE")))
			break;
		s = strchr(p, '\n') + 1;
		path = block_path(t, p);
		if (!path) {
			p = end + 1;
			continue; /* no file named: no edit claimed */
		}
		if (x->nblk == x->cap) {
			size_t nc = x->cap ? 2 * x->cap : 8;
			ablock *nb = realloc(x->blk, nc * sizeof(*nb));

			if (!nb) {
				free(path);
				return KT_ENOMEM;
			}
			x->blk = nb;
			x->cap = nc;
		}
		b = &x->blk[x->nblk];
		memset(b, 0, sizeof(*b));
		b->path = path;
		b->search = s > mid ? strdup("") : strndup(s, (size_t)(mid + 1 - s));
		b->replace = strchr(mid + 1, '\n') >= end ? strdup("") :
			     strndup(strchr(mid + 1, '\n') + 1,
				     (size_t)(end + 1 - (strchr(mid + 1, '\n') + 1)));
		x->nblk++;
		if (!b->search || !b->replace || !(args = cJSON_CreateObject()))
			return KT_ENOMEM;
		cJSON_AddStringToObject(args, "path", b->path);
		cJSON_AddStringToObject(args, "search", b->search);
		cJSON_AddStringToObject(args, "replace", b->replace);
		snprintf(cid, sizeof(cid), "edit-%llu",
			 (unsigned long long)++x->ncalls);
		rc = kt_conv_call(&x->cv, cid, "edit_block", args, NULL, msg,
				  KT_TS_UNKNOWN, &x->sp, NULL);
		cJSON_Delete(args);
		b->call = x->ncalls;
		p = end + 1;
	}
	return rc;
}

static int on_status(aiderx *x, const char *t)
{
	const char *p;
	int rc = kt_conv_msg(&x->cv, "system", 0, t, "meta", NULL,
			     KT_TS_UNKNOWN, &x->sp, NULL);

	/* Aider applies a reply's edits before it runs its commands */
	if (!rc && x->nblk && (strstr(t, "Applied edit to") ||
			       strstr(t, "failed to match")))
		rc = resolve(x, t);

	for (p = t; !rc && p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1
							 : NULL) {
		const char *e = strchr(p, '\n');
		char *cmd;
		cJSON *args, *ex;
		char cid[32];

		if (strncmp(p, "Running ", 8))
			continue;
		cmd = strndup(p + 8, e ? (size_t)(e - p - 8) : strlen(p + 8));
		args = cJSON_CreateObject();
		ex = cJSON_CreateObject();
		if (!cmd || !args || !ex) {
			free(cmd);
			cJSON_Delete(args);
			cJSON_Delete(ex);
			return KT_ENOMEM;
		}
		cJSON_AddStringToObject(args, "command", cmd);
		free(cmd);
		snprintf(cid, sizeof(cid), "shell-%llu",
			 (unsigned long long)++x->ncalls);
		rc = kt_conv_call(&x->cv, cid, "shell", args, NULL, 0,
				  KT_TS_UNKNOWN, &x->sp, NULL);
		cJSON_Delete(args);
		cJSON_AddBoolToObject(ex, "output_not_in_history", 1);
		if (!rc)
			rc = kt_conv_result(&x->cv, cid, "", 1, ex,
					    KT_TS_UNKNOWN, &x->sp);
		else
			cJSON_Delete(ex);
	}
	return rc;
}

/* Close the open group: emit what it holds. */
static int flush(aiderx *x)
{
	int c = x->cur, rc = 0;
	char *t;
	uint64_t msg = 0;

	x->cur = 0;
	if (c == 'u') {
		if (!(t = take(&x->user)))
			return KT_ENOMEM;
		if (x->nblk)
			rc = resolve(x, NULL);
		/* an answer to one of Aider's y/n prompts is logged as input
		 * too: the person chose, but typed no message */
		if (!rc && strstr(t, "? (Y)es/(N)o"))
			rc = kt_conv_msg(&x->cv, "user", 0, t, "meta,confirm",
					 NULL, KT_TS_UNKNOWN, &x->sp, NULL);
		else if (!rc)
			rc = kt_conv_msg(&x->cv, "user", 1, t, *t == '/' ?
					 "command" : NULL, NULL, KT_TS_UNKNOWN,
					 &x->sp, NULL);
	} else if (c == 'a') {
		if (!(t = take(&x->reply)))
			return KT_ENOMEM;
		if (!*t) {
			free(t);
			return 0;
		}
		if (x->nblk)
			rc = resolve(x, NULL);
		if (!rc)
			rc = kt_conv_msg(&x->cv, "assistant", 0, t, NULL, NULL,
					 KT_TS_UNKNOWN, &x->sp, &msg);
		if (!rc)
			rc = on_reply(x, t, msg);
	} else if (c == 's') {
		if (!(t = take(&x->status)))
			return KT_ENOMEM;
		rc = on_status(x, t);
	} else {
		return 0;
	}
	free(t);
	return rc;
}

static int begin_run(aiderx *x, const char *start)
{
	cJSON *meta = cJSON_CreateObject();
	const char *name = kt_impx_base(x->f->rel ? x->f->rel : x->f->path);
	char ident[512];

	if (!meta)
		return KT_ENOMEM;
	snprintf(ident, sizeof(ident), "aider:%.200s:%.64s", name, start);
	cJSON_AddStringToObject(meta, "source", x->f->rel ? x->f->rel :
				x->f->path);
	cJSON_AddStringToObject(meta, "timestamps", "session starts only, "
				"local time taken as UTC");
	x->nruns++;
	return kt_imp_run_begin(x->imp, ident, name, "aider", meta);
}

/* Open group `c` at sp, closing another first. */
static int open_group(aiderx *x, int c, const kt_impx_span *sp)
{
	int rc = 0;

	if (x->cur != c) {
		rc = flush(x);
		x->cur = c;
		x->sp = *sp;
	}
	return rc;
}

/* A line that starts a "####" (user) or ">" (status) group: the mark
 * alone or followed by a space. Returns the group's buffer with *s, *n past
 * the mark and its space and *rc from opening group c; NULL (nothing done)
 * for any other line. */
static struct kt_buf *marked(aiderx *x, const char *mark, int c,
			     struct kt_buf *b, const char **s, size_t *n,
			     const kt_impx_span *sp, int *rc)
{
	size_t k = strlen(mark), skip;

	if (*n < k || strncmp(*s, mark, k) || (*n > k && (*s)[k] != ' '))
		return NULL;
	x->err_tail = 0;
	*rc = open_group(x, c, sp);
	skip = *n > k ? k + 1 : k;
	*s += skip;
	*n -= skip;
	return b;
}

static int on_line(aiderx *x, const char *s, size_t n, const kt_impx_span *sp)
{
	struct kt_buf *b;
	int rc;

	while (n && (s[n - 1] == '\r'))
		n--;
	if (n >= strlen(HDR) && !strncmp(s, HDR, strlen(HDR))) {
		char *when = strndup(s + strlen(HDR), n - strlen(HDR));
		cJSON *more;

		if (!when || (rc = flush(x)) ||
		    (!x->nruns && (rc = begin_run(x, when))) ||
		    (x->nblk && (rc = resolve(x, NULL)))) {
			free(when);
			return when ? rc : KT_ENOMEM;
		}
		x->err_tail = 0;
		more = cJSON_CreateObject();
		if (more)
			cJSON_AddStringToObject(more, "msg_id", when);
		/* the line without its "# " */
		{
			char *t = strndup(s + 2, n - 2);

			rc = t ? kt_conv_msg(&x->cv, "system", 0, t,
					     "meta,session_start", more,
					     kt_impx_ts(when), sp, NULL)
			       : KT_ENOMEM;
			if (!t)
				cJSON_Delete(more);
			free(t);
		}
		free(when);
		return rc;
	}
	if (!x->nruns) {
		if (n) /* text before any session: kept, under the file */
			kt_imp_warn(x->imp, x->f, sp->line, "text before the "
				    "first \"%s\" line", HDR);
		if (n && (rc = begin_run(x, x->f->sha_hex)))
			return rc;
		if (!n)
			return 0;
	}
	if ((b = marked(x, "####", 'u', &x->user, &s, &n, sp, &rc))) {
		if (rc)
			return rc;
	} else if ((b = marked(x, ">", 's', &x->status, &s, &n, sp, &rc))) {
		if (rc)
			return rc;
		if (memmem(s, n, "failed to match", 15))
			x->err_tail = 1;
	} else if (x->err_tail || (x->cur == 's' && n >= 2 &&
				   !strncmp(s, "##", 2))) {
		/* the body of a failed-match report is not quoted */
		x->err_tail = 1;
		b = &x->status;
	} else {
		if (!n && x->cur != 'a')
			return 0; /* a blank line between groups */
		if ((rc = open_group(x, 'a', sp)))
			return rc;
		b = &x->reply;
	}
	/* Markdown hard breaks: the two trailing spaces are Aider's */
	if (b != &x->reply)
		while (n && s[n - 1] == ' ')
			n--;
	kt_buf_printf(b, "%.*s\n", (int)n, s);
	return 0;
}

static int aider_import(kt_imp *imp, const kt_file *f)
{
	aiderx x;
	const char *d = (const char *)f->data, *e = d + f->len, *p = d;
	uint64_t line = 0;
	int rc;

	memset(&x, 0, sizeof(x));
	x.imp = imp;
	x.f = f;
	if ((rc = kt_conv_init(&x.cv, imp, f, NULL)))
		return rc;
	while (!rc && p < e) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(e - p);
		kt_impx_span sp = { (size_t)(p - d), n, ++line };

		if (memchr(p, 0, n)) {
			kt_imp_warn(imp, f, line, "NUL byte in a text line: "
				    "line skipped");
		} else {
			rc = on_line(&x, p, n, &sp);
		}
		p = nl ? nl + 1 : e;
		kt_imp_progress(imp, (uint64_t)(p - d));
	}
	if (!rc)
		rc = flush(&x);
	if (!rc && x.nblk)
		rc = resolve(&x, NULL);
	if (x.nruns)
		rc = kt_imp_run_finish(imp, rc);
	else if (!rc)
		kt_imp_warn(imp, f, 0, "no \"%s\" line: not an Aider chat "
			    "history", HDR);
	blocks_clear(&x);
	free(x.blk);
	kt_buf_free(&x.user);
	kt_buf_free(&x.reply);
	kt_buf_free(&x.status);
	kt_conv_free(&x.cv);
	return rc;
}

const kt_importer kt_importer_aider = {
	.name = "aider",
	.summary = "Aider chat history Markdown (.aider.chat.history.md)",
	.detect = aider_detect,
	.import = aider_import,
};
