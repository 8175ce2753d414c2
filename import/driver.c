/*
 * driver.c - the import driver: turns paths (files, folders, archives,
 * stdin) into input roots of kt_files, detects each file's format, runs its
 * importer inside one store transaction per source and assigns sequence
 * numbers, so a re-import appends only events the store does not have.
 *
 * Archives are read with libarchive (https://libarchive.org) straight from
 * the file or from memory, never extracted to disk.  Members with absolute
 * names, ".." components, links or special types are skipped and reported.
 * Expansion is bounded by opts->max_total bytes and by opts->max_ratio times
 * the compressed size (with a 1 MiB floor, so tiny archives of very
 * repetitive text still import); the bound is checked while a member is
 * being read, so a zip bomb stops after at most the bound has been buffered.
 * A stream (stdin, a device, a FIFO) is bounded by max_total too: /dev/zero
 * would otherwise fill memory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "imp_int.h"

#define KT_RATIO_FLOOR (1ull << 20)
/* archive levels: an archive given (or found in a folder) and the archives
 * inside it (an Inspect .eval in a .tar.gz, a .jsonl.gz in a tar); an
 * archive inside those is skipped and reported */
#define KT_MAX_DEPTH 2
#define KT_WALK_DEPTH 64

static char *xstrdup(const char *s)
{
	size_t n = strlen(s ? s : "");
	char *p = malloc(n + 1);

	if (p)
		memcpy(p, s ? s : "", n + 1);
	return p;
}

static char *join(const char *a, const char *sep, const char *b)
{
	size_t na = strlen(a), ns = strlen(sep), nb = strlen(b);
	char *p = malloc(na + ns + nb + 1);

	if (!p)
		return NULL;
	memcpy(p, a, na);
	memcpy(p + na, sep, ns);
	memcpy(p + na + ns, b, nb + 1);
	return p;
}

/* ---- CPU accounting (opts->stats) ------------------------------------------ */

static uint64_t cpu_ns(void)
{
	struct timespec t;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t))
		return 0;
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Bracket a store call: st_stop adds its CPU time to stats->store_ns. */
static uint64_t st_start(const kt_imp *imp)
{
	return imp->opts->stats ? cpu_ns() : 0;
}

static void st_stop(const kt_imp *imp, uint64_t t0)
{
	if (imp->opts->stats)
		imp->opts->stats->store_ns += cpu_ns() - t0;
}

/* The one kt_imp of a kt_import_paths call sits in a struct drv, with what
 * only the driver counts (kt_imp is shared with the importers). */
struct drv {
	kt_imp imp;
	/* sources that could not be read at all (cannot open, cannot read,
	 * input over the size bound): the call then ends KT_ENOTFOUND, as
	 * for a missing path */
	unsigned unreadable;
	/* folder entries skipped without being read (dangling links, FIFOs,
	 * devices, sockets) and empty folders: reported, and the call ends
	 * KT_ENOTFOUND only when no run came of the whole call */
	unsigned fs_skipped;
	/* sources whose commit failed (nothing of them kept): the call
	 * ends with the first one's error */
	int store_rc;
};

static struct drv *drv_of(kt_imp *imp)
{
	return (struct drv *)(void *)((char *)imp - offsetof(struct drv, imp));
}

/* ---- warnings -------------------------------------------------------------- */

/* What a warning of an importer ends with to say what of the source it
 * drops ("file:3: invalid UTF-8: line skipped").  Under --strict nothing
 * of the source is kept (what --strict means), so they are left out: a
 * line said to be skipped would read as if the rest had been kept.  That
 * first problem is the one line --strict prints for the source. */
static const char *const drop_words[] = {
	": line skipped", ": file skipped", ": skipped", "; skipped",
	"; event not imported", "; not imported",
};

static void drop_suffix(char *msg)
{
	size_t n = strlen(msg);

	for (size_t i = 0; i < sizeof(drop_words) / sizeof(*drop_words); i++) {
		size_t k = strlen(drop_words[i]);

		if (n > k && !strcmp(msg + n - k, drop_words[i])) {
			msg[n - k] = 0;
			return;
		}
	}
}

/* drop: a problem of the source (kt_imp_warn), which --strict discards */
static void warn_line(kt_imp *imp, const char *where, uint64_t line,
		      int drop, const char *fmt, va_list ap)
{
	char msg[1024], out[1400];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (drop && imp->opts->strict)
		drop_suffix(msg);
	if (line)
		snprintf(out, sizeof(out), "%s:%llu: %s", where,
			 (unsigned long long)line, msg);
	else
		snprintf(out, sizeof(out), "%s: %s", where, msg);
	if (imp->opts->on_warn)
		imp->opts->on_warn(out, imp->opts->arg);
}

/* a problem that is not about a source (unsafe member, unreadable path) */
static void drv_warn(kt_imp *imp, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void drv_warn(kt_imp *imp, const char *where, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	warn_line(imp, where, 0, 0, fmt, ap);
	va_end(ap);
}

void kt_imp_warn(kt_imp *imp, const kt_file *f, uint64_t line,
		 const char *fmt, ...)
{
	va_list ap;

	/* --strict stops at the first problem: what an importer still
	 * finds in the source it goes on reading is not reported */
	if (imp->opts->strict && imp->failed) {
		imp->problems++;
		return;
	}
	if (!f && imp->cur)
		f = &imp->cur->f;
	va_start(ap, fmt);
	warn_line(imp, f && f->path ? f->path : "?", line, 1, fmt, ap);
	va_end(ap);
	imp->problems++;
	if (imp->opts->strict)
		imp->failed = 1;
}

void kt_imp_note(kt_imp *imp, const kt_file *f, const char *fmt, ...)
{
	va_list ap;

	if (!f && imp->cur)
		f = &imp->cur->f;
	va_start(ap, fmt);
	warn_line(imp, f && f->path ? f->path : "?", 0, 0, fmt, ap);
	va_end(ap);
}

/* ---- roots and files ----------------------------------------------------- */

static void vf_release(struct kt_vfile *v)
{
	if (v->mapped)
		munmap(v->data, v->len);
	else
		free(v->data);
	v->data = NULL;
	v->mapped = 0;
}

static void vf_unload(struct kt_vfile *v)
{
	if (!v->loaded)
		return;
	vf_release(v);
	v->loaded = 0;
}

static void vf_free(struct kt_vfile *v)
{
	if (!v)
		return;
	vf_release(v);
	free(v->rel);
	free(v->fspath);
	free(v->display);
	free(v->member);
	free(v);
}

static struct kt_root *root_new(int kind, const char *display)
{
	struct kt_root *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->kind = kind;
	r->display = xstrdup(display);
	if (!r->display) {
		free(r);
		return NULL;
	}
	return r;
}

static void root_free(struct kt_root *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n; i++)
		vf_free(r->v[i]);
	for (i = 0; i < r->nscanned; i++)
		free(r->scanned[i]);
	free(r->scanned);
	free(r->v);
	free(r->display);
	free(r->dir);
	free(r->abs);
	free(r->in);
	free(r);
}

static struct kt_vfile *root_add(struct kt_root *r, const char *rel)
{
	struct kt_vfile *v;

	if (r->n == r->cap) {
		size_t nc = r->cap ? r->cap * 2 : 16;
		struct kt_vfile **nv = realloc(r->v, nc * sizeof(*nv));

		if (!nv)
			return NULL;
		r->v = nv;
		r->cap = nc;
	}
	v = calloc(1, sizeof(*v));
	if (!v || !(v->rel = xstrdup(rel))) {
		free(v);
		return NULL;
	}
	if (r->kind == KT_ROOT_DIR)
		v->display = !strcmp(r->display, ".") ? xstrdup(rel) :
			join(r->display, r->display[0] &&
			     r->display[strlen(r->display) - 1] == '/' ?
			     "" : "/", rel);
	else if (r->kind == KT_ROOT_ARCHIVE)
		v->display = join(r->display, ":", rel);
	else if (r->kind == KT_ROOT_FILE && r->n > 0 && r->dir)
		v->display = join(r->dir, "/", rel);
	else
		v->display = xstrdup(r->display);
	if (!v->display) {
		vf_free(v);
		return NULL;
	}
	r->v[r->n++] = v;
	return v;
}

static int vf_cmp(const void *a, const void *b)
{
	const struct kt_vfile *x = *(struct kt_vfile *const *)a;
	const struct kt_vfile *y = *(struct kt_vfile *const *)b;

	return strcmp(x->rel, y->rel);
}

static struct kt_vfile *root_find(struct kt_root *r, const char *rel)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->v[i]->rel, rel))
			return r->v[i];
	return NULL;
}

/* Fill v->f from v->data (already loaded). */
static void vf_fill(struct kt_root *r, struct kt_vfile *v)
{
	v->f.path = v->display;
	v->f.rel = v->rel;
	v->f.member = v->member;
	v->f.data = v->data;
	v->f.len = v->len;
	v->f.root = r->display;
	kt_sha256(v->data, v->len, v->f.sha);
	kt_hex(v->f.sha, KT_HASH_LEN, v->f.sha_hex);
	v->loaded = 1;
}

/* Reads fd to its end into *out (malloc'd, NUL after *len bytes; the
 * caller frees it).  max > 0: KT_ELIMIT as soon as more than max bytes
 * come, having held at most max + 2 bytes (stdin, a device or a FIFO may
 * never end: /dev/zero).  KT_ENOMEM, KT_EIO. */
