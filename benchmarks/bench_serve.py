"""Round-trip latency of ``mtg-combat serve --stdio``, one request at a time, as a game engine sends them.

    python benchmarks/bench_serve.py                       # 2,000 typical boards, kills,player_damage
    python benchmarks/bench_serve.py --count 500 --objective default

Starts ``python -m optimizer serve --stdio`` (this tree's package, whatever copy is installed) and
times its start-up: until the answer to a first request (the first board) arrives. Then sends the
first ``--count`` typical boards of ``generate.py`` as requests, each once the previous response
arrived, and times each round trip (the line written, solved, its response read). Then sends them all
again: the process remembers the requests it proved optimal, so these time the pipe, the JSON and the
cache. For comparison, the same lines are answered in this process (``protocol.answer``, nothing
remembered), which is the solve with its JSON and no pipe. Every response must be a result, both
rounds the same, and equal to this process's answer, or it exits with 1.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from ab import summary  # noqa: E402
from generate import boards  # noqa: E402

from optimizer import protocol  # noqa: E402


def row(name: str, times: list[float]) -> str:
    ms = summary(times)
    return (f"| {name} | {ms['median']:.2f} | {ms['p95']:.2f} | {ms['p99']:.2f} | {ms['max']:.1f} | "
            f"{len(times) / sum(times):,.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=2000, help="typical boards (default 2,000)")
    parser.add_argument("--objective", default="kills,player_damage",
                        help="comma-separated objectives, or default for the solver's own list")
    args = parser.parse_args()

    objective = None if args.objective == "default" else args.objective.split(",")
    lines = [json.dumps({"id": i, "board": b, **({"objective": objective} if objective else {})}).encode()
             for i, b in enumerate(boards("typical", args.count))]

    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this tree's package, whatever copy is installed
    start = time.perf_counter()
    server = subprocess.Popen([sys.executable, "-m", "optimizer", "serve", "--stdio"], cwd=ROOT, env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert server.stdin is not None and server.stdout is not None

    def ask(line: bytes) -> bytes:
        server.stdin.write(line + b"\n")
        server.stdin.flush()
        return server.stdout.readline()

    ask(lines[0])
    start_up = time.perf_counter() - start
    rounds: list[tuple[list[float], list[bytes]]] = []
    for _ in range(2):
        times, answers = [], []
        for line in lines:
            begin = time.perf_counter()
            answers.append(ask(line))
            times.append(time.perf_counter() - begin)
        rounds.append((times, answers))
    server.stdin.close()
    if server.wait(timeout=60) != 0:
        sys.exit(f"serve exited with {server.returncode}")

    protocol.CACHE_SIZE = 0  # every line solved here
    protocol.answer(lines[0])  # warm: the solver imported, a first model built
    local_times, local_answers = [], []
    for line in lines:
        begin = time.perf_counter()
        ok, text = protocol.answer(line)
        local_times.append(time.perf_counter() - begin)
        local_answers.append((text + "\n").encode())
        if not ok:
            sys.exit(f"line {len(local_answers)} was answered with an error: {text}")
    if rounds[0][1] != local_answers or rounds[1][1] != local_answers:
        sys.exit("serve's responses differ from one round to the other, or from this process's answers")

    print(f"{args.count:,} typical boards, objective {args.objective}; serve start-up (first response) "
          f"{start_up:.2f} s")
    print("| requests | median ms | p95 ms | p99 ms | max ms | per second |")
    print("|---|---|---|---|---|---|")
    print(row("serve, each board new", rounds[0][0]))
    print(row("serve, each board again (remembered)", rounds[1][0]))
    print(row("in this process (`protocol.answer`), no pipe", local_times))


if __name__ == "__main__":
    main()
