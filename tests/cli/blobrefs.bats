#!/usr/bin/env bats
# Events that name a blob which is not stored (FORMAT.md "Blob references"):
# `ktraj append` refuses them (exit 1, one line), the ktraj JSONL importer
# reports and skips them (--strict keeps nothing of the file), and `ktraj
# verify` reports one already in a store (exit 3, run and seq).  Also:
# `append` of blob lines only creates the run, and append's exit codes
# (1 for every bad line, 2 for usage).  Inputs are written here.

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	"$KTRAJ" init >/dev/null
	# content "abc\n" as a blob line, its hash, and a hash never stored
	H=$(printf 'abc\n' | sha256sum | cut -c1-64)
	M=$(printf 'never stored' | sha256sum | cut -c1-64)
	BLOB="{\"blob\":\"$H\",\"path\":\"k.cu\",\"text\":\"abc\\n\"}"
}

edit() { # path after
	echo "{\"kind\":\"edit\",\"payload\":{\"path\":\"$1\",\"op\":\"create\",\"before\":null,\"after\":\"$2\",\"tool\":\"Write\"}}"
}
note() { echo "{\"kind\":\"note\",\"payload\":{\"text\":\"$1\"}}"; }
events() { "$KTRAJ" log "$1" --json | wc -l; }

@test "append: an edit naming a blob that is not stored is refused with its line; what came before stays" {
	run --separate-stderr "$KTRAJ" append r < <(note one; edit m.cu "$M"; note three)
	[ "$status" -eq 1 ]
	[ "${stderr_lines[0]}" = "ktraj: append: line 2: edit \"after\" names blob $M, which is not stored (a blob line must come before the first event that names it); not appended" ]
	[ "${stderr_lines[1]}" = "before the error: 1 event appended to r (run $(printf 'append:r' | sha256sum | cut -c1-32), 1 event)" ]
	[ "$(events r)" -eq 1 ]
	# a blob line after the event does not rescue it: blobs come first
	run "$KTRAJ" append r < <(edit k.cu "$H"; echo "$BLOB")
	[ "$status" -eq 1 ]
	[[ "$output" == *"line 1: edit \"after\" names blob $H, which is not stored"* ]]
	[ "$(events r)" -eq 1 ]
	# before it, it is fine, and cat gives the content
	run "$KTRAJ" append r < <(echo "$BLOB"; edit k.cu "$H")
	[ "$status" -eq 0 ]
	[ "$("$KTRAJ" cat r k.cu)" = "abc" ]
	# stored by an earlier append counts too
	run "$KTRAJ" append r < <(edit k2.cu "$H")
	[ "$status" -eq 0 ]
	[ "$(events r)" -eq 3 ]
	"$KTRAJ" verify
}

