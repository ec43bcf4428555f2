"""``american-sniff simulate``: a tournament between bots, summarised."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from ..bots import BOTS
from ..tournament import BACKENDS, TournamentSummary, run_tournament
from .options import Command, add_players, add_playouts, add_seed, bot_kinds, positive

__all__ = ["COMMAND", "NAME", "simulate"]

NAME = "simulate"


def simulate(args: argparse.Namespace, out: TextIO, err: TextIO) -> TournamentSummary:
    """Run the tournament that ``args`` describes; print the table (or JSON) to ``out``.

    A progress bar goes to ``err`` when it is a terminal.
    """
    options: dict[str, dict[str, Any]] = {}
    if args.playouts is not None:
        options["search"] = {"playouts": args.playouts}
    progress = _ProgressBar(err) if err.isatty() else None
    summary = run_tournament(
        args.bots,
        players=args.players,
        matches=args.matches,
        seed=args.seed,
        jobs=args.jobs,
        options=options,
        backend=args.backend,
        address=args.address,
        progress=progress,
    )
    if progress is not None:
        progress.close()
    if args.json:
        print(json.dumps(summary.to_dict(), indent=2), file=out)
    else:
        print(summary.table(), file=out)
    return summary


class _ProgressBar:
    """A one-line progress bar, redrawn in place (for a terminal)."""

    def __init__(self, err: TextIO, width: int = 30) -> None:
        self._err = err
        self._width = width

    def __call__(self, done: int, total: int) -> None:
        filled = self._width * done // total
        bar = "#" * filled + "." * (self._width - filled)
        self._err.write(f"\r[{bar}] {done}/{total} matches")
        self._err.flush()

    def close(self) -> None:
        self._err.write("\n")
        self._err.flush()


def _add_backend(parser: argparse.ArgumentParser) -> None:
    """Add ``--backend`` and ``--address``: where the matches are played."""
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="local",
        help="where to play: this machine (default), or a Ray cluster "
        "(pip install 'american-sniff[ray]')",
    )
    parser.add_argument(
        "--address",
        default=None,
        help="with --backend ray: the cluster to join ('auto', 'ray://HOST:10001'); "
        "default: start a local Ray instance with --jobs CPUs",
    )


def _run(args: argparse.Namespace) -> int:
    if len(args.bots) < 2:
        args.parser.error(
            f"--bots needs at least two bot kinds to play against each other, got only "
            f"{args.bots[0]} (for example --bots {args.bots[0]},random)"
        )
    if args.address is not None and args.backend != "ray":
        print("american-sniff simulate: --address needs --backend ray", file=sys.stderr)
        return 2
    try:
        simulate(args, sys.stdout, sys.stderr)
    except RuntimeError as error:  # the ray backend without Ray installed
        print(f"american-sniff simulate: {error}", file=sys.stderr)
        return 2
    return 0


def _options(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``simulate`` to its parser."""
    add_players(parser)
    parser.add_argument(
        "--matches", type=positive, default=100, help="how many matches (default 100)"
    )
    parser.add_argument(
        "--bots",
        type=bot_kinds,
        default=("greedy", "random"),
        help=f"comma-separated bot kinds, each once, from {', '.join(BOTS)} "
        "(default greedy,random)",
    )
    add_seed(parser, "the tournament: every match's deal and bots")
    parser.add_argument(
        "--jobs", type=positive, default=1, help="worker processes on this machine (default 1)"
    )
    add_playouts(parser)
    _add_backend(parser)
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")


#: The command's help, options and run function.
COMMAND = Command(
    NAME,
    summary="play a tournament between bots and summarise it",
    description=(
        "Play seeded matches between bots and print, for each bot, its win rate "
        "with a 95% confidence interval (Wilson) and the points its seats score "
        "per round, then the mean number of rounds per match and the share of "
        "blocked rounds. Seats rotate from match to match, so that no bot keeps "
        "a seat advantage; with 4 players, partners are bots of one kind. The "
        "same seed gives the same results whatever --jobs or --backend is."
    ),
    examples=(
        "american-sniff simulate --matches 200 --bots greedy,random --jobs 2",
        "american-sniff simulate --players 2 --matches 100 --bots search,greedy --json",
        "american-sniff simulate --bots search,greedy --backend ray --address auto",
    ),
    options=_options,
    run=_run,
)
