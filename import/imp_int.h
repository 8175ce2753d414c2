/*
 * imp_int.h - the import session's state, shared by the driver's three
 * files (input.c: input roots and archives; session.c: what importers
 * call; driver.c: kt_import_paths) and by the typed helpers that emit
 * through the session (workspace.c, shell.c).  Not a public header:
 * importers use import.h only.
 */
#ifndef KT_IMP_INT_H
#define KT_IMP_INT_H

#include <pthread.h>
#include <time.h>

#include "import.h"
#include "impx.h"

struct kt_ws_ent {
	const char *path;       /* normalized: the workspace map's key */
	char *data;             /* current content (NUL-terminated), or NULL */
	size_t len;
	unsigned char hash[KT_HASH_LEN]; /* valid when hashed */
	int hashed;
	int stored;             /* blob of data is known to be in the store */
	int deleted;
	int unknown;            /* changed in a way we cannot tell (data NULL)
				   since the last write or observation */
	int edited;             /* an edit event named it in this run */
	unsigned edits;         /* how many: tells unknown contents apart */
	int evicted;            /* data dropped (ws_evict): the content is
				   the stored blob of hash, read back when
				   needed */
	int kernel;             /* its content defines a GPU kernel
				   (workspace.c kernel_text): a harness file
				   that does is code under test */
	int harness;            /* workspace.c harness_path(path): the path
				   never changes, so it is read once, not per
				   bench result and code file */
	uint64_t used;          /* kt_ws.tick of its last use */
};

struct kt_ws {
	/* normalized path -> struct kt_ws_ent (malloc'ed; a NULL value is
	 * a path whose entry failed to allocate: absent) */
	kt_strmap map;
	/* the code files an edit named, the first nsorted in path order: an
	 * entry stays edited until kt_ws_reset, so kt_ws_code_hash sorts only
	 * the ones added since its last call */
	struct kt_ws_code {
		const char *path;
		struct kt_ws_ent *e;
		size_t plen;
		unsigned char of[KT_HASH_LEN]; /* the hash hex was made of */
		char hex[KT_HASH_HEX];
		int hexed;
	} *code;
	size_t ncode, nsorted, capcode;
	struct kt_buf codebuf; /* kt_ws_code_hash's input, kept for reuse */
	size_t held;           /* bytes of data the entries hold */
	uint64_t tick;         /* uses so far: the least recent goes first */
};

/* one file of an input root (folder, archive, plain file, stdin) */
struct kt_vfile {
	char *rel;
	char *fspath;           /* on disk, NULL for archive members/stdin */
	char *display;
	char *member;
	unsigned char *data;    /* loaded content (NUL past len) or NULL */
	size_t len;
	uint64_t size;          /* size known before loading (progress) */
	int loaded, claimed, done;
	int listed;             /* in its root's `loaded` list */
	size_t idx;             /* its place in the root's v[] */
	int unknown;            /* no importer recognized it (reported at the
				   end of its root unless claimed by then) */
	int jsonish;            /* unknown and its first byte past white
				   space opens a JSON object or array: the
				   end of the call hints at --map */
	int blankish;           /* unknown and nothing but white space: as
				   an empty file, it fails no call */
	int mapped;             /* data is an mmap of fspath */
	int walked_plain;       /* found by walk as a regular file, not a
				   link, under folders that are not links
				   either: its real path is its root's real
				   path and rel (add_source skips realpath,
				   3-5 system calls a file) */
	int regular;            /* loaded from a regular file: an archive
				   among a folder's files can be read again
				   from fspath (driver.c, process_root) */
	int fd;                 /* mapped: the file, for reads past the map
				   (kt_in_find, the hash); -1 when none */
	size_t dropped;         /* mapped: bytes before this given back */
	int hashing;            /* f.sha is being computed on thread hth
				   (kt_in_load_ahead): wait with
				   kt_in_hash_wait before reading it */
	int hash_rc;            /* hth's hash_fd answer */
	unsigned char hsha[KT_HASH_LEN]; /* hth's hash, written by it alone:
				   f.sha takes it in kt_in_hash_wait, after
				   the join, so nothing that copies or reads
				   f (detection copies the whole kt_file)
				   races with the thread */
	pthread_t hth;
	int cut;                /* a stream that ended at a line over
				   --max-line, said when it was read: what
				   is left of it may be empty, and is no
				   "empty: nothing to import" then */
	kt_file f;
};

