import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).parent))

# Derandomized: the same examples on every run, so a red CI run reproduces locally.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
# Random exploration for local bug hunting: HYPOTHESIS_PROFILE=explore pytest
settings.register_profile("explore", deadline=None, max_examples=2000,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
