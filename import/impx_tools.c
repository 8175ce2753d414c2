/*
 * impx_tools.c - the importer helpers (impx.h) that agent logs share: the
 * Codex, ATIF, SWE-agent and OpenHands importers, and any other whose tool
 * calls name editors and shells; and the one Python-literal reader
 * (kt_impx_pylit), which the KernelBench and KernelAgent importers and the
 * benchmark patterns' JSON reader (benchpat_json.c) use too.
 */
#include <ctype.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <stdio.h>
#include <math.h>
#include "impx.h"
#include "jsonstrict.h"
#include "codex_patch.h"
#include "impconv.h"

const char *kt_impx_str2(const cJSON *o, const char *k1, const char *k2)
{
	const char *s = kt_json_str(o, k1);

	return s ? s : kt_json_str(o, k2);
}

int64_t kt_impx_ts_json(const cJSON *v)
{
	double d;

	if (cJSON_IsString(v))
		return kt_impx_ts(v->valuestring);
	if (!cJSON_IsNumber(v))
		return KT_TS_UNKNOWN;
	d = v->valuedouble;
	if (!isfinite(d) || d <= 0)
		return KT_TS_UNKNOWN;
	if (d > 1e11)
		d /= 1000.0; /* milliseconds */
	if (d > 9.2e9)
		return KT_TS_UNKNOWN;
	return (int64_t)(d * 1e9);
}

/* ---- Python literals ------------------------------------------------------ */
typedef struct pyp {
	const char *s, *e;
	int depth;
} pyp;

static void py_ws(pyp *p)
{
	while (p->s < p->e && isspace((unsigned char)*p->s))
		p->s++;
}

/* The n hex digits at s as a number; -1 when one is not a hex digit. */
static int hexval(const char *s, int n, unsigned long *out)
{
	unsigned long v = 0;

	for (int i = 0; i < n; i++) {
		int d = kt_hexval((unsigned char)s[i]);

		if (d < 0)
			return -1;
		v = v * 16 + (unsigned long)d;
	}
	*out = v;
	return 0;
}

/* A Python string literal (optional r/b/u prefix, ' or ", triple quotes).
 * Returns malloc'ed UTF-8 or NULL. */
static char *py_string(pyp *p)
{
	int raw = 0, triple = 0;
	char q;
	struct kt_buf b = { 0 };

	while (p->s + 1 < p->e && *p->s && strchr("rRbBuU", *p->s) &&
	       (p->s[1] == '\'' || p->s[1] == '"' ||
		(p->s[1] && strchr("rRbB", p->s[1])))) {
		if (*p->s == 'r' || *p->s == 'R')
			raw = 1;
		p->s++;
	}
	if (p->s >= p->e || (*p->s != '\'' && *p->s != '"'))
		return NULL;
	q = *p->s++;
	if (p->e - p->s >= 2 && p->s[0] == q && p->s[1] == q) {
		triple = 1;
		p->s += 2;
	}
	while (p->s < p->e) {
		char c = *p->s;
		unsigned long cp;

		if (c == q) {
			if (!triple) {
				p->s++;
				return kt_buf_take(&b);
			}
			if (p->e - p->s >= 3 && p->s[1] == q && p->s[2] == q) {
				p->s += 3;
				return kt_buf_take(&b);
			}
		}
		if (c == '\\' && !raw && p->s + 1 < p->e) {
			char d = p->s[1];

			p->s += 2;
			switch (d) {
			case '\\': cp = '\\'; break;
			case '\'': cp = '\''; break;
			case '"': cp = '"'; break;
			case 'n': cp = '\n'; break;
			case 't': cp = '\t'; break;
			case 'r': cp = '\r'; break;
			case 'a': cp = 7; break;
			case 'b': cp = 8; break;
			case 'f': cp = 12; break;
			case 'v': cp = 11; break;
			case '\n': continue;
			case 'x':
				if (p->e - p->s < 2 || hexval(p->s, 2, &cp))
					goto bad;
				p->s += 2;
				break;
			case 'u':
				if (p->e - p->s < 4 || hexval(p->s, 4, &cp))
					goto bad;
				p->s += 4;
				break;
			case 'U':
				if (p->e - p->s < 8 || hexval(p->s, 8, &cp))
					goto bad;
				p->s += 8;
				break;
			case '0': case '1': case '2': case '3':
			case '4': case '5': case '6': case '7':
				/* octal, up to three digits: '\0', '\012' */
				cp = (unsigned long)(d - '0');
				for (int i = 0; i < 2 && p->s < p->e &&
				     *p->s >= '0' && *p->s <= '7'; i++)
					cp = cp * 8 + (unsigned long)(*p->s++ - '0');
				break;
			default:
				/* Python keeps the backslash of an escape it
				 * does not know ('\d' is two characters) */
				kt_buf_putc(&b, '\\');
				kt_buf_putc(&b, d);
				continue;
			}
			if (cp == 0)
				cp = 0xFFFD; /* no NULs inside C strings */
			/* out of memory is sticky: kt_buf_take says it */
			kt_utf8_put(&b, cp);
			continue;
		}
		/* a raw NUL cannot live in a C string either */
		if (c == 0)
			kt_utf8_put(&b, 0xFFFD);
		else
			kt_buf_putc(&b, c);
		p->s++;
	}
bad:
	kt_buf_free(&b);
	return NULL;
}

static cJSON *py_value(pyp *p);

static cJSON *py_seq(pyp *p, char close)
{
	cJSON *a = cJSON_CreateArray();

	if (!a)
		return NULL;
	p->s++;
	for (;;) {
		cJSON *v;

		py_ws(p);
		if (p->s < p->e && *p->s == close) {
			p->s++;
			return a;
		}
		if (!(v = py_value(p)))
			break;
		cJSON_AddItemToArray(a, v);
		py_ws(p);
		if (p->s < p->e && *p->s == ',') {
			p->s++;
			continue;
		}
		if (p->s < p->e && *p->s == close) {
			p->s++;
			return a;
		}
		break;
	}
	cJSON_Delete(a);
	return NULL;
}

