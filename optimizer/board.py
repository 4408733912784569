"""Frozen domain types for a combat: players, planeswalkers, battles, creatures and the board.

Pure data plus structural queries (who blocks whom, who is attacked); no rules logic beyond that,
no I/O and no solver. Boards are built by :func:`optimizer.schema.load_board`, which validates them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from types import MappingProxyType
from typing import Any, Mapping

ObjectId = str
"""Identifier of a player, planeswalker, battle or creature; unique across the board."""


class Keyword(str, Enum):
    """Keyword abilities that change how combat damage is assigned, dealt or survived."""

    TRAMPLE = "trample"
    """702.19b: excess over lethal to each blocker may go to what it attacks."""
    TRAMPLE_OVER_PLANESWALKERS = "trample over planeswalkers"
    """702.19c: as trample, and excess over an attacked planeswalker's loyalty to its controller."""
    DEATHTOUCH = "deathtouch"
    """702.2b-c: any damage destroys; any nonzero assignment counts as lethal."""
    LIFELINK = "lifelink"
    """702.15b: damage dealt also makes its controller gain that much life."""
    INFECT = "infect"
    """702.90b-c: poison counters to players, -1/-1 counters to creatures."""
    WITHER = "wither"
    """702.80a: -1/-1 counters to creatures instead of marked damage."""
    INDESTRUCTIBLE = "indestructible"
    """702.12b: not destroyed by lethal damage or deathtouch (704.5f still applies)."""
    FIRST_STRIKE = "first strike"
    """702.7b: deals combat damage in the first combat damage step (510.4)."""
    DOUBLE_STRIKE = "double strike"
    """702.4b: deals combat damage in both combat damage steps (510.4)."""
    BANDING = "banding"
    """702.22j-k: the other side's player divides the damage of creatures it fights."""


COLORS = ("white", "blue", "black", "red", "green")
"""The five colors (105.1)."""
PROTECTION_QUALITIES = COLORS + ("creatures", "everything")
"""Qualities a ``protection_from`` list may name (702.16a, 702.16j)."""


@lru_cache(maxsize=1024)
def normalize_keyword(text: str) -> str:
    """Lower-case a keyword and treat spaces, underscores and hyphens alike ("First_strike")."""
    return re.sub(r"[\s_\-]+", " ", text.strip().lower())


_KEYWORDS_BY_TEXT = {kw.value: kw for kw in Keyword}


def parse_keyword(text: str) -> Keyword | None:
    """The :class:`Keyword` named by ``text``, or None if it does not change combat damage."""
    return _KEYWORDS_BY_TEXT.get(normalize_keyword(text))


@dataclass(frozen=True)
class Player:
    """A player: life total, poison counters and combat damage taken from each commander."""

    id: ObjectId
    life: int = 20
    poison: int = 0
    commander_damage: Mapping[ObjectId, int] = field(default_factory=lambda: MappingProxyType({}))
    in_game: bool = True
    """False once the player has lost (between damage steps in a multiplayer game, 800.4a)."""
    protection_from: frozenset[str] = frozenset()
    """Colors, "creatures" or "everything": damage from such sources is prevented (702.16e)."""


@dataclass(frozen=True)
class Planeswalker:
    """A planeswalker; ``removed_from_combat`` means it left combat after attackers were declared."""

    id: ObjectId
    controller: ObjectId
    loyalty: int
    removed_from_combat: bool = False


@dataclass(frozen=True)
class Battle:
    """A battle (310): ``protector`` defends it; damage removes defense counters (120.3h)."""

    id: ObjectId
    controller: ObjectId
    protector: ObjectId
    defense: int
    removed_from_combat: bool = False


