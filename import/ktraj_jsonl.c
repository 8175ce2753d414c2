/*
 * ktraj_jsonl.c - the ktraj JSONL line parser (ktraj_jsonl.h; FORMAT.md
 * "JSONL"), shared by the "ktraj" importer (imp_ktraj.c) and `ktraj
 * append`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "ktraj_jsonl.h"
#include "impx.h"
#include "jsonstrict.h"

/* ---- exact integers from the raw text ---------------------------------
 * cJSON keeps numbers as doubles, which round ns timestamps (61 bits), so
 * seq, parent and ts are read again from the line itself.  The line has
 * mostly parsed as a JSON object when this runs (ktraj_detect also looks
 * into one that did not); the scanner never reads past end. */
static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static const char *skip_str(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return NULL;
}

static const char *skip_value(const char *p, const char *end)
{
	int depth = 0;

	if (p >= end)
		return NULL;
	if (*p == '"')
		return skip_str(p, end);
	if (*p != '{' && *p != '[') {
		while (p < end && *p != ',' && *p != '}' && *p != ']' &&
		       *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
			p++;
		return p;
	}
	while (p < end) {
		if (*p == '"') {
			p = skip_str(p, end);
			if (!p)
				return NULL;
			continue;
		}
		if (*p == '{' || *p == '[')
			depth++;
		else if ((*p == '}' || *p == ']') && --depth == 0)
			return p + 1;
		p++;
	}
	return NULL;
}

/* A cursor over the members of the top-level object, shared by
 * member_raw and kt_jsonl_not_ktraj so that they agree on where a line's
 * object ends and where it is damaged. */
typedef struct {
	const char *p, *end;
	int first; /* no member read yet: no ',' before the next */
} members;

/* 1: [p, end) opens with an object (after white space), m set to its first
 * member; 0: not an object. */
static int members_open(members *m, const char *p, const char *end)
{
	p = skip_ws(p, end);
	if (p >= end || *p != '{')
		return 0;
	m->p = p + 1;
	m->end = end;
	m->first = 1;
	return 1;
}

/* The next member: 1 (*k, *kl: the key's raw text between its quotes,
 * escapes left as they are; *v, *vl: the value's raw text), 0 the object's
 * closing brace (what follows it is not looked at), -1 damaged or cut
 * before either.  A member is given only once its value is whole; the
 * separator after it is read by the next call. */
static int members_next(members *m, const char **k, size_t *kl,
			const char **v, size_t *vl)
{
	const char *p = skip_ws(m->p, m->end), *end = m->end, *ke, *ve;

	if (p < end && *p == '}')
		return 0;
	if (!m->first) {
		if (p >= end || *p != ',')
			return -1;
		p = skip_ws(p + 1, end);
	}
	if (p >= end || *p != '"' || !(ke = skip_str(p, end)))
		return -1;
	*k = p + 1;
	*kl = (size_t)(ke - 1 - *k);
	p = skip_ws(ke, end);
	if (p >= end || *p != ':')
		return -1;
	p = skip_ws(p + 1, end);
	if (!(ve = skip_value(p, end)))
		return -1;
	*v = p;
	*vl = (size_t)(ve - p);
	m->p = ve;
	m->first = 0;
	return 1;
}

/* The raw text of top-level member `key`: 1 found, 0 not.  plain: a key
 * with an escape before the match is "not found" too (cJSON may read it
 * as `key`: kt_jsonl_top_member's "unsure"); else it is only another
 * name. */
static int member_raw(const char *p, const char *end, const char *key,
		      int plain, const char **v, size_t *vlen)
{
	size_t klen = strlen(key), kl, vl;
	const char *k, *vp;
	members m;

	if (!members_open(&m, p, end))
		return 0;
	while (members_next(&m, &k, &kl, &vp, &vl) == 1) {
		if (plain && memchr(k, '\\', kl))
			return 0;
		if (kl == klen && !memcmp(k, key, klen)) {
			*v = vp;
			*vlen = vl;
			return 1;
		}
	}
	return 0;
}

static int top_member(const char *p, const char *end, const char *key,
		      const char **v, size_t *vlen)
{
	return member_raw(p, end, key, 0, v, vlen);
}

/* -1 not an integer, 0 ok */
static int raw_i64(const char *v, size_t n, int64_t *out)
{
	char buf[32], *e;
	long long x;

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, v, n);
	buf[n] = 0;
	if (strspn(buf + (buf[0] == '-'), "0123456789") != n - (buf[0] == '-'))
		return -1;
	errno = 0;
	x = strtoll(buf, &e, 10);
	if (errno || *e)
		return -1;
	*out = x;
	return 0;
}

