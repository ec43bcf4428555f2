"""The replay viewer's frames: a record played again, one picture per action.

A record holds every hand and the stock, so the viewer shows everything: each
frame has the table as an SVG figure and its counted ends, every hand, the stock's size, the
scores and what the action did; a frame that ends a round also has its
settlement.
"""

from __future__ import annotations

from typing import Any

from ..records import MatchRecord, replay
from ..render import render_svg
from ..serial import tile_text
from ..state import MatchState

__all__ = ["NARROW_PAGE", "record_frames"]

#: The page (in geometry units) of the table drawn for a narrow screen: a
#: portrait page, so that a phone shows the tiles at least 28 px long.
NARROW_PAGE = (24, 36)


def _svg(document: str) -> str:
    return document.split("\n", 1)[1] if document.startswith("<?xml") else document


def record_frames(record: MatchRecord) -> dict[str, Any]:
    """The frames of ``record``, the deal of round 1 first, as JSON values.

    >>> from american_sniff import new_match, apply, legal_moves, record_match
    >>> states = [new_match(2, seed=1)]
    >>> states.append(apply(states[0], legal_moves(states[0])[0]))
    >>> frames = record_frames(record_match(states))["frames"]
    >>> len(frames), frames[1]["action"]["seat"]
    (2, 1)

    :raises InvalidRecord: if the record cannot be replayed.
    """
    frames = []
    previous: MatchState | None = None
    for state in replay(record):
        frames.append(_frame(state, previous))
        previous = state
    return {
        "players": record.players,
        "names": list(record.names),
        "winner": record.winner,
        "frames": frames,
    }


def _frame(state: MatchState, previous: MatchState | None) -> dict[str, Any]:
    action = None if previous is None else state.last_action
    result = None if action is None else action.round_result
    # The action that ended a round is shown on the table it left, with its settlement.
    layout = state.layout if result is None else result.layout
    hands = state.hands if result is None else result.hands
    frame: dict[str, Any] = {
        "round": state.round if result is None else result.round,
        "turn": state.turn,
        "scores": list(state.scores),
        "winner": state.winner,
        "hands": [[tile_text(t) for t in hand] for hand in hands],
        "stock_size": state.stock_size if result is None else None,
        "end_sum": layout.end_sum,
        "ends": [f"{c.point} {c.value}" for c in layout.contributions()],
        "table": _svg(render_svg(layout, caption=False)),
        "table_narrow": _svg(render_svg(layout, caption=False, page=NARROW_PAGE)),
        "action": None
        if action is None
        else {
            "seat": action.seat,
            "text": str(action.move) + ("" if action.tile is None else f" {action.tile}"),
            "end_sum": action.end_sum,
            "points": action.points,
        },
        "settlement": None
        if result is None
        else {
            "end": result.end.value,
            "finisher": result.finisher,
            "deductions": list(result.deductions),
            "scores": list(result.scores),
        },
    }
    return frame
