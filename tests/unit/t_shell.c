/* t_shell.c - shell classification: writes from shell commands, compile
 * detection and exit codes (kt_sh_plan_build, no store), and end to end
 * through the driver on a small Claude Code fixture. */
#include "testutil.h"
#include "../../import/import.h"
#include "../../import/shellparse.h"

static struct kt_sh_plan plan(const char *cmd, const char *cwd,
			      const char *out, int ok)
{
	struct kt_sh_plan p;

	assert_int_equal(kt_sh_plan_build(cmd, cwd, out, -1, ok, &p), 0);
	return p;
}

/* exactly one write op to path with content want */
static void one_write(const char *cmd, const char *cwd, const char *out,
		      int ok, int op, const char *path, const char *want)
{
	struct kt_sh_plan p = plan(cmd, cwd, out, ok);

	if (p.nops != 1)
		fail_msg("%s: %zu ops", cmd, p.nops);
	assert_int_equal(p.ops[0].op, op);
	assert_string_equal(p.ops[0].path, path);
	assert_true(p.ops[0].have_data);
	assert_int_equal(p.ops[0].len, strlen(want));
	assert_memory_equal(p.ops[0].data, want, strlen(want));
	kt_sh_plan_free(&p);
}

static void no_ops(const char *cmd, const char *cwd, const char *out, int ok)
{
	struct kt_sh_plan p = plan(cmd, cwd, out, ok);

	if (p.nops)
		fail_msg("%s: expected no ops, got %zu (%s)", cmd, p.nops,
			 p.ops[0].path);
	kt_sh_plan_free(&p);
}

/* exactly one op: path changed in a way the text does not show */
static void one_unknown(const char *cmd, const char *cwd, const char *out,
			int ok, const char *path)
{
	struct kt_sh_plan p = plan(cmd, cwd, out, ok);

	if (p.nops != 1)
		fail_msg("%s: %zu ops", cmd, p.nops);
	assert_int_equal(p.ops[0].op, KT_SH_UNKNOWN);
	assert_string_equal(p.ops[0].path, path);
	assert_false(p.ops[0].have_data);
	kt_sh_plan_free(&p);
}

static void t_heredoc(void **st)
{
	(void)st;
	one_write("cat > k.cu << 'EOF'\n$x `y` \\n\nEOF", "/w", "", 1,
		  KT_SH_WRITE, "/w/k.cu", "$x `y` \\n\n");
	one_write("cat <<EOF >out/a.txt\nprice \\$5 a\\\\b\nEOF\n", "/w", "", 1,
		  KT_SH_WRITE, "/w/out/a.txt", "price $5 a\\b\n");
	one_write("cat <<-\"END\" > t.py\n\tif x:\n\t\tpass\n\tEND", "/w", "", 1,
		  KT_SH_WRITE, "/w/t.py", "if x:\npass\n");
	one_write("cat >> log.txt <<EOF\nline\nEOF", "/w", "", 1,
		  KT_SH_APPEND, "/w/log.txt", "line\n");
	one_write("tee /abs/f.c <<'X' >/dev/null\nint a;\nX", NULL, "", 1,
		  KT_SH_WRITE, "/abs/f.c", "int a;\n");
	/* expansions in an unquoted here-document: content unknown */
	one_unknown("cat > k.cu <<EOF\nint n = $N;\nEOF", "/w", "", 1,
		    "/w/k.cu");
	one_unknown("cat > k.cu <<EOF\nint n = $(nproc);\nEOF", "/w", "", 1,
		    "/w/k.cu");
	/* never terminated, or bash says the tool changed it */
	one_unknown("cat > k.cu <<EOF\nint n;\n", "/w", "", 1, "/w/k.cu");
	one_unknown("cat > k.cu << 'EOF'\nint n;\nEOF", "/w",
	       "bash: warning: here-document at line 1 delimited by "
	       "end-of-file (wanted `EOF')", 1, "/w/k.cu");
}

static void t_echo_printf(void **st)
{
	(void)st;
	one_write("echo hello   world > a.txt", "/w", "", 1, KT_SH_WRITE,
		  "/w/a.txt", "hello world\n");
	one_write("echo -n 'a\\tb' > a.txt", "/w", "", 1, KT_SH_WRITE,
		  "/w/a.txt", "a\\tb");
	one_write("echo -e \"a\\tb\\x41\\0101\" > a.txt", "/w", "", 1,
		  KT_SH_WRITE, "/w/a.txt", "a\tbAA\n");
	one_write("printf 'x=%%d\\n\\101\\tend' > p.txt", "/w", "", 1,
		  KT_SH_WRITE, "/w/p.txt", "x=%d\nA\tend");
	one_write("printf \"it's\\n\" >> p.txt", "/w", "", 1, KT_SH_APPEND,
		  "/w/p.txt", "it's\n");
	one_write("echo $'a\\nb' > q", "/w", "", 1, KT_SH_WRITE, "/w/q",
		  "a\nb\n");
	one_write("echo hi | tee -a t.log", "/w", "", 1, KT_SH_APPEND,
		  "/w/t.log", "hi\n");
	one_write("printf 'data' | tee copy.txt > /dev/null", "/w", "", 1,
		  KT_SH_WRITE, "/w/copy.txt", "data");
	/* unknown content: variables, globs, printf conversions */
	one_unknown("echo $HOME > a.txt", "/w", "", 1, "/w/a.txt");
	one_unknown("echo *.c > list", "/w", "", 1, "/w/list");
	one_unknown("printf '%s\\n' > a.txt", "/w", "", 1, "/w/a.txt");
	one_unknown("printf '%s\\n' x > a.txt", "/w", "", 1, "/w/a.txt");
	no_ops("echo x > /dev/null; echo y >&2", "/w", "", 1);
	/* the redirection target itself failed */
	no_ops("echo x > nodir/a.txt", "/w",
	       "bash: nodir/a.txt: No such file or directory", 0);
}

