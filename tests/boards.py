"""Random small boards for property tests (a hypothesis strategy producing board JSON dicts)."""

from __future__ import annotations

import os
from typing import Any

from hypothesis import strategies as st

from optimizer.objectives import OBJECTIVES

DAMAGE_KEYWORDS = ["trample", "trample over planeswalkers", "deathtouch", "lifelink", "infect",
                   "wither", "indestructible"]
SPELLINGS = {"trample over planeswalkers": ["Trample over planeswalkers", "trample_over_planeswalkers",
                                            "Trample-Over-Planeswalkers"]}

EXAMPLES_FACTOR = int(os.environ.get("EXAMPLES_FACTOR", "1"))  # checked by conftest.pytest_configure
"""A multiplier of every property test's number of examples, for longer bug hunts:
``EXAMPLES_FACTOR=10 HYPOTHESIS_PROFILE=explore pytest tests/test_property_bruteforce.py``."""


def examples(n: int) -> int:
    """A property test's number of examples: ``n`` times :data:`EXAMPLES_FACTOR`."""
    return n * EXAMPLES_FACTOR


small_power = st.integers(min_value=-1, max_value=5).map(lambda n: n if n < 4 else n - 2)


STRIKES = ["first strike", "double strike", "First_strike", "double-strike"]


@st.composite
def creature_fields(draw: Any, cid: str, controller: str, tramples: bool = False,
                    strikes: bool = False) -> dict[str, Any]:
    toughness = draw(st.integers(1, 5))
    keywords = draw(st.lists(st.sampled_from(DAMAGE_KEYWORDS), max_size=3, unique=True))
    if strikes and draw(st.integers(0, 2)) > 0:
        keywords.append(draw(st.sampled_from(STRIKES)))
    if tramples and not {"trample", "trample over planeswalkers"} & set(keywords):
        keywords.append(draw(st.sampled_from(["trample", "trample over planeswalkers"])))
    keywords = [draw(st.sampled_from(SPELLINGS.get(k, [k]))) for k in keywords]
    indestructible = "indestructible" in keywords
    damage = draw(st.integers(0, toughness + 1 if indestructible else toughness - 1))
    out: dict[str, Any] = {"id": cid, "controller": controller, "power": draw(small_power),
                           "toughness": toughness}
    if damage:
        out["damage"] = damage
    if keywords:
        out["keywords"] = keywords
    if draw(st.integers(0, 2 if tramples else 4)) == 0:
        out["toxic"] = draw(st.integers(1, 2))
    if draw(st.booleans()):
        out["value"] = draw(st.integers(-1, 4))
    if draw(st.integers(0, 7)) == 0:
        out["assigns_damage_by_toughness"] = True
    if draw(st.integers(0, 4)) == 0:
        out["may_assign_as_though_unblocked"] = True
    return out


COLORS = ["white", "blue", "black", "red", "green"]


@st.composite
def effect_fields(draw: Any, board: dict[str, Any]) -> None:
    """Add colors, protection, banding and board effects (615, 616, 702.16, 702.22) to a board."""
    palette = draw(st.lists(st.sampled_from(COLORS), min_size=1, max_size=2, unique=True))
    creatures = board["creatures"]
    for c in creatures:
        if draw(st.integers(0, 2)) > 0:
            c["colors"] = draw(st.lists(st.sampled_from(palette), min_size=1, max_size=2, unique=True))
        if draw(st.integers(0, 4)) == 0:
            c["protection_from"] = draw(st.lists(st.sampled_from(palette + ["creatures", "everything"]),
                                                 min_size=1, max_size=2, unique=True))
        if draw(st.integers(0, 9)) == 0:
            c.setdefault("keywords", []).append("banding")
    for p in board["players"]:
        if draw(st.integers(0, 7)) == 0:
            p["protection_from"] = [draw(st.sampled_from(palette))]
    ids = [c["id"] for c in creatures]
    everything = ids + [p["id"] for p in board["players"]] + [w["id"] for w in board.get("planeswalkers", [])]

    def selector(pool: list[str]) -> Any:
        pick = draw(st.integers(0, 3))
        if pick == 0:
            return "all"
        if pick == 1:
            return {"controller": draw(st.sampled_from([p["id"] for p in board["players"]]))}
        return draw(st.lists(st.sampled_from(pool), min_size=1, max_size=2, unique=True))

    effects = []
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["prevent", "shield", "double", "add", "cant_be_prevented"]))
        effect: dict[str, Any] = {"kind": "prevent" if kind == "shield" else kind}
        if kind == "shield":
            effect["amount"] = draw(st.integers(1, 3))
            effect["recipients"] = [draw(st.sampled_from(everything))]
        elif kind == "add":
            effect["amount"] = draw(st.integers(1, 2))
        if draw(st.booleans()):
            effect["sources"] = selector(ids)
        if kind != "shield" and draw(st.booleans()):
            effect["recipients"] = selector(everything)
        effects.append(effect)
    if effects:
        board["effects"] = effects


