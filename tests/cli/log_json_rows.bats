#!/usr/bin/env bats
# `log --json` writes its rows from the stored payload bytes (cli/cmd_log.c
# json_row); these rows are what the cJSON printer gave for the same events
# (escapes, -0, numbers past int and past 2^53, 1e-07, null timestamps, a
# duplicate key, a nested member the row does not show, bench series keys,
# ref_time_ms, a graded result's graded/reward/flags),
# and the jsonl export of the run appends back to the same hashes.

setup() {
	KTRAJ=${KTRAJ:-$BATS_TEST_DIRNAME/../../build/ktraj}
	export KTRAJ_STORE=$BATS_TEST_TMPDIR/s.kt
	cat >"$BATS_TEST_TMPDIR/in.jsonl" <<'IN'
{"kind":"message","actor":"human","ts":1700000000000000000,"payload":{"role":"user","human":true,"text":"tab\there \"q\" \\ slash\/ \u00e9 \u0001 end"}}
{"kind":"compile","parent":1,"ts":null,"payload":{"exit_code":-0.0,"command":"nvcc \"a b\""}}
{"kind":"bench","ts":null,"payload":{"time_ms":0.1,"speedup":12345678901234567,"correct":true,"status":"ok","ref_time_ms":null,"workload":"w\nx","scenario":"s","metric":"ms","source_hash":null}}
{"kind":"tool_result","actor":"tool\u0007x","ts":null,"payload":{"call_id":"c1","ok":false,"exit_code":2147483648,"call_id":"dup"}}
{"kind":"bench","parent":3,"ts":null,"payload":{"time_ms":1e-7,"status":"ok","workload":"w\nx","scenario":"t","baseline":"ref","extra":{"deep":[1,{"a":null}]}}}
{"kind":"replay","ts":null,"payload":{"step":3,"verdict":"reproduced"}}
{"kind":"bench","ts":null,"payload":{"time_ms":2,"ref_time_ms":3.5,"correct":false,"workload":"w\nx","scenario":"s","metric":"ms"}}
{"kind":"bench","actor":"system","ts":null,"payload":{"speedup":0.78,"ref_time_ms":0.25,"correct":true,"graded":true,"flags":["suspicious"],"extra":{"reward":0,"step":"n1"},"metric":"speedup_vs_compile","source":"reward.json"}}
{"kind":"bench","ts":null,"payload":{"time_ms":1,"graded":false,"extra":{"step":"n2"},"metric":"ms"}}
IN
	"$KTRAJ" append r1 <"$BATS_TEST_TMPDIR/in.jsonl"
}

@test "log --json rows are the bytes cJSON printed for them" {
	run "$KTRAJ" log --json r1
	[ "$status" -eq 0 ]
	cat >"$BATS_TEST_TMPDIR/want" <<'WANT'
{"seq":1,"kind":"message","actor":"human","ts":1700000000000000000,"parent":null,"role":"user","human":true,"text":"tab\there \"q\" \\ slash/ é \u0001 end"}
{"seq":2,"kind":"compile","actor":"agent","ts":null,"parent":1,"exit_code":-0,"command":"nvcc \"a b\""}
{"seq":3,"kind":"bench","actor":"agent","ts":null,"parent":null,"correct":true,"time_ms":0.1,"speedup":12345678901234568,"status":"ok","ref_time_ms":null,"workload":"w\nx","scenario":"s","metric":"ms","baseline":null,"source":null,"candidate":null,"source_hash":null,"series":"w\nx | s | ms","sweep":null}
{"seq":4,"kind":"tool_result","actor":"tool\u0007x","ts":null,"parent":null,"call_id":"c1","ok":false,"exit_code":2147483648}
{"seq":5,"kind":"bench","actor":"agent","ts":null,"parent":3,"time_ms":1e-07,"status":"ok","correct":null,"ref_time_ms":null,"workload":"w\nx","scenario":"t","metric":null,"baseline":"ref","source":null,"candidate":null,"source_hash":null,"series":"w\nx | t | ref","sweep":null}
{"seq":6,"kind":"replay","actor":"agent","ts":null,"parent":null,"step":3,"verdict":"reproduced"}
{"seq":7,"kind":"bench","actor":"agent","ts":null,"parent":null,"correct":false,"time_ms":2,"ref_time_ms":3.5,"workload":"w\nx","scenario":"s","metric":"ms","baseline":null,"source":null,"candidate":null,"source_hash":null,"series":"w\nx | s | ms","sweep":null}
{"seq":8,"kind":"bench","actor":"system","ts":null,"parent":null,"correct":true,"speedup":0.78,"ref_time_ms":0.25,"workload":null,"scenario":null,"metric":"speedup_vs_compile","baseline":null,"source":"reward.json","candidate":null,"source_hash":null,"graded":true,"reward":0,"flags":["suspicious"],"series":"speedup_vs_compile","sweep":null}
{"seq":9,"kind":"bench","actor":"agent","ts":null,"parent":null,"time_ms":1,"correct":null,"ref_time_ms":null,"workload":null,"scenario":null,"metric":"ms","baseline":null,"source":null,"candidate":null,"source_hash":null,"graded":false,"series":"ms","sweep":null}
WANT
	diff "$BATS_TEST_TMPDIR/want" <(printf '%s\n' "$output")
}

