/*
 * cgroup.c - a memory and pids control group for one replayed step (see
 * cgroup.h).  Only directories named ktraj-replay-<pid> are ever made or
 * removed here.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cgroup.h"
#include "../store/store.h"

#define PREFIX "ktraj-replay-"

/* ---- where our groups are ------------------------------------------------------- */

/* The next space-separated field of a mountinfo line into out, its \ooo
 * escapes (space, tab, newline, backslash) decoded.  0 at the line's end
 * or when it does not fit. */
static int mi_field(const char **p, char *out, size_t len)
{
	const char *s = *p;
	size_t n = 0;

	while (*s == ' ')
		s++;
	if (!*s || *s == '\n')
		return 0;
	while (*s && *s != ' ' && *s != '\n') {
		char ch = *s++;

		if (ch == '\\' && s[0] >= '0' && s[0] <= '3' && s[1] >= '0' && s[1] <= '7' &&
		    s[2] >= '0' && s[2] <= '7') {
			ch = (char)((s[0] - '0') * 64 + (s[1] - '0') * 8 + (s[2] - '0'));
			s += 3;
		}
		if (n + 1 >= len)
			return 0;
		out[n++] = ch;
	}
	out[n] = 0;
	*p = s;
	return 1;
}

/* Whether the comma-separated list (up to its end or end) names word. */
static int in_list(const char *list, const char *end, const char *word)
{
	size_t w = strlen(word);

	while (list < end) {
		const char *c = memchr(list, ',', (size_t)(end - list));
		size_t n = (size_t)((c ? c : end) - list);

		if (n == w && !memcmp(list, word, w))
			return 1;
		list += n + 1;
	}
	return 0;
}

/* Our group's path in the hierarchy from /proc/self/cgroup's
 * "id:controllers:path" lines: for v2 the line "0::path". */
static int own_path(const char *cgroup, const char *controller, char *path, size_t len)
{
	const char *l = cgroup;

	while (l && *l) {
		const char *nl = strchr(l, '\n'), *end = nl ? nl : l + strlen(l);
		const char *c1 = memchr(l, ':', (size_t)(end - l));
		const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;

		if (c2) {
			int match = *controller ? in_list(c1 + 1, c2, controller) :
				c1 == l + 1 && *l == '0' && c2 == c1 + 1;
			size_t n = (size_t)(end - c2 - 1);

			if (match) {
				if (n + 1 > len || n == 0 || c2[1] != '/')
					return KT_ENOTFOUND;
				memcpy(path, c2 + 1, n);
				path[n] = 0;
				return 0;
			}
		}
		l = nl ? nl + 1 : NULL;
	}
	return KT_ENOTFOUND;
}

int kt_cgroup_locate(const char *cgroup, const char *mountinfo, const char *controller,
		     char *dir, size_t dlen, char *mnt, size_t mlen)
{
	char path[KT_CGROUP_PATH], root[KT_CGROUP_PATH], point[KT_CGROUP_PATH], f[KT_CGROUP_PATH];
	const char *l = mountinfo;

	if (own_path(cgroup, controller, path, sizeof(path)))
		return KT_ENOTFOUND;
	/* the kernel's own paths; refused so that no name leaves the mount */
	if (strstr(path, "/../") || (strlen(path) >= 3 && !strcmp(path + strlen(path) - 3, "/..")))
		return KT_ENOTFOUND;
	while (l && *l) {
		const char *nl = strchr(l, '\n'), *p = l, *sep;
		const char *end = nl ? nl : l + strlen(l);
		int i, ok = 1;

		/* id, parent, major:minor, root, mount point */
		for (i = 0; i < 5 && ok; i++)
			ok = mi_field(&p, i == 3 ? root : i == 4 ? point : f,
				      i == 3 ? sizeof(root) : i == 4 ? sizeof(point) : sizeof(f));
		sep = ok ? strstr(p, " - ") : NULL;
		if (sep && sep < end) {
			char type[32], src[KT_CGROUP_PATH], opts[1024];
			const char *q = sep + 3, *rel = path;
			size_t rl = strlen(root);

			if (mi_field(&q, type, sizeof(type)) && mi_field(&q, src, sizeof(src)) &&
			    mi_field(&q, opts, sizeof(opts)) &&
			    (*controller ? !strcmp(type, "cgroup") &&
					   in_list(opts, opts + strlen(opts), controller) :
					   !strcmp(type, "cgroup2"))) {
				if (strcmp(root, "/")) {
					if (strncmp(path, root, rl) || (path[rl] && path[rl] != '/'))
						goto next;
					rel = path + rl;
				}
				if (!strcmp(rel, "/"))
					rel = "";
				if ((size_t)snprintf(dir, dlen, "%s%s", point, rel) >= dlen ||
				    (mnt && (size_t)snprintf(mnt, mlen, "%s", point) >= mlen))
					return KT_ENOTFOUND;
				return 0;
			}
		}
next:
		l = nl ? nl + 1 : NULL;
	}
	return KT_ENOTFOUND;
}

