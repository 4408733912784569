"""Damage that changes on the way: protection (702.16e), prevention (615), shields (615.7), doubling and
additions (614), "can't be prevented" (615.12), the affected player's order (616.1), and banding's
choosers (702.22j-k). Legality and lethal use damage assigned (702.19b); results use damage dealt.
Expected answers are worked out by hand.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import permutations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from optimizer import InvalidAssignmentError, InvalidBoardError, SolverSettings, Step, check, load_board
from optimizer.assignment import Assignment, normalize
from optimizer.dealing import _distinct_orders, deal, dealing_options
from optimizer.encode import CombatModel
from scenarios import attacker, blocker, check_line, make_board, planeswalker, player, solved

FURNACE = {"kind": "double"}


def dmg(source: str, target: str, amount: int, step: str = "regular") -> dict:
    return {"step": step, "source": source, "target": target, "amount": amount}


def assigned(result) -> dict[tuple[str, str], int]:
    return {(a.source, a.target): a.amount for a in result.assignments}


# --- protection ----------------------------------------------------------------------------------

def test_trampler_must_assign_lethal_to_a_blocker_protected_from_it():
    """702.19b example: a 6/6 green trampler blocked by a 2/2 with protection from green assigns at
    least 2 to it (prevented, 702.16e); the 2/2 survives and B takes 4."""
    board = make_board(attacker("a", 6, 6, "B", "trample", colors=["green"]),
                       blocker("b", 2, 2, "a", protection_from=["green"]))
    result = solved(board, ["player_damage", "kills"])
    assert result.objective == {"player_damage": 4, "kills": 0}
    assert assigned(result)[("a", "b")] == 2
    assert result.outcome.players["B"].life == 16
    assert "b" not in result.outcome.destroyed
    assert "702.19b" in {v.rule for v in check_line(board, dmg("a", "b", 1), dmg("a", "B", 5),
                                                     dmg("b", "a", 2)).violations}


def test_protection_from_another_color_prevents_nothing():
    board = make_board(attacker("a", 3, 3, "B", colors=["red"]), blocker("b", 2, 2, "a", protection_from=["green"]))
    assert solved(board, ["kills"]).objective == {"kills": 1}


def test_multicolored_source_is_stopped_by_protection_from_one_of_its_colors():
    board = make_board(attacker("a", 3, 3, "B", colors=["red", "green"]),
                       blocker("b", 2, 2, "a", protection_from=["green"]))
    assert solved(board, ["kills"]).objective == {"kills": 0}


def test_player_with_protection_from_creatures_takes_no_combat_damage():
    board = make_board(attacker("a", 5, 5, "B", "infect", toxic=2),
                       players=[player("A"), player("B", protection_from=["creatures"])])
    result = solved(board, ["player_damage", "poison"])
    assert result.objective == {"player_damage": 0, "poison": 0}  # no damage dealt: no toxic either


def test_deathtouch_damage_that_is_prevented_destroys_nothing():
    board = make_board(attacker("a", 1, 1, "B", "deathtouch", colors=["black"]),
                       blocker("b", 0, 5, "a", protection_from=["black"]))
    assert solved(board, ["kills"]).objective == {"kills": 0}


# --- Furnace of Rath, Torbran, fog -------------------------------------------------------------------

def test_furnace_trampler_over_blocker_with_protection_from_creatures():
    """Assign 2 (lethal, ignoring protection) to the 2/2 and 3 to B; Furnace of Rath doubles the 3:
    B loses 6, the blocker takes nothing."""
    board = make_board(attacker("a", 5, 5, "B", "trample"), blocker("b", 2, 2, "a", protection_from=["creatures"]),
                       effects=[FURNACE])
    result = solved(board, ["player_damage"])
    assert result.objective == {"player_damage": 6}
    assert assigned(result) == {("a", "b"): 2, ("a", "B"): 3, ("b", "a"): 2}
    assert result.outcome.players["B"].life == 14
    assert result.outcome.creatures["a"].damage == 4  # the blocker's 2 is doubled too


def test_doubling_does_not_lower_lethal_for_trample():
    """702.19b: a 4/4 trampler must assign 3 to a 3/3 even though Furnace would make 2 enough."""
    board = make_board(attacker("a", 4, 4, "B", "trample"), blocker("b", 0, 3, "a"), effects=[FURNACE])
    assert "702.19b" in {v.rule for v in check_line(board, dmg("a", "b", 2), dmg("a", "B", 2)).violations}
    result = solved(board, ["player_damage"])
    assert result.objective == {"player_damage": 2}


def test_two_doublers_quadruple_and_an_adder_only_increases_damage_dealt():
    """614.5: Furnace of Rath and Dictate of the Twin Gods make 2 into 8; a separate board shows
    Torbran's +2 on a 3/3 unblocked: 5 (and nothing on a source that assigns 0, 614.7a)."""
    board = make_board(attacker("a", 2, 2, "B"), effects=[FURNACE, {"kind": "double"}])
    assert solved(board, ["player_damage"]).objective == {"player_damage": 8}
    board = make_board(attacker("a", 3, 3, "B"), attacker("z", 0, 3, "B"),
                       effects=[{"kind": "add", "amount": 2, "sources": {"controller": "A"}}])
    assert solved(board, ["player_damage"]).objective == {"player_damage": 5}


def test_fog_prevents_all_combat_damage_but_not_damage_that_cant_be_prevented():
    fog = {"kind": "prevent", "amount": None}
    board = make_board(attacker("a", 3, 3, "B"), attacker("c", 2, 2, "B"), effects=[fog])
    assert solved(board, ["player_damage"]).objective == {"player_damage": 0}
    board = make_board(attacker("a", 3, 3, "B"), attacker("c", 2, 2, "B"),
                       effects=[fog, {"kind": "cant_be_prevented", "sources": ["c"]}])
    assert solved(board, ["player_damage"]).objective == {"player_damage": 2}


def test_cant_be_prevented_beats_protection():
    board = make_board(attacker("a", 3, 3, "B", colors=["red"]), blocker("b", 2, 2, "a", protection_from=["red"]),
                       effects=[{"kind": "cant_be_prevented", "sources": ["a"]}])
    assert solved(board, ["kills"]).objective == {"kills": 1}


def test_prevention_aimed_at_one_side_only():
    """'Prevent all combat damage that would be dealt to creatures B controls': B's blocker lives,
    A's attacker still dies."""
    board = make_board(attacker("a", 3, 2, "B"), blocker("b", 2, 2, "a"),
                       effects=[{"kind": "prevent", "amount": None, "recipients": {"controller": "B"}}])
    result = solved(board, ["kills", "survivors"])
    assert result.objective == {"kills": 0, "survivors": 0}


# --- shields and the affected player's order ------------------------------------------------------------

SHIELD_AND_FURNACE = [FURNACE, {"kind": "prevent", "amount": 2, "recipients": ["b"]}]


@pytest.mark.parametrize("decider", ["A", "B"])
def test_shield_and_doubling_order_decides_whether_the_blocker_dies(decider):
    """3 damage to a 0/4 with 'prevent the next 2' and Furnace of Rath: preventing first deals 2 (it
    lives), doubling first deals 4 (it dies). Its controller B orders them (616.1) and keeps it alive,
    whether B decides (best for B) or A does (worst for A)."""
    board = make_board(attacker("a", 3, 5, "B"), blocker("b", 0, 4, "a"), effects=SHIELD_AND_FURNACE)
    result = solved(board, ["kills"] if decider == "A" else ["survivors"], decider)
    assert "b" not in result.outcome.destroyed
    assert result.outcome.creatures["b"].damage == 2
    choice = next(d for d in result.dealing if d.target == "b")
    assert choice.order == (1, 0)  # shield (effect 1) before Furnace (effect 0)


@pytest.mark.parametrize("decider", ["A", "B"])
def test_shield_and_doubling_order_on_first_strike_damage_shapes_the_regular_step(decider):
    """616.1 and 615.7 across 510.4: a double striker's 2 + 2 into a 0/5 with 'prevent the next 3' and
    Furnace of Rath. B orders the effects on each damage. Shield first in the first-strike step: 2
    prevented, 1 of the shield left; in the regular step 1 prevented and the other 1 doubled: 2 dealt,
    it lives. Furnace first in the first-strike step: 4, 3 prevented, 1 dealt and the shield gone;
    then 4 more: 5, it dies. B keeps it alive, whether B decides or A does."""
    from optimizer import DealingChoice, check

    board = make_board(attacker("a", 2, 5, "B", "double strike"), blocker("b", 0, 5, "a"),
                       effects=[FURNACE, {"kind": "prevent", "amount": 3, "recipients": ["b"]}])
    result = solved(board, ["kills"] if decider == "A" else ["survivors"], decider)
    assert result.method == "cp-sat"
    assert "b" not in result.outcome.destroyed and result.outcome.creatures["b"].damage == 2
    assert {(d.step.value, d.order) for d in result.dealing if d.target == "b"} == {
        ("first_strike", (1, 0)), ("regular", (1, 0))}
    furnace_first = [DealingChoice(Step.FIRST_STRIKE, "a", "b", (0, 1))]  # (the shield is gone after it)
    verdict = check(board, result.assignments, furnace_first)
    assert verdict.legal and "b" in verdict.outcome.destroyed