@test "append: every blob field of the model is checked; null and other 64-hex text are not references" {
	echo "$BLOB" | "$KTRAJ" append r >/dev/null
	for p in \
		"{\"kind\":\"edit\",\"payload\":{\"path\":\"k.cu\",\"op\":\"modify\",\"before\":\"$M\",\"after\":\"$H\",\"tool\":\"Edit\"}}|edit \"before\"" \
		"{\"kind\":\"tool_result\",\"payload\":{\"call_id\":\"c\",\"ok\":true,\"output\":\"x\",\"output_blob\":\"$M\"}}|tool_result \"output_blob\"" \
		"{\"kind\":\"tool_result\",\"payload\":{\"call_id\":\"c\",\"ok\":true,\"output\":\"x\",\"observed\":[{\"path\":\"k.cu\",\"blob\":\"$H\"},{\"path\":\"b\",\"blob\":\"$M\"}]}}|tool_result \"observed[1].blob\"" \
		"{\"kind\":\"compile\",\"payload\":{\"command\":\"nvcc k.cu\",\"exit_code\":1,\"diagnostics_blob\":\"$M\"}}|compile \"diagnostics_blob\"" \
		"{\"kind\":\"bench\",\"payload\":{\"time_ms\":1.5,\"correct\":true,\"candidate_blob\":\"$M\"}}|bench \"candidate_blob\"" \
		"{\"kind\":\"message\",\"payload\":{\"role\":\"user\",\"human\":true,\"text\":\"see\",\"images\":[{\"blob\":\"$M\",\"media_type\":\"image/png\"}]}}|message \"images[0].blob\"" \
		"{\"kind\":\"bench\",\"payload\":{\"time_ms\":1.5,\"correct\":true,\"extra\":{\"log_blob\":\"$M\"}}}|bench \"extra.log_blob\""; do
		line=${p%|*} want=${p##*|}
		run --separate-stderr "$KTRAJ" append r <<<"$line"
		[ "$status" -eq 1 ]
		[[ "$stderr" == "ktraj: append: line 1: $want names blob $M, which is not stored"* ]]
	done
	# a value that is not a hash at all
	run --separate-stderr "$KTRAJ" append r <<<"$(edit k.cu not-a-hash)"
	[ "$status" -eq 1 ]
	[ "$stderr" = 'ktraj: append: line 1: edit "after" is not a blob hash (64 hex chars or null); not appended' ]
	[ "$(events r)" -eq 0 ]
	# null names nothing; source_hash, output_hash and text are not blobs
	run "$KTRAJ" append r <<EOF
{"kind":"edit","payload":{"path":"k.cu","op":"delete","before":"$H","after":null,"tool":"Bash"}}
{"kind":"compile","payload":{"command":"nvcc","exit_code":0,"diagnostics_blob":null,"output_hash":"$M"}}
{"kind":"bench","payload":{"time_ms":1,"correct":true,"source_hash":"$M","candidate_blob":"$H"}}
{"kind":"note","payload":{"text":"$M"}}
EOF
	[ "$status" -eq 0 ]
	[ "$(events r)" -eq 4 ]
	"$KTRAJ" verify
}

@test "append: stdin of blob lines only creates the run with 0 events; the next append adds to it; empty stdin creates nothing" {
	run --separate-stderr "$KTRAJ" append onlyblobs <<<"$BLOB"
	[ "$status" -eq 0 ]
	id=$(printf 'append:onlyblobs' | sha256sum | cut -c1-32)
	[ "$output" = "0 events appended to onlyblobs (run $id, 0 events); 1 blob stored" ]
	"$KTRAJ" ls --json | ID="$id" python3 -c '
import json,os,sys
r=[json.loads(l) for l in sys.stdin]
assert [(x["run"],x["name"],x["format"],x["events"]) for x in r]==[(os.environ["ID"],"onlyblobs","append",0)], r'
	"$KTRAJ" verify
	run "$KTRAJ" append --json onlyblobs < <(edit k.cu "$H")
	[ "$status" -eq 0 ]
	[[ "$output" == *"\"run\":\"$id\""*'"added":1,"events":1,"blobs":0}' ]]
	[ "$("$KTRAJ" cat onlyblobs k.cu)" = "abc" ]
	# nothing on stdin: no run, and it says so
	run --separate-stderr "$KTRAJ" append empty </dev/null
	[ "$status" -eq 0 ]
	[ "$stderr" = "ktraj: append: no events on stdin" ]
	[ "$("$KTRAJ" ls --json | wc -l)" -eq 1 ]
	# a bad blob line creates nothing either
	run "$KTRAJ" append badblob <<<"{\"blob\":\"$M\",\"text\":\"abc\"}"
	[ "$status" -eq 1 ]
	[ "$("$KTRAJ" ls --json | wc -l)" -eq 1 ]
}

@test "append: a bad parent is a bad line (exit 1, says which), like every other data error; usage errors exit 2" {
	note one | "$KTRAJ" append p >/dev/null
	run --separate-stderr "$KTRAJ" append p <<<'{"kind":"note","parent":2,"payload":{"text":"x"}}'
	[ "$status" -eq 1 ]
	[ "$stderr" = "ktraj: append: line 1: parent 2 is not an earlier event (this one would be seq 2 of run p); not appended" ]
	run --separate-stderr "$KTRAJ" append p <<<'{"kind":"note","parent":9,"seq":2,"payload":{"text":"x"}}'
	[ "$status" -eq 1 ]
	[[ "$stderr" == *"line 1: parent 9 is not an earlier event"* ]]
	# the first event of a new run has no earlier one
	run "$KTRAJ" append newp <<<'{"kind":"note","parent":1,"payload":{"text":"x"}}'
	[ "$status" -eq 1 ]
	[[ "$output" == *"parent 1 is not an earlier event (this one would be seq 1 of run newp)"* ]]
	[ "$(events p)" -eq 1 ]
	# the other bad lines: 1 too
	for l in '{"kind":"note","payload":' '{"kind":"note","seq":5,"payload":{}}' \
		'{"kind":"note","seq":1,"payload":{}}' '{"kind":"note","parent":-1,"payload":{}}' \
		'{"kind":"note","payload":{},"ts":-3}' "$(edit k.cu "$M")" \
		"{\"kind\":\"note\",\"payload\":{\"text\":\"t\"},\"hash\":\"$M\"}" \
		"{\"blob\":\"$M\",\"text\":\"x\"}"; do
		run "$KTRAJ" append p <<<"$l"
		[ "$status" -eq 1 ]
		[[ "$output" == "ktraj: append: line 1: "* ]]
	done
	[ "$(events p)" -eq 1 ]
	# usage: 2
	run "$KTRAJ" append </dev/null
	[ "$status" -eq 2 ]
	run "$KTRAJ" append p --bogus </dev/null
	[ "$status" -eq 2 ]
	"$KTRAJ" verify
}

@test "import ktraj JSONL: an event naming a blob not given before it is reported as file:line and skipped (exit 0); --strict keeps nothing" {
	f="$BATS_TEST_TMPDIR/in.jsonl"
	{
		note one
		edit m.cu "$M"
		edit k.cu "$H"
		echo "$BLOB"
		edit k.cu "$H"
		echo "{\"blob\":\"$M\",\"text\":\"bad hash\"}"
		note six
	} >"$f"
	run --separate-stderr "$KTRAJ" import --json "$f"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"$f:2: edit \"after\" names blob $M, which is not stored and no blob line before this one gives (blob lines must come before the events that name them); event not imported"* ]]
	[[ "$stderr" == *"$f:3: edit \"after\" names blob $H, which is not stored"* ]]
	[[ "$stderr" == *"$f:6: blob: content does not hash to its name"* ]]
	echo "$output" | python3 -c '
