/*
 * t_analyze.c - the analyzers: question rules (EN/ZH), normalization, layer
 * lexicons, claims; blame, stalls and the question library on runs built
 * through the store API.
 */
#include "testutil.h"
#include <math.h>
#include "../../analyze/an_int.h"
#include <cjson/cJSON.h>

/* ---- text rules ---------------------------------------------------------- */
static int count_cb(const char *s, size_t n, unsigned k, void *arg)
{
	(void)s;
	(void)n;
	(void)k;
	(*(int *)arg)++;
	return 0;
}

static int nq(const char *t)
{
	int n = 0;

	kt_an_questions_extract(t, strlen(t), count_cb, &n);
	return n;
}

static void t_questions_en(void **st)
{
	(void)st;
	assert_int_equal(nq("What do you mean theres no matrix multiplication function?"), 1);
	assert_int_equal(nq("Do we not have GPU convolution? And what steps are needed?"), 2);
	assert_int_equal(nq("I need you to verify that we are doing the same operations for both"), 1);
	assert_int_equal(nq("Why not use the C direct comparison script you wrote"), 1);
	assert_int_equal(nq("are you sure the kernel is memory-bound"), 1);
	/* plain instructions and courtesy are not questions */
	assert_int_equal(nq("Lets do the system package approach please"), 0);
	assert_int_equal(nq("Both in the order specified"), 0);
	assert_int_equal(nq("Do the same for the other kernel."), 0);
	assert_int_equal(nq("can you continue?"), 0);
	assert_int_equal(nq("Look in the /bench folder"), 0);
	assert_int_equal(nq("check the status.md and then run the tests"), 0);
	/* pasted terminal output and code are skipped */
	assert_int_equal(nq("user@host:~/x$ pip install foo\nMake sure you have python3-full installed?"), 0);
	assert_int_equal(nq("```\nwhy is this code here?\n```\nok"), 0);
	/* "vs." does not end the sentence */
	assert_int_equal(nq("Why is our library slower vs. the competition on the GPU"), 1);
}

/* Material a person pasted (issue 15): the titles in a reference list are
 * not questions; the person's own question after the paste still is. */
static void t_questions_pasted_refs(void **st)
{
	(void)st;
	assert_int_equal(nq("Here is the reference text I copied:\n\n"
			    "Lee, A. (2019). Do tiles help small matrices? Tech. rep.\n"
			    "Kim, B. (2022). Why are reductions latency bound? arXiv.\n\n"
			    "Put these in the bibliography."), 0);
	assert_int_equal(nq("Here are the abstracts:\n"
			    "Can shared memory hide latency? We show it can.\n\n"
			    "Why is our kernel slower than theirs?"), 1);
	/* a reference list without a lead-in, and a BibTeX entry */
	assert_int_equal(nq("[1] Park, C. et al. (2021). Is FP8 enough for attention?"), 0);
	assert_int_equal(nq("Ruiz, D. (2018), Are GPUs memory bound?"), 0);
	/* a person's own lines that name a paper or a reference */
	assert_int_equal(nq("Why is our kernel slower than the reference in Lee, A. (2019)?"), 1);
	assert_int_equal(nq("Here is what I think:\nwhy not fuse the two kernels?"), 1);
}

/* A table of sentences and how many questions each holds; a failure names
 * the text. */
struct nq_case {
	const char *text;
	int n;
};

static void nq_cases(const struct nq_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (nq(c[i].text) != c[i].n)
			fail_msg("\"%s\": %d questions, want %d", c[i].text,
				 nq(c[i].text), c[i].n);
}

/* Requests for work in question form are instructions (issue 15: the
 * corpus' vsla_cuda_dev session, raw lines 206 and 398); a wh-word, a
 * named technique or a bound keeps the question. */
