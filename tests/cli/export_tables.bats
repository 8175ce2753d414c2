#!/usr/bin/env bats
# export --format ndjson --partition DIR at scale (issue 19): files of
# bounded size partitioned by format= and date=, `run` a column of every
# row, _manifest.json, --since-last adding only what is new, --compress.
# The rows are checked against `log --json` of the same store, read with
# python, zstd and gzip: nothing of ktraj reads them back.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	FIX="$BATS_TEST_DIRNAME/../data"
	P="$BATS_TEST_TMPDIR/p"
}

# rows DIR TABLE: every row of TABLE, decompressed, one JSON per line
rows() {
	find "$1/$2" -type f -name 'part-*' 2>/dev/null | sort | while read -r f; do
		case "$f" in
		*.zst) zstd -qdc "$f" ;;
		*.gz) gzip -dc "$f" ;;
		*) cat "$f" ;;
		esac
	done
}

events_in_store() {
	for r in $("$KTRAJ" ls --json | python3 -c 'import json,sys; [print(json.loads(l)["run"]) for l in sys.stdin]'); do
		"$KTRAJ" log "$r" --json
	done | wc -l
}

@test "tables: Hive folders format=/date=, run a column of every row, counts equal the store's, a manifest listing every file" {
	"$KTRAJ" import "$FIX/replay/cc_bench_session.jsonl" "$FIX/replay/cc_bench_faster.jsonl" >/dev/null
	"$KTRAJ" append note-run <<<'{"kind":"note","payload":{"text":"a"}}' >/dev/null
	run "$KTRAJ" export --all --format ndjson --partition "$P"
	[ "$status" -eq 0 ]
	# date= is the run's day (its first event's), not the import's: the
	# fixture sessions ran on 2026-05-14; the appended run today
	[ -f "$P/events/format=claude_code/date=2026-05-14/part-00001-00000.ndjson.zst" ]
	[ -f "$P/events/format=append/date=$(date -u +%Y-%m-%d)/part-00001-00000.ndjson.zst" ]
	[ "$(find "$P" -name 'run=*' | wc -l)" -eq 0 ]
	[ "$(find "$P" -name '*.tmp' | wc -l)" -eq 0 ]
	[ "$(rows "$P" events | wc -l)" -eq "$(events_in_store)" ]
	[ "$(rows "$P" runs | wc -l)" -eq 3 ]
	rows "$P" events | python3 -c '
import json, sys
r = [json.loads(l) for l in sys.stdin]
assert all(len(x["run"]) == 32 and list(x)[0] == "run" for x in r), r[0]
assert len({x["run"] for x in r}) == 3'
	rows "$P" bench | python3 -c '
import json, sys
r = [json.loads(l) for l in sys.stdin]
assert len(r) == 2 and [x["time_ms"] for x in r] == [2.5, 2.5], r
assert all(k in r[0] for k in ("metric", "baseline", "source", "candidate", "graded"))'
	python3 - "$P" <<'PY'
import json, os, sys
d = sys.argv[1]
m = json.load(open(os.path.join(d, "_manifest.json")))
assert m["schema"] == 2 and m["compress"] == "zstd" and m["part_size"] == 128 << 20
assert m["partition_by"] == ["format", "date"]
(e,) = m["exports"]
on_disk = sorted(os.path.relpath(os.path.join(a, f), d) for a, _, fs in os.walk(d) for f in fs if f.startswith("part-"))
assert sorted(f["path"] for f in e["files"]) == on_disk, (e["files"], on_disk)
assert e["runs"] == 3 and e["new_runs"] == 3 and e["rows"]["runs"] == 3
assert m["watermark"]["runs"] == 3 and len(m["watermark"]["by_run"]) == 3
assert m["columns"]["bench"][:3] == ["run", "seq", "ts"]
PY
}

