#!/usr/bin/env bats
# Issue 21, 10,000 small sessions in a folder: what a folder import pays
# per file in system calls, and that the sources' real paths it no longer
# asks realpath for are the same as realpath's (links, ".", "..", trailing
# slashes, the folder named through a link).

bats_require_minimum_version 1.5.0

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
}

# small DIR N: N ktraj JSONL files f000.jsonl.. of two notes each
small() {
	mkdir -p "$1"
	python3 - "$1" "$2" <<-'PY'
	import json, sys
	d, n = sys.argv[1], int(sys.argv[2])
	for i in range(n):
	    with open("%s/f%03d.jsonl" % (d, i), "w") as f:
	        for j in range(2):
	            f.write(json.dumps({"kind": "note", "payload": {"text": "file %d note %d" % (i, j)}}) + "\n")
	PY
}

# "name<TAB>path" of each run's sources in the store, sorted
sources() {
	"$KTRAJ" ls --json | python3 -c '
import json, sys
for r in map(json.loads, sys.stdin):
    for s in r["meta"].get("sources", []):
        print(r["name"] + "\t" + s["path"])' | sort
}

@test "a folder import asks no realpath per file and stats each file by name once" {
	command -v strace >/dev/null || skip "no strace"
	small "$BATS_TEST_TMPDIR/in" 200
	cd "$BATS_TEST_TMPDIR"
	run env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -o "$BATS_TEST_TMPDIR/calls" \
		-e trace=readlink,getcwd,newfstatat,stat,lstat \
		"$KTRAJ" --no-progress import in
	[ "$status" -eq 0 ]
	[ "$(sources | wc -l)" -eq 200 ]
	# realpath: getcwd and a readlink per path component, each file
	# (before: 200 files, 2 getcwd and 3 readlink each)
	n=$(grep -c 'readlink(' "$BATS_TEST_TMPDIR/calls" || true)
	[ "$n" -le 5 ]
	n=$(grep -c 'getcwd(' "$BATS_TEST_TMPDIR/calls" || true)
	[ "$n" -le 5 ]
	# by name: the walk's lstat only (the file is then read by its fd);
	# before: lstat and stat
	n=$(grep -E 'stat.*"in/f[0-9]{3}\.jsonl"' "$BATS_TEST_TMPDIR/calls" | wc -l)
	[ "$n" -eq 200 ]
}

@test "a folder import does not stat its store and lock file per file, and still skips them in the folder" {
	command -v strace >/dev/null || skip "no strace"
	small "$BATS_TEST_TMPDIR/in" 200
	cd "$BATS_TEST_TMPDIR"
	run env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -o "$BATS_TEST_TMPDIR/calls" \
		-e trace=newfstatat,stat,lstat \
		"$KTRAJ" --no-progress import in
	[ "$status" -eq 0 ]
	[ "$(sources | wc -l)" -eq 200 ]
	# the store's identity is taken once at open (before: a stat of the
	# store and one of its lock file for each of the 200 files)
	n=$(grep -cE 'stat.*"[^"]*s\.ktraj(-lock)?"' "$BATS_TEST_TMPDIR/calls" || true)
	[ "$n" -le 10 ]
	# a store inside the folder it imports is still not read as input,
	# nor its lock file, on the first import (created by this open) and
	# the next
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/in/s.ktraj"
	for i in 1 2; do
		run --separate-stderr "$KTRAJ" --no-progress import in
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
	done
	[ "$("$KTRAJ" ls --json | wc -l)" -eq 200 ]
	"$KTRAJ" verify
}

