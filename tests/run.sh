#!/bin/bash
# Runs every test: the cmocka unit binaries given as arguments (TAP output)
# and the bats CLI tests in tests/cli/.  Closes with "N passed, N failed".
# KTRAJ must point at the ktraj binary under test.  UNIT_ONLY=1 (`make
# unit`) runs the unit binaries alone: no bats, no KTRAJ needed.
set -u
UNIT_ONLY=${UNIT_ONLY:-}
[ -n "$UNIT_ONLY" ] || export KTRAJ=${KTRAJ:?KTRAJ must point at the ktraj binary}
export CMOCKA_MESSAGE_OUTPUT=TAP
HERE=$(cd "$(dirname "$0")" && pwd)
export CORPUS=${CORPUS:-$HERE/../../shared/corpus}
pass=0 fail=0 skip=0 failed_names=""
count() { # count FILE NAME: tally TAP lines of one suite
	local p f s sn
	p=$(grep -cE '^ok ' "$1" || true)
	s=$(grep -cE '^ok .*# (skip|SKIP)' "$1" || true)
	# cmocka's TAP writes a skipped test as "not ok N # SKIP"
	sn=$(grep -cE '^not ok .*# (skip|SKIP)' "$1" || true)
	f=$(grep -cE '^not ok ' "$1" || true)
	f=$((f - sn))
	pass=$((pass + p - s)); skip=$((skip + s + sn)); fail=$((fail + f))
	[ "$f" -gt 0 ] && failed_names="$failed_names $2"
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for t in "$@"; do
	n=$(basename "$t")
	"$t" >"$tmp/$n.tap" 2>"$tmp/$n.err"; rc=$?
	cat "$tmp/$n.tap"
	if [ $rc -ne 0 ] && ! grep -q '^not ok' "$tmp/$n.tap"; then
		echo "not ok - $n exited with status $rc"; tail -20 "$tmp/$n.err"
		echo "not ok - $n crashed" >>"$tmp/$n.tap"
	elif [ $rc -ne 0 ]; then tail -20 "$tmp/$n.err"; fi
	count "$tmp/$n.tap" "$n"
done
if [ -z "$UNIT_ONLY" ] && ls "$HERE"/cli/*.bats >/dev/null 2>&1; then
	bats --tap "$HERE"/cli/*.bats >"$tmp/bats.tap" 2>&1
	cat "$tmp/bats.tap"
	count "$tmp/bats.tap" bats
fi
[ -n "$failed_names" ] && echo "failing suites:$failed_names"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
