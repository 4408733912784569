"""Solving: the max-min game over the players' announcements, CP-SAT parameters, lexicographic
objectives, and the final check of every answer.

The game (510.1, 510.4): in each damage step the players announce in turn order, the active player
first, each seeing everything announced before; the deciding player maximizes its objectives,
every other player minimizes them. Three cases:

* One damage step. Attackers damage blockers and what they attack, blockers damage attackers, and
  each object's fate depends only on the damage dealt to it, so every player's choice scores a
  separate part of the objective. One CP-SAT model maximizes the deciding player's parts and
  minimizes the others' at once, and that is the game value. (Except when the defending player's
  division of its lifelink blockers' damage changes the life it gains and so whether the active
  player's damage is lethal, and that loss is scored (``lethal`` for the active player, ``alive``
  for a deciding defender): then its best division for each total gain comes first, one model each, and
  the active player's model takes the defender's best reply among those. And when a creature
  takes damage divided by both players, banding: the defender's replies are refined over, as below;
  with two steps too, each regular step on a known first step that way, and so is one where the
  lifelink gain decides the defender's loss (``_defender_replies``). And with three or more
  players, when a defending player divides the damage dealt to its own creatures, banding, which
  leave with it if it loses: its best division is found both ways first, as in ``_self_scored``.)
* Two damage steps, and the players on the other side of the active player (the "responders")
  never have a choice (none of their creatures blocks two attackers). One model holds the first
  step, the symbolic state after it, and the second step; the active player's side chooses both
  steps' damage in it, the second step's as a function of the first's outcome.
* Two damage steps, two players, where the responders have a single first-step reply and the
  active side's first-strike damage cannot reach anything their part depends on (their sources,
  what those may damage, the creatures whose fates it scores, their loss): each side's regular step then scores its own
  part whatever the first step did, and one model optimizes both sides at once, as with one step.
* Two damage steps with responder choices otherwise, where the active side has no first-step choice
  (each of its first strikers has one recipient): that first step's exact value, found as the
  refinement below verifies a master's first step, is the game value; no master model is needed.
* Two damage steps with responder choices otherwise: counterexample-guided refinement. The master model
  optimizes the active side's first-step damage against a growing set of responder first-step
  replies (one copy of the second step per reply) and of responder second-step replies (each a
  fixed assignment, used where legal, else a default). Each master solution is verified exactly by
  a second, inner refinement: a model picks the responders' first-step reply and second step against
  a growing set of the active side's second-step plans (each group of its creatures whose legality
  is linked, by a trampler's blockers or a planeswalker, playing its part where legal: a bound), and
  solving the second step exactly after that reply either meets the bound or yields a new plan; once
  its rounds took more CP-SAT work (deterministic time) than solving the second step after each reply
  left is likely to, it enumerates the replies instead. (With players after the
  responders on the active side, multiplayer only, verification enumerates the responders' distinct
  replies instead: damage beyond a creature's toughness, plus any shield on that damage (615.7), is
  all alike. So it does when the defender's
  first-step reply decides whether a creature with banding survives to divide damage in the regular
  step, 702.22j: each model then builds the regular step with the divider the reply leaves, once per
  case when the active player's first step decides too; and when
  both players divide damage to some creature in the regular step, where each master's plan there
  gets the defender's reply to it.) The worst reply and its
  second-step answer go back to the master, until its bound equals a verified value. Under a time
  limit the best verified line is returned.

Every line is re-checked by the independent checker, and the model's value of it must equal the
checker's, or the solve fails loudly instead of answering wrongly.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from itertools import islice, product
from pathlib import Path
from typing import Any, Mapping, Sequence

from .cp_sat import cp_model

from .assignment import Assignment, Step, normalize
from .board import Board, Creature, Keyword, ObjectId
from .check import check
from .dealing import DealingChoice, cell_effects, with_prevented
from .encode import Cell, CombatModel, Expr, Term, amount_of, linear
from .errors import InputError, InvalidAssignmentError, InvalidRequestError, NotSupportedError, shown
from .interrupt import stoppable
from .objectives import DEFAULT_OBJECTIVE, objective_values, parse_objective, parse_player, varying
from .parts import independent_parts
from .rules import Outcome, assigns_in, damage_amount, damage_steps, first_step, forced_line, simplest_line
from .schema import checked_board, load_board

MAX_COMBINED_RANGE = 2**53
"""Above this product of objective ranges, lexicographic objectives are solved one at a time."""
DETERMINISTIC_LIMIT = 60.0
"""CP-SAT deterministic time budget per solve when no time limit is given (reproducible)."""
MAX_ROUNDS = 1000
"""Refinement rounds before giving up on a proof and returning the best verified line (unproven).
Each round learns at least one reply or plan, so boards with many distinct replies need many: a
typical benchmark board with its amounts times 100 (powers up to 800) took 202 rounds, 3 s."""
KEPT_PLANS = 8
"""Second-step plans of the active side carried from one verification to the next (each one makes
the verification model larger; the ones found within a verification are always kept)."""
ENUMERATED_REPLIES = 5_000
"""Most first-step replies of the players against the active side enumerated when they decide whether
a creature with banding survives to divide damage in the regular step, or when the regular step has
creatures whose damage both sides divide (each reply then needs its own refinement)."""
ENUMERATED_VERIFICATION = 1
"""Most responder first-step replies for which the refinement verifies a first step by solving the
second step after each reply instead of with a verification model (``_Game._verify_by_plans``): with
one reply that model has only the second step to choose, which solving it does exactly."""
SEPARABLE_STEPS = True
"""Whether two-step boards whose responders' regular step the active side's first step cannot change
are solved in one model (``_Game._separable``) instead of by refinement."""
FORCED_SECOND_STEP = True
"""Whether a second step after a known first step is valued without a model when no player has a
choice in it (``_Game._forced_second_step``)."""
FORCED_LEAD = True
"""Whether refinement boards where the active side has no first-step choice are solved by verifying
that one first step (``_Game._forced_lead``) instead of with master models."""
MAX_TIME_LIMIT = 1e9
"""The largest time limit taken, in seconds (about 30 years; CP-SAT takes its limits as doubles)."""
FALLBACK_SECONDS = 0.25
"""Wall time for finding any legal line once the time limit has run out (CP-SAT usually needs a few
milliseconds; on a very large board it may find none, and :func:`simplest_line` answers instead)."""
MAX_REPLIES = 100_000
"""Most responder replies enumerated in a verification (multiplayer refinement only)."""
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
MAX_GAIN_LEVELS = 1_000
"""Most totals a defender's lifelink blockers can gain that are solved one model each when that gain
decides whether the defender loses (``_Game._coupled_gain``); past it the board goes to the exhaustive
search. Totals no division reaches are skipped, one model per gap."""
SEARCH_LIMIT = 10**16
"""Boards past both limits above with more lines than this (``count_leaves``) are not searched at all:
listing a single player's options can take longer than any time limit there."""


_ENUMERATE = object()
"""What ``_Game._verify_by_plans`` returns when enumerating the replies is the cheaper way on."""


class _Oversized(Exception):
    """A regular step the stepwise search must search itself is past ``EXHAUSTIVE_LIMIT``."""


class _NoLine(Exception):
    """CP-SAT found no line at all in its time (very large boards): :func:`simplest_line` instead."""


class _TooWide(Exception):
    """The refinement needs the objectives as one weighted sum and their ranges are too wide; the
    argument is the request error to raise when the exhaustive search cannot take the board either."""


class _TooManyGains(Exception):
    """More than :data:`MAX_GAIN_LEVELS` totals the defender's lifelink blockers can gain, each needing its
    own model (``_Game._coupled_gain``); the argument is the reason, for the exhaustive search's warning."""


class _CaseInfeasible(Exception):
    """The active player's first step cannot leave the case being solved (see ``_Game._by_cases``)."""


class SolverError(RuntimeError):
    """CP-SAT or the result check failed in a way that valid input should never cause."""