/*
 * A dict key as the JSON member name json.dumps gives it: a string as it
 * is, a number in its shortest form that reads back the same (1.5, not
 * 1.5000000000000000), True/False/None as "true"/"false"/"null".  NULL for
 * a key JSON has no name for (a tuple): the literal is refused.
 */
static const char *py_key(const cJSON *k, char *buf, size_t cap)
{
	if (cJSON_IsString(k))
		return k->valuestring;
	if (cJSON_IsNumber(k)) {
		for (int prec = 15; prec <= 17; prec++) {
			snprintf(buf, cap, "%.*g", prec, k->valuedouble);
			if (strtod(buf, NULL) == k->valuedouble)
				break;
		}
		return buf;
	}
	if (cJSON_IsBool(k))
		return cJSON_IsTrue(k) ? "true" : "false";
	return cJSON_IsNull(k) ? "null" : NULL;
}

static cJSON *py_dict(pyp *p)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	p->s++;
	for (;;) {
		cJSON *k, *v;
		char kb[64];
		const char *ks;

		py_ws(p);
		if (p->s < p->e && *p->s == '}') {
			p->s++;
			return o;
		}
		if (!(k = py_value(p)))
			break;
		if (!(ks = py_key(k, kb, sizeof(kb)))) {
			cJSON_Delete(k);
			break;
		}
		py_ws(p);
		if (p->s >= p->e || *p->s != ':' ||
		    (p->s++, !(v = py_value(p)))) {
			cJSON_Delete(k);
			break;
		}
		cJSON_AddItemToObject(o, ks, v);
		cJSON_Delete(k);
		py_ws(p);
		if (p->s < p->e && *p->s == ',') {
			p->s++;
			continue;
		}
		if (p->s < p->e && *p->s == '}') {
			p->s++;
			return o;
		}
		break;
	}
	cJSON_Delete(o);
	return NULL;
}

static int word(pyp *p, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(p->e - p->s) >= n && memcmp(p->s, w, n) == 0 &&
	    ((size_t)(p->e - p->s) == n ||
	     (!isalnum((unsigned char)p->s[n]) && p->s[n] != '_'))) {
		p->s += n;
		return 1;
	}
	return 0;
}

static cJSON *py_value(pyp *p)
{
	cJSON *r = NULL;

	py_ws(p);
	if (p->s >= p->e || p->depth >= 64) /* bounded recursion */
		return NULL;
	p->depth++;
	switch (*p->s) {
	case '{':
		r = py_dict(p);
		break;
	case '[':
		r = py_seq(p, ']');
		break;
	case '(':
		r = py_seq(p, ')');
		break;
	default:
		if (word(p, "True")) {
			r = cJSON_CreateTrue();
		} else if (word(p, "False")) {
			r = cJSON_CreateFalse();
		} else if (word(p, "None") || word(p, "inf") ||
			   word(p, "nan")) {
			/* repr(float('inf')) is inf: JSON has no such number */
			r = cJSON_CreateNull();
		} else if (*p->s == '-' || *p->s == '+' || *p->s == '.' ||
			   isdigit((unsigned char)*p->s)) {
			char buf[64];
			size_t n = 0;
			char *end;
			double d;

			while (p->s < p->e && n < sizeof(buf) - 1 &&
			       (isalnum((unsigned char)*p->s) || *p->s == '.' ||
				*p->s == '-' || *p->s == '+' || *p->s == '_'))
				if (*p->s++ != '_')
					buf[n++] = p->s[-1];
			buf[n] = 0;
			d = strtod(buf, &end);
			if (n && *end == 0)
				r = isfinite(d) ? cJSON_CreateNumber(d) :
						  cJSON_CreateNull(); /* -inf, 1e999 */
		} else {
			char *s = py_string(p);

			if (s) {
				r = cJSON_CreateString(s);
				free(s);
			}
		}
	}
	p->depth--;
	return r;
}

cJSON *kt_impx_pylit(const char *s, size_t len)
{
	pyp p;
	cJSON *v;

	if (!s)
		return NULL;
	p.s = s;
	p.e = s + len;
	p.depth = 0;
	v = py_value(&p);
	if (!v)
		return NULL;
	py_ws(&p);
	if (p.s != p.e) {
		cJSON_Delete(v);
		return NULL;
	}
	return v;
}

cJSON *kt_impx_parse_lenient(const char *s, int *rc)
{
	cJSON *v;
	int prc;

	if (rc)
		*rc = KT_EPARSE;
	if (!s)
		return NULL;
	v = kt_cjson_parse(s, strlen(s), NULL, &prc);
	if (!v && prc != KT_ENOMEM)
		v = kt_impx_pylit(s, strlen(s));
	if (rc)
		*rc = v ? 0 : prc == KT_ENOMEM ? KT_ENOMEM : KT_EPARSE;
	return v;
}

cJSON *kt_impx_args(const cJSON *v)
{
	cJSON *o, *d;
	int rc;

	if (!v || cJSON_IsNull(v))
		return cJSON_CreateObject();
	if (cJSON_IsObject(v))
		return cJSON_Duplicate(v, 1);
	if (cJSON_IsString(v)) {
		d = kt_impx_parse_lenient(v->valuestring, &rc);
		if (rc == KT_ENOMEM)
			return NULL;
		if (d && cJSON_IsObject(d))
			return d;
		o = cJSON_CreateObject();
		if (!o) {
			cJSON_Delete(d);
			return NULL;
		}
		if (d)
			cJSON_AddItemToObject(o, "_value", d);
		else
			cJSON_AddStringToObject(o, "_raw", v->valuestring);
		return o;
	}
	o = cJSON_CreateObject();
	if (o)
		cJSON_AddItemToObject(o, "_value", cJSON_Duplicate(v, 1));
	return o;
}

/* Whether name is one of known (NULL-terminated; NULL: none is). */
static int known_name(const char *name, const char *const *known)
{
	for (; known && *known; known++)
		if (strcmp(name, *known) == 0)
			return 1;
	return 0;
}

