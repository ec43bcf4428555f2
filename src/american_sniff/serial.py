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
import hashlib
import hmac
import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, get_origin

import attrs

from .errors import IllegalMove, InvalidState
from .layout import Layout, Point, Side, placed
from .moves import Draw, Move, Pass, Place
from .rules import RULES_VERSION, side_of
from .state import (
    Action,
    ActionLog,
    Deal,
    MatchState,
    RoundEnd,
    RoundInfo,
    RoundResult,
    action_node,
    node_fields,
    previous_node,
    tile_index,
)
from .tiles import ALL_TILES, Tile
from .validation import validate_state

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
    "action_to_json",
    "format_schema",
    "move_text",
    "parse_move_text",
    "parse_tile_text",
    "read_json",
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
SCHEMA_NAMES = ("state", "view", "event", "record")


def format_schema(name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a format, as parsed JSON.

    ``name`` is ``"state"``, ``"view"`` (a player's or a spectator's),
    ``"event"`` or ``"record"``; the schemas ship with the package as
    ``american_sniff/schemas/NAME.schema.json``. A document the library
    writes is valid against its schema; validity says nothing of the rules,
    which the readers check.

    :raises ValueError: if ``name`` is not one of those.
    """
    if name not in SCHEMA_NAMES:
        raise ValueError(f"no schema named {name!r}; the schemas are {', '.join(SCHEMA_NAMES)}")
    from importlib import resources  # noqa: PLC0415 - only schema users need it

    text = resources.files(__package__).joinpath(f"schemas/{name}.schema.json").read_text("utf-8")
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

_SIDES = {side.value: side for side in Side}
_SIDE_LIST = ", ".join(_SIDES)


def tile_text(tile: Tile) -> str:
    """A tile as the formats write it: ``"[1|4]"``."""
    return str(tile)


def parse_tile_text(text: str) -> Tile:
    """The tile written ``"[a|b]"`` with ``a <= b``; the library's own instance.

    :raises ValueError: if ``text`` is not a tile in exactly that form.
    """
    tile = _TILE_OF_TEXT.get(text)
    if tile is None:
        raise ValueError(f"{text!r} is not a tile written '[a|b]' with a <= b")
    return tile


#: Every tile by its text: reading a tile is one look-up.
_TILE_OF_TEXT = {str(tile): tile for tile in ALL_TILES}


def move_text(move: Move) -> str:
    """A move as the formats write it (``str(move)``)."""
    return str(move)


def parse_move_text(text: str) -> Move:
    """The move written as ``str(move)`` writes it, in exactly that form.

    The forms are ``"[a|b] opens"``, ``"[a|b] on [c|d] SIDE"``, ``"draw"`` and
    ``"pass"``, with ``a <= b`` and SIDE a :class:`~american_sniff.Side` value.
    Every document of the library, and the engine protocol, writes moves so.

    >>> parse_move_text("[1|2] on [1|1] branch_a")
    Place(Tile(1, 2), Point(Tile(1, 1), Side.BRANCH_A))

    :raises IllegalMove: (a :class:`ValueError`) with code ``not_a_move`` if
        ``text`` has none of those forms, ``not_a_tile`` if the placed tile is
        not written as above, ``not_a_point`` if the point is not a side written
        as above.
    """
    move = _MOVE_OF_TEXT.get(text)
    if move is not None:
        return move
    if text == "draw":
        return Draw()
    if text == "pass":
        return Pass()
    if text.endswith(" opens"):
        return Place(_move_tile(text[: -len(" opens")]))
    tile, on, at = text.partition(" on ")
    if not on:
        raise IllegalMove(
            f"not a move: {text!r} (expected '[a|b] opens', '[a|b] on [c|d] SIDE', "
            "'draw' or 'pass')",
            "not_a_move",
        )
    move = Place(_move_tile(tile), _move_point(at))
    _MOVE_OF_TEXT[text] = move  # at most 28 * 144 distinct texts
    return move


def _move_tile(text: str) -> Tile:
    """The placed tile of a move's text, refused with the code ``not_a_tile``."""
    try:
        return parse_tile_text(text)
    except ValueError as exc:
        raise IllegalMove(f"not a tile: {exc}", "not_a_tile") from None


def _move_point(text: str) -> Point:
    """The point of a move's text, refused with the code ``not_a_point``."""
    tile, _, side = text.partition(" ")
    if side not in _SIDES:
        raise IllegalMove(
            f"not a point: {text!r} (expected '[a|b] SIDE' with SIDE one of {_SIDE_LIST})",
            "not_a_point",
        )
    try:
        return Point(parse_tile_text(tile), _SIDES[side])
    except ValueError as exc:
        raise IllegalMove(f"not a point: {text!r}: {exc}", "not_a_point") from None


#: Moves already read, by their text (only texts that parsed are kept).
_MOVE_OF_TEXT: dict[str, Move] = {}


def _u64_text(value: int) -> str:
    return str(value)


def _parse_u64(text: str, what: str) -> int:
    if not re.fullmatch(r"0|[1-9][0-9]{0,19}", text) or int(text) >= 1 << 64:
        raise InvalidState(f"{what} must be a decimal string of an integer from 0 to 2**64 - 1")
    return int(text)


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
class _DealDoc:
    hands: list[list[str]]
    stock: list[str]
    opener: int | None


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
    deals: list[_DealDoc]
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
    from cattrs.cols import list_structure_factory  # noqa: PLC0415 - see converter()

    items = list_structure_factory(kind, converter)

    def structure(value: object, _: type) -> object:
        if type(value) is not list:
            raise TypeError(f"expected list, got {type(value).__name__}")
        return items(value, kind)

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


def action_to_json(action: Action, *, hide_tile: bool = False) -> dict[str, Any]:
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
        "history": [action_to_json(a) for a in result.history],
        "dealt_from": "deal" if result.given else "seed",
    }


