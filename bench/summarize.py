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


# How cost grows: for each kind of pair, time and memory against turns, and the exponent
# between successive sizes (log(t2/t1) / log(n2/n1); 1 = linear, 2 = quadratic).
import math

series = defaultdict(list)
for name in order:
    kind, _, size = name.rpartition("-")
    if size.isdigit() and kind in ("near", "changed", "divergent"):
        secs, rss, note = cell((name, "veer"))
        if secs:
            series[kind].append((int(size), secs, rss))
if series:
    print()
    print("| pair kind | turns | veer (s) | peak RSS (MB) | time exponent | memory exponent |")
    print("|---|---:|---:|---:|---:|---:|")
    for kind, rows in series.items():
        rows.sort()
        prev = None
        for n, secs, rss in rows:
            te = me = "–"
            if prev and n > prev[0]:
                span = math.log(n / prev[0])
                te = f"{math.log(max(secs, 1e-3) / max(prev[1], 1e-3)) / span:.2f}"
                me = f"{math.log(rss / prev[2]) / span:.2f}"
            print(f"| {kind} | {n} | {secs:.3f} | {rss:.1f} | {te} | {me} |")
            prev = (n, secs, rss)
