/*
 * fuzz_inspect.c - the Inspect AI importer (import/imp_inspect.c): input as
 * a monolithic .json log, or as the sample member of an extracted .eval
 * (header.json + samples/1_epoch_1.json), chosen by the first byte.
 */
#include "fuzz_imp_common.h"

static const char header[] =
	"{\"version\":3,\"status\":\"success\",\"eval\":{\"eval_id\":\"F\","
	"\"task\":\"t\",\"task_id\":\"T\",\"run_id\":\"R\"}}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_init();
	if (size && (data[0] & 1)) {
		fz_put("header.json", header, sizeof(header) - 1);
		fz_put("samples/1_epoch_1.json", data + 1, size - 1);
		fz_run("", "inspect");
	} else {
		fz_put("log.json", data, size);
		fz_run("log.json", "inspect");
	}
	return 0;
}