@st.composite
def boards(draw: Any, max_attackers: int = 3, max_blockers: int = 4, pressure: bool = False,
           strikes: bool = False, effects: bool = False, max_defenders: int = 3) -> dict[str, Any]:
    """A legal board: up to 3 attackers, 4 blockers (some blocking two), planeswalkers and battles.

    With ``pressure`` attackers trample, planeswalkers are common and life totals low, so that
    damage past blockers, loyalty, poison and lethal decide the optimum more often.
    """
    defenders = draw(st.sampled_from([d for d in (["B"], ["B"], ["B"], ["B", "C"], ["B", "C", "D"])
                                      if len(d) <= max_defenders]))
    players = [{"id": "A", "life": draw(st.integers(1, 20))}]
    max_life = 6 if pressure else 12
    for d in defenders:
        players.append({"id": d, "life": draw(st.integers(1, max_life)), "poison": draw(st.integers(0, 9))})
    planeswalkers = []
    if pressure or draw(st.booleans()):
        planeswalkers.append({"id": "pw", "controller": draw(st.sampled_from(defenders)),
                              "loyalty": draw(st.integers(1, 5))})
        if draw(st.integers(0, 5)) == 0:
            planeswalkers[0]["removed_from_combat"] = True
    battles = []
    if draw(st.integers(0, 3)) == 0:
        protector = draw(st.sampled_from(defenders))
        controller = draw(st.sampled_from(["A"] + [d for d in defenders if d != protector]))
        battles.append({"id": "siege", "controller": controller, "protector": protector,
                        "defense": draw(st.integers(1, 5))})
        if draw(st.integers(0, 5)) == 0:
            battles[0]["removed_from_combat"] = True
    targets = defenders + [w["id"] for w in planeswalkers] + [b["id"] for b in battles]
    defender_of = {d: d for d in defenders}
    defender_of.update({w["id"]: w["controller"] for w in planeswalkers})
    defender_of.update({b["id"]: b["protector"] for b in battles})

    creatures = []
    attackers = []
    for i in range(draw(st.integers(1, max_attackers))):
        c = draw(creature_fields(f"a{i + 1}", "A", tramples=pressure and draw(st.integers(0, 3)) > 0,
                                 strikes=strikes))
        c["attacking"] = draw(st.sampled_from(targets))
        if draw(st.integers(0, 3)) == 0:
            c["commander"] = True
            target_player = defender_of[c["attacking"]]
            damage_so_far = draw(st.integers(0, 20))
            if damage_so_far:
                for p in players:
                    if p["id"] == target_player:
                        p.setdefault("commander_damage", {})[c["id"]] = damage_so_far
        creatures.append(c)
        attackers.append(c)
    for i in range(draw(st.integers(0, max_blockers))):
        first = draw(st.sampled_from(attackers))
        defender = defender_of[first["attacking"]]
        c = draw(creature_fields(f"b{i + 1}", defender, strikes=strikes))
        same_side = [a["id"] for a in attackers if defender_of[a["attacking"]] == defender and a is not first]
        blocking = [first["id"]]
        if same_side and draw(st.integers(0, 2)) == 0:
            blocking += draw(st.lists(st.sampled_from(same_side), min_size=1, max_size=2, unique=True))
        c["blocking"] = blocking
        creatures.append(c)
    blocked = {a for c in creatures for a in c.get("blocking", [])}
    for a in attackers:
        if a["id"] not in blocked and draw(st.integers(0, 6)) == 0:
            a["blocked"] = True
    order = draw(st.permutations(players))  # turn order need not start with the active player
    board: dict[str, Any] = {"active_player": "A", "players": list(order), "creatures": creatures}
    if planeswalkers:
        board["planeswalkers"] = planeswalkers
    if battles:
        board["battles"] = battles
    if effects:
        draw(effect_fields(board))
    return board


