"""The responders' first-step replies: every distinct way a creature's first-strike damage can be
divided (510.1d, 702.22j), as the refinement enumerates them. Written here, not shared with the
brute-force reference."""

from __future__ import annotations

from itertools import islice, product
from typing import Sequence

from .analysis import Cell, CombatAnalysis, amount_of
from .assignment import Step
from .board import Creature, Keyword, ObjectId

MAX_REPLIES = 100_000
"""Most responder replies enumerated in a verification (multiplayer refinement only)."""


def distinct_splits(amount: int, caps: Sequence[int]):
    """One split of ``amount`` among attackers for each distinct outcome: damage to an attacker beyond
    its cap changes nothing (see :func:`_splits_of`), so amounts of at least the cap are one class;
    the excess goes to the first attacker at its cap."""
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


def _split_options(cm: CombatAnalysis, s: Creature) -> list[dict[Cell, int]]:
    """Every distinct way ``s``'s first-strike damage can be divided among the creatures it may damage
    (a blocker's attackers, 510.1d, or an attacker's blockers when the defender divides, 702.22j).
    Damage beyond a creature's toughness plus what a shield on that damage can prevent (615.7: the
    shield is used up and the creature destroyed either way) is alike, except for a lifelink source
    whose damage dealt depends on where it goes (effects, 120.3f): then every split is distinct."""
    targets = [t for t, _ in cm.targets(s)]
    return [{(s.id, t): n for t, n in zip(targets, split)} for split in _splits_of(cm, s)]


def _splits_of(cm: CombatAnalysis, s: Creature):
    """:func:`_split_options` as tuples of amounts, in ``cm.targets(s)`` order, one by one."""
    targets = [t for t, _ in cm.targets(s)]
    amount = amount_of(s)
    exact = Keyword.LIFELINK in s.keywords and not all(cm.identity((s.id, t)) for t in targets)
    caps = [amount] * len(targets) if exact else [
        cm.board.creature(t).toughness + cm.shield_amount((s.id, t)) for t in targets]
    return distinct_splits(amount, caps)


def count_first_step_options(cm: CombatAnalysis, players: Sequence[ObjectId]) -> int:
    """How many replies :func:`first_step_options` would list (past :data:`MAX_REPLIES`, a number
    above it), without listing them."""
    total = 1
    for s in cm.sources(Step.FIRST_STRIKE):
        if cm.chooser[s.id] in players:
            total *= sum(1 for _ in islice(_splits_of(cm, s), MAX_REPLIES + 1))
            if total > MAX_REPLIES:
                break
    return total


def first_step_options(cm: CombatAnalysis, players: Sequence[ObjectId]) -> list[dict[Cell, int]]:
    """Every distinct first-step assignment of ``players``' creatures (blockers: their choices are
    independent of each other and of everyone else's, 510.1d)."""
    rows = []
    for s in cm.sources(Step.FIRST_STRIKE):
        if cm.chooser[s.id] in players:  # blockers, or attackers the defender divides (702.22j)
            rows.append(_split_options(cm, s))
    return [{k: v for part in combo for k, v in part.items()} for combo in product(*rows)] or [{}]