def test_board_order_applies_without_a_choice_in_check():
    """The checker applies effects in board order unless told otherwise: Furnace first, so 4 dealt."""
    board = make_board(attacker("a", 3, 5, "B"), blocker("b", 0, 4, "a"), effects=SHIELD_AND_FURNACE)
    verdict = check_line(board, dmg("a", "b", 3))
    assert verdict.legal and "b" in verdict.outcome.destroyed


def test_shield_is_used_up_across_both_damage_steps():
    """615.7: a first striker's 2 uses up a 'prevent the next 3' shield on B's blocker except 1; the
    regular step's 2 from the other attacker loses 1 of it: the 0/3 blocker ends with 1 damage."""
    board = make_board(attacker("f", 2, 2, "B", "first strike"), attacker("r", 2, 2, "B"),
                       blocker("b", 0, 3, ["f", "r"]),
                       effects=[{"kind": "prevent", "amount": 3, "recipients": ["b"]}])
    verdict = check_line(board, dmg("f", "b", 2, "first_strike"), dmg("r", "b", 2))
    assert verdict.legal and verdict.outcome.creatures["b"].damage == 1
    assert solved(board, ["kills"]).objective == {"kills": 0}


def test_shield_on_a_player_chooses_which_damage_to_prevent():
    """615.7: B at 3 life, 'prevent the next 2' on B, a 2/2 toxic 3 and a 2/2: B prevents the toxic
    creature's damage (no poison) and takes 2, staying alive; A cannot make B lose."""
    board = make_board(attacker("t", 2, 2, "B", toxic=3), attacker("c", 2, 2, "B"),
                       players=[player("A"), player("B", 3, poison=7)],
                       effects=[{"kind": "prevent", "amount": 2, "recipients": ["B"]}])
    result = solved(board, ["lethal", "poison", "player_damage"])
    assert result.objective == {"lethal": 0, "poison": 0, "player_damage": 2}


def _wasting_board(stopper: str) -> dict:
    """A's 1/2 ``x`` (value -1: A is better off without it) blocked by B's 2/3s ``l`` and ``m``, with
    'prevent the next 2 damage to x' (effect 0) and m's damage to x prevented anyway, by a 'prevent
    all' effect or by protection from m's color."""
    x = attacker("x", 1, 2, "B", value=-1)
    m = blocker("m", 2, 3, "x")
    effects = [{"kind": "prevent", "amount": 2, "recipients": ["x"]}]
    if stopper == "prevent all":
        effects.append({"kind": "prevent", "amount": None, "sources": ["m"], "recipients": ["x"]})
    else:
        x["protection_from"], m["colors"] = ["white"], ["white"]
    return make_board(x, blocker("l", 2, 3, "x"), m, effects=effects)


@pytest.mark.parametrize("stopper", ["prevent all", "protection"])
@pytest.mark.parametrize("decider, value", [("A", 1), ("B", -1)])
def test_a_shield_may_be_used_up_on_damage_prevented_anyway(stopper, decider, value):
    """616.1e: A, x's controller, may apply the shield to m's damage before the effect that prevents
    it anyway; the shield is then used up (615.7), l's 2 damage is dealt and x dies. A wants that
    (x's value is -1), and against B it is A's worst reply for B: value 1 for A, -1 for B. Without
    that choice the shield would stop l's damage and x would live (value 0 either way)."""
    result = solved(_wasting_board(stopper), ["value"], decider)
    assert result.objective == {"value": value}
    assert result.method == "exhaustive" and "616.1e" in result.warnings[0]
    chosen = {(d.source, d.target): d for d in result.dealing}
    assert chosen[("m", "x")].order == (0,) and dict(chosen[("m", "x")].prevented) == {0: 2}


@pytest.mark.parametrize("stopper", ["prevent all", "protection"])
def test_check_takes_a_shield_applied_before_damage_is_prevented_anyway(stopper):
    """616.1e in the checker: by default the damage is prevented first and the shield saves x; applied
    first to m's damage (and so preventing none of l's), the shield is used up and x dies. An effect
    that is not on that damage, or one applied twice, is refused, naming the dealing field."""
    board = _wasting_board(stopper)
    line = {"assignments": [dmg("x", "l", 1), dmg("l", "x", 2), dmg("m", "x", 2)]}
    assert "x" not in check(board, line).outcome.destroyed
    wasted = check(board, line, [
        {"step": "regular", "source": "l", "target": "x", "order": [0], "prevented": {"0": 0}},
        {"step": "regular", "source": "m", "target": "x", "order": [0], "prevented": {"0": 2}}])
    assert wasted.legal and "x" in wasted.outcome.destroyed
    assert wasted.outcome.creatures["x"].damage == 2
    for order in ([0, 0], [1] if stopper == "prevent all" else [3]):
        with pytest.raises(InvalidAssignmentError, match="dealing"):
            check(board, line, [{"step": "regular", "source": "m", "target": "x", "order": order}])


def test_check_refuses_a_shield_that_lets_damage_through_while_it_could_still_prevent():
    """615.7: "prevent the next 3 damage" prevents the next 3; B chooses which damage it stops, not
    whether. One 3/3 at B: the shield stops all 3, and a choice stopping 0 or 1 of it is refused. Two
    3/3s at B: any split of 3 between them is legal (B at 17), a total below 3 is refused."""
    shield = {"kind": "prevent", "amount": 3, "recipients": ["B"]}
    one = make_board(attacker("a1", 3, 3), effects=[shield])
    line = {"assignments": [dmg("a1", "B", 3)]}
    assert check(one, line).outcome.players["B"].life == 20
    for stopped in (0, 1):
        with pytest.raises(InvalidAssignmentError, match=r"dealing: shield 0 let damage through while it could "
                                                         rf"still prevent {3 - stopped} \(615\.7\)"):
            check(one, line, [{"step": "regular", "source": "a1", "target": "B", "order": [0],
                               "prevented": {"0": stopped}}])
    two = make_board(attacker("a1", 3, 3), attacker("a2", 3, 3), effects=[shield])
    line = {"assignments": [dmg("a1", "B", 3), dmg("a2", "B", 3)]}

    def split(first: int, second: int) -> list[dict]:
        return [{"step": "regular", "source": s, "target": "B", "order": [0], "prevented": {"0": n}}
                for s, n in (("a1", first), ("a2", second))]

    for first in range(4):
        result = check(two, line, split(first, 3 - first))
        assert result.legal and result.outcome.players["B"].life == 17
    for first, second in ((0, 0), (1, 1), (2, 0), (0, 2)):
        with pytest.raises(InvalidAssignmentError, match="615.7"):
            check(two, line, split(first, second))


def test_a_shield_only_damage_prevented_anyway_reaches_goes_through_the_encoding():
    """A shield that no damage it could prevent gets past protection cannot change anything by being
    used up: the board stays with CP-SAT, and the blocker protected from creatures lives."""
    board = make_board(attacker("a", 3, 3, "B"), blocker("b", 1, 2, "a", protection_from=["creatures"]),
                       effects=[{"kind": "prevent", "amount": 2, "recipients": ["b"]}])
    result = solved(board, ["kills"])
    assert result.objective == {"kills": 0} and result.method == "cp-sat"
    assert CombatModel(board, "A", ("kills",)).unsupported() is None


@given(kinds=st.lists(st.sampled_from(["double", "add 1", "add 2", "shield"]), max_size=6))
def test_orders_of_alike_effects_are_listed_once(kinds):
    """616.1, 614.5: doublers are alike, and so are adders of one amount; each shield is its own (615.7).
    The effects' orders listed for a player's choice are, for each distinct sequence of kinds, the first
    such order of all orders in turn, and in that turn, so the first choice found for each result is
    the one all orders would give."""
    effects = [{"kind": "double"} if k == "double" else {"kind": "add", "amount": int(k[-1])} if k != "shield"
               else {"kind": "prevent", "amount": 1, "recipients": ["B"]} for k in kinds]
    board = make_board(attacker("a", 1, 1, "B"), effects=effects)
    indexes = tuple(range(len(kinds)))

    def kind(i: int) -> tuple:
        return ("shield", i) if kinds[i] == "shield" else (kinds[i],)

    first_of_each: dict[tuple, tuple[int, ...]] = {}
    for order in permutations(indexes):
        first_of_each.setdefault(tuple(kind(i) for i in order), order)
    assert list(_distinct_orders(board, indexes)) == list(first_of_each.values())


