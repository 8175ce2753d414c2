/*
 * driver.c - the import driver: kt_import_paths turns paths into input
 * roots (input.c), detects each file's format, and runs its importer inside
 * one store transaction per source, or for small sources one per batch of
 * them, each source ended by a savepoint (the importer talks to the
 * session, session.c); archives found on the way are opened (input.c) and
 * imported as roots of their own, one level deep.  What a source yields is
 * kept, or under --strict with a problem thrown away.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "archive_policy.h"
#include "imp_int.h"

/* ---- sources ------------------------------------------------------------- */

/* The importer whose detector scores f highest, or NULL when none takes
 * it. */
static const kt_importer *detect_best(const kt_file *f)
{
	const kt_importer *best = NULL, *im;
	int bs = 0, sc;
	kt_file g = *f;

	/* a byte order mark opening the file may be ignored (RFC 8259
	 * section 8.1; import/README.md "Strict JSON"): detectors look at
	 * the text after it, importers get the file as it is */
	if (g.len >= 3 && !memcmp(g.data, "\xef\xbb\xbf", 3)) {
		g.data += 3;
		g.len -= 3;
	}
	kt_impx_sniff_begin(g.data, g.len);
	for (size_t i = 0; (im = kt_importer_at(i)); i++) {
		if (!im->detect)
			continue;
		sc = im->detect(&g);
		if (sc > bs) {
			bs = sc;
			best = im;
		}
	}
	kt_impx_sniff_end();
	return best;
}

static const kt_importer *pick(kt_imp *imp, const kt_file *f)
{
	if (imp->opts->format)
		return kt_importer_find(imp->opts->format);
	return detect_best(f);
}

/* Whether f holds nothing but white space (or nothing at all). */
static int blank(const kt_file *f)
{
	size_t i;

	for (i = 0; i < f->len; i++)
		if (!strchr(" \t\r\n", f->data[i]) || !f->data[i])
			return 0;
	return 1;
}

/* ---- batches of small sources (FORMAT.md §6.12) ----------------------------
 * A transaction per source cost 54 us of LMDB commit per run of a folder
 * of 10,000 small sessions (tests/bench/RESULTS.md, "Issue 21: 10,000
 * small sessions"), so small sources share one, each ended by a savepoint
 * and a failed one rolled back to the savepoint before it.  Bounds: the
 * write lock is held (another importer waits), the write log and dirty
 * pages grow until the commit, and the store file grows too: the pages a
 * transaction copies on write are free only after its commit, and runs
 * are keyed by hash, so a batch's runs touch leaves all over each index
 * (10,000 sources of ~21 KB: CPU -3 %, store +1.2 % in batches of 16;
 * CPU -8 %, store +18 % in batches of 256; RESULTS.md "Issue 21: batched
 * commits across files").  At 256 KiB the byte bound ended a batch of
 * such sources at 13; 64 sources or 1 MiB took another ~4 % off their
 * CPU for 1.8 MB more store (+3 %, about two batches' pages that the last
 * commits leave free) and peak RSS 62 -> 69 MiB, while 128 or 256 gave
 * little more CPU for +6 % and +12 % (RESULTS.md "Issue 21: 10,000 small
 * sessions under 1.5x"). */
#define KT_IMP_SMALL (256u << 10)      /* a source batched: at most this */
#define KT_IMP_BATCH_BYTES (1u << 20)   /* commit once the sources hold this */
#define KT_IMP_BATCH_FILES 64          /* or are this many */

static int small_source(const kt_imp *imp, const struct kt_vfile *v)
{
	uint64_t b = imp->opts->batch ? imp->opts->batch : KT_IMP_BATCH;

	/* and far below a §6.11 checkpoint: a batch that reaches one
	 * commits, but keeps what it should either way */
	return v->len <= KT_IMP_SMALL && v->len <= b / 4;
}

/* The batch's transaction is gone (its commit failed, rc, or a rollback
 * could not begin again): none of its sources is kept, each is said so
 * (once for all, by kt_import_paths, when the file system is full). */
