"""Request lines shared by the batch, serve and cluster tests: example boards, good and bad requests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))


def example(name: str) -> dict[str, Any]:
    return json.loads((ROOT / "examples" / f"{name}.json").read_text(encoding="utf-8"))


REGROWER = example("cr-510-1c-elvish-regrower")  # players A, B
MULTIPLAYER = example("multiplayer-battle-and-double-block")

# For check: a 4/3 trampler blocked by an undamaged 2/3 (lethal for it: 3).
CHECK_BOARD: dict[str, Any] = {
    "players": [{"id": "A", "life": 20}, {"id": "B", "life": 20}],
    "creatures": [
        {"id": "a1", "controller": "A", "power": 4, "toughness": 3, "keywords": ["trample"], "attacking": "B"},
        {"id": "b1", "controller": "B", "power": 2, "toughness": 3, "blocking": ["a1"]},
    ],
}
LEGAL = [{"source": "a1", "target": "b1", "amount": 3}, {"source": "a1", "target": "B", "amount": 1},
         {"source": "b1", "target": "a1", "amount": 2}]
TRAMPLE_SHORT = [{"source": "a1", "target": "b1", "amount": 1}, {"source": "a1", "target": "B", "amount": 3},
                 {"source": "b1", "target": "a1", "amount": 2}]

GHOST_BLOCKER = json.loads(json.dumps(CHECK_BOARD))
GHOST_BLOCKER["creatures"][1]["blocking"] = ["ghost"]

# A valid board with an ability the optimizer does not model (read as the board is loaded).
UNMODELED = json.loads(json.dumps(CHECK_BOARD))
UNMODELED["creatures"][0]["keywords"] = ["trample", "protection from artifacts"]


def good_requests() -> list[dict[str, Any]]:
    """One solve request per example board, then a few with player, objective and time_limit."""
    out: list[dict[str, Any]] = [{"id": path.stem, "board": json.loads(path.read_text(encoding="utf-8"))}
                                 for path in EXAMPLES]
    out += [
        {"id": 100, "board": REGROWER, "player": "B", "objective": ["value"]},
        {"id": 101, "board": REGROWER, "objective": "kills,player_damage", "time_limit": 30},
        {"id": 102.5, "board": CHECK_BOARD, "player": "A", "objective": ["kills"], "time_limit": 30},
        {"board": CHECK_BOARD},  # no id: null in the response
        {"id": "check", "command": "check", "board": CHECK_BOARD, "assignments": LEGAL},
    ]
    return out


BAD_LINES: list[tuple[bytes, Any, str]] = [
    # (line, the id in the response, the start of the error)
    (b"{not json", None, "request: malformed JSON at column 2"),
    (b"[1, 2]", None, "request: expected a JSON object, got an array"),
    (b'"just a string"', None, "request: expected a JSON object, got a string"),
    (b"\xff\xfe{}", None, "request: not UTF-8 text"),
    (b'{"id": NaN, "board": {}}', None, "request: malformed JSON"),
    (json.dumps({"id": {"x": 1}, "board": REGROWER}).encode(), None, "id: expected a string, a number or null"),
    (json.dumps({"id": "no-board"}).encode(), "no-board", "board: field required"),
    (json.dumps({"id": "board-path", "board": "examples/deathtouch-trample.json"}).encode(), "board-path",
     "board: expected a JSON object, got a string"),
    (json.dumps({"id": "ghost", "board": GHOST_BLOCKER}).encode(), "ghost", "board.creatures[1].blocking[0]: "),
    (json.dumps({"id": "no-players", "board": {"creatures": []}}).encode(), "no-players", "board.players: "),
    (json.dumps({"id": "unmodeled", "board": UNMODELED}).encode(), "unmodeled", "board.creatures[0].keywords[1]: "),
    (json.dumps({"id": "player", "board": REGROWER, "player": "Z"}).encode(), "player", "player: unknown player 'Z'"),
    (json.dumps({"id": "objective", "board": REGROWER, "objective": ["nope"]}).encode(), "objective",
     "objective: unknown objective 'nope'"),
    (json.dumps({"id": "objective-type", "board": REGROWER, "objective": {"kills": 1}}).encode(), "objective-type",
     "objective: expected a list of objective names"),
    (json.dumps({"id": "time", "board": REGROWER, "time_limit": -1}).encode(), "time", "time_limit: "),
    (json.dumps({"id": "typo", "board": REGROWER, "objectives": ["kills"]}).encode(), "typo",
     "objectives: unknown field for a solve request"),
    (json.dumps({"id": 7, "command": "fight", "board": REGROWER}).encode(), 7, "command: unknown command 'fight'"),
    (json.dumps({"id": 8, "command": "check", "board": CHECK_BOARD}).encode(), 8, "assignments: field required"),
    (json.dumps({"id": 9, "command": "check", "board": CHECK_BOARD,
                 "assignments": [{"source": "a1", "target": "b1", "amount": -1}]}).encode(), 9,
     "assignments[0].amount: "),
]


def encode(request: dict[str, Any]) -> bytes:
    return json.dumps(request).encode()


def write_lines(path: Path, lines: list[bytes]) -> str:
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return str(path)
