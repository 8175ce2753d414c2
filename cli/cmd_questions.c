/*
 * cmd_questions.c - `ktraj questions mine` (the question library) and
 * `ktraj questions suggest` (library questions for a stalled run).
 * Method: analyze/mine.c (analysis.md 3).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "anutil.h"
#include "outfmt.h"

static const char usage[] =
	"usage: ktraj questions mine [RUN...] [--json] [--include-agent] [--all]\n"
	"                             [-o FILE]\n"
	"       ktraj questions suggest RUN [--library FILE] [--json] [-n N]\n"
	"\n"
	"mine: extract the questions people asked (EN and ZH rules: question\n"
	"marks, wh-words, inverted auxiliaries, challenge verbs such as verify or\n"
	"prove, doubt phrases; 吗/呢/为什么/怎么/是不是/确认/证明/上限...; plain\n"
	"instructions, requests for work such as \"can you run the benchmarks\"\n"
	"(no wh-word, bound or technique named), Markdown headings, list\n"
	"fragments and menu options are not questions) from RUNs (default:\n"
	"every run but those hidden with `ktraj hide`; --all: those too), and\n"
	"library questions the agent applied; --include-agent (or --agent) adds\n"
	"the agent's own questions (origin \"agent\").  Near-duplicates merge\n"
	"(MinHash/Jaccard confirmed by token cosine); each entry gets a system\n"
	"layer, flags (moves_layer, challenges_bound), counts, the speedup gain\n"
	"blamed on it across runs (shrunk toward the mean for small counts) and its sources.\n"
	"--json prints one object per entry: text, layer, flags, origin, lang,\n"
	"count, runs, hits, gain (shrunk mean gain factor per ask; 1, \"-\" in\n"
	"text, for a question that never preceded a jump), gain_log_total,\n"
	"score, sources [{run, seq}].  -o FILE writes the library there instead:\n"
	"Markdown when FILE ends in .md, else the JSON lines.  A run of several\n"
	"workloads (KernelBench results) is blamed per workload, as `blame speedup`\n"
	"does: gains come only from jumps within one workload's series.\n"
	"\n"
	"suggest: the layer the run is stuck in (its last stall - of a workload's\n"
	"own series in a run of several, --json stuck_workload) and the library\n"
	"questions that fit it, best first: fit (another layer +0.5, moves\n"
	"layers +0.2, challenges a bound +1.0 when the stall claims one, +0.5\n"
	"before any profiler run, else +0.2) plus the entry's shrunk log gain.\n"
	"A run with no measurement, or whose series are not stalled, gets no\n"
	"suggestion (and the store is not mined for it).  Plain\n"
	"instructions, requests about no layer, questions of the stuck layer that\n"
	"challenge no bound, and questions that never preceded a jump (hits 0;\n"
	"in a hand-written library, no gain above 1) unless they challenge a\n"
	"bound or move layers are never suggested.  When nothing fits it says\n"
	"why: how many entries each rule left out, that the library is empty, or\n"
	"that no series is stalled; outputs that looked like a benchmark but gave\n"
	"no time are counted (unparsed, as blame does).  --json adds fit, rank,\n"
	"unparsed and unparsed_seqs (when nothing\n"
	"fits: one object with text null, why, reason (no_measurements, no_stall,\n"
	"empty_library or no_fit), library (null when none was read or mined),\n"
	"left_out {not_a_question, no_layer, stuck_layer, no_evidence}).\n"
	"--library reads a library written by\n"
	"`questions mine --json` / -o (JSON lines, or the Markdown of -o FILE.md);\n"
	"default: mine the whole store.\n";

static void flags_json(cJSON *o, unsigned f)
{
	cJSON *a = cJSON_AddArrayToObject(o, "flags");

	if (f & KT_AN_F_RELOCATE)
		cJSON_AddItemToArray(a, cJSON_CreateString("moves_layer"));
	if (f & KT_AN_F_BOUND)
		cJSON_AddItemToArray(a, cJSON_CreateString("challenges_bound"));
	cJSON_AddBoolToObject(o, "moves_layer", (f & KT_AN_F_RELOCATE) != 0);
	cJSON_AddBoolToObject(o, "challenges_bound", (f & KT_AN_F_BOUND) != 0);
}

static cJSON *item_json(const kt_an_qitem *it)
{
	cJSON *o = cJSON_CreateObject(), *s;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "text", it->text);
	cJSON_AddStringToObject(o, "norm", it->norm);
	cJSON_AddStringToObject(o, "layer", kt_an_layer_name(it->layer));
	flags_json(o, it->flags);
	cJSON_AddStringToObject(o, "origin", it->origin == KT_AN_QO_LIBRARY ?
				"library" : it->origin == KT_AN_QO_AGENT ? "agent" :
				"human");
	cJSON_AddStringToObject(o, "lang", it->zh ? "zh" : "en");
	cJSON_AddNumberToObject(o, "count", (double)it->count);
	cJSON_AddNumberToObject(o, "runs", (double)it->nruns);
	cJSON_AddNumberToObject(o, "hits", (double)it->hits);
	cJSON_AddNumberToObject(o, "gain", an_r4(exp(it->score)));
	cJSON_AddNumberToObject(o, "gain_log_total", an_r4(it->gain_log));
	cJSON_AddNumberToObject(o, "score", an_r4(it->score));
	s = cJSON_AddArrayToObject(o, "sources");
	for (size_t k = 0; k < it->nsrc; k++) {
		cJSON *x = cJSON_CreateObject();

		cJSON_AddStringToObject(x, "run", it->src[k].run);
		cJSON_AddNumberToObject(x, "seq", (double)it->src[k].seq);
		cJSON_AddItemToArray(s, x);
	}
	return o;
}

static void md_cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

static void write_md(FILE *f, const kt_an_qitem *it, size_t n)
{
	fprintf(f, KT_AN_LIBRARY_MD_TITLE "\n\n%zu questions, best first (gain: "
		"shrunk mean speedup factor blamed per ask).\n\n", n);
	fprintf(f, "| # | question | layer | flags | count | runs | hits | gain | sources |\n");
	fprintf(f, "|---|---|---|---|---|---|---|---|---|\n");
	for (size_t k = 0; k < n; k++) {
		fprintf(f, "| %zu | ", k + 1);
		md_cell(f, it[k].text);
		fprintf(f, " | %s | %s%s%s | %zu | %zu | %zu | %.3f | ",
			kt_an_layer_name(it[k].layer),
			it[k].flags & KT_AN_F_RELOCATE ? "moves layer" : "",
			(it[k].flags & 3) == 3 ? ", " : "",
			it[k].flags & KT_AN_F_BOUND ? "challenges bound" : "",
			it[k].count, it[k].nruns, it[k].hits, exp(it[k].score));
		for (size_t s = 0; s < it[k].nsrc && s < 5; s++)
			fprintf(f, "%s%.12s#%llu", s ? ", " : "", it[k].src[s].run,
				(unsigned long long)it[k].src[s].seq);
		if (it[k].nsrc > 5)
			fprintf(f, ", +%zu", it[k].nsrc - 5);
		fprintf(f, " |\n");
	}
}

struct mine_all {
	kt_store *s;
	kt_an_miner *m;
	const kt_an_opts *o;
	char (*ids)[KT_RUN_ID_HEX + 1];
	size_t n, cap;
	int all; /* --all: hidden runs too */
};

