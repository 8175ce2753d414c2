#!/usr/bin/env python3
"""Print file offsets in the live LMDB leaf pages of a store, one a line.

usage: lmdb_key.py STORE SPEC...
  SPEC NAME         the key of database NAME in the main database
       NAME@flags   the node flags of that entry
       DB/KEY       key KEY of named database DB (its root page, a leaf)
       DB/hex:HEX   the same for a binary key given in hex (a run id)

For the CLI tests that damage a store below LMDB: the layout is LMDB 0.9's
(mdb.c: 16-byte page header, MDB_meta after it, MDB_node = lo, hi, flags,
ksize (u16 each) then the key), little-endian, 64-bit; see
store/store_pages.c.
"""
import struct
import sys


def leaf_nodes(d, psize, pg):
    base = pg * psize
    flags, lower = struct.unpack_from('<HH', d, base + 10)
    assert flags == 2, 'page %d is not a leaf (flags 0x%x)' % (pg, flags)
    for i in range((lower - 16) // 2):
        off = base + struct.unpack_from('<H', d, base + 16 + 2 * i)[0]
        lo, hi, fl, ks = struct.unpack_from('<HHHH', d, off)
        yield off, fl, d[off + 8:off + 8 + ks], off + 8 + ks


def main():
    d = open(sys.argv[1], 'rb').read()
    psize = struct.unpack_from('<I', d, 16 + 24)[0]   # mm_dbs[0].md_pad
    metas = []
    for m in (0, 1):
        base = m * psize + 16
        txn = struct.unpack_from('<Q', d, base + 24 + 2 * 48 + 8)[0]
        root = struct.unpack_from('<Q', d, base + 24 + 48 + 40)[0]
        metas.append((txn, -m, root))
    main_root = max(metas)[2]
    nodes = {k: (off, fl, data) for off, fl, k, data in
             leaf_nodes(d, psize, main_root)}
    for spec in sys.argv[2:]:
        name, _, key = spec.partition('/')
        name, _, what = name.partition('@')
        off, fl, data = nodes[name.encode()]
        if what == 'flags':
            print(off + 4)
        elif not key:
            print(off + 8)
        else:
            root = struct.unpack_from('<Q', d, data + 40)[0]
            want = (bytes.fromhex(key[4:]) if key.startswith('hex:')
                    else key.encode())
            hits = [noff + 8 for noff, _, k, _ in leaf_nodes(d, psize, root)
                    if k == want]
            if not hits:
                sys.exit('no key %s in %s' % (key, name))
            print(hits[0])


main()
