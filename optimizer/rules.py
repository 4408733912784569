"""The combat damage rules in plain Python: recipients, lethal damage, results and state-based actions.

This module, with :mod:`optimizer.check` and :mod:`optimizer.bruteforce`, is the reference the
CP-SAT encoding is tested against; it shares no code with :mod:`optimizer.encode`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType
from typing import Mapping

from .assignment import Assignment
from .board import Board, Creature, Keyword, ObjectId


class Route(str, Enum):
    """How a recipient may be reached by a creature's combat damage."""

    CREATURE = "creature"
    """A creature blocking it, or an attacker it blocks (510.1c-d)."""
    ATTACKED = "attacked"
    """The player, planeswalker or battle it attacks: unblocked (510.1b) or past lethal (702.19b/d)."""
    CONTROLLER = "controller"
    """The attacked planeswalker's controller, for trample over planeswalkers (702.19c/e)."""


def tramples(creature: Creature) -> bool:
    """702.19: trample over planeswalkers is a form of trample."""
    return creature.has(Keyword.TRAMPLE) or creature.has(Keyword.TRAMPLE_OVER_PLANESWALKERS)


def is_present(board: Board, object_id: ObjectId) -> bool:
    """Whether an attacked object is still in combat (506.4c): players always are."""
    obj = board.get(object_id)
    return obj is not None and not getattr(obj, "removed_from_combat", False)


def recipients(board: Board, creature: Creature) -> dict[ObjectId, Route]:
    """Everything ``creature`` could legally assign combat damage to, before lethal requirements.

    510.1b-d, 506.4c, 702.19b-f. Empty if it assigns no combat damage at all.
    """
    if creature.power <= 0:  # 510.1a
        return {}
    if creature.is_blocking:  # 510.1d
        return {a: Route.CREATURE for a in creature.blocking}
    target = creature.attacking
    if target is None:
        return {}
    out: dict[ObjectId, Route] = {b: Route.CREATURE for b in board.blockers_of(creature.id)}
    if creature.blocked and not tramples(creature):
        return out  # 510.1c: blocked, no trample: only blockers (none left: no damage)
    if is_present(board, target):
        out[target] = Route.ATTACKED
    if creature.has(Keyword.TRAMPLE_OVER_PLANESWALKERS) and board.is_planeswalker(target):
        out[board.controller_of(target)] = Route.CONTROLLER  # 702.19c, 702.19e
    return out


def lethal_needed(creature: Creature, assigned: int, deathtouch_assigned: bool) -> int:
    """Damage still needed for lethal (702.19b, 702.2c): toughness minus marked minus assigned.

    Ignores indestructible and anything that changes the damage actually dealt. Zero means lethal.
    """
    if deathtouch_assigned:
        return 0
    return max(0, creature.toughness - creature.damage - assigned)


@dataclass(frozen=True)
class PlayerOutcome:
    """A player's state after combat damage (120.3, 704.5a/c, 704.6c)."""

    life: int
    poison: int
    commander_damage: Mapping[ObjectId, int]
    damage_taken: int
    """Combat damage dealt to this player by sources without infect (the life it loses)."""
    life_gained: int
    lost: bool


@dataclass(frozen=True)
class CreatureOutcome:
    """A creature's state after combat damage: total marked damage and -1/-1 counters (120.3d-e)."""

    damage: int
    minus_counters: int
    deathtouched: bool
    destroyed: bool


@dataclass(frozen=True)
class Outcome:
    """The state after combat damage is dealt and state-based actions are performed."""

    players: Mapping[ObjectId, PlayerOutcome]
    planeswalkers: Mapping[ObjectId, int]
    battles: Mapping[ObjectId, int]
    creatures: Mapping[ObjectId, CreatureOutcome]
    destroyed: tuple[ObjectId, ...]

    def to_dict(self) -> dict[str, object]:
        return {
            "players": {pid: {"life": p.life, "poison": p.poison, "lost": p.lost,
                              **({"commander_damage": dict(p.commander_damage)} if p.commander_damage else {})}
                        for pid, p in self.players.items()},
            "planeswalkers": {w: {"loyalty": n} for w, n in self.planeswalkers.items()},
            "battles": {b: {"defense": n} for b, n in self.battles.items()},
            "creatures": {c: {"damage": o.damage, "minus_counters": o.minus_counters}
                          for c, o in self.creatures.items()},
            "destroyed": list(self.destroyed),
        }


