/*
 * registry.c - the table of importers.  Adding a format: one extern line and
 * one table entry (keep the table a plain array; detection order does not
 * matter, the highest detect() score wins and ties go to the earlier entry).
 */
#include <string.h>

#include "import.h"

extern const kt_importer kt_importer_claude_code;
extern const kt_importer kt_importer_ktraj;
extern const kt_importer kt_importer_inspect;
extern const kt_importer kt_importer_flashinfer;
extern const kt_importer kt_importer_kernelagent;
extern const kt_importer kt_importer_kernelbench;
extern const kt_importer kt_importer_codex;
extern const kt_importer kt_importer_atif;
extern const kt_importer kt_importer_swe_agent;
extern const kt_importer kt_importer_openhands;
/* the result.json of a replay bundle: replay/result_import.c, beside the
 * bundle writer and the judge it uses */
extern const kt_importer kt_importer_replay;
extern const kt_importer kt_importer_map;
extern const kt_importer kt_importer_sts;
extern const kt_importer kt_importer_aider;
extern const kt_importer kt_importer_cline;
extern const kt_importer kt_importer_otel_genai;
extern const kt_importer kt_importer_opencode;

const kt_importer *const kt_importers[] = {
	&kt_importer_claude_code,
	&kt_importer_ktraj,
	&kt_importer_inspect,
	&kt_importer_flashinfer,
	&kt_importer_kernelagent,
	&kt_importer_kernelbench,
	&kt_importer_codex,
	&kt_importer_atif,
	&kt_importer_swe_agent,
	&kt_importer_openhands,
	&kt_importer_replay,
	&kt_importer_map,
	&kt_importer_sts,
	&kt_importer_aider,
	&kt_importer_cline,
	&kt_importer_otel_genai,
	&kt_importer_opencode,
	NULL
};

const kt_importer *kt_importer_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; kt_importers[i]; i++)
		if (!strcmp(kt_importers[i]->name, name))
			return kt_importers[i];
	return NULL;
}

const kt_importer *kt_importer_of_format(const char *format)
{
	const kt_importer *im = kt_importer_find(format);

	for (size_t i = 0; !im && format && kt_importers[i]; i++)
		for (const char *const *a = kt_importers[i]->aliases; a && *a;
		     a++)
			if (!strcmp(*a, format))
				return kt_importers[i];
	return im;
}
