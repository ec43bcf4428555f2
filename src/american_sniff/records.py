"""Match records: a whole match as one versioned JSON document, as PGN is for chess.

A :class:`MatchRecord` holds everything needed to replay a match and to check
it against the rules: for every round the hands as dealt, the stock in draw
order, who opened and why, every action in order with what it claims (the end
sum and points of a placement, the tile a draw took), and how the round ended;
then the final scores and the winner. The deals are explicit, so a program
that deals with its own generator can write a record; the seed is optional.

* :class:`Recorder` and :func:`~american_sniff.record_match` build a record from the states
  of a match played with this library;
* :func:`~american_sniff.replay` plays a record again and yields every state;
* :meth:`~american_sniff.MatchRecord.to_json` and
  :meth:`~american_sniff.MatchRecord.from_json` (and
  :func:`~american_sniff.dump_record` and :func:`~american_sniff.load_record`
  for files) write and read the JSON, whose format is documented field by
  field in ``docs/records.md`` and described by a JSON Schema shipped with
  the package (:func:`record_schema`);
* :func:`american_sniff.check_record` lists every claim of a record
  that the rules contradict.

The JSON follows the conventions of :mod:`american_sniff.serial` (tiles
``"[a|b]"``, moves as ``str(move)`` writes them, the seed as a decimal string,
every key always present, no other key allowed) and is read as strictly: no
evaluation, strict types, a bounded size (:data:`~american_sniff.records.MAX_RECORD_BYTES`), and an
:class:`~american_sniff.InvalidRecord` naming the first problem.

Reading checks the *shape* of a record, exactly what the schema checks; it
does not check the record against the rules, but for one count that bounds
the reader: a round before the last holds at least a hand's worth of actions
(:func:`~american_sniff.rules.fewest_actions`), as every round that ended
does. A record whose claims are wrong (a wrong end sum, a tile dealt twice,
an illegal move) loads, so that the referee can say what is wrong with it.
"""

from __future__ import annotations

import enum
import functools
import json
from collections.abc import Iterable, Iterator, Sequence
from importlib import resources
from itertools import repeat
from pathlib import Path
from typing import Any, TypeVar

import attrs

from ._json import pretty_json, read_u64
from .engine import new_match
from .errors import InvalidDeal, InvalidRecord
from .moves import Draw, Move, Pass, Place, parse_move
from .replayer import IllegalAction, ReplayError, deal_difference, hands_as_dealt, replay_actions
from .rules import PLAYER_COUNTS, RULES_VERSION, fewest_actions
from .serial import (
    MAX_SAFE_INTEGER,
    ActionDoc,
    check_header,
    document_header,
    move_text,
    read_json,
    structure,
    tile_text,
)
from .serial.conventions import FORMAT_VERSION, TILE_OF_TEXT
from .serial.parsing import (
    MOST_ACTIONS,
    MOST_ROUNDS,
    RECORD_LIMITS,
    check_limits,
    plain_action,
    register_plain,
    structure_at,
)
from .state import Action, Deal, MatchState, RoundEnd, RoundResult
from .tiles import Tile, parse_tile

__all__ = [
    "MAX_RECORD_BYTES",
    "RECORD_FORMAT",
    "ActionRecord",
    "MatchRecord",
    "OpenerBy",
    "Recorder",
    "RoundRecord",
    "dump_record",
    "load_record",
    "record_match",
    "record_schema",
    "replay",
    "seed_discrepancy",
]

#: The ``format`` of a match record.
RECORD_FORMAT = "american-sniff/record"
#: The longest record text that is read: 16 MiB (a long match is a few hundred KB).
MAX_RECORD_BYTES = 16 << 20
#: Integers in a record are at most 2**53 - 1 in size, as in every format of
#: the library: JavaScript holds them exactly.
_INT_BOUND = MAX_SAFE_INTEGER + 1


class OpenerBy(enum.Enum):
    """Why a seat opened a round.

    :cvar LOT: ``"lot"``: chosen by lot, in the first round and every round
        after a blocked one.
    :cvar FINISHER: ``"finisher"``: the seat went out in the round before, and
        so opens this one.
    """

    LOT = "lot"
    FINISHER = "finisher"

    def __repr__(self) -> str:
        return f"OpenerBy.{self.name}"


# -- shape checks shared by the constructors ------------------------------------------


def _check_int(value: object, what: str, minimum: int | None = None) -> None:
    if type(value) is not int or not -_INT_BOUND < value < _INT_BOUND:
        raise InvalidRecord(
            f"{what} must be an integer of at most 2**53 - 1 in size, got {value!r}"
        )
    if minimum is not None and value < minimum:
        raise InvalidRecord(f"{what} must be at least {minimum}, got {value}")


def _check_ints(values: tuple[object, ...], what: str) -> None:
    for position, value in enumerate(values):
        _check_int(value, f"{what}[{position}]")


def _check_tiles(tiles: tuple[object, ...], what: str) -> None:
    if all(map(isinstance, tiles, repeat(Tile))):  # (in C: a record has many rounds)
        return
    for position, tile in enumerate(tiles):
        if not isinstance(tile, Tile):
            raise InvalidRecord(f"{what}[{position}] is not a Tile: {tile!r}")


def _tuple(value: Iterable[Any]) -> tuple[Any, ...]:
    """Converter: any iterable but a string or a mapping, as a tuple."""
    if isinstance(value, str | bytes | dict):
        raise InvalidRecord(f"expected a sequence, got {value!r}")
    try:
        return tuple(value)
    except TypeError:
        raise InvalidRecord(f"expected a sequence, got {value!r}") from None


def _tuples(value: Iterable[Iterable[Any]]) -> tuple[tuple[Any, ...], ...]:
    """Converter: a sequence of sequences, as a tuple of tuples."""
    return tuple(_tuple(item) for item in _tuple(value))


