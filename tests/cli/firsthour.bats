#!/usr/bin/env bats
# What a new user's first hour with the README and the real corpus broke:
# each test is one finding.  Write failures are made with a link to
# /dev/full in the test's own folder, so that a regression removes the
# link, never the device.

bats_require_minimum_version 1.5.0

SAMPLE="$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl"

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	"$KTRAJ" import "$SAMPLE" >/dev/null
	RUN=3db88dd1
}

full_link() {
	[ -c /dev/full ] || skip "no /dev/full"
	ln -s /dev/full "$1"
}

@test "an empty RUN (an unset shell variable) says so in one line, exit 2, for every command that takes one" {
	for cmd in "log _" "show _ 1" "cat _ x" "diff _ 1 2" "export _" \
		   "blame speedup _" "stalls _" "report _ -o $BATS_TEST_TMPDIR/r.html" \
		   "hide _" "verify _" "stats _" "questions suggest _"; do
		read -ra w <<<"$cmd"
		# the run argument, written _ above, is the empty string
		args=()
		for a in "${w[@]}"; do [ "$a" = _ ] && args+=("") || args+=("$a"); done
		run --separate-stderr "$KTRAJ" "${args[@]}"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
		[[ "$stderr" == "ktraj: ${w[0]}: RUN is empty: give a run id, a unique prefix of it (4+ characters) or a name"* ]]
	done
	[ ! -e "$BATS_TEST_TMPDIR/r.html" ]
}

@test "export -o and --bundle that fail leave a path they did not create (a link, a device) in place" {
	full_link "$BATS_TEST_TMPDIR/out.jsonl"
	run --separate-stderr "$KTRAJ" export "$RUN" -o "$BATS_TEST_TMPDIR/out.jsonl"
	[ "$status" -eq 1 ]
	[ -L "$BATS_TEST_TMPDIR/out.jsonl" ]
	full_link "$BATS_TEST_TMPDIR/b.tar.gz"
	run --separate-stderr "$KTRAJ" export "$RUN" --step 12 --bundle "$BATS_TEST_TMPDIR/b.tar.gz"
	[ "$status" -eq 1 ]
	[ -L "$BATS_TEST_TMPDIR/b.tar.gz" ]
	[ -c /dev/full ]
}

@test "report -o: a folder or a full disk is said as such, not as the analysis failing" {
	run --separate-stderr "$KTRAJ" report "$RUN" -o "$BATS_TEST_TMPDIR"
	[ "$status" -eq 1 ]
	[ "$stderr" = "ktraj: report: $BATS_TEST_TMPDIR: cannot write: Is a directory" ]
	full_link "$BATS_TEST_TMPDIR/r.html"
	run --separate-stderr "$KTRAJ" report "$RUN" -o "$BATS_TEST_TMPDIR/r.html"
	[ "$status" -eq 1 ]
	[ "$stderr" = "ktraj: report: $BATS_TEST_TMPDIR/r.html: write failed: No space left on device" ]
	[ -L "$BATS_TEST_TMPDIR/r.html" ]
}

@test "questions mine -o: a library that could not be written is exit 1 with the reason" {
	run --separate-stderr "$KTRAJ" questions mine -o "$BATS_TEST_TMPDIR"
	[ "$status" -eq 1 ]
	[ "$stderr" = "ktraj: questions: $BATS_TEST_TMPDIR: cannot write: Is a directory" ]
	for f in lib.md lib.jsonl; do
		full_link "$BATS_TEST_TMPDIR/$f"
		run --separate-stderr "$KTRAJ" questions mine -o "$BATS_TEST_TMPDIR/$f"
		[ "$status" -eq 1 ]
		[ "$stderr" = "ktraj: questions: $BATS_TEST_TMPDIR/$f: write failed: No space left on device" ]
	done
}

@test "output lost on a full disk or a closed stdout is exit 1, not 0" {
	[ -c /dev/full ] || skip "no /dev/full"
	for cmd in "log $RUN" "blame speedup $RUN" "ls" "log --help"; do
		read -ra w <<<"$cmd"
		run --separate-stderr sh -c '"$@" >/dev/full' sh "$KTRAJ" "${w[@]}"
		[ "$status" -eq 1 ]
		[ "$stderr" = "ktraj: ${w[0]}: writing the output: No space left on device" ]
	done
	run --separate-stderr sh -c '"$@" >&-' sh "$KTRAJ" log "$RUN"
	[ "$status" -eq 1 ]
	[[ "$stderr" == "ktraj: log: writing the output: "* ]]
}

@test "claude_code: a byte order mark opening a file whose first line has invalid UTF-8 is repaired, not refused for its mark" {
	L='{"type":"user","message":{"role":"user","content":"hi \377\376 there"},"uuid":"b","sessionId":"bom-utf8","timestamp":"2025-01-01T00:00:00Z"}'
	printf "\357\273\277$L\n" >"$BATS_TEST_TMPDIR/s.jsonl"
	run --separate-stderr "$KTRAJ" import --format claude_code "$BATS_TEST_TMPDIR/s.jsonl"
	[ "$status" -eq 0 ]
	[ "$stderr" = "ktraj: import: $BATS_TEST_TMPDIR/s.jsonl:1: invalid UTF-8 at byte 57: replaced by U+FFFD (said once per file)" ]
	[[ "$output" == *" 1 events "*" 1 added  claude_code"* ]]
	# as the same line without the mark is
	printf "$L\n" >"$BATS_TEST_TMPDIR/t.jsonl"
	run --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/t.jsonl"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *":1: invalid UTF-8 at byte 54: replaced by U+FFFD (said once per file)" ]]
}

