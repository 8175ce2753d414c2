/*
 * imp_otel.c - OpenTelemetry GenAI spans in OTLP JSON (a file of one
 * ExportTraceServiceRequest, or JSONL of them, as collectors' file
 * exporters write).
 * Sources: opentelemetry-proto opentelemetry/proto/trace/v1/trace.proto and
 * the OTLP JSON mapping (docs/specification.md "JSON Protobuf Encoding":
 * ids as hex strings, 64-bit integers as decimal strings); the GenAI
 * semantic conventions (semantic-conventions docs/gen-ai/gen-ai-spans.md,
 * gen-ai-agent-spans.md: gen_ai.operation.name invoke_agent | chat |
 * execute_tool, gen_ai.tool.call.id/arguments/result, gen_ai.input.messages
 * and gen_ai.output.messages as JSON [{role, parts:[{type:"text" (or
 * "reasoning": a thinking message before the text),
 * content}, ...]}], gen_ai.usage.input_tokens/output_tokens).
 *
 * resourceSpans[].scopeSpans[].spans[] {traceId, spanId, parentSpanId,
 * name, startTimeUnixNano, endTimeUnixNano, attributes[{key, value}],
 * status{code}}:
 *  - One run per trace (identity "otel_genai:<traceId>"); its spans are
 *    read as a tree by parentSpanId, never by line order: children in
 *    start-time order under their parent, roots in start-time order.  A
 *    span whose parent is not in the file is a root.
 *  - invoke_agent: the agent's turn, a meta system message (agent name,
 *    model, conversation id in extra) under which its tool calls hang; the
 *    user messages of its gen_ai.input.messages (once per text in a trace:
 *    chat spans repeat the history) are human, its output messages the
 *    agent's; a span with ktraj.input.human (ktraj's own export) says which
 *    input message a person typed, and its system inputs are kept too.  chat: its new input user messages and its output messages
 *    (model, usage).  execute_tool: a tool call at the span's start and its
 *    result at the span's end (ok unless status code 2, ERROR), parented
 *    to the nearest message above it, through kt_impx_tool_effects.
 *  - Every event keeps its span's timing: ts is the start (the result's
 *    the end), extra.span_id and extra.duration_ms.
 *  - Spans of other operations are not events; their children are.
 *  - ktraj's own export (scope name "ktraj", export/otlp.c) round-trips:
 *    its root is the run (no meta message), each text part of a response
 *    was one agent message, an execute_tool span without a status is a
 *    call that never got a result (none is made up, nor the edits a
 *    result would derive), and the root's ktraj.cwd is the directory
 *    relative paths of tool calls resolve against.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "impx.h"
#include "impconv.h"

typedef struct ospan {
	const cJSON *s;          /* the span object (owned by its document) */
	const char *trace, *id, *parent;
	int64_t start, end;
	kt_impx_span sp;         /* where its record lies */
	long first_child, next;  /* the tree, as indexes; -1 none */
	int done;
	/* written by ktraj's own export (scope "ktraj", export/otlp.c),
	 * which says more than the conventions: every call that got a result
	 * has a status, each text part of a response is one message, and the
	 * root is the run, not a turn the agent took */
	int ours;
} ospan;

typedef struct otx {
	kt_imp *imp;
	const kt_file *f;
	cJSON **docs;
	size_t ndocs, capd;
	ospan *sp;
	size_t n, cap;
	kt_conv cv;
	kt_strmap seen;          /* user texts emitted in this trace */
} otx;

static int otel_detect(const kt_file *f)
{
	size_t n = f->len < 4096 ? f->len : 4096;

	if (kt_impx_sniff(f->data, n, "resourceSpans", NULL) &&
	    (kt_impx_has(f, n, "gen_ai.") || kt_impx_has(f, n, "\"spans\"")))
		return kt_impx_has(f, n, "gen_ai.") ? 85 : 60;
	return 0;
}

