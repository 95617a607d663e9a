"""Corpus summaries from Python: per-pair summaries merged in any grouping finish to the
`aggregate` block `veer diff DIR DIR --format json` prints, with the medians from the
summaries' deltas or given as the middle deltas."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import veer


def canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


@pytest.fixture(scope="module")
def corpus(cli, tmp_path_factory):
    """A small synthetic corpus: changed pairs at the top, near pairs in a subdirectory, one
    file on each side without a counterpart."""
    d = tmp_path_factory.mktemp("corpus")
    cli("synth", "--kind", "changed", "--turns", "12", "--pairs", "5", "--seed", "3", "--out-dir", str(d))
    near = tmp_path_factory.mktemp("near")
    cli("synth", "--kind", "near", "--turns", "12", "--pairs", "4", "--seed", "9", "--out-dir", str(near))
    for side in ("baseline", "candidate"):
        (d / side / "near").mkdir()
        for f in (near / side).iterdir():
            f.rename(d / side / "near" / f.name)
    first = sorted((d / "baseline").glob("*.agentlog"))[0]
    (d / "baseline" / "only-here.agentlog").write_bytes(first.read_bytes())
    (d / "candidate" / "only-there.agentlog").write_bytes(first.read_bytes())
    return d / "baseline", d / "candidate"


def test_trace_files_pairs_like_the_cli(cli, corpus):
    b, c = corpus
    report = cli.json("diff", str(b), str(c), "--format", "json")
    names = [p["baseline"] for p in report["pairs"]]
    assert names == [n for n in veer.trace_files(b) if n in set(veer.trace_files(c))]
    assert report["unmatched"]["baseline_only"] == ["only-here.agentlog"]


def test_merged_summaries_finish_to_the_cli_aggregate(cli, corpus):
    b, c = corpus
    expected = cli.json("diff", str(b), str(c), "--format", "json")["aggregate"]
    names = [n for n in veer.trace_files(b) if n in set(veer.trace_files(c))]
    summaries = [veer.diff_summarized(b / n, c / n)[1] for n in names]
    rng = random.Random(7)
    for attempt in range(5):
        parts = summaries[:]
        rng.shuffle(parts)
        # Merge in a random binary tree.
        while len(parts) > 1:
            i = rng.randrange(len(parts) - 1)
            parts[i : i + 2] = [veer.merge_summaries(parts[i], parts[i + 1])]
        merged = parts[0]
        assert canonical(veer.finish_summary(merged, 2)) == canonical(expected)

        # Without deltas, given the middle deltas of each axis instead.
        slim = veer.empty_summary()
        for s in summaries:
            slim = veer.merge_summaries(slim, s, keep_deltas=False)
        assert all(a["deltas"] == [] for a in slim["axes"])
        middles = {}
        for a in merged["axes"]:
            d = sorted(a["deltas"])
            n = len(d)
            middles[a["axis"]] = [] if n == 0 else ([d[n // 2]] if n % 2 else d[n // 2 - 1 : n // 2 + 1])
        assert canonical(veer.finish_summary(slim, 2, medians=middles)) == canonical(expected)


def test_bad_summaries_and_medians_are_input_errors():
    with pytest.raises(veer.InputError):
        veer.merge_summaries({"trace_pairs": 1}, veer.empty_summary())
    with pytest.raises(veer.InputError):
        veer.finish_summary(veer.empty_summary(), 0, medians={"no-such-axis": [1.0]})
    with pytest.raises(veer.InputError):
        veer.finish_summary(veer.empty_summary(), 0, medians={"semantic": [1.0, 2.0, 3.0]})
