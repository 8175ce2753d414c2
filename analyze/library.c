/*
 * library.c - reading a question library back (`questions suggest
 * --library FILE`): the JSON lines `questions mine --json` writes, or the
 * Markdown table `questions mine -o FILE.md` writes.  In the library, not
 * the CLI, so that the parser of a file a user hands over is fuzzed
 * (tests/fuzz/fuzz_library.c) like every other parser.
 */
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "analyze.h"

static int layer_from_name(const char *n)
{
	for (int l = 0; l < KT_AN_NLAYERS; l++)
		if (n && !strcmp(n, kt_an_layer_name(l)))
			return l;
	return KT_AN_L_NONE;
}

/*
 * One entry row of the Markdown table ("| 3 | text | layer | flags | count
 * | runs | hits | gain | sources |", '|' in a cell escaped as "\|") as the
 * object `questions mine --json` would give for what the row holds: text,
 * layer, flags, count, gain.  NULL for any other line (the title, the
 * prose, the header and rule rows), or when memory runs out (*oom set).
 */
static cJSON *md_entry(const char *line, size_t len, int *oom)
{
	char *cell[9], *buf, *w;
	const char *p = line, *end = line + len;
	int n = 0;
	cJSON *o = NULL, *fl;

	if (len < 4 || line[0] != '|' || line[1] != ' ' ||
	    !(line[2] >= '0' && line[2] <= '9'))
		return NULL;
	if (!(buf = malloc(len + 1))) {
		*oom = 1;
		return NULL;
	}
	w = buf;
	p++; /* the leading '|' */
	cell[n++] = w;
	for (; p < end && *p != '\n' && *p != '\r'; p++) {
		if (*p == '\\' && p + 1 < end && p[1] == '|') {
			*w++ = *++p;
		} else if (*p == '|') {
			*w++ = '\0';
			if (n == 9)
				break;
			cell[n++] = w;
		} else {
			*w++ = *p;
		}
	}
	*w = '\0';
	if (n < 9)
		goto out;
	for (int i = 0; i < n; i++) { /* trim the one space each side */
		size_t l = strlen(cell[i]);

		if (l && cell[i][l - 1] == ' ')
			cell[i][--l] = '\0';
		if (cell[i][0] == ' ')
			cell[i]++;
	}
	if (!(o = cJSON_CreateObject()) ||
	    !cJSON_AddStringToObject(o, "text", cell[1]) ||
	    !cJSON_AddStringToObject(o, "layer", cell[2]) ||
	    !(fl = cJSON_AddArrayToObject(o, "flags")) ||
	    !cJSON_AddNumberToObject(o, "count", strtod(cell[4], NULL)) ||
	    !cJSON_AddNumberToObject(o, "hits", strtod(cell[6], NULL)) ||
	    !cJSON_AddNumberToObject(o, "gain", strtod(cell[7], NULL))) {
		cJSON_Delete(o);
		o = NULL;
		*oom = 1;
		goto out;
	}
	if (strstr(cell[3], "moves layer"))
		cJSON_AddItemToArray(fl, cJSON_CreateString("moves_layer"));
	if (strstr(cell[3], "challenges bound"))
		cJSON_AddItemToArray(fl, cJSON_CreateString("challenges_bound"));
out:
	free(buf);
	return o;
}

/* Set or clear bit in *flags when x has the boolean `name`; else leave it. */
static void bool_flag(const cJSON *x, const char *name, unsigned bit,
		      unsigned *flags)
{
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(x, name);

	if (cJSON_IsTrue(b))
		*flags |= bit;
	else if (cJSON_IsFalse(b))
		*flags &= ~bit;
}