@given(kinds=st.lists(st.sampled_from(["double", "add 1", "shield 1", "shield 3"]), max_size=4),
       power=st.integers(1, 4))
def test_shields_a_player_may_use_up_on_damage_its_protection_prevents(kinds, power):
    """616.1e, 615.7: B has protection from creatures, so an attacker's damage to B is prevented, but B
    may apply any of the other effects on it first, in any order, and a shield applied to it prevents
    all it can of it. The shields B can use up that way are those of every ordered choice of effects."""
    effects = [{"kind": "double"} if k == "double" else {"kind": "add", "amount": 1} if k == "add 1"
               else {"kind": "prevent", "amount": int(k[-1]), "recipients": ["B"]} for k in kinds]
    board = make_board(attacker("a", power, 4, "B"),
                       players=[player("A"), player("B", protection_from=["creatures"])], effects=effects)
    line = (Assignment(Step.REGULAR, "a", "B", power),)
    found = set()
    for option in dealing_options(board, Step.REGULAR, line, "B"):
        dealt = deal(board, line, {(c.source, c.target): c for c in option})
        assert dealt.amounts[("a", "B")] == 0
        found.add(tuple(dealt.shields_used.get(i, 0) for i in range(len(kinds))))
    expected = set()
    for size in range(len(kinds) + 1):
        for order in permutations(range(len(kinds)), size):
            d, used = power, [0] * len(kinds)
            for i in order:
                if kinds[i] == "double":
                    d *= 2
                elif kinds[i] == "add 1":
                    d += 1 if d > 0 else 0  # 614.7a: nothing is added to 0 damage
                else:
                    used[i] = min(d, int(kinds[i][-1]))
                    d -= used[i]
            expected.add(tuple(used))
    assert found == expected


def test_nine_doublers_and_an_adder_on_a_planeswalker():
    """614.5, 614.7a, 616.1, 506.4c: a 4/3 double striker attacking a 1-loyalty planeswalker under nine
    doublers and a +1 (ordering them for B: 10 distinct orders, not 10!). Its first-strike damage
    destroys the planeswalker (704.5i); in the regular step it attacks nothing and deals nothing."""
    board = make_board(attacker("a", 4, 3, "pw", "double strike"), planeswalkers=[planeswalker("pw", 1)],
                       effects=[{"kind": "add", "amount": 1}] + [FURNACE] * 9)
    result = solved(board, ["loyalty", "player_damage"])
    assert result.objective == {"loyalty": 1, "player_damage": 0}
    assert assigned(result) == {("a", "pw"): 4}
    assert result.method == "exhaustive"  # the encoding leaves this order (616.1) to the exhaustive search


def test_a_player_s_choices_on_several_recipients_come_one_at_a_time():
    """616.1, 615.7: B orders a doubler and "prevent the next 1" on A's 2 damage to B (2 or 3 dealt) and
    on its 2 damage to B's planeswalker (likewise): 2 x 2 ways. Listed one at a time, not as a list (on
    several recipients they multiply into millions, which a search under a time limit must be able to
    stop listing)."""
    board = make_board(attacker("a", 2, 2, "B"), attacker("c", 2, 2, "pw"), planeswalkers=[planeswalker("pw", 5)],
                       effects=[{"kind": "prevent", "amount": 1, "recipients": ["B"]}, FURNACE,
                                {"kind": "prevent", "amount": 1, "recipients": ["pw"]}])
    line = normalize([Assignment(Step.REGULAR, "a", "B", 2), Assignment(Step.REGULAR, "c", "pw", 2)])
    ways = dealing_options(board, Step.REGULAR, line, "B")
    assert isinstance(ways, Iterator) and not isinstance(ways, (list, tuple))
    orders = [tuple((d.target, d.order) for d in way) for way in ways]
    assert orders == [(("B", (0, 1)), ("pw", (1, 2))), (("B", (0, 1)), ("pw", (2, 1))),
                      (("B", (1, 0)), ("pw", (1, 2))), (("B", (1, 0)), ("pw", (2, 1)))]
    assert list(dealing_options(board, Step.REGULAR, line, "A")) == [()]  # A is affected by none of it


def test_dealing_options_past_a_deadline_are_the_default_alone():
    """Working out one recipient's options can take long (several shields on it): past the search's
    deadline they are the default alone (board order, each shield preventing all it can), and the
    search's answer is not proven. Five shields and a doubler on B: 4/3 and 3/3 unblocked attackers."""
    import time

    from optimizer import check, solve
    from optimizer.bruteforce import brute_force

    board = _data_board("five_shields_board.json")
    line = normalize([Assignment(Step.REGULAR, "a", "B", 4), Assignment(Step.REGULAR, "c", "B", 3)])
    assert list(dealing_options(board, Step.REGULAR, line, "B", deadline=time.monotonic() - 1)) == [()]
    past = brute_force(board, "A", ["player_damage"], deadline=time.monotonic() - 1)
    assert not past.complete
    assert check(board, past.assignments, past.dealing).legal
    result = solve(board, objective=["player_damage"], time_limit=0.2)
    assert (result.method, result.status) == ("exhaustive", "feasible")
    verdict = check(board, result.assignments, result.dealing)
    assert verdict.legal and verdict.outcome == result.outcome


# --- lifelink through prevention ------------------------------------------------------------------------

def test_lifelink_gains_only_the_damage_dealt():
    """A 4/4 lifelink attacker blocked by a 2/2 with 'prevent the next 3': it assigns 4, deals 1,
    and A gains 1 (702.15b: damage dealt)."""
    board = make_board(attacker("a", 4, 4, "B", "lifelink"), blocker("b", 2, 2, "a"),
                       effects=[{"kind": "prevent", "amount": 3, "recipients": ["b"]}])
    result = solved(board, ["life_gained"])
    assert result.objective == {"life_gained": 1}
    assert result.outcome.players["A"].life == 21


def test_lifelink_blocker_divides_between_protected_and_unprotected_attackers():
    """B at 2 life faces a 2/2 unblocked and blocks two attackers with a 2/2 lifelink; one attacker has
    protection from its color. B assigns to the other, gains 2 and survives: A gets no lethal."""
    board = make_board(attacker("u", 2, 2, "B"), attacker("p", 1, 1, "B", protection_from=["white"]),
                       attacker("q", 1, 5, "B"),
                       blocker("l", 2, 2, ["p", "q"], "lifelink", colors=["white"]),
                       players=[player("A"), player("B", 2)])
    result = solved(board, ["lethal", "kills"])
    assert result.objective == {"lethal": 0, "kills": 1}  # p and q still kill the 2/2 lifelinker
    assert result.method == "cp-sat"  # each total gain's best division, then A's damage against them
    assert assigned(result).get(("l", "q"), 0) >= 1
    assert result.outcome.players["B"].life >= 1


def test_lifelink_blocker_of_the_deciding_defender_goes_through_the_encoding():
    """The same lifelink blocker, B deciding: B's own loss is not among its objectives in a two-player
    game, so its life gain only scores ``life_gained`` and the one-step encoding models the board.
    B gains the most by putting all 2 on the unprotected 1/5 (prevented on the other, 702.16e)."""
    board = make_board(attacker("u", 2, 2, "B"), attacker("p", 1, 1, "B", protection_from=["white"]),
                       attacker("q", 1, 5, "B"),
                       blocker("l", 2, 2, ["p", "q"], "lifelink", colors=["white"]),
                       players=[player("A"), player("B", 2)])
    result = solved(board, ["lethal", "life_gained"], "B")
    assert result.method == "cp-sat"
    assert result.objective == {"lethal": 0, "life_gained": 2}
    assert assigned(result)[("l", "q")] == 2


# --- banding ------------------------------------------------------------------------------------------

def test_attacker_blocked_by_a_banding_creature_is_divided_by_the_defender():
    """702.22j: B divides the 4/4's damage among its blockers: 1 to each 3/3, both live (A alone
    would kill one)."""
    board = make_board(attacker("a", 4, 4, "B"), blocker("x", 0, 3, "a", "banding"), blocker("y", 0, 3, "a"))
    result = solved(board, ["kills"])
    assert result.objective == {"kills": 0}
    assert check_line(board, dmg("a", "x", 2), dmg("a", "y", 2)).legal


def test_banding_defender_divides_a_trampler_among_blockers_only():
    board = make_board(attacker("a", 6, 6, "B", "trample"), blocker("x", 1, 1, "a", "banding"))
    assert "702.22j" in {v.rule for v in check_line(board, dmg("a", "x", 1), dmg("a", "B", 5),
                                                     dmg("x", "a", 1)).violations}
    assert solved(board, ["player_damage"]).objective == {"player_damage": 0}


