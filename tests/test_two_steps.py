"""First strike and double strike: two combat damage steps (510.4, 702.4, 702.7), one test per rule.

Every expected answer below was worked out by hand from the Comprehensive Rules (see
../shared/rules-notes.md sections 1.4, 3.2, 3.6 and 4, and issue 3), not copied from the code's
output. Each docstring names the rule and shows the arithmetic, step by step:

* step one ("first_strike"): only creatures with first strike or double strike assign damage;
* between the steps damage is dealt, its results applied and state-based actions performed (704);
* step two ("regular"): the remaining creatures that had neither, plus those with double strike.

Conventions: player "A" is the active (attacking) player, "B" (and "C") defend. Assignment entries
are written with ``fs(...)`` (first-strike step) and ``reg(...)`` (regular step).
"""

from __future__ import annotations

from typing import Any

import pytest

from scenarios import attacker, blocker, check_line, make_board, planeswalker, player, solved


# --- assignment / result helpers ---------------------------------------------------------------

FS = "first_strike"
REG = "regular"


def fs(source: str, target: str, amount: int) -> dict[str, Any]:
    """An assignment in the first-strike combat damage step."""
    return {"step": FS, "source": source, "target": target, "amount": amount}


def reg(source: str, target: str, amount: int) -> dict[str, Any]:
    """An assignment in the regular combat damage step."""
    return {"step": REG, "source": source, "target": target, "amount": amount}




def assert_legal(board, *assignments: dict[str, Any]):
    result = check_line(board, *assignments)
    assert result.legal, [f"{v} [{v.step.value}]" for v in result.violations]
    return result.outcome


def assert_illegal(board, *assignments: dict[str, Any], rule: str, step: str, source: str | None = None):
    """The checker rejects the line, with a violation of ``rule`` in ``step`` (by ``source`` if given)."""
    result = check_line(board, *assignments)
    assert not result.legal, "expected the checker to reject this assignment"
    assert result.outcome is None
    found = {(v.rule, v.step.value, v.source) for v in result.violations}
    assert any(r == rule and s == step and (source is None or src == source) for r, s, src in found), found
    return result.violations




def line(result) -> set[tuple[str, str, str, int]]:
    """The solver's assignments as (step, source, target, amount)."""
    return {(a.step.value, a.source, a.target, a.amount) for a in result.assignments}


def as_tuples(*assignments: dict[str, Any]) -> set[tuple[str, str, str, int]]:
    return {(a["step"], a["source"], a["target"], a["amount"]) for a in assignments}


def destroyed(outcome) -> set[str]:
    return set(outcome.destroyed)


# =============================================================================================
# The motivating board (510.4): plan both steps as one problem
# =============================================================================================

def motivating_board():
    """A 3/3 double striker blocked by a 1/1 and a 3/3 (neither blocker has first strike)."""
    return make_board(attacker("ds", 3, 3, "B", "double strike"),
                      blocker("small", 1, 1, "ds"),
                      blocker("big", 3, 3, "ds"))


def test_510_4_motivating_board_all_first_strike_damage_on_the_big_blocker() -> None:
    """510.4, 702.4b, 510.1c, 704.5g: objective ["survivors", "kills"] for A.

    Step one: only the double striker assigns; its 3 damage is divided freely (510.1c).
    * 3 on the 3/3: it dies (3 >= 3). Step two: the double striker's 3 go to the 1/1 (the only
      blocker left), which dies; the 1/1 deals 1 to the 3/3 attacker, which survives (1 < 3).
      survivors 1, kills 2.
    * anything else leaves the 3/3 blocker alive for step two, where it deals 3 to the attacker
      (3 >= 3): the attacker dies. survivors 0.
    So the unique optimum: first strike ds->big 3; regular ds->small 3 and small->ds 1.
    """
    board = motivating_board()
    result = solved(board, ["survivors", "kills"])
    assert result.objective == {"survivors": 1, "kills": 2}
    assert line(result) == as_tuples(fs("ds", "big", 3), reg("ds", "small", 3), reg("small", "ds", 1))
    out = result.outcome
    assert destroyed(out) == {"small", "big"}
    assert out.creatures["ds"].damage == 1 and not out.creatures["ds"].destroyed
    assert out.creatures["big"].damage == 3 and out.creatures["small"].damage == 3


def test_510_4_motivating_board_killing_the_small_blocker_first_loses_the_attacker() -> None:
    """510.4: the "one step at a time" line, 1 to the 1/1 and 2 to the 3/3 first, is legal but bad.

    Step one: the 1/1 dies, the 3/3 has 2 marked. Step two: the double striker kills the 3/3 with
    1 more (3 - 2 = 1 needed; it must assign all 3, to the only blocker left), but the 3/3 deals 3 to
    the attacker at the same time (510.2): both die.
    """
    board = motivating_board()
    out = assert_legal(board, fs("ds", "small", 1), fs("ds", "big", 2),
                       reg("ds", "big", 3), reg("big", "ds", 3))
    assert destroyed(out) == {"small", "big", "ds"}
    assert out.creatures["big"].damage == 5
    assert out.creatures["ds"].damage == 3


