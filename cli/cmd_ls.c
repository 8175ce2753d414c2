/* cmd_ls.c - `ktraj ls`: the runs of the store, newest first. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "../export/export.h"
#include "../import/import.h"
#include "outfmt.h"

static const char usage[] =
	"usage: ktraj ls [--sort KEY] [--reverse] [--format F] [--name GLOB]\n"
	"                [--since WHEN] [--all] [--json]\n"
	"\n"
	"List the runs of the store: id, events, format, creation time, name;\n"
	"newest first.\n"
	"--sort KEY     created (newest first, the default), name (A-Z),\n"
	"               events (most first), format (A-Z) or id\n"
	"--reverse      the other way round\n"
	"--format F     only runs of format F (an importer name, `append`,\n"
	"               `bench`: what the FORMAT column shows); a name that\n"
	"               no run has and nothing writes is a usage error\n"
	"--name GLOB    only runs whose name matches the shell pattern GLOB\n"
	"               (`--name 'gpt-5/*'`)\n"
	"--since WHEN   only runs created at or after WHEN: a date or time\n"
	"               (2026-11-30, 2026-11-30T14:00Z; UTC when no zone is\n"
	"               given) or an age (90m, 12h, 7d)\n"
	"--all          hidden runs too (`ktraj hide`)\n"
	"--json         one object per run: run, name, format, events, created\n"
	"               (ns since the epoch or null), meta\n";

/* one row, copied out of the store (kt_run_info is valid for one call) */
struct row {
	kt_run_info ri;
};

struct ls_ctx {
	struct row *v;
	size_t n, cap;
	const char *format, *glob;
	int64_t since; /* KT_TS_UNKNOWN: no lower bound */
	kt_store *s;
	int all, hidden; /* --all; runs left out as hidden */
	int seen;        /* a run of --format's format, hidden or not */
};

/* The run formats the commands that record give their runs (cmd_append.c,
 * cmd_bench.c, import/hook.c's agents); importers give their own name. */
static const char *const recorded[] = {
	"append", "bench", "claude_code_hook", "gemini_cli_hook",
	"codex_notify", NULL
};

/* Whether a run may have format f: an importer writes it (its name or an
 * alias: kt_importer_of_format) or a recording command does. */
static int known_format(const char *f)
{
	for (size_t i = 0; recorded[i]; i++)
		if (!strcmp(recorded[i], f))
			return 1;
	return kt_importer_of_format(f) != NULL;
}

/* --format F that no run of the store has and no importer or recording
 * command writes (`--format claudecode`): a usage error naming the
 * formats, as --kind's is, rather than "no run matches". */
static int unknown_format(struct cli *c, const char *f)
{
	char names[1024];
	size_t n = 0, i;
	const kt_importer *im;

	names[0] = 0;
	for (i = 0; recorded[i] && n < sizeof(names); i++)
		n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s",
				      n ? ", " : "", recorded[i]);
	for (i = 0; (im = kt_importer_at(i)) && n < sizeof(names); i++)
		n += (size_t)snprintf(names + n, sizeof(names) - n, ", %s",
				      im->name);
	return cli_usage(c, "--format: unknown format '%s' (a run's format: %s)",
			 f, names);
}

static int ls_collect(const kt_run_info *ri, void *arg)
{
	struct ls_ctx *x = arg;
	struct row *r;
	int h = cli_hidden_skip(x->s, ri->id, x->all);

	if (x->format && !strcmp(ri->format ? ri->format : "", x->format))
		x->seen = 1;
	if (h) {
		x->hidden += h > 0;
		return h < 0 ? h : 0;
	}
	if (x->format && strcmp(ri->format ? ri->format : "", x->format))
		return 0;
	if (x->glob && fnmatch(x->glob, ri->name ? ri->name : "", 0))
		return 0;
	if (x->since != KT_TS_UNKNOWN &&
	    (ri->created_ns == KT_TS_UNKNOWN || ri->created_ns < x->since))
		return 0;
	if (KT_GROW(x->v, x->cap, x->n + 1))
		return KT_ENOMEM;
	r = &x->v[x->n];
	r->ri = *ri;
	r->ri.name = strdup(ri->name ? ri->name : "");
	r->ri.format = strdup(ri->format ? ri->format : "");
	r->ri.meta_json = kt_xstrdup(ri->meta_json);
	x->n++;
	if (!r->ri.name || !r->ri.format || (ri->meta_json && !r->ri.meta_json))
		return KT_ENOMEM;
	return 0;
}

/* the sort key, and the direction, qsort's comparator reads */
static int sort_key, sort_dir;
enum { BY_CREATED, BY_NAME, BY_EVENTS, BY_FORMAT, BY_ID };

