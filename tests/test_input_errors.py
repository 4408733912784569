"""Bad input (issue 2, "Bad input"): typed exceptions naming the field, and exit 2 with one line.

Every case is checked twice: through the Python API (``load_board`` / ``solve`` / ``check`` raise a
typed :class:`ValueError` subclass whose ``.field`` names the offending field and whose message
states the problem) and through the CLI (exit status 2, exactly one line on stderr naming the field,
never a traceback). The last part checks that valid input in odd spellings is accepted.
"""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field, replace
from itertools import islice, product
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boards import banding_boards, boards, examples
from optimizer import Keyword, check, load_board, solve
from optimizer.board import Board, Creature, Effect, EffectKind, Planeswalker, Selector
from optimizer.assignment import Assignment, Step
from optimizer.bruteforce import player_options
from optimizer.cli import main
from optimizer.errors import (InputError, InvalidAssignmentError, InvalidBoardError, InvalidRequestError,
                              NotSupportedError)
from optimizer.rules import damage_steps, first_step, simplest_line
from optimizer.schema import MAX_NUMBER, checked_board

ROOT = Path(__file__).resolve().parent.parent


# --------------------------------------------------------------------------------------------------
# A valid board every bad case starts from.
#   players[0] = A (active), players[1] = B
#   planeswalkers[0] = pw (B's), battles[0] = siege (controlled by A, protected by B)
#   creatures[0] = a1: A's 4/3 trampler attacking B
#   creatures[1] = b1: B's 2/3 blocking a1
#   creatures[2] = a2: A's 2/2, not in combat
# --------------------------------------------------------------------------------------------------
def base_board() -> dict[str, Any]:
    return {
        "players": [{"id": "A", "life": 20}, {"id": "B", "life": 20}],
        "planeswalkers": [{"id": "pw", "controller": "B", "loyalty": 3}],
        "battles": [{"id": "siege", "controller": "A", "protector": "B", "defense": 5}],
        "creatures": [
            {"id": "a1", "controller": "A", "power": 4, "toughness": 3, "keywords": ["trample"],
             "attacking": "B"},
            {"id": "b1", "controller": "B", "power": 2, "toughness": 3, "blocking": ["a1"]},
            {"id": "a2", "controller": "A", "power": 2, "toughness": 2},
        ],
    }


LEGAL_ASSIGNMENT = {"assignments": [
    {"source": "a1", "target": "b1", "amount": 3},
    {"source": "a1", "target": "B", "amount": 1},
    {"source": "b1", "target": "a1", "amount": 2},
]}


