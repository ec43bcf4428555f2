"""Reading JSON safely: the strict parser and the document classes it is read into.

:func:`~american_sniff.serial.read_json` parses a text within bounds;
:func:`~american_sniff.serial.structure` reads the parsed JSON into a document
class (:class:`~american_sniff.serial.ActionDoc`, ``StateDoc``, ...) with the
package's one converter (:func:`~american_sniff.serial.converter`), naming the
first problem and where it is.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar, get_origin

import attrs

from .._json import DealDoc
from ..deal import MAX_DEALS
from ..rules import PLAYER_COUNTS
from ..tiles import ALL_TILES
from .conventions import MAX_SAFE_INTEGER

if TYPE_CHECKING:
    import cattrs

__all__ = [
    "ActionDoc",
    "read_json",
]

#: Digits beyond which a number is refused before it is even converted.
_MAX_DIGITS = 20
#: Every ASCII digit to ``0``, every other byte as it is: with it, a run of 16
#: digits is a fixed substring, which the regular expression below finds
#: with a plain substring search.
_DIGITS_AS_ZERO = bytes.maketrans(b"0123456789", b"0" * 10)

#: Where a JSON number of 16 digits or more starts, in a text whose digits
#: are all ``0``: after a delimiter, a sign or a space (the 64-bit decimal
#: strings are preceded by a quote). It may also match inside a string, which
#: only costs the slower reading.
_LONG_NUMBER = re.compile(b"0" * 16 + rb"(?<=[-:,\[\s]" + b"0" * 16 + b")")


def long_number(text: str) -> bool:
    """Whether ``text`` may hold a JSON number of 16 digits or more.

    JSON numbers are ASCII and follow ASCII delimiters, so the UTF-8 bytes
    (lone surrogates passed through) are searched, about 1 ms a MiB.

    >>> long_number('{"a": 1234567890123456}'), long_number('[-1234567890123456]')
    (True, True)
    >>> long_number('{"seed": "12345678901234567890"}'), long_number("1234567890123456")
    (False, True)
    """
    digits = text.encode("utf-8", "surrogatepass").translate(_DIGITS_AS_ZERO)
    return digits.startswith(b"0" * 16) or _LONG_NUMBER.search(digits) is not None


_E = TypeVar("_E", bound=ValueError)

#: A document of the library holds at most one array or object per this many
#: characters (an action is an object of some 70 characters, a hand an array
#: of a few tiles; a tile's or a move's text opens with a bracket inside its
#: quotes, which is not counted), beyond :data:`_ALLOWANCE` of them ...
_CHARACTERS_A_CONTAINER = 16
#: ... and at most one comma per this many (a list of tiles has one in 8).
_CHARACTERS_A_COMMA = 5
#: The values every document may hold whatever its length (small ones are dense).
_ALLOWANCE = 512


def too_dense(text: str) -> str | None:
    """Why ``text`` holds more values than any document of the library of its length, or None.

    Counted before parsing, in a few passes over the text at the speed of
    :meth:`str.count`, so that a text of a million empty arrays, objects,
    strings or numbers is refused before the parser builds them; the bounds
    (:data:`_CHARACTERS_A_CONTAINER`, :data:`_CHARACTERS_A_COMMA`) are twice
    and more what the library's documents hold. Brackets and commas inside
    strings count too: they only make the estimate larger.

    >>> too_dense('{"history": [' + "[]," * 1000 + "[]]}")
    'it holds 1003 arrays and objects in 3017 characters; a document of the library holds at most one per 16 characters, beyond 512'
    >>> too_dense('{"stock": ["[0|0]", "[0|1]"]}') is None
    True
    """  # noqa: E501 (the doctest's message is one line)
    containers = text.count("[") + text.count("{") - text.count('"[')
    if containers > len(text) // _CHARACTERS_A_CONTAINER + _ALLOWANCE:
        return (
            f"it holds {containers} arrays and objects in {len(text)} characters; a document"
            f" of the library holds at most one per {_CHARACTERS_A_CONTAINER} characters,"
            f" beyond {_ALLOWANCE}"
        )
    commas = text.count(",")
    if commas > len(text) // _CHARACTERS_A_COMMA + _ALLOWANCE:
        return (
            f"it holds {commas} values in {len(text)} characters; a document of the library"
            f" holds at most one per {_CHARACTERS_A_COMMA} characters, beyond {_ALLOWANCE}"
        )
    return None


# -- reading JSON safely --------------------------------------------------------------


def read_json(text: object, *, max_bytes: int, error: type[_E], what: str) -> Any:
    """Parse JSON ``text`` strictly and within bounds, or raise ``error`` saying why.

    ``text`` may be ``str`` or UTF-8 ``bytes``. Refused: other types, text over
    ``max_bytes`` bytes, text denser in values than any document
    (``too_dense``), invalid JSON, floats, ``NaN`` and infinities, integers
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
    dense = too_dense(text)
    if dense is not None:
        raise error(f"{what} is refused unread: {dense}")
    # An integer of fewer digits than MAX_SAFE_INTEGER's 16 is always within
    # bounds: only a text with a longer one pays for a Python call per integer.
    parse_int = _parse_int if long_number(text) else None
    try:
        return json.loads(
            text,
            parse_int=parse_int,
            parse_float=refuse_float,
            parse_constant=refuse_float,
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
    except ValueError as exc:  # e.g. Python's own limit on an integer's digits
        raise error(f"{what} is not valid: {exc}") from None


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


def refuse_float(text: str) -> float:
    """Refuse a float, NaN or an infinity (the parser's hook; the quick reader's too)."""
    raise _Refused(f"{text} is not an integer; the formats use only integers")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # Built in one call; only an object that lost a key to a repeat is walked.
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused(f"the key {key!r} appears twice in one object")
            seen.add(key)
    return result


#: More actions than any round holds (as validation counts them: each of the
#: 28 tiles drawn, placed, and passed around at most twice).
MOST_ACTIONS = 4 * len(ALL_TILES)

#: More legal moves than any position has: each tile of a hand at each of the
#: at most four open ends (the line's two and the Sniff's two branches).
MOST_LEGAL_MOVES = 4 * len(ALL_TILES)

#: The most deals a match is given (:data:`american_sniff.deal.MAX_DEALS`),
#: and the most rounds a record holds: far more than play needs (the longest
#: of 450 matches of random moves had 67 rounds).
MOST_ROUNDS = MAX_DEALS


@attrs.frozen
class Most:
    """A list of at most ``count`` elements, each within ``each`` if given (:func:`check_limits`).

    :ivar count: The most elements the list may hold.
    :ivar noun: What its elements are, for the message (``"tiles"``).
    :ivar why: Why no document needs more, for the message (``"there are 28"``).
    :ivar each: The limits of every element: a :class:`Most` for a list of
        lists, a mapping of keys to limits for a list of objects.
    """

    count: int
    noun: str
    why: str
    each: Limits | None = None


#: The limits of a document: a list's (:class:`Most`), or an object's, by key.
Limits = Most | Mapping[str, "Limits"]


def check_limits(
    value: object, limits: Limits, error: Callable[[str], Exception], where: str = "$"
) -> None:
    """Refuse a parsed ``value`` that holds a list longer than ``limits`` allow.

    ``error`` makes the exception raised from the message (an error class).

    Looked at before the document is read element by element, so that a long
    list of plausible elements (actions, tiles, deals, hands, rounds) costs
    one ``len`` each; a value of another type is left for the reader to name.
    Only the elements of a list within its bound are looked into, so the
    walk is linear and bounded by the limits themselves.
    """
    if type(limits) is Most:
        if type(value) is not list:
            return
        if len(value) > limits.count:
            raise error(f"{where} holds {len(value)} {limits.noun}; {limits.why}")
        each = limits.each
        if each is not None:
            for index, item in enumerate(value):
                check_limits(item, each, error, f"{where}[{index}]")
        return
    if type(value) is not dict:
        return
    for key, inner in limits.items():  # type: ignore[union-attr]
        item = value.get(key)
        if item is not None:
            check_limits(item, inner, error, f"{where}.{key}")


_SEAT_COUNT = max(PLAYER_COUNTS)
_MOST_SEATS = f"no match has more than {_SEAT_COUNT} seats"
_TILES = Most(len(ALL_TILES), "tiles", f"there are {len(ALL_TILES)}")
_HANDS = Most(_SEAT_COUNT, "hands", _MOST_SEATS, _TILES)
_SEATS = Most(_SEAT_COUNT, "integers", _MOST_SEATS)
_SIDES = Most(3, "integers", "no match has more than 3 sides")
_ACTIONS = Most(MOST_ACTIONS, "actions", f"no round holds more than {MOST_ACTIONS}")
_MOVES = Most(
    MOST_LEGAL_MOVES, "moves", f"no position has more than {MOST_LEGAL_MOVES} legal moves"
)
_PLACEMENTS = Most(len(ALL_TILES), "placements", f"there are {len(ALL_TILES)} tiles")
_OPEN = 4  # the line's two ends and the Sniff's two branches
_VOIDS = Most(
    _SEAT_COUNT,
    "lists",
    _MOST_SEATS,
    Most(7, "values", "a tile's halves show 7 values, 0 to 6"),
)
#: A box, a segment, a marker, a tile's half: at most four integers.
_BOX = Most(4, "integers", "a box or a segment is four integers")

#: The lists of a state document and their maxima (docs/formats.md, "Limits").
STATE_LIMITS: Mapping[str, Limits] = {
    "history": _ACTIONS,
    "stock": _TILES,
    "hands": _HANDS,
    "scores": _SIDES,
    "deals": Most(
        MOST_ROUNDS,
        "deals",
        f"a match is given at most {MOST_ROUNDS} deals",
        {"hands": _HANDS, "stock": _TILES},
    ),
    "last_round": {"history": _ACTIONS, "hands": _HANDS, "deductions": _SEATS, "scores": _SIDES},
}

#: A view's ``geometry``: the table's tiles and open points, laid out.
_GEOMETRY: Mapping[str, Limits] = {
    "page": Most(2, "integers", "a page is a width and a height"),
    "bounds": _BOX,
    "tiles": Most(
        len(ALL_TILES),
        "tiles",
        f"there are {len(ALL_TILES)}",
        {
            "rect": _BOX,
            "low_half": _BOX,
            "high_half": _BOX,
            "edges": Most(4, "edges", "a tile has four sides", {"segment": _BOX}),
        },
    ),
    "anchors": Most(_OPEN, "anchors", f"a table has at most {_OPEN} open points", {"marker": _BOX}),
}

#: The lists of a view document and their maxima.
VIEW_LIMITS: Mapping[str, Limits] = {
    "scores": _SIDES,
    "hand": _TILES,
    "hand_sizes": _SEATS,
    "table": {
        "placements": _PLACEMENTS,
        "open_points": Most(_OPEN, "points", f"a table has at most {_OPEN} open points"),
        "contributions": Most(_OPEN, "contributions", f"a table has at most {_OPEN} open points"),
    },
    "legal_moves": _MOVES,
    "previews": _MOVES,
    "history": _ACTIONS,
    "last_round": {
        "hands": _HANDS,
        "deductions": _SEATS,
        "scores": _SIDES,
        "placements": _PLACEMENTS,
        "history": _ACTIONS,
    },
    "voids": _VOIDS,
    "geometry": _GEOMETRY,
}

#: The lists of an event document and their maxima (its next round is a view).
EVENT_LIMITS: Mapping[str, Limits] = {
    "scores": _SIDES,
    "legal_moves": _MOVES,
    "voids": _VOIDS,
    "next_round": VIEW_LIMITS,
}

#: The lists of a record and their maxima.
RECORD_LIMITS: Mapping[str, Limits] = {
    "names": Most(_SEAT_COUNT, "names", _MOST_SEATS),
    "rounds": Most(
        MOST_ROUNDS,
        "rounds",
        f"a record holds at most {MOST_ROUNDS} rounds",
        {
            "hands": _HANDS,
            "stock": _TILES,
            "actions": _ACTIONS,
            "deductions": _SEATS,
            "scores": _SIDES,
        },
    ),
    "result": {"scores": _SIDES},
}


#: The lists of the engine protocol's requests and their maxima, by command.
PROTOCOL_LIMITS: Mapping[str, Mapping[str, Limits]] = {
    "new": {"deals": STATE_LIMITS["deals"], "scores": _SIDES},
    "settle": {"hands": _HANDS, "scores": _SIDES},
}


def check_lengths(data: dict[str, Any], error: type[ValueError], where: str = "$") -> None:
    """Refuse a parsed state document with a list longer than :data:`STATE_LIMITS` allow."""
    check_limits(data, STATE_LIMITS, error, where)


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
class RoundDoc:
    """A state document's ``last_round`` as read from JSON, before its texts are parsed.

    Each field is the key of its name, as ``docs/formats.md`` describes it.
    """

    round: int
    end: str
    finisher: int | None
    hands: list[list[str]]
    deductions: list[int]
    scores: list[int]
    history: list[ActionDoc]
    dealt_from: str = "seed"  # absent from older documents


@attrs.frozen
class StateDoc:
    """A state document as read from JSON, before its texts are parsed.

    Each field is the key of its name, as ``docs/formats.md`` describes it;
    the loaders read its fields, and the quick reader its set of keys.
    """

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
    last_round: RoundDoc | None
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
    # A list of strings or integers is checked in one pass; only a list with
    # an element of another type is walked to find and name it.
    plain = element if element in (str, int) else None

    def structure(value: object, _: type) -> object:
        if type(value) is not list:
            raise TypeError(f"expected list, got {type(value).__name__}")
        if plain is not None and all(type(item) is plain for item in value):
            return list(value)
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


#: How a message names a JSON value's kind, by the Python type it is read as.
_JSON_KINDS = {
    "dict": "an object",
    "list": "an array",
    "str": "a string",
    "int": "a number",
    "bool": "true or false",
    "NoneType": "null",
}


def _json_kind(value: object) -> str:
    """What kind of JSON value ``value`` is, for a message: ``"an array"``, ``"null"``, ...

    >>> _json_kind([]), _json_kind(None), _json_kind("x")
    ('an array', 'null', 'a string')
    """
    return _JSON_KINDS.get(type(value).__name__, type(value).__name__)


class _NotAnObject(TypeError):
    """A document class (an action, a round, a deal...) read from a value that is no object.

    Also an object with more keys than its class has: its message counts the
    unknown keys and names the first three, not every one as cattrs would.
    """


#: The characters of a key that a message shows.
_KEY_SHOWN = 40


def _unknown_keys(value: dict[str, Any], fields: Mapping[str, object]) -> tuple[int, str]:
    """How many keys of ``value`` are unknown, and the first three (each cut short)."""
    unknown = len(value) - sum(1 for name in fields if name in value)  # O(fields)
    first = itertools.islice((key for key in value if key not in fields), 3)
    shown = ", ".join(key if len(key) <= _KEY_SHOWN else key[:_KEY_SHOWN] + "..." for key in first)
    return unknown, shown


def _document_name(kind: type) -> str:
    """``ActionDoc`` -> ``"action"``, ``ViewRoundDoc`` -> ``"view round"``: for messages."""
    name = kind.__name__.lstrip("_").removesuffix("Doc")
    return "".join(f" {c.lower()}" if c.isupper() else c for c in name).strip() or "document"


def _objects_only(kind: type, converter: cattrs.Converter) -> Callable[[object, type], object]:
    # cattrs' own hook would reach for the keys of whatever it is given, and
    # report a list or a string in an action's place as an "unknown error"
    # ('list' object has no attribute 'keys'); this one says what is wrong.
    from cattrs.gen import make_dict_structure_fn  # noqa: PLC0415

    inner: Any = make_dict_structure_fn(
        kind,
        converter,
        _cattrs_forbid_extra_keys=True,
        _cattrs_detailed_validation=True,
    )
    name = _document_name(kind)
    name = ("an " if name[0] in "aeiou" else "a ") + name
    fields = attrs.fields_dict(kind)
    count = len(fields)

    def structure(value: object, _: type) -> object:
        if type(value) is not dict:
            raise _NotAnObject(f"expected {name} object, got {_json_kind(value)}")
        if len(value) > count:
            # cattrs' words, but three keys named, not every one
            unknown, shown = _unknown_keys(value, fields)
            more = f", ... {unknown} in all" if unknown > 3 else ""
            raise _NotAnObject(f"extra fields found ({shown}{more})")
        return inner(value, kind)

    return structure


def _message(exc: BaseException, kind: type | None) -> str:
    """A problem's message: cattrs' own wording, never its "unknown error (...)"."""
    import cattrs.v  # noqa: PLC0415 - see converter()

    if isinstance(exc, _NotAnObject):
        return str(exc)
    text = cattrs.v.format_exception(exc, kind)
    if text.startswith("unknown error"):
        return f"cannot be read ({type(exc).__name__}: {exc})"
    return text


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
    converter.register_structure_hook_factory(
        attrs.has,
        lambda kind: _objects_only(kind, converter),
    )
    # The most common object of every document: checked here in one pass, and
    # handed to the generated hook (whose errors name the problem) only when
    # something is wrong with it.
    converter.register_structure_hook(ActionDoc, _action_doc(_objects_only(ActionDoc, converter)))
    return converter


def register_plain(kind: type[_T], plain: Callable[[object], _T | None]) -> None:
    """Read ``kind`` with ``plain`` first: one pass of plain tests, None if something is wrong.

    Only a value that ``plain`` gives up on goes to the converter's own hook,
    whose message names the problem and its place (as for actions, below).
    Registered once, on the converter's first use by the caller.
    """
    made = converter()
    slow = made.get_structure_hook(kind)

    def structure(value: object, of: type) -> object:
        doc = plain(value)
        return slow(value, of) if doc is None else doc

    made.register_structure_hook(kind, structure)


#: The keys of an action object, every one required.
_ACTION_KEYS = frozenset(attrs.fields_dict(ActionDoc))


def plain_action(value: object) -> tuple[int, str, str | None, int | None, int | None] | None:
    """The fields of an action object in the format (as :class:`ActionDoc` reads them), or None.

    One pass of plain tests, for the readers of long lists of actions; None
    means that something is wrong, which :func:`structure_at` then names.
    """
    if type(value) is dict and value.keys() == _ACTION_KEYS:
        seat, move, tile = value["seat"], value["move"], value["tile"]
        end_sum, points = value["end_sum"], value["points"]
        if (
            type(seat) is int
            and type(move) is str
            and (tile is None or type(tile) is str)
            and (end_sum is None or type(end_sum) is int)
            and (points is None or type(points) is int)
        ):
            return seat, move, tile, end_sum, points
    return None


def _action_doc(slow: Callable[[object, type], object]) -> Callable[[object, type], object]:
    def structure(value: object, kind: type) -> object:
        fields = plain_action(value)
        return slow(value, kind) if fields is None else ActionDoc(*fields)

    return structure


_T = TypeVar("_T")


def structure_at(
    value: object, kind: type[_T], error: type[ValueError], what: str, path: str
) -> _T:
    """Read ``value``, found at ``path`` of a document, as the class ``kind``, or raise ``error``.

    The message is the one :func:`structure` gives for the whole document,
    e.g. ``the record is not in the format: expected int @ $.rounds[0].actions[3].seat``.
    """
    import cattrs  # noqa: PLC0415 - see converter()

    try:
        return converter().structure(value, kind)
    except Exception as exc:  # cattrs reports problems as exception groups
        problems = cattrs.transform_error(exc, path=path, format_exception=_message)
        raise error(f"{what} is not in the format: {problems[0]}") from None


def structure(data: object, kind: type[_T], error: type[ValueError], what: str) -> _T:
    """Read ``data`` (parsed JSON) as the document class ``kind``, or raise ``error``.

    The message names the first problem and where it is, e.g.
    ``expected int @ $.hands[0][1]``.
    """
    if not isinstance(data, dict):
        raise error(f"{what} must be a JSON object, got {type(data).__name__}")
    import cattrs  # noqa: PLC0415 - see converter()

    if attrs.has(kind):
        # Named here, not by cattrs, which would list every unknown key.
        fields = attrs.fields_dict(kind)
        if len(data) > len(fields):
            unknown, shown = _unknown_keys(data, fields)
            shown += ", ..." if unknown > 3 else ""
            raise error(f"{what} is not in the format: {unknown} unknown keys ({shown}) @ $")
    try:
        return converter().structure(data, kind)
    except Exception as exc:  # cattrs reports problems as exception groups
        problems = cattrs.transform_error(exc, path="$", format_exception=_message)
        raise error(f"{what} is not in the format: {problems[0]}") from None
