# setup_suite.bash - what bats runs once before the files of tests/cli/
# (bats looks for this file beside the first .bats file it is given).
# KTRAJ is the binary under test; `make check` sets it.  Unset, it is this
# checkout's build/ktraj, so `bats tests/cli/hide.bats` works as it is
# (every test failed with status 127 before), and an unbuilt tree says so
# once instead.
setup_suite() {
	if [ -z "${KTRAJ:-}" ]; then
		KTRAJ="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/ktraj"
		if [ ! -x "$KTRAJ" ]; then
			echo "KTRAJ is not set and $KTRAJ is not built: run make, or set KTRAJ=/path/to/ktraj" >&2
			return 1
		fi
		export KTRAJ
	fi
}
