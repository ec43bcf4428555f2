"""The ``sweep`` marker of the root ``conftest.py``: a coverage run does not trace a sweep.

A small suite runs in a child pytest with the repository's root conftest.
A fixture installs a trace function, as coverage does for every test; the
tests record what ``sys.gettrace()`` is while they run, and the fixture
records it again once the test is over.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent

SUITE = """
import json
import sys

import pytest

SEEN = {}


def tracer(frame, event, arg):
    return None


@pytest.fixture(autouse=True)
def traced(request):
    before = sys.gettrace()
    sys.settrace(tracer)
    yield
    SEEN[request.node.name + " after"] = sys.gettrace() is tracer
    sys.settrace(before)


def _record(name):
    SEEN[name] = "none" if sys.gettrace() is None else "tracer"


@pytest.mark.sweep
def test_a_sweep():
    _record("sweep")


@pytest.mark.sweep
def test_a_failing_sweep():
    _record("failing sweep")
    raise AssertionError("a sweep still fails")


def test_not_a_sweep():
    _record("plain")


def test_zz_write():
    with open("seen.json", "w") as file:
        json.dump(SEEN, file)
"""


def test_a_sweep_runs_untraced_fails_as_before_and_gets_the_tracer_back(
    pytester: pytest.Pytester,
) -> None:
    """Inside a sweep no tracer; after it the tracer is back; other tests keep it; failures stay."""
    pytester.makeconftest((ROOT / "conftest.py").read_text())
    pytester.makeini("[pytest]\nmarkers =\n    sweep: a sweep\n")
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, failed=1)
    seen = json.loads((pytester.path / "seen.json").read_text())
    assert seen["sweep"] == "none"
    assert seen["failing sweep"] == "none"
    assert seen["plain"] == "tracer"
    assert seen["test_a_sweep after"] is True
    assert seen["test_a_failing_sweep after"] is True
    assert seen["test_not_a_sweep after"] is True
