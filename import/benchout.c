/*
 * benchout.c - what a benchmark command's output says besides its numbers:
 * a build that failed inside the program (a JIT compile), and the graded
 * metric the run names (kt_imp_bench_hint).
 *
 * Markers of a failed build, by the compiler that printed them:
 *   triton         "CompilationError" (triton.compiler.errors), raised
 *                  when a @triton.jit kernel does not compile;
 *   torch.compile  "torch._inductor.exc.", "InductorError",
 *                  "BackendCompilerFailed" (torch._dynamo);
 *   cpp_extension  "Error building extension" (torch.utils.cpp_extension
 *                  load / load_inline), "ninja: build stopped";
 *   nvcc           "nvcc fatal", or ".cu(LINE): error" / ".cu:LINE:COL:
 *                  error" lines from a JIT build.
 * A traceback mentioning them is the program failing to build its kernel,
 * which is a failed compile (FORMAT.md section 2 "compile"), not a bench.
 */
#include <string.h>
#include "import.h"
#include "imp_int.h"

void kt_imp_bench_hint(kt_imp *imp, const char *metric, const char *baseline)
{
	if (!imp)
		return;
	imp->bench_hint.metric = metric;
	imp->bench_hint.baseline = baseline;
}

static const char *find_n(const char *h, size_t n, const char *needle)
{
	size_t k = strlen(needle), i;

	for (i = 0; k <= n && i + k <= n; i++)
		if (h[i] == needle[0] && !memcmp(h + i, needle, k))
			return h + i;
	return NULL;
}

/* nvcc's "file.cu(12): error" or "file.cu:12:3: error" */
static const char *nvcc_error(const char *o, size_t len)
{
	const char *p = o, *e = o + len;

	while ((p = find_n(p, (size_t)(e - p), ".cu")) != NULL) {
		const char *q = p + 3;

		if (q < e && (*q == '(' || *q == ':')) {
			const char *r = q + 1;

			while (r < e && ((*r >= '0' && *r <= '9') || *r == ':' ||
					 *r == ')'))
				r++;
			if (r > q + 1 && (size_t)(e - r) >= 7 &&
			    !memcmp(r, " error", 6))
				return p;
		}
		p += 3;
	}
	return NULL;
}

const char *kt_out_build_error(const char *out, size_t len, size_t *at,
			       size_t *n)
{
	static const struct { const char *mark, *who; } m[] = {
		{ "CompilationError", "triton" },
		{ "triton.compiler.errors", "triton" },
		{ "torch._inductor.exc.", "torch.compile" },
		{ "InductorError", "torch.compile" },
		{ "BackendCompilerFailed", "torch.compile" },
		{ "Error building extension", "cpp_extension" },
		{ "ninja: build stopped", "cpp_extension" },
		{ "nvcc fatal", "nvcc" },
		{ NULL, NULL } };
	const char *p = NULL, *who = NULL, *end;
	int i;

	if (!out)
		return NULL;
	for (i = 0; m[i].mark; i++) {
		const char *q = find_n(out, len, m[i].mark);

		if (q && (!p || q < p)) {
			p = q;
			who = m[i].who;
		}
	}
	if (!p && (p = nvcc_error(out, len)))
		who = "nvcc";
	if (!p)
		return NULL;
	/* from the start of its line */
	while (p > out && p[-1] != '\n')
		p--;
	end = out + len;
	if (end - p > 8192)
		end = p + 8192;
	*at = (size_t)(p - out);
	*n = (size_t)(end - p);
	return who;
}
