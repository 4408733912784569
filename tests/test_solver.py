"""Solver behaviour beyond optimality: time limits, determinism, parameters, lexicographic paths."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from optimizer import InvalidRequestError, check, load_board, solve
import optimizer.game as game_module
from optimizer.assignment import Assignment, Step
from optimizer.bruteforce import brute_force
from optimizer.rules import simplest_line
from optimizer.solver import SolverSettings

# A first-strike blocker that blocks two attackers gives the defender a choice in both steps, so
# this board goes through the refinement loop (see optimizer/game.py).
REFINE_BOARD = {
    "players": [{"id": "A", "life": 20}, {"id": "B", "life": 20}],
    "creatures": [
        {"id": "lancer", "controller": "A", "power": 2, "toughness": 2, "keywords": ["double strike"],
         "value": 2, "attacking": "B"},
        {"id": "brute", "controller": "A", "power": 3, "toughness": 2, "value": 3, "attacking": "B"},
        {"id": "sentinel", "controller": "B", "power": 2, "toughness": 2, "keywords": ["first strike"],
         "value": 2, "blocking": ["lancer", "brute"]},
        {"id": "wall", "controller": "B", "power": 0, "toughness": 4, "blocking": ["lancer"]},
    ],
}

# Two steps, but the defender has no choice: one joint model.
JOINT_BOARD = {
    "players": [{"id": "A", "life": 20}, {"id": "B", "life": 20}],
    "creatures": [
        {"id": "knight", "controller": "A", "power": 3, "toughness": 3, "keywords": ["double strike"],
         "attacking": "B"},
        {"id": "squire", "controller": "B", "power": 1, "toughness": 1, "blocking": ["knight"]},
        {"id": "ogre", "controller": "B", "power": 3, "toughness": 3, "blocking": ["knight"]},
    ],
}


@pytest.mark.parametrize("data", [REFINE_BOARD, JOINT_BOARD], ids=["refine", "joint"])
def test_a_tiny_time_limit_still_returns_a_legal_line(data):
    board = load_board(data)
    result = solve(board, time_limit=1e-6)
    assert result.status in ("feasible", "optimal")
    assert check(board, result.assignments).legal
    unproven = [w for w in result.warnings if w.startswith("not proven optimal: the time limit ran out")]
    assert len(unproven) == (result.status == "feasible")


@pytest.mark.parametrize("data", [REFINE_BOARD, JOINT_BOARD], ids=["refine", "joint"])
def test_same_input_same_output(data):
    first = solve(load_board(data)).to_dict()
    assert all(solve(load_board(data)).to_dict() == first for _ in range(3))


@pytest.mark.parametrize("settings", [SolverSettings(presolve=True), SolverSettings(presolve=False),
                                      SolverSettings(linearization_level=2), SolverSettings(seed=7),
                                      SolverSettings(symmetry_level=2, probing_level=2, sat_inprocessing=True),
                                      SolverSettings(maxmin_linearization_from=0), SolverSettings(presolve_iterations=3)])
@pytest.mark.parametrize("data", [REFINE_BOARD, JOINT_BOARD], ids=["refine", "joint"])
def test_parameters_change_speed_not_the_optimum(data, settings):
    from optimizer.bruteforce import brute_force

    board = load_board(data)
    result = solve(board, settings=settings)
    assert result.status == "optimal"
    assert tuple(result.objective.values()) == brute_force(board, result.player, tuple(result.objective)).value


@pytest.mark.parametrize("objective", [["kills", "survivors"], ["survivors", "value", "kills"]])
def test_two_steps_one_objective_at_a_time_agrees_with_combined(objective):
    from optimizer.bruteforce import brute_force

    board = load_board(JOINT_BOARD)
    sequential = solve(board, objective=objective, max_combined_range=1)
    assert sequential.objective == solve(board, objective=objective).objective
    assert tuple(sequential.objective[n] for n in objective) == brute_force(board, sequential.player, objective).value


def test_a_small_board_whose_refinement_cannot_combine_the_objectives_is_searched():
    # the refinement needs one weighted objective; where the ranges may not combine (here forced by
    # max_combined_range=1) a board small enough is searched exhaustively instead (else refused:
    # test_objectives_too_wide_for_a_two_step_game_are_named_with_a_shorter_list)
    from optimizer.bruteforce import brute_force

    board = load_board(REFINE_BOARD)
    result = solve(board, objective=["value", "kills"], max_combined_range=1)
    assert result.method == "exhaustive" and result.status == "optimal"
    assert (result.objective["value"], result.objective["kills"]) == brute_force(board, "A", ["value", "kills"]).value


@pytest.mark.parametrize("amount", range(0, 8))
@pytest.mark.parametrize("caps", [(1,), (3,), (1, 1), (2, 3), (4, 1), (1, 2, 3), (3, 3, 3)])
def test_defender_replies_cover_every_distinct_outcome_once(amount, caps):
    """The refinement enumerates one split per outcome class: amounts at or above an attacker's
    toughness are one class. Compared with all splits, clamped."""
    from itertools import product

    from optimizer.splits import distinct_splits

    every = {tuple(min(v, c) for v, c in zip(split, caps))
             for split in product(range(amount + 1), repeat=len(caps)) if sum(split) == amount}
    got = [tuple(min(v, c) for v, c in zip(split, caps)) for split in distinct_splits(amount, caps)]
    assert all(sum(split) == amount for split in distinct_splits(amount, caps))
    assert sorted(got) == sorted(every)


def test_presolve_only_on_large_models_with_moderate_weights():
    """CP-SAT 9.15's presolve has answered wrongly on models with lexicographic weights near 10^12."""
    from ortools.sat.python import cp_model

    def presolve(size, scale):
        solver = cp_model.CpSolver()
        SolverSettings().apply(solver, None, size, scale)
        return solver.parameters.cp_model_presolve

    assert not presolve(10, 1) and presolve(500, 10**8) and not presolve(500, 10**12)