static void t_questions_requests(void **st)
{
	static const struct nq_case cases[] = {
		{"Can you run the benchmarks of our library vs. the competition and make sure it uses the GPU", 0},
		{"Can we get the other two libraries working and get a CPU comparison included too.", 0},
		{"Can you add type hints?", 0},
		{"So could you please update the README?", 0},
		{"Want me to add tests?", 0},
		{"Would you like me to start by fixing the urgent structural issues, or would you prefer to use multiple agents?", 0},
		/* asks for an answer */
		{"Can you figure out which one we lost?", 1},
		{"Can you tell me the register count of the kernel?", 1},
		{"Can you remind me where the results folder is?", 1},
		{"Could you run it again and see if the gain holds?", 1},
		/* proposes a technique, a measurement method, or names a bound */
		{"Could you prefetch the next tile with cp.async and double buffering?", 1},
		{"Can we fuse the bias into the epilogue?", 1},
		{"Can you rerun the benchmark with a proper warmup?", 1},
		{"Can you get it closer to the theoretical peak?", 1},
		/* a challenge stays a challenge behind the same opener */
		{"Can you verify that the kernel is really memory-bound?", 1},
		/* the same auxiliaries asking about the code are questions */
		{"Can the two passes share one loop over the row?", 1},
		{"Could the layernorm and the quantize step share one pass?", 1},
	};

	(void)st;
	nq_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

/* Markdown structure in a message (the agent's under --agent): headings,
 * bold titles, bullet fragments and menu options are not questions; full
 * questions in a list are (issue 15, vsla_cuda_dev seq 795). */
static void t_questions_markdown(void **st)
{
	static const struct nq_case cases[] = {
		{"## Why the kernel is slow\nok", 0},
		{"**Why CuPy is valuable:**\n- Python-based GPU arrays", 0},
		{"**Next steps?**", 0},
		{"- Would provide comprehensive Python vs C GPU comparison", 0},
		{"Would you like me to:\n1. Add GPU convolution benchmarking first?\n2. Install CuPy?\n3. Or do both?", 0},
		{"* Option A: keep the old kernel around?", 0},
		/* full questions in a list, and challenges, are asked */
		{"Two things:\n1. Why is the kernel memory-bound?\n2. Did you check the coalescing?", 2},
		{"- verify that the kernel is really memory-bound", 1},
		{"- 为什么内层循环里每次都要同步？", 1},
		/* the same words as a sentence of their own are questions */
		{"Why is CuPy valuable here?", 1},
	};

	(void)st;
	nq_cases(cases, sizeof(cases) / sizeof(cases[0]));
}

/* The shapes of the paper-writing negative control (issue 15) and their
 * real-question twins. */
static void t_questions_symbols(void **st)
{
	(void)st;
	/* '?' as a symbol: quoted, standing alone, LaTeX's ?? */
	assert_int_equal(nq("Do a search on 0.43 and count the number of \"?\" symbols and their locations."), 0);
	assert_int_equal(nq("many refs are still undefined with ? marks. Also update the version."), 0);
	assert_int_equal(nq("Section 3 shows ?? instead of the figure number, fix it"), 0);
	assert_int_equal(nq("Why does section 3 show the figure number wrong??"), 1);
	/* LaTeX and code are quoted material */
	assert_int_equal(nq("Why not \\mathrm{}?"), 0);
	assert_int_equal(nq("Why not use mathrm for the operators?"), 1);
	/* a pasted table ends the message's own words */
	assert_int_equal(nq("Use this:\nCategory    Style    Why\nSets\tWhy not this one?\tok"), 0);
	/* verify/confirm challenge a claim, not a task */
	assert_int_equal(nq("verify the current paper is compiling post re architecture and looks ok"), 0);
	assert_int_equal(nq("verify that the kernel is really memory-bound"), 1);
	assert_int_equal(nq("Please confirm the speedup is real"), 1);
	/* the one definition, with task prompts */
	assert_int_equal(kt_an_human_question("claude_code", 0, 0, "Is it coalesced?", 16), 1);
	assert_int_equal(kt_an_human_question("inspect", 1, 0, "Is it coalesced?", 16), 0);
	assert_int_equal(kt_an_human_question("claude_code", 0, 0, "Fix the \"?\" marks", 18), 0);
	/* over a message's payload and the run's state (loader and NDJSON
	 * export alike) */
	{
		kt_an_msg m = { "Is it coalesced?", 16, 1, 0, 0 };
		kt_an_qstate none = { 0, 0 }, called = { 0, 1 }, spoke = { 1, 0 };
		cJSON *p;

		assert_int_equal(kt_an_msg_question("claude_code", &none, &m, NULL, NULL), 1);
		/* before the agent acted, a harness's prompt; after a tool
		 * call or a reply, a question */
		assert_int_equal(kt_an_msg_question("inspect", &none, &m, NULL, NULL), 0);
		assert_int_equal(kt_an_msg_task("inspect", &none, &m), 1);
		assert_int_equal(kt_an_msg_question("inspect", &called, &m, NULL, NULL), 1);
		assert_int_equal(kt_an_msg_question("inspect", &spoke, &m, NULL, NULL), 1);
		m.meta = 1;
		assert_int_equal(kt_an_msg_question("claude_code", &spoke, &m, NULL, NULL), 0);
		m.meta = 0;
		m.human = 0;
		assert_int_equal(kt_an_msg_question("claude_code", &spoke, &m, NULL, NULL), 0);
		m.human = 1;
		m.input_source = 1;
		assert_int_equal(kt_an_msg_question("claude_code", &spoke, &m, NULL, NULL), 0);
		/* the payload read as the loader reads it */
		p = cJSON_Parse("{\"human\":true,\"flags\":[\"thinking\"],\"text\":\"Is it coalesced?\"}");
		assert_non_null(p);
		kt_an_msg_of_json(p, &m);
		assert_int_equal(m.human, 1);
		assert_int_equal(m.meta, 0);
		assert_int_equal(m.len, 16);
		assert_int_equal(kt_an_msg_question("claude_code", &spoke, &m, NULL, NULL), 1);
		cJSON_Delete(p);
		p = cJSON_Parse("{\"human\":true,\"flags\":[\"meta\"],\"text\":\"Is it coalesced?\","
				"\"extra\":{\"source\":\"input\"}}");
		assert_non_null(p);
		kt_an_msg_of_json(p, &m);
		assert_int_equal(m.meta, 1);
		assert_int_equal(m.input_source, 1);
		assert_int_equal(kt_an_msg_question("claude_code", &spoke, &m, NULL, NULL), 0);
		cJSON_Delete(p);
	}
}

/* Agent alone against all questions together, not the best one. */
static void t_decide_combined(void **st)
{
	kt_an_cand c[2];
	kt_an_jump j;

	(void)st;
	memset(&j, 0, sizeof(j));
	memset(c, 0, sizeof(c));
	c[0].ev = 9;
	c[0].raw = 0.2;
	c[1].ev = 7;
	c[1].raw = 0.15;
	j.cand = c;
	j.ncand = 2;
	kt_an_decide(&j, 0.3);
	/* each alone loses to 0.3; together (0.35) they win: the larger is
	 * named */
	assert_int_equal(j.question, 9);
	assert_true(fabs(j.p_any_question - 0.35 / 0.65) < 1e-9);
	assert_true(fabs(c[0].p - 0.2 / 0.65) < 1e-9);
	kt_an_decide(&j, 0.4);
	assert_int_equal(j.question, -1);
	assert_true(fabs(j.p_question - 0.4 / 0.75) < 1e-9);
	/* ties go to the first listed (the later question) */
	c[1].raw = 0.2;
	kt_an_decide(&j, 0.1);
	assert_int_equal(j.question, 9);
	/* lag carries weight without overlap: a question one call before the
	 * change that the agent acted on outweighs the default prior */
	{
		kt_an_opts o;
		kt_an_cand q;

		kt_an_opts_default(&o);
		memset(&q, 0, sizeof(q));
		q.lag_calls = 1;
		q.lag_min = -1;
		q.uptake = 0.5;
		assert_true(kt_an_cand_raw(&q, &o, 1) > o.w_self);
		/* untouched and about nothing: a third of that */
		q.uptake = 0;
		assert_true(kt_an_cand_raw(&q, &o, 0) < 0.1);
	}
}

static void t_questions_zh(void **st)
{
	(void)st;
	assert_int_equal(nq("为什么你确定这个内核已经达到带宽上限了？"), 1);
	assert_int_equal(nq("是不是每个线程只算一个输出元素？寄存器分块有没有试过？"), 2);
	assert_int_equal(nq("这个kernel真的已经最快了吗"), 1);
	assert_int_equal(nq("继续优化。"), 0);
	assert_int_equal(nq("好的"), 0);
	assert_true(kt_an_question_kind("请确认一下测量是否准确", strlen("请确认一下测量是否准确")) &
		    KT_AN_Q_CHALLENGE);
}

static void t_normalize(void **st)
{
	char *n = NULL;
	const char *t = "Why is `myKernel` at 87.5% in /src/k.cu? ＡＢＣ tile";

	(void)st;
	assert_int_equal(kt_an_normalize(t, strlen(t), &n), KT_OK);
	assert_non_null(strstr(n, "<id>"));
	assert_non_null(strstr(n, "<num>"));
	assert_non_null(strstr(n, "<path>"));
	assert_non_null(strstr(n, "abc"));   /* full-width folded, lowercased */
	assert_non_null(strstr(n, "tile"));  /* technical term kept */
	assert_null(strchr(n, '?'));
	free(n);
}

static void t_layers_and_flags(void **st)
{
	const char *a = "Are the loads coalesced, any bank conflicts in shared memory?";
	const char *b = "How many bytes move from DRAM, is it really bandwidth-bound?";
	const char *c = "Did you look at the SASS, is the loop unrolled?";
	const char *d = "为什么不把这三个算子融合成一个kernel？";
	const char *e = "Are you sure we are at the theoretical peak?";
	const char *f = "Instead of tuning the kernel, where is the time going?";

	(void)st;
	assert_int_equal(kt_an_layer_of(a, strlen(a), NULL), KT_AN_L_MEMACCESS);
	assert_int_equal(kt_an_layer_of(b, strlen(b), NULL), KT_AN_L_DATAMOVE);
	assert_int_equal(kt_an_layer_of(c, strlen(c), NULL), KT_AN_L_COMPILER);
	assert_int_equal(kt_an_layer_of(d, strlen(d), NULL), KT_AN_L_OPBOUND);
	assert_int_equal(kt_an_layer_of("hello there", 11, NULL), KT_AN_L_NONE);
	assert_true(kt_an_text_flags(e, strlen(e)) & KT_AN_F_BOUND);
	assert_true(kt_an_text_flags(f, strlen(f)) & KT_AN_F_RELOCATE);
	assert_false(kt_an_text_flags(a, strlen(a)) & KT_AN_F_RELOCATE);
	assert_string_equal(kt_an_layer_name(KT_AN_L_MEASURE), "measurement");
	assert_string_equal(kt_an_layer_name(99), "unclassified");
}

/* Tensor-core words: the matrix instructions are compiler output, the
 * loads feeding them (TMA, cp.async, warp specialization) data movement,
 * ldmatrix memory access, mbarrier synchronization; whole words only. */
static void t_layers_tensor_cores(void **st)
{
	static const struct {
		const char *text;
		int layer;
	} cases[] = {
		{"Is the GEMM using the tensor cores at all?", KT_AN_L_COMPILER},
		{"Why not issue WGMMA here?", KT_AN_L_COMPILER},
		{"does it lower to wgmma or to mma.sync?", KT_AN_L_COMPILER},
		{"Are the MMA instructions in the inner loop?", KT_AN_L_COMPILER},
		{"Could a tensor-core path help?", KT_AN_L_COMPILER},
		{"为什么不用张量核心？", KT_AN_L_COMPILER},
		{"Why not load the tiles with TMA?", KT_AN_L_DATAMOVE},
		{"Have you tried warp specialization for this kernel?",
		 KT_AN_L_DATAMOVE},
		{"Can cp.async overlap the loads?", KT_AN_L_DATAMOVE},
		{"Does ldmatrix remove the conflicts?", KT_AN_L_MEMACCESS},
		{"Is every mbarrier wait needed?", KT_AN_L_SYNC},
		/* no whole word: "mma" inside a word, "tma" with a suffix */
		{"gemma summary", KT_AN_L_NONE},
		{"the tmax value", KT_AN_L_NONE},
		{"dilemma ahead", KT_AN_L_NONE},
	};
	const char *q = "Use mma.sync and WGMMA, tcgen05?";
	char *n;

	(void)st;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		int l = kt_an_layer_of(cases[i].text, strlen(cases[i].text),
				       NULL);

		if (l != cases[i].layer)
			fail_msg("\"%s\": layer %s, want %s", cases[i].text,
				 kt_an_layer_name(l),
				 kt_an_layer_name(cases[i].layer));
	}
	/* the instruction names stay words in the normal form, not a path
	 * or an identifier placeholder */
	assert_int_equal(kt_an_normalize(q, strlen(q), &n), KT_OK);
	assert_non_null(strstr(n, "mma.sync"));
	assert_non_null(strstr(n, "wgmma"));
	assert_non_null(strstr(n, "tcgen05"));
	assert_null(strstr(n, "<path>"));
	free(n);
}

