/*
 * otlp.c - `ktraj export --format otlp`: a run as one OTLP/JSON
 * ExportTraceServiceRequest (OpenTelemetry protocol, JSON encoding:
 * https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding) of
 * GenAI spans (semantic conventions for generative AI, gen_ai.*:
 * https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/ and
 * gen-ai-agent-spans/), written on one line: the file that Jaeger, Phoenix
 * or Langfuse load, and a line of the JSONL that Visual Studio Copilot
 * writes (shared/corpus/otel_genai/).
 *
 * The trace id is the run id.  Spans:
 *   invoke_agent  the root: the whole run (first to last event time),
 *                 gen_ai.agent.name = the run's source format,
 *                 gen_ai.conversation.id = the run id
 *   chat          one per model response (a stretch of assistant messages
 *                 and tool calls): gen_ai.input.messages holds the messages
 *                 that came in since the previous response (user and system
 *                 text, tool results as tool_call_response parts; not the
 *                 whole history, which would repeat it quadratically),
 *                 and ktraj.input.human beside it: an array of booleans,
 *                 one per input message, true where a person typed it
 *                 (OTLP has no place for that; ktraj's OTLP import reads
 *                 it back, other tools show an attribute they do not
 *                 know),
 *                 gen_ai.output.messages the response (text, reasoning and
 *                 tool_call parts), usage as gen_ai.usage.*_tokens
 *   execute_tool  one per tool call, from the call to its result:
 *                 gen_ai.tool.name, gen_ai.tool.call.id,
 *                 gen_ai.tool.call.arguments and gen_ai.tool.call.result
 *                 (JSON strings), status ERROR when the tool failed
 * Span ids (16 hex digits) are the run id's first 3, a digit for the span's
 * sort (0 root, c chat, e execute_tool) and the seq that opened the span.  Times are ns since the epoch as strings (OTLP/JSON
 * encodes 64-bit integers so); an event of unknown time takes the last
 * known one.  Messages after the last response go to a last chat span
 * with no output messages (on the root, which a reader emits before its
 * children, they came back first).  What OTLP has no place for is not
 * written: the events ktraj derives from tool calls (edits, compiles,
 * benchmarks).
 */
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "agentx.h"

struct otlp {
	cJSON *spans;     /* array of spans (the root first) */
	cJSON *root;
	cJSON *chat;      /* the open chat span, or NULL */
	cJSON *out_parts; /* its output message's parts */
	cJSON *inputs;    /* messages since the last response */
	cJSON *human;     /* one boolean per input: typed by a person */
	uint64_t in_seq;  /* the first input's seq and time */
	int64_t in_ts;
	/* call_id -> its execute_tool span (borrowed from spans).  A map, not
	 * a cJSON object, whose every lookup walks all keys: O(N^2) in the
	 * run's tool calls. */
	kt_strmap calls;
	int64_t first, last;
	double in_tok, out_tok;
	int have_tok;
};

/* what: '0' the root, 'c' a chat span, 'e' an execute_tool span (a tool
 * call opens both a chat span and its own) */
static void span_id(const char *run, char what, uint64_t seq, char *buf)
{
	snprintf(buf, 17, "%.3s%c%012llx", run, what,
		 (unsigned long long)(seq & 0xffffffffffffull));
}

static void set_ns(cJSON *span, const char *key, int64_t ns)
{
	char num[32];

	snprintf(num, sizeof(num), "%lld", (long long)(ns > 0 ? ns : 0));
	cJSON_DeleteItemFromObject(span, key);
	cJSON_AddStringToObject(span, key, num);
}

static void attr(cJSON *span, const char *key, const char *sval,
		 double ival, int is_int)
{
	cJSON *attrs = cJSON_GetObjectItemCaseSensitive(span, "attributes");
	cJSON *a = cJSON_CreateObject(), *v;
	char num[32];

	cJSON_AddStringToObject(a, "key", key);
	v = cJSON_AddObjectToObject(a, "value");
	if (is_int) {
		/* OTLP/JSON writes int64 as a decimal string */
		snprintf(num, sizeof(num), "%.0f", ival);
		cJSON_AddStringToObject(v, "intValue", num);
	} else {
		cJSON_AddStringToObject(v, "stringValue", sval ? sval : "");
	}
	cJSON_AddItemToArray(attrs, a);
}

/* Add `item` as a JSON string attribute (the semconv carries structured
 * values so on the wire) and free it. */
