/*
 * main.c - the ktraj command: global options, the command table, dispatch.
 * Each command lives in cli/cmd_<name>.c (see commands.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli.h"
#include "../replay/replay.h"

#ifndef KT_VERSION
#define KT_VERSION "0.1.0"
#endif

struct cmd {
	const char *name;
	int (*fn)(struct cli *, int, char **);
	unsigned flags;
	const char *summary;
};

static const struct cmd cmds[] = {
#define X(name, flags, summary) { #name, cmd_##name, flags, summary },
#include "commands.h"
#undef X
};

static const char usage_head[] =
	"usage: ktraj [--store PATH] [--no-progress] <command> [<args>]\n"
	"\n"
	"Record, import, verify, replay and analyze trajectories of AI agents\n"
	"that optimize GPU kernels.\n"
	"\n"
	"The store is --store PATH, else $KTRAJ_STORE, else ./" KT_DEFAULT_STORE
	"\n(created by init, import, append, hook, bench and replay --collect;\n"
	"the other commands need it).\n"
	"$KTRAJ_CACHE_MB sets the cache of decompressed event blocks (MiB,\n"
	"default 64; 0 turns it off).  $KTRAJ_SCAN_THREADS (0-3) bounds the\n"
	"helper threads that decompress ahead of a long scan (default: one\n"
	"fewer than the CPUs ktraj may use, at most 3, none below 3 CPUs).\n"
	"RUN is a run id, a unique prefix of one (4+ hex chars), or a run name.\n"
	"Read commands take --json for NDJSON output, one object per line.\n"
	"\n"
	"commands:\n";

static const char usage_tail[] =
	"\n"
	"exit codes: 0 ok, 1 failure, 2 usage error, 3 corruption: a bad hash\n"
	"or chain found by verify, export, blame, stalls, report or questions\n"
	"suggest, or damaged store pages or records met by any command\n"
	"(README \"Exit codes\"), 4 not found, 130 import interrupted (Ctrl-C).\n"
	"`ktraj <command> --help` describes a command.\n";

static void usage(FILE *f)
{
	size_t i;

	fputs(usage_head, f);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
	fputs(usage_tail, f);
}

int cli_err(const struct cli *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ktraj: %s: ", c && c->cmd ? c->cmd : "error");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return KT_EXIT_FAIL;
}

int cli_usage(const struct cli *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ktraj: %s: ", c && c->cmd ? c->cmd : "usage");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see `ktraj %s --help`)\n",
		c && c->cmd ? c->cmd : "help");
	return KT_EXIT_USAGE;
}

int cli_exit_code(int err)
{
	switch (err) {
	case KT_OK: return KT_EXIT_OK;
	case KT_ENOTFOUND: return KT_EXIT_NOTFOUND;
	case KT_ECORRUPT: return KT_EXIT_CORRUPT;
	case KT_EINVAL: return KT_EXIT_USAGE;
	default: return KT_EXIT_FAIL;
	}
}

int cli_store_err(const struct cli *c, kt_store *s, int err, const char *what)
{
	const char *detail = s ? kt_store_errmsg(s) : "";

	/* exit 3 is for damage: a lock-less reader's failed check while
	 * another process wrote the store is not (kt_store_changed) */
	if (err == KT_ECORRUPT && kt_store_changed(s))
		err = KT_ECHANGED;

	if (detail && *detail)
		cli_err(c, "%s: %s: %s", what, kt_strerror(err), detail);
	else
		cli_err(c, "%s: %s", what, kt_strerror(err));
	return cli_exit_code(err);
}

/* LMDB's meta page: a 16-byte page header, then mm_magic = MDB_MAGIC
 * 0xBEEFC0DE (liblmdb mdb.c, struct MDB_meta; little-endian here). */
static int has_lmdb_magic(const char *path)
{
	static const unsigned char magic[4] = { 0xde, 0xc0, 0xef, 0xbe };
	unsigned char b[20];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return 0;
	n = fread(b, 1, sizeof(b), f);
	fclose(f);
	return n == sizeof(b) && !memcmp(b + 16, magic, 4);
}

