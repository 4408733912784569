"""Solving a board: the request's checks, the boards that need no model (no player with a choice, an
empty first-strike step), independent parts, the choice between the CP-SAT game (:mod:`.game`) and
the exhaustive search (:mod:`.search`), and the final check of every answer (:mod:`.result`)."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

from .assignment import Assignment, Step, normalize
from .board import Board, ObjectId
from .encode import CombatModel
from .errors import InvalidRequestError, SolverError, shown
from .game import Game, TooManyGains, TooWide, combined_range, objective_ranges
from .objectives import parse_objective, parse_player
from .parts import independent_parts
from .result import SolveResult, checked_line, unproven
from .rules import assigns_in, damage_amount, damage_steps, first_step, forced_line
from .schema import checked_board, load_board
from .search import search_board
from .settings import SolverSettings
from .splits import count_first_step_options

__all__ = ["MAX_COMBINED_RANGE", "SolveResult", "SolverError", "SolverSettings", "solve"]
"""The public names; the result, the settings and the error live in :mod:`.result`, :mod:`.settings`
and :mod:`.errors`, and are re-exported here, where :func:`solve` is."""

MAX_COMBINED_RANGE = 2**53
"""Above this product of objective ranges, lexicographic objectives are solved one at a time."""
ENUMERATED_REPLIES = 5_000
"""Most first-step replies of the players against the active side enumerated when they decide whether
a creature with banding survives to divide damage in the regular step, or when the regular step has
creatures whose damage both sides divide (each reply then needs its own refinement)."""
MAX_TIME_LIMIT = 1e9
"""The largest time limit taken, in seconds (about 30 years; CP-SAT takes its limits as doubles)."""


def solve(board: Board | dict[str, Any] | str | Path, player: ObjectId | None = None,
          objective: Sequence[str] | str | None = None, time_limit: float | None = None,
          settings: SolverSettings = SolverSettings(), max_combined_range: int = MAX_COMBINED_RANGE) -> SolveResult:
    """The deciding player's best damage assignment, with every other player replying worst for it.
    ``board`` is checked as :func:`~optimizer.schema.load_board` checks one (a :class:`Board` built in
    Python too)."""
    board = checked_board(board) if isinstance(board, Board) else load_board(board)
    return solve_loaded(board, player, objective, time_limit, settings, max_combined_range)


def solve_loaded(board: Board, player: ObjectId | None, objective: Sequence[str] | str | None,
                 time_limit: float | None, settings: SolverSettings, max_combined_range: int) -> SolveResult:
    """:func:`solve` on a board known to be well formed (checked, or made by the rules layer from one)."""
    if not isinstance(settings, SolverSettings):
        raise InvalidRequestError("settings", f"expected SolverSettings, got {type(settings).__name__}")
    decider = parse_player(board, player)
    names = parse_objective(objective)
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))):
        raise InvalidRequestError("time_limit", f"expected a positive number of seconds (an int or a float), got "
                                  f"{type(time_limit).__name__} {_shown(time_limit)!r}")
    if time_limit is not None and not time_limit > 0:
        raise InvalidRequestError("time_limit", f"{_shown(time_limit)!r}: expected a positive number of seconds")
    if time_limit is not None and not time_limit <= MAX_TIME_LIMIT:
        raise InvalidRequestError("time_limit", f"{_shown(time_limit)}: at most {MAX_TIME_LIMIT:.0e} seconds "
                                  "(leave it out for no limit)")
    if isinstance(max_combined_range, bool) or not isinstance(max_combined_range, int) or max_combined_range < 1:
        raise InvalidRequestError("max_combined_range", f"{_shown(max_combined_range)!r}: expected a positive integer")
    return _solve_board(board, decider, names, time_limit, settings, max_combined_range)


def _shown(value: object) -> str:
    """A value in an error message, at most 40 characters (an integer too long to write out, by its length)."""
    if isinstance(value, int) and value.bit_length() > 128:
        return f"{'a negative' if value < 0 else 'an'} integer of about {round(value.bit_length() * 0.30103)} digits"
    try:
        return str(value)[:40]
    except Exception:  # noqa: BLE001 - nested too deeply, or an API caller's object whose str fails
        return shown(value)  # named by its type


def _solve_board(board: Board, decider: ObjectId, names: tuple[str, ...], time_limit: float | None,
                 settings: SolverSettings, max_combined_range: int) -> SolveResult:
    forced = forced_line(board)
    if forced is not None:
        return _forced(board, decider, names, forced)
    if Step.FIRST_STRIKE in damage_steps(board) and all(
            damage_amount(c) <= 0 for c in board.combatants if assigns_in(board, c, Step.FIRST_STRIKE)):
        return _after_empty_first_step(board, decider, names, time_limit, settings, max_combined_range)
    parts = independent_parts(board)
    if parts is not None:
        return _solve_parts(board, parts, decider, names, time_limit, settings, max_combined_range)
    probe = CombatModel(board, decider, names)
    reason = probe.unsupported()
    if reason is None and probe.two_steps and (probe.any_coupled or probe.coupled_gain is not None
                                               or (probe.unstable and not probe.active_decides_unstable())):
        defender = [p.id for p in board.players if p.id != board.active_player]
        replies = count_first_step_options(probe, defender)
        if replies > ENUMERATED_REPLIES and probe.unstable:
            banding = sorted(probe.unstable)
            reason = (f"banding lets the other side divide damage (702.22j-k), and whether {', '.join(banding)} "
                      f"{'survives' if len(banding) == 1 else 'survive'} the first-strike step depends on "
                      f"more than {ENUMERATED_REPLIES} first-step replies")
        elif replies > ENUMERATED_REPLIES and probe.any_coupled:
            reason = (f"both sides divide regular-step damage dealt to {', '.join(sorted(probe.any_coupled))} "
                      f"(banding, 702.22j-k), after more than {ENUMERATED_REPLIES} first-step replies")
        elif replies > ENUMERATED_REPLIES:
            reason = (f"{probe.coupled_gain}'s lifelink blockers' regular-step gain decides whether it loses, "
                      f"after more than {ENUMERATED_REPLIES} first-step replies")
    ranges = objective_ranges(probe)
    if reason is None and len(names) > 1 and combined_range(ranges) > max_combined_range:
        if probe.coupled_gain is not None:
            reason = (f"{probe.coupled_gain}'s lifelink blockers' gain decides whether it loses, and the "
                      "objectives' ranges are too wide to combine")
        elif probe.self_scored and not probe.two_steps:
            reason = (f"{', '.join(sorted(probe.self_scored))} divide damage dealt to their own creatures (banding, "
                      "702.22j) in a game of three or more players, and the objectives' ranges are too wide "
                      "to combine")
        elif probe.any_coupled:
            reason = ("both players divide damage dealt to some creatures (banding, 702.22j-k), and the "
                      "objectives' ranges are too wide to combine")
        elif probe.unstable and probe.active_decides_unstable():
            reason = ("the active player's first-strike damage decides who divides damage in the regular "
                      "step (banding, 702.22k), and the objectives' ranges are too wide to combine")
    if reason is not None:
        deadline = None if time_limit is None else time.monotonic() + time_limit
        return search_board(board, decider, names, reason, deadline, settings, max_combined_range)
    game = Game(board, decider, names, settings, time_limit, max_combined_range, probe, ranges)
    try:
        line, value, proven = game.solve()
    except TooManyGains as too_many:
        return search_board(board, decider, names, too_many.args[0], game.search_deadline(), settings,
                            max_combined_range)
    except TooWide as too_wide:  # small boards are searched instead (no weights needed)
        return search_board(board, decider, names, "the other side replies in the first-strike step, and the "
                            "objectives' ranges are too wide to combine for the refinement", game.search_deadline(),
                            settings, max_combined_range, refusal=too_wide.args[0], lead_alone=True)
    dealing = () if game.fallback else game.dealing(line)
    outcome, values = checked_line(board, line, dealing, decider, names, "the solver's")
    if value is not None and game.scalar(values) != value:
        raise SolverError(f"internal error: the model values the line at {value}, the checker at "
                          f"{game.scalar(values)} ({values})")
    warnings = board.warnings if proven else board.warnings + (unproven(game.unproven_reason()),)
    return SolveResult("optimal" if proven else "feasible", decider, values, line, outcome, warnings, dealing)


def _after_empty_first_step(board: Board, decider: ObjectId, names: tuple[str, ...], time_limit: float | None,
                            settings: SolverSettings, max_combined_range: int) -> SolveResult:
    """A board whose first-strike creatures all have power (or toughness, Doran-style) 0 or less: the
    first-strike step exists (510.4) but nobody assigns damage in it (510.1a), so the game is the
    regular step alone, on the board that step leaves (unchanged, but for who assigns damage next)."""
    later = first_step(board, (), ())[1]
    assert later is not None, "a first-strike step without damage ends no game"
    result = _solve_board(later, decider, names, time_limit, settings, max_combined_range)
    outcome, values = checked_line(board, result.assignments, result.dealing, decider, names, "the regular step's")
    if values != result.objective:
        raise SolverError(f"internal error: the regular step's values {result.objective} are {values} on the "
                          "whole combat")
    return replace(result, outcome=outcome)


_METHODS = ("forced", "cp-sat", "stepwise", "exhaustive", "fallback")
"""Solve methods from the least work to the most (and the fallback last): a board split into parts reports its
parts' last."""


