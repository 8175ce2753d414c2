#!/usr/bin/env bats
# Files changed in a way the trajectory does not show (sed -i, perl -pi, a
# program's output redirected over a file) have unknown content from that
# step on: `ktraj cat` says so instead of printing the stale text, until a
# Read or a full write gives the content again.  `ktraj diff` does not diff
# against content nobody saw.  Fixture: tests/data/import/ws/
# ws_unknown.jsonl (ours): Write k.cu, sed -i k.cu, Read k.cu, Write gen.cu,
# `python gen.py > gen.cu && perl -pi ... k.cu`, Write gen.cu.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/import/ws/ws_unknown.jsonl" >/dev/null
	R=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
}

# seq of the n-th (1-based) edit of path with op
edit_seq() {
	"$KTRAJ" log "$R" --json | python3 -c '
import json,sys
p,op,n=sys.argv[1],sys.argv[2],int(sys.argv[3])
e=[r["seq"] for r in map(json.loads,sys.stdin) if r["kind"]=="edit" and r.get("path")==p and r.get("op")==op]
print(e[n-1])' "$1" "$2" "${3:-1}"
}

@test "sed -i: content unknown from that step, not the stale text; a Read gives it back" {
	u=$(edit_seq /w/k.cu unknown)
	run "$KTRAJ" cat "$R" /w/k.cu --at $((u - 1))
	[ "$status" -eq 0 ]
	[ "$output" = "int old;" ]
	run "$KTRAJ" cat "$R" /w/k.cu --at "$u"
	[ "$status" -eq 4 ]
	[[ "$output" == "ktraj: cat: /w/k.cu has unknown content at step $u (step $((u - 2)) changed it"* ]]
	[[ "$output" != *"int old"* ]]
	# the Read's result (3 steps on) observed the new content
	run "$KTRAJ" cat "$R" /w/k.cu --at $((u + 2))
	[ "$status" -eq 0 ]
	[ "$output" = "int new;" ]
	# perl -pi later: unknown again up to the end
	run "$KTRAJ" cat "$R" /w/k.cu
	[ "$status" -eq 4 ]
	[[ "$output" == *"has unknown content after the last step"* ]]
}

@test "a program's output over a known file: unknown until a full write re-seeds it" {
	u=$(edit_seq /w/gen.cu unknown)
	run "$KTRAJ" cat "$R" /w/gen.cu --at $((u - 1))
	[ "$output" = "// v1" ]
	run "$KTRAJ" cat "$R" /w/gen.cu --at "$u"
	[ "$status" -eq 4 ]
	[[ "$output" == *"unknown content"* ]]
	run "$KTRAJ" cat "$R" /w/gen.cu
	[ "$status" -eq 0 ]
	[ "$output" = "// v3" ]
	# the edit after unknown content: a modify whose before is not known
	"$KTRAJ" show "$R" "$(edit_seq /w/gen.cu modify)" --json | python3 -c '
import json,sys
p=json.load(sys.stdin)["payload"]
assert p["op"]=="modify" and p["before"] is None and len(p["after"])==64, p'
	# the unknown edit itself: before = what was believed, after null
	"$KTRAJ" show "$R" "$u" --json | python3 -c '
import json,sys
e=json.load(sys.stdin); p=e["payload"]
assert p["op"]=="unknown" and p["after"] is None and len(p["before"])==64 and p["tool"]=="shell", p
assert e["parent"]==p["call"], e'
}

@test "diff says the content is unknown rather than diffing against nothing" {
	u=$(edit_seq /w/k.cu unknown)
	run "$KTRAJ" diff "$R" $((u - 1)) "$u"
	[ "$status" -eq 0 ]
	[[ "$output" == "Content of /w/k.cu unknown at step $u"* ]]
	[[ "$output" != *"/dev/null"* ]]
	run "$KTRAJ" diff "$R" $((u - 1)) "$u" --json
	[ "$status" -eq 0 ]
	echo "$output" | python3 -c '
import json,sys
o=json.loads(sys.stdin.readline())
assert o["path"]=="/w/k.cu" and o["op"]=="unknown" and o["unknown"]=="to" and o["diff"] is None, o'
}
