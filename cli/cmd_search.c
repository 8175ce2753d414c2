/* cmd_search.c - `ktraj search TEXT`: full text over what was said and run. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "outfmt.h"

static const char usage[] =
	"usage: ktraj search TEXT... [--run RUN] [--kind KIND] [--limit N] [--all]\n"
	"                    [--json] [-- TEXT...]\n"
	"\n"
	"Find TEXT (case-insensitive; several words are one phrase) in message\n"
	"text, tool call names and arguments, tool results (including outputs\n"
	"kept as blobs), questions and notes.  Prints run, seq, kind and a\n"
	"snippet per matching event; --json prints objects with run, name, seq,\n"
	"kind, snippet.  Exit 0 with no output when nothing matches; an empty\n"
	"or blank TEXT is a usage error (exit 2).  Hidden\n"
	"runs (`ktraj hide`) are searched with --all or --run only.  After --\n"
	"every word is TEXT, one that starts with - too (`search -- -O3`).\n";

struct hit_run {
	char id[KT_RUN_ID_HEX + 1];
	char *name;
};

struct search_ctx {
	const char *text;
	const char *run;
	const char *name;
	int json, kind, all;
	kt_store *s;
	int escaped; /* text has characters JSON escapes: no raw pre-test */
	uint64_t limit, hits;
	uint64_t *blob_seqs; /* tool results whose full output is a blob */
	unsigned char (*blob_h)[KT_HASH_LEN];
	size_t nblob, capblob;
	struct hit_run *runs;
	size_t nruns, capruns;
};

static void print_hit(struct search_ctx *x, uint64_t seq, int kind,
		      const char *s, const char *m)
{
	size_t off = (size_t)(m - s), start = off > 50 ? off - 50 : 0;
	char snip[200];

	start = kt_utf8_floor(s, start);
	cli_oneline(s + start, 150, snip);
	x->hits++;
	if (x->json) {
		printf("{\"run\":\"%s\",\"name\":", x->run);
		cli_json_str(stdout, x->name);
		printf(",\"seq\":%llu,\"kind\":\"%s\",\"snippet\":",
		       (unsigned long long)seq, kt_kind_name(kind));
		cli_json_str(stdout, snip);
		printf("}\n");
	} else {
		printf("%.12s %6llu  %-11s %s%s\n", x->run, (unsigned long long)seq,
		       kt_kind_name(kind), start ? "..." : "", snip);
	}
}

/* Case-insensitive search in a buffer that need not end in NUL (C locale:
 * only ASCII letters fold).  Most payloads do not match, so the scan looks
 * for the needle's rarest byte (English letter frequency; a non-letter
 * counts as middling) with memchr, one memchr per case of it, and compares
 * the whole needle only around a hit: the byte-by-byte tolower loop was
 * ~38 % of `search`'s CPU on a 100k-event run. */
static int ci_find(const char *hay, size_t len, const char *needle)
{
	static const char freq[] = "etaoinshrdlcumwfgypbvkjxqz"; /* common first */
	size_t n = strlen(needle), k = 0, i, j;
	int best = -1;
	const char *end, *p[2], *h;
	unsigned char c[2];

	if (n == 0 || n > len)
		return n == 0;
	for (i = 0; i < n; i++) {
		unsigned char b = (unsigned char)needle[i];
		const char *f = isalpha(b) ? strchr(freq, tolower(b)) : NULL;
		int r = f ? (int)(f - freq) : 13;

		if (r > best) {
			best = r;
			k = i;
		}
	}
	c[0] = (unsigned char)tolower((unsigned char)needle[k]);
	c[1] = (unsigned char)toupper((unsigned char)needle[k]);
	/* the rare byte of a match lies in [k, len - n + k] */
	h = hay + k;
	end = hay + len - n + k + 1;
	p[0] = memchr(h, c[0], (size_t)(end - h));
	p[1] = c[1] != c[0] ? memchr(h, c[1], (size_t)(end - h)) : NULL;
	while (p[0] || p[1]) {
		j = !p[0] || (p[1] && p[1] < p[0]);
		if (!strncasecmp(p[j] - k, needle, n))
			return 1;
		h = p[j] + 1;
		p[j] = memchr(h, c[j], (size_t)(end - h));
	}
	return 0;
}

