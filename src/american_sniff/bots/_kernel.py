"""The search bot's hot loops, compiled with the engine in the compiled build.

A decision of :class:`~american_sniff.SearchBot` spends most of its time
outside the engine: sampling deals, picking the greedy policy's move, playing
each deal out, scoring the playouts. This module holds those loops as plain
functions, so that in the compiled build (it is on the compile list of
``pyproject.toml``) they are native code whose calls into the engine
(:func:`~american_sniff.apply`, :func:`~american_sniff.legal_moves`,
:func:`~american_sniff.layout.placed`) and reads of the state's fields are
direct. It holds no rule of the game of its own: every position is the
engine's, and each function makes exactly the choices and the generator draws
of the code it replaced in :mod:`american_sniff.bots.search` and
:mod:`american_sniff.bots.greedy` (``tests/test_search_kernel.py`` checks it
against a reference on many random views). :func:`racing`, the search's
pruning, is new with it (``tests/test_prune.py``). In the pure build it is
interpreted like the rest of the bots, and no slower than that code.

Its names are private to the package: the bots' public functions
(:func:`~american_sniff.bots.greedy.greedy_choice`,
:func:`~american_sniff.bots.search.playout_value`,
:class:`~american_sniff.bots.Determiniser`, :class:`~american_sniff.SearchBot`)
call them.
"""

from __future__ import annotations

import math
import time
from typing import Final

from .._fast import shuffled_indices
from ..engine import apply, legal_moves
from ..layout import TILE_VALUES, Layout, end_sum_after, placed
from ..moves import Draw, Move, Place
from ..rng import below, next_u64
from ..rules import HAND_SIZE, MAX_PIPS, placement_points, round_hand, side_of
from ..state import Action, MatchState, RoundInfo
from ..tiles import ALL_TILES, Tile
from ..views import PlayerView
from ._playouts import score_deal_fast, use_c

__all__ = [
    "EndgameSearch",
    "count_deals",
    "deal_state",
    "deal_tables",
    "deal_tiles",
    "greedy_pick",
    "outcome",
    "play_out",
    "racing",
    "sample_world",
    "score_deal",
    "slot_voids",
]

_PLACE: Final = Place
_DRAW: Final = Draw
#: The empty set of values.
_NOTHING: Final[frozenset[int]] = frozenset()
#: ``_SET_OF[mask]``: the set of values whose bits ``mask`` sets.
_SET_OF: Final = tuple(
    frozenset(v for v in range(MAX_PIPS + 1) if mask >> v & 1) for mask in range(1 << MAX_PIPS + 1)
)
#: The mask of each set of values (the inverse of ``_SET_OF``).
_MASK_OF: Final = {values: mask for mask, values in enumerate(_SET_OF)}


def greedy_pick(moves: tuple[Move, ...], layout: Layout) -> Move:
    """The greedy policy's pick among two or more placements legal on ``layout``.

    The most points now, then the most pips, then the first: exactly
    :func:`~american_sniff.bots.greedy.greedy_choice` (which checks its
    arguments and calls this).
    """
    best = moves[0]
    best_points = -1
    best_pips = -1
    for move in moves:
        place: Place = move  # type: ignore[assignment]  # several moves are placements
        tile = place.tile
        at = place.at
        points = placement_points(end_sum_after(layout, tile, None if at is None else at.order))
        if points > best_points or (points == best_points and tile.pips > best_pips):
            best, best_points, best_pips = move, points, tile.pips
    return best


def play_out(state: MatchState, random: bool, rng: int, depth: int) -> tuple[MatchState, int]:
    """Play ``state`` on with the greedy (or, if ``random``, the random) policy for every seat.

    It stops at the end of the round or match, or after ``depth``
    placements (``depth`` -1: no limit). The random policy draws
    ``below(len(moves))`` for each choice of two or more moves; greedy draws
    nothing. Returns the final state and the generator state.
    """
    number = state.info.round
    left = depth
    while left and state.winner is None and state.info.round == number:
        moves = legal_moves(state)
        if len(moves) == 1:
            move = moves[0]
        elif random:
            index, rng = below(len(moves), rng)
            move = moves[index]
        else:
            move = greedy_pick(moves, state.layout)
        if type(move) is _PLACE:
            left -= 1
        state = apply(state, move)
    return state, rng


