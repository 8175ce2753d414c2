/*
 * registry.c - the table of importers.  Adding a format: one extern line and
 * one table entry (keep the table a plain array; detection order does not
 * matter much: the highest detect() score wins and ties go to the earlier
 * entry).
 *
 * An importer whose code belongs to a module above import/ has a place here
 * by name only, and that module fills it (kt_importer_register).  The one
 * such is "replay_result", the result.json of a replay bundle: it judges
 * the result with the replay judge and continues the recorded run, so it
 * sits in replay/ beside the bundle writer that defines result.json and
 * the judge (replay/result_import.c), and replay/ already includes import/.
 * Calling it from here by symbol made a circle of modules that no include
 * showed (import -> replay -> import, at link time: tests/link_cycles.sh).
 * Moving it into import/ would move the judge too, away from the bundle
 * format it reads.  Its place stays where it was, so detection ties and
 * `ktraj import --help` read as before once it is registered.
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
extern const kt_importer kt_importer_map;
extern const kt_importer kt_importer_codex_exec;
extern const kt_importer kt_importer_amp;
extern const kt_importer kt_importer_pi_agent;
extern const kt_importer kt_importer_gemini_cli;
extern const kt_importer kt_importer_copilot_cli;
extern const kt_importer kt_importer_sts;
extern const kt_importer kt_importer_aider;
extern const kt_importer kt_importer_cline;
extern const kt_importer kt_importer_otel_genai;
extern const kt_importer kt_importer_opencode;

/* One place of the table: an importer of import/, or (im NULL until it is
 * registered) the name of one a module above import/ owns. */
struct slot {
	const kt_importer *im;
	const char *late;
};

static struct slot table[] = {
	{ &kt_importer_claude_code, NULL },
	{ &kt_importer_ktraj, NULL },
	{ &kt_importer_inspect, NULL },
	{ &kt_importer_flashinfer, NULL },
	{ &kt_importer_kernelagent, NULL },
	{ &kt_importer_kernelbench, NULL },
	{ &kt_importer_codex, NULL },
	{ &kt_importer_atif, NULL },
	{ &kt_importer_swe_agent, NULL },
	{ &kt_importer_openhands, NULL },
	{ NULL, "replay_result" }, /* replay/result_import.c: above */
	{ &kt_importer_map, NULL },
	{ &kt_importer_codex_exec, NULL },
	{ &kt_importer_amp, NULL },
	{ &kt_importer_pi_agent, NULL },
	{ &kt_importer_gemini_cli, NULL },
	{ &kt_importer_copilot_cli, NULL },
	{ &kt_importer_sts, NULL },
	{ &kt_importer_aider, NULL },
	{ &kt_importer_cline, NULL },
	{ &kt_importer_otel_genai, NULL },
	{ &kt_importer_opencode, NULL },
};

#define NSLOTS (sizeof(table) / sizeof(table[0]))

int kt_importer_register(const kt_importer *im)
{
	for (size_t k = 0; im && im->name && k < NSLOTS; k++) {
		if (!table[k].late || strcmp(table[k].late, im->name))
			continue;
		if (table[k].im && table[k].im != im)
			return KT_EEXIST;
		table[k].im = im;
		return 0;
	}
	return im && im->name ? KT_ENOTFOUND : KT_EINVAL;
}

const kt_importer *kt_importer_at(size_t i)
{
	for (size_t k = 0; k < NSLOTS; k++)
		if (table[k].im && i-- == 0)
			return table[k].im;
	return NULL;
}

const kt_importer *kt_importer_find(const char *name)
{
	for (size_t k = 0; name && k < NSLOTS; k++)
		if (table[k].im && !strcmp(table[k].im->name, name))
			return table[k].im;
	return NULL;
}

const kt_importer *kt_importer_of_format(const char *format)
{
	const kt_importer *im = kt_importer_find(format);

	for (size_t k = 0; !im && format && k < NSLOTS; k++)
		for (const char *const *a = table[k].im ? table[k].im->aliases :
		     NULL; a && *a; a++)
			if (!strcmp(*a, format))
				return table[k].im;
	return im;
}
