"""american-sniff: the reference rules engine for the domino game American Sniff.

>>> from american_sniff import new_match, legal_moves, apply, score_of
>>> state = new_match(2, seed=2024)
>>> state = apply(state, legal_moves(state)[0])
>>> state.layout.tiles, state.layout.end_sum
((Tile(0, 3),), 3)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# The rules core loads with the package; everything else loads on first use
# (see __getattr__ below), so that a program that only plays pays only for the
# core.
from .engine import apply, legal_moves, new_match, score_of
from .engine import compiled as _compiled
from .errors import (
    REFUSAL_CODES,
    IllegalMove,
    InvalidDeal,
    InvalidRecord,
    InvalidState,
    InvalidView,
)
from .layout import Connection, Contribution, Layout, Point, Side, parse_point
from .moves import Draw, Move, Pass, Place, parse_move
from .rules import RULES_VERSION, TARGET, placement_points, round_hand
from .state import Action, Deal, MatchState, RoundEnd, RoundInfo, RoundResult
from .tiles import ALL_TILES, Tile, parse_tile

if TYPE_CHECKING:  # what __getattr__ loads, for type checkers and IDEs
    from .bots import Bot, GreedyBot, RandomBot, SearchBot, make_bot
    from .records import (
        ActionRecord,
        MatchRecord,
        OpenerBy,
        Recorder,
        RoundRecord,
        dump_record,
        load_record,
        record_match,
        replay,
    )
    from .referee import Discrepancy, Report, check_record
    from .validation import validate_state
    from .views import (
        MovePreview,
        PlayerView,
        SpectatorView,
        ViewEvent,
        apply_event,
        event_for,
        spectator_view,
        view_for,
    )

#: The module of each name that loads on first use (the same names as the
#: ``if TYPE_CHECKING`` imports above; a test checks that they agree).
_LAZY: dict[str, str] = {
    **dict.fromkeys(("Bot", "GreedyBot", "RandomBot", "SearchBot", "make_bot"), "bots"),
    **dict.fromkeys(
        (
            "ActionRecord",
            "MatchRecord",
            "OpenerBy",
            "Recorder",
            "RoundRecord",
            "dump_record",
            "load_record",
            "record_match",
            "replay",
        ),
        "records",
    ),
    **dict.fromkeys(("Discrepancy", "Report", "check_record"), "referee"),
    "validate_state": "validation",
    **dict.fromkeys(
        (
            "MovePreview",
            "PlayerView",
            "SpectatorView",
            "ViewEvent",
            "apply_event",
            "event_for",
            "spectator_view",
            "view_for",
        ),
        "views",
    ),
}


def __getattr__(name: str) -> Any:
    """Load a name of the package's API that is not part of the rules core, on first use.

    :raises AttributeError: if the package has no such name.
    """
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # the next access finds it without a call
    return value


def __dir__() -> list[str]:
    """The package's names, those that load on first use included."""
    return sorted(set(globals()) | set(__all__))


__version__ = "0.1.0"

#: Whether the rules core runs compiled: True in a wheel built with mypyc (what
#: ``pip install`` gives where a C compiler or a binary wheel is available),
#: False in the pure-Python build. Both builds behave identically.
COMPILED: bool = _compiled()

__all__ = [
    "ALL_TILES",
    "COMPILED",
    "REFUSAL_CODES",
    "RULES_VERSION",
    "TARGET",
    "Action",
    "ActionRecord",
    "Bot",
    "Connection",
    "Contribution",
    "Deal",
    "Discrepancy",
    "Draw",
    "GreedyBot",
    "IllegalMove",
    "InvalidDeal",
    "InvalidRecord",
    "InvalidState",
    "InvalidView",
    "Layout",
    "MatchRecord",
    "MatchState",
    "Move",
    "MovePreview",
    "OpenerBy",
    "Pass",
    "Place",
    "PlayerView",
    "Point",
    "RandomBot",
    "Recorder",
    "Report",
    "RoundEnd",
    "RoundInfo",
    "RoundRecord",
    "RoundResult",
    "SearchBot",
    "Side",
    "SpectatorView",
    "Tile",
    "ViewEvent",
    "__version__",
    "apply",
    "apply_event",
    "check_record",
    "dump_record",
    "event_for",
    "legal_moves",
    "load_record",
    "make_bot",
    "new_match",
    "parse_move",
    "parse_point",
    "parse_tile",
    "placement_points",
    "record_match",
    "replay",
    "round_hand",
    "score_of",
    "spectator_view",
    "validate_state",
    "view_for",
]
