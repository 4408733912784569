"""Deterministic random combat boards for benchmarks (board JSON dicts, seeded)."""

from __future__ import annotations

import random
from typing import Any

KEYWORDS = ["trample", "trample over planeswalkers", "deathtouch", "lifelink", "infect", "wither",
            "indestructible", "flying", "first strike", "double strike", "first strike"]


def random_board(rng: random.Random, attackers: int, blockers: int, max_power: int,
                 double_block_chance: float = 0.2) -> dict[str, Any]:
    """A legal two-player board with a planeswalker and a battle; some blockers block two attackers."""
    players = [{"id": "A", "life": rng.randint(5, 20)},
               {"id": "B", "life": rng.randint(1, 20), "poison": rng.randint(0, 8)}]
    planeswalkers = [{"id": "pw", "controller": "B", "loyalty": rng.randint(1, 6)}]
    battles = [{"id": "siege", "controller": "A", "protector": "B", "defense": rng.randint(1, 6)}]
    targets = ["B", "B", "B", "pw", "siege"]

    def creature(cid: str, controller: str) -> dict[str, Any]:
        toughness = rng.randint(1, max_power)
        keywords = rng.sample(KEYWORDS, k=rng.choice([0, 0, 1, 1, 2, 3]))
        c: dict[str, Any] = {"id": cid, "controller": controller, "power": rng.randint(0, max_power),
                             "toughness": toughness, "keywords": keywords,
                             "value": rng.randint(1, 4)}
        if "indestructible" not in keywords and toughness > 1 and rng.random() < 0.2:
            c["damage"] = rng.randint(1, toughness - 1)
        if rng.random() < 0.15:
            c["toxic"] = rng.randint(1, 2)
        return c

    creatures = []
    attacker_ids = []
    for i in range(attackers):
        c = creature(f"a{i}", "A")
        c["attacking"] = rng.choice(targets)
        creatures.append(c)
        attacker_ids.append(c["id"])
    for i in range(blockers):
        c = creature(f"b{i}", "B")
        blocking = rng.sample(attacker_ids, k=2 if len(attacker_ids) > 1 and rng.random() < double_block_chance else 1)
        c["blocking"] = blocking
        creatures.append(c)
    return {"players": players, "planeswalkers": planeswalkers, "battles": battles, "creatures": creatures}


SIZES = {
    # name: (attackers, blockers, max power)
    "small": (3, 4, 5),
    "typical": (4, 6, 8),
    "medium": (8, 12, 8),
}


def boards(size: str, count: int, seed: int = 2024) -> list[dict[str, Any]]:
    attackers, blockers, max_power = SIZES[size]
    rng = random.Random(f"{seed}-{size}")
    return [random_board(rng, rng.randint(1, attackers), rng.randint(0, blockers), max_power)
            for _ in range(count)]
