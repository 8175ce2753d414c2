/*
 * ktraj_jsonl.h - the ktraj JSONL interchange (FORMAT.md "JSONL"; written by
 * `ktraj export --format jsonl`, read by `ktraj append` and by the "ktraj"
 * importer).  One JSON object per line, of two sorts:
 *
 *   event  {"run":ID,"seq":N,"parent":N|null,"ts":NS|null,"kind":K,
 *           "actor":A,"prov":{...}|null,"payload":{...},"hash":HEX,
 *           "chain":HEX}
 *          kind and payload are required; the rest is optional: seq
 *          defaults to the next one, actor to "agent", parent to none,
 *          prov to none.  ts absent means "unknown" to the importer and
 *          "now" to `append` (a live recorder); null is always unknown.
 *          seq, parent and ts are read as exact integers from the text (a
 *          double would round 61-bit ns timestamps).  hash, when present,
 *          is the SHA-256 the event must hash to; chain is informative.
 *   blob   {"blob":HEX,"path":P?,"text":T} or {"blob":HEX,"path":P?,
 *          "base64":B}: file content the following events refer to (any
 *          64-hex string of a payload that names a stored blob: edit
 *          before/after, *_blob fields, observed[].blob).  It comes before
 *          the first event that refers to it; HEX is checked.  An event
 *          whose blob references (FORMAT.md "Blob references",
 *          kt_blobref_foreach) name a blob neither stored nor given by an
 *          earlier blob line is refused (append) or reported and skipped
 *          (import); under import --redact a text blob is stored redacted
 *          and the references to it are rewritten to its new hash.
 *   run    {"run":{"id":ID,"name":S?,"format":S?,"meta":{...}?}} (no
 *          "kind", no "blob"; "run" an object): the run the following
 *          events belong to, as `ktraj export` writes it first.
 *          The importer restores them; `ktraj append` ignores the line.
 * Other top-level keys are ignored; a top-level key given twice refuses
 * the line (readers disagree on which value counts: cJSON keeps the
 * first, Python's json the last).  A blob "text" cannot hold NUL bytes
 * (\u0000): binary content goes in "base64".
 *
 * The importer (ktraj_import) reports each bad line as "file:line: what"
 * through kt_imp_warn and goes on; --strict keeps nothing of the source.
 * A line that does not parse or is not JSON as RFC 8259 has it (bytes
 * after the object, raw control characters in strings, numbers like 01 or
 * 1.: import/jsonstrict.h; a byte order mark only opening the file is
 * ignored), an event whose "ts" is negative (before
 * 1970: a recorder's bug, refused by `append` too), or one whose payload
 * fails the type check of FORMAT.md section 2 (store/event_model.h, e.g.
 * "correct":"yes"; `append` refuses it too) is skipped: the valid
 * rest is imported, and later seqs move down ("seq N stored as M"); a
 * "parent" follows its event down, and one naming a skipped event is
 * stored as none ("parent N was not imported").  A line that does not
 * parse has no seq to read: when the next event line's seq jumps past
 * every seq of the run so far, the seqs right after the greatest are
 * taken as those of the lines that did not parse since the last event
 * line (at most one each; a jump with no such line, as in seqs from 5,
 * marks nothing).  The seqs a payload holds, edit "call" and replay
 * "step", follow their event the same way (removed, reported, when it
 * was not imported).  A "parent" that is not an earlier event of the
 * run (the store refuses one) is stored as none, reported; an event the
 * store would refuse (actor or body over the limits of FORMAT.md section
 * 3) is skipped like a bad line.  An
 * event that does not hash to its "hash" (hashed with the line's own seq,
 * prov and fields, as exported) was changed after export: it is reported
 * ("seq N does not hash to its "hash"") and still imported as it reads
 * now, since skipping it would shift every later seq and parent; its
 * stored hash is then the new one.  A file whose run id names a run
 * already stored is compared event by event with it (kind, parent, ts,
 * actor, payload): a copy that differs is reported ("changed since run X
 * was imported (its step N differs)") and adds nothing, so the stored run
 * is never silently taken for that copy, nor the copy for it.
 */
