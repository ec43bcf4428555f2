"""The rules of American Sniff, as named, pure functions of plain numbers.

Every decision the game makes lives here, and the engine
(:mod:`american_sniff.engine`) calls these functions in the order the rules
text gives them (see ``docs/rules.md``):

1. a round is dealt (:func:`hand_size`) and opened: the player who went out
   in the round before opens it, otherwise a lot decides (:func:`lot_is_due`,
   :func:`opener`);
2. on each turn the player must place a tile if they can, else draw while the
   stock lasts, else pass (:func:`required_action`);
3. a placement scores the end sum when it is a positive multiple of five
   (:func:`~american_sniff.placement_points`) for the side of the seat (:func:`side_of`);
4. then, in this order: a side that reaches its target wins at once
   (:func:`has_won`); a player who placed their last tile ends the round; a
   round where the stock is empty and nobody can place ends blocked
   (:func:`is_blocked`); otherwise the turn passes on (:func:`next_seat`);
5. a round that ends is settled: each hand is rounded to the nearest multiple
   of five and taken from its side, with no floor (:func:`~american_sniff.round_hand`,
   :func:`settle`).

What a free side of the table adds to the end sum is geometry, and lives with
the table in :mod:`american_sniff.layout`.

Nothing else writes these numbers: the batch kernels and the encoders call
these functions or tabulate them, and the C kernel reads them from a header
that ``tools/batch_header.py`` writes from this module (see
``docs/architecture.md``, "One written source of the rules").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Final, Literal

__all__ = [
    "HAND_SIZE",
    "MAX_PIPS",
    "PLAYER_COUNTS",
    "RULES_VERSION",
    "SCORE_UNIT",
    "TARGET",
    "TILE_COUNT",
    "Required",
    "hand_size",
    "has_partners",
    "has_won",
    "is_blocked",
    "is_score",
    "lot_is_due",
    "next_seat",
    "opener",
    "partner_of",
    "placement_points",
    "required_action",
    "round_hand",
    "settle",
    "side_count",
    "side_of",
    "stock_size",
    "target",
]

#: The version of the rules this library implements, kept apart from the
#: package version: it changes only when the game the engine plays changes.
RULES_VERSION: Final = "1"

#: The supported numbers of players.
PLAYER_COUNTS: Final = (2, 3, 4)

#: The highest number of pips on one half of a tile: the set is double-six.
MAX_PIPS: Final = 6

#: How many tiles the set holds: one for each pair of numbers from 0 to
#: :data:`MAX_PIPS`, doubles included (28).
TILE_COUNT: Final = (MAX_PIPS + 1) * (MAX_PIPS + 2) // 2

#: The scoring unit: a placement scores only a multiple of it, a hand is
#: rounded to one, and so every score is one (five).
SCORE_UNIT: Final = 5

#: What a player must do on their turn: ``"place"``, ``"draw"`` or ``"pass"``.
Required = Literal["place", "draw", "pass"]


def hand_size(players: int) -> int:
    """Tiles dealt to each player: 7 with 2 players, 6 with 3, 5 with 4 (as :data:`HAND_SIZE`)."""
    return 7 if players == 2 else 6 if players == 3 else 5


def target(players: int) -> int:
    """Raw points a side needs to win: 250 with 2 players, 200 with 3 or 4 (as :data:`TARGET`)."""
    return 250 if players == 2 else 200


def fewest_actions(players: int) -> int:
    """The fewest actions any round holds: a hand's worth, 7, 6 or 5.

    A round ends with a domino, which takes the finisher's placement of every
    tile dealt to it, or blocked, which needs the stock drawn out first (14,
    10 or 8 draws, more than a hand). The state reader and the view reader
    both count the rounds before the previous one at this floor (a state's
    ``actions_before``, a view's ``seq``), so a state that loads gives views
    that read.
    """
    return hand_size(players)


#: :func:`hand_size` for each number of players, as a read-only table built
#: from it (the numbers are written once, in the function).
HAND_SIZE: Mapping[int, int] = MappingProxyType({n: hand_size(n) for n in PLAYER_COUNTS})

#: :func:`target` for each number of players, as a read-only table built from
#: it (the numbers are written once, in the function).
TARGET: Mapping[int, int] = MappingProxyType({n: target(n) for n in PLAYER_COUNTS})


def stock_size(players: int) -> int:
    """The tiles left to draw after the deal: 14 with 2 players, 10 with 3, 8 with 4."""
    return TILE_COUNT - players * hand_size(players)


def has_partners(players: int) -> bool:
    """Whether the seats play in partnerships: with 4 players, two sides of two."""
    return players == 4


def partner_of(players: int, seat: int) -> int | None:
    """The seat that plays on ``seat``'s side, or None where every seat is its own side.

    >>> partner_of(4, 1), partner_of(3, 1)
    (3, None)
    """
    return (seat + 2) % players if has_partners(players) else None


def side_count(players: int) -> int:
    """How many scoring sides there are: two partnerships with 4 players, else one per seat."""
    return 2 if has_partners(players) else players


def side_of(players: int, seat: int) -> int:
    """The scoring side of ``seat``.

    With 4 players seats 0 and 2 are side 0 and seats 1 and 3 are side 1;
    otherwise every seat is its own side.
    """
    return seat % 2 if has_partners(players) else seat


def next_seat(players: int, seat: int) -> int:
    """The seat that plays after ``seat``: play goes round the table in seat order."""
    return (seat + 1) % players


def lot_is_due(finisher: int | None) -> bool:
    """Whether a round's opener is drawn by lot: in the first round, and after a block.

    ``finisher`` is the seat that went out in the round before, or None when
    there was no round before or it ended blocked.
    """
    return finisher is None


def opener(finisher: int | None, lot: int | None) -> int:
    """The seat that opens a round: the player who went out, else the outcome of the lot.

    :raises ValueError: if neither is given (a lot is due but was not drawn).
    """
    if finisher is not None:
        return finisher
    if lot is None:
        raise ValueError("no player went out, so the opener is drawn by lot, and none was given")
    return lot


def required_action(table_empty: bool, can_place: bool, stock_left: int) -> Required:
    """What the player to move must do.

    The player who opens a round (on the empty table) places any tile. After
    that a player who holds a tile that fits an open point must place; one who
    cannot must draw while the stock has tiles, and pass once it is empty. (A
    tile just drawn that fits must be placed at once: ``can_place`` is then
    whether *that* tile fits.)

    >>> required_action(False, False, 3), required_action(False, False, 0)
    ('draw', 'pass')
    """
    if table_empty or can_place:
        return "place"
    return "draw" if stock_left > 0 else "pass"


def placement_points(end_sum: int) -> int:
    """What a placement scores: the end sum if it is a positive multiple of five, else 0.

    >>> placement_points(15), placement_points(16), placement_points(0)
    (15, 0, 0)
    """
    return end_sum if end_sum > 0 and end_sum % SCORE_UNIT == 0 else 0


def is_score(points: int) -> bool:
    """Whether ``points`` is a number the game can score: a multiple of :data:`SCORE_UNIT`.

    Every score is one, since a placement scores a multiple and a hand is
    rounded to one; a score below zero is one too.

    >>> is_score(-15), is_score(12)
    (True, False)
    """
    return points % SCORE_UNIT == 0


def has_won(players: int, score: int) -> bool:
    """Whether a side with ``score`` raw points has reached the target, and so won at once."""
    return score >= target(players)


def is_blocked(
    stock_left: int, anyone_can_place: bool | Callable[..., bool], *arguments: object
) -> bool:
    """Whether a round is blocked: the stock is empty and no player holds a tile that fits.

    ``anyone_can_place`` is whether some player holds a tile that fits, or a
    function that works it out, called as ``anyone_can_place(*arguments)``
    only when the stock is empty: the only case in which it matters, so that
    the hands are looked at only then.

    >>> is_blocked(0, False), is_blocked(3, False), is_blocked(0, lambda: True)
    (True, False, False)
    """
    if stock_left != 0:
        return False
    if callable(anyone_can_place):
        return not anyone_can_place(*arguments)
    return not anyone_can_place


def round_hand(pips: object) -> int:
    """A hand's pips rounded to the nearest multiple of five (remainders 1-2 down, 3-4 up).

    >>> [round_hand(n) for n in (1, 2, 3, 4, 5, 7, 8)]
    [0, 0, 5, 5, 5, 5, 10]

    :raises ValueError: if ``pips`` is not a whole number of pips (an int, 0 or more).
    """
    if type(pips) is not int or pips < 0:
        raise ValueError(f"a hand holds a whole number of pips, 0 or more, got {pips!r}")
    return (pips + SCORE_UNIT // 2) // SCORE_UNIT * SCORE_UNIT


def settle(
    players: int, scores: Sequence[int], hand_pips: Sequence[int]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Settle a finished round: ``(deductions, scores after settlement)``.

    Each seat's hand is rounded on its own (:func:`~american_sniff.round_hand`) and taken from
    its side's score, so partners are rounded separately; the player who went
    out holds nothing and so loses nothing, and gains nothing either. Scores
    may fall below zero.

    >>> settle(4, (40, 25), (7, 0, 13, 2))
    ((5, 0, 15, 0), (20, 25))
    """
    deductions = tuple([round_hand(pips) for pips in hand_pips])
    settled = list(scores)
    for seat in range(players):
        settled[side_of(players, seat)] -= deductions[seat]
    return deductions, tuple(settled)
