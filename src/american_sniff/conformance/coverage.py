"""Coverage you can see: the classes a vector set must reach, and which vectors reach them.

A vector set is only as good as the positions and inputs it reaches. This
module names those as **coverage classes** (:data:`CLASSES`): each way a
round ends for each number of players, seat and side; a match won by every
seat and side; the stock running empty while the seat to move and another
seat differ in whether they can place; every refusal code in every position
where the rules let it arise; every error kind with every cause that
``docs/protocol.md`` lists; a seed whose first draws meet the generator's
rejection step; deals running out; lines near the size limit.

:func:`classify` tells which classes one vector reaches, from the vector's
own requests and expected answers: it replays the steps in a library
:class:`~.protocol.Session` only to learn the positions the requests are
sent in (the seat to move, the hands, the stock), and reads every outcome
(a round's end, a winner, an error kind, a refusal code) from the vector's
``expect``. The cause of an error is read from the request itself (its keys
and types, the deal, the seed, the line's text), never from a message, and
an error whose cause cannot be told is itself a fault (:class:`CoverageError`):
so every refused request of the vectors belongs to a named class.

:func:`coverage` gathers the classes of a whole vector set;
``american-sniff conformance --coverage`` prints its table, the generator
checks it, and a test fails when a class has no vector.

>>> from american_sniff.conformance.loading import load_vectors
>>> report = coverage(load_vectors())
>>> report.rows[0].cls.id
'round-end/2p/domino/seat-0'
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from ..engine import legal_moves
from ..moves import Place
from ..rng import MASK64, next_u64
from ..rules import HAND_SIZE, PLAYER_COUNTS, TARGET, has_partners, is_score, side_count, side_of
from ..serial import MAX_SAFE_INTEGER
from ..state import MatchState
from ..tiles import ALL_TILES, parse_tile
from .loading import step_line
from .protocol import MAX_DEPTH, MAX_LINE_BYTES, MAX_ROUND, MIN_SCORE, PROTOCOL_VERSION, Session

__all__ = [
    "CLASSES",
    "NOT_IN_FILES",
    "CoverageClass",
    "CoverageError",
    "CoverageReport",
    "CoverageRow",
    "classify",
    "coverage",
]


class CoverageError(ValueError):
    """A vector whose steps cannot be classified: an error with no known cause, a bad replay."""


@attrs.frozen
class CoverageClass:
    """One class of positions or inputs that a vector set must reach.

    :ivar id: The class's name, its group first: ``"refusal/stock_empty/must-pass"``.
    :ivar description: What a vector must do to reach it, in words.
    """

    id: str
    description: str

    @property
    def group(self) -> str:
        """The class's group, the first part of its id (``"refusal"``)."""
        return self.id.split("/", 1)[0]


# -- the classes -----------------------------------------------------------------------

#: The positions a move can be refused in (see :func:`_position`), and the
#: ``table`` request, which places tiles on a bare table.
POSITIONS: Mapping[str, str] = {
    "opening": "the table is empty and the opener is to move",
    "can-place": "the seat to move holds a tile that fits",
    "must-draw": "the seat to move cannot place and the stock has tiles",
    "must-pass": "the seat to move cannot place and the stock is empty",
    "drawn-fits": "the seat to move has just drawn a tile that fits",
    "match-over": "a side has won the match",
    "table": "a table request, on a bare table",
}

_TEXT_CODES = ("not_a_move", "not_a_tile", "not_a_point")
_PLAYING = ("opening", "can-place", "must-draw", "must-pass", "drawn-fits")
_PLACING = ("can-place", "must-draw", "must-pass", "drawn-fits", "table")

#: Every refusal code, with the positions where the documented order of the
#: checks lets it be the one reported (match_over comes first, so no other code
#: arises after a win; a tile on the table is in no hand, so already_on_table
#: arises only in a table request; and so on).
REFUSAL_POSITIONS: Mapping[str, tuple[str, ...]] = {
    "match_over": ("match-over",),
    **dict.fromkeys(_TEXT_CODES, (*_PLAYING, "table")),
    "not_in_hand": _PLAYING,
    "must_place_drawn": ("drawn-fits",),
    "already_on_table": ("table",),
    "point_required": _PLACING,
    "opening_has_no_point": ("opening", "table"),
    "point_not_open": _PLACING,
    "values_differ": _PLACING,
    "must_place": ("opening", "can-place"),
    "must_draw": ("must-draw",),
    "stock_empty": ("must-pass",),
}