@dataclass(frozen=True)
class _Budget(SolverSettings):
    """The tuned settings with every CP-SAT call capped at ``budget`` deterministic seconds."""

    budget: float = 0.005

    def apply(self, solver, time_limit, size=0, scale=1, **rules):
        super().apply(solver, time_limit, size, scale, **rules)
        solver.parameters.max_deterministic_time = self.budget


MAX_MIN_BOARDS = json.loads((Path(__file__).parent / "data" / "max_min_boards.json").read_text())["boards"]


@pytest.mark.parametrize("data", MAX_MIN_BOARDS, ids=["effects-3x5", "banding-4x6"])
def test_max_min_models_are_solved_within_a_small_budget(data):
    """The refinement's max-min models (maximize t, t bounded by each scenario's total) branch on t
    first: without that, CP-SAT improved t one unit per solution on these boards (seconds per model).
    Deterministic budget, not wall time: the same on every machine. The value is the exhaustive
    search's (alpha-beta, no CP-SAT)."""
    board = load_board(data)
    result = solve(board, settings=_Budget())
    assert result.status == "optimal"
    searched = brute_force(board, result.player, list(result.objective), prune=True)
    assert tuple(result.objective.values()) == searched.value


def _big_amounts_board(n: int) -> dict:
    """Three players, amounts about ``n``. A's only lifelinker a1 (double strike, trample, n/n) is
    blocked by b1 (first strike, n/n with n-1 marked) and b2: in the first-strike step it deals its n
    (702.15b: A gains n) and b1, blocking a1 and a2, deals its n to a1, which dies (704.5g) before the
    regular step; B does that, as it minimizes A's gain. So A's best life_gained is exactly n."""
    return {"players": [{"id": "A", "life": n}, {"id": "B", "life": n}, {"id": "C", "life": n}],
            "planeswalkers": [{"id": "pw", "controller": "B", "loyalty": n}],
            "battles": [{"id": "bt", "controller": "A", "protector": "C", "defense": n}],
            "creatures": [
                {"id": "a1", "controller": "A", "power": n, "toughness": n, "attacking": "B", "value": n,
                 "keywords": ["trample", "lifelink", "double strike"]},
                {"id": "a2", "controller": "A", "power": n, "toughness": n, "attacking": "pw", "value": -n,
                 "keywords": ["trample over planeswalkers", "deathtouch"]},
                {"id": "a3", "controller": "A", "power": n - 1, "toughness": n, "keywords": ["infect", "trample"],
                 "toxic": n, "attacking": "C"},
                {"id": "a4", "controller": "A", "power": n, "toughness": 1, "keywords": ["trample"], "attacking": "bt"},
                {"id": "b1", "controller": "B", "power": n, "toughness": n, "damage": n - 1, "value": n,
                 "keywords": ["first strike"], "blocking": ["a1", "a2"]},
                {"id": "b2", "controller": "B", "power": n, "toughness": n, "blocking": ["a1"], "value": -n},
                {"id": "c1", "controller": "C", "power": n, "toughness": n, "keywords": ["lifelink"],
                 "blocking": ["a3", "a4"]}]}


def test_boards_with_large_amounts_get_the_linear_relaxation():
    """Without it CP-SAT moved the damage bounds a step at a time: this board took 16 s with amounts of
    100,000 (0.6 deterministic seconds), and its time grew with the amounts (benchmarks/bench_amounts.py).
    With it the board is proven within a deterministic budget."""
    board = load_board(_big_amounts_board(100_000))
    result = solve(board, objective=["life_gained"], settings=_Budget())
    assert (result.status, result.objective) == ("optimal", {"life_gained": 100_000})
    small = solve(_big_amounts_board(4), objective=["life_gained"], settings=_Budget())
    assert (small.status, small.objective) == ("optimal", {"life_gained": 4})


@pytest.mark.parametrize("budget", [1e-7, 2e-6, 1e-4])
@pytest.mark.parametrize("data", MAX_MIN_BOARDS + [REFINE_BOARD], ids=["effects-3x5", "banding-4x6", "refine"])
def test_a_solver_budget_that_stops_the_refinement_gives_a_legal_line(data, budget):
    """A CP-SAT call stopped before its optimum gives no bound to refine on: the refinement stops with
    the best line it has, unproven, instead of failing."""
    board = load_board(data)
    result = solve(board, settings=_Budget(budget=budget))
    assert result.status in ("feasible", "optimal")
    assert check(board, result.assignments, result.dealing).legal
    unproven = [w for w in result.warnings if w.startswith("not proven optimal: a CP-SAT solve reached its work limit")]
    assert len(unproven) == (result.status == "feasible")