/* the paths of a plan's KT_SH_UNKNOWN ops, joined by spaces */
static void unknown_paths(const char *cmd, const char *out, int ok,
			  const char *want)
{
	struct kt_sh_plan p = plan(cmd, "/w", out, ok);
	char got[512] = "";

	for (size_t i = 0; i < p.nops; i++) {
		if (p.ops[i].op != KT_SH_UNKNOWN)
			fail_msg("%s: op %zu is %d", cmd, i, p.ops[i].op);
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s",
			 i ? " " : "", p.ops[i].path);
	}
	if (strcmp(got, want))
		fail_msg("%s: unknown ops '%s', want '%s'", cmd, got, want);
	kt_sh_plan_free(&p);
}

static void t_unknown_changes(void **st)
{
	(void)st;
	/* GNU and BSD sed in place; the script is not a file */
	unknown_paths("sed -i 's/a/b/' k.cu", "", 1, "/w/k.cu");
	unknown_paths("sed -i.bak -e 's/a/b/' -e 's/c/d/' a.cu b/c.cu", "", 1,
		      "/w/a.cu /w/b/c.cu");
	unknown_paths("sed -i '' 's/a/b/' k.cu", "", 1, "/w/k.cu");
	unknown_paths("sed -Ei -f fix.sed k.cu", "", 1, "/w/k.cu");
	unknown_paths("sed --in-place=.orig --expression='s/a/b/' k.cu", "", 1,
		      "/w/k.cu");
	/* not in place: only a redirection target changes */
	unknown_paths("sed -n 1,5p k.cu", "", 1, "");
	unknown_paths("sed 's/a/b/' k.cu > out.cu", "", 1, "/w/out.cu");
	/* perl -pi, -i.bak, -i -pe; a program file as first operand */
	unknown_paths("perl -pi -e 's/a/b/' k.cu", "", 1, "/w/k.cu");
	unknown_paths("perl -i.bak -pe 's/a/b/' x.h y.h", "", 1,
		      "/w/x.h /w/y.h");
	unknown_paths("perl -pi fix.pl k.cu", "", 1, "/w/k.cu");
	unknown_paths("perl -e 'print 1' k.cu", "", 1, "");
	/* a program's output over a file, any stream */
	unknown_paths("python gen.py > out.cu", "", 1, "/w/out.cu");
	unknown_paths("nvcc -c k.cu 2> err.txt >> log.txt", "", 1,
		      "/w/err.txt /w/log.txt");
	unknown_paths("./bench > /dev/null 2>&1", "", 1, "");
	unknown_paths("python gen.py | tee -a out.cu log.txt", "", 1,
		      "/w/out.cu /w/log.txt");
	/* globs and variables: the known files they may name, as sets
	 * (t_import_shellwide.c) */
	/* a command known not to have run changes nothing */
	unknown_paths("cd nope && sed -i 's/a/b/' k.cu", "/bin/bash: line 1: "
		      "cd: nope: No such file or directory", 0, "");
}