/* First string in the tree that contains the text. */
static int find_in(const cJSON *n, struct search_ctx *x, const char **s,
		   const char **m)
{
	const cJSON *c;

	if (cJSON_IsString(n)) {
		*m = strcasestr(n->valuestring, x->text);
		*s = n->valuestring;
		return *m != NULL;
	}
	cJSON_ArrayForEach(c, n)
		if (find_in(c, x, s, m))
			return 1;
	return 0;
}

/* The kinds that carry what was said and run (search_ev's test below). */
#define SEARCH_KINDS (KT_KIND_BIT(KT_KIND_MESSAGE) | \
		      KT_KIND_BIT(KT_KIND_TOOL_CALL) | \
		      KT_KIND_BIT(KT_KIND_TOOL_RESULT) | \
		      KT_KIND_BIT(KT_KIND_QUESTION) | KT_KIND_BIT(KT_KIND_NOTE))

static int search_ev(const kt_event *ev, void *arg)
{
	struct search_ctx *x = arg;
	cJSON *p, *v;
	const char *s = NULL, *m = NULL;
	int found = 0;

	if (x->limit && x->hits >= x->limit)
		return 1;
	if (ev->kind != KT_KIND_MESSAGE && ev->kind != KT_KIND_TOOL_CALL &&
	    ev->kind != KT_KIND_TOOL_RESULT && ev->kind != KT_KIND_QUESTION &&
	    ev->kind != KT_KIND_NOTE)
		return 0;
	/* cheap test on the raw JSON first: most events do not match */
	if (!ci_find(ev->payload, ev->payload_len, x->text) &&
	    !(ev->kind == KT_KIND_TOOL_RESULT &&
	      ci_find(ev->payload, ev->payload_len, "\"output_blob\"")) &&
	    !x->escaped)
		return 0;
	p = cJSON_ParseWithLength(ev->payload, ev->payload_len);
	if (!p)
		return 0;
	switch (ev->kind) {
	case KT_KIND_TOOL_CALL:
		found = find_in(cJSON_GetObjectItemCaseSensitive(p, "tool"), x, &s, &m) ||
			find_in(cJSON_GetObjectItemCaseSensitive(p, "args"), x, &s, &m);
		break;
	case KT_KIND_TOOL_RESULT:
		found = find_in(cJSON_GetObjectItemCaseSensitive(p, "output"), x, &s, &m);
		v = cJSON_GetObjectItemCaseSensitive(p, "output_blob");
		if (!found && cJSON_IsString(v) && x->nblob < (size_t)-1) {
			/* two arrays of one length: both grow from capblob */
			size_t cs = x->capblob, ch = x->capblob;

			if (KT_GROW(x->blob_seqs, cs, x->nblob + 1) ||
			    KT_GROW(x->blob_h, ch, x->nblob + 1))
				break;
			x->capblob = cs;
			if (!kt_unhex(v->valuestring, x->blob_h[x->nblob],
				      KT_HASH_LEN))
				x->blob_seqs[x->nblob++] = ev->seq;
		}
		break;
	default:
		found = find_in(cJSON_GetObjectItemCaseSensitive(p, "text"), x, &s, &m);
	}
	if (found)
		print_hit(x, ev->seq, ev->kind, s, m);
	cJSON_Delete(p);
	return 0;
}

static int add_run(const kt_run_info *ri, void *arg)
{
	struct search_ctx *x = arg;
	int h;

	/* x->s is set for the walk of every run only: --run RUN is read
	 * hidden or not */
	if (x->s && (h = cli_hidden_skip(x->s, ri->id, x->all)) != 0)
		return h < 0 ? h : 0;
	if (KT_GROW(x->runs, x->capruns, x->nruns + 1))
		return KT_ENOMEM;
	memcpy(x->runs[x->nruns].id, ri->id, sizeof(ri->id));
	x->runs[x->nruns].name = strdup(ri->name ? ri->name : "");
	if (!x->runs[x->nruns].name)
		return KT_ENOMEM;
	x->nruns++;
	return 0;
}

