/*
 * t_codex_patch.c - Codex apply_patch grammar: parsing (strict markers,
 * heredoc leniency, hunks, chunks, move, end-of-file) and application
 * (context search with Codex's fallbacks), per codex-rs/apply-patch.
 */
#include "testutil.h"
#include "../../import/codex_patch.h"

static kt_cpatch *parse_ok(const char *s)
{
	kt_cpatch *p = NULL;
	char err[160];

	assert_int_equal(kt_cpatch_parse(s, strlen(s), &p, err, sizeof(err)), 0);
	assert_non_null(p);
	return p;
}

static void parse_bad(const char *s, const char *why)
{
	kt_cpatch *p = NULL;
	char err[160];

	assert_int_equal(kt_cpatch_parse(s, strlen(s), &p, err, sizeof(err)),
			 KT_EPARSE);
	assert_null(p);
	assert_non_null(strstr(err, why));
}

static char *apply(const kt_cpatch *p, size_t hunk, const char *orig, int *rc)
{
	char *out = NULL;
	size_t n = 0;

	*rc = kt_cpatch_apply_update(&p->hunks[hunk], orig, strlen(orig), &out,
				     &n);
	if (*rc == 0)
		assert_int_equal(strlen(out), n);
	return out;
}

static void t_add_delete_update_move(void **st)
{
	kt_cpatch *p = parse_ok("*** Begin Patch\n"
				"*** Add File: path/add.py\n+abc\n+def\n"
				"*** Delete File: path/delete.py\n"
				"*** Update File: path/update.py\n"
				"*** Move to: path/update2.py\n"
				"@@ def f():\n-    pass\n+    return 123\n"
				"*** End Patch");

	(void)st;
	assert_int_equal(p->n_hunks, 3);
	assert_int_equal(p->hunks[0].op, KT_CP_ADD);
	assert_string_equal(p->hunks[0].path, "path/add.py");
	assert_string_equal(p->hunks[0].contents, "abc\ndef\n");
	assert_int_equal(p->hunks[1].op, KT_CP_DELETE);
	assert_string_equal(p->hunks[1].path, "path/delete.py");
	assert_int_equal(p->hunks[2].op, KT_CP_UPDATE);
	assert_string_equal(p->hunks[2].move_to, "path/update2.py");
	assert_int_equal(p->hunks[2].n_chunks, 1);
	assert_int_equal(p->hunks[2].chunks[0].ctx.n, strlen("def f():"));
	assert_memory_equal(p->hunks[2].chunks[0].ctx.s, "def f():", 8);
	assert_int_equal(p->hunks[2].chunks[0].n_old, 1);
	assert_int_equal(p->hunks[2].chunks[0].n_new, 1);
	kt_cpatch_free(p);
}

static void t_markers(void **st)
{
	kt_cpatch *p;

	(void)st;
	parse_bad("bad", "first line");
	parse_bad("*** Begin Patch\nbad", "last line");
	parse_bad("*** Begin Patch\n*** Update File: t.py\n*** End Patch",
		  "empty");
	parse_bad("*** Begin Patch\n*** Frobnicate File: t.py\n*** End Patch",
		  "not a valid hunk header");
	parse_bad("*** Begin Patch\n*** Update File: t.py\n@@\nxbad\n"
		  "*** End Patch", "unexpected line");
	/* whitespace around markers, no hunks, CRLF patch lines */
	p = parse_ok("  *** Begin Patch \r\n*** End Patch  \r\n");
	assert_int_equal(p->n_hunks, 0);
	kt_cpatch_free(p);
	p = parse_ok("*** Begin Patch\r\n*** Add File: a\r\n+x\r\n"
		     "*** End Patch\r\n");
	assert_string_equal(p->hunks[0].contents, "x\n");
	kt_cpatch_free(p);
	/* heredoc wrapper of the lenient mode */
	p = parse_ok("<<'EOF'\n*** Begin Patch\n*** Add File: h.txt\n+hi\n"
		     "*** End Patch\nEOF\n");
	assert_int_equal(p->n_hunks, 1);
	assert_string_equal(p->hunks[0].path, "h.txt");
	kt_cpatch_free(p);
}

