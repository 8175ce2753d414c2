#!/usr/bin/env bats
# What README.md and FORMAT.md say matches what ktraj does.

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
}

@test "the export run line has the form README and FORMAT.md give, and append/import take it" {
	grep -qF '{"run":{"id":"<id>","name":...,"format":...,"meta":{...}}}' "$ROOT/README.md"
	grep -qF '{"run":{"id":"<id>","name":"<name>"?,"format":"<format>"?,"meta":{...}?}}' "$ROOT/FORMAT.md"
	echo '{"kind":"note","payload":{"text":"x"}}' | "$KTRAJ" append r1
	"$KTRAJ" export r1 --format jsonl > "$BATS_TEST_TMPDIR/e.jsonl"
	head -1 "$BATS_TEST_TMPDIR/e.jsonl" | python3 -c 'import json,sys; r=json.load(sys.stdin)["run"]; assert isinstance(r, dict) and len(r["id"]) == 32 and r["name"] == "r1"'
	KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" "$KTRAJ" import "$BATS_TEST_TMPDIR/e.jsonl"
	[ "$(KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" "$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["name"])')" = r1 ]
}

@test "store path precedence as FORMAT.md §5 says: --store, then KTRAJ_STORE, then ./.ktraj" {
	grep -qF '(`--store PATH` when given, else' "$ROOT/FORMAT.md"
	cd "$BATS_TEST_TMPDIR"
	echo '{"kind":"note","payload":{"text":"x"}}' | KTRAJ_STORE=env.ktraj "$KTRAJ" --store opt.ktraj append a
	[ -f opt.ktraj ] && [ ! -e env.ktraj ] && [ ! -e .ktraj ] || false
	echo '{"kind":"note","payload":{"text":"x"}}' | KTRAJ_STORE=env.ktraj "$KTRAJ" append b
	[ -f env.ktraj ] && [ ! -e .ktraj ] || false
	echo '{"kind":"note","payload":{"text":"x"}}' | env -u KTRAJ_STORE "$KTRAJ" append c
	[ -f .ktraj ]
}

@test "README's format table has a row for every format import --help lists" {
	fmts=$("$KTRAJ" import --help | sed -n '/^formats:/,$p' | sed -n 's/^  \([a-z0-9_]*\) .*/\1/p')
	[ "$(printf '%s\n' $fmts | wc -l)" -gt 20 ]
	for f in $fmts; do
		grep -q "^| \`$f\` | " "$BATS_TEST_DIRNAME/../../README.md" || { echo "no row for $f"; false; }
	done
}

@test "README's command table has a row for every command of cli/commands.h" {
	cmds=$(sed -n 's/^X(\([a-z0-9_-]*\),.*/\1/p' "$ROOT/cli/commands.h")
	[ "$(printf '%s\n' $cmds | wc -l)" -gt 15 ]
	table=$(sed -n '/^| command | what it does |$/,/^$/p' "$ROOT/README.md")
	[ -n "$table" ]
	for c in $cmds; do
		# a row names it as `ktraj CMD ...` (or `ktraj CMD`)
		printf '%s\n' "$table" | grep -q "^| .*\`ktraj $c[\` ]" ||
			{ echo "no row for $c"; false; }
	done
}

@test "ktraj --help lists every exit code of README's table, and hook's summary every agent README's hook row names" {
	codes=$(sed -n '/^### Exit codes/,/^## /p' "$ROOT/README.md" | sed -n 's/^| \([0-9][0-9]*\) |.*/\1/p')
	[ "$(printf '%s\n' $codes | wc -l)" -ge 6 ]
	help=$("$KTRAJ" --help)
	for n in $codes; do
		[[ "$help" == *"exit codes:"*" $n "* ]] || { echo "no exit code $n"; false; }
	done
	hookline=$(printf '%s\n' "$help" | grep '^  hook ')
	for a in "Claude Code" "Gemini CLI" "Codex"; do
		grep -qF "record Claude Code, Gemini CLI and Codex sessions" "$ROOT/README.md"
		[[ "$hookline" == *"$a"* ]] || { echo "hook: no $a"; false; }
	done
}

