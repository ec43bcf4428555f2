"""The numbers of the rules, and the small rule functions built on them."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = [
    "HAND_SIZE",
    "PLAYER_COUNTS",
    "RULES_VERSION",
    "TARGET",
    "placement_points",
    "round_hand",
    "side_count",
    "side_of",
]

#: The version of the rules this library implements, kept apart from the
#: package version: it changes only when the game the engine plays changes.
RULES_VERSION = "1"

#: The supported numbers of players.
PLAYER_COUNTS = (2, 3, 4)

#: Tiles dealt to each player, by number of players (read-only).
HAND_SIZE: Mapping[int, int] = MappingProxyType({2: 7, 3: 6, 4: 5})

#: Raw points a side needs to win, by number of players (read-only).
TARGET: Mapping[int, int] = MappingProxyType({2: 250, 3: 200, 4: 200})


def side_count(players: int) -> int:
    """How many scoring sides there are: two partnerships with 4 players, else one per seat."""
    return 2 if players == 4 else players


def side_of(players: int, seat: int) -> int:
    """The scoring side of ``seat``.

    With 4 players seats 0 and 2 are side 0 and seats 1 and 3 are side 1;
    otherwise every seat is its own side.
    """
    return seat % 2 if players == 4 else seat


def placement_points(end_sum: int) -> int:
    """What a placement scores: the end sum if it is a positive multiple of five, else 0.

    >>> placement_points(15), placement_points(16), placement_points(0)
    (15, 0, 0)
    """
    return end_sum if end_sum > 0 and end_sum % 5 == 0 else 0


def round_hand(pips: int) -> int:
    """A hand's pips rounded to the nearest multiple of five (remainders 1-2 down, 3-4 up).

    >>> [round_hand(n) for n in (1, 2, 3, 4, 5, 7, 8)]
    [0, 0, 5, 5, 5, 5, 10]

    :raises ValueError: if ``pips`` is not a whole number of pips (an int, 0 or more).
    """
    if type(pips) is not int or pips < 0:
        raise ValueError(f"a hand holds a whole number of pips, 0 or more, got {pips!r}")
    return (pips + 2) // 5 * 5
