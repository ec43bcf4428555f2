"""``american-sniff play``: play a match against bots in the terminal.

Everything shown to the human comes from their seat's
:class:`~american_sniff.PlayerView`: the other hands and the stock stay hidden
until a round's settlement reveals the hands.

The table and the paper tally are drawn by :mod:`american_sniff.render`, as
text for the terminal.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, TextIO, cast

from ..bots import Bot, make_bot
from ..engine import apply, new_match
from ..layout import Layout
from ..moves import Draw, Move, Pass, Place
from ..render import render_text, tally_text
from ..rng import MASK64
from ..rules import RULES_VERSION, placement_points
from ..state import MatchState, RoundEnd
from ..views import PlayerView, view_for
from .narrate import action_line, hand_text, round_end_lines, side_name
from .options import Command, add_players, add_playouts, add_seed, bot_list

__all__ = ["COMMAND", "NAME", "opponents", "play", "table_lines", "tally_lines"]

NAME = "play"


# -- drawing ------------------------------------------------------------------------


def table_lines(layout: Layout) -> list[str]:
    """The table drawn for the terminal, with its counted ends and end sum.

    >>> from american_sniff import Layout, Tile
    >>> table_lines(Layout.empty().place(Tile(1, 4)))[-1]
    'End sum: 5, scores 5'
    """
    return render_text(layout).splitlines()


def tally_lines(score: int) -> list[str]:
    """A score as the rules' paper tally (a stroke per 5 points, a figure per 50)."""
    return tally_text(score).splitlines()


# -- the game --------------------------------------------------------------------


def opponents(players: int, seat: int, names: Sequence[str]) -> dict[int, str]:
    """The bot kind of each seat but ``seat``: one name for all, or one per seat in order.

    >>> opponents(4, 1, ["search"])
    {0: 'search', 2: 'search', 3: 'search'}
    >>> opponents(3, 0, ["greedy", "random"])
    {1: 'greedy', 2: 'random'}

    :raises ValueError: if ``names`` is neither one name nor one per other seat,
        or ``seat`` is not a seat of the match.
    """
    if not 0 <= seat < players:
        raise ValueError(f"--seat must be from 0 to {players - 1} with {players} players")
    others = [s for s in range(players) if s != seat]
    if len(names) == 1:
        return dict.fromkeys(others, names[0])
    if len(names) != len(others):
        raise ValueError(
            f"--bots names one bot for every other seat or one per seat ({len(others)} "
            f"with {players} players), got {len(names)}"
        )
    return dict(zip(others, names, strict=True))


def play(
    players: int,
    seed: int,
    seat: int,
    bot_names: Sequence[str],
    inp: TextIO,
    out: TextIO,
    options: dict[str, Any] | None = None,
) -> MatchState:
    """Play a match with a human at ``seat`` (reading ``inp``) against bots; narrate to ``out``.

    The bot in seat ``k`` is seeded ``seed + k + 1`` (modulo 2**64), as in the
    demo. The human answers each choice with a move number; ``q`` or the end
    of ``inp`` stops the match. Returns the last state (over, or where the
    human stopped).

    :raises ValueError: if the seat or the bot names do not fit the match.
    """
    kinds = opponents(players, seat, bot_names)
    bots: dict[int, Bot] = {
        s: make_bot(name, (seed + s + 1) & MASK64, **(options or {}).get(name, {}))
        for s, name in kinds.items()
    }
    state = new_match(players, seed=seed)
    say = _Printer(out)
    say(
        f"American Sniff (rules version {RULES_VERSION}): {players} players, seed {seed}, "
        f"target {state.target}. You are seat {seat}."
    )
    if players == 4:
        say(f"Partnerships: seats 0+2 against seats 1+3; your partner is seat {(seat + 2) % 4}.")
    for other, bot in bots.items():
        say(f"Seat {other}: {bot!r}")
    view = view_for(state, seat)
    say("", _round_start(view))
    while state.winner is None:
        turn = state.turn
        if turn == seat:
            move = _human_move(view_for(state, seat), inp, out)
            if move is None:
                say("", f"You stopped in round {state.round}.")
                _scores(say, view_for(state, seat))
                return state
        else:
            move = bots[turn].choose(view_for(state, turn))
        state = apply(state, move)
        view = view_for(state, seat)
        action = view.last_action
        assert action is not None  # every state after an apply has one
        say(action_line(action, players))
        result = action.round_result
        if result is not None:
            say(*round_end_lines(result, players))
            _tally(say, view)
            say("", _round_start(view))
    winner = view.winner
    assert winner is not None
    mine = view.seat % 2 if players == 4 else view.seat
    say(
        "",
        f"{side_name(players, winner).capitalize()} reached {view.scores[winner]} points "
        f"and wins the match in round {view.round}: you {'win' if winner == mine else 'lose'}.",
    )
    _scores(say, view)
    return state