/* kt_store_open refused c->store_path with rc: say why in words a user can
 * act on (the store only knows "I/O error" or "corrupt data" for a missing
 * folder, a folder or a file that is no store). */
static int open_failed(struct cli *c, int rc)
{
	const char *p = c->store_path;
	struct stat st;

	if (stat(p, &st) != 0) {
		int e = errno;
		const char *sl = strrchr(p, '/');

		/* the folder it would go in is what is missing */
		if (e == ENOENT && sl && sl != p) {
			char *dir = strndup(p, (size_t)(sl - p));

			if (dir && stat(dir, &st) != 0)
				e = errno;
			else if (dir && access(dir, W_OK) != 0)
				e = errno; /* the folder is there, not writable */
			free(dir);
		}
		cli_err(c, "cannot create store %s: %s", p, strerror(e));
		return KT_EXIT_FAIL;
	}
	if (S_ISDIR(st.st_mode)) {
		cli_err(c, "%s is a directory", p);
		return KT_EXIT_FAIL;
	}
	if (rc == KT_ERDONLY) {
		cli_err(c, "cannot write the store %s: %s", p,
			access(p, W_OK) != 0 ? "the file is not writable" :
			"its folder or file system is read-only (the lock "
			"file cannot be written)");
		return KT_EXIT_FAIL;
	}
	/* a damaged store keeps its magic: that stays corrupt (exit 3) */
	if (rc == KT_ECORRUPT && !has_lmdb_magic(p)) {
		/* nothing was written to it, and no lock file made beside it */
		cli_err(c, "%s is not a ktraj store (%s; give another --store "
			"or KTRAJ_STORE)", p, st.st_size == 0 ?
			"an empty file, which may belong to another program" :
			"not an LMDB file");
		return KT_EXIT_FAIL;
	}
	{
		/* e.g. another program's LMDB file: "PATH: not a ktraj store
		 * (no 'meta' database)" */
		const char *why = kt_store_open_errmsg();

		if (*why && !strncmp(why, p, strlen(p)))
			cli_err(c, "%s", why);
		else if (*why)
			cli_err(c, "%s: %s: %s", p, kt_strerror(rc), why);
		else
			cli_err(c, "%s: %s", p, kt_strerror(rc));
		/* the wrong file, not a damaged store (README exit codes) */
		if (strstr(why, "not a ktraj store"))
			return KT_EXIT_FAIL;
	}
	return cli_exit_code(rc);
}

/*
 * Commands check LMDB's own pages before LMDB reads them (KT_OPEN_CHECK)
 * when the store is at most this big: LMDB trusts its pages, and a damaged
 * one crashed `ls` or `search` instead of ending in one error line, and
 * aborted `append` and `import` inside LMDB (or let them write over pages
 * in use).  The check reads every page in use (~3 ms for the 30 MB
 * benchmark store); a writer checks once, at open.  Bigger stores are left
 * to `ktraj verify`.
 */
#define CLI_CHECK_MAX ((off_t)256 << 20)

