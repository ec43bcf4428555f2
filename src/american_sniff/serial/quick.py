"""JSON for states and views: one set of conventions, one converter.

Every document this library writes (a state, a player's view, a match record)
follows the same conventions, so that a program in any language reads them
with a plain JSON parser:

* the top level names its ``format`` (``"american-sniff/state"``,
  ``"american-sniff/view"``, ...), its ``format_version`` (an integer, 1 for
  now) and the ``rules_version`` of the game it was played under;
* a tile is a string ``"[a|b]"`` with ``a <= b`` (``"[1|4]"``, never
  ``"[4|1]"``);
* a point is a tile, a space and a side: ``"[1|1] branch_a"``; the sides are
  ``low``, ``high``, ``line_a``, ``line_b``, ``branch_a`` and ``branch_b``;
* a move is ``"[1|4] opens"``, ``"[1|2] on [1|1] line_b"``, ``"draw"`` or
  ``"pass"``, exactly as ``str(move)`` writes it;
* seats and sides are integers from 0; scores are integers (they may be
  negative);
* an integer that may exceed 2**53 (a seed, a generator state: 64-bit
  unsigned) is a decimal string such as ``"18446744073709551615"``, so that
  JavaScript reads it exactly;
* a value that does not apply is ``null``; every key of the format is always
  present, and no other key is allowed.

An **action** (one entry of a history) is an object with the keys ``seat``,
``move``, ``tile`` (the tile drawn by a ``draw``; ``null`` for other moves,
and in a view for a tile another seat drew), ``end_sum`` and ``points`` (the
table's end sum after a placement and what it scored; ``null`` for a draw or a
pass).

Reading is strict and bounded: the text is at most :data:`MAX_STATE_BYTES`
long, numbers must be integers JavaScript holds exactly (at most 2**53 - 1 in
size), no key may repeat, and a
document nested deeper than the format (or otherwise malformed) is refused with
:class:`~american_sniff.InvalidState` naming the problem and where it is
(``$.hands[1][0]``). Nothing is ever evaluated or unpickled.

The state format is documented field by field in ``docs/formats.md``.
"""

from __future__ import annotations

import functools
import hmac
import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, get_origin

import attrs

from .._json import DealDoc, deprecated, read_u64, u64_text
from ..deal import tile_index
from ..errors import InvalidState
from ..layout import Layout, placed
from ..moves import Draw, Move, Place, parse_move
from ..replayer import IllegalPlacement, replay_table
from ..rules import RULES_VERSION, side_of
from ..state import (
    Action,
    ActionLog,
    Deal,
    MatchState,
    RoundEnd,
    RoundInfo,
    RoundResult,
    action_node,
    log_of,
    node_fields,
    previous_node,
    round_log_of,
)
from ..tiles import ALL_TILES, Tile, parse_tile
from ..validation import replayed_tables, validate_state

if TYPE_CHECKING:
    import cattrs

__all__ = [
    "FORMAT_VERSION",
    "MAX_SAFE_INTEGER",
    "MAX_STATE_BYTES",
    "SCHEMA_NAMES",
    "STATE_FORMAT",
    "ActionDoc",
    "action_log_from",
    "action_to_dict",
    "action_to_json",
    "format_schema",
    "move_text",
    "parse_move_text",
    "parse_tile_text",
    "read_json",
    "round_result_to_dict",
    "state_from_json",
    "state_to_dict",
    "state_to_json",
    "tile_text",
]

#: The version of the JSON formats; it changes only when a format changes.
FORMAT_VERSION = 1
#: The ``format`` of a saved state.
STATE_FORMAT = "american-sniff/state"
#: The longest state text that loading reads: 1 MiB (a state is a few KB).
MAX_STATE_BYTES = 1 << 20
#: The largest integer a document may hold as a number: JavaScript's
#: ``Number.MAX_SAFE_INTEGER``. Larger values (seeds) are decimal strings.
MAX_SAFE_INTEGER = 2**53 - 1
#: Digits beyond which a number is refused before it is even converted.
_MAX_DIGITS = 20

_E = TypeVar("_E", bound=ValueError)


# -- the schemas ----------------------------------------------------------------------

#: The formats that ship a JSON Schema, by the short name ``format_schema`` takes.
SCHEMA_NAMES = (
    "state",
    "view",
    "event",
    "record",
    "vectors",
    "vectors-manifest",
    "protocol-request",
    "protocol-answer",
    "report",
    "conformance-report",
)


