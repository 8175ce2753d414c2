#!/usr/bin/env bats
# Redaction everywhere a run is published (NDJSON tables, imported blobs,
# run names), valid UTF-8 run names, and run metadata through a ktraj JSONL
# export + import.  Fixtures are written by the tests themselves.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	TOK=ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij
}

# cc_session FILE SESSION PROMPT: a two-line Claude Code session
cc_session() {
	python3 - "$@" <<'PY'
import json,sys
f,sid,prompt=sys.argv[1:4]
l=[{"type":"user","sessionId":sid,"uuid":"u1","parentUuid":None,"cwd":"/home/alice/proj",
    "timestamp":"2025-01-01T00:00:00Z","message":{"role":"user","content":prompt}},
   {"type":"assistant","sessionId":sid,"uuid":"a1","parentUuid":"u1","cwd":"/home/alice/proj",
    "timestamp":"2025-01-01T00:00:01Z","message":{"role":"assistant","id":"m1","model":"x",
    "content":[{"type":"text","text":"ok, writing to carol@example.org"}]}}]
open(f,"w").write("".join(json.dumps(o)+"\n" for o in l))
PY
}

@test "export --format ndjson --redact: runs and events tables hold no token, e-mail or home user name" {
	cc_session "$BATS_TEST_TMPDIR/c.jsonl" nd-1 "use $TOK and mail bob.smith@example.com, see /home/alice/proj/k.cu"
	"$KTRAJ" import "$BATS_TEST_TMPDIR/c.jsonl" >/dev/null
	run "$KTRAJ" export --all --format ndjson --partition "$BATS_TEST_TMPDIR/p" --redact
	[ "$status" -eq 0 ]
	all=$(find "$BATS_TEST_TMPDIR/p" -name 'part-*.ndjson.zst' -exec zstd -qdc {} +)
	[[ "$all" == *'"payload"'* ]]
	[[ "$all" == *'"name"'* ]]
	[[ "$all" != *"ghp_"* ]]
	[[ "$all" != *"bob.smith@example.com"* ]]
	[[ "$all" != *"carol@example.org"* ]]
	[[ "$all" != *"alice"* ]]
	# without --redact the same tables keep them (the test can fail)
	"$KTRAJ" export --all --format ndjson --partition "$BATS_TEST_TMPDIR/q"
	plain=$(find "$BATS_TEST_TMPDIR/q" -name 'part-*.ndjson.zst' -exec zstd -qdc {} +)
	[[ "$plain" == *"$TOK"* ]]
	[[ "$plain" == *"alice"* ]]
}

@test "run names are redacted before they are cut: no piece of a token in ls, ls --json, NDJSON runs or ATIF --redact" {
	p="Please make the softmax kernel faster, thanks a lot $TOK"
	[ "${#p}" -gt 90 ]
	cc_session "$BATS_TEST_TMPDIR/c.jsonl" cut-1 "$p"
	"$KTRAJ" import "$BATS_TEST_TMPDIR/c.jsonl" >/dev/null
	run "$KTRAJ" ls
	[ "$status" -eq 0 ]
	[[ "$output" == *"Please make the softmax kernel"* ]]
	[[ "$output" != *"ghp_"* ]]
	run "$KTRAJ" ls --json
	[[ "$output" != *"ghp_"* ]]
	R=$(echo "$output" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	n=$(echo "$output" | python3 -c 'import json,sys; print(len(json.loads(sys.stdin.readline())["name"].encode()))')
	[ "$n" -le 80 ]
	run "$KTRAJ" export "$R" --format atif --redact
	[ "$status" -eq 0 ]
	[[ "$output" != *"ghp_"* ]]
	"$KTRAJ" export --all --format ndjson --partition "$BATS_TEST_TMPDIR/p"
	[[ "$(find "$BATS_TEST_TMPDIR/p/runs" -name 'part-*' -exec zstd -qdc {} +)" != *"ghp_"* ]]
	# a redacted import keeps the placeholder, not a piece of the token
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/r.ktraj"
	"$KTRAJ" import --redact "$BATS_TEST_TMPDIR/c.jsonl" >/dev/null
	run "$KTRAJ" ls --json
	[[ "$output" == *"thanks a lot"* ]]
	[[ "$output" != *"ghp_"* ]]
}

@test "run names are valid UTF-8 on one line: a skipped summary line with bad bytes names nothing, control characters become spaces" {
	f="$BATS_TEST_TMPDIR/u.jsonl"
	printf '{"type":"summary","summary":"bad \xff\xfe name","leafUuid":"u1"}\n' >"$f"
	cc_session "$BATS_TEST_TMPDIR/c.jsonl" utf-1 "tune the gemm tile sizes"
	cat "$BATS_TEST_TMPDIR/c.jsonl" >>"$f"
	run --separate-stderr "$KTRAJ" import "$f"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"invalid UTF-8"* ]]
	"$KTRAJ" ls --json | python3 -c '
