/*
 * fuzz_hook.c - libFuzzer target for the hook mapping (import/hook.c): the
 * first byte picks the agent (Claude Code, Gemini CLI, Codex), the rest is
 * one hook event, recorded as `ktraj hook` records it into a scratch store.
 *   - kt_hook_key_has_nul never reads past the text;
 *   - a refused session leaves a reason (h.why) and records nothing;
 *   - whatever is recorded verifies (hashes, blob references).
 * Any crash, leak or sanitizer report is a bug.
 */
#include "fuzz_imp_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const agents[] = { "claude-code", "gemini-cli", "codex" };
	const char *agent, *ev;
	kt_hook h;
	cJSON *in;
	int nul, rc, exists, refused;

	if (size < 1)
		return 0;
	agent = agents[data[0] % 3];
	fz_init();
	in = cJSON_ParseWithLength((const char *)data + 1, size - 1);
	nul = kt_hook_key_has_nul((const char *)data + 1, size - 1,
				  strcmp(agent, "codex") ? "session_id" : "thread-id");
	ev = kt_json_str(in, "hook_event_name");
	if (!cJSON_IsObject(in) ||
	    (strcmp(agent, "codex") && !kt_hook_handles(agent, ev))) {
		cJSON_Delete(in);
		return 0;
	}
	rc = kt_hook_session(&h, agent, in, nul);
	if (rc && !h.why)
		abort();
	if (!rc && !kt_record_run(fz_store, h.name, h.source, h.run, &exists,
				  &refused)) {
		h.s = fz_store;
		rc = kt_hook_record(&h, in);
		if (kt_store_verify(fz_store, NULL, NULL, NULL) == KT_ECORRUPT ||
		    kt_store_verify_blobrefs(fz_store, NULL, NULL, NULL) == KT_ECORRUPT)
			abort();
	}
	kt_hook_free(&h);
	cJSON_Delete(in);
	return 0;
}