static void t_cwd_and_lists(void **st)
{
	struct kt_sh_plan p;

	(void)st;
	one_write("cd build && echo x > f", "/w", "", 1, KT_SH_WRITE,
		  "/w/build/f", "x\n");
	one_write("cd /tmp/z; cd ../y && echo x > ./f", NULL, "", 1,
		  KT_SH_WRITE, "/tmp/y/f", "x\n");
	/* relative paths with no cwd stay relative */
	one_write("echo x > a/../b.txt", NULL, "", 1, KT_SH_WRITE, "b.txt",
		  "x\n");
	/* cd to somewhere unknown: relative writes dropped, absolute kept */
	no_ops("cd $DIR && echo x > f", "/w", "", 1);
	one_write("cd $DIR && echo x > /abs/f", "/w", "", 1, KT_SH_WRITE,
		  "/abs/f", "x\n");
	/* a failed cd shows in the output: the write did not happen */
	no_ops("cd nope && echo x > f", "/w",
	       "/bin/bash: line 1: cd: nope: No such file or directory", 0);
	/* failed call, write before the failing compile still happened */
	one_write("echo 'int x' > t.c && gcc -c t.c", "/w",
		  "t.c:1:6: error: expected ';' at end of input", 0,
		  KT_SH_WRITE, "/w/t.c", "int x\n");
	/* failed call, unknown whether the write was reached: the file
	 * may have changed */
	one_unknown("./configure && echo x > f", "/w", "oops", 0, "/w/f");
	/* the right side of || is not known to run */
	one_unknown("make || echo x > f", "/w", "", 1, "/w/f");
	/* refused by the user: nothing ran */
	p = plan("echo x > f", "/w", "The user doesn't want to proceed with "
		 "this tool use.", 0);
	assert_true(p.nothing_ran);
	assert_int_equal(p.nops, 0);
	kt_sh_plan_free(&p);
	/* cd - returns to OLDPWD as bash does; before any cd of the command
	 * OLDPWD is not known, so relative paths are not followed */
	one_write("cd build && cd - && echo x > f", "/w", "", 1, KT_SH_WRITE,
		  "/w/f", "x\n");
	one_write("cd /a; cd /b; cd -; echo x > f", NULL, "", 1, KT_SH_WRITE,
		  "/a/f", "x\n");
	one_write("cd /a && cd /b && cd - >/dev/null && cd - && echo x > f",
		  "/w", "", 1, KT_SH_WRITE, "/b/f", "x\n");
	/* back to a start the caller did not know: relative again */
	one_write("cd /abs && cd - && echo x > f", NULL, "", 1, KT_SH_WRITE,
		  "f", "x\n");
	no_ops("cd - && echo x > f", "/w", "", 1);
	no_ops("cd $D && cd /a && cd - && echo x > f", "/w", "", 1);
	/* cd alone (or ~) goes home, which we do not know: relative paths
	 * unknown, absolute ones kept; cd - comes back */
	no_ops("cd && echo x > f", "/w", "", 1);
	no_ops("cd ~ && echo x > f", "/w", "", 1);
	one_write("cd && echo x > /abs/f", "/w", "", 1, KT_SH_WRITE, "/abs/f",
		  "x\n");
	one_write("cd; cd -; echo x > f", "/w", "", 1, KT_SH_WRITE, "/w/f",
		  "x\n");
	one_write("cd -P build && echo x > f", "/w", "", 1, KT_SH_WRITE,
		  "/w/build/f", "x\n");
	/* pushd DIR / popd / pushd (swap) */
	one_write("pushd build && echo x > f", "/w", "", 1, KT_SH_WRITE,
		  "/w/build/f", "x\n");
	one_write("pushd build >/dev/null && make && popd && echo x > f", "/w",
		  "", 1, KT_SH_WRITE, "/w/f", "x\n");
	one_write("pushd /a; pushd /b; popd; echo x > f", "/w", "", 1,
		  KT_SH_WRITE, "/a/f", "x\n");
	one_write("pushd /a && pushd /b && pushd && echo x > f", "/w", "", 1,
		  KT_SH_WRITE, "/a/f", "x\n");
	one_write("pushd /a && pushd && echo x > f", "/w", "", 1,
		  KT_SH_WRITE, "/w/f", "x\n");
	/* a stack entry from before the command, +N/-N: not followed */
	no_ops("popd && echo x > f", "/w", "", 1);
	no_ops("pushd && echo x > f", "/w", "", 1);
	no_ops("pushd /a && pushd +1 && echo x > f", "/w", "", 1);
	no_ops("pushd /a && popd -0 && echo x > f", "/w", "", 1);
	/* a popd that failed changed nothing */
	no_ops("pushd nope && echo x > f", "/w",
	       "/bin/bash: line 1: pushd: nope: No such file or directory", 0);
	/* chains: each step runs where the cds before it led */
	p = plan("cd sub && rm old.c && cd - && rm k.cu && cd /t && "
		 "echo x > f", "/w", "", 1);
	assert_int_equal(p.nops, 3);
	assert_string_equal(p.ops[0].path, "/w/sub/old.c");
	assert_string_equal(p.ops[1].path, "/w/k.cu");
	assert_string_equal(p.ops[2].path, "/t/f");
	kt_sh_plan_free(&p);
	/* opaque constructs stop the analysis */
	p = plan("for f in a b; do echo x > $f; done", "/w", "", 1);
	assert_true(p.opaque);
	assert_int_equal(p.nops, 0);
	kt_sh_plan_free(&p);
}

static void t_rm_mv_cp(void **st)
{
	struct kt_sh_plan p;

	(void)st;
	p = plan("rm -f a.c b.c && mv x.cu src/ && cp k.cu k2.cu && mv y z",
		 "/w", "", 1);
	assert_int_equal(p.nops, 5);
	assert_int_equal(p.ops[0].op, KT_SH_DELETE);
	assert_string_equal(p.ops[0].path, "/w/a.c");
	assert_string_equal(p.ops[1].path, "/w/b.c");
	assert_int_equal(p.ops[2].op, KT_SH_WRITE);
	assert_string_equal(p.ops[2].path, "/w/src/x.cu");
	assert_false(p.ops[2].have_data);
	assert_int_equal(p.ops[2].nfiles, 1);
	assert_string_equal(p.ops[2].files[0], "/w/x.cu");
	assert_int_equal(p.ops[3].op, KT_SH_DELETE);
	assert_string_equal(p.ops[3].path, "/w/x.cu");
	assert_string_equal(p.ops[4].path, "/w/k2.cu");
	/* "mv y z": z may be a directory, so nothing is claimed */
	kt_sh_plan_free(&p);
	/* failed removals */
	no_ops("rm a.c", "/w", "rm: cannot remove 'a.c': No such file", 0);
	no_ops("rm -rf build", "/w", "rm: cannot remove 'build': Permission "
	       "denied", 0);
	p = plan("cat a.c b.c > all.c", "/w", "", 1);
	assert_int_equal(p.nops, 1);
	assert_int_equal(p.ops[0].nfiles, 2);
	assert_string_equal(p.ops[0].files[1], "/w/b.c");
	kt_sh_plan_free(&p);
}

