/*
 * analyze.h - read-only analyzers over the store: the performance series of
 * a run, speedup jumps and their blame (edits, question, hypothesis), stalls,
 * question extraction/normalization/classification and the question library.
 *
 * Methods follow ../shared/research/analysis.md (sections 2.6, 2.7, 3):
 *  - noise-aware best-so-far jumps (Hoefler & Belli, SC'15; KernelBench
 *    fast_p minimum-effect threshold, arXiv 2502.10517),
 *  - lag/overlap/layer scoring against an explicit "agent alone" candidate,
 *  - permutation nulls: random non-question messages and circular time shift
 *    (time-shift coincidence tests, arXiv 2512.17372),
 *  - patience-style stalls (Keras EarlyStopping semantics),
 *  - MinHash (Broder 1997) + exact Jaccard + token cosine dedup, weighted
 *    layer lexicons, Bayesian-average shrinkage of attributed gain.
 *
 * Nothing here prints or exits; functions return 0 or a negative KT_E* code.
 * Every result is deterministic for the same store content and seed.
 */
#ifndef KT_ANALYZE_H
#define KT_ANALYZE_H

#include <stddef.h>
#include <stdint.h>
#include "../store/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- system layers (analysis.md 3.4) ------------------------------------- */
enum kt_an_layer {
	KT_AN_L_NONE = 0,      /* "unclassified" */
	KT_AN_L_ALGORITHM = 1,
	KT_AN_L_OPBOUND = 2,   /* operator boundary (fusion, launches) */
	KT_AN_L_DATAMOVE = 3,  /* data movement (HBM/DRAM traffic, bandwidth) */
	KT_AN_L_SYNC = 4,
	KT_AN_L_MEMACCESS = 5, /* memory access (coalescing, smem, tiling) */
	KT_AN_L_COMPILER = 6,
	KT_AN_L_MEASURE = 7,
	KT_AN_NLAYERS = 8
};

/* Static layer name ("algorithm", ..., "unclassified"); never NULL. */
const char *kt_an_layer_name(int layer);

/* Text flags (analysis.md 3.4 "Flags"). */
#define KT_AN_F_RELOCATE 0x1u  /* moves to another layer ("instead of"...) */
#define KT_AN_F_BOUND    0x2u  /* challenges a claimed performance bound */

/*
 * Classify UTF-8 text by the weighted layer lexicons.  Fills scores[] (may be
 * NULL) with the summed weights per layer and returns the argmax layer, or
 * KT_AN_L_NONE when nothing matched.  Never fails.
 */
int kt_an_layer_of(const char *text, size_t len, double scores[KT_AN_NLAYERS]);

/* KT_AN_F_* flags found in the text by phrase rules. */
unsigned kt_an_text_flags(const char *text, size_t len);

/* ---- question extraction (analysis.md 3.2) -------------------------------- */
#define KT_AN_Q_INTERROG  0x1u /* '?', wh-word, inverted auxiliary, 吗/呢... */
#define KT_AN_Q_CHALLENGE 0x2u /* verify/prove/confirm..., 确认/验证/证明 */
#define KT_AN_Q_DOUBT     0x4u /* "are you sure", bound words, 你确定... */

/*
 * Question kind bits of one sentence (0 = not a question: plain
 * instructions, courtesy like "continue?", fewer than 3 content tokens,
 * and requests for work in question form: "can/could/would/will you|we",
 * "want me to" + an action with no wh-word or "if", no bound term and no
 * optimization technique named - "Can you run the benchmarks ...", but
 * not "Could you prefetch the next tile with cp.async?"; a challenge or
 * doubt behind the same opener stays one).
 */
unsigned kt_an_question_kind(const char *sent, size_t len);

/*
 * Split message text into sentences (. ? ! 。 ？ ！ ； and newlines), skip
 * fenced code, quoted lines, pasted shell sessions and tracebacks, Markdown
 * headings and all-bold lines (titles), and call cb(sentence, length, kind
 * bits, arg) for every sentence that is a question.  In a list item or a
 * lead-in line ending ':' a sentence is a question only with both a
 * question mark and a question's form (wh-word, inverted auxiliary, tag,
 * 吗/呢...), or as a challenge or doubt: bullet fragments ("- Would provide
 * ...") and menu options ("1. Add it first?", "Or do both?") are not.  The sentence points into `text`.  Stops when cb returns
 * non-zero and returns that value; otherwise 0.
 */
typedef int (*kt_an_q_cb)(const char *sent, size_t len, unsigned kind,
			  void *arg);
int kt_an_questions_extract(const char *text, size_t len, kt_an_q_cb cb,
			    void *arg);

/*
 * The text side of the one definition of a question a person asked
 * (kt_an_msg_question, which adds the payload's human and meta flags and
 * takes before_agent from the run's state):
 * a message that is not a task or harness prompt (kt_an_task_prompt
 * with the same arguments) and holds at least one question sentence
 * (kt_an_questions_extract: interrogatives and challenges; not
 * instructions or requests for work, quoted or pasted text, code or LaTeX,
 * a '?' used as a symbol, headings, list fragments or menu options).
 * Returns 1 or 0.
 */
int kt_an_human_question(const char *format, int before_agent,
			 int input_source, const char *text, size_t len);

/* Whether text holds at least one question sentence
 * (kt_an_questions_extract finds one).  Returns 1 or 0. */
int kt_an_has_question(const char *text, size_t len);

/* The layer of the questions a message asks, by the classifier `questions
 * mine` gives each of them (kt_an_layer_of over each question sentence of
 * kt_an_questions_extract): one question, its layer; several, the layer of
 * their summed scores (the earlier layer on ties, as kt_an_layer_of).
 * KT_AN_L_NONE when no question or no layer term.  Used where a message,
 * not a sentence, is the row (the NDJSON questions table). */
int kt_an_msg_layer(const char *text, size_t len);

/* What of a message event's payload (FORMAT.md §2 "message") decides
 * whether a person asked a question with it. */
typedef struct kt_an_msg {
	const char *text;   /* "text" (not NUL-terminated; NULL: none) */
	size_t len;         /* bytes of text */
	int human;          /* "human": true */
	int meta;           /* "flags" holds a flag other than "thinking":
			       harness and UI lines, never a question */
	int input_source;   /* "extra": {"source": "input"} (Inspect's
			       sample input, a task prompt) */
} kt_an_msg;

/* Where the run stands before the message: whether the agent has acted.
 * A caller walking a run in seq order sets acted at the first message
 * with role "assistant" that is not human, and counts tool_call events. */
typedef struct kt_an_qstate {
	int acted;          /* an assistant message was seen */
	uint64_t calls;     /* tool_call events before the message */
} kt_an_qstate;

/* Fill m from a parsed message payload (a cJSON object; text borrowed from
 * it); any other value leaves m all zero. */
struct cJSON;
void kt_an_msg_of_json(const struct cJSON *payload, kt_an_msg *m);

