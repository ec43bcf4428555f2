"""Writing a state's text fast, from pieces kept once made; and signing it.

:func:`~american_sniff.serial.state_to_json` writes the very text that
``json.dumps`` writes of :func:`~american_sniff.serial.state_to_dict`. Also
here: the tables the loads keep for the views (``SIGNED_TABLES``,
``SIGNED_PLACEMENTS``), and where the writers put the keys that the readers
cut a text at.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable
from typing import Any

from ..layout import Layout
from ..moves import Move, Place
from ..state import ActionLog, MatchState, RoundResult, log_of, round_log_of
from ..tiles import Tile
from .conventions import STATE_FORMAT, TILE_JSON, document_header

__all__ = [
    "state_to_json",
]

# -- writing, fast --------------------------------------------------------------------
# The writers below build the text that json.dumps(..., separators=(",", ":"))
# writes of the dict writers (serial.dicts), byte for byte (the tests compare them), but
# by joining pieces of text, and keep the text of each action log once made:
# a log is a chain whose every link is shared with the states before, so the
# history of a state is the history of the one before and one action more.

#: The text of each move met, by its id (the entry holds the move, so that
#: the id cannot be reused while it lives).
_MOVE_TEXTS: dict[int, tuple[Move, str]] = {}
#: The text of each action log's history met: the actions' JSON objects
#: joined by commas, oldest first, by the id of the log's newest node.
LOG_TEXTS: dict[int, tuple[ActionLog, str]] = {}
#: How many entries each table of kept texts holds; when full, it starts afresh.
TEXTS_LIMIT = 1 << 14
#: How many entries the tables kept per save hold (a history's text, a
#: round's, a table's placements), each with what it keeps alive: a whole
#: action log, some 17 KB for a distinct save. 2,048 of them keep the
#: readers' caches well below 50 MB however many distinct saves are read.
SAVES_KEPT = 1 << 11


def kept_move_text(move: Move) -> str:
    """``move_text(move)``, kept once made: the engine hands out the same move objects."""
    entry = _MOVE_TEXTS.get(id(move))
    if entry is not None and entry[0] is move:
        return entry[1]
    if len(_MOVE_TEXTS) >= TEXTS_LIMIT:
        _MOVE_TEXTS.clear()
    text = str(move)
    _MOVE_TEXTS[id(move)] = (move, text)
    return text


def ints_text(values: tuple[int, ...] | list[int]) -> str:
    """A list of integers as compact JSON: ``[1,2]``."""
    return "[" + ",".join([str(value) for value in values]) + "]"


def tiles_text(tiles: tuple[Tile, ...]) -> str:
    """A list of tiles as compact JSON: ``["[0|1]","[2|2]"]``."""
    return "[" + ",".join([TILE_JSON[tile.index] for tile in tiles]) + "]"


def action_text(node: tuple[Any, ...]) -> str:
    """The compact JSON object of the action at a log's node (see action_to_json)."""
    seat, move, tile, end_sum, points = node[0], node[1], node[2], node[3], node[4]
    tile_part = "null" if tile is None else TILE_JSON[tile.index]
    if type(move) is Place:
        return (
            f'{{"seat":{seat},"move":"{kept_move_text(move)}","tile":{tile_part},'
            f'"end_sum":{end_sum},"points":{points}}}'
        )
    return (
        f'{{"seat":{seat},"move":"{kept_move_text(move)}","tile":{tile_part},'
        '"end_sum":null,"points":null}'
    )


