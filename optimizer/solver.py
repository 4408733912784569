"""Solving: which models to build, CP-SAT parameters, lexicographic objectives, and result checking.

In one damage step each player's creatures damage only objects no other player's creatures
damage (attackers hit blockers and what they attack, 510.1b-c; blockers hit attackers, 510.1d),
and each object's fate depends only on the damage it is dealt. So the max-min over the
players' announcements (510.1) separates: the deciding player's model is maximized, every other
player's model is minimized, each on its own. The brute-force tests play the full game to
confirm this.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from ortools.sat.python import cp_model

from .assignment import Assignment, normalize
from .board import Board, ObjectId
from .check import check
from .encode import SideModel, encode_side
from .errors import InvalidRequestError
from .objectives import objective_values, parse_objective, parse_player
from .rules import Outcome
from .schema import load_board

MAX_COMBINED_RANGE = 2**53
"""Above this product of objective ranges, lexicographic objectives are solved one at a time."""
DETERMINISTIC_LIMIT = 60.0
"""CP-SAT deterministic time budget per model when no time limit is given (reproducible)."""


class SolverError(RuntimeError):
    """CP-SAT or the result check failed in a way that valid input should never cause."""


@dataclass(frozen=True)
class SolverSettings:
    """CP-SAT parameters: one worker and a fixed seed make every answer reproducible."""

    workers: int = 1
    seed: int = 0
    presolve: bool = False
    linearization_level: int = 0

    def apply(self, solver: cp_model.CpSolver, time_limit: float | None) -> None:
        p = solver.parameters
        p.num_workers = self.workers
        p.random_seed = self.seed
        p.cp_model_presolve = self.presolve
        p.linearization_level = self.linearization_level
        p.max_deterministic_time = DETERMINISTIC_LIMIT
        if time_limit is not None:
            p.max_time_in_seconds = max(time_limit, 0.001)


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

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "player": self.player, "objective": dict(self.objective),
                "assignments": [a.to_dict() for a in self.assignments],
                "outcome": self.outcome.to_dict(), "warnings": list(self.warnings)}


def solve(board: Board | dict[str, Any] | str | Path, player: ObjectId | None = None,
          objective: Sequence[str] | str | None = None, time_limit: float | None = None,
          settings: SolverSettings = SolverSettings(), max_combined_range: int = MAX_COMBINED_RANGE) -> SolveResult:
    """The deciding player's best damage assignment, with every other player replying worst for it."""
    if not isinstance(board, Board):
        board = load_board(board)
    decider = parse_player(board, player)
    names = parse_objective(objective)
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
                                   or not time_limit > 0):
        raise InvalidRequestError("time_limit", f"{time_limit!r}: expected a positive number of seconds")
    deadline = None if time_limit is None else time.monotonic() + time_limit

    proven = True
    assignments: list[Assignment] = []
    for assigner in board.turn_order():
        side = encode_side(board, assigner, decider, names)
        remaining = None if deadline is None else max(deadline - time.monotonic(), 0.001)
        values, side_proven = optimize(side, remaining, settings, max_combined_range)
        proven &= side_proven
        assignments += side.assignments(values)

    line = normalize(assignments)
    result = check(board, line)
    if not result.legal or result.outcome is None:
        raise SolverError("internal error: the solver's assignment fails the checker: "
                          + "; ".join(map(str, result.violations)))
    return SolveResult("optimal" if proven else "feasible", decider,
                       objective_values(board, result.outcome, decider, names), line,
                       result.outcome, board.warnings)


def optimize(side: SideModel, time_limit: float | None, settings: SolverSettings,
             max_combined_range: int) -> tuple[dict[tuple[ObjectId, ObjectId], int], bool]:
    """Values of ``side.damage`` that are lexicographically best for its terms, and whether proven."""
    if not side.has_choice:
        return {k: int(v) for k, v in side.damage.items()}, True
    model = side.model
    for key, cell in side.damage.items():
        if not isinstance(cell, int):
            model.add_hint(cell, side.hint[key])
    terms = list(side.terms.values())
    combined = 1
    for t in terms:
        combined *= t.hi - t.lo + 1
    stages = [terms] if combined <= max_combined_range else [[t] for t in terms]
    deadline = None if time_limit is None else time.monotonic() + time_limit
    values = dict(side.hint)
    proven = True
    for stage in stages:
        weight, expr = 1, 0
        for t in reversed(stage):  # later objectives get the smaller weights
            expr = expr + weight * (t.expr() - t.lo)
            weight *= t.hi - t.lo + 1
        if side.maximize:
            model.maximize(expr)
        else:
            model.minimize(expr)
        solver = cp_model.CpSolver()
        settings.apply(solver, None if deadline is None else deadline - time.monotonic())
        status = solver.solve(model)
        if status in (cp_model.INFEASIBLE, cp_model.MODEL_INVALID):
            raise SolverError(f"internal error: CP-SAT says {solver.status_name(status)} for "
                              f"{side.assigner}'s assignment, which always has a legal choice")
        if status == cp_model.UNKNOWN:
            return values, False  # no solution within the limit: the (legal) hint stands
        values = {k: (v if isinstance(v, int) else solver.value(v)) for k, v in side.damage.items()}
        proven &= status == cp_model.OPTIMAL
        if len(stages) > 1:
            best = solver.value(expr)
            model.add(expr >= best if side.maximize else expr <= best)
            model.clear_hints()
            for key, cell in side.damage.items():
                if not isinstance(cell, int):
                    model.add_hint(cell, values[key])
    return values, proven
