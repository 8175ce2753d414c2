/*
 * fuzz_replay_result.c - libFuzzer target for the replay-result importer and
 * the replay judge: the input is a result.json of a bundle, imported with
 * the format forced into a scratch store that holds a small run the result
 * may name.  Any crash, leak or sanitizer report is a bug.
 */
#include "fuzz_imp_common.h"
#include "../../replay/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *j;
	char reason[512];

	fz_init();
	fz_put("result.json", data, size);
	fz_run("result.json", "replay_result");
	/* the judge on its own, with the input as both manifest and result */
	j = cJSON_ParseWithLength((const char *)data, size);
	if (j) {
		kt_replay_judge(KT_KIND_BENCH, j, j, NULL, reason, sizeof(reason));
		kt_replay_judge(KT_KIND_COMPILE, cJSON_GetObjectItem(j, "manifest"), j, "x",
				reason, sizeof(reason));
		cJSON_Delete(j);
	}
	return 0;
}
