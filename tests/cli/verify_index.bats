#!/usr/bin/env bats
# verify sees a damaged branch page: a cursor walk goes leaf to leaf and
# misses it, lookups (cat, point reads) go through it.

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
}

@test "verify catches a branch key that sends lookups to the wrong page" {
	python3 "$BATS_TEST_DIRNAME/../bench/gen.py" --events 6000 "$BATS_TEST_TMPDIR/g.jsonl" >/dev/null
	"$KTRAJ" import "$BATS_TEST_TMPDIR/g.jsonl" >/dev/null
	"$KTRAJ" verify
	# LMDB pages (4 KiB): header pgno(8) pad(2) flags(2) lower(2) upper(2),
	# then the node offsets; a branch node is pgno(6) ksize(2) key.  Raise
	# the separator key of the second node of a branch page with long keys
	# (a run id and more: not the free list's 8-byte ones) above every key.
	python3 - "$KTRAJ_STORE" <<'PY'
import struct, sys
p = sys.argv[1]
d = bytearray(open(p, 'rb').read())
done = False
for off in range(0, len(d), 4096):
	flags, lower = struct.unpack_from('<HH', d, off + 10)
	if flags & 0x01 and not flags & 0x02 and (lower - 16) // 2 >= 2:
		node = off + struct.unpack_from('<H', d, off + 16 + 2)[0]
		ks = struct.unpack_from('<H', d, node + 6)[0]
		if ks >= 26:
			d[node + 8:node + 8 + ks] = b'\xff' * ks
			done = True
			break
assert done, "no branch page with long keys"
open(p, 'wb').write(d)
PY
	run "$KTRAJ" verify
	[ "$status" -eq 3 ]
	[[ "$output" == *"not found by a lookup"* ]]
	[[ "$output" != *"run ?"* ]]
}
