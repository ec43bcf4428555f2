"""``american-sniff play``: play a match against bots in the terminal.

Everything shown to the human comes from their seat's
:class:`~american_sniff.PlayerView`: the other hands and the stock stay hidden
until a round's settlement reveals the hands.

Each decision is one screen that fits a terminal of 80 by 24: the scores, the
tiles held, what the others did since your move, the table (drawn in compact
glyphs by :mod:`american_sniff.render.compact`, its arms turning at the edge),
the hand and the numbered moves, with the prompt last. At the prompt, a move
is a number, a tile, or its notation (``[2|5] on [3|5] high``); Enter alone
plays the only move; ``h`` asks the search bot for a hint, ``u`` takes back
the last move, ``?`` shows the keys and ``q`` stops (offering to save the match to resume it).
"""

from __future__ import annotations

import argparse
import math
import os
import re
import secrets
import sys
import textwrap
from collections.abc import Sequence
from typing import Any, TextIO

from ..bots import Bot
from ..engine import apply, new_match
from ..errors import IllegalMove, InvalidRecord
from ..layout import Layout, Point, Side
from ..moves import Draw, Move, Pass, Place, parse_move
from ..records import MatchRecord, dump_record, load_record, record_match, replay
from ..render import render_text, tally_text
from ..render.compact import compact_drawing
from ..render.text import compact_text, end_labels, end_words
from ..rules import RULES_VERSION, has_partners, partner_of, placement_points, side_of
from ..session import Seeding, Session, SessionView, hint_reason
from ..state import Action, MatchState, RoundResult
from ..tiles import Tile
from ..views import PlayerView, view_for
from .narrate import (
    action_line,
    hand_text,
    round_end_lines,
    round_start_line,
    seat_name,
    side_name,
    winner_line,
)
from .options import BOX_DRAWING, Command, add_players, add_playouts, bot_list, can_encode, seed

__all__ = [
    "COMMAND",
    "HELP",
    "HUMAN",
    "MARKERS",
    "NAME",
    "SCREEN",
    "bot_text",
    "decision_screen",
    "last_moves_lines",
    "opponents",
    "play",
    "resume_match",
    "screen_size",
    "settlement_lines",
    "since_lines",
    "table_lines",
    "tally_lines",
    "typed_move",
    "wants_color",
]

NAME = "play"

#: The name a record gives the human's seat.
HUMAN = "human"

#: The screen every decision fits, ``(columns, lines)``: the terminal's own
#: size where it is smaller (down to :data:`SMALLEST`).
SCREEN = (80, 24)

#: The smallest screen ``play`` lays its lines out for, ``(columns, lines)``.
SMALLEST = (60, 20)

#: The legend of the markers ``a+N`` and ``b+N`` beyond an end on a double.
MARKERS = "a+N, b+N: an end on side a or b of a double"

#: The points of a scoring move in the list of moves (`` +15``).
_SCORING = re.compile(r"(?<=\d) \+\d+\b")

#: The keys of the prompt, as ``?`` shows them.
HELP = (
    "At the prompt:",
    "  a number      play the move of that number",
    "  a tile        play it where it has one place: [2|4], [4|2], 4-2 or 42",
    "  notation      play a move as the engine writes it, e.g. [2|5] on [3|5] high",
    "  Enter         play the only move, when there is one",
    "  h             a hint: the move the search bot would play",
    "  u             undo: take back your last move (and the bots' since)",
    "  ?             this help",
    "  q             stop (you may save the match and resume it with --resume)",
    "Scoring: after a placement the open ends add up to the end sum; a multiple",
    "  of 5 scores that many points. At a round's end each hand's pips, rounded to",
    "  the nearest 5, come off its side's score. The first side to the target wins.",
    "The table: [2|5] a tile (on two lines where it lies down), {3|3} the Sniff;",
    "  +N beyond an open end is what it adds to the end sum; a+N or b+N is an end",
    "  on side a or b of a double. The ends are named by their arm: the left arm",
    "  and the right arm leave the first tile, branch a and branch b the Sniff.",
)


# -- drawing ------------------------------------------------------------------------


def table_lines(layout: Layout, *, unicode: bool = True) -> list[str]:
    """The table drawn for the terminal, with its counted ends and end sum.

    >>> from american_sniff import Layout, Tile
    >>> table_lines(Layout.empty().place(Tile(1, 4)))[-1]
    'End sum: 5, scores 5'
    """
    return render_text(layout, unicode=unicode).splitlines()


def tally_lines(score: int) -> list[str]:
    """A score as the rules' paper tally (a stroke per 5 points, a figure per 50)."""
    return tally_text(score).splitlines()


def _point_names(
    layout: Layout, notation: bool, width: int = SCREEN[0], *, short: bool = False
) -> dict[Point, str]:
    """What the screen calls each open point: a player's words, or the engine's notation.

    ``short`` words name the arm alone ("the left", "branch a"): a tile fits
    only one end of an arm, so the tile and the arm name a move.
    """
    if notation:
        return {point: str(point) for point in layout.points()}
    words = end_words(layout, width=width)
    if short:
        return {
            point: text.split(" on ", 1)[1].removesuffix(" arm") for point, text in words.items()
        }
    return words


