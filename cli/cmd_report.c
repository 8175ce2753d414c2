/*
 * cmd_report.c - `ktraj report RUN -o FILE.html`: one self-contained HTML
 * file (inline CSS and SVG, no JavaScript, nothing fetched) with the
 * speedup-over-steps chart (log scale; question markers colored by layer;
 * jumps and stalls marked), the jump table with the blamed questions, the
 * stalls, and a step timeline with an anchor id="e<seq>" for every event.
 * Layout follows analysis.md 4.2 (1, 3, 7) and 4.3 (static SVG, <title>
 * tooltips, <a href="#..."> deep links, <details> for long text).
 *
 * A run of several workloads (KernelBench results: one problem after
 * another) has one series per workload (kt_an_blame_workloads), so the
 * report has one section per workload - its own chart over the steps of
 * that problem, its jumps and stalls, anchors "w<N>-jump<K>" - after an
 * index table of every workload; a speedup of one problem over another is
 * never drawn or listed as a jump.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "anutil.h"
#include "outfmt.h"

static const char usage[] =
	"usage: ktraj report RUN -o FILE.html [--min-gain X] [--z Z] [--seed N]\n"
	"                        [--series-by FIELDS] [--assume-correct]\n"
	"                        [--noise SIGMA]\n"
	"\n"
	"Write one offline HTML file (no JavaScript, no network): an SVG chart of\n"
	"speedup over steps on a log scale with every correct measurement, the\n"
	"best-so-far line, incorrect results as red crosses, question markers\n"
	"colored by system layer, jumps (arrows from the blamed question) and\n"
	"stalls (shaded); the jump table with the blamed questions, the stalls,\n"
	"the permutation baseline, and a timeline of every event with an anchor\n"
	"#e<seq>.  Analyzer options as for `blame speedup`: --series-by picks\n"
	"the fields of a series key (workload, scenario, metric, baseline),\n"
	"--assume-correct counts results nobody checked, --noise is the noise\n"
	"used when the run shows neither repeats nor a reported spread.\n"
	"\n"
	"A run of several workloads (bench `workload`, else `scenario`: KernelBench\n"
	"results, one problem after another) has one series per workload: the\n"
	"report opens with a table of the workloads (measurements, best speedup,\n"
	"jumps, stalls, results left out by reason) linking to one section per\n"
	"workload of two or more measurements, each with its own chart, jump table\n"
	"and stalls (anchors #w<N>, #w<N>-jump<K>, #w<N>-stall<K>; jumps numbered\n"
	"as `blame speedup` numbers them within the workload).\n";

static const char *const layer_color[KT_AN_NLAYERS] = {
	"#7f7f7f", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
	"#8c564b", "#e377c2",
};

/* HTML/XML text escape; at most max bytes of s (0 = all), cut on a UTF-8
 * boundary with an ellipsis. */
static void esc(FILE *f, const char *s, size_t max)
{
	size_t n = 0;

	for (; s && *s; s++, n++) {
		if (max && n >= max && ((unsigned char)*s & 0xC0) != 0x80) {
			fputs("&#8230;", f);
			return;
		}
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
				fputc(' ', f);
			else
				fputc(*s, f);
		}
	}
}

struct chart {
	double x0, x1, y0, y1;   /* data ranges: seq, log speedup */
	double L, T, W, H;       /* plot box in px */
};

static double cx(const struct chart *c, double seq)
{
	return c->L + (c->x1 > c->x0 ? (seq - c->x0) / (c->x1 - c->x0) : 0.5) * c->W;
}

static double cy(const struct chart *c, double sp)
{
	double l = log(sp);

	return c->T + c->H - (c->y1 > c->y0 ? (l - c->y0) / (c->y1 - c->y0) : 0.5) * c->H;
}

/* Whether measurement m belongs to the series of workload wl (NULL: the
 * run's one series). */
static int of_wl(const kt_an_meas *m, const char *wl)
{
	return !wl || !strcmp(m->key, wl);
}

