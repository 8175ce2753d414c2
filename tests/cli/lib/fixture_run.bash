# fixture_run.bash - the setup the CLI tests share that import one session
# into a store of their own and read its bench results back.
# Load it from setup() (`load lib/fixture_run`): bats runs setup() before
# each test, so every test starts from an empty store, and a file whose
# tests are edited elsewhere keeps its change inside setup().

# Made-up fixture sessions (never corpus files).
FIXTURES="$BATS_TEST_DIRNAME/../data/import"

# fixture_store: an empty store for this test only (KTRAJ_STORE).
fixture_store() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
}

# run_id: the run of the first row `ktraj ls` lists (after its header).
# The tests import one session per store, so that is the session's run.
run_id() {
	"$KTRAJ" ls | awk 'NR == 2 { print $1 }'
}

# fixture_run FILE: import FILE into $KTRAJ_STORE and print its run.  FILE
# without a slash names a fixture in tests/data/import.  Fails (status of
# the import) when the import does, so a setup() that uses it fails early
# instead of testing an empty run.
fixture_run() {
	local f=$1
	case $f in */*) ;; *) f="$FIXTURES/$f" ;; esac
	"$KTRAJ" import "$f" >/dev/null || return
	run_id
}

# fixture_setup FILE: fixture_store, then RUN = the run of FILE; the whole
# setup() of a file whose tests all read the same fixture session.
fixture_setup() {
	fixture_store
	RUN=$(fixture_run "$1")
}

# bench_rows [FILE]: the bench rows of $RUN (`log --kind bench --json`: one
# JSON object a line, in seq order); with FILE, of FILE's run, imported as
# fixture_run does.  Fails when the import or the log does, so `run -0
# bench_rows` fails the test then.
bench_rows() {
	local r=$RUN
	if [ $# -gt 0 ]; then
		r=$(fixture_run "$1") || return
	fi
	"$KTRAJ" log "$r" --kind bench --json
}

# row_seq ROW: the seq of ROW, one line of bench_rows.
row_seq() {
	python3 -c 'import json,sys; print(json.loads(sys.argv[1])["seq"])' "$1"
}

# first_bench_seq RUN: the seq of RUN's first bench event.
first_bench_seq() {
	"$KTRAJ" log "$1" --kind bench --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["seq"])'
}

# first_bench_payload FILE KEY...: import FILE (as fixture_run), then its
# run's first bench payload, only the KEYs (absent ones null), one line of
# JSON with sorted keys.
first_bench_payload() {
	local r s
	r=$(fixture_run "$1") || return
	shift
	s=$(first_bench_seq "$r") || return
	"$KTRAJ" show "$r" "$s" --json | python3 -c 'import json,sys; p = json.load(sys.stdin)["payload"]; print(json.dumps({k: p.get(k) for k in sys.argv[1:]}, sort_keys=True))' "$@"
}

# blame_json RUN PY [ARG...]: `blame speedup RUN --json ARG...` succeeds
# and the python statements PY hold over its rows: `rows` all of them (one
# JSON object a line), `jumps` those with a gain, `sums` the series
# summaries.  Fails, showing the assert that failed, when either does not.
blame_json() {
	local r=$1 py=$2 out
	shift 2
	out=$("$KTRAJ" blame speedup "$r" --json "$@") || return
	python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.argv[2].splitlines() if l.strip()]
jumps = [r for r in rows if "gain" in r]
sums = [r for r in rows if "summary" in r]
exec(compile(sys.argv[1], "blame_json", "exec"))' "$py" "$out"
}

# map_import MAP FILE: import a made-up round log FILE read with MAP
# (import --map); fails the test when the import fails.
map_import() {
	run "$KTRAJ" import --map "$1" "$2"
	[ "$status" -eq 0 ]
}

# export_patched RUN PY [ARG...]: RUN's ktraj JSONL export (the store
# KTRAJ_STORE names) on stdout, with the python statements PY applied to
# each event `o` (its payload `p`, ARGs in `args`), as a verifier or a
# bench pattern would have written the event.  Each event's hash and chain
# are dropped: a changed payload no longer matches them, and import
# computes both again.
export_patched() {
	local r=$1 py=$2
	shift 2
	"$KTRAJ" export "$r" --format jsonl | python3 -c '
import json, sys
patch = compile(sys.argv[1], "patch", "exec")
args = sys.argv[2:]
for l in sys.stdin:
    o = json.loads(l)
    if "seq" in o:
        o.pop("hash", None); o.pop("chain", None)
        p = o.get("payload")
        exec(patch)
    print(json.dumps(o, separators=(",", ":")))' "$py" "$@"
}

# flag_suspicious RUN SEQ: export_patched with the bench at SEQ flagged
# ["suspicious"], as a verifier's JSON output carries it.
flag_suspicious() {
	export_patched "$1" 'if o["seq"] == int(args[0]): p["flags"] = ["suspicious"]' "$2"
}