/* The ops of cmd run in /w, as "OP:path" joined by spaces (D delete, DU
 * delete under, U unknown, UU unknown under, UG unknown glob, UT unknown
 * tree; a "~" after the op: present_only). */
static void rm_plan(const char *cmd, int ok, const char *want)
{
	struct kt_sh_plan p = plan(cmd, "/w", "", ok);
	char got[1024] = "";

	for (size_t i = 0; i < p.nops; i++) {
		const char *o = p.ops[i].op == KT_SH_DELETE ? "D" :
			p.ops[i].op == KT_SH_DELETE_UNDER ? "DU" :
			p.ops[i].op == KT_SH_UNKNOWN ? "U" :
			p.ops[i].op == KT_SH_UNKNOWN_UNDER ? "UU" :
			p.ops[i].op == KT_SH_UNKNOWN_GLOB ? "UG" :
			p.ops[i].op == KT_SH_UNKNOWN_TREE ? "UT" : "?";

		snprintf(got + strlen(got), sizeof(got) - strlen(got),
			 "%s%s%s:%s", i ? " " : "", o,
			 p.ops[i].present_only ? "~" : "", p.ops[i].path);
	}
	if (strcmp(got, want))
		fail_msg("%s: got '%s', want '%s'", cmd, got, want);
	kt_sh_plan_free(&p);
}

/* rm -r: everything known under the directory is deleted; globs and
 * variables make what they may name unknown (never deleted) */
static void t_rm_recursive(void **st)
{
	(void)st;
	rm_plan("rm -rf build", 1, "DU:/w/build D:/w/build");
	rm_plan("rm -fr build/ out/a.txt", 1,
		"DU:/w/build D:/w/build DU:/w/out/a.txt D:/w/out/a.txt");
	rm_plan("rm -R -f /abs/dir", 1, "DU:/abs/dir D:/abs/dir");
	rm_plan("rm --recursive --force -- build -x", 1,
		"DU:/w/build D:/w/build DU:/w/-x D:/w/-x");
	rm_plan("rm -r build -v", 1, "DU:/w/build D:/w/build");
	rm_plan("cd sub && rm -rf obj", 1, "DU:/w/sub/obj D:/w/sub/obj");
	/* after the cwd is lost a relative name is not followed (as for
	 * writes); an absolute one is */
	rm_plan("cd $X && rm -rf obj", 1, "");
	rm_plan("cd $X && rm -rf /w/obj", 1, "DU:/w/obj D:/w/obj");
	/* not recursive: the file only */
	rm_plan("rm -f build", 1, "D:/w/build");
	/* globs: unknown, with -r also what lies under a match */
	rm_plan("rm test_*.c", 1, "UG~:/w/test_*.c");
	rm_plan("rm build/*", 1, "UG~:/w/build/*");
	rm_plan("rm -rf build/*", 1, "UT~:/w/build/*");
	/* a variable: every known file under the cwd */
	rm_plan("rm -rf $DIR", 1, "UU~:/w");
	rm_plan("rm -f \"$OUT\"/a.o", 1, "UU~:/w");
	/* an option rm does not have: as if recursive, not certain */
	rm_plan("rm --bogus build", 1, "UU~:/w/build");
	/* may have run (make or rm failed; which, the output does not
	 * say): unknown */
	rm_plan("make && rm -rf build", 0, "UU~:/w/build");
	/* in a loop: unknown */
	rm_plan("for d in a b; do rm -rf build; done", 1, "UU~:/w/build");
	/* GNU rm refuses . and .. operands and / (preserve-root) */
	rm_plan("rm -rf .", 1, "");
	rm_plan("rm -rf ./ build", 1, "DU:/w/build D:/w/build");
	rm_plan("rm -rf /w/d/sub/..", 1, "");
	rm_plan("cd d && rm -rf ..", 1, "");
	rm_plan("rm -rf /", 1, "");
	rm_plan("rm -rf //", 1, "");
	/* --no-preserve-root: / goes like any directory, with everything
	 * known under it (the last of it and --preserve-root counts); not
	 * without -r, and . and .. stay refused */
	rm_plan("rm -rf --no-preserve-root /", 1, "DU:/");
	rm_plan("rm -r --no-preserve-root /", 1, "DU:/");
	rm_plan("rm --no-preserve-root -fR // build", 1,
		"DU:/ DU:/w/build D:/w/build");
	rm_plan("cd /tmp && rm -rf --no-preserve-root /", 1, "DU:/");
	rm_plan("rm -rf --no-preserve-root --preserve-root /", 1, "");
	rm_plan("rm -rf --preserve-root=all /", 1, "");
	rm_plan("rm --no-preserve-root /", 1, "");
	rm_plan("rm -rf --no-preserve-root . ..", 1, "");
	rm_plan("rm -rf --no-preserve-root /w/d/..", 1, "");
	rm_plan("rm -rf -- --no-preserve-root /", 1,
		"DU:/w/--no-preserve-root D:/w/--no-preserve-root");
	/* may have run: what is under / becomes unknown */
	rm_plan("make && rm -rf --no-preserve-root /", 0, "UU~:/");
	rm_plan("rm -rf .build", 1, "DU:/w/.build D:/w/.build");
	rm_plan("rm -rf ..x", 1, "DU:/w/..x D:/w/..x");
}