/* ---- files of a group ----------------------------------------------------------- */

/* dir/name's text (at most cap - 1 bytes), NUL-terminated; -1 on failure. */
static ssize_t read_at(const char *dir, const char *name, char *buf, size_t cap)
{
	char p[KT_CGROUP_PATH + 64];
	ssize_t n, r;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	for (n = 0; (size_t)n + 1 < cap; n += r) {
		r = read(fd, buf + n, cap - 1 - (size_t)n);
		if (r < 0 && errno == EINTR) {
			r = 0;
			continue;
		}
		if (r <= 0)
			break;
	}
	close(fd);
	buf[n] = 0;
	return n;
}

/* Write text to dir/name (a control file takes one write); 0 or -1. */
static int write_at(const char *dir, const char *name, const char *text)
{
	char p[KT_CGROUP_PATH + 64];
	size_t n = strlen(text);
	int fd, rc, e;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if ((fd = open(p, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	rc = write(fd, text, n) == (ssize_t)n ? 0 : -1;
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

static int write_u64(const char *dir, const char *name, uint64_t v)
{
	char t[32];

	snprintf(t, sizeof(t), "%llu", (unsigned long long)v);
	return write_at(dir, name, t);
}

/* SIGKILL what dir/cgroup.procs lists until it lists nothing (up to about
 * a second: a killed process leaves the list when it has exited). */
static void kill_listed(const char *dir)
{
	char buf[65536];
	int round;

	for (round = 0; round < 100; round++) {
		char *p, *e;
		int any = 0;

		if (read_at(dir, "cgroup.procs", buf, sizeof(buf)) <= 0)
			return;
		for (p = buf; *p; p = e) {
			long pid = strtol(p, &e, 10);

			if (e == p)
				break;
			if (pid > 0) {
				kill((pid_t)pid, SIGKILL);
				any = 1;
			}
		}
		if (!any)
			return;
		usleep(10000);
	}
}

/* Remove one group directory: what is in it is killed first (rmdir of a
 * group with a process in it is EBUSY). */
static void remove_dir(const char *dir, int v2)
{
	int i;

	if (v2 && !write_at(dir, "cgroup.kill", "1"))
		usleep(1000);
	/* a group a killed ktraj left frozen: its killed processes die only
	 * once thawed (no such file outside the freezer hierarchy) */
	if (!v2)
		write_at(dir, "freezer.state", "THAWED");
	for (i = 0; i < 200; i++) {
		if (!rmdir(dir) || errno != EBUSY)
			return;
		kill_listed(dir);
		usleep(10000);
	}
}

/* Whether dir holds a process outside our PID namespace (see
 * kt_cgroup_reclaim): a pid of 0 in cgroup.procs (v2), or nothing listed
 * while rmdir finds it busy (v1).  An empty group is removed on the way. */
static int foreign(const char *dir)
{
	char buf[65536], *p, *e;
	int any = 0;

	if (read_at(dir, "cgroup.procs", buf, sizeof(buf)) < 0)
		return 0;
	for (p = buf; *p; p = e) {
		long pid = strtol(p, &e, 10);

		if (e == p)
			break;
		if (pid == 0)
			return 1;
		any = 1;
	}
	return !any && rmdir(dir) && errno == EBUSY;
}

/* Groups that a ktraj now gone made (its pid in the name no longer runs
 * here), or that this process left itself (see cgroup.h). */
void kt_cgroup_reclaim(const char *parent, int version)
{
	int v2 = version == 2;
	DIR *d = opendir(parent);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *end, p[KT_CGROUP_PATH];
		long pid;

		if (strncmp(e->d_name, PREFIX, strlen(PREFIX)))
			continue;
		pid = strtol(e->d_name + strlen(PREFIX), &end, 10);
		if (*end || pid <= 0 ||
		    (pid != (long)getpid() && (kill((pid_t)pid, 0) == 0 || errno != ESRCH)))
			continue;
		/* a pid gone from here may still run in another PID
		 * namespace that shares this hierarchy */
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", parent, e->d_name) < sizeof(p) &&
		    !foreign(p))
			remove_dir(p, v2);
	}
	closedir(d);
}

/* Make parent/ktraj-replay-<pid> into out; 0 or -1. */
static int make_dir(const char *parent, int v2, char *out)
{
	if ((size_t)snprintf(out, KT_CGROUP_PATH, "%s/" PREFIX "%ld", parent, (long)getpid()) >=
	    KT_CGROUP_PATH) {
		*out = 0;
		return -1;
	}
	kt_cgroup_reclaim(parent, v2 ? 2 : 1);
	if (mkdir(out, 0755)) {
		*out = 0;
		return -1;
	}
	return 0;
}

/* The limit as the kernel keeps it ("max": none). */
static uint64_t read_limit(const char *dir, const char *name)
{
	char buf[64];

	if (read_at(dir, name, buf, sizeof(buf)) <= 0 || buf[0] < '0' || buf[0] > '9')
		return 0;
	return strtoull(buf, NULL, 10);
}

/* ---- making one ------------------------------------------------------------------- */

/* cgroup v2: our own group when it hands memory and pids down to groups
 * under it.  Never the hierarchy's root when we live below it: a group
 * made there would leave the limits of ours (a systemd service's, a Slurm
 * job's memory and GPU devices, a container's), so the step would get
 * more than ktraj itself may use; then no group (cgroup: false). */
static int make_v2(const char *cgroup, const char *mountinfo, uint64_t mem, unsigned pids,
		   kt_cgroup *cg)
{
	char own[KT_CGROUP_PATH], top[KT_CGROUP_PATH], ctl[512], given[512], *s;
	const char *e;

	if (kt_cgroup_locate(cgroup, mountinfo, "", own, sizeof(own), top, sizeof(top)))
		return -1;
	if (read_at(own, "cgroup.subtree_control", ctl, sizeof(ctl)) < 0) {
		snprintf(cg->why, sizeof(cg->why), "cgroup v2: cannot read %.200s/cgroup.subtree_control: %s",
			 own, strerror(errno));
		return -1;
	}
	ctl[strcspn(ctl, "\n")] = 0;
	memcpy(given, ctl, sizeof(given));
	e = ctl + strlen(ctl);
	/* space-separated: make it a comma list for in_list */
	for (s = ctl; *s; s++)
		if (*s == ' ')
			*s = ',';
	if (!in_list(ctl, e, "memory") || (pids && !in_list(ctl, e, "pids"))) {
		/* the usual case of a user's session: systemd delegates
		 * nothing below it */
		snprintf(cg->why, sizeof(cg->why), "cgroup v2: ktraj's group %.200s does not enable "
			 "memory and pids for groups under it (its cgroup.subtree_control: \"%.60s\"): "
			 "run as root, or in a delegated group that does", own, given);
		return -1;
	}
	if (make_dir(own, 1, cg->mem)) {
		snprintf(cg->why, sizeof(cg->why), "cgroup v2: cannot create a group under %.200s: %s",
			 own, strerror(errno));
		return -1;
	}
	if (write_u64(cg->mem, "memory.max", mem) ||
	    (pids && write_u64(cg->mem, "pids.max", pids))) {
		snprintf(cg->why, sizeof(cg->why), "cgroup v2: cannot set the limits of %.200s: %s",
			 cg->mem, strerror(errno));
		remove_dir(cg->mem, 1);
		*cg->mem = 0;
		return -1;
	}
	cg->swap = !write_at(cg->mem, "memory.swap.max", "0");
	/* without it the OOM killer takes one process and leaves the
	 * rest of the step running */
	write_at(cg->mem, "memory.oom.group", "1");
	cg->mem_bytes = read_limit(cg->mem, "memory.max");
	cg->pids_max = pids;
	cg->version = 2;
	return 0;
}

/* cgroup v1: a group under ours in the memory hierarchy (required), and in
 * the pids and freezer ones when they are mounted. */
static int make_v1(const char *cgroup, const char *mountinfo, uint64_t mem, unsigned pids,
		   kt_cgroup *cg)
{
	char own[KT_CGROUP_PATH];

	if (kt_cgroup_locate(cgroup, mountinfo, "memory", own, sizeof(own), NULL, 0))
		return -1;
	/* a v1 memory hierarchy is what this machine limits memory with:
	 * its reason replaces v2's */
	if (make_dir(own, 0, cg->mem)) {
		snprintf(cg->why, sizeof(cg->why), "cgroup v1: cannot create a group under %.200s: %s "
			 "(run as root, or with that group delegated to you)", own, strerror(errno));
		return -1;
	}
	if (write_u64(cg->mem, "memory.limit_in_bytes", mem)) {
		snprintf(cg->why, sizeof(cg->why), "cgroup v1: cannot set the memory limit of %.200s: %s",
			 cg->mem, strerror(errno));
		remove_dir(cg->mem, 0);
		*cg->mem = 0;
		return -1;
	}
	/* memory and swap together; only where swap accounting is on */
	cg->swap = !write_u64(cg->mem, "memory.memsw.limit_in_bytes", mem);
	cg->mem_bytes = read_limit(cg->mem, "memory.limit_in_bytes");
	if (pids && !kt_cgroup_locate(cgroup, mountinfo, "pids", own, sizeof(own), NULL, 0) &&
	    !make_dir(own, 0, cg->pids)) {
		if (write_u64(cg->pids, "pids.max", pids)) {
			remove_dir(cg->pids, 0);
			*cg->pids = 0;
		} else {
			cg->pids_max = pids;
		}
	}
	if (!kt_cgroup_locate(cgroup, mountinfo, "freezer", own, sizeof(own), NULL, 0))
		make_dir(own, 0, cg->freezer);
	cg->version = 1;
	return 0;
}

/* A /proc file, NUL-terminated, cut to 4 MiB - 1 bytes as it always was
 * (its table is a few KiB; the bound keeps a strange mount table from
 * growing this); NULL when it cannot be opened or memory runs out. */
#define SLURP_MAX ((size_t)1 << 22)
static char *slurp(const char *path)
{
	struct kt_buf b = {0};
	int rc = kt_buf_read_file(&b, path);

	/* a read error after some bytes keeps them, as before */
	if (rc == KT_ENOMEM || (rc && !b.len)) {
		kt_buf_free(&b);
		return NULL;
	}
	if (b.len >= SLURP_MAX)
		b.s[b.len = SLURP_MAX - 1] = 0;
	return kt_buf_take(&b);
}

int kt_cgroup_make_in(const char *cgroup, const char *mountinfo, uint64_t mem_bytes,
		      unsigned pids_max, kt_cgroup *cg)
{
	char why[sizeof(cg->why)];
	int rc = -1;

	memset(cg, 0, sizeof(*cg));
	snprintf(cg->why, sizeof(cg->why), "%s", !cgroup || !mountinfo ?
		 "cannot read /proc/self/cgroup or /proc/self/mountinfo" : !mem_bytes ?
		 "no memory limit asked for" :
		 "no cgroup v2 hierarchy and no v1 memory hierarchy holds ktraj's group");
	if (cgroup && mountinfo && mem_bytes) {
		rc = make_v2(cgroup, mountinfo, mem_bytes, pids_max, cg);
		if (rc)
			rc = make_v1(cgroup, mountinfo, mem_bytes, pids_max, cg);
	}
	if (rc) {
		memcpy(why, cg->why, sizeof(why));
		memset(cg, 0, sizeof(*cg));
		memcpy(cg->why, why, sizeof(why));
	}
	return rc ? KT_ENOTFOUND : 0;
}

int kt_cgroup_make(uint64_t mem_bytes, unsigned pids_max, kt_cgroup *cg)
{
	char *cgroup = slurp("/proc/self/cgroup"), *mi = slurp("/proc/self/mountinfo");
	int rc = kt_cgroup_make_in(cgroup, mi, mem_bytes, pids_max, cg);

	free(cgroup);
	free(mi);
	return rc;
}

int kt_cgroup_enter(const kt_cgroup *cg)
{
	/* "0": the writer itself (cgroup-v2.rst, cgroup.procs) */
	if (write_at(cg->mem, "cgroup.procs", "0"))
		return -1;
	if (*cg->pids && write_at(cg->pids, "cgroup.procs", "0"))
		return -1;
	if (*cg->freezer && write_at(cg->freezer, "cgroup.procs", "0"))
		return -1;
	return 0;
}

void kt_cgroup_kill(const kt_cgroup *cg)
{
	if (cg->version == 2) {
		if (write_at(cg->mem, "cgroup.kill", "1"))
			kill_listed(cg->mem);
		return;
	}
	if (cg->version != 1)
		return;
	/* frozen, nothing forks between reading the list and the kills; a
	 * frozen process dies of its SIGKILL when thawed */
	if (*cg->freezer && !write_at(cg->freezer, "freezer.state", "FROZEN")) {
		char st[32] = "";
		int i;
		char buf[65536], *p, *e;

		for (i = 0; i < 100; i++) {
			if (read_at(cg->freezer, "freezer.state", st, sizeof(st)) > 0 &&
			    !strncmp(st, "FROZEN", 6))
				break;
			usleep(1000);
		}
		if (read_at(cg->freezer, "cgroup.procs", buf, sizeof(buf)) > 0)
			for (p = buf; *p; p = e) {
				long pid = strtol(p, &e, 10);

				if (e == p)
					break;
				if (pid > 0)
					kill((pid_t)pid, SIGKILL);
			}
		write_at(cg->freezer, "freezer.state", "THAWED");
	}
	kill_listed(cg->mem);
}

unsigned kt_cgroup_oom_kills(const kt_cgroup *cg)
{
	char buf[1024], *p;

	if (!cg->version ||
	    read_at(cg->mem, cg->version == 2 ? "memory.events" : "memory.oom_control",
		    buf, sizeof(buf)) <= 0)
		return 0;
	for (p = buf; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, "oom_kill ", 9))
			return (unsigned)strtoul(p + 9, NULL, 10);
	return 0;
}

void kt_cgroup_remove(kt_cgroup *cg)
{
	if (!cg->version)
		return;
	kt_cgroup_kill(cg);
	remove_dir(cg->mem, cg->version == 2);
	if (*cg->pids)
		remove_dir(cg->pids, 0);
	if (*cg->freezer)
		remove_dir(cg->freezer, 0);
	memset(cg, 0, sizeof(*cg));
}
