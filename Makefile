# ktraj - one non-recursive Makefile.
#   make            build build/ktraj and build/libktraj.a (and the CUDA
#                   harness when nvcc is found)
#   make check      every test (cmocka units, bats CLI tests), closing with
#                   "N passed, N failed"
#   make unit       build and run the cmocka unit tests alone (TAP output,
#                   "N passed, N failed", non-zero exit on a failure)
#   make asan       the same suite built with ASan+UBSan in build-asan/
#   make fuzz       libFuzzer targets (clang), FUZZ_SECONDS each
#   make bench      tests/bench benchmarks (numbers into tests/bench/RESULTS.md)
#   make deps       install the Debian packages the build and tests need
#   make install    PREFIX=/usr/local
CC       ?= cc
B        ?= build
PREFIX   ?= /usr/local
WERROR   ?= -Werror
OPT      ?= -O2 -g
SAN      ?=
PKGS     := lmdb libzstd libcjson libarchive nettle libcrypto libseccomp sqlite3
TESTPKGS := cmocka
# The allocator linked into the ktraj binary, a pkg-config name; empty for the
# C library's malloc.  An import allocates and frees millions of small blocks
# (cJSON makes a node and a key string per JSON member): glibc's malloc took
# ~10 % of a Claude Code import, and jemalloc cut its CPU time by 6-8 %
# (tests/bench/RESULTS.md "session 7").  Only the binary: libktraj.a leaves
# the choice to the program that links it, and sanitizer and fuzz builds keep
# their own (ASan replaces malloc).
MALLOC   ?= jemalloc

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# the binary loads libarchive, libsqlite3 and libseccomp when it first needs
# them (base/archive_dl.h, import/sqlite_dl.h, replay/seccomp_dl.h); tests
# and fuzz targets, which call them themselves, link them.  libcrypto is the
# tests' own: a second SHA-256 to check the store's (tests/unit/t_store_scan.c)
BIN_LIBS   := $(shell pkg-config --libs $(filter-out libarchive libcrypto sqlite3 libseccomp,$(PKGS)) 2>/dev/null) -lm -lpthread
TEST_CFLAGS := $(shell pkg-config --cflags $(TESTPKGS) 2>/dev/null)
TEST_LIBS   := $(shell pkg-config --libs $(TESTPKGS) 2>/dev/null)

CFLAGS_ALL = -std=c11 -D_GNU_SOURCE $(OPT) -Wall -Wextra -Wshadow \
	-Wstrict-prototypes -Wno-missing-field-initializers $(WERROR) $(SAN) \
	$(PKG_CFLAGS) $(CFLAGS)
LDFLAGS_ALL = $(SAN) $(LDFLAGS)
LIBS_ALL = $(PKG_LIBS) -lm -lpthread
# The allocator's static PIC archive when there is one: Debian's
# libjemalloc.so pulls in libstdc++ (its operator new), and loading and
# relocating the two was ~0.6-1 ms of every command's ~3.5 ms start-up
# (tests/bench/RESULTS.md "Issue 21: read rows, 2026-12-04"); the archive's
# malloc and free, exported by the binary, still replace the C library's for
# every caller.  Otherwise the shared library; --no-as-needed: nothing calls
# it by name, it replaces malloc and free
MALLOC_PIC = $(wildcard $(shell pkg-config --variable=libdir $(MALLOC) 2>/dev/null)/lib$(MALLOC)_pic.a)
MALLOC_LINK = $(if $(MALLOC_PIC),$(MALLOC_PIC) -ldl,-Wl,--push-state,--no-as-needed \
	$(shell pkg-config --libs $(MALLOC) 2>/dev/null) -Wl,--pop-state)
MALLOC_LIBS = $(if $(MALLOC),$(MALLOC_LINK))