static int collect_id(const kt_run_info *ri, void *arg)
{
	struct mine_all *a = arg;
	int h = cli_hidden_skip(a->s, ri->id, a->all);

	if (h)
		return h < 0 ? h : 0;
	if (KT_GROW(a->ids, a->cap, a->n + 1))
		return KT_ENOMEM;
	memcpy(a->ids[a->n++], ri->id, KT_RUN_ID_HEX + 1);
	return 0;
}

/* Mine one run (already resolved) into m. */
static int mine_run(kt_store *s, kt_an_miner *m, const char *id,
		    const kt_an_opts *o)
{
	kt_an_run *r = NULL;
	kt_an_blame *b = NULL;
	const char **wl = NULL;
	size_t nb = 0;
	int rc = kt_an_run_load(s, id, &r);

	if (rc)
		return rc;
	/* gains come from the jumps of each workload's own series (as
	 * blame reports them), never from one problem to the next */
	rc = kt_an_blame_workloads(s, r, o, &b, &wl, &nb);
	if (!rc) {
		rc = kt_an_miner_add_n(m, r, b, nb);
		kt_an_blame_workloads_free(b, wl, nb);
	}
	kt_an_run_free(r);
	return rc;
}

/* Mine the given specs (or every run but hidden ones unless `all`) and
 * finish. */
