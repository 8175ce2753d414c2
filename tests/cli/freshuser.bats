#!/usr/bin/env bats
# Defects a fresh-user test found: each test is one of them.
# Fixtures: tests/data/import/claude/s2x.jsonl (ours) and files made here.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	S2X="$BATS_TEST_DIRNAME/../data/import/claude/s2x.jsonl"
}

# as=(...): the prefix that runs a command without root's rights (root
# reads and writes anything): setpriv to nobody, or nothing for a user;
# skips the test when that cannot be done
unprivileged() {
	as=()
	if [ "$(id -u)" -eq 0 ]; then
		command -v setpriv >/dev/null || skip "root and no setpriv"
		as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
		"${as[@]}" test -x "$KTRAJ" || skip "nobody cannot run $KTRAJ"
	fi
}

@test "import --format F of a file F cannot read: no empty run, one warning, exit 1 (the file named gave no run; README)" {
	run --separate-stderr "$KTRAJ" import --format codex "$S2X"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	grep -qx "ktraj: import: $S2X: no events for format codex" <<<"$stderr"
	run "$KTRAJ" ls --json
	[ "$status" -eq 0 ]
	[[ "$output" != *'"codex"'* ]]
	# the file still imports with its own format; importing it again adds
	# nothing and warns nothing (the run is there)
	run --separate-stderr "$KTRAJ" import "$S2X"
	[ "$status" -eq 0 ]
	[[ "$output" == *"claude_code"* ]]
	run --separate-stderr "$KTRAJ" import "$S2X"
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 added"* ]]
	[ -z "$stderr" ]
	run "$KTRAJ" verify
	[ "$status" -eq 0 ]
}

@test "import DIR: an unreadable subfolder is one line 'DIR/sub: cannot read: ...', the rest imports, exit 0" {
	unprivileged
	if [ "$(id -u)" -eq 0 ]; then
		# root reads a mode 000 folder anyway: run as nobody, in a
		# folder nobody can reach (bats' own is private)
		W=$(mktemp -d /tmp/ktraj-fu.XXXXXX)
		chmod 777 "$W"
		export KTRAJ_STORE="$W/s.ktraj"
	else
		W="$BATS_TEST_TMPDIR"
	fi
	D="$W/dl"
	mkdir -p "$D/sub"
	cp "$S2X" "$D/"
	cp "$S2X" "$D/sub/"
	chmod 000 "$D/sub"
	run --separate-stderr "${as[@]}" "$KTRAJ" import "$D"
	chmod 755 "$D/sub"
	[ "$W" = "$BATS_TEST_TMPDIR" ] || rm -rf "$W"
	[ "$status" -eq 0 ]
	[[ "$output" == *"claude_code"* ]]
	[ "$(wc -l <<<"$stderr")" -eq 1 ]
	grep -qx "ktraj: import: $D/sub: cannot read: Permission denied" <<<"$stderr"
}

@test "--store errors say what is wrong: missing folder, a directory, a file that is no store" {
	run --separate-stderr "$KTRAJ" --store "$BATS_TEST_TMPDIR/missing/dir/s.ktraj" init
	[ "$status" -eq 1 ]
	[ "$stderr" = "ktraj: init: cannot create store $BATS_TEST_TMPDIR/missing/dir/s.ktraj: No such file or directory" ]
	[ ! -e "$BATS_TEST_TMPDIR/missing" ]
	mkdir "$BATS_TEST_TMPDIR/d"
	for cmd in ls init; do
		run --separate-stderr "$KTRAJ" --store "$BATS_TEST_TMPDIR/d" $cmd
		[ "$status" -eq 1 ]
		[ "$stderr" = "ktraj: $cmd: $BATS_TEST_TMPDIR/d is a directory" ]
	done
	printf 'just some notes, long enough to hold an LMDB header\n' >"$BATS_TEST_TMPDIR/notes.txt"
	for cmd in ls init; do
		run --separate-stderr "$KTRAJ" --store "$BATS_TEST_TMPDIR/notes.txt" $cmd
		[ "$status" -eq 1 ]
		[ "$stderr" = "ktraj: $cmd: $BATS_TEST_TMPDIR/notes.txt is not a ktraj store (not an LMDB file; give another --store or KTRAJ_STORE)" ]
	done
	# the file is left as it was
	[ "$(cat "$BATS_TEST_TMPDIR/notes.txt")" = "just some notes, long enough to hold an LMDB header" ]
}

@test "show --source of an event read from a whole file: the file and a note, not the file's content" {
	F="$BATS_TEST_DIRNAME/../data/import/kernelbench/baseline_time_torch_fx.json"
	"$KTRAJ" import "$F" >/dev/null
	run --separate-stderr "$KTRAJ" show baseline_time_torch_fx 1 --source
	[ "$status" -eq 0 ]
	sha=$(sha256sum "$F" | cut -d' ' -f1)
	[ "$output" = "$(realpath "$F") sha256:$sha" ]
	[ "$stderr" = "ktraj: show: event 1 has no line-level source: it was read from the whole file" ]
	run --separate-stderr "$KTRAJ" show baseline_time_torch_fx 1 --source --json
	[ "$status" -eq 0 ]
	python3 -c '
import json,sys
o=json.loads(sys.argv[1])
assert o["source"] is None and o["seq"]==1, o
assert o["prov"]["src"]==sys.argv[2] and o["prov"]["line"]==0, o' "$output" "$sha"
}

@test "import --format nope: one usage line naming --help once, exit 2" {
	run --separate-stderr "$KTRAJ" import --format nope "$S2X"
	[ "$status" -eq 2 ]
	[ "$stderr" = "ktraj: import: unknown format 'nope' (see \`ktraj import --help\`)" ]
}

@test "log --from 10 --to 5: a usage error (one line, exit 2), not an empty log" {
	r=$("$KTRAJ" import "$S2X" | awk '{print $1}')
	run --separate-stderr "$KTRAJ" log "$r" --from 10 --to 5
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	[ "$stderr" = "ktraj: log: --from 10 is after --to 5 (see \`ktraj log --help\`)" ]
	# a range that is one event still works
	run --separate-stderr "$KTRAJ" log "$r" --from 5 --to 5
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
}

@test "a store that cannot be written: import and append fail with one line, exit 1; reads still work" {
	unprivileged
	W=$(mktemp -d /tmp/ktraj-ro.XXXXXX)
	chmod 755 "$W"
	export KTRAJ_STORE="$W/s.ktraj"
	"$KTRAJ" import "$S2X" >/dev/null
	before=$("$KTRAJ" log --json "$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')")
	chmod 444 "$W/s.ktraj"
	[ "$(id -u)" -eq 0 ] || chmod 555 "$W"
	run --separate-stderr "${as[@]}" "$KTRAJ" import "$S2X"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "ktraj: import: cannot write the store $W/s.ktraj: "* ]]
	[ "$(wc -l <<<"$stderr")" -eq 1 ]
	run --separate-stderr "${as[@]}" "$KTRAJ" append other <<<'{"kind":"note","payload":{"text":"x"}}'
	[ "$status" -eq 1 ]
	[[ "$stderr" == "ktraj: append: cannot write the store $W/s.ktraj: "* ]]
	run "${as[@]}" "$KTRAJ" ls
	[ "$status" -eq 0 ]
	chmod 755 "$W"
	chmod 644 "$W/s.ktraj"
	after=$("$KTRAJ" log --json "$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')")
	[ "$before" = "$after" ]
	[ "$("$KTRAJ" ls --json | wc -l)" -eq 1 ]
	rm -rf "$W"
}
