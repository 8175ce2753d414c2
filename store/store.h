/*
 * store.h - the ktraj trajectory store: an append-only, hash-chained LMDB
 * environment with zstd-compressed events and content-addressed blobs.
 *
 * FORMAT.md (project root) is the normative description of every byte this
 * module writes; this header is the C contract.
 *
 * Operational caveats (in the manner of lmdb.h):
 *  - One store is one file plus "<file>-lock" (MDB_NOSUBDIR).  Several
 *    processes may read while one writes; writers serialize on LMDB's lock.
 *  - A kt_store handle may be used by one thread at a time.  The zstd
 *    contexts are per process (shared by every handle), so handles must not
 *    be used from several threads at once either.
 *  - Reads outside a write transaction share one snapshot while nested
 *    (a kt_event_get inside a kt_event_foreach callback sees what the
 *    iteration sees); reads inside a write transaction see its writes.
 *  - Do not append or put from inside a kt_event_foreach callback that runs
 *    inside the same write transaction (the cursor may not survive a map
 *    growth); collect, then write.
 *  - A long BODY scan outside a write transaction may decompress blocks on
 *    helper threads of its own while its callback runs (joined before
 *    kt_event_scan returns; kt_store_set_scan_threads): a callback that
 *    forks must exec or _exit in the child.
 *  - Pointers returned inside structs filled by the store (kt_event_view,
 *    kt_run_info) are owned by the store handle and stay valid only until the
 *    next call on the same handle, unless the function says otherwise.
 *  - Nothing here prints or exits.  Every function returns 0 or a negative
 *    KT_E* code; kt_strerror() turns a code into text.  The store keeps a
 *    one-line detail of the last error, kt_store_errmsg().
 *  - Events are never rewritten or deleted: there is no such API.
 *
 * Units: timestamps are ns since the Unix epoch (KT_TS_UNKNOWN when the
 * source gives none); sizes are bytes.
 */
#ifndef KT_STORE_H
#define KT_STORE_H

#include <stddef.h>
#include <stdint.h>
#include "../base/kt_base.h" /* error codes, KT_HASH_LEN, KT_TS_UNKNOWN,
				 hex, SHA-256 */
#include "event_model.h"  /* kinds, blob references, payload schema */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- format constants --------------------------------------------------- */
#define KT_FORMAT_VERSION 2u       /* meta "format"; see FORMAT.md Versioning */
#define KT_RUN_ID_HEX 32           /* run ids are 32 lowercase hex chars */
#define KT_DEFAULT_STORE ".ktraj"  /* in the current directory */


/* ---- store handle ------------------------------------------------------- */
typedef struct kt_store kt_store;

#define KT_OPEN_RDONLY  0x1u  /* read only; fails with KT_ENOTFOUND if absent */
#define KT_OPEN_CREATE  0x2u  /* create the file when it does not exist */
#define KT_OPEN_BULK    0x4u  /* bulk import: no fsync per commit; durable
				 at kt_store_sync() and kt_store_close() */
#define KT_OPEN_CHECK   0x8u  /* check the structure of LMDB's pages before
				 LMDB reads them (`ktraj verify`: LMDB
				 trusts its pages, and a damaged one can
				 crash it or make a writer overwrite pages
				 in use; FORMAT.md §5 "LMDB's pages").  A
				 damaged page fails kt_store_open with
				 KT_ECORRUPT, the file untouched.  Costs a
				 pread of every page in use: read-only
				 handles check at open and each newer
				 snapshot a read then sees; writable ones
				 once, at open, before their first write
				 transaction (what they commit after, LMDB
				 wrote from checked pages) */

/*
 * Resolve the store path: `cli_path` when not NULL, else $KTRAJ_STORE, else
 * KT_DEFAULT_STORE.  Returns a pointer to one of those strings (not owned).
 */
const char *kt_store_default_path(const char *cli_path);

/*
 * Open (or with KT_OPEN_CREATE create) the store at `path`.  Clears stale
 * reader slots.  On success *out owns the handle; release with
 * kt_store_close().  A store whose file or lock file cannot be written
 * (read-only directory, file or medium) opens read-only without LMDB's
 * lock (MDB_NOLOCK): reads are then correct only while no other process
 * writes the store; with KT_OPEN_CREATE (a caller that means to write) it
 * fails with KT_ERDONLY instead.  Errors: KT_ENOTFOUND (absent, no CREATE),
 * KT_ERDONLY, KT_EVERSION
 * (another format version: a newer store, or a version 1 store, which must
 * be exported with the ktraj that wrote it and imported again),
 * KT_ECORRUPT (not a ktraj store; with KT_OPEN_CHECK also a damaged LMDB
 * page, the errmsg naming it: nothing was written, by a writer neither),
 * KT_EIO, KT_ENOMEM.
 */
int kt_store_open(const char *path, unsigned flags, kt_store **out);

/*
 * Why the calling thread's last kt_store_open failed, in words ("" when it
 * did not, or said nothing more than its code); a thread-local buffer
 * valid until that thread's next kt_store_open.
 */