static const struct kt_sh_compile *one_cc(struct kt_sh_plan *p)
{
	if (p->ncc != 1)
		fail_msg("expected one compile, got %zu", p->ncc);
	return &p->cc[0];
}

static void t_compile(void **st)
{
	struct kt_sh_plan p;
	const struct kt_sh_compile *c;

	(void)st;
	p = plan("CUDA_HOME=/x timeout 60 /usr/local/cuda/bin/nvcc -O3 "
		 "-gencode arch=compute_80,code=sm_80 -arch=sm_90a k.cu "
		 "-o k && ./k", "/w", "ok", 1);
	c = one_cc(&p);
	assert_string_equal(c->compiler, "nvcc");
	assert_int_equal(c->exit_code, 0);
	assert_string_equal(c->arch, "sm_80,sm_90a");
	assert_int_equal(c->nsources, 1);
	assert_string_equal(c->sources[0], "/w/k.cu");
	assert_string_equal(c->cwd, "/w");
	assert_non_null(strstr(c->command, "nvcc -O3"));
	assert_null(strstr(c->command, "./k"));
	assert_true(p.bench);
	assert_string_equal(p.bench_prog, "k");
	kt_sh_plan_free(&p);

	p = plan("cd build && make -j$(nproc) 2>&1 | tail -5", "/w",
		 "[100%] Built target x", 1);
	c = one_cc(&p);
	assert_string_equal(c->compiler, "make");
	assert_string_equal(c->cwd, "/w/build");
	assert_int_equal(c->exit_code, 0);     /* ok and no error shown */
	assert_false(p.bench);
	kt_sh_plan_free(&p);

	p = plan("make", "/w", "k.cu(3): error: bad\nmake: *** [all] Error 2",
		 0);
	c = one_cc(&p);
	assert_int_equal(c->exit_code, 2);
	assert_non_null(c->diag);
	assert_non_null(strstr(c->diag, "k.cu(3): error"));
	kt_sh_plan_free(&p);

	p = plan("gcc -Wall a.c b.cpp -o ab", "/w",
		 "a.c: In function 'main':\na.c:3:5: error: x undeclared\n"
		 "    3 |     x;\n      |     ^\nunrelated line\n", 0);
	c = one_cc(&p);
	assert_int_equal(c->exit_code, 1);
	assert_int_equal(c->nsources, 2);
	assert_non_null(strstr(c->diag, "    3 |     x;"));
	assert_null(strstr(c->diag, "unrelated"));
	kt_sh_plan_free(&p);

	/* the given exit code wins for the last command */
	assert_int_equal(kt_sh_plan_build("clang++ -c x.cc", NULL,
					  "x.cc:1:1: error: y", 4, 0, &p), 0);
	assert_int_equal(one_cc(&p)->exit_code, 4);
	kt_sh_plan_free(&p);
	p = plan("nvcc x.cu", "/w", "Exit code 3\nx.cu(1): error: z", 0);
	assert_int_equal(one_cc(&p)->exit_code, 3);
	kt_sh_plan_free(&p);

	p = plan("nvcc x.cu", "/w", "x.cu(1): error: z\n[The command "
		 "completed with exit code 5.]", 0);
	assert_int_equal(one_cc(&p)->exit_code, 5);
	kt_sh_plan_free(&p);

	p = plan("cd bench && nvcc k.cu", "/w",
		 "/bin/bash: line 1: nvcc: command not found", 0);
	assert_int_equal(one_cc(&p)->exit_code, 127);
	kt_sh_plan_free(&p);

	/* never ran: the cd before it failed */
	p = plan("cd nope && nvcc k.cu", "/w",
		 "/bin/bash: line 1: cd: nope: No such file or directory", 0);
	assert_int_equal(p.ncc, 0);
	kt_sh_plan_free(&p);

	/* a program after the compile failed: the compile succeeded */
	p = plan("gcc t.c -o t && ./t", "/w",
		 "./t: error while loading shared libraries: libx.so", 0);
	assert_int_equal(one_cc(&p)->exit_code, 0);
	assert_null(one_cc(&p)->diag);
	kt_sh_plan_free(&p);

	/* bash's time gives the duration */
	p = plan("time nvcc -c k.cu", "/w", "\nreal\t0m2.500s\nuser\t0m2.1s\n", 1);
	assert_true(one_cc(&p)->duration_ms == 2500.0);
	kt_sh_plan_free(&p);
	p = plan("nvcc -c k.cu", "/w", "\nreal\t0m2.500s\n", 1);
	assert_true(one_cc(&p)->duration_ms < 0);
	kt_sh_plan_free(&p);

	/* the message is the first make's: the second never ran */
	p = plan("make clean && make", "/w",
		 "make: *** No rule to make target 'clean'.  Stop.", 0);
	assert_int_equal(p.ncc, 0);
	kt_sh_plan_free(&p);
	p = plan("./configure && make", "/w", "oops", 0);
	assert_int_equal(p.ncc, 0);
	kt_sh_plan_free(&p);

	/* one event per build command of a chain */
	p = plan("cmake --build build -j && ninja -C build2 && g++-12 -c z.cc",
		 "/w", "", 1);
	assert_int_equal(p.ncc, 3);
	assert_string_equal(p.cc[0].compiler, "cmake");
	assert_string_equal(p.cc[1].compiler, "ninja");
	assert_string_equal(p.cc[2].compiler, "g++-12");
	kt_sh_plan_free(&p);

	/* not builds */
	p = plan("nvcc --version; gcc -v x.c --help; cmake .. -DX=1; "
		 "make clean; ninja -t targets; gcc -o x x.o", "/w", "", 1);
	assert_int_equal(p.ncc, 0);
	kt_sh_plan_free(&p);
}

