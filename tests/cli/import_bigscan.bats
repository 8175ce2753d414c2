#!/usr/bin/env bats
# Files of 1 MiB and more are mapped, and the passes before the import
# (the source's SHA-256, the Claude Code summary search) read them with
# pread in 1 MiB pieces (import.h kt_imp_find): the hash is the file's and
# a summary line is found wherever it lies, across a piece's end too.

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
}

# mk OUT AT: a Claude Code session of ~2.5 MiB whose "summary" (the
# second, quoted, in `"type":"summary"`) starts at byte AT, or none (AT 0)
mk() {
	python3 - "$1" "$2" <<'PY'
import json, sys
out, at = sys.argv[1], int(sys.argv[2])
def u(i, pad):
    return json.dumps({"type": "user", "sessionId": "big", "uuid": "u%d" % i, "cwd": "/w",
                       "timestamp": "2025-07-01T00:00:%02d.000Z" % (i % 60),
                       "message": {"role": "user", "content": "first prompt " + "x" * pad}}) + "\n"
s = ""
i = 0
summ = '{"type":"summary","summary":"Found past the map","leafUuid":"u1"}\n'
while len(s) < (at or 2500000) - 4096:
    i += 1
    s += u(i, 3000)
if at:
    # one line of the size that puts the match at byte `at`
    head = len(s)
    base = len(u(i + 1, 0))
    s += u(i + 1, at - head - base - len('{"type":'))
    s += summ
    assert s.find('"summary"') == at, (s.find('"summary"'), at)
for k in range(3):
    s += u(i + 2 + k, 100000)
open(out, "w").write(s)
PY
}

@test "import of a mapped file: the summary line found across a 1 MiB piece's end, and past the first piece" {
	for at in $((1048576 - 4)) $((2097152 - 1)) 1500000; do
		rm -f "$KTRAJ_STORE" "$KTRAJ_STORE-lock"
		mk "$BATS_TEST_TMPDIR/s.jsonl" "$at"
		run "$KTRAJ" import "$BATS_TEST_TMPDIR/s.jsonl"
		[ "$status" -eq 0 ]
		run "$KTRAJ" ls --json
		[[ "$output" == *'"name":"Found past the map"'* ]] || { echo "at $at: $output"; false; }
	done
}

@test "import of a mapped file: no summary names the run by its first prompt; the source hash is the file's" {
	mk "$BATS_TEST_TMPDIR/s.jsonl" 0
	run "$KTRAJ" import "$BATS_TEST_TMPDIR/s.jsonl"
	[ "$status" -eq 0 ]
	run "$KTRAJ" ls --json
	[[ "$output" == *'"name":"first prompt"'* ]]
	sha=$(sha256sum "$BATS_TEST_TMPDIR/s.jsonl" | cut -d' ' -f1)
	[[ "$output" == *"\"sha\":\"$sha\""* ]]
}
