"""Writing views and events as JSON: as dicts of JSON values, and as text from kept pieces."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, Final

from .. import rules
from .._fast import OPEN, PLACE
from ..layout import WORTH_OF_KEY, Layout, end_sum_after, is_lone_double, placements_of
from ..moves import Place
from ..points import POINT_OF_KEY
from ..serial.conventions import document_header, tile_text
from ..serial.dicts import action_to_dict
from ..serial.writing import (
    LOG_TEXTS,
    SIGNED_PLACEMENTS,
    action_text,
    chain_text,
    ints_text,
    log_text,
    round_head_text,
    round_tail_text,
    tiles_text,
)
from ..serial.writing import kept_move_text as _move_text
from ..state import RoundResult, round_log_of
from ..tiles import Tile
from .model import (
    EVENT_FORMAT,
    PUBLIC_LIMIT,
    TABLE_PAGE,
    VIEW_FORMAT,
    Node,
    PlayerView,
    SpectatorView,
    ViewEvent,
    ended_of,
    view_log,
)

if TYPE_CHECKING:
    from ..render.geometry import Geometry, Rect


__all__ = [
    "event_to_dict",
    "geometry_to_dict",
    "view_to_dict",
]

# -- JSON: writing ----------------------------------------------------------------------


def _placements(layout: Layout) -> list[str]:
    """The moves that built the table, in the order placed (the engine's own moves)."""
    tiles = layout.tiles
    if not tiles:
        return []
    moves = [str(OPEN[tiles[0].index])]
    for tile, connection in zip(tiles[1:], layout.connections, strict=True):
        moves.append(str(PLACE[tile.index][connection.at.order]))
    return moves


def table_doc(layout: Layout) -> dict[str, Any]:
    """The ``table`` object of a view document (the reader checks a view's against it)."""
    return {
        "placements": _placements(layout),
        "open_points": [str(POINT_OF_KEY[key]) for key in layout.open_keys],
        "contributions": [
            {"point": str(c.point), "value": c.value} for c in layout.contributions()
        ],
        "end_sum": layout.end_sum,
        "sniff": None if layout.sniff is None else tile_text(layout.sniff),
    }


#: The documents of the public results views hold, by the result's id (the
#: entry holds the result, so the id cannot be reused while it lives): every
#: view of a round writes the same one.
_ROUND_DOCS: dict[int, tuple[RoundResult, dict[str, Any]]] = {}


def _round_doc(result: RoundResult) -> dict[str, Any]:
    """The document of a finished round: a fresh copy of the one made for the round."""
    entry = _ROUND_DOCS.get(id(result))
    if entry is None or entry[0] is not result:
        if len(_ROUND_DOCS) >= PUBLIC_LIMIT:
            _ROUND_DOCS.clear()
        entry = (result, _new_round_doc(result))
        _ROUND_DOCS[id(result)] = entry
    doc = entry[1]
    history = doc["history"]
    # A copy, so that a caller who changes the dict it gets changes no other view's.
    return {
        **doc,
        "hands": [list(hand) for hand in doc["hands"]],
        "deductions": list(doc["deductions"]),
        "scores": list(doc["scores"]),
        "placements": list(doc["placements"]),
        "history": None if history is None else [dict(action) for action in history],
    }


def _new_round_doc(result: RoundResult) -> dict[str, Any]:
    history = result.history
    return {
        "round": result.round,
        "end": result.end.value,
        "finisher": result.finisher,
        "hands": [[tile_text(t) for t in hand] for hand in result.hands],
        "deductions": list(result.deductions),
        "scores": list(result.scores),
        "placements": _placements(result.layout),
        "history": [action_to_dict(a) for a in history] if history else None,
        "dealt_from": "deal" if result.given else "seed",
    }


def _rect(rect: Rect) -> list[int]:
    return [rect.x0, rect.y0, rect.x1, rect.y1]


def geometry_to_dict(geometry: Geometry) -> dict[str, Any]:
    """The ``geometry`` key of a view document: the table laid out for drawing.

    Rectangles and segments are ``[x0, y0, x1, y1]`` in geometry units
    (``half`` units to a half tile), ``y`` growing downwards; directions are
    ``"east"``, ``"south"``, ``"west"`` or ``"north"``. See ``docs/formats.md``.

    >>> from american_sniff import Layout, Tile
    >>> from american_sniff.render import table_geometry
    >>> doc = geometry_to_dict(table_geometry(Layout.empty().place(Tile(1, 4))))
    >>> doc["tiles"][0]["rect"], doc["anchors"][0]["point"], doc["anchors"][0]["facing"]
    ([-2, -1, 2, 1], '[1|4] low', 'west')
    """
    from ..render.geometry import HALF  # noqa: PLC0415 (loaded when drawn)

    return {
        "page": None if geometry.page is None else list(geometry.page),
        "half": HALF,
        "bounds": _rect(geometry.bounds),
        "tiles": [
            {
                "tile": tile_text(placed.tile),
                "rect": _rect(placed.rect),
                "heading": placed.heading.name.lower(),
                "low_half": _rect(placed.low_half),
                "high_half": _rect(placed.high_half),
                "edges": [
                    {
                        "side": edge.side.value,
                        "segment": [edge.x0, edge.y0, edge.x1, edge.y1],
                        "facing": edge.facing.name.lower(),
                    }
                    for edge in placed.edges
                ],
            }
            for placed in geometry.tiles
        ],
        "anchors": [
            {
                "point": str(anchor.point),
                "x": anchor.x,
                "y": anchor.y,
                "facing": anchor.facing.name.lower(),
                "marker": _rect(anchor.marker),
                "value": anchor.value,
            }
            for anchor in geometry.anchors
        ],
    }


def view_to_dict(
    view: SpectatorView, *, geometry: bool = False, page: tuple[int, int] | None = TABLE_PAGE
) -> dict[str, Any]:
    """The view document as a dict of JSON values (what ``view.to_json()`` writes).

    A spectator's view has ``seat``, ``hand`` and ``drawn`` null and
    ``legal_moves`` and ``previews`` null. ``geometry`` is null unless asked
    for (see :meth:`~american_sniff.SpectatorView.to_json`).
    """
    player = view if isinstance(view, PlayerView) else None
    last = view.last_action
    return {
        **document_header(VIEW_FORMAT),
        "players": view.players,
        "seat": None if player is None else player.seat,
        "round": view.round,
        "opener": view.opener,
        "turn": view.turn,
        "target": view.target,
        "scores": list(view.scores),
        "winner": view.winner,
        "hand": None if player is None else [tile_text(t) for t in player.hand],
        "drawn": None if player is None or player.drawn is None else tile_text(player.drawn),
        "hand_sizes": list(view.hand_sizes),
        "stock_size": view.stock_size,
        "table": table_doc(view.layout),
        "legal_moves": None if player is None else [str(m) for m in player.legal_moves],
        "previews": None
        if player is None
        else [
            {"move": str(p.move), "end_sum": p.end_sum, "points": p.points} for p in player.previews
        ],
        "history": [action_to_dict(a) for a in view.history],
        "last_round": None if view.last_round is None else _round_doc(view.last_round),
        "voids": [sorted(values) for values in view.voids],
        "seq": view.seq,
        "last_action": None if last is None else action_to_dict(last),
        "geometry": geometry_to_dict(view.table_geometry(page)) if geometry else None,
    }


# -- JSON: writing, fast ------------------------------------------------------------------
# view.to_json() writes json.dumps(view_to_dict(view), separators=(",", ":")),
# byte for byte (the tests compare them), by joining pieces of text; the pieces
# shared by many views (the table, the previous round, the histories) are kept
# once made, so a view's text costs about the same at any point of a round.

_VIEW_HEAD = json.dumps(document_header(VIEW_FORMAT), separators=(",", ":"))[:-1]
#: The JSON text (a quoted string) of each open point, by its key.
_POINT_JSON = tuple("" if point is None else f'"{point}"' for point in POINT_OF_KEY)
#: The JSON text of each table met (its ``table`` object), by the layout's id.
_TABLE_TEXTS: dict[int, tuple[Layout, str]] = {}
#: The JSON text of each public result met (a view's ``last_round``), by its id.
_VIEW_ROUND_TEXTS: dict[int, tuple[RoundResult, str]] = {}
_TEXTS_LIMIT = 1 << 12


#: The text of each table's placements met (what ``_placements_text`` writes,
#: without its brackets), by the id of the newest node of the table's chain of
#: placements.
_PLACEMENT_TEXTS: dict[int, tuple[object, str]] = {}


def _placements_text(layout: Layout) -> str:
    """The JSON list ``_placements(layout)`` gives, kept by the table's chain of placements.

    The text of a table whose table before was written costs one placement;
    a table that a signed load built has its text from the load.
    """
    log = placements_of(layout)
    if log is None:
        return "[]"
    entry = _PLACEMENT_TEXTS.get(id(log))
    if entry is not None and entry[0] is log:
        return "[" + entry[1] + "]"
    signed = SIGNED_PLACEMENTS.get(id(layout))
    if signed is not None and signed[0] is layout:  # a table a signed load built
        if len(_PLACEMENT_TEXTS) >= _TEXTS_LIMIT:
            _PLACEMENT_TEXTS.clear()
        _PLACEMENT_TEXTS[id(log)] = (log, signed[1])
        return "[" + signed[1] + "]"
    return "[" + chain_text(_PLACEMENT_TEXTS, _TEXTS_LIMIT, log, 2, _placement_text) + "]"


def _placement_text(node: tuple[Tile, int | None, Any]) -> str:
    """One placement of a table's chain (its tile, its point's key), as a JSON string."""
    tile, key, _ = node
    move = OPEN[tile.index] if key is None else PLACE[tile.index][key]
    assert move is not None  # the key of a placement on the table
    return f'"{_move_text(move)}"'


def _table_text(layout: Layout) -> str:
    """``table_doc(layout)`` as compact JSON text, kept once made."""
    entry = _TABLE_TEXTS.get(id(layout))
    if entry is not None and entry[0] is layout:
        return entry[1]
    if len(_TABLE_TEXTS) >= _TEXTS_LIMIT:
        _TABLE_TEXTS.clear()
    keys = layout.open_keys
    worths = [f'{{"point":{_POINT_JSON[key]},"value":{WORTH_OF_KEY[key]}}}' for key in keys]
    if is_lone_double(keys):
        del worths[1]  # a lone opening double counts once, at line_a
    sniff = layout.sniff
    text = (
        f'{{"placements":{_placements_text(layout)},'
        f'"open_points":[{",".join([_POINT_JSON[key] for key in keys])}],'
        f'"contributions":[{",".join(worths)}],"end_sum":{layout.end_sum},'
        f'"sniff":{"null" if sniff is None else chr(34) + tile_text(sniff) + chr(34)}}}'
    )
    _TABLE_TEXTS[id(layout)] = (layout, text)
    return text


def _view_round_text(result: RoundResult | None) -> str:
    """``_round_doc(result)`` as compact JSON text, kept once made."""
    if result is None:
        return "null"
    entry = _VIEW_ROUND_TEXTS.get(id(result))
    if entry is not None and entry[0] is result:
        return entry[1]
    if len(_VIEW_ROUND_TEXTS) >= _TEXTS_LIMIT:
        _VIEW_ROUND_TEXTS.clear()
    log: Node = round_log_of(result)
    text = (
        f'{round_head_text(result)},"placements":{_placements_text(result.layout)},'
        f'"history":{"null" if log is None else log_text(log)},{round_tail_text(result)}'
    )
    _VIEW_ROUND_TEXTS[id(result)] = (result, text)
    return text


#: A draw's action in the text of a history: its seat and its tile.
_DRAW_TEXT = re.compile(r'\{"seat":([0-9]),"move":"draw","tile":"\[[0-6]\|[0-6]\]"')


#: How many actions back :func:`keep_hidden_text` looks for a viewer's history
#: with a text: two turns of every seat.
_HIDDEN_TEXT_REACH: Final = 8


def keep_hidden_text(log: Node, hidden: Node, viewer: int) -> None:
    """Keep the text of a viewer's history made from the round's own text, if that is kept.

    A viewer's history is the round's with other seats' drawn tiles hidden, so
    its text is the round's text (kept, say, by a signed load) with those
    tiles written null. This is done only when none of the viewer's histories
    of the last :data:`_HIDDEN_TEXT_REACH` actions has a text yet: otherwise
    writing the view adds those few actions to the text already made (a
    server that loads each state and views the seat to move meets a seat's
    history of a few actions back, not of the action before).
    """
    kept = LOG_TEXTS.get(id(log))
    if kept is None or kept[0] is not log or hidden is None:
        return
    node: Node = hidden
    for _ in range(_HIDDEN_TEXT_REACH):
        if node is None:
            break
        entry = LOG_TEXTS.get(id(node))
        if entry is not None and entry[0] is node:
            return
        node = node[6]
    mine = str(viewer)

    def hide(draw: re.Match[str]) -> str:
        if draw.group(1) == mine:
            return draw.group(0)
        return f'{{"seat":{draw.group(1)},"move":"draw","tile":null'

    LOG_TEXTS[id(hidden)] = (hidden, _DRAW_TEXT.sub(hide, kept[1]))


def view_text(view: SpectatorView, geometry: bool, page: tuple[int, int] | None) -> str:
    """``json.dumps(view_to_dict(view, ...), separators=(",", ":"))``, from kept pieces."""
    log: Node = view_log(view)
    ended = ended_of(view)
    if log is not None:
        last = action_text(log)  # the newest action alone
    elif ended is not None:
        last = json.dumps(action_to_dict(ended), separators=(",", ":"))
    else:
        last = "null"
    winner = "null" if view.winner is None else str(view.winner)
    voids = ",".join([ints_text(sorted(values)) for values in view.voids])
    if isinstance(view, PlayerView):
        layout = view.layout
        moves = [_move_text(move) for move in view.legal_moves]
        previews = []
        for move, text in zip(view.legal_moves, moves, strict=True):
            if type(move) is Place:
                at = move.at
                end_sum = end_sum_after(layout, move.tile, None if at is None else at.order)
                points = rules.placement_points(end_sum)
                previews.append(f'{{"move":"{text}","end_sum":{end_sum},"points":{points}}}')
            else:
                previews.append(f'{{"move":"{text}","end_sum":null,"points":0}}')
        drawn = view.drawn
        own = (
            f'"seat":{view.seat}',
            f'"hand":{tiles_text(view.hand)}',
            "null" if drawn is None else f'"{tile_text(drawn)}"',
            "[" + ",".join([f'"{text}"' for text in moves]) + "]",
            "[" + ",".join(previews) + "]",
        )
    else:
        own = ('"seat":null', '"hand":null', "null", "null", "null")
    drawing = "null"
    if geometry:
        drawing = json.dumps(geometry_to_dict(view.table_geometry(page)), separators=(",", ":"))
    return (
        f'{_VIEW_HEAD},"players":{view.players},{own[0]},"round":{view.round},'
        f'"opener":{view.opener},"turn":{view.turn},"target":{view.target},'
        f'"scores":{ints_text(view.scores)},"winner":{winner},{own[1]},"drawn":{own[2]},'
        f'"hand_sizes":{ints_text(view.hand_sizes)},"stock_size":{view.stock_size},'
        f'"table":{_table_text(view.layout)},"legal_moves":{own[3]},"previews":{own[4]},'
        f'"history":{log_text(log)},"last_round":{_view_round_text(view.last_round)},'
        f'"voids":[{voids}],"seq":{view.seq},"last_action":{last},"geometry":{drawing}}}'
    )


_EVENT_HEAD = json.dumps(document_header(EVENT_FORMAT), separators=(",", ":"))[:-1]


def event_text(event: ViewEvent) -> str:
    """``json.dumps(event_to_dict(event), separators=(",", ":"))``, from kept pieces."""
    action = event.action
    tile = action.tile
    move = _move_text(action.move)
    if type(action.move) is Place:
        sums = f'"end_sum":{action.end_sum},"points":{action.points}'
    else:
        sums = '"end_sum":null,"points":null'
    viewer = "null" if event.viewer is None else str(event.viewer)
    winner = "null" if action.winner is None else str(action.winner)
    drawn = "null" if event.drawn is None else f'"{tile_text(event.drawn)}"'
    moves = ",".join([f'"{_move_text(m)}"' for m in event.legal_moves])
    voids = ",".join([ints_text(sorted(values)) for values in event.voids])
    view = event.next_round
    next_round = "null" if view is None else view_text(view, False, TABLE_PAGE)
    return (
        f'{_EVENT_HEAD},"viewer":{viewer},"seq":{event.seq},'
        f'"action":{{"seat":{action.seat},"move":"{move}",'
        f'"tile":{"null" if tile is None else chr(34) + tile_text(tile) + chr(34)},{sums}}},'
        f'"scores":{ints_text(action.scores)},"winner":{winner},"turn":{event.turn},'
        f'"drawn":{drawn},"legal_moves":[{moves}],"voids":[{voids}],'
        f'"next_round":{next_round}}}'
    )


def event_to_dict(event: ViewEvent) -> dict[str, Any]:
    """The event document as a dict of JSON values (what ``event.to_json()`` writes)."""
    action = event.action
    return {
        **document_header(EVENT_FORMAT),
        "viewer": event.viewer,
        "seq": event.seq,
        "action": action_to_dict(action),
        "scores": list(action.scores),
        "winner": action.winner,
        "turn": event.turn,
        "drawn": None if event.drawn is None else tile_text(event.drawn),
        "legal_moves": [str(m) for m in event.legal_moves],
        "voids": [sorted(values) for values in event.voids],
        "next_round": None if event.next_round is None else view_to_dict(event.next_round),
    }
