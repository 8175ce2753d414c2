/*
 * imp_claude_user.c - Claude Code import: user lines (tool results, text,
 * images), system and summary lines (imp_claude.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imp_claude_int.h"

/* ---- tool results ------------------------------------------------------ */

static char *tool_path(const struct call *cl, const cJSON *tur)
{
	const char *p = cJSON_IsObject(tur) ? jstr(tur, "filePath") : NULL;

	if (!p)
		p = jstr(cl->input, "file_path");
	if (!p)
		p = jstr(cl->input, "path");
	if (!p)
		return NULL;
	return kt_ws_path(cl->cwd, p);
}

/* Seed the workspace from what the result shows (before it is emitted). */
static int observe(struct cc *cc, const struct call *cl, const cJSON *tur,
		   cJSON *payload)
{
	const char *tn = cl->name;
	char *path;
	int rc = 0;

	if (!cJSON_IsObject(tur))
		return 0;
	path = tool_path(cl, tur);
	if (!path)
		return 0;
	if (!strcmp(tn, "Read")) {
		const cJSON *fo = jget(tur, "file");
		const cJSON *sl = jget(fo, "startLine"), *nl = jget(fo, "numLines");
		const cJSON *tl = jget(fo, "totalLines");
		const char *content = jstr(fo, "content");
		int whole;

		whole = content &&
			(!cJSON_IsNumber(sl) || sl->valuedouble <= 1) &&
			(cJSON_IsNumber(nl) && cJSON_IsNumber(tl) ?
			 nl->valuedouble >= tl->valuedouble :
			 !jget(cl->input, "offset") && !jget(cl->input, "limit"));
		if (whole)
			rc = kt_ws_observe(cc->imp, path, content, strlen(content),
					   payload);
	} else if (!strcmp(tn, "Edit") || !strcmp(tn, "MultiEdit") ||
		   !strcmp(tn, "Write")) {
		const char *orig = jstr(tur, "originalFile");

		if (!orig)
			orig = jstr(tur, "originalFileContents");
		if (orig)
			rc = kt_ws_observe(cc->imp, path, orig, strlen(orig),
					   payload);
	}
	free(path);
	return rc;
}

/* The change a successful edit tool made (after its result is emitted):
 * the shared Claude Code file tools (impx.h), which viewer exports of a
 * session (STS, OTLP, ATIF) go through too. */
static int apply_edit(struct cc *cc, const struct call *cl, const cJSON *tur)
{
	char *path = tool_path(cl, tur);
	int rc;

	if (!path)
		return 0;
	rc = kt_impx_cc_edit(cc->imp, cl->name, cl->input, tur, path, cl->seq);
	free(path);
	return rc < 0 ? rc : 0;
}

/* toolUseResult without what the payload already holds (big copies).  Only
 * the kept members are copied (a Read's whole file is never duplicated just
 * to be deleted); like cJSON_DeleteItemFromObject, only the first member of
 * a dropped name is left out. */
static cJSON *tur_extra(const cJSON *tur)
{
	static const char *const drop[] = {
		"stdout", "stderr", "originalFile", "originalFileContents",
		"content", "structuredPatch", "file", "oldString", "newString",
		"edits", "oldTodos", "newTodos", "results", "filenames", "usage",
		NULL
	};
	unsigned dropped = 0; /* bit i: drop[i] was left out once */
	const cJSON *c;
	cJSON *x = NULL, *d;
	int i;

	if (!cJSON_IsObject(tur))
		return NULL;
	for (c = tur->child; c; c = c->next) {
		for (i = 0; drop[i]; i++)
			if (!(dropped & (1u << i)) && c->string &&
			    !strcmp(c->string, drop[i]))
				break;
		if (drop[i]) {
			dropped |= 1u << i;
			continue;
		}
		if (!x && !(x = cJSON_CreateObject()))
			return NULL;
		d = cJSON_Duplicate(c, 1);
		if (!d) {
			cJSON_Delete(x);
			return NULL;
		}
		cJSON_AddItemToObject(x, c->string ? c->string : "", d);
	}
	return x;
}

/* An image block b: its base64 data stored as a blob and {"blob",
 * "media_type"} added to *imgs (created on the first).  1 when b has no
 * base64 data (nothing stored), else 0 or kt_imp_blob's error. */
static int add_image(struct cc *cc, const cJSON *b, cJSON **imgs)
{
	const cJSON *src = jget(b, "source");
	const char *data = jstr(src, "data");
	unsigned char *bin;
	size_t bl;
	char hex[KT_HASH_HEX + 1];
	cJSON *x;
	int rc;

	if (!data || !(bin = cc_b64dec(data, &bl)))
		return 1;
	rc = kt_imp_blob(cc->imp, bin, bl, NULL, hex);
	free(bin);
	if (rc)
		return rc;
	if (!*imgs)
		*imgs = cJSON_CreateArray();
	x = cJSON_CreateObject();
	cJSON_AddStringToObject(x, "blob", hex);
	if (jstr(src, "media_type"))
		cJSON_AddStringToObject(x, "media_type", jstr(src, "media_type"));
	cJSON_AddItemToArray(*imgs, x);
	return 0;
}

