"""The browser game's privacy check: which tiles a payload may name, for one viewer.

A payload for a seat may name its own hand, the table, and the previous
round's table and revealed hands; a spectator's, the same without a hand.
Any other tile named anywhere in the payload's text (in JSON, in an SVG
picture, in a title) is a hidden tile that reached the browser.
"""

from __future__ import annotations

import json
import re
from typing import Any

from american_sniff import MatchState, Tile, parse_tile

__all__ = ["hidden_tiles", "tiles_named", "visible_tiles"]

_TILE = re.compile(r"\[(\d)\|(\d)\]")


def tiles_named(text: str) -> set[Tile]:
    """Every tile named in ``text`` (as ``[a|b]``)."""
    return {parse_tile(f"[{a}|{b}]") for a, b in _TILE.findall(text)}


def visible_tiles(state: MatchState, seat: int | None) -> set[Tile]:
    """The tiles ``seat`` (None: a spectator) may see in ``state``."""
    seen = set(state.layout.tiles)
    last = state.last_round
    if last is not None:
        seen.update(last.layout.tiles)
        for hand in last.hands:
            seen.update(hand)
    if seat is not None:
        seen.update(state.hands[seat])
    return seen


def hidden_tiles(payload: str, states: list[MatchState], seat: int | None) -> set[Tile]:
    """The tiles ``payload`` names that ``seat`` may not see at the payload's moment.

    The moment is the view's sequence number: ``states[seq]`` (``states`` as
    the match was played, with no undo). A payload without a view is checked
    at its own ``seq`` (a hint), or else against the latest state (an error).
    """
    message: Any = json.loads(payload)
    view = message.get("view") if isinstance(message, dict) else None
    if isinstance(view, dict):
        seq = view["seq"]
    else:
        seq = message.get("seq", len(states) - 1) if isinstance(message, dict) else len(states) - 1
    return tiles_named(payload) - visible_tiles(states[seq], seat)
