#!/usr/bin/env python3
"""tests/bench/heap_sites.py A.collapsed B.collapsed [--stacks]: the live
heap of two jemalloc profiles (`jeprof --collapsed --inuse_space KTRAJ
DUMP`) by the import's owners of memory (workspace, id sets, LMDB, ...),
MiB in A, in B and B - A; --stacks adds the 25 call sites (last 5 frames)
that grew most.  Issue 21's "import peak memory" row: with heap_dump.patch
applied, X12_DUMP=1 and MALLOC_CONF=prof:true,lg_prof_sample:16,
prof_prefix:DIR/jp, `ktraj import` dumps the heap at each batch's commit."""
import collections
import re
import sys

SKIP = re.compile(r"(je_|prof_|imalloc|malloc_default|do_rallocx|_start|__libc|"
                  r"main$|cmd_import|kt_import_paths|process_|cc_import|"
                  r"each_line|on_line)")
OWNERS = [
    ("LMDB environment (constant)", "kt_spill_open|mdb_env_open"),
    ("LMDB page buffers (me_dpages: the most pages one batch dirtied)", "mdb_"),
    ("workspace contents (KTRAJ_IMPORT_WS, 16 MiB)", "set_content"),
    ("workspace table: entries, path keys", "ws_find|ws_at_new"),
    ("workspace code list and its hash buffer", "code_add|kt_ws_code_hash|code_sort"),
    ("cJSON trees in flight (parse-ahead ring)", "cJSON|parse_fast|pa_main|kt_cjson"),
    ("zstd contexts, dictionary", "ZSTD|zstd|dict_"),
    ("id sets (KTRAJ_IMPORT_IDS per set)", "seen_line|cc_ids|kt_strmap|intern"),
    ("actor ring", "act_note|acts_"),
    ("buffers (blob base cache, events, lines)", "kt_buf|kt_grow|kt_memdupz"),
]


def load(fn):
    d = collections.Counter()
    for line in open(fn):
        st, v = line.rsplit(" ", 1)
        fr = [re.sub(r"<[0-9a-f]+>|\[inline\]", "", f) for f in st.split(";")]
        fr = [f for f in fr if not SKIP.match(f)]
        d[";".join(fr[-5:])] += int(v)
    return d


def owner(stack):
    for name, rx in OWNERS:
        if re.search(rx, stack):
            return name
    return "other"


def main():
    a, b = load(sys.argv[1]), load(sys.argv[2])
    ca, cb = collections.Counter(), collections.Counter()
    for k, v in a.items():
        ca[owner(k)] += v
    for k, v in b.items():
        cb[owner(k)] += v
    m = float(1 << 20)
    print("%-62s %8s %8s %8s" % ("owner", "A MiB", "B MiB", "B-A"))
    for k in sorted(set(ca) | set(cb), key=lambda k: ca[k] - cb[k]):
        print("%-62s %8.2f %8.2f %+8.2f" % (k, ca[k] / m, cb[k] / m, (cb[k] - ca[k]) / m))
    ta, tb = sum(ca.values()), sum(cb.values())
    print("%-62s %8.2f %8.2f %+8.2f" % ("total (sampled)", ta / m, tb / m, (tb - ta) / m))
    if "--stacks" in sys.argv:
        for k in sorted(set(a) | set(b), key=lambda k: a[k] - b[k])[:25]:
            print("%+8.2f %8.2f %s" % ((b[k] - a[k]) / m, b[k] / m, k))


if __name__ == "__main__":
    main()