def chain_text(
    texts: dict[int, tuple[Any, str]],
    limit: int,
    newest: Any,
    previous: int,
    piece: Callable[[Any], str],
) -> str:
    """The pieces of a chain of nodes, oldest first, joined by commas, kept by node.

    A chain is a tuple whose item ``previous`` is the node before (None at
    the start), shared with the chains before it; ``piece`` writes one node.
    ``texts`` keeps each chain's text by the id of its newest node (the entry
    holds the node, so that the id cannot be reused while it lives), up to
    ``limit`` entries, then starts afresh: the text of a chain whose node
    before was already written costs one piece.
    """
    pending = []
    node = newest
    text = ""
    while node is not None:
        entry = texts.get(id(node))
        if entry is not None and entry[0] is node:
            text = entry[1]
            break
        pending.append(node)
        node = node[previous]
    if not pending:
        return text
    if len(pending) == 1:  # the chain before was written: one piece more
        last = piece(pending[0])
        text = f"{text},{last}" if text else last
    else:
        pieces = [text] if text else []
        pieces.extend([piece(pending[index]) for index in range(len(pending) - 1, -1, -1)])
        text = ",".join(pieces)
    if len(texts) >= limit:
        texts.clear()
    texts[id(newest)] = (newest, text)
    return text


def log_text(log: ActionLog) -> str:
    """The compact JSON list of a log's actions, oldest first, as ``action_to_json`` writes them.

    Kept by node (:func:`chain_text`): the text of a log whose node before
    was already written costs one action.
    """
    if log is None:
        return "[]"
    return "[" + chain_text(LOG_TEXTS, SAVES_KEPT, log, 6, action_text) + "]"


#: The table after each action of each history a load read (a signed load's,
#: or an untrusted load's replay), oldest first, by the id of the history's
#: newest node (the entry holds the node): the views walk a loaded round's
#: public facts on them, placing nothing.
SIGNED_TABLES: dict[int, tuple[ActionLog, list[Layout]]] = {}
#: How many loaded histories keep their tables (each some dozens of tables;
#: they serve the first view of a state just loaded).
SIGNED_TABLES_LIMIT = 1 << 10
#: The placements of each table a load built (signed or not), as the text of a JSON
#: list without its brackets (the moves, in the order placed), by the table's
#: id (the entry holds the table, so that the id cannot be reused while it
#: lives): the views write a table's placements from it.
SIGNED_PLACEMENTS: dict[int, tuple[Layout, str]] = {}


def _hands_text(hands: tuple[tuple[Tile, ...], ...]) -> str:
    return "[" + ",".join([tiles_text(hand) for hand in hands]) + "]"


def round_head_text(result: RoundResult) -> str:
    """The first keys of a finished round's JSON object, as a state and a view write it.

    From ``{"round"`` to the ``"scores"`` after settlement, with no comma after.
    """
    finisher = "null" if result.finisher is None else str(result.finisher)
    return (
        f'{{"round":{result.round},"end":"{result.end.value}","finisher":{finisher},'
        f'"hands":{_hands_text(result.hands)},"deductions":{ints_text(result.deductions)},'
        f'"scores":{ints_text(result.scores)}'
    )


def round_tail_text(result: RoundResult) -> str:
    """The last key of a finished round's JSON object, ``"dealt_from"``, and its closing brace."""
    return f'"dealt_from":"{"deal" if result.given else "seed"}"}}'


#: The text of each finished round's object met, by the result's id (the entry
#: holds the result, so that the id cannot be reused while it lives).
ROUND_TEXTS: dict[int, tuple[RoundResult, str]] = {}


def round_text(result: RoundResult | None) -> str:
    """``round_result_to_json(result)`` as compact JSON text, kept once made."""
    if result is None:
        return "null"
    entry = ROUND_TEXTS.get(id(result))
    if entry is not None and entry[0] is result:
        return entry[1]
    if len(ROUND_TEXTS) >= SAVES_KEPT:
        ROUND_TEXTS.clear()
    text = (
        f"{round_head_text(result)},"
        f'"history":{log_text(round_log_of(result))},{round_tail_text(result)}'
    )
    ROUND_TEXTS[id(result)] = (result, text)
    return text


_STATE_HEAD = json.dumps(document_header(STATE_FORMAT), separators=(",", ":"))[:-1]


