/*
 * sandbox.c - bubblewrap sandbox for replayed steps (see sandbox.h).
 *
 * bwrap does the namespaces, the mounts and the capability drop; this file
 * decides what the sandbox contains, builds the seccomp program, sets the
 * resource limits bwrap inherits, runs the watchdog and reports what was
 * applied.  Options used are those of bubblewrap 0.8.0 (Debian 12), see
 * bwrap(1).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../base/archive_dl.h" /* libarchive, loaded when first used */
#include "seccomp_dl.h" /* libseccomp, loaded when first used */

#include "cgroup.h"
#include "sandbox.h"
#include "../store/store.h"

#define OUT_MAX (1u << 20)   /* result.json kept, bytes */
#define DEF_PROCS 256u
/* the cgroup's pids.max over the step's own process limit: bwrap's two
 * processes and the wrapper, which run before the wrapper sets it */
#define PIDS_SLACK 4u
/* Inside the sandbox: where the bundle is unpacked (a tmpfs of its own, so
 * a full /tmp leaves room for the result) and where the cache appears. */
#define SB_WORK "/ktraj"
#define SB_CACHE "/ktraj-cache"

/* Runs as the sandbox's first command: set the process limit (inside the
 * new user namespace, where it counts only the sandbox's processes; dash
 * spells it -p, bash -u), unpack the bundle from stdin, run it with nothing
 * of ktraj's descriptors, print its result.  result.json is made 64 KiB
 * long before the step runs: a step that fills its workspace then still
 * leaves the room for its result.  Arguments: work dir, process limit (0:
 * none), the bundle's folder, the cache dir ("" for none), TMPDIR ("":
 * inside the work dir). */
static const char wrapper[] =
	"set -u\n"
	"W=$1 N=$2 D=$3 C=$4 T=${5:-$1/tmp}\n"
	"if [ \"$N\" != 0 ]; then\n"
	"\tulimit -p \"$N\" 2>/dev/null || ulimit -u \"$N\" 2>/dev/null ||\n"
	"\t\t{ echo 'cannot set the process limit' >&2; exit 125; }\n"
	"fi\n"
	"mkdir -p \"$W/home\" \"$T\" && cd \"$W\" || exit 125\n"
	"tar -xof - || { echo 'the bundle did not unpack' >&2; exit 125; }\n"
	"head -c 65536 /dev/zero >\"$W/$D/result.json\" || exit 125\n"
	"HOME=$W/home TMPDIR=$T; export HOME TMPDIR\n"
	"if [ -n \"$C\" ]; then KTRAJ_CACHE=$C; export KTRAJ_CACHE; fi\n"
	"sh \"$W/$D/run.sh\" </dev/null >/dev/null 2>&1\n"
	"cat \"$W/$D/result.json\" 2>/dev/null\n"
	"exit 0\n";

/* ---- finding bwrap --------------------------------------------------------- */

static int read_all(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		n += (size_t)r;
	}
	buf[n] = 0;
	return (int)n;
}