def _ends_lines(layout: Layout, width: int, notation: bool = False) -> list[str]:
    """The counted ends under a drawing, the end sum and its points, wrapped.

    Each end comes after its marker as the drawing writes it (``b+10 the 5
    on the right arm``), so that the line is the drawing's legend too.
    """
    labels = end_labels(layout)
    names = _point_names(layout, notation, width)
    ends = ", ".join(f"{labels[point]} {names[point]}" for point in layout.points())
    text = f"Open: {ends}. End sum {layout.end_sum}, scores {placement_points(layout.end_sum)}"
    return [*textwrap.wrap(text, width, subsequent_indent="  "), *_marker_legend(layout, width)]


def _marker_legend(layout: Layout, width: int) -> list[str]:
    """:data:`MARKERS`, wrapped, if the drawing of ``layout`` has a marker on a double's side."""
    if not any(label[0] in "ab" for label in end_labels(layout).values()):
        return []
    return textwrap.wrap(MARKERS, width, subsequent_indent="  ")


def _place_text(move: Place, names: dict[Point, str]) -> str:
    """A placement in a player's words: ``[2|5] on the 5 on the right`` (or its notation)."""
    if move.at is None:
        return str(move)
    return f"{move.tile} on {names.get(move.at, str(move.at))}"


def _move_text(view: PlayerView, move: Place, names: dict[Point, str]) -> str:
    end_sum = view.layout.place(move.tile, move.at).end_sum
    points = placement_points(end_sum)
    return f"{_place_text(move, names)} ={end_sum}{f' +{points}' if points else ''}"


def _move_rows(texts: Sequence[str], width: int, rows: int) -> list[str]:
    """The numbered moves in as many columns as it takes to fit ``rows`` lines, if they can.

    The columns are as wide as the widest move; no more columns are made than
    ``width`` holds.
    """
    numbered = [f"{n:2d}. {text}" for n, text in enumerate(texts, start=1)]
    columns = 1
    while math.ceil(len(numbered) / columns) > rows:
        wider = columns + 1
        if wider * (max(map(len, numbered)) + 2) > width:
            break
        columns = wider
    height = math.ceil(len(numbered) / columns)
    cell = max(map(len, numbered)) + 2
    lines = []
    for row in range(height):
        cells = numbered[row::height]
        lines.append("  " + "".join(f"{cell_text:<{cell}}" for cell_text in cells).rstrip())
    return lines


def _score_line(view: PlayerView) -> str:
    """The round, every side's score (yours marked) and the target."""
    mine = side_of(view.players, view.seat)
    sides = []
    for side, score in enumerate(view.scores):
        you = " (you)" if side == mine else ""
        sides.append(f"{side_name(view.players, side)}{you}: {score}")
    return f"Round {view.round}. " + ", ".join(sides) + f"; target {view.target}"


def _held_line(view: PlayerView) -> str:
    held = ", ".join(
        f"{seat_name(s, view.players, view.seat)} {n}"
        for s, n in enumerate(view.hand_sizes)
        if s != view.seat
    )
    return f"Tiles held: {held}; stock {view.stock_size}"


def since_lines(
    states: Sequence[MatchState], seat: int, *, width: int = 80, notation: bool = False
) -> list[str]:
    """What every other seat did since ``seat``'s last move of this round: a line a seat.

    The seats come in turn order from the one after ``seat``. A seat's line
    counts its draws and names its placement or pass, with the end sum and the
    points; a seat that has not played this round since says so. The first
    line starts ``Since your move:`` (``This round so far:`` before your first
    move of the round); every line fits ``width``.
    """
    state = states[-1]
    players = state.players
    done: dict[int, list[tuple[MatchState, Action]]] = {s: [] for s in range(players)}
    moved = False
    for index in range(len(states) - 1, 0, -1):
        before, action = states[index - 1], states[index].last_action
        if action is None or before.round != state.round:
            break
        if action.seat == seat:
            if isinstance(action.move, Draw):
                continue
            moved = True
            break
        done[action.seat].insert(0, (before, action))
    heading = "Since your move: " if moved else "This round so far: "
    lines = []
    for step in range(1, players):
        other = (seat + step) % players
        who = seat_name(other, players, seat)
        text = _seat_text(who, done[other], notation, width)
        if len(heading) + len(text) > width:
            # Too long with the ends' names: the tiles, sums and points alone.
            text = _seat_text(who, done[other], notation, width, where=False)
        line = (heading if step == 1 else " " * len(heading)) + text
        lines.append(line if len(line) <= width else line[: width - 1] + "~")
    return lines


def last_moves_lines(
    states: Sequence[MatchState], seat: int, *, width: int = 80, notation: bool = False
) -> list[str]:
    """The last moves of the round that ended at ``states[-1]``: one line a seat, in turn order.

    Every seat's last placement or pass of the round, with the draws just
    before it, ends with the move that ended the round; the settlement shows
    them above itself, so that the moves that led to it stay in sight. The
    lines are in ``seat``'s words (or the notation) and fit ``width``; the
    first starts ``Last moves:``.
    """
    state = states[-1]
    players = state.players
    ended = state.last_round
    number = ended.round if ended is not None else state.round
    moves: list[list[tuple[MatchState, Action]]] = []
    for index in range(len(states) - 1, 0, -1):
        before, action = states[index - 1], states[index].last_action
        if action is None or before.round != number or len(moves) == players:
            break
        if isinstance(action.move, Draw):
            # A seat's draws come just before its placement or pass.
            if moves and moves[0][0][1].seat == action.seat:
                moves[0].insert(0, (before, action))
            continue
        moves.insert(0, [(before, action)])
    heading = "Last moves: "
    lines = []
    for index, actions in enumerate(moves):
        who = seat_name(actions[0][1].seat, players, seat)
        text = _seat_text(who, actions, notation, width)
        if len(heading) + len(text) > width:
            text = _seat_text(who, actions, notation, width, where=False)
        line = (heading if index == 0 else " " * len(heading)) + text
        lines.append(line if len(line) <= width else line[: width - 1] + "~")
    return lines