# =============================================================================================
# 702.4b / 702.7b: who assigns combat damage in which step
# =============================================================================================

def test_702_4b_double_strike_deals_damage_in_both_steps_with_lifelink() -> None:
    """702.4b, 120.3a, 120.3f: an unblocked 2/2 double strike lifelinker deals 2 + 2.

    B: 20 - 2 - 2 = 16. A gains 2 + 2 = 4: 20 + 4 = 24.
    """
    board = make_board(attacker("d", 2, 2, "B", "double strike", "lifelink"))
    result = solved(board, ["player_damage", "life_gained"])
    assert result.objective == {"player_damage": 4, "life_gained": 4}
    assert line(result) == as_tuples(fs("d", "B", 2), reg("d", "B", 2))
    assert result.outcome.players["B"].life == 16
    assert result.outcome.players["A"].life == 24


def test_702_7b_first_strike_only_in_first_step_others_only_in_regular_step() -> None:
    """702.7b, 510.4: an unblocked 2/2 first striker deals 2 in step one only; an unblocked 3/3 without
    first or double strike deals 3 in step two only. B: 20 - 2 - 3 = 15.
    """
    board = make_board(attacker("f", 2, 2, "B", "first strike"), attacker("r", 3, 3, "B"))
    result = solved(board, ["player_damage"])
    assert result.objective == {"player_damage": 5}
    assert line(result) == as_tuples(fs("f", "B", 2), reg("r", "B", 3))
    assert result.outcome.players["B"].life == 15
    assert assert_legal(board, fs("f", "B", 2), reg("r", "B", 3)).players["B"].life == 15


def test_702_7b_first_strike_only_creature_assigning_in_regular_step_is_rejected() -> None:
    """510.4 / 702.7b: a creature with first strike (not double strike) assigns no regular damage."""
    board = make_board(attacker("f", 2, 2, "B", "first strike"), attacker("r", 3, 3, "B"))
    assert_illegal(board, fs("f", "B", 2), reg("r", "B", 3), reg("f", "B", 2),
                   rule="510.4", step=REG, source="f")


def test_510_4_regular_creature_assigning_in_first_strike_step_is_rejected() -> None:
    """510.4: in the first-strike step only creatures with first strike or double strike assign."""
    board = make_board(attacker("f", 2, 2, "B", "first strike"), attacker("r", 3, 3, "B"))
    assert_illegal(board, fs("f", "B", 2), fs("r", "B", 3), rule="510.4", step=FS, source="r")


def test_510_4_no_first_strike_step_without_first_or_double_strike() -> None:
    """510.4: with no first or double strike in combat there is one damage step; a "first_strike" entry
    is rejected, the same damage as "regular" is legal."""
    board = make_board(attacker("r", 3, 3, "B"))
    assert_illegal(board, fs("r", "B", 3), rule="510.4", step=FS, source="r")
    assert assert_legal(board, reg("r", "B", 3)).players["B"].life == 17


def test_510_4_double_strike_and_first_strike_blocker_both_die_in_step_one() -> None:
    """510.4, 704.5g: a 2/2 double striker blocked by a 2/2 first striker: both deal 2 in step one and
    both die; neither deals regular damage. kills 1, survivors 0."""
    board = make_board(attacker("d", 2, 2, "B", "double strike"), blocker("k", 2, 2, "d", "first strike"))
    result = solved(board, ["kills", "survivors"])
    assert result.objective == {"kills": 1, "survivors": 0}
    assert line(result) == as_tuples(fs("d", "k", 2), fs("k", "d", 2))
    assert destroyed(result.outcome) == {"d", "k"}
    assert_illegal(board, fs("d", "k", 2), fs("k", "d", 2), reg("d", "k", 2), rule="510.4", step=REG, source="d")


# =============================================================================================
# 510.4: a first-strike blocker kills the attacker before it deals damage
# =============================================================================================

def test_510_4_first_strike_blocker_kills_attacker_before_it_deals_damage() -> None:
    """510.4, 704.5g: a 3/2 (no first strike) blocked by a 2/1 first striker.

    Step one: the blocker deals 2 to the attacker (2 >= 2): it dies. Step two: the attacker is gone
    and deals nothing, so the 2/1 survives undamaged. For A: kills 0, survivors 0.
    """
    board = make_board(attacker("a", 3, 2), blocker("k", 2, 1, "a", "first strike"))
    result = solved(board, ["kills", "survivors"])
    assert result.objective == {"kills": 0, "survivors": 0}
    assert line(result) == as_tuples(fs("k", "a", 2))
    out = result.outcome
    assert destroyed(out) == {"a"}
    assert out.creatures["k"].damage == 0 and not out.creatures["k"].destroyed
    # the dead attacker cannot assign in step two
    assert_illegal(board, fs("k", "a", 2), reg("a", "k", 3), rule="510.4", step=REG, source="a")