int cmd_search(struct cli *c, int argc, char **argv)
{
	struct search_ctx x;
	const char *spec = NULL;
	struct kt_buf phrase = {0}; /* TEXT: its words joined by spaces */
	char *text, run[KT_RUN_ID_HEX + 1];
	size_t tl = 0, k, b;
	kt_store *s = NULL;
	int i, rc, words = 0;

	if (cli_wants_help(argc, argv, usage))
		return KT_EXIT_OK;
	memset(&x, 0, sizeof(x));
	for (i = 1; i < argc; i++) {
		/* after "--" every argument is TEXT: `search -- -O3` */
		if (!words && !strcmp(argv[i], "--")) {
			words = 1;
			continue;
		}
		if (words || argv[i][0] != '-' || !argv[i][1]) {
			if (phrase.len)
				kt_buf_putc(&phrase, ' ');
			if (kt_buf_puts(&phrase, argv[i])) {
				kt_buf_free(&phrase);
				return cli_err(c, "out of memory");
			}
		} else if (!strcmp(argv[i], "--json")) {
			x.json = 1;
		} else if (!strcmp(argv[i], "--all")) {
			x.all = 1;
		} else if (!strcmp(argv[i], "--run") &&
			   cli_has_value(argc, argv, i)) {
			spec = argv[++i];
		} else if (!strcmp(argv[i], "--kind") &&
			   cli_has_value(argc, argv, i)) {
			if (!(x.kind = kt_kind_from_name(argv[++i]))) {
				kt_buf_free(&phrase);
				return cli_bad_kind(c, argv[i]);
			}
		} else if (!strcmp(argv[i], "--limit") &&
			   cli_has_value(argc, argv, i)) {
			if (cli_u64(argv[++i], &x.limit)) {
				kt_buf_free(&phrase);
				return cli_usage(c, "--limit needs a number");
			}
		} else {
			kt_buf_free(&phrase);
			return cli_bad_option(c, usage, argv[i]);
		}
	}
	text = phrase.s; /* NULL when no word was given */
	/* an empty or blank TEXT is in every event: refused, not a dump of
	 * the store (README "search") */
	for (tl = 0; text && text[tl] && strchr(" \t\n\r\v\f", text[tl]); tl++)
		;
	if (!text || !text[tl]) {
		free(text);
		return cli_usage(c, "what should I search for? (an empty or "
				 "blank TEXT would match every event)");
	}
	x.text = text;
	for (tl = 0; text[tl]; tl++)
		if (text[tl] == '"' || text[tl] == '\\' ||
		    (unsigned char)text[tl] < 0x20)
			x.escaped = 1;
	rc = cli_open(c, 0, &s);
	if (rc) {
		free(text);
		return rc;
	}
	if (spec) {
		kt_run_info ri;

		if ((rc = cli_run(c, s, spec, run)))
			goto out;
		if ((rc = kt_run_get(s, run, &ri)) || (rc = add_run(&ri, &x))) {
			rc = cli_store_err(c, s, rc, spec);
			goto out;
		}
	} else if ((x.s = s, rc = kt_run_foreach(s, add_run, &x))) {
		rc = cli_store_err(c, s, rc, "listing runs");
		goto out;
	}
	for (k = 0; k < x.nruns && !(x.limit && x.hits >= x.limit); k++) {
		x.run = x.runs[k].id;
		x.name = x.runs[k].name;
		x.nblob = 0;
		/* only the kinds search_ev reads: the other kinds' blocks
		 * (edits, bench results, ...) are then not decoded at all
		 * (search threadIdx on read_paths.sh's run: -10 % CPU) */
		rc = kt_event_scan(s, x.run, 1, 0,
				   x.kind ? KT_KIND_BIT(x.kind) : SEARCH_KINDS,
				   KT_READ_BODY, search_ev, &x);
		if (rc < 0) {
			rc = cli_store_err(c, s, rc, "reading events");
			goto out;
		}
		rc = 0;
		/* long outputs live in blobs: read them after the scan */
		for (b = 0; b < x.nblob && !(x.limit && x.hits >= x.limit); b++) {
			void *data;
			size_t len;
			const char *m;

			if (kt_blob_get(s, x.blob_h[b], &data, &len))
				continue;
			m = strcasestr(data, text);
			if (m)
				print_hit(&x, x.blob_seqs[b], KT_KIND_TOOL_RESULT,
					  data, m);
			free(data);
		}
	}
out:
	for (k = 0; k < x.nruns; k++)
		free(x.runs[k].name);
	free(x.runs);
	free(x.blob_seqs);
	free(x.blob_h);
	free(text);
	kt_store_close(s);
	return rc;
}
