"""Integer actions: every move of the game as one number from a fixed range.

Reinforcement-learning frameworks want a fixed, finite action space and a mask
of the legal actions. This module numbers every move any state can offer, from
0 to ``NUM_ACTIONS - 1`` (450 actions), the same way for 2, 3 and 4 players:

=============  ===========================================================
Actions        Move
=============  ===========================================================
0 .. 27        ``Place(tile)``, the opening tile, with ``tile.index`` = the
               action (tiles in ``(low, high)`` order: ``[0|0]`` is 0,
               ``[0|1]`` is 1, ..., ``[6|6]`` is 27)
28 .. 447      ``Place(tile, point)``: ``28 + 6 * p + j`` (see below)
448            ``Draw()``
449            ``Pass()``
=============  ===========================================================

**Points.** ``p`` (0 to 69) numbers the 70 connection points that can ever
exist: every side of every tile, tiles in ``(low, high)`` order and, within a
tile, ``low`` then ``high`` for a non-double and ``line_a``, ``line_b``,
``branch_a``, ``branch_b`` for a double. So ``[0|0] line_a`` is 0, ``[0|0]
branch_b`` is 3, ``[0|1] low`` is 4, ``[0|1] high`` is 5, and ``[6|6]
branch_b`` is 69. (This is the order of :attr:`~american_sniff.Point.order`,
made dense.)

**Tiles on a point.** A point of value ``v`` belonging to the tile ``[v|u]``
takes the six other tiles showing ``v``: ``[v|w]`` for each ``w`` from 0 to 6
except ``u`` (the point's own tile). ``j`` is ``w`` if ``w < u``, else
``w - 1``. For example, ``[1|4]`` on ``[4|4] line_b``: the 22 tiles before
``[4|4]`` (four doubles, eighteen non-doubles) have 4 * 4 + 18 * 2 = 52 points,
so ``[4|4] line_a`` is 52 and ``line_b`` is ``p`` = 53; ``u`` is 4 and ``w``
is 1, so ``j`` is 1 and the action is 28 + 6 * 53 + 1 = 347.

Every action of the range is the move of *some* state; a given state allows
only the actions of :func:`legal_actions`. Actions are listed in increasing
order, so that equal states always give the same list and the same mask.

>>> from american_sniff import new_match
>>> state = new_match(2, seed=1)
>>> actions = legal_actions(state)
>>> actions
(1, 4, 16, 17, 21, 22, 24)
>>> move_of(state, 4), action_of(state, move_of(state, 4))
(Place(Tile(0, 4)), 4)
"""

from __future__ import annotations

from operator import itemgetter
from typing import NoReturn

from .engine import apply, legal_moves
from .errors import IllegalMove
from .moves import Draw, Move, Pass, Place
from .points import Point, Side
from .rules import MAX_PIPS
from .state import MatchState
from .tiles import ALL_TILES, Tile

__all__ = [
    "ACTION_MOVES",
    "DRAW_ACTION",
    "NUM_ACTIONS",
    "NUM_POINTS",
    "OPENING_ACTIONS",
    "PASS_ACTION",
    "PLACES_PER_POINT",
    "POINTS",
    "action_mask",
    "action_of",
    "legal_action_moves",
    "legal_actions",
    "move_of",
    "placement_action",
]

_SIDES_OF_DOUBLE = (Side.LINE_A, Side.LINE_B, Side.BRANCH_A, Side.BRANCH_B)
_SIDES_OF_END = (Side.LOW, Side.HIGH)

#: Every connection point that can exist, in action order (``p`` above).
POINTS: tuple[Point, ...] = tuple(
    Point(tile, side)
    for tile in ALL_TILES
    for side in (_SIDES_OF_DOUBLE if tile.is_double else _SIDES_OF_END)
)

#: How many connection points can exist (70).
NUM_POINTS = len(POINTS)

#: How many opening actions there are (one per tile: 28); they come first.
OPENING_ACTIONS = len(ALL_TILES)

#: How many placements each point has: one for each tile that shows its
#: number, but for the tile it belongs to (6, the top number).
PLACES_PER_POINT = MAX_PIPS

#: The action that draws a tile.
DRAW_ACTION = OPENING_ACTIONS + PLACES_PER_POINT * NUM_POINTS

#: The action that passes.
PASS_ACTION = DRAW_ACTION + 1

#: The size of the action space: actions are ``0`` to ``NUM_ACTIONS - 1``.
NUM_ACTIONS = PASS_ACTION + 1


def _point_tiles(point: Point) -> tuple[Tile, ...]:
    """The six tiles that can be placed on ``point``, in ``j`` order."""
    value = point.value
    own = point.tile.high if point.tile.low == value else point.tile.low
    return tuple(Tile(value, w) for w in range(MAX_PIPS + 1) if w != own)


def _build() -> tuple[tuple[Move, ...], dict[tuple[int, int], int]]:
    moves: list[Move] = [Place(tile) for tile in ALL_TILES]
    index: dict[tuple[int, int], int] = {}
    for point in POINTS:
        for tile in _point_tiles(point):
            index[tile.index, point.order] = len(moves)
            moves.append(Place(ALL_TILES[tile.index], point))
    moves.extend((Draw(), Pass()))
    return tuple(moves), index


_MOVES, _PLACEMENT = _build()

#: The move of each action, by action: ``ACTION_MOVES[a]`` is the move ``a`` stands for.
ACTION_MOVES: tuple[Move, ...] = _MOVES


