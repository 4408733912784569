"""How assigned combat damage becomes damage dealt: protection, prevention and replacement effects.

Legality and lethal damage are judged on damage *assigned* (510.1, 702.19b); what happens to the
recipients follows damage *dealt* (510.2, 120.3) after protection (702.16e), prevention (615) and
replacement effects (614) are applied. When several of them apply to the same damage, the affected
player, or the controller of the affected permanent, chooses the order (616.1); a "prevent the next
N damage" shield hit by several sources at once prevents the damage that player chooses (615.7).
Those choices are :class:`DealingChoice` records; :func:`dealing_options` lists a player's.

Part of the rules layer: shares no code with the CP-SAT encoding.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace
from itertools import product
from typing import Any, Iterable, Iterator, Mapping

from .assignment import Assignment, Step, read_cell
from .board import Board, Creature, Effect, EffectKind, Keyword, ObjectId
from .errors import InvalidAssignmentError, key_path, shown

_INDEX = re.compile(r"0|[1-9][0-9]{0,8}")  # an index as JSON writes it: "1", not "01"
"""A shield's index as a key of ``prevented`` (ASCII digits only)."""


@dataclass(frozen=True)
class DealingChoice:
    """How the effects on one creature's damage to one recipient are applied (616.1, 615.7).

    ``order`` lists the indexes (in ``board.effects``) of the shields, doublers and adders that apply,
    in the order chosen; ``prevented`` says how much each shield prevents of this damage. For damage
    that protection or a "prevent all" effect prevents, ``order`` lists those applied before it (any
    of them, 616.1e: a shield applied first is used up, 615.7); none, by default.
    """

    step: Step
    source: ObjectId
    target: ObjectId
    order: tuple[int, ...]
    prevented: tuple[tuple[int, int], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.step.value, "source": self.source, "target": self.target,
                "order": list(self.order), "prevented": {str(i): n for i, n in self.prevented}}


def parse_dealing(data: Any, board: Board) -> tuple[DealingChoice, ...]:
    """Read a list of dealing choices as :meth:`DealingChoice.to_dict` writes them (``solve``'s
    ``dealing``); raise InvalidAssignmentError naming the field. Whether a choice fits the damage
    (616.1, 615.7) is for the checker to say."""
    if not isinstance(data, list):
        raise InvalidAssignmentError("dealing", "expected a list of {step, source, target, order, prevented}")
    out = []
    seen: dict[tuple[Step, ObjectId, ObjectId], str] = {}
    for i, item in enumerate(data):
        where = f"dealing[{i}]"
        if isinstance(item, DealingChoice):  # the API's records get the same checks as JSON entries
            item = _as_entry(item, where)
        if not isinstance(item, dict):
            raise InvalidAssignmentError(where, "expected an object {\"step\", \"source\", \"target\", \"order\"}")
        extra = set(item) - {"step", "source", "target", "order", "prevented"}
        if extra:
            raise InvalidAssignmentError(key_path(where, sorted(extra)[0]), "unknown field")
        step, source, target = read_cell(item, where, board, "order")
        order = item["order"]
        effects = range(len(board.effects))
        if not isinstance(order, list) or not all(isinstance(n, int) and not isinstance(n, bool) and n in effects
                                                  for n in order):
            known = f"(0 to {len(board.effects) - 1})" if board.effects else "(it has none: the order is [])"
            raise InvalidAssignmentError(f"{where}.order", f"expected a list of indexes into the board's effects "
                                         f"{known}, got {shown(order)}")
        prevented = item.get("prevented", {})
        if not isinstance(prevented, dict):
            raise InvalidAssignmentError(f"{where}.prevented", "expected an object {shield index: damage prevented}")
        amounts = []
        for key, n in prevented.items():
            at = key_path(f"{where}.prevented", key)
            index = int(key) if isinstance(key, str) and _INDEX.fullmatch(key) else None
            if index is None or index not in effects or not board.effects[index].is_shield:
                raise InvalidAssignmentError(at, "not the index of a shield on the board")
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise InvalidAssignmentError(at, f"expected a non-negative integer, got {shown(n)}")
            amounts.append((index, n))
        choice = DealingChoice(step, source, target, tuple(order), tuple(sorted(amounts)))
        _once(seen, choice, where)
        out.append(choice)
    return tuple(out)


