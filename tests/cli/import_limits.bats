#!/usr/bin/env bats
# `ktraj import`: streams (stdin, devices, FIFOs) are bounded by --max-size;
# a source that cannot be read at all exits 1 while the others import;
# skipped folder entries and empty folders are reported on stderr.
# Streams in these tests are finite (head -c): never an unbounded read.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	FIX="$BATS_TEST_DIRNAME/../data/import/claude"
}

# A sanitizer build reserves terabytes of shadow address space at start and
# aborts on its own when an allocation fails: a ulimit -v says nothing of
# ktraj there (the plain build runs these in `make check`).
skip_sanitized() {
	! grep -qa -e __asan_init -e __tsan_init -e __msan_init "$KTRAJ" ||
		skip "a sanitizer build: ulimit -v limits the sanitizer, not ktraj"
}

@test "stdin longer than --max-size fails that source with a clear line, exit 1" {
	run --separate-stderr bash -c "head -c 300000 /dev/zero | '$KTRAJ' import --max-size 100000 -"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"ktraj: import: -: input larger than 100000 bytes"*"--max-size"* ]]
	[ -z "$output" ]
	# within the bound, stdin is read and imported
	run --separate-stderr bash -c "'$KTRAJ' import --max-size 100000 - <'$FIX/s2x.jsonl'"
	[ "$status" -eq 0 ]
	[[ "$output" == *"claude_code"* ]]
}

@test "a FIFO longer than --max-size fails; the other path still imports" {
	mkfifo "$BATS_TEST_TMPDIR/p"
	head -c 300000 /dev/zero >"$BATS_TEST_TMPDIR/p" &
	run --separate-stderr "$KTRAJ" import --max-size 100000 \
		--format claude_code "$BATS_TEST_TMPDIR/p" "$FIX/s2x.jsonl"
	wait
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"/p: input larger than 100000 bytes"* ]]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == *"claude_code"*"Kernel speedup session" ]]
	run "$KTRAJ" verify
	[ "$status" -eq 0 ]
}

@test "a FIFO within the bound is imported whole (not peeked)" {
	mkfifo "$BATS_TEST_TMPDIR/p"
	cat "$FIX/s2x.jsonl" >"$BATS_TEST_TMPDIR/p" &
	run --separate-stderr "$KTRAJ" import --json "$BATS_TEST_TMPDIR/p"
	wait
	[ "$status" -eq 0 ]
	[[ "$output" == *'"format":"claude_code"'* ]]
	[[ "$output" != *'"events":0'* ]]
}

@test "an unreadable file exits 1 like a missing path; the others import" {
	[ "$(id -u)" -ne 0 ] || skip "root reads any file"
	cp "$FIX/s2x.jsonl" "$BATS_TEST_TMPDIR/locked.jsonl"
	chmod 000 "$BATS_TEST_TMPDIR/locked.jsonl"
	run --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/locked.jsonl" "$FIX/s2x.jsonl"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"locked.jsonl: cannot open: Permission denied"* ]]
	[ "${#lines[@]}" -eq 1 ]
	run --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/nope.jsonl" "$FIX/s2x.jsonl"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
}

@test "malformed lines in a readable file still exit 0" {
	run --separate-stderr "$KTRAJ" import "$FIX/malformed.jsonl"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"malformed.jsonl:"[0-9]* ]]
}

@test "an empty folder says 'no files' and exits 1" {
	mkdir "$BATS_TEST_TMPDIR/empty"
	run --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/empty"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"ktraj: import: $BATS_TEST_TMPDIR/empty: no files"* ]]
	# next to a path that imports, the exit status stays 0
	run --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/empty" "$FIX/s2x.jsonl"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"empty: no files"* ]]
	[ "${#lines[@]}" -eq 1 ]
}