static void t_runs_bench(void **st)
{
	(void)st;
	assert_true(kt_shell_runs_bench("./build/bench_gemm --n 4096"));
	assert_true(kt_shell_runs_bench("cd x && python3 bench.py --iters 5"));
	assert_true(kt_shell_runs_bench("timeout 60 ./a.out | tail"));
	assert_true(kt_shell_runs_bench("ncu --set full ./k"));
	assert_true(kt_shell_runs_bench("nsys profile -o r python run.py"));
	assert_true(kt_shell_runs_bench("CUDA_VISIBLE_DEVICES=1 python -m "
					"triton_bench"));
	assert_true(kt_shell_runs_bench("make bench"));
	assert_true(kt_shell_runs_bench("bash ./run_all.sh"));
	assert_true(kt_shell_runs_bench("cublas_benchmark --size 256"));
	assert_true(kt_shell_runs_bench("python3 - <<'EOF'\nprint(1)\nEOF"));
	assert_true(kt_shell_runs_bench("python -"));
	assert_false(kt_shell_runs_bench("python"));
	assert_false(kt_shell_runs_bench("ls -la build/"));
	assert_false(kt_shell_runs_bench("./bench --help"));
	assert_false(kt_shell_runs_bench("python -m pip install x"));
	assert_false(kt_shell_runs_bench("nvcc k.cu -o k"));
	assert_false(kt_shell_runs_bench("sleep 5 && cat results.json"));
	assert_false(kt_shell_runs_bench("make -j8"));
	assert_false(kt_shell_runs_bench("git log | head"));
	assert_false(kt_shell_runs_bench(""));
}

static void t_hostile(void **st)
{
	static const char *const odd[] = { "", "'", "\"", "$(", "${", "`",
		"<<", "<<EOF", "cat <<", "cat <<'", "echo \\", "a && && b",
		"| tee", "> ", "2>&", "cd", "mv", "rm -", "printf", "echo $'\\x",
		"echo -e '\\0", "((((", "))", "cat > f <<E\nE\nE", "x=1",
		"ls; ;", "\n\n\n", "nvcc -arch", "gcc -gencode arch=x,code=sm_",
		NULL };
	struct kt_sh_plan p;
	int i;

	(void)st;
	for (i = 0; odd[i]; i++) {
		assert_int_equal(kt_sh_plan_build(odd[i], "/w", odd[i], -1, 1,
						  &p), 0);
		kt_sh_plan_free(&p);
		assert_int_equal(kt_sh_plan_build(odd[i], NULL, NULL, -1, 0,
						  &p), 0);
		kt_sh_plan_free(&p);
		(void)kt_shell_runs_bench(odd[i]);
	}
}

static void t_paths(void **st)
{
	char *s;

	(void)st;
	s = kt_sh_path("/a/b", "../c/./d");
	assert_string_equal(s, "/a/c/d");
	free(s);
	s = kt_sh_path(NULL, "../x/../../y");
	assert_string_equal(s, "../../y");
	free(s);
	s = kt_sh_path("/", "../../z");
	assert_string_equal(s, "/z");
	free(s);
	s = kt_sh_path("/w", "/abs//p/");
	assert_string_equal(s, "/abs/p");
	free(s);
}

/* ---- the corpus session with shell-written test programs ------------------ */
struct ccpair {
	char id[64];
	char *cmd, *cwd;
};

/* Every Bash call of the real CUDA session, planned from its command and
 * output: the 9 echo/printf/heredoc writes that really happened (the 10th
 * here-document was changed by the tool, bash says so), the 29 builds. */
