#!/usr/bin/env bats
# A UTF-8 byte order mark (EF BB BF) anywhere but at byte 0 of a file is
# not JSON (RFC 8259 section 8.1 lets a parser ignore one only before the
# text).  Every importer reports it in the same words, once, through
# kt_imp_json_strict / kt_imp_json_bom (import/jsonstrict.h):
#   JSONL:      FILE:LINE: invalid JSON (RFC 8259): byte order mark at byte N: line skipped
#   a document: FILE:LINE: invalid JSON (RFC 8259): byte order mark at byte N: file skipped
# and the rest of a JSONL file is imported (ktraj JSONL too); a mark at
# byte 0 is accepted.  Under --strict the words end before ": line skipped".
# Fixtures: copies of our own tests/data/import files with a mark put in.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	D="$BATS_TEST_DIRNAME/../data/import"
	T="$BATS_TEST_TMPDIR"
	W='invalid JSON (RFC 8259): byte order mark at byte'
}

# bom_line SRC DST N: SRC with a mark opening line N
bom_line() {
	awk -v n="$3" 'NR==n{printf "\357\273\277"} {print}' "$1" >"$2"
}

# bom_mid SRC DST N: SRC with a mark after the first "," of line N (where
# a key is expected); prints the mark's byte offset in that line
bom_mid() {
	LC_ALL=C awk -v n="$3" 'NR==n{i=index($0, ","); if (!i) exit 1; $0=substr($0,1,i) "\357\273\277" substr($0,i+1)} {print}' "$1" >"$2"
	LC_ALL=C awk -v n="$3" 'NR==n{print index($0, ",")}' "$1"
}

# the stderr lines that name file $1
lines_of() {
	grep -F -- "$1:" <<<"$stderr" || true
}

@test "JSONL (Claude Code, Codex, FlashInfer traces): a mark opening a later line, or inside one, is one warning, the line skipped" {
	bom_line "$D/claude/s2x.jsonl" "$T/cc.jsonl" 3
	off=$(bom_mid "$D/claude/s2x.jsonl" "$T/cc_mid.jsonl" 3)
	bom_line "$D/codex/streams.jsonl" "$T/cx.jsonl" 3
	cxoff=$(bom_mid "$D/codex/streams.jsonl" "$T/cx_mid.jsonl" 5)
	cp -r "$D/flashinfer/fib" "$T/fib"
	bom_line "$D/flashinfer/fib/traces/gemm/gemm_fx.jsonl" "$T/fi3.jsonl" 3
	fioff=$(bom_mid "$T/fi3.jsonl" "$T/fib/traces/gemm/gemm_fx.jsonl" 5)
	run --separate-stderr "$KTRAJ" import "$T/cc.jsonl" "$T/cc_mid.jsonl" "$T/cx.jsonl" "$T/cx_mid.jsonl" "$T/fib"
	[ "$status" -eq 0 ]
	[ "$(lines_of cc.jsonl)" = "ktraj: import: $T/cc.jsonl:3: $W 0: line skipped" ]
	[ "$(lines_of cc_mid.jsonl)" = "ktraj: import: $T/cc_mid.jsonl:3: $W $off: line skipped" ]
	# streams.jsonl has a malformed line 29 of its own
	[ "$(lines_of cx.jsonl | grep -v ':29: ')" = "ktraj: import: $T/cx.jsonl:3: $W 0: line skipped" ]
	[ "$(lines_of cx_mid.jsonl | grep -v ':29: ')" = "ktraj: import: $T/cx_mid.jsonl:5: $W $cxoff: line skipped" ]
	# gemm_fx.jsonl has a malformed line 4 of its own
	fi="ktraj: import: $T/fib/traces/gemm/gemm_fx.jsonl"
	[ "$(lines_of traces/gemm/gemm_fx.jsonl | grep -v ':4: ')" = "$fi:3: $W 0: line skipped
$fi:5: $W $fioff: line skipped" ]
	# the rest is imported
	[[ "$output" == *"claude_code"* && "$output" == *"codex"* && "$output" == *"flashinfer"* ]]
}

@test "JSON documents (OpenHands, ATIF, SWE-agent, Inspect): a mark inside is one warning at its line, the file skipped" {
	for f in openhands/events.json:openhands atif/parent.trajectory.json:atif swe/mini.json:swe_agent inspect/mono_v2.json:inspect; do
		src=${f%%:*} fmt=${f##*:}
		dst="$T/$fmt.json"
		bom_line "$D/$src" "$dst" 2
		n=$(head -1 "$D/$src" | wc -c)
		run --separate-stderr "$KTRAJ" import --format "$fmt" "$dst"
		[ "$status" -eq 0 ]
		echo "$fmt: $stderr"
		[ "$(lines_of "$fmt.json")" = "ktraj: import: $dst:2: $W $n: file skipped" ]
		[ -z "$output" ]
	done
}

@test "a mark at byte 0 is accepted by every importer" {
	for f in claude/s2x.jsonl codex/streams.jsonl openhands/events.json atif/parent.trajectory.json swe/mini.json inspect/mono_v2.json; do
		dst="$T/lead_$(basename "$f")"
		bom_line "$D/$f" "$dst" 1
		run --separate-stderr "$KTRAJ" import "$dst"
		[ "$status" -eq 0 ]
		[[ "$stderr" != *"byte order mark"* ]]
		[ -n "$output" ]
	done
}

@test "ktraj JSONL: a mark opening a later line, or inside one, in the same words; --strict without 'line skipped'" {
	printf '%s\n' '{"kind":"note","payload":{"text":"a"}}' \
		'{"kind":"note","payload":{"text":"b"}}' \
		'{"kind":"note","payload":{"text":"c"}}' >"$T/kt.jsonl"
	bom_line "$T/kt.jsonl" "$T/kt_line.jsonl" 2
	off=$(bom_mid "$T/kt.jsonl" "$T/kt_mid.jsonl" 3)
	run --separate-stderr "$KTRAJ" import --json "$T/kt_line.jsonl" "$T/kt_mid.jsonl"
	[ "$status" -eq 0 ]
	[ "$stderr" = "ktraj: import: $T/kt_line.jsonl:2: $W 0: line skipped
ktraj: import: $T/kt_mid.jsonl:3: $W $off: line skipped" ]
	# the other lines are imported
	[ "$(grep -c '"added":2' <<<"$output")" -eq 2 ]
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/strict.ktraj"
	run --separate-stderr "$KTRAJ" import --strict "$T/kt_mid.jsonl"
	[ "$status" -eq 1 ]
	[ "${stderr%%$'\n'*}" = "ktraj: import: $T/kt_mid.jsonl:3: $W $off" ]
}
