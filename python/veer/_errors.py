"""The exceptions veer raises: one base class, one subclass per kind of bad input."""

from __future__ import annotations

from typing import List, Optional


class VeerError(Exception):
    """An input veer cannot use. The CLI would print ``error: <message>`` and exit 2.

    Attributes:
        message: the whole message (names file, line and field where there are some).
        file: the file concerned, or None.
        line: its 1-based line, or None.
        field: the offending field (a JSON path, a policy rule), or None.
        hint: what to do about it, or None.
        more: further problems of the same kind (strict mode, a policy with several).
    """

    def __init__(
        self,
        message: str,
        file: Optional[str] = None,
        line: Optional[int] = None,
        field: Optional[str] = None,
        hint: Optional[str] = None,
        more: Optional[List[str]] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.field = field
        self.hint = hint
        self.more = list(more or [])

    def __str__(self) -> str:
        text = self.message
        for m in self.more:
            text += "\n" + m
        if self.hint:
            text += "\nhint: " + self.hint
        return text


class TraceError(VeerError):
    """A trace that cannot be read (bad JSON, a missing field, an unknown format…)."""


class PolicyError(VeerError):
    """A policy file that cannot be loaded."""


class PricingError(VeerError):
    """A pricing file that cannot be used."""


class InputError(VeerError):
    """Inputs that cannot be compared, or a bad argument."""


_CLASSES = {c.__name__: c for c in (TraceError, PolicyError, PricingError, InputError)}


def from_native(args: tuple) -> VeerError:
    """The VeerError subclass for a NativeError's arguments."""
    kind, message, file, line, field, hint, more = args
    return _CLASSES.get(kind, VeerError)(message, file, line, field, hint, more)
