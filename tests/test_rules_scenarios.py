"""One test per combat damage rule the optimizer encodes, on small hand-computed boards.

Every expected answer below was worked out by hand from the Comprehensive Rules (see
../shared/rules-notes.md, current rules: no damage assignment order), not copied from the code's
output. Each test names its rule; the docstring quotes or paraphrases it and shows the arithmetic.

Conventions: player "A" is the active (attacking) player, "B" (and "C" in multiplayer tests) defend.
Attackers are usually given a large toughness so that blockers' damage does not matter unless the
test is about it.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from optimizer import InvalidBoardError, check, load_board, solve
from optimizer.objectives import objective_values
from scenarios import attacker, battle, blocker, check_line, make_board, planeswalker, player, solved


# --- assignment / result helpers ---------------------------------------------------------------

def dmg(source: str, target: str, amount: int) -> dict[str, Any]:
    return {"source": source, "target": target, "amount": amount}




def rules_broken(result) -> set[str]:
    return {v.rule for v in result.violations}


def assert_legal(board, *assignments: dict[str, Any]):
    result = check_line(board, *assignments)
    assert result.legal, [str(v) for v in result.violations]
    return result.outcome


def assert_illegal(board, *assignments: dict[str, Any], rule: str | None = None) -> set[str]:
    result = check_line(board, *assignments)
    assert not result.legal, "expected the checker to reject this assignment"
    assert result.outcome is None
    if rule is not None:
        assert rule in rules_broken(result), [str(v) for v in result.violations]
    return rules_broken(result)




def assigned(result, source: str, target: str) -> int:
    return sum(a.amount for a in result.assignments if a.source == source and a.target == target)


# =============================================================================================
# 510.1a: each creature assigns damage equal to its power; 0 or less assigns nothing
# =============================================================================================

@pytest.mark.parametrize("power", [0, -1])
def test_510_1a_power_zero_or_negative_assigns_nothing(power: int) -> None:
    """510.1a: a creature that would assign 0 or less combat damage assigns no combat damage."""
    board = make_board(attacker("a1", power, 3))
    outcome = assert_legal(board)  # nothing assigned at all
    assert outcome.players["B"].life == 20
    assert_illegal(board, dmg("a1", "B", 1), rule="510.1a")


def test_510_1a_zero_power_blocked_creature_breaks_510_1a_only() -> None:
    """510.1a: a blocked 0/3 that assigns 1 to its blocker breaks 510.1a (it assigns no combat damage),
    not 510.1c: the blocker is a legal recipient of a creature that has damage to assign."""
    board = make_board(attacker("z", 0, 3), blocker("b", 1, 1, "z"))
    assert assert_illegal(board, dmg("z", "b", 1), dmg("b", "z", 1)) == {"510.1a"}


def test_510_1a_zero_power_deathtouch_blocker_deals_no_damage() -> None:
    """510.1a (with 120.8/702.2b): a 0-power deathtouch blocker assigns nothing, so it destroys nothing."""
    board = make_board(attacker("a1", 3, 3), blocker("b1", 0, 4, "a1", "deathtouch"))
    outcome = assert_legal(board, dmg("a1", "b1", 3))
    assert not outcome.creatures["a1"].destroyed
    assert outcome.creatures["b1"].damage == 3 and not outcome.creatures["b1"].destroyed


def test_510_1a_whole_power_must_be_assigned() -> None:
    """510.1a: an unblocked 3/3 assigns exactly 3; the checker rejects 2 and 4."""
    board = make_board(attacker("a1", 3, 3))
    assert assert_legal(board, dmg("a1", "B", 3)).players["B"].life == 17
    assert_illegal(board, dmg("a1", "B", 2), rule="510.1a")
    assert_illegal(board, dmg("a1", "B", 4), rule="510.1a")
    assert_illegal(board, rule="510.1a")  # assigning nothing is not an option either


def test_510_1a_trampler_must_assign_whole_power() -> None:
    """510.1a with 702.19b: a 6/6 trampler blocked by a 2/2 may not keep one damage back (2 + 3 = 5)."""
    board = make_board(attacker("t", 6, 6, "B", "trample"), blocker("b", 2, 2, "t"))
    assert_illegal(board, dmg("t", "b", 2), dmg("t", "B", 3), dmg("b", "t", 2), rule="510.1a")


# =============================================================================================
# 510.1b: an unblocked creature damages what it attacks; nothing if that has left combat (506.4c)
# =============================================================================================

def test_510_1b_unblocked_damages_attacked_player() -> None:
    """510.1b / 120.3a: an unblocked 3/3 attacking B makes B lose 3 life."""
    board = make_board(attacker("a1", 3, 3, "B"))
    outcome = assert_legal(board, dmg("a1", "B", 3))
    assert outcome.players["B"].life == 17
    assert outcome.players["B"].damage_taken == 3


def test_510_1b_unblocked_damages_attacked_planeswalker() -> None:
    """510.1b / 120.3c: an unblocked 3/3 attacking a loyalty-5 planeswalker removes 3 loyalty."""
    board = make_board(attacker("a1", 3, 3, "pw"), planeswalkers=[planeswalker("pw", 5)])
    outcome = assert_legal(board, dmg("a1", "pw", 3))
    assert outcome.planeswalkers["pw"] == 2
    assert outcome.players["B"].life == 20
    assert "pw" not in outcome.destroyed
    # it may not hit the planeswalker's controller instead
    assert not check_line(board, dmg("a1", "B", 3)).legal


def test_510_1b_unblocked_damages_attacked_battle() -> None:
    """510.1b / 120.3h: an unblocked 3/3 attacking a defense-5 battle removes 3 defense counters."""
    board = make_board(attacker("a1", 3, 3, "siege"), battles=[battle("siege", 5)])
    outcome = assert_legal(board, dmg("a1", "siege", 3))
    assert outcome.battles["siege"] == 2
    assert outcome.players["B"].life == 20
    assert not check_line(board, dmg("a1", "B", 3)).legal


def test_510_1b_506_4c_planeswalker_removed_from_combat_deals_nothing() -> None:
    """506.4c / 510.1b: attacking a planeswalker that left combat, an unblocked creature assigns nothing."""
    board = make_board(attacker("a1", 3, 3, "pw"),
                       planeswalkers=[planeswalker("pw", 5, removed_from_combat=True)])
    outcome = assert_legal(board)
    assert outcome.planeswalkers["pw"] == 5
    assert outcome.players["B"].life == 20
    assert assert_illegal(board, dmg("a1", "pw", 3)) == {"510.1b", "506.4c"}  # not 510.1a: its power is 3
    assert not check_line(board, dmg("a1", "B", 3)).legal


def test_800_4a_an_attacker_on_a_player_who_left_assigns_nothing_and_says_why() -> None:
    """800.4a: A's double striker kills C (1 life) in the first-strike step; C leaves the game, so in
    the regular step the attacker has nothing to assign its damage to (its 3 is no 510.1a shortfall)."""
    board = make_board(attacker("a1", 3, 3, "C", "double strike"), attacker("a2", 1, 1, "B"),
                       players=[player("A"), player("B"), player("C", life=1)])
    first = {"step": "first_strike", "source": "a1", "target": "C", "amount": 3}
    assert assert_legal(board, first, dmg("a2", "B", 1)).players["C"].lost
    assert assert_illegal(board, first, dmg("a1", "C", 3), dmg("a2", "B", 1)) == {"510.1b", "800.4a"}


def test_510_1b_506_4c_battle_removed_from_combat_deals_nothing() -> None:
    """506.4c / 510.1b: attacking a battle that left combat, an unblocked creature assigns nothing."""
    board = make_board(attacker("a1", 3, 3, "siege"),
                       battles=[battle("siege", 5, removed_from_combat=True)])
    outcome = assert_legal(board)
    assert outcome.battles["siege"] == 5
    assert not check_line(board, dmg("a1", "siege", 3)).legal
    assert not check_line(board, dmg("a1", "B", 3)).legal


def test_510_1b_506_4c_solver_assigns_nothing_when_attacked_object_is_gone() -> None:
    """506.4c: the solver's line for such an attacker is empty and does no damage."""
    board = make_board(attacker("a1", 3, 3, "pw"),
                       planeswalkers=[planeswalker("pw", 5, removed_from_combat=True)])
    result = solved(board, ["player_damage", "loyalty"])
    assert result.objective == {"player_damage": 0, "loyalty": 0}
    assert result.assignments == ()


# =============================================================================================
# 510.1c: a blocked creature divides its damage freely among its blockers
# =============================================================================================

def regrower_board():
    """CR 510.1c example: Elvish Regrower (4/3) blocked by Vampire Spawn (2/3) and Helpful Hunter (1/1)."""
    return make_board(
        attacker("regrower", 4, 3, "B", name="Elvish Regrower"),
        blocker("spawn", 2, 3, "regrower", name="Vampire Spawn"),
        blocker("hunter", 1, 1, "regrower", name="Helpful Hunter"),
    )


REGROWER_BLOCKERS = (dmg("spawn", "regrower", 2), dmg("hunter", "regrower", 1))


def test_510_1c_cr_example_exactly_five_legal_splits() -> None:
    """510.1c example: the Regrower may assign 4/0, 3/1, 2/2, 1/3 or 0/4 (Spawn/Hunter), and nothing else.

    Tried: every split of 0..5 damage among Spawn, Hunter and the defending player.
    """
    board = regrower_board()
    legal = set()
    for spawn, hunter, to_player in itertools.product(range(6), repeat=3):
        if spawn + hunter + to_player > 5:
            continue
        line = [dmg("regrower", t, n) for t, n in (("spawn", spawn), ("hunter", hunter), ("B", to_player)) if n]
        if check_line(board, *line, *REGROWER_BLOCKERS).legal:
            legal.add((spawn, hunter, to_player))
    assert legal == {(4, 0, 0), (3, 1, 0), (2, 2, 0), (1, 3, 0), (0, 4, 0)}


def test_510_1c_cr_example_rejects_player_damage_and_short_total() -> None:
    """510.1c: blocked without trample it cannot hit the player; 510.1a: a total of 3 is too little."""
    board = regrower_board()
    assert_illegal(board, dmg("regrower", "spawn", 2), dmg("regrower", "B", 2), *REGROWER_BLOCKERS, rule="510.1c")
    assert_illegal(board, dmg("regrower", "spawn", 2), dmg("regrower", "hunter", 1), *REGROWER_BLOCKERS,
                   rule="510.1a")