static int read_fd_all(int fd, uint64_t max, unsigned char **out,
		       size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	unsigned char *buf, *nb;
	ssize_t k;

	if (max && cap > max)
		cap = (size_t)max + 1;
	buf = malloc(cap + 1);
	if (!buf)
		return KT_ENOMEM;
	for (;;) {
		if (n == cap) {
			cap = cap > SIZE_MAX / 4 ? SIZE_MAX / 2 : cap * 2;
			if (max && cap > max)
				cap = (size_t)max + 1;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				return KT_ENOMEM;
			}
			buf = nb;
		}
		k = read(fd, buf + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			free(buf);
			return KT_EIO;
		}
		if (k == 0)
			break;
		n += (size_t)k;
		if (max && n > max) {
			free(buf);
			return KT_ELIMIT;
		}
	}
	buf[n] = 0;
	*out = buf;
	*len = n;
	return 0;
}

/* The bound on a stream input (stdin, a device, a FIFO): the archive
 * expansion bound, bytes (--max-size). */
static uint64_t input_max(const kt_imp *imp)
{
	return imp->opts->max_total ? imp->opts->max_total :
		KT_IMPORT_MAX_TOTAL;
}

/* the line for a read_fd_all failure of the input at where */
static void warn_unreadable(kt_imp *imp, const char *where, int rc)
{
	if (rc == KT_ELIMIT)
		drv_warn(imp, where,
			 "input larger than %llu bytes (limit: --max-size): not imported",
			 (unsigned long long)input_max(imp));
	else
		drv_warn(imp, where, "cannot read: %s", kt_strerror(rc));
}

static int vf_load(kt_imp *imp, struct kt_root *r, struct kt_vfile *v)
{
	int fd, rc;
	struct stat st;

	if (v->loaded)
		return 0;
	if (!v->fspath)
		return KT_ENOTFOUND; /* archive member already dropped */
	fd = open(v->fspath, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		drv_warn(imp, v->display, "cannot open: %s", strerror(errno));
		return KT_EIO;
	}
	/* Big files are mapped: reading them costs a copy and a fault per
	 * page, more CPU than parsing them (tests/bench/import_claude.sh).
	 * Only when the size is not a page multiple, so the zero fill of the
	 * last page is the NUL kt_file promises past len.  (A file truncated
	 * by another process while being imported would fault; logs grow,
	 * they are not truncated in place.) */
	if (fstat(fd, &st) != 0)
		st.st_mode = 0;
	if (S_ISREG(st.st_mode) && st.st_size >= (1 << 20) &&
	    st.st_size % sysconf(_SC_PAGESIZE) != 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ,
			       MAP_PRIVATE | MAP_POPULATE, fd, 0);

		if (m != MAP_FAILED) {
			close(fd);
			v->data = m;
			v->len = (size_t)st.st_size;
			v->mapped = 1;
			vf_fill(r, v);
			return 0;
		}
	}
	if (S_ISREG(st.st_mode)) {
		size_t want = (size_t)st.st_size, got = 0;
		ssize_t k;

		v->data = want < SIZE_MAX ? malloc(want + 1) : NULL;
		if (!v->data) {
			close(fd);
			drv_warn(imp, v->display, "cannot read: %s (%llu bytes)",
				 kt_strerror(KT_ENOMEM),
				 (unsigned long long)st.st_size);
			return KT_ENOMEM;
		}
		while (got < want) {
			k = read(fd, v->data + got, want - got);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				break;
			got += (size_t)k;
		}
		v->data[got] = 0;
		v->len = got;
		rc = 0;
	} else {
		rc = read_fd_all(fd, input_max(imp), &v->data, &v->len);
	}
	close(fd);
	if (rc) {
		warn_unreadable(imp, v->display, rc);
		return rc;
	}
	vf_fill(r, v);
	return 0;
}

/* ---- folder walking ---------------------------------------------------- */

/* imp: where an unreadable folder is reported (NULL: not reported) */
static int walk(kt_imp *imp, struct kt_root *r, const char *fsdir,
		const char *rel, const char *name_prefix, int depth,
		int listed_only)
{
	DIR *d;
	struct dirent *de;
	int rc = 0;

	if (depth > KT_WALK_DEPTH)
		return 0;
	d = opendir(fsdir);
	if (!d) {
		/* like an unreadable file: reported, the rest imports */
		if (imp)
			drv_warn(imp, fsdir, "cannot read: %s", strerror(errno));
		return 0;
	}
	while ((de = readdir(d))) {
		char *fp, *rp;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		if (name_prefix && strncmp(de->d_name, name_prefix,
					   strlen(name_prefix)))
			continue;
		fp = join(fsdir, "/", de->d_name);
		rp = *rel ? join(rel, "/", de->d_name) : xstrdup(de->d_name);
		if (!fp || !rp) {
			free(fp);
			free(rp);
			rc = KT_ENOMEM;
			break;
		}
		if (lstat(fp, &st) == 0 && S_ISDIR(st.st_mode)) {
			rc = walk(imp, r, fp, rp, NULL, depth + 1,
				  listed_only);
		} else if (stat(fp, &st) != 0 || !S_ISREG(st.st_mode)) {
			/* never opened: a FIFO could block, a device never
			 * end; said, so that nothing goes missing unnoticed */
			if (imp) {
				struct stat ls;
				int e = stat(fp, &st) == 0 ? 0 : errno;

				if (lstat(fp, &ls) != 0)
					drv_warn(imp, fp, "skipped: %s",
						 strerror(errno));
				else if (S_ISLNK(ls.st_mode) && e == ENOENT)
					drv_warn(imp, fp, "skipped: dangling link");
				else if (e)
					drv_warn(imp, fp, "skipped: %s",
						 strerror(e));
				else if (S_ISDIR(st.st_mode))
					drv_warn(imp, fp, "skipped: link to a folder (not followed)");
				else
					drv_warn(imp, fp,
						 "skipped: not a regular file");
				drv_of(imp)->fs_skipped++;
			}
		} else if (!root_find(r, rp)) {
			struct kt_vfile *v = root_add(r, rp);

			if (!v) {
				rc = KT_ENOMEM;
			} else {
				v->fspath = fp;
				fp = NULL;
				v->size = (uint64_t)st.st_size;
				v->done = listed_only;
			}
		}
		free(fp);
		free(rp);
		if (rc)
			break;
	}
	closedir(d);
	return rc;
}

/* Plain-file roots list their directory lazily, only under `prefix`. */
static int scan_prefix(struct kt_root *r, const char *prefix)
{
	const char *slash = strrchr(prefix, '/');
	char *dirpart, *fsdir, **ns;
	size_t i;
	int rc;

	if (!r->dir || strstr(prefix, "..") || prefix[0] == '/')
		return 0;
	dirpart = slash ? strndup(prefix, (size_t)(slash - prefix)) :
		xstrdup("");
	if (!dirpart)
		return KT_ENOMEM;
	for (i = 0; i < r->nscanned; i++)
		if (!strcmp(r->scanned[i], prefix)) {
			free(dirpart);
			return 0;
		}
	ns = realloc(r->scanned, (r->nscanned + 1) * sizeof(*ns));
	if (!ns) {
		free(dirpart);
		return KT_ENOMEM;
	}
	r->scanned = ns;
	r->scanned[r->nscanned++] = xstrdup(prefix);
	fsdir = *dirpart ? join(r->dir, "/", dirpart) : xstrdup(r->dir);
	rc = fsdir ? walk(NULL, r, fsdir, dirpart,
			   slash ? slash + 1 : prefix, 0, 1)
		   : KT_ENOMEM;
	free(fsdir);
	free(dirpart);
	return rc;
}

/* ---- archives ------------------------------------------------------------ */

static int is_archive(const unsigned char *p, size_t n)
{
	if (n >= 4 && p[0] == 'P' && p[1] == 'K' &&
	    ((p[2] == 3 && p[3] == 4) || (p[2] == 5 && p[3] == 6)))
		return 1;
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return 1;
	if (n >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f &&
	    p[3] == 0xfd)
		return 1;
	if (n >= 6 && !memcmp(p, "\xfd" "7zXZ\0", 6))
		return 1;
	if (n >= 3 && !memcmp(p, "BZh", 3))
		return 1;
	if (n >= 262 && !memcmp(p + 257, "ustar", 5))
		return 1;
	return 0;
}

static int member_unsafe(const char *name)
{
	const char *p = name;

	if (name[0] == '/' || name[0] == '\\')
		return 1;
	if (((name[0] | 0x20) >= 'a' && (name[0] | 0x20) <= 'z') &&
	    name[1] == ':')
		return 1;
	while (*p) {
		size_t k = strcspn(p, "/\\");

		if (k == 2 && p[0] == '.' && p[1] == '.')
			return 1;
		p += k;
		if (*p)
			p++;
	}
	return 0;
}

static const char *strip_dot_slash(const char *s)
{
	while (s[0] == '.' && s[1] == '/')
		s += 2;
	while (*s == '/')
		s++;
	return s;
}

