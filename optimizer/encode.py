"""CP-SAT encoding of combat damage: both damage steps, their state-based actions, and the objective.

Variables ``x[source, recipient]`` are the damage a creature assigns in a step. Constraints are
510.1a-d (all power, to legal recipients only), 702.19b-f (trample past lethal only, trample over
planeswalkers past loyalty only) and 510.4 (who assigns in which step). Between the steps the
state is symbolic: reified indicators say which creatures died (704.5f-h), which planeswalkers and
battles left (704.5i/v) and which players lost (704.5a/c, 704.6c), and the second step's
participants, powers, recipients and lethal thresholds are expressions of that state.

A :class:`CombatModel` holds one CP-SAT model into which any number of *scenarios* can be built:
copies of the combat that share some players' first-step variables and differ in the others'
choices. Each scenario reports its objective split into *parts*, one per player whose damage
decides it (attackers' fates are decided by their defending player's blockers, everything else
by the active player's attackers), so that callers can maximize the deciding player's parts and
minimize everyone else's.

This module derives everything from the board itself and shares no code with the rules layer's
checker or brute-force enumerator, which are what the tests hold it against.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from itertools import count
from typing import Iterable, Mapping, Sequence, Union

from .cp_sat import cp_model, cp_model_helper

from .assignment import Step
from .board import Board, Creature, EffectKind, Keyword, ObjectId

Expr = Union[cp_model.LinearExprT, int]
Cell = tuple[ObjectId, ObjectId]
"""(source creature, recipient)."""
PartKey = Union[ObjectId, tuple[ObjectId, int]]
"""A player id, or (player id, policy index) for a player whose second step follows a policy."""

CREATURE, ATTACKED, CONTROLLER = "creature", "attacked", "controller"
MAX_DEALT = 2**40
"""Bound on the damage one creature may deal one recipient for the encoding (doublers grow it fast)."""


class _Model(cp_model.CpModel):
    """A CP-SAT model without the deprecated camelCase aliases that ``CpModel`` attaches to every new
    instance (about a millisecond each, more than solving a typical board)."""

    def _add_pre_pep8_methods(self) -> None:
        pass


def _is_const(e: Expr) -> bool:
    return isinstance(e, int)


def first_striker(c: Creature) -> bool:
    return Keyword.FIRST_STRIKE in c.keywords or Keyword.DOUBLE_STRIKE in c.keywords


def _tramples(c: Creature) -> bool:
    return Keyword.TRAMPLE in c.keywords or Keyword.TRAMPLE_OVER_PLANESWALKERS in c.keywords


def amount_of(c: Creature) -> int:
    """510.1a: combat damage equals power, or toughness under a Doran-style effect."""
    return c.toughness if c.assigns_damage_by_toughness else c.power


def _two_modes(c: Creature) -> bool:
    """A blocked creature that may assign its damage as though it weren't blocked (Thorn Elemental)."""
    return c.may_assign_as_though_unblocked and c.blocked


@dataclass(frozen=True)
class DealtRule:
    """How damage from one source to one recipient is dealt: prevented outright (702.16e protection,
    615 "prevent all"), or passed through ``shields`` (615.7), doublers (614.5: each once) and adders
    (614.7a: not to 0 damage), whose order the affected player chooses (616.1) when they meet."""

    prevented: bool = False
    factor: int = 1
    added: int = 0
    shield: int = 0
    shields: tuple[int, ...] = ()
    doublers: tuple[int, ...] = ()
    adders: tuple[int, ...] = ()
    """Indexes in ``board.effects``."""
    wastable: tuple[int, ...] = ()
    """With ``prevented``: the shields its player may apply first all the same, using them up (616.1e)."""

    @property
    def identity(self) -> bool:
        return not self.prevented and self.factor == 1 and not self.added and not self.shield

    @property
    def ordered(self) -> bool:
        """Whether the order of its effects can change the damage dealt (616.1)."""
        return len(self.shields) + bool(self.doublers) + bool(self.adders) > 1

    def order(self, least: bool) -> tuple[int, ...]:
        """The order dealing the least damage (shields, doublers, adders) or the most (reversed)."""
        out = self.shields + self.doublers + self.adders
        return out if least else tuple(reversed(out))

    def apply(self, x: int, least: bool) -> int:
        if self.prevented or x <= 0:
            return 0
        if least:
            return 0 if x <= self.shield else self.factor * (x - self.shield) + self.added
        return max(0, self.factor * (x + self.added) - self.shield)


_PLAIN = DealtRule()


def dealt_rule(board: Board, source: Creature, target: ObjectId) -> DealtRule:
    obj = board.get(target)
    owner = None if board.is_player(target) else obj.controller
    live = [(i, e) for i, e in enumerate(board.effects)
            if e.sources.matches(source.id, source.controller) and e.recipients.matches(target, owner)]
    unpreventable = any(e.kind is EffectKind.CANT_BE_PREVENTED for _, e in live)  # 615.12
    protection = getattr(obj, "protection_from", frozenset())
    protected = bool(protection & ({"creatures", "everything"} | source.colors))
    shields = tuple(i for i, e in live if e.kind is EffectKind.PREVENT and e.amount)
    if not unpreventable and (protected or any(e.kind is EffectKind.PREVENT and e.amount is None for _, e in live)):
        return DealtRule(prevented=True, wastable=shields)  # its player may still apply them first (616.1e)
    if unpreventable:  # 615.12: shields prevent nothing and are not used up
        shields = ()
    doublers = tuple(i for i, e in live if e.kind is EffectKind.DOUBLE)
    adders = tuple(i for i, e in live if e.kind is EffectKind.ADD)
    return DealtRule(False, 2 ** len(doublers), sum(board.effects[i].amount for i in adders),
                     sum(board.effects[i].amount for i in shields), shields, doublers, adders)


@dataclass
class Term:
    """A linear objective term: ``sum(coef * expr)``."""

    parts: list[tuple[int, Expr]] = field(default_factory=list)

    def add(self, coef: int, expr: Expr) -> None:
        if coef and not (_is_const(expr) and expr == 0):
            self.parts.append((coef, expr))

    def expr(self) -> Expr:
        return linear(self.parts)


def linear(pairs: Iterable[tuple[int, Expr]]) -> Expr:
    """``sum(coef * expr)`` as one flat expression (an int when every ``expr`` is one)."""
    const = 0
    coefs: list[int] = []
    exprs: list[Expr] = []
    for coef, e in pairs:
        if isinstance(e, int):
            const += coef * e
        elif coef:
            coefs.append(coef)
            exprs.append(e)
    if not exprs:
        return const
    if len(exprs) == 1 and coefs[0] == 1 and not const:
        return exprs[0]  # a one-term sum is the term itself
    if const:
        coefs.append(1)
        exprs.append(const)
    return cp_model.LinearExpr.weighted_sum(exprs, coefs)


MAX_UNSTABLE = 3
"""Most creatures with banding whose survival of the first-strike step changes a divider, when the
active player's first step decides some of them (each doubles the cases solved, or the regular-step
variants a model holds)."""
MAX_UNSTABLE_REPLIED = 6
"""The same when only replies of players against the active side decide them (each reply leaves one
case; each creature doubles the views of the board kept)."""


@dataclass(frozen=True)
class _View:
    """Who divides each creature's damage (``chooser``), what it may damage (``targets``), whose
    choices decide each object's fate (``fate``), who deals damage in each step (``sources``), and, in
    a two-player game, what takes damage both players divide (``coupled``)."""

    chooser: dict[ObjectId, ObjectId]
    targets: dict[ObjectId, list[tuple[ObjectId, str]]]
    fate: dict[ObjectId, set[ObjectId]]
    sources: dict[Step, list[Creature]]
    coupled: frozenset[ObjectId]
    damaged_by: dict[ObjectId, ObjectId] = field(default_factory=dict)
    """A cache of :meth:`CombatModel.damaged_by` in this view."""
    units: dict[ObjectId, list[list[Creature]]] = field(default_factory=dict)
    """A cache of :meth:`CombatModel.policy_units` in this view."""


@dataclass
class Scenario:
    """One copy of the combat: its variables and its objective parts (objective name -> Term)."""

    cells: dict[tuple[Step, ObjectId, ObjectId], Expr]
    """Damage of every source in both steps (policy copies excluded)."""
    policy_cells: dict[tuple[ObjectId, int], dict[Cell, Expr]]
    """Second-step damage of each policy-driven player under each of its policies."""
    parts: dict[PartKey, dict[str, Term]]
    state: "_State | None" = None
    active_cells: Mapping[Cell, Expr] = field(default_factory=dict)
    """The active player's second-step damage assigned (players' loss and poison come only from it)."""
    gone: frozenset[ObjectId] = frozenset()
    """The creatures with banding gone before the regular step (the view it was built in)."""