def _seat_text(
    who: str,
    actions: Sequence[tuple[MatchState, Action]],
    notation: bool,
    width: int = SCREEN[0],
    *,
    where: bool = True,
) -> str:
    """One seat's actions in a few words; ``where`` False leaves out the ends placed on."""
    if not actions:
        return f"{who}: nothing yet"
    parts = []
    draws = sum(isinstance(action.move, Draw) for _, action in actions)
    if draws:
        parts.append(f"drew {draws}")
    for before, action in actions:
        move = action.move
        if isinstance(move, Pass):
            parts.append("passed")
        elif isinstance(move, Place):
            if move.at is None:
                placed = f"opened with {move.tile}"
            elif where:
                names = _point_names(before.layout, notation, width)
                placed = f"placed {_place_text(move, names)}"
            else:
                placed = f"placed {move.tile}"
            placed += f" ={action.end_sum}"
            if action.points:
                placed += f" +{action.points}"
            parts.append(placed)
    return f"{who}: " + ", ".join(parts)


def decision_screen(
    view: PlayerView,
    *,
    unicode: bool = True,
    size: tuple[int, int] = SCREEN,
    since: Sequence[str] = (),
    notation: bool = False,
) -> list[str]:
    """The screen of a decision: every line but the prompt, to fit ``size`` with it.

    The scores, the tiles held, the lines ``since`` (what the others did since
    your move, :func:`since_lines`), the table, the hand and the numbered
    moves. The table is drawn in compact glyphs
    (:func:`~american_sniff.render.compact.compact_drawing`), its arms turning
    at the screen's edge so that a whole round's table fits, and listed by its
    arms (:func:`~american_sniff.render.text.compact_text`) only on a screen
    too small for the drawing. The ends are named in a player's words ("the 1
    on the right arm", :func:`~american_sniff.render.text.end_words`), or as
    the engine writes them with ``notation``. With more moves than room,
    the moves name the arm alone ("[1|5] on the right"), and only if that is
    still too long the notation's names.
    """
    width, height = size
    moves = [move for move in view.legal_moves if isinstance(move, Place)]
    top = [_score_line(view), _held_line(view), *since]
    hand = textwrap.wrap(f"Your hand: {hand_text(view.hand)}", width, subsequent_indent=" " * 11)
    if view.drawn is not None:
        hand.append(f"You drew {view.drawn}, which fits: you must place it.")
    heading = ["Your moves (=N: the end sum after it, +N: the points it scores):"]
    if len(heading[0]) > width:
        heading = ["Your moves (=N: end sum after it, +N: points):"]
    layout = view.layout
    names = _point_names(layout, notation, width)
    texts = [_move_text(view, move, names) for move in moves]
    room = height - 1 - len(top) - len(hand) - len(heading)
    if not layout.tiles:
        table = ["The table is empty: you open."]
        listed = _move_rows(texts, width, max(1, room - len(table)))
        return [*top, *table, *hand, *heading, *listed]
    # The ends in words; with more moves than room, shorter words (the arm
    # alone), then the notation's names.
    levels = [(notation, False)] if notation else [(False, False), (False, True), (True, False)]
    drawing = compact_drawing(layout, width=width, unicode=unicode)
    if drawing is not None:
        # The drawing with the line of its open ends, then without it (the
        # markers show what each end adds).
        for named, short in levels:
            level_names = _point_names(layout, named, width, short=short)
            named_texts = [_move_text(view, move, level_names) for move in moves]
            for ends in (_ends_lines(layout, width, named), _marker_legend(layout, width)):
                drawn = drawing + ends
                # The moves in one column, or in as many as the drawing needs to fit.
                for rows in range(len(named_texts), 0, -1):
                    listed = _move_rows(named_texts, width, rows)
                    if len(listed) + len(drawn) <= room:
                        return [*top, *drawn, *hand, *heading, *listed]
    # Too small for the drawing: the table arm by arm, in the same words.
    table = ["The table, arm by arm from the first tile (* the Sniff):"]
    table += compact_text(layout, width=width, names=None if notation else names)
    for named, short in levels:
        level_names = _point_names(layout, named, width, short=short)
        named_texts = [_move_text(view, move, level_names) for move in moves]
        listed = _move_rows(named_texts, width, max(1, room - len(table)))
        if len(listed) <= room - len(table):
            break
    return [*top, *table, *hand, *heading, *listed]


def _shows(point: Point) -> int:
    """The number an open point shows: what a tile placed there must match."""
    return point.tile.high if point.side is Side.HIGH else point.tile.low


#: A tile typed by a player, in either order, maybe followed by where it goes:
#: ``[4|2]``, ``4-2``, ``42``, ``2|4 on the 4 on the right``.
_TYPED_TILE = re.compile(r"^\[?\s*([0-6])\s*[|:/,-]?\s*([0-6])\s*\]?(?:\s+(.*))?$")


