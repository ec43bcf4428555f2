"""The search bot's playouts on the C batch kernel, where it is built.

:func:`~american_sniff.bots._kernel.score_deal` plays each move of a decision
out on one sampled deal with :func:`~american_sniff.apply`. Where the C
extension of :mod:`american_sniff.batch` is built, :func:`score_deal_fast`
does the same work in C (``_cbatch.playout_values``, in ``_cplay.c``): the
deal turned into the kernel's 48 words once, then every playout stepped on a
copy of them. The moves, the random policy's draws and the values are the
same, bit for bit (the tests play both side by side), so a bot chooses the
same move either way, only faster.

:data:`ENABLED` is False where the extension is not built (the pure build,
an editable install without ``python hatch_build.py --batch-in-place``);
tests and benchmarks may set :data:`USE_C` to False to force the Python
path.

The exact endgame (:func:`~american_sniff.bots.endgame.endgame_values`) runs
in C the same way when no deadline is given (:func:`endgame_values_fast`,
``_cbatch.endgame_values`` in ``_cendgame.c``): the same values and the same
count of nodes, bit for bit. :data:`USE_C` switches it too.
"""

from __future__ import annotations

import importlib
from array import array
from collections.abc import Callable, Sequence
from typing import Any, Final

from ..actions import DRAW_ACTION, PASS_ACTION, POINTS, placement_action
from ..moves import Draw, Move, Place
from ..rules import PLAYER_COUNTS, TILE_COUNT, side_count, stock_size
from ..state import MatchState

__all__ = [
    "ENABLED",
    "ENDGAME_ENABLED",
    "USE_C",
    "endgame_values_fast",
    "score_deal_fast",
    "use_c",
    "use_c_endgame",
    "world_words",
]


def _c_function(name: str) -> Callable[..., Any] | None:
    try:
        batch = importlib.import_module("american_sniff.batch")
    except ImportError:  # pragma: no cover - the package always has it
        return None
    if "c" not in batch.BACKENDS:
        return None
    function = getattr(batch.BACKENDS["c"], name, None)
    return function if callable(function) else None


_PLAYOUT: Final = _c_function("playout_values")
_ENDGAME: Final = _c_function("endgame_values")
#: Whether the C playouts are there to use.
ENABLED: Final = _PLAYOUT is not None
#: Whether the C exact endgame is there to use (an extension built before it has none).
ENDGAME_ENABLED: Final = _ENDGAME is not None
#: Whether the search bot uses them (when :data:`ENABLED`); tests set it False.
USE_C = True


def use_c() -> bool:
    """Whether the search bot plays its playouts in C now: :data:`ENABLED` and :data:`USE_C`.

    Read at each call, so that setting :data:`USE_C` takes effect at once.
    """
    return ENABLED and USE_C


def use_c_endgame() -> bool:
    """Whether the exact endgame searches in C now: :data:`ENDGAME_ENABLED` and :data:`USE_C`."""
    return ENDGAME_ENABLED and USE_C


_POINT_OF_KEY: Final = {point.order: index for index, point in enumerate(POINTS)}
_STOCK_SIZE: Final = {players: stock_size(players) for players in PLAYER_COUNTS}
# The last layout turned into words, and its words: every deal of a decision
# shares the view's layout, so it is read once a decision.
_last_layout: list[Any] = [None, None]


def _layout_words(layout: Any) -> tuple[int, int, int, int, int, int, int]:
    """End sum, Sniff, values, table tiles and the three open-point words of a layout."""
    if _last_layout[0] is layout:
        cached: tuple[int, int, int, int, int, int, int] = _last_layout[1]
        return cached
    bits = 0
    for key in layout.open_keys:
        bits |= 1 << _POINT_OF_KEY[key]
    sniff = layout.sniff
    words = (
        layout.end_sum,
        -1 if sniff is None else sniff.index,
        layout.value_mask,
        layout.tile_mask,
        _signed(bits & 0xFFFFFFFF),
        _signed(bits >> 32 & 0xFFFFFFFF),
        bits >> 64,
    )
    _last_layout[0] = layout
    _last_layout[1] = words
    return words


def _signed(word: int) -> int:
    return word - (1 << 32) if word >> 31 else word


def world_words(world: MatchState) -> array[int]:
    """The batch kernel's words of ``world``, a position within a round (no winner)."""
    info = world.info
    players = info.players
    words = array("i", bytes(4 * 48))
    end_sum, sniff, values, table, open0, open1, open2 = _layout_words(world.layout)
    stock_size = _STOCK_SIZE[players]
    deck = info.deck
    left = len(deck) - world.drawn_count
    start = stock_size - left
    drawn = world.drawn
    words[0] = players
    words[1] = info.round
    words[2] = world.turn
    words[3] = -1
    words[4] = -1 if drawn is None else drawn.index
    words[5] = start
    words[6] = stock_size
    words[7] = end_sum
    words[8] = sniff
    words[9] = values
    words[10] = table
    words[11] = open0
    words[12] = open1
    words[13] = open2
    for seat, hand in enumerate(world.hands):
        bits = 0
        for tile in hand:
            bits |= 1 << tile.index
        words[14 + seat] = bits
    for side, score in enumerate(world.scores[: side_count(players)]):
        words[18 + side] = score
    rng = info.rng
    words[22] = _signed(rng & 0xFFFFFFFF)
    words[23] = _signed(rng >> 32)
    for position in range(left):
        words[TILE_COUNT + start + position] = deck[world.drawn_count + position].index
    return words


def _action(move: Move) -> int:
    """The action layer's number of ``move``: a placement, a draw (448) or a pass (449)."""
    if isinstance(move, Place):
        return placement_action(move.tile, move.at)
    return DRAW_ACTION if isinstance(move, Draw) else PASS_ACTION


def endgame_values_fast(
    state: MatchState, seat: int, moves: Sequence[Move], nodes: int
) -> tuple[list[float], int] | None:
    """:func:`~american_sniff.bots.endgame.endgame_values` with no deadline, in C.

    The same values and nodes spent (or None), bit for bit. ``state`` must be
    a position that ``endgame_values`` accepts (two or four players, the
    stock empty, no winner).

    :raises ValueError: if ``seat`` is not a seat of ``state``, or a move is
        not legal in it (where the Python search raises
        :class:`~american_sniff.errors.IllegalMove`, a ValueError too).
    """
    assert _ENDGAME is not None
    found: tuple[list[float], int] | None = _ENDGAME(
        world_words(state), [_action(move) for move in moves], seat, nodes
    )
    return found


def score_deal_fast(  # noqa: PLR0913, PLR0917 - score_deal's arguments, in its order
    world: MatchState,
    moves: tuple[Move, ...],
    seat: int,
    random: bool,
    depth: int,
    settle: float,
    totals: list[float],
    rng: int,
) -> int:
    """:func:`~american_sniff.bots._kernel.score_deal` in C: the same values added, the same rng."""
    assert _PLAYOUT is not None
    values, rng = _PLAYOUT(
        world_words(world), [_action(move) for move in moves], seat, random, depth, settle, rng
    )
    for index in range(len(values)):
        totals[index] += values[index]
    return rng