def test_blocker_of_a_banding_attacker_is_divided_by_the_active_player():
    """702.22k: a 4/4 blocking two attackers, one with banding: A divides its damage and spreads it
    so that neither 3/3 dies."""
    board = make_board(attacker("a", 3, 3, "B", "banding"), attacker("c", 3, 3, "B"), blocker("b", 4, 6, ["a", "c"]))
    result = solved(board, ["survivors"])
    assert result.objective == {"survivors": 2}


def test_banding_defender_divides_in_the_regular_step_after_first_strike():
    """702.22j in both steps: the banding blocker takes no first-strike damage, so B still divides
    the 4/4's damage in the regular step: 2 and 2, and neither 3-toughness blocker dies."""
    board = make_board(attacker("a", 4, 4, "B"), blocker("x", 0, 3, "a", "banding"),
                       blocker("y", 1, 3, "a", "first strike"))
    result = solved(board, ["kills"])
    assert result.objective == {"kills": 0} and result.method == "cp-sat"


def test_banding_blocker_killed_by_first_strike_gives_the_division_back():
    """The first striker kills the 1/1 banding blocker, so in the regular step the 4/4 is no longer
    blocked by a creature with banding and A divides its damage (702.22j, 510.1c): all 4 to the 0/3.
    With the 1/1 alive, B would divide and save the 0/3."""
    board = make_board(attacker("f", 1, 1, "B", "first strike"), attacker("a", 4, 4, "B"),
                       blocker("x", 0, 1, ["f", "a"], "banding"), blocker("y", 0, 3, "a"))
    result = solved(board, ["kills"])
    assert result.objective == {"kills": 2}
    assert check_line(board, dmg("f", "x", 1, "first_strike"), dmg("a", "y", 4)).legal


def test_banding_blocker_of_a_player_who_loses_leaves_the_game_with_them():
    """Three players: B divides the 1/1's damage to its banding 0/3 (702.22j), but the unblocked 1/1
    makes B lose, and the 0/3 leaves the game with B (800.4a): a kill either way."""
    board = make_board(attacker("a1", 1, 1, "B"), attacker("a2", 1, 1, "B"), blocker("b1", 0, 3, "a1", "banding"),
                       players=[player("A"), player("B", 1), player("C")])
    assert solved(board, ["kills"]).objective == {"kills": 1}


def test_a_trampler_does_not_count_damage_a_later_player_divides_under_banding():
    """510.1e / 702.19b / 702.22j, three players, C deciding (A and B both play against it). A's first
    strikers: a green 1/1 trampler a1 and a red 1/1 a2, both blocked by B's 1/1 x with protection from
    red; B's banding 1/1 y also blocks a2, so B divides a2's damage, after A announces (510.1). A
    cannot count that damage as x's lethal damage: for a1 to trample over, a1 must assign x its 1
    itself, and x dies. Then either a2's 1 kills y, or it goes to x (prevented, 702.16e) and y kills
    a2 in the regular step: C's kills 2 either way. (Counting B's later damage, a1 would trample over
    and x survive the first step, one kill fewer.)"""
    board = make_board(attacker("a1", 1, 1, "B", "first strike", "trample", colors=["green"]),
                       attacker("a2", 1, 1, "B", "first strike", colors=["red"]),
                       blocker("x", 1, 1, ["a1", "a2"], protection_from=["red"]), blocker("y", 1, 1, "a2", "banding"),
                       players=[player("A"), player("B"), player("C")])
    result = solved(board, ["kills"], "C")
    assert result.objective == {"kills": 2} and result.method == "cp-sat"
    assert assigned(result).get(("a1", "x")) == 1 and "x" in result.outcome.destroyed


def test_defender_dividing_damage_to_its_own_creatures_loses_them_all_when_trampled_out():
    """Three players, one step: B divides the 3/3's damage between its banding 0/1 and a 0/2 (702.22j)
    and saves one of them. A's 2/2 trampler, blocked by a 0/1, can put 2 on it (B keeps one of the two,
    two kills) or 1 on it and 1 on B, at 1 life: B loses, and its three creatures leave the game with
    it (800.4a), three kills whatever B divides. The encoding values B's division both ways."""
    board = make_board(attacker("x", 3, 3, "B"), attacker("u", 2, 2, "B", "trample"),
                       blocker("k", 0, 1, "x", "banding"), blocker("w", 0, 2, "x"), blocker("z", 0, 1, "u"),
                       players=[player("A"), player("B", 1), player("C")])
    result = solved(board, ["kills"])
    assert result.objective == {"kills": 3} and result.method == "cp-sat"
    assert assigned(result)[("u", "B")] == 1 and result.outcome.players["B"].lost
    safe = check_line(board, dmg("u", "z", 2), dmg("x", "w", 3))
    assert safe.legal and set(safe.outcome.destroyed) == {"z", "w"}


# --- input ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("effect, field, words", [
    ({"kind": "explode"}, "effects[0].kind", "unknown effect"),
    ({"kind": "prevent", "amount": 2}, "effects[0].recipients", "exactly one recipient"),
    ({"kind": "prevent", "amount": 0, "recipients": ["B"]}, "effects[0].amount", "at least 1"),
    ({"kind": "add"}, "effects[0].amount", "at least 1"),
    ({"kind": "double", "amount": 2}, "effects[0].amount", "takes no amount"),
    ({"kind": "double", "sources": ["B"]}, "effects[0].sources[0]", "not a creature"),
    ({"kind": "double", "recipients": ["zz"]}, "effects[0].recipients[0]", "unknown id"),
    ({"kind": "double", "sources": {"controller": "Q"}}, "effects[0].sources.controller", "unknown player"),
])
def test_bad_effects_name_the_field(effect, field, words):
    data = {"players": [player("A"), player("B")], "creatures": [attacker("a", 1, 1)], "effects": [effect]}
    with pytest.raises(InvalidBoardError) as info:
        load_board(data)
    assert info.value.field == field and words in info.value.problem


@pytest.mark.parametrize("fields, field", [
    ({"colors": ["purple"]}, "creatures[0].colors[0]"),
    ({"protection_from": ["artifacts"]}, "creatures[0].protection_from[0]"),
])
def test_bad_colors_and_protection_name_the_field(fields, field):
    with pytest.raises(InvalidBoardError) as info:
        load_board({"players": [player("A"), player("B")], "creatures": [attacker("a", 1, 1, **fields)]})
    assert info.value.field == field


def test_shield_reached_by_two_attackers_prevents_from_the_total():
    """615.7: two unblocked 2/2s and "prevent the next 3 damage to B": 1 damage gets through, however
    B splits the prevention, and the CP-SAT encoding models it (no source-specific consequence)."""
    board = make_board(attacker("a", 2, 2, "B"), attacker("c", 2, 2, "B"),
                       effects=[{"kind": "prevent", "amount": 3, "recipients": ["B"]}],
                       players=[player("A"), player("B", 1)])
    result = solved(board, ["lethal", "player_damage"])
    assert result.objective == {"lethal": 1, "player_damage": 1} and result.method == "cp-sat"


def test_shield_on_a_blocker_of_two_attackers_after_first_strike():
    """A 0/5 blocks two 3/3s with a shield of 2; a first striker elsewhere makes two steps. 6 - 2 = 4
    damage: it survives, and with a shield of 1 it dies."""
    def board(shield):
        return make_board(attacker("a", 3, 3, "B"), attacker("c", 3, 3, "B"), blocker("b", 0, 5, ["a", "c"]),
                          attacker("f", 1, 1, "B", "first strike"),
                          effects=[{"kind": "prevent", "amount": shield, "recipients": ["b"]}])
    assert solved(board(2), ["kills"]).objective == {"kills": 0}
    result = solved(board(1), ["kills"])
    assert result.objective == {"kills": 1} and result.method == "cp-sat"


def test_shield_on_an_attacker_makes_one_more_damage_from_its_first_strike_blocker_count():
    """615.7 in a three-player game (the defender's first-step replies are enumerated there): B's 3/3
    first striker blocks a 2/1 with "prevent the next 1 damage" and a 4/1. 2 to the shielded one and 1
    to the other kill both; 1 to the shielded one, beyond its toughness but not past its shield, is not
    the same reply as 2."""
    board = make_board(attacker("a1", 2, 1, "pw"), attacker("a2", 4, 1, "pw"),
                       blocker("b0", 3, 3, ["a2", "a1"], "first strike"),
                       players=[player("A", 12), player("B", 3), player("C", 4)],
                       planeswalkers=[planeswalker("pw", 3)],
                       effects=[{"kind": "prevent", "amount": 1, "recipients": ["a1"]}])
    result = solved(board, ["kills"], "B")
    assert result.objective == {"kills": 2} and result.method == "cp-sat"
    assert assigned(result)[("b0", "a1")] == 2