def _solve_parts(board: Board, parts: list[Board], decider: ObjectId, names: tuple[str, ...],
                 time_limit: float | None, settings: SolverSettings, max_combined_range: int) -> SolveResult:
    """The board solved part by part (:func:`~optimizer.parts.independent_parts`), each with the
    time left: the union of the parts' lines, its values the sum of theirs (``alive``, 1 in each, as
    no player can lose; the checker's values of the whole line must equal those, or the solve fails
    loudly)."""
    deadline = None if time_limit is None else time.monotonic() + time_limit
    results = []
    for part in parts:
        left = None if deadline is None else max(deadline - time.monotonic(), 0.001)
        results.append(_solve_board(part, decider, names, left, settings, max_combined_range))
    line = normalize(a for r in results for a in r.assignments)
    dealing = tuple(sorted((d for r in results for d in r.dealing), key=lambda d: d.step is Step.REGULAR))
    outcome, values = checked_line(board, line, dealing, decider, names, "the parts'")
    summed = {n: (min if n == "alive" else sum)(r.objective[n] for r in results) for n in names}  # nobody loses
    if summed != values:
        raise SolverError(f"internal error: the parts' values add up to {summed}, the checker's of their "
                          f"union are {values}")
    warnings = tuple(dict.fromkeys(board.warnings + tuple(w for r in results for w in r.warnings)))
    proven = all(r.status == "optimal" for r in results)
    method = max((r.method for r in results), key=_METHODS.index)
    return SolveResult("optimal" if proven else "feasible", decider, values, line, outcome, warnings, dealing,
                       method, sum(r.searched for r in results))


def _forced(board: Board, decider: ObjectId, names: tuple[str, ...], line: tuple[Assignment, ...]) -> SolveResult:
    """The answer on a board where no player has a choice (:func:`forced_line`): its only legal line,
    optimal for everyone, valued by the checker; no model is built."""
    outcome, values = checked_line(board, line, (), decider, names, "the forced")
    return SolveResult("optimal", decider, values, line, outcome, board.warnings, (), "forced")