def outcome(start: MatchState, end: MatchState, seat: int, settle: float) -> float:
    """:func:`~american_sniff.bots.search.playout_value` of ``end`` from ``start`` for ``seat``.

    A won match is ``2 * target`` (or its opposite); otherwise this side's
    gain less the mean of the others', the hands' settlement counted
    ``settle`` times (1: in full; 0 or False: not at all) when the round is
    still going at ``end``.
    """
    players = start.info.players
    mine = side_of(players, seat)
    winner = end.winner
    if winner is not None:
        target = end.target
        return float(2 * target if winner == mine else -2 * target)
    scores = end.scores
    before = start.scores
    # What settlement would take from each side if the round ended here.
    cut = [0] * len(scores)
    if settle and end.info.round == start.info.round:
        hands = end.hands
        for index in range(players):
            pips = 0
            for tile in hands[index]:
                pips += tile.pips
            cut[side_of(players, index)] += round_hand(pips)
    # (Integers and halves times a weight of a few bits: exact in floats.)
    others = 0.0
    count = 0
    for side in range(len(scores)):
        if side != mine:
            others += (scores[side] - before[side]) - settle * cut[side]
            count += 1
    return (scores[mine] - before[mine]) - settle * cut[mine] - others / count


def score_deal(  # noqa: PLR0913, PLR0917 - a compiled call, no keywords on the hot path
    world: MatchState,
    moves: tuple[Move, ...],
    seat: int,
    random: bool,
    depth: int,
    settle: float,
    totals: list[float],
    rng: int,
) -> int:
    """Play each of ``moves`` in ``world`` and out; add each playout's value to ``totals``.

    The moves are played out in order, each continuing the generator where
    the one before left it; returns the generator state.
    """
    if use_c():
        return score_deal_fast(world, moves, seat, random, depth, settle, totals, rng)
    # Listing the deal's moves once lets the engine apply each of its own
    # move objects (the view's are the same) without checking it.
    legal_moves(world)
    for index in range(len(moves)):
        end, rng = play_out(apply(world, moves[index]), random, rng, depth)
        totals[index] += outcome(world, end, seat, settle)
    return rng


def racing(
    rows: list[list[float]],
    weights: list[float],
    alive: list[int],
    totals: list[float],
    prune: float,
) -> list[int]:
    """The moves of ``alive`` still in the race after the deals played so far.

    ``rows[m]`` holds move ``m``'s playout values, one per deal played since
    the start (every move of ``alive`` has one for each), ``weights`` what
    each deal counts by, and ``totals[m]`` the weighted sum of ``rows[m]``.
    The *leader* is the move of ``alive`` with the best total (the first
    such). Every other move is compared with it deal by deal: it leaves the
    race when the weighted mean of the leader's lead exceeds ``prune``
    standard errors of that mean, or when the lead is the same on every deal
    (then it is never negative: a move that did the same as the leader
    everywhere leaves too, since a tie goes to the first). The weights count
    as frequencies: a deal of weight ``k`` counts as ``k`` deals (with the
    search's reading of choices, a deal resampled ``k`` times, whose one
    playout so counts ``k`` times, and the test is bolder than ``prune``
    says). The leader always stays; the moves keep their order. With a total
    weight of 1 or less nothing is known of the spread, and every move stays.
    """
    count = 0.0
    for weight in weights:
        count += weight
    if not count > 1.0:
        return list(alive)  # one deal (or none) tells nothing of the spread
    leader = alive[0]
    for index in alive:
        if totals[index] > totals[leader]:
            leader = index
    best = rows[leader]
    kept: list[int] = []
    for index in alive:
        if index == leader:
            kept.append(index)
            continue
        values = rows[index]
        lead = 0.0
        for deal in range(len(weights)):
            lead += weights[deal] * (best[deal] - values[deal])
        mean = lead / count
        spread = 0.0
        for deal in range(len(weights)):
            gap = best[deal] - values[deal] - mean
            spread += weights[deal] * gap * gap
        if spread == 0.0:
            if mean >= 0.0:
                continue  # behind (or level) on every deal alike
        elif mean > 0.0 and mean * mean * count * (count - 1.0) > prune * prune * spread:
            continue  # mean > prune * sqrt(spread / (count - 1) / count), squared
        kept.append(index)
    return kept


#: The determiniser's groups of tiles: the locations each group may go to, and its tiles.
_Groups = tuple[tuple[tuple[int, ...], tuple[Tile, ...]], ...]
#: The determiniser's counted splits of each group: the splits and their weights.
_Choices = dict[tuple[int, tuple[int, ...]], tuple[list[tuple[int, ...]], list[int]]]


