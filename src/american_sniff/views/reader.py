"""Reading views and events: strict, bounded, and every derived key checked against the rest."""

from __future__ import annotations

from typing import Any

import attrs

from .. import rules
from .._view_docs import EventDoc, GeometryDoc, ViewDoc, ViewRoundDoc
from ..errors import InvalidState, InvalidView
from ..layout import Layout
from ..moves import Draw, Move, Place, parse_move
from ..rules import TARGET
from ..serial.conventions import check_header
from ..serial.dicts import action_to_dict
from ..serial.loading import action_log_from
from ..serial.parsing import (
    EVENT_LIMITS,
    VIEW_LIMITS,
    ActionDoc,
    check_limits,
    read_json,
    structure,
)
from ..state import (
    Action,
    ActionLog,
    RoundEnd,
    RoundResult,
    action_node,
    node_fields,
    previous_node,
)
from ..tiles import Tile, parse_tile
from .checks import check_view
from .model import EVENT_FORMAT, VIEW_FORMAT, PlayerView, SpectatorView, ViewEvent, tile_order
from .writer import geometry_to_dict, table_doc

__all__ = [
    "MAX_VIEW_BYTES",
    "event_from_json",
    "view_from_json",
]

# -- JSON: reading ----------------------------------------------------------------------

#: The longest view or event text that reading accepts: 256 KiB.
MAX_VIEW_BYTES = 1 << 18


def view_from_json(text: object) -> SpectatorView:
    """Read a view document: a player's view, or a spectator's if its seat is null.

    Beyond the format, every derived key is checked against the rest (the
    table against its placements, the previews against the legal moves, the
    last action against the history), and then the view against the rules by
    :func:`~american_sniff.views.check_view`, which plays the round again in
    public. What no legal play can give is refused:

    * a round that does not start where the previous one ended (round 1 at
      zero), or a previous round's result that no round ends with;
    * a history whose actions are out of turn or illegal (a draw without
      stock, a pass with stock, a placement that does not fit, claims other
      than the table's), or that does not build the table shown;
    * hand sizes or a stock size other than the deal and the history leave, a
      tile twice (in the hand and on the table);
    * a viewer's hand that its own draws and placements contradict, or that
      another seat placed from;
    * a turn, drawn tile or legal moves other than the play leaves;
    * voids other than the history shows, or a round they show blocked;
    * scores other than the start's plus the round's points, a winner below
      the target or a side at it with no winner;
    * a sequence number other than round 1's actions, or below what the
      rounds so far can have taken.

    :raises InvalidView: naming the first problem.
    """
    data = read_json(text, max_bytes=MAX_VIEW_BYTES, error=InvalidView, what="the view")
    if isinstance(data, dict):
        check_header(data, VIEW_FORMAT, InvalidView)
        check_limits(data, VIEW_LIMITS, InvalidView)
    return _view_from(structure(data, ViewDoc, InvalidView, "the view"), "$")


def event_from_json(text: object) -> ViewEvent:
    """Read an event document.

    :raises InvalidView: naming the first problem.
    """
    data = read_json(text, max_bytes=MAX_VIEW_BYTES, error=InvalidView, what="the event")
    if isinstance(data, dict):
        check_header(data, EVENT_FORMAT, InvalidView)
        if isinstance(data.get("next_round"), dict):
            check_header(data["next_round"], VIEW_FORMAT, InvalidView)
        check_limits(data, EVENT_LIMITS, InvalidView)
    doc = structure(data, EventDoc, InvalidView, "the event")
    next_round = None if doc.next_round is None else _view_from(doc.next_round, "$.next_round")
    players = len(doc.voids)
    if players not in rules.PLAYER_COUNTS:
        raise InvalidView(f"$.voids must hold one list per seat, got {players}")
    action = _action_from(doc.action, doc.scores, doc.winner, players, "$.action")
    if next_round is not None and next_round.viewer != doc.viewer:
        raise InvalidView("$.next_round is a view for another viewer than the event's")
    return ViewEvent(
        viewer=_optional_seat(doc.viewer, players, "$.viewer"),
        seq=_count(doc.seq, "$.seq"),
        action=action,
        turn=_seat(doc.turn, players, "$.turn"),
        drawn=None if doc.drawn is None else _tile(doc.drawn, "$.drawn"),
        legal_moves=tuple(_move(m, f"$.legal_moves[{i}]") for i, m in enumerate(doc.legal_moves)),
        voids=_voids(doc.voids, players, "$.voids"),
        next_round=next_round,
    )


def _seat(value: int, players: int, where: str) -> int:
    if not 0 <= value < players:
        raise InvalidView(f"{where} must be a seat from 0 to {players - 1}, got {value}")
    return value


def _optional_seat(value: int | None, players: int, where: str) -> int | None:
    return None if value is None else _seat(value, players, where)


def _count(value: int, where: str) -> int:
    if value < 0:
        raise InvalidView(f"{where} must not be negative, got {value}")
    return value


