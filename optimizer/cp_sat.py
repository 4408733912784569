"""OR-Tools CP-SAT's Python API (``cp_model``, ``cp_model_helper``), imported without pandas.

``ortools.sat.python.cp_model`` imports pandas when it is imported, for its pandas-indexed helpers
(``new_int_var_series`` and the like), which the encoding never calls; pandas takes about a third of
a command's start-up (0.25-0.35 s). So, unless pandas is imported already, ``cp_model`` is imported
with a placeholder in its place (the module only names ``pandas.Index`` and ``pandas.Series`` in a
type alias as it loads, which keeps naming the placeholder's class), and its ``pd`` is then a proxy
that imports the real pandas on first use: every helper still works, and the process imports pandas
only if one is called. The placeholder is gone from ``sys.modules`` once ``cp_model`` is imported.
It is only put there while no other thread runs but the signal watcher of :mod:`optimizer.interrupt`
(the command line, a script): another thread importing pandas meanwhile would get it. Should an ortools release need
more of pandas as it loads, the import is made again the ordinary way.
"""

from __future__ import annotations

import importlib
import sys
import threading
import types
from typing import Any

from .interrupt import own_threads


class _Placeholder:
    """Stands for ``pandas.Index`` and ``pandas.Series`` while ``cp_model`` loads."""


class _LazyPandas:
    """``cp_model``'s ``pd`` after it loaded: the real pandas, imported on first attribute access."""

    def __getattr__(self, name: str) -> Any:
        return getattr(importlib.import_module("pandas"), name)


def _placeholder_pandas() -> types.ModuleType | None:
    """A placeholder for pandas in ``sys.modules``, unless pandas or ``cp_model`` is imported already
    or another thread runs (it could import pandas meanwhile)."""
    if "pandas" in sys.modules or "ortools.sat.python.cp_model" in sys.modules or _other_threads():
        return None
    placeholder = types.ModuleType("pandas", "a placeholder while ortools.sat.python.cp_model loads")
    placeholder.Index = placeholder.Series = _Placeholder  # type: ignore[attr-defined]
    sys.modules["pandas"] = placeholder
    return placeholder


def _other_threads() -> bool:
    """Whether a thread runs besides this one and the signal watcher (:mod:`optimizer.interrupt`)."""
    quiet = {threading.current_thread(), *own_threads()}
    return any(t not in quiet for t in threading.enumerate())


_before = set(sys.modules)
_placeholder = _placeholder_pandas()
try:
    from ortools.sat.python import cp_model, cp_model_helper
except Exception:  # an ortools that needs more of pandas as it loads: the ordinary import
    if _placeholder is None:
        raise
    for _name in set(sys.modules) - _before:  # modules the attempt imported that hold the placeholder
        if any(value is _placeholder for value in vars(sys.modules[_name]).values()):
            del sys.modules[_name]
    sys.modules.pop("ortools.sat.python.cp_model", None)
    if sys.modules.get("pandas") is _placeholder:
        del sys.modules["pandas"]
    _placeholder = None
    from ortools.sat.python import cp_model, cp_model_helper
finally:
    if _placeholder is not None and sys.modules.get("pandas") is _placeholder:
        del sys.modules["pandas"]
if _placeholder is not None:
    cp_model.pd = _LazyPandas()  # type: ignore[attr-defined]
del _before, _placeholder

__all__ = ["cp_model", "cp_model_helper"]