def _state_text(state: MatchState) -> str:
    """``json.dumps(state_to_dict(state), separators=(",", ":"))``, by joining kept pieces."""
    info = state.info
    deals = ",".join(
        [
            f'{{"hands":{_hands_text(deal.hands)},"stock":{tiles_text(deal.stock)},'
            f'"opener":{"null" if deal.opener is None else deal.opener}}}'
            for deal in info.deals
        ]
    )
    winner = "null" if state.winner is None else str(state.winner)
    drawn = "null" if state.drawn is None else TILE_JSON[state.drawn.index]
    return (
        f'{_STATE_HEAD},"players":{info.players},"seed":"{info.seed}","rng":"{info.rng}",'
        f'"round":{info.round},"opener":{info.opener},"turn":{state.turn},'
        f'"scores":{ints_text(state.scores)},"winner":{winner},'
        f'"hands":{_hands_text(state.hands)},"stock":{tiles_text(state.stock)},'
        f'"drawn":{drawn},"history":{log_text(log_of(state))},"deals":[{deals}],'
        f'"last_round":{round_text(info.last_round)},"actions_before":{info.actions_before},'
        f'"dealt_from":"{"deal" if info.given else "seed"}"}}'
    )


def state_to_json(state: MatchState, *, key: bytes | None = None) -> str:
    """The state as compact JSON text; signed with ``key`` if one is given.

    This is :meth:`MatchState.to_json <american_sniff.MatchState.to_json>`.
    A signed save ends with a ``signature`` key: the HMAC-SHA256, under
    ``key``, of the same text without it (see :func:`state_from_json`).

    :raises ValueError: if ``key`` is not bytes of at least 16 bytes.
    """
    text = _state_text(state)
    if key is None:
        return text
    return f'{text[:-1]},"signature":"{signature_of(check_key(key), text)}"}}'


def check_key(key: object) -> bytes:
    """``key`` if it can sign a save (bytes, at least 16 of them); else a ValueError."""
    if not isinstance(key, bytes) or len(key) < 16:
        raise ValueError("a signing key must be bytes, at least 16 of them (32 random is best)")
    return key


def context_key(secret: bytes, *context: str | int) -> bytes:
    """A signing key bound to a context: ``secret`` and what the host knows of the save.

    The key is the HMAC-SHA256, under ``secret``, of the context written as a
    JSON array (``["m-1", 2, 7]``): strings and integers, in order, each one
    distinct from every other (``("ab", 1)`` and ``("a", "b1")`` give two
    keys). A save signed with ``context_key(secret, match_id, seq)`` loads
    only with the key of the same match id and sequence number, so another
    match's save and an older save of the same match (a rollback) are refused
    by the signature itself, with :class:`~american_sniff.InvalidState`,
    before anything is read. The host keeps the context (the match's id and
    its latest ``seq``, for example) and derives the key again to load.

    >>> import secrets
    >>> secret = secrets.token_bytes(32)
    >>> context_key(secret, "m-1", 0) == context_key(secret, "m-1", 0)
    True
    >>> context_key(secret, "m-1", 0) == context_key(secret, "m-1", 1)
    False

    :raises ValueError: if ``secret`` is not bytes of at least 16 bytes, or a
        part of the context is not a string or an integer.
    """
    check_key(secret)
    for part in context:
        if isinstance(part, bool) or not isinstance(part, (str, int)):
            raise ValueError(f"a context is strings and integers, not {type(part).__name__}")
    try:
        encoded = json.dumps(list(context), ensure_ascii=True, separators=(",", ":"))
    except ValueError as error:  # an integer too long for str()
        raise ValueError(f"a context part is out of range: {error}") from None
    return hmac.digest(secret, encoded.encode("ascii"), "sha256")


def signature_of(key: bytes, text: str) -> str:
    """The signature of a save's ``text`` under ``key``: the HMAC-SHA256 digest in hex."""
    # hmac.digest: the one-shot HMAC in C (no HMAC object), the same digest.
    return hmac.digest(key, text.encode("utf-8"), "sha256").hex()


#: Where a state document's history, its previous round and what follows each
#: stand in the writers' text (their order of keys): the readers cut a text
#: the library wrote at these keys.
HISTORY_KEY = ',"history":['
AFTER_HISTORY = '],"deals":['
LAST_KEY = ',"last_round":'
AFTER_LAST = ',"actions_before":'