struct kt_root {
	int kind;               /* KT_ROOT_* */
	char *display;          /* as the user gave it */
	char *dir;              /* file system directory for listing, or NULL */
	char *abs;              /* absolute path of the file/folder/archive;
				   of an archive inside an archive: the
				   enclosing archive's */
	char *in;               /* that archive's member name in it, or NULL */
	struct kt_vfile **v;
	size_t n, cap;
	char **scanned;         /* plain-file roots: dirs listed lazily */
	size_t nscanned;
	char **sorted;          /* the names of v[0..nsorted) in strcmp */
	size_t nsorted;         /* order (kt_imp_list), rebuilt when n grows */
	/* Per-source steps that looked at every file of the root made a
	 * folder of 10,000 sessions quadratic (tests/bench/RESULTS.md
	 * "Issue 21: import", p21i3): files on disk are found by name in
	 * `byrel`, and the files loaded since the last look are listed. */
	kt_strmap byrel;        /* rel -> its first vfile (not archives) */
	struct kt_vfile **loaded;
	size_t nloaded, loaded_cap;
	int direct;             /* the path the user named is this one file */
};

enum { KT_ROOT_FILE = 1, KT_ROOT_DIR, KT_ROOT_ARCHIVE, KT_ROOT_STDIN };

struct kt_runrep {
	char id[KT_RUN_ID_HEX + 1];
	char *name, *format;
	uint64_t events, added;
};

/* bytes of store writes after which a source's transaction commits a
 * batch (kt_store_checkpoint) */
#define KT_IMP_BATCH (32u << 20)