static int mine(struct cli *c, kt_store *s, char **spec, int nspec,
		int agent, int all, const kt_an_opts *o0, kt_an_miner **mout,
		const kt_an_qitem **items, size_t *n)
{
	kt_an_opts o = *o0;
	kt_an_miner *m = NULL;
	struct mine_all a = { .s = s, .all = all };
	int rc;

	o.permutations = 0; /* the library needs attributions, not p */
	if (kt_an_miner_new(agent, &m))
		return cli_err(c, "out of memory");
	/* one read transaction for the run list and every run's loads and
	 * blob reads: no transaction, page pin and reset per read */
	if ((rc = kt_store_read_hold(s))) {
		kt_an_miner_free(m);
		return cli_store_err(c, s, rc, "runs");
	}
	if (nspec) {
		/* a run named twice (by id, prefix or name) is mined once: its
		 * questions would count twice and list their sources twice */
		char (*seen)[KT_RUN_ID_HEX + 1] = malloc((size_t)nspec *
							  sizeof(*seen));
		int nseen = 0;

		if (!seen) {
			rc = cli_err(c, "out of memory");
			goto fail;
		}
		for (int i = 0; i < nspec; i++) {
			char *id = seen[nseen];
			int k;

			if ((rc = cli_run(c, s, spec[i], id))) {
				free(seen);
				goto fail;
			}
			for (k = 0; k < nseen; k++)
				if (!strcmp(seen[k], id))
					break;
			if (k < nseen)
				continue;
			nseen++;
			if ((rc = mine_run(s, m, id, &o))) {
				free(seen);
				rc = cli_store_err(c, s, rc, spec[i]);
				goto fail;
			}
		}
		free(seen);
	} else {
		if ((rc = kt_run_foreach(s, collect_id, &a))) {
			rc = cli_store_err(c, s, rc, "runs");
			goto fail;
		}
		for (size_t i = 0; i < a.n; i++)
			if ((rc = mine_run(s, m, a.ids[i], &o))) {
				rc = cli_store_err(c, s, rc, a.ids[i]);
				goto fail;
			}
	}
	kt_store_read_release(s);
	if (kt_an_miner_finish(m, items, n)) {
		rc = cli_err(c, "out of memory");
		goto fail;
	}
	free(a.ids);
	*mout = m;
	return 0;
fail:
	kt_store_read_release(s);
	free(a.ids);
	kt_an_miner_free(m);
	return rc;
}