static void t_corpus_session(void **st)
{
	const char *c = tu_corpus();
	char path[4200], *data, *line, *save = NULL;
	struct ccpair *calls = NULL;
	size_t ncalls = 0, i, writes = 0, builds = 0, failed_builds = 0;
	int benches = 0;

	(void)st;
	if (!c)
		skip();
	snprintf(path, sizeof(path), "%s/claude_code/vsla_cuda_dev_f67ab274.jsonl",
		 c);
	data = tu_slurp(path, NULL);
	if (!data)
		skip();
	for (line = strtok_r(data, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		cJSON *j = cJSON_Parse(line), *m, *b;
		const char *cwd;

		if (!j)
			continue;
		cwd = cJSON_GetStringValue(cJSON_GetObjectItem(j, "cwd"));
		m = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "message"), "content");
		if (!cJSON_IsArray(m))
			m = NULL;
		cJSON_ArrayForEach(b, m) {
			const char *ty = cJSON_GetStringValue(cJSON_GetObjectItem(b, "type"));

			if (ty && !strcmp(ty, "tool_use") &&
			    !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(b, "name")), "Bash")) {
				calls = realloc(calls, (ncalls + 1) * sizeof(*calls));
				assert_non_null(calls);
				snprintf(calls[ncalls].id, 64, "%s",
					 cJSON_GetStringValue(cJSON_GetObjectItem(b, "id")));
				calls[ncalls].cmd = strdup(cJSON_GetStringValue(
					cJSON_GetObjectItem(cJSON_GetObjectItem(b, "input"),
							    "command")));
				calls[ncalls].cwd = strdup(cwd ? cwd : "/");
				ncalls++;
			} else if (ty && !strcmp(ty, "tool_result")) {
				const char *id = cJSON_GetStringValue(
					cJSON_GetObjectItem(b, "tool_use_id"));
				cJSON *ct = cJSON_GetObjectItem(b, "content");
				const char *out = cJSON_GetStringValue(ct);
				int ok = !cJSON_IsTrue(cJSON_GetObjectItem(b, "is_error"));
				struct kt_sh_plan p;

				if (cJSON_IsArray(ct) && cJSON_GetArraySize(ct))
					out = cJSON_GetStringValue(cJSON_GetObjectItem(
						cJSON_GetArrayItem(ct, 0), "text"));
				for (i = 0; id && i < ncalls; i++)
					if (!strcmp(calls[i].id, id))
						break;
				if (!id || i == ncalls)
					continue;
				assert_int_equal(kt_sh_plan_build(calls[i].cmd,
					calls[i].cwd, out ? out : "", -1, ok, &p), 0);
				for (size_t k = 0; k < p.nops; k++)
					writes += p.ops[k].have_data;
				builds += p.ncc;
				for (size_t k = 0; k < p.ncc; k++)
					failed_builds += p.cc[k].exit_code != 0;
				benches += p.bench;
				kt_sh_plan_free(&p);
			}
		}
		cJSON_Delete(j);
	}
	assert_int_equal(writes, 9);
	assert_int_equal(builds, 29);
	assert_int_equal(failed_builds, 15); /* incl. one "nvcc: command not found" */
	assert_true(benches > 10);
	for (i = 0; i < ncalls; i++) {
		free(calls[i].cmd);
		free(calls[i].cwd);
	}
	free(calls);
	free(data);
}

/* ---- end to end through the driver ---------------------------------------- */
struct counts {
	int edit, compile, bench;
	char edits[8][128];
	char compiles[4][512];
	char benches[2][512];
};

static int count_ev(const kt_event *ev, void *arg)
{
	struct counts *c = arg;

	if (ev->kind == KT_KIND_EDIT && c->edit < 8)
		snprintf(c->edits[c->edit], 128, "%.*s", (int)ev->payload_len,
			 ev->payload);
	if (ev->kind == KT_KIND_COMPILE && c->compile < 4)
		snprintf(c->compiles[c->compile], 512, "%.*s",
			 (int)ev->payload_len, ev->payload);
	if (ev->kind == KT_KIND_BENCH && c->bench < 2)
		snprintf(c->benches[c->bench], 512, "%.*s",
			 (int)ev->payload_len, ev->payload);
	c->edit += ev->kind == KT_KIND_EDIT;
	c->compile += ev->kind == KT_KIND_COMPILE;
	c->bench += ev->kind == KT_KIND_BENCH;
	return 0;
}

static int first_run(const kt_run_info *ri, void *arg)
{
	snprintf(arg, KT_RUN_ID_HEX + 1, "%s", ri->id);
	return 1;
}

static void t_end_to_end(void **st)
{
	char *dir = tu_tmpdir(), store[4200], run[KT_RUN_ID_HEX + 1] = "";
	char *paths[1] = { "tests/data/shell/session.jsonl" };
	kt_import_opts o;
	kt_store *s;
	struct counts c;
	cJSON *j;

	(void)st;
	if (access(paths[0], R_OK))
		skip();
	assert_non_null(dir);
	snprintf(store, sizeof(store), "%s/st", dir);
	assert_int_equal(kt_store_open(store, KT_OPEN_CREATE, &s), 0);
	memset(&o, 0, sizeof(o));
	o.max_total = KT_IMPORT_MAX_TOTAL;
	o.max_ratio = KT_IMPORT_MAX_RATIO;
	assert_int_equal(kt_import_paths(s, paths, 1, &o), 0);
	kt_run_foreach(s, first_run, run);
	assert_int_equal(strlen(run), KT_RUN_ID_HEX);
	memset(&c, 0, sizeof(c));
	assert_int_equal(kt_event_foreach(s, run, 1, 0, 0, count_ev, &c), 0);
	/* k.cu, notes.txt created then appended to then removed, t.c */
	assert_int_equal(c.edit, 5);
	assert_non_null(strstr(c.edits[0], "\"/w/proj/k.cu\""));
	assert_non_null(strstr(c.edits[2], "\"modify\""));
	assert_non_null(strstr(c.edits[3], "\"delete\""));
	/* nvcc ok, nvcc failed, gcc failed */
	assert_int_equal(c.compile, 3);
	j = cJSON_Parse(c.compiles[0]);
	assert_non_null(j);
	assert_int_equal(cJSON_GetObjectItem(j, "exit_code")->valueint, 0);
	assert_string_equal(cJSON_GetObjectItem(j, "arch")->valuestring,
			    "sm_90a");
	assert_string_equal(cJSON_GetObjectItem(j, "cwd")->valuestring,
			    "/w/proj/build");
	cJSON_Delete(j);
	j = cJSON_Parse(c.compiles[1]);
	assert_int_equal(cJSON_GetObjectItem(j, "exit_code")->valueint, 1);
	assert_non_null(cJSON_GetObjectItem(j, "diagnostics_blob"));
	cJSON_Delete(j);
	/* ./k printed one benchmark; ./t never ran */
	assert_int_equal(c.bench, 1);
	j = cJSON_Parse(c.benches[0]);
	assert_true(cJSON_GetObjectItem(j, "time_ms")->valuedouble == 1.5);
	assert_true(cJSON_GetObjectItem(j, "speedup")->valuedouble == 2.0);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "correct")));
	cJSON_Delete(j);
	kt_store_close(s);
	tu_rmrf(dir);
	free(dir);
}

