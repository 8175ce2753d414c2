#!/usr/bin/env bats
# Replay and bundles on sessions of our own that need only a C compiler
# (tests/data/replay/make_fixture.py): the recording says 2.50 ms; one
# program prints 2.50 (reproduces), the other 1.00 (faster).

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	FIX="$BATS_TEST_DIRNAME/../data/replay"
	command -v cc >/dev/null || skip "no C compiler"
}

need_sandbox() { # replay runs each step under bubblewrap (replay/sandbox.h)
	command -v bwrap >/dev/null || skip "bubblewrap is not installed"
	local as=()
	[ "$(id -u)" = 0 ] && as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	"${as[@]}" bwrap --unshare-all --unshare-user --ro-bind / / true 2>/dev/null ||
		skip "bubblewrap cannot make user namespaces here"
}

run_of() { # run_of FILE -> run id
	"$KTRAJ" import --json "$1" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])'
}

seq_of() { # seq_of RUN KIND -> first seq of that kind
	"$KTRAJ" log "$1" --json | python3 -c '
import json,sys
print(next(r["seq"] for r in map(json.loads,sys.stdin) if r["kind"]==sys.argv[1]))' "$2"
}

@test "a bundle is a tar.zst with manifest, run.sh and the workspace, no host paths" {
	R=$(run_of "$FIX/cc_bench_session.jsonl")
	S=$(seq_of "$R" bench)
	run "$KTRAJ" export "$R" --step "$S" --bundle "$BATS_TEST_TMPDIR/b.tar.gz"
	[ "$status" -eq 0 ]
	tar -ztf "$BATS_TEST_TMPDIR/b.tar.gz" >"$BATS_TEST_TMPDIR/list"
	grep -qx 'ktraj-bundle/manifest.json' "$BATS_TEST_TMPDIR/list"
	grep -qx 'ktraj-bundle/run.sh' "$BATS_TEST_TMPDIR/list"
	grep -qx 'ktraj-bundle/workspace/bench.c' "$BATS_TEST_TMPDIR/list"
	! grep -qE '^/|(^|/)\.\.(/|$)' "$BATS_TEST_TMPDIR/list" || false
	mkdir "$BATS_TEST_TMPDIR/x"
	tar -zxf "$BATS_TEST_TMPDIR/b.tar.gz" -C "$BATS_TEST_TMPDIR/x"
	! grep -q '/home/alice' "$BATS_TEST_TMPDIR/x/ktraj-bundle/manifest.json" || false
	# the bench step carries the build that precedes it
	python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); sys.exit(0 if m["build_command"]=="cc -O2 -o bench bench.c" and m["expect"]["time_ms"]==2.5 else 1)' \
		"$BATS_TEST_TMPDIR/x/ktraj-bundle/manifest.json"
}

@test "the bundle runs on its own and its result imports as a replay event on the step" {
	R=$(run_of "$FIX/cc_bench_session.jsonl")
	S=$(seq_of "$R" bench)
	"$KTRAJ" export "$R" --step "$S" --bundle "$BATS_TEST_TMPDIR/b.tar.gz"
	mkdir "$BATS_TEST_TMPDIR/x"
	tar -zxf "$BATS_TEST_TMPDIR/b.tar.gz" -C "$BATS_TEST_TMPDIR/x"
	(cd / && env -i PATH=/usr/bin:/bin sh "$BATS_TEST_TMPDIR/x/ktraj-bundle/run.sh")
	[ -s "$BATS_TEST_TMPDIR/x/ktraj-bundle/result.json" ]
	run "$KTRAJ" import --json "$BATS_TEST_TMPDIR/x/ktraj-bundle/result.json"
	[ "$status" -eq 0 ]
	"$KTRAJ" log "$R" --kind replay --json >"$BATS_TEST_TMPDIR/rp"
	python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; sys.exit(0 if len(r)==1 and r[0]["step"]==int(sys.argv[2]) and r[0]["verdict"]=="reproduced" and r[0]["parent"]==int(sys.argv[2]) else 1)' \
		"$BATS_TEST_TMPDIR/rp" "$S"
	# importing the same result again adds nothing
	"$KTRAJ" import "$BATS_TEST_TMPDIR/x/ktraj-bundle/result.json"
	[ "$("$KTRAJ" log "$R" --kind replay --json | wc -l)" -eq 1 ]
}

