#!/usr/bin/env bats
# One definition of a question (kt_an_msg_question) for questions, blame
# and the NDJSON export; a negative control from the corpus; the second
# planted generator (tests/plant2) as a fast attribution check.

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	CORPUS="${CORPUS:-$BATS_TEST_DIRNAME/../../../shared/corpus}"
}

# cc_user TEXT...: a Claude Code transcript of user lines, each answered
cc_session() {
	python3 - "$@" <<'PY'
import json, sys
prev = None
for i, t in enumerate(sys.argv[1:]):
    for role, text in (("user", t), ("assistant", "Done.")):
        u = "00000000-0000-0000-0000-%012d" % (2 * i + (role == "assistant"))
        m = {"role": role, "content": text} if role == "user" else \
            {"role": role, "type": "message", "id": "m%d" % i, "content": [{"type": "text", "text": text}]}
        print(json.dumps({"parentUuid": prev, "isSidechain": False, "userType": "external", "cwd": "/w",
                          "sessionId": "11111111-2222-3333-4444-555555555555", "version": "1.0.80",
                          "type": role, "message": m, "uuid": u,
                          "timestamp": "2025-07-01T10:%02d:00.000Z" % (2 * i + (role == "assistant"))}))
        prev = u
PY
}

@test "questions: the paper-writing session (negative control) holds no question" {
	F="$CORPUS/claude_code/vsla_paper_writing_0a725fb5.jsonl"
	[ -f "$F" ] || skip "corpus absent"
	"$KTRAJ" import "$F" >/dev/null
	# every human line of it, labelled from the raw file: seq 1 "verify the
	# current paper is compiling ..." (a task request), 127 "please check
	# the paper for parts like that" (instruction), 220 "Section 9.4 is a
	# halucination" (statement), 286 "... refs are still undefined with ?
	# marks ..." (instruction, '?' as a symbol), 362 "count the number of
	# \"?\" symbols ..." (instruction, quoted '?'), 412 "Almost perfect,
	# except ..." + a pasted symbol table with LaTeX (instruction, pasted
	# material), 645 "... update please so I can go to bed" (instruction)
	run "$KTRAJ" questions mine --json
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	"$KTRAJ" export --all --format ndjson --partition "$BATS_TEST_TMPDIR/nd"
	n=$(find "$BATS_TEST_TMPDIR/nd/questions" -name 'part-*' -exec zstd -qdc {} + 2>/dev/null | wc -l)
	[ "$n" -eq 0 ]
}

@test "questions: '?' as a symbol, LaTeX, pasted tables and task requests are not questions; real ones are, in every reader" {
	cc_session \
		'Why is the reduction launched as two kernels instead of one fused kernel?' \
		'Fix every "?" in the paper please.' \
		'Many refs are still undefined with ?? marks, update them.' \
		'verify the paper is compiling and looks ok' \
		'Can you verify that the kernel is really memory-bound?' \
		'Use this table:
Category    Style    Rationale
Sets    Why not \mathrm{}?    conventional' \
		'共享内存有没有bank冲突？' >"$BATS_TEST_TMPDIR/q.jsonl"
	"$KTRAJ" import "$BATS_TEST_TMPDIR/q.jsonl" >/dev/null
	run "$KTRAJ" questions mine --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | wc -l)" -eq 3 ]
	[[ "$output" == *"two kernels instead of one fused"* ]]
	[[ "$output" == *"really memory-bound"* ]]
	[[ "$output" == *"bank冲突"* ]]
	"$KTRAJ" export --all --format ndjson --partition "$BATS_TEST_TMPDIR/nd"
	n=$(find "$BATS_TEST_TMPDIR/nd/questions" -name 'part-*' -exec zstd -qdc {} + | wc -l)
	[ "$n" -eq 3 ]
}

# q_run NAME FLAGS: a run (ktraj append) where the agent speaks, then a
# person asks why the kernel reads rows twice, with "flags": FLAGS
q_run() {
	printf '%s\n' \
		'{"kind":"message","payload":{"role":"assistant","human":false,"text":"I wrote the softmax kernel."}}' \
		'{"kind":"message","payload":{"role":"user","human":true,"flags":'"$2"',"text":"Why does the kernel read the rows twice instead of keeping them in shared memory?"}}' |
		"$KTRAJ" append "$1" >/dev/null
}

