"""``mtg-combat batch``: answer a JSON Lines file of requests, in order, in-process or over processes.

Each non-blank input line is one request (see :mod:`optimizer.protocol`); each gets one response line,
in input order. Work is cut into chunks of consecutive lines; a chunk is the unit sent to a process
(or, with :mod:`optimizer.cluster`, to a Dask worker). Responses do not depend on the chunking, so
the output is the same whatever the number of workers.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, Protocol, TextIO

from .errors import InvalidRequestError, OutputError
from .interrupt import act_on_signals, signals_held
from .processes import pool_context, process_pool

Line = bytes
Chunk = list[Line]
Answers = list[tuple[bool, str]]

MAX_CHUNK = 16
"""At most this many lines a chunk: small enough to balance slow boards across workers."""


class _Result(Protocol):
    def result(self) -> Any: ...


def read_lines(source: str) -> list[Line]:
    """The non-blank lines of a file, or of standard input for ``-``, as bytes (decoded per line)."""
    if not source:
        raise InvalidRequestError("input", "an empty path; give a file name, or - for standard input")
    try:
        data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as exc:
        raise InvalidRequestError("input", f"cannot read {source!r}: {exc.strerror}") from None
    except UnicodeEncodeError as exc:  # a lone surrogate, say: no file system name holds it
        raise InvalidRequestError("input", f"{source!r} is not a file name (character {exc.start + 1} has "
                                  "no UTF-8 form)") from None
    return [line for line in data.split(b"\n") if line.strip()]  # blank lines get no response (as in serve)


def chunk_size(lines: int, slots: int) -> int:
    """About four chunks per worker, at most :data:`MAX_CHUNK` lines each."""
    return max(1, min(MAX_CHUNK, lines // (4 * max(slots, 1))))


def chunked(lines: Sequence[Line], size: int) -> list[Chunk]:
    return [list(lines[i:i + size]) for i in range(0, len(lines), size)]


def in_order(chunks: Sequence[Chunk], futures: Sequence[_Result]) -> Iterator[Answers]:
    """Each chunk's answers in input order; a chunk whose worker failed becomes error lines."""
    from .protocol import failed_chunk

    for chunk, future in zip(chunks, futures):
        try:
            yield future.result()
        except Exception as exc:  # noqa: BLE001 - e.g. BrokenProcessPool, a killed Dask worker
            yield failed_chunk(chunk, exc)


def answer_serial(lines: Sequence[Line]) -> Iterator[Answers]:
    """In this process, one line at a time."""
    from .protocol import answer_chunk

    for line in lines:
        yield answer_chunk([line])


def answer_pooled(lines: Sequence[Line], workers: int, context: Any = None) -> Iterator[Answers]:
    """Over ``workers`` processes of ``context`` (:func:`~optimizer.processes.pool_context` if None).

    A worker that dies (killed, out of memory) breaks the whole pool, failing every chunk not yet
    answered; so the first of those is then answered a line at a time in a pool of its own (a line
    whose worker dies again gets an error line), and a new pool takes the rest."""
    chunks = chunked(lines, chunk_size(len(lines), workers))
    if context is None:
        context = pool_context()
    from .protocol import answer_chunk, failed_chunk  # the schema: imported as the fork server imports the solver
    done = 0
    while done < len(chunks):
        broken = False
        with process_pool(context, min(workers, len(chunks) - done)) as pool:
            with signals_held():
                futures: list[Future[Answers]] = [pool.submit(answer_chunk, chunk) for chunk in chunks[done:]]
            for chunk, future in zip(chunks[done:], futures):
                try:
                    answers = future.result()
                except BrokenProcessPool:
                    broken = True
                    break
                except Exception as exc:  # noqa: BLE001 - the chunk could not be sent or returned
                    answers = failed_chunk(chunk, exc)
                yield answers
                done += 1
        if broken:
            yield [answer for line in chunks[done] for answer in _answer_alone(context, line)]
            done += 1


def _answer_alone(context: Any, line: Line) -> Answers:
    """One line in a pool of one worker: its answer, or an error line if that worker dies too."""
    from .protocol import answer_chunk, failed_chunk

    with process_pool(context, 1) as pool:
        with signals_held():
            future = pool.submit(answer_chunk, [line])
        try:
            return future.result()
        except Exception as exc:  # noqa: BLE001 - BrokenProcessPool: this line's worker died
            return failed_chunk([line], exc)


class Progress:
    """A one-line progress bar on a terminal, redrawn with carriage returns."""

    def __init__(self, total: int, stream: TextIO, width: int = 30, interval: float = 0.1) -> None:
        self.total, self.stream, self.width, self.interval = total, stream, width, interval
        self.done = self.failed = 0
        self.shown = ""
        self.last = 0.0

    def advance(self, done: int, failed: int) -> None:
        self.done += done
        self.failed += failed
        now = time.monotonic()
        if self.done >= self.total or now - self.last >= self.interval:
            self.last = now
            self.draw()

    def draw(self) -> None:
        filled = self.width * self.done // max(self.total, 1)
        text = f"[{'#' * filled}{'.' * (self.width - filled)}] {self.done}/{self.total}"
        if self.failed:
            text += f" ({self.failed} failed)"
        self.stream.write("\r" + text.ljust(len(self.shown)))
        self.stream.flush()
        self.shown = text

    def clear(self) -> None:
        """Erase the bar (before other output goes to the same terminal)."""
        if self.shown:
            self.stream.write("\r" + " " * len(self.shown) + "\r")
            self.stream.flush()
            self.shown = ""

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def write_answers(answers: Iterable[Answers], out: TextIO, progress: Progress | None = None,
                  same_terminal: bool = False) -> int:
    """Write each response line to ``out`` as it comes; the number of lines that failed.
    :class:`OutputError` if ``out`` cannot be written (BrokenPipeError if its reader closed it)."""
    failed = 0
    for chunk in answers:
        if progress is not None and same_terminal:
            progress.clear()
        act_on_signals()  # an interruption whose exception was lost writes no more lines
        with signals_held():
            try:
                out.writelines(text + "\n" for _, text in chunk)
                out.flush()
            except BrokenPipeError:
                raise
            except OSError as exc:
                raise OutputError.writing(exc) from None
        bad = sum(1 for ok, _ in chunk if not ok)
        failed += bad
        if progress is not None:
            progress.advance(len(chunk), bad)
    if progress is not None:
        progress.close()
    return failed
