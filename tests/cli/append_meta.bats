#!/usr/bin/env bats
# `export | append` into another store keeps the run's meta (issue 16): its
# working directory and every meta field export writes, so a replay bundle
# of the copy has the workspace the original's has.

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/a.ktraj"
	SAMPLE="$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl"
}

@test "export | append keeps cwd and every meta field; the copy's bundle has the workspace" {
	"$KTRAJ" import "$SAMPLE" >/dev/null
	"$KTRAJ" export 3db88dd1 >"$BATS_TEST_TMPDIR/e.jsonl"
	KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" "$KTRAJ" append copy <"$BATS_TEST_TMPDIR/e.jsonl" >/dev/null
	"$KTRAJ" ls --json >"$BATS_TEST_TMPDIR/a.ls"
	KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" "$KTRAJ" ls --json >"$BATS_TEST_TMPDIR/b.ls"
	python3 - "$BATS_TEST_TMPDIR/a.ls" "$BATS_TEST_TMPDIR/b.ls" <<-'PY'
	import json, sys
	a = json.loads(open(sys.argv[1]).readline())
	b = json.loads(open(sys.argv[2]).readline())
	ma, mb = a["meta"], b["meta"]
	assert mb["cwd"] == "/home/dev/softmax", mb
	# every field of the original, identity and source under "origin"
	for k, v in ma.items():
	    if k in ("identity", "source"):
	        assert mb["origin"][k] == v, (k, mb)
	    else:
	        assert mb[k] == v, (k, mb)
	assert mb["origin"]["run"] == a["run"] and mb["origin"]["format"] == a["format"]
	# the copy's own identity: its id is still derived from append:copy
	assert mb["identity"] == "append:copy" and mb["source"] == "append"
	PY
	S=$(KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" "$KTRAJ" log copy --json | python3 -c '
import json,sys
print(next(r["seq"] for r in map(json.loads,sys.stdin) if r["kind"]=="bench"))')
	KTRAJ_STORE="$BATS_TEST_TMPDIR/b.ktraj" "$KTRAJ" export copy --step "$S" --bundle "$BATS_TEST_TMPDIR/c.tar.gz"
	mkdir "$BATS_TEST_TMPDIR/x"
	tar -xzf "$BATS_TEST_TMPDIR/c.tar.gz" -C "$BATS_TEST_TMPDIR/x"
	[ -f "$BATS_TEST_TMPDIR/x/ktraj-bundle/workspace/softmax.cu" ]
}

@test "a run line does not change the meta of a run that exists" {
	printf '%s\n' '{"kind":"note","payload":{"text":"x"}}' | "$KTRAJ" append r >/dev/null
	printf '%s\n' '{"run":{"id":"00","name":"r","format":"x","meta":{"cwd":"/elsewhere"}}}' \
		'{"kind":"note","payload":{"text":"y"}}' | "$KTRAJ" append r >/dev/null
	"$KTRAJ" ls --json | python3 -c 'import json,sys; m=json.loads(sys.stdin.readline())["meta"]; sys.exit(0 if "cwd" not in m and m["identity"]=="append:r" else 1)'
}
