/*
 * t_import_driver.c - the import driver: folders, archives (tar.gz, zip,
 * tar.zst, tar.xz, compressed single files), stdin, hostile members,
 * expansion bounds, strict mode, missing paths, path normalization.
 * Archives are written here with libarchive, from our own fixtures.
 */
#include "testutil.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <archive.h>
#include <archive_entry.h>
#include "../../import/import.h"

#define FX "tests/data/import/claude/"

struct res {
	char run[16][KT_RUN_ID_HEX + 1];
	uint64_t events[16], added[16];
	int nrun;
	unsigned warns;
	char warn[4096];
};

static void on_run(const char *id, const char *name, const char *format,
		   uint64_t events, uint64_t added, void *arg)
{
	struct res *r = arg;

	(void)name;
	(void)format;
	if (r->nrun < 16) {
		snprintf(r->run[r->nrun], sizeof(r->run[0]), "%s", id);
		r->events[r->nrun] = events;
		r->added[r->nrun] = added;
		r->nrun++;
	}
}

static void on_warn(const char *line, void *arg)
{
	struct res *r = arg;
	size_t n = strlen(r->warn);

	r->warns++;
	snprintf(r->warn + n, sizeof(r->warn) - n, "%s\n", line);
}

struct fx {
	char *dir;
	char path[4200];
	kt_store *s;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->dir = tu_tmpdir();
	assert_non_null(f->dir);
	snprintf(f->path, sizeof(f->path), "%s/s.ktraj", f->dir);
	assert_int_equal(kt_store_open(f->path, KT_OPEN_CREATE | KT_OPEN_BULK,
				       &f->s), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	kt_store_close(f->s);
	tu_rmrf(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

static int import_opts(kt_store *s, const char *path, kt_import_opts *o,
		       struct res *r)
{
	char *p[1];

	memset(r, 0, sizeof(*r));
	o->on_run = on_run;
	o->on_warn = on_warn;
	o->arg = r;
	p[0] = (char *)path;
	return kt_import_paths(s, p, 1, o);
}

static int import1(kt_store *s, const char *path, struct res *r)
{
	kt_import_opts o;

	memset(&o, 0, sizeof(o));
	return import_opts(s, path, &o, r);
}

/* Events of s2x.jsonl imported alone (no subagents/ beside it) into a
 * fresh store: what a single-file copy must give. */
static uint64_t ref_events(const char *dir)
{
	char sp[4300], fp[4300], *src;
	size_t len = 0;
	kt_store *s;
	struct res r;
	FILE *o;

	snprintf(sp, sizeof(sp), "%s/ref.ktraj", dir);
	snprintf(fp, sizeof(fp), "%s/s2x.jsonl", dir);
	src = tu_slurp(FX "s2x.jsonl", &len);
	assert_non_null(src);
	o = fopen(fp, "wb");
	assert_non_null(o);
	fwrite(src, 1, len, o);
	fclose(o);
	free(src);
	assert_int_equal(kt_store_open(sp, KT_OPEN_CREATE, &s), 0);
	assert_int_equal(import1(s, fp, &r), 0);
	kt_store_close(s);
	assert_int_equal(r.nrun, 1);
	return r.events[0];
}

struct member {
	const char *name;
	const char *file;     /* content from this file, or */
	const char *data;     /* this text, or */
	size_t repeat_nl;     /* this many newlines (streamed) */
	const char *symlink;
};

enum { AR_TGZ, AR_ZIP, AR_TZST, AR_TXZ, AR_TAR, AR_GZRAW };

static void write_archive(const char *path, int kind,
			  const struct member *m, size_t n)
{
	struct archive *a = archive_write_new();
	size_t i;

	assert_non_null(a);
	switch (kind) {
	case AR_TGZ:
		archive_write_set_format_pax_restricted(a);
		archive_write_add_filter_gzip(a);
		break;
	case AR_ZIP:
		archive_write_set_format_zip(a);
		break;
	case AR_TZST:
		archive_write_set_format_pax_restricted(a);
		archive_write_add_filter_zstd(a);
		break;
	case AR_TXZ:
		archive_write_set_format_pax_restricted(a);
		archive_write_add_filter_xz(a);
		break;
	case AR_GZRAW:
		archive_write_set_format_raw(a);
		archive_write_add_filter_gzip(a);
		break;
	default:
		archive_write_set_format_pax_restricted(a);
	}
	assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
	for (i = 0; i < n; i++) {
		struct archive_entry *e = archive_entry_new();
		char *buf = NULL;
		size_t len = 0;

		archive_entry_set_pathname(e, m[i].name);
		archive_entry_set_perm(e, 0644);
		if (m[i].symlink) {
			archive_entry_set_filetype(e, AE_IFLNK);
			archive_entry_set_symlink(e, m[i].symlink);
			archive_entry_set_size(e, 0);
			assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
			archive_entry_free(e);
			continue;
		}
		if (m[i].file) {
			buf = tu_slurp(m[i].file, &len);
			assert_non_null(buf);
		} else if (m[i].data) {
			len = strlen(m[i].data);
		} else {
			len = m[i].repeat_nl;
		}
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_size(e, (la_int64_t)len);
		assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
		if (buf) {
			archive_write_data(a, buf, len);
		} else if (m[i].data) {
			archive_write_data(a, m[i].data, len);
		} else {
			static char nl[1 << 16];
			size_t k;

			memset(nl, '\n', sizeof(nl));
			for (k = 0; k < len; k += sizeof(nl))
				archive_write_data(a, nl, len - k < sizeof(nl) ?
						   len - k : sizeof(nl));
		}
		free(buf);
		archive_entry_free(e);
	}
	archive_write_close(a);
	archive_write_free(a);
}

static const struct member session_members[] = {
	{ "claude/s2x.jsonl", FX "s2x.jsonl", NULL, 0, NULL },
	{ "claude/s2x/subagents/agent-abc123.jsonl",
	  FX "s2x/subagents/agent-abc123.jsonl", NULL, 0, NULL },
	{ "claude/malformed.jsonl", FX "malformed.jsonl", NULL, 0, NULL },
	{ "claude/README.txt", NULL, "not a trajectory\n", 0, NULL },
};

static void sort_runs(struct res *r)
{
	int i, j;
	char t[KT_RUN_ID_HEX + 1];

	for (i = 0; i < r->nrun; i++)
		for (j = i + 1; j < r->nrun; j++)
			if (strcmp(r->run[i], r->run[j]) > 0) {
				memcpy(t, r->run[i], sizeof(t));
				memcpy(r->run[i], r->run[j], sizeof(t));
				memcpy(r->run[j], t, sizeof(t));
			}
}

/* a folder: sub-agent file claimed by its session, unknown files skipped
 * silently, same runs as the archives below */
static void test_folder_and_archives(void **state)
{
	struct fx *f = *state;
	struct res rf, ra;
	static const int kinds[] = { AR_TGZ, AR_ZIP, AR_TZST, AR_TXZ, AR_TAR };
	static const char *const names[] = { "a.tar.gz", "a.zip", "a.tar.zst",
		"a.tar.xz", "a.tar" };
	char path[4300];
	size_t i;

	assert_int_equal(import1(f->s, "tests/data/import/claude", &rf), 0);
	assert_int_equal(rf.nrun, 2);
	assert_true(rf.added[0] > 0 && rf.added[1] > 0);
	sort_runs(&rf);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", f->dir, names[i]);
		write_archive(path, kinds[i], session_members, 4);
		assert_int_equal(import1(f->s, path, &ra), 0);
		assert_int_equal(ra.nrun, 2);
		sort_runs(&ra);
		assert_string_equal(ra.run[0], rf.run[0]);
		assert_string_equal(ra.run[1], rf.run[1]);
		/* the same sources: nothing added */
		assert_int_equal(ra.added[0] + ra.added[1], 0);
	}
}

static int find_member(const kt_event *ev, void *arg)
{
	int *n = arg;

	if (ev->prov_json && strstr(ev->prov_json, "\"member\":\"claude/s2x/subagents/agent-abc123.jsonl\""))
		(*n)++;
	return 0;
}

static void test_archive_provenance(void **state)
{
	struct fx *f = *state;
	struct res r;
	char path[4300], id[KT_RUN_ID_HEX + 1];
	int n = 0;

	snprintf(path, sizeof(path), "%s/p.zip", f->dir);
	write_archive(path, AR_ZIP, session_members, 2);
	assert_int_equal(import1(f->s, path, &r), 0);
	assert_int_equal(r.nrun, 1);
	kt_run_id_from_identity("claude_code:s2x", id);
	assert_int_equal(kt_event_foreach(f->s, id, 1, 0, 0, find_member, &n), 0);
	/* the sub-agent's 4 events name their archive member */
	assert_int_equal(n, 4);
}

static void test_gz_single_file(void **state)
{
	struct fx *f = *state;
	struct res r;
	char path[4300];
	const struct member m = { "data", FX "s2x.jsonl", NULL, 0, NULL };

	snprintf(path, sizeof(path), "%s/s2x.jsonl.gz", f->dir);
	write_archive(path, AR_GZRAW, &m, 1);
	assert_int_equal(import1(f->s, path, &r), 0);
	assert_int_equal(r.nrun, 1);
	/* no subagents/ beside it: like the file alone */
	assert_int_equal(r.events[0], ref_events(f->dir));
}

static void test_hostile_members(void **state)
{
	struct fx *f = *state;
	struct res r;
	char path[4300];
	const struct member m[] = {
		{ "../up.jsonl", FX "malformed.jsonl", NULL, 0, NULL },
		{ "/abs/x.jsonl", FX "malformed.jsonl", NULL, 0, NULL },
		{ "a/../../b.jsonl", FX "malformed.jsonl", NULL, 0, NULL },
		{ "ok/link", NULL, NULL, 0, "/etc/passwd" },
		{ "ok/s2x.jsonl", FX "s2x.jsonl", NULL, 0, NULL },
	};

	snprintf(path, sizeof(path), "%s/evil.tar", f->dir);
	write_archive(path, AR_TAR, m, 5);
	assert_int_equal(import1(f->s, path, &r), 0);
	/* only the safe member became a run */
	assert_int_equal(r.nrun, 1);
	assert_true(r.warns >= 4);
	assert_non_null(strstr(r.warn, "'../up.jsonl'"));
	assert_non_null(strstr(r.warn, "'/abs/x.jsonl'"));
	assert_non_null(strstr(r.warn, "'a/../../b.jsonl'"));
	assert_non_null(strstr(r.warn, "'ok/link': link"));
	assert_non_null(strstr(r.warn, "unsafe"));
}

static void test_bomb_ratio(void **state)
{
	struct fx *f = *state;
	struct res r;
	kt_import_opts o;
	char path[4300];
	const struct member m = { "bomb.jsonl", NULL, NULL, 64u << 20, NULL };

	snprintf(path, sizeof(path), "%s/bomb.zip", f->dir);
	write_archive(path, AR_ZIP, &m, 1);
	memset(&o, 0, sizeof(o));
	/* 64 MiB of newlines compress ~1000x: over the default ratio */
	assert_int_equal(import_opts(f->s, path, &o, &r), KT_ELIMIT);
	assert_non_null(strstr(r.warn, "expands beyond"));
	assert_int_equal(r.nrun, 0);
	/* a generous ratio but a small size bound stops it too */
	memset(&o, 0, sizeof(o));
	o.max_ratio = 100000;
	o.max_total = 2u << 20;
	assert_int_equal(import_opts(f->s, path, &o, &r), KT_ELIMIT);
	/* and with bounds that allow it, the newlines are just blank */
	memset(&o, 0, sizeof(o));
	o.max_ratio = 100000;
	assert_int_equal(import_opts(f->s, path, &o, &r), 0);
}

static void test_stdin(void **state)
{
	struct fx *f = *state;
	struct res r;
	int fd, saved;
	char path[4300];

	saved = dup(0);
	fd = open(FX "s2x.jsonl", O_RDONLY);
	assert_true(fd >= 0 && saved >= 0);
	dup2(fd, 0);
	close(fd);
	assert_int_equal(import1(f->s, "-", &r), 0);
	dup2(saved, 0);
	assert_int_equal(r.nrun, 1);
	assert_int_equal(r.events[0], ref_events(f->dir));
	/* an archive on stdin */
	snprintf(path, sizeof(path), "%s/in.tar.gz", f->dir);
	write_archive(path, AR_TGZ, session_members, 4);
	fd = open(path, O_RDONLY);
	dup2(fd, 0);
	close(fd);
	assert_int_equal(import1(f->s, "-", &r), 0);
	dup2(saved, 0);
	close(saved);
	assert_int_equal(r.nrun, 2);
}

static void test_strict_and_missing(void **state)
{
	struct fx *f = *state;
	struct res r;
	kt_import_opts o;
	char *paths[2] = { FX "malformed.jsonl", FX "s2x.jsonl" };
	kt_run_info ri;
	char id[KT_RUN_ID_HEX + 1];

	memset(&o, 0, sizeof(o));
	o.strict = 1;
	o.on_run = on_run;
	o.on_warn = on_warn;
	memset(&r, 0, sizeof(r));
	o.arg = &r;
	/* the first problem stops everything: the later file is not read */
	assert_int_equal(kt_import_paths(f->s, paths, 2, &o), KT_EPARSE);
	assert_non_null(strstr(r.warn, "malformed.jsonl"));
	kt_run_id_from_identity("claude_code:s2x", id);
	assert_int_equal(kt_run_get(f->s, id, &ri), KT_ENOTFOUND);
	/* a missing path is an error, reported by name */
	assert_int_equal(import1(f->s, "tests/data/import/claude/nope.jsonl",
				 &r), KT_ENOTFOUND);
	assert_non_null(strstr(r.warn, "nope.jsonl"));
	/* a file no importer knows, named directly: reported, and the call
	 * fails as for an empty input (no other path gave a run) */
	assert_int_equal(import1(f->s, "Makefile", &r), KT_ENOTFOUND);
	assert_non_null(strstr(r.warn, "format not recognized"));
	assert_int_equal(kt_store_verify(f->s, NULL, NULL, NULL), 0);
}

/* A stream beyond max_total fails that source (KT_ENOTFOUND, as a missing
 * path); skipped folder entries and empty folders are reported.  The
 * stream is a finite file on fd 0 (never /dev/zero: a regression would
 * read without end). */
static void test_stream_bound_and_skips(void **state)
{
	struct fx *f = *state;
	struct res r;
	kt_import_opts o;
	char path[4300], link[4400], fifo[4400];
	char *buf = calloc(1, 300000);
	int fd, saved;
	size_t len;
	FILE *fp;

	assert_non_null(buf);
	snprintf(path, sizeof(path), "%s/zeros", f->dir);
	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(buf, 1, 300000, fp), 300000);
	fclose(fp);
	free(buf);
	saved = dup(0);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0 && saved >= 0);
	dup2(fd, 0);
	close(fd);
	memset(&o, 0, sizeof(o));
	o.max_total = 100000;
	assert_int_equal(import_opts(f->s, "-", &o, &r), KT_ENOTFOUND);
	dup2(saved, 0);
	close(saved);
	assert_int_equal(r.nrun, 0);
	assert_non_null(strstr(r.warn, "-: input larger than 100000 bytes"));
	/* an empty folder */
	snprintf(path, sizeof(path), "%s/empty", f->dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(import1(f->s, path, &r), KT_ENOTFOUND);
	assert_non_null(strstr(r.warn, "empty: no files"));
	/* a dangling link and a FIFO beside a session: reported, imported */
	snprintf(link, sizeof(link), "%s/gone.jsonl", path);
	assert_int_equal(symlink("/nonexistent/x.jsonl", link), 0);
	snprintf(fifo, sizeof(fifo), "%s/fifo.jsonl", path);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(import1(f->s, path, &r), KT_ENOTFOUND);
	assert_int_equal(r.nrun, 0);
	assert_null(strstr(r.warn, "no files"));
	buf = tu_slurp(FX "s2x.jsonl", &len);
	assert_non_null(buf);
	snprintf(link, sizeof(link), "%s/s2x.jsonl", path);
	fp = fopen(link, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(buf, 1, len, fp), len);
	fclose(fp);
	free(buf);
	assert_int_equal(import1(f->s, path, &r), 0);
	assert_int_equal(r.nrun, 1);
	assert_non_null(strstr(r.warn, "gone.jsonl: skipped: dangling link"));
	assert_non_null(strstr(r.warn, "fifo.jsonl: skipped: not a regular file"));
	assert_int_equal(kt_store_verify(f->s, NULL, NULL, NULL), 0);
}

/* another file with the same identity must not be spliced onto a run */
static void test_same_identity_other_source(void **state)
{
	struct fx *f = *state;
	struct res r;
	char path[4300], *src, *nl;
	size_t len;
	FILE *o;
	uint64_t n;

	assert_int_equal(import1(f->s, FX "s2x.jsonl", &r), 0);
	n = r.events[0];
	src = tu_slurp(FX "s2x.jsonl", &len);
	assert_non_null(src);
	nl = strchr(src, '\n');
	snprintf(path, sizeof(path), "%s/other.jsonl", f->dir);
	o = fopen(path, "wb");
	fputs(nl + 1, o); /* the same session without its first line */
	/* and then longer than the stored run: the session again, each line
	 * with a trailing space (a line given twice byte for byte is
	 * skipped as a repeat, and this is about other content) */
	for (char *p = src, *e; *p; p = e + 1) {
		e = strchr(p, '\n');
		fwrite(p, 1, e ? (size_t)(e - p) : strlen(p), o);
		fputs(" \n", o);
		if (!e)
			break;
	}
	fclose(o);
	free(src);
	assert_int_equal(import1(f->s, path, &r), 0);
	assert_int_equal(r.nrun, 1);
	assert_int_equal(r.added[0], 0);
	assert_int_equal(r.events[0], n);
	assert_non_null(strstr(r.warn, "does not continue"));
}

static void check_path(const char *cwd, const char *p, const char *want)
{
	char *got = kt_ws_path(cwd, p);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_ws_path(void **state)
{
	(void)state;
	check_path("/a/b", "c.cu", "/a/b/c.cu");
	check_path("/a/b", "./c/../d.cu", "/a/b/d.cu");
	check_path("/a/b", "../../../x", "/x");
	check_path("/a/b/", "/abs//p/./q", "/abs/p/q");
	check_path(NULL, "a/./b/../c", "a/c");
	check_path(NULL, "../x/y", "../x/y");
	check_path(NULL, "a/../../x", "../x");
	check_path("", "x", "x");
	check_path(NULL, ".", ".");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_folder_and_archives, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_archive_provenance, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_gz_single_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_members, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bomb_ratio, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stdin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_bound_and_skips,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_strict_and_missing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_same_identity_other_source,
						setup, teardown),
		cmocka_unit_test(test_ws_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
