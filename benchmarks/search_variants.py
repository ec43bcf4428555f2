"""Variants of the search bot, measured in ``bots-results.md`` and not kept.

Each is :class:`~american_sniff.SearchBot` with one part changed, so that
``versus.py`` (and ``regret.py``) can play it against the bot itself or the
DMC bot. None of the first four made a measurable difference, so the
library's bot has none of them; they live here so that the runs can be
repeated. Of the next two, ``searchs`` did
(with two players): the library now weighs the settlement at a cut that way.
The others measure a part of the library's bot (its exact endgame) or the
ceiling (the oracle).

* ``searchg`` (:class:`GuardSearch`): every seat's playout policy is the
  *guard*: the placement that scores the most points now less the most the
  next seat could score in reply (with the hand it holds in the sampled
  deal), then the heaviest tile.
* ``search2`` (:class:`HeavySettleSearch`): the settlement the hands would
  cost at a playout's cut counts twice.
* ``searchr`` (:class:`RawPipsSearch`): the hands' pips at a playout's cut
  count as they are, not rounded to a multiple of five as settlement would.
* ``searchw`` (:class:`WinSearch`): a playout is scored by an estimate of the
  chance to win the match from its end (:func:`win_chance`), not by points.
* ``searchs`` (:class:`LightSettleSearch`): the settlement at a playout's
  cut counts ``weight`` times (0.5 by default), not in full; it found the
  library's two-player weight (``bots.search.SETTLE_WEIGHTS``).
* ``searchq`` (:class:`QuietSearch`): at a playout's cut, the points of the
  next seat's greedy placement count too, ``weight`` times.
* ``searchn`` (:class:`NoEndgameSearch`): the library's bot without its
  exact endgame (:mod:`american_sniff.bots.endgame`): once the stock is
  empty it samples and plays out as before, to measure what the exact search
  is worth; ``search16`` and ``search256`` give it 16 and 256 nodes a
  playout instead of the library's 64.
* ``oracle`` (:class:`OracleSearch`): *cheats*. It is shown the true match
  state before each choice (``versus.py`` calls :meth:`OracleSearch.see`)
  and samples only the order of the stock, so its playouts run on the true
  hands. It measures the ceiling of any bot that reads the hidden hands, at
  the same budget; it belongs in no library.
* ``sir`` (:class:`ResampledSearch`): ``pool`` deals are sampled, each
  weighted by how likely it makes the other seats' recent choices (a seat
  picks among its placements with chance proportional to
  ``exp(beta * points)``), and ``playouts`` of them are drawn by systematic
  resampling; the playouts then run on those.

All of them, like the bot, are pure functions of their fields and the view.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar, cast

import attrs

from american_sniff import (
    ALL_TILES,
    Draw,
    Layout,
    MatchState,
    Move,
    Place,
    PlayerView,
    RoundInfo,
    SearchBot,
    Tile,
    apply,
    legal_moves,
    placement_points,
    round_hand,
)
from american_sniff.bots import Determiniser, decision_rng, winning_moves
from american_sniff.bots._kernel import greedy_pick, score_deal
from american_sniff.bots._kernel import play_out as kernel_play_out
from american_sniff.bots.base import moves_to_choose_from
from american_sniff.bots.endgame import outcome_value
from american_sniff.bots.greedy import greedy_choice
from american_sniff.bots.search import playout_value
from american_sniff.rng import below, next_u64, shuffled
from american_sniff.rules import side_of, target

__all__ = [
    "VARIANTS",
    "GuardSearch",
    "HalvingSearch",
    "HeavySettleSearch",
    "LargeEndgameSearch",
    "LightSettleSearch",
    "NoEndgameSearch",
    "OracleSearch",
    "QuietSearch",
    "RawPipsSearch",
    "ResampledSearch",
    "SmallEndgameSearch",
    "WinSearch",
    "play_out",
    "win_chance",
]

#: The slope of :func:`win_chance` by number of players: the maximum-likelihood
#: fit to the outcomes of greedy matches (2 players: 8,136 positions of 400
#: matches, 0.45; 4 players: 5,596 positions of 300 matches, 0.40).
WIN_SLOPE = {2: 0.45, 3: 0.42, 4: 0.40}


def win_chance(players: int, scores: Sequence[int], side: int) -> float:
    """The logistic of ``k * (e - d) / sqrt(d + e)``: ``side`` needs ``d`` points, a rival ``e``."""
    goal = target(players)
    need = max(1, goal - scores[side])
    rival = min(max(1, goal - s) for other, s in enumerate(scores) if other != side)
    z = WIN_SLOPE[players] * (rival - need) / math.sqrt(need + rival)
    return 1.0 / (1.0 + math.exp(-z))


def _greedy(state: MatchState) -> Move:
    return greedy_choice(legal_moves(state), state.layout)


def _best_reply(layout: Layout, hand: Sequence[Tile]) -> int:
    best = 0
    for tile in hand:
        for at in layout.fits(tile):
            best = max(best, placement_points(layout.place(tile, at).end_sum))
    return best


def _guard(state: MatchState) -> Move:
    moves = legal_moves(state)
    if len(moves) == 1:
        return moves[0]
    following = state.hands[(state.turn + 1) % state.players]
    best, best_key = moves[0], (-1000, -1)
    for move in cast("Sequence[Place]", moves):
        after = state.layout.place(move.tile, move.at)
        key = (placement_points(after.end_sum) - _best_reply(after, following), move.tile.pips)
        if key > best_key:
            best, best_key = move, key
    return best


def play_out(state: MatchState, guard: bool, depth: int) -> MatchState:
    """Play on greedily (or with the ``guard``) for ``depth`` placements or to the round's end."""
    number, left = state.round, depth
    while left and state.winner is None and state.round == number:
        move = _guard(state) if guard else _greedy(state)
        left -= type(move) is Place
        state = apply(state, move)
    return state


