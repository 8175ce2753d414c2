#!/usr/bin/env bats
# `ktraj import` of what lies beside a source and of archives in archives:
# a KernelBench results file finds its baseline_time*.json in a tar.gz or
# zip as in its folder or by its own path (same run, same speedups); on
# stdin there is nothing beside it, and a note says so; an Inspect .eval
# inside a .tar.gz or .zip imports as the .eval does, a nested bomb stops
# within the enclosing archive's bound; a .jsonl.gz imports alone and in a
# tar; non-ASCII member names (a zip from Python's zipfile, pax and GNU tar,
# 7z) import as the file does, and unsafe or undecodable names are refused
# for what they are.  Fixtures (ours): tests/data/import/{kernelbench,
# inspect,archives}; the other archives are made in the test's temp dir.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	KB="$BATS_TEST_DIRNAME/../data/import/kernelbench"
	D="$BATS_TEST_TMPDIR/kb"
	mkdir -p "$D"
	cp "$KB/baseline_time_torch_fx.json" "$KB/results_level1_strings.json" "$D/"
}

# run id of the run named $2 in `import --json` output $1
id_of() {
	echo "$1" | python3 -c '
import json,sys
print([o["run"] for o in map(json.loads,sys.stdin) if o["name"]==sys.argv[1]][0])' "$2"
}

# every event of run $1 in store $2 without its provenance
events() {
	KTRAJ_STORE="$2" "$KTRAJ" export "$1" --format jsonl | python3 -c '
import json,sys
for o in map(json.loads,sys.stdin):
    if "kind" in o:
        print(json.dumps([o["seq"],o["kind"],o["parent"],o["actor"],o["ts"],o["payload"]],sort_keys=True))'
}

@test "KernelBench results in a tar.gz, a zip, or by their path: the run and events of the folder import" {
	run --separate-stderr "$KTRAJ" import --json "$D"
	[ "$status" -eq 0 ]
	R=$(id_of "$output" results_level1_strings)
	events "$R" "$KTRAJ_STORE" >"$BATS_TEST_TMPDIR/folder.ev"
	grep -q '"speedup"' "$BATS_TEST_TMPDIR/folder.ev"
	tar -C "$BATS_TEST_TMPDIR" -czf "$BATS_TEST_TMPDIR/kb.tar.gz" kb
	(cd "$BATS_TEST_TMPDIR" && zip -qr kb.zip kb)
	for a in "$BATS_TEST_TMPDIR/kb.tar.gz" "$BATS_TEST_TMPDIR/kb.zip" "$D/results_level1_strings.json"; do
		S="$BATS_TEST_TMPDIR/s-$(basename "$a").ktraj"
		run --separate-stderr env KTRAJ_STORE="$S" "$KTRAJ" import --json "$a"
		[ "$status" -eq 0 ]
		[ "$(id_of "$output" results_level1_strings)" = "$R" ]
		events "$R" "$S" | diff "$BATS_TEST_TMPDIR/folder.ev" -
	done
}

@test "KernelBench results on stdin: a note that there is no baseline, no speedups; a piped tar finds it" {
	run --separate-stderr "$KTRAJ" import --json "$D"
	R=$(id_of "$output" results_level1_strings)
	S="$BATS_TEST_TMPDIR/stdin.ktraj"
	note="ktraj: import: -: KernelBench results on stdin have no baseline_time*.json beside them: no ref_time_ms or speedup (import the file by its path, or pipe a tar of its folder: tar -c -C DIR . | ktraj import -)"
	run --separate-stderr bash -c "KTRAJ_STORE='$S' '$KTRAJ' import --json - <'$D/results_level1_strings.json'"
	[ "$status" -eq 0 ]
	# the note, and the fixture's own problem (problem 3 is not a list)
	[ "${stderr_lines[0]}" = "$note" ]
	[ "${stderr_lines[1]}" = "ktraj: import: -: problem 3: no result list; skipped" ]
	R2=$(echo "$output" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	[ "$R2" != "$R" ]
	events "$R2" "$S" >"$BATS_TEST_TMPDIR/stdin.ev"
	grep -q '"time_ms"' "$BATS_TEST_TMPDIR/stdin.ev"
	! grep -q '"speedup"' "$BATS_TEST_TMPDIR/stdin.ev" || false
	# --strict: the note is not a problem of the input
	run --separate-stderr bash -c "KTRAJ_STORE='$S' '$KTRAJ' import --strict - <'$KB/runs/fx_run/eval_results.json'"
	[ "$status" -eq 0 ]
	[ "$stderr" = "$note" ]
	[[ "$output" == *"1 added  kernelbench"* ]]
	# the help says how to give one
	run "$KTRAJ" import --help
	[[ "$output" == *"stdin has nothing beside it"*"tar -c -C DIR . | ktraj import -"* ]]
	S="$BATS_TEST_TMPDIR/tar.ktraj"
	run --separate-stderr bash -c "tar -c -C '$D' . | KTRAJ_STORE='$S' '$KTRAJ' import --json -"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"no baseline"* ]]
	[ "$(id_of "$output" results_level1_strings)" = "$R" ]
	diff <(events "$R" "$KTRAJ_STORE") <(events "$R" "$S")
}