int cli_open(struct cli *c, unsigned flags, kt_store **s)
{
	struct stat st;
	int rc;

	int create = (c->flags & KT_CMD_CREATES) && !(flags & CLI_OPEN_EXISTING);

	flags &= ~CLI_OPEN_EXISTING;
	flags |= c->flags & KT_CMD_WRITES ? KT_OPEN_CREATE : KT_OPEN_RDONLY;
	if (stat(c->store_path, &st) == 0 && st.st_size <= CLI_CHECK_MAX)
		flags |= KT_OPEN_CHECK;
	const char *cm = getenv("KTRAJ_CACHE_MB");
	unsigned long long mb = 0;
	char *end = NULL;

	/* checked first: a bad value must not leave a store behind */
	if (cm && *cm) {
		errno = 0;
		mb = strtoull(cm, &end, 10);
		if (errno || *end || *cm == '-' || mb > (1ull << 20)) {
			cli_err(c, "KTRAJ_CACHE_MB must be a number of MiB "
				"(0 to 1048576), not '%.40s'", cm);
			return KT_EXIT_USAGE;
		}
	}
	const char *ts = getenv("KTRAJ_SCAN_THREADS");
	long nth = -1;

	if (ts && *ts) {
		nth = ts[0] - '0';
		if (ts[1] || nth < 0 || nth > 3) {
			cli_err(c, "KTRAJ_SCAN_THREADS must be 0 to 3, not "
				"'%.40s'", ts);
			return KT_EXIT_USAGE;
		}
	}
	/* kt_threads_for (base/) reads only "1"; anything else took the
	 * default silently, so a typo is refused here as the others are */
	const char *th = getenv("KTRAJ_THREADS");
	uint64_t thr = 0;

	if (th && *th && (cli_u64(th, &thr) || thr < 1 || thr > 1024)) {
		cli_err(c, "KTRAJ_THREADS must be a number of threads from 1 "
			"to 1024 (1: one thread), not '%.40s'", th);
		return KT_EXIT_USAGE;
	}
	/* a writer that may not create the store (hide RUN, replay RUN)
	 * still opens it with KT_OPEN_CREATE, so that a store it cannot
	 * write is refused, not opened read-only: it must be there first.
	 * Else `hide abcd` made an empty store and its lock file, then said
	 * "no run 'abcd'". */
	if ((c->flags & KT_CMD_WRITES) && !create &&
	    stat(c->store_path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR))
		rc = KT_ENOTFOUND;
	else
		rc = kt_store_open(c->store_path, flags, s);
	/* a store behind a folder we may not enter is there, not missing */
	if (rc == KT_ENOTFOUND && stat(c->store_path, &st) != 0 &&
	    errno == EACCES) {
		cli_err(c, "cannot open the store %s: %s", c->store_path,
			strerror(EACCES));
		return KT_EXIT_FAIL;
	}
	if (rc == KT_ENOTFOUND) {
		cli_err(c, "no store at %s (run `ktraj init` or `ktraj import`, or set --store / KTRAJ_STORE)",
			c->store_path);
		return KT_EXIT_NOTFOUND;
	}
	if (rc)
		return open_failed(c, rc);
	if (cm && *cm)
		kt_store_set_cache(*s, (size_t)mb << 20);
	if (nth >= 0)
		kt_store_set_scan_threads(*s, (int)nth);
	return 0;
}

/* The runs a spec that did not resolve to one run may mean: ids it
 * abbreviates and names it equals or begins */
struct cands {
	const char *spec;
	size_t sl, n, nname;      /* matches; of them, by name prefix */
	char id[KT_RUN_ID_HEX + 1]; /* the name-prefix match, when one */
	char shown[512];          /* "<id12> <name>, ..." of the first few */
};

static int cand_cb(const kt_run_info *ri, void *arg)
{
	struct cands *x = arg;
	const char *name = ri->name ? ri->name : "";
	int by_id = !strncasecmp(ri->id, x->spec, x->sl);
	int by_name = !strncmp(name, x->spec, x->sl);
	size_t used = strlen(x->shown);

	if (!by_id && !by_name)
		return 0;
	if (by_name && !by_id) {
		x->nname++;
		memcpy(x->id, ri->id, sizeof(x->id));
	}
	if (++x->n <= 4 && used < sizeof(x->shown) - 1)
		snprintf(x->shown + used, sizeof(x->shown) - used, "%s%.12s %.60s",
			 used ? ", " : "", ri->id, name);
	return 0;
}

int cli_run(struct cli *c, kt_store *s, const char *spec,
	    char out[KT_RUN_ID_HEX + 1])
{
	struct cands x = { spec, strlen(spec), 0, 0, "", "" };
	int rc = kt_run_resolve(s, spec, out);

	/* a name prefix works as an id prefix does: when it is unique */
	if (rc == KT_ENOTFOUND && x.sl && kt_run_foreach(s, cand_cb, &x) == 0 &&
	    x.n == 1 && x.nname == 1) {
		rc = kt_run_resolve(s, x.id, out); /* checks its record */
		return rc ? cli_run_failed(c, s, spec, rc) : 0;
	}
	return rc ? cli_run_failed(c, s, spec, rc) : 0;
}

int cli_open_run(struct cli *c, const char *spec, kt_store **s,
		 char run[KT_RUN_ID_HEX + 1])
{
	int rc;

	*s = NULL;
	if ((rc = cli_open(c, spec ? CLI_OPEN_EXISTING : 0, s)))
		return rc;
	return spec ? cli_run(c, s[0], spec, run) : 0;
}

