"""Card effects that change how a creature assigns combat damage (no Comprehensive Rules number:
card text overrides 510.1a/510.1c, 101.1). Expected answers are worked out by hand.

* ``assigns_damage_by_toughness`` (Doran, the Siege Tower): the amount is its toughness, not its power;
  -1/-1 counters lower it like they lower toughness.
* ``may_assign_as_though_unblocked`` (Thorn Elemental): a blocked creature assigns either normally or
  all of its damage as though it weren't blocked, never a split; a way with no recipient assigns nothing;
  whoever divides its damage chooses the way (the defending player under banding, 702.22j).
"""

from __future__ import annotations

from scenarios import attacker, battle, blocker, check_line, make_board, planeswalker, player, solved

THORN = {"may_assign_as_though_unblocked": True}
DORAN = {"assigns_damage_by_toughness": True}


def dmg(source: str, target: str, amount: int, step: str = "regular") -> dict:
    return {"step": step, "source": source, "target": target, "amount": amount}


def test_doran_unblocked_attacker_deals_its_toughness():
    """A 0/4 assigning by toughness hits B for 4 (510.1a: power 0 would assign nothing)."""
    board = make_board(attacker("wall", 0, 4, "B", **DORAN))
    result = solved(board, ["player_damage"])
    assert result.objective == {"player_damage": 4}
    assert result.outcome.players["B"].life == 16


def test_doran_blocker_deals_its_toughness_and_the_checker_wants_all_of_it():
    """A 1/5 blocker assigning by toughness deals 5 to the 4/4 it blocks and kills it; 1 is illegal."""
    board = make_board(attacker("a", 4, 4, "B"), blocker("b", 1, 5, "a", **DORAN))
    assert check_line(board, dmg("a", "b", 4), dmg("b", "a", 5)).legal
    assert "510.1a" in {v.rule for v in check_line(board, dmg("a", "b", 4), dmg("b", "a", 1)).violations}
    assert solved(board, ["survivors"]).objective == {"survivors": 0}


def test_doran_amount_shrinks_with_minus_counters_between_steps():
    """510.4, 120.3d: a 2/5 first-strike wither attacker puts two -1/-1 counters on a 0/4 blocker that
    assigns by toughness; in the regular step it is -2/2 and deals 2, not 4, so the attacker lives."""
    board = make_board(attacker("a", 2, 5, "B", "first strike", "wither"), blocker("b", 0, 4, "a", **DORAN))
    result = solved(board, ["survivors"])
    assert result.outcome.creatures["a"].damage == 2
    assert result.outcome.creatures["b"].minus_counters == 2
    assert result.objective == {"survivors": 1}


def test_thorn_chooses_the_player_or_the_blocker_by_objective():
    """A blocked 7/7 Thorn Elemental: all 7 to B as though unblocked, or all 7 to the 2/2 blocker."""
    board = make_board(attacker("thorn", 7, 7, "B", **THORN), blocker("b", 2, 2, "thorn"))
    assert solved(board, ["player_damage"]).objective == {"player_damage": 7}
    assert solved(board, ["kills", "player_damage"]).objective == {"kills": 1, "player_damage": 0}


def test_thorn_never_splits():
    """Normal assignment (all to the blocker) or as though unblocked (all to B), nothing in between."""
    board = make_board(attacker("thorn", 7, 7, "B", **THORN), blocker("b", 2, 2, "thorn"))
    blocker_hit = [dmg("b", "thorn", 2)]
    assert check_line(board, dmg("thorn", "B", 7), *blocker_hit).legal
    assert check_line(board, dmg("thorn", "b", 7), *blocker_hit).legal
    split = check_line(board, dmg("thorn", "b", 2), dmg("thorn", "B", 5), *blocker_hit)
    assert not split.legal and "510.1c" in {v.rule for v in split.violations}


def test_thorn_with_trample_splits_only_past_lethal():
    """With trample the normal way allows 2 + 5 (702.19b); 1 + 6 is neither way."""
    board = make_board(attacker("thorn", 7, 7, "B", "trample", **THORN), blocker("b", 2, 2, "thorn"))
    hit = dmg("b", "thorn", 2)
    assert check_line(board, dmg("thorn", "b", 2), dmg("thorn", "B", 5), hit).legal
    bad = check_line(board, dmg("thorn", "b", 1), dmg("thorn", "B", 6), hit)
    assert not bad.legal and "702.19b" in {v.rule for v in bad.violations}


