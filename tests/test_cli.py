"""The command line (issue 2, "Result (JSON) and interfaces"): solve and check, formats, exit codes.

Expected answers are worked out by hand from the Comprehensive Rules in the comments next to them.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from optimizer.cli import main
from optimizer.objectives import DEFAULT_OBJECTIVE, OBJECTIVES

ROOT = Path(__file__).resolve().parent.parent

# A 4/3 trampler blocked by a 2/3 that already has 1 damage marked: lethal for the blocker is 2
# (702.19b), so the attacker kills it and tramples 2 over; the blocker's 2 damage does not kill the 4/3.
TRAMPLE_BOARD: dict[str, Any] = {
    "active_player": "A",
    "players": [{"id": "A", "life": 20}, {"id": "B", "life": 20}],
    "creatures": [
        {"id": "a1", "name": "Elvish Regrower", "controller": "A", "power": 4, "toughness": 3,
         "keywords": ["trample"], "attacking": "B"},
        {"id": "b1", "controller": "B", "power": 2, "toughness": 3, "damage": 1, "blocking": ["a1"]},
    ],
}

# Every state-based action of 704.5 that combat damage can cause here:
#   a1 4/3 trample vs b1 2/3 with 1 marked: b1 gets >= 2 (lethal first, 702.19b) -> 704.5g
#   a2 1/1 deathtouch vs b2 5/5: 1 deathtouch damage -> b2 704.5h; b2's 5 kill a2 -> 704.5g
#   a3 2/2 wither vs b3 2/2: two -1/-1 counters -> b3 toughness 0, 704.5f; b3's 2 kill a3 -> 704.5g
#   a4 1/1 unblocked at planeswalker pw (loyalty 1) -> 0 loyalty, 704.5i
SBA_BOARD: dict[str, Any] = {
    "players": [{"id": "A", "life": 20}, {"id": "B", "life": 20}],
    "planeswalkers": [{"id": "pw", "controller": "B", "loyalty": 1}],
    "creatures": [
        {"id": "a1", "controller": "A", "power": 4, "toughness": 3, "keywords": ["trample"], "attacking": "B"},
        {"id": "b1", "controller": "B", "power": 2, "toughness": 3, "damage": 1, "blocking": ["a1"]},
        {"id": "a2", "controller": "A", "power": 1, "toughness": 1, "keywords": ["deathtouch"], "attacking": "B"},
        {"id": "b2", "controller": "B", "power": 5, "toughness": 5, "blocking": ["a2"]},
        {"id": "a3", "controller": "A", "power": 2, "toughness": 2, "keywords": ["wither"], "attacking": "B"},
        {"id": "b3", "controller": "B", "power": 2, "toughness": 2, "blocking": ["a3"]},
        {"id": "a4", "controller": "A", "power": 1, "toughness": 1, "attacking": "pw"},
    ],
}
SBA_RULES = {"b1": "704.5g", "b2": "704.5h", "b3": "704.5f", "a2": "704.5g", "a3": "704.5g", "pw": "704.5i"}

# A 4/4 without trample blocked by a 2/2 (value 1) and a 3/3 (value 5): it can kill one of them
# (2 + 3 > 4), and their 5 damage kill it.
DOUBLE_BLOCK_BOARD: dict[str, Any] = {
    "players": [{"id": "A", "life": 20}, {"id": "B", "life": 20}],
    "creatures": [
        {"id": "a1", "controller": "A", "power": 4, "toughness": 4, "attacking": "B"},
        {"id": "b1", "controller": "B", "power": 2, "toughness": 2, "value": 1, "blocking": ["a1"]},
        {"id": "b2", "controller": "B", "power": 3, "toughness": 3, "value": 5, "blocking": ["a1"]},
    ],
}

# CR 510.1c example: a 4/3 blocked by a 2/3 and a 1/1; many assignments tie on player_damage (all 0).
EXAMPLE_510_1C: dict[str, Any] = {
    "players": [{"id": "A", "life": 20}, {"id": "B", "life": 20}],
    "creatures": [
        {"id": "regrower", "controller": "A", "power": 4, "toughness": 3, "attacking": "B"},
        {"id": "spawn", "controller": "B", "power": 2, "toughness": 3, "blocking": ["regrower"]},
        {"id": "hunter", "controller": "B", "power": 1, "toughness": 1, "blocking": ["regrower"]},
    ],
}

# For check: a 4/3 trampler blocked by an undamaged 2/3 (lethal for it: 3).
CHECK_BOARD: dict[str, Any] = {
    "players": [{"id": "A", "life": 20}, {"id": "B", "life": 20}],
    "creatures": [
        {"id": "a1", "controller": "A", "power": 4, "toughness": 3, "keywords": ["trample"], "attacking": "B"},
        {"id": "b1", "controller": "B", "power": 2, "toughness": 3, "blocking": ["a1"]},
    ],
}


def entry(source: str, target: str, amount: int) -> dict[str, Any]:
    return {"source": source, "target": target, "amount": amount}


def write(tmp_path: Path, name: str, data: Any) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_cli(*args: str, stdin: str | None = None, exe: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([*(exe or [sys.executable, "-m", "optimizer"]), *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)


def triples(assignments: list[dict[str, Any]]) -> list[tuple[str, str, int]]:
    return sorted((a["source"], a["target"], a["amount"]) for a in assignments)


# --------------------------------------------------------------------------------------------------
# solve: JSON output
# --------------------------------------------------------------------------------------------------
def check_shape(result: dict[str, Any]) -> None:
    assert set(result) == {"status", "player", "objective", "assignments", "dealing", "outcome", "method",
                           "warnings"}
    assert result["status"] in ("optimal", "feasible")
    assert isinstance(result["player"], str)
    assert isinstance(result["objective"], dict)
    assert all(k in OBJECTIVES and isinstance(v, int) for k, v in result["objective"].items())
    for a in result["assignments"]:
        assert set(a) == {"step", "source", "target", "amount"}
        assert a["step"] == "regular"  # no first strike: one combat damage step (510.4)
        assert isinstance(a["amount"], int) and a["amount"] > 0
    outcome = result["outcome"]
    assert {"players", "planeswalkers", "battles", "creatures", "destroyed"} <= set(outcome)
    for p in outcome["players"].values():
        assert isinstance(p["life"], int) and isinstance(p["poison"], int)
    for c in outcome["creatures"].values():
        assert isinstance(c["damage"], int) and isinstance(c["minus_counters"], int)
    for w in outcome["planeswalkers"].values():
        assert isinstance(w["loyalty"], int)
    for b in outcome["battles"].values():
        assert isinstance(b["defense"], int)
    assert isinstance(outcome["destroyed"], list)
    assert isinstance(result["warnings"], list)


def test_solve_board_file_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys, "solve", write(tmp_path, "b.json", TRAMPLE_BOARD),
                              "--format", "json", "--objective", "kills,player_damage")
    assert code == 0, err
    result = json.loads(out)
    check_shape(result)
    assert result["status"] == "optimal"
    assert result["player"] == "A"
    assert result["objective"] == {"kills": 1, "player_damage": 2}
    # exactly lethal (2) to the blocker, the other 2 trample over; the blocker's 2 go to the attacker
    assert triples(result["assignments"]) == [("a1", "B", 2), ("a1", "b1", 2), ("b1", "a1", 2)]
    outcome = result["outcome"]
    assert outcome["players"]["B"]["life"] == 18 and outcome["players"]["B"]["poison"] == 0
    assert outcome["players"]["A"]["life"] == 20
    assert outcome["creatures"]["b1"] == {"damage": 3, "minus_counters": 0}
    assert outcome["creatures"]["a1"] == {"damage": 2, "minus_counters": 0}
    assert outcome["destroyed"] == ["b1"]
    assert outcome["planeswalkers"] == {} and outcome["battles"] == {}
    assert result["warnings"] == []


def test_solve_stdin_in_process(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(TRAMPLE_BOARD)))
    code, out, err = run_main(capsys, "solve", "-", "--format", "json", "--objective", "kills,player_damage")
    assert code == 0, err
    result = json.loads(out)
    assert result["objective"] == {"kills": 1, "player_damage": 2}
    assert result["outcome"]["destroyed"] == ["b1"]


def test_solve_stdin_subprocess_defaults_to_json_when_not_a_terminal() -> None:
    proc = run_cli("solve", "-", "--objective", "kills,player_damage", stdin=json.dumps(TRAMPLE_BOARD))
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)  # stdout is a pipe: JSON by default
    check_shape(result)
    assert result["objective"] == {"kills": 1, "player_damage": 2}
    assert result["outcome"]["players"]["B"]["life"] == 18


def test_solve_file_and_stdin_agree(tmp_path: Path) -> None:
    by_file = run_cli("solve", write(tmp_path, "b.json", SBA_BOARD), "--format", "json")
    by_stdin = run_cli("solve", "-", "--format", "json", stdin=json.dumps(SBA_BOARD))
    assert by_file.returncode == by_stdin.returncode == 0
    assert json.loads(by_file.stdout) == json.loads(by_stdin.stdout)


def test_default_objective_is_the_documented_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "solve", write(tmp_path, "b.json", TRAMPLE_BOARD), "--format", "json")
    assert code == 0
    result = json.loads(out)
    assert list(result["objective"]) == list(DEFAULT_OBJECTIVE)
    # no lethal (B at 20); b1 dies (+1 value) and a1 survives; 2 trample over
    assert result["objective"]["lethal"] == 0
    assert result["objective"]["value"] == 1
    assert result["objective"]["player_damage"] == 2


@pytest.mark.parametrize("order", [["kills", "player_damage"], ["player_damage", "kills"],
                                   ["survivors", "value", "kills", "player_damage", "lethal"]])
def test_objective_dict_follows_the_requested_order(order: list[str], tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "solve", write(tmp_path, "b.json", TRAMPLE_BOARD), "--format", "json",
                            "--objective", ",".join(order))
    assert code == 0
    objective = json.loads(out)["objective"]
    assert list(objective) == order
    expected = {"kills": 1, "player_damage": 2, "survivors": 1, "value": 1, "lethal": 0}
    assert objective == {k: expected[k] for k in order}


def test_sba_board_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "solve", write(tmp_path, "b.json", SBA_BOARD), "--format", "json",
                            "--objective", "kills,loyalty")
    assert code == 0
    result = json.loads(out)
    check_shape(result)
    assert result["objective"] == {"kills": 3, "loyalty": 1}
    outcome = result["outcome"]
    assert set(outcome["destroyed"]) == set(SBA_RULES)
    assert len(outcome["destroyed"]) == len(SBA_RULES)
    assert outcome["creatures"]["b3"] == {"damage": 0, "minus_counters": 2}  # wither: counters (120.3d)
    assert outcome["planeswalkers"]["pw"] == {"loyalty": 0}


# --------------------------------------------------------------------------------------------------
# solve: table output
# --------------------------------------------------------------------------------------------------
def test_table_output_is_text_with_rule_numbers_of_destroyed(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "solve", write(tmp_path, "b.json", SBA_BOARD), "--format", "table",
                            "--objective", "kills,loyalty")
    assert code == 0
    with pytest.raises(json.JSONDecodeError):
        json.loads(out)
    assert "optimal" in out
    lines = out.splitlines()
    for object_id, rule in SBA_RULES.items():
        assert any(re.search(rf"\b{object_id}\b", line) and rule in line for line in lines), \
            f"no line names {object_id} with {rule}:\n{out}"
    assert "b1" in out and "a4" in out
    assert "kills 3, loyalty 1" in out  # b1, b2, b3 destroyed; pw's 1 loyalty removed


def test_table_output_simple_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "solve", write(tmp_path, "b.json", TRAMPLE_BOARD), "--format", "table",
                            "--objective", "kills,player_damage")
    assert code == 0
    assert any("b1" in line and "704.5g" in line for line in out.splitlines()), out
    assert "Elvish Regrower" in out  # names are shown
    assert re.search(r"\b18\b", out)  # B's life after combat
    assert "kills" in out and "player_damage" in out


def test_a_board_without_choices_says_its_line_is_the_only_legal_one(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """510.1a: a 3/3 blocked by a 2/2, without trample, has one recipient, and so has the blocker."""
    board = {"players": [{"id": "A", "life": 20}, {"id": "B", "life": 20}],
             "creatures": [{"id": "a", "controller": "A", "power": 3, "toughness": 3, "attacking": "B"},
                           {"id": "b", "controller": "B", "power": 2, "toughness": 2, "blocking": ["a"]}]}
    path = write(tmp_path, "b.json", board)
    code, out, _ = run_main(capsys, "solve", path, "--format", "json", "--objective", "kills")
    assert code == 0
    result = json.loads(out)
    assert result["method"] == "forced" and result["status"] == "optimal" and result["objective"] == {"kills": 1}
    assert {(a["source"], a["target"], a["amount"]) for a in result["assignments"]} == {("a", "b", 3), ("b", "a", 2)}
    code, out, _ = run_main(capsys, "solve", path, "--format", "table")
    assert code == 0 and "only legal assignment" in out.splitlines()[0] and "510.1a" in out.splitlines()[0]


def test_table_and_text_outputs_say_what_left_the_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """800.4a: B (2 life) loses to the first striker, and its blocker leaves the game with it, so the
    blocked 3/3 has no blocker left and deals no damage (510.1c); the value 1 is the blocker's leaving."""
    board = {"players": [{"id": "A"}, {"id": "B", "life": 2}, {"id": "C"}],
             "creatures": [
                 {"id": "fs", "controller": "A", "power": 2, "toughness": 2, "keywords": ["first strike"],
                  "attacking": "B"},
                 {"id": "x", "controller": "A", "power": 3, "toughness": 3, "attacking": "B"},
                 {"id": "bb", "controller": "B", "power": 2, "toughness": 2, "blocking": ["x"]},
                 {"id": "cc", "controller": "C", "power": 1, "toughness": 1}]}
    path = write(tmp_path, "b.json", board)
    code, out, _ = run_main(capsys, "solve", path, "--format", "json", "--objective", "value")
    result = json.loads(out)
    assert code == 0 and result["objective"] == {"value": 1} and result["outcome"]["left_game"] == ["bb"]
    expected = "left the game with player B, who lost (800.4a): bb"
    code, out, _ = run_main(capsys, "solve", path, "--format", "table", "--objective", "value")
    assert code == 0 and expected in out.splitlines()[-1], out
    assignment = write(tmp_path, "a.json", {"assignments": result["assignments"]})
    code, out, _ = run_main(capsys, "check", path, assignment, "--format", "text")
    assert code == 0 and any(line.strip() == expected for line in out.splitlines()), out


