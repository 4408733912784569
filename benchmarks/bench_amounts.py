"""Boards with large amounts: the benchmark boards with every power, toughness, marked damage, loyalty,
defense and effect amount multiplied by a factor, solved with the tuned settings and with the full
linear relaxation for large amounts switched off (``big_amount_linearization_from`` out of reach).

    python benchmarks/bench_amounts.py                       # typical boards, factors 1 to 10,000
    python benchmarks/bench_amounts.py --size medium --count 30 --factors 1000

Prints one markdown row per factor and setting; objective values must agree wherever both are proven.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generate import boards  # noqa: E402

from optimizer.errors import InputError  # noqa: E402
from optimizer.solver import SolverSettings, solve  # noqa: E402

AMOUNTS = {"power", "toughness", "damage", "loyalty", "defense", "amount"}
OBJECTIVE = ["kills", "player_damage"]


def scaled(data: Any, factor: int) -> Any:
    """``data`` with every amount field multiplied by ``factor`` (life, poison and values unchanged)."""
    if isinstance(data, dict):
        return {k: v * factor if k in AMOUNTS and type(v) is int else scaled(v, factor) for k, v in data.items()}
    if isinstance(data, list):
        return [scaled(v, factor) for v in data]
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="typical")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--factors", default="1,100,1000,10000")
    parser.add_argument("--time-limit", type=float, default=10.0)
    args = parser.parse_args()
    settings = {"tuned": SolverSettings(), "relaxation off": SolverSettings(big_amount_linearization_from=10**18)}
    print(f"{args.count} {args.size} boards, objective {','.join(OBJECTIVE)}, time limit {args.time_limit:g} s\n")
    print("| factor | settings | median ms | p95 ms | max ms | total s | unproven | refused |")
    print("|---|---|---|---|---|---|---|---|")
    disagree = 0
    for factor in (int(f) for f in args.factors.split(",")):
        data = [scaled(d, factor) for d in boards(args.size, args.count)]
        answers: dict[str, list[Any]] = {}
        for name, setting in settings.items():
            times, unproven, refused, values = [], 0, 0, []
            for board in data:
                start = time.perf_counter()
                try:
                    result = solve(board, objective=OBJECTIVE, settings=setting, time_limit=args.time_limit)
                except InputError:  # e.g. objective ranges too wide to combine
                    refused += 1
                    values.append(None)
                    continue
                times.append(time.perf_counter() - start)
                unproven += result.status != "optimal"
                values.append(result.objective if result.status == "optimal" else None)
            answers[name] = values
            times.sort()
            print(f"| {factor:,} | {name} | {statistics.median(times) * 1e3:.2f} | "
                  f"{times[int(len(times) * 0.95)] * 1e3:.1f} | {times[-1] * 1e3:.0f} | {sum(times):.2f} | "
                  f"{unproven} | {refused} |")
        disagree += sum(a != b for a, b in zip(*answers.values()) if a is not None and b is not None)
    print(f"\nboards where both settings proved different values: {disagree}")
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main())
