"""The signed reader: a save the library signed, read straight, with no replay.

What :func:`~american_sniff.serial.state_from_json` does with a key:
``signed_text`` checks the signature, then ``signed_parse`` and
``signed_state`` build the state from the writers' own text, keeping what the
next load of the same match will read again.
"""

from __future__ import annotations

import hmac
import json
import re
from typing import Any

from ..errors import InvalidState
from ..layout import Layout, placed
from ..moves import Place, parse_move
from ..rules import side_of
from ..state import ActionLog, Deal, MatchState, RoundEnd, RoundInfo, RoundResult
from ..tiles import Tile
from .conventions import MAX_STATE_BYTES, TILE_OF_TEXT
from .writing import (
    AFTER_HISTORY,
    AFTER_LAST,
    HISTORY_KEY,
    LAST_KEY,
    LOG_TEXTS,
    ROUND_TEXTS,
    SAVES_KEPT,
    SIGNED_PLACEMENTS,
    SIGNED_TABLES,
    SIGNED_TABLES_LIMIT,
    signature_of,
)

# Nothing here is public: the package's own modules use these names.
__all__: list[str] = []

#: A signature as state_to_json writes it: the HMAC-SHA256 digest in lowercase hex.
_HEX64 = re.compile(r"[0-9a-f]{64}")

#: The length of the ``,"signature":"..."}`` that ends a signed save.
_SIGNATURE_TAIL = len(',"signature":""}') + 64


def signed_text(text: object, key: bytes) -> str:
    """The unsigned text of a signed save, if its signature is right under ``key``."""
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidState("the state is not UTF-8 text") from None
    if not isinstance(text, str):
        raise InvalidState(f"the state must be JSON text (str or bytes), got {type(text).__name__}")
    if len(text) > MAX_STATE_BYTES:
        raise InvalidState(
            f"the state is {len(text)} characters long; at most {MAX_STATE_BYTES} are read"
        )
    head, tail = text[:-_SIGNATURE_TAIL], text[-_SIGNATURE_TAIL:]
    if not (tail.startswith(',"signature":"') and tail.endswith('"}')):
        raise InvalidState("the state is not signed: it does not end with its signature")
    given = tail[14:-2]
    # Exactly 64 lowercase hex digits before any comparison: compare_digest
    # refuses non-ASCII text with a TypeError, and a signature of any other
    # shape was never written by state_to_json.
    if _HEX64.fullmatch(given) is None:
        raise InvalidState("the state's signature is not 64 lowercase hexadecimal digits")
    unsigned = head + "}"
    try:
        expected = signature_of(key, unsigned)
    except UnicodeEncodeError:
        # a lone surrogate: no text that state_to_json wrote holds one
        raise InvalidState("the state holds a character that is not valid Unicode") from None
    if not hmac.compare_digest(expected, given):
        raise InvalidState("the state's signature is wrong: it was not written with this key")
    return unsigned


#: A signed save's round read so far: its log, its table, the placements' move
#: texts, the table after each action, and the tiles drawn, in that order.
_SignedHistory = tuple[ActionLog, Layout, list[str], list[Layout], list[Tile]]
_NO_HISTORY: _SignedHistory = (None, Layout.empty(), [], [], [])


def _signed_round(
    actions: list[dict[str, Any]],
    players: int,
    final: list[int],
    start: _SignedHistory = _NO_HISTORY,
) -> _SignedHistory:
    """A signed save's history read with no checks, on from ``start`` (the history before).

    The log is what :func:`action_log_from` makes (each action's scores
    worked out from ``final``, the scores after the last action); the table
    is placed as the log goes; the placements' move texts, in order, are
    what the views write of the table; and the tiles drawn are in the order
    drawn. ``start``'s lists are copied, never changed.
    """
    count = len(actions)
    after: list[tuple[int, ...]] = [()] * count
    scores = list(final)
    current = tuple(scores)
    for index in range(count - 1, -1, -1):
        after[index] = current
        action = actions[index]
        points = action["points"]
        if points:
            scores[side_of(players, action["seat"])] -= points
            current = tuple(scores)
    log, layout, placed_before, tables_before, drawn_before = start
    placements = list(placed_before)
    tables = list(tables_before)
    drawn = list(drawn_before)
    tiles = TILE_OF_TEXT
    for index in range(count):
        action = actions[index]
        text: str = action["move"]
        move = parse_move(text, strict=True)
        tile = action["tile"]
        end_sum = action["end_sum"]
        if end_sum is not None:
            assert type(move) is Place
            at = move.at
            layout = placed(layout, move.tile, None if at is None else at.order)
            placements.append(text)
        if tile is not None:
            tile = tiles[tile]
            drawn.append(tile)
        log = (action["seat"], move, tile, end_sum, action["points"] or 0, after[index], log)
        tables.append(layout)
    if log is not None:
        if len(SIGNED_TABLES) >= SIGNED_TABLES_LIMIT:
            SIGNED_TABLES.clear()
        SIGNED_TABLES[id(log)] = (log, tables)
    return log, layout, placements, tables, drawn


