"""One JSON request line -> one JSON response line, shared by ``batch``, ``serve`` and the cluster.

A request is an object ``{"id", "board", "player", "objective", "time_limit"}`` (solve, the default
command) or ``{"id", "command": "check", "board", "assignments", "dealing"}``. The response is
``{"id": ..., "result": ...}`` or ``{"id": ..., "error": "field: problem"}``; ``id`` is echoed when it
can be read, else null. Responses are compact JSON with keys in that order.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from .errors import (InputError, InvalidAssignmentError, InvalidBoardError, InvalidRequestError, NotSupportedError,
                     key_path, shown)
from .schema import json_type, json_value_problem, unique_keys

RequestId = str | int | float | None

COMMANDS: dict[str, tuple[str, ...]] = {
    "solve": ("id", "command", "board", "player", "objective", "time_limit"),
    "check": ("id", "command", "board", "assignments", "dealing"),
}
"""Each command and the fields its requests may have."""


CACHE_SIZE = 4096
"""Solved requests remembered per process (oldest dropped first): engines often ask the same board again."""
CACHE_CHARS = 64_000_000
"""At most this many characters of requests and results remembered in all (oldest dropped first)."""
_CACHE: dict[str, str] = {}
_cache_chars = 0


def is_blank(line: bytes | str) -> bool:
    """Whitespace only: skipped by ``batch`` and ``serve`` (no response)."""
    return not line.strip()


def warm() -> None:
    """Import the solver (and ortools) now rather than on the first request."""
    from . import solver  # noqa: F401 - imports ortools, the schema and the checker


def respond(line: bytes | str) -> dict[str, Any]:
    """The response to one request line; never raises for bad input or a failing solve."""
    return json.loads(answer(line)[1])


def answer(line: bytes | str) -> tuple[bool, str]:
    """``(ok, response line)`` for one request line (the JSON has no trailing newline); never raises
    for bad input or a failing solve."""
    request_id: RequestId = None
    try:
        request = _parse(line)
        if not isinstance(request, dict):
            raise InvalidRequestError("request", f"expected a JSON object, got {json_type(request)}")
        request_id = _read_id(request)
        text = result_text(request)
        return True, '{"id":' + encode(request_id) + ',"result":' + text + "}"
    except InputError as exc:
        return False, encode({"id": request_id, "error": str(exc)})
    except Exception as exc:  # noqa: BLE001 - one bad request never stops the others
        return False, encode({"id": request_id, "error": internal_error(exc)})


def answer_chunk(lines: Sequence[bytes | str]) -> list[tuple[bool, str]]:
    """:func:`answer` for consecutive lines: the unit of work sent to a process or a cluster."""
    return [answer(line) for line in lines]


def failed_chunk(lines: Sequence[bytes | str], exc: BaseException) -> list[tuple[bool, str]]:
    """Error lines for a chunk whose worker failed (for example a worker process that died)."""
    message = internal_error(exc, "the worker failed: ")
    return [(False, encode({"id": peek_id(line), "error": message})) for line in lines]


def encode(response: Any) -> str:
    """Compact one-line JSON, keys in insertion order, ASCII only."""
    return json.dumps(response, separators=(",", ":"), allow_nan=False)


def internal_error(exc: BaseException, context: str = "") -> str:
    text = str(exc).removeprefix("internal error: ")
    return f"internal error: {context}{type(exc).__name__}" + (f": {text}" if text else "")


def peek_id(line: bytes | str) -> RequestId:
    """The line's id if the line is a request object with a valid id, else None."""
    try:
        request = _parse(line)
        return _read_id(request) if isinstance(request, dict) else None
    except Exception:  # noqa: BLE001
        return None


def run(request: dict[str, Any]) -> dict[str, Any]:
    """The result of one parsed request object; raises InputError for bad fields."""
    return json.loads(result_text(request))  # the caller's own copy, not the cache's