/* OTLP JSON AnyValue to cJSON (caller frees); NULL for none. */
static cJSON *anyvalue(const cJSON *v)
{
	const cJSON *x;
	double d;

	if ((x = cJSON_GetObjectItem(v, "stringValue")) && cJSON_IsString(x))
		return cJSON_CreateString(x->valuestring);
	if ((x = cJSON_GetObjectItem(v, "boolValue")))
		return cJSON_CreateBool(cJSON_IsTrue(x));
	if ((x = cJSON_GetObjectItem(v, "intValue")) && kt_impx_numv(x, &d))
		return cJSON_CreateNumber(d);
	if ((x = cJSON_GetObjectItem(v, "doubleValue")) && kt_impx_numv(x, &d))
		return cJSON_CreateNumber(d);
	if ((x = cJSON_GetObjectItem(v, "arrayValue"))) {
		cJSON *a = cJSON_CreateArray();
		const cJSON *e;

		cJSON_ArrayForEach(e, cJSON_GetObjectItem(x, "values")) {
			cJSON *c = anyvalue(e);

			if (c)
				cJSON_AddItemToArray(a, c);
		}
		return a;
	}
	if ((x = cJSON_GetObjectItem(v, "kvlistValue"))) {
		cJSON *o = cJSON_CreateObject();
		const cJSON *e;

		cJSON_ArrayForEach(e, cJSON_GetObjectItem(x, "values")) {
			cJSON *c = anyvalue(cJSON_GetObjectItem(e, "value"));
			const char *k = kt_json_str(e, "key");

			if (c && k)
				cJSON_AddItemToObject(o, k, c);
			else
				cJSON_Delete(c);
		}
		return o;
	}
	return NULL;
}

/* The span's attributes as one object {key: value} (caller frees). */
static cJSON *attrs_of(const cJSON *s)
{
	cJSON *o = cJSON_CreateObject();
	const cJSON *a;

	cJSON_ArrayForEach(a, cJSON_GetObjectItem(s, "attributes")) {
		const char *k = kt_json_str(a, "key");
		cJSON *v = anyvalue(cJSON_GetObjectItem(a, "value"));

		if (o && k && v && !cJSON_GetObjectItemCaseSensitive(o, k))
			cJSON_AddItemToObject(o, k, v);
		else
			cJSON_Delete(v);
	}
	return o;
}

/* A span time in ns.  0 is OTLP's "not set" (the proto3 default, and what
 * ktraj's otlp export writes for an unknown time): unknown, not 1970. */
static int64_t nanos(const cJSON *v)
{
	double d;

	if (cJSON_IsString(v)) {
		char *e;
		long long x = strtoll(v->valuestring, &e, 10);

		return *e || e == v->valuestring || x <= 0 ? KT_TS_UNKNOWN : (int64_t)x;
	}
	if (kt_impx_numv(v, &d) && d > 0 && d < 9.2e18)
		return (int64_t)d;
	return KT_TS_UNKNOWN;
}

static int add_span(otx *x, const cJSON *s, const kt_impx_span *sp,
		    int ours)
{
	ospan *o;

	if (!cJSON_IsObject(s))
		return 0;
	if (!kt_json_str(s, "traceId") || !kt_json_str(s, "spanId")) {
		kt_imp_warn(x->imp, x->f, sp->line, "span without traceId or "
			    "spanId: skipped");
		return 0;
	}
	if (x->n == x->cap) {
		size_t nc = x->cap ? 2 * x->cap : 32;
		ospan *ns = realloc(x->sp, nc * sizeof(*ns));

		if (!ns)
			return KT_ENOMEM;
		x->sp = ns;
		x->cap = nc;
	}
	o = &x->sp[x->n++];
	memset(o, 0, sizeof(*o));
	o->s = s;
	o->trace = kt_json_str(s, "traceId");
	o->id = kt_json_str(s, "spanId");
	o->parent = kt_json_str(s, "parentSpanId");
	o->start = nanos(cJSON_GetObjectItem(s, "startTimeUnixNano"));
	o->end = nanos(cJSON_GetObjectItem(s, "endTimeUnixNano"));
	o->sp = *sp;
	o->first_child = o->next = -1;
	o->ours = ours;
	return 0;
}

