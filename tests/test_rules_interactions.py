"""Hand-computed scenarios for rules that meet other rules: lifelink on planeswalkers and battles,
-1/-1 counters with marked damage, battles and planeswalkers across the two damage steps, effects with
commander damage, toxic and trample's lethal damage, protection from everything, and a player who left.

As in ``test_rules_scenarios.py``, every expected value is worked out by hand from the rules (each
docstring shows the arithmetic), never copied from the code's output.
"""

from __future__ import annotations

from optimizer import DealingChoice, Step, check
from scenarios import attacker, battle, blocker, check_line, make_board, planeswalker, player, solved


def dmg(source, target, amount, step="regular"):
    return {"step": step, "source": source, "target": target, "amount": amount}


def fs(source, target, amount):
    return dmg(source, target, amount, "first_strike")


def test_120_3f_lifelink_gains_all_damage_dealt_to_a_planeswalker_or_battle_beyond_its_counters():
    """120.3f / 702.15b: the gain is the damage dealt, whatever the recipient and however much of it
    removes loyalty or defense (120.3c/h cap at 0, the damage is still all dealt).
    * 5/5 lifelink on a loyalty-3 planeswalker: loyalty 3 -> 0 (destroyed, 704.5i); A gains 5: 25.
    * 4/4 lifelink on a defense-2 battle: defense 2 -> 0 (704.5v); A gains 4: 24.
    * Solver: a 5/5 lifelink with trample over planeswalkers on a loyalty-3 planeswalker whose
      controller B has protection from creatures (damage to B prevented, 702.16e, so no gain from it).
      Splits: k to the planeswalker (k >= 3 to reach B, 702.19c), 5-k to B (prevented): gain = k,
      best k = 5: life_gained 5 (a gain capped at loyalty would give 3)."""
    board = make_board(attacker("l", 5, 5, "pw", "lifelink"), planeswalkers=[planeswalker("pw", 3)])
    out = check_line(board, dmg("l", "pw", 5)).outcome
    assert out.planeswalkers["pw"] == 0 and "pw" in out.destroyed
    assert out.players["A"].life == 25 and out.players["A"].life_gained == 5
    board = make_board(attacker("l", 4, 4, "siege", "lifelink"), battles=[battle("siege", 2)])
    out = check_line(board, dmg("l", "siege", 4)).outcome
    assert out.battles["siege"] == 0 and out.players["A"].life == 24
    board = make_board(attacker("l", 5, 5, "pw", "lifelink", "trample over planeswalkers"),
                       planeswalkers=[planeswalker("pw", 3)],
                       players=[player("A"), player("B", protection_from=["creatures"])])
    result = solved(board, ["life_gained"])
    assert result.objective == {"life_gained": 5}
    assert result.outcome.players["A"].life == 25


def test_704_5g_marked_damage_against_toughness_lowered_by_minus_counters():
    """120.3d + 704.5g: B's 0/3 with 1 damage marked blocks A's 1/5 wither w and A's 2/5 p; p is also
    blocked by B's 0/1 c. w's 1 becomes a -1/-1 counter (b is 0/2); p's damage is marked.
    * p: 1 to b, 1 to c: b has 1 + 1 = 2 marked >= toughness 2 -> destroyed; c 1 >= 1 -> destroyed.
      kills 2. (Counting toughness 3 without the counter, b would survive: kills 1.)
    * p: 2 to b: b dies, c lives: 1.  p: 2 to c: c dies, b has 1 marked < 2: 1.  Optimum: 2."""
    board = make_board(attacker("w", 1, 5, "B", "wither"), attacker("p", 2, 5, "B"),
                       blocker("b", 0, 3, ["w", "p"], damage=1), blocker("c", 0, 1, "p"))
    out = check_line(board, dmg("w", "b", 1), dmg("p", "b", 1), dmg("p", "c", 1)).outcome
    assert out.creatures["b"].minus_counters == 1 and out.creatures["b"].damage == 2
    assert out.creatures["b"].destroyed and out.creatures["c"].destroyed
    assert solved(board, ["kills"]).objective == {"kills": 2}