objectives = st.lists(st.sampled_from(sorted(OBJECTIVES)), min_size=1, max_size=4, unique=True)


PERSONAL = ("lifelink", "deathtouch", "infect", "wither")


@st.composite
def shield_boards(draw: Any, first_strike: bool = False) -> dict[str, Any]:
    """Boards with "prevent the next N" shields, most on the defending player, often reached by
    several sources at once (615.7); half of them without the abilities that make it matter which
    damage a shield prevents. ``first_strike``: always with first strikers, most shields on
    creatures (what both damage steps reach), half of the boards with a doubler or an addition."""
    board = draw(boards(max_blockers=draw(st.integers(0, 3)), strikes=first_strike or draw(st.booleans()),
                        effects=draw(st.booleans()), pressure=draw(st.booleans())))
    ids = ([c["id"] for c in board["creatures"]] + [p["id"] for p in board["players"]]
           + [w["id"] for w in board.get("planeswalkers", [])])
    likely = [c["id"] for c in board["creatures"]] if first_strike else ["B"]
    shields = []
    for _ in range(draw(st.integers(1, 3))):
        shield = {"kind": "prevent", "amount": draw(st.integers(1, 5)),
                  "recipients": [draw(st.sampled_from(ids + likely * len(ids)))]}
        if draw(st.integers(0, 3)) == 0:
            shield["sources"] = [draw(st.sampled_from([c["id"] for c in board["creatures"]]))]
        shields.append(shield)
    if first_strike and draw(st.booleans()):  # effects whose order the affected player chooses (616.1)
        modifier = draw(st.sampled_from([{"kind": "double"}, {"kind": "add", "amount": 1}]))
        if draw(st.booleans()):
            modifier["sources"] = {"controller": draw(st.sampled_from(["A", "B"]))}
        shields.append(modifier)
    board["effects"] = board.get("effects", []) + shields
    if draw(st.booleans()):
        for c in board["creatures"]:
            c["keywords"] = [k for k in c.get("keywords", []) if k.lower() not in PERSONAL]
            c.pop("toxic", None)
            c.pop("commander", None)
        for p in board["players"]:
            p.pop("commander_damage", None)
    return board


@st.composite
def effect_order_boards(draw: Any) -> dict[str, Any]:
    """Boards where the order of a doubler and an addition decides a fate (616.1): both apply to the
    damage dealt to one creature or player, whose toughness or life sits between what the two orders
    deal, and creatures are often worth less than nothing, so the affected player may want either
    order; one or two damage steps."""
    board = draw(boards(max_attackers=2, max_blockers=2, strikes=draw(st.booleans()), max_defenders=1))
    for c in board["creatures"]:
        if draw(st.booleans()):
            c["value"] = draw(st.integers(-3, 3))
        c.pop("damage", None)
    ids = [c["id"] for c in board["creatures"]] + ["B"]
    target = draw(st.sampled_from(ids))
    board["effects"] = [{"kind": "double", "recipients": [target]},
                        {"kind": "add", "amount": draw(st.integers(1, 2)), "recipients": [target]}]
    if draw(st.booleans()):
        board["effects"].reverse()  # board order is the default a checker applies: either one
    for c in board["creatures"]:
        if c["id"] == target:
            c["toughness"] = draw(st.integers(3, 8))
    for player in board["players"]:
        if player["id"] == target:
            player["life"] = draw(st.integers(3, 8))
    return board


