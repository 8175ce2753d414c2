/*
 * bundle.c - replay bundles (see replay.h for the layout).
 *
 * Why a bundle holds only what the trajectory showed: replay must say what it
 * could not reconstruct rather than silently pick up files from the host, so
 * the manifest lists every file the step's command names that the trajectory
 * never showed ("missing"), and the verdict cites it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "../base/archive_dl.h" /* libarchive, loaded when first used */

#include "replay_int.h"
#include "../import/import.h"

/* ---- step resolution ------------------------------------------------------ */

/* The command of a shell tool call: args.command / args.cmd (string or
 * argv array, as Codex records it).  NULL for any other tool: an editor's
 * args.command ("create", "view") or SWE-agent's "open f" is no shell
 * command, and running it would only fail (kt_tool_is_shell). */
static char *call_command(const cJSON *payload)
{
	const cJSON *args = cJSON_GetObjectItem(payload, "args");
	const cJSON *c = cJSON_GetObjectItem(args, "command");
	const cJSON *it;
	size_t n = 0;
	char *out;

	if (!kt_tool_is_shell(kt_json_str(payload, "tool"), args))
		return NULL;
	if (!c)
		c = cJSON_GetObjectItem(args, "cmd");
	if (cJSON_IsString(c))
		return strdup(c->valuestring);
	if (!cJSON_IsArray(c))
		return NULL;
	/* ["bash","-lc","make"] -> the script itself when it is a shell -c */
	if (cJSON_GetArraySize(c) == 3 &&
	    cJSON_IsString(cJSON_GetArrayItem(c, 1)) &&
	    strstr(cJSON_GetArrayItem(c, 1)->valuestring, "c") &&
	    cJSON_IsString(cJSON_GetArrayItem(c, 2)))
		return strdup(cJSON_GetArrayItem(c, 2)->valuestring);
	cJSON_ArrayForEach(it, c)
		if (cJSON_IsString(it))
			n += strlen(it->valuestring) + 3;
	out = malloc(n + 1);
	if (!out)
		return NULL;
	out[0] = 0;
	cJSON_ArrayForEach(it, c) {
		if (!cJSON_IsString(it))
			continue;
		if (*out)
			strcat(out, " ");
		strcat(out, "'");
		strcat(out, it->valuestring);
		strcat(out, "'");
	}
	return out;
}

static cJSON *load_payload(kt_store *s, const char *run, uint64_t seq,
			   int *kind, uint64_t *parent)
{
	kt_event ev;

	/* no KT_READ_HASH: a point read would rehash from a checkpoint */
	if (kt_event_read(s, run, seq, KT_READ_BODY, &ev))
		return NULL;
	*kind = ev.kind;
	*parent = ev.parent;
	return cJSON_ParseWithLength(ev.payload, ev.payload_len);
}

struct last_build {
	kt_store *s;
	const char *run;
	uint64_t before;
	uint64_t call;      /* tool call of the last successful compile */
};

static int find_build(const kt_event *ev, void *arg)
{
	struct last_build *b = arg;
	cJSON *p;

	if (ev->seq >= b->before)
		return 1;
	p = cJSON_ParseWithLength(ev->payload, ev->payload_len);
	if (cJSON_IsNumber(cJSON_GetObjectItem(p, "exit_code")) &&
	    cJSON_GetObjectItem(p, "exit_code")->valueint == 0 && ev->parent)
		b->call = ev->parent;
	cJSON_Delete(p);
	return 0;
}

/* The command of the last successful build before `before`, or NULL. */
static char *build_before(kt_store *s, const char *run, uint64_t before)
{
	struct last_build b = { s, run, before, 0 };
	uint64_t parent = 0;
	int kind = 0;
	cJSON *q;
	char *cmd = NULL;

	if (kt_event_foreach_body(s, run, 1, before, KT_KIND_COMPILE, find_build, &b) < 0 || !b.call)
		return NULL;
	q = load_payload(s, run, b.call, &kind, &parent);
	if (q && kind == KT_KIND_TOOL_CALL)
		cmd = call_command(q);
	cJSON_Delete(q);
	return cmd;
}

