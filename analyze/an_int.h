/*
 * an_int.h - internals shared by the analyzer sources (not a public API):
 * the payload field scanner of the run loader, call counting and seq
 * lookups on partially loaded runs.
 */
#ifndef KT_AN_INT_H
#define KT_AN_INT_H

#include <stddef.h>
#include <stdint.h>
#include "analyze.h"

/* ---- payload field scanner (load_json.c) ------------------------------------
 * The run loader reads a few top-level members of message, edit, bench,
 * question and note payloads.  Building a cJSON tree for each (one malloc
 * per node, every text copied) was most of the load time, so members are
 * located in place.  The scanner is stricter than cJSON (RFC 8259 grammar:
 * only the four JSON white-space bytes, strict numbers of at most 63 bytes,
 * keys without escapes, no raw control bytes or NUL in strings, nesting up
 * to 256): whenever it accepts a text, cJSON_ParseWithLength accepts it too
 * and yields the same member values (first member of a duplicated key, as
 * cJSON_GetObjectItemCaseSensitive does); when it refuses, the loader falls
 * back to cJSON, so results never depend on which path ran.
 * tests/fuzz/fuzz_anpayload.c checks exactly that against cJSON.
 */
enum { KT_AN_JS_NONE = 0, KT_AN_JS_STR, KT_AN_JS_NUM, KT_AN_JS_TRUE,
       KT_AN_JS_FALSE, KT_AN_JS_NULL, KT_AN_JS_OBJ, KT_AN_JS_ARR };

typedef struct kt_an_jv {
	const char *v;  /* value bytes: a string without its quotes (still
			   escaped), else the whole value text */
	size_t n;
	int type;       /* KT_AN_JS_*; NONE when the key is absent */
	int esc;        /* string holds escapes (decode with kt_an_js_str) */
} kt_an_jv;

/*
 * Find keys[0..nkeys) among the top-level members of the JSON object text
 * p[0..n) and fill out[k] for each (type NONE when absent).  Returns 0 when
 * the whole object is well formed by the rules above, -1 otherwise (out is
 * then undefined).  Bytes after the object are ignored, as cJSON does.
 */
int kt_an_js_fields(const char *p, size_t n, const char *const *keys,
		    int nkeys, kt_an_jv *out);

/*
 * Decode string value v (type STR) into dst (cap bytes, NUL-terminated);
 * returns the decoded length, or -1 when it does not fit or decodes to a
 * NUL byte.  Escapes are decoded as cJSON does (\uXXXX with surrogate
 * pairs to UTF-8).
 */
long kt_an_js_str(const kt_an_jv *v, char *dst, size_t cap);

/* The number value v (type NUM) as cJSON reads it (strtod of the text). */
double kt_an_js_num(const kt_an_jv *v);

/*
 * Call fn(element, arg) for each element of array value v (type ARR);
 * stops when fn returns non-zero.  v must come from kt_an_js_fields (so it
 * is well formed).
 */
void kt_an_js_array(const kt_an_jv *v, int (*fn)(const kt_an_jv *, void *),
		    void *arg);

/* ---- large arrays ------------------------------------------------------------
 * Arrays of a long run (events, measurements, series points: megabytes)
 * are mapped on transparent huge pages where the kernel offers them
 * (MADV_HUGEPAGE): first touches of 4 KiB pages were a third of the time
 * blame spent on a 100k-event run in a virtual machine, where each costs
 * ~15 us.  Small arrays, other systems and sanitizer builds use calloc.
 */
/* n zeroed bytes (NULL when out of memory); free with kt_an_big_free. */
void *kt_an_big(size_t n);
/* Resize to n bytes (content kept, new bytes zeroed); NULL and p kept when
 * out of memory. */
void *kt_an_big_grow(void *p, size_t n);
void kt_an_big_free(void *p);

/* ---- runs ------------------------------------------------------------------- */

/* Whether a tool call payload runs a profiler (ncu, nsys, Nsight, rocprof):
 * the command sits near the start, so the first 512 bytes are searched. */
int kt_an_profiler_payload(const char *p, size_t n);

