"""Redaction per call and the verdict on the result: every function
that returns report text redacts secrets by default, exactly as the CLI does, and
``redact=False`` gives exactly the CLI's ``--no-redact`` output; the result's ``tripped`` is
what the CLI names after "gate tripped by"."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import veer

SECRETS = [
    ("dana.lee@example.com", "[REDACTED:email]"),
    ("AKIAIOSFODNN7EXAMPLE", "[REDACTED:aws_access_key_id]"),
]


def leaky(root: Path, tmp: Path) -> str:
    """The refund agent's candidate with both secrets in its last answer, in a directory
    named by a secret (so every report naming the file holds one)."""
    d = tmp / "dana.lee@example.com"
    d.mkdir()
    text = (root / "examples/refund-agent/candidate.agentlog").read_text()
    text = text.replace(
        "I'm sorry, I can't help with questions about refund amounts.",
        "Write to dana.lee@example.com with key AKIAIOSFODNN7EXAMPLE.",
    )
    assert "AKIAIOSFODNN7EXAMPLE" in text
    p = d / "candidate.agentlog"
    p.write_text(text)
    return str(p)


def holds_secret(obj) -> bool:
    text = repr(obj)
    return any(s in text for s, _ in SECRETS)


def test_diff_redacts_by_default_and_redact_false_is_no_redact(root, cli, tmp_path):
    b = str(root / "examples/refund-agent/baseline.agentlog")
    c = leaky(root, tmp_path)
    redacted = veer.diff(b, c)
    assert redacted == cli.json("diff", b, c, "--format", "json")
    assert not holds_secret(redacted)
    raw = veer.diff(b, c, redact=False)
    assert raw == cli.json("--no-redact", "diff", b, c, "--format", "json")
    assert holds_secret(raw)
    assert raw != redacted
    r, _ = veer.diff_summarized(b, c, redact=False)
    assert r == raw


def test_check_and_experiment_pair_take_redact_false(root, cli, tmp_path):
    c = leaky(root, tmp_path)
    policy = str(root / "examples/refund-agent/policy.yaml")
    ours = veer.check(c, policy, redact=False)
    assert ours == cli.json("--no-redact", "check", c, "--policy", policy, "--format", "json", code=1)
    assert holds_secret(ours)
    assert veer.check(c, policy) == cli.json("check", c, "--policy", policy, "--format", "json", code=1)
    b = str(root / "examples/refund-agent/baseline.agentlog")
    raw = veer.experiment_pair(b, c, redact=False)
    assert raw == cli.json("--no-redact", "experiment", "pair", b, c, "--format", "json")
    assert holds_secret(raw)
    redacted = veer.experiment_pair(b, c)
    assert redacted == cli.json("experiment", "pair", b, c, "--format", "json")
    assert not holds_secret(redacted)


# Policy severities on the gate's scale (docs/policy.md), and the scale's order.
GATE_LEVEL = {"info": "minor", "warning": "moderate", "error": "severe", "critical": "severe"}
RANK = {"none": 0, "minor": 1, "moderate": 2, "severe": 3}


def cli_tripped_by(text: str, prefix: str) -> str:
    m = re.search(re.escape(prefix) + r" (.*)", text)
    assert m, text
    return m.group(1)


def test_diff_result_names_what_tripped_the_gate_like_the_cli(root, cli):
    b = str(root / "examples/refund-agent/baseline.agentlog")
    c = str(root / "examples/refund-agent/candidate.agentlog")
    policy = str(root / "examples/refund-agent/policy.yaml")
    for level in ["minor", "moderate", "severe"]:
        r = veer.diff(b, c, policy=policy, fail_on=level)
        p = cli("diff", b, c, "--policy", policy, "--fail-on", level, code=1)
        assert r["gate"]["tripped"] is True
        assert r.tripped_by == cli_tripped_by(p.stdout, "gate tripped by:")
        assert r.verdict["tripped"] is True and r.verdict["fail_on"] == level
        kinds = {t["kind"] for t in r.tripped}
        assert "policy" in kinds, r.tripped
        rules = [t["rule_id"] for t in r.tripped if t["kind"] == "policy"]
        assert rules == [
            v["rule_id"]
            for v in r["policy"]["regressions"]
            if RANK[GATE_LEVEL[v["severity"]]] >= RANK[level]
        ]
        for t in r.tripped:
            assert t["level"] in ("minor", "moderate", "severe")
            if t["kind"] == "axis":
                assert any(a["axis"] == t["axis"] for a in r["axes"])
    r = veer.diff(b, c, policy=policy)
    assert r.tripped == [] and r.tripped_by is None and r.verdict["tripped"] is False


def test_check_result_names_the_trace_and_rule_like_the_cli(root, cli):
    d = str(root / "tests/fixtures/shadow/refund-causal-diagnosis/candidate_traces/s1.agentlog")
    policy = str(root / "tests/fixtures/shadow/refund-causal-diagnosis/policy.yaml")
    r = veer.check(d, policy, fail_on="minor")
    assert r.verdict["tripped"] is True
    p = cli("check", d, "--policy", policy, "--fail-on", "minor", "--format", "github", code=1)
    line = cli_tripped_by(p.stdout, "Tripped by:")
    assert line.rstrip(".") == r.tripped_by
    for t in r.tripped:
        assert t["kind"] == "policy"
        assert t["trace"] == d
        assert any(v["rule_id"] == t["rule_id"] for tr in r["traces"] for v in tr["violations"])


def test_read_and_convert_redact_like_veer_convert_byte_for_byte(root, cli, tmp_path):
    # A secret in the session's first record (the parent of every later record) and in an
    # answer: both records get new content ids and the child's `parent` follows.
    text = (root / "examples/refund-agent/candidate.agentlog").read_text()
    assert '"env":"demo"' in text
    text = text.replace('"env":"demo"', '"env":"AKIAIOSFODNN7EXAMPLE"', 1)
    text = text.replace(
        "I'm sorry, I can't help with questions about refund amounts.",
        "Write to dana.lee@example.com with key AKIAIOSFODNN7EXAMPLE.",
    )
    trace = tmp_path / "leaky.agentlog"
    trace.write_text(text)

    ours, theirs = tmp_path / "ours.agentlog", tmp_path / "theirs.agentlog"
    veer.convert(trace, ours)
    cli("convert", str(trace), "-o", str(theirs))
    assert ours.read_bytes() == theirs.read_bytes()
    assert not holds_secret(ours.read_text())
    records = veer.read(trace)
    assert records == [json.loads(line) for line in theirs.read_text().splitlines()]
    original = [json.loads(line) for line in text.splitlines()]
    assert records[0]["id"] != original[0]["id"]
    assert records[0]["payload"]["tags"]["env"] == "[REDACTED:aws_access_key_id]"
    assert records[1]["parent"] == records[0]["id"]
    # Records with nothing to redact keep their ids.
    assert records[1]["id"] == original[1]["id"]
    # The redacted output reads back as the same records.
    assert veer.read(ours.read_bytes(), redact=False) == records

    raw_ours, raw_theirs = tmp_path / "raw-ours.agentlog", tmp_path / "raw-theirs.agentlog"
    veer.convert(trace, raw_ours, redact=False)
    cli("--no-redact", "convert", str(trace), "-o", str(raw_theirs))
    assert raw_ours.read_bytes() == raw_theirs.read_bytes()
    assert holds_secret(raw_ours.read_text())
    assert veer.read(trace, redact=False) == [json.loads(line) for line in raw_theirs.read_text().splitlines()]
    # Unredacted, the edited first record gets the content id of what it holds now (its stored
    # id was that of the payload before the edit: convert never writes a stale id); its child
    # follows, and records nobody edited keep their ids.
    unredacted = veer.read(trace, redact=False)
    assert unredacted[0]["id"] != original[0]["id"]
    assert unredacted[1]["parent"] == unredacted[0]["id"]
    assert unredacted[1]["id"] == original[1]["id"]
