"""``mtg-combat batch``: JSON Lines in, one response line each, in input order, whatever the workers."""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from batch_requests import BAD_LINES, CHECK_BOARD, LEGAL, REGROWER, ROOT, encode, good_requests, write_lines

from optimizer.batch import chunk_size, chunked, in_order
from optimizer.check import check
from optimizer.cli import main
from optimizer.schema import load_board
from optimizer.solver import solve


def run_main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def expected_result(request: dict[str, Any]) -> dict[str, Any]:
    """What the library says, called directly."""
    if request.get("command") == "check":
        return check(load_board(request["board"]), request["assignments"]).to_dict()
    return solve(request["board"], player=request.get("player"), objective=request.get("objective"),
                 time_limit=request.get("time_limit")).to_dict()


def responses(text: str) -> list[dict[str, Any]]:
    assert text.endswith("\n") or text == ""
    return [json.loads(line) for line in text.splitlines()]


def assert_compact(text: str) -> None:
    for line in text.splitlines():
        data = json.loads(line)
        assert list(data) in (["id", "result"], ["id", "error"])
        assert line == json.dumps(data, separators=(",", ":"))  # compact, keys as written


def mixed_lines() -> tuple[list[bytes], list[tuple[Any, str | None]]]:
    """Good requests with the bad lines spread between them; the expected (id, error start) of each."""
    good = good_requests()
    lines: list[bytes] = []
    expect: list[tuple[Any, str | None]] = []
    for i, request in enumerate(good):
        lines.append(encode(request))
        expect.append((request.get("id"), None))
        for line, rid, error in BAD_LINES[i * 2:i * 2 + 2]:
            lines.append(line)
            expect.append((rid, error))
    assert len(lines) == len(good) + len(BAD_LINES)
    return lines, expect


def test_results_equal_the_library_and_go_to_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    requests = good_requests()
    code, out, err = run_main(capsys, "batch", write_lines(tmp_path / "in.jsonl", [encode(r) for r in requests]))
    assert code == 0, err
    assert err == ""  # stderr is not a terminal: no progress bar
    assert_compact(out)
    got = responses(out)
    assert [r["id"] for r in got] == [r.get("id") for r in requests]
    for request, response in zip(requests, got):
        assert response == {"id": request.get("id"), "result": expected_result(request)}
    assert got[-1]["result"]["legal"] is True  # the check request


def test_output_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write_lines(tmp_path / "in.jsonl", [encode(r) for r in good_requests()[:3]])
    code, to_stdout, _ = run_main(capsys, "batch", source)
    assert code == 0
    code, out, err = run_main(capsys, "batch", source, "-o", str(tmp_path / "out.jsonl"))
    assert (code, out, err) == (0, "", "")
    assert (tmp_path / "out.jsonl").read_text(encoding="utf-8") == to_stdout
    assert len(to_stdout.splitlines()) == 3


def test_bad_lines_become_error_lines_and_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines, expect = mixed_lines()
    code, out, err = run_main(capsys, "batch", write_lines(tmp_path / "in.jsonl", lines))
    assert code == 1
    assert err == ""
    assert_compact(out)
    got = responses(out)
    assert len(got) == len(expect)
    for response, (rid, error) in zip(got, expect):
        assert response["id"] == rid
        if error is None:
            assert "result" in response, response
        else:
            assert response["error"].startswith(error), (response, error)
            assert "Traceback" not in response["error"] and "\n" not in response["error"]


def test_workers_keep_the_order_and_the_bytes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines, expect = mixed_lines()
    source = write_lines(tmp_path / "in.jsonl", lines)
    serial, pooled = tmp_path / "serial.jsonl", tmp_path / "pooled.jsonl"
    assert run_main(capsys, "batch", source, "-o", str(serial))[0] == 1
    assert run_main(capsys, "batch", source, "-o", str(pooled), "--workers", "2")[0] == 1
    assert pooled.read_bytes() == serial.read_bytes()
    assert [r["id"] for r in responses(pooled.read_text(encoding="utf-8"))] == [rid for rid, _ in expect]


def test_subprocess_workers_3_from_stdin_matches_in_process(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [encode(r) for r in good_requests()[:4]] + [BAD_LINES[0][0]] + [encode(good_requests()[-1])]
    source = write_lines(tmp_path / "in.jsonl", lines)
    code, expected, _ = run_main(capsys, "batch", source)
    assert code == 1
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "optimizer", "batch", "-", "--workers", "3"],
                          input=Path(source).read_bytes(), capture_output=True, cwd=ROOT, env=env, timeout=120,
                          check=False)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.decode() == expected
    assert proc.stderr == b""


