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

The model builds on its analysis of the board (:class:`~optimizer.analysis.CombatAnalysis`: who
divides what, what each damage deals), with the constant-folding expressions and indicators of
:mod:`.expressions`. It derives everything from the board itself and shares no code with the rules
layer's checker or brute-force enumerator, which are what the tests hold it against.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from itertools import count
from typing import Mapping, Sequence, Union

from .cp_sat import cp_model, cp_model_helper

from .analysis import CONTROLLER, CREATURE, Cell, CombatAnalysis, amount_of, tramples
from .assignment import Step
from .board import Board, Creature, Keyword, ObjectId
from .expressions import (Expr, Indexed, Term, all_of, any_of, at_least, equals, is_const, linear, negated,
                          sum_to)

PartKey = Union[ObjectId, tuple[ObjectId, int]]
"""A player id, or (player id, policy index) for a player whose second step follows a policy."""


class _Model(cp_model.CpModel):
    """A CP-SAT model without the deprecated camelCase aliases that ``CpModel`` attaches to every new
    instance (about a millisecond each, more than solving a typical board)."""

    def _add_pre_pep8_methods(self) -> None:
        pass


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


class CombatModel(CombatAnalysis):
    """A CP-SAT model of a board's combat damage, scored by ``decider``'s objectives."""

    def __init__(self, board: Board, decider: ObjectId, objective: Sequence[str]) -> None:
        super().__init__(board, decider, objective)
        self.model = _Model()
        self._domains: dict[int, tuple[int, int]] = {}
        """Domain of each variable made by :meth:`new_int` and :meth:`new_bool`, by index."""
        self._ids = count()
        self.first_modes: dict[ObjectId, Expr] = {}
        """For each two-mode first-step source: 1 if it assigns as though unblocked."""
        self.case: frozenset[ObjectId] | None = None
        """When the active player's first step decides which :attr:`unstable` creatures leave: the
        ones this model requires to leave (the solver tries every case)."""
        self.left: frozenset[ObjectId] = frozenset()
        """Players whose own parts score their creatures as gone, as though they lost (800.4a): the
        solver values each :attr:`self_scored` player's part both ways on one-step boards."""

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
                row = {(s.id, t): self.new_int(0, amount_of(s), f"x1[{s.id},{t}]") for t in targets}
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
        unblocked = self.new_bool(f"as_though_unblocked[{s.id}]")
        normal_reach, unblocked_reach = self._mode_reach(s, available)
        assigns = any_of(self, [all_of(self, [unblocked, unblocked_reach]),
                                all_of(self, [negated(unblocked), normal_reach])])
        self.model.add(sum(row.values()) == self._times(amount, assigns, amount_of(s)))
        self._zero_unless(sum(creatures), negated(unblocked))
        if not tramples(s):
            self._zero_unless(sum(row[(s.id, t)] for t in beyond), unblocked)
        return unblocked

    def _mode_reach(self, s: Creature, available) -> tuple[Expr, Expr]:
        """Whether a Thorn has something to assign to normally (its blockers, and past them with
        trample) and as though unblocked (what it attacks, with trample over planeswalkers also its
        controller), given ``available`` for each recipient."""
        targets = self.targets(s)
        return (any_of(self, [available(t) for t, r in targets if r == CREATURE or tramples(s)]),
                any_of(self, [available(t) for t, r in targets if r != CREATURE]))

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
                self._trample(s, cells, present=lambda x: 1, incoming=lambda x: sum_to(cells, x, own),
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
        if self.case is not None or all(is_const(st.dead[k]) for k in self.unstable):
            return [(1, self._scenario_on(st, first, free, policies))]
        out: list[tuple[Expr, Scenario]] = []
        for gone in self.cases():
            if out:
                st = _State(self, first)
            happens = all_of(self, [st.dead[k] if k in gone else negated(st.dead[k]) for k in sorted(self.unstable)])
            if not (is_const(happens) and happens == 0):
                out.append((happens, self._in_view(gone, st, first, free, policies)))
        return out

    def _scenario_on(self, st: "_State", first: Mapping[Cell, Expr], free: set[ObjectId],
                     policies: Mapping[ObjectId, Sequence[Mapping[Cell, int] | None]]) -> Scenario:
        gone: frozenset[ObjectId] = frozenset()
        if self.unstable:  # the regular step as the first-strike step leaves it (702.22j-k)
            dead = {k: st.dead[k] for k in self.unstable}
            for k, v in dead.items():
                if not is_const(v):  # the active player's first step decides: it must leave the case
                    if self.case is None:
                        raise ValueError("internal error: a banding divider is left to the model's first step")
                    self.model.add(v == int(k in self.case))
            gone = frozenset(k for k, v in dead.items() if (v if is_const(v) else k in self.case))
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
                              incoming=lambda x: st.incoming[x] + sum_to(attacker_cells, x),
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
            v = self.new_int(0, amount_of(s), f"x2[{s.id},{t}]")
            self._zero_unless(v, st.available(t))
            row[(s.id, t)] = v
        if self.two_modes(s):
            modes[s.id] = self._two_mode_total(s, row, power, st.available)
        else:
            self.model.add(sum(row.values()) == power)  # 510.1a: all of it (none if nothing to assign to)
        return row

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
                    deathtouch.setdefault(t, []).append(at_least(self, n, 1))
        parts: list[Expr] = []
        for s in unit:
            targets = self.targets(s)
            if self.passive(s):
                continue
            wanted = {t: policy.get((s.id, t), 0) for t, _ in targets}
            if self.two_modes(s) and not any(wanted.values()):
                # Thorn assigning nothing: legal in a mode with nothing to assign to (as in _two_mode_total)
                normal_reach, unblocked_reach = self._mode_reach(s, st.available)
                parts.append(any_of(self, [equals(self, st.effective_power(s), 0), negated(normal_reach),
                                           negated(unblocked_reach)]))
                continue
            parts.append(equals(self, st.effective_power(s), sum(wanted.values())))
            parts += [st.available(t) for t, n in wanted.items() if n > 0]
            on_creatures = sum(wanted[t] for t, r in targets if r == CREATURE)
            beyond = sum(wanted[t] for t, r in targets if r != CREATURE)
            if not beyond or s.attacking is None:
                continue
            if not tramples(s):
                if on_creatures:
                    return 0  # a split is never legal without trample (Thorn: never a split)
                continue
            unblocked = self.two_modes(s) and not on_creatures  # as though unblocked: no blocker to kill first
            for blocker_id, route in targets:
                if route == CREATURE and not unblocked:
                    blocker = self.board.creature(blocker_id)
                    parts.append(any_of(self, [negated(st.present(blocker_id)), at_least(
                        self, st.incoming[blocker_id] + dealt_to[blocker_id], blocker.toughness - blocker.damage)]
                        + deathtouch.get(blocker_id, [])))
            for t, route in targets:  # 702.19c: the planeswalker's loyalty first, either way
                w = self.board.get(s.attacking)
                if route == CONTROLLER and wanted[t] and not w.removed_from_combat:
                    parts.append(at_least(self, st.pw_damage[s.attacking] + dealt_to.get(s.attacking, 0), w.loyalty))
        return all_of(self, parts)

    def _policy_cells(self, s: Creature, targets: list[tuple[ObjectId, str]], power: Expr,
                      st: "_State", policy: Mapping[Cell, int] | None,
                      legal: Expr | None = None) -> dict[Cell, Expr]:
        if self.passive(s):
            return {(s.id, targets[0][0]): power}
        default: dict[Cell, Expr] = {}
        none_before: Expr = 1
        for t, _ in targets:
            first_here = all_of(self, [none_before, st.available(t)])
            default[(s.id, t)] = self._times(power, first_here, amount_of(s))
            none_before = all_of(self, [none_before, negated(st.available(t))])
        if policy is None:
            return default
        wanted = {(s.id, t): policy.get((s.id, t), 0) for t, _ in targets}
        if legal is None:
            total = sum(wanted.values())
            legal = all_of(self, [equals(self, power, total)]
                           + [st.available(t) for (_, t), n in wanted.items() if n > 0])
        if is_const(legal):
            return wanted if legal else default
        out = {}
        for key in wanted:
            v = self.new_int(0, amount_of(s), f"p[{s.id},{key[1]}]")
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
        if not past or all(is_const(p) and p == 0 for p in past):
            return
        past_total = linear((1, p) for p in past)
        for blocker_id, route in targets:
            if route == CREATURE:
                if blocker_id not in lethal:
                    blocker = self.board.creature(blocker_id)
                    lethal[blocker_id] = any_of(self, [
                        at_least(self, incoming(blocker_id), blocker.toughness - blocker.damage),
                        _dt(self, cells, blocker_id)])
                self._zero_unless(past_total, any_of(self, [unblocked, negated(present(blocker_id)),
                                                            lethal[blocker_id]]))
        for t, r in targets:
            if r == CONTROLLER and (s.id, t) in cells:
                w = self.board.get(s.attacking)
                if not w.removed_from_combat:  # a planeswalker that left needs nothing (702.19e)
                    reached = at_least(self, pw_before(s.attacking) + sum_to(cells, s.attacking), w.loyalty)
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
            if not is_const(left):
                return self._dealt_past(cell, x, left, least)
            rule = replace(rule, shield=left)
        if is_const(x) or rule.prevented:
            return rule.apply(x, least) if is_const(x) else 0
        if rule.identity:
            return x
        hi = rule.factor * (max(amount_of(self.board.creature(cell[0])), 0) + rule.added)
        if not rule.shield and not rule.added:
            return rule.factor * x
        v = self.new_int(0, hi, "dealt")
        if least:  # shields, then doublers, then adders
            passes = at_least(self, x, rule.shield + 1)
            self.model.add(v == rule.factor * (x - rule.shield) + rule.added).only_enforce_if(passes)
            self.model.add(v == 0).only_enforce_if(negated(passes))
        else:  # adders, then doublers, then shields
            self.model.add_max_equality(v, [rule.factor * x + rule.factor * rule.added * at_least(self, x, 1)
                                            - rule.shield, 0])
        return v

    def _dealt_past(self, cell: Cell, x: Expr, left: Expr, least: bool) -> Expr:
        """:meth:`dealt` through a shield with ``left`` (a variable) still to prevent."""
        rule = self._dealt[cell]
        hi = rule.factor * (max(amount_of(self.board.creature(cell[0])), 0) + rule.added)
        v = self.new_int(0, hi, "dealt")
        if least:  # the shield, then doublers, then adders
            passes = at_least(self, x - left, 1)
            self.model.add(v == rule.factor * (x - left) + rule.added).only_enforce_if(passes)
            self.model.add(v == 0).only_enforce_if(negated(passes))
        else:  # adders, then doublers, then the shield
            self.model.add_max_equality(v, [rule.factor * x + rule.factor * rule.added * at_least(self, x, 1)
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
        return self._min(rule.factor * x + rule.factor * rule.added * at_least(self, x, 1), rule.shield)

    def dealt_cells(self, cells: Mapping[Cell, Expr], shields_left: Mapping[int, Expr] | None = None,
                    first: bool = False) -> dict[Cell, Expr]:
        """Damage dealt in each cell of one step's assignments (see :meth:`dealt`)."""
        if self._plain:  # no effect or protection changes any damage: dealt is assigned
            return cells if isinstance(cells, Indexed) else Indexed(cells)
        out: dict[Cell, Expr] = {}
        pools: dict[ObjectId, list[tuple[Cell, Expr]]] = {}
        for cell, x in cells.items():
            if cell[1] in self._pooled and self._dealt[cell].shield:
                pools.setdefault(cell[1], []).append((cell, x))
            else:
                out[cell] = self.dealt(cell, x, shields_left, first)
        for target, pool in pools.items():
            out.update(self._pooled_dealt(target, pool, shields_left))
        return Indexed(out)

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
        if all(is_const(x) for _, x in pool) and is_const(shield):
            left, out = max(0, total - shield), {}
            for cell, x in pool:  # any split: the first cells keep their damage
                out[cell] = min(x, left)
                left -= out[cell]
            return out
        hi = sum(max(amount_of(self.board.creature(cell[0])), 0) for cell, _ in pool)
        dealt_total = self.new_int(0, hi, f"pooled[{target}]")
        self.model.add_max_equality(dealt_total, [total - shield, 0])
        out = {}
        for cell, x in pool:
            v = self.new_int(0, max(amount_of(self.board.creature(cell[0])), 0), "dealt")
            self.model.add(v <= x)
            out[cell] = v
        self.model.add(sum(out.values()) == dealt_total)
        return out

    # --- objective parts --------------------------------------------------------------------------
    def scores_regular_step(self, player: ObjectId) -> bool:
        """Whether a player other than the active one may have a term in its part of a scenario
        (:meth:`_part`, :meth:`_terms`): a creature whose fate its regular-step division decides and
        that an objective counts (``kills`` another player's, ``survivors`` the decider's, ``value``
        one with a value), the decider's lifelink gain from damage it divides (``life_gained``), or its
        own loss with its lifelink blockers' gain (:attr:`coupled_gain`). A term that the state folds
        to a constant counts too: False means its division scores nothing whatever the first step."""
        assert player != self.board.active_player, "the active player's part scores players, planeswalkers and battles"
        names = self.objective
        if player == self.coupled_gain:
            return True
        for c in self.combatants:
            if self.damaged_by(c.id) != player:
                continue
            mine = c.controller == self.decider
            if ("kills" in names and not mine) or ("survivors" in names and mine) or ("value" in names and c.value):
                return True
        return "life_gained" in names and any(
            s.controller == self.decider and Keyword.LIFELINK in s.keywords and self.chooser[s.id] == player
            for s in self.sources(Step.REGULAR))

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
                gone = any_of(self, [gone, lost[c.controller]])
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
                    terms["loyalty"].add(1, self._min(st.pw_damage.get(w.id, 0) + sum_to(cells, w.id), w.loyalty))
        if "defense" in terms:
            for bt in b.battles:
                if bt.protector != self.decider:
                    terms["defense"].add(1, self._min(st.pw_damage.get(bt.id, 0) + sum_to(cells, bt.id), bt.defense))
        return terms

    # --- small builders ---------------------------------------------------------------------------
    def new_int(self, lo: int, hi: int, name: str) -> cp_model.IntVar:
        v = self.model.new_int_var(lo, hi, f"{name}#{next(self._ids)}")
        self._domains[v.index] = (lo, hi)
        return v

    def new_bool(self, name: str) -> cp_model.IntVar:
        v = self.model.new_bool_var(f"{name}#{next(self._ids)}")
        self._domains[v.index] = (0, 1)
        return v

    def bounds(self, expr: Expr) -> tuple[int, int] | None:
        """The least and greatest value of ``expr`` over its variables' domains (None if unknown)."""
        if is_const(expr):
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
        if is_const(indicator):
            if indicator == 0 and not (is_const(expr) and expr == 0):
                self.model.add(expr == 0)
            return
        if not (is_const(expr) and expr == 0):
            self.model.add(expr == 0).only_enforce_if(indicator.Not())

    def _times(self, amount: Expr, indicator: Expr, hi: int) -> Expr:
        """``amount`` if ``indicator`` else 0 (``amount`` in [0, hi])."""
        if is_const(indicator):
            return amount if indicator else 0
        if is_const(amount) and amount == 0:
            return 0
        v = self.new_int(0, max(hi, 0), "times")
        self.model.add(v == amount).only_enforce_if(indicator)
        self.model.add(v == 0).only_enforce_if(indicator.Not())
        return v

    def _min(self, expr: Expr, cap: int) -> Expr:
        if is_const(expr):
            return min(expr, cap)
        v = self.new_int(0, cap, "min")
        self.model.add_min_equality(v, [expr, cap])
        return v


def _dt(cm: CombatModel, cells: Mapping[Cell, Expr], target: ObjectId) -> Expr:
    """Whether a deathtouch source assigns ``target`` any damage in ``cells`` (702.2c)."""
    dt = sum_to(cells, target, cm.deathtouch)
    return at_least(cm, dt, 1)


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
            rule = cm.rule((s, t))
            if rule.shield and not rule.prevented:
                i = rule.shields[0]
                self.shields_left[i] = self.shields_left.get(i, rule.shield) - cm.shield_used((s, t), x, first[(s, t)])
        self.incoming: dict[ObjectId, Expr] = {c.id: sum_to(first, c.id) for c in cm.combatants}
        self.counters: dict[ObjectId, Expr] = {
            c.id: sum_to(first, c.id, cm.counter_sources) for c in cm.combatants}
        self.deathtouched: dict[ObjectId, Expr] = {c.id: _dt(cm, first, c.id) for c in cm.combatants}
        self.dead: dict[ObjectId, Expr] = {c.id: self._death(c, self.incoming[c.id], self.counters[c.id],
                                                             self.deathtouched[c.id]) for c in cm.combatants}
        self.pw_damage: dict[ObjectId, Expr] = {
            o.id: sum_to(first, o.id) for o in (*b.planeswalkers, *b.battles)}
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
            return at_least(self.cm, counters, c.toughness)
        return any_of(self.cm, [at_least(self.cm, incoming, c.toughness - c.damage), deathtouched])

    def present(self, creature_id: ObjectId) -> Expr:
        """A creature still on the battlefield and in the game for the second step."""
        if creature_id not in self._present:
            c = self.cm.board.creature(creature_id)
            # A player who lost leaves with everything they control (800.4a); when only the active
            # player is left, nobody else's creatures or damage remain, so the game being over needs
            # no indicator of its own.
            self._present[creature_id] = all_of(self.cm, [negated(self.dead[c.id]), negated(self.lost[c.controller])])
        return self._present[creature_id]

    def available(self, object_id: ObjectId) -> Expr:
        """Whether a recipient can still be dealt damage in the second step (506.4c, 800.4a)."""
        if object_id not in self._available:
            b = self.cm.board
            obj = b.get(object_id)
            if isinstance(obj, Creature):
                value = self.present(object_id)
            elif b.is_player(object_id):
                value = negated(self.lost[object_id])
            else:  # gone at 0 loyalty or defense, or with its controller when it left the game (800.4a);
                # a battle whose protector left stays attacked until combat ends (704.5w), unless that
                # ended the game: the active player's battle, when every other player lost
                size = obj.loyalty if b.is_planeswalker(object_id) else obj.defense
                items = [negated(at_least(self.cm, self.pw_damage[object_id], size)),
                         negated(self.lost[obj.controller])]
                if obj.controller == b.active_player:
                    items.append(any_of(self.cm, [negated(self.lost[p.id]) for p in b.players
                                                  if p.id != b.active_player]))
                value = all_of(self.cm, items)
            self._available[object_id] = value
        return self._available[object_id]

    def effective_power(self, s: Creature) -> Expr:
        """Damage ``s`` assigns in the second step: its power after -1/-1 counters if it is still
        there and has something to assign to (510.1a-d), else 0."""
        if s.id not in self._power:
            cm = self.cm
            power = amount_of(s) - self.counters[s.id]  # -1/-1 counters lower power and toughness alike
            reach = any_of(cm, [self.available(t) for t, _ in cm.targets(s)])
            if is_const(power):
                value = cm._times(max(power, 0), all_of(cm, [self.present(s.id), reach]), amount_of(s))
            else:
                value = cm._times(power, all_of(cm, [self.present(s.id), reach, at_least(cm, power, 1)]),
                                  amount_of(s))
            self._power[s.id] = value
        return self._power[s.id]

    def final_death(self, c: Creature, cells: Mapping[Cell, Expr]) -> Expr:
        """Whether ``c`` is gone after the second step dealt ``cells`` (damage dealt)."""
        if isinstance(cells, Indexed) and c.id not in cells.to:
            return self.dead[c.id]  # nothing more reaches it
        cm = self.cm
        incoming = linear(((1, self.incoming[c.id]), (1, sum_to(cells, c.id))))
        counters = linear(((1, self.counters[c.id]), (1, sum_to(cells, c.id, cm.counter_sources))))
        return self._death(c, incoming, counters, any_of(cm, [self.deathtouched[c.id], _dt(cm, cells, c.id)]))

    def _to_player(self, q: ObjectId, cells: Mapping[Cell, Expr], infect: bool) -> Expr:
        cm = self.cm
        pick = cm.infect if infect else cm.non_infect
        return sum_to(self.first, q, pick) + sum_to(cells, q, pick)

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
                    poison = poison + toxic * at_least(self.cm, v, 1)
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
        reasons = [at_least(cm, loss - self.life_gained(q, second, coupled_gain, cells), p.life),
                   at_least(cm, poison, 10 - p.poison),
                   int(any(n >= 21 for n in p.commander_damage.values()))]  # lost in the first step,
        # to a commander that may have died in it (a board between the damage steps, 510.4)
        for s in cm.combatants:
            if s.commander:
                me = frozenset((s.id,))
                dealt = sum_to(self.first, q, me) + sum_to(cells, q, me)
                reasons.append(at_least(cm, dealt, 21 - p.commander_damage.get(s.id, 0)))
        return any_of(cm, reasons)
