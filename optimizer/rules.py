"""The combat damage rules in plain Python: recipients, lethal damage, results and state-based actions.

This module, with :mod:`optimizer.check` and :mod:`optimizer.bruteforce`, is the reference the
CP-SAT encoding is tested against; it shares no code with the encoding (:mod:`optimizer.analysis`,
:mod:`optimizer.expressions`, :mod:`optimizer.encode`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from types import MappingProxyType
from typing import Any, Iterable, Mapping

from .assignment import Assignment, Step
from .board import Board, Creature, Keyword, ObjectId, has_first_strike
from .dealing import DealingChoice, banding_chooser, deal


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


def damage_steps(board: Board) -> tuple[Step, ...]:
    """510.4: two combat damage steps if a creature in combat has first strike or double strike."""
    if not board.first_strike_step_done and board.first_striker_in_combat:
        return (Step.FIRST_STRIKE, Step.REGULAR)
    return (Step.REGULAR,)


def assigns_in(board: Board, creature: Creature, step: Step) -> bool:
    """510.4, 702.4b, 702.7b: who assigns combat damage in ``step``."""
    if step is Step.FIRST_STRIKE:
        return has_first_strike(creature)
    if board.first_strike_step_done:
        return creature.has(Keyword.DOUBLE_STRIKE) or not creature.has(Keyword.FIRST_STRIKE)
    return not board.first_striker_in_combat


def is_present(board: Board, object_id: ObjectId) -> bool:
    """Whether an attacked object is still in combat (506.4c) and its controller still in the game
    (800.4a). A battle whose protector left the game stays attacked: its controller chooses a new
    protector only once no creature attacks it (the state-based action of 704.5w; see
    :func:`board_after_first_strike`)."""
    obj = board.get(object_id)
    if obj is None or getattr(obj, "removed_from_combat", False):
        return False
    return board.player(board.controller_of(object_id)).in_game


def damage_amount(creature: Creature) -> int:
    """510.1a: a creature assigns combat damage equal to its power, or its toughness under a
    Doran-style effect; 0 or less means it assigns none."""
    return creature.toughness if creature.assigns_damage_by_toughness else creature.power


def recipients(board: Board, creature: Creature, step: Step = Step.REGULAR,
               as_though_unblocked: bool = False) -> dict[ObjectId, Route]:
    """Everything ``creature`` could legally assign combat damage to in ``step``, before lethal.

    510.1b-d, 506.4c, 510.4, 702.19b-f. Empty if it assigns no combat damage at all. With
    ``as_though_unblocked``, the recipients it would have if it weren't blocked.
    """
    if damage_amount(creature) <= 0 or not assigns_in(board, creature, step):  # 510.1a, 510.4
        return {}
    if creature.is_blocking:  # 510.1d
        return {a: Route.CREATURE for a in creature.blocking}
    target = creature.attacking
    if target is None:
        return {}
    if banding_chooser(board, creature) != creature.controller and not as_though_unblocked:
        return {b: Route.CREATURE for b in board.blockers_of(creature.id)}  # 702.22j: among its blockers only
    blocked = creature.blocked and not as_though_unblocked
    out: dict[ObjectId, Route] = {} if as_though_unblocked else {
        b: Route.CREATURE for b in board.blockers_of(creature.id)}
    if blocked and not tramples(creature):
        return out  # 510.1c: blocked, no trample: only blockers (none left: no damage)
    if is_present(board, target):
        out[target] = Route.ATTACKED
    if creature.has(Keyword.TRAMPLE_OVER_PLANESWALKERS) and board.is_planeswalker(target):
        controller = board.controller_of(target)
        if board.player(controller).in_game:
            out[controller] = Route.CONTROLLER  # 702.19c, 702.19e
    return out


def assignment_modes(board: Board, creature: Creature) -> tuple[bool, ...]:
    """The ways it may assign: normally, and for a blocked creature that may assign its damage as
    though it weren't blocked (Thorn Elemental), that way too: all or nothing, never a split. Whoever
    divides its damage makes that choice: when a creature with banding blocks it, the defending
    player (702.22j; the cards' rulings: "the defending player decides whether or not the damage is
    assigned 'as though it weren't blocked'")."""
    if creature.may_assign_as_though_unblocked and creature.blocked:
        return (False, True)
    return (False,)


def possible_recipients(board: Board, creature: Creature, step: Step) -> dict[ObjectId, Route]:
    """Recipients under any of its assignment modes."""
    out: dict[ObjectId, Route] = {}
    for mode in assignment_modes(board, creature):
        out.update(recipients(board, creature, step, as_though_unblocked=mode))
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
    shields_used: Mapping[int, int] = field(default_factory=lambda: MappingProxyType({}))
    """Damage each "prevent the next N" shield (by index in ``board.effects``) prevented (615.7)."""
    left_game: tuple[ObjectId, ...] = ()
    """With three or more players: what left the game with a player who lost (800.4a), besides what
    was destroyed: everything that player controlled, in combat or not."""

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
            "left_game": list(self.left_game),
        }