cJSON *kt_impx_extra(const cJSON *o, const char *const *known)
{
	const cJSON *it;
	cJSON *ex = NULL;

	cJSON_ArrayForEach(it, o) {
		if (!it->string || known_name(it->string, known))
			continue;
		if (!ex && !(ex = cJSON_CreateObject()))
			return NULL;
		cJSON_AddItemToObject(ex, it->string, cJSON_Duplicate(it, 1));
	}
	return ex;
}

int kt_impx_keep_extra(cJSON *payload, const cJSON *o, const char *const *known)
{
	const cJSON *it;
	cJSON *ex;

	if (!payload || !cJSON_IsObject(o))
		return 0;
	cJSON_ArrayForEach(it, o) {
		if (!it->string || known_name(it->string, known))
			continue;
		ex = cJSON_GetObjectItemCaseSensitive(payload, "extra");
		if (!ex && !(ex = cJSON_AddObjectToObject(payload, "extra")))
			return KT_ENOMEM;
		if (!cJSON_GetObjectItemCaseSensitive(ex, it->string))
			cJSON_AddItemToObject(ex, it->string,
					      cJSON_Duplicate(it, 1));
	}
	return 0;
}

/* ---- events ------------------------------------------------------------- */

/* Source text may hold invalid UTF-8 (truncated or binary tool output):
 * every string of a payload is made valid (U+FFFD) before it is stored,
 * so JSON readers of `log --json` and exports never choke on it. */
static int fix_utf8(cJSON *n, int depth)
{
	cJSON *c;

	if (depth > 200)
		return 0;
	if (cJSON_IsString(n) && n->valuestring &&
	    !kt_utf8_valid(n->valuestring, strlen(n->valuestring), NULL)) {
		char *f = kt_utf8_fix(n->valuestring, strlen(n->valuestring),
				      KT_UTF8_DROP_NUL, NULL, NULL);

		if (!f)
			return KT_ENOMEM;
		if (!cJSON_SetValuestring(n, f)) {
			free(f);
			return KT_ENOMEM;
		}
		free(f);
	}
	if (n->string && !kt_utf8_valid(n->string, strlen(n->string), NULL) &&
	    !(n->type & cJSON_StringIsConst)) {
		char *f = kt_utf8_fix(n->string, strlen(n->string),
				      KT_UTF8_DROP_NUL, NULL, NULL);

		if (!f)
			return KT_ENOMEM;
		cJSON_free(n->string);
		n->string = cJSON_malloc(strlen(f) + 1);
		if (!n->string) {
			free(f);
			return KT_ENOMEM;
		}
		strcpy(n->string, f);
		free(f);
	}
	for (c = n->child; c; c = c->next)
		if (fix_utf8(c, depth + 1))
			return KT_ENOMEM;
	return 0;
}

int kt_impx_emit_valid(kt_imp *imp, const kt_file *f, int kind,
		       uint64_t parent, int64_t ts, const char *actor,
		       cJSON *payload, uint64_t line, uint64_t off, uint64_t len,
		       uint64_t *seq)
{
	if (!payload)
		return KT_ENOMEM;
	if (fix_utf8(payload, 0)) {
		cJSON_Delete(payload);
		return KT_ENOMEM;
	}
	return kt_impx_emit(imp, kind, parent, ts, actor ? actor : "agent",
			    payload, f, line, off, len, seq);
}

cJSON *kt_impx_msg(const char *role, int human, const char *text,
		 const char *flags)
{
	cJSON *m = cJSON_CreateObject(), *fl;

	if (!m)
		return NULL;
	cJSON_AddStringToObject(m, "role", role);
	cJSON_AddBoolToObject(m, "human", human ? 1 : 0);
	cJSON_AddStringToObject(m, "text", text ? text : "");
	if (flags && *flags && (fl = cJSON_AddArrayToObject(m, "flags"))) {
		const char *s = flags;

		while (*s) {
			const char *c = strchr(s, ',');
			size_t n = c ? (size_t)(c - s) : strlen(s);
			char buf[64];

			if (n >= sizeof(buf))
				n = sizeof(buf) - 1;
			memcpy(buf, s, n);
			buf[n] = 0;
			cJSON_AddItemToArray(fl, cJSON_CreateString(buf));
			s += n + (c ? 1 : 0);
		}
	}
	return m;
}

char *kt_impx_content_text(const cJSON *content)
{
	const cJSON *it;
	struct kt_buf b = { 0 };
	int any = 0;

	if (cJSON_IsString(content))
		return strdup(content->valuestring);
	if (!cJSON_IsArray(content))
		return NULL;
	cJSON_ArrayForEach(it, content) {
		const char *t = cJSON_IsString(it) ? it->valuestring :
				kt_json_str(it, "text");

		if (!t)
			continue;
		if (b.len)
			kt_buf_putc(&b, '\n');
		kt_buf_puts(&b, t);
		any = 1;
	}
	/* NULL when no part has text (or out of memory) */
	return any ? kt_buf_take(&b) : NULL;
}

int kt_impx_exit_code(const char *out, int *rc)
{
	const char *p;
	cJSON *j, *md, *ec;
	int v = -1, prc = 0;

	if (rc)
		*rc = 0;
	if (!out)
		return -1;
	if ((p = strstr(out, "Process exited with code ")))
		return atoi(p + strlen("Process exited with code "));
	if ((p = strstr(out, "<returncode>")))
		return atoi(p + strlen("<returncode>"));
	if (strncmp(out, "Exit code: ", 11) == 0)
		return atoi(out + 11);
	if ((p = strstr(out, "\nExit code: ")))
		return atoi(p + 12);
	if (strncmp(out, "Exit code ", 10) == 0 &&
	    isdigit((unsigned char)out[10]))
		return atoi(out + 10);
	while (*out == ' ' || *out == '\n')
		out++;
	if (*out == '{' &&
	    (j = kt_cjson_parse(out, strlen(out), NULL, &prc))) {
		md = cJSON_GetObjectItemCaseSensitive(j, "metadata");
		ec = cJSON_GetObjectItemCaseSensitive(md, "exit_code");
		if (cJSON_IsNumber(ec))
			v = ec->valueint;
		cJSON_Delete(j);
	} else if (*out == '{' && prc == KT_ENOMEM && rc) {
		*rc = KT_ENOMEM;
	}
	return v;
}