def _as_entry(choice: DealingChoice, where: str) -> dict[str, Any]:
    """A :class:`DealingChoice` record as the JSON entry it stands for, to be read as one."""
    prevented = choice.prevented
    if not isinstance(prevented, (tuple, list)) or not all(
            isinstance(pair, (tuple, list)) and len(pair) == 2 and isinstance(pair[0], int)
            and not isinstance(pair[0], bool) for pair in prevented):
        raise InvalidAssignmentError(f"{where}.prevented", "expected (shield index, damage prevented) pairs, "
                                     f"got {shown(prevented)}")
    indexes = [i for i, _ in prevented]
    if len(set(indexes)) != len(indexes):
        raise InvalidAssignmentError(f"{where}.prevented", f"a shield listed twice: {shown(prevented)}")
    order = list(choice.order) if isinstance(choice.order, (tuple, list)) else choice.order
    return {"step": choice.step, "source": choice.source, "target": choice.target, "order": order,
            "prevented": {str(i): n for i, n in prevented}}


def _once(seen: dict[tuple[Step, ObjectId, ObjectId], str], choice: DealingChoice, where: str) -> None:
    """One dealing choice per damage: a second one for the same damage is an error."""
    cell = (choice.step, choice.source, choice.target)
    if cell in seen:
        raise InvalidAssignmentError(where, f"a second choice for {choice.source}'s "
                                     f"{choice.step.label} damage to {choice.target} "
                                     f"(also {seen[cell]})")
    seen[cell] = where


@dataclass(frozen=True)
class CellEffects:
    """The effects on damage from ``source`` to ``target``: prevented outright, or modified in turn."""

    prevented: bool
    """Protection (702.16e) or a "prevent all" effect applies and nothing says it can't be prevented."""
    modifiers: tuple[int, ...]
    """Indexes of the shields (615.7), doublers and adders (614.1a) that apply, in board order. With
    ``prevented``, those its player may apply before the damage is prevented (616.1e)."""
    wastable: bool = False
    """Prevented, and a shield among ``modifiers``: its player may use it up on this damage (616.1e, 615.7)."""


def affected_player(board: Board, recipient: ObjectId) -> ObjectId:
    """616.1: the affected player, or the controller of the affected permanent, chooses."""
    obj = board.get(recipient)
    return recipient if board.is_player(recipient) else obj.controller  # type: ignore[union-attr]


def _protected(quality: frozenset[str], source: Creature) -> bool:
    """702.16e with sources that are creatures: from creatures, everything, or one of its colors."""
    return bool(quality & {"creatures", "everything"}) or bool(quality & source.colors)


def protection_applies(board: Board, source_id: ObjectId, target: ObjectId) -> bool:
    """Whether ``target`` has protection from a quality of ``source_id`` (702.16e)."""
    return _protected(getattr(board.get(target), "protection_from", frozenset()), board.creature(source_id))


def applying_effects(board: Board, source_id: ObjectId, target: ObjectId) -> list[tuple[int, Effect]]:
    """The board's effects on damage from ``source_id`` to ``target``, with their indexes."""
    source = board.creature(source_id)
    target_controller = None if board.is_player(target) else board.get(target).controller  # type: ignore[union-attr]
    return [(i, e) for i, e in enumerate(board.effects)
            if e.sources.matches(source_id, source.controller) and e.recipients.matches(target, target_controller)]