static void bwrap_version(const char *path, char *version, size_t vlen)
{
	int p[2], st;
	pid_t pid;
	char buf[256], *v;

	*version = 0;
	if (pipe2(p, O_CLOEXEC))
		return;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		execl(path, "bwrap", "--version", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (pid > 0)
		read_all(p[0], buf, sizeof(buf));
	close(p[0]);
	if (pid < 0)
		return;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	/* "bubblewrap 0.8.0" */
	if (!strncmp(buf, "bubblewrap ", 11)) {
		v = buf + 11;
		v[strcspn(v, " \r\n")] = 0;
		snprintf(version, vlen, "%s", v);
	}
}

int kt_sandbox_find(char *path, size_t pathlen, char *version, size_t vlen)
{
	const char *env = getenv("PATH");
	char *dirs = strdup(env ? env : ""), *save = NULL, *d;
	int found = 0;

	if (!dirs)
		return KT_ENOMEM;
	for (d = strtok_r(dirs, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		snprintf(path, pathlen, "%s/bwrap", d);
		found = *d == '/' && access(path, X_OK) == 0;
	}
	free(dirs);
	if (!found)
		return KT_ENOTFOUND;
	bwrap_version(path, version, vlen);
	return 0;
}

unsigned kt_sandbox_uid(void)
{
	struct passwd *pw;

	if (getuid() != 0)
		return (unsigned)getuid();
	pw = getpwnam("nobody");
	return pw && pw->pw_uid != 0 ? (unsigned)pw->pw_uid : 65534u;
}

static unsigned sandbox_gid(void)
{
	struct passwd *pw;

	if (getuid() != 0)
		return (unsigned)getgid();
	pw = getpwnam("nobody");
	return pw && pw->pw_gid != 0 ? (unsigned)pw->pw_gid : 65534u;
}

/* ---- seccomp ---------------------------------------------------------------- */

/* What a replayed compile or benchmark never needs and an escape does:
 * mounts and namespaces (the way out of bwrap's), tracing or reaching into
 * other processes (ptrace, process_vm_*, pidfd_getfd, kcmp,
 * process_madvise), kernel interfaces with a history of privilege
 * escalations (bpf, keyrings, userfaultfd, perf, io_uring, modify_ldt,
 * the kernel log), the machine's own state (modules, reboot, kexec, swap,
 * the clock, quotas) and obsolete calls nothing current makes.  Names a
 * kernel or architecture lacks are skipped. */
static const char *const refused[] = {
	"mount", "umount", "umount2", "fsopen", "fsconfig", "fsmount", "fspick",
	"move_mount", "open_tree", "mount_setattr", "setns", "unshare",
	"pivot_root", "chroot", "ptrace", "process_vm_readv",
	"process_vm_writev", "pidfd_getfd", "kcmp", "process_madvise",
	"bpf", "keyctl", "add_key", "request_key", "init_module",
	"finit_module", "delete_module", "create_module", "query_module",
	"get_kernel_syms", "reboot", "kexec_load", "kexec_file_load",
	"open_by_handle_at", "name_to_handle_at", "perf_event_open",
	"userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
	"swapon", "swapoff", "acct", "quotactl", "quotactl_fd",
	"lookup_dcookie", "vhangup", "iopl", "ioperm", "modify_ldt", "syslog",
	"settimeofday", "clock_settime", "clock_adjtime", "stime", "nfsservctl",
	"uselib", "_sysctl", "ustat", "vm86", "vm86old", NULL
};

/* personality(): refuse every persona but the query (0xffffffff) and the
 * current one, so no ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC, MMAP_PAGE_ZERO,
 * ... in any combination.  The kernel reads only the low 32 bits (its
 * argument is an unsigned int), and a libseccomp rule takes one condition
 * per argument, so the refused values are covered by aligned blocks, each
 * one masked compare: [lo, lo + 2^bits) holding neither allowed value is a
 * rule, one holding one is split in halves (at most 2 x 32 rules). */
static int persona_rules(scmp_filter_ctx ctx, uint32_t keep, uint64_t lo, unsigned bits)
{
	uint64_t hi = lo + (1ull << bits);
	int has_keep = keep >= lo && keep < hi, has_query = 0xffffffffull >= lo &&
		0xffffffffull < hi, rc;

	if (!has_keep && !has_query)
		return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(personality), 1,
					SCMP_A0(SCMP_CMP_MASKED_EQ,
						0xffffffffull & ~((1ull << bits) - 1), lo));
	if (!bits)
		return 0;
	rc = persona_rules(ctx, keep, lo, bits - 1);
	return rc ? rc : persona_rules(ctx, keep, lo + (1ull << (bits - 1)), bits - 1);
}

/* No setuid or setgid file made by the step: what it writes to a --cache
 * DIR stays on the host after it, where such a file would run as the
 * step's user (nobody, or the caller).  Refused: chmod, fchmod, fchmodat
 * (and fchmodat2) with either bit in the mode, and a file created with one
 * (open, openat, creat, mknod, mknodat; open's mode is read only with
 * O_CREAT or O_TMPFILE, so a rule needs the flag as well).  openat2 passes
 * its mode in a struct a filter cannot read: ENOSYS, and the C library
 * falls back to openat. */
static int setid_rules(scmp_filter_ctx ctx)
{
	static const struct { const char *name; int flags, mode; } calls[] = {
		{ "chmod", -1, 1 }, { "fchmod", -1, 1 }, { "fchmodat", -1, 2 },
		{ "fchmodat2", -1, 2 }, { "creat", -1, 1 }, { "mknod", -1, 1 },
		{ "mknodat", -1, 2 }, { "open", 1, 2 }, { "openat", 2, 3 },
	};
	static const unsigned long bits[] = { S_ISUID, S_ISGID };
	static const unsigned long creating[] = { O_CREAT, 020000000 /* __O_TMPFILE */ };
	size_t i, b, c;
	int rc = 0, nr;

	for (i = 0; i < sizeof(calls) / sizeof(*calls) && !rc; i++) {
		if ((nr = seccomp_syscall_resolve_name(calls[i].name)) == __NR_SCMP_ERROR)
			continue;
		for (b = 0; b < 2 && !rc; b++) {
			struct scmp_arg_cmp m = { (unsigned)calls[i].mode, SCMP_CMP_MASKED_EQ,
						  bits[b], bits[b] };

			if (calls[i].flags < 0) {
				rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1, m);
				continue;
			}
			for (c = 0; c < 2 && !rc; c++) {
				struct scmp_arg_cmp f = { (unsigned)calls[i].flags,
							  SCMP_CMP_MASKED_EQ, creating[c],
							  creating[c] };

				rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 2, f, m);
			}
		}
	}
	nr = seccomp_syscall_resolve_name("openat2");
	if (!rc && nr != __NR_SCMP_ERROR)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
	return rc;
}

int kt_sandbox_seccomp_fd(void)
{
	static const unsigned long newns[] = {
		CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET,
		CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWCGROUP, 0x80 /* CLONE_NEWTIME */
	};
	scmp_filter_ctx ctx;
	int fd = -1, rc = 0, nr;
	size_t i;

	/* no libseccomp, no filter: the caller refuses to run the step */
	if (kt_seccomp_load())
		return KT_EIO;
	if (!(ctx = seccomp_init(SCMP_ACT_ALLOW)))
		return KT_ENOMEM;
	for (i = 0; refused[i] && !rc; i++) {
		nr = seccomp_syscall_resolve_name(refused[i]);
		if (nr != __NR_SCMP_ERROR)
			rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
	}
	for (i = 0; i < sizeof(newns) / sizeof(*newns) && !rc; i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
				      SCMP_A0(SCMP_CMP_MASKED_EQ, newns[i], newns[i]));
	if (!rc)
		rc = persona_rules(ctx, (uint32_t)personality(0xffffffff), 0, 32);
	/* TIOCSTI pushes input into the terminal ktraj runs in */
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
				      SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI));
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
				      SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCLINUX));
	if (!rc)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	if (!rc)
		rc = setid_rules(ctx);
	if (!rc) {
		fd = memfd_create("ktraj-seccomp", MFD_CLOEXEC);
		if (fd < 0 || seccomp_export_bpf(ctx, fd) || lseek(fd, 0, SEEK_SET)) {
			if (fd >= 0)
				close(fd);
			fd = KT_EIO;
		}
	} else {
		fd = KT_EIO;
	}
	seccomp_release(ctx);
	return fd;
}

/* ---- bwrap's command line ------------------------------------------------------- */

struct args {
	char **v;
	size_t n, cap;
	int oom;
};

static void add(struct args *a, const char *s)
{
	if (a->oom)
		return;
	if (KT_GROW(a->v, a->cap, a->n + 2)) {
		a->oom = 1;
		return;
	}
	if (!(a->v[a->n] = strdup(s))) {
		a->oom = 1;
		return;
	}
	a->v[++a->n] = NULL;
}