def test_510_1c_cr_example_outcome_of_two_two_split() -> None:
    """510.1c, 704.5g: the 2/2 split kills Helpful Hunter (2 >= 1) but not Vampire Spawn (2 < 3);
    the blockers' 2 + 1 = 3 damage kills the 4/3 Regrower."""
    outcome = assert_legal(regrower_board(), dmg("regrower", "spawn", 2), dmg("regrower", "hunter", 2),
                           *REGROWER_BLOCKERS)
    assert outcome.creatures["hunter"].destroyed
    assert not outcome.creatures["spawn"].destroyed
    assert outcome.creatures["regrower"].destroyed
    assert set(outcome.destroyed) == {"hunter", "regrower"}


def test_510_1c_cr_example_solver_kills_both_blockers() -> None:
    """510.1c: 3 to Spawn and 1 to Hunter kills both (kills = 2); the blockers kill the Regrower
    (survivors = 0), so value = 1 + 1 - 1 = 1."""
    result = solved(regrower_board(), ["kills", "survivors", "value"])
    assert result.objective == {"kills": 2, "survivors": 0, "value": 1}
    assert assigned(result, "regrower", "spawn") == 3
    assert assigned(result, "regrower", "hunter") == 1


def test_510_1c_blocked_with_no_blockers_left_deals_no_damage() -> None:
    """510.1c / 509.1h: a creature that stays blocked after its blockers left combat assigns no damage."""
    board = make_board(attacker("a1", 4, 4, "B", blocked=True))
    outcome = assert_legal(board)
    assert outcome.players["B"].life == 20
    assert_illegal(board, dmg("a1", "B", 4))
    result = solved(board, ["player_damage"])
    assert result.objective == {"player_damage": 0}
    assert result.assignments == ()


def test_510_1c_blocked_non_trampler_cannot_hit_player() -> None:
    """510.1c: a 5/5 without trample blocked by a 1/1 must put all 5 on the 1/1, excess or not."""
    board = make_board(attacker("a1", 5, 5), blocker("b1", 1, 1, "a1"))
    assert_legal(board, dmg("a1", "b1", 5), dmg("b1", "a1", 1))
    assert_illegal(board, dmg("a1", "b1", 1), dmg("a1", "B", 4), dmg("b1", "a1", 1), rule="510.1c")
    result = solved(board, ["player_damage"])
    assert result.objective == {"player_damage": 0}


# =============================================================================================
# 510.1d: a blocker divides its damage among the attackers it blocks
# =============================================================================================

def double_block_board(value_x: int = 1, value_y: int = 1):
    """B's 2/5 blocks both of A's 2/2s, x and y (it can block an additional creature)."""
    return make_board(
        attacker("x", 2, 2, value=value_x),
        attacker("y", 2, 2, value=value_y),
        blocker("b", 2, 5, ["x", "y"]),
    )


def test_510_1d_blocker_divides_damage_freely() -> None:
    """510.1d: a 2-power blocker of two attackers may assign 2/0, 1/1 or 0/2; it must assign all 2,
    and only to the creatures it blocks."""
    board = double_block_board()
    attackers = (dmg("x", "b", 2), dmg("y", "b", 2))
    for to_x, to_y in ((2, 0), (1, 1), (0, 2)):
        line = [dmg("b", t, n) for t, n in (("x", to_x), ("y", to_y)) if n]
        assert_legal(board, *attackers, *line)
    assert_illegal(board, *attackers, dmg("b", "x", 1), rule="510.1a")
    assert_illegal(board, *attackers, dmg("b", "A", 2), rule="510.1d")


def test_510_1d_solver_assumes_worst_blocker_split_for_value() -> None:
    """510.1d + "what is optimized": A decides, B's blocker replies worst for A. With x worth 1 and
    y worth 5, the blocker puts 2 on y: A's 4 damage does not kill the 2/5, so value = 0 - 5 = -5."""
    board = double_block_board(value_x=1, value_y=5)
    result = solved(board, ["value"])
    assert result.objective == {"value": -5}
    assert assigned(result, "b", "y") == 2
    assert result.outcome.creatures["y"].destroyed
    assert not result.outcome.creatures["x"].destroyed
    assert not result.outcome.creatures["b"].destroyed


def test_510_1d_solver_reports_guaranteed_survivors() -> None:
    """510.1d: the blocker can kill either 2/2 but not both, so A is guaranteed 1 survivor, not 2."""
    result = solved(double_block_board(), ["survivors"])
    assert result.objective == {"survivors": 1}
    assert len([c for c in ("x", "y") if result.outcome.creatures[c].destroyed]) == 1


def test_510_1d_defending_player_decides_blocker_split() -> None:
    """510.1d with B deciding: B's 3/3 blocks A's x (2/2, value 1) and y (3/3, value 3). B kills y
    (3 damage); A's 2 + 3 = 5 damage kills B's blocker (value 1), so B's value = 3 - 1 = 2, kills = 1."""
    board = make_board(attacker("x", 2, 2, value=1), attacker("y", 3, 3, value=3),
                       blocker("b", 3, 3, ["x", "y"]))
    result = solved(board, ["value", "kills"], player_id="B")
    assert result.objective == {"value": 2, "kills": 1}
    assert assigned(result, "b", "y") == 3
    assert result.player == "B"


# =============================================================================================
# 510.1e: the whole assignment is judged together
# =============================================================================================

def shared_blocker_board():
    """702.19b example 1: a 2/2 blocks a 1/1 and a 3/3 trampler (both attacking B)."""
    return make_board(attacker("small", 1, 1), attacker("tramp", 3, 3, "B", "trample"),
                      blocker("b", 2, 2, ["small", "tramp"]))


def test_510_1e_702_19b_example_one_shared_blocker_counts_other_attackers_damage() -> None:
    """510.1e + 702.19b example 1: 1 (from the 1/1) + 1 (from the trampler) is lethal for the 2/2,
    so the trampler may assign its other 2 to the player."""
    board = shared_blocker_board()
    outcome = assert_legal(board, dmg("small", "b", 1), dmg("tramp", "b", 1), dmg("tramp", "B", 2),
                           dmg("b", "small", 2))
    assert outcome.players["B"].life == 18
    assert outcome.creatures["b"].destroyed


def test_510_1e_shared_blocker_still_needs_lethal_in_total() -> None:
    """510.1e / 702.19b: 1 from the 1/1 alone is not lethal for the 2/2, so 3 to the player is illegal."""
    board = shared_blocker_board()
    assert_illegal(board, dmg("small", "b", 1), dmg("tramp", "B", 3), dmg("b", "small", 2), rule="702.19b")


def test_510_1e_shared_blocker_solver_player_damage() -> None:
    """510.1e: the best the trampler can do past the shared 2/2 is 3 - 1 = 2."""
    result = solved(shared_blocker_board(), ["player_damage"])
    assert result.objective == {"player_damage": 2}


# =============================================================================================
# 702.19b: trample
# =============================================================================================

def test_702_19b_example_two_six_six_trampler_needs_two_on_blocker() -> None:
    """702.19b example 2: a 6/6 trampler blocked by a 2/2 assigns at least 2 to it, the rest to B."""
    board = make_board(attacker("t", 6, 6, "B", "trample"), blocker("b", 2, 2, "t"))
    for on_blocker in range(7):
        line = [dmg("t", "b", on_blocker)] + ([dmg("t", "B", 6 - on_blocker)] if on_blocker < 6 else [])
        verdict = check_line(board, *line, dmg("b", "t", 2))
        assert verdict.legal == (on_blocker >= 2), (on_blocker, [str(v) for v in verdict.violations])
    assert "702.19b" in rules_broken(check_line(board, dmg("t", "b", 1), dmg("t", "B", 5), dmg("b", "t", 2)))


def test_702_19b_marked_damage_reduces_lethal() -> None:
    """702.19b: lethal counts damage already marked: a 2/2 with 1 damage needs only 1 more (1 + 5)."""
    board = make_board(attacker("t", 6, 6, "B", "trample"), blocker("b", 2, 2, "t", damage=1))
    outcome = assert_legal(board, dmg("t", "b", 1), dmg("t", "B", 5), dmg("b", "t", 2))
    assert outcome.creatures["b"].destroyed
    assert_illegal(board, dmg("t", "B", 6), dmg("b", "t", 2), rule="702.19b")


def test_702_19b_lethal_ignores_indestructible() -> None:
    """702.19b: lethal ignores indestructible: an undamaged indestructible 2/2 still needs 2."""
    board = make_board(attacker("t", 6, 6, "B", "trample"), blocker("b", 2, 2, "t", "indestructible"))
    assert_illegal(board, dmg("t", "b", 1), dmg("t", "B", 5), dmg("b", "t", 2), rule="702.19b")
    outcome = assert_legal(board, dmg("t", "b", 2), dmg("t", "B", 4), dmg("b", "t", 2))
    assert not outcome.creatures["b"].destroyed  # 702.12b


def test_702_19b_indestructible_blocker_already_lethally_damaged_needs_nothing() -> None:
    """702.19b: an indestructible 2/2 with 3 damage marked already has lethal damage: all 6 may trample."""
    board = make_board(attacker("t", 6, 6, "B", "trample"),
                       blocker("b", 2, 2, "t", "indestructible", damage=3))
    outcome = assert_legal(board, dmg("t", "B", 6), dmg("b", "t", 2))
    assert outcome.players["B"].life == 14
    assert solved(board, ["player_damage"]).objective == {"player_damage": 6}


