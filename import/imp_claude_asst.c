/*
 * imp_claude_asst.c - Claude Code import: assistant responses (imp_claude.c).
 *
 * An API response written over several lines sharing message.id is
 * buffered by imp_claude.c and emitted here in one go, so its usage is
 * counted once.
 */
#include <stdlib.h>
#include <string.h>

#include "imp_claude_int.h"

/* ---- assistant ------------------------------------------------------------ */

static cJSON *usage_json(const cJSON *u)
{
	cJSON *o = cJSON_CreateObject();
	const cJSON *v;

	if (!o)
		return NULL;
	/* counts as written: one out of range is left out (store/event_model.h) */
	v = jget(u, "input_tokens");
	kt_imp_add_count(o, "input", cJSON_IsNumber(v) ? v->valuedouble : 0);
	v = jget(u, "output_tokens");
	kt_imp_add_count(o, "output", cJSON_IsNumber(v) ? v->valuedouble : 0);
	v = jget(u, "cache_read_input_tokens");
	kt_imp_add_count(o, "cache_read", cJSON_IsNumber(v) ? v->valuedouble : 0);
	v = jget(u, "cache_creation_input_tokens");
	kt_imp_add_count(o, "cache_creation", cJSON_IsNumber(v) ? v->valuedouble : 0);
	return o;
}

/* One message event of a response: its text (a reference into the parsed
 * line), "thinking" flagged, the response's usage when given (its first
 * event only), the sub-agent and the message id. */
static int emit_text(struct cc *cc, struct pline *pl, const char *txt,
		     int thinking, const char *model, const cJSON *usage,
		     const char *agent, const char *mid, int64_t ts,
		     const char *actor)
{
	cJSON *p = cJSON_CreateObject();

	cJSON_AddStringToObject(p, "role", "assistant");
	cJSON_AddBoolToObject(p, "human", 0);
	cc_add_ref(p, "text", txt);
	if (model)
		cJSON_AddStringToObject(p, "model", model);
	if (usage)
		cJSON_AddItemToObject(p, "usage", usage_json(usage));
	if (agent)
		cJSON_AddStringToObject(p, "subagent", agent);
	if (mid)
		cJSON_AddStringToObject(p, "msg_id", mid);
	if (thinking) {
		cJSON *fl = cJSON_AddArrayToObject(p, "flags");

		cJSON_AddItemToArray(fl, cJSON_CreateString("thinking"));
	}
	return cc_emit(cc, pl, KT_KIND_MESSAGE, 0, ts, actor, p, NULL);
}

