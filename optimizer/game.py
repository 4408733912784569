"""The max-min game over the players' announcements, played with CP-SAT models of the combat
(:mod:`.encode`), the objectives weighted into one lexicographic scalar (or optimized one at a time).

The game (510.1, 510.4): in each damage step the players announce in turn order, the active player
first, each seeing everything announced before; the deciding player maximizes its objectives,
every other player minimizes them. Three cases:

* One damage step. Attackers damage blockers and what they attack, blockers damage attackers, and
  each object's fate depends only on the damage dealt to it, so every player's choice scores a
  separate part of the objective. One CP-SAT model maximizes the deciding player's parts and
  minimizes the others' at once, and that is the game value. (Except when the defending player's
  division of its lifelink blockers' damage changes the life it gains and so whether the active
  player's damage is lethal, and that loss is scored (``lethal`` for the active player, ``alive``
  for a deciding defender): then its best division for each total gain comes first, one model each, and
  the active player's model takes the defender's best reply among those. And when a creature
  takes damage divided by both players, banding: the defender's replies are refined over, as below;
  with two steps too, each regular step on a known first step that way, and so is one where the
  lifelink gain decides the defender's loss (``_defender_replies``). And with three or more
  players, when a defending player divides the damage dealt to its own creatures, banding, which
  leave with it if it loses: its best division is found both ways first, as in ``_self_scored``.)
* Two damage steps, and the players on the other side of the active player (the "responders")
  never have a choice (none of their creatures blocks two attackers), or have none in the first
  step and only regular-step divisions that decide nothing the objectives count (which attackers
  die, when only kills of the defender's creatures and damage count: ``_responders_indifferent``).
  One model holds the first step, the symbolic state after it, and the second step; the active
  player's side chooses both steps' damage in it, the second step's as a function of the first's
  outcome, and the responders play their default (each creature's damage to its first recipient).
* Two damage steps, two players, where the responders have a single first-step reply and the
  active side's first-strike damage cannot reach anything their part depends on (their sources,
  what those may damage, the creatures whose fates it scores, their loss): each side's regular step then scores its own
  part whatever the first step did, and one model optimizes both sides at once, as with one step.
* Two damage steps with responder choices otherwise, where the active side has no first-step choice
  (each of its first strikers has one recipient): that first step's exact value, found as the
  refinement below verifies a master's first step, is the game value; no master model is needed.
* Two damage steps with responder choices otherwise: counterexample-guided refinement. The master model
  optimizes the active side's first-step damage against a growing set of responder first-step
  replies (one copy of the second step per reply) and of responder second-step replies (each a
  fixed assignment, used where legal, else a default). Each master solution is verified exactly by
  a second, inner refinement: a model picks the responders' first-step reply and second step against
  a growing set of the active side's second-step plans (each group of its creatures whose legality
  is linked, by a trampler's blockers or a planeswalker, playing its part where legal: a bound), and
  solving the second step exactly after that reply either meets the bound or yields a new plan; once
  its rounds took more CP-SAT work (deterministic time) than solving the second step after each reply
  left is likely to, it enumerates the replies instead. (With players after the
  responders on the active side, multiplayer only, verification enumerates the responders' distinct
  replies instead: damage beyond a creature's toughness, plus any shield on that damage (615.7), is
  all alike. So it does when the defender's
  first-step reply decides whether a creature with banding survives to divide damage in the regular
  step, 702.22j: each model then builds the regular step with the divider the reply leaves, once per
  case when the active player's first step decides too; and when
  both players divide damage to some creature in the regular step, where each master's plan there
  gets the defender's reply to it.) The worst reply and its
  second-step answer go back to the master, until its bound equals a verified value. Under a time
  limit the best verified line is returned.

The solver re-checks every line with the independent checker (:mod:`optimizer.solver`, with
:func:`~optimizer.result.checked_line`), and the model's value of it must equal the checker's, or
the solve fails loudly instead of answering wrongly.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from .cp_sat import cp_model

from .analysis import Cell, CombatAnalysis, amount_of
from .assignment import Assignment, Step, normalize
from .board import Board, Keyword, ObjectId
from .dealing import DealingChoice, cell_effects, with_prevented
from .encode import CombatModel
from .errors import InvalidRequestError, SolverError
from .expressions import Expr, Term, linear
from .interrupt import stoppable
from .objectives import DEFAULT_OBJECTIVE, shorter_objectives
from .result import checked_line
from .rules import first_step, forced_line, simplest_line
from .settings import DETERMINISTIC_LIMIT, SolverSettings, largest_amount
from .splits import MAX_REPLIES, count_first_step_options, first_step_options

MAX_ROUNDS = 1000
"""Refinement rounds before giving up on a proof and returning the best verified line (unproven).
Each round learns at least one reply or plan, so boards with many distinct replies need many: a
typical benchmark board with its amounts times 100 (powers up to 800) took 202 rounds, 3 s."""
KEPT_PLANS = 8
"""Second-step plans of the active side carried from one verification to the next (each one makes
the verification model larger; the ones found within a verification are always kept)."""
ENUMERATED_VERIFICATION = 1
"""Most responder first-step replies for which the refinement verifies a first step by solving the
second step after each reply instead of with a verification model (``Game._verify_by_plans``): with
one reply that model has only the second step to choose, which solving it does exactly."""
INDIFFERENT_RESPONDERS = True
"""Whether two-step boards whose responders' only choices are regular-step divisions that no objective
counts are solved in one model (``Game._responders_indifferent``) instead of by refinement."""
SEPARABLE_STEPS = True
"""Whether two-step boards whose responders' regular step the active side's first step cannot change
are solved in one model (``Game._separable``) instead of by refinement."""
FORCED_SECOND_STEP = True
"""Whether a second step after a known first step is valued without a model when no player has a
choice in it (``Game._forced_second_step``)."""
FORCED_LEAD = True
"""Whether refinement boards where the active side has no first-step choice are solved by verifying
that one first step (``Game._forced_lead``) instead of with master models."""
FALLBACK_SECONDS = 0.25
"""Wall time for finding any legal line once the time limit has run out (CP-SAT usually needs a few
milliseconds; on a very large board it may find none, and :func:`simplest_line` answers instead)."""
MAX_GAIN_LEVELS = 1_000
"""Most totals a defender's lifelink blockers can gain that are solved one model each when that gain
decides whether the defender loses (``Game._coupled_gain``); past it the board goes to the exhaustive
search. Totals no division reaches are skipped, one model per gap."""


_ENUMERATE = object()
"""What ``Game._verify_by_plans`` returns when enumerating the replies is the cheaper way on."""


class NoLine(Exception):
    """CP-SAT found no line at all in its time (very large boards): :func:`simplest_line` instead."""


class TooWide(Exception):
    """The refinement needs the objectives as one weighted sum and their ranges are too wide; the
    argument is the request error to raise when the exhaustive search cannot take the board either."""


class TooManyGains(Exception):
    """More than :data:`MAX_GAIN_LEVELS` totals the defender's lifelink blockers can gain, each needing its
    own model (``Game._coupled_gain``); the argument is the reason, for the exhaustive search's warning."""


class _CaseInfeasible(Exception):
    """The active player's first step cannot leave the case being solved (see ``Game._by_cases``)."""


