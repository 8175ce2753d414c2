/*
 * cgroup.h - a control group of its own for one replayed step.
 *
 * The rlimits of the sandbox are per process and count no shared memory:
 * pages of a memfd written with write(), a SysV segment touched and
 * detached, a shared mapping under RLIMIT_DATA.  A memory cgroup counts
 * every page the step's processes cause, files in its tmpfs included, and
 * its pids controller counts every task, so the step gets one when this
 * machine lets us make one: cgroup v2 (a group whose cgroup.subtree_control
 * enables memory and pids: our own, never a root above it) or cgroup v1
 * (the memory hierarchy, with pids and freezer when mounted).  Interfaces:
 * the kernel's Documentation/admin-guide/cgroup-v2.rst and
 * cgroup-v1/{memory,pids,freezer-subsystem}.rst.
 *
 * A group is named ktraj-replay-<pid of ktraj> and made next to (v1:
 * under) our own group; one left behind by a ktraj that was killed is
 * removed by the next kt_cgroup_make that finds its pid gone.
 */
#ifndef KT_CGROUP_H
#define KT_CGROUP_H
#include <stddef.h>
#include <stdint.h>

#define KT_CGROUP_PATH 512

typedef struct kt_cgroup {
	int version;         /* 0: none was made, 1: cgroup v1, 2: cgroup v2 */
	char mem[KT_CGROUP_PATH];     /* the group (v1: in the memory hierarchy) */
	char pids[KT_CGROUP_PATH];    /* v1: in the pids hierarchy, "" none */
	char freezer[KT_CGROUP_PATH]; /* v1: in the freezer hierarchy, "" none */
	uint64_t mem_bytes;  /* the memory limit as the kernel keeps it (page
				rounded), bytes */
	int swap;            /* 1: no swap either (memory.swap.max 0, v1
				memory.memsw.limit_in_bytes = the limit) */
	unsigned pids_max;   /* pids.max (tasks, threads included); 0 none */
	char why[512];       /* version 0: why none was made, one line (the
				group that would not take one, and what it
				lacked), for the replay event and the user */
} kt_cgroup;

/*
 * Where this process's group is in the hierarchy of `controller` ("memory",
 * "pids", "freezer": cgroup v1; "" for the cgroup v2 hierarchy), from the
 * texts of /proc/self/cgroup (`cgroup`) and /proc/self/mountinfo
 * (`mountinfo`, format in proc(5)).  dir gets the directory of the group,
 * mnt (when not NULL) the hierarchy's mount point.  Pure.  Returns 0, or
 * KT_ENOTFOUND (no such hierarchy mounted, our path is not under the
 * mount's root, a path with "..", or longer than dlen/mlen).
 */
int kt_cgroup_locate(const char *cgroup, const char *mountinfo, const char *controller,
		     char *dir, size_t dlen, char *mnt, size_t mlen);

/*
 * Make a group for one step: memory limit mem_bytes (no swap where the
 * kernel accounts it), pids.max pids_max (0: none), and on cgroup v2
 * memory.oom.group, so the OOM killer stops the step as a whole.  Groups
 * that a dead ktraj left are removed first.  Fills *cg; cg->version is 0
 * when none could be made (not root and nothing delegated, no memory
 * controller; nothing is left behind then; cg->why says which).  Returns 0,
 * or KT_ENOTFOUND when none was made.
 */
int kt_cgroup_make(uint64_t mem_bytes, unsigned pids_max, kt_cgroup *cg);

/* kt_cgroup_make with the texts of /proc/self/cgroup and
 * /proc/self/mountinfo given (NULL: they could not be read); for tests. */
int kt_cgroup_make_in(const char *cgroup, const char *mountinfo, uint64_t mem_bytes,
		      unsigned pids_max, kt_cgroup *cg);

/*
 * Move the calling process into cg (every hierarchy of it), for a child
 * between fork and exec: before it runs anything of the step.  Returns 0,
 * or -1 with errno set.
 */
int kt_cgroup_enter(const kt_cgroup *cg);

/* SIGKILL every process in cg: v2 cgroup.kill; v1 freeze, kill what
 * cgroup.procs lists, thaw (without a freezer hierarchy, kill what it
 * lists until it is empty). */
void kt_cgroup_kill(const kt_cgroup *cg);

/* Processes the OOM killer killed in cg for its memory limit (v2
 * memory.events, v1 memory.oom_control "oom_kill"; 0 unknown). */
unsigned kt_cgroup_oom_kills(const kt_cgroup *cg);

/*
 * Remove the groups ktraj-replay-<pid> directly under parent (a directory
 * of a cgroup hierarchy; version 1 or 2) whose pid no longer runs, killing
 * what is left in them.  A group holding a process outside our PID
 * namespace is left alone: its pid names a ktraj of another namespace,
 * whose step may be running (v2's cgroup.procs lists such a process as 0,
 * v1's leaves it out, so the group is busy with nothing listed).
 * kt_cgroup_make calls it; exported for tests.  No return value: a group
 * that cannot be removed stays.
 */
void kt_cgroup_reclaim(const char *parent, int version);

/* Kill what is left in cg, wait (up to 2 s) for it to be empty and remove
 * its directories; cg->version becomes 0.  Safe on version 0. */
void kt_cgroup_remove(kt_cgroup *cg);
#endif
