#!/usr/bin/env bats
# A bench result's source_hash (FORMAT.md section 14 "Noise"; import.h
# kt_ws_code_hash): the SHA-256 of the sorted paths of every code file an
# edit named, each with its content's SHA-256 ("deleted" when removed),
# documentation and data files left out.  The importer keeps the sorted
# list between results and finds entries again when its file table grows,
# so the session here writes files out of path order, past the table's
# first sizes, with a result after each few writes.

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
}

@test "source_hash: the sorted code files with their content hashes, whatever order they were written in" {
	S="$BATS_TEST_TMPDIR/sess.jsonl"
	python3 - "$S" "$BATS_TEST_TMPDIR/want.json" <<'PY'
import hashlib, json, sys
out, want = sys.argv[1], sys.argv[2]
lines, n, files, expect = [], 0, {}, []
def line(d):
    global n
    n += 1
    d.update({"sessionId": "codehash", "uuid": "u%d" % n, "cwd": "/w",
              "timestamp": "2025-07-01T00:%02d:%02d.000Z" % (n // 60 % 60, n % 60)})
    lines.append(json.dumps(d))
def call(tid, name, inp, res, tur):
    line({"type": "assistant", "message": {"id": "m" + tid, "role": "assistant",
          "content": [{"type": "tool_use", "id": tid, "name": name, "input": inp}]}})
    line({"type": "user", "message": {"role": "user", "content": [
          {"type": "tool_result", "tool_use_id": tid, "content": res}]}, "toolUseResult": tur})
def code_hash():
    b = b""
    for p in sorted(files):
        b += p.encode() + b"\0" + hashlib.sha256(files[p].encode()).hexdigest().encode() + b"\0"
    return hashlib.sha256(b).hexdigest()
line({"type": "user", "message": {"role": "user", "content": "tune the kernels"}})
# 150 code files written in a scrambled order, a note and data file too,
# and a benchmark run after every fifth write
for i in range(150):
    k = (i * 37) % 150
    p = "/w/src/k%03d.cu" % k
    body = "__global__ void k%d() {}\n// %d\n" % (k, i)
    call("w%d" % i, "Write", {"file_path": p, "content": body},
         "File created successfully at: " + p,
         {"type": "create", "filePath": p, "content": body, "structuredPatch": []})
    files[p] = body
    if i % 10 == 3:
        call("n%d" % i, "Write", {"file_path": "/w/NOTES%d.md" % i, "content": "note"},
             "File created successfully at: /w/NOTES%d.md" % i,
             {"type": "create", "filePath": "/w/NOTES%d.md" % i, "content": "note", "structuredPatch": []})
    if i % 5 == 4:
        o = "kernel: k\ntime_ms: %d.5\n" % (i + 1)
        call("b%d" % i, "Bash", {"command": "nvcc -o k src/k%03d.cu && ./k" % k},
             o, {"stdout": o, "stderr": "", "interrupted": False})
        expect.append(code_hash())
open(out, "w").write("\n".join(lines) + "\n")
json.dump(expect, open(want, "w"))
PY
	run "$KTRAJ" import "$S"
	[ "$status" -eq 0 ]
	R=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	"$KTRAJ" export "$R" --format jsonl >"$BATS_TEST_TMPDIR/ev.jsonl"
	python3 -c '
import json, sys
got = [json.loads(l) for l in open(sys.argv[1])]
got = [e["payload"]["source_hash"] for e in got if e.get("kind") == "bench"]
want = json.load(open(sys.argv[2]))
assert len(want) == 30 and got == want, (len(got), got[:3], want[:3])' "$BATS_TEST_TMPDIR/ev.jsonl" "$BATS_TEST_TMPDIR/want.json"
}
