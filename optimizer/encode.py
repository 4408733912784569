"""CP-SAT encoding of one player's combat damage assignment in one damage step.

Variables ``x[source, recipient]`` are the damage each of the player's creatures assigns to each
recipient it may reach. Constraints are 510.1a-d (all power, to legal recipients only) and
702.19b-f (trample past lethal only, trample over planeswalkers past loyalty only). Objective
terms (the deciding player's objectives, restricted to what this player's damage changes) are
linear expressions over the damage and over reified death/loss indicators (120.3, 704.5).

This module derives everything it needs from the board itself and shares no code with the rules
layer's checker or brute-force enumerator, which are what the tests hold it against.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from ortools.sat.python import cp_model

from .assignment import Assignment, Step
from .board import Board, Creature, Keyword, ObjectId

LinearExpr = cp_model.LinearExprT


@dataclass
class Term:
    """A linear objective term with known bounds: ``constant + sum(coef * var)``."""

    parts: list[tuple[int, LinearExpr]] = field(default_factory=list)
    lo: int = 0
    hi: int = 0

    def add(self, coef: int, var: LinearExpr, var_lo: int, var_hi: int) -> None:
        self.parts.append((coef, var))
        self.lo += min(coef * var_lo, coef * var_hi)
        self.hi += max(coef * var_lo, coef * var_hi)

    def expr(self) -> LinearExpr:
        return sum((coef * var for coef, var in self.parts), 0)


@dataclass
class SideModel:
    """A CP-SAT model of ``assigner``'s choices, scored by ``decider``'s objectives."""

    model: cp_model.CpModel
    assigner: ObjectId
    maximize: bool
    damage: dict[tuple[ObjectId, ObjectId], LinearExpr]
    """x[source, recipient]: an IntVar, or an int when the source has a single recipient."""
    terms: dict[str, Term]
    hint: dict[tuple[ObjectId, ObjectId], int]
    """A legal assignment (each source's power to its first recipient), for hints and fallbacks."""

    @property
    def has_choice(self) -> bool:
        return any(not isinstance(v, int) for v in self.damage.values())

    def assignments(self, values: dict[tuple[ObjectId, ObjectId], int]) -> list[Assignment]:
        return [Assignment(Step.REGULAR, s, r, n) for (s, r), n in values.items() if n > 0]


def _tramples(c: Creature) -> bool:
    return Keyword.TRAMPLE in c.keywords or Keyword.TRAMPLE_OVER_PLANESWALKERS in c.keywords


def _attacked_present(board: Board, target: ObjectId) -> bool:
    obj = board.get(target)
    return not getattr(obj, "removed_from_combat", False)


def reachable(board: Board, c: Creature) -> tuple[list[ObjectId], list[ObjectId], ObjectId | None]:
    """(creatures, beyond, controller) ``c`` may assign damage to.

    ``beyond`` holds what it attacks when reachable (unblocked, or trample past lethal); ``controller``
    is the attacked planeswalker's controller for trample over planeswalkers.
    """
    if c.power <= 0:
        return [], [], None
    if c.blocking:
        return list(c.blocking), [], None
    if c.attacking is None:
        return [], [], None
    creatures = list(board.blockers_of(c.id))
    if c.blocked and not _tramples(c):
        return creatures, [], None
    beyond = [c.attacking] if _attacked_present(board, c.attacking) else []
    controller = None
    if Keyword.TRAMPLE_OVER_PLANESWALKERS in c.keywords and board.is_planeswalker(c.attacking):
        controller = board.controller_of(c.attacking)
    return creatures, beyond, controller


def encode_side(board: Board, assigner: ObjectId, decider: ObjectId, objective: Sequence[str]) -> SideModel:
    """Build the model of ``assigner``'s damage; maximize if it is the decider, else minimize."""
    model = cp_model.CpModel()
    sources = [c for c in board.creatures if c.controller == assigner and (c.attacking or c.blocking)]
    damage: dict[tuple[ObjectId, ObjectId], LinearExpr] = {}
    hint: dict[tuple[ObjectId, ObjectId], int] = {}
    incoming: dict[ObjectId, list[tuple[Creature, LinearExpr]]] = {}
    reach: dict[ObjectId, tuple[list[ObjectId], list[ObjectId], ObjectId | None]] = {}

    for s in sources:
        creatures, beyond, controller = reach[s.id] = reachable(board, s)
        targets = creatures + beyond + ([controller] if controller else [])
        if not targets:
            continue
        if len(targets) == 1:
            cells: list[LinearExpr] = [s.power]
        else:
            cells = [model.new_int_var(0, s.power, f"x[{s.id},{t}]") for t in targets]
            model.add(sum(cells) == s.power)  # 510.1a: all of its power
        for t, cell in zip(targets, cells):
            damage[(s.id, t)] = cell
            hint[(s.id, t)] = s.power if t == targets[0] else 0
            incoming.setdefault(t, []).append((s, cell))

    def total_in(target: ObjectId) -> LinearExpr:
        return sum((cell for _, cell in incoming.get(target, [])), 0)

    # lethal (702.19b, 702.2c) and death (704.5f-h) for every creature this side damages
    lethal: dict[ObjectId, LinearExpr] = {}
    dies: dict[ObjectId, LinearExpr] = {}
    for cid, arriving in incoming.items():
        if not board.is_creature(cid):
            continue
        c = board.creature(cid)
        need = c.toughness - c.damage
        deathtouch = _any_positive(model, [cell for s, cell in arriving if Keyword.DEATHTOUCH in s.keywords],
                                   f"deathtouch[{cid}]")
        enough = _at_least(model, total_in(cid), need, f"enough[{cid}]")
        lethal[cid] = _or(model, [enough, deathtouch], f"lethal[{cid}]")
        if Keyword.INDESTRUCTIBLE in c.keywords:
            counters = sum((cell for s, cell in arriving
                            if Keyword.WITHER in s.keywords or Keyword.INFECT in s.keywords), 0)
            dies[cid] = _at_least(model, counters, c.toughness, f"dies[{cid}]")
        else:
            dies[cid] = lethal[cid]

    # trample: nothing past the blockers unless each is assigned lethal damage (702.19b-e)
    for s in sources:
        creatures, beyond, controller = reach[s.id]
        past = [damage[(s.id, t)] for t in beyond + ([controller] if controller else [])]
        if creatures and past and not all(isinstance(v, int) and v == 0 for v in past):
            for b in creatures:
                _zero_unless(model, sum(past), lethal[b])
        if controller and s.attacking is not None and _attacked_present(board, s.attacking):
            loyalty = board.get(s.attacking).loyalty  # type: ignore[union-attr]
            reached = _at_least(model, total_in(s.attacking), loyalty, f"loyalty_reached[{s.attacking}]")
            _zero_unless(model, damage[(s.id, controller)], reached)

    terms = {name: _TERMS[name](board, model, decider, incoming, dies, total_in) for name in objective}
    return SideModel(model, assigner, assigner == decider, damage, terms, hint)


# --- reified helpers: every indicator is exact in both directions ----------------------------

def _is_const(e: LinearExpr) -> bool:
    return isinstance(e, int)


def _zero_unless(model: cp_model.CpModel, expr: LinearExpr, indicator: LinearExpr) -> None:
    """Require ``expr == 0`` whenever ``indicator`` is false."""
    if _is_const(indicator):
        if indicator == 0:
            model.add(expr == 0)
        return
    model.add(expr == 0).only_enforce_if(indicator.Not())


def _at_least(model: cp_model.CpModel, expr: LinearExpr, bound: int, name: str) -> LinearExpr:
    """An indicator equal to ``expr >= bound`` (a constant when that is decided)."""
    if bound <= 0:
        return 1
    if _is_const(expr):
        return int(expr >= bound)
    b = model.new_bool_var(name)
    model.add(expr >= bound).only_enforce_if(b)
    model.add(expr <= bound - 1).only_enforce_if(b.Not())
    return b


def _any_positive(model: cp_model.CpModel, cells: list[LinearExpr], name: str) -> LinearExpr:
    """An indicator equal to ``sum(cells) >= 1``."""
    if not cells:
        return 0
    return _at_least(model, sum(cells, 0), 1, name)


def _or(model: cp_model.CpModel, items: list[LinearExpr], name: str) -> LinearExpr:
    if any(_is_const(i) and i == 1 for i in items):
        return 1
    live = [i for i in items if not _is_const(i)]
    if not live:
        return 0
    if len(live) == 1:
        return live[0]
    b = model.new_bool_var(name)
    model.add_max_equality(b, live)
    return b


def _min_const(model: cp_model.CpModel, expr: LinearExpr, cap: int, name: str) -> tuple[LinearExpr, int]:
    """``min(expr, cap)`` for a non-negative expression, with its upper bound."""
    if _is_const(expr):
        return min(expr, cap), cap
    v = model.new_int_var(0, cap, name)
    model.add_min_equality(v, [expr, cap])
    return v, cap


# --- objective terms ---------------------------------------------------------------------------

def _bool_term(items: list[tuple[int, LinearExpr]]) -> Term:
    term = Term()
    for coef, ind in items:
        term.add(coef, ind, 0, 1)
    return term


def _kills(board, model, decider, incoming, dies, total_in) -> Term:
    return _bool_term([(1, d) for cid, d in dies.items() if board.creature(cid).controller != decider])


def _survivors(board, model, decider, incoming, dies, total_in) -> Term:
    return _bool_term([(-1, d) for cid, d in dies.items() if board.creature(cid).controller == decider])


def _value(board, model, decider, incoming, dies, total_in) -> Term:
    items = []
    for cid, d in dies.items():
        c = board.creature(cid)
        items.append((c.value if c.controller != decider else -c.value, d))
    return _bool_term(items)


def _opponent_players(board: Board, decider: ObjectId, incoming) -> list[ObjectId]:
    return [p.id for p in board.players if p.id != decider and p.id in incoming]


def _player_damage(board, model, decider, incoming, dies, total_in) -> Term:
    term = Term()
    for pid in _opponent_players(board, decider, incoming):
        for s, cell in incoming[pid]:
            if Keyword.INFECT not in s.keywords:
                term.add(1, cell, 0, s.power)
    return term


def _poison_parts(model, pid: ObjectId, arriving) -> list[tuple[int, LinearExpr, int]]:
    """(coefficient, expression, upper bound) pieces of the poison ``pid`` gets (120.3b, 120.3g)."""
    parts = []
    for s, cell in arriving:
        if Keyword.INFECT in s.keywords:
            parts.append((1, cell, s.power))
        if s.toxic:
            parts.append((s.toxic, _at_least(model, cell, 1, f"hit[{s.id},{pid}]"), 1))
    return parts


def _poison(board, model, decider, incoming, dies, total_in) -> Term:
    term = Term()
    for pid in _opponent_players(board, decider, incoming):
        for coef, expr, hi in _poison_parts(model, pid, incoming[pid]):
            term.add(coef, expr, 0, hi)
    return term


def _loyalty(board, model, decider, incoming, dies, total_in) -> Term:
    term = Term()
    for w in board.planeswalkers:
        if w.controller != decider and w.id in incoming:
            v, hi = _min_const(model, total_in(w.id), w.loyalty, f"loyalty_removed[{w.id}]")
            term.add(1, v, 0, hi)
    return term


def _defense(board, model, decider, incoming, dies, total_in) -> Term:
    term = Term()
    for b in board.battles:
        if b.protector != decider and b.id in incoming:
            v, hi = _min_const(model, total_in(b.id), b.defense, f"defense_removed[{b.id}]")
            term.add(1, v, 0, hi)
    return term


def _life_gained(board, model, decider, incoming, dies, total_in) -> Term:
    # A creature that assigns damage assigns all of its power (510.1a), so lifelink gain is fixed.
    return Term()


def _lethal(board, model, decider, incoming, dies, total_in) -> Term:
    indicators = []
    for pid in _opponent_players(board, decider, incoming):
        p = board.player(pid)
        arriving = incoming[pid]
        gain = sum(c.power for c in board.creatures
                   if c.controller == pid and Keyword.LIFELINK in c.keywords and _deals_damage(board, c))
        life_loss = sum((cell for s, cell in arriving if Keyword.INFECT not in s.keywords), 0)
        reasons = [_at_least(model, life_loss, p.life + gain, f"no_life[{pid}]")]  # 704.5a
        poison = sum((coef * expr for coef, expr, _ in _poison_parts(model, pid, arriving)), 0)
        reasons.append(_at_least(model, poison, 10 - p.poison, f"poisoned[{pid}]"))  # 704.5c
        for s, cell in arriving:
            if s.commander:  # 704.6c, 903.10a
                reasons.append(_at_least(model, cell, 21 - p.commander_damage.get(s.id, 0),
                                         f"commander[{s.id},{pid}]"))
        indicators.append((1, _or(model, reasons, f"lost[{pid}]")))
    return _bool_term(indicators)


def _deals_damage(board: Board, c: Creature) -> bool:
    creatures, beyond, controller = reachable(board, c)
    return bool(creatures or beyond or controller)


_TERMS = {
    "kills": _kills, "survivors": _survivors, "value": _value, "player_damage": _player_damage,
    "poison": _poison, "loyalty": _loyalty, "defense": _defense, "life_gained": _life_gained,
    "lethal": _lethal,
}