const char *kt_store_open_errmsg(void);

/*
 * Whether s reads its store without the lock (kt_store_open fell back to
 * MDB_NOLOCK) and the store file has been written since s opened it (its
 * size or modification time differ).  A KT_ECORRUPT such a handle meets
 * then may be a page the writer was rewriting (no reader table tells the
 * writer to keep it): report KT_ECHANGED instead, exit 3 is for damage.
 * The store's own checks do so (kt_err); this is for callers that got
 * KT_ECORRUPT from a code path that did not.  0 for a locked handle.
 */
int kt_store_changed(kt_store *s);

/*
 * Bound the handle's cache of decompressed event blocks to `bytes` (0 turns
 * it off; the default is 64 MiB).  Point reads of events in a cached block
 * cost no decompression; without the cache every BODY or HASH point read
 * decompresses one block (~256 KiB of bodies).  Besides the blocks, a
 * handle keeps decoded header pages (one per 128 KiB of `bytes`, at least
 * 64, ~10 KiB each) and the block buffers of its last scan, with a copy of
 * each dictionary it met.  A read whose page and block are cached takes no
 * LMDB lookup.  Empties the caches.
 */
int kt_store_set_cache(kt_store *s, size_t bytes);

/*
 * Whether event blocks sealed in a write transaction of the handle are
 * compressed on a worker thread while the caller appends on: n = 0 no
 * (the default; the worker, if started, is stopped), n >= 1 yes (one
 * worker, started with the first sealed block; one block in flight at a
 * time, so memory grows by one block, ~256 KiB of bodies).  The LMDB puts
 * stay in the calling thread, and the records stored, their content and
 * their order in the block database, are those of the one-thread path:
 * the choice changes speed, never bytes read back.  It pays only when a
 * second CPU is free (kt_threads_for); `ktraj import` decides per source.
 * 0; KT_EINVAL (NULL handle or n < 0); turning it off inside a write
 * transaction puts the block in flight first and may fail as a put does
 * (KT_ENOMEM, KT_EIO, KT_ELIMIT).
 */
int kt_store_set_write_threads(kt_store *s, int n);

/*
 * How many helper threads a BODY or HASH kt_event_scan of the handle may
 * use to decompress blocks ahead of it: 0 = none (every block is decoded in
 * the calling thread), n = up to n (at most 3), -1 = the default: one fewer
 * than the CPUs the process may run on (sched_getaffinity), at most 3, and
 * none when that is one (a single helper cost more in hand-offs than it
 * saved on the 2-vCPU build machine).  The
 * helpers run only inside kt_event_scan, in its read transaction (never in
 * a write transaction), for scans of at least 2,048 events, each with its
 * own zstd context; the scan's callback is always called in the calling
 * thread, in seq order, with the same events either way.  A single core
 * decodes ~1.4 GB/s of bodies (tests/bench/RESULTS.md "session 6").
 * KT_EINVAL for n < -1.
 */
int kt_store_set_scan_threads(kt_store *s, int n);
/* Block cache hits and misses of point reads since open (benchmarks). */
void kt_store_cache_stats(kt_store *s, uint64_t *hits, uint64_t *misses);

/* Flush and close.  NULL is a no-op.  Returns the sync status. */
int kt_store_close(kt_store *s);

/* Force everything committed so far to disk (after a bulk import). */
int kt_store_sync(kt_store *s);

/* Detail of the last error on this handle ("" when none).  Owned by s. */
const char *kt_store_errmsg(const kt_store *s);

/* Whether a write on this handle failed because the file system holding
 * the store had no room left (ENOSPC, or LMDB's EIO of a short write on a
 * full disk); the error itself was KT_EIO with the errmsg saying so.
 * Once set it stays set: a caller importing many sources stops at the
 * first instead of failing each one again.  0 for NULL. */
int kt_store_nospace(const kt_store *s);

struct stat;
/* Whether st (of a file found while walking a folder) is the store's own
 * file or its LMDB lock file ("<path>-lock"): the same device and inode as
 * the file LMDB opened and the lock file found when the store was opened
 * (no system call here: it is asked once per file of a folder).  An import
 * of the folder that holds its store skips them instead of reading them as
 * input.  0 for NULL s or st. */
int kt_store_is_own_file(const kt_store *s, const struct stat *st);

/* ---- write transactions --------------------------------------------------
 * All writes happen inside kt_store_begin()/kt_store_commit().  One write
 * transaction at a time per handle (KT_EBUSY otherwise).  kt_store_abort()
 * discards everything since begin.  When the LMDB map fills, the store grows
 * the map and replays the transaction's writes transparently; callers never
 * see MDB_MAP_FULL.
 */
int kt_store_begin(kt_store *s);
int kt_store_commit(kt_store *s);
void kt_store_abort(kt_store *s);