def _tile(text: str, where: str) -> Tile:
    try:
        return parse_tile(text, strict=True)
    except ValueError as exc:
        raise InvalidView(f"{where}: {exc}") from None


def _move(text: str, where: str) -> Move:
    try:
        return parse_move(text, strict=True)
    except ValueError as exc:
        raise InvalidView(f"{where}: {exc}") from None


def _voids(docs: list[list[int]], players: int, where: str) -> tuple[frozenset[int], ...]:
    if len(docs) != players:
        raise InvalidView(f"{where} must hold {players} lists, one per seat")
    for seat, values in enumerate(docs):
        if values != sorted(set(values)) or any(not 0 <= v <= rules.MAX_PIPS for v in values):
            raise InvalidView(f"{where}[{seat}] must be distinct values from 0 to 6, in order")
    return tuple(frozenset(values) for values in docs)


def _action_from(
    doc: ActionDoc, scores: list[int], winner: int | None, players: int, where: str
) -> Action:
    log = _log([doc], players, tuple(scores), where, "the action", check_sides=True)
    assert log is not None
    seat, move, tile, end_sum, points, after = node_fields(log)
    return Action(seat, move, tile, end_sum, points, after, None, winner)


def _log(  # noqa: PLR0913 - one keyword-only switch beyond the five
    docs: list[ActionDoc],
    players: int,
    scores: tuple[int, ...],
    where: str,
    what: str,
    *,
    check_sides: bool = False,
) -> ActionLog:
    if check_sides and len(scores) != rules.side_count(players):
        raise InvalidView(f"{where}: the scores must hold one integer per side")
    try:
        return action_log_from(docs, players, scores, where, hidden_draws=True)
    except InvalidState as exc:
        raise InvalidView(f"{what}: {exc}") from None


def _layout(placements: list[str], where: str) -> Layout:
    layout = Layout.empty()
    for index, text in enumerate(placements):
        move = _move(text, f"{where}[{index}]")
        if type(move) is not Place:
            raise InvalidView(f"{where}[{index}] is not a placement: {text!r}")
        try:
            layout = layout.place(move.tile, move.at)
        except ValueError as exc:
            raise InvalidView(f"{where}[{index}] ({text}) is illegal: {exc}") from None
    return layout


def _view_from(doc: ViewDoc, where: str) -> SpectatorView:
    """The view a document describes; every derived key must agree with the rest."""
    players = doc.players
    if players not in rules.PLAYER_COUNTS:
        raise InvalidView(f"{where}.players must be 2, 3 or 4, got {players}")
    sides = rules.side_count(players)
    scores = tuple(doc.scores)
    if len(scores) != sides:
        raise InvalidView(f"{where}.scores must hold one integer per side, got {len(scores)}")
    layout = _layout(doc.table.placements, f"{where}.table.placements")
    if table_doc(layout) != attrs.asdict(doc.table):
        raise InvalidView(f"{where}.table does not match the table its placements build")
    if len(doc.hand_sizes) != players:
        raise InvalidView(f"{where}.hand_sizes must hold {players} integers")
    log = _log(doc.history, players, scores, f"{where}.history", "the history")
    last_round = None if doc.last_round is None else _round_from(doc.last_round, players, where)
    last_action = _last_action_from(doc, players, log, last_round, where)
    ended = last_action if log is None else None
    public: dict[str, Any] = {
        "players": players,
        "round": _count(doc.round, f"{where}.round"),
        "opener": _seat(doc.opener, players, f"{where}.opener"),
        "turn": _seat(doc.turn, players, f"{where}.turn"),
        "target": doc.target,
        "scores": scores,
        "winner": None if doc.winner is None else _seat(doc.winner, sides, f"{where}.winner"),
        "hand_sizes": tuple(_count(n, f"{where}.hand_sizes") for n in doc.hand_sizes),
        "stock_size": _count(doc.stock_size, f"{where}.stock_size"),
        "layout": layout,
        "last_round": last_round,
        "voids": _voids(doc.voids, players, f"{where}.voids"),
        "seq": _count(doc.seq, f"{where}.seq"),
        "ended": ended,
        "log": log,
    }
    if doc.target != TARGET[players]:
        raise InvalidView(f"{where}.target is {TARGET[players]} with {players} players")
    if doc.geometry is not None:
        _check_geometry(doc.geometry, layout, f"{where}.geometry")
    _check_draws_shown(log, doc.seat, f"{where}.history")
    if last_round is not None:
        _check_draws_shown(_log_of(last_round), doc.seat, f"{where}.last_round.history")
    if doc.seat is None:
        for key in ("hand", "drawn", "legal_moves", "previews"):
            if getattr(doc, key) is not None:
                raise InvalidView(f"{where}.{key} must be null in a spectator's view")
        spectator = SpectatorView(**public)
        check_view(spectator, where)
        return spectator
    seat = _seat(doc.seat, players, f"{where}.seat")
    if doc.hand is None or doc.legal_moves is None or doc.previews is None:
        raise InvalidView(f"{where}: a player's view has a hand, legal moves and previews")
    hand = tuple(_tile(t, f"{where}.hand[{i}]") for i, t in enumerate(doc.hand))
    if list(hand) != sorted(set(hand), key=tile_order) or len(hand) != doc.hand_sizes[seat]:
        raise InvalidView(f"{where}.hand must be distinct tiles, sorted, as many as its size")
    view = PlayerView(
        **public,
        seat=seat,
        hand=hand,
        drawn=None if doc.drawn is None else _tile(doc.drawn, f"{where}.drawn"),
        legal_moves=tuple(
            _move(m, f"{where}.legal_moves[{i}]") for i, m in enumerate(doc.legal_moves)
        ),
    )
    previews = [attrs.astuple(p) for p in doc.previews]
    if previews != [(str(p.move), p.end_sum, p.points) for p in view.previews]:
        raise InvalidView(f"{where}.previews do not match the legal moves on this table")
    check_view(view, where)
    return view