def cell_effects(board: Board, source_id: ObjectId, target: ObjectId) -> CellEffects:
    applies = applying_effects(board, source_id, target)
    unpreventable = any(e.kind is EffectKind.CANT_BE_PREVENTED for _, e in applies)  # 615.12
    prevent_all = protection_applies(board, source_id, target) or any(
        e.kind is EffectKind.PREVENT and e.amount is None for _, e in applies)
    modifiers = tuple(i for i, e in applies if e.kind in (EffectKind.DOUBLE, EffectKind.ADD)
                      or (e.is_shield and e.amount and not unpreventable))  # a used-up shield is gone
    prevented = prevent_all and not unpreventable
    return CellEffects(prevented, modifiers, prevented and any(board.effects[i].is_shield for i in modifiers))


@dataclass(frozen=True)
class DealtDamage:
    """One step's damage dealt per (source, target), and how much of each shield it used."""

    amounts: Mapping[tuple[ObjectId, ObjectId], int]
    shields_used: Mapping[int, int]
    prevented: Mapping[tuple[ObjectId, ObjectId], tuple[tuple[int, int], ...]] = field(default_factory=dict)
    """What each shield on the damage prevented of it, per (source, target), in the order applied."""


def deal(board: Board, assignments: Iterable[Assignment],
         choices: Mapping[tuple[ObjectId, ObjectId], DealingChoice] | None = None) -> DealtDamage:
    """The damage dealt by one step's assignment with the given choices for the effects on it.

    A cell without a choice applies its effects in board order, each shield preventing all it can.
    Raises ValueError if a choice does not fit the board (wrong effects, a shield over-used, or a
    shield left with capacity while it let damage through: 615.7 prevents the *next* N damage).
    """
    if board.plain_damage and not choices:  # nothing modifies or prevents any of it
        return DealtDamage({(a.source, a.target): a.amount for a in assignments if a.amount > 0}, {})
    choices = choices or {}
    remaining = {i: e.amount for i, e in enumerate(board.effects) if e.is_shield}
    passed: dict[int, list[bool]] = {i: [] for i in remaining}  # did each damage reaching it pass fully prevented?
    amounts: dict[tuple[ObjectId, ObjectId], int] = {}
    prevented: dict[tuple[ObjectId, ObjectId], tuple[tuple[int, int], ...]] = {}
    for a in assignments:
        if a.amount <= 0:
            continue
        cell = (a.source, a.target)
        fx = cell_effects(board, a.source, a.target)
        choice = choices.get(cell)
        if fx.prevented:  # what is applied before the damage is prevented (616.1e): none by default
            order = () if choice is None else choice.order
            if len(set(order)) != len(order) or not set(order) <= set(fx.modifiers):
                raise ValueError(f"dealing choice for {cell}: effects {order} are not among {fx.modifiers}, "
                                 "applied before the damage is prevented")
        else:
            order = fx.modifiers if choice is None else choice.order
            if sorted(order) != sorted(fx.modifiers):
                raise ValueError(f"dealing choice for {cell}: effects {order} do not match {fx.modifiers}")
        wanted = dict(choice.prevented) if choice is not None else {}
        d = a.amount
        stopped: list[tuple[int, int]] = []
        for i in order:
            effect = board.effects[i]
            if effect.kind is EffectKind.DOUBLE:
                d *= 2
            elif effect.kind is EffectKind.ADD:
                d += effect.amount if d > 0 else 0  # type: ignore[operator]  # 614.7a
            else:
                p = wanted.get(i, min(d, remaining[i]))
                if not 0 <= p <= min(d, remaining[i]):
                    raise ValueError(f"dealing choice for {cell}: shield {i} cannot prevent {shown(p)}")
                passed[i].append(p == d)
                stopped.append((i, p))
                d -= p
                remaining[i] -= p
        amounts[cell] = 0 if fx.prevented else d
        if stopped:
            prevented[cell] = tuple(stopped)
    for i, left in remaining.items():
        if left > 0 and not all(passed[i]):
            raise ValueError(f"shield {i} let damage through while it could still prevent {left} (615.7)")
    used = {i: board.effects[i].amount - left for i, left in remaining.items()}  # type: ignore[operator]
    return DealtDamage(amounts, used, prevented)


