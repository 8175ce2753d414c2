#!/usr/bin/env bats
# Claude Code lines keep what they said: raw invalid UTF-8 in a text field
# is repaired as an escaped lone surrogate is (U+FFFD, the line kept, one
# warning per file), and fields the importer does not read (Claude Code
# 2.x's usage iterations, speed, inference_geo, a top-level entrypoint,
# userType, requestId, stop_reason ...) land in the first event of their
# line as payload.extra.unknown {top, message, usage}.  Fixtures are made
# here from tests/data/import/claude/s2x.jsonl, our own session.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	S2X="$BATS_TEST_DIRNAME/../data/import/claude/s2x.jsonl"
}

events() { "$KTRAJ" ls --json | python3 -c 'import json,sys; print(sum(json.loads(l)["events"] for l in sys.stdin))'; }

@test "raw invalid UTF-8 in two lines' text: both lines kept with U+FFFD, one warning" {
	python3 - "$S2X" "$BATS_TEST_TMPDIR/bad.jsonl" <<'PY'
import sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
lines[0] = lines[0].replace(b"Make the kernel", b"Make the \xff\xfe kernel")
lines[3] = lines[3].replace(b"read the kernel", b"read the \xc3 kernel")
open(sys.argv[2], "wb").write(b"\n".join(lines))
PY
	cp "$S2X" "$BATS_TEST_TMPDIR/good.jsonl"
	"$KTRAJ" --store "$BATS_TEST_TMPDIR/good.ktraj" import "$BATS_TEST_TMPDIR/good.jsonl" >/dev/null
	good=$(KTRAJ_STORE="$BATS_TEST_TMPDIR/good.ktraj" events)
	run --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/bad.jsonl"
	[ "$status" -eq 0 ]
	[ "$(events)" -eq "$good" ]
	[ "$(grep -c 'invalid UTF-8' <<<"$stderr")" -eq 1 ]
	[[ "$stderr" == *"bad.jsonl:1: invalid UTF-8 at byte "*": replaced by U+FFFD (said once per file)"* ]]
	run "$KTRAJ" search --json "kernel"
	[[ "$output" == *"Make the �� kernel"* ]]
	[[ "$output" == *"read the � kernel"* ]]
}

@test "unknown fields of a line (2.x usage iterations, speed, inference_geo, entrypoint) are kept in extra.unknown" {
	python3 - "$S2X" "$BATS_TEST_TMPDIR/v2.jsonl" <<'PY'
import json, sys
out = []
for l in open(sys.argv[1]).read().splitlines():
    o = json.loads(l)
    if o.get("uuid") == "a1":
        o["entrypoint"] = "cli"
        o["message"]["container"] = None
        o["message"]["usage"].update({"iterations": 3, "speed": "fast",
                                      "inference_geo": "us"})
    out.append(json.dumps(o))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
	"$KTRAJ" import "$BATS_TEST_TMPDIR/v2.jsonl" >/dev/null
	run=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	n=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["events"])')
	for seq in $(seq 1 "$n"); do "$KTRAJ" show "$run" "$seq" --json; done >"$BATS_TEST_TMPDIR/all.ndjson"
	python3 - "$BATS_TEST_TMPDIR/all.ndjson" <<'PY'
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
un = [(e["prov"]["line"], e["payload"].get("extra", {}).get("unknown")) for e in evs]
# line 4 (uuid a1): its one event keeps all of it
a1 = [u for line, u in un if line == 4]
assert len(a1) == 1, a1
u = a1[0]
assert u["top"]["entrypoint"] == "cli" and u["top"]["userType"] == "external", u
assert u["top"]["requestId"] == "req_1", u
assert u["message"] == {"stop_reason": None, "container": None}, u
assert u["usage"] == {"iterations": 3, "speed": "fast", "inference_geo": "us"}, u
# a line of several events carries them once
lines = {}
for line, u in un:
    if u is not None:
        lines[line] = lines.get(line, 0) + 1
assert all(c == 1 for c in lines.values()), lines
PY
	# the kept fields survive an export and import into another store
	"$KTRAJ" export "$run" -o "$BATS_TEST_TMPDIR/x.jsonl"
	grep -q '"inference_geo":"us"' "$BATS_TEST_TMPDIR/x.jsonl"
	KTRAJ_STORE="$BATS_TEST_TMPDIR/t.ktraj" "$KTRAJ" import "$BATS_TEST_TMPDIR/x.jsonl" >/dev/null
	"$KTRAJ" verify >/dev/null
}