#ifndef KT_KTRAJ_JSONL_H
#define KT_KTRAJ_JSONL_H
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>
#include "../store/store.h"

typedef struct kt_jsonl_rec {
	cJSON *root;       /* the parsed line; owns every pointer below, or */
	char *own;         /* ... this buffer does (blob lines parsed without
			      cJSON) */
	int is_blob;
	/* event lines */
	const char *run;   /* "run" or NULL */
	int has_seq;
	uint64_t seq;
	uint64_t parent;   /* 0 none */
	int has_ts;        /* 0: "ts" absent */
	int64_t ts_ns;     /* KT_TS_UNKNOWN for null */
	int kind;
	const char *actor; /* NULL when absent */
	cJSON *prov;       /* NULL when absent or null */
	cJSON *payload;    /* an object (detach it to keep it past release) */
	int has_hash;
	unsigned char hash[KT_HASH_LEN];
	/* blob lines */
	unsigned char blob[KT_HASH_LEN];
	const char *path;  /* NULL when absent */
	unsigned char *data; /* malloc'ed, NUL past len */
	size_t len;
	/* run lines (run is set too) */
	int is_run;
	const char *name;  /* NULL when absent */
	const char *format; /* NULL when absent */
	cJSON *meta;       /* an object, or NULL when absent */
} kt_jsonl_rec;

/*
 * Parse one line (no newline needed; len bytes, need not be NUL-terminated)
 * into *r.  On success r owns memory: release it with kt_jsonl_release().
 * Errors: KT_EPARSE (not JSON, not an object, a field of the wrong type or
 * a blob whose content does not hash to its name; err gets one line saying
 * which), KT_ENOMEM.  *r needs no release after an error.
 */
int kt_jsonl_parse(const char *line, size_t len, kt_jsonl_rec *r,
		   char *err, size_t errlen);
/* The same parse, every line through cJSON.  kt_jsonl_parse decodes the
 * common shape of blob lines itself (10x faster on long file texts) and
 * must agree with this one on every input: tests and fuzz_ktraj_jsonl
 * compare them. */
int kt_jsonl_parse_ref(const char *line, size_t len, kt_jsonl_rec *r,
		       char *err, size_t errlen);
void kt_jsonl_release(kt_jsonl_rec *r);
/* Whether line [p, end), which did not parse, still reads as a ktraj line
 * up to where it broke (a top-level "kind", "seq" or "blob", or a "run"
 * object): format detection then tries the next lines.  1 or 0. */
int kt_jsonl_ish(const char *p, const char *end);
/* Whether line [p, end) is surely no ktraj line: one scan finds the whole
 * top-level object (to its closing brace) and none of its keys is "kind",
 * "seq", "blob" or "run".  Then kt_jsonl_parse fails on it and
 * kt_jsonl_ish says 0, so format detection can say so without parsing
 * the line into cJSON first (issue 21: every small file of a folder of
 * another format paid that parse).  0 when unsure: a key with an escape
 * (cJSON reads "\u006bind" as "kind"), a line cut or damaged before its
 * closing brace.  1 or 0. */
int kt_jsonl_not_ktraj(const char *p, const char *end);
/* The raw text of the top-level member `key` of the JSON object in line
 * [p, end) as cJSON would find it (the first member of that name), from
 * one scan without parsing: 1 found (*v, *vlen: the value's text, inside
 * the line), 0 unsure (not found, a key with an escape before it, which
 * cJSON may read as `key`, or the line damaged before it).  For a line
 * that parses, 1 is the member cJSON_GetObjectItemCaseSensitive gives. */
int kt_jsonl_top_member(const char *p, const char *end, const char *key,
			const char **v, size_t *vlen);

/* base64 (kt_base64_encode, kt_base64_decode): ../base/kt_base.h. */

/* The importer of this format, for import/registry.c. */
struct kt_importer;
extern const struct kt_importer kt_importer_ktraj;
#endif