static int add_doc(otx *x, cJSON *doc, const kt_impx_span *sp)
{
	const cJSON *rs, *ss, *s;
	int rc = 0;

	if (x->ndocs == x->capd) {
		size_t nc = x->capd ? 2 * x->capd : 8;
		cJSON **nd = realloc(x->docs, nc * sizeof(*nd));

		if (!nd) {
			cJSON_Delete(doc);
			return KT_ENOMEM;
		}
		x->docs = nd;
		x->capd = nc;
	}
	x->docs[x->ndocs++] = doc;
	if (!cJSON_IsArray(cJSON_GetObjectItem(doc, "resourceSpans"))) {
		kt_imp_warn(x->imp, x->f, sp->line, "no resourceSpans: %s "
			    "skipped", sp->line ? "line" : "file");
		return 0;
	}
	cJSON_ArrayForEach(rs, cJSON_GetObjectItem(doc, "resourceSpans"))
		cJSON_ArrayForEach(ss, cJSON_GetObjectItem(rs, "scopeSpans")) {
			const char *scope = kt_json_str(cJSON_GetObjectItem(ss,
							"scope"), "name");
			int ours = scope && !strcmp(scope, "ktraj");

			cJSON_ArrayForEach(s, cJSON_GetObjectItem(ss, "spans"))
				if ((rc = add_span(x, s, sp, ours)))
					return rc;
		}
	return 0;
}

static int on_jsonl(cJSON *rec, uint64_t line, uint64_t off, uint64_t len,
		    void *arg)
{
	otx *x = arg;
	kt_impx_span sp = { off, len, line };

	/* kt_impx_jsonl frees rec after we return: keep a copy */
	return add_doc(x, cJSON_Duplicate(rec, 1), &sp);
}

static const char *attr_s(const cJSON *a, const char *k)
{
	return kt_json_str(a, k);
}

/* Messages of a gen_ai.{input,output}.messages attribute: JSON text or an
 * already decoded array (NULL: none, or text that is not JSON).  *rc gets
 * 0 or KT_ENOMEM: out of memory is not a span without messages. */
static cJSON *messages_of(const cJSON *a, const char *k, int *rc)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(a, k);
	cJSON *ms;

	*rc = 0;
	if (cJSON_IsString(v)) {
		ms = kt_cjson_parse(v->valuestring, strlen(v->valuestring),
				    NULL, rc);
		if (*rc == KT_EPARSE)
			*rc = 0;
		return ms;
	}
	if (!v)
		return NULL;
	if (!(ms = cJSON_Duplicate(v, 1)))
		*rc = KT_ENOMEM;
	return ms;
}

static char *parts_text(const cJSON *m)
{
	struct kt_buf b;
	const cJSON *p;

	memset(&b, 0, sizeof(b));
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(m, "parts")) {
		const char *t = kt_json_str(p, "type");
		const char *c = kt_impx_str2(p, "content", "text");

		if (c && (!t || !strcmp(t, "text")))
			kt_buf_printf(&b, "%s%s", b.len ? "\n" : "", c);
	}
	if (!b.len && kt_json_str(m, "content"))
		kt_buf_printf(&b, "%s", kt_json_str(m, "content"));
	return kt_buf_take(&b);
}

static cJSON *span_extra(const ospan *o)
{
	cJSON *e = cJSON_CreateObject();

	if (!e)
		return NULL;
	cJSON_AddStringToObject(e, "span_id", o->id);
	if (o->start != KT_TS_UNKNOWN && o->end != KT_TS_UNKNOWN &&
	    o->end >= o->start)
		cJSON_AddNumberToObject(e, "duration_ms",
					(double)(o->end - o->start) / 1e6);
	return e;
}

/*
 * The span's new input messages.  Without ktraj.input.human (any OTel
 * source): user messages, each text once per trace (chat spans repeat the
 * history), all human.  With it (ktraj's otlp export: one boolean per
 * input message, true where a person typed it, and each input written
 * once): user and system messages, each where it is, human as it says.
 */
static int user_inputs(otx *x, const cJSON *a, const ospan *o)
{
	int rc, ours;
	cJSON *ms = messages_of(a, "gen_ai.input.messages", &rc);
	const cJSON *m, *hum = cJSON_GetObjectItemCaseSensitive(a,
							"ktraj.input.human");
	const cJSON *h = cJSON_IsArray(hum) ? hum->child : NULL;

	if (rc)
		return rc;
	ours = cJSON_IsArray(hum);

	cJSON_ArrayForEach(m, ms) {
		const char *role = kt_json_str(m, "role");
		int human = ours ? cJSON_IsTrue(h) : 1;
		char *t;
		void **slot = NULL;

		if (h)
			h = h->next;
		if (!role || (strcmp(role, "user") &&
			      !(ours && !strcmp(role, "system"))))
			continue;
		if (!(t = parts_text(m)))
			rc = KT_ENOMEM;
		else if (ours && *t)
			rc = kt_conv_msg(&x->cv, role, human, t, NULL, NULL,
					 o->start, &o->sp, NULL);
		else if (*t && !(slot = kt_strmap_slot(&x->seen, t, 1)))
			rc = KT_ENOMEM;
		else if (*t && !*slot) {
			*slot = (void *)1;
			rc = kt_conv_msg(&x->cv, "user", 1, t, NULL, NULL,
					 o->start, &o->sp, NULL);
		}
		free(t);
		if (rc)
			break;
	}
	cJSON_Delete(ms);
	return rc;
}