@attrs.define(eq=False)
class _Variant(SearchBot):
    """The search bot's loop (greedy playouts, a playout budget) with hooks (``variant``).

    It has no exact endgame and no pruning, and counts the settlement at a
    playout's cut in full with any number of players (the library's bot
    before :data:`~american_sniff.bots.search.SETTLE_WEIGHTS`).
    """

    guard = False

    def _value(self, start: MatchState, end: MatchState, seat: int) -> float:
        return playout_value(start, end, seat)

    def _deals(self, view: PlayerView, rng: int) -> list[MatchState]:
        determiniser = Determiniser(view)
        deals = []
        for _ in range(self.playouts):
            world, rng = determiniser.sample(rng)
            deals.append(world)
        return deals

    def choose(self, view: PlayerView) -> Move:
        """The move with the best total over the deals (see the module notes)."""
        moves = moves_to_choose_from(view, self)
        if len(moves) == 1:
            return moves[0]
        wins = winning_moves(view)
        if wins:
            return wins[0]
        totals = [0.0] * len(moves)
        depth = self.depth or 1000
        # The library's own playouts and value (compiled in the compiled build)
        # where the variant changes neither.
        plain = not self.guard and type(self)._value is _Variant._value
        for world in self._deals(view, decision_rng(self.seed, view)):
            if plain:
                score_deal(world, moves, view.seat, False, depth, True, totals, 0)
                continue
            for index, move in enumerate(moves):
                if self.guard:
                    end = play_out(apply(world, move), True, depth)
                else:
                    end, _ = kernel_play_out(apply(world, move), False, 0, depth)
                totals[index] += self._value(world, end, view.seat)
        return moves[totals.index(max(totals))]


@attrs.define(eq=False)
class GuardSearch(_Variant):
    """Playouts with the guard policy for every seat (``searchg``)."""

    guard = True


@attrs.define(eq=False)
class WinSearch(_Variant):
    """Playouts scored by :func:`win_chance` at their end (``searchw``)."""

    def _value(self, start: MatchState, end: MatchState, seat: int) -> float:
        players = start.players
        mine = side_of(players, seat)
        if end.winner is not None:
            return 1.0 if end.winner == mine else 0.0
        scores = list(end.scores)
        if end.round == start.round:
            for other, hand in enumerate(end.hands):
                scores[side_of(players, other)] -= round_hand(sum(t.pips for t in hand))
        return win_chance(players, scores, mine)


@attrs.define(eq=False)
class RawPipsSearch(_Variant):
    """The hands' pips at a playout's cut counted as they are, not rounded (``searchr``)."""

    def _value(self, start: MatchState, end: MatchState, seat: int) -> float:
        if end.winner is not None or end.round != start.round:
            return playout_value(start, end, seat)
        players = start.players
        scores = list(end.scores)
        for other, hand in enumerate(end.hands):
            scores[side_of(players, other)] -= sum(t.pips for t in hand)
        return outcome_value(start, end, seat, scores)


