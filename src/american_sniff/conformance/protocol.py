"""The engine protocol: JSON lines that let any program act as an American Sniff engine.

A controller (the conformance kit, a referee, a tournament runner) starts the
engine as a subprocess and writes one request per line to its standard input;
the engine writes exactly one response per line to its standard output, in
order. Every line is one JSON object in the conventions of
``american_sniff.serial`` (tiles ``"[1|4]"``, points ``"[1|1] branch_a"``,
moves ``"[1|2] on [1|1] line_b"``, 64-bit integers as decimal strings).

A request names its command in ``cmd``: ``hello``, ``new``, ``legal``,
``move``, ``state``, ``table``, ``settle`` or ``quit``. A response has
``"ok": true`` and the command's fields, or ``"ok": false`` with an
``error`` kind (see :data:`ERROR_KINDS`), a ``message`` for people, and for an
illegal move the refusal ``code`` (a key of
:data:`~american_sniff.REFUSAL_CODES`). ``docs/protocol.md`` describes every
message field by field, with a sample session.

:class:`Session` answers requests with the library itself, and :func:`serve`
runs it over a pair of streams: that is ``american-sniff engine``. The
functions :func:`table_facts`, :func:`round_end_facts`, :func:`state_facts` and
:func:`~american_sniff.parse_move` (with ``strict=True``) give the answers' parts
on their own. The ``settle``
command answers with :func:`american_sniff.rules.settle`, the library's one
settlement.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any, BinaryIO

import attrs

from .. import __version__
from .._json import DealDoc, deprecated, read_u64
from ..engine import apply, legal_moves, new_match
from ..errors import IllegalMove, InvalidDeal, bounded_message
from ..layout import Layout
from ..moves import Move, Place, parse_move
from ..replayer import IllegalPlacement, replay_table
from ..rules import PLAYER_COUNTS, RULES_VERSION, TARGET, placement_points, settle, side_count
from ..serial import action_to_dict, move_text, read_json, structure, tile_text
from ..serial.parsing import PROTOCOL_LIMITS, check_limits
from ..state import Deal, MatchState, RoundResult
from ..tiles import Tile, parse_tile

__all__ = [
    "ERROR_KINDS",
    "MAX_DEPTH",
    "MAX_LINE_BYTES",
    "MAX_ROUND",
    "MIN_SCORE",
    "PROTOCOL",
    "PROTOCOL_VERSION",
    "REFUSAL_ORDER",
    "ProtocolError",
    "Session",
    "nesting",
    "read_move",
    "round_end_facts",
    "serve",
    "state_facts",
    "table_facts",
]

#: The protocol's name, sent in the ``hello`` response.
PROTOCOL = "american-sniff/engine"
#: The protocol's version; it changes only when a message changes.
PROTOCOL_VERSION = 1
#: The longest request line an engine must read (1 MiB); longer lines are refused.
MAX_LINE_BYTES = 1 << 20
#: The deepest nesting of arrays and objects a request line may have: the
#: request object alone is depth 1, ``{"moves": []}`` depth 2. No request of
#: the protocol nests deeper than 5; a deeper line is refused as ``bad_json``,
#: so that no engine has to parse (or recurse into) arbitrarily deep JSON.
MAX_DEPTH = 64

#: Every ``error`` kind a response can carry, with its meaning.
ERROR_KINDS: Mapping[str, str] = MappingProxyType(
    {
        "bad_json": (
            "the line is not one JSON object (not JSON, not UTF-8, empty, too long, not an "
            "object, a float, an integer beyond 2**53 - 1, a repeated key, a raw control "
            "character in a string, a blank JSON lacks, a byte-order mark)"
        ),
        "bad_request": "unknown cmd, or a key that is missing, unknown or of the wrong type",
        "unsupported": "a protocol or rules version, or a feature, the engine does not offer",
        "invalid_deal": "a match cannot start as asked (players, deals, seed, scores, round)",
        "no_match": "legal, move or state before any new",
        "no_deal": "the match outlasted its deals and no seed was given to deal more",
        "illegal_move": "the move breaks a rule; code says which (a key of REFUSAL_CODES)",
        "internal": "the engine failed to answer; the message says how",
    }
)

#: The order of the refusal codes (docs/protocol.md, "Refusal codes"): when a
#: move breaks several rules, the first of them in this order is reported.
REFUSAL_ORDER = (
    "match_over",
    "not_a_move",
    "not_a_tile",
    "not_a_point",
    "not_in_hand",
    "must_place_drawn",
    "already_on_table",
    "point_required",
    "opening_has_no_point",
    "point_not_open",
    "values_differ",
    "must_place",
    "must_draw",
    "stock_empty",
)

#: The highest first round a ``new`` request may ask for. Bounded so that
#: every number of every later answer stays exact in JavaScript.
MAX_ROUND = 1_000_000
#: The lowest score a ``new`` request may start a side at. A round deducts at
#: most 170 from a side, so a million rounds later a score is still exact in
#: JavaScript.
MIN_SCORE = -1_000_000

#: What the library's engine offers beyond the required commands.
_FEATURES = ("seed",)


def nesting(value: object) -> int:
    """How deeply the arrays and objects of a parsed JSON value nest (a scalar: 0).

    >>> nesting({"cmd": "table", "moves": []}), nesting([[1], [[2]]]), nesting("x")
    (2, 3, 0)
    """
    # One layer at a time, its members filtered by their types in C loops:
    # no Python step per scalar (a parsed document holds exact dicts and lists).
    deepest = 0
    layer: list[Any] = [value] if type(value) in _CONTAINERS else []
    while layer:
        deepest += 1
        members = list(
            itertools.chain.from_iterable(
                item.values() if type(item) is dict else item for item in layer
            )
        )
        layer = list(itertools.compress(members, map(_CONTAINERS.__contains__, map(type, members))))
    return deepest


_CONTAINERS = frozenset((dict, list))


class ProtocolError(ValueError):
    """A request the engine answers with an error response instead of a result.

    :ivar kind: The ``error`` kind of the response, a key of :data:`ERROR_KINDS`.
    """

    kind: str

    def __init__(self, message: str, kind: str = "bad_request") -> None:
        super().__init__(message)
        self.kind = kind


# -- the parts of the answers -----------------------------------------------------


def table_facts(layout: Layout) -> dict[str, Any]:
    """What the protocol reports of a table: its open points, contributions and end sum.

    ``open_points`` lists the legal connection points and ``contributions``
    every counted scoring end as ``{"point": ..., "value": ...}``; both are
    compared as sets (the library's order is not part of the protocol).

    >>> from american_sniff import Layout, Tile
    >>> table_facts(Layout.empty().place(Tile(2, 2)))
    {'open_points': ['[2|2] line_a', '[2|2] line_b'], 'contributions': [{'point': '[2|2] line_a', 'value': 4}], 'end_sum': 4}
    """  # noqa: E501 (a doctest's expected output is one line)
    return {
        "open_points": [str(point) for point in layout.points()],
        "contributions": [
            {"point": str(part.point), "value": part.value} for part in layout.contributions()
        ],
        "end_sum": layout.end_sum,
    }


def round_end_facts(result: RoundResult) -> dict[str, Any]:
    """What the protocol reports when a round ends: how, who went out, the settlement.

    The keys are ``round``, ``end`` (``"domino"`` or ``"blocked"``),
    ``finisher`` (a seat, or null after a block), ``hands`` (each seat's
    revealed hand, seat 0 first), ``deductions`` (per seat) and ``scores``
    (per side, after settlement).
    """
    return {
        "round": result.round,
        "end": result.end.value,
        "finisher": result.finisher,
        "hands": [[tile_text(tile) for tile in hand] for hand in result.hands],
        "deductions": list(result.deductions),
        "scores": list(result.scores),
    }


def _settle_answer(
    players: int, hands: Sequence[Sequence[Tile]], scores: Sequence[int]
) -> dict[str, Any]:
    """The settlement of revealed ``hands``: each hand rounded on its own, deducted from its side.

    This is :func:`american_sniff.rules.settle` in the protocol's terms (the
    one settlement of the library), with the sides' totals added. Nobody
    gains, the seat that went out included: settlement only deducts (that
    seat's empty hand costs nothing). The result has ``deductions`` (per seat),
    ``side_totals`` (per side: what its seats lose together) and ``scores``
    (``scores`` less the side totals; there is no floor).

    >>> from american_sniff import Tile
    >>> _settle_answer(4, [[Tile(0, 3)], [Tile(1, 1)], [Tile(0, 3)], []], [10, 0])
    {'deductions': [5, 0, 5, 0], 'side_totals': [10, 0], 'scores': [0, 0]}
    """
    deductions, after = settle(players, scores, [sum(tile.pips for tile in hand) for hand in hands])
    return {
        "deductions": list(deductions),
        "side_totals": [before - now for before, now in zip(scores, after, strict=True)],
        "scores": list(after),
    }


def state_facts(state: MatchState) -> dict[str, Any]:
    """What the protocol's ``state`` reports: the public facts of a match and its scores.

    Hands and the stock are hidden; their sizes are given. ``turn`` is null
    once the match is over.
    """
    over = state.winner is not None
    return {
        "players": state.players,
        "round": state.round,
        "opener": state.opener,
        "turn": None if over else state.turn,
        "target": state.target,
        "scores": list(state.scores),
        "winner": state.winner,
        "hand_sizes": [len(hand) for hand in state.hands],
        "stock_size": state.stock_size,
        "table": table_facts(state.layout),
    }


# -- reading moves ------------------------------------------------------------------


def _read_move(text: str) -> Move:
    return parse_move(text, strict=True)


#: Deprecated: :func:`american_sniff.parse_move` with ``strict=True``, the one
#: reader of the move notation (this was an alias of it).
read_move = deprecated(
    "american_sniff.conformance.protocol.read_move",
    "american_sniff.parse_move(text, strict=True)",
    _read_move,
)


# -- the requests, as documents the converter reads ---------------------------------


@attrs.frozen
class _Hello:
    protocol_version: int
    rules_version: str | None = None


@attrs.frozen
class _New:
    players: int
    deals: list[DealDoc] = attrs.Factory(list)
    seed: str | None = None
    scores: list[int] | None = None
    round: int | None = None


@attrs.frozen
class _Empty:
    pass


@attrs.frozen
class _Move:
    move: str


@attrs.frozen
class _Table:
    moves: list[str]


@attrs.frozen
class _Settle:
    players: int
    hands: list[list[str]]
    finisher: int | None = None
    scores: list[int] | None = None


_REQUESTS: Mapping[str, type] = MappingProxyType(
    {
        "hello": _Hello,
        "new": _New,
        "legal": _Empty,
        "move": _Move,
        "state": _Empty,
        "table": _Table,
        "settle": _Settle,
        "quit": _Empty,
    }
)


def _tiles(texts: Sequence[str], where: str, kind: str) -> tuple[Tile, ...]:
    tiles = []
    for position, text in enumerate(texts):
        try:
            tiles.append(parse_tile(text, strict=True))
        except ValueError as exc:
            raise ProtocolError(f"{where}[{position}]: {exc}", kind) from None
    return tuple(tiles)


# -- the session ---------------------------------------------------------------------


class Session:
    """The library answering protocol requests: one engine session, holding one match.

    A session is the one mutable object of the protocol: ``new`` replaces its
    match, ``move`` advances it. :meth:`handle` answers a parsed request and
    :meth:`handle_line` a line of text; neither ever raises.

    >>> session = Session()
    >>> session.handle_line('{"cmd": "new", "players": 2, "seed": "1"}')[:40]
    '{"ok":true,"players":2,"round":1,"opener'
    >>> session.handle({"cmd": "move", "move": "draw"})["code"]
    'must_place'
    """

    def __init__(self) -> None:
        self._state: MatchState | None = None
        #: The last round that has a deal, when no seed was given; else None.
        self._last_dealt: int | None = None
        self._done = False

    @property
    def done(self) -> bool:
        """Whether ``quit`` has been answered: the engine should stop reading."""
        return self._done

    @property
    def state(self) -> MatchState | None:
        """The state of the match being played, or None before the first ``new``."""
        return self._state

    def handle_line(self, line: bytes | str) -> str:
        """The response line (without its newline) to one request line."""
        try:
            if not line.strip():
                raise ValueError("the line is empty; a request is one JSON object")
            request = read_json(line, max_bytes=MAX_LINE_BYTES, error=ValueError, what="the line")
            if nesting(request) > MAX_DEPTH:
                raise ValueError(f"the line nests deeper than {MAX_DEPTH} arrays and objects")
        except ValueError as exc:
            response = _failure("bad_json", str(exc))
        else:
            response = self.handle(request)
        return json.dumps(response, separators=(",", ":"))

    def handle(self, request: object) -> dict[str, Any]:
        """The response to one request (a parsed JSON value)."""
        try:
            return {"ok": True, **self._dispatch(request)}
        except _Refused as exc:
            return {**_failure("illegal_move", str(exc)), "code": exc.code, "index": exc.index}
        except IllegalMove as exc:
            return {**_failure("illegal_move", str(exc)), "code": exc.code}
        except ProtocolError as exc:
            return _failure(exc.kind, str(exc))
        except Exception as exc:  # an engine answers every line; it never crashes
            return _failure("internal", f"{type(exc).__name__}: {exc}")

    def _dispatch(self, request: object) -> dict[str, Any]:
        if not isinstance(request, dict):
            raise ProtocolError(
                f"a request is a JSON object, got {type(request).__name__}", "bad_json"
            )
        body = dict(request)
        cmd = body.pop("cmd", None)
        if not isinstance(cmd, str) or cmd not in _REQUESTS:
            known = ", ".join(_REQUESTS)
            if "cmd" not in request:
                raise ProtocolError(f"the request has no cmd (the commands are {known})")
            if not isinstance(cmd, str):
                got = type(cmd).__name__ if cmd is not None else "null"
                raise ProtocolError(f"cmd must be a string, got {got} (the commands are {known})")
            named = json.dumps(cmd, ensure_ascii=False)
            raise ProtocolError(f"unknown cmd {named} (the commands are {known})")
        # Every list within what play needs, before an element is read.
        kind = "invalid_deal" if cmd == "new" else "bad_request"
        check_limits(body, PROTOCOL_LIMITS.get(cmd, {}), lambda text: ProtocolError(text, kind))
        if cmd == "new" and isinstance(body.get("deals"), list):
            # A deal of the protocol may leave out its opener (the state's may not).
            body["deals"] = [_with_opener(deal) for deal in body["deals"]]
        doc: Any = structure(body, _REQUESTS[cmd], ProtocolError, f"the {cmd} request")
        if cmd == "hello":
            return self._hello(doc)
        if cmd == "new":
            return self._new(doc)
        if cmd == "table":
            return self._table(doc)
        if cmd == "settle":
            return self._settle(doc)
        if cmd == "quit":
            self._done = True
            return {}
        state = self._current()
        if cmd == "legal":
            return {"moves": [move_text(move) for move in legal_moves(state)]}
        if cmd == "move":
            return self._move(state, doc)
        return state_facts(state)

    # -- the commands --------------------------------------------------------------

    def _hello(self, doc: _Hello) -> dict[str, Any]:
        if doc.protocol_version != PROTOCOL_VERSION:
            raise ProtocolError(
                f"protocol version {doc.protocol_version} is not supported "
                f"(this engine speaks version {PROTOCOL_VERSION})",
                "unsupported",
            )
        if doc.rules_version is not None and doc.rules_version != RULES_VERSION:
            raise ProtocolError(
                f"rules version {doc.rules_version!r} is not supported "
                f"(this engine plays {RULES_VERSION!r})",
                "unsupported",
            )
        return {
            "protocol": PROTOCOL,
            "protocol_version": PROTOCOL_VERSION,
            "rules_version": RULES_VERSION,
            "engine": f"american-sniff {__version__}",
            "features": list(_FEATURES),
        }

    def _new(self, doc: _New) -> dict[str, Any]:
        players = doc.players
        if players not in PLAYER_COUNTS:
            raise ProtocolError(f"players must be 2, 3 or 4, got {players}", "invalid_deal")
        seed = None if doc.seed is None else _seed(doc.seed)
        if seed is None and not doc.deals:
            raise ProtocolError("a new match needs deals, a seed, or both", "invalid_deal")
        deals = [
            _made_deal(deal, f"$.deals[{number}]", players, seeded=seed is not None)
            for number, deal in enumerate(doc.deals)
        ]
        first = 1 if doc.round is None else doc.round
        if not 1 <= first <= MAX_ROUND:
            raise ProtocolError(f"round must be from 1 to {MAX_ROUND}, got {first}", "invalid_deal")
        state = new_match(players, seed=0 if seed is None else seed, deals=deals)
        scores = state.scores if doc.scores is None else _start_scores(doc.scores, players)
        # The match starts at the given round number and scores; the state's
        # constructor takes them as they are (no history to check them against).
        state = state.evolve(scores=scores, info=state.info.evolve(round=first))
        self._state = state
        self._last_dealt = None if seed is not None else first + len(deals) - 1
        return state_facts(state)

    def _current(self) -> MatchState:
        state = self._state
        if state is None:
            raise ProtocolError("no match: start one with new", "no_match")
        if self._outlasted(state):
            raise ProtocolError(
                f"the match outlasted its deals: round {state.round} has no deal "
                "and no seed was given",
                "no_deal",
            )
        return state

    def _outlasted(self, state: MatchState) -> bool:
        return self._last_dealt is not None and state.round > self._last_dealt

    def _move(self, state: MatchState, doc: _Move) -> dict[str, Any]:
        if state.winner is not None:
            raise IllegalMove(f"the match is over: side {state.winner} has won", "match_over")
        after = apply(state, parse_move(doc.move, strict=True))
        self._state = after
        action = after.last_action
        assert action is not None  # every state made by apply has one
        result = action.round_result
        over = after.winner is not None or self._outlasted(after)
        return {
            **action_to_dict(action),
            "scores": list(after.scores),
            "round_end": None if result is None else round_end_facts(result),
            "winner": after.winner,
            "turn": None if over else after.turn,
            "round": after.round,
        }

    def _table(self, doc: _Table) -> dict[str, Any]:
        layout = replay_table(_placements(doc.moves))
        if isinstance(layout, IllegalPlacement):
            index = layout.index
            raise _Refused(f"$.moves[{index}]: {layout.error}", layout.code, index)
        return {**table_facts(layout), "points": placement_points(layout.end_sum)}

    def _settle(self, doc: _Settle) -> dict[str, Any]:
        players = doc.players
        if players not in PLAYER_COUNTS:
            raise ProtocolError(f"players must be 2, 3 or 4, got {players}")
        if len(doc.hands) != players:
            raise ProtocolError(f"hands must hold {players} hands, got {len(doc.hands)}")
        hands = [
            _tiles(hand, f"$.hands[{seat}]", "bad_request") for seat, hand in enumerate(doc.hands)
        ]
        seen: set[Tile] = set()
        for tile in (tile for hand in hands for tile in hand):
            if tile in seen:
                raise ProtocolError(f"{tile} is in two hands (or twice in one)")
            seen.add(tile)
        finisher = doc.finisher
        if finisher is not None and (not 0 <= finisher < players or hands[finisher]):
            raise ProtocolError(f"finisher {finisher} is not a seat with an empty hand")
        scores = [0] * side_count(players) if doc.scores is None else doc.scores
        if len(scores) != side_count(players):
            raise ProtocolError(f"scores must hold one integer per side ({side_count(players)})")
        # The finisher is checked, but changes nothing: settlement only deducts.
        return _settle_answer(players, hands, scores)


class _Refused(IllegalMove):
    """A placement of a ``table`` request refused by the rules, with its index."""

    def __init__(self, message: str, code: str, index: int) -> None:
        super().__init__(message, code)
        self.index = index


def _failure(kind: str, message: str) -> dict[str, Any]:
    return {"ok": False, "error": kind, "message": bounded_message(message)}


def _placements(texts: Sequence[str]) -> Iterator[Place]:
    """The placements written ``texts``, read one at a time (a table request's moves)."""
    for index, text in enumerate(texts):
        try:
            move = parse_move(text, strict=True)
        except IllegalMove as exc:
            raise _Refused(f"$.moves[{index}]: {exc}", exc.code, index) from None
        if not isinstance(move, Place):
            raise ProtocolError(f"$.moves[{index}]: a table takes placements, not {text!r}")
        yield move


def _with_opener(deal: object) -> object:
    """A deal object of a ``new`` request, with ``"opener": null`` if it has none."""
    return {"opener": None, **deal} if isinstance(deal, dict) else deal


def _made_deal(deal: DealDoc, where: str, players: int, *, seeded: bool) -> Deal:
    """The deal written at ``where`` of a ``new`` request for ``players``.

    Its opener may be null only when the request is ``seeded`` (the lot draws it).
    """
    if deal.opener is None and not seeded:
        raise ProtocolError(
            f"{where}.opener is null, but no seed was given to draw the lot",
            "invalid_deal",
        )
    hands = [
        _tiles(hand, f"{where}.hands[{seat}]", "invalid_deal")
        for seat, hand in enumerate(deal.hands)
    ]
    stock = _tiles(deal.stock, f"{where}.stock", "invalid_deal")
    try:
        made = Deal(hands=hands, stock=stock, opener=deal.opener)
    except InvalidDeal as exc:
        raise ProtocolError(f"{where}: {exc}", "invalid_deal") from None
    if made.players != players:
        raise ProtocolError(
            f"{where} is dealt to {made.players} players, not {players}", "invalid_deal"
        )
    return made


def _start_scores(given: Sequence[int], players: int) -> tuple[int, ...]:
    """The scores a ``new`` request starts the match at: one per side, below the target.

    :raises ProtocolError: if they are not, or not multiples of 5.
    """
    scores = tuple(given)
    if len(scores) != side_count(players):
        raise ProtocolError(
            f"scores must hold one integer per side ({side_count(players)}), got {len(scores)}",
            "invalid_deal",
        )
    if max(scores) >= TARGET[players]:
        raise ProtocolError(
            f"scores {list(scores)} already reach the target {TARGET[players]}",
            "invalid_deal",
        )
    if min(scores) < MIN_SCORE:
        raise ProtocolError(
            f"scores {list(scores)} go below the lowest starting score {MIN_SCORE}",
            "invalid_deal",
        )
    if any(score % 5 for score in scores):
        raise ProtocolError(
            f"scores {list(scores)} must be multiples of 5, as every score is",
            "invalid_deal",
        )
    return scores


def _seed(text: str) -> int:
    return read_u64(text, "seed", _invalid_deal)


def _invalid_deal(message: str) -> ProtocolError:
    return ProtocolError(message, "invalid_deal")


# -- serving -------------------------------------------------------------------------


def serve(infile: BinaryIO, outfile: BinaryIO, session: Session | None = None) -> int:
    """Answer every request line of ``infile`` on ``outfile`` until ``quit`` or the end; return 0.

    Each response is written and flushed before the next line is read. A line
    longer than :data:`MAX_LINE_BYTES` is answered with a ``bad_json`` error
    and skipped without being held in memory.
    """
    session = Session() if session is None else session
    while not session.done:
        line = infile.readline(MAX_LINE_BYTES + 1)
        if not line:
            break
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):  # skip the rest of the line
                line = infile.readline(MAX_LINE_BYTES)
            text = json.dumps(
                _failure("bad_json", f"the line is longer than {MAX_LINE_BYTES} bytes"),
                separators=(",", ":"),
            )
        else:
            text = session.handle_line(line)
        outfile.write(text.encode("utf-8") + b"\n")
        outfile.flush()
    return 0