def test_a_refinement_out_of_rounds_gives_its_best_verified_line_unproven(monkeypatch):
    """Each round learns a reply or a plan; boards with very many distinct replies (large amounts) may
    need more than MAX_ROUNDS. The refinement then answers with its best verified line, unproven."""
    board = load_board(REFINE_BOARD)
    optimal = solve(board)
    monkeypatch.setattr(game_module, "MAX_ROUNDS", 1)
    result = solve(board)
    assert (optimal.status, result.status) == ("optimal", "feasible")
    assert check(board, result.assignments, result.dealing).legal
    assert [w for w in result.warnings if w.startswith("not proven optimal: the refinement reached its limit of 1 round;")]
    names = list(optimal.objective)
    assert [result.objective[n] for n in names] <= [optimal.objective[n] for n in names]  # lexicographic


def test_a_verification_out_of_rounds_says_so(monkeypatch):
    """The verification by plans has its own round loop: running out of it is not a solve's work limit."""
    data = json.loads((Path(__file__).parent / "data" / "verification_rounds_board.json").read_text())
    assert solve(data).status == "optimal"
    monkeypatch.setattr(game_module, "MAX_ROUNDS", 1)
    result = solve(data)
    unproven = [w for w in result.warnings if w.startswith("not proven optimal")]
    assert result.status == "feasible" and len(unproven) == 1
    assert unproven[0].startswith("not proven optimal: the refinement reached its limit of 1 round;")


def mesh_board(n: int) -> dict:
    """n 5/5 tramplers, each blocked by all n 3/3 blockers: a one-step model of 2n^2 damage cells."""
    return {"players": [{"id": "A"}, {"id": "B"}],
            "creatures": [{"id": f"a{i}", "controller": "A", "power": 5, "toughness": 5, "keywords": ["trample"],
                           "attacking": "B"} for i in range(n)]
            + [{"id": f"b{i}", "controller": "B", "power": 3, "toughness": 3,
                "blocking": [f"a{j}" for j in range(n)]} for i in range(n)]}


def test_a_time_limit_on_a_board_too_large_to_search_still_returns_a_legal_line():
    """A time limit returns a legal line, not proven optimal, even when CP-SAT finds none in time
    (then the simplest legal line answers)."""
    board = load_board(mesh_board(70))
    result = solve(board, time_limit=0.2)
    assert result.status == "feasible"
    assert check(board, result.assignments, result.dealing).legal
    assert any(w.startswith("not proven optimal: the time limit ran out") for w in result.warnings)


@pytest.mark.parametrize("data", [REFINE_BOARD, JOINT_BOARD], ids=["refine", "joint"])
def test_when_cp_sat_finds_no_line_the_simplest_legal_line_answers(data, monkeypatch):
    def no_line(*args, **kwargs):
        raise game_module.NoLine()

    monkeypatch.setattr(game_module.Game, "_optimize", no_line)
    board = load_board(data)
    result = solve(board)
    assert result.status == "feasible" and result.assignments == simplest_line(board)
    assert check(board, result.assignments, result.dealing).legal
    assert "so this is the simplest legal one" in result.warnings[-1]


# --- independent parts (optimizer.parts) -----------------------------------------------------------

GADGET = [  # first-strike blockers that block several attackers: the defender's first-step replies
    {"id": "d", "controller": "A", "power": 2, "toughness": 2, "keywords": ["double strike"], "value": 2, "attacking": "B"},
    {"id": "t", "controller": "A", "power": 3, "toughness": 3, "keywords": ["trample"], "attacking": "B"},
    {"id": "p", "controller": "A", "power": 2, "toughness": 1, "value": 3, "attacking": "B"},
    {"id": "f", "controller": "B", "power": 2, "toughness": 3, "keywords": ["first strike"], "value": 2,
     "blocking": ["d", "t", "p"]},
    {"id": "w", "controller": "B", "power": 1, "toughness": 4, "keywords": ["lifelink"], "blocking": ["d", "t"]},
]


def gadget_copies(n: int, life: int = 1000) -> dict:
    creatures = []
    for k in range(n):
        for c in GADGET:
            c = dict(c, id=f"{c['id']}{k}")
            if "blocking" in c:
                c["blocking"] = [f"{a}{k}" for a in c["blocking"]]
            creatures.append(c)
    return {"players": [{"id": "A", "life": life}, {"id": "B", "life": life}], "creatures": creatures}


@pytest.mark.parametrize("decider, objective", [("A", ["kills", "player_damage"]), ("B", ["survivors", "life_gained"])])
def test_copies_of_a_combat_are_worth_the_copies_sum(decider: str, objective: list[str]) -> None:
    """Five copies side by side, nobody able to lose: five times one copy's game value (brute force),
    solved copy by copy (their replies would multiply: 5^5 first-step replies of the defender's)."""
    from optimizer.bruteforce import brute_force
    from optimizer.parts import independent_parts

    one = brute_force(load_board(gadget_copies(1)), decider, objective).value
    board = load_board(gadget_copies(5))
    assert len(independent_parts(board) or []) == 5
    result = solve(board, player=decider, objective=objective)
    assert result.status == "optimal"
    assert [result.objective[n] for n in objective] == [5 * v for v in one]
    assert check(board, result.assignments, result.dealing).outcome == result.outcome