struct kt_imp {
	kt_store *s;
	const kt_import_opts *opts;
	kt_redactor *red;
	struct kt_root *root;   /* root being processed */
	struct kt_vfile *cur;   /* source being imported */
	int err;                /* first store error of this source */
	int fail;               /* kt_imp_fail: the importer's own failure */
	int problems;           /* warnings in this source */
	int failed;             /* strict + problem: output is discarded */
	/* current run */
	int in_run;
	char run_id[KT_RUN_ID_HEX + 1];
	char *run_name, *run_format;
	uint64_t stored_n, seq, added;
	/* events stored after the last one an import wrote (ktraj append,
	 * bench --record, replay); stored_n counts the imported ones.  The
	 * source's own events past stored_n cannot take their seqs: while
	 * tail is set nothing is written to the run (import/README.md). */
	uint64_t tail;
	const kt_importer *im;  /* importer of the source being imported */
	/* the last stored event, to check that this source continues it */
	int last_kind;
	long long last_line, last_off;
	int frozen;             /* it does not: append nothing to this run */
	/* --redact on a run stored without it: its events are compared
	 * unredacted, the new ones redacted when appended (kt_imp_emit) */
	int plain_stored;
	/* kt_imp_check_reemit: the first re-emitted event whose payload
	 * differs from the stored one (0 none), and where it came from */
	int check_reemit;       /* 1: kind, payload; 2: and parent, ts, actor */
	int reemit_paused;      /* check_reemit, while kt_imp_reemit_pause */
	uint64_t changed_seq;
	const kt_file *changed_file;
	uint64_t changed_line;  /* its line in changed_file (0: none) */
	/* meta of a run not in the store yet: it is created with its first
	 * event, so a source that yields none leaves no empty run behind */
	char *new_meta;
	/* provenance of the last emitted event (edits borrow it) */
	const kt_file *ev_file;
	uint64_t ev_line, ev_off, ev_len;
	/* The actor of each event of the run, for kt_imp_actor_of: the
	 * last acts_cap events' in a ring (index seq % acts_cap), older
	 * ones other than "agent" in acts_spill, so the importer's memory
	 * does not grow with the run (an array indexed by seq grew 8 bytes
	 * an event: tests/bench/RESULTS.md "Issue 21: what import's heap
	 * grows with").  acts_cap is kt_imp_ids; it doubles instead when
	 * no temporary file can be made. */
	const char **acts;      /* interned; NULL: "agent" */
	size_t acts_cap;
	uint64_t acts_first;    /* the run's first seq noted (0: none) */
	uint64_t acts_last;     /* its last */
	uint64_t acts_gen;      /* runs begun: part of a spilled key */
	struct kt_spill *acts_spill;
	int acts_no_spill;      /* kt_spill_open failed: the ring grows */
	kt_strmap intern;       /* interned actor strings -> their place
				   in names + 1 */
	const char **names;     /* the interned strings, by place */
	size_t nnames, names_cap;
	int64_t last_ts;
	struct kt_ws ws;
	/* runs touched by this source (reported after commit) */
	struct kt_runrep *pend;
	size_t npend, pend_cap;
	/* runs reported for the whole call */
	struct kt_runrep *reps;
	size_t nreps, reps_cap;
	kt_strmap rep_at;       /* run id -> its place in reps + 1 */
	/* small sources sharing one store transaction, each ended by a
	 * savepoint (FORMAT.md §6.12): their displays and the runs they
	 * touched, reported once the batch is committed */
	struct {
		int open;
		uint64_t bytes;     /* input bytes of its sources */
		uint64_t commits;   /* kt_store_commits when it last moved */
		const char **files;
		size_t nfiles, files_cap;
		struct kt_runrep *pend;
		size_t npend, pend_cap;
	} batch;
	uint64_t bytes_total, bytes_done;
	struct kt_buf pbuf;    /* payload text of the event being appended */
	/* provenance text shared by the events of one file (prov_json) */
	struct {
		char sha[KT_HASH_LEN * 2 + 1];
		char *path, *member;    /* the file's, copied: the key */
		char *pre, *suf;        /* before "line" and after "len" */
		size_t lpre, lsuf;
		/* the last record hashed for "rec" (a line of several
		 * events is hashed once) */
		const unsigned char *rec_at;
		uint64_t rec_len;
		char rec[17];
	} provc;
	int depth;              /* archive nesting */
	/* depth > 0: bytes an archive inside the archive being imported may
	 * still expand to (what is left of the outer one's bound), so a
	 * nested archive shares its enclosing archive's limits */
	uint64_t nest_room;
	/* sources that could not be read at all (cannot open, cannot read,
	 * input over the size bound): the call then ends KT_ENOTFOUND, as
	 * for a missing path */
	unsigned unreadable;
	unsigned busy;          /* sources another live import holds */
	/* folder entries skipped without being read (dangling links, FIFOs,
	 * devices, sockets), empty folders, and empty inputs and files in
	 * no known format named by the user: reported, and the call ends
	 * KT_ENOTFOUND only when no run came of the whole call */
	unsigned fs_skipped;
	/* files of a folder or archive in no known format (on_skip), and
	 * of them those that hold JSON, the first one's display: the call
	 * ends KT_ENOTFOUND when no run came of it, and a JSON one earns
	 * the --map hint once at the end */
	unsigned unknown_skipped, unknown_json;
	const char *first_json;
	/* sources whose commit failed (nothing of them kept): the call
	 * ends with the first one's error */
	int store_rc;
	unsigned own_skipped;   /* the store's own files met in a folder */
	/* the source being imported when the store's file system filled
	 * (kt_store_nospace): the import stops there, said once */
	const char *full_at;
	/* files of a batch lost with it when the file system filled, not
	 * imported though read: counted with the files not read */
	size_t full_more;
	/* what the run names as graded, for benchmark text (benchout.c) */
	kt_bench_hint bench_hint;
	/* the run's task was read for the baseline to beat: its first
	 * human message (kt_imp_emit), or the importer named the hint
	 * itself (kt_imp_bench_hint: ATIF reads the harness's prompt) */
	int task_read;
	/* the metrics the task grades and calls informational
	 * (kt_bench_task_metric), which bench_hint points at */
	char task_metric[64], task_info[64];
	/* free-text bench results given since the code last changed
	 * (shell.c: a result printed again in a later call is not stored
	 * twice), and the code hash they were given under */
	cJSON *bench_seen;
	char bench_code[KT_HASH_HEX + 1];
	/* "metric\x1fbaseline" -> {workload, scenario} (a cJSON object) of the
	 * agent's last free-text result of that metric in this run: the
	 * grader's record of the same metric (reward.json) joins its series
	 * (kt_imp_bench_key) */
	kt_strmap bench_keys;
	/* results files read so far ("PATH\x1fFNV-1a of their text", no
	 * values): a file read again with the same text is the same report
	 * (kt_imp_bench_file), whatever the code did in between */
	kt_strmap bench_files;
};


