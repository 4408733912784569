"""Ctrl-C and SIGTERM during a CP-SAT search: stop the search at once, then let the signal act.

CP-SAT's own SIGINT handler is off (see :class:`~optimizer.solver.SolverSettings`), and Python runs a
signal's handler only between bytecodes, so a signal arriving during a search would wait until the
search ends (seconds on a large board). After :func:`stop_searches_on_signals`, a thread woken by the
signal (``signal.set_wakeup_fd``) stops every search under way (:func:`stoppable`); the search
returns, and the signal's handler (KeyboardInterrupt, or the CLI's SIGTERM handler) acts before its
result is used. The command line turns this on; a program that imports the package keeps its own
signal handling.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

STOPPING_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})
_running: set[Any] = set()
_lock = threading.Lock()
_watching = False


def stop_searches_on_signals() -> bool:
    """Stop the searches under way when SIGINT or SIGTERM arrives; whether that is on. Only from the
    main thread, and not if the process already has a wakeup fd (an event loop's): it keeps its own."""
    global _watching
    if _watching:
        return True
    if threading.current_thread() is not threading.main_thread():
        return False
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    previous = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    if previous != -1:
        signal.set_wakeup_fd(previous)
        os.close(read_end)
        os.close(write_end)
        return False
    threading.Thread(target=_stop_on_signal, args=(read_end,), name="stop-searches", daemon=True).start()
    _watching = True
    return True


def _stop_on_signal(read_end: int) -> None:
    while True:
        received = os.read(read_end, 64)
        if not received:
            return
        if STOPPING_SIGNALS.intersection(received):
            with _lock:
                for solver in _running:
                    solver.stop_search()


@contextmanager
def stoppable(solver: Any) -> Iterator[None]:
    """``solver`` (a ``cp_model.CpSolver``) may be stopped by a signal while the block runs."""
    with _lock:
        _running.add(solver)
    try:
        yield
    finally:
        with _lock:
            _running.discard(solver)
