"""Decision quality offline: a bot's regret against an oracle that sees every hand.

Whole matches give a win rate whose 95% interval is about +-5 points at 400
matches, too wide to see most changes to the search. This measures single
decisions instead, with far less noise:

1. *Positions.* Pairs of matches (seats swapped) of ``--a`` against ``--b``
   are played; every decision of ``--a`` with two legal moves or more and no
   placement that wins at once is kept, with the true state, until there are
   ``--positions``.
2. *The oracle.* For each position, every legal move is played on the true
   state, with the true hands and ``--samples`` random orders of the stock,
   then on with the search bot's playouts (greedy, 4 placements) and scored
   by :func:`~american_sniff.bots.search.playout_value`. That is the search's
   own evaluation, given everything it cannot see.
3. *Regret.* Each bot chooses from the view alone; its regret is the
   oracle's value of the best move less that of the move chosen, in points,
   averaged over the positions, with the share of decisions where it picks
   the oracle's best, and its CPU milliseconds per decision.

So regret measures how well a bot reads the hidden hands (and samples), not
how good the evaluation is: an oracle that sees the hands but not the stock
order scores close to 0. ::

    python benchmarks/regret.py search:playouts=8 sir:playouts=8,beta=1 dmc:deals=10
    python benchmarks/regret.py --players 4 --positions 300 search:playouts=64

With ``--endgame`` only decisions with the stock empty are kept, and the
oracle is the exact search of the rest of the round on the true hands
(:func:`~american_sniff.bots.endgame.endgame_values`, up to
:data:`EXACT_NODES` positions; a decision that needs more is left out), so
the regret is against exact play (with two players, exactly what the view
allows)::

    python benchmarks/regret.py --endgame --a search:playouts=8 --b dmc:deals=10 \
        searchn:playouts=8 search16:playouts=8 search:playouts=8 search256:playouts=8

With four players the true hands are more than any view can tell, so the
exact oracle's regret has a floor well above 0 for every bot that sees only
its view. ``--endgame --view-worlds K`` values each move instead by what the
view allows: the mean exact value over K deals drawn uniformly from those
that agree with the view (the same deals for every move). Its regret is what
a decision gives up against perfect play of the rest *given the view*, the
value the search's own kind converges to with an unlimited budget; it
measures what a node or playout budget costs, not the reading of the hands::

    python benchmarks/regret.py --endgame --view-worlds 256 --players 4 \
        --positions 200 --a expert --b dmc:deals=22 expert
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from american_sniff import (
    ALL_TILES,
    MatchState,
    PlayerView,
    RoundInfo,
    apply,
    new_match,
    view_for,
)
from american_sniff.bots import winning_moves
from american_sniff.bots.endgame import endgame_values
from american_sniff.bots.search import Determiniser, playout_value
from american_sniff.rng import next_u64, shuffled
from american_sniff.rules import side_of
from search_variants import play_out
from versus import deal_seeds, make


def collect(  # noqa: PLR0913 - the cell, the seed and the filter
    spec_a: str, spec_b: str, players: int, count: int, seed: int, *, empty_stock: bool = False
) -> list[tuple[MatchState, PlayerView]]:
    """``count`` decisions of ``spec_a`` (state and view) from its matches against ``spec_b``.

    With ``empty_stock``, only decisions with the stock empty are kept.
    """
    out: list[tuple[MatchState, PlayerView]] = []
    for deal in deal_seeds(seed, 10_000):
        for a_side in (0, 1):
            bots = [
                make(spec_a if side_of(players, s) == a_side else spec_b, deal + s + 1)
                for s in range(players)
            ]
            state = new_match(players, seed=deal)
            while state.winner is None:
                view = view_for(state, state.turn)
                if len(view.legal_moves) == 1:
                    state = apply(state, view.legal_moves[0])
                    continue
                if (
                    side_of(players, state.turn) == a_side
                    and not winning_moves(view)
                    and (state.stock_size == 0 or not empty_stock)
                ):
                    out.append((state, view))
                    if len(out) == count:
                        return out
                state = apply(state, bots[state.turn].choose(view))
    return out


def oracle(state: MatchState, view: PlayerView, samples: int, rng: int = 12345) -> list[float]:
    """The mean playout value of each legal move of ``view`` on the true hands."""
    seen = set(state.layout.tiles)
    for hand in state.hands:
        seen.update(hand)
    stock = tuple(t for t in ALL_TILES if t not in seen)
    totals = [0.0] * len(view.legal_moves)
    for _ in range(samples):
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
        world = MatchState(
            info, view.turn, state.hands, view.layout, view.scores, None, view.drawn, 0
        )
        for index, move in enumerate(view.legal_moves):
            end = play_out(apply(world, move), False, 4)
            totals[index] += playout_value(world, end, view.seat)
    return [total / samples for total in totals]


#: The most positions the exact oracle of ``--endgame`` searches; a decision
#: that needs more is left out.
EXACT_NODES = 200_000


def exact(state: MatchState, view: PlayerView, nodes: int = EXACT_NODES) -> list[float] | None:
    """The exact value of each legal move of ``view`` to the round's end, on the true hands.

    None if that takes more than ``nodes`` positions.
    """
    found = endgame_values(state, view.seat, view.legal_moves, nodes)
    return None if found is None else found[0]


def view_exact(
    view: PlayerView, worlds: int, nodes: int = EXACT_NODES, rng: int = 4242
) -> list[float] | None:
    """The mean exact value of each legal move of ``view`` over ``worlds`` deals the view allows.

    The deals are drawn uniformly among those that agree with everything the
    view shows (:class:`~american_sniff.bots.search.Determiniser`, the
    seats' history included), the same ones for every move; each is searched
    exactly to the round's end. This is the value of a move to a player who
    knows only what the view shows and plays the rest perfectly: what an
    unlimited budget of the search's own kind converges to. None if a deal
    takes more than ``nodes`` positions.
    """
    determiniser = Determiniser(view)
    totals = [0.0] * len(view.legal_moves)
    for _ in range(worlds):
        world, rng = determiniser.sample(rng)
        found = endgame_values(world, view.seat, view.legal_moves, nodes)
        if found is None:
            return None
        totals = [total + value for total, value in zip(totals, found[0], strict=True)]
    return [total / worlds for total in totals]


def main() -> None:
    """Collect the positions, value them, and print each bot's regret."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bots", nargs="+", help="bot specs, as in versus.py")
    parser.add_argument("--players", type=int, default=2, choices=(2, 4))
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--samples", type=int, default=64, help="stock orders per oracle value")
    parser.add_argument("--a", default="search:playouts=8", help="whose decisions are kept")
    parser.add_argument("--b", default="dmc:deals=10", help="its opponent in those matches")
    parser.add_argument("--seed", type=int, default=777)
    parser.add_argument("--bot-seed", type=int, default=1)
    parser.add_argument(
        "--true-hands",
        type=int,
        nargs="*",
        default=(),
        help="also rate the oracle itself with these numbers of stock orders (other orders)",
    )
    parser.add_argument(
        "--endgame",
        action="store_true",
        help="keep only decisions with the stock empty, valued by the exact search on the true"
        " hands (endgame_values, unbounded) instead of the playouts",
    )
    parser.add_argument(
        "--view-worlds",
        type=int,
        default=0,
        metavar="K",
        help="with --endgame: value the moves by what the view allows instead of the true"
        " hands, the mean exact value over K deals drawn uniformly from those it allows",
    )
    parser.add_argument(
        "--exact-nodes",
        type=int,
        default=EXACT_NODES,
        help=f"with --endgame: the oracle's most positions a deal (default {EXACT_NODES})",
    )
    args = parser.parse_args()
    if args.view_worlds and not args.endgame:
        parser.error("--view-worlds values endgame decisions: give --endgame too")
    positions = collect(
        args.a, args.b, args.players, args.positions, args.seed, empty_stock=args.endgame
    )
    if args.endgame and args.view_worlds:
        valued = [
            (position, view_exact(position[1], args.view_worlds, args.exact_nodes))
            for position in positions
        ]
        positions = [position for position, value in valued if value is not None]
        values = [value for _, value in valued if value is not None]
        print(
            f"{len(positions)} positions ({len(valued) - len(positions)} left out: more than"
            f" {args.exact_nodes} nodes), {args.players} players, the stock empty, exact values"
            f" over {args.view_worlds} deals that the view allows"
        )
    elif args.endgame:
        valued = [(position, exact(*position, args.exact_nodes)) for position in positions]
        positions = [position for position, value in valued if value is not None]
        values = [value for _, value in valued if value is not None]
        print(
            f"{len(positions)} positions ({len(valued) - len(positions)} left out: more than"
            f" {args.exact_nodes} nodes), {args.players} players, the stock empty, exact values"
        )
    else:
        values = [oracle(state, view, args.samples) for state, view in positions]
        print(f"{len(positions)} positions, {args.players} players, oracle {args.samples} samples")
    print("| bot | regret (points) | picks the oracle's best | ms |")
    print("| :--- | ---: | ---: | ---: |")
    for spec in args.bots:
        bot = make(spec, args.bot_seed)
        regret, best = 0.0, 0
        start = time.process_time()
        for (_, view), value in zip(positions, values, strict=True):
            chosen = value[view.legal_moves.index(bot.choose(view))]
            regret += max(value) - chosen
            best += chosen == max(value)
        ms = 1000 * (time.process_time() - start) / len(positions)
        n = len(positions)
        print(f"| {spec} | {regret / n:.2f} | {best / n:.1%} | {ms:.2f} |", flush=True)
    for samples in args.true_hands:
        regret, best = 0.0, 0
        for (state, view), value in zip(positions, values, strict=True):
            mine = oracle(state, view, samples, rng=999)
            chosen = value[mine.index(max(mine))]
            regret += max(value) - chosen
            best += chosen == max(value)
        n = len(positions)
        print(f"| true hands, {samples} stock orders | {regret / n:.2f} | {best / n:.1%} | |")


if __name__ == "__main__":
    main()