/* A name for the single member of a compressed non-archive ("x.jsonl.gz"). */
static char *raw_name(const char *display)
{
	const char *b = strrchr(display, '/');
	const char *sfx[] = { ".gz", ".zst", ".xz", ".bz2", ".tgz", NULL };
	char *n = xstrdup(b ? b + 1 : display);
	size_t i, ln;

	if (!n)
		return NULL;
	ln = strlen(n);
	for (i = 0; sfx[i]; i++) {
		size_t ls = strlen(sfx[i]);

		if (ln > ls && !strcmp(n + ln - ls, sfx[i])) {
			n[ln - ls] = 0;
			break;
		}
	}
	if (!*n || !strcmp(n, "-")) {
		free(n);
		n = xstrdup("stdin");
	}
	return n;
}

/* Bytes an archive may expand to: max_total, and max_ratio times its
 * compressed size (bytes consumed so far when the size is unknown); inside
 * another archive, no more than what is left of that one's bound
 * (imp->nest_room), so nesting never multiplies the limits. */
static uint64_t bound(kt_imp *imp, struct archive *a, uint64_t csize)
{
	uint64_t maxt = imp->opts->max_total ? imp->opts->max_total :
		KT_IMPORT_MAX_TOTAL;
	uint64_t ratio = imp->opts->max_ratio ? imp->opts->max_ratio :
		KT_IMPORT_MAX_RATIO;
	uint64_t cs = csize ? csize : (uint64_t)archive_filter_bytes(a, -1);
	uint64_t lim = cs * ratio;

	if (cs && lim / ratio != cs)
		lim = UINT64_MAX;
	if (lim < KT_RATIO_FLOOR)
		lim = KT_RATIO_FLOOR;
	if (lim > maxt)
		lim = maxt;
	if (imp->depth > 0 && lim > imp->nest_room)
		lim = imp->nest_room;
	return lim;
}

/* what a limit of lim bytes is, for the message that it was reached */
static const char *bound_why(const kt_imp *imp, uint64_t lim)
{
	return imp->depth > 0 && lim == imp->nest_room ?
		", what is left of its enclosing archive's bound" : "";
}

/*
 * Read every regular member of `a` into r, checking the expansion bound
 * while reading.  csize is the compressed size (0 = unknown: bytes consumed
 * so far are used instead).  *expanded gets the bytes read.
 */
static int archive_collect(kt_imp *imp, struct kt_root *r, struct archive *a,
			   uint64_t csize, uint64_t *expanded)
{
	struct archive_entry *e;
	uint64_t total = 0, maxt = imp->opts->max_total ?
		imp->opts->max_total : KT_IMPORT_MAX_TOTAL;
	uint64_t ratio = imp->opts->max_ratio ? imp->opts->max_ratio :
		KT_IMPORT_MAX_RATIO;
	int rc = 0, hr, any = 0;

	while ((hr = archive_read_next_header(a, &e)) == ARCHIVE_OK ||
	       hr == ARCHIVE_WARN) {
		const char *name = archive_entry_pathname(e);
		const char *rel;
		struct kt_vfile *v;
		unsigned char *buf = NULL, *nb;
		size_t cap = 0, n = 0;
		int ft = archive_entry_filetype(e);
		int is_raw = archive_format(a) == ARCHIVE_FORMAT_RAW;

		any = 1;
		if (!name)
			name = "";
		if (ft == AE_IFDIR)
			continue;
		if (archive_entry_symlink(e) || archive_entry_hardlink(e) ||
		    ft != AE_IFREG) {
			drv_warn(imp, r->display,
				 "member '%s': link or special file, unsafe: skipped",
				 name);
			continue;
		}
		if (!is_raw && (member_unsafe(name) || !*strip_dot_slash(name))) {
			drv_warn(imp, r->display,
				 "member '%s': absolute path or '..' escapes the archive, unsafe: skipped",
				 name);
			continue;
		}
		/* a declared size beyond the bound fails before inflating
		 * anything; a declared size within it sizes the buffer */
		if (archive_entry_size_is_set(e) && archive_entry_size(e) >= 0) {
			uint64_t want = (uint64_t)archive_entry_size(e);
			uint64_t lim = bound(imp, a, csize);

			if (total + want > lim) {
				drv_warn(imp, r->display,
					 "member '%s' declares %llu bytes: expands beyond %llu bytes%s (limits: --max-size %llu, --max-ratio %llu): stopped",
					 name, (unsigned long long)want,
					 (unsigned long long)lim,
					 bound_why(imp, lim),
					 (unsigned long long)maxt,
					 (unsigned long long)ratio);
				rc = KT_ELIMIT;
				break;
			}
			cap = (size_t)want + 65536;
			buf = malloc(cap + 1);
			if (!buf) {
				rc = KT_ENOMEM;
				break;
			}
		}
		for (;;) {
			uint64_t lim;
			ssize_t k;

			if (n + 65536 > cap) {
				size_t nc = cap ? cap + cap / 2 : 65536;
				uint64_t lb = bound(imp, a, csize);
				uint64_t room = lb > total ? lb - total : 0;

				if (nc < n + 65536)
					nc = n + 65536;
				/* never more than the bound allows */
				if ((uint64_t)nc > n + room + 65536)
					nc = (size_t)(n + room + 65536);
				nb = realloc(buf, nc + 1);
				if (!nb) {
					rc = KT_ENOMEM;
					break;
				}
				buf = nb;
				cap = nc;
			}
			k = archive_read_data(a, buf + n, 65536);
			if (k < 0) {
				drv_warn(imp, r->display, "member '%s': %s",
					 name, archive_error_string(a) ?
					 archive_error_string(a) : "read error");
				rc = KT_EPARSE;
				break;
			}
			if (k == 0)
				break;
			n += (size_t)k;
			total += (uint64_t)k;
			lim = bound(imp, a, csize);
			if (total > lim) {
				drv_warn(imp, r->display,
					 "expands beyond %llu bytes%s (limits: --max-size %llu, --max-ratio %llu): stopped",
					 (unsigned long long)lim,
					 bound_why(imp, lim),
					 (unsigned long long)maxt,
					 (unsigned long long)ratio);
				rc = KT_ELIMIT;
				break;
			}
		}
		if (rc) {
			free(buf);
			break;
		}
		if (!buf && !(buf = malloc(1))) {
			rc = KT_ENOMEM;
			break;
		}
		buf[n] = 0;
		if (is_raw) {
			char *rn = raw_name(r->display);

			v = rn ? root_add(r, rn) : NULL;
			free(rn);
		} else {
			rel = strip_dot_slash(name);
			v = root_add(r, rel);
		}
		if (!v || !(v->member = xstrdup(v->rel))) {
			free(buf);
			rc = KT_ENOMEM;
			break;
		}
		v->data = buf;
		v->len = n;
		v->size = n;
		vf_fill(r, v);
	}
	*expanded = total;
	if (!rc && hr != ARCHIVE_EOF) {
		drv_warn(imp, r->display, "%s archive: %s",
			 any ? "truncated or damaged" : "not a readable",
			 archive_error_string(a) ? archive_error_string(a) :
			 "read error");
		rc = KT_EPARSE;
	}
	return rc;
}

/*
 * Whether a zip's tail holds its End of Central Directory record (APPNOTE
 * 4.3.16: signature 0x06054b50, 22 bytes plus a comment of up to 65535).
 * libarchive reads a zip member by member from the front and stops at the
 * central directory without reading it, so a zip cut inside its central
 * directory (an Inspect .eval whose writer died) read to a clean end.
 * tail/n: the file's last n bytes.
 */
static int zip_has_eocd(const unsigned char *tail, size_t n)
{
	for (size_t i = n >= 22 ? n - 22 + 1 : 0; i-- > 0;)
		if (tail[i] == 'P' && tail[i + 1] == 'K' && tail[i + 2] == 5 &&
		    tail[i + 3] == 6)
			return 1;
	return 0;
}

