/*
 * cmd_bench.c - `ktraj bench`: list the harness tasks, or run ktraj-harness
 * (harness/) on a candidate kernel and record its compile and bench events
 * into a run.  The harness is a separate program built with the CUDA Toolkit
 * alone; this command only finds it, reads its NDJSON (harness/README.md
 * "Output") and stores what it says.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "outfmt.h"

static const char usage[] =
	"usage: ktraj bench --list [--json]\n"
	"       ktraj bench --task NAME|SPEC.json --kernel FILE.cu [--scenarios LIST]\n"
	"                   [--baseline FILE.cu|cudnn [--cudnn PATH]] [--record RUN] [--json]\n"
	"                   [-- HARNESS-ARGS]\n"
	"\n"
	"--list prints the harness tasks: name, scenario count and the sample\n"
	"kernels (kernels/ is found from $KTRAJ_KERNELS, next to the ktraj binary,\n"
	"or in the current directory).\n"
	"\n"
	"Otherwise runs ktraj-harness (next to ktraj, in build/harness/,\n"
	"$KTRAJ_HARNESS, or built on the fly with nvcc) on FILE.cu: compile with\n"
	"nvcc, static check, correctness on seeded input sets, timing against the\n"
	"task's reference (or --baseline) with L2 flushes, interleaved blocks and\n"
	"a bootstrap interval of the speedup.  --baseline cudnn times cuDNN's\n"
	"fused attention instead (libcudnn.so.9 from --cudnn PATH, $KTRAJ_CUDNN or\n"
	"its usual homes), checked like the candidate.  LIST selects scenarios by index,\n"
	"range a-b or name glob, comma-separated.  Arguments after -- go to the\n"
	"harness as they are (e.g. --budget-ms 400).  With --record RUN the compile\n"
	"and every scenario's result are appended to run RUN (an existing run's\n"
	"full id or name, not an id prefix; else a new run named RUN, identity\n"
	"\"bench:RUN\"); the candidate source is stored as a blob.  --json prints\n"
	"one object per scenario with scenario, status, correct, time_ms, speedup,\n"
	"tflops and the environment fingerprint.  Without a CUDA device the\n"
	"kernel is still compiled (and the compile recorded), then the command\n"
	"fails with \"no CUDA device\".\n";

/* ---- locating kernels/ and the harness ------------------------------------ */

static void exe_dir(char *out, size_t n)
{
	ssize_t r = readlink("/proc/self/exe", out, n - 1);

	if (r <= 0) {
		snprintf(out, n, ".");
		return;
	}
	out[r] = 0;
	if (strrchr(out, '/'))
		*strrchr(out, '/') = 0;
}

/* Bounded copy (a truncated path just fails to open later). */
static void cpy(char *out, size_t n, const char *s)
{
	size_t l = strlen(s);

	if (l >= n)
		l = n - 1;
	memcpy(out, s, l);
	out[l] = 0;
}

