"""Reading the other seats' choices: sampled deals weighed by how well they explain them.

The search bot samples the hidden tiles uniformly among the deals that fit
the voids (:class:`~american_sniff.bots.Determiniser`). But a seat's
placements tell more than its draws and passes: a seat that placed for 0
points when a placement worth 10 was open probably held no tile that scored.
With :attr:`SearchBot.infer <american_sniff.SearchBot.infer>` set, the bot
weighs each sampled deal by the chance of the other seats' choices under a
simple model of play, and draws its playout deals from a larger pool by
those weights. This module holds that work as plain functions, compiled in
the compiled build (it is on the compile list of ``pyproject.toml``).

**The model.** At each placement, a seat picks one of its legal placements
with a chance proportional to ``exp(beta * points)``, ``points`` being what
the placement scores. Only the current round is read, and for each other
seat only its placements since its last draw (before a draw its hand held
tiles no one has seen since) and not the one right after its own draw (that
is forced: the tile just drawn). At such a placement ``d`` the seat's hand
was the hand the deal gives it now plus the tiles it has placed since
(all on the table), so the chance of its choice under a deal is::

    exp(beta * p_d) / (K_d + sum of S_d(t) over the tiles t of the deal's hand)

where ``p_d`` is what the chosen placement scored, ``S_d(t)`` is the sum of
``exp(beta * points)`` over the placements tile ``t`` had on the table of
that moment, and ``K_d`` the same sum over the tiles placed since. A seat
whose hand (under the deal) had one placement only gets the chance 1, as it
should. :func:`choice_tables` computes ``p_d``, ``K_d`` and ``S_d`` once per
decision; a deal's weight (:func:`deal_weight`) is the product of those
chances over every such placement of every other seat, the partner's
included: a few dozen additions a deal.

**The sampling.** :func:`inferred_deals` samples ``pool`` deals, weighs
them, and picks ``playouts`` of them by systematic resampling (one uniform
offset, then evenly spaced points on the weights' running total), so that
the weights do not shrink the sample; a deal picked ``k`` times is played
out once and counts ``k`` times, so the picks cost no more playouts than
there are distinct deals among them. When no choice is
read (no other seat has placed by choice since its last draw), the pool is
not needed and ``playouts`` deals are sampled as without inference. With
a pool of one deal per playout (``SearchBot.infer_pool`` 1) there is no
resampling: every deal is played and its playouts count by its weight.
:func:`play_deals` plays the deals out (the search bot calls both, a pool of
8 playouts at a time when it prunes); :func:`inferred_totals` does both for
one pool.
"""

from __future__ import annotations

import math
from typing import Final

from ..layout import FREE_KEY, TILE_VALUES, Layout, end_sum_after, placed
from ..moves import Draw, Move, Place
from ..rng import next_u64
from ..rules import SCORE_UNIT, placement_points
from ..state import Action, MatchState
from ..tiles import ALL_TILES, Tile
from ..views import PlayerView
from ._kernel import deal_state, deal_tiles, score_deal

__all__ = [
    "ChoiceTables",
    "DealPool",
    "choice_tables",
    "deal_weight",
    "inferred_deals",
    "inferred_totals",
    "pick_counts",
    "play_deals",
    "view_tables",
]

_PLACE: Final = Place
_DRAW: Final = Draw
#: The number of tiles, and so of entries of each placement's row of ``S_d``.
_TILES: Final = len(ALL_TILES)
#: A placement scores a multiple of five from 0 to 35: ``points // 5`` indexes the model's weights.
_STEPS: Final = 8

#: What :func:`choice_tables` returns: ``(seats, chosen, known, worth)``, one
#: entry per placement read (``worth`` holding :data:`_TILES` entries per
#: placement, by tile index).
ChoiceTables = tuple[list[int], list[float], list[float], list[float]]