static void batch_lost(kt_imp *imp, int rc, const char *what)
{
	if (kt_store_nospace(imp->s)) {
		/* said as today's stop at one file: the first of the batch,
		 * the others counted with the files not read */
		size_t n = imp->batch.nfiles;

		if (!imp->full_at && n) {
			imp->full_at = imp->batch.files[0];
			n--;
		}
		imp->full_more += n;
	} else {
		for (size_t i = 0; i < imp->batch.nfiles; i++)
			kt_imp_warn_at(imp, imp->batch.files[i],
				       "%s: %s: %s (nothing of it kept)", what,
				       kt_strerror(rc), kt_store_errmsg(imp->s));
	}
	if (!imp->store_rc)
		imp->store_rc = rc;
	kt_imp_batch_done(imp, 0);
	imp->batch.open = 0;
}

/* Commit the open batch (none: 0); its sources are then reported.  The
 * commit's error when it fails (batch_lost). */
static int batch_commit(kt_imp *imp)
{
	uint64_t t0;
	int rc;

	if (!imp->batch.open)
		return 0;
	t0 = st_start(imp);
	rc = kt_store_commit(imp->s);
	st_stop(imp, t0);
	if (rc) {
		batch_lost(imp, rc, "commit failed");
		return rc;
	}
	imp->batch.open = 0;
	kt_imp_batch_done(imp, 1);
	return 0;
}

/* Nothing of the source being imported is kept: its transaction aborted,
 * or in a batch rolled back to the savepoint before it. */
static void source_drop(kt_imp *imp)
{
	int rc;

	if (!imp->batch.open) {
		kt_store_abort(imp->s);
		return;
	}
	rc = kt_store_rollback(imp->s);
	imp->batch.commits = kt_store_commits(imp->s);
	if (rc)
		batch_lost(imp, rc, "not imported");
}