/*
 * Savepoints: several sources in one write transaction, each kept or
 * dropped whole (FORMAT.md §6.12).  kt_store_savepoint writes what memory
 * holds of the open transaction (open blocks, blocks held for the
 * dictionary, the end of §6.11's checkpoints) and remembers the place;
 * nothing becomes visible to other readers before kt_store_commit.
 * KT_EINVAL (NULL), KT_EBUSY (no write transaction), and the write errors
 * of kt_store_commit (KT_ENOMEM, KT_EIO, KT_ELIMIT); after an error call
 * kt_store_rollback.
 *
 * kt_store_rollback takes the transaction back to the last savepoint (to
 * kt_store_begin when there was none): the records, the dictionaries and
 * the held-out runs are those of that moment, also after map growth or a
 * dictionary trained since; or, when a §6.11 checkpoint committed since,
 * to that commit, with the runs created since reclaimed as kt_store_abort
 * does.  0: a write transaction is open again.  Else no transaction is
 * open and nothing since the last commit (kt_store_commits) is kept:
 * KT_EINVAL (NULL), KT_EIO (the transaction was already lost: map growth
 * or a checkpoint's commit failed), kt_store_begin's errors, or those of
 * the replay (KT_ELIMIT: the map at its limit; KT_EIO; KT_ENOMEM;
 * KT_ECORRUPT reading the dictionaries).  As after kt_store_abort, the
 * handle's training samples keep the bodies of what was rolled back, and
 * a handle that trained its dictionary does not train again.
 */
int kt_store_savepoint(kt_store *s);
int kt_store_rollback(kt_store *s);

/* The LMDB commits this handle made so far (kt_store_commit and §6.11
 * checkpoints, which commit everything up to them): a caller that holds
 * sources at savepoints sees by a change that those before are stored. */
uint64_t kt_store_commits(const kt_store *s);

/*
 * Checkpoint of a long write transaction (FORMAT.md §6.11): once the open
 * transaction holds at least min_bytes of writes since its last savepoint
 * (kt_store_savepoint; since kt_store_begin when none), or once the pages
 * its puts since then may have dirtied (estimated per database as its puts
 * and deletes, but no more than its tree's pages: the leaves, not the branch
 * pages above them, so up to ~2x in a very large tree) reach a quarter of
 * min_bytes
 * (256 pages at least), commit them and go on in
 * a new LMDB transaction, so memory stays bounded whatever is written:
 * LMDB holds a transaction's dirty pages in the heap until its commit.  The
 * begin..commit/abort span stays one transaction for every reader: each run
 * created since kt_store_begin (or the last savepoint) is held out of `runs`, `run_sums` and
 * `run_names` (marked `unfinished` in `meta`) until kt_store_commit, and
 * kt_store_abort (or a failed commit, or a close) takes back what the
 * checkpoints committed.  Does nothing (returns 0) below min_bytes, inside
 * a read, or once the transaction appended to a run that existed before
 * it (that run is visible: a checkpoint would show part of the append).
 * Every 8 MiB of writes or of blobs read, or every 128 page faults of the
 * process, batch or not, the pages of the store's map this process
 * touched are given back (they are read again from the page cache when
 * needed), so resident memory does not grow with the store.
 * KT_EINVAL (NULL), KT_EBUSY (no write transaction), and the errors of
 * kt_store_commit/kt_store_begin; after an error the handle has no write
 * transaction open only if the commit failed (then call kt_store_abort).
 */
int kt_store_checkpoint(kt_store *s, size_t min_bytes);

/* Remove what imports that died between checkpoints left (FORMAT.md
 * §6.11): the blocks, pages and paths of each run marked `unfinished` by
 * a process that no longer runs; *n (may be NULL) their number.  Inside a
 * write transaction (KT_EBUSY otherwise); KT_ENOMEM, KT_EIO. */
int kt_store_reclaim(kt_store *s, uint64_t *n);

/* Number of runs marked unfinished in the store (invisible to every
 * reader; written now by another process, or left by one that died and
 * reclaimed by the next import).  KT_EINVAL, KT_EIO. */
int kt_store_unfinished(kt_store *s, uint64_t *n);

/* ---- runs ----------------------------------------------------------------- */

/* Run id from a source identity string such as "claude_code:<sessionId>":
 * the first 16 bytes of SHA-256(identity) as 32 lowercase hex chars plus
 * NUL.  Deterministic, so a source gets the same id in every store. */
void kt_run_id_from_identity(const char *identity, char out[KT_RUN_ID_HEX + 1]);

typedef struct kt_run_info {
	char id[KT_RUN_ID_HEX + 1];
	const char *name;      /* human name (session title, task, file stem) */
	const char *format;    /* importer name, "append", "bench", ... */
	const char *meta_json; /* JSON object text: source, model, cwd, extra */
	uint64_t n_events;     /* == last seq */
	int64_t created_ns;
	unsigned char head[KT_HASH_LEN]; /* hash-chain head after n_events */
	int checksum;          /* 1: name, format, meta and created matched
				  the run's checksum; 0: the run has none (a
				  run written by a ktraj before run checksums,
				  FORMAT.md §6.10) */
} kt_run_info;