def _check_geometry(doc: GeometryDoc, layout: Layout, where: str) -> None:
    """The geometry written must be the table's, laid out on the page it names."""
    page = doc.page
    if page is not None and (len(page) != 2 or min(page) <= 0):
        raise InvalidView(f"{where}.page must be null or two positive integers, got {page}")
    from ..render.geometry import table_geometry  # noqa: PLC0415 (loaded when drawn)

    made = table_geometry(layout, page=None if page is None else (page[0], page[1]))
    if geometry_to_dict(made) != attrs.asdict(doc):
        raise InvalidView(f"{where} is not the table's geometry on its page")


def _check_draws_shown(log: ActionLog, viewer: int | None, where: str) -> None:
    """A view shows the tiles its own seat drew and hides every other."""
    while log is not None:
        seat, move, tile, *_ = node_fields(log)
        log = previous_node(log)
        if type(move) is Draw and (tile is not None) != (seat == viewer):
            need = "the tile drawn" if seat == viewer else "null (hidden from this viewer)"
            raise InvalidView(f"{where}: the tile of a draw by seat {seat} must be {need}")


def _log_of(result: RoundResult) -> ActionLog:
    """The log of a finished round, newest first, from its history."""
    log: ActionLog = None
    for a in result.history:
        log = action_node(a.seat, a.move, a.tile, a.end_sum, a.points, a.scores, log)
    return log


def _round_from(doc: ViewRoundDoc, players: int, where: str) -> RoundResult:
    where = f"{where}.last_round"
    try:
        end = RoundEnd(doc.end)
    except ValueError:
        raise InvalidView(f"{where}.end must be 'domino' or 'blocked', got {doc.end!r}") from None
    if len(doc.deductions) != players or len(doc.hands) != players:
        raise InvalidView(f"{where}: the hands and deductions must hold one entry per seat")
    if len(doc.scores) != rules.side_count(players):
        raise InvalidView(f"{where}.scores must hold one integer per side")
    layout = _layout(doc.placements, f"{where}.placements")
    log = None
    if doc.history is not None:
        log = _log(doc.history, players, _before_settlement(doc), f"{where}.history", "last round")
    return RoundResult(
        round=doc.round,
        end=end,
        finisher=None if doc.finisher is None else _seat(doc.finisher, players, where),
        layout=layout,
        hands=tuple(
            tuple(_tile(t, f"{where}.hands[{s}]") for t in hand) for s, hand in enumerate(doc.hands)
        ),
        deductions=tuple(doc.deductions),
        scores=tuple(doc.scores),
        log=log,
        given=_dealt_from(doc.dealt_from, where),
    )


def _dealt_from(text: str, where: str) -> bool:
    if text not in ("seed", "deal"):
        raise InvalidView(f"{where}.dealt_from must be 'seed' or 'deal', got {text!r}")
    return text == "deal"


def _before_settlement(doc: ViewRoundDoc) -> tuple[int, ...]:
    """The scores a round ended at, before its settlement took the deductions."""
    players = len(doc.deductions)
    before = list(doc.scores)
    for seat, amount in enumerate(doc.deductions):
        before[rules.side_of(players, seat)] += amount
    return tuple(before)


def _last_action_from(
    doc: ViewDoc,
    players: int,
    log: ActionLog,
    last_round: RoundResult | None,
    where: str,
) -> Action | None:
    """The view's last action: the newest of its history, or the one that ended the round before."""
    if doc.last_action is None:
        if log is not None or last_round is not None:
            raise InvalidView(f"{where}.last_action is null, but an action led to this view")
        return None
    if log is not None:
        seat, move, tile, end_sum, points, scores = node_fields(log)
        action = Action(seat, move, tile, end_sum, points, scores, None, doc.winner)
    elif doc.last_round is not None and last_round is not None:
        action = _action_from(
            doc.last_action, list(_before_settlement(doc.last_round)), None, players, where
        )
        action = attrs.evolve(action, round_result=last_round)
    else:
        raise InvalidView(f"{where}.last_action is given, but no action led to this view")
    if action_to_dict(action) != attrs.asdict(doc.last_action):
        raise InvalidView(f"{where}.last_action does not match the history")
    return action