@pytest.mark.parametrize("decider, objective, expected", [
    ("A", ["lethal", "survivors"], {"lethal": 1, "survivors": 1}),  # the 7/7 lives, the 3/3 does not
    ("B", ["life_gained"], {"life_gained": 5}),
])
def test_order_of_effects_on_lifelink_damage_follows_the_gain(decider, objective, expected):
    """616.1 with 702.15b and 510.2: B's 2/2 lifelink blocker's damage to A's 3/3 gets +1 and is
    doubled, in the order A (the affected player) chooses: 5 or 6, and B gains that much while an
    unblocked 7/7 deals B (at 2 life) 7. A chooses 5 whoever decides: B goes to 0 and loses, and gains 5.
    More damage only helps B here, so the encoding models the order instead of leaving the board to
    the exhaustive search."""
    board = make_board(attacker("a", 3, 3), attacker("u", 7, 7), blocker("b", 2, 2, "a", "lifelink"),
                       players=[player("A"), player("B", 2)],
                       effects=[{"kind": "add", "amount": 1, "sources": {"controller": "B"},
                                 "recipients": {"controller": "A"}},
                                {"kind": "double", "sources": {"controller": "B"}, "recipients": {"controller": "A"}}])
    result = solved(board, objective, decider)
    assert result.objective == expected and result.method == "cp-sat"
    assert result.outcome.players["B"].life == 0 and result.outcome.players["B"].lost


def test_board_the_encoding_does_not_model_is_solved_exhaustively_when_small():
    """A shield reachable by two attackers (615.7): B chooses which damage it prevents; the answer
    comes from the exhaustive game search and says so."""
    board = make_board(attacker("a", 2, 2, "B", "deathtouch"), attacker("c", 3, 3, "B"), blocker("b", 0, 4, ["a", "c"]),
                       effects=[{"kind": "prevent", "amount": 2, "recipients": ["b"]}])
    result = solved(board, ["kills"])
    assert result.method == "exhaustive" and any("exhaustive" in w for w in result.warnings)
    assert result.objective == {"kills": 0}  # B prevents all of the deathtoucher's damage; 3 < 4


def test_banding_blocker_killed_by_first_strike_on_a_large_board_goes_through_the_encoding():
    """702.22j across 510.4 (93,312 lines for the exhaustive search): the first striker f kills the banding
    1/1 x (B divides f's damage, all of it to x), so A divides each attacker's regular damage and kills
    all three 0/4 walls; with x alive B would divide and save them. Whether x survives is B's to
    decide with its first-step reply, so each model of the regular step knows who divides."""
    attackers = [attacker(f"a{i}", 4, 4, "B") for i in range(3)]
    walls = [blocker(f"w{i}", 0, 4, [f"a{j}" for j in range(3)]) for i in range(3)]
    board = make_board(attacker("f", 1, 1, "B", "first strike"), *attackers, *walls,
                       blocker("x", 0, 1, ["f", "a0", "a1", "a2"], "banding"))
    result = solved(board, ["kills"])
    assert result.method == "cp-sat" and result.objective == {"kills": 4}


def test_blocker_whose_damage_both_players_divide_replies_after_the_active_player():
    """702.22j with 510.1: the 0/4 y blocks the 3/3 x1 (A divides) and the 2/2 x2, which the banding
    0/1 k also blocks (B divides x2's damage). B announces after A and keeps y alive when it can: if
    A put 3 on y, B would put x2's 2 on k (one kill). A kills the 0/1 z with 1 and puts 2 on y; then
    whatever B does, two of its creatures die."""
    board = make_board(attacker("x1", 3, 3, "B"), attacker("x2", 2, 2, "B"),
                       blocker("y", 0, 4, ["x1", "x2"]), blocker("z", 0, 1, "x1"), blocker("k", 0, 1, "x2", "banding"))
    result = solved(board, ["kills"])
    assert result.objective == {"kills": 2} and result.method == "cp-sat"
    assert assigned(result)[("x1", "z")] >= 1
    greedy = check_line(board, dmg("x1", "y", 3), dmg("x2", "k", 2))
    assert greedy.legal and len(greedy.outcome.destroyed) == 1  # B's reply to all 3 on y


def test_blocker_whose_damage_both_players_divide_after_a_first_strike_step():
    """The board above with a 1/1 first striker f blocked by y and the banding k, so B divides f's
    damage (702.22j) and there are two steps. Putting it on k would kill k and hand x2's division to
    A (three kills: 2 on y and 1 on z from x1, 2 on y from x2); B puts it on y. In the regular step A
    announces first and B replies (510.1): with 3 from x1 on y, B saves nothing by putting x2's 2 on
    k (y has 4); with 2 on y and 1 on z, either way two die. Two kills, through the encoding."""
    board = make_board(attacker("x1", 3, 3, "B"), attacker("x2", 2, 2, "B"), attacker("f", 1, 1, "B", "first strike"),
                       blocker("y", 0, 4, ["x1", "x2", "f"]), blocker("z", 0, 1, "x1"),
                       blocker("k", 0, 1, ["x2", "f"], "banding"))
    result = solved(board, ["kills"])
    assert result.objective == {"kills": 2} and result.method == "cp-sat"
    assert assigned(result)[("f", "y")] == 1
    killing_k = check_line(board, dmg("f", "k", 1, "first_strike"), dmg("x1", "y", 2), dmg("x1", "z", 1),
                           dmg("x2", "y", 2))
    assert killing_k.legal and len(killing_k.outcome.destroyed) == 3


def test_banding_defender_keeps_its_banding_blocker_alive_to_stop_trample():
    """702.22j across 510.4: the 2/2 first striker f is blocked by the banding 0/2 x and a 0/1 y, so B
    divides its damage; the 3/3 trampler a is blocked by both. If x died, A would divide a's regular
    damage: 1 to y, 2 trampling over. B keeps x alive (at most 1 of f's damage on it) and divides a's
    damage among its blockers only: B takes nothing."""
    board = make_board(attacker("f", 2, 2, "B", "first strike"), attacker("a", 3, 3, "B", "trample"),
                       blocker("x", 0, 2, ["f", "a"], "banding"), blocker("y", 0, 1, ["f", "a"]))
    result = solved(board, ["player_damage"])
    assert result.objective == {"player_damage": 0} and result.method == "cp-sat"
    assert assigned(result).get(("f", "x"), 0) <= 1  # x survives the first step; a's damage is B's
    killing_x = check_line(board, dmg("f", "x", 2, "first_strike"), dmg("a", "y", 1), dmg("a", "B", 2))
    assert killing_x.legal and killing_x.outcome.players["B"].damage_taken == 2


def test_active_player_keeps_its_banding_attacker_alive_to_keep_dividing():
    """702.22k across 510.4: the first-strike 1/1 fs blocks the banding 1/1 ab and the 3/3 a0, so A
    divides fs's damage. Killing ab would give B the division of the 3/5 y's regular damage (all 3 on
    a0: both attackers lost); A puts fs's damage on a0 instead, keeps dividing y's damage itself,
    and puts at most 1 of it on a0: a0 survives."""
    board = make_board(attacker("ab", 1, 1, "B", "banding"), attacker("a0", 3, 3, "B"),
                       blocker("fs", 1, 1, ["ab", "a0"], "first strike"), blocker("y", 3, 5, ["ab", "a0"]))
    result = solved(board, ["survivors"])
    assert result.objective == {"survivors": 1} and result.method == "cp-sat"
    assert assigned(result)[("fs", "a0")] == 1 and assigned(result).get(("y", "a0"), 0) <= 1
    assert "a0" not in result.outcome.destroyed


def test_each_side_keeps_its_banding_creature_alive_in_one_combat():
    """702.22j-k across 510.4, the two boards above in one combat: A's division of fs's first-strike
    damage decides whether ab survives, B's division of f's whether x does, and each survival decides
    who divides some regular-step damage. The encoding builds the regular step for each case A's
    first step may leave, against each of B's replies: A keeps ab (so a0), B keeps x (so no trample)."""
    board = make_board(attacker("f", 2, 2, "B", "first strike"), attacker("a", 3, 3, "B", "trample"),
                       blocker("x", 0, 2, ["f", "a"], "banding"), blocker("y", 0, 1, ["f", "a"]),
                       attacker("ab", 1, 1, "B", "banding"), attacker("a0", 3, 3, "B"),
                       blocker("fs", 1, 1, ["ab", "a0"], "first strike"), blocker("z", 3, 5, ["ab", "a0"]))
    result = solved(board, ["survivors", "player_damage"])
    assert result.objective == {"survivors": 3, "player_damage": 0} and result.method == "cp-sat"
    assert assigned(result).get(("f", "x"), 0) <= 1 and assigned(result)[("fs", "a0")] == 1
    assert "a0" not in result.outcome.destroyed