def test_510_4_battle_defense_carries_over_and_a_battle_at_zero_leaves_combat():
    """120.3h, 704.5v, 506.4c across 510.4 (battle controlled by A, protected by B).
    * Unblocked 3/3 double striker on a defense-5 battle: step one 5 - 3 = 2; step two 2 - 3 -> 0:
      destroyed; defense objective 5. (Starting step two from 5 again would leave it at 2.)
    * A 2/2 first striker and a 2/2 on a defense-2 battle: step one it goes to 0 and is put into the
      graveyard (704.5v), so the regular 2/2 attacks nothing and assigns nothing (506.4c, 510.1b)."""
    board = make_board(attacker("d", 3, 3, "siege", "double strike"), battles=[battle("siege", 5)])
    out = check_line(board, fs("d", "siege", 3), dmg("d", "siege", 3)).outcome
    assert out.battles["siege"] == 0 and "siege" in out.destroyed
    assert solved(board, ["defense"]).objective == {"defense": 5}

    board = make_board(attacker("f", 2, 2, "siege", "first strike"), attacker("r", 2, 2, "siege"),
                       battles=[battle("siege", 2)])
    assert check_line(board, fs("f", "siege", 2)).legal
    assert not check_line(board, fs("f", "siege", 2), dmg("r", "siege", 2)).legal
    result = solved(board, ["defense"])
    assert result.objective == {"defense": 2}
    assert not any(a.source == "r" for a in result.assignments)


def test_614_7a_an_adder_does_nothing_to_damage_a_shield_prevented_entirely():
    """614.7a / 616.1: A's unblocked 2/2, "prevent the next 2 damage to B" (effect 0) and +2 to A's
    sources' damage (effect 1). B orders them: shield first -> 0, and +2 has no damage to modify:
    0 dealt; +2 first -> 4 - 2 = 2 dealt. B takes 0, whoever decides (A: worst for A)."""
    board = make_board(attacker("a", 2, 2, "B"),
                       effects=[{"kind": "prevent", "amount": 2, "recipients": ["B"]},
                                {"kind": "add", "amount": 2, "sources": {"controller": "A"}}])
    shield_first = check(board, [{"source": "a", "target": "B", "amount": 2}],
                         [DealingChoice(Step.REGULAR, "a", "B", (0, 1))])
    assert shield_first.outcome.players["B"].life == 20
    add_first = check(board, [{"source": "a", "target": "B", "amount": 2}],
                      [DealingChoice(Step.REGULAR, "a", "B", (1, 0))])
    assert add_first.outcome.players["B"].life == 18
    assert solved(board, ["player_damage"]).objective == {"player_damage": 0}


def test_615_12_a_shield_prevents_nothing_of_unpreventable_damage_and_is_not_used_up():
    """615.12: "prevent the next 2 damage to B"; A's 3/3 lifelink first striker u's damage can't be
    prevented. Step one: all 3 dealt (B 17, A gains 3: 23), the shield still has 2. Step two: A's
    2/2 c is prevented by the shield entirely: B stays at 17. player_damage 3, life_gained 3."""
    board = make_board(attacker("u", 3, 3, "B", "first strike", "lifelink"), attacker("c", 2, 2, "B"),
                       effects=[{"kind": "prevent", "amount": 2, "recipients": ["B"]},
                                {"kind": "cant_be_prevented", "sources": ["u"]}])
    out = check_line(board, fs("u", "B", 3), dmg("c", "B", 2)).outcome
    assert out.players["B"].life == 17 and out.players["A"].life == 23
    result = solved(board, ["player_damage", "life_gained"])
    assert result.objective == {"player_damage": 3, "life_gained": 3}


