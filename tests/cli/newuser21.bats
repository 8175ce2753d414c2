#!/usr/bin/env bats
# Rough edges a new user hit (issue 21's review): each test is one of them.

bats_require_minimum_version 1.5.0

SAMPLE="$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl"
WS="$BATS_TEST_DIRNAME/../data/newuser21/ws.jsonl"

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
}

# run_as CMD STATUS: run the words of CMD with ktraj, expect exit STATUS;
# ${a[0]} is the command's name after it
run_as() {
	read -ra a <<<"$1"
	run --separate-stderr "$KTRAJ" "${a[@]}"
	[ "$status" -eq "$2" ] || { echo "$1: exit $status, not $2"; false; }
}

# one line of stderr, exactly $1
one_line() {
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ] || { echo "stderr: $stderr"; false; }
	[ "$stderr" = "$1" ] || { echo "stderr: $stderr"; echo "want:   $1"; false; }
}

@test "a folder with cut-off archives: each says 'cut off ...: nothing of it imported', the rest of the folder is imported, exit 1" {
	cd "$BATS_TEST_TMPDIR"
	mkdir d
	cp "$SAMPLE" d/a.jsonl
	tar czf full.tar.gz -C d a.jsonl
	python3 -c '
import sys, zipfile
with zipfile.ZipFile("full.zip", "w", zipfile.ZIP_DEFLATED) as z:
    z.write(sys.argv[1], "b.jsonl")' "$SAMPLE"
	# cut inside the gzip stream, and inside the zip's first member
	head -c 300 full.tar.gz >d/cut.tar.gz
	head -c 400 full.zip >d/cut.zip
	run --separate-stderr "$KTRAJ" import d
	[ "$status" -eq 1 ]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 2 ]
	grep -qx "ktraj: import: d/cut.tar.gz: cut off (truncated gzip input): nothing of it imported" <<<"$stderr"
	grep -qx "ktraj: import: d/cut.zip: cut off or damaged (member 'b.jsonl': .*): nothing of it imported" <<<"$stderr"
	# the folder went on: the good file is a run
	[[ "$output" == "3db88dd1ab522b4e190e8ab88aad55fa "*"41 added"* ]]
	[ "$("$KTRAJ" ls --json | wc -l)" -eq 1 ]
	# named alone, the cut archive is the same one line, exit 1
	run --separate-stderr "$KTRAJ" import d/cut.tar.gz
	[ "$status" -eq 1 ]
	one_line "ktraj: import: d/cut.tar.gz: cut off (truncated gzip input): nothing of it imported"
	# a .gz cut inside its 10-byte header: libarchive passes the bytes
	# through undecoded (it said 'archive nested too deep', exit 0)
	mkdir h
	gzip -c "$SAMPLE" | head -c 5 >h/c.jsonl.gz
	run --separate-stderr "$KTRAJ" import h
	[ "$status" -eq 1 ]
	one_line "ktraj: import: h/c.jsonl.gz: cut off (shorter than its compression header): nothing of it imported"
	# --strict still stops at it
	run --separate-stderr "$KTRAJ" import --strict d/cut.tar.gz d/a.jsonl
	[ "$status" -ne 0 ]
}

@test "an empty file in a folder: 'FILE: empty: nothing to import', the folder goes on, exit 0" {
	cd "$BATS_TEST_TMPDIR"
	mkdir d
	cp "$SAMPLE" d/a.jsonl
	: >d/empty.jsonl
	: >d/__init__.py
	run --separate-stderr "$KTRAJ" import d
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 2 ]
	grep -qx "ktraj: import: d/empty.jsonl: empty: nothing to import" <<<"$stderr"
	grep -qx "ktraj: import: d/__init__.py: empty: nothing to import" <<<"$stderr"
	[[ "$output" == *"41 added"* ]]
	# a file that is not empty is still 'not recognized'
	echo 'x = 1' >d/m.py
	run --separate-stderr "$KTRAJ" import d
	[ "$status" -eq 0 ]
	grep -qx "ktraj: import: d/m.py: skipped: not a recognized trajectory format" <<<"$stderr"
}

