#!/usr/bin/env bats
# tests/link_cycles.sh, the `make lint` step that reads the objects: a
# module that calls a symbol of a module that depends on it is a circle no
# include shows (an extern in a .c file).  The built tree passes; planted
# objects that call each other fail with the symbol behind each edge.

ROOT="$BATS_TEST_DIRNAME/../.."

@test "link_cycles: the built modules call each other in one direction" {
	B=$(dirname "$KTRAJ")
	[ -f "$B/import/registry.o" ] || skip "no objects beside $KTRAJ"
	run sh "$ROOT/tests/link_cycles.sh" "$B"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	V=1 run sh "$ROOT/tests/link_cycles.sh" "$B"
	[[ "$output" == *"replay -> import (replay/"* ]]
	# the replay-result importer is registered, not named by import/
	[[ "$output" != *"import -> replay"* ]]
}

@test "link_cycles: an extern call back into a higher module fails and names the symbols" {
	command -v cc >/dev/null || skip "no C compiler"
	t="$BATS_TEST_TMPDIR/b"
	mkdir -p "$t/store" "$t/import" "$t/replay"
	# import calls store, replay calls import, and import names replay's
	# importer by an extern of its own: no header says so
	printf 'int st_get(void) { return 1; }\n' >"$t/s.c"
	printf 'int st_get(void);\nextern const int rp_imp;\nint im_run(void) { return st_get() + rp_imp; }\n' >"$t/i.c"
	printf 'int im_run(void);\nconst int rp_imp = 2;\nint rp_go(void) { return im_run(); }\n' >"$t/r.c"
	cc -c -o "$t/store/s.o" "$t/s.c"
	cc -c -o "$t/import/i.o" "$t/i.c"
	cc -c -o "$t/replay/r.o" "$t/r.c"
	run sh "$ROOT/tests/link_cycles.sh" "$t"
	[ "$status" -eq 1 ]
	[[ "$output" == *"modules call each other"* ]]
	[[ "$output" == *"import -> replay: import/i.o needs rp_imp"* ]]
	[[ "$output" == *"replay -> import: replay/r.o needs im_run"* ]]
	# without the call back the same objects pass
	printf 'int st_get(void);\nint im_run(void) { return st_get(); }\n' >"$t/i.c"
	cc -c -o "$t/import/i.o" "$t/i.c"
	run sh "$ROOT/tests/link_cycles.sh" "$t" "$t/store/s.o" "$t/import/i.o" "$t/replay/r.o"
	[ "$status" -eq 0 ]
	# an object outside the module folders is refused, not skipped
	mkdir -p "$t/misc" && cp "$t/store/s.o" "$t/misc/"
	run sh "$ROOT/tests/link_cycles.sh" "$t" "$t/misc/s.o"
	[ "$status" -eq 2 ]
	[[ "$output" == *"outside the modules"* ]]
}