@test "KernelBench corpus folder in a tar.gz: the level-3 run of the folder, 113 reference times and no speedup (A6000 vs H100; there were 112)" {
	[ -d "${CORPUS:-}/gpu_kernel/kernelbench" ] || skip "no corpus"
	run --separate-stderr "$KTRAJ" import --json "$CORPUS/gpu_kernel/kernelbench"
	[ "$status" -eq 0 ]
	R=$(id_of "$output" best_k_kernels_level3)
	tar -C "$CORPUS/gpu_kernel" -czf "$BATS_TEST_TMPDIR/kb.tgz" kernelbench
	S="$BATS_TEST_TMPDIR/t.ktraj"
	run --separate-stderr env KTRAJ_STORE="$S" "$KTRAJ" import --json "$BATS_TEST_TMPDIR/kb.tgz"
	[ "$status" -eq 0 ]
	[ "$(id_of "$output" best_k_kernels_level3)" = "$R" ]
	[ "$(events "$R" "$S" | grep -c '"ref_time_ms"')" -eq 113 ]
	[ "$(events "$R" "$S" | grep -c '"ref_other_hardware"')" -eq 113 ]
	[ "$(events "$R" "$S" | grep -c '"speedup"')" -eq 0 ]
	diff <(events "$R" "$KTRAJ_STORE") <(events "$R" "$S")
}

@test "an Inspect .eval inside a .tar.gz or .zip imports as the .eval does" {
	E="$BATS_TEST_DIRNAME/../data/import/inspect/mini.eval"
	run --separate-stderr "$KTRAJ" import --json "$E"
	[ "$status" -eq 0 ]
	want=$(echo "$output" | python3 -c 'import json,sys; print(sorted(json.loads(l)["run"] for l in sys.stdin))')
	mkdir "$BATS_TEST_TMPDIR/logs"
	cp "$E" "$BATS_TEST_TMPDIR/logs/"
	tar -C "$BATS_TEST_TMPDIR" -czf "$BATS_TEST_TMPDIR/logs.tgz" logs
	(cd "$BATS_TEST_TMPDIR" && zip -qr logs.zip logs)
	for a in logs.tgz logs.zip; do
		S="$BATS_TEST_TMPDIR/$a.ktraj"
		run --separate-stderr env KTRAJ_STORE="$S" "$KTRAJ" import --json "$BATS_TEST_TMPDIR/$a"
		[ "$status" -eq 0 ]
		# the fixture's malformed sample, as importing the .eval says
		[ "$stderr" = "ktraj: import: $BATS_TEST_TMPDIR/$a:logs/mini.eval:samples/2_epoch_1.json: truncated: the file ends inside a JSON value: file skipped" ]
		got=$(echo "$output" | python3 -c 'import json,sys; print(sorted(json.loads(l)["run"] for l in sys.stdin))')
		[ "$got" = "$want" ]
		for r in $(echo "$output" | python3 -c 'import json,sys; [print(json.loads(l)["run"]) for l in sys.stdin]'); do
			diff <(events "$r" "$KTRAJ_STORE") <(events "$r" "$S")
		done
	done
}

@test "the corpus .eval logs in a .tar.gz give the runs of the files" {
	[ -d "${CORPUS:-}/inspect" ] || skip "no corpus"
	run --separate-stderr "$KTRAJ" import --json "$CORPUS/inspect/inspect_message_dedup_v3.eval" "$CORPUS/inspect/inspect_popularity_10samples.eval"
	[ "$status" -eq 0 ]
	want=$(echo "$output" | python3 -c 'import json,sys; print(sorted(json.loads(l)["run"] for l in sys.stdin))')
	tar -C "$CORPUS" -czf "$BATS_TEST_TMPDIR/i.tgz" inspect
	run --separate-stderr env KTRAJ_STORE="$BATS_TEST_TMPDIR/t.ktraj" "$KTRAJ" import --json "$BATS_TEST_TMPDIR/i.tgz"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"nested"* ]]
	# the .json logs of the folder are runs too: the .eval runs are among them
	echo "$output" | python3 -c '