import json,sys
raw=sys.stdin.buffer.read(); raw.decode("utf-8")  # strict: fails on bad bytes
r=json.loads(raw.splitlines()[0]); assert r["name"]=="tune the gemm tile sizes", r["name"]'
	# a control character in an accepted summary
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/c.ktraj"
	printf '{"type":"summary","summary":"Fix\\u0007the\\tkernel","leafUuid":"u1"}\n' >"$BATS_TEST_TMPDIR/v.jsonl"
	cc_session "$BATS_TEST_TMPDIR/c2.jsonl" utf-2 "hello"
	cat "$BATS_TEST_TMPDIR/c2.jsonl" >>"$BATS_TEST_TMPDIR/v.jsonl"
	"$KTRAJ" import "$BATS_TEST_TMPDIR/v.jsonl" >/dev/null
	"$KTRAJ" ls --json | python3 -c '
import json,sys
r=json.loads(sys.stdin.readline()); assert r["name"]=="Fix the kernel", r["name"]'
}

@test "import --redact stores text blobs redacted (written files, compiler output) and the events name the redacted blobs" {
	python3 - "$BATS_TEST_TMPDIR/b.jsonl" <<'PY'
import json,sys
h={"sessionId":"blob-1","cwd":"/home/alice/proj","timestamp":"2025-01-01T00:00:00Z"}
def L(**k): d=dict(h); d.update(k); return json.dumps(d)+"\n"
src='// by alice@example.com\n#include "/home/alice/proj/common.h"\n__global__ void k(){}\n'
ls=[L(type="user",uuid="u1",parentUuid=None,message={"role":"user","content":"write the kernel"}),
 L(type="assistant",uuid="a1",parentUuid="u1",message={"role":"assistant","id":"m1","model":"x","content":[
   {"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"/home/alice/proj/k.cu","content":src}}]}),
 L(type="user",uuid="u2",parentUuid="a1",message={"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"File created"}]}),
 L(type="assistant",uuid="a2",parentUuid="u2",message={"role":"assistant","id":"m2","model":"x","content":[
   {"type":"tool_use","id":"t2","name":"Bash","input":{"command":"nvcc -o k k.cu"}}]}),
 L(type="user",uuid="u3",parentUuid="a2",message={"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","is_error":True,
   "content":"/home/alice/proj/k.cu(3): error: identifier \"x\" is undefined\n1 error detected in the compilation of \"/home/alice/proj/k.cu\"."}]})]
open(sys.argv[1],"w").write("".join(ls))
PY
	run "$KTRAJ" import --json --redact "$BATS_TEST_TMPDIR/b.jsonl"
	[ "$status" -eq 0 ]
	R=$(echo "$output" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	run "$KTRAJ" verify
	[ "$status" -eq 0 ]
	"$KTRAJ" export "$R" >"$BATS_TEST_TMPDIR/e.jsonl"
	# the edit and the compile diagnostics name blobs that exist (their
	# lines are exported) and hold no user name or e-mail
	python3 - "$BATS_TEST_TMPDIR/e.jsonl" <<'PY'
import json,sys,hashlib
rows=[json.loads(l) for l in open(sys.argv[1])]
blobs={r["blob"]:r for r in rows if "blob" in r}
ev=[r for r in rows if "kind" in r]
edit=[r for r in ev if r["kind"]=="edit"][0]["payload"]
comp=[r for r in ev if r["kind"]=="compile"][0]["payload"]
assert edit["after"] in blobs, edit
assert comp.get("diagnostics_blob") in blobs, comp
for b in blobs.values():
    assert hashlib.sha256(b["text"].encode()).hexdigest()==b["blob"]
    assert "__global__" in b["text"] or "error" in b["text"]
PY
	[[ "$(cat "$BATS_TEST_TMPDIR/e.jsonl")" != *alice* ]]
	# the same import without --redact keeps them (the test can fail)
	KTRAJ_STORE="$BATS_TEST_TMPDIR/p.ktraj" "$KTRAJ" import "$BATS_TEST_TMPDIR/b.jsonl" >/dev/null
	[[ "$(KTRAJ_STORE="$BATS_TEST_TMPDIR/p.ktraj" "$KTRAJ" export "$R" | grep '"blob"')" == *alice* ]]
}

@test "export then import into another store keeps the run's name, format and meta; append skips the run line and keeps the hashes" {
	cc_session "$BATS_TEST_TMPDIR/c.jsonl" meta-1 "tune the softmax kernel"
	R=$("$KTRAJ" import --json "$BATS_TEST_TMPDIR/c.jsonl" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	"$KTRAJ" export "$R" -o "$BATS_TEST_TMPDIR/x.jsonl"
	head -1 "$BATS_TEST_TMPDIR/x.jsonl" | grep -q '^{"run":{"id":"'"$R"'","name":"tune the softmax kernel","format":"claude_code","meta":{'
	B="$BATS_TEST_TMPDIR/b.ktraj"
	run env KTRAJ_STORE="$B" "$KTRAJ" import "$BATS_TEST_TMPDIR/x.jsonl"
	[ "$status" -eq 0 ]
	python3 - <("$KTRAJ" ls --json) <(KTRAJ_STORE="$B" "$KTRAJ" ls --json) <<'PY'
import json,sys
a=json.loads(open(sys.argv[1]).readline()); b=json.loads(open(sys.argv[2]).readline())
for k in ("run","name","format","events"):
    assert a[k]==b[k], (k,a[k],b[k])
assert b["format"]=="claude_code" and b["name"]=="tune the softmax kernel", b
PY
	# meta too: the second export is the first, byte for byte
	KTRAJ_STORE="$B" "$KTRAJ" export "$R" | cmp - "$BATS_TEST_TMPDIR/x.jsonl"
	# append ignores the run line; the events hash the same
	run env KTRAJ_STORE="$BATS_TEST_TMPDIR/c.ktraj" "$KTRAJ" append copy <"$BATS_TEST_TMPDIR/x.jsonl"
	[ "$status" -eq 0 ]
	cmp <(grep '"kind"' "$BATS_TEST_TMPDIR/x.jsonl" | sed 's/"run":"[0-9a-f]*",//') \
	    <(KTRAJ_STORE="$BATS_TEST_TMPDIR/c.ktraj" "$KTRAJ" export copy | grep '"kind"' | sed 's/"run":"[0-9a-f]*",//')
	# export --redact redacts the run line (the meta holds /home/alice)
	grep -q alice "$BATS_TEST_TMPDIR/x.jsonl"
	run "$KTRAJ" export "$R" --redact
	[ "$status" -eq 0 ]
	[[ "$output" != *alice* ]]
	[[ "${lines[0]}" == '{"run":{"id":"'"$R"'","name":'* ]]
}

@test "import --redact of a run stored before without --redact says it stays unredacted; a redacted run is marked in its meta" {
	S="$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl"
	A="$BATS_TEST_TMPDIR/a.ktraj"
	KTRAJ_STORE="$A" "$KTRAJ" import "$S" >/dev/null
	run --separate-stderr env KTRAJ_STORE="$A" "$KTRAJ" import --redact "$S"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"run 3db88dd1ab52 was imported before without --redact and stays as stored, not redacted"* ]]
	run env KTRAJ_STORE="$A" "$KTRAJ" import --redact --strict "$S"
	[ "$status" -ne 0 ]
	B="$BATS_TEST_TMPDIR/b.ktraj"
	KTRAJ_STORE="$B" "$KTRAJ" import --redact "$S" >/dev/null
	run --separate-stderr env KTRAJ_STORE="$B" "$KTRAJ" import --redact "$S"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"not redacted"* ]]
	KTRAJ_STORE="$B" "$KTRAJ" ls --json | python3 -c '
import json,sys
r=json.loads(sys.stdin.readline())
assert r["meta"]["redacted"] is True, r["meta"]'
	KTRAJ_STORE="$A" "$KTRAJ" ls --json | python3 -c '
import json,sys
r=json.loads(sys.stdin.readline())
assert "redacted" not in r["meta"], r["meta"]'
}