int kt_replay_target_load(kt_store *s, const char *run, uint64_t seq, kt_replay_target *st,
		 char *err, size_t errlen)
{
	kt_run_info ri;
	cJSON *p, *meta = NULL;
	uint64_t parent, cur;
	int kind, hops, rc;

	memset(st, 0, sizeof(*st));
	st->seq = seq;
	p = load_payload(s, run, seq, &kind, &parent);
	if (!p) {
		snprintf(err, errlen, "no event %llu in run %s", (unsigned long long)seq, run);
		return KT_ENOTFOUND;
	}
	st->kind = kind;
	st->payload = p;
	if (kind != KT_KIND_COMPILE && kind != KT_KIND_BENCH &&
	    kind != KT_KIND_TOOL_CALL && kind != KT_KIND_TOOL_RESULT) {
		const char *kn = kt_kind_name(kind) ? kt_kind_name(kind) : "unknown";

		snprintf(err, errlen, "step %llu is %s %s event; replay needs a compile, bench or shell tool call",
			 (unsigned long long)seq, strchr("aeiou", kn[0]) ? "an" : "a", kn);
		return KT_EINVAL;
	}
	if (kind == KT_KIND_BENCH && cJSON_GetObjectItem(p, "harness"))
		st->harness = 1;
	st->cwd = kt_xstrdup(kt_json_str(p, "cwd"));
	/* Walk up the causal links to the tool call that ran the command. */
	cur = seq;
	for (hops = 0; hops < 4 && kind != KT_KIND_TOOL_CALL && parent; hops++) {
		cJSON *q = load_payload(s, run, parent, &kind, &cur);

		if (!q)
			break;
		if (kind == KT_KIND_TOOL_CALL) {
			st->call = parent;
			st->command = call_command(q);
			if (!st->cwd)
				st->cwd = kt_xstrdup(kt_json_str(cJSON_GetObjectItem(q, "args"), "workdir"));
			if (!st->cwd)
				st->cwd = kt_xstrdup(kt_json_str(cJSON_GetObjectItem(q, "extra"), "cwd"));
		}
		cJSON_Delete(q);
		parent = cur;
	}
	if (st->kind == KT_KIND_TOOL_CALL) {
		st->call = seq;
		st->command = call_command(p);
		/* the directory the call ran in, as a parent call's above */
		if (!st->cwd)
			st->cwd = kt_xstrdup(kt_json_str(cJSON_GetObjectItem(p, "args"), "workdir"));
		if (!st->cwd)
			st->cwd = kt_xstrdup(kt_json_str(cJSON_GetObjectItem(p, "extra"), "cwd"));
	}
	if (!st->command && st->kind == KT_KIND_COMPILE)
		st->command = kt_xstrdup(kt_json_str(p, "command"));
	if (!st->command && !st->harness) {
		cJSON *q = st->call ? load_payload(s, run, st->call, &kind, &cur) : NULL;
		const char *tool = kt_json_str(q, "tool");

		if (tool)
			snprintf(err, errlen, "step %llu has no recorded shell command to re-run (its tool call %llu, %s, is not a shell command)",
				 (unsigned long long)seq, (unsigned long long)st->call, tool);
		else
			snprintf(err, errlen, "step %llu has no recorded shell command to re-run",
				 (unsigned long long)seq);
		cJSON_Delete(q);
		return KT_EINVAL;
	}
	if (st->kind == KT_KIND_BENCH && !st->harness) {
		st->build = build_before(s, run, st->call ? st->call : seq);
		/* a step that builds and runs in one command needs no prelude */
		if (st->build && st->command && strstr(st->command, st->build)) {
			free(st->build);
			st->build = NULL;
		}
	}
	rc = kt_run_get(s, run, &ri);
	if (!rc && ri.meta_json)
		meta = cJSON_Parse(ri.meta_json);
	if (!st->cwd)
		st->cwd = kt_xstrdup(kt_json_str(meta, "cwd"));
	/* The workspace root is the session's project directory when the
	 * step ran inside it, else the step's own directory. */
	if (kt_json_str(meta, "cwd") && st->cwd &&
	    !strncmp(st->cwd, kt_json_str(meta, "cwd"), strlen(kt_json_str(meta, "cwd"))))
		st->root = kt_xstrdup(kt_json_str(meta, "cwd"));
	else
		st->root = kt_xstrdup(st->cwd);
	/* The compile step of a `ktraj bench` run: the harness compiles the
	 * candidate again (--compile-only) from the bundle's sources. */
	if (kind == KT_KIND_COMPILE && kt_json_str(p, "source_hash") && kt_json_str(p, "role") &&
	    kt_json_str(meta, "task") && !cJSON_GetObjectItem(p, "harness")) {
		char cmdbuf[1024];
		cJSON *h = cJSON_AddObjectToObject(p, "harness");

		snprintf(cmdbuf, sizeof(cmdbuf),
			 "make -s -C harness NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc) B=$PWD/build/harness >&2 && "
			 "build/harness/ktraj-harness --task kernels/tasks/%s.json --kernel workspace/candidate.cu --compile-only",
			 kt_json_str(meta, "task"));
		cJSON_AddStringToObject(h, "task", kt_json_str(meta, "task"));
		cJSON_AddStringToObject(h, "bundle_command", cmdbuf);
		st->harness = 1;
	}
	cJSON_Delete(meta);
	/* Expected results: what the recording says happened. */
	st->expect = cJSON_CreateObject();
	if (st->kind == KT_KIND_COMPILE) {
		const cJSON *ec = cJSON_GetObjectItem(p, "exit_code");

		cJSON_AddItemToObject(st->expect, "exit_code",
				      ec ? cJSON_Duplicate(ec, 1) : cJSON_CreateNull());
	} else if (st->kind == KT_KIND_BENCH) {
		static const char *const keys[] = { "correct", "time_ms", "min_ms", "max_ms",
						    "n", "speedup", "ci_low", "ci_high", "scenario" };
		size_t i;

		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			const cJSON *v = cJSON_GetObjectItem(p, keys[i]);

			if (v)
				cJSON_AddItemToObject(st->expect, keys[i], cJSON_Duplicate(v, 1));
		}
	}
	return 0;
}

void kt_replay_target_release(kt_replay_target *st)
{
	free(st->command);
	free(st->build);
	free(st->cwd);
	free(st->root);
	cJSON_Delete(st->payload);
	cJSON_Delete(st->expect);
	memset(st, 0, sizeof(*st));
}

/* ---- host path rewriting -------------------------------------------------- */

