/*
 * report.c - the HTML report of a run (`ktraj report RUN -o FILE.html`,
 * report.h): one self-contained HTML file (inline CSS, SVG and a small script; nothing fetched) meant for a
 * paper's appendix:
 *  - one chart per series (the analyzers' series keys, FORMAT.md §14; a run
 *    of several workloads gets small multiples in a grid that follows the
 *    window's width), each with every correct measurement, the best so far,
 *    new-best steps, incorrect results, questions (colored by layer), jumps
 *    (an arrow from the blamed question, or from the step before when the
 *    agent made it alone, in two colours) and stalls (shaded);
 *  - per series what blame speedup's text says of it: its counts (correct
 *    and not checked apart), suspicious results, graded result and graded
 *    metric, the sweeps of a sweep series (marked not checked and
 *    suspicious as blame marks them), the jump table (question, edits and
 *    their diff, hypothesis) and the stalls;
 *  - the timeline: every event as `ktraj log` summarizes it (commands of
 *    tool calls, exit codes, bench numbers), failed builds and commands
 *    marked, with an anchor id="e<seq>", and a search box.
 * Everything is readable with scripts off (links, <title> tooltips,
 * <details>); the script only filters the timeline and highlights, on
 * hover, a jump's question and edits.  All trajectory text is escaped.
 * Layout follows analysis.md 4.2 (1, 3, 7) and 4.3 (static SVG, <title>
 * tooltips, <a href="#..."> deep links, <details> for long text).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "report.h"

static const char *const layer_color[KT_AN_NLAYERS] = {
	"#7f7f7f", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
	"#8c564b", "#e377c2",
};

/* A jump after a blamed question and one the agent made alone are told
 * apart by colour (and by the legend), colours no question layer uses. */
#define COL_JQ "#00838f"
#define COL_JA "#222222"

/* What every part of the page needs. */
struct rep {
	FILE *f;
	kt_store *s;
	kt_an_run *r;
	const kt_an_opts *o;
	int multi;             /* several series */
	int err;               /* a failed read of an edit's content */
};

/*
 * HTML/XML text escape; at most max bytes of s (0 = all), cut on a UTF-8
 * boundary with an ellipsis.  Control characters but tab and newline
 * become a space (they are not allowed in HTML text and a terminal escape
 * has no business in a report).
 */
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
			if (((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') ||
			    *s == 0x7f)
				fputc(' ', f);
			else
				fputc(*s, f);
		}
	}
}

/* Long text folded into <details> (the first 200 bytes as its summary). */
static void esc_long(FILE *f, const char *s, size_t fold, size_t max)
{
	if (strlen(s) <= fold) {
		esc(f, s, 0);
		return;
	}
	fputs("<details><summary>", f);
	esc(f, s, 200);
	fputs("</summary><pre>", f);
	esc(f, s, max);
	fputs("</pre></details>", f);
}

struct chart {
	double x0, x1, y0, y1;   /* data ranges: seq, log speedup */
	double L, T, W, H;       /* plot box in viewBox units */
	double VW, VH;           /* the viewBox */
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
 * The seq range of the chart of workload wl: from after the last result of
 * another series before this one's first (the questions asked in between
 * are about this one) to this one's last result, widened to the questions
 * blamed for its jumps.  The whole run for wl NULL.
 */
static void chart_range(const kt_an_run *r, const kt_an_blame *b,
			const char *wl, struct chart *c)
{
	size_t i, first = r->nm;

	c->x0 = r->nev ? (double)r->ev[0].seq : 0;
	c->x1 = r->nev ? (double)r->ev[r->nev - 1].seq : 1;
	if (wl) {
		c->x0 = INFINITY;
		c->x1 = -INFINITY;
		for (i = 0; i < r->nm; i++)
			if (of_wl(&r->m[i], wl)) {
				if (first == r->nm)
					first = i;
				c->x1 = fmax(c->x1, (double)r->ev[r->m[i].ev].seq);
			}
		if (first < r->nm) {
			c->x0 = r->nev ? (double)r->ev[0].seq : 0;
			for (i = first; i-- > 0;)
				if (!of_wl(&r->m[i], wl)) {
					c->x0 = (double)r->ev[r->m[i].ev].seq + 1;
					break;
				}
		}
		for (i = 0; i < b->njump; i++)
			if (b->jump[i].question >= 0)
				c->x0 = fmin(c->x0, (double)
					     r->ev[b->jump[i].question].seq);
		if (!isfinite(c->x0))
			c->x0 = 0, c->x1 = 1;
	}
	if (c->x1 <= c->x0)
		c->x1 = c->x0 + 1;
}

/* What blame credited for a jump: a question, or a person's statement
 * its bench declares it tried ("try cp.async": FORMAT.md section 2, the
 * bench's origin "human"), an idea - never called a question. */
static const char *blamed_kind(const kt_an_run *r, long i)
{
	return kt_an_is_question_ev(r, (size_t)i) ? "question" : "idea";
}

/* data-rel of jump j: the timeline rows (and question markers) a hover on
 * it highlights - its question and its edits. */
static void jump_rel(FILE *f, const kt_an_run *r, const kt_an_jump *j)
{
	const char *sep = "";

	fputs(" data-rel=\"", f);
	if (j->question >= 0) {
		fprintf(f, "e%llu", (unsigned long long)r->ev[j->question].seq);
		sep = " ";
	}
	for (size_t i = 0; i < j->nedits; i++, sep = " ")
		fprintf(f, "%se%llu", sep, (unsigned long long)r->ev[j->edits[i]].seq);
	fputc('"', f);
}