__attribute__((format(printf, 2, 3)))
static void addf(struct args *a, const char *fmt, ...)
{
	char buf[4200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	add(a, buf);
}

static void add3(struct args *a, const char *x, const char *y, const char *z)
{
	add(a, x);
	add(a, y);
	if (z)
		add(a, z);
}

static void args_free(struct args *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
}

/* The top-level folders of the toolchain: a usr-merged system has them as
 * symlinks into /usr, which are recreated rather than bound. */
static void add_toplevel(struct args *a, const char *name)
{
	char path[64], target[PATH_MAX];
	struct stat st;
	ssize_t n;

	snprintf(path, sizeof(path), "/%s", name);
	if (lstat(path, &st))
		return;
	if (S_ISLNK(st.st_mode)) {
		n = readlink(path, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = 0;
			add3(a, "--symlink", target, path);
		}
	} else if (S_ISDIR(st.st_mode)) {
		add3(a, "--ro-bind", path, path);
	}
}

/* A CUDA Toolkit whose /usr/local/cuda* symlink points out of /usr. */
static void add_cuda(struct args *a)
{
	glob_t g;
	char real[PATH_MAX];
	size_t i;

	if (glob("/usr/local/cuda*", 0, NULL, &g))
		return;
	for (i = 0; i < g.gl_pathc; i++)
		if (realpath(g.gl_pathv[i], real) && strncmp(real, "/usr/", 5))
			add3(a, "--ro-bind-try", real, real);
	globfree(&g);
}

/* /dev/nvidia* (nvidia0.., nvidiactl, nvidia-uvm, nvidia-caps/): the
 * device nodes bound with device access.  Returns how many. */
static int add_gpu_devices(struct args *a)
{
	DIR *d = opendir("/dev");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "nvidia", 6)) {
			char p[300];

			snprintf(p, sizeof(p), "/dev/%s", e->d_name);
			add3(a, "--dev-bind-try", p, p);
			n++;
		}
	closedir(d);
	return n;
}

/* A pipe holding `text`, its read end returned (bwrap reads it to the end;
 * small enough for the pipe's buffer). */
static int data_fd(const char *text)
{
	int p[2];
	size_t n = strlen(text);

	if (pipe2(p, O_CLOEXEC))
		return -1;
	if (write(p[1], text, n) != (ssize_t)n) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	close(p[1]);
	return p[0];
}

/* Descriptors the child hands to bwrap, at these numbers. */
enum { FD_SECCOMP = 3, FD_PASSWD, FD_GROUP, FD_HOSTS, FD_STATUS, FD_COUNT };

/* How output_bytes is shared among the three tmpfs the step may write:
 * half for the workspace, 3/8 for /tmp, 1/8 for /dev/shm. */
struct sizes {
	uint64_t work, tmp, shm;
};

static void build_bwrap(struct args *a, const char *bwrap, const kt_sandbox_spec *sp,
			const struct sizes *z, unsigned procs, int *ngpu)
{
	static const char *const top[] = { "bin", "sbin", "lib", "lib32", "lib64",
					   "libx32", NULL };
	/* what a compiler and the CUDA runtime read in /etc: the dynamic
	 * linker's cache and the alternatives cc and c++ go through */
	static const char *const etc[] = { "/etc/ld.so.cache", "/etc/ld.so.conf",
					   "/etc/ld.so.conf.d", "/etc/alternatives",
					   "/etc/localtime", NULL };
	static const char *const keep_env[] = { "PATH", "LANG", "LC_ALL", "TZ",
						"LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH",
						"CUDA_VISIBLE_DEVICES", NULL };
	size_t i;

	add(a, bwrap);
	add(a, "--unshare-all");
	add(a, "--unshare-user");
	if (sp->allow_network)
		add(a, "--share-net");
	add(a, "--disable-userns");
	add3(a, "--cap-drop", "ALL", NULL);
	add(a, "--die-with-parent");
	add(a, "--new-session");
	add3(a, "--hostname", "ktraj-replay", NULL);
	add(a, "--seccomp");
	addf(a, "%d", FD_SECCOMP);
	add3(a, "--ro-bind", "/usr", "/usr");
	for (i = 0; top[i]; i++)
		add_toplevel(a, top[i]);
	add_cuda(a);
	for (i = 0; etc[i]; i++)
		add3(a, "--ro-bind-try", etc[i], etc[i]);
	add(a, "--ro-bind-data");
	addf(a, "%d", FD_PASSWD);
	add(a, "/etc/passwd");
	add(a, "--ro-bind-data");
	addf(a, "%d", FD_GROUP);
	add(a, "/etc/group");
	add(a, "--ro-bind-data");
	addf(a, "%d", FD_HOSTS);
	add(a, "/etc/hosts");
	/* bwrap writes here once the sandbox is set up: without it, the
	 * sandbox never started and nothing of the step ran */
	add(a, "--json-status-fd");
	addf(a, "%d", FD_STATUS);
	add3(a, "--proc", "/proc", NULL);
	add3(a, "--dev", "/dev", NULL);
	/* no pseudo-terminals: bwrap's /dev has a devpts instance, through
	 * which a step could take the host's ptys up to kernel.pty.max, and a
	 * compile or benchmark needs none; /dev/ptmx now points at nothing */
	add(a, "--size");
	add(a, "4096");
	add3(a, "--tmpfs", "/dev/pts", NULL);
	*ngpu = 0;
	if (sp->gpu) {
		*ngpu = add_gpu_devices(a);
		/* the CUDA driver reads the PCI topology; read-only */
		add3(a, "--ro-bind-try", "/sys", "/sys");
	}
	add(a, "--size");
	addf(a, "%llu", (unsigned long long)z->work);
	add3(a, "--tmpfs", SB_WORK, NULL);
	add(a, "--size");
	addf(a, "%llu", (unsigned long long)z->tmp);
	add3(a, "--tmpfs", "/tmp", NULL);
	add(a, "--size");
	addf(a, "%llu", (unsigned long long)z->shm);
	add3(a, "--tmpfs", "/dev/shm", NULL);
	if (sp->cache_dir)
		add3(a, "--bind", sp->cache_dir, SB_CACHE);
	/* bwrap's own root is a tmpfs without a size: nothing may write it */
	add3(a, "--remount-ro", "/", NULL);
	/* --dev makes /dev a tmpfs of its own, without a size: read-only once
	 * its nodes, the NVIDIA binds and the /dev/shm tmpfs are in place
	 * (writing a device node needs no write access to its mount) */
	add3(a, "--remount-ro", "/dev", NULL);
	add3(a, "--remount-ro", "/dev/pts", NULL);
	add3(a, "--chdir", SB_WORK, NULL);
	add(a, "--clearenv");
	for (i = 0; keep_env[i]; i++)
		if (getenv(keep_env[i]))
			add3(a, "--setenv", keep_env[i], getenv(keep_env[i]));
	if (!getenv("PATH"))
		add3(a, "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin");
	add3(a, "--", "/bin/sh", "-c");
	add3(a, wrapper, "ktraj-sandbox", SB_WORK);
	addf(a, "%u", procs);
	add3(a, sp->bundle_dir, sp->cache_dir ? SB_CACHE : "", "/tmp");
}

