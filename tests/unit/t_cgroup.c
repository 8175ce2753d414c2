/* t_cgroup.c - replay/cgroup.h: our group is found in cgroup v1 and v2
 * layouts (this build machine's hybrid one, Debian 12's unified one, a
 * container's), and where a group can be made here (root), its memory limit
 * stops pages a memfd holds, its pids.max stops forks, kt_cgroup_kill takes
 * every process, and a group a dead ktraj left is reclaimed. */
#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "testutil.h"
#include "../../store/store.h"
#include "../../replay/cgroup.h"

/* a v1 + v2 hybrid, as on this build machine */
static const char hyb_cg[] =
	"9:name=systemd:/\n8:pids:/\n6:freezer:/\n4:memory:/process_api/abc\n"
	"2:cpuacct:/\n1:cpu:/\n0::/\n";
static const char hyb_mi[] =
	"30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	"32 30 0:29 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
	"34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
	"36 30 0:33 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer\n"
	"38 30 0:35 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
	"40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
/* Debian 12 (systemd, unified), root logged in */
static const char deb_cg[] = "0::/user.slice/user-0.slice/session-3.scope\n";
static const char deb_mi[] =
	"22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,errors=remount-ro\n"
	"25 21 0:22 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 "
	"cgroup2 rw,nsdelegate,memory_recursiveprot\n";

static void t_locate(void **state)
{
	char dir[512], mnt[512];

	(void)state;
	assert_int_equal(kt_cgroup_locate(hyb_cg, hyb_mi, "memory", dir, sizeof(dir), mnt,
					  sizeof(mnt)), 0);
	assert_string_equal(dir, "/sys/fs/cgroup/memory/process_api/abc");
	assert_string_equal(mnt, "/sys/fs/cgroup/memory");
	assert_int_equal(kt_cgroup_locate(hyb_cg, hyb_mi, "pids", dir, sizeof(dir), NULL, 0), 0);
	assert_string_equal(dir, "/sys/fs/cgroup/pids");
	/* "cpu" is not "cpuacct", and name=systemd names no controller */
	assert_int_equal(kt_cgroup_locate(hyb_cg, hyb_mi, "cpu", dir, sizeof(dir), NULL, 0), 0);
	assert_string_equal(dir, "/sys/fs/cgroup/cpu");
	assert_int_equal(kt_cgroup_locate(hyb_cg, hyb_mi, "systemd", dir, sizeof(dir), NULL, 0),
			 KT_ENOTFOUND);
	assert_int_equal(kt_cgroup_locate(hyb_cg, hyb_mi, "", dir, sizeof(dir), mnt, sizeof(mnt)),
			 0);
	assert_string_equal(dir, "/sys/fs/cgroup/unified");
	assert_int_equal(kt_cgroup_locate(deb_cg, deb_mi, "", dir, sizeof(dir), mnt, sizeof(mnt)),
			 0);
	assert_string_equal(dir, "/sys/fs/cgroup/user.slice/user-0.slice/session-3.scope");
	assert_string_equal(mnt, "/sys/fs/cgroup");
	/* no v1 hierarchy on a unified machine */
	assert_int_equal(kt_cgroup_locate(deb_cg, deb_mi, "memory", dir, sizeof(dir), NULL, 0),
			 KT_ENOTFOUND);
	/* a mount of a subtree (a container's view): our path under its root */
	assert_int_equal(kt_cgroup_locate("0::/docker/c1/x\n",
					  "5 1 0:9 /docker/c1 /sys/fs/cg\\040x rw - cgroup2 none rw\n",
					  "", dir, sizeof(dir), NULL, 0), 0);
	assert_string_equal(dir, "/sys/fs/cg x/x");
	assert_int_equal(kt_cgroup_locate("0::/other\n",
					  "5 1 0:9 /docker/c1 /sys/fs/cgroup rw - cgroup2 none rw\n",
					  "", dir, sizeof(dir), NULL, 0), KT_ENOTFOUND);
	assert_int_equal(kt_cgroup_locate("0::/a/../b\n", deb_mi, "", dir, sizeof(dir), NULL, 0),
			 KT_ENOTFOUND);
	/* too long for dir */
	assert_int_equal(kt_cgroup_locate(deb_cg, deb_mi, "", dir, 10, NULL, 0), KT_ENOTFOUND);
}

