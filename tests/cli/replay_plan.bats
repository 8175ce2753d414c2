#!/usr/bin/env bats
# Replay past one machine (issue 19): --plan DIR writes bundles, plan.json
# and job scripts; each task runs in the sandbox through `replay --task`;
# --collect records every result once and reports what is missing;
# --shard I/N shares are disjoint and complete.  The Slurm cluster test is
# tests/cli/replay_slurm.bats.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	FIX="$BATS_TEST_DIRNAME/../data"
	"$KTRAJ" import "$FIX/replay/cc_bench_session.jsonl" >/dev/null
	R=645f1b7e727f89057b7c07023044f3e3
}

need_bwrap() {
	command -v bwrap >/dev/null || skip "bubblewrap not installed"
	bwrap --unshare-all --die-with-parent --ro-bind / / true 2>/dev/null || skip "no user namespaces here"
}

@test "plan: a bundle per chosen step, plan.json, Slurm array scripts and local.sh with absolute paths" {
	run "$KTRAJ" replay --plan "$BATS_TEST_TMPDIR/p" "$R" --all-compile --steps 10 --array-max 4
	[ "$status" -eq 0 ]
	# the compile step runs on CPUs; a bench step is a GPU task (what
	# the step runs decides, not this machine)
	[ "$output" = "planned 2 steps in $BATS_TEST_TMPDIR/p: \`sbatch $BATS_TEST_TMPDIR/p/slurm.sbatch\` (CPU steps); \`sbatch $BATS_TEST_TMPDIR/p/slurm-gpu.sbatch\` (GPU steps); or \`$BATS_TEST_TMPDIR/p/local.sh\` here; then \`ktraj replay --collect $BATS_TEST_TMPDIR/p\`" ]
	P="$BATS_TEST_TMPDIR/p"
	[ -f "$P/bundles/000000.tar.gz" ] && [ -f "$P/bundles/000001.tar.gz" ] || false
	tar -tzf "$P/bundles/000001.tar.gz" | grep -qx 'ktraj-bundle/run.sh'
	python3 - "$P/plan.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
t = p["tasks"]
assert [(x["task"], x["step"], x["kind"], x["gpu"]) for x in t] == [(0, 7, "compile", False), (1, 10, "bench", True)], t
assert t[1]["expected"] == {"correct": True, "time_ms": 2.5}
PY
	grep -qx '#SBATCH --array=0-0%4' "$P/slurm.sbatch"
	grep -qx '#SBATCH --array=0-0%4' "$P/slurm-gpu.sbatch"
	grep -qx "#SBATCH --output=\"$P/logs/%A_%a.out\"" "$P/slurm.sbatch"
	! grep -q gres "$P/slurm.sbatch" || false
	grep -qx '#SBATCH --gres=gpu:1' "$P/slurm-gpu.sbatch"
	# the job holds the step's cgroup limit (--mem 16G + --max-output
	# 8G), the bundle in memory (4G) and 256M for ktraj: a job's own
	# memory limit never stops a step before its own limit does
	grep -qx '#SBATCH --mem=28928M' "$P/slurm.sbatch"
	grep -qx '#SBATCH --mem=28928M' "$P/slurm-gpu.sbatch"
	[ "$(cat "$P/tasks-cpu.txt")" = 0 ]
	[ "$(cat "$P/tasks-gpu.txt")" = 1 ]
	grep -q "replay --task \"\$PLAN\"" "$P/local.sh"
	grep -qx "PLAN='$P'" "$P/local.sh"
	sh -n "$P/slurm.sbatch" && sh -n "$P/slurm-gpu.sbatch" && sh -n "$P/local.sh" || false
	# a folder that exists is not planned into: somebody else's links or
	# files could be in it (a link planted where a script goes is left
	# alone, its target untouched)
	run "$KTRAJ" replay --plan "$P" "$R" --all-compile
	[ "$status" -ne 0 ]
	[[ "$output" == *"$P exists: a plan goes into a new folder"* ]]
	mkdir -m 777 "$BATS_TEST_TMPDIR/q"
	echo keep >"$BATS_TEST_TMPDIR/target"
	ln -s "$BATS_TEST_TMPDIR/target" "$BATS_TEST_TMPDIR/q/local.sh.tmp"
	run "$KTRAJ" replay --plan "$BATS_TEST_TMPDIR/q" "$R" --all-compile
	[ "$status" -ne 0 ]
	[ "$(cat "$BATS_TEST_TMPDIR/target")" = keep ]
	[ ! -e "$BATS_TEST_TMPDIR/q/plan.json" ]
}

