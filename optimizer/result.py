"""A solve's answer, the independent check every answer passes before it is returned, and the
warning of an answer not proven optimal."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from .assignment import Assignment
from .board import Board, ObjectId
from .check import check
from .dealing import DealingChoice
from .errors import InvalidAssignmentError, SolverError
from .objectives import objective_values
from .rules import Outcome


@dataclass(frozen=True)
class SolveResult:
    """The optimal (or, under a time limit, best found) assignment and what it leads to."""

    status: str
    """``optimal`` when proven, ``feasible`` when a time limit stopped the proof."""
    player: ObjectId
    objective: dict[str, int]
    assignments: tuple[Assignment, ...]
    outcome: Outcome
    warnings: tuple[str, ...] = ()
    dealing: tuple[DealingChoice, ...] = ()
    """The affected players' choices for effects on the damage (616.1, 615.7), where they have one."""
    method: str = "cp-sat"
    """``cp-sat``; ``forced`` when no player has a choice (the only legal line, no model built,
    :func:`~optimizer.rules.forced_line`); for a board the encoding does not model, ``exhaustive``
    (small boards) or ``stepwise`` (the first-strike step searched exhaustively, each regular step
    solved on its own); ``fallback`` under a time limit for a board too large for those searches (a
    legal line, not proven optimal: see :func:`~optimizer.search.fallback_answer`)."""
    searched: int = field(default=0, repr=False, compare=False)
    """Lines the exhaustive searches reached (0 for ``cp-sat``): their work, as a count."""

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "player": self.player, "objective": dict(self.objective),
                "assignments": [a.to_dict() for a in self.assignments],
                "dealing": [d.to_dict() for d in self.dealing],
                "outcome": self.outcome.to_dict(), "method": self.method, "warnings": list(self.warnings)}


def checked_line(board: Board, line: tuple[Assignment, ...], dealing: Sequence[DealingChoice], decider: ObjectId,
                 names: Sequence[str], whose: str) -> tuple[Outcome, dict[str, int]]:
    """The checker's outcome of one of the solver's own lines, and its objective values; a line (or
    dealing choice) the checker rejects is an internal error, not the caller's input."""
    try:
        result = check(board, line, dealing)
    except InvalidAssignmentError as exc:
        raise SolverError(f"internal error: {whose} dealing choices fail the checker: {exc}") from None
    if not result.legal or result.outcome is None:
        raise SolverError(f"internal error: {whose} line fails the checker: "
                          + "; ".join(map(str, result.violations)))
    return result.outcome, objective_values(board, result.outcome, decider, names)


def unproven(reason: str) -> str:
    """The warning of an answer that is not proven optimal."""
    return (f"not proven optimal: {reason}; the objective values are those of the returned line, in which the "
            "other players' replies need not be their best, so the deciding player is not guaranteed them")