class CombatModel:
    """A CP-SAT model of a board's combat damage, scored by ``decider``'s objectives."""

    def __init__(self, board: Board, decider: ObjectId, objective: Sequence[str]) -> None:
        self.board = board
        self.decider = decider
        self.objective = tuple(objective)
        self.model = _Model()
        self._domains: dict[int, tuple[int, int]] = {}
        """Domain of each variable made by :meth:`_int` and :meth:`_bool`, by index."""
        self.combatants = [c for c in board.creatures if c.attacking is not None or c.blocking]
        self.deathtouch = frozenset(c.id for c in self.combatants if Keyword.DEATHTOUCH in c.keywords)
        """Sources whose damage is lethal in any amount (702.2c)."""
        self.counter_sources = frozenset(c.id for c in self.combatants if _counters(c))
        """Sources whose damage to creatures becomes -1/-1 counters (120.3d)."""
        self.infect = frozenset(c.id for c in self.combatants if Keyword.INFECT in c.keywords)
        """Sources whose damage to players becomes poison counters (120.3b)."""
        self.non_infect = frozenset(c.id for c in self.combatants) - self.infect
        self.two_steps = not board.first_strike_step_done and any(first_striker(c) for c in self.combatants)
        self._ids = count()
        self.first_modes: dict[ObjectId, Expr] = {}
        """For each two-mode first-step source: 1 if it assigns as though unblocked."""
        self._views: dict[frozenset[ObjectId], _View] = {}
        self.chooser: dict[ObjectId, ObjectId] = {}
        """Who divides each creature's damage: its controller, or the other side under banding."""
        self._targets: dict[ObjectId, list[tuple[ObjectId, str]]] = {}
        self._fate_deciders: dict[ObjectId, set[ObjectId]] = {}
        self._sources: dict[Step, list[Creature]] = {}
        self._use_view(frozenset())
        self._hit_first = {t for s in self.sources(Step.FIRST_STRIKE) for t, _ in self.targets(s)}
        """Everything first-strike damage could be assigned to (510.4)."""
        self.unstable: frozenset[ObjectId] = self._find_unstable()
        """Creatures with banding that make the other side divide some creature's regular-step damage
        and that first-strike damage could destroy (the divider then changes, 702.22j-k)."""
        self.case: frozenset[ObjectId] | None = None
        """When the active player's first step decides which :attr:`unstable` creatures leave: the
        ones this model requires to leave (the solver tries every case)."""
        self._all_targets = {c.id: list(dict.fromkeys(
            t for gone in (frozenset(), self.unstable) for t in self.view(gone).targets[c.id]))
            for c in self.combatants}
        """Everything each creature could assign damage to, whoever divides it."""
        choosers = [self.view(gone).chooser for gone in self.cases()]
        self._active_divided = frozenset(
            c.id for c in self.combatants if c.controller != board.active_player
            and all(chooser[c.id] == board.active_player for chooser in choosers))
        """Other players' creatures whose damage the active player divides however the first-strike
        step leaves banding (702.22k)."""
        plain = not board.effects and not any(o.protection_from for o in (*board.players, *self.combatants))
        self._plain = plain
        """No damage effect or protection on the board: every damage is dealt as assigned."""
        self._dealt: dict[Cell, DealtRule] = {
            (c.id, t): _PLAIN if plain else dealt_rule(board, c, t)
            for c in self.combatants for t, _ in self._all_targets[c.id]}
        self._pooled: set[ObjectId] = self._find_pooled()
        """Recipients whose shields several sources' damage can reach, where it does not matter which
        damage the shields prevent (see :meth:`_find_pooled`)."""
        self.any_coupled: frozenset[ObjectId] = frozenset().union(*(self.view(g).coupled for g in self.cases()))
        """In a two-player game: what may take regular-step damage divided by both players (banding
        on some of the sources, 702.22j-k), as combat begins or once some :attr:`unstable` creatures
        left (:attr:`coupled_fates`: in the regular step being built). Its fate is scored with the
        defending player's choices, as the later announcer (510.1), from both players' damage; the
        solver then refines over the defending player's replies instead of solving everyone's part
        in one model."""
        self.self_scored: frozenset[ObjectId] = frozenset(
            c.controller for c in self.combatants
            if c.controller != board.active_player and self.damaged_by(c.id) == c.controller
        ) if len(board.players) >= 3 else frozenset()
        """With three or more players: the defending players who divide damage dealt to their own
        creatures (banding, 702.22j), whose part of the objective then depends on whether the active
        player makes them lose (800.4a: their creatures leave with them). See :attr:`left`."""
        self.left: frozenset[ObjectId] = frozenset()
        """Players whose own parts score their creatures as gone, as though they lost (800.4a): the
        solver values each :attr:`self_scored` player's part both ways on one-step boards."""
        self.coupled_gain: ObjectId | None = self._find_coupled_gain()
        """A player whose lifelink blockers' gain, which depends on how it divides their damage, decides
        whether it loses (see :meth:`_find_coupled_gain`); its loss (``lethal``, or ``alive`` if it
        decides) is left out of the active player's part (with two steps it is in its own part)."""
        self.least: dict[Cell, bool] = {cell: True for cell in self._dealt}
        """For each cell, whether its affected player applies the effects in the order dealing the
        least damage (616.1)."""
        self.least_first: dict[Cell, bool] = {}
        """The same for first-strike damage (see :meth:`first_direction`)."""
        self.choose_orders()

    def fresh(self) -> "CombatModel":
        """An empty model of the same board, sharing this one's analysis of it (views, targets,
        effects, orders), which nothing changes once it is built."""
        other = copy.copy(self)
        other.model = _Model()
        other._domains = {}
        other._ids = count()
        other.first_modes = {}
        other.case = None
        other.left = frozenset()
        other._use_view(frozenset())
        return other

    # --- who assigns what, where ------------------------------------------------------------------
    def targets(self, c: Creature) -> list[tuple[ObjectId, str]]:
        """Everything ``c`` could ever assign damage to, with the route (510.1b-d, 702.19)."""
        return self._targets[c.id]

    def sources(self, step: Step) -> list[Creature]:
        """Creatures that assign damage in ``step`` if they are still around (510.4, 702.4b, 702.7b)."""
        return self._sources[step]

    def view(self, gone: frozenset[ObjectId]) -> "_View":
        """Who divides what, and what each creature may damage, in the regular step when the creatures
        with banding in ``gone`` left in the first-strike step (``gone`` empty: as combat begins)."""
        if gone not in self._views:
            chooser = {c.id: self._find_chooser(c, gone) for c in self.combatants}
            targets = {c.id: self._find_targets(c, chooser[c.id]) for c in self.combatants}
            sources = {step: self._find_sources(step, targets) for step in Step}
            if gone:  # the first-strike step is always as combat begins
                sources[Step.FIRST_STRIKE] = self.view(frozenset()).sources[Step.FIRST_STRIKE]
            # First-strike damage reaches every part through the state; a source with one recipient
            # and one way to assign (see :meth:`passive`) has nothing to divide.
            fate: dict[ObjectId, set[ObjectId]] = {}
            for c in sources[Step.REGULAR]:
                if len(targets[c.id]) > 1 or (_two_modes(c) and chooser[c.id] == c.controller):
                    for t, _ in targets[c.id]:
                        fate.setdefault(t, set()).add(chooser[c.id])
            coupled = frozenset(t for t, deciders in fate.items() if len(deciders) > 1) \
                if len(self.board.players) == 2 else frozenset()
            self._views[gone] = _View(chooser, targets, fate, sources, coupled)
        return self._views[gone]

    def _use_view(self, gone: frozenset[ObjectId]) -> None:
        view = self.view(gone)
        self.chooser, self._targets, self._fate_deciders = view.chooser, view.targets, view.fate
        self.coupled_fates = view.coupled
        self._damaged_by = view.damaged_by
        self._units = view.units
        self._sources = view.sources

    def _find_chooser(self, c: Creature, gone: frozenset[ObjectId] = frozenset()) -> ObjectId:
        """702.22j: the defending player divides the damage of an attacker blocked by a creature with
        banding; 702.22k: the active player divides a blocker's that blocks a creature with banding
        (creatures in ``gone`` have left combat)."""
        board = self.board
        if c.attacking is not None:
            blockers = [board.creature(b) for b in board.blockers_of(c.id)]
            if any(Keyword.BANDING in b.keywords and b.id not in gone for b in blockers):
                return blockers[0].controller
        elif any(Keyword.BANDING in board.creature(a).keywords and a not in gone for a in c.blocking):
            return board.active_player
        return c.controller

    def _find_unstable(self) -> frozenset[ObjectId]:
        out: set[ObjectId] = set()
        if not self.two_steps:
            return frozenset()
        b = self.board
        for c in self.sources(Step.REGULAR):
            if self.chooser[c.id] == c.controller:
                continue
            others = b.blockers_of(c.id) if c.attacking is not None else c.blocking
            banding = [k for k in others if Keyword.BANDING in b.creature(k).keywords]
            if all(k in self._hit_first for k in banding):
                out.update(banding)
        return frozenset(out)

    def _find_targets(self, c: Creature, chooser: ObjectId) -> list[tuple[ObjectId, str]]:
        if amount_of(c) <= 0:  # 510.1a
            return []
        if self.board.first_strike_step_done and Keyword.FIRST_STRIKE in c.keywords \
                and Keyword.DOUBLE_STRIKE not in c.keywords:
            return []  # 702.7b: it dealt its damage in the first-strike step
        if c.blocking:
            return [(a, CREATURE) for a in c.blocking]
        if c.attacking is None:
            return []
        out = [(b, CREATURE) for b in self.board.blockers_of(c.id)]
        if chooser != c.controller:  # 702.22j: among its blockers only
            return out
        if c.blocked and not _tramples(c) and not _two_modes(c):
            return out
        attacked = self.board.get(c.attacking)
        if not getattr(attacked, "removed_from_combat", False):
            out.append((c.attacking, ATTACKED))
        if Keyword.TRAMPLE_OVER_PLANESWALKERS in c.keywords and self.board.is_planeswalker(c.attacking):
            out.append((self.board.controller_of(c.attacking), CONTROLLER))
        return out

    def _find_sources(self, step: Step, targets: Mapping[ObjectId, list]) -> list[Creature]:
        if step is Step.FIRST_STRIKE:
            return [c for c in self.combatants if self.two_steps and first_striker(c) and targets[c.id]]
        if not self.two_steps:  # between the steps, creatures that only strike first have no targets
            return [c for c in self.combatants if targets[c.id]]
        return [c for c in self.combatants if targets[c.id]
                and (Keyword.DOUBLE_STRIKE in c.keywords or Keyword.FIRST_STRIKE not in c.keywords)]

    def responder(self) -> ObjectId:
        """The defending player of a two-player game: the later announcer (510.1)."""
        return next(p.id for p in self.board.players if p.id != self.board.active_player)

    def damaged_by(self, object_id: ObjectId) -> ObjectId:
        """The player whose choices decide ``object_id``'s fate: who divides the damage dealt to it
        (attackers: normally their defending player; see :attr:`coupled_fates` for both players)."""
        found = self._damaged_by.get(object_id)
        if found is None:
            found = self._damaged_by[object_id] = self._find_damaged_by(object_id)
        return found

    def _find_damaged_by(self, object_id: ObjectId) -> ObjectId:
        if object_id in self.coupled_fates:
            return self.responder()
        deciders = self._fate_deciders.get(object_id, set())
        if len(deciders) == 1:
            return next(iter(deciders))
        obj = self.board.get(object_id)
        if isinstance(obj, Creature) and obj.attacking is not None:
            return self.board.defending_player(obj.attacking)
        return self.board.active_player

    def unsupported(self) -> str | None:
        """Why this encoding cannot model the board exactly, or None. (The solver hands such boards
        to the exhaustive search when they are small enough.)"""
        board = self.board
        if self.unstable:
            why = self._unstable_unsupported()
            if why is not None:
                return why
        for gone in self.cases():
            for t, deciders in self.view(gone).fate.items():
                if len(deciders) > 1 and t not in self.view(gone).coupled:
                    return f"both sides divide damage dealt to {t} (banding, 702.22j-k)"
            for c in self.combatants:
                if _two_modes(c) and self.view(gone).chooser[c.id] != c.controller:
                    return (f"{c.id} may assign its damage as though it weren't blocked, and a creature with banding "
                            "blocks it, so the defending player divides its damage and chooses that way or the "
                            "other (702.22j and the card's rulings)")
        if len(board.players) >= 3 and self.two_steps:
            for c in self.combatants:
                if board.active_player not in (c.controller, self.damaged_by(c.id)):
                    return (f"{self.damaged_by(c.id)} divides the damage dealt to {c.id} (banding, 702.22j), "
                            "while whether its controller loses and it leaves the game with them (800.4a) "
                            "is up to the active player")
            for c in self.sources(Step.REGULAR):
                divider = self.chooser[c.id]
                if (c.attacking is not None and board.is_battle(c.attacking) and divider != c.controller
                        and divider in self._hit_first):  # first-strike damage may make the divider lose
                    return (f"{divider} divides {c.id}'s damage among its blockers (banding, 702.22j); if {divider} "
                            f"loses in the first-strike step, they leave the game with it (800.4a) while the battle "
                            f"{c.attacking} stays attacked (704.5w), and {c.controller} divides again")
        wastable = {i: cell for cell, rule in self._dealt.items() for i in rule.wastable}
        if wastable:
            for (source, t), rule in self._dealt.items():
                shared = sorted(wastable.keys() & set(rule.shields))
                if shared:
                    i = shared[0]
                    return (f"the shield {i} can prevent {source}'s damage to {t}, and its player may use it up on "
                            f"{wastable[i][0]}'s damage to {wastable[i][1]}, applying it before that damage is "
                            "prevented anyway (616.1e, 615.7)")
        shielded: dict[tuple[Step, ObjectId], int] = {}
        regular = self.sources(Step.REGULAR)
        first = self.sources(Step.FIRST_STRIKE)
        for c in self.combatants:
            rules = {t: self._dealt[(c.id, t)] for t, _ in self._all_targets[c.id]}
            for t, rule in rules.items():
                if rule.factor * (max(amount_of(c), 0) + rule.added) > MAX_DEALT:
                    return f"effects multiply {c.id}'s damage to {t} beyond {MAX_DEALT}"
                if not rule.ordered:
                    continue
                if t in self._hit_first and len(rule.shields) > 1:
                    return (f"the order (616.1) of the shields on {c.id}'s damage to {t}, which may also be "
                            "dealt first-strike damage (which shield is left then shapes the regular step)")
                if c in first and self.first_direction((c.id, t)) is None:
                    return (f"the best order (616.1) of the effects on {c.id}'s first-strike damage to {t} "
                            "depends on more than the damage dealt")
                if t not in self._pooled and self.direction((c.id, t)) is None:
                    return (f"the best order (616.1) of the effects on {c.id}'s damage to {t} depends on more "
                            "than the damage dealt")
            # (a first-strike division's gain is in the state the regular step starts from, 510.4; the
            # active player's division of it, 702.22k, is scored with the active player's damage)
            if self._divided_gain(c) and c in regular and self._gain_matters(c.controller) \
                    and c.controller != self.coupled_gain and c.id not in self._active_divided:
                return f"lifelink {c.id}'s damage dealt depends on how it is divided"
        steps = (Step.FIRST_STRIKE, Step.REGULAR) if self.two_steps else (Step.REGULAR,)
        for step in steps:  # 615.7: a choice only among damage dealt at once (a shield has one recipient)
            for c in self.sources(step):
                for t, _ in self._all_targets[c.id]:
                    if self._dealt[(c.id, t)].shield:
                        shielded[(step, t)] = shielded.get((step, t), 0) + 1
        for (_, t), n in shielded.items():
            if n > 1 and t not in self._pooled:
                return (f"damage from several sources can reach the shield on {t}, and which damage it "
                        "prevents matters (615.7: its player chooses)")
        return None

    def _find_pooled(self) -> set[ObjectId]:
        """615.7: when damage from several sources reaches a recipient's shields at once, its player
        chooses which damage they prevent; they prevent as much in total either way. That choice
        changes nothing when the shields are the only effects on that damage (so each source's damage
        dealt is what it assigns minus what is prevented of it) and nothing depends on which source
        dealt the damage: no lifelink (702.15b); to a creature, no deathtouch (702.2b), infect or
        wither (counters, 702.80a, 702.90c); to a player, no infect (702.90b), toxic (702.164c) or
        commander (903.10a). Then only the total dealt matters: any split of it will do."""
        reaching: dict[ObjectId, list[tuple[Creature, DealtRule]]] = {}
        for (source, t), rule in self._dealt.items():
            if rule.shield:
                reaching.setdefault(t, []).append((self.board.creature(source), rule))
        out = set()
        for t, pairs in reaching.items():
            if len(pairs) < 2 or len({r.shields for _, r in pairs}) > 1 \
                    or any(r.doublers or r.adders for _, r in pairs):
                continue
            if self.board.is_player(t):
                personal = (Keyword.LIFELINK, Keyword.INFECT)
            elif isinstance(self.board.get(t), Creature):
                personal = (Keyword.LIFELINK, Keyword.DEATHTOUCH, Keyword.INFECT, Keyword.WITHER)
            else:
                personal = (Keyword.LIFELINK,)
            if any(k in c.keywords for c, _ in pairs for k in personal):
                continue
            if self.board.is_player(t) and any(c.toxic or c.commander for c, _ in pairs):
                continue
            out.add(t)
        return out


    def cases(self) -> list[frozenset[ObjectId]]:
        """Every set of :attr:`unstable` creatures that may have left in the first-strike step (past
        :data:`MAX_UNSTABLE_REPLIED` of them, only none and all: such boards are refused)."""
        if len(self.unstable) > MAX_UNSTABLE_REPLIED:
            return [frozenset(), self.unstable]
        items = sorted(self.unstable)
        return [frozenset(k for i, k in enumerate(items) if mask >> i & 1) for mask in range(2 ** len(items))]

    def _unstable_unsupported(self) -> str | None:
        """Banding whose divider may change between the steps (702.22j-k) is modeled when the players
        whose first-strike divisions decide whether each such creature with banding survives are:
        players against the active side: the solver enumerates their first-step replies, so every
        model that needs the regular step knows it; the active player alone: the solver tries each
        case, which its models then require (:attr:`case`); in a two-player game, both: the replies
        are enumerated, and each model with the active player's first step free builds the regular
        step once per case, under the indicator that it happens (see :meth:`scenarios`). Either way
        each regular step is built as it will be. With three or more players, first-strike damage
        must not be able to reach such a creature's controller (who would leave the game with it,
        800.4a)."""
        c = next(iter(sorted(self.unstable)))
        culprit = (f"banding lets the other side divide damage (702.22j-k) in the first-strike step, and "
                   f"{c} may be gone in the regular step")
        deciders = self.unstable_deciders()
        board = self.board
        most = MAX_UNSTABLE if board.active_player in deciders else MAX_UNSTABLE_REPLIED
        if len(self.unstable) > most:
            return culprit + f" (more than {most} such creatures)"
        if len(deciders) > 1 and len(board.players) >= 3:
            return culprit + ", which first-strike damage of several players decides"
        if len(board.players) >= 3:
            # The solver enumerates the replies of the players against the active side, and tries
            # each case of the active player's; a player between them (on the active side, after a
            # responder) would leave the divider to a model's free first step.
            active = board.active_player
            against_active = {p.id for p in board.players if (p.id == self.decider) != (active == self.decider)}
            if not deciders <= against_active | {active}:
                return culprit + f", which {next(iter(deciders))}'s first-strike damage decides after a responder"
            # A player who loses in the first-strike step leaves with its creatures (800.4a), and so
            # would a creature with banding; only when first-strike damage cannot reach the player
            # is that settled before the model's first step.
            controllers = {board.creature(k).controller for k in self.unstable}
            if any(t in controllers for s in self.sources(Step.FIRST_STRIKE) for t, _ in self.targets(s)):
                return culprit + " (in a game of three or more players, where first-strike damage may make its " \
                                 "controller leave the game)"
        return None

    def unstable_deciders(self) -> set[ObjectId]:
        """The players whose first-strike divisions may damage :attr:`unstable` creatures (a source
        with one recipient and one way to assign divides nothing: its damage is known)."""
        return {self.chooser[s.id] for s in self.sources(Step.FIRST_STRIKE)
                if (len(self.targets(s)) > 1 or self.two_modes(s)) and any(t in self.unstable for t, _ in self.targets(s))}

    def active_decides_unstable(self) -> bool:
        """Whether the active player's first-strike division alone decides which :attr:`unstable`
        creatures survive (702.22k: the blockers of a banding attacker)."""
        return self.unstable_deciders() == {self.board.active_player}

    def loss_objective(self, player: ObjectId) -> str:
        """The objective that scores ``player``'s loss: ``alive`` for the decider, ``lethal`` for the others."""
        return "alive" if player == self.decider else "lethal"

    def _gain_matters(self, player: ObjectId) -> bool:
        """Whether the life ``player`` gains decides whether it loses in a way the objective scores,
        which then mixes its own choices with the active player's (only the active player's
        creatures deal damage to players): ``lethal`` for an opponent of the decider, ``alive`` for
        the decider, or with three or more players anything about it leaving the game (800.4a).
        (``life_gained`` itself is scored in the part of whoever divides the damage.)"""
        if player == self.board.active_player:
            return False
        return len(self.board.players) >= 3 or self.loss_objective(player) in self.objective

    def _divided_gain(self, c: Creature) -> bool:
        """Whether lifelink ``c``'s damage dealt, so its controller's gain (702.15b), depends on how
        its damage is divided: several recipients and effects on some of them."""
        return Keyword.LIFELINK in c.keywords and len(self.targets(c)) > 1 \
            and not all(self._dealt[(c.id, t)].identity for t, _ in self.targets(c))

    def _find_coupled_gain(self) -> ObjectId | None:
        """The player whose own lifelink blockers' divided regular-step gain (see :meth:`_divided_gain`)
        decides whether it loses, in a two-player game: then the active player's damage and that
        player's division together decide whether it loses. The solver handles that coupling: with one
        step, for each total gain, the player's best division with that gain; with two, its loss is
        scored in its own part, as its reply (see :meth:`_part`). Where the active player divides such a
        blocker's damage instead (702.22k, perhaps only until the first-strike step ends banding), its
        gain is scored with the active player's damage. None if there is no such player."""
        if len(self.board.players) != 2:
            return None
        divided = [c for c in self.sources(Step.REGULAR) if self._divided_gain(c) and self._gain_matters(c.controller)
                   and c.id not in self._active_divided]
        found = {c.controller for c in divided}
        return next(iter(found)) if len(found) == 1 else None

    def coupled_sources(self) -> list[Creature]:
        """The lifelink blockers whose gain :attr:`coupled_gain` is about."""
        return [c for c in self.sources(Step.REGULAR)
                if c.controller == self.coupled_gain and self._divided_gain(c) and self.chooser[c.id] == c.controller]

    def direction(self, cell: Cell) -> int | None:
        """+1 if more damage dealt in ``cell`` is never worse for the decider (lexicographically), -1
        if never better, 0 if it changes nothing, None if it depends. For damage in the last damage
        step: what it leads to is then final."""
        source = self.board.creature(cell[0])
        vector = self._damage_vector(cell)
        if vector is None:
            return None
        sign = self._first_sign(vector)
        if Keyword.LIFELINK not in source.keywords:
            return sign
        # 702.15b: its controller gains the damage dealt, which can only help the decider if it is
        # the decider (life_gained) and only hurt it otherwise (an opponent who might lose survives
        # more often, 510.2). The gain and what the damage does to its recipient happen apart from
        # each other, so both must lean the same way. With three or more players a player's loss
        # moves creatures too (800.4a): left to the exhaustive search.
        if len(self.board.players) >= 3:
            return None
        if source.controller == self.decider:  # its gain, and a deciding defender survives more often
            gain = self._first_sign({"life_gained": 1, "alive": int(self.decider != self.board.active_player)})
        else:
            gain = self._first_sign({"lethal": -1})
        if sign and gain and sign != gain:
            return None
        return sign or gain

    def _first_sign(self, vector: Mapping[str, int]) -> int:
        """The sign of the first objective ``vector`` moves, in the objectives' order (0: none)."""
        for name in self.objective:
            if vector.get(name, 0):
                return 1 if vector[name] > 0 else -1
        return 0

    def _damage_vector(self, cell: Cell) -> dict[str, int] | None:
        """How more damage dealt in ``cell`` can move each objective through its recipient (it is
        destroyed, loses, has loyalty or defense removed): all of these together or none; None if
        that depends on more (creatures of negative value leaving with a player, 800.4a)."""
        target = cell[1]
        b = self.board
        multiplayer = len(b.players) >= 3
        obj = b.get(target)
        if isinstance(obj, Creature):
            mine = obj.controller == self.decider
            return {"kills": 0 if mine else 1, "survivors": -1 if mine else 0,
                    "value": -obj.value if mine else obj.value}
        if b.is_player(target):
            if target == self.decider:  # it may lose (``alive``)
                if not multiplayer:
                    return {"alive": -1}
                own = [c.value for c in self.combatants if c.controller == target]
                if any(v < 0 for v in own):
                    return None
                return {"alive": -1, "survivors": -1 if own else 0, "value": -1 if any(own) else 0}
            theirs = [c.value for c in self.combatants if c.controller == target]
            if multiplayer and any(v < 0 for v in theirs):
                return None
            return {"lethal": 1, "player_damage": 1, "poison": 1, "kills": 1 if multiplayer else 0,
                    "value": 1 if multiplayer else 0}
        if b.is_planeswalker(target):
            return {"loyalty": 0 if obj.controller == self.decider else 1}
        return {"defense": 0 if obj.protector == self.decider else 1}

    def most_dealt(self, c: Creature) -> int:
        """A bound on the damage ``c`` deals in one step, effects included (pooled shields may prevent
        none of it, and a shield first-strike damage reaches may be used up by the regular step)."""
        amount = max(amount_of(c), 0)
        rules = [(t, self._dealt[(c.id, t)]) for t, _ in self._all_targets[c.id]]
        if all(r.identity for _, r in rules):
            return amount if rules else 0
        total = 0
        for t, r in rules:
            if t in self._pooled:
                total += amount
            else:
                total += (replace(r, shield=0) if t in self._hit_first else r).apply(amount, least=False)
        return total

    def choose_orders(self) -> None:
        """616.1: the affected player orders the effects on each damage to deal the most or the
        least, whichever is best for it: for the decider, best for the decider; for anyone else,
        worst for the decider. In the last damage step by :meth:`direction`; in the first-strike
        step by :meth:`first_direction` (boards where neither decides are left to the exhaustive
        search, see :meth:`unsupported`)."""
        first_sources = {c.id for c in self.sources(Step.FIRST_STRIKE)}
        for cell, rule in self._dealt.items():
            if rule.ordered:
                target = cell[1]
                affected = target if self.board.is_player(target) else self.board.get(target).controller
                wants_more = (self.direction(cell) or 0) > 0
                self.least[cell] = not wants_more if affected == self.decider else wants_more
                if cell[0] in first_sources:
                    wants_more = (self.first_direction(cell) or 0) > 0
                    self.least_first[cell] = not wants_more if affected == self.decider else wants_more

    def first_direction(self, cell: Cell) -> int | None:
        """:meth:`direction` for first-strike damage to a creature in a two-player game, whose effects
        reach into the regular step: dealing more (and using more of a shield, 615.7) may destroy
        it, or weaken it with -1/-1 counters, before it deals its regular damage (510.4), leave less
        damage for trample to assign it (702.19b), or end a banding division (702.22j-k). +1 if all
        of that is never worse for the decider (an opponent's creature), -1 if never better (its
        own), None when some objective could go either way: values below zero, the decider's own
        lifelink gain, lifelink on the source, or the defending player's lifelink gain when
        its loss counts (``lethal``, or ``alive`` if it decides) and the creature is the active
        player's (it then deals less regular damage, and its blockers gain less: good for a deciding
        active player's creature, bad for the defender's survival when the defender decides)."""
        b, names = self.board, self.objective
        source, obj = b.creature(cell[0]), b.get(cell[1])
        if len(b.players) != 2 or not isinstance(obj, Creature) or Keyword.LIFELINK in source.keywords:
            return None
        mine = obj.controller == self.decider
        if "value" in names and any(c.value < 0 for c in self.combatants):
            return None
        lifelink = {c.controller for c in self.combatants if Keyword.LIFELINK in c.keywords}
        if "life_gained" in names and self.decider in lifelink:
            return None
        defender = next(p.id for p in b.players if p.id != b.active_player)  # two players: whose loss it is
        if self.loss_objective(defender) in names and obj.controller == b.active_player \
                and lifelink - {b.active_player}:
            return None
        return -1 if mine else 1

    def dealing_order(self, cell: Cell, step: Step = Step.REGULAR) -> tuple[int, ...] | None:
        """The order chosen for ``cell``'s effects in ``step`` (indexes in ``board.effects``), if it
        has one."""
        rule = self._dealt[cell]
        if not rule.ordered:
            return None
        if step is Step.FIRST_STRIKE and self.two_steps:
            return rule.order(self.least_first[cell])
        return rule.order(self.least[cell])

    def two_modes(self, c: Creature) -> bool:
        """Whether ``c`` may assign as though unblocked, its controller choosing (a board where the
        defending player divides its damage, 702.22j, and so chooses the way is left to the exhaustive
        search: see :meth:`unsupported`)."""
        return _two_modes(c) and self.chooser[c.id] == c.controller

    def passive(self, c: Creature) -> bool:
        """Whether ``c``'s regular-step damage is no one's choice: one recipient, all of its damage
        (510.1a-c). Its damage then counts wherever its recipient's fate is scored."""
        return len(self.targets(c)) == 1 and not self.two_modes(c)

    def has_choice(self, c: Creature) -> bool:
        """Whether ``c`` could ever have two recipients to divide its damage among."""
        return len(self.targets(c)) >= 2

    # --- first step -------------------------------------------------------------------------------
    def first_step_cells(self, sources: Sequence[Creature],
                         fixed: Mapping[Cell, int] | None = None) -> dict[Cell, Expr]:
        """First-strike damage of ``sources``: free variables, or the constants of ``fixed``."""
        cells: dict[Cell, Expr] = {}
        for s in sources:
            targets = [t for t, _ in self.targets(s)]
            if fixed is not None:
                for t in targets:
                    cells[(s.id, t)] = fixed.get((s.id, t), 0)
            elif len(targets) == 1 and not self.two_modes(s):
                cells[(s.id, targets[0])] = amount_of(s)
            else:
                row = {(s.id, t): self._int(0, amount_of(s), f"x1[{s.id},{t}]") for t in targets}
                if self.two_modes(s):
                    self.first_modes[s.id] = self._two_mode_total(s, row, amount_of(s), lambda t: 1)
                else:
                    self.model.add(sum(row.values()) == amount_of(s))  # 510.1a
                cells.update(row)
        return cells

    def _two_mode_total(self, s: Creature, row: Mapping[Cell, Expr], amount: Expr, available) -> Expr:
        """Thorn Elemental: all damage as though unblocked (to what it attacks, with trample over
        planeswalkers also its controller), or normally; never a split. A mode with no recipient
        assigns nothing. Returns the indicator of the unblocked mode."""
        targets = self.targets(s)
        creatures = [row[(s.id, t)] for t, r in targets if r == CREATURE]
        beyond = [t for t, r in targets if r != CREATURE]
        unblocked = self._bool(f"as_though_unblocked[{s.id}]")
        normal_reach, unblocked_reach = self._mode_reach(s, available)
        assigns = _or(self, [_and(self, [unblocked, unblocked_reach]),
                             _and(self, [_not(unblocked), normal_reach])])
        self.model.add(sum(row.values()) == self._times(amount, assigns, amount_of(s)))
        self._zero_unless(sum(creatures), _not(unblocked))
        if not _tramples(s):
            self._zero_unless(sum(row[(s.id, t)] for t in beyond), unblocked)
        return unblocked

    def _mode_reach(self, s: Creature, available) -> tuple[Expr, Expr]:
        """Whether a Thorn has something to assign to normally (its blockers, and past them with
        trample) and as though unblocked (what it attacks, with trample over planeswalkers also its
        controller), given ``available`` for each recipient."""
        targets = self.targets(s)
        return (_or(self, [available(t) for t, r in targets if r == CREATURE or _tramples(s)]),
                _or(self, [available(t) for t, r in targets if r != CREATURE]))

    def first_step_trample(self, cells: Mapping[Cell, Expr]) -> None:
        """702.19b-c for the first step: nothing past a blocker that is not assigned lethal damage by
        the active player, who announces first (510.1, 510.1e): damage a defending player divides
        later under banding (702.22j) does not count, even when both play against the decider. (A
        trampler another player divides has only its blockers to damage.)"""
        lethal: dict[ObjectId, Expr] = {}
        active = self.board.active_player
        own = frozenset(c.id for c in self.combatants if self.chooser[c.id] == active)
        for s in self.sources(Step.FIRST_STRIKE):
            if s.attacking is not None:
                self._trample(s, cells, present=lambda x: 1, incoming=lambda x: _sum_to(cells, x, own),
                              pw_before=lambda w: 0, unblocked=self.first_modes.get(s.id, 0), lethal=lethal)

    # --- a scenario -------------------------------------------------------------------------------
    def scenario(self, first: Mapping[Cell, Expr], free: set[ObjectId],
                 policies: Mapping[ObjectId, Sequence[Mapping[Cell, int] | None]]) -> Scenario:
        """Build the state after ``first`` (first-step damage of every source), the second step with
        ``free`` players' damage as variables and each other player's damage following each of its
        ``policies`` (None: every creature puts all its damage on its first available recipient;
        a mapping: that assignment where it is legal, else the default; for a player with attackers
        unit by unit (:meth:`policy_units`), each unit's part where it is legal, trample's lethal damage
        included, for a player who only blocks each creature's part on its own), and the objective parts.
        """
        return self._scenario_on(_State(self, first), first, free, policies)

    def scenarios(self, first: Mapping[Cell, Expr], free: set[ObjectId],
                  policies: Mapping[ObjectId, Sequence[Mapping[Cell, int] | None]]) -> list[tuple[Expr, Scenario]]:
        """:meth:`scenario`, with each scenario's indicator; several when ``first`` leaves to the
        model's own variables (the active player's first step, against a known reply of the other
        side's) which :attr:`unstable` creatures survive, and so who divides in the regular step
        (702.22j-k): then one per case, each built in the view that case leaves, on its own state,
        with the indicator that the case happens (exactly one does). Only the caller's use of each
        scenario's value depends on its indicator: every case's regular step must stay feasible
        whatever the first step does, as every regular step is (each source can always put all its
        damage on one recipient, or has none to assign)."""
        st = _State(self, first)
        if self.case is not None or all(_is_const(st.dead[k]) for k in self.unstable):
            return [(1, self._scenario_on(st, first, free, policies))]
        out: list[tuple[Expr, Scenario]] = []
        for gone in self.cases():
            if out:
                st = _State(self, first)
            happens = _and(self, [st.dead[k] if k in gone else _not(st.dead[k]) for k in sorted(self.unstable)])
            if not (_is_const(happens) and happens == 0):
                out.append((happens, self._in_view(gone, st, first, free, policies)))
        return out

    def _scenario_on(self, st: "_State", first: Mapping[Cell, Expr], free: set[ObjectId],
                     policies: Mapping[ObjectId, Sequence[Mapping[Cell, int] | None]]) -> Scenario:
        gone: frozenset[ObjectId] = frozenset()
        if self.unstable:  # the regular step as the first-strike step leaves it (702.22j-k)
            dead = {k: st.dead[k] for k in self.unstable}
            for k, v in dead.items():
                if not _is_const(v):  # the active player's first step decides: it must leave the case
                    if self.case is None:
                        raise ValueError("internal error: a banding divider is left to the model's first step")
                    self.model.add(v == int(k in self.case))
            gone = frozenset(k for k, v in dead.items() if (v if _is_const(v) else k in self.case))
        return self._in_view(gone, st, first, free, policies)

    def _in_view(self, gone: frozenset[ObjectId], st: "_State", first: Mapping[Cell, Expr], free: set[ObjectId],
                 policies: Mapping[ObjectId, Sequence[Mapping[Cell, int] | None]]) -> Scenario:
        self._use_view(gone)
        try:
            return self._scenario(st, first, free, policies, gone)
        finally:
            self._use_view(frozenset())

    def add_policy(self, sc: Scenario, player: ObjectId, policy: Mapping[Cell, int]) -> PartKey:
        """One more copy of ``player``'s second step in ``sc``, following ``policy`` (as in
        :meth:`scenario`), so that a refinement extends its model instead of building it again.
        Returns the key of the copy's objective part."""
        st = sc.state
        assert st is not None
        j = sum(1 for key in sc.parts if not isinstance(key, str) and key[0] == player)
        self._use_view(sc.gone)
        try:
            mine = [s for s in self.sources(Step.REGULAR) if self.chooser[s.id] == player]
            legal = self._policy_legal(player, policy, st) if any(s.attacking is not None for s in mine) else {}
            cells: dict[Cell, Expr] = {}
            for s in mine:
                cells.update(self._policy_cells(s, self.targets(s), st.effective_power(s), st, policy,
                                                legal.get(s.id)))
            sc.policy_cells[(player, j)] = cells
            sc.parts[(player, j)] = self._part(st, player, cells, sc.active_cells)
        finally:
            self._use_view(frozenset())
        return (player, j)

    def _part(self, st: "_State", player: ObjectId, cells: Mapping[Cell, Expr],
              active_cells: Mapping[Cell, Expr]) -> dict[str, Term]:
        """``player``'s objective terms from its copy's ``cells``, seeing the damage it does not
        divide that decides fates it scores: the active player's, to creatures whose damage both
        players divide, and every source's with a single recipient (see :meth:`passive`)."""
        b = self.board
        merged: dict[Cell, Expr] = {}
        if player != b.active_player:
            merged.update({cell: v for cell, v in active_cells.items() if cell[1] in self.coupled_fates})
        for s in self.sources(Step.REGULAR):
            if self.passive(s):
                t = self.targets(s)[0][0]
                if isinstance(b.get(t), Creature) and self.damaged_by(t) == player:
                    merged[(s.id, t)] = st.effective_power(s)
        terms = self._terms(st, {**merged, **cells} if merged else cells, player)
        name = self.loss_objective(player)
        if player == self.coupled_gain and (self.two_steps or self.any_coupled) and name in terms:
            # its gain is its reply's (510.1): whether it loses is scored with its division (the one-step
            # solve without damage both players divide takes each total gain in turn instead)
            lost = self._lost(st, active_cells, player, self._coupled_gain_in(st, cells))
            terms[name].add(-1 if player == self.decider else 1, lost)
        return terms

    def _scenario(self, st: "_State", first: Mapping[Cell, Expr], free: set[ObjectId],
                  policies: Mapping[ObjectId, Sequence[Mapping[Cell, int] | None]],
                  gone: frozenset[ObjectId]) -> Scenario:
        b = self.board
        joint: dict[tuple[ObjectId, int], dict[ObjectId, Expr]] = {}
        for player, plist in policies.items():
            if player not in free and any(self.chooser[s.id] == player and s.attacking is not None
                                          for s in self.sources(Step.REGULAR)):
                joint.update({(player, j): self._policy_legal(player, policy, st)
                              for j, policy in enumerate(plist) if policy is not None})
        copies: dict[PartKey, dict[Cell, Expr]] = {}
        for p in b.players:
            if p.id in free:
                copies[p.id] = {}
            else:
                copies.update({(p.id, j): {} for j in range(len(policies.get(p.id, [None])))})
        modes: dict[ObjectId, Expr] = {}
        for s in self.sources(Step.REGULAR):
            targets = self.targets(s)
            power = st.effective_power(s)
            chooser = self.chooser[s.id]
            if chooser in free:
                row = self._free_cells(s, targets, power, st, modes)
                copies[chooser].update(row)
                if self.two_modes(s):  # what it deals may be less than its power: one mode may assign nothing
                    st.second_total[s.id] = sum(row.values())
            else:
                for j, policy in enumerate(policies.get(chooser, [None])):
                    copies[(chooser, j)].update(self._policy_cells(s, targets, power, st, policy,
                                                                   joint.get((chooser, j), {}).get(s.id)))
        # trample in the second step (attackers are always free)
        attacker_cells = copies.get(b.active_player, {})
        lethal: dict[ObjectId, Expr] = {}
        for s in self.sources(Step.REGULAR):
            if s.attacking is not None and self.chooser[s.id] in free:
                self._trample(s, attacker_cells, present=st.present,
                              incoming=lambda x: st.incoming[x] + _sum_to(attacker_cells, x),
                              pw_before=lambda w: st.pw_damage[w], unblocked=modes.get(s.id, 0), lethal=lethal)
        active_cells = copies.get(b.active_player, {})
        parts: dict[PartKey, dict[str, Term]] = {
            key: self._part(st, key if isinstance(key, str) else key[0], cells, active_cells)
            for key, cells in copies.items()}
        all_cells = {(Step.FIRST_STRIKE, s, t): v for (s, t), v in first.items()}
        for key, cells in copies.items():
            if isinstance(key, str):
                all_cells.update({(Step.REGULAR, s, t): v for (s, t), v in cells.items()})
        policy_cells = {k: v for k, v in copies.items() if not isinstance(k, str)}
        return Scenario(all_cells, policy_cells, parts, st, active_cells, gone)  # type: ignore[arg-type]

    def lost_in(self, sc: Scenario, q: ObjectId, gained: int = 0) -> Expr:
        """Whether player ``q`` loses in scenario ``sc`` (704.5a, 704.5c, 704.6c), its coupled lifelink
        blockers gaining ``gained`` life if it is :attr:`coupled_gain`'s player (510.2: gain and
        damage are simultaneous)."""
        assert sc.state is not None
        return self._lost(sc.state, sc.active_cells, q, gained)

    def _lost(self, st: "_State", active_cells: Mapping[Cell, Expr], q: ObjectId, gained: Expr = 0) -> Expr:
        cells = self.dealt_cells(active_cells, st.shields_left)
        return st.player_lost(q, cells, st.player_loss(q, cells), st.player_poison(q, cells), second=True,
                              coupled_gain=gained)

    def coupled_gain_expr(self, sc: Scenario) -> Expr:
        """The life the coupled lifelink blockers gain in ``sc``'s free cells: their damage dealt."""
        assert sc.state is not None
        return self._coupled_gain_in(sc.state, {(s, t): v for (step, s, t), v in sc.cells.items() if step is Step.REGULAR})

    def _coupled_gain_in(self, st: "_State", cells: Mapping[Cell, Expr]) -> Expr:
        """The damage the coupled lifelink blockers deal with their assignment in ``cells``."""
        return sum((self.dealt((c.id, t), cells[(c.id, t)], st.shields_left) for c in self.coupled_sources()
                    for t, _ in self.targets(c)), 0)

    def _free_cells(self, s: Creature, targets: list[tuple[ObjectId, str]], power: Expr,
                    st: "_State", modes: dict[ObjectId, Expr]) -> dict[Cell, Expr]:
        if len(targets) == 1 and not self.two_modes(s):
            return {(s.id, targets[0][0]): power}  # effective power is 0 when it is not available
        row = {}
        for t, _ in targets:
            v = self._int(0, amount_of(s), f"x2[{s.id},{t}]")
            self._zero_unless(v, st.available(t))
            row[(s.id, t)] = v
        if self.two_modes(s):
            modes[s.id] = self._two_mode_total(s, row, power, st.available)
        else:
            self.model.add(sum(row.values()) == power)  # 510.1a: all of it (none if nothing to assign to)
        return row

    def policy_units(self, player: ObjectId) -> list[list[Creature]]:
        """``player``'s regular-step sources in groups whose assignments' legality never depends on
        another group's (connected components): another creature's damage counts only toward a
        trampler's lethal damage to its blockers (702.19b) and toward the loyalty of the planeswalker
        a creature with trample over planeswalkers attacks (702.19c), so sources are linked by those
        creatures and planeswalkers when both may damage them."""
        if player not in self._units:
            self._units[player] = self._find_units(player)
        return self._units[player]

    def _find_units(self, player: ObjectId) -> list[list[Creature]]:
        mine = [s for s in self.sources(Step.REGULAR) if self.chooser[s.id] == player]
        shared: set[ObjectId] = set()  # what other damage can make an assignment legal or not
        for s in mine:
            if s.attacking is not None and _tramples(s):
                shared.update(t for t, r in self.targets(s) if r == CREATURE)
            if any(r == CONTROLLER for _, r in self.targets(s)):
                shared.add(s.attacking)
        links = {s.id: [t for t, _ in self.targets(s) if t in shared] for s in mine}
        group: dict[ObjectId, int] = {}  # linking creature or planeswalker -> unit index
        units: list[list[Creature]] = []
        for s in mine:
            found = sorted({group[t] for t in links[s.id] if t in group})
            if not found:
                units.append([s])
                k = len(units) - 1
            else:
                k = found[0]
                units[k].append(s)
                for other in found[1:]:  # merge the later units into the first
                    units[k].extend(units[other])
                    for t, u in group.items():
                        if u == other:
                            group[t] = k
                    units[other] = []
            for t in links[s.id]:
                group[t] = k
        order = {s.id: i for i, s in enumerate(mine)}
        return [sorted(u, key=lambda c: order[c.id]) for u in units if u]

    def _policy_legal(self, player: ObjectId, policy: Mapping[Cell, int], st: "_State") -> dict[ObjectId, Expr]:
        """For each of ``player``'s regular-step sources, whether its unit's part of ``policy`` (see
        :meth:`policy_units`) is legal on the state ``st``: a policy is followed unit by unit, each
        unit's part where it is legal, else that unit's default."""
        out: dict[ObjectId, Expr] = {}
        for unit in self.policy_units(player):
            legal = self._unit_legal(unit, policy, st)
            out.update((s.id, legal) for s in unit)
        return out

    def _unit_legal(self, unit: list[Creature], policy: Mapping[Cell, int], st: "_State") -> Expr:
        """Whether the part of a second-step ``policy`` of the sources ``unit`` (one of
        :meth:`policy_units`) is legal on the state ``st``: all of each creature's damage to recipients
        still there (510.1a-c), Thorn's all-or-nothing, and trample's lethal damage to every blocker
        still there (702.19b-c) counting the unit's damage, which is all of the player's damage to
        those blockers and planeswalkers."""
        dealt_to: dict[ObjectId, Expr] = {}
        deathtouch: dict[ObjectId, list[Expr]] = {}
        for s in unit:
            targets = self.targets(s)
            for t, _ in targets:
                n = st.effective_power(s) if self.passive(s) else policy.get((s.id, t), 0)
                dealt_to[t] = dealt_to.get(t, 0) + n
                if Keyword.DEATHTOUCH in s.keywords:
                    deathtouch.setdefault(t, []).append(_at_least(self, n, 1))
        parts: list[Expr] = []
        for s in unit:
            targets = self.targets(s)
            if self.passive(s):
                continue
            wanted = {t: policy.get((s.id, t), 0) for t, _ in targets}
            if self.two_modes(s) and not any(wanted.values()):
                # Thorn assigning nothing: legal in a mode with nothing to assign to (as in _two_mode_total)
                normal_reach, unblocked_reach = self._mode_reach(s, st.available)
                parts.append(_or(self, [_equals(self, st.effective_power(s), 0), _not(normal_reach),
                                        _not(unblocked_reach)]))
                continue
            parts.append(_equals(self, st.effective_power(s), sum(wanted.values())))
            parts += [st.available(t) for t, n in wanted.items() if n > 0]
            on_creatures = sum(wanted[t] for t, r in targets if r == CREATURE)
            beyond = sum(wanted[t] for t, r in targets if r != CREATURE)
            if not beyond or s.attacking is None:
                continue
            if not _tramples(s):
                if on_creatures:
                    return 0  # a split is never legal without trample (Thorn: never a split)
                continue
            unblocked = self.two_modes(s) and not on_creatures  # as though unblocked: no blocker to kill first
            for blocker_id, route in targets:
                if route == CREATURE and not unblocked:
                    blocker = self.board.creature(blocker_id)
                    parts.append(_or(self, [_not(st.present(blocker_id)), _at_least(
                        self, st.incoming[blocker_id] + dealt_to[blocker_id], blocker.toughness - blocker.damage)]
                        + deathtouch.get(blocker_id, [])))
            for t, route in targets:  # 702.19c: the planeswalker's loyalty first, either way
                w = self.board.get(s.attacking)
                if route == CONTROLLER and wanted[t] and not w.removed_from_combat:
                    parts.append(_at_least(self, st.pw_damage[s.attacking] + dealt_to.get(s.attacking, 0), w.loyalty))
        return _and(self, parts)

    def _policy_cells(self, s: Creature, targets: list[tuple[ObjectId, str]], power: Expr,
                      st: "_State", policy: Mapping[Cell, int] | None,
                      legal: Expr | None = None) -> dict[Cell, Expr]:
        if self.passive(s):
            return {(s.id, targets[0][0]): power}
        default: dict[Cell, Expr] = {}
        none_before: Expr = 1
        for t, _ in targets:
            first_here = _and(self, [none_before, st.available(t)])
            default[(s.id, t)] = self._times(power, first_here, amount_of(s))
            none_before = _and(self, [none_before, _not(st.available(t))])
        if policy is None:
            return default
        wanted = {(s.id, t): policy.get((s.id, t), 0) for t, _ in targets}
        if legal is None:
            total = sum(wanted.values())
            legal = _and(self, [_equals(self, power, total)]
                         + [st.available(t) for (_, t), n in wanted.items() if n > 0])
        if _is_const(legal):
            return wanted if legal else default
        out = {}
        for key in wanted:
            v = self._int(0, amount_of(s), f"p[{s.id},{key[1]}]")
            self.model.add(v == wanted[key]).only_enforce_if(legal)
            self.model.add(v == default[key]).only_enforce_if(legal.Not())
            out[key] = v
        return out

    def _trample(self, s: Creature, cells: Mapping[Cell, Expr], present, incoming, pw_before,
                 unblocked: Expr, lethal: dict[ObjectId, Expr]) -> None:
        """Damage past the blockers only once each blocker still there is assigned lethal damage,
        counting damage already marked and every creature's damage this step, with any deathtouch
        damage lethal (702.19b, 702.2c); to the controller only once the planeswalker is assigned
        its loyalty (702.19c, 702.19e). ``lethal``: each blocker's lethal indicator, shared by the
        tramplers of one step (the same ``cells``)."""
        targets = self.targets(s)
        past = [cells[(s.id, t)] for t, r in targets if r != CREATURE and (s.id, t) in cells]
        if not past or all(_is_const(p) and p == 0 for p in past):
            return
        past_total = linear((1, p) for p in past)
        for blocker_id, route in targets:
            if route == CREATURE:
                if blocker_id not in lethal:
                    blocker = self.board.creature(blocker_id)
                    lethal[blocker_id] = _or(self, [
                        _at_least(self, incoming(blocker_id), blocker.toughness - blocker.damage),
                        _dt(self, cells, blocker_id)])
                self._zero_unless(past_total, _or(self, [unblocked, _not(present(blocker_id)), lethal[blocker_id]]))
        for t, r in targets:
            if r == CONTROLLER and (s.id, t) in cells:
                w = self.board.get(s.attacking)
                if not w.removed_from_combat:  # a planeswalker that left needs nothing (702.19e)
                    reached = _at_least(self, pw_before(s.attacking) + _sum_to(cells, s.attacking), w.loyalty)
                    self._zero_unless(cells[(s.id, t)], reached)

    # --- damage dealt -----------------------------------------------------------------------------
    def dealt(self, cell: Cell, x: Expr, shields_left: Mapping[int, Expr] | None = None,
              first: bool = False) -> Expr:
        """Damage dealt by an assignment of ``x`` in ``cell`` (615, 614, 616.1; see :class:`DealtRule`):
        in the first-strike step (``first``), or in the regular step after the first-strike step left
        its shields at ``shields_left``."""
        rule = self._dealt[cell]
        least = self.least_first.get(cell, True) if first and self.two_steps else self.least[cell]
        if shields_left and rule.shields and rule.shields[0] in shields_left:
            left = shields_left[rule.shields[0]]  # the one shield on this damage (see unsupported)
            if not _is_const(left):
                return self._dealt_past(cell, x, left, least)
            rule = replace(rule, shield=left)
        if _is_const(x) or rule.prevented:
            return rule.apply(x, least) if _is_const(x) else 0
        if rule.identity:
            return x
        hi = rule.factor * (max(amount_of(self.board.creature(cell[0])), 0) + rule.added)
        if not rule.shield and not rule.added:
            return rule.factor * x
        v = self._int(0, hi, "dealt")
        if least:  # shields, then doublers, then adders
            passes = _at_least(self, x, rule.shield + 1)
            self.model.add(v == rule.factor * (x - rule.shield) + rule.added).only_enforce_if(passes)
            self.model.add(v == 0).only_enforce_if(_not(passes))
        else:  # adders, then doublers, then shields
            self.model.add_max_equality(v, [rule.factor * x + rule.factor * rule.added * _at_least(self, x, 1)
                                            - rule.shield, 0])
        return v

    def _dealt_past(self, cell: Cell, x: Expr, left: Expr, least: bool) -> Expr:
        """:meth:`dealt` through a shield with ``left`` (a variable) still to prevent."""
        rule = self._dealt[cell]
        hi = rule.factor * (max(amount_of(self.board.creature(cell[0])), 0) + rule.added)
        v = self._int(0, hi, "dealt")
        if least:  # the shield, then doublers, then adders
            passes = _at_least(self, x - left, 1)
            self.model.add(v == rule.factor * (x - left) + rule.added).only_enforce_if(passes)
            self.model.add(v == 0).only_enforce_if(_not(passes))
        else:  # adders, then doublers, then the shield
            self.model.add_max_equality(v, [rule.factor * x + rule.factor * rule.added * _at_least(self, x, 1)
                                            - left, 0])
        return v

    def shield_used(self, cell: Cell, x: Expr, dealt: Expr) -> Expr:
        """How much of its one shield (615.7) first-strike damage ``x`` in ``cell`` uses, dealing ``dealt``:
        all that reaches it, up to its amount (more with doublers and adders applied first)."""
        rule = self._dealt[cell]
        if not rule.ordered:
            return x - dealt
        if self.least_first[cell]:
            return self._min(x, rule.shield)
        return self._min(rule.factor * x + rule.factor * rule.added * _at_least(self, x, 1), rule.shield)

    def dealt_cells(self, cells: Mapping[Cell, Expr], shields_left: Mapping[int, Expr] | None = None,
                    first: bool = False) -> dict[Cell, Expr]:
        """Damage dealt in each cell of one step's assignments (see :meth:`dealt`)."""
        if self._plain:  # no effect or protection changes any damage: dealt is assigned
            return cells if isinstance(cells, _Indexed) else _Indexed(cells)
        out: dict[Cell, Expr] = {}
        pools: dict[ObjectId, list[tuple[Cell, Expr]]] = {}
        for cell, x in cells.items():
            if cell[1] in self._pooled and self._dealt[cell].shield:
                pools.setdefault(cell[1], []).append((cell, x))
            else:
                out[cell] = self.dealt(cell, x, shields_left, first)
        for target, pool in pools.items():
            out.update(self._pooled_dealt(target, pool, shields_left))
        return _Indexed(out)

    def _pooled_dealt(self, target: ObjectId, pool: list[tuple[Cell, Expr]],
                      shields_left: Mapping[int, Expr] | None = None) -> dict[Cell, Expr]:
        """615.7 with several sources at once: the shields prevent min(shields, total) in all, taken
        from the sources in any way (see :meth:`_find_pooled`); each cell deals at most what it
        assigns, and together they deal what the shields leave."""
        rule = self._dealt[pool[0][0]]
        shield: Expr = rule.shield
        if shields_left and rule.shields[0] in shields_left:  # one shield (see unsupported)
            shield = shields_left[rule.shields[0]]
        total = sum(x for _, x in pool)
        if all(_is_const(x) for _, x in pool) and _is_const(shield):
            left, out = max(0, total - shield), {}
            for cell, x in pool:  # any split: the first cells keep their damage
                out[cell] = min(x, left)
                left -= out[cell]
            return out
        hi = sum(max(amount_of(self.board.creature(cell[0])), 0) for cell, _ in pool)
        dealt_total = self._int(0, hi, f"pooled[{target}]")
        self.model.add_max_equality(dealt_total, [total - shield, 0])
        out = {}
        for cell, x in pool:
            v = self._int(0, max(amount_of(self.board.creature(cell[0])), 0), "dealt")
            self.model.add(v <= x)
            out[cell] = v
        self.model.add(sum(out.values()) == dealt_total)
        return out

    def identity(self, cell: Cell) -> bool:
        return self._dealt[cell].identity

    def shield_amount(self, cell: Cell) -> int:
        """How much damage the shield on ``cell``'s damage can prevent in all (615.7; 0 without one)."""
        return self._dealt[cell].shield

    # --- objective parts --------------------------------------------------------------------------
    def _terms(self, st: "_State", cells: Mapping[Cell, Expr], player: ObjectId) -> dict[str, Term]:
        """The objective terms decided by ``player``'s second-step ``cells`` (and, for the active
        player, everything about players, planeswalkers and battles)."""
        b = self.board
        cells = self.dealt_cells(cells, st.shields_left)
        terms = {name: Term() for name in self.objective}
        active = player == b.active_player
        lost: dict[ObjectId, Expr] = {}
        loss: dict[ObjectId, Expr] = {}
        poison: dict[ObjectId, Expr] = {}
        multiplayer = len(b.players) >= 3
        if active:  # only the active player's creatures damage players
            for q in b.players:
                if q.id != b.active_player:
                    loss[q.id], poison[q.id] = st.player_loss(q.id, cells), st.player_poison(q.id, cells)
                    if (self.loss_objective(q.id) in terms and q.id != self.coupled_gain) or multiplayer:
                        lost[q.id] = st.player_lost(q.id, cells, loss[q.id], poison[q.id], second=True)
        for c in self.combatants:
            if self.damaged_by(c.id) != player:
                continue
            gone = st.final_death(c, cells)
            if multiplayer and c.controller in lost:  # leaves with its controller (800.4a)
                gone = _or(self, [gone, lost[c.controller]])
            elif c.controller == player and player in self.left:
                gone = 1
            mine = c.controller == self.decider
            if "kills" in terms and not mine:
                terms["kills"].add(1, gone)
            if "survivors" in terms and mine:
                terms["survivors"].add(-1, gone)
            if "value" in terms:
                terms["value"].add(-c.value if mine else c.value, gone)
        if "life_gained" in terms:
            terms["life_gained"].add(1, st.gain_in_part(self.decider, player, cells))
        if not active:
            return terms
        if "survivors" in terms:  # the deaths above count down from every creature of the decider's
            terms["survivors"].add(sum(1 for c in self.combatants if c.controller == self.decider), 1)
        if "alive" in terms:
            terms["alive"].add(1, 1)  # less the decider's loss, if it is a defending player
        for q in b.players:
            if q.id == self.decider:
                if "alive" in terms and q.id in lost:
                    terms["alive"].add(-1, lost[q.id])
                continue
            if "player_damage" in terms:
                terms["player_damage"].add(1, loss.get(q.id, 0))  # the active player takes no damage
            if "poison" in terms:
                terms["poison"].add(1, poison.get(q.id, 0))
            if "lethal" in terms and q.id in lost:
                terms["lethal"].add(1, lost[q.id])
        if "loyalty" in terms:
            for w in b.planeswalkers:
                if w.controller != self.decider:
                    terms["loyalty"].add(1, self._min(st.pw_damage.get(w.id, 0) + _sum_to(cells, w.id), w.loyalty))
        if "defense" in terms:
            for bt in b.battles:
                if bt.protector != self.decider:
                    terms["defense"].add(1, self._min(st.pw_damage.get(bt.id, 0) + _sum_to(cells, bt.id), bt.defense))
        return terms

    # --- small builders ---------------------------------------------------------------------------
    def _int(self, lo: int, hi: int, name: str) -> cp_model.IntVar:
        v = self.model.new_int_var(lo, hi, f"{name}#{next(self._ids)}")
        self._domains[v.index] = (lo, hi)
        return v

    def _bool(self, name: str) -> cp_model.IntVar:
        v = self.model.new_bool_var(f"{name}#{next(self._ids)}")
        self._domains[v.index] = (0, 1)
        return v

    def bounds(self, expr: Expr) -> tuple[int, int] | None:
        """The least and greatest value of ``expr`` over its variables' domains (None if unknown)."""
        if _is_const(expr):
            return expr, expr
        if type(expr) is cp_model.IntVar:
            return self._domains.get(expr.index)
        flat = cp_model_helper.FlatIntExpr(expr)
        lo = hi = flat.offset
        for v, c in zip(flat.vars, flat.coeffs):
            d = self._domains.get(v.index)
            if d is None:
                return None
            lo, hi = (lo + c * d[0], hi + c * d[1]) if c > 0 else (lo + c * d[1], hi + c * d[0])
        return lo, hi

    def _zero_unless(self, expr: Expr, indicator: Expr) -> None:
        """Require ``expr == 0`` whenever ``indicator`` is false."""
        if _is_const(indicator):
            if indicator == 0 and not (_is_const(expr) and expr == 0):
                self.model.add(expr == 0)
            return
        if not (_is_const(expr) and expr == 0):
            self.model.add(expr == 0).only_enforce_if(indicator.Not())

    def _times(self, amount: Expr, indicator: Expr, hi: int) -> Expr:
        """``amount`` if ``indicator`` else 0 (``amount`` in [0, hi])."""
        if _is_const(indicator):
            return amount if indicator else 0
        if _is_const(amount) and amount == 0:
            return 0
        v = self._int(0, max(hi, 0), "times")
        self.model.add(v == amount).only_enforce_if(indicator)
        self.model.add(v == 0).only_enforce_if(indicator.Not())
        return v

    def _min(self, expr: Expr, cap: int) -> Expr:
        if _is_const(expr):
            return min(expr, cap)
        v = self._int(0, cap, "min")
        self.model.add_min_equality(v, [expr, cap])
        return v