@test "plan: the Slurm log path survives sbatch's own directive rules (space, quotes, %, #); a folder it cannot spell is refused" {
	P="$BATS_TEST_TMPDIR/pl an 'q\"x 50%A #1"
	run "$KTRAJ" replay --plan "$P" "$R" --all-compile
	[ "$status" -eq 0 ]
	# the hint's commands paste into a shell: each path one quoted word
	sb=$(printf '%s\n' "$output" | sed -n 's/.*`sbatch \([^`]*\)` (CPU steps).*/\1/p')
	ls=$(printf '%s\n' "$output" | sed -n 's/.* or `\([^`]*\)` here.*/\1/p')
	co=$(printf '%s\n' "$output" | sed -n 's/.*`ktraj replay --collect \([^`]*\)`$/\1/p')
	[ "$(sh -c "printf '%s|' $sb $ls $co")" = "$P/slurm.sbatch|$P/local.sh|$P|" ]
	# read the --output directive as sbatch does (src/sbatch/opt.c: an
	# argument ends at unquoted white space, quotes are removed, a
	# backslash escapes, an unquoted # starts a comment; then %% is %)
	python3 - "$P/slurm.sbatch" "$P" <<'PY'
import sys
line = [l for l in open(sys.argv[1]) if l.startswith("#SBATCH --output=")][0]
s, out, q, esc = line[len("#SBATCH "):].rstrip("\n"), "", "", False
for c in s:
    if esc: out += c; esc = False
    elif c == "\\": esc = True
    elif q:
        if c == q: q = ""
        else: out += c
    elif c in "\"'": q = c
    elif c.isspace() or c == "#": break
    else: out += c
assert not q, line
arg = out[len("--output="):]
# the pattern's own symbols stay; every other % is doubled
assert arg.endswith("/logs/%A_%a.out"), arg
assert arg[:-len("/logs/%A_%a.out")].replace("%%", "%") == sys.argv[2], arg
PY
	sh -n "$P/slurm.sbatch"
	# a line break ends a directive and a backslash stops Slurm's %A
	# expansion: refused in one line, no folder left behind
	for d in "$BATS_TEST_TMPDIR/nl
x" "$BATS_TEST_TMPDIR/bs\\x"; do
		run "$KTRAJ" replay --plan "$d" "$R" --all-compile
		[ "$status" -eq 1 ]
		[ "$output" = "ktraj: replay: the plan folder's path has a line break or a backslash, which a Slurm script cannot name" ]
		[ ! -e "$d" ]
	done
}

@test "plan: a chosen step with nothing to replay is left out and said, as --all-bench does; the others are planned, numbered without gaps" {
	# a bench result recorded with no command (as harness logs import)
	"$KTRAJ" append nocmd <<<'{"kind":"bench","payload":{"time_ms":3.5,"correct":true}}' >/dev/null
	P="$BATS_TEST_TMPDIR/p"
	run "$KTRAJ" replay --plan "$P" nocmd "$R" --all-bench
	[ "$status" -eq 1 ]
	[[ "$output" == *"ktraj: replay: run "*": step 1 has no recorded shell command to re-run: not planned"* ]]
	[[ "$output" == *"planned 1 steps in $P:"* ]]
	python3 - "$P/plan.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
assert [(t["task"], t["step"], t["bundle"]) for t in p["tasks"]] == [(0, 10, "bundles/000000.tar.gz")], p
assert [(x["step"], x["reason"]) for x in p["skipped"]] == [(1, "step 1 has no recorded shell command to re-run")], p
PY
	[ "$(cat "$P/tasks-gpu.txt")" = 0 ]
	# nothing left to plan: refused, no folder
	run "$KTRAJ" replay --plan "$BATS_TEST_TMPDIR/q" nocmd --all-bench
	[ "$status" -eq 1 ]
	[[ "$output" == *"ktraj: replay: none of the 1 chosen steps has anything to replay" ]]
	[ ! -e "$BATS_TEST_TMPDIR/q" ]
}