/*
 * The chart of one series: over the whole run (wl NULL), or over the
 * steps of workload wl - its first to its last result, and the questions
 * blamed for its jumps - with anchors and the arrow marker prefixed by pfx
 * ("" or "w<N>-"; several charts share the page).
 */
static void svg_chart(FILE *f, const kt_an_run *r, const kt_an_blame *b,
		      const kt_an_stall *st, size_t nst, const char *wl,
		      const char *pfx)
{
	const kt_an_series *se = &b->series;
	struct chart c = {0, 1, 0, 1, 70, 20, 860, 300};
	double lo = INFINITY, hi = -INFINITY;
	size_t i;

	c.x0 = r->nev ? (double)r->ev[0].seq : 0;
	c.x1 = r->nev ? (double)r->ev[r->nev - 1].seq : 1;
	if (wl) {
		/* from after the last result of another problem before this
		 * one's first (the questions asked in between are about this
		 * one), to this one's last result */
		size_t first = r->nm;

		c.x0 = INFINITY;
		c.x1 = -INFINITY;
		for (i = 0; i < r->nm; i++)
			if (of_wl(&r->m[i], wl)) {
				if (first == r->nm)
					first = i;
				c.x1 = fmax(c.x1, (double)r->ev[r->m[i].ev].seq);
			}
		if (first < r->nm) {
			c.x0 = r->nev ? (double)r->ev[0].seq : 0;
			for (i = first; i-- > 0;)
				if (!of_wl(&r->m[i], wl)) {
					c.x0 = (double)r->ev[r->m[i].ev].seq + 1;
					break;
				}
		}
		for (i = 0; i < b->njump; i++)
			if (b->jump[i].question >= 0)
				c.x0 = fmin(c.x0, (double)
					    r->ev[b->jump[i].question].seq);
		if (!isfinite(c.x0))
			c.x0 = 0, c.x1 = 1;
	}
	if (c.x1 <= c.x0)
		c.x1 = c.x0 + 1;
	for (i = 0; i < se->n; i++) {
		lo = fmin(lo, log(se->pt[i].speedup));
		hi = fmax(hi, log(se->pt[i].speedup));
	}
	if (!se->n)
		lo = -0.1, hi = 0.1;
	if (hi - lo < 0.1)
		lo -= 0.05, hi += 0.05;
	c.y0 = lo - 0.08 * (hi - lo);
	c.y1 = hi + 0.08 * (hi - lo);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"960\" "
		"height=\"370\" viewBox=\"0 0 960 370\" role=\"img\" "
		"aria-label=\"speedup over steps\">\n");
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"960\" height=\"370\" fill=\"#ffffff\"/>\n");
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		"fill=\"#fbfbfd\" stroke=\"#999\"/>\n", c.L, c.T, c.W, c.H);
	/* stalls: shaded bands */
	for (i = 0; i < nst; i++) {
		double a = cx(&c, (double)st[i].seq_first), z = cx(&c, (double)st[i].seq_last);

		fprintf(f, "<a href=\"#%sstall%zu\"><rect x=\"%.1f\" y=\"%.1f\" "
			"width=\"%.1f\" height=\"%.1f\" fill=\"#f4c542\" "
			"fill-opacity=\"0.22\"><title>stall %zu: %zu measurements",
			pfx, i + 1, a, c.T, fmax(2, z - a), c.H, i + 1,
			st[i].length);
		if (st[i].claim[0]) {
			fputs(", kept claiming ", f);
			esc(f, st[i].claim, 0);
		}
		fputs("</title></rect></a>\n", f);
	}
	/* y ticks on a log scale: 1-2-5 steps */
	for (int e = -6; e <= 6; e++)
		for (int m = 1; m <= 5; m += (m == 1 ? 1 : 3)) {
			double v = m * pow(10, e), y;

			if (log(v) < c.y0 || log(v) > c.y1)
				continue;
			y = cy(&c, v);
			fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#e3e3e3\"/><text x=\"%.1f\" y=\"%.1f\" "
				"font-size=\"11\" text-anchor=\"end\" fill=\"#333\">x%g</text>\n",
				c.L, c.L + c.W, y, y, c.L - 6, y + 4, v);
		}
	/* a narrow range has few 1-2-5 ticks: label the edges too */
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\" "
		"fill=\"#777\">x%.3g</text><text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" "
		"text-anchor=\"end\" fill=\"#777\">x%.3g</text>\n", c.L - 6,
		c.T + 10, exp(c.y1), c.L - 6, c.T + c.H, exp(c.y0));
	fprintf(f, "<text x=\"16\" y=\"%.1f\" font-size=\"12\" fill=\"#333\" "
		"transform=\"rotate(-90 16 %.1f)\" text-anchor=\"middle\">speedup "
		"(log)</text>\n", c.T + c.H / 2, c.T + c.H / 2);
	/* x ticks: event seq */
	for (int k = 0; k <= 8; k++) {
		/* whole seqs, each labelled once (a range of a few steps) */
		double s = floor(c.x0 + (c.x1 - c.x0) * k / 8.0 + 0.5), x = cx(&c, s);

		if (k && s == floor(c.x0 + (c.x1 - c.x0) * (k - 1) / 8.0 + 0.5))
			continue;
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
			"text-anchor=\"middle\" fill=\"#333\">%.0f</text>\n",
			x, c.T + c.H + 16, s);
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" "
		"text-anchor=\"middle\" fill=\"#333\">step (event seq)</text>\n",
		c.L + c.W / 2, c.T + c.H + 34);
	/* question markers */
	for (i = 0; i < r->nev; i++) {
		const kt_an_ev *e = &r->ev[i];
		int l;
		double x;

		if (!kt_an_is_question_ev(r, i) || !e->text ||
		    (double)e->seq < c.x0 || (double)e->seq > c.x1)
			continue;
		l = kt_an_layer_of(e->text, strlen(e->text), NULL);
		x = cx(&c, (double)e->seq);
		fprintf(f, "<a href=\"#e%llu\"><line x1=\"%.1f\" x2=\"%.1f\" "
			"y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\" "
			"stroke-dasharray=\"4 3\"/><path d=\"M%.1f %.1f l6 9 l-12 0 z\" "
			"fill=\"%s\"><title>Q #%llu (%s): ", (unsigned long long)e->seq,
			x, x, c.T, c.T + c.H, layer_color[l], x, c.T + 1,
			layer_color[l], (unsigned long long)e->seq, kt_an_layer_name(l));
		esc(f, e->text, 300);
		fputs("</title></path></a>\n", f);
	}
	/* best-so-far step line */
	if (se->n) {
		fputs("<polyline fill=\"none\" stroke=\"#1a5fb4\" stroke-width=\"2\" points=\"", f);
		for (i = 0; i < se->n; i++) {
			if (i)
				fprintf(f, "%.1f,%.1f ", cx(&c, (double)se->pt[i].seq),
					cy(&c, se->pt[i - 1].best));
			fprintf(f, "%.1f,%.1f ", cx(&c, (double)se->pt[i].seq),
				cy(&c, se->pt[i].best));
		}
		fprintf(f, "%.1f,%.1f\"/>\n", c.L + c.W, cy(&c, se->pt[se->n - 1].best));
	}
	/* every correct measurement */
	for (i = 0; i < se->n; i++) {
		const kt_an_point *p = &se->pt[i];

		fprintf(f, "<a href=\"#e%llu\"><circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
			"fill=\"%s\" stroke=\"#333\" stroke-width=\"0.5\"><title>step %zu "
			"(#%llu): x%.3f%s</title></circle></a>\n",
			(unsigned long long)p->seq, cx(&c, (double)p->seq),
			cy(&c, p->speedup), p->accepted ? "#26a269" : "#9a9a9a", i + 1,
			(unsigned long long)p->seq, p->speedup,
			p->outlier ? " (unconfirmed, not counted)" : "");
	}
	/* incorrect results: a rug of red crosses */
	for (i = 0; i < r->nm; i++) {
		const kt_an_meas *m = &r->m[i];
		double x;

		if (m->correct != 0 || !of_wl(m, wl))
			continue;
		x = cx(&c, (double)r->ev[m->ev].seq);
		fprintf(f, "<a href=\"#e%llu\"><path d=\"M%.1f %.1f l6 6 m0 -6 l-6 6\" "
			"stroke=\"#c01c28\" stroke-width=\"2\"><title>incorrect result "
			"#%llu</title></path></a>\n", (unsigned long long)r->ev[m->ev].seq,
			x - 3, c.T + c.H - 9, (unsigned long long)r->ev[m->ev].seq);
	}
	/* jumps: arrow from the blamed question (or the step before) up to the
	 * landing, with a label */
	for (i = 0; i < b->njump; i++) {
		const kt_an_jump *j = &b->jump[i];
		double xl = cx(&c, (double)se->pt[j->p_last].seq), yl = cy(&c, j->after);
		double xs = j->question >= 0 ? cx(&c, (double)r->ev[j->question].seq) :
			    cx(&c, (double)se->pt[j->p_prev].seq);
		double ys = cy(&c, j->before);

		fprintf(f, "<a href=\"#%sjump%zu\"><line x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\" stroke=\"#26a269\" stroke-width=\"2.5\" "
			"marker-end=\"url(#%sarr)\"/><text x=\"%.1f\" y=\"%.1f\" "
			"font-size=\"12\" font-weight=\"bold\" fill=\"#1c7c44\">J%zu x%.2f"
			"</text></a>\n", pfx, i + 1, xs, ys, xl, yl, pfx, xl + 4,
			yl - 8, i + 1, j->gain);
	}
	fprintf(f, "<defs><marker id=\"%sarr\" viewBox=\"0 0 10 10\" refX=\"9\" "
		"refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
		"orient=\"auto-start-reverse\"><path d=\"M0 0 L10 5 L0 10 z\" "
		"fill=\"#26a269\"/></marker></defs>\n", pfx);
	fputs("</svg>\n", f);
	/* legend */
	fputs("<p class=\"legend\">", f);
	for (int l = 1; l < KT_AN_NLAYERS; l++)
		fprintf(f, "<span><i style=\"background:%s\"></i>%s</span> ",
			layer_color[l], kt_an_layer_name(l));
	fprintf(f, "<span><i style=\"background:%s\"></i>unclassified</span> "
		"<span><i style=\"background:#26a269\"></i>jump</span> "
		"<span><i style=\"background:#f4c542\"></i>stall</span> "
		"<span><i style=\"background:#c01c28\"></i>incorrect</span></p>\n",
		layer_color[0]);
}