@test "export --format jsonl of the run appends to the same hashes elsewhere" {
	run "$KTRAJ" export --format jsonl r1
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/x.jsonl"
	KTRAJ_STORE=$BATS_TEST_TMPDIR/t.kt run "$KTRAJ" append r2 <"$BATS_TEST_TMPDIR/x.jsonl"
	[ "$status" -eq 0 ]
	KTRAJ_STORE=$BATS_TEST_TMPDIR/t.kt run "$KTRAJ" export --format jsonl r2
	[ "$status" -eq 0 ]
	diff <(grep '"seq"' "$BATS_TEST_TMPDIR/x.jsonl" | sed 's/"run":"[0-9a-f]*"//') \
	     <(printf '%s\n' "$output" | grep '"seq"' | sed 's/"run":"[0-9a-f]*"//')
}

# The same numbers in an ungraded bench row (json_row copies a number's
# stored bytes when they are what cJSON prints) and in a graded one (that
# row is log_json's, printed from a cJSON tree): the texts agree.
@test "log --json numbers copied from the payload are cJSON's text for them" {
	local n
	: >"$BATS_TEST_TMPDIR/nums.jsonl"
	for n in 7 0.1 0.3 1.5 2.675 100.25 0.0001 0.00001 0.000123 \
		 123456789012345 1234567890123456 99.99999999999999 1e21 \
		 12.500 0.1234567890123456 4.94e-320 10.0 3E2 0.5e1; do
		printf '{"kind":"bench","ts":null,"payload":{"time_ms":%s,"speedup":%s,"ref_time_ms":%s,"metric":"m"}}\n' "$n" "$n" "$n"
		printf '{"kind":"bench","ts":null,"payload":{"time_ms":%s,"speedup":%s,"ref_time_ms":%s,"metric":"m","graded":true}}\n' "$n" "$n" "$n"
	done >>"$BATS_TEST_TMPDIR/nums.jsonl"
	"$KTRAJ" append r3 <"$BATS_TEST_TMPDIR/nums.jsonl"
	run "$KTRAJ" log --json r3
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 38 ]
	# drop the graded member; each pair of rows is then the same bytes
	# apart from seq
	printf '%s\n' "$output" | sed 's/"seq":[0-9]*,//; s/,"graded":true//' |
		awk 'NR % 2 { a = $0; next } $0 != a { print "differ: " a " / " $0; bad = 1 } END { exit bad }'
	[[ "$output" == *'"time_ms":1e-05,'* ]]
	[[ "$output" == *'"time_ms":1e+21,'* ]]
}

# Rows are written in pieces of many rows; a row printed through cJSON
# (a graded bench) between them keeps its place.
@test "log --json keeps the order of rows across its output pieces" {
	local i
	for ((i = 1; i <= 3000; i++)); do
		if ((i % 1000 == 0)); then
			printf '{"kind":"bench","ts":null,"payload":{"time_ms":%d,"graded":true}}\n' "$i"
		else
			printf '{"kind":"message","ts":null,"payload":{"role":"assistant","text":"row %d %s"}}\n' "$i" "padding padding padding padding padding padding"
		fi
	done >"$BATS_TEST_TMPDIR/many.jsonl"
	"$KTRAJ" append r4 <"$BATS_TEST_TMPDIR/many.jsonl"
	"$KTRAJ" log --json r4 >"$BATS_TEST_TMPDIR/out"
	[ "$(wc -c <"$BATS_TEST_TMPDIR/out")" -gt 200000 ]
	diff <(seq 1 3000) <(sed 's/^{"seq":\([0-9]*\),.*/\1/' "$BATS_TEST_TMPDIR/out")
	[ "$(sed -n 2000p "$BATS_TEST_TMPDIR/out" | grep -c '"graded":true')" -eq 1 ]
}
