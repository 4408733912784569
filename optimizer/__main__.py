"""``python -m optimizer`` and the ``mtg-combat`` command: :func:`optimizer.cli.main`."""

import os
import signal
import sys


def _interrupted_while_loading(signum: int, frame: object) -> None:
    # nothing has run yet: say so in one line and end (128 + SIGINT), without a traceback
    os.write(2, b"mtg-combat: interrupted\n")
    os._exit(128 + signal.SIGINT)


def run() -> None:
    """Load the command line with Ctrl-C ending the program quietly, then run it (it sets its own);
    started with Ctrl-C ignored, it keeps ignoring it."""
    if signal.getsignal(signal.SIGINT) != signal.SIG_IGN:
        signal.signal(signal.SIGINT, _interrupted_while_loading)
    from .cli import main

    sys.exit(main())


if __name__ == "__main__":
    run()