@test "an empty input (/dev/null, an empty or blank file, empty stdin) says 'empty' and exits 1, as an empty folder; beside a path that imports, 0" {
	: >"$BATS_TEST_TMPDIR/empty.jsonl"
	printf ' \n\n' >"$BATS_TEST_TMPDIR/blank.jsonl"
	for p in /dev/null "$BATS_TEST_TMPDIR/empty.jsonl" "$BATS_TEST_TMPDIR/blank.jsonl"; do
		run --separate-stderr "$KTRAJ" import "$p"
		[ "$status" -eq 1 ]
		[ "$stderr" = "ktraj: import: $p: empty: nothing to import" ]
		# --format names no format of nothing
		run --separate-stderr "$KTRAJ" import --format claude_code "$p"
		[ "$status" -eq 1 ]
		[ "$stderr" = "ktraj: import: $p: empty: nothing to import" ]
	done
	run --separate-stderr bash -c "'$KTRAJ' import - </dev/null"
	[ "$status" -eq 1 ]
	[ "$stderr" = "ktraj: import: -: empty: nothing to import" ]
	[ ! -e "$KTRAJ_STORE" ] || [ "$("$KTRAJ" ls | wc -l)" -eq 0 ]
	run --separate-stderr "$KTRAJ" import /dev/null "$FIX/s2x.jsonl"
	[ "$status" -eq 0 ]
	[ "$stderr" = "ktraj: import: /dev/null: empty: nothing to import" ]
	[ "${#lines[@]}" -eq 1 ]
}

@test "dangling links and FIFOs in a folder are reported as skipped" {
	D="$BATS_TEST_TMPDIR/d"
	mkdir "$D"
	cp "$FIX/s2x.jsonl" "$D/"
	ln -s "$BATS_TEST_TMPDIR/gone" "$D/dangling.jsonl"
	mkfifo "$D/fifo.jsonl"
	run --separate-stderr "$KTRAJ" import "$D"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"$D/dangling.jsonl: skipped: dangling link"* ]]
	[[ "$stderr" == *"$D/fifo.jsonl: skipped: not a regular file"* ]]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == *"claude_code"* ]]
	# only skipped entries: nothing imported, exit 1, no 'no files' line
	rm "$D/s2x.jsonl"
	run --separate-stderr "$KTRAJ" import "$D"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"dangling link"* ]]
	[[ "$stderr" != *"no files"* ]]
}

@test "under a tight ulimit -v an import of a big session fails with a line or imports, never a signal; a failed one leaves no run, verify clean" {
	# the helper threads (hash, parse-ahead, block compression) start
	# only for a file over 4 MiB on two CPUs or more
	[ "$(nproc)" -ge 2 ] || skip "one CPU: import starts no second thread"
	[ "${KTRAJ_THREADS:-}" != 1 ] || skip "KTRAJ_THREADS=1"
	skip_sanitized
	(ulimit -v 40000) 2>/dev/null || skip "ulimit -v cannot be set here"
	S="$BATS_TEST_TMPDIR/big.jsonl"
	python3 "$BATS_TEST_DIRNAME/../bench/gen_claude.py" --mb 8 "$S" >/dev/null
	# every limit from too small to run at all up to past the first
	# that imports, 1 MB apart: where a thread's first allocation, or
	# the dictionary training, finds the address space used up (the
	# window is a few MB wide, and where depends on the machine)
	ok=0
	for ((v = 40000; v <= 400000 && ok < 16; v += 1000)); do
		rm -f "$KTRAJ_STORE" "$KTRAJ_STORE-lock"
		rc=0
		(ulimit -v $v; exec "$KTRAJ" import "$S") >/dev/null 2>"$BATS_TEST_TMPDIR/err" || rc=$?
		if [ "$rc" -ge 128 ]; then
			echo "ulimit -v $v: exit $rc (signal $((rc - 128)))"
			false
		fi
		if [ "$rc" -eq 0 ]; then
			ok=$((ok + 1))
		else
			[ "$rc" -eq 1 ]
			grep -q '^ktraj: import: ' "$BATS_TEST_TMPDIR/err"
		fi
		[ -e "$KTRAJ_STORE" ] || continue
		run "$KTRAJ" verify
		# (an LMDB file made before the store's databases could be
		# is no store yet: the next import makes it one)
		[ "$status" -eq 0 ] || { [ "$rc" -ne 0 ] &&
			[[ "$output" == *"not a ktraj store (no 'meta' database)" ]]; } ||
			{ echo "ulimit -v $v: verify: $status $output"; false; }
		if [ "$rc" -ne 0 ]; then
			[ -z "$("$KTRAJ" ls --json 2>/dev/null)" ] ||
				{ echo "ulimit -v $v: a run kept"; false; }
		fi
	done
	[ "$ok" -gt 0 ] || skip "no import succeeds under ulimit -v 400000 here (a sanitizer build?)"
}

