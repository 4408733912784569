"""Ctrl-C and SIGTERM during a CP-SAT search: stop the search at once, then let the signal act.

CP-SAT's own SIGINT handler is off (see :class:`~optimizer.settings.SolverSettings`), and Python runs a
signal's handler only between bytecodes, so a signal arriving during a search would wait until the
search ends (seconds on a large board). After :func:`stop_searches_on_signals`, a thread woken by the
signal (``signal.set_wakeup_fd``) stops every search under way (:func:`stoppable`); the search
returns, and the signal's handler (KeyboardInterrupt, or the CLI's SIGTERM handler) acts before its
result is used. The command line turns this on; a program that imports the package keeps its own
signal handling.

A handler's exception can be lost: raised while Python runs a weakref callback or a ``__del__`` (an
import's module lock has one), it is reported as ignored and the program goes on. The command line's
handlers therefore also :func:`note_signal`, and every search and every output first
:func:`act_on_signals`, so a lost interruption still stops the program instead of becoming an answer.
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
_threads: list[threading.Thread] = []
_watching = False
_received: list[int] = []
"""The stopping signals noted by the command line's handlers (:func:`note_signal`)."""


def handle_unless_ignored(signum: int, handler: Any) -> Any:
    """Set ``handler`` for ``signum`` unless the signal is ignored (the program was started so: a
    background job of a script, a game engine keeping Ctrl-C to itself), which then stays ignored.
    The previous handler."""
    previous = signal.getsignal(signum)
    if previous != signal.SIG_IGN:
        signal.signal(signum, handler)
    return previous


def in_main_thread() -> bool:
    """Whether this is the main thread, the only one where signal handlers are set and run."""
    return threading.current_thread() is threading.main_thread()


def stop_searches_on_signals() -> bool:
    """Stop the searches under way when SIGINT or SIGTERM arrives; whether that is on. Only from the
    main thread, and not if the process already has a wakeup fd (an event loop's): it keeps its own."""
    global _watching
    if _watching:
        return True
    if not in_main_thread():
        return False
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    previous = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    if previous != -1:
        signal.set_wakeup_fd(previous)
        os.close(read_end)
        os.close(write_end)
        return False
    watcher = threading.Thread(target=_stop_on_signal, args=(read_end,), name="stop-searches", daemon=True)
    watcher.start()
    _threads.append(watcher)
    _watching = True
    return True


def own_threads() -> tuple[threading.Thread, ...]:
    """The threads this module started (they import nothing)."""
    return tuple(_threads)


def _stop_on_signal(read_end: int) -> None:
    while True:
        received = os.read(read_end, 64)
        if not received:
            return
        if STOPPING_SIGNALS.intersection(received):
            with _lock:
                for solver in _running:
                    solver.stop_search()


def note_signal(signum: int) -> None:
    """Remember that ``signum`` arrived, for :func:`act_on_signals` (called by a handler that raises)."""
    if signum not in _received:
        _received.append(signum)


def forget_signals() -> None:
    """Forget the signals noted (a command run in-process is over: the caller's code goes on)."""
    _received.clear()


def act_on_signals() -> None:
    """Act again on a stopping signal noted earlier (its handler raises), in case the exception its
    handler raised then was lost; nothing if none was noted."""
    if _received and in_main_thread():
        _act(_received[0], signal.getsignal(_received[0]))


@contextmanager
def stoppable(solver: Any) -> Iterator[None]:
    """``solver`` (a ``cp_model.CpSolver``) may be stopped by a signal while the block runs (one
    noted before it begins stops the program first, :func:`act_on_signals`)."""
    act_on_signals()
    with _lock:
        _running.add(solver)
    try:
        yield
    finally:
        with _lock:
            _running.discard(solver)


@contextmanager
def signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait until the block is done (a batch's lines being written, so that its
    output stays whole lines; its pool starting); a second one during the block acts at once. Only in the main
    thread (where signal handlers run); elsewhere nothing is held. An ignored signal stays ignored."""
    if not in_main_thread():
        yield
        return
    pending: list[int] = []
    previous = {signum: signal.getsignal(signum) for signum in STOPPING_SIGNALS}  # before a hold can run

    def hold(signum: int, frame: Any) -> None:
        if pending:
            _act(signum, previous[signum])
        pending.append(signum)

    for signum in STOPPING_SIGNALS:  # an ignored one gets no handler to wake the search-stopping thread either
        handle_unless_ignored(signum, hold)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if pending:
        _act(pending[0], previous[pending[0]])


def _act(signum: int, handler: Any) -> None:
    """What ``signum`` would have done under ``handler`` (raise, or the default action)."""
    if callable(handler):
        handler(signum, None)
    elif handler != signal.SIG_IGN:
        signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)
