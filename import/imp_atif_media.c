/*
 * imp_atif_media.c - what ATIF v1.6+ adds to a step besides text: image
 * content parts and the token ids and logprobs of its metrics.
 *
 * Sources: Harbor's trajectory models (harbor-framework/harbor,
 * src/harbor/models/trajectories/content.py and metrics.py, ATIF-v1.6/1.7):
 *   ContentPart {type: "text"|"image", text?, source?: ImageSource}
 *   ImageSource {media_type: image/jpeg|png|gif|webp, path}: "a relative or
 *     absolute file path, or a URL"
 *   Metrics {prompt_tokens, completion_tokens, cached_tokens, cost_usd,
 *     prompt_token_ids: [int], completion_token_ids: [int],
 *     logprobs: [float], extra: {}}
 * A message (step.message) and an observation result's content may each be
 * a string or a list of ContentPart.
 */
#include <stdlib.h>
#include <string.h>

#include "imp_atif_media.h"
#include "impx.h"

/* An image part's bytes: a data: URL's, or those of the file at path
 * relative to the trajectory's folder (dir) in the same input root, which
 * is claimed so the driver does not try to import it on its own.  NULL
 * with *data_len 0 where there are none to read (a remote URL, an absolute
 * path, ".."): the reference is kept without a blob. */
static int image_bytes(kt_imp *imp, const char *dir, const char *path,
		       unsigned char **data, size_t *len, int *missing)
{
	const char *comma;
	const kt_file *g;
	char *rel;
	int rc;

	*data = NULL;
	*len = 0;
	*missing = 0;
	if (!strncmp(path, "data:", 5)) {
		comma = strchr(path, ',');
		/* only base64 data URLs carry binary content (RFC 2397) */
		if (!comma || !memmem(path, (size_t)(comma - path), ";base64", 7))
			return 0;
		rc = kt_base64_decode_ex(comma + 1, strlen(comma + 1),
					 KT_B64_LENIENT, data, len);
		return rc == KT_EPARSE ? 0 : rc;
	}
	if (strstr(path, "://") || path[0] == '/' || strstr(path, ".."))
		return 0;
	if (!(rel = malloc(strlen(dir) + strlen(path) + 1)))
		return KT_ENOMEM;
	strcpy(rel, dir);
	strcat(rel, path);
	if (kt_imp_open(imp, rel, &g)) {
		*missing = 1;
		free(rel);
		return 0;
	}
	kt_imp_claim(imp, rel);
	free(rel);
	if (!(*data = malloc(g->len ? g->len : 1)))
		return KT_ENOMEM;
	memcpy(*data, g->data, g->len);
	*len = g->len;
	return 0;
}

int kt_atif_images(kt_imp *imp, const kt_file *f, const char *dir,
		   const cJSON *content, cJSON **images)
{
	const cJSON *part;
	int rc = 0;

	*images = NULL;
	if (!cJSON_IsArray(content))
		return 0;
	cJSON_ArrayForEach(part, content) {
		const char *type = kt_json_str(part, "type");
		const cJSON *src = cJSON_GetObjectItemCaseSensitive(part, "source");
		const char *path = kt_json_str(src, "path");
		const char *mt = kt_json_str(src, "media_type");
		unsigned char *data = NULL;
		size_t len = 0;
		int missing = 0;
		char hex[KT_HASH_HEX + 1];
		cJSON *img;

		if (!type || strcmp(type, "image") || !path)
			continue;
		if ((rc = image_bytes(imp, dir, path, &data, &len, &missing)))
			break;
		if (missing)
			kt_imp_warn(imp, f, 0,
				    "image %s not found beside the trajectory: its reference is kept without its content",
				    path);
		if (data && (rc = kt_imp_blob(imp, data, len, NULL, hex))) {
			free(data);
			break;
		}
		if ((!*images && !(*images = cJSON_CreateArray())) ||
		    !(img = cJSON_CreateObject())) {
			free(data);
			rc = KT_ENOMEM;
			break;
		}
		cJSON_AddItemToArray(*images, img);
		if (data)
			cJSON_AddStringToObject(img, "blob", hex);
		if (mt)
			cJSON_AddStringToObject(img, "media_type", mt);
		/* a data: URL is its blob; a file name or URL says where */
		if (strncmp(path, "data:", 5))
			cJSON_AddStringToObject(img, "path", path);
		free(data);
	}
	if (rc) {
		cJSON_Delete(*images);
		*images = NULL;
	}
	return rc;
}

int kt_atif_tokens(kt_imp *imp, const cJSON *metrics, cJSON *extra)
{
	static const char *const keys[] = {
		"prompt_token_ids", "completion_token_ids", "logprobs", NULL,
	};
	cJSON *t = NULL;
	char *text, hex[KT_HASH_HEX + 1];
	size_t n;
	int i, rc;

	if (!cJSON_IsObject(metrics))
		return 0;
	for (i = 0; keys[i]; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(metrics, keys[i]);

		if (!v)
			continue;
		if ((!t && !(t = cJSON_CreateObject())) ||
		    !cJSON_AddItemToObject(t, keys[i], cJSON_Duplicate(v, 1))) {
			cJSON_Delete(t);
			return KT_ENOMEM;
		}
	}
	if (cJSON_GetObjectItemCaseSensitive(metrics, "extra"))
		cJSON_AddItemToObject(extra, "metrics_extra",
			cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(
						metrics, "extra"), 1));
	if (!t)
		return 0;
	if (!(text = cJSON_PrintUnformatted(t))) {
		cJSON_Delete(t);
		return KT_ENOMEM;
	}
	n = strlen(text);
	if (n <= KT_ATIF_TOKENS_INLINE) {
		cJSON_AddItemToObject(extra, "tokens", t);
		free(text);
		return 0;
	}
	/* a long prompt's ids (the whole history, every step) stay out of
	 * the event: a blob, read back by the ATIF export */
	cJSON_Delete(t);
	rc = kt_imp_blob(imp, text, n, NULL, hex);
	free(text);
	if (!rc)
		cJSON_AddStringToObject(extra, "tokens_blob", hex);
	return rc;
}