/*
 * The one definition of a person's question over a message event, used by
 * the loader (kt_an_run_load, so questions, blame, report) and the NDJSON
 * export's questions table: a human message without a meta flag, with
 * text, that is not a task or harness prompt (kt_an_task_prompt with
 * before_agent = the agent has neither spoken nor called a tool, st) and
 * holds a question sentence.  has_q, when not NULL, answers "holds a
 * question sentence" in place of kt_an_has_question (the loader's memo);
 * arg is passed to it.  kt_an_msg_task alone: whether m is such a
 * message's task or harness prompt.  Both return 1 or 0.
 */
int kt_an_msg_task(const char *format, const kt_an_qstate *st,
		   const kt_an_msg *m);
int kt_an_msg_question(const char *format, const kt_an_qstate *st,
		       const kt_an_msg *m,
		       int (*has_q)(void *arg, const char *text, size_t len),
		       void *arg);

/*
 * Normalize for deduplication: full-width ASCII folded, ASCII lowercased,
 * numbers -> "<num>", paths -> "<path>", code identifiers -> "<id>"
 * (technical whitelist kept), punctuation dropped, whitespace collapsed.
 * *out is malloc'ed (caller frees).  Errors: KT_ENOMEM.
 */
int kt_an_normalize(const char *text, size_t len, char **out);

/* 1 when the text contains CJK ideographs (reported as lang "zh"). */
int kt_an_is_zh(const char *text, size_t len);

/*
 * Content tokens as a sorted array of distinct 64-bit hashes: ASCII words of
 * >= 3 chars that are not stopwords, lowercased, and CJK character bigrams.
 * *out is malloc'ed (caller frees; NULL when *n == 0).  Errors: KT_ENOMEM.
 */
int kt_an_tokens(const char *text, size_t len, uint64_t **out, size_t *n);

/* |a ∩ b| / |a| for sorted distinct arrays (0 when a is empty). */
double kt_an_containment(const uint64_t *a, size_t na, const uint64_t *b,
			 size_t nb);

/*
 * Performance claims in agent text ("memory-bound at 87 % of peak").
 * Calls cb(key, pct, arg) for each claim found: key is a static string such
 * as "memory-bound", pct the percentage of peak stated in the same sentence
 * or a negative value.  Returns the number of claims.
 */
int kt_an_claims(const char *text, size_t len,
		 void (*cb)(const char *key, double pct, void *arg), void *arg);

/* ---- run model --------------------------------------------------------------
 * A run loaded once into memory (only the fields the analyzers need).
 */
enum { KT_AN_ROLE_OTHER = 0, KT_AN_ROLE_USER, KT_AN_ROLE_ASSISTANT,
       KT_AN_ROLE_SYSTEM };
enum { KT_AN_QO_NONE = 0, KT_AN_QO_HUMAN, KT_AN_QO_LIBRARY, KT_AN_QO_AGENT };

typedef struct kt_an_ev {
	uint64_t seq, parent;
	int64_t ts;            /* ns or KT_TS_UNKNOWN */
	int kind;              /* enum kt_kind */
	unsigned char role;    /* KT_AN_ROLE_* (messages) */
	unsigned char human;   /* message typed by a person */
	unsigned char qorigin; /* question events: KT_AN_QO_*; human messages
				  holding a question: KT_AN_QO_HUMAN */
	unsigned char profiler;/* tool_call running ncu/nsys/a profiler
				  (loaded with KT_AN_LOAD_TOOLS) */
	unsigned char meta;    /* message flagged meta/compact_summary/... */
	unsigned char lazy;    /* edit whose body (path, blobs) is not read
				  yet: kt_an_blame_run reads those it blames */
	unsigned char task;    /* human message that is the run's task prompt,
				  not a question asked during the run
				  (kt_an_task_prompt): never a question
				  candidate, never mined */
	unsigned char memo;    /* what the analyzers found of text once,
				  for the next to ask (an_int.h
				  KT_AN_MEMO_*; a byte the struct had as
				  padding): 0 when nothing yet */
	uint32_t call;         /* tool calls up to and including this event */
	long meas;             /* index into kt_an_run.m for bench, else -1 */
	char *text;            /* message/question/note text; edit: path;
				  tool_call: tool name (KT_AN_LOAD_EVERY);
				  else NULL.  Owned by the run's arena. */
	long edit;             /* index into kt_an_run.ed for edits, else -1 */
} kt_an_ev;

typedef struct kt_an_edit {
	unsigned char before[KT_HASH_LEN], after[KT_HASH_LEN]; /* blobs */
	unsigned char has_before, has_after;
} kt_an_edit;

#define KT_AN_FIELD_MAX 255

typedef struct kt_an_meas {
	size_t ev;             /* index into kt_an_run.ev */
	double time_ms;        /* < 0 when absent */
	double speedup;        /* as recorded, < 0 when absent */
	double ref_ms;         /* < 0 when absent */
	double min_ms, max_ms; /* < 0 when absent */
	uint64_t hkey[2];      /* 128-bit key of source_hash or candidate_blob
				  (its first 71 bytes), else of `candidate`:
				  equal keys, equal code; 0,0 when absent */
	int n;                 /* repetitions, 0 when absent */
	int sweep;             /* sweep number (0, 1, ...) when the result is
				  one of a sweep, else -1 */
	signed char correct;   /* 1, 0, or -1 unknown */
	unsigned char hashed;  /* hkey is of a content hash (source_hash or
				  candidate_blob), not of a candidate's name:
				  two equal ones are the same code whatever
				  was edited between them */
	unsigned char unparsed;/* status "unparsed": output that looked like a
				  benchmark, no time could be read */
	unsigned char graded;  /* the grader's own record (graded true, e.g.
				  reward.json: FORMAT.md section 11.2) */
	unsigned char idea_human; /* `origin: "human"`: the code measured is
				  the idea of the person's message right
				  before the bench (FORMAT.md section 2) */
	unsigned char round;   /* carries an attempt number (`round`): the
				  results are attempts in that order even
				  without timestamps, edits or tool calls */
	unsigned char failed;  /* status "runtime_error" or "timeout" (any
				  case: FlashInfer's RUNTIME_ERROR, TIMEOUT;
				  KernelBench's runtime_error): the code did
				  not run to the end, so there is no time */
	unsigned char suspect; /* KT_AN_SUSPECT_*: why the figure is not to
				  be trusted (kt_an_meas_suspect says it) */
	/* (the members of 4 and 1 bytes sit together, no padding: r->m has
	 * one element per bench result, ~1/8 of a long run's events, and its
	 * resident size moves in 2 MiB steps under transparent huge pages) */
	/* the bench fields of FORMAT.md's measurement model, each cut to
	 * KT_AN_FIELD_MAX bytes, "" when absent (pointers into the run's
	 * arena): scenarios such as "benchmark=variable_shape_conv
	 * method=vsla_automatic signal_size=128 kernel_size=16" differ only
	 * at their end */
	const char *workload, *scenario, *metric, *baseline, *source,
		   *candidate;
	const char *step;      /* the source's own name of the record that
				  measured (extra.step: a round log's `step`,
				  import --map), "" when none; arena */
	const char *key;       /* series key under r->keyed_by
				  (kt_an_series_keys); sweep members carry
				  their sweep's key (no scenario) */
	double reward;         /* graded: the grader's reward, < 0 absent */
	const char *flags;     /* its flags joined by ", " ("" none): a
				  verifier's ("suspicious"), any result */
	const char *choice;    /* why its metric was the one chosen among
				  several printed (`choice`, FORMAT.md
				  section 2: "the baseline the task names
				  (torch.compile)"); "" none */
	const char *also;      /* the figures printed but not chosen
				  (`alternatives`): "speedup_vs_eager x5.850
				  (eager), ..."; "" none */
	/* one slot for two fields that never meet (an unparsed result has
	 * no time, so no reference on other hardware): a pointer more would
	 * cost 2 MiB steps of resident memory on a long run (see above) */
	union {
		const char *other_hw; /* results not unparsed: flags
				  "ref_other_hardware": "<kernel's GPU>, the
				  reference on <reference's GPU>"; the
				  reference time is then none (ref_ms,
				  speedup < 0); NULL otherwise */
		const char *why_unparsed; /* unparsed results only: the
				  importer's `reason` ("only timings of a
				  baseline or competitor"), "" when none was
				  stored; arena */
	};
} kt_an_meas;