/*
 * Create run `id` (inside a write transaction).  `meta_json` is a JSON object
 * text or NULL.  Errors: KT_EEXIST when the id exists (its record is kept
 * unchanged), KT_EINVAL, KT_EBUSY (no transaction), KT_EIO.
 */
int kt_run_create(kt_store *s, const char *id, const char *name,
		  const char *format, const char *meta_json);

/* Fill *info for run `id`.  Strings are owned by s (valid until next call).
 * The record is checked against its checksum (FORMAT.md §6.10).
 * Errors: KT_ENOTFOUND, KT_ECORRUPT (the record does not match its
 * checksum; the errmsg names the run). */
int kt_run_get(kt_store *s, const char *id, kt_run_info *info);

/*
 * Resolve what a user typed: a full id, a unique id prefix (>= 4 chars), or
 * a run name.  Writes the id to out.  Errors: KT_ENOTFOUND, KT_EAMBIG,
 * KT_ECORRUPT: the run it resolves to, or one the name index lists under
 * spec, has a record that fails its checks (kt_run_get), or no sound run
 * matches and spec names, in `run_names` (a name) or `ev_blocks` (an id or
 * id prefix), a run that has no record and is not an import in progress
 * (a damaged run id, FORMAT.md §6.10): out then holds that run's id and
 * the errmsg names it (on other errors out is "").
 */
int kt_run_resolve(kt_store *s, const char *spec, char out[KT_RUN_ID_HEX + 1]);

/*
 * Hold one read transaction on s for the reads that follow (kt_run_get,
 * kt_run_foreach, kt_event_scan, kt_event_read, kt_blob_get, ...), until
 * kt_store_read_release: each of them then uses it instead of beginning and
 * resetting its own, and the KT_OPEN_CHECK pin of the snapshot's pages is
 * done once here instead of once per read.  For a caller that reads many
 * runs in one pass (`questions mine` over a store): every read sees the
 * store as of this call, so a run appended by another process meanwhile is
 * not seen, as with one scan.  For reads: what s itself writes meanwhile
 * is not seen by them either, and a write that needs the map grown fails
 * KT_EBUSY until the release.  Appends of s still held in memory are
 * written first, as any read does.  Holds nest: each hold needs its
 * release.
 * Errors: KT_EINVAL (s NULL), KT_EBUSY (a write transaction is open on s),
 * the errors of writing the held appends and of beginning a read (KT_EIO;
 * KT_ECORRUPT from the page check), with nothing held.
 */
int kt_store_read_hold(kt_store *s);
/* End what kt_store_read_hold began (no-op when nothing is held). */
void kt_store_read_release(kt_store *s);

/* Call fn for each run in id order; stop early when fn returns non-zero and
 * return that value.  KT_ECORRUPT as kt_run_get, at the first bad run: a
 * record that fails its checksum, or, for a run with no checksum, a key
 * under which neither its name (run_names) nor its events (ev_blocks) are
 * found, the mark of a damaged run id (FORMAT.md §6.10). */
int kt_run_foreach(kt_store *s, int (*fn)(const kt_run_info *, void *),
		   void *arg);
/* As kt_run_foreach, for a listing that shows what is sound: a run whose
 * key or record is damaged is skipped, not the end of the walk, so fn sees
 * every sound run; then KT_ECORRUPT, the errmsg naming the first damaged
 * run in id order, and *nbad (may be NULL) how many were skipped (0 on any
 * other answer but a KT_ECORRUPT after the walk).  Other errors (KT_EINVAL,
 * KT_EIO, KT_ECHANGED, fn's non-zero value) end the walk as in
 * kt_run_foreach. */
int kt_run_foreach_sound(kt_store *s,
			 int (*fn)(const kt_run_info *, void *), void *arg,
			 size_t *nbad);

/*
 * Hide run `id` (hide 1) or show it again (hide 0), inside a write
 * transaction, by appending a run mark (FORMAT.md §6.1 "Run marks"):
 * nothing is deleted or rewritten, and the run stays readable by id.
 * Returns 0 when a mark was appended, 1 when the run already was in
 * that state (nothing written).  Errors: KT_ENOTFOUND (no such run),
 * KT_EINVAL (hide not 0 or 1, bad id), KT_EBUSY (no transaction),
 * KT_ECORRUPT (the run's last mark is malformed), KT_EIO.
 */
int kt_run_hide(kt_store *s, const char *id, int hide);

/* Whether run `id` is hidden: 1 yes, 0 no (also for a run never marked,
 * and for an id no run has), or a negative KT_E* code (KT_EINVAL: bad
 * id; KT_ECORRUPT: its last mark is malformed; KT_EIO). */
int kt_run_hidden(kt_store *s, const char *id);

typedef struct kt_marks_stats {
	uint64_t records, record_bytes;        /* every run mark (key+value) */
	uint64_t superseded, superseded_bytes; /* marks a later mark of the
						  same run overrides */
} kt_marks_stats;

