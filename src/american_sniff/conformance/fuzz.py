"""The lockstep fuzzer: random matches played in an engine and in the library at once.

:func:`fuzz` plays ``matches`` random matches. Each request goes to the engine
and to the library's own session; the engine's answer must match the
library's by the rules of :mod:`~american_sniff.conformance.compare` (every
field, the engine's own choices aside).

A match starts with a ``new`` of 2, 3 or 4 players, from given deals (which
run out) or, if the engine's ``hello`` lists ``seed``, from a seed; some
matches start on a restarted engine with requests before any ``new``, some
with a refused ``new``. Then it plays: mostly legal moves chosen at random,
mixed with ``legal`` and ``state``, illegal moves, move texts built from the
grammar by mutation and texts that cross its forms, every class of
malformed line and refused request of the robustness vectors (floats and
booleans for integers, bad seeds, ``hello`` variants, refused ``new``,
``table`` and ``settle`` requests), bare ``table`` requests and ``settle``
requests. Once the match is won or its deals have run out it goes on for a
few requests (``legal``, ``state``, moves), since an engine must still answer
them right.

With ``bias`` the fuzzer makes rare positions likelier: more 4-player
matches, scores just below the target (so that wins come often, by every
seat), ``draw`` chosen whenever it is legal (so that the stock empties and
rounds block), and fewer deals (so that they run out).

At the first difference it stops, and shrinks the failing match as
Hypothesis does: it replays shorter and shorter subsequences of the match's
request lines on a restarted engine (and a fresh library), keeping each one
that still fails on the same field, until no single line can be dropped. The
report quotes the first failure as found (its request counted from 1 within
its match, the ``hello`` excluded) and the shortest sequence of lines that
still fails, for replay by piping them to the engine.

Every random choice comes from SplitMix64 (:mod:`american_sniff.rng`), so a
seed gives the same requests on every machine.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, TypeVar

import attrs

from ..engine import apply, legal_moves
from ..layout import FITTING_TILES
from ..rng import MASK64, below, shuffled
from ..rules import HAND_SIZE, SCORE_UNIT, TARGET, has_partners, side_count
from ..serial import move_text, tile_text
from ..state import MatchState
from ..tiles import ALL_TILES
from .compare import difference, expected_answer, own_choice_problem, text
from .inputs import BAD_LINES, BAD_REQUESTS, BAD_SEEDS, JSON_CORNERS, SEED_TEXTS
from .kit import Engine, EngineCrashed, EngineError, LocalEngine, handshake

__all__ = ["DEFAULT_STEPS", "MAX_REPLAYS", "RARE", "FuzzReport", "fuzz"]

#: The most requests of one match, before it is won or its deals run out.
DEFAULT_STEPS = 400
#: The most replays the shrinker makes of one failing match.
MAX_REPLAYS = 400
#: The rare positions the fuzzer counts (and, with ``bias``, seeks), by name.
RARE: Mapping[str, str] = MappingProxyType(
    {
        "win_by_seat_2_or_3": "a 4-player match won by a move of seat 2 or 3",
        "blocked_round": "a round that ended blocked",
        "empty_stock": "a move played with the stock empty",
        "deals_ran_out": "a match whose given deals ran out",
        "past_the_end": "a request after the match was won or its deals ran out",
        "before_new": "a request to a restarted engine before any new",
    }
)
_T = TypeVar("_T")
_SIDES = ("low", "high", "line_a", "line_b", "branch_a", "branch_b")
_HELLO_LINE = json.dumps({"cmd": "hello", "protocol_version": 1}, separators=(",", ":"))
_EXTRA_LINES = (
    "[]",
    '{"cmd": "move", "move": "draw", "x": 1.5}',
    '{"cmd": "legal", "extra": true}',
    '{"cmd": "jump"}',
    '{"cmd": "move", "move": 4}',
    '{"cmd": "legal"} {"cmd": "state"}',
    '{"cmd": "legal",}',
    '{"cmd": "new", "players": 2, "seed": "1", "round": 1.0}',
    '{"cmd": "new", "players": 2, "seed": "1", "round": -0}',
    '{"cmd": "legal", "x": ' + "[" * 40 + "]" * 40 + "}",
    "[" * 5000 + "]" * 5000,
    '{"cmd": "table", "moves": ' + "[" * 5000 + "]" * 5000 + "}",
)
_LINES = (
    tuple(line for _, line in BAD_LINES)
    + _EXTRA_LINES
    + tuple(line for _, line in BAD_LINES)  # as often as JSON's corners below
    + tuple(line for _, line, _ in JSON_CORNERS)
)
#: The ways a request is written with JSON's blanks: (item separator, key separator,
#: before, after). Only space, tab and carriage return: a line feed ends the line.
_BLANKS = (
    (", ", ": ", "", ""),
    ("\t,\t", " :\r", "\t", " "),
    ("\r, ", "\t: ", " ", "\r"),
)
#: A string token of a JSON text.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
#: A zero standing alone as a number of a JSON text (outside strings).
_ZERO = re.compile(r"(?<=[:\[,])(\s*)0(?=\s*[,\]}])")
_HELLOS: tuple[dict[str, Any], ...] = (
    {"cmd": "hello", "protocol_version": 1},
    {"cmd": "hello", "protocol_version": 1, "rules_version": "1"},
    {"cmd": "hello", "protocol_version": 1, "rules_version": None},
    {"cmd": "hello", "protocol_version": 2},
    {"cmd": "hello", "protocol_version": 0},
    {"cmd": "hello", "protocol_version": 1.0},
    {"cmd": "hello", "protocol_version": True},
    {"cmd": "hello", "protocol_version": "1"},
    {"cmd": "hello", "protocol_version": None},
    {"cmd": "hello"},
    {"cmd": "hello", "protocol_version": 1, "rules_version": "2"},
    {"cmd": "hello", "protocol_version": 1, "rules_version": 1},
    {"cmd": "hello", "protocol_version": 1, "features": []},
)
#: The move grammar's words, from which mutated texts are built.
_WORDS = ("on", "opens", "draw", "pass", *_SIDES, "[0|0]", "[1|4]", "[6|6]", "[2|5]", "")


@attrs.frozen
class FuzzReport:
    """The outcome of a fuzzing run.

    :ivar seed: The seed the run started from.
    :ivar matches: How many matches were played (the last one failed, if any did).
    :ivar requests: How many requests were sent in all, the ``hello`` excluded.
    :ivar difference: The first difference, in words (which request of which
        match, the field, the request and both answers); None if the engine
        agreed throughout.
    :ivar lines: A ``hello`` line, then the shortest sequence of request lines
        found that still fails on the same field, for replay on a fresh
        engine; empty if there was no difference.
    :ivar failing: How many request lines the failing match had sent, up to
        and with the one that failed, before shrinking (0 if none failed).
    :ivar reached: How often each rare position of :data:`RARE` was reached.
    """

    seed: int
    matches: int
    requests: int
    difference: str | None = None
    lines: tuple[str, ...] = ()
    failing: int = 0
    reached: Mapping[str, int] = attrs.field(factory=dict, eq=False)

    @property
    def passed(self) -> bool:
        """Whether the engine agreed with the library on every request."""
        return self.difference is None

    def summary(self) -> str:
        """One line: the verdict, the matches and requests, the seed."""
        verdict = "no difference" if self.passed else "a difference"
        counts = f"{self.matches} matches, {self.requests} requests"
        return f"fuzz: {verdict} in {counts} (seed {self.seed})"


class _Random:
    """A SplitMix64 stream: the fuzzer's only source of chance."""

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK64

    def below(self, n: int) -> int:
        value, self.state = below(n, self.state)
        return value

    def choice(self, items: Sequence[_T]) -> _T:
        return items[self.below(len(items))]

    def chance(self, percent: int) -> bool:
        return self.below(100) < percent


