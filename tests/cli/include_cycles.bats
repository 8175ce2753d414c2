#!/usr/bin/env bats
# tests/include_cycles.sh, the `make lint` step that keeps the folders'
# includes one-way: the tree passes, and a planted circle is named with the
# include lines that make it.

ROOT="$BATS_TEST_DIRNAME/../.."

@test "include_cycles: the tree's folders include each other in one direction" {
	run sh "$ROOT/tests/include_cycles.sh" "$ROOT"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	V=1 run sh "$ROOT/tests/include_cycles.sh" "$ROOT"
	[[ "$output" == *"import -> store (import/"* ]]
	[[ "$output" != *"store -> import"* ]]
}

@test "include_cycles: a circle through three folders fails and names each include" {
	t="$BATS_TEST_TMPDIR/t"
	mkdir -p "$t/store" "$t/import" "$t/analyze/sub"
	printf '#include "../import/import.h"\n' >"$t/store/a.c"
	printf '#include <stdio.h>\n#include "../analyze/sub/x.h"\n' >"$t/import/import.h"
	printf '#include "../../store/store.h"\n' >"$t/analyze/sub/x.h"
	printf '#include "store.h"\n' >"$t/store/b.c"
	: >"$t/store/store.h" # an include of a file that is not there fails
	run sh "$ROOT/tests/include_cycles.sh" "$t"
	[ "$status" -eq 1 ]
	[[ "$output" == *"folders include each other"* ]]
	[[ "$output" == *"store -> import: store/a.c:1"* ]]
	[[ "$output" == *"import -> analyze: import/import.h:2"* ]]
	[[ "$output" == *"analyze -> store: analyze/sub/x.h:1"* ]]
	# the same tree without the include back is fine
	printf '#include "x.h"\n' >"$t/analyze/sub/x.h"
	run sh "$ROOT/tests/include_cycles.sh" "$t"
	[ "$status" -eq 0 ]
}