@test "tables: --part-size closes a file once it holds that many uncompressed bytes; no row is lost or split" {
	"$KTRAJ" import "$FIX/replay/cc_bench_session.jsonl" "$FIX/replay/cc_bench_faster.jsonl" >/dev/null
	run "$KTRAJ" export --all --format ndjson --partition "$P" --part-size 4K
	[ "$status" -eq 0 ]
	n=$(find "$P/events" -name 'part-*' | wc -l)
	[ "$n" -ge 3 ]
	[ "$(rows "$P" events | wc -l)" -eq "$(events_in_store)" ]
	rows "$P" events | python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]'
	# each file stays within 4 KiB unless its one row is longer
	for f in $(find "$P/events" -name 'part-*'); do
		b=$(zstd -qdc "$f" | wc -c)
		l=$(zstd -qdc "$f" | wc -l)
		[ "$b" -le 4096 ] || [ "$l" -eq 1 ]
	done
	python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); assert all(f["bytes"] <= 4096 or f["rows"] == 1 for f in m["exports"][0]["files"])' "$P/_manifest.json"
}

@test "tables: --since-last writes only the runs and events added since; the runs table gets the grown run's new row" {
	"$KTRAJ" import "$FIX/replay/cc_bench_session.jsonl" >/dev/null
	"$KTRAJ" append grow <<<'{"kind":"note","payload":{"text":"one"}}' >/dev/null
	"$KTRAJ" export --all --format ndjson --partition "$P" >/dev/null
	before=$(rows "$P" events | wc -l)
	# nothing new: an export that adds no rows, no files and no entry in
	# the manifest (a nightly export of a quiet store leaves it as it
	# was), and says so
	cp "$P/_manifest.json" "$BATS_TEST_TMPDIR/m0"
	run --separate-stderr "$KTRAJ" export --all --format ndjson --partition "$P" --since-last
	[ "$status" -eq 0 ]
	[ "$stderr" = "ktraj: export: nothing new to export: no file written, $P/_manifest.json left as it was" ]
	[ "$(rows "$P" events | wc -l)" -eq "$before" ]
	cmp "$P/_manifest.json" "$BATS_TEST_TMPDIR/m0"
	"$KTRAJ" append grow <<<'{"kind":"note","payload":{"text":"two"}}
{"kind":"note","payload":{"text":"three"}}' >/dev/null
	"$KTRAJ" import "$FIX/replay/cc_bench_faster.jsonl" >/dev/null
	run "$KTRAJ" export --all --format ndjson --partition "$P" --since-last
	[ "$status" -eq 0 ]
	[ "$(rows "$P" events | wc -l)" -eq "$(events_in_store)" ]
	# every (run, seq) once
	[ "$(rows "$P" events | python3 -c 'import json,sys; r=[json.loads(l) for l in sys.stdin]; print(len(r)-len({(x["run"],x["seq"]) for x in r}))')" -eq 0 ]
	python3 - "$P" <<'PY'
import json, os, subprocess, sys
d = sys.argv[1]
m = json.load(open(os.path.join(d, "_manifest.json")))
e1, e3 = m["exports"]
assert e3["n"] == 2, e3
new = [f for f in e3["files"] if f["table"] == "events"]
assert all("/part-00002-" in f["path"] for f in e3["files"])
assert sum(f["rows"] for f in new) == e3["rows"]["events"]
assert e3["new_runs"] == 1 and e3["runs"] == 3
# the grown run: two events in export 2, its runs rows 1 and 3 events
grow = [json.loads(l) for f in e3["files"] if f["table"] == "runs"
        for l in subprocess.run(["zstd", "-qdc", os.path.join(d, f["path"])], capture_output=True, text=True).stdout.splitlines()]
g = [r for r in grow if r["name"] == "grow"]
assert len(g) == 1 and g[0]["events"] == 3, grow
assert m["watermark"]["by_run"][g[0]["run"]] == 3
PY
}

