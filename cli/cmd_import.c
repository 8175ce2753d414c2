/*
 * cmd_import.c - `ktraj import`: files, folders, archives or stdin into the
 * store (the work is import/driver.c's kt_import_paths).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cli.h"
#include "outfmt.h"
#include "../import/import.h"

static const char usage[] =
	"usage: ktraj import [--format F] [--map MAP.json] [--strict] [--json]\n"
	"                    [--redact] [--max-size SIZE] [--max-ratio N]\n"
	"                    [--max-line SIZE] PATH...\n"
	"\n"
	"Import trajectories from files, folders (recursively), archives (tar,\n"
	"tar.gz, tar.zst, tar.xz, zip, Inspect .eval) or stdin (-).  The format\n"
	"is detected from the content; --format forces it.  Importing the same\n"
	"source again adds nothing; a grown log adds only its new events.\n"
	"Files a source names are looked up beside it, in the same folder or\n"
	"archive (Claude Code subagents/, ATIF sub-trajectories, a KernelBench\n"
	"baseline_time*.json, KernelAgent rounds); stdin has nothing beside it:\n"
	"pipe an archive of the folder instead (tar -c -C DIR . | ktraj import -).\n"
	"\n"
	"  --format F      treat every file as format F (list below)\n"
	"  --map MAP.json  read per-round JSON/JSONL records with a map: a JSON\n"
	"                  object naming, per ktraj field (run, step, parent, ts,\n"
	"                  time_ms, ref_time_ms, speedup, higher_is_better,\n"
	"                  correct, text, origin, workload, scenario, metric,\n"
	"                  baseline), the record's field (\"a.b\") or a constant\n"
	"                  ({\"const\": V}); README \"Custom round logs\"\n"
	"  --strict        stop at the first problem; nothing of that file is kept\n"
	"  --json          one JSON object per run: run, name, format, events, added\n"
	"                  (skipped files are reported on stderr only)\n"
	"  --redact        replace e-mails, user/host names and secrets first\n"
	"  --max-size SIZE bound on archive expansion and on stdin, FIFO or\n"
	"                  device input (default 4 GiB)\n"
	"  --max-ratio N   archive expansion bound as a ratio to its compressed\n"
	"                  size (default 200, never below 1 MiB)\n"	"  --max-line SIZE stdin, FIFO or device input: stop reading before the\n"
	"                  first line longer than SIZE (default 256M), import\n"
	"                  the lines before it and exit 1 (/dev/zero stops\n"
	"                  after SIZE bytes)\n"
	"  --stats         print CPU seconds on stderr at the end: the whole\n"
	"                  process, and the import split into store and importer;\n"
	"                  and how many events' actors the importer held in\n"
	"                  memory and moved to its temporary file\n"
	"SIZE is bytes, or a number with K, M, G or T (also KiB, MiB, GiB, TiB:\n"
	"powers of 1024), as 256M.\n"
	"\n"
	"Prints one line per run: id, events, added, format, name.  Problems are\n"
	"reported as `ktraj: import: file:line: what` and the exit code stays 0\n"
	"unless --strict; a path that is missing or cannot be read at all (or a\n"
	"stream over --max-size), or a source whose run another import is\n"
	"writing (`busy`), makes it 1, the other paths still imported.\n"
	"A file another process truncates while it is read stops the import:\n"
	"`ktraj: import: FILE: changed while it was read (truncated)`, exit 1,\n"
	"nothing of the interrupted file kept.\n"
	"Every JSON line or document must be RFC 8259 JSON (no bytes after the\n"
	"value, no raw control characters in strings, no numbers like 01 or\n"
	"1.; a byte order mark only at the start of a file): another is a\n"
	"problem and skipped.  A ktraj JSONL event naming a blob that no\n"
	"earlier blob line gave and the store does not hold is skipped too.\n"
	"A file of a folder or archive in no known format is\n"
	"reported as `ktraj: import: PATH: skipped: not a recognized trajectory\n"
	"format` (when one holds JSON, the --map hint below follows once at\n"
	"the end), one that is empty as `PATH: empty: nothing to import`.  An\n"
	"empty input named here (an empty or blank file, /dev/null, empty\n"
	"stdin) says the same, and a file named here in no known format `PATH:\n"
	"format not recognized` (per-round JSON records: `not a trajectory\n"
	"format ktraj knows; a per-round log can be read with --map MAP.json`):\n"
	"exit 1 unless another path imported a run, as for an empty folder\n"
	"or a folder whose files were all skipped.\n"
	"An archive cut off before any of its files\n"
	"could be read (a download cut short) is `PATH: cut off (...): nothing\n"
	"of it imported`: the rest is imported, exit 1.\n"
	"Ctrl-C finishes the file being imported, prints the\n"
	"lines of the runs done and exits 130 (again: stop at once; nothing of\n"
	"that file is kept).\n"
	"\n"
	"formats:\n";

/* Set by SIGINT; kt_import_paths then starts no further source.  The
 * handler resets itself, so a second Ctrl-C ends the process at once (LMDB
 * keeps nothing of an uncommitted transaction). */
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* SIGINT -> on_sigint, once, with restarting system calls (the store's
 * writes must not fail with EINTR); an ignored SIGINT (nohup, a background
 * job) stays ignored.  *old gets the disposition to restore. */
