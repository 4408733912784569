"""Interleaved A/B timing of the working tree's solver against an earlier commit, in one process.

    python benchmarks/ab.py e83285e                        # typical boards, 1,000 of them, best of 3
    python benchmarks/ab.py HEAD~2 --size medium --count 200 --reps 2
    python benchmarks/ab.py HEAD --objective kills,player_damage   # the objectives of bench_batch.py

This machine's speed drifts by 20-40% over minutes, so two versions are only compared solving the same
board in turn, each keeping its fastest of ``--reps`` solves. The order alternates from board to board
and from round to round: run first every time, a version measures about 5% slower at the median and 3%
in the mean against identical code (the second solve of a board finds warmer caches). The commit's
``optimizer`` package is extracted with ``git archive`` and imported as ``optimizer_base``; the boards
come from this tree's ``generate.py``. Objective values must be equal on every board (those both
versions report, with their default objective lists, or ``--objective``).
"""

from __future__ import annotations

import argparse
import importlib
import io
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from generate import boards  # noqa: E402


def extract(commit: str, into: Path) -> None:
    """The ``optimizer`` package of ``commit``, as package ``optimizer_base`` in ``into``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "optimizer"], check=True,
                             capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        if hasattr(tarfile, "data_filter"):  # Python 3.11.4 on
            tar.extractall(into, filter="data")
        else:
            tar.extractall(into)
    (into / "optimizer").rename(into / "optimizer_base")


def summary(times: list[float]) -> dict[str, float]:
    ms = sorted(t * 1e3 for t in times)
    n = len(ms)
    return {"median": statistics.median(ms), "p95": ms[max(0, -(-95 * n // 100) - 1)],
            "p99": ms[max(0, -(-99 * n // 100) - 1)], "mean": statistics.fmean(ms), "max": ms[-1]}


def compare(base: Any, new: Any, data: list[dict[str, Any]], reps: int, limit: float,
            objective: list[str] | None = None) -> tuple[list[float], list[float], int]:
    """Per-board fastest times of ``base`` and ``new`` and how many boards' objective values differ."""
    loaded = [(base.load_board(d), new.load_board(d)) for d in data]
    for a, b in loaded[:20]:  # both warm
        base.solve(a, objective=objective, time_limit=limit)
        new.solve(b, objective=objective, time_limit=limit)
    best_base = [float("inf")] * len(data)
    best_new = [float("inf")] * len(data)
    differ = 0
    clock = time.perf_counter
    for r in range(reps):
        for i, (a, b) in enumerate(loaded):
            runs = [(base, a, best_base), (new, b, best_new)]
            if (i + r) % 2:
                runs.reverse()
            values = []
            for module, board, best in runs:
                start = clock()
                values.append(module.solve(board, objective=objective, time_limit=limit).objective)
                best[i] = min(best[i], clock() - start)
            # the default list may have grown between them (alive, git 1eb309a); a name whose meaning changed
            # (lethal for a deciding defender, ibid.) does not show here: the attacker decides on every board
            shared = values[0].keys() & values[1].keys()
            differ += r == 0 and any(values[0][k] != values[1][k] for k in shared)
    return best_base, best_new, differ


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("commit", help="the version to compare the working tree with (any git revision)")
    parser.add_argument("--size", default="typical", help="board size class (generate.py): typical, effects, ...")
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=3, help="solves of each board by each version (fastest kept)")
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--objective", help="comma-separated objectives (default: the solver's default list)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        extract(args.commit, Path(tmp))
        sys.path.insert(0, tmp)
        base = importlib.import_module("optimizer_base")
        new = importlib.import_module("optimizer")
        data = boards(args.size, args.count)
        objective = args.objective.split(",") if args.objective else None
        best_base, best_new, differ = compare(base, new, data, args.reps, args.time_limit, objective)
    print(f"{args.count} {args.size} boards, objective {args.objective or 'default'}, fastest of {args.reps} per "
          "board, order alternating")
    print("| version | median ms | p95 ms | p99 ms | mean ms | max ms |")
    print("|---|---|---|---|---|---|")
    for name, times in ((args.commit, best_base), ("working tree", best_new)):
        s = summary(times)
        print(f"| {name} | {s['median']:.3f} | {s['p95']:.2f} | {s['p99']:.2f} | {s['mean']:.3f} | {s['max']:.1f} |")
    print(f"mean ratio (working tree / {args.commit}): {sum(best_new) / sum(best_base):.3f}")
    print(f"objective values differ on {differ} of {args.count} boards")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
