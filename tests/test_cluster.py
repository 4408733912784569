"""``mtg-combat batch --scheduler``: the same bytes from a Dask LocalCluster as from a serial run.

Skipped unless the ``dask`` extra is installed (``pip install '.[dask]'``).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("dask.distributed")

from batch_requests import BAD_LINES, encode, good_requests, write_lines
from dask.distributed import LocalCluster

from optimizer import cluster
from optimizer.cli import main


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    # Worker processes (not threads): tasks are pickled and optimizer is imported there, as on a real cluster.
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as local:
        yield local.scheduler_address


def test_cluster_equals_serial(scheduler: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = [encode(r) for r in good_requests()]
    lines = good[:6] + [line for line, _, _ in BAD_LINES[:4]] + good[6:] + [line for line, _, _ in BAD_LINES[4:]]
    source = write_lines(tmp_path / "in.jsonl", lines)
    serial, distributed = tmp_path / "serial.jsonl", tmp_path / "cluster.jsonl"
    assert main(["batch", source, "-o", str(serial)]) == 1
    assert main(["batch", source, "-o", str(distributed), "--scheduler", scheduler]) == 1
    assert "mtg-combat: error" not in capsys.readouterr().err
    assert distributed.read_bytes() == serial.read_bytes()
    assert len(serial.read_bytes().splitlines()) == len(lines)


def test_cluster_all_good_lines_exit_0(scheduler: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write_lines(tmp_path / "in.jsonl", [encode(r) for r in good_requests()[:3]])
    assert main(["batch", source]) == 0
    serial = capsys.readouterr().out
    assert main(["batch", source, "--scheduler", scheduler]) == 0
    assert capsys.readouterr().out == serial


def test_bad_or_unreachable_scheduler_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 0.5)
    source = write_lines(tmp_path / "in.jsonl", [encode(good_requests()[0])])
    for address, problem in (("tcp://127.0.0.1:1", "cannot connect to 'tcp://127.0.0.1:1'"),
                             ("localhost", "missing port number")):
        code = main(["batch", source, "--scheduler", address])
        out, err = capsys.readouterr()
        assert (code, out) == (2, "")
        line = [e for e in err.splitlines() if e.startswith("mtg-combat:")]
        assert len(line) == 1 and line[0].startswith("mtg-combat: error: --scheduler: ") and problem in line[0], err


def test_a_server_that_does_not_speak_dask_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """It accepts the connection and never answers: the connection's own timeout does not end that."""
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 0.5)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    held: list[socket.socket] = []
    accepting = threading.Thread(target=lambda: held.append(listener.accept()[0]), daemon=True)
    accepting.start()
    source = write_lines(tmp_path / "in.jsonl", [encode(good_requests()[0])])
    address = "tcp://127.0.0.1:%d" % listener.getsockname()[1]
    try:
        code = main(["batch", source, "--scheduler", address])
    finally:
        for s in held + [listener]:
            s.close()
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.splitlines()[0] == f"mtg-combat: error: --scheduler: no Dask scheduler answered at {address!r} in 0.5 s"


def test_a_client_that_connects_after_connect_gave_up_is_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    import dask.distributed

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 0.2)
    release, closed = threading.Event(), threading.Event()

    class LateClient:
        def __init__(self, *args: object, **kwargs: object) -> None:
            release.wait(10)  # connects only once connect() has given up

        def close(self) -> None:
            closed.set()

    monkeypatch.setattr(dask.distributed, "Client", LateClient)
    with pytest.raises(cluster.InvalidRequestError, match="no Dask scheduler answered"):
        cluster.connect("tcp://127.0.0.1:1")
    release.set()
    assert closed.wait(10)