char *kt_replay_unhost(const char *text, const char *root)
{
	struct kt_buf out = {0};
	size_t rl = root ? strlen(root) : 0;
	const char *p = text ? text : "";

	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	/* out of memory is sticky in out: kt_buf_take then gives NULL */
	while (*p) {
		if (rl > 1 && !strncmp(p, root, rl) && (p[rl] == '/' || !p[rl] ||
		    strchr(" \t\n;&|)'\"", p[rl]))) {
			kt_buf_putc(&out, '.');
			p += rl;
			continue;
		}
		if ((!strncmp(p, "/home/", 6) || !strncmp(p, "/Users/", 7))) {
			const char *u = p + (p[1] == 'h' ? 6 : 7);
			const char *e = u;

			while (*e && *e != '/' && !strchr(" \t\n;&|)'\"", *e))
				e++;
			if (e > u) {
				kt_buf_puts(&out, "$HOME");
				p = e;
				continue;
			}
		}
		kt_buf_putc(&out, *p);
		p++;
	}
	return kt_buf_take(&out);
}

/* ---- tar writing ------------------------------------------------------------ */

struct tw {
	struct archive *a;
	const char *dir;  /* writing a directory: the folder the bundle's
			     top folder goes into; NULL for a tar */
	int created;      /* the tar's path did not exist before: a failed
			     bundle removes only a file it made, never a
			     device, a link or a file that was there */
	char err[256];
};

static int tw_add(struct tw *t, const char *name, const void *data, size_t len,
		  int mode)
{
	struct archive_entry *e = archive_entry_new();
	char path[4096];
	int rc = 0;

	if (!e)
		return KT_ENOMEM;
	if (t->dir)
		snprintf(path, sizeof(path), "%s/%s/%s", t->dir,
			 KT_REPLAY_BUNDLE_DIR, name);
	else
		snprintf(path, sizeof(path), "%s/%s", KT_REPLAY_BUNDLE_DIR, name);
	archive_entry_set_pathname(e, path);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, mode);
	archive_entry_set_size(e, (la_int64_t)len);
	archive_entry_set_mtime(e, 0, 0); /* reproducible bundles */
	if (archive_write_header(t->a, e) != ARCHIVE_OK ||
	    (len && archive_write_data(t->a, data, len) != (la_ssize_t)len) ||
	    (t->dir && archive_write_finish_entry(t->a) != ARCHIVE_OK)) {
		snprintf(t->err, sizeof(t->err), "%s", archive_error_string(t->a));
		rc = KT_EIO;
	}
	archive_entry_free(e);
	return rc;
}

/* A path is safe inside the bundle when it is relative and has no "..". */
static int safe_rel(const char *p)
{
	const char *s = p;

	if (!*p || *p == '/')
		return 0;
	while (*s) {
		if (s[0] == '.' && s[1] == '.' && (s[2] == '/' || !s[2]) &&
		    (s == p || s[-1] == '/'))
			return 0;
		s++;
	}
	return 1;
}

/* Copy a directory tree of the ktraj sources (harness/, kernels/) into the
 * bundle: regular files only. */
static int add_tree(struct tw *t, const char *src, const char *dst)
{
	char cmd[8192];
	FILE *f;
	char line[4096];
	int rc = 0;

	/* find(1) keeps this short; names come from our own source tree. */
	snprintf(cmd, sizeof(cmd), "cd '%s' && find . -type f ! -path '*/build/*' ! -name '*.o' | LC_ALL=C sort", src);
	f = popen(cmd, "r");
	if (!f)
		return KT_EIO;
	while (!rc && fgets(line, sizeof(line), f)) {
		char full[8192], name[8192];
		size_t n = strlen(line);
		struct kt_buf data = {0};

		if (n && line[n - 1] == '\n')
			line[--n] = 0;
		if (n < 3)
			continue;
		snprintf(full, sizeof(full), "%s/%s", src, line + 2);
		snprintf(name, sizeof(name), "%s/%s", dst, line + 2);
		/* a file that cannot be read is left out, as find(1) may list
		 * one that is gone by now */
		if (!kt_buf_read_file(&data, full))
			rc = tw_add(t, name, data.p ? data.p : (const void *)"",
				    data.len, 0644);
		kt_buf_free(&data);
	}
	pclose(f);
	return rc;
}

/* Where the ktraj sources are: $KTRAJ_SRC, else two levels above the
 * running binary (build/ktraj -> .), else the current directory. */
static int find_src(char *out, size_t len)
{
	const char *env = getenv("KTRAJ_SRC");
	char exe[4096];
	ssize_t n;
	struct stat st;
	char probe[4200];

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;
		int up;

		exe[n] = 0;
		for (up = 0; up < 3; up++) {
			slash = strrchr(exe, '/');
			if (!slash)
				break;
			*slash = 0;
			/* the source tree, not build/harness (build output) */
			snprintf(probe, sizeof(probe), "%s/harness/Makefile", exe);
			if (!stat(probe, &st) && S_ISREG(st.st_mode) &&
			    snprintf(probe, sizeof(probe), "%s/kernels/tasks", exe) > 0 &&
			    !stat(probe, &st) && S_ISDIR(st.st_mode)) {
				snprintf(out, len, "%s", exe);
				return 0;
			}
		}
	}
	if (!stat("harness/Makefile", &st) && !stat("kernels/tasks", &st)) {
		snprintf(out, len, ".");
		return 0;
	}
	return KT_ENOTFOUND;
}