static int is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* kernels/ directory (holding tasks/), or -1. */
static int find_kernels(char *out, size_t n)
{
	const char *env = getenv("KTRAJ_KERNELS");
	char d[PATH_MAX], p[PATH_MAX + 64];
	static const char *const rel[] = { "/../kernels", "/kernels",
		"/../share/ktraj/kernels", "/../../kernels" };
	size_t i;

	if (env && *env) {
		snprintf(p, sizeof(p), "%s/tasks", env);
		if (is_dir(p)) {
			cpy(out, n, env);
			return 0;
		}
	}
	exe_dir(d, sizeof(d));
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(p, sizeof(p), "%s%s/tasks", d, rel[i]);
		if (is_dir(p)) {
			snprintf(p, sizeof(p), "%s%s", d, rel[i]);
			if (!realpath(p, out))
				cpy(out, n, p);
			return 0;
		}
	}
	if (is_dir("kernels/tasks") && realpath("kernels", out))
		return 0;
	return -1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int bench_list(struct cli *c, int json)
{
	char kd[PATH_MAX], td[PATH_MAX + 8];
	DIR *dir;
	struct dirent *e;
	char *names[256];
	int n = 0, i, rc = 0;

	if (find_kernels(kd, sizeof(kd)))
		return cli_err(c, "kernels/ not found (set KTRAJ_KERNELS to the kernels directory)");
	snprintf(td, sizeof(td), "%s/tasks", kd);
	dir = opendir(td);
	if (!dir)
		return cli_err(c, "%s: %s", td, strerror(errno));
	while ((e = readdir(dir)) && n < 256) {
		size_t l = strlen(e->d_name);

		if (l > 5 && !strcmp(e->d_name + l - 5, ".json"))
			names[n++] = strdup(e->d_name);
	}
	closedir(dir);
	if (n > 1) /* names is NULL when the folder is empty */
		qsort(names, (size_t)n, sizeof(names[0]), cmp_str);
	if (!json)
		printf("%-16s %9s  %s\n", "TASK", "SCENARIOS", "KERNELS");
	for (i = 0; i < n; i++) {
		char path[PATH_MAX * 2];
		char *txt;
		cJSON *spec, *ks, *k, *sc;
		const cJSON *task;

		if (!names[i])
			continue;
		snprintf(path, sizeof(path), "%s/%s", td, names[i]);
		txt = cli_slurp(path, NULL);
		spec = txt ? cJSON_Parse(txt) : NULL;
		free(txt);
		task = cJSON_GetObjectItem(spec, "task");
		if (!cJSON_IsString(task)) {
			fprintf(stderr, "ktraj: bench: %s: not a task spec (skipped)\n", path);
			cJSON_Delete(spec);
			continue;
		}
		sc = cJSON_GetObjectItem(spec, "scenarios");
		ks = cJSON_GetObjectItem(spec, "kernels");
		if (json) {
			fputs("{\"task\":", stdout);
			cli_json_str(stdout, task->valuestring);
			fputs(",\"spec\":", stdout);
			cli_json_str(stdout, path);
			printf(",\"scenarios\":%d,\"kernels\":[", cJSON_GetArraySize(sc));
		} else {
			printf("%-16s %9d  ", task->valuestring, cJSON_GetArraySize(sc));
		}
		int first = 1;
		cJSON_ArrayForEach(k, ks) {
			char kp[PATH_MAX * 2 + 16], rp[PATH_MAX];

			if (!cJSON_IsString(k))
				continue;
			snprintf(kp, sizeof(kp), "%s/%s", td, k->valuestring);
			if (!realpath(kp, rp))
				cpy(rp, sizeof(rp), kp);
			if (json) {
				if (!first)
					fputc(',', stdout);
				cli_json_str(stdout, rp);
			} else {
				printf("%s%s", first ? "" : " ", rp);
			}
			first = 0;
		}
		if (json) {
			fputs("],\"description\":", stdout);
			cli_json_str(stdout, cJSON_GetStringValue(cJSON_GetObjectItem(spec, "description")));
			fputs("}\n", stdout);
		} else {
			fputc('\n', stdout);
		}
		cJSON_Delete(spec);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	return rc;
}

/* The ktraj-harness binary; builds it into a temp dir when only sources
 * and nvcc are at hand.  0 or -1. */
static int find_harness(char *out, size_t n, const char *kernels)
{
	const char *env = getenv("KTRAJ_HARNESS");
	char d[PATH_MAX], p[PATH_MAX + 64], cmd[PATH_MAX * 5];
	static const char *const rel[] = { "/ktraj-harness", "/harness/ktraj-harness",
		"/../build/harness/ktraj-harness" };
	size_t i;

	if (env && access(env, X_OK) == 0) {
		cpy(out, n, env);
		return 0;
	}
	exe_dir(d, sizeof(d));
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", d, rel[i]);
		if (access(p, X_OK) == 0) {
			cpy(out, n, p);
			return 0;
		}
	}
	if (access("build/harness/ktraj-harness", X_OK) == 0 &&
	    realpath("build/harness/ktraj-harness", out))
		return 0;
	/* build on the fly from <kernels>/../harness */
	if (kernels) {
		const char *tmp = getenv("TMPDIR");

		snprintf(p, sizeof(p), "%s/../harness/Makefile", kernels);
		if (access(p, R_OK))
			return -1;
		snprintf(out, n, "%s/ktraj-harness-build-%d", tmp && *tmp ? tmp : "/tmp",
			 (int)getuid());
		/* the build's output goes to a log the error names, so the
		 * error stays one line */
		snprintf(cmd, sizeof(cmd),
			 "mkdir -p '%s' && NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc); "
			 "[ -x \"$NVCC\" ] && make -s -C '%s/../harness' NVCC=\"$NVCC\" B='%s' >'%s/build.log' 2>&1",
			 out, kernels, out, out);
		if (system(cmd) != 0)
			return -1;
		strncat(out, "/ktraj-harness", n - strlen(out) - 1);
		return access(out, X_OK);
	}
	return -1;
}

