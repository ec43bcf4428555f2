"""Features of each legal action, worked out from a batch of observations: what a move does now.

Needs numpy (the ``rl`` extra). A learning policy that sees only the
observation vector has to discover the scoring rule before it can play well;
one that also sees, for each legal action, what the action scores and what it
leaves on the table learns far faster. :func:`action_features` computes such
features from the *scaled* observations (:func:`american_sniff.observation.scaled`,
``scaled=True`` in the environments) and the action masks alone, with the
rules of docs/rules.md, so they leak nothing a seat does not see and work
wherever a batched policy is asked (:mod:`american_sniff.envs.batched`,
:func:`american_sniff.evaluation.evaluate`).

It returns the legal (row, action) pairs, in the order of
``numpy.nonzero(masks)``, and an array with one row of :data:`FEATURE_NAMES`
a pair:

==================  ============================================================
Feature             Meaning
==================  ============================================================
``points``          the points the placement scores now, / 35
``end_sum``         the table's end sum after the placement, / 36
``pips``            the placed tile's pips, / 12 (what settlement would cost)
``double``          1 if the tile is a double
``opening``         1 for the round's opening tile
``draw``            1 for a draw
``pass``            1 for a pass
``reply``           the most the next seat can score in reply, / 35: the best
                    placement on the table left, of a tile that seat may hold
                    (not the viewer's, not on the table, and showing no number
                    it is known to lack)
``replies``         how many of those replies score, / 10
``follow``          the most the viewer can score next with a tile it keeps,
                    on the table left (if the table stays so), / 35
``open_value``      the number the placed tile leaves open, / 6
``open_unseen``     how many unseen tiles show that number, / 7
==================  ============================================================

Draws and passes get 0 in every other feature. For example, ``[4|6]``
opening alone on the table scores 10:

>>> import numpy as np
>>> from american_sniff import new_match, view_for
>>> from american_sniff.actions import action_mask
>>> from american_sniff.observation import encode, scaled
>>> state = new_match(2, seed=1)
>>> observations = np.array([scaled(encode(view_for(state, state.turn)))], np.float32)
>>> masks = np.array([action_mask(state)])
>>> rows, actions, features = action_features(observations, masks)
>>> actions.tolist()
[1, 4, 16, 17, 21, 22, 24]
>>> [round(float(x) * 35) for x in features[:, FEATURE_NAMES.index("points")]]
[0, 0, 0, 0, 0, 0, 10]

:func:`points_now` gives the points alone, and :func:`greedy_policy` is the
greedy bot's choice (the most points now, then the heaviest tile, then the
first in ``legal_moves`` order) as a batched policy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..actions import ACTION_MOVES, DRAW_ACTION, NUM_ACTIONS, PASS_ACTION, POINTS
from ..moves import Place
from ..observation import OBSERVATION_FIELDS, OBSERVATION_SIZE, SCALE_DIVISORS
from ..points import Side
from ..tiles import ALL_TILES

__all__ = ["FEATURE_NAMES", "action_features", "greedy_policy", "points_now"]

#: The features of an action, in the order of :func:`action_features`'s columns.
FEATURE_NAMES: tuple[str, ...] = (
    "points",
    "end_sum",
    "pips",
    "double",
    "opening",
    "draw",
    "pass",
    "reply",
    "replies",
    "follow",
    "open_value",
    "open_unseen",
)


def _slices() -> dict[str, slice]:
    out, start = {}, 0
    for name, size in OBSERVATION_FIELDS:
        out[name] = slice(start, start + size)
        start += size
    return out


_AT = _slices()
_COUNT_DIVISOR = SCALE_DIVISORS[_AT["counts"].start]
_SUM_DIVISOR = SCALE_DIVISORS[_AT["end_sum"].start]

_TILE_LOW = np.array([tile.low for tile in ALL_TILES], np.int64)
_TILE_HIGH = np.array([tile.high for tile in ALL_TILES], np.int64)
_TILE_PIPS = _TILE_LOW + _TILE_HIGH
_TILE_DOUBLE = _TILE_LOW == _TILE_HIGH
# The index of the tile [u|y], for every two numbers.
_TILE_OF = np.zeros((7, 7), np.int64)
for _tile in ALL_TILES:
    _TILE_OF[_tile.low, _tile.high] = _TILE_OF[_tile.high, _tile.low] = _tile.index

_POINT_VALUE = np.array([point.value for point in POINTS], np.int64)
_POINT_TILE = np.array([point.tile.index for point in POINTS], np.int64)
_POINT_LINE = np.array([point.side in (Side.LINE_A, Side.LINE_B) for point in POINTS])
# A double's other line side (line_a and line_b are next to each other), or itself.
_POINT_OTHER = np.array(
    [
        p + (1 if point.side is Side.LINE_A else -1 if point.side is Side.LINE_B else 0)
        for p, point in enumerate(POINTS)
    ],
    np.int64,
)


def _action_tables() -> tuple[Any, Any, Any, Any]:
    tile = np.full(NUM_ACTIONS, -1, np.int64)
    point = np.full(NUM_ACTIONS, -1, np.int64)
    add = np.zeros(NUM_ACTIONS, np.int64)  # what the placed tile adds to the end sum
    outward = np.full(NUM_ACTIONS, -1, np.int64)  # the number it leaves open
    for action, move in enumerate(ACTION_MOVES):
        if not isinstance(move, Place):
            continue
        t = move.tile
        tile[action] = t.index
        if move.at is None:
            add[action] = 2 * t.low if t.is_double else t.low + t.high
            continue
        p = POINTS.index(move.at)
        point[action] = p
        value = int(_POINT_VALUE[p])
        outward[action] = t.high if t.low == value else t.low
        add[action] = 2 * value if t.is_double else int(outward[action])
    return tile, point, add, outward


_ACTION_TILE, _ACTION_POINT, _ACTION_ADD, _ACTION_OUTWARD = _action_tables()
# The order of legal_moves: by tile, then by point (the opening tile before its points).
_ACTION_RANK = np.where(
    _ACTION_TILE >= 0, _ACTION_TILE * 71 + _ACTION_POINT + 1, NUM_ACTIONS * 71
).astype(np.int64)
_REPLY_ADD = np.array([[2 * u if y == u else y for y in range(7)] for u in range(7)], np.int64)


def _scores(total: Any) -> Any:
    return np.where((total > 0) & (total % 5 == 0), total, 0)


def _check(observations: Any, masks: Any) -> tuple[Any, Any]:
    observations = np.asarray(observations, np.float32)
    masks = np.asarray(masks, np.bool_)
    if observations.ndim != 2 or observations.shape[1] != OBSERVATION_SIZE:
        raise ValueError(f"observations must be (N, {OBSERVATION_SIZE}), got {observations.shape}")
    if masks.shape != (observations.shape[0], NUM_ACTIONS):
        raise ValueError(f"masks must be (N, {NUM_ACTIONS}), got {masks.shape}")
    return observations, masks


def _table(observations: Any) -> tuple[Any, Any, Any, Any]:
    """Each row's open flags, end sum, and what covering each point takes off the sum."""
    open_ = observations[:, _AT["open"]] > 0.5
    counts = np.rint(observations[:, _AT["counts"]] * _COUNT_DIVISOR).astype(np.int64)
    end_sum = np.rint(observations[:, _AT["end_sum"].start] * _SUM_DIVISOR).astype(np.int64)
    sniff = observations[:, _AT["sniff"]] > 0.5
    has_sniff = sniff.any(axis=1)
    sniff_tile = np.where(has_sniff, _TILE_OF[sniff.argmax(axis=1), sniff.argmax(axis=1)], -1)
    # A line side of the Sniff keeps its 2v on the table when covered (the
    # Sniff stays terminal, or its branches open with v each): it takes off 0.
    sniff_line = _POINT_LINE[None, :] & (_POINT_TILE[None, :] == sniff_tile[:, None])
    removed = np.where(sniff_line, 0, counts)
    return open_, end_sum, removed, (sniff_line, has_sniff)