def test_702_16j_protection_from_everything_prevents_all_damage():
    """702.16j / 702.16e: B's 2/2 with protection from everything blocks A's colorless 3/3: the 3 is
    prevented (no damage marked, it lives); its 2 to the 3/3 is dealt. kills 0; the 3/3 has 2."""
    board = make_board(attacker("a", 3, 3), blocker("b", 2, 2, "a", protection_from=["everything"]))
    out = check_line(board, dmg("a", "b", 3), dmg("b", "a", 2)).outcome
    assert out.creatures["b"].damage == 0 and not out.creatures["b"].destroyed
    assert out.creatures["a"].damage == 2
    assert solved(board, ["kills"]).objective == {"kills": 0}


def test_903_10a_commander_damage_counts_damage_dealt_after_prevention_and_doubling():
    """903.10a / 704.6c with 615/614: B has 18 from commander c.
    * c 3/3 unblocked, "prevent the next 1 damage to B": 2 dealt -> 20 < 21, B stays in; life 18.
    * c 2/3 unblocked under Furnace of Rath: 4 dealt -> 22 >= 21, B loses; life 16."""
    cmdr = [player("A"), player("B", commander_damage={"c": 18})]
    board = make_board(attacker("c", 3, 3, "B", commander=True), players=cmdr,
                       effects=[{"kind": "prevent", "amount": 1, "recipients": ["B"]}])
    out = check_line(board, dmg("c", "B", 3)).outcome
    assert out.players["B"].commander_damage["c"] == 20 and not out.players["B"].lost
    assert solved(board, ["lethal"]).objective == {"lethal": 0}
    board = make_board(attacker("c", 2, 3, "B", commander=True), players=cmdr, effects=[{"kind": "double"}])
    out = check_line(board, dmg("c", "B", 2)).outcome
    assert out.players["B"].commander_damage["c"] == 22 and out.players["B"].lost
    assert solved(board, ["lethal"]).objective == {"lethal": 1}


def test_800_4a_trample_over_planeswalkers_on_a_planeswalker_of_a_player_who_left_deals_nothing():
    """800.4a, 506.4c, 702.19e: three players. A's 1/1 first striker f takes B from 1 to 0 (704.5a); B
    leaves the game with its planeswalker. A's 4/4 t with trample over planeswalkers attacking it has
    neither the planeswalker nor its controller to damage in the regular step: it assigns nothing."""
    board = make_board(attacker("f", 1, 1, "B", "first strike"),
                       attacker("t", 4, 4, "pw", "trample over planeswalkers"),
                       players=[player("A"), player("B", 1), player("C")],
                       planeswalkers=[planeswalker("pw", 2)])
    assert check_line(board, fs("f", "B", 1)).legal
    assert not check_line(board, fs("f", "B", 1), dmg("t", "B", 4)).legal
    assert not check_line(board, fs("f", "B", 1), dmg("t", "pw", 4)).legal


def test_702_19c_loyalty_threshold_in_the_regular_step_is_what_the_first_step_left():
    """702.19c across 510.4: an unblocked 3/3 double striker with trample over planeswalkers on a
    loyalty-5 planeswalker. Step one: 3 < 5, so nothing may pass: all 3 on it (loyalty 2). Step two:
    2 on it (its remaining loyalty) and 1 to B. player_damage 1, loyalty 5."""
    board = make_board(attacker("t", 3, 3, "pw", "double strike", "trample over planeswalkers"),
                       planeswalkers=[planeswalker("pw", 5)])
    out = check_line(board, fs("t", "pw", 3), dmg("t", "pw", 2), dmg("t", "B", 1)).outcome
    assert out.players["B"].life == 19 and "pw" in out.destroyed
    assert not check_line(board, fs("t", "pw", 3), dmg("t", "pw", 1), dmg("t", "B", 2)).legal
    assert solved(board, ["player_damage", "loyalty"]).objective == {"player_damage": 1, "loyalty": 5}