int kt_impx_set_output(kt_imp *imp, cJSON *payload, const char *out)
{
	return kt_impx_text(imp, payload, "output", "output_blob", out,
			    out ? strlen(out) : 0);
}

/* ---- tool effects --------------------------------------------------------- */
static int name_in(const char *n, const char *const *list)
{
	for (; *list; list++)
		if (strcasecmp(n, *list) == 0)
			return 1;
	return 0;
}

static const char *const SHELL_TOOLS[] = {
	"bash", "shell", "execute_bash", "exec_command", "run", "bash_command",
	"run_command", "run_shell_command", "shell_command", "local_shell",
	"execute_command", "terminal", "run_terminal_cmd", "cmd", NULL
};
static const char *const WRITE_TOOLS[] = {
	"write", "write_file", "create_file", "writefile", "create", NULL
};
static const char *const EDIT_TOOLS[] = {
	"edit", "replace", "edit_file", "search_replace", NULL
};
static const char *const EDITOR_TOOLS[] = {
	"str_replace_editor", "file_editor", "str_replace_based_edit_tool",
	"text_editor", "edit_tool", NULL
};

/* SWE-agent's own command language and read-only file tools: never shell
 * commands, whatever their args.command says. */
static const char *const NOT_SHELL_TOOLS[] = {
	"open", "goto", "scroll_up", "scroll_down", "create", "edit", "insert",
	"submit", "find_file", "search_file", "search_dir", "filemap",
	"exit_forfeit", "exit_cost", "exit_context", "exit_error",
	"exit_format", "skip", "read", "read_file", "view", "view_file",
	"multiedit", "finish", "think", NULL
};

int kt_tool_is_shell(const char *tool, const cJSON *args)
{
	const char *c = kt_json_str(args, "command");

	if (!tool)
		return 0;
	if (name_in(tool, EDITOR_TOOLS) || name_in(tool, WRITE_TOOLS) ||
	    name_in(tool, EDIT_TOOLS) || name_in(tool, NOT_SHELL_TOOLS) ||
	    !strcasecmp(tool, "edit_file"))
		return 0;
	/* an editor by its arguments, whatever its name */
	if (c && (kt_json_str(args, "path") || kt_json_str(args, "file_path")) &&
	    (!strcmp(c, "view") || !strcmp(c, "create") ||
	     !strcmp(c, "str_replace") || !strcmp(c, "insert") ||
	     !strcmp(c, "undo_edit")))
		return 0;
	if (name_in(tool, SHELL_TOOLS) || !strcasecmp(tool, "bash_session"))
		return 1;
	/* a tool we do not know that carries a command line */
	return c || cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(args,
								   "command")) ||
	       kt_json_str(args, "cmd");
}

char *kt_impx_shell_cmd(const cJSON *args)
{
	const cJSON *c;
	const char *s;

	if (!args)
		return NULL;
	c = cJSON_GetObjectItemCaseSensitive(args, "command");
	if (!c)
		c = cJSON_GetObjectItemCaseSensitive(args, "cmd");
	if (cJSON_IsArray(c)) {
		/* argv: ["bash","-lc","script"] runs the script */
		int n = cJSON_GetArraySize(c), i;
		const cJSON *last = cJSON_GetArrayItem(c, n - 1);
		struct kt_buf b = { 0 };
		int any = 0;

		if (n >= 3 && cJSON_IsString(cJSON_GetArrayItem(c, 1)) &&
		    strstr(cJSON_GetArrayItem(c, 1)->valuestring, "c") &&
		    cJSON_GetArrayItem(c, 1)->valuestring[0] == '-' &&
		    cJSON_IsString(last))
			return strdup(last->valuestring);
		for (i = 0; i < n; i++) {
			const cJSON *a = cJSON_GetArrayItem(c, i);

			if (!cJSON_IsString(a))
				continue;
			if (b.len)
				kt_buf_putc(&b, ' ');
			kt_buf_puts(&b, a->valuestring);
			any = 1;
		}
		return any ? kt_buf_take(&b) : NULL;
	}
	if (cJSON_IsString(c))
		return strdup(c->valuestring);
	if ((s = kt_json_str(args, "keystrokes"))) {
		/* terminus: keystrokes end with the Enter key */
		char *r = strdup(s);
		size_t n;

		if (r) {
			n = strlen(r);
			while (n && (r[n - 1] == '\n' || r[n - 1] == '\r'))
				r[--n] = 0;
		}
		return r;
	}
	return NULL;
}

/* From offset pos of b (n bytes), past whole lines (the last may lack its
 * newline) while *l, the number of the line at pos, is below stop; the
 * offset reached, *l counted on. */
static size_t skip_lines(const char *b, size_t n, size_t pos, long *l,
			 long stop)
{
	while (*l < stop && pos < n) {
		const char *nl = memchr(b + pos, '\n', n - pos);

		pos = nl ? (size_t)(nl - b) + 1 : n;
		(*l)++;
	}
	return pos;
}

/* Write path as base[0..a) (blen bytes in all), a newline when nl_head,
 * text, a newline when nl_text, then base[b..blen): the editors' insert
 * and line replacement.  kt_ws_write's result, or KT_ENOMEM. */
static int ws_splice(kt_imp *imp, const char *path, const char *base,
		     size_t blen, size_t a, size_t b, const char *text,
		     int nl_head, int nl_text, uint64_t call, const char *tool)
{
	size_t tl = strlen(text), n = a;
	char *nb = malloc(blen + tl + 3);
	int rc;

	if (!nb)
		return KT_ENOMEM;
	memcpy(nb, base, a);
	if (nl_head)
		nb[n++] = '\n';
	memcpy(nb + n, text, tl);
	n += tl;
	if (nl_text)
		nb[n++] = '\n';
	memcpy(nb + n, base + b, blen - b);
	n += blen - b;
	nb[n] = 0;
	rc = kt_ws_write(imp, path, nb, n, call, tool);
	free(nb);
	return rc;
}

/* Insert text after line `after` (0 = at the top), as the OpenHands and
 * Anthropic editors do; the inserted text gets a final newline. */