def typed_move(
    view: PlayerView, answer: str, *, notation: bool = False, width: int = SCREEN[0]
) -> Move | list[str] | None:
    """The move a typed tile names, the reason it names none, or None if it is no tile.

    The tile is written in either order (``[4|2]``, ``[2|4]``, ``4-2``,
    ``42``). Alone, it is played if it has exactly one place; else the
    answer says where it fits. After it, ``opens``, or ``on`` and an end as
    the screen names it ("on the 4 on the right arm", or its arm alone: "on
    the right") or as the engine writes it (``on [3|4] high``). A refusal
    says why: the tile is not in your hand, it fits no open end, or which
    ends it fits, in lines that fit ``width``.
    """
    match = _TYPED_TILE.match(answer.strip())
    if match is None:
        return None
    rest = (match.group(3) or "").strip()
    if rest and rest.lower() != "opens" and not rest.lower().startswith("on "):
        return None
    first, second = int(match.group(1)), int(match.group(2))
    tile = Tile(min(first, second), max(first, second))
    moves = list(view.legal_moves)
    names = _point_names(view.layout, notation)
    if tile not in view.hand:
        return _wrapped(width, f"You do not hold {tile}. Your hand: {hand_text(view.hand)}")
    places = [move for move in moves if isinstance(move, Place) and move.tile == tile]
    where = [f"{_place_text(move, names)} (move {moves.index(move) + 1})" for move in places]
    if not places:
        if view.drawn is not None:
            return _wrapped(width, f"You drew {view.drawn}: only it can be placed now.")
        if not view.layout.tiles:
            return _wrapped(
                width, f"{tile} cannot open this round: enter one of the numbered moves."
            )
        shown = sorted({_shows(point) for point in view.layout.points()})
        ends = ", ".join(map(str, shown))
        return _wrapped(
            width, f"{tile} fits no open end: the ends show {ends}, and it has no such number."
        )
    if not rest:
        if len(places) == 1:
            return places[0]
        return _wrapped(
            width, f"{tile} fits {len(places)} places: {'; '.join(where)}. Enter its number."
        )
    if rest.lower() == "opens":
        wanted: Point | None = None
        if view.layout.tiles:
            return _wrapped(width, f"The table is not empty: {tile} fits {'; '.join(where)}.")
    else:
        target = " ".join(rest[3:].lower().split())
        words = end_words(view.layout)
        short = _point_names(view.layout, False, short=True)
        found = [
            point
            for point in view.layout.points()
            if target in (words[point].lower(), short[point].lower(), str(point).lower())
        ]
        if not found:
            ends = "; ".join(names[point] for point in view.layout.points())
            return _wrapped(
                width, f"There is no open end {rest[3:].strip()!r}: the open ends are {ends}."
            )
        wanted = found[0]
    for move in places:
        if move.at == wanted:
            return move
    assert wanted is not None
    return _wrapped(
        width,
        f"{tile} does not fit {names[wanted]}, which shows a {_shows(wanted)}; "
        f"it fits {'; '.join(where)}.",
    )


def _wrapped(width: int, text: str) -> list[str]:
    """A message under the screen, wrapped to ``width`` columns between words."""
    return textwrap.wrap(
        text, width, initial_indent="  ", subsequent_indent="    ", break_long_words=False
    )


def settlement_lines(
    result: RoundResult, players: int, you: int | None = None, *, width: int = 80
) -> list[str]:
    """A round's settlement with its arithmetic: the hands' pips, rounding and scores.

    Each hand's pips and what they round to, then each side's score before
    and after.

    >>> from american_sniff.bots import random_match
    >>> ended = next(s for s in random_match(2, 3) if s.last_round is not None)
    >>> settlement_lines(ended.last_round, 2, you=0)[-1]
    'Seat 1: 10 -> 10 (-0)'
    """
    lines = textwrap.wrap(round_end_lines(result, players, you)[0], width, subsequent_indent="    ")
    for seat, (hand, deduction) in enumerate(zip(result.hands, result.deductions, strict=True)):
        pips = sum(tile.pips for tile in hand)
        if pips == deduction:
            rounding = ""
        else:
            rounding = f", rounded {'up' if deduction > pips else 'down'} to {deduction}"
        loses = f"loses {deduction}" if deduction else "loses nothing"
        count = "1 pip" if pips == 1 else f"{pips} pips"
        line = f"{seat_name(seat, players, you)}: {hand_text(hand)} = {count}{rounding}: {loses}"
        lines.extend(textwrap.wrap(line, width, initial_indent="    ", subsequent_indent=" " * 8))
    for side, after in enumerate(result.scores):
        seats = [seat for seat in range(players) if side_of(players, seat) == side]
        before = after + sum(result.deductions[seat] for seat in seats)
        if has_partners(players):
            parts = ", ".join(
                f"-{result.deductions[seat]} {seat_name(seat, players, you)}" for seat in seats
            )
        else:
            parts = f"-{result.deductions[seats[0]]}"
        lines.append(f"{side_name(players, side).capitalize()}: {before} -> {after} ({parts})")
    return lines


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