def fuzz(  # noqa: PLR0913 - the engine, the count and the seed; the rest by keyword
    engine: Engine,
    matches: int,
    seed: int = 0,
    *,
    steps: int = DEFAULT_STEPS,
    bias: bool = False,
    shrink: bool = True,
    progress: Callable[[int], None] | None = None,
) -> FuzzReport:
    """Play ``matches`` random matches in ``engine`` and the library in lockstep.

    The engine's ``hello`` decides whether matches are also dealt from seeds
    (with the ``seed`` feature) or always from given deals. ``bias`` seeks
    the rare positions of :data:`RARE`; ``shrink`` (the default) shrinks a
    failing match to the shortest sequence that still fails. ``progress`` is
    called with each match's number once it has been played.

    >>> fuzz(LocalEngine(), 3, seed=5).summary()  # doctest: +ELLIPSIS
    'fuzz: no difference in 3 matches, ... requests (seed 5)'

    :raises EngineError: if the engine fails the handshake.
    """
    hello = handshake(engine)
    seeded = "seed" in hello["features"]
    rng = _Random(seed)
    total = 0
    reached = dict.fromkeys(RARE, 0)
    for number in range(1, matches + 1):
        game = _Match(engine, rng, seeded, "win" if bias and number % 2 else bias, reached)
        found = game.play(steps)
        total += len(game.lines)
        if found is not None:
            where, words = found
            lines = game.lines[:where]
            head = (
                f"request {where} of match {number} (counting from 1 within the match, "
                f"the hello excluded; the match sent {len(lines)} requests): {words}"
            )
            short = _shrink(engine, lines, _signature(words)) if shrink else lines
            note = (
                f"\n  the shortest sequence that still fails: {len(short)} of its "
                f"{len(lines)} requests"
                if shrink
                else ""
            )
            return FuzzReport(
                seed, number, total, head + note, (_HELLO_LINE, *short), len(lines), reached
            )
        if progress is not None:
            progress(number)
    return FuzzReport(seed, matches, total, reached=reached)