static int cmp_row(const void *pa, const void *pb)
{
	const kt_run_info *a = &((const struct row *)pa)->ri;
	const kt_run_info *b = &((const struct row *)pb)->ri;
	int c = 0;

	switch (sort_key) {
	case BY_CREATED: /* newest first; unknown times last */
		c = (b->created_ns > a->created_ns) - (b->created_ns < a->created_ns);
		break;
	case BY_NAME:
		c = strcmp(a->name, b->name);
		break;
	case BY_EVENTS:
		c = (b->n_events > a->n_events) - (b->n_events < a->n_events);
		break;
	case BY_FORMAT:
		c = strcmp(a->format, b->format);
		break;
	}
	/* ties in id order, so the listing is the same every time */
	if (!c)
		c = strcmp(a->id, b->id);
	return sort_dir * c;
}

/* The text columns' widths, from the rows to print, so that a format
 * name longer than the header or a run of a million events keeps the
 * columns aligned; and the room a row has for its name on a terminal
 * (0: no limit, when stdout is not one). */
struct cols {
	int ew, fw;
	size_t name_max;
};

static void cols_of(const struct row *v, size_t n, struct cols *w)
{
	struct winsize ws;

	w->ew = 8; /* as wide as before: scripts cut these columns */
	w->fw = 12; /* room for most importer names */
	for (size_t i = 0; i < n; i++) {
		int d = snprintf(NULL, 0, "%llu",
				 (unsigned long long)v[i].ri.n_events);
		size_t fl = strlen(v[i].ri.format);

		if (d > w->ew)
			w->ew = d;
		if (fl > (size_t)w->fw)
			w->fw = fl > 64 ? 64 : (int)fl;
	}
	w->name_max = 0;
	/* a name that wraps breaks the columns of every row below it: cut
	 * it to the terminal's width (pipes and --json get it whole) */
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
	    ws.ws_col > 0) {
		size_t used = 12 + 1 + (size_t)w->ew + 2 + (size_t)w->fw + 1 + 19 + 2;

		w->name_max = ws.ws_col > used + 8 ? ws.ws_col - used : 8;
	}
}

/* The name on one line: whitespace runs (tab, newline) as one space,
 * controls visible (cli_put_safe), cut to max code points, "..." last,
 * when max is not 0 (it is at least 8). */
