#!/bin/sh
# link_cycles.sh BUILD [OBJ...]: fails when the compiled modules call each
# other in a circle: a module that needs (nm: undefined) a symbol another
# module defines depends on it, whatever its includes say.  An `extern`
# written in a .c file, a declaration in a header of the lower module, or a
# table of function pointers filled by name all make such an edge without
# an #include, so tests/include_cycles.sh cannot see them; this reads the
# objects instead.  `make lint` runs it on the objects it built.
#
# The module of an object is the first path component under BUILD
# (BUILD/import/registry.o is import/); the objects are those given, or
# every *.o under BUILD's module folders (name them when BUILD may hold
# objects of sources that are gone).  Prints the edges ("import -> store
# (import/driver.o needs kt_store_open)") with V=1.
here=$(cd "$(dirname "$0")" && pwd) || exit 2
b=${1:?usage: link_cycles.sh BUILD [OBJ...]}
shift
b=${b%/}
mods="base store import analyze replay export cli"
if [ $# -eq 0 ]; then
	# shellcheck disable=SC2046
	set -- $(for m in $mods; do [ -d "$b/$m" ] && find "$b/$m" -name '*.o'; done | sort)
fi
[ $# -gt 0 ] || { echo "link_cycles: no objects under $b" >&2; exit 2; }
NM=${NM:-nm}
for o in "$@"; do
	case $o in "$b"/*) ;; *) echo "link_cycles: $o is not under $b" >&2; exit 2 ;; esac
done
syms=$(mktemp) || exit 2
trap 'rm -f "$syms"' EXIT
# one nm for all: POSIX format with the file first ("B/import/x.o: name
# type [value size]"); -g: external symbols only
"$NM" -P -g -A "$@" >"$syms" || { echo "link_cycles: $NM failed" >&2; exit 2; }
awk -v verbose="${V:-0}" -v modlist="$mods" -v b="$b/" "$(cat "$here/cycles.awk")"'
BEGIN { n = split(modlist, ml, " "); for (i = 1; i <= n; i++) listed[ml[i]] = 1 }
{
	obj = substr($1, length(b) + 1); sub(/:$/, "", obj)
	sym = $2; type = $3
	mod = obj; sub(/\/.*/, "", mod)
	if (!(mod in listed)) {
		if (!(obj in strays)) { strays[obj] = 1; stray = stray "\n  " obj }
		next
	}
	if (type == "U") { nu++; uobj[nu] = obj; umod[nu] = mod; usym[nu] = sym }
	else if (type != "w" && type != "v") def[sym] = mod
}
END {
	if (stray != "") {
		print "link_cycles: objects outside the modules " modlist ":" stray
		exit 2
	}
	for (i = 1; i <= nu; i++) {
		if (!(usym[i] in def)) continue   # the C library, LMDB, zstd...
		from = umod[i]; to = def[usym[i]]
		if (from != to && edge(from, to, uobj[i] " needs " usym[i]) && verbose)
			print from " -> " to " (" seen[from, to] ")"
	}
	if (cycle("link_cycles: modules call each other"))
		exit 1
}' "$syms"
