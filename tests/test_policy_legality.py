"""The encoding's second-step policies against the rules layer's legal assignments.

The refinement's models give a player's regular step as fixed assignments ("policies"), each used
where it is legal on the state the first-strike step left, else a default. Its bounds are only sound
if the encoding judges a policy legal exactly when the checker does: a legal play judged illegal
weakens a bound until the refinement cannot converge; an illegal one judged legal makes a bound a
player could not reach. So on random boards, after first steps taken from the reference search's move
generator, every legal regular-step assignment of the active player (510.1, 702.19, Thorn's two ways)
must be followed as given, and assignments the checker rejects must fall back to the default.
"""

from __future__ import annotations

from itertools import islice, product

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from boards import boards
from optimizer import load_board
from optimizer.assignment import Assignment, Step, normalize
from optimizer.bruteforce import player_options
from optimizer.check import step_violations
from optimizer.encode import CombatModel
from optimizer.rules import damage_steps, first_step

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


def mutations(plan: tuple[Assignment, ...], recipients: dict[str, list[str]]):
    """Assignments near ``plan``: one damage moved to another recipient, one more or one less."""
    cells = {(a.source, a.target): a.amount for a in plan}
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


@settings(max_examples=2000)
@given(board_json=st.one_of(boards(strikes=True), boards(pressure=True, strikes=True), boards()))
def test_policies_follow_exactly_the_assignments_the_checker_allows(board_json):
    board = load_board(board_json)
    active = board.active_player
    probe = CombatModel(board, active, ("kills",))
    assume(probe.unsupported() is None and not probe.unstable)
    for first in first_steps(board):
        later = first_step(board, first)[1] if first or probe.two_steps else board
        if later is None:
            continue  # the game ended in the first-strike step
        plans = list(islice(player_options(later, active, Step.REGULAR, ()), PLANS))
        assert plans, "every combat step has a legal assignment"
        cm = probe.fresh()
        fixed = cm.first_step_cells(cm.sources(Step.FIRST_STRIKE), fixed={(a.source, a.target): a.amount
                                                                           for a in first})
        mine = [s for s in cm.sources(Step.REGULAR) if cm.chooser[s.id] == active]
        recipients = {s.id: [t for t, _ in cm.targets(s)] for s in mine}
        keys = [(s, t) for s, ts in recipients.items() for t in ts]
        legal = [{(a.source, a.target): a.amount for a in plan} for plan in plans]
        dividing = {s: ts for s, ts in recipients.items() if not cm.passive(cm.board.creature(s))}
        nearby = [m for plan in plans[:5] for m in mutations(plan, dividing)]  # one recipient: always all
        illegal = [m for m in nearby if step_violations(
            later, Step.REGULAR, normalize(Assignment(Step.REGULAR, s, t, n) for (s, t), n in m.items() if n),
            set(recipients))]
        assert all(t in recipients.get(s, ()) for plan in legal for s, t in plan), "the model's recipients"
        others = {p.id for p in board.players if p.id != active}
        policies = legal + illegal
        sc = cm.scenario(fixed, free=others, policies={active: [None] + policies})
        default = sc.policy_cells[(active, 0)]
        assert all(isinstance(v, int) for v in default.values()), "a known first step leaves a known state"
        for j, policy in enumerate(policies, start=1):
            followed = sc.policy_cells[(active, j)]
            wanted = {k: policy.get(k, 0) for k in keys}
            if j <= len(legal):
                assert followed == wanted, (first, policy, followed)
            else:
                assert followed == default, (first, policy, followed)
