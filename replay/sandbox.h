/*
 * sandbox.h - run an untrusted replay bundle under bubblewrap.
 *
 * `ktraj replay` runs code taken from a trajectory, often one somebody else
 * recorded.  This module is the security boundary around it: the step runs
 * under bubblewrap (bwrap, Debian package `bubblewrap`) in new user, PID,
 * mount, IPC, UTS, network and cgroup namespaces, with every capability
 * dropped, a seccomp filter built with libseccomp, a minimal read-only root
 * (the toolchain, nothing of $HOME, /root, /run, /etc's secrets), a private
 * /dev without pseudo-terminals, its workspace, /tmp and /dev/shm on
 * size-limited tmpfs (so nothing of it is left on the host, whatever
 * happens to ktraj), resource limits and, where one can be made, a cgroup
 * of its own (cgroup.h) that bounds its memory in total, shared memory
 * included, and its tasks.
 * As root the step does not run as root: bwrap is started as the user
 * "nobody" (uid 65534 when there is no such user), because the kernel
 * exempts uid 0 from the process-count limit.
 *
 * The bundle travels into the sandbox as a plain (uncompressed) tar on the
 * step's standard input; the sandbox unpacks it with `tar` into its own
 * tmpfs, runs the bundle's run.sh and prints its result.json, which comes
 * back as the captured output.
 */
#ifndef KT_SANDBOX_H
#define KT_SANDBOX_H
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

typedef struct kt_sandbox_spec {
	unsigned timeout_s;     /* wall clock; the whole sandbox is killed */
	unsigned cpu_s;         /* RLIMIT_CPU of every process */
	uint64_t mem_bytes;     /* RLIMIT_AS per process (RLIMIT_DATA for GPU
				   steps: the CUDA driver reserves address
				   space far beyond what it uses) */
	uint64_t output_bytes;  /* everything the step may write in total: half
				   is the workspace's tmpfs, 3/8 the /tmp tmpfs,
				   1/8 the /dev/shm tmpfs; 0: half of mem_bytes */
	uint64_t file_bytes;    /* RLIMIT_FSIZE: largest single file */
	unsigned max_procs;     /* RLIMIT_NPROC inside the sandbox's user
				   namespace (0: 256) */
	int allow_network;      /* 1: keep the host's network namespace */
	int gpu;                /* 1: bind /dev/nvidia* and /sys read-only, and
				   limit RLIMIT_DATA instead of RLIMIT_AS */
	int no_sandbox;         /* 1: run without bubblewrap, in a host temp
				   directory, with the rlimits only */
	const char *cache_dir;  /* host directory kept across steps (bound
				   read-write at /ktraj-cache), or NULL */
	uint64_t cache_max;     /* what the step may add to cache_dir, bytes;
				   beyond it the sandbox is killed (0: no cap) */
	const char *bundle_dir; /* the bundle's top folder in the tar, where
				   run.sh and result.json are */
} kt_sandbox_spec;

typedef struct kt_sandbox_result {
	int status;       /* wait status of the sandbox (bwrap exits with the
			     step's wrapper's status) */
	int timed_out;    /* 1: killed by the wall-clock watchdog */
	int cache_full;   /* 1: killed for adding more than cache_max bytes
			     to the cache */
	unsigned oom_kills; /* processes the OOM killer killed for the step's
			       cgroup memory limit (0 also without a cgroup) */
	char *out;        /* the bundle's result.json as printed, NUL-terminated
			     (at most 1 MiB kept), or NULL */
	size_t out_len;
	char diag[512];   /* the tail of the sandbox's own stderr (bwrap or
			     tar messages; the step's output goes to its files) */
	cJSON *isolation; /* what was applied, for the replay event (FORMAT.md
			     section 2 "replay"): sandbox, version, namespaces,
			     seccomp, caps, uid, root, dev, tmpfs, limits */
} kt_sandbox_result;

/*
 * Find bubblewrap: `bwrap` in $PATH.  path gets its file name, version
 * its version ("0.8.0"; "" when `bwrap --version` says nothing usable).  Returns 0, or KT_ENOTFOUND when it is not installed.
 */
int kt_sandbox_find(char *path, size_t pathlen, char *version, size_t vlen);

/*
 * The uid the step runs as: the caller's own, or for root the uid of
 * "nobody" (65534 when there is no such user).  A host directory the step
 * must write (the cache) has to be writable by it.
 */
unsigned kt_sandbox_uid(void);

/*
 * The seccomp filter as a classic BPF program (struct sock_filter array,
 * what bwrap's --seccomp reads), written to a new memory file and rewound.
 * Refused with EPERM: mount, umount2, the new mount API, setns, unshare,
 * clone with any CLONE_NEW* flag, pivot_root, chroot, ptrace,
 * process_vm_readv/writev, pidfd_getfd, kcmp, process_madvise, bpf,
 * keyctl, add_key, request_key, module loading and removal, reboot, kexec,
 * open_by_handle_at, name_to_handle_at, perf_event_open, userfaultfd,
 * io_uring, swapon/swapoff, acct, quotactl(_fd), iopl/ioperm,
 * modify_ldt, syslog, setting the clock, obsolete calls (uselib, _sysctl,
 * ustat, nfsservctl, vm86, ...), the TIOCSTI and TIOCLINUX ioctls, and
 * personality() with any value but the query (0xffffffff) and the caller's
 * current persona (compared on the low 32 bits, which the kernel reads);
 * clone3 gets ENOSYS (its flags are out of the filter's reach; the C
 * library then falls back to clone).  Syscalls of other architectures kill
 * the process.  The list was checked against the refusals of Docker's
 * default seccomp profile (moby, profiles/seccomp/default.json).
 * libseccomp is loaded here, at the first call (seccomp_dl.h).
 * Returns the fd (caller closes), or KT_ENOMEM / KT_EIO (KT_EIO also when
 * libseccomp cannot be loaded: kt_seccomp_load_error() says why).
 */
