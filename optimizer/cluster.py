"""``mtg-combat batch --scheduler``: the same chunks as :mod:`optimizer.batch`, on a Dask cluster.

Needs the optional ``dask`` extra here and ``mtg-combat`` installed on every worker. Dask is imported
only by :func:`connect`, so nothing else pays for it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any

from .batch import Answers, Line, chunk_size, chunked, in_order
from .errors import InvalidRequestError
from .protocol import answer_chunk

MISSING_EXTRA = "--scheduler needs the dask extra: pip install '.[dask]'"
CONNECT_TIMEOUT = 10.0
"""Seconds to wait for the scheduler before giving up."""


class MissingExtraError(ImportError):
    """The ``dask`` extra is not installed."""


def connect(address: str) -> Any:
    """A ``dask.distributed.Client`` of the scheduler at ``address``; :class:`MissingExtraError`
    without dask, InputError naming ``--scheduler`` for a bad or unreachable address."""
    try:
        from dask.distributed import Client
        from distributed.comm import get_address_host_port
    except ImportError:
        raise MissingExtraError(MISSING_EXTRA) from None
    try:
        get_address_host_port(address)  # checked first: a Client that fails to parse it warns at exit
    except ValueError as exc:
        raise InvalidRequestError("--scheduler", f"{exc}; expected tcp://HOST:PORT") from None
    outcome: dict[str, Any] = {}
    settled = threading.Lock()  # whoever takes it first decides: the answer in time, or abandoned

    def attempt() -> None:
        try:
            client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
        except Exception as exc:  # noqa: BLE001 - OSError, TimeoutError
            outcome["error"] = exc
            return
        with settled:
            if not outcome.get("abandoned"):
                outcome["client"] = client
                return
        client.close()  # connected after connect() gave up: nobody will use it

    # in a thread, so that a server that accepts the connection but never speaks Dask's protocol
    # (Client's own timeout does not cover that) cannot hold the batch
    thread = threading.Thread(target=attempt, name="connect-scheduler", daemon=True)
    thread.start()
    thread.join(CONNECT_TIMEOUT + 2)
    with settled:
        if "client" in outcome:
            return outcome["client"]
        outcome["abandoned"] = True
    if "error" in outcome:
        raise InvalidRequestError("--scheduler", f"cannot connect to {address!r}: {outcome['error']}")
    raise InvalidRequestError("--scheduler", f"no Dask scheduler answered at {address!r} in {CONNECT_TIMEOUT:g} s")


def answer_on_cluster(client: Any, lines: Sequence[Line]) -> Iterator[Answers]:
    """Submit chunks of lines, all at once, to ``client``'s cluster; yield their answers in input order."""
    slots = sum(client.nthreads().values())
    chunks = chunked(lines, chunk_size(len(lines), slots))
    futures = client.map(answer_chunk, chunks, pure=False)
    yield from in_order(chunks, futures)
