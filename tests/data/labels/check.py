#!/usr/bin/env python3
"""check.py - compare ktraj's series, new bests, jumps and stalls with the
labels written from the raw corpus files (corpus.json beside this file).

Usage: check.py CORPUS_DIR [LABELS.json]   (KTRAJ: the binary, default build/ktraj)

A label with "map" imports its file with `import --map` (the map's path
relative to the repository); "graded_series" says which series the
grader's record (reward.json) must share with the agent's own runs.

Every run is imported into a store of its own; `blame speedup --json`,
`stalls --json` and `log --kind bench --json` are compared with its labels
("scenarios": [time_ms, parts its scenario holds], the result named by the
time its output printed; "distinct": groups of such times whose scenarios
must all differ; "absent_times" / "absent_scenarios": times and scenario
parts no bench result may have (a baseline's or competitor's timing is no
result of the agent's code); "ref_times": [time_ms, ref_time_ms, baseline]
of a result that got a baseline's time as its reference; "kinds": event
counts by kind; "excluded_incorrect": a series' results the raw file marks
wrong; "results_total", "every_series" {field: value} and
"reference_timings": over all of the run's series; a stall's "claim": what
the agent's messages kept claiming over it; "timed": every event has a
time, in order; a series item with "key" matches that series key exactly
instead of "match"; "questions": what `questions mine --agent` must and
must not find: human_total / agent_total entries, "human" / "agent" [raw
line, text, why] that must be mined, "not" / "agent_not" that must not).
Prints one line per label item (ok / FAIL / PENDING) and a last JSON line
with the counts.  Items of owner "import" (what the importer extracts) are
PENDING when they disagree: they are reported, not failed; an "import" label
with owner "measure" must agree.  Exit 1 when a
series/detection item disagrees, 0 otherwise; runs whose file is absent are
skipped.
"""
import json, os, subprocess, sys, tempfile

KT = os.environ.get("KTRAJ") or "build/ktraj"


def key(r):
    # "series" (the model's key); a ktraj of before the model had only
    # "workload" in runs of several (so this also scores older builds)
    return r.get("series", r.get("workload", ""))


def rows(args, env):
    out = subprocess.run([KT] + args, env=env, check=True, capture_output=True,
                         text=True).stdout
    return [json.loads(l) for l in out.splitlines() if l.strip()]