def _tile_worth(layout: Layout, index: int, weights: list[float]) -> float:
    """The sum of the model's weights over the placements tile ``index`` has on ``layout``."""
    tile = ALL_TILES[index]
    if not layout.tile_mask:  # the opening: any tile, at no point
        return weights[placement_points(end_sum_after(layout, tile, None)) // SCORE_UNIT]
    if not TILE_VALUES[index] & layout.value_mask:
        return 0.0
    row = FREE_KEY[index]
    total = 0.0
    for key in layout.open_keys:
        if row[key] >= 0:
            total += weights[placement_points(end_sum_after(layout, tile, key)) // SCORE_UNIT]
    return total


def choice_tables(
    players: int, me: int, history: tuple[Action, ...], hidden: list[int], beta: float
) -> ChoiceTables:
    """The model's tables for the view of seat ``me`` whose round so far is ``history``.

    ``hidden`` lists the indices of the tiles the view does not show (the
    tiles a deal may give the other seats). For each placement read (see the
    module notes), in the order of the seats and then of the history:
    ``seats`` the seat that placed, ``chosen`` ``exp(beta * p_d)`` of the
    placement it chose, ``known`` the sum ``K_d`` over the tiles it has
    placed since (the chosen one included), and ``worth[d * 28 + t]`` the sum
    ``S_d(t)`` of hidden tile ``t`` (0 for the tiles not hidden).
    """
    weights = [math.exp(beta * SCORE_UNIT * step) for step in range(_STEPS)]
    # For each seat: its placements read so far, as (table then, how many
    # tiles it had placed before, what the choice scored).
    records: list[list[tuple[Layout, int, int]]] = [[] for _ in range(players)]
    placed_by: list[list[int]] = [[] for _ in range(players)]
    table = Layout.empty()
    last_drew = -1  # the seat whose previous action was a draw, if any
    for action in history:
        seat = action.seat
        move = action.move
        if type(move) is _PLACE:
            place: Place = move
            index = place.tile.index
            at = place.at
            after = placed(table, ALL_TILES[index], None if at is None else at.order)
            if seat not in (me, last_drew):
                records[seat].append((table, len(placed_by[seat]), placement_points(after.end_sum)))
            placed_by[seat].append(index)
            table = after
            last_drew = -1
            continue
        if type(move) is _DRAW:
            records[seat] = []
            last_drew = seat
        else:
            last_drew = -1
    seats: list[int] = []
    chosen: list[float] = []
    known: list[float] = []
    worth: list[float] = []
    for seat in range(players):
        for then, before, points in records[seat]:
            seats.append(seat)
            chosen.append(weights[points // SCORE_UNIT])
            since = placed_by[seat]
            total = 0.0
            for position in range(before, len(since)):
                total += _tile_worth(then, since[position], weights)
            known.append(total)
            row = [0.0] * _TILES
            for index in hidden:
                row[index] = _tile_worth(then, index, weights)
            worth.extend(row)
    return seats, chosen, known, worth


def view_tables(view: PlayerView, history: tuple[Action, ...], beta: float) -> ChoiceTables:
    """:func:`choice_tables` for ``view``, whose round so far is ``history`` (``view.history``)."""
    seen = view.layout.tile_mask
    for tile in view.hand:
        seen |= 1 << tile.index
    hidden = [index for index in range(_TILES) if not seen >> index & 1]
    return choice_tables(view.players, view.seat, history, hidden, beta)


def deal_weight(world: MatchState, tables: ChoiceTables) -> float:
    """The model's chance of every placement read, if the hands are those of ``world``."""
    seats, chosen, known, worth = tables
    hands = world.hands
    weight = 1.0
    for record in range(len(seats)):
        total = known[record]
        base = record * _TILES
        for tile in hands[seats[record]]:
            total += worth[base + tile.index]
        weight *= chosen[record] / total
    return weight


def pick_counts(weights: list[float], count: int, rng: int) -> tuple[list[int], int]:
    """Systematic resampling: how many of ``count`` picks each of ``weights`` gets.

    One generator output sets the offset ``u`` in ``[0, W / count)``, ``W``
    the weights' total; pick ``k`` (from 0) goes to the first entry whose
    running total exceeds ``u + k * W / count``. An entry of weight ``w`` so
    gets ``w * count / W`` picks, rounded up or down. If every weight is 0,
    the picks are shared as evenly as they can be. Returns the counts and the
    generator state.
    """
    size = len(weights)
    counts = [0] * size
    total = 0.0
    for weight in weights:
        total += weight
    value, rng = next_u64(rng)
    if not total > 0.0:
        for pick in range(count):
            counts[pick * size // count] += 1
        return counts, rng
    step = total / count
    point = (value >> 11) * (1.0 / (1 << 53)) * step
    reached = 0.0
    pick = 0
    last = 0
    for entry in range(size):
        weight = weights[entry]
        if weight > 0.0:
            last = entry
        reached += weight
        while pick < count and point < reached:
            counts[entry] += 1
            pick += 1
            point += step
    counts[last] += count - pick  # (rounding can leave the last picks out)
    return counts, rng


class DealPool:
    """Deals of one view sampled in two steps: the hidden tiles' places, then the state.

    The determiniser's tables (see :class:`~american_sniff.bots.Determiniser`
    and :func:`~american_sniff.bots._kernel.sample_world`): :meth:`tiles`
    draws which tiles go to which location (each other seat's kinds of tile
    slot, then the stock), which is all a deal's weight needs; :meth:`state`
    then shuffles the stock and builds the match state, for the deals that
    are played only. Together they draw exactly as ``sample_world`` does.
    """

    def __init__(
        self,
        view: PlayerView,
        groups: tuple[tuple[tuple[int, ...], tuple[Tile, ...]], ...],
        choices: dict[tuple[int, tuple[int, ...]], tuple[list[tuple[int, ...]], list[int]]],
        capacities: tuple[int, ...],
        others: tuple[int, ...],
    ) -> None:
        self.view = view
        self.groups = groups
        self.choices = choices
        self.capacities = capacities
        self.others = others

    def tiles(self, rng: int) -> tuple[list[list[Tile]], int]:
        """The tiles of each location (the stock's last, unshuffled), and the generator state."""
        return deal_tiles(self.groups, self.choices, self.capacities, rng)

    def weight(self, placed_tiles: list[list[Tile]], tables: ChoiceTables) -> float:
        """:func:`deal_weight` of the deal whose locations hold ``placed_tiles``."""
        seats, chosen, known, worth = tables
        others = self.others
        weight = 1.0
        for record in range(len(seats)):
            total = known[record]
            base = record * _TILES
            seat = seats[record]
            for location in range(len(others)):
                if others[location] == seat:
                    for tile in placed_tiles[location]:
                        total += worth[base + tile.index]
            weight *= chosen[record] / total
        return weight

    def state(self, placed_tiles: list[list[Tile]], rng: int) -> tuple[MatchState, int]:
        """The match state of the deal ``placed_tiles`` (the stock shuffled now), and the rng."""
        return deal_state(self.view, self.others, placed_tiles, rng)


def inferred_totals(  # noqa: PLR0913, PLR0917 - a compiled call, the bot's settings passed on
    tables: ChoiceTables,
    deals: DealPool,
    moves: tuple[Move, ...],
    seat: int,
    playouts: int,
    pool: int,
    random: bool,
    depth: int,
    settle: float,
    totals: list[float],
    rng: int,
) -> int:
    """Add to ``totals`` the playouts of ``playouts`` deals resampled from ``pool`` by the model.

    ``deals`` samples the view's deals; ``seat`` is the view's seat, and
    ``random``, ``depth`` and ``settle`` the playouts' settings
    (:func:`~american_sniff.bots._kernel.score_deal`). The pool's deals are
    drawn first (their tiles only, :meth:`DealPool.tiles`), then the states
    of those played, in the pool's order (:meth:`DealPool.state`).
    With ``pool`` no larger than ``playouts``, ``playouts`` deals are sampled
    and all played, each deal's playouts counting by its weight (the weights
    scaled to add up to ``playouts``) instead of being resampled. Without a
    placement to read in ``tables``, ``playouts`` deals are sampled and
    played as they come. Returns the generator state.
    """
    alive = list(range(len(moves)))
    if not tables[0]:
        return play_deals(
            deals, None, [], playouts, moves, alive, seat, random, depth, settle,
            totals, None, [], rng,
        )  # fmt: skip
    played, factors, rng = inferred_deals(tables, deals, playouts, pool, rng)
    return play_deals(
        deals, played, factors, 0, moves, alive, seat, random, depth, settle,
        totals, None, [], rng,
    )  # fmt: skip


def inferred_deals(
    tables: ChoiceTables, deals: DealPool, playouts: int, pool: int, rng: int
) -> tuple[list[list[list[Tile]]], list[float], int]:
    """The deals that ``playouts`` playouts resampled from ``pool`` by the model play.

    :func:`inferred_totals`'s first half, for a view with a placement to
    read in ``tables``: the pool's deals are drawn (their tiles only,
    :meth:`DealPool.tiles`) and weighed, then resampled (:func:`pick_counts`)
    or, with ``pool`` no larger than ``playouts``, all kept with their
    weights scaled to add up to ``playouts``. Returns the tiles of each deal
    to play, in the pool's order, the factor its playouts count by (above
    0), and the generator state; each deal's state is then drawn with
    :meth:`DealPool.state`, in that order.
    """
    pooled: list[list[list[Tile]]] = []
    weights: list[float] = []
    for _ in range(max(pool, playouts)):
        tiles, rng = deals.tiles(rng)
        pooled.append(tiles)
        weights.append(deals.weight(tiles, tables))
    if pool <= playouts:
        # No larger pool: every deal is played, and counts by its weight (the
        # weights scaled to add up to ``playouts``).
        total = 0.0
        for weight in weights:
            total += weight
        scale = playouts / total if total > 0.0 else 1.0
        factors = [weight * scale if total > 0.0 else 1.0 for weight in weights]
    else:
        counts, rng = pick_counts(weights, playouts, rng)
        factors = [float(times) for times in counts]
    played: list[list[list[Tile]]] = []
    kept: list[float] = []
    for entry in range(len(pooled)):
        factor = factors[entry]
        if factor > 0.0:
            played.append(pooled[entry])
            kept.append(factor)
    return played, kept, rng


def play_deals(  # noqa: PLR0913, PLR0917 - a compiled call, the search's state passed on
    deals: DealPool,
    played: list[list[list[Tile]]] | None,
    factors: list[float],
    count: int,
    trying: tuple[Move, ...],
    alive: list[int],
    seat: int,
    random: bool,
    depth: int,
    settle: float,
    totals: list[float],
    rows: list[list[float]] | None,
    weights: list[float],
    rng: int,
) -> int:
    """Play the moves ``trying`` out on some deals and add up what they score.

    The deals are ``played`` (their tiles, from :func:`inferred_deals`),
    each counting by its entry of ``factors``; or, if ``played`` is None,
    ``count`` fresh deals, each drawn just before it is played and counting
    once. ``trying`` holds the moves of ``alive`` (indices into ``totals``),
    in that order: each deal's playout value of ``trying[p]``
    (:func:`~american_sniff.bots._kernel.score_deal`), times the deal's
    factor, goes to ``totals[alive[p]]``. With ``rows``, each value is also
    appended to ``rows[alive[p]]``, and each deal's factor to ``weights``.
    Returns the generator state.
    """
    size = len(trying)
    part = [0.0] * size
    number = count if played is None else len(played)
    for entry in range(number):
        if played is None:
            tiles, rng = deals.tiles(rng)
            factor = 1.0
        else:
            tiles = played[entry]
            factor = factors[entry]
        world, rng = deals.state(tiles, rng)
        for position in range(size):
            part[position] = 0.0
        rng = score_deal(world, trying, seat, random, depth, settle, part, rng)
        for position in range(size):
            index = alive[position]
            totals[index] += factor * part[position]
            if rows is not None:
                rows[index].append(part[position])
        if rows is not None:
            weights.append(factor)
    return rng
