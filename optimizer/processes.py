"""Worker processes for :mod:`optimizer.batch`: how they start, and a pool that stops them at once.

Where the platform has it, workers are forked from a fork server that imports the solver once (no
threads are forked, unlike plain fork); elsewhere each starts afresh (spawn). This module imports
neither the schema nor the solver, so the fork server can start importing them before the parent
process does its own imports.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.forkserver
import os
import signal
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from .interrupt import in_main_thread, signals_held, stop_searches_on_signals


def pool_context() -> Any:
    """The multiprocessing context of the workers; a fork server is started now, importing the
    solver while the caller goes on."""
    with signals_held():  # started whole (an interrupted start leaves a fork server that fails noisily)
        if "forkserver" not in multiprocessing.get_all_start_methods():
            return multiprocessing.get_context("spawn")
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["optimizer.protocol", "optimizer.solver"])
        _start_forkserver_deaf_to_ctrl_c()
        return context


@contextlib.contextmanager
def process_pool(context: Any, workers: int) -> Iterator[ProcessPoolExecutor]:
    """A process pool, shut down at the end; if the block is interrupted (or its reader stopped
    reading), its workers are stopped at once, whatever they are doing."""
    deaf = in_main_thread() and signal.getsignal(signal.SIGINT) == signal.SIG_IGN  # the workers ignore it too
    with signals_held():  # the pool starts whole
        pool = ProcessPoolExecutor(max_workers=max(workers, 1), mp_context=context, initializer=_quit_on_interrupt,
                                   initargs=(deaf,))
    try:
        yield pool
    except BaseException:
        for process in list((getattr(pool, "_processes", None) or {}).values()):  # no public way in 3.11
            with contextlib.suppress(OSError):
                os.kill(process.pid, signal.SIGTERM)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _start_forkserver_deaf_to_ctrl_c() -> None:
    """Start the fork server with Ctrl-C ignored from its first instruction (it imports the solver
    before it would ignore it itself); its workers set their own handling."""
    if not in_main_thread():
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        multiprocessing.forkserver.ensure_running()
    finally:
        signal.signal(signal.SIGINT, previous)


def _quit_on_interrupt(deaf: bool = False) -> None:
    """In a worker process: Ctrl-C, which reaches every process of the terminal's group, stops its
    search and ends the worker at once and quietly; the parent reports the interruption. ``deaf``:
    the parent ignores Ctrl-C, and so does the worker."""
    if deaf:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        return
    signal.signal(signal.SIGINT, _quit)
    stop_searches_on_signals()


def _quit(signum: int, frame: object) -> None:
    os._exit(128 + signum)
