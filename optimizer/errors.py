"""Exceptions raised for input the optimizer cannot take.

Every exception names the offending field and the problem, so that interfaces can print one line
(``field: problem``) and exit with status 2. All are :class:`ValueError` subclasses.
"""

from __future__ import annotations

import json
import re

_PLAIN_KEY = re.compile(r"[A-Za-z0-9_]+")


def key_path(base: str, key: object) -> str:
    """The field ``key`` of the object at ``base`` (``""``: at the top), quoted unless it is a plain name."""
    key = str(key)
    if _PLAIN_KEY.fullmatch(key):
        return f"{base}.{key}" if base else key
    return f"{base}[{json.dumps(key)}]"


def shown(value: object, limit: int = 60) -> str:
    """``repr(value)`` for a message: at most ``limit`` characters (an integer too long for Python to
    print is named as one)."""
    try:
        text = repr(value)
    except ValueError:
        return "an integer of more than 4,300 digits"
    return text if len(text) <= limit else text[:limit - 3] + "..."


class InputError(ValueError):
    """Input that cannot be used: ``field`` names where, ``problem`` says what is wrong."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")


class InvalidBoardError(InputError):
    """The board is malformed or describes a combat the rules do not allow."""


class InvalidAssignmentError(InputError):
    """An assignment file is malformed (as opposed to legal-but-wrong, which the checker reports)."""


class InvalidRequestError(InputError):
    """A solve request names an unknown player or objective, or a bad option."""


class NotSupportedError(InputError):
    """A valid board the optimizer cannot yet solve exactly: a creature in combat with an ability that
    changes combat damage and is not modeled, or a board too large for the exhaustive search that
    covers what the CP-SAT encoding does not model."""


class OutputError(Exception):
    """Standard output or an output file cannot be written (a full disk, for example); the message
    says why. Interfaces exit with status 2, as for bad input."""

    @classmethod
    def writing(cls, exc: OSError) -> "OutputError":
        return cls(f"output: cannot write: {exc.strerror or exc}")