@pytest.mark.parametrize("change", [
    # only t0 and t1 (trample) can reach B: d and p are blocked without trample (510.1c, 702.19d)
    lambda b: b["players"][1].update(life=6),  # t0 and t1: 3 each
    lambda b: b["creatures"][1].update(keywords=["trample", "infect"]) or b["players"][1].update(poison=7),
    lambda b: b["creatures"][1].update(commander=True) or b["players"][1].update(commander_damage={"t0": 18}),
    lambda b: b["creatures"][6].update(toxic=2) or b["players"][1].update(poison=8),  # t1: toxic 2
    lambda b: b["effects"].append({"kind": "double"}) or b["players"][1].update(life=12),  # 2 x (3 + 3)
    lambda b: b["effects"].append({"kind": "add", "amount": 1}) or b["players"][1].update(life=8),  # 4 + 4
])
def test_a_board_where_a_player_could_lose_is_not_split(change) -> None:
    from optimizer.parts import could_lose, independent_parts

    board_json = dict(gadget_copies(2, life=1000), effects=[])
    assert independent_parts(load_board(board_json)) is not None
    change(board_json)
    board = load_board(board_json)
    assert could_lose(board) and independent_parts(board) is None


def test_damage_that_cannot_reach_a_player_does_not_keep_a_board_whole() -> None:
    # B at 7: only the tramplers t0, t1 (3 each) can reach B; d and p are blocked without trample and
    # deal it nothing even if their blockers die first (510.1c, 702.19d)
    from optimizer.parts import could_lose, independent_parts

    board_json = gadget_copies(2, life=1000)
    board_json["players"][1]["life"] = 7
    board = load_board(board_json)
    assert not could_lose(board) and len(independent_parts(board) or []) == 2


def test_a_shield_on_a_player_keeps_a_board_whole() -> None:
    # 615.7: "prevent the next 3 damage" to B: what one part's damage uses up, another's cannot; a
    # shield on a creature concerns only the part that damages it
    from optimizer.parts import independent_parts

    board_json = gadget_copies(2)
    board_json["effects"] = [{"kind": "prevent", "amount": 3, "recipients": ["f0"]}]
    assert len(independent_parts(load_board(board_json)) or []) == 2
    board_json["effects"] = [{"kind": "prevent", "amount": 3, "recipients": ["B"]}]
    assert independent_parts(load_board(board_json)) is None


_M = 10**6
WIDE_BOARD = {"players": [{"id": "A", "life": _M}, {"id": "B", "life": _M}],
              "planeswalkers": [{"id": "pw", "controller": "B", "loyalty": _M}],
              "battles": [{"id": "bt", "controller": "A", "protector": "B", "defense": _M}],
              "creatures": [
                  {"id": "a1", "controller": "A", "power": _M, "toughness": _M, "attacking": "B",
                   "keywords": ["lifelink", "trample"]},
                  {"id": "a2", "controller": "A", "power": _M, "toughness": _M, "attacking": "pw", "keywords": ["trample"]},
                  {"id": "a3", "controller": "A", "power": _M, "toughness": _M, "attacking": "bt", "keywords": ["trample"]},
                  {"id": "b1", "controller": "B", "power": _M, "toughness": _M, "blocking": ["a1", "a2"],
                   "keywords": ["first strike"]}]}
"""Two steps and a first-strike blocker dividing its damage, the refinement's case, with amounts of 10^6:
the eight default objectives' ranges multiply past 2^53, so they cannot be one weighted sum."""


def test_objectives_too_wide_for_a_two_step_game_are_named_with_a_shorter_list() -> None:
    board = WIDE_BOARD
    with pytest.raises(InvalidRequestError) as info:
        solve(board)
    assert info.value.field == "objective"
    default = "alive, lethal, value, player_damage, poison, loyalty, defense, life_gained"
    assert f"({default} (the default))" in info.value.problem
    assert info.value.problem.endswith("for example lethal,value")
    assert solve(board, objective=["lethal", "value"]).status == "optimal"
    # under a time limit a line is returned instead: the better of the simplest line and the best line
    # for the first objective alone, not proven optimal, valued by the checker
    from optimizer import check
    from optimizer.objectives import objective_values
    from optimizer.rules import simplest_line

    loaded = load_board(board)
    result = solve(loaded, time_limit=10)
    assert (result.method, result.status) == ("fallback", "feasible")
    verdict = check(loaded, result.assignments, result.dealing)
    assert verdict.legal and verdict.outcome == result.outcome
    names = list(result.objective)
    assert objective_values(loaded, verdict.outcome, "A", names) == result.objective
    assert result.objective["lethal"] == solve(loaded, objective=["lethal"]).objective["lethal"]
    simplest = objective_values(loaded, check(loaded, simplest_line(loaded)).outcome, "A", names)
    assert [result.objective[n] for n in names] >= [simplest[n] for n in names]
    assert any("too wide to combine" in w and "the best line found for lethal" in w for w in result.warnings)