struct claims {
	int n;
	double pct;
	const char *key;
};

static void claim_cb(const char *key, double pct, void *arg)
{
	struct claims *c = arg;

	c->n++;
	c->key = key;
	c->pct = pct;
}

static void t_claims(void **st)
{
	struct claims c = {0};
	const char *t = "Kernel is memory bandwidth bound at 82.8% of peak DRAM throughput. "
			"It is not compute-bound.";

	(void)st;
	kt_an_claims(t, strlen(t), claim_cb, &c);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.key, "memory-bound");
	assert_true(fabs(c.pct - 82.8) < 1e-9);
}

static void t_tokens(void **st)
{
	uint64_t *a = NULL, *b = NULL;
	size_t na, nb;
	const char *q = "are the global loads 16 bytes wide?";
	const char *r = "The loads are 4 bytes wide; vectorizing global loads.";

	(void)st;
	assert_int_equal(kt_an_tokens(q, strlen(q), &a, &na), KT_OK);
	assert_int_equal(kt_an_tokens(r, strlen(r), &b, &nb), KT_OK);
	assert_true(na >= 4);
	assert_true(kt_an_containment(a, na, b, nb) >= 0.75);
	assert_true(kt_an_containment(b, nb, a, na) < 1.0);
	free(a);
	free(b);
}

/* ---- runs through the store ------------------------------------------------ */
struct fx {
	char *dir;
	kt_store *s;
	char id[KT_RUN_ID_HEX + 1];
	uint64_t seq;
	int64_t ts;
};

static void fx_open_fmt(struct fx *f, const char *name, const char *format);

static void fx_open(struct fx *f, const char *name)
{
	fx_open_fmt(f, name, "test");
}

static void fx_open_fmt(struct fx *f, const char *name, const char *format)
{
	char path[4200];

	memset(f, 0, sizeof(*f));
	f->dir = tu_tmpdir();
	assert_non_null(f->dir);
	snprintf(path, sizeof(path), "%s/s.ktraj", f->dir);
	assert_int_equal(kt_store_open(path, KT_OPEN_CREATE, &f->s), KT_OK);
	kt_run_id_from_identity(name, f->id);
	assert_int_equal(kt_store_begin(f->s), KT_OK);
	assert_int_equal(kt_run_create(f->s, f->id, name, format, NULL), KT_OK);
	f->ts = 1700000000000000000LL;
}

static uint64_t fx_ev(struct fx *f, int kind, const char *actor,
		      uint64_t parent, const char *payload)
{
	return tu_append(f->s, f->id, ++f->seq, parent,
			 f->ts += 30000000000LL, kind, actor, payload);
}

static uint64_t fx_msg(struct fx *f, int human, const char *text)
{
	char buf[2048];

	snprintf(buf, sizeof(buf), "{\"role\":\"%s\",\"human\":%s,\"text\":\"%s\"}",
		 human ? "user" : "assistant", human ? "true" : "false", text);
	return fx_ev(f, KT_KIND_MESSAGE, human ? "human" : "agent", 0, buf);
}

static uint64_t fx_round(struct fx *f, double speedup, int correct)
{
	char buf[512];
	uint64_t c = fx_ev(f, KT_KIND_TOOL_CALL, "agent", 0,
			   "{\"tool\":\"Edit\",\"call_id\":\"x\",\"args\":{}}");

	fx_ev(f, KT_KIND_EDIT, "agent", c,
	      "{\"path\":\"k.cu\",\"op\":\"modify\",\"before\":null,\"after\":null}");
	c = fx_ev(f, KT_KIND_TOOL_CALL, "agent", 0,
		  "{\"tool\":\"Bash\",\"call_id\":\"y\",\"args\":{\"command\":\"./bench\"}}");
	snprintf(buf, sizeof(buf), "{\"time_ms\":%.4f,\"ref_time_ms\":10,\"speedup\":%.4f,"
		 "\"correct\":%s}", 10.0 / speedup, speedup, correct ? "true" : "false");
	return fx_ev(f, KT_KIND_BENCH, "tool", c, buf);
}