/* result.c: builds result.json from the captured output with libc alone. */
static const char result_c[] =
"/* result.c - writes the replay result JSON (ktraj bundle). */\n"
"#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
"#include <time.h>\n"
"/* JSON string of a file's first max bytes; bytes that are not valid\n"
" * UTF-8 become U+FFFD so the result is always valid JSON. */\n"
"static void str(FILE *o, const char *path, long max) {\n"
"  FILE *f = fopen(path, \"rb\"); unsigned char *b; long n = 0, i, k;\n"
"  fputc('\"', o);\n"
"  if (f && (b = malloc(max + 4))) {\n"
"    n = (long)fread(b, 1, max, f);\n"
"    for (i = 0; i < n; i++) { int c = b[i];\n"
"      if (c == '\"' || c == '\\\\') { fputc('\\\\', o); fputc(c, o); }\n"
"      else if (c == '\\n') fputs(\"\\\\n\", o);\n"
"      else if (c == '\\t') fputs(\"\\\\t\", o);\n"
"      else if (c < 0x20 || c == 0x7f) fprintf(o, \"\\\\u%04x\", c);\n"
"      else if (c < 0x80) fputc(c, o);\n"
"      else { int len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;\n"
"        for (k = 1; len && k < len; k++) if (i + k >= n || (b[i + k] & 0xc0) != 0x80) len = 0;\n"
"        if (!len) { fputs(\"\\\\ufffd\", o); continue; }\n"
"        fwrite(b + i, 1, len, o); i += len - 1; } }\n"
"    free(b); }\n"
"  if (f) fclose(f);\n"
"  fputc('\"', o);\n}\n"
"int main(int argc, char **argv) {\n"
"  /* argv: exit_code duration_ms bundle_dir */\n"
"  char p[4096]; FILE *m; int c;\n"
"  if (argc < 4) return 2;\n"
"  printf(\"{\\\"ktraj_replay\\\":1,\\\"exit_code\\\":%d,\\\"duration_ms\\\":%ld,\\\"finished\\\":%lld,\", atoi(argv[1]), atol(argv[2]), (long long)time(NULL));\n"
"  snprintf(p, sizeof p, \"%s/manifest.json\", argv[3]);\n"
"  printf(\"\\\"manifest\\\":\");\n"
"  if ((m = fopen(p, \"rb\"))) { while ((c = fgetc(m)) != EOF) putchar(c); fclose(m); } else printf(\"null\");\n"
"  printf(\",\\\"gpu\\\":\");\n"
"  snprintf(p, sizeof p, \"%s/gpu.txt\", argv[3]); str(stdout, p, 200);\n"
"  printf(\",\\\"stdout\\\":\");\n"
"  snprintf(p, sizeof p, \"%s/stdout.txt\", argv[3]); str(stdout, p, 1L << 20);\n"
"  printf(\",\\\"stderr\\\":\");\n"
"  snprintf(p, sizeof p, \"%s/stderr.txt\", argv[3]); str(stdout, p, 1L << 20);\n"
"  printf(\"}\\n\");\n"
"  return 0;\n}\n";

struct files {
	kt_store *s;
	const char *run;
	uint64_t seq;
	const char *root;
	size_t rootlen;
	struct tw *t;
	cJSON *list;     /* manifest "files": [{path, sha256}] */
	cJSON *incl;     /* ["dir/of/file", "header.h"] pairs of #include "..." */
	int rc;
	char (*paths)[4096];
	size_t n, cap;
};

static int collect_path(const char *path, void *arg)
{
	struct files *f = arg;

	if (KT_GROW(f->paths, f->cap, f->n + 1)) {
		f->rc = KT_ENOMEM;
		return 1;
	}
	snprintf(f->paths[f->n++], sizeof(f->paths[0]), "%s", path);
	return 0;
}

/* The workspace-relative name of a recorded path, or NULL outside it. */
static const char *rel_of(const struct files *f, const char *path)
{
	if (path[0] != '/')
		return safe_rel(path) ? path : NULL;
	if (!f->rootlen || strncmp(path, f->root, f->rootlen) ||
	    path[f->rootlen] != '/')
		return NULL;
	path += f->rootlen + 1;
	return safe_rel(path) ? path : NULL;
}

/* Remember the local headers (#include "x.h") a C/C++/CUDA source uses, so
 * the manifest can name those the trajectory never showed. */
static void scan_includes(struct files *f, const char *rel, const char *data,
			  size_t len)
{
	static const char *const exts[] = { ".cu", ".cuh", ".c", ".cc", ".cpp", ".h", ".hpp", NULL };
	const char *dot = strrchr(rel, '.'), *p = data, *end = data + len;
	int i, code = 0;

	for (i = 0; dot && exts[i]; i++)
		if (!strcmp(dot, exts[i]))
			code = 1;
	if (!code || !f->incl)
		return;
	while (p && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *q = p;
		const char *e = nl ? nl : end;

		while (q < e && (*q == ' ' || *q == '\t'))
			q++;
		if (e - q > 10 && !strncmp(q, "#include", 8)) {
			const char *a = memchr(q + 8, '"', (size_t)(e - q - 8)), *b;

			if (a && (b = memchr(a + 1, '"', (size_t)(e - a - 1))) && b - a > 1 && b - a < 512) {
				char dir[4096], name[512];
				const char *slash = strrchr(rel, '/');

				snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - rel) : 0, rel);
				snprintf(name, sizeof(name), "%.*s", (int)(b - a - 1), a + 1);
				cJSON_AddItemToArray(f->incl, cJSON_CreateString(dir));
				cJSON_AddItemToArray(f->incl, cJSON_CreateString(name));
			}
		}
		p = nl ? nl + 1 : NULL;
	}
}