@test "plan: the limits given to --plan are every task's (in each script's replay --task line)" {
	P="$BATS_TEST_TMPDIR/p"
	run "$KTRAJ" replay --plan "$P" "$R" --steps 7 --timeout 5 --mem 268435456 --max-procs 10 --allow-network
	[ "$status" -eq 0 ]
	grep -qF "replay --task \"\$PLAN\" \"\$TASK\" --timeout '5' --mem '268435456' --max-procs '10' --allow-network" "$P/slurm.sbatch"
	grep -qF -- "--timeout '5' --mem '268435456' --max-procs '10' --allow-network" "$P/local.sh"
}

@test "plan: --mem, --max-output and --cache-max take sizes as --max-line does (K, M, G, T, KiB...); a bad one names its option" {
	P="$BATS_TEST_TMPDIR/p"
	run "$KTRAJ" replay --plan "$P" "$R" --steps 7 --mem 256M --max-output 64MiB --cache-max 1G
	[ "$status" -eq 0 ]
	grep -qF -- "--mem '256M' --max-output '64MiB' --cache-max '1G'" "$P/local.sh"
	# 256M + 64M for the step, 32M of bundle, 256M for ktraj
	grep -qx '#SBATCH --mem=608M' "$P/slurm.sbatch"
	for opt in --mem --max-output --cache-max; do
		run "$KTRAJ" replay --plan "$BATS_TEST_TMPDIR/q" "$R" --steps 7 "$opt" 1.5G
		[ "$status" -eq 2 ]
		[[ "$output" == "ktraj: replay: $opt: bad size '1.5G': bytes, or with K, M, G or T (also KiB, MiB, GiB, TiB: powers of 1024), from "* ]]
	done
	run "$KTRAJ" replay "$R" 7 --max-output 2K
	[ "$status" -eq 2 ]
	[[ "$output" == *"--max-output: bad size '2K'"*"from 4K to 1024T"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/q" ]
}

@test "collect: a result about another run's step is rejected, not recorded there; result files are read, never followed" {
	P="$BATS_TEST_TMPDIR/p"
	"$KTRAJ" append victim <<<'{"kind":"tool_call","payload":{"tool":"Bash","call_id":"c1","args":{"command":"true"}}}' >/dev/null
	V=$("$KTRAJ" ls --json | python3 -c 'import json,sys; [print(r["run"]) for r in map(json.loads,sys.stdin) if r["name"]=="victim"]')
	"$KTRAJ" replay --plan "$P" "$R" --all-compile >/dev/null
	# what a hostile step can write as its result: a manifest naming the
	# victim's step, a kind with terminal escapes
	python3 - "$P/results/000000.json" "$V" <<'PY'
import json, sys
json.dump({"ktraj_replay": 1, "exit_code": 0, "duration_ms": 1, "finished": 1700000000,
           "manifest": {"run": sys.argv[2], "seq": 1, "kind": "tool_call\u001b]0;PWNED\u0007", "expect": {"exit_code": 7}},
           "gpu": "", "stdout": "", "stderr": ""}, open(sys.argv[1], "w"))
PY
	run "$KTRAJ" replay --collect "$P"
	[ "$status" -eq 1 ]
	[[ "$output" == *"task 0 (run 645f1b7e step 7): rejected - the result is not about this task's step"* ]]
	[[ "$output" != *$'\e'* ]]
	[ "$("$KTRAJ" log "$V" --kind replay | wc -l)" -eq 0 ]
	# a result or an .err that is a link to a secret is not read
	echo 'root:$6$SECRET' >"$BATS_TEST_TMPDIR/shadow"
	rm "$P/results/000000.json"
	ln -s "$BATS_TEST_TMPDIR/shadow" "$P/results/000000.err"
	run "$KTRAJ" replay --collect "$P" --json
	[ "$status" -eq 1 ]
	[[ "$output" != *SECRET* ]]
	[[ "$output" == *'"verdict":"missing","reason":"the task has not run (no result)"'* ]]
	# a result file that is there but no result (a link, a FIFO, not
	# JSON) is said to be so, not taken for a task that never ran
	for kind in link fifo junk; do
		rm -f "$P/results/000000.json" "$P/results/000000.err"
		case $kind in
		link) ln -s "$BATS_TEST_TMPDIR/shadow" "$P/results/000000.json" ;;
		fifo) mkfifo "$P/results/000000.json" ;;
		junk) echo 'not json' >"$P/results/000000.json" ;;
		esac
		run timeout 20 "$KTRAJ" replay --collect "$P" --json
		[ "$status" -eq 1 ]
		[[ "$output" != *SECRET* ]]
		[[ "$output" == *'"verdict":"rejected","reason":"results/000000.json is not a result (a link, not a regular file, over 8 MiB, or not JSON): not recorded"'* ]]
	done
}