#: The causes of each error kind, as docs/protocol.md's table of error kinds
#: lists them ("when"), each with its words.
ERROR_CAUSES: Mapping[str, Mapping[str, str]] = {
    "bad_json": {
        "not-json": "a line that is not JSON",
        "empty": "an empty line",
        "blank": "a line of blanks only",
        "longer-than-1MiB": "a line longer than 1 MiB",
        "not-an-object": "a JSON value that is not an object",
        "fraction": "a number with a fraction (2.0)",
        "exponent": "a number with an exponent (2e0)",
        "nan": "NaN",
        "infinity": "an infinity",
        "big-integer": "an integer beyond 2**53 - 1 in size",
        "repeated-key": "a key repeated in one object",
        "repeated-escaped-key": "a key repeated in one object, written otherwise (c\\u006dd)",
        "control-character": "a raw control character (U+0000 to U+001F) in a string",
        "other-blank": "a blank JSON does not allow (form feed, no-break space) around the tokens",
        "not-utf8": "a line that is not UTF-8 (a vector's line_hex)",
        "bom": "a byte-order mark before the text",
        "nesting": "JSON nested deeper than the limit",
    },
    "bad_request": {
        "cmd-missing": "no cmd",
        "cmd-not-a-string": "a cmd that is not a string",
        "cmd-unknown": "an unknown cmd",
        "key-missing": "a key missing",
        "key-unknown": "an unknown key",
        "key-wrong-type": "a key of the wrong type",
        "deals-null": "new with deals null (null is not a list)",
        "boolean-for-integer": "true or false where an integer is due",
        "table-draw": "a table request with a draw",
        "table-pass": "a table request with a pass",
        "settle-players": "settle for players not 2, 3 or 4",
        "settle-hands-count": "settle with the wrong number of hands",
        "settle-malformed-tile": "settle with a text that is not a tile",
        "settle-tile-twice": "settle with a tile twice",
        "settle-finisher-not-a-seat": "settle with a finisher that is not a seat",
        "settle-finisher-holds-tiles": "settle with a finisher whose hand is not empty",
        "settle-scores-count": "settle with the wrong number of scores",
    },
    "unsupported": {
        "protocol-version": "hello with a protocol version the engine does not speak",
        "rules-version": "hello with a rules version the engine does not play",
    },
    "invalid_deal": {
        "players": "new with players not 2, 3 or 4",
        "no-deals-no-seed": "new with neither deals nor a seed",
        "empty-deals-no-seed": "new with deals empty and no seed",
        "bad-seed": "new with a seed that is not a decimal text of 0 to 2**64 - 1",
        "seed-not-ascii-digits": "new with a seed of digits beyond ASCII (full-width)",
        "deal-opener-null": "a deal with a null opener and no seed",
        "deal-opener-not-a-seat": "a deal whose opener is not a seat",
        "deal-hand-sizes": "a deal whose hands are not the players' hands",
        "deal-malformed-tile": "a deal with a text that is not a tile",
        "deal-not-the-set": "a deal that does not hold each of the 28 tiles once",
        "deal-short-of-a-tile": "a deal of 27 tiles, none twice",
        "round-below-1": "new with a round below 1",
        "round-above-max": f"new with a round above {MAX_ROUND}",
        "scores-length": "new with scores not one per side",
        "scores-at-target": "new with a score at the target",
        "scores-below-lowest": f"new with a score below {MIN_SCORE}",
        "scores-not-multiple-of-5": "new with a score that is not a multiple of 5",
    },
    "no_match": {cmd: f"{cmd} before any new" for cmd in ("legal", "move", "state")},
    "no_deal": {
        cmd: f"{cmd} after the match outlasted its deals" for cmd in ("legal", "move", "state")
    },
}

#: Causes that no vector file can hold, and why; they are checked elsewhere.
NOT_IN_FILES: Mapping[str, str] = {
    "error/unsupported/feature": "the library offers every feature, so it never refuses one",
    "error/internal": "the library's engine does not fail; no vector can expect it to",
}


#: Where the tiles of a hand never drawn into come from, for the classes of its order.
UNDRAWN_ORIGINS: Mapping[str, str] = {
    "seeded": "dealt from a seed (in the shuffle's order)",
    "given-unsorted": "given in a deal, written unsorted",
}

