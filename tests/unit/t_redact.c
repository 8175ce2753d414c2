/* t_redact.c - redaction: every class of value, stable placeholders, JSON
 * trees, and the corpus session that must lose its e-mail and user name. */
#include "testutil.h"
#include "../../import/import.h"

static char *red(kt_redactor *r, const char *s)
{
	size_t n = 0;
	char *o = kt_redact_text(r, s, strlen(s), &n);

	assert_non_null(o);
	assert_int_equal(n, strlen(o));
	return o;
}

/* redact s with a fresh redactor and compare */
static void expect(const char *s, const char *want)
{
	kt_redactor *r = kt_redactor_new();
	char *o;

	assert_non_null(r);
	o = red(r, s);
	if (strcmp(o, want))
		fail_msg("redact(%s)\n  got  %s\n  want %s", s, o, want);
	free(o);
	kt_redactor_free(r);
}

static void t_email(void **st)
{
	(void)st;
	expect("mail royce.birnbaum@gmail.com now", "mail <email-1> now");
	expect("a@x.org and b@y.co.uk, again a@x.org",
	       "<email-1> and <email-2>, again <email-1>");
	expect("git config user.email \"me+tag@corp.example.net\"",
	       "git config user.email \"<email-1>\"");
	/* not e-mails: decorators, npm versions, ssh git remotes */
	expect("@property def x(self): pass", "@property def x(self): pass");
	expect("npm i react@18.2.0", "npm i react@18.2.0");
	expect("git clone git@github.com:org/repo.git",
	       "git clone git@github.com:org/repo.git");
}

static void t_home_users(void **st)
{
	kt_redactor *r = kt_redactor_new();
	char *o;

	(void)st;
	o = red(r, "cd /home/kenth56/vsla && ls");
	assert_string_equal(o, "cd /home/<user-1>/vsla && ls");
	free(o);
	/* learned: the bare name later, in ls -l output and project dirs */
	o = red(r, "-rw-r--r-- 1 kenth56 kenth56 9245 x; -home-kenth56-vsla");
	assert_string_equal(o,
		"-rw-r--r-- 1 <user-1> <user-1> 9245 x; -home-<user-1>-vsla");
	free(o);
	/* a name that is part of a longer word is left alone */
	o = red(r, "kenth56x xkenth56");
	assert_string_equal(o, "kenth56x xkenth56");
	free(o);
	o = red(r, "/Users/alice/code and C:\\Users\\bob\\x and C:/Users/bob/y");
	assert_string_equal(o, "/Users/<user-2>/code and C:\\Users\\<user-3>\\x"
			    " and C:/Users/<user-3>/y");
	free(o);
	kt_redactor_free(r);
	/* a name seen later in the same text is replaced at its first use */
	expect("user kenth56 wrote /home/kenth56/a",
	       "user <user-1> wrote /home/<user-1>/a");
	/* JSON text with escaped slashes */
	expect("{\"cwd\":\"\\/home\\/zoe\\/p\"}",
	       "{\"cwd\":\"\\/home\\/<user-1>\\/p\"}");
	/* generic account names are redacted in the path only */
	expect("/home/ubuntu/x by ubuntu", "/home/<user-1>/x by ubuntu");
}

static void t_hosts(void **st)
{
	(void)st;
	expect("kenth56@legion-7:~/vsla$ make",
	       "<user-1>@<host-1>:~/vsla$ make");
	expect("ssh -p 2222 deploy@buildbox then ping buildbox",
	       "ssh -p 2222 <user-1>@<host-1> then ping <host-1>");
	expect("see https://gpu01.cluster.acme-corp.com/jobs",
	       "see https://<host-1>/jobs");
	expect("db at pg.internal:5432", "db at <host-1>:5432");
	/* public and file-like names stay */
	expect("https://github.com/x/y docs.nvidia.com pytorch.org",
	       "https://github.com/x/y docs.nvidia.com pytorch.org");
	expect("python setup.py; vim main.rs notes.md config.h.in",
	       "python setup.py; vim main.rs notes.md config.h.in");
	expect("logging.info(\"x\") v1.2.3", "logging.info(\"x\") v1.2.3");
}

static void t_secrets(void **st)
{
	(void)st;
	expect("AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
	       "AWS_ACCESS_KEY_ID=<secret-1>");
	expect("tok ghp_abcdefghijklmnopqrstuvwxyz0123456789 end",
	       "tok <secret-1> end");
	expect("github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuvwxyz",
	       "<secret-1>");
	expect("export ANTHROPIC_API_KEY=sk-ant-api03-AbCdEf012345678901234567",
	       "export ANTHROPIC_API_KEY=<secret-1>");
	expect("key sk-proj-abcdefghijklmnopqrstuvwx used twice "
	       "sk-proj-abcdefghijklmnopqrstuvwx", "key <secret-1> used twice "
	       "<secret-1>");
	expect("slack xoxb-1234567890-abcdefghij", "slack <secret-1>");
	expect("Authorization: Bearer abc.def-ghi_jkl012345",
	       "Authorization: Bearer <secret-1>");
	expect("password=hunter2 and \"api_key\": \"q9Z\"",
	       "password=<secret-1> and \"api_key\": \"<secret-2>\"");
	expect("--token=0123456789abcdef0123456789abcdef",
	       "--token=<secret-1>");
	expect("a\n-----BEGIN RSA PRIVATE KEY-----\nMIIB\nxyz\n"
	       "-----END RSA PRIVATE KEY-----\nb", "a\n<secret-1>\nb");
	/* not secrets: code, numbers, type annotations, comparisons */
	expect("max_token=100 token = self.token password: str",
	       "max_token=100 token = self.token password: str");
	expect("if token == other: creds = get_token(x)",
	       "if token == other: creds = get_token(x)");
	expect("task-abcdefghijklmnopqrstuvwxyz input_tokens: 1234",
	       "task-abcdefghijklmnopqrstuvwxyz input_tokens: 1234");
}

