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
 *                  error" lines from a JIT build;
 *   ninja          a "FAILED: OBJ.o" line (cpp_extension's ninja build);
 *   setuptools     "error: command 'g++' failed" (setup.py build_ext);
 *   c++            ".cpp:LINE:COL: error" / ".cc:..." lines of g++/c++.
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
	imp->task_read = 1;
}

void kt_imp_task(kt_imp *imp, const char *prompt)
{
	if (!imp)
		return;
	imp->task_read = 1;
	imp->bench_hint.baseline = kt_bench_task_baseline(prompt);
	kt_bench_task_metric(prompt, imp->task_metric,
			     sizeof(imp->task_metric), imp->task_info,
			     sizeof(imp->task_info));
	imp->bench_hint.task_metric = *imp->task_metric ? imp->task_metric :
				      NULL;
	imp->bench_hint.task_info = *imp->task_info ? imp->task_info : NULL;
}

static const char *find_n(const char *h, size_t n, const char *needle)
{
	size_t k = strlen(needle), i;

	for (i = 0; k <= n && i + k <= n; i++)
		if (h[i] == needle[0] && !memcmp(h + i, needle, k))
			return h + i;
	return NULL;
}

/* nvcc's "file.cu(12): error" or "file.cu:12:3: error", g++'s
 * "file.cpp:12:3: error" (sfx ".cpp") */
static const char *src_error(const char *o, size_t len, const char *sfx)
{
	const char *p = o, *e = o + len;
	size_t sl = strlen(sfx);

	while ((p = find_n(p, (size_t)(e - p), sfx)) != NULL) {
		const char *q = p + sl;

		if (q < e && (*q == '(' || *q == ':')) {
			const char *r = q + 1;

			while (r < e && ((*r >= '0' && *r <= '9') || *r == ':' ||
					 *r == ')'))
				r++;
			if (r > q + 1 && (size_t)(e - r) >= 7 &&
			    !memcmp(r, " error", 6))
				return p;
		}
		p += sl;
	}
	return NULL;
}

/* ninja's "FAILED: path/k.cuda.o" line: only with an object file, since
 * a test harness may print "FAILED: ..." about a wrong result */
static const char *ninja_failed(const char *o, size_t len)
{
	const char *p = o, *e = o + len;

	while ((p = find_n(p, (size_t)(e - p), "FAILED: ")) != NULL) {
		const char *nl = memchr(p, '\n', (size_t)(e - p));
		const char *q;

		if (!nl)
			nl = e;
		if ((p == o || p[-1] == '\n') &&
		    (q = find_n(p, (size_t)(nl - p), ".o")) &&
		    (q + 2 == nl || q[2] == ' '))
			return p;
		p += 8;
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
		{ "error: command '", "setuptools" },
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
	/* the build's own lines (ninja, compiler) come before the
	 * extension's summary: the diagnostic starts at the first of them,
	 * named by the summary when there is one */
	for (i = 0; i < 4; i++) {
		static const char *const sw[] = { "ninja", "nvcc", "c++", "c++" };
		const char *q = i == 0 ? ninja_failed(out, len) :
			src_error(out, len, i == 1 ? ".cu" : i == 2 ? ".cpp" : ".cc");

		if (q && (!p || q < p)) {
			if (!who)
				who = sw[i];
			p = q;
		}
	}
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
