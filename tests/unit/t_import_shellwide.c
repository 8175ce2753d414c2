/* t_import_shellwide.c - shell commands that change files they do not
 * name (import/README.md "Files a command does not name"): the plan's
 * KT_SH_UNKNOWN_UNDER / _GLOB / KT_SH_PATCH ops (kt_sh_plan_build, no
 * store), kt_sh_diff_targets, and the false positives kept out (a plain
 * benchmark script, reads, dry runs).  End to end through `ktraj cat`:
 * tests/cli/import_ws_wide.bats. */
#include "testutil.h"
#include "../../import/import.h"
#include "../../import/shellparse.h"

/* the plan's ops as "KIND:path" joined by spaces (KIND: U unknown, D
 * under, G glob, P patch, W write, A append, X delete) */
static void ops_out(const char *cmd, const char *cwd, const char *out,
		    int ok, const char *want)
{
	struct kt_sh_plan p;
	char got[2048] = "";
	static const char k[] = "?WAXUDGP";

	assert_int_equal(kt_sh_plan_build(cmd, cwd, out, -1, ok, &p), 0);
	for (size_t i = 0; i < p.nops; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got),
			 "%s%c:%s", i ? " " : "", k[p.ops[i].op],
			 p.ops[i].path);
	if (strcmp(got, want))
		fail_msg("%s: ops '%s', want '%s'", cmd, got, want);
	kt_sh_plan_free(&p);
}

static void ops_are(const char *cmd, const char *cwd, int ok,
		    const char *want)
{
	ops_out(cmd, cwd, "", ok, want);
}

static void t_scripts(void **st)
{
	(void)st;
	/* named as an editor: every known file under the cwd */
	ops_are("python fix.py", "/w", 1, "D:/w");
	ops_are("python3 -u scripts/apply_patch.py --all", "/w", 1, "D:/w");
	ops_are("python3 rewriteLaunch.py", "/w", 1, "D:/w");
	ops_are("./fix_all.sh", "/w", 1, "D:/w");
	ops_are("bash update_kernels.sh", "/w", 1, "D:/w");
	ops_are("cd src && python replace_names.py", "/w", 1, "D:/w/src");
	/* cwd unknown: every known file */
	ops_are("python fix.py", NULL, 1, "D:");
	/* not editors: a benchmark, a word that only contains "fix" */
	ops_are("python3 bench.py --n 10", "/w", 1, "");
	ops_are("python prefix_sum.py", "/w", 1, "");
	ops_are("python3 -m pytest -q", "/w", 1, "");
	ops_are("./run_bench", "/w", 1, "");
	/* inline code: only when it writes */
	ops_are("python3 - <<'EOF'\nimport re\ns = open('k.cu').read()\n"
		"open('k.cu', 'w').write(s)\nEOF", "/w", 1, "D:/w");
	ops_are("python3 <<'EOF'\nwith open(p, mode=\"a\") as f:\n  pass\nEOF",
		"/w", 1, "D:/w");
	ops_are("python3 - <<'EOF'\nimport pathlib\n"
		"pathlib.Path('a').write_text('x')\nEOF", "/w", 1, "D:/w");
	ops_are("python -c \"import os; os.replace('a', 'b')\"", "/w", 1,
		"D:/w");
	ops_are("python3 - <<'EOF'\nprint(open('weights.bin').read())\nEOF",
		"/w", 1, "");
	ops_are("python3 -c \"print(open('w.txt', 'r').read())\"", "/w", 1, "");
	/* a call known to have failed before running changes nothing */
	ops_out("cd nope && python fix.py", "/w", "/bin/bash: line 1: cd: "
		"nope: No such file or directory", 0, "");
	/* a failed call, not shown where: it may have run */
	ops_are("python fix.py", "/w", 0, "D:/w");
}

static void t_sed_globs_vars(void **st)
{
	(void)st;
	ops_are("sed -i 's/a/b/' src/*.cu", "/w", 1, "G:/w/src/*.cu");
	ops_are("sed -i 's/a/b/' /abs/k?.cu k.cu", "/w", 1,
		"G:/abs/k?.cu U:/w/k.cu");
	ops_are("sed -i 's/a/b/' $F", "/w", 1, "D:/w");
	ops_are("sed -i 's/a/b/' \"$DIR/k.cu\"", NULL, 1, "D:");
	/* braces: fnmatch has none, so the directory before them */
	ops_are("perl -pi -e 's/a/b/' src/{a,b}.cu", "/w", 1, "D:/w/src");
	/* not in place: nothing */
	ops_are("sed -n 1p src/*.cu", "/w", 1, "");
}

