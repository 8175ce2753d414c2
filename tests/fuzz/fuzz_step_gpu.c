/*
 * fuzz_step_gpu.c - kt_sandbox_step_gpu (replay/sandbox.h) on any command
 * text: the input, split at its first newline, is a tool_call manifest's
 * build_command and command.  It must not crash, and it may pick the GPU
 * profile only for a text that names nvcc once its quotes are removed, as
 * the shell does (a tool_call step is never a GPU step for any other
 * reason).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "../../replay/sandbox.h"

/* text without its ' and " (nv''cc runs nvcc) names nvcc */
static int names_nvcc(const char *text)
{
	char *u = strdup(text), *w = u;
	const char *r;
	int yes;

	if (!u)
		abort();
	for (r = text; *r; r++)
		if (*r != '\'' && *r != '"')
			*w++ = *r;
	*w = 0;
	yes = strstr(u, "nvcc") != NULL;
	free(u);
	return yes;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *cut;
	cJSON *m = cJSON_CreateObject();

	if (!text || !m)
		abort();
	memcpy(text, data, size);
	text[size] = 0;
	cut = strchr(text, '\n');
	if (cut)
		*cut++ = 0;
	cJSON_AddStringToObject(m, "kind", "tool_call");
	cJSON_AddStringToObject(m, "build_command", text);
	cJSON_AddStringToObject(m, "command", cut ? cut : "");
	if (kt_sandbox_step_gpu(m) && !names_nvcc(text) && !(cut && names_nvcc(cut)))
		abort();
	cJSON_Delete(m);
	free(text);
	return 0;
}