def resume_match(record: MatchRecord) -> tuple[int, list[str], list[MatchState]]:
    """The human's seat, the bot kinds and the states of a match saved by ``play``.

    ``play`` names the human's seat ``"human"`` and each bot's seat by its
    kind; the states are the record replayed, the last one the state to go on
    from.

    :raises InvalidRecord: if the record is not of a match of ``play`` that can
        go on: no seat or several named ``"human"``, a seat named by no bot
        kind, a record without its seed, or a finished match.
    """
    from ..bots import BOTS  # noqa: PLC0415 (the registry loads the bots)

    humans = [seat for seat, name in enumerate(record.names) if name == HUMAN]
    if len(humans) != 1:
        raise InvalidRecord(
            f"the record names no seat or several seats {HUMAN!r}: not saved by play"
        )
    kinds = [name for seat, name in enumerate(record.names) if seat != humans[0]]
    unknown = [name for name in kinds if name not in BOTS]
    if unknown:
        raise InvalidRecord(f"the record names a seat {unknown[0]!r}, which is no bot kind")
    if record.seed is None:
        raise InvalidRecord("the record has no seed: the bots' deals cannot go on")
    if record.is_over:
        raise InvalidRecord("the match of the record is over: there is nothing to resume")
    return humans[0], kinds, list(replay(record))


class _Quit(Exception):
    """The human stopped the match."""


class _Undo(Exception):
    """The human takes back their last move."""