@test "tables: a folder that holds an export is refused without --since-last; another compression too; a manifest that is not ours" {
	"$KTRAJ" import "$FIX/replay/cc_bench_session.jsonl" >/dev/null
	"$KTRAJ" export --all --format ndjson --partition "$P" >/dev/null
	run "$KTRAJ" export --all --format ndjson --partition "$P"
	[ "$status" -ne 0 ]
	[[ "$output" == "ktraj: export: $P holds an export already: add to it with --since-last, or export to a new folder" ]]
	run "$KTRAJ" export --all --format ndjson --partition "$P" --since-last --compress gzip
	[ "$status" -ne 0 ]
	[[ "$output" == *"compressed with zstd, not gzip: add to it with --compress zstd" ]]
	echo '{"hello": 1}' >"$BATS_TEST_TMPDIR/q.json"
	mkdir "$BATS_TEST_TMPDIR/q" && cp "$BATS_TEST_TMPDIR/q.json" "$BATS_TEST_TMPDIR/q/_manifest.json"
	run "$KTRAJ" export --all --format ndjson --partition "$BATS_TEST_TMPDIR/q" --since-last
	[ "$status" -ne 0 ]
	[[ "$output" == *"_manifest.json: not a ktraj export manifest" ]]
	# the old layout (run=<id> folders, no manifest)
	mkdir -p "$BATS_TEST_TMPDIR/old/events/run=0123"
	run "$KTRAJ" export --all --format ndjson --partition "$BATS_TEST_TMPDIR/old"
	[ "$status" -ne 0 ]
	[[ "$output" == *"has tables but no _manifest.json"* ]]
	run "$KTRAJ" export --all --format ndjson --partition "$P" --part-size 12
	[ "$status" -eq 2 ]
	run "$KTRAJ" export --all --format ndjson --partition "$P" --compress lz4
	[ "$status" -eq 2 ]
	[ "$output" = "ktraj: export: --compress: bad value 'lz4' (zstd, gzip or none) (see \`ktraj export --help\`)" ]
	run "$KTRAJ" export --all --since-last
	[ "$status" -eq 2 ]
}

@test "tables: --compress gzip and none write what gzip and cat read; the parts an interrupted export left are removed by the next" {
	"$KTRAJ" import "$FIX/replay/cc_bench_session.jsonl" >/dev/null
	"$KTRAJ" export --all --format ndjson --partition "$P" --compress gzip >/dev/null
	f=$(find "$P/events" -name 'part-*.ndjson.gz')
	gzip -t "$f"
	[ "$(gzip -dc "$f" | wc -l)" -eq "$(events_in_store)" ]
	"$KTRAJ" export --all --format ndjson --partition "$BATS_TEST_TMPDIR/n" --compress none >/dev/null
	f=$(find "$BATS_TEST_TMPDIR/n/events" -name 'part-*.ndjson')
	python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$f"
	# leftovers of a second export that died before its manifest
	d=$(dirname "$f")
	echo '{"run":"stale"}' >"$d/part-00002-00000.ndjson"
	echo '{"run":"stale"}' >"$d/part-00002-00007.ndjson.tmp"
	"$KTRAJ" append late <<<'{"kind":"note","payload":{"text":"x"}}' >/dev/null
	"$KTRAJ" export --all --format ndjson --partition "$BATS_TEST_TMPDIR/n" --compress none --since-last >/dev/null
	[ ! -e "$d/part-00002-00007.ndjson.tmp" ]
	! rows "$BATS_TEST_TMPDIR/n" events | grep -q stale || false
	[ "$(rows "$BATS_TEST_TMPDIR/n" events | wc -l)" -eq "$(events_in_store)" ]
}

