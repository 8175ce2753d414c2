#!/usr/bin/env bats
# verify checks LMDB's own pages before LMDB reads them (FORMAT.md §6.10
# "LMDB's own pages"): a damaged node offset or overflow page count is one
# `ktraj: verify: ...` line naming the page and exit 3, never a crash.  And
# a damaged blob is named with an event that reads it.  The commands that
# write check too, at open (FORMAT.md §5): a damaged store is refused with
# one line and exit 3, its file unchanged.

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
	elif what == 'flags':  # a leaf made a branch, a branch a leaf
		struct.pack_into('<H', d, off + 10, 3 - want)
	elif what == 'upper':  # the free space's upper bound one lower: odd
		struct.pack_into('<H', d, off + 14,
				 struct.unpack_from('<H', d, off + 14)[0] - 1)
	elif what == 'pgno':   # the header names another page
		d[off] ^= 0x40
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

# A writer given a damaged store: one line naming the page, exit 3, and not
# a byte of the file changed (LMDB aborted append and import in
# mdb_page_search_root on a leaf's flags made a branch's, exit 134).
refused() { # command...
	cp "$KTRAJ_STORE" "$BATS_TEST_TMPDIR/before"
	run --separate-stderr "$@"
	[ "$status" -eq 3 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "${stderr_lines[0]}" =~ ^"ktraj: $2: $KTRAJ_STORE: damaged LMDB page "[0-9]+" (database "[a-z_]+"): " ]]
	cmp "$KTRAJ_STORE" "$BATS_TEST_TMPDIR/before"
}

@test "append, import and init refuse a store with damaged pages, leaving it unchanged" {
	python3 "$BATS_TEST_DIRNAME/../bench/gen.py" --events 2000 "$BATS_TEST_TMPDIR/g.jsonl" >/dev/null
	run "$KTRAJ" import "$BATS_TEST_TMPDIR/g.jsonl"
	[[ "$output" =~ " "([0-9]+)" events " ]]
	n0=${BASH_REMATCH[1]}
	cp "$KTRAJ_STORE" "$BATS_TEST_TMPDIR/sound"
	echo '{"kind":"note","payload":{"text":"another run"}}' >"$BATS_TEST_TMPDIR/n.jsonl"
	python3 "$BATS_TEST_DIRNAME/../bench/gen.py" --events 30 --seed 7 "$BATS_TEST_TMPDIR/g7.jsonl" >/dev/null
	for d in "2 flags" "1 flags" "1 ptr" "2 ptr" "2 upper" "2 pgno"; do
		cp "$BATS_TEST_TMPDIR/sound" "$KTRAJ_STORE"
		damage $d
		refused "$KTRAJ" append r <"$BATS_TEST_TMPDIR/n.jsonl"
		refused "$KTRAJ" import "$BATS_TEST_TMPDIR/g.jsonl"
		refused "$KTRAJ" import "$BATS_TEST_TMPDIR/g7.jsonl"
		refused "$KTRAJ" init
		# and verify names a damaged page too
		run --separate-stderr "$KTRAJ" verify
		[ "$status" -eq 3 ]
		[[ "${stderr_lines[0]}" == "ktraj: verify: $KTRAJ_STORE: damaged LMDB page "* ]]
	done
	# the sound store takes both writes
	cp "$BATS_TEST_TMPDIR/sound" "$KTRAJ_STORE"
	"$KTRAJ" append r <"$BATS_TEST_TMPDIR/n.jsonl"
	run "$KTRAJ" import "$BATS_TEST_TMPDIR/g7.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" =~ " "([0-9]+)" events "+([0-9]+)" added" ]]
	[ "${BASH_REMATCH[1]}" -gt 0 ]
	[ "${BASH_REMATCH[2]}" = "${BASH_REMATCH[1]}" ]
	run "$KTRAJ" verify
	[ "$status" -eq 0 ]
	[ "$output" = "ok: 3 runs, $((n0 + 1 + BASH_REMATCH[1])) events verified" ]
}

@test "append refuses a damaged overflow run and a damaged free page list, unchanged" {
	for i in 1 2 3; do
		t=$(head -c 6000 /dev/urandom | base64 -w0)
		echo "{\"blob\":\"$(printf '%s' "$t" | sha256sum | cut -c1-64)\",\"text\":\"$t\"}"
	done | "$KTRAJ" append r >/dev/null
	for i in 1 2 3; do
		echo '{"kind":"note","payload":{"text":"a commit"}}' | "$KTRAJ" append r >/dev/null
	done
	"$KTRAJ" verify
	cp "$KTRAJ_STORE" "$BATS_TEST_TMPDIR/sound"
	damage 4 pages
	refused "$KTRAJ" append r <<<'{"kind":"note","payload":{"text":"x"}}'
	# the free DB (LMDB 0.9, 64-bit): its root from the newer meta page; a
	# record's key is a txnid, its data a count and that many page numbers
	cp "$BATS_TEST_TMPDIR/sound" "$KTRAJ_STORE"
	python3 - "$KTRAJ_STORE" <<'PY'
import struct, sys
p = sys.argv[1]
d = bytearray(open(p, 'rb').read())
m = max((16 + i * 4096 for i in (0, 1)),
	key=lambda m: struct.unpack_from('<Q', d, m + 24 + 96 + 8)[0])
depth = struct.unpack_from('<H', d, m + 24 + 6)[0]
root = struct.unpack_from('<Q', d, m + 24 + 40)[0]
assert depth == 1 and root < len(d) // 4096, (depth, root)
off = root * 4096
nd = off + struct.unpack_from('<H', d, off + 16)[0]
lo, hi, fl, ks = struct.unpack_from('<4H', d, nd)
assert fl == 0 and ks == 8, (fl, ks)
# the first list counts more pages than it holds
struct.pack_into('<Q', d, nd + 8 + ks, 1000)
open(p, 'wb').write(d)
PY
	refused "$KTRAJ" append r <<<'{"kind":"note","payload":{"text":"x"}}'
	[[ "${stderr_lines[0]}" == *"(database free): node 0 counts 1000 free pages in room for "* ]]
}