/* The zip of fspath (or data/len) lacks its end: 1, else 0. */
static int zip_cut(const char *fspath, const unsigned char *data, size_t len)
{
	unsigned char *b;
	size_t want = 22 + 65535, n = 0;
	int fd, cut;

	if (!fspath)
		return !zip_has_eocd(len > want ? data + len - want : data,
				     len > want ? want : len);
	fd = open(fspath, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	b = malloc(want);
	if (b) {
		off_t end = lseek(fd, 0, SEEK_END);
		off_t from = end > (off_t)want ? end - (off_t)want : 0;
		ssize_t got = end > 0 ? pread(fd, b, (size_t)(end - from), from)
				      : 0;

		n = got > 0 ? (size_t)got : 0;
	}
	close(fd);
	cut = b && !zip_has_eocd(b, n);
	free(b);
	return cut;
}

static struct archive *archive_new(void)
{
	struct archive *a = archive_read_new();

	if (!a)
		return NULL;
	archive_read_support_filter_all(a);
	/* Container formats only, not format_all: its mtree reader takes
	 * a text file (a .jsonl.gz) for a manifest, makes each line a member
	 * name and reads the files so named from the disk; its text
	 * "formats" would shadow the raw one that a compressed log needs. */
	archive_read_support_format_tar(a);
	archive_read_support_format_zip(a);
	archive_read_support_format_7zip(a);
	archive_read_support_format_cpio(a);
	archive_read_support_format_ar(a);
	archive_read_support_format_raw(a);
	return a;
}

static int process_root(kt_imp *imp, struct kt_root *r);

/* An archive given as a file (fspath) or held in memory (data); ov: the
 * member of archive root `outer` that it is, when it is one (NULL else). */
static int process_archive(kt_imp *imp, const char *display, const char *fspath,
			   const unsigned char *data, size_t len,
			   const struct kt_root *outer,
			   const struct kt_vfile *ov)
{
	struct kt_root *r = root_new(KT_ROOT_ARCHIVE, display);
	struct archive *a = NULL;
	uint64_t csize = len, total = 0, room;
	int rc;

	if (!r)
		return KT_ENOMEM;
	if (imp->depth >= KT_MAX_DEPTH) {
		drv_warn(imp, display, "archive nested too deep: skipped");
		root_free(r);
		return 0;
	}
	a = archive_new();
	if (!a) {
		root_free(r);
		return KT_ENOMEM;
	}
	if (fspath) {
		struct stat st;
		char *ab = realpath(fspath, NULL);

		r->abs = ab ? ab : xstrdup(fspath);
		csize = stat(fspath, &st) == 0 ? (uint64_t)st.st_size : 0;
		rc = archive_read_open_filename(a, fspath, 1 << 16);
	} else if (outer && outer->kind == KT_ROOT_ARCHIVE && ov &&
		   ov->member) {
		/* sources name the file on disk and the member holding this
		 * archive (show --source reads it from there) */
		r->abs = xstrdup(outer->abs ? outer->abs : outer->display);
		r->in = xstrdup(ov->member);
		rc = archive_read_open_memory(a, data, len);
	} else {
		r->abs = xstrdup(display);
		rc = archive_read_open_memory(a, data, len);
	}
	if (rc != ARCHIVE_OK) {
		drv_warn(imp, display, "cannot open archive: %s",
			 archive_error_string(a) ? archive_error_string(a) : "?");
		archive_read_free(a);
		root_free(r);
		return KT_EPARSE;
	}
	rc = archive_collect(imp, r, a, csize, &total);
	if (rc == 0 && (archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) ==
	    ARCHIVE_FORMAT_ZIP && zip_cut(fspath, data, len)) {
		drv_warn(imp, r->display, "truncated zip archive: its end of "
			 "central directory is missing%s",
			 imp->opts->strict ? "" :
			 ": the members before the cut were read");
		rc = KT_EPARSE;
	}
	if (rc == KT_EPARSE && imp->opts->strict) {
		/* a cut zip, or a tar or member cut short or damaged
		 * (archive_collect said where): under --strict nothing of the
		 * archive is kept */
		imp->problems++;
		imp->failed = 1;
		archive_read_free(a);
		root_free(r);
		return KT_EPARSE;
	}
	room = bound(imp, a, csize);
	archive_read_free(a);
	if (rc == 0 || rc == KT_EPARSE) {
		/* a damaged archive still imports the members read before */
		uint64_t saved_room;
		int rc2;

		/* An outermost archive lends the archives inside it what is
		 * left of its bound; a nested one's members use up that
		 * room, which the next nested one of the same archive gets
		 * (archives inside it are not opened: KT_MAX_DEPTH). */
		if (imp->depth > 0)
			imp->nest_room = imp->nest_room > total ?
					 imp->nest_room - total : 0;
		else
			imp->nest_room = room > total ? room - total : 0;
		saved_room = imp->nest_room;
		imp->depth++;
		rc2 = process_root(imp, r);
		imp->depth--;
		imp->nest_room = saved_room;
		if (rc2)
			rc = rc2;
		else if (rc == KT_EPARSE)
			rc = 0;
	}
	root_free(r);
	return rc;
}

/* ---- runs and events ----------------------------------------------------- */

static const char *intern(kt_imp *imp, const char *s)
{
	size_t i;
	char *c;

	if (!s)
		s = "agent";
	for (i = 0; i < imp->nintern; i++)
		if (!strcmp(imp->intern[i], s))
			return imp->intern[i];
	if (imp->nintern == imp->intern_cap) {
		size_t nc = imp->intern_cap ? imp->intern_cap * 2 : 16;
		char **ni = realloc(imp->intern, nc * sizeof(*ni));

		if (!ni)
			return "agent";
		imp->intern = ni;
		imp->intern_cap = nc;
	}
	c = xstrdup(s);
	if (!c)
		return "agent";
	imp->intern[imp->nintern++] = c;
	return c;
}

const char *kt_imp_actor_of(kt_imp *imp, uint64_t seq)
{
	if (seq && seq < imp->actors_cap && imp->actors[seq])
		return imp->actors[seq];
	return "agent";
}

int kt_imp_next_written(const kt_imp *imp)
{
	return imp->in_run && !imp->failed && !imp->frozen && !imp->tail &&
		imp->seq + 1 > imp->stored_n;
}

static int rep_add(struct kt_runrep **arr, size_t *n, size_t *cap,
		   const struct kt_runrep *r)
{
	size_t i;

	for (i = 0; i < *n; i++) {
		if (!strcmp((*arr)[i].id, r->id)) {
			(*arr)[i].added += r->added;
			if (r->events > (*arr)[i].events)
				(*arr)[i].events = r->events;
			return 0;
		}
	}
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;
		struct kt_runrep *na = realloc(*arr, nc * sizeof(*na));

		if (!na)
			return KT_ENOMEM;
		*arr = na;
		*cap = nc;
	}
	(*arr)[*n] = *r;
	(*arr)[*n].name = xstrdup(r->name ? r->name : "");
	(*arr)[*n].format = xstrdup(r->format ? r->format : "");
	(*n)++;
	return 0;
}

static void reps_free(struct kt_runrep *arr, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(arr[i].name);
		free(arr[i].format);
	}
	free(arr);
}

void kt_imp_check_reemit(kt_imp *imp)
{
	if (imp->in_run && !imp->opts->redact)
		imp->check_reemit = 1;
}

void kt_imp_check_reemit_all(kt_imp *imp)
{
	if (imp->in_run && !imp->opts->redact)
		imp->check_reemit = 2;
}

/* The end of a run checked with kt_imp_check_reemit: say what changed. */
static void reemit_report(kt_imp *imp)
{
	if (imp->changed_seq) {
		uint64_t extra = imp->seq > imp->stored_n ?
				 imp->seq - imp->stored_n : 0;

		char more[96] = "";

		if (extra)
			snprintf(more, sizeof(more),
				 "; %llu new event%s of this source not added",
				 (unsigned long long)extra, extra == 1 ? "" : "s");
		kt_imp_warn(imp, imp->changed_file, 0,
			    "changed since run %.12s was imported (its step %llu differs): the run keeps the %llu events first imported%s",
			    imp->run_id, (unsigned long long)imp->changed_seq,
			    (unsigned long long)imp->stored_n, more);
	} else if (!imp->frozen && !imp->failed && !imp->tail &&
		   imp->seq < imp->stored_n) {
		kt_imp_warn(imp, NULL, 0,
			    "gives %llu events, but run %.12s holds %llu from an earlier import: the source changed since; the run is kept as it was",
			    (unsigned long long)imp->seq, imp->run_id,
			    (unsigned long long)imp->stored_n);
	}
}

int kt_imp_run_end(kt_imp *imp)
{
	struct kt_runrep r;
	int rc;

	if (!imp->in_run)
		return 0;
	if (imp->check_reemit)
		reemit_report(imp);
	/* (a changed source was reported above, and froze the run) */
	if (imp->tail && imp->seq > imp->stored_n && !imp->frozen &&
	    !imp->failed) {
		uint64_t extra = imp->seq - imp->stored_n;

		kt_imp_warn(imp, NULL, 0,
			    "run %s has %llu event%s appended after its import (ktraj append, bench --record or replay): the %llu new event%s of this source %s not added, a run's events are never renumbered",
			    imp->run_id, (unsigned long long)imp->tail,
			    imp->tail == 1 ? "" : "s",
			    (unsigned long long)extra, extra == 1 ? "" : "s",
			    extra == 1 ? "is" : "are");
	}
	imp->check_reemit = 0;
	imp->changed_seq = 0;
	imp->changed_file = NULL;
	imp->in_run = 0;
	if (imp->new_meta) { /* no event came: the run was never created */
		free(imp->new_meta);
		imp->new_meta = NULL;
		rc = 0;
		goto reset;
	}
	memset(&r, 0, sizeof(r));
	memcpy(r.id, imp->run_id, sizeof(r.id));
	r.name = imp->run_name;
	r.format = imp->run_format;
	/* what the store holds now */
	r.events = imp->stored_n + imp->tail + imp->added;
	r.added = imp->added;
	rc = rep_add(&imp->pend, &imp->npend, &imp->pend_cap, &r);
reset:
	imp->tail = 0;
	free(imp->run_name);
	free(imp->run_format);
	imp->run_name = imp->run_format = NULL;
	kt_ws_reset(&imp->ws);
	if (imp->red) {
		kt_redactor_free(imp->red);
		imp->red = NULL;
	}
	return rc;
}

static void add_source(cJSON *arr, struct kt_root *r, struct kt_vfile *v)
{
	cJSON *o = cJSON_CreateObject();
	char *abs = NULL;

	if (!o)
		return;
	if (v->fspath)
		abs = realpath(v->fspath, NULL);
	if (r->kind == KT_ROOT_STDIN || (r->kind == KT_ROOT_ARCHIVE &&
					 (!strcmp(r->display, "-") ||
					  (r->abs && !strcmp(r->abs, "-")))))
		cJSON_AddStringToObject(o, "path", "-");
	else
		cJSON_AddStringToObject(o, "path", abs ? abs :
					r->kind == KT_ROOT_ARCHIVE && r->abs ?
					r->abs : v->display);
	cJSON_AddStringToObject(o, "file", v->display);
	if (r->in) /* the member of path that holds this archive */
		cJSON_AddStringToObject(o, "in", r->in);
	if (v->member)
		cJSON_AddStringToObject(o, "member", v->member);
	if (v->loaded)
		cJSON_AddStringToObject(o, "sha", v->f.sha_hex);
	cJSON_AddItemToArray(arr, o);
	free(abs);
}