/* ---- the bundle, for the sandbox ------------------------------------------------ */

/* The sandbox unpacks with `tar` alone, which needs no decompressor there. */
int kt_sandbox_plain_tar(int in_fd, const char *manifest_name, uint64_t max_bytes, int *out_fd,
			 char **manifest, char *err, size_t errlen)
{
	struct kt_archive_utf8 u;
	struct archive *a, *w;
	struct archive_entry *e, *o;
	struct kt_buf mb = {0}; /* the manifest's text */
	uint64_t total = 0;
	int rc = 0, r, fd = memfd_create("ktraj-bundle", MFD_CLOEXEC);

	/* a pax name record is UTF-8 (Python's tarfile writes one for any
	 * non-ASCII name): read, and written again, as import reads it */
	kt_archive_utf8_enter(&u);
	a = archive_read_new();
	w = archive_write_new();

	*out_fd = -1;
	*manifest = NULL;
	if (!a || !w || fd < 0) {
		rc = fd < 0 ? KT_EIO : kt_archive_fail(err, errlen);
		goto out;
	}
	archive_read_support_filter_all(a);
	archive_read_support_format_tar(a);
	if (lseek(in_fd, 0, SEEK_SET) || archive_read_open_fd(a, in_fd, 1 << 16) != ARCHIVE_OK ||
	    archive_write_set_format_pax_restricted(w) != ARCHIVE_OK ||
	    archive_write_open_fd(w, fd) != ARCHIVE_OK) {
		snprintf(err, errlen, "%s", archive_error_string(a) ? archive_error_string(a) :
			 archive_error_string(w) ? archive_error_string(w) : "bundle");
		rc = KT_EIO;
		goto out;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);
		int is_manifest = name && !strcmp(name, manifest_name);
		char buf[1 << 16];
		la_ssize_t n;

		if (!name || name[0] == '/' || strstr(name, "..") ||
		    (archive_entry_filetype(e) != AE_IFREG &&
		     archive_entry_filetype(e) != AE_IFDIR)) {
			snprintf(err, errlen, "unsafe bundle entry %s", name ? name : "(null)");
			rc = KT_ECORRUPT;
			goto out;
		}
		/* a fresh entry with what the unpacking needs: an entry read
		 * keeps the bundle's device and inode numbers, which libarchive
		 * compares with the memfd's ("Can't add archive to itself",
		 * seen on the H200), and its setuid/setgid bits */
		o = archive_entry_new();
		if (!o) {
			rc = KT_ENOMEM;
			goto out;
		}
		archive_entry_set_pathname(o, name);
		archive_entry_set_filetype(o, archive_entry_filetype(e));
		archive_entry_set_perm(o, archive_entry_perm(e) & 0777);
		archive_entry_set_size(o, archive_entry_size(e));
		archive_entry_set_mtime(o, archive_entry_mtime(e), 0);
		/* a small hostile .tar.gz must not fill this host's memory */
		total += 512 + (uint64_t)(archive_entry_size(e) > 0 ? archive_entry_size(e) : 0);
		if (max_bytes && total > max_bytes) {
			archive_entry_free(o);
			snprintf(err, errlen, "bundle expands to more than %llu bytes, "
				 "the step's workspace", (unsigned long long)max_bytes);
			rc = KT_ECORRUPT;
			goto out;
		}
		r = archive_write_header(w, o);
		archive_entry_free(o);
		if (r != ARCHIVE_OK) {
			snprintf(err, errlen, "%s", archive_error_string(w));
			rc = KT_EIO;
			goto out;
		}
		if (is_manifest) /* a later copy of it replaces the text */
			kt_buf_reset(&mb);
		while ((n = archive_read_data(a, buf, sizeof(buf))) > 0) {
			if (archive_write_data(w, buf, (size_t)n) != n) {
				snprintf(err, errlen, "%s", archive_error_string(w));
				rc = KT_EIO;
				goto out;
			}
			if (is_manifest && kt_buf_add(&mb, buf, (size_t)n)) {
				rc = KT_ENOMEM;
				goto out;
			}
		}
		if (n < 0) {
			snprintf(err, errlen, "%s", archive_error_string(a));
			rc = KT_EIO;
			goto out;
		}
	}
	if (r != ARCHIVE_EOF) {
		snprintf(err, errlen, "%s", archive_error_string(a));
		rc = KT_EIO;
		goto out;
	}
	if (archive_write_close(w) != ARCHIVE_OK || lseek(fd, 0, SEEK_SET)) {
		snprintf(err, errlen, "%s", archive_error_string(w));
		rc = KT_EIO;
	}
out:
	if (a)
		archive_read_free(a);
	if (w)
		archive_write_free(w);
	kt_archive_utf8_leave(&u);
	if (rc) {
		if (fd >= 0)
			close(fd);
		kt_buf_free(&mb);
	} else {
		*out_fd = fd;
		*manifest = mb.s; /* NULL when there was none, or it was empty */
	}
	return rc;
}

/* ---- which profile ------------------------------------------------------------ */

/* The program of the simple command at *p (after assignments, wrappers
 * like env/time/nice/timeout N and shell keywords), its base name copied to
 * prog; *p moves past that command.  What the command prints or names as
 * an argument is never a program. */
static const char *const wrappers[] = { "env", "time", "nice", "exec", "nohup", "command",
					"sudo", "stdbuf", "then", "do", "else", "if", "while",
					"until", "!", "{", NULL };

