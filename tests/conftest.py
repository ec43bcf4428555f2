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
Every profile has ``deadline=None``: a whole match per example has no
meaningful per-example time limit, and timing must never fail a test.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "default",
    deadline=None,
    max_examples=40,
    stateful_step_count=40,
    suppress_health_check=[HealthCheck.too_slow],  # strategies play whole matches
)
settings.register_profile(
    "ci",
    deadline=None,
    max_examples=30,
    stateful_step_count=30,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "quick",
    deadline=None,
    max_examples=10,
    stateful_step_count=15,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough",
    deadline=None,
    max_examples=1000,
    stateful_step_count=100,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "mutmut",
    deadline=None,
    max_examples=10,
    stateful_step_count=20,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "default")
)