static int do_mine(struct cli *c, int argc, char **argv)
{
	static const char *const keep[] = {"-o", NULL};
	kt_an_opts o;
	kt_store *s = NULL;
	kt_an_miner *m = NULL;
	const kt_an_qitem *it;
	size_t n;
	char *pos[1024], *spec[1024], *outp = NULL;
	int json, npos, nspec = 0, agent = 0, all = 0, rc;
	FILE *f = stdout;

	char **av = calloc((size_t)argc + 1, sizeof(*av));
	int ac = 0;

	if (!av)
		return cli_err(c, "out of memory");
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--include-agent") ||
		    !strcmp(argv[i], "--agent"))
			agent = 1;
		else if (!strcmp(argv[i], "--all"))
			all = 1;
		else
			av[ac++] = argv[i];
	}
	rc = an_opts(c, ac, av, &o, &json, keep, pos, 1024, &npos);
	free(av);
	if (rc)
		return rc;
	for (int i = 0; i < npos; i++) {
		if (!strcmp(pos[i], "-o"))
			outp = pos[++i];
		else
			spec[nspec++] = pos[i];
	}
	if ((rc = cli_open(c, 0, &s)))
		return rc;
	if ((rc = mine(c, s, spec, nspec, agent, all, &o, &m, &it, &n)))
		goto out;
	if (outp && !(f = fopen(outp, "w"))) {
		rc = cli_err(c, "%s: cannot write: %s", outp, strerror(errno));
		goto out;
	}
	if (outp && strlen(outp) > 3 && !strcmp(outp + strlen(outp) - 3, ".md")) {
		write_md(f, it, n);
	} else if (json || outp) {
		for (size_t k = 0; k < n && !rc; k++)
			rc = an_emit(f, item_json(&it[k]));
		if (rc)
			rc = cli_err(c, "out of memory");
	} else {
		printf("%zu questions (best first; gain = shrunk mean speedup "
		       "factor blamed per ask)\n\n", n);
		for (size_t k = 0; k < n; k++) {
			char line[244], gain[32];

			cli_oneline(it[k].text, 240, line);
			/* no hit, no gain to show (score 0) */
			if (it[k].hits)
				snprintf(gain, sizeof(gain), "x%.3f",
					 exp(it[k].score));
			else
				snprintf(gain, sizeof(gain), "%6s", "-");
			printf("%3zu. [%s%s%s] %s  n=%zu runs=%zu hits=%zu  %s\n",
			       k + 1, kt_an_layer_name(it[k].layer),
			       it[k].flags & KT_AN_F_RELOCATE ? ", moves layer" : "",
			       it[k].flags & KT_AN_F_BOUND ? ", challenges bound" : "",
			       gain, it[k].count, it[k].nruns, it[k].hits, line);
		}
	}
	/* fflush first: errno then names the failed write (ENOSPC) */
	if (outp && (fflush(f) != 0 || ferror(f)) && !rc)
		rc = cli_err(c, "%s: write failed: %s", outp,
			     errno ? strerror(errno) : "I/O error");
	if (outp && fclose(f) != 0 && !rc)
		rc = cli_err(c, "%s: write failed: %s", outp, strerror(errno));
	f = NULL;
out:
	kt_an_miner_free(m);
	kt_store_close(s);
	return rc;
}

struct sugg {
	char *text;
	int layer;
	unsigned flags;
	double gain;   /* shrunk mean gain factor per ask */
	size_t count;
	int evidence;  /* it preceded a jump (kt_an_suggest_fit_why) */
	double fit, rank;
};

static int cmp_sugg(const void *a, const void *b)
{
	const struct sugg *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->text, y->text);
}

/* Why no library entry fits, in one sentence: what the library held and
 * what left each entry out (kt_an_suggest_fit_why's reasons). */
static void none_why(char *buf, size_t n, size_t nlib, const size_t *nwhy,
		     int stuck, int given)
{
	if (!nlib) {
		snprintf(buf, n, "the library is empty (%s)", given ?
			 "the --library file has no entry" :
			 "no run of this store has a question a person asked; "
			 "import more runs or give --library");
		return;
	}
	snprintf(buf, n, "none of the library's %zu entr%s fits: %zu %s an "
		 "instruction, not a question; %zu name%s no system layer and "
		 "challenge%s no bound; %zu %s about the stuck layer (%s) without "
		 "challenging a bound - more of what the agent is doing; %zu "
		 "never preceded a jump and neither challenge%s a bound nor "
		 "move%s layers (mine more runs, or give --library)", nlib,
		 nlib == 1 ? "y" : "ies", nwhy[KT_AN_SUG_NOT_QUESTION],
		 nwhy[KT_AN_SUG_NOT_QUESTION] == 1 ? "is" : "are",
		 nwhy[KT_AN_SUG_NO_LAYER],
		 nwhy[KT_AN_SUG_NO_LAYER] == 1 ? "s" : "",
		 nwhy[KT_AN_SUG_NO_LAYER] == 1 ? "s" : "",
		 nwhy[KT_AN_SUG_SAME_LAYER],
		 nwhy[KT_AN_SUG_SAME_LAYER] == 1 ? "is" : "are",
		 kt_an_layer_name(stuck), nwhy[KT_AN_SUG_NO_EVIDENCE],
		 nwhy[KT_AN_SUG_NO_EVIDENCE] == 1 ? "s" : "",
		 nwhy[KT_AN_SUG_NO_EVIDENCE] == 1 ? "s" : "");
}