static void ev_summary(FILE *f, const kt_an_run *r, const kt_an_ev *e,
		       int multi)
{
	if (e->kind == KT_KIND_BENCH && e->meas >= 0) {
		const kt_an_meas *m = &r->m[e->meas];

		if (multi) {
			fputs("[", f);
			esc(f, an_key_name(m->key), 0);
			fputs("] ", f);
		}

		if (m->time_ms >= 0)
			fprintf(f, "%.4g ms ", m->time_ms);
		if (m->speedup >= 0)
			fprintf(f, "speedup x%.3g ", m->speedup);
		fputs(m->correct == 1 ? "correct" : m->correct == 0 ? "<b>incorrect</b>" :
		      "not checked", f);
		return;
	}
	if (!e->text)
		return;
	if (strlen(e->text) > 300) {
		fputs("<details><summary>", f);
		esc(f, e->text, 200);
		fputs("</summary><pre>", f);
		esc(f, e->text, 20000);
		fputs("</pre></details>", f);
	} else {
		esc(f, e->text, 0);
	}
}

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}"
	"h1{font-size:20px}h2{font-size:17px;margin-top:28px}"
	"table{border-collapse:collapse;width:100%}td,th{border:1px solid #ddd;"
	"padding:4px 6px;vertical-align:top;text-align:left}th{background:#f2f2f2}"
	".legend span{margin-right:12px;white-space:nowrap}.legend i{display:inline-block;"
	"width:12px;height:12px;margin-right:4px;vertical-align:middle}"
	"tr:target{background:#fff6c8}.k{color:#555;font-family:monospace}"
	"pre{white-space:pre-wrap;font-size:12px}.q{background:#eef6ff}"
	".meta{color:#555}section{border-top:2px solid #ccc;margin-top:28px}"
	"section:target{background:#fffbea}";