@st.composite
def banding_boards(draw: Any, both_sides: bool = False) -> dict[str, Any]:
    """Boards where a third of the creatures have banding (702.22j-k), often with first strike.
    ``both_sides``: two players, half the creatures with banding and half with double strike, so
    that first-strike damage divided by each side decides whether the other side's division
    changes hands."""
    if both_sides:
        board = draw(boards(strikes=True, effects=draw(st.booleans()), pressure=draw(st.booleans()),
                            max_defenders=1))
    else:
        board = draw(boards(strikes=draw(st.booleans()), effects=draw(st.booleans()), pressure=draw(st.booleans())))
    for c in board["creatures"]:
        if draw(st.integers(0, 1 if both_sides else 2)) == 0:
            c.setdefault("keywords", []).append("banding")
        if both_sides and draw(st.booleans()):
            c.setdefault("keywords", []).append("double strike")
    return board


@st.composite
def lifelink_blocker_boards(draw: Any) -> dict[str, Any]:
    """Boards where a lifelink creature blocks two or more attackers and its damage dealt depends on
    where it goes (protection from its color, prevention, doubling or an addition on one attacker),
    often with its player's life low, so its gain can decide whether it loses."""
    board = draw(boards(max_attackers=3, max_blockers=3, strikes=draw(st.booleans()),
                        effects=draw(st.booleans()), pressure=draw(st.booleans())))
    multi = [c for c in board["creatures"] if len(c.get("blocking", [])) >= 2]
    if not multi:  # add one: a blocker of an attacker and of a new attacker beside it
        first = draw(st.sampled_from([c for c in board["creatures"] if c.get("attacking")]))
        target = first["attacking"]
        defender = next((w["controller"] for w in board.get("planeswalkers", []) if w["id"] == target),
                        next((b["protector"] for b in board.get("battles", []) if b["id"] == target), target))
        board["creatures"].append({"id": "a9", "controller": "A", "power": draw(st.integers(1, 3)),
                                   "toughness": draw(st.integers(1, 3)), "attacking": target})
        board["creatures"].append({"id": "b9", "controller": defender, "power": draw(st.integers(1, 3)),
                                   "toughness": draw(st.integers(1, 3)), "blocking": [first["id"], "a9"]})
        multi = [board["creatures"][-1]]
    blocker = draw(st.sampled_from(multi))
    blocker.setdefault("keywords", []).append("lifelink")
    blocker["power"] = max(blocker["power"], draw(st.integers(1, 4)))
    victim = draw(st.sampled_from(blocker["blocking"]))
    kind = draw(st.sampled_from(["protection", "prevent", "double", "add"]))
    if kind == "protection":
        color = draw(st.sampled_from(COLORS))
        blocker["colors"] = [color]
        attacker = next(c for c in board["creatures"] if c["id"] == victim)
        attacker["protection_from"] = sorted(set(attacker.get("protection_from", [])) | {color})
    else:
        effect = {"prevent": {"kind": "prevent", "amount": None, "recipients": [victim]},
                  "double": {"kind": "double", "sources": [blocker["id"]], "recipients": [victim]},
                  "add": {"kind": "add", "amount": draw(st.integers(1, 2)), "sources": [blocker["id"]]}}[kind]
        board["effects"] = board.get("effects", []) + [effect]
    return board


