/*
 * evjson.h - one place that turns a stored event into JSON (cJSON) for the
 * commands and exporters that print events: `show --json`, `export --format
 * jsonl`, ATIF and NDJSON exports.  Keeping it in one place keeps the field
 * names identical everywhere (FORMAT.md "JSONL").
 */
#ifndef KT_EVJSON_H
#define KT_EVJSON_H
#include <cjson/cJSON.h>
#include "../store/store.h"

/* The whole event as the JSONL interchange object: run, seq, parent, ts (ns
 * or null), kind, actor, prov, payload, hash, chain.  Returns a new tree the
 * caller frees, or NULL on allocation failure or an unparsable payload. */
cJSON *kt_evjson(const char *run, const kt_event *ev);

/* Add the event header fields to o, in this order: seq, parent (null for
 * none), ts (ns or null), kind, actor. */
void kt_evjson_head(cJSON *o, const kt_event *ev);

/* Add key = ns since the epoch as an exact JSON integer (61 bits: a double
 * would round it), or null for KT_TS_UNKNOWN. */
void kt_json_add_ns(cJSON *o, const char *key, int64_t ns);

/* ISO-8601 UTC with nanoseconds ("2026-05-14T14:01:12.886000000Z") into
 * buf (>= 32 bytes); "" when ts is KT_TS_UNKNOWN. */
void kt_ts_iso(int64_t ts_ns, char *buf, size_t len);
#endif