/* Values are compared whole, NUL and \x01 bytes included: two key blocks
 * that differ only past a NUL (a binary blob) are two secrets, the same
 * block twice is one. */
static void t_secret_nul(void **st)
{
	static const char in[] =
		"-----BEGIN PRIVATE KEY-----\nAB\0CD\n-----END PRIVATE KEY-----\n"
		"-----BEGIN PRIVATE KEY-----\nAB\0XY\n-----END PRIVATE KEY-----\n"
		"-----BEGIN PRIVATE KEY-----\nAB\1\060\n-----END PRIVATE KEY-----\n"
		"-----BEGIN PRIVATE KEY-----\nAB\0CD\n-----END PRIVATE KEY-----\n";
	static const char want[] = "<secret-1>\n<secret-2>\n<secret-3>\n"
				   "<secret-1>\n";
	kt_redactor *r = kt_redactor_new();
	size_t n = 0;
	char *o;

	(void)st;
	assert_non_null(r);
	o = kt_redact_text(r, in, sizeof(in) - 1, &n);
	assert_non_null(o);
	assert_int_equal(n, sizeof(want) - 1);
	assert_memory_equal(o, want, n);
	free(o);
	kt_redactor_free(r);
}

static void t_stable_across_classes(void **st)
{
	kt_redactor *r = kt_redactor_new();
	char *a, *b;

	(void)st;
	a = red(r, "x@y.com /home/zed/q");
	b = red(r, "/home/zed/ x@y.com w@y.com");
	assert_string_equal(a, "<email-1> /home/<user-1>/q");
	assert_string_equal(b, "/home/<user-1>/ <email-1> <email-2>");
	free(a);
	free(b);
	kt_redactor_free(r);
}

static void t_json(void **st)
{
	kt_redactor *r = kt_redactor_new();
	cJSON *j = cJSON_Parse(
		"{\"cwd\":\"/home/kenth56/vsla\",\"token\":\"abcdef\","
		"\"n\":3,\"list\":[\"kenth56 here\",{\"/home/kenth56/k\":"
		"\"mail x@corp.io\"}],\"first\":\"kenth56\"}");
	char *s;

	(void)st;
	assert_non_null(j);
	assert_int_equal(kt_redact_json(r, j), 0);
	s = cJSON_PrintUnformatted(j);
	assert_string_equal(s,
		"{\"cwd\":\"/home/<user-1>/vsla\",\"token\":\"<secret-1>\","
		"\"n\":3,\"list\":[\"<user-1> here\",{\"/home/<user-1>/k\":"
		"\"mail <email-1>\"}],\"first\":\"<user-1>\"}");
	free(s);
	cJSON_Delete(j);
	kt_redactor_free(r);
}

static void t_edge(void **st)
{
	kt_redactor *r = kt_redactor_new();
	char *o;
	size_t n = 99;
	static const char *odd[] = { "@", "a@", "@b.com", "/home/", "C:\\Users",
		"-----BEGIN PRIVATE KEY-----", "sk-", "eyJ", "Bearer ",
		"token=", "\"token\":\"", "x@y.c", "u@h:", "....com", NULL };
	int i;

	(void)st;
	o = kt_redact_text(r, "", 0, &n);
	assert_non_null(o);
	assert_int_equal(n, 0);
	free(o);
	for (i = 0; odd[i]; i++) {
		o = red(r, odd[i]);
		free(o);
	}
	/* embedded NUL bytes are kept, text after them still redacted */
	o = kt_redact_text(r, "a\0b x@y.com", 11, &n);
	assert_non_null(o);
	assert_int_equal(n, 13);
	assert_memory_equal(o, "a\0b <email-1>", 13);
	free(o);
	kt_redactor_free(r);
}

/* The acceptance file: no line may keep the e-mail or the user name. */
static void t_corpus(void **st)
{
	const char *c = tu_corpus();
	char path[4200], *data, *line, *save = NULL;
	kt_redactor *r;
	size_t n, lines = 0;

	(void)st;
	if (!c)
		skip();
	snprintf(path, sizeof(path),
		 "%s/claude_code/vsla_image_summary_6dc88126.jsonl", c);
	data = tu_slurp(path, &n);
	if (!data)
		skip();
	assert_non_null(strstr(data, "gmail.com"));
	r = kt_redactor_new();
	for (line = strtok_r(data, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		cJSON *j = cJSON_Parse(line);
		char *s;

		if (!j)
			continue;
		assert_int_equal(kt_redact_json(r, j), 0);
		s = cJSON_PrintUnformatted(j);
		assert_non_null(s);
		if (strstr(s, "gmail.com") || strstr(s, "kenth56"))
			fail_msg("line %zu keeps private data: %.200s", lines, s);
		free(s);
		cJSON_Delete(j);
		lines++;
	}
	assert_true(lines > 10);
	kt_redactor_free(r);
	free(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_email),
		cmocka_unit_test(t_home_users),
		cmocka_unit_test(t_hosts),
		cmocka_unit_test(t_secrets),
		cmocka_unit_test(t_secret_nul),
		cmocka_unit_test(t_stable_across_classes),
		cmocka_unit_test(t_json),
		cmocka_unit_test(t_edge),
		cmocka_unit_test(t_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