@pytest.mark.parametrize("creatures, expected", [
    # 6/6 trample vs 2/2: 6 - 2 = 4
    ([attacker("t", 6, 6, "B", "trample"), blocker("b", 2, 2, "t")], 4),
    # same, blocker has 1 damage marked: 6 - 1 = 5
    ([attacker("t", 6, 6, "B", "trample"), blocker("b", 2, 2, "t", damage=1)], 5),
    # 6/6 trample vs a 2/2 and a 3/3: 6 - 2 - 3 = 1
    ([attacker("t", 6, 6, "B", "trample"), blocker("b1", 2, 2, "t"), blocker("b2", 3, 3, "t")], 1),
    # 4/4 trample vs a 2/2 and a 3/3: lethal needs 5 > 4, nothing gets through
    ([attacker("t", 4, 4, "B", "trample"), blocker("b1", 2, 2, "t"), blocker("b2", 3, 3, "t")], 0),
    # 5/5 trample vs a 2/2 plus an unblocked 2/2: 3 + 2 = 5
    ([attacker("t", 5, 5, "B", "trample"), blocker("b", 2, 2, "t"), attacker("u", 2, 2)], 5),
    # 3/3 trample vs an indestructible 4/4: lethal is 4 > 3, nothing through
    ([attacker("t", 3, 3, "B", "trample"), blocker("b", 0, 4, "t", "indestructible")], 0),
])
def test_702_19b_solver_player_damage_optimum(creatures: list[dict[str, Any]], expected: int) -> None:
    """702.19b: the solver's best damage to the player is power minus the blockers' remaining lethal."""
    result = solved(make_board(*creatures), ["player_damage"])
    assert result.objective == {"player_damage": expected}
    assert result.outcome.players["B"].life == 20 - expected


def test_702_19b_two_tramplers_share_lethal_on_one_blocker() -> None:
    """510.1e / 702.19b: two 3/3 tramplers both blocked by one 1/4 need 4 on it in total, so together
    they can send 6 - 4 = 2 past (e.g. 2 + 2 on it, 1 + 1 to B)."""
    board = make_board(attacker("t1", 3, 9, "B", "trample"), attacker("t2", 3, 9, "B", "trample"),
                       blocker("b", 1, 4, ["t1", "t2"]))
    assert_legal(board, dmg("t1", "b", 2), dmg("t1", "B", 1), dmg("t2", "b", 2), dmg("t2", "B", 1),
                 dmg("b", "t1", 1))
    assert_illegal(board, dmg("t1", "b", 3), dmg("t2", "B", 3), dmg("b", "t1", 1), rule="702.19b")
    assert solved(board, ["player_damage"]).objective == {"player_damage": 2}


def test_702_19b_wither_damage_counts_as_assigned_for_lethal() -> None:
    """702.19b + 120.3d: wither damage counts toward lethal when assigned: a 3/3 wither trampler
    assigns 2 to a 2/2 and 1 to B; the 2/2 gets two -1/-1 counters and dies (704.5f)."""
    board = make_board(attacker("t", 3, 3, "B", "trample", "wither"), blocker("b", 2, 2, "t"))
    outcome = assert_legal(board, dmg("t", "b", 2), dmg("t", "B", 1), dmg("b", "t", 2))
    assert outcome.creatures["b"].minus_counters == 2
    assert outcome.creatures["b"].damage == 0
    assert outcome.creatures["b"].destroyed
    assert outcome.players["B"].life == 19


# =============================================================================================
# 702.2c + 702.19b: deathtouch and trample
# =============================================================================================

def test_702_2c_deathtouch_trample_one_to_each_blocker_is_lethal() -> None:
    """702.2c / 702.19b: with deathtouch, 1 damage is lethal: a 3/3 deathtouch trampler blocked by a
    4/4 and a 5/5 assigns 1 + 1 and 1 to B; both blockers die (704.5h)."""
    board = make_board(attacker("t", 3, 9, "B", "trample", "deathtouch"),
                       blocker("b1", 1, 4, "t"), blocker("b2", 1, 5, "t"))
    blockers = (dmg("b1", "t", 1), dmg("b2", "t", 1))
    outcome = assert_legal(board, dmg("t", "b1", 1), dmg("t", "b2", 1), dmg("t", "B", 1), *blockers)
    assert outcome.creatures["b1"].destroyed and outcome.creatures["b2"].destroyed
    assert outcome.players["B"].life == 19
    assert_illegal(board, dmg("t", "b1", 1), dmg("t", "B", 2), *blockers, rule="702.19b")
    # the message gives the lethal damage a deathtouch source needs: 1 from it, or the blocker's toughness
    message, = (str(v) for v in check_line(board, dmg("t", "b1", 1), dmg("t", "B", 2), *blockers).violations)
    assert "1 damage from t would be lethal" in message and "702.2c" in message
    assert "b2 has 0 of the 5 it needs otherwise" in message
    # another creature's 1 on a 0/3 with 1 marked is not lethal (1 of 2), and t assigned it nothing
    shared = make_board(attacker("t", 3, 9, "B", "trample", "deathtouch"), attacker("s", 1, 1),
                        blocker("g", 0, 3, ["t", "s"], damage=1))
    message, = (str(v) for v in check_line(shared, dmg("t", "B", 3), dmg("s", "g", 1)).violations)
    assert "1 damage from t would be lethal" in message and "g has 1 of the 2 it needs otherwise" in message
    result = solved(board, ["player_damage", "kills"])
    assert result.objective == {"player_damage": 1, "kills": 2}


def test_702_2c_deathtouch_from_another_attacker_makes_blocker_lethal() -> None:
    """702.2c / 702.19b: a 1/5 blocks a 1/1 deathtouch and a 3/3 trampler. The deathtouch 1 counts as
    lethal, so the trampler may send all 3 to B."""
    board = make_board(attacker("d", 1, 1, "B", "deathtouch"), attacker("t", 3, 3, "B", "trample"),
                       blocker("b", 1, 5, ["d", "t"]))
    outcome = assert_legal(board, dmg("d", "b", 1), dmg("t", "B", 3), dmg("b", "d", 1))
    assert outcome.creatures["b"].destroyed
    assert outcome.players["B"].life == 17
    assert solved(board, ["player_damage"]).objective == {"player_damage": 3}


def test_702_2c_deathtouch_lethal_ignores_indestructible() -> None:
    """702.2c / 702.19b: 1 deathtouch damage is lethal for assignment even to an indestructible 5/5
    (indestructible is ignored), so a 4/4 deathtouch trampler sends 3 to B; the blocker survives."""
    board = make_board(attacker("t", 4, 9, "B", "trample", "deathtouch"),
                       blocker("b", 1, 5, "t", "indestructible"))
    outcome = assert_legal(board, dmg("t", "b", 1), dmg("t", "B", 3), dmg("b", "t", 1))
    assert not outcome.creatures["b"].destroyed
    assert solved(board, ["player_damage"]).objective == {"player_damage": 3}


def test_702_2b_deathtouch_without_trample_kills_many_blockers() -> None:
    """702.2b / 704.5h: a 3/3 deathtouch blocked by three 5/5s splits 1/1/1 and kills all three."""
    board = make_board(attacker("d", 3, 9, "B", "deathtouch"),
                       *(blocker(f"b{i}", 1, 5, "d") for i in range(3)))
    result = solved(board, ["kills"])
    assert result.objective == {"kills": 3}


def test_702_2c_same_board_without_deathtouch_needs_real_lethal() -> None:
    """702.19b control case: with a plain 1/1 the 1/5 has 1 of 5, so nothing may trample over
    (the trampler's 3 + the 1/1's 1 = 4 < 5 as well)."""
    board = make_board(attacker("d", 1, 1, "B"), attacker("t", 3, 3, "B", "trample"),
                       blocker("b", 1, 5, ["d", "t"]))
    assert_illegal(board, dmg("d", "b", 1), dmg("t", "B", 3), dmg("b", "d", 1), rule="702.19b")
    assert solved(board, ["player_damage"]).objective == {"player_damage": 0}


# =============================================================================================
# 702.19c-f: trample over planeswalkers, and attackers whose blockers or planeswalker are gone
# =============================================================================================

def cr_702_19c_board():
    """702.19c example: a loyalty-3 planeswalker attacked by an unblocked 1/1 and an unblocked 7/7
    with trample over planeswalkers."""
    return make_board(attacker("small", 1, 1, "pw"),
                      attacker("big", 7, 7, "pw", "trample over planeswalkers"),
                      planeswalkers=[planeswalker("pw", 3)])


def test_702_19c_cr_example_one_plus_two_to_planeswalker_five_to_player() -> None:
    """702.19c example: 1 (1/1) + 2 (7/7) to the planeswalker is lethal, so the 7/7 sends 5 to B."""
    board = cr_702_19c_board()
    outcome = assert_legal(board, dmg("small", "pw", 1), dmg("big", "pw", 2), dmg("big", "B", 5))
    assert outcome.players["B"].life == 15
    assert outcome.planeswalkers["pw"] == 0
    assert "pw" in outcome.destroyed


def test_702_19c_cr_example_rejects_all_seven_to_player() -> None:
    """702.19c: the 7/7 cannot put all 7 on the player with nothing of its own on the planeswalker
    (1 of the 3 loyalty assigned)."""
    board = cr_702_19c_board()
    assert_illegal(board, dmg("small", "pw", 1), dmg("big", "B", 7), rule="702.19c")
    assert_illegal(board, dmg("small", "pw", 1), dmg("big", "pw", 1), dmg("big", "B", 6), rule="702.19c")


def test_702_19c_cr_example_solver_player_damage() -> None:
    """702.19c: the best is 7 - (3 - 1) = 5 to the player, with the planeswalker destroyed."""
    result = solved(cr_702_19c_board(), ["player_damage", "loyalty"])
    assert result.objective == {"player_damage": 5, "loyalty": 3}
    assert assigned(result, "big", "pw") == 2


def test_702_19c_blocked_trample_over_planeswalkers_needs_blockers_then_loyalty() -> None:
    """702.19c: a blocked 6/6 with trample over planeswalkers attacking a loyalty-2 planeswalker,
    blocked by a 1/1: 1 to the blocker, 2 to the planeswalker, 3 to its controller."""
    board = make_board(attacker("t", 6, 6, "pw", "trample over planeswalkers"), blocker("b", 1, 1, "t"),
                       planeswalkers=[planeswalker("pw", 2)])
    assert_legal(board, dmg("t", "b", 1), dmg("t", "pw", 2), dmg("t", "B", 3), dmg("b", "t", 1))
    assert_illegal(board, dmg("t", "pw", 2), dmg("t", "B", 4), dmg("b", "t", 1), rule="702.19b")
    assert solved(board, ["player_damage"]).objective == {"player_damage": 3}


def test_702_19c_deathtouch_does_not_shortcut_loyalty() -> None:
    """702.19c / 702.2c: deathtouch makes 1 lethal for creatures only; a planeswalker still needs damage
    equal to its loyalty. Unblocked 5/5 deathtouch with trample over planeswalkers vs loyalty 3: 3 + 2."""
    board = make_board(attacker("t", 5, 9, "pw", "trample over planeswalkers", "deathtouch"),
                       planeswalkers=[planeswalker("pw", 3)])
    assert_illegal(board, dmg("t", "pw", 1), dmg("t", "B", 4), rule="702.19c")
    assert_legal(board, dmg("t", "pw", 3), dmg("t", "B", 2))
    assert solved(board, ["player_damage"]).objective == {"player_damage": 2}


