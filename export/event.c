/* event.c - stored event -> JSON, and bytes as JSON strings (see export.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "export.h"
#include "../import/ktraj_jsonl.h"

void kt_export_ts_iso(int64_t ts_ns, char *buf, size_t len)
{
	struct tm tm;
	time_t sec;
	int64_t ns;

	if (!len)
		return;
	buf[0] = 0;
	if (ts_ns == KT_TS_UNKNOWN)
		return;
	sec = (time_t)(ts_ns / 1000000000);
	ns = ts_ns % 1000000000;
	if (ns < 0) {
		ns += 1000000000;
		sec--;
	}
	if (!gmtime_r(&sec, &tm))
		return;
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%09lldZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (long long)ns);
}

void kt_export_add_ns(cJSON *o, const char *key, int64_t ns)
{
	char num[32];

	if (ns == KT_TS_UNKNOWN) {
		cJSON_AddNullToObject(o, key);
		return;
	}
	snprintf(num, sizeof(num), "%lld", (long long)ns);
	cJSON_AddRawToObject(o, key, num);
}

void kt_export_event_head(cJSON *o, const kt_event *ev)
{
	const char *kname = kt_kind_name(ev->kind);

	cJSON_AddNumberToObject(o, "seq", (double)ev->seq);
	if (ev->parent)
		cJSON_AddNumberToObject(o, "parent", (double)ev->parent);
	else
		cJSON_AddNullToObject(o, "parent");
	kt_export_add_ns(o, "ts", ev->ts_ns);
	cJSON_AddStringToObject(o, "kind", kname ? kname : "unknown");
	cJSON_AddStringToObject(o, "actor", ev->actor ? ev->actor : "");
}

cJSON *kt_export_event(const char *run, const kt_event *ev)
{
	cJSON *o = cJSON_CreateObject(), *payload = NULL, *prov = NULL;
	char hex[KT_HASH_HEX + 1];

	if (!o)
		return NULL;
	payload = cJSON_ParseWithLength(ev->payload, ev->payload_len);
	if (!payload)
		goto fail;
	if (ev->prov_json && *ev->prov_json)
		prov = cJSON_Parse(ev->prov_json);
	cJSON_AddStringToObject(o, "run", run);
	kt_export_event_head(o, ev);
	if (prov)
		cJSON_AddItemToObject(o, "prov", prov);
	else
		cJSON_AddNullToObject(o, "prov");
	cJSON_AddItemToObject(o, "payload", payload);
	kt_hex(ev->hash, KT_HASH_LEN, hex);
	cJSON_AddStringToObject(o, "hash", hex);
	kt_hex(ev->chain, KT_HASH_LEN, hex);
	cJSON_AddStringToObject(o, "chain", hex);
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

int kt_export_add_bytes(cJSON *o, const char *key, const void *data,
			size_t len, int b64)
{
	char k[64], *t;
	int text = kt_is_text(data, len);

	if (text && b64 != KT_EXPORT_BYTES_BASE64) {
		/* data may lack the NUL cJSON wants */
		t = kt_memdupz(data, len);
		if (!t)
			return -1;
		if (!cJSON_AddStringToObject(o, key, t)) {
			free(t);
			return -1;
		}
		free(t);
		return 1;
	}
	if (b64 == KT_EXPORT_BYTES_TEXT)
		return 0;
	snprintf(k, sizeof(k), "%s_base64", key);
	t = kt_base64_encode(data, len);
	if (!t || !cJSON_AddStringToObject(o, k, t)) {
		free(t);
		return -1;
	}
	free(t);
	return text;
}