static int fail(char *err, size_t errlen, const char *what)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", what);
	return KT_EPARSE;
}

/* Member key of o, absent or null (left as it is) or a string (*dst points
 * into o); KT_EPARSE with the reason in err when it is another type. */
static int opt_str(const cJSON *o, const char *key, const char **dst,
		   char *err, size_t errlen)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
	char what[64];

	if (!it || cJSON_IsNull(it))
		return 0;
	if (!cJSON_IsString(it)) {
		snprintf(what, sizeof(what), "\"%s\" must be a string", key);
		return fail(err, errlen, what);
	}
	*dst = it->valuestring;
	return 0;
}

/*
 * The first top-level key that occurs twice, or NULL.  cJSON keeps the
 * first of two equal keys and Python's json the last, so a line with one
 * would mean different events to different readers: it is refused.  Small
 * objects (every line ktraj writes) are compared pairwise; a larger one is
 * sorted.  *nomem is set when the sort cannot allocate.
 */
static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char *dup_key(const cJSON *root, int *nomem)
{
	const char *small[32], **k = small, *dup = NULL;
	const cJSON *it;
	size_t n = 0;

	for (it = root->child; it; it = it->next)
		n++;
	if (n > sizeof(small) / sizeof(small[0])) {
		k = malloc(n * sizeof(*k));
		if (!k) {
			*nomem = 1;
			return NULL;
		}
	}
	n = 0;
	for (it = root->child; it; it = it->next)
		k[n++] = it->string ? it->string : "";
	if (k == small) {
		for (size_t i = 0; i < n && !dup; i++)
			for (size_t j = i + 1; j < n; j++)
				if (!strcmp(k[i], k[j])) {
					dup = k[i];
					break;
				}
	} else {
		qsort(k, n, sizeof(*k), key_cmp);
		for (size_t i = 1; i < n && !dup; i++)
			if (!strcmp(k[i - 1], k[i]))
				dup = k[i];
		free(k);
	}
	return dup;
}

/* Whether the JSON string text at v (its opening quote included) holds a
 * \u0000 escape, which cJSON decodes as the end of the string. */
static int raw_has_nul_escape(const char *v, size_t n)
{
	const char *p = v + 1, *end = v + n;

	for (; p < end && *p != '"'; p++) {
		if (*p != '\\')
			continue;
		if (end - p >= 6 && p[1] == 'u' && !memcmp(p + 2, "0000", 4))
			return 1;
		p++;
	}
	return 0;
}

/* member `key` as an exact integer >= min: 1 present, 0 absent or null,
 * -1 bad */
static int int_member(const char *line, size_t len, cJSON *root,
		      const char *key, int64_t min, int64_t *out)
{
	cJSON *it = cJSON_GetObjectItemCaseSensitive(root, key);
	const char *v;
	size_t vn;

	if (!it || cJSON_IsNull(it))
		return 0;
	if (!cJSON_IsNumber(it) || !top_member(line, line + len, key, &v, &vn) ||
	    raw_i64(v, vn, out) || *out < min)
		return -1;
	return 1;
}