@test "replay of a bench step that reproduces, and of one that is faster" {
	need_sandbox
	R=$(run_of "$FIX/cc_bench_session.jsonl")
	S=$(seq_of "$R" bench)
	run "$KTRAJ" replay "$R" "$S" --json
	[ "$status" -eq 0 ]
	echo "$output" | python3 -c 'import json,sys; r=json.loads(sys.stdin.readline()); sys.exit(0 if r["verdict"]=="reproduced" and "2.5" in r["reason"] else 1)'
	F=$(run_of "$FIX/cc_bench_faster.jsonl")
	run "$KTRAJ" replay "$F" "$S" --json
	[ "$status" -eq 0 ]
	echo "$output" | python3 -c 'import json,sys; r=json.loads(sys.stdin.readline()); sys.exit(0 if r["verdict"]=="faster" and r["results"]["measured"]["time_ms"]==1 else 1)'
	# recorded as replay events linked to the step
	[ "$("$KTRAJ" log "$F" --kind replay --json | python3 -c 'import json,sys; print(sum(1 for r in map(json.loads,sys.stdin) if r["step"]=='"$S"' and r["verdict"]=="faster"))')" -eq 1 ]
	run "$KTRAJ" verify
	[ "$status" -eq 0 ]
}

@test "replay of a compile step reproduces; --all-bench replays every bench step" {
	need_sandbox
	R=$(run_of "$FIX/cc_bench_session.jsonl")
	C=$(seq_of "$R" compile)
	run "$KTRAJ" replay "$R" "$C"
	[ "$status" -eq 0 ]
	[[ "$output" == "step $C: reproduced"* ]]
	run "$KTRAJ" replay "$R" --all-bench --json
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
}

@test "a step whose files the trajectory never showed fails and says why" {
	need_sandbox
	printf '%s\n' '{"seq":1,"kind":"tool_call","actor":"agent","payload":{"tool":"Bash","call_id":"c1","args":{"command":"nvcc -o k kernel.cu"}}}' \
		'{"seq":2,"parent":1,"kind":"tool_result","actor":"tool","payload":{"call_id":"c1","ok":true,"output":""}}' \
		'{"seq":3,"parent":1,"kind":"compile","actor":"agent","payload":{"command":"nvcc -o k kernel.cu","exit_code":0}}' |
		"$KTRAJ" append lost >/dev/null
	run "$KTRAJ" replay lost 3 --json --timeout 60
	[ "$status" -eq 0 ]
	echo "$output" | python3 -c 'import json,sys; r=json.loads(sys.stdin.readline()); sys.exit(0 if r["verdict"]=="failed" and "kernel.cu" in r["reason"] else 1)'
}

@test "replay refuses steps that are not commands, with a clear error" {
	need_sandbox
	R=$(run_of "$FIX/cc_bench_session.jsonl")
	run "$KTRAJ" replay "$R" 1
	[ "$status" -ne 0 ]
	[[ "$output" == "ktraj: replay: step 1 is a message event"* ]]
	run "$KTRAJ" replay "$R"
	[ "$status" -eq 2 ]
}

@test "the watchdog stops a step that runs too long" {
	need_sandbox
	printf '%s\n' '{"seq":1,"kind":"tool_call","actor":"agent","payload":{"tool":"Bash","call_id":"c1","args":{"command":"sleep 30"}}}' |
		"$KTRAJ" append slow >/dev/null
	start=$(date +%s)
	run "$KTRAJ" replay slow 1 --json --timeout 2
	[ "$status" -eq 0 ]
	[ $(( $(date +%s) - start )) -lt 20 ]
	echo "$output" | python3 -c 'import json,sys; r=json.loads(sys.stdin.readline()); sys.exit(0 if r["verdict"]=="failed" and "watchdog" in r["reason"] else 1)'
}

@test "a replayed command cannot write outside its bundle or leave processes behind" {
	need_sandbox
	m="$BATS_TEST_TMPDIR/outside_marker"
	printf '{"seq":1,"kind":"tool_call","actor":"agent","payload":{"tool":"Bash","call_id":"c1","args":{"command":"echo x > %s; setsid sleep 7777 & echo in > inside.txt; cat inside.txt"}}}\n' "$m" |
		"$KTRAJ" append esc >/dev/null
	run "$KTRAJ" replay esc 1 --json
	[ "$status" -eq 0 ]
	[ ! -e "$m" ]
	! pgrep -f "sleep 7777" || false
	echo "$output" | python3 -c 'import json,sys; r=json.loads(sys.stdin.readline()); i=r["isolation"]; sys.exit(0 if i["sandbox"]=="bubblewrap" and "pid" in i["namespaces"] and i["root"]=="minimal-readonly" and i["network"] else 1)'
}