class _Game(SessionView):
    """A match between one human and bots, narrated to a stream: a screen on a :class:`Session`.

    The session holds the states, whose turn it is, the bots (one per seat
    for the match: :attr:`Seeding.PER_MATCH`), the hints and the undo rule;
    an undo never goes back past the state the match was resumed from.
    """

    def __init__(
        self,
        states: list[MatchState],
        seat: int,
        kinds: dict[int, str],
        inp: TextIO,
        out: TextIO,
        *,
        options: dict[str, Any],
        unicode: bool,
        color: bool,
        size: tuple[int, int],
        record_path: str | None = None,
        notation: bool = False,
    ) -> None:
        self.notation = notation
        self.record_path = record_path
        self.seat = seat
        self.kinds = kinds
        self.session = Session(
            states,
            {s: (name, options.get(name, {})) for s, name in kinds.items()},
            ("search", options.get("search", {})),
            seeding=Seeding.PER_MATCH,
            floor=len(states) - 1,
        )
        self.inp, self.out = inp, out
        self.unicode, self.color, self.size = unicode, color, size
        self.interactive = inp.isatty()

    def say(self, *lines: str, style: str = "") -> None:
        for line in lines:
            styled = f"\x1b[{style}m{line}\x1b[0m" if self.color and style and line else line
            print(styled, file=self.out)

    def say_wrapped(self, line: str) -> None:
        """Say ``line`` wrapped to the screen's width between words, never inside one."""
        width = self.size[0]
        self.say(*textwrap.wrap(line, width, subsequent_indent="  ", break_long_words=False))

    def names(self) -> list[str]:
        """The record's name for every seat."""
        return [HUMAN if s == self.seat else self.kinds[s] for s in range(self.state.players)]

    def record(self) -> MatchRecord:
        return record_match(self.states, names=self.names())

    def run(self) -> MatchState:
        state = self.state
        you = self.seat
        players = state.players
        self.say(
            f"American Sniff (rules version {RULES_VERSION}): {players} players, "
            f"target {state.target}.",
            style="1",
        )
        self.say_wrapped(f"Seed {state.seed}: --seed {state.seed} plays this match again.")
        partner = partner_of(players, you)
        if partner is not None:
            self.say_wrapped(
                f"You are seat {you}; your partner is seat {partner}. "
                "Seats 0+2 play against seats 1+3."
            )
        else:
            self.say(f"You are seat {you}.")
        for other, kind in self.kinds.items():
            who = seat_name(other, players, you)
            bot = self.session.bot(other)
            self.say_wrapped(f"{who[0].upper()}{who[1:]}: {bot_text(kind, bot)}")
        if len(self.states) > 1:
            self.say(f"Resumed after {len(self.states) - 1} actions.")
        self.say("", round_start_line(state, you))
        while self.state.winner is None:
            state = self.state
            if state.turn == you:
                try:
                    move = self.human_move(view_for(state, you))
                except _Undo:
                    self.undo()
                    continue
                except _Quit:
                    return self.stop()
            else:
                move = self.session.bot_move()
            self.step(move)
        return self.finish()

    def step(self, move: Move) -> None:
        you, players = self.seat, self.state.players
        width = self.size[0]
        names = _point_names(self.state.layout, self.notation, width)
        self.states.append(apply(self.state, move))
        view = view_for(self.state, you)
        action = view.last_action
        assert action is not None  # every state after an apply has one
        line = action_line(
            action,
            players,
            you=you,
            hide_draw=action.seat != you,
            names=None if self.notation else names,
        )
        self.say(*textwrap.wrap(line, width, subsequent_indent="    ", break_long_words=False))
        result = action.round_result
        if result is None:
            return
        self.say("The table at the end of the round:")
        self.say(*self.final_table(result))
        # The round's last moves stay in sight above the settlement.
        self.say(*last_moves_lines(self.states, you, width=width, notation=self.notation))
        self.say(*settlement_lines(result, players, you, width=width))
        self.tally(view)
        if view.winner is None:
            if self.interactive:
                self.out.write(f"Press Enter to go on to round {view.round}. ")
                self.out.flush()
                self.inp.readline()
            self.say("", round_start_line(self.state, you))

    def final_table(self, result: RoundResult) -> list[str]:
        """The table a round left, drawn above the round's last moves and the settlement.

        The drawing comes with the line of its open ends where that fits too;
        it is listed arm by arm only where it cannot be drawn in the width.
        """
        width, height = self.size
        rest = len(settlement_lines(result, self.state.players, self.seat, width=width))
        rest += len(last_moves_lines(self.states, self.seat, width=width, notation=self.notation))
        tally = 1 + sum(len(tally_lines(score)) for score in result.scores)
        room = height - rest - tally - 3
        layout = result.layout
        drawing = compact_drawing(layout, width=width, unicode=self.unicode)
        if drawing is not None:
            # The line of open ends gives way first: the markers show what each adds.
            legend = _marker_legend(layout, width)
            for drawn in (drawing + _ends_lines(layout, width, self.notation), drawing + legend):
                if len(drawn) <= room:
                    return drawn
            # Taller than the room: the picture still, its top above the screen
            # rather than the list of arms.
            return drawing + legend
        return compact_text(layout, width=width, names=_point_names(layout, self.notation, width))

    def undo(self) -> None:
        back = self.session.undo_point(self.seat)
        if back is None:
            self.say("  Nothing to undo: you have not moved yet.")
            return
        self.session.go_back(back)
        self.say(f"  Taken back: your move and what followed (round {self.state.round}).")

    def stop(self) -> MatchState:
        state = self.state
        self.say("", f"You stopped in round {state.round}.")
        self.scores(view_for(state, self.seat))
        return state

    def finish(self) -> MatchState:
        view = view_for(self.state, self.seat)
        winner = view.winner
        assert winner is not None
        players = view.players
        mine = side_of(players, view.seat)
        verdict = "you win" if winner == mine else "you lose"
        self.say("", winner_line(players, winner, view.scores[winner], view.round))
        self.say(f"The match is over: {verdict}.", style="1")
        self.scores(view)
        return self.state

    def scores(self, view: PlayerView) -> None:
        self.say(f"Scores: {', '.join(_side_scores(view))}")
        self.tally(view)

    def tally(self, view: PlayerView) -> None:
        self.say("Tally:")
        for side, score in enumerate(view.scores):
            label = f"  {side_name(view.players, side)}: "
            lines = tally_lines(score)
            middle = len(lines) // 2
            for index, line in enumerate(lines):
                self.say(((label if index == middle else " " * len(label)) + line).rstrip())

    def human_move(self, view: PlayerView) -> Move:
        """The move the human picks; a lone draw or pass is made for them.

        On a terminal, the screen is drawn again after a hint, the help or a
        mistake, with the message under it, so that the whole decision stays in
        sight; piped answers get the message alone.

        :raises _Quit: if the human stops, or the input ends.
        :raises _Undo: if the human takes back their last move.
        """
        moves = view.legal_moves
        forced = self.session.forced()
        if forced is not None:
            return forced  # no choice: the narration shows it
        count = len(moves)
        choose = "Enter plays your only move" if count == 1 else f"Move 1-{count}"
        if len(choose) > self.size[0] // 3:
            choose = "Enter: the only move"
        prompt = f"{choose}, h hint, u undo, ? help, q quit: "
        message: list[str] = []
        redraw = True
        while True:
            if redraw:
                self.show(view, message)
            elif message:
                self.say(*message)
            self.out.write(f"\x1b[1m{prompt}\x1b[0m" if self.color else prompt)
            self.out.flush()
            line = self.inp.readline()
            if not line:
                self.say("", "(end of input)")
                raise _Quit
            answer = line.strip()
            if not self.interactive:
                self.say(answer)  # show piped answers, as a terminal would echo them
            reply = self.answer(view, answer)
            if not isinstance(reply, list):
                return reply
            message, redraw = reply, self.interactive
            if self.interactive and reply == list(HELP):
                # The help is longer than the room under the screen: it waits.
                self.say(*self.help_lines())
                self.out.write("Press Enter to go back to your move. ")
                self.out.flush()
                self.inp.readline()
                message = []

    def show(self, view: PlayerView, message: Sequence[str]) -> None:
        """The decision screen, with ``message`` under it, fitted together to the screen."""
        width, height = self.size
        since = since_lines(self.states, self.seat, width=width, notation=self.notation)
        screen = decision_screen(
            view,
            unicode=self.unicode,
            size=(width, height - len(message)),
            since=since,
            notation=self.notation,
        )
        self.say("")
        self.say(screen[0], style="1")
        if self.color:
            # The points a move would score, in green.
            screen = [_SCORING.sub("\x1b[32m\\g<0>\x1b[0m", line) for line in screen]
        self.say(*screen[1:], *message)

    def answer(self, view: PlayerView, answer: str) -> Move | list[str]:
        """The move ``answer`` names, or what to tell the human (a hint, the help, a mistake).

        :raises _Quit: for ``q``, after offering to save the match.
        :raises _Undo: for ``u``.
        """
        moves = view.legal_moves
        count = len(moves)
        width = self.size[0]
        key = answer.lower()
        if key in ("q", "quit"):
            self.offer_to_save()
            raise _Quit
        if key in ("u", "undo"):
            raise _Undo
        if key in ("?", "help"):
            return list(HELP) if self.interactive else self.help_lines()
        if key in ("h", "hint"):
            chosen = self.session.hint(self.seat)
            names = _point_names(view.layout, self.notation, width)
            chosen_text = _place_text(chosen, names) if isinstance(chosen, Place) else str(chosen)
            return _wrapped(
                width,
                f"Hint: the search bot would play {moves.index(chosen) + 1}. {chosen_text} "
                f"({hint_reason(view, chosen)}).",
            )
        if not answer:
            if count == 1:
                return moves[0]
            return [f"  Enter a move: a number from 1 to {count}, or ? for help."]
        if answer.isdigit() and 1 <= int(answer) <= count:
            return moves[int(answer) - 1]
        typed = typed_move(view, answer, notation=self.notation, width=width)
        if typed is not None:
            return typed
        if answer.isdigit():
            return [f"  There is no move {int(answer)}: enter 1 to {count}, or ? for help."]
        try:
            move = parse_move(answer, strict=True)
        except IllegalMove as error:
            return [
                *_wrapped(width, f"That is {error}"),
                *_wrapped(
                    width, f"Enter 1 to {count}, a move as the list writes it, or ? for help."
                ),
            ]
        if move not in moves:
            return [f"  {move} is not one of your moves now: enter 1 to {count}."]
        return move

    def help_lines(self) -> list[str]:
        """:data:`HELP`, each line wrapped to the screen's width under its own indent."""
        lines = []
        for line in HELP:
            indent = " " * (len(line) - len(line.lstrip(" ")) + 2)
            lines += textwrap.wrap(line, self.size[0], subsequent_indent=indent)
        return lines

    def offer_to_save(self) -> None:
        """Ask for a file to save the match to, to resume it later (unless it is recorded)."""
        if self.record_path is not None:
            self.say(f"  Resume with: american-sniff play --resume {self.record_path}")
            return
        self.out.write("Save to resume later? File name (Enter: do not save): ")
        self.out.flush()
        path = self.inp.readline().strip()
        if not self.interactive and path:
            self.say(path)
        if not path:
            return
        try:
            dump_record(self.record(), path)
        except OSError as error:
            self.say(f"  Cannot save to {path}: {error.strerror or error}")
            return
        self.say(f"  Saved. Resume with: american-sniff play --resume {path}")


