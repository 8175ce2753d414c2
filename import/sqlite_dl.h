/*
 * sqlite_dl.h - SQLite, loaded when first needed.
 *
 * Only the OpenCode importer reads SQLite (its opencode.db), and linking
 * libsqlite3 cost every command ~1.5 ms of start-up on the 2-vCPU build
 * machine (tests/bench/RESULTS.md "Issue 21").  So the binary does not
 * link it (the scheme of archive_dl.h): the importer includes this header
 * instead of <sqlite3.h>, and each function below is a pointer of kt_sq,
 * filled by kt_sqlite_load() from the distribution's shared library
 * (dlopen of KT_SQLITE_SONAME).  The importer calls kt_sqlite_load() before
 * its first SQLite call and skips the file, in words, when it fails.
 * Headers still come from pkg-config (libsqlite3-dev).
 */
#ifndef KT_SQLITE_DL_H
#define KT_SQLITE_DL_H

#include <sqlite3.h>

/* SQLite 3's soname on Debian (and most distributions) */
#define KT_SQLITE_SONAME "libsqlite3.so.0"

#define KT_SQLITE_FUNCS(X) \
	X(sqlite3_bind_text) \
	X(sqlite3_close) \
	X(sqlite3_column_text) \
	X(sqlite3_db_config) \
	X(sqlite3_deserialize) \
	X(sqlite3_errmsg) \
	X(sqlite3_finalize) \
	X(sqlite3_malloc64) \
	X(sqlite3_open_v2) \
	X(sqlite3_prepare_v2) \
	X(sqlite3_reset) \
	X(sqlite3_step)

struct kt_sqlite_api {
#define KT_SQ_MEMBER(f) __typeof__(f) *f;
	KT_SQLITE_FUNCS(KT_SQ_MEMBER)
#undef KT_SQ_MEMBER
};
extern struct kt_sqlite_api kt_sq;

/*
 * Load libsqlite3 and fill kt_sq, once per process (thread-safe).  0, or
 * KT_EIO with errno ELIBACC when the library or one of the functions is
 * missing (kt_sqlite_load_error() then says which, in dlerror's words).
 * Every other function of this header needs a load that returned 0.
 */
int kt_sqlite_load(void);
/* Why the load failed ("" when it did not). */
const char *kt_sqlite_load_error(void);

#ifndef KT_SQLITE_DL_IMPL
#define sqlite3_bind_text kt_sq.sqlite3_bind_text
#define sqlite3_close kt_sq.sqlite3_close
#define sqlite3_column_text kt_sq.sqlite3_column_text
#define sqlite3_db_config kt_sq.sqlite3_db_config
#define sqlite3_deserialize kt_sq.sqlite3_deserialize
#define sqlite3_errmsg kt_sq.sqlite3_errmsg
#define sqlite3_finalize kt_sq.sqlite3_finalize
#define sqlite3_malloc64 kt_sq.sqlite3_malloc64
#define sqlite3_open_v2 kt_sq.sqlite3_open_v2
#define sqlite3_prepare_v2 kt_sq.sqlite3_prepare_v2
#define sqlite3_reset kt_sq.sqlite3_reset
#define sqlite3_step kt_sq.sqlite3_step
#endif

#endif
