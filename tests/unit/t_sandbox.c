/* t_sandbox.c - replay/sandbox.h: the seccomp program refuses what it
 * names (loaded into a child, each call's errno checked against a call the
 * filter lets through), bwrap is looked up in PATH, a small bundle runs
 * and returns its result with and without bubblewrap, and the janitor
 * removes its directory when its process is killed. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <archive.h>
#include <archive_entry.h>
#include "testutil.h"
#include "../../store/store.h"
#include "../../replay/sandbox.h"

/* One call the filter refuses: EPERM, whatever the kernel would have said.
 * The arguments are invalid or harmless, so that a filter that let the
 * call through does no damage, as root either; 1 when it was not refused
 * (named on stderr). */
static int refused(const char *name, long nr, long a, long b, long c, long d, long e)
{
	long r = syscall(nr, a, b, c, d, e, 0L);

	if (r == 0 && nr == SYS_clone)
		_exit(0);
	if (r == -1 && errno == EPERM)
		return 0;
	fprintf(stderr, "seccomp: %s not refused (%ld, %s)\n", name, r, strerror(errno));
	return 1;
}

#define R(name, a, b, c, d, e) bad += refused(#name, SYS_##name, (long)(a), (long)(b), \
					     (long)(c), (long)(d), (long)(e))

/* In a child with the filter loaded: how many checks did not get what the
 * filter promises.  Every name of sandbox.c's list that the architecture
 * has is called here. */
static int filtered_child(int fd)
{
	struct sock_filter prog[4096];
	struct sock_fprog fp;
	ssize_t n = read(fd, prog, sizeof(prog));
	long cur = personality(0xffffffff);
	int bad = 0;

	if (n <= 0 || n % (ssize_t)sizeof(prog[0]))
		return 0x80;
	/* no controlling terminal: vhangup and TIOCSTI reach none */
	setsid();
	fp.len = (unsigned short)(n / (ssize_t)sizeof(prog[0]));
	fp.filter = prog;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp))
		return 0x80;
	R(mount, "none", "/nonexistent-ktraj", "tmpfs", 0, 0);
#ifdef SYS_umount
	R(umount, "/nonexistent-ktraj", 0, 0, 0, 0);
#endif
	R(umount2, "/nonexistent-ktraj", 0, 0, 0, 0);
	R(fsopen, 0, 0, 0, 0, 0);
	R(fsconfig, -1, 0, 0, 0, 0);
	R(fsmount, -1, 0, 0, 0, 0);
	R(fspick, -1, 0, 0, 0, 0);
	R(move_mount, -1, 0, -1, 0, 0);
	R(open_tree, -1, 0, 0, 0, 0);
	R(mount_setattr, -1, 0, 0, 0, 0);
	R(setns, -1, 0, 0, 0, 0);
	R(unshare, 0, 0, 0, 0, 0);
	R(unshare, CLONE_NEWUSER, 0, 0, 0, 0);
	R(pivot_root, 0, 0, 0, 0, 0);
	R(chroot, "/nonexistent-ktraj", 0, 0, 0, 0);
	/* allowed without the filter, to anyone */
	R(ptrace, PTRACE_TRACEME, 0, 0, 0, 0);
	R(process_vm_readv, getpid(), 0, 0, 0, 0);
	R(process_vm_writev, getpid(), 0, 0, 0, 0);
	R(pidfd_getfd, -1, 0, 0, 0, 0);
	R(kcmp, getpid(), getpid(), 0 /* KCMP_FILE */, 0, 0);
	R(process_madvise, -1, 0, 0, 0, 0);
	R(bpf, -1, 0, 0, 0, 0);
	R(keyctl, 0 /* GET_KEYRING_ID */, -3, 0, 0, 0);
	R(add_key, 0, 0, 0, 0, 0);
	R(request_key, 0, 0, 0, 0, 0);
	R(init_module, 0, 0, 0, 0, 0);
	R(finit_module, -1, "", 0, 0, 0);
	R(delete_module, 0, 0, 0, 0, 0);
#ifdef SYS_create_module
	R(create_module, 0, 0, 0, 0, 0);
	R(query_module, 0, 0, 0, 0, 0);
	R(get_kernel_syms, 0, 0, 0, 0, 0);
#endif
	R(reboot, 0, 0, 0, 0, 0);   /* no magic: EINVAL without the filter */
	R(kexec_load, 0, ~0ul, 0, 0, 0);
#ifdef SYS_kexec_file_load
	R(kexec_file_load, -1, -1, 0, 0, 0);