static int process_source(kt_imp *imp, struct kt_root *r, struct kt_vfile *v)
{
	const kt_importer *im;
	uint64_t t0;
	int rc, rc2, kept = 0, batched;

	v->done = 1;
	/* an empty input named by the user (a file, /dev/null, stdin) is
	 * no import, whatever --format says: said, and counted as an empty
	 * folder is (the call fails when nothing else came of it) */
	if (r->direct && blank(&v->f)) {
		/* (a stream cut before its first line said so already) */
		if (!v->cut) {
			kt_imp_warn_at(imp, v->display, "empty: nothing to import");
			imp->fs_skipped++;
		}
		return 0;
	}
	im = pick(imp, &v->f);
	if (!im) {
		if (r->direct || imp->opts->format) {
			kt_imp_warn_at(imp, v->display,
				 kt_map_looks_like_rounds((const char *)v->f.data,
							  v->f.len) ?
				 "not a trajectory format ktraj knows; a "
				 "per-round log can be read with --map "
				 "MAP.json (README \"Custom round logs\")" :
				 "format not recognized: skipped (see --format)");
			if (imp->opts->strict)
				return KT_EPARSE;
			/* named by the user and not imported: as an empty
			 * input, the call fails unless another path gave a
			 * run (a folder's unknown files stay warnings) */
			if (r->direct)
				imp->fs_skipped++;
		} else {
			size_t b = 0;

			while (b < v->f.len && strchr(" \t\r\n", v->f.data[b]) &&
			       v->f.data[b])
				b++;
			v->unknown = 1;
			v->blankish = b == v->f.len;
			v->jsonish = b < v->f.len && (v->f.data[b] == '{' ||
						      v->f.data[b] == '[');
		}
		return 0;
	}
	imp->cur = v;
	imp->im = im;
	imp->problems = 0;
	imp->failed = 0;
	imp->err = 0;
	imp->fail = 0;
	imp->npend = 0;
	if (imp->opts->stats)
		imp->opts->stats->bytes += v->len;
	batched = small_source(imp, v);
	/* a big source has its transaction to itself, as before; when the
	 * batch before it is lost to a full file system, it is not read */
	if (!batched && (rc = batch_commit(imp)) != 0) {
		if (kt_store_nospace(imp->s))
			v->done = 0;
		return rc;
	}
	/* a big source: its sealed blocks are compressed on a second thread
	 * while this one parses (same records either way) */
	rc = kt_store_set_write_threads(imp->s, kt_threads_for(v->len));
	if (rc)
		return rc;
	if (!imp->batch.open) {
		t0 = st_start(imp);
		rc = kt_store_begin(imp->s);
		st_stop(imp, t0);
		if (rc)
			return rc;
		imp->batch.open = batched;
		imp->batch.commits = kt_store_commits(imp->s);
	}
	/* the hash thread (kt_in_load_ahead) overlaps detection, and with an
	 * importer that leaves the hash to the session, its reading of the
	 * file up to the first event */
	if (!(im->flags & KT_IMPF_LATE_SHA))
		kt_in_hash_wait(v);
	rc = im->import(imp, &v->f);
	kt_in_hash_wait(v);
	if (imp->fail)
		rc = imp->fail;
	if (imp->in_run)
		kt_imp_run_end(imp);
	/* a §6.11 checkpoint of this source committed the batch's sources
	 * before it: they are stored, whatever becomes of this one */
	if (imp->batch.open &&
	    kt_store_commits(imp->s) != imp->batch.commits) {
		kt_imp_batch_done(imp, 1);
		imp->batch.commits = kt_store_commits(imp->s);
	}
	t0 = st_start(imp);
	if (imp->err) {
		source_drop(imp);
		st_stop(imp, t0);
		/* a full disk is said once, by kt_import_paths */
		if (!kt_store_nospace(imp->s))
			kt_imp_warn_at(imp, v->display, "not imported: %s: %s",
				       kt_strerror(imp->err),
				       kt_store_errmsg(imp->s));
		rc = imp->err;
		goto out;
	}
	/* the importer failed, not the input (its memory, its temporary
	 * files, a read): as on a store error nothing of the source is
	 * kept, --strict or not, the batches it committed included
	 * (FORMAT.md §6.11).  A problem of the input (KT_EPARSE and the
	 * other codes, warned) keeps what was read before it, but under
	 * --strict */
	if (rc == KT_ENOMEM || rc == KT_EIO || rc == KT_ECORRUPT) {
		source_drop(imp);
		st_stop(imp, t0);
		kt_imp_warn_at(imp, v->display, "not imported: %s (nothing "
			       "of it kept)", kt_strerror(rc));
		goto out;
	}
	if (imp->opts->strict && imp->problems) {
		/* the first problem, reported, is all --strict says: nothing
		 * of the file is kept is what --strict means */
		source_drop(imp);
		st_stop(imp, t0);
		rc = KT_EPARSE;
		goto out;
	}
	if (rc < 0 && imp->opts->strict) {
		source_drop(imp);
		st_stop(imp, t0);
		goto out;
	}
	/* no run was created or continued, and the importer did not say why */
	if (!imp->npend && !imp->problems)
		kt_imp_warn_at(imp, v->display, "no events for format %s", im->name);
	/* the file the user named gave no run in a --format forced on it,
	 * and is detected as another format: the call fails unless another
	 * path gave a run, as for a file in no format (README "exit 1
	 * unless another path imported a run"); a damaged file of that
	 * format stays a warning */
	if (imp->opts->format && !imp->npend && r->direct &&
	    !strcmp(v->display, r->display)) {
		const kt_importer *d = detect_best(&v->f);

		if (d && d != im)
			imp->fs_skipped++;
	}
	if (imp->batch.open) {
		/* room to hold the source first: keeping it cannot fail */
		rc = kt_imp_batch_reserve(imp);
		if (rc == 0)
			rc = kt_store_savepoint(imp->s);
		kept = 2;
	} else {
		rc = kt_store_commit(imp->s);
		kept = 1;
	}
	st_stop(imp, t0);
	if (rc) {
		kept = 0;
		if (!kt_store_nospace(imp->s))
			kt_imp_warn_at(imp, v->display, "commit failed: %s: %s (nothing of it kept)",
				       kt_strerror(rc), kt_store_errmsg(imp->s));
		if (!imp->store_rc)
			imp->store_rc = rc;
		if (imp->batch.open)
			source_drop(imp);
		goto out;
	}
	if (kept == 2) {
		imp->batch.files[imp->batch.nfiles++] = v->display;
		imp->batch.bytes += v->len;
	}
out:
	kt_imp_source_end(imp, kept);
	imp->cur = NULL;
	imp->im = NULL;
	imp->bytes_done += v->len;
	if (imp->batch.open && (imp->batch.bytes >= KT_IMP_BATCH_BYTES ||
				imp->batch.nfiles >= KT_IMP_BATCH_FILES) &&
	    (rc2 = batch_commit(imp)) != 0 && !rc)
		rc = rc2;
	kt_imp_progress(imp, 0);
	return rc;
}