/* The entry an object holds, into e; KT_EINVAL (*why set) or KT_ENOMEM. */
static int entry_of(const cJSON *x, kt_an_libentry *e, const char **why)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(x, "text"),
		    *l = cJSON_GetObjectItemCaseSensitive(x, "layer"),
		    *g = cJSON_GetObjectItemCaseSensitive(x, "gain"),
		    *cn = cJSON_GetObjectItemCaseSensitive(x, "count"),
		    *h = cJSON_GetObjectItemCaseSensitive(x, "hits"), *fl;

	if (!cJSON_IsObject(x)) {
		*why = "not a JSON object";
		return KT_EINVAL;
	}
	if (!cJSON_IsString(t) || !t->valuestring[0]) {
		*why = "no \"text\" string";
		return KT_EINVAL;
	}
	if (!(e->text = strdup(t->valuestring)))
		return KT_ENOMEM;
	/* a hand-written entry without a layer (or with a name ktraj does
	 * not know) gets the layer its text has, as a mined one does;
	 * "unclassified" written out stays so */
	if (cJSON_IsString(l) && !strcmp(l->valuestring,
					 kt_an_layer_name(KT_AN_L_NONE)))
		e->layer = KT_AN_L_NONE;
	else if ((e->layer = layer_from_name(cJSON_IsString(l) ?
					     l->valuestring : NULL)) ==
		 KT_AN_L_NONE)
		e->layer = kt_an_layer_of(e->text, strlen(e->text), NULL);
	/* flags: the "flags" list, else what the text says; the booleans
	 * `questions mine --json` writes beside it win over both, so an
	 * entry edited by hand means what its booleans say */
	fl = cJSON_GetObjectItemCaseSensitive(x, "flags");
	if (cJSON_IsArray(fl)) {
		const cJSON *f;

		e->flags = 0;
		cJSON_ArrayForEach(f, fl) {
			if (!cJSON_IsString(f))
				continue;
			if (!strcmp(f->valuestring, "moves_layer"))
				e->flags |= KT_AN_F_RELOCATE;
			if (!strcmp(f->valuestring, "challenges_bound"))
				e->flags |= KT_AN_F_BOUND;
		}
	} else {
		e->flags = kt_an_text_flags(e->text, strlen(e->text));
	}
	bool_flag(x, "moves_layer", KT_AN_F_RELOCATE, &e->flags);
	bool_flag(x, "challenges_bound", KT_AN_F_BOUND, &e->flags);
	e->gain = cJSON_IsNumber(g) ? g->valuedouble : 1.0;
	/* a count the JSON cannot mean (negative, NaN, huge) is one ask */
	e->count = cJSON_IsNumber(cn) && cn->valuedouble >= 0 &&
		   cn->valuedouble < 1e15 ? (size_t)cn->valuedouble : 1;
	e->hits = cJSON_IsNumber(h) && h->valuedouble >= 0 &&
		  h->valuedouble < 1e15 ? (long long)h->valuedouble : -1;
	return KT_OK;
}

void kt_an_library_free(kt_an_libentry *e, size_t n)
{
	for (size_t i = 0; i < n && e; i++)
		free(e[i].text);
	free(e);
}

int kt_an_library_parse(const char *buf, size_t len, kt_an_libentry **out,
			size_t *n, size_t *bad_line, const char **why)
{
	static const char title[] = KT_AN_LIBRARY_MD_TITLE;
	kt_an_libentry *v = NULL;
	size_t nv = 0, cap = 0, lineno = 0;
	const char *p = buf, *end = buf + len;
	int md = 0, rc = KT_OK;

	*out = NULL;
	*n = 0;
	*bad_line = 0;
	*why = NULL;
	if (!buf && len)
		return KT_EINVAL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		const char *line = p;
		size_t sp;
		cJSON *x;
		int oom = 0;

		p += ll;
		lineno++;
		for (sp = 0; sp < ll && strchr(" \t\r\n", line[sp]) && line[sp];
		     sp++)
			;
		if (sp == ll)
			continue;
		if (!nv && !md && ll >= sizeof(title) - 1 &&
		    !memcmp(line, title, sizeof(title) - 1)) {
			md = 1;
			continue;
		}
		if (md) {
			if (!(x = md_entry(line, ll, &oom))) {
				if (oom) {
					rc = KT_ENOMEM;
					break;
				}
				continue;
			}
		} else if (!(x = cJSON_ParseWithLength(line, ll))) {
			*why = "not a JSON object";
			*bad_line = lineno;
			rc = KT_EINVAL;
			break;
		}
		if (KT_GROW(v, cap, nv + 1)) {
			cJSON_Delete(x);
			rc = KT_ENOMEM;
			break;
		}
		rc = entry_of(x, &v[nv], why);
		cJSON_Delete(x);
		if (rc) {
			if (rc == KT_EINVAL)
				*bad_line = lineno;
			break;
		}
		nv++;
	}
	if (!rc && !nv) {
		*why = "no entries";
		rc = KT_EINVAL;
	}
	if (rc) {
		kt_an_library_free(v, nv);
		return rc;
	}
	*out = v;
	*n = nv;
	return KT_OK;
}