/* ---- recording ------------------------------------------------------------ */

struct rec {
	struct cli *c;
	kt_store *s;
	const char *name;
	cJSON *meta;             /* of the run, when it is created */
	char run[KT_RUN_ID_HEX + 1];
	uint64_t n;              /* events in the run */
	uint64_t compile_seq;
};

/* The run --record NAME names (an existing run, else a new one created
 * with the first event). */
static int rec_open(struct rec *r, const char *name, const char *task,
		    const char *kernel)
{
	int rc, exists;

	rc = cli_open(r->c, 0, &r->s);
	if (rc)
		return rc;
	rc = cli_record_run(r->c, r->s, name, "bench", r->run, &exists);
	if (rc)
		return rc;
	r->name = name;
	r->meta = cJSON_CreateObject();
	if (!r->meta ||
	    !cJSON_AddStringToObject(r->meta, "task", task) ||
	    !cJSON_AddStringToObject(r->meta, "kernel", kernel))
		return cli_err(r->c, "out of memory");
	return 0;
}

/* Append one event (own transaction, so a long sweep never holds the write
 * lock and a crash keeps what was measured).  `blob` goes into the payload
 * as its hash under blob_key. */
static int rec_event(struct rec *r, int kind, uint64_t parent, cJSON *payload,
		     const char *blob, size_t blen, const char *blob_hint,
		     const char *blob_key, uint64_t *seq)
{
	kt_rec_event e;
	int rc;

	kt_rec_event_init(&e, kind, "harness", parent, payload);
	e.blob = blob;
	e.blob_len = blen;
	e.blob_hint = blob_hint;
	e.blob_key = blob_key;
	e.new_name = r->name;
	e.new_source = "bench";
	e.new_meta = r->meta;
	rc = kt_record(r->s, r->run, &e);
	if (rc)
		return cli_store_err(r->c, r->s, rc, "recording");
	r->n = e.run_events;
	if (seq)
		*seq = e.seq;
	return 0;
}

/* compile line of the harness -> compile event payload (brief schema) */
static int rec_compile(struct rec *r, cJSON *line, const char *kernel)
{
	cJSON *p = cJSON_Duplicate(line, 1), *srcs;
	const char *diag = cJSON_GetStringValue(cJSON_GetObjectItem(line, "diagnostics"));
	char cwd[PATH_MAX];
	int rc;

	cJSON_DeleteItemFromObject(p, "type");
	cJSON_DeleteItemFromObject(p, "diagnostics");
	if (getcwd(cwd, sizeof(cwd)))
		cJSON_AddStringToObject(p, "cwd", cwd);
	srcs = cJSON_AddArrayToObject(p, "sources");
	cJSON_AddItemToArray(srcs, cJSON_CreateString(kernel));
	if (cJSON_GetObjectItem(line, "output_sha256"))
		cJSON_AddItemToObject(p, "output_hash",
			cJSON_Duplicate(cJSON_GetObjectItem(line, "output_sha256"), 1));
	if (cJSON_GetObjectItem(line, "source_sha256"))
		cJSON_AddItemToObject(p, "source_hash",
			cJSON_Duplicate(cJSON_GetObjectItem(line, "source_sha256"), 1));
	rc = rec_event(r, KT_KIND_COMPILE, 0, p, diag, diag ? strlen(diag) : 0,
		       NULL, "diagnostics_blob", &r->compile_seq);
	cJSON_Delete(p);
	return rc;
}

