"""The state's document as dicts of JSON values: what the writers write, in plain form.

The text writers (:mod:`american_sniff.serial.writing`) write these very
dicts as compact JSON, byte for byte; the tests compare them.
"""

from __future__ import annotations

from typing import Any

from .._json import deprecated, u64_text
from ..moves import Place
from ..state import Action, MatchState, RoundResult
from ..tiles import Tile
from .conventions import STATE_FORMAT, document_header, move_text, tile_text

__all__ = [
    "action_to_dict",
    "action_to_json",
    "round_result_to_dict",
    "state_to_dict",
]


def _hands_doc(hands: tuple[tuple[Tile, ...], ...]) -> list[list[str]]:
    return [[tile_text(t) for t in hand] for hand in hands]


def action_to_dict(action: Action, *, hide_tile: bool = False) -> dict[str, Any]:
    """The JSON object of one action (see the module's conventions)."""
    placed = isinstance(action.move, Place)
    return {
        "seat": action.seat,
        "move": move_text(action.move),
        "tile": None if action.tile is None or hide_tile else tile_text(action.tile),
        "end_sum": action.end_sum if placed else None,
        "points": action.points if placed else None,
    }


def _round_doc(result: RoundResult) -> dict[str, Any]:
    return {
        "round": result.round,
        "end": result.end.value,
        "finisher": result.finisher,
        "hands": _hands_doc(result.hands),
        "deductions": list(result.deductions),
        "scores": list(result.scores),
        "history": [action_to_dict(a) for a in result.history],
        "dealt_from": "deal" if result.given else "seed",
    }


def round_result_to_dict(result: RoundResult | None) -> dict[str, Any] | None:
    """The JSON object of a finished round, or None."""
    return None if result is None else _round_doc(result)


def state_to_dict(state: MatchState) -> dict[str, Any]:
    """The state document as a dict of JSON values (what :func:`state_to_json` writes)."""
    info = state.info
    return {
        **document_header(STATE_FORMAT),
        "players": info.players,
        "seed": u64_text(info.seed),
        "rng": u64_text(info.rng),
        "round": info.round,
        "opener": info.opener,
        "turn": state.turn,
        "scores": list(state.scores),
        "winner": state.winner,
        "hands": _hands_doc(state.hands),
        "stock": [tile_text(t) for t in state.stock],
        "drawn": None if state.drawn is None else tile_text(state.drawn),
        "history": [action_to_dict(a) for a in state.history],
        "deals": [
            {
                "hands": _hands_doc(deal.hands),
                "stock": [tile_text(t) for t in deal.stock],
                "opener": deal.opener,
            }
            for deal in info.deals
        ],
        "last_round": round_result_to_dict(info.last_round),
        "actions_before": info.actions_before,
        "dealt_from": "deal" if info.given else "seed",
    }


#: Deprecated: :func:`action_to_dict` (the name said JSON text, the value is a dict).
action_to_json = deprecated(
    "american_sniff.serial.action_to_json", "american_sniff.serial.action_to_dict", action_to_dict
)
#: Deprecated: :func:`round_result_to_dict` (the value is a dict, not JSON text).
round_result_to_json = deprecated(
    "american_sniff.serial.round_result_to_json",
    "american_sniff.serial.round_result_to_dict",
    round_result_to_dict,
)
