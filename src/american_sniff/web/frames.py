"""The replay viewer's frames: a record played again, one picture per action.

A record holds every hand and the stock, so the viewer shows everything: each
frame has the table as an SVG figure and its counted ends, every hand, the stock's size, the
scores and what the action did; a frame that ends a round also has its
settlement.
"""

from __future__ import annotations

import threading
from typing import Any

from ..records import MatchRecord, replay
from ..render import render_svg
from ..serial import tile_text
from ..state import MatchState

__all__ = [
    "MAX_REPLAY_ACTIONS",
    "NARROW_PAGE",
    "PAGE",
    "Stopped",
    "record_actions",
    "record_frames",
]

#: The page (in geometry units) of the table drawn for a narrow screen: a
#: portrait page, so that a phone shows the tiles at least 28 px long.
NARROW_PAGE = (24, 36)

#: The most actions a record sent to the server for replay may hold. A legal
#: record has no bound in length (scores may fall without a floor), so the
#: server sets one, far beyond the longest match seen in play (about 1,400).
MAX_REPLAY_ACTIONS = 10_000

#: The most frames one answer holds; a longer replay comes in pages.
PAGE = 100


class Stopped(Exception):
    """The replay was stopped before its end (the client went away)."""


def record_actions(record: MatchRecord) -> int:
    """How many actions ``record`` holds, in every round."""
    return sum(len(r.actions) for r in record.rounds)


def _svg(document: str) -> str:
    return document.split("\n", 1)[1] if document.startswith("<?xml") else document


def record_frames(
    record: MatchRecord,
    start: int = 0,
    count: int | None = None,
    stop: threading.Event | None = None,
) -> dict[str, Any]:
    """The frames of ``record``, the deal of round 1 first, as JSON values.

    Only the frames from ``start`` on, ``count`` of them (all if None), are
    drawn; ``total`` is how many the whole record has, and ``start`` where
    this page begins.

    >>> from american_sniff import new_match, apply, legal_moves, record_match
    >>> states = [new_match(2, seed=1)]
    >>> states.append(apply(states[0], legal_moves(states[0])[0]))
    >>> frames = record_frames(record_match(states))
    >>> len(frames["frames"]), frames["frames"][1]["action"]["seat"], frames["total"]
    (2, 1, 2)
    >>> [f["action"]["seat"] for f in record_frames(record_match(states), 1)["frames"]]
    [1]

    :raises InvalidRecord: if the record cannot be replayed.
    :raises Stopped: if ``stop`` is set before the page is drawn.
    """
    end = None if count is None else start + count
    frames = []
    previous: MatchState | None = None
    total = 0
    for state in replay(record):
        if stop is not None and stop.is_set():
            raise Stopped("the replay was stopped")
        if start <= total and (end is None or total < end):
            frames.append(_frame(state, previous))
        previous = state
        total += 1
    return {
        "players": record.players,
        "names": list(record.names),
        "winner": record.winner,
        "total": total,
        "start": start,
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