/* The two GPUs of bench result m when its reference was timed on other
 * hardware ("<kernel's GPU>, the reference on <reference's GPU>"; the
 * run's arena owns it, as long as the run); NULL when m's times share one
 * GPU or m is unparsed.  Read other_hw only through this: it shares its
 * slot with why_unparsed, so an unparsed result's reason would otherwise
 * read as a GPU. */
static inline const char *kt_an_meas_other_hw(const kt_an_meas *m)
{
	return m->unparsed ? NULL : m->other_hw;
}

/* The importer's reason why bench result m is unparsed ("only timings of
 * a baseline or competitor"; "" when none was stored; the run's arena
 * owns it); NULL when m is not unparsed.  Read why_unparsed only through
 * this, for the slot it shares with other_hw. */
static inline const char *kt_an_meas_why_unparsed(const kt_an_meas *m)
{
	return m->unparsed ? m->why_unparsed : NULL;
}

/* kt_an_meas.suspect: a byte, not the reason's string, in an array of one
 * element per bench result */
enum { KT_AN_SUSPECT_NONE = 0,
       KT_AN_SUSPECT_FLAGGED, /* the verifier flagged it "suspicious" */
       KT_AN_SUSPECT_TINY     /* under 1 us and its correctness not
				 checked: such a time usually means the
				 kernel did no work or the timing missed it */
};

/* Why bench result m is not to be trusted, in words ("flagged suspicious
 * by the verifier", "under 1 us and not checked"; static strings); NULL
 * when nothing is known against it. */
const char *kt_an_meas_suspect(const kt_an_meas *m);

/* Whether a bench result declares its code (source hash or candidate;
 * hkey above). */
static inline int kt_an_has_code(const kt_an_meas *m)
{
	return m->hkey[0] || m->hkey[1];
}

/* Whether two bench results both declare their code and it differs. */
static inline int kt_an_code_differs(const kt_an_meas *a, const kt_an_meas *b)
{
	return kt_an_has_code(a) && kt_an_has_code(b) &&
	       (a->hkey[0] != b->hkey[0] || a->hkey[1] != b->hkey[1]);
}

typedef struct kt_an_run {
	char id[KT_RUN_ID_HEX + 1];
	char *name;
	kt_an_ev *ev;          /* the loaded events, in seq order (see
				  kt_an_run_load_ex for which kinds) */
	size_t nev;
	kt_an_meas *m;
	size_t nm;
	kt_an_edit *ed;
	size_t ned;
	char format[32];       /* the run's format (importer name), cut */
	uint32_t ncalls;       /* tool calls in the run */
	uint64_t *tc;          /* their seqs, ascending (ncalls of them) */
	unsigned load;         /* KT_AN_LOAD_* it was loaded with */
	unsigned keyed_by;     /* KT_AN_BY_* of the m[].key values */
	size_t nsweeps;        /* sweeps found by kt_an_series_keys */
	size_t nref;           /* bench results with status "reference": a
				  timing of the reference itself (a
				  KernelBench baseline_time file), no result
				  of the agent's code: not in m[], in no
				  series (FORMAT.md section 14) */
	void *arena;           /* owns every ev[].text */
} kt_an_run;

/* kt_an_run_load_ex flags.  Without any, a run holds what blame, stalls
 * and mining read: message, question, note, edit and bench events; tool
 * calls only as counts (kt_an_ev.call, ncalls, tc); texts only of messages
 * an analyzer reads (human, and the agent's own that are not meta). */
#define KT_AN_LOAD_EVERY 0x1u  /* every event (kinds not read: seq, kind,
				  parent, ts only) and every message text,
				  tool calls with their tool name */
#define KT_AN_LOAD_TOOLS 0x2u  /* tool call events with the profiler flag */
#define KT_AN_LOAD_CHECK 0x4u  /* also check the run's hash chain
				  (KT_READ_HASH on the header scan): an
				  event of any kind that no longer matches
				  it is KT_ECORRUPT, where a load without it
				  reads a damaged body it decodes and
				  skips the blocks of kinds it does not
				  read.  Costs the decompression and
				  hashing of every event. */
#define KT_AN_LOAD_MEAS 0x8u   /* bench events only: the measurements and
				  their series keys (`log --json`), no
				  other kind read; not with the flags
				  above */

/*
 * Load run `run` (a full id) from s with one scan of the tool call headers
 * and one scan of the bodies of the kinds above (kt_event_scan), so a
 * store that keeps kinds apart decompresses only those.  *out owns
 * everything; free with kt_an_run_free().  Errors: KT_ENOTFOUND,
 * KT_ENOMEM, KT_ECORRUPT, store errors.  Payloads that are not JSON
 * objects are kept as bare events.  kt_an_run_load is flags 0.
 */
int kt_an_run_load_ex(kt_store *s, const char *run, unsigned flags,
		      kt_an_run **out);
int kt_an_run_load(kt_store *s, const char *run, kt_an_run **out);
void kt_an_run_free(kt_an_run *r);

/* Index of the event with seq, or -1. */
long kt_an_run_find(const kt_an_run *r, uint64_t seq);

/*
 * Whether a human message is a task prompt rather than a question a person
 * asked during the run: the dataset input of an eval sample (Inspect marks
 * it extra.source "input": `input_source`), any human turn before the
 * agent's first action (`before_agent` set) in a run of an eval/benchmark
 * harness format (inspect, swe_agent, mini_swe_agent, atif, openhands:
 * their opening user turns are the dataset's task text or the harness'
 * instructions), or text shaped like a system instruction or a problem
 * statement ("You are a/an ..." of 200+ bytes, "<issue>", "Please solve
 * this issue", "We're currently solving", "Your task is to").
 */
int kt_an_task_prompt(const char *format, int before_agent, int input_source,
		      const char *text, size_t len);

