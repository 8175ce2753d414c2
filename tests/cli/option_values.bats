#!/usr/bin/env bats
# An option that takes a value, given last with nothing after it, is a
# usage error that says so: one line "ktraj: CMD: OPT needs a value (see
# `ktraj CMD --help`)", exit 2 - not "unknown option" (cli_bad_option in
# cli/main.c reads which options take a value from the command's usage).
# Options are parsed before the store is opened: RUN needs not exist.

setup() {
	export KTRAJ_STORE="$BATS_TEST_TMPDIR/s.ktraj"
}

# needs CMD ARGS... : the last of ARGS is an option left without its value
needs() {
	local c=$1 opt=${!#}
	run "$KTRAJ" "$@" </dev/null
	echo "$*: $output"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "ktraj: $c: $opt needs a value (see \`ktraj $c --help\`)" ]
}

@test "every option that takes a value, given last: 'OPT needs a value', exit 2, one line" {
	needs log r --kind
	needs log r --from
	needs log r --to
	needs cat r p --at
	needs diff r 1 2 -U
	needs export r --format
	needs export r -o
	needs export r --partition
	needs export r --bundle
	needs export r --step
	needs import --format
	needs replay r 1 --timeout
	needs replay r 1 --mem
	needs replay r 1 --cache
	needs search x --run
	needs search x --kind
	needs search x --limit
	needs bench --task
	needs bench --kernel
	needs blame speedup r --z
	needs stalls r --patience
	needs report r -o
	needs questions suggest r --library
	needs questions mine -o
}

@test "every bracketed '[--opt VALUE]' of every command's synopsis, given last, needs a value" {
	cmds=$("$KTRAJ" --help | sed -n '/^commands:/,/^$/p' | awk 'NF && $1 != "commands:" {print $1}')
	# "CMD SUB OPT" for each such option of each synopsis line (the lines
	# up to the first blank one), SUB the subcommand of its line or "-"
	list=$(for c in $cmds; do
		"$KTRAJ" "$c" --help | sed '/^$/q' | awk -v c="$c" '
			$2 == "ktraj" || $1 == "ktraj" {
				i = $1 == "ktraj" ? 3 : 4
				sub_ = $i ~ /^[a-z]+$/ ? $i : "-"
			}
			{
				s = $0
				while (match(s, /\[--?[a-zA-Z][-a-zA-Z]* [A-Za-z][^] ]*\]/)) {
					o = substr(s, RSTART + 1, RLENGTH - 2)
					sub(/ .*/, "", o)
					print c, sub_, o
					s = substr(s, RSTART + RLENGTH)
				}
			}'
	done | sort -u)
	echo "$list"
	[ "$(echo "$list" | wc -l)" -ge 20 ]
	while read -r c s o; do
		# bench and ls take no RUN
		if [ "$c" = bench ] || [ "$c" = ls ]; then needs "$c" "$o"
		# hook install takes no RUN either
		elif [ "$c" = hook ]; then needs "$c" "$s" "$o"
		elif [ "$s" = - ]; then needs "$c" r "$o"
		else needs "$c" "$s" r "$o"; fi
	done <<<"$list"
}

@test "an option no command knows is still 'unknown option'; a value that is there is used" {
	run "$KTRAJ" log r --nope
	[ "$status" -eq 2 ]
	[ "$output" = "ktraj: log: unknown option '--nope' (see \`ktraj log --help\`)" ]
	run "$KTRAJ" import -C
	[ "$status" -eq 2 ]
	[ "$output" = "ktraj: import: unknown option '-C' (see \`ktraj import --help\`)" ]
	run "$KTRAJ" log r --kind nosuch
	[ "$status" -eq 2 ]
	[ "$output" = "ktraj: log: unknown kind 'nosuch' (valid: message, tool_call, tool_result, edit, compile, bench, profile, question, replay or note) (see \`ktraj log --help\`)" ]
	run "$KTRAJ" import --format nosuch x
	[ "$status" -eq 2 ]
	[ "$output" = "ktraj: import: unknown format 'nosuch' (see \`ktraj import --help\`)" ]
}

