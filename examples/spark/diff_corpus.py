#!/usr/bin/env python3
"""A corpus diff on Apache Spark: `veer diff BASELINE_DIR CANDIDATE_DIR`, scaled out.

    spark-submit examples/spark/diff_corpus.py BASELINE_DIR CANDIDATE_DIR --out OUT_DIR
    python examples/spark/diff_corpus.py BASELINE_DIR CANDIDATE_DIR --out OUT_DIR --master local[2]

Traces are paired by relative path, as `veer diff DIR DIR` pairs them. Each pair is read and
diffed on an executor by the `veer` Python package (`mapPartitions`); the traces and the reports
never reach the driver. The job writes

- OUT_DIR/pairs.parquet: one row per pair (paths, worst severity, first divergence, the nine
  axis deltas and severities, policy regressions, an error if the pair could not be compared),
  written by Spark itself;
- OUT_DIR/summary.json: the `aggregate`, `fingerprint` and `gate` blocks of `veer diff
  BASELINE_DIR CANDIDATE_DIR --format json` on the same corpus. The per-pair summaries are
  merged with the library's own associative merge (a tree reduce of constant-size summaries);
  the exact median delta of each axis comes from a distributed sort of the per-pair deltas,
  which hands the driver only the middle element(s), and the library's own finish step turns
  those into the block. The pooled fingerprint test over every response of every pair is the
  engine's own (`veer.FingerprintPool`): each pair's response fingerprints are computed on its
  executor and streamed to the driver in path order, a partition at a time; past 4,096
  responses a side the pool keeps only sums and streams them a second time, as the CLI reads
  the pairs twice. The gate trips on what the CLI's trips on: a pair's own verdict (its axes,
  its fingerprint test, its policy regressions), the pooled test (a powered rejection counts
  as moderate) and pairs that cannot be compared.

The driver holds the list of file names (to pair them), constant-size summaries and at most
4,096 fingerprint rows a side (96 bytes each), never a trace, a report or the corpus's deltas. BASELINE_DIR, CANDIDATE_DIR and OUT_DIR must be the
same path on the driver and on every executor (a shared filesystem); see docs/spark.md.
Exit codes as veer's: 0 done, 1 the --fail-on gate tripped, 2 an input could not be used.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Any, Dict, Iterable, Iterator, List, Optional

import veer

# The nine axes, in the report's order (veer's Axis::ALL); checked against each report.
AXES = ["semantic", "trajectory", "safety", "verbosity", "latency", "cost", "reasoning", "judge", "conformance"]
LEVELS = {"never": 0, "none": 0, "minor": 1, "moderate": 2, "severe": 3}


def schema():
    from pyspark.sql import types as T

    fields = [
        T.StructField("baseline", T.StringType(), False),
        T.StructField("candidate", T.StringType(), False),
        T.StructField("baseline_path", T.StringType(), False),
        T.StructField("candidate_path", T.StringType(), False),
        T.StructField("pair_count", T.LongType(), True),
        T.StructField("worst_severity", T.StringType(), True),
        T.StructField("first_divergence_baseline_turn", T.LongType(), True),
        T.StructField("first_divergence_candidate_turn", T.LongType(), True),
        T.StructField("first_divergence_kind", T.StringType(), True),
        T.StructField("first_divergence_axis", T.StringType(), True),
    ]
    for a in AXES:
        fields.append(T.StructField(f"delta_{a}", T.DoubleType(), True))
        fields.append(T.StructField(f"severity_{a}", T.StringType(), True))
    fields += [
        T.StructField("policy_regressions", T.LongType(), True),
        T.StructField("policy_regression_rules", T.ArrayType(T.StringType()), True),
        # The pair's verdict at --fail-on, decided by veer's engine as for `veer diff`: its axes,
        # its fingerprint test and its policy regressions.
        T.StructField("gate_tripped", T.BooleanType(), True),
        T.StructField("error", T.StringType(), True),
        # The engine's worst signal of the pair (its verdict's `worst`); folded into the gate
        # block of summary.json, not written to pairs.parquet.
        T.StructField("_gate_worst", T.StringType(), True),
        # The pair's response fingerprints (veer.fingerprint_rows), for the pooled test; not
        # written to pairs.parquet.
        T.StructField("_rows_baseline", T.BinaryType(), True),
        T.StructField("_rows_candidate", T.BinaryType(), True),
        # The pair's summary (JSON, without its deltas: they are the delta_* columns); merged
        # into summary.json, not written to pairs.parquet.
        T.StructField("_summary", T.StringType(), True),
    ]
    return T.StructType(fields)


def pair_row(name: str, bp: str, cp: str, options: Dict[str, Any]) -> tuple:
    """Diffs one pair on an executor: the row of pairs.parquet and the pair's summary."""
    try:
        report, summary = veer.diff_summarized(bp, cp, **options)
        # The pair's responses as the pooled test takes them (read and checked as the diff).
        rows = veer.fingerprint_rows(bp, cp)
    except veer.VeerError as e:
        return (name, name, bp, cp) + (None,) * (6 + 2 * len(AXES) + 3) + (str(e), None, None, None, None)
    axes = {a["axis"]: a for a in report["axes"]}
    unknown = set(axes) - set(AXES)
    if unknown:
        raise RuntimeError(f"veer {veer.__version__} reports unknown axes {sorted(unknown)}")
    fd = report.get("first_divergence") or {}
    row: List[Any] = [
        name,
        name,
        bp,
        cp,
        report["pair_count"],
        report["worst_severity"],
        fd.get("baseline_turn"),
        fd.get("candidate_turn"),
        fd.get("kind"),
        fd.get("primary_axis"),
    ]
    for a in AXES:
        row.append(axes[a]["delta"] if a in axes else None)
        row.append(axes[a]["severity"] if a in axes else None)
    regressions = (report.get("policy") or {}).get("regressions") or []
    row += [len(regressions), [r["rule_id"] for r in regressions], report["gate"]["tripped"], None]
    row.append(report["gate"]["worst"])
    row += list(rows)
    # The deltas travel in the delta_* columns; the summary keeps only counts and maxima.
    row.append(json.dumps(veer.merge_summaries(veer.empty_summary(), summary, keep_deltas=False)))
    return tuple(row)


