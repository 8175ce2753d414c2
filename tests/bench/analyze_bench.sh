#!/bin/bash
# tests/bench/analyze_bench.sh KTRAJ - analyzer benchmarks (issue 4 targets).
#   - `ktraj blame speedup RUN --json` on one ~100k-event planted run
#     (target < 100 ms, end to end: store open, load, blame, 2x2000
#     permutations, JSON out); `stalls` and `report` on the same run;
#   - `ktraj questions mine --json` over 1,000 planted runs (issue 21:
#     < 0.3 s);
#   - growth (issue 21: memory <= 64 MiB per 1M events): blame, stalls and
#     the bare store scan (`log --kind bench`) on the ~100k-event run (N)
#     and on a ~1M-event run of the same generator (10N, its own store):
#     CPU ms, peak RSS and peak anonymous memory (RssAnon of
#     /proc/PID/status, sampled every 2 ms: the heap, not the store file's
#     mapped pages), and the growth per 1M events between the two.
# Runs come from tests/plant/plant.py (deterministic).  Prints a markdown
# block for the "Analyzers" section of RESULTS.md.
# Environment: BENCH_DIR (work dir, default $TMPDIR/ktraj-an-bench), RUNS
# (default 1000), REPS (default 5; the median is reported), BIG (events of
# the 10N run, default 1000000; 0 skips it).
set -eu
KTRAJ=${1:?usage: analyze_bench.sh path/to/ktraj}
KTRAJ=$(cd "$(dirname "$KTRAJ")" && pwd)/$(basename "$KTRAJ")
HERE=$(cd "$(dirname "$0")" && pwd)
PLANT=$HERE/../plant
W=${BENCH_DIR:-${TMPDIR:-/tmp}/ktraj-an-bench}
RUNS=${RUNS:-1000}
REPS=${REPS:-5}
rm -rf "$W"; mkdir -p "$W"
export KTRAJ_STORE=$W/s.ktraj

# one long run: many plateaus and jumps, ~EVENTS events (gen DIR NAME EVENTS)
gen() {
	python3 - "$PLANT" "$1" "$2" "$3" <<'PY'
import os, random, sys
sys.path.insert(0, sys.argv[1])
import plant
os.makedirs(sys.argv[2], exist_ok=True)
r = random.Random(4242)
g = plant.Gen(r, 0.02, sys.argv[3])
g.msg("user", "Make it faster.", human=True)
g.round_(g.level)
while g.seq < int(sys.argv[4]):
    g.plateau(r.randrange(400, 800))
    g.jump(r.choice(["human", "library", "agent"]))
with open(os.path.join(sys.argv[2], sys.argv[3] + ".jsonl"), "w") as f:
    for l in g.lines:
        f.write(l + "\n")
print(g.seq, file=sys.stderr)
PY
}
gen "$W/big" bench-big 100000
"$KTRAJ" import "$W/big/bench-big.jsonl" >/dev/null
EV=$("$KTRAJ" ls | awk '$NF=="bench-big"{print $2}')

# "CPU ms / wall ms": medians over REPS runs of a command.  CPU time
# (user + sys of the child) is the fair measure on a shared machine.
med() {
	python3 - "$REPS" "$@" <<'PY'
import resource, statistics, subprocess, sys, time
reps, cmd = int(sys.argv[1]), sys.argv[2:]
cpu, wall = [], []
for _ in range(reps):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN); t0 = time.monotonic()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    t1 = time.monotonic(); r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu.append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1000)
    wall.append((t1 - t0) * 1000)
print("%.0f ms CPU / %.0f ms wall" % (statistics.median(cpu), statistics.median(wall)))
PY
}
B=$(med "$KTRAJ" blame speedup bench-big --json)
B0=$(med "$KTRAJ" blame speedup bench-big --json --permutations 0)
S=$(med "$KTRAJ" stalls bench-big --json)
R=$(med "$KTRAJ" report bench-big -o "$W/r.html")
J=$("$KTRAJ" blame speedup bench-big --json | grep -c '"gain"')

