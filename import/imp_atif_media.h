/*
 * imp_atif_media.h - ATIF v1.6+ image content parts and per-step token ids
 * and logprobs (imp_atif_media.c), for the ATIF importer.
 */
#ifndef KT_IMP_ATIF_MEDIA_H
#define KT_IMP_ATIF_MEDIA_H

#include <cjson/cJSON.h>

#include "import.h"

/* Token ids and logprobs of one step up to this many bytes of JSON are kept
 * in the message's extra.tokens; longer ones go to a blob named by
 * extra.tokens_blob (the same JSON object). */
#define KT_ATIF_TOKENS_INLINE (64u * 1024u)

/*
 * The image parts of an ATIF content list (a message or an observation
 * result's content; anything but an array has none) as a ktraj "images"
 * array, or *images NULL when there are none: each {blob?, media_type?,
 * path?}.  The bytes of a base64 data: URL, or of a relative file beside
 * the trajectory (dir: the trajectory's folder, as a rel prefix of f's
 * input root, "" or ending in '/'), are stored as a blob; that file is
 * claimed.  A remote URL or an absolute path is kept as path only (ktraj
 * reads no network and nothing outside its input); a relative file that
 * is missing is warned on f and kept as path only.  *images is owned by
 * the caller.  0, KT_ENOMEM or a store error of kt_imp_blob.
 */
int kt_atif_images(kt_imp *imp, const kt_file *f, const char *dir,
		   const cJSON *content, cJSON **images);

/*
 * A step's metrics prompt_token_ids, completion_token_ids and logprobs
 * into extra (an object): as extra.tokens {those members as given} up to
 * KT_ATIF_TOKENS_INLINE bytes, else a blob of that JSON named by
 * extra.tokens_blob; metrics.extra as extra.metrics_extra.  Nothing when
 * metrics has none.  0, KT_ENOMEM or a store error of kt_imp_blob.
 */
int kt_atif_tokens(kt_imp *imp, const cJSON *metrics, cJSON *extra);

#endif