/* A Read of a results file is the benchmark's report of what it measured
 * (vsla_cuda_dev raw line 193: bench_convolution_1752697747.json's
 * mean_time_us): kt_imp_bench_file, from the file's own text when the
 * result carries it (toolUseResult.file.content), else the numbered
 * listing the agent saw. */
static int read_results(struct cc *cc, const struct call *cl,
			const cJSON *tur, uint64_t rseq, const char *text,
			size_t tn, int64_t ts)
{
	const char *c = jstr(jget(tur, "file"), "content");
	char *path = tool_path(cl, tur);
	int rc;

	if (!path)
		return 0;
	rc = kt_imp_bench_file(cc->imp, cl->seq, rseq, path, c ? c : text,
			       c ? strlen(c) : tn, ts);
	free(path);
	return rc;
}

static int handle_result(struct cc *cc, const struct pline *pl,
			 const cJSON *b, const char *agent, const char *actor)
{
	const cJSON *o = pl->o, *tur = jget(o, "toolUseResult");
	const char *id = jstr(b, "tool_use_id");
	const cJSON *content = jget(b, "content");
	struct call *cl;
	struct kt_buf out = { 0 };
	const char *text;       /* the output: content itself or out.s */
	size_t tn, kept;
	cJSON *p, *imgs = NULL, *x;
	int ok, rc = 0, exit_code = -1;
	int64_t ts = cc_iso_ns(jstr(o, "timestamp"));
	uint64_t rseq = 0;
	void **slot;
	const char *aid;

	if (!id) {
		kt_imp_warn(cc->imp, pl->f, pl->line,
			    "tool_result without tool_use_id: skipped");
		return 0;
	}
	if ((rc = cc_id_known(cc, &cc->seen_res, CC_SET_RES, id)) != 0)
		return rc < 0 ? rc : 0;
	slot = kt_strmap_slot(&cc->seen_res, id, 1);
	if (slot)
		*slot = (void *)1;
	if ((rc = cc_ids_settle(cc, &cc->seen_res, CC_SET_RES)) != 0)
		return rc;
	cl = kt_strmap_get(&cc->calls, id);
	/* a 2.x sub-agent finished: its own file goes before its result */
	aid = jstr(o, "agentId");
	if (!aid && cJSON_IsObject(tur))
		aid = jstr(tur, "agentId");
	if (aid && !agent && cc->nsubs) {
		rc = cc_run_subfile(cc, aid);
		if (rc)
			return rc;
	}
	ok = !cJSON_IsTrue(jget(b, "is_error"));
	if (cJSON_IsObject(tur) && cJSON_IsTrue(jget(tur, "interrupted")))
		ok = 0;
	if (cJSON_IsString(content)) {
		; /* used in place below */
	} else if (cJSON_IsArray(content)) {
		const cJSON *c;

		cJSON_ArrayForEach(c, content) {
			const char *t = jstr(c, "type");

			if (cJSON_IsString(c)) {
				if (out.len)
					kt_buf_add(&out, "\n", 1);
				kt_buf_add(&out, c->valuestring, strlen(c->valuestring));
			} else if (t && !strcmp(t, "text") && jstr(c, "text")) {
				if (out.len)
					kt_buf_add(&out, "\n", 1);
				kt_buf_add(&out, jstr(c, "text"), strlen(jstr(c, "text")));
			} else if (t && !strcmp(t, "image")) {
				/* one without data is left out silently */
				if ((rc = add_image(cc, c, &imgs)) == 1)
					rc = 0;
				else if (rc)
					break;
			}
		}
	}
	if (!out.s && !cJSON_IsString(content))
		kt_buf_add(&out, "", 0);
	text = cJSON_IsString(content) ? content->valuestring : out.s;
	tn = cJSON_IsString(content) ? strlen(text) : out.len;
	p = cJSON_CreateObject();
	if (!p || !text) {
		free(out.s);
		cJSON_Delete(p);
		cJSON_Delete(imgs);
		return KT_ENOMEM;
	}
	if (!rc)
		rc = cc_result_head(p, id, ok, text, tn, &kept);
	if (!rc && kept < tn)
		rc = cc_add_blob(cc->imp, p, "output_blob", text, tn);
	if (cl && !strcmp(cl->name, "Bash") && ok) {
		exit_code = 0; /* Claude Code marks a non-zero exit is_error */
		cJSON_AddNumberToObject(p, "exit_code", 0);
	} else if (cl && !strcmp(cl->name, "Bash") &&
		   !strncmp(text, "Exit code ", 10) &&
		   text[10] >= '0' && text[10] <= '9') {
		/* 2.x starts a failed command's result with its status */
		exit_code = atoi(text + 10);
		cJSON_AddNumberToObject(p, "exit_code", exit_code);
	}
	if (imgs)
		cJSON_AddItemToObject(p, "images", imgs);
	if (agent)
		cJSON_AddStringToObject(p, "subagent", agent);
	x = tur_extra(tur);
	if (cJSON_IsString(tur)) {
		x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "toolUseResult", tur->valuestring);
	}
	if (x)
		cJSON_AddItemToObject(p, "extra", x);
	if (cl && ok && !rc)
		rc = observe(cc, cl, tur, p);
	if (rc) {
		cJSON_Delete(p);
		free(out.s);
		return rc;
	}
	rc = cc_emit(cc, pl, KT_KIND_TOOL_RESULT, cl ? cl->seq : 0, ts, actor, p,
		  &rseq);
	if (!rc && cl && ok)
		rc = apply_edit(cc, cl, tur);
	if (!rc && cl && !strcmp(cl->name, "Bash") &&
	    jstr(cl->input, "command"))
		rc = kt_shell_classify(cc->imp, cl->seq, rseq,
				       jstr(cl->input, "command"), cl->cwd,
				       text, exit_code, ok, ts);
	if (!rc && cl && ok && !strcmp(cl->name, "Read"))
		rc = read_results(cc, cl, tur, rseq, text, tn, ts);
	/* another agent's tool (a Claude Code export of a Codex, OpenHands
	 * ... run: apply_patch, str_replace_editor, write_file): its effects
	 * as every other import derives them */
	if (!rc && cl && strcmp(cl->name, "Bash") && strcmp(cl->name, "Read") &&
	    strcmp(cl->name, "Write") && strcmp(cl->name, "Edit") &&
	    strcmp(cl->name, "MultiEdit")) {
		rc = kt_impx_tool_effects(cc->imp, cl->name, cl->input, cl->cwd,
					  cl->seq, rseq, text, exit_code, ok,
					  ts);
		if (rc > 0)
			rc = 0;
	}
	free(out.s);
	/* a call has one result (seen_res skips any later one), so its
	 * input is not read again: held to the end it was most of what the
	 * import kept per event (issue 21, import memory) */
	if (cl && (slot = kt_strmap_slot(&cc->calls, id, 0)) && *slot == cl) {
		cc_call_free(cl);
		*slot = NULL;
	}
	return rc;
}

