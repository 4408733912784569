"""Throughput of ``mtg-combat batch``: the command line as a user runs it, start-up included.

    python benchmarks/bench_batch.py                       # 4,000 typical boards, --workers 2, 3 runs
    python benchmarks/bench_batch.py --count 1000 --workers 1 --runs 1

Writes the first ``--count`` typical boards of ``generate.py`` as JSON Lines requests (objective
``--objective``, default ``kills,player_damage``), then times ``python -m optimizer batch IN -o OUT
--workers N`` in a fresh process ``--runs`` times (this tree's package, whatever copy is installed),
and a batch of the first two lines as often (its time is about the start-up: interpreter, imports,
worker processes). Prints the wall times, the
boards per second with start-up, and once started (boards over the difference of the two). Every
run must answer every line without an error, and all runs the same answers, or it exits with 1.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from generate import boards  # noqa: E402


def timed_batch(source: Path, target: Path, workers: int) -> float:
    start = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this tree's package, whatever copy is installed
    done = subprocess.run([sys.executable, "-m", "optimizer", "batch", str(source), "-o", str(target),
                           "--workers", str(workers)], capture_output=True, text=True, cwd=ROOT, env=env)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"batch exited with {done.returncode}: {done.stderr.strip()}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=4000, help="typical boards (default 4,000)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--objective", default="kills,player_damage")
    args = parser.parse_args()

    objective = args.objective.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        many, two, out = Path(tmp, "boards.jsonl"), Path(tmp, "two.jsonl"), Path(tmp, "out.jsonl")
        lines = [json.dumps({"id": i, "board": b, "objective": objective}) for i, b in
                 enumerate(boards("typical", args.count))]
        many.write_text("\n".join(lines) + "\n")
        two.write_text("\n".join(lines[:2]) + "\n")
        full, start_up, answers = [], [], set()
        for _ in range(args.runs):
            full.append(timed_batch(many, out, args.workers))
            results = [json.loads(line) for line in out.read_text().splitlines()]
            if len(results) != args.count or any("error" in r for r in results):
                sys.exit("a line was not answered, or was answered with an error")
            answers.add(json.dumps(results, sort_keys=True))
            start_up.append(timed_batch(two, out, args.workers))
        if len(answers) != 1:
            sys.exit("the runs answered differently")
    first = min(start_up)
    print(f"{args.count:,} typical boards, --workers {args.workers}, objective {args.objective}")
    print("batch wall times (s): " + ", ".join(f"{t:.2f}" for t in full))
    print("2-line batch (start-up, s): " + ", ".join(f"{t:.2f}" for t in start_up))
    print(f"boards/s with start-up: {args.count / max(full):,.0f}-{args.count / min(full):,.0f}; "
          f"once started: {args.count / (max(full) - first):,.0f}-{args.count / (min(full) - first):,.0f}")


if __name__ == "__main__":
    main()