def test_702_19c_deathtouch_blocker_then_planeswalker_then_controller() -> None:
    """702.19c + 702.2c: a 5/5 deathtouch with trample over planeswalkers, blocked by a 1/4 while
    attacking a loyalty-2 planeswalker: 1 (lethal by deathtouch) + 2 (loyalty) + 2 to B."""
    board = make_board(attacker("t", 5, 9, "pw", "trample over planeswalkers", "deathtouch"),
                       blocker("b", 1, 4, "t"), planeswalkers=[planeswalker("pw", 2)])
    outcome = assert_legal(board, dmg("t", "b", 1), dmg("t", "pw", 2), dmg("t", "B", 2), dmg("b", "t", 1))
    assert outcome.creatures["b"].destroyed and "pw" in outcome.destroyed
    assert solved(board, ["player_damage"]).objective == {"player_damage": 2}


def test_702_19e_planeswalker_removed_trample_over_planeswalkers_hits_controller() -> None:
    """702.19e: attacking a planeswalker that left combat, trample over planeswalkers sends all the
    damage to its controller."""
    board = make_board(attacker("t", 4, 4, "pw", "trample over planeswalkers"),
                       planeswalkers=[planeswalker("pw", 3, removed_from_combat=True)])
    outcome = assert_legal(board, dmg("t", "B", 4))
    assert outcome.players["B"].life == 16
    assert outcome.planeswalkers["pw"] == 3
    assert not check_line(board, dmg("t", "pw", 4)).legal
    assert solved(board, ["player_damage"]).objective == {"player_damage": 4}


def test_702_19e_plain_trample_with_planeswalker_removed_deals_nothing() -> None:
    """702.19e/506.4c: plain trample is not trample over planeswalkers: with the planeswalker gone an
    unblocked plain trampler deals no damage."""
    board = make_board(attacker("t", 4, 4, "pw", "trample"),
                       planeswalkers=[planeswalker("pw", 3, removed_from_combat=True)])
    assert_legal(board)
    assert not check_line(board, dmg("t", "B", 4)).legal
    assert solved(board, ["player_damage"]).objective == {"player_damage": 0}


def test_702_19e_blocked_trample_over_planeswalkers_with_planeswalker_gone() -> None:
    """702.19e: blocked by a 1/1, attacking a planeswalker that left combat, a 4/4 with trample over
    planeswalkers assigns lethal (1) to the blocker and may send the other 3 to the controller."""
    board = make_board(attacker("t", 4, 4, "pw", "trample over planeswalkers"), blocker("b", 1, 1, "t"),
                       planeswalkers=[planeswalker("pw", 3, removed_from_combat=True)])
    outcome = assert_legal(board, dmg("t", "b", 1), dmg("t", "B", 3), dmg("b", "t", 1))
    assert outcome.players["B"].life == 17
    assert_illegal(board, dmg("t", "B", 4), dmg("b", "t", 1), rule="702.19b")
    assert solved(board, ["player_damage"]).objective == {"player_damage": 3}


def test_702_19e_blocked_plain_trample_with_planeswalker_gone_hits_only_blocker() -> None:
    """702.19e/506.4c: with plain trample the excess has nowhere to go: all 4 on the 1/1 blocker."""
    board = make_board(attacker("t", 4, 4, "pw", "trample"), blocker("b", 1, 1, "t"),
                       planeswalkers=[planeswalker("pw", 3, removed_from_combat=True)])
    assert_legal(board, dmg("t", "b", 4), dmg("b", "t", 1))
    assert not check_line(board, dmg("t", "b", 1), dmg("t", "B", 3), dmg("b", "t", 1)).legal
    assert not check_line(board, dmg("t", "b", 1), dmg("t", "pw", 3), dmg("b", "t", 1)).legal
    assert solved(board, ["player_damage"]).objective == {"player_damage": 0}


def test_702_19e_blockers_and_planeswalker_gone() -> None:
    """702.19d + 702.19e: blocked, no blockers left, planeswalker gone: trample over planeswalkers sends
    all 4 to the controller; plain trample deals nothing (it attacks nothing)."""
    pws = [planeswalker("pw", 3, removed_from_combat=True)]
    over = make_board(attacker("t", 4, 4, "pw", "trample over planeswalkers", blocked=True), planeswalkers=pws)
    assert assert_legal(over, dmg("t", "B", 4)).players["B"].life == 16
    plain = make_board(attacker("t", 4, 4, "pw", "trample", blocked=True), planeswalkers=pws)
    assert_legal(plain)
    assert not check_line(plain, dmg("t", "B", 4)).legal
    assert solved(plain, ["player_damage"]).objective == {"player_damage": 0}


def test_702_19c_trample_over_planeswalkers_attacking_battle_never_reaches_protector() -> None:
    """702.19c only passes planeswalkers: attacking a defense-2 battle unblocked, a 5/5 with trample
    over planeswalkers puts all 5 on the battle."""
    board = make_board(attacker("t", 5, 5, "siege", "trample over planeswalkers"), battles=[battle("siege", 2)])
    outcome = assert_legal(board, dmg("t", "siege", 5))
    assert outcome.battles["siege"] == 0
    assert not check_line(board, dmg("t", "siege", 2), dmg("t", "B", 3)).legal
    assert solved(board, ["player_damage", "defense"]).objective == {"player_damage": 0, "defense": 2}


def test_702_19f_plain_trample_attacking_planeswalker_never_hits_player() -> None:
    """702.19f: a 7/7 plain trampler attacking a loyalty-3 planeswalker puts all 7 on it, excess or not."""
    board = make_board(attacker("t", 7, 7, "pw", "trample"), planeswalkers=[planeswalker("pw", 3)])
    outcome = assert_legal(board, dmg("t", "pw", 7))
    assert outcome.planeswalkers["pw"] == 0  # 120.3c: loyalty cannot go below 0
    assert outcome.players["B"].life == 20
    assert_illegal(board, dmg("t", "pw", 3), dmg("t", "B", 4), rule="702.19f")
    result = solved(board, ["player_damage", "loyalty"])
    assert result.objective == {"player_damage": 0, "loyalty": 3}


def test_702_19d_blocked_trampler_with_no_blockers_assigns_all_to_player() -> None:
    """702.19d: a blocked trampler whose blockers all left combat assigns all its damage to the player."""
    board = make_board(attacker("t", 4, 4, "B", "trample", blocked=True))
    assert assert_legal(board, dmg("t", "B", 4)).players["B"].life == 16
    assert_illegal(board, dmg("t", "B", 3), rule="510.1a")
    assert solved(board, ["player_damage"]).objective == {"player_damage": 4}


def test_702_19d_blocked_trampler_with_no_blockers_attacking_planeswalker() -> None:
    """702.19d: the same trampler attacking a loyalty-5 planeswalker assigns all 4 to the planeswalker."""
    board = make_board(attacker("t", 4, 4, "pw", "trample", blocked=True),
                       planeswalkers=[planeswalker("pw", 5)])
    assert assert_legal(board, dmg("t", "pw", 4)).planeswalkers["pw"] == 1
    assert solved(board, ["loyalty"]).objective == {"loyalty": 4}


# =============================================================================================
# 120.3: results of damage
# =============================================================================================

def test_120_3b_infect_to_player_gives_poison_not_life_loss() -> None:
    """120.3b: an unblocked 3/3 infect gives B 3 poison counters and no life loss."""
    board = make_board(attacker("a1", 3, 3, "B", "infect"))
    outcome = assert_legal(board, dmg("a1", "B", 3))
    assert outcome.players["B"].poison == 3
    assert outcome.players["B"].life == 20
    result = solved(board, ["poison", "player_damage"])
    assert result.objective == {"poison": 3, "player_damage": 0}


def test_120_3c_infect_damage_to_planeswalker_removes_loyalty() -> None:
    """120.3c: damage to a planeswalker removes loyalty whatever the source; infect gives no poison here."""
    board = make_board(attacker("i", 2, 2, "pw", "infect", toxic=1), planeswalkers=[planeswalker("pw", 3)])
    outcome = assert_legal(board, dmg("i", "pw", 2))
    assert outcome.planeswalkers["pw"] == 1
    assert outcome.players["B"].poison == 0


@pytest.mark.parametrize("keyword", ["infect", "wither"])
def test_120_3d_infect_and_wither_give_minus_counters_to_creatures(keyword: str) -> None:
    """120.3d: infect or wither damage to a creature becomes -1/-1 counters, not marked damage. A 2/2
    with it blocked by a 3/3: the 3/3 gets two counters (now 1/1, no damage) and survives."""
    board = make_board(attacker("a1", 2, 9, "B", keyword), blocker("b1", 3, 3, "a1"))
    outcome = assert_legal(board, dmg("a1", "b1", 2), dmg("b1", "a1", 3))
    assert outcome.creatures["b1"].minus_counters == 2
    assert outcome.creatures["b1"].damage == 0
    assert not outcome.creatures["b1"].destroyed


def test_120_3e_ordinary_damage_is_marked() -> None:
    """120.3e: damage from a source without wither or infect is marked on the creature."""
    board = make_board(attacker("a1", 2, 9), blocker("b1", 1, 3, "a1", damage=0))
    outcome = assert_legal(board, dmg("a1", "b1", 2), dmg("b1", "a1", 1))
    assert outcome.creatures["b1"].damage == 2
    assert outcome.creatures["b1"].minus_counters == 0
    assert outcome.creatures["a1"].damage == 1


def test_120_3g_toxic_needs_combat_damage_to_the_player() -> None:
    """120.3g / 702.164c: toxic 2 adds 2 poison only when it deals combat damage to that player."""
    unblocked = make_board(attacker("a1", 1, 1, "B", toxic=2))
    outcome = assert_legal(unblocked, dmg("a1", "B", 1))
    assert outcome.players["B"].poison == 2 and outcome.players["B"].life == 19

    blocked = make_board(attacker("a1", 1, 1, "B", toxic=2), blocker("b1", 0, 3, "a1"))
    outcome = assert_legal(blocked, dmg("a1", "b1", 1))
    assert outcome.players["B"].poison == 0

    zero_power = make_board(attacker("a1", 0, 1, "B", toxic=2))
    assert assert_legal(zero_power).players["B"].poison == 0