# =============================================================================================
# 702.19b/d with 702.2c and 702.12b: double strike + trample + deathtouch
# =============================================================================================

def test_702_19d_double_strike_trample_deathtouch_kills_big_blocker_then_all_to_player() -> None:
    """702.2c, 702.19b, 704.5h, then 702.19d: a 2/2 double strike, trample, deathtouch attacker blocked
    by a 5/10.

    Step one: 1 deathtouch damage is lethal (702.2c), so 1 to the blocker and 1 to B. The blocker is
    destroyed (704.5h) before it deals regular damage. Step two: the attacker is blocked with no
    blockers left and tramples: all 2 to B (702.19d). B: 20 - 1 - 2 = 17; the attacker is unhurt.
    """
    board = make_board(attacker("a", 2, 2, "B", "double strike", "trample", "deathtouch"),
                       blocker("big", 5, 10, "a"))
    result = solved(board, ["player_damage", "survivors"])
    assert result.objective == {"player_damage": 3, "survivors": 1}
    assert line(result) == as_tuples(fs("a", "big", 1), fs("a", "B", 1), reg("a", "B", 2))
    out = result.outcome
    assert out.players["B"].life == 17
    assert destroyed(out) == {"big"}
    assert out.creatures["a"].damage == 0
    # the dead blocker can no longer be assigned damage in step two
    assert not check_line(board, fs("a", "big", 1), fs("a", "B", 1), reg("a", "big", 1), reg("a", "B", 1)).legal


def test_702_2c_702_12b_double_strike_deathtouch_trample_against_indestructible_blocker() -> None:
    """702.2c, 702.12b, 702.19b: the same attacker (2/2 double strike, trample, deathtouch) blocked by an
    indestructible 1/10.

    Step one: 1 to the blocker (lethal by deathtouch), 1 to B. The blocker is not destroyed
    (702.12b) and still blocks. Step two: lethal is computed again: 10 toughness - 1 marked = 9, so
    the step-one deathtouch damage does not count as lethal; but 1 deathtouch damage assigned in
    step two is lethal again (702.2c): 1 to the blocker, 1 to B. The blocker deals 1 to the attacker.
    B: 20 - 1 - 1 = 18; blocker 2 damage marked, alive; attacker 1 damage, alive.
    """
    board = make_board(attacker("a", 2, 2, "B", "double strike", "trample", "deathtouch"),
                       blocker("wall", 1, 10, "a", "indestructible"))
    result = solved(board, ["player_damage", "survivors"])
    assert result.objective == {"player_damage": 2, "survivors": 1}
    assert line(result) == as_tuples(fs("a", "wall", 1), fs("a", "B", 1),
                                     reg("a", "wall", 1), reg("a", "B", 1), reg("wall", "a", 1))
    out = result.outcome
    assert out.players["B"].life == 18
    assert out.creatures["wall"].damage == 2 and not out.creatures["wall"].destroyed
    assert out.creatures["a"].damage == 1 and not out.creatures["a"].destroyed
    assert destroyed(out) == set()


def test_702_19b_step_one_deathtouch_does_not_make_indestructible_blocker_lethal_in_step_two() -> None:
    """702.19b, 702.2c: in step two all 2 to B (nothing to the surviving indestructible blocker) is
    illegal: it has 0 of the 9 lethal damage it needs (toughness 10, 1 marked)."""
    board = make_board(attacker("a", 2, 2, "B", "double strike", "trample", "deathtouch"),
                       blocker("wall", 1, 10, "a", "indestructible"))
    assert_illegal(board, fs("a", "wall", 1), fs("a", "B", 1), reg("a", "B", 2), reg("wall", "a", 1),
                   rule="702.19b", step=REG, source="a")
    # and in step one as well: nothing on the blocker is not lethal
    assert_illegal(board, fs("a", "B", 2), rule="702.19b", step=FS, source="a")


# =============================================================================================
# 506.4c / 702.19c / 702.19e / 702.19f: double strike against a planeswalker
# =============================================================================================

