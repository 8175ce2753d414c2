#!/usr/bin/env bats
# What sits at the store path: an empty file or a file that is no store is
# refused by readers and writers with one line, left as it was, and no
# "-lock" file is made beside it; an empty file beside its "-lock" (a create
# that was killed) is finished by the next writer.  And the run record:
# bytes flipped in it in the store file make `verify` fail naming the run.

bats_require_minimum_version 1.5.0

SAMPLE="$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl"

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
}

@test "an empty file at the store path: every command refuses it, nothing is written or created" {
	F="$BATS_TEST_TMPDIR/empty"
	: >"$F"
	for cmd in "import $SAMPLE" init ls verify "log x" "append r"; do
		run --separate-stderr "$KTRAJ" --store "$F" $cmd </dev/null
		[ "$status" -eq 1 ]
		c=${cmd%% *}
		[ "$stderr" = "ktraj: $c: $F is not a ktraj store (an empty file, which may belong to another program; give another --store or KTRAJ_STORE)" ]
		[ ! -s "$F" ]
		[ ! -e "$F-lock" ]
	done
}

@test "a file that is not a store: refused by writers and readers, left as it was, no lock file" {
	F="$BATS_TEST_TMPDIR/notes.txt"
	printf 'x\n' >"$F"
	for cmd in "import $SAMPLE" ls verify; do
		run --separate-stderr "$KTRAJ" --store "$F" $cmd
		[ "$status" -eq 1 ]
		[ "$stderr" = "ktraj: ${cmd%% *}: $F is not a ktraj store (not an LMDB file; give another --store or KTRAJ_STORE)" ]
		[ "$(cat "$F")" = x ]
		[ ! -e "$F-lock" ]
	done
}

@test "an empty file beside its lock file (a killed create) becomes the store on the next import" {
	: >"$KTRAJ_STORE"
	: >"$KTRAJ_STORE-lock"
	run "$KTRAJ" ls
	[ "$status" -ne 0 ]
	run "$KTRAJ" import "$SAMPLE"
	[ "$status" -eq 0 ]
	run "$KTRAJ" verify
	[ "$status" -eq 0 ]
	[ "$output" = "ok: 1 run, 41 events verified" ]
}

@test "bytes flipped in the run record (meta, name) in the store file: verify exits 3 naming the run, ls and export refuse it" {
	"$KTRAJ" import "$SAMPLE" >/dev/null
	R=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	cp "$KTRAJ_STORE" "$BATS_TEST_TMPDIR/good"
	for what in '"cwd":"/home/dev/softmax"' 'The row softmax in softmax.cu'; do
		cp "$BATS_TEST_TMPDIR/good" "$KTRAJ_STORE"
		rm -f "$KTRAJ_STORE-lock"
		# one bit of the 3rd byte of every copy (LMDB keeps old pages)
		python3 - "$KTRAJ_STORE" "$what" <<'PY'
import sys
p, m = sys.argv[1], sys.argv[2].encode()
d = bytearray(open(p, 'rb').read())
i = d.find(m); n = 0
while i >= 0:
    d[i + 2] ^= 1; n += 1
    i = d.find(m, i + 1)
assert n >= 1
open(p, 'wb').write(d)
PY
		run --separate-stderr "$KTRAJ" verify
		[ "$status" -eq 3 ]
		[ "$stderr" = "ktraj: verify: run $R: corrupt: the run record (name, format, meta, created) does not match its checksum" ]
		run --separate-stderr "$KTRAJ" verify --json
		[ "$status" -eq 3 ]
		echo "$output" | python3 -c '
import json,sys
o=json.load(sys.stdin); assert o["ok"] is False and o["run"]==sys.argv[1] and o["seq"]==0 and "checksum" in o["error"], o' "$R"
		run --separate-stderr "$KTRAJ" ls
		[ "$status" -eq 3 ]
		[[ "$stderr" == *"run $R: the run record"* ]]
		run --separate-stderr "$KTRAJ" export "$R"
		[ "$status" -eq 3 ]
	done
	cp "$BATS_TEST_TMPDIR/good" "$KTRAJ_STORE"
	run "$KTRAJ" verify --json
	[ "$output" = '{"ok":true,"runs":1,"events":41,"no_checksum":0,"unfinished":0}' ]
}

@test "another program's LMDB file at the store path: refused with the reason, left as it was" {
	command -v mdb_load >/dev/null || skip "mdb_load not installed (lmdb-utils)"
	f="$BATS_TEST_TMPDIR/other.mdb"
	printf 'VERSION=3\nformat=print\ntype=btree\nHEADER=END\n k\n v\nDATA=END\n' | mdb_load -n "$f"
	sum=$(sha256sum "$f" | cut -d' ' -f1)
	run "$KTRAJ" --store "$f" ls
	[ "$status" -eq 1 ]
	[[ "$output" == "ktraj: ls: $f: not a ktraj store"* ]]
	run "$KTRAJ" --store "$f" import "$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl"
	[ "$status" -ne 0 ]
	[[ "$output" == *"not a ktraj store"* ]]
	[ "$(sha256sum "$f" | cut -d' ' -f1)" = "$sum" ]
}