@attrs.define(eq=False)
class HeavySettleSearch(_Variant):
    """The settlement at a playout's cut counted twice (``search2``)."""

    def _value(self, start: MatchState, end: MatchState, seat: int) -> float:
        return playout_value(start, end, seat, settle=2.0)


@attrs.define(eq=False)
class LightSettleSearch(_Variant):
    """The settlement at a playout's cut counted by ``weight`` (``searchs``; this loop's is 1)."""

    weight: float = 0.5

    def _value(self, start: MatchState, end: MatchState, seat: int) -> float:
        return playout_value(start, end, seat, settle=self.weight)


@attrs.define(eq=False)
class QuietSearch(_Variant):
    """At a playout's cut, the next placement's points counted too (``searchq``).

    If the round goes on at the cut and the seat to move can place, the
    points of its greedy placement count ``weight`` times for its side (as
    gained, so against this seat when it is another side's).
    """

    weight: float = 1.0

    def _value(self, start: MatchState, end: MatchState, seat: int) -> float:
        value = playout_value(start, end, seat)
        if end.winner is not None or end.round != start.round:
            return value
        moves = legal_moves(end)
        if type(moves[0]) is not Place:
            return value
        move = cast("Place", moves[0] if len(moves) == 1 else greedy_pick(moves, end.layout))
        points = placement_points(end.layout.place(move.tile, move.at).end_sum)
        players = start.players
        mine = side_of(players, seat)
        if side_of(players, end.turn) == mine:
            return value + self.weight * points
        others = 1 if players == 4 else players - 1
        return value - self.weight * points / others


class _Choices:
    """The chance of the other seats' last ``last`` placements by choice, per sampled deal."""

    def __init__(self, view: PlayerView, beta: float, last: int) -> None:
        records: list[list[tuple[Layout, int]]] = [[] for _ in range(view.players)]
        placed: list[list[Tile]] = [[] for _ in range(view.players)]
        table, last_drew = Layout.empty(), -1
        for action in view.history:
            seat, move = action.seat, action.move
            if type(move) is Place:
                if seat not in (view.seat, last_drew):
                    records[seat].append((table, len(placed[seat])))
                placed[seat].append(move.tile)
                table = table.place(move.tile, move.at)
            elif type(move) is Draw:
                records[seat] = []
            last_drew = seat if type(move) is Draw else -1
        seen = set(view.hand) | set(view.layout.tiles)
        hidden = [t for t in ALL_TILES if t not in seen]
        # For each choice: the seat, the tiles it placed since, and each
        # tile's sum of exp(beta * points) over its placements then.
        self.records: list[tuple[int, tuple[Tile, ...], dict[Tile, float]]] = []
        for seat, kept in enumerate(records):
            for then, since in kept[-last:]:
                later = tuple(placed[seat][since:])
                worth = {}
                for tile in (*hidden, *later):
                    ends = (
                        [then.place(tile).end_sum]
                        if then.is_empty
                        else [then.place(tile, at).end_sum for at in then.fits(tile)]
                    )
                    worth[tile] = sum(math.exp(beta * placement_points(e)) for e in ends)
                self.records.append((seat, later, worth))

    def weight(self, world: MatchState) -> float:
        weight = 1.0
        for seat, later, worth in self.records:
            weight /= sum(worth[t] for t in (*world.hands[seat], *later))
        return weight


@attrs.define(eq=False)
class ResampledSearch(_Variant):
    """Deals resampled by the other seats' choices (``sir``).

    :ivar beta: How strongly points draw a choice in the model.
    :ivar pool: Deals sampled before resampling ``playouts`` of them.
    :ivar last: How many recent choices of each seat are read.
    """

    beta: float = 1.0
    pool: int = 64
    last: int = 3

    def _deals(self, view: PlayerView, rng: int) -> list[MatchState]:
        determiniser = Determiniser(view)
        choices = _Choices(view, self.beta, self.last)
        worlds, weights = [], []
        for _ in range(self.pool):
            world, rng = determiniser.sample(rng)
            worlds.append(world)
            weights.append(choices.weight(world))
        step = sum(weights) / self.playouts
        offset, rng = below(1 << 30, rng)
        position, reached, index = offset / (1 << 30) * step, weights[0], 0
        deals = []
        for _ in range(self.playouts):
            while reached < position and index < len(worlds) - 1:
                index += 1
                reached += weights[index]
            deals.append(worlds[index])
            position += step
        return deals


