/* cmd_show.c - `ktraj show RUN SEQ`: one event in full, or its source. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/archive_dl.h" /* libarchive, loaded when first used */
#include <cjson/cJSON.h>

#include "../import/archive_policy.h"
#include "../import/import.h"
#include "cli.h"
#include "../export/export.h"
#include "outfmt.h"

static const char usage[] =
	"usage: ktraj show RUN SEQ [--json] [--source] [--raw]\n"
	"\n"
	"Print event SEQ of RUN in full: its header (seq, parent, time, kind,\n"
	"actor, provenance, hash) and every payload field.\n"
	"--json    the event as one JSON object (as in `export --format jsonl`)\n"
	"--raw     trajectory text as stored; without it, control characters\n"
	"          (escape sequences, carriage returns, bells) print visibly,\n"
	"          as cat -v writes them (ESC as ^[), so a trajectory cannot\n"
	"          drive the terminal\n"
	"--source  the original record the event was imported from, read back\n"
	"          from the source file named in the run's metadata; it must still\n"
	"          exist and have the SHA-256 recorded at import, or (a log that\n"
	"          grew) hold the record at its offset with the record's own\n"
	"          hash recorded at import (prov \"rec\").  With --json one\n"
	"          object: run, seq, prov and source (the record's text, or\n"
	"          source_base64 when it is not UTF-8 text).  An event read from a\n"
	"          whole file (no line or byte range) prints the file and its\n"
	"          SHA-256 instead (--json: source null)\n";

/* Trajectory text: made safe for a terminal (cli_put_safe) unless raw */
static void put_text(const char *t, size_t n, int raw)
{
	if (raw)
		fwrite(t, 1, n, stdout);
	else
		cli_put_safe(stdout, t, n);
}

/* "<indent><label>: <text>\n" with the label and the text shown by put_text */
static void put_line(int depth, const char *key, const char *t, size_t n,
		     int raw)
{
	printf("%*s", depth, "");
	put_text(key, strlen(key), raw);
	fputs(": ", stdout);
	put_text(t, n, raw);
	fputc('\n', stdout);
}

/* Multi-line strings print as indented blocks, the rest as JSON. */
static void show_member(const cJSON *v, const char *key, int depth, int raw)
{
	if (cJSON_IsString(v) && strchr(v->valuestring, '\n')) {
		const char *p = v->valuestring;

		put_line(depth, key, "|", 1, raw);
		while (*p) {
			size_t n = strcspn(p, "\n");

			printf("%*s    ", depth, "");
			put_text(p, n, raw);
			fputc('\n', stdout);
			p += n + (p[n] == '\n');
		}
	} else if (cJSON_IsString(v)) {
		put_line(depth, key, v->valuestring, strlen(v->valuestring),
			 raw);
	} else {
		char *t = cJSON_PrintUnformatted(v);

		put_line(depth, key, t ? t : "?", t ? strlen(t) : 1, raw);
		free(t);
	}
}

static void show_plain(const char *run, const kt_run_info *ri,
		       const kt_event *ev, int raw)
{
	cJSON *p = cJSON_ParseWithLength(ev->payload, ev->payload_len), *m;
	char ts[40], hex[KT_HASH_HEX + 1];
	const char *kn = kt_kind_name(ev->kind);

	kt_export_ts_iso(ev->ts_ns, ts, sizeof(ts));
	printf("run     %s (", run);
	put_text(ri->name ? ri->name : "", ri->name ? strlen(ri->name) : 0, raw);
	printf(")\n");
	printf("seq     %llu\n", (unsigned long long)ev->seq);
	if (ev->parent)
		printf("parent  %llu\n", (unsigned long long)ev->parent);
	printf("time    %s\n", ts[0] ? ts : "unknown");
	printf("kind    %s\n", kn ? kn : "?");
	printf("actor   ");
	put_text(ev->actor ? ev->actor : "", ev->actor ? strlen(ev->actor) : 0,
		 raw);
	fputc('\n', stdout);
	if (ev->prov_json) {
		printf("prov    ");
		put_text(ev->prov_json, strlen(ev->prov_json), raw);
		fputc('\n', stdout);
	}
	kt_hex(ev->hash, KT_HASH_LEN, hex);
	printf("hash    %s\n", hex);
	printf("payload\n");
	if (!p) {
		printf("    ");
		put_text(ev->payload, ev->payload_len, raw);
		fputc('\n', stdout);
		return;
	}
	cJSON_ArrayForEach(m, p)
		show_member(m, m->string, 4, raw);
	cJSON_Delete(p);
}

