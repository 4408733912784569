"""Command line: ``mtg-combat solve``, ``check``, ``batch`` and ``serve``.

Exit codes: 0 success (legal, for check), 1 illegal assignment (check) or a failed line (batch),
2 invalid input (or output that cannot be written), 3 internal error, 130 interrupted (Ctrl-C),
143 terminated (SIGTERM). Errors print one line (input errors name the field); never a traceback.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import signal
import sys
from typing import Sequence, TextIO

from .errors import InputError, InvalidAssignmentError, InvalidRequestError, OutputError, printable
from .interrupt import (act_on_signals, forget_signals, handle_unless_ignored, in_main_thread, note_signal,
                        signals_held, stop_searches_on_signals)

EXIT_OK, EXIT_ILLEGAL, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_INTERRUPTED, EXIT_TERMINATED = 128 + signal.SIGINT, 128 + signal.SIGTERM


class _Terminated(BaseException):
    """SIGTERM, raised where the program is so that it unwinds (a batch's pool shut down) like Ctrl-C."""


def _terminate(signum: int, frame: object) -> None:
    note_signal(signum)
    raise _Terminated


def _interrupt(signum: int, frame: object) -> None:
    note_signal(signum)
    raise KeyboardInterrupt


def _output_error(exc: OSError, stdout: bool = True) -> OutputError:
    """The error for a failed write; standard output is pointed at devnull, so that the exit flush
    does not fail again with a traceback."""
    if stdout:
        _stdout_gone(0)
    return OutputError.writing(exc)


_FORMAT_FLAGS = ("--json", "--table", "--text")
"""Options some tools have for what ``--format`` chooses here: named in the error, with the option to use."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (exit 2) like every other input error."""

    def error(self, message: str) -> None:  # type: ignore[override]
        hint = ""
        if message.startswith("unrecognized arguments:"):
            flags = [w for w in message.split(":", 1)[1].split() if w in _FORMAT_FLAGS]
            if flags:
                hint = f"; the output format is chosen with --format, e.g. --format {flags[0][2:]}"
        self.exit(EXIT_INPUT, f"mtg-combat: error: {message}{hint} (see --help)\n")


class _Once(argparse.Action):
    """An option given at most once: argparse would keep the last of ``--objective kills --objective
    value`` silently, and the answer would be for an objective the user did not mean."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        if getattr(namespace, self.dest, None) is not None:
            parser.error(f"{option_string} given twice (list several objectives as one, comma-separated)"
                         if self.dest == "objective" else f"{option_string} given twice")
        setattr(namespace, self.dest, values)


class _OnceFlag(_Once):
    """A flag given at most once (``serve --stdio --stdio`` is a usage error like any option twice)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)  # type: ignore[arg-type]

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        super().__call__(parser, namespace, True, option_string)


def _parser() -> argparse.ArgumentParser:
    from .objectives import DEFAULT_OBJECTIVE, OBJECTIVES

    parser = _Parser(
        prog="mtg-combat",
        description="Provably optimal, rules-legal combat damage assignment (Magic: The Gathering).")
    sub = parser.add_subparsers(dest="command", required=True)

    solve = sub.add_parser("solve", help="find the optimal damage assignment for a board",
                           formatter_class=argparse.RawDescriptionHelpFormatter,
                           epilog="objectives:\n" + "\n".join(f"  {k:<14}{v}" for k, v in OBJECTIVES.items())
                           + f"\ndefault: {','.join(DEFAULT_OBJECTIVE)}")
    solve.add_argument("board", help="board JSON file, or - for standard input")
    solve.add_argument("--player", action=_Once, help="the deciding player (default: the active player)")
    solve.add_argument("--objective", action=_Once, help="comma-separated objectives in priority order")
    solve.add_argument("--format", action=_Once, choices=["json", "table"],
                       help="output format (default: table on a terminal, json otherwise)")
    solve.add_argument("--time-limit", action=_Once, type=float, metavar="SECONDS",
                       help="stop the proof after this long and return the best legal assignment found")

    check = sub.add_parser("check", help="check an assignment's legality and show its outcome")
    check.add_argument("board", help="board JSON file, or - for standard input")
    check.add_argument("assignment", help='JSON file {"assignments": [...]}, or - for standard input')
    check.add_argument("--format", action=_Once, choices=["json", "text"],
                       help="output format (default: text on a terminal, json otherwise)")

    batch = sub.add_parser("batch", help="answer a JSON Lines file of requests, one response line each, in order",
                           description="Each non-blank line of IN.jsonl is a request {\"id\", \"board\", "
                           "\"player\", \"objective\", \"time_limit\"}; each gets one line {\"id\", \"result\"} "
                           "or {\"id\", \"error\"}, in input order. Exit 1 if any line failed.")
    batch.add_argument("input", metavar="IN.jsonl", help="requests, one JSON object a line, or - for standard input")
    batch.add_argument("-o", "--output", action=_Once, metavar="OUT.jsonl",
                       help="write responses here (default, or -: standard output)")
    batch.add_argument("--workers", action=_Once, type=_positive_int, metavar="N",
                       help="solve in N processes (default 1: in this process)")
    batch.add_argument("--scheduler", action=_Once, metavar="tcp://HOST:PORT",
                       help="solve on a Dask distributed cluster (needs the dask extra)")

    serve = sub.add_parser("serve", help="answer JSON requests line by line, for engines in other languages")
    serve.add_argument("--stdio", action=_OnceFlag,
                       help="requests on standard input, responses on standard output (required: the only transport)")
    return parser


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, got {value}")
    return value