/* ---- perfreport.c ---- */
/* Triton perf_report tables in a command's output out[0..len), read with
 * the unit the Benchmark of the same plot_name declares (its ylabel) in
 * the command text cmd (may be NULL) or a file of the workspace: the bench
 * payloads into *results (an array, maybe empty; the caller frees),
 * pattern "perf_report", one per row and kernel column, the reference
 * column (torch, cublas, ...) as ref_time_ms or the speedup's baseline.
 * *unread counts the tables under a title whose unit is not known.
 * KT_EINVAL (out NULL), KT_ENOMEM. */
int kt_perf_report(kt_imp *imp, const char *cmd, const char *out,
		   size_t len, cJSON **results, int *unread);

/* ---- CPU accounting (opts->stats) ---- */
static inline uint64_t kt_imp_cpu_ns(void)
{
	struct timespec t;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t))
		return 0;
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Bracket a store call: st_stop adds its CPU time to stats->store_ns. */
static inline uint64_t st_start(const kt_imp *imp)
{
	return imp->opts->stats ? kt_imp_cpu_ns() : 0;
}

static inline void st_stop(const kt_imp *imp, uint64_t t0)
{
	if (imp->opts->stats)
		imp->opts->stats->store_ns += kt_imp_cpu_ns() - t0;
}

/* ---- input.c: input roots ---- */
/* The root for one path the user gave ("-" = stdin), its files listed
 * (a folder walked) but not read: *out, NULL with 0 when the path was
 * counted unreadable (stdin over the bound) and the other paths go on.
 * KT_ENOTFOUND (warned), KT_ENOMEM. */
int kt_in_root(kt_imp *imp, const char *path, struct kt_root **out);
void kt_in_root_free(struct kt_root *r);
/* A folder's or archive's files in byte order of their rel paths. */
void kt_in_sort(struct kt_root *r);
/* Read v (a file on disk) into memory: 0, or KT_EIO, KT_ENOMEM,
 * KT_ELIMIT (warned), KT_ENOTFOUND (an archive member already dropped). */
int kt_in_load(kt_imp *imp, struct kt_root *r, struct kt_vfile *v);
/* kt_in_load, but the whole-file SHA-256 of a big mapped file (kt_threads_for)
 * runs on a second thread while the caller detects and parses the file:
 * v->f.sha and sha_hex are then zero and "" until kt_in_hash_wait(v), which
 * alone writes them, after the join (the thread writes v->hsha and
 * v->hash_rc, nothing of v->f, so a copy of v->f is no race).  The
 * thread reads the file with pread, never through the map, and touches
 * nothing else of v.  Same codes as kt_in_load; when the thread cannot be
 * started the hash is computed here, as kt_in_load does. */