int cli_run_failed(struct cli *c, kt_store *s, const char *spec, int rc)
{
	struct cands x = { spec, strlen(spec), 0, 0, "", "" };
	size_t i;
	int hex = x.sl > 0;

	for (i = 0; i < x.sl; i++)
		hex &= isxdigit((unsigned char)spec[i]) != 0;
	/* kt_run_resolve refuses "" as KT_EINVAL, which alone read
	 * "ktraj: log: : invalid argument" (an unset shell variable) */
	if (!x.sl && rc == KT_EINVAL)
		return cli_usage(c, "RUN is empty: give a run id, a unique "
				 "prefix of it (4+ characters) or a name "
				 "(`ktraj ls` lists them)");
	if (rc == KT_ENOTFOUND || rc == KT_EAMBIG)
		kt_run_foreach(s, cand_cb, &x);
	if (rc == KT_ENOTFOUND && x.n > 1) {
		rc = KT_EAMBIG;
	} else if (rc == KT_ENOTFOUND && hex && x.sl < 4) {
		cli_err(c, "no run '%s': an id prefix needs 4 or more characters (see `ktraj ls`)",
			spec);
		return KT_EXIT_USAGE;
	}
	if (rc == KT_ENOTFOUND) {
		cli_err(c, "no run '%s' (see `ktraj ls`)", spec);
		return KT_EXIT_NOTFOUND;
	}
	if (rc == KT_EAMBIG) {
		/* as git lists the candidates of an ambiguous abbreviation */
		cli_err(c, "'%s' matches several runs: %s%s; give more of the id",
			spec, x.shown, x.n > 4 ? ", ..." : "");
		return KT_EXIT_USAGE;
	}
	return cli_store_err(c, s, rc, spec);
}

/* Whether opt at p (in usage_text) stands as a token of its own followed
 * by one space and a value: a token that is not another option nor a
 * bracket ("KIND", "FILE.cu", "jsonl|atif"). */
static int opt_with_value(const char *usage_text, const char *p, size_t n)
{
	const char *q = p + n;

	return (p == usage_text || strchr(" [|", p[-1])) && q[0] == ' ' &&
	       q[1] && !strchr("-[]| \n", q[1]);
}

/* Whether usage_text shows opt with a value: anywhere in its synopsis
 * (the lines up to the first blank one), or opening an indented line of
 * its option list ("  --cache DIR   where ..."); not in running text. */
static int takes_value(const char *usage_text, const char *opt)
{
	const char *syn = strstr(usage_text, "\n\n"), *p = usage_text;
	size_t n = strlen(opt);

	if (!syn)
		syn = usage_text + strlen(usage_text);
	while ((p = strstr(p, opt))) {
		const char *b = p;

		while (b > usage_text && b[-1] == ' ')
			b--;
		if ((p < syn || (b > usage_text && b[-1] == '\n' && b < p)) &&
		    opt_with_value(usage_text, p, n))
			return 1;
		p += n;
	}
	return 0;
}

int cli_bad_option(const struct cli *c, const char *usage_text,
		   const char *opt)
{
	if (strcmp(opt, "--") && takes_value(usage_text, opt))
		return cli_usage(c, "%s needs a value", opt);
	return cli_usage(c, "unknown option '%s'", opt);
}

int cli_has_value(int argc, char **argv, int i)
{
	const char *v;

	if (i < 0 || i + 1 >= argc)
		return 0;
	v = argv[i + 1];
	return v[0] != '-' || !v[1] || (v[1] >= '0' && v[1] <= '9') ||
	       (v[1] == '.' && v[2] >= '0' && v[2] <= '9');
}

int cli_negnum(const char *arg)
{
	/* the same test as cli_has_value's for a value that starts with '-' */
	return arg && arg[0] == '-' && ((arg[1] >= '0' && arg[1] <= '9') ||
		(arg[1] == '.' && arg[2] >= '0' && arg[2] <= '9'));
}