# library modules, lowest first: base <- store <- import <- analyze and
# replay (neither includes the other) <- export (ndjson.c and report.c use
# analyze/, export.c replay/'s bundle writer) <- cli (analyze reads import's
# importer table only).  make lint holds the includes to this order.  A
# folder that does not exist yet adds nothing.
LIB_DIRS := base store import analyze replay export
LIB_SRC  := $(sort $(wildcard $(LIB_DIRS:%=%/*.c)))
CLI_SRC  := $(sort $(wildcard cli/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/t_*.c))
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))

LIB_OBJ  := $(LIB_SRC:%.c=$(B)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(B)/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)

NVCC ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)

.PHONY: print-lib-src all check unit cli-test asan fuzz fuzz-replay bench bench-large deps install clean harness lint FORCE
all: $(B)/ktraj $(B)/libktraj.a harness

# the library's sources, one per line (.ci/run compiles them once for fuzzing)
print-lib-src:
	@printf '%s\n' $(LIB_SRC)

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(B)/libktraj.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# the allocator the binary was linked with: a different MALLOC relinks it
$(B)/malloc.flag: FORCE
	@mkdir -p $(B); echo '$(MALLOC)' | cmp -s - $@ || echo '$(MALLOC)' >$@
FORCE:

$(B)/ktraj: $(CLI_OBJ) $(B)/libktraj.a $(B)/malloc.flag
	@[ -z "$(MALLOC)" ] || pkg-config --exists $(MALLOC) || { echo "ktraj: the allocator '$(MALLOC)' is not installed: make deps, or build with MALLOC= for the C library's malloc" >&2; exit 1; }
	$(CC) $(LDFLAGS_ALL) -o $@ $(CLI_OBJ) $(B)/libktraj.a $(MALLOC_LIBS) $(BIN_LIBS)

$(B)/tests/%: tests/unit/%.c $(B)/libktraj.a tests/unit/testutil.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(TEST_CFLAGS) -Wno-unused-parameter -o $@ $< \
		$(B)/libktraj.a $(TEST_LIBS) $(LIBS_ALL) $(LDFLAGS_ALL)

# The CUDA harness builds only with nvcc and libc (harness/Makefile), so a
# replay bundle can build it on a machine with nothing but the CUDA Toolkit.
harness:
ifneq ($(NVCC),)
	@if [ -f harness/Makefile ]; then $(MAKE) -C harness NVCC=$(NVCC) B=$(abspath $(B))/harness; fi
else
	@echo "nvcc not found: skipping harness/ and kernels/ (the store and analyzers still build)"
endif

unit: $(UNIT_BIN)
	@UNIT_ONLY=1 B=$(B) tests/run.sh $(UNIT_BIN)
check: lint $(B)/ktraj $(UNIT_BIN)
	@KTRAJ=$(abspath $(B)/ktraj) B=$(B) tests/run.sh $(UNIT_BIN)

asan:
	$(MAKE) B=build-asan OPT="-O1 -g -fno-omit-frame-pointer" MALLOC= \
		SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined" check

FUZZ_SECONDS ?= 20
# how long each target runs; CI passes a fixed seed and run count instead, so
# a CI run explores exactly what was explored before it landed
FUZZ_FLAGS ?= -max_total_time=$(FUZZ_SECONDS)
fuzz:
	@mkdir -p $(B)/fuzz
	@set -e; for f in $(FUZZ_SRC); do n=$$(basename $$f .c); \
	  clang -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined $(PKG_CFLAGS) \
	    -o $(B)/fuzz/$$n $$f $(LIB_SRC) $(PKG_LIBS) -lm -lpthread; \
	  mkdir -p $(B)/fuzz/$$n.corpus; \
	  seeds=tests/fuzz/seeds/$$n; [ -d $$seeds ] || seeds=; \
	  echo "fuzz: $$n ($(FUZZ_FLAGS))"; \
	  $(B)/fuzz/$$n $(FUZZ_FLAGS) -rss_limit_mb=1024 -timeout=10 \
	    $(B)/fuzz/$$n.corpus $$seeds >$(B)/fuzz/$$n.log 2>&1 || { tail -50 $(B)/fuzz/$$n.log; exit 1; }; \
	done; echo "fuzz: all targets ran clean"

bench: $(B)/ktraj
	tests/bench/run.sh $(abspath $(B)/ktraj)
	tests/bench/analyze_bench.sh $(abspath $(B)/ktraj)
	tests/bench/import_memory.sh $(abspath $(B)/ktraj)
	tests/bench/import_small.sh $(abspath $(B)/ktraj)
	tests/bench/read_paths.sh $(abspath $(B)/ktraj)
	MB=200 tests/bench/import_claude.sh $(abspath $(B)/ktraj)
	tests/bench/export_ab.sh ktraj=$(abspath $(B)/ktraj)

# the rows that need gigabytes of disk and minutes: 3.8 GB peak RSS
# (import_rss_parts.sh on a gen_claude.py session of that size) and the
# store-size row (block_sweep.sh on this build: one big session and 10,000
# small ones against `zstd -3`, with the point reads).  The sweep over
# block sizes and levels runs the same script over binaries built with
# -DKT_BLOCK_SEAL/-DKT_BLOCK_LEVEL (store/store_int.h), 16 of them in
# tests/bench/RESULTS.md "store size against block size and zstd level,
# the decision"; "Issue 21: where each row stands" says how each row was
# last run
bench-large: $(B)/ktraj
	tests/bench/block_sweep.sh default=$(abspath $(B)/ktraj)
	python3 tests/bench/gen_claude.py --mb 3800 $${TMPDIR:-/tmp}/ktraj-3800.jsonl
	tests/bench/import_rss_parts.sh $(abspath $(B)/ktraj) $${TMPDIR:-/tmp}/ktraj-3800.jsonl; \
	rc=$$?; rm -f $${TMPDIR:-/tmp}/ktraj-3800.jsonl; exit $$rc

# the module boundaries (import.h, import/README.md "Adding an import format"),
# part of `make check`; the last step reads the objects (a call by symbol
# makes a dependency no include shows), so lint builds them
lint: $(LIB_OBJ) $(CLI_OBJ)
	@! grep -nE '#include +"' base/*.c base/*.h | grep -vE '"(kt_base|kt_dl|kt_json_scan|archive_dl)\.h"' || { echo "base/ must not depend on other modules"; exit 1; }
	@! grep -nE '#include +"\.\./' store/*.c store/*.h | grep -v '"\.\./base/' || { echo "store/ must depend on base/ only"; exit 1; }
	@! grep -nE '#include +"\.\./cli/' import/*.c analyze/*.c 2>/dev/null || { echo "import/ and analyze/ must not depend on cli/"; exit 1; }
	@! grep -nE '#include +"(\.\./import/)?imp_int\.h"|\bimp->s\b|\bkt_store_[a-z_]+\(' import/imp_*.c replay/result_import.c || { echo "importers use the session (import.h), never its state (imp_int.h) or the store"; exit 1; }
	@! grep -nE '#include +["<]([./a-z_]*/)?(import|imp_int|impx|archive|archive_dl)\.h' import/jsonstrict.c import/jsonstrict.h || { echo "jsonstrict is a pure check: no session, no libarchive"; exit 1; }
	@! grep -nE '\bkt_in_[a-z_]+\(|\bkt_import_paths\(' import/workspace.c import/shell.c import/sh_*.c import/shellparse.c || { echo "the workspace and the shell classifier do not call the driver"; exit 1; }
	@! grep -nE '#include +"(\.\./import/)?imp_int\.h"' cli/*.c || { echo "cli/ uses import.h, never the session's state"; exit 1; }
	@! grep -nE '#include +"\.\./(cli|export|replay|analyze)/' import/*.[ch] 2>/dev/null || { echo "import/ must depend on base/ and store/ only"; exit 1; }
	@! grep -nE '#include +"\.\./(cli|export|replay)/' analyze/*.[ch] 2>/dev/null || { echo "analyze/ must not depend on replay/, export/ or cli/"; exit 1; }
	@! grep -nE '#include +"\.\./(cli|export|analyze)/' replay/*.[ch] 2>/dev/null || { echo "replay/ must not depend on analyze/, export/ or cli/"; exit 1; }
	@! grep -nE '#include +"\.\./cli/' export/*.[ch] 2>/dev/null || { echo "export/ must not depend on cli/"; exit 1; }
	@for h in $(INSTALL_H); do printf '#include "%s"\n' $$h | \
		$(CC) $(CFLAGS_ALL) -I. -fsyntax-only -x c - || { echo "$$h does not compile alone"; exit 1; }; done
	@! grep -n 'mdb_env_set_mapsize(' store/*.c || { echo "store/: set a map's size with kt_env_resize (it forgets the map's address)"; exit 1; }
	@sh tests/include_cycles.sh
	@sh tests/link_cycles.sh $(B) $(LIB_OBJ) $(CLI_OBJ)

deps:
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
		build-essential clang pkg-config liblmdb-dev libzstd-dev libcjson-dev \
		libarchive-dev nettle-dev libssl-dev libjemalloc-dev libcmocka-dev libseccomp-dev bats \
		libsqlite3-dev \
		lmdb-utils zstd python3 tar zip unzip xz-utils ca-certificates \
		bubblewrap util-linux passwd

# every module's contract: each compiles alone (make lint)
INSTALL_H := base/kt_base.h store/store.h store/event_model.h import/import.h \
	analyze/analyze.h replay/replay.h export/export.h
install: $(B)/ktraj $(B)/libktraj.a
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib
	install -m 755 $(B)/ktraj $(DESTDIR)$(PREFIX)/bin/ktraj
	install -m 644 $(B)/libktraj.a $(DESTDIR)$(PREFIX)/lib/libktraj.a
	@# the public headers keep their folders: they include each other as
	@# "../base/kt_base.h", "../store/store.h" (<ktraj/store/store.h>)
	for h in $(INSTALL_H); do install -d $(DESTDIR)$(PREFIX)/include/ktraj/$$(dirname $$h) && \
		install -m 644 $$h $(DESTDIR)$(PREFIX)/include/ktraj/$$h || exit 1; done
	@if [ -x $(B)/harness/ktraj-harness ]; then install -m 755 $(B)/harness/ktraj-harness $(DESTDIR)$(PREFIX)/bin/; fi

clean:
	rm -rf build build-asan build-clang

-include $(shell find $(B) -name '*.d' 2>/dev/null)
