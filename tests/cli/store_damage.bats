#!/usr/bin/env bats
# A damaged store is exit 3 with one line, never "not a ktraj store" (exit 1),
# and no writer changes it: one bit flipped in LMDB's main database page (the
# page that lists the named databases, FORMAT.md §5 "What is a store file").

bats_require_minimum_version 1.5.0

SAMPLE="$BATS_TEST_DIRNAME/../data/sample/softmax_session.jsonl"
KEY="$BATS_TEST_DIRNAME/../data/store/lmdb_key.py"
R=3db88dd1ab522b4e190e8ab88aad55fa

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
	GOOD="$BATS_TEST_TMPDIR/good.ktraj"
	if [ ! -e "$GOOD" ]; then
		"$KTRAJ" --store "$GOOD" import "$SAMPLE" >/dev/null
		rm -f "$GOOD-lock"
	fi
}

# copy the good store to $KTRAJ_STORE with byte $1 XOR $2
flip() {
	local b
	cp "$GOOD" "$KTRAJ_STORE"
	rm -f "$KTRAJ_STORE-lock"
	b=$(od -An -tu1 -j "$1" -N1 "$GOOD")
	printf "$(printf '\\%03o' $((b ^ $2)))" |
		dd of="$KTRAJ_STORE" bs=1 seek="$1" conv=notrunc status=none
	! cmp -s "$GOOD" "$KTRAJ_STORE"
}

# the commands in CMDS (default: readers and writers): exit 3, one line
# naming the damage, the file as it was
expect_damaged() {
	local want="$1" sum cmd c
	sum=$(sha256sum "$KTRAJ_STORE" | cut -d' ' -f1)
	[ ${#CMDS[@]} -gt 0 ] ||
		CMDS=(ls verify "log $R" "show 3db8 1" init "import $SAMPLE" "append fresh")
	for cmd in "${CMDS[@]}"; do
		run --separate-stderr "$KTRAJ" $cmd </dev/null
		c=${cmd%% *}
		echo "$cmd: $status $stderr"
		[ "$status" -eq 3 ]
		[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
		[[ "$stderr" == "ktraj: $c: $KTRAJ_STORE: "*"$want"* ]]
		[[ "$stderr" != *"not a ktraj store"* ]]
		[ "$(sha256sum "$KTRAJ_STORE" | cut -d' ' -f1)" = "$sum" ]
	done
	run --separate-stderr "$KTRAJ" verify --json
	[ "$status" -eq 3 ]
	[[ "$output" == '{"ok":false,"run":"","seq":0,"error":"'*"$want"* ]]
}

@test "a named database's key flipped in LMDB's main database page: damaged (exit 3), not 'not a ktraj store', for every database" {
	offs=$(python3 "$KEY" "$GOOD" meta runs run_names ev_blocks ev_pages blobs blob_heads paths dicts run_sums)
	[ "$(echo "$offs" | wc -l)" -eq 10 ]
	# a reader and the writers (the other readers open the same way,
	# the next tests run them all)
	CMDS=("log $R" "import $SAMPLE" "append fresh")
	for off in $offs; do
		# the first byte's high bit moves the key out of order; its low
		# bit gives another name in place
		for mask in 0x80 0x01; do
			flip "$off" "$mask"
			expect_damaged "damaged store: LMDB's main database"
		done
	done
	# the good store is untouched by all this
	run "$KTRAJ" --store "$GOOD" verify
	[ "$status" -eq 0 ]
}

@test "a main database entry that is not a database record (F_SUBDATA cleared): a damaged page, exit 3" {
	for off in $(python3 "$KEY" "$GOOD" meta@flags paths@flags); do
		flip "$off" 0x02
		expect_damaged "damaged LMDB page"
	done
}

@test "the format key of the meta database flipped: damaged (exit 3), no writer takes the store over" {
	flip "$(python3 "$KEY" "$GOOD" meta/format)" 0x01
	expect_damaged "damaged store: its meta database holds no format record"
}

@test "another program's LMDB file with one database of a ktraj name is still not a ktraj store (exit 1), left as it was" {
	command -v mdb_load >/dev/null || skip "mdb_load not installed (lmdb-utils)"
	for db in meta paths; do
		f="$BATS_TEST_TMPDIR/other-$db.mdb"
		printf 'VERSION=3\nformat=print\ntype=btree\nHEADER=END\n k\n v\nDATA=END\n' |
			mdb_load -n -s "$db" "$f"
		sum=$(sha256sum "$f" | cut -d' ' -f1)
		for cmd in ls "import $SAMPLE"; do
			run --separate-stderr "$KTRAJ" --store "$f" $cmd
			[ "$status" -eq 1 ]
			[[ "$stderr" == "ktraj: ${cmd%% *}: $f: not a ktraj store"* ]]
		done
		[ "$(sha256sum "$f" | cut -d' ' -f1)" = "$sum" ]
	done
}