/* The response's model, usage and span (a message's "more"), or NULL. */
static cJSON *response_more(const cJSON *a, const ospan *o)
{
	cJSON *more = cJSON_CreateObject(), *u;
	double v;

	if (!more)
		return NULL;
	if (attr_s(a, "gen_ai.response.model"))
		cJSON_AddStringToObject(more, "model",
					attr_s(a, "gen_ai.response.model"));
	if ((u = cJSON_CreateObject())) {
		if (kt_impx_num(a, "gen_ai.usage.input_tokens", &v))
			kt_imp_add_count(u, "input", v);
		if (kt_impx_num(a, "gen_ai.usage.output_tokens", &v))
			kt_imp_add_count(u, "output", v);
		if (u->child)
			cJSON_AddItemToObject(more, "usage", u);
		else
			cJSON_Delete(u);
	}
	cJSON_AddItemToObject(more, "extra", span_extra(o));
	return more;
}

/* An output message of ktraj's export: each part in order, a reasoning
 * part a thinking message and a text part a message of its own (the
 * agent's messages of one response, which other writers' single message
 * would join); the response's model and usage on the first. */
static int our_output(otx *x, const cJSON *a, const ospan *o,
		      const cJSON *m, uint64_t *seq)
{
	const cJSON *p;
	int rc = 0, first = 1;

	cJSON_ArrayForEach(p, cJSON_GetObjectItem(m, "parts")) {
		const char *c = kt_impx_str2(p, "content", "text");
		const char *ty = kt_json_str(p, "type");
		int think = ty && !strcmp(ty, "reasoning");
		cJSON *more = NULL;

		if (!c || (!think && ty && strcmp(ty, "text")))
			continue;
		if (!think && first) {
			if (!(more = response_more(a, o)))
				return KT_ENOMEM;
			first = 0;
		}
		rc = kt_conv_msg(&x->cv, "assistant", 0, c,
				 think ? "thinking" : NULL, more, o->start,
				 &o->sp, think ? NULL : seq);
		if (rc)
			break;
	}
	return rc;
}

static int outputs(otx *x, const cJSON *a, const ospan *o, uint64_t *seq)
{
	int rc;
	cJSON *ms = messages_of(a, "gen_ai.output.messages", &rc);
	const cJSON *m;

	if (rc)
		return rc;

	cJSON_ArrayForEach(m, ms) {
		char *t;
		cJSON *more;
		const cJSON *p;

		if (o->ours) {
			if ((rc = our_output(x, a, o, m, seq)))
				break;
			continue;
		}
		t = parts_text(m);
		more = response_more(a, o);

		/* the response's reasoning parts first, each a thinking
		 * message (as the other importers keep thoughts) */
		cJSON_ArrayForEach(p, cJSON_GetObjectItem(m, "parts")) {
			const char *c = kt_impx_str2(p, "content", "text");
			const char *ty = kt_json_str(p, "type");

			if (!rc && c && *c && ty && !strcmp(ty, "reasoning"))
				rc = kt_conv_msg(&x->cv, "assistant", 0, c, "thinking",
						 NULL, o->start, &o->sp, NULL);
		}
		if (rc) {
			free(t);
			cJSON_Delete(more);
			break;
		}
		if (!t || !more) {
			free(t);
			cJSON_Delete(more);
			rc = KT_ENOMEM;
			break;
		}
		rc = *t ? kt_conv_msg(&x->cv, "assistant", 0, t, NULL, more,
				      o->start, &o->sp, seq)
			: (cJSON_Delete(more), 0);
		free(t);
		if (rc)
			break;
	}
	cJSON_Delete(ms);
	return rc;
}