def points_now(observations: Any, masks: Any) -> Any:
    """The points each legal action scores now, an (N, 450) integer array (0 where illegal).

    :raises ValueError: if the arrays are not (N, 375) and (N, 450).
    """
    observations, masks = _check(observations, masks)
    _, end_sum, removed, _ = _table(observations)
    rows, actions = np.nonzero(masks)
    out = np.zeros(masks.shape, np.int64)
    out[rows, actions] = _pair_points(rows, actions, end_sum, removed)[0]
    return out


def _pair_points(rows: Any, actions: Any, end_sum: Any, removed: Any) -> tuple[Any, Any]:
    """The points of each (row, action) pair, and the end sum after it."""
    point = _ACTION_POINT[actions]
    placing = _ACTION_TILE[actions] >= 0
    taken = np.where(point >= 0, removed[rows, np.maximum(point, 0)], 0)
    after = np.where(point >= 0, end_sum[rows] - taken + _ACTION_ADD[actions], _ACTION_ADD[actions])
    after = np.where(placing, after, end_sum[rows])
    return np.where(placing, _scores(after), 0), after


def greedy_policy(observations: Any, masks: Any) -> Any:
    """The greedy bot's choice in each row, as a batched policy on scaled observations.

    The most points now, then the most pips, then the first in
    ``legal_moves`` order; a row with no legal action gets 0.

    :raises ValueError: if the arrays are not (N, 375) and (N, 450).
    """
    observations, masks = _check(observations, masks)
    scored = points_now(observations, masks)
    key = scored * 100_000 + _TILE_PIPS[np.maximum(_ACTION_TILE, 0)] * 1_000 * (_ACTION_TILE >= 0)
    key = key * 100_000 - _ACTION_RANK[None, :]
    return np.where(masks, key, np.iinfo(np.int64).min).argmax(axis=1)