static long long prov_num(const cJSON *p, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(p, k);

	return cJSON_IsNumber(v) ? (long long)v->valuedouble : -1;
}

/* Whether a stored event was written by an import: every importer but
 * the ktraj one gives its events a provenance with the source's hash, and
 * none writes replay events onto a run it re-emits (ktraj append, bench
 * --record and replay store no provenance; an imported replay bundle
 * result's replay event has one). */
static int by_import(const kt_event *ev, const cJSON *prov)
{
	return ev->kind != KT_KIND_REPLAY &&
	       cJSON_IsString(cJSON_GetObjectItemCaseSensitive(prov, "src"));
}

/* What the last imported event of the run came from (kind, line, offset),
 * and how many events were stored after it (imp->tail; stored_n then
 * counts the imported ones).  A ktraj JSONL source carries its events'
 * provenance itself, appended events included: all its events count. */
static void remember_last(kt_imp *imp)
{
	kt_event ev;
	cJSON *p = NULL;
	int scan = imp->im && strcmp(imp->im->name, "ktraj") != 0;

	imp->last_kind = 0;
	imp->last_line = imp->last_off = -1;
	imp->tail = 0;
	while (imp->stored_n) {
		uint64_t t0 = st_start(imp);
		int rc = kt_event_get(imp->s, imp->run_id, imp->stored_n, &ev);

		st_stop(imp, t0);
		if (rc)
			return;
		p = ev.prov_json ? cJSON_Parse(ev.prov_json) : NULL;
		if (!scan || by_import(&ev, p))
			break;
		cJSON_Delete(p);
		p = NULL;
		imp->tail++;
		imp->stored_n--;
	}
	if (!imp->stored_n)
		return;
	imp->last_kind = ev.kind;
	imp->last_line = prov_num(p, "line");
	imp->last_off = prov_num(p, "off");
	cJSON_Delete(p);
}

/* id NULL: the id of identity; else the run id itself (identity NULL). */
static int run_begin(kt_imp *imp, const char *id, const char *identity,
		     const char *name, const char *format, cJSON *meta)
{
	kt_run_info info;
	int rc;
	char *mj = NULL;
	cJSON *srcs;
	size_t i;
	uint64_t t0;

	if (imp->in_run)
		kt_imp_run_end(imp);
	if (id ? strlen(id) != KT_RUN_ID_HEX ||
		 strspn(id, "0123456789abcdef") != KT_RUN_ID_HEX :
		 !identity || !*identity) {
		cJSON_Delete(meta);
		return KT_EINVAL;
	}
	if (id)
		memcpy(imp->run_id, id, KT_RUN_ID_HEX + 1);
	else
		kt_run_id_from_identity(identity, imp->run_id);
	imp->in_run = 1;
	imp->seq = 0;
	imp->added = 0;
	imp->stored_n = 0;
	imp->tail = 0;
	imp->last_ts = KT_TS_UNKNOWN;
	/* one line of valid UTF-8: ls --json, tables and reports print it */
	imp->run_name = kt_imp_name_clean(name ? name : id ? id : identity);
	imp->run_format = xstrdup(format ? format : "");
	if (imp->opts->redact && !imp->red) {
		imp->red = kt_redactor_new();
		/* names seen anywhere in the source are replaced from their
		 * first mention on */
		if (imp->red && imp->cur)
			kt_redactor_learn(imp->red,
					  (const char *)imp->cur->f.data,
					  imp->cur->f.len);
	}
	if (imp->red && imp->run_name) {
		/* the name is often the first prompt: it is published too */
		size_t rl;
		char *rn = kt_redact_text(imp->red, imp->run_name,
					  strlen(imp->run_name), &rl);

		if (rn) {
			free(imp->run_name);
			imp->run_name = rn;
		}
	}
	/* cut after redaction: a cut secret would not be recognized */
	if (imp->run_name)
		kt_imp_name_cut(imp->run_name, KT_IMP_NAME_MAX);
	t0 = st_start(imp);
	rc = kt_run_get(imp->s, imp->run_id, &info);
	st_stop(imp, t0);
	imp->frozen = 0;
	imp->plain_stored = 0;
	if (rc == 0) {
		imp->stored_n = info.n_events;
		remember_last(imp);
		/* the run stays as first stored: say so when that copy was
		 * not redacted, or it would be published as it is */
		imp->plain_stored = imp->opts->redact &&
		    !(info.meta_json && strstr(info.meta_json,
					       "\"redacted\":true"));
		/* the meta the importer gives first went through the
		 * redactor before the events when the run was stored: so it
		 * does now, for the placeholders' numbers (kt_imp_emit) */
		if (imp->red && !imp->plain_stored && meta)
			kt_redact_json(imp->red, meta);
		if (imp->plain_stored)
			kt_imp_warn(imp, NULL, 0,
				    "run %.12s was imported before without --redact and stays as stored, not redacted (import into a new store for a redacted copy)",
				    imp->run_id);
		if (info.name) {
			free(imp->run_name);
			imp->run_name = xstrdup(info.name);
		}
		cJSON_Delete(meta);
		return 0;
	}
	if (rc != KT_ENOTFOUND) {
		cJSON_Delete(meta);
		if (!imp->err)
			imp->err = rc;
		return rc;
	}
	if (imp->failed) {
		cJSON_Delete(meta);
		return 0;
	}
	if (!meta || !cJSON_IsObject(meta)) {
		cJSON_Delete(meta);
		meta = cJSON_CreateObject();
	}
	if (!meta)
		return KT_ENOMEM;
	if (identity && !cJSON_GetObjectItemCaseSensitive(meta, "identity"))
		cJSON_AddStringToObject(meta, "identity", identity);
	if (!cJSON_GetObjectItemCaseSensitive(meta, "sources") &&
	    (srcs = cJSON_AddArrayToObject(meta, "sources"))) {
		add_source(srcs, imp->root, imp->cur);
		for (i = 0; i < imp->root->n; i++) {
			struct kt_vfile *v = imp->root->v[i];

			if (v != imp->cur && v->claimed && v->loaded)
				add_source(srcs, imp->root, v);
		}
	}
	if (!cJSON_GetObjectItemCaseSensitive(meta, "source"))
		cJSON_AddStringToObject(meta, "source", imp->cur->display);
	if (imp->red) {
		kt_redact_json(imp->red, meta);
		if (!cJSON_GetObjectItemCaseSensitive(meta, "redacted"))
			cJSON_AddTrueToObject(meta, "redacted");
	}
	mj = cJSON_PrintUnformatted(meta);
	cJSON_Delete(meta);
	if (!mj)
		return KT_ENOMEM;
	/* created by the first event (run_create): the store is append-only,
	 * an empty run could never be removed */
	imp->new_meta = mj;
	return 0;
}

/* Store the run begun by run_begin, if it is not stored yet. */
static int run_create(kt_imp *imp)
{
	uint64_t t0;
	int rc;

	if (!imp->new_meta)
		return 0;
	t0 = st_start(imp);
	rc = kt_run_create(imp->s, imp->run_id, imp->run_name,
			   imp->run_format, imp->new_meta);
	st_stop(imp, t0);
	free(imp->new_meta);
	imp->new_meta = NULL;
	if (rc && !imp->err)
		imp->err = rc;
	return rc;
}

int kt_imp_run_begin(kt_imp *imp, const char *identity, const char *name,
		     const char *format, cJSON *meta)
{
	return run_begin(imp, NULL, identity, name, format, meta);
}

int kt_imp_run_begin_id(kt_imp *imp, const char *id, const char *name,
			const char *format, cJSON *meta)
{
	return run_begin(imp, id, NULL, name, format, meta);
}

const char *kt_imp_run_id(const kt_imp *imp)
{
	return imp->in_run ? imp->run_id : NULL;
}

/* JSON string body escaping into buf; returns bytes written (buf is big).
 * cJSON_PrintUnformatted's escapes (cJSON.c print_string_ptr; jsonprint.c),
 * so prov_json is canonical as printed (KT_EV_PROV_CANONICAL). */
static size_t json_esc(char *out, const char *s)
{
	static const char hx[] = "0123456789abcdef";
	static const char short_esc[0x20] = {
		['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r',
		['\t'] = 't',
	};
	size_t n = 0;
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++) {
		if (*p == '"' || *p == '\\') {
			out[n++] = '\\';
			out[n++] = (char)*p;
		} else if (*p < 0x20 && short_esc[*p]) {
			out[n++] = '\\';
			out[n++] = short_esc[*p];
		} else if (*p < 0x20) {
			out[n++] = '\\';
			out[n++] = 'u';
			out[n++] = '0';
			out[n++] = '0';
			out[n++] = hx[*p >> 4];
			out[n++] = hx[*p & 15];
		} else {
			out[n++] = (char)*p;
		}
	}
	out[n] = 0;
	return n;
}

static void provc_free(kt_imp *imp)
{
	free(imp->provc.path);
	free(imp->provc.member);
	free(imp->provc.pre);
	free(imp->provc.suf);
	memset(&imp->provc, 0, sizeof(imp->provc));
}

