#!/usr/bin/env bats
# CLI polish found by fresh-user testing: append / bench --record write to
# the run NAME resolves to, bench failures are one line with the compiler
# or harness output after it, cat / diff / show --source speak NDJSON with
# --json, and Ctrl-C during import keeps what was finished.  Fixtures of our
# own: tests/data/cli (edits.jsonl) and tests/data/polish.

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	ED="$ROOT/tests/data/cli/edits.jsonl"
	POL="$ROOT/tests/data/polish"
}

note() {
	printf '{"kind":"note","payload":{"text":"%s"}}\n' "$1"
}

# ---- append / bench --record: the run NAME resolves to ------------------------

@test "append NAME appends to the run NAME names (imported run, id prefix), creates only when none" {
	mkdir -p "$BATS_TEST_TMPDIR/src"
	cp "$ED" "$BATS_TEST_TMPDIR/src/e.jsonl"
	"$KTRAJ" import "$BATS_TEST_TMPDIR/src/e.jsonl" >/dev/null 2>&1
	id=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	n=$("$KTRAJ" log e --json | wc -l)
	# by name: the imported run, not a new run of identity append:e
	run "$KTRAJ" append e <<<"$(note 'by name')"
	[ "$status" -eq 0 ]
	[[ "$output" == "1 events appended to e (run $id, $((n + 1)) events)" ]]
	# by unique id prefix and by full id
	note 'by prefix' | "$KTRAJ" append "${id:0:8}" >/dev/null
	note 'by id' | "$KTRAJ" append "$id" >/dev/null
	[ "$("$KTRAJ" ls --json | wc -l)" -eq 1 ]
	run "$KTRAJ" log e --json
	[ "${#lines[@]}" -eq $((n + 3)) ]
	[[ "${lines[$((n + 2))]}" == *'"kind":"note"'* ]]
	run "$KTRAJ" show e $((n + 2)) --json
	[[ "$output" == *'"text":"by prefix"'* ]]
	# nothing matches: a new run of identity append:NAME
	note 'new' | "$KTRAJ" append fresh >/dev/null
	want=$(printf 'append:fresh' | sha256sum | cut -c1-32)
	run "$KTRAJ" ls --json
	[ "${#lines[@]}" -eq 2 ]
	[[ "$output" == *"\"run\":\"$want\",\"name\":\"fresh\""* ]]
	run "$KTRAJ" verify
	[ "$status" -eq 0 ]
}

@test "append NAME that matches several runs is a usage error and writes nothing" {
	# a run named p (6 hex chars), then a run whose id starts with p
	id=$(printf 'append:ed' | sha256sum | cut -c1-32)
	p=${id:0:6}
	note first | "$KTRAJ" append "$p" >/dev/null
	"$KTRAJ" append ed <"$ED" >/dev/null
	before=$("$KTRAJ" log ed --json | wc -l)
	run "$KTRAJ" append "$p" <<<"$(note again)"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "ktraj: append: '$p' matches several runs"* ]]
	[ "$("$KTRAJ" log ed --json | wc -l)" -eq "$before" ]
	[ "$("$KTRAJ" log "$(printf "append:$p" | sha256sum | cut -c1-32)" --json | wc -l)" -eq 1 ]
}

@test "append: an empty stdin to an existing run adds nothing and says so" {
	"$KTRAJ" append ed <"$ED" >/dev/null
	run "$KTRAJ" append ed </dev/null
	[ "$status" -eq 0 ]
	[ "$output" = "ktraj: append: no events on stdin" ]
}

@test "bench --record NAME records into the existing run NAME names" {
	"$KTRAJ" append ed <"$ED" >/dev/null
	n=$("$KTRAJ" log ed --json | wc -l)
	echo '__global__ void k(){} // candidate' >"$BATS_TEST_TMPDIR/cand.cu"
	export KTRAJ_HARNESS="$ROOT/tests/data/bench/fake_harness.sh"
	run "$KTRAJ" bench --task attention_fwd --kernel "$BATS_TEST_TMPDIR/cand.cu" --record ed
	[ "$status" -eq 1 ]
	[ "$("$KTRAJ" ls --json | wc -l)" -eq 1 ]
	run "$KTRAJ" log ed --json
	[ "${#lines[@]}" -eq $((n + 3)) ]
	[[ "${lines[$n]}" == *'"kind":"compile"'* ]]
	[[ "${lines[$((n + 1))]}" == *'"kind":"bench"'*"\"parent\":$((n + 1))"* ]]
	# a new NAME makes a run of identity bench:NAME, created with its first event
	run "$KTRAJ" bench --task attention_fwd --kernel "$BATS_TEST_TMPDIR/cand.cu" --record other
	want=$(printf 'bench:other' | sha256sum | cut -c1-32)
	run "$KTRAJ" ls --json
	[[ "$output" == *"\"run\":\"$want\",\"name\":\"other\",\"format\":\"bench\""* ]]
	run "$KTRAJ" verify
	[ "$status" -eq 0 ]
}

# ---- bench failures: one line first ---------------------------------------------

bench_fail() { # MODE: runs bench on the failing fake harness, stderr to err
	echo '__global__ void k(){ oops }' >"$BATS_TEST_TMPDIR/cand.cu"
	FAKE_MODE=$1 KTRAJ_HARNESS="$POL/fake_harness_fail.sh" \
		"$KTRAJ" bench --task attention_fwd --kernel "$BATS_TEST_TMPDIR/cand.cu" \
		--record failing 2>"$BATS_TEST_TMPDIR/err" >"$BATS_TEST_TMPDIR/out"
}

@test "bench: a compile error is one error line, the compiler output after it" {
	run bench_fail compile
	[ "$status" -eq 1 ]
	mapfile -t e <"$BATS_TEST_TMPDIR/err"
	[ "${e[0]}" = "ktraj: bench: $BATS_TEST_TMPDIR/cand.cu: compilation failed (compiler output follows)" ]
	grep -q 'cand.cu(3): error: expected a ";"' "$BATS_TEST_TMPDIR/err"
	[ "$(grep -c '^ktraj:' "$BATS_TEST_TMPDIR/err")" -eq 1 ]
	[ ! -s "$BATS_TEST_TMPDIR/out" ]
	# the failed compile is still recorded
	run "$KTRAJ" log failing --json
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *'"kind":"compile"'*'"exit_code":1'* ]]
}

@test "bench: a refused argument is one line with the harness's reason, no usage dump" {
	run bench_fail refuse
	[ "$status" -eq 1 ]
	run cat "$BATS_TEST_TMPDIR/err"
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "ktraj: bench: the harness refused the arguments or the spec: --scenarios: 'zzz' matches nothing" ]
}

@test "bench: a crashed harness is one line first, its other output after" {
	run bench_fail crash
	[ "$status" -eq 1 ]
	mapfile -t e <"$BATS_TEST_TMPDIR/err"
	[ "${e[0]}" = "ktraj: bench: the harness failed (exit status 5, 0 results): cudaMalloc: out of memory" ]
	[ "${e[1]}" = "second line of detail" ]
	[ "${#e[@]}" -eq 2 ]
}