@pytest.mark.parametrize("keywords", [("double strike",), ("double strike", "trample")])
def test_506_4c_double_strike_kills_planeswalker_then_deals_nothing(keywords: tuple[str, ...]) -> None:
    """506.4c, 510.1b, 702.19f, 704.5i: an unblocked 3/3 double striker (with or without plain trample)
    attacking a loyalty-2 planeswalker.

    Step one: all 3 go to the planeswalker (plain trample never reaches the player, 702.19f); loyalty
    2 - 3 -> 0, it is put into the graveyard (704.5i). Step two: the attacker attacks nothing and
    deals no damage (506.4c). B stays at 20. Objective loyalty 2 (at most what it had), damage 0.
    """
    board = make_board(attacker("a", 3, 3, "pw", *keywords), planeswalkers=[planeswalker("pw", 2)])
    result = solved(board, ["loyalty", "player_damage"])
    assert result.objective == {"loyalty": 2, "player_damage": 0}
    assert line(result) == as_tuples(fs("a", "pw", 3))
    out = result.outcome
    assert out.planeswalkers["pw"] == 0 and "pw" in out.destroyed
    assert out.players["B"].life == 20
    assert_illegal(board, fs("a", "pw", 3), reg("a", "pw", 3), rule="510.1b", step=REG, source="a")
    assert_illegal(board, fs("a", "pw", 3), reg("a", "B", 3), rule="702.19f", step=REG, source="a")


def test_702_19e_double_strike_trample_over_planeswalkers_then_all_to_controller() -> None:
    """702.19c, 704.5i, 702.19e: an unblocked 3/3 double strike, trample over planeswalkers, attacking a
    loyalty-2 planeswalker.

    Step one: 2 to the planeswalker (its loyalty) and the excess 1 to B (702.19c); the planeswalker
    dies. Step two: it was removed from combat and there are no blockers: all 3 to B (702.19e).
    B: 20 - 1 - 3 = 16; player damage 4 (putting all 3 on the planeswalker in step one gives only 3).
    """
    board = make_board(attacker("a", 3, 3, "pw", "double strike", "trample over planeswalkers"),
                       planeswalkers=[planeswalker("pw", 2)])
    result = solved(board, ["player_damage", "loyalty"])
    assert result.objective == {"player_damage": 4, "loyalty": 2}
    assert line(result) == as_tuples(fs("a", "pw", 2), fs("a", "B", 1), reg("a", "B", 3))
    out = result.outcome
    assert out.players["B"].life == 16
    assert out.planeswalkers["pw"] == 0 and "pw" in out.destroyed
    # step one: 1 of 2 loyalty assigned is not enough to reach the controller (702.19c)
    assert_illegal(board, fs("a", "pw", 1), fs("a", "B", 2), rule="702.19c", step=FS, source="a")


# =============================================================================================
# 120.3d, 702.80a, 702.90c: -1/-1 counters from step one change power and toughness for step two
# =============================================================================================

@pytest.mark.parametrize("keyword", ["wither", "infect"])
def test_702_80a_702_90c_first_strike_minus_counters_shrink_blocker_power(keyword: str) -> None:
    """120.3d, 510.4, 510.1a: a 2/3 first striker with wither/infect blocked by a 3/3.

    Step one: 2 damage become two -1/-1 counters: the blocker is now 1/1 (alive). Step two: the
    blocker assigns damage equal to its current power, 1, to the attacker (1 < 3: it survives); the
    first striker deals nothing. Without the counters the 3/3 would deal 3 and kill it.
    """
    board = make_board(attacker("a", 2, 3, "B", "first strike", keyword), blocker("b", 3, 3, "a"))
    result = solved(board, ["survivors"])
    assert result.objective == {"survivors": 1}
    assert line(result) == as_tuples(fs("a", "b", 2), reg("b", "a", 1))
    out = result.outcome
    assert out.creatures["b"].minus_counters == 2 and out.creatures["b"].damage == 0
    assert not out.creatures["b"].destroyed
    assert out.creatures["a"].damage == 1 and not out.creatures["a"].destroyed
    # the shrunken blocker must assign exactly its new power, 1 (510.1a)
    assert_illegal(board, fs("a", "b", 2), reg("b", "a", 3), rule="510.1a", step=REG, source="b")


def test_702_80a_wither_shrinks_toughness_for_trample_in_step_two() -> None:
    """120.3d, 702.19b, 510.1a, 704.5f: a 3/3 double strike, wither, trample attacker blocked by a 2/4.

    Step one: lethal for the blocker is 4 > 3, so all 3 go to it: three -1/-1 counters, it is now
    -1/1. Step two: its power -1 assigns nothing (510.1a); its toughness is 1, so 1 is lethal:
    1 to the blocker, 2 to B. The fourth counter brings toughness to 0 (704.5f). B: 20 - 2 = 18.
    """
    board = make_board(attacker("a", 3, 3, "B", "double strike", "wither", "trample"), blocker("b", 2, 4, "a"))
    result = solved(board, ["player_damage"])
    assert result.objective == {"player_damage": 2}
    assert line(result) == as_tuples(fs("a", "b", 3), reg("a", "b", 1), reg("a", "B", 2))
    out = result.outcome
    assert out.players["B"].life == 18
    assert out.creatures["b"].minus_counters == 4 and out.creatures["b"].destroyed
    assert out.creatures["a"].damage == 0 and not out.creatures["a"].destroyed
    # step two: going past the blocker without lethal (0 of 1) is illegal
    assert_illegal(board, fs("a", "b", 3), reg("a", "B", 3), rule="702.19b", step=REG, source="a")
    # step two: the blocker's power is now -1, so it assigns nothing
    assert_illegal(board, fs("a", "b", 3), reg("a", "b", 1), reg("a", "B", 2), reg("b", "a", 2),
                   rule="510.1a", step=REG, source="b")