import json,sys
r=[json.loads(l) for l in sys.stdin]
assert len(r)==1 and r[0]["events"]==3 and r[0]["added"]==3, r'
	"$KTRAJ" log in --json | python3 -c '
import json,sys
r=[json.loads(l) for l in sys.stdin]
assert [(x["seq"],x["kind"],x.get("path")) for x in r]==[(1,"note",None),(2,"edit","k.cu"),(3,"note",None)], r'
	[ "$("$KTRAJ" cat in k.cu)" = "abc" ]
	"$KTRAJ" verify
	# --strict: the first such event stops it, nothing of the file is kept
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/strict.ktraj"
	run "$KTRAJ" import --strict "$f"
	[ "$status" -ne 0 ]
	[[ "$output" == "ktraj: import: $f:2: edit \"after\" names blob $M"* ]]
	[ "${#lines[@]}" -eq 1 ]
	[ -z "$("$KTRAJ" ls --json)" ]
	# the same file without the bad lines imports under --strict
	sed -e 2,3d -e 6d "$f" >"$BATS_TEST_TMPDIR/good.jsonl"
	run "$KTRAJ" import --strict "$BATS_TEST_TMPDIR/good.jsonl"
	[ "$status" -eq 0 ]
	"$KTRAJ" verify
}

@test "import ktraj JSONL: a blob already in the store may be named without a blob line" {
	echo "$BLOB" | "$KTRAJ" append first >/dev/null
	edit k.cu "$H" >"$BATS_TEST_TMPDIR/ref.jsonl"
	run "$KTRAJ" import --strict "$BATS_TEST_TMPDIR/ref.jsonl"
	[ "$status" -eq 0 ]
	[ "$("$KTRAJ" cat ref k.cu)" = "abc" ]
}

@test "import --redact of an export: redacted text blobs are stored under new hashes and the events name those" {
	printf '%s\n' "{\"blob\":\"$(printf 'path /home/alice/k.cu\n' | sha256sum | cut -c1-64)\",\"path\":\"k.cu\",\"text\":\"path /home/alice/k.cu\\n\"}" \
		"$(edit k.cu "$(printf 'path /home/alice/k.cu\n' | sha256sum | cut -c1-64)")" >"$BATS_TEST_TMPDIR/red.jsonl"
	run "$KTRAJ" import --redact --strict "$BATS_TEST_TMPDIR/red.jsonl"
	[ "$status" -eq 0 ]
	run "$KTRAJ" cat red k.cu
	[ "$status" -eq 0 ]
	[[ "$output" == "path /home/"* ]]
	[[ "$output" != *alice* ]]
	"$KTRAJ" verify
}

@test "verify: an event whose blob is not in the store exits 3 naming run and seq" {
	command -v mdb_dump >/dev/null && command -v mdb_load >/dev/null ||
		skip "needs mdb_dump and mdb_load (lmdb-utils)"
	"$KTRAJ" append v < <(echo "$BLOB"; note one; edit k.cu "$H") >/dev/null
	"$KTRAJ" verify
	id=$(printf 'append:v' | sha256sum | cut -c1-32)
	# the same store without that blob: copied by mdb_dump/mdb_load, the
	# blob's key and value lines left out
	mdb_dump -n -a "$KTRAJ_STORE" >"$BATS_TEST_TMPDIR/dump"
	awk -v h=" $H" 'skip { skip = 0; next } /^database=/ { db = $0 }
		db == "database=blobs" && $0 == h { skip = 1; next } { print }' \
		"$BATS_TEST_TMPDIR/dump" >"$BATS_TEST_TMPDIR/dump2"
	! cmp -s "$BATS_TEST_TMPDIR/dump" "$BATS_TEST_TMPDIR/dump2" || false
	mdb_load -n -f "$BATS_TEST_TMPDIR/dump2" "$BATS_TEST_TMPDIR/gone.ktraj" 2>/dev/null
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/gone.ktraj"
	run --separate-stderr "$KTRAJ" verify
	[ "$status" -eq 3 ]
	[ "$stderr" = "ktraj: verify: run $id seq 2: corrupt: edit \"after\" names blob $H, which is not stored" ]
	run --separate-stderr "$KTRAJ" verify v --json
	[ "$status" -eq 3 ]
	echo "$output" | ID="$id" python3 -c '
import json,os,sys
r=json.loads(sys.stdin.readline())
assert r["ok"] is False and r["run"]==os.environ["ID"] and r["seq"]==2 and "not stored" in r["error"], r'
}