@test "import of the folder that holds the store: the store and its lock are not read as input; the store named itself is one line" {
	d="$BATS_TEST_TMPDIR/d"
	mkdir "$d"
	cp "$SAMPLE" "$d/"
	for i in 1 2; do
		run --separate-stderr "$KTRAJ" import --store "$d/s" "$d"
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		[[ "$output" == "3db88dd1"* ]]
	done
	[ -f "$d/s" ] && [ -f "$d/s-lock" ] || false
	run --separate-stderr "$KTRAJ" import --store "$d/s" "$d/s"
	[ "$status" -eq 1 ]
	[ "$stderr" = "ktraj: import: $d/s: this import's store: not read as input" ]
	"$KTRAJ" verify --store "$d/s"
}

@test "--max-line cut on line 1 of stdin: one line about the cut line, exit 1, no 'empty' line" {
	run --separate-stderr sh -c 'python3 -c "print(\"x\" * 3000000)" | "$1" import --max-line 1M -' sh "$KTRAJ"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "ktraj: import: -: line 1 is longer than 1048576 bytes (limit: --max-line): nothing imported" ]
	# a huge first JSONL line as well
	python3 -c 'import json; print(json.dumps({"type": "user", "uuid": "a", "sessionId": "big1", "timestamp": "2025-01-01T00:00:00Z", "message": {"role": "user", "content": "y" * 1200000}}))' >"$BATS_TEST_TMPDIR/big.jsonl"
	run --separate-stderr sh -c 'cat "$2" | "$1" import --max-line 1M -' sh "$KTRAJ" "$BATS_TEST_TMPDIR/big.jsonl"
	[ "$status" -eq 1 ]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
	[[ "$stderr" == *"line 1 is longer than 1048576 bytes"* ]]
}

@test "a full disk stops a multi-file import at the first file that does not fit: one line, exit 1, the store verifies" {
	m="$BATS_TEST_TMPDIR/m"
	mkdir "$m" "$BATS_TEST_TMPDIR/in"
	mount -t tmpfs -o size=1m tmpfs "$m" 2>/dev/null || skip "cannot mount a tmpfs here"
	# random text does not compress: 40 sessions of 64 KB overfill 1 MiB
	python3 - "$BATS_TEST_TMPDIR/in" <<'PY'
import base64, json, os, sys
for i in range(40):
    with open(f"{sys.argv[1]}/s{i:02d}.jsonl", "w") as f:
        for j in range(4):
            t = base64.b64encode(os.urandom(12000)).decode()
            f.write(json.dumps({"type": "user", "uuid": f"u{i}-{j}", "sessionId": f"full-{i}",
                                "timestamp": "2025-01-01T00:00:%02dZ" % j,
                                "message": {"role": "user", "content": t}}) + "\n")
PY
	for how in files folder; do
		rm -f "$m"/s "$m"/s-lock
		if [ $how = files ]; then
			run --separate-stderr "$KTRAJ" import --store "$m/s" "$BATS_TEST_TMPDIR"/in/*.jsonl
		else
			run --separate-stderr "$KTRAJ" import --store "$m/s" "$BATS_TEST_TMPDIR/in"
		fi
		n=$(printf '%s\n' "$output" | grep -c ' added ' || true)
		[ "$status" -eq 1 ]
		[ "$n" -ge 1 ] && [ "$n" -lt 40 ] || false
		[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
		left=$((40 - n - 1))
		[[ "$stderr" == "ktraj: import: $BATS_TEST_TMPDIR/in/s"*".jsonl: not imported: No space left on device (the store's file system is full): import stopped here, $left more files not read; the runs listed were imported" ]]
		run "$KTRAJ" verify --store "$m/s"
		[ "$status" -eq 0 ]
		[[ "$output" == "ok: $n runs,"* ]]
	done
	umount "$m"
}

@test "export -o on a full disk names the file and the reason, not a seq" {
	full_link "$BATS_TEST_TMPDIR/out.jsonl"
	for f in jsonl atif sts; do
		run --separate-stderr "$KTRAJ" export "$RUN" --format $f -o "$BATS_TEST_TMPDIR/out.jsonl"
		[ "$status" -eq 1 ]
		[ "$stderr" = "ktraj: export: $BATS_TEST_TMPDIR/out.jsonl: No space left on device" ]
	done
	run --separate-stderr sh -c '"$1" export "$2" >"$3"' sh "$KTRAJ" "$RUN" "$BATS_TEST_TMPDIR/out.jsonl"
	[ "$status" -eq 1 ]
	[ "$stderr" = "ktraj: export: writing the output: No space left on device" ]
}

@test "--json before the command is taken as after it; another option there says where options go" {
	run --separate-stderr "$KTRAJ" --json ls
	[ "$status" -eq 0 ]
	[[ "$output" == '{"run":"3db88dd1'* ]]
	run --separate-stderr "$KTRAJ" --json import "$SAMPLE"
	[ "$status" -eq 0 ]
	[[ "$output" == *'"added":0}' ]]
	run --separate-stderr "$KTRAJ" --strict import "$SAMPLE"
	[ "$status" -eq 2 ]
	[ "$stderr" = "ktraj: '--strict' is not a ktraj command: options go after the command (ktraj <command> --strict ...; see \`ktraj --help\`)" ]
}

@test "one event appended is said in the singular" {
	run --separate-stderr sh -c 'echo "{\"kind\":\"note\",\"payload\":{\"text\":\"x\"}}" | "$1" append one' sh "$KTRAJ"
	[ "$status" -eq 0 ]
	[[ "$stderr$output" == *"1 event appended to one (run "*", 1 event)"* ]]
}