/* The content of `member` of archive `path`, or of the archive in memory
 * (data, dlen) when path is NULL (or, with member NULL, of a compressed
 * single file) whose SHA-256 is `sha` (NULL: any); NULL when absent.  The
 * formats are the import driver's (import/archive_policy.h). */
static unsigned char *from_archive_in(const char *path, const void *data,
				      size_t dlen, const char *member,
				      const unsigned char *sha, size_t *len)
{
	struct kt_archive_utf8 u;
	struct archive *a;
	struct archive_entry *e;
	struct kt_buf b = {0};
	unsigned char *buf = NULL, h[KT_HASH_LEN], chunk[65536];

	/* member names as import read them (import/archive_policy.h) */
	kt_archive_utf8_enter(&u);
	a = kt_archive_reader();
	if (!a) {
		kt_archive_utf8_leave(&u);
		return NULL;
	}
	if ((path ? archive_read_open_filename(a, path, 65536) :
	     archive_read_open_memory(a, data, dlen)) != ARCHIVE_OK)
		goto out;
	while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);
		la_ssize_t r;

		if (member && (!name || strcmp(name, member)))
			continue;
		/* "" allocated for an empty member, as for any other */
		kt_buf_add(&b, "", 0);
		while ((r = archive_read_data(a, chunk, sizeof(chunk))) > 0)
			kt_buf_add(&b, chunk, (size_t)r);
		if (b.err)
			goto out;
		kt_sha256(b.p, b.len, h);
		if (!sha || !memcmp(h, sha, KT_HASH_LEN)) {
			*len = b.len;
			buf = (unsigned char *)kt_buf_take(&b);
			goto out;
		}
		kt_buf_reset(&b);
		if (member)
			break;
	}
out:
	kt_buf_free(&b);
	archive_read_free(a);
	kt_archive_utf8_leave(&u);
	return buf;
}

static unsigned char *from_archive(const char *path, const char *member,
				   const unsigned char *sha, size_t *len)
{
	return from_archive_in(path, NULL, 0, member, sha, len);
}

/* `member` of the archive that is member `in` of archive `path` (an
 * Inspect .eval in a .tar.gz), whose SHA-256 is `sha`; NULL when absent. */
static unsigned char *from_nested(const char *path, const char *in,
				  const char *member, const unsigned char *sha,
				  size_t *len)
{
	size_t n = 0;
	unsigned char *outer = from_archive(path, in, NULL, &n), *r;

	if (!outer)
		return NULL;
	r = from_archive_in(NULL, outer, n, member, sha, len);
	free(outer);
	return r;
}

/* {run, seq, prov} of an event's source object (prov null when the event
 * has none); NULL when out of memory.  Caller owns it. */
static cJSON *source_obj(const char *run, const kt_event *ev)
{
	cJSON *o = cJSON_CreateObject(), *prov;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "run", run);
	cJSON_AddNumberToObject(o, "seq", (double)ev->seq);
	prov = ev->prov_json ? cJSON_Parse(ev->prov_json) : NULL;
	if (prov)
		cJSON_AddItemToObject(o, "prov", prov);
	else
		cJSON_AddNullToObject(o, "prov");
	return o;
}

/* How show_source prints a record */
#define SRC_JSON 1 /* one object {run, seq, prov, source} */
#define SRC_SAFE 2 /* control characters made visible (cli_put_safe) */

/* The record bytes, as stored or made safe (and a newline when nl) or, with
 * SRC_JSON, as one object {run, seq, prov, source} ("source_base64" when
 * they are not UTF-8 text). */
static int put_source(struct cli *c, const char *run, const kt_event *ev,
		      const unsigned char *rec, size_t len, int how, int nl)
{
	cJSON *o;
	int rc = KT_EXIT_OK;

	if (!(how & SRC_JSON)) {
		if (how & SRC_SAFE)
			cli_put_safe(stdout, (const char *)rec, len);
		else
			fwrite(rec, 1, len, stdout);
		if (nl)
			fputc('\n', stdout);
		return ferror(stdout) ? cli_err(c, "write error") : KT_EXIT_OK;
	}
	o = source_obj(run, ev);
	if (o && kt_export_add_bytes(o, "source", rec, len,
				    KT_EXPORT_BYTES_TEXT_OR_BASE64) < 0) {
		cJSON_Delete(o);
		o = NULL;
	}
	rc = cli_put_json(o);
	if (rc)
		return cli_err(c, rc == KT_ENOMEM ? "out of memory" : "write error");
	return KT_EXIT_OK;
}

/* An event with no line or byte range in its source: the file it came from
 * on stdout (with --json {run, seq, prov, source: null}), why there is no
 * record on stderr; exit 0. */
