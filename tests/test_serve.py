"""``mtg-combat serve --stdio``: one request a line in, one flushed response a line out, until EOF."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from batch_requests import (
    BAD_LINES,
    CHECK_BOARD,
    LEGAL,
    REGROWER,
    ROOT,
    TRAMPLE_SHORT,
    encode,
    good_requests,
    write_lines,
)

from optimizer.check import check
from optimizer.cli import main
from optimizer.schema import load_board
from optimizer.serve import serve
from optimizer.solver import solve

ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
SERVE = [sys.executable, "-m", "optimizer", "serve", "--stdio"]


def serve_in_process(lines: list[bytes]) -> list[dict[str, Any]]:
    out = io.StringIO()
    assert serve(io.BytesIO(b"".join(line + b"\n" for line in lines)), out) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_several_requests_with_bad_ones_then_eof() -> None:
    lines = [encode({"id": 1, "board": REGROWER}), b"", b"{oops", b"   ",
             encode({"id": "two", "board": REGROWER, "player": "B", "objective": ["value"]}),
             b"[]", encode({"id": 3, "board": {"players": []}}),
             encode({"id": 4, "command": "check", "board": CHECK_BOARD, "assignments": LEGAL})]
    proc = subprocess.run(SERVE, input=b"\n".join(lines) + b"\n", capture_output=True, cwd=ROOT, env=ENV,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == b""
    got = [json.loads(line) for line in proc.stdout.decode().splitlines()]  # blank lines get no answer
    assert [r["id"] for r in got] == [1, None, "two", None, 3, 4]
    assert got[0] == {"id": 1, "result": solve(REGROWER).to_dict()}
    assert got[1]["error"].startswith("request: malformed JSON")
    assert got[2] == {"id": "two", "result": solve(REGROWER, player="B", objective=["value"]).to_dict()}
    assert got[3]["error"] == "request: expected a JSON object, got an array"
    assert got[4]["error"].startswith("board.players: ")
    assert got[5]["result"]["legal"] is True


def test_answers_each_request_before_the_next_arrives() -> None:
    proc = subprocess.Popen(SERVE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=ROOT, env=ENV)
    timer = threading.Timer(120, proc.kill)  # a server that does not flush would hang the test
    timer.start()
    try:
        assert proc.stdin is not None and proc.stdout is not None
        for i in range(3):
            proc.stdin.write(encode({"id": i, "command": "check", "board": CHECK_BOARD, "assignments": LEGAL})
                             + b"\n")
            proc.stdin.flush()
            assert json.loads(proc.stdout.readline())["id"] == i
        proc.stdin.write(b"not json\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] is None
        proc.stdin.close()
        assert proc.wait() == 0
        assert proc.stdout.read() == b""
    finally:
        timer.cancel()
        proc.kill()
        proc.wait()


def test_no_final_newline_and_empty_input() -> None:
    proc = subprocess.run(SERVE, input=encode({"id": 1, "board": CHECK_BOARD}), capture_output=True, cwd=ROOT,
                          env=ENV, timeout=120, check=False)
    assert proc.returncode == 0
    assert [json.loads(line)["id"] for line in proc.stdout.splitlines()] == [1]
    assert serve_in_process([]) == []


def test_check_command() -> None:
    board = load_board(CHECK_BOARD)
    got = serve_in_process([
        encode({"id": "legal", "command": "check", "board": CHECK_BOARD, "assignments": LEGAL}),
        encode({"id": "object", "command": "check", "board": CHECK_BOARD, "assignments": {"assignments": LEGAL}}),
        encode({"id": "short", "command": "check", "board": CHECK_BOARD, "assignments": TRAMPLE_SHORT}),
        encode({"id": "bad", "command": "check", "board": CHECK_BOARD, "assignments": "a1->b1"}),
        encode({"id": "extra", "command": "check", "board": CHECK_BOARD, "assignments": LEGAL, "player": "A"}),
    ])
    assert got[0] == {"id": "legal", "result": check(board, LEGAL).to_dict()}
    assert got[0]["result"]["legal"] is True and got[0]["result"]["outcome"]["players"]["B"]["life"] == 19
    assert got[1] == {"id": "object", "result": got[0]["result"]}
    assert got[2] == {"id": "short", "result": check(board, TRAMPLE_SHORT).to_dict()}
    assert got[2]["result"]["legal"] is False  # illegal is an answer, not an error
    assert [v["rule"] for v in got[2]["result"]["violations"]] == ["702.19b"]
    assert got[3]["error"].startswith("assignments: expected a list")
    assert got[4]["error"].startswith("player: unknown field for a check request")


def test_same_answers_as_batch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # malformed lines whose error would name another column, or another problem, with the newline
    cut_short = [b'{"id":"a","x":"abc', b'{"id":1']
    lines = cut_short + [encode(r) for r in good_requests()[-5:]] + [line for line, _, _ in BAD_LINES]
    out = io.StringIO()
    assert serve(io.BytesIO(b"\n".join(lines)), out) == 0
    assert main(["batch", write_lines(tmp_path / "in.jsonl", lines)]) == 1
    assert capsys.readouterr().out == out.getvalue()


def test_serve_needs_stdio() -> None:
    proc = subprocess.run([sys.executable, "-m", "optimizer", "serve"], input=b"", capture_output=True,
                          cwd=ROOT, env=ENV, timeout=120, check=False)
    assert proc.returncode == 2
    assert proc.stdout == b""
    err = proc.stderr.decode()
    assert len(err.splitlines()) == 1 and "--stdio is required" in err and "Traceback" not in err


def test_check_request_takes_the_dealing_choices() -> None:
    """A check request may carry the solver's ``dealing`` (616.1), as ``solve`` writes it."""
    from optimizer.protocol import run

    board = {"players": [{"id": "A"}, {"id": "B"}],
             "creatures": [{"id": "a", "controller": "A", "power": 3, "toughness": 3, "attacking": "B"}],
             "effects": [{"kind": "add", "amount": 2}, {"kind": "double"}]}
    solved = run({"board": board})
    ordered = run({"command": "check", "board": board, "assignments": solved["assignments"],
                   "dealing": solved["dealing"]})
    plain = run({"command": "check", "board": board, "assignments": solved["assignments"]})
    assert ordered["outcome"] == solved["outcome"] and ordered["outcome"]["players"]["B"]["life"] == 12
    assert plain["outcome"]["players"]["B"]["life"] == 10  # board order: (3 + 2) x 2