def sample_world(  # noqa: PLR0913, PLR0917 - the determiniser's tables, passed as they are
    view: PlayerView,
    groups: _Groups,
    choices: _Choices,
    capacities: tuple[int, ...],
    others: tuple[int, ...],
    rng: int,
) -> tuple[MatchState, int]:
    """One deal of :meth:`Determiniser.sample <american_sniff.bots.Determiniser.sample>`.

    The determiniser's groups of tiles, its counted splits (``choices``),
    its locations' capacities and the seat of each location but the stock
    (``others``): the draws are the determiniser's, in its order
    (:func:`deal_tiles`, then :func:`deal_state`).
    """
    placed_tiles, rng = deal_tiles(groups, choices, capacities, rng)
    return deal_state(view, others, placed_tiles, rng)


def deal_tiles(
    groups: _Groups, choices: _Choices, capacities: tuple[int, ...], rng: int
) -> tuple[list[list[Tile]], int]:
    """The first half of :func:`sample_world`: the tiles of each location, and the rng.

    For each group, a split drawn by its weight and a shuffle of its tiles;
    the stock (the last location) is left in the order its tiles were put.
    """
    locations = len(capacities)
    placed_tiles: list[list[Tile]] = [[] for _ in range(locations)]
    for group in range(len(groups)):
        tiles = groups[group][1]
        splits, weights = choices[(group, capacities)]
        total = 0
        for weight in weights:
            total += weight
        pick, rng = below(total, rng)
        choice = 0
        while pick >= weights[choice]:
            pick -= weights[choice]
            choice += 1
        split = splits[choice]
        order, rng = shuffled_indices(len(tiles), rng)
        start = 0
        left: list[int] = []
        for location in range(locations):
            amount = split[location]
            place_in = placed_tiles[location]
            for position in range(start, start + amount):
                place_in.append(tiles[order[position]])
            start += amount
            left.append(capacities[location] - amount)
        capacities = tuple(left)
    return placed_tiles, rng


def deal_state(
    view: PlayerView, others: tuple[int, ...], placed_tiles: list[list[Tile]], rng: int
) -> tuple[MatchState, int]:
    """The second half of :func:`sample_world`: the state of a deal's tiles, and the rng.

    The stock is shuffled, one output is kept as the generator state of later
    rounds, and each other seat's tiles are sorted into its hand.
    """
    rest = placed_tiles[-1]
    order, rng = shuffled_indices(len(rest), rng)
    stock = tuple([rest[position] for position in order])
    later, rng = next_u64(rng)
    players = view.players
    held: list[list[Tile]] = [[] for _ in range(players)]
    for location in range(len(others)):
        held[others[location]].extend(placed_tiles[location])
    hands: list[tuple[Tile, ...]] = []
    for seat in range(players):
        if seat == view.seat:
            hands.append(view.hand)
        else:
            tiles_held = held[seat]
            tiles_held.sort(key=_index)
            hands.append(tuple(tiles_held))
    info = RoundInfo(
        players=players,
        seed=0,
        round=view.round,
        opener=view.opener,
        deck=stock,
        deals=(),
        rng=later,
        last_round=None,
    )
    state = MatchState(info, view.turn, tuple(hands), view.layout, view.scores, None, view.drawn, 0)
    return state, rng


def _index(tile: Tile) -> int:
    """A tile's sort key: its index."""
    return tile.index


#: ``n!`` for every number of tiles a group can hold.
_FACTORIAL: Final = tuple(math.factorial(n) for n in range(29))


def count_deals(
    groups: tuple[tuple[tuple[int, ...], tuple[Tile, ...]], ...],
    group: int,
    capacities: tuple[int, ...],
    choices: dict[tuple[int, tuple[int, ...]], tuple[list[tuple[int, ...]], list[int]]],
) -> int:
    """How many ways the tiles of ``groups[group:]`` fill exactly ``capacities``.

    The determiniser's count: each group's tiles go to the locations it
    lists (``groups[g][0]``), and every split of a group with a positive
    number of ways is stored in ``choices`` under ``(group, capacities)``
    with that number, in the order :func:`_splits` lists them, for
    :func:`sample_world` to draw from.
    """
    if group == len(groups):
        for capacity in capacities:
            if capacity:
                return 0
        return 1
    key = (group, capacities)
    known = choices.get(key)
    if known is None:
        where, tiles = groups[group]
        size = len(tiles)
        splits: list[tuple[int, ...]] = []
        weights: list[int] = []
        for split in _splits(where, size, capacities):
            rest = tuple([capacities[i] - split[i] for i in range(len(split))])
            ways = _FACTORIAL[size]
            for amount in split:
                ways //= _FACTORIAL[amount]
            ways *= count_deals(groups, group + 1, rest, choices)
            if ways:
                splits.append(split)
                weights.append(ways)
        known = (splits, weights)
        choices[key] = known
    total = 0
    for weight in known[1]:
        total += weight
    return total