# =============================================================================================
# 120.6, 702.19b: damage marked in step one counts toward lethal in step two
# =============================================================================================

def test_702_19b_marked_damage_from_step_one_reduces_lethal_in_step_two() -> None:
    """120.6, 702.19b: a 3/3 double strike trampler blocked by a 0/4.

    Step one: lethal is 4 > 3, so all 3 go to the blocker (3 marked, alive). Step two: it needs
    only 4 - 3 = 1 more: 1 to it, 2 to B. B: 18; the blocker dies with 4 marked.
    """
    board = make_board(attacker("a", 3, 3, "B", "double strike", "trample"), blocker("b", 0, 4, "a"))
    result = solved(board, ["player_damage"])
    assert result.objective == {"player_damage": 2}
    assert line(result) == as_tuples(fs("a", "b", 3), reg("a", "b", 1), reg("a", "B", 2))
    out = result.outcome
    assert out.players["B"].life == 18
    assert out.creatures["b"].damage == 4 and out.creatures["b"].destroyed
    # step one cannot trample past a blocker that has 3 of its 4
    assert_illegal(board, fs("a", "b", 2), fs("a", "B", 1), rule="702.19b", step=FS, source="a")
    # step two: past the blocker with 0 of the 1 still needed is illegal
    violations = assert_illegal(board, fs("a", "b", 3), reg("a", "B", 3), rule="702.19b", step=REG, source="a")
    assert any("b" in v.message for v in violations if v.rule == "702.19b")


def test_702_19b_first_striker_damage_lets_another_attacker_trample_in_step_two() -> None:
    """120.6, 702.19b, 702.7b: a 0/4 blocks both a 2/2 first striker and a 4/4 trampler (no strike).

    Step one: the first striker's 2 are marked on the blocker. Step two: the trampler needs
    4 - 2 = 2: 2 to the blocker, 2 to B. (Ignoring the marked damage it could send nothing to B.)
    """
    board = make_board(attacker("f", 2, 2, "B", "first strike"), attacker("t", 4, 4, "B", "trample"),
                       blocker("b", 0, 4, ["f", "t"]))
    result = solved(board, ["player_damage"])
    assert result.objective == {"player_damage": 2}
    assert line(result) == as_tuples(fs("f", "b", 2), reg("t", "b", 2), reg("t", "B", 2))
    assert result.outcome.players["B"].life == 18
    assert result.outcome.creatures["b"].destroyed
    assert_illegal(board, fs("f", "b", 2), reg("t", "b", 1), reg("t", "B", 3), rule="702.19b", step=REG, source="t")


# =============================================================================================
# 509.1h, 510.1c, 702.19d: a blocked attacker whose blockers all died in step one
# =============================================================================================

def test_510_1c_blockers_died_in_step_one_non_trampler_deals_nothing_in_step_two() -> None:
    """509.1h, 510.1c: a 3/3 double striker blocked by a 1/1 kills it in step one (3 to it, the only
    recipient). Step two: it is still blocked, no creature blocks it, no trample: no damage. B: 20."""
    board = make_board(attacker("a", 3, 3, "B", "double strike"), blocker("b", 1, 1, "a"))
    result = solved(board, ["player_damage", "kills"])
    assert result.objective == {"player_damage": 0, "kills": 1}
    assert line(result) == as_tuples(fs("a", "b", 3))
    assert result.outcome.players["B"].life == 20
    violations = assert_illegal(board, fs("a", "b", 3), reg("a", "B", 3), rule="510.1c", step=REG, source="a")
    assert {v.rule for v in violations} == {"510.1c"}  # its 3 is not a 510.1a shortfall: it has no recipient
    assert assert_legal(board, fs("a", "b", 3)).players["B"].life == 20


def test_702_19d_blockers_died_in_step_one_trampler_deals_all_to_player_in_step_two() -> None:
    """702.19b, 702.19d: a 3/3 double strike trampler blocked by a 1/1: step one 1 to the blocker (lethal)
    and 2 to B; step two, no blockers remain: all 3 to B. B: 20 - 2 - 3 = 15."""
    board = make_board(attacker("a", 3, 3, "B", "double strike", "trample"), blocker("b", 1, 1, "a"))
    result = solved(board, ["player_damage"])
    assert result.objective == {"player_damage": 5}
    assert line(result) == as_tuples(fs("a", "b", 1), fs("a", "B", 2), reg("a", "B", 3))
    assert result.outcome.players["B"].life == 15


