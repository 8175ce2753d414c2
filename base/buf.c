/*
 * buf.c - the owned growable buffer and the string map (kt_base.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kt_base.h"

/* ---- buffer -------------------------------------------------------------- */
int kt_buf_reserve(struct kt_buf *b, size_t n)
{
	size_t cap;
	unsigned char *p;

	if (n <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < n) {
		if (cap > SIZE_MAX / 2)
			return b->err = KT_ENOMEM;
		cap *= 2;
	}
	p = realloc(b->p, cap);
	if (!p)
		return b->err = KT_ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

int kt_buf_add_grow(struct kt_buf *b, const void *p, size_t n)
{
	if (b->err)
		return b->err;
	if (n > SIZE_MAX - b->len - 1)
		return b->err = KT_ENOMEM;
	if (kt_buf_reserve(b, b->len + n + 1))
		return KT_ENOMEM;
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = 0;
	return 0;
}

int kt_buf_puts(struct kt_buf *b, const char *s)
{
	return kt_buf_add(b, s, s ? strlen(s) : 0);
}

int kt_buf_sh_quote(struct kt_buf *b, const char *s)
{
	kt_buf_putc(b, '\'');
	for (; *s; s++)
		if (*s == '\'')
			kt_buf_puts(b, "'\\''");
		else
			kt_buf_putc(b, *s);
	return kt_buf_putc(b, '\'');
}

int kt_buf_read_file(struct kt_buf *b, const char *path)
{
	FILE *f = fopen(path, "rb");
	char chunk[65536];
	size_t n;
	int bad, e;

	if (!f)
		return errno == ENOENT ? KT_ENOTFOUND : KT_EIO;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		kt_buf_add(b, chunk, n);
	bad = ferror(f);
	e = errno;
	fclose(f);
	errno = e;
	return bad ? KT_EIO : b->err ? KT_ENOMEM : 0;
}

int kt_buf_printf(struct kt_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->err)
		return b->err;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return KT_EINVAL;
	if (kt_buf_reserve(b, b->len + (size_t)n + 1))
		return KT_ENOMEM;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

char *kt_buf_take(struct kt_buf *b)
{
	char *s;

	if (!b->err && kt_buf_add(b, "", 0) == 0) {
		s = b->s;
		memset(b, 0, sizeof(*b));
		return s;
	}
	kt_buf_free(b);
	return NULL;
}

void kt_buf_free(struct kt_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void kt_buf_reset(struct kt_buf *b)
{
	b->len = 0;
	b->err = 0;
	if (b->p)
		b->p[0] = 0;
}

/* ---- string map ---------------------------------------------------------- */
static uint64_t fnv(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* Double the table (the first growth makes 64 slots): keeps it at most
 * half full, so a probe ends soon. */
static int grow(kt_strmap *m)
{
	size_t nc = m->cap ? m->cap * 2 : 64, i, j;
	char **nk = calloc(nc, sizeof(*nk));
	void **nv = calloc(nc, sizeof(*nv));

	if (!nk || !nv) {
		free(nk);
		free(nv);
		return KT_ENOMEM;
	}
	for (j = 0; j < m->cap; j++) {
		if (!m->keys[j])
			continue;
		i = fnv(m->keys[j]) & (nc - 1);
		while (nk[i])
			i = (i + 1) & (nc - 1);
		nk[i] = m->keys[j];
		nv[i] = m->vals[j];
	}
	free(m->keys);
	free(m->vals);
	m->keys = nk;
	m->vals = nv;
	m->cap = nc;
	return 0;
}

void **kt_strmap_slot(kt_strmap *m, const char *key, int create)
{
	size_t i, mask;

	if (!key || (create && (m->n + 1) * 2 > m->cap && grow(m)))
		return NULL;
	if (!m->cap)
		return NULL;
	mask = m->cap - 1;
	for (i = fnv(key) & mask; m->keys[i]; i = (i + 1) & mask)
		if (!strcmp(m->keys[i], key))
			return &m->vals[i];
	if (!create || !(m->keys[i] = strdup(key)))
		return NULL;
	m->vals[i] = NULL;
	m->n++;
	return &m->vals[i];
}

void *kt_strmap_get(const kt_strmap *m, const char *key)
{
	/* without create the map is not changed */
	void **v = kt_strmap_slot((kt_strmap *)m, key, 0);

	return v ? *v : NULL;
}

int kt_strmap_put(kt_strmap *m, const char *key, void *val)
{
	void **v;

	if (!key)
		return KT_EINVAL;
	if (!(v = kt_strmap_slot(m, key, 1)))
		return KT_ENOMEM;
	*v = val;
	return 0;
}

void kt_strmap_clear(kt_strmap *m, void (*free_val)(void *))
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i]) {
			if (free_val && m->vals[i])
				free_val(m->vals[i]);
			free(m->keys[i]);
			m->keys[i] = NULL;
			m->vals[i] = NULL;
		}
	m->n = 0;
}

void kt_strmap_free(kt_strmap *m, void (*free_val)(void *))
{
	kt_strmap_clear(m, free_val);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

const char *kt_strmap_slot_key(const kt_strmap *m, void *const *slot)
{
	return m->keys[slot - (void *const *)m->vals];
}
