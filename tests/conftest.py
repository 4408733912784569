import os
import signal
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).parent))

# Derandomized: the same examples on every run, so a red CI run reproduces locally.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
# Random exploration for local bug hunting: HYPOTHESIS_PROFILE=explore pytest (fresh random examples on
# every run, each test's own number of them; with CI set too, Hypothesis would otherwise derandomize)
settings.register_profile("explore", parent=settings.get_profile("default"), derandomize=False, deadline=None,
                          print_blob=True, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config: pytest.Config) -> None:
    factor = os.environ.get("EXAMPLES_FACTOR", "1")
    if not factor.isdigit() or int(factor) < 1:
        raise pytest.UsageError(f"EXAMPLES_FACTOR={factor!r}: expected a positive whole number (see tests/boards.py)")
    # The programs the tests start are sent Ctrl-C and SIGTERM and must act on them; a test run started
    # with them ignored (a background job of a script) would pass that on, and the program keeps an
    # ignored signal ignored (README, exit codes). The tests of that start their programs so themselves.
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if signal.getsignal(signal.SIGTERM) == signal.SIG_IGN:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
