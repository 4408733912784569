"""Solve-time benchmark: the tuned CP-SAT solver against CP-SAT defaults, brute force and a greedy baseline.

    python benchmarks/bench_solve.py                       # full run (about 7-8 minutes on 2 cores)
    python benchmarks/bench_solve.py --quick               # smoke run, under 30 s
    python benchmarks/bench_solve.py --check-greedy        # only assert that every greedy line is legal
    python benchmarks/bench_solve.py --profile 300         # where the tuned solver's time goes (typical)

Boards come from ``benchmarks/generate.py`` (seeded: every run measures the same boards). For each
size the tuned solver (``SolverSettings()``) and CP-SAT's default parameters (only the seed and the
time limit set) solve every board in a fresh worker process, one board at a time; times are
wall-clock per ``solve()`` call measured inside the worker (in-process: ortools imported and warmed
up, the board already loaded), including model building, every CP-SAT call, refinement and the final
check. A per-board ``--time-limit`` bounds every solve; the parent also kills a worker that overruns
it by far (``killed``: a solve that ignored the limit or ran out of the worker's memory limit) and
counts that board as unproven, with the time it ran. Peak memory is ``ru_maxrss`` of the worker that
ran only the tuned solves of that size (the process high-water mark, baseline after importing
ortools and one warm-up solve included; the baseline is printed too).

Brute force (``optimizer.bruteforce.brute_force``) runs on the boards with at most
``--brute-force-leaves`` lines (``count_leaves``); its value must equal the tuned solver's. The greedy
baseline (``benchmarks/greedy.py``) is checked with ``optimizer.check.check`` on every board (an
illegal line fails the run) and compared with the optimizer's game value in two ways:

* fair: the greedy attacker against the defender's best replies (exhaustive, on boards with at most
  ``--fair-lines`` reply lines), which can never beat the game value;
* greedy against greedy (both sides' greedy lines, checker values), on every board.

Throughput: a ``multiprocessing.Pool`` of ``--pool`` processes loading and solving the typical boards.
"""

from __future__ import annotations

import argparse
import cProfile
import inspect
import io
import math
import multiprocessing as mp
import os
import platform
import pstats
import resource
import statistics
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from generate import SIZES, boards, scaling_boards

from optimizer.objectives import DEFAULT_OBJECTIVE

OBJECTIVE = DEFAULT_OBJECTIVE
PLAYER = "A"  # the generator's active player; the optimizer decides for it


# --- settings ------------------------------------------------------------------------------------------
def _settings(kind: str):
    from optimizer.solver import SolverSettings

    if kind == "tuned":
        return SolverSettings()

    class CpSatDefaults(SolverSettings):
        """CP-SAT's default parameters: only the seed and the time limit are set."""

        def apply(self, solver, time_limit, size=0, scale=1, **rules):  # type: ignore[override]
            solver.parameters.random_seed = self.seed
            if time_limit is not None:
                solver.parameters.max_time_in_seconds = max(time_limit, 0.001)

    return CpSatDefaults()


def _board_source(source: tuple[str, Any], count: int) -> list[dict[str, Any]]:
    kind, arg = source
    return boards(arg, count) if kind == "size" else scaling_boards(arg, count)


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes


def _warm_up() -> None:
    from optimizer import load_board
    from optimizer.solver import solve

    for data in boards("small", 3):
        solve(load_board(data))


# --- worker side ---------------------------------------------------------------------------------------
_CACHE: dict[Any, list[dict[str, Any]]] = {}


def _board(source: tuple[str, Any], count: int, index: int):
    from optimizer import load_board

    key = (source, count)
    if key not in _CACHE:
        _CACHE.clear()
        _CACHE[key] = _board_source(source, count)
    data = _CACHE[key][index]
    start = time.perf_counter()
    board = load_board(data)
    return board, time.perf_counter() - start


def _task_solve(source, count, index, kind, time_limit) -> dict[str, Any]:
    from optimizer.objectives import objective_values
    from optimizer.solver import solve

    board, load = _board(source, count, index)
    settings = _settings(kind)
    start = time.perf_counter()
    result = solve(board, time_limit=time_limit, settings=settings)
    elapsed = time.perf_counter() - start
    kills = objective_values(board, result.outcome, result.player, ["kills"])["kills"]
    return {"time": elapsed, "load": load, "status": result.status, "method": getattr(result, "method", "cp-sat"),
            "value": tuple(result.objective[n] for n in OBJECTIVE), "kills": kills}