/* ---- options ----------------------------------------------------------------- */
typedef struct kt_an_opts {
	double min_gain;       /* minimum effect as a ratio (default 1.05) */
	double z;              /* noise multiplier (default 3) */
	double sigma_default;  /* log-noise when nothing can be estimated
				  (default 0.03 = 3 %: the top of the
				  1-3 % run-to-run noise of warmed-up GPU
				  timings, so a default never makes noise a
				  jump) */
	double sigma_floor;    /* lower bound on estimated noise (0.005) */
	int merge_rounds;      /* accepted increments within this many
				  measurements merge (default 2) */
	int window_calls;      /* question lookback W in tool calls (60) */
	double tau_calls;      /* lag decay in tool calls (15) */
	double tau_min;        /* lag decay in minutes (60) */
	double w_self;         /* prior weight of "agent alone" (0.3) */
	uint64_t seed;         /* permutation seed (default 1) */
	int permutations;      /* per null (default 2000); 0 = skip */
	int stall_rounds;      /* stall: measurements without gain (4) */
	int stall_calls;       /* ... or tool calls without gain (40) */
	const char *workload;  /* the series of this key only (kt_an_meas.
				  key, "" = no field recorded); NULL = every
				  measurement (runs of one series).  Results
				  of different workloads, scenarios or metrics
				  are not one series: a "jump" from one problem
				  to the next is not an improvement
				  (kt_an_workloads lists the keys).  The name
				  stays for the callers of before the key */
	unsigned series_by;    /* KT_AN_BY_* fields of the series key
				  (default all four) */
	int assume_correct;    /* 1: correctness not checked counts as
				  correct (--assume-correct); default 0 */
} kt_an_opts;

/* ---- series keys (FORMAT.md "Measurement model") ---------------------------- */
#define KT_AN_BY_WORKLOAD 0x1u
#define KT_AN_BY_SCENARIO 0x2u
#define KT_AN_BY_METRIC   0x4u
#define KT_AN_BY_BASELINE 0x8u
#define KT_AN_BY_DEFAULT  0xfu

/*
 * Parse a --series-by list ("workload,scenario,metric,baseline", any
 * subset, comma separated, no repeats) into *by.  Errors: KT_EINVAL
 * (empty, unknown or repeated name).
 */
int kt_an_series_by_parse(const char *s, unsigned *by);

/*
 * Compute every r->m[i].key from the fields `by` selects (the values
 * joined by " | ", "" when all are empty) and find the sweeps: results of
 * one candidate over two or more scenarios at one step - the bench results
 * of one tool call (same parent), or, without a parent, consecutive
 * results naming the same candidate - with the same key apart from the
 * scenario.  A sweep's results take that key without the scenario (their
 * series is the sequence of sweeps, compared scenario by scenario,
 * kt_an_series_build) and m[i].sweep their sweep's number.  The loader
 * calls it with KT_AN_BY_DEFAULT; call it again for another grouping.
 * Errors: KT_ENOMEM (keys are then those of before).
 */
int kt_an_series_keys(kt_an_run *r, unsigned by);

/* Fill *o with the documented defaults above. */
void kt_an_opts_default(kt_an_opts *o);

/* ---- performance series --------------------------------------------------- */
typedef struct kt_an_point {
	size_t meas;           /* index into run->m (first result of the point) */
	uint64_t seq;          /* bench event seq (last of a group) */
	uint64_t seq_first;    /* bench event seq (first of a group) */
	double speedup;        /* per the basis; a sweep: the chained geomean
				  index (its gain over the best sweep times
				  that sweep's index) */
	double best;           /* running best after this point: the best
				  code's mean level over its measurements so
				  far (FORMAT.md section 14) */
	size_t best_pt;        /* the point that best stands for (the last
				  measurement of that code; a sweep: the best
				  sweep) */
	double gain;           /* speedup / running best before it (> 1: a
				  new best), 1 for the first point */
	unsigned char accepted; /* 1 when this point is a jump: a new best by
				  more than the threshold with a change
				  since the measurement before */
	unsigned char newbest; /* 1 when above the threshold (a jump or not) */
	unsigned char nochange; /* newbest without an edit or a declared change
				  (other candidate / source hash) since the
				  measurement before: not a jump */
	unsigned char outlier; /* always 0 (kept for callers of before) */
	int unchecked;         /* results of the point whose correctness was
				  not checked (counted with --assume-correct
				  or when nothing of the series was checked) */
	int nscen;             /* sweep: scenarios measured (else 1) */
	int ncmp;              /* sweep: scenarios shared with the running
				  best it was compared with (0: none shared,
				  not comparable) */
	uint32_t call;
	unsigned char repeat; /* 1 when it measured the same code under test
				  as the point before (kt_an_code_changed
				  says no change): a repeat, not an attempt */
	unsigned char branch; /* 1 when its bench's parent is another bench
				  (a tree search: import --map parent): its
				  gain is over the best of its own parent
				  chain, not the run's running best */
	/* (members of 4 and 1 bytes sit together: one point per bench
	 * result of a series, ~1/8 of a long run's events) */
	size_t nres;           /* bench results in the point */
	size_t mem0;           /* sweep: its results are series.mem[mem0 ..
				  mem0 + nres) */
	double base;           /* the best its gain is over: the running
				  best before it, or (branch) its parent
				  chain's best; 1 for the first point */
	size_t base_pt;        /* the point that base stands for */
} kt_an_point;

/* Where sigma came from (kt_an_series.noise_kind). */
enum { KT_AN_NOISE_DEFAULT = 0, KT_AN_NOISE_REPEATS, KT_AN_NOISE_SPREAD,
       KT_AN_NOISE_REF_REPEATS /* the reference timed again with each
				  result (same baseline code) */ };

typedef struct kt_an_series {
	kt_an_point *pt;
	size_t n;
	const char *key;       /* the series key (o->workload, "" for all) */
	int sweep;             /* 1 when the points are sweeps */
	int unordered;         /* 1 when nothing orders the results in time
				  (no timestamp on them, no edit and no tool
				  call in the run: a KernelBench best-of-k
				  table, sorted by runtime): a table, not
				  successive attempts - no new best, no jump,
				  no stall is read from it */
	const char *basis;     /* static: how speedup was computed */
	const char *noise_src; /* static: where sigma came from */
	int noise_kind;        /* KT_AN_NOISE_* */
	size_t noise_n;        /* results sigma was estimated from (repeats:
				  results in groups of unchanged code; spread:
				  results reporting min/max) */
	size_t noise_groups;   /* repeats: code states measured twice or more */
	size_t noise_nocode;   /* repeats: results of the series with no
				  source hash or candidate, so in no group
				  (their code is not known: kt_an_has_code) */
	size_t noise_out;      /* repeats, reference repeats: outlying
				  repeats left out of sigma (at most one a
				  group), not counted in noise_n */
	double sigma;          /* log-noise of one measurement */
	double theta;          /* log threshold for a significant new best */
	int strict_correct;    /* 1 when only correct:true counted */
	int has_ref;           /* 1 when speedups are against a reference */
	size_t n_results;      /* bench results of the series */
	size_t n_correct;      /* ... checked correct (correct:true) */
	size_t n_unchecked;    /* ... used although never checked */
	size_t n_excluded;     /* incorrect or unusable bench events */
	size_t n_incorrect;    /* ... of them correct:false */
	size_t n_unknown;      /* ... correctness unknown where others of
				  the series say correct:true */
	size_t n_notime;       /* ... correct, without a usable time or
				  speedup */
	size_t n_noref;        /* ... with a time, but neither a speedup nor
				  a reference time where the series reads
				  speedups */
	size_t n_failed;       /* ... that failed to run (kt_an_meas.failed) */
	size_t n_unparsed;     /* ... benchmark output no time was read from */
	size_t n_newbest;      /* points above the threshold */
	size_t n_nochange;     /* ... of them with no change before them */
	int no_edits;          /* 1 when the run records no edit at all:
				  without a code identity every new result
				  counts as a change (FORMAT.md "Code under
				  test"), so a jump may have no edit */
	size_t *mem;           /* sweeps: the results used, point by point
				  (indices into run->m); NULL otherwise */
	double *lv;            /* sweeps: by result index, ln speedup
				  (has_ref) or -ln time_ms */
} kt_an_series;

