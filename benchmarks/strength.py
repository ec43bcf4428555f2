"""How the search bot's strength against greedy grows with its budget (a quick look).

The measured tables of ``docs/bots.md`` and ``bots-results.md`` come from
``versus.py`` and ``bot_tables.sh`` instead (seats swapped on each deal,
against the independent DMC bot at equal CPU time, several seeds).

For each playout budget it plays a tournament of two-player matches, search
against greedy (seats alternate, see :mod:`american_sniff.tournament`), and
reports the search bot's win rate with its 95% Wilson interval. It also times
the search bot's choices on a fixed set of positions (every position with two
legal moves or more from seeded greedy-against-greedy matches), by the
process's CPU time, which other processes disturb less than the wall clock.

    python benchmarks/strength.py                      # some minutes
    python benchmarks/strength.py --playouts 1,8 --matches 20 --positions 50
"""

from __future__ import annotations

import argparse
import statistics
import time

from american_sniff import GreedyBot, PlayerView, SearchBot, apply, new_match, view_for
from american_sniff.tournament import run_tournament


def positions(count: int, seed: int) -> list[PlayerView]:
    """``count`` views of the seat to move, each with two legal moves or more."""
    views: list[PlayerView] = []
    bot = GreedyBot()
    match = seed
    while len(views) < count:
        state = new_match(2, seed=match)
        while state.winner is None and len(views) < count:
            view = view_for(state, state.turn)
            if len(view.legal_moves) > 1:
                views.append(view)
            state = apply(state, bot.choose(view))
        match += 1
    return views


def main() -> None:
    """Print the table, one Markdown row per budget."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--playouts", default="1,2,4,8,16,32,64", help="budgets, comma-separated")
    parser.add_argument("--matches", type=int, default=200, help="matches per budget")
    parser.add_argument("--positions", type=int, default=300, help="positions to time")
    parser.add_argument("--seed", type=int, default=1, help="tournament seed")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    args = parser.parse_args()
    views = positions(args.positions, args.seed)
    print(
        "| playouts | search wins | win rate (95% CI) | ms per choice (median, max) | s per match |"
    )
    print("| ---: | ---: | :---: | :---: | ---: |")
    for playouts in (int(p) for p in args.playouts.split(",")):
        bot = SearchBot(seed=1, playouts=playouts)
        times = []
        for view in views:
            start = time.process_time()
            bot.choose(view)
            times.append(time.process_time() - start)
        start = time.process_time()
        summary = run_tournament(
            ["search", "greedy"],
            players=2,
            matches=args.matches,
            seed=args.seed,
            jobs=args.jobs,
            options={"search": {"playouts": playouts}},
        )
        per_match = (time.process_time() - start) / args.matches
        search = summary.bots[0]
        print(
            f"| {playouts} | {search.wins}/{search.matches} | {search.win_rate:.0%} "
            f"({search.low:.0%}-{search.high:.0%}) | {1000 * statistics.median(times):.1f}, "
            f"{1000 * max(times):.1f} | {per_match:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