static void attr_json(cJSON *span, const char *key, cJSON *item)
{
	char *s = item ? cJSON_PrintUnformatted(item) : NULL;

	attr(span, key, s ? s : "null", 0, 0);
	free(s);
	cJSON_Delete(item);
}

static cJSON *new_span(struct otlp *o, const char *run, char what,
		       uint64_t seq, const char *parent, const char *name,
		       int64_t ts)
{
	cJSON *sp = cJSON_CreateObject();
	char id[17];

	span_id(run, what, seq, id);
	cJSON_AddStringToObject(sp, "traceId", run);
	cJSON_AddStringToObject(sp, "spanId", id);
	cJSON_AddStringToObject(sp, "parentSpanId", parent ? parent : "");
	cJSON_AddStringToObject(sp, "name", name);
	cJSON_AddNumberToObject(sp, "kind", 1); /* SPAN_KIND_INTERNAL */
	set_ns(sp, "startTimeUnixNano", ts);
	set_ns(sp, "endTimeUnixNano", ts);
	cJSON_AddArrayToObject(sp, "attributes");
	cJSON_AddItemToArray(o->spans, sp);
	return sp;
}

static const char *root_id(struct otlp *o)
{
	return kt_json_str(o->root, "spanId");
}

/* Add the booleans bs as an arrayValue attribute (OTLP's AnyValue:
 * {"arrayValue": {"values": [{"boolValue": b}, ...]}}); frees bs. */
static void attr_bools(cJSON *span, const char *key, cJSON *bs)
{
	cJSON *attrs = cJSON_GetObjectItemCaseSensitive(span, "attributes");
	cJSON *a = cJSON_CreateObject(), *vals, *b;

	cJSON_AddStringToObject(a, "key", key);
	vals = cJSON_AddArrayToObject(cJSON_AddObjectToObject(
		cJSON_AddObjectToObject(a, "value"), "arrayValue"), "values");
	cJSON_ArrayForEach(b, bs) {
		cJSON *v = cJSON_CreateObject();

		cJSON_AddBoolToObject(v, "boolValue", cJSON_IsTrue(b));
		cJSON_AddItemToArray(vals, v);
	}
	cJSON_AddItemToArray(attrs, a);
	cJSON_Delete(bs);
}

/* a holds an item: cJSON_GetArraySize walks the whole list, which made a
 * long stretch of inputs, or of tool calls in one response, quadratic */
static int has_items(const cJSON *a)
{
	return a && a->child;
}

/* Input message m for the next chat span; human: a person typed it. */
static void add_input(struct otlp *o, cJSON *m, int human,
		      const kt_event *ev, int64_t ts)
{
	if (!has_items(o->inputs)) {
		o->in_seq = ev->seq;
		o->in_ts = ts;
	}
	cJSON_AddItemToArray(o->inputs, m);
	cJSON_AddItemToArray(o->human, cJSON_CreateBool(human));
}

/* Close the open chat span: its inputs, output and usage. */
static void close_chat(struct otlp *o)
{
	cJSON *msgs, *m;

	if (!o->chat)
		return;
	attr_json(o->chat, "gen_ai.input.messages", o->inputs);
	attr_bools(o->chat, "ktraj.input.human", o->human);
	o->inputs = cJSON_CreateArray();
	o->human = cJSON_CreateArray();
	msgs = cJSON_CreateArray();
	if (has_items(o->out_parts)) {
		m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "role", "assistant");
		cJSON_AddItemToObject(m, "parts", o->out_parts);
		cJSON_AddItemToArray(msgs, m);
	} else { /* the last span, of inputs only */
		cJSON_Delete(o->out_parts);
	}
	o->out_parts = NULL;
	attr_json(o->chat, "gen_ai.output.messages", msgs);
	if (o->have_tok) {
		attr(o->chat, "gen_ai.usage.input_tokens", NULL, o->in_tok, 1);
		attr(o->chat, "gen_ai.usage.output_tokens", NULL, o->out_tok, 1);
	}
	o->have_tok = 0;
	o->in_tok = o->out_tok = 0;
	o->chat = NULL;
}