# needs_before CMD ARGS... OPT NEXT: OPT is followed by another option
needs_before() {
	local c=$1 n=$(($# - 1))
	local opt=${!n}
	run "$KTRAJ" "$@" </dev/null
	echo "$*: $output"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "ktraj: $c: $opt needs a value (see \`ktraj $c --help\`)" ]
}

@test "an option that takes a value followed by another option: 'OPT needs a value', not the next option taken for the value" {
	# the case that was reported: -o taken for the format, x left over
	run "$KTRAJ" export r --format -o x
	[ "$status" -eq 2 ]
	[ "$output" = "ktraj: export: --format needs a value (see \`ktraj export --help\`)" ]
	run "$KTRAJ" import --format --strict x
	[ "$output" = "ktraj: import: --format needs a value (see \`ktraj import --help\`)" ]
	run "$KTRAJ" import --max-size --json x
	[ "$output" = "ktraj: import: --max-size needs a value (see \`ktraj import --help\`)" ]
	run "$KTRAJ" log r --kind --from 3
	[ "$output" = "ktraj: log: --kind needs a value (see \`ktraj log --help\`)" ]
	run "$KTRAJ" search x --run --
	[ "$output" = "ktraj: search: --run needs a value (see \`ktraj search --help\`)" ]
	# every option of the list above and of every synopsis, before --json
	for a in "log r --kind" "log r --from" "log r --to" "cat r p --at" "diff r 1 2 -U" \
		"export r --format" "export r -o" "export r --partition" "export r --bundle" \
		"export r --step" "import --format" "import --max-size" "import --max-ratio" \
		"replay r 1 --timeout" "replay r 1 --mem" "replay r 1 --cache" \
		"search x --run" "search x --kind" "search x --limit" "bench --task" "bench --kernel" \
		"bench --scenarios" "bench --record" "bench --baseline" "blame speedup r --z" \
		"blame speedup r --min-gain" "blame speedup r --seed" "stalls r --patience" \
		"stalls r --stall-calls" "report r -o" "report r --z" "questions suggest r --library" \
		"questions suggest r -n" "questions mine -o"; do
		needs_before $a --json
		needs_before $a -x
	done
	# --store (global): the same check, its own words
	run "$KTRAJ" --store --json ls
	[ "$status" -eq 2 ]
	[ "$output" = "ktraj: --store needs a path" ]
}

@test "a value that starts with '-' but is no option is still a value: '-' and negative numbers" {
	run "$KTRAJ" log r --kind -
	[ "$status" -eq 2 ]
	[ "$output" = "ktraj: log: unknown kind '-' (valid: message, tool_call, tool_result, edit, compile, bench, profile, question, replay or note) (see \`ktraj log --help\`)" ]
	run "$KTRAJ" blame speedup r --z -1
	[ "$status" -eq 2 ]
	[ "$output" = "ktraj: blame: --z: bad value '-1': valid from 0 to 100 (see \`ktraj blame --help\`)" ]
	run "$KTRAJ" diff r 1 2 -U -3
	[ "$output" = "ktraj: diff: -U needs a number of lines (see \`ktraj diff --help\`)" ]
	# --opt=VALUE takes any value
	run "$KTRAJ" export r --format=-o
	[ "$status" -eq 2 ]
	[[ "$output" =~ ^"ktraj: export: unknown format '-o' ("([a-z0-9_, ]+)") (see \`ktraj export --help\`)"$ ]]
	# the list comes from the exporter table: the same formats as the
	# --format lines of `ktraj export --help` (written by hand there)
	listed=$(printf '%s\n' "${BASH_REMATCH[1]}" | tr -d ' ' | tr ',' '\n' | sort)
	helped=$("$KTRAJ" export --help | grep -o -- '--format [a-z0-9_|]*' |
		sed 's/^--format //' | tr '|' '\n' | sort -u)
	[ -n "$listed" ]
	[ "$listed" = "$helped" ]
}
