/*
 * kt_base.h - the base layer of ktraj: the error codes of every module and
 * the small helpers every module shares (owned buffers, a string map,
 * UTF-8, ISO-8601, base64, hex, SHA-256, JSON getters).
 *
 * Depends on the C library, cJSON and Nettle only; nothing here knows
 * about the store, importers, analyzers or the CLI (`make lint` checks
 * that).  Nothing here prints or exits: functions return 0 or a negative
 * KT_E* code, or NULL where they say so.  The CUDA harness (harness/) keeps
 * a libc-only copy of what it needs by design: it is built by nvcc alone.
 */
#ifndef KT_BASE_H
#define KT_BASE_H

#include <nettle/sha2.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- error codes of every module ----------------------------------------- */
#define KT_OK        0
#define KT_EIO      (-1)  /* file system or LMDB I/O failure (errno kept) */
#define KT_ENOMEM   (-2)  /* allocation failed */
#define KT_ENOTFOUND (-3) /* run, event, blob or key does not exist */
#define KT_EEXIST   (-4)  /* append of a seq that exists; run exists */
#define KT_ECORRUPT (-5)  /* stored bytes fail their checks (hash, framing) */
#define KT_EVERSION (-6)  /* store of another format version (newer, or
			     older: re-import it, FORMAT.md Versioning) */
#define KT_EINVAL   (-7)  /* bad argument (seq not next, bad JSON payload...) */
#define KT_EAMBIG   (-8)  /* a run prefix or name matches several runs */
#define KT_ERDONLY  (-9)  /* write on a read-only handle */
#define KT_EBUSY    (-10) /* a write transaction is already open */
#define KT_ELIMIT   (-11) /* a documented size limit was exceeded */
#define KT_EPARSE   (-12) /* malformed input (importers, JSONL) */
#define KT_ENODEV   (-13) /* no CUDA device (bench, replay) */
#define KT_ECHILD   (-14) /* a child process failed or was killed */
#define KT_ECHANGED (-15) /* a store this handle reads without its lock
			     (kt_store_open: read-only file or directory)
			     changed while it read: what failed a check may
			     be a page another process was rewriting, not
			     damage; reading again sees it */

/* Static text for a KT_E* code; never NULL ("unknown error" for others). */
const char *kt_strerror(int err);

/* ---- constants shared by every module ------------------------------------ */
#define KT_HASH_LEN 32             /* SHA-256 */
#define KT_HASH_HEX 64
#define KT_TS_UNKNOWN INT64_MIN    /* a time the source does not give */

/* ---- strings ------------------------------------------------------------- */
/* malloc'ed copy of s; NULL for NULL s or out of memory. */
char *kt_xstrdup(const char *s);
/* The last '/'-separated component of p: a pointer into p ("" for NULL p;
 * "" too when p ends in '/'). */
const char *kt_basename(const char *p);
/* s (n bytes) with o (lo bytes) replaced by nw (ln bytes), at every
 * occurrence or (all 0) the first: a malloc'ed NUL-terminated copy of
 * *outlen bytes; NULL when o is empty, does not occur, or out of memory.
 * The edit tools' old -> new string replacement. */
char *kt_str_replace(const char *s, size_t n, const char *o, size_t lo,
		     const char *nw, size_t ln, int all, size_t *outlen);

/* ---- copies and growable arrays ----------------------------------------- */
/* n bytes of p and a NUL after them, malloc'ed (git's xmemdupz): the bytes
 * are copied as they are, NULs included, unlike strndup, which stops at
 * the first; NULL when out of memory or n is PTRDIFF_MAX or more. */
char *kt_memdupz(const void *p, size_t n);
/*
 * Room for need elements of elsize (> 0) bytes in a malloc'ed array: pp is
 * the address of the array's pointer (&v, v NULL with *cap 0 before the
 * first growth) and *cap its capacity in elements.  When *cap < need the
 * capacity doubles, from KT_GROW_FIRST, until it holds need, and the array
 * is realloc'ed (the new elements are not initialised); so pushing one
 * element at a time costs amortised O(1).  0, or KT_ENOMEM (out of memory,
 * or need * elsize past PTRDIFF_MAX, the largest object C allows to be
 * indexed) with *pp and *cap unchanged: the caller
 * still owns the old array and frees it as before.
 *     if (KT_GROW(v, cap, n + 1)) return KT_ENOMEM;  v[n++] = x;
 * KT_GROW takes the array itself and passes sizeof *v (cap a size_t).
 */