static int known_file(const cJSON *files, const char *path)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, files)
		if (kt_json_str(it, "path") && !strcmp(kt_json_str(it, "path"), path))
			return 1;
	return 0;
}

/* Local headers the bundled sources include that the workspace lacks. */
static void missing_includes(const struct files *f, cJSON *missing)
{
	int i, n = cJSON_GetArraySize(f->incl);

	for (i = 0; i + 1 < n; i += 2) {
		const char *dir = cJSON_GetArrayItem(f->incl, i)->valuestring;
		const char *name = cJSON_GetArrayItem(f->incl, i + 1)->valuestring;
		char want[4700];

		if (!safe_rel(name))
			continue;
		snprintf(want, sizeof(want), "%s%s%s", dir, *dir ? "/" : "", name);
		if (known_file(f->list, want) || known_file(f->list, name) ||
		    known_file(missing, want))
			continue;
		{
			const cJSON *it;
			int dup = 0;

			cJSON_ArrayForEach(it, missing)
				if (cJSON_IsString(it) && !strcmp(it->valuestring, want))
					dup = 1;
			if (!dup)
				cJSON_AddItemToArray(missing, cJSON_CreateString(want));
		}
	}
}

static int add_workspace(struct files *f)
{
	size_t i;
	int rc;

	rc = kt_path_foreach(f->s, f->run, f->seq, collect_path, f);
	if (!rc)
		rc = f->rc;
	for (i = 0; !rc && i < f->n; i++) {
		unsigned char h[KT_HASH_LEN];
		char hex[KT_HASH_HEX + 1], name[4200];
		const char *rel = rel_of(f, f->paths[i]);
		void *data = NULL;
		size_t len = 0;
		int deleted = 0;
		cJSON *o;

		if (!rel)
			continue;
		if (kt_path_at(f->s, f->run, f->paths[i], f->seq, h, &deleted) || deleted)
			continue;
		if (kt_blob_get(f->s, h, &data, &len))
			continue;
		snprintf(name, sizeof(name), "workspace/%s", rel);
		rc = tw_add(f->t, name, data, len, 0644);
		scan_includes(f, rel, data, len);
		free(data);
		kt_hex(h, KT_HASH_LEN, hex);
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "path", rel);
		cJSON_AddStringToObject(o, "sha256", hex);
		cJSON_AddItemToArray(f->list, o);
	}
	return rc;
}

/* Files a command names (by extension or well-known build file names) that
 * the reconstructed workspace lacks. */
static void find_missing(const char *cmd, const cJSON *files, const char *subdir,
			 cJSON *missing)
{
	static const char *const exts[] = { ".cu", ".cuh", ".c", ".cc", ".cpp", ".h",
					    ".hpp", ".py", ".txt", ".json", NULL };
	char *copy = strdup(cmd ? cmd : ""), *tok, *save = NULL;

	if (!copy)
		return;
	for (tok = strtok_r(copy, " \t\n;&|()<>'\"=", &save); tok;
	     tok = strtok_r(NULL, " \t\n;&|()<>'\"=", &save)) {
		const char *dot = strrchr(tok, '.');
		const cJSON *it;
		char want[4200];
		int known = 0, i, code = 0;

		if (!strcmp(tok, "Makefile") || !strcmp(tok, "CMakeLists.txt"))
			code = 1;
		for (i = 0; dot && exts[i]; i++)
			if (!strcmp(dot, exts[i]))
				code = 1;
		if (!code || tok[0] == '-')
			continue;
		if (subdir && *subdir && tok[0] != '/')
			snprintf(want, sizeof(want), "%s/%s", subdir, tok);
		else
			snprintf(want, sizeof(want), "%s", tok);
		cJSON_ArrayForEach(it, files) {
			const char *p = kt_json_str(it, "path");
			size_t pl = p ? strlen(p) : 0, wl = strlen(want);

			if (p && (!strcmp(p, want) ||
				  (pl > wl && p[pl - wl - 1] == '/' && !strcmp(p + pl - wl, want))))
				known = 1;
		}
		if (!known) {
			char *u = kt_replay_unhost(tok, NULL);

			cJSON_AddItemToArray(missing, cJSON_CreateString(u ? u : tok));
			free(u);
		}
	}
	free(copy);
	/* make / cmake --build read a build file the command does not name */
	if (cmd && (!strncmp(cmd, "make", 4) || strstr(cmd, " make") ||
		    strstr(cmd, "&&make") || strstr(cmd, "cmake --build"))) {
		const char *bf = strstr(cmd, "cmake --build") ? "CMakeCache.txt" : "Makefile";
		char want[4200];
		const cJSON *it;
		int known = 0;

		snprintf(want, sizeof(want), "%s%s%s", subdir && *subdir ? subdir : "",
			 subdir && *subdir ? "/" : "", bf);
		cJSON_ArrayForEach(it, files)
			if (kt_json_str(it, "path") && !strcmp(kt_json_str(it, "path"), want))
				known = 1;
		if (!known)
			cJSON_AddItemToArray(missing, cJSON_CreateString(want));
	}
}

/* Absolute paths the command names outside the bundle: the compiler and
 * the include and library directories of the recording machine (a
 * FlashInfer torch build: CUDA, torch and Python headers).  A replay needs
 * them at the same place; the manifest says so instead of leaving it to a
 * failed run to tell. */
