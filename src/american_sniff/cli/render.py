"""``american-sniff render``: draw the table after any action of a recorded match."""

from __future__ import annotations

import argparse
import sys

from ..errors import InvalidRecord
from ..layout import Layout
from ..records import MatchRecord, load_record, replay
from ..render import render_svg, render_text, tally_svg, tally_text
from .options import BOX_DRAWING, Command, can_encode

__all__ = ["COMMAND", "NAME", "position"]

NAME = "render"


def position(
    record: MatchRecord, round_number: int, step: int | None
) -> tuple[Layout, tuple[int, ...]]:
    """The table of round ``round_number`` right after its action ``step``, and the scores then.

    Actions count from 0 within the round; ``step`` None means the round's
    last action, and ``-1`` the empty table before its first action. The
    scores are those after the action, settlement included.

    :raises InvalidRecord: if the record cannot be replayed up to there.
    :raises ValueError: if the round or the action is not in the record.
    """
    if not 1 <= round_number <= len(record.rounds):
        raise ValueError(
            f"the record has rounds 1 to {len(record.rounds)}, not round {round_number}"
        )
    actions = len(record.rounds[round_number - 1].actions)
    last = actions - 1 if step is None else step
    if not -1 <= last < actions:
        held = f"actions 0 to {actions - 1}" if actions else "no action"
        raise ValueError(f"round {round_number} has {held}, not action {last}")
    index = -1  # the last action of the round seen so far
    for state in replay(record):
        action = state.last_action
        result = None if action is None else action.round_result
        if result is not None and result.round == round_number:
            index += 1  # the action that ended the round: its table is in the result
            if index == last:
                return result.layout, state.scores
        elif state.round == round_number:
            if state.history:
                index += 1
            if index == last:
                return state.layout, state.scores
    raise ValueError(f"round {round_number} stops before action {last}")  # pragma: no cover


def _run(args: argparse.Namespace) -> int:
    try:
        record = load_record(args.record)
        layout, scores = position(record, args.round_number, args.step)
        if args.tally is not None and not 0 <= args.tally < len(scores):
            raise ValueError(f"--tally: the sides are 0 to {len(scores) - 1}, not {args.tally}")
    except (InvalidRecord, ValueError, OSError) as error:
        print(f"american-sniff render: {error}", file=sys.stderr)
        return 2
    if args.tally is not None:
        score = scores[args.tally]
        svg, text = tally_svg(score), f"side {args.tally}: {score}\n{tally_text(score)}"
    else:
        svg, text = (
            render_svg(layout),
            render_text(layout, unicode=not args.ascii and can_encode(sys.stdout, BOX_DRAWING)),
        )
    if not args.svg:
        print(text)
        return 0
    try:
        with open(args.svg, "w", encoding="utf-8") as out:
            out.write(svg)
    except OSError as error:
        print(f"american-sniff render: cannot write {args.svg}: {error.strerror}", file=sys.stderr)
        return 1
    return 0


def _options(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``render`` to its parser."""
    parser.add_argument("record", metavar="RECORD", help="a match record (JSON)")
    parser.add_argument(
        "--round", type=int, default=1, dest="round_number", help="the round (default 1)"
    )
    parser.add_argument(
        "--step",
        type=int,
        default=None,
        help="the action of the round, from 0 (-1: before the first); default: its last",
    )
    parser.add_argument("--svg", metavar="FILE", help="write an SVG figure to FILE")
    parser.add_argument(
        "--tally",
        type=int,
        metavar="SIDE",
        help="draw the paper tally of SIDE's score at that point instead of the table",
    )
    parser.add_argument(
        "--ascii",
        action="store_true",
        help="draw the text with ASCII characters only (chosen by itself when the "
        "output cannot show box-drawing characters)",
    )


#: The command's help, options and run function.
COMMAND = Command(
    NAME,
    summary="draw the table after an action of a recorded match (text or SVG)",
    description=(
        "Replay a match record and draw the table right after one action: as "
        "text on the terminal, or as an SVG figure in the style of the rules' "
        "figures (pips, the Sniff outlined, each counted end with its value, "
        "the open points that do not count hollow, a caption with the sum and "
        "the points). Actions are counted from 0 within their round, as the "
        "referee counts them."
    ),
    examples=(
        "american-sniff demo --seed 7 --record match.json",
        "american-sniff render match.json --round 1",
        "american-sniff render match.json --round 2 --step 5 --svg table.svg",
        "american-sniff render match.json --round 3 --tally 0 --svg tally.svg",
    ),
    options=_options,
    run=_run,
)
