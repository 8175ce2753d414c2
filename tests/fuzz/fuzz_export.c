/*
 * fuzz_export.c - libFuzzer target for every exporter of the table
 * (export/export.h): the input is a ktraj JSONL file, imported with the
 * format forced into a fresh scratch store; then each run is written by
 * every exporter (stream ones to a file, directory ones under the scratch
 * folder, the step one for its first three steps), plain and redacted.
 * Exporters read what importers stored: any crash, leak or sanitizer
 * report is a bug.  (That a jsonl export imports back into the same run is
 * tests/unit/t_export_roundtrip.c.)
 */
#include "fuzz_imp_common.h"
#include "../../export/export.h"

static void export_run(const char *run, uint64_t n_events)
{
	char path[1200], err[512];
	size_t i;
	int redact;

	for (i = 0; kt_exporters[i]; i++) {
		const kt_exporter *ex = kt_exporters[i];

		for (redact = 0; redact < 2; redact++) {
			kt_export_args a = { .run = run, .redact = redact };
			uint64_t step;

			if (ex->flags & KT_EXPORT_STREAM) {
				snprintf(path, sizeof(path), "%s/out.%s", fz_dir, ex->name);
				if (!(a.out = fopen(path, "w")))
					abort();
				(void)ex->write(fz_store, &a, err, sizeof(err));
				fclose(a.out);
			} else if (ex->flags & KT_EXPORT_DIR) {
				/* every run of the input into one folder: the
				 * first export writes it, the others add to it;
				 * redacted tables go to a folder of their own,
				 * uncompressed, in files of 4 KiB */
				snprintf(path, sizeof(path), "%s/out.%s%s", fz_dir,
					 ex->name, redact ? ".r" : "");
				a.path = path;
				a.since_last = 1;
				a.compress = redact ? KT_EXPORT_NONE : KT_EXPORT_ZSTD;
				a.part_size = redact ? 4096 : 0;
				(void)ex->write(fz_store, &a, err, sizeof(err));
			} else if (ex->flags & KT_EXPORT_STEP && !redact) {
				snprintf(path, sizeof(path), "%s/out.%s", fz_dir, ex->name);
				a.path = path;
				for (step = 1; step <= n_events && step <= 3; step++) {
					a.step = step;
					(void)ex->write(fz_store, &a, err, sizeof(err));
				}
			}
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_ids r = { .n = 0 };
	char out[1200];
	int i;

	fz_init();
	fz_put("in.jsonl", data, size);
	fz_run("in.jsonl", "ktraj");
	if (kt_run_foreach(fz_store, fz_collect, &r))
		abort();
	for (i = 0; i < r.n; i++) {
		kt_run_info ri;

		if (kt_run_get(fz_store, r.id[i], &ri))
			abort();
		export_run(r.id[i], ri.n_events);
	}
	/* out.* and the partition tree go with the folder at exit; a fresh
	 * store per input keeps every input's runs its own */
	snprintf(out, sizeof(out), "%s/out.ndjson", fz_dir);
	(void)nftw(out, fz_rm, 16, FTW_DEPTH | FTW_PHYS);
	snprintf(out, sizeof(out), "%s/out.ndjson.r", fz_dir);
	(void)nftw(out, fz_rm, 16, FTW_DEPTH | FTW_PHYS);
	fz_drop_store();
	return 0;
}