@test "plan: usage errors say what is missing" {
	run "$KTRAJ" replay --plan "$BATS_TEST_TMPDIR/p" "$R"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--plan DIR needs RUN... and --all-bench, --all-compile or --steps SEL"* ]]
	run "$KTRAJ" replay --plan "$BATS_TEST_TMPDIR/p" "$R" --steps 3-
	[ "$status" -eq 2 ]
	run "$KTRAJ" replay --plan "$BATS_TEST_TMPDIR/p" "$R" --all-bench --shard 0/2
	[ "$status" -eq 2 ]
	run "$KTRAJ" replay "$R" --all-bench --shard 2/2
	[ "$status" -eq 2 ]
	[[ "$output" == *"--shard: bad value '2/2'"* ]]
	run "$KTRAJ" replay --plan "$BATS_TEST_TMPDIR/p" "$R" --steps 999
	[ "$status" -eq 1 ]
	[[ "$output" == *"no step of $R is selected"* ]]
	# a plan that fails part-way leaves no folder: the same command can
	# be given again (step 1 is a message, which has no bundle)
	run "$KTRAJ" replay --plan "$BATS_TEST_TMPDIR/p1" "$R" --steps 1
	[ "$status" -eq 1 ]
	[ ! -e "$BATS_TEST_TMPDIR/p1" ]
	run "$KTRAJ" replay --collect "$BATS_TEST_TMPDIR/none"
	[ "$status" -ne 0 ]
	[[ "$output" == *"none/plan.json: No such file or directory"* ]]
}

@test "plan: local.sh runs every task in the sandbox; --collect records each result once and reports a missing one" {
	need_bwrap
	P="$BATS_TEST_TMPDIR/p"
	"$KTRAJ" replay --plan "$P" "$R" --all-compile --steps 10 >/dev/null
	KTRAJ="$KTRAJ" JOBS=2 run "$P/local.sh"
	[ "$status" -eq 0 ]
	[ -f "$P/results/000000.json" ] && [ -f "$P/results/000001.json" ] || false
	run "$KTRAJ" replay --collect "$P"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "2 tasks: 2 reproduced, 0 faster, 0 slower, 0 diverged, 0 failed, 0 missing" ]
	[ "$("$KTRAJ" log "$R" --kind replay | wc -l)" -eq 2 ]
	run "$KTRAJ" replay --collect "$P" --json
	[ "$status" -eq 0 ]
	[ "$("$KTRAJ" log "$R" --kind replay | wc -l)" -eq 2 ]
	python3 -c '
