"""optimizer.cp_sat: CP-SAT imported without pandas, every cp_model helper still working."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_python(code: str) -> str:
    """``code`` in a fresh interpreter (nothing imported yet); its standard output."""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_solver_solves_without_importing_pandas_and_cp_model_series_helpers_import_it_on_use():
    out = run_python(
        "import sys\n"
        "import optimizer\n"
        "result = optimizer.solve('examples/cr-510-1c-elvish-regrower.json')\n"
        "print(result.status, 'pandas' in sys.modules)\n"
        "from optimizer.cp_sat import cp_model\n"
        "model = cp_model.CpModel()\n"
        "import pandas\n"
        "xs = model.new_int_var_series('x', pandas.Index(range(3)), 0, 4)\n"
        "print(type(xs).__module__.split('.')[0], len(xs))\n"
        "print(cp_model.Domain(0, 4).max())\n")
    assert out.split() == ["optimal", "False", "pandas", "3", "4"]


def test_with_pandas_imported_first_cp_model_keeps_it():
    out = run_python("import pandas, sys\nfrom optimizer.cp_sat import cp_model\n"
                     "print(cp_model.pd is pandas, sys.modules['pandas'] is pandas)\n")
    assert out.split() == ["True", "True"]


def test_an_ortools_that_needs_pandas_as_it_loads_gets_the_ordinary_import():
    # as though cp_model used, while it runs, a pandas name the placeholder lacks
    out = run_python(
        "import builtins, sys\n"
        "real = builtins.__import__\n"
        "def strict(name, globals=None, locals=None, fromlist=(), level=0):\n"
        "    module = real(name, globals, locals, fromlist, level)\n"
        "    if name == 'pandas' and (globals or {}).get('__name__') == 'ortools.sat.python.cp_model':\n"
        "        module.DataFrame  # AttributeError on the placeholder, inside cp_model\n"
        "    return module\n"
        "builtins.__import__ = strict\n"
        "from optimizer.cp_sat import cp_model\n"
        "builtins.__import__ = real\n"
        "import pandas\n"
        "print(cp_model.pd is pandas, hasattr(pandas, 'DataFrame'))\n"
        "model = cp_model.CpModel(); x = model.new_int_var(0, 3, 'x'); model.maximize(x)\n"
        "solver = cp_model.CpSolver(); solver.solve(model); print(solver.value(x))\n")
    assert out.split() == ["True", "True", "3"]


def test_with_another_thread_running_pandas_is_imported_the_ordinary_way():
    # a thread importing pandas while cp_model loads must not get the placeholder
    out = run_python(
        "import sys, threading\n"
        "stop = threading.Event()\n"
        "seen = []\n"
        "def watch():\n"
        "    while not stop.is_set():\n"
        "        if 'pandas' in sys.modules:\n"
        "            import pandas  # waits for the import under way, if it is one\n"
        "            seen.append(hasattr(pandas, 'DataFrame'))\n"
        "            return\n"
        "thread = threading.Thread(target=watch); thread.start()\n"
        "from optimizer.cp_sat import cp_model\n"
        "stop.set(); thread.join()\n"
        "print(seen, type(cp_model.pd).__name__)\n")
    assert out.split() == ["[True]", "module"]


def test_the_command_line_imports_no_pandas_beside_its_signal_watcher():
    # main() starts the thread that stops searches on Ctrl-C before it imports the solver
    out = run_python(
        "import contextlib, io, sys, threading\n"
        "from optimizer.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    code = main(['solve', 'examples/cr-510-1c-elvish-regrower.json', '--format', 'json'])\n"
        "print(code, 'pandas' in sys.modules, [t.name for t in threading.enumerate()][1:])\n")
    assert out.split() == ["0", "False", "['stop-searches']"]