static void catch_sigint(struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sa.sa_flags = SA_RESTART | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, NULL, old) == 0 && old->sa_handler != SIG_IGN)
		sigaction(SIGINT, &sa, NULL);
}

/*
 * A big input file is read through a mapping of it (import/input.c: the
 * copy of read() costs more CPU than parsing), so a file truncated by
 * another process while it is imported makes the next touch of a page past
 * its new end raise SIGBUS.  The library cannot catch that: a signal
 * handler is the whole process's, and a program that links the library
 * owns its own.  The CLI owns its process, so it catches SIGBUS only
 * around the import: it names the file whose mapping faulted (from
 * /proc/self/maps) in one line and exits 1.  The store is as after a kill
 * at that moment: the open transaction is never committed, and a big
 * source's earlier batches are reclaimed by the next writer (FORMAT.md
 * §6.11).  A fault outside a file mapping is not ours to explain: the
 * handler resets itself and returns, and the fault kills the process as
 * before.  Other threads (parse-ahead, hash) read the same mapping and may
 * fault at the same moment: the handler stays installed for them (no
 * SA_RESETHAND, which let a second fault kill the process with SIGBUS
 * before the first handler's line), and only the first thread to fault
 * reads the maps, names the file and exits; the others wait for that
 * _exit.  A SIGBUS another process sends kills as it would without the
 * handler.  Everything here is async-signal-safe (open, read, write,
 * close, _exit, pause, raise, sigaction, sigemptyset, strlen, strcmp, a
 * lock-free atomic_flag).
 */
static atomic_flag sigbus_named = ATOMIC_FLAG_INIT;

static int hexval(const char **p, uintptr_t *out)
{
	uintptr_t v = 0;
	int n = 0;

	for (;; (*p)++, n++) {
		char ch = **p;

		if (ch >= '0' && ch <= '9')
			v = v << 4 | (uintptr_t)(ch - '0');
		else if (ch >= 'a' && ch <= 'f')
			v = v << 4 | (uintptr_t)(ch - 'a' + 10);
		else
			break;
	}
	*out = v;
	return n;
}

/* The file of the /proc/self/maps line `line` when it maps addr: its
 * pathname (from the first '/'), else NULL.  Lines read
 * "start-end perms offset dev inode   pathname". */
static const char *maps_file(const char *line, uintptr_t addr)
{
	uintptr_t lo, hi;
	const char *p = line;

	if (!hexval(&p, &lo) || *p++ != '-' || !hexval(&p, &hi) ||
	    addr < lo || addr >= hi)
		return NULL;
	while (*p && *p != '/')
		p++;
	return *p == '/' ? p : NULL;
}