/* ---- user, system, summary ----------------------------------------------- */

int cc_handle_user(struct cc *cc, const struct pline *pl)
{
	const cJSON *o = pl->o, *m = jget(o, "message"), *c, *b;
	const char *agent = cc_line_agent(cc, o, pl);
	int64_t ts = cc_iso_ns(jstr(o, "timestamp"));
	struct kt_buf tb = { 0 };
	cJSON *imgs = NULL, *p, *fl;
	const char *flag;
	char actor[300];
	int rc = 0, any_text = 0;

	if (!cJSON_IsObject(m)) {
		kt_imp_warn(cc->imp, pl->f, pl->line,
			    "user line: message is not an object: skipped");
		return 0;
	}
	c = jget(m, "content");
	if (cJSON_IsString(c)) {
		kt_buf_add(&tb, c->valuestring, strlen(c->valuestring));
		any_text = 1;
	} else if (cJSON_IsArray(c)) {
		cc_actor_of(agent, actor, sizeof(actor), "tool");
		cJSON_ArrayForEach(b, c) {
			const char *t = jstr(b, "type");

			if (!cJSON_IsObject(b) || !t) {
				kt_imp_warn(cc->imp, pl->f, pl->line,
					    "content block is not a typed object: skipped");
				continue;
			}
			if (!strcmp(t, "tool_result")) {
				rc = handle_result(cc, pl, b, agent, actor);
				if (rc)
					goto out;
			} else if (!strcmp(t, "text") && jstr(b, "text")) {
				if (tb.len)
					kt_buf_add(&tb, "\n", 1);
				kt_buf_add(&tb, jstr(b, "text"), strlen(jstr(b, "text")));
				any_text = 1;
			} else if (!strcmp(t, "image")) {
				if ((rc = add_image(cc, b, &imgs)) == 1) {
					kt_imp_warn(cc->imp, pl->f, pl->line,
						    "image block without base64 data: skipped");
					rc = 0;
					continue;
				}
				if (rc)
					goto out;
				any_text = 1;
			}
		}
	} else {
		kt_imp_warn(cc->imp, pl->f, pl->line,
			    "user line: message.content is %s: skipped",
			    c ? "neither a string nor a list" : "missing");
		return 0;
	}
	if (!any_text)
		goto out;
	if (!tb.s)
		kt_buf_add(&tb, "", 0);
	flag = cc_nonhuman_flag(o, tb.s);
	if (agent && !flag)
		flag = "subagent_prompt";
	if (!flag) {
		rc = cc_ensure_run(cc, tb.s);
		if (rc && rc != KT_EEXIST)
			goto out;
	}
	cc_actor_of(agent, actor, sizeof(actor), flag ? "system" : "human");
	p = cJSON_CreateObject();
	if (!p) {
		rc = KT_ENOMEM;
		goto out;
	}
	cJSON_AddStringToObject(p, "role", "user");
	cJSON_AddBoolToObject(p, "human", !flag);
	rc = cc_add_text(cc->imp, p, "text", "text_blob", tb.s, tb.len);
	if (agent)
		cJSON_AddStringToObject(p, "subagent", agent);
	if (flag) {
		fl = cJSON_AddArrayToObject(p, "flags");
		cJSON_AddItemToArray(fl, cJSON_CreateString(flag));
	}
	if (imgs) {
		cJSON_AddItemToObject(p, "images", imgs);
		imgs = NULL;
	}
	if (jstr(o, "uuid")) {
		cJSON *x = cJSON_AddObjectToObject(p, "extra");

		cJSON_AddStringToObject(x, "uuid", jstr(o, "uuid"));
		if (jstr(o, "parentUuid"))
			cJSON_AddStringToObject(x, "parentUuid", jstr(o, "parentUuid"));
	}
	if (rc) {
		cJSON_Delete(p);
		goto out;
	}
	rc = cc_emit(cc, pl, KT_KIND_MESSAGE, 0, ts, actor, p, NULL);
out:
	cJSON_Delete(imgs);
	free(tb.s);
	return rc;
}