#define KT_GROW_FIRST 16
int kt_grow(void *pp, size_t *cap, size_t need, size_t elsize);
#define KT_GROW(v, cap, need) kt_grow(&(v), &(cap), (need), sizeof(*(v)))

/* ---- hex ----------------------------------------------------------------- */
/* Value of one hex digit (either case), -1 for any other character. */
int kt_hexval(int c);
/* The 4 hex digits of a JSON \uXXXX escape (RFC 8259 §7) at p, before end,
 * into *cp (0..0xFFFF); 0, or -1 when fewer than 4 bytes remain or one is
 * not a hex digit (*cp then untouched). */
int kt_hex4(const unsigned char *p, const unsigned char *end, unsigned *cp);
/* n bytes as 2n lowercase hex digits and a NUL into out (2n+1 bytes). */
void kt_hex(const unsigned char *bin, size_t n, char *out /* 2n+1 */);
/* Exactly 2n hex digits (either case) followed by the end of the string
 * into n bytes; 0, or KT_EINVAL (NULL, a non-hex digit, short or long). */
int kt_unhex(const char *hex, unsigned char *bin, size_t n);

/* ---- SHA-256 (FIPS 180-4, through Nettle) ------------------------------- */
/*
 * Nettle (Debian's libnettle8, nettle-dev) rather than OpenSSL's libcrypto:
 * both pick SHA-NI at run time, but libcrypto is a 4.5 MB library whose
 * load (dlopen, relocations) cost every command that hashes ~4 ms of CPU on
 * the 2-vCPU build machine, a tenth of a point read (`show`, `cat`,
 * `diff`); Nettle's is ~0.2 ms, so the binary links it (tests/bench/
 * RESULTS.md, "Issue 21 ... p21r2").  Hashing cannot fail.
 */
typedef struct sha256_ctx kt_sha_ctx;
/* Digest of len bytes into out. */
void kt_sha256(const void *data, size_t len, unsigned char out[KT_HASH_LEN]);
/* The same as 64 lowercase hex digits and a NUL. */
void kt_sha256_hex(const void *data, size_t len, char out[KT_HASH_HEX + 1]);
/* One digest over several pieces: start, add each, then finish into out
 * (the context may be started again after). */
void kt_sha_start(kt_sha_ctx *c);
void kt_sha_add(kt_sha_ctx *c, const void *data, size_t len);
void kt_sha_finish(kt_sha_ctx *c, unsigned char out[KT_HASH_LEN]);

/* ---- one owned, growable buffer (bytes or text) -------------------------- */
/*
 * Zero-initialise ({0}) before use; p/s is NULL until the first growth.
 * Every append keeps a NUL after len (so s is a C string once anything was
 * appended), which len does not count.  Out of memory is sticky: the first
 * failed growth sets err to KT_ENOMEM and later appends do nothing and
 * return it, so a writer may append many pieces and look once at the end.
 * Capacity grows by doubling from 64 bytes (small enough that a short
 * string taken from a buffer does not hold 4 KiB, as the shell parser's
 * words and the Python-literal strings are); kt_buf_free releases it.
 */
struct kt_buf {
	union {
		unsigned char *p;  /* bytes */
		char *s;           /* text */
	};
	size_t len, cap;
	int err;               /* 0 or KT_ENOMEM, sticky */
};
/* Capacity of at least n bytes in total (not n more); 0 or KT_ENOMEM. */
int kt_buf_reserve(struct kt_buf *b, size_t n);
/* kt_buf_add when the bytes do not fit (growth, the sticky error); called
 * by the inline functions below only. */
int kt_buf_add_grow(struct kt_buf *b, const void *p, size_t n);
/* Append n bytes of p (n may be 0: the buffer then still holds a NUL-
 * terminated string); 0 or KT_ENOMEM (sticky, see above).  Inline: the
 * JSON printer of every imported event appends its punctuation a byte or
 * two at a time and the shell lexer its words a byte at a time, and a call
 * per piece was measurable on a Claude Code import. */
static inline int kt_buf_add(struct kt_buf *b, const void *p, size_t n)
{
	/* room for n bytes and the NUL (cap 0 never has room) */
	if (n < b->cap - b->len && !b->err) {
		if (n)
			memcpy(b->p + b->len, p, n);
		b->len += n;
		b->p[b->len] = 0;
		return 0;
	}
	return kt_buf_add_grow(b, p, n);
}
/* Append the string s (NULL appends nothing); 0 or KT_ENOMEM. */
int kt_buf_puts(struct kt_buf *b, const char *s);
/* Append one byte; 0 or KT_ENOMEM. */
static inline int kt_buf_putc(struct kt_buf *b, int c)
{
	unsigned char ch = (unsigned char)c;

	return kt_buf_add(b, &ch, 1);
}
/* Append s as one sh word in single quotes (POSIX sh 2.2.2: nothing is
 * special inside them; a ' is written as '\''); 0 or KT_ENOMEM. */
