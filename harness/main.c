/*
 * main.c - ktraj-harness: the parent process.  It reads the task spec,
 * compiles the candidate with nvcc, checks the object's symbols, and runs the
 * scenarios in a fresh child process under a watchdog (time and resident
 * memory), restarting a child after a crash, a hang or a CUDA error that
 * poisons the context.  The parent never touches CUDA.  Output: NDJSON on
 * stdout (harness/README.md "Output").
 *
 * Exit status: 0 every scenario ok, 1 some scenario not ok, 2 usage or spec
 * error, 3 compile error, 4 no CUDA device.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "harness.h"
#include "util.h"

static const char usage[] =
	"usage: ktraj-harness --task SPEC.json|NAME --kernel FILE.cu [options]\n"
	"  --scenarios LIST   comma list of indices, ranges a-b or name globs\n"
	"  --baseline FILE.cu time against this candidate, not the reference\n"
	"  --baseline cudnn   time against cuDNN's fused attention (attention_fwd)\n"
	"  --cudnn PATH       libcudnn.so.9 or its folder (default: $KTRAJ_CUDNN,\n"
	"                     PyTorch's nvidia/cudnn/lib, the CUDA Toolkit)\n"
	"  --budget-ms MS     timed samples per arm and scenario (default 150)\n"
	"  --blocks N         interleaved blocks (default 6)\n"
	"  --min-samples N    per block (default 3); --max-samples N (200)\n"
	"  --warmup-ms MS     (default 25, at least 25)\n"
	"  --seed N|random    master seed of the input sets\n"
	"  --timeout S        watchdog per scenario (default 120)\n"
	"  --compile-timeout S  nvcc limit (default 900)\n"
	"  --mem-limit-mb MB  child resident memory (default 32768)\n"
	"  --cache DIR        reuse compiled objects by content hash\n"
	"  --arch SM          e.g. sm_90a (default: from the device)\n"
	"  --include DIR      candidate include dir (default: kernels/include)\n"
	"  --compile-only     compile, check symbols, stop\n"
	"  --keep-so PATH     also copy the compiled candidate object to PATH\n"
	"  --no-timing        correctness checks only\n"
	"  --list             print the scenarios of the spec as NDJSON\n";

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* snprintf through a variadic wrapper: truncation of over-long paths is
 * harmless here (the open fails with a clear error), and gcc's
 * -Wformat-truncation cannot see through vsnprintf. */
static void fmt(char *buf, size_t n, const char *f, ...)
	__attribute__((format(printf, 3, 4)));
static void fmt(char *buf, size_t n, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, n, f, ap);
	va_end(ap);
}

static int die_usage(const char *msg)
{
	fprintf(stderr, "ktraj-harness: %s\n%s", msg, usage);
	return 2;
}

/* ---- task spec ------------------------------------------------------------ */

static int dtype_of(const char *s)
{
	if (!s || !strcmp(s, "bf16"))
		return KTRAJ_BF16;
	if (!strcmp(s, "fp16"))
		return KTRAJ_F16;
	if (!strcmp(s, "fp32"))
		return KTRAJ_F32;
	return -1;
}

static void tol_default(struct kth_task *t)
{
	/* bf16 keeps 8 mantissa bits (rel. step 2^-8), fp16 11: the per-element
	 * bound allows a few steps; the relative-norm bound is what rejects
	 * zeros, skipped work and fp8-class precision drops (harness.md §2
	 * rows 8, 11). */
	t->tol[KTRAJ_BF16] = (struct kth_tol){ 2e-2, 4e-2, 1e-2 };
	t->tol[KTRAJ_F16] = (struct kth_tol){ 5e-3, 1e-2, 3e-3 };
	t->tol[KTRAJ_F32] = (struct kth_tol){ 1e-4, 1e-4, 1e-5 };
}