def combined_range(ranges: Sequence[tuple[int, int]]) -> int:
    """How many values the objectives take together: the product of their ranges."""
    combined = 1
    for lo, hi in ranges:
        combined *= hi - lo + 1
    return combined


def objective_ranges(cm: CombatAnalysis) -> list[tuple[int, int]]:
    """A (low, high) bound of each objective on this board, for exact lexicographic weights."""
    board, decider, names = cm.board, cm.decider, cm.objective
    combat = cm.combatants
    mine = [c for c in combat if c.controller == decider]
    theirs = [c for c in combat if c.controller != decider]

    def steps(c) -> int:  # damage steps it deals damage in
        return 2 if Keyword.DOUBLE_STRIKE in c.keywords else 1

    attackers = [c for c in combat if c.attacking is not None]  # only attackers damage players (510.1b-d)
    to_life = sum(cm.most_dealt(c) * steps(c) for c in attackers if Keyword.INFECT not in c.keywords)
    poison = sum((cm.most_dealt(c) if Keyword.INFECT in c.keywords else 0) + c.toxic  # 702.90b, 702.164c
                 for c in attackers for _ in range(steps(c)))
    lifelink = sum(cm.most_dealt(c) * steps(c) for c in mine if Keyword.LIFELINK in c.keywords)  # 702.15b
    opponents = [p for p in board.players if p.id != decider]

    def reaching(object_id: ObjectId) -> int:  # only creatures attacking it damage it (510.1b-c, 702.19c)
        return sum(cm.most_dealt(c) * steps(c) for c in attackers if c.attacking == object_id)

    ranges = {
        "kills": (0, len(theirs)),
        "survivors": (0, len(mine)),
        "value": (-sum(max(c.value, 0) for c in mine) - sum(max(-c.value, 0) for c in theirs),
                  sum(max(c.value, 0) for c in theirs) + sum(max(-c.value, 0) for c in mine)),
        "player_damage": (0, to_life),
        "poison": (0, poison),
        "loyalty": (0, sum(min(w.loyalty, reaching(w.id)) for w in board.planeswalkers if w.controller != decider)),
        "defense": (0, sum(min(b.defense, reaching(b.id)) for b in board.battles if b.protector != decider)),
        "life_gained": (0, lifelink),
        "lethal": (0, sum(1 for p in opponents if p.id != board.active_player)),  # dealt no combat damage
        "alive": (1 if decider == board.active_player else 0, 1),  # only a defender may lose
    }
    return [ranges[n] for n in names]


