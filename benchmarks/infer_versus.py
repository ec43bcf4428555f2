"""``versus.py`` with the kinds that measure the search bot's inference (``SearchBot.infer``).

It adds to the kinds of :mod:`versus` (through its table of variants,
``search_variants.VARIANTS``) the search bot with another pool of deals per
playout: ``searchp1`` to ``searchp8`` (``SearchBot.infer_pool`` 1 to 8; the
library's is 3). With ``pool`` 1 the deals are weighed but not resampled
from a larger pool. Every other kind and option is ``versus.py``'s own, and
so is the command line:

    python benchmarks/infer_versus.py search:playouts=8,infer=0.18 dmc:deals=6 --players 2
    python benchmarks/infer_versus.py searchp2:playouts=8,infer=0.18 search:playouts=8
"""

from __future__ import annotations

import os
import sys
from typing import ClassVar

import attrs

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from american_sniff import SearchBot
from search_variants import VARIANTS
from versus import main

__all__ = ["POOLS"]


def _pooled(size: int) -> type[SearchBot]:
    """The search bot with ``infer_pool`` = ``size``."""

    @attrs.define(eq=False)
    class PooledSearch(SearchBot):
        infer_pool: ClassVar[int] = size

    PooledSearch.__name__ = PooledSearch.__qualname__ = f"PooledSearch{size}"
    PooledSearch.__doc__ = f"The search bot sampling {size} deals for each playout's one."
    return PooledSearch


#: The kinds added, by name.
POOLS: dict[str, type[SearchBot]] = {f"searchp{size}": _pooled(size) for size in range(1, 9)}
VARIANTS.update(POOLS)

if __name__ == "__main__":
    main()