def placement_action(tile: Tile, at: Point | None) -> int:
    """The action that places ``tile`` on ``at`` (None: the opening), legal or not.

    >>> from american_sniff import Side
    >>> placement_action(Tile(1, 4), Point(Tile(4, 4), Side.LINE_B))
    347

    :raises ValueError: if ``tile`` is not a tile, ``at`` not a point (or
        None), or the tile shows no half of the point's value or is the
        point's own tile.
    """
    if not isinstance(tile, Tile):
        raise ValueError(f"not a tile: {tile!r}")
    if at is None:
        return tile.index
    if not isinstance(at, Point):
        raise ValueError(f"not a connection point: {at!r}")
    action = _PLACEMENT.get((tile.index, at.order))
    if action is None:
        raise ValueError(f"{tile} cannot be placed on {at}: no action stands for it")
    return action


def _action(move: Move) -> int:
    if isinstance(move, Place):
        return placement_action(move.tile, move.at)
    if isinstance(move, Draw):
        return DRAW_ACTION
    if isinstance(move, Pass):
        return PASS_ACTION
    raise ValueError(f"not a move: {move!r}")


# The action of each move object seen, by identity: the engine hands out the
# same move objects again and again, so the action is worked out once per
# object. The entry keeps the move, so its id cannot be reused while the entry
# lives; bounded, in case some build made new move objects each time.
_SEEN: dict[int, tuple[Move, int]] = {}
_SEEN_LIMIT = 1 << 12


def _action_of_object(move: Move) -> int:
    """``_action(move)``, remembered by the move object's identity."""
    entry = _SEEN.get(id(move))
    if entry is not None and entry[0] is move:
        return entry[1]
    action = _action(move)
    if len(_SEEN) >= _SEEN_LIMIT:
        _SEEN.clear()
    _SEEN[id(move)] = (move, action)
    return action


def _check_state(state: object, function: str) -> MatchState:
    if type(state) is not MatchState:
        raise TypeError(f"{function}() needs a MatchState, got {state!r}")
    return state


def legal_actions(state: MatchState) -> tuple[int, ...]:
    """The legal actions of the player to move, in increasing order.

    Empty once the match is over.

    :raises TypeError: if ``state`` is not a :class:`~american_sniff.MatchState`.
    """
    _check_state(state, "legal_actions")
    return tuple(sorted(map(_action_of_object, legal_moves(state))))


def legal_action_moves(state: MatchState) -> tuple[tuple[int, Move], ...]:
    """Each legal action with its move, in increasing action order: ``(action, move)`` pairs.

    The actions are those of :func:`legal_actions` and each move is
    ``move_of(state, action)``, the very object
    :func:`~american_sniff.legal_moves` lists (so that applying it needs no
    check). An environment that keeps them beside the state turns an action
    into its move with one look-up.

    >>> from american_sniff import new_match
    >>> legal_action_moves(new_match(2, seed=1))[:2]
    ((1, Place(Tile(0, 1))), (4, Place(Tile(0, 4))))

    :raises TypeError: if ``state`` is not a :class:`~american_sniff.MatchState`.
    """
    _check_state(state, "legal_action_moves")
    seen = _SEEN
    pairs = [
        (
            e[1]
            if (e := seen.get(id(move))) is not None and e[0] is move
            else _action_of_object(move),
            move,
        )
        for move in legal_moves(state)
    ]
    if len(pairs) > 1:
        pairs.sort(key=itemgetter(0))
    return tuple(pairs)


def action_mask(state: MatchState) -> tuple[int, ...]:
    """``NUM_ACTIONS`` flags, 1 for each legal action of the player to move, else 0.

    :raises TypeError: if ``state`` is not a :class:`~american_sniff.MatchState`.
    """
    _check_state(state, "action_mask")
    mask = [0] * NUM_ACTIONS
    for move in legal_moves(state):
        mask[_action_of_object(move)] = 1
    return tuple(mask)


def action_of(state: MatchState, move: Move) -> int:
    """The action of ``move``, a legal move in ``state``; the inverse of :func:`move_of`.

    :raises TypeError: if ``state`` is not a :class:`~american_sniff.MatchState`.
    :raises ValueError: if ``move`` is not a move.
    :raises IllegalMove: if ``move`` is not legal in ``state``.
    """
    _check_state(state, "action_of")
    if not isinstance(move, Place | Draw | Pass):
        raise ValueError(f"not a move: {move!r}")
    if move not in legal_moves(state):
        _refuse(state, move)
    return _action(move)


def move_of(state: MatchState, action: int) -> Move:
    """The legal move that ``action`` stands for in ``state``; the inverse of :func:`action_of`.

    The move returned is the very object :func:`~american_sniff.legal_moves` lists.

    :raises TypeError: if ``state`` is not a :class:`~american_sniff.MatchState`.
    :raises ValueError: if ``action`` is not an integer from 0 to ``NUM_ACTIONS - 1``.
    :raises IllegalMove: if the action is not legal in ``state``.
    """
    _check_state(state, "move_of")
    if type(action) is not int or not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"an action is an integer from 0 to {NUM_ACTIONS - 1}, got {action!r}")
    seen = _SEEN
    for move in legal_moves(state):
        entry = seen.get(id(move))
        found = entry[1] if entry is not None and entry[0] is move else _action_of_object(move)
        if found == action:
            return move
    wanted = _MOVES[action]
    try:
        _refuse(state, wanted)
    except IllegalMove as error:
        raise IllegalMove(f"action {action} ({wanted}) is not legal: {error}", error.code) from None


def _refuse(state: MatchState, move: Move) -> NoReturn:
    """Raise the engine's own :class:`IllegalMove` for ``move``, which is not legal."""
    apply(state, move)
    raise AssertionError(f"{move} is not among the legal moves, yet apply() took it")