def _optional_tuple(value: Iterable[Any] | None) -> tuple[Any, ...] | None:
    return None if value is None else _tuple(value)


# -- the record, as values ----------------------------------------------------------------


@attrs.frozen
class ActionRecord:
    """One recorded action and what the record claims it did.

    :ivar seat: The seat that acted.
    :ivar move: The move it made.
    :ivar tile: For a :class:`~american_sniff.Draw`, the tile drawn; None for
        other moves.
    :ivar end_sum: For a placement, the table's end sum right after it; None
        for a draw or a pass.
    :ivar points: For a placement, what it scored (its end sum when that is a
        positive multiple of five, else 0); None for a draw or a pass.

    The constructor checks types only; :func:`~american_sniff.check_record`
    checks the claims against the rules.

    :raises InvalidRecord: if a field has the wrong type.
    """

    seat: int
    move: Move
    tile: Tile | None = None
    end_sum: int | None = None
    points: int | None = None

    def __attrs_post_init__(self) -> None:
        # Every record read builds one of these per action: the usual values
        # pass inline tests, and only a wrong one reaches _check_int's message.
        seat, end_sum, points = self.seat, self.end_sum, self.points
        if type(seat) is not int or not 0 <= seat < _INT_BOUND:
            _check_int(seat, "seat", 0)
        if type(self.move) not in (Place, Draw, Pass):
            raise InvalidRecord(f"move must be a Place, Draw or Pass, got {self.move!r}")
        if self.tile is not None and not isinstance(self.tile, Tile):
            raise InvalidRecord(f"tile must be a Tile or None, got {self.tile!r}")
        if end_sum is not None and (
            type(end_sum) is not int or not -_INT_BOUND < end_sum < _INT_BOUND
        ):
            _check_int(end_sum, "end_sum")
        if points is not None and (
            type(points) is not int or not -_INT_BOUND < points < _INT_BOUND
        ):
            _check_int(points, "points")

    @classmethod
    def of(cls, action: Action) -> ActionRecord:
        """The record of an action as the engine reports it (a :class:`~american_sniff.Action`).

        >>> from american_sniff import new_match, apply, legal_moves
        >>> state = new_match(2, seed=2024)
        >>> state = apply(state, legal_moves(state)[0])
        >>> ActionRecord.of(state.last_action)
        ActionRecord(seat=1, move=Place(Tile(0, 3)), tile=None, end_sum=3, points=0)
        """
        placed = type(action.move) is Place
        return cls(
            seat=action.seat,
            move=action.move,
            tile=action.tile,
            end_sum=action.end_sum if placed else None,
            points=action.points if placed else None,
        )

    def __str__(self) -> str:
        text = f"seat {self.seat}: {self.move}"
        if self.tile is not None:
            text += f" {self.tile}"
        if self.end_sum is not None or self.points is not None:
            text += f", sum {self.end_sum}, scores {self.points}"
        return text


@attrs.frozen
class RoundRecord:
    """One round of a record: the deal, the opener, the actions and how it ended.

    :ivar round: The round's number, 1 for the first (its position in
        :attr:`MatchRecord.rounds`, counting from 1).
    :ivar hands: Each seat's hand as dealt, seat 0 first.
    :ivar stock: Every tile not dealt, in draw order: the first is drawn first.
    :ivar opener: The seat that opened the round.
    :ivar opener_by: Why: by lot, or as the finisher of the round before.
    :ivar actions: Every action of the round, in order.
    :ivar end: How the round ended; None if it did not end: the match was won
        in it, or the record stops during it.
    :ivar finisher: The seat that went out; None after a block, and for a
        round that did not end.
    :ivar deductions: What settlement took from each seat, seat 0 first; None
        for a round that did not end.
    :ivar scores: Each side's score at the end of the round: after settlement,
        or right after the winning placement, or after the last recorded action
        of a round the record stops in.

    The constructor checks types only (tuples are made from any sequence);
    :func:`~american_sniff.check_record` checks the rest.

    :raises InvalidRecord: if a field has the wrong type.
    """

    round: int
    hands: tuple[tuple[Tile, ...], ...] = attrs.field(converter=_tuples)
    stock: tuple[Tile, ...] = attrs.field(converter=_tuple)
    opener: int
    opener_by: OpenerBy
    actions: tuple[ActionRecord, ...] = attrs.field(converter=_tuple)
    end: RoundEnd | None
    finisher: int | None
    deductions: tuple[int, ...] | None = attrs.field(converter=_optional_tuple)
    scores: tuple[int, ...] = attrs.field(converter=_tuple)

    def __attrs_post_init__(self) -> None:
        _check_int(self.round, "round", 1)
        for seat, hand in enumerate(self.hands):
            _check_tiles(hand, f"hands[{seat}]")
        _check_tiles(self.stock, "stock")
        _check_int(self.opener, "opener", 0)
        if type(self.opener_by) is not OpenerBy:
            raise InvalidRecord(f"opener_by must be an OpenerBy, got {self.opener_by!r}")
        for index, action in enumerate(self.actions):
            if type(action) is not ActionRecord:
                raise InvalidRecord(f"actions[{index}] is not an ActionRecord: {action!r}")
        if self.end is not None and type(self.end) is not RoundEnd:
            raise InvalidRecord(f"end must be a RoundEnd or None, got {self.end!r}")
        if self.finisher is not None:
            _check_int(self.finisher, "finisher", 0)
        if self.deductions is not None:
            _check_ints(self.deductions, "deductions")
        _check_ints(self.scores, "scores")

    def deal(self) -> Deal:
        """The round's deal, to give to :func:`~american_sniff.new_match`.

        The deal's opener is the recorded one; the engine uses it only where
        a lot is due.

        :raises InvalidDeal: if the hands and the stock are not a deal (wrong
            sizes, a tile missing or dealt twice) or the opener is no seat.
        """
        return Deal(hands=self.hands, stock=self.stock, opener=self.opener)