def deal_damage(board: Board, assignments: tuple[Assignment, ...],
                choices: Mapping[tuple[ObjectId, ObjectId], DealingChoice] | None = None) -> Outcome:
    """Deal the assigned damage simultaneously (510.2) as modified by effects (615, 616, 702.16e, with
    ``choices`` for the effects' order), apply its results (120.3), then SBAs (704).

    Assumes the assignment is legal; :func:`optimizer.check.check` says whether it is.
    """
    dealt = deal(board, assignments, choices)
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

    for (source_id, target), amount in dealt.amounts.items():
        if amount <= 0:  # fully prevented damage has no results at all (615, 120.3)
            continue
        source = board.creature(source_id)
        infect = source.has(Keyword.INFECT)
        if board.is_creature(target):
            if infect or source.has(Keyword.WITHER):  # 120.3d
                counters[target] += amount
            else:  # 120.3e
                marked[target] += amount
            if source.has(Keyword.DEATHTOUCH):  # 702.2b
                deathtouched[target] = True
        elif board.is_player(target):
            if infect:  # 120.3b
                poison[target] += amount
            else:  # 120.3a
                life[target] -= amount
                taken[target] += amount
            poison[target] += source.toxic  # 120.3g, 702.164c
            if source.commander:  # 903.10a
                commander[target][source.id] = commander[target].get(source.id, 0) + amount
        elif board.is_planeswalker(target):  # 120.3c
            loyalty[target] = max(0, loyalty[target] - amount)
        elif board.is_battle(target):  # 120.3h
            defense[target] = max(0, defense[target] - amount)
        if source.has(Keyword.LIFELINK):  # 120.3f, 702.15b
            life[source.controller] += amount
            gained[source.controller] += amount

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
            commander_damage=MappingProxyType(dict(sorted(commander[p.id].items()))),  # by commander id
            damage_taken=taken[p.id], life_gained=gained[p.id],
            lost=life[p.id] <= 0 or poison[p.id] >= 10 or any(n >= 21 for n in commander[p.id].values()),
        )  # 704.5a, 704.5c, 704.6c
        for p in board.players
    }
    left: list[ObjectId] = []
    if len(board.players) >= 3:  # 800.4a; a two-player game simply ends
        lost = {pid for pid, p in players.items() if p.lost}
        left = [o.id for o in (*board.creatures, *board.planeswalkers, *board.battles)
                if o.controller in lost and o.id not in destroyed]  # in combat or not
    return Outcome(MappingProxyType(players), MappingProxyType(loyalty), MappingProxyType(defense),
                   MappingProxyType(creatures), tuple(destroyed), MappingProxyType(dict(dealt.shields_used)),
                   tuple(left))


def board_after_first_strike(board: Board, outcome: Outcome) -> Board | None:
    """The board for the regular damage step after the first-strike step's damage and SBAs (510.4).

    Destroyed creatures are gone (blocked attackers stay blocked, 509.1h); -1/-1 counters lower power
    and toughness; marked damage stays. A planeswalker or battle that left is removed from combat
    (506.4c). A player who lost leaves the game with everything they control (800.4a); if at most one
    player is left the game is over and there is no second step (None).
    """
    lost = {pid for pid, p in outcome.players.items() if p.lost}
    if len([p for p in board.players if p.in_game and p.id not in lost]) <= 1:
        return None
    gone = set(outcome.destroyed)
    present = {c.id for c in board.creatures if c.id not in gone and c.controller not in lost}
    creatures = []
    for c in board.creatures:
        if c.id not in present:
            continue
        changes: dict[str, Any] = {}
        o = outcome.creatures.get(c.id)
        if o is not None and (o.minus_counters or o.damage != c.damage):
            changes.update(power=c.power - o.minus_counters, toughness=c.toughness - o.minus_counters,
                           damage=o.damage)
        blocking = tuple(a for a in c.blocking if a in present)
        if blocking != c.blocking:
            changes["blocking"] = blocking
        creatures.append(replace(c, **changes) if changes else c)  # unchanged objects are shared
    players = tuple(_changed(p, life=outcome.players[p.id].life, poison=outcome.players[p.id].poison,
                             commander_damage=outcome.players[p.id].commander_damage,
                             in_game=p.in_game and p.id not in lost)
                    for p in board.players)
    effects = tuple(_changed(e, amount=e.amount - outcome.shields_used.get(i, 0)) if e.is_shield else e
                    for i, e in enumerate(board.effects))  # a shield's capacity carries over (615.7)
    planeswalkers = tuple(
        _changed(w, loyalty=outcome.planeswalkers[w.id],
                 removed_from_combat=w.removed_from_combat or w.id in gone or w.controller in lost)
        for w in board.planeswalkers)
    battles = tuple(  # a protector who lost leaves it attacked, and it can still be dealt damage (704.5w)
        _changed(b, defense=outcome.battles[b.id],
                 removed_from_combat=b.removed_from_combat or b.id in gone or b.controller in lost)
        for b in board.battles)
    later = Board(board.active_player, players, tuple(creatures), planeswalkers, battles, board.warnings,
                  first_strike_step_done=True, effects=effects)
    object.__setattr__(later, "loaded", board.loaded)  # made by the rules from a checked board: checked
    return later