def test_510_1d_a_blocker_whose_attacker_died_in_the_first_step_damages_only_the_one_left():
    """510.1d across 510.4: A's 2/2 a is blocked by B's 2/2 first striker f and B's 3/3 g, which also
    blocks A's 3/3 x. Step one: f's 2 kills a. Step two: g blocks only x now: all 3 to x (dies, 3 >= 3);
    x's 3 kills g. Alone, a line with g's damage on the dead a is illegal. For A: survivors 0."""
    board = make_board(attacker("a", 2, 2), attacker("x", 3, 3),
                       blocker("f", 2, 2, "a", "first strike"), blocker("g", 3, 3, ["a", "x"]))
    out = check_line(board, fs("f", "a", 2), dmg("x", "g", 3), dmg("g", "x", 3)).outcome
    assert {"a", "x", "g"} <= set(out.destroyed)
    assert not check_line(board, fs("f", "a", 2), dmg("x", "g", 3), dmg("g", "a", 3)).legal
    assert solved(board, ["survivors"]).objective == {"survivors": 0}


def test_702_2b_deathtouch_wither_or_infect_damage_still_destroys():
    """702.2b / 704.5h with 120.3d: damage from a deathtouch source that becomes -1/-1 counters is still
    damage dealt: A's 1/1 deathtouch wither (and deathtouch infect) blocked by B's 0/5: one counter
    (0/4) and destroyed. kills 1."""
    for kw in ("wither", "infect"):
        board = make_board(attacker("d", 1, 1, "B", "deathtouch", kw), blocker("b", 0, 5, "d"))
        out = check_line(board, dmg("d", "b", 1)).outcome
        assert out.creatures["b"].minus_counters == 1 and out.creatures["b"].destroyed
        assert solved(board, ["kills"]).objective == {"kills": 1}


def test_704_6c_commander_damage_counts_per_commander():
    """903.10a / 704.6c: 21 from the same commander. B has 15 from c1 and 5 from c2; c2 (2/2) deals 2:
    c1 15, c2 7 (22 in all, 21 from neither): B does not lose; lethal 0."""
    board = make_board(attacker("c2", 2, 2, "B", commander=True),
                       players=[player("A"), player("B", commander_damage={"c1": 15, "c2": 5})])
    out = check_line(board, dmg("c2", "B", 2)).outcome
    assert out.players["B"].commander_damage["c2"] == 7 and not out.players["B"].lost
    assert solved(board, ["lethal"]).objective == {"lethal": 0}


def test_702_19b_lethal_ignores_shields_and_adders():
    """702.19b: lethal ignores effects that change the damage dealt. A 4/4 trampler blocked by B's 0/3:
    * with +1 on A's damage, 2 assigned would be 3 dealt, but lethal is still 3: 3 + 1, B is dealt
      1 + 1 = 2;
    * with "prevent the next 2" on the 0/3, lethal is still 3 (not 5): 3 + 1, B is dealt 1."""
    for effect in ({"kind": "add", "amount": 1, "sources": {"controller": "A"}},
                   {"kind": "prevent", "amount": 2, "recipients": ["b"]}):
        board = make_board(attacker("t", 4, 4, "B", "trample"), blocker("b", 0, 3, "t"), effects=[effect])
        assert not check_line(board, dmg("t", "b", 2), dmg("t", "B", 2)).legal
        assert check_line(board, dmg("t", "b", 3), dmg("t", "B", 1)).legal
        assert solved(board, ["player_damage"]).objective["player_damage"] == (2 if effect["kind"] == "add" else 1)


def test_702_164b_total_toxic_value_sums_every_instance():
    """702.164b / 120.3g: toxic 1 (field) + "Toxic 2" + "Toxic 1": total toxic value 4. An unblocked 1/1
    with them deals 1 to B: 1 life lost and 4 poison (not 1, not 2)."""
    board = make_board(attacker("t", 1, 1, "B", "Toxic 2", "Toxic 1", toxic=1))
    out = check_line(board, dmg("t", "B", 1)).outcome
    assert out.players["B"].poison == 4 and out.players["B"].life == 19
