"""Board builders and checks shared by the hand-computed rules scenario tests."""

from __future__ import annotations

from typing import Any

from optimizer import check, load_board, solve


def player(pid: str, life: int = 20, **fields: Any) -> dict[str, Any]:
    return {"id": pid, "life": life, **fields}


def attacker(cid: str, power: int, toughness: int, attacking: str = "B", *keywords: str,
             controller: str = "A", **fields: Any) -> dict[str, Any]:
    out = {"id": cid, "controller": controller, "power": power, "toughness": toughness,
           "attacking": attacking, **fields}
    if keywords:
        out["keywords"] = list(keywords)
    return out


def blocker(cid: str, power: int, toughness: int, blocking: str | list[str], *keywords: str,
            controller: str = "B", **fields: Any) -> dict[str, Any]:
    out = {"id": cid, "controller": controller, "power": power, "toughness": toughness,
           "blocking": [blocking] if isinstance(blocking, str) else list(blocking), **fields}
    if keywords:
        out["keywords"] = list(keywords)
    return out


def planeswalker(wid: str, loyalty: int, controller: str = "B", **fields: Any) -> dict[str, Any]:
    return {"id": wid, "controller": controller, "loyalty": loyalty, **fields}


def battle(bid: str, defense: int, protector: str = "B", controller: str = "A", **fields: Any) -> dict[str, Any]:
    return {"id": bid, "controller": controller, "protector": protector, "defense": defense, **fields}


def make_board(*creatures: dict[str, Any], players: list[dict[str, Any]] | None = None,
               planeswalkers: list[dict[str, Any]] = (), battles: list[dict[str, Any]] = (),
               effects: list[dict[str, Any]] = ()):
    data: dict[str, Any] = {
        "active_player": "A",
        "players": players if players is not None else [player("A"), player("B")],
        "creatures": list(creatures),
    }
    if planeswalkers:
        data["planeswalkers"] = list(planeswalkers)
    if battles:
        data["battles"] = list(battles)
    if effects:
        data["effects"] = list(effects)
    return load_board(data)


def check_line(board, *assignments: dict[str, Any]):
    return check(board, {"assignments": list(assignments)})


def solved(board, objective: list[str], player_id: str | None = None, method: str | None = None):
    """Solve, and confirm the result is proven optimal and its line passes the independent checker;
    with ``method``, that it was found that way (``cp-sat``: the model's optimum, not a board where
    nobody has a choice, which the checker alone values)."""
    result = solve(board, player=player_id, objective=objective)
    assert result.status == "optimal"
    assert method is None or result.method == method, result.method
    assert list(result.objective) == objective
    verdict = check(board, result.assignments, result.dealing)
    assert verdict.legal, [str(v) for v in verdict.violations]
    return result