int cc_handle_system(struct cc *cc, const struct pline *pl)
{
	const cJSON *o = pl->o;
	const char *text = jstr(o, "content"), *sub = jstr(o, "subtype");
	cJSON *p = cJSON_CreateObject(), *x, *fl;
	const cJSON *v;

	if (!p)
		return KT_ENOMEM;
	cJSON_AddStringToObject(p, "role", "system");
	cJSON_AddBoolToObject(p, "human", 0);
	cJSON_AddStringToObject(p, "text", text ? text : "");
	fl = cJSON_AddArrayToObject(p, "flags");
	cJSON_AddItemToArray(fl, cJSON_CreateString(sub ? sub : "system"));
	x = cJSON_AddObjectToObject(p, "extra");
	if (jstr(o, "level"))
		cJSON_AddStringToObject(x, "level", jstr(o, "level"));
	if (jstr(o, "logicalParentUuid"))
		cJSON_AddStringToObject(x, "logicalParentUuid",
					jstr(o, "logicalParentUuid"));
	v = jget(o, "compactMetadata");
	if (cJSON_IsObject(v))
		cJSON_AddItemToObject(x, "compactMetadata", cJSON_Duplicate(v, 1));
	if (jstr(o, "uuid"))
		cJSON_AddStringToObject(x, "uuid", jstr(o, "uuid"));
	return cc_emit(cc, pl, KT_KIND_MESSAGE, 0, cc_iso_ns(jstr(o, "timestamp")),
		    "system", p, NULL);
}

int cc_handle_summary(struct cc *cc, const struct pline *pl)
{
	const cJSON *o = pl->o, *m = jget(o, "message");
	const char *s = jstr(o, "summary");
	cJSON *p = cJSON_CreateObject(), *fl;

	if (!p)
		return KT_ENOMEM;
	if (s) {
		cJSON_AddStringToObject(p, "text", s);
		cJSON_AddStringToObject(p, "kind", "summary");
		if (jstr(o, "leafUuid"))
			cJSON_AddStringToObject(p, "leafUuid", jstr(o, "leafUuid"));
		return cc_emit(cc, pl, KT_KIND_NOTE, 0,
			    cc_iso_ns(jstr(o, "timestamp")), "system", p, NULL);
	}
	if (cJSON_IsObject(m) && jstr(m, "content")) {
		cJSON_AddStringToObject(p, "role", "user");
		cJSON_AddBoolToObject(p, "human", 0);
		cJSON_AddStringToObject(p, "text", jstr(m, "content"));
		fl = cJSON_AddArrayToObject(p, "flags");
		cJSON_AddItemToArray(fl, cJSON_CreateString("compact_summary"));
		return cc_emit(cc, pl, KT_KIND_MESSAGE, 0,
			    cc_iso_ns(jstr(o, "timestamp")), "system", p, NULL);
	}
	cJSON_Delete(p);
	kt_imp_warn(cc->imp, pl->f, pl->line, "summary line without text: skipped");
	return 0;
}