#: The current round of each signed save read, by its history's text and the
#: scores after it (a signed text is the writers' own, so the same text and
#: scores are the same history): a server that loads each state of a match in
#: turn reads only the action that the state before did not have.
_SIGNED_HISTORIES: dict[tuple[str, tuple[int, ...]], _SignedHistory] = {}
_SIGNED_HISTORIES_LIMIT = 1 << 10


def _signed_history(text: str, players: int, final: list[int]) -> _SignedHistory:
    """The current round of a signed save, from the ``text`` of its history's actions.

    A history read before (by its text and scores) is reused as it is; one
    that is a history read before and one action more reads that action
    alone; any other is read whole. Either way the result is the same.
    """
    scores = tuple(final)
    known = _SIGNED_HISTORIES.get((text, scores))
    if known is not None:
        return known
    history = None
    cut = text.rfind("},{")
    last = json.loads(text[cut + 2 :] if cut >= 0 else text) if text else None
    if isinstance(last, dict):
        before = list(final)
        if last["points"]:
            before[side_of(players, last["seat"])] -= last["points"]
        start = _SIGNED_HISTORIES.get((text[: cut + 1], tuple(before))) if cut >= 0 else _NO_HISTORY
        if start is not None:
            history = _signed_round([last], players, final, start)
    if history is None:
        history = _signed_round(json.loads("[" + text + "]"), players, final)
    if len(_SIGNED_HISTORIES) >= _SIGNED_HISTORIES_LIMIT:
        _SIGNED_HISTORIES.clear()
    _SIGNED_HISTORIES[(text, scores)] = history
    return history


def _signed_hands(docs: list[list[str]]) -> tuple[tuple[Tile, ...], ...]:
    tiles = TILE_OF_TEXT
    return tuple([tuple([tiles[text] for text in hand]) for hand in docs])


def _keep_signed_texts(
    text: str, log: ActionLog, result: RoundResult | None, tables: list[tuple[Layout, list[str]]]
) -> None:
    """Keep the history and the last round of a signed save's ``text`` as the writers would.

    The library wrote the text, in the writers' order of keys, so the history's
    actions and the last round's object are the very text that ``log_text``
    and ``round_text`` would make of them: saving the next state writes one
    action more, not the whole round again. The texts of the ``tables``
    (each with its placements' move texts) are kept too, for the views.
    """
    if len(LOG_TEXTS) + 1 > SAVES_KEPT:
        LOG_TEXTS.clear()
    if len(ROUND_TEXTS) + 1 > SAVES_KEPT:
        ROUND_TEXTS.clear()
    if len(SIGNED_PLACEMENTS) + len(tables) > SAVES_KEPT:
        SIGNED_PLACEMENTS.clear()
    start = text.find(',"history":[')
    end = text.find('],"deals":[', start)
    if log is not None and 0 <= start < end:
        LOG_TEXTS[id(log)] = (log, text[start + len(',"history":[') : end])
    if result is not None:
        first = text.find(',"last_round":', end)
        last = text.find(',"actions_before":', first)
        if 0 <= end < first < last:
            ROUND_TEXTS[id(result)] = (result, text[first + len(',"last_round":') : last])
    for layout, moves in tables:
        if moves:
            SIGNED_PLACEMENTS[id(layout)] = (layout, '"' + '","'.join(moves) + '"')