/* In a child moved into cg: fork `forks` sleepers (they stay, for
 * kt_cgroup_kill) and write `bytes` into a memfd.  Exit code: the forks
 * that worked, +100 when the memfd write failed. */
static void child(const kt_cgroup *cg, int forks, size_t bytes)
{
	static char buf[1 << 20];
	int i, n = 0, fd;
	size_t done;

	if (kt_cgroup_enter(cg))
		_exit(99);
	for (i = 0; i < forks; i++) {
		pid_t p = fork();

		if (p == 0) {
			pause();
			_exit(0);
		}
		n += p > 0;
	}
	fd = memfd_create("t", 0);
	memset(buf, 1, sizeof(buf));
	for (done = 0; fd >= 0 && done < bytes; done += sizeof(buf))
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			_exit(n + 100);
	_exit(n);
}

static void t_limits(void **state)
{
	kt_cgroup cg;
	pid_t p;
	int st;
	char dir[sizeof(cg.mem)];
	struct stat sb;

	(void)state;
	if (kt_cgroup_make(64u << 20, 8, &cg))
		skip();
	assert_true(cg.version == 1 || cg.version == 2);
	assert_int_equal(cg.mem_bytes, 64u << 20);
	assert_non_null(strstr(cg.mem, "/ktraj-replay-"));
	/* pids: room for 8 tasks, the child is one of them */
	p = fork();
	assert_true(p >= 0);
	if (p == 0)
		child(&cg, 20, 0);
	assert_int_equal(waitpid(p, &st, 0), p);
	assert_true(WIFEXITED(st));
	if (cg.pids_max)
		assert_int_equal(WEXITSTATUS(st), 7);
	/* the sleepers are still in the group: killed as a whole */
	kt_cgroup_kill(&cg);
	/* memory: 256 MiB into a memfd, never mapped, under 64 MiB */
	p = fork();
	assert_true(p >= 0);
	if (p == 0)
		child(&cg, 0, 256u << 20);
	assert_int_equal(waitpid(p, &st, 0), p);
	if (WIFEXITED(st))
		assert_int_equal(WEXITSTATUS(st), 100);
	else
		assert_int_equal(WTERMSIG(st), SIGKILL);
	assert_true(WIFEXITED(st) || kt_cgroup_oom_kills(&cg) >= 1);
	snprintf(dir, sizeof(dir), "%s", cg.mem);
	kt_cgroup_remove(&cg);
	assert_int_equal(cg.version, 0);
	assert_int_not_equal(stat(dir, &sb), 0);
}

/* A ktraj killed before it removed its group: the next one removes it. */
static void t_reclaim(void **state)
{
	kt_cgroup cg;
	char dir[sizeof(cg.mem)];
	struct stat sb;
	pid_t p;
	int st, pfd[2];

	(void)state;
	assert_int_equal(pipe(pfd), 0);
	p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		kt_cgroup c;
		int ok = !kt_cgroup_make(16u << 20, 0, &c);

		if (write(pfd[1], ok ? c.mem : "", sizeof(c.mem)) < 0)
			_exit(2);
		_exit(0);
	}
	assert_int_equal(read(pfd[0], dir, sizeof(dir)), (ssize_t)sizeof(dir));
	close(pfd[0]);
	close(pfd[1]);
	assert_int_equal(waitpid(p, &st, 0), p);
	if (!*dir)
		skip();
	assert_int_equal(stat(dir, &sb), 0);
	assert_int_equal(kt_cgroup_make(16u << 20, 0, &cg), 0);
	assert_int_not_equal(stat(dir, &sb), 0);
	kt_cgroup_remove(&cg);
}

/* A pid that ran a moment ago and runs no more (the child reaped). */
static pid_t gone_pid(void)
{
	pid_t p = fork();

	assert_true(p >= 0);
	if (p == 0)
		_exit(0);
	assert_int_equal(waitpid(p, NULL, 0), p);
	return p;
}

static void put(const char *dir, const char *name, const char *text)
{
	char p[600];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	assert_non_null(f = fopen(p, "w"));
	fputs(text, f);
	fclose(f);
}

static void get(const char *dir, const char *name, char *buf, size_t len)
{
	char p[600];
	FILE *f;
	size_t n;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	assert_non_null(f = fopen(p, "r"));
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
}

/* Groups named after a pid gone from our PID namespace, in a v2 layout
 * made of plain files: the one whose cgroup.procs lists a process we cannot
 * see (0: a ktraj of another namespace with its step still running) is not
 * killed; the empty one is. */