# nd_questions: the texts of the NDJSON export's questions table
nd_questions() {
	rm -rf "$BATS_TEST_TMPDIR/nd"
	"$KTRAJ" export --all --format ndjson --partition "$BATS_TEST_TMPDIR/nd" >/dev/null
	find "$BATS_TEST_TMPDIR/nd/questions" -name 'part-*' -exec zstd -qdc {} + 2>/dev/null |
		python3 -c 'import json,sys; [print(json.loads(l)["text"]) for l in sys.stdin]'
}

@test "questions: a human message flagged meta is no question, in questions mine and the NDJSON export alike" {
	q_run flagged '["meta"]'
	run "$KTRAJ" questions mine --json
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	run nd_questions
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# the same message without the flag: both list it
	q_run plain '[]'
	run "$KTRAJ" questions mine --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | wc -l)" -eq 1 ]
	[[ "$output" == *"read the rows twice"* ]]
	run nd_questions
	[ "$status" -eq 0 ]
	[ "$output" = "Why does the kernel read the rows twice instead of keeping them in shared memory?" ]
}

@test "blame speedup on tests/plant2 sessions: detection and attribution hold (fast version of tests/bench/analyze_plant2.sh)" {
	G="$BATS_TEST_DIRNAME/../plant2"
	python3 "$G/gen.py" "$BATS_TEST_TMPDIR/g" --sessions 12 --seed 101 --noise 0.02 --lang mix
	PERMS=100 KTRAJ="$KTRAJ" python3 "$G/score.py" "$BATS_TEST_TMPDIR/g" >"$BATS_TEST_TMPDIR/r.json"
	python3 - "$BATS_TEST_TMPDIR/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
q = r["by"]["cause:question"]
a = r["by"]["cause:agent"]
# formats the importer reads today (lines, verifier JSON, do_bench prints)
print(r["attribution_precision"], q["attribution_given_found"], a["attribution_given_found"])
assert r["attribution_precision"] >= 0.85, r["attribution_precision"]
assert q["attribution_given_found"] >= 0.8, q
assert a["attribution_given_found"] >= 0.8, a
assert r["detection_precision"] >= 0.75, r["detection_precision"]
PY
}

# bench_run FILE TIME_MS...: a ktraj JSONL run of the agent's rounds, each
# a message, a tool call and its bench result (time_ms): flat times stall
bench_run() {
	python3 - "$@" <<'PY'
import json, sys
ev = []
def add(kind, actor, payload, parent=None):
    d = {"seq": len(ev) + 1, "kind": kind, "actor": actor, "payload": payload}
    if parent: d["parent"] = parent
    ev.append(json.dumps(d))
    return len(ev)
add("message", "human", {"role": "user", "human": True, "text": "Make the RMSNorm kernel faster."})
for i, t in enumerate(sys.argv[2:]):
    add("message", "agent", {"role": "assistant", "human": False,
        "text": "The kernel is memory-bound at %d%% of peak DRAM bandwidth; trying round %d." % (85 + i % 3, i)})
    c = add("tool_call", "agent", {"tool": "Bash", "call_id": "c%d" % i, "args": {"command": "./bench"}})
    add("bench", "tool", {"time_ms": float(t), "correct": True, "n": 100}, c)
open(sys.argv[1], "w").write("\n".join(ev) + "\n")
PY
}

run_of() {
	"$KTRAJ" import --json "$1" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])'
}