static int whole_file(struct cli *c, const char *run, const kt_event *ev,
		      const char *path, const char *member,
		      const char *sha_hex, int json)
{
	cJSON *o;
	int rc;

	if (json) {
		o = source_obj(run, ev);
		if (o)
			cJSON_AddNullToObject(o, "source");
		rc = cli_put_json(o); /* consumes o */
		if (rc)
			return cli_err(c, rc == KT_ENOMEM ? "out of memory" :
				       "write error");
	} else {
		printf("%s%s%s sha256:%s\n", path, member ? ":" : "",
		       member ? member : "", sha_hex);
		if (ferror(stdout))
			return cli_err(c, "write error");
	}
	cli_err(c, "event %llu has no line-level source: it was read from the whole file",
		(unsigned long long)ev->seq);
	return KT_EXIT_OK;
}

/* Whether the record at off/rlen of data (a source file as it is now)
 * still hashes to rec, the record hash the import kept in the provenance
 * (FORMAT.md §1 "rec"): a log that grew since has another SHA-256 but the
 * same record. */
static int rec_matches(const char *rec, const unsigned char *data,
		       size_t len, const cJSON *off, const cJSON *rlen)
{
	unsigned char h[KT_HASH_LEN];
	char hex[2 * KT_HASH_LEN + 1];

	if (!rec || strlen(rec) != 2 * KT_REC_HASH_LEN ||
	    !cJSON_IsNumber(off) || !cJSON_IsNumber(rlen) ||
	    rlen->valuedouble <= 0 || off->valuedouble < 0 ||
	    off->valuedouble + rlen->valuedouble > (double)len)
		return 0;
	kt_sha256(data + (size_t)off->valuedouble, (size_t)rlen->valuedouble, h);
	kt_hex(h, KT_REC_HASH_LEN, hex);
	return !strcmp(hex, rec);
}

static int show_source(struct cli *c, const char *run, const kt_run_info *ri,
		       const kt_event *ev, int how)
{
	int json = how & SRC_JSON;
	cJSON *prov = ev->prov_json ? cJSON_Parse(ev->prov_json) : NULL;
	cJSON *meta = ri->meta_json ? cJSON_Parse(ri->meta_json) : NULL, *src;
	const char *sha_hex = kt_json_str(prov, "src"), *file = kt_json_str(prov, "file");
	const char *member = kt_json_str(prov, "member"), *path = NULL, *in = NULL;
	char *shown = NULL;
	unsigned char sha[KT_HASH_LEN], h[KT_HASH_LEN], *data = NULL;
	cJSON *off = cJSON_GetObjectItemCaseSensitive(prov, "off");
	cJSON *rlen = cJSON_GetObjectItemCaseSensitive(prov, "len");
	cJSON *line = cJSON_GetObjectItemCaseSensitive(prov, "line");
	size_t len = 0;
	int rc = KT_EXIT_FAIL;

	if (!sha_hex || kt_unhex(sha_hex, sha, KT_HASH_LEN)) {
		rc = cli_err(c, "event %llu records no source file",
			     (unsigned long long)ev->seq);
		goto out;
	}
	/* the import driver records each source's absolute path */
	cJSON_ArrayForEach(src, cJSON_GetObjectItemCaseSensitive(meta, "sources")) {
		const char *s = kt_json_str(src, "sha");

		if ((s && !strcmp(s, sha_hex)) ||
		    (!s && file && kt_json_str(src, "file") &&
		     !strcmp(kt_json_str(src, "file"), file))) {
			path = kt_json_str(src, "path");
			in = kt_json_str(src, "in");
			break;
		}
	}
	if (!path)
		path = file;
	if (!path || !strcmp(path, "-")) {
		rc = cli_err(c, "event %llu came from stdin; the source is not kept",
			     (unsigned long long)ev->seq);
		goto out;
	}
	if (!(cJSON_IsNumber(rlen) && rlen->valuedouble > 0) &&
	    !(cJSON_IsNumber(line) && line->valuedouble >= 1)) {
		/* the importer read the whole file (an Inspect .json, a
		 * KernelBench result): dumping it, often hundreds of KB, is not
		 * the record; say where it came from instead */
		if (in && member && asprintf(&shown, "%s:%s", in, member) < 0)
			shown = NULL;
		rc = whole_file(c, run, ev, path, shown ? shown : member,
				sha_hex, json);
		goto out;
	}
	if (in && member) {
		data = from_nested(path, in, member, sha, &len);
	} else if (!member) {
		data = (unsigned char *)cli_slurp(path, &len);
		if (!data) {
			rc = cli_err(c, "source %s: %s", path, strerror(errno));
			goto out;
		}
		kt_sha256(data, len, h);
		if (memcmp(h, sha, KT_HASH_LEN) &&
		    !rec_matches(kt_json_str(prov, "rec"), data, len, off, rlen)) {
			/* a compressed file is recorded by its content */
			free(data);
			data = from_archive(path, NULL, sha, &len);
		}
	} else {
		data = from_archive(path, member, sha, &len);
	}
	if (!data && kt_archive_load()) { /* every path to here read an archive */
		rc = cli_err(c, "source %s: cannot read archives or compressed "
			     "files without libarchive (%s)", path,
			     kt_archive_load_error());
		goto out;
	}
	if (!data) {
		rc = cli_err(c, "source %s%s%s%s%s changed since import (SHA-256 differs from %.12s...)",
			     path, in ? ":" : "", in ? in : "",
			     member ? ":" : "", member ? member : "", sha_hex);
		goto out;
	}
	if (cJSON_IsNumber(off) && cJSON_IsNumber(rlen) && rlen->valuedouble > 0 &&
	    off->valuedouble >= 0 && off->valuedouble + rlen->valuedouble <= (double)len) {
		rc = put_source(c, run, ev, data + (size_t)off->valuedouble,
				(size_t)rlen->valuedouble, how, 1);
	} else if (cJSON_IsNumber(line) && line->valuedouble >= 1) {
		const unsigned char *p = data, *end = data + len, *nl;
		double l;

		for (l = 1; l < line->valuedouble && p < end; l++) {
			p = memchr(p, '\n', (size_t)(end - p));
			p = p ? p + 1 : end;
		}
		if (p >= end) {
			rc = cli_err(c, "source %s has no line %.0f", path, line->valuedouble);
			goto out;
		}
		nl = memchr(p, '\n', (size_t)(end - p));
		rc = put_source(c, run, ev, p, (size_t)((nl ? nl : end) - p),
				how, 1);
	} else {
		rc = cli_err(c, "source %s has no record at offset %.0f",
			     path, cJSON_IsNumber(off) ? off->valuedouble : -1);
	}
out:
	free(data);
	free(shown);
	cJSON_Delete(prov);
	cJSON_Delete(meta);
	return rc;
}