static void t_reclaim_foreign(void **state)
{
	char top[] = "/tmp/t_cgroup.XXXXXX", mine[600], other[600], buf[64];
	long pid = (long)gone_pid();

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(other, sizeof(other), "%s/ktraj-replay-%ld", top, pid);
	snprintf(mine, sizeof(mine), "%s/ktraj-replay-%ld", top, (long)gone_pid());
	assert_int_equal(mkdir(other, 0700), 0);
	assert_int_equal(mkdir(mine, 0700), 0);
	put(other, "cgroup.procs", "0\n0\n");
	put(other, "cgroup.kill", "");
	put(mine, "cgroup.procs", "");
	put(mine, "cgroup.kill", "");
	kt_cgroup_reclaim(top, 2);
	get(other, "cgroup.kill", buf, sizeof(buf));
	assert_string_equal(buf, "");
	get(mine, "cgroup.kill", buf, sizeof(buf));
	assert_string_equal(buf, "1");
	snprintf(buf, sizeof(buf), "rm -rf %s", top);
	assert_int_equal(system(buf), 0);
}

/* Where no group can be made, why says which group would not take one and
 * what it lacked: a user's cgroup v2 session (nothing delegated below it),
 * a group whose limits cannot be set, a v1 hierarchy we may not write, no
 * hierarchy at all. */
static void t_why(void **state)
{
	char tmp[] = "/tmp/ktraj-t-cgroup.XXXXXX", mi[512], want[600], file[600];
	kt_cgroup cg;

	(void)state;
	assert_non_null(mkdtemp(tmp));
	snprintf(mi, sizeof(mi), "5 1 0:9 / %s rw - cgroup2 none rw\n", tmp);
	put(tmp, "cgroup.subtree_control", "cpu io\n");
	assert_int_equal(kt_cgroup_make_in("0::/\n", mi, 64u << 20, 8, &cg), KT_ENOTFOUND);
	assert_int_equal(cg.version, 0);
	snprintf(want, sizeof(want), "cgroup v2: ktraj's group %s does not enable memory and pids "
		 "for groups under it (its cgroup.subtree_control: \"cpu io\"): run as root, or in a "
		 "delegated group that does", tmp);
	assert_string_equal(cg.why, want);
	/* delegated, but the group's limits cannot be written (a plain
	 * folder here): said, and the group made is removed */
	put(tmp, "cgroup.subtree_control", "cpu memory pids\n");
	assert_int_equal(kt_cgroup_make_in("0::/\n", mi, 64u << 20, 8, &cg), KT_ENOTFOUND);
	snprintf(want, sizeof(want), "cgroup v2: cannot set the limits of %s/ktraj-replay-%ld: "
		 "No such file or directory", tmp, (long)getpid());
	assert_string_equal(cg.why, want);
	snprintf(file, sizeof(file), "%s/ktraj-replay-%ld", tmp, (long)getpid());
	assert_int_not_equal(access(file, F_OK), 0);
	/* a v1 memory hierarchy we cannot make a group in */
	snprintf(mi, sizeof(mi), "5 1 0:9 / %s/cgroup.subtree_control rw - cgroup cgroup rw,memory\n",
		 tmp);
	assert_int_equal(kt_cgroup_make_in("4:memory:/\n", mi, 64u << 20, 8, &cg), KT_ENOTFOUND);
	snprintf(want, sizeof(want), "cgroup v1: cannot create a group under "
		 "%s/cgroup.subtree_control: Not a directory (run as root, or with that group "
		 "delegated to you)", tmp);
	assert_string_equal(cg.why, want);
	assert_int_equal(kt_cgroup_make_in("0::/\n", "", 64u << 20, 8, &cg), KT_ENOTFOUND);
	assert_string_equal(cg.why, "no cgroup v2 hierarchy and no v1 memory hierarchy holds "
			    "ktraj's group");
	assert_int_equal(kt_cgroup_make_in(NULL, "", 64u << 20, 8, &cg), KT_ENOTFOUND);
	assert_string_equal(cg.why, "cannot read /proc/self/cgroup or /proc/self/mountinfo");
	snprintf(file, sizeof(file), "%s/cgroup.subtree_control", tmp);
	unlink(file);
	rmdir(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_locate),
		cmocka_unit_test(t_limits),
		cmocka_unit_test(t_reclaim),
		cmocka_unit_test(t_reclaim_foreign),
		cmocka_unit_test(t_why),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