@test "questions suggest: proposes a library question when one fits, says why when none does" {
	# a run stalled in data movement, which asks nothing itself
	bench_run "$BATS_TEST_TMPDIR/st.jsonl" 3.55 3.60 3.52 3.58 3.54 3.61 3.56 3.53
	R=$(run_of "$BATS_TEST_TMPDIR/st.jsonl")
	# a request for work in question form is no question: nothing to mine
	cc_session 'Can you add a unit test for the odd sizes?' >"$BATS_TEST_TMPDIR/a.jsonl"
	"$KTRAJ" import "$BATS_TEST_TMPDIR/a.jsonl" >/dev/null
	run "$KTRAJ" questions suggest "$R"
	[ "$status" -eq 0 ]
	[[ "$output" == *"no suggestion: the library is empty"* ]]
	# a library that holds it says it is an instruction
	echo '{"text":"Can you add a unit test for the odd sizes?","layer":"unclassified","flags":[],"gain":3.0,"count":10}' >"$BATS_TEST_TMPDIR/lib.jsonl"
	run "$KTRAJ" questions suggest "$R" --library "$BATS_TEST_TMPDIR/lib.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" == *"no suggestion: none of the library's 1 entry fits: 1 is an instruction, not a question; 0 name no system layer"* ]]
	cc_session 'What time zone are the server logs written in?' |
		sed 's/11111111-2222/11111111-8888/' >"$BATS_TEST_TMPDIR/c.jsonl"
	"$KTRAJ" import "$BATS_TEST_TMPDIR/c.jsonl" >/dev/null
	run "$KTRAJ" questions suggest "$R"
	[ "$status" -eq 0 ]
	[[ "$output" == *"no suggestion: none of the library's 1 entry fits: 0 are an instruction, not a question; 1 names no system layer"* ]]
	run "$KTRAJ" questions suggest "$R" --json
	[ "$status" -eq 0 ]
	python3 -c 'import json,sys; x=json.loads(sys.argv[1]); assert x["text"] is None and x["library"] == 1 and x["left_out"]["no_layer"] == 1, x' "$output"
	cc_session 'Why is the reduction launched as two kernels instead of one fused kernel?' |
		sed 's/11111111-2222/11111111-9999/' >"$BATS_TEST_TMPDIR/b.jsonl"
	"$KTRAJ" import "$BATS_TEST_TMPDIR/b.jsonl" >/dev/null
	run "$KTRAJ" questions suggest "$R"
	[ "$status" -eq 0 ]
	[[ "$output" == *"1. [operator boundary"*"two kernels instead of one fused kernel"* ]]
}

@test "questions suggest: a run with no measurement, or no stalled series, gets nothing and the store is not mined for it" {
	# a question that would fit anything: another layer, moves layers
	echo '{"text":"Why are bias and activation separate kernels instead of a fused epilogue?","layer":"operator boundary","flags":["moves_layer"],"gain":1.5,"count":4,"hits":2}' >"$BATS_TEST_TMPDIR/lib.jsonl"
	cc_session 'The kernel reads HBM twice per element; try tiling it in shared memory.' >"$BATS_TEST_TMPDIR/a.jsonl"
	A=$(run_of "$BATS_TEST_TMPDIR/a.jsonl")
	run "$KTRAJ" questions suggest "$A" --library "$BATS_TEST_TMPDIR/lib.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\nno suggestion: no measurements: nothing to suggest for a run with no measured series; suggest proposes a question only for a stalled one'* ]]
	[[ "$output" != *"1. ["* ]]
	run "$KTRAJ" questions suggest "$A" --library "$BATS_TEST_TMPDIR/lib.jsonl" --json
	[ "$status" -eq 0 ]
	python3 -c 'import json,sys; x=json.loads(sys.argv[1]); assert x["text"] is None and x["reason"] == "no_measurements" and x["library"] == 1 and x["why"].startswith("no measurements: nothing to suggest for"), x' "$output"
	# a human question in the store that fits the run: mining would find it
	cc_session 'Why is the reduction launched as two kernels instead of one fused kernel?' |
		sed 's/11111111-2222/11111111-9999/' >"$BATS_TEST_TMPDIR/b.jsonl"
	"$KTRAJ" import "$BATS_TEST_TMPDIR/b.jsonl" >/dev/null
	run "$KTRAJ" questions suggest "$A" --json
	[ "$status" -eq 0 ]
	python3 -c 'import json,sys; x=json.loads(sys.argv[1]); assert x["text"] is None and x["reason"] == "no_measurements" and x["library"] is None, x' "$output"
	# a series that keeps improving: no stall, nothing mined either
	bench_run "$BATS_TEST_TMPDIR/up.jsonl" 4.0 3.0 2.0 1.0
	U=$(run_of "$BATS_TEST_TMPDIR/up.jsonl")
	run "$KTRAJ" questions suggest "$U" --json
	[ "$status" -eq 0 ]
	python3 -c 'import json,sys; x=json.loads(sys.argv[1]); assert x["text"] is None and x["reason"] == "no_stall" and x["library"] is None, x' "$output"
	# a stalled run mines the store and gets the question
	bench_run "$BATS_TEST_TMPDIR/st.jsonl" 3.55 3.60 3.52 3.58 3.54 3.61 3.56 3.53
	S=$(run_of "$BATS_TEST_TMPDIR/st.jsonl")
	run "$KTRAJ" questions suggest "$S" --json
	[ "$status" -eq 0 ]
	python3 -c 'import json,sys; x=json.loads(sys.argv[1].splitlines()[0]); assert x["text"].startswith("Why is the reduction launched"), x' "$output"
}