def diff_partition(names: Iterable[str], baseline: str, candidate: str, options: Dict[str, Any]) -> Iterator[tuple]:
    for name in names:
        parts = name.split("/")
        yield pair_row(name, os.path.join(baseline, *parts), os.path.join(candidate, *parts), options)


def merge_partition(summaries: Iterable[Any]) -> Iterator[Dict[str, Any]]:
    acc = veer.empty_summary()
    for (text,) in summaries:
        if text is not None:
            acc = veer.merge_summaries(acc, json.loads(text), keep_deltas=False)
    yield acc


def _total_order(x: float) -> tuple:
    # veer sorts deltas with f64::total_cmp: -0.0 before 0.0 (NaN never occurs in a delta).
    return (x, math.copysign(1.0, x))


def middle_deltas(df, summary: Dict[str, Any]) -> Dict[str, List[float]]:
    """Each axis's middle delta(s) by a distributed sort: only ≤ 2 values per axis reach the
    driver, whatever the corpus size."""
    from pyspark.sql import functions as F

    counts = [a["none"] + a["minor"] + a["moderate"] + a["severe"] for a in summary["axes"]]
    names = [a["axis"] for a in summary["axes"]]
    wanted: Dict[int, str] = {}
    start = 0
    for name, n in zip(names, counts):
        if n:
            for i in ([n // 2] if n % 2 else [n // 2 - 1, n // 2]):
                wanted[start + i] = name
        start += n
    columns = [F.col(f"delta_{a}") for a in names]
    deltas = (
        df.select(F.posexplode(F.array(*columns)).alias("axis", "delta"))
        .where(F.col("delta").isNotNull())
        .rdd.map(lambda r: (r[0], r[1]))
    )
    keys = set(wanted)
    picked = (
        deltas.sortBy(lambda p: (p[0],) + _total_order(p[1]))
        .zipWithIndex()
        .filter(lambda pi: pi[1] in keys)
        .collect()
    )
    middles: Dict[str, List[float]] = {n: [] for n in names}
    for (axis_index, delta), index in sorted(picked, key=lambda pi: pi[1]):
        if names[axis_index] != wanted[index]:
            raise RuntimeError("the per-axis delta counts disagree with the merged summary")
        middles[names[axis_index]].append(delta)
    return middles


def pooled_test(df, fail_on: str) -> Dict[str, Any]:
    """The pooled fingerprint test of the measured pairs, in path order (the engine's pool):
    `{"fingerprint": block or None, "verdict": ...}`. The rows reach the driver a partition
    at a time (toLocalIterator keeps the partitions' order, which is the pairing's)."""

    def rows() -> Iterator[tuple]:
        measured = df.where(df.error.isNull()).select("_rows_baseline", "_rows_candidate")
        for r in measured.toLocalIterator():
            yield bytes(r[0]), bytes(r[1])

    pool = veer.FingerprintPool()
    for b, c in rows():
        pool.push(b, c)
    return pool.finish(rows if pool.needs_second_pass else None, fail_on)


# The gate's levels in order (a verdict's `worst`).
WORST = ["none", "minor", "moderate", "severe"]


def run(spark, baseline: str, candidate: str, out: str, options: Dict[str, Any], partitions: Optional[int] = None) -> int:
    """Runs the corpus diff with an existing SparkSession; returns veer's exit code."""
    from pyspark import StorageLevel

    # The CLI's own pairing (an InputError when no file has a counterpart).
    plan = veer.pair_directories(baseline, candidate)
    matched = plan["matched"]
    unmatched = len(plan["baseline_only"]) + len(plan["candidate_only"])
    del plan
    sc = spark.sparkContext
    slices = partitions or max(1, min(len(matched), sc.defaultParallelism * 4))
    names = sc.parallelize(matched, slices)
    del matched
    b_abs, c_abs = os.path.abspath(baseline), os.path.abspath(candidate)
    rows = names.mapPartitions(lambda it: diff_partition(it, b_abs, c_abs, options))
    df = spark.createDataFrame(rows, schema()).persist(StorageLevel.MEMORY_AND_DISK)
    try:
        os.makedirs(out, exist_ok=True)
        internal = ("_summary", "_gate_worst", "_rows_baseline", "_rows_candidate")
        df.drop(*internal).write.mode("overwrite").parquet(os.path.join(out, "pairs.parquet"))
        errors = [r[0] for r in df.where(df.error.isNotNull()).select("error").limit(20).collect()]
        if errors:
            n = df.where(df.error.isNotNull()).count()
            print(f"error: {n} trace pairs cannot be compared; first: {errors[0]}", file=sys.stderr)
            for e in errors[1:]:
                print(e, file=sys.stderr)
            print(f"see the error column of {os.path.join(out, 'pairs.parquet')}; summary.json not written", file=sys.stderr)
            # As the CLI: a pair that cannot be compared trips a set gate (exit 1); without a
            # gate it is the run's error (exit 2).
            return 1 if LEVELS[options.get("fail_on", "never")] else 2
        summary = df.select("_summary").rdd.mapPartitions(merge_partition).treeReduce(
            lambda a, b: veer.merge_summaries(a, b, keep_deltas=False)
        )
        aggregate = veer.finish_summary(summary, unmatched, medians=middle_deltas(df, summary))
        pair_tripped = df.where(df.gate_tripped).limit(1).count() > 0
        worsts = {r[0] for r in df.select("_gate_worst").distinct().collect() if r[0] is not None}
        pooled = pooled_test(df, options.get("fail_on", "never"))
    finally:
        df.unpersist()
    # The gate trips on what the CLI's verdict trips on: any pair's own verdict (axes, its
    # fingerprint test, policy regressions), the pooled fingerprint test, and unreadable
    # pairs (above). Its worst is the worst of every signal, as the CLI's.
    verdict = pooled["verdict"]
    tripped = pair_tripped or verdict["tripped"]
    worst = max(worsts | {verdict["worst"]}, key=WORST.index)
    summary_json = {
        "aggregate": aggregate,
        "fingerprint": pooled["fingerprint"],
        "gate": {"fail_on": verdict["fail_on"], "worst": worst, "tripped": tripped},
    }
    write_text(os.path.join(out, "summary.json"), json.dumps(summary_json, indent=2) + "\n")
    if tripped:
        causes = (["a pair's own verdict"] if pair_tripped else []) + ([verdict["tripped_by"]] if verdict["tripped"] else [])
        print(f"gate tripped by: {'; '.join(causes)}", file=sys.stderr)
    return 1 if tripped else 0


def write_text(path: str, text: str) -> None:
    """Replaces `path` atomically (a temporary file beside it, renamed over it)."""
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("baseline", metavar="BASELINE_DIR")
    p.add_argument("candidate", metavar="CANDIDATE_DIR")
    p.add_argument("--out", required=True, metavar="OUT_DIR", help="where pairs.parquet and summary.json go")
    p.add_argument("--master", help="Spark master, e.g. local[2] (default: spark-submit's)")
    p.add_argument("--policy", help="a behaviour policy, as veer diff --policy (same path on every executor)")
    p.add_argument("--pricing", help="a pricing file, as veer diff --pricing (same path on every executor)")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--top-k", type=int, default=5)
    p.add_argument("--fail-on", default="never", choices=sorted(LEVELS))
    p.add_argument("--partitions", type=int, help="number of partitions (default: 4 per core)")
    args = p.parse_args(argv)
    for d in (args.baseline, args.candidate):
        if not os.path.isdir(d):
            print(f"error: {d}: not a directory\nhint: pass two directories of traces", file=sys.stderr)
            return 2

    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("veer diff corpus")
    if args.master:
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    options = {"policy": args.policy, "pricing": args.pricing, "seed": args.seed, "top_k": args.top_k, "fail_on": args.fail_on}
    try:
        return run(spark, args.baseline, args.candidate, args.out, options, args.partitions)
    except veer.VeerError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    finally:
        spark.stop()
        if os.environ.get("VEER_REPORT_DRIVER_RSS"):
            import resource

            # Linux reports kilobytes. The Python driver only: in local mode the JVM also runs
            # the executors, so its size says nothing about the driver's share.
            print(f"driver peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss} kB", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
