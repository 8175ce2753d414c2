#!/usr/bin/env bats
# Builds whose failure a tool result shows only in its text (issue 15):
# `pip install -e .`, `pip install -v .`, `pip install
# --no-build-isolation -e .` that fail to build a C++/CUDA extension are
# failed compiles (pip exits 1); `pip install numpy` that downloads a wheel
# and `python -m pip install -e .` whose quiet output shows no native build
# are no compiles, `python -m pip install -v -e .` that runs g++ is one
# (exit 0).
# `cmake --build` whose ninja stops is a failed compile with no code
# (exit_code null, ok false); with make, "gmake: *** ... Error N" is make's
# exit 2.  Fixture tests/data/import/pip_cmake_build.jsonl (made up,
# Claude Code shape, no exit codes in the results).

bats_require_minimum_version 1.5.0

setup() {
	load lib/fixture_run
	fixture_setup pip_cmake_build.jsonl
}

@test "pip: an extension build that fails is a failed compile; a pip install that builds nothing is none" {
	run "$KTRAJ" log "$RUN" --kind compile --json
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *'"exit_code":1,"command":"pip install -e ."'* ]]
	[[ "${lines[1]}" == *'"exit_code":1,"command":"pip install -v ."'* ]]
	[[ "${lines[2]}" == *'"exit_code":1,"command":"pip install --no-build-isolation -e ."'* ]]
	[[ "${lines[3]}" == *'"exit_code":0,"command":"python -m pip install -v -e ."'* ]]
	[[ "$output" != *'pip install numpy'* ]]
	[[ "$output" != *'"python -m pip install -e ."'* ]]
	s=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["seq"])' "${lines[1]}")
	run "$KTRAJ" show "$RUN" "$s" --json
	[[ "$output" == *'"compiler":"pip"'* ]]
	[[ "$output" == *'"diagnostics_blob":'* ]]
	run "$KTRAJ" log "$RUN" --kind bench --json
	[ -z "$output" ]
}

@test "cmake --build: ninja stopped is a failed compile with no code (ok false); make's *** gives exit 2" {
	run "$KTRAJ" log "$RUN" --kind compile --json
	[[ "${lines[4]}" == *'"exit_code":null,"command":"cmake --build build"'* ]]
	[[ "${lines[5]}" == *'"exit_code":2,"command":"cmake --build build -j8"'* ]]
	[[ "${lines[6]}" == *'"exit_code":2,"command":"make"'* ]]
	s=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["seq"])' "${lines[4]}")
	run "$KTRAJ" show "$RUN" "$s" --json
	[[ "$output" == *'"exit_code":null,"ok":false'* ]]
	run "$KTRAJ" log "$RUN"
	[[ "$output" == *'failed, exit ?: cmake --build build'* ]]
	# the other compiles carry no ok: their exit code says it
	run "$KTRAJ" export "$RUN"
	[ "$(grep -c '"ok":false' <<<"$(grep '"kind":"compile"' <<<"$output")")" -eq 1 ]
}

# Fixture tests/data/import/pip_quiet_ext.jsonl (made up, Claude Code shape,
# no exit codes): a quiet `pip install -e .` says only "Building editable
# for X ... done" / "Successfully built X", for a package with a CUDA
# extension and for a pure-Python one alike; the setup.py an earlier edit
# wrote tells them apart.  Then make's "*** ... Error 1" without a code.
quiet() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/q.ktraj"
	"$KTRAJ" import "$BATS_TEST_DIRNAME/../data/import/pip_quiet_ext.jsonl" >/dev/null
	RUN=$("$KTRAJ" ls | awk 'NR == 2 { print $1 }')
}

@test "quiet pip install -e .: a compile when the setup.py the run wrote declares a CUDAExtension; none for a pure-Python setup.py or one never shown" {
	quiet
	run "$KTRAJ" log "$RUN" --kind compile --json
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *'"exit_code":0,"command":"pip install -e ."'* ]]
	# the pure-Python package (its setup.py written too) and the package
	# whose build file the run never showed print the same: no compile
	[[ "$output" != *'pip install -e ./py'* ]]
	[[ "$output" != *'pip install ."'* ]]
	s=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["seq"])' "${lines[0]}")
	run "$KTRAJ" show "$RUN" "$s" --json
	[[ "$output" == *'"compiler":"pip"'* ]]
}

@test "make's own '*** [Makefile:3: all] Error 1' with no exit code: a failed compile with make's exit 2, not the recipe's 1 (failed result, and in a pipe)" {
	quiet
	run "$KTRAJ" log "$RUN" --kind compile --json
	[ "$(grep -c '"command":"make' <<<"$output")" -eq 2 ]
	[[ "$(grep '"command":"make"' <<<"$output")" == *'"exit_code":2,"command":"make"'* ]]
	[[ "$(grep '"command":"make 2>&1"' <<<"$output")" == *'"exit_code":2,"command":"make 2>&1"'* ]]
}