static int load_spec(const char *path, struct kth_task *t, char *err, size_t el)
{
	size_t len, i;
	char *txt = kth_read_file(path, &len);
	const kj *sc, *tol, *e;
	const char *op;

	memset(t, 0, sizeof(*t));
	if (!txt) {
		fmt(err, el, "%s: %s", path, strerror(errno));
		return -1;
	}
	t->root = kj_parse(txt, len, err, el);
	free(txt);
	if (!t->root)
		return -1;
	snprintf(t->name, sizeof(t->name), "%s", kj_str(t->root, "task", "?"));
	op = kj_str(t->root, "op", t->name);
	if (!strcmp(op, "attention_fwd"))
		t->op = KTRAJ_OP_ATTENTION_FWD;
	else if (!strcmp(op, "gemm"))
		t->op = KTRAJ_OP_GEMM;
	else if (!strcmp(op, "rmsnorm"))
		t->op = KTRAJ_OP_RMSNORM;
	else {
		snprintf(err, el, "unknown op '%s'", op);
		return -1;
	}
	t->reference = kj_str(t->root, "reference", "builtin");
	t->flops_formula = kj_str(t->root, "flops", "");
	t->bytes_formula = kj_str(t->root, "bytes", "");
	t->flops_scale = kj_num(t->root, "flops_scale", 1.0);
	t->input_sets = (int)kj_num(t->root, "input_sets", 5);
	if (t->input_sets < 2 || t->input_sets > KTH_MAX_SETS) {
		snprintf(err, el, "input_sets must be 2..%d", KTH_MAX_SETS);
		return -1;
	}
	tol_default(t);
	tol = kj_get(t->root, "tolerance");
	for (i = 0; tol && i < 3; i++) {
		static const char *const names[] = { "fp32", "fp16", "bf16" };
		const kj *d = kj_get(tol, names[i]);

		if (!d)
			continue;
		t->tol[i].atol = kj_num(d, "atol", t->tol[i].atol);
		t->tol[i].rtol = kj_num(d, "rtol", t->tol[i].rtol);
		t->tol[i].rel_l2 = kj_num(d, "rel_l2", t->tol[i].rel_l2);
	}
	sc = kj_get(t->root, "scenarios");
	if (!sc || sc->type != KJ_ARR || sc->n == 0) {
		snprintf(err, el, "spec has no scenarios");
		return -1;
	}
	t->scen = calloc(sc->n, sizeof(*t->scen));
	if (!t->scen) {
		snprintf(err, el, "out of memory");
		return -1;
	}
	for (e = sc->child; e; e = e->next) {
		struct kth_scenario *s = &t->scen[t->n];
		int64_t *d = s->dims;

		snprintf(s->name, sizeof(s->name), "%s", kj_str(e, "name", ""));
		if (!s->name[0])
			snprintf(s->name, sizeof(s->name), "s%d", t->n);
		s->dtype = dtype_of(kj_str(e, "dtype", "bf16"));
		s->causal = kj_bool(e, "causal", 0);
		s->dist = kj_str(e, "dist", "mixed");
		s->note = kj_str(e, "note", NULL);
		s->eps = (float)kj_num(e, "eps", 1e-6);
		switch (t->op) {
		case KTRAJ_OP_ATTENTION_FWD:
			d[0] = (int64_t)kj_num(e, "B", 1);
			d[1] = (int64_t)kj_num(e, "Hq", 1);
			d[2] = (int64_t)kj_num(e, "Hkv", (double)d[1]);
			d[3] = (int64_t)kj_num(e, "Sq", kj_num(e, "S", 0));
			d[4] = (int64_t)kj_num(e, "Sk", (double)d[3]);
			d[5] = (int64_t)kj_num(e, "D", 0);
			if (d[0] < 1 || d[1] < 1 || d[2] < 1 || d[1] % d[2] ||
			    d[3] < 1 || d[4] < 1 || d[5] < 32 || d[5] % 32 ||
			    d[5] > 256 || (s->causal && d[3] > d[4])) {
				snprintf(err, el, "scenario %s: bad attention shape",
					 s->name);
				return -1;
			}
			s->scale = (float)kj_num(e, "scale", 1.0 / __builtin_sqrt((double)d[5]));
			break;
		case KTRAJ_OP_GEMM:
			d[0] = (int64_t)kj_num(e, "M", 0);
			d[1] = (int64_t)kj_num(e, "N", 0);
			d[2] = (int64_t)kj_num(e, "K", 0);
			if (d[0] < 1 || d[1] < 1 || d[2] < 1) {
				snprintf(err, el, "scenario %s: bad gemm shape", s->name);
				return -1;
			}
			break;
		default:
			d[0] = (int64_t)kj_num(e, "rows", 0);
			d[1] = (int64_t)kj_num(e, "cols", 0);
			if (d[0] < 1 || d[1] < 1) {
				snprintf(err, el, "scenario %s: bad rmsnorm shape",
					 s->name);
				return -1;
			}
		}
		if (s->dtype < 0) {
			snprintf(err, el, "scenario %s: dtype must be bf16, fp16 or fp32",
				 s->name);
			return -1;
		}
		t->n++;
	}
	return 0;
}

