"""Time the tuned solver on the boards of a JSON file (``{"boards": [...]}``, each a board dict with an
optional ``description``), one by one in this process, after a warm-up solve.

    python benchmarks/bench_boards.py tests/data/max_min_boards.json [--time-limit S] [--repeat N]
    python benchmarks/bench_boards.py benchmarks/independent_copies_boards.json --objective kills,player_damage

Prints one line per board: the fastest of ``--repeat`` solves, status, method and the board's
description. For boards that once were slow (regressions), beside the property tests that hold
their answers right.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", type=Path)
    parser.add_argument("--time-limit", type=float, default=None, help="per solve (default: none)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--objective", default=None, help="comma-separated objectives (default: the solver's)")
    args = parser.parse_args()

    from optimizer import load_board, solve

    data = json.loads(args.file.read_text())["boards"]
    solve(load_board(data[0]))  # warm-up
    print("| board | fastest of %d (s) | status | method | description |" % args.repeat)
    print("|---|---|---|---|---|")
    for i, raw in enumerate(data):
        board = load_board(raw)
        best = None
        for _ in range(args.repeat):
            start = time.perf_counter()
            result = solve(board, objective=args.objective, time_limit=args.time_limit)
            elapsed = time.perf_counter() - start
            best = elapsed if best is None else min(best, elapsed)
        print(f"| {i} | {best:.3f} | {result.status} | {result.method} | {raw.get('description', '')} |")


if __name__ == "__main__":
    main()
