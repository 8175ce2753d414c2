/* cmd_diff.c - `ktraj diff RUN A B [PATH]`: the workspace between steps. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "outfmt.h"
#include "../export/export.h"
#include "wsutil.h"

static const char usage[] =
	"usage: ktraj diff RUN SEQ_A SEQ_B [PATH] [-U N] [--json] [--raw]\n"
	"\n"
	"Unified diff (diff -u, git style a/ b/ labels) of the workspace of RUN\n"
	"between the state after step SEQ_A and after step SEQ_B: every file\n"
	"that changed, or only PATH (as stored or a unique suffix).  Created\n"
	"and deleted files diff against /dev/null.  -U N sets the lines of\n"
	"context (3).  Prints nothing when nothing changed.\n"
	"--json  one object per changed file: path, from_seq, to_seq (SEQ_A,\n"
	"        SEQ_B), op (create, modify, delete; unknown with \"unknown\":\n"
	"        \"from\"|\"to\" when a side's content is not in the\n"
	"        trajectory, e.g. after sed -i), before and after (blob\n"
	"        SHA-256 hex, null when absent), binary (a side is not UTF-8\n"
	"        text), and diff (the unified diff text; null when binary)\n"
	"--raw   the diff as stored also on a terminal: there, without it,\n"
	"        control characters print visibly (ESC as ^[)\n";

struct paths {
	char **p;
	size_t n, cap;
};

static int add_path(const char *path, void *arg)
{
	struct paths *ps = arg;

	if (KT_GROW(ps->p, ps->cap, ps->n + 1))
		return KT_ENOMEM;
	if (!(ps->p[ps->n] = strdup(path)))
		return KT_ENOMEM;
	ps->n++;
	return 0;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* 0 absent, 1 present (hash set), 2 content unknown, <0 error */
static int state(kt_store *s, const char *run, const char *path, uint64_t at,
		 unsigned char h[KT_HASH_LEN])
{
	int deleted, rc = kt_path_at(s, run, path, at, h, &deleted);

	if (rc == KT_ENOTFOUND)
		return 0;
	if (rc || !deleted)
		return rc ? rc : 1;
	rc = cli_ws_unknown(s, run, path, at, NULL);
	return rc < 0 ? rc : rc ? 2 : 0;
}

/* One changed file as the --json object.  `unknown` ("from", "to" or
 * NULL): the side whose content the trajectory does not show; then op is
 * "unknown", that side's hash null and diff null. */
static int put_json(struct cli *c, const char *path, uint64_t a, uint64_t b,
		    const unsigned char *ha, const unsigned char *hb,
		    const void *da, size_t la, const void *db, size_t lb,
		    const char *lab_a, const char *lab_b, int binary, int ctx,
		    const char *unknown)
{
	char hex[KT_HASH_HEX + 1], *text = NULL;
	size_t tlen = 0;
	cJSON *o = cJSON_CreateObject();
	FILE *m = NULL;
	int rc = 0;

	if (!o)
		goto oom;
	cJSON_AddStringToObject(o, "path", path);
	cJSON_AddNumberToObject(o, "from_seq", (double)a);
	cJSON_AddNumberToObject(o, "to_seq", (double)b);
	cJSON_AddStringToObject(o, "op", unknown ? "unknown" : !ha ? "create" :
				!hb ? "delete" : "modify");
	if (unknown)
		cJSON_AddStringToObject(o, "unknown", unknown);
	if (ha) {
		kt_hex(ha, KT_HASH_LEN, hex);
		cJSON_AddStringToObject(o, "before", hex);
	} else {
		cJSON_AddNullToObject(o, "before");
	}
	if (hb) {
		kt_hex(hb, KT_HASH_LEN, hex);
		cJSON_AddStringToObject(o, "after", hex);
	} else {
		cJSON_AddNullToObject(o, "after");
	}
	cJSON_AddBoolToObject(o, "binary", binary);
	if (binary || unknown) {
		cJSON_AddNullToObject(o, "diff");
	} else {
		m = open_memstream(&text, &tlen);
		if (!m || kt_export_udiff(da, la, db, lb, lab_a, lab_b, ctx, m) < 0 ||
		    fclose(m))
			goto oom;
		m = NULL;
		if (!cJSON_AddStringToObject(o, "diff", text))
			goto oom;
	}
	rc = cli_put_json(o);
	o = NULL;
	if (rc == KT_EIO)
		rc = cli_err(c, "write error");
	else if (rc)
		goto oom;
	goto out;
oom:
	rc = cli_err(c, "out of memory");
out:
	if (m)
		fclose(m);
	free(text);
	cJSON_Delete(o);
	return rc;
}