/* Scenario selection: "3", "0-9", "*_causal_*", comma-separated. */
static int select_scen(const struct kth_task *t, const char *subset, int *sel)
{
	int n = 0, i;
	char *dup, *tok, *save = NULL;

	if (!subset || !*subset) {
		for (i = 0; i < t->n; i++)
			sel[n++] = i;
		return n;
	}
	char *mark = calloc((size_t)t->n, 1);

	dup = strdup(subset);
	if (!dup || !mark) {
		free(dup);
		free(mark);
		return -1;
	}
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int a, b, m = 0;
		char c;

		if (sscanf(tok, "%d-%d%c", &a, &b, &c) == 2) {
			for (i = a; i <= b && i < t->n; i++)
				if (i >= 0)
					mark[i] = 1, m++;
		} else if (sscanf(tok, "%d%c", &a, &c) == 1 && a >= 0 && a < t->n) {
			mark[a] = 1;
			m++;
		} else {
			for (i = 0; i < t->n; i++)
				if (!fnmatch(tok, t->scen[i].name, 0))
					mark[i] = 1, m++;
		}
		if (!m) {
			fprintf(stderr, "ktraj-harness: --scenarios: '%s' matches nothing\n",
				tok);
			free(dup);
			free(mark);
			return -1;
		}
	}
	for (i = 0; i < t->n; i++)
		if (mark[i])
			sel[n++] = i;
	free(dup);
	free(mark);
	return n;
}

static const char *dtype_name(int d)
{
	return d == KTRAJ_F32 ? "fp32" : d == KTRAJ_F16 ? "fp16" : "bf16";
}

static void list_scenarios(const struct kth_task *t)
{
	int i;
	kth_buf b;

	kb_init(&b);
	for (i = 0; i < t->n; i++) {
		const struct kth_scenario *s = &t->scen[i];

		b.n = 0;
		kb_printf(&b, "{\"index\":%d,\"scenario\":", i);
		kb_jstr(&b, s->name);
		kb_printf(&b, ",\"dtype\":\"%s\",\"causal\":%s,\"dims\":[%lld,%lld,%lld,%lld,%lld,%lld]}\n",
			  dtype_name(s->dtype), s->causal ? "true" : "false",
			  (long long)s->dims[0], (long long)s->dims[1],
			  (long long)s->dims[2], (long long)s->dims[3],
			  (long long)s->dims[4], (long long)s->dims[5]);
		fputs(b.s, stdout);
	}
	kb_free(&b);
}

/* ---- host facts ----------------------------------------------------------- */

static void first_line_of(const char *cmd, char *out, size_t n, int last)
{
	FILE *p = popen(cmd, "r");
	char line[512];

	snprintf(out, n, "unknown");
	if (!p)
		return;
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\r\n")] = 0;
		if (!line[0])
			continue;
		snprintf(out, n, "%s", line);
		if (!last)
			break;
	}
	pclose(p);
}

static void host_facts(struct kth_host *h, const char *nvcc)
{
	struct utsname u;
	char cmd[PATH_MAX + 64];
	FILE *f;

	memset(h, 0, sizeof(*h));
	snprintf(cmd, sizeof(cmd), "'%s' --version 2>/dev/null | grep -i release", nvcc);
	first_line_of(cmd, h->nvcc_version, sizeof(h->nvcc_version), 1);
	snprintf(cmd, sizeof(cmd), "'%s' --version 2>/dev/null",
		 getenv("KTH_PTXAS") ? getenv("KTH_PTXAS") : "ptxas");
	/* ptxas sits next to nvcc */
	{
		char p[PATH_MAX];
		const char *sl = strrchr(nvcc, '/');

		if (sl) {
			snprintf(p, sizeof(p), "%.*s/ptxas", (int)(sl - nvcc), nvcc);
			snprintf(cmd, sizeof(cmd), "'%s' --version 2>/dev/null | grep -i release", p);
		}
	}
	first_line_of(cmd, h->ptxas_version, sizeof(h->ptxas_version), 1);
	first_line_of("${NVCC_CCBIN:-c++} --version 2>/dev/null", h->host_cc,
		      sizeof(h->host_cc), 0);
	if (uname(&u) == 0)
		snprintf(h->kernel, sizeof(h->kernel), "%s %s %s", u.sysname,
			 u.release, u.machine);
	f = fopen("/etc/os-release", "r");
	if (f) {
		char line[256];

		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "PRETTY_NAME=", 12)) {
				line[strcspn(line, "\r\n")] = 0;
				snprintf(h->os, sizeof(h->os), "%s",
					 line + 12 + (line[12] == '"'));
				h->os[strcspn(h->os, "\"")] = 0;
			}
		fclose(f);
	}
}

/* ---- compile -------------------------------------------------------------- */

struct compiled {
	char so[PATH_MAX];
	int exit_code, cached, static_ok;
	char sha[65];
};

