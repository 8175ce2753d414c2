/*
 * cmd_report.c - `ktraj report RUN -o FILE.html`: options, the analysis
 * (one blame and its stalls per series) and the file; the page itself is
 * export/report.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "anutil.h"
#include "outfmt.h"
#include "../export/report.h"

static const char usage[] =
	"usage: ktraj report RUN -o FILE.html [--min-gain X] [--z Z] [--seed N]\n"
	"                        [--series-by FIELDS] [--assume-correct]\n"
	"                        [--noise SIGMA]\n"
	"\n"
	"Write one offline HTML file (inline CSS, SVG and script; nothing is\n"
	"fetched; all of it readable with scripts off): one chart per series\n"
	"(small multiples when the run has several) of speedup over steps on a\n"
	"log scale with every correct measurement, the best-so-far line, new-best\n"
	"steps, incorrect results as red crosses, question markers colored by\n"
	"system layer, jumps (arrows from the blamed question, or from the step\n"
	"before when the agent made it alone, in another colour) and stalls\n"
	"(shaded); per series the jump table with the blamed question, the edits\n"
	"and their diff, and the stalls; the permutation baseline; and a timeline\n"
	"of every event as `ktraj log` shows it (commands, exit codes, bench\n"
	"numbers; failed builds and commands marked) with a search box and an\n"
	"anchor #e<seq> per event.  Analyzer options as for `blame speedup`:\n"
	"--series-by picks the fields of a series key (workload, scenario,\n"
	"metric, baseline), --assume-correct counts results nobody checked,\n"
	"--noise is the noise used when the run shows neither repeats nor a\n"
	"reported spread.\n"
	"\n"
	"A run of several series (bench `workload`, else `scenario`: KernelBench\n"
	"results, one problem after another) opens with the charts of every\n"
	"series of two or more measurements side by side and a table of the\n"
	"series (measurements, best speedup, jumps, stalls, results left out by\n"
	"reason), then one section per charted series with its jump table and\n"
	"stalls (anchors #w<N>, #w<N>-chart, #w<N>-jump<K>, #w<N>-stall<K>; jumps\n"
	"numbered as `blame speedup` numbers them within the series).\n"
	"\n"
	"Series nothing orders in time (no timestamp, edit or tool call: a\n"
	"best-of-k table) are shown as a table best first, not a chart.  There\n"
	"is no --json: the analysis as JSON is `blame speedup --json` and\n"
	"`stalls --json`.\n";

int cmd_report(struct cli *c, int argc, char **argv)
{
	static const char *const keep[] = {"-o", NULL};
	kt_an_opts o;
	kt_store *s = NULL;
	kt_an_run *r = NULL;
	kt_an_blame *b = NULL;
	const char **wl = NULL;
	kt_an_stall **st = NULL;
	size_t *nst = NULL, nb = 0, njump = 0, nstall = 0;
	char *pos[4], *outp = NULL, *spec = NULL;
	int json, npos, rc, created = 0;
	FILE *f = NULL;

	if (cli_wants_help(argc, argv, usage))
		return 0;
	rc = an_opts(c, argc, argv, &o, &json, keep, pos, 4, &npos);
	if (rc)
		return rc;
	for (int i = 0; i < npos; i++) {
		if (!strcmp(pos[i], "-o"))
			outp = pos[++i];
		else if (!spec)
			spec = pos[i];
		else
			return cli_usage(c, "expected `report RUN -o FILE.html`");
	}
	/* an_opts takes --json for every analyzer; a report is HTML only,
	 * and an option taken but not honoured would hide that */
	if (json)
		return cli_usage(c, "--json: report writes HTML only; the "
				 "analysis as JSON is `blame speedup --json` "
				 "and `stalls --json`");
	if (!spec || !outp)
		return cli_usage(c, "expected `report RUN -o FILE.html`");
	if ((rc = cli_open(c, 0, &s)))
		return rc;
	if ((rc = an_load(c, s, spec, KT_AN_LOAD_EVERY | KT_AN_LOAD_TOOLS, &r)))
		goto out;
	if (r->keyed_by != o.series_by && kt_an_series_keys(r, o.series_by)) {
		rc = cli_err(c, "out of memory");
		goto out;
	}
	/* one series per workload (kt_an_blame_workloads), its stalls */
	if ((rc = an_blame_stalls(c, s, r, &o, "analyzing the run", &b, &wl,
				  &nb, &st, &nst)))
		goto out;
	for (size_t i = 0; i < nb; i++) {
		njump += b[i].njump;
		nstall += nst[i];
	}
	/* a page ktraj started and could not finish is removed; a file that
	 * was there before (or a device, a pipe) is left to its owner */
	created = access(outp, F_OK) != 0 && errno == ENOENT;
	if (!(f = fopen(outp, "w"))) {
		/* the reason: a folder, a missing folder, no permission */
		rc = cli_err(c, "%s: cannot write: %s", outp, strerror(errno));
		goto out;
	}
	errno = 0;
	rc = kt_export_report_html(f, s, r, &o, b, wl, st, nst, nb);
	/* KT_EIO with f's error flag set is the page's write failing (a
	 * full disk), not the store: said as such, not "analyzing the run"
	 * with the store's last message */
	if (rc && !ferror(f)) {
		rc = cli_store_err(c, s, rc, "analyzing the run");
		goto out;
	}
	if (rc || fflush(f) != 0 || ferror(f)) {
		/* fflush leaves errno of the failed write (ENOSPC, EIO) */
		rc = cli_err(c, "%s: write failed: %s", outp,
			     errno ? strerror(errno) : "I/O error");
		goto out;
	}
#define S_(n) (n) == 1 ? "" : "s"
	if (wl)
		printf("wrote %s (%zu workload%s, %zu jump%s, %zu stall%s, "
		       "%zu event%s)\n", outp, nb, S_(nb), njump, S_(njump),
		       nstall, S_(nstall), r->nev, S_(r->nev));
	else
		printf("wrote %s (%zu jump%s, %zu stall%s, %zu event%s)\n",
		       outp, njump, S_(njump), nstall, S_(nstall), r->nev,
		       S_(r->nev));
#undef S_
out:
	if (f && fclose(f) != 0 && !rc)
		rc = cli_err(c, "%s: write failed: %s", outp, strerror(errno));
	if (f && rc && created)
		unlink(outp);
	an_stalls_free(st, nst, nb);
	kt_an_blame_workloads_free(b, wl, nb);
	kt_an_run_free(r);
	kt_store_close(s);
	return rc;
}