@attrs.frozen
class MatchRecord:
    """A whole match, or its beginning: every round and the result.

    :ivar players: The number of players (2, 3 or 4).
    :ivar names: A name for each seat, seat 0 first (``"seat 0"`` when there
        is nothing better); names are for people, the rules ignore them.
    :ivar seed: The seed the match was dealt from with
        :mod:`american_sniff.rng`, if it was: then every deal and every lot of
        the record is the one the seed gives, and the referee checks it.
        None for a match dealt some other way.
    :ivar rounds: Every round played, in order, from the first (at least
        one); the last one may be unfinished.
    :ivar scores: Each side's score at the end of the record (``result.scores``
        in the JSON): at the winning placement, or after the last action.
    :ivar winner: The side that won (``result.winner`` in the JSON), or None
        if the record stops before a side reached the target.

    The constructor checks the shape (types, ``players``, one name per seat,
    at least one round), not the rules; :func:`~american_sniff.check_record` does that.

    :raises InvalidRecord: if a field has the wrong type, ``names`` does not
        hold one string per seat, or there is no round.
    """

    players: int
    names: tuple[str, ...] = attrs.field(converter=_tuple)
    seed: int | None
    rounds: tuple[RoundRecord, ...] = attrs.field(converter=_tuple)
    scores: tuple[int, ...] = attrs.field(converter=_tuple)
    winner: int | None

    def __attrs_post_init__(self) -> None:
        if type(self.players) is not int or self.players not in PLAYER_COUNTS:
            raise InvalidRecord(f"players must be 2, 3 or 4, got {self.players!r}")
        if len(self.names) != self.players or not all(type(n) is str for n in self.names):
            raise InvalidRecord(
                f"names must hold {self.players} strings, one per seat, got {self.names!r}"
            )
        if self.seed is not None and (type(self.seed) is not int or not 0 <= self.seed < 1 << 64):
            raise InvalidRecord(
                f"seed must be None or an integer from 0 to 2**64 - 1, got {self.seed!r}"
            )
        if not self.rounds:
            raise InvalidRecord("rounds must hold at least one round, the first deal")
        for number, round_record in enumerate(self.rounds, start=1):
            if type(round_record) is not RoundRecord:
                raise InvalidRecord(f"rounds[{number - 1}] is not a RoundRecord: {round_record!r}")
        _check_ints(self.scores, "scores")
        if self.winner is not None:
            _check_int(self.winner, "winner", 0)

    @property
    def is_over(self) -> bool:
        """Whether the record claims a winner (the match is finished)."""
        return self.winner is not None

    @property
    def action_count(self) -> int:
        """How many actions the record holds, in all rounds."""
        return sum(len(r.actions) for r in self.rounds)

    def to_dict(self) -> dict[str, Any]:
        """The record as a dict of JSON values (what :meth:`to_json` writes)."""
        return {
            **document_header(RECORD_FORMAT),
            "players": self.players,
            "names": list(self.names),
            "seed": None if self.seed is None else str(self.seed),
            "rounds": [_round_to_dict(r) for r in self.rounds],
            "result": {"scores": list(self.scores), "winner": self.winner},
        }

    def to_json(self, *, pretty: bool = False) -> str:
        """The record as JSON text, in the documented record format.

        Compact by default. With ``pretty`` the text is for people and diffs:
        one key per line, and every action, hand and stock on one line.
        """
        doc = self.to_dict()
        if pretty:
            return pretty_json(doc, width=_WIDTH, flat_scalars=True)
        return json.dumps(doc, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: object) -> MatchRecord:
        """Read a record from parsed JSON (a dict, as :meth:`to_dict` returns).

        Use it for a record embedded in another document. The checks are
        those of :meth:`from_json`, but the size, which the caller bounds.

        :raises InvalidRecord: naming the first problem and where it is.
        """
        if isinstance(data, dict):
            check_header(data, RECORD_FORMAT, InvalidRecord)
            check_limits(data, RECORD_LIMITS, InvalidRecord)
            _check_round_floor(data)
        _read_rounds_plainly()
        doc = structure(data, _RecordDoc, InvalidRecord, "the record")
        return _record_from(doc)

    @classmethod
    def from_json(cls, text: str | bytes) -> MatchRecord:
        """Read a record from JSON text (``str`` or UTF-8 ``bytes``).

        Reading is strict: the format, its version and the rules version must
        be this library's; every key must be present and no other is allowed;
        values must have the documented types (integers, never floats or
        booleans, at most 2**53 - 1 in size), tiles and moves must be written in the
        notation, and no key may repeat. At most
        :data:`~american_sniff.records.MAX_RECORD_BYTES` are read, no list may
        be longer than play needs, and a round before the last must hold at
        least a hand's worth of actions (no round ends sooner). The record is
        not checked against the rules otherwise (see
        :func:`~american_sniff.check_record`).

        :raises InvalidRecord: naming the first problem and where it is,
            e.g. ``$.rounds[0].actions[3].move: 'drew' is not a move ...``.
        """
        data = read_json(text, max_bytes=MAX_RECORD_BYTES, error=InvalidRecord, what="the record")
        # read_json bounds every integer, which the quick reader relies on.
        quick = _quick_record(data)
        return quick if quick is not None else cls.from_dict(data)


# -- writing ------------------------------------------------------------------------------


def _action_to_dict(action: ActionRecord) -> dict[str, Any]:
    return {
        "seat": action.seat,
        "move": move_text(action.move),
        "tile": None if action.tile is None else tile_text(action.tile),
        "end_sum": action.end_sum,
        "points": action.points,
    }