def test_four_banding_blockers_whose_survival_the_defender_decides_go_through_the_encoding():
    """702.22j across 510.4: a 3/3 double-strike trampler blocked by four 0/1s with banding. B divides
    its damage while any of them lives, so B puts all 3 first-strike damage on one of them and all 3
    regular damage on another: two die, nothing tramples over. Had all four died in the first-strike
    step, A would divide the regular damage and trample over. B's replies each leave one case."""
    board = make_board(attacker("a", 3, 3, "B", "double strike", "trample"),
                       *[blocker(f"k{i}", 0, 1, "a", "banding") for i in range(4)])
    result = solved(board, ["player_damage", "kills"])
    assert result.objective == {"player_damage": 0, "kills": 2} and result.method == "cp-sat"
    assert sorted(a.amount for a in result.assignments) == [3, 3]


def test_banding_attacker_kept_alive_in_a_three_player_game_goes_through_the_encoding():
    """The board above with a third player C and a combat of its own (a 2/2 blocked by a 1/3 that C
    divides nothing of). First-strike damage cannot reach B, so B stays in the game for the regular
    step, and A's cases of the banding attacker's survival model the board: a0 survives, and so does
    the 2/2 (1 damage from the 1/3); A kills fs."""
    board = make_board(attacker("ab", 1, 1, "B", "banding"), attacker("a0", 3, 3, "B"),
                       blocker("fs", 1, 1, ["ab", "a0"], "first strike"), blocker("y", 3, 5, ["ab", "a0"]),
                       attacker("c", 2, 2, "C"), blocker("z", 1, 3, "c", controller="C"),
                       players=[player("A"), player("B"), player("C")])
    result = solved(board, ["survivors", "kills"])
    assert result.objective == {"survivors": 2, "kills": 1} and result.method == "cp-sat"
    assert "a0" not in result.outcome.destroyed and "c" not in result.outcome.destroyed


def test_blocker_of_a_banding_attacker_killed_by_first_strike_is_divided_by_its_controller():
    """702.22k across 510.4: the first-strike 1/1 fs must put its damage on the banding 1/1 ab, its
    only attacker, and ab dies; the 3/6 y then no longer blocks a creature with banding, so B divides
    its regular damage and puts all 3 on the valuable 3/3 a2, not on a1. A loses a2 (value 5) and ab
    (0) and kills y (0): value -5. (A model that left y's damage to a default put it on a1: -1.)"""
    board = make_board(attacker("ab", 1, 1, "B", "banding", value=0), attacker("a1", 3, 3, "B", value=1),
                       attacker("a2", 3, 3, "B", value=5), blocker("fs", 1, 1, "ab", "first strike", value=0),
                       blocker("y", 3, 6, ["ab", "a1", "a2"], value=0))
    result = solved(board, ["value"])
    assert result.objective == {"value": -5}
    assert assigned(result)[("y", "a2")] == 3


def test_first_strike_lifelink_blocker_divides_to_gain_life_before_the_regular_step():
    """702.15b with 510.4: B (3 life) divides the white first-strike lifelink 2/4's damage between a1
    (protection from white: prevented, no life) and a2. All on a2 gains 2 before the unblocked 4/4
    deals its 4 in the regular step, so B ends at 1; on a1, B would lose. The gain is settled by the
    first step, which the encoding's state carries into the regular step."""
    board = make_board(attacker("a1", 2, 2, "B", protection_from=["white"]), attacker("a2", 2, 2, "B"),
                       attacker("u", 4, 4, "B"), blocker("l", 2, 4, ["a1", "a2"], "first strike", "lifelink",
                                                         colors=["white"]),
                       players=[player("A"), player("B", 3)])
    result = solved(board, ["lethal", "kills"])
    assert result.objective == {"lethal": 0, "kills": 0} and result.method == "cp-sat"
    assert assigned(result)[("l", "a2")] == 2 and result.outcome.players["B"].life == 1
    on_a1 = check_line(board, dmg("l", "a1", 2, "first_strike"), dmg("a1", "l", 2), dmg("a2", "l", 2), dmg("u", "B", 4))
    assert on_a1.legal and on_a1.outcome.players["B"].lost


def test_lifelink_blocker_dividing_in_the_regular_step_after_first_strike_keeps_its_player_alive():
    """510.2 with 702.15b across 510.4: the first striker takes B from 4 to 3; in the regular step the
    unblocked 4/4 deals 4 while B divides its white lifelink 2/4's damage between a1 (protection from
    white: no life) and a2. Gain and damage are simultaneous: all on a2 leaves B at 3 + 2 - 4 = 1.
    B replies to A's division (510.1), and the encoding scores its loss with that reply."""
    board = make_board(attacker("a1", 2, 2, "B", protection_from=["white"]), attacker("a2", 2, 2, "B"),
                       attacker("u", 4, 4, "B"), attacker("f", 1, 1, "B", "first strike"),
                       blocker("l", 2, 4, ["a1", "a2"], "lifelink", colors=["white"]),
                       players=[player("A"), player("B", 4)])
    result = solved(board, ["lethal", "kills"])
    assert result.objective == {"lethal": 0, "kills": 1} and result.method == "cp-sat"
    assert assigned(result)[("l", "a2")] == 2 and result.outcome.players["B"].life == 1
    on_a1 = check_line(board, dmg("f", "B", 1, "first_strike"), dmg("l", "a1", 2), dmg("a1", "l", 2),
                       dmg("a2", "l", 2), dmg("u", "B", 4))
    assert on_a1.legal and on_a1.outcome.players["B"].lost


def test_lifelink_blocker_and_banding_blocker_the_first_strike_step_may_kill():
    """702.15b and 702.22j across 510.4: B (4 life) faces an unblocked 5/5. Its white lifelink 2/4
    gains 2 only on a2 (a1 has protection from white), leaving B at 1. The double-strike trampler a3
    is blocked by the banding 0/1 k and a 0/2, so B divides its damage while k lives: all 3
    first-strike damage on the 0/2, then 3 on k, nothing past. Had k died, A would divide a3's
    regular damage: 2 to the 0/2 and 1 trampling over, and B would lose. The encoding models both:
    the division changing hands (replies enumerated) and B's gain scored with its reply."""
    board = make_board(attacker("a1", 2, 2, "B", protection_from=["white"]), attacker("a2", 2, 2, "B"),
                       attacker("a3", 3, 3, "B", "double strike", "trample"), attacker("u", 5, 5, "B"),
                       blocker("l", 2, 4, ["a1", "a2"], "lifelink", colors=["white"]),
                       blocker("k", 0, 1, "a3", "banding"), blocker("z", 0, 2, "a3"),
                       players=[player("A"), player("B", 4)])
    result = solved(board, ["lethal"])
    assert result.objective == {"lethal": 0} and result.method == "cp-sat"
    first = {(a.source, a.target): a.amount for a in result.assignments if a.step is Step.FIRST_STRIKE}
    assert first == {("a3", "z"): 3} and assigned(result)[("l", "a2")] == 2
    assert result.outcome.players["B"].life == 1


def test_lifelink_blocker_and_damage_both_players_divide_in_one_step():
    """702.15b with 702.22j, one step: B (4 life) faces an unblocked 5/5 and gains 2 only by putting its
    white lifelink 2/4's damage on a2 (a1 has protection from white). The 0/2 z blocks a2 (A divides
    a2's damage) and a3 (blocked by the banding k, so B divides a3's): both players divide damage to
    z, and B's division also decides whether it loses. B keeps itself at 1; A kills the 2/4 (2 + 2)
    and one of k and z."""
    board = make_board(attacker("a1", 2, 2, "B", protection_from=["white"]), attacker("a2", 2, 2, "B"),
                       attacker("a3", 3, 3, "B"), attacker("u", 5, 5, "B"),
                       blocker("l", 2, 4, ["a1", "a2"], "lifelink", colors=["white"]),
                       blocker("k", 0, 1, "a3", "banding"), blocker("z", 0, 2, ["a3", "a2"]),
                       players=[player("A"), player("B", 4)])
    result = solved(board, ["lethal", "kills"])
    assert result.objective == {"lethal": 0, "kills": 2} and result.method == "cp-sat"
    assert assigned(result)[("l", "a2")] == 2 and result.outcome.players["B"].life == 1


def board_with_shield_across_steps(shield):
    return make_board(attacker("a", 3, 3, "B", "double strike"), blocker("b", 0, 5, "a"),
                      effects=[{"kind": "prevent", "amount": shield, "recipients": ["b"]}])


def test_shield_used_up_across_both_steps():
    """615.7 across 510.4: a double striker 3/3 and a shield of 4 on the blocking 0/5: 3 prevented in
    the first-strike step, 1 in the regular step, so 2 damage is dealt and the 0/5 survives; with a
    shield of 1 it takes 2 + 3 and dies. The encoding carries what is left of the shield."""
    result = solved(board_with_shield_across_steps(4), ["kills"])
    assert result.method == "cp-sat" and result.objective == {"kills": 0}
    assert result.outcome.creatures["b"].damage == 2
    assert solved(board_with_shield_across_steps(1), ["kills"]).objective == {"kills": 1}


