/*
 * export.c - the table of exporters (export.h).  Adding a target: one file
 * export/<name>.c defining a kt_exporter, one extern line and one table
 * entry here.  The replay bundle's writer lives in replay/ beside its reader
 * and judge; its entry adapts it to the one signature.
 */
#include <string.h>

#include "export.h"
#include "../replay/replay.h"

extern const kt_exporter kt_exporter_jsonl;
extern const kt_exporter kt_exporter_atif;
extern const kt_exporter kt_exporter_ndjson;
extern const kt_exporter kt_exporter_claude_code;
extern const kt_exporter kt_exporter_sts;
extern const kt_exporter kt_exporter_otlp;

static int write_bundle(kt_store *s, const kt_export_args *args, char *err,
			size_t errlen)
{
	return kt_replay_bundle_write(s, args->run, args->step, args->path,
				      err, errlen);
}

static const kt_exporter kt_exporter_bundle = {
	"bundle", KT_EXPORT_STEP, write_bundle
};

const kt_exporter *const kt_exporters[] = {
	&kt_exporter_jsonl,
	&kt_exporter_atif,
	&kt_exporter_ndjson,
	&kt_exporter_claude_code,
	&kt_exporter_sts,
	&kt_exporter_otlp,
	&kt_exporter_bundle,
	NULL
};

const kt_exporter *kt_exporter_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; kt_exporters[i]; i++)
		if (!strcmp(kt_exporters[i]->name, name))
			return kt_exporters[i];
	return NULL;
}