#: JSON's corners a line may hold and still be read (docs/protocol.md, "Reading a line").
JSON_OK_CORNERS: Mapping[str, str] = {
    "minus-zero": "-0, the integer 0",
    "lone-surrogate": "a lone surrogate escape in a string",
    "escaped-key": "a key written with an escape (c\\u006dd)",
}


def _classes() -> tuple[CoverageClass, ...]:
    found: list[CoverageClass] = []

    def add(ident: str, description: str) -> None:
        found.append(CoverageClass(ident, description))

    ends = {"domino": "goes out (domino)", "blocked": "blocks the round"}
    for end, words in ends.items():
        for players in PLAYER_COUNTS:
            for seat in range(players):
                add(
                    f"round-end/{players}p/{end}/seat-{seat}",
                    f"{players} players: seat {seat} {words}",
                )
            if has_partners(players):  # else a side is a seat
                for side in range(side_count(players)):
                    add(
                        f"round-end/{players}p/{end}/side-{side}",
                        f"{players} players: a seat of side {side} {words}",
                    )
    add("round-end/blocked-by-a-draw", "a draw that empties the stock blocks the round")
    add("round-end/blocked-by-a-placement", "a placement with the stock empty blocks the round")
    for players in PLAYER_COUNTS:
        for seat in range(players):
            add(f"win/{players}p/seat-{seat}", f"{players} players: seat {seat} wins the match")
        if has_partners(players):
            for side in range(side_count(players)):
                add(f"win/{players}p/side-{side}", f"{players} players: side {side} wins the match")
    add("win/with-the-last-tile", "the winning placement empties the hand (no settlement follows)")
    add(
        "stock-empty/next-cannot-another-can",
        "with the stock empty the turn passes to a seat that cannot place, while another "
        "seat can (the round is not blocked)",
    )
    add(
        "stock-empty/next-can-another-cannot",
        "with the stock empty the turn passes to a seat that can place, while another "
        "seat cannot (the round is not blocked)",
    )
    for code, positions in REFUSAL_POSITIONS.items():
        for position in positions:
            add(f"refusal/{code}/{position}", f"{code} where {POSITIONS[position]}")
    for kind, causes in ERROR_CAUSES.items():
        for cause, words in causes.items():
            add(f"error/{kind}/{cause}", f"{kind}: {words}")
    add(
        "seed/rejection-step",
        "a seed whose first round's draws meet below's rejection (an output redrawn)",
    )
    add(
        "seed/power-of-two-top",
        "a seed whose first round draws below(n), n a power of two, at one of the top n "
        "outputs, which is kept",
    )
    for origin, words in UNDRAWN_ORIGINS.items():
        add(
            f"round-end/undrawn-hand/{origin}",
            f"a round ends while a seat that never drew holds two or more tiles {words}",
        )
    for corner, words in JSON_OK_CORNERS.items():
        add(f"json/{corner}", f"a line with {words}, read")
    add(
        "deals-run-out/last-move",
        "the move that ends the round of the last deal answers turn null",
    )
    add(
        "deals-run-out/last-move-blocked",
        "a blocked round of the last deal: its move answers turn null",
    )
    add("deals-run-out/new-after", "a new match after the deals ran out")
    add("line/over-64KiB", "a request line longer than 64 KiB, answered")
    add("line/near-1MiB", "a request line within 64 KiB of the 1 MiB limit, accepted")
    return tuple(found)


#: Every class a vector set must reach, in the order of the table.
CLASSES: tuple[CoverageClass, ...] = _classes()


_IDS = frozenset(c.id for c in CLASSES)


# -- the report ---------------------------------------------------------------------------


@attrs.frozen
class CoverageRow:
    """One class of the table: how many vectors reach it, and the first of them.

    :ivar cls: The class.
    :ivar vectors: The ids of the vectors that reach it, in the set's order.
    """

    cls: CoverageClass
    vectors: tuple[str, ...]

    @property
    def reached(self) -> bool:
        """Whether some vector reaches the class."""
        return bool(self.vectors)


@attrs.frozen
class CoverageReport:
    """The coverage of a vector set: one row per class of :data:`CLASSES`."""

    rows: tuple[CoverageRow, ...]

    @property
    def missing(self) -> tuple[str, ...]:
        """The ids of the classes no vector reaches."""
        return tuple(row.cls.id for row in self.rows if not row.reached)

    def table(self) -> str:
        """The table as text: class, how many vectors reach it, the first one."""
        width = max(len(row.cls.id) for row in self.rows)
        lines = [f"{'class':<{width}}  vectors  first"]
        for row in self.rows:
            first = row.vectors[0] if row.vectors else "MISSING"
            lines.append(f"{row.cls.id:<{width}}  {len(row.vectors):>7}  {first}")
        reached = len(self.rows) - len(self.missing)
        lines.append(f"{len(self.rows)} classes: {reached} reached, {len(self.missing)} missing")
        return "\n".join(lines)