/* imp->provc for f: what every event of f has before "line" and after
 * "len", escaped.  KT_ENOMEM. */
static int provc_for(kt_imp *imp, const kt_file *f)
{
	size_t lp = strlen(f->path), lm = f->member ? strlen(f->member) : 0;

	if (imp->provc.pre && !strcmp(imp->provc.sha, f->sha_hex) &&
	    !strcmp(imp->provc.path, f->path) &&
	    (imp->provc.member && f->member ?
	     !strcmp(imp->provc.member, f->member) :
	     imp->provc.member == f->member))
		return 0;
	provc_free(imp);
	snprintf(imp->provc.sha, sizeof(imp->provc.sha), "%s", f->sha_hex);
	imp->provc.path = strdup(f->path);
	imp->provc.member = f->member ? strdup(f->member) : NULL;
	imp->provc.pre = malloc(6 * lp + 96);
	imp->provc.suf = malloc(6 * lm + 16);
	if (!imp->provc.path || (f->member && !imp->provc.member) ||
	    !imp->provc.pre || !imp->provc.suf) {
		provc_free(imp);
		return KT_ENOMEM;
	}
	imp->provc.lpre = (size_t)sprintf(imp->provc.pre,
					  "{\"src\":\"%s\",\"file\":\"",
					  f->sha_hex);
	imp->provc.lpre += json_esc(imp->provc.pre + imp->provc.lpre,
				    f->path);
	imp->provc.pre[imp->provc.lpre++] = '"';
	imp->provc.lsuf = 0;
	if (f->member) {
		imp->provc.lsuf = (size_t)sprintf(imp->provc.suf,
						  ",\"member\":\"");
		imp->provc.lsuf += json_esc(imp->provc.suf + imp->provc.lsuf,
					    f->member);
		imp->provc.suf[imp->provc.lsuf++] = '"';
	}
	imp->provc.suf[imp->provc.lsuf++] = '}';
	imp->provc.suf[imp->provc.lsuf] = 0;
	return 0;
}

/* ",\"KEY\":" and v in decimal at p; the end */
static char *put_num(char *p, const char *key, size_t lk, uint64_t v)
{
	char d[20];
	size_t n = 0;

	memcpy(p, key, lk);
	p += lk;
	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n)
		*p++ = d[--n];
	return p;
}

/* The provenance of ev of f, as cJSON prints it (KT_EV_PROV_CANONICAL):
 * {"src","file","line","off","len"[,"member"]}, malloc'd; NULL for no
 * memory.  What is the same for every event of f is printed once per file
 * (provc_for): two sprintf and the path's escape per event were ~1.4 % of
 * a Claude Code import's instructions. */
static char *prov_json(kt_imp *imp, const kt_file *f, const kt_ev *ev)
{
	static const char kl[] = ",\"line\":", ko[] = ",\"off\":",
			  kn[] = ",\"len\":";
	char *buf, *p;

	if (provc_for(imp, f))
		return NULL;
	buf = malloc(imp->provc.lpre + imp->provc.lsuf + 3 * 20 + 32);
	if (!buf)
		return NULL;
	memcpy(buf, imp->provc.pre, imp->provc.lpre);
	p = buf + imp->provc.lpre;
	p = put_num(p, kl, sizeof(kl) - 1, ev->line);
	p = put_num(p, ko, sizeof(ko) - 1, ev->off);
	p = put_num(p, kn, sizeof(kn) - 1, ev->rec_len);
	memcpy(p, imp->provc.suf, imp->provc.lsuf + 1);
	return buf;
}

/* Whether ev, re-emitted as event imp->seq, differs from the stored one
 * in kind or payload, and with `all` in parent, ts and actor too: 1 it
 * does, 0 it does not, -1 unknown (the stored event cannot be read, or
 * the payload printed). */
static int reemit_cmp(kt_imp *imp, const kt_ev *ev, int all)
{
	kt_event st;
	uint64_t t0 = st_start(imp);
	int rc = kt_event_read(imp->s, imp->run_id, imp->seq, KT_READ_BODY,
			       &st);

	st_stop(imp, t0);
	if (rc)
		return -1;
	if (st.kind != ev->kind)
		return 1;
	if (all &&
	    (st.parent != ev->parent || st.ts_ns != ev->ts_ns ||
	     strcmp(st.actor ? st.actor : "", ev->actor ? ev->actor : "")))
		return 1;
	if (!ev->payload || kt_imp_json_print(ev->payload, &imp->pbuf))
		return -1;
	return st.payload_len != imp->pbuf.n ||
	       memcmp(st.payload, imp->pbuf.p, imp->pbuf.n) != 0;
}

/* For kt_imp_check_reemit: a payload cJSON cannot print counts as the
 * same. */
static int reemit_differs(kt_imp *imp, const kt_ev *ev)
{
	return reemit_cmp(imp, ev, imp->check_reemit == 2) == 1;
}

/* Whether ev, re-emitted as the last stored event of the run but from
 * another line or offset than that event's provenance, is that event all
 * the same (kind, parent, ts, actor, payload): the source holds the same
 * events, on other lines (a byte-identical line repeated, which the
 * importer skips, or such a line gone).  Then this source continues the
 * run: the stored events keep their provenance (the copy they were
 * imported from), the new ones get theirs in this copy.  Under --redact
 * ev's payload is redacted already, as the stored one was (kt_imp_emit). */
static int moved_same(kt_imp *imp, const kt_ev *ev)
{
	return ev->kind == imp->last_kind && reemit_cmp(imp, ev, 1) == 0;
}

int kt_imp_emit(kt_imp *imp, kt_ev *ev, uint64_t *seq)
{
	kt_event e;
	const kt_file *f;
	const char *pj = NULL;
	char *prov = NULL;
	int rc = 0;
	uint64_t t0;

	if (!imp->in_run) {
		cJSON_Delete(ev->payload);
		ev->payload = NULL;
		return KT_EINVAL;
	}
	imp->seq++;
	if (seq)
		*seq = imp->seq;
	if (imp->seq >= imp->actors_cap) {
		size_t nc = imp->actors_cap ? imp->actors_cap * 2 : 1024;
		const char **na;

		while (nc <= imp->seq)
			nc *= 2;
		na = realloc(imp->actors, nc * sizeof(*na));
		if (na) {
			memset(na + imp->actors_cap, 0,
			       (nc - imp->actors_cap) * sizeof(*na));
			imp->actors = na;
			imp->actors_cap = nc;
		}
	}
	if (imp->seq < imp->actors_cap)
		imp->actors[imp->seq] = intern(imp, ev->actor);
	if (ev->ts_ns != KT_TS_UNKNOWN)
		imp->last_ts = ev->ts_ns;
	if (ev->kind != KT_KIND_EDIT) {
		imp->ev_file = ev->file;
		imp->ev_line = ev->line;
		imp->ev_off = ev->off;
		imp->ev_len = ev->rec_len;
	}
	/* --redact: every payload, those of the events stored already too,
	 * goes through the redactor in the source's order before anything
	 * compares it with a stored one.  Placeholders are numbered as they
	 * are met ("<email-1>", ...), so a re-import numbers them as the
	 * import that stored the run did, and an event re-emitted at the
	 * stored end reads as stored (moved_same).  A run stored without
	 * --redact (run_begin warns) is compared as it is. */
	if (imp->red && !imp->plain_stored && ev->payload &&
	    cJSON_IsObject(ev->payload))
		kt_redact_json(imp->red, ev->payload);
	/* A source that re-emits a run must re-emit its stored events in
	 * the same order (a grown log does); when the event at the stored
	 * end does not match, this is another source with the same
	 * identity, and appending would splice two histories. */
	if (imp->seq == imp->stored_n && imp->last_kind &&
	    (ev->kind != imp->last_kind ||
	     (imp->last_line >= 0 && (long long)ev->line != imp->last_line) ||
	     (imp->last_off >= 0 && (long long)ev->off != imp->last_off)) &&
	    !moved_same(imp, ev)) {
		imp->frozen = 1;
		kt_imp_warn(imp, ev->file, ev->line,
			    "run %s already holds %llu events that this source does not continue (same identity, other content): nothing appended",
			    imp->run_id, (unsigned long long)imp->stored_n);
	}
	if (imp->check_reemit && imp->seq <= imp->stored_n && !imp->frozen &&
	    !imp->failed && !imp->err && reemit_differs(imp, ev)) {
		imp->frozen = 1;
		imp->changed_seq = imp->seq;
		imp->changed_file = ev->file ? ev->file : &imp->cur->f;
	}
	if (imp->seq <= imp->stored_n || imp->failed || imp->err ||
	    imp->frozen || imp->tail)
		goto out;
	if (!ev->payload || !cJSON_IsObject(ev->payload)) {
		rc = KT_EINVAL;
		goto out;
	}
	if (imp->red && imp->plain_stored)
		kt_redact_json(imp->red, ev->payload);
	/* cJSON_PrintUnformatted's bytes, in a buffer reused for every event */
	if (kt_imp_json_print(ev->payload, &imp->pbuf) == 0)
		pj = imp->pbuf.p;
	f = ev->file ? ev->file : &imp->cur->f;
	if (ev->prov_json) /* "" = none */
		prov = *ev->prov_json ? xstrdup(ev->prov_json) : NULL;
	else
		prov = prov_json(imp, f, ev);
	if (!pj || (!prov && !(ev->prov_json && !*ev->prov_json))) {
		rc = KT_ENOMEM;
		goto out;
	}
	memset(&e, 0, sizeof(e));
	e.seq = imp->seq;
	e.parent = ev->parent;
	e.ts_ns = ev->ts_ns;
	e.kind = ev->kind;
	e.actor = ev->actor ? ev->actor : "agent";
	e.prov_json = prov;
	e.payload = pj;
	e.payload_len = imp->pbuf.n;
	e.flags = KT_EV_CANONICAL; /* pj is cJSON's print: skip a reparse */
	if (!ev->prov_json) /* printed by prov_json(), cJSON's way too */
		e.flags |= KT_EV_PROV_CANONICAL;
	if ((rc = run_create(imp)))
		goto out;
	t0 = st_start(imp);
	rc = kt_event_append(imp->s, imp->run_id, &e);
	st_stop(imp, t0);
	if (rc == 0) {
		imp->added++;
		if (imp->opts->stats)
			imp->opts->stats->events++;
	} else if (!imp->err)
		imp->err = rc;
out:
	cJSON_Delete(ev->payload);
	ev->payload = NULL;
	free(prov);
	return rc;
}

