"""CP-SAT against the exhaustive game search on random small boards (the project's perft)."""

from __future__ import annotations

from itertools import product
from unittest import mock

from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from boards import (banding_boards, boards, effect_order_boards, examples, forced_lead_boards, forced_second_step_boards,
                    indifferent_boards, lifelink_and_banding_boards, lifelink_blocker_boards, objectives,
                    separable_boards, shield_boards, split_boards)
from optimizer import check, load_board
from optimizer.assignment import Step, normalize
from optimizer.bruteforce import brute_force, count_leaves, creature_options
from optimizer.check import step_violations
from optimizer.parts import independent_parts
from optimizer.rules import board_after_first_strike, damage_steps, deal_damage, forced_line, simplest_line
import optimizer.game as game_module
from optimizer.solver import SolverSettings, solve

LEAF_LIMIT = 3000


@settings(max_examples=examples(300))
@given(board_json=effect_order_boards(), objective=objectives, decider=st.sampled_from(["A", "B"]))
def test_the_affected_players_order_of_effects_cpsat_equals_brute_force(board_json, objective, decider):
    """616.1: a doubler and an addition on one recipient, the two orders dealing amounts on either
    side of its toughness or life, values below zero: the affected player orders them as is best for
    it, the decider (either way) or another player (worst for the decider)."""
    result = assert_matches_brute_force(board_json, objective, decider, searched_ok=True)
    event("method: " + result.method)


@settings(max_examples=examples(1000))
@given(board_json=st.one_of(boards(), boards(pressure=True)), objective=objectives,
       decider=st.sampled_from(["A", "A", "B", "C", "D"]))
def test_cpsat_optimum_equals_brute_force(board_json, objective, decider):
    assert_matches_brute_force(board_json, objective, decider)


def assert_matches_brute_force(board_json, objective, decider, searched_ok: bool = False):
    """The solver proves the brute-force game value, and its line passes the checker with that outcome.

    Only boards with a choice count (forced lines: ``test_a_forced_line_is_the_only_legal_line``), and
    their answer must come from CP-SAT, or, with ``searched_ok``, from the exhaustive search for boards
    the encoding does not model (which brute force then checks less independently: it shares that
    search's code). So a shortcut or a refusal that took boards away from the encoding would fail here."""
    board = load_board(board_json)
    assume(board.is_player(decider))
    assume(count_leaves(board) <= LEAF_LIMIT)
    result = solve(board, player=decider, objective=objective)
    assume(result.method != "forced")
    assert result.method == "cp-sat" or (searched_ok and result.method in ("exhaustive", "stepwise")), result.method
    expected = brute_force(board, decider, objective)
    assert result.status == "optimal"
    assert tuple(result.objective[name] for name in objective) == expected.value
    verdict = check(board, result.assignments, result.dealing)
    assert verdict.legal, verdict.violations
    assert verdict.outcome == result.outcome
    for choice in result.dealing:  # each reports what every shield in its order prevented (615.7)
        assert [i for i, _ in choice.prevented] == [i for i in choice.order if board.effects[i].is_shield], choice
    return result


@settings(max_examples=examples(600))
@given(board_json=st.one_of(boards(effects=True), boards(pressure=True, effects=True),
                            boards(strikes=True, effects=True)),
       objective=objectives, decider=st.sampled_from(["A", "A", "B", "C", "D"]))
def test_effects_cpsat_equals_brute_force(board_json, objective, decider):
    """615, 616, 702.16e: damage dealt through protection, prevention, shields, doubling and additions,
    in one or two damage steps; boards the encoding does not model go to the exhaustive search."""
    result = assert_matches_brute_force(board_json, objective, decider, searched_ok=True)
    event("method: " + result.method)


@settings(max_examples=examples(300))
@given(board_json=shield_boards(), objective=objectives, decider=st.sampled_from(["A", "A", "B", "C"]))
def test_shields_reached_by_several_sources_cpsat_equals_brute_force(board_json, objective, decider):
    """615.7: shields that damage from several sources reaches at once, in one or two steps."""
    result = assert_matches_brute_force(board_json, objective, decider, searched_ok=True)
    event("method: " + result.method)