static void open_chat(kt_xrun *x, struct otlp *o, const kt_event *ev,
		      const cJSON *p, int64_t ts)
{
	const char *model = kt_json_str(p, "model");
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(p, "usage");
	char name[300];

	if (!o->chat) {
		if (!model)
			model = x->model[0] ? x->model : NULL;
		snprintf(name, sizeof(name), "chat%s%s", model ? " " : "",
			 model ? model : "");
		o->chat = new_span(o, x->run, 'c', ev->seq, root_id(o), name, ts);
		attr(o->chat, "gen_ai.operation.name", "chat", 0, 0);
		if (model)
			attr(o->chat, "gen_ai.request.model", model, 0, 0);
		o->out_parts = cJSON_CreateArray();
	}
	set_ns(o->chat, "endTimeUnixNano", ts);
	if (cJSON_IsObject(u)) {
		const cJSON *in = cJSON_GetObjectItemCaseSensitive(u, "input");
		const cJSON *out = cJSON_GetObjectItemCaseSensitive(u, "output");

		o->have_tok = 1;
		o->in_tok += cJSON_IsNumber(in) ? in->valuedouble : 0;
		o->out_tok += cJSON_IsNumber(out) ? out->valuedouble : 0;
	}
}

/* The part added (borrowed from parts), or NULL out of memory. */
static cJSON *add_part(cJSON *parts, const char *type, const char *k1,
		       const char *v1, const char *k2, cJSON *v2)
{
	cJSON *pt = cJSON_CreateObject();

	cJSON_AddStringToObject(pt, "type", type);
	if (k1)
		cJSON_AddStringToObject(pt, k1, v1 ? v1 : "");
	if (k2)
		cJSON_AddItemToObject(pt, k2, v2);
	cJSON_AddItemToArray(parts, pt);
	return pt;
}

static int on_event(kt_xrun *x, const kt_event *ev, cJSON *p, void *arg)
{
	struct otlp *o = arg;
	const char *role = kt_json_str(p, "role");
	int64_t ts = ev->ts_ns != KT_TS_UNKNOWN ? ev->ts_ns : o->last;
	char *text;

	if (ev->ts_ns != KT_TS_UNKNOWN) {
		if (!o->first)
			o->first = ev->ts_ns;
		o->last = ev->ts_ns;
	}
	if (ev->kind == KT_KIND_MESSAGE && role && !strcmp(role, "assistant")) {
		if (!(text = kt_xrun_text(x, p, "text")))
			return x->rc;
		open_chat(x, o, ev, p, ts);
		add_part(o->out_parts, kt_xflag(p, "thinking") ? "reasoning" : "text",
			 "content", text, NULL, NULL);
		free(text);
	} else if (ev->kind == KT_KIND_MESSAGE) {
		cJSON *m = cJSON_CreateObject();

		if (!(text = kt_xrun_text(x, p, "text"))) {
			cJSON_Delete(m);
			return x->rc;
		}
		close_chat(o);
		cJSON_AddStringToObject(m, "role", role && !strcmp(role, "system") ?
					"system" : "user");
		add_part(cJSON_AddArrayToObject(m, "parts"), "text", "content",
			 text, NULL, NULL);
		add_input(o, m, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p,
			  "human")), ev, ts);
		free(text);
	} else if (ev->kind == KT_KIND_TOOL_CALL) {
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(p, "args");
		const char *id = kt_json_str(p, "call_id"), *tool = kt_json_str(p, "tool");
		char name[300];
		cJSON *sp, *part;

		open_chat(x, o, ev, p, ts);
		part = add_part(o->out_parts, "tool_call", "id", id, "arguments",
				args ? cJSON_Duplicate(args, 1) : cJSON_CreateObject());
		cJSON_AddStringToObject(part, "name", tool ? tool : "unknown");
		snprintf(name, sizeof(name), "execute_tool %s", tool ? tool : "unknown");
		sp = new_span(o, x->run, 'e', ev->seq, root_id(o), name, ts);
		attr(sp, "gen_ai.operation.name", "execute_tool", 0, 0);
		attr(sp, "gen_ai.tool.name", tool ? tool : "unknown", 0, 0);
		if (id) {
			attr(sp, "gen_ai.tool.call.id", id, 0, 0);
			if (kt_strmap_put(&o->calls, id, sp))
				x->rc = KT_ENOMEM;
		}
		attr_json(sp, "gen_ai.tool.call.arguments",
			  args ? cJSON_Duplicate(args, 1) : cJSON_CreateObject());
	} else if (ev->kind == KT_KIND_TOOL_RESULT) {
		const char *id = kt_json_str(p, "call_id");
		cJSON *sp = id ? kt_strmap_get(&o->calls, id) : NULL;
		cJSON *m = cJSON_CreateObject(), *parts;

		if (!(text = kt_xrun_text(x, p, "output"))) {
			cJSON_Delete(m);
			return x->rc;
		}
		close_chat(o);
		if (sp && !cJSON_GetObjectItemCaseSensitive(sp, "status")) {
			cJSON *status = cJSON_AddObjectToObject(sp, "status");
			int ok = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(p, "ok"));

			set_ns(sp, "endTimeUnixNano", ts);
			attr(sp, "gen_ai.tool.call.result", text, 0, 0);
			/* STATUS_CODE_OK 1, STATUS_CODE_ERROR 2 */
			cJSON_AddNumberToObject(status, "code", ok ? 1 : 2);
		}
		cJSON_AddStringToObject(m, "role", "tool");
		parts = cJSON_AddArrayToObject(m, "parts");
		add_part(parts, "tool_call_response", "id", id, "response",
			 cJSON_CreateString(text));
		add_input(o, m, 0, ev, ts);
		free(text);
	}
	return x->rc;
}