def coverage(vectors: Iterable[object]) -> CoverageReport:
    """The coverage of ``vectors`` (:class:`~.loading.Vector` objects or their JSON objects).

    :raises CoverageError: if a vector cannot be classified.
    """
    reached: dict[str, list[str]] = {c.id: [] for c in CLASSES}
    for vector in vectors:
        data: Mapping[str, Any] = getattr(vector, "data", vector)  # type: ignore[arg-type]
        for ident in sorted(classify(data)):
            reached[ident].append(data["id"])
    return CoverageReport(tuple(CoverageRow(c, tuple(reached[c.id])) for c in CLASSES))


# -- classifying one vector ------------------------------------------------------------------


def classify(vector: Mapping[str, Any]) -> frozenset[str]:
    """The ids of the classes of :data:`CLASSES` that ``vector`` (its JSON object) reaches.

    :raises CoverageError: if an error step has no known cause, or the library's
        replay of the steps refuses what the vector expects to succeed.
    """
    steps = vector.get("steps")
    if not isinstance(steps, list):
        return frozenset()  # a perft vector: counts, no steps
    ident = vector.get("id", "?")
    session = Session()
    if not vector.get("fresh", False):
        session.handle({"cmd": "hello", "protocol_version": PROTOCOL_VERSION})
    found: set[str] = set()
    hands = _Undrawn()
    for number, step in enumerate(steps):
        try:
            found |= _step(session, step)
            found |= hands.step(step)
        except CoverageError as exc:
            raise CoverageError(f"{ident}, step {number} ({step.get('at')}): {exc}") from None
    unknown = found - _IDS
    assert not unknown, unknown  # every class named here is in the table
    return frozenset(found)


def _step(session: Session, step: Mapping[str, Any]) -> set[str]:
    expect: Mapping[str, Any] = step["expect"]
    before = session.state
    outlasted = _outlasted(session)
    if "line_hex" in step:
        data = bytes.fromhex(step["line_hex"])
        sent = data.decode("utf-8", "replace")
        request: object = None
        answer = json.loads(session.handle_line(data))
    elif "line" in step:
        line = step_line(step)
        sent = line
        request = _parsed(line)
        answer = json.loads(session.handle_line(line.encode("utf-8", "surrogatepass")))
    else:
        request = step["request"]
        sent = json.dumps(request, separators=(",", ":"))
        answer = session.handle(request)
    cmd = request.get("cmd") if isinstance(request, dict) else None
    if cmd in ("new", "move") and expect["ok"] and not answer["ok"]:
        # The replay would lose the match the later steps are sent in.
        raise CoverageError(f"the library refuses what the vector expects: {answer}")
    found = _line_classes(sent, expect)
    if "line" in step and expect.get("error") != "bad_json":
        found |= _json_corners(step_line(step), request)
    if not expect["ok"]:
        found |= _error_classes(expect, step, request, before, outlasted)
    elif cmd == "move" and before is not None:
        found |= _move_classes(expect, before, session.state, outlasted_after=_outlasted(session))
    elif cmd == "new" and isinstance(request, dict):
        if outlasted:
            found.add("deals-run-out/new-after")
        found |= _meets_rejection(request)
    return found


def _outlasted(session: Session) -> bool:
    """Whether the session's match has outlasted its deals (its ``legal`` would be no_deal)."""
    return session.state is not None and session.handle({"cmd": "state"}).get("error") == "no_deal"


def _line_classes(sent: str, expect: Mapping[str, Any]) -> set[str]:
    size = len(sent.encode("utf-8", "surrogatepass")) + 1  # the newline counts
    found = set()
    if size > 64 << 10 and (expect["ok"] or expect.get("error") != "bad_json"):
        found.add("line/over-64KiB")
    if MAX_LINE_BYTES - (64 << 10) < size <= MAX_LINE_BYTES and expect.get("error") != "bad_json":
        found.add("line/near-1MiB")
    return found


# -- moves -------------------------------------------------------------------------------------