@settings(max_examples=examples(200))
@given(board_json=shield_boards(first_strike=True), objective=objectives,
       decider=st.sampled_from(["A", "A", "B", "C"]))
def test_shields_both_damage_steps_reach_cpsat_equals_brute_force(board_json, objective, decider):
    """615.7 across 510.4: what first-strike damage leaves of a shield is what the regular step meets,
    with the affected player's order of a shield and a doubler or addition (616.1) in each step."""
    result = assert_matches_brute_force(board_json, objective, decider, searched_ok=True)
    event("method: " + result.method)


@settings(max_examples=examples(300))
@given(board_json=st.one_of(boards(strikes=True, effects=True), boards(strikes=True, effects=True, pressure=True),
                            shield_boards(), lifelink_blocker_boards()),
       objective=objectives, decider=st.sampled_from(["A", "A", "B", "C"]))
def test_stepwise_search_equals_brute_force(board_json, objective, decider):
    """The fallback for large boards the encoding does not model (every first-strike line searched,
    each regular step solved on the board it begins with), on small boards with two damage steps,
    whether or not the encoding models them."""
    import optimizer.search as search_module
    from optimizer.rules import damage_steps

    board = load_board(board_json)
    assume(board.is_player(decider) and len(damage_steps(board)) == 2)
    assume(count_leaves(board) <= LEAF_LIMIT)
    with mock.patch.object(search_module, "REGULAR_STEP_COST", 0):
        result = search_module.exhaustive_search(board, decider, tuple(objective), "forced", SolverSettings())
    expected = brute_force(board, decider, objective)
    assert result.method == "stepwise"
    assert tuple(result.objective[name] for name in objective) == expected.value
    verdict = check(board, result.assignments, result.dealing)
    assert verdict.legal and verdict.outcome == result.outcome


@settings(max_examples=examples(300))
@given(board_json=st.one_of(boards(), boards(strikes=True), boards(strikes=True, pressure=True),
                            boards(strikes=True, effects=True), shield_boards()),
       objective=objectives, decider=st.sampled_from(["A", "A", "B", "C"]))
def test_presolve_and_relaxation_on_every_model_give_the_brute_force_optimum(board_json, objective, decider):
    """CP-SAT's presolve (on for models of 200 variables or more with moderate objective weights) and
    the max-min models' linear relaxation (from 200 variables) do not change the answer: here they run
    on every model, small ones included."""
    board = load_board(board_json)
    assume(board.is_player(decider))
    assume(count_leaves(board) <= LEAF_LIMIT)
    result = solve(board, player=decider, objective=objective, settings=SolverSettings(presolve_from=0, maxmin_linearization_from=0))
    assert tuple(result.objective[name] for name in objective) == brute_force(board, decider, objective).value
    assert result.status == "optimal" and check(board, result.assignments, result.dealing).legal


def loss_first(name: str):
    """Objective lists led by ``name`` (``lethal`` or ``alive``): a player's loss matters most."""
    return objectives.map(lambda names: [name] + [n for n in names if n != name])


@settings(max_examples=examples(300))
@given(board_json=lifelink_blocker_boards(),
       objective=st.one_of(objectives, loss_first("lethal"), loss_first("alive")),
       decider=st.sampled_from(["A", "A", "B", "C"]))
def test_lifelink_blocker_gain_cpsat_equals_brute_force(board_json, objective, decider):
    """702.15b with 615-616: a lifelink blocker whose gain depends on how its player divides its
    damage, with ``lethal`` or ``alive`` often scored, so that the gain can decide whether that player loses."""
    result = assert_matches_brute_force(board_json, objective, decider, searched_ok=True)
    event("method: " + result.method)


@settings(max_examples=examples(150))
@given(board_json=st.one_of(boards(pressure=True, max_defenders=1), boards(pressure=True), lifelink_blocker_boards()),
       objective=loss_first("alive"), decider=st.sampled_from(["B", "B", "C"]))