static void put_err(const char *s, size_t n)
{
	while (n > 0) {
		ssize_t k = write(STDERR_FILENO, s, n);

		if (k <= 0)
			return;
		s += k;
		n -= (size_t)k;
	}
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	static char line[4352], chunk[4096];
	static const char head[] = "ktraj: import: ",
		tail[] = ": changed while it was read (truncated)\n";
	uintptr_t addr = (uintptr_t)si->si_addr;
	size_t n = 0;
	ssize_t k;
	int fd;

	(void)sig;
	(void)uc;
	/* sent by a process (kill -BUS), not a fault: it kills as by default,
	 * once this handler returns and unblocks it */
	if (si->si_code <= 0) {
		struct sigaction dfl = { .sa_handler = SIG_DFL };

		sigemptyset(&dfl.sa_mask);
		sigaction(SIGBUS, &dfl, NULL);
		raise(SIGBUS);
		return;
	}
	/* one thread at a time reads the maps into the static buffers: the
	 * first to fault; one faulting after it waits for its _exit, or for
	 * its fault to repeat under the default action */
	if (atomic_flag_test_and_set(&sigbus_named))
		for (;;)
			pause();
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	while (fd >= 0 && (k = read(fd, chunk, sizeof(chunk))) > 0) {
		for (ssize_t i = 0; i < k; i++) {
			const char *f;

			if (chunk[i] != '\n') {
				if (n < sizeof(line) - 1)
					line[n++] = chunk[i];
				continue;
			}
			line[n] = 0;
			n = 0;
			if (!(f = maps_file(line, addr)))
				continue;
			put_err(head, sizeof(head) - 1);
			/* a name is written terminal-safe, and a file
			 * deleted since is still the one that was read */
			for (char *q = (char *)f; *q; q++)
				if ((unsigned char)*q < 0x20 || *q == 0x7f)
					*q = '?';
			k = (ssize_t)strlen(f);
			if (k > 10 && !strcmp(f + k - 10, " (deleted)"))
				k -= 10;
			put_err(f, (size_t)k);
			put_err(tail, sizeof(tail) - 1);
			_exit(KT_EXIT_FAIL);
		}
	}
	if (fd >= 0)
		close(fd);
	/* not a file's page: SIGBUS default again, and the fault repeats */
	{
		struct sigaction dfl = { .sa_handler = SIG_DFL };

		sigemptyset(&dfl.sa_mask);
		sigaction(SIGBUS, &dfl, NULL);
	}
}


struct ctx {
	struct cli *c;
	int json;
	int progress_drawn;
	unsigned warned;
	unsigned long long skipped;
};

/* Erase the progress line, when one is drawn, before other output. */
static void progress_clear(struct ctx *x)
{
	if (x->progress_drawn) {
		fputs("\r\033[K", stderr);
		x->progress_drawn = 0;
	}
}

static void on_run(const char *id, const char *name, const char *format,
		   uint64_t events, uint64_t added, void *arg)
{
	struct ctx *x = arg;

	progress_clear(x);
	if (x->json) {
		printf("{\"run\":\"%s\",\"name\":", id);
		cli_json_str(stdout, name);
		printf(",\"format\":");
		cli_json_str(stdout, format);
		printf(",\"events\":%llu,\"added\":%llu}\n",
		       (unsigned long long)events, (unsigned long long)added);
	} else {
		printf("%s %6llu events %6llu added  %-12s %s\n", id,
		       (unsigned long long)events, (unsigned long long)added,
		       format, name);
	}
}

static void on_warn(const char *line, void *arg)
{
	struct ctx *x = arg;

	progress_clear(x);
	x->warned++;
	/* a warning quotes the input (a field, a name): terminal-safe */
	fprintf(stderr, "ktraj: %s: ", x->c->cmd);
	cli_put_safe(stderr, line, strlen(line));
	fputc('\n', stderr);
}

static void on_skip(const char *path, void *arg)
{
	struct ctx *x = arg;

	progress_clear(x);
	x->skipped++;
	/* stderr only: stdout under --json holds one object per run */
	fprintf(stderr, "ktraj: %s: %s: skipped: not a recognized trajectory format\n",
		x->c->cmd, path);
}

static void on_progress(uint64_t done, uint64_t total, void *arg)
{
	struct ctx *x = arg;
	int pct, i, w = 30;

	/* a bar only for inputs big enough to wait for */
	if (total < (4u << 20))
		return;
	if (done > total)
		done = total;
	pct = (int)(done * 100 / total);
	fputs("\rimporting [", stderr);
	for (i = 0; i < w; i++)
		fputc(i < pct * w / 100 ? '#' : ' ', stderr);
	fprintf(stderr, "] %3d%% %llu/%llu MB", pct,
		(unsigned long long)(done >> 20),
		(unsigned long long)(total >> 20));
	x->progress_drawn = 1;
}