/* Tool calls with seq <= `seq` (r->tc, else the events' call counts). */
uint32_t kt_an_calls_at(const kt_an_run *r, uint64_t seq);

/* Index of the first loaded event with seq >= `seq` (r->nev when none):
 * with runs loaded without some kinds the exact seq may be absent. */
size_t kt_an_run_lower(const kt_an_run *r, uint64_t seq);

/* A NUL-terminated copy of s[0..n) in r's arena (lives as long as r);
 * NULL when out of memory. */
char *kt_an_arena_dup(kt_an_run *r, const char *s, size_t n);

/* Whether event e is the agent's own text (not a person's, not meta). */
int kt_an_is_agent_text(const kt_an_ev *e);

/* Read the bodies of the edits among events idx[0..n) (ascending event
 * indices) that were loaded lazily (paths into the arena, blobs into
 * r->ed), with one store scan over their range; other events are skipped.
 * Errors: KT_ENOMEM, KT_EINVAL (s NULL with a lazy edit), store read
 * errors. */
int kt_an_edits_fetch(kt_store *s, kt_an_run *r, const size_t *idx, size_t n);

/*
 * Whether the code under test changed between the bench results ma (at seq
 * a) and mb (at seq b > a) of one series (FORMAT.md section 14 "Code under
 * test"): when both carry a content hash (source_hash, candidate_blob),
 * the hashes alone decide, so edits that left it as it was (a benchmark
 * script, a note, an edit and its revert) change nothing; otherwise an edit
 * event between them, or two different declared candidates, is a change.
 * A run that records neither (edits 0: it has no edit at all, and neither
 * result declares its code) cannot tell and is taken as changed.
 */
int kt_an_code_changed(const kt_an_run *r, uint64_t a, uint64_t b,
		       const kt_an_meas *ma, const kt_an_meas *mb, int edits);

/*
 * Whether the bench results a and b are one measurement: printed by one
 * command (the same nonzero event parent) and not declaring two different
 * candidates.  Records of a round log (import --map) that share a parent
 * are siblings of a tree search or beam, each its own candidate: one
 * measurement of them would average a sibling's slow result into the
 * child's gain (FORMAT.md section 11.1).
 */
int kt_an_one_command(const kt_an_run *r, const kt_an_meas *a,
		      const kt_an_meas *b);

/* kt_an_one_command for bench events a and b (indices into r->ev); one
 * without a result (a bench that is not an object) is of the command
 * that printed it: the same nonzero parent is enough. */
int kt_an_one_command_ev(const kt_an_run *r, size_t a, size_t b);

/*
 * Whether question or idea event i (an index into r->ev) is about another
 * series than se: it grew from a measurement of another series (its
 * parent is a bench of another key: a tree log's record, import --map
 * `parent`).  Such a question is still a slot of the run test (someone
 * spoke there) but neither one of se's questions nor a candidate for se's
 * jumps: in a log that interleaves workloads a gemm question sits next to
 * a softmax gain.  Returns 1 or 0; 0 for an event with no bench parent
 * (every chat run: such a question counts for every series) and for se
 * without a key.  (analyze/series.c)
 */
int kt_an_other_series_q(const kt_an_run *r, const kt_an_series *se,
			 size_t i);

/* ---- attribution (attrib.c) ------------------------------------------------ */

/* The raw weight of candidate c (lag, overlap, uptake, layer_match and
 * relocation filled in): w_lag * (tech ? 1 : 0.3) * (0.3 + 0.45 min(1,
 * overlap / 0.4) + 0.15 layer_match + 0.1 relocation + 0.25 uptake),
 * w_lag = exp(-calls / tau_calls) * exp(-min / tau_min).  tech: the
 * question names a system layer, challenges a bound, shares words with the
 * change, or the agent took it up in words or by acting on it. */
double kt_an_cand_raw(const kt_an_cand *c, const kt_an_opts *o, int tech);