static void fx_close(struct fx *f)
{
	kt_store_close(f->s);
	tu_rmrf(f->dir);
	free(f->dir);
}

static void t_blame_planted(void **st)
{
	struct fx f;
	kt_an_run *r = NULL;
	kt_an_blame b, b2;
	kt_an_opts o;
	uint64_t q;
	static const double plat[] = {1.00, 1.01, 0.99, 1.00, 1.02};

	(void)st;
	fx_open(&f, "test:planted");
	fx_msg(&f, 1, "Make the kernel faster.");
	for (int i = 0; i < 5; i++)
		fx_round(&f, plat[i], 1);
	fx_round(&f, 3.5, 0); /* fast but wrong: must not count */
	fx_msg(&f, 0, "Hypothesis: staging tiles in shared memory should cut global loads.");
	fx_round(&f, 1.60, 1);  /* agent alone */
	for (int i = 0; i < 4; i++)
		fx_round(&f, 1.60 * plat[i], 1);
	fx_msg(&f, 1, "How long will this take?"); /* distractor */
	for (int i = 0; i < 2; i++)
		fx_round(&f, 1.61 * plat[i], 1);
	q = fx_msg(&f, 1, "Are the global loads 16 bytes wide, or should you vectorize with float4?");
	fx_msg(&f, 0, "The global loads are 4 bytes wide; vectorizing with float4.");
	fx_round(&f, 2.40, 1);
	for (int i = 0; i < 4; i++)
		fx_round(&f, 2.40 * plat[i], 1);
	assert_int_equal(kt_store_commit(f.s), KT_OK);

	assert_int_equal(kt_an_run_load(f.s, f.id, &r), KT_OK);
	kt_an_opts_default(&o);
	assert_int_equal(kt_an_blame_run(f.s, r, &o, &b), KT_OK);
	assert_int_equal(b.njump, 2);
	assert_true(fabs(b.jump[0].gain - 1.60 / 1.02) < 0.01);
	assert_int_equal(b.jump[0].question, -1);
	assert_true(b.jump[0].hypothesis >= 0);
	assert_non_null(strstr(r->ev[b.jump[0].hypothesis].text, "shared memory"));
	assert_true(b.jump[1].question >= 0);
	assert_int_equal(r->ev[b.jump[1].question].seq, q);
	assert_true(b.jump[1].gain > 1.4 && b.jump[1].gain < 1.55);
	assert_true(b.series.n_excluded == 1);
	assert_true(b.p_value > 0 && b.p_value <= 1);
	/* same input and seed: the same p-values; another seed may differ */
	assert_int_equal(kt_an_blame_run(f.s, r, &o, &b2), KT_OK);
	assert_true(b.p_random == b2.p_random && b.p_shift == b2.p_shift);
	kt_an_blame_free(&b2);
	/* a higher minimum gain hides the smaller jump */
	o.min_gain = 1.55;
	assert_int_equal(kt_an_blame_run(f.s, r, &o, &b2), KT_OK);
	assert_int_equal(b2.njump, 1);
	kt_an_blame_free(&b2);
	kt_an_blame_free(&b);
	kt_an_run_free(r);
	fx_close(&f);
}

static void t_stall_claim(void **st)
{
	struct fx f;
	kt_an_run *r = NULL;
	kt_an_blame b;
	kt_an_opts o;
	kt_an_stall *s = NULL;
	size_t n = 0;
	static const double v[] = {1.0, 1.02, 0.99, 1.01, 1.03, 0.98, 1.0, 1.02};

	(void)st;
	fx_open(&f, "test:stall");
	for (int i = 0; i < 8; i++) {
		char t[200];

		snprintf(t, sizeof(t), "The kernel is memory-bound at %d.5%% of peak bandwidth.",
			 82 + i % 4);
		fx_msg(&f, 0, t);
		fx_round(&f, v[i], 1);
	}
	assert_int_equal(kt_store_commit(f.s), KT_OK);
	assert_int_equal(kt_an_run_load(f.s, f.id, &r), KT_OK);
	kt_an_opts_default(&o);
	assert_int_equal(kt_an_blame_run(f.s, r, &o, &b), KT_OK);
	assert_int_equal(b.njump, 0);
	assert_int_equal(kt_an_stalls(r, &b, &o, &s, &n), KT_OK);
	assert_int_equal(n, 1);
	assert_int_equal(s[0].length, 8);
	assert_int_equal(s[0].layer, KT_AN_L_DATAMOVE);
	assert_non_null(strstr(s[0].claim, "memory-bound"));
	assert_int_equal(s[0].claim_count, 8);
	free(s);
	kt_an_blame_free(&b);
	kt_an_run_free(r);
	fx_close(&f);
}

static void t_empty_run(void **st)
{
	struct fx f;
	kt_an_run *r = NULL;
	kt_an_blame b;
	kt_an_opts o;
	kt_an_stall *s = NULL;
	size_t n = 9;

	(void)st;
	fx_open(&f, "test:empty");
	fx_msg(&f, 1, "Why is it slow?");
	fx_ev(&f, KT_KIND_BENCH, "tool", 0, "{\"correct\":true}"); /* no time */
	fx_ev(&f, KT_KIND_BENCH, "tool", 0, "{\"time_ms\":-3,\"correct\":true}");
	assert_int_equal(kt_store_commit(f.s), KT_OK);
	assert_int_equal(kt_an_run_load(f.s, f.id, &r), KT_OK);
	kt_an_opts_default(&o);
	assert_int_equal(kt_an_blame_run(f.s, r, &o, &b), KT_OK);
	assert_int_equal(b.njump, 0);
	assert_int_equal(b.series.n, 0);
	assert_true(b.p_value < 0); /* no new best: no run test */
	assert_int_equal(kt_an_stalls(r, &b, &o, &s, &n), KT_OK);
	assert_int_equal(n, 0);
	free(s);
	kt_an_blame_free(&b);
	kt_an_run_free(r);
	assert_int_equal(kt_an_run_load(f.s, "00000000000000000000000000000000", &r),
			 KT_ENOTFOUND);
	fx_close(&f);
}

