"""The exhaustive search, for boards the CP-SAT encoding does not model, with its limits; and, under
a time limit, the fallback answer for boards too large for it."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from .assignment import Step
from .board import Board, Keyword, ObjectId
from .bruteforce import (SearchTooLarge, brute_force, count_first_step_lines, count_leaves, option_count,
                         step_boards)
from .check import check
from .errors import InputError, InvalidAssignmentError, NotSupportedError, SolverError
from .objectives import objective_values, shorter_objectives
from .result import SolveResult, checked_line, unproven
from .rules import damage_steps, simplest_line
from .settings import SolverSettings

FIRST_STEP_LIMIT = 20_000
"""Most first-strike-step lines searched when each regular step goes to CP-SAT (boards the encoding
does not model)."""
REGULAR_STEP_COST = 20
"""About how many exhaustive-search leaves cost as much as one regular step solved with CP-SAT."""
EXHAUSTIVE_LIMIT = 100_000
"""Largest search (``count_leaves``) the exhaustive fallback takes on, for boards the encoding does
not model."""
PRUNED_LIMIT = 30_000
"""Without a time limit, on boards past both limits above (or whose stepwise search meets a regular
step past ``EXHAUSTIVE_LIMIT`` that it must search itself), the most lines the pruned (alpha-beta)
search may reach, and, past both limits, the most regular steps it may solve with CP-SAT times
``REGULAR_STEP_COST``: counts, so the same board is always solved or always refused."""
CREATURE_OPTIONS_LIMIT = 20_000
"""Most ways one creature's damage may be divided (``option_count``) in a step the exhaustive fallback
searches itself (the first-strike step; the regular step too unless CP-SAT solves it): it lists each
creature's ways before it searches, which no time limit can interrupt."""
REGULAR_SEARCH_LIMIT = EXHAUSTIVE_LIMIT
"""Without a time limit, the most lines the stepwise search's regular steps may take in all when the
encoding does not model them either and each is searched exhaustively (each counts the lines it
reached with the players' dealing choices, or its ``count_leaves`` if that is more): as much as one
exhaustive search. A count, so the same board is always solved or always refused."""
LINE_LIMIT = EXHAUSTIVE_LIMIT
"""Without a time limit, the most lines a search within the size limits above may reach, the players'
choices for effects on the damage (616.1, 615.7) included: the size limits count damage splits only,
and those choices can multiply them (a 3 x 5 board with six effects on all damage, 160 first-strike
lines, took 8.5 minutes to search; refused now after 100,000 lines, 40 s). Without such choices a
search within the limits never reaches it. A count, so the same board is always solved or always
refused."""
SEARCH_LIMIT = 10**16
"""Boards past both limits above with more lines than this (``count_leaves``) are not searched at all:
listing a single player's options can take longer than any time limit there."""


class _Oversized(Exception):
    """A regular step the stepwise search must search itself is past ``EXHAUSTIVE_LIMIT``."""


def search_board(board: Board, decider: ObjectId, names: tuple[str, ...], reason: str, deadline: float | None,
                 settings: SolverSettings, max_combined_range: int, refusal: InputError | None = None,
                 lead_alone: bool = False) -> SolveResult:
    """A board the encoding does not take (``reason``, named in the answer's warning): the exhaustive
    search. Past its limits, without a time limit the search's refusal is raised (or ``refusal``, an
    error that says better what to change); with one, :func:`fallback_answer` answers instead."""
    try:
        return exhaustive_search(board, decider, names, reason, settings, deadline)
    except NotSupportedError as refused:
        error = refused if refusal is None else refusal
        if deadline is None:
            raise error from None
        return fallback_answer(board, decider, names, error.problem, deadline, settings, max_combined_range, lead_alone)