@dataclass(frozen=True)
class Creature:
    """A creature as it stands when combat damage is assigned.

    ``damage`` is damage already marked this turn; ``attacking`` is the id of what it attacks;
    ``blocking`` the attackers it blocks; ``blocked`` is True for an attacker that became blocked
    (509.1h), even if its blockers have since left combat.
    """

    id: ObjectId
    controller: ObjectId
    power: int
    toughness: int
    name: str | None = None
    damage: int = 0
    keywords: frozenset[Keyword] = frozenset()
    other_keywords: tuple[str, ...] = ()
    toxic: int = 0
    value: int = 1
    attacking: ObjectId | None = None
    blocked: bool = False
    blocking: tuple[ObjectId, ...] = ()
    commander: bool = False
    assigns_damage_by_toughness: bool = False
    """Assigns combat damage equal to its toughness rather than its power (Doran-style effects)."""
    may_assign_as_though_unblocked: bool = False
    """May assign all its combat damage as though it weren't blocked (Thorn Elemental)."""
    colors: frozenset[str] = frozenset()
    """Its colors (105.1); none means colorless."""
    protection_from: frozenset[str] = frozenset()
    """Colors, "creatures" or "everything": damage from such sources is prevented (702.16e)."""

    def has(self, keyword: Keyword) -> bool:
        return keyword in self.keywords

    @property
    def is_attacking(self) -> bool:
        return self.attacking is not None

    @property
    def is_blocking(self) -> bool:
        return bool(self.blocking)

    @property
    def in_combat(self) -> bool:
        return self.is_attacking or self.is_blocking

    @property
    def label(self) -> str:
        """The id, with the card name when there is one: ``a1 (Elvish Regrower)``."""
        return f"{self.id} ({self.name})" if self.name else self.id


class EffectKind(str, Enum):
    """Effects that change combat damage as it is dealt (615, 614); none changes what is assigned."""

    PREVENT = "prevent"
    """Prevent all such damage (615.1), or with an amount the next N damage to one recipient (615.7)."""
    DOUBLE = "double"
    """Such damage is doubled instead (614.1a); two of them quadruple it (614.5)."""
    ADD = "add"
    """Such damage is increased by ``amount`` (614.1a); 0 damage is not increased (614.7a)."""
    CANT_BE_PREVENTED = "cant_be_prevented"
    """Such damage can't be prevented (615.12)."""


@dataclass(frozen=True)
class Selector:
    """Which sources or recipients an effect applies to: ``ids``, or everything ``controller``
    controls, or (both None) everything. A player id in ``ids`` means that player."""

    ids: frozenset[ObjectId] | None = None
    controller: ObjectId | None = None

    def matches(self, object_id: ObjectId, controller: ObjectId | None) -> bool:
        if self.ids is not None:
            return object_id in self.ids
        if self.controller is not None:
            return controller == self.controller
        return True

    def to_json(self) -> Any:
        if self.ids is not None:
            return sorted(self.ids)
        if self.controller is not None:
            return {"controller": self.controller}
        return "all"


@dataclass(frozen=True)
class Effect:
    """A damage effect on the board; ``amount`` None for PREVENT means prevent all such damage."""

    kind: EffectKind
    amount: int | None = None
    sources: Selector = Selector()
    recipients: Selector = Selector()

    @property
    def is_shield(self) -> bool:
        """"Prevent the next N damage" to one recipient (615.7)."""
        return self.kind is EffectKind.PREVENT and self.amount is not None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": getattr(self.kind, "value", self.kind)}
        if self.kind in (EffectKind.PREVENT, EffectKind.ADD) or self.amount is not None:
            out["amount"] = self.amount
        for end in ("sources", "recipients"):  # what is not a Selector as it is, for loading to name
            selector = getattr(self, end)
            out[end] = selector.to_json() if isinstance(selector, Selector) else selector
        return out


def _listed(items: Any) -> Any:
    """A set (sorted) or tuple field as a JSON list; anything else, a string above all, as it is,
    so that loading names the field instead of reading the string's letters."""
    if isinstance(items, (set, frozenset)):
        return sorted(items, key=lambda item: (type(item) is not str, str(item)))
    return list(items) if isinstance(items, (tuple, list)) else items


def has_first_strike(creature: Creature) -> bool:
    """702.7b, 702.4b: first strike or double strike."""
    return creature.has(Keyword.FIRST_STRIKE) or creature.has(Keyword.DOUBLE_STRIKE)


