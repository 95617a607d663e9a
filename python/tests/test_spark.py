"""examples/spark/diff_corpus.py on Spark `local[2]`: summary.json's `aggregate`, `fingerprint`
and `gate` equal those blocks of `veer diff DIR DIR --format json` on the same corpus (canonical
JSON), the job trips exactly when the CLI trips (the pooled fingerprint test included), pairs.parquet holds
one row per pair with the report's values, and a pair that cannot be compared fails the job
with exit 2 and is named. One Spark session serves every test here.

Needs PySpark and a Java runtime (.ci/run installs both). Without them the tests are skipped
with the reason, unless VEER_REQUIRE_SPARK=1 (set by .ci/run), which makes that a failure."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import sys
from pathlib import Path

import pytest

import veer

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "spark"


def canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def _unavailable() -> str:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "no Java runtime (java not on PATH, JAVA_HOME unset)"
    return ""


@pytest.fixture(scope="module")
def spark():
    reason = _unavailable()
    if reason:
        if os.environ.get("VEER_REQUIRE_SPARK") == "1":
            pytest.fail(f"VEER_REQUIRE_SPARK=1 but {reason}")
        print(f"SKIPPED the Spark tests: {reason}", file=sys.stderr)
        pytest.skip(reason)
    # Executors are Python workers of this interpreter, importing the example by name.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(EXAMPLE), os.environ.get("PYTHONPATH")]))
    sys.path.insert(0, str(EXAMPLE))
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("veer tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def job():
    sys.path.insert(0, str(EXAMPLE))
    return importlib.import_module("diff_corpus")


@pytest.fixture(scope="module")
def corpus(cli, tmp_path_factory):
    d = tmp_path_factory.mktemp("spark-corpus")
    cli("synth", "--kind", "changed", "--turns", "20", "--pairs", "14", "--seed", "5", "--out-dir", str(d))
    near = tmp_path_factory.mktemp("spark-near")
    cli("synth", "--kind", "near", "--turns", "20", "--pairs", "5", "--seed", "50", "--out-dir", str(near))
    for side in ("baseline", "candidate"):
        (d / side / "near").mkdir()
        for f in (near / side).iterdir():
            f.rename(d / side / "near" / f.name)
    extra = sorted((d / "candidate").glob("*.agentlog"))[0]
    (d / "candidate" / "new-run.agentlog").write_bytes(extra.read_bytes())
    return d / "baseline", d / "candidate"


def test_summary_json_equals_the_cli_aggregate(spark, job, cli, corpus, tmp_path):
    b, c = corpus
    out = tmp_path / "out"
    options = {"policy": None, "pricing": None, "seed": 42, "top_k": 5, "fail_on": "never"}
    assert job.run(spark, str(b), str(c), str(out), options, partitions=5) == 0
    expected = cli.json("diff", str(b), str(c), "--format", "json")
    summary = json.loads((out / "summary.json").read_text())
    assert canonical(summary["aggregate"]) == canonical(expected["aggregate"])
    assert canonical(summary["fingerprint"]) == canonical(expected["fingerprint"])
    assert summary["gate"] == expected["gate"]

    rows = {r["baseline"]: r.asDict() for r in spark.read.parquet(str(out / "pairs.parquet")).collect()}
    assert sorted(rows) == [p["baseline"] for p in expected["pairs"]]
    for p in expected["pairs"]:
        row, report = rows[p["baseline"]], p["report"]
        assert row["worst_severity"] == report["worst_severity"]
        assert row["pair_count"] == report["pair_count"]
        fd = report["first_divergence"] or {}
        assert (row["first_divergence_baseline_turn"], row["first_divergence_kind"]) == (fd.get("baseline_turn"), fd.get("kind"))
        for a in report["axes"]:
            assert row[f"delta_{a['axis']}"] == a["delta"]
            assert row[f"severity_{a['axis']}"] == a["severity"]
        assert row["error"] is None and "_summary" not in row


def test_real_traces_with_a_policy(spark, job, cli, tmp_path):
    d = ROOT / "tests" / "fixtures" / "shadow" / "refund-causal-diagnosis"
    policy = str(d / "policy.yaml")
    b, c = str(d / "baseline_traces"), str(d / "candidate_traces")
    out = tmp_path / "out"
    options = {"policy": policy, "pricing": None, "seed": 42, "top_k": 5, "fail_on": "severe"}
    code = job.run(spark, b, c, str(out), options)
    expected = cli.json("diff", b, c, "--policy", policy, "--fail-on", "severe", "--format", "json", code=code)
    assert expected["gate"]["tripped"] == (code == 1)
    summary = json.loads((out / "summary.json").read_text())
    assert canonical(summary["aggregate"]) == canonical(expected["aggregate"])
    assert summary["gate"] == expected["gate"]
    rows = spark.read.parquet(str(out / "pairs.parquet")).orderBy("baseline").collect()
    for row, p in zip(rows, expected["pairs"]):
        regressions = p["report"]["policy"]["regressions"]
        assert row["policy_regressions"] == len(regressions)
        assert row["policy_regression_rules"] == [r["rule_id"] for r in regressions]


def test_a_pair_that_cannot_be_compared_is_exit_2(spark, job, corpus, tmp_path, capsys):
    b, c = corpus
    bad_b, bad_c = tmp_path / "b", tmp_path / "c"
    shutil.copytree(b, bad_b)
    shutil.copytree(c, bad_c)
    victim = sorted(bad_c.glob("*.agentlog"))[1]
    victim.write_text("{not json\n")
    out = tmp_path / "out"
    options = {"policy": None, "pricing": None, "seed": 42, "top_k": 5, "fail_on": "never"}
    assert job.run(spark, str(bad_b), str(bad_c), str(out), options) == 2
    assert not (out / "summary.json").exists()
    err = capsys.readouterr().err
    assert str(victim) in err
    errors = spark.read.parquet(str(out / "pairs.parquet")).where("error IS NOT NULL").collect()
    assert [r["baseline"] for r in errors] == [victim.name]


@pytest.mark.parametrize("fail_on", ["minor", "moderate", "severe"])
def test_the_job_trips_on_what_the_cli_trips_on(spark, job, cli, tmp_path, fail_on):
    # Policy regressions trip the gate whatever the worst axis severity.
    d = ROOT / "tests" / "fixtures" / "shadow" / "refund-causal-diagnosis"
    policy = str(d / "policy.yaml")
    b, c = str(d / "baseline_traces"), str(d / "candidate_traces")
    options = {"policy": policy, "pricing": None, "seed": 42, "top_k": 5, "fail_on": fail_on}
    code = job.run(spark, b, c, str(tmp_path / "out"), options)
    expected = cli.json("diff", b, c, "--policy", policy, "--fail-on", fail_on, "--format", "json", code=code)
    assert code == (1 if expected["gate"]["tripped"] else 0)
    rows = spark.read.parquet(str(tmp_path / "out" / "pairs.parquet")).orderBy("baseline").collect()
    assert [r["gate_tripped"] for r in rows] == [p["report"]["gate"]["tripped"] for p in expected["pairs"]]


def test_a_pair_that_cannot_be_compared_trips_a_set_gate(spark, job, corpus, tmp_path):
    b, c = corpus
    bad_b, bad_c = tmp_path / "b", tmp_path / "c"
    shutil.copytree(b, bad_b)
    shutil.copytree(c, bad_c)
    sorted(bad_c.glob("*.agentlog"))[1].write_text("{not json\n")
    options = {"policy": None, "pricing": None, "seed": 42, "top_k": 5, "fail_on": "severe"}
    assert job.run(spark, str(bad_b), str(bad_c), str(tmp_path / "out"), options) == 1


def shifted_corpus(cli, d: Path, pairs: int, turns: int, seed: int):
    """`pairs` synthetic pairs whose candidates are their baselines with one small shift: two
    numbers at the end of every response text, the same tool calls. Too small for any pair's
    own verdict (a changed tool call would be one: docs/diff.md, "The gate reads the calls"),
    but it moves every response's numeric-token density the same way, so the pooled test sees
    it."""
    cli("synth", "--kind", "near", "--turns", str(turns), "--pairs", str(pairs), "--seed", str(seed), "--out-dir", str(d))
    for f in sorted((d / "candidate").glob("*.agentlog")):
        lines = []
        for line in (d / "baseline" / f.name).read_text().splitlines():
            r = json.loads(line)
            if r["kind"] == "chat_response":
                for part in r["payload"]["content"]:
                    if part.get("type") == "text":
                        part["text"] = part["text"].rstrip(".") + " 12 34."
            lines.append(json.dumps(r, separators=(",", ":")))
        f.write_text("\n".join(lines) + "\n")
    return d / "baseline", d / "candidate"


def test_only_the_pooled_test_trips_and_the_job_trips_with_the_cli(spark, job, cli, tmp_path, capsys):
    b, c = shifted_corpus(cli, tmp_path / "corpus", pairs=60, turns=6, seed=3)
    # The CLI: exit 1, tripped by the pooled fingerprint test alone.
    p = cli("diff", str(b), str(c), "--fail-on", "moderate", code=1)
    assert "gate tripped by: pooled fingerprint test (moderate)" in p.stdout + p.stderr
    expected = cli.json("diff", str(b), str(c), "--fail-on", "moderate", "--format", "json", code=1)
    assert not any(pair["report"]["gate"]["tripped"] for pair in expected["pairs"])
    assert expected["fingerprint"]["decision"] == "reject" and expected["fingerprint"]["n1"] == 360

    out = tmp_path / "out"
    options = {"policy": None, "pricing": None, "seed": 42, "top_k": 5, "fail_on": "moderate"}
    assert job.run(spark, str(b), str(c), str(out), options, partitions=7) == 1
    assert "pooled fingerprint test (moderate)" in capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())
    # The same doubles: the JSON texts of the two blocks are equal, key by key.
    assert canonical(summary["fingerprint"]) == canonical(expected["fingerprint"])
    assert summary["gate"] == expected["gate"]
    assert canonical(summary["aggregate"]) == canonical(expected["aggregate"])
    rows = spark.read.parquet(str(out / "pairs.parquet")).collect()
    assert not any(r["gate_tripped"] for r in rows)
    assert not any(name.startswith("_") for name in rows[0].asDict())

    # At a gate the pooled test does not reach, neither trips.
    assert job.run(spark, str(b), str(c), str(tmp_path / "out2"), dict(options, fail_on="severe"), partitions=3) == 0
    expected = cli.json("diff", str(b), str(c), "--fail-on", "severe", "--format", "json")
    assert json.loads((tmp_path / "out2" / "summary.json").read_text())["gate"] == expected["gate"]


def test_a_pool_past_4096_responses_takes_the_second_pass_with_the_cli_doubles(spark, job, cli, tmp_path):
    # 45 pairs of 100 responses: 4,500 a side, past the rows the pool holds, so the job streams
    # the rows twice, as the CLI reads the pairs twice.
    b, c = shifted_corpus(cli, tmp_path / "corpus", pairs=45, turns=100, seed=11)
    expected = cli.json("diff", str(b), str(c), "--format", "json")
    assert expected["fingerprint"]["n1"] > 4096
    out = tmp_path / "out"
    options = {"policy": None, "pricing": None, "seed": 42, "top_k": 5, "fail_on": "never"}
    assert job.run(spark, str(b), str(c), str(out), options, partitions=4) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert canonical(summary["fingerprint"]) == canonical(expected["fingerprint"])
    assert summary["gate"] == expected["gate"]
