#!/usr/bin/env bats
# Replay bundles treat recorded values as data (issue 16): the step's
# directory never runs as shell text in run.sh, a tool call's own workdir
# is honoured, run.sh says it applies no isolation, and a bundle is a
# plain .tar.gz (or a directory) that tar alone unpacks.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	command -v cc >/dev/null || skip "no C compiler"
	R=0123456789abcdef0123456789abcdef
}

# A run recorded in /work/proj whose shell call ran in a directory named
# x$(touch <marker>) (a name a hostile trajectory can record): seq 2 the
# call, seq 3 its result.
hostile_run() {
	local h
	h=$(printf 'hi\n' | sha256sum | cut -c1-64)
	cat >"$BATS_TEST_TMPDIR/s.jsonl" <<-EOF
	{"run":{"id":"$R","name":"inj","format":"ktraj","meta":{"cwd":"/work/proj"}}}
	{"blob":"$h","path":"/work/proj/a.txt","text":"hi\n"}
	{"kind":"edit","payload":{"path":"/work/proj/a.txt","op":"create","before":null,"after":"$h"}}
	{"kind":"tool_call","payload":{"tool":"Bash","call_id":"c1","args":{"command":"pwd > where.txt","workdir":"/work/proj/x\$(touch $BATS_TEST_TMPDIR/INJECTED)\"; touch $BATS_TEST_TMPDIR/INJECTED2; \""}}}
	{"kind":"tool_result","parent":2,"payload":{"call_id":"c1","output":"","is_error":false}}
	EOF
	"$KTRAJ" import "$BATS_TEST_TMPDIR/s.jsonl" >/dev/null
}

unpack_and_run() { # unpack_and_run BUNDLE.tar.gz DIR
	mkdir -p "$2"
	tar -xzf "$1" -C "$2"
	(cd / && env -i PATH=/usr/bin:/bin sh "$2/ktraj-bundle/run.sh")
}

@test "a recorded directory with \$(...) and quotes is a folder name in run.sh, never run" {
	hostile_run
	for s in 2 3; do
		"$KTRAJ" export "$R" --step "$s" --bundle "$BATS_TEST_TMPDIR/b$s.tar.gz"
		unpack_and_run "$BATS_TEST_TMPDIR/b$s.tar.gz" "$BATS_TEST_TMPDIR/x$s"
		[ ! -e "$BATS_TEST_TMPDIR/INJECTED" ]
		[ ! -e "$BATS_TEST_TMPDIR/INJECTED2" ]
		# the command ran in the recorded directory, named literally
		w=$(find "$BATS_TEST_TMPDIR/x$s/ktraj-bundle/workspace" -name where.txt -exec cat {} +)
		[[ "$w" == */ktraj-bundle/workspace/x'$(touch '*'INJECTED)"; touch '*'INJECTED2; "' ]]
		# the name is in the bundle as data, not in run.sh
		! grep -q 'touch' "$BATS_TEST_TMPDIR/x$s/ktraj-bundle/run.sh" || false
		grep -q 'INJECTED2' "$BATS_TEST_TMPDIR/x$s/ktraj-bundle/workdir"
	done
}

@test "run.sh says at the top that it applies no isolation" {
	hostile_run
	"$KTRAJ" export "$R" --step 2 --bundle "$BATS_TEST_TMPDIR/b.tar.gz"
	mkdir "$BATS_TEST_TMPDIR/x"
	tar -xzf "$BATS_TEST_TMPDIR/b.tar.gz" -C "$BATS_TEST_TMPDIR/x"
	head -5 "$BATS_TEST_TMPDIR/x/ktraj-bundle/run.sh" | grep -q 'NO ISOLATION'
	head -5 "$BATS_TEST_TMPDIR/x/ktraj-bundle/run.sh" | grep -q 'no sandbox'
}

@test "a bundle is a plain .tar.gz that tar -xzf unpacks (no zstd needed), the same bytes each time, or a directory" {
	hostile_run
	"$KTRAJ" export "$R" --step 2 --bundle "$BATS_TEST_TMPDIR/b.tar.gz"
	gzip -t "$BATS_TEST_TMPDIR/b.tar.gz"
	tar -tzf "$BATS_TEST_TMPDIR/b.tar.gz" | grep -qx 'ktraj-bundle/run.sh'
	"$KTRAJ" export "$R" --step 2 --bundle "$BATS_TEST_TMPDIR/c.tar.gz"
	cmp "$BATS_TEST_TMPDIR/b.tar.gz" "$BATS_TEST_TMPDIR/c.tar.gz"
	# any other name is a .tar.gz too; .tar is plain tar
	"$KTRAJ" export "$R" --step 2 --bundle "$BATS_TEST_TMPDIR/b.bundle"
	gzip -t "$BATS_TEST_TMPDIR/b.bundle"
	"$KTRAJ" export "$R" --step 2 --bundle "$BATS_TEST_TMPDIR/b.tar"
	tar -tf "$BATS_TEST_TMPDIR/b.tar" | grep -qx 'ktraj-bundle/manifest.json'
	# a directory: the bundle's folder is written into it, ready to run
	"$KTRAJ" export "$R" --step 2 --bundle "$BATS_TEST_TMPDIR/dir/"
	[ -f "$BATS_TEST_TMPDIR/dir/ktraj-bundle/run.sh" ]
	[ -f "$BATS_TEST_TMPDIR/dir/ktraj-bundle/workspace/a.txt" ]
	(cd / && env -i PATH=/usr/bin:/bin sh "$BATS_TEST_TMPDIR/dir/ktraj-bundle/run.sh")
	[ -s "$BATS_TEST_TMPDIR/dir/ktraj-bundle/result.json" ]
}