int cli_bad_step(const struct cli *c, const char *opt, const char *arg)
{
	return cli_usage(c, "%s%sa step is a sequence number >= 1, not '%s'",
			 opt ? opt : "", opt ? ": " : "", arg);
}

int cli_no_step(const struct cli *c, const char *run, uint64_t seq,
		uint64_t n)
{
	cli_err(c, "run %.12s has no step %llu (it has %llu event%s)", run,
		(unsigned long long)seq, (unsigned long long)n,
		n == 1 ? "" : "s");
	return KT_EXIT_NOTFOUND;
}

/* "a, b or c" of the NULL-terminated valid into list (cut to n) */
static void join_or(char *list, size_t n, const char *const *valid)
{
	size_t i, k = 0;

	list[0] = 0;
	for (i = 0; valid[i] && k < n; i++)
		k += (size_t)snprintf(list + k, n - k, "%s%s",
				      !i ? "" : valid[i + 1] ? ", " : " or ",
				      valid[i]);
}

int cli_bad_subcommand(const struct cli *c, const char *sub,
		       const char *const *valid)
{
	char list[256];

	join_or(list, sizeof(list), valid);
	return cli_usage(c, "unknown subcommand '%s' (valid: %s)", sub, list);
}

int cli_bad_kind(const struct cli *c, const char *name)
{
	const char *kinds[KT_KIND_MAX_ + 1];
	char list[256];
	int k, n = 0;

	for (k = 1; k <= KT_KIND_MAX_; k++)
		if (kt_kind_name(k))
			kinds[n++] = kt_kind_name(k);
	kinds[n] = NULL;
	join_or(list, sizeof(list), kinds);
	return cli_usage(c, "unknown kind '%s' (valid: %s)", name, list);
}

int cli_wants_help(int argc, char **argv, const char *usage_text)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage_text, stdout);
			return 1;
		}
	}
	return 0;
}