/*
 * Build the series o->workload (a key of kt_an_series_keys; NULL: every
 * result) of r (FORMAT.md "Measurement model").  Value: the recorded
 * speedup, or reference / kernel time, or (no reference in the series)
 * first time / time.  Results of one tool call are one point (geometric
 * mean); a sweep is one point, compared with the running best sweep
 * scenario by scenario (mean log ratio over the scenarios both measured).
 * Correctness: false never counts; not checked counts only when nothing
 * of the series was checked or o->assume_correct.  Noise, in order:
 * pooled SD s of log value over repeats of unchanged code (same source
 * hash or candidate, per scenario; nu >= 2 degrees of freedom) as
 * s / c4(nu), then (not for sweeps) sqrt 2 s / c4(nu) of ln ref_time_ms
 * over the results that time their reference again (nu >= 2); in both,
 * one outlying repeat a group of 4+ (studentized deleted residual beyond
 * t(0.9995, n - 2)) is left out (out->noise_out), then the
 * reported spread (median ln(max/min)/4, at most 0.1, when half the points
 * report it), o->sigma_default; never differences between candidates;
 * never below o->sigma_floor.  theta = max(ln min_gain, z * sigma *
 * sqrt 2).  A point is a new best when its gain over the running best
 * exceeds theta, and a jump when in addition the code under test changed
 * since the measurement before (kt_an_code_changed in an_int.h: equal
 * content hashes are no change, else an edit or another candidate is;
 * runs that record no edit and no code identity: assumed); a point of
 * unchanged code is marked `repeat`.  out->pt is
 * malloc'ed; release with kt_an_series_free().  Errors: KT_ENOMEM.
 */
int kt_an_series_build(const kt_an_run *r, const kt_an_opts *o,
		       kt_an_series *out);
void kt_an_series_free(kt_an_series *s);

/* One scenario of a sweep compared with the best sweep before it. */
typedef struct kt_an_scen_cmp {
	const char *scenario;  /* the run's string (lives as long as r) */
	double value;          /* this sweep's: speedup (geometric mean of
				  its results at the scenario; series with a
				  reference) or time in ms */
	double before;         /* the same of the best sweep before; NAN
				  when it did not measure the scenario */
	double gain;           /* value over before as a speedup (> 1:
				  faster); NAN when not compared */
} kt_an_scen_cmp;

/*
 * Point p of sweep series se (se->sweep) scenario by scenario, in the
 * order first measured: *out (malloc'ed, the caller frees; NULL when *n
 * is 0) gets one kt_an_scen_cmp per scenario, compared with point
 * se->pt[p].base_pt (the best sweep before; nothing compared for the
 * first point).  *geomean: the sweep's own geometric mean of its
 * scenarios' speedups (has_ref; NAN without a reference: times of
 * different shapes have no common scale).  Errors: KT_EINVAL (not a sweep
 * series, p out of range), KT_ENOMEM.
 */
int kt_an_sweep_scenarios(const kt_an_run *r, const kt_an_series *se,
			  size_t p, kt_an_scen_cmp **out, size_t *n,
			  double *geomean);

/* Why kt_an_series_build left measurement r->m[i] out of series se
 * (built with o): KT_AN_EX_NONE when it is used or belongs to another
 * series than o->workload, KT_AN_EX_INCORRECT (correct:false),
 * KT_AN_EX_UNKNOWN (not checked where others of the series say correct,
 * without --assume-correct), KT_AN_EX_NOTIME (neither a usable time nor
 * a speedup), KT_AN_EX_NOREF (a time, but the series reads speedups and
 * the result has neither a speedup nor a reference time),
 * KT_AN_EX_FAILED (failed to run: kt_an_meas.failed),
 * KT_AN_EX_UNPARSED (benchmark output no time was read from).  These are
 * the reasons counted in se->n_incorrect, n_unknown, n_notime, n_noref,
 * n_failed and n_unparsed. */
enum { KT_AN_EX_NONE = 0, KT_AN_EX_INCORRECT, KT_AN_EX_UNKNOWN,
       KT_AN_EX_NOTIME, KT_AN_EX_UNPARSED, KT_AN_EX_NOREF,
       KT_AN_EX_FAILED };
int kt_an_meas_excluded(const kt_an_run *r, const kt_an_series *se,
			const kt_an_opts *o, size_t i);

/* Bench results left out, counted by reason (KT_AN_EX_*): what blame,
 * stalls and the report say about them. */
typedef struct kt_an_excl {
	size_t incorrect, unknown, notime, noref, failed, unparsed;
} kt_an_excl;

/* The reasons of series se (unparsed included). */
kt_an_excl kt_an_series_excl(const kt_an_series *se);

/* Sum of x's counts. */
size_t kt_an_excl_total(const kt_an_excl *x);

/*
 * Appends the reasons of x with a count to b, in one wording for every
 * reader ("1 incorrect, 2 not checked (others say correct), 6 without a
 * speedup or reference time, 1 failed to run"), each saying what the
 * result lacks; nothing when all are 0.  Errors: KT_ENOMEM (b's sticky
 * error).
 */
int kt_an_excl_text(struct kt_buf *b, const kt_an_excl *x);

/*
 * The distinct series keys of r's bench results (kt_an_meas.key, "" for
 * none), in order of first appearance.  Unparsed results (kt_an_meas.
 * unparsed) make no key: they carry no time, and kt_an_unparsed counts
 * them for the run.  *out is a malloc'ed array of
 * pointers into r (caller frees the array only; NULL when *n == 0).
 * Errors: KT_ENOMEM.
 */
int kt_an_workloads(const kt_an_run *r, const char ***out, size_t *n);

/* Bench results of r that looked like a benchmark but gave no time
 * (kt_an_meas.unparsed); their event seqs go to seqs[0..max) when seqs is
 * not NULL.  Returns the count. */
size_t kt_an_unparsed(const kt_an_run *r, uint64_t *seqs, size_t max);

/* The run's unparsed outputs whose stored reason is why ("" = none
 * stored): how many, their seqs in seqs[0..max) as kt_an_unparsed.
 * Analyzers print one group per reason, so an output that timed only a
 * baseline is not said to have "given no time". */
