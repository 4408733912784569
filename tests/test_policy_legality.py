"""The encoding's second-step policies against the rules layer's legal assignments.

The refinement's models give a player's regular step as fixed assignments ("policies"), each
independent part of one used where it is legal on the state the first-strike step left, else a
default. Its bounds are only sound if the encoding judges a policy legal exactly when the checker
does: a legal play judged illegal weakens a bound until the refinement cannot converge; an illegal
one judged legal makes a bound a player could not reach. So on random boards, after first steps
taken from the reference search's move generator, every legal regular-step assignment of the active
player (510.1, 702.19, Thorn's two ways) must be followed as given, each independent part of one
that the checker rejects must fall back to its default, and every play a policy makes must be legal.
"""

from __future__ import annotations

from itertools import islice, product

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from ortools.sat.python import cp_model

from boards import banding_boards, boards, examples
from optimizer import load_board
from optimizer.assignment import Assignment, Step, normalize
from optimizer.bruteforce import player_options
from optimizer.check import step_violations
from optimizer.dealing import DealingChoice
from optimizer.encode import CombatModel, _State
from optimizer.rules import damage_amount, damage_steps, first_step, possible_recipients, tramples

FIRST_STEPS = 12
"""First-strike lines tried per board (the first ones the move generator gives, in turn order)."""
PLANS = 40
"""Legal regular-step assignments of the active player tried per first-strike line."""


def first_steps(board):
    """Up to :data:`FIRST_STEPS` legal first-strike lines: each player's options in turn order."""
    if Step.FIRST_STRIKE not in damage_steps(board):
        return [()]
    order = board.turn_order()
    options = [list(islice(player_options(board, p, Step.FIRST_STRIKE, ()), 4)) for p in order]
    return [tuple(a for part in combo for a in part) for combo in islice(product(*options), FIRST_STEPS)]


def after(probe: CombatModel, first):
    """The first-strike step's outcome and the board it leaves (the board itself with one step), its
    effects applied in the orders the model takes for them (616.1), as the solver reports its lines."""
    board = probe.board
    if not probe.two_steps:
        return None, board
    orders = [(a, probe.dealing_order((a.source, a.target), Step.FIRST_STRIKE)) for a in first]
    dealing = [DealingChoice(Step.FIRST_STRIKE, a.source, a.target, order) for a, order in orders if order]
    return first_step(board, first, dealing)


def mutations(cells: dict[tuple[str, str], int], recipients: dict[str, list[str]]):
    """Assignments near ``cells``: one damage moved to another recipient, one more or one less."""
    for source, targets in recipients.items():
        for t in targets:
            for delta in (1, -1):
                changed = dict(cells)
                changed[(source, t)] = changed.get((source, t), 0) + delta
                if changed[(source, t)] >= 0:
                    yield changed
            for other in targets:
                if other != t and cells.get((source, t), 0) > 0:
                    moved = dict(cells)
                    moved[(source, t)] -= 1
                    moved[(source, other)] = moved.get((source, other), 0) + 1
                    yield moved


@settings(max_examples=examples(2000))
@given(board_json=st.one_of(boards(strikes=True), boards(pressure=True, strikes=True), boards(),
                            boards(strikes=True, effects=True), banding_boards(both_sides=True)))
def test_policies_follow_exactly_the_assignments_the_checker_allows(board_json):
    board = load_board(board_json)
    probe = CombatModel(board, board.active_player, ("kills",))
    assume(probe.unsupported() is None and not probe.unstable)
    checked = 0
    for first in first_steps(board):
        later = after(probe, first)[1]
        if later is None:
            continue  # the game ended in the first-strike step
        for player in later.turn_order():
            checked += assert_policies_follow_the_checker(probe, first, later, player)
    assume(checked)  # some player divides regular-step damage


def independent_units(board, recipients: dict[str, list[str]]) -> list[set[str]]:
    """The sources in groups linked by what two of them may damage where other damage matters: a
    trampler's blockers, whose lethal damage counts every creature's damage to them (702.19b), and a
    planeswalker whose attacker has trample over planeswalkers, whose loyalty counts every damage to
    it (702.19c). Nothing else makes one creature's assignment legal or not by another's."""
    shared: set[str] = set()
    for s, targets in recipients.items():
        creature = board.creature(s)
        if creature.attacking is not None and tramples(creature):
            shared |= {t for t in targets if board.is_creature(t)}
        attacked = creature.attacking
        if (attacked is not None and board.is_planeswalker(attacked)
                and board.controller_of(attacked) in targets):  # trample over planeswalkers
            shared.add(attacked)
    units: list[tuple[set[str], set[str]]] = []  # (sources, what links them)
    for s, targets in recipients.items():
        mine, linked = {s}, set(targets) & shared
        for unit in [u for u in units if u[1] & linked]:
            units.remove(unit)
            mine |= unit[0]
            linked |= unit[1]
        units.append((mine, linked))
    return [sources for sources, _ in units]


