"""``american-sniff demo``: a narrated, seeded match between random bots."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from ..bots import RandomBot
from ..engine import apply, new_match
from ..records import Recorder
from ..rng import MASK64
from ..rules import RULES_VERSION
from ..state import MatchState
from .narrate import action_line, round_end_lines, round_start_line, scores_text, side_name
from .options import add_players, add_seed

__all__ = ["NAME", "bot_seed", "demo", "register"]

NAME = "demo"


def bot_seed(seed: int, seat: int) -> int:
    """The seed of the demo's bot at ``seat``: ``seed + seat + 1`` (modulo 2**64)."""
    return (seed + seat + 1) & MASK64


def demo(players: int, seed: int, out: TextIO, *, recorder: Recorder | None = None) -> MatchState:
    """Play and narrate a seeded match between random-legal bots; return its final state.

    Seat ``k`` plays with a :class:`~american_sniff.bots.RandomBot` seeded
    :func:`bot_seed` ``(seed, k)``. Every state of the match is fed to
    ``recorder``, if one is given.
    """
    state = new_match(players, seed=seed)
    bots = [RandomBot(seed=bot_seed(seed, seat)) for seat in range(players)]
    if recorder is not None:
        recorder.add(state)
    print(
        f"American Sniff (rules version {RULES_VERSION}): {players} players, seed {seed}, "
        f"target {state.target}",
        file=out,
    )
    if players == 4:
        print("Partnerships: seats 0+2 against seats 1+3", file=out)
    print(f"\n{round_start_line(state)}", file=out)
    while state.winner is None:
        state = apply(state, bots[state.turn].choose(state))
        if recorder is not None:
            recorder.add(state)
        action = state.last_action
        assert action is not None  # every state after an apply has one
        print(action_line(action, players), file=out)
        if action.round_result is not None:
            for line in round_end_lines(action.round_result, players):
                print(line, file=out)
            print(f"\n{round_start_line(state)}", file=out)
    winner = state.winner
    print(
        f"\n{side_name(players, winner).capitalize()} reached {state.scores[winner]} "
        f"points and wins the match in round {state.round}.",
        file=out,
    )
    print(f"Final scores: {scores_text(players, state.scores)}", file=out)
    return state


def register(commands: Any) -> argparse.ArgumentParser:
    """Add the ``demo`` command to ``commands`` (an argparse subparsers object)."""
    parser: argparse.ArgumentParser = commands.add_parser(
        NAME,
        help="play and narrate a seeded match between random bots",
        description=(
            "Play a whole match between random-legal bots and narrate it: every "
            "placement with its end sum and points, every draw and pass, each "
            "round's settlement with the revealed hands, and the winner. The same "
            "seed always gives the same match. With --record, the match is also "
            "written to a file as a match record, which 'american-sniff check' checks."
        ),
        epilog=(
            "examples:\n"
            "  american-sniff demo\n"
            "  american-sniff demo --players 2 --seed 42\n"
            "  american-sniff demo --seed 7 --record match.json"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_players(parser)
    add_seed(parser, "the deal, the lots and the bots")
    parser.add_argument(
        "--record",
        metavar="FILE",
        help="also write the match record (JSON) to FILE, replacing it",
    )
    parser.set_defaults(run=_run)
    return parser


def _run(args: argparse.Namespace) -> int:
    if args.record is None:
        demo(args.players, args.seed, sys.stdout)
        return 0
    # The file is opened first, so that a path that cannot be written fails at once.
    try:
        file = open(args.record, "w", encoding="utf-8")  # noqa: SIM115 (closed below)
    except OSError as error:
        print(
            f"american-sniff demo: cannot write the record to {args.record}: "
            f"{error.strerror or error}",
            file=sys.stderr,
        )
        return 1
    with file:
        names = [f"RandomBot(seed={bot_seed(args.seed, seat)})" for seat in range(args.players)]
        recorder = Recorder(names)
        demo(args.players, args.seed, sys.stdout, recorder=recorder)
        file.write(recorder.record().to_json(pretty=True) + "\n")
    print(f"Record written to {args.record}")
    return 0