int cli_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	/* a digit first: strtoull would take leading blanks and a sign,
	 * so " 2" passed where "2 " did not */
	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int cli_size(const char *s, uint64_t *out)
{
	static const char units[] = "KMGT";
	const char *u;
	char *end;
	unsigned long long v;
	int shift = 0;

	if (!s || !isdigit((unsigned char)*s)) /* as cli_u64 */
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	if (*end && (u = strchr(units, *end & ~0x20))) {
		shift = 10 * (int)(u - units + 1);
		end++;
		if (!strcmp(end, "iB") || !strcmp(end, "B") || !strcmp(end, "b"))
			end += strlen(end);
	}
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

/* n as the shortest of "N", "NK", "NM", "NG", "NT" that is exact */
static void size_text(uint64_t n, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (u < 3 && n && !(n & 1023)) {
		n >>= 10;
		u++;
	}
	snprintf(buf, len, "%llu%.*s", (unsigned long long)n, u >= 0, u >= 0 ? units + u : "");
}

int cli_size_opt(const struct cli *c, const char *opt, const char *v, uint64_t min,
		 uint64_t max, uint64_t *out)
{
	char lo[32], hi[32];
	uint64_t n;

	if (!cli_size(v, &n) && n >= min && n <= max) {
		*out = n;
		return 0;
	}
	size_text(min, lo, sizeof(lo));
	size_text(max, hi, sizeof(hi));
	return cli_usage(c, "%s: bad size '%s': bytes, or with K, M, G or T (also KiB, MiB, "
			 "GiB, TiB: powers of 1024), from %s to %s", opt, v, lo, hi);
}

int cli_env_size(const struct cli *c, const char *name, const char *what,
		 uint64_t min, uint64_t max, uint64_t *out)
{
	const char *v = getenv(name);
	char lo[32], hi[32];
	uint64_t n;

	if (!v || !*v)
		return 0;
	if (!cli_size(v, &n) && n >= min && n <= max) {
		*out = n;
		return 0;
	}
	size_text(min, lo, sizeof(lo));
	size_text(max, hi, sizeof(hi));
	cli_err(c, "%s must be %s from %s to %s (K, M, G or T: powers of "
		"1024), not '%.40s'", name, what, lo, hi, v);
	return KT_EXIT_USAGE;
}

char *cli_slurp(const char *path, size_t *len)
{
	struct kt_buf b = {0};
	int rc = kt_buf_read_file(&b, path), e;
	char *t;

	if (rc) {
		/* KT_ENOTFOUND and KT_EIO keep fopen's or fread's errno */
		e = rc == KT_ENOMEM ? ENOMEM : errno ? errno : EIO;
		kt_buf_free(&b);
		errno = e;
		return NULL;
	}
	if (len)
		*len = b.len;
	if (!(t = kt_buf_take(&b)))
		errno = ENOMEM;
	return t;
}

void cli_json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	fputc('"', f);
	for (; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

int main(int argc, char **argv)
{
	struct cli c = { 0 };
	const char *store = NULL;
	char **args;
	int i, n = 0, rc;
	size_t k;

	c.progress = isatty(2);
	/* import/'s table keeps a place for the replay-result importer,
	 * which replay/ owns (import/registry.c): every command that imports
	 * (import, replay --plan) detects result.json with it */
	(void)kt_replay_register();
	args = calloc((size_t)argc + 1, sizeof(*args));
	if (!args) {
		fputs("ktraj: out of memory\n", stderr);
		return KT_EXIT_FAIL;
	}
	/* --store and --no-progress are global and accepted anywhere before
	 * "--", so `ktraj log RUN --store x` works as users expect. */
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			for (; i < argc; i++)
				args[n++] = argv[i];
			break;
		}
		if (!strcmp(argv[i], "--store")) {
			if (!cli_has_value(argc, argv, i)) {
				fputs("ktraj: --store needs a path\n", stderr);
				free(args);
				return KT_EXIT_USAGE;
			}
			store = argv[++i];
		} else if (!strncmp(argv[i], "--store=", 8)) {
			store = argv[i] + 8;
		} else if (!strcmp(argv[i], "--no-progress")) {
			c.progress = 0;
		} else {
			args[n++] = argv[i];
		}
	}
	c.store_path = kt_store_default_path(store);
	if (n == 0 || !strcmp(args[0], "help") || !strcmp(args[0], "--help") ||
	    !strcmp(args[0], "-h")) {
		if (n >= 2 && strcmp(args[0], "help") == 0) {
			/* `ktraj help CMD` == `ktraj CMD --help` */
			args[0] = args[1];
			args[1] = "--help";
			n = 2;
		} else {
			usage(n == 0 ? stderr : stdout);
			free(args);
			return n == 0 ? KT_EXIT_USAGE : KT_EXIT_OK;
		}
	}
	if (!strcmp(args[0], "--version") || !strcmp(args[0], "version")) {
		printf("ktraj %s (store format %u)\n", KT_VERSION, KT_FORMAT_VERSION);
		free(args);
		return KT_EXIT_OK;
	}
	/* `ktraj --json import ...`: --json is every read command's, so a
	 * --json before the command is taken as one after it; another
	 * option there is refused with where it goes */
	if (n >= 2 && !strcmp(args[0], "--json")) {
		args[0] = args[1];
		args[1] = "--json";
	} else if (args[0][0] == '-' && args[0][1]) {
		fprintf(stderr, "ktraj: '%s' is not a ktraj command: options go "
			"after the command (ktraj <command> %s ...; see `ktraj "
			"--help`)\n", args[0], args[0]);
		free(args);
		return KT_EXIT_USAGE;
	}
	for (k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++) {
		if (strcmp(args[0], cmds[k].name) == 0) {
			c.cmd = cmds[k].name;
			c.flags = cmds[k].flags;
			errno = 0;
			rc = cmds[k].fn(&c, n, args);
			free(args);
			/* output lost on a full disk or a closed stdout is
			 * a failure: `ktraj log RUN > /dev/full` said
			 * nothing and exited 0 */
			if ((fflush(stdout) != 0 || ferror(stdout)) && !rc)
				rc = cli_err(&c, "writing the output: %s",
					     errno ? strerror(errno) :
					     "I/O error");
			return rc;
		}
	}
	fprintf(stderr, "ktraj: '%s' is not a ktraj command (see `ktraj --help`)\n",
		args[0]);
	free(args);
	return KT_EXIT_USAGE;
}