@test "README's log row names every member of a log --json bench row" {
	row=$(grep '^| `ktraj log RUN' "$ROOT/README.md")
	[ -n "$row" ]
	echo '{"kind":"bench","actor":"system","payload":{"speedup":0.78,"ref_time_ms":0.25,"correct":true,"graded":true,"flags":["suspicious"],"extra":{"reward":0},"status":"ok","time_ms":1}}' | "$KTRAJ" append r1
	keys=$("$KTRAJ" log --json --kind bench r1 | python3 -c 'import json,sys; print(" ".join(json.loads(sys.stdin.readline())))')
	for k in ref_time_ms graded reward flags series sweep; do
		case " $keys " in *" $k "*) ;; *) echo "log --json lacks $k"; false;; esac
	done
	for k in $keys; do
		case $k in seq|kind|actor|ts|parent) continue;; esac
		printf '%s\n' "$row" | grep -q "[ (]$k[,; )]" || { echo "README's log row lacks $k"; false; }
	done
}

@test "README's sample run test line and the custom journal's counts are what blame prints" {
	"$KTRAJ" import "$ROOT/tests/data/sample/softmax_session.jsonl" >/dev/null
	run "$KTRAJ" blame speedup 3db88dd1
	[ "$status" -eq 0 ]
	line=$(grep '^run test: ' <<<"$output")
	# README quotes the line's start and its p
	grep -qF 'Blame'"'"'s last line on the sample, `run test: S = 0.744 over 2 improvements' "$ROOT/README.md"
	[[ "$line" == "run test: S = 0.744 over 2 improvements and 1 question message "*", p = 0.6030 ("*"circular shift "*"2000 permutations"* ]]
	grep -qF 'and 1 question message ... p = 0.6030 (...)`' "$ROOT/README.md"
	J="${CORPUS:-}/gpu_kernel/custom_journal/tree_harness_agent_gemm_journal.jsonl"
	[ -f "$J" ] || skip "corpus absent"
	"$KTRAJ" import --map "$ROOT/tests/data/import/map/tree_journal.map.json" "$J" >/dev/null
	grep -qF '14, 4 improvements of x1.002-x1.040 on the best so far, all under blame'"'"'s' "$ROOT/README.md"
	grep -qF 'x1.122 threshold, so `0 new bests`, no jump, one stall)' "$ROOT/README.md"
	run "$KTRAJ" blame speedup agent_gemm
	[[ "$output" == *"measurements: 9 from 14 bench results"* ]]
	[[ "$output" == *"> x1.122 = "*"; 0 new bests, "*"; 0 jumps"* ]]
	[[ "$output" == *"run test: S = 0.000 over 4 improvements"* ]]
	run "$KTRAJ" stalls agent_gemm
	[ "$(grep -c '^STALL ' <<<"$output")" -eq 1 ]
}