static int diff_path(struct cli *c, kt_store *s, const char *run,
		     const char *path, uint64_t a, uint64_t b, int ctx,
		     int json, int safe)
{
	unsigned char ha[KT_HASH_LEN], hb[KT_HASH_LEN];
	void *da = NULL, *db = NULL;
	size_t la = 0, lb = 0, pl = strlen(path);
	char *lab_a = malloc(pl + 3), *lab_b = malloc(pl + 3);
	const char *rel = path + (path[0] == '/');
	int sa, sb, rc = 0;

	sa = state(s, run, path, a, ha);
	sb = state(s, run, path, b, hb);
	if (sa < 0 || sb < 0) {
		rc = cli_store_err(c, s, sa < 0 ? sa : sb, path);
		goto out;
	}
	if (sa == sb && (!sa || sa == 2 || !memcmp(ha, hb, KT_HASH_LEN)))
		goto out;
	if (sa == 2 || sb == 2) {
		/* no diff against content nobody saw */
		if (json)
			rc = put_json(c, path, a, b, sa == 1 ? ha : NULL,
				      sb == 1 ? hb : NULL, NULL, 0, NULL, 0,
				      NULL, NULL, 0, ctx,
				      sa == 2 ? "from" : "to");
		else
			printf("Content of %s unknown at step %llu (changed in a way the trajectory does not show)\n",
			       path, (unsigned long long)(sa == 2 ? a : b));
		goto out;
	}
	if (!lab_a || !lab_b) {
		rc = cli_err(c, "out of memory");
		goto out;
	}
	sprintf(lab_a, "a/%s", rel);
	sprintf(lab_b, "b/%s", rel);
	if ((sa && (rc = cli_blob_named(s, ha, &da, &la))) ||
	    (sb && (rc = cli_blob_named(s, hb, &db, &lb)))) {
		rc = cli_store_err(c, s, rc, path);
		goto out;
	}
	if (json) {
		rc = put_json(c, path, a, b, sa ? ha : NULL, sb ? hb : NULL,
			      da, la, db, lb, sa ? lab_a : "/dev/null",
			      sb ? lab_b : "/dev/null",
			      (da && !kt_is_text(da, la)) ||
			      (db && !kt_is_text(db, lb)), ctx, NULL);
		goto out;
	}
	if ((da && memchr(da, 0, la)) || (db && memchr(db, 0, lb))) {
		printf("Binary files %s and %s differ\n",
		       sa ? lab_a : "/dev/null", sb ? lab_b : "/dev/null");
		goto out;
	}
	if (safe) {
		/* the diff is trajectory text: on a terminal its controls
		 * print visibly (cli_put_safe) */
		char *t = NULL;
		size_t tl = 0;
		FILE *m = open_memstream(&t, &tl);
		int r = m ? kt_export_udiff(da, la, db, lb, sa ? lab_a : "/dev/null",
				     sb ? lab_b : "/dev/null", ctx, m) : -1;

		if (m && fclose(m))
			r = -1;
		if (r < 0)
			rc = cli_err(c, "out of memory");
		else
			cli_put_safe(stdout, t, tl);
		free(t);
	} else if (kt_export_udiff(da, la, db, lb, sa ? lab_a : "/dev/null",
			    sb ? lab_b : "/dev/null", ctx, stdout) < 0) {
		rc = cli_err(c, "out of memory");
	}
out:
	free(da);
	free(db);
	free(lab_a);
	free(lab_b);
	return rc;
}

int cmd_diff(struct cli *c, int argc, char **argv)
{
	const char *pos[4] = { 0 };
	char run[KT_RUN_ID_HEX + 1], *stored = NULL;
	struct paths ps = { 0 };
	uint64_t a, b;
	kt_store *s = NULL;
	int i, np = 0, rc, ctx = 3, json = 0, raw = 0, safe;
	size_t k;

	if (cli_wants_help(argc, argv, usage))
		return KT_EXIT_OK;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-U") && cli_has_value(argc, argv, i)) {
			uint64_t u;

			if (cli_u64(argv[++i], &u) || u > 100000)
				return cli_usage(c, "-U needs a number of lines");
			ctx = (int)u;
		} else if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--raw")) {
			raw = 1;
		} else if (argv[i][0] == '-' && argv[i][1] && !cli_negnum(argv[i])) {
			return cli_bad_option(c, usage, argv[i]);
		} else if (np < 4) {
			pos[np++] = argv[i];
		} else {
			return cli_usage(c, "unexpected argument '%s'", argv[i]);
		}
	}
	if (np < 3)
		return cli_usage(c, "needs RUN SEQ_A SEQ_B [PATH]");
	safe = !json && !raw && isatty(STDOUT_FILENO);
	if ((rc = cli_open_run(c, pos[0], &s, run)) ||
	    (rc = cli_seq(c, s, run, pos[1], &a)) ||
	    (rc = cli_seq(c, s, run, pos[2], &b)))
		goto out;
	if (pos[3]) {
		if ((rc = cli_path_resolve(c, s, run, pos[3], a, b, &stored)))
			goto out;
		rc = diff_path(c, s, run, stored, a, b, ctx, json, safe);
		goto out;
	}
	/* files that exist at either step (one deleted in between exists
	 * only at the earlier one) */
	rc = kt_path_foreach(s, run, a, add_path, &ps);
	if (!rc && a != b)
		rc = kt_path_foreach(s, run, b, add_path, &ps);
	if (rc) {
		rc = cli_store_err(c, s, rc, "listing paths");
		goto out;
	}
	if (ps.n) /* qsort(NULL, 0) is undefined (UBSan) */
		qsort(ps.p, ps.n, sizeof(*ps.p), cmp_str);
	for (k = 0; k < ps.n && !rc; k++)
		if (k == 0 || strcmp(ps.p[k], ps.p[k - 1]))
			rc = diff_path(c, s, run, ps.p[k], a, b, ctx, json,
				       safe);
out:
	for (k = 0; k < ps.n; k++)
		free(ps.p[k]);
	free(ps.p);
	free(stored);
	kt_store_close(s);
	return rc;
}
