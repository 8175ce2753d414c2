/*
 * input.c - input roots: the files, folders, archives and stdin an import
 * is given, turned into kt_files (imp_int.h struct kt_root), and the files
 * beside a source that importers list and open (kt_imp_list, kt_imp_open).
 *
 * Archives are read with libarchive (https://libarchive.org) straight from
 * the file or from memory, never extracted to disk, in the formats of
 * archive_policy.h.  Members with absolute names, ".." components, links
 * or special types are skipped and reported.  Expansion is bounded by
 * opts->max_total bytes and by opts->max_ratio times the compressed size
 * (with a 1 MiB floor, so tiny archives of very repetitive text still
 * import); the bound is checked while a member is being read, so a zip
 * bomb stops after at most the bound has been buffered.  A stream (stdin,
 * a device, a FIFO) is bounded by max_total too: /dev/zero would otherwise
 * fill memory.
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
#include <unistd.h>


#include "../base/archive_dl.h" /* libarchive, loaded when first used */

#include "archive_policy.h"
#include "imp_int.h"

#define KT_RATIO_FLOOR (1ull << 20)
/* archive levels: an archive given (or found in a folder) and the archives
 * inside it (an Inspect .eval in a .tar.gz, a .jsonl.gz in a tar); an
 * archive inside those is skipped and reported */
#define KT_MAX_DEPTH 2
#define KT_WALK_DEPTH 64

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

/* ---- roots and files ----------------------------------------------------- */

static void vf_release(struct kt_vfile *v)
{
	/* the thread reads v->fd: it ends before the file is closed */
	kt_in_hash_wait(v);
	if (v->mapped) {
		munmap(v->data, (v->len / (size_t)sysconf(_SC_PAGESIZE) + 1) *
		       (size_t)sysconf(_SC_PAGESIZE));
		if (v->fd >= 0)
			close(v->fd);
		v->fd = -1;
	} else {
		free(v->data);
	}
	v->data = NULL;
	v->mapped = 0;
}

void kt_in_unload(struct kt_vfile *v)
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
	r->display = kt_imp_strdup(display);
	if (!r->display) {
		free(r);
		return NULL;
	}
	return r;
}

void kt_in_root_free(struct kt_root *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n; i++)
		vf_free(r->v[i]);
	for (i = 0; i < r->nscanned; i++)
		free(r->scanned[i]);
	free(r->scanned);
	free(r->sorted);
	kt_strmap_free(&r->byrel, NULL);
	free(r->loaded);
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
		/* room for every file in `loaded`, so listing a file when it
		 * loads (vf_fill) cannot fail */
		nv = realloc(r->loaded, nc * sizeof(*nv));
		if (!nv)
			return NULL;
		r->loaded = nv;
		r->cap = nc;
	}
	v = calloc(1, sizeof(*v));
	if (!v || !(v->rel = kt_imp_strdup(rel))) {
		free(v);
		return NULL;
	}
	/* files on disk have one name each (walk and kt_imp_open add a
	 * name only when root_find does not know it); archive members may
	 * repeat one and are looked up in v[] order */
	if (r->kind != KT_ROOT_ARCHIVE) {
		void **slot = kt_strmap_slot(&r->byrel, rel, 1);

		if (!slot) {
			vf_free(v);
			return NULL;
		}
		if (!*slot)
			*slot = v;
	}
	if (r->kind == KT_ROOT_DIR)
		v->display = !strcmp(r->display, ".") ? kt_imp_strdup(rel) :
			join(r->display, r->display[0] &&
			     r->display[strlen(r->display) - 1] == '/' ?
			     "" : "/", rel);
	else if (r->kind == KT_ROOT_ARCHIVE)
		v->display = join(r->display, ":", rel);
	else if (r->kind == KT_ROOT_FILE && r->n > 0 && r->dir)
		v->display = join(r->dir, "/", rel);
	else
		v->display = kt_imp_strdup(r->display);
	if (!v->display) {
		vf_free(v);
		return NULL;
	}
	v->idx = r->n;
	r->v[r->n++] = v;
	return v;
}

static int vf_cmp(const void *a, const void *b)
{
	const struct kt_vfile *x = *(struct kt_vfile *const *)a;
	const struct kt_vfile *y = *(struct kt_vfile *const *)b;

	return strcmp(x->rel, y->rel);
}

void kt_in_sort(struct kt_root *r)
{
	size_t i;

	if ((r->kind == KT_ROOT_DIR || r->kind == KT_ROOT_ARCHIVE) && r->n > 1)
		qsort(r->v, r->n, sizeof(*r->v), vf_cmp);
	for (i = 0; i < r->n; i++)
		r->v[i]->idx = i;
}

static struct kt_vfile *root_find(struct kt_root *r, const char *rel)
{
	size_t i;

	if (r->kind != KT_ROOT_ARCHIVE)
		return kt_strmap_get(&r->byrel, rel);
	for (i = 0; i < r->n; i++)
		if (!strcmp(r->v[i]->rel, rel))
			return r->v[i];
	return NULL;
}