static int process_root(kt_imp *imp, struct kt_root *r);

/* An archive given as a file (fspath) or held in memory (data); ov: the
 * member of archive root `outer` that it is, when it is one (NULL else);
 * direct: the user named it (a path or stdin), not a folder or archive. */
static int process_archive(kt_imp *imp, const char *display, const char *fspath,
			   const unsigned char *data, size_t len,
			   const struct kt_root *outer,
			   const struct kt_vfile *ov, int direct)
{
	struct kt_root *r;
	uint64_t total, room = 0, saved_room;
	int rc, rc2;

	rc = kt_in_archive_read(imp, display, fspath, data, len, outer, ov,
				&r, &total, &room);
	/* cut off or unreadable with nothing of it read (said): a bad file
	 * of the folder, which goes on; the call fails at its end */
	if (rc == KT_EPARSE && !imp->opts->strict && (!r || r->n == 0)) {
		imp->unreadable++;
		kt_in_root_free(r);
		return 0;
	}
	if (!r)
		return rc;
	/* an archive with no file in it (libarchive reads zero bytes, a
	 * .gz of /dev/zero, as an empty tar) would leave no trace: named by
	 * the user, it fails the call like a path that cannot be read */
	if (r->n == 0 && rc == 0) {
		kt_imp_warn_at(imp, display, "skipped: an archive with no "
			       "files in it (an empty tar, or only zero bytes)");
		if (direct)
			imp->unreadable++;
	}
	/* a damaged archive (KT_EPARSE) still imports the members read
	 * before.  An outermost archive lends the archives inside it what
	 * is left of its bound; a nested one's members use up that room,
	 * which the next nested one of the same archive gets (archives
	 * inside it are not opened: input.c KT_MAX_DEPTH). */
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
	kt_in_root_free(r);
	return rc;
}

/* kt_import_opts.stop: start no further source */
#define STOPPED(imp) ((imp)->opts->stop && *(imp)->opts->stop)