#endif
	R(open_by_handle_at, -1, 0, 0, 0, 0);
	R(name_to_handle_at, -1, 0, 0, 0, 0);
	R(perf_event_open, 0, 0, -1, -1, 0);
	R(userfaultfd, ~0u, 0, 0, 0, 0);
	R(io_uring_setup, 0, 0, 0, 0, 0);
	R(io_uring_enter, -1, 0, 0, 0, 0);
	R(io_uring_register, -1, 0, 0, 0, 0);
	R(swapon, 0, 0, 0, 0, 0);
	R(swapoff, 0, 0, 0, 0, 0);
	R(acct, 1, 0, 0, 0, 0);
	R(quotactl, 0, 0, 0, 0, 0);
	R(quotactl_fd, -1, 0, 0, 0, 0);
#ifdef SYS_lookup_dcookie
	R(lookup_dcookie, 0, 0, 0, 0, 0);
#endif
	R(vhangup, 0, 0, 0, 0, 0);
#ifdef SYS_iopl
	R(iopl, 0, 0, 0, 0, 0);
	R(ioperm, 0, 0, 0, 0, 0);
#endif
#ifdef SYS_modify_ldt
	R(modify_ldt, 0, 0, 0, 0, 0);
#endif
	R(syslog, 10 /* SIZE_BUFFER: a read */, 0, 0, 0, 0);
	R(settimeofday, 0, 0, 0, 0, 0);
	R(clock_settime, -1, 0, 0, 0, 0);
	R(clock_adjtime, -1, 0, 0, 0, 0);
#ifdef SYS_stime
	R(stime, 0, 0, 0, 0, 0);
#endif
#ifdef SYS_nfsservctl
	R(nfsservctl, 0, 0, 0, 0, 0);
#endif
#ifdef SYS_uselib
	R(uselib, 0, 0, 0, 0, 0);
#endif
#ifdef SYS__sysctl
	R(_sysctl, 0, 0, 0, 0, 0);
#endif
#ifdef SYS_ustat
	R(ustat, 0, 0, 0, 0, 0);
#endif
#ifdef SYS_vm86
	R(vm86, 0, 0, 0, 0, 0);
#endif
#ifdef SYS_vm86old
	R(vm86old, 0, 0, 0, 0, 0);
#endif
	/* no setuid/setgid file: by mode change or at creation */
	R(chmod, "/nonexistent-ktraj", 04755, 0, 0, 0);
	R(fchmod, -1, 02755, 0, 0, 0);
	R(fchmodat, AT_FDCWD, "/nonexistent-ktraj", 06755, 0, 0);
	R(open, "/nonexistent-ktraj/x", O_CREAT | O_WRONLY, 04755, 0, 0);
	R(openat, AT_FDCWD, "/nonexistent-ktraj/x", O_CREAT | O_WRONLY, 02700, 0);
	R(openat, AT_FDCWD, "/nonexistent-ktraj", O_TMPFILE | O_WRONLY, 04700, 0);
	R(creat, "/nonexistent-ktraj/x", 04755, 0, 0, 0);
	R(mknod, "/nonexistent-ktraj/x", S_IFREG | 04755, 0, 0, 0);
	R(mknodat, AT_FDCWD, "/nonexistent-ktraj/x", S_IFREG | 02755, 0, 0);
#ifdef SYS_openat2
	if (syscall(SYS_openat2, AT_FDCWD, "/nonexistent-ktraj", 0L, 0L) != -1 || errno != ENOSYS) {
		fprintf(stderr, "seccomp: openat2 not answered ENOSYS\n");
		bad++;
	}