/* "N bench results excluded: 1 incorrect, ..." (the reasons of
 * kt_an_meas_excluded; nothing when none). */
static void excl_html(FILE *f, size_t inc, size_t unk, size_t notime)
{
	const char *sep = "";
	size_t n = inc + unk + notime;

	fprintf(f, "%zu bench result%s excluded", n, n == 1 ? "" : "s");
	if (!n)
		return;
	fputs(": ", f);
	if (inc) {
		fprintf(f, "%zu incorrect", inc);
		sep = ", ";
	}
	if (unk) {
		fprintf(f, "%s%zu not checked (others say correct)", sep, unk);
		sep = ", ";
	}
	if (notime)
		fprintf(f, "%s%zu without a time", sep, notime);
}

/* The jump table and the stalls of one series; anchors prefixed by pfx,
 * headings of level h ("h2", "h3"). */
static void series_tables(FILE *f, const kt_an_run *r, const kt_an_blame *b,
			  const kt_an_stall *st, size_t nst,
			  const kt_an_opts *o, const char *pfx, const char *h)
{
	fprintf(f, "<%s>Jumps</%s>\n", h, h);
	if (!b->njump)
		fputs("<p>No significant jump.</p>\n", f);
	else
		fputs("<table><tr><th>#</th><th>steps</th><th>speedup</th><th>gain</th>"
		      "<th>edits</th><th>blamed</th><th>lag</th><th>confidence</th>"
		      "<th>hypothesis</th></tr>\n", f);
	for (size_t k = 0; k < b->njump; k++) {
		const kt_an_jump *j = &b->jump[k];

		fprintf(f, "<tr id=\"%sjump%zu\"><td>J%zu</td><td><a href=\"#e%llu\">%zu</a>"
			"&#8594;<a href=\"#e%llu\">%zu</a></td><td>%.3f &#8594; %.3f</td>"
			"<td>x%.3f</td><td>", pfx, k + 1, k + 1,
			(unsigned long long)b->series.pt[j->p_prev].seq, j->p_prev + 1,
			(unsigned long long)b->series.pt[j->p_last].seq, j->p_last + 1,
			j->before, j->after, j->gain);
		for (size_t i = 0; i < j->nedits; i++) {
			const kt_an_ev *e = &r->ev[j->edits[i]];

			fprintf(f, "<a href=\"#e%llu\">#%llu</a> ", (unsigned long long)e->seq,
				(unsigned long long)e->seq);
			esc(f, e->text ? e->text : "", 80);
			fputs("<br>", f);
		}
		fprintf(f, "layer: %s%s</td><td>", kt_an_layer_name(j->edit_layer),
			j->artifact ? "<br><b>touches benchmark code</b>" : "");
		if (j->question >= 0) {
			const kt_an_ev *q = &r->ev[j->question];
			const kt_an_cand *cd = NULL;

			for (size_t i = 0; i < j->ncand; i++)
				if ((long)j->cand[i].ev == j->question)
					cd = &j->cand[i];
			fprintf(f, "<a href=\"#e%llu\">Q #%llu</a> <span style=\"color:%s\">"
				"[%s]</span> ", (unsigned long long)q->seq,
				(unsigned long long)q->seq,
				layer_color[cd ? cd->layer : 0],
				kt_an_layer_name(cd ? cd->layer : 0));
			esc(f, q->text, 600);
			fputs("</td><td>", f);
			if (cd) {
				fprintf(f, "%.0f calls", cd->lag_calls);
				if (cd->lag_min >= 0)
					fprintf(f, " / %.1f min", cd->lag_min);
			}
		} else {
			fputs("agent alone</td><td>-", f);
		}
		fprintf(f, "</td><td>%.2f (%s)</td><td>", j->confidence,
			an_conf_label(j, o));
		if (j->hypothesis >= 0) {
			fprintf(f, "<a href=\"#e%llu\">#%llu</a> [%s] ",
				(unsigned long long)r->ev[j->hypothesis].seq,
				(unsigned long long)r->ev[j->hypothesis].seq,
				kt_an_layer_name(j->hyp_layer));
			esc(f, r->ev[j->hypothesis].text, 400);
		}
		fputs("</td></tr>\n", f);
	}
	if (b->njump)
		fputs("</table>\n", f);
	fprintf(f, "<%s>Stalls</%s>\n", h, h);
	if (!nst)
		fputs("<p>No stall.</p>\n", f);
	for (size_t k = 0; k < nst; k++) {
		fprintf(f, "<p id=\"%sstall%zu\"><b>Stall %zu</b>: steps "
			"<a href=\"#e%llu\">%zu</a>&#8211;<a href=\"#e%llu\">%zu</a>, "
			"%zu measurements, %u tool calls, layer %s", pfx, k + 1, k + 1,
			(unsigned long long)st[k].seq_first, st[k].p_first + 1,
			(unsigned long long)st[k].seq_last, st[k].p_last + 1,
			st[k].length, st[k].calls, kt_an_layer_name(st[k].layer));
		if (st[k].claim[0]) {
			fputs("; kept claiming &#8220;", f);
			esc(f, st[k].claim, 0);
			fprintf(f, "&#8221; (%d messages)", st[k].claim_count);
		}
		if (st[k].n_incorrect + st[k].n_unknown + st[k].n_notime) {
			fputs("; ", f);
			excl_html(f, st[k].n_incorrect, st[k].n_unknown,
				  st[k].n_notime);
		}
		if (st[k].ended_by_jump >= 0)
			fprintf(f, "; ended by <a href=\"#%sjump%ld\">jump J%ld</a>.</p>\n",
				pfx, st[k].ended_by_jump + 1, st[k].ended_by_jump + 1);
		else
			fputs("; still stalled at the end.</p>\n", f);
	}
}