def test_120_3g_toxic_keyword_form_and_trample() -> None:
    """120.3g: a 3/3 "Toxic 2" trampler blocked by a 2/2 tramples 1 over: B gets 2 poison (the total
    toxic value, not the damage) and loses 1 life."""
    board = make_board(attacker("t", 3, 3, "B", "trample", "Toxic 2"), blocker("b", 2, 2, "t"))
    result = solved(board, ["poison", "player_damage"])
    assert result.objective == {"poison": 2, "player_damage": 1}
    assert result.outcome.players["B"].life == 19


def test_120_3b_infect_trample_with_toxic_poison_optimum() -> None:
    """120.3b + 120.3g + 702.19b: an infect 4/4 trampler with toxic 1 blocked by a 2/2 assigns 2 (lethal,
    as -1/-1 counters) and 2 to B: 2 + 1 = 3 poison."""
    board = make_board(attacker("t", 4, 4, "B", "infect", "trample", toxic=1), blocker("b", 2, 2, "t"))
    result = solved(board, ["poison"])
    assert result.objective == {"poison": 3}
    assert result.outcome.players["B"].poison == 3
    assert result.outcome.players["B"].life == 20
    assert result.outcome.creatures["b"].destroyed


def test_120_3f_lifelink_gains_damage_dealt() -> None:
    """120.3f / 702.15b: a lifelink 3/3 blocked by a 2/2 deals 3 to it: A gains 3 (20 -> 23)."""
    board = make_board(attacker("a1", 3, 3, "B", "lifelink"), blocker("b1", 2, 2, "a1"))
    outcome = assert_legal(board, dmg("a1", "b1", 3), dmg("b1", "a1", 2))
    assert outcome.players["A"].life == 23
    assert outcome.players["A"].life_gained == 3


def test_903_10a_commander_damage_accumulates() -> None:
    """903.10a / 704.6c: B has taken 18 from the commander; 3 more unblocked makes 21: B loses."""
    board = make_board(attacker("cmdr", 3, 3, "B", commander=True),
                       players=[player("A"), player("B", commander_damage={"cmdr": 18})])
    outcome = assert_legal(board, dmg("cmdr", "B", 3))
    assert outcome.players["B"].commander_damage["cmdr"] == 21
    assert outcome.players["B"].life == 17
    assert outcome.players["B"].lost
    assert solved(board, ["lethal"]).objective == {"lethal": 1}


def test_903_10a_infect_commander_damage_still_counts() -> None:
    """903.10a / 120.3b: an infect commander's combat damage to B is still damage dealt: 3 poison, no
    life loss, and 18 + 3 = 21 commander damage, so B loses (704.6c)."""
    board = make_board(attacker("cmdr", 3, 3, "B", "infect", commander=True),
                       players=[player("A"), player("B", commander_damage={"cmdr": 18})])
    outcome = assert_legal(board, dmg("cmdr", "B", 3))
    assert outcome.players["B"].poison == 3 and outcome.players["B"].life == 20
    assert outcome.players["B"].commander_damage["cmdr"] == 21
    assert outcome.players["B"].lost


def test_120_3f_lifelink_with_infect_to_player_still_gains() -> None:
    """120.3f: lifelink gains for damage dealt whatever its other results: an infect lifelink 2/2
    gives B 2 poison and A 2 life."""
    board = make_board(attacker("a1", 2, 2, "B", "infect", "lifelink"))
    outcome = assert_legal(board, dmg("a1", "B", 2))
    assert outcome.players["B"].poison == 2 and outcome.players["B"].life == 20
    assert outcome.players["A"].life == 22


def test_903_10a_commander_damage_below_21_does_not_lose() -> None:
    """704.6c: 17 + 3 = 20 commander damage is not enough."""
    board = make_board(attacker("cmdr", 3, 3, "B", commander=True),
                       players=[player("A"), player("B", commander_damage={"cmdr": 17})])
    outcome = assert_legal(board, dmg("cmdr", "B", 3))
    assert outcome.players["B"].commander_damage["cmdr"] == 20
    assert not outcome.players["B"].lost


def test_903_10a_commander_damage_to_planeswalker_does_not_count() -> None:
    """903.10a: only combat damage dealt to the player counts; damage to B's planeswalker does not."""
    board = make_board(attacker("cmdr", 3, 3, "pw", commander=True),
                       players=[player("A"), player("B", commander_damage={"cmdr": 18})],
                       planeswalkers=[planeswalker("pw", 5)])
    outcome = assert_legal(board, dmg("cmdr", "pw", 3))
    assert outcome.players["B"].commander_damage.get("cmdr", 0) == 18
    assert not outcome.players["B"].lost


def test_120_3c_loyalty_removal_capped_at_zero() -> None:
    """120.3c / 704.5i: 5 damage to a loyalty-3 planeswalker leaves 0 (not -2); it is destroyed, and the
    loyalty objective counts 3 (at most what it had)."""
    board = make_board(attacker("a1", 5, 5, "pw"), planeswalkers=[planeswalker("pw", 3)])
    outcome = assert_legal(board, dmg("a1", "pw", 5))
    assert outcome.planeswalkers["pw"] == 0
    assert "pw" in outcome.destroyed
    assert solved(board, ["loyalty"]).objective == {"loyalty": 3}


def test_120_3h_defense_removal_capped_at_zero() -> None:
    """120.3h / 704.5v: 4 damage to a defense-2 battle leaves 0; it is destroyed; defense objective 2."""
    board = make_board(attacker("a1", 4, 4, "siege"), battles=[battle("siege", 2)])
    outcome = assert_legal(board, dmg("a1", "siege", 4))
    assert outcome.battles["siege"] == 0
    assert "siege" in outcome.destroyed
    assert solved(board, ["defense"]).objective == {"defense": 2}


# =============================================================================================
# 704.5 / 704.6c: state-based actions after combat damage
# =============================================================================================

def test_704_5g_lethal_damage_destroys_counting_marked_damage() -> None:
    """704.5g / 120.6: a 3/3 with 1 damage marked dies to 2 more (1 + 2 >= 3); a fresh 3/3 does not."""
    board = make_board(attacker("a1", 2, 9), blocker("b1", 0, 3, "a1", damage=1))
    assert assert_legal(board, dmg("a1", "b1", 2)).creatures["b1"].destroyed
    fresh = make_board(attacker("a1", 2, 9), blocker("b1", 0, 3, "a1"))
    assert not assert_legal(fresh, dmg("a1", "b1", 2)).creatures["b1"].destroyed


def test_704_5g_indestructible_survives_lethal_damage() -> None:
    """702.12b: lethal damage does not destroy an indestructible creature."""
    board = make_board(attacker("a1", 5, 9), blocker("b1", 0, 3, "a1", "indestructible"))
    outcome = assert_legal(board, dmg("a1", "b1", 5))
    assert outcome.creatures["b1"].damage == 5
    assert not outcome.creatures["b1"].destroyed


def test_704_5h_deathtouch_destroys() -> None:
    """704.5h / 702.2b: 1 damage from a deathtouch 1/1 blocker destroys a 5/5 attacker."""
    board = make_board(attacker("a1", 5, 5), blocker("b1", 1, 1, "a1", "deathtouch"))
    outcome = assert_legal(board, dmg("a1", "b1", 5), dmg("b1", "a1", 1))
    assert outcome.creatures["a1"].destroyed
    assert outcome.creatures["b1"].destroyed


def test_704_5h_indestructible_survives_deathtouch() -> None:
    """702.12b: deathtouch does not destroy an indestructible creature."""
    board = make_board(attacker("a1", 5, 5, "B", "indestructible"), blocker("b1", 1, 1, "a1", "deathtouch"))
    outcome = assert_legal(board, dmg("a1", "b1", 5), dmg("b1", "a1", 1))
    assert not outcome.creatures["a1"].destroyed


def test_704_5f_minus_counters_kill_indestructible() -> None:
    """704.5f: a 3/3 wither attacker gives an indestructible 3/3 blocker three -1/-1 counters:
    toughness 0, put into the graveyard despite indestructible."""
    board = make_board(attacker("a1", 3, 9, "B", "wither"), blocker("b1", 1, 3, "a1", "indestructible"))
    outcome = assert_legal(board, dmg("a1", "b1", 3), dmg("b1", "a1", 1))
    assert outcome.creatures["b1"].minus_counters == 3
    assert outcome.creatures["b1"].destroyed
    infect = make_board(attacker("a1", 2, 9, "B", "infect"), blocker("b1", 1, 2, "a1", "indestructible"))
    assert assert_legal(infect, dmg("a1", "b1", 2), dmg("b1", "a1", 1)).creatures["b1"].destroyed


def test_704_5a_player_at_zero_life_loses() -> None:
    """704.5a: B at 3 life takes 3: life 0, B loses. At 4 life B survives at 1."""
    at_three = make_board(attacker("a1", 3, 3), players=[player("A"), player("B", 3)])
    outcome = assert_legal(at_three, dmg("a1", "B", 3))
    assert outcome.players["B"].life == 0 and outcome.players["B"].lost
    at_four = make_board(attacker("a1", 3, 3), players=[player("A"), player("B", 4)])
    assert not assert_legal(at_four, dmg("a1", "B", 3)).players["B"].lost


def test_704_5c_ten_poison_loses() -> None:
    """704.5c: B with 8 poison takes 2 infect: 10 poison, B loses; with 7 poison (-> 9) B does not."""
    board = make_board(attacker("a1", 2, 2, "B", "infect"), players=[player("A"), player("B", poison=8)])
    outcome = assert_legal(board, dmg("a1", "B", 2))
    assert outcome.players["B"].poison == 10 and outcome.players["B"].lost
    board = make_board(attacker("a1", 2, 2, "B", "infect"), players=[player("A"), player("B", poison=7)])
    assert not assert_legal(board, dmg("a1", "B", 2)).players["B"].lost