static void put_name(const char *name, size_t max)
{
	const unsigned char *p = (const unsigned char *)name;
	size_t n = strlen(name), bl = 0, cps = 0, cut = 0;
	char *b = malloc(n + 1);

	if (!b) { /* no fold, no cut: the name still shows */
		cli_put_safe(stdout, name, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (strchr(" \t\n\r\v\f", p[i])) {
			if (!bl || b[bl - 1] != ' ')
				b[bl++] = ' ';
		} else {
			b[bl++] = (char)p[i];
		}
	}
	for (size_t i = 0; max && i < bl; cps++) {
		size_t k = kt_utf8_seq((unsigned char *)b + i, bl - i);

		if (cps == max - 3)
			cut = i;
		i += k ? k : 1;
	}
	if (max && cps > max) {
		cli_put_safe(stdout, b, cut);
		fputs("...", stdout);
	} else {
		cli_put_safe(stdout, b, bl);
	}
	free(b);
}

static int put_row(const kt_run_info *ri, int json, size_t i,
		   const struct cols *w)
{
	char when[32];

	if (json) {
		cJSON *o = cJSON_CreateObject(), *meta;

		if (!o)
			return KT_ENOMEM;
		cJSON_AddStringToObject(o, "run", ri->id);
		cJSON_AddStringToObject(o, "name", ri->name);
		cJSON_AddStringToObject(o, "format", ri->format);
		cJSON_AddNumberToObject(o, "events", (double)ri->n_events);
		kt_export_add_ns(o, "created", ri->created_ns);
		meta = ri->meta_json ? cJSON_Parse(ri->meta_json) : NULL;
		if (meta)
			cJSON_AddItemToObject(o, "meta", meta);
		return cli_put_json(o);
	}
	if (i == 0)
		printf("%-12s %*s  %-*s %-19s  %s\n", "RUN", w->ew, "EVENTS",
		       w->fw, "FORMAT", "CREATED (UTC)", "NAME");
	kt_export_ts_short(ri->created_ns, when, sizeof(when));
	printf("%-12.12s %*llu  %-*s %-19s  ", ri->id, w->ew,
	       (unsigned long long)ri->n_events, w->fw, ri->format, when);
	put_name(ri->name, w->name_max);
	fputc('\n', stdout);
	return 0;
}

/* WHEN of --since as ns since the epoch: an ISO-8601 date or time, or an
 * age "N[mhd]" before now; KT_TS_UNKNOWN when it is neither */
static int64_t since_ns(const char *w)
{
	char *end;
	unsigned long long n;
	int64_t unit;

	if (w[0] >= '0' && w[0] <= '9' && !strchr(w, '-')) {
		n = strtoull(w, &end, 10);
		unit = !strcmp(end, "m") ? 60 : !strcmp(end, "h") ? 3600 :
		       !strcmp(end, "d") ? 86400 : 0;
		if (!unit || end == w || n > 100000ULL * 365)
			return KT_TS_UNKNOWN;
		return ((int64_t)time(NULL) - (int64_t)n * unit) * 1000000000LL;
	}
	return kt_iso8601_ns(w, NULL);
}

int cmd_ls(struct cli *c, int argc, char **argv)
{
	static const char *const keys[] = { "created", "name", "events",
					    "format", "id" };
	struct ls_ctx x = { 0 };
	kt_store *s = NULL;
	int i, rc, json = 0, reverse = 0, damaged;
	size_t k;

	if (cli_wants_help(argc, argv, usage))
		return KT_EXIT_OK;
	x.since = KT_TS_UNKNOWN;
	sort_key = BY_CREATED;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--json")) {
			json = 1;
		} else if (!strcmp(a, "--all") || !strcmp(a, "-a")) {
			x.all = 1;
		} else if (!strcmp(a, "--reverse") || !strcmp(a, "-r")) {
			reverse = 1;
		} else if (!strcmp(a, "--sort") && cli_has_value(argc, argv, i)) {
			for (k = 0; k < sizeof(keys) / sizeof(*keys); k++)
				if (!strcmp(argv[i + 1], keys[k]))
					break;
			if (k == sizeof(keys) / sizeof(*keys))
				return cli_usage(c, "--sort takes created, name, events, format or id, not '%s'",
						 argv[i + 1]);
			sort_key = (int)k;
			i++;
		} else if (!strcmp(a, "--format") && cli_has_value(argc, argv, i)) {
			x.format = argv[++i];
		} else if (!strcmp(a, "--name") && cli_has_value(argc, argv, i)) {
			x.glob = argv[++i];
		} else if (!strcmp(a, "--since") && cli_has_value(argc, argv, i)) {
			x.since = since_ns(argv[++i]);
			if (x.since == KT_TS_UNKNOWN)
				return cli_usage(c, "--since takes a date or time (2026-11-30, 2026-11-30T14:00Z) or an age (90m, 12h, 7d), not '%s'",
						 argv[i]);
		} else if (a[0] == '-' && a[1]) {
			return cli_bad_option(c, usage, a);
		} else {
			return cli_usage(c, "unexpected argument '%s'", a);
		}
	}
	sort_dir = reverse ? -1 : 1;
	rc = cli_open(c, 0, &s);
	if (rc)
		return rc;
	x.s = s;
	/* a damaged run (its record, or its key: a flipped byte in a run
	 * id) is said once the sound runs are listed, exit 3 */
	rc = kt_run_foreach_sound(s, ls_collect, &x, NULL);
	damaged = rc == KT_ECORRUPT;
	if (damaged)
		rc = 0;
	if (rc < 0) {
		rc = cli_store_err(c, s, rc, "listing runs");
	} else {
		/* a format no run has and nothing writes is a typo; one a
		 * `ktraj import` of an export kept is any run's format */
		if (x.format && !x.seen && !known_format(x.format)) {
			rc = unknown_format(c, x.format);
			goto out;
		}
		if (x.n) /* qsort(NULL, 0, ...) is undefined */
			qsort(x.v, x.n, sizeof(*x.v), cmp_row);
		struct cols w;

		cols_of(x.v, x.n, &w);
		for (k = 0; k < x.n && rc >= 0; k++)
			rc = put_row(&x.v[k].ri, json, k, &w);
		if (rc < 0)
			rc = cli_err(c, rc == KT_ENOMEM ? "out of memory" :
				     "write error");
		else if (x.n == 0 && !json && (x.format || x.glob ||
					       x.since != KT_TS_UNKNOWN))
			fprintf(stderr, "no run in %s matches\n", c->store_path);
		else if (x.n == 0 && !json && x.hidden)
			fprintf(stderr, "no runs in %s but %d hidden (`ktraj ls --all`)\n",
				c->store_path, x.hidden);
		else if (x.n == 0 && !json)
			fprintf(stderr, "no runs in %s (add some with `ktraj import`)\n",
				c->store_path);
		/* (the walk's message: nothing read the store since) */
		if (damaged && rc >= 0)
			rc = cli_store_err(c, s, KT_ECORRUPT, c->store_path);
	}
out:
	for (k = 0; k < x.n; k++) {
		free((char *)x.v[k].ri.name);
		free((char *)x.v[k].ri.format);
		free((char *)x.v[k].ri.meta_json);
	}
	free(x.v);
	kt_store_close(s);
	return rc;
}
