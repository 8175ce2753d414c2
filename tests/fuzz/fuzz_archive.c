/*
 * fuzz_archive.c - libFuzzer target for the archive reader of the import
 * driver: the input is any file (tar, zip, gzip, zstd, xz, ...), imported
 * with format detection and small expansion bounds.  Any crash, leak or
 * sanitizer report is a bug; warnings and errors are expected.
 */
#include "fuzz_imp_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kt_import_opts o;

	fz_init();
	fz_put("in.bin", data, size);
	memset(&o, 0, sizeof(o));
	o.max_total = 8u << 20;
	o.max_ratio = 50;
	fz_run_opts("in.bin", &o);
	return 0;
}
