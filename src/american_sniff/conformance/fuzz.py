"""The lockstep fuzzer: random matches played in an engine and in the library at once.

:func:`fuzz` plays ``matches`` random matches. Each request goes to the engine
and to the library's own session; the engine's answer must match the
library's by the rules of :mod:`~american_sniff.conformance.compare` (every
field, the engine's own choices aside). The requests are mostly legal moves
chosen at random, mixed with ``legal`` and ``state`` requests, illegal moves,
texts that break the move grammar in small ways, malformed lines, bare
``table`` requests and ``settle`` requests. The fuzzer stops at the first
difference and reports every request line of that match, from its ``new``,
so that the failure can be replayed by piping the lines to the engine.

Every random choice comes from SplitMix64 (:mod:`american_sniff.rng`), so a
seed gives the same requests on every machine.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import attrs

from ..rng import MASK64, below, shuffled
from ..rules import TARGET, side_count
from ..serial import tile_text
from ..tiles import ALL_TILES
from .compare import difference, expected_answer, own_choice_problem, text
from .kit import Engine, LocalEngine, handshake

__all__ = ["DEFAULT_STEPS", "FuzzReport", "fuzz"]

#: The most requests of one match.
DEFAULT_STEPS = 400
_T = TypeVar("_T")
_SIDES = ("low", "high", "line_a", "line_b", "branch_a", "branch_b")
_HAND = {2: 7, 3: 6, 4: 5}
_HELLO = {"cmd": "hello", "protocol_version": 1}
_BAD_LINES = (
    "",
    "{",
    "[]",
    '{"cmd": "legal", "cmd": "state"}',
    '{"cmd": "move", "move": "draw", "x": 1.5}',
    '{"cmd": "new", "players": 9007199254740992}',
    '\ufeff{"cmd": "legal"}',
    '{"cmd": "legal", "extra": true}',
    '{"cmd": "jump"}',
    '{"cmd": "move"}',
    '{"cmd": "move", "move": 4}',
)


@attrs.frozen
class FuzzReport:
    """The outcome of a fuzzing run.

    :ivar seed: The seed the run started from.
    :ivar matches: How many matches were played (the last one failed, if any did).
    :ivar requests: How many requests were sent in all.
    :ivar difference: The first difference, in words (the step, the field, the
        request and both answers); None if the engine agreed throughout.
    :ivar lines: A ``hello`` line, then every request line of the failing
        match from its ``new``, for replay; empty if there was no difference.
    """

    seed: int
    matches: int
    requests: int
    difference: str | None = None
    lines: tuple[str, ...] = ()

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


def fuzz(
    engine: Engine,
    matches: int,
    seed: int = 0,
    *,
    steps: int = DEFAULT_STEPS,
    progress: Callable[[int], None] | None = None,
) -> FuzzReport:
    """Play ``matches`` random matches in ``engine`` and the library in lockstep.

    The engine's ``hello`` decides whether matches are also dealt from seeds
    (with the ``seed`` feature) or always from given deals. ``progress`` is
    called with each match's number once it has been played.

    >>> fuzz(LocalEngine(), 3, seed=5).summary()  # doctest: +ELLIPSIS
    'fuzz: no difference in 3 matches, ... requests (seed 5)'

    :raises EngineError: if the engine fails the handshake or stops answering.
    """
    hello = handshake(engine)
    seeded = "seed" in hello["features"]
    rng = _Random(seed)
    total = 0
    for number in range(1, matches + 1):
        game = _Match(engine, rng, seeded)
        found = game.play(steps)
        total += len(game.lines)
        if found is not None:
            hello_line = json.dumps(_HELLO, separators=(",", ":"))
            return FuzzReport(seed, number, total, found, (hello_line, *game.lines))
        if progress is not None:
            progress(number)
    return FuzzReport(seed, matches, total)


class _Match:
    """One fuzzed match: the requests sent so far, to the engine and to the library."""

    def __init__(self, engine: Engine, rng: _Random, seeded: bool) -> None:
        self.engine = engine
        self.library = LocalEngine()
        self.rng = rng
        self.seeded = seeded
        self.lines: list[str] = []

    def send(self, line: str, cmd: object) -> tuple[dict[str, Any], str | None]:
        """Send ``line`` to both; the library's answer, and the difference if there is one."""
        self.lines.append(line)
        want = self.library.send_line(line)
        got = self.engine.send_line(line)
        found = difference(expected_answer(cmd, want), got) or own_choice_problem(cmd, got)
        if found is None:
            return want, None
        return want, (
            f"request {len(self.lines)}: {found}\n  request: {line}\n"
            f"  library: {text(want)}\n  engine:  {text(got)}"
        )

    def ask(self, request: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        return self.send(json.dumps(request, separators=(",", ":")), request.get("cmd"))

    def play(self, steps: int) -> str | None:
        """Play the match; the first difference, or None."""
        answer, found = self.ask(self.new_request())
        if found or not answer["ok"]:
            return found
        for _ in range(steps):
            legal, found = self.ask({"cmd": "legal"})
            if found:
                return found
            moves = legal.get("moves") if legal["ok"] else None
            if not moves:  # the match is over or has outlasted its deals
                _, found = self.ask({"cmd": "move", "move": "pass"})
                return found
            _, found = self.one_request(moves)
            if found:
                return found
        return None

    def new_request(self) -> dict[str, Any]:
        """A new match: 2, 3 or 4 players, from deals or a seed, sometimes near the target."""
        players = self.rng.choice((2, 3, 4))
        request: dict[str, Any] = {"cmd": "new", "players": players}
        if self.seeded and self.rng.chance(40):
            request["seed"] = str(self.rng.below(1 << 63) * 2 + self.rng.below(2))
        else:
            request["deals"] = [self.deal(players) for _ in range(1 + self.rng.below(4))]
        if self.rng.chance(50):
            top = TARGET[players] // 5
            request["scores"] = [5 * self.rng.below(top) for _ in range(side_count(players))]
            request["round"] = 1 + self.rng.below(20)
        return request

    def deal(self, players: int) -> dict[str, Any]:
        tiles, self.rng.state = shuffled(ALL_TILES, self.rng.state)
        size = _HAND[players]
        hands = [sorted(tiles[k * size : (k + 1) * size]) for k in range(players)]
        return {
            "hands": [[tile_text(t) for t in hand] for hand in hands],
            "stock": [tile_text(t) for t in tiles[players * size :]],
            "opener": self.rng.below(players),
        }

    def one_request(self, moves: Sequence[str]) -> tuple[dict[str, Any], str | None]:
        """One random request in a match under way."""
        roll = self.rng.below(100)
        if roll < 70:
            return self.ask({"cmd": "move", "move": self.rng.choice(moves)})
        if roll < 76:
            return self.ask({"cmd": "state"})
        if roll < 86:
            return self.ask({"cmd": "move", "move": self.odd_text(self.rng.choice(moves))})
        if roll < 90:
            return self.send(self.rng.choice(_BAD_LINES), None)
        if roll < 96:
            return self.ask({"cmd": "table", "moves": self.table_moves()})
        return self.ask(self.settle_request())

    def odd_text(self, legal: str) -> str:
        """A move text that is probably wrong: a random move, or a legal one slightly broken."""
        rng = self.rng
        kind = rng.below(4)
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
        return rng.choice(("draw", "pass"))

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
            else:
                moves.append(f"{tile} on {self.tile_like()} {self.side()}")
        return moves

    def settle_request(self) -> dict[str, Any]:
        players = self.rng.choice((2, 3, 4))
        tiles, self.rng.state = shuffled(ALL_TILES, self.rng.state)
        hands = [
            [tile_text(t) for t in sorted(tiles[4 * k : 4 * k + self.rng.below(4)])]
            for k in range(players)
        ]
        empty = [seat for seat, hand in enumerate(hands) if not hand]
        finisher = self.rng.choice(empty) if empty and self.rng.chance(60) else None
        return {"cmd": "settle", "players": players, "hands": hands, "finisher": finisher}