def exhaustive_search(board: Board, decider: ObjectId, names: tuple[str, ...], reason: str,
                      settings: SolverSettings, deadline: float | None = None) -> SolveResult:
    """The exhaustive game search, for boards the CP-SAT encoding does not model: all of it on small
    boards; on larger boards with two damage steps, the first-strike step only, each regular step
    solved on the board it begins with (a one-step board, which the encoding may well model). Past
    ``deadline`` the search finishes on first options only and the answer is not proven."""
    from .solver import MAX_COMBINED_RANGE, solve_loaded  # a regular step is solved (solver imports this module)

    def refused(why: str) -> NotSupportedError:
        return NotSupportedError("board", f"{reason}: the CP-SAT encoding does not model this yet, and {why}")

    size = count_leaves(board)
    first_lines = count_first_step_lines(board)
    two_steps = Step.FIRST_STRIKE in damage_steps(board)
    stepwise = (two_steps and first_lines <= FIRST_STEP_LIMIT
                and (size > EXHAUSTIVE_LIMIT or first_lines * REGULAR_STEP_COST < size))
    # Past both limits the search may still finish, pruned: a time limit bounds it (the line is
    # then legal and unproven), or without one a count of the lines it reaches (then it is refused).
    unbounded = size > EXHAUSTIVE_LIMIT and not stepwise
    stepwise = stepwise or (unbounded and two_steps)
    budget = None if deadline is not None else PRUNED_LIMIT if unbounded else LINE_LIMIT
    lines = f"{_count(size)} lines" + (f", {_count(first_lines)} first-strike lines" if two_steps else "")
    for on, step in step_boards(board):
        if step is Step.REGULAR and stepwise:
            continue  # CP-SAT solves each regular step: the search lists only the first step's options
        for c in on.combatants:
            ways = option_count(on, c.id, step)
            if ways > CREATURE_OPTIONS_LIMIT:
                raise refused(f"{c.id} may divide its damage in {ways:,} ways in the {step.label} "
                              f"step, more than the exhaustive search lists ({CREATURE_OPTIONS_LIMIT:,})")

    if unbounded and size > SEARCH_LIMIT:
        raise refused(f"the board is too large for the exhaustive search ({lines}; more than {SEARCH_LIMIT:.0e})")

    played: dict[str, Any] = {}
    proven = True
    solved = 0
    searched = 0  # lines of the regular steps that the encoding does not model either

    in_combat = {c.id for c in board.combatants}

    def regular_step(later: Board):
        """The regular step's best play; None (search it) when a player has left the game, or when,
        with three or more players, a creature that was in combat no longer is (its attackers died)
        but may still leave with its controller (800.4a): the objectives count it, and a model of the
        later board would not see it."""
        stranded = len(later.players) >= 3 and any(
            later.is_creature(cid) and not later.creature(cid).in_combat for cid in in_combat)
        if not all(p.in_game for p in later.players) or stranded:
            if deadline is None and budget == LINE_LIMIT and count_leaves(later) > EXHAUSTIVE_LIMIT:
                raise _Oversized()  # searched again under the budget
            return None  # searched here
        key = repr(later)
        nonlocal proven, solved, searched
        if key not in played:
            solved += 1
            if budget is not None and unbounded and solved * REGULAR_STEP_COST > budget:
                raise SearchTooLarge(f"more than {budget // REGULAR_STEP_COST} regular steps")
            left = None if deadline is None else max(deadline - time.monotonic(), 0.001)
            try:
                result = solve_loaded(later, decider, names, left, settings, MAX_COMBINED_RANGE)
            except NotSupportedError as error:
                raise refused(f"in a regular step after the first-strike step: {error.problem}") from None
            if result.method in ("exhaustive", "stepwise"):  # searched too: counted against its own limit
                searched += max(result.searched, count_leaves(later))  # lines reached, or its size
                if deadline is None and searched > REGULAR_SEARCH_LIMIT:
                    raise SearchTooLarge(f"more than {REGULAR_SEARCH_LIMIT:,} lines in regular steps that the "
                                         "CP-SAT encoding does not model either")
            proven &= result.status == "optimal"
            played[key] = (result.assignments, result.dealing)
        return played[key]

    try:
        try:
            found = brute_force(board, decider, names, regular_step if stepwise else None, deadline,
                                prune=True, budget=budget)
        except _Oversized:  # a player lost in the first step leaves a large search: within the budget
            budget = PRUNED_LIMIT
            found = brute_force(board, decider, names, regular_step, deadline, prune=True, budget=budget)
    except SearchTooLarge as too_large:
        raise refused(f"the board is too large for the exhaustive search ({lines}; pruned, it still "
                      f"reached {too_large}; with a time limit it is searched until then)") from None
    proven &= found.complete
    outcome, values = checked_line(board, found.assignments, found.dealing, decider, names, "the exhaustive search's")
    if tuple(values[n] for n in names) != found.value:
        raise SolverError("internal error: the exhaustive search and the checker disagree on the value")
    if stepwise and searched:
        how, method = ("exhaustive search of the first-strike step, each regular step solved on its own (by "
                       "exhaustive search where the encoding does not model it either)"), "stepwise"
    elif stepwise:
        how, method = "exhaustive search of the first-strike step, CP-SAT in the regular step", "stepwise"
    else:
        how, method = "exhaustive search", "exhaustive"
    warnings = board.warnings + (f"solved by {how}: {reason}",)
    if not proven:
        warnings += (unproven("the time limit ran out during the search"),)
    return SolveResult("optimal" if proven else "feasible", decider, values, found.assignments, outcome,
                       warnings, found.dealing, method, found.lines + searched)