/* known: the SHA-256 of data when the importer has it, else NULL */
static int imp_blob(kt_imp *imp, const void *data, size_t len,
		    const char *path_hint, const unsigned char *known,
		    char hex[KT_HASH_HEX + 1])
{
	unsigned char h[KT_HASH_LEN];
	char *rd = NULL, *rp = NULL;
	uint64_t t0;
	int rc;

	/* --redact: text blobs are stored redacted, so the hash returned
	 * (and every reference to it) names the redacted content */
	if (imp->opts->redact && kt_imp_is_text(data, len)) {
		size_t rl;

		if (!imp->red && (imp->red = kt_redactor_new()) && imp->cur)
			kt_redactor_learn(imp->red,
					  (const char *)imp->cur->f.data,
					  imp->cur->f.len);
		if (!imp->red || !(rd = kt_redact_text(imp->red, data, len, &rl)) ||
		    (path_hint && !(rp = kt_redact_text(imp->red, path_hint,
							strlen(path_hint), NULL)))) {
			free(rd);
			kt_sha256(data, len, h);
			kt_hex(h, KT_HASH_LEN, hex);
			if (!imp->err)
				imp->err = KT_ENOMEM;
			return KT_ENOMEM;
		}
		data = rd;
		len = rl;
		if (rp)
			path_hint = rp;
		known = NULL;
	}
	if (imp->failed || imp->err) {
		if (known)
			memcpy(h, known, KT_HASH_LEN);
		else
			kt_sha256(data, len, h);
		kt_hex(h, KT_HASH_LEN, hex);
		free(rd);
		free(rp);
		return 0;
	}
	t0 = st_start(imp);
	if (known) {
		memcpy(h, known, KT_HASH_LEN);
		rc = kt_blob_put_hashed(imp->s, data, len, path_hint, h);
	} else {
		rc = kt_blob_put(imp->s, data, len, path_hint, h);
	}
	st_stop(imp, t0);
	if (imp->opts->stats)
		imp->opts->stats->blobs++;
	if (rc) {
		if (!imp->err)
			imp->err = rc;
		if (!known)
			kt_sha256(data, len, h);
	}
	kt_hex(h, KT_HASH_LEN, hex);
	free(rd);
	free(rp);
	return rc;
}

int kt_imp_blob(kt_imp *imp, const void *data, size_t len,
		const char *path_hint, char hex[KT_HASH_HEX + 1])
{
	return imp_blob(imp, data, len, path_hint, NULL, hex);
}

int kt_imp_blob_hashed(kt_imp *imp, const void *data, size_t len,
		       const char *path_hint,
		       const unsigned char sha[KT_HASH_LEN],
		       char hex[KT_HASH_HEX + 1])
{
	return imp_blob(imp, data, len, path_hint, sha, hex);
}

/* ---- siblings ------------------------------------------------------------ */

int kt_imp_list(kt_imp *imp, const char *prefix,
		int (*fn)(const char *rel, void *), void *arg)
{
	struct kt_root *r = imp->root;
	size_t i, n, lp = strlen(prefix);
	char **names;
	int rc = 0;

	if (!r)
		return KT_EINVAL;
	if (r->kind == KT_ROOT_FILE) {
		rc = scan_prefix(r, prefix);
		if (rc)
			return rc;
	}
	/* snapshot the names: fn may open files (which may add vfiles) */
	names = calloc(r->n + 1, sizeof(*names));
	if (!names)
		return KT_ENOMEM;
	for (i = n = 0; i < r->n; i++)
		if (!strncmp(r->v[i]->rel, prefix, lp))
			names[n++] = r->v[i]->rel;
	for (i = 1; i < n; i++) { /* insertion sort: lists are short */
		char *t = names[i];
		size_t j = i;

		while (j > 0 && strcmp(names[j - 1], t) > 0) {
			names[j] = names[j - 1];
			j--;
		}
		names[j] = t;
	}
	for (i = 0; i < n && !rc; i++)
		rc = fn(names[i], arg);
	free(names);
	return rc;
}

int kt_imp_open(kt_imp *imp, const char *rel, const kt_file **out)
{
	struct kt_root *r = imp->root;
	struct kt_vfile *v;
	int rc;

	*out = NULL;
	if (!r || !rel)
		return KT_EINVAL;
	v = root_find(r, rel);
	if (!v && r->kind == KT_ROOT_FILE && r->dir && !member_unsafe(rel)) {
		char *fp = join(r->dir, "/", rel);
		struct stat st;

		if (!fp)
			return KT_ENOMEM;
		if (stat(fp, &st) == 0 && S_ISREG(st.st_mode) &&
		    (v = root_add(r, rel))) {
			v->fspath = fp;
			v->done = 1;
			fp = NULL;
		}
		free(fp);
	}
	if (!v)
		return KT_ENOTFOUND;
	rc = vf_load(imp, r, v);
	if (rc)
		return rc;
	*out = &v->f;
	return 0;
}

void kt_imp_claim(kt_imp *imp, const char *rel)
{
	struct kt_vfile *v = imp->root ? root_find(imp->root, rel) : NULL;

	if (v)
		v->claimed = 1;
}

static void progress(kt_imp *imp, uint64_t done)
{
	if (imp->opts->progress && imp->opts->on_progress)
		imp->opts->on_progress(done, imp->bytes_total, imp->opts->arg);
}

void kt_imp_progress(kt_imp *imp, uint64_t done)
{
	progress(imp, imp->bytes_done + done);
}

/* ---- sources ------------------------------------------------------------- */

static const kt_importer *pick(kt_imp *imp, const kt_file *f)
{
	const kt_importer *best = NULL;
	int bs = 0, i, sc;
	kt_file g = *f;

	if (imp->opts->format)
		return kt_importer_find(imp->opts->format);
	/* a byte order mark opening the file may be ignored (RFC 8259
	 * section 8.1; import/README.md "Strict JSON"): detectors look at
	 * the text after it, importers get the file as it is */
	if (g.len >= 3 && !memcmp(g.data, "\xef\xbb\xbf", 3)) {
		g.data += 3;
		g.len -= 3;
	}
	for (i = 0; kt_importers[i]; i++) {
		if (!kt_importers[i]->detect)
			continue;
		sc = kt_importers[i]->detect(&g);
		if (sc > bs) {
			bs = sc;
			best = kt_importers[i];
		}
	}
	return best;
}

static int process_source(kt_imp *imp, struct kt_root *r, struct kt_vfile *v)
{
	const kt_importer *im = pick(imp, &v->f);
	size_t i;
	uint64_t t0;
	int rc;

	v->done = 1;
	if (!im) {
		if (r->direct || imp->opts->format) {
			drv_warn(imp, v->display,
				 kt_map_looks_like_rounds((const char *)v->f.data,
							  v->f.len) ?
				 "format not recognized: looks like per-round "
				 "JSON: try --map MAP.json (README \"Custom "
				 "round logs\"); skipped" :
				 "format not recognized: skipped (see --format)");
			if (imp->opts->strict)
				return KT_EPARSE;
		} else {
			v->unknown = 1;
		}
		return 0;
	}
	imp->cur = v;
	imp->im = im;
	imp->problems = 0;
	imp->failed = 0;
	imp->err = 0;
	imp->npend = 0;
	if (imp->opts->stats)
		imp->opts->stats->bytes += v->len;
	t0 = st_start(imp);
	rc = kt_store_begin(imp->s);
	st_stop(imp, t0);
	if (rc)
		return rc;
	rc = im->import(imp, &v->f);
	if (imp->in_run)
		kt_imp_run_end(imp);
	t0 = st_start(imp);
	if (imp->err) {
		kt_store_abort(imp->s);
		st_stop(imp, t0);
		drv_warn(imp, v->display, "not imported: %s: %s",
			 kt_strerror(imp->err), kt_store_errmsg(imp->s));
		rc = imp->err;
		goto out;
	}
	if (imp->opts->strict && imp->problems) {
		/* the first problem, reported, is all --strict says: nothing
		 * of the file is kept is what --strict means */
		kt_store_abort(imp->s);
		st_stop(imp, t0);
		rc = KT_EPARSE;
		goto out;
	}
	if (rc < 0 && imp->opts->strict) {
		kt_store_abort(imp->s);
		st_stop(imp, t0);
		goto out;
	}
	/* no run was created or continued, and the importer did not say why */
	if (!imp->npend && !imp->problems)
		drv_warn(imp, v->display, "no events for format %s", im->name);
	rc = kt_store_commit(imp->s);
	st_stop(imp, t0);
	if (rc) {
		drv_warn(imp, v->display, "commit failed: %s: %s (nothing of it kept)",
			 kt_strerror(rc), kt_store_errmsg(imp->s));
		if (!drv_of(imp)->store_rc)
			drv_of(imp)->store_rc = rc;
		goto out;
	}
	for (i = 0; i < imp->npend; i++)
		rep_add(&imp->reps, &imp->nreps, &imp->reps_cap, &imp->pend[i]);
out:
	for (i = 0; i < imp->npend; i++) {
		free(imp->pend[i].name);
		free(imp->pend[i].format);
	}
	imp->npend = 0;
	imp->cur = NULL;
	imp->im = NULL;
	imp->bytes_done += v->len;
	progress(imp, imp->bytes_done);
	return rc;
}

