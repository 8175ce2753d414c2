#!/usr/bin/env bats
# verify checks LMDB's own pages before LMDB reads them (FORMAT.md §6.10
# "LMDB's own pages"): a damaged node offset or overflow page count is one
# `ktraj: verify: ...` line naming the page and exit 3, never a crash.  And
# a damaged blob is named with an event that reads it.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
}

# LMDB 0.9 pages (mdb.c, 64-bit): header pgno(8) pad(2) flags(2) lower(2)
# upper(2), then the node offsets mp_ptrs[]; flags 1 branch, 2 leaf,
# 4 overflow (pages(4) in place of lower/upper).
damage() { # flags what
	python3 - "$KTRAJ_STORE" "$1" "$2" <<'PY'
import struct, sys
p, want, what = sys.argv[1], int(sys.argv[2]), sys.argv[3]
d = bytearray(open(p, 'rb').read())
n = 0
for off in range(2 * 4096, len(d), 4096):
	flags = struct.unpack_from('<H', d, off + 10)[0]
	if flags != want:
		continue
	if what == 'ptr':      # first node offset past the page end
		struct.pack_into('<H', d, off + 16, 4095)
	else:                  # overflow run far longer than the file
		struct.pack_into('<I', d, off + 12, 0x7fffffff)
	n += 1
assert n, "no page with flags %d" % want
open(p, 'wb').write(d)
PY
}

@test "verify: a branch page's node offset past its end is one line, exit 3" {
	python3 "$BATS_TEST_DIRNAME/../bench/gen.py" --events 2000 "$BATS_TEST_TMPDIR/g.jsonl" >/dev/null
	"$KTRAJ" import "$BATS_TEST_TMPDIR/g.jsonl" >/dev/null
	"$KTRAJ" verify
	damage 1 ptr
	run --separate-stderr "$KTRAJ" verify
	[ "$status" -eq 3 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "${stderr_lines[0]}" =~ ^"ktraj: verify: $KTRAJ_STORE: damaged LMDB page "[0-9]+" (database "[a-z_]+"): node 0 at offset 4095, outside "[0-9]+\.\.4088$ ]]
	[ -z "$output" ]
	run --separate-stderr "$KTRAJ" verify --json
	[ "$status" -eq 3 ]
	[[ "$output" == '{"ok":false,"run":"","seq":0,"error":"'*'damaged LMDB page '* ]]
	# the read commands check the pages of a store this size too: one
	# line and exit 3, where LMDB crashed ls and search before
	for cmd in ls "search the" stats "log g"; do
		run --separate-stderr "$KTRAJ" $cmd
		[ "$status" -eq 3 ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "${stderr_lines[0]}" == "ktraj: ${cmd%% *}: $KTRAJ_STORE: damaged LMDB page "* ]]
	done
}

@test "verify: an overflow page count past the file is one line, exit 3" {
	# incompressible blob contents over a page: overflow runs
	for i in 1 2 3; do
		t=$(head -c 6000 /dev/urandom | base64 -w0)
		echo "{\"blob\":\"$(printf '%s' "$t" | sha256sum | cut -c1-64)\",\"text\":\"$t\"}"
	done | "$KTRAJ" append r >/dev/null
	"$KTRAJ" verify
	damage 4 pages
	run --separate-stderr "$KTRAJ" verify
	[ "$status" -eq 3 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "${stderr_lines[0]}" == "ktraj: verify: $KTRAJ_STORE: damaged LMDB page "*"(database blobs): overflow run of 2147483647 pages past the last page "* ]]
}

@test "verify: a damaged blob is named with the run and seq of an event that reads it" {
	T='ktraj verify_pages.bats: a blob too short to compress 0123456789'
	H=$(printf '%s\n' "$T" | sha256sum | cut -c1-64)
	{
		echo '{"kind":"note","payload":{"text":"first"}}'
		echo "{\"blob\":\"$H\",\"path\":\"k.cu\",\"text\":\"$T\\n\"}"
		echo "{\"kind\":\"edit\",\"payload\":{\"path\":\"k.cu\",\"op\":\"create\",\"before\":null,\"after\":\"$H\",\"tool\":\"Write\"}}"
	} | "$KTRAJ" append r >/dev/null
	"$KTRAJ" verify
	id=$(printf 'append:r' | sha256sum | cut -c1-32)
	python3 - "$KTRAJ_STORE" "$T" <<'PY'
import sys
p, t = sys.argv[1], sys.argv[2].encode()
d = bytearray(open(p, 'rb').read())
i = d.find(t)
assert i >= 0 and d.find(t, i + 1) < 0, "content stored once, as is"
d[i + 5] ^= 0x20
open(p, 'wb').write(d)
PY
	run --separate-stderr "$KTRAJ" verify
	[ "$status" -eq 3 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "${stderr_lines[0]}" = "ktraj: verify: run $id seq 2: corrupt: blob $H (its edit \"after\") does not match its hash" ]
	run --separate-stderr "$KTRAJ" verify r
	[ "$status" -eq 3 ]
	[ "${stderr_lines[0]}" = "ktraj: verify: run $id seq 2: corrupt: blob $H (its edit \"after\") does not match its hash" ]
}