#endif
	/* the same calls without the bits, and open's mode without O_CREAT,
	 * reach the kernel (which finds no such file) */
	if (chmod("/nonexistent-ktraj", 0755) != -1 || errno != ENOENT ||
	    syscall(SYS_open, "/nonexistent-ktraj", O_RDONLY, 06777) != -1 || errno != ENOENT ||
	    open("/nonexistent-ktraj/x", O_CREAT | O_WRONLY, 0755) != -1 || errno != ENOENT) {
		fprintf(stderr, "seccomp: a plain chmod or open refused (%s)\n", strerror(errno));
		bad++;
	}
	R(clone, CLONE_NEWUTS | SIGCHLD, 0, 0, 0, 0);
	R(ioctl, -1, TIOCSTI, "x", 0, 0);
	R(ioctl, -1, TIOCLINUX, 0, 0, 0);
	/* every persona but the query and the current one, in the low 32
	 * bits the kernel reads: bit 31 set (what the query has) or high
	 * bits set do not get a flag through */
	R(personality, ADDR_NO_RANDOMIZE, 0, 0, 0, 0);
	R(personality, 0x80000000ul | ADDR_NO_RANDOMIZE, 0, 0, 0, 0);
	R(personality, 0xfffffffeul, 0, 0, 0, 0);
	R(personality, 0x100000000ul | READ_IMPLIES_EXEC, 0, 0, 0, 0);
	R(personality, (unsigned long)cur | MMAP_PAGE_ZERO, 0, 0, 0, 0);
	R(personality, PER_LINUX32, 0, 0, 0, 0);
	/* what a compiler needs still works: a plain fork, a persona query,
	 * setting the persona it has */
	if (personality(0xffffffff) != cur || syscall(SYS_personality, 0xffffffffffffffffl) != cur ||
	    personality((unsigned long)cur) != cur) {
		fprintf(stderr, "seccomp: the persona query or the current persona refused\n");
		bad++;
	}
	{
		pid_t p = fork();
		int st;

		if (p == 0)
			_exit(7);
		if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 7) {
			fprintf(stderr, "seccomp: a plain fork failed\n");
			bad++;
		}
	}
	return bad > 0x7f ? 0x7f : bad;
}

static void t_seccomp(void **state)
{
	int fd = kt_sandbox_seccomp_fd(), st;
	pid_t p;

	(void)state;
	assert_true(fd >= 0);
	p = fork();
	assert_true(p >= 0);
	if (p == 0)
		_exit(filtered_child(fd));
	close(fd);
	assert_int_equal(waitpid(p, &st, 0), p);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* What a step left setuid or setgid in its cache loses the bits, links
 * are not followed, and the bytes are counted as kt_sandbox_cache_bytes. */
static void t_cache_strip(void **state)
{
	char d[] = "/tmp/ktraj-strip.XXXXXX", p[256], q[256];
	struct stat st;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(d));
	snprintf(p, sizeof(p), "%s/sub", d);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(chmod(p, 02755), 0);
	snprintf(p, sizeof(p), "%s/sub/x", d);
	fd = open(p, O_CREAT | O_WRONLY, 0755);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "12345", 5), 5);
	close(fd);
	assert_int_equal(chmod(p, 06711), 0);
	/* a link to a setuid file outside: the target keeps its mode */
	snprintf(q, sizeof(q), "%s.target", d);
	fd = open(q, O_CREAT | O_WRONLY, 0755);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chmod(q, 04755), 0);
	snprintf(p, sizeof(p), "%s/link", d);
	assert_int_equal(symlink(q, p), 0);
	assert_int_equal(kt_sandbox_cache_bytes(d), 5);
	assert_int_equal(kt_sandbox_cache_strip(d), 5);
	snprintf(p, sizeof(p), "%s/sub/x", d);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0711);
	snprintf(p, sizeof(p), "%s/sub", d);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(stat(q, &st), 0);
	assert_int_equal(st.st_mode & 07777, 04755);
	unlink(q);
	snprintf(p, sizeof(p), "%s/link", d);
	unlink(p);
	snprintf(p, sizeof(p), "%s/sub/x", d);
	unlink(p);
	snprintf(p, sizeof(p), "%s/sub", d);
	rmdir(p);
	rmdir(d);
}