/* The command that measured: the verifier, not an edit script on stdin
 * before it; for code on stdin or in -c, its first statement. */
static void t_bench_source(void **st)
{
	struct kt_sh_plan p;
	size_t at = 0, n = 0;
	static const char tb[] =
		"Traceback (most recent call last):\n  File \"x.py\"\n"
		"triton.compiler.errors.CompilationError: at 26:18:\n"
		"NameError(\"Cannot access global variable GROUP\")\n";

	(void)st;
	p = plan("python3 - <<'PY'\np='solution.py'\ns=open(p).read()\nPY\n"
		 "python kb_verifier.py reference.py solution.py config.json "
		 "reward.json\ncat reward.json\n", "/app", "", 1);
	assert_true(p.bench);
	assert_string_equal(p.bench_prog, "kb_verifier.py");
	assert_string_equal(p.bench_src, "python kb_verifier.py reference.py "
			    "solution.py config.json reward.json");
	kt_sh_plan_free(&p);
	p = plan("python - <<'EOF'\nimport torch\n\n# time it\n"
		 "print(bench(k))\nEOF\n", "/app", "", 1);
	assert_string_equal(p.bench_prog, "python -");
	/* what ran, then what it does: a line of the script alone named
	 * no program */
	assert_string_equal(p.bench_src, "python - (heredoc): print(bench(k))");
	kt_sh_plan_free(&p);
	p = plan("python -c 'import t; t.run(4096)'", "/app", "", 1);
	assert_string_equal(p.bench_src, "python -c: import t; t.run(4096)");
	kt_sh_plan_free(&p);
	/* a heredoc that runs the verifier by name is labelled by it */
	p = plan("python3 - <<'EOF'\nimport subprocess, json\n"
		 "subprocess.run(['python', 'kb_verifier.py', 'ref.py'])\n"
		 "print(json.load(open('reward.json')))\nEOF\n", "/app", "", 1);
	assert_string_equal(p.bench_src, "kb_verifier.py");
	kt_sh_plan_free(&p);
	p = plan("python3 - <<'EOF'\nimport runpy\n"
		 "runpy.run_path(\"bench/run_attn.py\")\nEOF\n", "/app", "", 1);
	assert_string_equal(p.bench_src, "bench/run_attn.py");
	kt_sh_plan_free(&p);
	/* builds that fail inside a program: failed compiles */
	assert_string_equal(kt_out_build_error(tb, strlen(tb), &at, &n),
			    "triton");
	assert_int_equal(at, strlen("Traceback (most recent call last):\n"
				    "  File \"x.py\"\n"));
	assert_string_equal(kt_out_build_error("E: torch._inductor.exc."
		"InductorError: LoweringException", 50, &at, &n),
		"torch.compile");
	assert_string_equal(kt_out_build_error("ninja: build stopped: "
		"subcommand failed.\nRuntimeError: Error building extension "
		"'w4'\n", 80, &at, &n), "cpp_extension");
	assert_string_equal(kt_out_build_error("/tmp/x/k.cu(12): error: "
		"identifier \"foo\" is undefined\n", 55, &at, &n), "nvcc");
	assert_null(kt_out_build_error("time: 1.2 ms\nall correct\n", 25, &at,
				       &n));
	/* g++ and ninja lines of an extension build; the diagnostic starts at
	 * the build's first line, named by the extension summary */
	{
		static const char ext[] = "x\nFAILED: k.cuda.o\n"
			"k.cu(4): error: bad\nRuntimeError: Error building "
			"extension 'k'\n";

		assert_string_equal(kt_out_build_error(ext, strlen(ext), &at,
						       &n), "cpp_extension");
		assert_int_equal(at, 2);
	}
	assert_string_equal(kt_out_build_error("k.cpp:3:1: error: x\n", 20,
					       &at, &n), "c++");
	assert_string_equal(kt_out_build_error("error: command '/usr/bin/g++' "
		"failed with exit code 1\n", 53, &at, &n), "setuptools");
	assert_string_equal(kt_out_build_error("FAILED: a/k.o \n", 15, &at,
					       &n), "ninja");
	assert_null(kt_out_build_error("FAILED: max abs diff 0.25\n", 26, &at,
				       &n));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_heredoc),
		cmocka_unit_test(t_echo_printf),
		cmocka_unit_test(t_unknown_changes),
		cmocka_unit_test(t_cwd_and_lists),
		cmocka_unit_test(t_rm_mv_cp),
		cmocka_unit_test(t_rm_recursive),
		cmocka_unit_test(t_compile),
		cmocka_unit_test(t_runs_bench),
		cmocka_unit_test(t_hostile),
		cmocka_unit_test(t_paths),
		cmocka_unit_test(t_corpus_session),
		cmocka_unit_test(t_end_to_end),
		cmocka_unit_test(t_bench_source),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