int kt_in_load_ahead(kt_imp *imp, struct kt_root *r, struct kt_vfile *v);
/* Wait for v's hash thread, if any, and fill v->f.sha and sha_hex (a read
 * error on the thread's side is answered as kt_in_load does: the hash is
 * taken through the map).  Cannot fail; at once when no thread runs.
 * Every reader of a kt_in_load_ahead file's hash calls it first, and so
 * does kt_in_unload. */
void kt_in_hash_wait(struct kt_vfile *v);
/* Drop v's content (a file on disk can be read again). */
void kt_in_unload(struct kt_vfile *v);
/* The importer of mapped file v has read up to byte upto: the pages more
 * than a window (8 MiB) behind are given back to the system (read again
 * from the file if touched).  Nothing for a file not mapped. */
void kt_in_drop(struct kt_vfile *v, uint64_t upto);
/* All of mapped file v given back: a pass over it ended. */
void kt_in_drop_all(struct kt_vfile *v);
/* The offset of the first needle (nl bytes) in v's data at or after from,
 * or -1 (kt_imp_find). */
int64_t kt_in_find(struct kt_vfile *v, uint64_t from, const void *needle,
		   size_t nl);
/* Whether the regular file fspath starts like an archive (its first 512
 * bytes, kt_archive_magic); 0 for streams, which cannot be peeked. */
int kt_in_peek_archive(const char *fspath);
/* Open and read an archive into a root of its own (input.c says how). */
int kt_in_archive_read(kt_imp *imp, const char *display, const char *fspath,
		       const unsigned char *data, size_t len,
		       const struct kt_root *outer, const struct kt_vfile *ov,
		       struct kt_root **out, uint64_t *total, uint64_t *room);

/* ---- session.c: the session's bookkeeping for the driver ---- */
/* malloc'ed copy of s (NULL taken as ""); NULL on ENOMEM */
char *kt_imp_strdup(const char *s);
/* Report "where: what", a problem that is not about a source (an unsafe
 * archive member, an unreadable path): not counted against --strict. */
void kt_imp_warn_at(kt_imp *imp, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The source is done: keep 1 (its transaction committed) adds the runs it
 * touched to those reported at the end of the call, keep 2 (it ended with a
 * savepoint of a batch) holds them until the batch is committed
 * (kt_imp_batch_done); either way they are forgotten for the next source. */
void kt_imp_source_end(kt_imp *imp, int keep);
/* Room in the batch for the source being imported (its runs and its
 * display), made before its savepoint so that keeping it cannot fail:
 * 0 or KT_ENOMEM. */
int kt_imp_batch_reserve(kt_imp *imp);
/* The sources of the batch (kept 2 by kt_imp_source_end) are stored
 * (keep) and reported, or lost: their runs are dropped from the report. */
void kt_imp_batch_done(kt_imp *imp, int keep);
/* Free what the session holds at the end of kt_import_paths. */
void kt_imp_session_free(kt_imp *imp);

/* workspace.c */
/* Forget every file (a new run starts). */
void kt_ws_reset(struct kt_ws *ws);
/* kt_ws_reset, and the table's memory too (the import's end). */
void kt_ws_free(struct kt_ws *ws);
/* The content of entry e read back from the store when the workspace
 * dropped it (kt_ws_ent.evicted; in the source's write transaction, so a
 * blob not committed yet is read too): 0, or kt_blob_get's error, which
 * also fails the source (imp->err): the workspace cannot go on without the
 * content it believes. */
int kt_ws_load(kt_imp *imp, struct kt_ws_ent *e);
/* the actor of the event with seq (the tool call an edit belongs to) */
const char *kt_imp_actor_of(kt_imp *imp, uint64_t seq);
/* whether the next emitted event will really be written */
int kt_imp_next_written(const kt_imp *imp);

/* ---- runname.c ---- */
#define KT_IMP_NAME_MAX 80 /* bytes of a run name */
/* Cut s in place to at most max bytes on a UTF-8 boundary, before the word
 * the cut falls in (when an earlier space allows), without trailing
 * spaces. */
void kt_imp_name_cut(char *s, size_t max);

#endif
