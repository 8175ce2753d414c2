#!/usr/bin/env bats
# Messages a new user meets (issue 20): option ranges, a library that is
# missing or in Markdown, archives that are cut or hold nothing, run names
# from a trajectory printed by the analyzers.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	# planted runs (tests/plant/plant.py, fixed seeds), as analyze.bats
	GEN="$BATS_TEST_DIRNAME/../plant/plant.py"
}

@test "--min-gain out of range says the valid range" {
	run "$KTRAJ" blame speedup r --min-gain 0.5
	[ "$status" -eq 2 ]
	[ "$output" = "ktraj: blame: --min-gain: bad value '0.5': valid from 1 to 1000000 (see \`ktraj blame --help\`)" ]
	run "$KTRAJ" stalls r --patience 0
	[ "$status" -eq 2 ]
	[[ "$output" == *"--patience: bad value '0': valid from 1 to "* ]]
}

@test "questions suggest --library: a missing file says why, exit 1 (README: a missing input file); the Markdown of mine -o is read" {
	python3 "$GEN" "$BATS_TEST_TMPDIR/p" --runs 2 --seed 14 >/dev/null
	"$KTRAJ" import "$BATS_TEST_TMPDIR"/p/*.jsonl >/dev/null
	run=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	run "$KTRAJ" questions suggest "$run" --library /nonexist/lib.jsonl
	[ "$status" -eq 1 ]
	[ "$output" = "ktraj: questions: /nonexist/lib.jsonl: cannot read: No such file or directory" ]
	"$KTRAJ" questions mine -o "$BATS_TEST_TMPDIR/lib.md"
	"$KTRAJ" questions mine -o "$BATS_TEST_TMPDIR/lib.jsonl"
	[ "$(grep -c '^| [0-9]' "$BATS_TEST_TMPDIR/lib.md")" -gt 0 ]
	run "$KTRAJ" questions suggest "$run" --library "$BATS_TEST_TMPDIR/lib.md" --json
	[ "$status" -eq 0 ]
	md=$(echo "$output" | python3 -c 'import json,sys; print([json.loads(l)["text"] for l in sys.stdin])')
	run "$KTRAJ" questions suggest "$run" --library "$BATS_TEST_TMPDIR/lib.jsonl" --json
	js=$(echo "$output" | python3 -c 'import json,sys; print([json.loads(l)["text"] for l in sys.stdin])')
	[ "$md" = "$js" ]
	[ "$md" != "[None]" ]
}

@test "a tar.gz cut in half: the members before the cut are imported, the message says how far" {
	cd "$BATS_TEST_TMPDIR"
	for i in 1 2 3 4; do
		python3 -c "
import json, os
for j in range(300):
    print(json.dumps({'kind': 'note', 'payload': {'text': os.urandom(40).hex()}}))" >"r$i.jsonl"
	done
	tar czf all.tar.gz r1.jsonl r2.jsonl r3.jsonl r4.jsonl
	head -c $(( $(stat -c %s all.tar.gz) / 2 )) all.tar.gz >half.tar.gz
	run --separate-stderr "$KTRAJ" import half.tar.gz
	[ "$status" -eq 0 ]
	[[ "$stderr" == "ktraj: import: half.tar.gz: archive truncated or damaged: member 'r"?".jsonl': "*": members after "?" not read" ]]
	n=$("$KTRAJ" ls --json | wc -l)
	[[ "$stderr" == *"members after $n not read" ]]
}

@test "a .gz of zero bytes named on the command line says it was skipped and why, exit 1" {
	cd "$BATS_TEST_TMPDIR"
	head -c 1048576 /dev/zero | gzip >zero.gz
	run --separate-stderr "$KTRAJ" import zero.gz
	[ "$status" -eq 1 ]
	[ "$stderr" = "ktraj: import: zero.gz: skipped: an archive with no files in it (an empty tar, or only zero bytes)" ]
	# inside a folder it is reported, and the folder's other files import
	mkdir d
	cp zero.gz d/
	printf '{"kind":"note","payload":{"text":"x"}}\n' >d/n.jsonl
	run --separate-stderr "$KTRAJ" import d
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"d/zero.gz: skipped: an archive with no files"* ]]
}

@test "blame, stalls and questions suggest print a run's name with its control characters visible" {
	# the importers turn C0 controls of a name into spaces but keep C1
	# ones (U+009B is CSI on 8-bit terminals): a file named so
	python3 "$GEN" "$BATS_TEST_TMPDIR/p" --runs 1 --seed 11 >/dev/null
	f="$BATS_TEST_TMPDIR/"$'evil\xc2\x9b2J.jsonl'
	cp "$BATS_TEST_TMPDIR"/p/*.jsonl "$f"
	"$KTRAJ" import "$f" >/dev/null
	id=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	for cmd in "blame speedup" stalls "questions suggest"; do
		out=$("$KTRAJ" $cmd "$id")
		[[ "${out%%$'\n'*}" == "run $id  evilM-^[2J" ]]
		[[ "$out" != *$'\xc2\x9b'* ]]
	done
}