def test_a_deciding_defenders_own_loss_cpsat_equals_brute_force(board_json, objective, decider):
    """704.5a with ``alive`` first and a defending player deciding: its own loss counts against it, so
    its first-strike replies, its lifelink blockers' division (510.2) and the order of effects on
    damage to it (616.1) must keep it in the game where any line does; low life totals, tramplers; with
    three or more players its creatures leave with it (800.4a)."""
    result = assert_matches_brute_force(board_json, objective, decider, searched_ok=True)
    event("method: " + result.method)


@settings(max_examples=examples(150))
@given(board_json=lifelink_and_banding_boards(),
       objective=st.one_of(objectives, loss_first("lethal"), loss_first("alive")),
       decider=st.sampled_from(["A", "A", "B"]))
def test_lifelink_blocker_gain_with_banding_cpsat_equals_brute_force(board_json, objective, decider):
    """702.15b with 702.22j: the lifelink blocker's gain deciding whether its player loses, while
    first-strike damage may end a banding division, or both players divide damage to a creature."""
    result = assert_matches_brute_force(board_json, objective, decider, searched_ok=True)
    event("method: " + result.method)


@settings(max_examples=examples(300))
@given(board_json=banding_boards(), objective=objectives, decider=st.sampled_from(["A", "A", "B", "C"]))
def test_banding_cpsat_equals_brute_force(board_json, objective, decider):
    """702.22j-k: the other side divides damage, in one or two steps, with Thorn-style attackers and in
    multiplayer games."""
    result = assert_matches_brute_force(board_json, objective, decider, searched_ok=True)
    event("method: " + result.method)


@settings(max_examples=examples(250))
@given(board_json=banding_boards(both_sides=True), objective=objectives, decider=st.sampled_from(["A", "B"]))
def test_banding_on_both_sides_with_double_strike_cpsat_equals_brute_force(board_json, objective, decider):
    """702.22j-k across 510.4: creatures with banding on both sides, each side's first-strike division
    deciding whether the other side's regular-step division changes hands."""
    result = assert_matches_brute_force(board_json, objective, decider, searched_ok=True)
    event("method: " + result.method)