static void find_external(const char *cmd, cJSON *ext)
{
	char *copy = strdup(cmd ? cmd : ""), *tok, *save = NULL;

	if (!copy)
		return;
	for (tok = strtok_r(copy, " \t\n;&|()<>'\"=", &save); tok;
	     tok = strtok_r(NULL, " \t\n;&|()<>'\"=", &save)) {
		const char *p = tok;
		const cJSON *it;
		int dup = 0;

		if (!strncmp(p, "-I", 2) || !strncmp(p, "-L", 2))
			p += 2;
		if (p[0] != '/' && strncmp(p, "$HOME/", 6))
			continue;
		if (!strncmp(p, "/dev/", 5) || !strcmp(p, "/dev") ||
		    !strncmp(p, "/tmp/", 5) || !strcmp(p, "/"))
			continue;
		cJSON_ArrayForEach(it, ext)
			if (!strcmp(it->valuestring, p))
				dup = 1;
		if (!dup)
			cJSON_AddItemToArray(ext, cJSON_CreateString(p));
	}
	free(copy);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	/* suffixes in any case, as x.TAR.ZST and x.TGZ are named by hand */
	return n >= k && !strcasecmp(s + n - k, suffix);
}

/* What out_path names: a directory (ends in '/' or exists as one: the
 * bundle's top folder is written into it, links and ".." refused as when
 * a tar is unpacked), else a pax tar compressed as its name says - gzip
 * by default (".tar.gz", ".tgz", any other name), zstd for ".tar.zst" or
 * ".tzst", none for ".tar".  gzip because `tar -xzf` unpacks it on any
 * machine; a zstd tar needs the zstd program, which many images lack. */
static int bundle_open(struct tw *t, const char *out_path, char *err,
		       size_t errlen)
{
	struct stat st;
	int r;

	if (ends_with(out_path, "/") ||
	    (!stat(out_path, &st) && S_ISDIR(st.st_mode))) {
		if (mkdir(out_path, 0755) && errno != EEXIST) {
			snprintf(err, errlen, "%s: %s", out_path, strerror(errno));
			return KT_EIO;
		}
		t->a = archive_write_disk_new();
		if (!t->a)
			return kt_archive_fail(err, errlen);
		t->dir = out_path;
		archive_write_disk_set_options(t->a, ARCHIVE_EXTRACT_PERM |
					       ARCHIVE_EXTRACT_SECURE_NODOTDOT |
					       ARCHIVE_EXTRACT_SECURE_SYMLINKS);
		return 0;
	}
	t->a = archive_write_new();
	if (!t->a)
		return kt_archive_fail(err, errlen);
	if (ends_with(out_path, ".tar.zst") || ends_with(out_path, ".tzst"))
		r = archive_write_add_filter_zstd(t->a);
	else if (ends_with(out_path, ".tar"))
		r = archive_write_add_filter_none(t->a);
	else if ((r = archive_write_add_filter_gzip(t->a)) == ARCHIVE_OK)
		/* no time in the gzip header: the same step, the same bytes */
		r = archive_write_set_filter_option(t->a, "gzip", "timestamp", NULL);
	t->created = lstat(out_path, &st) != 0 && errno == ENOENT;
	if (r != ARCHIVE_OK ||
	    archive_write_set_format_pax_restricted(t->a) != ARCHIVE_OK ||
	    archive_write_open_filename(t->a, out_path) != ARCHIVE_OK) {
		snprintf(err, errlen, "%s: %s", out_path, archive_error_string(t->a));
		return KT_EIO;
	}
	return 0;
}

