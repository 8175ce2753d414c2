#!/bin/bash
# Stands in for ktraj-harness in tests/cli/bench.bats (KTRAJ_HARNESS): prints
# the NDJSON of harness_out.ndjson (a compile line and two scenario results
# in the format of harness/README.md "Output") and exits 1 like the harness
# does when a scenario is not ok.  Records its argv for the test to inspect.
HERE=$(cd "$(dirname "$0")" && pwd)
[ -n "${FAKE_ARGV:-}" ] && printf '%s\n' "$@" >"$FAKE_ARGV"
cat "$HERE/harness_out.ndjson"
exit 1