@attrs.define(eq=False)
class NoEndgameSearch(SearchBot):
    """The library's search bot without the exact endgame (``searchn``)."""

    endgame: ClassVar[int] = 0


@attrs.define(eq=False)
class SmallEndgameSearch(SearchBot):
    """The library's search bot with 16 nodes of exact endgame a playout (``search16``)."""

    endgame: ClassVar[int] = 16


@attrs.define(eq=False)
class LargeEndgameSearch(SearchBot):
    """The library's search bot with 256 nodes of exact endgame a playout (``search256``)."""

    endgame: ClassVar[int] = 256


@attrs.define(eq=False)
class HalvingSearch(SearchBot):
    """The library's bot with its playouts spent by sequential halving (``searchh``).

    The same budget, ``playouts`` times the number of legal moves, is cut
    into ``ceil(log2(moves))`` rounds: in each, every move still in the race
    is played out on the same fresh deals, and the better half (by its total
    so far) goes on. The exact endgame is the library's.
    """

    def choose(self, view: PlayerView) -> Move:
        """The best move left after the last round of halving."""
        moves = moves_to_choose_from(view, self)
        if len(moves) == 1:
            return moves[0]
        wins = winning_moves(view)
        if wins:
            return wins[0]
        determiniser = Determiniser(view)
        rng = decision_rng(self.seed, view)
        if self.endgame_nodes(view.players) and view.stock_size == 0 and view.players != 3:
            exact = self._endgame(view, moves, determiniser, rng, None)
            if exact is not None:
                return exact
        depth = -1 if self.depth is None else self.depth
        alive = list(range(len(moves)))
        totals = [0.0] * len(moves)
        rounds = max(1, math.ceil(math.log2(len(moves))))
        budget = self.playouts * len(moves)
        for step in range(rounds):
            subset = tuple(moves[index] for index in alive)
            part = [0.0] * len(subset)
            for _ in range(max(1, budget // (rounds * len(alive)))):
                world, rng = determiniser.sample(rng)
                rng = score_deal(world, subset, view.seat, False, depth, True, part, rng)
            for position, index in enumerate(alive):
                totals[index] += part[position]
            if step < rounds - 1:
                alive.sort(key=lambda index: -totals[index])
                alive = sorted(alive[: math.ceil(len(alive) / 2)])
        return moves[max(alive, key=lambda index: (totals[index], -index))]


@attrs.define(eq=False)
class OracleSearch(_Variant):
    """The search on the true hands (``oracle``): a cheat, to measure the ceiling.

    :ivar truth: The match state of the coming choice, set by :meth:`see`
        (None until then: :meth:`choose` refuses to run without it).
    """

    truth: MatchState | None = attrs.field(default=None, init=False, repr=False)

    def see(self, state: MatchState) -> None:
        """Be shown the true state of the coming choice."""
        self.truth = state

    def _deals(self, view: PlayerView, rng: int) -> list[MatchState]:
        truth = self.truth
        if truth is None:
            raise ValueError("the oracle must be shown the true state (see) before it chooses")
        seen = set(truth.layout.tiles)
        for hand in truth.hands:
            seen.update(hand)
        stock = tuple(t for t in ALL_TILES if t not in seen)
        deals = []
        for _ in range(self.playouts):
            deck, rng = shuffled(stock, rng)
            later, rng = next_u64(rng)
            info = RoundInfo(
                players=view.players,
                seed=0,
                round=view.round,
                opener=view.opener,
                deck=deck,
                deals=(),
                rng=later,
                last_round=None,
            )
            deals.append(
                MatchState(
                    info, view.turn, truth.hands, view.layout, view.scores, None, view.drawn, 0
                )
            )
        return deals


#: The variants by their kind in a ``versus.py`` spec.
VARIANTS: dict[str, type[SearchBot]] = {
    "search2": HeavySettleSearch,
    "searchr": RawPipsSearch,
    "searchg": GuardSearch,
    "searchw": WinSearch,
    "oracle": OracleSearch,
    "searchn": NoEndgameSearch,
    "search16": SmallEndgameSearch,
    "search256": LargeEndgameSearch,
    "searchh": HalvingSearch,
    "searchs": LightSettleSearch,
    "searchq": QuietSearch,
    "sir": ResampledSearch,
    "variant": _Variant,
}
