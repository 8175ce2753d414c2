/*
 * report.h - the HTML report of a run (export/report.c), what `ktraj
 * report` writes: one self-contained page (inline CSS, SVG and a small
 * script; nothing fetched) with a chart, jump table and stalls per series
 * and the run's timeline.  Layout: ../shared/research/analysis.md 4.2 and
 * 4.3.
 */
#ifndef KT_EXPORT_REPORT_H
#define KT_EXPORT_REPORT_H
#include <stddef.h>
#include <stdio.h>
#include "../store/store.h"
#include "../analyze/analyze.h"

/*
 * Write the report of run r (loaded with KT_AN_LOAD_EVERY |
 * KT_AN_LOAD_TOOLS, its series keyed by o->series_by) to f: nb series,
 * each with its blame b[i] and its stalls st[i] (nst[i] of them), as
 * kt_an_blame_workloads and kt_an_stalls give them.  wl names the series
 * (wl[i] of b[i]; NULL for a run of one series: nb is then 1).  Edits'
 * contents for the jump diffs and every event of the timeline are read
 * from s.  All trajectory text is escaped.
 *
 * Returns 0, or what reading an edit's content for a jump diff or the
 * timeline's events returned: the store's codes (KT_ECORRUPT, also for
 * a blob an edit names that is not stored; KT_EIO ...), KT_ENOMEM, or
 * KT_EIO when f reported a write error during the timeline.  The page is
 * then unfinished.  Other write errors are left in f's
 * error flag for the caller, which owns f (not closed here).
 */
int kt_export_report_html(FILE *f, kt_store *s, kt_an_run *r,
			  const kt_an_opts *o, const kt_an_blame *b,
			  const char **wl, kt_an_stall *const *st,
			  const size_t *nst, size_t nb);
#endif