@test "tables: an export killed before its manifest leaves no part a reader's glob or Spark picks up; the next export writes every row once" {
	command -v strace >/dev/null || skip "strace not installed (it kills the export at a chosen file)"
	"$KTRAJ" import "$FIX/replay/cc_bench_session.jsonl" "$FIX/replay/cc_bench_faster.jsonl" >/dev/null
	d="$P/events/format=claude_code/date=2026-05-14"
	# killed when it opens the second events part (the first is
	# complete by then), under either temp name
	run strace -f -qq -o /dev/null -P "$d/part-00001-00001.ndjson.zst.tmp" \
		-P "$d/.part-00001-00001.ndjson.zst.tmp" -e trace=openat -e inject=openat:signal=KILL \
		"$KTRAJ" export --all --format ndjson --partition "$P" --part-size 4K
	[ "$status" -ne 0 ]
	[ ! -e "$P/_manifest.json" ]
	# what DuckDB's glob (*.ndjson.zst) and Spark (names not starting
	# with . or _) would read: nothing
	[ -z "$(find "$P" -type f -name '*.ndjson.zst')" ]
	[ -z "$(find "$P" -type f ! -name '.*' ! -name '_*')" ]
	run "$KTRAJ" export --all --format ndjson --partition "$P" --part-size 4K
	[ "$status" -eq 0 ]
	[ -z "$(find "$P" -type f -name '.*')" ]
	[ "$(rows "$P" events | wc -l)" -eq "$(events_in_store)" ]
	[ "$(rows "$P" events | sort -u | wc -l)" -eq "$(events_in_store)" ]
}

@test "tables: an export that matches nothing (an empty store, every run hidden) writes no file and no manifest; a later one starts the folder" {
	"$KTRAJ" init >/dev/null
	run --separate-stderr "$KTRAJ" export --all --format ndjson --partition "$P"
	[ "$status" -eq 0 ]
	[ "$stderr" = "ktraj: export: nothing to export: no file written, $P/_manifest.json left as it was" ]
	[ ! -e "$P/_manifest.json" ]
	"$KTRAJ" append a <<<'{"kind":"note","payload":{"text":"x"}}' >/dev/null
	"$KTRAJ" hide a >/dev/null
	run "$KTRAJ" export --all --format ndjson --partition "$P" --since-last
	[ "$status" -eq 0 ]
	[ ! -e "$P/_manifest.json" ]
	run "$KTRAJ" export --all --hidden --format ndjson --partition "$P" --since-last
	[ "$status" -eq 0 ]
	python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); assert [e["n"] for e in m["exports"]] == [1] and m["exports"][0]["rows"]["events"] == 1, m' "$P/_manifest.json"
}

@test "tables: date= of a run none of whose events has a time is the day it was recorded; a run that grows keeps its day" {
	# a ktraj JSONL run whose first event has no time, its second one
	# on 2025-01-02
	printf '%s\n' '{"kind":"note","ts":null,"payload":{"text":"a"}}' \
		'{"kind":"note","ts":1735826400000000000,"payload":{"text":"b"}}' | "$KTRAJ" append dated >/dev/null
	printf '%s\n' '{"kind":"note","ts":null,"payload":{"text":"a"}}' | "$KTRAJ" append undated >/dev/null
	"$KTRAJ" export --all --format ndjson --partition "$P" --compress none >/dev/null
	[ -f "$P/events/format=append/date=2025-01-02/part-00001-00000.ndjson" ]
	[ "$(grep -c '"text":"a"' "$P/events/format=append/date=$(date -u +%F)/part-00001-00000.ndjson")" -eq 1 ]
	"$KTRAJ" append dated <<<'{"kind":"note","payload":{"text":"c"}}' >/dev/null
	"$KTRAJ" export --all --format ndjson --partition "$P" --since-last --compress none >/dev/null
	grep -q '"text":"c"' "$P/events/format=append/date=2025-01-02/part-00002-00000.ndjson"
}

@test "tables: one run into a folder of every run with --since-last keeps the others' watermark" {
	"$KTRAJ" import "$FIX/replay/cc_bench_session.jsonl" "$FIX/replay/cc_bench_faster.jsonl" >/dev/null
	"$KTRAJ" export --all --format ndjson --partition "$P" >/dev/null
	"$KTRAJ" append solo <<<'{"kind":"note","payload":{"text":"x"}}' >/dev/null
	run "$KTRAJ" export solo --format ndjson --partition "$P" --since-last
	[ "$status" -eq 0 ]
	python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); w=m["watermark"]; assert w["runs"]==3 and len(w["by_run"])==3, w' "$P/_manifest.json"
	run "$KTRAJ" export --all --format ndjson --partition "$P" --since-last
	[ "$status" -eq 0 ]
	[ "$(rows "$P" events | wc -l)" -eq "$(events_in_store)" ]
}
