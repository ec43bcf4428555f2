"""Whether this build of the package is the compiled one.

``pip install .`` compiles the modules listed in pyproject.toml (this one among
them) with mypyc; an editable or a pure install runs them as Python. A compiled
module's ``__file__`` is its extension module, not its ``.py`` source. The few
places where the two builds take different routes to the same result (see
:mod:`american_sniff._fast`) read :data:`COMPILED` from here.
"""

from __future__ import annotations

from typing import Final

__all__ = ["COMPILED"]

#: True when this module, and so every module of the compile list, runs compiled.
COMPILED: Final = not __file__.endswith(".py")