class _Printer:
    """Print lines to one stream."""

    def __init__(self, out: TextIO) -> None:
        self._out = out

    def __call__(self, *lines: str) -> None:
        for line in lines:
            print(line, file=self._out)


def _round_start(view: PlayerView) -> str:
    previous = view.last_round
    how = "chosen by lot" if previous is None or previous.end is RoundEnd.BLOCKED else "went out"
    return f"Round {view.round}: seat {view.opener} opens ({how})"


def _scores(say: _Printer, view: PlayerView) -> None:
    say(f"Scores: {', '.join(_side_scores(view))}")
    _tally(say, view)


def _side_scores(view: PlayerView) -> list[str]:
    return [f"{side_name(view.players, s)}: {score}" for s, score in enumerate(view.scores)]


def _tally(say: _Printer, view: PlayerView) -> None:
    say("Tally:")
    for side, score in enumerate(view.scores):
        label = f"  {side_name(view.players, side)}: "
        lines = tally_lines(score)
        middle = len(lines) // 2
        for index, line in enumerate(lines):
            say((label if index == middle else " " * len(label)) + line)


def _move_text(view: PlayerView, move: Place) -> str:
    end_sum = view.layout.place(move.tile, move.at).end_sum
    points = placement_points(end_sum)
    return f"{move}  (sum {end_sum}{f', scores {points}' if points else ''})"


def _human_move(view: PlayerView, inp: TextIO, out: TextIO) -> Move | None:
    """The move the human picks, or None to stop; a lone draw or pass is made for them."""
    say = _Printer(out)
    moves = view.legal_moves
    if len(moves) == 1 and isinstance(moves[0], (Draw, Pass)):
        return moves[0]  # no choice: the narration shows it
    say("", *table_lines(view.layout))
    others = ", ".join(f"seat {s} {n}" for s, n in enumerate(view.hand_sizes) if s != view.seat)
    say(f"Tiles held: {others}; stock {view.stock_size}. Scores: {', '.join(_side_scores(view))}")
    say(f"Your hand: {hand_text(view.hand)}")
    if view.drawn is not None:
        say(f"You drew {view.drawn}, which fits: you must place it.")
    say("Your moves:")
    # With a choice to make, every legal move is a placement.
    for number, move in enumerate(cast("tuple[Place, ...]", moves), start=1):
        say(f"  {number:2d}. {_move_text(view, move)}")
    count = len(moves)
    while True:
        out.write(f"Your move (1-{count}, q to quit): ")
        out.flush()
        line = inp.readline()
        if not line:
            say("", "(end of input)")
            return None
        answer = line.strip()
        if not inp.isatty():
            say(answer)  # show piped answers, as a terminal would echo them
        if answer.lower() in ("q", "quit"):
            return None
        try:
            number = int(answer)
        except ValueError:
            say(f"  {answer!r} is not a move number: enter 1 to {count}, or q to quit.")
            continue
        if not 1 <= number <= count:
            say(f"  There is no move {number}: enter 1 to {count}, or q to quit.")
            continue
        return moves[number - 1]


def _run(args: argparse.Namespace) -> int:
    options = {} if args.playouts is None else {"search": {"playouts": args.playouts}}
    try:
        opponents(args.players, args.seat, args.bots)
    except ValueError as error:
        args.parser.error(str(error))
    play(args.players, args.seed, args.seat, args.bots, sys.stdin, sys.stdout, options)
    return 0


def _options(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``play`` to its parser."""
    add_players(parser, default=2)
    parser.add_argument(
        "--bots",
        type=bot_list,
        default=("search",),
        help="the bots: one kind for every other seat, or one per other seat in seat "
        "order, comma-separated (default search)",
    )
    add_seed(parser, "the deal, the lots and the bots")
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    add_playouts(parser)


#: The command's help, options and run function.
COMMAND = Command(
    NAME,
    summary="play a match against bots in the terminal",
    description=(
        "Play a match against bots. Each time you can place, the table, your "
        "hand and your numbered legal moves are shown: answer with a move's "
        "number (q quits). Draws and passes with no choice are made for you. "
        "Every placement is shown with the end sum and its points, the others' "
        "draws without their tiles, and each round's settlement with every hand "
        "revealed, the scores and their paper tally. Moves can be piped in, one "
        "number per line; the end of the input quits."
    ),
    examples=(
        "american-sniff play --players 2 --seed 1",
        "american-sniff play --players 4 --bots search,greedy,search --seat 1",
        "yes 1 | american-sniff play --players 2 --seed 1",
    ),
    options=_options,
    run=_run,
)