def _task_extras(source, count, index, brute_leaves, fair_lines) -> dict[str, Any]:
    """Features of the board, brute force where it fits, and the greedy baseline."""
    from greedy import against_best_reply, greedy_line, reply_lines

    from optimizer.board import Keyword
    from optimizer.bruteforce import brute_force, count_leaves
    from optimizer.check import check
    from optimizer.objectives import objective_values

    board, _ = _board(source, count, index)
    out: dict[str, Any] = {"features": features(board)}
    leaves = count_leaves(board)
    out["leaves"] = leaves
    if leaves <= brute_leaves:
        start = time.perf_counter()
        found = brute_force(board, PLAYER, OBJECTIVE)
        out["brute"] = {"time": time.perf_counter() - start, "value": tuple(found.value)}
    if board.effects or any(c.protection_from or Keyword.BANDING in c.keywords for c in board.creatures):
        return out  # the greedy baseline and its best-reply search know none of these
    start = time.perf_counter()
    line = greedy_line(board)
    greedy_time = time.perf_counter() - start
    result = check(board, line)
    if not result.legal:
        out["greedy_illegal"] = [str(v) for v in result.violations]
        return out
    values = objective_values(board, result.outcome, PLAYER, OBJECTIVE + ("kills",))
    out["greedy"] = {"time": greedy_time, "value": tuple(values[n] for n in OBJECTIVE), "kills": values["kills"]}
    if reply_lines(board, PLAYER) <= fair_lines:
        start = time.perf_counter()
        value, fair_line = against_best_reply(board, PLAYER, OBJECTIVE)
        fair_time = time.perf_counter() - start
        outcome = check(board, fair_line).outcome
        kills = objective_values(board, outcome, PLAYER, ["kills"])["kills"]
        out["fair"] = {"time": fair_time, "value": value, "kills": kills}
    return out


def _task_greedy_check(source, count, index, fair_lines) -> dict[str, Any]:
    """Legality of the greedy line and of every greedy-attacker line against each defender reply."""
    from greedy import against_best_reply, greedy_line, reply_lines

    from optimizer.check import check

    board, _ = _board(source, count, index)
    result = check(board, greedy_line(board))
    out: dict[str, Any] = {"legal": result.legal, "violations": [str(v) for v in result.violations],
                           "fair": False}
    if result.legal and reply_lines(board, PLAYER) <= fair_lines:
        against_best_reply(board, PLAYER, OBJECTIVE)  # asserts every line it searches is legal
        out["fair"] = True
    return out


TASKS: dict[str, Callable[..., dict[str, Any]]] = {
    "solve": _task_solve, "extras": _task_extras, "greedy_check": _task_greedy_check}


def _worker(conn, mem_limit: int | None, stack_after: float | None = None) -> None:
    import faulthandler

    if mem_limit:
        resource.setrlimit(resource.RLIMIT_AS, (mem_limit, mem_limit))
    _warm_up()
    conn.send({"rss_mb": _rss_mb()})
    while True:
        msg = conn.recv()
        if msg is None:
            return
        name, args = msg
        if stack_after:  # a task running longer than this prints the worker's Python stack to stderr
            faulthandler.dump_traceback_later(stack_after, repeat=True)
        try:
            out = TASKS[name](*args)
        except MemoryError:
            out = {"error": "MemoryError"}
        except Exception as exc:  # noqa: BLE001  (reported per board; the run goes on)
            out = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc(limit=4)}
        if stack_after:
            faulthandler.cancel_dump_traceback_later()
        out["rss_mb"] = _rss_mb()
        conn.send(out)
        if out.get("error") == "MemoryError":
            return  # the heap may be in a bad state: the parent starts a new worker


class Worker:
    """A spawned process running tasks one at a time, killed and replaced if a task overruns."""

    def __init__(self, mem_limit: int | None, stack_after: float | None = None) -> None:
        self.mem_limit = mem_limit
        self.stack_after = stack_after
        self.baseline_mb = 0.0
        self.peak_mb = 0.0
        self.restarts = 0
        self._start()

    def _start(self) -> None:
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, self.mem_limit, self.stack_after), daemon=True)
        self.proc.start()
        if not self.conn.poll(300):
            self.proc.kill()
            raise RuntimeError("benchmark worker did not start")
        try:
            ready = self.conn.recv()
        except EOFError:
            raise RuntimeError("benchmark worker died while starting (see its traceback above)") from None
        self.baseline_mb = max(self.baseline_mb, ready["rss_mb"])

    def run(self, name: str, args: tuple, timeout: float) -> dict[str, Any]:
        start = time.perf_counter()
        self.conn.send((name, args))
        try:
            done = self.conn.poll(timeout)
            out = self.conn.recv() if done else None
        except (EOFError, ConnectionError):
            done, out = True, {"error": "worker died"}
        if out is None:
            out = {"error": "killed", "time": time.perf_counter() - start, "rss_mb": self._peak_of_child()}
        self.peak_mb = max(self.peak_mb, out.get("rss_mb", 0.0))
        if out.get("error") in ("killed", "MemoryError", "worker died"):
            out.setdefault("time", time.perf_counter() - start)
            self._stop(kill=True)
            self.restarts += 1
            self._start()
        return out

    def _peak_of_child(self) -> float:
        """The running worker's peak resident memory (VmHWM), read before it is killed."""
        try:
            for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        except (OSError, ValueError):
            pass
        return 0.0

    def _stop(self, kill: bool = False) -> None:
        if kill:
            self.proc.kill()
        else:
            self.conn.send(None)
        self.proc.join(10)

    def close(self) -> None:
        self._stop()


