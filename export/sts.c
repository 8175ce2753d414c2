/*
 * sts.c - `ktraj export --format sts`: a run in the Session Trace Simple
 * Format (STS-Format), the JSONL that the Hugging Face Hub trace viewer
 * renders for any harness (https://huggingface.co/docs/hub/
 * session-traces-format; example: shared/corpus/sts/).
 *
 * Line 1 is the session header {"type":"session","harness":"ktraj","id":
 * <run id>,"name":<run name>} with the run's source format, working
 * directory and model as extra metadata (the spec allows and ignores it).
 * Every other line is {"type":"message","message":{role, content, ...}}:
 *   message user/system      -> role "user"/"system"; a user message no
 *                               person typed carries "human":false
 *   message assistant        -> role "assistant"; a thinking message goes to
 *                               "reasoning" of the assistant message that
 *                               follows
 *   tool_call                -> toolCalls[] {id, function:{name, arguments
 *                               (a JSON string)}} of the assistant message
 *                               just written (a new one with content "" when
 *                               there is none)
 *   tool_result              -> role "tool" with toolCallId ("isError":true
 *                               when the tool failed)
 *   every other kind         -> not written (derived from the tool calls)
 * Each message carries "timestamp" (epoch milliseconds, as the spec says:
 * huggingface/hub-docs docs/hub/session-traces-format.md) when the event
 * has one; finer than a millisecond is not kept.
 */
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "agentx.h"

struct sts {
	cJSON *pending; /* the last assistant line, held for its tool calls */
};

static int flush(kt_xrun *x, struct sts *st)
{
	cJSON *o = st->pending;

	st->pending = NULL;
	return o ? kt_xrun_line(x, o) : x->rc;
}

static cJSON *message(const kt_event *ev, const char *role, cJSON **msg)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "type", "message");
	*msg = cJSON_AddObjectToObject(o, "message");
	cJSON_AddStringToObject(*msg, "role", role);
	/* the spec's timestamp is a number of milliseconds; an ISO string
	 * is not one (a double holds every ms count up to 2^53) */
	if (ev->ts_ns != KT_TS_UNKNOWN && ev->ts_ns > 0)
		cJSON_AddNumberToObject(*msg, "timestamp",
					(double)(ev->ts_ns / 1000000));
	return o;
}

/* The held assistant message, when it can still take text: no content and
 * no tool calls yet (a thinking message opened it). */
static cJSON *open_reasoning(struct sts *st)
{
	cJSON *m = cJSON_GetObjectItemCaseSensitive(st->pending, "message");

	if (m && !*kt_json_str(m, "content") &&
	    !cJSON_GetObjectItemCaseSensitive(m, "toolCalls"))
		return m;
	return NULL;
}

static int on_event(kt_xrun *x, const kt_event *ev, cJSON *p, void *arg)
{
	struct sts *st = arg;
	const char *role = kt_json_str(p, "role");
	cJSON *o, *m;
	char *text;

	if (ev->kind == KT_KIND_MESSAGE && role && !strcmp(role, "assistant")) {
		if (!(text = kt_xrun_text(x, p, "text")))
			return x->rc;
		m = open_reasoning(st);
		if (kt_xflag(p, "thinking")) {
			if (!m) {
				flush(x, st);
				st->pending = message(ev, "assistant", &m);
				cJSON_AddStringToObject(m, "content", "");
			}
			cJSON_DeleteItemFromObject(m, "reasoning");
			cJSON_AddStringToObject(m, "reasoning", text);
		} else if (m) {
			cJSON_ReplaceItemInObject(m, "content", cJSON_CreateString(text));
		} else {
			flush(x, st);
			st->pending = message(ev, "assistant", &m);
			cJSON_AddStringToObject(m, "content", text);
		}
		if (kt_json_str(p, "model") && !cJSON_GetObjectItem(m, "model"))
			cJSON_AddStringToObject(m, "model", kt_json_str(p, "model"));
		free(text);
		return x->rc;
	}
	if (ev->kind == KT_KIND_TOOL_CALL) {
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(p, "args");
		const char *id = kt_json_str(p, "call_id"), *tool = kt_json_str(p, "tool");
		cJSON *calls, *c, *fn;
		char *a;

		if (!st->pending) {
			st->pending = message(ev, "assistant", &m);
			cJSON_AddStringToObject(m, "content", "");
		}
		m = cJSON_GetObjectItemCaseSensitive(st->pending, "message");
		calls = cJSON_GetObjectItemCaseSensitive(m, "toolCalls");
		if (!calls)
			calls = cJSON_AddArrayToObject(m, "toolCalls");
		c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "id", id ? id : "");
		fn = cJSON_AddObjectToObject(c, "function");
		cJSON_AddStringToObject(fn, "name", tool ? tool : "unknown");
		a = args ? cJSON_PrintUnformatted(args) : NULL;
		cJSON_AddStringToObject(fn, "arguments", a ? a : "{}");
		free(a);
		cJSON_AddItemToArray(calls, c);
		return x->rc;
	}
	if (ev->kind == KT_KIND_TOOL_RESULT) {
		const char *id = kt_json_str(p, "call_id");

		if (flush(x, st) || !(text = kt_xrun_text(x, p, "output")))
			return x->rc;
		o = message(ev, "tool", &m);
		cJSON_AddStringToObject(m, "toolCallId", id ? id : "");
		cJSON_AddStringToObject(m, "content", text);
		if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(p, "ok")))
			cJSON_AddBoolToObject(m, "isError", 1);
		free(text);
		return kt_xrun_line(x, o);
	}
	if (ev->kind != KT_KIND_MESSAGE)
		return 0;
	if (flush(x, st) || !(text = kt_xrun_text(x, p, "text")))
		return x->rc;
	o = message(ev, role && !strcmp(role, "system") ? "system" : "user", &m);
	cJSON_AddStringToObject(m, "content", text);
	if (!(role && !strcmp(role, "system")) &&
	    !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "human")))
		cJSON_AddBoolToObject(m, "human", 0);
	free(text);
	return kt_xrun_line(x, o);
}

static int write_sts(kt_store *s, const kt_export_args *args, char *err,
		     size_t errlen)
{
	struct sts st = { NULL };
	kt_xrun x;
	cJSON *h;
	int rc;

	rc = kt_xrun_open(&x, s, args->run, args->out, args->redact, err, errlen);
	if (rc)
		return rc;
	h = cJSON_CreateObject();
	cJSON_AddStringToObject(h, "type", "session");
	cJSON_AddStringToObject(h, "harness", "ktraj");
	cJSON_AddStringToObject(h, "id", args->run);
	if (x.name[0])
		cJSON_AddStringToObject(h, "name", x.name);
	if (x.format[0])
		cJSON_AddStringToObject(h, "source_format", x.format);
	if (x.cwd[0])
		cJSON_AddStringToObject(h, "cwd", x.cwd);
	if (x.model[0])
		cJSON_AddStringToObject(h, "model", x.model);
	kt_xrun_line(&x, h);
	rc = kt_xrun_walk(&x, on_event, &st, err, errlen);
	if (!rc && flush(&x, &st)) {
		rc = x.rc;
		snprintf(err, errlen, "%s", rc == KT_EIO ? "write failed" : "out of memory");
	}
	cJSON_Delete(st.pending);
	kt_xrun_close(&x);
	return rc;
}

const kt_exporter kt_exporter_sts = { "sts", KT_EXPORT_STREAM, write_sts };