@st.composite
def lifelink_and_banding_boards(draw: Any) -> dict[str, Any]:
    """Two-player boards where B (low on life, facing an unblocked attacker) divides a white lifelink
    blocker's damage between an attacker with protection from white and another (its gain depends on
    the division), while a blocker with banding makes B divide a third attacker's damage (702.22j):
    often a first or double striker, so first-strike damage may end that division, and often blocked
    by a creature that also blocks the second attacker, so that both players divide its damage. A
    third of the time the second attacker has banding, so A divides the lifelink blocker's damage
    (702.22k), at times only until a first striker kills that attacker."""
    power, toughness = st.integers(0, 4), st.integers(1, 4)

    def keywords() -> list[str]:
        return draw(st.lists(st.sampled_from(["trample", "deathtouch", "first strike", "double strike",
                                              "lifelink", "wither"]), max_size=2, unique=True))

    third = draw(st.sampled_from([[], ["first strike"], ["double strike"], ["double strike"]]))
    creatures = [
        {"id": "a1", "controller": "A", "power": draw(power), "toughness": draw(toughness), "attacking": "B",
         "protection_from": ["white"], "keywords": keywords()},
        {"id": "a2", "controller": "A", "power": draw(power), "toughness": draw(toughness), "attacking": "B",
         "keywords": keywords()},
        {"id": "a3", "controller": "A", "power": draw(st.integers(1, 5)), "toughness": draw(toughness),
         "attacking": "B", "keywords": third + draw(st.lists(st.just("trample"), max_size=1))},
        {"id": "l", "controller": "B", "power": draw(st.integers(1, 4)), "toughness": draw(toughness),
         "blocking": ["a1", "a2"], "colors": ["white"],
         "keywords": ["lifelink"] + draw(st.lists(st.sampled_from(["first strike", "deathtouch"]), max_size=1))},
        {"id": "k", "controller": "B", "power": draw(power), "toughness": draw(toughness), "blocking": ["a3"],
         "keywords": ["banding"]},
    ]
    if draw(st.integers(0, 3)):
        creatures.append({"id": "z", "controller": "B", "power": draw(power), "toughness": draw(toughness),
                          "blocking": ["a3"] + (["a2"] if draw(st.booleans()) else []), "keywords": keywords()})
    if draw(st.integers(0, 3)):
        creatures.append({"id": "u", "controller": "A", "power": draw(st.integers(1, 4)), "toughness": 2,
                          "attacking": "B", "keywords": keywords()})
    if draw(st.integers(0, 2)) == 0:  # A divides the lifelink blocker's damage (702.22k) ...
        creatures[1]["keywords"].append("banding")
        if draw(st.booleans()):  # ... until a first striker may kill the attacker with banding
            creatures.append({"id": "f", "controller": "B", "power": draw(st.integers(1, 3)),
                              "toughness": draw(toughness), "blocking": ["a2"], "keywords": ["first strike"]})
    return {"active_player": "A", "players": [{"id": "A", "life": 20}, {"id": "B", "life": draw(st.integers(1, 8))}],
            "creatures": creatures}


@st.composite
def two_players(draw: Any) -> tuple[dict[str, Any], list[str]]:
    """A board of players ``A`` (active) and ``B``, sometimes with a planeswalker of B's, and what
    A's creatures may attack."""
    players = [{"id": "A", "life": draw(st.integers(1, 20))},
               {"id": "B", "life": draw(st.integers(1, 12)), "poison": draw(st.integers(0, 9))}]
    targets = ["B"]
    board: dict[str, Any] = {"active_player": "A", "players": players}
    if draw(st.booleans()):
        board["planeswalkers"] = [{"id": "pw", "controller": "B", "loyalty": draw(st.integers(1, 5))}]
        targets.append("pw")
    return board, targets


@st.composite
def separable_boards(draw: Any, effects: bool = False) -> dict[str, Any]:
    """Two players and two damage steps where the active player's first-strike damage mostly cannot
    change the defender's regular step: first strikers unblocked or blocked by first-strike-only
    blockers of their own, and a second group of attackers, the first of whose blockers blocks two."""
    board, targets = draw(two_players())
    creatures: list[dict[str, Any]] = []
    for i in range(draw(st.integers(1, 2))):  # first strikers, each with its own first-strike blockers
        a = draw(creature_fields(f"f{i + 1}", "A"))
        a["keywords"] = a.get("keywords", []) + [draw(st.sampled_from(["first strike", "double strike"]))]
        a["attacking"] = draw(st.sampled_from(targets))
        creatures.append(a)
        for j in range(draw(st.integers(0, 2))):
            b = draw(creature_fields(f"g{i + 1}{j + 1}", "B"))
            b["keywords"] = b.get("keywords", []) + ["first strike"]
            b["blocking"] = [a["id"]]
            creatures.append(b)
    others = []
    for i in range(draw(st.integers(2, 3))):
        a = draw(creature_fields(f"a{i + 1}", "A"))
        a["attacking"] = draw(st.sampled_from(targets))
        others.append(a)
    creatures += others
    for i in range(draw(st.integers(1, 3))):
        b = draw(creature_fields(f"b{i + 1}", "B"))
        b["blocking"] = draw(st.lists(st.sampled_from([a["id"] for a in others]), min_size=1 + (i == 0),
                                      max_size=2, unique=True))
        creatures.append(b)
    board["creatures"] = creatures
    if effects:
        draw(effect_fields(board))
    return board