class _ClosedStream:
    """Standard input or output closed before the program started (Python then sets it to None):
    reading or writing it fails as a closed file does, so the program says so (exit 2)."""

    @property
    def buffer(self) -> "_ClosedStream":
        return self

    def _closed(self, *args: object) -> str:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))

    read = readline = write = writelines = _closed

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise ValueError("standard stream closed")


def _standard_streams() -> None:
    """Streams for the standard ones that were closed when the program started."""
    if sys.stdin is None:
        sys.stdin = _ClosedStream()  # type: ignore[assignment]
    if sys.stdout is None:
        sys.stdout = _ClosedStream()  # type: ignore[assignment]
    if sys.stderr is None:  # print(file=None) would write to standard output; the messages are lost
        sys.stderr = open(os.devnull, "w", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    _standard_streams()
    main_thread = in_main_thread()
    # ``import optimizer.cli`` loads the rules layer only: the schema (pydantic) and the solver
    # (ortools) load in here, where an interruption is reported as one, not as a traceback
    try:  # a signal can arrive anywhere, the handler's own restoring included
        on_terminate = handle_unless_ignored(signal.SIGTERM, _terminate) if main_thread else None
        on_interrupt = handle_unless_ignored(signal.SIGINT, _interrupt) if main_thread else None
        stop_searches_on_signals()
        try:
            return _run(_arguments(argv))
        finally:
            if main_thread:
                signal.signal(signal.SIGTERM, on_terminate)
                signal.signal(signal.SIGINT, on_interrupt)
            forget_signals()
    except KeyboardInterrupt:
        return _stopped("interrupted", EXIT_INTERRUPTED)
    except _Terminated:
        return _stopped("terminated", EXIT_TERMINATED)


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """The parsed command line; a usage error exits 2."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "serve" and not args.stdio:
        parser.error("serve: --stdio is required (the only transport for now)")
    return args


_OPTIONS = {"player": "--player", "objective": "--objective", "time_limit": "--time-limit"}
"""``solve``'s request fields and the options that give them."""


def _run(args: argparse.Namespace) -> int:
    try:
        if args.command == "solve":
            return _solve(args)
        if args.command == "batch":
            return _batch(args)
        if args.command == "serve":
            return _serve()
        return _check(args)
    except (InputError, OutputError) as exc:
        text = str(exc)
        if args.command == "solve" and isinstance(exc, InvalidRequestError) and exc.field in _OPTIONS:
            text = f"{_OPTIONS[exc.field]}: {exc.problem}"  # named as the command line gives it
        _tell(f"mtg-combat: error: {printable(text)}")
        return EXIT_INPUT
    except Exception as exc:  # noqa: BLE001 - last resort: one line, distinct exit code
        signalled = exc.__cause__ or exc.__context__
        if isinstance(signalled, (KeyboardInterrupt, _Terminated)):
            raise signalled from None  # a signal during an import (pybind11 makes it an ImportError)
        _tell(f"mtg-combat: internal error: {type(exc).__name__}: {printable(str(exc))}")
        return EXIT_INTERNAL


def _stopped(how: str, code: int) -> int:
    """One line on stderr for a signal that stopped the program; what was written stays written
    (an interrupted batch's last response line may be cut short)."""
    _tell(f"mtg-combat: {how}")
    return code


def _tell(line: str) -> None:
    """One line on stderr; if stderr cannot be written (closed), the exit status still tells."""
    try:
        print(line, file=sys.stderr)
    except OSError:
        pass


def _format(requested: str | None, pretty: str) -> str:
    return requested or (pretty if sys.stdout.isatty() else "json")


def _solve(args: argparse.Namespace) -> int:
    from .report import render_solution
    from .schema import load_board

    board = load_board(args.board)
    with signals_held():  # a signal during the import acts after it (in it, its exception can be lost)
        from .solver import solve  # imports ortools: after the board is known to be valid

    result = solve(board, player=args.player, objective=args.objective, time_limit=args.time_limit)
    if _format(args.format, "table") == "json":
        return _write(json.dumps(result.to_dict()), EXIT_OK)
    return _write(render_solution(board, result), EXIT_OK)


def _check(args: argparse.Namespace) -> int:
    from .check import check
    from .report import render_check
    from .schema import load_board, read_json

    if args.board == "-" and args.assignment == "-":
        raise InvalidAssignmentError("assignment", "board and assignment cannot both be read from stdin")
    board = load_board(args.board)
    try:
        data = read_json(args.assignment, what="assignment")
    except InputError as exc:
        raise InvalidAssignmentError(exc.field, exc.problem) from None
    verdict = check(board, data)
    code = EXIT_OK if verdict.legal else EXIT_ILLEGAL
    if _format(args.format, "text") == "json":
        return _write(json.dumps(verdict.to_dict()), code)
    chosen = isinstance(data, dict) and bool(data.get("dealing"))
    return _write(render_check(board, verdict, default_order=bool(board.effects) and not chosen), code)


def _write(text: str, code: int) -> int:
    """Print ``text`` (a table's names made printable: control characters escaped,
    unpaired surrogates too); a reader that closed standard output gets nothing more."""
    act_on_signals()  # an interruption whose exception was lost is no answer
    text = printable(text, keep_newlines=True)
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except UnicodeEncodeError:  # a terminal that cannot show some names (PYTHONIOENCODING=ascii): escaped
        text = text.encode(encoding, "backslashreplace").decode(encoding)
    except LookupError:
        pass
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:
        return _stdout_gone(code)
    except OSError as exc:
        raise _output_error(exc) from None
    return code


def _batch(args: argparse.Namespace) -> int:
    if args.scheduler is not None and args.workers is not None:
        raise InvalidRequestError("--workers", "cannot be combined with --scheduler (the cluster's workers solve)")
    from .batch import Progress, answer_pooled, answer_serial, read_lines, write_answers

    lines = read_lines(args.input)  # an unreadable input fails before any process starts
    context = None
    if args.scheduler is None and (args.workers or 1) > 1:
        from .processes import pool_context

        context = pool_context()  # its fork server imports the solver while this process imports the schema
    client = None
    if args.scheduler is not None:
        from .cluster import MissingExtraError, connect

        try:
            client = connect(args.scheduler)
        except MissingExtraError as exc:
            _tell(f"mtg-combat: error: {exc}")
            return EXIT_INPUT
    try:
        if client is not None:
            from .cluster import answer_on_cluster

            answers = answer_on_cluster(client, lines)
        elif (args.workers or 1) > 1:
            answers = answer_pooled(lines, args.workers, context)
        else:
            answers = answer_serial(lines)
        out = sys.stdout if args.output in (None, "-") else _open_output(args.output)
        progress = Progress(len(lines), sys.stderr) if sys.stderr.isatty() else None
        try:
            failed = write_answers(answers, out, progress, same_terminal=out is sys.stdout and sys.stdout.isatty())
        except BrokenPipeError:
            return _stdout_gone(EXIT_ILLEGAL)
        except OutputError:
            if out is sys.stdout:
                _stdout_gone(0)
            raise
        finally:
            if out is not sys.stdout:
                _close(out)
    finally:
        if client is not None:
            client.close()
    return EXIT_ILLEGAL if failed else EXIT_OK


def _close(out: TextIO) -> None:
    try:
        out.close()
    except OSError as exc:  # its last buffered lines could not be written
        raise _output_error(exc, stdout=False) from None


def _open_output(path: str) -> TextIO:
    try:
        return open(path, "w", encoding="utf-8", newline="\n")
    except OSError as exc:
        raise InvalidRequestError("--output", f"cannot write {path!r}: {exc.strerror}") from None


def _serve() -> int:
    from .serve import serve

    try:
        return serve(sys.stdin.buffer, sys.stdout)
    except BrokenPipeError:  # the client went away: nothing left to answer
        return _stdout_gone(EXIT_OK)
    except OSError as exc:
        raise _output_error(exc) from None


def _stdout_gone(code: int) -> int:
    """Standard output's reader closed it: point it at devnull so the exit flush does not complain."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return code


if __name__ == "__main__":
    sys.exit(main())
