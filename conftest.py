"""Collection rules for the whole repository (tests/, the doctests of src/, docs/).

Some modules of the package need an optional extra. Where the extra is not
installed, their doctests are left out of the collection instead of failing
it; the step of ``.ci/run`` that installs each extra tests its modules.

* ``american_sniff.envs``: the ``rl`` and ``openspiel`` extras;
* ``american_sniff.batch.observe``: numpy (the ``rl`` extra);
* ``american_sniff.web.app``, the modules its server is made of that import
  Starlette (``cache``, ``connection``, ``driver``, ``flow``, ``listener``,
  ``rooms``, ``routes``, ``transport``) and ``american_sniff.web.serving``:
  the ``web`` extra (Starlette, uvicorn). The rest of ``american_sniff.web``
  needs nothing beyond the base install;
* ``tests/cdp.py``, the browser tests' driver: the ``web-test`` extra.

A test marked ``sweep`` repeats its checks over many matches, deals or
examples (the lockstep runs, the round trips of every state, the property
tests that play whole matches). Coverage's tracer makes such a test about
four times as slow, and the unit tests already reach the lines it runs, so a
coverage run (``pytest --cov``, as in ``.ci/run``) takes the tracer off for
the duration of its call: the test still runs, and fails as before; its
lines just are not counted. Without coverage nothing changes.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator

import pytest

# Each module that needs an extra, with the packages it imports.
_NEEDS = {
    "src/american_sniff/envs/pettingzoo.py": ("pettingzoo", "gymnasium", "numpy"),
    "src/american_sniff/envs/gymnasium.py": ("gymnasium", "numpy"),
    "src/american_sniff/envs/openspiel.py": ("pyspiel", "numpy"),
    "src/american_sniff/envs/batched.py": ("numpy",),
    "src/american_sniff/envs/vector.py": ("gymnasium", "numpy"),
    "src/american_sniff/envs/sb3.py": ("gymnasium", "numpy"),
    "src/american_sniff/web/app.py": ("starlette",),
    "src/american_sniff/web/cache.py": ("starlette",),
    "src/american_sniff/web/connection.py": ("starlette",),
    "src/american_sniff/web/driver.py": ("starlette",),
    "src/american_sniff/web/flow.py": ("starlette",),
    "src/american_sniff/web/listener.py": ("starlette",),
    "src/american_sniff/web/rooms.py": ("starlette",),
    "src/american_sniff/web/routes.py": ("starlette",),
    "src/american_sniff/web/transport.py": ("starlette",),
    "src/american_sniff/web/serving.py": ("uvicorn", "h11"),
    "src/american_sniff/web/handoff.py": ("uvicorn",),
    # The batched engine's observations (docs/ai.md skips its example of them).
    "src/american_sniff/batch/observe.py": ("numpy",),
    "src/american_sniff/batch/_npbatch.py": ("numpy",),
    "src/american_sniff/batch/recall.py": ("numpy",),
    "src/american_sniff/envs/features.py": ("numpy",),
    # The browser tests' DevTools driver (the web-test extra).
    "tests/cdp.py": ("websocket",),
}

collect_ignore = [
    path
    for path, modules in _NEEDS.items()
    if any(importlib.util.find_spec(module) is None for module in modules)
]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """Run a ``sweep`` test with this thread's tracer, if any, taken off (see the docstring above).

    The tracer is coverage's where a coverage run is measuring; it is put
    back as it was. (Pausing the measurement through coverage's own API
    leaves the thread of a pytest-xdist worker traced.)
    """
    tracer = sys.gettrace() if item.get_closest_marker("sweep") else None
    if tracer is None:
        yield
        return
    sys.settrace(None)
    try:
        yield
    finally:
        sys.settrace(tracer)
