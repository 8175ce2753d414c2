/*
 * fuzz_questions.c - the question extractor and normalizer as a parser:
 * sentence splitting, EN/ZH question rules, normalization, layer lexicons,
 * flags, claims, tokens, and the library miner on arbitrary bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../../analyze/analyze.h"

static int cb(const char *s, size_t n, unsigned kind, void *arg)
{
	char *norm = NULL;

	(void)kind;
	/* every sentence lies inside the input */
	if (kt_an_normalize(s, n, &norm) == KT_OK)
		free(norm);
	(*(size_t *)arg) += n;
	return 0;
}

static void claim_cb(const char *key, double pct, void *arg)
{
	(void)pct;
	(void)arg;
	if (!key || !*key)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *t = (const char *)data;
	size_t total = 0, nt = 0;
	uint64_t *tok = NULL;
	char *norm = NULL;
	double sc[KT_AN_NLAYERS];
	kt_an_miner *m = NULL;
	const kt_an_qitem *it;
	size_t n;

	if (size > 8192)
		return 0;
	kt_an_questions_extract(t, size, cb, &total);
	if (total > size)
		abort();
	if (kt_an_normalize(t, size, &norm) == KT_OK)
		free(norm);
	if (kt_an_layer_of(t, size, sc) >= KT_AN_NLAYERS)
		abort();
	kt_an_text_flags(t, size);
	kt_an_claims(t, size, claim_cb, NULL);
	kt_an_question_kind(t, size);
	kt_an_is_zh(t, size);
	if (kt_an_tokens(t, size, &tok, &nt) == KT_OK) {
		if (nt && kt_an_containment(tok, nt, tok, nt) != 1.0)
			abort();
		free(tok);
	}
	if (kt_an_miner_new(1, &m) == KT_OK) {
		kt_an_miner_add_text(m, "fuzz", 1, t, size, KT_AN_QO_HUMAN);
		kt_an_miner_add_text(m, "fuzz", 2, t, size / 2, KT_AN_QO_HUMAN);
		kt_an_miner_finish(m, &it, &n);
		for (size_t i = 0; i < n; i++)
			if (!it[i].text || !it[i].nsrc)
				abort();
		kt_an_miner_free(m);
	}
	return 0;
}