def _move_classes(
    expect: Mapping[str, Any],
    before: MatchState,
    after: MatchState | None,
    *,
    outlasted_after: bool,
) -> set[str]:
    players = before.players
    seat: int = expect["seat"]
    found = set()
    end = expect.get("round_end")
    if end is not None:
        kind = end["end"]
        found.add(f"round-end/{players}p/{kind}/seat-{seat}")
        if has_partners(players):
            found.add(f"round-end/{players}p/{kind}/side-{side_of(players, seat)}")
        if kind == "blocked":
            placed = expect["move"] not in ("draw", "pass")
            found.add(f"round-end/blocked-by-a-{'placement' if placed else 'draw'}")
        if expect.get("turn") is None and outlasted_after:
            found.add("deals-run-out/last-move")
            if kind == "blocked":
                found.add("deals-run-out/last-move-blocked")
    winner = expect.get("winner")
    if winner is not None:
        found.add(f"win/{players}p/seat-{seat}")
        if has_partners(players):
            found.add(f"win/{players}p/side-{winner}")
        if after is not None and not after.hands[seat]:
            found.add("win/with-the-last-tile")
    elif end is None and after is not None and after.stock_size == 0 and after.turn != seat:
        able = [any(after.layout.fits(tile) for tile in hand) for hand in after.hands]
        others = [able[s] for s in range(players) if s != after.turn]
        if not able[after.turn] and any(others):
            found.add("stock-empty/next-cannot-another-can")
        if able[after.turn] and not all(others):
            found.add("stock-empty/next-can-another-cannot")
    return found


def _position(state: MatchState) -> str:
    """The position a move is sent in: a key of :data:`POSITIONS`."""
    if state.winner is not None:
        return "match-over"
    if not state.layout.tiles:
        return "opening"
    if state.drawn is not None:
        return "drawn-fits"
    legal = legal_moves(state)
    if any(isinstance(move, Place) for move in legal):
        return "can-place"
    return "must-draw" if state.stock_size else "must-pass"


# -- errors ----------------------------------------------------------------------------------


def _error_classes(
    expect: Mapping[str, Any],
    step: Mapping[str, Any],
    request: object,
    before: MatchState | None,
    outlasted: bool,
) -> set[str]:
    kind = expect.get("error")
    if kind == "illegal_move":
        code = expect.get("code")
        cmd = request.get("cmd") if isinstance(request, dict) else None
        if cmd == "table":
            return {f"refusal/{code}/table"}
        if cmd != "move" or before is None:
            raise CoverageError(f"illegal_move for a {cmd} request with no match")
        return {f"refusal/{code}/{_position(before)}"}
    if kind == "bad_json":
        if "line_hex" in step:
            cause = _not_utf8(bytes.fromhex(step["line_hex"]))
        else:
            cause = _bad_json_cause(step_line(step) if "line" in step else None, request)
    elif kind == "bad_request":
        cause = _bad_request_cause(request)
    elif kind == "unsupported":
        cause = _unsupported_cause(request)
    elif kind == "invalid_deal":
        cause = _invalid_deal_cause(request)
    elif kind in ("no_match", "no_deal"):
        cmd = request.get("cmd") if isinstance(request, dict) else None
        if (kind == "no_deal") != outlasted or (kind == "no_match") != (before is None):
            raise CoverageError(f"{kind} where the match does not call for it")
        cause = str(cmd)
    else:
        cause = None
    ident = f"error/{kind}/{cause}"
    if cause is None or ident not in _IDS:
        raise CoverageError(f"cannot tell why the request is refused with {kind}: {request!r:.200}")
    return {ident}