/* The GPU profile follows what the step runs, not what its text says. */
static void t_step_gpu(void **state)
{
	static const struct {
		const char *manifest;
		int gpu;
	} cases[] = {
		{ "{\"kind\":\"tool_call\",\"command\":\"echo cuda; echo nvcc; ls /usr/local/cuda\"}", 0 },
		{ "{\"kind\":\"tool_call\",\"command\":\"grep -r cuda . && cat k.cu\"}", 0 },
		{ "{\"kind\":\"tool_call\",\"command\":\"printf '%s' \\\"nvcc -o x x.cu\\\"\"}", 0 },
		{ "{\"kind\":\"tool_call\",\"command\":\"cd src && nvcc -O3 -o k k.cu\"}", 1 },
		{ "{\"kind\":\"tool_call\",\"command\":\"CUDA_HOME=/x time /usr/local/cuda/bin/nvcc k.cu\"}", 1 },
		{ "{\"kind\":\"tool_call\",\"command\":\"timeout 60 nvcc k.cu\"}", 1 },
		{ "{\"kind\":\"tool_call\",\"command\":\"nvcc -o bin/k k.cu && ./bin/k 1024\"}", 1 },
		{ "{\"kind\":\"shell\",\"command\":\"./k 1024\",\"build_command\":\"nvcc -ok k.cu\"}", 1 },
		{ "{\"kind\":\"shell\",\"command\":\"./k 1024\",\"build_command\":\"gcc -o k k.c\"}", 0 },
		{ "{\"kind\":\"compile\",\"command\":\"make\",\"toolchain\":{\"compiler\":\"/usr/local/cuda/bin/nvcc\"}}", 1 },
		{ "{\"kind\":\"compile\",\"command\":\"gcc -DCUDA=0 x.c\",\"toolchain\":{\"compiler\":\"gcc\"}}", 0 },
		{ "{\"kind\":\"bench\",\"command\":\"./bench\"}", 1 },
		{ "{\"kind\":\"tool_call\",\"command\":\"python3 x.py\",\"harness\":{}}", 1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		cJSON *m = cJSON_Parse(cases[i].manifest);

		assert_non_null(m);
		if (kt_sandbox_step_gpu(m) != cases[i].gpu)
			fail_msg("%s: want %d", cases[i].manifest, cases[i].gpu);
		cJSON_Delete(m);
	}
}

static void t_find(void **state)
{
	char path[4096], ver[64], *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

	(void)state;
	setenv("PATH", "/nonexistent-ktraj", 1);
	assert_int_equal(kt_sandbox_find(path, sizeof(path), ver, sizeof(ver)), KT_ENOTFOUND);
	if (old)
		setenv("PATH", old, 1);
	free(old);
}

/* A plain tar in a memory file: b/run.sh, which writes b/result.json. */
static int bundle(void)
{
	static const char run[] = "#!/bin/sh\nB=$(cd \"$(dirname \"$0\")\" && pwd)\n"
				  "printf '{\"ok\":%s}' \"$(id -u)\" >\"$B/result.json\"\n";
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	int fd = memfd_create("t", 0);

	assert_true(a && e && fd >= 0);
	archive_write_set_format_pax_restricted(a);
	assert_int_equal(archive_write_open_fd(a, fd), ARCHIVE_OK);
	archive_entry_set_pathname(e, "b/run.sh");
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0755);
	archive_entry_set_size(e, sizeof(run) - 1);
	assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
	assert_int_equal(archive_write_data(a, run, sizeof(run) - 1), (la_ssize_t)sizeof(run) - 1);
	archive_write_close(a);
	archive_write_free(a);
	archive_entry_free(e);
	lseek(fd, 0, SEEK_SET);
	return fd;
}

static void run_one(int no_sandbox)
{
	kt_sandbox_spec sp = { 0 };
	kt_sandbox_result r;
	char err[256] = "", want[64];
	int fd = bundle();
	const char *sb;

	sp.timeout_s = 60;
	sp.cpu_s = 60;
	sp.mem_bytes = 1ull << 30;
	sp.file_bytes = 1ull << 30;
	sp.no_sandbox = no_sandbox;
	sp.bundle_dir = "b";
	assert_int_equal(kt_sandbox_run(fd, &sp, &r, err, sizeof(err)), 0);
	close(fd);
	snprintf(want, sizeof(want), "{\"ok\":%u}", no_sandbox ? (unsigned)getuid() : kt_sandbox_uid());
	assert_non_null(r.out);
	assert_string_equal(r.out, want);
	assert_false(r.timed_out);
	sb = cJSON_GetStringValue(cJSON_GetObjectItem(r.isolation, "sandbox"));
	assert_string_equal(sb, no_sandbox ? "none" : "bubblewrap");
	kt_sandbox_result_free(&r);
}

static void t_run_plain(void **state)
{
	(void)state;
	run_one(1);
}

static void t_run_bwrap(void **state)
{
	char path[4096], ver[64];

	(void)state;
	if (kt_sandbox_find(path, sizeof(path), ver, sizeof(ver)))
		skip();
	run_one(0);
}

/* A tar (gzip) in a memory file with one member of the given type. */
static int one_member(const char *name, int type, const char *body, int perm)
{
	struct archive *a = archive_write_new();
	struct archive_entry *e = archive_entry_new();
	int fd = memfd_create("t", 0);

	assert_true(a && e && fd >= 0);
	archive_write_set_format_pax_restricted(a);
	archive_write_add_filter_gzip(a);
	assert_int_equal(archive_write_open_fd(a, fd), ARCHIVE_OK);
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, (unsigned)type);
	archive_entry_set_perm(e, perm);
	/* numbers of another machine's file: never compared with ours */
	archive_entry_set_dev(e, 1);
	archive_entry_set_ino(e, 1);
	if (type == AE_IFLNK)
		archive_entry_set_symlink(e, "/etc/shadow");
	else
		archive_entry_set_size(e, (la_int64_t)strlen(body));
	assert_int_equal(archive_write_header(a, e), ARCHIVE_OK);
	if (type == AE_IFREG)
		archive_write_data(a, body, strlen(body));
	archive_write_close(a);
	archive_write_free(a);
	archive_entry_free(e);
	return fd;
}