def test_two_objectives_too_wide_suggest_the_first_alone_and_one_objective_is_never_too_wide() -> None:
    # player_damage and life_gained range over 0 to 10^6 each: past max_combined_range=10^6 together,
    # and a creature dividing 10^6 damage is too many ways for the exhaustive search (refused)
    with pytest.raises(InvalidRequestError) as info:
        solve(WIDE_BOARD, objective=["player_damage", "life_gained"], max_combined_range=10**6)
    assert info.value.problem.endswith("list fewer objectives, for example player_damage")
    # one objective is its own scalar: nothing to combine, whatever max_combined_range says
    alone = solve(WIDE_BOARD, objective=["player_damage"], max_combined_range=1)
    assert (alone.status, alone.method) == ("optimal", "cp-sat")
    assert alone.objective == solve(WIDE_BOARD, objective=["player_damage"]).objective


def test_objectives_too_wide_for_the_refinement_on_a_small_board_are_searched() -> None:
    # the default objectives' ranges multiply past 2^53 (values of 10^6, 800,000 player damage,
    # 400,000 life gained), so the refinement's weights do not fit; the board is small, so it is
    # searched exhaustively instead of refused. B's first-strike b1 kills a1 (value 10^6) rather than
    # a2 (value 1) in the first step (510.4); a2 then kills b1 (value 10^6): value 0. u1 and u2,
    # unblocked double strikers, deal 2 x 200,000 each to B (life 10^6, not lethal); u2's lifelink
    # gains 400,000 (702.15b).
    from optimizer.bruteforce import brute_force
    from optimizer.objectives import DEFAULT_OBJECTIVE

    m = 10**6
    board = load_board({"players": [{"id": "A"}, {"id": "B", "life": m}], "creatures": [
        {"id": "u1", "controller": "A", "power": 200_000, "toughness": 1, "attacking": "B", "keywords": ["double strike"]},
        {"id": "u2", "controller": "A", "power": 200_000, "toughness": 1, "attacking": "B",
         "keywords": ["double strike", "lifelink"]},
        {"id": "a1", "controller": "A", "power": 1, "toughness": 1, "attacking": "B", "value": m},
        {"id": "a2", "controller": "A", "power": 1, "toughness": 1, "attacking": "B", "value": 1},
        {"id": "b1", "controller": "B", "power": 1, "toughness": 1, "blocking": ["a1", "a2"],
         "keywords": ["first strike"], "value": m}]})
    result = solve(board)
    assert result.status == "optimal" and result.method == "exhaustive"
    assert result.objective == {"alive": 1, "lethal": 0, "value": 0, "player_damage": 800_000, "poison": 0,
                                "loyalty": 0, "defense": 0, "life_gained": 400_000}
    assert [result.objective[n] for n in DEFAULT_OBJECTIVE] == list(brute_force(board, "A", DEFAULT_OBJECTIVE).value)
    assert check(board, result.assignments, result.dealing).outcome == result.outcome


def test_loyalty_and_defense_ranges_count_only_the_damage_that_can_reach_them() -> None:
    # loyalty and defense of 10^6, but only 1/1s attack the planeswalker and the battle (510.1b-c):
    # those objectives range over 0..1 each, so the default objectives combine for the refinement the
    # first-strike blocker of both attackers needs. The defender's b1 kills one attacker first (510.4),
    # the other kills b1 (value 10^6) in the regular step: 10^6 - 1 (a 1/1's value) either way.
    from optimizer.bruteforce import brute_force
    from optimizer.objectives import DEFAULT_OBJECTIVE

    m = 10**6
    board = load_board({
        "players": [{"id": "A"}, {"id": "B"}],
        "planeswalkers": [{"id": "pw", "controller": "B", "loyalty": m}],
        "battles": [{"id": "bt", "controller": "A", "protector": "B", "defense": m}],
        "creatures": [
            {"id": "a1", "controller": "A", "power": 1, "toughness": 1, "attacking": "pw"},
            {"id": "a2", "controller": "A", "power": 1, "toughness": 1, "attacking": "bt"},
            {"id": "b1", "controller": "B", "power": 1, "toughness": 1, "blocking": ["a1", "a2"],
             "keywords": ["first strike"], "value": m}]})
    result = solve(board)
    assert result.status == "optimal" and result.method == "cp-sat"
    assert result.objective["value"] == m - 1
    assert [result.objective[n] for n in DEFAULT_OBJECTIVE] == list(brute_force(board, "A", DEFAULT_OBJECTIVE).value)
    assert check(board, result.assignments, result.dealing).legal


def test_a_first_strike_step_in_which_nobody_deals_damage_leaves_the_regular_step_alone() -> None:
    # a2's double strike makes two steps (510.4), but its power is -1: it deals nothing in either
    # (510.1a), so the game is the regular step, where the refinement's combined weights are not
    # needed. a1 is blocked without trample: all 119,278 to b0 (219,763 toughness, lives); b0's
    # 118,873 cannot kill a1 (124,364) or a2 (221,610); nothing reaches pw0, bt0 or a player.
    board = {"active_player": "C", "players": [{"id": "A", "life": 613179}, {"id": "C", "life": 400696},
                                               {"id": "B", "life": 804869}],
             "creatures": [{"id": "a1", "controller": "C", "power": 119278, "toughness": 124364, "attacking": "pw0"},
                           {"id": "a2", "controller": "C", "power": -1, "toughness": 221610,
                            "keywords": ["wither", "double_strike"], "attacking": "bt0"},
                           {"id": "b0", "controller": "B", "power": 118873, "toughness": 219763, "blocking": ["a1", "a2"]}],
             "planeswalkers": [{"id": "pw0", "controller": "B", "loyalty": 401157}],
             "battles": [{"id": "bt0", "controller": "C", "protector": "B", "defense": 229805}]}
    result = solve(board, player="C")  # the default objective, eight of them
    assert result.status == "optimal" and result.objective["alive"] == 1  # C is the active player
    assert {v for k, v in result.objective.items() if k != "alive"} == {0}
    assert {(a.step.value, a.source, a.target, a.amount) for a in result.assignments if a.source == "a1"} == {
        ("regular", "a1", "b0", 119278)}
    assert check(load_board(board), result.assignments, result.dealing).outcome == result.outcome


