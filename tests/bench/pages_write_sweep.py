#!/usr/bin/env python3
"""pages_write_sweep.py KTRAJ STORE [MAX] - single-byte changes of the LMDB
page headers of a store (LMDB 0.9, 64-bit, 4096-byte pages: pgno 8, pad 2,
flags 2, lower 2, upper 2), each xor 0xff and + 1, every page whose flags
are a branch, leaf, overflow or meta page's; after each, `ktraj verify`,
`ktraj append sweep` of one event, `ktraj verify` again, and the file gets
its bytes back.  Prints the tally of (verify before, append, file changed,
verify after) exit codes and the bad cases: a command killed by a signal
(LMDB trusted a damaged page), a refused append that changed the file, an
append that spoiled a store that verified before.  Exits 1 on any.  Not a
timed test: ~40 ms a change on the build machine.  MAX takes every k-th
change to keep to about MAX of them.
"""
import collections
import os
import struct
import subprocess
import sys

ktraj, store = sys.argv[1], sys.argv[2]
limit = int(sys.argv[3]) if len(sys.argv) > 3 else 0
orig = open(store, 'rb').read()
PS, HDR = 4096, 16
changes = []
for p in range(0, len(orig) - PS + 1, PS):
	if struct.unpack_from('<H', orig, p + 10)[0] not in (1, 2, 4, 8):
		continue
	for i in range(HDR):
		changes.append((p + i, orig[p + i] ^ 0xff))
		changes.append((p + i, (orig[p + i] + 1) & 0xff))
if limit and len(changes) > limit:
	changes = changes[::-(-len(changes) // limit)]
env = dict(os.environ, KTRAJ_STORE=store)
event = b'{"kind":"note","payload":{"text":"sweep"}}\n'


def run(*args, stdin=None):
	return subprocess.run([ktraj, *args], env=env, input=stdin,
			      capture_output=True)


def code(r):  # a signal as 128 + N, as a shell shows it
	return 128 - r.returncode if r.returncode < 0 else r.returncode


tally = collections.Counter()
bad = []
try:
	for off, val in changes:
		d = bytearray(orig)
		d[off] = val
		open(store, 'wb').write(d)
		v0 = code(run('verify'))
		a = run('append', 'sweep', stdin=event)
		changed = open(store, 'rb').read() != bytes(d)
		v1 = run('verify')
		k = (v0, code(a), changed, code(v1))
		tally[k] += 1
		if (max(v0, k[1], k[3]) >= 128 or (k[1] != 0 and changed) or
		    (v0 == 0 and k[1] == 0 and k[3] != 0)):
			bad.append((off, orig[off], val, k,
				    a.stderr.decode(errors='replace').strip(),
				    v1.stderr.decode(errors='replace').strip()))
finally:
	open(store, 'wb').write(orig)
print("%d changes of %s (%d bytes)" % (len(changes), store, len(orig)))
print("(verify before, append, file changed, verify after): count")
for k, v in sorted(tally.items()):
	print("  %s: %d" % (k, v))
print("bad: %d" % len(bad))
for off, o, v, k, ea, ev in bad[:20]:
	print("  page %d +%d 0x%02x -> 0x%02x %s | %s | %s" %
	      (off // PS, off % PS, o, v, k, ea[-160:], ev[-160:]))
sys.exit(1 if bad else 0)