# 1,000 runs for mining
python3 "$PLANT/plant.py" "$W/many" --runs "$RUNS" --seed 99 >/dev/null
"$KTRAJ" import "$W"/many/*.jsonl >/dev/null
MEV=$("$KTRAJ" stats 2>/dev/null | awk 'tolower($1)=="events"{print $2; exit}')
"$KTRAJ" questions mine --json >"$W/lib.jsonl"
M=$(REPS=1 med "$KTRAJ" questions mine --json)
NQ=$(wc -l <"$W/lib.jsonl")
L=$(med "$KTRAJ" log bench-big --kind bench)

# "CPU ms, peak RSS MiB, peak anonymous MiB" of one command: medians over
# REPS runs (CPU of the child alone, from wait4).
mem() {
	python3 - "$REPS" "$@" <<'PY'
import os, statistics, subprocess, sys, time
reps, cmd = int(sys.argv[1]), sys.argv[2:]
cpu, rss, anon = [], [], []
for _ in range(reps):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    peak = 0
    while True:
        pid, st, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        try:
            for l in open("/proc/%d/status" % p.pid):
                if l.startswith("RssAnon:"):
                    peak = max(peak, int(l.split()[1]))
        except OSError:
            pass
        time.sleep(0.002)
    if st:
        sys.exit("failed: %s" % " ".join(cmd))
    cpu.append((ru.ru_utime + ru.ru_stime) * 1000)
    rss.append(ru.ru_maxrss / 1024)
    anon.append(peak / 1024)
print("%.0f %.1f %.1f" % (statistics.median(cpu), statistics.median(rss),
                          statistics.median(anon)))
PY
}
GROWTH=""
if [ "${BIG:-1000000}" -gt 0 ]; then
	# N in a store of its own too: the same start-up and store checks
	"$KTRAJ" --store "$W/s1.ktraj" import "$W/big/bench-big.jsonl" >/dev/null
	gen "$W/big10" bench-10n "${BIG:-1000000}"
	"$KTRAJ" --store "$W/s10.ktraj" import "$W/big10/bench-10n.jsonl" >/dev/null
	rm -f "$W/big10/bench-10n.jsonl"
	EV10=$("$KTRAJ" --store "$W/s10.ktraj" ls | awk '$NF=="bench-10n"{print $2}')
	row() { # label args... (RUN stands for the run)
		local lab=$1; shift
		local a b
		a=$(mem "$KTRAJ" --store "$W/s1.ktraj" "${@//RUN/bench-big}")
		b=$(mem "$KTRAJ" --store "$W/s10.ktraj" "${@//RUN/bench-10n}")
		python3 - "$lab" "$EV" "$EV10" $a $b <<'PY'
import sys
lab, n1, n2 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
c1, r1, a1, c2, r2, a2 = map(float, sys.argv[4:])
per = 1e6 / (n2 - n1)
print("| %s | %.0f ms, %.0f / %.0f MiB | %.0f ms, %.0f / %.0f MiB | %.0f / %.0f MiB |"
      % (lab, c1, r1, a1, c2, r2, a2, (r2 - r1) * per, (a2 - a1) * per))
PY
	}
	GROWTH=$(
	echo
	echo "| growth: N = $EV events, 10N = $EV10 events (own store) | N: CPU, peak RSS / anonymous | 10N | per 1M events: RSS / anonymous (target <= 64 MiB) |"
	echo "|---|---|---|---|"
	row "blame speedup --json" blame speedup RUN --json
	row "blame speedup --json --permutations 0" blame speedup RUN --json --permutations 0
	row "stalls --json" stalls RUN --json
	row "for scale: log --kind bench (the store scan alone)" log RUN --kind bench
	)
fi
cat <<MD
| analyzer benchmark | result | target |
|---|---|---|
| blame speedup --json, one run of $EV events ($J jumps), incl. 2 x 2000 permutations | $B (median of $REPS) | < 100 ms |
| same without the permutation baseline | $B0 | |
| for scale: log --kind bench on the same run (the store scan alone) | $L | |
| stalls --json, same run | $S | |
| report -o FILE.html, same run | $R | |
| questions mine --json over $RUNS runs (${MEV:-?} events in the store) | $M -> $NQ library entries | < 0.3 s |
$GROWTH
MD
