"""Command line: ``mtg-combat solve`` and ``mtg-combat check``.

Exit codes: 0 success (legal, for check), 1 illegal assignment (check), 2 invalid input,
3 internal error. Input errors print one line naming the field; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from .errors import InputError, InvalidAssignmentError

EXIT_OK, EXIT_ILLEGAL, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (exit 2) like every other input error."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_INPUT, f"mtg-combat: error: {message} (see --help)\n")


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
    solve.add_argument("--player", help="the deciding player (default: the active player)")
    solve.add_argument("--objective", help="comma-separated objectives in priority order")
    solve.add_argument("--format", choices=["json", "table"],
                       help="output format (default: table on a terminal, json otherwise)")
    solve.add_argument("--time-limit", type=float, metavar="SECONDS",
                       help="stop the proof after this long and return the best legal assignment found")

    check = sub.add_parser("check", help="check an assignment's legality and show its outcome")
    check.add_argument("board", help="board JSON file, or - for standard input")
    check.add_argument("assignment", help='JSON file {"assignments": [...]}, or - for standard input')
    check.add_argument("--format", choices=["json", "text"],
                       help="output format (default: text on a terminal, json otherwise)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "solve":
            return _solve(args)
        return _check(args)
    except InputError as exc:
        print(f"mtg-combat: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except Exception as exc:  # noqa: BLE001 - last resort: one line, distinct exit code
        print(f"mtg-combat: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_INTERNAL


def _format(requested: str | None, pretty: str) -> str:
    return requested or (pretty if sys.stdout.isatty() else "json")


def _solve(args: argparse.Namespace) -> int:
    from .report import render_solution
    from .schema import load_board

    board = load_board(args.board)
    from .solver import solve  # imports ortools: after the board is known to be valid

    result = solve(board, player=args.player, objective=args.objective, time_limit=args.time_limit)
    if _format(args.format, "table") == "json":
        print(json.dumps(result.to_dict()))
    else:
        print(render_solution(board, result))
    return EXIT_OK


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
    if _format(args.format, "text") == "json":
        print(json.dumps(verdict.to_dict()))
    else:
        print(render_check(board, verdict))
    return EXIT_OK if verdict.legal else EXIT_ILLEGAL


if __name__ == "__main__":
    sys.exit(main())