/*
 * The chart of one series (svg class "chart"): over the whole run (wl
 * NULL) or over the steps of workload wl, in a viewBox that the page
 * scales to the width it has (wide: the run's only chart; else one of the
 * small multiples).  Anchors and arrow markers are prefixed by pfx (""
 * or "w<N>-": several charts share the page).  Jump labels are placed
 * inside the viewBox: left of the landing when they would cross the right
 * edge, below it when they would cross the top.
 */
static void svg_chart(struct rep *x, const kt_an_blame *b,
		      const kt_an_stall *st, size_t nst, const char *wl,
		      const char *pfx, int wide)
{
	FILE *f = x->f;
	const kt_an_run *r = x->r;
	const kt_an_series *se = &b->series;
	struct chart c = {0, 1, 0, 1, 64, 18, 0, 0, 1200, 380};
	double lo = INFINITY, hi = -INFINITY, fs = wide ? 14 : 13;
	int nx = wide ? 10 : 5, nt = 0;
	size_t i;

	if (!wide)
		c.VW = 640, c.VH = 300, c.L = 58;
	c.W = c.VW - c.L - 14;
	c.H = c.VH - c.T - 44;
	chart_range(r, b, wl, &c);
	for (i = 0; i < se->n; i++) {
		lo = fmin(lo, log(se->pt[i].speedup));
		hi = fmax(hi, log(se->pt[i].speedup));
	}
	if (!se->n)
		lo = -0.1, hi = 0.1;
	if (hi - lo < 0.1)
		lo -= 0.05, hi += 0.05;
	c.y0 = lo - 0.08 * (hi - lo);
	c.y1 = hi + 0.12 * (hi - lo);
	fprintf(f, "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
		"viewBox=\"0 0 %.0f %.0f\" width=\"100%%\" role=\"img\" "
		"aria-label=\"speedup over steps\" data-series=\"", c.VW, c.VH);
	esc(f, wl ? wl : "", 0);
	fprintf(f, "\">\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%.1f\" fill=\"#fbfbfd\" stroke=\"#999\"/>\n",
		c.L, c.T, c.W, c.H);
	fprintf(f, "<defs><marker id=\"%sarrq\" viewBox=\"0 0 10 10\" refX=\"9\" "
		"refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\">"
		"<path d=\"M0 0 L10 5 L0 10 z\" fill=\"" COL_JQ "\"/></marker>"
		"<marker id=\"%sarra\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" "
		"markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path "
		"d=\"M0 0 L10 5 L0 10 z\" fill=\"" COL_JA "\"/></marker></defs>\n",
		pfx, pfx);
	for (i = 0; i < nst; i++) {
		double a = cx(&c, (double)st[i].seq_first), z = cx(&c, (double)st[i].seq_last);

		fprintf(f, "<a href=\"#%sstall%zu\"><rect class=\"stall\" "
			"x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			"fill=\"#f4c542\" fill-opacity=\"0.25\"><title>stall %zu: "
			"%zu measurements", pfx, i + 1, a, c.T, fmax(2, z - a), c.H,
			i + 1, st[i].length);
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
			nt++;
			fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#e3e3e3\"/><text x=\"%.1f\" y=\"%.1f\" "
				"font-size=\"%.0f\" text-anchor=\"end\" fill=\"#333\">x%g</text>\n",
				c.L, c.L + c.W, y, y, c.L - 6, y + 4, fs - 1, v);
		}
	/* a narrow range has few 1-2-5 ticks: label the edges instead */
	if (nt < 3)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\" "
			"text-anchor=\"end\" fill=\"#777\">x%.3g</text><text "
			"x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\" text-anchor=\"end\" "
			"fill=\"#777\">x%.3g</text>\n", c.L - 6, c.T + 10, fs - 2,
			exp(c.y1), c.L - 6, c.T + c.H, fs - 2, exp(c.y0));
	fprintf(f, "<text x=\"14\" y=\"%.1f\" font-size=\"%.0f\" fill=\"#333\" "
		"transform=\"rotate(-90 14 %.1f)\" text-anchor=\"middle\">speedup "
		"(log)</text>\n", c.T + c.H / 2, fs, c.T + c.H / 2);
	for (int k = 0; k <= nx; k++) {
		/* whole seqs, each labelled once (a range of a few steps) */
		double s = floor(c.x0 + (c.x1 - c.x0) * k / nx + 0.5);

		if (k && s == floor(c.x0 + (c.x1 - c.x0) * (k - 1) / nx + 0.5))
			continue;
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\" "
			"text-anchor=\"%s\" fill=\"#333\">%.0f</text>\n", cx(&c, s),
			c.T + c.H + 16, fs - 1, k == nx ? "end" : "middle", s);
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\" "
		"text-anchor=\"middle\" fill=\"#333\">step (event seq)</text>\n",
		c.L + c.W / 2, c.T + c.H + 34, fs);
	/* questions and declared ideas: a dashed line with a triangle, colored
	 * by layer */
	for (i = 0; i < r->nev; i++) {
		const kt_an_ev *e = &r->ev[i];
		int l;
		double xq;

		if ((!kt_an_is_question_ev(r, i) && !kt_an_declared_idea(r, i)) ||
		    !e->text ||
		    (double)e->seq < c.x0 || (double)e->seq > c.x1)
			continue;
		l = kt_an_layer_of(e->text, strlen(e->text), NULL);
		xq = cx(&c, (double)e->seq);
		fprintf(f, "<a class=\"qm\" href=\"#e%llu\" data-ev=\"e%llu\"><line "
			"x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"2\" stroke-dasharray=\"4 3\"/><path d=\"M%.1f "
			"%.1f l6 9 l-12 0 z\" fill=\"%s\"/><title>%s #%llu (%s): ",
			(unsigned long long)e->seq, (unsigned long long)e->seq,
			xq, xq, c.T, c.T + c.H, layer_color[l], xq, c.T + 1,
			layer_color[l], kt_an_is_question_ev(r, i) ? "Q" : "idea",
			(unsigned long long)e->seq, kt_an_layer_name(l));
		esc(f, e->text, 300);
		fputs("</title></a>\n", f);
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
	/* every measurement not found incorrect; a new best (above the
	 * threshold) is a larger blue dot; one nothing checked says so in its
	 * title, as blame's text does */
	for (i = 0; i < se->n; i++) {
		const kt_an_point *p = &se->pt[i];
		int unchecked = r->m[p->meas].correct < 0;

		fprintf(f, "<a href=\"#e%llu\"><circle class=\"%s\" cx=\"%.1f\" "
			"cy=\"%.1f\" r=\"%d\" fill=\"%s\" stroke=\"#333\" "
			"stroke-width=\"0.5\"><title>step %zu (#%llu): x%.3f%s%s"
			"</title></circle></a>\n", (unsigned long long)p->seq,
			p->newbest ? "pt nb" : "pt", cx(&c, (double)p->seq),
			cy(&c, p->speedup), p->newbest ? 6 : 4,
			p->newbest ? "#1a5fb4" : "#b0b0b0", i + 1,
			(unsigned long long)p->seq, p->speedup,
			p->newbest ? ", new best" : "",
			unchecked ? ", not checked" : "");
	}
	/* incorrect results: a rug of red crosses */
	for (i = 0; i < r->nm; i++) {
		const kt_an_meas *m = &r->m[i];
		double xi;

		if (m->correct != 0 || !of_wl(m, wl))
			continue;
		xi = cx(&c, (double)r->ev[m->ev].seq);
		fprintf(f, "<a href=\"#e%llu\"><path class=\"bad\" d=\"M%.1f %.1f "
			"l6 6 m0 -6 l-6 6\" stroke=\"#c01c28\" stroke-width=\"2\">"
			"<title>incorrect result #%llu</title></path></a>\n",
			(unsigned long long)r->ev[m->ev].seq, xi - 3, c.T + c.H - 9,
			(unsigned long long)r->ev[m->ev].seq);
	}
	/* jumps: an arrow from the blamed question (or the step before) up to
	 * the landing, labelled inside the viewBox */
	for (i = 0; i < b->njump; i++) {
		const kt_an_jump *j = &b->jump[i];
		double xl = cx(&c, (double)se->pt[j->p_last].seq), yl = cy(&c, j->after);
		double xs = j->question >= 0 ? cx(&c, (double)r->ev[j->question].seq) :
			    cx(&c, (double)se->pt[j->p_prev].seq);
		double ys = cy(&c, j->before), tx = xl + 6, ty = yl - 9, w;
		int q = j->question >= 0;
		char label[48];

		snprintf(label, sizeof(label), "J%zu x%.2f", i + 1, j->gain);
		/* bold digits are about 0.62 em wide */
		w = 0.62 * (fs + 1) * (double)strlen(label);
		if (tx + w > c.VW - 2)
			tx = fmax(2 + w, xl - 8);
		if (ty < fs + 2)
			ty = yl + fs + 8;
		fprintf(f, "<a class=\"jump %s\" href=\"#%sjump%zu\"", q ? "jq" : "ja",
			pfx, i + 1);
		jump_rel(f, r, j);
		fprintf(f, "><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"%s\" stroke-width=\"2.5\" marker-end=\"url(#%sarr%c)\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\" font-weight=\"bold\" "
			"text-anchor=\"%s\" fill=\"%s\" paint-order=\"stroke\" "
			"stroke=\"#fff\" stroke-width=\"3\">%s</text><title>%s: x%.3f "
			"&#8594; x%.3f, ", xs, ys, xl, yl, q ? COL_JQ : COL_JA, pfx,
			q ? 'q' : 'a', tx, ty, fs + 1, tx == xl + 6 ? "start" : "end",
			q ? COL_JQ : COL_JA, label, label, j->before, j->after);
		if (q) {
			fprintf(f, "after %s #%llu: ", blamed_kind(r, j->question),
				(unsigned long long)r->ev[j->question].seq);
			esc(f, r->ev[j->question].text, 200);
		} else {
			fputs("the agent alone", f);
		}
		fputs("</title></a>\n", f);
	}
	fputs("</svg>\n", f);
}