def test_blank_lines_are_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    request = encode({"id": 1, "board": REGROWER})
    source = tmp_path / "in.jsonl"
    second = request.replace(b'"id": 1', b'"id": 2')
    source.write_bytes(b"\n  \n" + request + b"\r\n\n\t\n" + second)  # CRLF, blank lines, no final newline
    code, out, _ = run_main(capsys, "batch", str(source))
    assert code == 0
    assert [r["id"] for r in responses(out)] == [1, 2]


def test_stdin_and_empty_input(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    class Stdin(io.StringIO):
        buffer = io.BytesIO(encode({"id": "s", "board": REGROWER, "objective": ["kills"]}) + b"\n")

    monkeypatch.setattr(sys, "stdin", Stdin())
    code, out, _ = run_main(capsys, "batch", "-")
    assert code == 0
    assert responses(out) == [{"id": "s", "result": solve(REGROWER, objective=["kills"]).to_dict()}]

    Stdin.buffer = io.BytesIO(b"\n\n")
    code, out, err = run_main(capsys, "batch", "-")
    assert (code, out, err) == (0, "", "")


def test_internal_error_is_an_error_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("optimizer.solver.solve", broken)
    monkeypatch.setattr("optimizer.protocol._CACHE", {})
    monkeypatch.setattr("optimizer.protocol._cache_chars", 0)
    lines = [encode({"id": 1, "board": REGROWER}),
             encode({"id": 2, "command": "check", "board": CHECK_BOARD, "assignments": LEGAL})]
    code, out, _ = run_main(capsys, "batch", write_lines(tmp_path / "in.jsonl", lines))
    assert code == 1
    assert responses(out)[0] == {"id": 1, "error": "internal error: RuntimeError: boom"}
    assert responses(out)[1]["result"]["legal"] is True


def test_a_failed_worker_fails_its_chunk_only() -> None:
    class Done:
        def __init__(self, value: Any) -> None:
            self.value = value

        def result(self) -> Any:
            if isinstance(self.value, Exception):
                raise self.value
            return self.value

    chunks = [[b'{"id": 1}'], [b'{"id": 2}', b"{bad", b'{"id": [3]}'], [b'{"id": 4}']]
    futures = [Done([(True, "one")]), Done(OSError("worker died")), Done([(True, "four")])]
    got = [line for chunk in in_order(chunks, futures) for line in chunk]
    error = "internal error: the worker failed: OSError: worker died"
    assert got == [(True, "one"), (False, json.dumps({"id": 2, "error": error}, separators=(",", ":"))),
                   (False, json.dumps({"id": None, "error": error}, separators=(",", ":"))),
                   (False, json.dumps({"id": None, "error": error}, separators=(",", ":"))), (True, "four")]


def test_chunks() -> None:
    assert chunk_size(0, 4) == chunk_size(10, 4) == 1
    assert chunk_size(1000, 2) == 16 and chunk_size(100, 2) == 12
    assert chunked([b"a", b"b", b"c"], 2) == [[b"a", b"b"], [b"c"]]


def test_progress_bar_only_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    source = write_lines(tmp_path / "in.jsonl", [encode({"id": i, "board": CHECK_BOARD}) for i in range(3)]
                         + [b"{bad"])
    stderr = Terminal()
    monkeypatch.setattr(sys, "stderr", stderr)
    assert main(["batch", source, "-o", str(tmp_path / "out.jsonl")]) == 1
    bar = stderr.getvalue()
    assert bar.startswith("\r[") and bar.endswith("\n") and bar.count("\n") == 1
    assert bar.rstrip().endswith("[" + "#" * 30 + "] 4/4 (1 failed)")
    assert len((tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()) == 4


def test_invocation_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(capsys, "batch", str(tmp_path / "missing.jsonl"))
    assert (code, out) == (2, "")
    assert err.startswith("mtg-combat: error: input: cannot read") and len(err.splitlines()) == 1

    source = write_lines(tmp_path / "in.jsonl", [encode({"id": 1, "board": CHECK_BOARD})])
    code, out, err = run_main(capsys, "batch", source, "-o", str(tmp_path / "no-such-dir" / "out.jsonl"))
    assert (code, out) == (2, "") and err.startswith("mtg-combat: error: --output: cannot write")

    code, _, err = run_main(capsys, "batch", source, "--workers", "2", "--scheduler", "tcp://127.0.0.1:8786")
    assert code == 2 and "--workers: cannot be combined with --scheduler" in err

    for workers in ("0", "-1", "two"):
        with pytest.raises(SystemExit) as info:
            main(["batch", source, "--workers", workers])
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert "--workers" in err and len(err.splitlines()) == 1


def test_scheduler_without_dask_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("dask", "dask.distributed", "distributed", "distributed.comm"):
        monkeypatch.setitem(sys.modules, name, None)  # import raises ImportError
    source = write_lines(tmp_path / "in.jsonl", [encode({"id": 1, "board": CHECK_BOARD})])
    out_path = tmp_path / "out.jsonl"
    code, out, err = run_main(capsys, "batch", source, "-o", str(out_path), "--scheduler", "tcp://127.0.0.1:8786")
    assert (code, out) == (2, "")
    assert err == "mtg-combat: error: --scheduler needs the dask extra: pip install '.[dask]'\n"
    assert not out_path.exists()


def test_batch_does_not_import_dask(tmp_path: Path) -> None:
    source = write_lines(tmp_path / "in.jsonl", [encode({"id": 1, "board": CHECK_BOARD})])
    script = ("import sys; from optimizer.cli import main; code = main(['batch', sys.argv[1], '-o', sys.argv[2]]);"
              "print(code, sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", script, source, str(tmp_path / "out.jsonl")],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=120, check=False)
    assert proc.stdout == "0 []\n", proc.stderr


def test_a_repeated_request_is_answered_from_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    from optimizer import protocol, schema, solver

    calls: list[str] = []

    def counting(name: str, real: Any) -> Any:
        def counted(*args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            return real(*args, **kwargs)
        return counted

    monkeypatch.setattr("optimizer.solver.solve", counting("solve", solver.solve))
    monkeypatch.setattr("optimizer.schema.load_board", counting("load", schema.load_board))
    monkeypatch.setattr("optimizer.protocol._CACHE", {})
    monkeypatch.setattr("optimizer.protocol._cache_chars", 0)
    first = protocol.respond(encode({"id": 1, "board": REGROWER}))
    first["result"]["objective"]["lethal"] = -99  # the caller's copy, not the cache
    second = protocol.respond(encode({"id": 2, "board": REGROWER}))
    assert calls == ["load", "solve"]  # the repeated request is neither read nor solved again
    assert second["id"] == 2 and second["result"]["objective"]["lethal"] == 0
    check_request = {"id": 3, "command": "check", "board": REGROWER, "assignments": []}
    assert "legal" in protocol.respond(encode(check_request))["result"]  # a check is never a cached solve


def test_requests_that_differ_only_in_key_order_get_the_same_answer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A JSON object's key order means nothing: commander damage and the warnings about it come by id,
    in the result of a batch, from the cache of solved requests and from the API alike."""
    monkeypatch.setattr("optimizer.protocol._CACHE", {})
    monkeypatch.setattr("optimizer.protocol._cache_chars", 0)

    def board(commander_damage: dict[str, int]) -> dict[str, Any]:
        return {"players": [{"id": "A"}, {"id": "B", "commander_damage": commander_damage}],
                "creatures": [{"id": "a1", "controller": "A", "power": 2, "toughness": 2, "attacking": "B",
                               "commander": True}]}

    boards = [board({"y": 2, "a1": 3, "x": 1}), board({"x": 1, "y": 2, "a1": 3})]
    source = write_lines(tmp_path / "in.jsonl", [encode({"id": i, "board": b}) for i, b in enumerate(boards)] * 3)
    code, out, _ = run_main(capsys, "batch", source)
    assert code == 0
    got = [r["result"] for r in responses(out)]
    assert got == [solve(b).to_dict() for b in boards] * 3
    assert all(json.dumps(r) == json.dumps(got[0]) for r in got)  # the same text, key order included
    assert list(got[0]["outcome"]["players"]["B"]["commander_damage"].items()) == [("a1", 5), ("x", 1), ("y", 2)]
    assert [w.split(":")[1].split()[0] for w in got[0]["warnings"]] == ["'x'", "'y'"]
    code, pooled, _ = run_main(capsys, "batch", source, "--workers", "2")
    assert (code, pooled) == (0, out)


def test_the_cache_keeps_within_its_size_in_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    from optimizer import protocol

    monkeypatch.setattr(protocol, "_CACHE", {})
    monkeypatch.setattr(protocol, "_cache_chars", 0)
    monkeypatch.setattr(protocol, "CACHE_CHARS", 1000)
    for i in range(20):
        protocol._remember(f"key{i:02d}".ljust(50), "r" * 50)  # 100 characters each
        assert protocol._cache_chars == sum(len(k) + len(v) for k, v in protocol._CACHE.items()) <= 1000
    assert list(protocol._CACHE) == [f"key{i:02d}".ljust(50) for i in range(10, 20)]  # the oldest went first
    protocol._remember("big", "r" * 300)  # over a quarter of the cache: not remembered
    assert "big" not in protocol._CACHE


SLOW_BOARD = json.loads((ROOT / "tests" / "data" / "max_min_boards.json").read_text())["boards"][0]  # ~0.4 s


def assert_every_slow_line_answered(proc: subprocess.Popen[bytes], out: bytes, count: int) -> None:
    """The batch of ``count`` :data:`SLOW_BOARD` lines ended well, every line answered, in order."""
    assert proc.stderr is not None
    assert (proc.wait(timeout=300), proc.stderr.read()) == (0, b"")
    answered = [json.loads(text) for text in out.splitlines()]
    assert [r["id"] for r in answered] == list(range(count))
    expected = solve(SLOW_BOARD).objective
    assert all(r["result"]["objective"] == expected for r in answered)


@pytest.mark.parametrize("signum, code, line", [(signal.SIGINT, 130, b"mtg-combat: interrupted\n"),
                                                (signal.SIGTERM, 143, b"mtg-combat: terminated\n")])
def test_a_signal_to_the_process_group_stops_a_pooled_batch_cleanly(
        signum: int, code: int, line: bytes, tmp_path: Path) -> None:
    """Ctrl-C (or SIGTERM) reaches the batch and its workers: one line on stderr, no traceback, the
    responses written so far whole, and every process of the group gone soon after."""
    requests = [encode({"id": i, "board": SLOW_BOARD, "time_limit": 100 + i}) for i in range(60)]  # none cached
    source = write_lines(tmp_path / "in.jsonl", requests)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "optimizer", "batch", source, "--workers", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env, start_new_session=True)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()  # the pool is up and answering
    os.killpg(proc.pid, signum)
    rest = proc.stdout.read()  # through the same buffer as readline (communicate would skip what it holds)
    err = proc.stderr.read()
    assert (proc.wait(timeout=120), err) == (code, line)
    assert (first + rest).endswith(b"\n")
    answered = [json.loads(text) for text in (first + rest).splitlines()]
    assert 1 <= len(answered) < len(requests)
    assert [r["id"] for r in answered] == list(range(len(answered)))
    deadline = time.monotonic() + 30
    while True:  # the workers, the fork server and the resource tracker leave with the batch
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, "processes of the batch are still running"
        time.sleep(0.1)


def test_a_pooled_batch_started_with_ctrl_c_ignored_ignores_it(tmp_path: Path) -> None:
    """Started with Ctrl-C ignored (a background job of a script), the batch and its workers keep
    ignoring it: Ctrl-C to the whole process group costs no line and no worker."""
    requests = [encode({"id": i, "board": SLOW_BOARD, "time_limit": 300 + i}) for i in range(8)]  # none cached
    source = write_lines(tmp_path / "in.jsonl", requests)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "optimizer", "batch", source, "--workers", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()  # the pool is up and answering
    os.killpg(proc.pid, signal.SIGINT)
    rest = proc.stdout.read()
    assert_every_slow_line_answered(proc, first + rest, 8)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_an_output_file_that_cannot_be_written_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write_lines(tmp_path / "in.jsonl", [encode({"id": 1, "board": REGROWER})])
    code, out, err = run_main(capsys, "batch", source, "-o", "/dev/full")
    assert (code, out, err) == (2, "", "mtg-combat: error: output: cannot write: No space left on device\n")


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return out


@pytest.mark.skipif(not os.path.isdir("/proc") or "forkserver" not in multiprocessing.get_all_start_methods(),
                    reason="needs /proc and the forkserver start method")
def test_a_worker_killed_mid_batch_costs_no_line(tmp_path: Path) -> None:
    """A dead worker breaks its whole process pool; the lines it and the other workers had not
    answered are answered again, in a new pool, not turned into error lines."""
    requests = [encode({"id": i, "board": SLOW_BOARD, "time_limit": 200 + i}) for i in range(8)]  # none cached
    source = write_lines(tmp_path / "in.jsonl", requests)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "optimizer", "batch", source, "--workers", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()  # the pool is up and answering
    workers = [w for server in _children(proc.pid) for w in _children(server)]  # the fork server's children
    assert workers
    os.kill(workers[0], signal.SIGKILL)
    rest = proc.stdout.read()
    assert_every_slow_line_answered(proc, first + rest, 8)


def test_an_unreadable_input_fails_before_any_worker_process_starts(monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str],
                                                                    tmp_path: Path) -> None:
    import optimizer.processes

    started: list[bool] = []
    monkeypatch.setattr(optimizer.processes, "pool_context", lambda: started.append(True))
    code, out, err = run_main(capsys, "batch", str(tmp_path / "missing.jsonl"), "--workers", "2")
    assert (code, out, started) == (2, "", [])
    assert err.startswith("mtg-combat: error: input: cannot read ") and len(err.splitlines()) == 1