static int ws_insert(kt_imp *imp, const char *path, long after,
		     const char *text, uint64_t call, const char *tool)
{
	size_t blen = 0, tl = strlen(text), pos = 0;
	const char *base = kt_ws_get(imp, path, &blen);
	long l = 0;

	if (!base || after < 0)
		return KT_ENOTFOUND;
	pos = skip_lines(base, blen, pos, &l, after);
	return ws_splice(imp, path, base, blen, pos, pos, text,
			 pos && base[pos - 1] != '\n',
			 !tl || text[tl - 1] != '\n', call, tool);
}

static int do_replace(kt_imp *imp, const char *path, const cJSON *o,
		      uint64_t call, const char *tool)
{
	const char *os = kt_impx_str2(o, "old_string", "old_str");
	const char *ns = kt_impx_str2(o, "new_string", "new_str");
	const cJSON *all = cJSON_GetObjectItemCaseSensitive(o, "replace_all");
	int rc;

	/* Pi's edit tool (pi-mono coding-agent tools/edit.ts) */
	if (!os) {
		os = kt_json_str(o, "oldText");
		ns = kt_json_str(o, "newText");
	}

	if (!os)
		return 0;
	rc = kt_ws_replace(imp, path, os, ns ? ns : "", cJSON_IsTrue(all),
			   call, tool);
	/* the tool changed the file, but not from content we know: what it
	 * holds now is unknown, not what we believed */
	return rc == KT_ENOTFOUND ? kt_ws_invalidate(imp, path, call, tool)
				  : rc;
}

/* ---- Claude Code's file tools -------------------------------------------- */
/* Apply (old -> new) once or everywhere to buf; 0 on success.  An empty
 * old names the whole of an empty file (a Write-like first edit). */
static int str_apply(char **buf, size_t *len, const char *o, const char *nw,
		     int all)
{
	size_t w;
	char *out;

	if (!*o) {
		if (*len)
			return -1;
		w = strlen(nw);
		out = strdup(nw);
	} else {
		out = kt_str_replace(*buf, *len, o, strlen(o), nw, strlen(nw),
				     all, &w);
	}
	if (!out)
		return -1;
	free(*buf);
	*buf = out;
	*len = w;
	return 0;
}

/* Member k of o when o is an object and k a string there, else NULL. */
static const char *ostr(const cJSON *o, const char *k)
{
	return cJSON_IsObject(o) ? kt_json_str(o, k) : NULL;
}

int kt_impx_cc_edit(kt_imp *imp, const char *tool, const cJSON *args,
		    const cJSON *res, const char *path, uint64_t call)
{
	const char *cur;
	char *buf = NULL;
	size_t len = 0;
	int rc = 0;

	if (!tool || (strcmp(tool, "Write") && strcmp(tool, "Edit") &&
		      strcmp(tool, "MultiEdit")))
		return 0;
	if (!path)
		return 1;
	if (!strcmp(tool, "Write")) {
		const char *c = ostr(args, "content");

		if (!c)
			c = ostr(res, "content");
		if (c)
			rc = kt_ws_write(imp, path, c, strlen(c), call, "Write");
		return rc < 0 ? rc : 1;
	}
	cur = kt_ws_get(imp, path, &len);
	buf = cur ? kt_memdupz(cur, len) : strdup("");
	if (!cur)
		len = 0;
	if (!buf)
		return KT_ENOMEM;
	if (!strcmp(tool, "Edit")) {
		const char *o = ostr(args, "old_string");
		const char *n = ostr(args, "new_string");
		int all = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
			args, "replace_all"));

		if (!o)
			o = ostr(res, "oldString");
		if (!n)
			n = ostr(res, "newString");
		if (!o || !n)
			goto out;
		/* the edit succeeded on content we do not know (no Read
		 * before it, originalFile null) or not as we believed it:
		 * still an edit, of unknown result, its hunk kept */
		if ((!cur && *o) || str_apply(&buf, &len, o, n, all)) {
			rc = kt_ws_edit_unknown(imp, path, o, n, all, call,
						tool);
			goto out;
		}
	} else {
		const cJSON *edits = cJSON_GetObjectItemCaseSensitive(args,
								      "edits");
		const cJSON *e;

		if (!cJSON_IsArray(edits) || (!cur && cJSON_GetArraySize(edits) &&
		    ostr(cJSON_GetArrayItem(edits, 0), "old_string") &&
		    *ostr(cJSON_GetArrayItem(edits, 0), "old_string")))
			goto out;
		cJSON_ArrayForEach(e, edits) {
			const char *o = ostr(e, "old_string");
			const char *n = ostr(e, "new_string");

			if (!o || !n || str_apply(&buf, &len, o, n,
				cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
					e, "replace_all"))))
				goto out;
		}
	}
	rc = kt_ws_write(imp, path, buf, len, call, tool);
out:
	free(buf);
	return rc < 0 ? rc : 1;
}

int kt_impx_cc_read(kt_imp *imp, const cJSON *args, const char *path,
		    const char *out, cJSON *payload)
{
	const char *p;

	if (!path || !out || !*out)
		return 0;
	/* a part of the file, or a listing whose line numbers, cut long
	 * lines and final newline no longer show the bytes */
	if (cJSON_GetObjectItemCaseSensitive(args, "offset") ||
	    cJSON_GetObjectItemCaseSensitive(args, "limit") ||
	    strstr(out, "<system-reminder>"))
		return 0;
	for (p = out; *p == ' '; p++)
		;
	if (*p == '1' && (p[1] == '\t' || !strncmp(p + 1, "\xe2\x86\x92", 3)))
		return 0;
	return kt_ws_observe(imp, path, out, strlen(out), payload);
}

/* Codex's apply_patch, as a Codex import applies it (codex_patch.h): the
 * patch given to the apply_patch tool (args input, patch, or a string that
 * is not JSON), or to a shell as `apply_patch <<'EOF'` or argv.  1 when
 * there was a patch (applied only when ok; one that does not parse changes
 * nothing: the Codex import counts and warns those), 0 when none, or
 * KT_E*. */