def test_table_names_the_player_who_divided_each_damage(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """510.1c-d: each row names who divided it; under banding (702.22j) B divides A's attacker's damage.
    The header says whose choices the rows are, and that the other players' are the worst for the decider."""
    board = {"players": [{"id": "A"}, {"id": "B"}],
             "creatures": [{"id": "x", "controller": "A", "power": 4, "toughness": 4, "attacking": "B"},
                           {"id": "y", "controller": "A", "power": 2, "toughness": 2, "attacking": "B"},
                           {"id": "k", "controller": "B", "power": 3, "toughness": 3, "blocking": ["x", "y"]},
                           {"id": "h", "controller": "B", "power": 1, "toughness": 1, "keywords": ["banding"],
                            "blocking": ["x"]}]}
    code, out, _ = run_main(capsys, "solve", write(tmp_path, "b.json", board), "--format", "table",
                            "--objective", "kills")
    assert code == 0
    lines = out.splitlines()
    assert "A's choices, and the other players' worst for A" in out
    rows = [line for line in lines if line.endswith("]") and "->" in line]
    assert rows and all(re.search(r"\[regular, by [AB]\]$", row) for row in rows), out
    assert all(row.endswith("by B]") for row in rows if row.split()[0] in ("x", "k", "h")), out
    assert all(row.endswith("by A]") for row in rows if row.split()[0] == "y"), out
    code, out, _ = run_main(capsys, "solve", write(tmp_path, "b.json", board), "--format", "table",
                            "--objective", "kills", "--player", "B")
    assert code == 0 and "B's choices, and the other players' worst for B" in out


def test_table_breaks_a_life_change_into_damage_and_lifelink(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """510.2 / 702.15b: B at 4 takes 4 trampled over while its lifelink blocker gains 2 at the same
    time: 4 -> 2, and the table says both; a player who gains nothing gets no breakdown."""
    code, out, _ = run_main(capsys, "solve", str(ROOT / "examples" / "lifelink-blocker-saves.json"),
                            "--format", "table")
    assert code == 0
    assert "  player B: life 4 -> 2 (lost 4 to damage, gained 2 by lifelink, 702.15b)" in out.splitlines()
    assert "  player A: life 20 -> 20" in out.splitlines()
    infect = {"players": [{"id": "A"}, {"id": "B"}],
              "creatures": [{"id": "i", "controller": "A", "power": 3, "toughness": 3, "keywords": ["infect"],
                             "attacking": "B"},
                            {"id": "w", "controller": "A", "power": 2, "toughness": 5, "attacking": "B"},
                            {"id": "l", "controller": "B", "power": 2, "toughness": 3, "keywords": ["lifelink"],
                             "blocking": ["w"]}]}
    code, out, _ = run_main(capsys, "solve", write(tmp_path, "i.json", infect), "--format", "table")
    assert code == 0  # infect damage gives poison, not life loss (702.90b): no damage to break down
    assert "  player B: life 20 -> 22 (gained 2 by lifelink, 702.15b), poison 0 -> 3" in out.splitlines()


def test_table_output_lists_warnings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = json.loads(json.dumps(TRAMPLE_BOARD))
    board["creatures"][0]["keywords"].append("Flying")
    code, out, _ = run_main(capsys, "solve", write(tmp_path, "b.json", board), "--format", "table")
    assert code == 0
    assert "Flying" in out


# --------------------------------------------------------------------------------------------------
# solve: --player, --time-limit
# --------------------------------------------------------------------------------------------------
def test_player_b_gets_the_worst_case_reply(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "b.json", DOUBLE_BLOCK_BOARD)
    code, out, _ = run_main(capsys, "solve", path, "--format", "json", "--player", "B", "--objective", "value")
    assert code == 0
    result = json.loads(out)
    assert result["player"] == "B"
    # A replies worst for B: it kills the 5-value b2; a1 dies to 2 + 3 damage: 1 - 5 = -4 for B
    assert result["objective"] == {"value": -4}
    assert set(result["outcome"]["destroyed"]) == {"a1", "b2"}
    sources = {(a["source"], a["target"]) for a in result["assignments"]}
    assert ("b1", "a1") in sources and ("b2", "a1") in sources


def test_player_a_on_the_same_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "b.json", DOUBLE_BLOCK_BOARD)
    code, out, _ = run_main(capsys, "solve", path, "--format", "json", "--player", "A", "--objective", "value")
    assert code == 0
    result = json.loads(out)
    assert result["player"] == "A"
    assert result["objective"] == {"value": 4}  # kill b2 (+5), lose a1 (-1)
    assert set(result["outcome"]["destroyed"]) == {"a1", "b2"}


def test_player_b_survivors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # B's two blockers: A can kill only one of them, so one survives whatever A does.
    path = write(tmp_path, "b.json", DOUBLE_BLOCK_BOARD)
    code, out, _ = run_main(capsys, "solve", path, "--format", "json", "--player", "B",
                            "--objective", "survivors,kills")
    assert code == 0
    result = json.loads(out)
    assert result["objective"] == {"survivors": 1, "kills": 1}


def test_time_limit_on_a_tiny_board_is_still_optimal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "solve", write(tmp_path, "b.json", TRAMPLE_BOARD), "--format", "json",
                            "--time-limit", "5", "--objective", "kills,player_damage")
    assert code == 0
    result = json.loads(out)
    assert result["status"] == "optimal"
    assert result["objective"] == {"kills": 1, "player_damage": 2}