int cmd_import(struct cli *c, int argc, char **argv)
{
	const char *map_path = NULL;
	kt_map *map = NULL;
	kt_import_opts o;
	struct sigaction old_int, old_bus;
	kt_import_stats st;
	struct ctx x;
	char **paths;
	int i, n = 0, rc, ex, want_stats = 0;
	kt_store *s = NULL;
	uint64_t v;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			const kt_importer *im;

			fputs(usage, stdout);
			for (size_t k = 0; (im = kt_importer_at(k)); k++)
				printf("  %-12s %s\n", im->name,
				       im->summary ? im->summary : "");
			return KT_EXIT_OK;
		}
	}
	memset(&o, 0, sizeof(o));
	memset(&x, 0, sizeof(x));
	x.c = c;
	paths = calloc((size_t)argc + 1, sizeof(*paths));
	if (!paths)
		return cli_err(c, "out of memory");
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			for (i++; i < argc; i++)
				paths[n++] = argv[i];
			break;
		}
		if (!strcmp(a, "--json")) {
			x.json = 1;
		} else if (!strcmp(a, "--strict")) {
			o.strict = 1;
		} else if (!strcmp(a, "--redact")) {
			o.redact = 1;
		} else if (!strcmp(a, "--stats")) {
			want_stats = 1;
		} else if (!strcmp(a, "--format") || !strncmp(a, "--format=", 9)) {
			o.format = a[8] == '=' ? a + 9 :
				   cli_has_value(argc, argv, i) ? argv[++i] : NULL;
			if (!o.format) {
				free(paths);
				return cli_usage(c, "%s needs a value", a);
			}
			if (!kt_importer_find(o.format)) {
				free(paths);
				return cli_usage(c, "unknown format '%s'", o.format);
			}
		} else if (!strcmp(a, "--map") || !strncmp(a, "--map=", 6)) {
			map_path = a[5] == '=' ? a + 6 :
				cli_has_value(argc, argv, i) ? argv[++i] : NULL;
			if (!map_path) {
				free(paths);
				return cli_usage(c, "%s needs a value", a);
			}
		} else if (!strcmp(a, "--max-line") &&
			   cli_has_value(argc, argv, i)) {
			if ((rc = cli_size_opt(c, a, argv[i + 1], 1, 1ull << 62, &o.max_line))) {
				free(paths);
				return rc;
			}
			i++;
		} else if (!strcmp(a, "--max-size") && cli_has_value(argc, argv, i)) {
			if ((rc = cli_size_opt(c, a, argv[i + 1], 1, UINT64_MAX, &o.max_total))) {
				free(paths);
				return rc;
			}
			i++;
		} else if (!strcmp(a, "--max-size") || !strcmp(a, "--max-ratio")) {
			int has = cli_has_value(argc, argv, i);

			if (!has || cli_u64(argv[i + 1], &v) || v == 0) {
				free(paths);
				return cli_usage(c, "%s needs a %s", a, !has ?
						 "value" : "positive number");
			}
			if (a[6] == 's')
				o.max_total = v;
			else
				o.max_ratio = v;
			i++;
		} else if (a[0] == '-' && a[1]) {
			free(paths);
			return cli_bad_option(c, usage, a);
		} else {
			paths[n++] = argv[i];
		}
	}
	if (n == 0) {
		free(paths);
		return cli_usage(c, "no PATH given (a file, folder, archive or -)");
	}
	/* the map importer reads nothing without one: a usage error, not
	 * a warning per file */
	if (!map_path && o.format && !strcmp(o.format, "map")) {
		free(paths);
		return cli_usage(c, "--format map needs --map MAP.json");
	}
	if (map_path) {
		char err[300], *mt;
		size_t ml = 0;
		int mrc;

		if (!(mt = cli_slurp(map_path, &ml))) {
			int e = errno; /* cli_slurp's; free may change it */

			free(paths);
			return cli_err(c, "%s: cannot read the map: %s", map_path,
				       strerror(e));
		}
		mrc = kt_map_parse(mt, ml, &map, err, sizeof(err));
		free(mt);
		if (mrc) {
			free(paths);
			return mrc == KT_EPARSE ? cli_usage(c, "%s:%s", map_path, err)
						: cli_err(c, "out of memory");
		}
		o.map = map;
		if (!o.format)
			o.format = "map";
	}
