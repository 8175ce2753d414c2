/*
 * redact.c - replace personal data and secrets with stable placeholders
 * before a trajectory is stored or published.
 *
 * What is replaced (import/README.md "Redaction" is the user-facing list):
 *   secrets   private key blocks, provider tokens by their documented
 *             prefixes (AWS AKIA/ASIA, GitHub ghp_/gho_/ghu_/ghs_/ghr_/
 *             github_pat_, OpenAI/Anthropic sk-, Slack xox?-, Google AIza,
 *             Hugging Face hf_, GitLab glpat-, JWTs), "Bearer <token>", and
 *             the value of key=value / key: value assignments whose key ends
 *             in password, secret, token, api_key, access_key, ...
 *   e-mails   local@domain.tld
 *   users     the <user> of /home/<user>, /Users/<user>, C:\Users\<user>,
 *             and of user@host in shell prompts and ssh/scp targets; a
 *             learned name is then replaced wherever it appears as a word
 *   hosts     the host of user@host, and dotted host names whose top-level
 *             domain is a real one unless the domain is a well-known public
 *             one (github.com, nvidia.com, pytorch.org, ...)
 * Placeholders are "<email-N>", "<user-N>", "<host-N>", "<secret-N>"; the
 * same value always gets the same placeholder within one kt_redactor.
 *
 * Prefix formats: GitHub "Behind GitHub's new authentication token formats"
 * (github.blog, 2021-04-05); AWS IAM identifiers (docs.aws.amazon.com/IAM/
 * latest/UserGuide/reference_identifiers.html, "AKIA"/"ASIA"); Slack token
 * types (api.slack.com/authentication/token-types); PEM (RFC 7468).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "import.h"

enum { C_EMAIL, C_USER, C_HOST, C_SECRET, C_N };
static const char *const cls_name[C_N] = { "email", "user", "host", "secret" };

struct kt_redactor {
	kt_strmap ph;   /* class digit + value (key_of) -> "<user-3>" */
	struct kt_buf key; /* key_of's, reused */
	unsigned cnt[C_N];
	char **words;   /* learned user and host names, replaced everywhere */
	size_t nwords, capwords;
};

/* The passes write into a kt_buf; out is NULL when a pass only learns
 * names, and an empty piece allocates nothing. */
static void sb_put(struct kt_buf *b, const char *s, size_t n)
{
	if (b && n)
		kt_buf_add(b, s, n);
}