static int rec_result(struct rec *r, cJSON *line, const char *spec,
		      const char *task, int standard_task, const char *src,
		      size_t srclen, const char *kernel)
{
	cJSON *p = cJSON_Duplicate(line, 1), *h, *chk, *w;
	const char *scen = cJSON_GetStringValue(cJSON_GetObjectItem(line, "scenario"));
	char cmd[PATH_MAX + 512];
	int rc;

	cJSON_DeleteItemFromObject(p, "type");
	cJSON_AddStringToObject(p, "workload", task);
	chk = cJSON_GetObjectItem(p, "check");
	w = cJSON_GetObjectItem(chk, "worst");
	if (w)
		cJSON_AddItemToObject(p, "error", cJSON_Duplicate(w, 1));
	cJSON_AddStringToObject(p, "candidate_path", kernel);
	h = cJSON_AddObjectToObject(p, "harness");
	cJSON_AddStringToObject(h, "task", task);
	cJSON_AddStringToObject(h, "spec", spec);
	if (scen)
		cJSON_AddStringToObject(h, "scenario", scen);
	/* how a replay bundle (harness/, kernels/ and workspace/candidate.cu)
	 * re-runs exactly this scenario */
	if (standard_task && scen) {
		snprintf(cmd, sizeof(cmd),
			 "make -s -C harness NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc) B=$PWD/build/harness >&2 && "
			 "build/harness/ktraj-harness --task kernels/tasks/%s.json --kernel workspace/candidate.cu --scenarios '%s'",
			 task, scen);
		cJSON_AddStringToObject(h, "bundle_command", cmd);
	}
	rc = rec_event(r, KT_KIND_BENCH, r->compile_seq, p, src, srclen, kernel,
		       "candidate_blob", NULL);
	cJSON_Delete(p);
	return rc;
}

/* ---- output ---------------------------------------------------------------- */

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static void print_row(cJSON *line, int json, uint64_t seq)
{
	static const char *const keep[] = { "scenario", "index", "status", "correct",
		"reason", "flags", "time_ms", "min_ms", "max_ms", "n", "ref_time_ms",
		"speedup", "speedup_ci", "tflops", "gbps", "reference",
		"fingerprint_id", "fingerprint", NULL };
	int i;

	if (json) {
		cJSON *o = cJSON_CreateObject();

		for (i = 0; keep[i]; i++) {
			cJSON *v = cJSON_GetObjectItem(line, keep[i]);

			if (v)
				cJSON_AddItemToObject(o, keep[i], cJSON_Duplicate(v, 1));
		}
		if (cJSON_GetObjectItem(line, "check"))
			cJSON_AddItemToObject(o, "error", cJSON_Duplicate(
				cJSON_GetObjectItem(cJSON_GetObjectItem(line, "check"), "worst"), 1));
		if (seq)
			cJSON_AddNumberToObject(o, "seq", (double)seq);
		cli_put_json(o);
		return;
	}
	printf("%-40s %-16s %10.4f %10.4f %8.3f %8.1f\n",
	       cJSON_GetStringValue(cJSON_GetObjectItem(line, "scenario")),
	       cJSON_GetStringValue(cJSON_GetObjectItem(line, "status")),
	       num(line, "time_ms"), num(line, "ref_time_ms"),
	       num(line, "speedup"), num(line, "tflops"));
}

/* ---- run ------------------------------------------------------------------- */

/* What was written to f (from its start), NUL-terminated; NULL if none. */
static char *read_all(FILE *f)
{
	char *buf;
	long n;

	if (!f || fflush(f) || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET) || !(buf = malloc((size_t)n + 1)))
		return NULL;
	n = (long)fread(buf, 1, (size_t)n, f);
	buf[n] = 0;
	return buf;
}

/* The first non-empty line of the harness's stderr s without its
 * "ktraj-harness: " prefix, into buf; *rest is what follows it. */
static const char *first_line(const char *s, char *buf, size_t n,
			      const char **rest)
{
	size_t l;

	*rest = "";
	if (!s)
		return "(it said nothing)";
	s += strspn(s, "\n");
	if (!*s)
		return "(it said nothing)";
	if (!strncmp(s, "ktraj-harness: ", 15))
		s += 15;
	l = strcspn(s, "\n");
	snprintf(buf, n, "%.*s", (int)l, s);
	*rest = s + l + (s[l] == '\n');
	return buf;
}