def _round_to_dict(record: RoundRecord) -> dict[str, Any]:
    return {
        "round": record.round,
        "hands": [[tile_text(t) for t in hand] for hand in record.hands],
        "stock": [tile_text(t) for t in record.stock],
        "opener": record.opener,
        "opener_by": record.opener_by.value,
        "actions": [_action_to_dict(a) for a in record.actions],
        "end": None if record.end is None else record.end.value,
        "finisher": record.finisher,
        "deductions": None if record.deductions is None else list(record.deductions),
        "scores": list(record.scores),
    }


#: The width up to which :meth:`~american_sniff.MatchRecord.to_json` puts a
#: nested value on one line.
_WIDTH = 100


def dump_record(record: MatchRecord, path: str | Path) -> None:
    """Write ``record`` to the file ``path`` as pretty JSON text (UTF-8).

    :raises OSError: if the file cannot be written.
    """
    Path(path).write_text(record.to_json(pretty=True) + "\n", encoding="utf-8")


def load_record(path: str | Path) -> MatchRecord:
    """Read the record in the file ``path`` (see :meth:`~american_sniff.MatchRecord.from_json`).

    At most :data:`~american_sniff.records.MAX_RECORD_BYTES` bytes are read: a
    longer file is refused without being read whole.

    :raises OSError: if the file cannot be read (missing, a directory, ...).
    :raises InvalidRecord: if its content is not a record.
    """
    with Path(path).open("rb") as file:
        data = file.read(MAX_RECORD_BYTES + 1)
    return MatchRecord.from_json(data)


