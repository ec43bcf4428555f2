"""Hypothesis profiles for the test suite.

* ``default``: local runs, a few seconds.
* ``ci``: chosen when the ``CI`` environment variable is set; sized so the
  property and stateful tests run well under a minute on two cores.
* ``quick``: the CI runs that check another interpreter or the sdist: they
  look for what differs between Pythons or installs, which the first
  examples find; the main run keeps ``ci``.
* ``thorough``: ``HYPOTHESIS_PROFILE=thorough`` for long local runs.
* ``mutmut``: chosen by the mutation run (``[tool.mutmut]`` in pyproject.toml);
  derandomized and without an example database, so that every mutant meets the
  same examples and a verdict does not depend on what ran before it.

``HYPOTHESIS_PROFILE`` names a profile explicitly and wins over ``CI``.

The repository's ``tools`` folder is put on the import path, so that the
tests import the vector generator (``import generate_vectors``), which the
package does not hold.
Every profile has ``deadline=None``: a whole match per example has no
meaningful per-example time limit, and timing must never fail a test.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from pg_testing import Opener, openers

# Every profile: no deadline, and whole matches in a strategy are not "too slow".
_COMMON: dict[str, Any] = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
# name: (max_examples, stateful_step_count, anything else)
_PROFILES: dict[str, tuple[int, int, dict[str, Any]]] = {
    "default": (40, 40, {}),
    "ci": (30, 30, {"print_blob": True}),
    "quick": (10, 15, {}),
    "thorough": (1000, 100, {}),
    "mutmut": (10, 20, {"derandomize": True, "database": None}),
}
for _name, (_examples, _steps, _extra) in _PROFILES.items():
    settings.register_profile(
        _name, max_examples=_examples, stateful_step_count=_steps, **_COMMON, **_extra
    )

settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "default")
)

# The repository's tools, importable by the tests as top-level modules: the
# vector generator (tools/generate_vectors.py) is not in the package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))


@pytest.fixture(params=["sqlite", "postgres"])
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    """How each browser server opens the shared database: a SQLite file, or a PostgreSQL schema.

    (Skipped, or failed under ``AMERICAN_SNIFF_REQUIRE_POSTGRES=1``, where no
    PostgreSQL answers: see ``pg_testing``.)
    """
    yield from openers(request.param, tmp_path)
