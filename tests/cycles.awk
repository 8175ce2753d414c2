# cycles.awk - the graph half of tests/include_cycles.sh and
# tests/link_cycles.sh, put in front of each one's awk program: an edge is
# added with edge(from, to, why); at the end cycle(what) prints the first
# circle found ("<what>: a -> b -> a" and one line per edge with its why)
# and returns 1, or returns 0 when the edges go one way.
function edge(from, to, why) {
	if ((from, to) in seen) return 0
	seen[from, to] = why
	out[from, ++nout[from]] = to
	nodes[from] = nodes[to] = 1
	return 1
}
function visit(m,   i, j, t) {
	color[m] = 1; path[++depth] = m
	for (i = 1; i <= nout[m]; i++) {
		t = out[m, i]
		if (color[t] == 1) {
			cyc = t
			for (j = depth; j >= 1 && path[j] != t; j--) cyc = path[j] " -> " cyc
			cyc = t " -> " cyc
			return 1
		}
		if (!color[t] && visit(t)) return 1
	}
	color[m] = 2; depth--
	return 0
}
function cycle(what,   m, n, i, c) {
	for (m in nodes)
		if (!color[m] && visit(m)) {
			print what ": " cyc
			n = split(cyc, c, " -> ")
			for (i = 1; i < n; i++)
				print "  " c[i] " -> " c[i + 1] ": " seen[c[i], c[i + 1]]
			return 1
		}
	return 0
}