static void t_miner(void **st)
{
	kt_an_miner *m = NULL;
	const kt_an_qitem *it;
	size_t n, i;
	double est;
	const char *a = "Are the global loads coalesced in the inner loop?";
	const char *b = "are the global loads coalesced in the inner loop ??";
	const char *c = "Are the global loads coalesced in the inner loops?";
	const char *d = "Why not fuse the bias into the epilogue?";
	const char *z1 = "为什么你确定这个内核已经达到带宽上限了？";

	(void)st;
	assert_true(kt_an_jaccard_text(a, c, &est) > 0.5);
	assert_true(est > 0.3);
	assert_true(kt_an_jaccard_text(a, d, NULL) < 0.2);
	assert_int_equal(kt_an_miner_new(0, &m), KT_OK);
	assert_int_equal(kt_an_miner_add_text(m, "r1", 3, a, strlen(a), KT_AN_QO_HUMAN), KT_OK);
	assert_int_equal(kt_an_miner_add_text(m, "r2", 7, b, strlen(b), KT_AN_QO_HUMAN), KT_OK);
	assert_int_equal(kt_an_miner_add_text(m, "r3", 9, c, strlen(c), KT_AN_QO_HUMAN), KT_OK);
	assert_int_equal(kt_an_miner_add_text(m, "r1", 12, d, strlen(d), KT_AN_QO_HUMAN), KT_OK);
	assert_int_equal(kt_an_miner_add_text(m, "r4", 1, z1, strlen(z1), KT_AN_QO_HUMAN), KT_OK);
	assert_int_equal(kt_an_miner_add_text(m, "r4", 2, "继续优化。", strlen("继续优化。"),
					      KT_AN_QO_HUMAN), KT_OK);
	assert_int_equal(kt_an_miner_finish(m, &it, &n), KT_OK);
	assert_int_equal(n, 3);
	for (i = 0; i < n; i++) {
		/* the same text has the same layer everywhere */
		assert_int_equal(it[i].layer, kt_an_layer_of(it[i].text,
							     strlen(it[i].text), NULL));
		if (strstr(it[i].text, "coalesced")) {
			assert_int_equal(it[i].count, 3);
			assert_int_equal(it[i].nruns, 3);
			assert_int_equal(it[i].nsrc, 3);
			assert_int_equal(it[i].layer, KT_AN_L_MEMACCESS);
		} else if (strstr(it[i].text, "fuse")) {
			assert_int_equal(it[i].count, 1);
			assert_int_equal(it[i].layer, KT_AN_L_OPBOUND);
			assert_string_equal(it[i].src[0].run, "r1");
			assert_int_equal(it[i].src[0].seq, 12);
		} else {
			assert_non_null(strstr(it[i].text, "带宽上限"));
			assert_int_equal(it[i].zh, 1);
			assert_true(it[i].flags & KT_AN_F_BOUND);
		}
	}
	kt_an_miner_free(m);
}

/* ---- run loading ----------------------------------------------------------- */

/* The payload scanner gives what cJSON gives, or refuses (then the loader
 * uses cJSON). */
static void t_payload_scanner(void **st)
{
	static const char *const keys[] = {"text", "n", "flags", "human"};
	static const char *const ok[] = {
		"{\"text\":\"plain\",\"n\":3}",
		" {\"text\" : \"a\\n\\t\\\"b\\\" \\/ \\u4e2d\\ud83d\\ude00\" , \"n\":-0.5e-3}",
		"{\"n\":12345678901234567890,\"text\":\"first\",\"text\":\"second\"}",
		"{\"flags\":[\"meta\",{\"x\":[1,2,{}]},null,true],\"human\":false}",
		"{\"n\":1e400,\"x\":{\"text\":\"nested\"}}",
		"{\"n\":0.1,\"text\":\"\"}",
		"{}",
	};
	static const char *const refused[] = {
		"{\"te\\u0078t\":\"x\"}",   /* escaped key */
		"{\"text\":\"a\\u0000b\"}",  /* NUL */
		"{\"text\":\"\\ud800\"}",    /* lone surrogate */
		"{\"text\":\"\\uZZZZ\"}",    /* cJSON reads this as NUL */
		"{\"n\":01}",
		"{\"n\":1.}",
		"{\"text\":\"x\",}",
		"[1]",
		"{\"text\":\"tab\there\"}",  /* raw control byte */
		"{\"n\":1\x0b}",            /* cJSON white space, not JSON's */
	};
	kt_an_jv f[4];

	(void)st;
	for (size_t i = 0; i < sizeof(ok) / sizeof(*ok); i++) {
		cJSON *j = cJSON_Parse(ok[i]);

		assert_non_null(j);
		assert_int_equal(kt_an_js_fields(ok[i], strlen(ok[i]), keys, 4, f), 0);
		for (int k = 0; k < 4; k++) {
			const cJSON *c = cJSON_GetObjectItemCaseSensitive(j, keys[k]);

			if (f[k].type == KT_AN_JS_NONE) {
				assert_null(c);
			} else if (f[k].type == KT_AN_JS_STR) {
				char d[256];

				assert_true(cJSON_IsString(c));
				assert_true(kt_an_js_str(&f[k], d, sizeof(d)) >= 0);
				assert_string_equal(d, c->valuestring);
			} else if (f[k].type == KT_AN_JS_NUM) {
				double d = kt_an_js_num(&f[k]);

				assert_true(cJSON_IsNumber(c));
				assert_memory_equal(&d, &c->valuedouble, sizeof(d));
			} else if (f[k].type == KT_AN_JS_ARR) {
				assert_true(cJSON_IsArray(c));
			}
		}
		cJSON_Delete(j);
	}
	for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++)
		assert_int_equal(kt_an_js_fields(refused[i], strlen(refused[i]),
						 keys, 4, f), -1);
}

/* A run loaded for the analyzers (flags 0) agrees with the full load on
 * every event it keeps; edits come without a body until blame reads the
 * ones it blames; the profiler uptake is the same without tool bodies. */