static int peek_archive(const char *fspath)
{
	unsigned char b[512];
	int fd = open(fspath, O_RDONLY | O_CLOEXEC);
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return 0;
	/* a FIFO or a device is read once, whole (vf_load): a peek would
	 * eat its first bytes */
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	n = read(fd, b, sizeof(b));
	close(fd);
	return n > 0 && is_archive(b, (size_t)n);
}

/* kt_import_opts.stop: start no further source */
#define STOPPED(imp) ((imp)->opts->stop && *(imp)->opts->stop)

static int process_root(kt_imp *imp, struct kt_root *r)
{
	struct kt_root *saved = imp->root;
	size_t i, j;
	int rc = 0;

	if ((r->kind == KT_ROOT_DIR || r->kind == KT_ROOT_ARCHIVE) && r->n > 1)
		qsort(r->v, r->n, sizeof(*r->v), vf_cmp);
	for (i = 0; i < r->n && !rc && !STOPPED(imp); i++) {
		struct kt_vfile *v = r->v[i];

		if (v->claimed || v->done)
			continue;
		if (v->fspath && !v->loaded && peek_archive(v->fspath)) {
			v->done = 1;
			rc = process_archive(imp, v->display, v->fspath, NULL, 0,
					     NULL, NULL);
			imp->bytes_done += v->size;
			imp->root = saved;
			continue;
		}
		if (!v->loaded && vf_load(imp, r, v)) {
			v->done = 1;
			drv_of(imp)->unreadable++;
			continue;
		}
		/* (a regular file that is an archive was peeked above) */
		if (is_archive(v->data, v->len) && (v->member ||
						    r->kind == KT_ROOT_STDIN ||
						    r->kind == KT_ROOT_FILE)) {
			v->done = 1;
			rc = process_archive(imp, v->display, NULL, v->data,
					     v->len, r, v);
			imp->root = saved;
			vf_unload(v);
			continue;
		}
		imp->root = r;
		rc = process_source(imp, r, v);
		imp->root = saved;
		/* free what is done of files on disk: they can be read
		 * again.  An archive member cannot, so it stays loaded until
		 * its root is done (root_free): a later file may still open
		 * it, whether or not an importer took it already (a
		 * KernelBench results file its baseline_time*.json, which
		 * sorts first and is a run of its own; an ATIF trajectory its
		 * metrics.json).  archive_collect held every member at once
		 * already, so this keeps the peak where it was. */
		for (j = 0; j < r->n; j++) {
			struct kt_vfile *w = r->v[j];

			if (w->loaded && w->fspath)
				vf_unload(w);
		}
		if (rc == KT_EPARSE && !imp->opts->strict)
			rc = 0;
		if (rc && rc != KT_EPARSE && rc != KT_ENOMEM && rc != KT_EIO &&
		    rc != KT_ECORRUPT && !imp->opts->strict)
			rc = 0; /* an importer's fatal problem: warned, go on */
	}
	/* unrecognized files, less those a later file's importer claimed
	 * (an ATIF trajectory claims its metrics.json, which sorts first) */
	for (i = 0; i < r->n && imp->opts->on_skip; i++)
		if (r->v[i]->unknown && !r->v[i]->claimed)
			imp->opts->on_skip(r->v[i]->display, imp->opts->arg);
	return rc;
}

/* ---- entry point --------------------------------------------------------- */

static int build_root(kt_imp *imp, const char *path, struct kt_root **out)
{
	struct stat st;
	struct kt_root *r = NULL;
	struct kt_vfile *v;
	unsigned skipped;
	int rc;

	*out = NULL;
	if (!strcmp(path, "-")) {
		r = root_new(KT_ROOT_STDIN, "-");
		if (!r || !(v = root_add(r, "-"))) {
			root_free(r);
			return KT_ENOMEM;
		}
		rc = read_fd_all(0, input_max(imp), &v->data, &v->len);
		if (rc) {
			warn_unreadable(imp, "-", rc);
			drv_of(imp)->unreadable++;
			root_free(r);
			/* counted: the other paths still import */
			return 0;
		}
		v->size = v->len;
		vf_fill(r, v);
		r->direct = 1;
		*out = r;
		return 0;
	}
	if (stat(path, &st) != 0) {
		drv_warn(imp, path, "%s", strerror(errno));
		return KT_ENOTFOUND;
	}
	if (S_ISDIR(st.st_mode)) {
		r = root_new(KT_ROOT_DIR, path);
		if (!r)
			return KT_ENOMEM;
		r->dir = xstrdup(path);
		r->abs = realpath(path, NULL);
		skipped = drv_of(imp)->fs_skipped;
		rc = walk(imp, r, path, "", NULL, 0, 0);
		if (rc) {
			root_free(r);
			return rc;
		}
		/* (a folder of skipped entries only said so per entry) */
		if (!r->n && skipped == drv_of(imp)->fs_skipped) {
			drv_warn(imp, path, "no files");
			drv_of(imp)->fs_skipped++;
		}
	} else {
		const char *slash = strrchr(path, '/');

		r = root_new(KT_ROOT_FILE, path);
		if (!r)
			return KT_ENOMEM;
		r->dir = slash ? (slash == path ? xstrdup("/") :
				  strndup(path, (size_t)(slash - path)))
			       : xstrdup(".");
		r->abs = realpath(path, NULL);
		r->direct = 1;
		v = root_add(r, slash ? slash + 1 : path);
		if (!v || !(v->fspath = xstrdup(path))) {
			root_free(r);
			return KT_ENOMEM;
		}
		v->size = (uint64_t)st.st_size;
	}
	*out = r;
	return 0;
}

int kt_import_paths(kt_store *s, char *const *paths, int npaths,
		    const kt_import_opts *opts)
{
	struct drv d;
	struct kt_root **roots;
	int i, rc = 0, rc2;
	size_t k;
	uint64_t t_all = opts->stats ? cpu_ns() : 0, t0;

	memset(&d, 0, sizeof(d));
	d.imp.s = s;
	d.imp.opts = opts;
	roots = calloc((size_t)npaths + 1, sizeof(*roots));
	if (!roots)
		return KT_ENOMEM;
	for (i = 0; i < npaths; i++) {
		rc2 = build_root(&d.imp, paths[i], &roots[i]);
		if (rc2 && !rc)
			rc = rc2;
		if (roots[i])
			for (k = 0; k < roots[i]->n; k++)
				d.imp.bytes_total += roots[i]->v[k]->size;
	}
	for (i = 0; i < npaths && !STOPPED(&d.imp); i++) {
		if (!roots[i])
			continue;
		rc2 = process_root(&d.imp, roots[i]);
		if (rc2 && !rc)
			rc = rc2;
		if (rc2 && opts->strict)
			break;
	}
	t0 = st_start(&d.imp);
	rc2 = kt_store_sync(s);
	st_stop(&d.imp, t0);
	if (rc2 && !rc)
		rc = rc2;
	/* a source that could not be read fails the call like a missing
	 * path (the others are imported); skipped folder entries and empty
	 * folders only when nothing at all came of the paths */
	if (!rc && (d.unreadable || (d.fs_skipped && !d.imp.nreps)))
		rc = KT_ENOTFOUND;
	if (!rc && d.store_rc)
		rc = d.store_rc;
	for (k = 0; k < d.imp.nreps; k++)
		if (opts->on_run)
			opts->on_run(d.imp.reps[k].id, d.imp.reps[k].name,
				     d.imp.reps[k].format, d.imp.reps[k].events,
				     d.imp.reps[k].added, opts->arg);
	for (i = 0; i < npaths; i++)
		root_free(roots[i]);
	free(roots);
	reps_free(d.imp.reps, d.imp.nreps);
	free(d.imp.pend);
	free(d.imp.actors);
	for (k = 0; k < d.imp.nintern; k++)
		free(d.imp.intern[k]);
	free(d.imp.intern);
	kt_ws_reset(&d.imp.ws);
	free(d.imp.ws.e);
	if (d.imp.red)
		kt_redactor_free(d.imp.red);
	free(d.imp.run_name);
	free(d.imp.run_format);
	free(d.imp.new_meta);
	free(d.imp.pbuf.p);
	provc_free(&d.imp);
	if (opts->stats)
		opts->stats->total_ns += cpu_ns() - t_all;
	return rc;
}
