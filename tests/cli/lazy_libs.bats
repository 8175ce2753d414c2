#!/usr/bin/env bats
# The binary loads libarchive only when it reads an archive or a compressed
# file (base/archive_dl.h), libsqlite3 for an OpenCode database
# (import/sqlite_dl.h) and libseccomp for a sandboxed replay
# (replay/seccomp_dl.h): commands that do not need them start without
# them, and one that needs one but cannot load it says so.

bats_require_minimum_version 1.5.0

setup() {
	KTRAJ=${KTRAJ:-$BATS_TEST_DIRNAME/../../build/ktraj}
	W=$BATS_TEST_TMPDIR
	export KTRAJ_STORE=$W/s.kt
	mkdir -p "$W/in" "$W/badlib"
	printf '%s\n' '{"kind":"note","payload":{"text":"hello"}}' >"$W/in/a.jsonl"
	tar -C "$W" -czf "$W/in.tar.gz" in
	# not an ELF file: dlopen refuses it
	echo junk >"$W/badlib/libarchive.so.13"
}

@test "the binary does not link libarchive (nor what it pulls in)" {
	command -v ldd >/dev/null || skip "no ldd"
	run ldd "$KTRAJ"
	[ "$status" -eq 0 ]
	! grep -E 'libarchive|libxml2|libicu' <<<"$output" || false
}

@test "without a loadable libarchive, plain files import and an archive is refused in words" {
	LD_LIBRARY_PATH=$W/badlib run "$KTRAJ" import "$W/in/a.jsonl"
	[ "$status" -eq 0 ]
	LD_LIBRARY_PATH=$W/badlib run "$KTRAJ" ls
	[ "$status" -eq 0 ]
	[[ "$output" == *"a "* || "$output" == *" a"* ]]
	LD_LIBRARY_PATH=$W/badlib run "$KTRAJ" import "$W/in.tar.gz"
	[ "$status" -eq 1 ]
	[[ "$output" == *"in.tar.gz: cannot read archives or compressed files without libarchive ("*"libarchive.so.13"* ]]
}

@test "with libarchive, the same archive imports" {
	run "$KTRAJ" import "$W/in.tar.gz"
	[ "$status" -eq 0 ]
	run "$KTRAJ" log a
	[ "$status" -eq 0 ]
	[[ "$output" == *"hello"* ]]
}

# Commands beyond import that need libarchive say which library is missing
# (before: "out of memory", or a source "changed since import").
@test "without a loadable libarchive, show --source of an archived record names the library" {
	run "$KTRAJ" import "$W/in.tar.gz"
	[ "$status" -eq 0 ]
	LD_LIBRARY_PATH=$W/badlib run "$KTRAJ" show a 1 --source
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "ktraj: show: source $W/in.tar.gz: cannot read archives or compressed files without libarchive ("*"libarchive.so.13"* ]]
	run "$KTRAJ" show a 1 --source
	[ "$status" -eq 0 ]
	[[ "$output" == *'"hello"'* ]]
}

@test "without a loadable libarchive, the ndjson export and a replay bundle name the library" {
	run "$KTRAJ" import "$W/in/a.jsonl"
	[ "$status" -eq 0 ]
	LD_LIBRARY_PATH=$W/badlib run "$KTRAJ" export --all --format ndjson --partition "$W/nd"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "ktraj: export: cannot load libarchive ("*"libarchive.so.13"* ]]
	[[ "$output" != *"out of memory"* ]]
	command -v python3 >/dev/null || skip "no python3"
	R=$("$KTRAJ" import --json "$BATS_TEST_DIRNAME/../data/replay/cc_bench_session.jsonl" |
		python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	S=$("$KTRAJ" log "$R" --json | python3 -c '
import json,sys
print(next(r["seq"] for r in map(json.loads,sys.stdin) if r["kind"]=="bench"))')
	for out in "$W/b.tar.gz" "$W/bdir/"; do
		LD_LIBRARY_PATH=$W/badlib run "$KTRAJ" export "$R" --step "$S" --bundle "$out"
		[ "$status" -ne 0 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "ktraj: export: "*"cannot load libarchive ("*"libarchive.so.13"* ]]
		[[ "$output" != *"out of memory"* ]]
	done
}

@test "the binary does not link libcrypto or libsqlite3: ls on a store without runs starts without them" {
	command -v ldd >/dev/null || skip "no ldd"
	run ldd "$KTRAJ"
	[ "$status" -eq 0 ]
	! grep -E 'libcrypto|libsqlite3' <<<"$output" || false
	mkdir -p "$W/badcr"
	echo junk >"$W/badcr/libcrypto.so.3"
	run "$KTRAJ" init
	[ "$status" -eq 0 ]
	LD_LIBRARY_PATH=$W/badcr run "$KTRAJ" ls
	[ "$status" -eq 0 ]
	[[ "$output" == "no runs in "* ]]
}