@test "questions suggest --library: a hand-written entry's booleans count, and one without a layer gets its text's" {
	bench_run "$BATS_TEST_TMPDIR/st.jsonl" 3.55 3.60 3.52 3.58 3.54 3.61 3.56 3.53
	S=$(run_of "$BATS_TEST_TMPDIR/st.jsonl")
	# no layer, no evidence: only "challenges_bound": true lets the first
	# through; the second is about shared memory, another layer than the
	# stall's data movement, with a jump behind it
	cat >"$BATS_TEST_TMPDIR/lib.jsonl" <<'J'
{"text":"What did the last profile say about this kernel?","challenges_bound":true,"hits":0}
{"text":"Would keeping the rows in shared memory avoid the second pass?","hits":3,"gain":1.4}
{"text":"Is this the theoretical peak already?","challenges_bound":false,"hits":0,"layer":"unclassified"}
J
	run "$KTRAJ" questions suggest "$S" --library "$BATS_TEST_TMPDIR/lib.jsonl" --json
	[ "$status" -eq 0 ]
	python3 - "$output" <<'PY'
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines() if l.strip()]
t = {r["text"][:12]: r for r in rows}
assert sorted(t) == ["What did the", "Would keepin"], rows
assert t["What did the"]["challenges_bound"] is True, rows
assert t["Would keepin"]["layer"] == "memory access", rows
PY
}