@test "the compile step of a ktraj bench run bundles the harness, the kernels and the candidate" {
	command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || skip "no nvcc"
	cd "$BATS_TEST_DIRNAME/../.."
	"$KTRAJ" bench --task rmsnorm --kernel kernels/rmsnorm/01_rowwise.cu --record r1 >/dev/null 2>&1 || true
	C=$("$KTRAJ" log r1 --json | python3 -c 'import json,sys; print(next(r["seq"] for r in map(json.loads,sys.stdin) if r["kind"]=="compile"))')
	run "$KTRAJ" export r1 --step "$C" --bundle "$BATS_TEST_TMPDIR/c.tar.gz"
	[ "$status" -eq 0 ]
	tar -ztf "$BATS_TEST_TMPDIR/c.tar.gz" >"$BATS_TEST_TMPDIR/list"
	grep -qx 'ktraj-bundle/workspace/candidate.cu' "$BATS_TEST_TMPDIR/list"
	grep -qx 'ktraj-bundle/harness/Makefile' "$BATS_TEST_TMPDIR/list"
	grep -qx 'ktraj-bundle/kernels/tasks/rmsnorm.json' "$BATS_TEST_TMPDIR/list"
	tar -zxOf "$BATS_TEST_TMPDIR/c.tar.gz" ktraj-bundle/workspace/candidate.cu | cmp - kernels/rmsnorm/01_rowwise.cu
	tar -zxOf "$BATS_TEST_TMPDIR/c.tar.gz" ktraj-bundle/command.sh | grep -q -- '--task kernels/tasks/rmsnorm.json --kernel workspace/candidate.cu --compile-only'
}

@test "the README sample's bench step bundles the kernel and its bench.h, nothing missing" {
	R=$(run_of "$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl")
	S=$(seq_of "$R" bench)
	"$KTRAJ" export "$R" --step "$S" --bundle "$BATS_TEST_TMPDIR/s.tar.gz"
	tar -xzOf "$BATS_TEST_TMPDIR/s.tar.gz" ktraj-bundle/manifest.json |
		python3 -c 'import json,sys; m=json.load(sys.stdin); p=[f["path"] for f in m["files"]]; sys.exit(0 if m["missing"]==[] and "bench.h" in p and "softmax.cu" in p and m["build_command"].startswith("nvcc") else 1)'
	tar -xzOf "$BATS_TEST_TMPDIR/s.tar.gz" ktraj-bundle/workspace/bench.h |
		cmp - "$BATS_TEST_DIRNAME/../data/sample/bench.h"
}

@test "a local header the bundled sources include but the trajectory never showed is listed as missing" {
	# the sample without its read of bench.h
	grep -v '"file_path":"/home/dev/softmax/bench.h"\|"filePath":"/home/dev/softmax/bench.h"' \
		"$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl" >"$BATS_TEST_TMPDIR/nohdr.jsonl"
	R=$(run_of "$BATS_TEST_TMPDIR/nohdr.jsonl")
	S=$(seq_of "$R" bench)
	"$KTRAJ" export "$R" --step "$S" --bundle "$BATS_TEST_TMPDIR/s.tar.gz"
	tar -zxOf "$BATS_TEST_TMPDIR/s.tar.gz" ktraj-bundle/manifest.json |
		python3 -c 'import json,sys; m=json.load(sys.stdin); sys.exit(0 if "bench.h" in m["missing"] and any(f["path"]=="softmax.cu" for f in m["files"]) else 1)'
}

