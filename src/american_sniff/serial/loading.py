"""Loading a state: the front door, and the strict reader.

:func:`~american_sniff.serial.state_from_json` is the front door. An
untrusted text goes to the quick reader (:mod:`american_sniff.serial.quick`)
first and, if it gives way, to the strict reader here, which names the first
problem; a signed text with a key goes to :mod:`american_sniff.serial.signed`.
Either way an untrusted state is then checked in full by
:func:`~american_sniff.validate_state`.
"""

from __future__ import annotations

from .._json import DealDoc, read_u64
from ..deal import tile_index
from ..errors import InvalidState
from ..layout import Layout, placed
from ..moves import Draw, Move, Place, parse_move
from ..replayer import IllegalPlacement, replay_table
from ..rules import side_count, side_of
from ..state import (
    ActionLog,
    Deal,
    MatchState,
    RoundEnd,
    RoundInfo,
    RoundResult,
    action_node,
    node_fields,
    previous_node,
)
from ..tiles import Tile, parse_tile
from ..validation import validate_state
from .conventions import MAX_STATE_BYTES, STATE_FORMAT, check_header, json_words
from .parsing import ActionDoc, RoundDoc, StateDoc, check_lengths, read_json, structure
from .quick import NOT_PARSED, quick_read
from .signed import signed_parse, signed_state, signed_text
from .writing import check_key

__all__ = [
    "action_log_from",
    "state_from_json",
]


def state_from_json(text: object, *, key: bytes | None = None) -> MatchState:
    """Load a state document: checked completely, or, with ``key``, trusted if signed with it.

    This is :meth:`MatchState.from_json <american_sniff.MatchState.from_json>`.

    Without ``key`` every field is checked and the round is replayed (see
    :func:`~american_sniff.validate_state`); a signature, if any, is ignored.
    With ``key`` the text must be a save that :func:`state_to_json` signed
    with that very key: its signature is checked and the state is built with
    no replay, in time proportional to the text's length.

    :raises InvalidState: naming the first problem (with ``key``: also a
        missing or wrong signature).
    :raises ValueError: if ``key`` is not bytes of at least 16 bytes.
    """
    if key is not None:
        # The library wrote this very text: the plain parser reads it as is.
        unsigned = signed_text(text, check_key(key))
        known, data = signed_parse(unsigned)
    else:
        quick, data = quick_read(text)
        if quick is not None:
            return quick
        if data is NOT_PARSED:  # else the quick reader's document is the strict parser's
            data = read_json(text, max_bytes=MAX_STATE_BYTES, error=InvalidState, what="the state")
    if isinstance(data, dict):
        check_header(data, STATE_FORMAT, InvalidState)
        check_lengths(data, InvalidState)
    if key is not None:
        try:
            return signed_state(data, unsigned, known)
        except (TypeError, KeyError, ValueError, IndexError, AttributeError) as exc:
            # only a key holder could write such a text
            raise InvalidState(
                f"the signed state is not in the format: {type(exc).__name__} {exc}"
            ) from None
    doc = structure(data, StateDoc, InvalidState, "the state")
    try:
        state = _build_state(doc)
    except InvalidState:
        raise
    except (ValueError, TypeError, KeyError, IndexError) as exc:
        raise InvalidState(f"the state cannot be built: {exc}") from None
    validate_state(state)
    return state


def _tile_list(texts: list[str], what: str) -> tuple[Tile, ...]:
    tiles = []
    for position, text in enumerate(texts):
        try:
            tiles.append(parse_tile(text, strict=True))
        except ValueError as exc:
            raise InvalidState(f"{what}[{position}]: {exc}") from None
    return tuple(tiles)


def _hands_from(doc: list[list[str]], what: str) -> tuple[tuple[Tile, ...], ...]:
    return tuple(_tile_list(hand, f"{what}[{seat}]") for seat, hand in enumerate(doc))


def action_log_from(
    actions: list[ActionDoc],
    players: int,
    final_scores: tuple[int, ...],
    what: str,
    *,
    hidden_draws: bool = False,
) -> ActionLog:
    """The action log of a history, with each action's scores worked out from ``final_scores``.

    The scores after each action are not written in the document: they are the
    final scores less the points claimed by the placements that follow it.
    The replay in :func:`~american_sniff.validate_state` then checks every claim.
    With ``hidden_draws`` (a view's history), a draw's tile may be null.

    :raises InvalidState: naming the first action not in the format.
    """
    moves: list[tuple[int, Move, Tile | None, int | None, int]] = []
    for index, action in enumerate(actions):
        where = f"{what}[{index}]"
        try:
            move = parse_move(action.move, strict=True)
        except ValueError as exc:
            raise InvalidState(f"{where}.move: {exc}") from None
        if not 0 <= action.seat < players:
            raise InvalidState(f"{where}.seat must be from 0 to {players - 1}, got {action.seat}")
        drew = type(move) is Draw
        if drew != (action.tile is not None) and not (drew and hidden_draws):
            need = "the tile drawn" if drew else "null"
            raise InvalidState(f"{where}.tile must be {need} for {action.move!r}")
        placed = type(move) is Place
        if placed != (action.end_sum is not None) or placed != (action.points is not None):
            need = "integers" if placed else "null"
            raise InvalidState(f"{where}.end_sum and .points must be {need} for {action.move!r}")
        tile = None if action.tile is None else _tile_list([action.tile], f"{where}.tile")[0]
        moves.append((action.seat, move, tile, action.end_sum, action.points or 0))
    scores = list(final_scores)
    after: list[tuple[int, ...]] = []
    for seat, _, _, _, points in reversed(moves):
        after.append(tuple(scores))
        scores[side_of(players, seat)] -= points
    after.reverse()
    log: ActionLog = None
    for (seat, move, tile, end_sum, points), scores_after in zip(moves, after, strict=True):
        log = action_node(seat, move, tile, end_sum, points, scores_after, log)
    return log


