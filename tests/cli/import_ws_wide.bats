#!/usr/bin/env bats
# Shell commands that change files they do not name make the content of the
# known files they may have touched unknown (import/README.md, "Files a
# command does not name"); a Read or a full write gives it back.  Fixture
# (ours): tests/data/import/ws/ws_wide.jsonl, a Claude Code session with cwd
# /w that writes /w/src/a.cu, /w/src/b.cu, /w/k.h and /elsewhere/d.cu, then
# runs, one Bash call each (t5..t23 in the file):
#   python3 bench.py            a benchmark: nothing becomes unknown
#   python fix_launch.py        a script named as an editor: all of /w
#   (Read a.cu; Write b.cu, k.h)
#   sed -i 's/int/long/' src/*.cu     the files the glob matches
#   (Write a.cu, b.cu, fix.diff)
#   patch -p1 < fix.diff        the files the patch names (a.cu)
#   git checkout -- src/b.cu    b.cu
#   (Write a.cu, b.cu)
#   python3 - <<'EOF' ... write_text ... EOF     inline code that writes: /w
#   (Write a.cu, b.cu, k.h)
#   for f in src/*.cu; do perl -pi -e ... $f; done    a loop: /w
#   git stash                   every known file, /elsewhere too

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/import/ws/ws_wide.jsonl" >/dev/null
	R=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	# "after call N": the step before the next tool_call (the last step
	# after the last call)
	AFTER=($("$KTRAJ" log "$R" --json | python3 -c '
import json,sys
rows=[json.loads(l) for l in sys.stdin]
calls=[r["seq"] for r in rows if r["kind"]=="tool_call"]
print(" ".join(str(s-1) for s in calls[1:]+[rows[-1]["seq"]+1]))'))
}

# state PATH CALL: the content after tool call CALL (1-based), or "unknown"
state() {
	local out st
	out=$("$KTRAJ" cat "$R" "$1" --at "${AFTER[$(($2 - 1))]}" 2>&1) && st=0 || st=$?
	if [ "$st" -eq 4 ] && [[ "$out" == *"has unknown content"* ]]; then
		echo unknown
	elif [ "$st" -eq 0 ]; then
		echo "$out"
	else
		echo "error $st: $out"
	fi
}

@test "python3 bench.py changes nothing; python fix_launch.py makes the files under the cwd unknown" {
	[ "$(state /w/src/a.cu 5)" = "int a1;" ]
	[ "$(state /w/k.h 5)" = "int k1;" ]
	[ "$(state /w/src/a.cu 6)" = unknown ]
	[ "$(state /w/src/b.cu 6)" = unknown ]
	[ "$(state /w/k.h 6)" = unknown ]
	# outside the cwd: kept
	[ "$(state /elsewhere/d.cu 6)" = "int d1;" ]
	# the Read re-seeds a.cu
	[ "$(state /w/src/a.cu 7)" = "int a2;" ]
	# the unknown edits name the script's call
	"$KTRAJ" log "$R" --json | python3 -c '
import json,sys
rows=[json.loads(l) for l in sys.stdin]
calls=[r for r in rows if r["kind"]=="tool_call"]
c6=calls[5]["seq"]
u=[r["path"] for r in rows if r["kind"]=="edit" and r["parent"]==c6]
assert u==["/w/k.h","/w/src/a.cu","/w/src/b.cu"], u'
}

@test "sed -i with a glob: the files it matches, not the others" {
	[ "$(state /w/src/a.cu 10)" = unknown ]
	[ "$(state /w/src/b.cu 10)" = unknown ]
	[ "$(state /w/k.h 10)" = "int k2;" ]
}

@test "patch -p1 < file: the files the patch names; git checkout -- f: f" {
	[ "$(state /w/src/a.cu 13)" = "int a3;" ]
	[ "$(state /w/src/a.cu 14)" = unknown ]
	[ "$(state /w/src/b.cu 14)" = "int b3;" ]
	[ "$(state /w/fix.diff 14)" = "$(printf -- '--- a/src/a.cu\n+++ b/src/a.cu\n@@ -1 +1 @@\n-int a3;\n+int a4;')" ]
	[ "$(state /w/src/b.cu 15)" = unknown ]
	[ "$(state /w/k.h 15)" = "int k2;" ]
}

@test "python3 - <<EOF that writes, a loop of perl -pi, git stash" {
	[ "$(state /w/src/a.cu 17)" = "int a5;" ]
	[ "$(state /w/src/a.cu 18)" = unknown ]
	[ "$(state /w/fix.diff 18)" = unknown ]
	[ "$(state /elsewhere/d.cu 18)" = "int d1;" ]
	[ "$(state /w/src/b.cu 21)" = "int b7;" ]
	[ "$(state /w/src/b.cu 22)" = unknown ]
	[ "$(state /w/k.h 22)" = unknown ]
	[ "$(state /elsewhere/d.cu 22)" = "int d1;" ]
	[ "$(state /elsewhere/d.cu 23)" = unknown ]
	# cat by suffix says unknown too
	run "$KTRAJ" cat "$R" d.cu
	[ "$status" -eq 4 ]
	[[ "$output" == *"/elsewhere/d.cu has unknown content after the last step"* ]]
}

@test "re-importing the fixture adds nothing" {
	run "$KTRAJ" import "$BATS_TEST_DIRNAME/../data/import/ws/ws_wide.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 added"* ]]
}