@settings(max_examples=examples(150), suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(board_json=banding_boards(), objective=objectives, decider=st.sampled_from(["A", "B", "C", "D"]))
def test_multiplayer_banding_cpsat_equals_brute_force(board_json, objective, decider):
    """702.22j-k with 800.4a: a defending player dividing damage dealt to its own creatures, which
    leave with it if it loses, and dividers the first-strike step may change, in games of three or
    more players."""
    assume(len(board_json["players"]) >= 3)
    result = assert_matches_brute_force(board_json, objective, decider, searched_ok=True)
    event("method: " + result.method)


@settings(max_examples=examples(100))
@given(board_json=boards(), objective=objectives)
def test_one_objective_at_a_time_gives_the_same_optimum(board_json, objective):
    """The sequential lexicographic path (used when ranges are too wide to combine) agrees."""
    board = load_board(board_json)
    assume(count_leaves(board) <= LEAF_LIMIT)
    sequential = solve(board, objective=objective, max_combined_range=1)
    assert sequential.status == "optimal"
    assert tuple(sequential.objective[name] for name in objective) == brute_force(board, sequential.player, objective).value
    assert check(board, sequential.assignments, sequential.dealing).outcome == sequential.outcome


@settings(max_examples=examples(500))
@given(board_json=st.one_of(boards(strikes=True), boards(strikes=True, pressure=True),
                            boards(strikes=True, max_attackers=2, max_blockers=2)),
       objective=objectives, decider=st.sampled_from(["A", "A", "B", "C", "D"]))
def test_two_damage_steps_cpsat_equals_brute_force(board_json, objective, decider):
    """510.4: both steps planned jointly, every other player replying worst-case in both steps."""
    assert_matches_brute_force(board_json, objective, decider)


def assert_shortcut_matches_refinement(board_json, objective, decider, method: str, switch: str) -> None:
    """Where the solver's shortcut ``Game.<method>`` answers (checked with a spy: it returns neither
    None nor False), its answer equals the refinement's (the module switch ``switch`` off) and brute
    force, and its line is legal. The shortcut taken before the others (``INDIFFERENT_RESPONDERS``:
    one model when the other side's choices score nothing) is off while they are tested, as it would
    answer for them on many of their boards; the brute-force tests above run with every shortcut on."""
    board = load_board(board_json)
    assume(board.is_player(decider))
    assume(count_leaves(board) <= LEAF_LIMIT)
    taken = []
    original = getattr(game_module.Game, method)

    def spy(game, *args):
        found = original(game, *args)
        taken.append(found is not None and found is not False)
        return found

    with mock.patch.object(game_module, "INDIFFERENT_RESPONDERS", switch == "INDIFFERENT_RESPONDERS"):
        with mock.patch.object(game_module.Game, method, spy):
            result = solve(board, player=decider, objective=objective)
        assume(any(taken))
        event(method)
        with mock.patch.object(game_module, switch, False):
            refined = solve(board, player=decider, objective=objective)
    assert result.status == refined.status == "optimal"
    assert result.objective == refined.objective
    assert tuple(result.objective[n] for n in objective) == brute_force(board, decider, objective).value
    verdict = check(board, result.assignments, result.dealing)
    assert verdict.legal, verdict.violations


@settings(max_examples=examples(300))
@given(board_json=st.one_of(separable_boards(), separable_boards(effects=True)), objective=objectives,
       decider=st.sampled_from(["A", "B"]))
def test_separable_two_steps_equal_brute_force_and_refinement(board_json, objective, decider):
    """510.4: where the active side's first-strike damage cannot change the defender's regular step,
    one model for both sides (``Game._separable``) gives the game value the refinement gives."""
    assert_shortcut_matches_refinement(board_json, objective, decider, "_separable", "SEPARABLE_STEPS")


@settings(max_examples=examples(200))
@given(board_json=st.one_of(forced_lead_boards(), forced_lead_boards(effects=True), banding_boards()),
       objective=objectives, decider=st.sampled_from(["A", "B"]))
def test_forced_first_step_equals_brute_force_and_refinement(board_json, objective, decider):
    """510.4: where the active side's first strikers each have one recipient (510.1a) and the other
    side has choices, verifying that one first step (``Game._forced_lead``) gives the game value
    that refinement with master models gives."""
    assert_shortcut_matches_refinement(board_json, objective, decider, "_forced_lead", "FORCED_LEAD")


@settings(max_examples=examples(200))
@given(board_json=forced_second_step_boards(), objective=objectives, decider=st.sampled_from(["A", "B"]))
def test_forced_second_step_equals_brute_force_and_the_model(board_json, objective, decider):
    """510.4: where a first step leaves a regular step in which nobody has a choice (510.1a), valuing
    that step's only line with the checker (``Game._forced_second_step``) gives the game value that
    solving it with a model gives."""
    assert_shortcut_matches_refinement(board_json, objective, decider, "_forced_second_step", "FORCED_SECOND_STEP")


@settings(max_examples=examples(300))
@given(board_json=st.one_of(indifferent_boards(), indifferent_boards(effects=True)),
       objective=objectives, decider=st.sampled_from(["A", "A", "B"]))
def test_responders_whose_regular_step_scores_nothing_equal_brute_force_and_refinement(board_json, objective,
                                                                                      decider):
    """510.4: where the other side has no first-step choice and its regular-step divisions decide
    nothing the objectives count, one model with its default play (``Game._responders_indifferent``,
    then ``Game._joint``) gives the game value that refinement gives."""
    assert_shortcut_matches_refinement(board_json, objective, decider, "_responders_indifferent",
                                       "INDIFFERENT_RESPONDERS")


@settings(max_examples=examples(300), suppress_health_check=[HealthCheck.filter_too_much])
@given(board_json=st.one_of(boards(), boards(strikes=True), boards(effects=True), banding_boards(),
                            lifelink_blocker_boards(), indifferent_boards(effects=True)),
       objective=objectives, decider=st.sampled_from(["A", "B", "C"]))
def test_a_player_said_to_score_nothing_has_no_term_in_its_part(board_json, objective, decider):
    """``CombatModel.scores_regular_step`` is what ``Game._responders_indifferent`` trusts: a player
    other than the active one for whom it says False has no term in its part of a scenario with
    every player's regular step free, whatever the first step."""
    from optimizer.encode import CombatModel

    board = load_board(board_json)
    assume(board.is_player(decider))
    cm = CombatModel(board, decider, objective)
    assume(cm.unsupported() is None and not cm.unstable)
    quiet = [p.id for p in board.players if p.id != board.active_player and not cm.scores_regular_step(p.id)]
    assume(quiet)
    first = cm.first_step_cells(cm.sources(Step.FIRST_STRIKE)) if cm.two_steps else {}
    scenario = cm.scenario(first, free={p.id for p in board.players}, policies={})
    for player in quiet:
        assert all(not term.parts for term in scenario.parts[player].values()), player
    event(f"{len(quiet)} quiet")


def test_first_strike_the_active_player_divides_onto_an_attacker_the_defender_scores():
    """702.22j: the attacking player divides the first-strike blocker's damage (``a2`` has banding)
    among its own attackers, and puts it on ``a1`` (protection from white prevents it, 702.16e); the
    defender scores the fates of attackers nobody damages in the regular step, so its part is not
    independent of that first step (a one-model solve would let the defender's side pick it)."""
    board = load_board({
        "active_player": "A", "players": [{"id": "A", "life": 20}, {"id": "B", "life": 1}],
        "creatures": [
            {"id": "a1", "controller": "A", "power": 0, "toughness": 1, "attacking": "B", "protection_from": ["white"]},
            {"id": "a2", "controller": "A", "power": 0, "toughness": 1, "attacking": "B", "keywords": ["banding"]},
            {"id": "a3", "controller": "A", "power": 1, "toughness": 1, "attacking": "B"},
            {"id": "l", "controller": "B", "power": 1, "toughness": 1, "blocking": ["a1", "a2"], "colors": ["white"],
             "keywords": ["lifelink", "first strike"]},
            {"id": "k", "controller": "B", "power": 0, "toughness": 1, "blocking": ["a3"], "keywords": ["banding"]},
            {"id": "z", "controller": "B", "power": 0, "toughness": 1, "blocking": ["a3"]}]})
    result = solve(board, objective=["survivors"])
    assert result.objective == {"survivors": 3} == {"survivors": brute_force(board, "A", ["survivors"]).value[0]}
    assert {(a.source, a.target) for a in result.assignments if a.step.value == "first_strike"} == {("l", "a1")}


@settings(max_examples=examples(400))
@given(board_json=st.one_of(boards(), boards(strikes=True, pressure=True), boards(strikes=True, effects=True),
                            banding_boards(), shield_boards(first_strike=True)))
def test_the_simplest_line_is_always_legal(board_json):
    """510.1a-d, 702.19b: each creature's damage all to one recipient, a blocker if it has one, in
    each step on the board the first-strike step leaves, is legal on every board: it is the answer
    when CP-SAT finds no line in its time."""
    board = load_board(board_json)
    verdict = check(board, simplest_line(board))
    assert verdict.legal, [str(v) for v in verdict.violations]


def legal_lines(board) -> list[tuple]:
    """Every legal line of a board without damage effects, step by step: every combination of every
    creature's candidate splits (the brute force's), kept when the checker finds nothing wrong with
    the step, the regular step on the board each legal first step leaves."""
    lines = []

    def step_lines(on, steps, before):
        if not steps or on is None:
            lines.append(normalize(before))
            return
        step = steps[0]
        rows = [creature_options(on, c.id, step) for c in on.combatants]
        for combo in product(*rows):
            played = normalize(a for part in combo for a in part)
            if step_violations(on, step, played):
                continue
            later = board_after_first_strike(on, deal_damage(on, played)) if step is Step.FIRST_STRIKE else None
            step_lines(later, steps[1:], before + played)

    step_lines(board, damage_steps(board), ())
    return lines


@settings(max_examples=examples(300))
@given(board_json=st.one_of(boards(), boards(strikes=True), boards(strikes=True, pressure=True), banding_boards()))
def test_a_forced_line_is_the_only_legal_line(board_json):
    """510.1a: when every creature that assigns damage has one recipient and one way to assign in each
    step, and damage is dealt as assigned, the solver answers that line without a model; it must be
    the board's only legal line (the brute force's splits judged by the checker)."""
    board = load_board(board_json)
    forced = forced_line(board)
    assume(forced is not None)
    assume(count_leaves(board) <= LEAF_LIMIT)
    assert legal_lines(board) == [normalize(forced)]
    result = solve(board)
    assert result.method == "forced" and result.status == "optimal"
    assert normalize(result.assignments) == normalize(forced)


# about a quarter of these boards do not split soundly (a player could lose, fewer than two parts with
# replies) and some are too large for brute force: a run of them at the start is not a broken strategy
@settings(max_examples=examples(150), suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(board_json=st.one_of(split_boards(), split_boards(effects=True)), objective=objectives,
       decider=st.sampled_from(["A", "A", "B", "C", "D"]))
def test_boards_solved_part_by_part_equal_brute_force(board_json, objective, decider):
    """Independent groups of creatures, solved one by one when no player can lose: the sum of the
    parts' values is the whole board's (brute force searches the whole board at once)."""
    parts = independent_parts(load_board(board_json))
    assume(parts is not None)  # the boards that do not split are the other tests' kind
    event(f"parts: {len(parts)}")
    assert_matches_brute_force(board_json, objective, decider, searched_ok=True)


@st.composite
def powerless_first_strike_boards(draw):
    """Two-step boards whose first and double strikers all have power 0 or less: the first-strike
    step deals nothing (510.1a), and the solver solves the regular step alone."""
    board = draw(boards(strikes=True))
    for c in board["creatures"]:
        if any("strike" in k.lower() for k in c.get("keywords", [])):
            c["power"] = draw(st.sampled_from([-1, 0]))
            c.pop("assigns_damage_by_toughness", None)
    return board


@settings(max_examples=examples(200))
@given(board_json=powerless_first_strike_boards(), objective=objectives, decider=st.sampled_from(["A", "A", "B", "C"]))
def test_a_first_strike_step_without_damage_equals_brute_force(board_json, objective, decider):
    event("two steps: " + str(Step.FIRST_STRIKE in damage_steps(load_board(board_json))))
    assert_matches_brute_force(board_json, objective, decider)


def _every_legal_line_leaves_everyone_in(board) -> bool:
    """Whether no legal line of the combat (every creature's every split, in each step) makes a
    player lose (704.5a, 704.5c, 704.6c); boards without damage effects (one way to deal each damage)."""
    steps = damage_steps(board)

    def legal_lines(on, step):
        sources = [c.id for c in on.combatants]
        for combo in product(*(creature_options(on, s, step) for s in sources)):
            line = tuple(a for option in combo for a in option)
            if not step_violations(on, step, line):
                yield line

    def lost(outcome):
        return any(p.lost for p in outcome.players.values())

    if steps == (Step.REGULAR,):
        return not any(lost(deal_damage(board, line)) for line in legal_lines(board, Step.REGULAR))
    for first in legal_lines(board, Step.FIRST_STRIKE):
        outcome = deal_damage(board, first)
        if lost(outcome):
            return False
        later = board_after_first_strike(board, outcome)
        if any(lost(deal_damage(later, line)) for line in legal_lines(later, Step.REGULAR)):
            return False
    return True


@settings(max_examples=examples(400))
@given(board_json=st.one_of(boards(pressure=True), boards(pressure=True, strikes=True), boards(strikes=True)))
def test_no_player_can_lose_when_the_parts_bound_says_so(board_json):
    """``optimizer.parts.could_lose`` is a bound: when it says no player can lose, no legal line of the
    combat makes one lose (what makes splitting a board into parts sound)."""
    from optimizer.parts import could_lose

    board = load_board(board_json)
    assume(count_leaves(board) <= LEAF_LIMIT)
    assume(not could_lose(board))  # the bound claims nothing otherwise
    assert _every_legal_line_leaves_everyone_in(board)