static void t_load_partial(void **st)
{
	struct fx f;
	kt_an_run *a = NULL, *b = NULL;
	kt_an_blame ba, bb;
	kt_an_opts o;
	size_t i, k;

	(void)st;
	fx_open(&f, "test:partial");
	fx_msg(&f, 1, "Make the kernel faster.");
	fx_ev(&f, KT_KIND_MESSAGE, "system", 0,
	      "{\"role\":\"system\",\"human\":false,\"text\":\"You are an agent.\"}");
	fx_ev(&f, KT_KIND_MESSAGE, "agent", 0,
	      "{\"role\":\"assistant\",\"human\":false,\"text\":\"meta\",\"flags\":[\"meta\"]}");
	for (i = 0; i < 5; i++)
		fx_round(&f, 1.0 + 0.01 * (double)(i % 2), 1);
	fx_msg(&f, 1, "Where does the time go, did you look at the bandwidth in ncu?");
	fx_ev(&f, KT_KIND_TOOL_CALL, "agent", 0,
	      "{\"tool\":\"Bash\",\"call_id\":\"p\",\"args\":{\"command\":\"ncu --set full ./bench\"}}");
	fx_round(&f, 2.0, 1);
	for (i = 0; i < 4; i++)
		fx_round(&f, 2.0 + 0.01 * (double)(i % 2), 1);
	assert_int_equal(kt_store_commit(f.s), KT_OK);

	assert_int_equal(kt_an_run_load(f.s, f.id, &a), KT_OK);
	assert_int_equal(kt_an_run_load_ex(f.s, f.id, KT_AN_LOAD_EVERY |
					   KT_AN_LOAD_TOOLS, &b), KT_OK);
	assert_int_equal(b->nev, f.seq);
	assert_true(a->nev < b->nev);
	assert_int_equal(a->ncalls, b->ncalls);
	assert_int_equal(a->nm, b->nm);
	for (i = 0, k = 0; i < a->nev; i++) {
		const kt_an_ev *x = &a->ev[i], *y;

		while (k < b->nev && b->ev[k].seq < x->seq)
			k++;
		assert_true(k < b->nev);
		y = &b->ev[k];
		assert_int_equal(x->seq, y->seq);
		assert_int_equal(x->kind, y->kind);
		assert_int_equal(x->call, y->call);
		assert_int_equal(x->parent, y->parent);
		assert_int_equal(x->human, y->human);
		assert_int_equal(x->qorigin, y->qorigin);
		assert_int_equal(x->meta, y->meta);
		assert_true(x->kind != KT_KIND_TOOL_CALL &&
			    x->kind != KT_KIND_TOOL_RESULT);
		if (x->kind == KT_KIND_EDIT) {
			assert_int_equal(x->lazy, 1);
			assert_null(x->text);
		} else if (x->text) {
			assert_string_equal(x->text, y->text);
		} else if (x->kind == KT_KIND_MESSAGE) {
			/* texts no analyzer reads: system prompts, meta */
			assert_true(x->role == KT_AN_ROLE_SYSTEM || x->meta);
			assert_non_null(y->text);
		}
		assert_int_equal(kt_an_calls_at(a, x->seq), y->call);
	}
	kt_an_opts_default(&o);
	assert_int_equal(kt_an_blame_run(f.s, a, &o, &ba), KT_OK);
	assert_int_equal(kt_an_blame_run(f.s, b, &o, &bb), KT_OK);
	assert_int_equal(ba.njump, 1);
	assert_int_equal(bb.njump, 1);
	assert_int_equal(ba.jump[0].question < 0, bb.jump[0].question < 0);
	if (ba.jump[0].question >= 0)
		assert_int_equal(a->ev[ba.jump[0].question].seq,
				 b->ev[bb.jump[0].question].seq);
	assert_int_equal(ba.jump[0].ncand, bb.jump[0].ncand);
	for (i = 0; i < ba.jump[0].ncand; i++) {
		assert_true(ba.jump[0].cand[i].uptake == bb.jump[0].cand[i].uptake);
		assert_true(ba.jump[0].cand[i].p == bb.jump[0].cand[i].p);
	}
	/* the profiler run right after the question (no reply, no echo) is
	 * its uptake: read from the store when tool bodies were not loaded */
	assert_int_equal(ba.jump[0].ncand, 1);
	assert_true(ba.jump[0].cand[0].uptake == 1);
	assert_true(ba.p_random == bb.p_random && ba.p_shift == bb.p_shift);
	/* the blamed edit was read: path and blobs */
	assert_true(ba.jump[0].nedits >= 1);
	assert_int_equal(a->ev[ba.jump[0].edits[0]].lazy, 0);
	assert_string_equal(a->ev[ba.jump[0].edits[0]].text, "k.cu");
	kt_an_blame_free(&ba);
	kt_an_blame_free(&bb);
	kt_an_run_free(a);
	kt_an_run_free(b);
	fx_close(&f);
}

/* Two loads of a run agree event for event: kinds, calls, flags, texts,
 * measurement links. */
static void same_load(const kt_an_run *a, const kt_an_run *b)
{
	assert_int_equal(a->nev, b->nev);
	assert_int_equal(a->nm, b->nm);
	assert_int_equal(a->ncalls, b->ncalls);
	for (size_t i = 0; i < a->ncalls; i++)
		assert_int_equal(a->tc[i], b->tc[i]);
	for (size_t i = 0; i < a->nev; i++) {
		const kt_an_ev *x = &a->ev[i], *y = &b->ev[i];

		assert_int_equal(x->seq, y->seq);
		assert_int_equal(x->parent, y->parent);
		assert_true(x->ts == y->ts);
		assert_int_equal(x->kind, y->kind);
		assert_int_equal(x->call, y->call);
		assert_int_equal(x->role, y->role);
		assert_int_equal(x->human, y->human);
		assert_int_equal(x->qorigin, y->qorigin);
		assert_int_equal(x->profiler, y->profiler);
		assert_int_equal(x->meta, y->meta);
		assert_int_equal(x->lazy, y->lazy);
		assert_int_equal(x->task, y->task);
		assert_int_equal(x->meas, y->meas);
		assert_int_equal(x->edit, y->edit);
		assert_true((x->text == NULL) == (y->text == NULL));
		if (x->text)
			assert_string_equal(x->text, y->text);
	}
	for (size_t i = 0; i < a->nm; i++) {
		assert_int_equal(a->m[i].ev, b->m[i].ev);
		assert_true(a->m[i].time_ms == b->m[i].time_ms);
		assert_true(a->m[i].speedup == b->m[i].speedup);
		assert_int_equal(a->m[i].correct, b->m[i].correct);
		assert_string_equal(a->m[i].key ? a->m[i].key : "",
				    b->m[i].key ? b->m[i].key : "");
	}
}

/* The analyzers' load reads a run in one scan (tool calls and edits as
 * headers, the read kinds whole; with the chain check, everything from
 * the hashing scan): the same run as the header scan + body scan of
 * before, which the full load (KT_AN_LOAD_EVERY) still does; with the
 * check or without, with tool bodies or without. */
