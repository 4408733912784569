"""A greedy damage assignment of the kind game engines use: the baseline the optimizer is measured against.

Each damage step on its own (no look-ahead to the regular step, no thought for what the other
player will do): every creature, in announcement order (the active player's attackers first, then
each defending player's blockers, 510.1), sorts the creatures it may damage by value, most valuable
first, and assigns lethal damage (1 with deathtouch, 702.2c) to each one its remaining damage
affords, skipping those it cannot afford. A trampler that has assigned lethal damage to every
blocker still there puts the rest on what it attacks (702.19b), and with trample over planeswalkers
on an attacked planeswalker it assigns the planeswalker its remaining loyalty first and the rest to
its controller (702.19c). Damage that kills nothing more goes to the most valuable creature not yet
dealt lethal damage (else the most valuable one). Lethal damage counts damage already marked and
every creature's damage assigned earlier in the step, as the rules do. A creature that may assign
as though unblocked (Thorn Elemental) assigns normally; one with nothing to assign to assigns
nothing. Indestructible creatures are worth nothing to kill (unless the source has infect or
wither, whose -1/-1 counters ignore indestructible).

The regular step is assigned on the board the first-strike step leaves behind
(:func:`optimizer.rules.board_after_first_strike`). Only the rules layer is used: no ortools.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence

from optimizer.assignment import Assignment, Step, normalize
from optimizer.board import Board, Creature, Keyword, ObjectId
from optimizer.rules import (
    Route,
    assigns_in,
    board_after_first_strike,
    damage_amount,
    damage_steps,
    deal_damage,
    lethal_needed,
    recipients,
    tramples,
)


def greedy_line(board: Board, players: Collection[ObjectId] | None = None) -> tuple[Assignment, ...]:
    """The greedy assignment of both damage steps (510.4) for every player, or only for ``players``."""
    steps = damage_steps(board)
    if steps == (Step.REGULAR,):
        return greedy_step(board, Step.REGULAR, players)
    first = greedy_step(board, Step.FIRST_STRIKE, players)
    later = board_after_first_strike(board, deal_damage(board, first))
    if later is None:  # the game ended in the first-strike step
        return first
    return normalize(first + greedy_step(later, Step.REGULAR, players))


def greedy_step(board: Board, step: Step, players: Collection[ObjectId] | None = None,
                announced: Iterable[Assignment] = ()) -> tuple[Assignment, ...]:
    """One damage step's greedy assignment on the board as the step begins.

    ``players`` limits it to those players' creatures; ``announced`` is damage already assigned in
    this step by others (it counts toward lethal damage).
    """
    order = board.turn_order()
    sources = [c for c in board.combatants if (players is None or c.controller in players)
               and assigns_in(board, c, step) and damage_amount(c) > 0]
    sources.sort(key=lambda c: (order.index(c.controller), not c.is_attacking))  # stable: board order within
    incoming: dict[ObjectId, int] = defaultdict(int)
    deathtouched: set[ObjectId] = set()
    for a in announced:
        _note(board, a, incoming, deathtouched)
    out: list[Assignment] = []
    for c in sources:
        for a in _assign(board, c, step, incoming, deathtouched):
            _note(board, a, incoming, deathtouched)
            out.append(a)
    return normalize(out)


def _note(board: Board, a: Assignment, incoming: dict[ObjectId, int], deathtouched: set[ObjectId]) -> None:
    incoming[a.target] += a.amount
    if a.amount > 0 and board.is_creature(a.source) and board.creature(a.source).has(Keyword.DEATHTOUCH):
        deathtouched.add(a.target)


def _assign(board: Board, c: Creature, step: Step, incoming: dict[ObjectId, int],
            deathtouched: set[ObjectId]) -> list[Assignment]:
    targets = recipients(board, c, step)  # the normal mode only, also for Thorn Elemental
    if not targets:
        return []  # 510.1a-c: nothing to assign to (or power 0): assigns nothing
    left = damage_amount(c)
    given: dict[ObjectId, int] = defaultdict(int)
    creatures = [t for t, r in targets.items() if r is Route.CREATURE]
    deathtouch = c.has(Keyword.DEATHTOUCH)
    counters = c.has(Keyword.INFECT) or c.has(Keyword.WITHER)

    def need(t: ObjectId) -> int:
        """Damage ``c`` still has to assign to ``t`` for lethal damage (702.19b, 702.2c)."""
        n = lethal_needed(board.creature(t), incoming[t] + given[t], t in deathtouched)
        return min(n, 1) if deathtouch else n

    def worth(t: ObjectId) -> int:
        victim = board.creature(t)
        if victim.has(Keyword.INDESTRUCTIBLE) and not counters:
            return 0
        return victim.value

    ranked = sorted(creatures, key=lambda t: (-worth(t), need(t)))  # stable: board order on ties
    for t in ranked:  # kill the most valuable ones the damage affords
        n = need(t)
        if worth(t) > 0 and 0 < n <= left:
            given[t] += n
            left -= n
    trample_on = c.is_attacking and tramples(c)
    if trample_on and left:  # to trample over, every blocker must be assigned lethal damage
        for t in sorted(creatures, key=need):
            n = need(t)
            if n > left:
                break
            given[t] += n
            left -= n
    past = [t for t, r in targets.items() if r is Route.ATTACKED]
    controller = [t for t, r in targets.items() if r is Route.CONTROLLER]
    if left and (past or controller) and (not creatures or (trample_on and all(need(t) == 0 for t in creatures))):
        if past and controller:  # 702.19c: the planeswalker's loyalty first, then its controller
            w = board.get(past[0])
            to_walker = min(left, max(0, w.loyalty - incoming[past[0]] - given[past[0]]))  # type: ignore[union-attr]
            given[past[0]] += to_walker
            given[controller[0]] += left - to_walker
        else:
            given[(past or controller)[0]] += left
        left = 0
    if left:  # nothing more to kill: the most valuable creature not yet dealt lethal damage
        alive = [t for t in ranked if need(t) > 0]
        given[(alive or ranked)[0]] += left
    return [Assignment(step, c.id, t, n) for t, n in given.items() if n > 0]


def distinct_splits(amount: int, caps: Sequence[int]) -> list[tuple[int, ...]]:
    """One split of ``amount`` among creatures for each distinct result: damage to a creature beyond its
    toughness changes nothing (it dies, or with indestructible survives, either way; -1/-1 counters
    beyond toughness kill it all the same), so amounts of at least the cap form one class, and the
    excess goes to the first creature at its cap. Splits that leave damage over with no creature at
    its cap are not splits of ``amount``."""
    out: list[tuple[int, ...]] = []

    def rec(i: int, left: int, prefix: tuple[int, ...], full: int | None) -> None:
        if i == len(caps):
            if left == 0 or full is not None:
                split = list(prefix)
                if left:
                    split[full] += left  # type: ignore[index]
                out.append(tuple(split))
            return
        for v in range(min(caps[i], left) + 1):
            rec(i + 1, left - v, prefix + (v,), full if full is not None or v < caps[i] else i)

    rec(0, amount, (), None)
    return out


def reply_options(board: Board, step: Step, player: ObjectId) -> list[tuple[Assignment, ...]]:
    """``player``'s distinct assignments in ``step``, for a player who only blocks: each blocker splits
    its damage among the attackers it blocks that are still there, one split per distinct result
    (the brute-force reference enumerates every split; these give the same values, fewer times)."""
    from itertools import product

    rows = []
    for c in board.combatants:
        if c.controller != player or not assigns_in(board, c, step):
            continue
        assert not c.is_attacking, "only the active player attacks"
        targets = sorted(recipients(board, c, step))
        if not targets:
            continue
        caps = [board.creature(t).toughness for t in targets]
        rows.append([tuple(Assignment(step, c.id, t, n) for t, n in zip(targets, split) if n)
                     for split in distinct_splits(damage_amount(c), caps)])
    return [tuple(a for part in combo for a in part) for combo in product(*rows)]


def reply_lines(board: Board, player: ObjectId) -> int:
    """A bound on the lines :func:`against_best_reply` searches: the product of every other player's
    distinct replies in every step (the regular step counted as if every creature survived)."""
    from dataclasses import replace

    total = 1
    steps = damage_steps(board)
    for step in steps:
        as_of = replace(board, first_strike_step_done=True) if (
            step is Step.REGULAR and Step.FIRST_STRIKE in steps) else board
        for c in as_of.combatants:
            if c.controller == player or not assigns_in(as_of, c, step):
                continue
            targets = recipients(as_of, c, step)
            if targets:
                total *= len(distinct_splits(damage_amount(c), [as_of.creature(t).toughness for t in targets]))
    return total


def against_best_reply(board: Board, player: ObjectId, objective: Sequence[str]
                       ) -> tuple[tuple[int, ...], tuple[Assignment, ...]]:
    """``player`` (the active player) assigns greedily in each step; every other player replies in
    each step, in turn order and seeing everything announced before (510.1), with the assignment
    worst for ``player``, found by exhaustive search over the replies' distinct results
    (:func:`reply_options`). The value is comparable with the optimizer's game value: it can only be
    lower or equal. Every line searched is checked with the independent checker (AssertionError if
    illegal)."""
    from optimizer.check import check
    from optimizer.objectives import objective_values

    assert player == board.active_player, "the greedy side is the active player, who announces first"
    others = [p for p in board.turn_order() if p != player]
    steps = damage_steps(board)

    def replies(current: Board, step: Step, announced: tuple[Assignment, ...], level: int):
        if level == len(others):
            yield announced
            return
        for option in reply_options(current, step, others[level]):
            yield from replies(current, step, announced + option, level + 1)

    def search(current: Board, index: int, history: tuple[Assignment, ...]):
        step = steps[index]
        mine = greedy_step(current, step, {player})
        best = None
        for step_line in replies(current, step, mine, 0):
            step_line = normalize(step_line)
            result = None
            if index + 1 < len(steps):
                later = board_after_first_strike(current, deal_damage(current, step_line))
                if later is not None:
                    result = search(later, index + 1, history + step_line)
            if result is None:
                line = normalize(history + step_line)
                checked = check(board, line)
                assert checked.legal, f"greedy line illegal: {[str(v) for v in checked.violations]}"
                values = objective_values(board, checked.outcome, player, objective)  # type: ignore[arg-type]
                result = (tuple(values[n] for n in objective), line)
            if best is None or result[0] < best[0]:
                best = result
        assert best is not None
        return best

    return search(board, 0, ())
