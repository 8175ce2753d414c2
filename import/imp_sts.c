/*
 * imp_sts.c - Hugging Face "Session Trace Simple Format" (STS) JSONL.
 * Source: huggingface/hub-docs docs/hub/session-traces-format.md.
 *
 * Line 1: {type:"session", harness, id, name?, ...}; every later line
 * {type:"message", message:{role: user|assistant|system|tool, content
 * (string or parts with text), toolCalls?:[{id, function:{name,
 * arguments (a JSON string)}}], toolCallId? (role tool), timestamp?
 * (epoch ms), model?}}.
 *  - user text is a person's (human true) unless the line says "human":
 *    false (ktraj's export marks text no person typed so); system lines
 *    are meta; an assistant's "reasoning" is a thinking message before its
 *    text; a tool line's "isError": true is a failed call; tool lines are the results of the
 *    call their toolCallId names (paired by id, not by order).
 *  - Run identity: "sts:<harness>:<id>"; a file without a header gets its
 *    content hash and one warning.
 *  - Members of a message the payload has no field for go to `extra`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "impx.h"
#include "impconv.h"

typedef struct stsx {
	kt_conv cv;
	int begun, bad;
} stsx;

static int sts_detect(const kt_file *f)
{
	size_t n = f->len < 4096 ? f->len : 4096;
	const unsigned char *nl = memchr(f->data, '\n', n);

	if (nl)
		n = (size_t)(nl - f->data); /* the header line only */
	if (kt_impx_sniff(f->data, n, "type", "session") &&
	    kt_impx_sniff(f->data, n, "harness", NULL))
		return 85;
	return 0;
}

static int begin(stsx *x, const cJSON *hdr)
{
	const char *h = kt_json_str(hdr, "harness");
	const char *id = kt_json_str(hdr, "id");
	const char *name = kt_json_str(hdr, "name");
	cJSON *meta = cJSON_CreateObject();
	char ident[512];

	if (!meta)
		return KT_ENOMEM;
	if (id)
		snprintf(ident, sizeof(ident), "sts:%.200s:%.200s",
			 h ? h : "", id);
	else
		snprintf(ident, sizeof(ident), "sts:%s", x->cv.f->sha_hex);
	if (h)
		cJSON_AddStringToObject(meta, "harness", h);
	if (id)
		cJSON_AddStringToObject(meta, "session_id", id);
	/* ktraj's STS export writes the session's directory in the header:
	 * relative paths of tool calls resolve against it, as they did in
	 * the import the run came from */
	if (kt_json_str(hdr, "cwd") && *kt_json_str(hdr, "cwd")) {
		free(x->cv.cwd);
		if (!(x->cv.cwd = strdup(kt_json_str(hdr, "cwd")))) {
			cJSON_Delete(meta);
			return KT_ENOMEM;
		}
		cJSON_AddStringToObject(meta, "cwd", x->cv.cwd);
	}
	cJSON_AddStringToObject(meta, "source", x->cv.f->rel ? x->cv.f->rel :
				x->cv.f->path);
	x->begun = 1;
	return kt_imp_run_begin(x->cv.imp, ident, name ? name : id ? id :
				kt_impx_base(x->cv.f->path), "sts", meta);
}