static void sb_puts(struct kt_buf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

kt_redactor *kt_redactor_new(void)
{
	return calloc(1, sizeof(kt_redactor));
}

void kt_redactor_free(kt_redactor *r)
{
	size_t i;

	if (!r)
		return;
	kt_strmap_free(&r->ph, free);
	kt_buf_free(&r->key);
	for (i = 0; i < r->nwords; i++)
		free(r->words[i]);
	free(r->words);
	free(r);
}

/* The map key of (cls, the n bytes at v): the class digit, then v with
 * its NUL and \x01 bytes written as \x01 followed by '0' or '1', so that
 * distinct values stay distinct keys of the NUL-terminated map (a PEM block
 * in a blob may hold a NUL).  NULL when out of memory. */
static const char *key_of(kt_redactor *r, int cls, const char *v, size_t n)
{
	struct kt_buf *k = &r->key;
	size_t i, j;

	kt_buf_reset(k);
	kt_buf_putc(k, '0' + cls);
	for (i = 0; i < n; i = j + 1) {
		for (j = i; j < n && v[j] != 0 && v[j] != 1; j++)
			;
		kt_buf_add(k, v + i, j - i);
		if (j < n) {
			kt_buf_putc(k, 1);
			kt_buf_putc(k, '0' + v[j]);
		}
	}
	return k->err ? NULL : k->s;
}

/* The placeholder of (cls, value); NULL only when out of memory. */
static const char *placeholder(kt_redactor *r, int cls, const char *v,
			       size_t n)
{
	const char *key;
	void **ph;
	char buf[48];

	if (!r || !(key = key_of(r, cls, v, n)) ||
	    !(ph = kt_strmap_slot(&r->ph, key, 1)))
		return NULL;
	if (!*ph) {
		/* numbered in order of first sight, per class */
		snprintf(buf, sizeof(buf), "<%s-%u>", cls_name[cls],
			 r->cnt[cls] + 1);
		if (!(*ph = strdup(buf)))
			return NULL;
		r->cnt[cls]++;
	}
	return *ph;
}

static void put_ph(kt_redactor *r, struct kt_buf *out, int cls, const char *v,
		   size_t n)
{
	const char *p = placeholder(r, cls, v, n);

	if (!p) {
		if (out)
			out->err = KT_ENOMEM;
		return;
	}
	sb_puts(out, p);
}

/* ---- character classes -------------------------------------------------- */
static int is_alnum(int c) { return isalnum((unsigned char)c); }
static int is_ident(int c) { return is_alnum(c) || c == '_' || c == '-'; }
static int is_b64(int c)
{
	return is_alnum(c) || c == '_' || c == '-' || c == '+' || c == '/' ||
	       c == '=' || c == '.' || c == '~';
}

static size_t span(const char *s, size_t i, size_t n, int (*f)(int))
{
	size_t j = i;

	while (j < n && f(s[j]))
		j++;
	return j - i;
}

static int ci_prefix(const char *s, size_t n, const char *p)
{
	size_t k = strlen(p);

	return n >= k && !strncasecmp(s, p, k);
}

/* ---- learned names ------------------------------------------------------ */
/* Names too common to be replaced everywhere (they stay redacted inside the
 * path or prompt where they were found). */
static const char *const generic_names[] = {
	"root", "user", "users", "ubuntu", "runner", "admin", "administrator",
	"home", "shared", "public", "default", "guest", "dev", "app", "apps",
	"vscode", "coder", "jovyan", "node", "work", "workspace", "ec2-user",
	"centos", "debian", "fedora", "docker", "build", "test", "tmp",
	"local", "localhost", "host", "email", "secret", "runner-admin",
	"git", "nobody", "daemon", "linuxbrew", "codespace", "developer", "ci",
	"data", "src", "opt", "var", "usr", "bin", "lib", "etc", NULL
};

static int generic(const char *s, size_t n)
{
	int i;

	if (n < 3)
		return 1;
	for (i = 0; generic_names[i]; i++)
		if (strlen(generic_names[i]) == n &&
		    !strncasecmp(generic_names[i], s, n))
			return 1;
	return 0;
}

static void learn_word(kt_redactor *r, int cls, const char *s, size_t n)
{
	size_t i;
	char *w;

	if (!r || generic(s, n))
		return;
	for (i = 0; i < r->nwords; i++)
		if (strlen(r->words[i] + 1) == n &&
		    !memcmp(r->words[i] + 1, s, n))
			return;
	if (r->nwords == r->capwords) {
		size_t c = r->capwords ? 2 * r->capwords : 8;
		char **q = realloc(r->words, c * sizeof(*q));

		if (!q)
			return;
		r->words = q;
		r->capwords = c;
	}
	w = malloc(n + 2);
	if (!w)
		return;
	w[0] = (char)cls;
	memcpy(w + 1, s, n);
	w[n + 1] = 0;
	r->words[r->nwords++] = w;
	/* the placeholder number follows first sight, not first replacement */
	(void)placeholder(r, cls, s, n);
}

/* ---- secrets ------------------------------------------------------------ */
struct tokpfx {
	const char *pfx;
	int (*cls)(int);
	size_t min, max; /* length of the part after the prefix */
};

static int is_upnum(int c) { return isupper((unsigned char)c) || isdigit((unsigned char)c); }
static int is_alnum_(int c) { return is_alnum(c) || c == '_'; }
static int is_alnumd(int c) { return is_alnum(c) || c == '-'; }
static int is_alnumud(int c) { return is_alnum(c) || c == '_' || c == '-'; }

static const struct tokpfx tokpfx[] = {
	{ "AKIA", is_upnum, 16, 16 },
	{ "ASIA", is_upnum, 16, 16 },
	{ "ghp_", is_alnum_, 20, 255 },
	{ "gho_", is_alnum_, 20, 255 },
	{ "ghu_", is_alnum_, 20, 255 },
	{ "ghs_", is_alnum_, 20, 255 },
	{ "ghr_", is_alnum_, 20, 255 },
	{ "github_pat_", is_alnum_, 20, 255 },
	{ "sk-", is_alnumud, 20, 400 },
	{ "xoxb-", is_alnumd, 10, 400 },
	{ "xoxp-", is_alnumd, 10, 400 },
	{ "xoxa-", is_alnumd, 10, 400 },
	{ "xoxr-", is_alnumd, 10, 400 },
	{ "xoxs-", is_alnumd, 10, 400 },
	{ "xoxo-", is_alnumd, 10, 400 },
	{ "xapp-", is_alnumd, 10, 400 },
	{ "AIza", is_alnumud, 30, 60 },
	{ "hf_", is_alnum, 30, 80 },
	{ "glpat-", is_alnumud, 20, 80 },
	{ "npm_", is_alnum, 30, 60 },
	{ NULL, NULL, 0, 0 }
};

/* Key names whose value is a secret: the whole key, or its last _/- part(s). */
static const char *const secret_keys[] = {
	"password", "passwd", "passphrase", "secret", "client_secret",
	"secret_key", "token", "access_token", "refresh_token", "auth_token",
	"api_token", "id_token", "bearer_token", "session_token", "apikey",
	"api_key", "api-key", "access_key", "private_key", "credentials",
	"credential", "authorization", "auth", "cookie", "signing_key",
	"encryption_key", "master_key", NULL
};

static int secret_key(const char *s, size_t n)
{
	int i;

	/* JSON keys arrive as "x" and CLI flags as --x */
	while (n && (*s == '-' || *s == '"'))
		s++, n--;
	for (i = 0; secret_keys[i]; i++) {
		size_t k = strlen(secret_keys[i]);

		if (n < k || strncasecmp(s + n - k, secret_keys[i], k))
			continue;
		if (n == k || s[n - k - 1] == '_' || s[n - k - 1] == '-' ||
		    s[n - k - 1] == '.')
			return 1;
	}
	return 0;
}

static const char *const not_secret[] = {
	"true", "false", "null", "none", "nil", "str", "string", "int", "bool",
	"undefined", "required", "optional", "yes", "no", "redacted",
	"hidden", "env", "secret", "password", "token", "bytes", "any",
	"object", "number", NULL
};

/* Whether v[0..n) (the value after a secret key) should be replaced. */
static int secret_value(const char *v, size_t n, int quoted, int call)
{
	size_t i, digits = 0;
	int ident = 1;

	if (n < 3 || call)
		return 0;
	if (v[0] == '$' || v[0] == '<' || v[0] == '{' || v[0] == '%' ||
	    v[0] == '*' || v[0] == '[')
		return 0;
	for (i = 0; not_secret[i]; i++)
		if (strlen(not_secret[i]) == n && !strncasecmp(not_secret[i], v, n))
			return 0;
	for (i = 0; i < n; i++) {
		if (isdigit((unsigned char)v[i]))
			digits++;
		if (!(is_alnum(v[i]) || v[i] == '_' || v[i] == '.') ||
		    (i == 0 && isdigit((unsigned char)v[i])))
			ident = 0;
	}
	if (digits == n && n < 12)
		return 0;       /* max_token=100, token: 42 */
	if (!quoted && ident && !digits)
		return 0;       /* code: token = self.token, password: str */
	return 1;
}

/*
 * Try a secret at in[i] (a word start).  Returns the number of input bytes
 * consumed (0 = no secret here), after writing the replacement.
 */
static size_t try_secret(kt_redactor *r, struct kt_buf *out, const char *in,
			 size_t i, size_t n)
{
	const struct tokpfx *t;
	size_t k, j;

	/* PEM private keys (RFC 7468) */
	if (in[i] == '-' && n - i > 11 && !memcmp(in + i, "-----BEGIN ", 11)) {
		const char *e = NULL, *q;
		size_t lim = n - i;

		for (q = in + i + 11; q < in + n && *q != '\n'; q++)
			if (q + 16 <= in + n && !memcmp(q, "PRIVATE KEY-----", 16)) {
				e = q;
				break;
			}
		if (e) {
			const char *end = memmem(e, (size_t)(in + n - e),
						 "-----END ", 9);
			size_t stop = lim;

			if (end) {
				const char *z = memmem(end + 9,
					(size_t)(in + n - end - 9), "-----", 5);
				stop = z ? (size_t)(z + 5 - (in + i)) : lim;
			}
			put_ph(r, out, C_SECRET, in + i, stop);
			return stop;
		}
	}
	for (t = tokpfx; t->pfx; t++) {
		size_t pl = strlen(t->pfx);

		if (n - i < pl || memcmp(in + i, t->pfx, pl))
			continue;
		k = span(in, i + pl, n, t->cls);
		if (k < t->min || k > t->max)
			continue;
		put_ph(r, out, C_SECRET, in + i, pl + k);
		return pl + k;
	}
	/* JWT: three base64url parts, the first two JSON objects ("eyJ") */
	if (n - i > 20 && !memcmp(in + i, "eyJ", 3)) {
		size_t a = span(in, i, n, is_alnumud), b, c;

		if (a >= 10 && i + a < n && in[i + a] == '.' &&
		    n - (i + a + 1) > 3 && !memcmp(in + i + a + 1, "eyJ", 3)) {
			b = span(in, i + a + 1, n, is_alnumud);
			if (b >= 10 && i + a + 1 + b < n &&
			    in[i + a + 1 + b] == '.') {
				c = span(in, i + a + 2 + b, n, is_alnumud);
				if (c >= 10) {
					put_ph(r, out, C_SECRET, in + i,
					       a + b + c + 2);
					return a + b + c + 2;
				}
			}
		}
	}
	/* Bearer / Basic <token> */
	if (ci_prefix(in + i, n - i, "bearer ") ||
	    ci_prefix(in + i, n - i, "basic ")) {
		size_t w = in[i + 1] == 'e' || in[i + 1] == 'E' ? 7 : 6;

		j = i + w;
		while (j < n && in[j] == ' ')
			j++;
		k = span(in, j, n, is_b64);
		if (k >= 16) {
			sb_put(out, in + i, j - i);
			put_ph(r, out, C_SECRET, in + j, k);
			return j - i + k;
		}
	}
	/* key = value, key: value, "key": "value", --key=value */
	k = span(in, i, n, is_ident);
	if (k && secret_key(in + i, k)) {
		size_t v, vl, hdr;
		int quoted = 0, call = 0;
		char q = 0;

		j = i + k;
		/* closing quote of a JSON key, maybe escaped (\") */
		if (j < n && in[j] == '\\' && j + 1 < n && in[j + 1] == '"')
			j += 2;
		else if (j < n && (in[j] == '"' || in[j] == '\''))
			j++;
		while (j < n && (in[j] == ' ' || in[j] == '\t'))
			j++;
		if (j >= n || (in[j] != '=' && in[j] != ':'))
			goto no;
		j++;
		if (j < n && in[j] == '=')
			j++;    /* == is a comparison, not an assignment */
		else {
			while (j < n && (in[j] == ' ' || in[j] == '\t'))
				j++;
		}
		if (j > 0 && in[j - 1] == '=' && j >= 2 && in[j - 2] == '=')
			goto no;
		/* "Authorization: Bearer x" is handled at the scheme word */
		if (ci_prefix(in + j, n - j, "bearer ") ||
		    ci_prefix(in + j, n - j, "basic ")) {
			sb_put(out, in + i, j - i);
			return j - i;
		}
		v = j;
		if (v + 1 < n && in[v] == '\\' && in[v + 1] == '"') {
			q = '"';
			v += 2;
			quoted = 2;
		} else if (v < n && (in[v] == '"' || in[v] == '\'')) {
			q = in[v++];
			quoted = 1;
		}
		vl = 0;
		if (quoted) {
			while (v + vl < n && in[v + vl] != q &&
			       in[v + vl] != '\n' && vl < 4096) {
				if (quoted == 2 && in[v + vl] == '\\')
					break;
				if (quoted == 1 && in[v + vl] == '\\' &&
				    v + vl + 1 < n)
					vl++;
				vl++;
			}
		} else {
			while (v + vl < n && vl < 4096) {
				char c = in[v + vl];

				if (isspace((unsigned char)c) || strchr(",;&|()\"'`<>}]\\", c))
					break;
				vl++;
			}
			call = v + vl < n && in[v + vl] == '(';
		}
		hdr = v - i;
		if (!secret_value(in + v, vl, quoted, call))
			goto no;
		sb_put(out, in + i, hdr);
		put_ph(r, out, C_SECRET, in + v, vl);
		return hdr + vl;
	}
no:
	return 0;
}

static void pass_secrets(kt_redactor *r, const char *in, size_t n,
			 struct kt_buf *out)
{
	size_t i = 0, c;

	while (i < n) {
		if ((i == 0 || !is_alnum_(in[i - 1])) &&
		    (c = try_secret(r, out, in, i, n))) {
			i += c;
			continue;
		}
		/* skip the rest of a word: secrets start at word starts */
		c = is_alnum_(in[i]) ? span(in, i, n, is_alnum_) : 1;
		sb_put(out, in + i, c);
		i += c;
	}
}

/* ---- e-mail ------------------------------------------------------------- */
static int is_local(int c)
{
	return is_alnum(c) || c == '.' || c == '_' || c == '%' || c == '+' ||
	       c == '-';
}
static int is_dom(int c) { return is_alnum(c) || c == '-' || c == '.'; }

/* Length of a domain with a dotted alphabetic TLD at s, or 0. */
static size_t domain_len(const char *s, size_t n, size_t *tld_off)
{
	size_t k = span(s, 0, n, is_dom), t, j;

	while (k && (s[k - 1] == '.' || s[k - 1] == '-'))
		k--;
	if (!k || s[0] == '.' || s[0] == '-')
		return 0;
	for (t = k; t && s[t - 1] != '.'; t--)
		;
	if (!t)
		return 0;
	if (k - t < 2)
		return 0;
	for (j = t; j < k; j++)
		if (!isalpha((unsigned char)s[j]))
			return 0;
	if (tld_off)
		*tld_off = t;
	return k;
}

static const char *const public_git[] = {
	"github.com", "gitlab.com", "bitbucket.org", "ssh.github.com", NULL
};

static void pass_email(kt_redactor *r, const char *in, size_t n,
		       struct kt_buf *out)
{
	size_t i, done = 0;

	for (i = 0; i < n; i++) {
		size_t l, d, g;

		if (in[i] != '@' || i == done)
			continue;
		for (l = i; l > done && is_local(in[l - 1]); l--)
			;
		while (l < i && (in[l] == '.' || in[l] == '-'))
			l++;
		if (l == i)
			continue;
		d = domain_len(in + i + 1, n - i - 1, NULL);
		if (!d)
			continue;
		if (i - l == 3 && !memcmp(in + l, "git", 3))
			for (g = 0; public_git[g]; g++)
				if (strlen(public_git[g]) == d &&
				    !strncasecmp(in + i + 1, public_git[g], d))
					goto skip;
		sb_put(out, in + done, l - done);
		put_ph(r, out, C_EMAIL, in + l, i + 1 + d - l);
		done = i + 1 + d;
		i = done - 1;
skip:
		;
	}
	sb_put(out, in + done, n - done);
}

/* ---- home directories --------------------------------------------------- */
static int is_uname(int c)
{
	return is_alnum(c) || c == '.' || c == '_' || c == '-';
}

/* At in[i], the length of a home prefix ("/home/", "C:\\Users\\") or 0. */
static size_t home_prefix(const char *in, size_t i, size_t n)
{
	const char *s = in + i;
	size_t m = n - i, j;

	if (ci_prefix(s, m, "/home/"))
		return 6;
	if (ci_prefix(s, m, "/Users/"))
		return 7;
	/* JSON text may escape the slashes */
	if (ci_prefix(s, m, "\\/home\\/"))
		return 8;
	if (ci_prefix(s, m, "\\/Users\\/"))
		return 9;
	if (m > 3 && isalpha((unsigned char)s[0]) && s[1] == ':' &&
	    (i == 0 || !is_alnum(in[i - 1]))) {
		j = 2;
		while (j < m && (s[j] == '\\' || s[j] == '/'))
			j++;
		if (j == 2 || !ci_prefix(s + j, m - j, "users"))
			return 0;
		j += 5;
		if (j >= m || (s[j] != '\\' && s[j] != '/'))
			return 0;
		while (j < m && (s[j] == '\\' || s[j] == '/'))
			j++;
		return j;
	}
	return 0;
}

static void pass_home(kt_redactor *r, const char *in, size_t n,
		      struct kt_buf *out, int learn)
{
	size_t i = 0, done = 0, p, u;

	while (i < n) {
		if ((in[i] != '/' && in[i] != '\\' &&
		     !isalpha((unsigned char)in[i])) ||
		    !(p = home_prefix(in, i, n))) {
			i++;
			continue;
		}
		u = span(in, i + p, n, is_uname);
		while (u && in[i + p + u - 1] == '.')
			u--;
		if (!u || in[i + p] == '<') {
			i += p;
			continue;
		}
		if (learn)
			learn_word(r, C_USER, in + i + p, u);
		else {
			sb_put(out, in + done, i + p - done);
			put_ph(r, out, C_USER, in + i + p, u);
			done = i + p + u;
		}
		i += p + u;
	}
	if (!learn)
		sb_put(out, in + done, n - done);
}

/* ---- user@host ---------------------------------------------------------- */
static int public_domain(const char *s, size_t n);

static int is_hostc(int c) { return is_alnum(c) || c == '-' || c == '.'; }

static int remote_cmd_before(const char *in, size_t l)
{
	static const char *const cmds[] = { "ssh", "scp", "rsync", "sftp",
					    "mosh", "-l", NULL };
	size_t j = l, e;
	int i;

	while (j && in[j - 1] == ' ')
		j--;
	if (j == l)
		return 0;
	/* skip options between the command and the target: ssh -p 22 u@h */
	for (i = 0; i < 4 && j; i++) {
		e = j;
		while (j && in[j - 1] != ' ' && in[j - 1] != '\n')
			j--;
		for (int c = 0; cmds[c]; c++)
			if (e - j == strlen(cmds[c]) &&
			    !memcmp(in + j, cmds[c], e - j))
				return 1;
		if (in[j] != '-' && i > 0)
			return 0;
		while (j && in[j - 1] == ' ')
			j--;
	}
	return 0;
}

static void pass_userhost(kt_redactor *r, const char *in, size_t n,
			  struct kt_buf *out, int learn)
{
	size_t i, done = 0;

	for (i = 1; i + 1 < n; i++) {
		size_t l, h, e;
		char prev, next;

		if (in[i] != '@' || !isalpha((unsigned char)in[i + 1]))
			continue;
		for (l = i; l > done && (is_alnum_(in[l - 1]) ||
					 in[l - 1] == '-' || in[l - 1] == '.');
		     l--)
			;
		if (l == i || !(isalpha((unsigned char)in[l]) || in[l] == '_'))
			continue;
		h = span(in, i + 1, n, is_hostc);
		while (h && in[i + h] == '.')
			h--;
		e = i + 1 + h;
		prev = l ? in[l - 1] : ' ';
		next = e < n ? in[e] : ' ';
		if (!(next == ':' || (prev == '[' && next == ' ') ||
		      remote_cmd_before(in, l)))
			continue;
		if (public_domain(in + i + 1, h))
			continue;
		if (!(prev == ' ' || prev == '\n' || prev == '\t' ||
		      prev == '[' || prev == '"' || prev == '\'' ||
		      prev == '(' || prev == '>' || l == 0))
			continue;
		if (learn) {
			learn_word(r, C_USER, in + l, i - l);
			learn_word(r, C_HOST, in + i + 1, h);
			continue;
		}
		sb_put(out, in + done, l - done);
		put_ph(r, out, C_USER, in + l, i - l);
		sb_put(out, "@", 1);
		put_ph(r, out, C_HOST, in + i + 1, h);
		done = e;
		i = e - 1;
	}
	if (!learn)
		sb_put(out, in + done, n - done);
}

/* ---- dotted host names -------------------------------------------------- */
/* Top-level domains that make a dotted word a host name; file extensions
 * that are also ccTLDs (.py .sh .md .rs .cc .in .so .pl ...) and words
 * that are common attribute names in code (logger.info, cfg.dev, x.app,
 * self.home) are left out on purpose, trading a few missed hosts for no
 * mangled file names or code. */
static const char *const tlds[] = {
	"com", "net", "org", "io", "ai", "edu", "gov", "cloud",
	"lan", "internal", "corp", "intranet", "localdomain", NULL
};

/* Well-known public domains (and their subdomains) left as they are. */
static const char *const public_domains[] = {
	"github.com", "github.io", "githubusercontent.com", "githubassets.com",
	"gitlab.com", "bitbucket.org", "google.com", "googleapis.com",
	"gstatic.com", "youtube.com", "nvidia.com", "nvidia.cn", "pytorch.org",
	"python.org", "pypi.org", "pythonhosted.org", "numpy.org", "scipy.org",
	"anaconda.org", "anaconda.com", "conda.io", "readthedocs.io",
	"readthedocs.org", "anthropic.com", "claude.ai", "claude.com",
	"openai.com", "microsoft.com", "windows.net", "azure.com", "apple.com",
	"amazon.com", "amazonaws.com", "stackoverflow.com",
	"stackexchange.com", "wikipedia.org", "arxiv.org", "doi.org",
	"huggingface.co", "hf.co", "docs.rs", "crates.io", "rust-lang.org",
	"npmjs.com", "npmjs.org", "nodejs.org", "debian.org", "ubuntu.com",
	"kernel.org", "gnu.org", "llvm.org", "cmake.org", "mozilla.org",
	"w3.org", "example.com", "example.org", "example.net", "schema.org",
	"json-schema.org", "cloudflare.com", "docker.com", "docker.io",
	"nvcr.io", "gcr.io", "quay.io", "tensorflow.org", "triton-lang.org",
	"openreview.net", "acm.org", "ieee.org", "sourceforge.net",
	"golang.org", "go.dev", "shields.io", "twitter.com", "x.com",
	"linkedin.com", "reddit.com", "medium.com", "discord.com",
	"slack.com", "colab.research.google.com", "jupyter.org", "ietf.org",
	"rfc-editor.org", "iana.org", "opensource.org", "apache.org",
	"creativecommons.org", "semver.org", "modal.com", "wandb.ai",
	"kaggle.com", "paperswithcode.com", "nersc.gov", "ghcr.io",
	"unpkg.com", "jsdelivr.net", "jsdelivr.com", "cdnjs.com", "bootstrapcdn.com",
	"fonts.googleapis.com", "gravatar.com", "shields.io", NULL
};

static int in_list(const char *const *l, const char *s, size_t n)
{
	int i;

	for (i = 0; l[i]; i++)
		if (strlen(l[i]) == n && !strncasecmp(l[i], s, n))
			return 1;
	return 0;
}

static int public_domain(const char *s, size_t n)
{
	int i;

	for (i = 0; public_domains[i]; i++) {
		size_t k = strlen(public_domains[i]);

		if (n == k && !strncasecmp(s, public_domains[i], k))
			return 1;
		if (n > k && s[n - k - 1] == '.' &&
		    !strncasecmp(s + n - k, public_domains[i], k))
			return 1;
	}
	return 0;
}

static void pass_fqdn(kt_redactor *r, const char *in, size_t n,
		      struct kt_buf *out)
{
	size_t i = 0, done = 0;

	while (i < n) {
		size_t d, t;

		if (!is_alnum(in[i]) ||
		    (i && (is_alnum_(in[i - 1]) || in[i - 1] == '.' ||
			   in[i - 1] == '-' || in[i - 1] == '<' ||
			   in[i - 1] == '@'))) {
			i++;
			continue;
		}
		d = domain_len(in + i, n - i, &t);
		if (!d) {
			i += span(in, i, n, is_dom) ? span(in, i, n, is_dom) : 1;
			continue;
		}
		if (i + d < n && (is_alnum_(in[i + d]) || in[i + d] == '@' ||
				  in[i + d] == '>' || in[i + d] == '(')) {
			i += d;
			continue;
		}
		if (!in_list(tlds, in + i + t, d - t) ||
		    public_domain(in + i, d)) {
			i += d;
			continue;
		}
		sb_put(out, in + done, i - done);
		put_ph(r, out, C_HOST, in + i, d);
		done = i + d;
		i = done;
	}
	sb_put(out, in + done, n - done);
}

/* ---- learned words everywhere ------------------------------------------- */
static void pass_words(kt_redactor *r, const char *in, size_t n,
		       struct kt_buf *out)
{
	size_t i = 0, done = 0, w;

	if (!r->nwords) {
		sb_put(out, in, n);
		return;
	}
	while (i < n) {
		if (!is_alnum(in[i]) || (i && is_alnum(in[i - 1]))) {
			i++;
			continue;
		}
		for (w = 0; w < r->nwords; w++) {
			const char *s = r->words[w] + 1;
			size_t k = strlen(s);

			/* whole words only, and not a label of a longer dotted
			 * name or address (host "b.c" in "a.b.c", "x@b.c") */
			if (n - i >= k && !memcmp(in + i, s, k) &&
			    (i + k == n || (!is_alnum(in[i + k]) &&
					    !(in[i + k] == '.' && i + k + 1 < n &&
					      is_alnum(in[i + k + 1])))) &&
			    !(i && (in[i - 1] == '<' || in[i - 1] == '.' ||
				    in[i - 1] == '@')))
				break;
		}
		if (w == r->nwords) {
			i++;
			continue;
		}
		sb_put(out, in + done, i - done);
		put_ph(r, out, r->words[w][0], r->words[w] + 1,
		       strlen(r->words[w] + 1));
		i += strlen(r->words[w] + 1);
		done = i;
	}
	sb_put(out, in + done, n - done);
}

/* ---- public entry points ------------------------------------------------ */
int kt_redactor_learn(kt_redactor *r, const char *text, size_t len)
{
	if (!r || !text)
		return KT_EINVAL;
	pass_home(r, text, len, NULL, 1);
	pass_userhost(r, text, len, NULL, 1);
	return 0;
}

typedef void (*pass_fn)(kt_redactor *, const char *, size_t, struct kt_buf *);

static void pass_home_w(kt_redactor *r, const char *in, size_t n,
			struct kt_buf *out)
{
	pass_home(r, in, n, out, 0);
}

static void pass_userhost_w(kt_redactor *r, const char *in, size_t n,
			    struct kt_buf *out)
{
	pass_userhost(r, in, n, out, 0);
}

char *kt_redact_text(kt_redactor *r, const char *text, size_t len,
		     size_t *out_len)
{
	/* home paths first: a secret's value then ends at the placeholder,
	 * the same way it does when redacted text is redacted again */
	static const pass_fn passes[] = { pass_home_w, pass_userhost_w,
					  pass_secrets, pass_email,
					  pass_fqdn, pass_words };
	struct kt_buf a = { 0 }, b = { 0 };
	const char *in = text;
	size_t n = len, k;

	if (!r || (!text && len))
		return NULL;
	kt_redactor_learn(r, text ? text : "", len);
	for (k = 0; k < sizeof(passes) / sizeof(passes[0]); k++) {
		b.len = 0;
		if (b.s)
			b.s[0] = 0;
		passes[k](r, in, n, &b);
		if (b.err) {
			free(a.s);
			free(b.s);
			return NULL;
		}
		/* swap: the output becomes the next pass's input */
		{
			struct kt_buf t = a;

			a = b;
			b = t;
		}
		in = a.s ? a.s : "";
		n = a.len;
	}
	free(b.s);
	if (!a.s) {
		a.s = malloc(1);
		if (!a.s)
			return NULL;
		a.s[0] = 0;
	}
	if (out_len)
		*out_len = a.len;
	return a.s;
}

/* Replace *s by its redacted copy; the old string is freed when `owned`
 * (not when a cJSON string reference points at memory of someone else). */
static int redact_str(kt_redactor *r, char **s, int whole_secret, int owned)
{
	char *o;
	size_t n;

	if (!*s || !**s)
		return 0;
	n = strlen(*s);
	if (whole_secret && secret_value(*s, n, 1, 0)) {
		const char *p = placeholder(r, C_SECRET, *s, n);

		if (!p || !(o = strdup(p)))
			return KT_ENOMEM;
	} else {
		o = kt_redact_text(r, *s, n, NULL);
		if (!o)
			return KT_ENOMEM;
	}
	if (owned)
		free(*s);
	*s = o;
	return 0;
}

/* Redact a string node; a string reference (cJSON_CreateStringReference:
 * importers point payloads at the parsed input instead of copying it) gets
 * an owned string, so cJSON_Delete frees the new one and not the input. */
static int redact_node_str(kt_redactor *r, cJSON *c, int whole_secret)
{
	char *before = c->valuestring;
	int rc = redact_str(r, &c->valuestring, whole_secret,
			    !(c->type & cJSON_IsReference));

	if (c->valuestring != before)
		c->type &= ~cJSON_IsReference;
	return rc;
}

static void learn_json(kt_redactor *r, const cJSON *node, int depth)
{
	const cJSON *c;

	if (!node || depth > 200)
		return;
	if (node->string)
		kt_redactor_learn(r, node->string, strlen(node->string));
	if (cJSON_IsString(node) && node->valuestring)
		kt_redactor_learn(r, node->valuestring,
				  strlen(node->valuestring));
	for (c = node->child; c; c = c->next)
		learn_json(r, c, depth + 1);
}

static int redact_json(kt_redactor *r, cJSON *node, int depth)
{
	cJSON *c;
	int rc;

	if (!node || depth > 200)
		return 0;
	for (c = node->child; c; c = c->next) {
		int sec = c->string && secret_key(c->string, strlen(c->string));

		if (c->string && !(c->type & cJSON_StringIsConst) &&
		    (rc = redact_str(r, &c->string, 0, 1)))
			return rc;
		if (cJSON_IsString(c) && (rc = redact_node_str(r, c, sec)))
			return rc;
		if ((rc = redact_json(r, c, depth + 1)))
			return rc;
	}
	if (depth == 0 && cJSON_IsString(node))
		return redact_node_str(r, node, 0);
	return 0;
}

int kt_redact_json(kt_redactor *r, cJSON *node)
{
	if (!r || !node)
		return KT_EINVAL;
	learn_json(r, node, 0);
	return redact_json(r, node, 0);
}
