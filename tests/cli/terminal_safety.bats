#!/usr/bin/env bats
# Text from a trajectory is hostile: printed to a terminal it must not
# retitle, clear or reprogram it (issue: a message holding
# ESC ] 0 ; TITLE BEL ESC [ 2 J retitled and cleared the terminal through
# `ktraj show`).  --raw prints the bytes as stored.  `script` gives the
# command a real terminal where the test needs one.

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	# a message with OSC 0 (title), BEL, CSI 2J (clear), CR, DEL and the C1
	# control CSI (U+009B); and a file whose content holds CSI 2J
	h=$(printf 'ok\033[2Jdone\n' | sha256sum | cut -c1-64)
	{
	  echo '{"kind":"message","actor":"user","payload":{"role":"user","human":true,"text":"hi\u001b]0;PWNED\u0007\u001b[2J\rX\u007f\u009b31m end"}}'
	  printf '{"blob":"%s","path":"/w/a.txt","text":"ok\\u001b[2Jdone\\n"}\n' "$h"
	  printf '{"kind":"edit","payload":{"path":"/w/a.txt","op":"create","before":null,"after":"%s","tool":"Write"}}\n' "$h"
	} > "$BATS_TEST_TMPDIR/evil.jsonl"
	"$KTRAJ" append evil < "$BATS_TEST_TMPDIR/evil.jsonl"
}

@test "show: control characters of a message print visibly, never as bytes" {
	run "$KTRAJ" show evil 1
	[ "$status" -eq 0 ]
	[[ "$output" == *'text: hi^[]0;PWNED^G^[[2J^MX^?M-^[31m end'* ]]
	# no ESC, BEL, CR or DEL byte, no C1 CSI left
	! printf '%s' "$output" | LC_ALL=C grep -q $'[\x1b\x07\x0d\x7f]' || false
	! printf '%s' "$output" | LC_ALL=C grep -q $'\xc2\x9b' || false
}

@test "show --raw: the text as stored, escape sequences included" {
	run "$KTRAJ" show evil 1 --raw
	[ "$status" -eq 0 ]
	printf '%s' "$output" | LC_ALL=C grep -q $'\x1b\\]0;PWNED\x07\x1b\\[2J'
}

@test "show --json stays JSON with the controls escaped" {
	run "$KTRAJ" show evil 1 --json
	[ "$status" -eq 0 ]
	[[ "$output" == *'\u001b]0;PWNED\u0007'* ]]
}

@test "cat on a terminal: controls visible; into a pipe: the bytes as stored" {
	command -v script >/dev/null || skip "no script(1)"
	out=$(script -qec "\"$KTRAJ\" cat evil a.txt" /dev/null)
	[[ "$out" == *'ok^[[2Jdone'* ]]
	raw=$(script -qec "\"$KTRAJ\" cat evil a.txt --raw" /dev/null)
	printf '%s' "$raw" | LC_ALL=C grep -q $'ok\x1b\\[2Jdone'
	"$KTRAJ" cat evil a.txt > "$BATS_TEST_TMPDIR/a.out"
	printf 'ok\033[2Jdone\n' | cmp - "$BATS_TEST_TMPDIR/a.out"
}

@test "diff on a terminal: controls of the files print visibly; --raw and pipes as stored" {
	command -v script >/dev/null || skip "no script(1)"
	out=$(script -qec "\"$KTRAJ\" diff evil 1 2" /dev/null)
	[[ "$out" == *'+ok^[[2Jdone'* ]]
	raw=$(script -qec "\"$KTRAJ\" diff evil 1 2 --raw" /dev/null)
	printf '%s' "$raw" | LC_ALL=C grep -q $'\\+ok\x1b\\[2Jdone'
	"$KTRAJ" diff evil 1 2 | LC_ALL=C grep -q $'^\\+ok\x1b\\[2Jdone$'
}
