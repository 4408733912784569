"""mtg-combat: provably optimal, rules-legal combat damage assignment for Magic: The Gathering.

The rules layer (board, rules, check, bruteforce, objectives) is pure Python; the CP-SAT encoding
(encode, solver) is imported lazily so that loading and checking boards stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .assignment import Assignment, Step
from .board import Battle, Board, Creature, Effect, EffectKind, Keyword, Planeswalker, Player
from .dealing import DealingChoice
from .check import CheckResult, Violation
from .check import check as _check
from .errors import InputError, InvalidAssignmentError, InvalidBoardError, InvalidRequestError, NotSupportedError
from .objectives import DEFAULT_OBJECTIVE, OBJECTIVES
from .rules import Outcome
from .schema import load_board

if TYPE_CHECKING:
    from .solver import SolveResult, SolverSettings

__version__ = "0.1.0"

__all__ = [
    "Assignment", "Battle", "Board", "CheckResult", "Creature", "DEFAULT_OBJECTIVE", "DealingChoice",
    "Effect", "EffectKind", "InputError", "InvalidAssignmentError", "InvalidBoardError", "InvalidRequestError",
    "Keyword", "NotSupportedError",
    "OBJECTIVES", "Outcome", "Planeswalker", "Player", "SolveResult", "SolverSettings", "Step",
    "Violation", "check", "load_board", "solve",
]


def solve(*args: Any, **kwargs: Any) -> "SolveResult":
    """Optimal damage assignment; see :func:`optimizer.solver.solve` (imports ortools on first use)."""
    from .solver import solve as _solve

    return _solve(*args, **kwargs)


def check(board: Board | dict[str, Any] | str, assignments: Any, dealing: Any = ()) -> CheckResult:
    """Whether an assignment is legal, and its outcome; see :func:`optimizer.check.check`. ``board``
    may also be anything :func:`load_board` reads (a path, ``-`` or a dict), as for :func:`solve`."""
    if not isinstance(board, Board):
        board = load_board(board)
    return _check(board, assignments, dealing)


def __getattr__(name: str) -> Any:
    if name in ("SolveResult", "SolverSettings"):
        from . import solver as _solve_module

        return getattr(_solve_module, name)
    raise AttributeError(name)
