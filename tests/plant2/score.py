#!/usr/bin/env python3
"""score.py - score ktraj on sessions written by gen.py (this folder).

Usage: score.py DIR [DIR...]      (KTRAJ = the binary, default build/ktraj)
Imports each DIR's sessions into a fresh store with `ktraj import`, runs
`ktraj blame speedup RUN --json --permutations P` on each and compares with
DIR/truth.json.  Events are matched through the transcript itself: a planted
jump lands at the bench results of the Bash call with the planted
tool_use_id; a planted question is the human message with its text.

A reported jump matches a planted one when it is of the planted jump's
workload and one of the planted landing's bench seqs lies in its
(from_seq, to_seq] (each reported jump matches at most one).
Attribution is right when the matched jump names the planted question's seq,
or says "agent alone" for a jump the agent made alone.
  detection recall     = planted jumps matched / planted jumps
  detection precision  = reported jumps matching a planted one / reported jumps
  attribution recall   = planted jumps matched and rightly attributed / planted
  attribution precision= matched reported jumps rightly attributed / matched
                         reported jumps (detection errors are counted once,
                         in detection precision)
  false jumps          = reported jumps per session of a --pure DIR
  null p<0.05          = fraction of run tests (one per workload series with
                         a p) of a --null DIR with p < 0.05
  power                = fraction of workload series with >= 3 question-
                         caused jumps (other DIRs) whose p < 0.05 (the
                         series is found by its key's command field)
Prints one JSON object (also by bench format, language, echo, and "core":
the same figures over the bench formats the importer reads today - plain
lines, do_bench prints, verifier JSON - with detection precision over the
reported jumps of those workloads).
"""
import json, os, subprocess, sys, tempfile

PERMS = os.environ.get("PERMS", "2000")
# the formats the importer reads today; the others (a markdown table's
# correctness column, torch.compile autotune logs, triton perf_report
# tables) are the importer's open work, so figures are given both ways
CORE = {"lines", "dobench", "verifier"}


def run(k, env, *a):
    return subprocess.run([k] + list(a), env=env, check=True, capture_output=True, text=True).stdout


def jl(s):
    return [json.loads(l) for l in s.splitlines() if l.strip()]


def cmd_of(j):
    """The benchmark command of a reported jump: the first field of its
    series key "WORKLOAD | SCENARIO | METRIC | BASELINE" (blame --json's
    "workload"), which is what the generator's truth names per workload."""
    w = j.get("workload") or ""
    return w.split(" | ")[0]


def series_p(summ, wls, wl):
    """The run test p of planted workload wl: the tested series whose
    key's command field is wl's command (a session of one workload may
    name none), the one with the most reported jumps when wl's results
    form several series (scenarios); 1.0 when none was tested.  Looking
    the truth's workload name up among the keys directly, as before, gave
    1.0 to every series of a session with two or more workloads."""
    t = [sm for sm in summ if sm.get("p_value") is not None]
    c = [sm for sm in t if cmd_of(sm) and cmd_of(sm) in wls[wl]["cmd"]]
    if not c and len(wls) == 1:
        c = t
    return max(c, key=lambda sm: sm.get("jumps", 0))["p_value"] if c else 1.0


def ratio(a, b):
    return round(a / b, 4) if b else None