@pytest.mark.parametrize("keywords,expected", [(("double strike",), 0), (("double strike", "trample"), 6)])
def test_702_19d_blocked_with_no_blockers_in_both_steps(keywords: tuple[str, ...], expected: int) -> None:
    """509.1h, 510.1c, 702.19d: a 3/3 double striker that was blocked but whose blockers left combat
    ("blocked": true): without trample nothing in either step; with trample 3 + 3 = 6 to B."""
    board = make_board(attacker("a", 3, 3, "B", *keywords, blocked=True))
    result = solved(board, ["player_damage"])
    assert result.objective == {"player_damage": expected}
    assert result.outcome.players["B"].life == 20 - expected


# =============================================================================================
# 120.3b, 120.3g, 702.164c, 704.5c, 903.10a: results accumulate over both steps
# =============================================================================================

def test_903_10a_commander_damage_reaches_21_in_step_two() -> None:
    """903.10a, 704.6c: B (40 life) has taken 15 from a 4/4 double strike commander, unblocked.

    Step one: 15 + 4 = 19 < 21, B is still in (36 life). Step two: 19 + 4 = 23 >= 21: B loses.
    Life 40 - 8 = 32.
    """
    board = make_board(attacker("cmdr", 4, 4, "B", "double strike", commander=True),
                       players=[player("A"), player("B", 40, commander_damage={"cmdr": 15})])
    result = solved(board, ["lethal", "player_damage"])
    assert result.objective == {"lethal": 1, "player_damage": 8}
    assert line(result) == as_tuples(fs("cmdr", "B", 4), reg("cmdr", "B", 4))
    b = result.outcome.players["B"]
    assert b.commander_damage["cmdr"] == 23
    assert b.life == 32
    assert b.lost


def test_903_10a_first_strike_commander_stops_at_19() -> None:
    """903.10a, 702.7b: the same commander with first strike only deals 4 once: 15 + 4 = 19 < 21."""
    board = make_board(attacker("cmdr", 4, 4, "B", "first strike", commander=True),
                       players=[player("A"), player("B", 40, commander_damage={"cmdr": 15})])
    result = solved(board, ["lethal", "player_damage"])
    assert result.objective == {"lethal": 0, "player_damage": 4}
    assert result.outcome.players["B"].commander_damage["cmdr"] == 19
    assert not result.outcome.players["B"].lost


def test_704_5c_infect_poison_accumulates_over_both_steps() -> None:
    """120.3b, 704.5c: an unblocked 5/5 double strike infect: 5 poison, then 5 more: 10, B loses."""
    board = make_board(attacker("i", 5, 5, "B", "double strike", "infect"))
    result = solved(board, ["lethal", "poison"])
    assert result.objective == {"lethal": 1, "poison": 10}
    assert line(result) == as_tuples(fs("i", "B", 5), reg("i", "B", 5))
    assert result.outcome.players["B"].poison == 10
    assert result.outcome.players["B"].life == 20
    assert result.outcome.players["B"].lost


def test_702_164c_toxic_applies_in_each_damage_step() -> None:
    """120.3g, 702.164c: an unblocked 1/1 double strike with toxic 1 deals combat damage to B in each
    step, so B gets 1 poison each time: 2 poison, and 20 - 2 = 18 life."""
    board = make_board(attacker("t", 1, 1, "B", "double strike", toxic=1))
    result = solved(board, ["poison"])
    assert result.objective == {"poison": 2}
    assert result.outcome.players["B"].poison == 2
    assert result.outcome.players["B"].life == 18


# =============================================================================================
# 704.5a with 510.4: a player who lost after step one (two-player game: no step two)
# =============================================================================================

def test_704_5a_player_loses_after_first_step_no_second_step() -> None:
    """704.5a, 510.4: B at 3 life; an unblocked 3/3 double striker and an unblocked 5/5 without strike.

    Step one: 3 damage, B at 0 loses (704.5a). Two players: the game is over, there is no regular
    step; the 5/5 never deals damage. Outcome: B at 0, lost; player damage 3.
    """
    board = make_board(attacker("ds", 3, 3, "B", "double strike"), attacker("r", 5, 5, "B"),
                       players=[player("A"), player("B", 3)])
    result = solved(board, ["lethal", "player_damage"])
    assert result.objective == {"lethal": 1, "player_damage": 3}
    assert line(result) == as_tuples(fs("ds", "B", 3))
    assert result.outcome.players["B"].life == 0 and result.outcome.players["B"].lost
    out = assert_legal(board, fs("ds", "B", 3))
    assert out.players["B"].life == 0 and out.players["B"].lost
    # any regular-step assignment is rejected
    assert_illegal(board, fs("ds", "B", 3), reg("ds", "B", 3), rule="704.5a", step=REG, source="ds")
    assert_illegal(board, fs("ds", "B", 3), reg("r", "B", 5), rule="704.5a", step=REG, source="r")