/* One legend for every chart of the page. */
static void legend(FILE *f)
{
	fputs("<p class=\"legend\"><b>questions and ideas:</b> ", f);
	for (int l = 1; l < KT_AN_NLAYERS; l++)
		fprintf(f, "<span><i style=\"background:%s\"></i>%s</span> ",
			layer_color[l], kt_an_layer_name(l));
	fprintf(f, "<span><i style=\"background:%s\"></i>unclassified</span><br>"
		"<span><i style=\"background:" COL_JQ "\"></i>jump after a question "
		"or a person's idea (arrow from it)</span> <span><i style=\"background:" COL_JA "\">"
		"</i>jump by the agent alone (arrow from the step before)</span> "
		"<span><i class=\"dot\" style=\"background:#1a5fb4\"></i>new best"
		"</span> <span><i class=\"dot\" style=\"background:#b0b0b0\"></i>"
		"other measurement (correct or not checked)</span> <span><i style=\"background:"
		"#1a5fb4;height:3px\"></i>best so far</span> <span><i style=\""
		"background:#f4c542\"></i>stall</span> <span><i style=\"background:"
		"#c01c28\"></i>incorrect result</span></p>\n", layer_color[0]);
}

/* "N bench results excluded: 1 incorrect, ..." in the words of blame and
 * stalls (kt_an_excl_text); nothing more when none.  Unparsed outputs are
 * left to the header's own line. */
static void excl_html(FILE *f, kt_an_excl x)
{
	struct kt_buf t = { 0 };
	size_t n;

	x.unparsed = 0;
	n = kt_an_excl_total(&x);
	fprintf(f, "%zu bench result%s excluded", n, n == 1 ? "" : "s");
	if (n && !kt_an_excl_text(&t, &x))
		fprintf(f, ": %s", t.s);
	kt_buf_free(&t);
}


