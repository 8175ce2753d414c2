#!/usr/bin/env bats
# Small files of one folder share a store transaction, each ended by a
# savepoint (FORMAT.md §6.12): fewer LMDB commits, and still the promise of
# one transaction per file: a failed file keeps nothing of itself, the
# files before it stay, and a killed import keeps no part of a run.

bats_require_minimum_version 1.5.0

setup() {
	load lib/kill_import
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
}

# twenty_runs: the store lists 20 runs or more (a kill_import_when COND)
twenty_runs() {
	[ "$("$KTRAJ" ls --json 2>/dev/null | wc -l)" -ge 20 ]
}

# small DIR N EVENTS: N ktraj JSONL files f000.jsonl.. of EVENTS notes each
small() {
	mkdir -p "$1"
	python3 - "$1" "$2" "$3" <<-'PY'
	import json, sys
	d, n, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
	for i in range(n):
	    with open("%s/f%03d.jsonl" % (d, i), "w") as f:
	        for j in range(k):
	            f.write(json.dumps({"kind": "note", "payload": {"text": "file %d note %d: the kernel ran in %d us" % (i, j, 100 + i * j)}}) + "\n")
	PY
}

# the runs of the store, one "name events" line each, sorted
runs() {
	"$KTRAJ" ls --json | python3 -c 'import json,sys; [print(r["name"], r["events"]) for r in map(json.loads, sys.stdin)]' | sort
}

@test "a folder of 40 small files is committed in a few transactions, not one per file, and holds every run whole" {
	command -v mdb_stat >/dev/null || skip "no mdb_stat (lmdb-utils)"
	small "$BATS_TEST_TMPDIR/in" 40 5
	run --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/in"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(printf '%s\n' "$output" | grep -c ' added ')" -eq 40 ]
	# LMDB numbers its write transactions: one per file was 40 and more
	txns=$(mdb_stat -e -n "$KTRAJ_STORE" | awk '/Last transaction ID/ {print $4}')
	echo "transactions: $txns"
	[ "$txns" -lt 10 ]
	[ "$(runs | wc -l)" -eq 40 ]
	[ "$(runs | grep -c ' 5$')" -eq 40 ]
	"$KTRAJ" verify
}

@test "a folder of 200 files of ~20 KB is committed in batches of about 1 MiB: a few transactions, and more than one" {
	command -v mdb_stat >/dev/null || skip "no mdb_stat (lmdb-utils)"
	# ~20 KB each, like the benchmark's pieces of a Claude Code session
	# (tests/bench/import_small.sh): 256 KiB batches took 13 of them each
	small "$BATS_TEST_TMPDIR/in" 200 250
	run --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/in"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	txns=$(mdb_stat -e -n "$KTRAJ_STORE" | awk '/Last transaction ID/ {print $4}')
	echo "transactions: $txns"
	# 1 MiB or 64 files a batch: 4 commits of the files; 256 KiB: 16
	[ "$txns" -le 8 ]
	# bounded: not one transaction for the whole folder
	[ "$txns" -ge 4 ]
	[ "$(runs | wc -l)" -eq 200 ]
	[ "$(runs | grep -c ' 250$')" -eq 200 ]
	"$KTRAJ" verify
}

@test "--strict: a bad file in the middle of a folder of small files keeps the files before it and nothing of itself" {
	small "$BATS_TEST_TMPDIR/in" 20 4
	# f010 is good for three lines, then not JSON
	head -3 "$BATS_TEST_TMPDIR/in/f010.jsonl" >"$BATS_TEST_TMPDIR/x"
	printf '{not json\n' >>"$BATS_TEST_TMPDIR/x"
	mv "$BATS_TEST_TMPDIR/x" "$BATS_TEST_TMPDIR/in/f010.jsonl"
	run --separate-stderr "$KTRAJ" import --strict "$BATS_TEST_TMPDIR/in"
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"f010.jsonl"* ]]
	# the runs listed are the ten files before it, each whole
	[ "$(printf '%s\n' "$output" | grep -c ' added ')" -eq 10 ]
	[ "$(runs | wc -l)" -eq 10 ]
	[ "$(runs | grep -c ' 4$')" -eq 10 ]
	runs | grep -q '^f009 4$'
	run runs
	[ "$status" -eq 0 ]
	[[ "$output" != *f010* ]]
	"$KTRAJ" verify
	# without --strict the good lines of f010 are kept and the rest imported
	run "$KTRAJ" import "$BATS_TEST_TMPDIR/in"
	[ "$(runs | wc -l)" -eq 20 ]
	runs | grep -q '^f010 3$'
}