# A folder of many small sessions with a big and a middle one among them
# (the tester's): the dictionary is trained at a commit between batches
# while the next files are parsed on a second thread, so the address
# space runs out at the training's allocations (libzstd 1.5.4 dereferenced
# a CDict it failed to allocate: SIGSEGV).
mix_folder() {
	local G="$BATS_TEST_DIRNAME/../bench/gen_claude.py" D="$1"
	python3 "$G" --mb 5 "$BATS_TEST_TMPDIR/one5.jsonl" >/dev/null
	python3 "$BATS_TEST_DIRNAME/../bench/cut_session.py" "$BATS_TEST_TMPDIR/one5.jsonl" "$D" 300
	python3 "$G" --mb 20 "$D/s00150big.jsonl" >/dev/null
	cp "$BATS_TEST_TMPDIR/one5.jsonl" "$D/s00199mid.jsonl"
}

@test "under ulimit -v where the folder's dictionary is trained, an import fails with a line or imports, never a signal; verify clean, the runs before the failure kept" {
	[ "$(nproc)" -ge 2 ] || skip "one CPU: import starts no second thread"
	skip_sanitized
	(ulimit -v 40000) 2>/dev/null || skip "ulimit -v cannot be set here"
	D="$BATS_TEST_TMPDIR/mix"
	mix_folder "$D"
	imp() {
		rm -f "$KTRAJ_STORE" "$KTRAJ_STORE-lock"
		rc=0
		(ulimit -v $1; KTRAJ_THREADS=2 exec "$KTRAJ" --no-progress import "$D") \
			>/dev/null 2>"$BATS_TEST_TMPDIR/err" || rc=$?
		size=$(stat -c %s "$KTRAJ_STORE" 2>/dev/null || echo 0)
	}
	# the store's size with the dictionary, then the lowest limit (8 MB
	# steps) that still gives it: the training ran to its end there, and
	# the failures are at and a little above it
	imp unlimited
	[ "$rc" -eq 0 ]
	full=$size
	lo=0
	for ((v = 160000; v <= 480000; v += 8000)); do
		imp $v
		[ "$rc" -lt 128 ] || { echo "ulimit -v $v: exit $rc"; false; }
		if [ "$rc" -eq 0 ] && [ "$size" -eq "$full" ]; then lo=$v; break; fi
	done
	[ "$lo" -gt 0 ] || skip "no import under ulimit -v 480000 gives the dictionary here (a sanitizer build?)"
	for ((v = lo - 8000; v <= lo + 24000; v += 2000)); do
		imp $v
		[ "$rc" -lt 128 ] || { echo "ulimit -v $v: exit $rc (signal $((rc - 128)))"; false; }
		[ "$rc" -eq 0 ] || { [ "$rc" -eq 1 ] && grep -q '^ktraj: import: ' "$BATS_TEST_TMPDIR/err"; } ||
			{ echo "ulimit -v $v: exit $rc: $(cat "$BATS_TEST_TMPDIR/err")"; false; }
		[ -e "$KTRAJ_STORE" ] || continue
		run "$KTRAJ" verify
		[ "$status" -eq 0 ] || { echo "ulimit -v $v: verify: $status $output"; false; }
		# the batches committed before the failure stay
		if [ "$rc" -ne 0 ] && [ "$size" -gt 1000000 ]; then
			[ -n "$("$KTRAJ" ls --json 2>/dev/null)" ] ||
				{ echo "ulimit -v $v: exit $rc and no run kept"; false; }
		fi
	done
}
