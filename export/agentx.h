/*
 * agentx.h - what the exports into other agents' formats share (claude_code.c,
 * sts.c, otlp.c): a run's events walked in order with their payloads parsed,
 * long text read back whole from its blob, and output lines redacted and
 * written one JSON object a line.  Internal to export/.
 */
#ifndef KT_EXPORT_AGENTX_H
#define KT_EXPORT_AGENTX_H
#include <stdio.h>
#include <cjson/cJSON.h>
#include "../store/store.h"
#include "../import/import.h"

typedef struct kt_xrun {
	kt_store *s;
	const char *run;        /* 32 hex run id (borrowed) */
	FILE *out;
	kt_redactor *r;         /* NULL: no redaction */
	char name[512];         /* the run's name ("" when none) */
	char format[64];        /* the importer that made the run */
	char cwd[1024];         /* meta "cwd" ("" when none) */
	char model[256];        /* meta "model" ("" when none) */
	char version[64];       /* meta "version", the source agent's ("") */
	int rc;                 /* first error (KT_E*), sticky */
	uint64_t seq;           /* the event being walked */
	char bad[KT_HASH_HEX + 1]; /* the blob that failed a read ("" none):
				    * the walk's error names it */
} kt_xrun;

/* Called for each event in seq order with its parsed payload (owned by the
 * walker, freed after the call).  Return nonzero to stop. */
typedef int (*kt_xrun_fn)(kt_xrun *x, const kt_event *ev, cJSON *p, void *arg);

/* Fill x from run `run` of s (run and out are borrowed); redact: 1 makes
 * kt_xrun_line redact every line.  Returns 0, or KT_ENOTFOUND (no such
 * run), KT_ECORRUPT, KT_ENOMEM with a one-line reason in err.  After 0,
 * kt_xrun_close frees what it holds. */
int kt_xrun_open(kt_xrun *x, kt_store *s, const char *run, FILE *out,
		 int redact, char *err, size_t errlen);
void kt_xrun_close(kt_xrun *x);

/* Walk the run's events through fn.  Returns 0, or the first error: x->rc
 * (KT_EIO when a write failed, KT_ENOMEM), KT_ECORRUPT (a payload that does
 * not parse) or the store's read codes, with a one-line reason in err. */
int kt_xrun_walk(kt_xrun *x, kt_xrun_fn fn, void *arg, char *err,
		 size_t errlen);

/* Write o as one line (redacted when x asks) and free it.  Errors go to
 * x->rc (KT_ENOMEM, KT_EIO); returns x->rc. */
int kt_xrun_line(kt_xrun *x, cJSON *o);

/* The whole text of payload field `key`: when `key`_blob names the stored
 * full text (a long message or tool output was cut inline), that text, else
 * the inline string, else "".  Returns a malloc'ed string (NULL only when
 * memory runs out, noted in x->rc). */
char *kt_xrun_text(kt_xrun *x, const cJSON *p, const char *key);

/* The blob named by hex (64 hex digits) as a malloc'ed string, or NULL when
 * it is not stored, not text (holds a NUL) or hex is NULL: the export
 * leaves out what it cannot show.  NULL too when it is stored but cannot be
 * read whole and sound (KT_ECORRUPT: content that does not hash to its
 * name, a frame that does not decode; KT_ENOMEM...): that error goes to
 * x->rc and the blob to x->bad, so the walk stops and its error names the
 * event and the blob, as the jsonl export's --verify does - an export never
 * writes a damaged content, nor quietly leaves it out. */
char *kt_xrun_blob_text(kt_xrun *x, const char *hex);


/* Whether payload p's "flags" array holds flag. */
int kt_xflag(const cJSON *p, const char *flag);

/* The run id as a UUID (8-4-4-4-12) into buf (>= 37 bytes), as agents
 * that key sessions by UUID expect. */
void kt_xrun_uuid(const char *run, char *buf);
#endif