def with_prevented(board: Board, assignments: Iterable[Assignment],
                   choices: Iterable[DealingChoice]) -> tuple[DealingChoice, ...]:
    """One step's ``choices`` with ``prevented`` saying what each shield prevents of that damage
    when the step's ``assignments`` are dealt with them on ``board`` (615.7)."""
    choices = tuple(choices)
    dealt = deal(board, assignments, {(c.source, c.target): c for c in choices})
    return tuple(replace(c, prevented=dealt.prevented.get((c.source, c.target), ())) for c in choices)


def dealing_options(board: Board, step: Step, assignments: Iterable[Assignment],
                    player: ObjectId, deadline: float | None = None) -> Iterator[tuple[DealingChoice, ...]]:
    """Every distinct way ``player`` can apply the effects on the damage it is affected by (616.1,
    615.7): one option per distinct result (damage dealt and shields used), one at a time (each
    recipient's options multiply, and several recipients' can be millions). One empty option if
    ``player`` has no choice. Past ``deadline`` (``time.monotonic()``), while one recipient's
    options are being worked out (several shields on it take long), only the empty option: every
    effect in board order, each shield preventing all it can (:func:`deal`'s default)."""
    by_target: dict[ObjectId, list[Assignment]] = {}
    for a in assignments:
        if a.amount > 0 and affected_player(board, a.target) == player:
            fx = cell_effects(board, a.source, a.target)
            if (fx.modifiers and not fx.prevented) or fx.wastable:
                by_target.setdefault(a.target, []).append(a)
    try:
        per_target = [_target_options(board, step, cells, deadline) for _, cells in sorted(by_target.items())]
    except _PastDeadline:
        return iter([()])
    return (tuple(c for part in combo for c in part) for combo in product(*per_target))


class _PastDeadline(Exception):
    """Working out a recipient's dealing options went past the search's deadline."""


def _target_options(board: Board, step: Step, cells: list[Assignment],
                    deadline: float | None = None) -> list[tuple[DealingChoice, ...]]:
    """The distinct choices for all damage to one recipient (its shields are shared by that damage):
    for each distinct result (damage dealt by each cell, shields left), the first choices found that
    give it, cells in order and each cell's orders and preventions in turn. :class:`_PastDeadline`
    once ``deadline`` has passed."""
    memo: dict[Any, dict[Any, tuple[DealingChoice, ...]]] = {}

    def walk(k: int, remaining: dict[int, int], passed: dict[int, bool]) -> dict[Any, tuple[DealingChoice, ...]]:
        """The distinct results of cells ``k`` on, from this state: (their damage dealt, shields
        left) -> their first choices. The rest depends only on the state, so it is worked out once."""
        state = (k, tuple(sorted(remaining.items())), tuple(sorted(passed.items())))
        if state in memo:
            return memo[state]
        out: dict[Any, tuple[DealingChoice, ...]] = {}
        if k == len(cells):
            if all(remaining[i] == 0 or passed.get(i, True) for i in remaining):
                out[((), tuple(sorted(remaining.items())))] = ()
        else:
            a = cells[k]
            fx = cell_effects(board, a.source, a.target)
            orders = _distinct_prefixes(board, fx.modifiers) if fx.prevented else _distinct_orders(board, fx.modifiers)
            for order in orders:
                if deadline is not None and time.monotonic() >= deadline:
                    raise _PastDeadline()
                for d, rem, prevented, full in _apply(board, a.amount, order, remaining):
                    if fx.prevented:
                        d = 0
                    chosen = (DealingChoice(step, a.source, a.target, order, prevented),) if order else ()
                    merged = dict(passed)
                    for i, ok in full.items():
                        merged[i] = merged.get(i, True) and ok
                    for (dealt, left), made in walk(k + 1, rem, merged).items():
                        out.setdefault(((d, *dealt), left), (*chosen, *made))
        memo[state] = out
        return out

    shields = {i: board.effects[i].amount for a in cells for i in cell_effects(board, a.source, a.target).modifiers
               if board.effects[i].is_shield}
    return list(walk(0, shields, {}).values())  # type: ignore[arg-type]