def round_result_to_json(result: RoundResult | None) -> dict[str, Any] | None:
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
        "seed": _u64_text(info.seed),
        "rng": _u64_text(info.rng),
        "round": info.round,
        "opener": info.opener,
        "turn": state.turn,
        "scores": list(state.scores),
        "winner": state.winner,
        "hands": _hands_doc(state.hands),
        "stock": [tile_text(t) for t in state.stock],
        "drawn": None if state.drawn is None else tile_text(state.drawn),
        "history": [action_to_json(a) for a in state.history],
        "deals": [
            {
                "hands": _hands_doc(deal.hands),
                "stock": [tile_text(t) for t in deal.stock],
                "opener": deal.opener,
            }
            for deal in info.deals
        ],
        "last_round": round_result_to_json(info.last_round),
        "actions_before": info.actions_before,
        "dealt_from": "deal" if info.given else "seed",
    }


def state_to_json(state: MatchState, *, key: bytes | None = None) -> str:
    """The state as compact JSON text; signed with ``key`` if one is given.

    This is :meth:`MatchState.to_json <american_sniff.MatchState.to_json>`.
    A signed save ends with a ``signature`` key: the HMAC-SHA256, under
    ``key``, of the same text without it (see :func:`state_from_json`).

    :raises ValueError: if ``key`` is not bytes of at least 16 bytes.
    """
    text = json.dumps(state_to_dict(state), separators=(",", ":"))
    if key is None:
        return text
    return f'{text[:-1]},"signature":"{_signature(_check_key(key), text)}"}}'


#: The length of the ``,"signature":"..."}`` that ends a signed save.
_SIGNATURE_TAIL = len(',"signature":""}') + 64


def _check_key(key: object) -> bytes:
    if not isinstance(key, bytes) or len(key) < 16:
        raise ValueError("a signing key must be bytes, at least 16 of them (32 random is best)")
    return key


def _signature(key: bytes, text: str) -> str:
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).hexdigest()


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
    unsigned = head + "}"
    if not hmac.compare_digest(_signature(key, unsigned), tail[14:-2]):
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
        data = json.loads(_signed_text(text, _check_key(key)))
    else:
        data = read_json(text, max_bytes=MAX_STATE_BYTES, error=InvalidState, what="the state")
    if isinstance(data, dict):
        check_header(data, STATE_FORMAT, InvalidState)
    if key is not None:
        try:
            doc = _signed_doc(data)
        except (TypeError, KeyError) as exc:  # only a key holder could write such a text
            raise InvalidState(
                f"the signed state is not in the format: {type(exc).__name__} {exc}"
            ) from None
    else:
        doc = structure(data, _StateDoc, InvalidState, "the state")
    try:
        state = _build_state(doc, trusted=key is not None)
    except InvalidState:
        raise
    except (ValueError, TypeError, KeyError, IndexError) as exc:
        raise InvalidState(f"the state cannot be built: {exc}") from None
    if key is None:
        validate_state(state)
    return state


def _signed_doc(data: dict[str, Any]) -> _StateDoc:
    """The document classes of a signed save, built straight from its parsed JSON.

    The library wrote the text (its signature says so), so its shape needs no
    checking: the converter's field-by-field checks are left out.
    """
    last = data["last_round"]
    return _StateDoc(
        **{
            **data,
            "history": [ActionDoc(**action) for action in data["history"]],
            "deals": [_DealDoc(**deal) for deal in data["deals"]],
            "last_round": None
            if last is None
            else _RoundDoc(**{**last, "history": [ActionDoc(**a) for a in last["history"]]}),
        }
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
            tiles.append(parse_tile_text(text))
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
            move = parse_move_text(action.move)
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
    for index, move in enumerate(reversed(placements)):
        try:
            layout = layout.place(move.tile, move.at)
        except ValueError as exc:
            raise InvalidState(
                f"the table is not a legal sequence of placements: placement {index + 1} "
                f"of {what} ({move}) is illegal: {exc}"
            ) from None
    return layout


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
    seed = _parse_u64(doc.seed, "$.seed")
    rng = _parse_u64(doc.rng, "$.rng")
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


def _deals_from(docs: list[_DealDoc]) -> tuple[Deal, ...]:
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
