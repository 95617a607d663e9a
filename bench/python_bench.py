"""Times a corpus diff through the CLI and through the Python package (bench/python.sh)."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import veer


def cli_run(cli: str, b: str, c: str) -> float:
    start = time.perf_counter()
    subprocess.run([cli, "diff", b, c, "--format", "json", "-o", os.devnull], check=True, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def python_run(b: str, c: str) -> float:
    start = time.perf_counter()
    names = veer.trace_files(b)
    c_names = set(veer.trace_files(c))
    matched = [n for n in names if n in c_names]
    unmatched = len(names) + len(c_names) - 2 * len(matched)
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        results = list(pool.map(lambda n: veer.diff_summarized(os.path.join(b, n), os.path.join(c, n)), matched))
    summary = veer.empty_summary()
    for _, s in results:
        summary = veer.merge_summaries(summary, s)
    veer.finish_summary(summary, unmatched)
    return time.perf_counter() - start


def parse_share(b: str, c: str, names) -> float:
    """Share of json.loads in veer.diff over the given pairs (one thread)."""
    from veer import _native

    native = parsing = 0.0
    for n in names:
        start = time.perf_counter()
        text, _ = _native.diff((os.path.join(b, n), None), (os.path.join(c, n), None), None, None, 42, 5, "never", False)
        mid = time.perf_counter()
        json.loads(text)
        end = time.perf_counter()
        native += mid - start
        parsing += end - mid
    return parsing / (native + parsing)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--cli", required=True)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("baseline")
    p.add_argument("candidate")
    a = p.parse_args()
    cli_run(a.cli, a.baseline, a.candidate)  # warm the page cache
    cli = [cli_run(a.cli, a.baseline, a.candidate) for _ in range(a.runs)]
    py = [python_run(a.baseline, a.candidate) for _ in range(a.runs)]
    share = parse_share(a.baseline, a.candidate, veer.trace_files(a.baseline)[:200])
    n = len(veer.trace_files(a.baseline))
    cm, pm = statistics.median(cli), statistics.median(py)
    print(f"| pairs | CLI `veer diff DIR DIR` s (median of {a.runs}) | Python s | Python / CLI | json.loads share of veer.diff |")
    print("|---:|---:|---:|---:|---:|")
    print(f"| {n} | {cm:.2f} | {pm:.2f} | {pm / cm:.3f} | {share * 100:.1f}% |")
    print(f"runs: CLI {[round(x, 2) for x in cli]}, Python {[round(x, 2) for x in py]}", file=sys.stderr)


if __name__ == "__main__":
    main()