static int on_message(stsx *x, const cJSON *m, const kt_impx_span *sp)
{
	static const char *const known[] = {
		"role", "content", "toolCalls", "toolCallId", "timestamp",
		"model", "human", "isError", "reasoning", NULL
	};
	const char *role = kt_json_str(m, "role");
	const cJSON *tcs = cJSON_GetObjectItem(m, "toolCalls"), *tc;
	int64_t ts = kt_impx_ts_json(cJSON_GetObjectItem(m, "timestamp"));
	char *text = kt_impx_content_text(cJSON_GetObjectItem(m, "content"));
	cJSON *more = cJSON_CreateObject();
	int rc = 0;

	if (!more) {
		free(text);
		return KT_ENOMEM;
	}
	if ((rc = kt_impx_keep_extra(more, m, known)))
		goto out;
	if (!role) {
		kt_imp_warn(x->cv.imp, x->cv.f, sp->line, "message without a "
			    "role: line skipped");
		goto out;
	}
	if (!strcmp(role, "tool")) {
		/* isError (written by ktraj's export, and by harnesses that
		 * know) says the call failed; without it, from the output */
		rc = kt_conv_result(&x->cv, kt_json_str(m, "toolCallId"), text,
				    cJSON_IsTrue(cJSON_GetObjectItem(m, "isError")) ? 0 : -1,
				    cJSON_DetachItemFromObject(more, "extra"),
				    ts, sp);
		goto out;
	}
	if (!strcmp(role, "assistant")) {
		if (kt_json_str(m, "model"))
			cJSON_AddStringToObject(more, "model",
						kt_json_str(m, "model"));
		/* the model's reasoning before its answer, as a thinking
		 * message (how the other importers keep thoughts) */
		if (kt_json_str(m, "reasoning") && *kt_json_str(m, "reasoning") &&
		    (rc = kt_conv_msg(&x->cv, "assistant", 0, kt_json_str(m, "reasoning"),
				      "thinking", NULL, ts, sp, NULL)))
			goto out;
		/* an empty text beside tool calls is no message */
		if ((text && *text) || !cJSON_GetArraySize(tcs)) {
			rc = kt_conv_msg(&x->cv, "assistant", 0, text, NULL,
					 more, ts, sp, NULL);
			more = NULL;
		} else {
			x->cv.last_assistant = 0;
		}
		cJSON_ArrayForEach(tc, tcs) {
			const cJSON *fn = cJSON_GetObjectItem(tc, "function");

			if (rc || (rc = kt_conv_call(&x->cv, kt_json_str(tc, "id"),
					     kt_json_str(fn, "name"),
					     cJSON_GetObjectItem(fn, "arguments"),
					     NULL, 0, ts, sp, NULL)))
				break;
		}
		goto out;
	}
	/* a user line is a person's unless it says otherwise ("human":
	 * false, as ktraj's export marks text no person typed) */
	rc = kt_conv_msg(&x->cv, !strcmp(role, "user") ? "user" : "system",
			 !strcmp(role, "user") &&
			 !cJSON_IsFalse(cJSON_GetObjectItem(m, "human")), text,
			 !strcmp(role, "user") ? NULL : "meta", more, ts, sp,
			 NULL);
	more = NULL;
out:
	cJSON_Delete(more);
	free(text);
	return rc;
}

static int on_line(cJSON *rec, uint64_t line, uint64_t off, uint64_t len,
		   void *arg)
{
	stsx *x = arg;
	const char *type = kt_json_str(rec, "type");
	kt_impx_span sp = { off, len, line };
	int rc;

	if (type && !strcmp(type, "session")) {
		if (x->begun) {
			kt_imp_warn(x->cv.imp, x->cv.f, line, "a second session "
				    "header: line skipped");
			return 0;
		}
		return begin(x, rec);
	}
	if (!x->begun) {
		kt_imp_warn(x->cv.imp, x->cv.f, line, "no session header "
			    "before the first message: the run is named by "
			    "the file's content hash");
		if ((rc = begin(x, NULL)))
			return rc;
	}
	if (!type || strcmp(type, "message") ||
	    !cJSON_IsObject(cJSON_GetObjectItem(rec, "message"))) {
		kt_imp_warn(x->cv.imp, x->cv.f, line, "not a message line: "
			    "line skipped");
		return 0;
	}
	return on_message(x, cJSON_GetObjectItem(rec, "message"), &sp);
}

static int sts_import(kt_imp *imp, const kt_file *f)
{
	stsx x;
	int rc;

	memset(&x, 0, sizeof(x));
	if ((rc = kt_conv_init(&x.cv, imp, f, NULL)))
		return rc;
	rc = kt_impx_jsonl(imp, f, on_line, &x);
	if (x.begun)
		rc = kt_imp_run_finish(imp, rc);
	kt_conv_free(&x.cv);
	return rc;
}

const kt_importer kt_importer_sts = {
	.name = "sts",
	.summary = "Hugging Face Session Trace Simple Format (STS) JSONL",
	.detect = sts_detect,
	.import = sts_import,
};