/* Emit span i, then its children; `up` is the message seq above it. */
static int visit(otx *x, long i, uint64_t up, int depth)
{
	ospan *o = &x->sp[i];
	cJSON *a = attrs_of(o->s);
	const char *op = attr_s(a, "gen_ai.operation.name");
	const char *name = kt_json_str(o->s, "name");
	uint64_t here = up;
	long c;
	int rc = 0;

	o->done = 1;
	if (!a)
		return KT_ENOMEM;
	if (!op && name) /* the span name begins with the operation */
		op = !strncmp(name, "invoke_agent", 12) ? "invoke_agent" :
		     !strncmp(name, "execute_tool", 12) ? "execute_tool" :
		     !strncmp(name, "chat", 4) ? "chat" : NULL;
	if (op && !strcmp(op, "invoke_agent")) {
		cJSON *more = cJSON_CreateObject(), *e = span_extra(o);
		static const char *const keep[] = {
			"gen_ai.agent.name", "gen_ai.agent.id",
			"gen_ai.conversation.id", "gen_ai.request.model",
			"gen_ai.response.model", "gen_ai.provider.name", NULL
		};

		for (int k = 0; e && keep[k]; k++)
			if (attr_s(a, keep[k]))
				cJSON_AddStringToObject(e, keep[k] + 7,
							attr_s(a, keep[k]));
		if (more && e)
			cJSON_AddItemToObject(more, "extra", e);
		else
			cJSON_Delete(e);
		if (o->ours) /* the run itself: nothing happened there */
			cJSON_Delete(more);
		else
			rc = kt_conv_msg(&x->cv, "system", 0, name ? name : op,
					 "meta,invoke_agent", more, o->start,
					 &o->sp, &here);
		if (!rc)
			rc = user_inputs(x, a, o);
		if (!rc)
			rc = outputs(x, a, o, &here);
	} else if (op && !strcmp(op, "chat")) {
		rc = user_inputs(x, a, o);
		if (!rc)
			rc = outputs(x, a, o, &here);
	} else if (op && !strcmp(op, "execute_tool")) {
		const char *id = attr_s(a, "gen_ai.tool.call.id");
		const cJSON *st = cJSON_GetObjectItem(o->s, "status");
		double code = 0;
		char idb[40];

		if (!id) {
			snprintf(idb, sizeof(idb), "span-%.24s", o->id);
			id = idb;
		}
		kt_impx_num(st, "code", &code);
		rc = kt_conv_call(&x->cv, id, attr_s(a, "gen_ai.tool.name"),
				  cJSON_GetObjectItemCaseSensitive(a,
					"gen_ai.tool.call.arguments"),
				  span_extra(o), up, o->start, &o->sp, NULL);
		/* ktraj's export gives every call that got a result a
		 * status: a call without one never got a result */
		if (!rc && !(o->ours && !st)) {
			const char *out = attr_s(a, "gen_ai.tool.call.result");

			if (!out && code == 2)
				out = kt_json_str(st, "message");
			rc = kt_conv_result(&x->cv, id, out, code == 2 ? 0 : 1,
					    span_extra(o), o->end, &o->sp);
		}
	}
	cJSON_Delete(a);
	if (depth > 256)
		return rc; /* a cycle cannot happen (done), a chain this deep
			      is noise */
	for (c = o->first_child; !rc && c >= 0; c = x->sp[c].next)
		if (x->sp[c].done != 1)
			rc = visit(x, c, here, depth + 1);
	return rc;
}

static int by_start(const void *pa, const void *pb)
{
	const ospan *a = pa, *b = pb;
	int t = strcmp(a->trace, b->trace);

	if (t)
		return t;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->sp.off != b->sp.off)
		return a->sp.off < b->sp.off ? -1 : 1;
	return strcmp(a->id, b->id);
}

