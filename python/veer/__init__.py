"""veer: what changed in an AI agent's behaviour between two recorded runs.

Each function returns exactly the JSON object the ``veer`` CLI prints with ``--format json``
for the same inputs, parsed into Python objects. Inputs are a path (``str`` or
``os.PathLike``), the ``bytes`` of a trace file, or a list of record dicts (veer's
``.agentlog`` records, e.g. as :func:`read` returns them). The work runs in Rust with the GIL
released, so threads can diff in parallel. Bad input raises a :class:`VeerError` subclass
with the CLI's message, file, line, field and hint.
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native
from ._errors import InputError, PolicyError, PricingError, TraceError, VeerError, from_native
from ._pooled import FingerprintPool, fingerprint_rows

__version__: str = _native.__version__

__all__ = [
    "Report",
    "diff",
    "diff_summarized",
    "check",
    "experiment_pair",
    "read",
    "convert",
    "trace_files",
    "pair_directories",
    "empty_summary",
    "merge_summaries",
    "finish_summary",
    "fingerprint_rows",
    "FingerprintPool",
    "VeerError",
    "TraceError",
    "PolicyError",
    "PricingError",
    "InputError",
    "__version__",
]

TraceInput = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, Sequence[Mapping[str, Any]]]


def _input(value: TraceInput, name: str) -> Tuple[str, Optional[bytes]]:
    """(name, None) for a path, (name, bytes) for a document in memory."""
    if isinstance(value, (str, os.PathLike)):
        return (os.fspath(value), None)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return (f"<{name}>", bytes(value))
    if isinstance(value, (list, tuple)):
        lines = []
        for i, record in enumerate(value):
            if not isinstance(record, Mapping):
                raise InputError(
                    f"{name}: record {i} is a {type(record).__name__}, not a dict",
                    field=f"[{i}]",
                    hint="pass a path, the bytes of a trace file, or a list of record dicts",
                )
            lines.append(json.dumps(record, ensure_ascii=False, separators=(",", ":")))
        return (f"<{name}>", ("\n".join(lines) + "\n").encode("utf-8"))
    raise InputError(
        f"{name}: a {type(value).__name__} is not a trace",
        hint="pass a path, the bytes of a trace file, or a list of record dicts",
    )


class Report(dict):
    """A report: exactly the JSON object the CLI prints with ``--format json`` (a ``dict``,
    equal to ``json.loads`` of the CLI's output), plus the engine's verdict on it.

    ``verdict`` is ``{"fail_on", "worst", "tripped", "unreadable", "trips", "tripped_by"}``;
    ``tripped`` lists what tripped the gate — each ``{"level", "kind", "reason"}`` with the
    axis (``"axis"``), the rule (``"rule_id"``, ``"pair_index"``, ``"session"``) and, for
    several traces, the ``"trace"`` — the signals the CLI names after ``gate tripped by:``;
    ``tripped_by`` is that line (``None`` when the gate did not trip).
    """

    verdict: Dict[str, Any]
    warnings: List[str]

    def __init__(self, report: Mapping[str, Any], verdict: Mapping[str, Any]):
        super().__init__(report)
        self.verdict = dict(verdict)
        self.warnings = []

    @property
    def tripped(self) -> List[Dict[str, Any]]:
        """What tripped the gate, in report order (empty when it did not trip)."""
        return list(self.verdict.get("trips", []))

    @property
    def tripped_by(self) -> Optional[str]:
        """The CLI's "gate tripped by" line, or ``None``."""
        return self.verdict.get("tripped_by")


def _path(value: Optional[Union[str, "os.PathLike[str]"]]) -> Optional[str]:
    return None if value is None else os.fspath(value)


def _call(fn, *args):
    try:
        return fn(*args)
    except _native.NativeError as e:
        raise from_native(e.args) from None


def _diff(baseline, candidate, policy, pricing, seed, top_k, fail_on, summary, redact):
    return _call(
        _native.diff,
        _input(baseline, "baseline"),
        _input(candidate, "candidate"),
        _path(policy),
        _path(pricing),
        int(seed),
        int(top_k),
        str(fail_on),
        summary,
        bool(redact),
    )


def diff(
    baseline: TraceInput,
    candidate: Optional[TraceInput] = None,
    *,
    policy: Optional[Union[str, "os.PathLike[str]"]] = None,
    pricing: Optional[Union[str, "os.PathLike[str]"]] = None,
    seed: int = 42,
    top_k: int = 5,
    fail_on: str = "never",
    fail_on_schema: str = "never",
    redact: bool = True,
    pair_by: str = "auto",
    trials: str = "auto",
    case_pattern: Optional[str] = None,
    alpha: float = 0.05,
    margins: Optional[Mapping[str, Union[str, float]]] = None,
    outcome: Optional[str] = None,
    outcome_threshold: Optional[float] = None,
    allow_missing: bool = False,
    quarantine: Optional[Union[str, "os.PathLike[str]"]] = None,
    stored_baseline: Optional[str] = None,
    baselines: Union[str, "os.PathLike[str]"] = ".veer/baselines",
) -> Report:
    """The behaviour diff: ``veer diff BASELINE CANDIDATE --format json``, for everything the
    CLI compares.

    With two paths the inputs decide the comparison, as on the command line: two traces, two
    directories of traces paired by relative path, two directories (or two Inspect AI logs)
    of cases with repeated trials — the trials report —, or, with ``stored_baseline="NAME"``
    (``--baseline NAME``), a stored baseline under ``baselines`` against the candidate
    directory given as ``baseline`` (``candidate`` left out). Traces given as bytes or record
    lists are compared as a pair.

    ``policy`` and ``pricing`` are file paths (``--policy``, ``--pricing``); ``seed`` seeds the
    bootstrap and permutation draws; ``top_k`` (≥ 1) is the number of ranked divergences;
    ``fail_on`` (``never``, ``minor``, ``moderate``, ``severe``, or ``inconclusive`` for
    trials) sets the gate: ``report["gate"]`` and :attr:`Report.tripped`. ``fail_on_schema``
    (``never``, ``breaking``, ``compatible``, ``cosmetic``) gates on the tool-schema changes of
    two paths (docs/tool-schema.md). ``pair_by``,
    ``trials``, ``case_pattern``, ``alpha``, ``margins`` (``{"latency": "20%", "behaviour":
    0.1}``), ``outcome``, ``outcome_threshold``, ``allow_missing`` and ``quarantine`` are the
    flags of the same names. Secrets in the report's strings are redacted unless
    ``redact=False`` (the CLI's ``--no-redact``). The warnings the CLI prints on stderr are in
    :attr:`Report.warnings`.
    """
    paths = isinstance(baseline, (str, os.PathLike)) and (
        candidate is None or isinstance(candidate, (str, os.PathLike))
    )
    if not paths:
        if candidate is None:
            raise InputError(
                "candidate: missing", hint="pass two traces, or stored_baseline= and a directory"
            )
        text, verdict, _ = _diff(
            baseline, candidate, policy, pricing, seed, top_k, fail_on, False, redact
        )
        return Report(json.loads(text), json.loads(verdict))
    if candidate is None and stored_baseline is None:
        raise InputError(
            "candidate: missing", hint="pass two paths, or stored_baseline= and a directory"
        )
    options = {
        "policy": _path(policy),
        "pricing": _path(pricing),
        "seed": int(seed),
        "top_k": int(top_k),
        "fail_on": str(fail_on),
        "fail_on_schema": str(fail_on_schema),
        "redact": bool(redact),
        "pair_by": str(pair_by),
        "trials": str(trials),
        "case_pattern": case_pattern,
        "alpha": float(alpha),
        "margins": [[str(k), v] for k, v in (margins or {}).items()],
        "outcome": outcome,
        "outcome_threshold": None if outcome_threshold is None else float(outcome_threshold),
        "allow_missing": bool(allow_missing),
        "quarantine": _path(quarantine),
        "stored_baseline": stored_baseline,
        "baselines": os.fspath(baselines),
    }
    second = "" if candidate is None else os.fspath(candidate)
    text, verdict, warnings = _call(
        _native.run, os.fspath(baseline), second, json.dumps(options)
    )
    report = Report(json.loads(text), json.loads(verdict))
    report.warnings = list(warnings)
    return report


def diff_summarized(
    baseline: TraceInput,
    candidate: TraceInput,
    *,
    policy: Optional[Union[str, "os.PathLike[str]"]] = None,
    pricing: Optional[Union[str, "os.PathLike[str]"]] = None,
    seed: int = 42,
    top_k: int = 5,
    fail_on: str = "never",
    redact: bool = True,
) -> Tuple[Report, Dict[str, Any]]:
    """:func:`diff`, and the pair's summary: what a corpus job merges with
    :func:`merge_summaries` and finishes with :func:`finish_summary` into the ``aggregate``
    block of ``veer diff DIR DIR``."""
    text, verdict, summary = _diff(
        baseline, candidate, policy, pricing, seed, top_k, fail_on, True, redact
    )
    return Report(json.loads(text), json.loads(verdict)), json.loads(summary)


def check(
    trace: TraceInput,
    policy: Union[str, "os.PathLike[str]"],
    *,
    fail_on: str = "severe",
    redact: bool = True,
) -> Report:
    """The policy's violations on one trace: ``veer check TRACE --policy POLICY --format json``
    (``redact=False``: ``--no-redact``), with the verdict (:attr:`Report.tripped`)."""
    text, verdict = _call(
        _native.check, _input(trace, "trace"), os.fspath(policy), str(fail_on), bool(redact)
    )
    return Report(json.loads(text), json.loads(verdict))


def experiment_pair(
    clean: TraceInput,
    perturbed: TraceInput,
    *,
    reruns: Iterable[TraceInput] = (),
    redact: bool = True,
) -> Dict[str, Any]:
    """traxr's perturbation metrics of one pair: ``veer experiment pair CLEAN PERTURBED
    [--rerun R]… --format json``; ``reruns`` are clean re-runs for the noise floor;
    ``redact=False`` is ``--no-redact``."""
    return json.loads(
        _call(
            _native.experiment_pair,
            _input(clean, "clean"),
            _input(perturbed, "perturbed"),
            [_input(r, f"rerun {i}") for i, r in enumerate(reruns)],
            bool(redact),
        )
    )


def _converted(inputs: Sequence[TraceInput], redact: bool) -> bytes:
    return _call(
        _native.convert, [_input(v, f"input {i}") for i, v in enumerate(inputs)], bool(redact)
    )


def read(path: TraceInput, *, redact: bool = True) -> List[Dict[str, Any]]:
    """The records of a trace in veer's model, any format veer reads: the ``.agentlog``
    records ``veer convert`` would write, one dict per record.

    Secrets are redacted as ``veer convert`` redacts them (``[REDACTED:<kind>]``; a record
    whose payload changed gets its new content id and its children's ``parent`` follows);
    ``redact=False`` is ``veer --no-redact convert``: the records verbatim."""
    return [json.loads(line) for line in _converted([path], redact).splitlines() if line]


def convert(
    path: Union[TraceInput, Sequence[Union[str, "os.PathLike[str]"]]],
    out: Union[str, "os.PathLike[str]"],
    *,
    redact: bool = True,
) -> None:
    """``veer convert PATH -o OUT``: any format veer reads, written as one ``.agentlog``,
    byte for byte as the CLI writes it.

    ``path`` may also be a list of paths (read one after the other). Secrets are redacted
    unless ``redact=False`` (``veer --no-redact convert``). ``out`` is replaced atomically (a
    temporary file in its directory, renamed over it); an ``out`` that is one of the inputs
    is refused, so nothing a user owns is lost.
    """
    inputs: List[TraceInput]
    if isinstance(path, (list, tuple)) and all(isinstance(p, (str, os.PathLike)) for p in path):
        inputs = list(path)
    else:
        inputs = [path]
    target = os.fspath(out)
    for i in inputs:
        if isinstance(i, (str, os.PathLike)) and os.path.exists(target) and os.path.exists(i):
            if os.path.samefile(i, target):
                raise InputError(
                    f"{target}: is one of the inputs; refusing to overwrite it",
                    file=target,
                    hint="write the converted trace to another file",
                )
    data = _converted(inputs, redact)
    directory = os.path.dirname(os.path.abspath(target))
    fd, tmp = tempfile.mkstemp(prefix=".veer-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def trace_files(directory: Union[str, "os.PathLike[str]"]) -> List[str]:
    """The trace files ``veer diff DIR DIR`` pairs under ``directory``: ``/``-separated
    relative paths, sorted."""
    return _call(_native.trace_files, os.fspath(directory))


def pair_directories(
    baseline: Union[str, "os.PathLike[str]"], candidate: Union[str, "os.PathLike[str]"]
) -> Dict[str, List[str]]:
    """How ``veer diff BASELINE_DIR CANDIDATE_DIR`` pairs two directories (the same engine
    function): ``matched`` (relative paths found under both), ``baseline_only`` and
    ``candidate_only``, each sorted. Raises :class:`InputError` when no file has a counterpart."""
    matched, baseline_only, candidate_only = _call(
        _native.pair_directories, os.fspath(baseline), os.fspath(candidate)
    )
    return {"matched": matched, "baseline_only": baseline_only, "candidate_only": candidate_only}


def empty_summary() -> Dict[str, Any]:
    """The summary of no trace pairs: the identity of :func:`merge_summaries`."""
    return json.loads(_native.empty_summary())


def merge_summaries(
    a: Mapping[str, Any], b: Mapping[str, Any], *, keep_deltas: bool = True
) -> Dict[str, Any]:
    """Two pair summaries merged (associative: any grouping gives the same summary).

    ``keep_deltas=False`` drops the per-pair deltas, so the result has a constant size; finish
    it with ``finish_summary(s, unmatched, medians=…)``."""
    return json.loads(_call(_native.merge_summaries, json.dumps(a), json.dumps(b), keep_deltas))


def finish_summary(
    summary: Mapping[str, Any],
    unmatched: int,
    *,
    medians: Optional[Mapping[str, Sequence[float]]] = None,
) -> Dict[str, Any]:
    """The ``aggregate`` block of ``veer diff DIR DIR --format json`` from a merged summary and
    the number of files found on one side only.

    Without ``medians`` the per-axis median comes from the summary's deltas. With it, each
    axis (by JSON name, e.g. ``"semantic"``) maps to the middle element(s) of its sorted
    deltas — one for an odd count, the two middle ones for an even count, none when the axis
    has no deltas — e.g. computed by a distributed sort."""
    middles = None if medians is None else [(k, [float(x) for x in v]) for k, v in medians.items()]
    return json.loads(_call(_native.finish_summary, json.dumps(summary), int(unmatched), middles))
