#!/bin/sh
# include_cycles.sh [ROOT]: fails when the #include "..." lines of the
# production folders make a circle between folders (a folder includes one
# that includes it back, directly or through others).  `make lint` runs it;
# README's "Layout" gives the order the folders keep.
#
# Every quoted include is resolved against the including file's folder, as
# the compiler does without -I; the folder is the first path component under
# ROOT.  Prints the edges ("import -> store (import/import.h:12)") with -v.
# So that no edge goes unseen, it also fails on an include it cannot place:
# a quoted path that names no file from the including file's folder (one
# found through -I would be counted in the wrong folder), a path that
# leaves ROOT, a path into a folder that is not in the list below (whose own
# includes are not read), and `#include MACRO`.
here=$(cd "$(dirname "$0")" && pwd) || exit 2
cd "${1:-.}" || exit 2
mods="base store import analyze replay export cli harness kernels"
files=$(for m in $mods; do
	[ -d "$m" ] && find "$m" -type f \( -name '*.c' -o -name '*.h' -o \
		-name '*.cu' -o -name '*.cuh' \)
done | sort)
[ -n "$files" ] || { echo "include_cycles: no sources under $(pwd)" >&2; exit 2; }
# shellcheck disable=SC2086
bad=$(grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[^"<[:space:]]' $files)
[ -z "$bad" ] || { printf 'include_cycles: an include through a macro cannot be followed:\n%s\n' "$bad"; exit 1; }
known=$(for m in $mods; do [ -d "$m" ] && find "$m" -type f; done)
# shellcheck disable=SC2086
{ printf '%s\n' "$known" | sed 's/^/K /'; grep -HnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]+"' $files; } |
awk -v verbose="${V:-0}" -v modlist="$mods" "$(cat "$here/cycles.awk")"'
function norm(p,   n, a, i, k, out) {
	n = split(p, a, "/"); k = 0
	for (i = 1; i <= n; i++) {
		if (a[i] == "" || a[i] == ".") continue
		if (a[i] == "..") { if (k > 0) k--; else return ""; continue }
		st[++k] = a[i]
	}
	out = st[1]
	for (i = 2; i <= k; i++) out = out "/" st[i]
	return out
}
BEGIN { n = split(modlist, ml, " "); for (i = 1; i <= n; i++) listed[ml[i]] = 1 }
/^K / { exists[substr($0, 3)] = 1; next }
{
	file = $0; sub(/:.*/, "", file)
	rest = substr($0, length(file) + 2); line = rest; sub(/:.*/, "", line)
	inc = rest; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
	dir = file; sub(/\/[^\/]*$/, "", dir)
	tgt = norm(dir "/" inc)
	from = file; sub(/\/.*/, "", from)
	to = tgt; sub(/\/.*/, "", to)
	if (tgt == "") { unplaced = unplaced "\n  " file ":" line ": \"" inc "\" leaves the tree"; next }
	if (!(to in listed)) { unplaced = unplaced "\n  " file ":" line ": \"" inc "\" is in " to "/, a folder this script does not read"; next }
	if (!(tgt in exists)) { unplaced = unplaced "\n  " file ":" line ": \"" inc "\" is no file beside it (-I paths are not followed)"; next }
	if (to == from) next
	if (edge(from, to, file ":" line) && verbose)
		print from " -> " to " (" file ":" line ")"
}
END {
	if (unplaced != "") {
		print "include_cycles: includes it cannot place (fix them, or teach this script):" unplaced
		exit 1
	}
	if (cycle("include_cycles: folders include each other"))
		exit 1
}'
