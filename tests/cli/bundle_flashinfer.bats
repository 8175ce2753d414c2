#!/usr/bin/env bats
# FlashInfer-Bench compile steps: the torch-extension build ran in a cache
# directory of the recording machine ($HOME/.cache/flashinfer_bench/...).
# Their bundles carry the solution's sources instead of naming that cache,
# say in the manifest which absolute paths (compiler, include directories)
# they need from the machine ("external"), and list the sources the
# trajectory never showed ("missing").
# Fixture: tests/data/import/flashinfer/cache (ours); corpus test skips
# without $CORPUS.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
}

compile_seq() {
	"$KTRAJ" log "$1" --json | python3 -c '
import json,sys
print([r["seq"] for r in map(json.loads,sys.stdin) if r["kind"]=="compile"][0])'
}

@test "bundle of a cached torch build: sources bundled, no cache path, externals named" {
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/import/flashinfer/cache" >/dev/null
	R=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	S=$(compile_seq "$R")
	run "$KTRAJ" export "$R" --step "$S" --bundle "$BATS_TEST_TMPDIR/b.tar.gz"
	[ "$status" -eq 0 ]
	mkdir "$BATS_TEST_TMPDIR/x"
	tar -C "$BATS_TEST_TMPDIR/x" -xf "$BATS_TEST_TMPDIR/b.tar.gz"
	B="$BATS_TEST_TMPDIR/x/ktraj-bundle"
	[ -f "$B/workspace/kernel.cu" ]
	[ -f "$B/workspace/kernel.h" ]
	! grep -q '\.cache' "$B/command.sh" || false
	grep -q -- '-c kernel.cu' "$B/command.sh"
	python3 - "$B/manifest.json" <<'PY'
import json,sys
m=json.load(open(sys.argv[1]))
assert m["missing"]==[], m["missing"]
assert m["external"]==["/usr/local/cuda/bin/nvcc","/opt/conda/lib/python3.11/site-packages/torch/include"], m["external"]
assert not any(".cache" in p for p in m["external"]), m
PY
}

@test "corpus: a compile error of a solution the traces file lacks names it as missing" {
	[ -d "${CORPUS:-}" ] || skip "no corpus"
	"$KTRAJ" import "$CORPUS/gpu_kernel/flashinfer_trace/traces_qwen_dsa_topk_indexer_compile_error.jsonl" >/dev/null 2>&1
	R=$("$KTRAJ" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	S=$(compile_seq "$R")
	run "$KTRAJ" export "$R" --step "$S" --bundle "$BATS_TEST_TMPDIR/b.tar.gz"
	[ "$status" -eq 0 ]
	mkdir "$BATS_TEST_TMPDIR/x"
	tar -C "$BATS_TEST_TMPDIR/x" -xf "$BATS_TEST_TMPDIR/b.tar.gz"
	B="$BATS_TEST_TMPDIR/x/ktraj-bundle"
	! grep -q '\.cache' "$B/command.sh" || false
	python3 - "$B/manifest.json" <<'PY'
import json,sys
m=json.load(open(sys.argv[1]))
assert m["missing"]==["kernel.cu"], m["missing"]
assert "/usr/local/cuda-12.4/bin/nvcc" in m["external"], m["external"]
assert not any(".cache" in p for p in m["external"] + m["missing"]), m
PY
}