import json,sys
got={json.loads(l)["run"] for l in sys.stdin}
want=eval(sys.argv[1]); assert len(want)==11 and set(want)<=got, (want,got)' "$want"
}

@test "a nested bomb (an .eval inflating to 1 GiB in a .tar.gz) stops with one line, exit 1, bounded memory" {
	python3 - "$BATS_TEST_TMPDIR" <<'PY'
import io,sys,tarfile,zipfile
w=sys.argv[1]
b=io.BytesIO()
with zipfile.ZipFile(b,'w',zipfile.ZIP_DEFLATED) as z, z.open('samples/1_epoch_1.json','w') as f:
    for _ in range(1024): f.write(b'\n'*(1<<20))
d=b.getvalue()
with tarfile.open(w+'/nest.tgz','w:gz') as t:
    ti=tarfile.TarInfo('x/bomb.eval'); ti.size=len(d); t.addfile(ti,io.BytesIO(d))
PY
	run --separate-stderr python3 -c '
import resource,subprocess,sys
rc=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=open(sys.argv[-1]+".err","w"),timeout=120).returncode
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss//1024)' "$KTRAJ" import "$BATS_TEST_TMPDIR/nest.tgz"
	[ "$status" -eq 0 ]
	read -r rc mib <<<"$output"
	[ "$rc" -eq 1 ]
	[ "$mib" -lt 256 ]
	grep -q "nest.tgz:x/bomb.eval: .*what is left of its enclosing archive's bound" "$BATS_TEST_TMPDIR/nest.tgz.err"
	grep -q "exceeded the expansion bound" "$BATS_TEST_TMPDIR/nest.tgz.err"
}

@test "a gzipped JSONL imports on its own and inside a tar (not read as an mtree manifest)" {
	printf '%s\n' '{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s-gz","timestamp":"2025-01-01T00:00:00Z","message":{"role":"user","content":"hello gz"}}' \
		| gzip >"$BATS_TEST_TMPDIR/s.jsonl.gz"
	run --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/s.jsonl.gz"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "$output" == *"1 added  claude_code  hello gz" ]]
	tar -C "$BATS_TEST_TMPDIR" -cf "$BATS_TEST_TMPDIR/gz.tar" s.jsonl.gz
	run --separate-stderr env KTRAJ_STORE="$BATS_TEST_TMPDIR/t.ktraj" "$KTRAJ" import "$BATS_TEST_TMPDIR/gz.tar"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "$output" == *"1 added  claude_code  hello gz" ]]
}

@test "show --source of an event from an .eval inside a .tar.gz: the record, as from the .eval itself" {
	E="$BATS_TEST_DIRNAME/../data/import/inspect/mini.eval"
	run --separate-stderr "$KTRAJ" import --json "$E"
	R=$(echo "$output" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["run"])')
	"$KTRAJ" show "$R" 2 --source >"$BATS_TEST_TMPDIR/direct.src"
	[ -s "$BATS_TEST_TMPDIR/direct.src" ]
	mkdir "$BATS_TEST_TMPDIR/logs"
	cp "$E" "$BATS_TEST_TMPDIR/logs/"
	tar -C "$BATS_TEST_TMPDIR" -czf "$BATS_TEST_TMPDIR/logs.tgz" logs
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/t.ktraj"
	"$KTRAJ" import "$BATS_TEST_TMPDIR/logs.tgz" >/dev/null 2>&1
	run --separate-stderr "$KTRAJ" show "$R" 2 --source
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	diff "$BATS_TEST_TMPDIR/direct.src" <(printf '%s\n' "$output")
	# the source is read from the archive: once it changes, it is said
	echo changed >"$BATS_TEST_TMPDIR/logs/mini.eval"
	tar -C "$BATS_TEST_TMPDIR" -czf "$BATS_TEST_TMPDIR/logs.tgz" logs
	run --separate-stderr "$KTRAJ" show "$R" 2 --source
	[ "$status" -eq 1 ]
	[[ "$stderr" == "ktraj: show: source $BATS_TEST_TMPDIR/logs.tgz:logs/mini.eval:samples/"*" changed since import"* ]]
}