class _Flags:
    """What a strict reading of a JSON text met: the values the formats refuse."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def number(self, text: str) -> float:
        self.found.append("exponent" if "e" in text.lower() else "fraction")
        return 0.0

    def constant(self, text: str) -> float:
        self.found.append("nan" if text == "NaN" else "infinity")
        return 0.0

    def integer(self, text: str) -> int:
        if abs(int(text)) > MAX_SAFE_INTEGER:
            self.found.append("big-integer")
        return int(text)

    def pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        if len({key for key, _ in pairs}) != len(pairs):
            self.found.append("repeated-key")
        return dict(pairs)


def _parsed(line: str) -> object:
    """The JSON value of ``line`` read leniently (floats, NaN and repeats allowed), or None.

    A line nested a few thousand levels deep is read too (the recursion limit
    is raised for it), so that its keys can still be judged.
    """
    depth = _depth(line)
    limit = sys.getrecursionlimit()
    if depth < 5000:
        sys.setrecursionlimit(max(limit, limit + 2 * depth))
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None
    finally:
        sys.setrecursionlimit(limit)


_NEST = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _depth(line: str) -> int:
    """How deep the arrays and objects of ``line`` nest (strings skipped)."""
    depth = deepest = 0
    for match in _NEST.finditer(line):
        token = match.group()
        if token in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif token in "]}":
            depth -= 1
    return deepest


def _bad_json_cause(line: object, request: object) -> str | None:
    if not isinstance(line, str):
        return "not-an-object" if not isinstance(request, dict) else None
    if len(line.encode("utf-8", "surrogatepass")) + 1 > MAX_LINE_BYTES:
        return "longer-than-1MiB"
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        return "not-utf8"
    if line == "":
        return "empty"
    if not line.strip():
        return "blank"
    if line.startswith("\ufeff"):
        return "bom"
    if _depth(line) > MAX_DEPTH:
        return "nesting"
    flags = _Flags()
    try:
        value = json.loads(
            line,
            parse_float=flags.number,
            parse_constant=flags.constant,
            parse_int=flags.integer,
            object_pairs_hook=flags.pairs,
        )
    except ValueError:
        return _not_json_cause(line)
    if flags.found:
        if flags.found[0] == "repeated-key" and _escaped_repeat(line):
            return "repeated-escaped-key"
        return flags.found[0]
    return "not-an-object" if not isinstance(value, dict) else None


def _not_utf8(data: bytes) -> str | None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "not-utf8"
    return None


#: The characters Unicode counts as blanks that JSON does not (form feed, no-break space...).
_OTHER_BLANKS = re.compile(r"[^\S \t\n\r\x1c-\x1f]")


def _not_json_cause(line: str) -> str:
    """Why a line is not JSON: a raw control character, a blank JSON lacks, or anything else."""
    try:
        json.loads(line, strict=False)
    except ValueError:
        pass
    else:
        return "control-character"
    if _OTHER_BLANKS.search(line):
        try:
            json.loads(_OTHER_BLANKS.sub(" ", line))
        except ValueError:
            pass
        else:
            return "other-blank"
    return "not-json"


#: A key as written: a string followed by a colon.
_KEY = re.compile(r'"((?:[^"\\]|\\.)*)"\s*:')


def _escaped_repeat(line: str) -> bool:
    """Whether a line's repeated key is written with escapes: its written keys all differ."""
    written = _KEY.findall(line)
    return len(set(written)) == len(written) and any("\\" in key for key in written)


def _json_corners(line: str, request: object) -> set[str]:
    """The corners of JSON a line that was read holds (:data:`JSON_OK_CORNERS`)."""
    found = set()
    if re.search(r"[\[:,]\s*-0\s*[,\]}]", _STRING.sub('""', line)):
        found.add("json/minus-zero")
    if any(re.search(r"\\", key) for key in _KEY.findall(line)):
        found.add("json/escaped-key")
    if _has_surrogate(request):
        found.add("json/lone-surrogate")
    return found


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def _has_surrogate(value: object) -> bool:
    """Whether a parsed JSON value holds a string (or key) with a lone surrogate."""
    if isinstance(value, str):
        return any("\ud800" <= char <= "\udfff" for char in value)
    if isinstance(value, dict):
        return any(_has_surrogate(key) or _has_surrogate(item) for key, item in value.items())
    if isinstance(value, list):
        return any(_has_surrogate(item) for item in value)
    return False


# The request keys of docs/protocol.md, command by command: key -> (required, type).
_INT, _INT_OR_NULL, _STR, _STR_OR_NULL = "int", "int?", "str", "str?"
_INTS_OR_NULL, _STRS, _HANDS, _DEALS = "ints?", "strs", "hands", "deals"
_SHAPES: Mapping[str, Mapping[str, tuple[bool, str]]] = {
    "hello": {"protocol_version": (True, _INT), "rules_version": (False, _STR_OR_NULL)},
    "new": {
        "players": (True, _INT),
        "deals": (False, _DEALS),
        "seed": (False, _STR_OR_NULL),
        "scores": (False, _INTS_OR_NULL),
        "round": (False, _INT_OR_NULL),
    },
    "legal": {},
    "move": {"move": (True, _STR)},
    "state": {},
    "table": {"moves": (True, _STRS)},
    "settle": {
        "players": (True, _INT),
        "hands": (True, _HANDS),
        "finisher": (False, _INT_OR_NULL),
        "scores": (False, _INTS_OR_NULL),
    },
    "quit": {},
}
_DEAL_SHAPE: Mapping[str, tuple[bool, str]] = {
    "hands": (True, _HANDS),
    "stock": (True, _STRS),
    "opener": (False, _INT_OR_NULL),
}