static size_t word(const char *p, char *w, size_t wlen)
{
	size_t n = 0, i = 0;
	char q = 0;

	for (; p[i]; i++) {
		char ch = p[i];

		if (q) {
			if (ch == q) {
				q = 0;
				continue;
			}
		} else if (ch == '\'' || ch == '"') {
			q = ch;
			continue;
		} else if (strchr(" \t\n;&|()`<>", ch)) {
			break;
		}
		if (n + 1 < wlen)
			w[n++] = ch;
	}
	w[n] = 0;
	return i;
}

/* Append "name\n" to the list outs ("\n"-led, so "\nNAME\n" finds one). */
static void add_out(char *outs, size_t olen, const char *name)
{
	size_t have = strlen(outs);

	if (!have && olen > 1)
		outs[have++] = '\n', outs[have] = 0;
	snprintf(outs + have, olen - have, "%s\n", name);
}

/* Scan cmd's simple commands; outs collects the -o outputs of nvcc runs
 * (their base names, "\n"-separated).  Returns 1 when a command runs nvcc
 * or one of the outputs already in outs. */
static int scan_cuda(const char *cmd, char *outs, size_t olen)
{
	const char *p = cmd;
	char w[512];
	int found = 0;

	while (p && *p) {
		int prog = 1, nvcc = 0, want_out = 0, skip_num = 0;

		while (*p && strchr(" \t\n;&|()`$", *p))
			p++;
		while (*p && !strchr(";&|()`\n", *p)) {
			size_t n = word(p, w, sizeof(w));

			p += n ? n : 1;
			while (*p == ' ' || *p == '\t')
				p++;
			if (!*w)
				continue;
			if (prog) {
				size_t i;
				int wrap = 0;

				if (skip_num && strspn(w, "0123456789.smhd") == strlen(w)) {
					skip_num = 0;
					continue;
				}
				for (i = 0; wrappers[i]; i++)
					wrap |= !strcmp(w, wrappers[i]);
				if (wrap || (strchr(w, '=') && w[0] != '=' && w[0] != '-')) {
					continue;
				}
				if (!strcmp(w, "timeout")) {
					skip_num = 1;
					continue;
				}
				if (w[0] == '-')
					continue;  /* a wrapper's option */
				prog = 0;
				nvcc = !strcmp(kt_basename(w), "nvcc");
				if (nvcc) {
					found = 1;
				} else {
					char key[520];

					snprintf(key, sizeof(key), "\n%s\n", kt_basename(w));
					if (*kt_basename(w) && strstr(outs, key))
						found = 1;
				}
				continue;
			}
			if (nvcc && want_out) {
				add_out(outs, olen, kt_basename(w));
				want_out = 0;
			} else if (nvcc && (!strcmp(w, "-o") || !strcmp(w, "--output-file"))) {
				want_out = 1;
			} else if (nvcc && !strncmp(w, "-o", 2)) {
				add_out(outs, olen, kt_basename(w + 2));
			}
		}
	}
	return found;
}

int kt_sandbox_step_gpu(const cJSON *manifest)
{
	const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(manifest, "kind"));
	const char *compiler = cJSON_GetStringValue(
		cJSON_GetObjectItem(cJSON_GetObjectItem(manifest, "toolchain"), "compiler"));
	const char *build = cJSON_GetStringValue(cJSON_GetObjectItem(manifest, "build_command"));
	const char *cmd = cJSON_GetStringValue(cJSON_GetObjectItem(manifest, "command"));
	char outs[2048] = "";

	if (cJSON_GetObjectItem(manifest, "harness") || (kind && !strcmp(kind, "bench")))
		return 1;
	if (kind && !strcmp(kind, "compile") && compiler && !strcmp(kt_basename(compiler), "nvcc"))
		return 1;
	/* the build first: its outputs are the CUDA binaries the step runs */
	if (build && scan_cuda(build, outs, sizeof(outs)))
		return 1;
	return cmd && scan_cuda(cmd, outs, sizeof(outs));
}

int kt_sandbox_needs_gpu(const cJSON *manifest)
{
	return !access("/dev/nvidiactl", F_OK) && kt_sandbox_step_gpu(manifest);
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f);

/* ---- the cache's size ------------------------------------------------------------ */

/* Bytes of the files under dirfd/name (not following links; depth-bound
 * against a hostile tree; what cannot be read counts 0).  With strip, the
 * setuid and setgid bits of every file found are cleared on the way: only
 * once the step has ended (its processes died with the sandbox's PID
 * namespace), so nothing swaps a name between the check and the chmod. */
static uint64_t tree_walk(int at, const char *name, int depth, int strip)
{
	struct stat st;
	uint64_t n = 0;
	DIR *d;
	struct dirent *e;
	int fd;

	if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW))
		return 0;
	if (strip && !S_ISLNK(st.st_mode) && (st.st_mode & (S_ISUID | S_ISGID)))
		fchmodat(at, name, st.st_mode & 07777 & ~(mode_t)(S_ISUID | S_ISGID), 0);
	if (!S_ISDIR(st.st_mode))
		return S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	if (depth > 64 || (fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
				      O_CLOEXEC)) < 0)
		return 0;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return 0;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n += tree_walk(dirfd(d), e->d_name, depth + 1, strip);
	closedir(d);
	return n;
}

uint64_t kt_sandbox_cache_bytes(const char *dir)
{
	return tree_walk(AT_FDCWD, dir, 0, 0);
}

uint64_t kt_sandbox_cache_strip(const char *dir)
{
	return tree_walk(AT_FDCWD, dir, 0, 1);
}

struct centry {
	char *path;
	time_t mtime;
	uint64_t bytes;
};

static int centry_cmp(const void *a, const void *b)
{
	const struct centry *x = a, *y = b;

	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* Add the children of dir (objects/ is opened one level deeper) to *v. */
static int list_entries(const char *dir, int top, struct centry **v, size_t *n, size_t *cap)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return top ? KT_EIO : 0;
	while (!rc && (e = readdir(d))) {
		struct stat st;
		char *p;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (asprintf(&p, "%s/%s", dir, e->d_name) < 0) {
			rc = KT_ENOMEM;
			break;
		}
		if (lstat(p, &st)) {
			free(p);
			continue;
		}
		if (top && S_ISDIR(st.st_mode) && !strcmp(e->d_name, "objects")) {
			rc = list_entries(p, 0, v, n, cap);
			free(p);
			continue;
		}
		if (KT_GROW(*v, *cap, *n + 1)) {
			free(p);
			rc = KT_ENOMEM;
			break;
		}
		(*v)[*n].path = p;
		(*v)[*n].mtime = st.st_mtime;
		(*v)[*n].bytes = tree_walk(AT_FDCWD, p, 1, 0);
		(*n)++;
	}
	closedir(d);
	return rc;
}