def assert_policies_follow_the_checker(probe: CombatModel, first, later, player: str) -> bool:
    """``player``'s regular-step policies after ``first`` (False: it has no regular-step sources, nothing
    is checked): for a player with attackers, each group of
    creatures whose legality is linked (:func:`independent_units`) follows its part of the assignment
    when that part is legal (trample counts all of the group's damage, 702.19b), else its default; for
    a player who only blocks, each creature's part on its own (510.1d)."""
    plans = list(islice(player_options(later, player, Step.REGULAR, ()), PLANS))
    assert plans, "every combat step has a legal assignment"
    cm = probe.fresh()
    fixed = cm.first_step_cells(cm.sources(Step.FIRST_STRIKE), fixed={(a.source, a.target): a.amount
                                                                       for a in first})
    mine = [s for s in cm.sources(Step.REGULAR) if cm.chooser[s.id] == player]
    if not mine:
        return False  # nothing of its to follow
    whole = any(s.attacking is not None for s in mine)
    recipients = {s.id: [t for t, _ in cm.targets(s)] for s in mine}
    legal = [{(a.source, a.target): a.amount for a in plan} for plan in plans]
    assert all(t in recipients.get(s, ()) for plan in legal for s, t in plan), "the model's recipients"
    dividing = {s: ts for s, ts in recipients.items() if not cm.passive(cm.board.creature(s))}
    nearby = [m for plan in legal[:5] for m in mutations(plan, dividing)]  # one recipient: always all
    policies = legal + nearby
    others = {p.id for p in later.players if p.id != player}
    sc = cm.scenario(fixed, free=others, policies={player: [None] + policies})
    default = sc.policy_cells[(player, 0)]
    assert all(isinstance(v, int) for v in default.values()), "a known first step leaves a known state"

    def violations(policy, sources):
        line = normalize(Assignment(Step.REGULAR, s, t, n) for (s, t), n in policy.items() if n and s in sources)
        return step_violations(later, Step.REGULAR, line, sources)

    units = independent_units(probe.board, recipients) if whole else [{s} for s in recipients]
    for j, policy in enumerate(policies, start=1):
        followed = sc.policy_cells[(player, j)]
        assert not violations(followed, set(recipients)), (player, first, policy, followed)  # a legal play
        for unit in units:
            keys = [(s, t) for s in unit for t in recipients[s]]
            got = {k: followed[k] for k in keys}
            if j <= len(legal) or not violations(policy, unit):
                assert got == {k: policy.get(k, 0) for k in keys}, (player, first, policy, followed)
            else:
                assert got == {k: default[k] for k in keys}, (player, first, policy, followed)
    return True


@settings(max_examples=examples(500))
@given(board_json=st.one_of(boards(strikes=True), boards(pressure=True, strikes=True), boards(),
                            boards(strikes=True, effects=True), banding_boards(both_sides=True)))
def test_free_regular_step_cells_allow_exactly_the_assignments_the_checker_allows(board_json):
    """The same for the regular step as a model's free variables: on a known first step, fixing one
    player's cells to an assignment leaves the model feasible exactly when the checker allows the
    assignment (for a player with attackers as a whole, else each creature's part, 510.1d)."""
    board = load_board(board_json)
    probe = CombatModel(board, board.active_player, ("kills",))
    assume(probe.unsupported() is None and not probe.unstable)
    for first in first_steps(board)[:4]:
        later = after(probe, first)[1]
        if later is None:
            continue
        cm = probe.fresh()
        fixed = cm.first_step_cells(cm.sources(Step.FIRST_STRIKE), fixed={(a.source, a.target): a.amount
                                                                           for a in first})
        sc = cm.scenario(fixed, free={p.id for p in board.players}, policies={})
        for player in later.turn_order():
            assert_feasible_exactly_when_allowed(cm, sc.cells, later, player, Step.REGULAR)