import json, sys
r = [json.loads(l) for l in sys.argv[1].splitlines()]
assert [(x["task"], x["step"], x["verdict"]) for x in r] == [(0, 7, "reproduced"), (1, 10, "reproduced")], r
assert "inside the" in r[1]["reason"], r' "$output"
	# the step ran in the sandbox: the replay event says so
	"$KTRAJ" log "$R" --kind replay --json | grep -q '"step":10'
	# a task that has not run is missing: exit 1, named with its step
	rm "$P/results/000001.json"
	run "$KTRAJ" replay --collect "$P"
	[ "$status" -eq 1 ]
	[[ "$output" == *"task 1 (run 645f1b7e step 10): missing - the task has not run (no result)"* ]]
	# --task again writes it back; a task number the plan lacks is an error
	run "$KTRAJ" replay --task "$P" 1
	[ "$status" -eq 0 ]
	[ -f "$P/results/000001.json" ]
	run "$KTRAJ" replay --task "$P" 7
	[ "$status" -ne 0 ]
	[[ "$output" == *"no task 7 in the plan"* ]]
}

@test "plan: a plan.json that names files outside its folder is refused before anything runs" {
	P="$BATS_TEST_TMPDIR/p"
	"$KTRAJ" replay --plan "$P" "$R" --all-compile >/dev/null
	python3 - "$P/plan.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["tasks"][0]["bundle"] = "bundles/../../../etc/passwd"
json.dump(p, open(sys.argv[1], "w"))
PY
	run "$KTRAJ" replay --task "$P" 0
	[ "$status" -ne 0 ]
	[[ "$output" == *"plan.json: not a ktraj replay plan"* ]]
	run "$KTRAJ" replay --collect "$P"
	[ "$status" -ne 0 ]
	[[ "$output" == *"not a ktraj replay plan"* ]]
}

@test "shard: --shard I/N picks disjoint shares whose union is every chosen step" {
	need_bwrap
	for i in 0 1 2; do
		"$KTRAJ" replay "$R" --steps 1-10 --shard "$i/3" --json 2>/dev/null |
			python3 -c 'import json,sys; [print(json.loads(l)["step"]) for l in sys.stdin]' >"$BATS_TEST_TMPDIR/s$i" || true
	done
	cat "$BATS_TEST_TMPDIR"/s0 "$BATS_TEST_TMPDIR"/s1 "$BATS_TEST_TMPDIR"/s2 | sort -n >"$BATS_TEST_TMPDIR/all"
	# every step of 1-10 once (steps that are not replayable get a failed row)
	[ "$(cat "$BATS_TEST_TMPDIR/all" | tr '\n' ' ')" = "1 2 3 4 5 6 7 8 9 10 " ]
	[ "$(sort "$BATS_TEST_TMPDIR/all" | uniq -d | wc -l)" -eq 0 ]
	[ "$(cat "$BATS_TEST_TMPDIR/s0" | tr '\n' ' ')" = "1 4 7 10 " ]
}

@test "plan: a CUDA bench step is a GPU task whatever the planning machine has (plans are made on login nodes)" {
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl" >/dev/null
	S=$("$KTRAJ" ls --json | python3 -c 'import json,sys; [print(r["run"]) for r in map(json.loads,sys.stdin) if r["format"]=="claude_code" and r["run"]!="645f1b7e727f89057b7c07023044f3e3"]')
	P="$BATS_TEST_TMPDIR/g"
	run "$KTRAJ" replay --plan "$P" "$S" --all-bench
	[ "$status" -eq 0 ]
	[[ "$output" == *"\`sbatch $P/slurm-gpu.sbatch\` (GPU steps)"* ]]
	grep -qx '#SBATCH --gres=gpu:1' "$P/slurm-gpu.sbatch"
	python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["tasks"]; assert t and all(x["gpu"] for x in t), t' "$P/plan.json"
}