#ifdef __GLIBC__
	/* An import allocates and frees buffers of 128 KiB to a few MiB per
	 * event (zstd contexts, payload text, LMDB pages): from the heap they
	 * are reused; above glibc's mmap threshold each one is a fresh mapping
	 * whose pages fault in again (~25 % fewer page faults, 5-10 % less
	 * CPU on tests/bench/import_claude.sh). */
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
	/* the batch size of big sources, the ids an importer holds before
	 * it spills them, the workspace's bytes (README "Store location"):
	 * tests make small files commit in batches and spill with them.
	 * Checked before the store opens: a bad one creates nothing. */
	if ((rc = cli_env_size(c, "KTRAJ_IMPORT_BATCH", "a size", 1,
			       1ull << 50, &o.batch)) ||
	    (rc = cli_env_size(c, "KTRAJ_IMPORT_IDS", "a number", 1,
			       1ull << 40, &o.ids)) ||
	    (rc = cli_env_size(c, "KTRAJ_IMPORT_WS", "a size", 1,
			       1ull << 50, &o.ws_bytes))) {
		free(paths);
		kt_map_free(map);
		return rc;
	}
	rc = cli_open(c, KT_OPEN_BULK, &s);
	if (rc) {
		free(paths);
		kt_map_free(map);
		return rc;
	}
	o.progress = c->progress;
	o.on_run = on_run;
	o.on_warn = on_warn;
	o.on_skip = on_skip;
	o.on_progress = on_progress;
	o.arg = &x;
	memset(&st, 0, sizeof(st));
	if (want_stats)
		o.stats = &st;
	o.stop = &interrupted;
	catch_sigint(&old_int);
	{
		/* SIGBUS -> on_sigbus until restored from old_bus */
		struct sigaction sa = { .sa_flags = SA_SIGINFO };

		sa.sa_sigaction = on_sigbus;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGBUS, &sa, &old_bus);
	}
	rc = kt_import_paths(s, paths, n, &o);
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGINT, &old_int, NULL);
	if (x.progress_drawn)
		fputs("\r\033[K", stderr);
	free(paths);
	ex = KT_EXIT_OK;
	if (interrupted) {
		cli_err(c, "interrupted: the file being imported was finished, the rest not read");
		ex = 128 + SIGINT;
	} else if (rc == KT_EPARSE && o.strict)
		/* the line of the first problem said it: one line, as the
		 * help says; this one only when no line said anything */
		ex = x.warned ? KT_EXIT_FAIL :
			cli_err(c, "stopped at the first problem (--strict)");
	else if (rc == KT_ELIMIT)
		ex = cli_err(c, "an archive exceeded the expansion bound (--max-size/--max-ratio)");
	else if (rc == KT_EBUSY)
		/* the line of each source refused said which run is busy */
		ex = x.warned ? KT_EXIT_FAIL :
			cli_err(c, "another import is writing the same run: run it again when it ends");
	else if (rc == KT_ENOTFOUND)
		/* the line of each path that could not be read said it */
		ex = x.warned || x.skipped ? KT_EXIT_FAIL :
			cli_err(c, "some paths could not be read");
	else if (rc && kt_store_nospace(s))
		/* the line of the source it stopped at said it, once */
		ex = KT_EXIT_FAIL;
	else if (rc)
		/* "stopped", not "import": the line reads "ktraj: import: ...".
		 * The line of the source that failed gave the store's detail;
		 * after an importer's own failure (its temporary file) what
		 * the store says is an older message, not the cause */
		ex = cli_store_err(c, x.warned ? NULL : s, rc, "stopped");
	kt_map_free(map);
	rc = kt_store_close(s);
	if (rc && ex == KT_EXIT_OK)
		ex = cli_store_err(c, NULL, rc, "close");
	if (want_stats) {
		struct rusage ru;
		double proc = 0;

		if (getrusage(RUSAGE_SELF, &ru) == 0)
			proc = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
				(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
		fprintf(stderr, "import stats: %llu bytes, %llu events, %llu blob puts; "
			"CPU s: process %.3f, import %.3f = store %.3f + importer %.3f\n",
			(unsigned long long)st.bytes,
			(unsigned long long)st.events,
			(unsigned long long)st.blobs, proc, st.total_ns / 1e9,
			st.store_ns / 1e9, (st.total_ns - st.store_ns) / 1e9);
		fprintf(stderr, "import stats: event actors held %llu, "
			"spilled %llu\n", (unsigned long long)st.actor_ring,
			(unsigned long long)st.actors_spilled);
	}
	return ex;
}