static void resource(cJSON *rs, const char *key, const char *val)
{
	cJSON *a = cJSON_CreateObject();

	cJSON_AddStringToObject(a, "key", key);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(a, "value"),
				"stringValue", val);
	cJSON_AddItemToArray(rs, a);
}

static int write_otlp(kt_store *s, const kt_export_args *args, char *err,
		      size_t errlen)
{
	struct otlp o = { 0 };
	kt_xrun x;
	cJSON *doc, *rs, *ss, *scope, *attrs;
	char name[600];
	int rc;

	rc = kt_xrun_open(&x, s, args->run, args->out, args->redact, err, errlen);
	if (rc)
		return rc;
	doc = cJSON_CreateObject();
	rs = cJSON_CreateObject();
	cJSON_AddItemToArray(cJSON_AddArrayToObject(doc, "resourceSpans"), rs);
	attrs = cJSON_AddArrayToObject(cJSON_AddObjectToObject(rs, "resource"),
				       "attributes");
	resource(attrs, "service.name", "ktraj");
	ss = cJSON_CreateObject();
	cJSON_AddItemToArray(cJSON_AddArrayToObject(rs, "scopeSpans"), ss);
	scope = cJSON_AddObjectToObject(ss, "scope");
	cJSON_AddStringToObject(scope, "name", "ktraj");
	o.spans = cJSON_AddArrayToObject(ss, "spans");
	o.inputs = cJSON_CreateArray();
	o.human = cJSON_CreateArray();
	snprintf(name, sizeof(name), "invoke_agent %s",
		 x.format[0] ? x.format : "ktraj");
	o.root = new_span(&o, args->run, '0', 0, NULL, name, 0);
	if (!o.root || !o.inputs || !o.human) {
		rc = x.rc = KT_ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	attr(o.root, "gen_ai.operation.name", "invoke_agent", 0, 0);
	attr(o.root, "gen_ai.agent.name", x.format[0] ? x.format : "ktraj", 0, 0);
	attr(o.root, "gen_ai.conversation.id", args->run, 0, 0);
	if (x.name[0])
		attr(o.root, "ktraj.run.name", x.name, 0, 0);
	if (x.model[0])
		attr(o.root, "gen_ai.request.model", x.model, 0, 0);
	if (x.cwd[0])
		attr(o.root, "ktraj.cwd", x.cwd, 0, 0);
	rc = kt_xrun_walk(&x, on_event, &o, err, errlen);
	if (rc)
		goto out;
	close_chat(&o);
	if (has_items(o.inputs)) {
		/* messages after the last response: a chat span of their own,
		 * where they were, with no output (on the root a reader would
		 * put them before everything) */
		o.chat = new_span(&o, args->run, 'c', o.in_seq, root_id(&o),
				  "chat", o.in_ts);
		attr(o.chat, "gen_ai.operation.name", "chat", 0, 0);
		o.out_parts = cJSON_CreateArray();
		if (o.last > o.in_ts)
			set_ns(o.chat, "endTimeUnixNano", o.last);
		close_chat(&o);
	}
	set_ns(o.root, "startTimeUnixNano", o.first);
	set_ns(o.root, "endTimeUnixNano", o.last);
	rc = kt_xrun_line(&x, doc);
	doc = NULL;
	if (rc)
		snprintf(err, errlen, "%s", rc == KT_EIO ? "write failed" : "out of memory");
out:
	cJSON_Delete(o.out_parts);
	cJSON_Delete(o.inputs);
	cJSON_Delete(o.human);
	kt_strmap_free(&o.calls, NULL);
	cJSON_Delete(doc);
	kt_xrun_close(&x);
	return rc;
}

const kt_exporter kt_exporter_otlp = { "otlp", KT_EXPORT_STREAM, write_otlp };