def action_features(observations: Any, masks: Any) -> tuple[Any, Any, Any]:
    """The legal (row, action) pairs and their features (see the module).

    Returns ``rows``, ``actions`` (as ``numpy.nonzero(masks)``) and an
    ``(len(rows), len(FEATURE_NAMES))`` ``float32`` array.

    :raises ValueError: if the arrays are not (N, 375) and (N, 450).
    """
    observations, masks = _check(observations, masks)
    table = _table(observations)
    rows, actions = np.nonzero(masks)
    count = len(rows)
    points, after = _pair_points(rows, actions, table[1], table[2])
    tile = _ACTION_TILE[actions]
    placing = tile >= 0
    safe_tile = np.maximum(tile, 0)
    placed = placing & (_ACTION_POINT[actions] >= 0)
    numbers, takes = _left(rows, actions, table)

    hand = (observations[:, _AT["hand"]] > 0.5) | (observations[:, _AT["drawn"]] > 0.5)
    played = (observations[:, _AT["played"]].reshape(-1, 4, 28) > 0.5).any(axis=1)
    voids = observations[:, _AT["voids"]].reshape(-1, 4, 7)[:, 1] > 0.5
    unseen = ~hand & ~played
    this = np.zeros((count, 28), np.bool_)
    this[np.arange(count)[placing], tile[placing]] = True
    theirs = (unseen & ~(voids[:, _TILE_LOW] | voids[:, _TILE_HIGH]))[rows] & ~this
    reply, replies = _best(after, numbers, takes, theirs)
    follow, _ = _best(after, numbers, takes, hand[rows] & ~this)

    outward = np.where(placed, _ACTION_OUTWARD[actions], 0)
    shows = (_TILE_LOW[None, :] == outward[:, None]) | (_TILE_HIGH[None, :] == outward[:, None])
    open_unseen = (unseen[rows] & ~this & shows).sum(axis=1)

    features = np.zeros((count, len(FEATURE_NAMES)), np.float32)
    features[:, 0] = points / 35.0
    features[:, 1] = np.where(placing, after, 0) / 36.0
    features[:, 2] = np.where(placing, _TILE_PIPS[safe_tile], 0) / 12.0
    features[:, 3] = _TILE_DOUBLE[safe_tile] & placing
    features[:, 4] = placing & ~placed
    features[:, 5] = actions == DRAW_ACTION
    features[:, 6] = actions == PASS_ACTION
    features[:, 7] = np.where(placing, reply, 0) / 35.0
    features[:, 8] = np.where(placing, replies, 0) / 10.0
    features[:, 9] = np.where(placing, follow, 0) / 35.0
    features[:, 10] = outward / 6.0
    features[:, 11] = np.where(placed, open_unseen, 0) / 7.0
    return rows, actions, features