def test_704_5a_multiplayer_second_step_still_happens_for_other_players() -> None:
    """704.5a, 510.4: three players. B at 3 loses in step one to a 3/3 double striker; C is still in the
    game, so step two happens and a 2/2 double striker attacking C deals 2 + 2: C at 16."""
    board = make_board(attacker("ds", 3, 3, "B", "double strike"), attacker("dc", 2, 2, "C", "double strike"),
                       players=[player("A"), player("B", 3), player("C")])
    result = solved(board, ["lethal"])
    assert result.objective == {"lethal": 1}
    assert result.outcome.players["B"].lost
    assert result.outcome.players["C"].life == 16 and not result.outcome.players["C"].lost
    assert ("regular", "dc", "C", 2) in line(result)


def test_704_6c_a_player_lost_to_a_commander_that_died_in_step_one_has_lost_on_the_board_between_steps() -> None:
    """704.6c, 800.4a, 510.4: three players. A's commander a1 (3/1 first strike, trample) is blocked by
    C's c1 (1/1 first strike): 1 to c1, 2 to C (19 + 2 = 21, C loses) while c1 kills a1. On the board
    for the regular step, C is out of the game with 21 from a commander no longer there; a2 (4/4
    trample, its damage doubled) against B's 2/2 must still count C among the players who lost, as
    the checker does: lethal 1, and 2 (doubled to 4) past the blocker."""
    from optimizer import check, solve
    from optimizer.assignment import Assignment, Step
    from optimizer.rules import first_step

    board = make_board(
        attacker("a1", 3, 1, "C", "first strike", "trample", commander=True),
        blocker("c1", 1, 1, "a1", "first strike", controller="C"),
        attacker("a2", 4, 4, "B", "trample"), blocker("b1", 2, 2, "a2"),
        players=[player("A"), player("B"), player("C", commander_damage={"a1": 19})],
        effects=[{"kind": "double", "sources": ["a2"]}])
    step = Step.FIRST_STRIKE
    _, later = first_step(board, (Assignment(step, "a1", "c1", 1), Assignment(step, "a1", "C", 2),
                                  Assignment(step, "c1", "a1", 1)))
    assert later is not None and [p.in_game for p in later.players] == [True, True, False]
    assert [c.id for c in later.creatures] == ["a2", "b1"]
    result = solve(later, objective=["lethal", "player_damage"])
    assert result.status == "optimal" and result.objective == {"lethal": 1, "player_damage": 4}
    assert {(a.source, a.target, a.amount) for a in result.assignments if a.source == "a2"} == {("a2", "b1", 2),
                                                                                              ("a2", "B", 2)}
    assert check(later, result.assignments).legal


# =============================================================================================
# 510.1, 510.4: worst-case replies of the other players, in both steps
# =============================================================================================

def worst_reply_board():
    """A: d 2/2 double strike (value 3), y 1/1 (value 1). B: k 1/3 first strike blocking d and y,
    p 1/1 blocking d (values 1)."""
    return make_board(attacker("d", 2, 2, "B", "double strike", value=3), attacker("y", 1, 1, "B"),
                      blocker("k", 1, 3, ["d", "y"], "first strike"), blocker("p", 1, 1, "d"))


def test_510_1d_first_strike_blocker_of_two_attackers_replies_worst_for_attacker() -> None:
    """510.1, 510.1d, 510.4: A decides, objective ["value"]; B's first striker k replies worst for A.

    Step one: A announces d's 2 damage among k (toughness 3) and p (toughness 1); then B, having
    seen it, puts k's 1 damage on d or on y. Step two: d (if alive) hits its remaining blockers,
    y (if alive) hits k, p (if alive) hits d; k (first strike only) deals nothing.
    * d: 1 to k, 1 to p (p dies). k->d: step two d 2 to k (1+2=3, dies): +1 +1 = 2.
      k->y: y dies; d kills k in step two: +2 - 1 = 1.  B picks k->y: value 1.
    * d: 2 to k. k->d: d has 1, p's 1 in step two kills it; d kills k and p: +2 - 3 = -1.
      k->y: +2 - 1 = 1.  B picks k->d: value -1.
    * d: 2 to p (p dies). k->d: d and y kill k (2+1=3): +2.  k->y: y dies, k survives with 2:
      +1 - 1 = 0.  B picks k->y: value 0 (the trap: best if B cooperated, 2).
    Optimum 1, uniquely by splitting 1/1; the reported line has B's worst reply k->y, then d->k 2.
    """
    board = worst_reply_board()
    result = solved(board, ["value"])
    assert result.objective == {"value": 1}
    assert line(result) == as_tuples(fs("d", "k", 1), fs("d", "p", 1), fs("k", "y", 1), reg("d", "k", 2))
    out = result.outcome
    assert destroyed(out) == {"k", "p", "y"}
    assert not out.creatures["d"].destroyed


