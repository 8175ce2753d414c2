#!/usr/bin/env bats
# A damaged store is exit 3 with one line, never "not a ktraj store" (exit 1)
# nor another command's complaint, and no writer changes it: one bit flipped
# in LMDB's main database page (the page that lists the named databases,
# FORMAT.md §5 "Damaged, or not a store") or in a run record (§6.10) that a
# command resolves by name, id or id prefix.

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
	! cmp -s "$GOOD" "$KTRAJ_STORE" || false
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

# one bit of the name $1 in its run record, not in its run_names key: the
# record holds be16 length then the name, the key starts with the name
# after LMDB's node header (LMDB keeps older copies of pages: all of them)
flip_record() {
	python3 - "$GOOD" "$KTRAJ_STORE" "$1" <<'PY'
import struct, sys
src, dst, name = sys.argv[1], sys.argv[2], sys.argv[3].encode()
d = bytearray(open(src, 'rb').read())
n = 0
i = d.find(name)
while i >= 0:
    if d[i - 2:i] == struct.pack('>H', len(name)):
        d[i + 2] ^= 1
        n += 1
    i = d.find(name, i + 1)
assert n >= 1
open(dst, 'wb').write(d)
PY
	rm -f "$KTRAJ_STORE-lock"
}

@test "a damaged run record: every command resolving the run by name, id or prefix exits 3 with the damage line; append adds nothing" {
	NAME=$("$KTRAJ" --store "$GOOD" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["name"])')
	cp "$GOOD" "$KTRAJ_STORE"
	rm -f "$KTRAJ_STORE-lock"
	python3 - "$KTRAJ_STORE" <<'PY'
import sys
p = sys.argv[1]
d = bytearray(open(p, 'rb').read())
m = b'"cwd":"/home/dev/softmax"'
i = d.find(m); n = 0
while i >= 0:
    d[i + 2] ^= 1; n += 1
    i = d.find(m, i + 1)
assert n >= 1
open(p, 'wb').write(d)
PY
	sum=$(sha256sum "$KTRAJ_STORE" | cut -d' ' -f1)
	bad="run $R: the run record (name, format, meta, created) does not match its checksum"
	for spec in "$NAME" "$R" 3db88dd1; do
		for cmd in "append" "log" "show @ 1" "export" "cat @ softmax.cu" "diff @ 1 2" \
			   "blame speedup @" "stats" "stalls" "questions suggest @" "replay @ 1"; do
			set -- $cmd
			c=$1
			args=()
			shift
			for a in "$@"; do [ "$a" = @ ] && args+=("$spec") || args+=("$a"); done
			[[ "$cmd" == *@* ]] || args+=("$spec")
			run --separate-stderr "$KTRAJ" "$c" "${args[@]}" <<<'{"kind":"note","payload":{"text":"x"}}'
			echo "$c ${args[*]}: $status $stderr"
			[ "$status" -eq 3 ]
			[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
			[[ "$stderr" == "ktraj: $c: "*": corrupt data: $bad" ]]
		done
		run --separate-stderr "$KTRAJ" search softmax --run "$spec"
		[ "$status" -eq 3 ]
		[[ "$stderr" == *": $bad" ]]
		# verify reports it in its own words, --json included
		run --separate-stderr "$KTRAJ" verify "$spec" --json
		[ "$status" -eq 3 ]
		echo "$output" | python3 -c 'import json,sys; o=json.load(sys.stdin); assert o["ok"] is False and o["run"]==sys.argv[1] and o["seq"]==0 and "checksum" in o["error"], o' "$R"
	done
	[ "$(sha256sum "$KTRAJ_STORE" | cut -d' ' -f1)" = "$sum" ]
}

@test "a run record whose name is damaged: append NAME refuses (exit 3) instead of starting a new run of that name" {
	NAME=$("$KTRAJ" --store "$GOOD" ls --json | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["name"])')
	flip_record "$NAME"
	sum=$(sha256sum "$KTRAJ_STORE" | cut -d' ' -f1)
	run --separate-stderr "$KTRAJ" append "$NAME" <<<'{"kind":"note","payload":{"text":"x"}}'
	[ "$status" -eq 3 ]
	[[ "$stderr" == "ktraj: append: $NAME: corrupt data: run $R: the run record"* ]]
	[ "$(sha256sum "$KTRAJ_STORE" | cut -d' ' -f1)" = "$sum" ]
	run "$KTRAJ" log "$NAME"
	[ "$status" -eq 3 ]
}

@test "a damaged event blame, stalls and questions suggest do not read (or read as other text): exit 3 with one line, as log" {
	# one byte flipped at a time across the store: wherever `log` (which
	# finds damage that breaks a block; the chain is the analyzers' and
	# verify's check) finds damage, the analyzers must not print a
	# result from what is left (before: exit 0, a changed path or a
	# missing event went unnoticed)
	python3 - "$KTRAJ" "$GOOD" "$BATS_TEST_TMPDIR/f.ktraj" <<'PY'
import os, subprocess, sys
k, good, t = sys.argv[1:]
d = open(good, 'rb').read()
seen = 0
for off in range(8192, len(d), 157):
    b = bytearray(d); b[off] ^= 0x10
    open(t, 'wb').write(b)
    if os.path.exists(t + '-lock'):
        os.remove(t + '-lock')
    lg = subprocess.run([k, '--store', t, 'log', '3db8'], capture_output=True)
    if lg.returncode != 3:
        continue
    seen += 1
    if seen > 40:
        break
    for cmd in (['blame', 'speedup', '3db8'], ['stalls', '3db8'],
                ['questions', 'suggest', '3db8']):
        p = subprocess.run([k, '--store', t] + cmd, capture_output=True, text=True)
        lines = p.stderr.splitlines()
        assert p.returncode == 3 and len(lines) == 1 and \
            lines[0].startswith('ktraj: %s: ' % cmd[0]), \
            (off, cmd, p.returncode, p.stderr)
assert seen >= 10, seen
print(seen, 'damaged stores')
PY
}

@test "a damaged blob of a jump's edit: report exits 3 with one line, as diff, instead of calling the content missing" {
	# one byte flipped at a time over the store: wherever `diff` of the
	# edits of the sample's second jump finds a blob that does not decode to
	# its hash, report must not write a page that says the trajectory does
	# not hold the content (before: exit 0 and "content not in the
	# trajectory" in the jump's diff)
	python3 - "$KTRAJ" "$GOOD" "$BATS_TEST_TMPDIR/f.ktraj" "$BATS_TEST_TMPDIR/r.html" <<'PY'
import os, subprocess, sys
k, good, t, out = sys.argv[1:]
d = open(good, 'rb').read()
seen = 0
for off in range(8192, len(d), 61):
    b = bytearray(d); b[off] ^= 0x10
    open(t, 'wb').write(b)
    if os.path.exists(t + '-lock'):
        os.remove(t + '-lock')
    df = subprocess.run([k, '--store', t, 'diff', '3db8', '26', '34'],
                        capture_output=True, text=True)
    if df.returncode != 3 or 'blob' not in df.stderr:
        continue
    # a flip in the path index names a blob that does not exist: diff
    # (which reads the index) calls that damage, report reads the edit's
    # own hash from its event and is right to go on
    if 'no blob' in df.stderr:
        continue
    seen += 1
    if os.path.exists(out):
        os.remove(out)
    p = subprocess.run([k, '--store', t, 'report', '3db8', '-o', out],
                       capture_output=True, text=True)
    lines = p.stderr.splitlines()
    assert p.returncode == 3 and len(lines) == 1 and \
        lines[0].startswith('ktraj: report: ') and 'blob' in lines[0], \
        (off, p.returncode, p.stderr)
    # and no half page is left behind
    assert not os.path.exists(out), off
assert seen >= 3, seen
print(seen, 'damaged blobs')
PY
}

@test "an edit's blob missing from the store (its key flipped): cat and diff exit 3 naming the blob, never 'did not exist yet' (exit 4)" {
	# every place the store holds the binary hash of the file's content
	# after step 34; flipping the one that is the blob's key leaves the
	# edit naming a blob the store does not hold
	local offs seen=0 o
	offs=$(python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
h = bytes.fromhex("393ae8ab5b0cf54dd3af48876228e51ea330f97ee65e4ea22e7d88aad3029c93")
i = d.find(h)
while i >= 0:
    print(i + 4)
    i = d.find(h, i + 1)' "$GOOD")
	[ -n "$offs" ]
	for o in $offs; do
		flip "$o" 16
		run "$KTRAJ" cat 3db8 softmax.cu --at 34
		[ "$status" -ne 0 ] || continue
		echo "offset $o: $status $output"
		[ "$status" -eq 3 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "ktraj: cat: "*blob* ]]
		[[ "$output" != *"did not exist"* ]]
		run "$KTRAJ" diff 3db8 26 34
		[ "$status" -eq 3 ]
		[[ "$output" == "ktraj: diff: "*blob* ]]
		seen=$((seen + 1))
	done
	[ "$seen" -ge 1 ]
}

@test "a byte flipped in a run's id key: ls lists the sound runs, then one line naming the damaged id, exit 3 (verify agrees)" {
	TWO="$BATS_TEST_TMPDIR/two.ktraj"
	"$KTRAJ" --store "$TWO" import "$SAMPLE" \
		"$BATS_TEST_DIRNAME/../data/replay/cc_bench_session.jsonl" >/dev/null
	rm -f "$TWO-lock"
	off=$(python3 "$KEY" "$TWO" "runs/hex:$R")
	# the id's last byte: the key stays in order, LMDB's pages stay sound
	GOOD="$TWO" flip $((off + 15)) 1
	bad=${R%?}b
	for json in "" --json; do
		run --separate-stderr "$KTRAJ" ls $json
		echo "$status $output $stderr"
		[ "$status" -eq 3 ]
		[ "$stderr" = "ktraj: ls: $KTRAJ_STORE: corrupt data: run $bad: its key does not match its record (its name is not indexed under this id): a damaged run id" ]
		[[ "$output" == *645f1b7e727f* ]]
		[[ "$output" != *3db88dd1ab52* ]]
	done
	run "$KTRAJ" verify
	[ "$status" -eq 3 ]
	# the sound store lists both, exit 0
	run "$KTRAJ" --store "$TWO" ls
	[ "$status" -eq 0 ]
	[[ "$output" == *645f1b7e727f* ]]
	[[ "$output" == *3db88dd1ab52* ]]
}

@test "a run whose id key is flipped, named by its name or its full id: damaged (exit 3, one line naming the id), never 'no run' (exit 4)" {
	TWO="$BATS_TEST_TMPDIR/two.ktraj"
	"$KTRAJ" --store "$TWO" import "$SAMPLE" \
		"$BATS_TEST_DIRNAME/../data/replay/cc_bench_session.jsonl" >/dev/null
	rm -f "$TWO-lock"
	NAME=$("$KTRAJ" --store "$TWO" ls --json | python3 -c 'import json,sys; print([r["name"] for r in map(json.loads, sys.stdin) if r["run"] == sys.argv[1]][0])' "$R")
	[ -n "$NAME" ]
	off=$(python3 "$KEY" "$TWO" "runs/hex:$R")
	GOOD="$TWO" flip $((off + 15)) 1
	sum=$(sha256sum "$KTRAJ_STORE" | cut -d' ' -f1)
	# its name stays in run_names and its events in ev_blocks, under R
	for cmd in log show export cat; do
		case $cmd in
		show) args=("$NAME" 1) ;;
		cat) args=("$NAME" x) ;;
		*) args=("$NAME") ;;
		esac
		run --separate-stderr "$KTRAJ" $cmd "${args[@]}"
		echo "$cmd: $status $stderr"
		[ "$status" -eq 3 ]
		[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
		[[ "$stderr" == "ktraj: $cmd: "*"run $R: "*"damaged run id"* ]]
		[[ "$stderr" != *"no run"* ]]
	done
	run --separate-stderr "$KTRAJ" log "$R"
	echo "log R: $status $stderr"
	[ "$status" -eq 3 ]
	[[ "$stderr" == "ktraj: log: "*"run $R: "*"damaged run id"* ]]
	[ "$(sha256sum "$KTRAJ_STORE" | cut -d' ' -f1)" = "$sum" ]
	# the sound run is found as before, and a name no run has is still exit 4
	run "$KTRAJ" log 645f1b7e727f
	[ "$status" -eq 0 ]
	run --separate-stderr "$KTRAJ" log "no such run name"
	[ "$status" -eq 4 ]
	[[ "$stderr" == *"no run 'no such run name'"* ]]
}
