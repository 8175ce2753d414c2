/*
 * t_export_report.c - the HTML report as a library call
 * (kt_export_report_html, export/report.c) on runs built through the store
 * API: hostile trajectory text is escaped everywhere it lands (title,
 * heading, timeline, actor), terminal controls never reach the page, every
 * event gets its anchor, a run of several workloads gets one section per
 * series, and a stream that fails while the timeline is written gives
 * KT_EIO instead of a page silently cut short.  The CLI can only ever hand
 * the page a regular file it opened itself.
 */
#include "testutil.h"
#include "../../analyze/analyze.h"
#include "../../export/report.h"

struct fx {
	struct tu_run t;
	/* what the report needs, as `ktraj report` computes it */
	kt_an_run *r;
	kt_an_opts o;
	kt_an_blame *b;
	const char **wl;
	kt_an_stall **st;
	size_t *nst, nb;
};

static void fx_open(struct fx *f, const char *name)
{
	memset(f, 0, sizeof(*f));
	tu_run_open(&f->t, name);
}

/* An event a minute after the previous one. */
static uint64_t fx_ev(struct fx *f, int kind, const char *actor,
		      const char *payload)
{
	return tu_run_ev(&f->t, kind, actor, 60000000000LL, payload);
}

static void fx_bench(struct fx *f, const char *wl, double sp)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "{\"workload\":\"%s\",\"time_ms\":%.4f,"
		 "\"ref_time_ms\":1,\"speedup\":%.4f,\"correct\":true}", wl,
		 1.0 / sp, sp);
	fx_ev(f, KT_KIND_BENCH, "tool", buf);
}

/* Commit, load and analyze the run as cmd_report does. */
static void fx_analyze(struct fx *f)
{
	assert_int_equal(kt_store_commit(f->t.s), KT_OK);
	assert_int_equal(kt_an_run_load_ex(f->t.s, f->t.id, KT_AN_LOAD_EVERY |
					   KT_AN_LOAD_TOOLS, &f->r), KT_OK);
	kt_an_opts_default(&f->o);
	assert_int_equal(kt_an_blame_workloads(f->t.s, f->r, &f->o, &f->b,
					       &f->wl, &f->nb), KT_OK);
	f->st = calloc(f->nb, sizeof(*f->st));
	f->nst = calloc(f->nb, sizeof(*f->nst));
	assert_non_null(f->st);
	assert_non_null(f->nst);
	for (size_t i = 0; i < f->nb; i++) {
		kt_an_opts ow = f->o;

		if (f->wl)
			ow.workload = f->wl[i];
		assert_int_equal(kt_an_stalls(f->r, &f->b[i], &ow, &f->st[i],
					      &f->nst[i]), KT_OK);
	}
}

/* The page written to memory; *rc gets kt_export_report_html's code. */
static char *fx_page(struct fx *f, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	*rc = kt_export_report_html(m, f->t.s, f->r, &f->o, f->b, f->wl, f->st,
				    f->nst, f->nb);
	assert_int_equal(fclose(m), 0);
	return buf;
}

static void fx_close(struct fx *f)
{
	for (size_t i = 0; f->st && i < f->nb; i++)
		free(f->st[i]);
	free(f->st);
	free(f->nst);
	kt_an_blame_workloads_free(f->b, f->wl, f->nb);
	kt_an_run_free(f->r);
	tu_run_close(&f->t);
}

static const char hostile[] =
	"<script>alert(1)</script> \\u001b]0;owned\\u0007 & \\\"q\\\" 'a'";

static void test_hostile_text_escaped(void **state)
{
	struct fx f;
	char buf[512], *page;
	int rc;

	(void)state;
	fx_open(&f, "<b>run</b> & \"name\"");
	snprintf(buf, sizeof(buf), "{\"role\":\"user\",\"human\":true,"
		 "\"text\":\"%s\"}", hostile);
	fx_ev(&f, KT_KIND_MESSAGE, "<i>human</i>", buf);
	fx_bench(&f, "k", 1.0);
	fx_bench(&f, "k", 1.5);
	fx_analyze(&f);
	page = fx_page(&f, &rc);
	assert_int_equal(rc, KT_OK);
	/* the run's name in the title and the heading */
	assert_non_null(strstr(page, "<title>ktraj report: &lt;b&gt;run&lt;/b&gt; "
			       "&amp; &quot;name&quot;</title>"));
	assert_non_null(strstr(page, "<h1>ktraj report: &lt;b&gt;run"));
	/* the message in the timeline, its actor too */
	assert_non_null(strstr(page, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	assert_non_null(strstr(page, "&lt;i&gt;human&lt;/i&gt;"));
	assert_non_null(strstr(page, "&#39;a&#39;"));
	assert_null(strstr(page, "<script>alert"));
	assert_null(strstr(page, "<b>run"));
	/* ESC and BEL became spaces: no terminal control in the file */
	assert_null(strchr(page, '\x1b'));
	assert_null(strchr(page, '\x07'));
	assert_non_null(strstr(page, " ]0;owned "));
	/* one anchored row per event, and a closed page */
	assert_non_null(strstr(page, "<tr id=\"e1\""));
	assert_non_null(strstr(page, "<tr id=\"e3\""));
	assert_null(strstr(page, "<tr id=\"e4\""));
	assert_non_null(strstr(page, "</body></html>\n"));
	free(page);
	fx_close(&f);
}

/* Two workloads: one section per series (#w1, #w2), each with its chart,
 * both named in the page. */
static void test_workload_sections(void **state)
{
	struct fx f;
	char *page;
	int rc;

	(void)state;
	fx_open(&f, "two workloads");
	fx_ev(&f, KT_KIND_MESSAGE, "human", "{\"role\":\"user\",\"human\":true,"
	      "\"text\":\"Make both kernels faster.\"}");
	for (int i = 0; i < 4; i++)
		fx_bench(&f, "A_softmax", 1.0 + 0.5 * i);
	for (int i = 0; i < 4; i++)
		fx_bench(&f, "B_reduce", 2.0 + 0.5 * i);
	fx_analyze(&f);
	assert_int_equal(f.nb, 2);
	assert_non_null(f.wl);
	page = fx_page(&f, &rc);
	assert_int_equal(rc, KT_OK);
	assert_non_null(strstr(page, "id=\"w1\""));
	assert_non_null(strstr(page, "id=\"w2\""));
	assert_non_null(strstr(page, "id=\"w1-chart\""));
	assert_non_null(strstr(page, "A_softmax"));
	assert_non_null(strstr(page, "B_reduce"));
	assert_non_null(strstr(page, "<tr id=\"e9\""));
	free(page);
	fx_close(&f);
}

/* A stream that fails during the timeline (a full disk) is reported, not
 * taken for a written page. */
static void test_write_error(void **state)
{
	struct fx f;
	char small[4096];
	FILE *m;

	(void)state;
	fx_open(&f, "full disk");
	for (int i = 0; i < 40; i++)
		fx_bench(&f, "k", 1.0 + 0.01 * i);
	fx_analyze(&f);
	m = fmemopen(small, sizeof(small), "w");
	assert_non_null(m);
	setvbuf(m, NULL, _IONBF, 0);
	assert_int_equal(kt_export_report_html(m, f.t.s, f.r, &f.o, f.b, f.wl,
					       f.st, f.nst, f.nb), KT_EIO);
	fclose(m);
	fx_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile_text_escaped),
		cmocka_unit_test(test_workload_sections),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