@test "plan: an edited bundle that expands past the step's workspace is refused before it is held or run" {
	P="$BATS_TEST_TMPDIR/p"
	"$KTRAJ" replay --plan "$P" "$R" --all-compile >/dev/null
	# 64 MiB of zeros in a ~64 KiB .tar.gz, beside the real manifest
	mkdir -p "$BATS_TEST_TMPDIR/x"
	tar -xzf "$P/bundles/000000.tar.gz" -C "$BATS_TEST_TMPDIR/x"
	head -c 67108864 /dev/zero >"$BATS_TEST_TMPDIR/x/ktraj-bundle/workspace/zeros"
	tar -czf "$P/bundles/000000.tar.gz" -C "$BATS_TEST_TMPDIR/x" ktraj-bundle
	[ "$(stat -c %s "$P/bundles/000000.tar.gz")" -lt 1048576 ]
	run "$KTRAJ" replay --task "$P" 0 --max-output 33554432
	[ "$status" -ne 0 ]
	[[ "$output" == *"bundle expands to more than 16777216 bytes, the step's workspace"* ]]
	[ ! -e "$P/results/000000.json" ]
	# within the default limits the same bundle is unpacked and run
	need_bwrap
	run "$KTRAJ" replay --task "$P" 0
	[ "$status" -eq 0 ]
}

@test "plan: a group of more tasks than --array-size is split into array jobs that submit.sh starts, each with its first task's offset" {
	"$KTRAJ" import "$FIX/replay/cc_bench_faster.jsonl" >/dev/null
	runs=($("$KTRAJ" ls --json | python3 -c 'import json,sys; print(" ".join(json.loads(l)["run"] for l in sys.stdin))'))
	[ "${#runs[@]}" -eq 2 ]
	P="$BATS_TEST_TMPDIR/big"
	run "$KTRAJ" replay --plan "$P" "${runs[@]}" --all-compile --array-size 1 --array-max 3
	[ "$status" -eq 0 ]
	[ "$output" = "planned 2 steps in $P: \`sh $P/submit.sh\` (every array job: more tasks than one array may hold); or \`$P/local.sh\` here; then \`ktraj replay --collect $P\`" ]
	[ "$(wc -l <"$P/tasks-cpu.txt")" -eq 2 ]
	grep -qx '#SBATCH --array=0-0%3' "$P/slurm.sbatch"
	[ "$(grep -c -- ' --export=ALL,KTRAJ_TASK_OFFSET=' "$P/submit.sh")" -eq 2 ]
	# %3 caps one array job: each waits for the one before it, so at
	# most 3 of the group's tasks run at once
	grep -qxF 'submit "$@" ${prev:+--dependency=afterany:$prev} --array=0-0%3 --export=ALL,KTRAJ_TASK_OFFSET=0 "$PLAN/slurm.sbatch"' "$P/submit.sh"
	grep -qxF 'submit "$@" ${prev:+--dependency=afterany:$prev} --array=0-0%3 --export=ALL,KTRAJ_TASK_OFFSET=1 "$PLAN/slurm.sbatch"' "$P/submit.sh"
	sh -n "$P/submit.sh"
	# run with a fake sbatch: the second array job depends on the first
	mkdir "$BATS_TEST_TMPDIR/bin"
	printf '#!/bin/sh\necho "$*" >>"%s/calls"\necho "$(wc -l <"%s/calls");clu"\n' \
		"$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR" >"$BATS_TEST_TMPDIR/bin/sbatch"
	chmod +x "$BATS_TEST_TMPDIR/bin/sbatch"
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" sh "$P/submit.sh" --wait
	[ "$(wc -l <"$BATS_TEST_TMPDIR/calls")" -eq 2 ]
	[[ "$(sed -n 1p "$BATS_TEST_TMPDIR/calls")" != *dependency* ]]
	[[ "$(sed -n 2p "$BATS_TEST_TMPDIR/calls")" == "--parsable --wait --dependency=afterany:1 --array=0-0%3 "* ]]
	# each array task finds its own task: the script's line for task id
	# 0 at offset 1 is the second line of tasks-cpu.txt
	line=$(grep '^TASK=' "$P/slurm.sbatch")
	got=$(SLURM_ARRAY_TASK_ID=0 KTRAJ_TASK_OFFSET=1 PLAN="$P" sh -c "$line; echo \$TASK")
	[ "$got" = "$(sed -n 2p "$P/tasks-cpu.txt")" ]
	got=$(SLURM_ARRAY_TASK_ID=0 PLAN="$P" sh -c "$line; echo \$TASK")
	[ "$got" = "$(sed -n 1p "$P/tasks-cpu.txt")" ]
	# within the size nothing changes: one array job, no submit.sh
	run "$KTRAJ" replay --plan "$BATS_TEST_TMPDIR/small" "${runs[@]}" --all-compile
	[ "$status" -eq 0 ]
	[ ! -e "$BATS_TEST_TMPDIR/small/submit.sh" ]
	grep -qx '#SBATCH --array=0-1' "$BATS_TEST_TMPDIR/small/slurm.sbatch"
	run "$KTRAJ" replay --plan "$BATS_TEST_TMPDIR/bad" "${runs[@]}" --all-compile --array-size 0
	[ "$status" -eq 2 ]
}

