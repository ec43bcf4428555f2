"""Text for people: what an action did, how a round ended, the scores.

Every line is at most 80 characters wide. The narration of ``play`` names the
human's seat "you" and marks the partner; pass ``you`` for that, or leave it
None (as ``demo`` does) to name every seat by its number.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Protocol

from ..layout import Point
from ..moves import Draw, Pass
from ..rules import has_partners, partner_of
from ..state import Action, MatchState, RoundEnd, RoundResult
from ..tiles import Tile

__all__ = [
    "Writer",
    "action_line",
    "hand_text",
    "round_end_lines",
    "round_start_line",
    "scores_text",
    "seat_name",
    "side_name",
    "winner_line",
]


class Writer(Protocol):
    """Where narration goes: anything ``print(..., file=...)`` can write to."""

    def write(self, text: str, /) -> int:
        """Write ``text``; return how many characters were written."""
        ...


def seat_name(seat: int, players: int, you: int | None = None) -> str:
    """A seat as the narration names it: ``"seat 1"``, ``"you"``, or ``"partner 2"``.

    >>> seat_name(2, 4, you=0), seat_name(0, 4, you=0), seat_name(1, 4, you=0)
    ('partner 2', 'you', 'seat 1')
    """
    if seat == you:
        return "you"
    if you is not None and seat == partner_of(players, you):
        return f"partner {seat}"
    return f"seat {seat}"


def side_name(players: int, side: int) -> str:
    """``"seat 1"``, or ``"seats 1+3"`` for a partnership of the four-player game."""
    partner = partner_of(players, side)
    if partner is not None:
        return f"seats {side}+{partner}"
    return f"seat {side}"


def scores_text(players: int, scores: Sequence[int]) -> str:
    """Every side's score, e.g. ``"seats 0+2: 15, seats 1+3: 0"``."""
    return ", ".join(f"{side_name(players, side)}: {score}" for side, score in enumerate(scores))


def hand_text(hand: Sequence[Tile]) -> str:
    """The tiles of a hand, or ``(empty)``."""
    return " ".join(str(tile) for tile in hand) if hand else "(empty)"


def round_start_line(state: MatchState, you: int | None = None) -> str:
    """Who opens the round of ``state`` and why."""
    previous = state.last_round
    if previous is None or previous.end is RoundEnd.BLOCKED:
        how = "chosen by lot"
    else:
        how = "went out last round"
    who = seat_name(state.opener, state.players, you)
    verb = "open" if who == "you" else "opens"
    return f"Round {state.round}: {who} {verb} ({how})"


def _verb(who: str, verb: str) -> str:
    """``verb`` agreeing with ``who``: "you place", "seat 1 places"."""
    if who == "you":
        return verb
    return verb + ("es" if verb.endswith("ss") else "s")


def action_line(
    action: Action,
    players: int,
    *,
    hide_draw: bool = False,
    you: int | None = None,
    names: Mapping[Point, str] | None = None,
) -> str:
    """One line for an action: a draw (with its tile unless hidden), a pass, or a placement.

    A placement shows its end sum, and a scoring one its points and every
    side's score right after it (before any settlement it caused), in side
    order. It is written in the engine's notation (``[2|5] on [3|5] high``),
    or, given ``names`` (a player's words for the open points of the table
    the action was played on, such as
    :func:`~american_sniff.render.text.end_words` gives), in those words.

    >>> from american_sniff import new_match, apply, Place, Tile
    >>> state = apply(new_match(2, seed=2024), Place(Tile(0, 3)))
    >>> action_line(state.last_action, 2, you=1)
    '  you place [0|3] opens: sum 3'
    >>> action_line(state.last_action, 2, you=1, names={})
    '  you open with [0|3]: sum 3'
    """
    who = seat_name(action.seat, players, you)
    move = action.move
    if isinstance(move, Draw):
        tile = "a tile" if hide_draw or action.tile is None else str(action.tile)
        return f"  {who} {_verb(who, 'draw')} {tile}"
    if isinstance(move, Pass):
        return f"  {who} {_verb(who, 'pass')}"
    if names is None:
        placed = f"{_verb(who, 'place')} {move}"
    elif move.at is None:
        placed = f"{_verb(who, 'open')} with {move.tile}"
    else:
        placed = f"{_verb(who, 'place')} {move.tile} on {names.get(move.at, str(move.at))}"
    line = f"  {who} {placed}: sum {action.end_sum}"
    if action.points:
        now = ", ".join(str(score) for score in action.scores)
        line += f", scores {action.points} (now {now})"
    return line


def round_end_lines(result: RoundResult, players: int, you: int | None = None) -> list[str]:
    """How a round ended, every revealed hand with its deduction, and the scores."""
    if result.end is RoundEnd.DOMINO:
        finisher = seat_name(result.finisher or 0, players, you)
        lines = [f"  Round {result.round} ends: {finisher} went out"]
    else:
        lines = [f"  Round {result.round} ends blocked: the stock is empty and nobody can place"]
    for seat, (hand, deduction) in enumerate(zip(result.hands, result.deductions, strict=True)):
        pips = sum(tile.pips for tile in hand)
        line = (
            f"{seat_name(seat, players, you)}: {hand_text(hand)} = {pips} pips, loses {deduction}"
        )
        lines.extend(textwrap.wrap(line, 80, initial_indent="    ", subsequent_indent=" " * 8))
    lines.append(f"  Scores: {scores_text(players, result.scores)}")
    return lines


def winner_line(players: int, winner: int, score: int, round_number: int) -> str:
    """The end of a match: who reached the target, with what and when.

    >>> winner_line(4, 0, 215, 6)
    'Seats 0+2 reached 215 points and win the match in round 6.'
    >>> winner_line(2, 1, 250, 3)
    'Seat 1 reached 250 points and wins the match in round 3.'
    """
    verb = "win" if has_partners(players) else "wins"
    return (
        f"{side_name(players, winner).capitalize()} reached {score} points "
        f"and {verb} the match in round {round_number}."
    )