static void t_load_one_scan(void **st)
{
	struct fx f;
	kt_an_run *r[4] = {NULL}, *full = NULL;
	static const unsigned fl[4] = { 0, KT_AN_LOAD_CHECK, KT_AN_LOAD_TOOLS,
					KT_AN_LOAD_TOOLS | KT_AN_LOAD_CHECK };
	size_t i, k, nprof = 0;

	(void)st;
	fx_open(&f, "test:onescan");
	fx_msg(&f, 1, "Make the kernel faster.");
	/* 300 rounds: more than one header page (256 events) */
	for (i = 0; i < 75; i++) {
		fx_round(&f, 1.0 + 0.1 * (double)(i / 25), 1);
		if (i % 10 == 3)
			fx_msg(&f, 1, "Why is it slow, did you profile it with ncu?");
		if (i % 10 == 4)
			fx_ev(&f, KT_KIND_TOOL_CALL, "agent", 0,
			      "{\"tool\":\"Bash\",\"call_id\":\"p\",\"args\":{\"command\":\"ncu --set full ./bench\"}}");
		if (i % 10 == 5)
			fx_msg(&f, 0, "I will tile the loads into shared memory.");
	}
	assert_int_equal(kt_store_commit(f.s), KT_OK);
	for (k = 0; k < 4; k++)
		assert_int_equal(kt_an_run_load_ex(f.s, f.id, fl[k], &r[k]),
				 KT_OK);
	assert_int_equal(kt_an_run_load_ex(f.s, f.id, KT_AN_LOAD_EVERY |
					   KT_AN_LOAD_TOOLS, &full), KT_OK);
	same_load(r[0], r[1]);
	same_load(r[2], r[3]);
	/* with tool bodies: every call, its profiler flag as the full load
	 * has it; without: the other events alone, the same */
	assert_int_equal(r[2]->nev, r[0]->nev + r[0]->ncalls);
	for (i = 0, k = 0; i < r[2]->nev; i++) {
		const kt_an_ev *x = &r[2]->ev[i];

		while (k < full->nev && full->ev[k].seq < x->seq)
			k++;
		assert_true(k < full->nev);
		assert_int_equal(full->ev[k].seq, x->seq);
		assert_int_equal(full->ev[k].call, x->call);
		assert_int_equal(full->ev[k].profiler, x->profiler);
		nprof += x->profiler;
	}
	assert_int_equal(nprof, 8);
	assert_int_equal(r[0]->ncalls, full->ncalls);
	assert_int_equal(r[0]->nm, 75);
	for (k = 0; k < 4; k++)
		kt_an_run_free(r[k]);
	kt_an_run_free(full);
	fx_close(&f);
}

/* A jump's edit layer follows the agent's plan for the edit (its
 * hypothesis) over the earlier chatter of another layer. */
static void t_jump_layers(void **st)
{
	struct fx f;
	kt_an_run *r = NULL;
	kt_an_blame b;
	kt_an_opts o;
	static const double plat[] = {1.00, 1.01, 0.99, 1.00, 1.02};

	(void)st;
	fx_open(&f, "test:layers");
	fx_msg(&f, 1, "Make the kernel faster.");
	for (int i = 0; i < 5; i++)
		fx_round(&f, plat[i], 1);
	fx_msg(&f, 0, "Tiling helped; trying different tile widths, tiling the shared memory.");
	fx_msg(&f, 0, "I think register blocking should help: each thread computes one "
	       "output element now; switching to an 8x8 register tile.");
	fx_round(&f, 1.8, 1);
	for (int i = 0; i < 4; i++)
		fx_round(&f, 1.8 * plat[i], 1);
	assert_int_equal(kt_store_commit(f.s), KT_OK);
	assert_int_equal(kt_an_run_load(f.s, f.id, &r), KT_OK);
	kt_an_opts_default(&o);
	assert_int_equal(kt_an_blame_run(f.s, r, &o, &b), KT_OK);
	assert_int_equal(b.njump, 1);
	assert_true(b.jump[0].hypothesis >= 0);
	assert_non_null(strstr(r->ev[b.jump[0].hypothesis].text, "register blocking"));
	assert_int_equal(b.jump[0].hyp_layer, KT_AN_L_ALGORITHM);
	assert_int_equal(b.jump[0].edit_layer, b.jump[0].hyp_layer);
	kt_an_blame_free(&b);
	kt_an_run_free(r);
	fx_close(&f);
}

static void t_suggest_fit(void **st)
{
	const char *bq = "Is the kernel really memory-bound, did you measure the DRAM throughput?";
	const char *oq = "Why are bias and activation separate kernels?";

	(void)st;
	/* instructions and requests about nothing are never suggested */
	assert_true(kt_an_suggest_fit(KT_AN_L_DATAMOVE, 1, 0, "Please use float4 loads.",
				      KT_AN_L_MEMACCESS, 0) < 0);
	assert_true(kt_an_suggest_fit(KT_AN_L_DATAMOVE, 1, 0, "Can you also add a unit test?",
				      KT_AN_L_NONE, 0) < 0);
	/* more of the stuck layer: only as a bound challenge */
	assert_true(kt_an_suggest_fit(KT_AN_L_DATAMOVE, 1, 0, "How many bytes move per element?",
				      KT_AN_L_DATAMOVE, 0) < 0);
	assert_true(kt_an_suggest_fit(KT_AN_L_DATAMOVE, 1, 0, bq, KT_AN_L_DATAMOVE,
				      KT_AN_F_BOUND) > 0);
	/* a claimed bound makes its challenge the best fit */
	assert_true(kt_an_suggest_fit(KT_AN_L_DATAMOVE, 1, 1, bq, KT_AN_L_DATAMOVE, KT_AN_F_BOUND) >
		    kt_an_suggest_fit(KT_AN_L_DATAMOVE, 1, 1, oq, KT_AN_L_OPBOUND, KT_AN_F_RELOCATE));
	assert_true(kt_an_suggest_fit(KT_AN_L_DATAMOVE, 0, 1, bq, KT_AN_L_DATAMOVE, KT_AN_F_BOUND) <
		    kt_an_suggest_fit(KT_AN_L_DATAMOVE, 0, 1, oq, KT_AN_L_OPBOUND, KT_AN_F_RELOCATE));
	/* another layer alone is no reason without a jump behind it */
	{
		const char *vq = "Can you verify that these results are accurate?";
		int why = -1;

		assert_true(kt_an_suggest_fit_why(KT_AN_L_MEMACCESS, 1, 0, vq,
						  KT_AN_L_MEASURE, 0, 0, &why) < 0);
		assert_int_equal(why, KT_AN_SUG_NO_EVIDENCE);
		assert_true(kt_an_suggest_fit_why(KT_AN_L_MEMACCESS, 1, 0, vq,
						  KT_AN_L_MEASURE, 0, 1, &why) >= 0);
		assert_int_equal(why, KT_AN_SUG_FITS);
		/* a bound challenge or a move of layers needs no track record */
		assert_true(kt_an_suggest_fit_why(KT_AN_L_DATAMOVE, 1, 0, bq,
						  KT_AN_L_DATAMOVE, KT_AN_F_BOUND,
						  0, &why) > 0);
		assert_true(kt_an_suggest_fit_why(KT_AN_L_DATAMOVE, 1, 0, oq,
						  KT_AN_L_OPBOUND, KT_AN_F_RELOCATE,
						  0, &why) > 0);
	}
}

/* Mine run f.id into a fresh miner; the number of library items whose
 * text contains `needle`. */
static size_t mined_with(struct fx *f, const char *needle)
{
	kt_an_miner *m = NULL;
	kt_an_run *r = NULL;
	const kt_an_qitem *it;
	size_t n, hits = 0;

	assert_int_equal(kt_an_run_load(f->s, f->id, &r), KT_OK);
	assert_int_equal(kt_an_miner_new(0, &m), KT_OK);
	assert_int_equal(kt_an_miner_add(m, r, NULL), KT_OK);
	assert_int_equal(kt_an_miner_finish(m, &it, &n), KT_OK);
	for (size_t i = 0; i < n; i++)
		hits += strstr(it[i].text, needle) != NULL;
	kt_an_miner_free(m);
	kt_an_run_free(r);
	return hits;
}

