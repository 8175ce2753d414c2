#!/usr/bin/env bats
# `ktraj export --format jsonl` and the content check of its blob lines
# (FORMAT.md §6.5): without --verify a file content is written as stored,
# unchecked, and the reader of the blob line checks it against its name
# (import reports it and keeps nothing that needs it); --verify checks it as
# it is read and stops with exit 3, as `ktraj verify` reports it.  The
# damage is one flipped byte of a stored (raw, uncompressed) content.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	T='int marker_q7z = 42;\n'
	H=$(printf "$T" | sha256sum | cut -c1-64)
	{
		echo "{\"blob\":\"$H\",\"path\":\"src/m.c\",\"text\":\"int marker_q7z = 42;\\n\"}"
		echo "{\"kind\":\"edit\",\"payload\":{\"path\":\"src/m.c\",\"op\":\"create\",\"before\":null,\"after\":\"$H\"}}"
		echo "{\"kind\":\"note\",\"payload\":{\"text\":\"done\"}}"
	} | "$KTRAJ" append demo >/dev/null
}

damage() {
	python3 - "$KTRAJ_STORE" <<'PY'
import sys
p = sys.argv[1]
d = bytearray(open(p, 'rb').read())
m = b'marker_q7z'
assert d.count(m) == 1, d.count(m)
d[d.find(m)] ^= 0x20
open(p, 'wb').write(d)
PY
	rm -f "$KTRAJ_STORE-lock"
}

@test "export --verify of a sound run writes what export writes" {
	"$KTRAJ" export demo >"$BATS_TEST_TMPDIR/a.jsonl"
	"$KTRAJ" export demo --verify >"$BATS_TEST_TMPDIR/b.jsonl"
	cmp "$BATS_TEST_TMPDIR/a.jsonl" "$BATS_TEST_TMPDIR/b.jsonl"
	grep -qF "{\"blob\":\"$H\",\"path\":\"src/m.c\",\"text\":\"int marker_q7z = 42;\\n\"}" "$BATS_TEST_TMPDIR/a.jsonl"
}

@test "a damaged file content: export writes it unchecked, import refuses the blob line, export --verify exits 3" {
	damage
	run --separate-stderr "$KTRAJ" export demo -o "$BATS_TEST_TMPDIR/out.jsonl"
	[ "$status" -eq 0 ]
	grep -qF "{\"blob\":\"$H\",\"path\":\"src/m.c\",\"text\":\"int Marker_q7z = 42;\\n\"}" "$BATS_TEST_TMPDIR/out.jsonl"
	# the blob line's reader checks it: the content and the edit are not kept
	run --separate-stderr "$KTRAJ" --store "$BATS_TEST_TMPDIR/o.ktraj" import --strict "$BATS_TEST_TMPDIR/out.jsonl"
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"out.jsonl:2: blob: content does not hash to its name"* ]]
	run "$KTRAJ" --store "$BATS_TEST_TMPDIR/o.ktraj" ls
	[[ "$output" != *demo* ]]
	run --separate-stderr "$KTRAJ" export demo --verify -o "$BATS_TEST_TMPDIR/v.jsonl"
	[ "$status" -eq 3 ]
	[ "$stderr" = "ktraj: export: seq 1: blob $H: corrupt data" ]
	[ ! -e "$BATS_TEST_TMPDIR/v.jsonl" ]
	run "$KTRAJ" verify
	[ "$status" -eq 3 ]
}

@test "export --verify is for --format jsonl only" {
	run --separate-stderr "$KTRAJ" export demo --verify --format atif
	[ "$status" -eq 2 ]
	[[ "$stderr" == "ktraj: export: --verify goes with --format jsonl"* ]]
}