static void t_patch(void **st)
{
	(void)st;
	/* the patch file is read from the workspace when applied */
	ops_are("patch -p1 < fix.diff", "/w", 1, "P:/w/fix.diff");
	ops_are("patch -p0 -i /tmp/x.patch -d src", "/w", 1, "P:/tmp/x.patch");
	ops_are("git apply -p2 ../x.patch", "/w/sub", 1, "P:/w/x.patch");
	/* inline: the headers, stripped */
	ops_are("patch -p1 <<'EOF'\n--- a/src/k.cu\t2024-01-01 10:00\n"
		"+++ b/src/k.cu\t2024-01-01 10:01\n@@ -1 +1 @@\n-a\n+b\nEOF",
		"/w", 1, "U:/w/src/k.cu");
	ops_are("git apply <<'EOF'\ndiff --git a/x.cu b/x.cu\n--- a/x.cu\n"
		"+++ b/x.cu\n@@ -1 +1 @@\n-a\n+b\nEOF", "/w", 1, "U:/w/x.cu");
	/* one file named */
	ops_are("patch k.cu < fix.diff", "/w", 1, "U:/w/k.cu");
	/* from a pipe: unknown patch, every file under the cwd */
	ops_are("git diff HEAD~1 | patch -p1 -R", "/w", 1, "D:/w");
	/* dry runs and checks change nothing */
	ops_are("patch --dry-run -p1 < fix.diff", "/w", 1, "");
	ops_are("git apply --check x.patch", "/w", 1, "");
	ops_are("git apply --stat x.patch", "/w", 1, "");
	ops_are("git apply --cached x.patch", "/w", 1, "");
}

static void t_diff_targets(void **st)
{
	static const char d[] =
		"diff --git a/src/k.cu b/src/k.cu\n"
		"--- a/src/k.cu\n+++ b/src/k.cu\n@@ -1 +1 @@\n-a\n+b\n"
		"--- /dev/null\n+++ b/new/n.h\t2024-01-01 00:00:00\n"
		"@@ -0,0 +1 @@\n+x\n"
		"--- a/gone.c\n+++ /dev/null\n"
		"diff --git a/src/k.cu b/src/k.cu\n";
	char **t = NULL;
	size_t n = 0, i;

	(void)st;
	assert_int_equal(kt_sh_diff_targets(d, strlen(d), "/w", 1, &t, &n), 0);
	assert_int_equal(n, 3); /* each once */
	assert_string_equal(t[0], "/w/src/k.cu");
	assert_string_equal(t[1], "/w/new/n.h");
	assert_string_equal(t[2], "/w/gone.c");
	for (i = 0; i < n; i++)
		free(t[i]);
	free(t);
	/* no -p: the base name, as patch(1) does */
	assert_int_equal(kt_sh_diff_targets(d, strlen(d), "/w", -1, &t, &n), 0);
	assert_string_equal(t[0], "/w/k.cu");
	for (i = 0; i < n; i++)
		free(t[i]);
	free(t);
	/* nothing diff-like */
	assert_int_equal(kt_sh_diff_targets("hello\n", 6, "/w", 1, &t, &n), 0);
	assert_int_equal(n, 0);
	free(t);
}

static void t_git(void **st)
{
	(void)st;
	ops_are("git checkout -- src/k.cu b.h", "/w", 1,
		"D:/w/src/k.cu D:/w/b.h");
	ops_are("git checkout .", "/w/src", 1, "D:/w/src");
	ops_are("git checkout HEAD~1 k.cu", "/w", 1, "D:/w/k.cu");
	ops_are("git restore --source=HEAD src", "/w", 1, "D:/w/src");
	/* a branch: the whole tree, so every known file */
	ops_are("git checkout main", "/w", 1, "D:");
	ops_are("git stash", "/w", 1, "D:");
	ops_are("git stash pop", "/w", 1, "D:");
	ops_are("git reset --hard HEAD~1", "/w", 1, "D:");
	ops_are("git -C /repo reset --hard", "/w", 1, "D:/repo");
	ops_are("git pull --rebase", "/w", 1, "D:");
	/* no change to the files */
	ops_are("git checkout -b exp", "/w", 1, "");
	ops_are("git stash list", "/w", 1, "");
	ops_are("git reset HEAD k.cu", "/w", 1, "");
	ops_are("git restore --staged k.cu", "/w", 1, "");
	ops_are("git status && git diff", "/w", 1, "");
	ops_are("git clean -n", "/w", 1, "");
}