# --- board features ------------------------------------------------------------------------------------
def _distinct_splits(amount: int, caps: list[int]) -> int:
    """First-step damage splits of a blocker among its attackers that differ in outcome (damage past an
    attacker's toughness changes nothing): the defender's distinct replies per first-strike blocker."""
    count = 0

    def rec(i: int, left: int, full: bool) -> None:
        nonlocal count
        if i == len(caps):
            if left == 0 or full:
                count += 1
            return
        for v in range(min(caps[i], left) + 1):
            rec(i + 1, left - v, full or v == caps[i])

    rec(0, amount, False)
    return count


def features(board) -> dict[str, Any]:
    """What makes a board hard: first-strike blockers of several attackers and the defender's replies."""
    from optimizer.rules import damage_amount, damage_steps, has_first_strike

    attackers = board.attackers
    blockers = board.blockers
    fs_multi = [b for b in blockers if len(b.blocking) > 1 and has_first_strike(b) and damage_amount(b) > 0]
    replies = 1
    for b in fs_multi:
        replies *= _distinct_splits(damage_amount(b), [board.creature(a).toughness for a in b.blocking])
    gang = max((len(board.blockers_of(a.id)) for a in attackers), default=0)
    return {"attackers": len(attackers), "blockers": len(blockers), "steps": len(damage_steps(board)),
            "multi_blockers": sum(1 for b in blockers if len(b.blocking) > 1), "fs_multi_blockers": len(fs_multi),
            "replies": replies, "max_gang": gang,
            "first_strikers": sum(1 for c in board.combatants if has_first_strike(c))}


# --- statistics ----------------------------------------------------------------------------------------
def pct(xs: list[float], q: float) -> float:
    """Percentile with linear interpolation (numpy's default)."""
    xs = sorted(xs)
    if not xs:
        return math.nan
    k = (len(xs) - 1) * q / 100
    lo, hi = math.floor(k), math.ceil(k)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def ms(x: float) -> str:
    if math.isnan(x):
        return "-"
    return f"{x * 1000:.2f}" if x < 1 else f"{x * 1000:,.0f}"


@dataclass
class SizeRun:
    name: str
    count: int
    tuned: list[dict[str, Any]]
    default: list[dict[str, Any]]
    extras: list[dict[str, Any]]
    tuned_peak_mb: float
    tuned_baseline_mb: float
    default_peak_mb: float
    restarts: int


def run_size(name: str, source: tuple[str, Any], count: int, args, with_default: bool, with_extras: bool,
             log, indices: list[int] | None = None) -> SizeRun:
    limit = args.time_limit
    hard = 2 * limit + 20 if limit else 600
    mem = int(args.memory_limit_gb * 2**30) if args.memory_limit_gb else None
    tuned, default, extras = [], [], []
    worker = Worker(mem, args.stack_after)
    started = time.perf_counter()
    indices = list(range(count)) if indices is None else indices
    for i in indices:
        out = worker.run("solve", (source, count, i, "tuned", limit), hard)
        out["index"] = i
        tuned.append(out)
        if out.get("error") or out["time"] > 1:
            log(f"  {name} board {i}: tuned {out.get('error') or out['status']} in {out['time']:.2f} s")
    worker.close()
    log(f"  {name}: {len(indices)} tuned solves in {time.perf_counter() - started:.1f} s")
    tuned_peak, tuned_base, restarts = worker.peak_mb, worker.baseline_mb, worker.restarts
    default_peak = math.nan
    if with_default or with_extras:
        other = Worker(mem)
        started = time.perf_counter()
        if with_default:
            cap = args.default_max_large if name == "large" else len(indices)
            for i in indices[:cap]:
                default.append(other.run("solve", (source, count, i, "default", limit), hard))
            default_peak = other.peak_mb
            log(f"  {name}: {len(default)} default-parameter solves in {time.perf_counter() - started:.1f} s")
        if with_extras:
            for i in indices:
                extras.append(other.run("extras", (source, count, i, args.brute_force_leaves, args.fair_lines),
                                        args.extras_timeout))
            log(f"  {name}: brute force and greedy done")
        restarts += other.restarts
        other.close()
    return SizeRun(name, count, tuned, default, extras, tuned_peak, tuned_base, default_peak, restarts)


def _times(records: list[dict[str, Any]]) -> list[float]:
    return [r["time"] for r in records if "time" in r]


def _proven(records: list[dict[str, Any]]) -> float:
    return sum(1 for r in records if r.get("status") == "optimal") / len(records) if records else math.nan


def _row(cells: Iterable[Any]) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def timing_cells(times: list[float]) -> list[str]:
    if not times:
        return ["-"] * 5
    total = sum(times)
    return [ms(statistics.median(times)), ms(pct(times, 95)), ms(pct(times, 99)), ms(max(times)),
            _rate(len(times) / total) if total else "-"]