static int process_root(kt_imp *imp, struct kt_root *r)
{
	struct kt_root *saved = imp->root;
	size_t i, j, k;
	int rc = 0, rc2;

	kt_in_sort(r);
	for (i = 0; i < r->n && !rc && !STOPPED(imp); i++) {
		struct kt_vfile *v = r->v[i];

		if (v->claimed || v->done)
			continue;
		/* a small file of a folder is opened once: whether it is an
		 * archive is seen once it is loaded (below).  The peek was a
		 * second open of every file, 18 us a run of 10,000 small
		 * sessions (tests/bench/RESULTS.md, "Issue 21: 10,000 small
		 * sessions"); a bigger one is peeked, not loaded, as an
		 * archive is read from its file, not from memory */
		if (v->fspath && !v->loaded &&
		    !(r->kind == KT_ROOT_DIR && v->size <= KT_IMP_SMALL) &&
		    kt_in_peek_archive(v->fspath)) {
			/* its members are a root of their own: their batches
			 * are theirs */
			if ((rc = batch_commit(imp)) != 0)
				break;
			v->done = 1;
			rc = process_archive(imp, v->display, v->fspath, NULL, 0,
					     NULL, NULL, r->direct ||
					     r->kind == KT_ROOT_STDIN);
			imp->bytes_done += v->size;
			imp->root = saved;
			continue;
		}
		if (!v->loaded && kt_in_load_ahead(imp, r, v)) {
			v->done = 1;
			imp->unreadable++;
			continue;
		}
		/* a small regular file of a folder: read as the peek above
		 * would have had it, from its file */
		if (r->kind == KT_ROOT_DIR && v->fspath && v->regular &&
		    kt_archive_magic(v->data, v->len)) {
			if ((rc = batch_commit(imp)) != 0)
				break;
			v->done = 1;
			kt_in_unload(v);
			rc = process_archive(imp, v->display, v->fspath, NULL, 0,
					     NULL, NULL, r->direct);
			imp->bytes_done += v->size;
			imp->root = saved;
			continue;
		}
		/* (a bigger regular file that is an archive was peeked above) */
		if (kt_archive_magic(v->data, v->len) && (v->member ||
						    r->kind == KT_ROOT_STDIN ||
						    r->kind == KT_ROOT_FILE)) {
			if ((rc = batch_commit(imp)) != 0)
				break;
			v->done = 1;
			rc = process_archive(imp, v->display, NULL, v->data,
					     v->len, r, v, r->direct ||
					     r->kind == KT_ROOT_STDIN);
			imp->root = saved;
			kt_in_unload(v);
			continue;
		}
		imp->root = r;
		rc = process_source(imp, r, v);
		imp->root = saved;
		/* no further source fits either: stop (kt_import_paths
		 * says so once) */
		if (rc && kt_store_nospace(imp->s)) {
			if (!imp->full_at)
				imp->full_at = v->display;
			rc = KT_EIO;
		}
		/* free what is done of files on disk: they can be read
		 * again.  An archive member cannot, so it stays loaded until
		 * its root is done (root_free): a later file may still open
		 * it, whether or not an importer took it already (a
		 * KernelBench results file its baseline_time*.json, which
		 * sorts first and is a run of its own; an ATIF trajectory its
		 * metrics.json).  archive_collect held every member at once
		 * already, so this keeps the peak where it was. */
		for (j = k = 0; j < r->nloaded; j++) {
			struct kt_vfile *w = r->loaded[j];

			if (w->loaded && w->fspath)
				kt_in_unload(w);
			if (w->loaded)
				r->loaded[k++] = w;
			else
				w->listed = 0;
		}
		r->nloaded = k;
		if (rc == KT_EPARSE && !imp->opts->strict)
			rc = 0;
		/* refused, not imported: the other sources go on, the
		 * call fails at the end (kt_import_paths) */
		if (rc == KT_EBUSY)
			imp->busy++;
		if (rc && rc != KT_EPARSE && rc != KT_ENOMEM && rc != KT_EIO &&
		    rc != KT_ECORRUPT && !imp->opts->strict)
			rc = 0; /* an importer's fatal problem: warned, go on */
	}
	/* the root's last batch: committed before its files are freed (the
	 * batch names them) and before anything reads the store again */
	if ((rc2 = batch_commit(imp)) != 0 && !rc)
		rc = rc2;
	/* unrecognized files, less those a later file's importer claimed
	 * (an ATIF trajectory claims its metrics.json, which sorts first) */
	for (i = 0; i < r->n; i++) {
		if (!r->v[i]->unknown || r->v[i]->claimed)
			continue;
		/* counted without on_skip too: a call that imported nothing
		 * but unknown files fails, as for one such file named (an
		 * empty or blank one stays no failure, as it always was) */
		if (r->v[i]->size && !r->v[i]->blankish)
			imp->unknown_skipped++;
		if (r->v[i]->jsonish && r->v[i]->size &&
		    !imp->unknown_json++)
			imp->first_json = r->v[i]->display;
		if (!imp->opts->on_skip)
			continue;
		if (!r->v[i]->size)
			kt_imp_warn_at(imp, r->v[i]->display,
				       "empty: nothing to import");
		else
			imp->opts->on_skip(r->v[i]->display, imp->opts->arg);
	}
	return rc;
}



