#!/usr/bin/env bats
# Long scans decompress blocks ahead on helper threads (store.h
# kt_store_set_scan_threads; $KTRAJ_SCAN_THREADS): what export, log and
# verify print is the same with none and with three, and a bad value is a
# usage error.

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	# 6,000 events of four kinds, ~300 bytes of text each: several blocks
	# per kind and a dictionary
	awk 'BEGIN {
		split("message tool_call tool_result note", k, " ");
		for (i = 1; i <= 6000; i++) {
			t = "";
			for (j = 0; j < 20 + i % 17; j++)
				t = t sprintf("w%d ", (i * 7919 + j * 104729) % 100003);
			kind = k[1 + int(i * 31 / 7) % 4];
			if (kind == "message")
				p = "{\"role\":\"assistant\",\"human\":false,\"text\":\"" t "\"}";
			else if (kind == "tool_call")
				p = "{\"tool\":\"Bash\",\"call_id\":\"c" i "\",\"args\":{\"command\":\"" t "\"}}";
			else if (kind == "tool_result")
				p = "{\"call_id\":\"c" i "\",\"ok\":true,\"output\":\"" t "\"}";
			else
				p = "{\"text\":\"" t "\"}";
			printf "{\"seq\":%d,\"kind\":\"%s\",\"actor\":\"agent\",\"ts\":%d,\"payload\":%s}\n", i, kind, 1700000000000000000 + i, p;
		}
	}' >"$BATS_TEST_TMPDIR/run.jsonl"
	"$KTRAJ" import "$BATS_TEST_TMPDIR/run.jsonl" >/dev/null
	RUN=$("$KTRAJ" ls --json | sed -n 's/.*"run":"\([0-9a-f]*\)".*/\1/p')
}

@test "export, log --json and verify print the same with 0 and 3 helper threads" {
	[ -n "$RUN" ]
	KTRAJ_SCAN_THREADS=0 "$KTRAJ" export "$RUN" --format jsonl >"$BATS_TEST_TMPDIR/e0"
	KTRAJ_SCAN_THREADS=3 "$KTRAJ" export "$RUN" --format jsonl >"$BATS_TEST_TMPDIR/e3"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/e0")" -ge 6000 ]
	cmp "$BATS_TEST_TMPDIR/e0" "$BATS_TEST_TMPDIR/e3"
	KTRAJ_SCAN_THREADS=0 "$KTRAJ" log "$RUN" --json >"$BATS_TEST_TMPDIR/l0"
	KTRAJ_SCAN_THREADS=3 "$KTRAJ" log "$RUN" --json >"$BATS_TEST_TMPDIR/l3"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/l0")" -eq 6000 ]
	cmp "$BATS_TEST_TMPDIR/l0" "$BATS_TEST_TMPDIR/l3"
	KTRAJ_SCAN_THREADS=3 run "$KTRAJ" verify
	[ "$status" -eq 0 ]
}

@test "a bad KTRAJ_SCAN_THREADS is a usage error naming the variable" {
	for v in 4 -1 x 1x " 1" +1 -0 "1 " 01; do
		KTRAJ_SCAN_THREADS=$v run "$KTRAJ" ls
		[ "$status" -eq 2 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "ktraj: ls: KTRAJ_SCAN_THREADS must be 0 to 3, not '$v'" ]]
	done
	KTRAJ_SCAN_THREADS= run "$KTRAJ" ls
	[ "$status" -eq 0 ]
}