@test "sources' paths are the real paths, however the folder is named and whatever links it holds" {
	small "$BATS_TEST_TMPDIR/real/in" 3
	mkdir -p "$BATS_TEST_TMPDIR/real/in/sub" "$BATS_TEST_TMPDIR/elsewhere"
	# (content of its own: a copy of f000 would be the same run)
	printf '{"kind":"note","payload":{"text":"outside"}}\n' \
		>"$BATS_TEST_TMPDIR/elsewhere/target.jsonl"
	mv "$BATS_TEST_TMPDIR/real/in/f002.jsonl" "$BATS_TEST_TMPDIR/real/in/sub/f002.jsonl"
	# a link to a file outside: its source is the file it points at
	ln -s "$BATS_TEST_TMPDIR/elsewhere/target.jsonl" "$BATS_TEST_TMPDIR/real/in/lnk.jsonl"
	ln -s "$BATS_TEST_TMPDIR/real" "$BATS_TEST_TMPDIR/via"
	R=$(cd "$BATS_TEST_TMPDIR" && pwd -P)
	want=$(printf '%s\t%s\n' \
		f000 "$R/real/in/f000.jsonl" \
		f001 "$R/real/in/f001.jsonl" \
		f002 "$R/real/in/sub/f002.jsonl" \
		lnk "$R/elsewhere/target.jsonl" | sort)
	cd "$BATS_TEST_TMPDIR"
	for name in via/in via/in/ ./via//in/ real/in/sub/../../in; do
		rm -f "$KTRAJ_STORE" "$KTRAJ_STORE-lock"
		run "$KTRAJ" --no-progress import "$name"
		[ "$status" -eq 0 ]
		run sources
		[ "$status" -eq 0 ]
		[ "$output" = "$want" ] || { echo "$name: $output"; echo "want: $want"; false; }
	done
	# the folder as "." and as ".." of a folder in it
	rm -f "$KTRAJ_STORE" "$KTRAJ_STORE-lock"
	cd "$BATS_TEST_TMPDIR/via/in"
	run "$KTRAJ" --no-progress import .
	[ "$status" -eq 0 ]
	run sources
	[ "$output" = "$want" ]
	rm -f "$KTRAJ_STORE" "$KTRAJ_STORE-lock"
	cd sub
	run "$KTRAJ" --no-progress import ..
	[ "$status" -eq 0 ]
	run sources
	[ "$output" = "$want" ]
}

@test "Claude Code run names come from the first human line, whatever assistant lines and escapes come before it" {
	mkdir -p "$BATS_TEST_TMPDIR/cc"
	python3 - "$BATS_TEST_TMPDIR/cc" <<-'PY'
	import json, sys
	d = sys.argv[1]
	def line(sid, typ, uuid, content, **k):
	    role = 'assistant' if typ == 'assistant' else 'user'
	    return json.dumps(dict(type=typ, sessionId=sid, uuid=uuid, message={'role': role, 'content': content}, **k))
	# the pre-scan may skip an assistant line unparsed, not a user line:
	# a "type":"user" inside an assistant line, a tool result, and a
	# human line whose type is written "\u0075ser" (cJSON reads "user")
	a = line('s1', 'assistant', 'a0', [{'type': 'text', 'text': '{"type":"user"} hello'}], cwd='/w', version='1.0.53')
	t = line('s1', 'user', 'u1', [{'type': 'tool_result', 'tool_use_id': 't', 'content': 'ok'}])
	h = line('s1', 'user', 'u2', 'tile the GEMM by 128').replace('"type": "user"', '"type": "\\u0075ser"', 1)
	open(d + '/esc.jsonl', 'w').write('\n'.join([a, t, a.replace('a0', 'a1'), h]) + '\n')
	b = line('s2', 'assistant', 'b0', 'plan', cwd='/w', version='1.0.53')
	open(d + '/plain.jsonl', 'w').write('\n'.join([b, line('s2', 'user', 'u3', 'use shared memory')]) + '\n')
	# compact JSON as Claude Code writes it: a tool result line (skipped
	# unparsed) before the human line, whose text quotes a tool_result
	# object (escaped inside its string: still parsed, still the name)
	def cline(sid, typ, uuid, content, **k):
	    return json.dumps(dict(type=typ, sessionId=sid, uuid=uuid, message={'role': 'user' if typ == 'user' else 'assistant', 'content': content}, **k), separators=(',', ':'))
	c = [cline('s3', 'assistant', 'c0', 'plan', cwd='/w', version='1.0.53'),
	     cline('s3', 'user', 'c1', [{'type': 'tool_result', 'tool_use_id': 't', 'content': [{'type': 'text', 'text': 'why is it slow'}]}]),
	     cline('s3', 'user', 'c2', 'why does {"type":"tool_result"} stall')]
	open(d + '/compact.jsonl', 'w').write('\n'.join(c) + '\n')
	PY
	grep -q '"type":"tool_result"' "$BATS_TEST_TMPDIR/cc/compact.jsonl"
	grep -q 'u0075ser' "$BATS_TEST_TMPDIR/cc/esc.jsonl"
	run "$KTRAJ" --no-progress import "$BATS_TEST_TMPDIR/cc"
	[ "$status" -eq 0 ]
	run "$KTRAJ" ls --json
	[ "$status" -eq 0 ]
	names=$(printf '%s\n' "$output" | python3 -c 'import json,sys; [print(r["name"], r["meta"]["cwd"], r["meta"]["version"]) for r in map(json.loads, sys.stdin)]' | sort)
	[ "$names" = "$(printf '%s\n' 'tile the GEMM by 128 /w 1.0.53' 'use shared memory /w 1.0.53' 'why does {"type":"tool_result"} stall /w 1.0.53' | sort)" ]
}