@test "questions: the vsla CUDA session mines its person's 6 questions, not requests for work or the agent's markdown; suggest stops proposing them" {
	F="$CORPUS/claude_code/vsla_cuda_dev_f67ab274.jsonl"
	K="$CORPUS/gpu_kernel/kernelagent/opt_trace_36_RMSNorm"
	[ -f "$F" ] && [ -d "$K" ] || skip "corpus absent"
	# raw line 206 "Can you run the benchmarks of our library vs. the
	# competition and make sure it uses the GPU" and 398 "Can we get the
	# other two libraries working ..." ask for work; 642, the agent's
	# "**Why CuPy is valuable:**", "- Would provide ...", "Would you like
	# me to:" and its menu "1. Add GPU convolution benchmarking first?"
	V=$("$KTRAJ" import --json "$F" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	R=$("$KTRAJ" import --json "$K" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	run "$KTRAJ" questions mine "$V" --json --include-agent
	[ "$status" -eq 0 ]
	python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.argv[1].splitlines()]
t = [r["text"].lower() for r in rows]
assert [r["origin"] for r in rows] == ["human"] * 6, t
for w in ("no matrix multiplication function", "why not use the c direct", "which one we lost",
          "do we not have gpu convolution", "get cupy working", "verify that we are doing the same"):
    assert any(w in x for x in t), (w, t)' "$output"
	# --agent is the short name of --include-agent
	[ "$("$KTRAJ" questions mine "$V" --json --agent)" = "$output" ]
	# the NDJSON export reads the same definition: the 5 messages that ask
	"$KTRAJ" export "$V" --format ndjson --partition "$BATS_TEST_TMPDIR/nd"
	run python3 -c '
import json, sys
print(sorted(json.loads(l)["text"][:12] for l in sys.stdin))' < <(find "$BATS_TEST_TMPDIR/nd/questions" -name 'part-*' -exec zstd -qdc {} +)
	[ "$output" = "['Do we not ha', 'I need you t', 'The old benc', 'What do you ', 'Why not use ']" ]
	# the RMSNorm stall (memory-bound claims) gets neither the request nor
	# "verify ... these results are accurate": a measurement question that
	# never preceded a jump, challenges no bound and moves no layer is no
	# way out of a memory-bound stall
	run "$KTRAJ" questions suggest "$R"
	[ "$status" -eq 0 ]
	[[ "$output" == *"stuck: stall of 8 measurements"*"memory-bound"* ]]
	[[ "$output" != *"Can you run the benchmarks"* ]]
	[[ "$output" != *"I need you to verify"* ]]
	[[ "$output" == *"no suggestion: none of the library's 6 entries fits: "*"; 1 never preceded a jump and neither challenges a bound nor moves layers"* ]]
	run "$KTRAJ" questions suggest "$R" --json
	python3 -c 'import json,sys; x=json.loads(sys.argv[1]); assert x["text"] is None and x["left_out"]["no_evidence"] == 1, x' "$output"
	# the vsla run does not stall: its seven benchmark.sh sweeps re-measure
	# unchanged code (repeats, FORMAT.md section 14): nothing is proposed
	run "$KTRAJ" questions suggest "$V"
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\nno stall\n'*$'\nno suggestion: no series of the run is stalled ('*' measurements in '*' series)'* ]]
	# its competitor-only JSON outputs are counted, in no series
	[[ "$output" == *$'\nunparsed: 3 outputs looked like a benchmark but gave no time of the agent\'s code: 3 only timings of a baseline or competitor (seq 411 461 740); they are in no series\n'* ]]
	[[ "$output" != *"1. ["* ]]
}

@test "questions: pasted reference titles are no question in mine or the NDJSON table, whose layer is mine's" {
	cc_session \
		'Is the shared memory load coalesced across the warp?' \
		'Here is the reference text I copied:

Lee, A. (2019). Can warps cooperate on one row? In Proc. HPC.
Kim, B. (2020). Why is softmax memory bound? arXiv.

Add these to refs.bib.' \
		'Why does the softmax need two passes over global memory? And could the reduction use warp shuffles instead of shared memory?' \
		>"$BATS_TEST_TMPDIR/q.jsonl"
	"$KTRAJ" import "$BATS_TEST_TMPDIR/q.jsonl" >/dev/null
	run "$KTRAJ" questions mine --json
	[ "$status" -eq 0 ]
	mine="$output"
	"$KTRAJ" export --all --format ndjson --partition "$BATS_TEST_TMPDIR/nd"
	nd=$(find "$BATS_TEST_TMPDIR/nd/questions" -name 'part-*' -exec zstd -qdc {} +)
	python3 -c '
import json, sys
mine = [json.loads(l) for l in sys.argv[1].splitlines()]
nd = [json.loads(l) for l in sys.argv[2].splitlines()]
# mine: one row per question sentence (3); the NDJSON: one per message (2)
assert len(mine) == 3, [m["text"] for m in mine]
assert len(nd) == 2, [r["text"] for r in nd]
for t in [m["text"] for m in mine] + [r["text"] for r in nd]:
    assert "cooperate" not in t and "Lee, A." not in t and "Kim, B." not in t, t
# the one-question message: the same layer in both, not null
one = [r for r in nd if r["text"].startswith("Is the shared memory")][0]
m1 = [m for m in mine if m["text"].startswith("Is the shared memory")][0]
assert one["layer"] == m1["layer"] and one["layer"] not in (None, "unclassified"), (one, m1)
two = [r for r in nd if r["text"].startswith("Why does the softmax")][0]
assert isinstance(two["layer"], str), two' "$mine" "$nd"
}
