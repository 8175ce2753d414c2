/*
 * kt_json.c - recursive-descent JSON reader (grammar: RFC 8259,
 * https://www.rfc-editor.org/rfc/rfc8259).  Errors carry the line number so a
 * hand-edited task spec can be fixed quickly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt_json.h"

#define KJ_MAX_DEPTH 64
#define KJ_MAX_LEN (64u << 20)

struct kp {
	const char *p, *end;
	int line;
	char *err;
	size_t errlen;
};

static void kp_fail(struct kp *k, const char *what)
{
	if (k->err && !k->err[0])
		snprintf(k->err, k->errlen, "line %d: %s", k->line, what);
}

static void kp_ws(struct kp *k)
{
	while (k->p < k->end && (*k->p == ' ' || *k->p == '\t' ||
				 *k->p == '\n' || *k->p == '\r')) {
		if (*k->p == '\n')
			k->line++;
		k->p++;
	}
}

static kj *kj_new(enum kj_type t)
{
	kj *v = calloc(1, sizeof(*v));

	if (v)
		v->type = t;
	return v;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static char *kp_string(struct kp *k)
{
	size_t cap = 32, n = 0;
	char *s = malloc(cap), *t;

	if (!s)
		return NULL;
	k->p++; /* opening quote */
	while (k->p < k->end && *k->p != '"') {
		unsigned cp;
		unsigned char c = (unsigned char)*k->p++;

		if (n + 4 >= cap) {
			cap *= 2;
			t = realloc(s, cap);
			if (!t)
				goto bad;
			s = t;
		}
		if (c < 0x20) {
			kp_fail(k, "control character in string");
			goto bad;
		}
		if (c != '\\') {
			s[n++] = (char)c;
			continue;
		}
		if (k->p >= k->end)
			break;
		c = (unsigned char)*k->p++;
		switch (c) {
		case '"': case '\\': case '/': s[n++] = (char)c; break;
		case 'b': s[n++] = '\b'; break;
		case 'f': s[n++] = '\f'; break;
		case 'n': s[n++] = '\n'; break;
		case 'r': s[n++] = '\r'; break;
		case 't': s[n++] = '\t'; break;
		case 'u':
			if (k->end - k->p < 4) {
				kp_fail(k, "short \\u escape");
				goto bad;
			}
			cp = 0;
			for (int i = 0; i < 4; i++) {
				int h = hexval(k->p[i]);

				if (h < 0) {
					kp_fail(k, "bad \\u escape");
					goto bad;
				}
				cp = cp * 16 + (unsigned)h;
			}
			k->p += 4;
			if (cp < 0x80) {
				s[n++] = (char)cp;
			} else if (cp < 0x800) {
				s[n++] = (char)(0xC0 | (cp >> 6));
				s[n++] = (char)(0x80 | (cp & 0x3F));
			} else {
				s[n++] = (char)(0xE0 | (cp >> 12));
				s[n++] = (char)(0x80 | ((cp >> 6) & 0x3F));
				s[n++] = (char)(0x80 | (cp & 0x3F));
			}
			break;
		default:
			kp_fail(k, "bad escape");
			goto bad;
		}
	}
	if (k->p >= k->end) {
		kp_fail(k, "unterminated string");
		goto bad;
	}
	k->p++;
	s[n] = 0;
	return s;
bad:
	free(s);
	return NULL;
}

static kj *kp_value(struct kp *k, int depth);

static kj *kp_container(struct kp *k, int depth, int obj)
{
	kj *v = kj_new(obj ? KJ_OBJ : KJ_ARR), *last = NULL, *e;
	char close = obj ? '}' : ']';

	if (!v)
		return NULL;
	k->p++;
	kp_ws(k);
	if (k->p < k->end && *k->p == close) {
		k->p++;
		return v;
	}
	for (;;) {
		char *key = NULL;

		kp_ws(k);
		if (obj) {
			if (k->p >= k->end || *k->p != '"') {
				kp_fail(k, "expected a member name");
				goto bad;
			}
			key = kp_string(k);
			if (!key)
				goto bad;
			kp_ws(k);
			if (k->p >= k->end || *k->p != ':') {
				free(key);
				kp_fail(k, "expected ':'");
				goto bad;
			}
			k->p++;
		}
		e = kp_value(k, depth + 1);
		if (!e) {
			free(key);
			goto bad;
		}
		e->key = key;
		if (last)
			last->next = e;
		else
			v->child = e;
		last = e;
		v->n++;
		kp_ws(k);
		if (k->p < k->end && *k->p == ',') {
			k->p++;
			continue;
		}
		if (k->p < k->end && *k->p == close) {
			k->p++;
			return v;
		}
		kp_fail(k, obj ? "expected ',' or '}'" : "expected ',' or ']'");
		goto bad;
	}
bad:
	kj_free(v);
	return NULL;
}