# --- a defender's lifelink gain deciding whether it loses, with large amounts ----------------------

def lifelink_gain_board(life: int, unblocked: int, power: int, add: int) -> dict:
    """B's lifelink ``w`` blocks x and y; an effect adds ``add`` to each damage ``w`` deals (614.1a),
    so B gains ``power + add`` or ``power + 2 * add`` (510.2, 702.15b) as ``w`` hits one attacker or
    both; ``z`` is unblocked. B loses if ``unblocked`` minus its gain reaches ``life`` (704.5a)."""
    return {"players": [{"id": "A", "life": 20}, {"id": "B", "life": life}],
            "creatures": [{"id": "x", "controller": "A", "power": 5, "toughness": 5, "attacking": "B"},
                          {"id": "y", "controller": "A", "power": 1, "toughness": 5, "attacking": "B"},
                          {"id": "z", "controller": "A", "power": unblocked, "toughness": 1, "attacking": "B"},
                          {"id": "w", "controller": "B", "power": power, "toughness": 10,
                           "keywords": ["lifelink"], "blocking": ["x", "y"]}],
            "effects": [{"kind": "add", "amount": add, "sources": ["w"]}]}


def counting_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    runs: list[int] = []
    run = game_module.Game._run

    def counted(self, *args, **kwargs):
        runs.append(1)
        return run(self, *args, **kwargs)

    monkeypatch.setattr(game_module.Game, "_run", counted)
    return runs


def test_a_defender_whose_regular_step_scores_nothing_takes_one_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """510.4: b1 divides its regular-step damage between a2 and a3, but for kills and player_damage,
    A's objectives, which attackers die counts for nothing, and B has no first-step choice: one model
    with B's default play (all on a2) is the game, where the refinement takes a master model and a
    second step. 2 kills and 3 damage: a1's first strike kills one of b2 and b3 (1/1 and 1/2), and
    a2, with a3's 2 counted toward b1's lethal damage (702.19b), kills b1 and tramples 3 over."""
    board = load_board({"players": [{"id": "A", "life": 20}, {"id": "B", "life": 20}], "creatures": [
        {"id": "a1", "controller": "A", "power": 2, "toughness": 2, "attacking": "B", "keywords": ["first strike"]},
        {"id": "a2", "controller": "A", "power": 5, "toughness": 5, "attacking": "B", "keywords": ["trample"]},
        {"id": "a3", "controller": "A", "power": 2, "toughness": 2, "attacking": "B"},
        {"id": "b1", "controller": "B", "power": 2, "toughness": 4, "blocking": ["a2", "a3"]},
        {"id": "b2", "controller": "B", "power": 1, "toughness": 1, "blocking": ["a1"]},
        {"id": "b3", "controller": "B", "power": 1, "toughness": 2, "blocking": ["a1"]}]})
    objective = ["kills", "player_damage"]
    runs = counting_runs(monkeypatch)
    result = solve(board, objective=objective)
    assert result.status == "optimal" and result.objective == {"kills": 2, "player_damage": 3}
    assert tuple(result.objective.values()) == brute_force(board, "A", objective).value
    assert len(runs) == 1
    assert check(board, result.assignments).legal
    assert {(a.source, a.target): a.amount for a in result.assignments if a.source == "b1"} == {("b1", "a2"): 2}
    runs.clear()
    monkeypatch.setattr(game_module, "INDIFFERENT_RESPONDERS", False)
    assert solve(board, objective=objective).objective == result.objective and len(runs) == 2


@pytest.mark.parametrize("life, survives_by_splitting", [(1200, True), (1600, False)])
def test_a_lifelink_gain_with_large_gaps_takes_few_models(monkeypatch: pytest.MonkeyPatch, life: int,
                                                           survives_by_splitting: bool) -> None:
    """w gains 1,500 (all on one attacker) or 2,000 (split): no division gains the 499 totals between,
    and each is skipped in one model, not one model each. At 1,200 life B survives z's 3,000 only by
    splitting; at 1,600 it survives either way, and every total it cannot lose with is one case."""
    board = load_board(lifelink_gain_board(life, unblocked=3000, power=1000, add=500))
    runs = counting_runs(monkeypatch)
    result = solve(board, objective=["lethal", "value"])
    assert result.status == "optimal" and result.method == "cp-sat"
    assert len(runs) <= 10  # one model per total would be over 500
    # each attacker w damages takes at least 501 and dies: B splits to survive or because it kills both
    assert result.objective == {"lethal": 0, "value": -2}
    w_damage = {a.target: a.amount for a in result.assignments if a.source == "w"}
    assert w_damage.keys() == {"x", "y"}
    assert result.outcome.players["B"].life == life - 3000 + 2000 and not result.outcome.players["B"].lost
    assert brute_force(board, "A", ("lethal", "value")).value == (0, -2)
    all_on_x = [a for a in result.assignments if a.source != "w"] + [Assignment(Step.REGULAR, "w", "x", 1000)]
    assert check(board, all_on_x).outcome.players["B"].lost == survives_by_splitting  # gaining 1,500