int kt_import_paths(kt_store *s, char *const *paths, int npaths,
		    const kt_import_opts *opts)
{
	kt_imp d;
	struct kt_root **roots;
	int i, rc = 0, rc2;
	size_t k;
	uint64_t t_all = opts->stats ? kt_imp_cpu_ns() : 0, t0;

	memset(&d, 0, sizeof(d));
	d.s = s;
	d.opts = opts;
	roots = calloc((size_t)npaths + 1, sizeof(*roots));
	if (!roots)
		return KT_ENOMEM;
	for (i = 0; i < npaths; i++) {
		rc2 = kt_in_root(&d, paths[i], &roots[i]);
		if (rc2 && !rc)
			rc = rc2;
		if (roots[i])
			for (k = 0; k < roots[i]->n; k++)
				d.bytes_total += roots[i]->v[k]->size;
	}
	/* what imports killed between batches left (FORMAT.md §6.11) */
	if (kt_store_begin(s) == 0) {
		if (kt_store_reclaim(s, NULL) == 0)
			kt_store_commit(s);
		else
			kt_store_abort(s);
	}
	for (i = 0; i < npaths && !STOPPED(&d); i++) {
		if (!roots[i])
			continue;
		rc2 = process_root(&d, roots[i]);
		if (rc2 && !rc)
			rc = rc2;
		if (rc2 && (opts->strict || d.full_at))
			break;
	}
	if (d.full_at) {
		/* one line for the whole stop, not one per file left */
		size_t left = 0;

		left += d.full_more;
		for (; i < npaths; i++)
			for (k = 0; roots[i] && k < roots[i]->n; k++)
				left += !roots[i]->v[k]->done &&
					!roots[i]->v[k]->claimed;
		/* say only what is true: no "0 more files", and no
		 * "the runs listed" when none is */
		char more[64] = "";

		if (left)
			snprintf(more, sizeof(more), ", %zu more file%s not "
				 "read", left, left == 1 ? "" : "s");
		kt_imp_warn_at(&d, d.full_at, "not imported: %s (the store's "
			       "file system is full): import stopped here%s; "
			       "%s", strerror(ENOSPC), more, d.nreps ?
			       "the runs listed were imported" :
			       "nothing was imported");
		rc = KT_EIO;
	}
	t0 = st_start(&d);
	rc2 = kt_store_sync(s);
	st_stop(&d, t0);
	if (rc2 && !rc)
		rc = rc2;
	/* a source that could not be read fails the call like a missing
	 * path (the others are imported); skipped folder entries and empty
	 * folders only when nothing at all came of the paths */
	if (!rc && (d.unreadable ||
		    ((d.fs_skipped || d.unknown_skipped) && !d.nreps)))
		rc = KT_ENOTFOUND;
	/* once, not per file: the line a JSON file named alone gets */
	if (d.unknown_json && !STOPPED(&d)) {
		char more[96] = "";

		if (d.unknown_json > 1)
			snprintf(more, sizeof(more), " (nor %u other skipped "
				 "JSON file%s)", d.unknown_json - 1,
				 d.unknown_json == 2 ? "" : "s");
		kt_imp_warn_at(&d, d.first_json, "not a trajectory format ktraj "
			       "knows%s; a per-round log can be read with --map "
			       "MAP.json (README \"Custom round logs\")", more);
	}
	if (!rc && d.store_rc)
		rc = d.store_rc;
	if (!rc && d.busy)
		rc = KT_EBUSY;
	for (k = 0; k < d.nreps; k++)
		if (opts->on_run)
			opts->on_run(d.reps[k].id, d.reps[k].name,
				     d.reps[k].format, d.reps[k].events,
				     d.reps[k].added, opts->arg);
	for (i = 0; i < npaths; i++)
		kt_in_root_free(roots[i]);
	free(roots);
	kt_imp_session_free(&d);
	if (opts->stats)
		opts->stats->total_ns += kt_imp_cpu_ns() - t_all;
	return rc;
}
