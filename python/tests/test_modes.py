"""`veer.diff` compares everything `veer diff` compares: directories paired by path, cases
with repeated trials, Inspect AI logs of several sample-epochs, and a stored baseline, each
equal to the CLI's JSON report, with the same gate."""

import json
import shutil
from pathlib import Path

import pytest

import veer

DEMO = Path("tests/fixtures/shadow/demo")


@pytest.fixture(autouse=True)
def at_root(root, monkeypatch):
    monkeypatch.chdir(root)


def _gate_code(report):
    return 1 if report["gate"]["tripped"] else 0


def _directories(tmp_path, layout):
    """Two directories: for each relative path in `layout`, the demo baseline under `b/` and
    the demo candidate under `c/`."""
    b, c = tmp_path / "b", tmp_path / "c"
    for rel in layout:
        for side, src in ((b, "baseline"), (c, "candidate")):
            dest = side / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(DEMO / f"{src}.agentlog", dest)
    return b, c


def test_two_directories_paired_by_path_equal_the_cli(cli, tmp_path):
    b, c = _directories(tmp_path, ["one.agentlog", "sub/two.agentlog"])
    ours = veer.diff(b, c, fail_on="moderate", trials="off")
    code = 1 if ours.verdict["tripped"] else 0
    theirs = cli.json("diff", str(b), str(c), "--format", "json", "--fail-on", "moderate",
                      "--trials", "off", code=code)
    assert dict(ours) == theirs
    assert [p["baseline"] for p in ours["pairs"]] == ["one.agentlog", "sub/two.agentlog"]


def test_cases_with_repeated_trials_equal_the_cli(cli, tmp_path):
    layout = [f"{case}/trial-{n}.agentlog" for case in ("refund", "lookup") for n in (1, 2, 3)]
    b, c = _directories(tmp_path, layout)
    ours = veer.diff(b, c, fail_on="severe")
    assert "trials" in ours, "a directory of CASE/trial-N files is the trials report"
    code = 1 if ours.verdict["tripped"] else 0
    theirs = cli.json("diff", str(b), str(c), "--format", "json", "--fail-on", "severe",
                      code=code)
    assert dict(ours) == theirs
    assert sorted(case["case"] for case in ours["trials"]["cases"]) == ["lookup", "refund"]


def test_a_missing_case_trips_the_gate_unless_allowed(cli, tmp_path):
    layout = [f"{case}/trial-{n}.agentlog" for case in ("refund", "lookup") for n in (1, 2)]
    b, c = _directories(tmp_path, layout)
    shutil.rmtree(c / "lookup")
    assert veer.diff(b, c, fail_on="severe").verdict["tripped"]
    assert not veer.diff(b, c, fail_on="severe", allow_missing=True).verdict["tripped"]


def test_inspect_logs_of_several_samples_equal_the_cli(cli):
    b, c = "tests/fixtures/inspect/baseline.eval", "tests/fixtures/inspect/candidate.eval"
    ours = veer.diff(b, c)
    assert "trials" in ours
    assert dict(ours) == cli.json("diff", b, c, "--format", "json")


def test_a_stored_baseline_against_a_directory(cli, tmp_path):
    b, c = _directories(tmp_path, ["one.agentlog"])
    root = tmp_path / "store"
    cli("baseline", "create", str(b), "--name", "main", "--root", str(root))
    ours = veer.diff(c, stored_baseline="main", baselines=root, trials="off")
    assert [p["candidate"] for p in ours["pairs"]] == ["one.agentlog"]
    with pytest.raises(veer.InputError):
        veer.diff(c, stored_baseline="nothing-here", baselines=root)


def test_bad_trials_options_raise_input_errors(tmp_path):
    b, c = _directories(tmp_path, ["x/trial-1.agentlog", "x/trial-2.agentlog"])
    with pytest.raises(veer.InputError):
        veer.diff(b, c, alpha=1.5)
    with pytest.raises(veer.InputError):
        veer.diff(b, c, margins={"nonsense": "5%"})
    with pytest.raises(veer.InputError):
        veer.diff(b, c, case_pattern="(unclosed")
    with pytest.raises(veer.InputError):
        veer.diff(b, c, trials="sometimes")