def bot_text(kind: str, bot: Bot) -> str:
    """A bot as ``play`` introduces it, in a player's words: its kind and how it thinks.

    The engine's settings (playouts, rollouts, depth) are left to ``--help``
    and docs/bots.md; a player hears how many deals the bot imagines.

    >>> from american_sniff.bots import make_bot
    >>> bot_text("search", make_bot("search", 3, playouts=8))
    'the search bot (imagines 8 deals a move; seed 3)'
    >>> bot_text("expert", make_bot("expert", 3))
    'the expert bot (imagines up to 64 deals a move and reads your choices; seed 3)'
    >>> bot_text("greedy", make_bot("greedy", 3))
    'the greedy bot (takes the most points now; seed 3)'
    """
    seed = f"seed {getattr(bot, 'seed', '?')}"
    playouts = getattr(bot, "playouts", None)
    seconds = getattr(bot, "seconds", None)
    if seconds is not None:
        how = f"thinks {seconds} s a move"
    elif playouts is not None:
        up_to = "up to " if getattr(bot, "prune", None) is not None else ""
        how = f"imagines {up_to}{playouts} deals a move"
    elif kind == "greedy":
        how = "takes the most points now"
    elif kind == "random":
        how = "plays any legal move"
    else:
        return f"the {kind} bot ({seed})"
    if getattr(bot, "infer", None) is not None:
        how += " and reads your choices"
    return f"the {kind} bot ({how}; {seed})"


def _side_scores(view: PlayerView) -> list[str]:
    return [f"{side_name(view.players, s)}: {score}" for s, score in enumerate(view.scores)]


def play(
    players: int,
    seed: int,
    seat: int,
    bot_names: Sequence[str],
    inp: TextIO,
    out: TextIO,
    options: dict[str, Any] | None = None,
    *,
    unicode: bool = True,
    color: bool = False,
    size: tuple[int, int] = SCREEN,
    states: Sequence[MatchState] = (),
    record: str | None = None,
    notation: bool = False,
) -> MatchState:
    """Play a match with a human at ``seat`` (reading ``inp``) against bots; narrate to ``out``.

    The bot in seat ``k`` is seeded ``seed + k + 1`` (modulo 2**64), as in the
    demo. The human answers each choice with a move number or a move in
    notation (see :data:`HELP` for the other keys); ``q`` or the end of
    ``inp`` stops the match. A round's settlement waits for Enter when ``inp``
    is a terminal. Returns the last state (over, or where the human stopped).

    ``unicode`` draws the table with box-drawing characters (else ASCII);
    ``color`` adds terminal colours; ``size`` is the screen each decision
    fits; ``notation`` names the table's ends as the engine writes them
    (``[1|6] low``) instead of in a player's words ("the 1 on the right").
    ``states`` goes on from a match already begun (its states in order,
    as :func:`resume_match` gives them); ``record`` names a file the match
    record is written to at the end, or when the human stops.

    :raises ValueError: if the seat or the bot names do not fit the match.
    """
    kinds = opponents(players, seat, bot_names)
    begun = list(states) or [new_match(players, seed=seed)]
    game = _Game(
        begun,
        seat,
        kinds,
        inp,
        out,
        options=options or {},
        unicode=unicode,
        color=color,
        size=size,
        record_path=record,
        notation=notation,
    )
    try:
        return game.run()
    finally:
        if record is not None:
            dump_record(game.record(), record)
            game.say(f"Record written to {record}")


