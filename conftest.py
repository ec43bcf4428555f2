"""Collection rules for the whole repository (tests/, the doctests of src/, docs/).

Some modules of the package need an optional extra. Where the extra is not
installed, their doctests are left out of the collection instead of failing
it; the step of ``.ci/run`` that installs each extra tests its modules.

* ``american_sniff.envs``: the ``rl`` and ``openspiel`` extras;
* ``american_sniff.batch.observe``: numpy (the ``rl`` extra);
* ``american_sniff.web.app`` and ``american_sniff.web.serving``: the ``web``
  extra (Starlette, uvicorn). The rest of
  ``american_sniff.web`` needs nothing beyond the base install;
* ``tests/cdp.py``, the browser tests' driver: the ``web-test`` extra.
"""

from __future__ import annotations

import importlib.util

# Each module that needs an extra, with the packages it imports.
_NEEDS = {
    "src/american_sniff/envs/pettingzoo.py": ("pettingzoo", "gymnasium", "numpy"),
    "src/american_sniff/envs/gymnasium.py": ("gymnasium", "numpy"),
    "src/american_sniff/envs/openspiel.py": ("pyspiel", "numpy"),
    "src/american_sniff/envs/batched.py": ("numpy",),
    "src/american_sniff/envs/vector.py": ("gymnasium", "numpy"),
    "src/american_sniff/web/app.py": ("starlette",),
    "src/american_sniff/web/serving.py": ("uvicorn", "h11"),
    # The batched engine's observations (docs/ai.md skips its example of them).
    "src/american_sniff/batch/observe.py": ("numpy",),
    "src/american_sniff/batch/_npbatch.py": ("numpy",),
    # The browser tests' DevTools driver (the web-test extra).
    "tests/cdp.py": ("websocket",),
}

collect_ignore = [
    path
    for path, modules in _NEEDS.items()
    if any(importlib.util.find_spec(module) is None for module in modules)
]