static void t_loops_and_tools(void **st)
{
	(void)st;
	/* loops, conditionals, subshells: read loosely; what they may
	 * write is unknown (never a write or a delete) */
	ops_are("for f in src/*.cu; do sed -i 's/a/b/' $f; done", "/w", 1,
		"D:/w");
	ops_are("for f in a.cu b.cu; do perl -pi -e 's/a/b/' src/$f; done",
		"/w", 1, "D:/w");
	ops_are("if true; then cat > k.cu <<'EOF'\nx\nEOF\nfi", "/w", 1,
		"U:/w/k.cu");
	ops_are("cd src && for i in 1 2; do ./bench >> log.txt; done", "/w", 1,
		"U:/w/src/log.txt");
	ops_are("(cd build && rm -f k.o)", "/w", 1, "U:/w/build/k.o");
	ops_are("(cd $B && rm -f k.o) && rm x.o", "/w", 1, "");
	ops_are("case $m in a) git stash;; esac", "/w", 1, "D:");
	/* a loop that only reads changes nothing */
	ops_are("for f in *.cu; do wc -l $f; done", "/w", 1, "");
	ops_are("while read l; do echo $l; done < list.txt", "/w", 1, "");
	/* find/xargs running an in-place editor, formatters */
	ops_are("find src -name '*.cu' -exec sed -i 's/a/b/' {} +", "/w", 1,
		"D:/w/src");
	ops_are("find . -name '*.o' -delete", "/w", 1, "D:/w");
	ops_are("find . -name '*.cu'", "/w", 1, "");
	ops_are("grep -l foo *.cu | xargs sed -i 's/foo/bar/'", "/w", 1,
		"D:/w");
	ops_are("clang-format -i src/k.cu", "/w", 1, "D:/w/src/k.cu");
	ops_are("clang-format src/k.cu", "/w", 1, "");
	ops_are("black .", "/w", 1, "D:/w");
	ops_are("black --check .", "/w", 1, "");
	ops_are("ruff format", "/w", 1, "D:/w");
}

/* tools that write what they reach: archives, rsync, in-place awk,
 * truncate, dd of= */
static void t_unpack(void **st)
{
	(void)st;
	ops_are("tar xf src.tar", "/w", 1, "D:/w");
	ops_are("tar -xzf src.tgz -C build", "/w", 1, "D:/w/build");
	ops_are("tar --extract -f a.tar", "/w", 1, "D:/w");
	ops_are("unzip -o src.zip", "/w", 1, "D:/w");
	ops_are("rsync -a /backup/ .", "/w", 1, "D:/w");
	ops_are("7z x a.7z", "/w", 1, "D:/w");
	ops_are("awk -i inplace '{print}' k.h", "/w", 1, "U:/w/k.h");
	ops_are("truncate -s 0 a.cu", "/w", 1, "U:/w/a.cu");
	ops_are("dd if=/dev/zero of=a.cu bs=1 count=1", "/w", 1, "U:/w/a.cu");
	/* creating or listing an archive, plain awk: nothing changes */
	ops_are("tar czf out.tgz src", "/w", 1, "");
	ops_are("tar -tf a.tar", "/w", 1, "");
	ops_are("awk '{print $1}' k.h", "/w", 1, "");
	/* failed, not shown where: it may have extracted part */
	ops_are("unzip -o src.zip", "/w", 0, "D:/w");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_scripts),
		cmocka_unit_test(t_unpack),
		cmocka_unit_test(t_sed_globs_vars),
		cmocka_unit_test(t_patch),
		cmocka_unit_test(t_diff_targets),
		cmocka_unit_test(t_git),
		cmocka_unit_test(t_loops_and_tools),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