int cmd_show(struct cli *c, int argc, char **argv)
{
	const char *spec = NULL, *seqs = NULL;
	char run[KT_RUN_ID_HEX + 1];
	int i, rc, json = 0, source = 0, raw = 0;
	kt_run_info ri;
	kt_event ev;
	uint64_t seq;
	kt_store *s = NULL;

	if (cli_wants_help(argc, argv, usage))
		return KT_EXIT_OK;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--source"))
			source = 1;
		else if (!strcmp(argv[i], "--raw"))
			raw = 1;
		else if (argv[i][0] == '-' && argv[i][1] && !cli_negnum(argv[i]))
			return cli_usage(c, "unknown option '%s'", argv[i]);
		else if (!spec)
			spec = argv[i];
		else if (!seqs)
			seqs = argv[i];
		else
			return cli_usage(c, "unexpected argument '%s'", argv[i]);
	}
	if (!seqs)
		return cli_usage(c, "needs RUN and SEQ");
	if (cli_u64(seqs, &seq) || seq == 0)
		return cli_bad_step(c, NULL, seqs);
	if ((rc = cli_open_run(c, spec, &s, run)))
		goto out;
	rc = kt_run_get(s, run, &ri);
	if (rc) {
		rc = cli_store_err(c, s, rc, spec);
		goto out;
	}
	/* copy what the event read would invalidate */
	ri.name = kt_xstrdup(ri.name);
	ri.meta_json = kt_xstrdup(ri.meta_json);
	rc = kt_event_get(s, run, seq, &ev);
	if (rc == KT_ENOTFOUND) {
		rc = cli_no_step(c, run, seq, ri.n_events);
	} else if (rc) {
		rc = cli_store_err(c, s, rc, "reading the event");
	} else if (source) {
		/* the record as stored when it goes to a file or pipe */
		rc = show_source(c, run, &ri, &ev,
				 json ? SRC_JSON :
				 !raw && isatty(STDOUT_FILENO) ? SRC_SAFE : 0);
	} else if (json) {
		if (cli_put_json(kt_export_event(run, &ev)))
			rc = cli_err(c, "event %llu: payload is not JSON",
				     (unsigned long long)seq);
	} else {
		show_plain(run, &ri, &ev, raw);
	}
	free((char *)ri.name);
	free((char *)ri.meta_json);
out:
	kt_store_close(s);
	return rc;
}