def result_text(request: dict[str, Any]) -> str:
    """:func:`run`'s result as compact JSON (:func:`encode`); solved requests are remembered as text."""
    command = request.get("command", "solve")
    if not isinstance(command, str):
        raise InvalidRequestError("command", f"expected one of {', '.join(COMMANDS)}, got {json_type(command)}")
    if command not in COMMANDS:
        raise InvalidRequestError("command", f"unknown command {shown(command)}; expected one of {', '.join(COMMANDS)}")
    allowed = COMMANDS[command]
    for name in request:
        if name not in allowed:
            raise InvalidRequestError(key_path("", name), f"unknown field for a {command} request; "
                                      f"expected {', '.join(allowed)}")
    key = None
    if command == "solve" and isinstance(request.get("board"), dict):
        # keys sorted: a JSON object's key order changes nothing in the result (commander damage and
        # its warnings come by id), so requests that differ only in key order share an answer
        key = json.dumps([request["board"], request.get("player"), request.get("objective"),
                          request.get("time_limit")], sort_keys=True)
        cached = _CACHE.get(key)  # only valid requests are remembered: a repeated one is not read again
        if cached is not None:
            return cached
    board = _board(request)
    if command == "check":
        from .check import check

        if "assignments" not in request:
            raise InvalidAssignmentError("assignments", "field required")
        assignments = request["assignments"]
        if not isinstance(assignments, (list, dict)):
            raise InvalidAssignmentError("assignments", "expected a list of {source, target, amount}, got "
                                         + json_type(assignments))
        return encode(check(board, assignments, request.get("dealing", ())).to_dict())

    objective = request.get("objective")
    if objective is not None and not isinstance(objective, (str, list)):
        raise InvalidRequestError("objective", "expected a list of objective names, got " + json_type(objective))
    from .solver import solve

    result = solve(board, player=request.get("player"), objective=objective, time_limit=request.get("time_limit"))
    text = encode(result.to_dict())
    if result.status == "optimal" and key is not None:  # a time-limited answer may differ from run to run
        _remember(key, text)
    return text


def _remember(key: str, text: str) -> None:
    """Cache ``text`` under ``key`` within :data:`CACHE_SIZE` entries and :data:`CACHE_CHARS`."""
    global _cache_chars
    size = len(key) + len(text)
    if size > CACHE_CHARS // 4:
        return
    while _CACHE and (len(_CACHE) >= CACHE_SIZE or _cache_chars + size > CACHE_CHARS):
        old_key = next(iter(_CACHE))
        _cache_chars -= len(old_key) + len(_CACHE.pop(old_key))
    _CACHE[key] = text
    _cache_chars += size


def _board(request: dict[str, Any]) -> Any:
    from .schema import load_board

    if "board" not in request:
        raise InvalidBoardError("board", "field required")
    data = request["board"]
    if not isinstance(data, dict):  # never a path: a request does not read files
        raise InvalidBoardError("board", f"expected a JSON object, got {json_type(data)}")
    try:
        return load_board(data)
    except (InvalidBoardError, NotSupportedError) as exc:  # the board's own field names, relative to the request
        field = exc.field if exc.field == "board" else "board" + ("" if exc.field.startswith("[") else ".") + exc.field
        raise type(exc)(field, exc.problem) from None


def _parse(line: bytes | str) -> Any:
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidRequestError("request", f"not UTF-8 text (byte {exc.start + 1})") from None
    try:
        return json.loads(line.removeprefix("\ufeff"), parse_constant=_no_constant, parse_float=_finite,
                          object_pairs_hook=unique_keys)
    except json.JSONDecodeError as exc:
        raise InvalidRequestError("request", f"malformed JSON at column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise InvalidRequestError("request", "JSON nested too deeply") from None
    except ValueError as exc:  # NaN, 1e400, a duplicate key, an integer with more digits than Python converts
        raise InvalidRequestError("request", f"malformed JSON: {json_value_problem(exc)}") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text} is out of range")
    return value


def _read_id(request: dict[str, Any]) -> RequestId:
    value = request.get("id")
    if value is not None and (isinstance(value, bool) or not isinstance(value, (str, int, float))):
        raise InvalidRequestError("id", f"expected a string, a number or null, got {json_type(value)}")
    return value