def _type_problem(value: object, kind: str) -> str | None:
    """Why ``value`` is not of ``kind`` (``"boolean-for-integer"`` or ``"key-wrong-type"``)."""
    if kind.endswith("?") and value is None:
        return None
    if kind in (_INT, _INT_OR_NULL):
        if type(value) is bool:
            return "boolean-for-integer"
        return None if type(value) is int else "key-wrong-type"
    if kind in (_STR, _STR_OR_NULL):
        return None if isinstance(value, str) else "key-wrong-type"
    if not isinstance(value, list):
        return "key-wrong-type"
    item = {_INTS_OR_NULL: _INT, _STRS: _STR, _HANDS: _STRS}.get(kind)
    for element in value:
        if kind == _DEALS:
            problem = (
                _shape_problem(element, _DEAL_SHAPE)
                if isinstance(element, dict)
                else "key-wrong-type"
            )
        else:
            assert item is not None
            problem = _type_problem(element, item)
        if problem is not None:
            return problem
    return None


def _shape_problem(body: Mapping[str, Any], shape: Mapping[str, tuple[bool, str]]) -> str | None:
    if set(body) - set(shape):
        return "key-unknown"
    if any(required and key not in body for key, (required, _) in shape.items()):
        return "key-missing"
    for key, (_, kind) in shape.items():
        if key in body:
            problem = _type_problem(body[key], kind)
            if problem is not None:
                return problem
    return None


def _is_tile(text: str) -> bool:
    try:
        parse_tile(text, strict=True)
    except ValueError:
        return False
    return True


def _bad_request_cause(request: object) -> str | None:
    if not isinstance(request, dict):
        return None
    if "cmd" not in request:
        return "cmd-missing"
    cmd = request["cmd"]
    if not isinstance(cmd, str):
        return "cmd-not-a-string"
    if cmd not in _SHAPES:
        return "cmd-unknown"
    body = {key: value for key, value in request.items() if key != "cmd"}
    if (
        cmd == "new"
        and "deals" in body
        and body["deals"] is None
        and set(body) <= set(_SHAPES[cmd])
    ):
        return "deals-null"
    problem = _shape_problem(body, _SHAPES[cmd])
    if problem is not None:
        return problem
    if cmd == "table":
        for text in body["moves"]:
            if text in ("draw", "pass"):
                return f"table-{text}"
    if cmd == "settle":
        return _settle_cause(body)
    return None


def _settle_cause(body: Mapping[str, Any]) -> str | None:
    players, hands = body["players"], body["hands"]
    if players not in PLAYER_COUNTS:
        return "settle-players"
    if len(hands) != players:
        return "settle-hands-count"
    texts = [text for hand in hands for text in hand]
    if not all(_is_tile(text) for text in texts):
        return "settle-malformed-tile"
    if len({parse_tile(text, strict=True) for text in texts}) != len(texts):
        return "settle-tile-twice"
    finisher = body.get("finisher")
    if finisher is not None and not 0 <= finisher < players:
        return "settle-finisher-not-a-seat"
    if finisher is not None and hands[finisher]:
        return "settle-finisher-holds-tiles"
    scores = body.get("scores")
    if scores is not None and len(scores) != side_count(players):
        return "settle-scores-count"
    return None


def _unsupported_cause(request: object) -> str | None:
    if not isinstance(request, dict) or request.get("cmd") != "hello":
        return None
    if request.get("protocol_version") != PROTOCOL_VERSION:
        return "protocol-version"
    return "rules-version" if request.get("rules_version") not in (None, "1") else None


_SEED = re.compile(r"0|[1-9][0-9]*")


def _good_seed(text: str) -> bool:
    return bool(_SEED.fullmatch(text)) and int(text) <= MASK64


def _invalid_deal_cause(request: object) -> str | None:
    if not isinstance(request, dict) or request.get("cmd") != "new":
        return None
    players = request["players"]
    if players not in PLAYER_COUNTS:
        return "players"
    seed = request.get("seed")
    if seed is not None and not _good_seed(seed):
        digits = seed.isdigit() and not seed.isascii()
        return "seed-not-ascii-digits" if digits else "bad-seed"
    deals = request.get("deals") or []
    if seed is None and not deals:
        return "empty-deals-no-seed" if "deals" in request else "no-deals-no-seed"
    for deal in deals:
        cause = _deal_cause(deal, players, seeded=seed is not None)
        if cause is not None:
            return cause
    first = request.get("round")
    if first is not None and first < 1:
        return "round-below-1"
    if first is not None and first > MAX_ROUND:
        return "round-above-max"
    return _scores_cause(request.get("scores"), players)