static int patch_effects(kt_imp *imp, const char *tool, const cJSON *args,
			 const char *cmd, const char *cwd, uint64_t call,
			 int ok)
{
	const char *in = NULL, *ps;
	size_t plen;
	kt_cpatch *pt = NULL;
	int rc;

	if (!strcasecmp(tool, "apply_patch") || !strcasecmp(tool, "applypatch")) {
		in = kt_impx_str2(args, "input", "patch");
		if (!in)
			in = kt_json_str(args, "_raw");
	} else if (cmd && (strstr(cmd, "apply_patch") ||
			   strstr(cmd, "applypatch"))) {
		in = cmd;
	}
	if (!in || !kt_cpatch_find(in, strlen(in), &ps, &plen))
		return 0;
	if (!ok)
		return 1; /* a failed patch changes nothing */
	rc = kt_cpatch_parse(ps, plen, &pt, NULL, 0);
	if (rc == KT_EPARSE || rc == KT_ELIMIT)
		return 1;
	if (!rc)
		rc = kt_cpatch_apply_ws(imp, pt, cwd, call, "apply_patch",
					NULL, NULL);
	kt_cpatch_free(pt);
	return rc < 0 ? rc : 1;
}

cJSON *kt_impx_ipython_args(const char *code)
{
	const char *s = code ? strstr(code, "(**{") : NULL, *e;

	if (!s)
		return NULL;
	s += 3;
	e = strrchr(s, '}');
	if (!e)
		return NULL;
	return kt_impx_pylit(s, (size_t)(e - s) + 1);
}

cJSON *kt_impx_opencode_args(const cJSON *in)
{
	static const char *const map[][2] = {
		{ "filePath", "file_path" }, { "oldString", "old_string" },
		{ "newString", "new_string" }, { "replaceAll", "replace_all" },
		{ NULL, NULL }
	};
	cJSON *a = cJSON_IsObject(in) ? cJSON_Duplicate(in, 1) :
		   cJSON_CreateObject(), *e;

	for (int i = 0; a && map[i][0]; i++) {
		cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(a, map[i][0]);

		if (v)
			cJSON_AddItemToObject(a, map[i][1], v);
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(a, "edits"))
		for (int i = 0; map[i][0]; i++) {
			cJSON *v = cJSON_DetachItemFromObjectCaseSensitive(
				e, map[i][0]);

			if (v)
				cJSON_AddItemToObject(e, map[i][1], v);
		}
	return a;
}

int kt_impx_tool_effects(kt_imp *imp, const char *tool, const cJSON *args,
		       const char *cwd, uint64_t call, uint64_t res,
		       const char *output, int exit_code, int ok, int64_t ts)
{
	const char *p, *cmd;
	char *path = NULL, *sc = NULL;
	int rc = 0, known = 1;

	if (!tool || !args)
		return 0;
	/* Cline's, Aider's and SWE-agent's tools, from their imports or an
	 * export of their runs */
	if ((rc = kt_conv_agent_edit(imp, tool, args, cwd, call, res, output,
				     ok, ts)) ||
	    (rc = kt_impx_swe_effects(imp, tool, args, cwd, call, res, output,
				      exit_code, ok)))
		return rc;
	if (kt_json_str(args, "filePath") && !kt_json_str(args, "file_path")) {
		/* OpenCode's names (an export of an OpenCode run) */
		cJSON *a = kt_impx_opencode_args(args);

		if (!a)
			return KT_ENOMEM;
		rc = kt_impx_tool_effects(imp, tool, a, cwd, call, res, output,
					  exit_code, ok, ts);
		cJSON_Delete(a);
		return rc;
	}
	if (name_in(tool, EDITOR_TOOLS) && !kt_json_str(args, "command") &&
	    kt_json_str(args, "path") &&
	    (kt_json_str(args, "translated_ipython_code") ||
	     (kt_json_str(args, "content") &&
	      cJSON_IsNumber(cJSON_GetObjectItem(args, "start")) &&
	      cJSON_IsNumber(cJSON_GetObjectItem(args, "end"))) ||
	     (!cJSON_GetObjectItem(args, "start") && output &&
	      !strncmp(output, "--- ", 4) && strstr(output, "@@ -0,0 +1")))) {
		/* OpenHands's editor action (an export of an OpenHands run):
		 * its arguments in the Python call, its LLM editor's content
		 * for a line range, or the file a creation diff shows, as
		 * its import reads them (a read has start and end but no
		 * content) */
		if (!ok)
			return 1;
		if (!(path = kt_ws_path(cwd, kt_json_str(args, "path"))))
			return KT_ENOMEM;
		rc = kt_impx_oh_edit(imp, tool, args, cwd, path, call, res,
				     output, ts);
		free(path);
		return rc < 0 ? rc : 1;
	}
	p = kt_json_str(args, "file_path");
	if (!p)
		p = kt_impx_str2(args, "path", "filename");
	if (!p)
		p = kt_json_str(args, "file");
	if (name_in(tool, SHELL_TOOLS)) {
		const char *wd = kt_impx_str2(args, "workdir", "cwd");

		char *dir = NULL;

		if (!wd)
			wd = kt_json_str(args, "working_directory");
		if (!(sc = kt_impx_shell_cmd(args)))
			return 1;
		/* a relative workdir is the session's subfolder (Codex) */
		if (wd && *wd != '/' && cwd && !(dir = kt_ws_path(cwd, wd))) {
			free(sc);
			return KT_ENOMEM;
		}
		if (dir)
			wd = dir;
		/* a patch given to a shell: what the Codex import does */
		rc = patch_effects(imp, tool, args, sc, wd ? wd : cwd, call,
				   ok);
		if (!rc)
			rc = kt_shell_classify(imp, call, res, sc,
					       wd ? wd : cwd,
					       output ? output : "",
					       exit_code, ok, ts);
		free(dir);
		free(sc);
		return rc < 0 ? rc : 1;
	}
	if (!strcasecmp(tool, "apply_patch") ||
	    !strcasecmp(tool, "applypatch")) {
		rc = patch_effects(imp, tool, args, NULL, cwd, call, ok);
		return rc < 0 ? rc : 1;
	}
	if (!p)
		return name_in(tool, WRITE_TOOLS) || name_in(tool, EDIT_TOOLS) ||
		       name_in(tool, EDITOR_TOOLS) ||
		       strcasecmp(tool, "multiedit") == 0;
	if (!ok)
		return 1; /* a failed call changes nothing */
	if (!(path = kt_ws_path(cwd, p)))
		return KT_ENOMEM;
	/* Claude Code's own tools, carried by a viewer export of its
	 * session (STS, OTLP, ATIF): the edits a Claude Code import makes */
	if ((rc = kt_impx_cc_edit(imp, tool, args, NULL, path, call)) ||
	    !strcmp(tool, "Read")) {
		if (!rc)
			rc = kt_impx_cc_read(imp, args, path, output, NULL);
		/* a results file read back: its benchmarks, as the Claude
		 * Code import takes them from the same text */
		if (!rc && !strcmp(tool, "Read") && ok && output)
			rc = kt_imp_bench_file(imp, call, res, path, output,
					       strlen(output), ts);
		free(path);
		return rc < 0 ? rc : 1;
	}
	if (name_in(tool, EDITOR_TOOLS)) {
		cmd = kt_json_str(args, "command");
		if (cmd && strcmp(cmd, "create") == 0) {
			const char *t = kt_impx_str2(args, "file_text", "content");

			if (t)
				rc = kt_ws_write(imp, path, t, strlen(t), call,
						 tool);
		} else if (cmd && strcmp(cmd, "str_replace") == 0) {
			rc = do_replace(imp, path, args, call, tool);
		} else if (cmd && strcmp(cmd, "undo_edit") == 0) {
			/* the tool shows the file after the undo (cat -n);
			 * without it the content is unknown, not the old one */
			char *t = output ? kt_impx_cat_n(output) : NULL;

			rc = t ? kt_ws_write(imp, path, t, strlen(t), call, tool)
			       : kt_ws_invalidate(imp, path, call, tool);
			free(t);
		} else if (cmd && strcmp(cmd, "insert") == 0) {
			const cJSON *ln = cJSON_GetObjectItemCaseSensitive(
				args, "insert_line");
			const char *t = kt_impx_str2(args, "new_str", "text");

			if (cJSON_IsNumber(ln) && t) {
				rc = ws_insert(imp, path, (long)ln->valuedouble,
					       t, call, tool);
				if (rc == KT_ENOTFOUND)
					rc = kt_ws_invalidate(imp, path, call,
							      tool);
			}
		}
	} else if (name_in(tool, WRITE_TOOLS)) {
		const char *t = kt_impx_str2(args, "content", "file_text");

		if (!t)
			t = kt_json_str(args, "text");
		if (t)
			rc = kt_ws_write(imp, path, t, strlen(t), call, tool);
	} else if (name_in(tool, EDIT_TOOLS)) {
		rc = do_replace(imp, path, args, call, tool);
	} else if (strcasecmp(tool, "multiedit") == 0) {
		const cJSON *e, *edits =
			cJSON_GetObjectItemCaseSensitive(args, "edits");

		cJSON_ArrayForEach(e, edits) {
			if ((rc = do_replace(imp, path, e, call, tool)))
				break;
		}
	} else {
		known = 0;
	}
	free(path);
	return rc < 0 ? rc : known;
}