def _distinct_orders(board: Board, modifiers: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """The orders of the effects ``modifiers`` (indexes in board order) that can differ in result
    (616.1), each the first of its alike orders as :func:`itertools.permutations` lists them, and in
    that order: doublers are alike (614.5), and so are adders of one amount (614.1a), so only where
    each kind of effect comes matters; each shield is its own (615.7: its amount is used up). Nine
    doublers and an adder have 10 such orders instead of 10! = 3,628,800."""
    def kind(i: int) -> tuple[Any, ...]:
        effect = board.effects[i]
        if effect.kind is EffectKind.DOUBLE:
            return ("double",)
        if effect.kind is EffectKind.ADD:
            return ("add", effect.amount)
        return ("shield", i)

    pools: dict[tuple[Any, ...], tuple[int, ...]] = {}
    for i in modifiers:
        pools[kind(i)] = pools.get(kind(i), ()) + (i,)

    def extend() -> Iterator[tuple[int, ...]]:  # depth first, with a stack: a board may have 1,000 effects
        stack: list[tuple[tuple[int, ...], dict[tuple[Any, ...], tuple[int, ...]]]] = [((), pools)]
        while stack:
            prefix, left = stack.pop()
            keys = sorted((k for k, v in left.items() if v), key=lambda k: left[k][0])  # each kind's first left
            if not keys:
                yield prefix
            for key in reversed(keys):  # popped in order
                stack.append((prefix + (left[key][0],), {**left, key: left[key][1:]}))

    return extend()


def _distinct_prefixes(board: Board, modifiers: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """For damage that protection or a "prevent all" effect prevents: the effects its player may apply
    first (616.1e), as distinct sequences that end with a shield (what comes after the last shield
    cannot change what the shields prevent; the damage is prevented in the end), the empty one first."""
    seen = {()}
    yield ()
    for order in _distinct_orders(board, modifiers):
        for k in range(1, len(order) + 1):
            if board.effects[order[k - 1]].is_shield and order[:k] not in seen:
                seen.add(order[:k])
                yield order[:k]


def _apply(board: Board, amount: int, order: tuple[int, ...], remaining: dict[int, int]):
    """Every result of applying ``order`` to ``amount``, shields preventing any amount they can:
    (dealt, shields left, prevented per shield, whether each shield prevented all that reached it)."""
    results = []
    # depth first, with a stack (a board may have 1,000 effects); only a shield branches
    stack: list[tuple[int, int, dict[int, int], tuple[tuple[int, int], ...], dict[int, bool]]] = [
        (0, amount, dict(remaining), (), {})]
    while stack:
        j, d, rem, prevented, full = stack.pop()
        while j < len(order) and not board.effects[order[j]].is_shield:
            effect = board.effects[order[j]]
            if effect.kind is EffectKind.DOUBLE:
                d *= 2
            elif effect.kind is EffectKind.ADD:
                d += effect.amount if d > 0 else 0  # type: ignore[operator]
            j += 1
        if j == len(order):
            results.append((d, rem, prevented, full))
            continue
        i = order[j]
        for p in range(min(d, rem[i]), -1, -1):  # popped in increasing order
            stack.append((j + 1, d - p, {**rem, i: rem[i] - p}, prevented + ((i, p),), {**full, i: p == d}))
    return results


def banding_chooser(board: Board, creature: Creature) -> ObjectId:
    """Who divides ``creature``'s combat damage: its controller (510.1c-d), the defending player for
    an attacker blocked by a creature with banding (702.22j), the active player for a blocker that
    blocks a creature with banding (702.22k)."""
    if creature.is_attacking:
        blockers = [board.creature(b) for b in board.blockers_of(creature.id)]
        if any(b.has(Keyword.BANDING) for b in blockers):
            return blockers[0].controller
    elif any(board.creature(a).has(Keyword.BANDING) for a in creature.blocking if board.is_creature(a)):
        return board.active_player
    return creature.controller