def test_time_limit_subprocess(tmp_path: Path) -> None:
    proc = run_cli("solve", write(tmp_path, "b.json", SBA_BOARD), "--time-limit", "5", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["status"] == "optimal"


# --------------------------------------------------------------------------------------------------
# check
# --------------------------------------------------------------------------------------------------
LEGAL = {"assignments": [entry("a1", "b1", 3), entry("a1", "B", 1), entry("b1", "a1", 2)]}
TRAMPLE_SHORT = {"assignments": [entry("a1", "b1", 1), entry("a1", "B", 3), entry("b1", "a1", 2)]}


def test_check_legal_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys, "check", write(tmp_path, "b.json", CHECK_BOARD),
                              write(tmp_path, "a.json", LEGAL), "--format", "text")
    assert code == 0, err
    assert "illegal" not in out.lower()
    assert "legal" in out.lower()
    assert re.search(r"\b19\b", out), out  # B: 20 - 1 trampled over
    assert "b1" in out  # destroyed: 3 damage on toughness 3


def test_check_legal_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "check", write(tmp_path, "b.json", CHECK_BOARD),
                            write(tmp_path, "a.json", LEGAL), "--format", "json")
    assert code == 0
    verdict = json.loads(out)
    assert verdict["legal"] is True
    assert verdict["violations"] == []
    assert verdict["outcome"]["players"]["B"]["life"] == 19
    assert verdict["outcome"]["creatures"]["b1"]["damage"] == 3
    assert verdict["outcome"]["creatures"]["a1"]["damage"] == 2
    assert verdict["outcome"]["destroyed"] == ["b1"]