/* The filter of one file's quoted spans (kt_impx_sniff_begin): bit
 * span_hash(s) of every s that lies between two consecutive '"' of the
 * window (a pattern "key" can only match there: key holds no '"'). */
#define SNIFF_BITS 8192u
static _Thread_local struct {
	const unsigned char *buf;
	size_t len;  /* the window: min(file length, KT_SNIFF_WINDOW) */
	uint64_t bits[SNIFF_BITS / 64];
} sniff_f;

static unsigned span_hash(const unsigned char *s, size_t n)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 16777619u;
	return (unsigned)((h ^ (h >> 15) ^ (uint32_t)n * 40503u) &
			  (SNIFF_BITS - 1));
}

void kt_impx_sniff_begin(const unsigned char *buf, size_t len)
{
	const unsigned char *p, *q, *e;

	memset(&sniff_f, 0, sizeof(sniff_f));
	if (!buf)
		return;
	sniff_f.buf = buf;
	sniff_f.len = len < KT_SNIFF_WINDOW ? len : KT_SNIFF_WINDOW;
	e = buf + sniff_f.len;
	p = memchr(buf, '"', sniff_f.len);
	while (p && (q = memchr(p + 1, '"', (size_t)(e - p - 1)))) {
		/* only spans a pattern fits (kt_impx_sniff's pat[128]) */
		if (q - p - 1 <= 125) {
			unsigned b = span_hash(p + 1, (size_t)(q - p - 1));

			sniff_f.bits[b / 64] |= (uint64_t)1 << (b % 64);
		}
		p = q;
	}
}

int kt_impx_span_absent(const unsigned char *buf, size_t n, const char *s,
			size_t sl)
{
	unsigned b;

	if (buf != sniff_f.buf || !buf || n > sniff_f.len || sl > 125 ||
	    memchr(s, '"', sl))
		return 0;
	b = span_hash((const unsigned char *)s, sl);
	return !(sniff_f.bits[b / 64] & ((uint64_t)1 << (b % 64)));
}

void kt_impx_sniff_end(void)
{
	sniff_f.buf = NULL;
	sniff_f.len = 0;
}

int kt_impx_sniff(const unsigned char *buf, size_t n, const char *key,
		const char *val)
{
	char pat[128];
	size_t kl, vl = val ? strlen(val) : 0;
	const unsigned char *p = buf, *e = buf + n;

	if (!buf || strlen(key) + 3 > sizeof(pat))
		return 0;
	if (kt_impx_span_absent(buf, n, key, strlen(key)))
		return 0; /* "key" is nowhere in the window */
	kl = (size_t)snprintf(pat, sizeof(pat), "\"%s\"", key);
	while (p < e) {
		const unsigned char *h = memmem(p, (size_t)(e - p), pat, kl);
		const unsigned char *q;

		if (!h)
			return 0;
		q = h + kl;
		while (q < e && (*q == ' ' || *q == '\t' || *q == '\n' ||
				 *q == '\r'))
			q++;
		if (q < e && *q == ':') {
			if (!val)
				return 1;
			q++;
			while (q < e && (*q == ' ' || *q == '\t' || *q == '\n' ||
					 *q == '\r'))
				q++;
			if ((size_t)(e - q) >= vl + 2 && *q == '"' &&
			    memcmp(q + 1, val, vl) == 0 && q[vl + 1] == '"')
				return 1;
		}
		p = h + 1;
	}
	return 0;
}

