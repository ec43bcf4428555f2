"""How the drawings' caches stay bounded: the older half of a full cache is forgotten.

A server draws the tables of many matches in turn, and each match's next
table is drawn from what its last one left in these caches (its shape, its
tiles' text). Emptied whole when full, a cache would lose every match's last
entry at once, each time, however recent; forgetting the older half keeps
the entries made since the last time, the ones the matches still need.
"""

from __future__ import annotations

import itertools
from typing import Any

__all__ = ["forget_older_half"]


def forget_older_half(cache: dict[Any, Any]) -> None:
    """Forget the older half of ``cache``'s entries: the first made, as a dict keeps their order.

    Called when the cache is full, it takes time in proportion to the
    entries it forgets, so a cache costs about the same per entry made as
    one emptied whole.

    >>> cache = {n: str(n) for n in range(6)}
    >>> forget_older_half(cache)
    >>> cache
    {3: '3', 4: '4', 5: '5'}
    """
    for key in list(itertools.islice(cache, len(cache) // 2)):
        del cache[key]