def _rate(x: float) -> str:
    return f"{x:,.0f}" if x >= 10 else f"{x:.2f}"


def main_table(runs: list[SizeRun]) -> list[str]:
    out = [("| size | method | boards | median ms | p95 ms | p99 ms | max ms | boards/s (1 process) | "
            "proven optimal | peak RSS MB |"),
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        errors = Counter(x["error"] for x in r.tuned if "error" in x)
        note = "" if not errors else " (" + ", ".join(f"{n} {e}" for e, n in errors.items()) + ")"
        out.append(_row([r.name, "CP-SAT tuned", f"{len(r.tuned)}{note}", *timing_cells(_times(r.tuned)),
                         f"{_proven(r.tuned):.1%}", f"{r.tuned_peak_mb:.0f} (baseline {r.tuned_baseline_mb:.0f})"]))
        if r.default and len(r.default) < len(r.tuned):
            same = r.tuned[:len(r.default)]
            out.append(_row(["", f"CP-SAT tuned, first {len(same)} boards", len(same), *timing_cells(_times(same)),
                             f"{_proven(same):.1%}", "-"]))
        if r.default:
            errors = Counter(x["error"] for x in r.default if "error" in x)
            note = "" if not errors else " (" + ", ".join(f"{n} {e}" for e, n in errors.items()) + ")"
            label = "CP-SAT defaults" + (f", first {len(r.default)} boards" if len(r.default) < len(r.tuned) else "")
            out.append(_row(["", label, f"{len(r.default)}{note}", *timing_cells(_times(r.default)),
                             f"{_proven(r.default):.1%}", f"{r.default_peak_mb:.0f}"]))
        if r.extras:
            bf = [x["brute"]["time"] for x in r.extras if "brute" in x]
            out.append(_row(["", "brute force", f"{len(bf)} of {len(r.extras)} (<= leaves limit)",
                             *timing_cells(bf), "100% of those" if bf else "-", "-"]))
            gr = [x["greedy"]["time"] for x in r.extras if "greedy" in x]
            out.append(_row(["", "greedy", len(gr), *timing_cells(gr), "-", "-"]))
    return out


def greedy_table(runs: list[SizeRun]) -> list[str]:
    out = [("| size | boards | fair: evaluated | fair: greedy worse | first objective that differs | "
            "mean / max loss in `value` | mean / max loss in kills | mean / max loss in player damage | "
            "greedy-vs-greedy line: worse / better than optimizer line |"),
           "|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        if not r.extras:
            continue
        pairs = [(t, x) for t, x in zip(r.tuned, r.extras) if "value" in t and "greedy" in x]
        fair = [(t, x) for t, x in pairs if "fair" in x and t["status"] == "optimal"]
        worse = [(t, x) for t, x in fair if x["fair"]["value"] < t["value"]]
        firsts = Counter(OBJECTIVE[_first_diff(x["fair"]["value"], t["value"])] for t, x in worse)
        vi, pi = OBJECTIVE.index("value"), OBJECTIVE.index("player_damage")

        def loss(items: list, get: Callable[[dict[str, Any]], int]) -> str:
            d = [get(t) - get(x["fair"]) for t, x in items]
            return f"{statistics.mean(d):.2f} / {max(d)}" if d else "-"

        gg_worse = sum(1 for t, x in pairs if x["greedy"]["value"] < t["value"])
        gg_better = sum(1 for t, x in pairs if x["greedy"]["value"] > t["value"])
        out.append(_row([
            r.name, len(pairs), len(fair),
            f"{len(worse)} ({len(worse) / len(fair):.1%})" if fair else "-",
            ", ".join(f"{k} {n}" for k, n in firsts.most_common()) or "-",
            loss(fair, lambda v, vi=vi: v["value"][vi]), loss(fair, lambda v: v["kills"]),
            loss(fair, lambda v, pi=pi: v["value"][pi]),
            f"{gg_worse / len(pairs):.1%} / {gg_better / len(pairs):.1%}" if pairs else "-"]))
    return out


def _first_diff(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    return next(i for i, (x, y) in enumerate(zip(a, b)) if x != y)


def checks(runs: list[SizeRun]) -> list[str]:
    """Consistency: brute force equals the tuned value; greedy never beats the game value; legality."""
    problems = []
    for r in runs:
        for t, x in zip(r.tuned, r.extras):
            i = t["index"]
            if "greedy_illegal" in x:
                problems.append(f"{r.name} board {i}: greedy line illegal: {x['greedy_illegal']}")
            if "error" in x:
                problems.append(f"{r.name} board {i}: extras failed: {x['error']}")
            if t.get("status") != "optimal":
                continue
            if "brute" in x and x["brute"]["value"] != t["value"]:
                problems.append(f"{r.name} board {i}: brute force {x['brute']['value']} != solver {t['value']}")
            if "fair" in x and x["fair"]["value"] > t["value"]:
                problems.append(f"{r.name} board {i}: greedy vs best reply {x['fair']['value']} beats the "
                                f"game value {t['value']}")
        for t, d in zip(r.tuned, r.default):
            i = t["index"]
            if t.get("status") == "optimal" and d.get("status") == "optimal" and t["value"] != d["value"]:
                problems.append(f"{r.name} board {i}: defaults {d['value']} != tuned {t['value']}")
        for t in r.tuned:
            i = t["index"]
            if "error" in t and t["error"] not in ("killed", "MemoryError"):
                problems.append(f"{r.name} board {i}: tuned solve failed: {t['error']}")
    return problems


def slow_table(runs: list[SizeRun], threshold: float) -> list[str]:
    out = [("| size | board | tuned s | status | attackers | blockers | blockers of 2+ attackers | "
            "first-strike ones | defender's distinct first-step replies | max blockers on one attacker |"),
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        for t, x in zip(r.tuned, r.extras or [{}] * len(r.tuned)):
            i = t["index"]
            if t.get("time", 0) > threshold and "features" in x:
                f = x["features"]
                out.append(_row([r.name, i, f"{t['time']:.2f}", t.get("status") or t.get("error"), f["attackers"],
                                 f["blockers"], f["multi_blockers"], f["fs_multi_blockers"], f"{f['replies']:,}",
                                 f["max_gang"]]))
    return out


def feature_split(runs: list[SizeRun]) -> list[str]:
    """Tuned time by the defender's number of distinct first-step replies (the refinement's cost)."""
    buckets = [(0, 1, "1 (no defender choice in the first step)"), (2, 16, "2-16"), (17, 256, "17-256"),
               (257, 10**4, "257-10^4"), (10**4 + 1, 10**6, "10^4-10^6"), (10**6 + 1, 10**30, "> 10^6")]
    out = ["| size | defender's distinct first-step replies | boards | median ms | p95 ms | max ms | proven |",
           "|---|---|---|---|---|---|---|"]
    for r in runs:
        if not r.extras:
            continue
        for lo, hi, label in buckets:
            sel = [t for t, x in zip(r.tuned, r.extras) if "features" in x and lo <= x["features"]["replies"] <= hi]
            if sel:
                ts = _times(sel)
                out.append(_row([r.name, label, len(sel), ms(statistics.median(ts)), ms(pct(ts, 95)), ms(max(ts)),
                                 f"{_proven(sel):.0%}"]))
    return out


def leaves_split(runs: list[SizeRun]) -> list[str]:
    """Tuned solver against brute force by the size of the exhaustive search (count_leaves)."""
    buckets = [(1, 1, "1 (no choice at all)"), (2, 10, "2-10"), (11, 100, "11-100"), (101, 1000, "101-1,000"),
               (1001, 20000, "1,001-20,000"), (20001, 10**400, "> 20,000")]
    out = [("| size | brute-force lines (count_leaves) | boards | tuned median ms | tuned max ms | "
            "brute force median ms | brute force max ms |"), "|---|---|---|---|---|---|---|"]
    for r in runs:
        if not r.extras:
            continue
        for lo, hi, label in buckets:
            sel = [(t, x) for t, x in zip(r.tuned, r.extras) if "leaves" in x and lo <= x["leaves"] <= hi and "time" in t]
            if not sel:
                continue
            tt = [t["time"] for t, _ in sel]
            bf = [x["brute"]["time"] for _, x in sel if "brute" in x]
            out.append(_row([r.name, label, len(sel), ms(statistics.median(tt)), ms(max(tt)),
                             ms(statistics.median(bf)) if bf else "-", ms(max(bf)) if bf else "-"]))
    return out


# --- throughput ----------------------------------------------------------------------------------------
_POOL_LIMIT: float | None = None


def _pool_init(limit: float | None) -> None:
    global _POOL_LIMIT
    _POOL_LIMIT = limit
    _warm_up()


def _pool_solve(data: dict[str, Any]) -> str:
    from optimizer import load_board
    from optimizer.solver import solve

    return solve(load_board(data), time_limit=_POOL_LIMIT).status


def throughput(count: int, processes: int, limit: float | None) -> tuple[float, float, int]:
    """Boards per second for a Pool loading and solving typical boards; (boards/s, seconds, optimal)."""
    data = boards("typical", count)
    with mp.get_context("spawn").Pool(processes, initializer=_pool_init, initargs=(limit,)) as pool:
        pool.map(_pool_solve, boards("small", 4 * processes), chunksize=1)  # every worker started and warm
        start = time.perf_counter()
        statuses = list(pool.imap_unordered(_pool_solve, data, chunksize=4))
        elapsed = time.perf_counter() - start
    return count / elapsed, elapsed, sum(1 for s in statuses if s == "optimal")


# --- profile -------------------------------------------------------------------------------------------
class _Timer:
    """Wall time in the outermost calls of the wrapped functions (nested calls counted once)."""

    def __init__(self) -> None:
        self.total = 0.0
        self.calls = 0
        self.depth = 0

    def wrap(self, fn):
        def wrapped(*a, **k):
            if self.depth:
                return fn(*a, **k)
            self.depth += 1
            start = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                self.total += time.perf_counter() - start
                self.calls += 1
                self.depth -= 1
        return wrapped


def profile(count: int, size: str, limit: float | None) -> list[str]:
    """Split the tuned solver's time on ``size`` boards: CP-SAT's own solve, the encoding (CombatModel),
    the checker and objective values, and the rest (Python expression building, decoding); then a
    cProfile listing (without the timing wrappers)."""
    from ortools.sat.python import cp_model

    import optimizer.result as result_module
    import optimizer.search as search_module
    import optimizer.solver as solver_module
    from optimizer import analysis, encode, load_board

    _warm_up()
    loaded = [load_board(d) for d in boards(size, count)]
    prof = cProfile.Profile()
    prof.enable()
    for board in loaded:
        solver_module.solve(board, time_limit=limit)
    prof.disable()

    timers = {"CP-SAT solve (C++)": _Timer(), "encoding (CombatModel methods)": _Timer(),
              "checker + objective values": _Timer()}
    constructions = _Timer()
    saved: list[tuple[Any, str, Any]] = []

    def patch(owner: Any, name: str, timer: _Timer) -> None:
        fn = getattr(owner, name) if not isinstance(owner, type) else vars(owner)[name]
        saved.append((owner, name, fn))
        setattr(owner, name, timer.wrap(fn))

    patch(cp_model.CpSolver, "solve", timers["CP-SAT solve (C++)"])
    for cls in (analysis.CombatAnalysis, encode.CombatModel):  # the model's methods and its analysis's
        for name, fn in list(vars(cls).items()):
            if inspect.isfunction(fn) and (not name.startswith("__") or name == "__init__"):
                patch(cls, name, timers["encoding (CombatModel methods)"])
    patch(encode.CombatModel, "__init__", constructions)
    for checking in (result_module, search_module):  # the final check; the fallback's candidates
        patch(checking, "check", timers["checker + objective values"])
        patch(checking, "objective_values", timers["checker + objective values"])
    times = []
    try:
        for board in loaded:
            start = time.perf_counter()
            solver_module.solve(board, time_limit=limit)
            times.append(time.perf_counter() - start)
    finally:
        for owner, name, fn in reversed(saved):
            setattr(owner, name, fn)
    total = sum(times)
    out = [(f"Time split over {count} {size} boards, tuned solver: total {total:.2f} s, mean "
            f"{total / count * 1000:.2f} ms, median {statistics.median(times) * 1000:.2f} ms per board "
            "(the timing wrappers add about 1 us per call):"), "",
           "| part | seconds | share | outermost calls per board |", "|---|---|---|---|"]
    rest = total
    for name, t in timers.items():
        out.append(_row([name, f"{t.total:.2f}", f"{t.total / total:.0%}", f"{t.calls / count:.1f}"]))
        rest -= t.total
    out.append(_row(["rest of solve() (expressions, objective weights, decoding)", f"{rest:.2f}",
                     f"{rest / total:.0%}", "-"]))
    out += ["", (f"CombatModel constructions: {constructions.calls / count:.1f} per board, "
                 f"{constructions.total / max(constructions.calls, 1) * 1e6:.0f} us each on average "
                 f"({constructions.total / total:.0%} of the total).")]
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(15)
    out += ["", "cProfile (a separate pass, profiler overhead included), top 15 by own time:", "", "```",
            *buf.getvalue().strip().splitlines()[-22:], "```"]
    return out


# --- greedy self-check ---------------------------------------------------------------------------------
def check_greedy(sizes: list[str], count: int, fair_lines: int, log) -> bool:
    worker = Worker(None)
    ok = True
    for size in sizes:
        n = count if size != "large" else max(count // 10, 1)
        fair = illegal = 0
        for i in range(n):
            out = worker.run("greedy_check", (("size", size), n, i, fair_lines), 600)
            if "error" in out:
                ok = False
                illegal += 1
                log(f"{size} board {i}: {out['error']}")
            elif not out["legal"]:
                ok = False
                illegal += 1
                log(f"{size} board {i}: greedy line illegal: {out['violations']}")
            fair += out.get("fair", False)
        log(f"{size}: {n} greedy lines, {illegal} illegal; greedy attacker checked against every defender "
            f"reply on {fair} boards")
    worker.close()
    return ok


# --- main ----------------------------------------------------------------------------------------------
def machine() -> str:
    import ortools

    model = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"nproc {os.cpu_count()} (usable {len(os.sched_getaffinity(0))}), CPU {model}, "
            f"Python {platform.python_version()}, ortools {ortools.__version__}; code {_code_version()}")


def _code_version() -> str:
    """The commit measured, and whether optimizer/ had uncommitted changes (read-only git queries)."""
    import subprocess

    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE.parent, capture_output=True,
                              text=True, timeout=10, check=False).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "optimizer"], cwd=HERE.parent,
                               capture_output=True, text=True, timeout=10, check=False).stdout.strip().splitlines()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"git {head or '?'}" + (f" with {len(dirty)} changed files in optimizer/" if dirty else "")


DEFAULT_COUNTS = {"small": 300, "typical": 1000, "effects": 500, "medium": 200, "large": 24}
QUICK_COUNTS = {"small": 50, "typical": 100, "effects": 50, "medium": 4, "large": 1}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="typical,effects,medium,large",
                        help="comma-separated: small,typical,effects,medium,large")
    parser.add_argument("--count", default=None,
                        help="boards per size: one number for every size, or one per size (default "
                             f"{DEFAULT_COUNTS}; --quick {QUICK_COUNTS})")
    parser.add_argument("--quick", action="store_true", help="smoke run: few boards, 1 s limit, no growth table")
    parser.add_argument("--time-limit", type=float, default=None,
                        help="per-board solve time limit in seconds, every size (default 10; --quick 1)")
    parser.add_argument("--memory-limit-gb", type=float, default=4.0,
                        help="address-space limit of each worker process (0: none)")
    parser.add_argument("--no-default", action="store_true", help="skip CP-SAT default parameters")
    parser.add_argument("--default-max-large", type=int, default=10,
                        help="CP-SAT default parameters on only the first N large boards (default 10)")
    parser.add_argument("--no-extras", action="store_true", help="skip brute force and greedy")
    parser.add_argument("--brute-force-leaves", type=int, default=None,
                        help="brute force only boards with at most this many lines (count_leaves; "
                             "default 20000, --quick 2000)")
    parser.add_argument("--fair-lines", type=int, default=None,
                        help="greedy vs best reply only on boards with at most this many reply lines "
                             "(default 5000, --quick 500)")
    parser.add_argument("--extras-timeout", type=float, default=300)
    parser.add_argument("--pool", type=int, default=2, help="processes for the throughput run (0: skip)")
    parser.add_argument("--throughput-count", type=int, default=None, help="typical boards for the throughput "
                        "run (default 1000; --quick 200)")
    parser.add_argument("--growth", default=None,
                        help="attacker counts for the growth table, each with twice as many blockers "
                             "(default 2,4,6,8,12,16; --quick none; 'none' to skip)")
    parser.add_argument("--growth-count", type=int, default=6, help="boards per growth point")
    parser.add_argument("--indices", default=None,
                        help="only these board numbers of each size (comma-separated), e.g. to rerun slow ones")
    parser.add_argument("--stack-after", type=float, default=None, metavar="S",
                        help="print the worker's Python stack to stderr every S seconds of a tuned solve (debugging)")
    parser.add_argument("--slow", type=float, default=1.0, help="list boards slower than this (seconds)")
    parser.add_argument("--check-greedy", action="store_true",
                        help="only assert that every greedy line is legal (and every greedy attacker line "
                             "against each defender reply), on --count boards per size; no solving")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="only profile the tuned solver on N typical boards (time split, cProfile)")
    parser.add_argument("--output", type=Path, help="also write the markdown report to this file")
    parser.add_argument("--json", type=Path, help="also write every per-board record to this JSON file")
    args = parser.parse_args()

    report: list[str] = []

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    sizes = [s for s in args.sizes.split(",") if s]
    for s in sizes:
        if s not in SIZES:
            parser.error(f"unknown size {s!r}; choose from {', '.join(SIZES)}")
    args.indices = [int(x) for x in args.indices.split(",")] if args.indices else None
    base = QUICK_COUNTS if args.quick else DEFAULT_COUNTS
    if args.indices:
        counts = {s: max(args.indices) + 1 for s in sizes}
    elif args.count is None:
        counts = {s: base[s] for s in sizes}
    else:
        given = [int(x) for x in args.count.split(",")]
        counts = {s: given[i] if len(given) > 1 else given[0] for i, s in enumerate(sizes)}
    if args.time_limit is None:
        args.time_limit = 1.0 if args.quick else 10.0
    if args.brute_force_leaves is None:
        args.brute_force_leaves = 2000 if args.quick else 20000
    if args.fair_lines is None:
        args.fair_lines = 500 if args.quick else 5000
    report.append(f"Machine: {machine()}.")

    if args.check_greedy:
        ok = check_greedy(sizes, int(args.count.split(",")[0]) if args.count else 300, args.fair_lines, log)
        print("greedy self-check:", "every greedy line legal" if ok else "FAILED")
        return 0 if ok else 1
    if args.profile:
        report += ["", *profile(args.profile, "typical", args.time_limit)]
        print("\n".join(report))
        return 0

    started = time.perf_counter()
    runs = []
    for s in sizes:
        log(f"{s}: {counts[s]} boards, time limit {args.time_limit} s")
        runs.append(run_size(s, ("size", s), counts[s], args, not args.no_default, not args.no_extras, log,
                             args.indices))
    if args.growth is None:
        args.growth = "none" if args.quick else "2,4,6,8,12,16"
    growth_points = [] if args.growth in ("none", "") else [int(x) for x in args.growth.split(",")]
    growth = []
    for n in growth_points:
        log(f"growth: {n} attackers, {2 * n} blockers, {args.growth_count} boards")
        growth.append((n, run_size(f"{n}x{2 * n}", ("scale", n), args.growth_count, args, False, True, log)))
    pool = None
    if args.pool and "typical" in sizes:
        n = args.throughput_count or (200 if args.quick else 1000)
        log(f"throughput: Pool({args.pool}) over {n} typical boards")
        pool = (n, *throughput(n, args.pool, args.time_limit))

    sizes_text = ", ".join(f"{k} {v.attackers[0] if v.attackers[0] == v.attackers[1] else v.attackers} attackers "
                           f"x {v.blockers[0] if v.blockers[0] == v.blockers[1] else v.blockers} blockers"
                           for k, v in SIZES.items() if k in sizes)
    chosen = f" (only boards {args.indices})" if args.indices else ""
    report += ["", (f"Boards per size: {counts}{chosen}; sizes: {sizes_text}. Time limit {args.time_limit} s "
                    f"per solve (every size); worker memory limit {args.memory_limit_gb} GB."), ""]
    report += main_table(runs)
    methods = {r.name: Counter(t.get("method", "-") for t in r.tuned) for r in runs}
    if any(set(m) - {"cp-sat"} for m in methods.values()):
        report += ["", "How the tuned solves were made (`method`; `forced`: no player has a choice, no model; "
                   "`exhaustive` and `stepwise` are the searches for boards the encoding does not model): " + "; ".join(
                       f"{name}: " + ", ".join(f"{k} {v}" for k, v in m.most_common()) for name, m in methods.items())]
    typical = next((r for r in runs if r.name == "typical"), None)
    if pool:
        n, rate, elapsed, optimal = pool
        report += ["", (f"Throughput: Pool({args.pool}) loading and solving {n} typical boards: "
                        f"{rate:,.0f} boards/s ({elapsed:.2f} s, {optimal} proven optimal).")]
    report += ["", ("Greedy baseline against the optimizer (default objective, lexicographic; 'fair' = the greedy "
                    "attacker against the defender's best replies, on proven boards with few enough reply lines):"),
               ""]
    report += greedy_table(runs)
    if typical and typical.extras:
        t_med = statistics.median(_times(typical.tuned))
        g = [x["greedy"]["time"] for x in typical.extras if "greedy" in x]
        report += ["", f"Typical boards: tuned median / greedy median = {t_med / statistics.median(g):.1f}x."]
    report += ["", ("Tuned time by the defender's distinct first-step replies (product over first-strike "
                    "blockers of several attackers of their distinct damage splits):"), ""]
    report += feature_split(runs + [r for _, r in growth])
    report += ["", "Tuned solver and brute force by the size of the exhaustive search:", ""]
    report += leaves_split(runs)
    if growth or runs:
        report += ["", "Growth with board size (tuned solver; sizes, then fixed n attackers x 2n blockers):", "",
                   ("| boards of | boards | mean combatants | median ms | p95 ms | max ms | proven optimal | "
                    "median distinct replies |"), "|---|---|---|---|---|---|---|---|"]
        for r in runs + [r for _, r in growth]:
            ts = _times(r.tuned)
            combatants = [x["features"]["attackers"] + x["features"]["blockers"] for x in r.extras if "features" in x]
            replies = [x["features"]["replies"] for x in r.extras if "features" in x]
            report.append(_row([r.name, len(r.tuned), f"{statistics.mean(combatants):.1f}" if combatants else "-",
                                ms(statistics.median(ts)), ms(pct(ts, 95)), ms(max(ts)), f"{_proven(r.tuned):.0%}",
                                f"{statistics.median(replies):,.0f}" if replies else "-"]))
    slow = slow_table(runs + [r for _, r in growth], args.slow)
    if len(slow) > 2:
        report += ["", f"Boards slower than {args.slow} s:", ""] + slow
    problems = checks(runs + [r for _, r in growth])
    report += ["", "Consistency checks (brute force = tuned value, greedy never beats the game value, greedy "
               "lines legal, defaults = tuned): " + ("all passed" if not problems else f"{len(problems)} FAILED")]
    report += [f"- {p}" for p in problems[:30]]
    report += ["", f"Wall time of the whole run: {time.perf_counter() - started:.0f} s."]
    text = "\n".join(report)
    print(text)
    if args.output:
        args.output.write_text(text + "\n")
    if args.json:
        import json

        raw = {"machine": report[0], "runs": [vars(r) for r in runs + [r for _, r in growth]], "throughput": pool}
        args.json.write_text(json.dumps(raw, default=str, indent=1) + "\n")
    illegal = any("greedy line illegal" in p for p in problems)
    return 1 if illegal else 0


if __name__ == "__main__":
    sys.exit(main())
