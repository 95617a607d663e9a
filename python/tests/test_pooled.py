"""The pooled fingerprint test of the package (veer.fingerprint_rows + veer.FingerprintPool),
without Spark: fed a directory's pairs in path order it gives the `fingerprint` block of
`veer diff DIR DIR --format json` value for value, held (few rows) and summed (past 4,096 rows a
side, with the second pass), and the engine's verdict on it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import veer
from test_spark import shifted_corpus


def canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def rows_of(b: Path, c: Path):
    names = veer.pair_directories(b, c)["matched"]
    return [veer.fingerprint_rows(b / n, c / n) for n in names]


def test_a_held_pool_is_the_cli_block_and_its_verdict(cli, tmp_path):
    b, c = shifted_corpus(cli, tmp_path, pairs=20, turns=6, seed=4)
    expected = cli.json("diff", str(b), str(c), "--fail-on", "moderate", "--format", "json", code=1)
    pool = veer.FingerprintPool()
    for pair in rows_of(b, c):
        pool.push(*pair)
    assert pool.pairs == 20 and not pool.needs_second_pass
    result = pool.finish(fail_on="moderate")
    assert canonical(result["fingerprint"]) == canonical(expected["fingerprint"])
    assert result["verdict"]["tripped"] and result["verdict"]["worst"] == "moderate"
    assert result["verdict"]["tripped_by"] == "pooled fingerprint test (moderate)"
    with pytest.raises(veer.InputError, match="finished"):
        pool.push(b"", b"")


def test_a_summed_pool_takes_the_second_pass_and_checks_it(cli, tmp_path):
    b, c = shifted_corpus(cli, tmp_path, pairs=43, turns=100, seed=8)
    expected = cli.json("diff", str(b), str(c), "--format", "json")
    assert expected["fingerprint"]["n1"] > 4096
    rows = rows_of(b, c)
    pool = veer.FingerprintPool()
    for pair in rows:
        pool.push(*pair)
    assert pool.needs_second_pass
    calls = []

    def again():
        calls.append(1)
        return iter(rows)

    result = pool.finish(again, fail_on="never")
    assert calls == [1]
    assert canonical(result["fingerprint"]) == canonical(expected["fingerprint"])
    assert not result["verdict"]["tripped"]

    # A second pass that is not the first (a pair missing) is an error, not a result.
    pool = veer.FingerprintPool()
    for pair in rows:
        pool.push(*pair)
    with pytest.raises(veer.InputError, match="changed"):
        pool.finish(lambda: iter(rows[1:]))
    # Without a second pass the summed pool cannot finish.
    pool = veer.FingerprintPool()
    for pair in rows:
        pool.push(*pair)
    with pytest.raises(ValueError, match="second_pass"):
        pool.finish()


def test_rows_that_are_not_whole_rows_are_an_input_error(root):
    b = str(root / "examples/refund-agent/baseline.agentlog")
    c = str(root / "examples/refund-agent/candidate.agentlog")
    rb, rc = veer.fingerprint_rows(b, c)
    assert len(rb) % 96 == 0 and len(rc) % 96 == 0 and rb
    pool = veer.FingerprintPool()
    with pytest.raises(veer.InputError, match="whole number"):
        pool.push(rb[:-1], rc)
    with pytest.raises(veer.TraceError):
        veer.fingerprint_rows(b, str(root / "Cargo.toml"))
