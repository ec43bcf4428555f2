"""The ``american-sniff`` command line."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from . import __version__
from .bots import RandomBot
from .engine import apply, new_match
from .moves import Draw, Pass, Place
from .rng import MASK64, check_seed
from .rules import RULES_VERSION, side_of
from .state import MatchState, RoundEnd, RoundResult

__all__ = ["demo", "main"]


def _side_name(players: int, side: int) -> str:
    if players == 4:
        return f"seats {side}+{side + 2}"
    return f"seat {side}"


def _scores_text(players: int, scores: Sequence[int]) -> str:
    return ", ".join(f"{_side_name(players, side)}: {score}" for side, score in enumerate(scores))


def _hand_text(hand: Sequence[object]) -> str:
    return " ".join(str(tile) for tile in hand) if hand else "(empty)"


def _print_round_start(state: MatchState, out: TextIO) -> None:
    previous = state.last_round
    if previous is None or previous.end is RoundEnd.BLOCKED:
        how = "chosen by lot"
    else:
        how = "went out last round"
    print(f"\nRound {state.round}: seat {state.opener} opens ({how})", file=out)


def _print_action(before: MatchState, after: MatchState, out: TextIO) -> None:
    move = after.last_move
    seat = after.last_seat
    if isinstance(move, Draw):
        print(f"  seat {seat} draws {before.stock[0]}", file=out)
        return
    if isinstance(move, Pass):
        print(f"  seat {seat} passes", file=out)
        return
    assert isinstance(move, Place)
    # A placement that ends the round is shown on the table the round left.
    ended = after.last_round if after.round != before.round else None
    table = after.layout if ended is None else ended.layout
    line = f"  seat {seat} places {move}"
    score = f"sum {table.end_sum:2d}"
    if after.last_points:
        # The scores right after the placement, before any settlement.
        scores = list(before.scores)
        scores[side_of(before.players, before.turn)] += after.last_points
        score += f"  scores {after.last_points}  ({_scores_text(after.players, scores)})"
    print(f"{line:<44}{score}", file=out)


def _print_round_end(result: RoundResult, players: int, out: TextIO) -> None:
    if result.end is RoundEnd.DOMINO:
        print(f"  Round {result.round} ends: seat {result.finisher} went out", file=out)
    else:
        print(
            f"  Round {result.round} ends blocked: the stock is empty and nobody can place",
            file=out,
        )
    for seat, (hand, deduction) in enumerate(zip(result.hands, result.deductions, strict=True)):
        pips = sum(tile.pips for tile in hand)
        print(
            f"    seat {seat}: {_hand_text(hand)}  = {pips} pips, loses {deduction}",
            file=out,
        )
    print(f"  Scores: {_scores_text(players, result.scores)}", file=out)


def demo(players: int, seed: int, out: TextIO) -> MatchState:
    """Play and narrate a seeded match between random-legal bots; return its final state."""
    state = new_match(players, seed=seed)
    bots = [RandomBot(seed=(seed + seat + 1) & MASK64) for seat in range(players)]
    print(
        f"American Sniff (rules version {RULES_VERSION}): {players} players, seed {seed}, "
        f"target {state.target}",
        file=out,
    )
    if players == 4:
        print("Partnerships: seats 0+2 against seats 1+3", file=out)
    _print_round_start(state, out)
    while state.winner is None:
        after = apply(state, bots[state.turn].choose(state))
        _print_action(state, after, out)
        if after.round != state.round:
            assert after.last_round is not None
            _print_round_end(after.last_round, players, out)
            _print_round_start(after, out)
        state = after
    print(
        f"\n{_side_name(players, state.winner).capitalize()} reached {state.scores[state.winner]} "
        f"points and wins the match in round {state.round}.",
        file=out,
    )
    print(f"Final scores: {_scores_text(players, state.scores)}", file=out)
    return state


def _seed(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    try:
        return check_seed(value)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="american-sniff",
        description="The reference rules engine for the domino game American Sniff.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    demo_parser = commands.add_parser(
        "demo", help="play and narrate a seeded match between random bots"
    )
    demo_parser.add_argument(
        "--players", type=int, choices=(2, 3, 4), default=4, help="number of players (default 4)"
    )
    demo_parser.add_argument(
        "--seed", type=_seed, default=1, help="seed for the deal, the lots and the bots (default 1)"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "demo":
            demo(args.players, args.seed, sys.stdout)
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, as Unix tools do.
        # Point stdout at devnull so the interpreter's final flush cannot fail.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return 0


if __name__ == "__main__":  # pragma: no cover - exercised through the entry point
    sys.exit(main())
