"""What the encoding knows about a board before it builds anything: who divides each creature's
damage and among what (510.1a-d, 702.19, 702.22j-k), which creatures with banding change that when
first-strike damage destroys them, whose choices decide each object's fate, how the effects on each
damage change it (615, 616, 702.16e) and in which order its affected player applies them (616.1);
a player whose lifelink blockers' gain decides whether it loses; and the boards the encoding does
not model (:meth:`CombatAnalysis.unsupported`, which the solver searches instead).

Like the encoding built on it, it derives everything from the board itself and shares no code with
the rules layer's checker or brute-force enumerator.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence

from .assignment import Step
from .board import Board, Creature, EffectKind, Keyword, ObjectId

Cell = tuple[ObjectId, ObjectId]
"""(source creature, recipient)."""

CREATURE, ATTACKED, CONTROLLER = "creature", "attacked", "controller"
MAX_DEALT = 2**40
"""Bound on the damage one creature may deal one recipient for the encoding (doublers grow it fast)."""


def first_striker(c: Creature) -> bool:
    return Keyword.FIRST_STRIKE in c.keywords or Keyword.DOUBLE_STRIKE in c.keywords


def tramples(c: Creature) -> bool:
    return Keyword.TRAMPLE in c.keywords or Keyword.TRAMPLE_OVER_PLANESWALKERS in c.keywords


def amount_of(c: Creature) -> int:
    """510.1a: combat damage equals power, or toughness under a Doran-style effect."""
    return c.toughness if c.assigns_damage_by_toughness else c.power


def _two_modes(c: Creature) -> bool:
    """A blocked creature that may assign its damage as though it weren't blocked (Thorn Elemental)."""
    return c.may_assign_as_though_unblocked and c.blocked


def makes_counters(source: Creature) -> bool:
    """120.3d: damage from a source with wither or infect becomes -1/-1 counters."""
    return Keyword.WITHER in source.keywords or Keyword.INFECT in source.keywords


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
    """A cache of :meth:`CombatAnalysis.damaged_by` in this view."""
    units: dict[ObjectId, list[list[Creature]]] = field(default_factory=dict)
    """A cache of :meth:`CombatAnalysis.policy_units` in this view."""


class CombatAnalysis:
    """A board's combat as the encoding sees it, scored by ``decider``'s objectives: who divides what
    (in each view of which creatures with banding left), what each damage deals, and in which order."""

    def __init__(self, board: Board, decider: ObjectId, objective: Sequence[str]) -> None:
        self.board = board
        self.decider = decider
        self.objective = tuple(objective)
        self.combatants = [c for c in board.creatures if c.attacking is not None or c.blocking]
        self.deathtouch = frozenset(c.id for c in self.combatants if Keyword.DEATHTOUCH in c.keywords)
        """Sources whose damage is lethal in any amount (702.2c)."""
        self.counter_sources = frozenset(c.id for c in self.combatants if makes_counters(c))
        """Sources whose damage to creatures becomes -1/-1 counters (120.3d)."""
        self.infect = frozenset(c.id for c in self.combatants if Keyword.INFECT in c.keywords)
        """Sources whose damage to players becomes poison counters (120.3b)."""
        self.non_infect = frozenset(c.id for c in self.combatants) - self.infect
        self.two_steps = not board.first_strike_step_done and any(first_striker(c) for c in self.combatants)
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
        player makes them lose (800.4a: their creatures leave with them). See
        :attr:`~optimizer.encode.CombatModel.left`."""
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
        if c.blocked and not tramples(c) and not _two_modes(c):
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
        case, which its models then require (:attr:`~optimizer.encode.CombatModel.case`); in a
        two-player game, both: the replies are enumerated, and each model with the active player's
        first step free builds the regular step once per case, under the indicator that it happens
        (see :meth:`~optimizer.encode.CombatModel.scenarios`). Either way each regular step is built
        as it will be. With three or more players, first-strike damage
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
        scored in its own part, as its reply (see :meth:`~optimizer.encode.CombatModel._part`). Where
        the active player divides such a blocker's damage instead (702.22k, perhaps only until the
        first-strike step ends banding), its gain is scored with the active player's damage. None if
        there is no such player."""
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
            if s.attacking is not None and tramples(s):
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

    def has_choice(self, c: Creature) -> bool:
        """Whether ``c`` could ever have two recipients to divide its damage among."""
        return len(self.targets(c)) >= 2

    def rule(self, cell: Cell) -> DealtRule:
        """How ``cell``'s damage is dealt (effects and protection, 615, 616, 702.16e)."""
        return self._dealt[cell]

    def identity(self, cell: Cell) -> bool:
        return self._dealt[cell].identity

    def shield_amount(self, cell: Cell) -> int:
        """How much damage the shield on ``cell``'s damage can prevent in all (615.7; 0 without one)."""
        return self._dealt[cell].shield