@dataclass(frozen=True)
class Board:
    """A combat at the moment combat damage is assigned (510.1)."""

    active_player: ObjectId
    players: tuple[Player, ...]
    creatures: tuple[Creature, ...]
    planeswalkers: tuple[Planeswalker, ...] = ()
    battles: tuple[Battle, ...] = ()
    warnings: tuple[str, ...] = ()
    first_strike_step_done: bool = False
    """True for the board between the first-strike and the regular combat damage step (510.4)."""
    effects: tuple[Effect, ...] = ()
    """Damage effects (protection is on the creatures and players themselves)."""
    loaded: bool = field(default=False, init=False, repr=False, compare=False)
    """Whether :func:`~optimizer.schema.load_board` made (or checked) this board: ``solve`` and
    ``check`` check any other board first (:func:`~optimizer.schema.checked_board`)."""
    _index: Mapping[ObjectId, Any] = field(init=False, repr=False, compare=False)
    _blockers: Mapping[ObjectId, tuple[ObjectId, ...]] = field(init=False, repr=False, compare=False)
    combatants: tuple[Creature, ...] = field(init=False, repr=False, compare=False)
    """The creatures in combat (attacking or blocking), in board order."""
    first_striker_in_combat: bool = field(init=False, repr=False, compare=False)
    """Whether a creature in combat has first strike or double strike (510.4)."""
    plain_damage: bool = field(init=False, repr=False, compare=False)
    """Whether all damage is dealt as assigned: no damage effects and no protection (615, 616, 702.16)."""

    def __post_init__(self) -> None:
        index: dict[ObjectId, Any] = {}
        for obj in (*self.players, *self.planeswalkers, *self.battles, *self.creatures):
            index[obj.id] = obj
        blockers: dict[ObjectId, list[ObjectId]] = {c.id: [] for c in self.creatures if c.is_attacking}
        for c in self.creatures:
            for attacker in c.blocking:
                blockers.setdefault(attacker, []).append(c.id)
        object.__setattr__(self, "combatants", tuple(c for c in self.creatures if c.in_combat))
        object.__setattr__(self, "first_striker_in_combat", any(has_first_strike(c) for c in self.combatants))
        object.__setattr__(self, "plain_damage", not self.effects and not any(
            o.protection_from for o in (*self.players, *self.creatures)))
        object.__setattr__(self, "_index", MappingProxyType(index))
        object.__setattr__(
            self, "_blockers", MappingProxyType({k: tuple(v) for k, v in blockers.items()})
        )

    # --- lookups -------------------------------------------------------------------------
    def get(self, object_id: ObjectId) -> Player | Planeswalker | Battle | Creature | None:
        return self._index.get(object_id)

    def player(self, object_id: ObjectId) -> Player:
        obj = self._index[object_id]
        assert isinstance(obj, Player), object_id
        return obj

    def creature(self, object_id: ObjectId) -> Creature:
        obj = self._index[object_id]
        assert isinstance(obj, Creature), object_id
        return obj

    def is_player(self, object_id: ObjectId) -> bool:
        return isinstance(self._index.get(object_id), Player)

    def is_planeswalker(self, object_id: ObjectId) -> bool:
        return isinstance(self._index.get(object_id), Planeswalker)

    def is_battle(self, object_id: ObjectId) -> bool:
        return isinstance(self._index.get(object_id), Battle)

    def is_creature(self, object_id: ObjectId) -> bool:
        return isinstance(self._index.get(object_id), Creature)

    # --- combat structure -----------------------------------------------------------------
    @property
    def attackers(self) -> tuple[Creature, ...]:
        return tuple(c for c in self.creatures if c.is_attacking)

    @property
    def blockers(self) -> tuple[Creature, ...]:
        return tuple(c for c in self.creatures if c.is_blocking)

    def blockers_of(self, attacker_id: ObjectId) -> tuple[ObjectId, ...]:
        """Ids of the creatures blocking ``attacker_id``, in board order."""
        return self._blockers.get(attacker_id, ())

    def defending_player(self, attacked_id: ObjectId) -> ObjectId:
        """508.5: the player attacked, the attacked planeswalker's controller, or the battle's protector."""
        obj = self._index[attacked_id]
        if isinstance(obj, Player):
            return obj.id
        if isinstance(obj, Planeswalker):
            return obj.controller
        assert isinstance(obj, Battle), attacked_id
        return obj.protector

    def controller_of(self, object_id: ObjectId) -> ObjectId:
        """Controller of a permanent, or the player itself."""
        obj = self._index[object_id]
        return obj.id if isinstance(obj, Player) else obj.controller

    def turn_order(self) -> tuple[ObjectId, ...]:
        """Player ids in turn order starting with the active player (APNAP order, 101.4)."""
        ids = [p.id for p in self.players]
        start = ids.index(self.active_player)
        return tuple(ids[start:] + ids[:start])

    def opponents_of(self, player_id: ObjectId) -> tuple[ObjectId, ...]:
        return tuple(p.id for p in self.players if p.id != player_id)

    def to_dict(self) -> dict[str, Any]:
        """The board in the JSON input format (loading it gives an equal board)."""
        out: dict[str, Any] = {
            "active_player": self.active_player,
            "players": [
                {"id": p.id, "life": p.life, "poison": p.poison,
                 "commander_damage": (dict(p.commander_damage) if isinstance(p.commander_damage, Mapping)
                                      else p.commander_damage),  # not a mapping: written as it is, so loading names it
                 **({"protection_from": _listed(p.protection_from)} if p.protection_from else {})}
                for p in self.players
            ],
            "planeswalkers": [
                {"id": w.id, "controller": w.controller, "loyalty": w.loyalty,
                 **({"removed_from_combat": w.removed_from_combat} if w.removed_from_combat is not False else {})}
                for w in self.planeswalkers
            ],
            "battles": [
                {"id": b.id, "controller": b.controller, "protector": b.protector,
                 "defense": b.defense,
                 **({"removed_from_combat": b.removed_from_combat} if b.removed_from_combat is not False else {})}
                for b in self.battles
            ],
            "creatures": [],
        }
        if self.effects:
            out["effects"] = [e.to_dict() for e in self.effects]
        for c in self.creatures:
            entry: dict[str, Any] = {"id": c.id, "controller": c.controller,
                                     "power": c.power, "toughness": c.toughness}
            if c.name is not None:
                entry["name"] = c.name
            for name, default in (("damage", 0), ("toxic", 0), ("value", 1)):  # as it is unless the default
                if not (type(getattr(c, name)) is int and getattr(c, name) == default):
                    entry[name] = getattr(c, name)
            if not isinstance(c.keywords, (set, frozenset)):  # either of the wrong type as it is
                keywords = c.keywords
            elif not isinstance(c.other_keywords, (tuple, list)):
                keywords = c.other_keywords
            else:
                keywords = _listed({getattr(k, "value", k) for k in c.keywords}) + list(c.other_keywords)
            if keywords:
                entry["keywords"] = keywords
            if c.attacking is not None:
                entry["attacking"] = c.attacking
            if not isinstance(c.blocked, bool):
                entry["blocked"] = c.blocked  # not true or false: loading names it
            elif c.blocked and (c.attacking is None or not self.blockers_of(c.id)):
                entry["blocked"] = True  # for an attacker whose blockers are gone (509.1h)
            elif not c.blocked and c.attacking is not None and self.blockers_of(c.id):
                entry["blocked"] = False  # contradicts its blockers: loading names it (509.1h)
            if c.blocking:
                entry["blocking"] = _listed(c.blocking)
            for flag in ("commander", "assigns_damage_by_toughness", "may_assign_as_though_unblocked"):
                if getattr(c, flag) is not False:  # true, or what loading names as not true or false
                    entry[flag] = getattr(c, flag)
            if c.colors:  # in the order of 105.1, then any that are not colors (to be named as errors)
                entry["colors"] = ([k for k in COLORS if k in c.colors] + _listed(set(c.colors) - set(COLORS))
                                   if isinstance(c.colors, (set, frozenset)) else c.colors)
            if c.protection_from:
                entry["protection_from"] = _listed(c.protection_from)
            out["creatures"].append(entry)
        return out