def deal_damage(board: Board, assignments: tuple[Assignment, ...]) -> Outcome:
    """Deal the assigned damage simultaneously (510.2), apply its results (120.3), then SBAs (704).

    Assumes the assignment is legal; :func:`optimizer.check.check` says whether it is.
    """
    marked = {c.id: c.damage for c in board.combatants}
    counters = {c.id: 0 for c in board.combatants}
    deathtouched = {c.id: False for c in board.combatants}
    loyalty = {w.id: w.loyalty for w in board.planeswalkers}
    defense = {b.id: b.defense for b in board.battles}
    life = {p.id: p.life for p in board.players}
    poison = {p.id: p.poison for p in board.players}
    taken = {p.id: 0 for p in board.players}
    gained = {p.id: 0 for p in board.players}
    commander = {p.id: dict(p.commander_damage) for p in board.players}

    for a in assignments:
        if a.amount <= 0:
            continue
        source = board.creature(a.source)
        infect = source.has(Keyword.INFECT)
        if board.is_creature(a.target):
            if infect or source.has(Keyword.WITHER):  # 120.3d
                counters[a.target] += a.amount
            else:  # 120.3e
                marked[a.target] += a.amount
            if source.has(Keyword.DEATHTOUCH):  # 702.2b
                deathtouched[a.target] = True
        elif board.is_player(a.target):
            if infect:  # 120.3b
                poison[a.target] += a.amount
            else:  # 120.3a
                life[a.target] -= a.amount
                taken[a.target] += a.amount
            poison[a.target] += source.toxic  # 120.3g, 702.164c
            if source.commander:  # 903.10a
                commander[a.target][source.id] = commander[a.target].get(source.id, 0) + a.amount
        elif board.is_planeswalker(a.target):  # 120.3c
            loyalty[a.target] = max(0, loyalty[a.target] - a.amount)
        elif board.is_battle(a.target):  # 120.3h
            defense[a.target] = max(0, defense[a.target] - a.amount)
        if source.has(Keyword.LIFELINK):  # 120.3f, 702.15b
            life[source.controller] += a.amount
            gained[source.controller] += a.amount

    creatures: dict[ObjectId, CreatureOutcome] = {}
    destroyed: list[ObjectId] = []
    for c in board.combatants:
        toughness = c.toughness - counters[c.id]
        if toughness <= 0:  # 704.5f: indestructible does not help
            dies = True
        elif c.has(Keyword.INDESTRUCTIBLE):  # 702.12b
            dies = False
        else:  # 704.5g, 704.5h
            dies = marked[c.id] >= toughness or deathtouched[c.id]
        creatures[c.id] = CreatureOutcome(marked[c.id], counters[c.id], deathtouched[c.id], dies)
        if dies:
            destroyed.append(c.id)
    destroyed += [w for w, n in loyalty.items() if n <= 0]  # 704.5i
    destroyed += [b for b, n in defense.items() if n <= 0]  # 704.5v
    players = {
        p.id: PlayerOutcome(
            life=life[p.id], poison=poison[p.id],
            commander_damage=MappingProxyType(commander[p.id]),
            damage_taken=taken[p.id], life_gained=gained[p.id],
            lost=life[p.id] <= 0 or poison[p.id] >= 10 or any(n >= 21 for n in commander[p.id].values()),
        )  # 704.5a, 704.5c, 704.6c
        for p in board.players
    }
    return Outcome(MappingProxyType(players), MappingProxyType(loyalty), MappingProxyType(defense),
                   MappingProxyType(creatures), tuple(destroyed))
