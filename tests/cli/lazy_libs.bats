#!/usr/bin/env bats
# The binary loads libarchive only when it reads an archive or a compressed
# file (import/archive_dl.h): commands that do not need it start without it,
# and one that needs it but cannot load it says so.

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
	! grep -E 'libarchive|libxml2|libicu' <<<"$output"
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