def format_schema(name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a format, as parsed JSON.

    ``name`` is ``"state"``, ``"view"`` (a player's or a spectator's),
    ``"event"``, ``"record"``, ``"vectors"`` (a conformance vector file),
    ``"vectors-manifest"``, or ``"protocol-request"`` and
    ``"protocol-answer"`` (the engine protocol's lines, one definition per
    command under ``$defs``), ``"report"`` (the referee's) or
    ``"conformance-report"`` (the kit's); the schemas ship with the package as
    ``american_sniff/schemas/NAME.schema.json``. A document the library
    writes is valid against its schema; validity says nothing of the rules,
    which the readers check.

    :raises ValueError: if ``name`` is not one of those.
    """
    if name not in SCHEMA_NAMES:
        raise ValueError(f"no schema named {name!r}; the schemas are {', '.join(SCHEMA_NAMES)}")
    from importlib import resources  # noqa: PLC0415 - only schema users need it

    schemas = resources.files("american_sniff").joinpath("schemas")
    text = schemas.joinpath(f"{name}.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


# -- reading JSON safely --------------------------------------------------------------


def read_json(text: object, *, max_bytes: int, error: type[_E], what: str) -> Any:
    """Parse JSON ``text`` strictly and within bounds, or raise ``error`` saying why.

    ``text`` may be ``str`` or UTF-8 ``bytes``. Refused: other types, text over
    ``max_bytes`` bytes, invalid JSON, floats, ``NaN`` and infinities, integers
    beyond :data:`MAX_SAFE_INTEGER` in size, repeated keys, and nesting too deep
    to parse.
    """
    if isinstance(text, bytes | bytearray):
        if len(text) > max_bytes:
            raise error(f"{what} is {len(text)} bytes long; at most {max_bytes} are read")
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise error(f"{what} is not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    if not isinstance(text, str):
        raise error(f"{what} must be JSON text (str or bytes), got {type(text).__name__}")
    if len(text) > max_bytes:
        raise error(f"{what} is {len(text)} characters long; at most {max_bytes} are read")
    try:
        return json.loads(
            text,
            parse_int=_parse_int,
            parse_float=_refuse_float,
            parse_constant=_refuse_float,
            object_pairs_hook=_unique_keys,
        )
    except _Refused as exc:
        raise error(f"{what} is not valid: {exc}") from None
    except json.JSONDecodeError as exc:
        raise error(
            f"{what} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except RecursionError:
        raise error(f"{what} is nested too deeply to be a document of this library") from None


class _Refused(Exception):
    """A JSON value the formats never use."""


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > _MAX_DIGITS:
        raise _Refused(f"the number {text[:24]}... has more than {_MAX_DIGITS} digits")
    value = int(text)
    if abs(value) > MAX_SAFE_INTEGER:
        raise _Refused(
            f"the number {text} is beyond 2**53 - 1, which JavaScript cannot hold exactly"
        )
    return value


def _refuse_float(text: str) -> float:
    raise _Refused(f"{text} is not an integer; the formats use only integers")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _Refused(f"the key {key!r} appears twice in one object")
        result[key] = value
    return result


# -- text forms of tiles, points, moves and big integers ---------------------------------


def tile_text(tile: Tile) -> str:
    """A tile as the formats write it: ``"[1|4]"``."""
    return str(tile)


def move_text(move: Move) -> str:
    """A move as the formats write it (``str(move)``)."""
    return str(move)


def _parse_tile_text(text: str) -> Tile:
    return parse_tile(text, strict=True)


def _parse_move_text(text: str) -> Move:
    return parse_move(text, strict=True)


#: Deprecated: :func:`~american_sniff.parse_tile` with ``strict=True``.
parse_tile_text = deprecated(
    "american_sniff.serial.parse_tile_text", "parse_tile(text, strict=True)", _parse_tile_text
)
#: Deprecated: :func:`~american_sniff.parse_move` with ``strict=True``.
parse_move_text = deprecated(
    "american_sniff.serial.parse_move_text", "parse_move(text, strict=True)", _parse_move_text
)


# -- the documents, as attrs classes the converter reads and writes ---------------------


@attrs.frozen
class ActionDoc:
    """An action object as read from JSON, before its texts are parsed.

    Every format with actions (states, views, records) reads them as this.

    :ivar seat: The ``seat`` key.
    :ivar move: The ``move`` key, a move in the notation.
    :ivar tile: The ``tile`` key: the tile drawn, or None.
    :ivar end_sum: The ``end_sum`` key, or None.
    :ivar points: The ``points`` key, or None.
    """

    seat: int
    move: str
    tile: str | None
    end_sum: int | None
    points: int | None


@attrs.frozen
class _RoundDoc:
    round: int
    end: str
    finisher: int | None
    hands: list[list[str]]
    deductions: list[int]
    scores: list[int]
    history: list[ActionDoc]
    dealt_from: str = "seed"  # absent from older documents


@attrs.frozen
class _StateDoc:
    format: str
    format_version: int
    rules_version: str
    players: int
    seed: str
    rng: str
    round: int
    opener: int
    turn: int
    scores: list[int]
    winner: int | None
    hands: list[list[str]]
    stock: list[str]
    drawn: str | None
    history: list[ActionDoc]
    deals: list[DealDoc]
    last_round: _RoundDoc | None
    # Absent from documents written before they were added: read as 0 (which
    # validation accepts in the first round only) and "seed".
    actions_before: int = 0
    dealt_from: str = "seed"
    # A signed save's signature (see state_to_json); checked only with the key.
    signature: str | None = None


def _strict(kind: type) -> Callable[[object, type], object]:
    def structure(value: object, _: type) -> object:
        if type(value) is not kind:
            raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
        return value

    return structure


def _strict_list(kind: Any, converter: cattrs.Converter) -> Callable[[object, type], object]:
    # Not cattrs' own list hook: with detailed validation that one reads every
    # element and gathers every error, which costs more than linear time in a
    # long list of bad elements. This one stops at the first bad element and
    # reports it with its index, the way cattrs does, so the error's path
    # (``$.history[3].seat``) stays the same.
    from cattrs.errors import IterableValidationError, IterableValidationNote  # noqa: PLC0415

    element = kind.__args__[0]
    handler = converter.get_structure_hook(element)

    def structure(value: object, _: type) -> object:
        if type(value) is not list:
            raise TypeError(f"expected list, got {type(value).__name__}")
        result = []
        for index, item in enumerate(value):
            try:
                result.append(handler(item, element))
            except Exception as exc:
                note = IterableValidationNote(f"Structuring {kind} @ index {index}", index, element)
                exc.__notes__ = [*getattr(exc, "__notes__", []), note]  # type: ignore[attr-defined,unused-ignore]
                raise IterableValidationError(f"While structuring {kind!r}", [exc], kind) from None
        return result

    return structure


def _is_list(kind: object) -> bool:
    return get_origin(kind) is list


@functools.cache
def converter() -> cattrs.Converter:
    """The one converter of the JSON layer: strict types, no unknown keys, paths in errors.

    It is built on first use, so that importing the package (and writing JSON)
    does not import cattrs; only reading does.
    """
    import cattrs  # noqa: PLC0415 - reading documents is the only user

    converter = cattrs.Converter(forbid_extra_keys=True, detailed_validation=True)
    for kind in (int, str):
        converter.register_structure_hook(kind, _strict(kind))
    converter.register_structure_hook_factory(
        _is_list,
        lambda kind: _strict_list(kind, converter),
    )
    return converter


_T = TypeVar("_T")


def structure(data: object, kind: type[_T], error: type[ValueError], what: str) -> _T:
    """Read ``data`` (parsed JSON) as the document class ``kind``, or raise ``error``.

    The message names the first problem and where it is, e.g.
    ``expected int @ $.hands[0][1]``.
    """
    if not isinstance(data, dict):
        raise error(f"{what} must be a JSON object, got {type(data).__name__}")
    import cattrs  # noqa: PLC0415 - see converter()

    try:
        return converter().structure(data, kind)
    except Exception as exc:  # cattrs reports problems as exception groups
        problems = cattrs.transform_error(exc, path="$")
        raise error(f"{what} is not in the format: {problems[0]}") from None


# -- writing ------------------------------------------------------------------------------


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


def document_header(document_format: str) -> dict[str, Any]:
    """The fields every JSON document of the library opens with: its format and the versions.

    >>> document_header(STATE_FORMAT)["format"] == STATE_FORMAT
    True
    """
    return {
        "format": document_format,
        "format_version": FORMAT_VERSION,
        "rules_version": RULES_VERSION,
    }


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


# -- writing, fast --------------------------------------------------------------------
# The writers below build the text that json.dumps(..., separators=(",", ":"))
# writes of the dict writers above, byte for byte (the tests compare them), but
# by joining pieces of text, and keep the text of each action log once made:
# a log is a chain whose every link is shared with the states before, so the
# history of a state is the history of the one before and one action more.

#: Each tile by its text, for the signed path (which reads only the library's own text).
_TILE_OF_TEXT = {str(tile): tile for tile in ALL_TILES}
#: Each tile's text, by its index.
_TILE_TEXTS: tuple[str, ...] = tuple(str(tile) for tile in ALL_TILES)
#: The JSON text (a quoted string) of each tile, by its index.
_TILE_JSON: tuple[str, ...] = tuple(f'"{text}"' for text in _TILE_TEXTS)
#: The text of each move met, by its id (the entry holds the move, so that
#: the id cannot be reused while it lives).
_MOVE_TEXTS: dict[int, tuple[Move, str]] = {}
#: The text of each action log's history met: the actions' JSON objects
#: joined by commas, oldest first, by the id of the log's newest node.
LOG_TEXTS: dict[int, tuple[ActionLog, str]] = {}
_TEXTS_LIMIT = 1 << 14


def kept_move_text(move: Move) -> str:
    """``move_text(move)``, kept once made: the engine hands out the same move objects."""
    entry = _MOVE_TEXTS.get(id(move))
    if entry is not None and entry[0] is move:
        return entry[1]
    if len(_MOVE_TEXTS) >= _TEXTS_LIMIT:
        _MOVE_TEXTS.clear()
    text = str(move)
    _MOVE_TEXTS[id(move)] = (move, text)
    return text


def ints_text(values: tuple[int, ...] | list[int]) -> str:
    """A list of integers as compact JSON: ``[1,2]``."""
    return "[" + ",".join([str(value) for value in values]) + "]"


def tiles_text(tiles: tuple[Tile, ...]) -> str:
    """A list of tiles as compact JSON: ``["[0|1]","[2|2]"]``."""
    return "[" + ",".join([_TILE_JSON[tile.index] for tile in tiles]) + "]"


def action_text(node: tuple[Any, ...]) -> str:
    """The compact JSON object of the action at a log's node (see action_to_json)."""
    seat, move, tile, end_sum, points = node[0], node[1], node[2], node[3], node[4]
    tile_part = "null" if tile is None else _TILE_JSON[tile.index]
    if type(move) is Place:
        return (
            f'{{"seat":{seat},"move":"{kept_move_text(move)}","tile":{tile_part},'
            f'"end_sum":{end_sum},"points":{points}}}'
        )
    return (
        f'{{"seat":{seat},"move":"{kept_move_text(move)}","tile":{tile_part},'
        '"end_sum":null,"points":null}'
    )


def log_text(log: ActionLog) -> str:
    """The compact JSON list of a log's actions, oldest first, as ``action_to_json`` writes them.

    Kept by node: the text of a log whose node before was already written
    costs one action.
    """
    if log is None:
        return "[]"
    entry = LOG_TEXTS.get(id(log))
    if entry is not None and entry[0] is log:
        return "[" + entry[1] + "]"
    pending = []
    node: ActionLog = log
    text = ""
    while node is not None:
        entry = LOG_TEXTS.get(id(node))
        if entry is not None and entry[0] is node:
            text = entry[1]
            break
        pending.append(node)
        node = node[6]
    if len(pending) == 1:  # the history before was written: one action more
        piece = action_text(pending[0])
        text = f"{text},{piece}" if text else piece
    else:
        pieces = [text] if text else []
        pieces.extend([action_text(pending[index]) for index in range(len(pending) - 1, -1, -1)])
        text = ",".join(pieces)
    if len(LOG_TEXTS) >= _TEXTS_LIMIT:
        LOG_TEXTS.clear()
    LOG_TEXTS[id(log)] = (log, text)
    return "[" + text + "]"


#: The table after each action of each history a load read (a signed load's,
#: or an untrusted load's replay), oldest first, by the id of the history's
#: newest node (the entry holds the node): the views walk a loaded round's
#: public facts on them, placing nothing.
SIGNED_TABLES: dict[int, tuple[ActionLog, list[Layout]]] = {}
#: How many loaded histories keep their tables (each some dozens of tables;
#: they serve the first view of a state just loaded).
_SIGNED_TABLES_LIMIT = 1 << 10
#: The placements of each table a load built (signed or not), as the text of a JSON
#: list without its brackets (the moves, in the order placed), by the table's
#: id (the entry holds the table, so that the id cannot be reused while it
#: lives): the views write a table's placements from it.
SIGNED_PLACEMENTS: dict[int, tuple[Layout, str]] = {}


def _hands_text(hands: tuple[tuple[Tile, ...], ...]) -> str:
    return "[" + ",".join([tiles_text(hand) for hand in hands]) + "]"


#: The text of each finished round's object met, by the result's id (the entry
#: holds the result, so that the id cannot be reused while it lives).
_ROUND_TEXTS: dict[int, tuple[RoundResult, str]] = {}


def _round_text(result: RoundResult | None) -> str:
    """``round_result_to_json(result)`` as compact JSON text, kept once made."""
    if result is None:
        return "null"
    entry = _ROUND_TEXTS.get(id(result))
    if entry is not None and entry[0] is result:
        return entry[1]
    if len(_ROUND_TEXTS) >= _TEXTS_LIMIT:
        _ROUND_TEXTS.clear()
    finisher = "null" if result.finisher is None else str(result.finisher)
    text = (
        f'{{"round":{result.round},"end":"{result.end.value}","finisher":{finisher},'
        f'"hands":{_hands_text(result.hands)},"deductions":{ints_text(result.deductions)},'
        f'"scores":{ints_text(result.scores)},"history":{log_text(round_log_of(result))},'
        f'"dealt_from":"{"deal" if result.given else "seed"}"}}'
    )
    _ROUND_TEXTS[id(result)] = (result, text)
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
    drawn = "null" if state.drawn is None else _TILE_JSON[state.drawn.index]
    return (
        f'{_STATE_HEAD},"players":{info.players},"seed":"{info.seed}","rng":"{info.rng}",'
        f'"round":{info.round},"opener":{info.opener},"turn":{state.turn},'
        f'"scores":{ints_text(state.scores)},"winner":{winner},'
        f'"hands":{_hands_text(state.hands)},"stock":{tiles_text(state.stock)},'
        f'"drawn":{drawn},"history":{log_text(log_of(state))},"deals":[{deals}],'
        f'"last_round":{_round_text(info.last_round)},"actions_before":{info.actions_before},'
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
    return f'{text[:-1]},"signature":"{_signature(_check_key(key), text)}"}}'


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


#: A signature as state_to_json writes it: the HMAC-SHA256 digest in lowercase hex.
_HEX64 = re.compile(r"[0-9a-f]{64}")

#: The length of the ``,"signature":"..."}`` that ends a signed save.
_SIGNATURE_TAIL = len(',"signature":""}') + 64


def _check_key(key: object) -> bytes:
    if not isinstance(key, bytes) or len(key) < 16:
        raise ValueError("a signing key must be bytes, at least 16 of them (32 random is best)")
    return key


def _signature(key: bytes, text: str) -> str:
    # hmac.digest: the one-shot HMAC in C (no HMAC object), the same digest.
    return hmac.digest(key, text.encode("utf-8"), "sha256").hex()


def _signed_text(text: object, key: bytes) -> str:
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
        expected = _signature(key, unsigned)
    except UnicodeEncodeError:
        # a lone surrogate: no text that state_to_json wrote holds one
        raise InvalidState("the state holds a character that is not valid Unicode") from None
    if not hmac.compare_digest(expected, given):
        raise InvalidState("the state's signature is wrong: it was not written with this key")
    return unsigned


# -- reading ------------------------------------------------------------------------------


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
        unsigned = _signed_text(text, _check_key(key))
        known, data = _signed_parse(unsigned)
    else:
        quick = _quick_load(text)
        if quick is not None:
            return quick
        data = read_json(text, max_bytes=MAX_STATE_BYTES, error=InvalidState, what="the state")
    if isinstance(data, dict):
        check_header(data, STATE_FORMAT, InvalidState)
    if key is not None:
        try:
            return _signed_state(data, unsigned, known)
        except (TypeError, KeyError, ValueError, IndexError, AttributeError) as exc:
            # only a key holder could write such a text
            raise InvalidState(
                f"the signed state is not in the format: {type(exc).__name__} {exc}"
            ) from None
    doc = structure(data, _StateDoc, InvalidState, "the state")
    try:
        state = _build_state(doc)
    except InvalidState:
        raise
    except (ValueError, TypeError, KeyError, IndexError) as exc:
        raise InvalidState(f"the state cannot be built: {exc}") from None
    validate_state(state)
    return state


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
    tiles = _TILE_OF_TEXT
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
        if len(SIGNED_TABLES) >= _SIGNED_TABLES_LIMIT:
            SIGNED_TABLES.clear()
        SIGNED_TABLES[id(log)] = (log, tables)
    return log, layout, placements, tables, drawn


#: The current round of each signed save read, by its history's text and the
#: scores after it (a signed text is the writers' own, so the same text and
#: scores are the same history): a server that loads each state of a match in
#: turn reads only the action that the state before did not have.
_SIGNED_HISTORIES: dict[tuple[str, tuple[int, ...]], _SignedHistory] = {}
_SIGNED_HISTORIES_LIMIT = 1 << 10
#: Where a state document's history starts and what follows it, in the writers' order.
_HISTORY_KEY = ',"history":['
_AFTER_HISTORY = '],"deals":['


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
    tiles = _TILE_OF_TEXT
    return tuple([tuple([tiles[text] for text in hand]) for hand in docs])


def _keep_signed_texts(
    text: str, log: ActionLog, result: RoundResult | None, tables: list[tuple[Layout, list[str]]]
) -> None:
    """Keep the history and the last round of a signed save's ``text`` as the writers would.

    The library wrote the text, in the writers' order of keys, so the history's
    actions and the last round's object are the very text that ``log_text``
    and ``_round_text`` would make of them: saving the next state writes one
    action more, not the whole round again. The texts of the ``tables``
    (each with its placements' move texts) are kept too, for the views.
    """
    if len(LOG_TEXTS) + 1 > _TEXTS_LIMIT:
        LOG_TEXTS.clear()
    if len(_ROUND_TEXTS) + 1 > _TEXTS_LIMIT:
        _ROUND_TEXTS.clear()
    if len(SIGNED_PLACEMENTS) + len(tables) > _TEXTS_LIMIT:
        SIGNED_PLACEMENTS.clear()
    start = text.find(',"history":[')
    end = text.find('],"deals":[', start)
    if log is not None and 0 <= start < end:
        LOG_TEXTS[id(log)] = (log, text[start + len(',"history":[') : end])
    if result is not None:
        first = text.find(',"last_round":', end)
        last = text.find(',"actions_before":', first)
        if 0 <= end < first < last:
            _ROUND_TEXTS[id(result)] = (result, text[first + len(',"last_round":') : last])
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
    first = text.find(_LAST_KEY)
    end = text.find(_AFTER_LAST, first)
    if 0 < first < end:
        return first + len(_LAST_KEY), end
    return -1, -1


def _signed_parse(text: str) -> tuple[RoundResult | None, Any]:
    """The previous round of a signed save's ``text``, if read before, and the rest parsed.

    The library wrote the text, in the writers' order of keys, so the one
    ``history`` and ``last_round`` keys are the state's. The history is cut
    out (:func:`_signed_state` reads it from the text, see
    :func:`_signed_history`), and so is a previous round read before; the
    rest is parsed with an empty list and null in their places.
    """
    first = text.find(_HISTORY_KEY) + len(_HISTORY_KEY)
    end = text.find(_AFTER_HISTORY, first)
    if first < len(_HISTORY_KEY) or end < 0:
        return None, json.loads(text)  # not the writers' text: read whole (and refused)
    start, stop = _last_round_span(text)
    result = _SIGNED_ROUNDS.get(text[start:stop]) if start > end else None
    if result is None:
        return None, json.loads(text[:first] + text[end:])
    return result, json.loads(text[:first] + text[end:start] + "null" + text[stop:])


def _signed_state(data: dict[str, Any], text: str, known: RoundResult | None) -> MatchState:
    """The state of a signed save, built straight from its parsed JSON ``data``.

    The library wrote the ``text`` (its signature says so), so nothing is
    checked again and nothing is replayed: each action costs a few look-ups.
    ``known`` is the previous round if it was read before (see
    :func:`_signed_parse`; ``data`` then holds null for it).
    """
    players = data["players"]
    tiles = _TILE_OF_TEXT
    first = text.find(_HISTORY_KEY) + len(_HISTORY_KEY)
    history = text[first : text.find(_AFTER_HISTORY, first)]
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


def json_words(value: object) -> str:
    """A value read from JSON, written as JSON writes it (``null``, not ``None``).

    Messages about a document quote what it holds in its own language; a
    missing key reads as ``missing``. Long values are cut to 60 characters.

    >>> json_words(None), json_words("x"), json_words([1, True])
    ('null', '"x"', '[1, true]')
    """
    if value is _MISSING:
        return "missing"
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."


_MISSING = object()


def check_header(data: dict[str, Any], expected: str, error: type[ValueError]) -> None:
    """Refuse a document of another format, format version or rules version."""
    kind = data.get("format", _MISSING)
    if kind != expected:
        raise error(f"the document's format is {json_words(kind)}, not {json_words(expected)}")
    version = data.get("format_version", _MISSING)
    if version != FORMAT_VERSION or type(version) is not int:
        raise error(
            f"format_version {json_words(version)} is not supported"
            f" (this library reads {FORMAT_VERSION})"
        )
    rules = data.get("rules_version", _MISSING)
    if rules != RULES_VERSION:
        raise error(
            f"rules_version {json_words(rules)} is not supported"
            f" (this library plays {json_words(RULES_VERSION)})"
        )


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


def _round_from(doc: _RoundDoc, players: int, trusted: bool = False) -> RoundResult:
    if doc.end not in ("domino", "blocked"):
        raise InvalidState(
            f"$.last_round.end must be 'domino' or 'blocked', got {json_words(doc.end)}"
        )
    if len(doc.deductions) != players:
        raise InvalidState(f"$.last_round.deductions must hold {players} integers")
    before = list(doc.scores)
    if len(before) != (2 if players == 4 else players):
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


def _build_state(doc: _StateDoc, *, trusted: bool = False) -> MatchState:
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
    if len(scores) != (2 if players == 4 else players):
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


# -- reading, fast --------------------------------------------------------------------
# An untrusted state text is first read by the quick reader below: the plain
# JSON parser (in C, no Python call per value) and one pass over the parsed
# document, in the exact shape the writers give. It takes only documents that
# the strict reader above reads the same way, and builds the very state that
# reader builds; on anything else (an unusual but valid document, or a bad
# one) it gives way to the strict reader, which names the problem. Either
# way, the state is then checked in full by validate_state.
#
# What the strict parser refuses, the quick one must not let through unseen:
# floats and NaN are refused by hooks (called only when one appears); every
# integer of the document is range-checked where it is read; and a repeated
# key is caught by counting quotes. In JSON text a quote only delimits a
# string or is escaped inside one, so a text holds exactly two quotes per
# string of its parsed document if no string was dropped, as a repeated key
# and the value it replaced would be; the reader counts the strings it takes.

#: The keys of a state document, as the writers give them.
_SIGNED_STATE_KEYS = frozenset(attrs.fields_dict(_StateDoc))
_STATE_KEYS = _SIGNED_STATE_KEYS - {"signature"}
#: The keys of a finished round's object (an action's are read one by one).
_ROUND_KEYS = frozenset(attrs.fields_dict(_RoundDoc))
_DEAL_KEYS = frozenset(attrs.fields_dict(DealDoc))


class _NotQuick(Exception):
    """The quick reader leaves this document to the strict one."""


def _quick_int(value: object) -> int:
    """``value`` if it is an integer that the strict parser reads (at most 2**53 - 1 in size)."""
    if type(value) is not int or not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
        raise _NotQuick
    return value


def _quick_tiles(texts: object) -> tuple[Tile, ...]:
    """The tiles of a JSON list of tile texts, each as the library's instance."""
    if type(texts) is not list:
        raise _NotQuick
    tiles = _TILE_OF_TEXT
    return tuple([tiles[text] for text in texts])  # a KeyError for anything but a tile's text


def _quick_hands(docs: object, count: int) -> tuple[tuple[tuple[Tile, ...], ...], int]:
    """``count`` hands of tile texts, and how many strings they hold."""
    if type(docs) is not list or len(docs) != count:
        raise _NotQuick
    hands = tuple([_quick_tiles(hand) for hand in docs])
    return hands, sum([len(hand) for hand in hands])


#: Each move read by its text (the very move ``parse_move(text, strict=True)`` gives).
_MOVES_READ: dict[str, Move] = {}


def _read_move(text: str) -> Move:
    """The move of ``text`` (strict), kept in :data:`_MOVES_READ`."""
    move = parse_move(text, strict=True)
    if len(_MOVES_READ) >= _TEXTS_LIMIT:
        _MOVES_READ.clear()
    _MOVES_READ[text] = move
    return move


def _quick_log(
    docs: object, players: int, final: tuple[int, ...]
) -> tuple[ActionLog, int, Layout, list[Tile]]:
    """The action log of a history (as :func:`action_log_from`), its strings, table and draws.

    The table is built from the placements unchecked: the validation's replay
    checks them. The draws are the tiles drawn, in order (as :func:`_drawn_tiles`).
    """
    if type(docs) is not list:
        raise _NotQuick
    actions: list[tuple[int, Move, Tile | None, int | None, int]] = []
    strings = 0
    tiles = _TILE_OF_TEXT
    drew: list[Tile] = []
    most = MAX_SAFE_INTEGER
    moves = _MOVES_READ
    for doc in docs:
        # Five keys, each of them there (a KeyError if not): exactly the action's.
        if type(doc) is not dict or len(doc) != 5:
            raise _NotQuick
        seat, text, tile_text_, end_sum, points = (
            doc["seat"],
            doc["move"],
            doc["tile"],
            doc["end_sum"],
            doc["points"],
        )
        if type(seat) is not int or not 0 <= seat < players or type(text) is not str:
            raise _NotQuick
        move = moves.get(text)
        if move is None:
            move = _read_move(text)
        kind = type(move)
        if kind is Place:
            if (
                tile_text_ is not None
                or type(end_sum) is not int
                or type(points) is not int
                or not -most <= end_sum <= most
                or not -most <= points <= most
            ):
                raise _NotQuick
            actions.append((seat, move, None, end_sum, points))
            strings += 6
        elif end_sum is not None or points is not None:
            raise _NotQuick
        elif kind is Draw:
            drawn = tiles[tile_text_]
            drew.append(drawn)
            actions.append((seat, move, drawn, None, 0))
            strings += 7
        elif tile_text_ is None:
            actions.append((seat, move, None, None, 0))
            strings += 6
        else:
            raise _NotQuick
    scores = list(final)
    after: list[tuple[int, ...]] = []
    for seat, _, _, _, points in reversed(actions):
        after.append(tuple(scores))
        if points:
            scores[side_of(players, seat)] -= points
    after.reverse()
    log: ActionLog = None
    layout = Layout.empty()
    placements: list[str] = []
    for (seat, move, tile, end_sum, points), scores_after in zip(actions, after, strict=True):
        log = (seat, move, tile, end_sum, points, scores_after, log)  # see action_node
        if type(move) is Place:
            at = move.at
            layout = placed(layout, move.tile, None if at is None else at.order)
            placements.append(kept_move_text(move))
    _keep_placements(layout, placements)
    return log, strings, layout, drew


def _keep_placements(layout: Layout, placements: list[str]) -> None:
    """Keep the text of ``layout``'s placements for the views, as a signed load does.

    ``placements`` are the texts of the moves placed, in order (see
    :data:`SIGNED_PLACEMENTS`): the views write a loaded table from them.
    """
    if not placements:
        return
    if len(SIGNED_PLACEMENTS) >= _TEXTS_LIMIT:
        SIGNED_PLACEMENTS.clear()
    SIGNED_PLACEMENTS[id(layout)] = (layout, '"' + '","'.join(placements) + '"')


def _quick_scores(values: object, count: int) -> tuple[int, ...]:
    if type(values) is not list or len(values) != count:
        raise _NotQuick
    return tuple([_quick_int(value) for value in values])


def _quick_round(doc: object, players: int) -> tuple[RoundResult, int]:
    """The previous round's result (as :func:`_round_from`), and how many strings it holds."""
    if type(doc) is not dict or doc.keys() != _ROUND_KEYS:
        raise _NotQuick
    end, dealt_from, finisher = doc["end"], doc["dealt_from"], doc["finisher"]
    if end not in ("domino", "blocked") or dealt_from not in ("seed", "deal"):
        raise _NotQuick
    if finisher is not None:
        _quick_int(finisher)
    deductions = _quick_scores(doc["deductions"], players)
    scores = _quick_scores(doc["scores"], 2 if players == 4 else players)
    before = list(scores)
    for seat, amount in enumerate(deductions):
        before[side_of(players, seat)] += amount
    log, strings, layout, _ = _quick_log(doc["history"], players, tuple(before))
    hands, tiles = _quick_hands(doc["hands"], len(doc["hands"]))
    result = RoundResult(
        round=_quick_int(doc["round"]),
        end=RoundEnd(end),
        finisher=finisher,
        layout=layout,
        hands=hands,
        deductions=deductions,
        scores=scores,
        log=log,
        given=dealt_from == "deal",
    )
    return result, len(_ROUND_KEYS) + 2 + strings + tiles


def _quick_deals(docs: object, players: int) -> tuple[tuple[Deal, ...], int]:
    """The deals still to use (as :func:`_deals_from`), and how many strings they hold."""
    if type(docs) is not list:
        raise _NotQuick
    deals = []
    strings = 0
    for doc in docs:
        if type(doc) is not dict or doc.keys() != _DEAL_KEYS:
            raise _NotQuick
        hands, held = _quick_hands(doc["hands"], len(doc["hands"]))
        stock = _quick_tiles(doc["stock"])
        opener = doc["opener"]
        if opener is not None:
            _quick_int(opener)
        deals.append(Deal(hands=hands, stock=stock, opener=opener))
        strings += len(_DEAL_KEYS) + held + len(stock)
    return tuple(deals), strings


def _quick_state(
    data: dict[str, Any], known: tuple[RoundResult, int, int] | None = None
) -> tuple[MatchState, int]:
    """The state of a parsed document (as :func:`_build_state`), and how many strings it holds.

    ``known`` is a previous round read before (see :data:`_ROUNDS_READ`),
    whose text stood where this document's ``last_round`` holds null.

    :raises _NotQuick: or another exception, if the document is not as the
        writers give it; the strict reader then reads it.
    """
    keys = data.keys()
    strings = len(keys)
    if keys == _SIGNED_STATE_KEYS:
        if type(data["signature"]) is not str:
            raise _NotQuick
        strings += 1
    elif keys != _STATE_KEYS:
        raise _NotQuick
    if (
        data["format"] != STATE_FORMAT
        or type(data["format_version"]) is not int
        or data["format_version"] != FORMAT_VERSION
        or data["rules_version"] != RULES_VERSION
    ):
        raise _NotQuick
    players = data["players"]
    if players not in (2, 3, 4) or type(players) is not int:
        raise _NotQuick
    seed = read_u64(data["seed"], "$.seed", InvalidState)
    rng = read_u64(data["rng"], "$.rng", InvalidState)
    dealt_from = data["dealt_from"]
    if dealt_from not in ("seed", "deal"):
        raise _NotQuick
    strings += 5  # format, rules_version, seed, rng, dealt_from
    scores = _quick_scores(data["scores"], 2 if players == 4 else players)
    log, in_history, layout, drawn_tiles = _quick_log(data["history"], players, scores)
    hands, in_hands = _quick_hands(data["hands"], players)
    stock = _quick_tiles(data["stock"])
    deals, in_deals = _quick_deals(data["deals"], players)
    last = data["last_round"]
    result: RoundResult | None
    if known is not None:
        if last is not None or known[1] != players:
            raise _NotQuick
        result, in_last = known[0], known[2]
    else:
        result, in_last = (None, 0) if last is None else _quick_round(last, players)
    drawn_text, winner = data["drawn"], data["winner"]
    drawn = None if drawn_text is None else _TILE_OF_TEXT[drawn_text]
    if winner is not None:
        _quick_int(winner)
    info = RoundInfo(
        players=players,
        seed=seed,
        round=_quick_int(data["round"]),
        opener=_quick_int(data["opener"]),
        deck=(*drawn_tiles, *stock),
        deals=deals,
        rng=rng,
        last_round=result,
        actions_before=_quick_int(data["actions_before"]),
        given=dealt_from == "deal",
    )
    state = MatchState(
        info=info,
        turn=_quick_int(data["turn"]),
        hands=tuple([tuple(sorted(hand, key=tile_index)) for hand in hands]),
        layout=layout,
        scores=scores,
        winner=winner,
        drawn=drawn,
        drawn_count=len(drawn_tiles),
        log=log,
    )
    strings += in_history + in_hands + len(stock) + in_deals + in_last + (drawn is not None)
    return state, strings


#: The text of each previous round read before, as the writers give it, with
#: the round's result, the number of players and how many strings the text
#: holds. Every state of a round holds the same previous round, so a server
#: that loads each state of a match reads the round before once per round:
#: the text is cut out and the rest parsed alone, and validation knows the
#: result (see validation's _check_replays). Only the text of a result of a
#: state that loaded is kept, as the writer writes it, so what stands in its
#: place is exactly that result.
_ROUNDS_READ: dict[str, tuple[RoundResult, int, int]] = {}
_ROUNDS_READ_LIMIT = 256
#: Where the previous round's text starts and what follows it, in the writers' order.
_LAST_KEY = ',"last_round":'
_AFTER_LAST = ',"actions_before":'


def _quick_load(text: object) -> MatchState | None:
    """The state of an untrusted ``text``, fully validated; or None: the strict reader reads it."""
    if isinstance(text, bytes | bytearray):
        if len(text) > MAX_STATE_BYTES:
            return None
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            return None
    if type(text) is not str or len(text) > MAX_STATE_BYTES:
        return None
    quotes = text.count('"')
    first = text.find(_LAST_KEY)
    end = text.find(_AFTER_LAST, first)
    known = _ROUNDS_READ.get(text[first + len(_LAST_KEY) : end]) if 0 < first < end else None
    if known is not None:
        # The same document with null for the previous round. As for repeated
        # keys (above): with every quote of the rest delimiting a string the
        # reader took, the key cut at is the document's own last_round, and
        # what stood there is the kept text, whole.
        rest = text[: first + len(_LAST_KEY)] + "null" + text[end:]
        state = _quick_checked(rest, quotes, known)
        if state is not None:
            return state
    state = _quick_checked(text, quotes, None)
    result = None if state is None else state.info.last_round
    if result is not None and state is not None:
        written = _round_text(result)
        if len(_ROUNDS_READ) >= _ROUNDS_READ_LIMIT:
            _ROUNDS_READ.clear()
        _ROUNDS_READ[written] = (result, state.info.players, written.count('"') // 2)
    return state


def _quick_checked(
    text: str, quotes: int, known: tuple[RoundResult, int, int] | None
) -> MatchState | None:
    """The state of ``text`` as the quick reader reads it, validated; or None.

    ``quotes`` is the number of quotes in the whole document (with the kept
    previous round's text, if ``known``).
    """
    try:
        data = json.loads(text, parse_float=_refuse_float, parse_constant=_refuse_float)
        if type(data) is not dict:
            return None
        state, strings = _quick_state(data, known)
    except Exception:  # whatever it is, the strict reader names it
        return None
    if quotes != 2 * strings:  # a repeated key, or an escaped quote: see above
        return None
    try:
        tables = replayed_tables(state)
    except InvalidState:
        return None
    log = log_of(state)
    _keep_history_text(text, log)
    if log is not None:  # the views walk the round on the replay's tables (see SIGNED_TABLES)
        if len(SIGNED_TABLES) >= _SIGNED_TABLES_LIMIT:
            SIGNED_TABLES.clear()
        SIGNED_TABLES[id(log)] = (log, tables)
    return state


#: Where a document's own history starts and ends, in the writers' order of keys.
_HISTORY_KEY = ',"history":['
_AFTER_HISTORY = '],"deals":['
#: Texts of histories known to be the writers' (:func:`log_text` without its
#: brackets) of the actions they hold: a history read before, or written.
_WRITTEN_HISTORIES: set[str] = set()
_WRITTEN_LIMIT = 1 << 10


def _keep_history_text(text: str, log: ActionLog) -> None:
    """Keep the history's text of a validated document ``text`` as :func:`log_text` writes it.

    ``log`` is the history as the quick reader read it. The array between
    the document's own history key and its deals key (no other array of
    actions is followed by that key; every quote of the text delimits a
    string the reader took) is the writers' text of ``log`` if it is a text
    known to be (:data:`_WRITTEN_HISTORIES`), or one such with the writers'
    text of ``log``'s newest action after it: the history of the state
    before and the action since, as a server loads the state it saved last.
    Otherwise the text is written (once; it is then known). Either way
    saving the next state, or a view of this one, writes one action more,
    not the whole round again.
    """
    if log is None:
        return
    start = text.find(_HISTORY_KEY)
    end = text.find(_AFTER_HISTORY, start)
    written = text[start + len(_HISTORY_KEY) : end] if 0 < start < end else ""
    known = _WRITTEN_HISTORIES
    if written not in known:
        cut = written.rfind(',{"seat":')
        before = previous_node(log)
        newest = action_text(log)
        if before is None:
            same = written == newest
        else:
            same = cut > 0 and written[cut + 1 :] == newest and written[:cut] in known
        if not same:
            written = log_text(log)[1:-1]  # kept in LOG_TEXTS
        if len(known) >= _WRITTEN_LIMIT:
            known.clear()
        known.add(written)
        if not same:
            return
    if len(LOG_TEXTS) >= _TEXTS_LIMIT:
        LOG_TEXTS.clear()
    LOG_TEXTS[id(log)] = (log, written)