/* Count the store's run marks (for `ktraj gc --dry-run`).  Errors:
 * KT_EINVAL, KT_EIO. */
int kt_run_marks_stats(kt_store *s, kt_marks_stats *st);

/* ---- events ----------------------------------------------------------------
 * An event as the caller supplies it (kt_event_append) and as the store
 * returns it (kt_event_get / iteration).  The payload is a JSON object whose
 * schema depends on `kind` (FORMAT.md "Event kinds").  On append the store
 * canonicalizes payload and provenance (parsed and re-printed compactly with
 * cJSON, key order kept), so the same event always hashes the same.
 */
typedef struct kt_event {
	uint64_t seq;          /* 1..n, dense per run */
	uint64_t parent;       /* causal parent seq, 0 for none */
	int64_t ts_ns;         /* ns since epoch or KT_TS_UNKNOWN */
	int kind;              /* enum kt_kind */
	const char *actor;     /* "human", "agent", "agent:<subagent id>",
				  "system", "tool", "harness" */
	const char *prov_json; /* provenance object text or NULL:
				  {"src":"<sha256 hex>","line":N,"off":N,
				   "member":"..."} */
	const char *payload;   /* JSON object text */
	size_t payload_len;
	unsigned char hash[KT_HASH_LEN]; /* out: SHA-256 of canonical bytes */
	unsigned char chain[KT_HASH_LEN];/* out: chain value after this event */
	unsigned flags;        /* in: KT_EV_* below (0 is always safe) */
} kt_event;

/* kt_event.flags: the payload is already canonical (printed by
 * cJSON_PrintUnformatted from a parsed tree, or read back from a store), so
 * append skips its parse + print.  A wrong claim is not detected; the store
 * then hashes the bytes as given. */
#define KT_EV_CANONICAL 0x1u
/* kt_event.flags: the same claim for prov_json (an importer prints one per
 * event; its parse + print was 5 % of a Claude Code import).  Without it
 * prov_json is canonicalized. */
#define KT_EV_PROV_CANONICAL 0x4u
/* kt_event.flags, out only: the event came from a header-only read
 * (KT_READ_HEAD without KT_READ_BODY): actor, prov_json and payload are
 * NULL, payload_len is 0.  Never pass it to kt_event_append. */
#define KT_EV_HEAD 0x2u

/*
 * Append ev to run `run` (inside a write transaction).  ev->seq must equal
 * the run's n_events + 1: appending a seq that exists fails with KT_EEXIST,
 * a gap with KT_EINVAL.  Fills ev->hash and ev->chain.  Payload JSON that
 * does not parse gives KT_EINVAL.  Edit and tool_result payloads update the
 * workspace path index (FORMAT.md "paths").
 */
int kt_event_append(kt_store *s, const char *run, kt_event *ev);

/*
 * Reads with a choice of what to fill (`how`, bits below), and scans with a
 * mask of kinds.  Costs are those of layout v2 (FORMAT.md §6.4, §6.9):
 *
 *  KT_READ_HEAD  seq, kind, parent, ts_ns.  actor, prov_json and payload are
 *                NULL, payload_len 0, hash and chain zeroed, flags
 *                KT_EV_HEAD.  From the run's header pages only, never a
 *                block: a read is two B-tree lookups and the decode of up
 *                to 256 page rows; a scan decodes each page once.  A corrupt
 *                block is found by a BODY read or by kt_store_verify.
 *  KT_READ_BODY  also actor, prov_json, payload (flags KT_EV_CANONICAL).  A
 *                read needs the block holding the body: from the handle's
 *                block cache (kt_store_set_cache), or one decompression of
 *                ~256 KiB of bodies.  A scan decompresses each block of the
 *                kinds in `kinds` once, and no block of other kinds.  The
 *                strings usually point into the decompressed block (no
 *                copy); they are NUL-terminated all the same.
 *  KT_READ_HASH  also the event hash and the chain value after the event;
 *                without it both are zeroed.  Hashes are not stored: a read
 *                hashes every event from its page's checkpoint up to seq
 *                (up to 256 events, all kinds, bodies from the cache); a
 *                scan hashes every event from the page of `first` on, of
 *                every kind, whatever `kinds` says, checks the chain
 *                against each page checkpoint it passes and, when it runs
 *                to the run's last event, against the run head
 *                (KT_ECORRUPT after fn saw the events: a caller that
 *                writes them out must treat the output as void).  Ask
 *                only when needed.
 *
 * kt_event_read reads event (run, seq); pointers in *ev are owned by s and
 * valid until the next call on s.  kt_event_scan calls fn for each event of
 * `run` with first <= seq <= last (first 0 = 1, last 0 = to the end) in seq
 * order whose kind is in `kinds` (a mask of KT_KIND_BIT(kind); 0 = all
 * kinds).  fn gets an event whose pointers are valid during the call only;
 * reads (kt_event_read, kt_blob_get) are allowed inside it.  The scan stops
 * when fn returns non-zero and returns that value.  Inside a write
 * transaction both see the transaction's appends.
 * Errors: KT_ENOTFOUND (read: no such event), KT_ECORRUPT, KT_EINVAL
 * (unknown bits in how, bad run id), KT_ENOMEM, KT_EIO.
 */