static void baseline_html(FILE *f, const kt_an_blame *b)
{
	char line[512];

	an_runtest_line(b, line, sizeof(line));
	fputs(line, f);
	fputc('.', f);
}

static void thresh_html(FILE *f, const kt_an_blame *b, const kt_an_opts *o)
{
	char nb[256];

	fprintf(f, "noise %.2f %% per measurement (", 100 * b->series.sigma);
	esc(f, an_noise_text(&b->series, nb, sizeof(nb)), 0);
	fprintf(f, "); a new best counts when its gain over the best so far is "
		"above x%.3f = max(min-gain %.3f, %.1f x noise of a ratio), and "
		"is a jump when the code changed since the measurement before.",
		exp(b->series.theta), o->min_gain, o->z);
}

/* The index of a run of several workloads and one section per workload
 * of two or more measurements. */
static void workload_sections(FILE *f, const kt_an_run *r,
			      const kt_an_blame *b, kt_an_stall *const *st,
			      const size_t *nst, const char **wl, size_t nw,
			      const kt_an_opts *o)
{
	size_t i, tot = 0, inc = 0, unk = 0, notime = 0, nj = 0, ns = 0;
	char pfx[32];

	for (i = 0; i < nw; i++) {
		tot += b[i].series.n;
		inc += b[i].series.n_incorrect;
		unk += b[i].series.n_unknown;
		notime += b[i].series.n_notime;
		nj += b[i].njump;
		ns += nst[i];
	}
	fprintf(f, "<p class=\"meta\">run <span class=\"k\">%s</span>, %zu "
		"events, %u tool calls.<br><b>%zu workloads, each its own "
		"series</b>: a jump or a stall is found within one workload, never "
		"from one problem to the next; %zu jump(s) and %zu stall(s) in all."
		"<br>%zu correct measurements (", r->id, r->nev, r->ncalls, nw, nj,
		ns, tot);
	excl_html(f, inc, unk, notime);
	fputs(").<br>speedup: ", f);
	esc(f, b[0].series.basis, 0);
	fprintf(f, ".<br>a new best counts above max(min-gain %.3f, %.1f x the "
		"noise of a ratio of that workload), confirmed by a later "
		"measurement.</p>\n", o->min_gain, o->z);
	fputs("<h2>Workloads</h2>\n<table><tr><th>#</th><th>workload</th>"
	      "<th>measurements</th><th>best speedup</th><th>jumps</th>"
	      "<th>stalls</th><th>excluded</th></tr>\n", f);
	for (i = 0; i < nw; i++) {
		const kt_an_series *se = &b[i].series;

		fprintf(f, "<tr id=\"w%zu-row\"><td>%zu</td><td>", i + 1, i + 1);
		if (se->n >= 2)
			fprintf(f, "<a href=\"#w%zu\">", i + 1);
		esc(f, *wl[i] ? wl[i] : "(no workload)", 0);
		fprintf(f, "%s</td><td>%zu</td><td>", se->n >= 2 ? "</a>" : "",
			se->n);
		if (se->n)
			fprintf(f, "x%.3f", se->pt[se->n - 1].best);
		else
			fputs("-", f);
		fprintf(f, "</td><td>%zu</td><td>%zu</td><td>", b[i].njump, nst[i]);
		excl_html(f, se->n_incorrect, se->n_unknown, se->n_notime);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n<p class=\"meta\">Workloads of fewer than two correct "
	      "measurements have no chart (nothing to compare).</p>\n", f);
	for (i = 0; i < nw; i++) {
		if (b[i].series.n < 2)
			continue;
		snprintf(pfx, sizeof(pfx), "w%zu-", i + 1);
		fprintf(f, "<section id=\"w%zu\">\n<h2>Workload %zu: ", i + 1,
			i + 1);
		esc(f, *wl[i] ? wl[i] : "(no workload)", 0);
		fprintf(f, "</h2>\n<p class=\"meta\">%zu correct measurements (",
			b[i].series.n);
		excl_html(f, b[i].series.n_incorrect, b[i].series.n_unknown,
			  b[i].series.n_notime);
		fputs(").<br>", f);
		thresh_html(f, &b[i], o);
		fputs("<br>", f);
		baseline_html(f, &b[i]);
		fputs("</p>\n<h3>Speedup over steps</h3>\n", f);
		svg_chart(f, r, &b[i], st[i], nst[i], wl[i], pfx);
		series_tables(f, r, &b[i], st[i], nst[i], o, pfx, "h3");
		fputs("</section>\n", f);
	}
}

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
	int json, npos, rc;
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
	if ((rc = kt_an_blame_workloads(s, r, &o, &b, &wl, &nb))) {
		rc = cli_store_err(c, s, rc, "report");
		goto out;
	}
	st = calloc(nb, sizeof(*st));
	nst = calloc(nb, sizeof(*nst));
	if (!st || !nst) {
		rc = cli_err(c, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nb; i++) {
		kt_an_opts ow = o;

		if (wl)
			ow.workload = wl[i];
		if ((rc = kt_an_stalls(r, &b[i], &ow, &st[i], &nst[i]))) {
			rc = cli_store_err(c, s, rc, "report");
			goto out;
		}
		njump += b[i].njump;
		nstall += nst[i];
	}
	if (!(f = fopen(outp, "w"))) {
		rc = cli_err(c, "%s: cannot write", outp);
		goto out;
	}
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<title>ktraj report: ", f);
	esc(f, r->name, 120);
	fprintf(f, "</title><style>%s</style></head><body>\n", css);
	fputs("<h1>ktraj report: ", f);
	esc(f, r->name, 200);
	fputs("</h1>\n", f);
	{
		uint64_t useq[8];
		size_t nu = kt_an_unparsed(r, useq, 8);

		if (nu) {
			fprintf(f, "<p class=\"meta\">%zu output%s looked like a "
				"benchmark but gave no time (seq", nu,
				nu == 1 ? "" : "s");
			for (size_t i = 0; i < nu && i < 8; i++)
				fprintf(f, " %llu", (unsigned long long)useq[i]);
			fprintf(f, "%s); they are in no series.</p>\n",
				nu > 8 ? " ..." : "");
		}
	}
	if (wl) {
		workload_sections(f, r, b, st, nst, wl, nb, &o);
	} else {
		fprintf(f, "<p class=\"meta\">run <span class=\"k\">%s</span>, "
			"%zu events, %u tool calls, %zu measurement%s from %zu "
			"bench results (%zu correct, %zu not checked; ",
			r->id, r->nev, r->ncalls, b->series.n,
			b->series.n == 1 ? "" : "s", b->series.n_results,
			b->series.n_correct, b->series.n_unchecked);
		excl_html(f, b->series.n_incorrect, b->series.n_unknown,
			  b->series.n_notime);
		fputs(").<br>speedup: ", f);
		esc(f, b->series.basis, 0);
		fputs(".<br>", f);
		thresh_html(f, b, &o);
		fputs("<br>", f);
		baseline_html(f, b);
		fputs("</p>\n<h2>Speedup over steps</h2>\n", f);
		svg_chart(f, r, b, st[0], nst[0], NULL, "");
		series_tables(f, r, b, st[0], nst[0], &o, "", "h2");
	}
	/* timeline */
	fputs("<h2>Timeline</h2>\n<table><tr><th>seq</th><th>time (UTC)</th>"
	      "<th>kind</th><th>actor</th><th>calls</th><th>what</th></tr>\n", f);
	for (size_t i = 0; i < r->nev; i++) {
		const kt_an_ev *e = &r->ev[i];
		char ts[32];
		const char *kn = kt_kind_name(e->kind);

		cli_ts_short(e->ts, ts, sizeof(ts));
		fprintf(f, "<tr id=\"e%llu\"%s><td><a href=\"#e%llu\">%llu</a></td>"
			"<td>%s</td><td>%s</td><td>%s</td><td>%u</td><td>",
			(unsigned long long)e->seq,
			kt_an_is_question_ev(r, i) ? " class=\"q\"" : "",
			(unsigned long long)e->seq, (unsigned long long)e->seq, ts,
			kn ? kn : "?",
			e->kind == KT_KIND_MESSAGE ? (e->human ? "human" :
			e->role == KT_AN_ROLE_ASSISTANT ? "agent" :
			e->role == KT_AN_ROLE_SYSTEM ? "system" : "user") :
			e->kind == KT_KIND_TOOL_CALL || e->kind == KT_KIND_EDIT ? "agent" :
			"tool", e->call);
		ev_summary(f, r, e, wl != NULL);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n<p class=\"meta\">Written by ktraj report; works offline, "
	      "no scripts.</p>\n</body></html>\n", f);
	if (ferror(f)) {
		rc = cli_err(c, "%s: write failed", outp);
		goto out;
	}
	if (wl)
		printf("wrote %s (%zu workloads, %zu jumps, %zu stalls, %zu "
		       "events)\n", outp, nb, njump, nstall, r->nev);
	else
		printf("wrote %s (%zu jumps, %zu stalls, %zu events)\n", outp,
		       njump, nstall, r->nev);
out:
	if (f && fclose(f) != 0 && !rc)
		rc = cli_err(c, "%s: write failed", outp);
	for (size_t i = 0; st && i < nb; i++)
		free(st[i]);
	free(st);
	free(nst);
	kt_an_blame_workloads_free(b, wl, nb);
	kt_an_run_free(r);
	kt_store_close(s);
	return rc;
}