def test_shield_used_up_across_both_steps_is_solved_stepwise(monkeypatch):
    """The same boards through the stepwise search, which applies the first step on the board."""
    import optimizer.search as search_module

    monkeypatch.setattr(search_module, "REGULAR_STEP_COST", 0)  # the stepwise search even on a small board
    monkeypatch.setattr(CombatModel, "unsupported", lambda self: "forced" if self.two_steps else None)
    result = solved(board_with_shield_across_steps(4), ["kills"])
    assert result.method == "stepwise" and result.objective == {"kills": 0}
    assert solved(board_with_shield_across_steps(1), ["kills"]).objective == {"kills": 1}


def test_stepwise_search_counts_blockers_left_out_of_combat_leaving_with_their_player(monkeypatch):
    """800.4a across 510.4, three players: the first-strike x kills a1, so y no longer blocks anything
    in the regular step, yet it still leaves if B loses. A's Thorn-style a2 may hit B (at 1 life) as
    though unblocked, which for the deciding C would make x, y and b leave; A replies worst for C and
    hits b instead: 3 kills (a1, b, and a2 from b's damage), not 5. (The stepwise search once solved
    that regular step on a board without y in combat and got 5.)"""
    import optimizer.search as search_module

    monkeypatch.setattr(search_module, "REGULAR_STEP_COST", 0)  # the stepwise search even on a small board
    board = make_board(
        attacker("a1", 1, 1, "B"), attacker("a2", 1, 1, "B", may_assign_as_though_unblocked=True),
        blocker("x", 1, 1, "a1", "first strike"), blocker("y", 0, 1, "a1"), blocker("b", 1, 1, "a2"),
        players=[player("A"), player("B", 1), player("C")])
    result = search_module.exhaustive_search(board, "C", ("kills",), "forced", SolverSettings())
    assert result.method == "stepwise" and result.objective == {"kills": 3}
    assert assigned(result)[("a2", "b")] == 1


@pytest.mark.parametrize("path", ["cp-sat", "stepwise"])
def test_shield_across_both_steps_on_a_large_board(path, monkeypatch):
    """A double striker's 2 + 2 damage into a 0/9 with "prevent the next 5": 3 of the shield is left
    for the regular step; the four 20/30 attackers kill their 1/5 blockers. Far too large for the
    whole exhaustive search. The encoding carries the shield's remainder; the stepwise search solves
    each regular step, a one-step board, with CP-SAT."""
    if path == "stepwise":
        monkeypatch.setattr(CombatModel, "unsupported", lambda self: "forced" if self.two_steps else None)
    pairs = [(attacker(f"a{i}", 20, 30, "B"), blocker(f"x{i}", 1, 5, f"a{i}"), blocker(f"y{i}", 1, 5, f"a{i}"))
             for i in range(4)]
    board = make_board(attacker("ds", 2, 2, "B", "double strike"), blocker("s", 0, 9, "ds"),
                       *[c for trio in pairs for c in trio],
                       effects=[{"kind": "prevent", "amount": 5, "recipients": ["s"]}])
    result = solved(board, ["kills"])
    assert result.method == path and result.status == "optimal"
    assert result.objective == {"kills": 8} and result.outcome.creatures["s"].damage == 0


@pytest.mark.parametrize("fallback", ["exhaustive", "stepwise"])
def test_searches_stop_at_the_time_limit_with_a_legal_unproven_line(fallback, monkeypatch):
    """A time limit ends the fallback searches too: the line returned is legal and marked feasible."""
    import optimizer.search as search_module
    from optimizer import check, solve

    if fallback == "stepwise":
        monkeypatch.setattr(search_module, "REGULAR_STEP_COST", 0)
    board = make_board(attacker("a", 2, 2, "B", "deathtouch", "first strike"), attacker("c", 3, 3, "B"),
                       blocker("b", 0, 4, ["a", "c"]), blocker("d", 1, 2, ["a", "c"]),
                       effects=[{"kind": "prevent", "amount": 1, "recipients": ["b"]},
                                {"kind": "prevent", "amount": 1, "recipients": ["b"]}])
    assert CombatModel(board, "A", ("kills",)).unsupported() is not None  # two shields first strike reaches
    result = solve(board, objective=["kills"], time_limit=1e-6)
    assert result.method == fallback and result.status == "feasible"
    assert check(board, result.assignments, result.dealing).legal
    assert any(w.startswith("not proven optimal: the time limit ran out") for w in result.warnings)
    assert solve(board, objective=["kills"]).status == "optimal"


def test_a_trampler_s_illegal_splits_do_not_hold_up_the_search_s_first_option(monkeypatch):
    """The exhaustive search lists a player's options one by one. Two tramplers attack a
    planeswalker through three shared 5-toughness blockers they cannot all kill, so their splits that
    go past the blockers are illegal (702.19b), and eight other attackers have 9 legal splits each:
    the first legal option must come at once, not after every combination of the others' splits for
    each illegal split of a trampler (9^8, about 4 x 10^7, here)."""
    from optimizer import bruteforce
    from optimizer.assignment import Step, normalize

    creatures = [attacker("t1", 6, 6, "pw", "trample"), attacker("t2", 6, 6, "pw", "trample")]
    creatures += [blocker(f"b{i}", 1, 5, ["t1", "t2"]) for i in range(3)]
    for i in range(8):
        creatures += [attacker(f"o{i}", 8, 8, "B"), blocker(f"x{i}", 0, 9, f"o{i}"), blocker(f"y{i}", 0, 9, f"o{i}")]
    board = make_board(*creatures, planeswalkers=[planeswalker("pw", 20)])
    checked = []
    real = bruteforce.step_violations

    def counted(*args, **kwargs):
        checked.append(1)
        if len(checked) > 10_000:
            raise AssertionError("the search went through the other creatures' options for an illegal split")
        return real(*args, **kwargs)

    monkeypatch.setattr(bruteforce, "step_violations", counted)
    first = next(bruteforce.player_options(board, "A", Step.REGULAR, ()))
    assert not real(board, Step.REGULAR, normalize(first), {c.id for c in board.combatants if c.controller == "A"})


def _banding_board_past_the_limits():
    """Three 8/8 first strikers and a 5/5, blocked by three 4/4s that each block all four, the first
    with banding: too large for both searches' limits (46^3 first-strike splits)."""
    attackers = [attacker(f"a{i}", 8, 8, "B", "first strike") for i in range(3)] + [attacker("a3", 5, 5, "B")]
    blockers = [blocker(f"b{i}", 4, 4, [f"a{j}" for j in range(4)], *(["banding"] if i == 0 else []))
                for i in range(3)]
    return make_board(*attackers, *blockers)


def _data_board(file, key=None):
    """A board from ``tests/data/FILE`` (the value at ``key`` when the file holds several)."""
    import json
    from pathlib import Path

    from optimizer import load_board

    data = json.loads((Path(__file__).parent / "data" / file).read_text())
    return load_board(data if key is None else data[key])


def test_board_too_large_for_the_exhaustive_search_is_refused_with_the_reason():
    """The first strikers may kill the banding blocker, which would give a3's damage back to A in the
    regular step (702.22j): the encoding leaves that to the exhaustive search, and both the whole
    search and the first-strike step's (46^3 splits) are too large."""
    from optimizer import NotSupportedError, solve

    board = _banding_board_past_the_limits()
    with pytest.raises(NotSupportedError) as info:
        solve(board)
    assert info.value.field == "board" and "banding" in info.value.problem


def test_a_search_whose_dealing_choices_multiply_past_the_line_limit_is_refused(monkeypatch):
    """A 3 x 5 board with six effects on all damage: 160 first-strike lines, within the limits, but B's
    choices for the effects (616.1, 615.7) on several recipients multiply them into millions. Without a
    time limit the search counts the lines it reaches, choices included, and is refused past
    ``LINE_LIMIT`` (here lowered to 1,000); with one it answers, legal and not proven."""
    from optimizer import NotSupportedError, check, search, solve

    board = _data_board("dealing_choices_board.json")
    monkeypatch.setattr(search, "LINE_LIMIT", 1000)
    with pytest.raises(NotSupportedError) as info:
        solve(board)
    assert "160 first-strike lines" in info.value.problem and "reached more than 1000 lines" in info.value.problem
    result = solve(board, time_limit=0.5)
    assert result.method in ("stepwise", "exhaustive") and result.status == "feasible"
    assert check(board, result.assignments, result.dealing).legal


def assert_fallback_answers(board, result, refusal: str) -> None:
    """A time-limited answer to a board the searches refuse: a legal line, valued by the checker, not
    proven optimal, the warning saying why; at least as good for the decider as the simplest line."""
    from optimizer import check
    from optimizer.objectives import objective_values
    from optimizer.rules import simplest_line

    assert (result.method, result.status) == ("fallback", "feasible")
    names = list(result.objective)
    verdict = check(board, result.assignments, result.dealing)
    assert verdict.legal and verdict.outcome == result.outcome
    assert objective_values(board, verdict.outcome, result.player, names) == result.objective
    simplest = objective_values(board, check(board, simplest_line(board)).outcome, result.player, names)
    assert [result.objective[n] for n in names] >= [simplest[n] for n in names]
    assert any(w.startswith("not proven optimal: ") and refusal in w and "is returned instead" in w
               for w in result.warnings), result.warnings