# --- indicators, exact in both directions ---------------------------------------------------------

def _at_least(cm: CombatModel, expr: Expr, bound: int) -> Expr:
    """An indicator equal to ``expr >= bound``."""
    if isinstance(expr, int):
        return int(expr >= bound)
    known = cm.bounds(expr)
    if known is not None and (known[0] >= bound or known[1] < bound):
        return int(known[0] >= bound)  # decided by the domains alone
    v = cm._bool("ge")
    cm.model.add(expr >= bound).only_enforce_if(v)
    cm.model.add(expr <= bound - 1).only_enforce_if(v.Not())
    return v


def _equals(cm: CombatModel, expr: Expr, value: int) -> Expr:
    if _is_const(expr):
        return int(expr == value)
    return _and(cm, [_at_least(cm, expr, value), _not(_at_least(cm, expr, value + 1))])


def _not(x: Expr) -> Expr:
    return 1 - x if _is_const(x) else x.Not()


def _and(cm: CombatModel, items: list[Expr]) -> Expr:
    return _fold(cm, items, absorbing=0)


def _or(cm: CombatModel, items: list[Expr]) -> Expr:
    return _fold(cm, items, absorbing=1)


def _fold(cm: CombatModel, items: list[Expr], absorbing: int) -> Expr:
    """AND (``absorbing`` 0: the minimum) or OR (1: the maximum) of indicators, folding constants."""
    live = []
    for i in items:
        if isinstance(i, int):
            if i == absorbing:
                return absorbing
        else:
            live.append(i)
    if not live:
        return 1 - absorbing
    if len(live) == 1:
        return live[0]
    v = cm._bool("or" if absorbing else "and")
    (cm.model.add_max_equality if absorbing else cm.model.add_min_equality)(v, live)
    return v