int kt_sandbox_cache_trim(const char *dir, uint64_t max, unsigned *removed,
			  uint64_t *removed_bytes, uint64_t *total)
{
	struct centry *v = NULL;
	size_t n = 0, cap = 0, i;
	uint64_t sum = 0;
	int rc;

	*removed = 0;
	*removed_bytes = 0;
	rc = list_entries(dir, 1, &v, &n, &cap);
	for (i = 0; i < n; i++)
		sum += v[i].bytes;
	*total = sum;
	if (!rc && sum > max) {
		qsort(v, n, sizeof(*v), centry_cmp);
		for (i = 0; i < n && sum > max; i++) {
			nftw(v[i].path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
			sum -= v[i].bytes;
			*removed_bytes += v[i].bytes;
			(*removed)++;
		}
	}
	for (i = 0; i < n; i++)
		free(v[i].path);
	free(v);
	return rc;
}

/* ---- running ----------------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void set_limit(int res, uint64_t v)
{
	struct rlimit rl;

	rl.rlim_cur = rl.rlim_max = (rlim_t)v;
	setrlimit(res, &rl);
}

/* In the child: put `fds[i]` at number 3 + i (0, 1, 2 are given apart) and
 * close everything else, so nothing of ktraj (the store's LMDB file, its
 * lock) reaches the step. */
static int place_fds(int in, int out, int errfd, const int *fds, int n)
{
	int hi[FD_COUNT + 3], i;
	int src[FD_COUNT + 3];

	src[0] = in;
	src[1] = out;
	src[2] = errfd;
	for (i = 0; i < n; i++)
		src[3 + i] = fds[i];
	for (i = 0; i < 3 + n; i++)
		if ((hi[i] = fcntl(src[i], F_DUPFD, 64)) < 0)
			return -1;
	for (i = 0; i < 3 + n; i++)
		if (dup2(hi[i], i) < 0)
			return -1;
	if (close_range((unsigned)(3 + n), ~0u, 0)) {
		long i2, max = sysconf(_SC_OPEN_MAX);

		for (i2 = 3 + n; i2 < (max > 0 ? max : 65536); i2++)
			close((int)i2);
	}
	return 0;
}

static void child_fail(const char *what)
{
	char buf[256];
	int n = snprintf(buf, sizeof(buf), "%s: %s\n", what, strerror(errno));

	if (n > 0 && write(2, buf, (size_t)n) < 0) { /* nothing left to tell */ }
	_exit(126);
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	remove(p);
	return 0;
}

static void isolation_json(kt_sandbox_result *res, const kt_sandbox_spec *sp,
			   const char *version, const struct sizes *z,
			   unsigned procs, int ngpu, const kt_cgroup *cg)
{
	cJSON *is = cJSON_CreateObject(), *lim, *c;

	if (!is)
		return;
	if (sp->no_sandbox) {
		cJSON_AddStringToObject(is, "sandbox", "none");
	} else {
		static const char *const ns[] = { "user", "pid", "mount", "ipc", "uts",
						  "net", "cgroup", NULL };
		cJSON *a = cJSON_AddArrayToObject(is, "namespaces");
		int i;

		cJSON_AddStringToObject(is, "sandbox", "bubblewrap");
		cJSON_AddStringToObject(is, "version", version);
		for (i = 0; ns[i]; i++)
			if (strcmp(ns[i], "net") || !sp->allow_network)
				cJSON_AddItemToArray(a, cJSON_CreateString(ns[i]));
		cJSON_AddBoolToObject(is, "seccomp", 1);
		cJSON_AddStringToObject(is, "caps", "none");
		cJSON_AddStringToObject(is, "uid", getuid() == 0 ? "nobody" : "caller");
		cJSON_AddStringToObject(is, "root", "minimal-readonly");
		cJSON_AddStringToObject(is, "dev", ngpu ? "private+nvidia" : "private");
		cJSON_AddNumberToObject(is, "gpu_devices", ngpu);
		cJSON_AddNumberToObject(is, "work_bytes", (double)z->work);
		cJSON_AddNumberToObject(is, "tmp_bytes", (double)z->tmp);
		cJSON_AddNumberToObject(is, "shm_bytes", (double)z->shm);
		cJSON_AddBoolToObject(is, "cache", sp->cache_dir != NULL);
		cJSON_AddBoolToObject(is, "ptys", 0);
	}
	/* false: the memory limit is the rlimits' and the tmpfs sizes', and
	 * shared memory (memfd, SysV) is outside it */
	if (!cg->version) {
		cJSON_AddBoolToObject(is, "cgroup", 0);
		/* what to change to get one (root, a delegated group) */
		cJSON_AddStringToObject(is, "cgroup_why", cg->why);
	} else if ((c = cJSON_AddObjectToObject(is, "cgroup"))) {
		cJSON_AddNumberToObject(c, "version", cg->version);
		cJSON_AddNumberToObject(c, "mem_bytes", (double)cg->mem_bytes);
		cJSON_AddBoolToObject(c, "swap_limited", cg->swap);
		if (cg->pids_max)
			cJSON_AddNumberToObject(c, "pids", cg->pids_max);
	}
	cJSON_AddBoolToObject(is, "network", !sp->no_sandbox && !sp->allow_network);
	lim = cJSON_AddObjectToObject(is, "limits");
	cJSON_AddNumberToObject(lim, "timeout_s", sp->timeout_s);
	cJSON_AddNumberToObject(lim, "cpu_s", sp->cpu_s);
	cJSON_AddStringToObject(lim, "memory", sp->gpu ? "RLIMIT_DATA" : "RLIMIT_AS");
	cJSON_AddNumberToObject(lim, "mem_bytes", (double)sp->mem_bytes);
	cJSON_AddNumberToObject(lim, "file_bytes", (double)sp->file_bytes);
	if (!sp->no_sandbox) {
		cJSON_AddNumberToObject(lim, "procs", procs);
		cJSON_AddNumberToObject(lim, "output_bytes", (double)(z->work + z->tmp + z->shm));
	}
	if (sp->cache_dir && sp->cache_max)
		cJSON_AddNumberToObject(lim, "cache_bytes", (double)sp->cache_max);
	res->isolation = is;
}

/* Read what is there on the two pipes; a full result is kept, stderr's
 * tail is kept in diag, the rest is drained so the writer never blocks. */
static void drain(int fd, int *open_, struct kt_buf *out, char *diag, size_t dlen)
{
	char buf[8192];
	ssize_t r = read(fd, buf, sizeof(buf));

	if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN)) {
		*open_ = 0;
		return;
	}
	if (r < 0)
		return;
	if (out) {
		if (out->len + (size_t)r <= OUT_MAX)
			kt_buf_add(out, buf, (size_t)r);
	} else {
		size_t have = strlen(diag), n = (size_t)r;

		if (n >= dlen)
			n = dlen - 1;
		if (have + n >= dlen) {
			memmove(diag, diag + (have + n - (dlen - 1)), dlen - 1 - n);
			have = dlen - 1 - n;
		}
		memcpy(diag + have, buf + (size_t)r - n, n);
		diag[have + n] = 0;
	}
}