def test_a_creature_with_too_many_splits_for_the_searches_is_refused_or_given_a_fallback_line(monkeypatch):
    """The same kind of board with 3,000-power first strikers: one creature's damage alone has
    4,504,502 ways to be divided among its three blockers (C(3002, 2) + 1 with assigning nothing).
    The searches would list them before any time limit could stop them, so the board is refused with
    the creature named, and without listing the other side's first-step replies either; with a time
    limit, the simplest legal line answers instead, not proven optimal."""
    from optimizer import NotSupportedError, bruteforce, solve

    attackers = [attacker(f"a{i}", 3000, 3000, "B", "first strike") for i in range(3)] + [attacker("a3", 5, 5, "B")]
    blockers = [blocker(f"b{i}", 4, 4000, [f"a{j}" for j in range(4)], *(["banding"] if i == 0 else []))
                for i in range(3)]
    board = make_board(*attackers, *blockers)
    monkeypatch.setattr(bruteforce, "creature_options", None)  # never listed
    with pytest.raises(NotSupportedError) as info:
        solve(board)
    assert "ways" in info.value.problem and "more than the exhaustive search lists" in info.value.problem
    assert_fallback_answers(board, solve(board, time_limit=0.5), "more than the exhaustive search lists")


def test_board_too_large_for_the_searches_is_searched_until_the_time_limit():
    """The same board with a time limit: the searches run until then instead of refusing (the first
    step searched, each regular step solved by CP-SAT), and the line is legal; proven only if the
    search (alpha-beta) finished in time."""
    from optimizer import check, solve

    board = _banding_board_past_the_limits()
    result = solve(board, time_limit=0.5)
    assert result.method == "stepwise" and result.status in ("feasible", "optimal")
    assert check(board, result.assignments, result.dealing).legal
    assert any("solved by exhaustive search of the first-strike step" in w for w in result.warnings)


def test_board_past_both_search_limits_is_solved_when_the_pruned_search_finishes():
    """Past both limits and without a time limit, the pruned search still runs up to a count of the
    lines it reaches (the same on every run): this board needs a few hundred, so it is solved, and
    the time-limited run agrees."""
    from optimizer import check, solve
    from optimizer.bruteforce import count_first_step_lines, count_leaves
    from optimizer.search import EXHAUSTIVE_LIMIT, FIRST_STEP_LIMIT

    board = _data_board("pruned_search_board.json")
    assert count_leaves(board) > EXHAUSTIVE_LIMIT and count_first_step_lines(board) > FIRST_STEP_LIMIT
    result = solve(board)
    assert result.method == "stepwise" and result.status == "optimal"
    assert check(board, result.assignments, result.dealing).legal
    assert solve(board, time_limit=60).objective == result.objective
    assert_exhaustive_value(board, result)


def test_a_player_lost_in_the_first_step_leaves_a_search_within_the_budget():
    """B may lose to first-strike damage (800.4a), and the regular step after that is searched rather
    than solved by CP-SAT: 14.8 million lines, but the pruned search stays within its budget."""
    from optimizer import check, solve

    board = _data_board("search_limit_boards.json", "player_loss")
    result = solve(board)
    assert result.method == "stepwise" and result.status == "optimal"
    assert check(board, result.assignments, result.dealing).legal
    assert_exhaustive_value(board, result)


def assert_exhaustive_value(board, result) -> None:
    """``result``'s values are those of the whole exhaustive search: the regular steps searched too,
    not solved by CP-SAT as the stepwise search solves them (alpha-beta: seconds on these boards)."""
    from optimizer.bruteforce import brute_force

    searched = brute_force(board, result.player, list(result.objective), prune=True)
    assert searched.complete and tuple(result.objective.values()) == searched.value


def test_boards_past_the_search_limit_are_refused_at_once_or_given_a_fallback_line():
    """Past 10^16 lines even listing one player's options can outlast a time limit: refused at once,
    or with a time limit answered within it with a legal line, not proven optimal."""
    import time

    from optimizer import NotSupportedError, solve
    from optimizer.bruteforce import count_leaves
    from optimizer.search import SEARCH_LIMIT

    board = _data_board("search_limit_boards.json", "huge")
    assert count_leaves(board) > SEARCH_LIMIT
    with pytest.raises(NotSupportedError) as info:
        solve(board)
    assert info.value.field == "board" and "too large" in info.value.problem
    assert f"about 10^{len(str(count_leaves(board))) - 1} lines" in info.value.problem  # not hundreds of digits
    started = time.monotonic()
    result = solve(board, time_limit=30)
    assert time.monotonic() - started < 30  # not searched until the limit: no search would finish
    assert_fallback_answers(board, result, "too large")


def test_a_fallback_line_is_the_better_of_the_simplest_and_the_board_without_banding(monkeypatch):
    """As though the board were refused (the encoding's reason and tiny search limits stand in for a
    large board): with a time limit, the line found for the board without banding answers where the
    checker finds it legal and better. The banding attacker divides its own damage (702.22k gives the
    active player only its blockers'), so its two kills are legal; the simplest line has one."""
    from optimizer import solve
    from optimizer import search as search_module
    from optimizer.encode import CombatModel

    board = make_board(attacker("lion", 4, 4, "B", "banding"), blocker("b1", 1, 1, "lion"),
                       blocker("b2", 3, 3, "lion"))
    monkeypatch.setattr(CombatModel, "unsupported", lambda self: "a stand-in reason" if any(
        "banding" in {k.value for k in c.keywords} for c in self.board.creatures) else None)
    for limit in ("EXHAUSTIVE_LIMIT", "FIRST_STEP_LIMIT", "SEARCH_LIMIT"):
        monkeypatch.setattr(search_module, limit, 0)
    result = solve(board, objective=["kills"], time_limit=5)
    assert_fallback_answers(board, result, "a stand-in reason")
    assert result.objective["kills"] == 2
    assert any("the best line found for the board without banding" in w for w in result.warnings)


def test_a_thousand_effects_on_one_damage() -> None:
    """The most effects a board may have, all doubling one damage (614.1a): every order is alike, so
    the search lists one; the 2/2 deals 2 * 2^1000 and the 3/3 deals 3 * 2^1000."""
    board = load_board({"players": [{"id": "A"}, {"id": "B"}],
                        "creatures": [attacker("a", 3, 3), blocker("b", 2, 2, ["a"])],
                        "effects": [{"kind": "double"}] * 1000})
    from optimizer import solve

    result = solve(board)
    assert result.status == "optimal" and check(board, result.assignments, result.dealing).legal
    assert result.outcome.creatures["a"].damage == 2 * 2**1000 and result.outcome.creatures["b"].damage == 3 * 2**1000
    assert sorted(result.outcome.destroyed) == ["a", "b"]


def test_a_dealing_order_on_a_board_without_effects_says_it_has_none() -> None:
    board = make_board(attacker("a", 2, 2))
    line = {"assignments": [{"source": "a", "target": "B", "amount": 2}],
            "dealing": [{"step": "regular", "source": "a", "target": "B", "order": [0]}]}
    with pytest.raises(InvalidAssignmentError) as info:
        check(board, line)
    assert info.value.field == "dealing[0].order"
    assert "(it has none: the order is [])" in info.value.problem and "-1" not in info.value.problem


def test_616_1_the_affected_player_orders_effects_as_is_best_for_it_also_to_deal_more() -> None:
    """616.1: a 2/2 blocked by B's 0/6 wall worth -3; a doubler and a +1 apply to damage to the wall:
    doubled first 2 x 2 + 1 = 5 (it lives), added first (2 + 1) x 2 = 6 (it dies). B, who orders
    them, plays worst for A: with ``value`` it kills its own wall (A's value -3), with ``kills`` it
    keeps it (kills 0). Deciding itself, B kills it for ``value`` (+3 for B)."""
    board = make_board(attacker("a", 2, 2), blocker("w", 0, 6, "a", value=-3),
                       effects=[{"kind": "double", "recipients": ["w"]},
                                {"kind": "add", "amount": 1, "recipients": ["w"]}])
    for objective, decider, expected, dies in ((["value"], "A", -3, True), (["kills"], "A", 0, False),
                                               (["value"], "B", 3, True)):
        result = solved(board, objective, decider)
        assert result.objective == {objective[0]: expected}
        assert ("w" in result.outcome.destroyed) is dies
        assert [d.order for d in result.dealing] == [(1, 0) if dies else (0, 1)]