static void baseline_html(FILE *f, const kt_an_blame *b)
{
	char line[512];

	kt_an_runtest_line(b, line, sizeof(line));
	fputs(line, f);
	fputc('.', f);
}

/* The lines blame prints under a series' counts, each its own line when
 * it has one: its suspect results (kt_an_suspects_line: a suspect result
 * that is no jump is shown nowhere else), the grader's verdict
 * (kt_an_graded_line) and which of several printed metrics the series
 * follows (kt_an_choice_line). */
static void graded_html(FILE *f, const kt_an_run *r, const kt_an_blame *b)
{
	char line[512];

	if (kt_an_suspects_line(r, &b->series, line, sizeof(line))) {
		fputs("<br><b class=\"susp\">", f);
		esc(f, line, 0);
		fputs("</b>", f);
	}
	if (kt_an_graded_line(r, b->series.key, line, sizeof(line))) {
		fputs("<br>graded: ", f);
		esc(f, line, 0);
		fputc('.', f);
	}
	if (kt_an_choice_line(r, b->series.key, line, sizeof(line))) {
		fputs("<br>graded metric: ", f);
		esc(f, line, 0);
	}
}

/* The sweeps of a sweep series, one line each as blame prints it
 * (kt_an_sweep_line), marked "not checked" and suspicious as blame marks
 * them: a suspect result in a sweep that is no jump shows only here. */
static void sweeps_html(struct rep *x, const kt_an_series *se,
			const char *pfx, const char *h)
{
	FILE *f = x->f;
	char line[256];

	if (!se->sweep || !se->n)
		return;
	fprintf(f, "<%s>Sweeps</%s>\n<ul class=\"sweeps\">\n", h, h);
	for (size_t i = 0; i < se->n; i++) {
		kt_an_scen_cmp *sc = NULL;
		size_t nsc = 0;
		double g = NAN;
		const char *why = kt_an_point_suspect(x->r, se, i);

		/* without memory for the scenarios the index stands */
		(void)kt_an_sweep_scenarios(x->r, se, i, &sc, &nsc, &g);
		free(sc);
		kt_an_sweep_line(se, i, g, line, sizeof(line));
		fprintf(f, "<li id=\"%ssweep%zu\">", pfx, i + 1);
		esc(f, line, 0);
		fputs(se->pt[i].unchecked ? " (not checked)" : "", f);
		if (why) {
			fputs(" <b class=\"susp\">(suspicious: ", f);
			esc(f, why, 0);
			fputs(")</b>", f);
		}
		fputs("</li>\n", f);
	}
	fputs("</ul>\n", f);
}

static void thresh_html(FILE *f, const kt_an_blame *b, const kt_an_opts *o)
{
	char nb[256];

	fprintf(f, "noise %.2f %% per measurement (", 100 * b->series.sigma);
	esc(f, kt_an_noise_text(&b->series, nb, sizeof(nb)), 0);
	fprintf(f, "); a new best counts when its gain over the best so far is "
		"above x%.3f = max(min-gain %.3f, %.1f x noise of a ratio), and "
		"is a jump when the code changed since the measurement before.",
		exp(b->series.theta), o->min_gain, o->z);
}


/*
 * The unified diff of the edits of jump j (each edit's file before and
 * after it, as `ktraj diff` writes them), folded in <details>; a note for
 * an edit whose content the trajectory does not hold.
 */
static void jump_diff(struct rep *x, const kt_an_jump *j)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return;
	for (size_t i = 0; i < j->nedits; i++) {
		const kt_an_ev *e = &x->r->ev[j->edits[i]];
		const kt_an_edit *ed = e->edit >= 0 ? &x->r->ed[e->edit] : NULL;
		const char *path = e->text ? e->text : "?";
		void *a = NULL, *z = NULL;
		size_t al = 0, zl = 0;
		char la[300], lz[300];
		int ra = 0, rz = 0;

		if (ed && ed->has_before)
			ra = kt_blob_get(x->s, ed->before, &a, &al);
		if (ed && ed->has_after && !ra)
			rz = kt_blob_get(x->s, ed->after, &z, &zl);
		/* an edit's content that cannot be read is damage, not "not in
		 * the trajectory": writers store every blob an edit names
		 * (FORMAT.md §2 "Blob references"), and `diff` and `verify` exit 3
		 * on it */
		if (ra || rz) {
			ra = ra ? ra : rz;
			x->err = ra == KT_ENOTFOUND ? KT_ECORRUPT : ra;
			free(a);
			free(z);
			break;
		}
		if (!ed || (!ed->has_before && !ed->has_after)) {
			fprintf(m, "#%llu %s: content not in the trajectory\n",
				(unsigned long long)e->seq, path);
		} else {
			/* git's labels, as `ktraj diff` writes them: an
			 * absolute path loses its first '/' after a/ and b/ */
			const char *rel = path + (path[0] == '/');

			snprintf(la, sizeof(la), "%s%s", ed->has_before ? "a/" : "",
				 ed->has_before ? rel : "/dev/null");
			snprintf(lz, sizeof(lz), "%s%s", ed->has_after ? "b/" : "",
				 ed->has_after ? rel : "/dev/null");
			fprintf(m, "#%llu\n", (unsigned long long)e->seq);
			kt_export_udiff(a, al, z, zl, la, lz, 3, m);
		}
		free(a);
		free(z);
	}
	if (fclose(m) == 0 && len) {
		fprintf(x->f, "<details class=\"diff\"><summary>diff of %zu "
			"edit%s</summary><pre>", j->nedits, j->nedits == 1 ? "" : "s");
		esc(x->f, buf, 60000);
		fputs("</pre></details>", x->f);
	}
	free(buf);
}

