#!/usr/bin/env bats
# Files of a folder or archive that no importer recognizes are reported on
# stderr, once each, and counted in --json output; the exit code stays 0.
# Fixtures: tests/data/import/claude/s2x.jsonl (ours) plus files made here.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	D="$BATS_TEST_TMPDIR/dl"
	mkdir -p "$D/sub"
	cp "$BATS_TEST_DIRNAME/../data/import/claude/s2x.jsonl" "$D/"
	printf '# notes\nnothing to import\n' >"$D/README.md"
	printf '\x00\x01binary' >"$D/sub/blob.bin"
}

@test "folder: each unrecognized file reported once on stderr, exit 0" {
	run --separate-stderr "$KTRAJ" import "$D"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == *"claude_code"* ]]
	[ "$(grep -c 'skipped: not a recognized trajectory format' <<<"$stderr")" -eq 2 ]
	grep -qx "ktraj: import: $D/README.md: skipped: not a recognized trajectory format" <<<"$stderr"
	grep -qx "ktraj: import: $D/sub/blob.bin: skipped: not a recognized trajectory format" <<<"$stderr"
	[ "$(grep -c 's2x' <<<"$stderr")" -eq 0 ]
}

@test "--json: stdout holds one object per run only; skipped files go to stderr" {
	run --separate-stderr "$KTRAJ" import --json "$D"
	[ "$status" -eq 0 ]
	echo "$output" | python3 -c '
import json,sys
L=[json.loads(l) for l in sys.stdin]
assert len(L)==1 and L[0]["format"]=="claude_code", L
assert all(set(("run","name","format","events","added"))<=set(o) for o in L), L'
	[ "$(grep -c 'skipped: not a recognized trajectory format' <<<"$stderr")" -eq 2 ]
}

@test "archive members too; --strict is not stopped by a skipped file" {
	tar -C "$D" -czf "$BATS_TEST_TMPDIR/a.tar.gz" .
	run --separate-stderr "$KTRAJ" import --strict "$BATS_TEST_TMPDIR/a.tar.gz"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'skipped: not a recognized trajectory format' <<<"$stderr")" -eq 2 ]
	grep -q "a.tar.gz:.*README.md: skipped: not a recognized" <<<"$stderr"
}

@test "a sidecar claimed by a later file of the folder is not reported" {
	A="$BATS_TEST_TMPDIR/atif"
	mkdir -p "$A"
	cp "$BATS_TEST_DIRNAME"/../data/import/atif/*.json "$A/" 2>/dev/null || skip "no ATIF fixtures"
	ls "$A"/*.metrics.json >/dev/null 2>&1 || skip "no ATIF metrics sidecar fixture"
	run --separate-stderr "$KTRAJ" import "$A"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"metrics.json: skipped"* ]]
	# the same in an archive, where the member read first must stay
	# readable for the trajectory that claims it
	tar -C "$BATS_TEST_TMPDIR" -cf "$BATS_TEST_TMPDIR/a.tar" atif
	run --separate-stderr env KTRAJ_STORE="$BATS_TEST_TMPDIR/t.ktraj" "$KTRAJ" import --json "$BATS_TEST_TMPDIR/a.tar"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"metrics.json: skipped"* ]]
	[[ "$output" != *'"skipped"'* ]]
	[ "$(KTRAJ_STORE="$BATS_TEST_TMPDIR/t.ktraj" "$KTRAJ" ls --json | grep -c '"sidecar_metrics"')" -eq \
	  "$("$KTRAJ" ls --json | grep -c '"sidecar_metrics"')" ]
}

@test "corpus: the folder's manifests are the files reported as skipped" {
	[ -d "${CORPUS:-}" ] || skip "no corpus"
	run --separate-stderr "$KTRAJ" import --json "$CORPUS/codex"
	[ "$status" -eq 0 ]
	[ "$(grep -c 'skipped: not a recognized trajectory format' <<<"$stderr")" -eq 1 ]
	grep -q "codex/localpush_manifest.json: skipped: not a recognized trajectory format" <<<"$stderr"
	[[ "$output" != *'"skipped"'* ]]
	# the ATIF folder's metrics sidecars belong to their trajectories
	run --separate-stderr "$KTRAJ" import "$CORPUS/atif"
	[[ "$stderr" != *"skipped: not a recognized"* ]]
}