int cmd_bench(struct cli *c, int argc, char **argv)
{
	const char *task = NULL, *kernel = NULL, *subset = NULL, *record = NULL;
	const char *baseline = NULL, *cudnn = NULL;
	int json = 0, list = 0, i, nextra = 0, rc = 0, hrc = -1, pfd[2];
	int results = 0, notok = 0, nodev = 0, compile_failed = 0, standard = 0;
	char **extra = NULL, kd[PATH_MAX], spec[PATH_MAX * 2], hb[PATH_MAX];
	char taskname[256] = "";
	struct rec r = { 0 };
	char *src = NULL, *hargv[64];
	size_t srclen = 0;
	pid_t pid;
	FILE *in;
	char *line = NULL, *diag = NULL, *herr = NULL, msg[512];
	const char *hrest;
	size_t cap = 0;
	ssize_t len;
	int st;
	FILE *errf = NULL;

	if (cli_wants_help(argc, argv, usage))
		return KT_EXIT_OK;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			extra = argv + i + 1;
			nextra = argc - i - 1;
			break;
		} else if (!strcmp(a, "--list")) {
			list = 1;
		} else if (!strcmp(a, "--json")) {
			json = 1;
		} else if (strcmp(a, "--task") && strcmp(a, "--kernel") &&
			   strcmp(a, "--scenarios") && strcmp(a, "--record") &&
			   strcmp(a, "--baseline") && strcmp(a, "--cudnn")) {
			return cli_usage(c, "unknown option '%s'", a);
		} else if (!cli_has_value(argc, argv, i)) {
			return cli_usage(c, "%s needs a value", a);
		} else if (!strcmp(a, "--task")) {
			task = argv[++i];
		} else if (!strcmp(a, "--kernel")) {
			kernel = argv[++i];
		} else if (!strcmp(a, "--scenarios")) {
			subset = argv[++i];
		} else if (!strcmp(a, "--record")) {
			record = argv[++i];
		} else if (!strcmp(a, "--cudnn")) {
			cudnn = argv[++i];
		} else {
			baseline = argv[++i];
		}
	}
	if (list)
		return bench_list(c, json);
	if (!task || !kernel)
		return cli_usage(c, "--task and --kernel are required (or --list)");
	if (cudnn && (!baseline || strcmp(baseline, "cudnn")))
		return cli_usage(c, "--cudnn names the library of --baseline cudnn, "
				 "which is not given");
	if (nextra > 40)
		return cli_usage(c, "too many harness arguments");
	if (access(kernel, R_OK))
		return cli_err(c, "%s: %s", kernel, strerror(errno));
	src = cli_slurp(kernel, &srclen);
	if (!src)
		return cli_err(c, "%s: %s", kernel, strerror(errno));
	/* task: a spec path, or a name under kernels/tasks */
	if (strchr(task, '/') || strstr(task, ".json")) {
		if (!realpath(task, spec)) {
			rc = cli_err(c, "%s: %s", task, strerror(errno));
			goto out;
		}
	} else {
		if (find_kernels(kd, sizeof(kd))) {
			rc = cli_err(c, "kernels/ not found (set KTRAJ_KERNELS)");
			goto out;
		}
		snprintf(spec, sizeof(spec), "%s/tasks/%s.json", kd, task);
		if (access(spec, R_OK)) {
			rc = cli_err(c, "no task '%s' (see `ktraj bench --list`)", task);
			goto out;
		}
		standard = 1;
	}
	{
		char *txt = cli_slurp(spec, NULL);
		cJSON *sj = txt ? cJSON_Parse(txt) : NULL;
		const char *tn = cJSON_GetStringValue(cJSON_GetObjectItem(sj, "task"));

		snprintf(taskname, sizeof(taskname), "%s", tn ? tn : task);
		cJSON_Delete(sj);
		free(txt);
		if (!tn) {
			rc = cli_err(c, "%s: not a task spec", spec);
			goto out;
		}
	}
	{
		char kdir[PATH_MAX];
		char *kdp = NULL;

		if (!find_kernels(kdir, sizeof(kdir)))
			kdp = kdir;
		hb[0] = 0;
		if (find_harness(hb, sizeof(hb), kdp)) {
			char log[PATH_MAX + 16];

			snprintf(log, sizeof(log), "%s/build.log", hb);
			if (kdp && access(log, R_OK) == 0)
				rc = cli_err(c, "ktraj-harness not found and could not be built (its build output is in %s; set KTRAJ_HARNESS)",
					     log);
			else
				rc = cli_err(c, "ktraj-harness not found and could not be built (needs nvcc; set KTRAJ_HARNESS)");
			goto out;
		}
	}
	if (record) {
		r.c = c;
		rc = rec_open(&r, record, taskname, kernel);
		if (rc)
			goto out;
	}
	{
		int n = 0;

		hargv[n++] = hb;
		hargv[n++] = "--task";
		hargv[n++] = spec;
		hargv[n++] = "--kernel";
		hargv[n++] = (char *)kernel;
		if (subset) {
			hargv[n++] = "--scenarios";
			hargv[n++] = (char *)subset;
		}
		if (baseline) {
			hargv[n++] = "--baseline";
			hargv[n++] = (char *)baseline;
		}
		if (cudnn) {
			hargv[n++] = "--cudnn";
			hargv[n++] = (char *)cudnn;
		}
		for (i = 0; i < nextra; i++)
			hargv[n++] = extra[i];
		hargv[n] = NULL;
	}
	fflush(stdout);
	/* the harness's stderr is kept aside and shown after our one-line
	 * error (a file, not a pipe: nothing to drain while reading stdout) */
	errf = tmpfile();
	if (!errf) {
		rc = cli_err(c, "tmpfile: %s", strerror(errno));
		goto out;
	}
	if (pipe(pfd)) {
		rc = cli_err(c, "pipe: %s", strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		rc = cli_err(c, "fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		dup2(pfd[1], 1);
		dup2(fileno(errf), 2);
		close(pfd[0]);
		close(pfd[1]);
		execv(hb, hargv);
		fprintf(stderr, "ktraj: bench: %s: %s\n", hb, strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	in = fdopen(pfd[0], "r");
	while (in && (len = getline(&line, &cap, in)) > 0) {
		cJSON *o = cJSON_Parse(line);
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(o, "type"));
		uint64_t seq = 0;

		if (!type) {
			cJSON_Delete(o);
			continue;
		}
		if (!strcmp(type, "compile")) {
			const cJSON *ec = cJSON_GetObjectItem(o, "exit_code");

			if (!cJSON_IsNumber(ec) || ec->valueint != 0)
				compile_failed = 1;
			/* the baseline's compile is recorded too, but results
			 * hang off the candidate's */
			if (record && !rc) {
				uint64_t keep = r.compile_seq;
				const char *role = cJSON_GetStringValue(
					cJSON_GetObjectItem(o, "role"));
				int is_base = role && !strcmp(role, "baseline");

				rc = rec_compile(&r, o, is_base ? baseline : kernel);
				if (is_base)
					r.compile_seq = keep;
			}
			if (compile_failed && !diag) {
				const char *d = cJSON_GetStringValue(cJSON_GetObjectItem(o, "diagnostics"));

				if (d)
					diag = strdup(d);
			}
		} else if (!strcmp(type, "error")) {
			const char *e = cJSON_GetStringValue(cJSON_GetObjectItem(o, "error"));

			if (e && strstr(e, "no CUDA device"))
				nodev = 1;
		} else if (!strcmp(type, "result")) {
			const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(o, "status"));

			results++;
			if (!s || strcmp(s, "ok"))
				notok++;
			if (record && !rc) {
				rc = rec_result(&r, o, spec, taskname, standard, src, srclen, kernel);
				seq = r.n;
			}
			if (!json && results == 1)
				printf("%-40s %-16s %10s %10s %8s %8s\n", "SCENARIO",
				       "STATUS", "TIME_MS", "REF_MS", "SPEEDUP", "TFLOP/S");
			print_row(o, json, seq);
			fflush(stdout);
		}
		cJSON_Delete(o);
	}
	free(line);
	if (in)
		fclose(in);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	hrc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	herr = read_all(errf);
	if (rc)
		goto out;
	/* One line says what went wrong; what the compiler or the harness
	 * printed follows it. */
	hrest = herr ? herr : "";
	if (nodev || hrc == 4) {
		rc = cli_err(c, "no CUDA device: the kernel was compiled%s, nothing was run",
			     record ? " (compile recorded)" : "");
		hrest = ""; /* it said "no CUDA device" */
	} else if (compile_failed || hrc == 3) {
		rc = cli_err(c, "%s: compilation failed%s", kernel,
			     diag ? " (compiler output follows)" : "");
		if (diag)
			fprintf(stderr, "%s%s", diag,
				*diag && diag[strlen(diag) - 1] != '\n' ? "\n" : "");
	} else if (hrc == 2) {
		rc = cli_err(c, "the harness refused the arguments or the spec: %s",
			     first_line(herr, msg, sizeof(msg), &hrest));
		hrest = ""; /* its usage text */
	} else if (hrc > 4 || results == 0) {
		rc = cli_err(c, "the harness failed (exit status %d, %d results): %s",
			     hrc, results, first_line(herr, msg, sizeof(msg), &hrest));
	} else if (notok) {
		rc = cli_err(c, "%d of %d scenarios not ok", notok, results);
	}
	fputs(hrest, stderr);
out:
	free(diag);
	free(herr);
	if (errf)
		fclose(errf);
	if (r.s)
		kt_store_close(r.s);
	cJSON_Delete(r.meta);
	free(src);
	return rc;
}
