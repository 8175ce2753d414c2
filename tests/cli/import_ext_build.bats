#!/usr/bin/env bats
# A Python/C++ extension build that fails is a failed compile, not a bench
# nor nothing (issue 15): `python setup.py build_ext` with a g++ error, a
# torch.utils.cpp_extension load() whose ninja/nvcc build fails, a bare
# ninja "FAILED: x.o" with a g++ error.  A test harness printing
# "FAILED: max abs diff" is a wrong result, not a build.  Fixture
# tests/data/import/ext_build_fail.jsonl (made up, Claude Code shape).

bats_require_minimum_version 1.5.0

setup() {
	load lib/fixture_run
	fixture_setup ext_build_fail.jsonl
}

@test "ext build: three failed compiles, by the tool that failed" {
	run "$KTRAJ" log "$RUN" --kind compile --json
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[0]}" == *'"exit_code":1,"command":"python setup.py build_ext --inplace"'* ]]
	[[ "${lines[1]}" == *'"exit_code":1,"command":"python bench.py"'* ]]
	[[ "${lines[2]}" == *'"exit_code":1,"command":"python run_cpp.py"'* ]]
	run "$KTRAJ" show "$RUN" 4 --json
	[[ "$output" == *'"compiler":"setup.py"'* ]]
	run "$KTRAJ" show "$RUN" 7 --json
	[[ "$output" == *'"compiler":"cpp_extension"'* ]]
	run "$KTRAJ" show "$RUN" 10 --json
	[[ "$output" == *'"compiler":"ninja"'* ]]
}

@test "ext build: a harness's FAILED: line stays a (wrong) bench result" {
	run "$KTRAJ" log "$RUN" --kind bench --json
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == *'"correct":false,"time_ms":1.2,'*'"source":"python check.py"'* ]]
	[[ "${lines[1]}" == *'"correct":true,"time_ms":0.8,'* ]]
	[ "$(grep -c '"kind":"bench"' <<<"$output")" -eq 2 ]
}
