# kill_import.bash - kill -9 an import part-way, for the CLI tests of what
# a killed import leaves (import_batch.bats, import_small_batch.bats).
# Load it from setup() (`load lib/kill_import`).

# kill_import_when COND OUT CMD...: start CMD (an import, into a fresh
# $KTRAJ_STORE: the store and its lock file removed) in the background,
# its output to OUT, and run COND (a command or function that reads the
# store) up to 400 times while CMD lives, with no pause between: COND's own
# run time is the polling interval.  At COND's first success CMD gets
# kill -9.  Up to five tries.  0 when one try was killed; 1 when CMD
# finished every time before COND held (the caller skips: the machine was
# too fast to catch it).
kill_import_when() {
	local cond=$1 out=$2 caught=0 try i pid
	shift 2
	for try in 1 2 3 4 5; do
		rm -f "$KTRAJ_STORE" "$KTRAJ_STORE-lock"
		"$@" >"$out" 2>&1 &
		pid=$!
		for i in $(seq 1 400); do
			if "$cond"; then
				kill -9 "$pid" 2>/dev/null && caught=1
				break
			fi
			kill -0 "$pid" 2>/dev/null || break
		done
		wait "$pid" || true
		[ "$caught" -eq 1 ] && return 0
	done
	return 1
}