/* Fill v->f from v->data (already loaded). */
/* The window of a mapped file kept behind the reader: importers look a
 * little back (a line's start, a record split over lines) and find it
 * resident; further back is read again from the page cache. */
#define KT_IN_BACK (8u << 20)

void kt_in_drop(struct kt_vfile *v, uint64_t upto)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), end;

	if (!v->mapped)
		return;
	if (upto < v->dropped) /* another pass from the start */
		v->dropped = 0;
	if (upto > v->len)
		upto = v->len;
	end = upto > KT_IN_BACK ? (size_t)(upto - KT_IN_BACK) : 0;
	end -= end % pg;
	if (end <= v->dropped + KT_IN_BACK)
		return;
	/* a private, never written file map: the pages are read again from
	 * the file when touched */
	madvise(v->data + v->dropped, end - v->dropped, MADV_DONTNEED);
	v->dropped = end;
}

void kt_in_drop_all(struct kt_vfile *v)
{
	if (!v->mapped)
		return;
	madvise(v->data, v->len, MADV_DONTNEED);
	v->dropped = 0;
}

/* A pass over a mapped file (its hash, a search) reads it with pread in
 * pieces of this size rather than through the map: the first touch of a
 * mapped page costs a fault, and a 300 MB file was faulted in three times
 * (hash, the Claude Code summary search, the import), 0.16-0.22 s a time
 * on the build machine where pread and memmem together took 0.10 s (perf
 * and a test program, 2026-12-03). */
#define KT_IN_PIECE (1u << 20)

/* Reads v->len bytes of v->fd from off into buf (n bytes at most): the
 * count, 0 at the end, -1 on an error or a file now shorter than mapped. */
