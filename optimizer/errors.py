"""Exceptions raised for input the optimizer cannot take, output it cannot write, and internal
failures.

Every input exception names the offending field and the problem, so that interfaces can print one
line (``field: problem``) and exit with status 2; they are :class:`ValueError` subclasses.
"""

from __future__ import annotations

import json
import re

_PLAIN_KEY = re.compile(r"[A-Za-z0-9_]+")
"""A field name (or a shield index) written as it is in a path (``players[0].life``,
``prevented.0``); any other key is quoted as JSON."""


def key_path(base: str, key: object) -> str:
    """The field ``key`` of the object at ``base`` (``""``: at the top), quoted unless it is a plain name."""
    key = str(key)
    if _PLAIN_KEY.fullmatch(key):
        return f"{base}.{key}" if base else key
    return f"{base}[{json.dumps(key)}]"


def shown(value: object, limit: int = 60) -> str:
    """``repr(value)`` for a message: at most ``limit`` characters (an integer too long for Python to
    print, a value nested too deeply or an object whose ``repr`` fails is named by its type)."""
    try:
        text = repr(value)
    except ValueError as exc:  # Python does not print an integer of more than 4,300 digits
        if "integer string conversion" not in str(exc):
            return f"a {type(value).__name__} that cannot be printed"
        if isinstance(value, int):
            return "an integer of more than 4,300 digits"
        return f"a {type(value).__name__} holding an integer of more than 4,300 digits"
    except RecursionError:
        return f"a {type(value).__name__} nested too deeply to print"
    except Exception:  # noqa: BLE001 - an API caller's object whose repr fails
        return f"a {type(value).__name__} that cannot be printed"
    return text if len(text) <= limit else text[:limit - 3] + "..."


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""Control characters, and the line separators and bidirectional marks that would break a line or
turn the text around it on a terminal."""


def printable(text: str, keep_newlines: bool = False) -> str:
    """``text`` with control characters escaped (``\\n``, ``\\x1b``, ``\\u202e``; newlines kept with
    ``keep_newlines``) and unpaired surrogates too: ids and names may hold any character, and a
    message or a table must stay whole on a terminal."""
    def escape(m: re.Match[str]) -> str:
        c = m.group()
        if c == "\n":
            return c if keep_newlines else "\\n"
        return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"
    return _CONTROL.sub(escape, text).encode("utf-8", "backslashreplace").decode("utf-8")


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


class SolverError(RuntimeError):
    """CP-SAT or the result check failed in a way that valid input should never cause."""