@st.composite
def forced_lead_boards(draw: Any, effects: bool = False) -> dict[str, Any]:
    """Two players and two damage steps where the active player's first strikers have one recipient
    each (unblocked, or blocked by one creature, without trample) and the defender divides damage:
    its first blocker blocks two attackers, and first-strike blockers give it first-step choices."""
    board, targets = draw(two_players())
    attackers = []
    for i in range(draw(st.integers(2, 3))):
        a = draw(creature_fields(f"a{i + 1}", "A", strikes=True))
        keywords = [k for k in a.get("keywords", []) if "rample" not in k]
        if i == 0 and not any("strike" in k for k in keywords):
            keywords.append(draw(st.sampled_from(["first strike", "double strike"])))
        a["keywords"] = keywords
        a.pop("may_assign_as_though_unblocked", None)
        a["attacking"] = draw(st.sampled_from(targets))
        attackers.append(a)
    striking = {a["id"] for a in attackers if any("strike" in k for k in a["keywords"])}
    blocked: set[str] = set()
    creatures = list(attackers)
    for i in range(draw(st.integers(1, 3))):
        b = draw(creature_fields(f"b{i + 1}", "B", strikes=True))
        free = [a["id"] for a in attackers if a["id"] not in striking or a["id"] not in blocked]
        if len(free) < 1 + (i == 0):
            break
        b["blocking"] = draw(st.lists(st.sampled_from(free), min_size=1 + (i == 0), max_size=2, unique=True))
        blocked.update(b["blocking"])
        creatures.append(b)
    board["creatures"] = creatures
    if effects:
        draw(effect_fields(board))
    return board


@st.composite
def indifferent_boards(draw: Any, effects: bool = False) -> dict[str, Any]:
    """Two players and two damage steps where the defender's only choices are regular-step divisions:
    its first blocker blocks two attackers and strikes only in the regular step, and each of its other
    blockers blocks one attacker (with first strike or not), so its first step is forced."""
    board, targets = draw(two_players())
    attackers = []
    for i in range(draw(st.integers(2, 3))):
        a = draw(creature_fields(f"a{i + 1}", "A", strikes=True))
        if i == 0 and not any("strike" in k.lower() for k in a.get("keywords", [])):
            a["keywords"] = a.get("keywords", []) + [draw(st.sampled_from(["first strike", "double strike"]))]
        a["attacking"] = draw(st.sampled_from(targets))
        attackers.append(a)
    ids = [a["id"] for a in attackers]
    first = draw(creature_fields("b1", "B"))
    first["keywords"] = [k for k in first.get("keywords", []) if "strike" not in k.lower()]
    first["blocking"] = draw(st.lists(st.sampled_from(ids), min_size=2, max_size=2, unique=True))
    creatures = attackers + [first]
    for i in range(draw(st.integers(0, 2))):
        b = draw(creature_fields(f"b{i + 2}", "B", strikes=True))
        b["blocking"] = [draw(st.sampled_from(ids))]
        creatures.append(b)
    board["creatures"] = creatures
    if effects:
        draw(effect_fields(board))
    return board