@test "README's exit 3 row: the commands it says check the hash chain exit 3 on a broken chain, those it says do not exit 0" {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/c.ktraj"
	"$KTRAJ" import "$ROOT/tests/data/sample/softmax_session.jsonl" >/dev/null
	R=3db88dd1ab522b4e190e8ab88aad55fa
	# break the chain only: one bit of the run head (the last event's
	# chain value, stored once), which no block or record check covers
	chain=$("$KTRAJ" export "$R" | tail -1 | python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["chain"])')
	python3 - "$KTRAJ_STORE" "$chain" <<-'PY'
	import sys
	p, c = sys.argv[1], bytes.fromhex(sys.argv[2])
	d = bytearray(open(p, "rb").read())
	assert d.count(c) == 1
	d[d.find(c)] ^= 0x10
	open(p, "wb").write(d)
	PY
	run "$KTRAJ" verify
	[ "$status" -eq 3 ]
	[[ "$output" == *"chain does not match"* ]]
	row=$(grep '^| 3 | ' "$ROOT/README.md")
	checks=${row#*found by the commands that check them: }
	checks=${checks%% on the run they analyze*}
	skips=${row#*the other readers, }
	skips=${skips%% among them*}
	[ "$checks" != "$row" ] && [ "$skips" != "$row" ]
	argv() { # the command line of a command README names
		case "$1" in
		verify) echo verify ;;
		export) echo "export $R" ;;
		blame) echo "blame speedup $R" ;;
		stalls) echo "stalls $R" ;;
		report) echo "report $R -o $BATS_TEST_TMPDIR/r.html" ;;
		"questions suggest") echo "questions suggest $R" ;;
		log) echo "log $R" ;;
		show) echo "show $R 1" ;;
		search) echo "search softmax" ;;
		*) echo "unknown $1" ;;
		esac
	}
	n=0
	while read -r c; do
		run "$KTRAJ" $(argv "$c")
		echo "checks: $c: $status"
		[ "$status" -eq 3 ]
		n=$((n + 1))
	done < <(printf '%s\n' "$checks" | grep -o '`[^`]*`' | tr -d '`' | grep -v '^--')
	[ "$n" -eq 6 ]
	n=0
	while read -r c; do
		run "$KTRAJ" $(argv "$c")
		echo "skips: $c: $status"
		[ "$status" -eq 0 ]
		n=$((n + 1))
	done < <(printf '%s\n' "$skips" | grep -o '`[^`]*`' | tr -d '`')
	[ "$n" -eq 3 ]
}

@test "ktraj --help's exit 3 names every command README's exit 3 row says finds a bad hash or chain" {
	row=$(sed -n '/^### Exit codes/,/^## /p' "$ROOT/README.md" | grep '^| 3 |')
	[ -n "$row" ]
	# the commands that check hashes, named before "(the other readers"
	checkers=$(printf '%s\n' "${row%%(the other readers*}" | grep -o '`[a-z][a-z ]*`' | tr -d '`' | sort -u)
	cmds=$(sed -n 's/^X(\([a-z0-9_-]*\),.*/\1/p' "$ROOT/cli/commands.h")
	n=0
	help=$("$KTRAJ" --help | sed -n '/^exit codes:/,/^`/p' | tr '\n' ' ')
	while read -r w; do
		[ -n "$w" ] || continue
		case " $(echo $cmds) " in *" ${w%% *} "*) ;; *) continue;; esac
		n=$((n + 1))
		[[ "$help" == *" $w"[\ ,]* ]] || { echo "--help's exit codes lack $w"; false; }
	done <<<"$checkers"
	[ "$n" -ge 5 ]
	[[ "$help" == *"3 corruption"*"any command"* ]]
}

@test "README's store location names the commands that create a store, as cli/commands.h marks them" {
	readme=$(sed -n '/^## Store location/,/^Reads keep/p' "$ROOT/README.md" | tr '\n' ' ')
	creates=$(sed -n 's/^X(\([a-z0-9_-]*\),.*KT_CMD_CREATES.*/\1/p' "$ROOT/cli/commands.h")
	[ "$(printf '%s\n' $creates | wc -l)" -ge 5 ]
	for c in $creates; do
		[[ "$readme" == *"\`$c"[\`\ ]* ]] || { echo "README lacks $c"; false; }
		"$KTRAJ" --help | tr '\n' ' ' | grep -q "created by [a-z ,-]*$c" || { echo "--help lacks $c"; false; }
	done
	for c in hide unhide; do
		case " $(echo $creates) " in *" $c "*) echo "$c creates"; false;; esac
	done
}

@test "one bats file runs as README says, KTRAJ unset: it defaults to this checkout's build/ktraj" {
	[ -x "$ROOT/build/ktraj" ] || skip "build/ktraj not built"
	grep -qF 'bats tests/cli/hide.bats' "$ROOT/README.md"
	cd "$ROOT"
	run env -u KTRAJ bats -f 'unhide shows the run again' tests/cli/hide.bats
	[ "$status" -eq 0 ]
	[[ "$output" == *"ok 1 unhide shows the run again"* ]]
}