def assert_feasible_exactly_when_allowed(cm: CombatModel, cells, board, player: str, step: Step) -> None:
    """Fixing ``player``'s cells of ``step`` to one of its legal assignments on ``board`` (the board
    as the step begins), or to one near those, leaves the model feasible exactly when the checker
    allows it: for a player with attackers as a whole, else each creature's part (510.1d)."""
    mine = [s for s in cm.sources(step) if cm.chooser[s.id] == player]
    recipients = {s.id: [t for t, _ in cm.targets(s)] for s in mine}
    plans = [{(a.source, a.target): a.amount for a in plan}
             for plan in islice(player_options(board, player, step, ()), 10)]
    dividing = {s: ts for s, ts in recipients.items()
                if len(ts) > 1 or cm.two_modes(cm.board.creature(s))}  # one recipient: always all
    nearby = [m for plan in plans[:3] for m in mutations(plan, dividing)][:20]
    units = [set(recipients)] if any(s.attacking is not None for s in mine) else [{s} for s in recipients]
    for k, assignment in enumerate(plans + nearby):
        allowed = k < len(plans) or not any(step_violations(board, step, normalize(
            Assignment(step, s, t, n) for (s, t), n in assignment.items() if n and s in unit), unit)
            for unit in units)
        assert feasible(cm, cells, assignment, recipients, step) == allowed, (player, step, assignment)


def feasible(cm: CombatModel, cells, assignment, recipients, step: Step = Step.REGULAR) -> bool:
    """Whether the model allows ``assignment`` of these sources' damage in ``step``."""
    model = cm.model.clone()
    model.clear_objective()
    for s, targets in recipients.items():
        for t in targets:
            v, want = cells[(step, s, t)], assignment.get((s, t), 0)
            if isinstance(v, int):
                if v != want:
                    return False
                continue
            model.add(model.get_int_var_from_proto_index(v.index) == want)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    return solver.solve(model) in (cp_model.OPTIMAL, cp_model.FEASIBLE)


@settings(max_examples=examples(500))
@given(board_json=st.one_of(boards(strikes=True), boards(pressure=True, strikes=True),
                            boards(strikes=True, effects=True), banding_boards(both_sides=True)))
def test_free_first_step_cells_allow_exactly_the_assignments_the_checker_allows(board_json):
    """The first-strike step's free variables (510.4, 702.7b): fixing one player's first-step cells
    leaves the model feasible exactly when the checker allows that player's assignment."""
    board = load_board(board_json)
    probe = CombatModel(board, board.active_player, ("kills",))
    assume(probe.unsupported() is None and not probe.unstable and probe.two_steps)
    cm = probe.fresh()
    cells = cm.first_step_cells(cm.sources(Step.FIRST_STRIKE))
    for player in board.turn_order():  # each player's assignment is judged as it is made (510.1e), as the
        # solver's models judge the active side's: trample counts the damage that player assigns
        cm.first_step_trample({k: v for k, v in cells.items() if cm.chooser[k[0]] == player})
    cells = {(Step.FIRST_STRIKE, s, t): v for (s, t), v in cells.items()}
    for player in board.turn_order():
        assert_feasible_exactly_when_allowed(cm, cells, board, player, Step.FIRST_STRIKE)

@settings(max_examples=examples(500))
@given(board_json=st.one_of(boards(strikes=True), boards(pressure=True, strikes=True),
                            boards(strikes=True, effects=True), banding_boards(both_sides=True)))
def test_the_model_s_state_after_a_first_step_is_the_rules_layer_s(board_json):
    """510.4, 704: on a known first step the model's state is a set of constants, and they must be
    what dealing that damage and the state-based actions leave: which creatures are destroyed, who
    lost, -1/-1 counters, and each regular-step source's damage and recipients."""
    board = load_board(board_json)
    probe = CombatModel(board, board.active_player, ("kills",))
    assume(probe.unsupported() is None and not probe.unstable and probe.two_steps)
    for first in first_steps(board):
        outcome, later = after(probe, first)
        cm = probe.fresh()
        fixed = cm.first_step_cells(cm.sources(Step.FIRST_STRIKE), fixed={(a.source, a.target): a.amount
                                                                           for a in first})
        st_ = _State(cm, fixed)
        assert {p: bool(v) for p, v in st_.lost.items()} == {p: o.lost for p, o in outcome.players.items()}
        assert {c: bool(v) for c, v in st_.dead.items()} == {c: o.destroyed for c, o in outcome.creatures.items()}
        assert st_.counters == {c: o.minus_counters for c, o in outcome.creatures.items()}
        if later is None:
            continue
        for s in cm.sources(Step.REGULAR):
            on_later = later.get(s.id)
            reach = possible_recipients(later, on_later, Step.REGULAR) if on_later is not None else {}
            expected = max(damage_amount(on_later), 0) if reach else 0
            assert st_.effective_power(s) == expected, (first, s.id)
            for t, _ in cm.targets(s):
                assert bool(st_.available(t)) == still_there(later, t), (first, s.id, t)


def still_there(later, object_id: str) -> bool:
    """Whether ``object_id`` can be dealt damage in the regular step (506.4c, 800.4a)."""
    if later.is_player(object_id):
        return later.player(object_id).in_game
    obj = later.get(object_id)
    if obj is None:
        return False  # a creature destroyed, or gone with its controller
    return later.is_creature(object_id) or not obj.removed_from_combat