void kt_jsonl_release(kt_jsonl_rec *r)
{
	if (!r)
		return;
	cJSON_Delete(r->root);
	free(r->data);
	free(r->own);
	memset(r, 0, sizeof(*r));
}

static int hex_member(cJSON *root, const char *key, unsigned char *out)
{
	cJSON *it = cJSON_GetObjectItemCaseSensitive(root, key);

	if (!it)
		return 0;
	if (!cJSON_IsString(it) || strlen(it->valuestring) != KT_HASH_HEX ||
	    kt_unhex(it->valuestring, out, KT_HASH_LEN))
		return -1;
	return 1;
}

/*
 * The members of a blob line, whoever parsed it: blob, path (absent, null
 * or a string), and text or base64.  text_own, when set, is text already
 * decoded into a malloc'ed buffer that r takes over.
 */
struct blob_fields {
	const char *blob;     /* NULL: absent or not a string */
	int path_state;       /* 0 absent or null, 1 string, -1 other type */
	const char *path;
	const char *text;     /* NULL: absent or not a string */
	size_t text_len;
	char *text_own;
	const char *b64;      /* NULL: absent or not a string */
	size_t b64_len;
	int text_nul;         /* text held \u0000 (cJSON cut it there) */
};

static int blob_finish(kt_jsonl_rec *r, struct blob_fields *f, char *err,
		       size_t errlen)
{
	unsigned char h[KT_HASH_LEN];

	r->is_blob = 1;
	if (!f->blob || strlen(f->blob) != KT_HASH_HEX ||
	    kt_unhex(f->blob, r->blob, KT_HASH_LEN))
		return fail(err, errlen, "blob: \"blob\" must be 64 hex chars");
	if (f->path_state < 0)
		return fail(err, errlen, "blob: \"path\" must be a string");
	r->path = f->path_state ? f->path : NULL;
	if (f->text && f->text_nul)
		return fail(err, errlen,
			    "blob: \"text\" contains \\u0000; use \"base64\" for binary content");
	if (f->text) {
		r->len = f->text_len;
		if (f->text_own) {
			r->data = (unsigned char *)f->text_own;
			f->text_own = NULL;
		} else {
			r->data = malloc(r->len + 1);
			if (!r->data)
				return KT_ENOMEM;
			memcpy(r->data, f->text, r->len + 1);
		}
	} else if (f->b64) {
		int rc = kt_base64_decode(f->b64, f->b64_len, &r->data, &r->len);

		if (rc == KT_ENOMEM)
			return rc;
		if (rc)
			return fail(err, errlen, "blob: bad base64");
	} else {
		return fail(err, errlen,
			    "blob: needs a \"text\" or \"base64\" string");
	}
	kt_sha256(r->data, r->len, h);
	if (memcmp(h, r->blob, KT_HASH_LEN))
		return fail(err, errlen,
			    "blob: content does not hash to its name");
	return 0;
}

static int parse_blob(const char *line, size_t len, kt_jsonl_rec *r,
		      char *err, size_t errlen)
{
	cJSON *text = cJSON_GetObjectItemCaseSensitive(r->root, "text");
	cJSON *b64 = cJSON_GetObjectItemCaseSensitive(r->root, "base64");
	cJSON *path = cJSON_GetObjectItemCaseSensitive(r->root, "path");
	cJSON *blob = cJSON_GetObjectItemCaseSensitive(r->root, "blob");
	struct blob_fields f = { 0 };
	const char *v;
	size_t vn;

	if (cJSON_IsString(blob))
		f.blob = blob->valuestring;
	if (path && !cJSON_IsNull(path)) {
		f.path_state = cJSON_IsString(path) ? 1 : -1;
		f.path = cJSON_IsString(path) ? path->valuestring : NULL;
	}
	if (cJSON_IsString(text)) {
		f.text = text->valuestring;
		f.text_len = strlen(text->valuestring);
		/* the key is unique (dup_key ran), so this is its text */
		if (top_member(line, line + len, "text", &v, &vn))
			f.text_nul = raw_has_nul_escape(v, vn);
	}
	if (cJSON_IsString(b64)) {
		f.b64 = b64->valuestring;
		f.b64_len = strlen(b64->valuestring);
	}
	return blob_finish(r, &f, err, errlen);
}