def _signature(words: str) -> str:
    """What a failure is about: its field (the words before the first colon), or a crash."""
    return words.split(":", 1)[0]


def _compare(cmd: object, want: Mapping[str, Any], got: Mapping[str, Any]) -> str | None:
    """The difference between the library's answer and the engine's, or None."""
    return difference(expected_answer(cmd, want), got) or own_choice_problem(cmd, got)


def _command(line: str) -> object:
    """The ``cmd`` of a request line, or None if it is no JSON object."""
    try:
        request = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return request.get("cmd") if isinstance(request, dict) else None


def _replay(engine: Engine, lines: Sequence[str]) -> str | None:
    """Send ``lines`` to a restarted engine and a fresh library: the first failure, or None."""
    engine.restart()
    library = LocalEngine()
    try:
        engine.send_line(_HELLO_LINE)
        for line in lines:
            want = library.send_line(line)
            found = _compare(_command(line), want, engine.send_line(line))
            if found is not None:
                return found
    except EngineError as exc:
        return _failed(exc)
    return None


def _failed(exc: EngineError) -> str:
    """An engine's failure in words: a crash (it exited, or wrote no answer), or no answer."""
    return f"{'crash' if isinstance(exc, EngineCrashed) else 'no answer'}: {exc}"


def _shrink(engine: Engine, lines: Sequence[str], signature: str) -> list[str]:
    """The shortest subsequence of ``lines`` found that still fails on ``signature``.

    Delta debugging: drop chunks of halving size while the rest still fails,
    down to single lines. If the whole match does not fail again on a
    restarted engine, it is returned unshrunk.
    """
    replays = 0

    def fails(candidate: Sequence[str]) -> bool:
        nonlocal replays
        replays += 1
        found = _replay(engine, candidate)
        return found is not None and _signature(found) == signature

    current = list(lines)
    if not fails(current):
        return current
    moving = _moving(current)  # first, keep only what moves the match, and the last line
    if len(moving) < len(current) and fails(moving):
        current = moving
    chunks = 2
    while len(current) > 1 and replays < MAX_REPLAYS:
        size = -(-len(current) // chunks)
        starts = range(0, len(current), size)
        for start in starts:  # try dropping each chunk
            candidate = current[:start] + current[start + size :]
            if candidate and replays < MAX_REPLAYS and fails(candidate):
                current = candidate
                chunks = max(chunks - 1, 2)
                break
        else:
            if size == 1:
                break
            chunks = min(len(current), chunks * 2)
    return current


class _Library(LocalEngine):
    """The library in-process, whose match the fuzzer may look at to bias its choices."""

    @property
    def state(self) -> MatchState | None:
        """The match under way, or None."""
        return self._session.state


def _fits_left(state: MatchState, move_index: int) -> int:
    """How many tiles off the table would fit after the legal move ``move_index``.

    A placement that ends the round (the match changes round) counts as many.
    """
    move = legal_moves(state)[move_index]
    after = apply(state, move)
    if after.round != state.round:
        return len(ALL_TILES)
    layout = after.layout
    return (FITTING_TILES[layout.value_mask] & ~layout.tile_mask).bit_count()


def _moving(lines: Sequence[str]) -> list[str]:
    """The lines that change the library's session (accepted ``new`` and moves), and the last."""
    library = LocalEngine()
    kept = []
    for index, line in enumerate(lines):
        answer = library.send_line(line)
        moves = answer["ok"] and _command(line) in ("new", "move")
        if moves or index == len(lines) - 1:
            kept.append(line)
    return kept


class _Match:
    """One fuzzed match: the requests sent so far, to the engine and to the library."""

    def __init__(
        self,
        engine: Engine,
        rng: _Random,
        seeded: bool,
        bias: bool | str,
        reached: dict[str, int],
    ) -> None:
        self.engine = engine
        self.library = _Library()
        self.rng = rng
        self.seeded = seeded
        self.bias = bias
        self.reached = reached
        self.lines: list[str] = []
        self.players = 2
        self.stock = 0

    def send(self, line: str, cmd: object) -> tuple[dict[str, Any], str | None]:
        """Send ``line`` to both; the library's answer, and the difference if there is one."""
        self.lines.append(line)
        want = self.library.send_line(line)
        try:
            got = self.engine.send_line(line)
        except EngineError as exc:
            return want, f"{_failed(exc)}\n  request: {line}\n  library: {text(want)}"
        found = _compare(cmd, want, got)
        if found is None:
            return want, None
        return want, f"{found}\n  request: {line}\n  library: {text(want)}\n  engine:  {text(got)}"

    def ask(self, request: Mapping[str, Any]) -> tuple[dict[str, Any], str | None]:
        if self.rng.chance(6):
            return self.send(self.written_oddly(request), request.get("cmd"))
        return self.send(json.dumps(request, separators=(",", ":")), request.get("cmd"))

    def written_oddly(self, request: Mapping[str, Any]) -> str:
        """``request`` written with JSON's corners that keep its meaning.

        JSON's other blanks (tab, carriage return) around the tokens, a
        character of a key or a string written as an escape (a key is
        compared as decoded), and a zero written ``-0``.
        """
        rng = self.rng
        items, keys, before, after = rng.choice(_BLANKS)
        line = json.dumps(request, separators=(items, keys))
        strings = [match for match in _STRING.finditer(line) if len(match.group()) > 2]
        if strings and rng.chance(70):
            token = rng.choice(strings)
            at = token.start() + 1 + rng.below(len(token.group()) - 2)
            if line[at].isalnum():  # not inside an escape the text already holds
                line = f"{line[:at]}\\u{ord(line[at]):04x}{line[at + 1 :]}"
        if rng.chance(30):
            line = _ZERO.sub(r"\1-0", line, count=1)
        return before + line + after

    def play(self, steps: int) -> tuple[int, str] | None:
        """Play the match; the number of the request that failed and the failure, or None."""
        found = self.prelude()
        if found is None:
            found = self.body(steps)
        return None if found is None else (len(self.lines), found)

    def prelude(self) -> str | None:
        """Before the match's ``new``: a restart and requests before any new, a refused new."""
        rng = self.rng
        if rng.chance(8):
            self.engine.restart()
            self.library.restart()
            for _ in range(1 + rng.below(3)):
                self.reached["before_new"] += 1
                _, found = self.one_of_many(None)
                if found:
                    return found
        if rng.chance(10):
            _, found = self.ask(rng.choice(_HELLOS))
            if found:
                return found
        if rng.chance(15):
            _, found = self.ask(self.refused_new())
            if found:
                return found
        return None

    def body(self, steps: int) -> str | None:
        """The ``new`` and the play, then a few requests past the end."""
        request = self.new_request()
        answer, found = self.ask(request)
        if found or not answer["ok"]:
            return found
        self.players = answer["players"]
        self.stock = answer["stock_size"]
        last: Sequence[str] = ()
        for _ in range(steps):
            legal, found = self.ask({"cmd": "legal"})
            if found:
                return found
            moves = legal.get("moves") if legal["ok"] else None
            if not moves:  # the match is won, or has outlasted its deals
                if not legal["ok"]:
                    self.reached["deals_ran_out"] += 1
                return self.past_the_end(last)
            last = moves
            found = self.one_request(moves)
            if found:
                return found
        return None

    def past_the_end(self, last: Sequence[str]) -> str | None:
        """A few requests after the match is won or its deals ran out: each must be answered."""
        for _ in range(1 + self.rng.below(4)):
            self.reached["past_the_end"] += 1
            kind = self.rng.below(4)
            if kind == 0:
                request: dict[str, Any] = {"cmd": "state"}
            elif kind == 1:
                request = {"cmd": "legal"}
            elif kind == 2 and last:
                move = self.rng.choice(last)
                request = {
                    "cmd": "move",
                    "move": self.odd_text(move) if self.rng.chance(40) else move,
                }
            else:
                request = {"cmd": "move", "move": self.rng.choice(("draw", "pass"))}
            _, found = self.ask(request)
            if found:
                return found
        return None

    def new_request(self) -> dict[str, Any]:
        """A new match: 2, 3 or 4 players, from deals or a seed, sometimes near the target."""
        rng = self.rng
        win = self.bias == "win"  # a biased match seeks a win, or else a blocked round
        players = 4 if self.bias and rng.chance(70) else rng.choice((2, 3, 4))
        request: dict[str, Any] = {"cmd": "new", "players": players}
        count = 1 + rng.below(2 if self.bias else 4)
        if self.seeded and rng.chance(40):
            request["seed"] = str(rng.below(1 << 63) * 2 + rng.below(2))
            if rng.chance(15):  # given deals first, with openers the seed may draw
                request["deals"] = [self.deal(players, optional=True) for _ in range(count)]
        else:
            request["deals"] = [self.deal(players) for _ in range(count)]
        if win or rng.chance(50):
            top = TARGET[players] // SCORE_UNIT
            if win or (not self.bias and rng.chance(30)):  # near the target: wins come soon
                request["scores"] = [
                    SCORE_UNIT * (top - 1 - rng.below(4)) for _ in range(side_count(players))
                ]
            else:
                request["scores"] = [
                    SCORE_UNIT * rng.below(top) for _ in range(side_count(players))
                ]
            request["round"] = 1 + rng.below(20)
        return request

    def deal(self, players: int, *, optional: bool = False) -> dict[str, Any]:
        """A random deal; with ``optional``, its opener sometimes null or left out."""
        tiles, self.rng.state = shuffled(ALL_TILES, self.rng.state)
        size = HAND_SIZE[players]
        hands = [list(tiles[k * size : (k + 1) * size]) for k in range(players)]
        if not self.rng.chance(30):  # else each hand as the shuffle left it: unsorted
            hands = [sorted(hand) for hand in hands]
        deal: dict[str, Any] = {
            "hands": [[tile_text(t) for t in hand] for hand in hands],
            "stock": [tile_text(t) for t in tiles[players * size :]],
            "opener": self.rng.below(players),
        }
        if optional and self.rng.chance(60):
            if self.rng.chance(50):
                deal["opener"] = None
            else:
                del deal["opener"]
        return deal

    def refused_new(self) -> dict[str, Any]:
        """A ``new`` that is refused: one of the robustness vectors', or a good one broken."""
        rng = self.rng
        refused = [request for _, request in BAD_REQUESTS if request.get("cmd") == "new"]
        players = rng.choice((2, 3, 4))
        short = self.deal(players)
        short["stock"] = short["stock"][:-1]
        refused += [
            {"cmd": "new", "players": players, "deals": None},
            {"cmd": "new", "players": players, "deals": []},
            {"cmd": "new", "players": players, "deals": [short]},
        ]
        if self.seeded:
            refused += [request for _, request in BAD_SEEDS]
            refused += [{"cmd": "new", "players": 2, "seed": seed} for _, seed in SEED_TEXTS]
            refused.append({"cmd": "new", "players": players, "deals": None, "seed": "1"})
        if rng.chance(50):
            return dict(rng.choice(refused))
        return self.broken_integers(self.new_request())

    def broken_integers(self, request: dict[str, Any]) -> dict[str, Any]:
        """``request`` with one integer made a float, a boolean, a string or null."""
        request = json.loads(json.dumps(request))
        holders: list[tuple[Any, Any]] = []

        def walk(value: Any) -> None:
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if type(item) is int:
                    holders.append((value, key))
                elif isinstance(item, dict | list):
                    walk(item)

        walk(request)
        if not holders:
            return request
        holder, key = self.rng.choice(holders)
        number = holder[key]
        holder[key] = self.rng.choice(
            (float(number), number + 0.5, True, False, str(number), None, [number])
        )
        return request

    def one_request(self, moves: Sequence[str]) -> str | None:
        """One random request in a match under way."""
        roll = self.rng.below(100)
        if roll < 68:
            move = self.pick(moves)
            answer, found = self.ask({"cmd": "move", "move": move})
            if answer.get("ok"):
                self.note(move, answer)
            return found
        if roll < 73:
            answer, found = self.ask({"cmd": "state"})
            if answer.get("ok"):
                self.stock = answer["stock_size"]
            return found
        if roll < 76 and "draw" not in moves:  # a draw while a placement is possible
            _, found = self.ask({"cmd": "move", "move": "draw"})
            return found
        if roll < 84:
            _, found = self.ask({"cmd": "move", "move": self.odd_text(self.rng.choice(moves))})
            return found
        return self.one_of_many(moves)[1]

    def one_of_many(self, moves: Sequence[str] | None) -> tuple[dict[str, Any], str | None]:
        """A request of any other kind: lines, refused requests, hello, table, settle."""
        rng = self.rng
        kind = rng.below(8)
        if kind == 0:
            return self.send(rng.choice(_LINES), None)
        if kind == 1:
            return self.ask(rng.choice([request for _, request in BAD_REQUESTS]))
        if kind == 2:
            return self.ask(rng.choice(_HELLOS))
        if kind == 3:
            return self.ask(self.refused_new())
        if kind == 4:
            return self.ask({"cmd": "table", "moves": self.table_moves()})
        if kind == 5:
            settle = self.settle_request()
            return self.ask(self.broken_integers(settle) if rng.chance(30) else settle)
        if kind == 6 or moves is None:
            cmd = rng.choice(("legal", "state", "move"))
            request = {"cmd": cmd, "move": self.odd_text("pass")} if cmd == "move" else {"cmd": cmd}
            return self.ask(request)
        move = self.odd_text(rng.choice(moves))
        return self.ask(self.broken_integers({"cmd": "move", "move": move, "n": 1}))

    def pick(self, moves: Sequence[str]) -> str:
        """A legal move; with ``bias``, ``draw`` whenever it is one, else one that may block.

        Seeking a blocked round, the placement chosen is mostly the one after
        which the fewest tiles off the table fit.
        """
        if self.bias and "draw" in moves and self.rng.chance(90):
            return "draw"
        state = self.library.state
        if self.bias is True and state is not None and len(moves) > 1 and self.rng.chance(80):
            legal = [move_text(move) for move in legal_moves(state)]
            if sorted(legal) == sorted(moves):
                best = min(range(len(legal)), key=lambda index: _fits_left(state, index))
                return legal[best]
        return self.rng.choice(moves)

    def note(self, move: str, answer: Mapping[str, Any]) -> None:
        """Count the rare positions a played move reached."""
        if self.stock == 0:
            self.reached["empty_stock"] += 1
        if move == "draw":
            self.stock -= 1
        end = answer.get("round_end")
        if end is not None:
            self.stock = -1  # unknown until the next state
            if end.get("end") == "blocked":
                self.reached["blocked_round"] += 1
        if answer.get("winner") is not None and has_partners(self.players) and answer["seat"] >= 2:
            self.reached["win_by_seat_2_or_3"] += 1

    def odd_text(self, legal: str) -> str:
        """A move text that is probably wrong, built from a legal one or from the grammar."""
        rng = self.rng
        kind = rng.below(6)
        if kind == 0:
            tile = self.tile_like()
            return (
                f"{tile} opens" if rng.chance(30) else f"{tile} on {self.tile_like()} {self.side()}"
            )
        if kind == 1:  # one character changed, added or removed
            where = rng.below(len(legal) + 1)
            char = rng.choice("[]|0123456789 _abdehilnoprsw")
            cut = where + rng.below(2)
            return legal[:where] + (char if rng.chance(70) else "") + legal[cut:]
        if kind == 2:  # a space doubled, or the text cased or padded
            return rng.choice(
                (legal.replace(" ", "  ", 1), legal.upper(), f" {legal}", f"{legal} ")
            )
        if kind == 3:  # the forms crossed
            tile, other, side = self.tile_like(), self.tile_like(), self.side()
            return rng.choice(
                (
                    f"{tile} on {other} on {self.tile_like()}",
                    f"{tile} on {other} {side} on {self.tile_like()} {self.side()}",
                    f"{tile} on {other} {side} opens",
                    f"{tile} opens on {other} {side}",
                    f"{tile} opens opens",
                    f"draw {tile}",
                    f"pass on {other} {side}",
                    f"{legal} opens",
                    f"{legal} on {other} {side}",
                )
            )
        if kind == 4:
            return self.mutated(legal)
        return rng.choice(("draw", "pass", "", " ", "on", "opens"))

    def mutated(self, legal: str) -> str:
        """``legal``'s words, one or two of them dropped, doubled, swapped or replaced."""
        rng = self.rng
        words = legal.split(" ")
        for _ in range(1 + rng.below(2)):
            where = rng.below(len(words))
            kind = rng.below(4)
            if kind == 0 and len(words) > 1:
                del words[where]
            elif kind == 1:
                words.insert(where, words[where])
            elif kind == 2 and where + 1 < len(words):
                words[where], words[where + 1] = words[where + 1], words[where]
            else:
                words[where] = rng.choice((*_WORDS, self.tile_like()))
        return " ".join(words)

    def tile_like(self) -> str:
        a, b = self.rng.below(10), self.rng.below(10)
        if self.rng.chance(70):
            a, b = min(a, b) % 7, max(a, b) % 7
            a, b = min(a, b), max(a, b)
        return f"[{a}|{b}]"

    def side(self) -> str:
        return self.rng.choice((*_SIDES, "middle", "LOW", ""))

    def table_moves(self) -> list[str]:
        """A random placement sequence on a bare table, often legal, sometimes not."""
        moves = []
        for index in range(self.rng.below(5)):
            tile = self.tile_like()
            if index == 0 and self.rng.chance(85):
                moves.append(f"{tile} opens")
            elif moves and self.rng.chance(15):  # a tile placed again
                moves.append(moves[-1])
            elif self.rng.chance(10):
                moves.append(self.odd_text(f"{tile} on {self.tile_like()} {self.side()}"))
            else:
                moves.append(f"{tile} on {self.tile_like()} {self.side()}")
        return moves

    def settle_request(self) -> dict[str, Any]:
        """A random settlement, sometimes with the wrong number of hands or scores."""
        rng = self.rng
        players = rng.choice((2, 3, 4))
        tiles, rng.state = shuffled(ALL_TILES, rng.state)
        hands = [
            [tile_text(t) for t in sorted(tiles[4 * k : 4 * k + rng.below(4)])]
            for k in range(players)
        ]
        empty = [seat for seat, hand in enumerate(hands) if not hand]
        finisher = rng.choice(empty) if empty and rng.chance(60) else None
        request: dict[str, Any] = {
            "cmd": "settle",
            "players": players,
            "hands": hands,
            "finisher": finisher,
        }
        if rng.chance(40):
            sides = side_count(players) + (rng.choice((-1, 1)) if rng.chance(25) else 0)
            request["scores"] = [SCORE_UNIT * rng.below(40) for _ in range(max(sides, 0))]
        if rng.chance(5):
            request["hands"] = hands[:-1] if rng.chance(50) else [*hands, []]
        return request