def _splits(
    where: tuple[int, ...], size: int, capacities: tuple[int, ...]
) -> list[tuple[int, ...]]:
    """Every way to send ``size`` tiles to the locations ``where`` within ``capacities``.

    Each split gives the amount for every location (0 outside ``where``);
    they come in the order of the amounts at ``where[0]``, then ``where[1]``,
    and so on, each counting up.
    """
    found: list[tuple[int, ...]] = []
    _fill(where, 0, size, capacities, [0] * len(capacities), found)
    return found


def _fill(  # noqa: PLR0913, PLR0917 - a recursion's state, passed on
    where: tuple[int, ...],
    position: int,
    left: int,
    capacities: tuple[int, ...],
    split: list[int],
    found: list[tuple[int, ...]],
) -> None:
    """Add to ``found`` each split of ``left`` tiles over ``where[position:]`` after ``split``."""
    location = where[position]
    if position == len(where) - 1:
        if left <= capacities[location]:
            split[location] = left
            found.append(tuple(split))
            split[location] = 0
        return
    for amount in range(min(left, capacities[location]) + 1):
        split[location] = amount
        _fill(where, position + 1, left - amount, capacities, split, found)
    split[location] = 0


def slot_voids(
    players: int, me: int, history: tuple[Action, ...]
) -> tuple[tuple[frozenset[int], ...], ...]:
    """:func:`~american_sniff.bots.search.tile_voids` of a view of seat ``me``, from its history.

    The same rules, in the same order (see there); the history is passed so
    that a decision reads the view's history once.
    """
    dealt = HAND_SIZE[players]
    slots: list[list[frozenset[int]]] = [
        [] if seat == me else [_NOTHING] * dealt for seat in range(players)
    ]
    table = Layout.empty()
    last_drew = -1  # the seat whose previous action was a draw, if any
    for action in history:
        seat = action.seat
        move = action.move
        mine = slots[seat]
        if type(move) is _PLACE:
            place = move
            tile = place.tile
            if seat != me and mine:
                if last_drew == seat:
                    mine.pop()
                else:
                    values = TILE_VALUES[tile.index]
                    found = False
                    for index in range(len(mine)):
                        if not values & _MASK_OF[mine[index]]:
                            del mine[index]
                            found = True
                            break
                    if not found:  # pragma: no cover - a real history always finds one
                        mine.pop()
            at = place.at
            table = placed(table, ALL_TILES[tile.index], None if at is None else at.order)
            last_drew = -1
            continue
        if seat != me:
            shown = _SET_OF[table.value_mask]
            mine = [known | shown for known in mine]
            slots[seat] = mine
            if type(move) is _DRAW:
                mine.append(_NOTHING)
        last_drew = seat if type(move) is _DRAW else -1
    return tuple([tuple(seat_slots) for seat_slots in slots])


# -- the exact endgame --------------------------------------------------------------

_INFINITY: Final = float("inf")