# zip $1 holding file $2 under member name $3, as Python's zipfile writes it:
# a non-ASCII name is UTF-8 with flag bit 11 set (Java's zip does the same)
pyzip() {
	python3 - "$@" <<'PY'
import sys,zipfile
with zipfile.ZipFile(sys.argv[1],'w') as z:
    z.writestr(zipfile.ZipInfo(sys.argv[3]),open(sys.argv[2],'rb').read())
PY
}

@test "a zip from Python's zipfile with a UTF-8 member name imports as Info-ZIP's does, and show --source reads it back" {
	S="$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl"
	pyzip "$BATS_TEST_TMPDIR/py.zip" "$S" '会话.jsonl'
	run --separate-stderr "$KTRAJ" import --json "$S"
	want=$(echo "$output" | python3 -c 'import json,sys; o=json.loads(sys.stdin.readline()); print(o["run"],o["events"])')
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/z.ktraj"
	run --separate-stderr "$KTRAJ" import --json "$BATS_TEST_TMPDIR/py.zip"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	got=$(echo "$output" | python3 -c 'import json,sys; o=json.loads(sys.stdin.readline()); print(o["run"],o["events"])')
	[ "$got" = "$want" ]
	run --separate-stderr "$KTRAJ" show "${got%% *}" 1 --source
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$output" = "$(head -n 1 "$S")" ]
}

@test "UTF-8 member names: '..' and absolute paths stay refused as escaping; a name that is not UTF-8 is refused as such" {
	S="$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl"
	for n in '../会话.jsonl' '/tmp/会话.jsonl' 'a/../../会话.jsonl'; do
		pyzip "$BATS_TEST_TMPDIR/u.zip" "$S" "$n"
		run --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/u.zip"
		[ "$status" -eq 1 ]
		[[ "$stderr" == *"ktraj: import: $BATS_TEST_TMPDIR/u.zip: member '$n': absolute path or '..' escapes the archive, unsafe: skipped"* ]]
	done
	# the UTF-8 flag on bytes that are not UTF-8: no name to import it under
	pyzip "$BATS_TEST_TMPDIR/bad.zip" "$S" 'ab会.jsonl'
	python3 - "$BATS_TEST_TMPDIR/bad.zip" <<'PY'
import sys
p=sys.argv[1]; b=open(p,'rb').read()
open(p,'wb').write(b.replace('ab会.jsonl'.encode(), b'ab\xff\xfe\xfd.jsonl'))
PY
	run --separate-stderr "$KTRAJ" import "$BATS_TEST_TMPDIR/bad.zip"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"ktraj: import: $BATS_TEST_TMPDIR/bad.zip: a member whose name is not valid in the charset its header declares (libarchive: "*"): skipped"* ]]
	[[ "$stderr" != *"escapes the archive"* ]]
	[ -z "$output" ]
}

@test "a non-ASCII member name in a pax or GNU tar and in a 7z (UTF-16 names) imports as the file does" {
	S="$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl"
	run --separate-stderr "$KTRAJ" import --json "$S"
	want=$(echo "$output" | python3 -c 'import json,sys; o=json.loads(sys.stdin.readline()); print(o["run"],o["events"])')
	mkdir "$BATS_TEST_TMPDIR/d"
	cp "$S" "$BATS_TEST_TMPDIR/d/会话.jsonl"
	# utf8_name.7z: the same session as member 会话.jsonl (libarchive's 7z writer)
	cp "$BATS_TEST_DIRNAME/../data/import/archives/utf8_name.7z" "$BATS_TEST_TMPDIR/u.7z"
	tar -C "$BATS_TEST_TMPDIR/d" --format=pax -cf "$BATS_TEST_TMPDIR/pax.tar" 会话.jsonl
	tar -C "$BATS_TEST_TMPDIR/d" --format=gnu -cf "$BATS_TEST_TMPDIR/gnu.tar" 会话.jsonl
	for f in pax.tar gnu.tar u.7z; do
		run --separate-stderr env KTRAJ_STORE="$BATS_TEST_TMPDIR/$f.ktraj" "$KTRAJ" import --json "$BATS_TEST_TMPDIR/$f"
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		got=$(echo "$output" | python3 -c 'import json,sys; o=json.loads(sys.stdin.readline()); print(o["run"],o["events"])')
		[ "$got" = "$want" ]
	done
}