size_t kt_an_unparsed_why(const kt_an_run *r, const char *why,
			  uint64_t *seqs, size_t max);

/* The distinct stored reasons of the run's unparsed outputs ("" for
 * those with none), in order of first appearance: at most max pointers
 * into the run's arena in why[]; returns how many there are in all. */
size_t kt_an_unparsed_reasons(const kt_an_run *r, const char **why,
			      size_t max);

/* ---- blame ------------------------------------------------------------------ */
typedef struct kt_an_cand {
	size_t ev;             /* question event index */
	double lag_calls, lag_min; /* lag_min < 0 when timestamps are absent */
	double overlap, uptake, layer_match, relocation, raw, p;
	int layer;
} kt_an_cand;

typedef struct kt_an_jump {
	size_t p_prev;         /* series point before the first increment */
	size_t p_land;         /* first increment (landing) */
	size_t p_last;         /* last merged increment */
	double before, after, gain; /* speedups and after/before */
	size_t *edits;         /* event indexes of E*, malloc'ed */
	size_t nedits;
	int edit_layer;        /* layer of edit deltas + agent response */
	long question;         /* event index of the blamed question, -1 */
	double p_question;     /* P of the winner (question or agent alone) */
	double confidence;     /* P * localization share */
	kt_an_cand *cand;      /* every scored candidate, malloc'ed */
	size_t ncand;
	long hypothesis;       /* agent message index, -1 */
	int hyp_layer;
	int artifact;          /* edits touch a benchmark/timing harness */
	uint64_t anchor_seq;   /* first responsible edit (or first event after
				  p_prev) */
	double p_any_question; /* combined share of all candidate questions
				  against the agent alone */
	size_t series_best_pt; /* the series' best before p_land (the
				  running best, whatever the branch): the
				  base of a jump not over a branch */
	double series_gain;    /* after over that series best; equals gain
				  unless the jump is over its branch's best
				  (series.pt[p_land].branch) */
	int edits_before_output; /* 1 when p_prev and p_land are results of
				  one output (a table of variants) declaring
				  different candidates: edits then are those
				  before that output, since the series' last
				  result of an earlier output */
	int cand_first;        /* with edits_before_output: no earlier
				  output of the series measured p_land's
				  candidate */
} kt_an_jump;

/* lag scales of the run test (analyze/runtest.c) */
#define KT_AN_SCALES 3

typedef struct kt_an_blame {
	kt_an_series series;
	kt_an_jump *jump;
	size_t njump;
	/* the run test (analyze/runtest.c): do gains follow questions more
	 * closely than questions placed at random? */
	size_t nquestions;     /* question positions used (not those grown
				  from another series' bench: parent) */
	size_t n_newbest;      /* new bests of the series used (every point
				  above the running best) */
	double s_obs;          /* S at the chosen lag scale (scale[chosen]):
				  sum over new bests of ln(gain) *
				  exp(-lag/scale) to the nearest question
				  within window_calls before the change */
	double p_random;       /* randomized p of the smallest per-scale p
				  (min-p over the lag scales, on the same
				  placements), questions placed at random
				  message slots; -1 when not computed
				  (permutations 0, no question or no new
				  best) */
	double p_shift;        /* the same under a circular shift of every
				  question position (reported, not combined);
				  -1 when not computed: as p_random, or a run
				  without tool calls (nothing to shift over) */
	double p_value;        /* = p_random */
	double s_null_mean, s_null_sd; /* of S at the chosen scale over the
				  random placements (effect size: s_obs /
				  s_null_mean); -1 when not computed */
	size_t nscales;        /* lag scales tested (KT_AN_SCALES at most) */
	double scale[KT_AN_SCALES];   /* 1 message, then sqrt(tau_calls) and
				  tau_calls tool calls */
	unsigned char scale_msgs[KT_AN_SCALES]; /* 1: that scale counts
				  message slots (the question's answer not
				  counted), 0: tool calls */
	double s_scale[KT_AN_SCALES]; /* S at each scale */
	double p_scale[KT_AN_SCALES]; /* randomized p of each scale alone (-1
				  when not computed) */
	size_t chosen;         /* index of the scale of the smallest p (the
				  longest on ties; the longest when p is not
				  computed) */
	unsigned char no_calls; /* the run has no tool calls (a round log,
				  import --map): a lag in calls is 0 for every
				  question, so the call scales (scale_msgs 0;
				  --json lag_scale_calls and lag_scales'
				  "calls" entries, kept for one shape) weigh
				  every question alike and measure no lag;
				  only the message scale does */
	int permutations;
	uint64_t seed;
} kt_an_blame;

/*
 * Detect jumps in r's series and blame them.  `s` (may be NULL) is used to
 * read the bodies of the edits it blames (path, blobs: r's events are
 * filled in) and edit blobs for content overlap and layer tags; without it
 * those edits keep no path.  *out is filled; release with
 * kt_an_blame_free().  Errors: KT_ENOMEM, store errors reading an edit.
 */
int kt_an_blame_run(kt_store *s, kt_an_run *r, const kt_an_opts *o,
		    kt_an_blame *out);
void kt_an_blame_free(kt_an_blame *b);

/*
 * Blame r the way every analyzer must read a run: a run of two or more
 * workloads (KernelBench results: one problem after another) is blamed
 * once per workload on that workload's own series (o->workload set to
 * each; a speedup of one problem against another is no jump), a run of
 * at most one workload once over every measurement (o->workload as
 * given).  *out is a malloc'ed array of *n blames (n >= 1); *wl is NULL
 * for a run of at most one workload, else a malloc'ed array of the *n
 * workload names (pointers into r, kt_an_workloads order), wl[i] the
 * workload of out[i].  Release both with kt_an_blame_workloads_free.
 * Errors: those of kt_an_blame_run; nothing is left allocated then.
 */
int kt_an_blame_workloads(kt_store *s, kt_an_run *r, const kt_an_opts *o,
			  kt_an_blame **out, const char ***wl, size_t *n);
void kt_an_blame_workloads_free(kt_an_blame *b, const char **wl, size_t n);

/* Whether event i of r is a question candidate (question event of human or
 * library origin, or a human message holding a question sentence). */
int kt_an_is_question_ev(const kt_an_run *r, size_t i);

/* Why point p of series se is suspect: the first of its results (seq
 * seq_first..seq of its series key, any key when se->key is NULL or "")
 * with a kt_an_meas.suspect, that reason; NULL when none is.  The string
 * lives as long as r.  r->m must be in seq order, as kt_an_run_load_ex
 * makes it (the results are found by bisection). */
const char *kt_an_point_suspect(const kt_an_run *r, const kt_an_series *se,
				size_t p);

/* The suspect results of series se (kt_an_meas.suspect set, key se->key;
 * every result of r when se->key is NULL or "", the whole run as one series),
 * so a suspect result that is no jump is still seen.  Returns how many
 * there are; the seqs of the first `max` of them, in r->m's order, go to seqs
 * (caller's array; NULL with max 0 only counts).  No errors. */