def _deal_cause(deal: Mapping[str, Any], players: int, *, seeded: bool) -> str | None:
    opener = deal.get("opener")
    if opener is None and not seeded:
        return "deal-opener-null"
    texts = [*(text for hand in deal["hands"] for text in hand), *deal["stock"]]
    if not all(_is_tile(text) for text in texts):
        return "deal-malformed-tile"
    if [len(hand) for hand in deal["hands"]] != [HAND_SIZE[players]] * players:
        return "deal-hand-sizes"
    tiles = sorted(parse_tile(text, strict=True) for text in texts)
    if len(tiles) == len(ALL_TILES) - 1 and set(tiles) < set(ALL_TILES):
        return "deal-short-of-a-tile"
    if tiles != sorted(ALL_TILES):
        return "deal-not-the-set"
    if opener is not None and not 0 <= opener < players:
        return "deal-opener-not-a-seat"
    return None


def _scores_cause(scores: Sequence[int] | None, players: int) -> str | None:
    if scores is None:
        return None
    if len(scores) != side_count(players):
        return "scores-length"
    if max(scores) >= TARGET[players]:
        return "scores-at-target"
    if min(scores) < MIN_SCORE:
        return "scores-below-lowest"
    return "scores-not-multiple-of-5" if not all(map(is_score, scores)) else None


# -- the generator's rejection step ------------------------------------------------------------


def _meets_rejection(request: Mapping[str, Any]) -> set[str]:
    """The seed classes a seeded ``new`` meets in its first round's draws.

    Without deals, the first round shuffles the 28 tiles (``below(28)`` down
    to ``below(2)``) and draws the lot (``below(players)``); with deals, the
    first deal's null opener draws its lot first. An output at or above
    ``2**64 - 2**64 % n`` is redrawn (``seed/rejection-step``); when ``n`` is a
    power of two none is, and an output among the top ``n`` is
    ``seed/power-of-two-top``.
    """
    seed = request.get("seed")
    if not isinstance(seed, str) or not _good_seed(seed):
        return set()
    state = int(seed)
    deals = request.get("deals") or []
    if deals:
        bounds = [request["players"]] if deals[0].get("opener") is None else []
    else:
        bounds = [*range(len(ALL_TILES), 1, -1), request["players"]]
    found = set()
    for n in bounds:
        out, state = next_u64(state)
        while out >= (1 << 64) - (1 << 64) % n:
            found.add("seed/rejection-step")
            out, state = next_u64(state)
        if n & (n - 1) == 0 and out >= (1 << 64) - n:
            found.add("seed/power-of-two-top")
    return found


# -- hands never drawn into ---------------------------------------------------------------------


class _Undrawn:
    """Follows a vector's rounds: who drew, and where each round's hands came from."""

    def __init__(self) -> None:
        self.deals: list[Mapping[str, Any]] = []
        self.seeded = False
        self.round = 0
        self.drew: set[int] = set()

    def step(self, step: Mapping[str, Any]) -> set[str]:
        """The undrawn-hand classes a step reaches (its round end's revealed hands)."""
        request = step.get("request")
        expect = step["expect"]
        if not isinstance(request, dict) or not expect["ok"]:
            return set()
        if request.get("cmd") == "new":
            self.deals = list(request.get("deals") or [])
            self.seeded = request.get("seed") is not None
            self.round, self.drew = 0, set()
            return set()
        if request.get("cmd") != "move":
            return set()
        if expect.get("move") == "draw":
            self.drew.add(expect["seat"])
        end = expect.get("round_end")
        if end is None:
            return set()
        found = set()
        for seat, hand in enumerate(end["hands"]):
            if seat in self.drew or len(hand) < 2:
                continue
            if self.round < len(self.deals):
                given = [text for text in self.deals[self.round]["hands"][seat] if text in hand]
                if given != sorted(given, key=parse_tile):
                    found.add("round-end/undrawn-hand/given-unsorted")
            elif self.seeded:
                found.add("round-end/undrawn-hand/seeded")
        self.round, self.drew = self.round + 1, set()
        return found