#define KT_READ_HEAD 0u
#define KT_READ_BODY 1u
#define KT_READ_HASH 2u
#define KT_KIND_BIT(k) (1u << (k))

int kt_event_read(kt_store *s, const char *run, uint64_t seq, unsigned how,
		  kt_event *ev);
int kt_event_scan(kt_store *s, const char *run, uint64_t first, uint64_t last,
		  unsigned kinds, unsigned how,
		  int (*fn)(const kt_event *, void *), void *arg);

/*
 * kt_event_scan with KT_READ_BODY for the kinds in `kinds` and KT_READ_HEAD
 * for those in `head_kinds` (masks of KT_KIND_BIT; an event of a kind in
 * head_kinds comes with flags KT_EV_HEAD and no block of its kind is
 * decoded; a kind in both is read with its body), in one pass over the
 * run's header pages, where a header scan and a body scan read them twice.
 * head_kinds 0 is kt_event_scan(..., kinds, KT_READ_BODY, ...); kinds 0
 * with head_kinds non-zero reads only head_kinds.  No hash (use
 * kt_event_scan with KT_READ_HASH).  Errors as kt_event_scan.
 */
int kt_event_scan_mixed(kt_store *s, const char *run, uint64_t first,
			uint64_t last, unsigned kinds, unsigned head_kinds,
			int (*fn)(const kt_event *, void *), void *arg);

/* kt_event_read(s, run, seq, KT_READ_BODY | KT_READ_HASH, ev): costs as
 * KT_READ_HASH above. */
int kt_event_get(kt_store *s, const char *run, uint64_t seq, kt_event *ev);

/*
 * kt_event_scan with KT_READ_BODY | KT_READ_HASH and one kind (0 = all; a
 * number that is not a kind matches nothing).
 */
int kt_event_foreach(kt_store *s, const char *run, uint64_t first,
		     uint64_t last, int kind,
		     int (*fn)(const kt_event *, void *), void *arg);

/*
 * kt_event_foreach without KT_READ_HASH (KT_READ_BODY, one kind): the
 * same events and bodies, hash and chain zeroed, and no SHA-256 of every
 * event (on the 100k-event bench run the chain was ~8 % of `log --json`).
 * For callers that print or read payloads but no hash; a damaged chain is
 * then not noticed (that is `ktraj verify`'s work), a damaged block still
 * is (KT_ECORRUPT).  Errors as kt_event_scan.
 */
int kt_event_foreach_body(kt_store *s, const char *run, uint64_t first,
			  uint64_t last, int kind,
			  int (*fn)(const kt_event *, void *), void *arg);

/*
 * Header-only variants of kt_event_get / kt_event_foreach: KT_READ_HEAD
 * (seq, kind, parent, ts_ns; hash and chain are zeroed, not promised).
 * Fetch the payload of a chosen event with kt_event_read (allowed inside
 * the callback).
 */
int kt_event_head(kt_store *s, const char *run, uint64_t seq, kt_event *ev);
int kt_event_foreach_head(kt_store *s, const char *run, uint64_t first,
			  uint64_t last, int kind,
			  int (*fn)(const kt_event *, void *), void *arg);

/* The canonical bytes of an event (what is hashed; FORMAT.md).  *out is
 * malloc'ed, caller frees.  Payload/prov must already be canonical. */
int kt_event_canonical(const kt_event *ev, unsigned char **out, size_t *len);

/* ---- blobs ------------------------------------------------------------------
 * Content-addressed by SHA-256 of the uncompressed bytes.  `path_hint` (may
 * be NULL) names the file a version belongs to: versions of the same hint are
 * stored as zstd deltas against the previous one, with a keyframe every
 * KT_BLOB_KEYFRAME versions.
 */
/* 128, not 32: on the store benchmark a keyframe of the ~40 KB kernel is
 * ~6 KB and a delta ~250 B, so keyframes were half the blob bytes at 32;
 * the cost is a longer chain to decode an old version (~30 us per step). */
#define KT_BLOB_KEYFRAME 128

/* Store data (inside a write transaction); write its hash to `hash`.
 * Storing existing content is a no-op that still returns its hash. */
int kt_blob_put(kt_store *s, const void *data, size_t len,
		const char *path_hint, unsigned char hash[KT_HASH_LEN]);

/* kt_blob_put of content whose SHA-256 the caller computed already (an
 * importer that checked a blob line against its name): `hash` is trusted,
 * not computed again, which saves a pass over the content (on the store
 * benchmark, 222 MB of file versions).  A wrong hash stores the content
 * under a name it does not hash to; kt_blob_get and kt_store_verify then
 * report KT_ECORRUPT.  Errors as kt_blob_put. */
int kt_blob_put_hashed(kt_store *s, const void *data, size_t len,
		       const char *path_hint,
		       const unsigned char hash[KT_HASH_LEN]);

