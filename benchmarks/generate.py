"""Deterministic random combat boards for benchmarks (board JSON dicts, seeded with random.Random).

Every board is accepted by :func:`optimizer.schema.load_board`. Two players: ``A`` attacks, ``B``
defends and controls one or two planeswalkers; ``A`` controls a battle that ``B`` protects. Every
keyword the optimizer supports appears: trample, trample over planeswalkers, deathtouch, lifelink,
infect, wither, indestructible, first strike, double strike (first strike is common, so most boards
have two damage steps), toxic and commander damage, plus marked damage, Thorn-style "may assign as
though unblocked" and Doran-style "assigns damage by toughness". Some blockers block two (large
boards: up to three) attackers, and attackers are often blocked by several creatures.

Sizes (see :data:`SIZES`):

* ``small``: up to 3 attackers, 4 blockers, power up to 5 (the property tests' size);
* ``typical``: up to 4 attackers, 6 blockers, power up to 8 (a real game's combat);
* ``medium``: 8 attackers, 12 blockers;
* ``large``: 20 attackers, 40 blockers, many-to-many blocks;
* ``effects``: typical boards with colors, protection, banding and damage effects (615, 616, 702.16,
  702.22).

``boards(size, count)`` is the entry point; the same (size, count, seed) always gives the same
boards, and the first n boards of a larger count are the boards of count n.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Size:
    """How to draw one board of a size class."""

    attackers: tuple[int, int]
    """(min, max) number of attackers."""
    blockers: tuple[int, int]
    """(min, max) number of blockers."""
    max_power: int
    blocks: tuple[float, ...]
    """Chance that a blocker blocks 1, 2, 3, ... attackers (when there are that many)."""
    planeswalkers: int = 1
    effects: bool = False
    """Colors, protection, banding and board damage effects too (see :func:`add_effects`)."""


SIZES: dict[str, Size] = {
    "small": Size((1, 3), (0, 4), 5, (0.8, 0.2)),
    "typical": Size((1, 4), (0, 6), 8, (0.75, 0.25)),
    "medium": Size((8, 8), (12, 12), 8, (0.7, 0.3)),
    "large": Size((20, 20), (40, 40), 8, (0.5, 0.35, 0.15), planeswalkers=2),
    "effects": Size((1, 4), (0, 6), 8, (0.75, 0.25), effects=True),
}

# chance per creature of each keyword (drawn independently)
KEYWORD_CHANCE = {
    "first strike": 0.22,
    "double strike": 0.10,
    "trample": 0.18,
    "trample over planeswalkers": 0.07,
    "deathtouch": 0.12,
    "lifelink": 0.10,
    "infect": 0.06,
    "wither": 0.06,
    "indestructible": 0.06,
}
STRIKES = ("first strike", "double strike")
TRAMPLES = ("trample", "trample over planeswalkers")


def _keywords(rng: random.Random, attacking: bool) -> list[str]:
    out = []
    for keyword, chance in KEYWORD_CHANCE.items():
        if keyword in TRAMPLES and not attacking:
            continue  # trample on a blocker changes nothing
        if rng.random() < chance:
            out.append(keyword)
    if "first strike" in out and "double strike" in out:
        out.remove("first strike")
    if "trample" in out and "trample over planeswalkers" in out:
        out.remove("trample")
    return out


def random_board(rng: random.Random, attackers: int, blockers: int, max_power: int,
                 blocks: tuple[float, ...] = (0.8, 0.2), planeswalkers: int = 1) -> dict[str, Any]:
    """A legal two-player board: ``attackers`` attacking creatures, ``blockers`` blocking ones."""
    players = [{"id": "A", "life": rng.randint(5, 20)},
               {"id": "B", "life": rng.randint(1, 20), "poison": rng.randint(0, 8)}]
    pws = [{"id": f"pw{i}", "controller": "B", "loyalty": rng.randint(1, 6)} for i in range(planeswalkers)]
    battles = [{"id": "siege", "controller": "A", "protector": "B", "defense": rng.randint(1, 6)}]
    targets = ["B"] * 6 + [w["id"] for w in pws] * 2 + ["siege"]

    def creature(cid: str, controller: str, attacking: bool) -> dict[str, Any]:
        toughness = rng.randint(1, max_power)
        power = 0 if rng.random() < 0.05 else rng.randint(1, max_power)
        keywords = _keywords(rng, attacking)
        c: dict[str, Any] = {"id": cid, "controller": controller, "power": power, "toughness": toughness,
                             "value": rng.randint(1, 5)}
        if keywords:
            c["keywords"] = keywords
        if "indestructible" not in keywords and toughness > 1 and rng.random() < 0.15:
            c["damage"] = rng.randint(1, toughness - 1)
        if rng.random() < 0.10:
            c["toxic"] = rng.randint(1, 2)
        if rng.random() < 0.03:
            c["assigns_damage_by_toughness"] = True
        return c

    creatures = []
    attacker_ids = []
    for i in range(attackers):
        c = creature(f"a{i}", "A", attacking=True)
        c["attacking"] = rng.choice(targets)
        if rng.random() < 0.04:
            c["may_assign_as_though_unblocked"] = True
        creatures.append(c)
        attacker_ids.append(c["id"])
    if attacker_ids and rng.random() < 0.25:  # one commander; some commander damage already dealt
        commander = rng.choice(creatures)
        commander["commander"] = True
        if rng.random() < 0.5:
            players[1]["commander_damage"] = {commander["id"]: rng.randint(1, 18)}
    for i in range(blockers):
        c = creature(f"b{i}", "B", attacking=False)
        k = 1 + _pick(rng, blocks)
        c["blocking"] = rng.sample(attacker_ids, k=min(k, len(attacker_ids)))
        creatures.append(c)
    return {"players": players, "planeswalkers": pws, "battles": battles, "creatures": creatures}


def _pick(rng: random.Random, weights: tuple[float, ...]) -> int:
    x = rng.random() * sum(weights)
    for i, w in enumerate(weights):
        x -= w
        if x < 0:
            return i
    return len(weights) - 1


COLORS = ("white", "blue", "black", "red", "green")


def add_effects(rng: random.Random, board: dict[str, Any]) -> None:
    """Colors (two of the five in play), protection (12% of creatures, 10% of players), banding (10% of
    creatures) and up to three board effects: prevent all, a "prevent the next N" shield on one
    recipient, doubling, additions, can't be prevented; sources and recipients all, one controller's,
    or one or two ids."""
    palette = rng.sample(COLORS, 2)
    creatures = board["creatures"]
    for c in creatures:
        if rng.random() < 0.6:
            c["colors"] = rng.sample(palette, rng.randint(1, 2))
        if rng.random() < 0.12:
            c["protection_from"] = [rng.choice(palette + ["creatures"])]
        if rng.random() < 0.10:
            c.setdefault("keywords", []).append("banding")
    for p in board["players"]:
        if rng.random() < 0.10:
            p["protection_from"] = [rng.choice(palette)]
    ids = [c["id"] for c in creatures]
    players = [p["id"] for p in board["players"]]
    recipients = ids + players + [w["id"] for w in board["planeswalkers"]]

    def selector(pool: list[str]) -> Any:
        pick = rng.random()
        if pick < 0.4:
            return "all"
        if pick < 0.7:
            return {"controller": rng.choice(players)}
        return rng.sample(pool, min(len(pool), rng.randint(1, 2)))

    effects = []
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        kind = rng.choice(("prevent", "shield", "double", "add", "add", "cant_be_prevented"))
        if kind == "shield":
            effects.append({"kind": "prevent", "amount": rng.randint(1, 4), "recipients": [rng.choice(recipients)]})
            continue
        effect: dict[str, Any] = {"kind": kind, "sources": selector(ids), "recipients": selector(recipients)}
        if kind == "add":
            effect["amount"] = rng.randint(1, 2)
        effects.append(effect)
    if effects:
        board["effects"] = effects


def board_for(size: str | Size, rng: random.Random) -> dict[str, Any]:
    s = SIZES[size] if isinstance(size, str) else size
    board = random_board(rng, rng.randint(*s.attackers), rng.randint(*s.blockers), s.max_power, s.blocks,
                         s.planeswalkers)
    if s.effects:
        add_effects(rng, board)
    return board


def boards(size: str, count: int, seed: int = 2024) -> list[dict[str, Any]]:
    """``count`` boards of a size class, the same on every run for the same seed."""
    rng = random.Random(f"{seed}-{size}")
    return [board_for(size, rng) for _ in range(count)]


def scaling_boards(attackers: int, count: int, seed: int = 2024) -> list[dict[str, Any]]:
    """Boards with exactly ``attackers`` attackers and twice as many blockers, for the growth table
    (block shape of the medium size, large-size shape from 12 attackers on)."""
    blocks = SIZES["large"].blocks if attackers >= 12 else SIZES["medium"].blocks
    shape = Size((attackers, attackers), (2 * attackers, 2 * attackers), 8, blocks,
                 planeswalkers=2 if attackers >= 12 else 1)
    rng = random.Random(f"{seed}-scale-{attackers}")
    return [board_for(shape, rng) for _ in range(count)]


if __name__ == "__main__":  # print one board of each size as JSON, for a look
    import json
    import sys

    for name in (sys.argv[1:] or list(SIZES)):
        print(json.dumps(boards(name, 1)[0]))