def test_check_bare_list_and_default_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "check", write(tmp_path, "b.json", CHECK_BOARD),
                            write(tmp_path, "a.json", LEGAL))
    assert code == 0
    assert json.loads(out)["legal"] is True  # stdout is not a terminal: JSON


def test_check_trample_past_unfinished_blocker(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "check", write(tmp_path, "b.json", CHECK_BOARD),
                            write(tmp_path, "a.json", TRAMPLE_SHORT), "--format", "text")
    assert code == 1
    lines = [line for line in out.splitlines() if "702.19b" in line]
    assert len(lines) == 1, out
    # the blocker has 1 of the 3 lethal damage it needs
    assert "b1" in lines[0] and re.search(r"\b1\b", lines[0]) and re.search(r"\b3\b", lines[0]), lines[0]
    assert "510.1a" not in out  # all 4 of a1's power is assigned


def test_check_trample_violation_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(capsys, "check", write(tmp_path, "b.json", CHECK_BOARD),
                            write(tmp_path, "a.json", TRAMPLE_SHORT), "--format", "json")
    assert code == 1
    verdict = json.loads(out)
    assert verdict["legal"] is False
    assert [v["rule"] for v in verdict["violations"]] == ["702.19b"]
    assert verdict["violations"][0]["source"] == "a1"
    assert verdict["outcome"] is None


def test_check_prints_each_violation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a1 assigns only 3 of its 4 power (510.1a), and 2 of it past a blocker with 1 of 3 lethal (702.19b)
    bad = {"assignments": [entry("a1", "b1", 1), entry("a1", "B", 2), entry("b1", "a1", 2)]}
    code, out, _ = run_main(capsys, "check", write(tmp_path, "b.json", CHECK_BOARD),
                            write(tmp_path, "a.json", bad), "--format", "text")
    assert code == 1
    power = [line for line in out.splitlines() if "510.1a" in line]
    trample = [line for line in out.splitlines() if "702.19b" in line]
    assert len(power) == 1 and len(trample) == 1, out
    assert re.search(r"\b4\b", power[0]) and re.search(r"\b3\b", power[0]), power[0]
    assert re.search(r"\b1\b", trample[0]) and re.search(r"\b3\b", trample[0]), trample[0]