@dataclass(frozen=True)
class SolverSettings:
    """CP-SAT parameters: one worker and a fixed seed make every answer reproducible.

    Presolve runs on models with at least ``presolve_from`` variables (below that it costs more than it
    saves) whose objective values stay within ``presolve_max_scale`` in magnitude: with lexicographic
    weights around 10^12 CP-SAT 9.15's presolve has returned a wrong "optimal" value and called
    feasible models infeasible (both seen on large benchmark boards; a model called infeasible is
    solved again without presolve).

    Symmetry detection, probing and SAT inprocessing are off: on the benchmark boards' models they
    cost about a third of each solve's time and found nothing the search did not. Max-min models (the
    refinement's, one variable bounded by sums) of at least ``maxmin_linearization_from`` variables
    get the linear relaxation (level 1): a 486-variable one took 6.4 s without it and 0.015 s with it;
    on small ones it costs more than it saves. Presolve makes one pass (``presolve_iterations``; CP-SAT's
    default is 3): on the verification models of large boards, 1,000-5,700 variables, that took 25-45%
    less time per solve.

    Boards with large amounts (a power, toughness, marked damage, loyalty, defense or effect amount of
    at least ``big_amount_linearization_from``) get the full linear relaxation (level 2) in their models
    of fewer than ``big_amount_linearization_below`` variables: without it CP-SAT's search can move
    damage bounds a step at a time, so its time grows with the amounts (a 3-player board with amounts
    of 100,000 took 16 s, 0.07 s with it; a typical benchmark board scaled by 10,000 did not finish in
    20 s, 0.07 s with it; the benchmark boards scaled by 1,000 took 12-15% less in all, same values). With
    smaller amounts (the benchmark boards scaled by 10 or 100) it saved nothing and made one medium
    board 3x slower; in larger models (master models of 4,000-9,000 variables) it cost 4x a solve.

    CP-SAT's own SIGINT handler is off: it would end only the search running (reported as a search
    stopped at its limit, the program going on), and it is not safe to run inside an allocation.
    Ctrl-C raises KeyboardInterrupt once the search returns; the command line stops the search at
    once (:mod:`optimizer.interrupt`).
    """

    workers: int = 1
    seed: int = 0
    presolve: bool = True
    presolve_from: int = 200
    presolve_max_scale: int = 2**36
    presolve_iterations: int = 1
    linearization_level: int = 0
    maxmin_linearization_from: int = 200
    big_amount_linearization_from: int = 1000
    big_amount_linearization_below: int = 200
    symmetry_level: int = 0
    probing_level: int = 0
    sat_inprocessing: bool = False

    def apply(self, solver: cp_model.CpSolver, time_limit: float | None, size: int = 0, scale: int = 1,
              bounded: bool = False, amount: int = 0) -> None:
        """Set ``solver``'s parameters for a model of ``size`` variables whose objective values reach
        ``scale``; ``bounded``: a max-min model; ``amount``: the board's :func:`largest_amount`."""
        p = solver.parameters
        p.num_workers = self.workers
        p.random_seed = self.seed
        p.cp_model_presolve = self.presolve and size >= self.presolve_from and scale <= self.presolve_max_scale
        p.max_presolve_iterations = self.presolve_iterations
        p.linearization_level = self.linearization_level
        if bounded and size >= self.maxmin_linearization_from:
            p.linearization_level = max(p.linearization_level, 1)
        if amount >= self.big_amount_linearization_from and size < self.big_amount_linearization_below:
            p.linearization_level = max(p.linearization_level, 2)
        p.symmetry_level = self.symmetry_level
        p.cp_model_probing_level = self.probing_level
        p.use_sat_inprocessing = self.sat_inprocessing
        p.max_deterministic_time = DETERMINISTIC_LIMIT
        p.catch_sigint_signal = False  # Ctrl-C interrupts the program, not just one search (see the docstring)
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
    dealing: tuple[DealingChoice, ...] = ()
    """The affected players' choices for effects on the damage (616.1, 615.7), where they have one."""
    method: str = "cp-sat"
    """``cp-sat``; ``forced`` when no player has a choice (the only legal line, no model built,
    :func:`~optimizer.rules.forced_line`); for a board the encoding does not model, ``exhaustive``
    (small boards) or ``stepwise`` (the first-strike step searched exhaustively, each regular step
    solved on its own); ``fallback`` under a time limit for a board too large for those searches (a
    legal line, not proven optimal: see :func:`_fallback`)."""
    searched: int = field(default=0, repr=False, compare=False)
    """Lines the exhaustive searches reached (0 for ``cp-sat``): their work, as a count."""

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "player": self.player, "objective": dict(self.objective),
                "assignments": [a.to_dict() for a in self.assignments],
                "dealing": [d.to_dict() for d in self.dealing],
                "outcome": self.outcome.to_dict(), "method": self.method, "warnings": list(self.warnings)}


def solve(board: Board | dict[str, Any] | str | Path, player: ObjectId | None = None,
          objective: Sequence[str] | str | None = None, time_limit: float | None = None,
          settings: SolverSettings = SolverSettings(), max_combined_range: int = MAX_COMBINED_RANGE) -> SolveResult:
    """The deciding player's best damage assignment, with every other player replying worst for it.
    ``board`` is checked as :func:`~optimizer.schema.load_board` checks one (a :class:`Board` built in
    Python too)."""
    board = checked_board(board) if isinstance(board, Board) else load_board(board)
    return _solve(board, player, objective, time_limit, settings, max_combined_range)


def _solve(board: Board, player: ObjectId | None, objective: Sequence[str] | str | None, time_limit: float | None,
           settings: SolverSettings, max_combined_range: int) -> SolveResult:
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
        replies = _count_first_step_options(probe, defender)
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
    if reason is None and len(names) > 1 and _combined_range(ranges) > max_combined_range:
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
        return _searched(board, decider, names, reason, deadline, settings, max_combined_range)
    game = _Game(board, decider, names, settings, time_limit, max_combined_range, probe, ranges)
    try:
        line, value, proven = game.solve()
    except _TooManyGains as too_many:
        return _searched(board, decider, names, too_many.args[0], game.search_deadline(), settings, max_combined_range)
    except _TooWide as too_wide:  # small boards are searched instead (no weights needed)
        return _searched(board, decider, names, "the other side replies in the first-strike step, and the "
                         "objectives' ranges are too wide to combine for the refinement", game.search_deadline(),
                         settings, max_combined_range, refusal=too_wide.args[0], lead_alone=True)
    dealing = () if game.fallback else game.dealing(line)
    outcome, values = _checked(board, line, dealing, decider, names, "the solver's")
    if value is not None and game.scalar(values) != value:
        raise SolverError(f"internal error: the model values the line at {value}, the checker at "
                          f"{game.scalar(values)} ({values})")
    warnings = board.warnings if proven else board.warnings + (_unproven(game.unproven_reason()),)
    return SolveResult("optimal" if proven else "feasible", decider, values, line, outcome, warnings, dealing)


def _searched(board: Board, decider: ObjectId, names: tuple[str, ...], reason: str, deadline: float | None,
              settings: SolverSettings, max_combined_range: int, refusal: InputError | None = None,
              lead_alone: bool = False) -> SolveResult:
    """A board the encoding does not take (``reason``, named in the answer's warning): the exhaustive
    search. Past its limits, without a time limit the search's refusal is raised (or ``refusal``, an
    error that says better what to change); with one, :func:`_fallback` answers instead."""
    try:
        return _exhaustive(board, decider, names, reason, settings, deadline)
    except NotSupportedError as refused:
        error = refused if refusal is None else refusal
        if deadline is None:
            raise error from None
        return _fallback(board, decider, names, error.problem, deadline, settings, max_combined_range, lead_alone)


def _after_empty_first_step(board: Board, decider: ObjectId, names: tuple[str, ...], time_limit: float | None,
                            settings: SolverSettings, max_combined_range: int) -> SolveResult:
    """A board whose first-strike creatures all have power (or toughness, Doran-style) 0 or less: the
    first-strike step exists (510.4) but nobody assigns damage in it (510.1a), so the game is the
    regular step alone, on the board that step leaves (unchanged, but for who assigns damage next)."""
    later = first_step(board, (), ())[1]
    assert later is not None, "a first-strike step without damage ends no game"
    result = _solve_board(later, decider, names, time_limit, settings, max_combined_range)
    outcome, values = _checked(board, result.assignments, result.dealing, decider, names, "the regular step's")
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
    outcome, values = _checked(board, line, dealing, decider, names, "the parts'")
    summed = {n: (min if n == "alive" else sum)(r.objective[n] for r in results) for n in names}  # nobody loses
    if summed != values:
        raise SolverError(f"internal error: the parts' values add up to {summed}, the checker's of their "
                          f"union are {values}")
    warnings = tuple(dict.fromkeys(board.warnings + tuple(w for r in results for w in r.warnings)))
    proven = all(r.status == "optimal" for r in results)
    method = max((r.method for r in results), key=_METHODS.index)
    return SolveResult("optimal" if proven else "feasible", decider, values, line, outcome, warnings, dealing,
                       method, sum(r.searched for r in results))