@test "a step past the end: 'run RUN has no step N (it has M events)', exit 4, for show, cat, diff, replay and export" {
	"$KTRAJ" import "$SAMPLE" >/dev/null
	want="has no step 99 (it has 41 events)"
	for cmd in "show 3db8 99" "cat 3db8 softmax.cu --at 99" "diff 3db8 1 99" \
		   "diff 3db8 99 2" "replay 3db8 99 --no-sandbox" \
		   "export 3db8 --step 99 --bundle $BATS_TEST_TMPDIR/b.tar.gz"; do
		run_as "$cmd" 4
		one_line "ktraj: ${a[0]}: run 3db88dd1ab52 $want"
	done
	[ ! -e "$BATS_TEST_TMPDIR/b.tar.gz" ]
}

@test "a negative step is a step, not an option: every command that takes one says so, exit 2" {
	"$KTRAJ" import "$SAMPLE" >/dev/null
	for cmd in "show 3db8 -1" "diff 3db8 -1 5" "diff 3db8 1 -2" "cat 3db8 softmax.cu --at -1" \
		   "replay 3db8 -1" "export 3db8 --step -1 --bundle x.tar.gz" \
		   "log 3db8 --from -1" "log 3db8 --to -3" "show 3db8 0"; do
		run_as "$cmd" 2
		bad=$(grep -o -- "-[0-9]\| 0$" <<<"$cmd" | tail -1 | tr -d ' ')
		opt=""
		case "$cmd" in
		*--step*) opt="--step: " ;;
		*--from*) opt="--from: " ;;
		*--to*) opt="--to: " ;;
		esac
		one_line "ktraj: ${a[0]}: ${opt}a step is a sequence number >= 1, not '$bad' (see \`ktraj ${a[0]} --help\`)"
	done
	# an unknown option is still one
	run --separate-stderr "$KTRAJ" show 3db8 -x
	[ "$status" -eq 2 ]
	one_line "ktraj: show: unknown option '-x' (see \`ktraj show --help\`)"
}

@test "cat of a file absent at that step names the steps where it exists, or says it never exists in the run" {
	"$KTRAJ" import "$WS" >/dev/null
	run --separate-stderr "$KTRAJ" cat 5eed a.cu --at 1
	[ "$status" -eq 4 ]
	one_line "ktraj: cat: no file 'a.cu' in the workspace of run 5eed21005eed at step 1 (it exists at steps 2-3, 6-9)"
	run --separate-stderr "$KTRAJ" cat 5eed a.cu --at 4
	[ "$status" -eq 4 ]
	one_line "ktraj: cat: a.cu was deleted at step 4 (it exists at steps 2-3, 6-9)"
	run --separate-stderr "$KTRAJ" cat 5eed x/k.cu --at 2
	[ "$status" -eq 4 ]
	one_line "ktraj: cat: no file 'x/k.cu' in the workspace of run 5eed21005eed at step 2 (src/x/k.cu exists at steps 7-9)"
	run --separate-stderr "$KTRAJ" cat 5eed k.cu --at 2
	[ "$status" -eq 4 ]
	one_line "ktraj: cat: no file 'k.cu' in the workspace of run 5eed21005eed at step 2 (2 files end in 'k.cu': src/x/k.cu, src/y/k.cu; give more of the path)"
	run --separate-stderr "$KTRAJ" cat 5eed b.cu
	[ "$status" -eq 4 ]
	one_line "ktraj: cat: no file 'b.cu' in the workspace of run 5eed21005eed (it never exists in this run)"
	run --separate-stderr "$KTRAJ" diff 5eed 4 5 x/k.cu
	[ "$status" -eq 4 ]
	one_line "ktraj: diff: no file 'x/k.cu' in the workspace of run 5eed21005eed at step 4 or 5 (src/x/k.cu exists at steps 7-9)"
	# the content where it exists is still there
	run "$KTRAJ" cat 5eed a.cu --at 3
	[ "$status" -eq 0 ]
	[[ "$output" == "__global__ void k"* ]]
}

