"""Solve-time benchmark: ``python benchmarks/bench_solve.py [--count N] [--sizes small,typical]``.

Boards are generated deterministically (benchmarks/generate.py). For each size it reports the
median, p95 and p99 wall time of ``optimizer.solve`` in-process (ortools already imported and
warmed up), throughput, the share proven optimal, and how much of the time CP-SAT itself took.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import SIZES, boards  # noqa: E402

from optimizer import load_board  # noqa: E402
from optimizer.bruteforce import brute_force, count_leaves  # noqa: E402
from optimizer.rules import damage_steps  # noqa: E402
from optimizer.solver import solve  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--sizes", default="small,typical,medium")
    parser.add_argument("--brute-force-leaves", type=int, default=20000,
                        help="also time the brute-force enumerator on boards with at most this many lines")
    args = parser.parse_args()
    solve(load_board(boards("small", 1)[0]))  # warm-up: imports and first-solve costs
    print(f"{'size':<8} {'steps':<5} {'boards':>6} {'median ms':>10} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8} "
          f"{'boards/s':>9} {'optimal':>8} {'brute-force median ms (n)':>26}")
    for size in args.sizes.split(","):
        rows: dict[str, tuple[list[float], list[bool], list[float]]] = {"all": ([], [], [])}
        for data in boards(size, args.count):
            board = load_board(data)
            start = time.perf_counter()
            result = solve(board)
            elapsed = time.perf_counter() - start
            steps = str(len(damage_steps(board)))
            bf = None
            if count_leaves(board) <= args.brute_force_leaves:
                start = time.perf_counter()
                brute_force(board, board.active_player, result.objective.keys())
                bf = time.perf_counter() - start
            for key in ("all", steps):
                times, proven, bf_times = rows.setdefault(key, ([], [], []))
                times.append(elapsed)
                proven.append(result.status == "optimal")
                if bf is not None:
                    bf_times.append(bf)
        for key in ("1", "2", "all"):
            if key not in rows:
                continue
            times, proven, bf_times = rows[key]
            ms = np.array(times) * 1000
            bf = f"{statistics.median(bf_times) * 1000:.2f} ({len(bf_times)})" if bf_times else "-"
            print(f"{size:<8} {key:<5} {len(ms):>6} {np.median(ms):>10.2f} {np.percentile(ms, 95):>8.2f} "
                  f"{np.percentile(ms, 99):>8.2f} {ms.max():>8.2f} {len(ms) / ms.sum() * 1000:>9.0f} "
                  f"{sum(proven) / len(ms):>8.1%} {bf:>26}")
    print(f"sizes (attackers, blockers, max power): {SIZES}")


if __name__ == "__main__":
    main()
