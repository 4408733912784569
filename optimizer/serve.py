"""``mtg-combat serve --stdio``: one JSON request a line in, one JSON response a line out.

The solver is imported once at start; each response is flushed as soon as it is written. Bad lines
get an error response; blank lines get none. End of input ends the loop (exit 0).
"""

from __future__ import annotations

import contextlib
import sys
from typing import BinaryIO, TextIO

from .errors import InvalidRequestError
from .interrupt import act_on_signals, signals_held
from .protocol import answer, is_blank, warm


def serve(stdin: BinaryIO, stdout: TextIO) -> int:
    """Answer requests from ``stdin`` on ``stdout`` until end of input; the exit status."""
    with signals_held():  # a signal during the import acts after it (in it, its exception can be lost)
        warm()
    for line in iter(lambda: _read_line(stdin), b""):
        if is_blank(line):
            continue
        with contextlib.redirect_stdout(sys.stderr):  # a stray print must not corrupt the protocol
            _, text = answer(line.removesuffix(b"\n"))  # the line as batch reads it
        act_on_signals()  # an interruption whose exception was lost is no answer
        stdout.write(text + "\n")
        stdout.flush()
    return 0


def _read_line(stdin: BinaryIO) -> bytes:
    try:
        return stdin.readline()
    except OSError as exc:  # an input error, not an output one
        raise InvalidRequestError("input", f"cannot read standard input: {exc.strerror or exc}") from None