def fallback_answer(board: Board, decider: ObjectId, names: tuple[str, ...], refusal: str, deadline: float,
                    settings: SolverSettings, max_combined_range: int, lead_alone: bool = False) -> SolveResult:
    """Under a time limit, a board that neither the encoding nor the exhaustive search covers (the
    ``refusal`` it would get without one): a legal line instead of no answer, not proven optimal,
    valued by the checker. The best for the decider of :func:`simplest_line` (legal on every board);
    with ``lead_alone`` (objectives too wide to combine), the solver's lines for the first objective
    alone and then for the first two (that can vary, :func:`~optimizer.objectives.shorter_objectives`); and
    on a board with banding (702.22j-k, what other refusals mostly come from), the solver's line for
    the same board without banding: each in the time left, when the checker finds it legal here."""
    from .solver import solve_loaded  # the solver imports this module

    candidates = [(simplest_line(board), (), "the simplest legal line (every creature's damage on its first "
                   "recipient, 510.1a-c)")]
    left = deadline - time.monotonic()
    shorter = shorter_objectives(names, board, decider)
    for lead_names in (dict.fromkeys((shorter[:1], shorter)) if lead_alone else ()):  # the refusal suggests the second
        if len(lead_names) == len(names) or left <= 0.001:
            continue
        try:
            lead = solve_loaded(board, decider, lead_names, left, settings, max_combined_range)
            candidates.append((lead.assignments, lead.dealing,
                               f"the best line found for {', '.join(lead_names)} alone"))
        except (InputError, SolverError):  # too wide as well, say
            pass
        left = deadline - time.monotonic()
    if left > 0.001 and any(Keyword.BANDING in c.keywords for c in board.combatants):
        unbanded = replace(board, creatures=tuple(replace(c, keywords=c.keywords - {Keyword.BANDING})
                                                  if Keyword.BANDING in c.keywords else c for c in board.creatures))
        try:
            relaxed = solve_loaded(unbanded, decider, names, left, settings, max_combined_range)
            candidates.append((relaxed.assignments, relaxed.dealing, "the best line found for the board without "
                               "banding, which is legal on this one"))
        except (InputError, SolverError):
            pass
    best = None
    for line, dealing, how in candidates:
        try:
            verdict = check(board, line, dealing)
        except InvalidAssignmentError:  # dealing choices that do not fit this board's damage
            continue
        if not verdict.legal or verdict.outcome is None:
            continue
        values = objective_values(board, verdict.outcome, decider, names)
        if best is None or tuple(values[n] for n in names) > tuple(best[2][n] for n in names):
            best = (line, dealing, values, verdict.outcome, how)
    assert best is not None, "the simplest line is legal on every board"
    line, dealing, values, outcome, how = best
    why = f"{refusal}; under a time limit, {how}, is returned instead"
    return SolveResult("feasible", decider, values, line, outcome, board.warnings + (unproven(why),), dealing,
                       "fallback")


def _count(n: int) -> str:
    """A count in a message: with thousands separators, or, past 10^18, its power of ten."""
    return f"{n:,}" if n < 10**18 else f"about 10^{len(str(n)) - 1}"