static int trace_run(otx *x, size_t b, size_t e)
{
	kt_strmap idx = { 0 };
	cJSON *meta = cJSON_CreateObject();
	char ident[200], *cwd = NULL;
	long *last;
	size_t i;
	int rc = 0;

	if (!meta || !(last = calloc(e - b, sizeof(*last)))) {
		cJSON_Delete(meta);
		return KT_ENOMEM;
	}
	snprintf(ident, sizeof(ident), "otel_genai:%.64s", x->sp[b].trace);
	cJSON_AddStringToObject(meta, "trace_id", x->sp[b].trace);
	/* ktraj's export names the run's directory on its root: relative
	 * paths of the tool calls resolve against it, as they did when the
	 * run was first imported */
	for (i = b; i < e && !cwd; i++)
		if (x->sp[i].ours) {
			cJSON *a = attrs_of(x->sp[i].s);
			const char *c = attr_s(a, "ktraj.cwd");

			if (c && *c && !(cwd = strdup(c)))
				rc = KT_ENOMEM;
			cJSON_Delete(a);
		}
	if (cwd)
		cJSON_AddStringToObject(meta, "cwd", cwd);
	if (!rc)
		rc = kt_imp_run_begin(x->imp, ident, x->sp[b].trace,
				      "otel_genai", meta);
	else
		cJSON_Delete(meta);
	for (i = b; !rc && i < e; i++) {
		void **slot = kt_strmap_slot(&idx, x->sp[i].id, 1);

		if (!slot)
			rc = KT_ENOMEM;
		else if (!*slot)
			*slot = (void *)(uintptr_t)(i + 1);
		last[i - b] = -1;
	}
	/* children in start order: appended in the sorted order */
	for (i = b; !rc && i < e; i++) {
		const char *p = x->sp[i].parent;
		uintptr_t pi = p && *p ? (uintptr_t)kt_strmap_get(&idx, p) : 0;

		if (!pi || pi - 1 == i)
			continue;
		if (last[pi - 1 - b] < 0)
			x->sp[pi - 1].first_child = (long)i;
		else
			x->sp[last[pi - 1 - b]].next = (long)i;
		last[pi - 1 - b] = (long)i;
		x->sp[i].done = -1; /* not a root */
	}
	if (!rc)
		rc = kt_conv_init(&x->cv, x->imp, x->f, cwd);
	free(cwd);
	for (i = b; !rc && i < e; i++)
		if (!x->sp[i].done)
			rc = visit(x, (long)i, 0, 0);
	/* spans on a parent cycle were never reached from a root */
	for (i = b; !rc && i < e; i++)
		if (x->sp[i].done < 0) {
			x->sp[i].done = 0;
			rc = visit(x, (long)i, 0, 0);
		}
	kt_conv_free(&x->cv);
	kt_strmap_free(&x->seen, NULL);
	kt_strmap_free(&idx, NULL);
	free(last);
	return kt_imp_run_finish(x->imp, rc);
}

static int otel_import(kt_imp *imp, const kt_file *f)
{
	otx x;
	size_t i, b;
	int rc = 0;
	const unsigned char *d = f->data;
	size_t k = 0;

	memset(&x, 0, sizeof(x));
	x.imp = imp;
	x.f = f;
	while (k < f->len && (d[k] == ' ' || d[k] == '\n' || d[k] == '\r' ||
			      d[k] == '\t'))
		k++;
	/* one pretty-printed document, or one per line */
	{
		const unsigned char *nl = memchr(d + k, '\n', f->len - k);
		int whole = !nl;

		if (nl) {
			cJSON *probe = kt_cjson_parse((const char *)d + k,
						      (size_t)(nl - d - k),
						      NULL, &rc);

			whole = !probe;
			cJSON_Delete(probe);
		}
		if (rc == KT_ENOMEM) {
			/* the probe ran out of memory: so does the import */
		} else if (whole) {
			cJSON *doc = kt_impx_parse(imp, f);
			kt_impx_span sp = { 0, f->len, 1 };

			rc = doc ? add_doc(&x, doc, &sp) : KT_EPARSE;
		} else {
			rc = kt_impx_jsonl(imp, f, on_jsonl, &x);
		}
	}
	/* by trace, then start time; ties by place in the file and span id,
	 * so the order never depends on the sort */
	if (!rc && x.n)
		qsort(x.sp, x.n, sizeof(*x.sp), by_start);
	for (b = 0, i = 1; !rc && x.n && i <= x.n; i++)
		if (i == x.n || strcmp(x.sp[i].trace, x.sp[b].trace)) {
			rc = trace_run(&x, b, i);
			b = i;
		}
	if (!rc && !x.n)
		kt_imp_warn(imp, f, 0, "no spans: nothing imported");
	for (i = 0; i < x.ndocs; i++)
		cJSON_Delete(x.docs[i]);
	free(x.docs);
	free(x.sp);
	return rc;
}

const kt_importer kt_importer_otel_genai = {
	.name = "otel_genai",
	.summary = "OpenTelemetry GenAI spans, OTLP JSON (invoke_agent, chat, "
		   "execute_tool)",
	.detect = otel_detect,
	.import = otel_import,
};