/* Add what every `suggest --json` row carries (the stuck layer and
 * workload, the unparsed outputs) to x and print it; an_emit's code. */
static int sugg_emit(cJSON *x, int stuck, const char *wl, const kt_an_run *r)
{
	cJSON_AddStringToObject(x, "stuck_layer", kt_an_layer_name(stuck));
	if (wl)
		cJSON_AddStringToObject(x, "stuck_workload", wl);
	an_unparsed_json(x, r);
	return an_emit(stdout, x);
}

static int do_suggest(struct cli *c, int argc, char **argv)
{
	static const char *const keep[] = {"--library", "-n", NULL};
	kt_an_opts o;
	kt_store *s = NULL;
	kt_an_run *r = NULL;
	kt_an_blame *bw = NULL;
	const char **wl = NULL, *last_wl = NULL;
	kt_an_stall last = {0}, **sts = NULL;
	kt_an_miner *m = NULL;
	struct sugg *sg = NULL;
	size_t nbw = 0, nst = 0, nsg = 0, nlib = 0, *nsts = NULL, npts = 0,
	       nser = 0,
	       nwhy[KT_AN_SUG_NREASONS] = {0};
	char *pos[8], *lib = NULL, *spec = NULL, nowhy[512];
	int json, npos, rc, stuck, profiled = 0, mined = 0;
	const char *reason = NULL; /* --json "reason" when nothing is proposed */
	uint64_t top = 5;

	rc = an_opts(c, argc, argv, &o, &json, keep, pos, 8, &npos);
	if (rc)
		return rc;
	for (int i = 0; i < npos; i++) {
		if (!strcmp(pos[i], "--library"))
			lib = pos[++i];
		else if (!strcmp(pos[i], "-n")) {
			if (cli_u64(pos[++i], &top) || !top)
				return cli_usage(c, "-n needs a positive number");
		} else if (!spec)
			spec = pos[i];
		else
			return cli_usage(c, "expected `questions suggest RUN`");
	}
	if (!spec)
		return cli_usage(c, "expected `questions suggest RUN`");
	o.permutations = 0;
	if ((rc = cli_open(c, 0, &s)))
		return rc;
	if ((rc = an_load(c, s, spec, KT_AN_LOAD_TOOLS, &r)))
		goto out;
	/* the run's last stall: of each workload's own series in a run of
	 * several (a problem after another is no gain and no stall) */
	if ((rc = an_blame_stalls(c, s, r, &o, "suggest", &bw, &wl, &nbw, &sts,
				  &nsts)))
		goto out;
	for (size_t w = 0; w < nbw; w++) {
		size_t n = nsts[w];

		if (n && (!nst || sts[w][n - 1].seq_last > last.seq_last)) {
			last = sts[w][n - 1];
			last_wl = wl ? wl[w] : NULL;
		}
		nst += n;
		npts += bw[w].series.n;
		nser += bw[w].series.n > 0;
	}
	for (size_t i = 0; i < r->nev; i++)
		profiled |= r->ev[i].profiler;
	if (nst) {
		stuck = last.layer;
	} else {
		/* no stall: the layer of the agent's last messages */
		char buf[16384];
		size_t bl = 0;

		for (size_t i = r->nev; i-- > 0 && bl < sizeof(buf) - 1;) {
			const kt_an_ev *e = &r->ev[i];

			if (e->kind != KT_KIND_MESSAGE || e->human || e->meta ||
			    !e->text || e->role == KT_AN_ROLE_USER ||
			    e->role == KT_AN_ROLE_SYSTEM)
				continue;
			size_t l = strlen(e->text);

			if (l > sizeof(buf) - 1 - bl)
				l = sizeof(buf) - 1 - bl;
			memcpy(buf + bl, e->text, l);
			bl += l;
		}
		stuck = kt_an_layer_of(buf, bl, NULL);
	}
	/* the library */
	if (lib) {
		struct kt_buf fb = {0};
		kt_an_libentry *le = NULL;
		size_t bad = 0;
		const char *why = NULL;

		if ((rc = kt_buf_read_file(&fb, lib))) {
			int e = errno;

			kt_buf_free(&fb);
			if (rc == KT_ENOMEM) {
				rc = cli_err(c, "out of memory");
			} else {
				/* README: a missing input file is 1, as
				 * for import PATH and --map; 4 is what the
				 * store lacks */
				rc = cli_err(c, "%s: cannot read: %s", lib,
					     strerror(e));
			}
			goto out;
		}
		rc = kt_an_library_parse(fb.s, fb.len, &le, &nsg, &bad, &why);
		kt_buf_free(&fb);
		if (rc == KT_ENOMEM) {
			rc = cli_err(c, "out of memory");
			goto out;
		}
		if (rc) {
			rc = bad ? cli_err(c, "%s: not a question library (line "
					   "%zu: %s)", lib, bad, why) :
				   cli_err(c, "%s: not a question library (%s)",
					   lib, why);
			goto out;
		}
		if (!(sg = calloc(nsg, sizeof(*sg)))) {
			kt_an_library_free(le, nsg);
			nsg = 0;
			rc = cli_err(c, "out of memory");
			goto out;
		}
		/* the texts change hands: sg frees them */
		for (size_t k = 0; k < nsg; k++) {
			sg[k].text = le[k].text;
			le[k].text = NULL;
			sg[k].layer = le[k].layer;
			sg[k].flags = le[k].flags;
			sg[k].gain = le[k].gain;
			sg[k].count = le[k].count;
			sg[k].evidence = le[k].hits >= 0 ? le[k].hits > 0 :
					 le[k].gain > 1.0;
		}
		kt_an_library_free(le, nsg);
	} else if (nst) {
		/* mining reads every run of the store: only for a stall that
		 * can take a suggestion */
		const kt_an_qitem *it;
		size_t n;

		mined = 1;
		if ((rc = mine(c, s, NULL, 0, 0, 0, &o, &m, &it, &n)))
			goto out;
		sg = calloc(n + 1, sizeof(*sg));
		if (!sg) {
			rc = cli_err(c, "out of memory");
			goto out;
		}
		for (size_t k = 0; k < n; k++) {
			if (!(sg[k].text = strdup(it[k].text))) {
				rc = cli_err(c, "out of memory");
				goto out;
			}
			nsg++;
			sg[k].layer = it[k].layer;
			sg[k].flags = it[k].flags;
			sg[k].gain = exp(it[k].score);
			sg[k].count = it[k].count;
			sg[k].evidence = it[k].hits > 0;
		}
	}
	/* rank by fit to the stalled stretch plus the shrunk log gain;
	 * instructions and more-of-the-same never (kt_an_suggest_fit) */
	nlib = nsg;
	if (nst) {
		size_t w = 0;
		int claim = nst && last.claim[0];

		for (size_t k = 0; k < nsg; k++) {
			int why;

			sg[k].fit = kt_an_suggest_fit_why(stuck, claim, profiled,
							  sg[k].text, sg[k].layer,
							  sg[k].flags, sg[k].evidence,
							  &why);
			nwhy[why]++;
			if (sg[k].fit >= 0) {
				sg[k].rank = sg[k].fit +
					     (sg[k].gain > 0 ? log(sg[k].gain) : 0);
				sg[w++] = sg[k];
			} else {
				free(sg[k].text);
			}
		}
		nsg = w;
		if (nsg > 1)
			qsort(sg, nsg, sizeof(*sg), cmp_sugg);
	}
	if (!nst) {
		/* no measurement, or series that keep improving or are too
		 * short to stall: a question to get a series moving has no
		 * series to get moving (a --library is still read above, so a
		 * bad one is still refused) */
		for (size_t k = 0; k < nsg; k++)
			free(sg[k].text);
		nsg = 0;
		if (!npts) {
			reason = "no_measurements";
			snprintf(nowhy, sizeof(nowhy), "no measurements: nothing "
				 "to suggest for a run with no measured series; "
				 "suggest proposes a question only for a stalled "
				 "one");
		} else {
			reason = "no_stall";
			snprintf(nowhy, sizeof(nowhy), "no series of the run is "
				 "stalled (%zu measurement%s in %zu series); "
				 "suggest proposes a question only for a stalled "
				 "one", npts, npts == 1 ? "" : "s", nser);
		}
	} else if (!nsg) {
		reason = nlib ? "no_fit" : "empty_library";
		none_why(nowhy, sizeof(nowhy), nlib, nwhy, stuck, lib != NULL);
	}
	if (json) {
		if (!nsg) {
			cJSON *x = cJSON_CreateObject(), *rj;

			cJSON_AddNullToObject(x, "text");
			cJSON_AddStringToObject(x, "why", nowhy);
			cJSON_AddStringToObject(x, "reason", reason);
			/* null: no library was read or mined (nothing to
			 * suggest for) */
			if (lib || mined)
				cJSON_AddNumberToObject(x, "library", (double)nlib);
			else
				cJSON_AddNullToObject(x, "library");
			rj = cJSON_AddObjectToObject(x, "left_out");
			cJSON_AddNumberToObject(rj, "not_a_question",
						(double)nwhy[KT_AN_SUG_NOT_QUESTION]);
			cJSON_AddNumberToObject(rj, "no_layer",
						(double)nwhy[KT_AN_SUG_NO_LAYER]);
			cJSON_AddNumberToObject(rj, "stuck_layer",
						(double)nwhy[KT_AN_SUG_SAME_LAYER]);
			cJSON_AddNumberToObject(rj, "no_evidence",
						(double)nwhy[KT_AN_SUG_NO_EVIDENCE]);
			rc = sugg_emit(x, stuck, last_wl, r);
		}
		for (size_t k = 0; k < nsg && k < top && !rc; k++) {
			cJSON *x = cJSON_CreateObject();

			cJSON_AddStringToObject(x, "text", sg[k].text);
			cJSON_AddStringToObject(x, "layer", kt_an_layer_name(sg[k].layer));
			flags_json(x, sg[k].flags);
			cJSON_AddNumberToObject(x, "gain", an_r4(sg[k].gain));
			cJSON_AddNumberToObject(x, "count", (double)sg[k].count);
			cJSON_AddNumberToObject(x, "fit", an_r4(sg[k].fit));
			cJSON_AddNumberToObject(x, "rank", an_r4(sg[k].rank));
			rc = sugg_emit(x, stuck, last_wl, r);
		}
		goto out;
	}
	an_put_run(r);
	if (nst)
		printf("stuck: stall of %zu measurements (steps %zu..%zu%s%s) in "
		       "layer %s%s%s%s\n", last.length, last.p_first + 1,
		       last.p_last + 1, last_wl ? " of workload " : "",
		       last_wl ? (*last_wl ? last_wl : "(no workload)") : "",
		       kt_an_layer_name(stuck),
		       last.claim[0] ? ", claiming \"" : "",
		       last.claim, last.claim[0] ? "\"" : "");
	else if (npts)
		printf("no stall\n");
	else
		printf("no measurements; recent work in layer %s\n",
		       kt_an_layer_name(stuck));
	an_print_unparsed(r);
	if (!nsg)
		printf("no suggestion: %s\n", nowhy);
	for (size_t k = 0; k < nsg && k < top; k++)
		printf("%zu. [%s%s] fit %.1f, x%.3f  %s\n", k + 1,
		       kt_an_layer_name(sg[k].layer),
		       sg[k].flags & KT_AN_F_BOUND ? ", challenges bound" : "",
		       sg[k].fit, sg[k].gain, sg[k].text);
out:
	for (size_t k = 0; k < nsg; k++)
		free(sg[k].text);
	free(sg);
	kt_an_miner_free(m);
	an_stalls_free(sts, nsts, nbw);
	kt_an_blame_workloads_free(bw, wl, nbw);
	kt_an_run_free(r);
	kt_store_close(s);
	return rc;
}

int cmd_questions(struct cli *c, int argc, char **argv)
{
	if (cli_wants_help(argc, argv, usage))
		return 0;
	if (argc < 2)
		return cli_usage(c, "expected `questions mine` or `questions suggest`");
	if (!strcmp(argv[1], "mine"))
		return do_mine(c, argc - 1, argv + 1);
	if (!strcmp(argv[1], "suggest"))
		return do_suggest(c, argc - 1, argv + 1);
	return cli_bad_subcommand(c, argv[1],
				  (const char *const[]){ "mine", "suggest", NULL });
}
