"""Exhaustive reference solver for small boards: the project's "perft".

Plays combat damage assignment as the game the rules describe: players announce in turn order,
the active player first (510.1), each seeing the earlier announcements; the deciding player
maximizes its objective tuple, every other player minimizes it. Every candidate split of every
creature's power is tried and judged by the independent checker. Exponential: small boards only.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Iterator, Sequence

from .assignment import Assignment, Step, normalize
from .board import Board, ObjectId
from .check import violations
from .objectives import objective_values
from .rules import deal_damage, recipients


@dataclass(frozen=True)
class BruteForceResult:
    """The game value (objective tuple) and one line of play that achieves it."""

    value: tuple[int, ...]
    assignments: tuple[Assignment, ...]


def splits(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every way to write ``total`` as an ordered sum of ``parts`` non-negative integers."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in splits(total - first, parts - 1):
            yield (first, *rest)


def creature_options(board: Board, creature_id: ObjectId) -> list[tuple[Assignment, ...]]:
    """Every split of the creature's power among its possible recipients (legality not yet judged)."""
    creature = board.creature(creature_id)
    targets = sorted(recipients(board, creature))
    if not targets:
        return [()]
    return [tuple(Assignment(Step.REGULAR, creature_id, t, n) for t, n in zip(targets, split) if n)
            for split in splits(creature.power, len(targets))]


def player_options(board: Board, player: ObjectId,
                   announced: tuple[Assignment, ...]) -> list[tuple[Assignment, ...]]:
    """``player``'s legal joint assignments given what was announced before it (510.1e)."""
    own = [c.id for c in board.combatants if c.controller == player]
    options = []
    for combo in product(*(creature_options(board, c) for c in own)):
        mine = tuple(a for part in combo for a in part)
        bad = [v for v in violations(board, normalize(announced + mine)) if v.source in own]
        if not bad:
            options.append(mine)
    return options


def count_leaves(board: Board) -> int:
    """An upper bound on the number of complete lines the search visits (before legality)."""
    total = 1
    for c in board.combatants:
        total *= len(creature_options(board, c.id))
    return total


def brute_force(board: Board, player: ObjectId, objective: Sequence[str]) -> BruteForceResult:
    """The max-min value of ``objective`` for ``player``, by exhaustive search."""
    order = board.turn_order()

    def search(level: int, announced: tuple[Assignment, ...]) -> BruteForceResult:
        if level == len(order):
            line = normalize(announced)
            outcome = deal_damage(board, line)
            values = objective_values(board, outcome, player, objective)
            return BruteForceResult(tuple(values[name] for name in objective), line)
        options = player_options(board, order[level], announced)
        results = [search(level + 1, announced + option) for option in options]
        pick = max if order[level] == player else min
        return pick(results, key=lambda r: r.value)

    return search(0, ())
