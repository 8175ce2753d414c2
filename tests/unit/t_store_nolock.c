/*
 * t_store_nolock.c - a reader that cannot take the store's lock (another
 * user's store: the lock file is not writable, kt_store_open falls back to
 * MDB_NOLOCK) never reports damage that is not there (issue 16).  Without
 * the lock no reader table tells a writer which pages a reader still
 * uses, so a concurrent commit can rewrite what the reader is reading;
 * here a byte changed by another process after the reader opened stands
 * for that rewrite, deterministically.  The reader must say KT_ECHANGED
 * (the CLI: "the store changed during the read", exit 1), and the same
 * damage made before it opened stays KT_ECORRUPT (exit 3).
 *
 * The reader runs as user nobody in a child process, so the test needs
 * root (CI runs as root); it is skipped otherwise.
 */
#include "testutil.h"
#include "tu_lmdb.h"
#include <sys/wait.h>
#include "../../store/store.h"

#define NOBODY 65534

struct fx {
	char *dir;
	char path[4200];
	char a[KT_RUN_ID_HEX + 1];
	unsigned char bin[16];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	kt_store *s;

	assert_non_null(f);
	s = tu_store_new(&f->dir, f->path, sizeof(f->path), "s.ktraj", 0);
	assert_int_equal(chmod(f->dir, 0755), 0);
	kt_run_id_from_identity("test:alpha", f->a);
	assert_int_equal(kt_unhex(f->a, f->bin, 16), 0);
	assert_int_equal(kt_store_begin(s), 0);
	assert_int_equal(kt_run_create(s, f->a, "alpha", "test",
				       "{\"mark\":\"META-alpha\"}"), 0);
	assert_int_equal(kt_store_commit(s), 0);
	assert_int_equal(kt_store_close(s), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	tu_store_gone(NULL, f->dir);
	free(f);
	return 0;
}

/* As nobody: open the store (without its lock), tell the parent, wait for
 * its go, verify.  The exit status is 10 + the verify code's negation (10:
 * ok), 1 when the open failed, 2 when it could not become nobody. */
static int reader(const char *path, int ready, int go)
{
	kt_store *s;
	const char *bad_run = NULL;
	uint64_t bad_seq = 0;
	char c = 0;
	int rc;

	if (setgid(NOBODY) || setuid(NOBODY))
		return 2;
	if (kt_store_open(path, 0, &s))
		return 1;
	if (write(ready, "r", 1) != 1 || read(go, &c, 1) != 1)
		return 3;
	rc = kt_store_verify(s, NULL, &bad_run, &bad_seq);
	kt_store_close(s);
	return 10 - rc;
}

/* Fork the reader; flip the run record's byte before it opens (before=1)
 * or after (0); return the reader's verify code. */
static int read_around_flip(struct fx *f, int before)
{
	int up[2], down[2], status;
	pid_t pid;
	char c;

	if (before)
		tu_flip_value(f->path, "runs", f->bin, 16, 30, 0x01);
	assert_int_equal(pipe(up), 0);
	assert_int_equal(pipe(down), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		_exit(reader(f->path, up[1], down[0]));
	}
	close(up[1]);
	close(down[0]);
	assert_int_equal(read(up[0], &c, 1), 1); /* the reader has opened */
	if (!before)
		tu_flip_value(f->path, "runs", f->bin, 16, 30, 0x01);
	assert_int_equal(write(down[1], "g", 1), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(up[0]);
	close(down[1]);
	assert_true(WIFEXITED(status));
	assert_true(WEXITSTATUS(status) >= 10);
	return 10 - WEXITSTATUS(status);
}

static void t_changed_while_reading(void **state)
{
	if (geteuid() != 0)
		skip();
	assert_int_equal(read_around_flip(*state, 0), KT_ECHANGED);
}

static void t_damaged_before_reading(void **state)
{
	if (geteuid() != 0)
		skip();
	assert_int_equal(read_around_flip(*state, 1), KT_ECORRUPT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_changed_while_reading, setup, teardown),
		cmocka_unit_test_setup_teardown(t_damaged_before_reading, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