/* "Here's the result of running `cat -n` on P:\n     1\tline\n..." as the
 * whole file, or NULL. */
char *kt_impx_cat_n(const char *out)
{
	const char *p = strstr(out, "`cat -n` on ");
	char *buf;
	size_t n = 0;
	long k = 1;

	if (!p || !(p = strchr(p, '\n')))
		return NULL;
	if (strstr(p, "<response clipped>") || strstr(p, "[... "))
		return NULL;
	if (!(buf = malloc(strlen(p) + 1)))
		return NULL;
	p++;
	while (*p) {
		const char *le = strchr(p, '\n'), *q = p;
		char *endp;
		long num;
		size_t ln;

		if (!le)
			le = p + strlen(p);
		while (*q == ' ')
			q++;
		num = strtol(q, &endp, 10);
		if (endp == q || *endp != '\t' || num != k) {
			if (le == p || (*p == '\n'))
				break; /* trailing blank line */
			free(buf);
			return NULL;
		}
		ln = (size_t)(le - endp - 1);
		memcpy(buf + n, endp + 1, ln);
		n += ln;
		buf[n++] = '\n';
		k++;
		if (!*le)
			break;
		p = le + 1;
	}
	buf[n] = 0;
	if (k == 1) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ---- raw spans of array elements ------------------------------------------ */
static size_t sp_ws(const char *b, size_t n, size_t i)
{
	while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' ||
			 b[i] == '\r'))
		i++;
	return i;
}

/* Index past the JSON value starting at i (no validation), or n. */
static size_t sp_skip(const char *b, size_t n, size_t i)
{
	size_t depth = 0;

	if (i >= n)
		return n;
	if (b[i] != '{' && b[i] != '[' && b[i] != '"') {
		while (i < n && b[i] != ',' && b[i] != '}' && b[i] != ']' &&
		       b[i] != ' ' && b[i] != '\n' && b[i] != '\r' &&
		       b[i] != '\t')
			i++;
		return i;
	}
	while (i < n) {
		char c = b[i];

		if (c == '"') {
			i++;
			while (i < n && b[i] != '"') {
				if (b[i] == '\\')
					i++;
				i++;
			}
			i++;
			if (depth == 0)
				return i > n ? n : i;
			continue;
		}
		if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && depth && --depth == 0)
			return i + 1;
		i++;
	}
	return n;
}

long kt_impx_spans(const char *b, size_t n, const char *key, kt_impx_span **out)
{
	size_t i = sp_ws(b, n, 0), cap = 0, ln_pos = 0;
	uint64_t line = 1;
	kt_impx_span *v = NULL;
	long cnt = 0;

	*out = NULL;
	if (!b)
		return -1;
	if (key) {
		size_t kl = strlen(key);

		if (i >= n || b[i] != '{')
			return -1;
		i++;
		for (;;) {
			size_t ks, ke;

			i = sp_ws(b, n, i);
			if (i >= n || b[i] != '"')
				return -1;
			ks = i + 1;
			i = sp_skip(b, n, i);
			ke = i - 1;
			i = sp_ws(b, n, i);
			if (i >= n || b[i] != ':')
				return -1;
			i = sp_ws(b, n, i + 1);
			if (ke >= ks && ke - ks == kl &&
			    memcmp(b + ks, key, kl) == 0)
				break;
			i = sp_ws(b, n, sp_skip(b, n, i));
			if (i >= n || b[i] != ',')
				return -1;
			i++;
		}
	}
	if (i >= n || b[i] != '[')
		return -1;
	i++;
	for (;;) {
		size_t s;

		i = sp_ws(b, n, i);
		if (i >= n)
			break;
		if (b[i] == ']')
			break;
		s = i;
		i = sp_skip(b, n, i);
		if ((size_t)cnt == cap) {
			size_t nc = cap ? cap * 2 : 64;
			kt_impx_span *nv = realloc(v, nc * sizeof(*nv));

			if (!nv) {
				free(v);
				return -1;
			}
			v = nv;
			cap = nc;
		}
		while (ln_pos < s) {
			const char *nl = memchr(b + ln_pos, '\n', s - ln_pos);

			if (!nl) {
				ln_pos = s;
				break;
			}
			line++;
			ln_pos = (size_t)(nl - b) + 1;
		}
		v[cnt].off = s;
		v[cnt].len = i - s;
		v[cnt].line = line;
		cnt++;
		i = sp_ws(b, n, i);
		if (i < n && b[i] == ',')
			i++;
		else
			break;
	}
	*out = v;
	return cnt;
}

kt_impx_span kt_impx_span_at(const kt_impx_span *s, long n, long i)
{
	kt_impx_span z = { 0, 0, 0 };

	return (s && i >= 0 && i < n) ? s[i] : z;
}

int kt_impx_replace_lines(kt_imp *imp, const char *path, long s, long e,
			const char *text, unsigned flags, uint64_t call,
			const char *tool)
{
	size_t blen = 0, a = 0, b, tl;
	const char *base = kt_ws_get(imp, path, &blen);
	long l = 1;

	if (!base || !text || s < 1 || (e != -1 && e < s - 1))
		return KT_ENOTFOUND;
	tl = strlen(text);
	a = skip_lines(base, blen, a, &l, s);
	/* starts past the end: we cannot tell what the editor did */
	if (l < s && (flags & KT_IMPX_LINES_IN_FILE))
		return KT_ENOTFOUND;
	b = skip_lines(base, blen, a, &l,
		       e == -1 || e == LONG_MAX ? LONG_MAX : e + 1);
	return ws_splice(imp, path, base, blen, a, b, text, 0,
			 tl && text[tl - 1] != '\n' &&
			 (b < blen || (flags & KT_IMPX_LINES_NL_END)),
			 call, tool);
}