@st.composite
def forced_second_step_boards(draw: Any) -> dict[str, Any]:
    """Two players and two damage steps where the defender divides first-strike damage (its first
    blocker has first strike only and blocks two attackers) and many first steps leave a regular
    step in which nobody has a choice: no trample, no "as though unblocked", every other blocker on
    one attacker, and an attacker with two blockers only while one of them may die first."""
    board, targets = draw(two_players())
    attackers = []
    for i in range(draw(st.integers(2, 3))):
        a = draw(creature_fields(f"a{i + 1}", "A", strikes=True))
        a["keywords"] = [k for k in a.get("keywords", []) if "rample" not in k]
        a.pop("may_assign_as_though_unblocked", None)
        a["attacking"] = draw(st.sampled_from(targets))
        attackers.append(a)
    first = draw(creature_fields("b1", "B"))
    first["keywords"] = [k for k in first.get("keywords", []) if "strike" not in k.lower()] + ["first strike"]
    first["power"] = draw(st.integers(1, 4))
    first["blocking"] = [a["id"] for a in attackers[:2]]
    creatures = attackers + [first]
    for i, a in enumerate(attackers):
        if draw(st.integers(0, 2)) == 0 and (i >= 2 or draw(st.booleans())):
            b = draw(creature_fields(f"b{i + 2}", "B", strikes=True))
            b["blocking"] = [a["id"]]
            creatures.append(b)
    board["creatures"] = creatures
    return board


@st.composite
def reply_piece(draw: Any) -> dict[str, Any]:
    """A small combat where the defender divides first-strike damage: its first blocker has first or
    double strike and blocks both attackers (more blockers, keywords and amounts at random)."""
    defender = draw(st.sampled_from(["B", "B", "C"]))
    attackers = [draw(creature_fields(f"a{i + 1}", "A", strikes=True)) for i in range(2)]
    for a in attackers:
        a["attacking"] = defender
    first = draw(creature_fields("b1", defender, strikes=True))
    first["keywords"] = [k for k in first.get("keywords", []) if "strike" not in k.lower()] + [
        draw(st.sampled_from(["first strike", "double strike"]))]
    first["power"] = draw(st.integers(1, 4))
    first.pop("assigns_damage_by_toughness", None)
    first["blocking"] = [a["id"] for a in attackers]
    creatures = attackers + [first]
    if draw(st.booleans()):
        other = draw(creature_fields("b2", defender, strikes=True))
        other["blocking"] = [draw(st.sampled_from(attackers))["id"]]
        creatures.append(other)
    return {"active_player": "A", "players": [{"id": "A"}, {"id": defender}], "creatures": creatures}


@st.composite
def split_boards(draw: Any, effects: bool = False) -> dict[str, Any]:
    """Two or three small combats side by side on one board: no creature of one blocks a creature
    of another or attacks the same planeswalker or battle, and life totals are high enough that no
    player can lose. Most have the defender dividing first-strike damage, so that the solver solves
    each on its own (``optimizer.parts``); the first may be any small board."""
    count = draw(st.integers(2, 3))
    pieces = [draw(boards(max_attackers=2, max_blockers=2, strikes=True, effects=effects))
              if k == 0 and draw(st.booleans()) else draw(reply_piece()) for k in range(count)]
    players: dict[str, dict[str, Any]] = {}
    merged: dict[str, Any] = {"active_player": "A", "creatures": [], "planeswalkers": [], "battles": []}
    for k, piece in enumerate(pieces):
        suffix = "" if k == 0 else f"_{k}"
        renamed = {c["id"]: c["id"] + suffix for c in piece["creatures"]}
        renamed.update({o["id"]: o["id"] + suffix for kind in ("planeswalkers", "battles")
                        for o in piece.get(kind, [])})
        for p in piece["players"]:
            players.setdefault(p["id"], {"id": p["id"], "life": 500})
        for kind in ("planeswalkers", "battles"):
            merged[kind] += [dict(o, id=renamed[o["id"]]) for o in piece.get(kind, [])]
        for c in piece["creatures"]:
            c = dict(c, id=renamed[c["id"]])
            c.pop("commander", None)
            if "attacking" in c:
                c["attacking"] = renamed.get(c["attacking"], c["attacking"])
            if "blocking" in c:
                c["blocking"] = [renamed[a] for a in c["blocking"]]
            merged["creatures"].append(c)
        if k == 0:  # its effects and protection name its own ids, which keep their names
            merged["effects"] = piece.get("effects", [])
            for p in piece["players"]:
                if "protection_from" in p:
                    players[p["id"]]["protection_from"] = p["protection_from"]
    merged["players"] = list(players.values())
    return {k: v for k, v in merged.items() if v or k in ("creatures", "players")}