int kt_replay_bundle_write(kt_store *s, const char *run, uint64_t seq,
		     const char *out_path, char *err, size_t errlen)
{
	struct tw t = { 0 };
	struct files f = { 0 };
	kt_replay_target st;
	cJSON *man = NULL, *missing;
	char *mtext = NULL, *cmd = NULL, *script = NULL, *sub = NULL;
	char src[4096];
	const char *subdir = "";
	size_t sl;
	int rc;

	rc = kt_replay_target_load(s, run, seq, &st, err, errlen);
	if (rc)
		goto out;
	rc = bundle_open(&t, out_path, err, errlen);
	if (rc)
		goto out;
	man = cJSON_CreateObject();
	cJSON_AddStringToObject(man, "ktraj_bundle", "1");
	cJSON_AddStringToObject(man, "run", run);
	cJSON_AddNumberToObject(man, "seq", (double)seq);
	cJSON_AddStringToObject(man, "kind", kt_kind_name(st.kind));
	if (st.call)
		cJSON_AddNumberToObject(man, "tool_call", (double)st.call);
	/* workspace */
	f.s = s;
	f.run = run;
	f.seq = seq;
	f.root = st.root ? st.root : "";
	f.rootlen = strlen(f.root);
	while (f.rootlen > 1 && f.root[f.rootlen - 1] == '/')
		f.rootlen--;
	f.t = &t;
	f.list = cJSON_AddArrayToObject(man, "files");
	f.incl = cJSON_CreateArray();
	rc = add_workspace(&f);
	if (rc) {
		snprintf(err, errlen, "workspace at step %llu: %s",
			 (unsigned long long)seq, t.err[0] ? t.err : kt_strerror(rc));
		goto out;
	}
	/* the step's directory inside the workspace */
	if (st.cwd && st.root && (sl = strlen(st.root)) &&
	    !strncmp(st.cwd, st.root, sl) && st.cwd[sl] == '/' && safe_rel(st.cwd + sl + 1) &&
	    !strchr(st.cwd, '\n')) /* workdir holds one line */
		subdir = st.cwd + sl + 1;
	cJSON_AddStringToObject(man, "cwd", subdir);
	cmd = kt_replay_unhost(st.command ? st.command : "", st.root);
	if (!cmd) {
		rc = KT_ENOMEM;
		goto out;
	}
	cJSON_AddStringToObject(man, "command", cmd);
	if (st.build) {
		char *b = kt_replay_unhost(st.build, st.root), *both = NULL;

		if (!b || asprintf(&both, "# build (the last successful build before the step)\n%s || exit $?\n# the step\n%s\n", b, cmd) < 0) {
			free(b);
			rc = KT_ENOMEM;
			goto out;
		}
		cJSON_AddStringToObject(man, "build_command", b);
		free(b);
		free(cmd);
		cmd = both;
	}
	missing = cJSON_AddArrayToObject(man, "missing");
	find_missing(cmd, f.list, subdir, missing);
	missing_includes(&f, missing);
	find_external(cmd, cJSON_AddArrayToObject(man, "external"));
	cJSON_AddItemToObject(man, "expect", cJSON_Duplicate(st.expect, 1));
	{
		const cJSON *fp = cJSON_GetObjectItem(st.payload, "fingerprint");
		const cJSON *tol = cJSON_GetObjectItem(st.payload, "tolerances");
		static const char *const tc[] = { "compiler", "version", "flags", "arch", NULL };
		cJSON *tool = cJSON_AddObjectToObject(man, "toolchain");
		int i;

		cJSON_AddItemToObject(man, "fingerprint", fp ? cJSON_Duplicate(fp, 1) : cJSON_CreateNull());
		if (tol)
			cJSON_AddItemToObject(man, "tolerances", cJSON_Duplicate(tol, 1));
		for (i = 0; tc[i]; i++) {
			const cJSON *v = cJSON_GetObjectItem(st.payload, tc[i]);

			if (v)
				cJSON_AddItemToObject(tool, tc[i], cJSON_Duplicate(v, 1));
		}
	}
	cJSON_AddNumberToObject(man, "noise_band", 0.05);
	if (st.harness) {
		const cJSON *h = cJSON_GetObjectItem(st.payload, "harness");

		if (find_src(src, sizeof(src))) {
			snprintf(err, errlen, "harness step: ktraj sources (harness/, kernels/) not found; set KTRAJ_SRC");
			rc = KT_ENOTFOUND;
			goto out;
		}
		{
			char d[4200];

			snprintf(d, sizeof(d), "%s/harness", src);
			if ((rc = add_tree(&t, d, "harness")))
				goto out;
			snprintf(d, sizeof(d), "%s/kernels", src);
			if ((rc = add_tree(&t, d, "kernels")))
				goto out;
		}
		cJSON_AddItemToObject(man, "harness", cJSON_Duplicate(h, 1));
		/* A harness step's command is derived from its recorded
		 * invocation (relative paths inside the bundle). */
		if (cJSON_IsString(cJSON_GetObjectItem(h, "bundle_command"))) {
			free(cmd);
			cmd = strdup(cJSON_GetObjectItem(h, "bundle_command")->valuestring);
			cJSON_ReplaceItemInObject(man, "command", cJSON_CreateString(cmd ? cmd : ""));
		}
		/* what the bundled harness command needs is the candidate
		 * alone: the recorded command's files do not count */
		cJSON_ReplaceItemInObject(man, "missing", cJSON_CreateArray());
		/* the candidate source, when the trajectory kept it */
		{
			const char *cb = kt_json_str(st.payload, "candidate_blob");
			unsigned char h2[KT_HASH_LEN];
			void *data;
			size_t len;

			if (!cb)
				cb = kt_json_str(st.payload, "source_hash");
			if (cb && !kt_unhex(cb, h2, KT_HASH_LEN) && !kt_blob_get(s, h2, &data, &len)) {
				rc = tw_add(&t, "workspace/candidate.cu", data, len, 0644);
				free(data);
				if (rc)
					goto out;
			} else if (cb && kt_json_str(st.payload, "source") && safe_rel(kt_json_str(st.payload, "source"))) {
				/* a sample kernel of the source tree, when it is still
				 * the very file that was compiled */
				char path[4600];
				size_t n = 0;
				unsigned char h3[KT_HASH_LEN];
				char hex[KT_HASH_HEX + 1];
				char *buf = NULL;
				FILE *in;

				snprintf(path, sizeof(path), "%s/%s", src, kt_json_str(st.payload, "source"));
				if ((in = fopen(path, "rb"))) {
					size_t cap = 1 << 20;

					buf = malloc(cap);
					if (buf)
						n = fread(buf, 1, cap, in);
					fclose(in);
				}
				if (!buf)
					cJSON_AddItemToArray(cJSON_GetObjectItem(man, "missing"),
							     cJSON_CreateString("workspace/candidate.cu"));
				if (buf) {
					kt_sha256(buf, n, h3);
					kt_hex(h3, KT_HASH_LEN, hex);
					if (!strcmp(hex, cb))
						rc = tw_add(&t, "workspace/candidate.cu", buf, n, 0644);
					else
						cJSON_AddItemToArray(cJSON_GetObjectItem(man, "missing"),
								     cJSON_CreateString("workspace/candidate.cu"));
					free(buf);
					if (rc)
						goto out;
				}
			}
		}
	}
	mtext = cJSON_Print(man);
	if (!mtext) {
		rc = KT_ENOMEM;
		goto out;
	}
	/* No host path may leave the machine in the manifest. */
	{
		char *clean = kt_replay_unhost(mtext, st.root);

		free(mtext);
		mtext = clean;
		if (!mtext) {
			rc = KT_ENOMEM;
			goto out;
		}
	}
	if ((rc = tw_add(&t, "manifest.json", mtext, strlen(mtext), 0644)) ||
	    (rc = tw_add(&t, "command.sh", cmd, strlen(cmd), 0755)) ||
	    (rc = tw_add(&t, "result.c", result_c, sizeof(result_c) - 1, 0644)))
		goto out;
	sub = kt_replay_unhost(subdir, NULL);
	{
		/* Harness steps run from the bundle root (their recorded
		 * bundle_command names harness/, kernels/, workspace/); with
		 * KTRAJ_CACHE set (ktraj replay --all-bench) the built harness
		 * and compiled candidates are reused across bundles. */
		const char *pre = "", *post = "";
		char cd[4300];

		if (st.harness) {
			snprintf(cd, sizeof(cd), "cd \"$B\" || exit 1\n");
			pre = "if [ -n \"${KTRAJ_CACHE:-}\" ]; then\n"
			      "\texport KTRAJ_HARNESS_CACHE=\"$KTRAJ_CACHE/objects\"\n"
			      "\t[ -d \"$KTRAJ_CACHE/harness-build\" ] && mkdir -p build && cp -r \"$KTRAJ_CACHE/harness-build\" build/harness\n"
			      "fi\n";
			post = "[ -n \"${KTRAJ_CACHE:-}\" ] && [ -x build/harness/ktraj-harness ] && [ ! -d \"$KTRAJ_CACHE/harness-build\" ] &&\n"
			       "\tcp -r build/harness \"$KTRAJ_CACHE/harness-build\"\n";
		} else {
			/* the step's directory is data (the file workdir), read
			 * into a variable and used quoted: a recorded cwd such
			 * as x$(...) or x"; rm ... names a folder, never runs */
			char wd[4200];

			snprintf(cd, sizeof(cd),
				 "W=\nIFS= read -r W <\"$B/workdir\"\n"
				 "mkdir -p -- \"$B/workspace/$W\" && cd -- \"$B/workspace/$W\" || exit 1\n");
			snprintf(wd, sizeof(wd), "%s\n", sub ? sub : "");
			if ((rc = tw_add(&t, "workdir", wd, strlen(wd), 0644)))
				goto out;
		}
		if (asprintf(&script,
			     "#!/bin/sh\n"
			     "# ktraj replay bundle: run %s step %llu (%s).\n"
			     "# NO ISOLATION: this script runs the recorded commands (command.sh)\n"
			     "# as you, with your files, network and processes in reach; it applies\n"
			     "# no sandbox.  Read command.sh first, or use `ktraj replay`.\n"
			     "# Recorded values (the step's directory: workdir) are read as data,\n"
			     "# never run as shell text.\n"
			     "# Needs sh, a C compiler and, for CUDA steps, the CUDA Toolkit.\n"
			     "# Writes result.json next to this script; `ktraj import result.json`\n"
			     "# records it as a replay event on the original step.\n"
			     "set -u\n"
			     "B=$(cd \"$(dirname \"$0\")\" && pwd)\n"
			     "CC=${CC:-cc}\n"
			     "$CC -O1 -o \"$B/.result\" \"$B/result.c\" || { echo 'ktraj bundle: no C compiler' >&2; exit 1; }\n"
			     "%s%s"
			     "SH=sh; command -v bash >/dev/null 2>&1 && SH=bash\n"
			     "{ nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '\\n'; } >\"$B/gpu.txt\"\n"
			     "t0=$(date +%%s%%N)\n"
			     "$SH \"$B/command.sh\" >\"$B/stdout.txt\" 2>\"$B/stderr.txt\" </dev/null\n"
			     "rc=$?\n"
			     "t1=$(date +%%s%%N)\n"
			     "%s"
			     "\"$B/.result\" \"$rc\" \"$(( (t1 - t0) / 1000000 ))\" \"$B\" >\"$B/result.json\"\n"
			     "exit 0\n",
			     run, (unsigned long long)seq, kt_kind_name(st.kind),
			     cd, pre, post) < 0) {
			script = NULL;
			rc = KT_ENOMEM;
			goto out;
		}
	}
	if ((rc = tw_add(&t, "run.sh", script, strlen(script), 0755)))
		goto out;
	if (archive_write_close(t.a) != ARCHIVE_OK) {
		snprintf(err, errlen, "%s: %s", out_path, archive_error_string(t.a));
		rc = KT_EIO;
	}
out:
	if (rc && err && !*err)
		snprintf(err, errlen, "%s", t.err[0] ? t.err : kt_strerror(rc));
	if (t.a)
		archive_write_free(t.a);
	if (rc && t.a && !t.dir && t.created)
		unlink(out_path);
	free(f.paths);
	cJSON_Delete(f.incl);
	free(mtext);
	free(cmd);
	free(sub);
	free(script);
	cJSON_Delete(man);
	kt_replay_target_release(&st);
	return rc;
}
