#!/usr/bin/env bats
# Files removed by shell commands: `rm -rf DIR` (and -r, -fr, -R,
# --recursive) deletes every file the workspace knows under DIR; a glob
# (`rm out/*.txt`) or a variable (`rm -r $TMPD`) makes what it may name
# unknown, and never resurrects a file known to be gone.  Fixture (ours):
# tests/data/import/ws/ws_rm.jsonl: Write build/a.o, build/sub/b.txt, k.cu,
# out/x.txt, out/keep/y.txt, tmp/t.txt, buildx/c.txt; then Bash
# `rm -rf build`, `rm -fr tmp/`, `rm out/*.txt`, `rm -r $TMPD`.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/import/ws/ws_rm.jsonl" >/dev/null
	R=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
}

# seq of the first edit of path with op
edit_seq() {
	"$KTRAJ" log "$R" --json | python3 -c '
import json,sys
p,op=sys.argv[1],sys.argv[2]
e=[r["seq"] for r in map(json.loads,sys.stdin) if r["kind"]=="edit" and r.get("path")==p and r.get("op")==op]
print(e[0] if e else 0)' "$1" "$2"
}

@test "rm -rf DIR: every file known under DIR is deleted at that step, a sibling with the same prefix is not" {
	d=$(edit_seq /w/build/a.o delete)
	[ "$d" -gt 0 ]
	run "$KTRAJ" cat "$R" /w/build/a.o --at $((d - 3))
	[ "$status" -eq 0 ]
	[ "$output" = obj ]
	run "$KTRAJ" cat "$R" /w/build/a.o --at "$d"
	[ "$status" -eq 4 ]
	[[ "$output" == "ktraj: cat: /w/build/a.o was deleted at step $d (it exists at steps "*"-$((d - 1)))" ]]
	run "$KTRAJ" cat "$R" /w/build/sub/b.txt --at $((d + 1))
	[ "$status" -eq 4 ]
	[[ "$output" == *"was deleted"* ]]
	run "$KTRAJ" cat "$R" /w/buildx/c.txt --at $((d + 1))
	[ "$status" -eq 0 ]
	[ "$output" = c ]
	# both deletes belong to the Bash call
	"$KTRAJ" show "$R" "$d" --json | python3 -c '
import json,sys
e=json.load(sys.stdin); p=e["payload"]
assert p["op"]=="delete" and p["after"] is None and len(p["before"])==64 and p["tool"]=="shell", p
assert e["parent"]==p["call"], e'
	# a trailing slash names the same directory
	t=$(edit_seq /w/tmp/t.txt delete)
	[ "$t" -gt "$d" ]
	run "$KTRAJ" cat "$R" /w/tmp/t.txt
	[ "$status" -eq 4 ]
	[[ "$output" == *"was deleted after the last step"* ]]
}

@test "rm of a glob: the files it matches become unknown, a file in a subfolder stays" {
	u=$(edit_seq /w/out/x.txt unknown)
	[ "$u" -gt 0 ]
	[ "$(edit_seq /w/out/x.txt delete)" -eq 0 ]
	run "$KTRAJ" cat "$R" /w/out/x.txt --at "$u"
	[ "$status" -eq 4 ]
	[[ "$output" == *"has unknown content at step $u"* ]]
	run "$KTRAJ" cat "$R" /w/out/keep/y.txt --at "$u"
	[ "$status" -eq 0 ]
	[ "$output" = y ]
}

@test "rm -r \$VAR: every file known under the cwd is unknown; files already deleted stay deleted" {
	k=$(edit_seq /w/k.cu unknown)
	[ "$k" -gt "$(edit_seq /w/out/x.txt unknown)" ]
	run "$KTRAJ" cat "$R" /w/k.cu --at $((k - 1))
	[ "$output" = "int k;" ]
	run "$KTRAJ" cat "$R" /w/k.cu
	[ "$status" -eq 4 ]
	[[ "$output" == *"unknown content"* ]]
	run "$KTRAJ" cat "$R" /w/build/a.o
	[ "$status" -eq 4 ]
	[[ "$output" == *"was deleted"* ]]
	[ "$(edit_seq /w/build/a.o unknown)" -eq 0 ]
	run "$KTRAJ" verify
	[ "$status" -eq 0 ]
}