static void t_plain_tar(void **state)
{
	static const struct { const char *name; int type; int rc; } cases[] = {
		{ "b/manifest.json", AE_IFREG, 0 },
		{ "b/../../etc/x", AE_IFREG, KT_ECORRUPT },
		{ "/etc/x", AE_IFREG, KT_ECORRUPT },
		{ "b/link", AE_IFLNK, KT_ECORRUPT },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		int in = one_member(cases[i].name, cases[i].type, "{\"kind\":\"bench\"}", 04755);
		int out = -1;
		char err[256] = "", *m = NULL;

		assert_int_equal(kt_sandbox_plain_tar(in, "b/manifest.json", 0, &out, &m, err,
						      sizeof(err)), cases[i].rc);
		if (cases[i].rc) {
			assert_int_equal(out, -1);
			assert_null(m);
			assert_non_null(strstr(err, "unsafe bundle entry"));
		} else {
			char head[512];

			/* plain: a ustar/pax header, no gzip magic */
			assert_int_equal(read(out, head, sizeof(head)), (ssize_t)sizeof(head));
			assert_false((unsigned char)head[0] == 0x1f && (unsigned char)head[1] == 0x8b);
			assert_string_equal(m, "{\"kind\":\"bench\"}");
			/* the member comes out without its setuid bit */
			{
				struct archive *r = archive_read_new();
				struct archive_entry *e;

				assert_non_null(r);
				archive_read_support_format_tar(r);
				assert_int_equal(lseek(out, 0, SEEK_SET), 0);
				assert_int_equal(archive_read_open_fd(r, out, 4096), ARCHIVE_OK);
				assert_int_equal(archive_read_next_header(r, &e), ARCHIVE_OK);
				assert_string_equal(archive_entry_pathname(e), "b/manifest.json");
				assert_int_equal(archive_entry_perm(e), 0755);
				archive_read_free(r);
			}
			close(out);
		}
		free(m);
		close(in);
	}
}

/* A bundle that expands past max_bytes is refused before it is held. */
static void t_plain_tar_cap(void **state)
{
	int in = one_member("b/manifest.json", AE_IFREG, "{\"kind\":\"bench\"}", 0644);
	int out = -1;
	char err[256] = "", *m = NULL;

	(void)state;
	/* 512 bytes of header and 16 of data: 528 fit, 527 do not */
	assert_int_equal(kt_sandbox_plain_tar(in, "b/manifest.json", 527, &out, &m, err,
					      sizeof(err)), KT_ECORRUPT);
	assert_int_equal(out, -1);
	assert_null(m);
	assert_non_null(strstr(err, "bundle expands to more than 527 bytes"));
	assert_int_equal(kt_sandbox_plain_tar(in, "b/manifest.json", 528, &out, &m, err,
					      sizeof(err)), 0);
	close(out);
	free(m);
	close(in);
}

/* kill -9 of the process that made the janitor: the directory goes */
static void t_janitor(void **state)
{
	char *dir = tu_tmpdir(), sub[4200];
	struct stat st;
	kt_janitor j;
	pid_t p;
	int i, stt;

	(void)state;
	assert_non_null(dir);
	snprintf(sub, sizeof(sub), "%s/a", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		if (kt_sandbox_janitor(dir, &j))
			_exit(1);
		pause();
		_exit(0);
	}
	usleep(200000);
	assert_int_equal(lstat(dir, &st), 0);
	kill(p, SIGKILL);
	assert_int_equal(waitpid(p, &stt, 0), p);
	for (i = 0; i < 100 && lstat(dir, &st) == 0; i++)
		usleep(50000);
	assert_int_not_equal(lstat(dir, &st), 0);
	/* and kt_sandbox_janitor_done removes it at once */
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(kt_sandbox_janitor(dir, &j), 0);
	kt_sandbox_janitor_done(&j);
	assert_int_not_equal(lstat(dir, &st), 0);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_seccomp),
		cmocka_unit_test(t_step_gpu),
		cmocka_unit_test(t_cache_strip),
		cmocka_unit_test(t_find),
		cmocka_unit_test(t_run_plain),
		cmocka_unit_test(t_run_bwrap),
		cmocka_unit_test(t_plain_tar),
		cmocka_unit_test(t_plain_tar_cap),
		cmocka_unit_test(t_janitor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
