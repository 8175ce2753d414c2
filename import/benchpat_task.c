/*
 * benchpat_task.c - what a task prompt says of the benchmark it grades:
 * the baseline it names (kt_bench_task_baseline) and the metric it grades
 * or calls informational (kt_bench_task_metric), read when several
 * speedups are printed and no verifier names the graded one (FORMAT.md
 * section 14 "Graded result").  Split from benchpat.c; benchpat_int.h is
 * what they share.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "benchpat_int.h"

const char *kt_bench_task_baseline(const char *prompt)
{
	static const char *const cue[] = { "faster than", "beat ",
		"beating ", "outperform", "speedup over", "speedup vs",
		"speedup relative to", "speed-up over", "compared to",
		"relative to", NULL };
	const char *found = NULL;
	size_t n;
	char *low;
	int i;

	if (!prompt)
		return NULL;
	n = strlen(prompt);
	if (!(low = malloc(n + 1)))
		return NULL;
	bp_lower(low, prompt, n, n + 1);
	for (i = 0; cue[i]; i++) {
		const char *p = low;

		while ((p = strstr(p, cue[i]))) {
			char win[72];
			const char *b;

			/* the words right after the cue, up to the sentence's end */
			p += strlen(cue[i]);
			snprintf(win, sizeof(win), "%s", p);
			win[strcspn(win, "\n;")] = 0;
			{
				char *dot = strstr(win, ". ");

				if (dot)
					*dot = 0;
			}
			b = bp_baseline_in(win);
			if (!*b)
				continue;
			if (found && strcmp(found, b)) {
				free(low);
				return NULL;    /* two baselines named: no choice */
			}
			found = b;
		}
	}
	free(low);
	return found;
}

static int metric_ch(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.' ||
	       c == '-';
}

/* Copies the metric name at low[a..b) into buf (an identifier with '_'
 * or '.', quotes and a trailing '.' dropped), or leaves it alone; a
 * second, different name clears it for good (*two). */
static void task_name(const char *a, const char *b, char *buf, size_t n,
		      int *two)
{
	char w[64];
	size_t k;

	while (b > a && b[-1] == '.')
		b--;
	k = (size_t)(b - a);
	if (!k || k >= sizeof(w) || *two)
		return;
	memcpy(w, a, k);
	w[k] = 0;
	if (!strchr(w, '_') && !strchr(w, '.'))
		return;
	if (*buf && strcmp(buf, w)) {
		*buf = 0;
		*two = 1;
		return;
	}
	snprintf(buf, n, "%s", w);
}

/* The name right after low[at] (skipping spaces, "the" and quotes). */
static void name_after(const char *p, char *buf, size_t n, int *two)
{
	const char *e;

	while (*p == ' ' || *p == '`' || *p == '"' || *p == '\'' ||
	       *p == '*')
		p++;
	if (!strncmp(p, "the ", 4)) {
		name_after(p + 4, buf, n, two);
		return;
	}
	for (e = p; metric_ch(*e); e++)
		;
	task_name(p, e, buf, n, two);
}

/* The name right before low + at (skipping spaces and quotes). */
static void name_before(const char *low, const char *p, char *buf, size_t n,
			int *two)
{
	const char *b;

	while (p > low && (p[-1] == ' ' || p[-1] == '`' || p[-1] == '"' ||
			   p[-1] == '\'' || p[-1] == '*'))
		p--;
	for (b = p; b > low && metric_ch(b[-1]); b--)
		;
	task_name(b, p, buf, n, two);
}

void kt_bench_task_metric(const char *prompt, char *graded, size_t gn,
			  char *info, size_t in)
{
	/* phrases that name the graded metric after them, before them, and
	 * that call the metric before them informational */
	static const char *const after[] = { "graded on", "graded by",
		"scored on", "scored by", "evaluated on", "judged on",
		"ranked by", "rewarded on", "reward is", "score is",
		"graded metric is", "primary metric is", NULL };
	static const char *const before[] = { " is what counts",
		" is what matters", " is graded", " is the graded",
		" is scored", " is the score", " is the reward",
		" is the primary", " counts toward", NULL };
	static const char *const infos[] = { " is informational",
		" is only informational", " is for reference",
		" is reported for reference", " is not graded",
		" does not count", " (informational", " is ignored", NULL };
	int two_g = 0, two_i = 0, i;
	size_t n;
	char *low;

	if (gn)
		*graded = 0;
	if (in)
		*info = 0;
	if (!prompt || !gn || !in)
		return;
	n = strlen(prompt);
	if (!(low = malloc(n + 1)))
		return;
	bp_lower(low, prompt, n, n + 1);
	for (i = 0; after[i]; i++)
		for (const char *p = low; (p = strstr(p, after[i]));
		     p += strlen(after[i]))
			name_after(p + strlen(after[i]), graded, gn, &two_g);
	for (i = 0; before[i]; i++)
		for (const char *p = low; (p = strstr(p, before[i])); p++)
			name_before(low, p, graded, gn, &two_g);
	for (i = 0; infos[i]; i++)
		for (const char *p = low; (p = strstr(p, infos[i])); p++)
			name_before(low, p, info, in, &two_i);
	/* a task that grades one and calls the same informational names
	 * neither clearly */
	if (*graded && *info && !strcmp(graded, info))
		*graded = *info = 0;
	free(low);
}