def main():
    corpus = sys.argv[1]
    labels = json.load(open(sys.argv[2] if len(sys.argv) > 2 else
                            os.path.join(os.path.dirname(__file__), "corpus.json")))
    tot = dict(runs=0, skipped=0, items=0, agree=0, pending=0, fail=0)

    def item(name, cond, owner="measure"):
        tot["items"] += 1
        if cond:
            tot["agree"] += 1
            print("ok      %s" % name)
        elif owner == "import":
            tot["pending"] += 1
            print("PENDING %s (import side)" % name)
        else:
            tot["fail"] += 1
            print("FAIL    %s" % name)

    for lab in labels["runs"]:
        path = os.path.join(corpus, lab["path"])
        if not os.path.exists(path):
            tot["skipped"] += 1
            continue
        tot["runs"] += 1
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, KTRAJ_STORE=os.path.join(tmp, "s"))
            # a round log of its own format: imported with the map the
            # label names (relative to the repository)
            mp = ["--map", os.path.join(os.path.dirname(__file__), "..", "..", "..", lab["map"])] \
                if "map" in lab else []
            imp = rows(["import", "--json"] + mp + [path], env)
            run = imp[0]["run"]
            blame = rows(["blame", "speedup", run, "--json"], env)
            # the stalls themselves, not the per-series summaries
            stalls = [r for r in rows(["stalls", run, "--json"], env)
                      if "stall" in r]
            bench = rows(["log", run, "--kind", "bench", "--json"], env)
            events = rows(["log", run, "--json"], env) if (
                "kinds" in lab or "timed" in lab) else []
            payload = {j["seq"]: rows(["show", run, str(j["seq"]), "--json"], env)[0]["payload"]
                       for j in bench} if "ref_times" in lab else {}
            want = (lab.get("import") or {}).get("graded_metric")
            # the payloads of the graded metric's results ("graded" is not
            # in log's columns)
            shown = {j["seq"]: rows(["show", run, str(j["seq"]), "--json"], env)[0]["payload"]
                     for j in bench if want and j.get("metric") == want}
            qs = rows(["questions", "mine", run, "--json", "--agent"], env) \
                if "questions" in lab else []
        p = lab["path"]
        summ = [r for r in blame if "summary" in r]
        jumps = [r for r in blame if "gain" in r]
        if "series_count" in lab:
            item("%s: %d series (got %d)" % (p, lab["series_count"], len(summ)),
                 len(summ) == lab["series_count"], lab.get("series_count_owner", "measure"))
        if "jumps_total" in lab:
            item("%s: %d jumps (got %d)" % (p, lab["jumps_total"], len(jumps)),
                 len(jumps) == lab["jumps_total"])
        if "results_total" in lab:
            got = sum(r.get("results", 0) for r in summ)
            item("%s: %d bench results over all series (got %d)" % (p, lab["results_total"], got),
                 got == lab["results_total"])
        for k, v in sorted((lab.get("every_series") or {}).items()):
            # a property of every series of the run (e.g. a file of
            # rankings: no series is in time order)
            got = sorted({json.dumps(r.get(k)) for r in summ})
            item("%s: every series has %s %s (got %s)" % (p, k, json.dumps(v), ", ".join(got)),
                 summ and got == [json.dumps(v)])
        if "reference_timings" in lab:
            # timings of the reference alone (no candidate): counted, in no series
            got = sum(r.get("reference_timings", 0) for r in summ)
            item("%s: %d reference timings (got %d)" % (p, lab["reference_timings"], got),
                 got == lab["reference_timings"])
        for s in lab.get("series", []):
            if "key" in s:
                m = [r for r in summ if key(r) == s["key"]]
            else:
                m = [r for r in summ if all(x in key(r) for x in s["match"])]
            if not m and len(summ) == 1 and "series" not in summ[0]:
                m = summ
            name = "%s [%s]" % (p, s.get("key") or " ".join(s["match"]) or "the series")
            item("%s: found once" % name, len(m) == 1)
            if len(m) != 1:
                continue
            r = m[0]
            for k in ("results", "points", "sweep", "ordered", "correct", "not_checked"):
                if k in s:
                    item("%s: %s %s (got %s)" % (name, k, s[k], r.get(k)), r.get(k) == s[k])
            # where sigma came from and how many results gave it, read from
            # the raw file (repeats of unchanged code, the reference
            # re-timed), and sigma itself where the raw figures give it
            if "excluded_incorrect" in s:
                # results the raw file marks wrong (a failed status or
                # correctness false): kept out of the series' measurements
                got = (r.get("excluded_by_reason") or {}).get("incorrect")
                item("%s: %d excluded as incorrect (got %s)" % (name, s["excluded_incorrect"], got),
                     got == s["excluded_incorrect"])
            for k in ("noise_kind", "noise_results"):
                if k in s:
                    item("%s: %s %s (got %s)" % (name, k, s[k], r.get(k)), r.get(k) == s[k])
            if "noise_sigma" in s:
                item("%s: noise sigma %.4f (got %s)" % (name, s["noise_sigma"], r.get("noise_sigma")),
                     abs((r.get("noise_sigma") or 0) / s["noise_sigma"] - 1) < 0.01)
            if "noise_not" in s:
                # e.g. "repeats": results at different sizes are no repeats
                item("%s: noise not from %s (got %s)" % (name, s["noise_not"], r.get("noise_kind")),
                     r.get("noise_kind") != s["noise_not"])
            if "geomean" in s:
                # the first sweep's index is its geometric mean speedup
                item("%s: sweep geomean %.4f (got %s)" % (name, s["geomean"], r.get("first")),
                     abs(r.get("first", 0) / s["geomean"] - 1) < 0.001)
            if "improvements" in s:
                got = [(i["step"], i["over_best"]) for i in r.get("improvements", [])]
                want = [tuple(x) for x in s["improvements"]]
                same = len(got) == len(want) and all(
                    a[0] == b[0] and abs(a[1] / b[1] - 1) < 0.01 for a, b in zip(got, want))
                item("%s: new bests over the running best %s (got %s)" % (name, want, got), same)
            js = sorted(j["to_step"] for j in jumps if key(j) == key(r))
            req, allowed = set(s.get("jumps_required", [])), set(s.get("jumps_allowed", []))
            item("%s: jumps at %s%s (got %s)" % (name, sorted(req),
                 " (+ maybe %s)" % sorted(allowed) if allowed else "", js),
                 req <= set(js) <= req | allowed)
            for j in jumps:
                if key(j) == key(r) and j["to_step"] in req | allowed:
                    want = dict(s.get("improvements", [])).get(j["to_step"])
                    if want:
                        item("%s: jump at step %d gains x%.3f over the best so far (got x%.3f)"
                             % (name, j["to_step"], want, j["gain"]),
                             abs(j["gain"] / want - 1) < 0.01)
        if "stalls" in lab:
            want = lab["stalls"]
            got = [(key(st), st["from_step"], st["to_step"], st.get("ended") or
                    ("jump" if st.get("ended_by_jump") else "still stalled at the end"))
                   for st in stalls]
            ok = len(got) == len(want) and all(
                (all(x in g[0] for x in w["match"]) or not g[0]) and g[1:] == (w["from_step"], w["to_step"], w["ended"])
                for g, w in zip(got, want))
            item("%s: stalls %s (got %s)" % (p, [(w["from_step"], w["to_step"], w["ended"]) for w in want],
                                            [g[1:] for g in got]), ok)
            # what the agent kept claiming over the stall, as its raw
            # messages word it
            for w, st in zip(want, stalls):
                if "claim" in w:
                    item("%s: stall at steps %d..%d names the claim '%s' (got %r)" % (
                        p, w["from_step"], w["to_step"], w["claim"], st.get("claim")),
                         w["claim"] in (st.get("claim") or "").lower())
        # a result is named by the time the raw output printed (in ms),
        # which does not move when events are added before it
        def scen_of(t):
            m = [j.get("scenario") or "" for j in bench
                 if j.get("time_ms") is not None and abs(j["time_ms"] / t - 1) < 1e-6]
            return m[0] if len(m) == 1 else None
        for t, parts in lab.get("scenarios", []):
            got = scen_of(t)
            item("%s: the result of %g ms is at scenario %s (got %r)" % (p, t, parts, got),
                 got is not None and all(x in got for x in parts))
        for grp in lab.get("distinct", []):
            got = [scen_of(t) for t in grp]
            item("%s: results of %s ms have %d different scenarios (got %d)" % (p, grp, len(grp), len(set(got))),
                 None not in got and len(set(got)) == len(grp))
        for a, b in lab.get("apart", []):
            mixed = set()
            by = {}
            for j in bench:
                by.setdefault(j.get("series"), []).append(j.get("scenario") or "")
            for k, sc in by.items():
                if any(a in x for x in sc) and any(b in x for x in sc):
                    mixed.add(k)
            item("%s: '%s' and '%s' never in one series" % (p, a, b), not mixed)
        for t in lab.get("absent_times", []):
            got = [j["seq"] for j in bench if j.get("time_ms") is not None
                   and t > 0 and abs(j["time_ms"] / t - 1) < 1e-6]
            item("%s: no bench result of %g ms (got seqs %s)" % (p, t, got), not got)
        for part in lab.get("absent_scenarios", []):
            got = [j["seq"] for j in bench if part in (j.get("scenario") or "")]
            item("%s: no bench result at a scenario naming '%s' (got seqs %s)" % (p, part, got), not got)
        for t, ref, base in lab.get("ref_times", []):
            m = [b for b in payload.values() if b.get("time_ms") is not None
                 and abs(b["time_ms"] / t - 1) < 1e-6]
            item("%s: the result of %g ms has reference time %g ms (%s)" % (p, t, ref, base),
                 len(m) == 1 and abs(m[0].get("ref_time_ms", 0) / ref - 1) < 1e-6 and
                 m[0].get("baseline") == base)
        if "kinds" in lab:
            got = {}
            for e in events:
                got[e["kind"]] = got.get(e["kind"], 0) + 1
            want = {k: v for k, v in lab["kinds"].items() if v}
            item("%s: events by kind %s (got %s)" % (p, want, got),
                 got == want)
        if lab.get("timed"):
            ts = [e.get("ts") for e in events]
            item("%s: every event has a time, in order" % p,
                 ts and None not in ts and ts == sorted(ts))
        ql = lab.get("questions")
        if ql:
            # what a person asked and, with --agent, what the agent asked;
            # labels name the raw line and a piece of its text (lower case)
            by = {o: [r["text"].lower() for r in qs if r.get("origin") == o]
                  for o in ("human", "agent")}
            alltext = by["human"] + by["agent"]
            for o in ("human", "agent"):
                if o + "_total" in ql:
                    item("%s: %d question(s) mined from the %s (got %d: %s)" % (
                        p, ql[o + "_total"], o, len(by[o]), by[o]), len(by[o]) == ql[o + "_total"])
                for line, part, why in ql.get(o, []):
                    item("%s: raw line %d '%s' is mined (%s)" % (p, line, part, why),
                         any(part in t for t in by[o]))
            for line, part, why in ql.get("not", []) + ql.get("agent_not", []):
                item("%s: raw line %d '%s' is not mined (%s)" % (p, line, part, why),
                     not any(part in t for t in alltext))
        imp_lab = lab.get("import")
        if imp_lab:
            # graded: what the benchmark's grader recorded (payload
            # "graded": true); the agent's own runs of the metric are not
            graded = [b for b in shown.values() if b.get("graded") is True]
            own = [b for b in shown.values() if b.get("graded") is not True]
            item("%s: %d graded result (%s %s from %s)" % (
                p, imp_lab["graded_results"], imp_lab["graded_metric"], imp_lab["graded_value"],
                imp_lab["graded_source"]),
                 len(graded) == imp_lab["graded_results"] and
                 all(abs(b.get("speedup", 0) - imp_lab["graded_value"]) < 0.0005 and
                     b.get("source") == imp_lab["graded_source"] for b in graded),
                 imp_lab.get("owner", "import"))
            if "own_checks" in imp_lab:
                item("%s: %d run(s) of the metric by the agent, not graded" % (p, imp_lab["own_checks"]),
                     len(own) == imp_lab["own_checks"], imp_lab.get("owner", "import"))
        if "graded_series" in lab:
            # the grader's record of the metric lands in the series of the
            # agent's own verifier run of the same kernel
            g = lab["graded_series"]
            gr = [j for j in bench if j.get("graded") is True]
            own = [j for j in bench if j.get("graded") is not True and j.get("metric") == g["metric"]]
            item("%s: the graded %s result is in the series of the agent's own run (got %s / %s)" % (
                p, g["metric"], [j.get("series") for j in gr], [j.get("series") for j in own]),
                len(gr) == 1 and own and all(j.get("series") == gr[0].get("series") for j in own)
                and all(x in (gr[0].get("series") or "") for x in g["match"]))
            item("%s: the graded result's reward is %s (got %s)" % (p, g["reward"], [j.get("reward") for j in gr]),
                 len(gr) == 1 and gr[0].get("reward") == g["reward"])
    print(json.dumps(tot, sort_keys=True))
    return 1 if tot["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