static ssize_t piece(struct kt_vfile *v, uint64_t off, unsigned char *buf,
		     size_t n)
{
	size_t got = 0;

	if (off >= v->len)
		return 0;
	if (n > v->len - off)
		n = (size_t)(v->len - off);
	while (got < n) {
		ssize_t k = pread(v->fd, buf + got, n - got, (off_t)(off + got));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

/* SHA-256 of a mapped file through pread: 0, or -1 (then hashed through
 * the map). */
static int hash_fd(struct kt_vfile *v, unsigned char sha[KT_HASH_LEN])
{
	unsigned char *buf = v->fd >= 0 ? malloc(KT_IN_PIECE) : NULL;
	kt_sha_ctx c;
	uint64_t off = 0;
	ssize_t k = 0;

	if (!buf)
		return -1;
	kt_sha_start(&c);
	while ((k = piece(v, off, buf, KT_IN_PIECE)) > 0) {
		kt_sha_add(&c, buf, (size_t)k);
		off += (uint64_t)k;
	}
	free(buf);
	if (k != 0 || off != v->len)
		return -1;
	kt_sha_finish(&c, sha);
	return 0;
}

int64_t kt_in_find(struct kt_vfile *v, uint64_t from, const void *needle,
		   size_t nl)
{
	unsigned char *buf;
	const unsigned char *q;
	uint64_t off = from;
	ssize_t k;

	if (!nl || from >= v->len)
		return -1;
	if (!v->mapped || v->fd < 0 || !(buf = malloc(KT_IN_PIECE + nl))) {
		q = kt_memmem(v->data + from, v->len - from, needle, nl);
		return q ? (int64_t)(q - v->data) : -1;
	}
	/* pieces overlap by nl - 1 bytes: a match across two is found */
	while ((k = piece(v, off, buf, KT_IN_PIECE + nl - 1)) > 0) {
		if ((q = kt_memmem(buf, (size_t)k, needle, nl))) {
			int64_t at = (int64_t)(off + (uint64_t)(q - buf));

			free(buf);
			return at;
		}
		if ((size_t)k < KT_IN_PIECE + nl - 1)
			break;
		off += KT_IN_PIECE;
	}
	free(buf);
	if (k < 0) { /* read failed: through the map, as before */
		q = kt_memmem(v->data + from, v->len - from, needle, nl);
		return q ? (int64_t)(q - v->data) : -1;
	}
	return -1;
}

/* The hash of a mapped file whose pread pass failed: through the map in
 * windows, each given back once hashed. */
static void hash_map(struct kt_vfile *v)
{
	kt_sha_ctx c;
	size_t off = 0, w = 16u << 20;

	kt_sha_start(&c);
	while (off < v->len) {
		size_t n = v->len - off < w ? v->len - off : w;

		kt_sha_add(&c, v->data + off, n);
		off += n;
		kt_in_drop(v, off);
	}
	kt_sha_finish(&c, v->f.sha);
	kt_in_drop_all(v);
}

static void *hash_thread(void *arg)
{
	struct kt_vfile *v = arg;

	pthread_setname_np(pthread_self(), "ktraj-hash");
	v->hash_rc = hash_fd(v, v->hsha);
	return NULL;
}

void kt_in_hash_wait(struct kt_vfile *v)
{
	if (!v->hashing)
		return;
	pthread_join(v->hth, NULL);
	v->hashing = 0;
	/* the join orders the thread's writes of hsha and hash_rc before
	 * these reads */
	if (v->hash_rc == 0)
		memcpy(v->f.sha, v->hsha, KT_HASH_LEN);
	/* the map fallback drops pages: only here, once the thread is gone
	 * and before the importer reads on */
	else
		hash_map(v);
	kt_hex(v->f.sha, KT_HASH_LEN, v->f.sha_hex);
}

/* Fill v->f from v->data (already loaded); ahead: the hash of a big mapped
 * file may go to a second thread (kt_in_load_ahead). */
static void vf_fill(struct kt_root *r, struct kt_vfile *v, int ahead)
{
	v->f.path = v->display;
	v->f.rel = v->rel;
	v->f.member = v->member;
	v->f.data = v->data;
	v->f.len = v->len;
	v->f.root = r->display;
	v->hashing = 0;
	if (!v->mapped) {
		kt_sha256(v->data, v->len, v->f.sha);
	} else if (ahead && v->fd >= 0 && kt_threads_for(v->len) &&
		   kt_thread_start(&v->hth, hash_thread, v) == 0) {
		v->hashing = 1;
		memset(v->f.sha, 0, KT_HASH_LEN);
		v->f.sha_hex[0] = 0;
	} else if (hash_fd(v, v->f.sha) != 0) {
		hash_map(v);
	}
	if (!v->hashing)
		kt_hex(v->f.sha, KT_HASH_LEN, v->f.sha_hex);
	v->loaded = 1;
	if (!v->listed) { /* room made by root_add */
		v->listed = 1;
		r->loaded[r->nloaded++] = v;
	}
}

/* The bound on a stream input (stdin, a device, a FIFO): the archive
 * expansion bound, bytes (--max-size). */
static uint64_t input_max(const kt_imp *imp)
{
	return imp->opts->max_total ? imp->opts->max_total :
		KT_IMPORT_MAX_TOTAL;
}

static uint64_t input_max_line(const kt_imp *imp)
{
	return imp->opts->max_line ? imp->opts->max_line : KT_IMPORT_MAX_LINE;
}

/* Maps the first len bytes of the regular file fd into v (v->mapped): over
 * a zeroed anonymous map one page longer, so the byte past len is the NUL
 * kt_file promises whatever the size.  Not populated: the hash and the
 * importer read it front to back and the pages behind them are given back
 * (vf_fill, kt_in_drop).  fd may be closed afterwards.  -1 when it cannot
 * be mapped (v untouched). */
static int map_fd(int fd, size_t len, struct kt_vfile *v)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t span = (len / pg + 1) * pg;
	void *m = mmap(NULL, span, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (m == MAP_FAILED)
		return -1;
	if (mmap(m, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) != m) {
		munmap(m, span);
		return -1;
	}
	madvise(m, len, MADV_SEQUENTIAL);
	v->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	v->data = m;
	v->len = len;
	v->mapped = 1;
	v->dropped = 0;
	return 0;
}

/* A stream up to this size is held in memory; past it, it goes to an
 * unlinked temporary file read through the mapped-file window. */
#define KT_IN_SPOOL (16u << 20)

/* An unlinked temporary file in $TMPDIR (else /tmp), or -1. */
static int spool_open(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	/* a file system without O_TMPFILE: a named file, unlinked at once */
	if ((size_t)snprintf(path, sizeof(path), "%s/ktraj-stdin-XXXXXX", dir) >=
	    sizeof(path))
		return -1;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

/* KT_EIO, errno set */
static int write_all(int fd, const unsigned char *p, size_t n)
{
	ssize_t k;

	while (n) {
		k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (!k)
				errno = EIO;
			return KT_EIO;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* The rest of a stream whose first n bytes are head (the line after the
 * last newline starts at line0, lines complete lines before it), copied
 * to a spool file in 1 MiB reads and mapped into v, with read_stream's
 * bounds: KT_ELIMIT past max bytes; a line over max_line ends the input
 * at the line's start (*cut_line its number).  Memory holds one read
 * and the mapped window, whatever the stream's size; the disk holds the
 * stream.  head is freed.  KT_ENOMEM; KT_EIO with *spool_err the errno
 * of the temporary file's failure (a full disk), else 0 for the
 * stream's own read failure. */
static int spool_rest(int fd, unsigned char *head, size_t n, size_t line0,
		      uint64_t lines, uint64_t max, uint64_t max_line,
		      struct kt_vfile *v, uint64_t *cut_line, int *spool_err)
{
	const size_t chunk = 1u << 20;
	unsigned char *buf = NULL, *p, *nl;
	uint64_t total = n, start = line0, base;
	int sp = spool_open(), rc;
	ssize_t k;

	*spool_err = 0;
	if (sp < 0) {
		*spool_err = errno;
		free(head);
		return KT_EIO;
	}
	rc = write_all(sp, head, n);
	if (rc)
		*spool_err = errno;
	free(head);
	if (!rc && !(buf = malloc(chunk)))
		rc = KT_ENOMEM;
	while (!rc) {
		k = read(fd, buf, chunk);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			rc = KT_EIO;
			break;
		}
		if (k == 0)
			break;
		base = total;
		total += (uint64_t)k;
		for (p = buf; (nl = memchr(p, '\n', (size_t)k - (size_t)(p - buf)));
		     p = nl + 1) {
			if (base + (uint64_t)(nl - buf) - start > max_line)
				break;
			lines++;
			start = base + (uint64_t)(nl - buf) + 1;
		}
		if (nl || total - start > max_line) {
			/* the input ends where that line starts */
			*cut_line = lines + 1;
			rc = write_all(sp, buf, start > base ? (size_t)(start - base) : 0);
			if (rc)
				*spool_err = errno;
			total = start;
			break;
		}
		if (max && total > max) {
			rc = KT_ELIMIT;
			break;
		}
		if ((rc = write_all(sp, buf, (size_t)k)))
			*spool_err = errno;
	}
	free(buf);
	if (!rc && total >= SIZE_MAX / 2)
		rc = KT_ELIMIT;
	if (!rc && ftruncate(sp, (off_t)total)) {
		*spool_err = errno;
		rc = KT_EIO;
	}
	if (!rc && !total) {
		/* nothing kept (a first line over the cap): no map of 0 bytes */
		if (!(v->data = calloc(1, 1)))
			rc = KT_ENOMEM;
		v->len = 0;
	} else if (!rc && map_fd(sp, (size_t)total, v)) {
		rc = KT_ENOMEM;
	}
	close(sp);
	return rc;
}

/* the line for a read_stream failure of the input at where */
static void warn_unreadable(kt_imp *imp, const char *where, int rc)
{
	if (rc == KT_ELIMIT)
		kt_imp_warn_at(imp, where,
			 "input larger than %llu bytes (limit: --max-size): not imported",
			 (unsigned long long)input_max(imp));
	else
		kt_imp_warn_at(imp, where, "cannot read: %s", kt_strerror(rc));
}

/* Reads up to cap bytes of fd into buf; *eof when the stream ended
 * before.  KT_EIO. */
static int read_upto(int fd, unsigned char *buf, size_t cap, size_t *n,
		     int *eof)
{
	ssize_t k;

	*n = 0;
	*eof = 0;
	while (*n < cap) {
		k = read(fd, buf + *n, cap - *n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return KT_EIO;
		if (k == 0) {
			*eof = 1;
			break;
		}
		*n += (size_t)k;
	}
	return 0;
}

/* A stream input (stdin, a device, a FIFO; it may never end: /dev/zero)
 * into v, where, with its bounds: KT_ELIMIT past --max-size bytes; the
 * input ends before the first line longer than --max-line bytes, which is
 * said here and counted as unreadable (the lines before it are imported,
 * the call fails as for a path it could not read).  Up to KT_IN_SPOOL
 * bytes the stream is held in memory; a longer one is spooled to an
 * unlinked temporary file and mapped (spool_rest), so memory keeps a
 * window of it as of a big file, whatever its lines (issue 20: 300 MB of
 * stdin held 672 MB).  A failure is said here too (one line).  KT_ELIMIT,
 * KT_ENOMEM, KT_EIO. */
static int read_stream(kt_imp *imp, int fd, const char *where,
		       struct kt_vfile *v)
{
	uint64_t cut = 0, lines = 0, max = input_max(imp);
	uint64_t max_line = input_max_line(imp);
	size_t cap = KT_IN_SPOOL, n, line0 = 0;
	unsigned char *head, *nl;
	int eof, rc, spool_err = 0;

	if (max && max < cap)
		cap = (size_t)max + 1;
	head = malloc(cap + 1);
	if (!head) {
		warn_unreadable(imp, where, KT_ENOMEM);
		return KT_ENOMEM;
	}
	rc = read_upto(fd, head, cap, &n, &eof);
	for (nl = head; !rc && (nl = memchr(nl, '\n', n - (size_t)(nl - head)));
	     nl++) {
		if ((uint64_t)(nl - head) - line0 > max_line)
			break;
		lines++;
		line0 = (size_t)(nl - head) + 1;
	}
	if (!rc && (nl || n - line0 > max_line)) {
		cut = lines + 1;
		n = line0;
		eof = 1;
	}
	if (!rc && !cut && max && n > max)
		rc = KT_ELIMIT;
	if (!rc && !eof) {
		rc = spool_rest(fd, head, n, line0, lines, max, max_line, v,
				&cut, &spool_err);
	} else if (!rc) {
		head[n] = 0;
		v->data = head;
		v->len = n;
	} else {
		free(head);
	}
	if (!rc && cut == 1) {
		kt_imp_warn_at(imp, where,
			 "line 1 is longer than %llu bytes (limit: --max-line): nothing imported",
			 (unsigned long long)max_line);
	} else if (!rc && cut) {
		kt_imp_warn_at(imp, where,
			 "line %llu is longer than %llu bytes (limit: --max-line): stopped reading there; the %llu lines before it are imported",
			 (unsigned long long)cut,
			 (unsigned long long)max_line,
			 (unsigned long long)(cut - 1));
	}
	if (!rc && cut) {
		imp->unreadable++;
		v->cut = 1;
	}
	if (spool_err) {
		const char *dir = getenv("TMPDIR");

		kt_imp_warn_at(imp, where,
			 "cannot keep the stream in a temporary file in %s (TMPDIR): %s; not imported",
			 dir && *dir ? dir : "/tmp", strerror(spool_err));
	} else if (rc) {
		warn_unreadable(imp, where, rc);
	}
	return rc;
}

static int load(kt_imp *imp, struct kt_root *r, struct kt_vfile *v, int ahead)
{
	int fd, rc;
	struct stat st;

	if (v->loaded)
		return 0;
	if (!v->fspath)
		return KT_ENOTFOUND; /* archive member already dropped */
	fd = open(v->fspath, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		kt_imp_warn_at(imp, v->display, "cannot open: %s", strerror(errno));
		return KT_EIO;
	}
	/* Big files are mapped (map_fd): reading them costs a copy and a
	 * fault per page, more CPU than parsing them
	 * (tests/bench/import_claude.sh), and memory holds a window of the
	 * file, not the file.  (A file
	 * truncated by another process while being imported would fault;
	 * logs grow, they are not truncated in place.) */
	if (fstat(fd, &st) != 0)
		st.st_mode = 0;
	v->regular = S_ISREG(st.st_mode);
	if (S_ISREG(st.st_mode) && st.st_size >= (1 << 20) &&
	    (uint64_t)st.st_size < SIZE_MAX / 2 &&
	    map_fd(fd, (size_t)st.st_size, v) == 0) {
		close(fd);
		vf_fill(r, v, ahead);
		return 0;
	}
	if (S_ISREG(st.st_mode)) {
		size_t want = (size_t)st.st_size, got = 0;
		ssize_t k;

		v->data = want < SIZE_MAX ? malloc(want + 1) : NULL;
		if (!v->data) {
			close(fd);
			kt_imp_warn_at(imp, v->display, "cannot read: %s (%llu bytes)",
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
		rc = read_stream(imp, fd, v->display, v);
	}
	close(fd);
	if (rc)
		return rc;
	vf_fill(r, v, ahead);
	return 0;
}

int kt_in_load(kt_imp *imp, struct kt_root *r, struct kt_vfile *v)
{
	return load(imp, r, v, 0);
}

int kt_in_load_ahead(kt_imp *imp, struct kt_root *r, struct kt_vfile *v)
{
	return load(imp, r, v, 1);
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
			kt_imp_warn_at(imp, fsdir, "cannot read: %s", strerror(errno));
		return 0;
	}
	while ((de = readdir(d))) {
		char *fp, *rp;
		struct stat st;
		int lok, plain;

		if (de->d_name[0] == '.')
			continue;
		if (name_prefix && strncmp(de->d_name, name_prefix,
					   strlen(name_prefix)))
			continue;
		fp = join(fsdir, "/", de->d_name);
		rp = *rel ? join(rel, "/", de->d_name) : kt_imp_strdup(de->d_name);
		if (!fp || !rp) {
			free(fp);
			free(rp);
			rc = KT_ENOMEM;
			break;
		}
		/* a regular file that is no link needs no second stat: stat
		 * would say what lstat said (one call less a file) */
		lok = lstat(fp, &st) == 0;
		plain = lok && S_ISREG(st.st_mode);
		if (lok && S_ISDIR(st.st_mode)) {
			rc = walk(imp, r, fp, rp, NULL, depth + 1,
				  listed_only);
		} else if (!plain && (stat(fp, &st) != 0 ||
				      !S_ISREG(st.st_mode))) {
			/* never opened: a FIFO could block, a device never
			 * end; said, so that nothing goes missing unnoticed */
			if (imp) {
				struct stat ls;
				int e = stat(fp, &st) == 0 ? 0 : errno;

				if (lstat(fp, &ls) != 0)
					kt_imp_warn_at(imp, fp, "skipped: %s",
						 strerror(errno));
				else if (S_ISLNK(ls.st_mode) && e == ENOENT)
					kt_imp_warn_at(imp, fp, "skipped: dangling link");
				else if (e)
					kt_imp_warn_at(imp, fp, "skipped: %s",
						 strerror(e));
				else if (S_ISDIR(st.st_mode))
					kt_imp_warn_at(imp, fp, "skipped: link to a folder (not followed)");
				else
					kt_imp_warn_at(imp, fp,
						 "skipped: not a regular file");
				imp->fs_skipped++;
			}
		} else if (imp && kt_store_is_own_file(imp->s, &st)) {
			/* the store this import writes (and its lock),
			 * when the folder holds it: not an input */
			imp->own_skipped++;
		} else if (!root_find(r, rp)) {
			struct kt_vfile *v = root_add(r, rp);

			if (!v) {
				rc = KT_ENOMEM;
			} else {
				v->fspath = fp;
				fp = NULL;
				v->size = (uint64_t)st.st_size;
				v->done = listed_only;
				/* (scan_prefix's walk, imp NULL, may have
				 * entered its folder through a link) */
				v->walked_plain = plain && imp;
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
		kt_imp_strdup("");
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
	r->scanned[r->nscanned++] = kt_imp_strdup(prefix);
	fsdir = *dirpart ? join(r->dir, "/", dirpart) : kt_imp_strdup(r->dir);
	rc = fsdir ? walk(NULL, r, fsdir, dirpart,
			   slash ? slash + 1 : prefix, 0, 1)
		   : KT_ENOMEM;
	free(fsdir);
	free(dirpart);
	return rc;
}

/* ---- archives ------------------------------------------------------------ */

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
	char *n = kt_imp_strdup(b ? b + 1 : display);
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
		n = kt_imp_strdup("stdin");
	}
	return n;
}

/* --max-size and --max-ratio, or their defaults */
static void limits(const kt_imp *imp, uint64_t *maxt, uint64_t *ratio)
{
	*maxt = imp->opts->max_total ? imp->opts->max_total :
		KT_IMPORT_MAX_TOTAL;
	*ratio = imp->opts->max_ratio ? imp->opts->max_ratio :
		KT_IMPORT_MAX_RATIO;
}

/* Bytes an archive may expand to: max_total, and max_ratio times its
 * compressed size (bytes consumed so far when the size is unknown); inside
 * another archive, no more than what is left of that one's bound
 * (imp->nest_room), so nesting never multiplies the limits. */
static uint64_t bound(kt_imp *imp, struct archive *a, uint64_t csize)
{
	uint64_t maxt, ratio;
	uint64_t cs = csize ? csize : (uint64_t)archive_filter_bytes(a, -1);
	uint64_t lim;

	limits(imp, &maxt, &ratio);
	lim = cs * ratio;
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

/* Warn at display that an archive expands beyond lim (member, when not
 * NULL, declared want bytes) with the limits that set it; KT_ELIMIT. */
static int over_bound(kt_imp *imp, const char *display, const char *member,
		      uint64_t want, uint64_t lim)
{
	uint64_t maxt, ratio;
	char n[24] = "";

	limits(imp, &maxt, &ratio);
	if (member)
		snprintf(n, sizeof(n), "%llu", (unsigned long long)want);
	kt_imp_warn_at(imp, display,
		 "%s%s%s%s%sexpands beyond %llu bytes%s (limits: --max-size %llu, --max-ratio %llu): stopped",
		 member ? "member '" : "", member ? member : "",
		 member ? "' declares " : "", n, member ? " bytes: " : "",
		 (unsigned long long)lim, bound_why(imp, lim),
		 (unsigned long long)maxt, (unsigned long long)ratio);
	return KT_ELIMIT;
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
	uint64_t total = 0;
	int rc = 0, hr, any = 0;
	size_t nread = 0; /* members read whole */

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
		if (ft == AE_IFDIR)
			continue;
		if (!name || !*name) {
			/* libarchive could not decode the name it declares
			 * (bytes that are not the UTF-8 or UTF-16 its header
			 * says): no name to import it under or to check */
			kt_imp_warn_at(imp, r->display,
				 "a member whose name is not valid in the charset its header declares (libarchive: %s): skipped",
				 name ? "empty name" : archive_error_string(a) ?
				 archive_error_string(a) : "no name");
			continue;
		}
		if (archive_entry_symlink(e) || archive_entry_hardlink(e) ||
		    ft != AE_IFREG) {
			kt_imp_warn_at(imp, r->display,
				 "member '%s': link or special file, unsafe: skipped",
				 name);
			continue;
		}
		if (!is_raw && (member_unsafe(name) || !*strip_dot_slash(name))) {
			kt_imp_warn_at(imp, r->display,
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
				rc = over_bound(imp, r->display, name, want,
						lim);
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
				/* a cut archive (a download cut short) ends
				 * here: say how far it was read */
				const char *why = archive_error_string(a) ?
					archive_error_string(a) : "read error";

				if (nread)
					kt_imp_warn_at(imp, r->display,
						 "archive truncated or damaged: member '%s': %s: members after %zu not read",
						 name, why, nread);
				else
					kt_imp_warn_at(imp, r->display,
						 "cut off or damaged (member '%s': %s): nothing of it imported",
						 name, why);
				rc = KT_EPARSE;
				break;
			}
			if (k == 0)
				break;
			n += (size_t)k;
			total += (uint64_t)k;
			lim = bound(imp, a, csize);
			if (total > lim) {
				rc = over_bound(imp, r->display, NULL, 0, lim);
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
		/* a compressed file cut inside its header (a .gz under 12
		 * bytes): libarchive passes it through undecoded, and each
		 * nested open would do the same */
		if (is_raw && n == csize && kt_archive_magic(buf, n)) {
			kt_imp_warn_at(imp, r->display, "cut off (shorter than "
				       "its compression header): nothing of it "
				       "imported");
			free(buf);
			rc = KT_EPARSE;
			break;
		}
		if (is_raw) {
			char *rn = raw_name(r->display);

			v = rn ? root_add(r, rn) : NULL;
			free(rn);
		} else {
			rel = strip_dot_slash(name);
			v = root_add(r, rel);
		}
		if (!v || !(v->member = kt_imp_strdup(v->rel))) {
			free(buf);
			rc = KT_ENOMEM;
			break;
		}
		v->data = buf;
		v->len = n;
		v->size = n;
		vf_fill(r, v, 0);
		nread++;
	}
	*expanded = total;
	if (!rc && hr != ARCHIVE_EOF) {
		if (any && !nread)
			kt_imp_warn_at(imp, r->display,
				 "cut off or damaged (%s): nothing of it imported",
				 archive_error_string(a) ?
				 archive_error_string(a) : "read error");
		else if (any)
			kt_imp_warn_at(imp, r->display,
				 "truncated or damaged archive: %s: members after %zu not read",
				 archive_error_string(a) ?
				 archive_error_string(a) : "read error", nread);
		else
			kt_imp_warn_at(imp, r->display, "not a readable archive: %s",
				 archive_error_string(a) ?
				 archive_error_string(a) : "read error");
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

/*
 * Open the archive given as a file (fspath) or held in memory (data, len;
 * ov: the member of archive root `outer` that it is, when it is one, else
 * NULL) and read its members into a new root, bounded as the file's head
 * says.  *out gets the root (the caller imports it and frees it with
 * kt_in_root_free) when rc is 0 or, for a damaged archive whose members
 * before the damage were read, KT_EPARSE; else NULL: too deep (0, warned),
 * cannot open (KT_EPARSE, warned), damaged under --strict (KT_EPARSE, the
 * source failed), KT_ELIMIT, KT_ENOMEM.  *total: bytes its members
 * expanded to; *room: its bound (bound()).
 */
static int archive_read_in(kt_imp *imp, const char *display,
			   const char *fspath, const unsigned char *data,
			   size_t len, const struct kt_root *outer,
			   const struct kt_vfile *ov, struct kt_root **out,
			   uint64_t *total, uint64_t *room)
{
	struct kt_root *r = root_new(KT_ROOT_ARCHIVE, display);
	struct archive *a = NULL;
	uint64_t csize = len;
	int rc;

	*out = NULL;
	*total = 0;
	if (!r)
		return KT_ENOMEM;
	if (imp->depth >= KT_MAX_DEPTH) {
		kt_imp_warn_at(imp, display, "archive nested too deep: skipped");
		kt_in_root_free(r);
		return 0;
	}
	a = kt_archive_reader();
	if (!a) {
		kt_in_root_free(r);
		if (!kt_archive_load())
			return KT_ENOMEM;
		/* as an unreadable path: said, skipped, exit 1 */
		kt_imp_warn_at(imp, display, "cannot read archives or "
			       "compressed files without libarchive (%s)",
			       kt_archive_load_error());
		return KT_ENOTFOUND;
	}
	if (fspath) {
		struct stat st;
		char *ab = realpath(fspath, NULL);

		r->abs = ab ? ab : kt_imp_strdup(fspath);
		csize = stat(fspath, &st) == 0 ? (uint64_t)st.st_size : 0;
		rc = archive_read_open_filename(a, fspath, 1 << 16);
	} else if (outer && outer->kind == KT_ROOT_ARCHIVE && ov &&
		   ov->member) {
		/* sources name the file on disk and the member holding this
		 * archive (show --source reads it from there) */
		r->abs = kt_imp_strdup(outer->abs ? outer->abs : outer->display);
		r->in = kt_imp_strdup(ov->member);
		rc = archive_read_open_memory(a, data, len);
	} else {
		r->abs = kt_imp_strdup(display);
		rc = archive_read_open_memory(a, data, len);
	}
	if (rc != ARCHIVE_OK) {
		const char *why = archive_error_string(a) ?
				  archive_error_string(a) : "?";

		/* libarchive: "truncated gzip input", "Truncated tar archive" */
		kt_imp_warn_at(imp, display, "%s (%s): nothing of it imported",
			       strcasestr(why, "truncat") ? "cut off" :
			       "cannot open archive", why);
		archive_read_free(a);
		kt_in_root_free(r);
		return KT_EPARSE;
	}
	rc = archive_collect(imp, r, a, csize, total);
	if (rc == 0 && (archive_format(a) & ARCHIVE_FORMAT_BASE_MASK) ==
	    ARCHIVE_FORMAT_ZIP && zip_cut(fspath, data, len)) {
		kt_imp_warn_at(imp, r->display, "truncated zip archive: its end of "
			       "central directory is missing%s",
			       imp->opts->strict ? "" : r->n == 0 ?
			       ": nothing of it imported" :
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
		kt_in_root_free(r);
		return KT_EPARSE;
	}
	*room = bound(imp, a, csize);
	archive_read_free(a);
	if (rc == 0 || rc == KT_EPARSE)
		*out = r;
	else
		kt_in_root_free(r);
	return rc;
}

int kt_in_archive_read(kt_imp *imp, const char *display, const char *fspath,
		       const unsigned char *data, size_t len,
		       const struct kt_root *outer, const struct kt_vfile *ov,
		       struct kt_root **out, uint64_t *total, uint64_t *room)
{
	struct kt_archive_utf8 u;
	int rc;

	/* non-ASCII member names (a zip from Python's zipfile) as UTF-8 */
	kt_archive_utf8_enter(&u);
	rc = archive_read_in(imp, display, fspath, data, len, outer, ov, out,
			     total, room);
	kt_archive_utf8_leave(&u);
	return rc;
}

/* ---- siblings ------------------------------------------------------------ */

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

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
	/* Importers list a prefix once per source (a Claude Code session
	 * its sub-agents): scanning every name each time made a folder of
	 * 10,000 sessions quadratic (a third of its import's CPU in
	 * strncmp).  Names are only added, so a sorted copy made when the
	 * count changed finds a prefix's names by bisection. */
	if (r->nsorted != r->n || !r->sorted) {
		char **ns = realloc(r->sorted, (r->n + 1) * sizeof(*ns));

		if (!ns)
			return KT_ENOMEM;
		r->sorted = ns;
		for (i = 0; i < r->n; i++)
			ns[i] = r->v[i]->rel;
		qsort(ns, r->n, sizeof(*ns), cmp_name);
		r->nsorted = r->n;
	}
	{
		size_t lo = 0, hi = r->nsorted;

		while (lo < hi) { /* the first name not below prefix */
			size_t mid = lo + (hi - lo) / 2;

			if (strcmp(r->sorted[mid], prefix) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (hi = lo; hi < r->nsorted &&
		     !strncmp(r->sorted[hi], prefix, lp); hi++)
			;
		/* snapshot the names: fn may open files (which may add
		 * vfiles, and re-sort) */
		names = malloc((hi - lo + 1) * sizeof(*names));
		if (!names)
			return KT_ENOMEM;
		n = hi - lo;
		memcpy(names, r->sorted + lo, n * sizeof(*names));
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
	rc = kt_in_load(imp, r, v);
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

int kt_in_peek_archive(const char *fspath)
{
	unsigned char b[512];
	struct stat st;
	ssize_t n;
	int fd;

	/* a FIFO or a device is read once, whole (vf_load): a peek would
	 * eat its first bytes, and even opening a FIFO to look connects its
	 * writer, whose data the close then throws away (the real read waits
	 * for a writer that is gone); so look before opening */
	if (stat(fspath, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	fd = open(fspath, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	n = read(fd, b, sizeof(b));
	close(fd);
	return n > 0 && kt_archive_magic(b, (size_t)n);
}

/* ---- entry point --------------------------------------------------------- */

int kt_in_root(kt_imp *imp, const char *path, struct kt_root **out)
{
	struct stat st;
	struct kt_root *r = NULL;
	struct kt_vfile *v;
	unsigned skipped, own;
	int rc;

	*out = NULL;
	if (!strcmp(path, "-")) {
		r = root_new(KT_ROOT_STDIN, "-");
		if (!r || !(v = root_add(r, "-"))) {
			kt_in_root_free(r);
			return KT_ENOMEM;
		}
		rc = read_stream(imp, 0, "-", v);
		if (rc) {
			imp->unreadable++;
			kt_in_root_free(r);
			/* counted: the other paths still import */
			return 0;
		}
		v->size = v->len;
		vf_fill(r, v, 0);
		r->direct = 1;
		*out = r;
		return 0;
	}
	if (stat(path, &st) != 0) {
		kt_imp_warn_at(imp, path, "%s", strerror(errno));
		return KT_ENOTFOUND;
	}
	if (S_ISDIR(st.st_mode)) {
		r = root_new(KT_ROOT_DIR, path);
		if (!r)
			return KT_ENOMEM;
		r->dir = kt_imp_strdup(path);
		r->abs = realpath(path, NULL);
		skipped = imp->fs_skipped;
		own = imp->own_skipped;
		rc = walk(imp, r, path, "", NULL, 0, 0);
		if (rc) {
			kt_in_root_free(r);
			return rc;
		}
		/* (a folder of skipped entries only said so per entry) */
		if (!r->n && skipped == imp->fs_skipped) {
			kt_imp_warn_at(imp, path, own == imp->own_skipped ?
				       "no files" :
				       "no files but this import's store");
			imp->fs_skipped++;
		}
	} else if (kt_store_is_own_file(imp->s, &st)) {
		kt_imp_warn_at(imp, path, "this import's store: not read as input");
		imp->fs_skipped++;
		return 0;
	} else {
		const char *slash = strrchr(path, '/');

		r = root_new(KT_ROOT_FILE, path);
		if (!r)
			return KT_ENOMEM;
		r->dir = slash ? (slash == path ? kt_imp_strdup("/") :
				  strndup(path, (size_t)(slash - path)))
			       : kt_imp_strdup(".");
		r->abs = realpath(path, NULL);
		r->direct = 1;
		v = root_add(r, slash ? slash + 1 : path);
		if (!v || !(v->fspath = kt_imp_strdup(path))) {
			kt_in_root_free(r);
			return KT_ENOMEM;
		}
		v->size = (uint64_t)st.st_size;
	}
	*out = r;
	return 0;
}