@test "plan: submit.sh that meets a failed sbatch cancels the array jobs it submitted before (scancel) and says so, exit 1" {
	# the sample's four nvcc compile steps are GPU tasks, more than one
	# array of 2 holds; the fixture's one compile step is a CPU task,
	# which submit.sh, the plan's one entry point, submits too
	"$KTRAJ" import "$FIX/sample/softmax_session.jsonl" >/dev/null
	P="$BATS_TEST_TMPDIR/big"
	"$KTRAJ" replay --plan "$P" "$R" 3db88dd1 --all-compile --array-size 2 >/dev/null
	[ "$(cat "$P/tasks-cpu.txt")" = 0 ]
	[ "$(grep -c '^submit "$@" --array=0-1 --export=ALL,KTRAJ_TASK_OFFSET=[02] "$PLAN/slurm-gpu.sbatch"$' "$P/submit.sh")" -eq 2 ]
	grep -qxF 'submit "$@" --array=0-0 --export=ALL,KTRAJ_TASK_OFFSET=0 "$PLAN/slurm.sbatch"' "$P/submit.sh"
	# sbatch takes the first two array jobs (ids 41, 42) and refuses
	# the third, as a controller at its job limit does
	B="$BATS_TEST_TMPDIR/bin"
	mkdir "$B"
	T="$BATS_TEST_TMPDIR"
	printf '#!/bin/sh\necho "$*" >>"%s/calls"\nn=$(wc -l <"%s/calls")\n[ "$n" -lt 3 ] || { echo "sbatch: error: QOSMaxSubmitJobPerUserLimit" >&2; exit 1; }\necho $((40 + n))\n' \
		"$T" "$T" >"$B/sbatch"
	printf '#!/bin/sh\necho "$*" >>"%s/cancelled"\n' "$T" >"$B/scancel"
	chmod +x "$B/sbatch" "$B/scancel"
	PATH="$B:$PATH" run --separate-stderr sh "$P/submit.sh"
	[ "$status" -eq 1 ]
	[ "$output" = "submitted array job 41
submitted array job 42" ]
	[[ "$stderr" == *"submit.sh: sbatch failed (status 1): cancelling the array jobs submitted before it: 41 42"* ]]
	[ "$(cat "$T/cancelled")" = "41 42" ]
	# under --wait sbatch's status is its job's: a job that failed is
	# said (its id came back), nothing is cancelled, the rest still go
	printf '#!/bin/sh\necho "$*" >>"%s/calls2"\nn=$(wc -l <"%s/calls2")\necho "$((50 + n));clu"\n[ "$n" -ne 1 ]\n' \
		"$T" "$T" >"$B/sbatch"
	rm "$T/cancelled"
	PATH="$B:$PATH" run --separate-stderr sh "$P/submit.sh" --wait
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 3 ]
	[ "$stderr" = "submit.sh: array job 51 ended with status 1" ]
	[ ! -e "$T/cancelled" ]
	[ "$(wc -l <"$T/calls2")" -eq 3 ]
}