def test_thorn_whose_blockers_left_may_hit_the_player_or_nothing():
    """Blocked with no blockers left: normally nothing (510.1c), as though unblocked all to B."""
    board = make_board(attacker("thorn", 4, 4, "B", blocked=True, **THORN))
    assert check_line(board, dmg("thorn", "B", 4)).legal
    assert check_line(board).legal
    assert not check_line(board, dmg("thorn", "B", 2)).legal
    assert solved(board, ["player_damage"]).objective == {"player_damage": 4}


def test_thorn_attacking_a_planeswalker_that_left_may_hit_its_blocker_or_nothing():
    """506.4c: as though unblocked it attacks nothing, so assigns nothing; normally all to the blocker."""
    board = make_board(attacker("thorn", 4, 4, "pw", **THORN), blocker("b", 1, 1, "thorn"),
                       planeswalkers=[planeswalker("pw", 3, removed_from_combat=True)])
    hit = dmg("b", "thorn", 1)
    assert check_line(board, dmg("thorn", "b", 4), hit).legal
    assert check_line(board, hit).legal
    assert not check_line(board, dmg("thorn", "pw", 4), hit).legal


def test_thorn_with_trample_over_planeswalkers_as_though_unblocked():
    """702.19c as though unblocked: 3 to the 3-loyalty planeswalker, 4 past it to B, 0 to the blocker."""
    board = make_board(attacker("thorn", 7, 7, "pw", "trample over planeswalkers", **THORN),
                       blocker("b", 0, 9, "thorn"), planeswalkers=[planeswalker("pw", 3)])
    assert check_line(board, dmg("thorn", "pw", 3), dmg("thorn", "B", 4)).legal
    assert not check_line(board, dmg("thorn", "pw", 2), dmg("thorn", "B", 5)).legal
    result = solved(board, ["player_damage", "loyalty"])
    assert result.objective == {"player_damage": 4, "loyalty": 3}


def test_thorn_assigning_nothing_is_a_plan_the_attacker_may_keep_between_steps():
    """510.1d, 510.4, 506.4c. A 1/1 double-strike blocker blocks two Thorns: "t" (1/1, attacking B)
    and "u" (1/2, attacking a battle that left combat, also blocked by a 0/1). In the first-strike
    step the defender's 1 damage goes to one Thorn:

    * to "t": it dies (1 >= 1), and "u" cannot reach B: as though unblocked it attacks nothing,
      normally it hits a blocker. 0 damage to B.
    * to "u": it survives (1 < 2), and "t" as though unblocked deals 1 to B while "u" assigns
      nothing. 1 damage to B.

    The defender takes the first: 0. The second line is legal, "u" assigning nothing at all.
    """
    board = make_board(attacker("t", 1, 1, "B", **THORN), attacker("u", 1, 2, "siege", **THORN),
                       blocker("ds", 1, 1, ["t", "u"], "double strike"), blocker("wall", 0, 1, "u"),
                       battles=[battle("siege", 3, removed_from_combat=True)])
    assert check_line(board, dmg("ds", "u", 1, "first_strike"), dmg("t", "B", 1), dmg("ds", "t", 1)).legal
    assert check_line(board, dmg("ds", "t", 1, "first_strike"), dmg("ds", "u", 1)).legal
    assert solved(board, ["player_damage"]).objective == {"player_damage": 0}
    assert solved(board, ["kills", "player_damage"]).objective == {"kills": 1, "player_damage": 0}


def test_thorn_whose_blockers_left_may_spare_a_player_for_the_decider_s_opponent():
    """509.1h, 510.1c, 510.4, with three players; C decides, and every other player plays against C.
    A's 1/1 first-strike trampler attacks C, and A's 0/1 attacks B's battle (C protects it); C's 2/1
    first striker blocks both. A's 2/1 Thorn attacks B (at 2 life), blocked with no blockers left.

    * First-strike step: the trampler must assign C's blocker lethal damage first, so all 1 to it;
      the blocker gives 1 to each attacker. All three die.
    * Regular step: the Thorn deals 2 to B as though unblocked (B loses: C's lethal counts it) or,
      normally, nothing. A takes nothing: 0 lethal, and C kills 2 (the two attackers).
    """
    board = make_board(
        attacker("a0", 0, 1, "siege"), attacker("a1", 1, 1, "C", "trample", "first strike"),
        attacker("a2", 2, 1, "B", blocked=True, **THORN), blocker("b1", 2, 1, ["a1", "a0"], "first strike", controller="C"),
        players=[player("A"), player("B", 2), player("C")],
        battles=[battle("siege", 2, protector="C", controller="B")])
    result = solved(board, ["lethal", "kills"], "C")
    assert result.objective == {"lethal": 0, "kills": 2}
    assert not any(a.source == "a2" for a in result.assignments)