@test "replaying a tool_call step runs it in the call's workdir" {
	h=$(printf 'hi\n' | sha256sum | cut -c1-64)
	cat >"$BATS_TEST_TMPDIR/w.jsonl" <<-EOF
	{"run":{"id":"$R","name":"wd","format":"ktraj","meta":{"cwd":"/work/proj"}}}
	{"blob":"$h","path":"/work/proj/sub/a.txt","text":"hi\n"}
	{"kind":"edit","payload":{"path":"/work/proj/sub/a.txt","op":"create","before":null,"after":"$h"}}
	{"kind":"tool_call","payload":{"tool":"Bash","call_id":"c1","args":{"command":"cat a.txt","workdir":"/work/proj/sub"}}}
	EOF
	"$KTRAJ" import "$BATS_TEST_TMPDIR/w.jsonl" >/dev/null
	"$KTRAJ" export "$R" --step 2 --bundle "$BATS_TEST_TMPDIR/b.tar.gz"
	unpack_and_run "$BATS_TEST_TMPDIR/b.tar.gz" "$BATS_TEST_TMPDIR/x"
	[ "$(cat "$BATS_TEST_TMPDIR/x/ktraj-bundle/stdout.txt")" = hi ]
	python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); sys.exit(0 if m["cwd"]=="sub" else 1)' \
		"$BATS_TEST_TMPDIR/x/ktraj-bundle/manifest.json"
}

@test "--bundle whose name says another archive type (.zip, .tar.xz, .zst...) is a usage error; nothing written" {
	hostile_run
	for n in b.zip b.tar.xz b.tar.bz2 b.7z b.ZIP b.zst .zip; do
		run --separate-stderr "$KTRAJ" export "$R" --step 2 --bundle "$BATS_TEST_TMPDIR/$n"
		[ "$status" -eq 2 ] || { echo "$n: $status"; false; }
		[[ "$stderr" == "ktraj: export: --bundle $BATS_TEST_TMPDIR/$n: a ."*" name, but a bundle is a tar: name it .tar.gz or .tgz (gzip), .tar.zst or .tzst (zstd), .tar, or DIR/ (see \`ktraj export --help\`)" ]]
		[ ! -e "$BATS_TEST_TMPDIR/$n" ]
	done
	# the names it honours still write
	"$KTRAJ" export "$R" --step 2 --bundle "$BATS_TEST_TMPDIR/b.tgz"
	gzip -t "$BATS_TEST_TMPDIR/b.tgz"
	"$KTRAJ" export "$R" --step 2 --bundle "$BATS_TEST_TMPDIR/b.tar.zst"
	[ "$(head -c 4 "$BATS_TEST_TMPDIR/b.tar.zst" | od -An -tx1 | tr -d ' ')" = 28b52ffd ]
	# suffixes in any case: x.TAR.ZST is zstd, x.TAR a plain tar
	"$KTRAJ" export "$R" --step 2 --bundle "$BATS_TEST_TMPDIR/c.TAR.ZST"
	[ "$(head -c 4 "$BATS_TEST_TMPDIR/c.TAR.ZST" | od -An -tx1 | tr -d ' ')" = 28b52ffd ]
	"$KTRAJ" export "$R" --step 2 --bundle "$BATS_TEST_TMPDIR/c.TAR"
	tar -tf "$BATS_TEST_TMPDIR/c.TAR" | grep -q ktraj-bundle/run.sh
	! gzip -t "$BATS_TEST_TMPDIR/c.TAR" 2>/dev/null
	# a folder named like an archive is a folder
	mkdir "$BATS_TEST_TMPDIR/d.zip"
	"$KTRAJ" export "$R" --step 2 --bundle "$BATS_TEST_TMPDIR/d.zip"
	[ -f "$BATS_TEST_TMPDIR/d.zip/ktraj-bundle/run.sh" ]
}