def with_board(change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    board = base_board()
    change(board)
    return board


def creature(board: dict[str, Any], i: int) -> dict[str, Any]:
    return board["creatures"][i]


def three_players(board: dict[str, Any]) -> None:
    board["players"].append({"id": "C", "life": 20})


@dataclass
class Case:
    id: str
    kind: str  # "board" (load_board / solve), "request" (solve options), "assignment" (check)
    exc: type[InputError]
    fields: tuple[str, ...]  # acceptable values of .field; the first is the preferred one
    problem: str  # regex the message must match (it states the problem)
    board: dict[str, Any] | None = None
    raw: bytes | None = None  # board file content, for input that is not a JSON dict
    request: dict[str, Any] = field(default_factory=dict)  # keyword arguments to solve()
    cli_args: tuple[str, ...] = ()
    assignment: Any = None
    raw_assignment: bytes | None = None
    xfail: str | None = None


def bcase(id: str, board: dict[str, Any], fields: str | tuple[str, ...], problem: str,
          exc: type[InputError] = InvalidBoardError, xfail: str | None = None) -> Case:
    return Case(id, "board", exc, (fields,) if isinstance(fields, str) else fields, problem, board=board,
                xfail=xfail)


def rawcase(id: str, raw: bytes, fields: str | tuple[str, ...], problem: str, xfail: str | None = None) -> Case:
    return Case(id, "board", InvalidBoardError, (fields,) if isinstance(fields, str) else fields, problem,
                raw=raw, xfail=xfail)


def rcase(id: str, request: dict[str, Any], cli_args: tuple[str, ...], fld: str, problem: str) -> Case:
    return Case(id, "request", InvalidRequestError, (fld,), problem, board=base_board(), request=request,
                cli_args=cli_args)


def acase(id: str, assignment: Any, fields: str | tuple[str, ...], problem: str,
          raw: bytes | None = None) -> Case:
    return Case(id, "assignment", InvalidAssignmentError, (fields,) if isinstance(fields, str) else fields,
                problem, board=base_board(), assignment=assignment, raw_assignment=raw)


def entries(*items: dict[str, Any]) -> dict[str, Any]:
    return {"assignments": list(items)}


BIG = MAX_NUMBER + 1
BOUND = rf"(?i)({MAX_NUMBER}|{MAX_NUMBER:,}|{MAX_NUMBER:_}|bound|beyond|less than|greater than|at most|too (large|big))"

CASES: list[Case] = [
    # ---- malformed JSON ---------------------------------------------------------------------------
    rawcase("malformed-json", b'{"players": [{"id": "A"},', "board", r"(?i)json"),
    rawcase("malformed-json-trailing-comma", b'{"players": [{"id": "A"}],}', "board", r"(?i)json"),
    rawcase("empty-file", b"", "board", r"(?i)json"),
    rawcase("json-not-an-object", b'[{"id": "A"}]', "board", r"(?i)object"),
    rawcase("file-not-utf8", b'\xff\xfe{"players": []}', "board", r"(?i)utf|decode|encoding|json"),
    rawcase("json-nested-too-deep", b"[" * 100_000 + b"]" * 100_000, "board", r"(?i)json|deep|nest"),
    rawcase("integer-with-5000-digits", b'{"players": [{"id": "A", "life": ' + b"9" * 5000 + b"}]}",
            ("players[0].life", "board"), r"(?i)digits|json|beyond"),
    # ---- missing fields ---------------------------------------------------------------------------
    bcase("missing-players", with_board(lambda b: b.pop("players")), "players", r"(?i)required|missing"),
    bcase("empty-players", with_board(lambda b: b.update(players=[])), "players", r"(?i)at least|empty|1"),
    bcase("missing-creature-power", with_board(lambda b: creature(b, 0).pop("power")),
          "creatures[0].power", r"(?i)required|missing"),
    bcase("missing-creature-toughness", with_board(lambda b: creature(b, 1).pop("toughness")),
          "creatures[1].toughness", r"(?i)required|missing"),
    bcase("missing-creature-controller", with_board(lambda b: creature(b, 1).pop("controller")),
          "creatures[1].controller", r"(?i)required|missing"),
    bcase("missing-creature-id", with_board(lambda b: creature(b, 2).pop("id")),
          "creatures[2].id", r"(?i)required|missing"),
    bcase("missing-player-id", with_board(lambda b: b["players"][1].pop("id")),
          "players[1].id", r"(?i)required|missing"),
    bcase("missing-planeswalker-loyalty", with_board(lambda b: b["planeswalkers"][0].pop("loyalty")),
          "planeswalkers[0].loyalty", r"(?i)required|missing"),
    bcase("missing-battle-protector", with_board(lambda b: b["battles"][0].pop("protector")),
          "battles[0].protector", r"(?i)required|missing"),
    # ---- mistyped fields --------------------------------------------------------------------------
    bcase("power-string", with_board(lambda b: creature(b, 0).update(power="4")),
          "creatures[0].power", r"(?i)integer"),
    bcase("power-float", with_board(lambda b: creature(b, 0).update(power=4.5)),
          "creatures[0].power", r"(?i)integer"),
    bcase("power-bool", with_board(lambda b: creature(b, 0).update(power=True)),
          "creatures[0].power", r"(?i)integer"),
    bcase("toughness-null", with_board(lambda b: creature(b, 1).update(toughness=None)),
          "creatures[1].toughness", r"(?i)integer"),
    bcase("life-string", with_board(lambda b: b["players"][1].update(life="20")),
          "players[1].life", r"(?i)integer"),
    bcase("id-number", with_board(lambda b: creature(b, 2).update(id=7)),
          "creatures[2].id", r"(?i)string"),
    bcase("id-empty", with_board(lambda b: creature(b, 2).update(id="")),
          "creatures[2].id", r"(?i)empty|at least|character"),
    bcase("keywords-string-not-list", with_board(lambda b: creature(b, 0).update(keywords="trample")),
          "creatures[0].keywords", r"(?i)list"),
    bcase("keyword-number", with_board(lambda b: creature(b, 0).update(keywords=["trample", 3])),
          "creatures[0].keywords[1]", r"(?i)string"),
    bcase("blocking-string-not-list", with_board(lambda b: creature(b, 1).update(blocking="a1")),
          "creatures[1].blocking", r"(?i)list"),
    bcase("attacking-number", with_board(lambda b: creature(b, 0).update(attacking=2)),
          "creatures[0].attacking", r"(?i)string"),
    bcase("commander-string", with_board(lambda b: creature(b, 0).update(commander="yes")),
          "creatures[0].commander", r"(?i)bool"),
    bcase("blocked-string", with_board(lambda b: creature(b, 0).update(blocked="true")),
          "creatures[0].blocked", r"(?i)bool"),
    bcase("player-not-object", with_board(lambda b: b["players"].__setitem__(1, "B")),
          "players[1]", r"(?i)object|dict"),
    bcase("creatures-not-list", with_board(lambda b: b.update(creatures={"a1": {}})),
          "creatures", r"(?i)list"),
    bcase("unknown-top-level-field", with_board(lambda b: b.update(attackers=["a1"])),
          "attackers", r"(?i)unknown|extra|not (permitted|allowed)"),
    bcase("unknown-creature-field", with_board(lambda b: creature(b, 0).update(flying=True)),
          "creatures[0].flying", r"(?i)unknown|extra|not (permitted|allowed)"),
    bcase("unknown-player-field", with_board(lambda b: b["players"][0].update(hand=7)),
          "players[0].hand", r"(?i)unknown|extra|not (permitted|allowed)"),
    # ---- duplicate ids ----------------------------------------------------------------------------
    bcase("duplicate-creature-id", with_board(lambda b: creature(b, 2).update(id="a1")),
          ("creatures[2].id", "creatures[0].id"), r"(?i)duplicate.*a1|a1.*duplicate"),
    bcase("creature-id-equals-player-id", with_board(lambda b: creature(b, 2).update(id="B")),
          ("creatures[2].id", "players[1].id"), r"(?i)duplicate.*B|B.*duplicate"),
    bcase("planeswalker-id-equals-battle-id",
          with_board(lambda b: b["battles"][0].update(id="pw")),
          ("battles[0].id", "planeswalkers[0].id"), r"(?i)duplicate.*pw|pw.*duplicate"),
    bcase("duplicate-player-id", with_board(lambda b: b["players"][1].update(id="A")),
          ("players[1].id", "players[0].id"), r"(?i)duplicate.*A|A.*duplicate"),
    # ---- references to unknown ids ----------------------------------------------------------------
    bcase("attacking-unknown-id", with_board(lambda b: creature(b, 0).update(attacking="Z")),
          "creatures[0].attacking", r"(?i)unknown.*Z"),
    bcase("blocking-unknown-id", with_board(lambda b: creature(b, 1).update(blocking=["zz"])),
          "creatures[1].blocking[0]", r"(?i)unknown.*zz"),
    bcase("creature-controller-unknown", with_board(lambda b: creature(b, 2).update(controller="Z")),
          "creatures[2].controller", r"(?i)unknown.*Z"),
    bcase("planeswalker-controller-unknown",
          with_board(lambda b: b["planeswalkers"][0].update(controller="Z")),
          "planeswalkers[0].controller", r"(?i)unknown.*Z"),
    bcase("battle-protector-unknown", with_board(lambda b: b["battles"][0].update(protector="Z")),
          "battles[0].protector", r"(?i)unknown.*Z"),
    bcase("active-player-unknown", with_board(lambda b: b.update(active_player="Z")),
          "active_player", r"(?i)unknown.*Z"),
    bcase("commander-damage-from-non-commander-creature",
          with_board(lambda b: b["players"][1].update(commander_damage={"a1": 5})),
          "players[1].commander_damage.a1", r"(?i)commander"),
    bcase("commander-damage-key-differs-from-a-commander-only-in-case",  # it would count as another commander
          with_board(lambda b: (b["creatures"][0].update(commander=True),
                                b["players"][1].update(commander_damage={"A1": 16}))),
          "players[1].commander_damage.A1", r"did you mean 'a1'\?"),
    # ---- attacking and blocking -------------------------------------------------------------------
    bcase("attacking-and-blocking",
          with_board(lambda b: creature(b, 2).update(attacking="B", blocking=["a1"])),
          ("creatures[2].blocking", "creatures[2].attacking", "creatures[2]"),
          r"(?i)(attacking.*blocking|blocking.*attacking)"),
    bcase("blocking-non-attacker", with_board(lambda b: creature(b, 1).update(blocking=["a2"])),
          "creatures[1].blocking[0]", r"(?i)a2.*not attacking|not attacking.*a2"),
    bcase("blocking-second-non-attacker",
          with_board(lambda b: creature(b, 1).update(blocking=["a1", "a2"])),
          "creatures[1].blocking[1]", r"(?i)a2.*not attacking|not attacking.*a2"),
    bcase("blocking-a-player", with_board(lambda b: creature(b, 1).update(blocking=["A"])),
          "creatures[1].blocking[0]", r"(?i)\bA\b.*(not (a creature|attacking))"),
    bcase("blocking-same-attacker-twice",
          with_board(lambda b: creature(b, 1).update(blocking=["a1", "a1"])),
          "creatures[1].blocking[1]", r"(?i)twice|duplicate|more than once"),
    bcase("blocker-controlled-by-attacker",
          with_board(lambda b: creature(b, 1).update(controller="A")),
          ("creatures[1].blocking[0]", "creatures[1].controller"), r"(?i)controll|defend"),
    bcase("blocker-controlled-by-other-opponent",
          with_board(lambda b: (three_players(b), creature(b, 1).update(controller="C"))),
          ("creatures[1].blocking[0]", "creatures[1].controller"), r"(?i)\bC\b.*(controll|defend)"),
    bcase("blocker-of-planeswalker-attacker-from-wrong-player",
          with_board(lambda b: (three_players(b), b["planeswalkers"][0].update(controller="C"),
                                creature(b, 0).update(attacking="pw"))),
          ("creatures[1].blocking[0]", "creatures[1].controller"), r"(?i)controll|defend"),
    bcase("attacking-yourself", with_board(lambda b: creature(b, 0).update(attacking="A")),
          "creatures[0].attacking", r"(?i)own|itself|yourself|controller"),
    bcase("attacking-own-planeswalker",
          with_board(lambda b: b["planeswalkers"][0].update(controller="A")
                     or creature(b, 0).update(attacking="pw")),
          "creatures[0].attacking", r"(?i)own|controller|controls"),
    bcase("attacking-battle-you-protect",
          with_board(lambda b: b["battles"][0].update(controller="B", protector="A")
                     or creature(b, 0).update(attacking="siege")),
          "creatures[0].attacking", r"(?i)protect"),
    bcase("attacking-a-creature", with_board(lambda b: creature(b, 0).update(attacking="a2")),
          "creatures[0].attacking", r"(?i)a2.*not a (player|planeswalker)|player, planeswalker or battle"),
    bcase("attacker-not-controlled-by-active-player",
          with_board(lambda b: b.update(active_player="B")),
          "creatures[0].attacking", r"(?i)active"),
    bcase("blocked-false-while-blocked", with_board(lambda b: creature(b, 0).update(blocked=False)),
          "creatures[0].blocked", r"(?i)b1.*block|block.*b1"),
    bcase("blocked-on-non-attacker", with_board(lambda b: creature(b, 2).update(blocked=True)),
          "creatures[2].blocked", r"(?i)attack"),
    bcase("blocked-on-blocker", with_board(lambda b: creature(b, 1).update(blocked=True)),
          "creatures[1].blocked", r"(?i)attack"),
    # ---- numbers that cannot be --------------------------------------------------------------------
    bcase("negative-marked-damage", with_board(lambda b: creature(b, 1).update(damage=-1)),
          "creatures[1].damage", r"(?i)negative|-1"),
    bcase("toughness-zero", with_board(lambda b: creature(b, 1).update(toughness=0)),
          "creatures[1].toughness", r"(?i)toughness|0"),
    bcase("toughness-negative", with_board(lambda b: creature(b, 2).update(toughness=-2)),
          "creatures[2].toughness", r"(?i)toughness|-2"),
    bcase("lethal-damage-marked", with_board(lambda b: creature(b, 1).update(damage=3)),
          "creatures[1].damage", r"(?i)lethal|destroyed|704\.5g|toughness"),
    bcase("more-than-lethal-damage-marked-not-in-combat",
          with_board(lambda b: creature(b, 2).update(damage=5)),
          "creatures[2].damage", r"(?i)lethal|destroyed|704\.5g|toughness"),
    bcase("lethal-damage-marked-with-other-keywords",
          with_board(lambda b: creature(b, 1).update(damage=3, keywords=["deathtouch", "flying"])),
          "creatures[1].damage", r"(?i)lethal|destroyed|704\.5g|toughness"),
    bcase("player-at-zero-life", with_board(lambda b: b["players"][1].update(life=0)),
          "players[1].life", r"(?i)life|lost|704\.5a"),
    bcase("player-with-ten-poison", with_board(lambda b: b["players"][1].update(poison=10)),
          "players[1].poison", r"(?i)poison|lost|704\.5c"),
    bcase("negative-poison", with_board(lambda b: b["players"][1].update(poison=-1)),
          "players[1].poison", r"(?i)negative|greater than or equal to 0|-1"),
    bcase("planeswalker-zero-loyalty", with_board(lambda b: b["planeswalkers"][0].update(loyalty=0)),
          "planeswalkers[0].loyalty", r"(?i)loyalty|704\.5i"),
    bcase("battle-zero-defense", with_board(lambda b: b["battles"][0].update(defense=0)),
          "battles[0].defense", r"(?i)defense|704\.5v"),
    bcase("negative-toxic", with_board(lambda b: creature(b, 0).update(toxic=-1)),
          "creatures[0].toxic", r"(?i)negative|greater than or equal to 0|-1"),
    # ---- numbers beyond the documented bound ------------------------------------------------------
    bcase("power-beyond-bound", with_board(lambda b: creature(b, 0).update(power=BIG)),
          "creatures[0].power", BOUND),
    bcase("power-below-negative-bound", with_board(lambda b: creature(b, 0).update(power=-BIG)),
          "creatures[0].power", BOUND),
    bcase("toughness-beyond-bound", with_board(lambda b: creature(b, 1).update(toughness=BIG)),
          "creatures[1].toughness", BOUND),
    bcase("damage-beyond-bound",
          with_board(lambda b: creature(b, 1).update(damage=BIG, keywords=["indestructible"])),
          "creatures[1].damage", BOUND),
    bcase("value-beyond-bound", with_board(lambda b: creature(b, 1).update(value=BIG)),
          "creatures[1].value", BOUND),
    bcase("life-beyond-bound", with_board(lambda b: b["players"][0].update(life=BIG)),
          "players[0].life", BOUND),
    bcase("loyalty-beyond-bound", with_board(lambda b: b["planeswalkers"][0].update(loyalty=BIG)),
          "planeswalkers[0].loyalty", BOUND),
    bcase("defense-beyond-bound", with_board(lambda b: b["battles"][0].update(defense=BIG)),
          "battles[0].defense", BOUND),
    bcase("toxic-field-beyond-bound", with_board(lambda b: creature(b, 0).update(toxic=BIG)),
          "creatures[0].toxic", BOUND),
    bcase("toxic-keyword-beyond-bound",
          with_board(lambda b: creature(b, 0).update(keywords=["trample", f"Toxic {BIG}"])),
          ("creatures[0].toxic", "creatures[0].keywords[1]", "creatures[0].keywords"), BOUND),
    bcase("toxic-keyword-with-5000-digits",
          with_board(lambda b: creature(b, 0).update(keywords=["trample", "Toxic " + "9" * 5000])),
          ("creatures[0].toxic", "creatures[0].keywords[1]", "creatures[0].keywords"), BOUND),
    bcase("too-many-creatures",
          with_board(lambda b: b["creatures"].extend(
              {"id": f"x{i}", "controller": "A", "power": 1, "toughness": 1} for i in range(1000))),
          "creatures", r"(?i)1000|1,000|at most|too many"),
    # ---- keywords ---------------------------------------------------------------------------------
    bcase("toxic-keyword-without-number",
          with_board(lambda b: creature(b, 0).update(keywords=["trample", "Toxic"])),
          ("creatures[0].keywords[1]", "creatures[0].keywords"), r"(?i)toxic.*number|number.*toxic"),
    bcase("empty-keyword", with_board(lambda b: creature(b, 0).update(keywords=["trample", "  "])),
          ("creatures[0].keywords[1]", "creatures[0].keywords"), r"(?i)empty"),
    # a near miss of a modeled keyword would change the answer if it were ignored
    bcase("keyword-typo", with_board(lambda b: creature(b, 0).update(keywords=["trample", "Firststrike"])),
          "creatures[0].keywords[1]", r"(?i)did you mean 'first strike'"),
    bcase("keyword-singular", with_board(lambda b: creature(b, 0).update(keywords=["trample over planeswalker"])),
          "creatures[0].keywords[0]", r"(?i)did you mean 'trample over planeswalkers'"),
    # abilities that change combat damage but are not modeled: refused for a creature in combat
    bcase("protection-from-a-card-type",
          with_board(lambda b: creature(b, 1).update(keywords=["Protection from artifacts"])),
          "creatures[1].keywords[0]", r"(?i)artifacts is not modeled.*702\.16a", exc=NotSupportedError),
    bcase("protection-from-colors-and-a-type",
          with_board(lambda b: creature(b, 1).update(keywords=["protection from red and from Humans"])),
          "creatures[1].keywords[0]", r"(?i)humans is not modeled", exc=NotSupportedError),
    bcase("bands-with-other", with_board(lambda b: creature(b, 1).update(keywords=["Bands with other Legends"])),
          "creatures[1].keywords[0]", r"(?i)not modeled.*702\.22j", exc=NotSupportedError),
    # ---- JSON objects and effect selections ---------------------------------------------------------
    rawcase("duplicate-json-key", b'{"players": [{"id": "A"}], "players": [{"id": "B"}]}', "board",
            r"(?i)\"players\" appears twice"),
    bcase("empty-commander-damage-key", with_board(lambda b: b["players"][1].update(commander_damage={"": 3})),
          'players[1].commander_damage[""]', r"(?i)key.*at least 1 character"),
    bcase("selection-object-with-a-typo",
          with_board(lambda b: b.update(effects=[{"kind": "prevent", "sources": {"controler": "A"}}])),
          ("effects[0].sources.controller", "effects[0].sources.controler"), r"(?i)required|extra|not permitted"),
    bcase("selection-list-with-a-number",
          with_board(lambda b: b.update(effects=[{"kind": "prevent", "recipients": ["b1", 5]}])),
          "effects[0].recipients[1]", r"(?i)string"),
    bcase("selection-of-another-kind", with_board(lambda b: b.update(effects=[{"kind": "prevent", "recipients": 3}])),
          "effects[0].recipients", r'"all", a list of ids, or \{"controller"'),
    # ---- solve requests ---------------------------------------------------------------------------
    rcase("unknown-objective", {"objective": ["kills", "bogus"]}, ("--objective", "kills,bogus"),
          "objective", r"(?i)unknown.*bogus"),
    rcase("empty-objective", {"objective": []}, ("--objective", ""), "objective", r"(?i)empty|objective"),
    rcase("objective-listed-twice", {"objective": ["kills", "kills"]}, ("--objective", "kills,kills"),
          "objective", r"(?i)twice|duplicate"),
    rcase("unknown-player", {"player": "Z"}, ("--player", "Z"), "player", r"(?i)unknown.*Z"),
    rcase("player-is-a-creature", {"player": "a1"}, ("--player", "a1"), "player", r"(?i)a1"),
    rcase("negative-time-limit", {"time_limit": -1}, ("--time-limit", "-1"), "time_limit",
          r"(?i)positive|negative|-1"),
    rcase("zero-time-limit", {"time_limit": 0}, ("--time-limit", "0"), "time_limit", r"(?i)positive|0"),
    rcase("time-limit-beyond-any-clock", {"time_limit": 10**400}, ("--time-limit", "1e12"), "time_limit",
          r"at most 1e\+09 seconds"),
    # ---- assignment files for check ---------------------------------------------------------------
    acase("dealing-shield-index-not-ascii-digits",
          dict(LEGAL_ASSIGNMENT, dealing=[{"step": "regular", "source": "a1", "target": "b1", "order": [],
                                           "prevented": {"\u00b2": 1}}]),
          'dealing[0].prevented["\\u00b2"]', r"(?i)not the index of a shield"),
    acase("dealing-two-choices-for-one-damage",
          dict(LEGAL_ASSIGNMENT, dealing=[{"step": "regular", "source": "a1", "target": "b1", "order": []}] * 2),
          "dealing[1]", r"a second choice for a1's regular damage to b1 \(also dealing\[0\]\)"),
    acase("assignment-field-with-a-line-break", entries({"source": "a1", "target": "b1", "amount": 3, "x\ny": 1}),
          'assignments[0]["x\\ny"]', r"(?i)unknown field"),
    acase("assignment-unknown-source", entries({"source": "zz", "target": "b1", "amount": 1}),
          "assignments[0].source", r"zz"),
    acase("assignment-source-is-a-player",
          entries(*LEGAL_ASSIGNMENT["assignments"], {"source": "B", "target": "a1", "amount": 1}),
          "assignments[3].source", r"\bB\b.*creature|creature.*\bB\b"),
    acase("assignment-unknown-target", entries({"source": "a1", "target": "nowhere", "amount": 4}),
          "assignments[0].target", r"nowhere"),
    acase("assignment-negative-amount",
          entries({"source": "a1", "target": "b1", "amount": 6}, {"source": "a1", "target": "B", "amount": -2}),
          "assignments[1].amount", r"(?i)negative|-2"),
    acase("assignment-float-amount", entries({"source": "a1", "target": "b1", "amount": 2.5}),
          "assignments[0].amount", r"(?i)integer"),
    acase("assignment-string-amount", entries({"source": "a1", "target": "b1", "amount": "4"}),
          "assignments[0].amount", r"(?i)integer"),
    acase("assignment-bool-amount", entries({"source": "a1", "target": "b1", "amount": True}),
          "assignments[0].amount", r"(?i)integer"),
    acase("assignment-missing-amount", entries({"source": "a1", "target": "b1"}),
          "assignments[0].amount", r"(?i)required|missing"),
    acase("assignment-missing-target", entries({"source": "a1", "amount": 4}),
          "assignments[0].target", r"(?i)required|missing"),
    acase("assignment-missing-source",
          entries(LEGAL_ASSIGNMENT["assignments"][0], {"target": "a1", "amount": 2}),
          "assignments[1].source", r"(?i)required|missing"),
    acase("assignment-unknown-field", entries({"source": "a1", "target": "b1", "amount": 4, "dmg": 4}),
          "assignments[0].dmg", r"(?i)unknown|extra|not (permitted|allowed)"),
    acase("assignment-bad-step", entries({"step": "second", "source": "a1", "target": "b1", "amount": 4}),
          "assignments[0].step", r"second"),
    acase("assignment-entry-not-object", entries("a1->b1"), "assignments[0]", r"(?i)object"),
    acase("assignment-not-a-list", {"assignments": {"a1": 4}}, "assignments", r"(?i)list"),
    acase("assignment-missing-top-level-key", {"assignment": []}, "assignments", r"(?i)missing|expected"),
    acase("assignment-malformed-json", None, ("assignment", "assignments"), r"(?i)json",
          raw=b'{"assignments": [{"source": "a1",'),
]

assert len({c.id for c in CASES}) == len(CASES)


def params(cases: list[Case]) -> list[Any]:
    out = []
    for c in cases:
        marks = [pytest.mark.xfail(reason=c.xfail, strict=True)] if c.xfail else []
        out.append(pytest.param(c, id=c.id, marks=marks))
    return out


def write_board(case: Case, tmp_path: Path) -> Path:
    path = tmp_path / "board.json"
    if case.raw is not None:
        path.write_bytes(case.raw)
    else:
        path.write_text(json.dumps(case.board), encoding="utf-8")
    return path


def write_assignment(case: Case, tmp_path: Path) -> Path:
    path = tmp_path / "assignment.json"
    if case.raw_assignment is not None:
        path.write_bytes(case.raw_assignment)
    else:
        path.write_text(json.dumps(case.assignment), encoding="utf-8")
    return path


def cli_argv(case: Case, tmp_path: Path) -> list[str]:
    board = str(write_board(case, tmp_path))
    if case.kind == "assignment":
        return ["check", board, str(write_assignment(case, tmp_path))]
    return ["solve", board, "--format", "json", *case.cli_args]


def assert_names_field(exc: InputError, case: Case) -> None:
    assert isinstance(exc, ValueError)
    assert type(exc) is case.exc, f"expected {case.exc.__name__}, got {type(exc).__name__}: {exc}"
    assert exc.field in case.fields, f"field {exc.field!r} is not one of {case.fields}"
    assert exc.field in str(exc)
    assert re.search(case.problem, str(exc)), f"message {str(exc)!r} does not match {case.problem!r}"


def test_the_base_board_and_assignment_are_valid() -> None:
    board = load_board(base_board())
    verdict = check(board, LEGAL_ASSIGNMENT)
    assert verdict.legal, verdict.violations
    result = solve(base_board())
    assert result.status == "optimal"


@pytest.mark.parametrize("case", params([c for c in CASES if c.raw_assignment is None]))
def test_api_raises_typed_error_naming_the_field(case: Case, tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        if case.kind == "board":
            load_board(str(write_board(case, tmp_path)) if case.raw is not None else copy.deepcopy(case.board))
        elif case.kind == "request":
            solve(copy.deepcopy(case.board), **case.request)
        else:  # check() takes parsed data: malformed assignment JSON is the CLI's business
            check(load_board(copy.deepcopy(case.board)), copy.deepcopy(case.assignment))
    assert_names_field(info.value, case)


BOARD_CASES = [c for c in CASES if c.kind == "board" and c.raw is None]


@pytest.mark.parametrize("case", params(BOARD_CASES))
def test_solve_api_raises_the_same_error_as_load_board(case: Case) -> None:
    with pytest.raises(InputError) as info:
        solve(copy.deepcopy(case.board))
    assert_names_field(info.value, case)


@pytest.mark.parametrize("case", params(CASES))
def test_cli_exits_2_with_one_line_naming_the_field(case: Case, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    code = main(cli_argv(case, tmp_path))
    out, err = capsys.readouterr()
    assert code == 2, f"exit {code}, stderr {err!r}"
    assert "Traceback" not in err
    lines = err.strip("\n").split("\n")
    assert len(lines) == 1, f"expected one line on stderr, got {err!r}"
    # a request's field is named as the command line gives it: time_limit as --time-limit
    fields = [f"--{f.replace('_', '-')}" if case.kind == "request" else f for f in case.fields]
    assert any(f in lines[0] for f in fields), f"{lines[0]!r} names none of {fields}"
    assert re.search(case.problem, lines[0]), f"{lines[0]!r} does not match {case.problem!r}"
    assert out == ""


@pytest.mark.parametrize("case", params(BOARD_CASES[:12]))
def test_cli_check_rejects_bad_boards_too(case: Case, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assignment = tmp_path / "assignment.json"
    assignment.write_text(json.dumps(LEGAL_ASSIGNMENT), encoding="utf-8")
    code = main(["check", str(write_board(case, tmp_path)), str(assignment)])
    _, err = capsys.readouterr()
    assert code == 2
    assert len(err.strip("\n").split("\n")) == 1 and any(f in err for f in case.fields)


SUBPROCESS_CASES = ["malformed-json", "duplicate-creature-id", "blocking-non-attacker",
                    "power-beyond-bound", "unknown-objective", "bands-with-other",
                    "assignment-negative-amount"]


def run_cli(args: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "optimizer", *args], input=stdin, capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=120)


@pytest.mark.parametrize("case", params([c for c in CASES if c.id in SUBPROCESS_CASES]))
def test_cli_subprocess_exits_2_with_one_line(case: Case, tmp_path: Path) -> None:
    proc = run_cli(cli_argv(case, tmp_path))
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip("\n").split("\n")
    assert len(lines) == 1, proc.stderr
    assert any(f in lines[0] for f in case.fields)
    assert proc.stdout == ""


def test_cli_subprocess_malformed_json_on_stdin() -> None:
    proc = run_cli(["solve", "-"], stdin='{"players": [')
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "board" in proc.stderr and "JSON" in proc.stderr


ODD_FILES = {"file-not-utf8", "json-nested-too-deep", "integer-with-5000-digits"}


@pytest.mark.parametrize("case", params([c for c in CASES if c.id in ODD_FILES]))
def test_cli_subprocess_odd_files_exit_2_not_3(case: Case, tmp_path: Path) -> None:
    proc = run_cli(["solve", str(write_board(case, tmp_path))])
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 2, proc.stderr[:300]


def test_cli_missing_board_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.json"
    assert main(["solve", str(missing)]) == 2
    _, err = capsys.readouterr()
    assert len(err.strip().splitlines()) == 1 and "board" in err and "nope.json" in err


def test_cli_missing_assignment_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = tmp_path / "board.json"
    board.write_text(json.dumps(base_board()), encoding="utf-8")
    assert main(["check", str(board), str(tmp_path / "nope.json")]) == 2
    _, err = capsys.readouterr()
    assert len(err.strip().splitlines()) == 1 and "assignment" in err and "nope.json" in err


def test_cli_non_numeric_time_limit_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = tmp_path / "board.json"
    board.write_text(json.dumps(base_board()), encoding="utf-8")
    with pytest.raises(SystemExit) as info:  # argparse rejects it before main's body runs
        main(["solve", str(board), "--time-limit", "soon"])
    assert info.value.code == 2
    _, err = capsys.readouterr()
    assert "Traceback" not in err and "time-limit" in err


def test_cli_error_is_one_line_even_if_the_field_name_has_a_newline(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = base_board()
    board["bad\nfield"] = 1
    path = tmp_path / "board.json"
    path.write_text(json.dumps(board), encoding="utf-8")
    assert main(["solve", str(path)]) == 2
    _, err = capsys.readouterr()
    assert len(err.strip("\n").split("\n")) == 1, err


@pytest.mark.parametrize("objective", [5, {"kills": 1}, {"kills"}, b"kills"], ids=["number", "dict", "set", "bytes"])
def test_solve_api_rejects_an_objective_that_is_not_a_list_or_a_string(objective: Any) -> None:
    with pytest.raises(InvalidRequestError) as info:
        solve(base_board(), objective=objective)
    assert info.value.field == "objective"
    assert "list" in str(info.value)


# --------------------------------------------------------------------------------------------------
# Valid input in odd spellings is accepted
# --------------------------------------------------------------------------------------------------
def two_player(*creatures: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"players": [{"id": "A", "life": 20}, {"id": "B", "life": 20}], "creatures": list(creatures), **extra}


@pytest.mark.parametrize("spelling", ["trample", "Trample", "TRAMPLE", "  trample "])
def test_trample_spellings_trample_over(spelling: str) -> None:
    # 4/3 trampler blocked by an undamaged 1/1: lethal is 1, so 3 can trample over (702.19b).
    board = two_player(
        {"id": "a1", "controller": "A", "power": 4, "toughness": 3, "keywords": [spelling], "attacking": "B"},
        {"id": "b1", "controller": "B", "power": 1, "toughness": 1, "blocking": ["a1"]})
    result = solve(board, objective=["player_damage"])
    assert result.objective == {"player_damage": 3}
    assert result.warnings == ()


@pytest.mark.parametrize("spelling", ["Trample over planeswalkers", "trample_over_planeswalkers",
                                      "Trample-Over-Planeswalkers", "TRAMPLE over_PLANESWALKERS"])
def test_trample_over_planeswalkers_spellings(spelling: str) -> None:
    # 3 power at a 1-loyalty planeswalker, unblocked: 1 to it, 2 past it to its controller (702.19c).
    board = two_player(
        {"id": "a1", "controller": "A", "power": 3, "toughness": 3, "keywords": [spelling], "attacking": "pw"},
        planeswalkers=[{"id": "pw", "controller": "B", "loyalty": 1}])
    result = solve(board, objective=["player_damage", "loyalty"])
    assert result.objective == {"player_damage": 2, "loyalty": 1}
    assert "pw" in result.outcome.destroyed
    assert result.warnings == ()


@pytest.mark.parametrize("spelling", ["Deathtouch", "DEATHTOUCH", "deathtouch "])
def test_deathtouch_spelling(spelling: str) -> None:
    board = two_player(
        {"id": "a1", "controller": "A", "power": 1, "toughness": 1, "keywords": [spelling], "attacking": "B"},
        {"id": "b1", "controller": "B", "power": 1, "toughness": 6, "blocking": ["a1"]})
    result = solve(board, objective=["kills"])
    assert result.objective == {"kills": 1}


@pytest.mark.parametrize("spelling", ["double_strike", "Double Strike", "first-strike", "First strike"])
def test_strike_keywords_on_a_creature_not_in_combat_are_fine(spelling: str) -> None:
    board = two_player(
        {"id": "a1", "controller": "A", "power": 2, "toughness": 2, "attacking": "B"},
        {"id": "home", "controller": "A", "power": 3, "toughness": 3, "keywords": [spelling]},
        {"id": "b9", "controller": "B", "power": 3, "toughness": 3, "keywords": [spelling]})
    result = solve(board, objective=["player_damage"])
    assert result.status == "optimal"
    assert result.objective == {"player_damage": 2}


@pytest.mark.parametrize("spelling", ["Toxic 2", "toxic 2", "TOXIC_2", "toxic-2"])
def test_toxic_keyword_equals_toxic_field(spelling: str) -> None:
    attacker = {"id": "a1", "controller": "A", "power": 1, "toughness": 1, "attacking": "B"}
    with_keyword = two_player(dict(attacker, keywords=[spelling]))
    with_field = two_player(dict(attacker, toxic=2))
    objective = ["poison", "player_damage"]
    r1 = solve(with_keyword, objective=objective)
    r2 = solve(with_field, objective=objective)
    # 1 combat damage to B, and toxic 2 gives 2 poison counters (702.164c)
    assert r1.objective == r2.objective == {"poison": 2, "player_damage": 1}
    assert r1.outcome.to_dict() == r2.outcome.to_dict()
    assert r1.outcome.players["B"].poison == 2
    assert load_board(with_keyword).creature("a1").toxic == 2


def test_other_keywords_warn_and_do_not_change_the_answer() -> None:
    def board(extra: list[str]) -> dict[str, Any]:
        return two_player(
            {"id": "a1", "controller": "A", "power": 4, "toughness": 3, "attacking": "B",
             "keywords": ["trample", *extra]},
            {"id": "b1", "controller": "B", "power": 2, "toughness": 3, "damage": 1, "blocking": ["a1"],
             "keywords": ["Reach"] if extra else []},
            {"id": "a2", "controller": "A", "power": 1, "toughness": 1, "attacking": "B",
             "keywords": ["menace"] if extra else []})
    plain = solve(board([]))
    odd = solve(board(["Flying", "vigilance"]))
    assert plain.warnings == ()
    assert plain.to_dict() | {"warnings": []} == odd.to_dict() | {"warnings": []}
    text = " ".join(odd.warnings).lower()
    for keyword in ("flying", "vigilance", "reach", "menace"):
        assert keyword in text, odd.warnings
    assert odd.to_dict()["warnings"] == list(odd.warnings)
    # b1 needs 2 more for lethal; the rest (2) tramples over, plus a2's 1 unblocked
    assert plain.objective["player_damage"] == 3


def test_an_unknown_keyword_is_ignored_with_a_warning_that_does_not_vouch_for_it() -> None:
    board = two_player(
        {"id": "a1", "controller": "A", "power": 2, "toughness": 2, "attacking": "B",
         "keywords": ["Ward {2}", "Ward—Pay 3 life", "Poisonous 1"]})
    warnings = solve(board).warnings
    assert len(warnings) == 3, warnings
    *wards, poisonous = warnings
    for ward, text in zip(wards, ["Ward {2}", "Ward—Pay 3 life"]):
        assert ward == f"creatures[0].keywords: {text!r} on 'a1' does not change combat damage; ignored"
    assert poisonous == ("creatures[0].keywords: 'Poisonous 1' on 'a1' is not a keyword the optimizer knows; "
                         "ignored, so the answer assumes it does not change combat damage")


PROTECTED_BLOCKER = {"id": "b1", "controller": "B", "power": 1, "toughness": 2, "blocking": ["a1"]}


@pytest.mark.parametrize("attacker_colors, protection, field_qualities", [
    (["red"], "Protection from red", ["red"]),
    (["red"], "protection from black and from red", ["black", "red"]),
    (["green", "red"], "Protection from white, from blue, and from green", ["white", "blue", "green"]),
    (["blue"], "protection from all colors", ["white", "blue", "black", "red", "green"]),
    ([], "Protection from creatures", ["creatures"]),
    ([], "protection from everything", ["everything"]),
    (["red"], "Protection from white, red", ["white", "red"]),
    (["blue"], "protection from red, white and blue", ["red", "white", "blue"]),
])
def test_protection_written_as_a_keyword_is_the_protection_from_field(
        attacker_colors: list[str], protection: str, field_qualities: list[str]) -> None:
    # 702.16e: the 3/3's damage to a blocker protected from one of its qualities is prevented
    def board(blocker: dict[str, Any]) -> dict[str, Any]:
        return two_player({"id": "a1", "controller": "A", "power": 3, "toughness": 3, "colors": attacker_colors,
                           "attacking": "B"}, blocker)
    as_keyword = solve(board(dict(PROTECTED_BLOCKER, keywords=[protection])), objective=["kills"])
    as_field = solve(board(dict(PROTECTED_BLOCKER, protection_from=field_qualities)), objective=["kills"])
    unprotected = solve(board(PROTECTED_BLOCKER), objective=["kills"])
    assert unprotected.objective == {"kills": 1}
    assert as_keyword.objective == as_field.objective == {"kills": 0}
    assert as_keyword.warnings == ()
    assert as_keyword.outcome.to_dict() == as_field.outcome.to_dict()
    assert load_board(board(dict(PROTECTED_BLOCKER, keywords=[protection]))).creature("b1").protection_from \
        == frozenset(field_qualities)


@pytest.mark.parametrize("text", ["Protection from artifacts", "Bands with other Dinosaurs"])
def test_an_unmodeled_ability_on_a_creature_out_of_combat_is_only_a_warning(text: str) -> None:
    board = two_player({"id": "a1", "controller": "A", "power": 2, "toughness": 2, "attacking": "B"},
                       {"id": "b9", "controller": "B", "power": 1, "toughness": 1, "keywords": [text]})
    result = solve(board, objective=["player_damage"])
    assert result.objective == {"player_damage": 2}
    assert result.warnings == (f"creatures[1].keywords: {text!r} on 'b9' is not modeled; ignored, as the "
                               "creature is not in combat",)


def test_indestructible_creature_may_have_lethal_damage_marked() -> None:
    board = two_player(
        {"id": "a1", "controller": "A", "power": 2, "toughness": 2, "attacking": "B", "damage": 5,
         "keywords": ["Indestructible"]})
    result = solve(board, objective=["player_damage"])
    assert result.objective == {"player_damage": 2}


def test_numbers_at_the_bound_are_accepted() -> None:
    m = MAX_NUMBER
    board = two_player(
        {"id": "a1", "controller": "A", "power": m, "toughness": m, "damage": m - 1, "value": m, "toxic": m,
         "keywords": ["trample"], "attacking": "B"},
        {"id": "b1", "controller": "B", "power": -m, "toughness": m, "value": -m, "blocking": ["a1"]})
    board["players"][1]["life"] = m
    result = solve(board, objective=["player_damage", "kills"])
    # lethal for b1 is m, exactly a1's power: nothing is left to trample over
    assert result.objective == {"player_damage": 0, "kills": 1}


@pytest.mark.parametrize("board, field, problem", [
    ({"players": [{"id": "A"}, {"id": "B", "commander_damage": {"A": 5}}]},
     "players[1].commander_damage.A", "not a creature"),
    ({"players": [{"id": "A"}, {"id": "B"}],
      "battles": [{"id": "s", "controller": "B", "protector": "B", "defense": 3}]},
     "battles[0].protector", "opponent"),
])
def test_impossible_references_are_rejected(board, field, problem):
    """Commander damage comes from a creature (903.10a); a battle's protector is not its controller."""
    with pytest.raises(InvalidBoardError) as info:
        load_board(board)
    assert info.value.field == field and problem in info.value.problem


def test_check_api_rejects_a_dealing_choice_that_does_not_fit_the_damage() -> None:
    """616.1: an order must list exactly the effects that apply to that damage; a wrong one is an
    input error naming ``dealing``, not a crash."""
    from optimizer import DealingChoice, Step
    from optimizer.assignment import Assignment

    board = load_board({"active_player": "A", "players": [{"id": "A"}, {"id": "B"}],
                        "creatures": [{"id": "a", "controller": "A", "power": 2, "toughness": 2, "attacking": "B"},
                                      {"id": "b", "controller": "B", "power": 0, "toughness": 5, "blocking": ["a"]}],
                        "effects": [{"kind": "double"}, {"kind": "prevent", "amount": 3, "recipients": ["b"]}]})
    with pytest.raises(InvalidAssignmentError) as info:
        check(board, (Assignment(Step.REGULAR, "a", "b", 2),), [DealingChoice(Step.REGULAR, "a", "b", (0,))])
    assert info.value.field == "dealing" and "(0, 1)" in info.value.problem


def test_check_api_reads_dealing_as_json_and_rejects_what_is_not_an_assignment() -> None:
    """The API takes ``dealing`` as ``solve`` writes it (dicts) as well as records; anything that is
    not an assignment is a typed error naming ``assignments``, never an AttributeError."""
    board = load_board({"active_player": "A", "players": [{"id": "A"}, {"id": "B"}],
                        "creatures": [{"id": "a", "controller": "A", "power": 3, "toughness": 3, "attacking": "B"}],
                        "effects": [{"kind": "add", "amount": 2}, {"kind": "double"}]})
    result = solve(board)
    as_json = result.to_dict()
    for dealing in (result.dealing, as_json["dealing"]):
        assert check(board, as_json["assignments"], dealing).outcome == result.outcome
    assert check(board, as_json).outcome == result.outcome  # a whole result, as it is
    for bad in ("nonsense", 5, [object()], (x for x in ["a"])):
        with pytest.raises(InvalidAssignmentError) as info:
            check(board, bad)
        assert info.value.field.startswith("assignments")
    with pytest.raises(InvalidAssignmentError) as info:
        check(board, as_json, result.dealing)
    assert info.value.field == "dealing" and "twice" in info.value.problem


def test_a_request_whose_command_is_not_a_string_is_an_error_naming_it() -> None:
    from optimizer.protocol import answer

    for command, kind in ((["check"], "an array"), ({"x": 1}, "an object"), (3, "a number")):
        ok, line = answer(json.dumps({"id": 1, "command": command, "board": base_board()}))
        assert not ok and json.loads(line)["error"] == f"command: expected one of solve, check, got {kind}"


def test_a_board_file_may_start_with_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(base_board()).encode())
    assert load_board(str(path)) == load_board(base_board())


def test_an_integer_too_long_to_read_is_named_without_python_advice(tmp_path: Path) -> None:
    path = tmp_path / "digits.json"
    path.write_bytes(b'{"players": [{"id": "A", "life": ' + b"9" * 5000 + b"}]}")
    with pytest.raises(InvalidBoardError) as info:
        load_board(str(path))
    assert info.value.problem == "malformed JSON: an integer with more than 4300 digits"


def test_check_api_reads_a_board_as_solve_does() -> None:
    """``optimizer.check`` takes a dict or a path like ``solve``; the rules layer's ``check`` takes a
    Board and says so with a typed error."""
    from optimizer.check import check as rules_check

    assert check(base_board(), LEGAL_ASSIGNMENT).legal
    with pytest.raises(InvalidBoardError) as info:
        check(5, LEGAL_ASSIGNMENT)
    assert info.value.field == "board"
    with pytest.raises(InvalidBoardError) as info:
        rules_check(base_board(), LEGAL_ASSIGNMENT)
    assert "expected a Board" in info.value.problem


SHIELDED = {"players": [{"id": "A"}, {"id": "B"}],
            "creatures": [{"id": "a", "controller": "A", "power": 3, "toughness": 3, "attacking": "B"}],
            "effects": [{"kind": "prevent", "amount": 2, "recipients": ["B"]}, {"kind": "double", "recipients": ["B"]}]}
HIT = [{"source": "a", "target": "B", "amount": 3}]


@pytest.mark.parametrize("data, field", [
    ({"assignments": HIT, "dealing": [{"step": "regular", "source": "a", "target": "B", "order": [0, 1],
                                       "prevented": {0: 2}}]}, "dealing[0].prevented.0"),
    ({"assignments": HIT, "dealing": [{"step": "regular", "source": "a", "target": "B", "order": [0, 1],
                                       "prevented": {"0\n": 2}}]}, 'dealing[0].prevented["0\\n"]'),
    ({"assignments": [{**HIT[0], 7: 1}]}, "assignments[0].7"),
    ({"assignments": HIT, 7: 1}, "7"),
])
def test_check_api_keys_that_are_not_field_names_are_errors_naming_them(data: Any, field: str) -> None:
    """Python callers may pass keys JSON cannot (numbers), or shield indexes with a line break: each is
    an error naming the key, never a TypeError or a shield read twice."""
    with pytest.raises(InvalidAssignmentError) as info:
        check(load_board(SHIELDED), data)
    assert info.value.field == field


def test_dealing_records_are_read_as_their_json_is() -> None:
    """616.1 / 615.7: a :class:`DealingChoice` record from Python gets the checks a JSON entry gets: a
    step given as text is that step (the order it names applies: the shield first, (3 - 2) x 2 = 2
    damage to the 0/4, which lives), and a bad step, order or shield is a typed error naming it."""
    from optimizer import DealingChoice, Step

    board = load_board(FURNACE_SHIELD)
    step_as_text = DealingChoice("regular", "ogre", "wall", (1, 0), ((1, 2),))  # type: ignore[arg-type]
    as_text = check(board, OGRE_HITS, [step_as_text])
    assert as_text.legal and as_text.outcome is not None and as_text.outcome.creatures["wall"].damage == 2
    for record, field in [
        (DealingChoice("bogus", "ogre", "wall", (1, 0), ((1, 2),)), "dealing[0].step"),  # type: ignore[arg-type]
        (DealingChoice(Step.REGULAR, "ogre", "wall", None, ()), "dealing[0].order"),  # type: ignore[arg-type]
        (DealingChoice(Step.REGULAR, "ogre", "wall", (1, 0), (99,)), "dealing[0].prevented"),  # type: ignore[arg-type]
        (DealingChoice(Step.REGULAR, "ogre", "wall", (1, 0), ((0, 2),)), "dealing[0].prevented.0"),  # not a shield
        (DealingChoice(Step.REGULAR, "nobody", "wall", (1, 0), ()), "dealing[0].source"),
        (DealingChoice(Step.REGULAR, "ogre", "wall", (1, 0), ((1, 0), (1, 2))), "dealing[0].prevented"),  # twice
        (DealingChoice(Step.REGULAR, "ogre", "wall", (1, 0), (("1", 2),)), "dealing[0].prevented"),  # type: ignore
    ]:
        with pytest.raises(InvalidAssignmentError) as info:
            check(board, OGRE_HITS, [record])
        assert info.value.field == field, (record, info.value)


def test_two_dealing_choices_for_one_damage_are_an_error_however_they_are_given() -> None:
    from optimizer import DealingChoice, Step

    first = DealingChoice(Step.REGULAR, "a", "B", (0, 1), ((0, 2),))
    second = {"step": "regular", "source": "a", "target": "B", "order": [1, 0], "prevented": {"0": 2}}
    for dealing in ([first, DealingChoice(Step.REGULAR, "a", "B", (1, 0), ((0, 2),))], [first, second]):
        with pytest.raises(InvalidAssignmentError) as info:
            check(load_board(SHIELDED), HIT, dealing)
        assert info.value.field == "dealing[1]" and "a second choice" in info.value.problem


@pytest.mark.parametrize("dealing, problem", [
    (None, None),  # null: no choices, as when left out
    (5, "expected a list of dealing choices"),
    ("ab", "expected a list of dealing choices"),  # not "given twice"
    ({"a": 1}, "expected a list of dealing choices"),
])
def test_dealing_beside_an_assignment_that_has_its_own_is_read_or_rejected_by_type(dealing: Any,
                                                                                   problem: str | None) -> None:
    data = {"assignments": HIT, "dealing": []}
    if problem is None:
        assert check(load_board(SHIELDED), data, dealing).legal
        return
    with pytest.raises(InvalidAssignmentError) as info:
        check(load_board(SHIELDED), data, dealing)
    assert (info.value.field, info.value.problem) == ("dealing", problem)


@pytest.mark.parametrize("choice", [
    {"step": "first_strike", "source": "a", "target": "B", "order": [0, 1]},  # one damage step on this board
    {"step": "regular", "source": "a", "target": "A", "order": []},  # a does not damage A
])
def test_a_dealing_choice_for_damage_not_assigned_is_an_error_not_ignored(choice: dict[str, Any]) -> None:
    # ignoring it would judge the damage with the board-order default the caller meant to override
    with pytest.raises(InvalidAssignmentError) as info:
        check(load_board(SHIELDED), {"assignments": HIT, "dealing": [choice]})
    assert info.value.field == "dealing[0]" and "assigns no" in info.value.problem and "616.1" in info.value.problem


def test_assignment_records_get_the_checks_json_entries_get() -> None:
    from optimizer import Step
    from optimizer.assignment import Assignment

    board = load_board(SHIELDED)
    hit = Assignment(Step.REGULAR, "a", "B", 3)
    assert check(board, [hit]).outcome == check(board, (hit,)).outcome == check(board, HIT).outcome  # list or tuple
    split = (Assignment(Step.REGULAR, "a", "B", 1), Assignment(Step.REGULAR, "a", "B", 2))
    assert check(board, split).outcome == check(board, HIT).outcome  # entries for one damage add up
    for bad, field in (((Assignment(Step.REGULAR, "a", "B", 2.5), Assignment(Step.REGULAR, "a", "B", 0.5)),
                        "assignments[0].amount"),
                       ((Assignment(Step.REGULAR, "a", "B", "3"),), "assignments[0].amount"),
                       ((Assignment(Step.REGULAR, "zz", "B", 3),), "assignments[0].source"),
                       ((Assignment("second", "a", "B", 3),), "assignments[0].step")):
        with pytest.raises(InvalidAssignmentError) as info:
            check(board, bad)
        assert info.value.field == field


def test_an_amount_too_large_for_any_creature_is_an_error_naming_it() -> None:
    huge = 10 ** 4299  # two of them add up to a number Python will not print
    with pytest.raises(InvalidAssignmentError) as info:
        check(load_board(SHIELDED), [{"source": "a", "target": "B", "amount": huge}] * 2)
    assert info.value.field == "assignments[0].amount" and "beyond 1,000,000,000" in info.value.problem
    with pytest.raises(InvalidAssignmentError) as info:
        check(load_board(SHIELDED), [{"source": "a", "target": "B", "amount": 10 ** 9}] * 2)
    assert info.value.field == "assignments[1].amount" and "earlier entries" in info.value.problem


def test_a_shield_index_is_written_as_json_writes_it() -> None:
    with pytest.raises(InvalidAssignmentError) as info:
        check(load_board(SHIELDED), {"assignments": HIT, "dealing": [
            {"step": "regular", "source": "a", "target": "B", "order": [0, 1], "prevented": {"00": 2}}]})
    assert info.value.field == "dealing[0].prevented.00" and "not the index of a shield" in info.value.problem


@pytest.mark.parametrize("texts", [["Flying, first strike"], ["Flying\nFirst strike"], ["Ward {2}; first strike"],
                                   ["flying", "First strike (This creature deals combat damage before creatures "
                                    "without first strike.)"]])
def test_keywords_written_together_or_with_reminder_text_are_each_read(texts: list[str]) -> None:
    board = two_player({"id": "a1", "controller": "A", "power": 2, "toughness": 2, "attacking": "B",
                        "keywords": texts},
                       {"id": "b1", "controller": "B", "power": 2, "toughness": 2, "blocking": ["a1"]})
    assert load_board(board).creature("a1").keywords == {Keyword.FIRST_STRIKE}
    result = solve(board, objective=["survivors"])
    assert result.objective == {"survivors": 1}  # first strike kills the blocker before it deals damage
    assert len(result.warnings) == 1 and "does not change combat damage" in result.warnings[0]


@pytest.mark.parametrize("text, keywords, protection", [
    ("First strike and trample", {Keyword.FIRST_STRIKE, Keyword.TRAMPLE}, set()),
    ("Flying, first strike, lifelink and trample", {Keyword.FIRST_STRIKE, Keyword.LIFELINK, Keyword.TRAMPLE}, set()),
    ("First strike, and lifelink", {Keyword.FIRST_STRIKE, Keyword.LIFELINK}, set()),
    ("first strike & trample", {Keyword.FIRST_STRIKE, Keyword.TRAMPLE}, set()),
    ("Trample (This creature can deal excess combat damage", {Keyword.TRAMPLE}, set()),  # reminder text left open
    ("Deathtouch (reminder left open\nLifelink", {Keyword.DEATHTOUCH, Keyword.LIFELINK}, set()),  # ... to its line's end
    ("Infect (reminder left open; trample", {Keyword.INFECT, Keyword.TRAMPLE}, set()),
    ("Deathtouch and protection from black and from red", {Keyword.DEATHTOUCH}, {"black", "red"}),
    ("flying, protection from black & from red", set(), {"black", "red"}),
    ("Deathtouch.", {Keyword.DEATHTOUCH}, set()),  # as Oracle text may end
    ("Protection from Red, Blue", set(), {"red", "blue"}),  # case-insensitive, commas included
    ("Toxic 3, Protection from Black, Green", set(), {"black", "green"}),
    ("Deathtouch and protection from black and green", {Keyword.DEATHTOUCH}, {"black", "green"}),
    ("protection from red, creatures", set(), {"red", "creatures"}),
    ("Lifelink and hexproof from white and from blue", {Keyword.LIFELINK}, set()),  # "and from": one hexproof
    ("Kicker {R} and/or {W} and trample", {Keyword.TRAMPLE}, set()),  # "and/or" joins no keywords
])
def test_the_last_keywords_of_a_list_joined_by_and_are_each_read(text: str, keywords: set[Keyword],
                                                                 protection: set[str]) -> None:
    attacker = {"id": "a1", "controller": "A", "power": 2, "toughness": 2, "attacking": "B", "keywords": [text]}
    read = load_board(two_player(attacker)).creature("a1")
    assert (read.keywords, read.protection_from) == (keywords, protection)


@pytest.mark.parametrize("text", ["Hexproof from white and from blue", "Kicker {R} and/or {W}"])
def test_and_inside_one_ignored_keyword_keeps_it_whole(text: str) -> None:
    # one keyword known not to change combat damage, not two texts of which one is unknown
    attacker = {"id": "a1", "controller": "A", "power": 2, "toughness": 2, "attacking": "B", "keywords": [text]}
    warnings = load_board(two_player(attacker)).warnings
    assert len(warnings) == 1 and repr(text) in warnings[0] and "does not change combat damage" in warnings[0]


def test_first_strike_lifelink_and_trample_in_one_text_find_lethal() -> None:
    # B at 4 life. a (2/2 "Flying, first strike, lifelink and trample") is blocked by a 2/1: in the
    # first-strike step it assigns 1 to the blocker (lethal, 702.19b) and 1 to B (B at 3); A gains the 2
    # it dealt (702.15b); the blocker dies before the regular step, where the unblocked 3/3 deals 3: B at 0
    # (704.5a). Were "lifelink and trample" ignored, B would survive at 1.
    board = {"players": [{"id": "A"}, {"id": "B", "life": 4}], "creatures": [
        {"id": "a", "controller": "A", "power": 2, "toughness": 2, "attacking": "B",
         "keywords": ["Flying, first strike, lifelink and trample"]},
        {"id": "b", "controller": "B", "power": 2, "toughness": 1, "blocking": ["a"]},
        {"id": "u", "controller": "A", "power": 3, "toughness": 3, "attacking": "B"}]}
    result = solve(board, objective=["lethal", "player_damage", "life_gained"])
    assert result.objective == {"lethal": 1, "player_damage": 4, "life_gained": 2}


@pytest.mark.parametrize("text, named", [
    ("deathtouch lifelink", "deathtouch"), ("Double strike\ttrample", "double strike"),
    ("first strike as long as it's your turn", "first strike"),
    ("Ward {2} Lifelink", "lifelink"), ("Hexproof from white lifelink", "lifelink"),  # not a parameter
    ("Reach with first strike", "first strike"), ("protection: red", "protection"),
    ("can't be blocked except by creatures with protection from red", "protection"),  # not its own protection
])
def test_a_text_naming_a_modeled_keyword_among_other_words_is_an_error(text: str, named: str) -> None:
    # ignoring it, as an unknown keyword, would drop a keyword that changes the answer
    attacker = {"id": "a1", "controller": "A", "power": 2, "toughness": 2, "attacking": "B",
                "keywords": ["flying", text]}
    with pytest.raises(InvalidBoardError) as info:
        load_board(two_player(attacker))
    assert info.value.field == "creatures[0].keywords[1]" and repr(named) in info.value.problem
    away = dict(attacker, id="home", attacking=None)  # not in combat: it changes nothing, a warning
    loaded = load_board(two_player({"id": "a1", "controller": "A", "power": 2, "toughness": 2, "attacking": "B"}, away))
    assert [w for w in loaded.warnings if repr(text) in w and "not in combat" in w]


@pytest.mark.parametrize("text", ["toxic -1", "Toxic \u22121", "Toxic X", "toxic two", "toxic 2 toxic 3", "toxic 0",
                                  "Trample, toxic -1", "toxic -1 and trample", "Toxic_-1", "toxic--1", "toxic +1",
                                  "Toxic \u0660", "Toxic \uff10", "Toxic \u0663"])
def test_toxic_without_one_positive_number_is_an_error(text: str) -> None:
    # "toxic -1" normalized like "double-strike" would read as toxic 1: a sign flip that wins the game
    attacker = {"id": "a1", "controller": "A", "power": 1, "toughness": 1, "attacking": "B", "keywords": [text]}
    with pytest.raises(InvalidBoardError) as info:
        load_board(two_player(attacker))
    assert info.value.field == "creatures[0].keywords[0]" and "toxic" in info.value.problem


def test_toxic_written_with_hyphens_or_underscores_as_spaces_is_read() -> None:
    """A single hyphen or underscore separates like a space ("First_strike"): "Toxic-2" is toxic 2."""
    for text in ("Toxic-2", "toxic_2", "TOXIC  02"):
        attacker = {"id": "a1", "controller": "A", "power": 1, "toughness": 1, "attacking": "B", "keywords": [text]}
        assert load_board(two_player(attacker)).creatures[0].toxic == 2


def test_devoid_is_not_vouched_for():
    # devoid makes a creature colorless (702.114a), which protection (702.16) can see: not "harmless"
    attacker = {"id": "a1", "controller": "A", "power": 1, "toughness": 1, "attacking": "B", "keywords": ["Devoid"]}
    warnings = load_board(two_player(attacker)).warnings
    assert len(warnings) == 1 and "assumes it does not change combat damage" in warnings[0]


def test_toxic_with_its_reminder_text() -> None:
    text = "Toxic 1 (Players dealt combat damage by this creature also get a poison counter.)"
    board = two_player({"id": "a1", "controller": "A", "power": 1, "toughness": 1, "attacking": "B",
                        "keywords": [text]})
    assert load_board(board).creature("a1").toxic == 1


def test_a_toxic_number_with_leading_zeros_is_that_number() -> None:
    attacker = {"id": "a1", "controller": "A", "power": 2, "toughness": 2, "attacking": "B", "keywords": ["Toxic 0002"]}
    assert load_board(two_player(attacker)).creature("a1").toxic == 2


def test_solve_settings_that_are_not_solver_settings_are_an_error_naming_them() -> None:
    with pytest.raises(InvalidRequestError) as info:
        solve(base_board(), settings=None)  # type: ignore[arg-type]
    assert (info.value.field, info.value.problem) == ("settings", "expected SolverSettings, got NoneType")


def test_a_board_given_as_bytes_is_named_as_not_json() -> None:
    with pytest.raises(InvalidBoardError) as info:
        load_board(json.dumps(base_board()).encode())  # type: ignore[arg-type]
    assert (info.value.field, info.value.problem) == ("board", "expected a JSON object, got a Python bytes, not parsed JSON")


# --- Boards built in Python get the checks a board read from JSON gets ------------------------------
@pytest.mark.parametrize("change, field, problem", [
    (lambda b: replace(b, active_player="Z"), "active_player", "unknown player 'Z'"),
    # the defender made active: A's trampler would attack its own controller's opponent out of turn
    (lambda b: replace(b, active_player="B"), "creatures[0].attacking", "only the active player 'B' attacks (506.2)"),
    (lambda b: replace(b, players=(b.players[0], replace(b.players[1], life=-5))), "players[1].life",
     "-5: a player at 0 or less life has already lost (704.5a)"),
    (lambda b: replace(b, creatures=(replace(b.creatures[0], blocking=("b1",)),) + b.creatures[1:]),
     "creatures[0].blocking", "a creature cannot be both attacking and blocking"),
])
def test_a_board_built_in_python_is_checked_by_solve_and_check(change: Callable[[Any], Any], field: str,
                                                                problem: str) -> None:
    board = change(load_board(base_board()))
    for call in (lambda: solve(board), lambda: check(board, LEGAL_ASSIGNMENT)):
        with pytest.raises(InvalidBoardError) as info:
            call()
        assert info.value.field == field
        assert info.value.problem.endswith(problem), info.value.problem


def test_a_well_formed_board_built_in_python_is_solved_as_the_same_board_read_from_json() -> None:
    loaded = load_board(base_board())
    rebuilt = replace(loaded, creatures=tuple(replace(c) for c in loaded.creatures))
    assert not rebuilt.loaded
    assert solve(rebuilt) == solve(loaded)
    assert check(rebuilt, LEGAL_ASSIGNMENT) == check(loaded, LEGAL_ASSIGNMENT)


def test_a_board_of_the_wrong_python_types_is_an_error_naming_the_field_or_the_board() -> None:
    loaded = load_board(base_board())
    life_as_text = replace(loaded, players=(loaded.players[0], replace(loaded.players[1], life="20")))
    with pytest.raises(InvalidBoardError) as info:
        solve(life_as_text)
    assert info.value.field == "players[1].life"
    keyword_as_number = replace(loaded, creatures=(replace(loaded.creatures[0], keywords=frozenset({7})),)
                                + loaded.creatures[1:])
    with pytest.raises(InvalidBoardError) as info:
        solve(keyword_as_number)
    assert info.value.field == "creatures[0].keywords[0]"
    not_a_mapping = replace(loaded, players=(loaded.players[0], replace(loaded.players[1], commander_damage=5)))
    with pytest.raises(InvalidBoardError) as info:
        solve(not_a_mapping)
    assert info.value.field == "players[1].commander_damage" and "dictionary" in info.value.problem


def test_a_board_between_the_damage_steps_is_checked_and_solved_as_it_is() -> None:
    # the first striker kills the planeswalker it attacks (704.5i): a state the input format refuses
    board = load_board({"players": [{"id": "A"}, {"id": "B"}],
                        "planeswalkers": [{"id": "pw", "controller": "B", "loyalty": 2}],
                        "creatures": [{"id": "f", "controller": "A", "power": 2, "toughness": 2,
                                       "keywords": ["first strike"], "attacking": "pw"},
                                      {"id": "r", "controller": "A", "power": 3, "toughness": 3, "attacking": "B"}]})
    _, later = first_step(board, (Assignment(Step.FIRST_STRIKE, "f", "pw", 2),))
    assert later is not None and later.first_strike_step_done and later.planeswalkers[0].loyalty == 0
    assert later.loaded  # made by the rules layer from a checked board
    result = solve(later)
    assert result.status == "optimal" and result.objective["player_damage"] == 3
    assert [(a.source, a.target, a.amount) for a in result.assignments] == [("r", "B", 3)]
    rebuilt = replace(later)  # built in Python: read back with the planeswalker at 0 out of combat (704.5i)
    assert not rebuilt.loaded and checked_board(rebuilt) == later
    assert solve(rebuilt) == result
    still_in = replace(later, planeswalkers=(replace(later.planeswalkers[0], removed_from_combat=False),))
    with pytest.raises(InvalidBoardError) as info:  # at 0 and still in combat: the input format refuses it
        solve(still_in)
    assert info.value.field == "planeswalkers[0].loyalty" and "704.5i" in info.value.problem


def _between_steps_board(colors: list[str] | None = None, protection: list[str] | None = None) -> Board:
    """After the first-strike step: fs dealt B 1; a1 (5/5) is blocked by b1 (1/1) and deals damage now."""
    board = load_board({"players": [{"id": "A"}, {"id": "B"}, {"id": "C", "life": 1}],
                        "creatures": [{"id": "fs", "controller": "A", "power": 1, "toughness": 1,
                                       "keywords": ["first strike"], "attacking": "C"},
                                      {"id": "a1", "controller": "A", "power": 5, "toughness": 5, "attacking": "B",
                                       **({"colors": colors} if colors else {})},
                                      {"id": "b1", "controller": "B", "power": 1, "toughness": 1, "blocking": ["a1"],
                                       **({"protection_from": protection} if protection else {})},
                                      {"id": "c1", "controller": "C", "power": 2, "toughness": 2}]})
    _, later = first_step(board, (Assignment(Step.FIRST_STRIKE, "fs", "C", 1),))
    assert later is not None and later.first_strike_step_done
    assert [p.in_game for p in later.players] == [True, True, False]  # C lost; c1 left with C (800.4a)
    assert [c.id for c in later.creatures] == ["fs", "a1", "b1"]
    return later


def _with_creature(board: Board, creature_id: str, **changes: Any) -> Board:
    return replace(board, creatures=tuple(replace(c, **changes) if c.id == creature_id else c
                                          for c in board.creatures))


def test_a_board_between_the_damage_steps_changed_in_python_is_solved_as_read_back() -> None:
    later = _between_steps_board()
    assert checked_board(replace(later)) == later
    with pytest.raises(InvalidBoardError) as info:  # unblocked, though b1 blocks it
        solve(_with_creature(later, "a1", blocked=False))
    assert info.value.field == "creatures[1].blocked" and "509.1h" in info.value.problem
    # a color spelled as JSON may spell it counts: b1's protection from red prevents a1's damage (702.16e)
    shielded = _between_steps_board(colors=["red"], protection=["red"])
    respelled = _with_creature(shielded, "a1", colors=frozenset({"Red"}))
    assert solve(respelled) == solve(shielded)
    assert "b1" not in solve(respelled).outcome.destroyed
    assert "b1" in solve(_with_creature(shielded, "a1", colors=frozenset())).outcome.destroyed


def _lost_player(board: Board, **changes: Any) -> Board:
    return replace(board, players=board.players[:2] + (replace(board.players[2], **changes),))


_GONE_C1 = Selector(ids=frozenset({"c1"}))  # C's creature left the game with C (800.4a)


@pytest.mark.parametrize("change, field", [
    (lambda b: replace(b, effects=(Effect(EffectKind.PREVENT, 2, recipients=Selector(ids=frozenset({"c1", "b1"}))),)),
     "effects[0].recipients"),  # a shield has one recipient (615.7), gone or not
    (lambda b: replace(b, effects=(Effect(EffectKind.DOUBLE, sources=_GONE_C1), Effect(EffectKind.ADD, 0))),
     "effects[1].amount"),
    (lambda b: replace(b, effects=(Effect(EffectKind.PREVENT, "x", recipients=_GONE_C1),)), "effects[0].amount"),
    (lambda b: replace(b, effects=(Effect(EffectKind.DOUBLE, sources=Selector(ids="a1")),)), "effects[0].sources"),
    (lambda b: replace(b, first_strike_step_done=1), "first_strike_step_done"),
    (lambda b: replace(b, warnings=None), "warnings"),
    (lambda b: _lost_player(b, life=-10 ** 30), "players[2].life"),
    (lambda b: _lost_player(b, in_game="no"), "players[2].in_game"),
    (lambda b: replace(b, creatures=b.creatures + (Creature("c9", "C", 1, 1, blocking=("a1",)),)),
     "creatures[3].controller"),
])
def test_a_board_between_the_damage_steps_built_in_python_gets_the_input_formats_checks(
        change: Callable[[Board], Board], field: str) -> None:
    board = change(_between_steps_board())
    for call in (lambda: solve(board), lambda: check(board, ())):
        with pytest.raises(InvalidBoardError) as info:
            call()
        assert info.value.field == field, info.value


def test_effects_between_the_damage_steps_may_name_gone_objects_and_used_up_shields() -> None:
    later = _between_steps_board()
    plain = solve(later)
    double = Effect(EffectKind.DOUBLE, sources=Selector(ids=frozenset({"a1"})))
    naming_c1 = replace(double, sources=Selector(ids=frozenset({"a1", "c1"})))
    assert checked_board(replace(later, effects=(naming_c1,))).effects == (naming_c1,)
    assert solve(replace(later, effects=(naming_c1,))).assignments == solve(replace(later, effects=(double,))).assignments
    used_up = Effect(EffectKind.PREVENT, 0, recipients=Selector(ids=frozenset({"b1"})))
    spent = solve(replace(later, effects=(used_up,)))
    assert (spent.assignments, spent.objective) == (plain.assignments, plain.objective)  # prevents nothing more
    assert "b1" in spent.outcome.destroyed
    assert solve(replace(later, effects=None)) == plain


def test_a_board_between_the_damage_steps_keeps_what_leaving_the_game_took_away() -> None:
    later = _between_steps_board()
    c1 = Creature("c1", "C", 2, 2)  # out of combat, but it left the game with C all the same
    for board, field in [(replace(later, creatures=later.creatures + (c1,)), "creatures[3].controller"),
                         (replace(later, players=(later.players[0], replace(later.players[1], in_game=False),
                                                  later.players[2]), creatures=later.creatures[:2]), "players")]:
        for call in (lambda: solve(board), lambda: check(board, ())):
            with pytest.raises(InvalidBoardError) as info:
                call()
            assert info.value.field == field, info.value
            assert ("800.4a" if field != "players" else "104.2a") in info.value.problem
    walker = Planeswalker("w", "C", 3)
    with pytest.raises(InvalidBoardError) as info:
        solve(replace(later, planeswalkers=(walker,)))
    assert info.value.field == "planeswalkers[0].removed_from_combat" and "800.4a" in info.value.problem
    kept = solve(replace(later, planeswalkers=(replace(walker, removed_from_combat=True),)))
    assert (kept.assignments, kept.objective) == (solve(later).assignments, solve(later).objective)
    assert kept.outcome.planeswalkers["w"] == 3  # out of combat: dealt no damage


@settings(max_examples=examples(150))
@given(board_json=st.one_of(boards(strikes=True), boards(pressure=True, strikes=True),
                            boards(strikes=True, effects=True), banding_boards(both_sides=True)))
def test_every_board_the_first_strike_step_leaves_is_accepted_by_solve_and_check(board_json: dict[str, Any]) -> None:
    board = load_board(board_json)
    if Step.FIRST_STRIKE not in damage_steps(board):
        return
    options = [list(islice(player_options(board, p, Step.FIRST_STRIKE, ()), 3)) for p in board.turn_order()]
    for combo in islice(product(*options), 8):
        _, later = first_step(board, tuple(a for part in combo for a in part))
        if later is not None:
            assert checked_board(later) is later
            assert checked_board(replace(later)) == later  # the same board built in Python reads back equal
            assert check(later, simplest_line(later)).legal


def test_a_player_out_of_the_game_before_combat_damage_is_an_error_naming_it() -> None:
    loaded = load_board(base_board())
    board = replace(loaded, players=(loaded.players[0], replace(loaded.players[1], in_game=False)))
    with pytest.raises(InvalidBoardError) as info:
        solve(board)
    assert info.value.field == "players[1].in_game" and "800.4a" in info.value.problem


@pytest.mark.parametrize("change, field", [
    (lambda c: replace(c, colors=frozenset({"purple"})), "creatures[0].colors[0]"),
    (lambda c: replace(c, attacking=None, blocked=True), "creatures[0].blocked"),
    (lambda c: replace(c, blocked="no"), "creatures[0].blocked"),  # not read as true (it is not false)
    (lambda c: replace(c, commander=1), "creatures[0].commander"),
    (lambda c: replace(c, may_assign_as_though_unblocked="yes"), "creatures[0].may_assign_as_though_unblocked"),
    # a string where a collection belongs is not read as its letters
    (lambda c: replace(c, colors="red"), "creatures[0].colors"),
    (lambda c: replace(c, other_keywords="flying"), "creatures[0].keywords"),
    (lambda c: replace(c, protection_from="red"), "creatures[0].protection_from"),
    (lambda c: replace(c, protection_from=frozenset({"red", 1})), "creatures[0].protection_from[1]"),
    # numbers of the wrong type at their default are not left out as the default
    (lambda c: replace(c, value=True), "creatures[0].value"),
    (lambda c: replace(c, damage=0.0), "creatures[0].damage"),
    (lambda c: replace(c, toxic=None), "creatures[0].toxic"),
])
def test_what_the_input_format_refuses_is_refused_in_a_board_built_in_python(change: Callable[[Any], Any],
                                                                              field: str) -> None:
    loaded = load_board(base_board())
    board = replace(loaded, creatures=(change(loaded.creatures[0]),) + loaded.creatures[1:])
    with pytest.raises(InvalidBoardError) as info:
        solve(board)
    assert info.value.field == field, info.value


@pytest.mark.parametrize("commander_damage", [[("a1", 3)], "a1", 5, None])
def test_commander_damage_that_is_not_a_mapping_in_a_board_built_in_python_is_named(commander_damage: Any) -> None:
    loaded = load_board(base_board())
    board = replace(loaded, players=(loaded.players[0], replace(loaded.players[1], commander_damage=commander_damage)))
    for call in (lambda: solve(board), lambda: check(board, ())):
        with pytest.raises(InvalidBoardError) as info:
            call()
        assert info.value.field == "players[1].commander_damage", info.value
        assert "dictionary" in info.value.problem


def test_keywords_and_effect_kinds_given_as_text_in_python_are_read_as_json_reads_them() -> None:
    data = base_board()
    data["effects"] = [{"kind": "double", "sources": ["a1"]}]
    loaded = load_board(data)
    texts = replace(loaded, creatures=tuple(replace(c, keywords=frozenset(k.value for k in c.keywords))
                                            for c in loaded.creatures),
                    effects=(replace(loaded.effects[0], kind="double"),))
    assert solve(texts) == solve(loaded)
    with pytest.raises(InvalidBoardError) as info:
        solve(replace(loaded, effects=(replace(loaded.effects[0], recipients=None),)))
    assert info.value.field == "effects[0].recipients"
    with pytest.raises(InvalidBoardError) as info:
        solve(replace(loaded, creatures=loaded.creatures[:1] + (replace(loaded.creatures[1], blocking="a1"),)
                      + loaded.creatures[2:]))
    assert info.value.field == "creatures[1].blocking"


def test_a_color_spelled_as_json_may_spell_it_counts_in_a_board_built_in_python() -> None:
    data = base_board()
    data["players"][1]["protection_from"] = ["red"]
    data["creatures"][1]["blocking"] = []
    loaded = load_board(data)
    red = replace(loaded, creatures=(replace(loaded.creatures[0], colors=frozenset({"Red"})),) + loaded.creatures[1:])
    assert solve(red).outcome.players["B"].life == 20  # protection from red prevents it all (702.16e)
    assert solve(loaded).outcome.players["B"].life == 16


def test_an_effect_amount_the_input_format_has_no_place_for_is_refused() -> None:
    data = base_board()
    data["effects"] = [{"kind": "double", "sources": "all", "recipients": "all"}]
    loaded = load_board(data)
    board = replace(loaded, effects=(replace(loaded.effects[0], amount=5),))
    with pytest.raises(InvalidBoardError) as info:
        solve(board)
    assert info.value.field.startswith("effects[0]"), info.value


# --- Odd arguments of the Python API -----------------------------------------------------------------
def test_a_path_with_a_nul_character_is_an_error_naming_the_board() -> None:
    for call in (lambda: load_board("a\0b.json"), lambda: solve("a\0b.json"), lambda: check("a\0b.json", [])):
        with pytest.raises(InvalidBoardError) as info:
            call()
        assert info.value.field == "board" and "NUL" in info.value.problem


def test_a_path_no_file_system_can_name_is_an_error_naming_the_board() -> None:
    """A lone surrogate has no UTF-8 form (the command line's own arguments never hold one)."""
    for call in (lambda: load_board("\ud800"), lambda: solve("b\ud800.json"), lambda: check("\ud800", [])):
        with pytest.raises(InvalidBoardError) as info:
            call()
        assert info.value.field == "board" and "is not a file name" in info.value.problem


@pytest.mark.parametrize("time_limit, problem", [
    (10**5000, "an integer of about 5000 digits: at most 1e+09 seconds"),
    (-10**5000, "'a negative integer of about 5000 digits': expected a positive number of seconds"),
], ids=["huge", "huge-negative"])
def test_a_time_limit_too_long_to_write_out_is_named_by_its_length(time_limit: int, problem: str) -> None:
    with pytest.raises(InvalidRequestError) as info:
        solve(base_board(), time_limit=time_limit)
    assert info.value.field == "time_limit" and info.value.problem.startswith(problem), info.value.problem


@pytest.mark.parametrize("bound", ["x", 0, -1, True, 2.5, None])
def test_max_combined_range_must_be_a_positive_integer(bound: Any) -> None:
    with pytest.raises(InvalidRequestError) as info:
        solve(base_board(), max_combined_range=bound)
    assert info.value.field == "max_combined_range" and "expected a positive integer" in info.value.problem


# --- Standard input and output in odd encodings ------------------------------------------------------
def test_standard_input_that_is_not_utf8_is_named_as_a_file_is(tmp_path: Path) -> None:
    data = json.dumps(base_board()).replace('"a1"', '"a\\u00e9"').encode().replace(b"\\u00e9", b"\xff")
    path = tmp_path / "board.json"
    path.write_bytes(data)
    by_file = subprocess.run([sys.executable, "-m", "optimizer", "solve", str(path)], capture_output=True,
                             cwd=ROOT, timeout=120)
    by_stdin = subprocess.run([sys.executable, "-m", "optimizer", "solve", "-"], input=data, capture_output=True,
                              cwd=ROOT, timeout=120)
    for proc in (by_file, by_stdin):
        assert proc.returncode == 2 and proc.stdout == b""
        assert b"not UTF-8 text (byte " in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert b"standard input is not UTF-8" in by_stdin.stderr


def test_a_table_on_a_terminal_that_cannot_show_a_name_escapes_it(tmp_path: Path) -> None:
    data = base_board()
    data["creatures"][0]["name"] = "\u00c9owyn \u2603"
    path = tmp_path / "board.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    env = dict(os.environ, PYTHONIOENCODING="ascii")
    proc = subprocess.run([sys.executable, "-m", "optimizer", "solve", str(path), "--format", "table"],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "a1 (\\xc9owyn \\u2603)" in proc.stdout


HUGE = 10**5000
"""An integer Python will not print (more than 4,300 digits): only the API can give one."""
FURNACE_SHIELD = ROOT / "examples" / "shield-and-furnace-order.json"
OGRE_HITS = [{"source": "ogre", "target": "wall", "amount": 3}]


@pytest.mark.parametrize("call, field", [
    (lambda b: check(b, OGRE_HITS, [{"source": "ogre", "target": "wall", "order": [HUGE]}]), "dealing[0].order"),
    (lambda b: check(b, OGRE_HITS, [{"source": "ogre", "target": "wall", "order": [1, 0], "prevented": {"1": -HUGE}}]),
     "dealing[0].prevented.1"),
    (lambda b: check(b, OGRE_HITS, [{"source": "ogre", "target": "wall", "order": [1, 0], "prevented": {"1": HUGE}}]),
     "dealing"),
    (lambda b: solve(b, player=HUGE), "player"),
    (lambda b: solve(replace(b, first_strike_step_done=HUGE)), "first_strike_step_done"),
    (lambda b: solve(replace(b, first_strike_step_done=True, players=(replace(b.players[0], in_game=HUGE),)
                             + b.players[1:])), "players[0].in_game"),
    (lambda b: solve(replace(b, first_strike_step_done=True, warnings=(HUGE,))), "warnings"),
    (lambda b: solve(replace(b, effects=(Effect(EffectKind.DOUBLE, None, Selector(ids=(HUGE,))),))),
     "effects[0].sources"),
], ids=["order", "prevented-negative", "prevented-too-much", "player", "first-strike-step-done", "in-game",
        "warnings", "selector-ids"])
def test_an_integer_too_long_to_print_is_named_not_printed(call, field) -> None:
    with pytest.raises(InputError) as info:
        call(load_board(FURNACE_SHIELD))
    assert info.value.field == field and "integer of more than 4,300 digits" in info.value.problem


def _nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


class _Unprintable:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")

    __str__ = __repr__


class _BadValue:
    def __repr__(self) -> str:  # not Python's limit on printing long integers: not named as one
        raise ValueError("boom")


@pytest.mark.parametrize("call, field", [
    (lambda b: solve(b, player=_nested(5000)), "player"),
    (lambda b: solve(b, player=_Unprintable()), "player"),
    (lambda b: check(b, [{"source": _nested(5000), "target": "wall", "amount": 3}]), "assignments[0].source"),
    (lambda b: check(b, [{"source": "ogre", "target": "wall", "amount": _nested(5000)}]), "assignments[0].amount"),
    (lambda b: solve(b, time_limit=_nested(5000)), "time_limit"),
    (lambda b: solve(b, time_limit=_Unprintable()), "time_limit"),
    (lambda b: solve(b, player=_BadValue()), "player"),
], ids=["nested-player", "unprintable-player", "nested-source", "nested-amount", "nested-time-limit",
        "unprintable-time-limit", "repr-value-error"])
def test_a_value_too_deep_or_unprintable_is_named_by_its_type(call, field) -> None:
    with pytest.raises(InputError) as info:
        call(load_board(FURNACE_SHIELD))
    assert info.value.field == field and ("nested too deeply" in info.value.problem
                                          or "cannot be printed" in info.value.problem)


def test_a_long_unknown_name_is_shortened_in_its_message(tmp_path: Path) -> None:
    with pytest.raises(InvalidRequestError) as info:
        solve(load_board(FURNACE_SHIELD), objective=["k" * 5000])
    assert info.value.field == "objective" and len(str(info.value)) < 300
    with pytest.raises(InvalidBoardError) as board_info:
        load_board({"players": [{"id": "A"}, {"id": "B"}], "effects": [{"kind": "x" * 100_000}]})
    assert board_info.value.field == "effects[0].kind" and len(str(board_info.value)) < 300


@pytest.mark.parametrize("time_limit, kind", [("1", "str"), (True, "bool"), (None.__class__, "type")],
                         ids=["string", "bool", "other"])
def test_a_time_limit_that_is_not_a_number_names_its_type(time_limit: Any, kind: str) -> None:
    from fractions import Fraction

    for value, name in ((time_limit, kind), (Fraction(1, 2), "Fraction")):
        with pytest.raises(InvalidRequestError) as info:
            solve(base_board(), time_limit=value)
        assert info.value.field == "time_limit"
        assert info.value.problem.startswith(f"expected a positive number of seconds (an int or a float), got {name} ")


def test_line_separators_and_bidirectional_marks_are_escaped_in_messages() -> None:
    from optimizer.errors import printable

    assert printable("a\u202eb\u2028c\u2066d\x1be") == "a\\u202eb\\u2028c\\u2066d\\x1be"
    assert printable("é ü 日本") == "é ü 日本"  # other characters are shown as they are