def test_704_5c_toxic_through_trample_reaches_ten_poison() -> None:
    """704.5c + 120.3g + 702.19b: B has 9 poison. A 3/3 toxic-1 trampler blocked by a 3/3 cannot get
    past (lethal 3 = its power): lethal 0. As a 4/4 it sends 1 past: 9 + 1 = 10 poison, lethal 1."""
    players = [player("A"), player("B", poison=9)]
    small = make_board(attacker("t", 3, 9, "B", "trample", toxic=1), blocker("b", 1, 3, "t"), players=players)
    assert solved(small, ["lethal"]).objective == {"lethal": 0}
    big = make_board(attacker("t", 4, 9, "B", "trample", toxic=1), blocker("b", 1, 3, "t"), players=players)
    result = solved(big, ["lethal"])
    assert result.objective == {"lethal": 1}
    assert result.outcome.players["B"].poison == 10 and result.outcome.players["B"].life == 19


def test_704_6c_commander_trample_reaches_21() -> None:
    """704.6c + 702.19b: B has taken 18 from a 5/5 trample commander blocked by a 2/2: 3 past makes 21,
    B loses though at 17 life."""
    board = make_board(attacker("cmdr", 5, 9, "B", "trample", commander=True), blocker("b", 1, 2, "cmdr"),
                       players=[player("A"), player("B", commander_damage={"cmdr": 18})])
    result = solved(board, ["lethal"])
    assert result.objective == {"lethal": 1}
    assert result.outcome.players["B"].life == 17


def test_510_2_lifelink_gained_simultaneously_saves_player() -> None:
    """510.2 / 120.3f / 704.5a: damage and lifelink gain happen at once; SBAs look afterwards. B at 2
    life takes 3 from an unblocked 3/3 while B's lifelink 2/2 blocker deals 2: 2 - 3 + 2 = 1, B lives."""
    board = make_board(attacker("y", 3, 3), attacker("x", 1, 5), blocker("l", 2, 2, "x", "lifelink"),
                       players=[player("A"), player("B", 2)])
    outcome = assert_legal(board, dmg("y", "B", 3), dmg("x", "l", 1), dmg("l", "x", 2))
    assert outcome.players["B"].life == 1
    assert not outcome.players["B"].lost
    result = solved(board, ["lethal", "player_damage"])
    assert result.objective == {"lethal": 0, "player_damage": 3}


def test_704_5a_lethal_counts_opponents_who_lose_and_alive_the_deciders_own_loss() -> None:
    """704.5a: B at 3 life takes 3 and loses. ``lethal`` counts the decider's opponents who lose: 1 for
    A, 0 for B (A, its only opponent, is dealt no combat damage). ``alive`` is 1 for A and 0 for B,
    who lost; at 4 life B survives: ``alive`` 1, ``lethal`` 0 for A."""
    at_three = make_board(attacker("a1", 3, 3), players=[player("A"), player("B", 3)])
    outcome = assert_legal(at_three, dmg("a1", "B", 3))
    assert objective_values(at_three, outcome, "A", ["lethal", "alive"]) == {"lethal": 1, "alive": 1}
    assert objective_values(at_three, outcome, "B", ["lethal", "alive"]) == {"lethal": 0, "alive": 0}
    at_four = make_board(attacker("a1", 3, 3), players=[player("A"), player("B", 4)])
    outcome = assert_legal(at_four, dmg("a1", "B", 3))
    assert objective_values(at_four, outcome, "B", ["alive"]) == {"alive": 1}
    assert objective_values(at_four, outcome, "A", ["lethal"]) == {"lethal": 0}


def test_510_2_a_deciding_defender_divides_lifelink_damage_to_survive() -> None:
    """510.2 / 120.3f / 614.1a / 704.5a, B deciding: B at 3 life takes 6 from an unblocked 6/6. B's
    lifelink 2/9 blocks a 1/1 and an indestructible 1/5, and a doubler doubles its damage to the 1/5.
    All 2 on the 1/1 kills it but gains 2 (3 - 6 + 2 = -1); 1 and 1 kills it and gains 1 + 2 = 3
    (life 0); only all 2 on the 1/5 (4 dealt, 4 gained: life 1) keeps B in the game. Winning the
    1/1 (value 1) is worth less than not losing (alive 1 against 0). With ``lethal`` instead (0 in
    every line: only B's opponent A would count), B takes the 1/1 and loses."""
    board = make_board(attacker("u", 6, 6), attacker("q", 1, 1), attacker("i", 1, 5, "B", "indestructible"),
                       blocker("l", 2, 9, ["q", "i"], "lifelink"), players=[player("A"), player("B", 3)],
                       effects=[{"kind": "double", "sources": ["l"], "recipients": ["i"]}])
    result = solved(board, ["alive", "value", "life_gained"], "B")
    assert result.objective == {"alive": 1, "value": 0, "life_gained": 4}
    assert assigned(result, "l", "i") == 2
    assert result.outcome.players["B"].life == 1 and not result.outcome.players["B"].lost
    result = solved(board, ["lethal", "value"], "B")
    assert result.objective == {"lethal": 0, "value": 1} and result.outcome.players["B"].lost


def test_510_4_a_deciding_defender_kills_the_trampler_first_to_survive() -> None:
    """510.4 / 702.19b / 704.5a, B deciding: B at 1 life; B's first-strike 2/2 blocks a 3/1 trampler
    (value 1) and a 2/2 (value 5). Killing the 2/2 first (value 5) leaves the trampler: 2 lethal to
    the blocker and 1 past it, and B loses. Killing the trampler first (1 damage is lethal for it),
    the 2/2 kills the blocker in the regular step and nothing reaches B: alive 1, value 1 - 1 = 0."""
    board = make_board(attacker("t", 3, 1, "B", "trample"), attacker("big", 2, 2, value=5),
                       blocker("fs", 2, 2, ["t", "big"], "first_strike"), players=[player("A"), player("B", 1)])
    result = solved(board, ["alive", "value", "player_damage"], "B")
    assert result.objective == {"alive": 1, "value": 0, "player_damage": 0}
    assert {"t", "fs"} <= set(result.outcome.destroyed) and "big" not in result.outcome.destroyed
    assert result.outcome.players["B"].life == 1 and not result.outcome.players["B"].lost
    assert solved(board, ["value"], "B").objective == {"value": 4}  # without alive: the 2/2, and B loses
    assert solved(board, ["lethal", "value"], "B").objective == {"lethal": 0, "value": 4}


def test_704_5i_704_5v_planeswalker_and_battle_at_zero_are_destroyed() -> None:
    """704.5i / 704.5v: a planeswalker with 0 loyalty and a battle with 0 defense leave; one left with
    loyalty 1 stays."""
    board = make_board(attacker("a1", 3, 3, "pw"), attacker("a2", 2, 2, "siege"), attacker("a3", 2, 2, "pw2"),
                       planeswalkers=[planeswalker("pw", 3), planeswalker("pw2", 3)],
                       battles=[battle("siege", 2)])
    outcome = assert_legal(board, dmg("a1", "pw", 3), dmg("a2", "siege", 2), dmg("a3", "pw2", 2))
    assert {"pw", "siege"} <= set(outcome.destroyed)
    assert "pw2" not in outcome.destroyed
    assert outcome.planeswalkers["pw2"] == 1


# =============================================================================================
# Objectives: the solver's optimum for each objective name on small boards
# =============================================================================================

def test_objective_kills() -> None:
    """kills: a 4/4 blocked by two 2/2s splits 2/2 and kills both; a 3/3 kills one; a 3/3 kills both
    when one 2/2 already has 1 damage marked (2 + 1)."""
    two = make_board(attacker("a", 4, 9), blocker("b1", 1, 2, "a"), blocker("b2", 1, 2, "a"))
    assert solved(two, ["kills"], method="cp-sat").objective == {"kills": 2}
    one = make_board(attacker("a", 3, 9), blocker("b1", 1, 2, "a"), blocker("b2", 1, 2, "a"))
    assert solved(one, ["kills"], method="cp-sat").objective == {"kills": 1}
    marked = make_board(attacker("a", 3, 9), blocker("b1", 1, 2, "a"), blocker("b2", 1, 2, "a", damage=1))
    assert solved(marked, ["kills"], method="cp-sat").objective == {"kills": 2}


def test_objective_survivors() -> None:
    """survivors: B's 3/3 blocks A's 2/2 and 3/3; it can kill either (2 or 3 damage) but not both
    (5 > 3): A is guaranteed 1 survivor. An unblocked attacker always survives: 2 with one more."""
    board = make_board(attacker("x", 2, 2), attacker("y", 3, 3), blocker("b", 3, 3, ["x", "y"]))
    assert solved(board, ["survivors"], method="cp-sat").objective == {"survivors": 1}
    board = make_board(attacker("x", 2, 2), attacker("y", 3, 3), attacker("z", 1, 1),
                       blocker("b", 3, 3, ["x", "y"]))
    assert solved(board, ["survivors"], method="cp-sat").objective == {"survivors": 2}


def test_objective_value() -> None:
    """value: A's 4/4 blocked by B's 2/2 (value 1) and 2/2 (value 4), which deal 2 + 2 = 4 and kill
    it (value 3). A kills both: 1 + 4 - 3 = 2. With a 3/3 attacker A kills only the value-4 one:
    4 - 3 = 1."""
    board = make_board(attacker("a", 4, 4, value=3), blocker("b1", 2, 2, "a", value=1),
                       blocker("b2", 2, 2, "a", value=4))
    assert solved(board, ["value"], method="cp-sat").objective == {"value": 2}
    board = make_board(attacker("a", 3, 4, value=3), blocker("b1", 2, 2, "a", value=1),
                       blocker("b2", 2, 2, "a", value=4))
    result = solved(board, ["value"], method="cp-sat")
    assert result.objective == {"value": 1}
    assert result.outcome.creatures["b2"].destroyed and not result.outcome.creatures["b1"].destroyed


def test_objective_player_damage() -> None:
    """player_damage: an unblocked 2/2 (2) + a 5/5 trampler over a 2/2 (3) + an infect 3/3 (0): 5."""
    board = make_board(attacker("u", 2, 2), attacker("t", 5, 5, "B", "trample"), blocker("b", 2, 2, "t"),
                       attacker("i", 3, 3, "B", "infect"))
    result = solved(board, ["player_damage"], method="cp-sat")
    assert result.objective == {"player_damage": 5}
    assert result.outcome.players["B"].life == 15