static int run_capture(char *const argv[], kth_buf *out, int timeout_s)
{
	int pfd[2], st = 0;
	pid_t pid;
	double t0 = now_ms();

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		setpgid(0, 0);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		struct pollfd p = { pfd[0], POLLIN, 0 };
		char buf[4096];
		ssize_t r;

		if (poll(&p, 1, 200) > 0) {
			r = read(pfd[0], buf, sizeof(buf));
			if (r <= 0)
				break;
			if (out->n < (1u << 20))
				kb_put(out, buf, (size_t)r);
		}
		if (now_ms() - t0 > timeout_s * 1e3) {
			kill(-pid, SIGKILL);
			kb_printf(out, "\nktraj-harness: compile killed after %d s\n",
				  timeout_s);
			break;
		}
	}
	close(pfd[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int copy_file(const char *from, const char *to)
{
	size_t len;
	char *d = kth_read_file(from, &len);
	FILE *f;
	int rc = -1;

	if (!d)
		return -1;
	f = fopen(to, "wb");
	if (f) {
		rc = fwrite(d, 1, len, f) == len ? 0 : -1;
		if (fclose(f))
			rc = -1;
	}
	free(d);
	return rc;
}

static int compile_timeout_s = 900;

static int compile(const char *role, const char *src, const char *nvcc,
		   const char *arch, const char *incdir, const char *workdir,
		   const char *cache, const struct kth_host *h,
		   struct compiled *c)
{
	char gencode[128], inc[PATH_MAX + 4], so_tmp[PATH_MAX];
	char *argv[32];
	int argc = 0, i, nbad = 0;
	kth_buf diag, line, bad, flags;
	size_t slen;
	char *text = kth_read_file(src, &slen);
	unsigned char dig[32];
	char src_sha[65];
	double t0;
	uint64_t key;

	memset(c, 0, sizeof(*c));
	kb_init(&diag);
	kb_init(&line);
	kb_init(&bad);
	kb_init(&flags);
	if (!text) {
		fprintf(stderr, "ktraj-harness: %s: %s\n", src, strerror(errno));
		return -1;
	}
	kth_sha256(text, slen, dig);
	kth_hex(dig, 32, src_sha);
	if (!strncmp(arch, "sm_", 3))
		snprintf(gencode, sizeof(gencode),
			 "-gencode=arch=compute_%s,code=%s", arch + 3, arch);
	else
		snprintf(gencode, sizeof(gencode), "-gencode=%s", arch);
	snprintf(inc, sizeof(inc), "-I%s", incdir);
	snprintf(so_tmp, sizeof(so_tmp), "%s/%s.so", workdir, role);
	argv[argc++] = (char *)nvcc;
	argv[argc++] = "-shared";
	argv[argc++] = "-Xcompiler";
	argv[argc++] = "-fPIC";
	argv[argc++] = "-O3";
	argv[argc++] = "-std=c++17";
	argv[argc++] = "-cudart";
	argv[argc++] = "shared";
	argv[argc++] = "-lineinfo";
	argv[argc++] = "-Xptxas";
	argv[argc++] = "-v";
	argv[argc++] = gencode;
	argv[argc++] = inc;
	argv[argc++] = "-o";
	argv[argc++] = so_tmp;
	argv[argc++] = (char *)src;
	argv[argc] = NULL;
	/* Cache key: source, every flag but the paths, and the nvcc version. */
	key = kth_fnv64(KTH_FNV_INIT, text, slen);
	for (i = 1; i < argc - 3; i++)
		if (strncmp(argv[i], "-I", 2))
			key = kth_fnv64(key, argv[i], strlen(argv[i]) + 1);
	key = kth_fnv64(key, h->nvcc_version, strlen(h->nvcc_version));
	for (i = 1; i < argc - 3; i++) {
		if (i > 1)
			kb_put(&flags, ",", 1);
		kb_jstr(&flags, argv[i]);
	}
	t0 = now_ms();
	if (cache) {
		char cp[PATH_MAX + 32];

		snprintf(cp, sizeof(cp), "%s/%016llx.so", cache,
			 (unsigned long long)key);
		if (access(cp, R_OK) == 0 && copy_file(cp, so_tmp) == 0) {
			c->cached = 1;
			kb_printf(&diag, "(cached object %s)\n", cp);
		}
	}
	if (!c->cached) {
		c->exit_code = run_capture(argv, &diag, compile_timeout_s);
		if (c->exit_code == 0 && cache) {
			char cp[PATH_MAX + 32];

			mkdir(cache, 0777);
			snprintf(cp, sizeof(cp), "%s/%016llx.so", cache,
				 (unsigned long long)key);
			copy_file(so_tmp, cp);
		}
	}
	snprintf(c->so, sizeof(c->so), "%s", so_tmp);
	if (c->exit_code == 0) {
		size_t ol;
		char *obj = kth_read_file(so_tmp, &ol);

		if (obj) {
			kth_sha256(obj, ol, dig);
			kth_hex(dig, 32, c->sha);
			free(obj);
		}
		if (kth_elf_check(so_tmp, &bad, &nbad))
			nbad = -1;
		c->static_ok = nbad == 0;
	}
	kb_put(&line, "{\"type\":\"compile\"", 17);
	kb_key(&line, "role");
	kb_jstr(&line, role);
	kb_key(&line, "source");
	kb_jstr(&line, src);
	kb_key(&line, "source_sha256");
	kb_jstr(&line, src_sha);
	kb_key(&line, "compiler");
	kb_jstr(&line, "nvcc");
	kb_key(&line, "version");
	kb_jstr(&line, h->nvcc_version);
	kb_key(&line, "ptxas");
	kb_jstr(&line, h->ptxas_version);
	kb_key(&line, "host_compiler");
	kb_jstr(&line, h->host_cc);
	kb_key(&line, "command");
	{
		kth_buf cmd;

		kb_init(&cmd);
		for (i = 0; i < argc; i++)
			kb_printf(&cmd, "%s%s", i ? " " : "", argv[i]);
		kb_jstr(&line, cmd.s);
		kb_free(&cmd);
	}
	kb_printf(&line, ",\"flags\":[%s]", flags.s ? flags.s : "");
	kb_key(&line, "arch");
	kb_jstr(&line, arch);
	kb_printf(&line, ",\"exit_code\":%d,\"duration_ms\":%.1f,\"cached\":%s",
		  c->exit_code, now_ms() - t0, c->cached ? "true" : "false");
	kb_key(&line, "output_sha256");
	kb_jstr(&line, c->exit_code == 0 && c->sha[0] ? c->sha : NULL);
	kb_key(&line, "diagnostics");
	kb_jstr_n(&line, diag.s ? diag.s : "", diag.n, 65536);
	if (c->exit_code == 0)
		kb_printf(&line, ",\"static_check\":{\"ok\":%s,\"forbidden\":[%s]}",
			  nbad == 0 ? "true" : "false", bad.s ? bad.s : "");
	kb_put(&line, "}\n", 2);
	fputs(line.s, stdout);
	fflush(stdout);
	kb_free(&diag);
	kb_free(&line);
	kb_free(&bad);
	kb_free(&flags);
	free(text);
	return c->exit_code == 0 ? 0 : -1;
}

/* ---- child processes -------------------------------------------------------- */

static int probe_device(char *cc, size_t n)
{
	int pfd[2], st;
	pid_t pid;
	ssize_t r;

	snprintf(cc, n, "none");
	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		_exit(kth_probe(pfd[1]));
	}
	close(pfd[1]);
	r = read(pfd[0], cc, n - 1);
	cc[r > 0 ? r : 0] = 0;
	if (r <= 0)
		snprintf(cc, n, "none");
	close(pfd[0]);
	waitpid(pid, &st, 0);
	return 0;
}

static long child_rss_mb(pid_t pid)
{
	char p[64], line[256];
	FILE *f;
	long kb = 0;

	snprintf(p, sizeof(p), "/proc/%d/status", (int)pid);
	f = fopen(p, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kb = atol(line + 6);
	fclose(f);
	return kb / 1024;
}

static void emit_status(const struct kth_task *t, int idx, const char *status,
			const char *reason)
{
	kth_buf b;

	kb_init(&b);
	kb_put(&b, "{\"type\":\"result\"", 16);
	kb_key(&b, "task");
	kb_jstr(&b, t->name);
	kb_key(&b, "scenario");
	kb_jstr(&b, t->scen[idx].name);
	kb_printf(&b, ",\"index\":%d", idx);
	kb_key(&b, "status");
	kb_jstr(&b, status);
	kb_put(&b, ",\"correct\":", 11);
	kb_put(&b, !strcmp(status, "rejected") ? "false" : "null",
	       !strcmp(status, "rejected") ? 5 : 4);
	kb_key(&b, "reason");
	kb_jstr(&b, reason);
	kb_printf(&b, ",\"harness_version\":\"%s\",\"protocol_version\":%d}\n",
		  KTH_VERSION, KTH_PROTOCOL_VERSION);
	fputs(b.s, stdout);
	fflush(stdout);
	kb_free(&b);
}

/* Run the selected scenarios, one child at a time; returns the number of
 * results that were not "ok". */
static int run_children(const struct kth_task *t, const struct kth_opts *o,
			const struct kth_host *h, const char *cand,
			const char *base, const int *sel, int nsel)
{
	int next = 0, notok = 0;

	while (next < nsel) {
		int pfd[2], st = 0, cur = -1, got_result = 1;
		pid_t pid;
		double t_start = now_ms();
		kth_buf acc;
		char why[256] = "";

		if (pipe(pfd))
			return nsel;
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			return nsel;
		if (pid == 0) {
			close(pfd[0]);
			_exit(kth_child(t, o, h, cand, base, sel, nsel, next,
					pfd[1]));
		}
		close(pfd[1]);
		kb_init(&acc);
		for (;;) {
			struct pollfd p = { pfd[0], POLLIN, 0 };
			char buf[65536];
			ssize_t r;
			int pr = poll(&p, 1, 100);

			if (pr > 0) {
				char *nl;

				r = read(pfd[0], buf, sizeof(buf));
				if (r <= 0)
					break;
				kb_put(&acc, buf, (size_t)r);
				while (acc.n && (nl = memchr(acc.s, '\n', acc.n))) {
					size_t ln = (size_t)(nl - acc.s) + 1;

					if (acc.s[0] == 'S') {
						cur = atoi(acc.s + 2);
						got_result = 0;
						t_start = now_ms();
					} else if (acc.s[0] == 'R') {
						*nl = 0;
						if (!strstr(acc.s, "\"status\":\"ok\""))
							notok++;
						*nl = '\n';
						fwrite(acc.s + 2, 1, ln - 2, stdout);
						fflush(stdout);
						got_result = 1;
						next = cur + 1;
					} else if (acc.s[0] == 'X') {
						/* fatal before any scenario */
						fwrite(acc.s + 2, 1, ln - 2, stdout);
						fflush(stdout);
					}
					memmove(acc.s, acc.s + ln, acc.n - ln);
					acc.n -= ln;
				}
			}
			if (cur >= 0 && !got_result &&
			    now_ms() - t_start > o->timeout_s * 1e3) {
				snprintf(why, sizeof(why),
					 "watchdog: no result after %d s; child killed",
					 o->timeout_s);
				kill(pid, SIGKILL);
				break;
			}
			if (child_rss_mb(pid) > o->mem_limit_mb) {
				snprintf(why, sizeof(why),
					 "watchdog: child resident memory over %ld MiB; killed",
					 o->mem_limit_mb);
				kill(pid, SIGKILL);
				break;
			}
		}
		close(pfd[0]);
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		kb_free(&acc);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 4)
			return -4;
		if (cur < 0) {
			/* died before its first scenario: do not loop forever */
			if (!why[0])
				snprintf(why, sizeof(why), "child failed at start (status %d)",
					 WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
			for (; next < nsel; next++, notok++)
				emit_status(t, sel[next], "runtime_error", why);
			break;
		}
		if (!got_result) {
			if (!why[0])
				snprintf(why, sizeof(why), "child died during the scenario (%s %d)",
					 WIFSIGNALED(st) ? "signal" : "exit status",
					 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
			emit_status(t, sel[cur], strstr(why, "no result") ? "timeout" :
				    "runtime_error", why);
			notok++;
			next = cur + 1;
		}
		/* sel[] holds indices; `next` counts positions in sel */
		if (next < nsel && got_result && WIFEXITED(st) &&
		    WEXITSTATUS(st) == 0)
			break; /* child finished everything it was given */
	}
	return notok;
}

/* ---- main ------------------------------------------------------------------ */

static const char *find_spec(const char *arg, char *buf, size_t n,
			     const char *self)
{
	const char *env = getenv("KTRAJ_KERNELS");
	char dir[PATH_MAX];
	const char *cands[4];
	int i, nc = 0;

	if (strchr(arg, '/') || strstr(arg, ".json"))
		return arg;
	snprintf(dir, sizeof(dir), "%s", self);
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = 0;
	else
		snprintf(dir, sizeof(dir), ".");
	if (env)
		cands[nc++] = env;
	cands[nc++] = "kernels";
	for (i = 0; i < nc; i++) {
		fmt(buf, n, "%s/tasks/%s.json", cands[i], arg);
		if (access(buf, R_OK) == 0)
			return buf;
	}
	/* build/harness/ktraj-harness -> ../../kernels */
	fmt(buf, n, "%s/../../kernels/tasks/%s.json", dir, arg);
	if (access(buf, R_OK) == 0)
		return buf;
	fmt(buf, n, "%s/../kernels/tasks/%s.json", dir, arg);
	return buf;
}

int main(int argc, char **argv)
{
	struct kth_opts o = { 0 };
	struct kth_task t;
	struct kth_host h;
	struct compiled cand = { 0 }, base = { 0 };
	char err[512], specbuf[PATH_MAX], incbuf[PATH_MAX], workdir[] =
		"/tmp/ktraj-harness.XXXXXX", cc[32], arch[32];
	const char *nvcc = getenv("NVCC");
	int i, *sel = NULL, nsel, rc = 0, list = 0, nbad;
	char nvcc_buf[PATH_MAX], cudnn_path[PATH_MAX] = "";
	const char *keep_so = NULL;
	int use_cudnn;

	o.budget_ms = 150;
	o.warmup_ms = 25;
	o.warmup_calls = 5;
	o.blocks = 6;
	o.min_samples = 3;
	o.max_samples = 200;
	o.timeout_s = 120;
	o.mem_limit_mb = 32768;
	o.seed = 0x6b7472616a0001ULL;
	o.throttle_frac = 0.75;
	o.bootstrap = 1000;
	o.sanity_gate = 1;
	o.cache_dir = getenv("KTRAJ_HARNESS_CACHE");
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int takes = 1;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(a, "--compile-only")) {
			o.compile_only = 1, takes = 0;
		} else if (!strcmp(a, "--no-timing")) {
			o.no_timing = 1, takes = 0;
		} else if (!strcmp(a, "--list")) {
			list = 1, takes = 0;
		} else if (!v) {
			return die_usage("option needs a value");
		} else if (!strcmp(a, "--task")) {
			o.spec = v;
		} else if (!strcmp(a, "--kernel")) {
			o.kernel = v;
		} else if (!strcmp(a, "--baseline")) {
			o.baseline = v;
		} else if (!strcmp(a, "--cudnn")) {
			o.cudnn = v;
		} else if (!strcmp(a, "--scenarios")) {
			o.subset = v;
		} else if (!strcmp(a, "--cache")) {
			o.cache_dir = v;
		} else if (!strcmp(a, "--arch")) {
			o.arch = v;
		} else if (!strcmp(a, "--include")) {
			o.include_dir = v;
		} else if (!strcmp(a, "--keep-so")) {
			keep_so = v;
		} else if (!strcmp(a, "--budget-ms")) {
			o.budget_ms = atof(v);
		} else if (!strcmp(a, "--warmup-ms")) {
			o.warmup_ms = atof(v);
		} else if (!strcmp(a, "--blocks")) {
			o.blocks = atoi(v);
		} else if (!strcmp(a, "--min-samples")) {
			o.min_samples = atoi(v);
		} else if (!strcmp(a, "--max-samples")) {
			o.max_samples = atoi(v);
		} else if (!strcmp(a, "--timeout")) {
			o.timeout_s = atoi(v);
		} else if (!strcmp(a, "--compile-timeout")) {
			compile_timeout_s = atoi(v) > 0 ? atoi(v) : 900;
		} else if (!strcmp(a, "--mem-limit-mb")) {
			o.mem_limit_mb = atol(v);
		} else if (!strcmp(a, "--seed")) {
			if (!strcmp(v, "random")) {
				FILE *f = fopen("/dev/urandom", "rb");

				if (!f || fread(&o.seed, sizeof(o.seed), 1, f) != 1)
					o.seed = (uint64_t)time(NULL);
				if (f)
					fclose(f);
			} else {
				o.seed = strtoull(v, NULL, 0);
			}
		} else {
			return die_usage("unknown option");
		}
		i += takes;
	}
	if (o.warmup_ms < 25)
		o.warmup_ms = 25;
	if (o.blocks < 2)
		o.blocks = 2;
	if (o.min_samples < 1)
		o.min_samples = 1;
	if (o.max_samples < o.min_samples)
		o.max_samples = o.min_samples;
	if (!o.spec)
		return die_usage("--task is required");
	o.spec = find_spec(o.spec, specbuf, sizeof(specbuf), argv[0]);
	if (load_spec(o.spec, &t, err, sizeof(err))) {
		fprintf(stderr, "ktraj-harness: %s: %s\n", o.spec, err);
		return 2;
	}
	if (list) {
		list_scenarios(&t);
		return 0;
	}
	if (!o.kernel)
		return die_usage("--kernel is required");
	/* a declared library baseline is not compiled and not checked for
	 * symbols: it is the library the claim names */
	use_cudnn = o.baseline && !strcmp(o.baseline, "cudnn");
	if (o.cudnn && !use_cudnn)
		return die_usage("--cudnn names the library of --baseline cudnn, which is not given");
	if (use_cudnn && t.op != KTRAJ_OP_ATTENTION_FWD) {
		fprintf(stderr, "ktraj-harness: --baseline cudnn: only for attention_fwd tasks (%s is not)\n",
			t.name);
		return 2;
	}
	if (use_cudnn) {
		const char *env = getenv("KTRAJ_CUDNN"),
			   *g = o.cudnn && *o.cudnn ? o.cudnn :
				!o.cudnn && env && *env ? env : NULL;
		int fr = kth_cudnn_find(o.cudnn, cudnn_path, sizeof(cudnn_path));

		if (fr == -2) {
			fprintf(stderr, "ktraj-harness: --baseline cudnn: %s%s is not a shared library (no ELF header)\n",
				cudnn_path, g == env ? " ($KTRAJ_CUDNN)" : "");
			return 2;
		}
		if (fr) {
			fprintf(stderr, "ktraj-harness: --baseline cudnn: libcudnn.so.9 not found%s%s%s (give --cudnn PATH or set KTRAJ_CUDNN)\n",
				g ? " at " : "", g ? g : "",
				g && g == env ? " ($KTRAJ_CUDNN)" : "");
			return 2;
		}
	}
	sel = calloc((size_t)t.n, sizeof(*sel));
	nsel = sel ? select_scen(&t, o.subset, sel) : -1;
	if (nsel <= 0)
		return 2;
	if (!o.include_dir) {
		char d[PATH_MAX];

		snprintf(d, sizeof(d), "%s", o.spec);
		if (strrchr(d, '/'))
			*strrchr(d, '/') = 0;
		else
			snprintf(d, sizeof(d), ".");
		fmt(incbuf, sizeof(incbuf), "%s/../include", d);
		o.include_dir = incbuf;
	}
	if (!nvcc) {
		nvcc = "/usr/local/cuda/bin/nvcc";
		if (access(nvcc, X_OK)) {
			first_line_of("command -v nvcc", nvcc_buf, sizeof(nvcc_buf), 0);
			nvcc = nvcc_buf;
		}
	}
	host_facts(&h, nvcc);
	probe_device(cc, sizeof(cc));
	if (o.arch)
		snprintf(arch, sizeof(arch), "%s", o.arch);
	else if (!strcmp(cc, "none") || !strcmp(cc, "90"))
		snprintf(arch, sizeof(arch), "sm_90a"); /* the H200 target */
	else
		fmt(arch, sizeof(arch), "sm_%s", cc);
	if (!mkdtemp(workdir)) {
		fprintf(stderr, "ktraj-harness: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	if (compile("candidate", o.kernel, nvcc, arch, o.include_dir, workdir,
		    o.cache_dir, &h, &cand)) {
		rc = 3;
		goto out;
	}
	if (keep_so && copy_file(cand.so, keep_so))
		fprintf(stderr, "ktraj-harness: --keep-so %s: %s\n", keep_so, strerror(errno));
	if (o.baseline && !use_cudnn && compile("baseline", o.baseline, nvcc, arch,
				  o.include_dir, workdir, o.cache_dir, &h, &base)) {
		rc = 3;
		goto out;
	}
	snprintf(h.compile_flags, sizeof(h.compile_flags), "-O3 -std=c++17 -cudart shared -lineinfo -gencode %s", arch);
	if (o.compile_only)
		goto out;
	if (!strcmp(cc, "none")) {
		printf("{\"type\":\"error\",\"error\":\"no CUDA device\",\"harness_version\":\"%s\"}\n",
		       KTH_VERSION);
		fprintf(stderr, "ktraj-harness: no CUDA device\n");
		rc = 4;
		goto out;
	}
	if (!cand.static_ok || (o.baseline && !use_cudnn && !base.static_ok)) {
		for (i = 0; i < nsel; i++)
			emit_status(&t, sel[i], "rejected",
				    "static check: the object uses forbidden symbols (see the compile record)");
		rc = 1;
		goto out;
	}
	nbad = run_children(&t, &o, &h, cand.so,
			    use_cudnn ? cudnn_path : o.baseline ? base.so : NULL,
			    sel, nsel);
	if (nbad == -4) {
		fprintf(stderr, "ktraj-harness: no CUDA device\n");
		rc = 4;
	} else {
		rc = nbad ? 1 : 0;
	}
out:
	unlink(cand.so);
	unlink(base.so);
	rmdir(workdir);
	free(sel);
	kj_free(t.root);
	free(t.scen);
	return rc;
}
