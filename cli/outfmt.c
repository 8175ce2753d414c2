/* outfmt.c - text helpers for the read commands (see outfmt.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "outfmt.h"
#include "../store/store.h"

void cli_oneline(const char *s, size_t max, char *out)
{
	size_t n = 0;
	int space = 0;

	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
		    c == '\f' || c == '\v') {
			space = n > 0;
			continue;
		}
		if (c < 0x20 || c == 0x7f)
			c = '?';
		if (n + space + 1 > max) {
			/* drop a trailing incomplete UTF-8 sequence */
			size_t i = n, need;

			while (i > 0 && ((unsigned char)out[i - 1] & 0xc0) == 0x80)
				i--;
			if (i > 0 && (unsigned char)out[i - 1] >= 0xc0) {
				unsigned char l = (unsigned char)out[i - 1];

				need = l >= 0xf0 ? 4 : l >= 0xe0 ? 3 : 2;
				if (n - (i - 1) < need)
					n = i - 1;
			}
			memcpy(out + n, "...", 4);
			return;
		}
		if (space)
			out[n++] = ' ';
		space = 0;
		out[n++] = (char)c;
	}
	out[n] = 0;
}

void cli_ts_short(int64_t ts_ns, char *buf, size_t len)
{
	time_t sec;
	struct tm tm;

	if (ts_ns == KT_TS_UNKNOWN) {
		snprintf(buf, len, "-");
		return;
	}
	sec = (time_t)(ts_ns / 1000000000);
	if (ts_ns < 0 && ts_ns % 1000000000)
		sec--;
	if (!gmtime_r(&sec, &tm) ||
	    !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "-");
}

int cli_put_safe(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0, k;

	while (i < n) {
		unsigned c = p[i];

		if ((c >= 0x20 && c < 0x7f) || c == '\t' || c == '\n') {
			i++;
			continue;
		}
		k = kt_utf8_seq(p + i, n - i);
		/* U+0080..U+009F are C2 80..C2 9F */
		if (k > 1 && !(c == 0xc2 && p[i + 1] < 0xa0)) {
			i += k;
			continue;
		}
		fwrite(p + run, 1, i - run, f);
		if (k == 2)
			fprintf(f, "M-^%c", (p[i + 1] - 0x80) + 0x40);
		else if (c == 0x7f)
			fputs("^?", f);
		else if (c < 0x20)
			fprintf(f, "^%c", c + 0x40);
		else
			fprintf(f, "\\x%02x", c);
		i += k ? k : 1;
		run = i;
	}
	fwrite(p + run, 1, n - run, f);
	return ferror(f) ? -1 : 0;
}

const char *cli_jstr(const cJSON *o, const char *key)
{
	return kt_json_str(o, key);
}

int cli_put_json(cJSON *o)
{
	char *t = o ? cJSON_PrintUnformatted(o) : NULL;
	int rc = 0;

	if (!t)
		rc = KT_ENOMEM;
	else if (puts(t) < 0)
		rc = KT_EIO;
	free(t);
	cJSON_Delete(o);
	return rc;
}

static void num_part(char *buf, size_t n, const cJSON *p, const char *key,
		     const char *fmt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(p, key);
	size_t l = strlen(buf);

	if (cJSON_IsNumber(v))
		snprintf(buf + l, n - l, fmt, v->valuedouble);
}

void cli_event_summary(const kt_event *ev, const cJSON *p, char *buf, size_t n)
{
	const cJSON *v, *args;
	const char *s;
	char *js = NULL;

	buf[0] = 0;
	switch (ev->kind) {
	case KT_KIND_MESSAGE:
	case KT_KIND_NOTE:
		snprintf(buf, n, "%s", (s = cli_jstr(p, "text")) ? s : "");
		break;
	case KT_KIND_QUESTION:
		snprintf(buf, n, "[%s] %s",
			 (s = cli_jstr(p, "origin")) ? s : "?",
			 cli_jstr(p, "text") ? cli_jstr(p, "text") : "");
		break;
	case KT_KIND_TOOL_CALL:
		args = cJSON_GetObjectItemCaseSensitive(p, "args");
		s = cli_jstr(args, "command");
		if (!s)
			s = cli_jstr(args, "file_path");
		if (!s)
			s = cli_jstr(args, "path");
		if (!s)
			s = cli_jstr(args, "pattern");
		if (!s && args)
			s = js = cJSON_PrintUnformatted(args);
		snprintf(buf, n, "%s %s",
			 cli_jstr(p, "tool") ? cli_jstr(p, "tool") : "?",
			 s ? s : "");
		break;
	case KT_KIND_TOOL_RESULT:
		v = cJSON_GetObjectItemCaseSensitive(p, "ok");
		snprintf(buf, n, "%s %s", cJSON_IsFalse(v) ? "error:" : "ok:",
			 (s = cli_jstr(p, "output")) ? s : "");
		break;
	case KT_KIND_EDIT:
		snprintf(buf, n, "%s %s", (s = cli_jstr(p, "op")) ? s : "edit",
			 cli_jstr(p, "path") ? cli_jstr(p, "path") : "?");
		break;
	case KT_KIND_COMPILE:
		v = cJSON_GetObjectItemCaseSensitive(p, "exit_code");
		if (cJSON_IsNumber(v))
			snprintf(buf, n, "exit %d: ", v->valueint);
		else
			snprintf(buf, n, "exit ?: ");
		snprintf(buf + strlen(buf), n - strlen(buf), "%s",
			 (s = cli_jstr(p, "command")) ? s : "");
		break;
	case KT_KIND_BENCH:
		num_part(buf, n, p, "time_ms", "time %.4g ms ");
		num_part(buf, n, p, "speedup", "speedup %.3gx ");
		v = cJSON_GetObjectItemCaseSensitive(p, "correct");
		snprintf(buf + strlen(buf), n - strlen(buf), "%s ",
			 cJSON_IsTrue(v) ? "correct" : cJSON_IsFalse(v) ?
			 "INCORRECT" : "not checked");
		if ((s = cli_jstr(p, "status")) && !strcmp(s, "unparsed"))
			snprintf(buf + strlen(buf), n - strlen(buf),
				 "no readable time ");
		if ((s = cli_jstr(p, "scenario")) || (s = cli_jstr(p, "workload")))
			snprintf(buf + strlen(buf), n - strlen(buf), "(%s)", s);
		break;
	case KT_KIND_REPLAY:
		v = cJSON_GetObjectItemCaseSensitive(p, "step");
		snprintf(buf, n, "step %d: %s %s", cJSON_IsNumber(v) ? v->valueint : 0,
			 (s = cli_jstr(p, "verdict")) ? s : "?",
			 cli_jstr(p, "reason") ? cli_jstr(p, "reason") : "");
		break;
	case KT_KIND_PROFILE:
		snprintf(buf, n, "%s", (s = cli_jstr(p, "tool")) ? s : "");
		break;
	}
	free(js);
}