int kt_sandbox_seccomp_fd(void);

/*
 * Copy a bundle (a tar, compressed or not, read from in_fd from its start)
 * into a plain tar in a new memory file: *out_fd (close-on-exec, rewound,
 * caller closes), what kt_sandbox_run takes.  Checked like any archive:
 * only relative names without "..", only files and folders.  *manifest
 * gets the text of the member named manifest_name (caller frees; NULL when
 * there is none).  max_bytes (0: no cap) bounds what the bundle expands to
 * in host memory: its members' bytes plus 512 per member.  Errors:
 * KT_ECORRUPT (an unsafe entry, or more than max_bytes; err says which),
 * KT_EIO (reading, writing, the memory file; err from libarchive),
 * KT_ENOMEM.
 */
int kt_sandbox_plain_tar(int in_fd, const char *manifest_name, uint64_t max_bytes, int *out_fd,
			 char **manifest, char *err, size_t errlen);

/*
 * Whether a bundle's step is a GPU step, from what the step runs, never
 * from what its text mentions: manifest (FORMAT.md section 13) has a
 * "harness" or kind "bench"; or kind "compile" with toolchain.compiler
 * nvcc; or a simple command of its "build_command" or "command" runs
 * nvcc (the program word, after VAR=value assignments and wrappers such as
 * env, time, nice, timeout N), or runs a binary that an nvcc command
 * before it wrote with -o.  A step that only prints or names "cuda" or
 * "nvcc" as an argument is not.  Pure: 1 or 0.
 */
int kt_sandbox_step_gpu(const cJSON *manifest);

/*
 * The GPU profile for this step here: the host has /dev/nvidiactl and
 * kt_sandbox_step_gpu says so.  Such a step gets /dev/nvidia*, /sys
 * read-only and RLIMIT_DATA instead of RLIMIT_AS (kt_sandbox_spec.gpu);
 * `replay --gpu` asks for the profile whatever this says.
 */
int kt_sandbox_needs_gpu(const cJSON *manifest);

/*
 * Run the bundle read from tar_fd (a plain tar, seekable or not; it becomes
 * the sandbox's stdin) under sp.  The sandbox unpacks it into its tmpfs,
 * runs `sh <bundle_dir>/run.sh` with HOME, TMPDIR and (when cache_dir is
 * given) KTRAJ_CACHE set and stdin/stdout/stderr on /dev/null, and prints
 * <bundle_dir>/result.json.  *res is filled (free it with
 * kt_sandbox_result_free) whenever 0 is returned, whatever the step did.
 * The step's cgroup (kt_cgroup_make: memory mem_bytes + the three tmpfs
 * sizes, pids max_procs + 4) is entered by ktraj's child before bwrap
 * starts, killed at the timeout and removed before this returns;
 * res->isolation says whether there was one ("cgroup": false or what it
 * applied) and res->oom_kills what its OOM killer did.
 * Errors (nothing ran): KT_ENOTFOUND when bubblewrap is not installed and
 * sp->no_sandbox is 0; KT_ECHILD when the sandbox could not be started
 * (bwrap never reported it set up: no user namespaces, say; err says
 * "the sandbox did not start: " and bwrap's message); KT_ENOMEM; KT_EIO
 * (temp directory, pipes).
 */
int kt_sandbox_run(int tar_fd, const kt_sandbox_spec *sp, kt_sandbox_result *res,
		   char *err, size_t errlen);

typedef struct kt_janitor {
	int fd;   /* the pipe's write end, close-on-exec */
	int pid;  /* the process that removes the directory */
} kt_janitor;

/*
 * Remove `dir` (recursively) once this process is gone, however it ends: a
 * child in its own session waits for the end of a pipe whose write end
 * only this process holds (close-on-exec), which the kernel closes at its
 * exit, kill -9 included.  *j is what kt_sandbox_janitor_done needs.
 * Returns 0, or KT_EIO when no pipe or process could be made.
 */
int kt_sandbox_janitor(const char *dir, kt_janitor *j);

/* Remove the directory now: close the pipe and wait for the janitor. */
void kt_sandbox_janitor_done(kt_janitor *j);

/* Bytes of the regular files under dir (links not followed; 0 when it
 * cannot be read). */
uint64_t kt_sandbox_cache_bytes(const char *dir);

/* kt_sandbox_cache_bytes, and clear the setuid and setgid bits of every
 * file and directory under dir (links not followed).  kt_sandbox_run calls
 * it on its cache_dir once the step has ended; call it only when no
 * process the step started can still write dir. */
uint64_t kt_sandbox_cache_strip(const char *dir);

/*
 * Cap the replay cache `dir` at max bytes (kt_sandbox_cache_bytes): when it
 * holds more, its entries are removed oldest first (modification time)
 * until it fits.  An entry is each file of dir/objects/ (the harness's
 * compiled objects, one per source hash) and each other name directly in
 * dir as a whole (harness-build/, ...).  *total gets the bytes before,
 * *removed and *removed_bytes what went.  Returns 0, KT_EIO (dir cannot
 * be read) or KT_ENOMEM.
 */
int kt_sandbox_cache_trim(const char *dir, uint64_t max, unsigned *removed,
			  uint64_t *removed_bytes, uint64_t *total);

/* Free what kt_sandbox_run put in *res (safe on a zeroed one). */
void kt_sandbox_result_free(kt_sandbox_result *res);
#endif