class Game:
    """One solve: the case analysis of the module docstring."""

    def __init__(self, board: Board, decider: ObjectId, names: Sequence[str], settings: SolverSettings,
                 time_limit: float | None, max_combined_range: int, probe: CombatModel,
                 ranges: list[tuple[int, int]]) -> None:
        self.board = board
        self.probe = probe
        """A model of the board: its targets, choosers and orders of effects; the first solve builds in it."""
        self._probe_unused = True
        self.decider = decider
        self.names = tuple(names)
        self.settings = settings
        self.deadline = None if time_limit is None else time.monotonic() + time_limit
        self.ranges = ranges
        """:func:`objective_ranges` of the board."""
        combined = combined_range(self.ranges)
        self.magnitude = 8 * combined * len(board.players)
        """About the largest value an objective variable takes: the product of the objectives' ranges
        (the largest weight times its range), times the refinement's slack for players' plans."""
        self.combine = combined <= max_combined_range or len(names) == 1  # one objective is its own scalar
        self.weights = []
        weight = 1
        for lo, hi in reversed(self.ranges):
            self.weights.append(weight)
            weight *= hi - lo + 1
        self.weights.reverse()
        self.big = 4 * sum(w * (abs(lo) + abs(hi) + 1) for w, (lo, hi) in zip(self.weights, self.ranges)) + 1
        """A bound on any one scalar objective value (with slack), for the max-min models' variables."""
        self.sign = {p.id: (1 if p.id == decider else -1) for p in board.players}
        self.master_sign = self.sign[board.active_player]
        self.responders = [p.id for p in board.players if self.sign[p.id] != self.master_sign]
        self.proven = True
        self.fallback = False
        """Whether the answer is :func:`simplest_line`, CP-SAT having found no line in its time."""
        self.out_of_rounds = False
        """Whether a refinement stopped after :data:`MAX_ROUNDS` rounds without a proof (unproven then)."""
        self.too_many_replies = False
        """Whether a verification met more replies than :data:`MAX_REPLIES` to enumerate (unproven then)."""
        self._second_steps: dict[tuple, tuple[tuple[Assignment, ...], int]] = {}
        self.case: frozenset[ObjectId] | None = None
        """The creatures with banding the active player's first step must destroy (see :meth:`_by_cases`)."""
        self.replying = bool(probe.any_coupled) or (probe.coupled_gain is not None and probe.two_steps)
        """Whether the defender's regular-step division is a reply to the active player's (510.1)
        that decides more than its own part: creatures whose damage both players divide, or its
        lifelink blockers' gain deciding whether it loses (two steps; one step has its own solve)."""
        self.largest_amount = largest_amount(board)
        self.work = 0.0
        """CP-SAT's deterministic time spent so far (a measure of work that does not vary by run)."""
        self.plans: list[dict[Cell, int]] = []
        """The active side's second-step plans found while verifying first steps (refinement)."""

    def dealing(self, line: tuple[Assignment, ...]) -> tuple[DealingChoice, ...]:
        """The affected players' order of the effects on each damage of ``line`` that has one (616.1),
        with what each shield prevents of it; in the regular step without the shields the first-strike
        step used up (615.7)."""
        first: list[DealingChoice] = []
        regular: list[DealingChoice] = []
        for a in line:
            order = self.probe.dealing_order((a.source, a.target), a.step)
            if order is not None:
                (first if a.step is Step.FIRST_STRIKE else regular).append(
                    DealingChoice(a.step, a.source, a.target, order))
        if first:  # what each shield prevents of the damage (615.7)
            first = list(with_prevented(self.board, (a for a in line if a.step is Step.FIRST_STRIKE), first))
        on = self.board
        if regular and self.probe.two_steps:
            later = first_step(self.board, line, tuple(first))[1]
            if later is not None:
                on = later
                kept = [(d, set(cell_effects(later, d.source, d.target).modifiers)) for d in regular]
                regular = [replace(d, order=tuple(i for i in d.order if i in left)) for d, left in kept]
        regular = [d for d in regular if d.order]
        if regular:  # on the board the regular step begins with
            regular = list(with_prevented(on, (a for a in line if a.step is Step.REGULAR), regular))
        return tuple(first + regular)

    def _fresh_model(self) -> CombatModel:
        """A model to build in: the probe the first time, then new ones."""
        if self._probe_unused:
            self._probe_unused = False
            return self.probe
        return self._model()

    def _model(self) -> CombatModel:
        cm = self.probe.fresh()
        cm.case = self.case
        return cm

    def scalar(self, values: Mapping[str, int]) -> int:
        """The objective values as one number whose order is the lexicographic order."""
        return sum(w * values[n] for w, n in zip(self.weights, self.names))

    # --- entry ------------------------------------------------------------------------------------
    def solve(self) -> tuple[tuple[Assignment, ...], int | None, bool]:
        """The line, the model's value of it (None if only the checker values it) and whether it is
        proven optimal; :func:`simplest_line` when CP-SAT found no line in its time."""
        try:
            return self._solve()
        except NoLine:
            self.fallback = True
            return simplest_line(self.board), None, False

    def _solve(self) -> tuple[tuple[Assignment, ...], int | None, bool]:
        probe = self.probe
        if probe.coupled_gain is not None and not probe.two_steps and not probe.any_coupled:
            return self._coupled_gain()
        if probe.any_coupled and not probe.two_steps:
            line, value = self._defender_replies({})
            return line, value, self.proven
        if not probe.two_steps:
            line, value = self._fixed_first_step({})
            return line, value, self.proven
        if probe.unstable and probe.active_decides_unstable():
            return self._by_cases()
        return self._two_steps()

    def _by_cases(self) -> tuple[tuple[Assignment, ...], int | None, bool]:
        """702.22k across 510.4: the active player's first-strike division decides which creatures
        with banding survive, and so who divides some regular-step damage. Each case (which of them
        leave) is solved with the models requiring it; the active side takes the best case."""
        best: tuple[tuple[Assignment, ...], int] | None = None
        for case in self.probe.cases():
            self.case = self.probe.case = case
            try:
                line, value, _ = self._two_steps()
            except _CaseInfeasible:
                continue
            finally:
                self.case = self.probe.case = None
            assert value is not None, "cases are compared on combined objectives"
            if best is None or self.master_sign * value > self.master_sign * best[1]:
                best = (line, value)
        if best is None:
            raise SolverError("internal error: no case of the banding creatures' survival is possible")
        return best[0], best[1], self.proven

    def _two_steps(self) -> tuple[tuple[Assignment, ...], int | None, bool]:
        probe = self.probe
        views = [probe.view(gone) for gone in probe.cases()]  # banding may hand a division over (702.22j-k)
        responder_choice = any(len(v.targets[c.id]) > 1 and v.chooser[c.id] in self.responders
                               for v in views for c in probe.combatants)
        if not responder_choice or (INDIFFERENT_RESPONDERS and self._responders_indifferent()):
            return self._joint()
        if not self.combine:
            given = ", ".join(self.names) + (" (the default)" if self.names == DEFAULT_OBJECTIVE else "")
            fewer = shorter_objectives(self.names, self.board, self.decider)
            raise TooWide(InvalidRequestError(
                "objective", "the objectives' ranges are too wide to combine for a guaranteed two-step "
                f"solve on this board ({given}); list fewer objectives, for example {','.join(fewer)}"))
        reply_count = count_first_step_options(probe, self.responders)
        separable = self._separable(reply_count) if SEPARABLE_STEPS else None
        return separable if separable is not None else self._refine(reply_count)

    def _responders_indifferent(self) -> bool:
        """Whether the responders' only choices are regular-step divisions that decide nothing the
        objectives count (:meth:`~optimizer.encode.CombatModel.scores_regular_step`): each of their
        first-strike creatures has one recipient and one way to assign (510.1a), and neither damage
        both sides divide, nor banding whose divider may change, nor a lifelink gain deciding a loss
        links their regular step to the active side's (702.22j-k, 510.2). Whatever they divide then
        changes no objective value, so the game is :meth:`_joint`'s one model, with their default
        play (all of each creature's damage to its first recipient still there)."""
        probe = self.probe
        if self.replying or probe.unstable or probe.any_coupled or probe.coupled_gain is not None or probe.self_scored:
            return False
        if any(probe.chooser[s.id] in self.responders and (len(probe.targets(s)) > 1 or probe.two_modes(s))
               for s in probe.sources(Step.FIRST_STRIKE)):
            return False
        return not any(probe.scores_regular_step(p) for p in self.responders)

    def _separable(self, reply_count: int) -> tuple[tuple[Assignment, ...], int | None, bool] | None:
        """Two steps where the responders have one first-step reply and the active side's first-strike
        damage cannot change their part: none of it reaches their regular-step sources, what those may
        damage, a creature whose fate their part scores or whatever else damages one, nor makes a
        player lose (704.5a), and no shield carries it over (615.7).
        Then each side's regular-step choice scores its own part whatever the first step did, so one
        model optimizes both sides at once (each part its own way, as in a single step): the active
        side's part over both of its steps, the responders' over their regular step. None (refine
        instead) when the board is not of that kind."""
        probe, board = self.probe, self.board
        if (len(board.players) != 2 or self.replying or probe.unstable or probe.any_coupled
                or probe.coupled_gain is not None or any(e.is_shield for e in board.effects)
                or reply_count != 1):
            return None
        responders = set(self.responders)
        regular = probe.sources(Step.REGULAR)
        theirs = {s.id for s in regular if probe.chooser[s.id] in responders}
        # what their part depends on: their sources, what those may damage, every creature whose fate
        # their part scores (an attacker's, with no blocker left to divide, is its defender's), and
        # whatever else damages those
        fates = {t for s in regular if s.id in theirs for t, _ in probe.targets(s)}
        fates |= {c.id for c in probe.combatants if probe.damaged_by(c.id) in responders}
        reach = theirs | fates | {s.id for s in regular if any(t in fates for t, _ in probe.targets(s))}
        fs = probe.sources(Step.FIRST_STRIKE)
        leading = [s for s in fs if probe.chooser[s.id] not in responders]
        if any(t in reach for s in leading for t, _ in probe.targets(s)):
            return None
        cm = self._model()
        reply = first_step_options(cm, self.responders)[0]
        lead = cm.first_step_cells(leading)
        cm.first_step_trample(lead)
        fixed = cm.first_step_cells([s for s in fs if cm.chooser[s.id] in responders], fixed=reply)
        sc = cm.scenario({**lead, **fixed}, free=set(self.sign), policies={})
        st = sc.state
        assert st is not None
        if not all(isinstance(v, int) for v in st.lost.values()) or not all(
                isinstance(st.effective_power(s), int) for s in cm.sources(Step.REGULAR) if s.id in theirs):
            return None  # the first step may still reach them (a player's loss, an effect): refine
        stages = self._stages([(self.sign[key], sc.parts[key]) for key in sc.parts])
        values, value = self._optimize(cm, stages, sc.cells, self._total(sc))
        return _line(values), value, self.proven

    # --- one model, everyone's second step free -----------------------------------------------------
    def _fixed_first_step(self, first: Mapping[Cell, int]) -> tuple[tuple[Assignment, ...], int]:
        """The second step on a known state: each player's part optimized its own way (separable).
        Returns the line and the model's value of it (remembered: refinement asks again)."""
        key = _second_step_key(first)
        if key not in self._second_steps:
            self._second_steps[key] = self._solve_second_step(first)
        return self._second_steps[key]

    def _solve_second_step(self, first: Mapping[Cell, int]) -> tuple[tuple[Assignment, ...], int | None]:
        if self.replying:  # the defender replies to the active player's division (510.1)
            return self._defender_replies(first)
        if self.probe.self_scored and not self.probe.two_steps:
            return self._self_scored()
        forced = self._forced_second_step(first) if FORCED_SECOND_STEP else None
        if forced is not None:
            return forced
        cm = self._fresh_model()
        cells = dict(cm.first_step_cells(cm.sources(Step.FIRST_STRIKE), fixed=first))
        sc = cm.scenario(cells, free={p.id for p in self.board.players}, policies={})
        stages = self._stages([(self.sign[key], sc.parts[key]) for key in sc.parts])
        values, value = self._optimize(cm, stages, sc.cells, self._total(sc))
        return _line(values), value

    def _forced_second_step(self, first: Mapping[Cell, int]) -> tuple[tuple[Assignment, ...], int] | None:
        """The second step after the first-strike damage ``first`` when nobody has a choice in it
        (:func:`forced_line` on the board the first step leaves, 510.4; none at all if the game ended,
        104.2a): that line, valued by the checker, with no model. None if someone has a choice."""
        board = self.board
        if not (self.probe.two_steps and self.combine and board.plain_damage):
            return None
        played = _line({(Step.FIRST_STRIKE, s, t): n for (s, t), n in first.items()})
        later = first_step(board, played)[1]
        regular = forced_line(later) if later is not None else ()
        if regular is None:
            return None
        line = normalize((*played, *regular))
        return line, self._line_value(line)

    def _joint(self) -> tuple[tuple[Assignment, ...], int, bool]:
        """Two steps, responders without choices (or with only regular-step choices that score nothing,
        :meth:`_responders_indifferent`): one model, the active side's both steps free, the responders'
        default play."""
        cm = self._fresh_model()
        first = cm.first_step_cells(cm.sources(Step.FIRST_STRIKE))
        cm.first_step_trample(first)
        free = {p for p in self.sign if p not in self.responders}
        sc = cm.scenario(first, free=free, policies={})
        stages = self._stages([(self.master_sign, sc.parts[key]) for key in sc.parts])
        cells = dict(sc.cells)
        for responder_cells in sc.policy_cells.values():  # without choices, the default is the play
            cells.update({(Step.REGULAR, s, t): v for (s, t), v in responder_cells.items()})
        values, value = self._optimize(cm, stages, cells, self._total(sc))
        return _line(values), value, self.proven

    # --- one step, a defender's lifelink gain deciding whether it loses -----------------------------
    def _coupled_gain(self) -> tuple[tuple[Assignment, ...], int | None, bool]:
        """One damage step where the defending player's division of its lifelink blockers' damage
        decides both its part of the objective and, through the life it gains (510.2), whether the
        active player's damage is lethal. The defender replies to the active player's announcement
        (510.1), so for each total gain its best division with that gain is found first (the totals it
        cannot lose with, whatever the active player does, together; totals no division reaches skipped;
        more than :data:`MAX_GAIN_LEVELS` go to the exhaustive search); the active player's model then
        counts, for its own damage, the defender's best reply among those. The defender may be the
        decider (its own loss then counts against it) or play against the deciding active player."""
        board, probe = self.board, self.probe
        q = probe.coupled_gain
        assert q is not None and self.combine and probe.loss_objective(q) in self.names
        deciding = self.sign[q] > 0  # the defender decides: it maximizes, the active player minimizes
        free = {p.id for p in board.players}
        cm = self._fresh_model()
        sc = cm.scenario({}, free=free, policies={})
        gain = cm.coupled_gain_expr(sc)
        low, high = cm.bounds(gain) or (0, sum(cm.most_dealt(c) for c in cm.coupled_sources()))
        level_var = cm.new_int(low, high, "coupled_gain")
        cm.model.add(level_var == gain)
        part = self._scalar_expr(sc.parts[q])
        best_part = cm.model.maximize if deciding else cm.model.minimize  # the defender's own way
        best_part(part)
        weight = self.weights[self.names.index(probe.loss_objective(q))] * (-1 if deciding else 1)
        main = self._model()
        msc = main.scenario({}, free=free, policies={})
        replies: dict[int, tuple[int, dict]] = {}  # total gain -> (the defender's part, its cells)
        lost: dict[int, Expr] = {}  # total gain -> whether the defender loses with it, in the main model
        domain = cm.model.proto.variables[level_var.index].domain  # [low, high], narrowed as levels go
        level = low
        while level <= high:
            if self._expired():
                self.proven = False  # the replies so far: a legal line, its value unproven
                break
            lost_here = main.lost_in(msc, q, level)
            safe = isinstance(lost_here, int) and lost_here == 0  # it cannot lose with this gain, nor more (704.5a)
            domain[0], domain[1] = level, (high if safe else level)  # then its best part with any of those gains
            solver = self._run(cm.model, infeasible_ok=True)
            if solver is not None:
                if len(replies) == MAX_GAIN_LEVELS:
                    raise TooManyGains(f"{q}'s lifelink blockers' gain decides whether it loses, and they can "
                                       f"gain more than {MAX_GAIN_LEVELS:,} different totals")
                level = _value(solver, level_var)
                replies[level] = (_value(solver, part),  # exact (objective_value is a float)
                                  {k: _value(solver, v) for k, v in sc.cells.items() if probe.chooser[k[1]] == q})
                lost[level] = lost_here if level == domain[0] else main.lost_in(msc, q, level)
                if safe:
                    break
                level += 1
                continue
            if safe:
                break  # no division gains this much or more (or out of time: then unproven)
            # no division gains exactly this much (or out of time: then unproven): the next total one does
            domain[0], domain[1] = level + 1, high
            cm.model.minimize(level_var)
            solver = self._run(cm.model, infeasible_ok=True) if level < high else None
            best_part(part)
            if solver is None:
                break
            level = _value(solver, level_var)
        reply = main.model.new_int_var(-self.big, self.big, "reply")
        active = self._scalar_expr(msc.parts[board.active_player])
        for level, (value, _) in replies.items():  # the defender's best reply: a max-min (or min-max) model
            if deciding:
                main.model.add(reply >= value + weight * lost[level])
            else:
                main.model.add(reply <= value + weight * lost[level])
        if deciding:
            main.model.minimize(active + reply)
        else:
            main.model.maximize(active + reply)
        solver = self._run(main.model, bounded=True) if replies else None
        if solver is None:  # out of time: a legal line, its value unproven
            self.proven = False
            return self._fixed_first_step({})[0], None, False
        chosen = (max if deciding else min)(replies, key=lambda level: replies[level][0]
                                            + weight * _value(solver, lost[level]))
        values = {k: _value(solver, v) for k, v in msc.cells.items() if probe.chooser[k[1]] != q}
        values.update(replies[chosen][1])
        value = _value(solver, active) + replies[chosen][0] + weight * _value(solver, lost[chosen])
        return _line(values), (value if self.proven else None), self.proven

    # --- one step, three or more players, defenders dividing damage to their own creatures ----------
    def _self_scored(self) -> tuple[tuple[Assignment, ...], int]:
        """One damage step with three or more players where some defending players divide the damage
        dealt to their own creatures (banding, 702.22j), while the active player's damage decides
        whether they lose and their creatures leave with them (800.4a). Each such player's division
        does not depend on the active player's (one step: its part sees only its own damage), so its
        best part is found both ways first, with its creatures in play and with them gone; the main
        model then counts, for each such player, the first if it survives and the second if it
        loses, and the line takes the division that goes with what happened."""
        probe, active = self.probe, self.board.active_player
        everyone = {p.id for p in self.board.players}
        if not self.combine:
            raise SolverError("internal error: defenders' own divisions need combined objectives")
        # (the ("part", q) and ("lost", q) entries read those expressions' values back with the cells)
        best: dict[bool, tuple[dict[ObjectId, int], dict]] = {}
        for left in (False, True):
            cm = self._model()
            cm.left = probe.self_scored if left else frozenset()
            sc = cm.scenario({}, free=everyone, policies={})
            parts = {("part", q): self._scalar_expr(sc.parts[q]) for q in sorted(probe.self_scored)}
            stage = sum((self.sign[q] * e for (_, q), e in parts.items()), 0)
            values, _ = self._optimize(cm, [stage], {**sc.cells, **parts}, None)
            best[left] = ({q: values.pop(("part", q)) for q in probe.self_scored}, values)
        cm = self._model()
        sc = cm.scenario({}, free=everyone, policies={})
        lost = {("lost", q): cm.lost_in(sc, q) for q in sorted(probe.self_scored)}
        active_part = self._scalar_expr(sc.parts[active]) + sum(
            (best[True][0][q] * v + best[False][0][q] * (1 - v) for (_, q), v in lost.items()), 0)
        others = [p for p in sc.parts if p != active and p not in probe.self_scored]
        stage = self.sign[active] * active_part + sum((self.sign[p] * self._scalar_expr(sc.parts[p]) for p in others), 0)
        total = active_part + sum((self._scalar_expr(sc.parts[p]) for p in others), 0)
        values, value = self._optimize(cm, [stage], {**sc.cells, **lost}, total)
        for q in probe.self_scored:  # each such player's division for what happened to it
            division = best[bool(values.pop(("lost", q)))][1]
            values.update({k: v for k, v in division.items() if probe.chooser[k[1]] == q})
        return _line(values), value

    # --- one step, creatures whose damage both players divide -------------------------------------
    def _defender_replies(self, first: Mapping[Cell, int]) -> tuple[tuple[Assignment, ...], int | None]:
        """The regular damage step after the first-strike damage ``first`` (none with one step) when
        the defending player's division is a reply to the active player's that decides more than its
        own part (:attr:`replying`): it announces after the active player (510.1). Refinement: a master
        model picks the active player's damage against a growing set of the defender's replies (each
        used where legal, else a default), scoring the defender's best of them; the defender's exact
        reply to that damage either meets the master's bound or joins the set. The value is None
        when time ran out (the line is then the best verified one, or any legal one)."""
        board, probe = self.board, self.probe
        active, defender = board.active_player, probe.responder()
        if not self.combine:
            raise SolverError("internal error: coupled fates need combined objectives")
        replies: list[dict[Cell, int]] = []
        best: tuple[int, tuple[Assignment, ...]] | None = None
        sign = self.sign[active]
        cm = self._model()  # one model, extended by a copy of the defender's step for each new reply
        fixed = cm.first_step_cells(cm.sources(Step.FIRST_STRIKE), fixed=first)
        sc = cm.scenario(fixed, free={active}, policies={defender: [None]})
        u = self._best_plan(cm, sc, defender, 1)
        total = self._scalar_expr(sc.parts[active]) + u
        t = cm.model.new_int_var(-2 * self.big, 2 * self.big, "t")
        cm.model.add(t <= total) if sign > 0 else cm.model.add(t >= total)
        for _ in range(MAX_ROUNDS):
            solver = self._run_toward(cm, t, maximize=sign > 0)
            if solver is None:
                break
            bound = int(solver.value(t))
            lead = {k: _value(solver, v) for k, v in sc.cells.items()}
            line, value = self._reply(first, lead)
            if best is None or sign * value > sign * best[0]:
                best = (value, line)
            if value == bound:
                return line, value
            if solver.response_proto.status != cp_model.OPTIMAL:
                break  # stopped early (time or budget): its value is no bound, so no reply can be learnt
            chooser = self._regular_chooser(line)
            reply = {(a.source, a.target): a.amount for a in line
                     if a.step is Step.REGULAR and chooser[a.source] == defender}
            if reply in replies:
                if not self.proven:
                    break  # a solve stopped early: its reply or the bound is not exact
                raise SolverError("internal error: a reply does not tighten the bound")
            replies.append(reply)
            self._cover(cm, u, defender, sc.parts[cm.add_policy(sc, defender, reply)])
            if self._expired():
                break
        else:
            self.out_of_rounds = True
        self.proven = False
        if best is None:  # out of time before any master: the defender's reply to any legal damage
            return self._reply(first, None)[0], None
        return best[1], best[0]

    def _reply(self, first: Mapping[Cell, int], lead: Mapping[tuple[Step, ObjectId, ObjectId], int] | None
               ) -> tuple[tuple[Assignment, ...], int]:
        """The defender's best regular-step reply to the active player's damage ``lead`` (None: any
        legal damage) after the first-strike damage ``first``, and the line's value."""
        cm = self._model()
        fixed = cm.first_step_cells(cm.sources(Step.FIRST_STRIKE), fixed=first)
        sc = cm.scenario(fixed, free={p.id for p in self.board.players}, policies={})
        for key, v in (lead or {}).items():  # the active player's cells, in the view the first step leaves
            if not isinstance(sc.cells[key], int):
                cm.model.add(sc.cells[key] == v)
        stages = self._stages([(self.sign[key], sc.parts[key]) for key in sc.parts])
        values, value = self._optimize(cm, stages, sc.cells, self._total(sc))
        if value is None:
            value = self._line_value(_line(values))
        return _line(values), value

    # --- refinement ---------------------------------------------------------------------------------
    def _refine(self, reply_count: int) -> tuple[tuple[Assignment, ...], int | None, bool]:
        """Counterexample-guided refinement (module docstring); ``reply_count``: the responders'
        distinct first-step replies (``count_first_step_options``)."""
        order = self.board.turn_order()
        first_responder = min(order.index(p) for p in self.responders)
        leaders = [p for p in order[:first_responder]]
        followers = [p for p in order[first_responder:] if p not in self.responders]
        probe = self.probe
        replies: list[dict[Cell, int]] = []  # every distinct responder reply, enumerated only if needed
        plain = {(s.id, probe.targets(s)[0][0]): amount_of(s) for s in probe.sources(Step.FIRST_STRIKE)
                 if probe.chooser[s.id] in self.responders}  # each blocker all on its first attacker
        follower_options = first_step_options(probe, followers)
        leading = [s for s in probe.sources(Step.FIRST_STRIKE) if probe.chooser[s.id] in leaders]
        if (FORCED_LEAD and not followers and self.case is None
                and all(len(probe.targets(s)) == 1 and not probe.two_modes(s) for s in leading)):
            lead = {(s.id, probe.targets(s)[0][0]): amount_of(s) for s in leading}
            forced = self._forced_lead(lead, reply_count, follower_options, replies)
            if forced is not None:
                return forced
        scenarios: list[dict[Cell, int]] = [plain]
        policies: list[dict[Cell, int]] = []
        best: tuple[int, tuple[Assignment, ...]] | None = None
        model: _MasterModel | None = None
        for _ in range(MAX_ROUNDS):
            if self._expired():
                break
            master = self._master(model, leaders, followers, scenarios, policies)
            if master is None:
                break
            bound, lead, follow, plans, model, exact = master
            found = self._verify_lead(lead, reply_count, follower_options, replies, scenarios, bound,
                                      enumerate_replies=bool(followers))
            if found is None:
                break  # out of time, or too many replies to enumerate: the best verified line so far
            value, line, worst, second_steps, complete = found
            if complete and (best is None or self.master_sign * value > self.master_sign * best[0]):
                best = (value, line)
            if complete and value == bound:
                return line, value, self.proven
            if self._expired() or not exact:
                break  # out of time, or the master stopped early: its value is no bound to refine
            learnt = len(scenarios) + len(policies)
            if worst not in scenarios:
                scenarios.append(worst)
            for k, reply in enumerate(scenarios[:len(follow)]):  # tighten each scenario where the master stands
                state = {**lead, **reply, **follow.get(k, {})}
                if self.replying:  # the reply to the master's own regular step there (510.1)
                    line, _ = self._reply(state, plans[k])
                    second_steps.append(self._responders_second_step(line))
                else:
                    second_steps.append(self._second_step_reply(state))
            policies.extend(p for i, p in enumerate(second_steps)
                            if p not in policies and p not in second_steps[:i])
            if len(scenarios) + len(policies) == learnt:  # the master would stand where it stands
                if not self.proven:
                    break  # a solve stopped early: its reply or plan is not exact
                raise SolverError("internal error: a refinement round learnt no reply and no plan")
        else:
            self.out_of_rounds = True
        self.proven = False
        if best is None:  # out of time or rounds before any verification: verify the plainest legal first step
            lead = {(s.id, probe.targets(s)[0][0]): amount_of(s)
                    for s in probe.sources(Step.FIRST_STRIKE) if probe.chooser[s.id] in leaders}
            value, line, _, _, _ = self._verify(lead, [plain], follower_options[:1])
            best = (value, line)
        return best[1], best[0], False

    def _forced_lead(self, lead: dict[Cell, int], reply_count: int, follower_options: list[dict[Cell, int]],
                     replies: list[dict[Cell, int]]) -> tuple[tuple[Assignment, ...], int | None, bool] | None:
        """The active side has no first-step choice (each of its first-strike creatures has one
        recipient, 510.1a): its first step is ``lead``, and the game's value is that first step's
        exact value, found as the refinement verifies one, with no master model. None if that ran out
        of time or had too many replies to enumerate (the refinement then returns its fallback)."""
        found = self._verify_lead(lead, reply_count, follower_options, replies)
        if found is None:
            return None
        value, line, _, _, complete = found
        assert complete, "a verification without a cutoff is complete"
        return line, value, self.proven  # unproven if a solve stopped early or time ran out

    def _verify_lead(self, lead: dict[Cell, int], reply_count: int, follower_options: list[dict[Cell, int]],
                     replies: list[dict[Cell, int]], likely_worst: Sequence[dict[Cell, int]] = (),
                     cutoff: int | None = None, enumerate_replies: bool = False):
        """The exact value of the active side's first step ``lead`` (see :meth:`_verify`; with
        ``cutoff``, a counterexample once a reply is worse): with a verification model, or by
        enumerating the responders' replies, ``likely_worst`` first, into ``replies`` (filled once,
        on first need). They are enumerated when ``enumerate_replies`` says so (players on the
        active side after the responders), when a reply decides who divides in the regular step
        (702.22j), when the regular step is itself a reply to the active player's division (510.1),
        when there are so few replies that solving the second step after each costs less than a
        verification model, and once the verification model's rounds cost more than that
        (:data:`_ENUMERATE`). None if out of time, or with more than :data:`MAX_REPLIES` to enumerate."""
        probe = self.probe
        enumerate_replies = bool(enumerate_replies or (probe.unstable and not probe.active_decides_unstable())
                                 or self.replying or reply_count <= ENUMERATED_VERIFICATION)
        found = None if enumerate_replies else self._verify_by_plans(lead, reply_count)
        if found is _ENUMERATE:  # the plans converge slowly: solving each reply's second step is less work
            found, enumerate_replies = None, True
        if found is not None or not enumerate_replies:
            return found
        if not replies and reply_count > MAX_REPLIES:
            self.too_many_replies = True
            return None
        if not replies:
            replies.extend(first_step_options(probe, self.responders))
        ordered = list(likely_worst) + [r for r in replies if r not in likely_worst]
        return self._verify(lead, ordered, follower_options, cutoff)

    def _master(self, m: "_MasterModel | None", leaders: list[ObjectId], followers: list[ObjectId],
                scenarios: list[dict[Cell, int]], policies: list[dict[Cell, int]]):
        """The master model of the refinement (see the module docstring), extended from the last
        round's ``m`` (None: built) with the scenarios and policies added since; solved."""
        if m is None:
            cm = self._model()
            fs = cm.sources(Step.FIRST_STRIKE)
            lead = cm.first_step_cells([s for s in fs if cm.chooser[s.id] in leaders])
            cm.first_step_trample(lead)
            m = _MasterModel(cm, cm.model.new_int_var(-self.big, self.big, "t"), lead)
        cm = m.cm
        for k, variants in enumerate(m.scenarios):  # the policies found since, in each scenario already there
            for policy in policies[m.policies:]:
                for (_, sc), best in zip(variants, m.best[k]):
                    for p in self.responders:
                        self._cover(cm, best[p], p, sc.parts[cm.add_policy(sc, p, policy)])
        m.policies = len(policies)
        fs = cm.sources(Step.FIRST_STRIKE)
        for reply in scenarios[len(m.scenarios):]:
            follow = cm.first_step_cells([s for s in fs if cm.chooser[s.id] in followers])
            m.follow_cells.append(follow)
            fixed = cm.first_step_cells([s for s in fs if cm.chooser[s.id] in self.responders], fixed=reply)
            responder_policies = {p: [None] + policies for p in self.responders}
            # one variant, or one per case of the banding creatures' survival the lead leaves (702.22j-k)
            variants = cm.scenarios({**m.lead, **follow, **fixed},
                                    free={p for p in self.sign if p not in self.responders}, policies=responder_policies)
            m.scenarios.append(variants)
            m.plan_cells.append([{k: v for k, v in sc.cells.items() if k[0] is Step.REGULAR} for _, sc in variants])
            m.best.append([])
            for happens, sc in variants:
                total: Expr = 0
                for key, part in sc.parts.items():
                    if isinstance(key, str):
                        total = total + self._scalar_expr(part)
                m.best[-1].append({p: self._best_plan(cm, sc, p, len(responder_policies[p])) for p in self.responders})
                for u in m.best[-1][-1].values():
                    total = total + u
                bound = cm.model.add(m.t <= total) if self.master_sign > 0 else cm.model.add(m.t >= total)
                if not isinstance(happens, int):
                    bound.only_enforce_if(happens)
        solver = self._run_toward(cm, m.t, maximize=self.master_sign > 0)
        if solver is None:
            return None
        lead_values = {k: _value(solver, v) for k, v in m.lead.items()}
        follow_values = {k: {c: _value(solver, v) for c, v in cells.items()} for k, cells in enumerate(m.follow_cells)}
        plan_values = [self._happening_plan(solver, variants, plans)  # only needed for coupled fates
                       for variants, plans in zip(m.scenarios, m.plan_cells)] if self.replying else []
        return (solver.value(m.t), lead_values, follow_values, plan_values, m,
                solver.response_proto.status == cp_model.OPTIMAL)

    @staticmethod
    def _happening_plan(solver: cp_model.CpSolver, variants: list[tuple[Expr, Any]],
                        plans: list[dict[Any, Expr]]) -> dict[Any, int]:
        """The master side's regular-step plan in the variant of a scenario that happens."""
        for (happens, _), cells in zip(variants, plans):
            if _value(solver, happens):
                return {k: _value(solver, v) for k, v in cells.items()}
        raise SolverError("internal error: no case of the banding creatures' survival happens in a scenario")

    def _best_plan(self, cm: CombatModel, sc, player: ObjectId, count: int) -> Expr:
        """A variable that the model's optimization drives to ``player``'s best score over its
        ``count`` second-step plans in ``sc`` (its largest if it maximizes, else its smallest)."""
        u = cm.model.new_int_var(-self.big, self.big, f"u[{player}]")
        for j in range(count):
            self._cover(cm, u, player, sc.parts[(player, j)])
        return u

    def _cover(self, cm: CombatModel, u: Expr, player: ObjectId, part: Mapping[str, Term]) -> None:
        """One more of ``player``'s plans for :meth:`_best_plan`'s variable ``u``: its score ``part``."""
        h = self._scalar_expr(part)
        cm.model.add(u >= h) if self.sign[player] > 0 else cm.model.add(u <= h)

    def _verify(self, lead: dict[Cell, int], replies: list[dict[Cell, int]],
                follower_options: list[dict[Cell, int]], cutoff: int | None = None):
        """The exact value of the active side's first step ``lead``: every responder reply, every
        follower answer, the second step solved on each resulting state. With ``cutoff`` (the master's
        bound), it stops at the first reply worse than that: ``lead`` is then not optimal, and the
        result is a counterexample, not the exact value (``complete`` False)."""
        worst = None
        for reply in replies:
            best_follow = None
            for follow in follower_options:
                if (worst is not None or best_follow is not None) and self._expired():
                    self.proven = False  # out of time: the worst reply so far, not a verified value
                    break
                state = {**lead, **reply, **follow}
                line, model_value = self._fixed_first_step(state)
                # the line returned in the end is re-checked against the model's value in solve()
                value = self._line_value(line) if model_value is None else model_value
                if best_follow is None or self.master_sign * value > self.master_sign * best_follow[0]:
                    best_follow = (value, line, state)
            if best_follow is None:
                break
            if worst is None or self.master_sign * best_follow[0] < self.master_sign * worst[0]:
                worst = (best_follow[0], best_follow[1], reply, best_follow[2])
            if cutoff is not None and self.master_sign * worst[0] < self.master_sign * cutoff:
                value, line, reply, _ = worst
                return value, line, reply, [self._responders_second_step(line)], False
        assert worst is not None
        value, line, reply, state = worst
        return value, line, reply, [self._responders_second_step(line)], True

    def _verify_by_plans(self, lead: dict[Cell, int], reply_count: int):
        """The exact value of ``lead`` without enumerating the responders' replies: refinement on the
        master side's second step. A model chooses the responders' first-step reply and second step
        against a growing set of master-side second-step plans (each used where legal, else a
        default): a bound on the value. Solving the second step exactly after that reply either meets
        the bound (then it is the value) or gives a new plan. None if out of time or rounds;
        :data:`_ENUMERATE` once its rounds took more CP-SAT work (deterministic time) than solving
        the second step after each of the ``reply_count`` replies not yet solved is likely to take,
        at the mean work of the second steps it solved (a rent-or-buy rule: at most about twice
        the work of the better of the two ways)."""
        master_side = [p for p in self.sign if p not in self.responders]
        plans = self.plans[-KEPT_PLANS:]  # legal plays wherever they are legal: the latest earlier ones
        cm = self._model()  # one model, extended by a copy of the second step for each new plan
        fs = cm.sources(Step.FIRST_STRIKE)
        fixed = cm.first_step_cells([s for s in fs if cm.chooser[s.id] not in self.responders], fixed=lead)
        free = cm.first_step_cells([s for s in fs if cm.chooser[s.id] in self.responders])
        policies = {p: [None] + plans for p in master_side}
        sc = cm.scenario({**fixed, **free}, free=set(self.responders), policies=policies)
        total: Expr = sum((self._scalar_expr(part) for key, part in sc.parts.items() if isinstance(key, str)), 0)
        best_plan = {p: self._best_plan(cm, sc, p, len(policies[p])) for p in master_side}
        for u in best_plan.values():
            total = total + u
        t = cm.model.new_int_var(-self.big * (len(master_side) + 1), self.big * (len(master_side) + 1), "t")
        # one objective variable, bounded by an inequality: CP-SAT's presolve substitutes an equality
        # into the objective, whose large weights it then mishandles
        cm.model.add(t >= total) if self.master_sign > 0 else cm.model.add(t <= total)
        rounds_work = steps_work = 0.0
        solved = 0
        for _ in range(MAX_ROUNDS):
            if self._expired():
                return None
            before = self.work
            solver = self._run_toward(cm, t, maximize=self.master_sign < 0)
            rounds_work += self.work - before
            if solver is None or solver.response_proto.status != cp_model.OPTIMAL:
                return None  # out of time: no bound
            bound = int(solver.value(t))
            reply = {k: _value(solver, v) for k, v in free.items()}
            before, state = self.work, {**lead, **reply}
            fresh = _second_step_key(state) not in self._second_steps
            line, model_value = self._fixed_first_step(state)
            if fresh:
                solved += 1
                steps_work += self.work - before
            value = self._line_value(line) if model_value is None else model_value
            if value == bound:
                return value, line, reply, [self._responders_second_step(line)], True
            chooser = self._regular_chooser(line)
            plan = {(a.source, a.target): a.amount for a in line
                    if a.step is Step.REGULAR and chooser[a.source] not in self.responders}
            if plan in plans:  # cannot happen: a plan is legal on the state it was found on
                if not self.proven:
                    return None  # unless a solve stopped early: its plan or the bound is not exact
                raise SolverError("internal error: a second-step plan does not tighten the bound")
            plans.append(plan)
            self.plans.append(plan)
            left = reply_count - solved  # replies whose second step is not solved yet
            if solved and reply_count <= MAX_REPLIES and left * steps_work / solved <= rounds_work:
                return _ENUMERATE
            for p in master_side:
                self._cover(cm, best_plan[p], p, sc.parts[cm.add_policy(sc, p, plan)])
        self.out_of_rounds = True
        return None

    def _second_step_reply(self, state: dict[Cell, int]) -> dict[Cell, int]:
        return self._responders_second_step(self._fixed_first_step(state)[0])

    def _responders_second_step(self, line: tuple[Assignment, ...]) -> dict[Cell, int]:
        """The responders' regular-step assignment in ``line``, as a policy for the master."""
        chooser = self._regular_chooser(line)
        return {(a.source, a.target): a.amount for a in line
                if a.step is Step.REGULAR and chooser[a.source] in self.responders}

    def _regular_chooser(self, line: tuple[Assignment, ...]) -> Mapping[ObjectId, ObjectId]:
        """Who divided each creature's regular-step damage in ``line``: as combat began, unless a
        creature with banding that made the other side divide left in the first-strike step."""
        probe = self.probe
        if not probe.unstable:
            return probe.chooser
        outcome, _ = first_step(self.board, line, self.dealing(line))
        return probe.view(frozenset(probe.unstable & set(outcome.destroyed))).chooser

    def _line_value(self, line: tuple[Assignment, ...]) -> int:
        return self.scalar(checked_line(self.board, line, (), self.decider, self.names, "a verification's")[1])

    # --- CP-SAT plumbing ----------------------------------------------------------------------------
    def _total(self, sc) -> Expr | None:
        """The model's value of the whole objective, to compare with the checker's (combined weights
        only: one-at-a-time weights can exceed what CP-SAT evaluates)."""
        return sum((self._scalar_expr(part) for part in sc.parts.values()), 0) if self.combine else None

    def _scalar_expr(self, part: Mapping[str, Term]) -> Expr:
        return linear((w * coef, e) for w, n in zip(self.weights, self.names) for coef, e in part[n].parts)

    def _stages(self, signed_parts: list[tuple[int, Mapping[str, Term]]]) -> list[Expr]:
        """Expressions to maximize in turn: one weighted sum, or one per objective if too wide."""
        if self.combine:
            return [linear((w * sign * coef, e) for w, n in zip(self.weights, self.names)
                           for sign, part in signed_parts for coef, e in part[n].parts)]
        return [linear((sign * coef, e) for sign, part in signed_parts for coef, e in part[n].parts)
                for n in self.names]

    def _optimize(self, cm: CombatModel, stages: list[Expr], cells: Mapping[Any, Expr],
                  total: Expr | None) -> tuple[dict[Any, int], int | None]:
        """Maximize each stage in turn; the cells' values and the model's value of ``total``."""
        if all(isinstance(v, int) for v in cells.values()):
            # Nobody has a choice: no solve; the checker alone values the line.
            return dict(cells), (total if total is None or isinstance(total, int) else None)
        solver = None
        for expr in stages:
            cm.model.maximize(expr)
            solver = self._run(cm.model)
            if solver is None:  # out of time: any legal assignment will do (CP-SAT usually finds one at once)
                cm.model.clear_objective()
                solver = cp_model.CpSolver()
                # wall time only under a time limit: without one every limit is deterministic
                self.settings.apply(solver, None if self.deadline is None else FALLBACK_SECONDS)
                solver.parameters.max_deterministic_time = 10.0
                with stoppable(solver):
                    status = solver.solve(cm.model)
                if status == cp_model.INFEASIBLE and self.case is not None:
                    raise _CaseInfeasible()
                if status == cp_model.UNKNOWN:
                    raise NoLine()
                if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                    raise SolverError(f"internal error: CP-SAT says {solver.status_name(status)}, but every "
                                      "combat has a legal assignment")
                break
            if len(stages) > 1 and not isinstance(expr, int):
                cm.model.add(expr >= solver.value(expr))
        if solver is None:
            cm.model.clear_objective()
            solver = self._run(cm.model)
            if solver is None:
                raise NoLine()
        return {k: _value(solver, v) for k, v in cells.items()}, (None if total is None else _value(solver, total))

    def _run_toward(self, cm: CombatModel, t: cp_model.IntVar, maximize: bool) -> cp_model.CpSolver | None:
        """Optimize ``t``, bounded by the scenarios' totals (a max-min model)."""
        cm.model.maximize(t) if maximize else cm.model.minimize(t)
        if not len(cm.model.proto.search_strategy):  # once per model (models are extended and solved again)
            # Branch on t first, best value first. CP-SAT otherwise tends to take t at its worst and
            # improve it one unit per solution: seconds for a 45-variable model (milliseconds with this).
            cm.model.add_decision_strategy([t], cp_model.CHOOSE_FIRST,
                                           cp_model.SELECT_MAX_VALUE if maximize else cp_model.SELECT_MIN_VALUE)
        return self._run(cm.model, bounded=True)

    def _run(self, model: cp_model.CpModel, infeasible_ok: bool = False,
             bounded: bool = False) -> cp_model.CpSolver | None:
        """Solve; None if out of time with nothing found (or, with ``infeasible_ok``, infeasible).
        ``bounded``: the objective is a variable bounded by sums (a max-min model; see
        :meth:`SolverSettings.apply`)."""
        solver = cp_model.CpSolver()
        remaining = None if self.deadline is None else self.deadline - time.monotonic()
        self.settings.apply(solver, remaining, len(model.proto.variables), self.magnitude, bounded=bounded,
                            amount=self.largest_amount)
        with stoppable(solver):
            status = solver.solve(model)
            if status in (cp_model.INFEASIBLE, cp_model.MODEL_INVALID) and solver.parameters.cp_model_presolve:
                solver.parameters.cp_model_presolve = False  # a presolve failure (seen in ortools 9.15): retry without
                status = solver.solve(model)
        if status == cp_model.INFEASIBLE and infeasible_ok:
            return None
        if status == cp_model.INFEASIBLE and self.case is not None:
            raise _CaseInfeasible()
        if status in (cp_model.INFEASIBLE, cp_model.MODEL_INVALID):
            raise SolverError(f"internal error: CP-SAT says {solver.status_name(status)}, but every "
                              "combat has a legal assignment")
        if status == cp_model.UNKNOWN:
            self.proven = False
            return None
        self.proven &= status == cp_model.OPTIMAL
        self.work += solver.response_proto.deterministic_time
        return solver

    def unproven_reason(self) -> str:
        """Why the answer is not proven optimal."""
        if self.fallback:
            why = "the time limit ran out" if self._expired() else "a CP-SAT solve reached its work limit"
            return (f"{why} before CP-SAT found any line, so this is the simplest legal one (each creature's "
                    "damage all to one recipient, a blocker if it has one)")
        if self._expired():
            return "the time limit ran out"
        if self.too_many_replies:
            return f"the other players have more than {MAX_REPLIES:,} first-step replies to enumerate"
        if self.out_of_rounds:
            return f"the refinement reached its limit of {MAX_ROUNDS:,} round{'s' if MAX_ROUNDS != 1 else ''}"
        return f"a CP-SAT solve reached its work limit ({DETERMINISTIC_LIMIT:g} deterministic seconds)"

    def search_deadline(self) -> float | None:
        """The deadline, at least a millisecond away (None without a time limit): for a search instead."""
        return None if self.deadline is None else max(self.deadline, time.monotonic() + 0.001)

    def _expired(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline


@dataclass
class _MasterModel:
    """The refinement's master model, kept from round to round: the active side's first step
    (``lead``), one scenario per responder reply so far (with the followers' first-step cells, the
    master side's regular-step cells and the responders' best-plan variables of each), bounding ``t``;
    each scenario holds a copy of the responders' second step for each of the first ``policies``."""

    cm: CombatModel
    t: cp_model.IntVar
    lead: dict[Cell, Expr]
    scenarios: list[list[tuple[Expr, Any]]] = field(default_factory=list)
    """For each reply, its scenario with the indicator that it happens (several when the lead decides
    who divides in the regular step, see :meth:`CombatModel.scenarios`)."""
    follow_cells: list[dict[Cell, Expr]] = field(default_factory=list)
    plan_cells: list[list[dict[Any, Expr]]] = field(default_factory=list)
    best: list[list[dict[ObjectId, Expr]]] = field(default_factory=list)
    policies: int = 0


def _second_step_key(first: Mapping[Cell, int]) -> tuple:
    """The key ``Game._fixed_first_step`` remembers a second step by: its first step's damage."""
    return tuple(sorted(first.items()))


def _value(solver: cp_model.CpSolver, v: Expr) -> int:
    return v if isinstance(v, int) else int(solver.value(v))


def _line(values: Mapping[tuple[Step, ObjectId, ObjectId], int]) -> tuple[Assignment, ...]:
    return normalize(Assignment(step, s, t, n) for (step, s, t), n in values.items() if n > 0)