size_t kt_an_series_suspects(const kt_an_run *r, const kt_an_series *se,
			     uint64_t *seqs, size_t max);

/* Whether event i of r is a person's idea that the next event, a bench,
 * declares it measured (its `origin` "human", FORMAT.md section 2): a
 * human message (not meta, not the task prompt) with text, question or
 * statement.  Blame takes such a message as a candidate like a question,
 * taken up by that bench. */
int kt_an_declared_idea(const kt_an_run *r, size_t i);

/* ---- stalls ------------------------------------------------------------------ */
typedef struct kt_an_stall {
	size_t p_first, p_last;   /* series points */
	size_t length;            /* measurements in the stretch */
	size_t attempts;          /* ... of them attempts: the first and each
				     after a change of the code under test
				     (kt_an_point.repeat 0); repeats of
				     unchanged code are no attempt */
	uint32_t calls;           /* tool calls spanned */
	uint64_t seq_first, seq_last;
	int layer;                /* of the agent's messages there */
	char claim[160];          /* most repeated claim, "" when none */
	int claim_count;
	long claim_ev;            /* an agent message stating it, -1 */
	long ended_by_jump;       /* index into the b->jump it was found
				     with (so the jump numbering of that
				     series), -1 */
	int ended;                /* KT_AN_STALL_* */
	double gain;              /* running best at the end of the stretch
				     over the one at its start (< threshold) */
	kt_an_excl ex;            /* bench results of the stretch
				     (seq_first..seq_last) left out of the
				     series, by kt_an_meas_excluded reason */
} kt_an_stall;

/* How a stall ended. */
enum { KT_AN_STALL_JUMP = 0, /* a jump */
       KT_AN_STALL_GAIN,     /* the running best crept above the
				threshold without one jump (small gains or
				a new best with no change) */
       KT_AN_STALL_END };    /* still stalled at the end of the run */

/*
 * Stretches of >= o->stall_rounds attempts (or >= o->stall_calls tool
 * calls and 2 attempts) of b's series (one series: successive attempts
 * at one key; a sweep series counts sweeps; a measurement of the same code
 * under test as the one before is a repeat, no attempt) in which the running best
 * grows by no more than the threshold, in total.  A stretch ends at a
 * jump, or where small gains add up to more than the threshold (a run
 * that improved is not stalled).  Utilization claims are kept apart by
 * resource (kt_an_claims: a memory claim with a memory figure).  *out is
 * malloc'ed (caller frees).  Errors: KT_ENOMEM.
 */
int kt_an_stalls(const kt_an_run *r, const kt_an_blame *b,
		 const kt_an_opts *o, kt_an_stall **out, size_t *n);

/* ---- question library (analysis.md 3.3-3.6) ------------------------------- */
typedef struct kt_an_qsrc {
	char run[KT_RUN_ID_HEX + 1];
	uint64_t seq;
} kt_an_qsrc;

typedef struct kt_an_qitem {
	char *text;            /* canonical (medoid) original text */
	char *norm;            /* its normalized form */
	int layer;
	unsigned flags;        /* KT_AN_F_* */
	unsigned kind;         /* KT_AN_Q_* union */
	int origin;            /* KT_AN_QO_* of the canonical member */
	int zh;
	size_t count;          /* occurrences */
	size_t nruns;          /* distinct runs */
	size_t hits;           /* occurrences blamed for a jump */
	double gain_log;       /* sum of attributed log gain */
	double score;          /* shrunk mean log gain per ask; 0 (gain 1)
				  with no hit: shrinking toward the mean
				  would credit it with others' jumps */
	kt_an_qsrc *src;
	size_t nsrc;
} kt_an_qitem;

typedef struct kt_an_miner kt_an_miner;

/* New miner; include_agent adds agent self-questions (origin agent). */
int kt_an_miner_new(int include_agent, kt_an_miner **out);
void kt_an_miner_free(kt_an_miner *m);

/*
 * Add the question candidates of run r (blamed with b, may be NULL) to the
 * miner.  Errors: KT_ENOMEM.
 */
int kt_an_miner_add(kt_an_miner *m, const kt_an_run *r, const kt_an_blame *b);

/*
 * kt_an_miner_add with the nb blames b[0..nb) of r (kt_an_blame_workloads:
 * one per workload): a question's attributed gain is the sum over the
 * jumps of every series blamed on it, so only jumps within one workload
 * count.  b may be NULL when nb is 0.  Errors: KT_ENOMEM.
 */
int kt_an_miner_add_n(kt_an_miner *m, const kt_an_run *r,
		      const kt_an_blame *b, size_t nb);

/* Add one question text from outside a run (tests, fuzzing). */
int kt_an_miner_add_text(kt_an_miner *m, const char *run, uint64_t seq,
			 const char *text, size_t len, int origin);

/*
 * Deduplicate, classify and rank.  *items is owned by the miner (valid
 * until kt_an_miner_free), sorted by score then count then text.
 * Errors: KT_ENOMEM.
 */
int kt_an_miner_finish(kt_an_miner *m, const kt_an_qitem **items, size_t *n);

/* ---- reading a question library back (library.c) ------------------------ */
/* The first line of the Markdown library `questions mine -o FILE.md`
 * writes; kt_an_library_parse tells the two library forms apart by it. */
#define KT_AN_LIBRARY_MD_TITLE "# Question library"

/* One library entry: what `questions suggest` ranks. */
typedef struct kt_an_libentry {
	char *text;     /* the question (malloc'ed, non-empty) */
	int layer;      /* KT_AN_L_*; the text's when absent or not known */
	unsigned flags; /* KT_AN_F_* */
	double gain;    /* shrunk mean speedup factor per ask; 1.0 if absent */
	size_t count;   /* asks; 1 if absent or not a count */
	long long hits; /* asks followed by a jump; -1 if absent (a library
			   written by hand: then gain > 1 is the evidence) */
} kt_an_libentry;

/*
 * Parse a question library of len bytes (need not be NUL-terminated) in
 * either form `questions mine` writes: JSON lines, one object per
 * non-blank line with a non-empty "text" string and optional "layer"
 * (kt_an_layer_name; absent or a name not known: the text's layer,
 * kt_an_layer_of), "flags" (["moves_layer", "challenges_bound"]; absent:
 * the text's, kt_an_text_flags), the booleans "moves_layer" and
 * "challenges_bound" (when present they set or clear their flag, over
 * both), "gain", "count" and "hits" (`questions mine --json`); or, when
 * the first
 * non-blank line starts with KT_AN_LIBRARY_MD_TITLE, the Markdown table of
 * `questions mine -o FILE.md` (rows "| N | text | layer | flags | count |
 * runs | hits | gain | sources |", "\|" an escaped '|'; other lines are
 * prose and skipped).  Anything else is refused rather than read as a
 * library of no questions.  On success *out (caller frees with
 * kt_an_library_free) holds *n >= 1 entries in file order.
 * Errors: KT_EINVAL with *why (static text) and *bad_line (1-based; 0
 * when the whole input is at fault: "no entries"); KT_ENOMEM.
 */