@test "SHA-256 comes from Nettle, not libcrypto: with a junk libcrypto on the library path, every command that hashes works" {
	mkdir -p "$W/badcr"
	echo junk >"$W/badcr/libcrypto.so.3"
	LD_LIBRARY_PATH=$W/badcr run "$KTRAJ" import "$W/in/a.jsonl"
	[ "$status" -eq 0 ]
	for cmd in "log a" "show a 1" "verify" "export a" "ls"; do
		# shellcheck disable=SC2086
		LD_LIBRARY_PATH=$W/badcr run "$KTRAJ" $cmd
		[ "$status" -eq 0 ]
		[[ "$output" != *"libcrypto"* ]]
	done
}

@test "without a loadable libsqlite3, an OpenCode database is skipped in words; with it, it imports" {
	command -v sqlite3 >/dev/null || skip "no sqlite3"
	mkdir -p "$W/badsq" "$W/oc"
	echo junk >"$W/badsq/libsqlite3.so.0"
	sqlite3 "$W/oc/opencode.db" <"$BATS_TEST_DIRNAME/../data/import/opencode/opencode.sql"
	LD_LIBRARY_PATH=$W/badsq run "$KTRAJ" import "$W/oc/opencode.db"
	[[ "$output" == *"opencode.db: cannot read SQLite databases without libsqlite3 ("*"libsqlite3.so.0"*"): file skipped"* ]]
	run "$KTRAJ" ls --json
	[ "$(grep -c '"opencode"' <<<"$output")" -eq 0 ]
	run "$KTRAJ" import "$W/oc/opencode.db"
	[ "$status" -eq 0 ]
	run "$KTRAJ" ls --json
	[ "$(grep -c '"opencode"' <<<"$output")" -eq 2 ]
}

@test "the binary does not link libseccomp: ls starts without it, and with a junk libseccomp on the library path" {
	command -v ldd >/dev/null || skip "no ldd"
	run ldd "$KTRAJ"
	[ "$status" -eq 0 ]
	! grep -E 'libseccomp' <<<"$output" || false
	run "$KTRAJ" init
	[ "$status" -eq 0 ]
	LD_DEBUG=libs run "$KTRAJ" ls
	[ "$status" -eq 0 ]
	[[ "$output" == *"no runs in "* ]]
	[[ "$output" != *"libseccomp"* ]]
	mkdir -p "$W/badsc"
	echo junk >"$W/badsc/libseccomp.so.2"
	LD_LIBRARY_PATH=$W/badsc run "$KTRAJ" ls
	[ "$status" -eq 0 ]
	[[ "$output" == "no runs in "* ]]
}

@test "without a loadable libseccomp, a sandboxed replay refuses the step in one line naming the library and records nothing; with it, the step runs" {
	command -v cc >/dev/null || skip "no C compiler"
	command -v python3 >/dev/null || skip "no python3"
	command -v bwrap >/dev/null || skip "bubblewrap is not installed"
	local as=()
	[ "$(id -u)" = 0 ] && as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	"${as[@]}" bwrap --unshare-all --unshare-user --ro-bind / / true 2>/dev/null ||
		skip "bubblewrap cannot make user namespaces here"
	mkdir -p "$W/badsc"
	echo junk >"$W/badsc/libseccomp.so.2"
	R=$("$KTRAJ" import --json "$BATS_TEST_DIRNAME/../data/replay/cc_bench_session.jsonl" |
		python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	S=$("$KTRAJ" log "$R" --json | python3 -c '
import json,sys
print(next(r["seq"] for r in map(json.loads,sys.stdin) if r["kind"]=="bench"))')
	# the filter cannot be built: the step does not run unfiltered
	LD_LIBRARY_PATH=$W/badsc run --separate-stderr "$KTRAJ" replay "$R" "$S" --json
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "ktraj: replay: cannot build the seccomp filter: cannot load libseccomp ("*"libseccomp.so.2"* ]]
	[ "$("$KTRAJ" log "$R" --kind replay --json | wc -l)" -eq 0 ]
	run "$KTRAJ" replay "$R" "$S" --json
	[ "$status" -eq 0 ]
	[ "$("$KTRAJ" log "$R" --kind replay --json | wc -l)" -eq 1 ]
}