static kj *kp_value(struct kp *k, int depth)
{
	kj *v;

	if (depth > KJ_MAX_DEPTH) {
		kp_fail(k, "nested too deeply");
		return NULL;
	}
	kp_ws(k);
	if (k->p >= k->end) {
		kp_fail(k, "unexpected end of input");
		return NULL;
	}
	switch (*k->p) {
	case '{': return kp_container(k, depth, 1);
	case '[': return kp_container(k, depth, 0);
	case '"':
		v = kj_new(KJ_STR);
		if (v && !(v->str = kp_string(k))) {
			free(v);
			v = NULL;
		}
		return v;
	}
	if (k->end - k->p >= 4 && !memcmp(k->p, "true", 4)) {
		k->p += 4;
		v = kj_new(KJ_BOOL);
		if (v)
			v->num = 1;
		return v;
	}
	if (k->end - k->p >= 5 && !memcmp(k->p, "false", 5)) {
		k->p += 5;
		return kj_new(KJ_BOOL);
	}
	if (k->end - k->p >= 4 && !memcmp(k->p, "null", 4)) {
		k->p += 4;
		return kj_new(KJ_NULL);
	}
	if (*k->p == '-' || (*k->p >= '0' && *k->p <= '9')) {
		char buf[64], *endp;
		size_t n = 0;

		while (k->p + n < k->end && n < sizeof(buf) - 1 &&
		       strchr("+-0123456789.eE", k->p[n]))
			n++;
		memcpy(buf, k->p, n);
		buf[n] = 0;
		v = kj_new(KJ_NUM);
		if (!v)
			return NULL;
		v->num = strtod(buf, &endp);
		if (endp != buf + n || n == 0) {
			free(v);
			kp_fail(k, "bad number");
			return NULL;
		}
		k->p += n;
		return v;
	}
	kp_fail(k, "unexpected character");
	return NULL;
}

kj *kj_parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct kp k = { text, text + len, 1, err, errlen };
	kj *v;

	if (err && errlen)
		err[0] = 0;
	if (len > KJ_MAX_LEN) {
		kp_fail(&k, "input too large");
		return NULL;
	}
	v = kp_value(&k, 0);
	if (!v)
		return NULL;
	kp_ws(&k);
	if (k.p != k.end) {
		kp_fail(&k, "trailing characters");
		kj_free(v);
		return NULL;
	}
	return v;
}

void kj_free(kj *v)
{
	while (v) {
		kj *n = v->next;

		kj_free(v->child);
		free(v->str);
		free(v->key);
		free(v);
		v = n;
	}
}

const kj *kj_get(const kj *obj, const char *key)
{
	const kj *e;

	if (!obj || obj->type != KJ_OBJ)
		return NULL;
	for (e = obj->child; e; e = e->next)
		if (e->key && !strcmp(e->key, key))
			return e;
	return NULL;
}

const kj *kj_at(const kj *arr, size_t i)
{
	const kj *e;

	if (!arr || arr->type != KJ_ARR)
		return NULL;
	for (e = arr->child; e && i; e = e->next)
		i--;
	return e;
}

double kj_num(const kj *obj, const char *key, double def)
{
	const kj *e = kj_get(obj, key);

	return e && (e->type == KJ_NUM || e->type == KJ_BOOL) ? e->num : def;
}

const char *kj_str(const kj *obj, const char *key, const char *def)
{
	const kj *e = kj_get(obj, key);

	return e && e->type == KJ_STR ? e->str : def;
}

int kj_bool(const kj *obj, const char *key, int def)
{
	const kj *e = kj_get(obj, key);

	return e && (e->type == KJ_BOOL || e->type == KJ_NUM) ? e->num != 0 : def;
}