int kt_an_library_parse(const char *buf, size_t len, kt_an_libentry **out,
			size_t *n, size_t *bad_line, const char **why);
/* Free n entries of kt_an_library_parse (e may be NULL). */
void kt_an_library_free(kt_an_libentry *e, size_t n);

/*
 * questions suggest (analysis.md 2.7, 3.6): how well a library question
 * fits a run stuck in layer `stuck` (KT_AN_L_NONE when unknown), with
 * `claim` set when the stall keeps claiming a bound ("memory-bound at 87 %
 * of peak") and `profiled` when the run has measured with a profiler.
 * Returns a negative value for entries never to suggest: plain
 * instructions (no question sentence by kt_an_question_kind, or a
 * request without a system layer that challenges no bound, such as "can
 * you add a unit test?"), and questions of the stuck layer itself that
 * challenge no bound (what the agent is already doing).  Otherwise the fit
 * in [0, 1.7]: 0.5 for another layer than the stuck one, +0.2 when the
 * question moves layers, a bound challenge +1.0 when the stall claims a
 * bound (else +0.5 before any profiler run, else +0.2).  Callers rank by
 * fit + the entry's shrunk mean log gain per ask (kt_an_qitem.score).
 */
double kt_an_suggest_fit(int stuck, int claim, int profiled, const char *text,
			 int layer, unsigned flags);

/* kt_an_suggest_fit, and in *why (may be NULL) why an entry is never
 * suggested: KT_AN_SUG_NOT_QUESTION (an instruction: no question
 * sentence), KT_AN_SUG_NO_LAYER (no system layer and no bound challenge),
 * KT_AN_SUG_SAME_LAYER (the stuck layer itself, no bound challenge),
 * KT_AN_SUG_NO_EVIDENCE (`evidence` 0: the entry never preceded a jump -
 * no hits, or a hand-written entry with no gain above 1 - and it neither
 * challenges a bound nor moves layers, so nothing but its layer being
 * another one speaks for it: "verify these results are accurate" is no
 * way out of a memory-bound stall), or KT_AN_SUG_FITS when the fit is
 * >= 0.  `questions suggest` counts these to say why nothing fits.
 * kt_an_suggest_fit is this with evidence 1. */
enum { KT_AN_SUG_FITS = 0, KT_AN_SUG_NOT_QUESTION, KT_AN_SUG_NO_LAYER,
       KT_AN_SUG_SAME_LAYER, KT_AN_SUG_NO_EVIDENCE, KT_AN_SUG_NREASONS };
double kt_an_suggest_fit_why(int stuck, int claim, int profiled,
			     const char *text, int layer, unsigned flags,
			     int evidence, int *why);

/* ---- the words results are shown in (words.c) ------------------------- */

/* "high" / "medium" / "low" for jump j under options o: high needs
 * confidence >= 0.6 with the question at most tau_calls tool calls before
 * the jump, medium confidence >= 0.35 (analysis.md 2.6(c)4). */
const char *kt_an_conf_label(const kt_an_jump *j, const kt_an_opts *o);

/* A series key for people: k, or "(no workload, scenario or metric
 * recorded)" for "". */
const char *kt_an_key_name(const char *k);

/* Where series se's sigma came from, with the counts behind it, into buf
 * (cap bytes, cut to fit); returns buf. */
const char *kt_an_noise_text(const kt_an_series *se, char *buf, size_t cap);

/* The gain issue 15's planted runs must find (x1.35 and up): a series
 * whose noise alone puts its threshold at or above it is blind to such
 * jumps, and the outputs say so (kt_an_blind_text). */
#define KT_AN_GAIN_OF_INTEREST 1.35

/* Whether series se's noise, under options o, hides a gain of
 * KT_AN_GAIN_OF_INTEREST: z sigma sqrt 2 >= ln 1.35 (sigma >= 7.07 % at
 * z = 3), --min-gain left aside (a user's choice, not the noise), in a
 * series of 2 measurements or more (one has nothing to gain over).  Returns
 * 1 and writes one line (no newline) into buf (cap bytes, cut to fit):
 * the series, sigma and its source, and the smallest gain that counts;
 * 0 (buf "") otherwise. */
int kt_an_blind_text(const kt_an_series *se, const kt_an_opts *o, char *buf,
		     size_t cap);

/* The grader's verdict on series `key` ("" = the whole run) in one line
 * (no newline, no "graded:" label) into buf (cap bytes, cut to fit): the
 * graded metric and its value (x speedup, or ms for a time), the reward,
 * whether it was correct, its flags (such as suspicious) and where it
 * came from ("speedup_vs_compile x0.784, reward 0, correct, from
 * reward.json (seq 23)").  The last graded result of the series when it
 * has several (a run graded again).  Returns 1 when there is one, 0 (buf
 * "") when the series has no graded result.  Used by blame and report. */
/* Which metric series `key` ("" = the whole run) is graded by when a
 * bench output printed several, and why, in one line (no newline, no
 * label) into buf (cap bytes, cut to fit): "speedup_vs_compile (the
 * baseline the task names (torch.compile); also printed: speedup_vs_eager
 * x5.850 (eager))", from the series' first result that says (its
 * `choice`, else only `alternatives`: "the first printed").  Returns 1
 * when one says, 0 (buf "") when no result of the series had a choice. */
int kt_an_choice_line(const kt_an_run *r, const char *key, char *buf,
		      size_t cap);

int kt_an_graded_line(const kt_an_run *r, const char *key, char *buf,
		      size_t cap);

/* The summary line of sweep i of series se (se->sweep; no label, no
 * indent, no newline) into buf (cap bytes, cut to fit): "sweep 2 (seq
 * 5..8): 4 results over 4 scenarios, geomean speedup x1.414, x1.682 over
 * the best sweep before it (sweep 1) on the 4 scenarios both measured".
 * g is the sweep's own geomean (kt_an_sweep_scenarios; NAN: its index
 * is shown).  Correctness and suspicion marks are the caller's to add.
 * Used by blame and report alike.  No errors. */
void kt_an_sweep_line(const kt_an_series *se, size_t i, double g, char *buf,
		      size_t cap);

/* The suspect results of series se in one line (no newline) into buf (cap
 * bytes, cut to fit): "suspicious: 2 results (seq 4, 9)", the first 8
 * seqs then ", ...".  Returns how many (kt_an_series_suspects); buf ""
 * when none.  Used by blame and report alike.  No errors. */
size_t kt_an_suspects_line(const kt_an_run *r, const kt_an_series *se,
			   char *buf, size_t cap);

/* The run test of b in one line (no newline) into buf (n bytes, cut to
 * fit): S, the new bests and questions it used, the effect size and p, or
 * "p: not computed" and why.  A run without tool calls says so once
 * ("lags in messages only: the run has no tool calls") and shows no
 * call-based lag scale.  Used by blame and report alike. */
void kt_an_runtest_line(const kt_an_blame *b, char *buf, size_t n);

/* Estimated and exact Jaccard of two texts' shingles (tests). */
double kt_an_jaccard_text(const char *a, const char *b, double *minhash_est);

#ifdef __cplusplus
}
#endif
#endif /* KT_ANALYZE_H */
