/*
 * event_model.c - event kinds and the payload fields that name blobs
 * (event_model.h).
 */
#include <stdio.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "event_model.h"

static const char *const kind_names[] = {
	NULL, "message", "tool_call", "tool_result", "edit", "compile",
	"bench", "profile", "question", "replay", "note",
};

const char *kt_kind_name(int kind)
{
	if (kind < 1 || kind > KT_KIND_MAX_)
		return NULL;
	return kind_names[kind];
}

int kt_kind_from_name(const char *name)
{
	if (!name)
		return 0;
	for (int k = 1; k <= KT_KIND_MAX_; k++)
		if (strcmp(kind_names[k], name) == 0)
			return k;
	return 0;
}

/* ---- blob references (FORMAT.md §3) ------------------------------------- */

static int name_ends_blob(const char *k)
{
	size_t n = k ? strlen(k) : 0;

	return n > 5 && !memcmp(k + n - 5, "_blob", 5);
}

/* One reference at item (null: none, not reported). */
static int ref(cJSON *item, const char *field, kt_blobref_fn fn, void *arg)
{
	kt_blobref r;

	if (!item || cJSON_IsNull(item))
		return 0;
	memset(&r, 0, sizeof(r));
	snprintf(r.field, sizeof(r.field), "%s", field);
	r.item = item;
	r.ok = cJSON_IsString(item) && item->valuestring &&
	       strlen(item->valuestring) == KT_HASH_HEX &&
	       kt_unhex(item->valuestring, r.hash, KT_HASH_LEN) == 0;
	return fn(&r, arg);
}

/* Members named *_blob of object o; prefix "" or "extra.". */
static int blob_members(cJSON *o, const char *prefix, kt_blobref_fn fn,
			void *arg)
{
	char field[sizeof(((kt_blobref *)0)->field)];
	cJSON *it;
	int rc;

	cJSON_ArrayForEach(it, o) {
		if (!name_ends_blob(it->string))
			continue;
		snprintf(field, sizeof(field), "%s%s", prefix, it->string);
		if ((rc = ref(it, field, fn, arg)) != 0)
			return rc;
	}
	return 0;
}

/* "blob" of each object of array `key` (observed, images). */
static int blob_array(cJSON *payload, const char *key, kt_blobref_fn fn,
		      void *arg)
{
	char field[sizeof(((kt_blobref *)0)->field)];
	cJSON *a = cJSON_GetObjectItemCaseSensitive(payload, key), *it;
	unsigned i = 0;
	int rc;

	if (!cJSON_IsArray(a))
		return 0;
	cJSON_ArrayForEach(it, a) {
		if (cJSON_IsObject(it)) {
			snprintf(field, sizeof(field), "%s[%u].blob", key, i);
			rc = ref(cJSON_GetObjectItemCaseSensitive(it, "blob"),
				 field, fn, arg);
			if (rc)
				return rc;
		}
		i++;
	}
	return 0;
}

int kt_blobref_foreach(int kind, cJSON *payload, kt_blobref_fn fn, void *arg)
{
	cJSON *extra;
	int rc;

	if (!fn)
		return KT_EINVAL;
	if (!cJSON_IsObject(payload))
		return 0;
	if (kind == KT_KIND_EDIT) {
		rc = ref(cJSON_GetObjectItemCaseSensitive(payload, "before"),
			 "before", fn, arg);
		if (!rc)
			rc = ref(cJSON_GetObjectItemCaseSensitive(payload,
								  "after"),
				 "after", fn, arg);
		if (rc)
			return rc;
	}
	if ((rc = blob_members(payload, "", fn, arg)) != 0)
		return rc;
	extra = cJSON_GetObjectItemCaseSensitive(payload, "extra");
	if (cJSON_IsObject(extra) &&
	    (rc = blob_members(extra, "extra.", fn, arg)) != 0)
		return rc;
	if ((rc = blob_array(payload, "observed", fn, arg)) != 0)
		return rc;
	return blob_array(payload, "images", fn, arg);
}