def test_objective_poison() -> None:
    """poison: an unblocked infect 2/2 (2); an infect 4/4 trampler over a 1/2 (2 -1/-1 counters are
    lethal, 702.19b, 120.3d; 2 poison past it, 120.3b); a toxic-3 3/3 trampler over a 2/2 (2 to it,
    1 past: toxic 3, 702.164c); a blocked toxic-3 2/2 without trample (0): 7."""
    board = make_board(attacker("i", 2, 2, "B", "infect"), attacker("it", 4, 4, "B", "infect", "trample"),
                       blocker("b", 1, 2, "it"), attacker("tx", 3, 3, "B", "trample", toxic=3),
                       blocker("c", 2, 2, "tx"), attacker("bx", 2, 2, "B", toxic=3), blocker("d", 1, 5, "bx"))
    result = solved(board, ["poison"], method="cp-sat")
    assert result.objective == {"poison": 7}
    assert result.outcome.players["B"].poison == 7 and result.outcome.players["B"].life == 19


def test_objective_loyalty() -> None:
    """loyalty: a 4/4 with trample over planeswalkers attacking a loyalty-3 planeswalker, blocked by a
    2/2: at most 4 - 2 = 2 reaches the planeswalker."""
    board = make_board(attacker("t", 4, 4, "pw", "trample over planeswalkers"), blocker("b", 2, 2, "t"),
                       planeswalkers=[planeswalker("pw", 3)])
    result = solved(board, ["loyalty"], method="cp-sat")
    assert result.objective == {"loyalty": 2}
    assert result.outcome.planeswalkers["pw"] == 1


def test_objective_defense() -> None:
    """defense: a 6/6 trampler attacking a defense-3 battle blocked by a 1/1: 5 could go past but only
    3 defense counters can be removed."""
    board = make_board(attacker("t", 6, 6, "siege", "trample"), blocker("b", 1, 1, "t"),
                       battles=[battle("siege", 3)])
    result = solved(board, ["defense"], method="cp-sat")
    assert result.objective == {"defense": 3}
    assert "siege" in result.outcome.destroyed


def test_objective_life_gained() -> None:
    """life_gained: a red lifelink 3/3 blocked by a 2/2 and by a 2/2 with protection from red gains 3
    only with all of its damage on the first (damage to the other is prevented, 702.16e, and prevented
    damage gains nothing, 702.15b); a lifelink 2/2 that is blocked with no blockers left deals nothing,
    gains nothing: 3."""
    board = make_board(attacker("l1", 3, 3, "B", "lifelink", colors=["red"]), blocker("b", 2, 2, "l1"),
                       blocker("p", 2, 2, "l1", protection_from=["red"]),
                       attacker("l2", 2, 2, "B", "lifelink", blocked=True))
    result = solved(board, ["life_gained"], method="cp-sat")
    assert result.objective == {"life_gained": 3}
    assert result.outcome.players["A"].life == 23


def test_objective_life_gained_for_defending_player() -> None:
    """life_gained with B deciding: B's white lifelink 2/2 blocks two attackers, one with protection
    from white; its damage to that one is prevented (702.16e) and gains nothing, so B puts both on the
    other and gains 2 (702.15b)."""
    board = make_board(attacker("a", 3, 3), attacker("p", 3, 3, protection_from=["white"]),
                       blocker("l", 2, 2, ["a", "p"], "lifelink", colors=["white"]))
    result = solved(board, ["life_gained"], player_id="B", method="cp-sat")
    assert result.objective == {"life_gained": 2}
    assert result.outcome.players["B"].life == 22


def test_objective_lethal() -> None:
    """lethal: B at 3 life; an unblocked 2/2 (2) + a 3/3 trampler over a 2/2 (1) = 3: B loses.
    At 4 life the best is 3 damage and B survives."""
    creatures = (attacker("u", 2, 2), attacker("t", 3, 3, "B", "trample"), blocker("b", 2, 2, "t"))
    board = make_board(*creatures, players=[player("A"), player("B", 3)])
    result = solved(board, ["lethal"], method="cp-sat")
    assert result.objective == {"lethal": 1}
    assert result.outcome.players["B"].lost
    board = make_board(*creatures, players=[player("A"), player("B", 4)])
    assert solved(board, ["lethal"], method="cp-sat").objective == {"lethal": 0}


def tradeoff_board():
    """B's 2/2 "b" blocks A's 3/3 trampler T and A's 2/2 N; B's 2/2 "c" also blocks N.

    Hand enumeration (N splits 2 between b and c; T tramples only once b has lethal in total):
      N 2->c, T 2->b 1->B : kills 2 (b, c), player_damage 1
      N 1->b 1->c, T 1->b 2->B : kills 1 (b), player_damage 2
      N 2->b, T 3->B : kills 1 (b), player_damage 3
    """
    return make_board(attacker("T", 3, 9, "B", "trample"), attacker("N", 2, 9),
                      blocker("b", 2, 2, ["T", "N"]), blocker("c", 2, 2, "N"))


def test_objective_lexicographic_kills_then_player_damage() -> None:
    """Lexicographic order ["kills", "player_damage"]: kill both blockers first, then 1 to B."""
    result = solved(tradeoff_board(), ["kills", "player_damage"])
    assert result.objective == {"kills": 2, "player_damage": 1}


def test_objective_lexicographic_player_damage_then_kills() -> None:
    """Lexicographic order ["player_damage", "kills"]: 3 to B first, which leaves only b dead."""
    result = solved(tradeoff_board(), ["player_damage", "kills"])
    assert result.objective == {"player_damage": 3, "kills": 1}


def test_objective_lexicographic_order_also_holds_when_solved_one_stage_at_a_time() -> None:
    """The same two orders give the same hand-computed answers when the solver optimizes the objectives
    one after another (forced here with max_combined_range=1) instead of as one weighted sum."""
    for order, expected in ((["kills", "player_damage"], {"kills": 2, "player_damage": 1}),
                            (["player_damage", "kills"], {"player_damage": 3, "kills": 1})):
        result = solve(tradeoff_board(), objective=order, max_combined_range=1)
        assert result.objective == expected
        assert check(tradeoff_board(), result.assignments).legal


def test_objective_lexicographic_with_large_numbers() -> None:
    """The trade-off board scaled up (T 300000 trample, N 200000, blockers of toughness 200000) plus an
    unblocked 1000000 lifelinker on a loyalty-1000000 planeswalker: kills first gives 2 kills and
    300000 - 200000 = 100000 damage; damage first gives 300000 and 1 kill."""
    board = make_board(attacker("T", 300000, 900000, "B", "trample"), attacker("N", 200000, 900000),
                       blocker("b", 1, 200000, ["T", "N"]), blocker("c", 1, 200000, "N"),
                       attacker("L", 1000000, 5, "pw", "lifelink"),
                       planeswalkers=[planeswalker("pw", 1000000)],
                       players=[player("A"), player("B", 1000000)])
    first = solved(board, ["kills", "player_damage", "loyalty", "life_gained"])
    assert first.objective == {"kills": 2, "player_damage": 100000, "loyalty": 1000000, "life_gained": 1000000}
    second = solved(board, ["player_damage", "kills", "loyalty", "life_gained"])
    assert second.objective == {"player_damage": 300000, "kills": 1, "loyalty": 1000000, "life_gained": 1000000}


# =============================================================================================
# Multiplayer (506.2, 509.1a, 508.5)
# =============================================================================================

THREE_PLAYERS = [player("A"), player("B", 5), player("C", 2)]


def test_509_1a_multiplayer_blocker_must_belong_to_defending_player() -> None:
    """509.1a: C's creature cannot block an attacker that attacks B."""
    with pytest.raises(InvalidBoardError):
        make_board(attacker("x", 3, 3, "B"), attacker("y", 2, 2, "C"),
                   blocker("c1", 1, 1, "x", controller="C"), players=THREE_PLAYERS)


def test_509_1a_multiplayer_blocker_of_planeswalker_attacker_is_its_controller() -> None:
    """508.5 / 509.1a: the defending player of an attacker on C's planeswalker is C: C may block it,
    B may not."""
    common = dict(players=THREE_PLAYERS, planeswalkers=[planeswalker("pw", 3, controller="C")])
    make_board(attacker("x", 3, 3, "pw"), blocker("c1", 1, 1, "x", controller="C"), **common)
    with pytest.raises(InvalidBoardError):
        make_board(attacker("x", 3, 3, "pw"), blocker("b1", 1, 1, "x", controller="B"), **common)


def test_509_1a_multiplayer_blocker_of_battle_attacker_is_its_protector() -> None:
    """508.5 / 509.1a: the defending player of an attacker on a battle is its protector (B), not its
    controller (C)."""
    common = dict(players=THREE_PLAYERS, battles=[battle("siege", 4, protector="B", controller="C")])
    make_board(attacker("x", 3, 3, "siege"), blocker("b1", 1, 1, "x", controller="B"), **common)
    with pytest.raises(InvalidBoardError):
        make_board(attacker("x", 3, 3, "siege"), blocker("c1", 1, 1, "x", controller="C"), **common)


def test_multiplayer_damage_and_lethal_across_opponents() -> None:
    """Three players: A's unblocked 3/3 hits B (5 -> 2), A's unblocked 2/2 hits C (2 -> 0, loses), and
    A's 4/4 trampler attacking C is blocked by C's 3/3 (1 more to C). player_damage = 3 + 2 + 1 = 6,
    lethal = 1 (C only)."""
    board = make_board(attacker("x", 3, 3, "B"), attacker("y", 2, 2, "C"),
                       attacker("t", 4, 4, "C", "trample"), blocker("c1", 1, 3, "t", controller="C"),
                       players=THREE_PLAYERS)
    result = solved(board, ["lethal", "player_damage"])
    assert result.objective == {"lethal": 1, "player_damage": 6}
    assert result.outcome.players["B"].life == 2 and not result.outcome.players["B"].lost
    assert result.outcome.players["C"].lost


def test_multiplayer_uninvolved_decider_assumes_worst_from_both_others() -> None:
    """"What is optimized": C decides; A and B both reply worst for C. A's 4/4 is blocked by B's two
    1/2s. For C, kills counts A's and B's creatures; A's worst split (4/0 or 3/1) kills only one 1/2,
    and B's 1 + 1 = 2 does not kill the 4/4: kills = 1."""
    board = make_board(attacker("a", 4, 4, "B"), blocker("b1", 1, 2, "a"), blocker("b2", 1, 2, "a"),
                       players=[player("A"), player("B"), player("C")])
    result = solved(board, ["kills"], player_id="C")
    assert result.objective == {"kills": 1}


