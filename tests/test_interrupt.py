"""Ctrl-C during a long CP-SAT search (``optimizer.interrupt``): the search stops at once and the
interrupt reaches the program, instead of the search's result being used as an answer."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from optimizer.interrupt import signals_held

ROOT = Path(__file__).resolve().parent.parent

SEARCH = """
from ortools.sat.python import cp_model
from optimizer.interrupt import stop_searches_on_signals, stoppable
from optimizer.solver import SolverSettings

assert stop_searches_on_signals()
n = 11  # 11 pigeons in 10 holes: CP-SAT does not prove it impossible within a minute
model = cp_model.CpModel()
x = [[model.new_bool_var(f"x{i},{j}") for j in range(n - 1)] for i in range(n)]
for row in x:
    model.add_bool_or(row)
for j in range(n - 1):
    model.add_at_most_one(row[j] for row in x)
solver = cp_model.CpSolver()
SolverSettings().apply(solver, 60.0, size=n * n)
solver.parameters.max_deterministic_time = 1e9  # unstopped, the search runs its whole minute
print("searching", flush=True)
try:
    with stoppable(solver):
        status = solver.solve(model)
    print("the search returned", solver.status_name(status), flush=True)
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
    out, err = proc.communicate(timeout=90)
    assert (out, err, proc.returncode) == (b"interrupted\n", b"", 0)
    assert time.monotonic() - sent < 10  # unstopped, the search runs a minute (and then prints the same)


LOST = """
import signal, sys
import optimizer.schema as schema
from optimizer.cli import main

real = schema.load_board


class Lost:
    def __del__(self):  # the handler's KeyboardInterrupt is raised here, where Python ignores it
        signal.raise_signal(signal.SIGINT)


def load_board(*args, **kwargs):
    Lost()
    return real(*args, **kwargs)


schema.load_board = load_board
sys.exit(main(sys.argv[1:]))
"""


def _run_interrupted_while_loading(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """``command`` run by :data:`LOST` (Ctrl-C while its board loads), one request on standard input."""
    request = json.dumps({"id": 1, "board": json.loads((ROOT / "examples" / "deathtouch-trample.json").read_text())})
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-c", LOST, *command], input=request + "\n", capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=120, **kwargs)


@pytest.mark.parametrize("command", [
    ["solve", "examples/deathtouch-trample.json", "--format", "json"],  # a CP-SAT search follows
    ["solve", "examples/infect-toxic-poison.json", "--format", "json"],
    ["batch", "-"],
    ["serve", "--stdio"],
])
def test_an_interruption_whose_exception_python_ignored_still_stops_the_program(command: list[str]) -> None:
    # Ctrl-C while Python runs a __del__ (or a weakref callback, as during an import): the
    # KeyboardInterrupt is reported as ignored and the program goes on; it must not answer then
    proc = _run_interrupted_while_loading(command)
    assert (proc.returncode, proc.stdout) == (130, "")
    assert proc.stderr.endswith("\nmtg-combat: interrupted\n") and "Exception ignored" in proc.stderr


@pytest.mark.parametrize("command", [
    ["solve", "examples/deathtouch-trample.json", "--format", "json"],
    ["batch", "-"],
    ["serve", "--stdio"],
])
def test_ctrl_c_ignored_from_the_start_stays_ignored(command: list[str]) -> None:
    # the same Ctrl-C as above, to a program started with it ignored: it answers as if none came
    proc = _run_interrupted_while_loading(command, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert (proc.returncode, proc.stderr) == (0, "")
    answer = json.loads(proc.stdout)
    assert (answer.get("result", answer))["status"] == "optimal"


def test_an_ignored_signal_stays_ignored_while_signals_are_held() -> None:
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with signals_held():
            assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN  # no handler: no search stopped for it
            signal.raise_signal(signal.SIGINT)
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)


EARLY = """
import builtins, signal, sys

real_import = builtins.__import__


def interrupting_import(name, *args, **kwargs):
    if name == "cli":  # "from .cli import main": Ctrl-C while the command line loads
        signal.raise_signal(signal.SIGINT)
    return real_import(name, *args, **kwargs)


builtins.__import__ = interrupting_import
from optimizer.__main__ import run

sys.argv = ["mtg-combat", "--help"]
run()
"""


def test_ctrl_c_while_the_command_line_loads_is_one_line_and_130() -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", EARLY], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert (proc.returncode, proc.stdout, proc.stderr) == (130, "", "mtg-combat: interrupted\n")