int kt_sandbox_run(int tar_fd, const kt_sandbox_spec *sp, kt_sandbox_result *res,
		   char *err, size_t errlen)
{
	char bwrap[PATH_MAX], version[64] = "", dir[] = "/tmp/ktraj-replay.XXXXXX";
	char text[512];
	struct args a = { 0 };
	uint64_t out_bytes = sp->output_bytes ? sp->output_bytes : sp->mem_bytes / 2;
	struct sizes z = { out_bytes / 2, out_bytes / 8 * 3, out_bytes / 8 };
	unsigned procs = sp->max_procs ? sp->max_procs : DEF_PROCS;
	unsigned uid = kt_sandbox_uid(), gid = sandbox_gid();
	int fds[FD_COUNT - 3] = { -1, -1, -1, -1, -1 }, po[2] = { -1, -1 }, pe[2] = { -1, -1 };
	int ps[2] = { -1, -1 };
	int ngpu = 0, rc = 0, st = 0, oopen = 1, eopen = 1, exited = 0;
	kt_cgroup cg = { 0 };
	pid_t pid, parent = getpid();
	double deadline, grace = 0, cache_check = 0;
	uint64_t cache_start = 0;
	struct kt_buf outb = {0}; /* the step's stdout, up to OUT_MAX */
	size_t i;

	memset(res, 0, sizeof(*res));
	if (!sp->no_sandbox) {
		if ((rc = kt_sandbox_find(bwrap, sizeof(bwrap), version, sizeof(version)))) {
			snprintf(err, errlen, "bubblewrap is not installed");
			return rc;
		}
		fds[0] = kt_sandbox_seccomp_fd();
		if (fds[0] < 0) {
			rc = fds[0];
			if (*kt_seccomp_load_error())
				snprintf(err, errlen, "cannot build the seccomp filter: "
					 "cannot load libseccomp (%s)",
					 kt_seccomp_load_error());
			else
				snprintf(err, errlen, "cannot build the seccomp filter");
			goto out;
		}
		snprintf(text, sizeof(text), "ktraj:x:%u:%u:replay:" SB_WORK "/home:/bin/sh\n",
			 uid, gid);
		fds[1] = data_fd(text);
		snprintf(text, sizeof(text), "ktraj:x:%u:\n", gid);
		fds[2] = data_fd(text);
	} else if (!mkdtemp(dir)) {
		snprintf(err, errlen, "cannot create a temp directory: %s", strerror(errno));
		return KT_EIO;
	}
	if (!sp->no_sandbox) {
		int h = data_fd("127.0.0.1 localhost\n::1 localhost\n");

		/* fds[] holds seccomp, passwd, group; hosts goes last */
		if (fds[1] < 0 || fds[2] < 0 || h < 0) {
			if (h >= 0)
				close(h);
			rc = KT_EIO;
			snprintf(err, errlen, "cannot make a pipe: %s", strerror(errno));
			goto out;
		}
		fds[FD_HOSTS - 3] = h;
		if (pipe2(ps, O_CLOEXEC | O_NONBLOCK)) {
			rc = KT_EIO;
			snprintf(err, errlen, "cannot make a pipe: %s", strerror(errno));
			goto out;
		}
		fds[FD_STATUS - 3] = ps[1];
		build_bwrap(&a, bwrap, sp, &z, procs, &ngpu);
	} else {
		add3(&a, "/bin/sh", "-c", wrapper);
		add3(&a, "ktraj-sandbox", dir, "0");
		add3(&a, sp->bundle_dir, sp->cache_dir ? sp->cache_dir : "", "");
	}
	if (a.oom) {
		rc = KT_ENOMEM;
		goto out;
	}
	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC)) {
		rc = KT_EIO;
		snprintf(err, errlen, "cannot make a pipe: %s", strerror(errno));
		goto out;
	}
	/* everything the step's processes hold together, shared memory and
	 * its tmpfs files included; without a cgroup the rlimits alone */
	kt_cgroup_make(sp->mem_bytes + z.work + z.tmp + z.shm, procs + PIDS_SLACK, &cg);
	pid = fork();
	if (pid < 0) {
		rc = KT_ECHILD;
		snprintf(err, errlen, "cannot fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		setpgid(0, 0);
		if (dup2(pe[1], 2) < 0)
			_exit(126);
		/* before anything of the step runs, while still root (the
		 * group's files are root's); a limit recorded is one applied */
		if (cg.version && kt_cgroup_enter(&cg))
			child_fail("entering the step's cgroup");
		if (!sp->no_sandbox && getuid() == 0 &&
		    (setgroups(0, NULL) || setgid(gid) || setuid(uid)))
			child_fail("dropping root");
		/* after the uid change, which clears it: ktraj's death kills
		 * bwrap, whose --die-with-parent then kills the sandbox */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(126);
		set_limit(RLIMIT_CPU, sp->cpu_s);
		set_limit(sp->gpu ? RLIMIT_DATA : RLIMIT_AS, sp->mem_bytes);
		set_limit(RLIMIT_FSIZE, sp->file_bytes);
		set_limit(RLIMIT_CORE, 0);
		if (place_fds(tar_fd, po[1], pe[1], fds, sp->no_sandbox ? 0 : FD_COUNT - 3))
			child_fail("passing descriptors");
		if (sp->no_sandbox) {
			execv(a.v[0], a.v);
		} else {
			/* bwrap's own process stays inside as PID 1, and the
			 * step can read its /proc/1/environ: bwrap gets no
			 * environment of ktraj's (--clearenv only cleans the
			 * step's) */
			static char *const clean_env[] = {
				"PATH=/usr/bin:/bin", NULL
			};

			execve(a.v[0], a.v, clean_env);
		}
		child_fail(a.v[0]);
	}
	close(po[1]);
	close(pe[1]);
	po[1] = pe[1] = -1;
	if (fds[FD_STATUS - 3] >= 0) {
		close(fds[FD_STATUS - 3]);
		fds[FD_STATUS - 3] = ps[1] = -1;
	}
	deadline = now_s() + sp->timeout_s;
	if (sp->cache_dir && sp->cache_max) {
		cache_start = kt_sandbox_cache_bytes(sp->cache_dir);
		cache_check = now_s() + 0.5;
	}
	while (oopen || eopen || !exited) {
		struct pollfd p[2];
		int np = 0;

		if (oopen)
			p[np++] = (struct pollfd){ .fd = po[0], .events = POLLIN };
		if (eopen)
			p[np++] = (struct pollfd){ .fd = pe[0], .events = POLLIN };
		if (np)
			poll(p, (nfds_t)np, 50);
		else
			usleep(20000);
		for (i = 0; i < (size_t)np; i++)
			if (p[i].revents)
				drain(p[i].fd, p[i].fd == po[0] ? &oopen : &eopen,
				      p[i].fd == po[0] ? &outb : NULL,
				      res->diag, sizeof(res->diag));
		if (!exited && waitpid(pid, &st, WNOHANG) == pid) {
			exited = 1;
			/* in the sandbox everything died with bwrap; without,
			 * a process left running may hold the pipes */
			grace = now_s() + 1;
		}
		if (exited && now_s() > grace)
			break;
		/* the cache is a host directory: what one step may add to it
		 * is bounded too, not only what is kept between steps */
		if (!exited && cache_check && now_s() > cache_check) {
			cache_check = now_s() + 0.5;
			if (kt_sandbox_cache_bytes(sp->cache_dir) > cache_start + sp->cache_max) {
				res->cache_full = 1;
				deadline = 0;
			}
		}
		if (!exited && now_s() > deadline) {
			kt_cgroup_kill(&cg);
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			res->timed_out = !res->cache_full;
			break;
		}
	}
	/* out of memory drops what came after, as OUT_MAX does: the result
	 * is what was kept (outb.s up to len stays valid) */
	res->out = outb.s;
	res->out_len = outb.len;
	/* without the sandbox, what the step left in its process group (and
	 * in its cgroup: a setsid daemon) */
	kill(-pid, SIGKILL);
	res->oom_kills = kt_cgroup_oom_kills(&cg);
	kt_cgroup_kill(&cg);
	res->status = st;
	/* the cache outlives the step on the host: no program the step left
	 * there may run as its owner (the seccomp filter refuses setting the
	 * bits; this clears what got through another way) */
	if (sp->cache_dir && !sp->no_sandbox)
		kt_sandbox_cache_strip(sp->cache_dir);
	if (ps[0] >= 0 && !res->timed_out && !res->cache_full) {
		char buf[256];
		ssize_t n = read(ps[0], buf, sizeof(buf) - 1);

		if (n <= 0) {
			rc = KT_ECHILD;
			snprintf(err, errlen, "the sandbox did not start%s%s", *res->diag ? ": " : "",
				 res->diag);
			err[strcspn(err, "\n")] = 0;
			goto out;
		}
	}
	isolation_json(res, sp, version, &z, procs, ngpu, &cg);
	if (!res->isolation)
		rc = KT_ENOMEM;
out:
	kt_cgroup_remove(&cg);
	for (i = 0; i < FD_COUNT - 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (po[0] >= 0)
		close(po[0]);
	if (pe[0] >= 0)
		close(pe[0]);
	if (po[1] >= 0)
		close(po[1]);
	if (pe[1] >= 0)
		close(pe[1]);
	if (ps[0] >= 0)
		close(ps[0]);
	if (sp->no_sandbox && dir[sizeof(dir) - 2] != 'X')
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	args_free(&a);
	if (rc)
		kt_sandbox_result_free(res);
	return rc;
}

void kt_sandbox_result_free(kt_sandbox_result *res)
{
	free(res->out);
	res->out = NULL;
	res->out_len = 0;
	cJSON_Delete(res->isolation);
	res->isolation = NULL;
}

int kt_sandbox_janitor(const char *dir, kt_janitor *j)
{
	int p[2];

	j->fd = -1;
	j->pid = -1;
	if (pipe2(p, O_CLOEXEC))
		return KT_EIO;
	j->pid = fork();
	if (j->pid < 0) {
		close(p[0]);
		close(p[1]);
		return KT_EIO;
	}
	if (j->pid == 0) {
		char c;

		/* its own session: a Ctrl-C meant for ktraj does not take
		 * it along, and nothing of ktraj's but the pipe stays open */
		setsid();
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		if (dup2(p[0], 0) < 0)
			_exit(1);
		close_range(1, ~0u, 0);
		while (read(0, &c, 1) < 0 && errno == EINTR)
			;
		/* ktraj is gone or done; a sandbox killed with it may still
		 * be dying for a moment, writing here */
		for (int i = 0; i < 20; i++) {
			struct stat st;

			nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
			if (lstat(dir, &st))
				break;
			usleep(100000);
		}
		_exit(0);
	}
	close(p[0]);
	j->fd = p[1];
	return 0;
}

void kt_sandbox_janitor_done(kt_janitor *j)
{
	if (j->fd >= 0)
		close(j->fd);
	if (j->pid > 0)
		while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR)
			;
	j->fd = -1;
	j->pid = -1;
}