# -- the command ----------------------------------------------------------------


def wants_color(stream: TextIO) -> bool:
    """Colour on a terminal that has it, unless ``NO_COLOR`` is set (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("TERM", "") in ("", "dumb"):
        return False
    return stream.isatty()


def screen_size(stream: TextIO) -> tuple[int, int]:
    """The screen ``play`` fits on ``stream``: :data:`SCREEN`, or a smaller terminal.

    A terminal narrower or lower than :data:`SCREEN` gets lines that fit it
    (down to :data:`SMALLEST`); a larger one, or output that is no terminal,
    gets :data:`SCREEN`.
    """
    if not stream.isatty():
        return SCREEN
    try:
        columns, lines = os.get_terminal_size(stream.fileno())
    except (OSError, ValueError):
        return SCREEN
    return (
        max(SMALLEST[0], min(columns, SCREEN[0])) if columns else SCREEN[0],
        max(SMALLEST[1], min(lines, SCREEN[1])) if lines else SCREEN[1],
    )


def _run(args: argparse.Namespace) -> int:
    if sys.stdin is None:
        print(
            "american-sniff play: standard input is closed: nothing to read moves from",
            file=sys.stderr,
        )
        return 2
    options = {} if args.playouts is None else {"search": {"playouts": args.playouts}}
    states: list[MatchState] = []
    if args.resume is not None:
        try:
            seat, kinds, states = resume_match(load_record(args.resume))
        except OSError as error:
            print(
                f"american-sniff play: cannot read {args.resume}: {error.strerror or error}",
                file=sys.stderr,
            )
            return 2
        except InvalidRecord as error:
            print(f"american-sniff play: cannot resume {args.resume}: {error}", file=sys.stderr)
            return 2
        players, match_seed, bots = states[0].players, states[0].seed, kinds
    else:
        players, seat, bots = args.players, args.seat, list(args.bots)
        match_seed = secrets.randbits(64) if args.seed is None else args.seed
        try:
            opponents(players, seat, bots)
        except ValueError as error:
            args.parser.error(str(error))
    unicode = not args.ascii and can_encode(sys.stdout, BOX_DRAWING)
    play(
        players,
        match_seed,
        seat,
        bots,
        sys.stdin,
        sys.stdout,
        options,
        unicode=unicode,
        color=wants_color(sys.stdout),
        size=screen_size(sys.stdout),
        states=states,
        record=args.record,
        notation=args.notation,
    )
    return 0


def _options(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``play`` to its parser."""
    add_players(parser)
    parser.add_argument(
        "--bots",
        type=bot_list,
        default=("search",),
        help="the bots: one kind for every other seat, or one per other seat in seat "
        "order, comma-separated (default search)",
    )
    parser.add_argument(
        "--seed",
        type=seed,
        default=None,
        help="seed for the deal, the lots and the bots (default: a random one, printed "
        "so that the match can be played again)",
    )
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    add_playouts(parser)
    parser.add_argument(
        "--record",
        metavar="FILE",
        help="write the match record (JSON) to FILE when the match ends or you stop",
    )
    parser.add_argument(
        "--resume",
        metavar="FILE",
        help="go on with a match saved by play (q, or --record): its players, seed, "
        "seat and bots come from the file",
    )
    parser.add_argument(
        "--notation",
        action="store_true",
        help="name the table's ends as the engine writes them ([1|6] low, [3|3] "
        "branch_a) instead of in a player's words (the 1 on the right)",
    )
    parser.add_argument(
        "--ascii",
        action="store_true",
        help="draw with ASCII characters only (chosen by itself when the output "
        "cannot show box-drawing characters)",
    )


#: The command's help, options and run function.
COMMAND = Command(
    NAME,
    summary="play a match against bots in the terminal",
    description=(
        "Play a match against bots. Each time you can place, one screen that "
        "fits 80x24 shows the scores, the table, your hand and your numbered "
        "legal moves. Answer with a move's number or the move in notation; "
        "Enter plays the only move; h asks the search bot for a hint, u takes "
        "back your last move, ? lists the keys, q stops (and offers to save "
        "the match, which --resume goes on with). Draws and passes with no "
        "choice are made for you. Every placement is shown with the end sum "
        "and its points, the others' draws without their tiles, and each "
        "round's settlement with every hand revealed, the scores and their "
        "paper tally; on a terminal it waits for Enter.\n\n"
        "Moves can be piped in, one per line; the end of the input stops. "
        "Colour is used on a terminal that has it, unless NO_COLOR is set."
    ),
    examples=(
        "american-sniff play",
        "american-sniff play --players 2 --seed 1 --record match.json",
        "american-sniff play --resume match.json",
        "american-sniff play --players 4 --bots search,greedy,search --seat 1",
        "yes 1 | american-sniff play --players 2 --seed 1",
    ),
    options=_options,
    run=_run,
)
