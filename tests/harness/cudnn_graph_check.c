/*
 * cudnn_graph_check.c - builds the cudnn baseline's attention graph
 * (harness/cudnn.c, included whole for its static builder) against a real
 * libcudnn.so.9 on a machine without a GPU: every tensor and operation
 * descriptor must finalize (cuDNN validates each operation's inputs and
 * shapes there); only the operation graph needs a handle, so the build must
 * stop exactly there.  Used by tests/cli/bench.bats, which skips without
 * nvcc or the library.
 *
 *   cudnn_graph_check LIB B HQ HKV SQ SK D CAUSAL
 * prints "descriptors N stop <reason>" and exits 0 when the stop is the
 * graph handle.
 */
#include "../../harness/cudnn.c"

int main(int argc, char **argv)
{
	struct ktraj_args a;
	char e[512];

	if (argc != 9)
		return 2;
	memset(&a, 0, sizeof(a));
	for (int i = 0; i < 6; i++)
		a.dims[i] = atoll(argv[2 + i]);
	a.op = KTRAJ_OP_ATTENTION_FWD;
	a.dtype = KTRAJ_BF16;
	a.causal = atoi(argv[8]);
	a.scale = 0.125f;
	/* the load fails at cudnnCreate without a GPU; the symbols are bound */
	if (kth_cudnn_load(argv[1], e, sizeof(e)) && !strstr(e, "cudnnCreate")) {
		printf("load: %s\n", e);
		return 1;
	}
	L.err[0] = 0;
	if (build_with(&a, 1, KTC_HEUR_MODE_A) == 0) {
		printf("built (a GPU is present)\n");
		return 0;
	}
	printf("descriptors %d stop %s\n", P.nd, L.err);
	return strstr(L.err, "graph handle") ? 0 : 1;
}