@test "plan: a task whose step's cgroup recorded an OOM kill says 'killed: out of memory (limit N bytes...)' in its result, and --collect records it in the reason" {
	need_bwrap
	# three processes of 200 MiB each, every one under --mem 256M, all
	# of them over the step's cgroup limit of 256M + 128M
	python3 -c 'import json
cmd = "for i in 1 2 3; do python3 -c \"import time; b = b\\\"x\\\" * (200 << 20); time.sleep(1)\" & done; wait; echo done"
print(json.dumps({"seq":1,"kind":"tool_call","payload":{"tool":"Bash","call_id":"c1","args":{"command":cmd}}}))
print(json.dumps({"seq":2,"parent":1,"kind":"tool_result","actor":"tool","payload":{"call_id":"c1","ok":True,"output":"done"}}))' |
		"$KTRAJ" append oom >/dev/null
	P="$BATS_TEST_TMPDIR/p"
	"$KTRAJ" replay --plan "$P" oom --steps 1 --mem 256M >/dev/null
	run "$KTRAJ" replay --task "$P" 0 --mem 256M
	[ "$status" -eq 0 ]
	want="out of memory (limit 402653184 bytes, --mem + --max-output): the OOM killer stopped"
	if [ -f "$P/results/000000.err" ]; then
		# cgroup v2 (memory.oom.group): the whole step went
		[[ "$(cat "$P/results/000000.err")" == "killed: $want"* ]]
	elif ! grep -qF "\"killed\":	\"$want" "$P/results/000000.json"; then
		run "$KTRAJ" replay oom 1 --json --mem 256M
		[[ "$output" == *'"cgroup":false'* ]] || false
		skip "no cgroup can be made here"
	else
		# cgroup v1: the killer took some processes, the step wrote
		# its result; the verdict's reason names the kill
		run "$KTRAJ" replay --collect "$P" --json
		[[ "$output" == *"killed: $want"* ]]
		"$KTRAJ" show oom 3 --json | grep -q "killed: out of memory"
	fi
}

# Repacks the plan's bundle 0 from folder $1 as Python's tarfile does
# (pax: a UTF-8 path record for any non-ASCII name), with member $2 of one
# line added when given.
repack_pax() {
	python3 - "$P/bundles/000000.tar.gz" "$1" "${2:-}" <<'PY'
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w:gz", format=tarfile.PAX_FORMAT) as t:
    t.add(sys.argv[2], arcname="ktraj-bundle")
    if sys.argv[3]:
        i = tarfile.TarInfo(sys.argv[3])
        i.size = 2
        t.addfile(i, io.BytesIO(b"x\n"))
PY
}

@test "task: a bundle member with a non-ASCII name (a pax UTF-8 path record) is unpacked under its name, as import reads archives; one whose name escapes is still refused" {
	need_bwrap
	P="$BATS_TEST_TMPDIR/p"
	X="$BATS_TEST_TMPDIR/x"
	"$KTRAJ" replay --plan "$P" "$R" --all-compile >/dev/null
	mkdir -p "$X"
	tar -xzf "$P/bundles/000000.tar.gz" -C "$X"
	printf 'int k;\n' >"$X/ktraj-bundle/workspace/ядро.cu"
	# the step shows the member reached the workspace with its name
	printf 'cat ядро.cu && cc -O2 -o bench bench.c' >"$X/ktraj-bundle/command.sh"
	repack_pax "$X/ktraj-bundle"
	run "$KTRAJ" replay --task "$P" 0
	[ "$status" -eq 0 ]
	grep -qF '"stdout":"int k;\n"' "$P/results/000000.json"
	rm -f "$P/results/000000.json"
	for bad in "ktraj-bundle/workspace/../../ядро.cu" "/tmp/ядро-$$.cu"; do
		repack_pax "$X/ktraj-bundle" "$bad"
		run "$KTRAJ" replay --task "$P" 0
		[ "$status" -eq 3 ]
		[ "$output" = "ktraj: replay: unsafe bundle entry $bad" ]
		[ ! -e "$P/results/000000.json" ]
		[ ! -e "/tmp/ядро-$$.cu" ]
	done
}