def _layout_from(log: ActionLog, what: str, trusted: bool = False) -> Layout:
    """The table that the placements of ``log`` build; ``trusted``: the library's own, unchecked."""
    placements = []
    node = log
    while node is not None:
        move = node_fields(node)[1]
        if type(move) is Place:
            placements.append(move)
        node = previous_node(node)
    layout = Layout.empty()
    if trusted:
        for move in reversed(placements):
            layout = placed(layout, move.tile, None if move.at is None else move.at.order)
        return layout
    table = replay_table(reversed(placements), first=1)
    if isinstance(table, IllegalPlacement):
        raise InvalidState(
            "the table is not a legal sequence of placements: "
            + table.describe(f"placement {table.index} of {what} ({table.move})")
        )
    return table


def _round_from(doc: RoundDoc, players: int, trusted: bool = False) -> RoundResult:
    if doc.end not in ("domino", "blocked"):
        raise InvalidState(
            f"$.last_round.end must be 'domino' or 'blocked', got {json_words(doc.end)}"
        )
    if len(doc.deductions) != players:
        raise InvalidState(f"$.last_round.deductions must hold {players} integers")
    before = list(doc.scores)
    if len(before) != side_count(players):
        raise InvalidState("$.last_round.scores must hold one integer per side")
    for seat, amount in enumerate(doc.deductions):
        before[side_of(players, seat)] += amount
    log = action_log_from(doc.history, players, tuple(before), "$.last_round.history")
    return RoundResult(
        round=doc.round,
        end=RoundEnd(doc.end),
        finisher=doc.finisher,
        layout=_layout_from(log, "$.last_round.history", trusted),
        hands=_hands_from(doc.hands, "$.last_round.hands"),
        deductions=tuple(doc.deductions),
        scores=tuple(doc.scores),
        log=log,
        given=_given(doc.dealt_from),
    )


def _build_state(doc: StateDoc, *, trusted: bool = False) -> MatchState:
    """The state a document describes, unchecked beyond its shape (see validate_state).

    ``trusted``: the document is one the library signed, so its table is built
    without checking each placement again.
    """
    players = doc.players
    if players not in (2, 3, 4):
        raise InvalidState(f"$.players must be 2, 3 or 4, got {players}")
    seed = read_u64(doc.seed, "$.seed", InvalidState)
    rng = read_u64(doc.rng, "$.rng", InvalidState)
    scores = tuple(doc.scores)
    if len(scores) != side_count(players):
        raise InvalidState(f"$.scores must hold one integer per side, got {len(scores)}")
    if len(doc.hands) != players:
        raise InvalidState(f"$.hands must hold {players} hands, got {len(doc.hands)}")
    log = action_log_from(doc.history, players, scores, "$.history")
    drawn_tiles = _drawn_tiles(log)
    info = RoundInfo(
        players=players,
        seed=seed,
        round=doc.round,
        opener=doc.opener,
        deck=(*drawn_tiles, *_tile_list(doc.stock, "$.stock")),
        deals=_deals_from(doc.deals),
        rng=rng,
        last_round=None
        if doc.last_round is None
        else _round_from(doc.last_round, players, trusted),
        actions_before=doc.actions_before,
        given=_given(doc.dealt_from),
    )
    hands = tuple(tuple(sorted(hand, key=tile_index)) for hand in _hands_from(doc.hands, "$.hands"))
    return MatchState(
        info=info,
        turn=doc.turn,
        hands=hands,
        layout=_layout_from(log, "$.history", trusted),
        scores=scores,
        winner=doc.winner,
        drawn=None if doc.drawn is None else _tile_list([doc.drawn], "$.drawn")[0],
        drawn_count=len(drawn_tiles),
        log=log,
    )


def _given(dealt_from: str) -> bool:
    if dealt_from not in ("seed", "deal"):
        raise InvalidState(f"$.dealt_from must be 'seed' or 'deal', got {json_words(dealt_from)}")
    return dealt_from == "deal"


def _drawn_tiles(log: ActionLog) -> list[Tile]:
    """The tiles drawn in the round so far, first drawn first, from its action ``log``."""
    drawn_tiles: list[Tile] = []
    node = log
    while node is not None:
        drawn = node_fields(node)[2]
        if drawn is not None:
            drawn_tiles.append(drawn)
        node = previous_node(node)
    drawn_tiles.reverse()
    return drawn_tiles


def _deals_from(docs: list[DealDoc]) -> tuple[Deal, ...]:
    """The deals of a state document's ``deals`` list."""
    deals = []
    for number, deal in enumerate(docs):
        try:
            deals.append(
                Deal(
                    hands=_hands_from(deal.hands, f"$.deals[{number}].hands"),
                    stock=_tile_list(deal.stock, f"$.deals[{number}].stock"),
                    opener=deal.opener,
                )
            )
        except ValueError as exc:
            raise InvalidState(f"$.deals[{number}]: {exc}") from None
    return tuple(deals)