def _changed(obj: Any, **fields: Any) -> Any:
    """``obj`` with ``fields`` (itself when none of them changes: unchanged objects are shared)."""
    if all(getattr(obj, k) == v for k, v in fields.items()):
        return obj
    return replace(obj, **fields)


def _combine(board: Board, first: Outcome, second: Outcome) -> Outcome:
    """The whole combat's outcome from the two steps' outcomes (``second`` is on the later board)."""
    players = {
        pid: PlayerOutcome(life=o2.life, poison=o2.poison, commander_damage=o2.commander_damage,
                           damage_taken=first.players[pid].damage_taken + o2.damage_taken,
                           life_gained=first.players[pid].life_gained + o2.life_gained,
                           lost=first.players[pid].lost or o2.lost)
        for pid, o2 in second.players.items()
    }
    creatures = {}
    for c in board.combatants:
        o1 = first.creatures[c.id]
        o2 = second.creatures.get(c.id)
        creatures[c.id] = o1 if o2 is None else CreatureOutcome(
            o2.damage, o1.minus_counters + o2.minus_counters, o2.deathtouched, o2.destroyed)
    destroyed = first.destroyed + tuple(d for d in second.destroyed if d not in first.destroyed)
    left = first.left_game + tuple(o for o in second.left_game if o not in first.left_game)
    return Outcome(MappingProxyType(players), second.planeswalkers, second.battles,
                   MappingProxyType(creatures), destroyed, left_game=left)


def step_choices(choices: Iterable[DealingChoice], step: Step) -> dict[tuple[ObjectId, ObjectId], DealingChoice]:
    return {(c.source, c.target): c for c in choices if c.step is step}


def first_step(board: Board, assignments: tuple[Assignment, ...],
               choices: Iterable[DealingChoice] = ()) -> tuple[Outcome, Board | None]:
    """The first-strike step's outcome and the board it leaves for the regular step (510.4)."""
    first = deal_damage(board, tuple(a for a in assignments if a.step is Step.FIRST_STRIKE),
                        step_choices(choices, Step.FIRST_STRIKE))
    return first, board_after_first_strike(board, first)


def resolve_combat(board: Board, assignments: tuple[Assignment, ...], choices: Iterable[DealingChoice] = (),
                   played: tuple[Outcome, Board | None] | None = None) -> Outcome:
    """Both damage steps (510.4) with SBAs after each; assumes every step's assignment is legal.
    ``played`` is :func:`first_step`'s result when it is already known."""
    choices = tuple(choices)
    if damage_steps(board) == (Step.REGULAR,):
        return deal_damage(board, tuple(a for a in assignments if a.step is Step.REGULAR),
                           step_choices(choices, Step.REGULAR))
    first, later = played or first_step(board, assignments, choices)
    if later is None:
        return first
    second = deal_damage(later, tuple(a for a in assignments if a.step is Step.REGULAR),
                         step_choices(choices, Step.REGULAR))
    return _combine(board, first, second)


def simplest_line(board: Board) -> tuple[Assignment, ...]:
    """A legal assignment found without any search: in each damage step every creature assigns all
    of its damage (510.1a) to its first recipient, a blocker if it has one, so that no damage goes
    past a blocker and no lethal damage is needed (510.1c-d, 702.19b); the regular step on the board
    the first-strike step leaves (510.4), with effects applied in board order."""
    line = _first_recipient_line(board, forced=False)
    assert line is not None
    return line


def forced_line(board: Board) -> tuple[Assignment, ...] | None:
    """The only legal assignment when no player has a choice, else None: damage is dealt as
    assigned (no damage effects or protection, so nobody orders effects or shields, 615.7, 616.1),
    and in each damage step every creature that assigns damage has one recipient and one way to
    assign, so it assigns all of its damage there (510.1a). A blocked creature that may assign as
    though it weren't blocked has a choice whenever either way has a recipient: all to its blocker
    or all to what it attacks, or, with nothing to assign to one way, all or none. The regular
    step is judged on the board the first-strike step leaves (510.4)."""
    return _first_recipient_line(board, forced=True) if board.plain_damage else None


def _first_recipient_line(board: Board, forced: bool) -> tuple[Assignment, ...] | None:
    """:func:`simplest_line`; with ``forced``, None as soon as a creature has a choice."""
    line: list[Assignment] = []
    current: Board | None = board
    for step in damage_steps(board):
        if current is None:  # the game ended in the first-strike step
            break
        played = []
        for creature in current.combatants:
            targets = recipients(current, creature, step)
            if forced and (len(targets) > 1 or (len(assignment_modes(current, creature)) > 1 and (
                    targets or recipients(current, creature, step, True)))):
                return None  # two recipients, or all of its damage one way or the other (or none)
            if targets:
                played.append(Assignment(step, creature.id, next(iter(targets)), damage_amount(creature)))
        line += played
        if step is Step.FIRST_STRIKE:
            current = board_after_first_strike(current, deal_damage(current, tuple(played)))
    return tuple(line)
