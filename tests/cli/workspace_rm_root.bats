#!/usr/bin/env bats
# rm of / (import/shellparse.c rm_ops): GNU rm refuses `rm -rf /` (its
# --preserve-root default) and `.`/`..` operands, so those remove nothing;
# `rm -rf --no-preserve-root /` removes everything, so every file the
# workspace knows is deleted, relative ones (the session gave no cwd)
# included.  Fixture (ours): tests/data/import/ws/ws_rm_root.jsonl, a
# Claude Code session without cwd: Write /w/a.c, Write rel/b.txt, then
# Bash `rm -rf /` (refused), `rm -rf .. .` (refused),
# `sudo rm -rf --no-preserve-root /`.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/import/ws/ws_rm_root.jsonl" >/dev/null
	R=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
}

# seq of the tool_call whose command is $1
call_seq() {
	"$KTRAJ" log "$R" --json | python3 -c '
import json,sys
print([r["seq"] for r in map(json.loads,sys.stdin) if r["kind"]=="tool_call" and r.get("tool")=="Bash"][int(sys.argv[1])])' "$1"
}

@test "rm -rf / and rm -rf .. . are refused: every file is still there after them" {
	s=$(call_seq 2)
	[ "$s" -gt 0 ]
	run "$KTRAJ" cat "$R" /w/a.c --at "$s"
	[ "$status" -eq 0 ]
	[ "$output" = "int a;" ]
	run "$KTRAJ" cat "$R" rel/b.txt --at "$s"
	[ "$status" -eq 0 ]
	[ "$output" = b ]
}

@test "rm -rf --no-preserve-root /: every known file is deleted by that call, relative ones too" {
	s=$(call_seq 2)
	"$KTRAJ" log "$R" --json | python3 -c '
import json,sys
s=int(sys.argv[1])
rows=list(map(json.loads,sys.stdin))
d=sorted(r["path"] for r in rows if r["kind"]=="edit" and r.get("op")=="delete")
assert d==["/w/a.c","rel/b.txt"], d
assert all(r["seq"]>s for r in rows if r["kind"]=="edit" and r.get("op")=="delete"), rows' "$s"
	run "$KTRAJ" cat "$R" /w/a.c
	[ "$status" -eq 4 ]
	[[ "$output" == *"was deleted"* ]]
	run "$KTRAJ" cat "$R" rel/b.txt
	[ "$status" -eq 4 ]
	[[ "$output" == *"was deleted"* ]]
	run "$KTRAJ" verify
	[ "$status" -eq 0 ]
}
