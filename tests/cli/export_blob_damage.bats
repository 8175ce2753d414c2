#!/usr/bin/env bats
# The agent-format exports (claude_code, sts, otlp, atif) on a store whose
# blob content is damaged (one flipped byte, `verify` exits 3): a format
# that reads the blob stops with exit 3 and the damage line the jsonl
# export's --verify prints ("seq N: blob H: corrupt data"), rather than
# writing null or the cut inline text where the content was.  A format that
# does not read that blob exports the run (exit 0).
#   blob               read by                  not read by
#   an edit's before   claude_code (originalFile)   sts, otlp, atif
#   a result's output  claude_code, sts, otlp   atif (writes the inline part)

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	A='int marker_a = 1;\n'
	B='int marker_b = 2;\n'
	O='full output marker_o\n'
	HA=$(printf "$A" | sha256sum | cut -c1-64)
	HB=$(printf "$B" | sha256sum | cut -c1-64)
	HO=$(printf "$O" | sha256sum | cut -c1-64)
	{
		echo "{\"blob\":\"$HA\",\"path\":\"src/m.c\",\"text\":\"int marker_a = 1;\\n\"}"
		echo "{\"blob\":\"$HB\",\"path\":\"src/m.c\",\"text\":\"int marker_b = 2;\\n\"}"
		echo "{\"blob\":\"$HO\",\"text\":\"full output marker_o\\n\"}"
		echo '{"kind":"tool_call","payload":{"tool":"Edit","call_id":"c1","args":{"file_path":"src/m.c","old_string":"1","new_string":"2"}}}'
		echo "{\"kind\":\"edit\",\"payload\":{\"path\":\"src/m.c\",\"op\":\"modify\",\"before\":\"$HA\",\"after\":\"$HB\",\"tool\":\"Edit\",\"call\":1}}"
		echo "{\"kind\":\"tool_result\",\"payload\":{\"call_id\":\"c1\",\"ok\":true,\"output\":\"cut\",\"output_blob\":\"$HO\"}}"
	} | "$KTRAJ" append demo >/dev/null
}

# damage MARKER: flip a bit of MARKER's first byte wherever the file holds
# it (LMDB may keep older copies of a page: the one in use is among them)
damage() {
	python3 - "$KTRAJ_STORE" "$1" <<'PY'
import sys
p, m = sys.argv[1], sys.argv[2].encode()
d = bytearray(open(p, 'rb').read())
i = d.find(m)
assert i >= 0
while i >= 0:
    d[i] ^= 0x20
    i = d.find(m, i + 1)
open(p, 'wb').write(d)
PY
	rm -f "$KTRAJ_STORE-lock"
}

@test "sound store: claude_code writes the edit's content before and the whole output" {
	run --separate-stderr "$KTRAJ" export demo --format claude_code
	[ "$status" -eq 0 ]
	[[ "$output" == *'"originalFile":"int marker_a = 1;\n"'* ]]
	[[ "$output" == *'"content":"full output marker_o\n"'* ]]
}

@test "a damaged edit content: claude_code exits 3 naming the blob; sts, otlp, atif do not read it" {
	damage marker_a
	run "$KTRAJ" verify
	[ "$status" -eq 3 ]
	run --separate-stderr "$KTRAJ" export demo --format claude_code -o "$BATS_TEST_TMPDIR/cc.jsonl"
	[ "$status" -eq 3 ]
	[ "$stderr" = "ktraj: export: seq 3: blob $HA: corrupt data" ]
	[ ! -e "$BATS_TEST_TMPDIR/cc.jsonl" ]
	for f in sts otlp atif; do
		run --separate-stderr "$KTRAJ" export demo --format $f
		[ "$status" -eq 0 ]
		[[ "$output" != *Marker_a* ]]
	done
}

@test "a damaged tool output: claude_code, sts and otlp exit 3; atif writes only the inline part" {
	damage marker_o
	run "$KTRAJ" verify
	[ "$status" -eq 3 ]
	for f in claude_code sts otlp; do
		run --separate-stderr "$KTRAJ" export demo --format $f
		[ "$status" -eq 3 ]
		[ "$stderr" = "ktraj: export: seq 3: blob $HO: corrupt data" ]
		[[ "$output" != *Marker_o* ]]
	done
	run --separate-stderr "$KTRAJ" export demo --format atif
	[ "$status" -eq 0 ]
	[[ "$output" == *'"content":	"cut"'* ]]
}