def test_ctrl_c_ends_an_idle_server_with_one_line() -> None:
    proc = subprocess.Popen(SERVE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=ROOT, env=ENV)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(encode({"id": 1, "board": REGROWER}) + b"\n")
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 1  # started, solved once, waiting for input
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, out, err) == (130, b"", b"mtg-combat: interrupted\n")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_server_started_with_a_signal_ignored_keeps_ignoring_it(signum: int) -> None:
    """An engine that starts the server with Ctrl-C (or SIGTERM) ignored, to keep it to itself,
    keeps a server that the signal does not end: it answers on, and ends at end of input."""
    proc = subprocess.Popen(SERVE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=ROOT, env=ENV, preexec_fn=lambda: signal.signal(signum, signal.SIG_IGN))
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(encode({"id": 1, "board": REGROWER}) + b"\n")
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 1
    proc.send_signal(signum)
    out, err = proc.communicate(encode({"id": 2, "board": REGROWER}) + b"\n", timeout=60)
    assert (proc.returncode, err) == (0, b"")
    assert json.loads(out)["id"] == 2 and json.loads(out)["result"]["status"] == "optimal"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_output_that_cannot_be_written_is_one_error_line() -> None:
    with open("/dev/full", "w") as full:
        proc = subprocess.run(SERVE, input=encode({"id": 1, "board": REGROWER}) + b"\n", stdout=full,
                              stderr=subprocess.PIPE, cwd=ROOT, env=ENV, timeout=120, check=False)
    assert proc.returncode == 2
    assert proc.stderr == b"mtg-combat: error: output: cannot write: No space left on device\n"


def test_a_client_that_closes_its_end_of_stdout_ends_the_server_quietly() -> None:
    """A client gone away leaves no one to answer: exit 0, nothing on stderr (docs/interfaces.md)."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first answer
    try:
        proc = subprocess.run(SERVE, input=b"".join(encode({"id": i, "board": REGROWER}) + b"\n" for i in range(3)),
                              stdout=write_end, stderr=subprocess.PIPE, cwd=ROOT, env=ENV, timeout=120, check=False)
    finally:
        os.close(write_end)
    assert (proc.returncode, proc.stderr) == (0, b"")
