"""mtg-combat: provably optimal, rules-legal combat damage assignment for Magic: The Gathering.

The rules layer (board, rules, check, bruteforce, objectives) is pure Python; the CP-SAT encoding
(encode, game, solver) and the input schema (pydantic) load on first use, so that ``import optimizer``
and the command line's start are quick. Every name below is imported from its module when first
read (PEP 562).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .check import check as _check  # first: the function ``check`` below must replace the submodule

if TYPE_CHECKING:
    from .assignment import Assignment, Step
    from .board import Battle, Board, Creature, Effect, EffectKind, Keyword, Planeswalker, Player
    from .check import CheckResult, Violation
    from .dealing import DealingChoice
    from .errors import (InputError, InvalidAssignmentError, InvalidBoardError, InvalidRequestError,
                         NotSupportedError)
    from .objectives import DEFAULT_OBJECTIVE, OBJECTIVES
    from .result import SolveResult
    from .rules import Outcome
    from .schema import load_board
    from .settings import SolverSettings

__version__ = "0.1.0"

_HOME = {
    "assignment": ("Assignment", "Step"),
    "board": ("Battle", "Board", "Creature", "Effect", "EffectKind", "Keyword", "Planeswalker", "Player"),
    "check": ("CheckResult", "Violation"),
    "dealing": ("DealingChoice",),
    "errors": ("InputError", "InvalidAssignmentError", "InvalidBoardError", "InvalidRequestError",
               "NotSupportedError"),
    "objectives": ("DEFAULT_OBJECTIVE", "OBJECTIVES"),
    "result": ("SolveResult",),
    "rules": ("Outcome",),
    "schema": ("load_board",),
    "settings": ("SolverSettings",),
}
_MODULE_OF = {name: module for module, names in _HOME.items() for name in names}

__all__ = sorted([*_MODULE_OF, "check", "solve"])


def solve(*args: Any, **kwargs: Any) -> "SolveResult":
    """Optimal damage assignment; see :func:`optimizer.solver.solve` (imports ortools on first use)."""
    from .solver import solve as _solve

    return _solve(*args, **kwargs)


def check(board: "Board | dict[str, Any] | str", assignments: Any, dealing: Any = ()) -> "CheckResult":
    """Whether an assignment is legal, and its outcome; see :func:`optimizer.check.check`. ``board``
    may also be anything :func:`load_board` reads (a path, ``-`` or a dict), as for :func:`solve`;
    a :class:`Board` built in Python is checked as :func:`load_board` checks one."""
    from .board import Board
    from .schema import checked_board, load_board

    return _check(checked_board(board) if isinstance(board, Board) else load_board(board), assignments, dealing)


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
