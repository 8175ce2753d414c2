/*
 * fuzz_export_agents.c - libFuzzer target for the exports into other
 * agents' formats read back (export/claude_code.c, sts.c, otlp.c): the
 * input is a Claude Code session, imported with the format forced into a
 * fresh scratch store; each run is exported as claude_code, sts and otlp
 * (plain and redacted), and the claude_code export is imported again with
 * the Claude Code importer.  Any crash, leak, sanitizer report or a store
 * that stops verifying is a bug.  (fuzz_export runs every exporter on
 * ktraj JSONL input; this target feeds the exporters what the Claude Code
 * importer makes of hostile sessions, and the importer what the exporter
 * writes.)
 */
#include "fuzz_imp_common.h"
#include "../../export/export.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const formats[] = { "sts", "otlp", "claude_code" };
	struct fz_ids r = { .n = 0 };
	char path[1200], err[512];
	size_t k;
	int i, redact;

	fz_init();
	fz_put("in.jsonl", data, size);
	fz_run("in.jsonl", "claude_code");
	if (kt_run_foreach(fz_store, fz_collect, &r))
		abort();
	for (i = 0; i < r.n; i++)
		for (k = 0; k < sizeof(formats) / sizeof(formats[0]); k++)
			for (redact = 1; redact >= 0; redact--) {
				const kt_exporter *ex = kt_exporter_find(formats[k]);
				kt_export_args a = { .run = r.id[i], .redact = redact };

				if (!ex)
					abort();
				/* the last one written, claude_code plain, is
				 * imported back below */
				fz_put("back.jsonl", "", 0);
				snprintf(path, sizeof(path), "%s/in/back.jsonl", fz_dir);
				if (!(a.out = fopen(path, "w")))
					abort();
				(void)ex->write(fz_store, &a, err, sizeof(err));
				fclose(a.out);
			}
	if (r.n)
		fz_run("back.jsonl", "claude_code");
	fz_drop_store();
	return 0;
}