/* ---- blob lines without cJSON -------------------------------------------
 * Blob lines are most of the bytes of a ktraj JSONL file (every version of
 * every file, each one long JSON string), and cJSON decodes a string a byte
 * at a time through its generic path: on the store benchmark it parsed the
 * file at ~160-240 MB/s, half of the import's CPU.  The usual shape, a flat
 * object of string or null members that starts with "blob", is decoded
 * here in one pass.  Anything this parser does not take as it is (another
 * value type, a \u escape outside the basic plane or of NUL, a byte below
 * 0x20 in a string, a byte cJSON would skip as white space, a key seen
 * twice or more than 8 keys, anything after the object) returns
 * 1 and the line goes to cJSON, so what a line means is always what cJSON
 * and the RFC 8259 check (jsonstrict.h) say it means; fuzz_ktraj_jsonl
 * checks the two agree.
 */

/* JSON white space; cJSON skips every byte <= 32, so other control bytes
 * send the line to cJSON (which is then refused: jsonstrict.h). */
static const char *fb_ws(const char *p, const char *end, int *odd)
{
	while (p < end && (unsigned char)*p <= 32) {
		if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
			*odd = 1;
		p++;
	}
	return p;
}

/* Decode the string at p (just past its opening quote) into o (room for
 * end - p bytes); 0 and *pp past the closing quote, or 1: not ours. */
static int fb_str(const char **pp, const char *end, char *o, size_t *olen)
{
	const char *p = *pp;
	char *o0 = o;

	for (;;) {
		/* a raw control byte (NUL included) is not JSON (RFC 8259
		 * section 7): cJSON's route refuses the line */
		const char *q = kt_json_str_stop(p, end);

		memcpy(o, p, (size_t)(q - p));
		o += q - p;
		p = q;
		if (p >= end || (unsigned char)*p < 0x20)
			return 1;
		if (*p == '"')
			break;
		if (p + 1 >= end)
			return 1;
		switch (p[1]) {
		case '"': case '\\': case '/':
			*o++ = p[1];
			break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u': {
			unsigned cp = 0;

			if (end - p < 6)
				return 1;
			for (int i = 2; i < 6; i++) {
				int v = kt_hexval((unsigned char)p[i]);

				if (v < 0)
					return 1;
				cp = cp << 4 | (unsigned)v;
			}
			if (cp == 0 || (cp >= 0xd800 && cp <= 0xdfff))
				return 1;
			if (cp < 0x80) {
				*o++ = (char)cp;
			} else if (cp < 0x800) {
				*o++ = (char)(0xc0 | cp >> 6);
				*o++ = (char)(0x80 | (cp & 0x3f));
			} else {
				*o++ = (char)(0xe0 | cp >> 12);
				*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
				*o++ = (char)(0x80 | (cp & 0x3f));
			}
			p += 6;
			continue;
		}
		default:
			return 1;
		}
		p += 2;
	}
	*o = 0;
	*olen = (size_t)(o - o0);
	*pp = p + 1;
	return 0;
}

/* Parse a blob line; 1: not ours (nothing kept), else blob_finish's
 * result. */