/* Read a blob.  *data is malloc'ed (caller frees; a NUL is appended past
 * *len for convenience).  Errors: KT_ENOTFOUND, KT_ECORRUPT (content does
 * not match its hash). */
int kt_blob_get(kt_store *s, const unsigned char hash[KT_HASH_LEN],
		void **data, size_t *len);

/*
 * Read a blob without a copy: *data points at its content in the handle's
 * cache of recent blob contents (*len bytes, a NUL after them), valid until
 * the next blob call on s (get, view, put, verify) or kt_store_close.  A
 * writer of a long run of versions reads each once, the previous one still
 * cached, so each costs one delta frame.  flags: 0 checks the content
 * against its hash as kt_blob_get does; KT_BLOB_NOCHECK does not (FORMAT.md
 * §6.5 says who may skip it: a reader that hands the content on under its
 * name to one that checks it, as the jsonl export's blob lines); a damaged
 * frame still fails.  Errors: KT_EINVAL (a NULL argument, an unknown flag),
 * KT_ENOTFOUND, KT_ECORRUPT (a frame that does not decode, a missing delta
 * base, or without KT_BLOB_NOCHECK content that does not match its hash),
 * KT_ENOMEM, LMDB errors as KT_EIO.
 */
#define KT_BLOB_NOCHECK 1u
int kt_blob_view(kt_store *s, const unsigned char hash[KT_HASH_LEN],
		 unsigned flags, const void **data, size_t *len);

/* How many stored blob records (keyframes and delta frames) this handle
 * has decoded to read blobs (informative, like kt_store_cache_stats):
 * reading a path's versions in order decodes one each, the previous
 * version being cached. */
uint64_t kt_blob_frames(kt_store *s);

/* Whether a blob exists: 1 yes, 0 no, negative on error. */
int kt_blob_exists(kt_store *s, const unsigned char hash[KT_HASH_LEN]);

/* ---- workspace (paths index) -------------------------------------------- */

/*
 * Content hash of `path` in run `run` as of step `at_seq` (0 = latest): the
 * newest edit or observed content with seq <= at_seq.  *deleted is set when
 * the last change deleted the file.  Errors: KT_ENOTFOUND (path never seen
 * by then).  `path` must be as stored (see kt_path_foreach).
 */
int kt_path_at(kt_store *s, const char *run, const char *path,
	       uint64_t at_seq, unsigned char hash[KT_HASH_LEN], int *deleted);

/* Every path the run's workspace knows by at_seq (0 = all), in byte order. */
int kt_path_foreach(kt_store *s, const char *run, uint64_t at_seq,
		    int (*fn)(const char *path, void *), void *arg);

/*
 * The entries of run `run`'s paths index (FORMAT.md §6.7) in key order: by
 * path, each path's by ascending seq.  fn gets the path, the step that set
 * it and whether that step deleted the file (an edit with op "unknown"
 * reads as deleted, as in kt_path_at).  path NULL: every path's entries;
 * else only that one's (as stored).  A non-zero return of fn stops the
 * walk and is returned.  For telling a user at which steps a file exists.
 * Errors: KT_EINVAL, KT_ENOTFOUND (no run), KT_ECORRUPT (bad key or value).
 */
int kt_path_changes(kt_store *s, const char *run, const char *path,
		    int (*fn)(const char *path, uint64_t seq, int deleted,
			      void *arg), void *arg);

/* ---- verification and statistics --------------------------------------- */

/*
 * Recompute every event hash and the chain of `run` (NULL = all runs) and
 * every referenced blob hash; check each run record against its checksum,
 * its run_names entry and its paths index rebuilt from its events, and
 * (whole store) that no index entry names a missing run (FORMAT.md §4,
 * §6.10).  A run without a checksum (older store) is not an error:
 * kt_run_info.checksum tells.  On the first mismatch returns KT_ECORRUPT and
 * sets *bad_run (static buffer in s) and *bad_seq (0 when the run record or
 * a blob is bad; the errmsg names it).
 */
int kt_store_verify(kt_store *s, const char *run, const char **bad_run,
		    uint64_t *bad_seq);

/* ---- blob references: the fields are event_model.h's; checked here ---- */
/* Whether every blob reference of the payload names a stored blob (the
 * write transaction's own blobs count).  0 yes; KT_ENOTFOUND (one names
 * no stored blob) or KT_EINVAL (one is not a 64-hex string) with *bad
 * (may be NULL) filled with the first such; KT_EIO. */
int kt_blobref_check(kt_store *s, int kind, struct cJSON *payload,
		     kt_blobref *bad);

/*
 * The blob references of every event of `run` (NULL = all runs) name
 * stored blobs.  kt_store_verify checks the blobs that exist; this checks
 * that those named exist (`ktraj verify` runs both).  On the first bad
 * event returns KT_ECORRUPT, sets *bad_run (static buffer in s), *bad_seq,
 * and the errmsg ('edit "after" names blob HEX, which is not stored').
 * Costs one BODY scan of the runs; only payloads that can hold a
 * reference are parsed.  Errors as kt_event_scan.
 */