@test "kill -9 during a folder import of many small files: the store verifies, no run is partial, the next import completes it" {
	small "$BATS_TEST_TMPDIR/in" 600 6
	kill_import_when twenty_runs "$BATS_TEST_TMPDIR/out" \
		"$KTRAJ" import "$BATS_TEST_TMPDIR/in" ||
		skip "the import finished before it could be killed"
	# nothing was reported as imported: run lines come after the last commit
	[ ! -s "$BATS_TEST_TMPDIR/out" ]
	run "$KTRAJ" verify
	[ "$status" -eq 0 ]
	[[ "$output" != *unfinished* ]]
	k=$(runs | wc -l)
	[ "$k" -ge 20 ]
	[ "$k" -lt 600 ]
	# every run kept is whole
	[ "$(runs | grep -vc ' 6$')" -eq 0 ]
	run "$KTRAJ" import "$BATS_TEST_TMPDIR/in"
	[ "$status" -eq 0 ]
	[ "$(runs | wc -l)" -eq 600 ]
	[ "$(runs | grep -vc ' 6$')" -eq 0 ]
	"$KTRAJ" verify
}

@test "small files beside an archive of small files and a big file: every run lands once, whole" {
	small "$BATS_TEST_TMPDIR/in" 12 3
	small "$BATS_TEST_TMPDIR/arc" 5 2
	for f in "$BATS_TEST_TMPDIR"/arc/*.jsonl; do
		mv "$f" "${f%/*}/a-${f##*/}"
	done
	tar -czf "$BATS_TEST_TMPDIR/in/f005b.tar.gz" -C "$BATS_TEST_TMPDIR/arc" .
	# over the size of a shared transaction's source: imported alone
	python3 -c '
import json
for j in range(700):
    print(json.dumps({"kind": "note", "payload": {"text": "big %d " % j + "x" * 400}}))' >"$BATS_TEST_TMPDIR/in/f007b.jsonl"
	run --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/in"
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | grep -c ' added ')" -eq 18 ]
	[ "$(runs | grep -c '^f0[0-9][0-9] 3$')" -eq 12 ]
	[ "$(runs | grep -c '^a-f00[0-4] 2$')" -eq 5 ]
	runs | grep -q '^f007b 700$'
	"$KTRAJ" verify
}

@test "each small file of a folder is opened once (no second open to look for an archive), and an archive among them is still read as one" {
	command -v strace >/dev/null || skip "no strace"
	small "$BATS_TEST_TMPDIR/in" 6 2
	small "$BATS_TEST_TMPDIR/arc" 3 3
	for f in "$BATS_TEST_TMPDIR"/arc/*.jsonl; do
		mv "$f" "${f%/*}/a-${f##*/}"
	done
	tar -cf "$BATS_TEST_TMPDIR/in/f002b.tar" -C "$BATS_TEST_TMPDIR/arc" .
	run --separate-stderr env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -e trace=openat -o "$BATS_TEST_TMPDIR/tr" "$KTRAJ" import "$BATS_TEST_TMPDIR/in"
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | grep -c ' added ')" -eq 9 ]
	for i in 000 001 003 005; do
		[ "$(grep -c "in/f$i.jsonl\"" "$BATS_TEST_TMPDIR/tr")" -eq 1 ]
	done
	# the archive's members are runs of their own, not the tar as a file
	[ "$(runs | wc -l)" -eq 9 ]
	[ "$(runs | grep -c '^f00[0-5] 2$')" -eq 6 ]
	[ "$(runs | grep -c '^a-f00[0-2] 3$')" -eq 3 ]
	"$KTRAJ" verify
}