class EndgameSearch:
    """One bounded alpha-beta search of the rest of a round, from ``start``, for ``seat``.

    :func:`~american_sniff.bots.endgame.endgame_values`'s search (see
    :mod:`american_sniff.bots.endgame`): the same positions in the same
    order, the same table of bounds, the same count of nodes. A search that
    runs out of nodes (or past ``deadline``, a ``time.monotonic()`` time,
    if ``timed``) sets :attr:`out` and unwinds at once; its values then mean
    nothing.
    """

    def __init__(
        self, start: MatchState, seat: int, nodes: int, timed: bool, deadline: float
    ) -> None:
        self.start = start
        self.seat = seat
        self.mine = side_of(start.info.players, seat)
        self.round = start.info.round
        self.left = nodes
        self.timed = timed
        self.deadline = deadline
        self.out = False
        # A position's key -> (lower bound, upper bound) of its value.
        self.table: dict[object, tuple[float, float]] = {}

    def spend(self, count: int) -> bool:
        """Spend ``count`` nodes; False (and :attr:`out` set) if there are not that many left."""
        if count > self.left:
            self.out = True
            return False
        self.left -= count
        if self.timed and time.monotonic() > self.deadline:
            self.out = True
            return False
        return True

    def children(self, state: MatchState) -> list[MatchState]:
        """The positions after each legal move, those best for the mover's side first.

        Empty if the nodes ran out (:attr:`out` is then set).
        """
        moves = legal_moves(state)
        if not self.spend(len(moves)):
            return []
        after = [apply(state, move) for move in moves]
        if len(after) > 1:
            mover = side_of(state.info.players, state.turn)
            keys = [-_gain(child, mover) for child in after]
            order = sorted(range(len(after)), key=keys.__getitem__)
            after = [after[index] for index in order]
        return after

    def value(self, state: MatchState, alpha: float, beta: float) -> float:
        """The value of ``state`` if it lies within ``(alpha, beta)``, else a bound beyond it."""
        if state.winner is not None or state.info.round != self.round:
            return outcome(self.start, state, self.seat, 0.0)
        layout = state.layout
        # The table's future depends only on its open points and their sum, not
        # on the order the tiles went down in; the stock is empty, so the hands
        # fix which tiles are on the table.
        key = (
            state.turn,
            state.hands,
            (layout.open_keys, layout.end_sum, layout.sniff),
            state.scores,
        )
        low, high = self.table.get(key, (-_INFINITY, _INFINITY))
        if low >= beta:
            return low
        if high <= alpha:
            return high
        if low == high:
            return low
        first_alpha, first_beta = alpha, beta
        alpha, beta = max(alpha, low), min(beta, high)
        maximise = side_of(state.info.players, state.turn) == self.mine
        best = -_INFINITY if maximise else _INFINITY
        for child in self.children(state):
            found = self.value(child, alpha, beta)
            if self.out:
                return 0.0
            if maximise:
                best = max(best, found)
                alpha = max(alpha, best)
            else:
                best = min(best, found)
                beta = min(beta, best)
            if alpha >= beta:
                break
        if self.out:
            return 0.0
        if best <= first_alpha:
            self.table[key] = (low, min(high, best))
        elif best >= first_beta:
            self.table[key] = (max(low, best), high)
        else:
            self.table[key] = (best, best)
        return best


def _gain(state: MatchState, side: int) -> float:
    """For move ordering: a win first, then the points ``side`` has."""
    winner = state.winner
    if winner is not None:
        return _INFINITY if winner == side else -_INFINITY
    return float(state.scores[side])


def deal_tables(
    view: PlayerView, slots: tuple[tuple[frozenset[int], ...], ...]
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[tuple[int, ...], tuple[Tile, ...]], ...]]:
    """The determiniser's locations and tile groups for ``view``: ``(seats, capacities, groups)``.

    A location is a kind of tile slot of another seat (the slots of
    ``slots``, :func:`slot_voids`, that know the same values; or the seat's
    whole hand, knowing its :attr:`~american_sniff.PlayerView.voids`, when
    ``slots`` says nothing of it), in seat order, kinds sorted by ``str``;
    then the stock. ``seats`` gives each location's seat but the stock's,
    ``capacities`` every location's number of tiles, and each group the
    locations its tiles may lie in with those tiles, groups sorted.

    :raises ValueError: if the view's hand sizes and stock do not add up to
        the tiles it hides.
    """
    seen = view.layout.tile_mask
    for tile in view.hand:
        seen |= 1 << tile.index
    hidden = [tile for tile in ALL_TILES if not seen >> tile.index & 1]
    sizes = view.hand_sizes
    total = view.stock_size
    for seat in range(view.players):
        if seat != view.seat:
            total += sizes[seat]
    if total != len(hidden):
        raise ValueError(
            f"the view hides {len(hidden)} tiles, but its hand sizes and stock hold {total}"
        )
    seats: list[int] = []
    capacities: list[int] = []
    masks: list[int] = []
    for seat in range(view.players):
        if seat == view.seat:
            continue
        voids = view.voids[seat]
        known = slots[seat] if slots else ()
        if len(known) != sizes[seat] or not known:
            seats.append(seat)
            capacities.append(sizes[seat])
            masks.append(_MASK_OF[voids])
            continue
        counts: dict[frozenset[int], int] = {}
        for slot in known:
            # Every slot knows the seat-wide voids already; the union only
            # matters for a view made by hand.
            kind = slot | voids
            counts[kind] = counts.get(kind, 0) + 1
        for kind, number in sorted(counts.items(), key=str):
            seats.append(seat)
            capacities.append(number)
            masks.append(_MASK_OF[kind])
    stock = len(seats)
    capacities.append(view.stock_size)
    groups: dict[tuple[int, ...], list[Tile]] = {}
    for tile in hidden:
        values = TILE_VALUES[tile.index]
        where = [location for location in range(stock) if not values & masks[location]]
        where.append(stock)
        groups.setdefault(tuple(where), []).append(tile)
    return (
        tuple(seats),
        tuple(capacities),
        tuple([(where, tuple(tiles)) for where, tiles in sorted(groups.items())]),
    )
