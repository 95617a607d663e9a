"""Directory mode's pooled fingerprint test, for jobs that read the pairs themselves (the Spark
example, docs/spark.md): :func:`fingerprint_rows` computes one pair's response fingerprints
where the pair is read, and a :class:`FingerprintPool` fed every pair's rows in path order runs
the engine's own pooled test, so its block and verdict are those of ``veer diff DIR DIR``."""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Dict, Iterable, Optional, Tuple, Union

from . import _native
from ._errors import from_native

PairRows = Tuple[bytes, bytes]


def _call(fn, *args):
    try:
        return fn(*args)
    except _native.NativeError as e:
        raise from_native(e.args) from None


def fingerprint_rows(
    baseline: Union[str, "os.PathLike[str]"], candidate: Union[str, "os.PathLike[str]"]
) -> PairRows:
    """One pair's response fingerprints, read and checked as ``veer diff DIR DIR`` reads the
    pair: ``(baseline, candidate)`` bytes, each a run of rows of 12 little-endian doubles
    (exact values: they are the doubles the CLI pools). Raises a :class:`VeerError` when the
    pair cannot be read or compared."""
    return _call(_native.fingerprint_rows, os.fspath(baseline), os.fspath(candidate))


class FingerprintPool:
    """The pooled behaviour-fingerprint test of a directory diff (docs/corpus.md), run by the
    engine's own pool: :meth:`push` each measured pair's rows in path order (the order of
    ``pair_directories(...)["matched"]``, skipping pairs that could not be read), then
    :meth:`finish`. While each side has at most 4,096 rows the pool holds them; past that it
    keeps only sums and :meth:`finish` asks for every pair's rows a second time, as the CLI
    reads the pairs twice — so memory does not grow with the corpus and the doubles are the
    CLI's."""

    def __init__(self) -> None:
        self._pool = _native.Pool()

    def push(self, baseline: bytes, candidate: bytes) -> None:
        """Adds the next pair's rows (as :func:`fingerprint_rows` returns them)."""
        _call(self._pool.push, bytes(baseline), bytes(candidate))

    @property
    def pairs(self) -> int:
        """Pairs pushed so far."""
        return _call(self._pool.pairs)

    @property
    def needs_second_pass(self) -> bool:
        """Whether :meth:`finish` will call its ``second_pass``."""
        return _call(self._pool.needs_second_pass)

    def finish(
        self,
        second_pass: Optional[Callable[[], Iterable[PairRows]]] = None,
        fail_on: str = "never",
    ) -> Dict[str, Any]:
        """The pooled test: ``{"fingerprint": block, "verdict": verdict}``. ``block`` is the
        ``fingerprint`` object of ``veer diff DIR DIR --format json`` (``None`` when a side
        has too few responses); ``verdict`` is the engine's verdict on it at ``fail_on`` (as
        :attr:`Report.verdict`: a powered rejection counts as ``moderate``). ``second_pass``
        returns the pushed rows again, in the same order; it is needed (and called) only when
        :attr:`needs_second_pass`. The pool cannot be used afterwards."""

        def again() -> Iterable[PairRows]:
            if second_pass is None:
                raise ValueError("this pool holds only sums: pass second_pass to finish()")
            return second_pass()

        block, verdict = _call(self._pool.finish, again, str(fail_on))
        return {"fingerprint": json.loads(block), "verdict": json.loads(verdict)}