int kt_store_verify_blobrefs(kt_store *s, const char *run,
			     const char **bad_run, uint64_t *bad_seq);

typedef struct kt_store_stats {
	uint64_t runs, events, blobs, dicts;
	uint64_t file_bytes;        /* size of the store file */
	uint64_t event_raw_bytes;   /* canonical bytes of all events */
	uint64_t event_stored_bytes;/* bytes as stored (compressed) */
	uint64_t blob_raw_bytes, blob_stored_bytes;
	uint64_t events_by_kind[KT_KIND_MAX_ + 1];
} kt_store_stats;

/* Fill *st for `run` (NULL = whole store).  For one run the blob fields
 * stay 0 (blobs are shared between runs). */
int kt_store_stats_get(kt_store *s, const char *run, kt_store_stats *st);

/* ---- live recording (store_record.c) ------------------------------------
 * One event appended durably in a transaction of its own: the path of
 * `append`, `hook`, `bench --record` and `replay`. */

/* ns since the epoch now (CLOCK_REALTIME). */
int64_t kt_now_ns(void);

/*
 * The run that a live recorder (`ktraj append NAME`, `hook`, `bench
 * --record NAME`) writes to: the run NAME resolves to (id, unique id
 * prefix or name, as kt_run_resolve), else the id of identity
 * "<source>:<NAME>" (kt_run_id_from_identity; *exists 0: kt_record creates
 * it with its first event).  A NAME that is a prefix of another run's id
 * but not that run's name is not a write to that run.  Returns 0, or with
 * *refused 1 the NAME's fault: KT_EAMBIG (several runs match), KT_EEXIST
 * (a prefix of run `run`'s id, not its name; run filled), KT_EINVAL (a new
 * run's NAME is not one line of valid UTF-8: ls and reports print names);
 * with *refused 0 a store error of kt_run_resolve / kt_run_get.
 */
int kt_record_run(kt_store *s, const char *name, const char *source,
		  char run[KT_RUN_ID_HEX + 1], int *exists, int *refused);

/* One event for kt_record. */
typedef struct kt_rec_event {
	int kind;                /* enum kt_kind */
	const char *actor;
	uint64_t seq;            /* 0: the run's next; else must be the next.
				    out: the seq appended */
	uint64_t parent;         /* 0: none */
	int64_t ts_ns;           /* kt_now_ns(), a time, or KT_TS_UNKNOWN */
	struct cJSON *payload;   /* object; blob_key is set in it (below) */
	const struct cJSON *prov;/* provenance object or NULL */
	/* optional content stored with the event, in the same transaction;
	 * its SHA-256 hex replaces payload[blob_key] */
	const void *blob;
	size_t blob_len;
	const char *blob_hint;   /* path for delta compression, or NULL */
	const char *blob_key;
	const unsigned char *expect; /* hash the event must get, or NULL */
	/* when the run does not exist: create it with this event, named
	 * new_name, format new_source, identity "<new_source>:<new_name>",
	 * meta new_meta (may be NULL) plus identity and source.  NULL: the run
	 * must exist. */
	const char *new_name, *new_source;
	const struct cJSON *new_meta;
	/* out */
	int created;             /* the run was created by this call */
	int mismatch;            /* the event did not hash to e->expect */
	uint64_t run_events;     /* events in the run after the call (on a
				    failure: before it) */
	unsigned char hash[KT_HASH_LEN];
} kt_rec_event;

/*
 * Create run `run` (inside the caller's write transaction) as kt_record
 * creates a new one: named `name`, format `source`, meta `meta` (may be
 * NULL) plus identity "<source>:<name>" and source.  For a recorder whose
 * first line is not an event (`append` of blob lines).  Errors as
 * kt_run_create (KT_EEXIST: the run exists, unchanged), KT_ENOMEM.
 */
int kt_record_create(kt_store *s, const char *run, const char *name,
		     const char *source, const struct cJSON *meta);

/* *e zeroed, then kind, actor, parent, payload set and ts_ns = now. */
void kt_rec_event_init(kt_rec_event *e, int kind, const char *actor,
		       uint64_t parent, struct cJSON *payload);

/*
 * Append one event to `run` in a transaction of its own and commit it (the
 * store's default durability: synced unless opened bulk), so a long live
 * recording never holds the write lock between events and a crash keeps
 * every event recorded before it.  Nothing is stored on any error.
 * Returns 0 or a KT_E* code (the caller prints): KT_EEXIST (e->seq exists),
 * KT_EINVAL (e->seq leaves a gap, bad payload), KT_ENOTFOUND (no run and no
 * new_name), KT_ECORRUPT (the hash is not e->expect), KT_ENOMEM, KT_EIO.
 */
int kt_record(kt_store *s, const char *run, kt_rec_event *e);

#ifdef __cplusplus
}
#endif
#endif /* KT_STORE_H */
