/*
 * kt_json.h - a small JSON reader for task specs (RFC 8259 subset: no
 * surrogate-pair decoding beyond copying \uXXXX as UTF-8 of the BMP code
 * point).  The harness must build with the CUDA Toolkit and libc alone, so it
 * cannot use cJSON.  Depth is limited to 64 and input to 64 MiB.
 */
#ifndef KTH_JSON_H
#define KTH_JSON_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum kj_type { KJ_NULL, KJ_BOOL, KJ_NUM, KJ_STR, KJ_ARR, KJ_OBJ };

typedef struct kj {
	enum kj_type type;
	double num;          /* KJ_NUM, KJ_BOOL (0/1) */
	char *str;           /* KJ_STR value; object member key in `key` */
	char *key;           /* member name when inside an object, else NULL */
	struct kj *child;    /* first element/member */
	struct kj *next;     /* next sibling */
	size_t n;            /* element/member count */
} kj;

/* Parse `len` bytes.  Returns a tree the caller frees with kj_free, or NULL
 * with a message ("line N: ...") in err (size errlen). */
kj *kj_parse(const char *text, size_t len, char *err, size_t errlen);
void kj_free(kj *v);
/* Member `key` of an object, or NULL. */
const kj *kj_get(const kj *obj, const char *key);
/* Element i of an array, or NULL. */
const kj *kj_at(const kj *arr, size_t i);
/* Typed getters with defaults for absent or mistyped members. */
double kj_num(const kj *obj, const char *key, double def);
const char *kj_str(const kj *obj, const char *key, const char *def);
int kj_bool(const kj *obj, const char *key, int def);

#ifdef __cplusplus
}
#endif
#endif