def test_default_deciding_player_is_active_player() -> None:
    """The deciding player defaults to the active player: A's 4/4 against two 1/2 blockers kills 2."""
    board = make_board(attacker("a", 4, 4, "B"), blocker("b1", 1, 2, "a"), blocker("b2", 1, 2, "a"))
    result = solve(board, objective=["kills"])
    assert result.player == "A"
    assert result.objective == {"kills": 2}


def test_704_5g_marked_damage_on_attacker_counts_for_survivors() -> None:
    """704.5g / 120.6: B's 1/1 blocks A's 3/3 with 2 damage marked and an unmarked 3/3. Its 1 damage
    kills the marked one (2 + 1 >= 3) and not the other, so B puts it there: A keeps 1 survivor, and
    either attacker kills the 1/1."""
    board = make_board(attacker("a", 3, 3, "B", damage=2), attacker("c", 3, 3), blocker("b", 1, 1, ["a", "c"]))
    result = solved(board, ["survivors", "kills"], method="cp-sat")
    assert result.objective == {"survivors": 1, "kills": 1}
    assert result.outcome.creatures["a"].destroyed and not result.outcome.creatures["c"].destroyed


def test_510_4_regular_damage_to_a_blocker_destroyed_in_the_first_strike_step_names_why() -> None:
    """510.4: a 3/3 double-strike trampler kills its 2/2 blocker in the first-strike step (2 to it, 1
    past); in the regular step the blocker is gone, so all 3 go to B (702.19d: blocked, no blockers
    left, trample). Assigning to the destroyed blocker is illegal, and the message says it is gone."""
    board = make_board(attacker("a", 3, 3, "B", "double strike", "trample"), blocker("b", 2, 2, "a"))
    first = [{"step": "first_strike", "source": "a", "target": "b", "amount": 2},
             {"step": "first_strike", "source": "a", "target": "B", "amount": 1}]
    assert check_line(board, *first, dmg("a", "B", 3)).legal
    result = check_line(board, *first, dmg("a", "b", 3))
    assert not result.legal
    assert any(v.source == "a" and "b is gone after the first-strike step" in v.message
               for v in result.violations), [str(v) for v in result.violations]


def test_510_4_first_strike_outside_combat_is_fine() -> None:
    """510.4 only concerns creatures in combat: a first striker that neither attacks nor blocks is accepted."""
    board = make_board(attacker("a1", 2, 2), {"id": "fs", "controller": "B", "power": 2, "toughness": 2,
                                              "keywords": ["first strike"]})
    assert solved(board, ["player_damage"]).objective == {"player_damage": 2}


def test_800_4a_creatures_leave_with_a_player_who_lost_a_multiplayer_game():
    """800.4a: with three players, B at 2 life taking 2 leaves the game with its creatures, so B's
    1/5 blocker (value 7) leaves the battlefield (+7) while it kills A's 1/1 (-1): value 6, kills 1.
    In a two-player game the game just ends and nothing else leaves: value -1, kills 0."""
    creatures = [attacker("u", 2, 2, "B"), attacker("a2", 1, 1, "B"), blocker("bb", 1, 5, "a2", value=7)]
    three = make_board(*creatures, players=[player("A"), player("B", life=2), player("C")])
    assert solved(three, ["lethal", "value", "kills"]).objective == {"lethal": 1, "value": 6, "kills": 1}
    two = make_board(*creatures, players=[player("A"), player("B", life=2)])
    assert solved(two, ["lethal", "value", "kills"]).objective == {"lethal": 1, "value": -1, "kills": 0}


def test_704_5w_a_battle_stays_attacked_when_its_protector_leaves_the_game() -> None:
    """704.5w (March of the Machine release notes): a battle whose protector leaves the game while it
    is attacked gets a new protector only once no creature attacks it, so it can still be dealt combat
    damage. Three players; A's first-strike 3/3 deals B (3 life) lethal damage, and B leaves with its
    2/2 blocking A's 3/3 trampler on the battle (A controls it, B protects it, defense 6). In the
    regular step the trampler, blocked with no blocker left, assigns all 3 to the battle (702.19d),
    and A's unblocked 2/2 on the battle 2 more: defense 5, lethal 1."""
    board = make_board(attacker("fs", 3, 3, "B", "first strike"), attacker("t", 3, 3, "bt", "trample"),
                       attacker("u", 2, 2, "bt"), blocker("b1", 2, 2, "t"),
                       players=[player("A"), player("B", life=3), player("C")],
                       battles=[battle("bt", 6, protector="B", controller="A")])
    assert solved(board, ["defense", "lethal"]).objective == {"defense": 5, "lethal": 1}
    line = [{"step": "first_strike", "source": "fs", "target": "B", "amount": 3},
            dmg("t", "bt", 3), dmg("u", "bt", 2)]
    assert assert_legal(board, *line).battles["bt"] == 1
    assert_illegal(board, line[0], dmg("t", "bt", 3), rule="510.1a")  # u must assign its 2 as well


def test_704_5a_a_battle_takes_no_regular_damage_once_the_game_is_over() -> None:
    """Two players: A's first-strike 3/3, unblocked, must assign its 3 to B at 3 life (510.1a), and B
    loses (704.5a); the game is over, so there is no regular step and A's 2/2 on A's battle protected
    by B deals nothing: defense 0, lethal 1. With a third player in the game it deals its 2."""
    creatures = [attacker("fs", 3, 3, "B", "first strike"), attacker("u", 2, 2, "bt")]
    battles = [battle("bt", 4, protector="B", controller="A")]
    two = make_board(*creatures, players=[player("A"), player("B", life=3)], battles=battles)
    assert solved(two, ["defense", "lethal"]).objective == {"defense": 0, "lethal": 1}
    first = {"step": "first_strike", "source": "fs", "target": "B", "amount": 3}
    assert_illegal(two, first, dmg("u", "bt", 2), rule="704.5a")
    three = make_board(*creatures, players=[player("A"), player("B", life=3), player("C")], battles=battles)
    assert solved(three, ["defense", "lethal"]).objective == {"defense": 2, "lethal": 1}


def test_702_22j_banding_blockers_leave_with_the_protector_and_the_battle_stays() -> None:
    """Three players. A's double strike 4/4 on C (1 life) makes C lose in the first-strike step (704.5a),
    and C's creatures leave with it (800.4a), among them the banding 5/3 blocking A's 5/4 trampler on
    B's battle that C protects. While the blocker was there C divided the trampler's damage among its
    blockers only (702.22j); now the trampler, blocked with no blocker left, assigns all 5 to the
    battle, which stays attacked (702.19d, 704.5w): its defense 2 goes to 0. lethal 1 (C), poison 0."""
    board = make_board(attacker("t", 5, 4, "bt", "trample", "deathtouch"), attacker("ds", 4, 4, "C", "double strike"),
                       blocker("cb", 5, 3, "t", "banding", "indestructible", controller="C"),
                       players=[player("A"), player("C", life=1), player("B", life=3)],
                       battles=[battle("bt", 2, protector="C", controller="B")])
    result = solved(board, ["poison", "lethal"])
    assert result.objective == {"poison": 0, "lethal": 1}
    assert assigned(result, "t", "bt") == 5 and result.outcome.battles["bt"] == 0


def test_800_4a_a_battle_leaves_with_its_controller_and_a_player_who_left_takes_no_damage() -> None:
    """800.4a: C's battle (protected by B) leaves the game with C when C loses in the first-strike
    step, so A's 2/2 on it deals no damage in the regular step; nor does A's 2/2 trampler on C,
    whose blocker left with C too (it attacks a player no longer in the game)."""
    board = make_board(attacker("fs", 2, 2, "C", "first strike"), attacker("u", 2, 2, "bt"),
                       attacker("t", 2, 2, "C", "trample"), blocker("c1", 1, 1, "t", controller="C"),
                       players=[player("A"), player("B"), player("C", life=2)],
                       battles=[battle("bt", 4, protector="B", controller="C")])
    assert solved(board, ["defense", "player_damage"]).objective == {"defense": 0, "player_damage": 2}
    first = {"step": "first_strike", "source": "fs", "target": "C", "amount": 2}
    verdict = check_line(board, first, dmg("u", "bt", 2))
    assert not verdict.legal
    assert any("bt left the game with its controller C (800.4a)" in str(v) for v in verdict.violations)
    verdict = check_line(board, first, dmg("t", "C", 2))
    assert any("C has left the game (800.4a)" in str(v) for v in verdict.violations)
    assert_legal(board, first)


def test_outcome_lists_what_left_the_game_with_a_player_who_lost() -> None:
    """800.4a: in a three-player game, B loses to first-strike damage; its blocker, its planeswalker
    and its creature outside combat leave with it (not destroyed), so the regular step has no blocker
    to damage. The objectives count the creatures in combat: A's kills are the blocker alone."""
    board = {"active_player": "A",
             "players": [{"id": "A", "life": 20}, {"id": "B", "life": 1}, {"id": "C", "life": 20}],
             "planeswalkers": [{"id": "pw", "controller": "B", "loyalty": 3}],
             "creatures": [{"id": "a1", "controller": "A", "power": 1, "toughness": 1, "attacking": "B",
                            "keywords": ["first strike"]},
                           {"id": "a2", "controller": "A", "power": 3, "toughness": 3, "attacking": "B"},
                           {"id": "b1", "controller": "B", "power": 2, "toughness": 2, "blocking": ["a2"]},
                           {"id": "c1", "controller": "A", "power": 2, "toughness": 2, "attacking": "C"},
                           {"id": "home", "controller": "B", "power": 1, "toughness": 1}]}
    line = [{"step": "first_strike", "source": "a1", "target": "B", "amount": 1},
            {"source": "c1", "target": "C", "amount": 2}]
    verdict = check(load_board(board), line)
    assert verdict.legal, verdict.violations
    out = verdict.outcome.to_dict()
    assert out["players"]["B"]["lost"] and out["players"]["C"]["life"] == 18
    assert out["destroyed"] == [] and sorted(out["left_game"]) == ["b1", "home", "pw"]
    assert objective_values(load_board(board), verdict.outcome, "A", ("kills",)) == {"kills": 1}
    two_players = dict(board, players=board["players"][:2],
                       creatures=[c for c in board["creatures"] if c["id"] != "c1"])
    out = check(load_board(two_players), line[:1]).outcome.to_dict()
    assert out["players"]["B"]["lost"] and out["left_game"] == []  # the game is over instead
