"""pytest's configuration for the whole repository (the tests have their own in tests/).

The doctests of src/ run under pytest (``--doctest-modules``). The environments
of ``american_sniff.envs`` need optional extras; where an extra is not
installed, their modules are left out of the collection instead of failing it.
"""

from __future__ import annotations

import importlib.util

# The module of american_sniff.envs that each extra's package is needed by.
_NEEDS = {
    "src/american_sniff/envs/pettingzoo.py": ("pettingzoo", "gymnasium", "numpy"),
    "src/american_sniff/envs/gymnasium.py": ("gymnasium", "numpy"),
    "src/american_sniff/envs/openspiel.py": ("pyspiel", "numpy"),
}

collect_ignore = [
    path
    for path, modules in _NEEDS.items()
    if any(importlib.util.find_spec(module) is None for module in modules)
]