def test_more_lifelink_gain_totals_than_the_limit_go_to_the_exhaustive_search(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Past MAX_GAIN_LEVELS totals that each may decide whether B loses, the board is searched instead
    (the same value), with a warning naming why."""
    board_json = lifelink_gain_board(life=12, unblocked=20, power=12, add=0)
    board_json["effects"] = [{"kind": "prevent", "amount": None, "recipients": ["y"]}]  # w gains 0 to 12
    board = load_board(board_json)
    expected = brute_force(board, "A", ("lethal", "value")).value
    assert solve(board, objective=["lethal", "value"]).method == "cp-sat"
    monkeypatch.setattr(game_module, "MAX_GAIN_LEVELS", 4)
    result = solve(board, objective=["lethal", "value"])
    assert result.status == "optimal" and result.method == "exhaustive"
    assert tuple(result.objective.values()) == expected
    assert any("more than 4 different totals" in w for w in result.warnings)


def test_a_lifelink_gain_search_out_of_time_answers_a_legal_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """The time limit is looked at between the totals: once it has passed, the answer is a legal line,
    not proven optimal."""
    board = load_board(lifelink_gain_board(life=1200, unblocked=3000, power=1000, add=500))
    calls: list[int] = []

    def expired(self) -> bool:
        calls.append(1)
        return len(calls) > 1  # the first total only

    monkeypatch.setattr(game_module.Game, "_expired", expired)
    result = solve(board, objective=["lethal", "value"], time_limit=60)
    assert result.status == "feasible" and any(w.startswith("not proven optimal") for w in result.warnings)
    assert check(board, result.assignments, result.dealing).legal


def test_one_first_striker_dividing_among_999_creatures() -> None:
    """Creatures in the hundreds on one side of a block (510.1c-d): a first-strike blocker of 999
    attackers kills them all before they deal damage (510.4), and so does a first-strike attacker
    blocked by 999 creatures; the lists of their divisions never recurse once per creature."""
    ids = [f"a{i}" for i in range(999)]
    blocked = {"players": [{"id": "A"}, {"id": "B"}],
               "creatures": [{"id": a, "controller": "A", "power": 1, "toughness": 1, "attacking": "B"} for a in ids]
               + [{"id": "w", "controller": "B", "power": 999, "toughness": 1000, "keywords": ["first strike"],
                   "blocking": ids}]}
    result = solve(blocked, player="B", objective=["kills"])
    assert result.status == "optimal" and result.objective == {"kills": 999}
    assert sorted(result.outcome.destroyed) == sorted(ids)
    walls = [f"b{i}" for i in range(999)]
    blocking = {"players": [{"id": "A"}, {"id": "B"}],
                "creatures": [{"id": "x", "controller": "A", "power": 999, "toughness": 1000,
                               "keywords": ["first strike"], "attacking": "B"}]
                + [{"id": b, "controller": "B", "power": 0, "toughness": 1, "blocking": ["x"]} for b in walls]}
    result = solve(blocking, objective=["kills"])
    assert result.status == "optimal" and result.objective == {"kills": 999}
    assert check(load_board(blocking), result.assignments).legal


def test_the_brute_force_lists_splits_among_many_recipients() -> None:
    """Its splits of 1 damage among 999 recipients: 999 of them, one each (no recursion per recipient)."""
    from optimizer.bruteforce import splits

    got = list(splits(1, 999))
    assert len(got) == 999 and all(sum(s) == 1 and len(s) == 999 for s in got)
    assert list(splits(2, 3)) == [(0, 0, 2), (0, 1, 1), (0, 2, 0), (1, 0, 1), (1, 1, 0), (2, 0, 0)]


def test_lethal_ranges_over_opponents_who_can_lose_so_a_deciding_defenders_default_fits() -> None:
    """510.1b-d: the active player is dealt no combat damage, so a deciding defender's ``lethal`` is 0
    in a two-player game and adds nothing to the weighted objective's range. With amounts near 10^6
    and values of 1,000, B's eight default objectives still combine (counting A as an opponent who
    might lose would push their range past 2^53 and refuse the board): B's first-strike lifelink
    blocker kills a 500,000/500,000 trampler (value 1,000) and gains 999,999, and nothing of the other
    trampler's damage past it can make B (1,000,000 life) lose."""
    board = {"players": [{"id": "A", "life": 20}, {"id": "B", "life": 1_000_000}],
             "creatures": [
                 {"id": "a1", "controller": "A", "power": 500_000, "toughness": 500_000, "keywords": ["trample"],
                  "value": 1000, "attacking": "B"},
                 {"id": "a2", "controller": "A", "power": 600_000, "toughness": 600_000, "keywords": ["trample"],
                  "value": 1000, "attacking": "B"},
                 {"id": "b1", "controller": "B", "power": 999_999, "toughness": 1_000_000, "value": 599,
                  "keywords": ["first strike", "lifelink"], "blocking": ["a1", "a2"]}]}
    result = solve(board, player="B")
    assert result.status == "optimal" and result.method == "cp-sat"
    assert result.objective["alive"] == 1 and result.objective["lethal"] == 0
    assert result.objective["value"] == 1000 and result.objective["life_gained"] == 999_999


