/*
 * export.h - exporters called by cmd_export.c (and replay).  Each writes to
 * an open FILE or a path and returns 0 or a KT_E* code; `err` (may be NULL)
 * receives a one-line reason on failure.  They print nothing else.
 */
#ifndef KT_EXPORT_H
#define KT_EXPORT_H
#include <stdio.h>
#include "../store/store.h"

/* ktraj JSONL (our interchange, FORMAT.md "JSONL"): one event per line. */
int kt_export_jsonl(kt_store *s, const char *run, int redact, FILE *out,
		    char *err, size_t errlen);
/* ATIF (newest version in research/formats.md) as one JSON document. */
int kt_export_atif(kt_store *s, const char *run, int redact, FILE *out,
		   char *err, size_t errlen);
/* zstd-compressed NDJSON tables partitioned by run under dir
 * (dir/<table>/run=<id>/part-0.ndjson.zst); run NULL = all runs.  redact:
 * run names, meta and payloads redacted as kt_export_jsonl does. */
int kt_export_ndjson(kt_store *s, const char *run, const char *dir,
		     int redact, char *err, size_t errlen);
/* Self-contained replay bundle (.tar.zst) of step `seq`. */
int kt_export_bundle(kt_store *s, const char *run, uint64_t seq,
		     const char *out_path, char *err, size_t errlen);
#endif