int kt_buf_sh_quote(struct kt_buf *b, const char *s);
/* Append the whole file at path.  0; KT_ENOTFOUND when it does not exist;
 * KT_EIO when it cannot be opened or read (errno kept); KT_ENOMEM. */
int kt_buf_read_file(struct kt_buf *b, const char *path);
/* Append printf-formatted text; 0, KT_ENOMEM or KT_EINVAL (bad format). */
int kt_buf_printf(struct kt_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The text, handed to the caller (free() it): "" (allocated) when nothing
 * was appended, NULL when out of memory (sticky err included: the partial
 * text is freed).  The buffer is empty afterwards. */
char *kt_buf_take(struct kt_buf *b);
/* Release the memory; the buffer is empty (and err clear) afterwards. */
void kt_buf_free(struct kt_buf *b);
/* Empty the buffer but keep its memory, for a buffer reused across many
 * texts (the importers' payload text): len 0, err clear, s "" when the
 * buffer holds memory. */
void kt_buf_reset(struct kt_buf *b);

/* ---- one string-keyed map (open addressing, FNV-1a) ---------------------- */
/* Zero-initialise ({0}).  Keys are copied; values are the caller's. */
typedef struct kt_strmap {
	char **keys;
	void **vals;
	size_t cap, n;
} kt_strmap;
/* Value for key, NULL when absent (or key NULL). */
void *kt_strmap_get(const kt_strmap *m, const char *key);
/* Set key (copied) to val; 0, KT_EINVAL (key NULL) or KT_ENOMEM. */
int kt_strmap_put(kt_strmap *m, const char *key, void *val);
/* The value slot of key, so a caller can test and set in one lookup; with
 * create, a missing key is added with a NULL value.  NULL when absent
 * (without create), key NULL, or out of memory. */
void **kt_strmap_slot(kt_strmap *m, const char *key, int create);
/* Free keys and table; free_val (may be NULL) is called for each non-NULL
 * value.  The map is empty afterwards. */
void kt_strmap_free(kt_strmap *m, void (*free_val)(void *));
/* The map's copy of the key of slot (a pointer kt_strmap_slot returned),
 * for a value that keeps its key: it lives, and keeps its address when the
 * table grows, until kt_strmap_clear or kt_strmap_free. */
const char *kt_strmap_slot_key(const kt_strmap *m, void *const *slot);
/* kt_strmap_free, but the table keeps its capacity: a map emptied and
 * filled again for each run (the importer's workspace) then places, and
 * walks, its keys as a new map of that capacity would. */
void kt_strmap_clear(kt_strmap *m, void (*free_val)(void *));

/* ---- UTF-8 (RFC 3629 section 4) ------------------------------------------ */
/* Length of the valid UTF-8 sequence starting at s, of at most n bytes: 1
 * for ASCII (NUL included), 2-4 for a well-formed multi-byte sequence (no
 * overlong forms, no surrogates, nothing past U+10FFFF), 0 for none
 * (n == 0 included). */
size_t kt_utf8_seq(const unsigned char *s, size_t n);
/* Whether the n bytes at text are valid UTF-8 (NUL bytes count as valid);
 * 1, or 0 with *bad (may be NULL) the offset of the first bad byte. */
int kt_utf8_valid(const char *text, size_t n, size_t *bad);
/* Code point cp as UTF-8 into out (a surrogate or one past U+10FFFF as
 * U+FFFD); the number of bytes written, 1-4. */
size_t kt_utf8_enc(unsigned long cp, unsigned char out[4]);
/* Append code point cp as UTF-8 (kt_utf8_enc); 0 or KT_ENOMEM. */
int kt_utf8_put(struct kt_buf *b, unsigned long cp);
/* The offset of the character that byte at of s falls in: at, moved back
 * over UTF-8 continuation bytes (10xxxxxx), never below 0.  A cut at the
 * result keeps whole characters before it; s must be readable at [0, at]
 * (at == strlen(s) reads the NUL and returns at).  Does not validate. */
size_t kt_utf8_floor(const char *s, size_t at);
/* kt_utf8_fix flags */
#define KT_UTF8_DROP_NUL 1u   /* leave NUL bytes out (text for C strings) */
#define KT_UTF8_CTRL_SPACE 2u /* ASCII controls (0x00-0x1f, 0x7f) as ' ' */
/* A malloc'ed, NUL-terminated copy of the len bytes at s that is valid
 * UTF-8: each byte that starts no valid sequence (kt_utf8_seq) becomes
 * U+FFFD, as Unicode 15.0 section 3.9 "U+FFFD Substitution of Maximal
 * Subparts" allows with each refused byte one subpart; flags
 * (KT_UTF8_*, or 0) also drop NULs or blank control characters.
 * *out_len (may be NULL) gets the copy's length (it may hold NULs when
 * KT_UTF8_DROP_NUL is not given), *first_bad (may be NULL) the offset in s
 * of the first byte replaced, len when none was.  NULL when out of memory
 * or len is over (SIZE_MAX - 1) / 3. */
char *kt_utf8_fix(const char *s, size_t len, unsigned flags,
		  size_t *out_len, size_t *first_bad);
/* Whether the len bytes at data are text: valid UTF-8 (kt_utf8_valid) with
 * no NUL byte; 1 or 0.  Decides whether bytes are stored or exported as a
 * string or as binary (base64, a blob). */
int kt_is_text(const void *data, size_t len);

/* ---- byte search ---------------------------------------------------------- */
/* memmem(3): the first occurrence of the nl bytes at needle in the hn
 * bytes at hay, or NULL (hay when nl is 0).  For a needle of 3 bytes or
 * more it tests 16 positions at a time for the needle's second and
 * next-to-last bytes (SSE2) before comparing: glibc's memmem costs ~3.4
 * instructions a byte on JSON, and a Claude Code import searches the
 * whole file once for a "summary" line (~3 % of its CPU).  Reads nothing
 * outside [hay, hay + hn). */
void *kt_memmem(const void *hay, size_t hn, const void *needle, size_t nl);

/* ---- FNV-1a 64 (http://www.isthe.com/chongo/tech/comp/fnv/) -------------- */
/* The seed every copy of this loop used: FNV's 64-bit offset basis
 * 14695981039346656037 with its last digit lost.  Kept, not corrected,
 * because these hashes order buckets and clusters in what the analyzers
 * print; any odd seed hashes as well.  Pass 14695981039346656037ull for the
 * reference FNV-1a 64 values (the harness's kth_fnv64 does). */
#define KT_FNV1A_INIT 1469598103934665603ull
/* h folded over the len bytes at data with FNV-1a 64 (xor a byte, multiply
 * by the FNV prime 1099511628211); start with KT_FNV1A_INIT, or pass an
 * earlier result (or another seed) to go on hashing.  Not for anything
 * adversarial. */
uint64_t kt_fnv1a(uint64_t h, const void *data, size_t len);

/* ---- time ---------------------------------------------------------------- */
/* Days from 1970-01-01 of the proleptic Gregorian date y-m-d (H. Hinnant,
 * "chrono-Compatible Low-Level Date Algorithms", days_from_civil,
 * https://howardhinnant.github.io/date_algorithms.html). */
int64_t kt_days_from_civil(int64_t y, unsigned m, unsigned d);
/*
 * An ISO-8601 / RFC 3339 date or date-time, as importers meet them, to ns
 * since the epoch: "YYYY-MM-DD" then optionally 'T', 't' or ' ' and
 * "hh:mm[:ss[.frac]]" (',' for '.' too; up to 9 fraction digits count), then
 * 'Z'/'z' or an offset "+hh", "+hhmm" or "+hh:mm" ('-' too); spaces
 * before it and after a time are allowed (a space after a date alone
 * reads as the separator of a time that is not there).
 * KT_TS_UNKNOWN for NULL, anything else, or a time outside int64 ns
 * (1677..2262).  With a non-NULL end the text may go on after the time
 * (*end points there) and the date must carry a time.
 */
int64_t kt_iso8601_ns(const char *s, const char **end);

/* ---- base64 (RFC 4648) --------------------------------------------------- */
/* Standard alphabet with '=' padding, malloc'ed and NUL-terminated; NULL
 * when out of memory. */
char *kt_base64_encode(const void *data, size_t len);
/* Decode len bytes of s into *out (malloc'ed, NUL after *out_len bytes):
 * the standard alphabet, '=' only at the end, not one character past a
 * group of 4.  0, KT_EPARSE or KT_ENOMEM. */
int kt_base64_decode(const char *s, size_t len, unsigned char **out,
		     size_t *out_len);
#define KT_B64_LENIENT 0x1u /* also the URL-safe alphabet ('-', '_'), and
			       skip '=', spaces and line breaks anywhere */
/* kt_base64_decode with flags (0 or KT_B64_LENIENT). */
int kt_base64_decode_ex(const char *s, size_t len, unsigned flags,
			unsigned char **out, size_t *out_len);

/* ---- JSON text (RFC 8259) ------------------------------------------------ */
/* The first byte at or after p (p <= end) that is '"', '\\' or below 0x20
 * (a string's end, an escape, or a byte RFC 8259 section 7 forbids raw), or
 * end.  16 bytes a step with SSE2, 8 with plain 64-bit words otherwise: the
 * fast string decoders (import/ktraj_jsonl.c, analyze/load_json.c,
 * export/jsonl.c) and kt_json_escape use it to copy the plain runs between
 * escapes. */
const char *kt_json_str_stop(const char *p, const char *end);

/* ---- cJSON getters ------------------------------------------------------- */
/* ---- a second thread for big work ----------------------------------------
 * Whether work on an input of `bytes` bytes (an import's source file) may
 * use a second thread: 1 when the process may run on at least two CPUs
 * (sched_getaffinity, so `taskset -c 0` means one), bytes is more than
 * KT_THREADS_MIN, and the environment does not say KTRAJ_THREADS=1; else 0.
 * Below the size the hand-offs and the thread's start cost more than the
 * overlap gains.  The answer changes nothing stored: a two-thread import
 * writes the same records as a one-thread one. */
#define KT_THREADS_MIN (4u << 20)
int kt_threads_for(uint64_t bytes);

/*
 * pthread_create(t, NULL, fn, arg) for ktraj's helper threads (the hash,
 * parse-ahead, block-compression and read-ahead threads), returning once
 * the new thread has set up its allocator.  jemalloc gives a thread its
 * arena and cache at the thread's first allocation and, when the address
 * space is used up then (a tight `ulimit -v`), dereferences the arena it
 * failed to make: SIGSEGV in the new thread, not a NULL from malloc.  So
 * KT_THREAD_ROOM bytes of address space are reserved (a PROT_NONE map)
 * before the thread is made and given back by the thread itself just
 * before its first allocation, while the caller waits: the room is there
 * for it.  A thread's later allocations fail as any malloc does (NULL).
 * 0 with *t joinable; else an errno value and no thread: ENOMEM when the
 * room cannot be reserved, pthread_create's answer (EAGAIN: no room for
 * the stack, too many threads).  Callers then do the work on the calling
 * thread, as with one CPU.
 */
#define KT_THREAD_ROOM (32u << 20)
int kt_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

struct cJSON;
/* cJSON_GetObjectItemCaseSensitive(o, key), the same member or NULL (o or
 * key NULL; the walk stops at a member without a name, as cJSON's does),
 * with each name's first byte tested before its strcmp: a Claude Code
 * line's lookups by key were ~1 % of its import's CPU in strcmp. */
struct cJSON *kt_json_get(const struct cJSON *o, const char *key);
/* The string member key of object o (case-sensitive); NULL when o is NULL
 * or not an object, or the member is absent or not a string. */
const char *kt_json_str(const struct cJSON *o, const char *key);

/* ---- cJSON parses (json_mem.c) -------------------------------------------
 * cJSON_Parse* return NULL for text that is not JSON and for an allocation
 * that failed alike; a parser that calls every NULL "invalid JSON" warns
 * about good input and goes on without it when memory ran out.  These
 * parses say which it was. */
/*
 * cJSON_ParseWithLengthOpts(s, n, end, 0): the value at the start of
 * s[0..n) (s need not be NUL-terminated; end, when not NULL, gets where
 * the value ended, or where parsing stopped).  On NULL, *rc (rc may be
 * NULL) gets KT_ENOMEM when one of cJSON's allocations failed during the
 * parse, else KT_EPARSE (not JSON, or s NULL); 0 with a value.  The
 * caller frees the value with cJSON_Delete.  Thread-safe: failures are
 * counted per thread.
 */
struct cJSON *kt_cjson_parse(const char *s, size_t n, const char **end,
			     int *rc);
/* For tests: in this thread, make the nth allocation (0 the next) that
 * kt_cjson_parse makes fail, and none after it; -1 turns it off.  Returns
 * the count left of the previous setting: -1 when it fired or was off. */
long kt_cjson_fail_at(long nth);

#ifdef __cplusplus
}
#endif
#endif /* KT_BASE_H */
