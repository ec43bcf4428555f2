"""``american-sniff demo``: a narrated, seeded match between random bots."""

from __future__ import annotations

import argparse
import io
import sys
import textwrap
from collections.abc import Callable
from typing import TextIO

from ..bots import random_match, random_match_bots
from ..layout import Point
from ..records import Recorder
from ..render.text import end_words
from ..rules import RULES_VERSION, has_partners
from ..state import MatchState
from .narrate import (
    Writer,
    action_line,
    round_end_lines,
    round_start_line,
    scores_text,
    winner_line,
)
from .options import Command, add_players, add_seed

__all__ = ["COMMAND", "NAME", "demo"]

NAME = "demo"


def demo(
    players: int,
    seed: int,
    out: Writer,
    *,
    recorder: Recorder | None = None,
    pause: Callable[[int], None] | None = None,
    notation: bool = False,
) -> MatchState:
    """Play and narrate a seeded match between random-legal bots; return its final state.

    The match is :func:`~american_sniff.bots.random_match`: seat ``k`` plays
    with a :class:`~american_sniff.RandomBot` seeded ``seed + k + 1`` (modulo
    2**64), asked only on its own turns with that seat's
    :class:`~american_sniff.PlayerView`. Every state of the match is fed to
    ``recorder``, if one is given. ``pause``, if given, is called with the
    next round's number after each round's settlement, before that round is
    narrated (``demo --pause`` waits for Enter there).

    A placement names the end it was placed on in a player's words ("on the
    5 on the right arm", :func:`~american_sniff.render.text.end_words`), or
    with ``notation`` as the engine writes it (``on [3|5] high``).
    """
    names: dict[Point, str] = {}
    for state in random_match(players, seed):
        if recorder is not None:
            recorder.add(state)
        action = state.last_action
        if action is None:
            _print_start(state, out)
        else:
            line = action_line(action, players, names=None if notation else names)
            for part in textwrap.wrap(line, 80, subsequent_indent="    "):
                print(part, file=out)
        # The words for the ends of the table the next action is played on.
        names = end_words(state.layout)
        if action is None:
            continue
        if action.round_result is not None:
            for line in round_end_lines(action.round_result, players):
                print(line, file=out)
            if pause is not None:
                pause(state.round)
            print(f"\n{round_start_line(state)}", file=out)
    winner = state.winner
    assert winner is not None  # random_match ends with the won state
    print(f"\n{winner_line(players, winner, state.scores[winner], state.round)}", file=out)
    print(f"Final scores: {scores_text(players, state.scores)}", file=out)
    return state


def _print_start(state: MatchState, out: Writer) -> None:
    """The match's heading and its first round's opener."""
    print(
        f"American Sniff (rules version {RULES_VERSION}): {state.players} players, "
        f"seed {state.seed}, target {state.target}",
        file=out,
    )
    if has_partners(state.players):
        print("Partnerships: seats 0+2 against seats 1+3", file=out)
    print(f"\n{round_start_line(state)}", file=out)


def _waiter(inp: TextIO, out: TextIO) -> Callable[[int], None]:
    """A pause between rounds: it asks for Enter on ``out`` and reads a line of ``inp``.

    Once ``inp`` ends (or is closed), it stops asking and the rest is narrated at once.
    """
    ended = False

    def pause(round_number: int) -> None:
        nonlocal ended
        if ended:
            return
        out.write(f"Press Enter for round {round_number}. ")
        out.flush()
        try:
            ended = not inp.readline()
        except (OSError, ValueError):
            ended = True
        if ended:
            out.write("\n")

    return pause


def _run(args: argparse.Namespace) -> int:
    # One round at a time on a terminal (or with --pause), unless --all.
    paced = args.pause or (not args.all and sys.stdout.isatty() and sys.stdin is not None)
    pause = _waiter(sys.stdin, sys.stdout) if paced and sys.stdin is not None else None
    if args.record is None:
        demo(args.players, args.seed, sys.stdout, pause=pause, notation=args.notation)
        return 0
    # The file is opened first, so that a path that cannot be written fails at once.
    try:
        file = open(args.record, "w", encoding="utf-8")  # noqa: SIM115 (closed below)
    except OSError as error:
        return _cannot_write(args.record, error)
    # The record is written whole even if the narration's reader goes away.
    out = _PipeSafe(sys.stdout)
    names = [repr(bot) for bot in random_match_bots(args.players, args.seed)]
    recorder = Recorder(names)
    demo(args.players, args.seed, out, recorder=recorder, pause=pause, notation=args.notation)
    try:
        with file:
            file.write(recorder.record().to_json(pretty=True) + "\n")
    except OSError as error:
        return _cannot_write(args.record, error)
    if out.broken:
        raise BrokenPipeError  # the command line exits as a broken pipe does
    print(f"Record written to {args.record}")
    return 0


def _cannot_write(path: str, error: OSError) -> int:
    print(
        f"american-sniff demo: cannot write the record to {path}: {error.strerror or error}",
        file=sys.stderr,
    )
    return 1


class _PipeSafe(io.TextIOBase):
    """A text stream that stops writing, without raising, once its reader has gone."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        #: Whether a write failed because the reader went away.
        self.broken = False

    def write(self, text: str) -> int:
        if not self.broken:
            try:
                self._stream.write(text)
            except BrokenPipeError:
                self.broken = True
        return len(text)


def _options(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``demo`` to its parser."""
    add_players(parser)
    add_seed(parser, "the deal, the lots and the bots")
    parser.add_argument(
        "--record",
        metavar="FILE",
        help="also write the match record (JSON) to FILE, replacing it",
    )
    parser.add_argument(
        "--notation",
        action="store_true",
        help="name the ends placed on as the engine writes them ([3|5] high) instead "
        "of in a player's words (the 5 on the right arm)",
    )
    pacing = parser.add_mutually_exclusive_group()
    pacing.add_argument(
        "--pause",
        action="store_true",
        help="one round at a time: wait for Enter after each round's settlement (the "
        "default when the output is a terminal; with --pause also when it is piped)",
    )
    pacing.add_argument(
        "--all",
        action="store_true",
        help="print the whole match at once, also on a terminal (the default when the "
        "output is piped or written to a file)",
    )


#: The command's help, options and run function.
COMMAND = Command(
    NAME,
    summary="play and narrate a seeded match between random bots",
    description=(
        "Play a whole match between random-legal bots and narrate it: every "
        "placement with its end sum and points, every draw and pass, each "
        "round's settlement with the revealed hands, and the winner. The same "
        "seed always gives the same match. With --record, the match is also "
        "written to a file as a match record, which 'american-sniff check' checks. "
        "With --pause the match is shown one round at a time, Enter going on to "
        "the next; on a terminal that is the default, and --all prints it at once. "
        "Placements name the ends in a player's words (--notation: the engine's)."
    ),
    examples=(
        "american-sniff demo --pause",
        "american-sniff demo --players 2 --seed 42",
        "american-sniff demo --seed 7 --record match.json",
        "american-sniff demo --players 2 --all | less",
    ),
    options=_options,
    run=_run,
)