def test_check_blocker_damaging_a_player(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = {"assignments": [entry("a1", "b1", 3), entry("a1", "B", 1), entry("b1", "A", 2)]}
    code, out, _ = run_main(capsys, "check", write(tmp_path, "b.json", CHECK_BOARD),
                            write(tmp_path, "a.json", bad), "--format", "text")
    assert code == 1
    assert any("510.1d" in line and "b1" in line for line in out.splitlines()), out


def test_check_subprocess_exit_codes(tmp_path: Path) -> None:
    board = write(tmp_path, "b.json", CHECK_BOARD)
    legal = run_cli("check", board, write(tmp_path, "legal.json", LEGAL), "--format", "text")
    illegal = run_cli("check", board, write(tmp_path, "illegal.json", TRAMPLE_SHORT), "--format", "text")
    invalid = run_cli("check", board, write(tmp_path, "invalid.json",
                                            {"assignments": [entry("a1", "b1", -1)]}))
    assert (legal.returncode, illegal.returncode, invalid.returncode) == (0, 1, 2)
    assert "702.19b" in illegal.stdout
    assert invalid.stdout == "" and "assignments[0].amount" in invalid.stderr
    assert len(invalid.stderr.strip().splitlines()) == 1 and "Traceback" not in invalid.stderr


def test_check_board_from_stdin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(CHECK_BOARD)))
    code, out, _ = run_main(capsys, "check", "-", write(tmp_path, "a.json", LEGAL), "--format", "json")
    assert code == 0
    assert json.loads(out)["legal"] is True


def test_check_assignment_from_stdin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(TRAMPLE_SHORT)))
    code, _, _ = run_main(capsys, "check", write(tmp_path, "b.json", CHECK_BOARD), "-", "--format", "json")
    assert code == 1


def test_check_both_from_stdin_is_invalid(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys, "check", "-", "-")
    assert code == 2
    assert out == "" and len(err.strip().splitlines()) == 1


def test_check_invalid_board_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = json.loads(json.dumps(CHECK_BOARD))
    board["creatures"][1]["blocking"] = ["ghost"]
    code, out, err = run_main(capsys, "check", write(tmp_path, "b.json", board), write(tmp_path, "a.json", LEGAL))
    assert code == 2
    assert "creatures[1].blocking[0]" in err and len(err.strip().splitlines()) == 1


def test_check_accepts_the_solvers_own_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = write(tmp_path, "b.json", SBA_BOARD)
    code, out, _ = run_main(capsys, "solve", board, "--format", "json")
    assert code == 0
    solved = json.loads(out)
    code, out, _ = run_main(capsys, "check", board, write(tmp_path, "a.json", {"assignments": solved["assignments"]}),
                            "--format", "json")
    assert code == 0
    assert json.loads(out)["outcome"] == solved["outcome"]


ORDERED_EFFECTS_BOARD = {
    "players": [{"id": "A", "life": 20}, {"id": "B", "life": 20}],
    "creatures": [{"id": "a1", "controller": "A", "power": 3, "toughness": 3, "attacking": "B"}],
    "effects": [{"kind": "add", "amount": 2, "sources": {"controller": "A"}}, {"kind": "double"}],
}


def test_check_reads_the_dealing_of_a_whole_solve_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """616.1: B orders +2 and doubling to take the least, (3 x 2) + 2 = 8, not (3 + 2) x 2 = 10; a solve
    result checked as it is keeps that order, an assignment alone gets board order."""
    board = write(tmp_path, "b.json", ORDERED_EFFECTS_BOARD)
    code, out, _ = run_main(capsys, "solve", board, "--format", "json")
    solved = json.loads(out)
    assert code == 0 and solved["objective"]["player_damage"] == 8 and solved["dealing"]
    code, out, _ = run_main(capsys, "check", board, write(tmp_path, "r.json", solved), "--format", "json")
    assert code == 0 and json.loads(out)["outcome"] == solved["outcome"]
    assert json.loads(out)["outcome"]["players"]["B"]["life"] == 12
    code, out, _ = run_main(capsys, "check", board, write(tmp_path, "a.json", {"assignments": solved["assignments"]}),
                            "--format", "json")
    assert code == 0 and json.loads(out)["outcome"]["players"]["B"]["life"] == 10


@pytest.mark.parametrize("data, field", [
    ({"assignments": [], "bogus": 1}, "bogus"),
    ({"assignments": [], "dealing": {"source": "a1"}}, "dealing"),
    ({"assignments": [], "dealing": [{"source": "a1", "target": "B", "order": [5]}]}, "dealing[0].order"),
    ({"assignments": [], "dealing": [{"source": "a1", "target": "B", "order": [], "extra": 0}]}, "dealing[0].extra"),
    ({"assignments": [], "dealing": [{"source": "zz", "target": "B", "order": []}]}, "dealing[0].source"),
    ({"assignments": [], "dealing": [{"source": "a1", "target": "B", "order": [0], "prevented": {"0": 1}}]},
     "dealing[0].prevented.0"),
])
def test_check_rejects_unknown_fields_and_bad_dealing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       data: dict[str, Any], field: str) -> None:
    board = write(tmp_path, "b.json", ORDERED_EFFECTS_BOARD)
    code, _, err = run_main(capsys, "check", board, write(tmp_path, "a.json", data))
    assert code == 2
    assert err.strip().startswith(f"mtg-combat: error: {field}:") and len(err.strip().splitlines()) == 1


# --------------------------------------------------------------------------------------------------
# help, console script, determinism
# --------------------------------------------------------------------------------------------------
def test_help_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "mtg-combat" in out and "solve" in out and "check" in out


