"""Ctrl-C during a long CP-SAT search (``optimizer.interrupt``): the search stops at once and the
interrupt reaches the program, instead of the search's result being used as an answer."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SEARCH = """
from ortools.sat.python import cp_model
from optimizer.interrupt import stop_searches_on_signals, stoppable
from optimizer.solver import SolverSettings

assert stop_searches_on_signals()
n = 11  # 11 pigeons in 10 holes: CP-SAT does not prove it impossible within its minute
model = cp_model.CpModel()
x = [[model.new_bool_var(f"x{i},{j}") for j in range(n - 1)] for i in range(n)]
for row in x:
    model.add_bool_or(row)
for j in range(n - 1):
    model.add_at_most_one(row[j] for row in x)
solver = cp_model.CpSolver()
SolverSettings().apply(solver, 60.0, size=n * n)
print("searching", flush=True)
try:
    with stoppable(solver):
        solver.solve(model)
    print("the search returned", solver.status_name(), flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


def test_ctrl_c_stops_a_long_search_at_once() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-c", SEARCH], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=ROOT, env=env)
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"searching\n"
    time.sleep(0.5)  # inside the search
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=55)
    assert (out, err, proc.returncode) == (b"interrupted\n", b"", 0)
    assert time.monotonic() - sent < 20  # the search alone runs a minute