/* Decide jump j from its scored candidates (raw set) and the agent-alone
 * weight self: every c->p = raw / (self + sum of raw); a question wins when
 * the sum over all candidates exceeds self, and then the one of largest raw
 * (the later on ties) is named.  Sets question, p_question (the named
 * cause's share), p_any_question and confidence (P(some question) x the
 * winner's share of the questions, or P(agent alone); / sqrt(edits)). */
void kt_an_decide(kt_an_jump *j, double self);

/* ---- the run test (runtest.c) --------------------------------------------- */

/* Fill b's run-test fields (nquestions .. chosen) from b->series and r's
 * questions with o->permutations random placements (seed o->seed), at
 * the lag scales 1 message, sqrt(tau_calls) and tau_calls tool calls
 * (1 message and max(tau_calls, 1) calls when tau_calls <= 1) combined by
 * min-p.  Errors: KT_ENOMEM. */
int kt_an_runtest(const kt_an_run *r, const kt_an_opts *o, kt_an_blame *b);

/*
 * The min-p combination of ns statistics (larger = more extreme), each
 * measured on the observed sample and n null samples that are
 * exchangeable with it under the null: s[k * (n + 1) + j] is scale k's
 * value on sample j, j = 0 the observed.  Every sample draws one uniform
 * tie-breaker from *st for all its scales; a sample's p at scale k is its
 * rank there (1 = most extreme) / (n + 1), its min-p the smallest over
 * the scales, and *p the randomized rank of the observed min-p among the
 * null samples' (exactly uniform under the null).  pk[0..ns) receives the
 * observed sample's p at each scale, *chosen the scale of the smallest
 * (the highest index on ties).  Values within 1e-12 of each other (on
 * that grid) are ties.
 * Errors: KT_EINVAL (ns 0, n >= 2^32 - 1), KT_ENOMEM.
 */
int kt_an_minp(const double *s, size_t ns, size_t n, uint64_t *st,
	       double *pk, double *p, size_t *chosen);

/* ---- text helpers (text.c), shared with tokens.c ---------------------------- */
/* Decode one UTF-8 code point at p (n bytes left); *adv gets its length.
 * Invalid bytes decode as themselves with length 1, so scanning advances. */
uint32_t kt_an_u8dec(const unsigned char *p, size_t n, size_t *adv);
/* A CJK ideograph (U+3400-U+4DBF, U+4E00-U+9FFF). */
int kt_an_is_cjk(uint32_t c);
/* Lowercased malloc'd copy, full-width ASCII and the ideographic space
 * folded to ASCII; *outlen its length.  NULL when out of memory. */
char *kt_an_fold(const char *text, size_t len, size_t *outlen);
/* An ASCII letter, digit or '_'. */
int kt_an_wordch(int c);

/* kt_an_ev.memo: the layer of the text + 1 (kt_an_ev_layer; 0: not asked
 * yet), and NOQ: the loader found no question sentence in the whole text
 * (kt_an_has_question(text, strlen(text)) is 0 for a human message that is
 * no task prompt), so mining, which extracts the questions of exactly
 * those messages, has none to find there. */
#define KT_AN_MEMO_LAYER 0x0fu
#define KT_AN_MEMO_NOQ   0x10u

/*
 * The layer of event e's text, kt_an_layer_of(e->text, strlen(e->text),
 * NULL), classified once per event and kept in e->memo: blame asks it of
 * a question for every jump and workload it is a candidate of, and mining
 * again of every human turn and of the agent message before it (the
 * lexicon scan was ~12 % of `questions mine`).  A cache, not a change of
 * what the event says, so e is const to callers; texts never change once a
 * run is loaded.  KT_AN_L_NONE when e has no text.  Never fails.
 */
int kt_an_ev_layer(const kt_an_ev *e);

/*
 * memmem(h, n, w, wl): the first occurrence of w in h..h+n, or NULL (h
 * when wl is 0).  By w's first byte (memchr) and a compare: the analyzers
 * search sentences and short messages for each term of long lists, where
 * glibc memmem's set-up per call cost more than the search (7 % of
 * `questions mine`).
 */
const char *kt_an_memmem(const char *h, size_t n, const char *w, size_t wl);

#endif /* KT_AN_INT_H */