/* The jump table and the stalls of one series; anchors prefixed by pfx,
 * headings of level h ("h2", "h3"). */
static void series_tables(struct rep *x, const kt_an_blame *b,
			  const kt_an_stall *st, size_t nst, const char *pfx,
			  const char *h)
{
	FILE *f = x->f;
	const kt_an_run *r = x->r;

	sweeps_html(x, &b->series, pfx, h);
	fprintf(f, "<%s>Jumps</%s>\n", h, h);
	if (!b->njump)
		fputs("<p>No significant jump.</p>\n", f);
	else
		fputs("<table class=\"jumps\"><tr><th>#</th><th>steps</th>"
		      "<th>speedup</th><th>gain</th><th>edits</th><th>blamed</th>"
		      "<th>lag</th><th>confidence</th><th>hypothesis</th></tr>\n", f);
	for (size_t k = 0; k < b->njump; k++) {
		const kt_an_jump *j = &b->jump[k];

		fprintf(f, "<tr id=\"%sjump%zu\" class=\"%s\"", pfx, k + 1,
			j->question >= 0 ? "jq" : "ja");
		jump_rel(f, r, j);
		fprintf(f, "><td><b>J%zu</b></td><td><a href=\"#e%llu\">%zu</a>"
			"&#8594;<a href=\"#e%llu\">%zu</a></td><td>%.3f &#8594; %.3f</td>"
			"<td>x%.3f", k + 1,
			(unsigned long long)b->series.pt[j->p_prev].seq, j->p_prev + 1,
			(unsigned long long)b->series.pt[j->p_last].seq, j->p_last + 1,
			j->before, j->after, j->gain);
		{
			/* as blame says it: never a clean new best */
			const char *why = kt_an_point_suspect(r, &b->series,
							      j->p_last);

			if (!why)
				why = kt_an_point_suspect(r, &b->series, j->p_land);
			if (why) {
				fputs("<br><b class=\"susp\">suspicious: ", f);
				esc(f, why, 0);
				fputs("</b>", f);
			}
		}
		/* unknown correctness is never shown as correct */
		if (b->series.pt[j->p_land].unchecked)
			fputs("<br>not checked", f);
		fputs("</td><td>", f);
		if (j->edits_before_output) {
			/* as blame says it: one output printed both results,
			 * and the edits lie before it */
			const char *cn =
				r->m[b->series.pt[j->p_land].meas].candidate;

			fputs("before this benchmark run", f);
			if (*cn) {
				fputs(", which measured candidate ", f);
				esc(f, cn, 200);
				fputs(j->cand_first ? " for the first time" : "", f);
			}
			fputs(":<br>", f);
		}
		if (!j->nedits) {
			/* as blame says it: no edit is not no change */
			const kt_an_meas *ma =
				&r->m[b->series.pt[j->p_prev].meas],
				*mb = &r->m[b->series.pt[j->p_land].meas];

			fputs("none recorded", f);
			if (kt_an_code_differs(ma, mb))
				fputs(" (another candidate source was "
				      "measured)", f);
			else if (b->series.no_edits)
				fputs(" (the run records no edits: every new "
				      "result counts as a change)", f);
			fputs("<br>", f);
		}
		for (size_t i = 0; i < j->nedits; i++) {
			const kt_an_ev *e = &r->ev[j->edits[i]];

			fprintf(f, "<a href=\"#e%llu\">#%llu</a> ", (unsigned long long)e->seq,
				(unsigned long long)e->seq);
			esc(f, e->text ? e->text : "", 80);
			fputs("<br>", f);
		}
		fprintf(f, "layer: %s%s", kt_an_layer_name(j->edit_layer),
			j->artifact ? "<br><b>touches benchmark code</b>" : "");
		jump_diff(x, j);
		fputs("</td><td>", f);
		if (j->question >= 0) {
			const kt_an_ev *q = &r->ev[j->question];
			const kt_an_cand *cd = NULL;

			for (size_t i = 0; i < j->ncand; i++)
				if ((long)j->cand[i].ev == j->question)
					cd = &j->cand[i];
			fprintf(f, "<a href=\"#e%llu\">%s #%llu</a> <span style=\"color:%s\">"
				"[%s]</span> ", (unsigned long long)q->seq,
				kt_an_is_question_ev(r, (size_t)j->question) ? "Q" : "idea",
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
			kt_an_conf_label(j, x->o));
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
		if (kt_an_excl_total(&st[k].ex) > st[k].ex.unparsed) {
			fputs("; ", f);
			excl_html(f, st[k].ex);
		}
		if (st[k].ended_by_jump >= 0)
			fprintf(f, "; ended by <a href=\"#%sjump%ld\">jump J%ld</a>.</p>\n",
				pfx, st[k].ended_by_jump + 1, st[k].ended_by_jump + 1);
		else
			fputs("; still stalled at the end.</p>\n", f);
	}
}

/* Best first, then by step. */
static int cmp_speedup_desc(const void *a, const void *b)
{
	const kt_an_point *p = *(const kt_an_point *const *)a,
			  *q = *(const kt_an_point *const *)b;

	if (p->speedup != q->speedup)
		return p->speedup > q->speedup ? -1 : 1;
	return (p->seq > q->seq) - (p->seq < q->seq);
}

/* A series nothing orders in time (kt_an_series.unordered: a best-of-k
 * table sorted by runtime, one solution over many input shapes) is drawn
 * as what it is, a table best first: a chart over steps would show a
 * trend that is only the file's sort order. */
static void unordered_table(struct rep *x, const kt_an_series *se)
{
	FILE *f = x->f;
	const kt_an_point **v = malloc((se->n ? se->n : 1) * sizeof(*v));

	fputs("<p class=\"meta\">No order: no result has a timestamp and the "
	      "run has no edit or tool call, so these results are a table, not "
	      "successive attempts. They are listed best first, not drawn over "
	      "steps; no new best, jump or stall is read from them.</p>\n"
	      "<table class=\"unordered\"><tr><th>#</th><th>seq</th>"
	      "<th>speedup</th><th>results</th></tr>\n", f);
	for (size_t i = 0; v && i < se->n; i++)
		v[i] = &se->pt[i];
	if (v && se->n > 1)
		qsort(v, se->n, sizeof(*v), cmp_speedup_desc);
	for (size_t i = 0; i < se->n; i++) {
		const kt_an_point *p = v ? v[i] : &se->pt[i];

		fprintf(f, "<tr><td>%zu</td><td><a href=\"#e%llu\">%llu</a></td>"
			"<td>x%.3f</td><td>%zu</td></tr>\n", i + 1,
			(unsigned long long)p->seq, (unsigned long long)p->seq,
			p->speedup, p->nres);
	}
	fputs("</table>\n", f);
	free(v);
}

/* A series' name for people. */
static void wl_name(FILE *f, const char *wl)
{
	esc(f, *wl ? wl : "(no workload)", 0);
}

/* A run of several series: the charts side by side, the index of every
 * series, one section per charted series (two or more measurements). */
static void workload_sections(struct rep *x, const kt_an_blame *b,
			      kt_an_stall *const *st, const size_t *nst,
			      const char **wl, size_t nw)
{
	FILE *f = x->f;
	const kt_an_run *r = x->r;
	size_t i, tot = 0, nres = 0, nok = 0, nunk = 0, nj = 0, ns = 0;
	kt_an_excl ex = { 0 };
	char pfx[32];

	for (i = 0; i < nw; i++) {
		tot += b[i].series.n;
		nres += b[i].series.n_results;
		nok += b[i].series.n_correct;
		nunk += b[i].series.n_unchecked;
		kt_an_excl one = kt_an_series_excl(&b[i].series);

		ex.incorrect += one.incorrect;
		ex.unknown += one.unknown;
		ex.notime += one.notime;
		ex.noref += one.noref;
		ex.failed += one.failed;
		nj += b[i].njump;
		ns += nst[i];
	}
	fprintf(f, "<p class=\"meta\">run <span class=\"k\">%s</span>, %zu "
		"events, %u tool calls.<br><b>%zu workloads, each its own "
		"series</b>: a jump or a stall is found within one workload, never "
		"from one problem to the next; %zu jump(s) and %zu stall(s) in all."
		"<br>%zu measurements from %zu bench results (%zu correct, %zu "
		"not checked; ", r->id, r->nev, r->ncalls, nw, nj, ns, tot, nres,
		nok, nunk);
	excl_html(f, ex);
	fputs(").<br>speedup: ", f);
	esc(f, b[0].series.basis, 0);
	fprintf(f, ".<br>a new best counts above max(min-gain %.3f, %.1f x the "
		"noise of a ratio of that workload), confirmed by a later "
		"measurement.</p>\n", x->o->min_gain, x->o->z);
	fputs("<h2>Speedup over steps, one chart per series</h2>\n", f);
	legend(f);
	fputs("<div class=\"grid\">\n", f);
	for (i = 0; i < nw; i++) {
		const kt_an_series *se = &b[i].series;

		if (se->n < 2)
			continue;
		snprintf(pfx, sizeof(pfx), "w%zu-", i + 1);
		fprintf(f, "<figure class=\"series\" id=\"w%zu-chart\"><figcaption>"
			"<a href=\"#w%zu\">%zu. ", i + 1, i + 1, i + 1);
		wl_name(f, wl[i]);
		fprintf(f, "</a> <span class=\"meta\">%zu measurements, best "
			"x%.3f, %zu jump%s, %zu stall%s</span></figcaption>\n", se->n,
			se->pt[se->n - 1].best, b[i].njump, b[i].njump == 1 ? "" : "s",
			nst[i], nst[i] == 1 ? "" : "s");
		if (se->unordered)
			unordered_table(x, se);
		else
			svg_chart(x, &b[i], st[i], nst[i], wl[i], pfx, 0);
		fputs("</figure>\n", f);
	}
	fputs("</div>\n<h2>Workloads</h2>\n<table><tr><th>#</th><th>workload</th>"
	      "<th>measurements</th><th>best speedup</th><th>jumps</th>"
	      "<th>stalls</th><th>excluded</th></tr>\n", f);
	for (i = 0; i < nw; i++) {
		const kt_an_series *se = &b[i].series;

		fprintf(f, "<tr id=\"w%zu-row\"><td>%zu</td><td>", i + 1, i + 1);
		if (se->n >= 2)
			fprintf(f, "<a href=\"#w%zu\">", i + 1);
		wl_name(f, wl[i]);
		fprintf(f, "%s</td><td>%zu</td><td>", se->n >= 2 ? "</a>" : "",
			se->n);
		if (se->n)
			fprintf(f, "x%.3f", se->pt[se->n - 1].best);
		else
			fputs("-", f);
		fprintf(f, "</td><td>%zu</td><td>%zu</td><td>", b[i].njump, nst[i]);
		excl_html(f, kt_an_series_excl(se));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n<p class=\"meta\">Workloads of fewer than two "
	      "measurements have no chart (nothing to compare).</p>\n", f);
	for (i = 0; i < nw; i++) {
		if (b[i].series.n < 2)
			continue;
		snprintf(pfx, sizeof(pfx), "w%zu-", i + 1);
		fprintf(f, "<section id=\"w%zu\">\n<h2>Workload %zu: ", i + 1,
			i + 1);
		wl_name(f, wl[i]);
		fprintf(f, "</h2>\n<p class=\"meta\"><a href=\"#w%zu-chart\">chart"
			"</a>; %zu measurement%s from %zu bench results (%zu "
			"correct, %zu not checked; ", i + 1, b[i].series.n,
			b[i].series.n == 1 ? "" : "s", b[i].series.n_results,
			b[i].series.n_correct, b[i].series.n_unchecked);
		excl_html(f, kt_an_series_excl(&b[i].series));
		fputs(").<br>", f);
		thresh_html(f, &b[i], x->o);
		graded_html(f, r, &b[i]);
		fputs("<br>", f);
		baseline_html(f, &b[i]);
		fputs("</p>\n", f);
		series_tables(x, &b[i], st[i], nst[i], pfx, "h3");
		fputs("</section>\n", f);
	}
}

/* A run of one series. */
static void one_series(struct rep *x, const kt_an_blame *b,
		       const kt_an_stall *st, size_t nst)
{
	FILE *f = x->f;
	const kt_an_run *r = x->r;

	fprintf(f, "<p class=\"meta\">run <span class=\"k\">%s</span>, "
		"%zu events, %u tool calls, %zu measurement%s from %zu "
		"bench results (%zu correct, %zu not checked; ",
		r->id, r->nev, r->ncalls, b->series.n,
		b->series.n == 1 ? "" : "s", b->series.n_results,
		b->series.n_correct, b->series.n_unchecked);
	excl_html(f, kt_an_series_excl(&b->series));
	fputs(").<br>speedup: ", f);
	esc(f, b->series.basis, 0);
	fputs(".<br>", f);
	thresh_html(f, b, x->o);
	graded_html(f, r, b);
	fputs("<br>", f);
	baseline_html(f, b);
	fputs(b->series.unordered ? "</p>\n<h2>Results</h2>\n" :
	      "</p>\n<h2>Speedup over steps</h2>\n", f);
	if (!b->series.unordered)
		legend(f);
	fputs("<div class=\"grid one\"><figure class=\"series\" id=\"chart\">\n", f);
	if (b->series.unordered)
		unordered_table(x, &b->series);
	else
		svg_chart(x, b, st, nst, NULL, "", 1);
	fputs("</figure></div>\n", f);
	series_tables(x, b, st, nst, "", "h2");
}

/* One timeline row per event, as `ktraj log` summarizes it, with its
 * status (exit code, correctness) in a column of its own. */
static int timeline_row(const kt_event *ev, void *arg)
{
	struct rep *x = arg;
	FILE *f = x->f;
	cJSON *p = cJSON_ParseWithLength(ev->payload, ev->payload_len);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(p, "exit_code");
	const cJSON *ok = cJSON_GetObjectItemCaseSensitive(p, "ok");
	const char *kn = kt_kind_name(ev->kind);
	long i = kt_an_run_find(x->r, ev->seq);
	const kt_an_meas *m = i >= 0 && x->r->ev[i].meas >= 0 ?
			      &x->r->m[x->r->ev[i].meas] : NULL;
	int q = i >= 0 && (kt_an_is_question_ev(x->r, (size_t)i) ||
			   kt_an_declared_idea(x->r, (size_t)i)), fail = 0;
	char ts[32], *what = malloc(16384);
	char st[64] = "";

	if (!what) {
		cJSON_Delete(p);
		return KT_ENOMEM;
	}
	kt_export_event_summary(ev, p, what, 16384);
	kt_export_ts_short(ev->ts_ns, ts, sizeof(ts));
	if ((ev->kind == KT_KIND_COMPILE || ev->kind == KT_KIND_TOOL_RESULT) &&
	    cJSON_IsNumber(v)) {
		fail = v->valueint != 0;
		snprintf(st, sizeof(st), "%sexit %d",
			 fail && ev->kind == KT_KIND_COMPILE ? "build FAILED, " : "",
			 v->valueint);
	} else if (ev->kind == KT_KIND_COMPILE && cJSON_IsFalse(ok)) {
		fail = 1;
		snprintf(st, sizeof(st), "build FAILED");
	} else if (ev->kind == KT_KIND_TOOL_RESULT) {
		fail = cJSON_IsFalse(ok);
		snprintf(st, sizeof(st), "%s", fail ? "error" : "ok");
	} else if (ev->kind == KT_KIND_BENCH) {
		v = cJSON_GetObjectItemCaseSensitive(p, "correct");
		fail = cJSON_IsFalse(v);
		snprintf(st, sizeof(st), "%s", cJSON_IsTrue(v) ? "correct" :
			 fail ? "INCORRECT" : "not checked");
	}
	fprintf(f, "<tr id=\"e%llu\" data-ev=\"e%llu\" class=\"k-%s%s%s\"><td>"
		"<a href=\"#e%llu\">%llu</a></td><td>%s</td><td>%s</td><td>",
		(unsigned long long)ev->seq, (unsigned long long)ev->seq,
		kn ? kn : "unknown", q ? " q" : "", fail ? " fail" : "",
		(unsigned long long)ev->seq, (unsigned long long)ev->seq, ts,
		kn ? kn : "?");
	esc(f, ev->actor ? ev->actor : "", 40);
	fprintf(f, "</td><td>%s</td><td>", st);
	if (m && x->multi) {
		fputs("<span class=\"sk\">[", f);
		esc(f, kt_an_key_name(m->key), 0);
		fputs("]</span> ", f);
	}
	esc_long(f, what, 300, 16384);
	fputs("</td></tr>\n", f);
	free(what);
	cJSON_Delete(p);
	return ferror(f) ? KT_EIO : 0;
}

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:16px 24px;color:#222}"
	"h1{font-size:20px}h2{font-size:17px;margin-top:28px}h3{font-size:15px}"
	"table{border-collapse:collapse;width:100%}td,th{border:1px solid #ddd;"
	"padding:3px 6px;vertical-align:top;text-align:left}th{background:#f2f2f2}"
	".legend span{margin-right:12px;white-space:nowrap}.legend i{display:"
	"inline-block;width:12px;height:12px;margin-right:4px;vertical-align:"
	"middle}.legend i.dot{border-radius:6px}"
	".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(520px,"
	"1fr));gap:10px 18px}.grid.one{grid-template-columns:1fr}"
	"figure{margin:0;border:1px solid #e4e4e4;padding:4px}figcaption{"
	"font-weight:600;margin:2px 4px}svg.chart{display:block;height:auto}"
	"tr:target,section:target,figure:target{background:#fff6c8}"
	".k{color:#555;font-family:monospace}.meta{color:#555;font-weight:normal}"
	"pre{white-space:pre-wrap;font-size:12px;margin:2px 0}"
	"#tl td:last-child{white-space:pre-wrap;word-break:break-word}"
	"#tl td:nth-child(2){white-space:nowrap}.q{background:#eef6ff}"
	"tr.fail td:nth-child(5){color:#c01c28;font-weight:bold}tr.fail{"
	"background:#fdecec}tr.jq td:first-child{border-left:4px solid " COL_JQ "}"
	"tr.ja td:first-child{border-left:4px solid " COL_JA "}.sk{color:#555}"
	"section{border-top:2px solid #ccc;margin-top:28px}"
	".hl,tr.hl{background:#ffe27a!important}.qm.hl line,.qm.hl path{"
	"stroke:#000;stroke-width:4}.jump:hover line{stroke-width:4}"
	"#find{width:24em;font:inherit;padding:2px 6px}";

/* Search (filters the timeline rows) and the hover highlight of a jump's
 * question and edits; without it the page loses only these two. */
static const char script[] =
	"(function(){var q=document.getElementById('find'),"
	"n=document.getElementById('nfound'),"
	"rows=document.querySelectorAll('#tl tr[id]');q.disabled=false;"
	"q.addEventListener('input',function(){var t=q.value.toLowerCase(),k=0;"
	"rows.forEach(function(r){var m=!t||r.textContent.toLowerCase()."
	"indexOf(t)>=0;r.hidden=!m;if(m)k++;});n.textContent=t?k+' of '+"
	"rows.length+' events':'';});"
	"function hl(e,on){e.getAttribute('data-rel').split(' ').forEach("
	"function(id){if(id)document.querySelectorAll('[data-ev=\"'+id+'\"]')."
	"forEach(function(y){y.classList.toggle('hl',on);});});}"
	"document.querySelectorAll('[data-rel]').forEach(function(e){"
	"e.addEventListener('mouseenter',function(){hl(e,true);});"
	"e.addEventListener('mouseleave',function(){hl(e,false);});});})();";

int kt_export_report_html(FILE *f, kt_store *s, kt_an_run *r,
			  const kt_an_opts *o, const kt_an_blame *b,
			  const char **wl, kt_an_stall *const *st,
			  const size_t *nst, size_t nb)
{
	struct rep x = {f, s, r, o, wl != NULL, 0};
	int rc;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width\">"
	      "<title>ktraj report: ", f);
	esc(f, r->name, 120);
	fprintf(f, "</title><style>%s</style></head><body>\n", css);
	fputs("<h1>ktraj report: ", f);
	esc(f, r->name, 200);
	fputs("</h1>\n", f);
	{
		uint64_t useq[8];
		const char *why[8];
		size_t nu = kt_an_unparsed(r, useq, 8);
		size_t nw = kt_an_unparsed_reasons(r, why, 8);

		/* grouped by stored reason, as blame and stalls say it */
		if (nu)
			fprintf(f, "<p class=\"meta\">%zu output%s looked like a "
				"benchmark but gave no time", nu,
				nu == 1 ? "" : "s");
		for (size_t k = 0; nu && k < nw && k < 8; k++) {
			size_t m = kt_an_unparsed_why(r, why[k], useq, 8);

			if (nw == 1 && !*why[k])
				fputs(" (seq", f);
			else if (!*why[k])
				fprintf(f, "%s %zu no time could be read (seq",
					k ? ";" : ":", m);
			else {
				fprintf(f, "%s %zu ", k ? ";" :
					" of the agent's code:", m);
				esc(f, why[k], 200);
				fputs(" (seq", f);
			}
			for (size_t i = 0; i < m && i < 8; i++)
				fprintf(f, " <a href=\"#e%llu\">%llu</a>",
					(unsigned long long)useq[i],
					(unsigned long long)useq[i]);
			fprintf(f, "%s)", m > 8 ? " ..." : "");
		}
		if (nu)
			fprintf(f, "%s; they are in no series.</p>\n",
				nw > 8 ? "; ..." : "");
	}
	if (wl)
		workload_sections(&x, b, st, nst, wl, nb);
	else
		one_series(&x, b, st[0], nst[0]);
	fprintf(f, "<h2 id=\"timeline\">Timeline</h2>\n<p><input type=\"search\" "
		"id=\"find\" placeholder=\"search the %zu events\" aria-label=\""
		"search the timeline\" disabled> <span id=\"nfound\" class=\"meta\">"
		"</span><noscript> (search needs scripts: use the browser's find)"
		"</noscript></p>\n<table id=\"tl\"><tr><th>seq</th><th>time (UTC)"
		"</th><th>kind</th><th>actor</th><th>status</th><th>what</th></tr>\n",
		r->nev);
	if (x.err)
		return x.err;
	rc = kt_event_foreach_body(s, r->id, 1, 0, 0, timeline_row, &x);
	if (rc)
		return rc;
	fprintf(f, "</table>\n<p class=\"meta\">Written by ktraj report; works "
		"offline, nothing is fetched.</p>\n<script>%s</script>\n"
		"</body></html>\n", script);
	return 0;
}
