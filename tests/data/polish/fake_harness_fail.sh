#!/bin/bash
# Stands in for ktraj-harness (KTRAJ_HARNESS) in tests/cli/polish.bats: the
# failures `ktraj bench` must report as one line with what the harness or
# the compiler printed after it.  FAKE_MODE picks one:
#   compile  a compile line with exit_code 1 and nvcc diagnostics, noise on
#            stderr, exit 3 (as the harness on a compile error)
#   refuse   a one-line complaint and the usage on stderr, exit 2
#   crash    half a line on stdout, a message on stderr, exit 5
case "${FAKE_MODE:-compile}" in
compile)
	echo 'nvcc -O3 -arch=sm_90a cand.cu' >&2
	printf '%s\n' '{"type":"compile","role":"candidate","command":"nvcc -O3 cand.cu","exit_code":1,"duration_ms":12,"diagnostics":"cand.cu(3): error: expected a \";\"\n1 error detected in the compilation of \"cand.cu\"."}'
	exit 3 ;;
refuse)
	printf '%s\n' "ktraj-harness: --scenarios: 'zzz' matches nothing" \
		'usage: ktraj-harness --task SPEC --kernel FILE.cu [options]' \
		'  --scenarios LIST   ...' >&2
	exit 2 ;;
crash)
	printf '{"type":"res'
	echo 'ktraj-harness: cudaMalloc: out of memory' >&2
	echo 'second line of detail' >&2
	exit 5 ;;
esac