def _left(rows: Any, actions: Any, table: tuple[Any, Any, Any, Any]) -> tuple[Any, Any]:
    """The table each pair's placement leaves, as up to 7 open points.

    Each point is its number (-1 for none) and what covering it takes off the end sum.
    """
    open_, _, removed, (sniff_line, has_sniff) = table
    count = len(rows)
    tile = _ACTION_TILE[actions]
    point = _ACTION_POINT[actions]
    placing = tile >= 0
    opening = placing & (point < 0)
    placed = placing & ~opening
    safe_tile, safe_point = np.maximum(tile, 0), np.maximum(point, 0)
    numbers = np.full((count, 7), -1, np.int64)
    takes = np.zeros((count, 7), np.int64)
    # The points open before, but the one covered.
    order = np.argsort(~open_, axis=1, kind="stable")[:, :4][rows]
    kept = np.take_along_axis(open_[rows], order, axis=1) & (order != point[:, None])
    numbers[:, :4] = np.where(kept & placed[:, None], _POINT_VALUE[order], -1)
    takes[:, :4] = np.take_along_axis(removed[rows], order, axis=1)
    low, high = _TILE_LOW[safe_tile], _TILE_HIGH[safe_tile]
    double = _TILE_DOUBLE[safe_tile]
    # The opening tile: both its ends (a double: the Sniff's two line sides, taking off 0).
    numbers[:, 4] = np.where(opening, low, -1)
    numbers[:, 5] = np.where(opening, high, -1)
    takes[:, 4] = np.where(double, 0, low)
    takes[:, 5] = np.where(double, 0, high)
    # A placement: the tile's outward end (a double that becomes the Sniff takes off 0) ...
    numbers[:, 4] = np.where(placed, _ACTION_OUTWARD[actions], numbers[:, 4])
    sniffs = double & ~has_sniff[rows]
    takes[:, 4] = np.where(placed, np.where(sniffs, 0, _ACTION_ADD[actions]), takes[:, 4])
    # ... and the Sniff's branches, v each, when it covers the Sniff's last free line side.
    branches = placed & sniff_line[rows, safe_point] & ~open_[rows, _POINT_OTHER[safe_point]]
    value = _POINT_VALUE[safe_point]
    numbers[:, 5] = np.where(placed, np.where(branches, value, -1), numbers[:, 5])
    takes[:, 5] = np.where(placed, np.where(branches, value, 0), takes[:, 5])
    numbers[:, 6] = np.where(branches, value, -1)
    takes[:, 6] = np.where(branches, value, 0)
    return numbers, takes


def _best(after: Any, numbers: Any, takes: Any, tiles: Any) -> tuple[Any, Any]:
    """The most that one placement of a tile of ``tiles`` scores on each pair's table left.

    ``tiles`` is a (pairs, 28) mask; also returns how many such placements score.
    """
    valid = numbers >= 0
    u = np.maximum(numbers, 0)
    totals = after[:, None, None] - takes[:, :, None] + _REPLY_ADD[u]
    pair = np.arange(len(after))[:, None, None]
    gained = _scores(totals) * (valid[:, :, None] & tiles[pair, _TILE_OF[u]])
    return gained.max(axis=(1, 2), initial=0), (gained > 0).sum(axis=(1, 2))
