/*
 * imp_int.h - driver state shared by import/driver.c and import/workspace.c.
 * Not a public header: importers use import.h only.
 */
#ifndef KT_IMP_INT_H
#define KT_IMP_INT_H

#include "import.h"

struct kt_ws_ent {
	char *path;             /* normalized, malloc'ed; NULL = empty slot */
	char *data;             /* current content (NUL-terminated), or NULL */
	size_t len;
	unsigned char hash[KT_HASH_LEN]; /* valid when hashed */
	int hashed;
	int stored;             /* blob of data is known to be in the store */
	int deleted;
	int unknown;            /* changed in a way we cannot tell (data NULL)
				   since the last write or observation */
};

struct kt_ws {
	struct kt_ws_ent *e;
	size_t cap, n;          /* open addressing, cap a power of two */
};

/* one file of an input root (folder, archive, plain file, stdin) */
struct kt_vfile {
	char *rel;
	char *fspath;           /* on disk, NULL for archive members/stdin */
	char *display;
	char *member;
	unsigned char *data;    /* loaded content (NUL past len) or NULL */
	size_t len;
	uint64_t size;          /* size known before loading (progress) */
	int loaded, claimed, done;
	int unknown;            /* no importer recognized it (reported at the
				   end of its root unless claimed by then) */
	int mapped;             /* data is an mmap of fspath */
	kt_file f;
};

struct kt_root {
	int kind;               /* KT_ROOT_* */
	char *display;          /* as the user gave it */
	char *dir;              /* file system directory for listing, or NULL */
	char *abs;              /* absolute path of the file/folder/archive;
				   of an archive inside an archive: the
				   enclosing archive's */
	char *in;               /* that archive's member name in it, or NULL */
	struct kt_vfile **v;
	size_t n, cap;
	char **scanned;         /* plain-file roots: dirs listed lazily */
	size_t nscanned;
	int direct;             /* the path the user named is this one file */
};

enum { KT_ROOT_FILE = 1, KT_ROOT_DIR, KT_ROOT_ARCHIVE, KT_ROOT_STDIN };

/* a growable text buffer reused across events (jsonprint.c) */
struct kt_jbuf {
	char *p;                /* NUL-terminated at n */
	size_t n, cap;
};

struct kt_runrep {
	char id[KT_RUN_ID_HEX + 1];
	char *name, *format;
	uint64_t events, added;
};

struct kt_imp {
	kt_store *s;
	const kt_import_opts *opts;
	kt_redactor *red;
	struct kt_root *root;   /* root being processed */
	struct kt_vfile *cur;   /* source being imported */
	int err;                /* first store error of this source */
	int problems;           /* warnings in this source */
	int failed;             /* strict + problem: output is discarded */
	/* current run */
	int in_run;
	char run_id[KT_RUN_ID_HEX + 1];
	char *run_name, *run_format;
	uint64_t stored_n, seq, added;
	/* events stored after the last one an import wrote (ktraj append,
	 * bench --record, replay); stored_n counts the imported ones.  The
	 * source's own events past stored_n cannot take their seqs: while
	 * tail is set nothing is written to the run (import/README.md). */
	uint64_t tail;
	const kt_importer *im;  /* importer of the source being imported */
	/* the last stored event, to check that this source continues it */
	int last_kind;
	long long last_line, last_off;
	int frozen;             /* it does not: append nothing to this run */
	/* --redact on a run stored without it: its events are compared
	 * unredacted, the new ones redacted when appended (kt_imp_emit) */
	int plain_stored;
	/* kt_imp_check_reemit: the first re-emitted event whose payload
	 * differs from the stored one (0 none), and where it came from */
	int check_reemit;       /* 1: kind, payload; 2: and parent, ts, actor */
	uint64_t changed_seq;
	const kt_file *changed_file;
	/* meta of a run not in the store yet: it is created with its first
	 * event, so a source that yields none leaves no empty run behind */
	char *new_meta;
	/* provenance of the last emitted event (edits borrow it) */
	const kt_file *ev_file;
	uint64_t ev_line, ev_off, ev_len;
	const char **actors;    /* actor per seq (interned), index seq */
	size_t actors_cap;
	char **intern;          /* interned actor strings */
	size_t nintern, intern_cap;
	int64_t last_ts;
	struct kt_ws ws;
	/* runs touched by this source (reported after commit) */
	struct kt_runrep *pend;
	size_t npend, pend_cap;
	/* runs reported for the whole call */
	struct kt_runrep *reps;
	size_t nreps, reps_cap;
	uint64_t bytes_total, bytes_done;
	struct kt_jbuf pbuf;    /* payload text of the event being appended */
	/* provenance text shared by the events of one file (prov_json) */
	struct {
		char sha[KT_HASH_LEN * 2 + 1];
		char *path, *member;    /* the file's, copied: the key */
		char *pre, *suf;        /* before "line" and after "len" */
		size_t lpre, lsuf;
	} provc;
	int depth;              /* archive nesting */
	/* depth > 0: bytes an archive inside the archive being imported may
	 * still expand to (what is left of the outer one's bound), so a
	 * nested archive shares its enclosing archive's limits */
	uint64_t nest_room;
	/* what the run names as graded, for benchmark text (benchout.c) */
	kt_bench_hint bench_hint;
};

/* jsonprint.c: item as cJSON_PrintUnformatted prints it, into b (b->n
 * bytes, NUL-terminated; b->p stays owned by b).  KT_ENOMEM, or KT_EINVAL
 * for an item cJSON cannot print. */
int kt_imp_json_print(const cJSON *item, struct kt_jbuf *b);

/* workspace.c */
void kt_ws_reset(struct kt_ws *ws);
/* the actor of the event with seq (the tool call an edit belongs to) */
const char *kt_imp_actor_of(kt_imp *imp, uint64_t seq);
/* whether the next emitted event will really be written */
int kt_imp_next_written(const kt_imp *imp);

/* ---- runname.c ---- */
#define KT_IMP_NAME_MAX 80 /* bytes of a run name */
/* 1 when data is valid UTF-8 without NUL (stored redacted under --redact). */
int kt_imp_is_text(const void *data, size_t len);
/* A malloc'ed copy of s that is valid UTF-8 on one line: invalid bytes
 * become U+FFFD, ASCII control characters a space.  NULL on ENOMEM. */
char *kt_imp_name_clean(const char *s);
/* Cut s in place to at most max bytes on a UTF-8 boundary, before the word
 * the cut falls in (when an earlier space allows), without trailing
 * spaces. */
void kt_imp_name_cut(char *s, size_t max);

#endif