def test_solve_help_lists_objectives(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["solve", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for option in ("--player", "--objective", "--format", "--time-limit"):
        assert option in out
    for name in OBJECTIVES:
        assert name in out


def test_console_script_is_declared() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts["mtg-combat"] == "optimizer.__main__:run"


def test_console_script_entry_point_help() -> None:
    # what the installed mtg-combat wrapper does: sys.exit(optimizer.__main__.run())
    proc = run_cli("--help", exe=[sys.executable, "-c",
                                  "import sys; from optimizer.__main__ import run; sys.exit(run())"])
    assert proc.returncode == 0, proc.stderr
    assert "solve" in proc.stdout and "check" in proc.stdout


@pytest.mark.skipif(shutil.which("mtg-combat") is None, reason="mtg-combat is not installed on PATH")
def test_installed_mtg_combat_help() -> None:
    proc = subprocess.run(["mtg-combat", "--help"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "solve" in proc.stdout and "check" in proc.stdout


@pytest.mark.parametrize("args, option", [
    (["solve", "B", "--objective", "kills", "--objective", "value"], "--objective"),
    (["solve", "B", "--player", "A", "--player", "B"], "--player"),
    (["solve", "B", "--time-limit", "5", "--time-limit", "1"], "--time-limit"),
    (["solve", "B", "--format", "json", "--format", "table"], "--format"),
    (["check", "B", "B", "--format", "json", "--format", "text"], "--format"),
    (["batch", "B", "--workers", "2", "--workers", "3"], "--workers"),
])
def test_an_option_given_twice_is_an_input_error(args: list[str], option: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    # argparse keeps the last value: --objective kills --objective value would answer for value alone
    err = usage_error(args, tmp_path, capsys)
    assert err.startswith(f"mtg-combat: error: {option} given twice") and err.count("\n") == 1


def usage_error(args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """What the command line writes on stderr for ``args`` (each ``B`` a board file), checking that it
    exits with 2 and writes nothing on stdout."""
    board = write(tmp_path, "b.json", TRAMPLE_BOARD)
    with pytest.raises(SystemExit) as info:
        main([board if a == "B" else a for a in args])
    out, err = capsys.readouterr()
    assert (info.value.code, out) == (2, "")
    return err


@pytest.mark.parametrize("args, suggested", [
    (["solve", "B", "--json"], "--format json"),
    (["solve", "B", "--table"], "--format table"),
    (["check", "B", "B", "--text"], "--format text"),
])
def test_a_format_flag_of_other_tools_names_the_format_option(args: list[str], suggested: str, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert usage_error(args, tmp_path, capsys) == (
        f"mtg-combat: error: unrecognized arguments: {args[-1]}; the output format is chosen with --format, "
        f"e.g. {suggested} (see --help)\n")


def test_importing_the_command_line_loads_neither_the_schema_nor_the_solver() -> None:
    # the command line is loaded before main() handles Ctrl-C (with only a quiet exit set): that import
    # stays light, and pydantic and ortools load inside main(), where an interruption is reported as one
    code = ("import sys, optimizer.cli; "
            "print(sorted(m for m in ('pydantic', 'ortools', 'optimizer.schema', 'optimizer.solver') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "[]\n", "")


def test_an_interruption_while_the_command_line_loads_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    import optimizer.cli as cli_module

    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_module, "_parser", interrupted)  # where the first imports happen
    assert main(["solve", "-"]) == 130
    assert capsys.readouterr() == ("", "mtg-combat: interrupted\n")


def test_the_package_exports_load_on_first_use() -> None:
    code = ("import optimizer, optimizer.check; from optimizer import *; "
            "import optimizer.schema, optimizer.settings; "
            "assert callable(check) and optimizer.check is check and check.__module__ == 'optimizer'; "
            "assert load_board is optimizer.schema.load_board and SolverSettings is optimizer.settings.SolverSettings; "
            "assert set(optimizer.__all__) <= set(dir(optimizer)); "
            "print(sorted(optimizer.__all__) == sorted(n for n in optimizer.__all__ if getattr(optimizer, n, None) is not None))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "True\n", "")


def test_python_dash_m_help() -> None:
    proc = run_cli("--help")
    assert proc.returncode == 0
    assert "solve" in proc.stdout


@pytest.mark.parametrize("board,objective", [(EXAMPLE_510_1C, "player_damage"), (SBA_BOARD, "kills"),
                                             (DOUBLE_BLOCK_BOARD, "lethal")])
def test_json_output_is_identical_across_runs(board: dict[str, Any], objective: str, tmp_path: Path) -> None:
    path = write(tmp_path, "b.json", board)
    first = run_cli("solve", path, "--format", "json", "--objective", objective)
    second = run_cli("solve", path, "--format", "json", "--objective", objective)
    assert first.returncode == second.returncode == 0
    assert first.stdout == second.stdout
    assert first.stdout.strip()


def test_json_output_is_identical_in_process(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "b.json", EXAMPLE_510_1C)
    outputs = [run_main(capsys, "solve", path, "--format", "json")[1] for _ in range(3)]
    assert outputs[0] == outputs[1] == outputs[2]
    result = json.loads(outputs[0])
    # 4 power: spawn needs 3 and hunter 1, so both die (510.1c example); the 2 + 1 back kill the 4/3
    assert set(result["outcome"]["destroyed"]) == {"regrower", "spawn", "hunter"}
    assert result["objective"]["value"] == 1  # two of B's (value 1 each) minus one of A's


@pytest.mark.parametrize("command", ["solve", "check"])
def test_a_reader_that_closes_standard_output_early_gets_a_quiet_exit(command: str, tmp_path: Path) -> None:
    """``mtg-combat solve BOARD | head -0``: no traceback and no internal error."""
    board = write(tmp_path, "board.json", {"players": [{"id": "A"}, {"id": "B"}], "creatures": [
        {"id": "x", "controller": "A", "power": 2, "toughness": 2, "attacking": "B"}]})
    args = [board] if command == "solve" else [board, write(tmp_path, "a.json", [entry("x", "B", 2)])]
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "optimizer", command, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT, env=env)
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and err == b""


INTERNAL_FAILURE = """
import importlib, sys
from optimizer.cli import main


def fail(*args, **kwargs):
    raise RuntimeError("boom")


setattr(importlib.import_module(sys.argv[1]), sys.argv[2], fail)
sys.exit(main(sys.argv[3:]))
"""


def fail_internally(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("boom")


def internal_failure_args(command: str, tmp_path: Path) -> tuple[str, str, list[str]]:
    """The module and function to make fail for ``command``, and its arguments."""
    board = write(tmp_path, "board.json", TRAMPLE_BOARD)
    if command == "solve":
        return "optimizer.solver", "solve", [board]
    return "optimizer.check", "check", [board, write(tmp_path, "a.json", [entry("a1", "B", 4), entry("b1", "a1", 2)])]


@pytest.mark.parametrize("command", ["solve", "check"])
def test_an_internal_failure_is_one_line_and_exit_3(command: str, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """README, exit codes: a failure that is not the input's (here the solver or the checker raising)
    is an internal error: exit 3, one line on stderr naming the exception, nothing on stdout, no
    traceback; in-process and as a program."""
    module, name, args = internal_failure_args(command, tmp_path)
    monkeypatch.setattr(importlib.import_module(module), name, fail_internally)
    code, out, err = run_main(capsys, command, *args)
    assert (code, out, err) == (3, "", "mtg-combat: internal error: RuntimeError: boom\n")
    monkeypatch.undo()
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", INTERNAL_FAILURE, module, name, command, *args], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (3, "", "mtg-combat: internal error: RuntimeError: boom\n")


def test_table_output_escapes_control_characters_and_unpaired_surrogates_in_names(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = write(tmp_path, "board.json", {"players": [{"id": "A"}, {"id": "B"}], "creatures": [
        {"id": "x", "controller": "A", "power": 2, "toughness": 2, "attacking": "B", "name": "Evil\n\x1b[31m\ud800"}]})
    code, out, _ = run_main(capsys, "solve", board, "--format", "table")
    assert code == 0
    assert "x (Evil\\n\\x1b[31m\\ud800)" in out and "\x1b" not in out


def run_with_closed(fd: int, *args: str) -> subprocess.CompletedProcess[bytes]:
    """The command line with standard stream ``fd`` closed before it starts (``>&-`` in a shell)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    streams = {0: "stdin", 1: "stdout", 2: "stderr"}
    kwargs: dict[str, Any] = {name: subprocess.PIPE for k, name in streams.items() if k != fd}
    return subprocess.run([sys.executable, "-m", "optimizer", *args], cwd=ROOT, env=env, timeout=120,
                          preexec_fn=lambda: os.close(fd), **kwargs)


@pytest.mark.parametrize("fd, args, message", [
    (1, ["solve", "examples/deathtouch-trample.json"], b"mtg-combat: error: output: cannot write: Bad file descriptor\n"),
    (1, ["batch", "tests/data/pruned_search_board.json"],  # not JSON Lines: error lines to write
     b"mtg-combat: error: output: cannot write: Bad file descriptor\n"),
    (0, ["solve", "-"], b"mtg-combat: error: board: cannot read '-': Bad file descriptor\n"),
    (0, ["batch", "-"], b"mtg-combat: error: input: cannot read '-': Bad file descriptor\n"),
    (0, ["serve", "--stdio"], b"mtg-combat: error: input: cannot read standard input: Bad file descriptor\n"),
    (2, ["solve", "no-such-board.json"], None),
])
def test_a_closed_standard_stream_is_an_input_or_output_error(fd: int, args: list[str], message: bytes | None) -> None:
    proc = run_with_closed(fd, *args)
    assert proc.returncode == 2
    if fd != 1:
        assert proc.stdout == b""  # an error never goes to standard output, even with stderr closed
    if message is not None:
        assert proc.stderr == message


def test_batch_output_dash_is_standard_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"id": 7, "board": EXAMPLE_510_1C}) + "\n")
    code, out, _ = run_main(capsys, "batch", str(source), "-o", "-")
    assert code == 0 and json.loads(out)["id"] == 7
    assert not (ROOT / "-").exists() and not Path("-").exists()


def test_serve_stdio_given_twice_is_a_usage_error() -> None:
    proc = run_cli("serve", "--stdio", "--stdio", stdin="")
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.startswith("mtg-combat: error: --stdio given twice")


def test_an_error_naming_a_key_with_a_line_break_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = json.loads(json.dumps(EXAMPLE_510_1C))
    board["players"][1]["commander_damage"] = {"x\nmtg-combat: a second line\u001b[31m": 21}
    path = tmp_path / "board.json"
    path.write_text(json.dumps(board))
    code, out, err = run_main(capsys, "solve", str(path))
    assert (code, out, err.count("\n")) == (2, "", 1)
    assert err.startswith('mtg-combat: error: players[1].commander_damage["x\\nmtg-combat: a second line\\u001b[31m"]: 21')
    assert "\x1b" not in err


def test_an_empty_input_path_is_named_as_one(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys, "batch", "")
    assert (code, out) == (2, "")
    assert err == "mtg-combat: error: input: an empty path; give a file name, or - for standard input\n"


def test_table_cites_the_rules_of_the_effects_that_changed_each_damage(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A 3/3 trampler under a doubler (614.1a) blocked by a 2/2 with protection from creatures (702.16e):
    its 2 to the blocker is prevented, its 1 past it to B is doubled to 2. A shield on B (615.7)
    prevents 2 of another attacker's 3; with a doubler on that damage too, B orders them (616.1); with
    a shield of 3 and a +1 instead, B applies the shield first and the 0 left is not increased (614.7a)."""
    board = {"players": [{"id": "A"}, {"id": "B"}],
             "creatures": [{"id": "t", "controller": "A", "power": 3, "toughness": 9, "keywords": ["trample"],
                            "attacking": "B"},
                           {"id": "w", "controller": "B", "power": 2, "toughness": 2,
                            "protection_from": ["creatures"], "blocking": ["t"]}],
             "effects": [{"kind": "double", "sources": ["t"], "recipients": ["B"]}]}
    code, out, _ = run_main(capsys, "solve", write(tmp_path, "b.json", board), "--format", "table",
                            "--objective", "player_damage")
    assert code == 0
    lines = out.splitlines()
    assert any(re.search(r"\bt\s+-> w\s+2\s+\[regular, by A\]\s+dealt 0 \(702\.16e\)$", line) for line in lines), out
    assert any(re.search(r"\bt\s+-> B\s+1\s+\[regular, by A\]\s+dealt 2 \(614\.1a\)$", line) for line in lines), out
    shielded = {"players": [{"id": "A"}, {"id": "B"}],
                "creatures": [{"id": "o", "controller": "A", "power": 3, "toughness": 3, "attacking": "B"}],
                "effects": [{"kind": "prevent", "amount": 2, "recipients": ["B"]}]}
    code, out, _ = run_main(capsys, "solve", write(tmp_path, "s.json", shielded), "--format", "table")
    assert code == 0 and any(line.endswith("dealt 1 (615.7)") for line in out.splitlines()), out
    shielded["effects"].append({"kind": "double", "recipients": ["B"]})
    code, out, _ = run_main(capsys, "solve", write(tmp_path, "d.json", shielded), "--format", "table")
    assert code == 0 and any(line.endswith("(615.7, 614.1a, 616.1)") for line in out.splitlines()), out
    shielded["effects"] = [{"kind": "prevent", "amount": 3, "recipients": ["B"]},
                           {"kind": "add", "amount": 1, "recipients": ["B"]}]  # B shields first: 0, and 0 + nothing
    code, out, _ = run_main(capsys, "solve", write(tmp_path, "a.json", shielded), "--format", "table")
    assert code == 0 and any(line.endswith("dealt 0 (615.7, 614.1a, 614.7a, 616.1)") for line in out.splitlines()), out


def test_check_text_says_when_effects_were_applied_in_board_order(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """616.1: a 3/3's damage to a 0/4 under a doubler (#0) and a "prevent the next 2" shield (#1):
    in board order 6 - 2 = 4 (the 0/4 dies); B may order the shield first: (3 - 2) x 2 = 2. Without
    dealing choices the checker applies board order and says so; with them it does not."""
    path = str(ROOT / "examples" / "shield-and-furnace-order.json")
    line = write(tmp_path, "a.json", {"assignments": [entry("ogre", "wall", 3)]})
    code, out, _ = run_main(capsys, "check", path, line, "--format", "text")
    assert code == 0 and "wall 0/4: 4 damage" in out
    assert "applied in board order" in out and "616.1" in out and "615.7" in out
    chosen = write(tmp_path, "c.json", {"assignments": [entry("ogre", "wall", 3)],
                                        "dealing": [{"step": "regular", "source": "ogre", "target": "wall",
                                                     "order": [1, 0]}]})
    code, out, _ = run_main(capsys, "check", path, chosen, "--format", "text")
    assert code == 0 and "wall 0/4: 2 damage" in out and "board order" not in out


def test_table_of_a_board_without_attackers_says_there_is_no_combat_damage_step(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """508.8: with no attacking creature there is no combat damage step at all."""
    board = {"players": [{"id": "A"}, {"id": "B"}],
             "creatures": [{"id": "x", "controller": "A", "power": 2, "toughness": 2}]}
    code, out, _ = run_main(capsys, "solve", write(tmp_path, "b.json", board), "--format", "table")
    assert code == 0 and "508.8" in out.splitlines()[0] and "510.1a" not in out.splitlines()[0]


def test_check_of_one_sides_line_says_the_other_creatures_damage_is_missing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """510.1a: check judges the whole combat; a line that leaves out B's blocker is illegal, and the
    message says that its damage was not given rather than that it assigned 0."""
    code, out, _ = run_main(capsys, "check", write(tmp_path, "b.json", TRAMPLE_BOARD),
                            write(tmp_path, "a.json", [entry("a1", "b1", 4)]), "--format", "text")
    assert code == 1 and "gives none of its damage" in out and "but assigns 0" not in out
    assert "without a step" not in out  # one damage step: nothing to say about steps


def test_check_of_a_line_without_steps_on_a_two_step_board_says_what_an_entry_without_a_step_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """510.4 / 702.4b: a double striker's entries without "step" are all regular-step damage, so its
    first-strike damage is missing; the message says how an entry without a step is read."""
    board = {"players": [{"id": "A"}, {"id": "B"}],
             "creatures": [{"id": "d", "controller": "A", "power": 3, "toughness": 3, "keywords": ["double strike"],
                            "attacking": "B"}]}
    code, out, _ = run_main(capsys, "check", write(tmp_path, "b.json", board),
                            write(tmp_path, "a.json", [entry("d", "B", 3)]), "--format", "text")
    assert code == 1 and "gives none of its damage" in out and "[first-strike step]" in out
    assert "; an entry without a step is regular-step damage" in out


@pytest.mark.parametrize("option, value, problem", [
    ("--time-limit", "-1", "expected a positive number of seconds"),
    ("--objective", "kills,foo", "unknown objective 'foo'"),
    ("--player", "Z", "unknown player 'Z'"),
])
def test_solve_names_a_bad_option_as_the_command_line_gives_it(option: str, value: str, problem: str, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys, "solve", write(tmp_path, "b.json", TRAMPLE_BOARD), option, value)
    assert (code, out) == (2, "")
    assert err.startswith(f"mtg-combat: error: {option}: ") and problem in err and err.count("\n") == 1
