"""The example boards show what their descriptions say (values worked out by hand from the rules)."""

from __future__ import annotations

import json
from pathlib import Path

from optimizer import load_board, solve
from optimizer.objectives import DEFAULT_OBJECTIVE
from scenarios import solved

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_lifelink_blocker_saves():
    """702.19b / 510.2: the 7/7 trampler must assign lethal 3 to the 2/3 lifelink blocker, so at most
    4 goes past it to B at 4 life; B's blocker gains 2 at the same time: 4 - 4 + 2 = 2, B stays in.
    The attacker's best: kill the blocker (value 1) and deal 4. Without lifelink, 4 would be lethal."""
    result = solved(load_board(EXAMPLES / "lifelink-blocker-saves.json"), list(DEFAULT_OBJECTIVE))
    assert result.objective["lethal"] == 0 and result.objective["value"] == 1
    assert result.objective["player_damage"] == 4 and result.outcome.players["B"].life == 2
    data = json.loads((EXAMPLES / "lifelink-blocker-saves.json").read_text(encoding="utf-8"))
    data["creatures"][1]["keywords"] = []
    assert solve(load_board(data)).objective["lethal"] == 1


def test_first_strike_double_block():
    """510.1 / 510.4: whatever the double striker (2/2) assigns in the first-strike step, the 2/2
    first-strike blocker of both attackers kills the 3/2 brute (value 3) then; the best the attacker
    can do is kill that blocker (value 2) over its two steps: 2 - 3 = -1."""
    result = solved(load_board(EXAMPLES / "first-strike-double-block.json"), ["value"])
    assert result.objective == {"value": -1}
    assert {"brute", "sentinel"} <= set(result.outcome.destroyed)


def test_defender_survives_first():
    """510.4 / 702.19b / 704.5a, B deciding with the default objective: B at 1 life; its first-strike
    2/2 kills the 3/1 trampler (1 damage is lethal to it) so nothing tramples over in the regular
    step, and the 2/2 attacker kills the blocker: alive 1, value 1 - 1 = 0. With value first, B
    kills the 2/2 worth 5 and loses to the trampler's 1 past its blocker: value 5 - 1 = 4, alive 0."""
    board = load_board(EXAMPLES / "defender-survives-first.json")
    result = solved(board, list(DEFAULT_OBJECTIVE), "B")
    assert result.objective["alive"] == 1 and result.objective["value"] == 0
    assert {"trampler", "guard"} == set(result.outcome.destroyed) and not result.outcome.players["B"].lost
    greedy = solved(board, ["value", "alive"], "B")
    assert greedy.objective == {"value": 4, "alive": 0} and greedy.outcome.players["B"].lost