@test "cat on a real Claude Code session: the steps it names agree with the session's edits of the file" {
	F="${CORPUS:-/nonexistent}/claude_code/vsla_cuda_dev_f67ab274.jsonl"
	[ -f "$F" ] || skip "no corpus"
	"$KTRAJ" import "$F" >/dev/null
	# the raw session makes test_gpu_tensor.c first with a Bash printf
	# whose text says "Testing GPU tensor" (a later Write replaces it)
	grep -q 'printf .*Testing GPU t.*> *test_gpu_tensor[.]c' "$F"
	# two files end in test_gpu_tensor.c (the other is under build/)
	run --separate-stderr "$KTRAJ" cat 8007 test_gpu_tensor.c --at 1
	[ "$status" -eq 4 ]
	[[ "$stderr" == *"(2 files end in 'test_gpu_tensor.c': /home/kenth56/vsla/build/test_gpu_tensor.c, /home/kenth56/vsla/test_gpu_tensor.c; give more of the path)" ]]
	run --separate-stderr "$KTRAJ" cat 8007 vsla/test_gpu_tensor.c --at 1
	[ "$status" -eq 4 ]
	re='[(]/home/kenth56/vsla/test_gpu_tensor[.]c exists at steps ([0-9]+)-([0-9]+)[)]$'
	[[ "$stderr" =~ $re ]] || { echo "stderr: $stderr"; false; }
	first=${BASH_REMATCH[1]} last=${BASH_REMATCH[2]}
	# it starts at the run's first edit of the file and lasts to the end
	want=$("$KTRAJ" log 8007 --kind edit --json | python3 -c '
import json, sys
print(min(e["seq"] for e in map(json.loads, sys.stdin) if e["path"] == "/home/kenth56/vsla/test_gpu_tensor.c"))')
	[ "$first" -eq "$want" ]
	[ "$last" -eq "$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["events"])')" ]
	run "$KTRAJ" cat 8007 vsla/test_gpu_tensor.c --at "$first"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Testing GPU t"* ]]
	run --separate-stderr "$KTRAJ" cat 8007 vsla/test_gpu_tensor.c --at $((first - 1))
	[ "$status" -eq 4 ]
	[[ "$stderr" == *"at step $((first - 1)) (/home/kenth56/vsla/test_gpu_tensor.c exists at steps $first-$last)" ]]
	# a name the raw session never mentions
	! grep -q no_such_file_zz "$F" || false
	run --separate-stderr "$KTRAJ" cat 8007 no_such_file_zz.cu --at 5
	[ "$status" -eq 4 ]
	[[ "$stderr" == *"at step 5 (it never exists in this run)" ]]
}

@test "an unknown subcommand of blame, questions or hook: one message listing the valid ones, exit 2" {
	for p in "blame|speedup" "questions|mine or suggest" \
		 "hook|claude-code, gemini-cli, codex or install"; do
		cmd=${p%%|*} valid=${p#*|}
		run --separate-stderr "$KTRAJ" "$cmd" foo
		[ "$status" -eq 2 ] || { echo "$cmd: $status"; false; }
		one_line "ktraj: $cmd: unknown subcommand 'foo' (valid: $valid) (see \`ktraj $cmd --help\`)"
	done
	[ ! -e "$KTRAJ_STORE" ]
}

@test "an unknown --kind of log or search lists the kinds there are, exit 2" {
	"$KTRAJ" import "$SAMPLE" >/dev/null
	for cmd in "log 3db8 --kind edits" "search softmax --kind edits"; do
		run_as "$cmd" 2
		one_line "ktraj: ${a[0]}: unknown kind 'edits' (valid: message, tool_call, tool_result, edit, compile, bench, profile, question, replay or note) (see \`ktraj ${a[0]} --help\`)"
	done
	# each kind it lists is one log takes
	for k in message tool_call tool_result edit compile bench profile question replay note; do
		"$KTRAJ" log 3db8 --kind "$k" >/dev/null
	done
}