def test_shorter_lists_leave_out_objectives_the_active_player_fixes() -> None:
    """510.1b-d: ``alive`` is always 1 for the active player, and a two-player defender's ``lethal``
    always 0: a suggestion of fewer objectives names ones that can vary."""
    from optimizer.objectives import DEFAULT_OBJECTIVE, varying

    board = load_board(WIDE_BOARD)
    assert varying(DEFAULT_OBJECTIVE, board, "A")[:2] == ("lethal", "value")
    assert varying(DEFAULT_OBJECTIVE, board, "B")[:2] == ("alive", "value")
    assert varying(["lethal"], board, "B") == ("lethal",)  # nothing left: the list as it is


def _agrees_with_brute_force(board_json: dict, decider: str, objective: list[str], value: tuple[int, ...]) -> None:
    board = load_board(board_json)
    result = solve(board, player=decider, objective=objective)
    assert result.status == "optimal"
    assert tuple(result.objective[n] for n in objective) == brute_force(board, decider, objective).value == value
    assert check(board, result.assignments, result.dealing).legal


def test_banding_cases_are_compared_from_the_active_sides_view_when_the_defender_decides() -> None:
    """702.22k: A's first-strike division decides whether its banding x survives, and so who divides
    r's damage; B deciding on ``value``, A takes the case worst for B (value 2), not the best (4)."""
    _agrees_with_brute_force(
        {"active_player": "A", "players": [{"id": "A"}, {"id": "B"}],
         "creatures": [{"id": "x", "controller": "A", "power": 1, "toughness": 1, "keywords": ["banding"],
                        "attacking": "B"},
                       {"id": "y", "controller": "A", "power": 1, "toughness": 1, "attacking": "B"},
                       {"id": "z", "controller": "A", "power": 1, "toughness": 2, "value": 3, "attacking": "B"},
                       {"id": "s", "controller": "B", "power": 1, "toughness": 9, "keywords": ["first strike"],
                        "blocking": ["x", "y"]},
                       {"id": "r", "controller": "B", "power": 2, "toughness": 9, "blocking": ["x", "z"]}]},
        "B", ["value"], (2,))


def test_a_player_on_the_active_side_announcing_after_the_responder_plays_against_the_decider() -> None:
    """510.1, three players in turn order A, B, C, B deciding: C's first-strike blocker announces after
    B's and, like A, plays worst for B (kills 1)."""
    _agrees_with_brute_force(
        {"active_player": "A", "players": [{"id": "A"}, {"id": "B", "life": 2}, {"id": "C"}],
         "creatures": [{"id": "a1", "controller": "A", "power": 1, "toughness": 1, "attacking": "B"},
                       {"id": "a2", "controller": "A", "power": 1, "toughness": 1, "attacking": "B"},
                       {"id": "b1", "controller": "B", "power": 1, "toughness": 3, "keywords": ["first strike"],
                        "blocking": ["a1", "a2"]},
                       {"id": "a5", "controller": "A", "power": 2, "toughness": 2, "keywords": ["trample"],
                        "attacking": "B"},
                       {"id": "b2", "controller": "B", "power": 0, "toughness": 5, "blocking": ["a5"]},
                       {"id": "a3", "controller": "A", "power": 1, "toughness": 1, "attacking": "C"},
                       {"id": "a4", "controller": "A", "power": 3, "toughness": 3, "attacking": "C"},
                       {"id": "c1", "controller": "C", "power": 1, "toughness": 5, "keywords": ["first strike"],
                        "blocking": ["a3", "a4"]}]},
        "B", ["kills"], (1,))


def test_first_strike_effect_order_on_the_active_players_creature_weighs_the_defenders_lifelink() -> None:
    """616.1 / 702.15b / 510.4: a doubler and a +1 on b0's first-strike damage to A's 1/4: ordered to
    deal 4 it dies, so B's lifelink 3/9 blocking it has nothing to damage in the regular step and B
    (2 life) gains nothing and loses to the unblocked 2/2; A orders them so (lethal 1)."""
    _agrees_with_brute_force(
        {"active_player": "A", "players": [{"id": "A"}, {"id": "B", "life": 2}],
         "creatures": [{"id": "a1", "controller": "A", "power": 1, "toughness": 4, "attacking": "B"},
                       {"id": "a2", "controller": "A", "power": 2, "toughness": 2, "attacking": "B"},
                       {"id": "b0", "controller": "B", "power": 1, "toughness": 9, "keywords": ["first strike"],
                        "blocking": ["a1"]},
                       {"id": "b1", "controller": "B", "power": 3, "toughness": 9, "keywords": ["lifelink"],
                        "blocking": ["a1"]}],
         "effects": [{"kind": "double", "sources": ["b0"], "recipients": ["a1"]},
                     {"kind": "add", "amount": 1, "sources": ["b0"], "recipients": ["a1"]}]},
        "A", ["lethal"], (1,))