class _Indexed(dict):
    """Cells that are no longer changed, indexed by recipient (sums over a recipient are frequent)."""

    def __init__(self, cells: Mapping[Cell, Expr]) -> None:
        super().__init__(cells)
        self.to: dict[ObjectId, list[tuple[ObjectId, Expr]]] = {}
        for (s, t), v in cells.items():
            self.to.setdefault(t, []).append((s, v))


def _sum_to(cells: Mapping[Cell, Expr], target: ObjectId, only: frozenset[ObjectId] | None = None) -> Expr:
    """The damage in ``cells`` to ``target`` (only from the sources in ``only``, if given; none, with
    no such sources on the board)."""
    if only is not None and not only:
        return 0
    if isinstance(cells, _Indexed):
        pairs = cells.to.get(target)
        if not pairs:
            return 0
    else:
        pairs = [(s, v) for (s, t), v in cells.items() if t == target]
    values = [v for _, v in pairs] if only is None else [v for s, v in pairs if s in only]
    if len(values) == 1:
        return values[0]
    return linear((1, v) for v in values)


def _dt(cm: CombatModel, cells: Mapping[Cell, Expr], target: ObjectId) -> Expr:
    """Whether a deathtouch source assigns ``target`` any damage in ``cells`` (702.2c)."""
    dt = _sum_to(cells, target, cm.deathtouch)
    return _at_least(cm, dt, 1)


