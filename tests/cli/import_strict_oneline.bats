#!/usr/bin/env bats
# `import --strict` stops a source at its first problem and keeps nothing
# of it.  What it prints is that problem, one line, in the words the import
# without --strict uses less what they say is skipped:
#   ktraj: import: FILE:LINE: what      (FILE: what for a whole document)
# and it exits 1.  No second line says that nothing was kept (that is what
# --strict means) nor a third that it stopped.  Every importer, through our
# own bad fixtures (tests/data/import/) and the corpus files that have a
# problem; a tar cut inside a member keeps nothing either, as a cut zip.

bats_require_minimum_version 1.5.0

setup() {
	D="$BATS_TEST_DIRNAME/../data/import"
	T="$BATS_TEST_TMPDIR"
}

# strict_one FILE [FORMAT]: --strict import of FILE prints one line naming
# FILE, exits 1, stores nothing; the line is the first warning of the
# import without --strict, less its "skipped" words
strict_one() {
	local f=$1 fmt=() first
	[ -z "$2" ] || fmt=(--format "$2")
	export KTRAJ_STORE="$T/strict_$RANDOM.ktraj"
	run --separate-stderr "$KTRAJ" import --strict "${fmt[@]}" "$f"
	echo "$f: $status: $stderr"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ "$stderr" == "ktraj: import: $f"[:]* ]]
	[[ "$stderr" != *$'\n'* ]]
	[[ "$stderr" != *"nothing of this file was kept"* ]]
	[[ "$stderr" != *"stopped at the first problem"* ]]
	[ -z "$("$KTRAJ" ls --json)" ]
	export KTRAJ_STORE="$T/plain_$RANDOM.ktraj"
	first=$("$KTRAJ" import "${fmt[@]}" "$f" 2>&1 >/dev/null | head -1)
	# (import/driver.c drop_words)
	for w in ": line skipped" ": file skipped" ": skipped" "; skipped" \
		"; event not imported" "; not imported"; do
		[ "${first%"$w"}" = "$first" ] || { first=${first%"$w"}; break; }
	done
	[ "$stderr" = "$first" ]
}

@test "--strict, a bad line or document of each format: one line, the first problem, exit 1, nothing kept" {
	for f in claude.jsonl:claude_code codex.jsonl:codex flashinfer_trace.jsonl:flashinfer \
		ktraj.jsonl:ktraj atif.trajectory.json:atif swe.json:swe_agent \
		openhands.json:openhands inspect.json:inspect kernelbench.json:kernelbench \
		kernelagent.json:kernelagent flashinfer_def.json:flashinfer; do
		strict_one "$D/truncated/${f%%:*}" "${f##*:}"
	done
	for f in strict/claude_bad.jsonl strict/claude_nul.jsonl strict/ktraj_bom.jsonl \
		ktraj/bad_call.jsonl ktraj/bad_mid.jsonl ktraj/bad_nul.jsonl ktraj/bad_type.jsonl \
		ktraj/bad_concat.jsonl claude/malformed.jsonl codex/badutf8.jsonl atif/bad.trajectory.json; do
		strict_one "$D/$f"
	done
	# a problem that is not of the JSON: Inspect's message without a role
	python3 - "$D/inspect/mono_v2.json" "$T/norole.json" <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))
	del d["samples"][0]["messages"][0]["role"]
	json.dump(d, open(sys.argv[2], "w"), indent=1)
	EOF
	strict_one "$T/norole.json"
	[ "$stderr" = "ktraj: import: $T/norole.json: message without a role" ]
}

@test "--strict, corpus files with a problem: one line each, exit 1, nothing kept" {
	[ -d "$CORPUS" ] || skip "no corpus"
	for f in claude_code/cclog_edge_cases.jsonl codex/localpush_rollout_12-47-42_unanswered_call.jsonl \
		codex/localpush_rollout_12-54-34_compacted.jsonl \
		atif/harbor_terminus2_context_summarization.trajectory.json; do
		strict_one "$CORPUS/$f"
	done
}

@test "--strict, a tar cut inside a member: one line, exit 1, nothing of the archive kept; without it the members before the cut are" {
	mkdir -p "$T/d"
	cp "$D/claude/s2x.jsonl" "$T/d/a.jsonl"
	python3 -c 'import os; open(os.sys.argv[1], "w").write(os.urandom(150000).hex())' "$T/d/z.txt"
	tar -cf "$T/whole.tar" -C "$T" d
	head -c $(($(stat -c %s "$T/whole.tar") / 2)) "$T/whole.tar" >"$T/cut.tar"
	export KTRAJ_STORE="$T/cut.ktraj"
	run --separate-stderr "$KTRAJ" import --json "$T/cut.tar"
	[ "$status" -eq 0 ]
	[ "$stderr" = "ktraj: import: $T/cut.tar: archive truncated or damaged: member 'd/z.txt': Truncated tar archive: members after 1 not read" ]
	[[ "$output" == *'"format":"claude_code"'* ]]
	export KTRAJ_STORE="$T/strict.ktraj"
	run --separate-stderr "$KTRAJ" import --strict "$T/cut.tar"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "ktraj: import: $T/cut.tar: archive truncated or damaged: member 'd/z.txt': Truncated tar archive: members after 1 not read" ]
	[ -z "$("$KTRAJ" ls --json)" ]
}
