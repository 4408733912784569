"""Exhaustive reference solver for small boards: the project's "perft".

Plays combat damage assignment as the game the rules describe: in each damage step (510.4)
players announce in turn order, the active player first (510.1), each seeing every earlier
announcement, including the first-strike step's results; a creature's damage is announced by the
player who divides it (its controller, or the other side under banding, 702.22j-k). Then, as the
damage is dealt, each player in turn order (101.4) makes its choices for the effects on damage it is
affected by (616.1, 615.7). The deciding player maximizes its objective tuple, every other player
minimizes it. Every candidate split of every creature's power is tried and judged by the independent
checker. Exponential: small boards only.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from itertools import product
from math import comb
from typing import Callable, Iterable, Iterator, Sequence

from .assignment import Assignment, Step, normalize
from .board import Board, ObjectId
from .check import step_violations
from .objectives import objective_values
from .dealing import DealingChoice, banding_chooser, dealing_options
from .rules import (board_after_first_strike, damage_amount, damage_steps, deal_damage, possible_recipients,
                    resolve_combat, step_choices, tramples)


@dataclass(frozen=True)
class BruteForceResult:
    """The game value (objective tuple) and one line of play that achieves it."""

    value: tuple[int, ...]
    assignments: tuple[Assignment, ...]
    dealing: tuple[DealingChoice, ...] = ()
    complete: bool = True
    """False when a deadline cut the search short: the line is legal, but its value is not proven to
    be the game value."""
    lines: int = 0
    """Lines the search reached (each a whole line of play, the players' dealing choices included)."""


def splits(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every way to write ``total`` as an ordered sum of ``parts`` non-negative integers."""
    stack: list[tuple[int, ...]] = [()]  # depth first, with a stack: a creature may have 1,000 recipients
    while stack:
        prefix = stack.pop()
        left = total - sum(prefix)
        if len(prefix) == parts - 1:
            yield (*prefix, left)
            continue
        for first in range(left, -1, -1):  # popped in increasing order
            stack.append((*prefix, first))


def creature_options(board: Board, creature_id: ObjectId, step: Step = Step.REGULAR) -> list[tuple[Assignment, ...]]:
    """Every split of the creature's power among its possible recipients (legality not yet judged)."""
    creature = board.creature(creature_id)
    targets = sorted(possible_recipients(board, creature, step))
    if not targets:
        return [()]
    options = [tuple(Assignment(step, creature_id, t, n) for t, n in zip(targets, split) if n)
               for split in splits(damage_amount(creature), len(targets))]
    return options + [()]  # assigning nothing is legal when a mode has no recipient; the checker decides


def option_count(board: Board, creature_id: ObjectId, step: Step = Step.REGULAR) -> int:
    """``len(creature_options(...))``, counted without listing them: C(power + k - 1, k - 1) splits
    among k recipients, and assigning nothing."""
    creature = board.creature(creature_id)
    k = len(possible_recipients(board, creature, step))
    if not k:
        return 1
    total = damage_amount(creature)
    return 1 + (1 if k == 1 else comb(total + k - 1, k - 1) if total >= 0 else 0)


def player_options(board: Board, player: ObjectId, step: Step, announced: tuple[Assignment, ...],
                   memo: dict | None = None) -> Iterator[tuple[Assignment, ...]]:
    """``player``'s legal joint assignments in ``step`` given what was announced before it (510.1e),
    one by one (a large board's can be too many to list).

    ``board`` is the board as the step begins; ``announced`` holds this step's earlier announcements.
    ``memo`` keeps each creature's own legal splits on ``board`` from one call to the next.
    """
    own = [c for c in board.combatants if banding_chooser(board, c) == player]
    # Only an attacking trampler dividing its own damage can have an assignment that depends on other
    # creatures' (702.19b-c: lethal damage to its blockers, or loyalty to the planeswalker it attacks,
    # counts all damage assigned to them); any other creature's is legal or not on its own (510.1a-d,
    # 702.22j). So those are judged one by one, and the tramplers' only in whole combinations.
    coupled = {c.id for c in own if c.is_attacking and tramples(c) and banding_chooser(board, c) == c.controller}
    memo = {} if memo is None else memo
    # The tramplers' rows go last, each with its splits among its blockers alone first: those are
    # always legal (510.1c), so every combination of the others' options meets a legal one at once,
    # instead of running through all of the others' options for each illegal split of a trampler.
    rows, trampler_rows = [], []
    for c in own:
        if c.id in coupled:
            trampler_rows.append(sorted(creature_options(board, c.id, step),
                                        key=lambda o: sum(a.amount for a in o if not board.is_creature(a.target))))
            continue
        if (c.id, step) not in memo:
            memo[(c.id, step)] = [o for o in creature_options(board, c.id, step)
                                  if not step_violations(board, step, normalize(o), {c.id})]
        rows.append(memo[(c.id, step)])
    for combo in product(*rows, *trampler_rows):
        mine = tuple(a for part in combo for a in part)
        if coupled and any(v.source in coupled
                           for v in step_violations(board, step, normalize(announced + mine), coupled)):
            continue
        yield mine


def _step_lines(board: Board, step: Step) -> int:
    """Every creature's split count in ``step``, multiplied."""
    total = 1
    for c in board.combatants:
        total *= option_count(board, c.id, step)
    return total


def step_boards(board: Board) -> list[tuple[Board, Step]]:
    """Each damage step with the board its splits are counted on: the regular step as if everything
    survived the first-strike step."""
    if damage_steps(board) == (Step.REGULAR,):
        return [(board, Step.REGULAR)]
    return [(board, Step.FIRST_STRIKE), (replace(board, first_strike_step_done=True), Step.REGULAR)]


def count_leaves(board: Board) -> int:
    """A bound on the search's size: every creature's split count in each step it may assign in
    (on :func:`step_boards`)."""
    total = 1
    for on, step in step_boards(board):
        total *= _step_lines(on, step)
    return total


def count_first_step_lines(board: Board) -> int:
    """A bound on the first-strike step's lines: every first-strike creature's split count."""
    return _step_lines(board, Step.FIRST_STRIKE) if Step.FIRST_STRIKE in damage_steps(board) else 1


RegularStep = Callable[[Board], "tuple[tuple[Assignment, ...], tuple[DealingChoice, ...]] | None"]


class SearchTooLarge(Exception):
    """The search reached more lines than its ``budget`` (see :func:`brute_force`)."""


def brute_force(board: Board, player: ObjectId, objective: Sequence[str],
                regular_step: RegularStep | None = None, deadline: float | None = None,
                prune: bool = False, budget: int | None = None) -> BruteForceResult:
    """The max-min value of ``objective`` for ``player``, by exhaustive search over both steps.

    With ``regular_step``, only the first-strike step is searched: ``regular_step(later)`` gives the
    best play of the regular step on the board it begins with (its line and dealing choices), or
    None to have it searched here too. Past ``deadline`` (``time.monotonic()``), every choice still
    to be searched takes its first option only: the line is legal but its value is not proven
    (``complete`` False). ``prune`` skips lines that cannot change the value (alpha-beta); the value
    is the same, the line may be another one of equal value. Past ``budget`` lines reached (a count,
    so the same on every run), it raises :class:`SearchTooLarge`."""
    order = board.turn_order()
    steps = damage_steps(board)
    cut = False
    reached = 0

    def leaf() -> None:
        nonlocal reached
        reached += 1
        if budget is not None and reached > budget:
            raise SearchTooLarge(f"more than {budget} lines")
    Value = tuple[int, ...] | None

    def choose(level: int, alpha: Value, beta: Value,
               children: Iterable[Callable[[Value, Value], BruteForceResult]]) -> BruteForceResult:
        """The best child for the player to move: the decider's largest value, anyone else's smallest
        (the first of equals)."""
        nonlocal cut
        maximize = order[level % len(order)] == player
        best = None
        for k, child in enumerate(children):
            if k and deadline is not None and time.monotonic() >= deadline:
                cut = True
                break
            found = child(alpha, beta)
            if best is None or (found.value > best.value if maximize else found.value < best.value):
                best = found
            if prune:
                if maximize and (alpha is None or best.value > alpha):
                    alpha = best.value
                if not maximize and (beta is None or best.value < beta):
                    beta = best.value
                if alpha is not None and beta is not None and alpha >= beta:
                    break  # the player before would never let play come here
        assert best is not None
        return best

    def search(current: Board, step_index: int, level: int, announced: tuple[Assignment, ...],
               history: tuple[Assignment, ...], made: tuple[DealingChoice, ...],
               chosen: tuple[DealingChoice, ...], memo: dict, alpha: Value = None,
               beta: Value = None) -> BruteForceResult:
        """``memo``: :func:`player_options`' memo for ``current``."""
        nonlocal cut
        step = steps[step_index]
        if level < len(order):  # announcements (510.1)
            options = player_options(current, order[level], step, announced, memo)
            return choose(level, alpha, beta, (
                lambda a, b, option=option: search(current, step_index, level + 1, announced + option, history,
                                                   made, chosen, memo, a, b) for option in options))
        if level < 2 * len(order):  # choices for effects as the damage is dealt (616.1, 615.7, 101.4)
            ways = dealing_options(current, step, normalize(announced), order[level - len(order)], deadline)
            if deadline is not None and time.monotonic() >= deadline:
                cut = True  # the options may be the default alone: the value is not proven
            return choose(level, alpha, beta, (
                lambda a, b, way=way: search(current, step_index, level + 1, announced, history, made,
                                             chosen + way, memo, a, b) for way in ways))
        made = made + chosen
        if step_index + 1 < len(steps):
            dealt = deal_damage(current, normalize(announced), step_choices(chosen, step))
            later = board_after_first_strike(current, dealt)
            play = None if later is None or regular_step is None else regular_step(later)
            if play is not None:
                leaf()
                second, dealing = play
                line = normalize(history + announced + second)
                values = objective_values(board, resolve_combat(board, line, made + dealing), player, objective)
                return BruteForceResult(tuple(values[name] for name in objective), line, made + dealing)
            if later is not None:
                return search(later, step_index + 1, 0, (), history + announced, made, (), {}, alpha, beta)
        leaf()
        line = normalize(history + announced)
        values = objective_values(board, resolve_combat(board, line, made), player, objective)
        return BruteForceResult(tuple(values[name] for name in objective), line, made)

    found = search(board, 0, 0, (), (), (), (), {})
    return replace(found, complete=not cut, lines=reached)
