#!/usr/bin/env bats
# A store the user may not reach is reported as such, not as missing.

@test "a store inside a folder the user cannot enter: 'Permission denied', exit 1 (not 'no store', exit 4)" {
	[ "$(id -u)" = 0 ] || skip "needs root to act as another user"
	command -v setpriv >/dev/null || skip "no setpriv"
	d=$(mktemp -d /tmp/ktraj-locked.XXXXXX)
	echo '{"kind":"note","payload":{"text":"x"}}' | "$KTRAJ" --store "$d/s.ktraj" append a
	chmod 700 "$d"
	# the binary must be reachable by that user
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$KTRAJ" || { rm -rf "$d"; skip "ktraj is not reachable by nobody"; }
	run setpriv --reuid=65534 --regid=65534 --clear-groups "$KTRAJ" --store "$d/s.ktraj" ls
	rm -rf "$d"
	[ "$status" -eq 1 ]
	[ "$output" = "ktraj: ls: cannot open the store $d/s.ktraj: Permission denied" ]
}

@test "a full disk says 'No space left on device' once, for the file and the import (not I/O error, not 'import: import:')" {
	[ "$(id -u)" = 0 ] || skip "needs root to mount a small file system"
	d=$(mktemp -d /tmp/ktraj-full.XXXXXX)
	mount -t tmpfs -o size=400k tmpfs "$d" 2>/dev/null || { rmdir "$d"; skip "cannot mount a tmpfs here"; }
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	# 1 MB of text that does not compress, in one run
	python3 -c '
import base64, json, os
for i in range(64):
    t = base64.b64encode(os.urandom(12000)).decode()
    print(json.dumps({"kind": "note", "payload": {"text": t}}))' > "$BATS_TEST_TMPDIR/big.jsonl"
	run "$KTRAJ" --store "$d/s.ktraj" import "$BATS_TEST_TMPDIR/big.jsonl"
	umount "$d"; rmdir "$d"
	echo "$output"
	[ "$status" -eq 1 ]
	# one line: the file not imported, the reason, and that the import stopped there
	[ "$(printf '%s\n' "$output" | grep -c .)" -eq 1 ]
	[[ "$output" == "ktraj: import: $BATS_TEST_TMPDIR/big.jsonl: not imported: No space left on device (the store's file system is full): import stopped here"* ]]
	# one file and nothing kept: no "0 more files", no "runs listed"
	[ "$output" = "ktraj: import: $BATS_TEST_TMPDIR/big.jsonl: not imported: No space left on device (the store's file system is full): import stopped here; nothing was imported" ]
	[[ "$output" != *"I/O error"* ]]
	[[ "$output" != *"import: import:"* ]]
	[[ "$output" != *"Input/output error"* ]]
}

@test "a full disk in a folder import: the runs before the full file are listed and kept, the files after it counted" {
	[ "$(id -u)" = 0 ] || skip "needs root to mount a small file system"
	d=$(mktemp -d /tmp/ktraj-full.XXXXXX)
	mount -t tmpfs -o size=400k tmpfs "$d" 2>/dev/null || { rmdir "$d"; skip "cannot mount a tmpfs here"; }
	mkdir "$BATS_TEST_TMPDIR/in"
	# names sort a < b < c < d: one small run, then 1 MB that does not
	# compress, then two small runs that are never read
	printf '{"kind":"note","payload":{"text":"small %s"}}\n' a > "$BATS_TEST_TMPDIR/in/a.jsonl"
	python3 -c '
import base64, json, os
for i in range(64):
    t = base64.b64encode(os.urandom(12000)).decode()
    print(json.dumps({"kind": "note", "payload": {"text": t}}))' > "$BATS_TEST_TMPDIR/in/b.jsonl"
	printf '{"kind":"note","payload":{"text":"small %s"}}\n' c > "$BATS_TEST_TMPDIR/in/c.jsonl"
	printf '{"kind":"note","payload":{"text":"small %s"}}\n' d > "$BATS_TEST_TMPDIR/in/d.jsonl"
	run "$KTRAJ" --store "$d/s.ktraj" import "$BATS_TEST_TMPDIR/in"
	out=$output st=$status
	run "$KTRAJ" --store "$d/s.ktraj" ls --json
	umount "$d"; rmdir "$d"
	echo "$out"; echo "$output"
	[ "$st" -eq 1 ]
	[[ "$out" == *"ktraj: import: $BATS_TEST_TMPDIR/in/b.jsonl: not imported: No space left on device (the store's file system is full): import stopped here, 2 more files not read; the runs listed were imported"* ]]
	# the run listed is the one kept: a.jsonl's, and only it
	[ "$(printf '%s\n' "$output" | grep -c '"run"')" -eq 1 ]
	[[ "$output" == *'"name":"a"'* ]]
}