static int blob_fast(const char *line, size_t len, kt_jsonl_rec *r,
		     char *err, size_t errlen)
{
	const char *p = line, *end = line + len;
	struct blob_fields f = { 0 };
	char *buf = NULL, *o;
	int odd = 0, rc = 1, first = 1;
	/* keys so far: a key seen twice sends the line to cJSON, which
	 * refuses it (dup_key); ktraj writes 3 or 4 */
	const char *keys[8];
	size_t klens[8], nkeys = 0;

	p = fb_ws(p, end, &odd);
	if (odd || end - p < 9 || memcmp(p, "{\"blob\":", 8) != 0)
		return 1;
	/* every decoded string fits in the line's length */
	buf = malloc(len + 1);
	if (!buf)
		return KT_ENOMEM;
	o = buf;
	p++;
	for (;;) {
		const char *k, *ke;
		char *v = NULL;
		size_t vl = 0;
		int is_null = 0;

		p = fb_ws(p, end, &odd);
		if (p >= end || *p != '"')
			goto out;
		k = ++p;
		while (p < end && *p != '"' && *p != '\\' &&
		       (unsigned char)*p >= 0x20)
			p++;
		if (p >= end || *p != '"')
			goto out;
		ke = p++;
		if (nkeys == sizeof(keys) / sizeof(keys[0]))
			goto out;
		for (size_t i = 0; i < nkeys; i++)
			if (klens[i] == (size_t)(ke - k) &&
			    !memcmp(keys[i], k, klens[i]))
				goto out;
		keys[nkeys] = k;
		klens[nkeys++] = (size_t)(ke - k);
		p = fb_ws(p, end, &odd);
		if (p >= end || *p != ':')
			goto out;
		p = fb_ws(p + 1, end, &odd);
		if (p < end && *p == '"' && !first &&
		    (size_t)(ke - k) == 4 && !memcmp(k, "text", 4)) {
			/* the file text, most of the line: decoded straight
			 * into the buffer r keeps (keys are unique here) */
			f.text_own = malloc((size_t)(end - p) + 1);
			if (!f.text_own) {
				rc = KT_ENOMEM;
				goto out;
			}
			p++;
			if (fb_str(&p, end, f.text_own, &vl))
				goto out;
			v = f.text_own;
		} else if (p < end && *p == '"') {
			p++;
			if (fb_str(&p, end, o, &vl))
				goto out;
			v = o;
			o += vl + 1;
		} else if (end - p >= 4 && !memcmp(p, "null", 4)) {
			p += 4;
			is_null = 1;
		} else {
			goto out;
		}
#define KEY(s) ((size_t)(ke - k) == sizeof(s) - 1 && !memcmp(k, s, sizeof(s) - 1))
		if (first) {
			if (is_null)
				goto out; /* "blob":null: cJSON's message */
			f.blob = v;
		} else if (KEY("path")) {
			f.path_state = is_null ? 0 : 1;
			f.path = v;
		} else if (KEY("text")) {
			f.text = v;
			f.text_len = vl;
		} else if (KEY("base64")) {
			f.b64 = v;
			f.b64_len = vl;
		}
#undef KEY
		first = 0;
		p = fb_ws(p, end, &odd);
		if (p < end && *p == ',') {
			p++;
			continue;
		}
		if (p < end && *p == '}')
			break;
		goto out;
	}
	p = fb_ws(p + 1, end, &odd);
	if (odd || p != end)
		goto out;
	/* r keeps buf (blob, path) as its strings; blob_finish takes the
	 * text's own buffer */
	r->own = buf;
	buf = NULL;
	rc = blob_finish(r, &f, err, errlen);
out:
	free(f.text_own);
	free(buf);
	return rc;
}

/* {"run":{"id":ID,"name":S?,"format":S?,"meta":{...}?}}: an id string,
 * the rest each of its type when present */