/* Dataset inputs, harness instructions and problem statements are task
 * prompts, not questions asked during the run. */
static void t_task_prompts(void **st)
{
	struct fx f;

	(void)st;
	/* an eval harness: opening user turns are the dataset's */
	fx_open_fmt(&f, "test:inspect", "inspect");
	fx_msg(&f, 1, "What is the average low temperature in St. Paul in February?");
	fx_msg(&f, 0, "About 4 degrees Fahrenheit.");
	fx_msg(&f, 1, "Why did you not check the bandwidth of the kernel?");
	fx_ev(&f, KT_KIND_MESSAGE, "human", 0,
	      "{\"role\":\"user\",\"human\":true,\"text\":\"Is the following "
	      "statement something you would say?\",\"extra\":{\"source\":\"input\"}}");
	assert_int_equal(kt_store_commit(f.s), KT_OK);
	assert_int_equal(mined_with(&f, "temperature"), 0);
	assert_int_equal(mined_with(&f, "something you would say"), 0);
	assert_int_equal(mined_with(&f, "bandwidth"), 1);
	fx_close(&f);

	/* an interactive session: the person's first question counts; text
	 * shaped like instructions or an issue does not */
	fx_open_fmt(&f, "test:session", "claude_code");
	fx_msg(&f, 1, "Why is the softmax kernel slower than the reference?");
	fx_msg(&f, 1, "You are an expert CUDA engineer working in a sandbox. "
	       "Follow the instructions exactly, run every command you need, and "
	       "answer the question at the end. What is the peak bandwidth of the "
	       "GPU you are running on, and does the kernel reach it?");
	fx_msg(&f, 1, "Please solve this issue: why does the loader crash on empty files?");
	fx_msg(&f, 0, "Looking.");
	fx_msg(&f, 1, "Are the loads coalesced in the inner loop?");
	assert_int_equal(kt_store_commit(f.s), KT_OK);
	assert_int_equal(mined_with(&f, "softmax"), 1);
	assert_int_equal(mined_with(&f, "coalesced"), 1);
	assert_int_equal(mined_with(&f, "peak bandwidth"), 0);
	assert_int_equal(mined_with(&f, "loader crash"), 0);
	fx_close(&f);
	assert_true(kt_an_task_prompt("swe_agent", 1, 0, "Fix it?", 7));
	assert_false(kt_an_task_prompt("swe_agent", 0, 0, "Fix it?", 7));
	assert_false(kt_an_task_prompt("claude_code", 1, 0, "Fix it?", 7));
	assert_true(kt_an_task_prompt("claude_code", 0, 1, "Fix it?", 7));
}

/* the question sentences of a text, joined by " | " */
struct sents {
	char buf[1024];
};

static int sent_cb(const char *t, size_t n, unsigned k, void *arg)
{
	struct sents *x = arg;
	size_t l = strlen(x->buf);

	(void)k;
	snprintf(x->buf + l, sizeof(x->buf) - l, "%s%.*s", l ? " | " : "",
		 (int)n, t);
	return 0;
}

/* Abbreviations ("St.", "Dr.", "e.g.") do not end a sentence; units do. */
static void t_sentence_abbrev(void **st)
{
	struct sents x;
	const char *a = "What is the average low temperature in St. Paul, "
			"Minnesota in February?";
	const char *b = "Dr. Smith wrote this kernel. Why is it slower than "
			"the reference on Mr. Jones's GPU?";
	const char *c = "The kernel takes 3.5 ms. Why is it slower than the "
			"reference?";

	(void)st;
	memset(&x, 0, sizeof(x));
	kt_an_questions_extract(a, strlen(a), sent_cb, &x);
	assert_string_equal(x.buf, a);
	memset(&x, 0, sizeof(x));
	kt_an_questions_extract(b, strlen(b), sent_cb, &x);
	assert_string_equal(x.buf, "Why is it slower than the reference on "
			    "Mr. Jones's GPU?");
	memset(&x, 0, sizeof(x));
	kt_an_questions_extract(c, strlen(c), sent_cb, &x);
	assert_string_equal(x.buf, "Why is it slower than the reference?");
}

/* A bound challenge needs a performance-bound context: "make sure ... by
 * limiting its run time" is an instruction, not a doubt about a bound. */
static void t_bound_context(void **st)
{
	const char *nc = "Please make sure that for any blocking command like "
			 "netcat (nc), you minimize the time by limiting its run "
			 "time, for example using the \"-w\" flag of nc with "
			 "timeout of 5 seconds - `nc -w5 127.0.0.1 80`.";
	const char *pr = "Can you prove the patch is correct?";
	const char *lim = "Are you sure we hit the DRAM bandwidth limit?";
	const char *ev = "What evidence is there that the kernel cannot get "
			 "any faster?";
	const char *pk = "Is it at 87 % of peak?";

	(void)st;
	assert_false(kt_an_text_flags(nc, strlen(nc)) & KT_AN_F_BOUND);
	assert_false(kt_an_text_flags(pr, strlen(pr)) & KT_AN_F_BOUND);
	assert_true(kt_an_text_flags(lim, strlen(lim)) & KT_AN_F_BOUND);
	assert_true(kt_an_text_flags(ev, strlen(ev)) & KT_AN_F_BOUND);
	assert_true(kt_an_text_flags(pk, strlen(pk)) & KT_AN_F_BOUND);
	/* so it is never suggested for a memory-bound stall */
	assert_true(kt_an_suggest_fit(KT_AN_L_DATAMOVE, 1, 0, nc,
				      kt_an_layer_of(nc, strlen(nc), NULL),
				      kt_an_text_flags(nc, strlen(nc))) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_questions_en),
		cmocka_unit_test(t_questions_pasted_refs),
		cmocka_unit_test(t_questions_requests),
		cmocka_unit_test(t_questions_markdown),
		cmocka_unit_test(t_sentence_abbrev),
		cmocka_unit_test(t_bound_context),
		cmocka_unit_test(t_questions_zh),
		cmocka_unit_test(t_questions_symbols),
		cmocka_unit_test(t_decide_combined),
		cmocka_unit_test(t_normalize),
		cmocka_unit_test(t_layers_and_flags),
		cmocka_unit_test(t_layers_tensor_cores),
		cmocka_unit_test(t_claims),
		cmocka_unit_test(t_tokens),
		cmocka_unit_test(t_blame_planted),
		cmocka_unit_test(t_stall_claim),
		cmocka_unit_test(t_empty_run),
		cmocka_unit_test(t_miner),
		cmocka_unit_test(t_payload_scanner),
		cmocka_unit_test(t_load_partial),
		cmocka_unit_test(t_load_one_scan),
		cmocka_unit_test(t_task_prompts),
		cmocka_unit_test(t_jump_layers),
		cmocka_unit_test(t_suggest_fit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
