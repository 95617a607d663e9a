"""Turns bench/out/raw.tsv into a Markdown table of medians and veer/reference ratios."""
import csv
import statistics
import sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
by = defaultdict(list)
order = []
for r in rows:
    key = (r["input"], r["tool"])
    if r["input"] not in order:
        order.append(r["input"])
    by[key].append(r)


def cell(key):
    runs = by.get(key)
    if not runs:
        return None, None, "not run"
    if any(r["status"] == "timeout" for r in runs):
        return None, None, "> 5 min, skipped"
    secs = statistics.median(float(r["seconds"]) for r in runs)
    rss = statistics.median(int(r["max_rss_kb"]) for r in runs) / 1024
    note = "extrapolated from 20 pairs" if any(r["status"] == "extrapolated" for r in runs) else ""
    bad = [r["status"] for r in runs if r["status"] not in ("ok", "extrapolated")]
    if bad:
        note = "exit status " + ",".join(sorted(set(bad)))
    return secs, rss, note


print("| input | veer (s) | veer peak RSS (MB) | shadow (s) | shadow peak RSS (MB) | shadow / veer | note |")
print("|---|---|---|---|---|---|---|")
for name in order:
    vs, vr, vn = cell((name, "veer"))
    ss, sr, sn = cell((name, "shadow"))
    ratio = f"{ss / vs:.0f}×" if vs and ss else "–"
    fmt = lambda x, p: "–" if x is None else f"{x:.{p}f}"
    note = "; ".join(n for n in (vn and f"veer: {vn}", sn and f"shadow: {sn}") if n)
    print(f"| {name} | {fmt(vs, 3)} | {fmt(vr, 1)} | {fmt(ss, 2)} | {fmt(sr, 1) if sr else '–'} | {ratio} | {note} |")