static int parse_run(kt_jsonl_rec *r, char *err, size_t errlen)
{
	cJSON *o = cJSON_GetObjectItemCaseSensitive(r->root, "run");
	cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "id");
	cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "name");
	cJSON *format = cJSON_GetObjectItemCaseSensitive(o, "format");
	cJSON *meta = cJSON_GetObjectItemCaseSensitive(o, "meta");

	r->is_run = 1;
	if (!cJSON_IsString(id) || !*id->valuestring)
		return fail(err, errlen, "run line: \"id\" must be a string");
	r->run = id->valuestring;
	if (name && !cJSON_IsNull(name)) {
		if (!cJSON_IsString(name))
			return fail(err, errlen, "run line: \"name\" must be a string");
		r->name = name->valuestring;
	}
	if (format && !cJSON_IsNull(format)) {
		if (!cJSON_IsString(format))
			return fail(err, errlen, "run line: \"format\" must be a string");
		r->format = format->valuestring;
	}
	if (meta && !cJSON_IsNull(meta)) {
		if (!cJSON_IsObject(meta))
			return fail(err, errlen, "run line: \"meta\" must be an object");
		r->meta = meta;
	}
	return 0;
}

static int jsonl_parse(const char *line, size_t len, kt_jsonl_rec *r,
		       char *err, size_t errlen, int fast)
{
	cJSON *it;
	int64_t v;
	int rc;

	memset(r, 0, sizeof(*r));
	r->ts_ns = KT_TS_UNKNOWN;
	if (fast && (rc = blob_fast(line, len, r, err, errlen)) != 1)
		goto out;
	r->root = kt_cjson_parse(line, len, NULL, &rc);
	if (!r->root && rc == KT_ENOMEM) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (!r->root) {
		const char *why;
		size_t off;

		/* why, in the words every importer uses (jsonstrict.h
		 * kt_imp_json_bad); the check's limits are cJSON's */
		if (!kt_json_check(line, len, 0, &off, &why))
			rc = fail(err, errlen, "JSON not parsed");
		else if (err && errlen)
			snprintf(err, errlen,
				 "invalid JSON (RFC 8259): %s at byte %zu",
				 why, off);
		rc = KT_EPARSE;
		goto out;
	}
	{
		const char *why;
		size_t off;

		/* blob lines explain a \u0000 in "text" themselves
		 * (blob_finish); other lines would lose the rest of the
		 * string without a word */
		unsigned fl = cJSON_GetObjectItemCaseSensitive(r->root,
				"blob") ? 0 : KT_JSON_NONUL;

		if (kt_json_check(line, len, fl, &off, &why)) {
			if (err && errlen)
				snprintf(err, errlen, "%s%s at byte %zu",
					 strcmp(why, KT_JSON_NUL_WHY) ?
					 "invalid JSON (RFC 8259): " : "",
					 why, off);
			rc = KT_EPARSE;
			goto out;
		}
		/* RFC 8259 section 8.1: the text is UTF-8.  cJSON keeps any
		 * bytes, and an event holding others would make every JSON
		 * reader of `log --json` or an export choke.  (A blob line's
		 * text is file content, stored and read back as bytes.) */
		if (fl && !kt_utf8_valid(line, len, &off)) {
			if (err && errlen)
				snprintf(err, errlen,
					 "invalid UTF-8 at byte %zu", off);
			rc = KT_EPARSE;
			goto out;
		}
	}
	if (!cJSON_IsObject(r->root)) {
		rc = fail(err, errlen, "not a JSON object");
		goto out;
	}
	{
		int nomem = 0;
		const char *dup = dup_key(r->root, &nomem);

		if (nomem) {
			rc = KT_ENOMEM;
			goto out;
		}
		if (dup) {
			if (err && errlen)
				snprintf(err, errlen, "duplicate key \"%.40s\"",
					 dup);
			rc = KT_EPARSE;
			goto out;
		}
	}
	if (cJSON_GetObjectItemCaseSensitive(r->root, "blob")) {
		rc = parse_blob(line, len, r, err, errlen);
		goto out;
	}
	if (!cJSON_GetObjectItemCaseSensitive(r->root, "kind") &&
	    cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(r->root, "run"))) {
		rc = parse_run(r, err, errlen);
		goto out;
	}
	rc = KT_EPARSE;
	it = cJSON_GetObjectItemCaseSensitive(r->root, "kind");
	if (!cJSON_IsString(it)) {
		fail(err, errlen, "missing \"kind\" (or \"blob\")");
		goto out;
	}
	r->kind = kt_kind_from_name(it->valuestring);
	if (!r->kind) {
		if (err && errlen)
			snprintf(err, errlen, "unknown kind \"%.40s\"",
				 it->valuestring);
		goto out;
	}
	r->payload = cJSON_GetObjectItemCaseSensitive(r->root, "payload");
	if (!cJSON_IsObject(r->payload)) {
		fail(err, errlen, "\"payload\" must be a JSON object");
		goto out;
	}
	if (opt_str(r->root, "run", &r->run, err, errlen) ||
	    opt_str(r->root, "actor", &r->actor, err, errlen))
		goto out;
	it = cJSON_GetObjectItemCaseSensitive(r->root, "prov");
	if (it && !cJSON_IsNull(it)) {
		if (!cJSON_IsObject(it)) {
			fail(err, errlen, "\"prov\" must be an object or null");
			goto out;
		}
		r->prov = it;
	}
	switch (int_member(line, len, r->root, "seq", 1, &v)) {
	case -1:
		fail(err, errlen, "\"seq\" must be an integer >= 1");
		goto out;
	case 1:
		r->has_seq = 1;
		r->seq = (uint64_t)v;
	}
	switch (int_member(line, len, r->root, "parent", 0, &v)) {
	case -1:
		fail(err, errlen, "\"parent\" must be an integer >= 0 or null");
		goto out;
	case 1:
		r->parent = (uint64_t)v;
	}
	r->has_ts = cJSON_GetObjectItemCaseSensitive(r->root, "ts") != NULL;
	switch (int_member(line, len, r->root, "ts", INT64_MIN + 1, &v)) {
	case -1:
		fail(err, errlen, "\"ts\" must be integer ns since the epoch or null");
		goto out;
	case 1:
		r->ts_ns = v;
	}
	switch (hex_member(r->root, "hash", r->hash)) {
	case -1:
		fail(err, errlen, "\"hash\" must be 64 hex chars");
		goto out;
	case 1:
		r->has_hash = 1;
	}
	rc = 0;