def record_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the record format, as parsed JSON.

    It is shipped with the package as ``american_sniff/schemas/record.schema.json``.
    A document is valid against it exactly when :meth:`~american_sniff.MatchRecord.from_json`
    reads it, but for what JSON Schema cannot say: numbers written without a
    fraction or exponent, at most
    :data:`~american_sniff.records.MAX_RECORD_BYTES`, no repeated key, and a
    hand's worth of actions at least in every round before the last.
    """
    text = resources.files(__package__).joinpath("schemas/record.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


# -- reading ------------------------------------------------------------------------------


def _check_round_floor(data: dict[str, Any]) -> None:
    """Refuse a round before the last that holds fewer actions than any round does.

    A round ends only after a hand's worth of actions at least
    (:func:`~american_sniff.rules.fewest_actions`: the finisher places every
    tile dealt to it, and a block needs the stock drawn out first), and a
    round before a record's last one ended, since another followed it. Read
    before any round is built, on the parsed lists' lengths alone, so that a
    record of many short rounds costs no more a MiB than a played one. A
    record whose ``players`` or ``rounds`` is not in the format is left for
    the reader to name.
    """
    players, rounds = data.get("players"), data.get("rounds")
    if type(players) is not int or players not in PLAYER_COUNTS or type(rounds) is not list:
        return
    least = fewest_actions(players)
    for index, round_doc in enumerate(rounds[:-1]):
        actions = round_doc.get("actions") if type(round_doc) is dict else None
        if type(actions) is list and len(actions) < least:
            raise InvalidRecord(
                f"$.rounds[{index}].actions holds {len(actions)} actions, but round"
                f" {index + 1} is not the record's last, so it ended, and no round of"
                f" {players} players ends in fewer than {least} (a hand's worth)"
            )


@attrs.frozen
class _RoundDoc:
    round: int
    hands: list[list[str]]
    stock: list[str]
    opener: int
    opener_by: str
    actions: list[Any]  # read by _actions_from, in one pass
    end: str | None
    finisher: int | None
    deductions: list[int] | None
    scores: list[int]


@attrs.frozen
class _ResultDoc:
    scores: list[int]
    winner: int | None


@attrs.frozen
class _RecordDoc:
    format: str
    format_version: int
    rules_version: str
    players: int
    names: list[str]
    seed: str | None
    rounds: list[_RoundDoc]
    result: _ResultDoc


#: The keys of a round object, every one required.
_ROUND_KEYS = frozenset(attrs.fields_dict(_RoundDoc))


def _strs(value: object) -> bool:
    return type(value) is list and all(map(str.__instancecheck__, value))


def _ints(value: object) -> bool:
    return type(value) is list and all(type(item) is int for item in value)


def _plain_round(value: object) -> _RoundDoc | None:
    """The round object ``value`` as a :class:`_RoundDoc`, checked in one pass; None if not plain.

    A record holds up to a thousand rounds: the converter reads only a round
    with something wrong, and names it.
    """
    if type(value) is not dict or value.keys() != _ROUND_KEYS:
        return None
    get = value.__getitem__
    hands, deductions, end, finisher = get("hands"), get("deductions"), get("end"), get("finisher")
    if (
        type(get("round")) is int
        and type(hands) is list
        and all(map(_strs, hands))
        and _strs(get("stock"))
        and type(get("opener")) is int
        and type(get("opener_by")) is str
        and type(get("actions")) is list
        and (end is None or type(end) is str)
        and (finisher is None or type(finisher) is int)
        and (deductions is None or _ints(deductions))
        and _ints(get("scores"))
    ):
        return _RoundDoc(**value)
    return None


@functools.cache
def _read_rounds_plainly() -> None:
    """Register :func:`_plain_round` with the converter, once, when a record is first read."""
    register_plain(_RoundDoc, _plain_round)


def _tile(text: str, where: str) -> Tile:
    try:
        return parse_tile(text, strict=True)
    except ValueError as exc:
        raise InvalidRecord(f"{where}: {exc}") from None


def _tiles(texts: list[str], where: str) -> tuple[Tile, ...]:
    tiles = tuple(map(TILE_OF_TEXT.get, texts))
    if not all(tiles):  # a tile is always true: some text is no tile; name the first
        position = next(p for p, tile in enumerate(tiles) if tile is None)
        _tile(texts[position], f"{where}[{position}]")
    return tiles  # type: ignore[return-value]  # no None left


#: The fields of an action object: seat, move, tile, end_sum, points.
_Fields = tuple[int, str, str | None, int | None, int | None]


def _action_fields(rounds: list[_RoundDoc]) -> list[list[_Fields]]:
    """The fields of every action of ``rounds``, each object read in one pass.

    Read before anything else of the record is checked, so that an action
    not in the format is named first, as the converter names every other
    object not in the format. An object with something wrong is handed to
    the converter, whose message names the problem and its place
    (``$.rounds[0].actions[3].seat``); the place is written only then.
    """
    read = []
    for number, round_doc in enumerate(rounds):
        fields = []
        for index, item in enumerate(round_doc.actions):
            plain = plain_action(item)
            if plain is None:
                where = f"$.rounds[{number}].actions[{index}]"
                doc = structure_at(item, ActionDoc, InvalidRecord, "the record", where)
                plain = (doc.seat, doc.move, doc.tile, doc.end_sum, doc.points)
            fields.append(plain)
        read.append(fields)
    return read


def _actions_from(
    items: list[_Fields], where: str, made: dict[_Fields, ActionRecord]
) -> list[ActionRecord]:
    """The actions of the round at ``where``, from their fields (:func:`_action_fields`).

    ``made`` holds the actions already built from the same fields, which are
    shared (they are immutable): a record repeats most of its actions, and a
    hostile one repeats all of them.
    """
    actions = []
    for index, fields in enumerate(items):
        known = made.get(fields)
        if known is not None:
            actions.append(known)
            continue
        seat, move_written, tile_written, end_sum, points = fields
        try:
            move = parse_move(move_written, strict=True)
        except ValueError as exc:
            raise InvalidRecord(f"{where}.actions[{index}].move: {exc}") from None
        if seat < 0:
            raise InvalidRecord(f"{where}.actions[{index}].seat must be at least 0, got {seat}")
        tile = None
        if tile_written is not None:
            try:
                tile = parse_tile(tile_written, strict=True)
            except ValueError as exc:
                raise InvalidRecord(f"{where}.actions[{index}].tile: {exc}") from None
        try:
            action = ActionRecord(seat, move, tile, end_sum, points)
        except InvalidRecord as exc:
            raise InvalidRecord(f"{where}.actions[{index}]: {exc}") from None
        made[fields] = action
        actions.append(action)
    return actions


_B = TypeVar("_B")


def _built(where: str, kind: type[_B], **fields: Any) -> _B:
    """``kind(**fields)``, with the place in the document named in an error."""
    try:
        return kind(**fields)
    except InvalidRecord as exc:
        raise InvalidRecord(f"{where}: {exc}") from None


def _located(value: int, where: str, minimum: int = 0) -> int:
    """``value``, if it is at least ``minimum``; else an error naming ``where``."""
    if value < minimum:
        raise InvalidRecord(f"{where} must be at least {minimum}, got {value}")
    return value


def _enum(kind: type[enum.Enum], text: str, where: str) -> Any:
    try:
        return kind(text)
    except ValueError:
        names = " or ".join(repr(member.value) for member in kind)
        raise InvalidRecord(f"{where} must be {names}, got {text!r}") from None


def _round_from(
    doc: _RoundDoc, where: str, actions: list[_Fields], made: dict[_Fields, ActionRecord]
) -> RoundRecord:
    return _built(
        where,
        RoundRecord,
        round=_located(doc.round, f"{where}.round", 1),
        hands=[_tiles(hand, f"{where}.hands[{seat}]") for seat, hand in enumerate(doc.hands)],
        stock=_tiles(doc.stock, f"{where}.stock"),
        opener=_located(doc.opener, f"{where}.opener"),
        opener_by=_enum(OpenerBy, doc.opener_by, f"{where}.opener_by"),
        actions=_actions_from(actions, where, made),
        end=None if doc.end is None else _enum(RoundEnd, doc.end, f"{where}.end"),
        finisher=None if doc.finisher is None else _located(doc.finisher, f"{where}.finisher"),
        deductions=doc.deductions,
        scores=doc.scores,
    )


def _seed_from(text: str) -> int:
    """The seed written ``text``: decimal digits, no leading zero, below 2**64."""
    return read_u64(text, "$.seed", InvalidRecord, nullable=True)


def _record_from(doc: _RecordDoc) -> MatchRecord:
    actions = _action_fields(doc.rounds)
    if doc.players not in PLAYER_COUNTS:
        raise InvalidRecord(f"$.players must be 2, 3 or 4, got {doc.players}")
    if len(doc.names) != doc.players:
        raise InvalidRecord(
            f"$.names must hold {doc.players} strings, one per seat, got {len(doc.names)}"
        )
    seed = None if doc.seed is None else _seed_from(doc.seed)
    if not doc.rounds:
        raise InvalidRecord("$.rounds must hold at least one round, the first deal")
    made: dict[_Fields, ActionRecord] = {}  # the actions built, by their fields
    rounds = [
        _round_from(r, f"$.rounds[{index}]", actions[index], made)
        for index, r in enumerate(doc.rounds)
    ]
    winner = doc.result.winner
    return _built(
        "$",
        MatchRecord,
        players=doc.players,
        names=doc.names,
        seed=seed,
        rounds=rounds,
        scores=doc.result.scores,
        winner=None if winner is None else _located(winner, "$.result.winner"),
    )


# -- the quick reader ------------------------------------------------------------------------
# A record the library wrote (and every record in the format) is read from
# the parsed document by one pass of plain tests, which builds the record as
# it goes: no converter, no intermediate document objects, no constructor
# checking again what the pass checked. It takes only a document that the
# strict reader below reads, and builds the very record that reader builds;
# on anything else it gives way to the strict reader, which names the
# problem. The document is read_json's, so every integer in it is within
# 2**53 - 1 in size and no key repeats.

#: The keys of a record and of its result, every one required.
_RECORD_KEYS = frozenset(attrs.fields_dict(_RecordDoc))
_RESULT_KEYS = frozenset(attrs.fields_dict(_ResultDoc))
#: Each ``opener_by`` and ``end`` by its text.
_OPENERS_BY = {member.value: member for member in OpenerBy}
_ENDS = {member.value: member for member in RoundEnd}
#: The lists' limits (RECORD_LIMITS): seats, sides and tiles.
_MOST_SEATS = max(PLAYER_COUNTS)
_MOST_SIDES = 3
_MOST_TILES = len(TILE_OF_TEXT)


class _NotQuick(Exception):
    """The quick reader leaves this record to the strict one."""


def _quick_ints(values: object, most: int) -> tuple[int, ...]:
    """A list of at most ``most`` integers (read_json bounds every integer's size)."""
    if type(values) is not list or len(values) > most or not all(type(v) is int for v in values):
        raise _NotQuick
    return tuple(values)


def _quick_tiles(texts: object) -> tuple[Tile, ...]:
    """A list of at most 28 tile texts, each as the library's tile (a KeyError for any other)."""
    if type(texts) is not list or len(texts) > _MOST_TILES:
        raise _NotQuick
    tiles = TILE_OF_TEXT
    return tuple([tiles[text] for text in texts])


def _quick_actions(items: object, made: dict[_Fields, ActionRecord]) -> tuple[ActionRecord, ...]:
    """A round's actions, shared through ``made`` as :func:`_actions_from` shares them."""
    if type(items) is not list or len(items) > MOST_ACTIONS:
        raise _NotQuick
    actions = []
    for item in items:
        fields = plain_action(item)
        if fields is None:
            raise _NotQuick
        action = made.get(fields)
        if action is None:
            seat, written, tile_written = fields[0], fields[1], fields[2]
            if seat < 0:
                raise _NotQuick
            try:
                move = parse_move(written, strict=True)
                tile = None if tile_written is None else TILE_OF_TEXT[tile_written]
                action = ActionRecord(seat, move, tile, fields[3], fields[4])
            except (ValueError, KeyError):  # InvalidRecord is a ValueError
                raise _NotQuick from None
            made[fields] = action
        actions.append(action)
    return tuple(actions)


def _quick_round(doc: object, least: int, made: dict[_Fields, ActionRecord]) -> RoundRecord:
    """One round, as :func:`_round_from` reads it.

    ``least`` is the fewest actions it may hold (:func:`_check_round_floor`).
    """
    if type(doc) is not dict or doc.keys() != _ROUND_KEYS:
        raise _NotQuick
    get = doc.__getitem__
    number, opener, finisher, end = get("round"), get("opener"), get("finisher"), get("end")
    hand_docs, deductions = get("hands"), get("deductions")
    if (
        type(number) is not int
        or number < 1
        or type(opener) is not int
        or opener < 0
        or (finisher is not None and (type(finisher) is not int or finisher < 0))
        or type(hand_docs) is not list
        or len(hand_docs) > _MOST_SEATS
        or (end is not None and type(end) is not str)
    ):
        raise _NotQuick
    hands = tuple([_quick_tiles(hand) for hand in hand_docs])
    stock = _quick_tiles(get("stock"))
    opener_by = get("opener_by")
    if type(opener_by) is not str:
        raise _NotQuick
    actions = _quick_actions(get("actions"), made)
    if len(actions) < least:
        raise _NotQuick
    return _unchecked_round(
        number=number,
        hands=hands,
        stock=stock,
        opener=opener,
        opener_by=_OPENERS_BY[opener_by],  # a KeyError for any other text
        actions=actions,
        end=None if end is None else _ENDS[end],
        finisher=finisher,
        deductions=None if deductions is None else _quick_ints(deductions, _MOST_SEATS),
        scores=_quick_ints(get("scores"), _MOST_SIDES),
    )


def _unchecked_round(  # noqa: PLR0913 - one argument a field
    *,
    number: int,
    hands: tuple[tuple[Tile, ...], ...],
    stock: tuple[Tile, ...],
    opener: int,
    opener_by: OpenerBy,
    actions: tuple[ActionRecord, ...],
    end: RoundEnd | None,
    finisher: int | None,
    deductions: tuple[int, ...] | None,
    scores: tuple[int, ...],
) -> RoundRecord:
    """A :class:`RoundRecord` of fields the quick reader checked as its constructor does.

    Its fields are set as the generated ``__init__`` sets them (the class is
    frozen), without the converters, which would copy the tuples, or the
    checks, which :func:`_quick_round` made.
    """
    record = object.__new__(RoundRecord)
    put = object.__setattr__
    put(record, "round", number)
    put(record, "hands", hands)
    put(record, "stock", stock)
    put(record, "opener", opener)
    put(record, "opener_by", opener_by)
    put(record, "actions", actions)
    put(record, "end", end)
    put(record, "finisher", finisher)
    put(record, "deductions", deductions)
    put(record, "scores", scores)
    return record


def _quick_record(data: object) -> MatchRecord | None:
    """The record of ``data`` (read_json's document) as the strict reader reads it; or None.

    None: the strict reader reads the document (anything not as the writers
    give it, or a problem, which it names).
    """
    try:
        return _quick_read(data)
    except (_NotQuick, KeyError, TypeError):
        return None


def _quick_read(data: object) -> MatchRecord:
    """The record of the parsed ``data``; else :class:`_NotQuick`.

    A ``KeyError`` or ``TypeError`` (a text that is no tile, an unhashable
    value) means the same.
    """
    if type(data) is not dict or data.keys() != _RECORD_KEYS:
        raise _NotQuick
    players, names, seed, rounds, result = (
        data["players"],
        data["names"],
        data["seed"],
        data["rounds"],
        data["result"],
    )
    version = data["format_version"]
    if (
        data["format"] != RECORD_FORMAT
        or type(version) is not int
        or version != FORMAT_VERSION
        or data["rules_version"] != RULES_VERSION
        or type(players) is not int
        or players not in PLAYER_COUNTS
        or type(names) is not list
        or len(names) != players
        or not all(type(name) is str for name in names)
        or not (seed is None or type(seed) is str)
        or type(rounds) is not list
        or not 0 < len(rounds) <= MOST_ROUNDS
        or type(result) is not dict
        or result.keys() != _RESULT_KEYS
    ):
        raise _NotQuick
    winner = result["winner"]
    if winner is not None and (type(winner) is not int or winner < 0):
        raise _NotQuick
    scores = _quick_ints(result["scores"], _MOST_SIDES)
    try:
        number = None if seed is None else _seed_from(seed)
    except InvalidRecord:
        raise _NotQuick from None
    least = fewest_actions(players)
    last = len(rounds) - 1
    made: dict[_Fields, ActionRecord] = {}
    read = [
        _quick_round(round_doc, least if index < last else 0, made)
        for index, round_doc in enumerate(rounds)
    ]
    return MatchRecord(
        players=players,
        names=tuple(names),
        seed=number,
        rounds=tuple(read),
        scores=scores,
        winner=winner,
    )


# -- building a record from a match played with the library ---------------------------------


class Recorder:
    """Builds the :class:`MatchRecord` of a match from its states, fed in order.

    Feed it with :meth:`add` the first state of the match (what
    :func:`~american_sniff.new_match` returns) and then the states after it,
    in order, up to the state the record should end at; then call
    :meth:`record`. Feeding every state is simplest, but any states in order
    will do as long as every round has at least one: each state holds its
    round's actions so far, its stock as dealt and the previous round's result.
    The record can be taken at any time, of a finished or an unfinished match.

    >>> from american_sniff import new_match, apply, legal_moves
    >>> recorder = Recorder()
    >>> state = new_match(3, seed=5)
    >>> recorder.add(state)
    >>> while not state.is_over:
    ...     state = apply(state, legal_moves(state)[0])
    ...     recorder.add(state)
    >>> record = recorder.record()
    >>> record.winner == state.winner, len(record.rounds) == state.round
    (True, True)

    This is the one mutable class of the module: it collects states.

    :param names: A name for each seat; by default ``"seat 0"``, ``"seat 1"``, ...
    """

    def __init__(self, names: Sequence[str] | None = None) -> None:
        self._names = None if names is None else tuple(names)
        #: The first state fed of each round, by round number.
        self._first: dict[int, MatchState] = {}
        #: The last state fed.
        self._last: MatchState | None = None

    def add(self, state: MatchState) -> None:
        """Take the next state of the match.

        :raises TypeError: if ``state`` is not a :class:`~american_sniff.MatchState`.
        :raises ValueError: if ``state`` does not follow the states fed before:
            another match, an earlier moment, a round skipped, or a state
            after the match was won. The first state must be of round 1.
        """
        if type(state) is not MatchState:
            raise TypeError(f"Recorder.add() needs a MatchState, got {state!r}")
        last = self._last
        if last is None:
            if state.round != 1:
                raise ValueError(
                    f"the first state fed must be of round 1 (the record starts at the "
                    f"first deal), got a state of round {state.round}"
                )
        else:
            self._check_follows(last, state)
        self._first.setdefault(state.round, state)
        self._last = state

    @staticmethod
    def _check_follows(last: MatchState, state: MatchState) -> None:
        if state.players != last.players or state.seed != last.seed:
            raise ValueError("the state is of another match (other players or seed)")
        if last.winner is not None and state != last:
            raise ValueError("the match was already won: no state follows the winning one")
        if state.round == last.round:
            before, now = last.history, state.history
        elif state.round == last.round + 1:
            ended = state.last_round
            assert ended is not None  # a state of round 2 or later has one
            before, now = last.history, ended.history
        elif state.round < last.round:
            raise ValueError(
                f"a state of round {state.round} comes after one of round {last.round}"
            )
        else:
            raise ValueError(
                f"no state of round {last.round + 1} was fed: give at least one state "
                "of every round (its stock order is known only from its own states)"
            )
        if now[: len(before)] != before:
            raise ValueError(
                f"the state does not follow the last one: round {last.round}'s actions differ"
            )

    def record(self) -> MatchRecord:
        """The record of the match up to the last state fed.

        The match's seed is kept when it deals every recorded round (a match
        started with ``new_match(players, seed=...)`` and no ``deals``), else
        the record's seed is None.

        :raises ValueError: if no state was fed, or ``names`` does not hold one
            name per seat.
        """
        last = self._last
        if last is None:
            raise ValueError("no state was fed to the recorder")
        players = last.players
        names = self._names
        if names is None:
            names = tuple(f"seat {seat}" for seat in range(players))
        if len(names) != players:
            raise ValueError(f"names must hold {players} names, one per seat, got {names!r}")
        rounds = []
        for number in range(1, last.round + 1):
            first = self._first[number]
            if number < last.round:
                following = self._first[number + 1]
                result = following.last_round
                assert result is not None
                rounds.append(_round_record(first, result.history, result.end, result))
            else:
                rounds.append(_round_record(first, last.history, None, None, last.scores))
        record = MatchRecord(
            players=players,
            names=names,
            seed=None,
            rounds=rounds,
            scores=last.scores,
            winner=last.winner,
        )
        if seed_discrepancy(record, last.seed) is None:
            record = attrs.evolve(record, seed=last.seed)
        return record


def _round_record(
    state: MatchState,
    actions: tuple[Action, ...],
    end: RoundEnd | None,
    result: RoundResult | None,
    scores: tuple[int, ...] = (),
) -> RoundRecord:
    """The record of ``state``'s round, whose actions are ``actions``.

    ``result`` is the round's :class:`~american_sniff.RoundResult` if it
    ended, else None and ``scores`` are the scores where the record stops.
    """
    dealt = hands_as_dealt(state.hands, state.history)
    previous = state.last_round
    return RoundRecord(
        round=state.round,
        hands=dealt,
        stock=state.info.deck,
        opener=state.opener,
        opener_by=OpenerBy.FINISHER
        if previous is not None and previous.end is RoundEnd.DOMINO
        else OpenerBy.LOT,
        actions=[ActionRecord.of(a) for a in actions],
        end=end,
        finisher=None if result is None else result.finisher,
        deductions=None if result is None else result.deductions,
        scores=result.scores if result is not None else scores,
    )


def record_match(
    states: Iterable[MatchState], *, names: Sequence[str] | None = None
) -> MatchRecord:
    """The record of a match, from its states in order (see :class:`Recorder`).

    With the moves of a match at hand, :func:`itertools.accumulate` makes the
    states:

    >>> from itertools import accumulate
    >>> from american_sniff import new_match, apply, Place, Tile
    >>> start = new_match(2, seed=2024)
    >>> record = record_match(accumulate([Place(Tile(0, 3))], apply, initial=start))
    >>> [str(action) for action in record.rounds[0].actions]
    ['seat 1: [0|3] opens, sum 3, scores 0']

    :raises ValueError: as :meth:`Recorder.add` and :meth:`Recorder.record`.
    """
    recorder = Recorder(names)
    for state in states:
        recorder.add(state)
    return recorder.record()


# -- replaying ----------------------------------------------------------------------------


def _deals(record: MatchRecord) -> list[Deal]:
    deals = []
    for number, round_record in enumerate(record.rounds, start=1):
        try:
            deal = round_record.deal()
        except InvalidDeal as exc:
            raise InvalidRecord(f"round {number}: the deal is not valid: {exc}") from None
        if deal.players != record.players:
            raise InvalidRecord(
                f"round {number}: the deal has {deal.players} hands, not {record.players}"
            )
        deals.append(deal)
    return deals


def replay(record: MatchRecord) -> Iterator[MatchState]:
    """Play ``record`` again and yield every state, the first state of the match first.

    After each action the state it leads to is yielded; the action that ends
    a round leads to the first state of the next round. So the states are
    those a player of the match saw. A record with a seed is replayed from
    ``new_match(players, seed=seed)``: its states equal those of the match it
    records in every field. A record without one is replayed from its deals,
    ``new_match(players, seed=0, deals=...)``: the states have seed 0 and a
    generator state of their own, and the rest is the match's. If the record's
    last round ended, the last state is the first of a round the record does
    not hold, dealt from the seed.

    Replaying checks that the record can be played: each round starts with
    the recorded hands, stock and opener (each deal is valid, the seed deals
    it, the finisher of the round before opens), and each action is made by
    the seat to move and is legal. It does not compare what the record claims
    (sums, points, tiles drawn, settlements, scores, the winner) with the
    rules: :func:`~american_sniff.check_record` does that and lists
    every difference.

    >>> from american_sniff import new_match
    >>> states = list(replay(record_match([new_match(4, seed=7)])))
    >>> states == [new_match(4, seed=7)]
    True

    :raises InvalidRecord: while iterating, at the first round start or
        action that cannot be played, naming its round and action index (the
        index counts from 0 in the round's ``actions``).
    """
    if record.seed is None:
        state = new_match(record.players, seed=0, deals=_deals(record))
        source = "the rules"
    else:
        state = new_match(record.players, seed=record.seed)
        source = f"seed {record.seed}"
    yield state
    rounds = record.rounds
    for number, round_record in enumerate(rounds, start=1):
        difference = _start_difference(state, round_record, source)
        if difference is not None:
            raise InvalidRecord(f"round {number}: {difference}")
        where = f"round {number}, action {{index}} ({{move}})"
        try:
            for after in replay_actions(state, round_record.actions, round=number, where=where):
                state = after
                yield state
        except ReplayError as error:
            problem = error.problem
            cause = problem.error if isinstance(problem, IllegalAction) else None
            raise InvalidRecord(str(error)) from cause
        if number < len(rounds):
            if state.winner is not None:
                raise InvalidRecord(f"round {number + 1} comes after side {state.winner} won")
            if state.round == number:
                raise InvalidRecord(
                    f"round {number}'s actions stop before the round ends, "
                    f"but round {number + 1} follows"
                )


def seed_discrepancy(record: MatchRecord, seed: int) -> tuple[int, str] | None:
    """Whether ``seed`` deals ``record``: None if it does; else the first round it does not.

    The match ``new_match(record.players, seed=seed)`` is played with the
    record's actions; each recorded round must start with the hands, the
    stock and the opener that this match deals. Returns None when they all
    do, or the number of the first round that differs with a sentence saying
    how. Rounds after an action that cannot be played are not compared.

    :raises ValueError: if ``seed`` is not an integer from 0 to 2**64 - 1.
    """
    state = new_match(record.players, seed=seed)
    for number, round_record in enumerate(record.rounds, start=1):
        if state.round != number:
            return None  # the actions stop before the round ends: nothing more to compare
        difference = _start_difference(state, round_record, f"seed {seed}")
        if difference is not None:
            return number, difference
        try:
            for after in replay_actions(state, round_record.actions, round=number):
                state = after
        except ReplayError:
            return None
    return None


def _start_difference(state: MatchState, round_record: RoundRecord, source: str) -> str | None:
    """How the round starting at ``state`` differs from ``round_record``'s start, if it does."""
    return deal_difference(
        state, round_record.hands, round_record.stock, round_record.opener, source
    )


def _text(tiles: Sequence[Tile]) -> str:
    return " ".join(map(str, tiles)) if tiles else "(none)"
