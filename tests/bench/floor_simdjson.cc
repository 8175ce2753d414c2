// tests/bench/floor_simdjson.cc - simdjson's DOM parse of every line of a
// JSONL session: the fastest known parser, for the Claude Code import's
// floor (issue 21; RESULTS.md "measured part by part").  A measurement
// only: ktraj is C11 and does not link simdjson.
// Build (Debian 12 libsimdjson-dev):
//   c++ -O2 -o floor_simdjson tests/bench/floor_simdjson.cc -lsimdjson
// Usage: floor_simdjson SESSION [ROUNDS]
// Prints the row of floor_parts.c: "json simdjson(dom) lines MB s MB/s".
#include <simdjson.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

static double cpu_now()
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: floor_simdjson SESSION [ROUNDS]\n");
		return 2;
	}
	int rounds = argc > 2 && atoi(argv[2]) > 0 ? atoi(argv[2]) : 5;
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	// every line is followed by the rest of the file and then by
	// SIMDJSON_PADDING bytes: what parse(p, len, false) may read past len
	std::vector<char> buf((size_t)n + simdjson::SIMDJSON_PADDING);
	if (fread(buf.data(), 1, (size_t)n, f) != (size_t)n)
		return 1;
	fclose(f);
	std::vector<std::pair<size_t, size_t>> lines;
	size_t bytes = 0;
	for (size_t o = 0; o < (size_t)n;) {
		const char *e = (const char *)memchr(&buf[o], '\n', (size_t)n - o);
		size_t l = e ? (size_t)(e - &buf[0]) - o : (size_t)n - o;
		if (l) {
			lines.emplace_back(o, l);
			bytes += l;
		}
		o += l + 1;
	}
	simdjson::dom::parser parser;
	double best = 1e9;
	size_t ok = 0;
	for (int k = 0; k < rounds; k++) {
		double t0 = cpu_now();
		ok = 0;
		for (auto &l : lines) {
			simdjson::dom::element doc;
			if (!parser.parse((const uint8_t *)&buf[l.first], l.second,
					  false).get(doc))
				ok++;
		}
		double t = cpu_now() - t0;
		if (t < best)
			best = t;
	}
	char what[64];
	snprintf(what, sizeof(what), "simdjson(dom,%s)",
		 simdjson::get_active_implementation()->name().c_str());
	printf("%-6s %-34s %9zu %9.1f %7.3f %8.0f\n", "json", what, lines.size(),
	       (double)bytes / 1e6, best, (double)bytes / 1e6 / best);
	if (ok != lines.size())
		printf("json   # simdjson: %zu of %zu lines parsed\n", ok,
		       lines.size());
	return 0;
}
