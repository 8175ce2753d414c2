#!/usr/bin/env python3
"""summary.py OUT - the table of tests/bench/analyze_plant2.sh from the
score.py JSON files it left in OUT (NAME.json for each generated set)."""
import json, os, sys

out = sys.argv[1]
rows = []
for n in ["en2", "zh2", "en5", "zh5", "mix10", "pure5", "null2", "q3"]:
    p = os.path.join(out, n + ".json")
    try:
        r = json.load(open(p))
    except (OSError, ValueError):
        continue
    c, b = r.get("core", {}), r["by"]
    g = lambda k, f: (b.get(k) or {}).get(f)
    rows.append("| %s | %s | %s / %s | %s / %s | %s / %s | %s / %s | %s | %s (%d tests, %s at p = 1) | %s |" % (
        n, c.get("planted"), c.get("detection_recall"), c.get("detection_precision"),
        c.get("attribution_recall"), c.get("attribution_precision"),
        r["detection_recall"], r["detection_precision"],
        r["attribution_recall"], r["attribution_precision"],
        r["false_jumps_per_pure_session"], r["null_p_below_0.05"], r["null_sessions"], r["null_p_equal_1"],
        "%s (%d series; core formats %s of %d)" % (r["power"], r["power_sessions"], r.get("power_core"),
                                                   r.get("power_core_series", 0))))
print("| set | planted (core) | core detection R / P | core attribution R / P | all-format detection R / P "
      "| all-format attribution R / P | false jumps per pure session | null: p < 0.05 | power |")
print("|---|---|---|---|---|---|---|---|---|")
print("\n".join(rows))