static void t_update_without_header_and_next_hunk(void **st)
{
	kt_cpatch *p = parse_ok("*** Begin Patch\n*** Update File: file2.py\n"
				" import foo\n+bar\n"
				"*** Update File: file.py\n@@\n+line\n"
				"*** Add File: other.py\n+content\n"
				"*** End Patch");
	char *out;
	int rc;

	(void)st;
	assert_int_equal(p->n_hunks, 3);
	assert_null(p->hunks[0].chunks[0].ctx.s);
	assert_int_equal(p->hunks[0].chunks[0].n_old, 1);
	assert_int_equal(p->hunks[0].chunks[0].n_new, 2);
	out = apply(p, 0, "import foo\nbaz\n", &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(out, "import foo\nbar\nbaz\n");
	free(out);
	/* pure addition goes to the end */
	out = apply(p, 1, "a\nb\n", &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(out, "a\nb\nline\n");
	free(out);
	kt_cpatch_free(p);
}

static void t_apply_chunks(void **st)
{
	kt_cpatch *p = parse_ok("*** Begin Patch\n*** Update File: m.txt\n"
				"@@\n foo\n-bar\n+BAR\n@@\n baz\n-qux\n+QUX\n"
				"*** End Patch");
	char *out;
	int rc;

	(void)st;
	out = apply(p, 0, "foo\nbar\nbaz\nqux\n", &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(out, "foo\nBAR\nbaz\nQUX\n");
	free(out);
	/* no final newline in the original: the result gets one */
	out = apply(p, 0, "foo\nbar\nbaz\nqux", &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(out, "foo\nBAR\nbaz\nQUX\n");
	free(out);
	/* context that is not there: the patch fails, nothing produced */
	out = apply(p, 0, "foo\nnope\n", &rc);
	assert_int_equal(rc, KT_ENOTFOUND);
	assert_null(out);
	kt_cpatch_free(p);
}

static void t_context_marker_and_fuzz(void **st)
{
	kt_cpatch *p = parse_ok("*** Begin Patch\n*** Update File: c.py\n"
				"@@ class B\n-    x = 1\n+    x = 2\n"
				"*** End Patch");
	kt_cpatch *q = parse_ok("*** Begin Patch\n*** Update File: q.txt\n"
				"@@\n-say \"hi\" - now\n+say hi\n"
				"*** End Patch");
	char *out;
	int rc;

	(void)st;
	/* the change goes after the context line, not at the first match */
	out = apply(p, 0, "class A\n    x = 1\nclass B\n    x = 1\n", &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(out, "class A\n    x = 1\nclass B\n    x = 2\n");
	free(out);
	/* trailing whitespace in the file is tolerated */
	out = apply(p, 0, "class B   \n    x = 1\t\n", &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(out, "class B   \n    x = 2\n");
	free(out);
	/* typographic quotes and dash fold to ASCII (seek_sequence.rs) */
	out = apply(q, 0, "say \xe2\x80\x9chi\xe2\x80\x9d \xe2\x80\x94 now\n",
		    &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(out, "say hi\n");
	free(out);
	kt_cpatch_free(p);
	kt_cpatch_free(q);
}

static void t_end_of_file(void **st)
{
	kt_cpatch *p = parse_ok("*** Begin Patch\n*** Update File: e.txt\n"
				"@@\n-x\n+y\n*** End of File\n*** End Patch");
	char *out;
	int rc;

	(void)st;
	assert_int_equal(p->hunks[0].chunks[0].eof, 1);
	/* with eof the last "x" is replaced, not the first */
	out = apply(p, 0, "x\nmid\nx\n", &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(out, "x\nmid\ny\n");
	free(out);
	kt_cpatch_free(p);
}

static void t_find(void **st)
{
	const char *cmd = "cd /w && apply_patch <<'PATCH'\n*** Begin Patch\n"
			  "*** Delete File: x\n*** End Patch\nPATCH\n";
	const char *s = NULL;
	size_t n = 0;
	kt_cpatch *p = NULL;

	(void)st;
	assert_int_equal(kt_cpatch_find(cmd, strlen(cmd), &s, &n), 1);
	assert_int_equal(kt_cpatch_parse(s, n, &p, NULL, 0), 0);
	assert_int_equal(p->n_hunks, 1);
	assert_int_equal(p->hunks[0].op, KT_CP_DELETE);
	kt_cpatch_free(p);
	assert_int_equal(kt_cpatch_find("ls -l", 5, &s, &n), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_add_delete_update_move),
		cmocka_unit_test(t_markers),
		cmocka_unit_test(t_update_without_header_and_next_hunk),
		cmocka_unit_test(t_apply_chunks),
		cmocka_unit_test(t_context_marker_and_fuzz),
		cmocka_unit_test(t_end_of_file),
		cmocka_unit_test(t_find),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