def test_510_1d_trap_line_is_worse_under_the_worst_reply() -> None:
    """510.1d: the optimistic plan (2 to p) is worth 2 if B's k hits d, but 0 if it hits y (checked
    with the checker, computing value by hand from the destroyed creatures)."""
    board = worst_reply_board()
    cooperative = assert_legal(board, fs("d", "p", 2), fs("k", "d", 1), reg("d", "k", 2), reg("y", "k", 1))
    assert destroyed(cooperative) == {"k", "p"}  # value +2
    worst = assert_legal(board, fs("d", "p", 2), fs("k", "y", 1), reg("d", "k", 2))
    assert destroyed(worst) == {"p", "y"}  # value +1 - 1 = 0
    assert worst.creatures["k"].damage == 2


def test_510_1_defending_player_decides_attacker_replies_worst_in_first_step() -> None:
    """510.1, 510.4: B decides (objective ["survivors", "kills"]); A's choices are worst for B.

    A: d 2/2 double strike, x 1/1. B: k 2/2 first strike blocking d and x; m 1/1 blocking d.
    Step one: A announces d's 2 among k and m first, then B splits k's 2 among d and x.
    * d: 2 to k (k dies). B: k->d 2 (d dies): step two x is blocked by a dead k and m blocks a dead
      d: nothing; m survives: (1, 1).
    * d: 2 to m (m dies). B: k->d 2: step two x deals 1 to k (1 < 2): k survives: (1, 1).
    * d: 1 to k, 1 to m (m dies, k has 1). B: k->d 2: x finishes k in step two (0, 1);
      k->d 1, k->x 1 or k->x 2: d deals 2 to k in step two (0, 1).  So (0, 1) whatever B does.
    A's worst-for-B choice is the 1/1 split: survivors 0, kills 1.
    """
    board = make_board(attacker("d", 2, 2, "B", "double strike"), attacker("x", 1, 1, "B"),
                       blocker("k", 2, 2, ["d", "x"], "first strike"), blocker("m", 1, 1, "d"))
    result = solved(board, ["survivors", "kills"], player_id="B")
    assert result.objective == {"survivors": 0, "kills": 1}
    steps = line(result)
    assert ("first_strike", "d", "k", 1) in steps and ("first_strike", "d", "m", 1) in steps
    out = result.outcome
    assert {"k", "m"} <= destroyed(out)
    assert len(destroyed(out) & {"d", "x"}) == 1


def test_510_1_defending_player_decides_attacker_replies_worst_in_second_step() -> None:
    """510.1, 510.4, 704.5g: B decides (objective ["survivors"]). A's 2/5 double striker is blocked by two
    0/2s. Total damage 2 + 2 = 4 = 2 + 2 toughness: whatever A does in step one, its step-two split
    can finish both (e.g. 1/1 then 1/1, or 2/0 then 0/2). B's survivors: 0."""
    board = make_board(attacker("d", 2, 5, "B", "double strike"),
                       blocker("p1", 0, 2, "d"), blocker("p2", 0, 2, "d"))
    result = solved(board, ["survivors"], player_id="B")
    assert result.objective == {"survivors": 0}
    assert destroyed(result.outcome) == {"p1", "p2"}
    # the second step reacts to the first: after 1/1, a 2/0 split leaves p2 alive
    out = assert_legal(board, fs("d", "p1", 1), fs("d", "p2", 1), reg("d", "p1", 2))
    assert destroyed(out) == {"p1"}


# =============================================================================================
# check on two-step assignments: a full legal line and its outcome
# =============================================================================================

def test_510_4_check_full_two_step_line_outcome() -> None:
    """510.4, 120.3, 704.5g: the motivating board's optimal line, entry by entry, through the checker:
    first_strike ds->big 3; regular ds->small 3, small->ds 1. Destroyed: big (step one), small (step
    two); ds has 1 damage marked."""
    board = motivating_board()
    out = assert_legal(board, fs("ds", "big", 3), reg("ds", "small", 3), reg("small", "ds", 1))
    assert destroyed(out) == {"big", "small"}
    assert out.creatures["ds"].damage == 1 and not out.creatures["ds"].destroyed
    assert out.players["B"].life == 20


def test_510_4_check_creature_destroyed_in_step_one_cannot_assign_in_step_two() -> None:
    """510.4: the big blocker that died in step one assigns nothing in the regular step."""
    board = motivating_board()
    assert_illegal(board, fs("ds", "big", 3), reg("ds", "small", 3), reg("small", "ds", 1), reg("big", "ds", 3),
                   rule="510.4", step=REG, source="big")


def test_510_4_check_missing_step_two_damage_is_rejected() -> None:
    """510.1a, 510.4: the double striker must also assign its whole power in step two (the 1/1 remains)."""
    board = motivating_board()
    assert_illegal(board, fs("ds", "big", 3), reg("small", "ds", 1), rule="510.1a", step=REG, source="ds")