def main():
    k = os.environ.get("KTRAJ") or "build/ktraj"
    dirs = sys.argv[1:]
    if not dirs:
        sys.exit(__doc__)
    T = dict(planted=0, found=0, attr_ok=0, reported=0, rep_matched=0, pure_sessions=0, pure_jumps=0,
             null_sessions=0, null_sig=0, power_sessions=0, power_sig=0, sessions=0,
             core_reported=0, core_rep_matched=0, power_core_series=0, power_core_sig=0)
    by = {}
    misses = []
    pvals = dict(null=[], power=[])

    def bump(key, f, v=1):
        by.setdefault(key, dict(planted=0, found=0, attr_ok=0))[f] += v

    with tempfile.TemporaryDirectory() as tmp:
        for di, d in enumerate(dirs):
            truth = json.load(open(os.path.join(d, "truth.json")))
            env = dict(os.environ, KTRAJ_STORE=os.path.join(tmp, "s%d.ktraj" % di))
            names = sorted(truth["sessions"])
            run(k, env, "import", *[os.path.join(d, n + ".jsonl") for n in names])
            runs = {}
            for r in jl(run(k, env, "ls", "--json")):
                runs[os.path.basename(r["meta"]["source"])[:-6]] = r["run"]
            for n in names:
                tr = truth["sessions"][n]
                wls = tr.get("workloads", {})
                rid = runs[n]
                T["sessions"] += 1
                rows = jl(run(k, env, "blame", "speedup", rid, "--json", "--permutations", PERMS))
                jumps = [r for r in rows if "gain" in r]
                summ = [r for r in rows if "gain" not in r]
                # one run test per workload series; a series with no
                # question or no new best has no p (not a test)
                ps = {sm.get("workload", ""): sm["p_value"] for sm in summ if sm.get("p_value") is not None}
                if truth["mode"] == "pure":
                    T["pure_sessions"] += 1
                    T["pure_jumps"] += len(jumps)
                    continue
                if truth["mode"] == "null":
                    for p in ps.values():
                        T["null_sessions"] += 1
                        T["null_sig"] += p < 0.05
                        pvals["null"].append(p)
                # power: the workload series that got >= 3 question-caused jumps
                nq = {}
                for j in tr["jumps"]:
                    if j["cause"] == "question":
                        nq[j["workload"]] = nq.get(j["workload"], 0) + 1
                for wl, c in nq.items():
                    if truth["mode"] != "null" and c >= 3:
                        p = series_p(summ, wls, wl)
                        T["power_sessions"] += 1
                        T["power_sig"] += p < 0.05
                        pvals["power"].append(p)
                        if wls.get(wl, {}).get("format") in CORE:
                            T["power_core_series"] += 1
                            T["power_core_sig"] += p < 0.05
                calls = {e["call_id"]: e["seq"] for e in jl(run(k, env, "log", rid, "--kind", "tool_call", "--json"))}
                res = {e["parent"]: e["seq"] for e in jl(run(k, env, "log", rid, "--kind", "tool_result", "--json"))}
                bench = jl(run(k, env, "log", rid, "--kind", "bench", "--json"))
                msgs = [e for e in jl(run(k, env, "log", rid, "--kind", "message", "--json")) if e.get("human")]
                T["reported"] += len(jumps)

                def fmt_of(j):
                    if len(wls) == 1:
                        return next(iter(wls.values()))["format"]
                    for w in wls.values():
                        if cmd_of(j) and cmd_of(j) in w["cmd"]:
                            return w["format"]
                    return None
                core_rep = [i for i, j in enumerate(jumps) if fmt_of(j) in CORE]
                T["core_reported"] += len(core_rep)
                used = set()
                for pj in tr["jumps"]:
                    T["planted"] += 1
                    keys = ["fmt:" + pj["format"], "cause:" + pj["cause"], "all"]
                    if pj["format"] in CORE:
                        keys.append("core")
                    if pj["cause"] == "question":
                        keys += ["lang:" + ("zh" if pj["zh"] else "en"), "echo:%s" % pj["echoed"]]
                    for kk in keys:
                        bump(kk, "planted")
                    cs = calls.get(pj["tool_use_id"])
                    parents = {cs, res.get(cs)}
                    seqs = [b["seq"] for b in bench if b["parent"] in parents]
                    qseq = None
                    if pj["question"]:
                        qs = [m["seq"] for m in msgs if (m.get("text") or "").strip() == pj["question"]]
                        # the last asking before the landing
                        qs = [q for q in qs if seqs and q < seqs[0]]
                        qseq = qs[-1] if qs else -1
                    hit = None
                    for i, j in enumerate(jumps):
                        same_wl = not cmd_of(j) or cmd_of(j) in wls.get(pj["workload"], {}).get("cmd", cmd_of(j))
                        if i not in used and same_wl and any(j["from_seq"] < s <= j["to_seq"] for s in seqs):
                            hit = i
                            break
                    if hit is None:
                        misses.append(dict(session=n, jump=pj, why="not detected (bench seqs %s)" % seqs[:3]))
                        continue
                    used.add(hit)
                    T["found"] += 1
                    for kk in keys:
                        bump(kk, "found")
                    j = jumps[hit]
                    q = j.get("question") or {}
                    ok = (qseq is None and j.get("attribution") == "agent alone") or \
                         (qseq is not None and q.get("seq") == qseq)
                    if ok:
                        T["attr_ok"] += 1
                        for kk in keys:
                            bump(kk, "attr_ok")
                    else:
                        misses.append(dict(session=n, jump=pj, why="attributed to %s, planted %s" %
                                           (q.get("seq") or "agent alone", qseq)))
                T["rep_matched"] += len(used)
                T["core_rep_matched"] += len(used & set(core_rep))
    r = dict(T)
    r["detection_recall"] = ratio(T["found"], T["planted"])
    r["detection_precision"] = ratio(T["rep_matched"], T["reported"])
    r["attribution_recall"] = ratio(T["attr_ok"], T["planted"])
    r["attribution_precision"] = ratio(T["attr_ok"], T["rep_matched"])
    r["false_jumps_per_pure_session"] = ratio(T["pure_jumps"], T["pure_sessions"])
    r["null_p_below_0.05"] = ratio(T["null_sig"], T["null_sessions"])
    r["null_p_equal_1"] = ratio(sum(1 for p in pvals["null"] if p >= 0.999), len(pvals["null"]))
    r["power"] = ratio(T["power_sig"], T["power_sessions"])
    r["power_core"] = ratio(T["power_core_sig"], T["power_core_series"])
    c = by.get("core", dict(planted=0, found=0, attr_ok=0))
    r["core"] = dict(detection_recall=ratio(c["found"], c["planted"]),
                     detection_precision=ratio(T["core_rep_matched"], T["core_reported"]),
                     attribution_recall=ratio(c["attr_ok"], c["planted"]),
                     attribution_precision=ratio(c["attr_ok"], c["found"]), planted=c["planted"])
    r["by"] = {kk: dict(v, detection_recall=ratio(v["found"], v["planted"]),
                        attribution_recall=ratio(v["attr_ok"], v["planted"]),
                        attribution_given_found=ratio(v["attr_ok"], v["found"]))
               for kk, v in sorted(by.items())}
    r["misses"] = misses[:int(os.environ.get("MISSES", "15"))]
    print(json.dumps(r, indent=1, sort_keys=True, ensure_ascii=False))


if __name__ == "__main__":
    main()