#: The previous round of each signed save read, by its text as the writers give
#: it (a signed text is the writers' own): every state of a round holds the same
#: previous round, so a server that loads each signed state of a match parses
#: and builds the round before once per round.
_SIGNED_ROUNDS: dict[str, RoundResult] = {}
_SIGNED_ROUNDS_LIMIT = 256


def _last_round_span(text: str) -> tuple[int, int]:
    """Where the previous round's text of a state document starts and ends (-1 if not found)."""
    first = text.find(LAST_KEY)
    end = text.find(AFTER_LAST, first)
    if 0 < first < end:
        return first + len(LAST_KEY), end
    return -1, -1


def signed_parse(text: str) -> tuple[RoundResult | None, Any]:
    """The previous round of a signed save's ``text``, if read before, and the rest parsed.

    The library wrote the text, in the writers' order of keys, so the one
    ``history`` and ``last_round`` keys are the state's. The history is cut
    out (:func:`signed_state` reads it from the text, see
    :func:`_signed_history`), and so is a previous round read before; the
    rest is parsed with an empty list and null in their places.
    """
    first = text.find(HISTORY_KEY) + len(HISTORY_KEY)
    end = text.find(AFTER_HISTORY, first)
    if first < len(HISTORY_KEY) or end < 0:
        return None, json.loads(text)  # not the writers' text: read whole (and refused)
    start, stop = _last_round_span(text)
    result = _SIGNED_ROUNDS.get(text[start:stop]) if start > end else None
    if result is None:
        return None, json.loads(text[:first] + text[end:])
    return result, json.loads(text[:first] + text[end:start] + "null" + text[stop:])


def signed_state(data: dict[str, Any], text: str, known: RoundResult | None) -> MatchState:
    """The state of a signed save, built straight from its parsed JSON ``data``.

    The library wrote the ``text`` (its signature says so), so nothing is
    checked again and nothing is replayed: each action costs a few look-ups.
    ``known`` is the previous round if it was read before (see
    :func:`signed_parse`; ``data`` then holds null for it).
    """
    players = data["players"]
    tiles = TILE_OF_TEXT
    first = text.find(HISTORY_KEY) + len(HISTORY_KEY)
    history = text[first : text.find(AFTER_HISTORY, first)]
    log, layout, placements, _, drawn_tiles = _signed_history(history, players, data["scores"])
    tables = [(layout, placements)]
    last = data["last_round"]
    result = known
    if last is not None:
        before = list(last["scores"])
        for seat, amount in enumerate(last["deductions"]):
            before[side_of(players, seat)] += amount
        last_log, last_layout, last_placements, _, _ = _signed_round(
            last["history"], players, before
        )
        tables.append((last_layout, last_placements))
        result = RoundResult(
            round=last["round"],
            end=RoundEnd(last["end"]),
            finisher=last["finisher"],
            layout=last_layout,
            hands=_signed_hands(last["hands"]),
            deductions=tuple(last["deductions"]),
            scores=tuple(last["scores"]),
            log=last_log,
            given=last.get("dealt_from") == "deal",
        )
        start, end = _last_round_span(text)
        if start > 0:
            if len(_SIGNED_ROUNDS) >= _SIGNED_ROUNDS_LIMIT:
                _SIGNED_ROUNDS.clear()
            _SIGNED_ROUNDS[text[start:end]] = result
    info = RoundInfo(
        players=players,
        seed=int(data["seed"]),
        round=data["round"],
        opener=data["opener"],
        deck=(*drawn_tiles, *[tiles[text] for text in data["stock"]]),
        deals=tuple(
            [
                Deal(
                    hands=_signed_hands(deal["hands"]),
                    stock=tuple([tiles[text] for text in deal["stock"]]),
                    opener=deal["opener"],
                )
                for deal in data["deals"]
            ]
        ),
        rng=int(data["rng"]),
        last_round=result,
        actions_before=data.get("actions_before", 0),
        given=data.get("dealt_from") == "deal",
    )
    drawn = data["drawn"]
    _keep_signed_texts(text, log, result, tables)
    return MatchState(
        info=info,
        turn=data["turn"],
        hands=_signed_hands(data["hands"]),
        layout=layout,
        scores=tuple(data["scores"]),
        winner=data["winner"],
        drawn=None if drawn is None else tiles[drawn],
        drawn_count=len(drawn_tiles),
        log=log,
    )