# A session whose build step also puts its own program in place of the
# bundle's result writer (.result, compiled in the bundle before the step's
# commands run, in the bundle dir they may write): result.json then says
# "exit_code":"0", a string.  Such a result is refused with one line, and
# no replay event is stored (its export would be refused by append).
evil_session() {
	python3 - "$FIX/cc_bench_session.jsonl" "$1" <<-'EOF'
	import json, sys
	fake = '#!/bin/sh\necho \'{"ktraj_replay":1,"exit_code":"0","duration_ms":1}\'\n'
	out = []
	for l in open(sys.argv[1]):
	    o = json.loads(l)
	    o["sessionId"] = "replay-fixture-wrong-type"
	    for c in (o.get("message") or {}).get("content") or []:
	        if isinstance(c, dict) and c.get("type") == "tool_use":
	            i = c["input"]
	            if i.get("command") == "cc -O2 -o bench bench.c":
	                i["command"] = "cc -O2 -o bench bench.c && cp fake ../.result"
	            if i.get("file_path", "").endswith("bench.c"):
	                w = json.loads(json.dumps(o))
	    out.append(o)
	# the agent writes "fake" too, before the build
	w["uuid"] = "u0002b"
	w["message"]["content"][0]["id"] = "toolu_1b"
	w["message"]["content"][0]["input"] = {"file_path": "/home/alice/proj/fake", "content": fake}
	r = json.loads(json.dumps(out[2]))
	r["uuid"] = "u0003b"
	r["message"]["content"][0]["tool_use_id"] = "toolu_1b"
	r["message"]["content"][0]["content"] = "File created successfully at: /home/alice/proj/fake"
	r["toolUseResult"] = {"type": "create", "filePath": "/home/alice/proj/fake", "content": fake}
	out[3:3] = [w, r]
	open(sys.argv[2], "w").write("".join(json.dumps(o) + "\n" for o in out))
	EOF
}

@test "a replay result of the wrong type (result.json written by the step's own program) is refused with one line, nothing stored" {
	need_sandbox
	evil_session "$BATS_TEST_TMPDIR/wrong.jsonl"
	R=$(run_of "$BATS_TEST_TMPDIR/wrong.jsonl")
	C=$(seq_of "$R" compile)
	n=$("$KTRAJ" log "$R" --json | wc -l)
	run --separate-stderr "$KTRAJ" replay "$R" "$C" --json
	echo "$stderr"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "ktraj: replay: step $C: the replay's result does not fit a replay event (replay.results.exit_code: expected an integer, got string \"0\"): nothing recorded" ]
	[ "$("$KTRAJ" log "$R" --json | wc -l)" -eq "$n" ]
	[ -z "$("$KTRAJ" log "$R" --kind replay --json)" ]
	# --all-bench: the bench step's row says so, exit 1, nothing stored
	run --separate-stderr "$KTRAJ" replay "$R" --all-bench --json
	[ "$status" -eq 1 ]
	echo "$output" | python3 -c 'import json,sys; r=json.loads(sys.stdin.readline()); sys.exit(0 if r["verdict"]=="failed" and "nothing recorded" in r["reason"] else 1)'
	[ -z "$("$KTRAJ" log "$R" --kind replay --json)" ]
	"$KTRAJ" verify
	# the session without the swap replays and records as before
	R2=$(run_of "$FIX/cc_bench_session.jsonl")
	run "$KTRAJ" replay "$R2" "$(seq_of "$R2" compile)"
	[ "$status" -eq 0 ]
	[ "$("$KTRAJ" log "$R2" --kind replay --json | wc -l)" -eq 1 ]
}

@test "without a cgroup of its own the replay says why (the event's isolation.cgroup_why, one line on stderr), so a user knows how to get one" {
	need_sandbox
	[ "$(id -u)" = 0 ] || skip "needs root to run the replay as a user who cannot make a group"
	# a user who may not write the machine's cgroups (nobody), in a
	# folder of its own
	W=$(mktemp -d /tmp/ktraj-t-nocg.XXXXXX)
	chmod 777 "$W"
	python3 -c 'import json
print(json.dumps({"seq":1,"kind":"tool_call","payload":{"tool":"Bash","call_id":"c1","args":{"command":"echo hi"}}}))
print(json.dumps({"seq":2,"parent":1,"kind":"tool_result","actor":"tool","payload":{"call_id":"c1","ok":True,"output":"hi"}}))' >"$W/step.jsonl"
	nb=(setpriv --reuid=65534 --regid=65534 --clear-groups env KTRAJ_STORE="$W/s.ktraj")
	"${nb[@]}" "$KTRAJ" append h <"$W/step.jsonl" >/dev/null
	run --separate-stderr "${nb[@]}" "$KTRAJ" replay h 1 --json
	rm -rf "$W"
	[ "$status" -eq 0 ]
	python3 -c '
import json, sys
r = json.loads(sys.argv[1])
i = r["isolation"]
if i["cgroup"] is not False:
    sys.exit(0)  # delegated to nobody here: nothing to explain
w = i["cgroup_why"]
assert w.startswith(("cgroup v1: cannot create a group under ", "cgroup v2: ")), w
assert sys.argv[2] == "ktraj: replay: no cgroup for the step (memory limited per process, not in total): " + w, sys.argv[2]' "$output" "$stderr"
}