class _State:
    """The symbolic state after the first damage step and its state-based actions (510.4, 704).

    Without a first-strike step every quantity is a constant and the model stays small.
    """

    def __init__(self, cm: CombatModel, assigned_first: Mapping[Cell, Expr]) -> None:
        self.cm = cm
        first = self.first = cm.dealt_cells(assigned_first, first=True)
        """First-step damage dealt (legality and lethal use what was assigned, 702.19b)."""
        b = cm.board
        self.shields_left: dict[int, Expr] = {}
        """What each shield first-strike damage reached has left for the regular step (615.7): each
        such damage meets one shield (see :meth:`CombatModel.unsupported`)."""
        for (s, t), x in assigned_first.items():
            rule = cm._dealt[(s, t)]
            if rule.shield and not rule.prevented:
                i = rule.shields[0]
                self.shields_left[i] = self.shields_left.get(i, rule.shield) - cm.shield_used((s, t), x, first[(s, t)])
        self.incoming: dict[ObjectId, Expr] = {c.id: _sum_to(first, c.id) for c in cm.combatants}
        self.counters: dict[ObjectId, Expr] = {
            c.id: _sum_to(first, c.id, cm.counter_sources) for c in cm.combatants}
        self.deathtouched: dict[ObjectId, Expr] = {c.id: _dt(cm, first, c.id) for c in cm.combatants}
        self.dead: dict[ObjectId, Expr] = {c.id: self._death(c, self.incoming[c.id], self.counters[c.id],
                                                             self.deathtouched[c.id]) for c in cm.combatants}
        self.pw_damage: dict[ObjectId, Expr] = {
            o.id: _sum_to(first, o.id) for o in (*b.planeswalkers, *b.battles)}
        self.second_total: dict[ObjectId, Expr] = {}
        """Second-step damage of sources that may deal less than their effective power."""
        self._present: dict[ObjectId, Expr] = {}
        self._available: dict[ObjectId, Expr] = {}
        self._power: dict[ObjectId, Expr] = {}
        self.lost: dict[ObjectId, Expr] = {
            p.id: self.player_lost(p.id, {}, self.player_loss(p.id, {}), self.player_poison(p.id, {}),
                                   second=False) for p in b.players}

    def _death(self, c: Creature, incoming: Expr, counters: Expr, deathtouched: Expr) -> Expr:
        """704.5f-h on totals: counters vs toughness (even if indestructible); marked damage plus
        counters vs toughness, or deathtouch damage (unless indestructible)."""
        if Keyword.INDESTRUCTIBLE in c.keywords:
            return _at_least(self.cm, counters, c.toughness)
        return _or(self.cm, [_at_least(self.cm, incoming, c.toughness - c.damage), deathtouched])

    def present(self, creature_id: ObjectId) -> Expr:
        """A creature still on the battlefield and in the game for the second step."""
        if creature_id not in self._present:
            c = self.cm.board.creature(creature_id)
            # A player who lost leaves with everything they control (800.4a); when only the active
            # player is left, nobody else's creatures or damage remain, so the game being over needs
            # no indicator of its own.
            self._present[creature_id] = _and(self.cm, [_not(self.dead[c.id]), _not(self.lost[c.controller])])
        return self._present[creature_id]

    def available(self, object_id: ObjectId) -> Expr:
        """Whether a recipient can still be dealt damage in the second step (506.4c, 800.4a)."""
        if object_id not in self._available:
            b = self.cm.board
            obj = b.get(object_id)
            if isinstance(obj, Creature):
                value = self.present(object_id)
            elif b.is_player(object_id):
                value = _not(self.lost[object_id])
            else:  # gone at 0 loyalty or defense, or with its controller when it left the game (800.4a);
                # a battle whose protector left stays attacked until combat ends (704.5w), unless that
                # ended the game: the active player's battle, when every other player lost
                size = obj.loyalty if b.is_planeswalker(object_id) else obj.defense
                items = [_not(_at_least(self.cm, self.pw_damage[object_id], size)), _not(self.lost[obj.controller])]
                if obj.controller == b.active_player:
                    items.append(_or(self.cm, [_not(self.lost[p.id]) for p in b.players if p.id != b.active_player]))
                value = _and(self.cm, items)
            self._available[object_id] = value
        return self._available[object_id]

    def effective_power(self, s: Creature) -> Expr:
        """Damage ``s`` assigns in the second step: its power after -1/-1 counters if it is still
        there and has something to assign to (510.1a-d), else 0."""
        if s.id not in self._power:
            cm = self.cm
            power = amount_of(s) - self.counters[s.id]  # -1/-1 counters lower power and toughness alike
            reach = _or(cm, [self.available(t) for t, _ in cm.targets(s)])
            if _is_const(power):
                value = cm._times(max(power, 0), _and(cm, [self.present(s.id), reach]), amount_of(s))
            else:
                value = cm._times(power, _and(cm, [self.present(s.id), reach, _at_least(cm, power, 1)]),
                                  amount_of(s))
            self._power[s.id] = value
        return self._power[s.id]

    def final_death(self, c: Creature, cells: Mapping[Cell, Expr]) -> Expr:
        """Whether ``c`` is gone after the second step dealt ``cells`` (damage dealt)."""
        if isinstance(cells, _Indexed) and c.id not in cells.to:
            return self.dead[c.id]  # nothing more reaches it
        cm = self.cm
        incoming = linear(((1, self.incoming[c.id]), (1, _sum_to(cells, c.id))))
        counters = linear(((1, self.counters[c.id]), (1, _sum_to(cells, c.id, cm.counter_sources))))
        return self._death(c, incoming, counters, _or(cm, [self.deathtouched[c.id], _dt(cm, cells, c.id)]))

    def _to_player(self, q: ObjectId, cells: Mapping[Cell, Expr], infect: bool) -> Expr:
        cm = self.cm
        pick = cm.infect if infect else cm.non_infect
        return _sum_to(self.first, q, pick) + _sum_to(cells, q, pick)

    def player_loss(self, q: ObjectId, cells: Mapping[Cell, Expr]) -> Expr:
        """Combat damage dealt to ``q`` by sources without infect (120.3a)."""
        return self._to_player(q, cells, infect=False)

    def player_poison(self, q: ObjectId, cells: Mapping[Cell, Expr]) -> Expr:
        """Poison from infect (120.3b) and toxic for each step that dealt ``q`` damage (120.3g)."""
        poison = self._to_player(q, cells, infect=True)
        for step_cells in (self.first, cells):
            for (s, t), v in step_cells.items():
                toxic = self.cm.board.creature(s).toxic
                if t == q and toxic:
                    poison = poison + toxic * _at_least(self.cm, v, 1)
        return poison

    def life_gained(self, q: ObjectId, second: bool = True, coupled_gain: Expr = 0,
                    active_dealt: Mapping[Cell, Expr] | None = None) -> Expr:
        """Lifelink (120.3f): each of ``q``'s lifelink sources gains the damage it deals: all of its
        damage in each step it assigns damage in (510.1a), as changed by effects (the encoding takes
        only lifelink sources whose damage dealt does not depend on how it is divided, except those of
        :attr:`CombatModel.coupled_gain`, whose gain the caller gives as ``coupled_gain``, and those
        the active player divides, 702.22k, whose damage dealt is in ``active_dealt``)."""
        cm = self.cm
        gained: Expr = 0
        second_sources = cm.sources(Step.REGULAR) if second else []
        for s in cm.combatants:
            if s.controller == q and Keyword.LIFELINK in s.keywords:
                gained = gained + sum((v for (src, _), v in self.first.items() if src == s.id), 0)
                if s in second_sources:
                    targets = cm.targets(s)
                    if all(cm.identity((s.id, t)) for t, _ in targets):
                        gained = gained + self.second_total.get(s.id, self.effective_power(s))
                    elif cm.chooser[s.id] == cm.board.active_player and len(targets) > 1:
                        assert active_dealt is not None, "the active player's division decides this gain"
                        gained = gained + sum((active_dealt.get((s.id, t), 0) for t, _ in targets), 0)
                    elif q == cm.coupled_gain and len(targets) > 1:
                        continue  # ``coupled_gain``, below
                    else:
                        assert len(targets) == 1 and s.id not in self.second_total
                        gained = gained + cm.dealt((s.id, targets[0][0]), self.effective_power(s), self.shields_left)
        if second and q == cm.coupled_gain:
            gained = gained + coupled_gain
        return gained

    def gain_in_part(self, q: ObjectId, player: ObjectId, dealt: Mapping[Cell, Expr]) -> Expr:
        """The life ``q``'s lifelink sources gain (120.3f) that ``player``'s choices decide: the
        second-step damage they deal where ``player`` divides it (``dealt``: that part's damage
        dealt), and for the active player's part everything from the first step."""
        cm = self.cm
        gained: Expr = 0
        for s in cm.combatants:
            if s.controller != q or Keyword.LIFELINK not in s.keywords:
                continue
            if player == cm.board.active_player:
                gained = gained + sum((v for (src, _), v in self.first.items() if src == s.id), 0)
            if s in cm.sources(Step.REGULAR) and cm.chooser[s.id] == player:
                targets = cm.targets(s)
                if all(cm.identity((s.id, t)) for t, _ in targets):
                    gained = gained + self.second_total.get(s.id, self.effective_power(s))
                else:
                    gained = gained + sum((dealt.get((s.id, t), 0) for t, _ in targets), 0)
        return gained

    def player_lost(self, q: ObjectId, cells: Mapping[Cell, Expr], loss: Expr, poison: Expr,
                    second: bool, coupled_gain: Expr = 0) -> Expr:
        """704.5a, 704.5c, 704.6c on the totals so far (life loss and gain are simultaneous, 510.2);
        ``cells``: the active player's second-step damage dealt."""
        cm = self.cm
        p = cm.board.player(q)
        reasons = [_at_least(cm, loss - self.life_gained(q, second, coupled_gain, cells), p.life),
                   _at_least(cm, poison, 10 - p.poison),
                   int(any(n >= 21 for n in p.commander_damage.values()))]  # lost in the first step,
        # to a commander that may have died in it (a board between the damage steps, 510.4)
        for s in cm.combatants:
            if s.commander:
                me = frozenset((s.id,))
                dealt = _sum_to(self.first, q, me) + _sum_to(cells, q, me)
                reasons.append(_at_least(cm, dealt, 21 - p.commander_damage.get(s.id, 0)))
        return _or(cm, reasons)


def _counters(source: Creature) -> bool:
    """120.3d: damage from a source with wither or infect becomes -1/-1 counters."""
    return Keyword.WITHER in source.keywords or Keyword.INFECT in source.keywords
