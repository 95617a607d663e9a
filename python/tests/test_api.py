"""The Python API returns what the CLI prints: the same JSON objects on the repository's
conformance traces (Shadow and traxr fixtures), the same errors, the same version."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

import veer

SHADOW = ["demo", "customer-support", "devops-agent", "er-triage", "harmful-content-judge", "refund-agent-audit"]


def pair(name):
    d = f"tests/fixtures/shadow/{name}"
    return f"{d}/baseline.agentlog", f"{d}/candidate.agentlog"


@pytest.fixture(autouse=True)
def at_root(root, monkeypatch):
    monkeypatch.chdir(root)


@pytest.mark.parametrize("name", SHADOW)
def test_diff_equals_the_cli_on_the_conformance_pairs(cli, name):
    b, c = pair(name)
    assert veer.diff(b, c) == cli.json("diff", b, c, "--format", "json")


def test_diff_options_are_the_cli_flags(cli):
    b = "tests/fixtures/shadow/refund-causal-diagnosis/baseline_traces/s1.agentlog"
    c = "tests/fixtures/shadow/refund-causal-diagnosis/candidate_traces/s1.agentlog"
    policy = "tests/fixtures/shadow/refund-causal-diagnosis/policy.yaml"
    ours = veer.diff(b, c, policy=policy, seed=7, top_k=2, fail_on="minor")
    theirs = cli.json(
        "diff", b, c, "--policy", policy, "--seed", "7", "--top-k", "2", "--fail-on", "minor",
        "--format", "json", code=1 if ours["gate"]["tripped"] else 0,
    )
    assert ours == theirs
    assert ours["gate"]["fail_on"] == "minor"


def test_diff_with_pricing_equals_the_cli(cli, tmp_path):
    b, c = pair("demo")
    pricing = tmp_path / "pricing.json"
    pricing.write_text(json.dumps({"claude-opus-4-7": [0.000015, 0.000075], "claude-haiku-4-5": [0.000001, 0.000005]}))
    assert veer.diff(b, c, pricing=pricing) == cli.json("diff", b, c, "--pricing", str(pricing), "--format", "json")


def _without_paths(report):
    report = dict(report)
    report.pop("baseline", None)
    report.pop("candidate", None)
    return report


def test_inputs_as_bytes_and_as_records_diff_like_the_file(root):
    b, c = pair("customer-support")
    from_path = veer.diff(b, c)
    from_bytes = veer.diff(Path(b).read_bytes(), Path(c).read_bytes())
    from_records = veer.diff(veer.read(b), veer.read(c))
    assert from_bytes["baseline"]["path"] == "<baseline>"
    assert _without_paths(from_bytes) == _without_paths(from_path)
    assert _without_paths(from_records) == _without_paths(from_path)


def test_check_equals_the_cli(cli):
    policy = "tests/fixtures/shadow/refund-causal-diagnosis/policy.yaml"
    for side in ("baseline", "candidate"):
        trace = f"tests/fixtures/shadow/refund-causal-diagnosis/{side}_traces/s2.agentlog"
        ours = veer.check(trace, policy)
        code = 1 if ours["gate"]["tripped"] else 0
        assert ours == cli.json("check", trace, "--policy", policy, "--format", "json", code=code)


def test_experiment_pair_equals_the_cli(cli, tmp_path):
    b, c = pair("demo")
    assert veer.experiment_pair(b, c) == cli.json("experiment", "pair", b, c, "--format", "json")
    rerun = tmp_path / "rerun.agentlog"
    shutil.copy(b, rerun)
    ours = veer.experiment_pair(b, c, reruns=[rerun])
    assert ours == cli.json("experiment", "pair", b, c, "--rerun", str(rerun), "--format", "json")


def test_read_and_convert_equal_veer_convert(cli, tmp_path):
    for trace in ["tests/fixtures/shadow/demo/baseline.agentlog", "tests/fixtures/traxr/goldens/builtin_stub.json"]:
        expected = cli("convert", trace).stdout
        assert veer.read(trace) == [json.loads(line) for line in expected.splitlines()]
        out = tmp_path / "out.agentlog"
        veer.convert(trace, out)
        assert out.read_text() == expected


def test_convert_refuses_to_overwrite_its_input(tmp_path):
    src = tmp_path / "t.agentlog"
    shutil.copy("tests/fixtures/shadow/demo/baseline.agentlog", src)
    before = src.read_bytes()
    with pytest.raises(veer.InputError) as e:
        veer.convert(src, src)
    assert e.value.file == str(src) and e.value.hint
    assert src.read_bytes() == before


def _cli_error(cli, *args):
    p = cli(*args, code=2)
    lines = p.stderr.splitlines()
    message = next(l for l in lines if l.startswith("error: "))[len("error: "):]
    hint = next((l[len("hint: "):] for l in lines if l.startswith("hint: ")), None)
    return message, hint


def test_a_bad_trace_raises_the_cli_error(cli, tmp_path):
    good = "tests/fixtures/shadow/demo/baseline.agentlog"
    bad = tmp_path / "bad.agentlog"
    lines = Path(good).read_text().splitlines()
    record = json.loads(lines[1])
    del record["kind"]
    lines[1] = json.dumps(record)
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(veer.TraceError) as e:
        veer.diff(good, bad)
    message, hint = _cli_error(cli, "diff", good, str(bad))
    err = e.value
    assert (err.message, err.hint) == (message, hint)
    assert err.file == str(bad) and err.line == 2 and err.field
    assert isinstance(err, veer.VeerError)


def test_a_missing_file_a_bad_policy_and_a_bad_pricing_file(cli, tmp_path):
    b, c = pair("demo")
    with pytest.raises(veer.TraceError) as e:
        veer.diff(b, tmp_path / "nope.agentlog")
    assert e.value.message == _cli_error(cli, "diff", b, str(tmp_path / "nope.agentlog"))[0]

    policy = tmp_path / "p.yaml"
    policy.write_text("rules:\n  - id: r1\n    kind: no_such_kind\n")
    with pytest.raises(veer.PolicyError) as e:
        veer.diff(b, c, policy=policy)
    # The CLI prints a policy problem's hint indented under it.
    stderr = cli("diff", b, c, "--policy", str(policy), code=2).stderr
    assert stderr.startswith(f"error: {e.value.message}\n  hint: {e.value.hint}\n")
    assert e.value.file == str(policy) and e.value.line == 3

    pricing = tmp_path / "pricing.json"
    pricing.write_text('{"m": {"input": "x"}}')
    with pytest.raises(veer.PricingError) as e:
        veer.diff(b, c, pricing=pricing)
    message, hint = _cli_error(cli, "diff", b, c, "--pricing", str(pricing))
    assert (e.value.message, e.value.hint) == (message, hint)
    assert e.value.field


def test_mismatched_formats_and_bad_arguments(cli):
    b = "tests/fixtures/shadow/demo/baseline.agentlog"
    traxr = "tests/fixtures/traxr/goldens/builtin_stub.json"
    with pytest.raises(veer.VeerError):
        veer.diff(b, traxr)
    with pytest.raises(veer.InputError):
        veer.diff(b, b, fail_on="sometimes")
    with pytest.raises(veer.InputError):
        veer.diff(b, b, top_k=0)
    with pytest.raises(veer.InputError):
        veer.diff(b, [1, 2])
    with pytest.raises(veer.InputError):
        veer.diff(b, 3.5)


def test_the_version_is_the_cli_version(cli):
    assert cli("--version").stdout.split()[-1] == veer.__version__


def test_the_gil_is_released_while_veer_computes(cli, tmp_path):
    # A pair large enough that one diff takes a while; while a thread runs it, Python code in
    # this thread must keep running (it could not if veer held the GIL).
    cli("synth", "--kind", "changed", "--turns", "1500", "--out-dir", str(tmp_path))
    b, c = str(tmp_path / "baseline.agentlog"), str(tmp_path / "candidate.agentlog")
    started = time.perf_counter()
    veer.diff(b, c)
    alone = time.perf_counter() - started
    assert alone > 0.05, f"the pair diffs too fast ({alone:.3f} s) to observe the GIL"
    ticks = 0
    worker = threading.Thread(target=veer.diff, args=(b, c))
    worker.start()
    while worker.is_alive():
        ticks += 1
        time.sleep(0.001)
    worker.join()
    # With the GIL held the loop would stall for the whole diff: a handful of ticks at most.
    assert ticks >= 0.25 * alone / 0.002, (ticks, alone)


def test_threads_give_the_same_reports():
    b, c = pair("er-triage")
    expected = veer.diff(b, c)
    results = [None] * 4

    def work(i):
        results[i] = veer.diff(b, c)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r == expected for r in results)