def test_thorn_split_is_rejected_with_the_all_or_nothing_reason():
    """A blocked 5/5 Thorn splitting 2 to its 2/2 blocker and 3 to B breaks both ways: normally it
    cannot reach B (510.1c, no trample), as though unblocked it cannot reach the blocker. The message
    says why the way around it is not a split."""
    board = make_board(attacker("t", 5, 5, "B", **THORN), blocker("b", 2, 2, "t"))
    result = check_line(board, dmg("t", "b", 2), dmg("t", "B", 3), dmg("b", "t", 2))
    assert not result.legal
    messages = [v.message for v in result.violations if v.source == "t"]
    assert messages and any("never a split" in m and "all of its damage to B" in m for m in messages), messages


def test_thorn_attacking_a_planeswalker_removed_from_combat_may_assign_nothing():
    """506.4c: as though unblocked, a Thorn-style attacker on C's planeswalker that left combat has
    nothing to assign to, so it may assign nothing instead of all 3 to C's 1/1 blocker: a choice, even
    with one recipient. B decides (kills: A's and C's creatures destroyed), and A, replying worst for
    B, spares C's blocker; A deciding kills it."""
    board = make_board(attacker("thorn", 3, 3, "pw", **THORN), blocker("b", 1, 1, "thorn", controller="C"),
                       players=[player("A"), player("B"), player("C")],
                       planeswalkers=[planeswalker("pw", 4, controller="C", removed_from_combat=True)])
    assert check_line(board, dmg("b", "thorn", 1)).legal  # only the blocker's damage: Thorn assigns none
    assert check_line(board, dmg("thorn", "b", 3), dmg("b", "thorn", 1)).legal
    result = solved(board, ["kills"], "B")
    assert result.objective == {"kills": 0} and result.method == "cp-sat"
    assert solved(board, ["kills"], "A").objective == {"kills": 1}


def test_thorn_blocked_by_banding_the_defending_player_chooses_the_way():
    """702.22j and Thorn Elemental's rulings ("If blocked by a creature with banding, the defending
    player decides whether or not the damage is assigned 'as though it weren't blocked'"): A's 3/3
    deathtouch Thorn is blocked by B's 1/1 with banding and B's 5/5 worth 4. B divides its damage:
    among the blockers, where 1 deathtouch damage kills each, or all 3 to B itself, which kills
    nothing. B, replying worst for A, takes the 3; deciding, B does the same and its blockers kill
    the Thorn."""
    board = make_board(attacker("thorn", 3, 3, "B", "deathtouch", **THORN),
                       blocker("bander", 1, 1, "thorn", "banding"), blocker("big", 5, 5, "thorn", value=4))
    hits = [dmg("bander", "thorn", 1), dmg("big", "thorn", 5)]
    assert check_line(board, dmg("thorn", "B", 3), *hits).legal
    assert check_line(board, dmg("thorn", "bander", 1), dmg("thorn", "big", 2), *hits).legal
    split = check_line(board, dmg("thorn", "bander", 1), dmg("thorn", "B", 2), *hits)
    assert {v.rule for v in split.violations} == {"702.22j"}
    assert any("as though it weren't blocked" in v.message and "never a split" in v.message
               for v in split.violations)
    for decider, value in (("A", -1), ("B", 1)):
        result = solved(board, ["value", "player_damage"], decider)
        assert result.objective == {"value": value, "player_damage": 3 if decider == "A" else 0}
        assert dmg("thorn", "B", 3) in [a.to_dict() for a in result.assignments]
        assert result.method == "exhaustive"  # the encoding leaves this choice to the exhaustive search


def test_thorn_blocked_by_banding_that_dies_first_is_its_controller_s_choice_again():
    """702.22j ends with the banding blocker (510.4): a 1/1 first-strike deathtouch attacker of A's
    kills B's 1/1 banding blocker first, so in the regular step A divides its 4/4 Thorn's damage
    again, and sends all 4 to B as though unblocked rather than to the 6/6 blocker."""
    board = make_board(attacker("thorn", 4, 4, "B", **THORN), attacker("fs", 1, 1, "B", "first strike", "deathtouch"),
                       blocker("bander", 1, 1, ["thorn", "fs"], "banding"), blocker("wall", 0, 6, "thorn"))
    result = solved(board, ["player_damage"])
    assert result.objective == {"player_damage": 4}
    assert dmg("fs", "bander", 1, "first_strike") in [a.to_dict() for a in result.assignments]
