"""An independent determinised Monte Carlo bot, the yardstick of ``benchmarks/versus.py``.

It was written from the library's public API and the rules only, without
reading ``american_sniff.bots.search``, so that measuring the search bot
against it means something. Its design differs on purpose wherever a choice
was free:

* **Sampling.** The hidden tiles are dealt to the other hands and the stock by
  rejection: the tiles are shuffled and handed out, most constrained seat
  first, each seat taking tiles that show none of its known voids
  (``view.voids``); a deal that gets stuck is thrown away and tried again (at
  most 20 times, then the voids are ignored). No reading of the opponents'
  choices.
* **Rollouts.** Each legal move is tried on the same deals, then every seat
  plays an epsilon-greedy policy (the most points now, a random placement one
  time in eight) for ``horizon`` placements (3 by default), or to the end of
  the round.
* **Value.** The bot side's gain less the best other side's gain over the
  rollout; settlement is included, and a round still going counts every
  hand's pips, rounded as settlement would, as if it were settled now. A side
  that wins the match scores a fixed 1000. The highest total is played.

The horizon was chosen to make it as strong as it can be at equal CPU time
(``versus.py``, two-player matches against ``search:playouts=8`` before its
inference was improved, the DMC budget calibrated to the same CPU per
decision, 120 matches each): with a horizon of 2 the DMC won 47.5%; 3, 48.3%;
5, 45.0%; 8, 39.2%; and, in a first version without the pips (200 matches),
playing to the round's end, 20.5%.

Its budget is a number of deals per decision; it draws from its own SplitMix64
generator, derived afresh for each decision from its seed and the view, so its
choices are reproducible.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from american_sniff import (
    ALL_TILES,
    MatchState,
    Move,
    Place,
    PlayerView,
    RoundInfo,
    Tile,
    apply,
    legal_moves,
    placement_points,
    round_hand,
)
from american_sniff.rng import MASK64, below, next_u64

__all__ = ["DmcBot"]

_WIN = 1000
_EPSILON = 8  # one random placement in this many


def _tile_values(tile: Tile) -> int:
    return (1 << tile.low) | (1 << tile.high)


@attrs.define(eq=False)
class DmcBot:
    """Determinised Monte Carlo: ``deals`` sampled deals per decision, each move rolled out.

    :ivar seed: Where the per-decision generators are derived from.
    :ivar deals: Deals sampled per decision (at least 1).
    :ivar horizon: Placements a rollout makes before it is scored (0: to the
        end of the round).
    """

    seed: int = 0
    deals: int = 16
    horizon: int = 3

    def choose(self, view: PlayerView) -> Move:
        """The move with the best total over the sampled deals."""
        moves = view.legal_moves
        if len(moves) == 1:
            return moves[0]
        rng = self.seed
        for part in (view.round, len(view.history), view.seat, sum(view.scores)):
            rng = next_u64((rng ^ (part * 0x9E3779B97F4A7C15)) & MASK64)[0]
        side = _side(view.players, view.seat)
        totals = [0] * len(moves)
        for _ in range(max(1, self.deals)):
            world, rng = _sample(view, rng)
            for index, move in enumerate(moves):
                value, rng = _rollout(apply(world, move), view, side, rng, self.horizon)
                totals[index] += value
        best = max(range(len(moves)), key=totals.__getitem__)
        return moves[best]


def _side(players: int, seat: int) -> int:
    return seat % 2 if players == 4 else seat


def _sample(view: PlayerView, rng: int) -> tuple[MatchState, int]:
    """A full state consistent with ``view``: hidden tiles dealt by rejection."""
    seen = set(view.hand)
    seen.update(view.layout.tiles)
    hidden = [t for t in ALL_TILES if t not in seen]
    others = [s for s in range(view.players) if s != view.seat]
    # The seats with the most known voids are served first.
    others.sort(key=lambda s: -len(view.voids[s]))
    hands: dict[int, list[Tile]] = {}
    for attempt in range(21):
        pool = list(hidden)
        for i in range(len(pool) - 1, 0, -1):
            j, rng = below(i + 1, rng)
            pool[i], pool[j] = pool[j], pool[i]
        hands = {}
        ok = True
        for seat in others:
            void_mask = sum(1 << v for v in view.voids[seat]) if attempt < 20 else 0
            need = view.hand_sizes[seat]
            taken: list[Tile] = []
            rest: list[Tile] = []
            for tile in pool:
                if len(taken) < need and not _tile_values(tile) & void_mask:
                    taken.append(tile)
                else:
                    rest.append(tile)
            if len(taken) < need:
                ok = False
                break
            hands[seat] = taken
            pool = rest
        if ok:
            break
    stock = tuple(pool)
    all_hands = tuple(
        tuple(sorted(view.hand if s == view.seat else hands[s], key=lambda t: t.index))
        for s in range(view.players)
    )
    info = RoundInfo(
        players=view.players,
        seed=0,
        round=view.round,
        opener=view.opener,
        deck=stock,
        deals=(),
        rng=rng,
        last_round=None,
    )
    state = MatchState(
        info=info,
        turn=view.turn,
        hands=all_hands,
        layout=view.layout,
        scores=view.scores,
        winner=None,
        drawn=view.drawn,
        drawn_count=0,
    )
    return state, rng


def _policy(moves: Sequence[Move], state: MatchState, rng: int) -> tuple[Move, int]:
    if len(moves) == 1:
        return moves[0], rng
    roll, rng = below(_EPSILON, rng)
    if roll == 0:
        index, rng = below(len(moves), rng)
        return moves[index], rng
    best = moves[0]
    best_points = -1
    for move in moves:
        assert isinstance(move, Place)
        points = placement_points(state.layout.place(move.tile, move.at).end_sum)
        if points > best_points:
            best, best_points = move, points
    return best, rng


def _rollout(
    state: MatchState, view: PlayerView, side: int, rng: int, horizon: int
) -> tuple[int, int]:
    """Play on: the bot side's gain less the best other side's."""
    start = view.scores
    left = horizon or -1
    while state.winner is None and state.round == view.round and left:
        move, rng = _policy(legal_moves(state), state, rng)
        if isinstance(move, Place):
            left -= 1
        state = apply(state, move)
    if state.winner is not None:
        return (_WIN if state.winner == side else -_WIN), rng
    if state.round == view.round:
        scores = list(state.scores)
        for seat, hand in enumerate(state.hands):
            scores[_side(view.players, seat)] -= round_hand(sum(t.pips for t in hand))
    else:
        last = state.last_round
        assert last is not None
        scores = list(last.scores)
    gains = [scores[s] - start[s] for s in range(len(start))]
    mine = gains[side]
    best_other = max(g for s, g in enumerate(gains) if s != side)
    return mine - best_other, rng