def _checked(board: Board, line: tuple[Assignment, ...], dealing: Sequence[DealingChoice], decider: ObjectId,
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


def _forced(board: Board, decider: ObjectId, names: tuple[str, ...], line: tuple[Assignment, ...]) -> SolveResult:
    """The answer on a board where no player has a choice (:func:`forced_line`): its only legal line,
    optimal for everyone, valued by the checker; no model is built."""
    outcome, values = _checked(board, line, (), decider, names, "the forced")
    return SolveResult("optimal", decider, values, line, outcome, board.warnings, (), "forced")


def _fallback(board: Board, decider: ObjectId, names: tuple[str, ...], refusal: str, deadline: float,
              settings: SolverSettings, max_combined_range: int, lead_alone: bool = False) -> SolveResult:
    """Under a time limit, a board that neither the encoding nor the exhaustive search covers (the
    ``refusal`` it would get without one): a legal line instead of no answer, not proven optimal,
    valued by the checker. The best for the decider of :func:`simplest_line` (legal on every board);
    with ``lead_alone`` (objectives too wide to combine), the solver's lines for the first objective
    alone and then for the first two (that can vary, :func:`_shorter`); and on a board with banding
    (702.22j-k, what other refusals mostly come from), the solver's line for the same board without
    banding: each in the time left, when the checker finds it legal here."""
    candidates = [(simplest_line(board), (), "the simplest legal line (every creature's damage on its first "
                   "recipient, 510.1a-c)")]
    left = deadline - time.monotonic()
    shorter = _shorter(names, board, decider)
    for lead_names in (dict.fromkeys((shorter[:1], shorter)) if lead_alone else ()):  # the refusal suggests the second
        if len(lead_names) == len(names) or left <= 0.001:
            continue
        try:
            lead = _solve(board, decider, lead_names, left, settings, max_combined_range)
            candidates.append((lead.assignments, lead.dealing,
                               f"the best line found for {', '.join(lead_names)} alone"))
        except (InputError, SolverError):  # too wide as well, say
            pass
        left = deadline - time.monotonic()
    if left > 0.001 and any(Keyword.BANDING in c.keywords for c in board.combatants):
        unbanded = replace(board, creatures=tuple(replace(c, keywords=c.keywords - {Keyword.BANDING})
                                                  if Keyword.BANDING in c.keywords else c for c in board.creatures))
        try:
            relaxed = _solve(unbanded, decider, names, left, settings, max_combined_range)
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
    return SolveResult("feasible", decider, values, line, outcome, board.warnings + (_unproven(why),), dealing,
                       "fallback")


def _shorter(names: Sequence[str], board: Board, decider: ObjectId) -> tuple[str, ...]:
    """The list of objectives a refusal for too wide ranges suggests: the first two that can vary, or
    the first alone if there are at most two."""
    kept = varying(names, board, decider)
    return kept[:2] if len(kept) > 2 else kept[:1]


def _count(n: int) -> str:
    """A count in a message: with thousands separators, or, past 10^18, its power of ten."""
    return f"{n:,}" if n < 10**18 else f"about 10^{len(str(n)) - 1}"


def _unproven(reason: str) -> str:
    """The warning of an answer that is not proven optimal."""
    return (f"not proven optimal: {reason}; the objective values are those of the returned line, in which the "
            "other players' replies need not be their best, so the deciding player is not guaranteed them")


def _exhaustive(board: Board, decider: ObjectId, names: tuple[str, ...], reason: str,
                settings: SolverSettings, deadline: float | None = None) -> SolveResult:
    """The exhaustive game search, for boards the CP-SAT encoding does not model: all of it on small
    boards; on larger boards with two damage steps, the first-strike step only, each regular step
    solved on the board it begins with (a one-step board, which the encoding may well model). Past
    ``deadline`` the search finishes on first options only and the answer is not proven."""
    from .bruteforce import SearchTooLarge, brute_force, count_first_step_lines, count_leaves, option_count, step_boards

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
                result = _solve(later, decider, names, left, settings, MAX_COMBINED_RANGE)
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
    outcome, values = _checked(board, found.assignments, found.dealing, decider, names, "the exhaustive search's")
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
        warnings += (_unproven("the time limit ran out during the search"),)
    return SolveResult("optimal" if proven else "feasible", decider, values, found.assignments, outcome,
                       warnings, found.dealing, method, found.lines + searched)


def largest_amount(board: Board) -> int:
    """The largest damage amount or damage threshold on the board: a creature's power, toughness or
    marked damage, a planeswalker's loyalty, a battle's defense (see :class:`SolverSettings`)."""
    amounts = [abs(n) for c in board.creatures for n in (c.power, c.toughness, c.damage)]
    amounts += [pw.loyalty for pw in board.planeswalkers] + [b.defense for b in board.battles]
    amounts += [e.amount for e in board.effects if e.amount is not None]  # "prevent the next N", "+N"
    return max(amounts, default=0)


def _combined_range(ranges: Sequence[tuple[int, int]]) -> int:
    """How many values the objectives take together: the product of their ranges."""
    combined = 1
    for lo, hi in ranges:
        combined *= hi - lo + 1
    return combined


def objective_ranges(cm: CombatModel) -> list[tuple[int, int]]:
    """A (low, high) bound of each objective on this board, for exact lexicographic weights."""
    board, decider, names = cm.board, cm.decider, cm.objective
    combat = cm.combatants
    mine = [c for c in combat if c.controller == decider]
    theirs = [c for c in combat if c.controller != decider]

    def steps(c) -> int:  # damage steps it deals damage in
        return 2 if Keyword.DOUBLE_STRIKE in c.keywords else 1

    attackers = [c for c in combat if c.attacking is not None]  # only attackers damage players (510.1b-d)
    to_life = sum(cm.most_dealt(c) * steps(c) for c in attackers if Keyword.INFECT not in c.keywords)
    poison = sum((cm.most_dealt(c) if Keyword.INFECT in c.keywords else 0) + c.toxic  # 702.90b, 702.164c
                 for c in attackers for _ in range(steps(c)))
    lifelink = sum(cm.most_dealt(c) * steps(c) for c in mine if Keyword.LIFELINK in c.keywords)  # 702.15b
    opponents = [p for p in board.players if p.id != decider]

    def reaching(object_id: ObjectId) -> int:  # only creatures attacking it damage it (510.1b-c, 702.19c)
        return sum(cm.most_dealt(c) * steps(c) for c in attackers if c.attacking == object_id)

    ranges = {
        "kills": (0, len(theirs)),
        "survivors": (0, len(mine)),
        "value": (-sum(max(c.value, 0) for c in mine) - sum(max(-c.value, 0) for c in theirs),
                  sum(max(c.value, 0) for c in theirs) + sum(max(-c.value, 0) for c in mine)),
        "player_damage": (0, to_life),
        "poison": (0, poison),
        "loyalty": (0, sum(min(w.loyalty, reaching(w.id)) for w in board.planeswalkers if w.controller != decider)),
        "defense": (0, sum(min(b.defense, reaching(b.id)) for b in board.battles if b.protector != decider)),
        "life_gained": (0, lifelink),
        "lethal": (0, sum(1 for p in opponents if p.id != board.active_player)),  # dealt no combat damage
        "alive": (1 if decider == board.active_player else 0, 1),  # only a defender may lose
    }
    return [ranges[n] for n in names]


class _Game:
    """One solve: the case analysis of the module docstring."""

    def __init__(self, board: Board, decider: ObjectId, names: Sequence[str], settings: SolverSettings,
                 time_limit: float | None, max_combined_range: int, probe: CombatModel,
                 ranges: list[tuple[int, int]]) -> None:
        self.board = board
        self.probe = probe
        """A model of the board: its targets, choosers and orders of effects; the first solve builds in it."""
        self._probe_unused = True
        self.decider = decider
        self.names = tuple(names)
        self.settings = settings
        self.deadline = None if time_limit is None else time.monotonic() + time_limit
        self.ranges = ranges
        """:func:`objective_ranges` of the board."""
        combined = _combined_range(self.ranges)
        self.magnitude = 8 * combined * len(board.players)
        """About the largest value an objective variable takes: the product of the objectives' ranges
        (the largest weight times its range), times the refinement's slack for players' plans."""
        self.combine = combined <= max_combined_range or len(names) == 1  # one objective is its own scalar
        self.weights = []
        weight = 1
        for lo, hi in reversed(self.ranges):
            self.weights.append(weight)
            weight *= hi - lo + 1
        self.weights.reverse()
        self.big = 4 * sum(w * (abs(lo) + abs(hi) + 1) for w, (lo, hi) in zip(self.weights, self.ranges)) + 1
        """A bound on any one scalar objective value (with slack), for the max-min models' variables."""
        self.sign = {p.id: (1 if p.id == decider else -1) for p in board.players}
        self.master_sign = self.sign[board.active_player]
        self.responders = [p.id for p in board.players if self.sign[p.id] != self.master_sign]
        self.proven = True
        self.fallback = False
        """Whether the answer is :func:`simplest_line`, CP-SAT having found no line in its time."""
        self.out_of_rounds = False
        """Whether a refinement stopped after :data:`MAX_ROUNDS` rounds without a proof (unproven then)."""
        self.too_many_replies = False
        """Whether a verification met more replies than :data:`MAX_REPLIES` to enumerate (unproven then)."""
        self._second_steps: dict[tuple, tuple[tuple[Assignment, ...], int]] = {}
        self.case: frozenset[ObjectId] | None = None
        """The creatures with banding the active player's first step must destroy (see :meth:`_by_cases`)."""
        self.replying = bool(probe.any_coupled) or (probe.coupled_gain is not None and probe.two_steps)
        """Whether the defender's regular-step division is a reply to the active player's (510.1)
        that decides more than its own part: creatures whose damage both players divide, or its
        lifelink blockers' gain deciding whether it loses (two steps; one step has its own solve)."""
        self.largest_amount = largest_amount(board)
        self.work = 0.0
        """CP-SAT's deterministic time spent so far (a measure of work that does not vary by run)."""
        self.plans: list[dict[Cell, int]] = []
        """The active side's second-step plans found while verifying first steps (refinement)."""

    def dealing(self, line: tuple[Assignment, ...]) -> tuple[DealingChoice, ...]:
        """The affected players' order of the effects on each damage of ``line`` that has one (616.1),
        with what each shield prevents of it; in the regular step without the shields the first-strike
        step used up (615.7)."""
        first: list[DealingChoice] = []
        regular: list[DealingChoice] = []
        for a in line:
            order = self.probe.dealing_order((a.source, a.target), a.step)
            if order is not None:
                (first if a.step is Step.FIRST_STRIKE else regular).append(
                    DealingChoice(a.step, a.source, a.target, order))
        if first:  # what each shield prevents of the damage (615.7)
            first = list(with_prevented(self.board, (a for a in line if a.step is Step.FIRST_STRIKE), first))
        on = self.board
        if regular and self.probe.two_steps:
            later = first_step(self.board, line, tuple(first))[1]
            if later is not None:
                on = later
                kept = [(d, set(cell_effects(later, d.source, d.target).modifiers)) for d in regular]
                regular = [replace(d, order=tuple(i for i in d.order if i in left)) for d, left in kept]
        regular = [d for d in regular if d.order]
        if regular:  # on the board the regular step begins with
            regular = list(with_prevented(on, (a for a in line if a.step is Step.REGULAR), regular))
        return tuple(first + regular)

    def _fresh_model(self) -> CombatModel:
        """A model to build in: the probe the first time, then new ones."""
        if self._probe_unused:
            self._probe_unused = False
            return self.probe
        return self._model()

    def _model(self) -> CombatModel:
        cm = self.probe.fresh()
        cm.case = self.case
        return cm

    def scalar(self, values: Mapping[str, int]) -> int:
        """The objective values as one number whose order is the lexicographic order."""
        return sum(w * values[n] for w, n in zip(self.weights, self.names))

    # --- entry ------------------------------------------------------------------------------------
    def solve(self) -> tuple[tuple[Assignment, ...], int | None, bool]:
        """The line, the model's value of it (None if only the checker values it) and whether it is
        proven optimal; :func:`simplest_line` when CP-SAT found no line in its time."""
        try:
            return self._solve()
        except _NoLine:
            self.fallback = True
            return simplest_line(self.board), None, False

    def _solve(self) -> tuple[tuple[Assignment, ...], int | None, bool]:
        probe = self.probe
        if probe.coupled_gain is not None and not probe.two_steps and not probe.any_coupled:
            return self._coupled_gain()
        if probe.any_coupled and not probe.two_steps:
            line, value = self._defender_replies({})
            return line, value, self.proven
        if not probe.two_steps:
            line, value = self._fixed_first_step({})
            return line, value, self.proven
        if probe.unstable and probe.active_decides_unstable():
            return self._by_cases()
        return self._two_steps()

    def _by_cases(self) -> tuple[tuple[Assignment, ...], int | None, bool]:
        """702.22k across 510.4: the active player's first-strike division decides which creatures
        with banding survive, and so who divides some regular-step damage. Each case (which of them
        leave) is solved with the models requiring it; the active side takes the best case."""
        best: tuple[tuple[Assignment, ...], int] | None = None
        for case in self.probe.cases():
            self.case = self.probe.case = case
            try:
                line, value, _ = self._two_steps()
            except _CaseInfeasible:
                continue
            finally:
                self.case = self.probe.case = None
            assert value is not None, "cases are compared on combined objectives"
            if best is None or self.master_sign * value > self.master_sign * best[1]:
                best = (line, value)
        if best is None:
            raise SolverError("internal error: no case of the banding creatures' survival is possible")
        return best[0], best[1], self.proven

    def _two_steps(self) -> tuple[tuple[Assignment, ...], int | None, bool]:
        probe = self.probe
        views = [probe.view(gone) for gone in probe.cases()]  # banding may hand a division over (702.22j-k)
        responder_choice = any(len(v.targets[c.id]) > 1 and v.chooser[c.id] in self.responders
                               for v in views for c in probe.combatants)
        if not responder_choice:
            return self._joint()
        if not self.combine:
            given = ", ".join(self.names) + (" (the default)" if self.names == DEFAULT_OBJECTIVE else "")
            fewer = _shorter(self.names, self.board, self.decider)
            raise _TooWide(InvalidRequestError(
                "objective", "the objectives' ranges are too wide to combine for a guaranteed two-step "
                f"solve on this board ({given}); list fewer objectives, for example {','.join(fewer)}"))
        reply_count = _count_first_step_options(probe, self.responders)
        separable = self._separable(reply_count) if SEPARABLE_STEPS else None
        return separable if separable is not None else self._refine(reply_count)

    def _separable(self, reply_count: int) -> tuple[tuple[Assignment, ...], int | None, bool] | None:
        """Two steps where the responders have one first-step reply and the active side's first-strike
        damage cannot change their part: none of it reaches their regular-step sources, what those may
        damage, a creature whose fate their part scores or whatever else damages one, nor makes a
        player lose (704.5a), and no shield carries it over (615.7).
        Then each side's regular-step choice scores its own part whatever the first step did, so one
        model optimizes both sides at once (each part its own way, as in a single step): the active
        side's part over both of its steps, the responders' over their regular step. None (refine
        instead) when the board is not of that kind."""
        probe, board = self.probe, self.board
        if (len(board.players) != 2 or self.replying or probe.unstable or probe.any_coupled
                or probe.coupled_gain is not None or any(e.is_shield for e in board.effects)
                or reply_count != 1):
            return None
        responders = set(self.responders)
        regular = probe.sources(Step.REGULAR)
        theirs = {s.id for s in regular if probe.chooser[s.id] in responders}
        # what their part depends on: their sources, what those may damage, every creature whose fate
        # their part scores (an attacker's, with no blocker left to divide, is its defender's), and
        # whatever else damages those
        fates = {t for s in regular if s.id in theirs for t, _ in probe.targets(s)}
        fates |= {c.id for c in probe.combatants if probe.damaged_by(c.id) in responders}
        reach = theirs | fates | {s.id for s in regular if any(t in fates for t, _ in probe.targets(s))}
        fs = probe.sources(Step.FIRST_STRIKE)
        leading = [s for s in fs if probe.chooser[s.id] not in responders]
        if any(t in reach for s in leading for t, _ in probe.targets(s)):
            return None
        cm = self._model()
        reply = _first_step_options(cm, self.responders)[0]
        lead = cm.first_step_cells(leading)
        cm.first_step_trample(lead)
        fixed = cm.first_step_cells([s for s in fs if cm.chooser[s.id] in responders], fixed=reply)
        sc = cm.scenario({**lead, **fixed}, free=set(self.sign), policies={})
        st = sc.state
        assert st is not None
        if not all(isinstance(v, int) for v in st.lost.values()) or not all(
                isinstance(st.effective_power(s), int) for s in cm.sources(Step.REGULAR) if s.id in theirs):
            return None  # the first step may still reach them (a player's loss, an effect): refine
        stages = self._stages([(self.sign[key], sc.parts[key]) for key in sc.parts])
        values, value = self._optimize(cm, stages, sc.cells, self._total(sc))
        return _line(values), value, self.proven

    # --- one model, everyone's second step free -----------------------------------------------------
    def _fixed_first_step(self, first: Mapping[Cell, int]) -> tuple[tuple[Assignment, ...], int]:
        """The second step on a known state: each player's part optimized its own way (separable).
        Returns the line and the model's value of it (remembered: refinement asks again)."""
        key = _second_step_key(first)
        if key not in self._second_steps:
            self._second_steps[key] = self._solve_second_step(first)
        return self._second_steps[key]

    def _solve_second_step(self, first: Mapping[Cell, int]) -> tuple[tuple[Assignment, ...], int | None]:
        if self.replying:  # the defender replies to the active player's division (510.1)
            return self._defender_replies(first)
        if self.probe.self_scored and not self.probe.two_steps:
            return self._self_scored()
        forced = self._forced_second_step(first) if FORCED_SECOND_STEP else None
        if forced is not None:
            return forced
        cm = self._fresh_model()
        cells = dict(cm.first_step_cells(cm.sources(Step.FIRST_STRIKE), fixed=first))
        sc = cm.scenario(cells, free={p.id for p in self.board.players}, policies={})
        stages = self._stages([(self.sign[key], sc.parts[key]) for key in sc.parts])
        values, value = self._optimize(cm, stages, sc.cells, self._total(sc))
        return _line(values), value

    def _forced_second_step(self, first: Mapping[Cell, int]) -> tuple[tuple[Assignment, ...], int] | None:
        """The second step after the first-strike damage ``first`` when nobody has a choice in it
        (:func:`forced_line` on the board the first step leaves, 510.4; none at all if the game ended,
        104.2a): that line, valued by the checker, with no model. None if someone has a choice."""
        board = self.board
        if not (self.probe.two_steps and self.combine and board.plain_damage):
            return None
        played = _line({(Step.FIRST_STRIKE, s, t): n for (s, t), n in first.items()})
        later = first_step(board, played)[1]
        regular = forced_line(later) if later is not None else ()
        if regular is None:
            return None
        line = normalize((*played, *regular))
        return line, self._line_value(line)

    def _joint(self) -> tuple[tuple[Assignment, ...], int, bool]:
        """Two steps, responders without choices: one model, the active side's both steps free."""
        cm = self._fresh_model()
        first = cm.first_step_cells(cm.sources(Step.FIRST_STRIKE))
        cm.first_step_trample(first)
        free = {p for p in self.sign if p not in self.responders}
        sc = cm.scenario(first, free=free, policies={})
        stages = self._stages([(self.master_sign, sc.parts[key]) for key in sc.parts])
        cells = dict(sc.cells)
        for responder_cells in sc.policy_cells.values():  # without choices, the default is the play
            cells.update({(Step.REGULAR, s, t): v for (s, t), v in responder_cells.items()})
        values, value = self._optimize(cm, stages, cells, self._total(sc))
        return _line(values), value, self.proven

    # --- one step, a defender's lifelink gain deciding whether it loses -----------------------------
    def _coupled_gain(self) -> tuple[tuple[Assignment, ...], int | None, bool]:
        """One damage step where the defending player's division of its lifelink blockers' damage
        decides both its part of the objective and, through the life it gains (510.2), whether the
        active player's damage is lethal. The defender replies to the active player's announcement
        (510.1), so for each total gain its best division with that gain is found first (the totals it
        cannot lose with, whatever the active player does, together; totals no division reaches skipped;
        more than :data:`MAX_GAIN_LEVELS` go to the exhaustive search); the active player's model then
        counts, for its own damage, the defender's best reply among those. The defender may be the
        decider (its own loss then counts against it) or play against the deciding active player."""
        board, probe = self.board, self.probe
        q = probe.coupled_gain
        assert q is not None and self.combine and probe.loss_objective(q) in self.names
        deciding = self.sign[q] > 0  # the defender decides: it maximizes, the active player minimizes
        free = {p.id for p in board.players}
        cm = self._fresh_model()
        sc = cm.scenario({}, free=free, policies={})
        gain = cm.coupled_gain_expr(sc)
        low, high = cm.bounds(gain) or (0, sum(cm.most_dealt(c) for c in cm.coupled_sources()))
        level_var = cm._int(low, high, "coupled_gain")
        cm.model.add(level_var == gain)
        part = self._scalar_expr(sc.parts[q])
        best_part = cm.model.maximize if deciding else cm.model.minimize  # the defender's own way
        best_part(part)
        weight = self.weights[self.names.index(probe.loss_objective(q))] * (-1 if deciding else 1)
        main = self._model()
        msc = main.scenario({}, free=free, policies={})
        replies: dict[int, tuple[int, dict]] = {}  # total gain -> (the defender's part, its cells)
        lost: dict[int, Expr] = {}  # total gain -> whether the defender loses with it, in the main model
        domain = cm.model.proto.variables[level_var.index].domain  # [low, high], narrowed as levels go
        level = low
        while level <= high:
            if self._expired():
                self.proven = False  # the replies so far: a legal line, its value unproven
                break
            lost_here = main.lost_in(msc, q, level)
            safe = isinstance(lost_here, int) and lost_here == 0  # it cannot lose with this gain, nor more (704.5a)
            domain[0], domain[1] = level, (high if safe else level)  # then its best part with any of those gains
            solver = self._run(cm.model, infeasible_ok=True)
            if solver is not None:
                if len(replies) == MAX_GAIN_LEVELS:
                    raise _TooManyGains(f"{q}'s lifelink blockers' gain decides whether it loses, and they can "
                                        f"gain more than {MAX_GAIN_LEVELS:,} different totals")
                level = _value(solver, level_var)
                replies[level] = (_value(solver, part),  # exact (objective_value is a float)
                                  {k: _value(solver, v) for k, v in sc.cells.items() if probe.chooser[k[1]] == q})
                lost[level] = lost_here if level == domain[0] else main.lost_in(msc, q, level)
                if safe:
                    break
                level += 1
                continue
            if safe:
                break  # no division gains this much or more (or out of time: then unproven)
            # no division gains exactly this much (or out of time: then unproven): the next total one does
            domain[0], domain[1] = level + 1, high
            cm.model.minimize(level_var)
            solver = self._run(cm.model, infeasible_ok=True) if level < high else None
            best_part(part)
            if solver is None:
                break
            level = _value(solver, level_var)
        reply = main.model.new_int_var(-self.big, self.big, "reply")
        active = self._scalar_expr(msc.parts[board.active_player])
        for level, (value, _) in replies.items():  # the defender's best reply: a max-min (or min-max) model
            if deciding:
                main.model.add(reply >= value + weight * lost[level])
            else:
                main.model.add(reply <= value + weight * lost[level])
        if deciding:
            main.model.minimize(active + reply)
        else:
            main.model.maximize(active + reply)
        solver = self._run(main.model, bounded=True) if replies else None
        if solver is None:  # out of time: a legal line, its value unproven
            self.proven = False
            return self._fixed_first_step({})[0], None, False
        chosen = (max if deciding else min)(replies, key=lambda level: replies[level][0]
                                            + weight * _value(solver, lost[level]))
        values = {k: _value(solver, v) for k, v in msc.cells.items() if probe.chooser[k[1]] != q}
        values.update(replies[chosen][1])
        value = _value(solver, active) + replies[chosen][0] + weight * _value(solver, lost[chosen])
        return _line(values), (value if self.proven else None), self.proven

    # --- one step, three or more players, defenders dividing damage to their own creatures ----------
    def _self_scored(self) -> tuple[tuple[Assignment, ...], int]:
        """One damage step with three or more players where some defending players divide the damage
        dealt to their own creatures (banding, 702.22j), while the active player's damage decides
        whether they lose and their creatures leave with them (800.4a). Each such player's division
        does not depend on the active player's (one step: its part sees only its own damage), so its
        best part is found both ways first, with its creatures in play and with them gone; the main
        model then counts, for each such player, the first if it survives and the second if it
        loses, and the line takes the division that goes with what happened."""
        probe, active = self.probe, self.board.active_player
        everyone = {p.id for p in self.board.players}
        if not self.combine:
            raise SolverError("internal error: defenders' own divisions need combined objectives")
        # (the ("part", q) and ("lost", q) entries read those expressions' values back with the cells)
        best: dict[bool, tuple[dict[ObjectId, int], dict]] = {}
        for left in (False, True):
            cm = self._model()
            cm.left = probe.self_scored if left else frozenset()
            sc = cm.scenario({}, free=everyone, policies={})
            parts = {("part", q): self._scalar_expr(sc.parts[q]) for q in sorted(probe.self_scored)}
            stage = sum((self.sign[q] * e for (_, q), e in parts.items()), 0)
            values, _ = self._optimize(cm, [stage], {**sc.cells, **parts}, None)
            best[left] = ({q: values.pop(("part", q)) for q in probe.self_scored}, values)
        cm = self._model()
        sc = cm.scenario({}, free=everyone, policies={})
        lost = {("lost", q): cm.lost_in(sc, q) for q in sorted(probe.self_scored)}
        active_part = self._scalar_expr(sc.parts[active]) + sum(
            (best[True][0][q] * v + best[False][0][q] * (1 - v) for (_, q), v in lost.items()), 0)
        others = [p for p in sc.parts if p != active and p not in probe.self_scored]
        stage = self.sign[active] * active_part + sum((self.sign[p] * self._scalar_expr(sc.parts[p]) for p in others), 0)
        total = active_part + sum((self._scalar_expr(sc.parts[p]) for p in others), 0)
        values, value = self._optimize(cm, [stage], {**sc.cells, **lost}, total)
        for q in probe.self_scored:  # each such player's division for what happened to it
            division = best[bool(values.pop(("lost", q)))][1]
            values.update({k: v for k, v in division.items() if probe.chooser[k[1]] == q})
        return _line(values), value

    # --- one step, creatures whose damage both players divide -------------------------------------
    def _defender_replies(self, first: Mapping[Cell, int]) -> tuple[tuple[Assignment, ...], int | None]:
        """The regular damage step after the first-strike damage ``first`` (none with one step) when
        the defending player's division is a reply to the active player's that decides more than its
        own part (:attr:`replying`): it announces after the active player (510.1). Refinement: a master
        model picks the active player's damage against a growing set of the defender's replies (each
        used where legal, else a default), scoring the defender's best of them; the defender's exact
        reply to that damage either meets the master's bound or joins the set. The value is None
        when time ran out (the line is then the best verified one, or any legal one)."""
        board, probe = self.board, self.probe
        active, defender = board.active_player, probe.responder()
        if not self.combine:
            raise SolverError("internal error: coupled fates need combined objectives")
        replies: list[dict[Cell, int]] = []
        best: tuple[int, tuple[Assignment, ...]] | None = None
        sign = self.sign[active]
        cm = self._model()  # one model, extended by a copy of the defender's step for each new reply
        fixed = cm.first_step_cells(cm.sources(Step.FIRST_STRIKE), fixed=first)
        sc = cm.scenario(fixed, free={active}, policies={defender: [None]})
        u = self._best_plan(cm, sc, defender, 1)
        total = self._scalar_expr(sc.parts[active]) + u
        t = cm.model.new_int_var(-2 * self.big, 2 * self.big, "t")
        cm.model.add(t <= total) if sign > 0 else cm.model.add(t >= total)
        for _ in range(MAX_ROUNDS):
            solver = self._run_toward(cm, t, maximize=sign > 0)
            if solver is None:
                break
            bound = int(solver.value(t))
            lead = {k: _value(solver, v) for k, v in sc.cells.items()}
            line, value = self._reply(first, lead)
            if best is None or sign * value > sign * best[0]:
                best = (value, line)
            if value == bound:
                return line, value
            if solver.response_proto.status != cp_model.OPTIMAL:
                break  # stopped early (time or budget): its value is no bound, so no reply can be learnt
            chooser = self._regular_chooser(line)
            reply = {(a.source, a.target): a.amount for a in line
                     if a.step is Step.REGULAR and chooser[a.source] == defender}
            if reply in replies:
                if not self.proven:
                    break  # a solve stopped early: its reply or the bound is not exact
                raise SolverError("internal error: a reply does not tighten the bound")
            replies.append(reply)
            self._cover(cm, u, defender, sc.parts[cm.add_policy(sc, defender, reply)])
            if self._expired():
                break
        else:
            self.out_of_rounds = True
        self.proven = False
        if best is None:  # out of time before any master: the defender's reply to any legal damage
            return self._reply(first, None)[0], None
        return best[1], best[0]

    def _reply(self, first: Mapping[Cell, int], lead: Mapping[tuple[Step, ObjectId, ObjectId], int] | None
               ) -> tuple[tuple[Assignment, ...], int]:
        """The defender's best regular-step reply to the active player's damage ``lead`` (None: any
        legal damage) after the first-strike damage ``first``, and the line's value."""
        cm = self._model()
        fixed = cm.first_step_cells(cm.sources(Step.FIRST_STRIKE), fixed=first)
        sc = cm.scenario(fixed, free={p.id for p in self.board.players}, policies={})
        for key, v in (lead or {}).items():  # the active player's cells, in the view the first step leaves
            if not isinstance(sc.cells[key], int):
                cm.model.add(sc.cells[key] == v)
        stages = self._stages([(self.sign[key], sc.parts[key]) for key in sc.parts])
        values, value = self._optimize(cm, stages, sc.cells, self._total(sc))
        if value is None:
            value = self._line_value(_line(values))
        return _line(values), value

    # --- refinement ---------------------------------------------------------------------------------
    def _refine(self, reply_count: int) -> tuple[tuple[Assignment, ...], int | None, bool]:
        """Counterexample-guided refinement (module docstring); ``reply_count``: the responders'
        distinct first-step replies (``_count_first_step_options``)."""
        order = self.board.turn_order()
        first_responder = min(order.index(p) for p in self.responders)
        leaders = [p for p in order[:first_responder]]
        followers = [p for p in order[first_responder:] if p not in self.responders]
        probe = self.probe
        replies: list[dict[Cell, int]] = []  # every distinct responder reply, enumerated only if needed
        plain = {(s.id, probe.targets(s)[0][0]): amount_of(s) for s in probe.sources(Step.FIRST_STRIKE)
                 if probe.chooser[s.id] in self.responders}  # each blocker all on its first attacker
        follower_options = _first_step_options(probe, followers)
        leading = [s for s in probe.sources(Step.FIRST_STRIKE) if probe.chooser[s.id] in leaders]
        if (FORCED_LEAD and not followers and self.case is None
                and all(len(probe.targets(s)) == 1 and not probe.two_modes(s) for s in leading)):
            lead = {(s.id, probe.targets(s)[0][0]): amount_of(s) for s in leading}
            forced = self._forced_lead(lead, reply_count, follower_options, replies)
            if forced is not None:
                return forced
        scenarios: list[dict[Cell, int]] = [plain]
        policies: list[dict[Cell, int]] = []
        best: tuple[int, tuple[Assignment, ...]] | None = None
        model: _MasterModel | None = None
        for _ in range(MAX_ROUNDS):
            if self._expired():
                break
            master = self._master(model, leaders, followers, scenarios, policies)
            if master is None:
                break
            bound, lead, follow, plans, model, exact = master
            found = self._verify_lead(lead, reply_count, follower_options, replies, scenarios, bound,
                                      enumerate_replies=bool(followers))
            if found is None:
                break  # out of time, or too many replies to enumerate: the best verified line so far
            value, line, worst, second_steps, complete = found
            if complete and (best is None or self.master_sign * value > self.master_sign * best[0]):
                best = (value, line)
            if complete and value == bound:
                return line, value, self.proven
            if self._expired() or not exact:
                break  # out of time, or the master stopped early: its value is no bound to refine
            learnt = len(scenarios) + len(policies)
            if worst not in scenarios:
                scenarios.append(worst)
            for k, reply in enumerate(scenarios[:len(follow)]):  # tighten each scenario where the master stands
                state = {**lead, **reply, **follow.get(k, {})}
                if self.replying:  # the reply to the master's own regular step there (510.1)
                    line, _ = self._reply(state, plans[k])
                    second_steps.append(self._responders_second_step(line))
                else:
                    second_steps.append(self._second_step_reply(state))
            policies.extend(p for i, p in enumerate(second_steps)
                            if p not in policies and p not in second_steps[:i])
            if len(scenarios) + len(policies) == learnt:  # the master would stand where it stands
                if not self.proven:
                    break  # a solve stopped early: its reply or plan is not exact
                raise SolverError("internal error: a refinement round learnt no reply and no plan")
        else:
            self.out_of_rounds = True
        self.proven = False
        if best is None:  # out of time or rounds before any verification: verify the plainest legal first step
            lead = {(s.id, probe.targets(s)[0][0]): amount_of(s)
                    for s in probe.sources(Step.FIRST_STRIKE) if probe.chooser[s.id] in leaders}
            value, line, _, _, _ = self._verify(lead, [plain], follower_options[:1])
            best = (value, line)
        return best[1], best[0], False

    def _forced_lead(self, lead: dict[Cell, int], reply_count: int, follower_options: list[dict[Cell, int]],
                     replies: list[dict[Cell, int]]) -> tuple[tuple[Assignment, ...], int | None, bool] | None:
        """The active side has no first-step choice (each of its first-strike creatures has one
        recipient, 510.1a): its first step is ``lead``, and the game's value is that first step's
        exact value, found as the refinement verifies one, with no master model. None if that ran out
        of time or had too many replies to enumerate (the refinement then returns its fallback)."""
        found = self._verify_lead(lead, reply_count, follower_options, replies)
        if found is None:
            return None
        value, line, _, _, complete = found
        assert complete, "a verification without a cutoff is complete"
        return line, value, self.proven  # unproven if a solve stopped early or time ran out

    def _verify_lead(self, lead: dict[Cell, int], reply_count: int, follower_options: list[dict[Cell, int]],
                     replies: list[dict[Cell, int]], likely_worst: Sequence[dict[Cell, int]] = (),
                     cutoff: int | None = None, enumerate_replies: bool = False):
        """The exact value of the active side's first step ``lead`` (see :meth:`_verify`; with
        ``cutoff``, a counterexample once a reply is worse): with a verification model, or by
        enumerating the responders' replies, ``likely_worst`` first, into ``replies`` (filled once,
        on first need). They are enumerated when ``enumerate_replies`` says so (players on the
        active side after the responders), when a reply decides who divides in the regular step
        (702.22j), when the regular step is itself a reply to the active player's division (510.1),
        when there are so few replies that solving the second step after each costs less than a
        verification model, and once the verification model's rounds cost more than that
        (:data:`_ENUMERATE`). None if out of time, or with more than :data:`MAX_REPLIES` to enumerate."""
        probe = self.probe
        enumerate_replies = bool(enumerate_replies or (probe.unstable and not probe.active_decides_unstable())
                                 or self.replying or reply_count <= ENUMERATED_VERIFICATION)
        found = None if enumerate_replies else self._verify_by_plans(lead, reply_count)
        if found is _ENUMERATE:  # the plans converge slowly: solving each reply's second step is less work
            found, enumerate_replies = None, True
        if found is not None or not enumerate_replies:
            return found
        if not replies and reply_count > MAX_REPLIES:
            self.too_many_replies = True
            return None
        if not replies:
            replies.extend(_first_step_options(probe, self.responders))
        ordered = list(likely_worst) + [r for r in replies if r not in likely_worst]
        return self._verify(lead, ordered, follower_options, cutoff)

    def _master(self, m: "_MasterModel | None", leaders: list[ObjectId], followers: list[ObjectId],
                scenarios: list[dict[Cell, int]], policies: list[dict[Cell, int]]):
        """The master model of the refinement (see the module docstring), extended from the last
        round's ``m`` (None: built) with the scenarios and policies added since; solved."""
        if m is None:
            cm = self._model()
            fs = cm.sources(Step.FIRST_STRIKE)
            lead = cm.first_step_cells([s for s in fs if cm.chooser[s.id] in leaders])
            cm.first_step_trample(lead)
            m = _MasterModel(cm, cm.model.new_int_var(-self.big, self.big, "t"), lead)
        cm = m.cm
        for k, variants in enumerate(m.scenarios):  # the policies found since, in each scenario already there
            for policy in policies[m.policies:]:
                for (_, sc), best in zip(variants, m.best[k]):
                    for p in self.responders:
                        self._cover(cm, best[p], p, sc.parts[cm.add_policy(sc, p, policy)])
        m.policies = len(policies)
        fs = cm.sources(Step.FIRST_STRIKE)
        for reply in scenarios[len(m.scenarios):]:
            follow = cm.first_step_cells([s for s in fs if cm.chooser[s.id] in followers])
            m.follow_cells.append(follow)
            fixed = cm.first_step_cells([s for s in fs if cm.chooser[s.id] in self.responders], fixed=reply)
            responder_policies = {p: [None] + policies for p in self.responders}
            # one variant, or one per case of the banding creatures' survival the lead leaves (702.22j-k)
            variants = cm.scenarios({**m.lead, **follow, **fixed},
                                    free={p for p in self.sign if p not in self.responders}, policies=responder_policies)
            m.scenarios.append(variants)
            m.plan_cells.append([{k: v for k, v in sc.cells.items() if k[0] is Step.REGULAR} for _, sc in variants])
            m.best.append([])
            for happens, sc in variants:
                total: Expr = 0
                for key, part in sc.parts.items():
                    if isinstance(key, str):
                        total = total + self._scalar_expr(part)
                m.best[-1].append({p: self._best_plan(cm, sc, p, len(responder_policies[p])) for p in self.responders})
                for u in m.best[-1][-1].values():
                    total = total + u
                bound = cm.model.add(m.t <= total) if self.master_sign > 0 else cm.model.add(m.t >= total)
                if not isinstance(happens, int):
                    bound.only_enforce_if(happens)
        solver = self._run_toward(cm, m.t, maximize=self.master_sign > 0)
        if solver is None:
            return None
        lead_values = {k: _value(solver, v) for k, v in m.lead.items()}
        follow_values = {k: {c: _value(solver, v) for c, v in cells.items()} for k, cells in enumerate(m.follow_cells)}
        plan_values = [self._happening_plan(solver, variants, plans)  # only needed for coupled fates
                       for variants, plans in zip(m.scenarios, m.plan_cells)] if self.replying else []
        return (solver.value(m.t), lead_values, follow_values, plan_values, m,
                solver.response_proto.status == cp_model.OPTIMAL)

    @staticmethod
    def _happening_plan(solver: cp_model.CpSolver, variants: list[tuple[Expr, Any]],
                        plans: list[dict[Any, Expr]]) -> dict[Any, int]:
        """The master side's regular-step plan in the variant of a scenario that happens."""
        for (happens, _), cells in zip(variants, plans):
            if _value(solver, happens):
                return {k: _value(solver, v) for k, v in cells.items()}
        raise SolverError("internal error: no case of the banding creatures' survival happens in a scenario")

    def _best_plan(self, cm: CombatModel, sc, player: ObjectId, count: int) -> Expr:
        """A variable that the model's optimization drives to ``player``'s best score over its
        ``count`` second-step plans in ``sc`` (its largest if it maximizes, else its smallest)."""
        u = cm.model.new_int_var(-self.big, self.big, f"u[{player}]")
        for j in range(count):
            self._cover(cm, u, player, sc.parts[(player, j)])
        return u

    def _cover(self, cm: CombatModel, u: Expr, player: ObjectId, part: Mapping[str, Term]) -> None:
        """One more of ``player``'s plans for :meth:`_best_plan`'s variable ``u``: its score ``part``."""
        h = self._scalar_expr(part)
        cm.model.add(u >= h) if self.sign[player] > 0 else cm.model.add(u <= h)

    def _verify(self, lead: dict[Cell, int], replies: list[dict[Cell, int]],
                follower_options: list[dict[Cell, int]], cutoff: int | None = None):
        """The exact value of the active side's first step ``lead``: every responder reply, every
        follower answer, the second step solved on each resulting state. With ``cutoff`` (the master's
        bound), it stops at the first reply worse than that: ``lead`` is then not optimal, and the
        result is a counterexample, not the exact value (``complete`` False)."""
        worst = None
        for reply in replies:
            best_follow = None
            for follow in follower_options:
                if (worst is not None or best_follow is not None) and self._expired():
                    self.proven = False  # out of time: the worst reply so far, not a verified value
                    break
                state = {**lead, **reply, **follow}
                line, model_value = self._fixed_first_step(state)
                # the line returned in the end is re-checked against the model's value in solve()
                value = self._line_value(line) if model_value is None else model_value
                if best_follow is None or self.master_sign * value > self.master_sign * best_follow[0]:
                    best_follow = (value, line, state)
            if best_follow is None:
                break
            if worst is None or self.master_sign * best_follow[0] < self.master_sign * worst[0]:
                worst = (best_follow[0], best_follow[1], reply, best_follow[2])
            if cutoff is not None and self.master_sign * worst[0] < self.master_sign * cutoff:
                value, line, reply, _ = worst
                return value, line, reply, [self._responders_second_step(line)], False
        assert worst is not None
        value, line, reply, state = worst
        return value, line, reply, [self._responders_second_step(line)], True

    def _verify_by_plans(self, lead: dict[Cell, int], reply_count: int):
        """The exact value of ``lead`` without enumerating the responders' replies: refinement on the
        master side's second step. A model chooses the responders' first-step reply and second step
        against a growing set of master-side second-step plans (each used where legal, else a
        default): a bound on the value. Solving the second step exactly after that reply either meets
        the bound (then it is the value) or gives a new plan. None if out of time or rounds;
        :data:`_ENUMERATE` once its rounds took more CP-SAT work (deterministic time) than solving
        the second step after each of the ``reply_count`` replies not yet solved is likely to take,
        at the mean work of the second steps it solved (a rent-or-buy rule: at most about twice
        the work of the better of the two ways)."""
        master_side = [p for p in self.sign if p not in self.responders]
        plans = self.plans[-KEPT_PLANS:]  # legal plays wherever they are legal: the latest earlier ones
        cm = self._model()  # one model, extended by a copy of the second step for each new plan
        fs = cm.sources(Step.FIRST_STRIKE)
        fixed = cm.first_step_cells([s for s in fs if cm.chooser[s.id] not in self.responders], fixed=lead)
        free = cm.first_step_cells([s for s in fs if cm.chooser[s.id] in self.responders])
        policies = {p: [None] + plans for p in master_side}
        sc = cm.scenario({**fixed, **free}, free=set(self.responders), policies=policies)
        total: Expr = sum((self._scalar_expr(part) for key, part in sc.parts.items() if isinstance(key, str)), 0)
        best_plan = {p: self._best_plan(cm, sc, p, len(policies[p])) for p in master_side}
        for u in best_plan.values():
            total = total + u
        t = cm.model.new_int_var(-self.big * (len(master_side) + 1), self.big * (len(master_side) + 1), "t")
        # one objective variable, bounded by an inequality: CP-SAT's presolve substitutes an equality
        # into the objective, whose large weights it then mishandles
        cm.model.add(t >= total) if self.master_sign > 0 else cm.model.add(t <= total)
        rounds_work = steps_work = 0.0
        solved = 0
        for _ in range(MAX_ROUNDS):
            if self._expired():
                return None
            before = self.work
            solver = self._run_toward(cm, t, maximize=self.master_sign < 0)
            rounds_work += self.work - before
            if solver is None or solver.response_proto.status != cp_model.OPTIMAL:
                return None  # out of time: no bound
            bound = int(solver.value(t))
            reply = {k: _value(solver, v) for k, v in free.items()}
            before, state = self.work, {**lead, **reply}
            fresh = _second_step_key(state) not in self._second_steps
            line, model_value = self._fixed_first_step(state)
            if fresh:
                solved += 1
                steps_work += self.work - before
            value = self._line_value(line) if model_value is None else model_value
            if value == bound:
                return value, line, reply, [self._responders_second_step(line)], True
            chooser = self._regular_chooser(line)
            plan = {(a.source, a.target): a.amount for a in line
                    if a.step is Step.REGULAR and chooser[a.source] not in self.responders}
            if plan in plans:  # cannot happen: a plan is legal on the state it was found on
                if not self.proven:
                    return None  # unless a solve stopped early: its plan or the bound is not exact
                raise SolverError("internal error: a second-step plan does not tighten the bound")
            plans.append(plan)
            self.plans.append(plan)
            left = reply_count - solved  # replies whose second step is not solved yet
            if solved and reply_count <= MAX_REPLIES and left * steps_work / solved <= rounds_work:
                return _ENUMERATE
            for p in master_side:
                self._cover(cm, best_plan[p], p, sc.parts[cm.add_policy(sc, p, plan)])
        self.out_of_rounds = True
        return None

    def _second_step_reply(self, state: dict[Cell, int]) -> dict[Cell, int]:
        return self._responders_second_step(self._fixed_first_step(state)[0])

    def _responders_second_step(self, line: tuple[Assignment, ...]) -> dict[Cell, int]:
        """The responders' regular-step assignment in ``line``, as a policy for the master."""
        chooser = self._regular_chooser(line)
        return {(a.source, a.target): a.amount for a in line
                if a.step is Step.REGULAR and chooser[a.source] in self.responders}

    def _regular_chooser(self, line: tuple[Assignment, ...]) -> Mapping[ObjectId, ObjectId]:
        """Who divided each creature's regular-step damage in ``line``: as combat began, unless a
        creature with banding that made the other side divide left in the first-strike step."""
        probe = self.probe
        if not probe.unstable:
            return probe.chooser
        outcome, _ = first_step(self.board, line, self.dealing(line))
        return probe.view(frozenset(probe.unstable & set(outcome.destroyed))).chooser

    def _line_value(self, line: tuple[Assignment, ...]) -> int:
        return self.scalar(_checked(self.board, line, (), self.decider, self.names, "a verification's")[1])

    # --- CP-SAT plumbing ----------------------------------------------------------------------------
    def _total(self, sc) -> Expr | None:
        """The model's value of the whole objective, to compare with the checker's (combined weights
        only: one-at-a-time weights can exceed what CP-SAT evaluates)."""
        return sum((self._scalar_expr(part) for part in sc.parts.values()), 0) if self.combine else None

    def _scalar_expr(self, part: Mapping[str, Term]) -> Expr:
        return linear((w * coef, e) for w, n in zip(self.weights, self.names) for coef, e in part[n].parts)

    def _stages(self, signed_parts: list[tuple[int, Mapping[str, Term]]]) -> list[Expr]:
        """Expressions to maximize in turn: one weighted sum, or one per objective if too wide."""
        if self.combine:
            return [linear((w * sign * coef, e) for w, n in zip(self.weights, self.names)
                           for sign, part in signed_parts for coef, e in part[n].parts)]
        return [linear((sign * coef, e) for sign, part in signed_parts for coef, e in part[n].parts)
                for n in self.names]

    def _optimize(self, cm: CombatModel, stages: list[Expr], cells: Mapping[Any, Expr],
                  total: Expr | None) -> tuple[dict[Any, int], int | None]:
        """Maximize each stage in turn; the cells' values and the model's value of ``total``."""
        if all(isinstance(v, int) for v in cells.values()):
            # Nobody has a choice: no solve; the checker alone values the line.
            return dict(cells), (total if total is None or isinstance(total, int) else None)
        solver = None
        for expr in stages:
            cm.model.maximize(expr)
            solver = self._run(cm.model)
            if solver is None:  # out of time: any legal assignment will do (CP-SAT usually finds one at once)
                cm.model.clear_objective()
                solver = cp_model.CpSolver()
                # wall time only under a time limit: without one every limit is deterministic
                self.settings.apply(solver, None if self.deadline is None else FALLBACK_SECONDS)
                solver.parameters.max_deterministic_time = 10.0
                with stoppable(solver):
                    status = solver.solve(cm.model)
                if status == cp_model.INFEASIBLE and self.case is not None:
                    raise _CaseInfeasible()
                if status == cp_model.UNKNOWN:
                    raise _NoLine()
                if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                    raise SolverError(f"internal error: CP-SAT says {solver.status_name(status)}, but every "
                                      "combat has a legal assignment")
                break
            if len(stages) > 1 and not isinstance(expr, int):
                cm.model.add(expr >= solver.value(expr))
        if solver is None:
            cm.model.clear_objective()
            solver = self._run(cm.model)
            if solver is None:
                raise _NoLine()
        return {k: _value(solver, v) for k, v in cells.items()}, (None if total is None else _value(solver, total))

    def _run_toward(self, cm: CombatModel, t: cp_model.IntVar, maximize: bool) -> cp_model.CpSolver | None:
        """Optimize ``t``, bounded by the scenarios' totals (a max-min model)."""
        cm.model.maximize(t) if maximize else cm.model.minimize(t)
        if not len(cm.model.proto.search_strategy):  # once per model (models are extended and solved again)
            # Branch on t first, best value first. CP-SAT otherwise tends to take t at its worst and
            # improve it one unit per solution: seconds for a 45-variable model (milliseconds with this).
            cm.model.add_decision_strategy([t], cp_model.CHOOSE_FIRST,
                                           cp_model.SELECT_MAX_VALUE if maximize else cp_model.SELECT_MIN_VALUE)
        return self._run(cm.model, bounded=True)

    def _run(self, model: cp_model.CpModel, infeasible_ok: bool = False,
             bounded: bool = False) -> cp_model.CpSolver | None:
        """Solve; None if out of time with nothing found (or, with ``infeasible_ok``, infeasible).
        ``bounded``: the objective is a variable bounded by sums (a max-min model; see
        :meth:`SolverSettings.apply`)."""
        solver = cp_model.CpSolver()
        remaining = None if self.deadline is None else self.deadline - time.monotonic()
        self.settings.apply(solver, remaining, len(model.proto.variables), self.magnitude, bounded=bounded,
                            amount=self.largest_amount)
        with stoppable(solver):
            status = solver.solve(model)
            if status in (cp_model.INFEASIBLE, cp_model.MODEL_INVALID) and solver.parameters.cp_model_presolve:
                solver.parameters.cp_model_presolve = False  # a presolve failure (seen in ortools 9.15): retry without
                status = solver.solve(model)
        if status == cp_model.INFEASIBLE and infeasible_ok:
            return None
        if status == cp_model.INFEASIBLE and self.case is not None:
            raise _CaseInfeasible()
        if status in (cp_model.INFEASIBLE, cp_model.MODEL_INVALID):
            raise SolverError(f"internal error: CP-SAT says {solver.status_name(status)}, but every "
                              "combat has a legal assignment")
        if status == cp_model.UNKNOWN:
            self.proven = False
            return None
        self.proven &= status == cp_model.OPTIMAL
        self.work += solver.response_proto.deterministic_time
        return solver

    def unproven_reason(self) -> str:
        """Why the answer is not proven optimal."""
        if self.fallback:
            why = "the time limit ran out" if self._expired() else "a CP-SAT solve reached its work limit"
            return (f"{why} before CP-SAT found any line, so this is the simplest legal one (each creature's "
                    "damage all to one recipient, a blocker if it has one)")
        if self._expired():
            return "the time limit ran out"
        if self.too_many_replies:
            return f"the other players have more than {MAX_REPLIES:,} first-step replies to enumerate"
        if self.out_of_rounds:
            return f"the refinement reached its limit of {MAX_ROUNDS:,} round{'s' if MAX_ROUNDS != 1 else ''}"
        return f"a CP-SAT solve reached its work limit ({DETERMINISTIC_LIMIT:g} deterministic seconds)"

    def search_deadline(self) -> float | None:
        """The deadline, at least a millisecond away (None without a time limit): for a search instead."""
        return None if self.deadline is None else max(self.deadline, time.monotonic() + 0.001)

    def _expired(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline


@dataclass
class _MasterModel:
    """The refinement's master model, kept from round to round: the active side's first step
    (``lead``), one scenario per responder reply so far (with the followers' first-step cells, the
    master side's regular-step cells and the responders' best-plan variables of each), bounding ``t``;
    each scenario holds a copy of the responders' second step for each of the first ``policies``."""

    cm: CombatModel
    t: cp_model.IntVar
    lead: dict[Cell, Expr]
    scenarios: list[list[tuple[Expr, Any]]] = field(default_factory=list)
    """For each reply, its scenario with the indicator that it happens (several when the lead decides
    who divides in the regular step, see :meth:`CombatModel.scenarios`)."""
    follow_cells: list[dict[Cell, Expr]] = field(default_factory=list)
    plan_cells: list[list[dict[Any, Expr]]] = field(default_factory=list)
    best: list[list[dict[ObjectId, Expr]]] = field(default_factory=list)
    policies: int = 0


def _second_step_key(first: Mapping[Cell, int]) -> tuple:
    """The key ``_Game._fixed_first_step`` remembers a second step by: its first step's damage."""
    return tuple(sorted(first.items()))


def _value(solver: cp_model.CpSolver, v: Expr) -> int:
    return v if isinstance(v, int) else int(solver.value(v))


def _line(values: Mapping[tuple[Step, ObjectId, ObjectId], int]) -> tuple[Assignment, ...]:
    return normalize(Assignment(step, s, t, n) for (step, s, t), n in values.items() if n > 0)


def _distinct_splits(amount: int, caps: Sequence[int]):
    """One split of ``amount`` among attackers for each distinct outcome: damage to an attacker beyond
    its cap changes nothing (see :func:`_splits_of`), so amounts of at least the cap are one class;
    the excess goes to the first attacker at its cap.
    Written here, not shared with the brute-force reference."""
    def classes():  # depth first, with a stack: a creature may block 1,000 attackers
        stack: list[tuple[int, int, tuple[int, ...], int | None]] = [(0, amount, (), None)]
        last = len(caps) - 1
        while stack:
            i, left, prefix, full = stack.pop()
            cap = caps[i]
            if i == last:
                if full is None:  # nothing absorbs a remainder: this attacker takes all that is left
                    yield prefix + (min(left, cap),), (i if left >= cap else None)
                else:
                    for v in range(min(cap, left) + 1):
                        yield prefix + (v,), full
                continue
            for v in range(min(cap, left), -1, -1):  # popped in increasing order
                stack.append((i + 1, left - v, prefix + (v,), full if full is not None or v < cap else i))

    for split, full in classes():
        rest = amount - sum(split)
        if rest and full is None:
            continue
        out = list(split)
        if rest:
            out[full] += rest
        yield tuple(out)


def _split_options(cm: CombatModel, s: Creature) -> list[dict[Cell, int]]:
    """Every distinct way ``s``'s first-strike damage can be divided among the creatures it may damage
    (a blocker's attackers, 510.1d, or an attacker's blockers when the defender divides, 702.22j).
    Damage beyond a creature's toughness plus what a shield on that damage can prevent (615.7: the
    shield is used up and the creature destroyed either way) is alike, except for a lifelink source
    whose damage dealt depends on where it goes (effects, 120.3f): then every split is distinct."""
    targets = [t for t, _ in cm.targets(s)]
    return [{(s.id, t): n for t, n in zip(targets, split)} for split in _splits_of(cm, s)]


def _splits_of(cm: CombatModel, s: Creature):
    """:func:`_split_options` as tuples of amounts, in ``cm.targets(s)`` order, one by one."""
    targets = [t for t, _ in cm.targets(s)]
    amount = amount_of(s)
    exact = Keyword.LIFELINK in s.keywords and not all(cm.identity((s.id, t)) for t in targets)
    caps = [amount] * len(targets) if exact else [
        cm.board.creature(t).toughness + cm.shield_amount((s.id, t)) for t in targets]
    return _distinct_splits(amount, caps)


def _count_first_step_options(cm: CombatModel, players: Sequence[ObjectId]) -> int:
    """How many replies :func:`_first_step_options` would list (past :data:`MAX_REPLIES`, a number
    above it), without listing them."""
    total = 1
    for s in cm.sources(Step.FIRST_STRIKE):
        if cm.chooser[s.id] in players:
            total *= sum(1 for _ in islice(_splits_of(cm, s), MAX_REPLIES + 1))
            if total > MAX_REPLIES:
                break
    return total


def _first_step_options(cm: CombatModel, players: Sequence[ObjectId]) -> list[dict[Cell, int]]:
    """Every distinct first-step assignment of ``players``' creatures (blockers: their choices are
    independent of each other and of everyone else's, 510.1d)."""
    rows = []
    for s in cm.sources(Step.FIRST_STRIKE):
        if cm.chooser[s.id] in players:  # blockers, or attackers the defender divides (702.22j)
            rows.append(_split_options(cm, s))
    return [{k: v for part in combo for k, v in part.items()} for combo in product(*rows)] or [{}]
