"""Text for people: what an action did, how a round ended, the scores."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..moves import Draw, Pass
from ..state import Action, MatchState, RoundEnd, RoundResult
from ..tiles import Tile

__all__ = [
    "Writer",
    "action_line",
    "hand_text",
    "round_end_lines",
    "round_start_line",
    "scores_text",
    "side_name",
]


class Writer(Protocol):
    """Where narration goes: anything ``print(..., file=...)`` can write to."""

    def write(self, text: str, /) -> int:
        """Write ``text``; return how many characters were written."""
        ...


def side_name(players: int, side: int) -> str:
    """``"seat 1"``, or ``"seats 1+3"`` for a partnership of the four-player game."""
    if players == 4:
        return f"seats {side}+{side + 2}"
    return f"seat {side}"


def scores_text(players: int, scores: Sequence[int]) -> str:
    """Every side's score, e.g. ``"seats 0+2: 15, seats 1+3: 0"``."""
    return ", ".join(f"{side_name(players, side)}: {score}" for side, score in enumerate(scores))


def hand_text(hand: Sequence[Tile]) -> str:
    """The tiles of a hand, or ``(empty)``."""
    return " ".join(str(tile) for tile in hand) if hand else "(empty)"


def round_start_line(state: MatchState) -> str:
    """Who opens the round of ``state`` and why."""
    previous = state.last_round
    if previous is None or previous.end is RoundEnd.BLOCKED:
        how = "chosen by lot"
    else:
        how = "went out last round"
    return f"Round {state.round}: seat {state.opener} opens ({how})"


def action_line(action: Action, players: int, *, hide_draw: bool = False) -> str:
    """One line for an action: a draw (with its tile unless hidden), a pass, or a placement.

    A placement shows its end sum, and a scoring one its points and the scores
    right after it (before any settlement it caused).
    """
    seat = action.seat
    if isinstance(action.move, Draw):
        tile = "a tile" if hide_draw or action.tile is None else str(action.tile)
        return f"  seat {seat} draws {tile}"
    if isinstance(action.move, Pass):
        return f"  seat {seat} passes"
    line = f"  seat {seat} places {action.move}"
    score = f"sum {action.end_sum:2d}"
    if action.points:
        score += f"  scores {action.points}  ({scores_text(players, action.scores)})"
    return f"{line:<44}{score}"


def round_end_lines(result: RoundResult, players: int) -> list[str]:
    """How a round ended, every revealed hand with its deduction, and the scores."""
    if result.end is RoundEnd.DOMINO:
        lines = [f"  Round {result.round} ends: seat {result.finisher} went out"]
    else:
        lines = [f"  Round {result.round} ends blocked: the stock is empty and nobody can place"]
    for seat, (hand, deduction) in enumerate(zip(result.hands, result.deductions, strict=True)):
        pips = sum(tile.pips for tile in hand)
        lines.append(f"    seat {seat}: {hand_text(hand)}  = {pips} pips, loses {deduction}")
    lines.append(f"  Scores: {scores_text(players, result.scores)}")
    return lines