static int flush_response(struct cc *cc)
{
	const cJSON *usage = NULL;
	const char *mid = cc->pend_id;
	int give_usage = 0, rc = 0, known;
	size_t i;

	for (i = 0; i < cc->npend; i++) {
		const cJSON *m = jget(cc->pend[i].o, "message");
		const cJSON *u = cJSON_IsObject(m) ? jget(m, "usage") : NULL;

		if (cJSON_IsObject(u))
			usage = u;
	}
	if (usage) {
		if (!mid) {
			give_usage = 1;
		} else if ((known = cc_id_known(cc, &cc->usage_done,
						CC_SET_USAGE, mid)) < 0) {
			return known;
		} else if (!known) {
			void **s = kt_strmap_slot(&cc->usage_done, mid, 1);

			if (s)
				*s = (void *)1;
			give_usage = 1;
			if ((rc = cc_ids_settle(cc, &cc->usage_done,
						CC_SET_USAGE)) != 0)
				return rc;
		}
	}
	for (i = 0; i < cc->npend && !rc; i++) {
		struct pline *pl = &cc->pend[i];
		const cJSON *o = pl->o, *m = jget(o, "message"), *c, *b;
		const char *model = cJSON_IsObject(m) ? jstr(m, "model") : NULL;
		const char *agent = cc_line_agent(cc, o, pl);
		int64_t ts = cc_iso_ns(jstr(o, "timestamp"));
		char actor[300];

		cc_actor_of(agent, actor, sizeof(actor), "agent");
		if (!cJSON_IsObject(m)) {
			kt_imp_warn(cc->imp, pl->f, pl->line,
				    "assistant line without a message object: skipped");
			continue;
		}
		c = jget(m, "content");
		if (cJSON_IsString(c)) {
			rc = emit_text(cc, pl, c->valuestring, 0, model,
				       give_usage ? usage : NULL, agent, mid, ts,
				       actor);
			give_usage = 0;
			continue;
		}
		if (!cJSON_IsArray(c)) {
			kt_imp_warn(cc->imp, pl->f, pl->line,
				    "assistant message.content is neither a string nor a list: skipped");
			continue;
		}
		cJSON_ArrayForEach(b, c) {
			const char *t = jstr(b, "type");
			cJSON *p;

			if (!cJSON_IsObject(b) || !t) {
				kt_imp_warn(cc->imp, pl->f, pl->line,
					    "content block is not a typed object: skipped");
				continue;
			}
			if (!strcmp(t, "text") || !strcmp(t, "thinking")) {
				const char *txt = jstr(b, !strcmp(t, "text") ?
						       "text" : "thinking");

				if (!txt)
					continue;
				rc = emit_text(cc, pl, txt, t[1] == 'h', model,
					       give_usage ? usage : NULL, agent,
					       mid, ts, actor);
				give_usage = 0;
			} else if (!strcmp(t, "tool_use") ||
				   !strcmp(t, "server_tool_use")) {
				const char *id = jstr(b, "id"), *nm = jstr(b, "name");
				const cJSON *in = jget(b, "input");
				struct call *cl;
				void **slot;
				uint64_t seq = 0;

				if (!id || !nm) {
					kt_imp_warn(cc->imp, pl->f, pl->line,
						    "tool_use without id or name: skipped");
					continue;
				}
				/* the same call written twice: every id emitted
				 * has its key in calls (the value is NULL once
				 * its result is handled), so a second set of the
				 * same ids is not kept (issue 21, import memory) */
				if ((rc = cc_id_known(cc, &cc->calls,
						      CC_SET_CALLS, id)) < 0)
					return rc;
				if (rc) {
					rc = 0;
					continue;
				}
				cl = calloc(1, sizeof(*cl));
				if (!cl)
					return KT_ENOMEM;
				/* the call keeps its own copy; the payload points
				 * at the parsed input (redaction may rewrite that
				 * in place, never the call's copy) */
				cl->input = cJSON_IsObject(in) ?
					cJSON_Duplicate(in, 1) : cJSON_CreateObject();
				p = cJSON_CreateObject();
				cJSON_AddStringToObject(p, "tool", nm);
				cJSON_AddStringToObject(p, "call_id", id);
				cJSON_AddItemToObject(p, "args", cJSON_IsObject(in) ?
						      cJSON_CreateObjectReference(in->child) :
						      cJSON_CreateObject());
				if (agent)
					cJSON_AddStringToObject(p, "subagent", agent);
				if (give_usage) {
					cJSON_AddItemToObject(p, "usage",
							      usage_json(usage));
					give_usage = 0;
				}
				if (mid)
					cJSON_AddStringToObject(p, "msg_id", mid);
				rc = cc_emit(cc, pl, KT_KIND_TOOL_CALL, 0, ts, actor, p,
					  &seq);
				slot = kt_strmap_slot(&cc->calls, id, 1);
				if (!slot) {
					cc_call_free(cl);
					return KT_ENOMEM;
				}
				if (*slot)
					cc_call_free(*slot);
				*slot = cl;
				cl->seq = seq;
				cl->name = strdup(nm);
				cl->cwd = jstr(o, "cwd") ? strdup(jstr(o, "cwd")) : NULL;
				cl->actor = strdup(actor);
				cl->sub = agent ? strdup(agent) : NULL;
				cl->ts = ts;
				if ((!strcmp(nm, "Task") || !strcmp(nm, "Agent")) &&
				    jstr(cl->input, "prompt") &&
				    (slot = kt_strmap_slot(&cc->tasks,
						    jstr(cl->input, "prompt"), 1)) &&
				    !*slot)
					*slot = strdup(id);
				if (!rc)
					rc = cc_ids_settle(cc, &cc->calls,
							   CC_SET_CALLS);
			}
			/* redacted_thinking, tool results of server tools:
			 * nothing a person or the workspace needs */
		}
	}
	for (i = 0; i < cc->npend; i++)
		cJSON_Delete(cc->pend[i].o);
	cc->npend = 0;
	free(cc->pend_id);
	cc->pend_id = NULL;
	return rc;
}

int cc_flush_response(struct cc *cc)
{
	/* the response an earlier import of a growing session ended in
	 * may have been cut between its lines: its events were written with
	 * what had arrived (the usage of its last line then), and differ
	 * from them now without the file having changed */
	int paused = cc->npend &&
		     kt_imp_reemit_pause(cc->imp, cc->pend[0].line,
					 cc->pend[cc->npend - 1].line);
	int rc = flush_response(cc);

	if (paused)
		kt_imp_reemit_resume(cc->imp);
	return rc;
}