out:
	if (rc)
		kt_jsonl_release(r);
	return rc;
}

int kt_jsonl_parse(const char *line, size_t len, kt_jsonl_rec *r,
		   char *err, size_t errlen)
{
	return jsonl_parse(line, len, r, err, errlen, 1);
}

int kt_jsonl_parse_ref(const char *line, size_t len, kt_jsonl_rec *r,
		       char *err, size_t errlen)
{
	return jsonl_parse(line, len, r, err, errlen, 0);
}

int kt_jsonl_top_member(const char *p, const char *end, const char *key,
			const char **v, size_t *vlen)
{
	return member_raw(p, end, key, 1, v, vlen);
}

int kt_jsonl_not_ktraj(const char *p, const char *end)
{
	static const char *const keys[] = { "kind", "seq", "blob", "run" };
	const char *k, *v;
	size_t kl, vl, i;
	members m;
	int rc;

	if (!members_open(&m, p, end))
		return 0;
	while ((rc = members_next(&m, &k, &kl, &v, &vl)) == 1) {
		if (memchr(k, '\\', kl))
			return 0;
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (kl == strlen(keys[i]) && !memcmp(k, keys[i], kl))
				return 0;
	}
	return rc == 0;
}

/* Whether line [p, end), which did not parse, still reads as a ktraj line
 * up to where it broke: a top-level "kind", "seq" or "blob", or a "run"
 * object (top_member finds the members before the damage). */
int kt_jsonl_ish(const char *p, const char *end)
{
	const char *v;
	size_t vn;

	return top_member(p, end, "kind", &v, &vn) ||
	       top_member(p, end, "seq", &v, &vn) ||
	       top_member(p, end, "blob", &v, &vn) ||
	       (top_member(p, end, "run", &v, &vn) && *v == '{');
}
