"""A minimal engine for the protocol, written apart from the library: the base of the wrong engines.

It follows docs/rules.md and docs/protocol.md and imports nothing from
``american_sniff``, so that the kit is shown to check any engine, not just
ours. It lists legal moves and open points in its own order (newest tile
first), which the kit must accept. It deals matches from a seed with its own
SplitMix64 and shuffle, written from the description in docs/rules.md.

Run as a program it is a correct engine; the other files of this folder
subclass :class:`Rules` to break one rule each.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

Tile = tuple[int, int]
Point = tuple[Tile, str]

_TILE = re.compile(r"\[([0-6])\|([0-6])\]")
_SIDES = ("low", "high", "line_a", "line_b", "branch_a", "branch_b")
_TARGET = {2: 250, 3: 200, 4: 200}
#: The documented refusal order (docs/protocol.md): the first broken rule is reported.
ORDER = (
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
_MAX_ROUND = 1_000_000
#: The longest request line, its newline counted (docs/protocol.md: 1 MiB).
MAX_LINE_BYTES = 1 << 20
#: The deepest nesting of arrays and objects a request line may have.
MAX_DEPTH = 64
_MIN_SCORE = -1_000_000
_MASK = (1 << 64) - 1


class Refused(Exception):
    """An illegal move, with its refusal code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class BadRequest(Exception):
    """A request the engine answers with an error kind other than illegal_move."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def text(tile: Tile) -> str:
    """A tile as the protocol writes it."""
    return f"[{tile[0]}|{tile[1]}]"


def point_text(point: Point) -> str:
    """A point as the protocol writes it."""
    return f"{text(point[0])} {point[1]}"


def read_tile(word: str, code: str = "not_a_tile") -> Tile:
    """The tile written ``word``, or a refusal with ``code``."""
    match = _TILE.fullmatch(word)
    if match is None or int(match.group(1)) > int(match.group(2)):
        raise Refused(code, f"not a tile: {word!r}")
    return (int(match.group(1)), int(match.group(2)))


def read_move(move: str) -> tuple[str, Tile | None, Point | None, set[str]]:
    """("draw" | "pass" | "place" | "none", tile, point, the text's broken rules).

    It follows the reading of the move-text grammar in docs/protocol.md, step by step.
    """
    if move in ("draw", "pass"):
        return move, None, None, set()
    if move.endswith(" opens"):
        tile = _tile_or_none(move[: -len(" opens")])
        return "place", tile, None, set() if tile is not None else {"not_a_tile"}
    tile_word, on, rest = move.partition(" on ")
    if not on:
        return "none", None, None, {"not_a_move"}
    tile = _tile_or_none(tile_word)
    broken = set() if tile is not None else {"not_a_tile"}
    where, _, side = rest.partition(" ")
    at = _tile_or_none(where)
    if at is None or side not in _SIDES or (at[0] == at[1]) != (side not in ("low", "high")):
        return "place", tile, None, broken | {"not_a_point"}
    return "place", tile, (at, side), broken


def _tile_or_none(word: str) -> Tile | None:
    try:
        return read_tile(word)
    except Refused:
        return None


def value(point: Point) -> int:
    """The number a tile placed on ``point`` must show."""
    tile, side = point
    return tile[1] if side == "high" else tile[0]


def rounded(pips: int) -> int:
    """Pips rounded to the nearest five (1-2 down, 3-4 up)."""
    remainder = pips % 5
    return pips - remainder if remainder < 3 else pips - remainder + 5


class Rules:
    """The rule decisions the wrong engines change: each is one method or attribute."""

    #: The order in which broken rules are reported.
    order: tuple[str, ...] = ORDER
    #: How a move's text is read.
    read_move = staticmethod(read_move)

    def first(self, broken: set[str]) -> str:
        """The refusal code reported for the broken rules."""
        return min(broken, key=self.order.index)

    def opener(self, dealt: int, finisher: int | None) -> int:
        """Who opens a round: the finisher of the round before, else the deal's lot."""
        return dealt if finisher is None else finisher

    def branches_open(self, joined: set[str]) -> bool:
        """Whether the Sniff offers its branches, given its joined sides."""
        return "line_a" in joined and "line_b" in joined

    def terminal_worth(self, half: int) -> int:
        """What a terminal double of ``half`` pips a half adds to the sum."""
        return 2 * half

    def winning_side(self, seat: int, players: int) -> int:
        """The side that wins when ``seat`` reaches the target: with four, seat % 2."""
        return seat % 2 if players == 4 else seat

    def blocked(self, can_place: Callable[[int], bool], mover: int, players: int) -> bool:
        """Whether the round is blocked (the stock is empty): no seat at all can place."""
        return not any(can_place(seat) for seat in range(players))

    def hand_order(self, hand: list[Tile], given: bool) -> list[Tile]:
        """A hand as dealt (``given`` in a new request, else from the seed): sorted."""
        return sorted(hand)

    def below(self, n: int, state: int) -> tuple[int, int]:
        """The dealer's unbiased integer below ``n``, redrawing outputs past the limit."""
        return _below(n, state)

    def settle(
        self, players: int, hands: list[list[Tile]], finisher: int | None, scores: list[int]
    ) -> tuple[list[int], list[int], list[int]]:
        """(deductions, side totals, scores after) of a round's settlement."""
        deductions = [rounded(sum(a + b for a, b in hand)) for hand in hands]
        totals = [0] * len(scores)
        for seat, amount in enumerate(deductions):
            totals[seat % 2 if players == 4 else seat] += amount
        return deductions, totals, [s - t for s, t in zip(scores, totals, strict=True)]


class Table:
    """The tiles on the table, with the sides each one has joined."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.tiles: list[Tile] = []
        self.joined: dict[Tile, set[str]] = {}
        self.sniff: Tile | None = None

    def points(self) -> Iterator[Point]:
        """The legal connection points, newest tile first."""
        for tile in reversed(self.tiles):
            joined = self.joined[tile]
            if tile[0] != tile[1]:
                sides: tuple[str, ...] = ("low", "high")
            elif tile == self.sniff and self.rules.branches_open(joined):
                sides = ("line_a", "line_b", "branch_a", "branch_b")
            else:
                sides = ("line_a", "line_b")
            for side in sides:
                if side not in joined:
                    yield (tile, side)

    def contributions(self) -> list[tuple[Point, int]]:
        """Every counted scoring end and its worth."""
        result = []
        for tile in self.tiles:
            joined = self.joined[tile]
            free = [side for side in ("line_a", "line_b") if side not in joined]
            if tile[0] != tile[1]:
                for side in ("low", "high"):
                    if side not in joined:
                        result.append(((tile, side), value((tile, side))))
            elif free and (tile == self.sniff or free == ["line_b"]):
                result.append(((tile, free[0]), self.rules.terminal_worth(tile[0])))
            elif tile == self.sniff:
                for side in ("branch_a", "branch_b"):
                    if side not in joined:
                        result.append(((tile, side), tile[0]))
        return result

    def end_sum(self) -> int:
        """The sum of the contributions."""
        return sum(worth for _, worth in self.contributions())

    def broken(self, tile: Tile, at: Point | None) -> set[str]:
        """The rules the placement of ``tile`` on ``at`` breaks."""
        broken = set()
        if tile in self.joined:
            broken.add("already_on_table")
        if at is None:
            if self.tiles:
                broken.add("point_required")
            return broken
        if not self.tiles:
            broken.add("opening_has_no_point")
        if at not in set(self.points()):
            broken.add("point_not_open")
        if value(at) not in tile:
            broken.add("values_differ")
        return broken

    def place(self, tile: Tile, at: Point | None) -> None:
        """Place ``tile`` on ``at`` (None for the opening), or refuse it."""
        broken = self.broken(tile, at)
        if broken:
            raise Refused(self.rules.first(broken), "the placement breaks a rule")
        double = tile[0] == tile[1]
        if double and self.sniff is None:
            self.sniff = tile
        self.tiles.append(tile)
        if at is None:
            self.joined[tile] = set()
            return
        self.joined[at[0]].add(at[1])
        if double:
            self.joined[tile] = {"line_a"}
        else:
            self.joined[tile] = {"low" if tile[0] == value(at) else "high"}

    def fits(self, tile: Tile) -> list[Point]:
        """The open points ``tile`` can be placed on."""
        return [point for point in self.points() if value(point) in tile]

    def facts(self) -> dict[str, Any]:
        """The table as the protocol reports it."""
        return {
            "open_points": [point_text(p) for p in self.points()],
            "contributions": [
                {"point": point_text(p), "value": worth} for p, worth in self.contributions()
            ],
            "end_sum": self.end_sum(),
        }


class Match:
    """A match from given deals: every rule of a round, and the rounds that follow."""

    def __init__(  # noqa: PLR0913, PLR0917 - a match's whole setup
        self,
        rules: Rules,
        players: int,
        deals: list[dict[str, Any]],
        scores: list[int],
        first: int,
        dealer: Dealer | None = None,
    ) -> None:
        self.rules = rules
        self.dealer = dealer
        self.players = players
        self.deals = deals
        self.scores = scores
        self.round = first - 1
        self.winner: int | None = None
        self.dealt_out = False
        self.deal(None)

    def side(self, seat: int) -> int:
        """The scoring side of ``seat``."""
        return seat % 2 if self.players == 4 else seat

    def deal(self, finisher: int | None) -> None:
        """Start the next round from the next deal."""
        self.round += 1
        given = bool(self.deals)
        if self.deals:
            deal = self.deals.pop(0)
            if deal.get("opener") is None and finisher is None:
                # A lot is due (no one went out): the seed draws it. After a
                # domino the finisher opens and the generator is left alone.
                assert self.dealer is not None
                deal = {**deal, "opener": self.dealer.lot()}
        elif self.dealer is not None:
            deal = self.dealer.deal(finisher is None)
        else:
            self.dealt_out = True
            return
        self.hands = [
            self.rules.hand_order([read_tile(t) for t in hand], given) for hand in deal["hands"]
        ]
        self.stock = [read_tile(t) for t in deal["stock"]]
        dealt: int | None = deal.get("opener")
        if dealt is None:  # no lot was due: the finisher opens
            assert finisher is not None
            dealt = finisher
        self.opener = self.rules.opener(dealt, finisher)
        self.turn = self.opener
        self.table = Table(self.rules)
        self.drawn: Tile | None = None

    def can_place(self, seat: int) -> bool:
        """Whether ``seat`` holds a tile that fits."""
        return any(self.table.fits(tile) for tile in self.hands[seat])

    def legal(self) -> list[str]:
        """The legal moves of the player to move."""
        if self.winner is not None:
            return []
        hand = self.hands[self.turn]
        if not self.table.tiles:
            return [f"{text(tile)} opens" for tile in reversed(hand)]
        tiles = hand if self.drawn is None else [self.drawn]
        moves = [
            f"{text(t)} on {point_text(p)}" for t in reversed(tiles) for p in self.table.fits(t)
        ]
        if moves:
            return moves
        return ["draw"] if self.stock else ["pass"]

    def move(self, move: str) -> dict[str, Any]:
        """Apply ``move`` and return the protocol's answer."""
        kind, tile, at, broken = self.rules.read_move(move)
        seat = self.turn
        if self.winner is not None:
            broken.add("match_over")
        elif kind == "place" and tile is not None:
            if tile not in self.hands[seat]:
                broken.add("not_in_hand")
            if self.drawn is not None and tile != self.drawn:
                broken.add("must_place_drawn")
            if "not_a_point" not in broken:
                broken |= self.table.broken(tile, at)
        elif kind in ("draw", "pass"):
            if self.drawn is not None:
                broken.add("must_place_drawn")
            if not self.table.tiles or self.can_place(seat):
                broken.add("must_place")
            if kind == "draw" and not self.stock:
                broken.add("stock_empty")
            if kind == "pass" and self.stock and not self.can_place(seat):
                broken.add("must_draw")
        if broken:
            raise Refused(self.rules.first(broken), f"{move!r} breaks a rule")
        answer: dict[str, Any] = {"seat": seat, "move": move, "tile": None}
        answer.update(end_sum=None, points=None, round_end=None)
        if kind == "place":
            assert tile is not None
            self.table.place(tile, at)
            self.hands[seat].remove(tile)
            self.drawn = None
            total = self.table.end_sum()
            points = total if total > 0 and total % 5 == 0 else 0
            self.scores[self.side(seat)] += points
            answer.update(end_sum=total, points=points)
            if self.scores[self.side(seat)] >= _TARGET[self.players]:
                self.winner = self.rules.winning_side(seat, self.players)
            elif not self.hands[seat]:
                answer["round_end"] = self.end_round("domino", seat)
            elif not self.stock and self.rules.blocked(self.can_place, seat, self.players):
                answer["round_end"] = self.end_round("blocked", None)
            else:
                self.turn = (seat + 1) % self.players
        elif kind == "draw":
            drawn = self.stock.pop(0)
            self.hands[seat] = sorted([*self.hands[seat], drawn])
            answer["tile"] = text(drawn)
            if self.table.fits(drawn):
                self.drawn = drawn
            elif not self.stock and self.rules.blocked(self.can_place, seat, self.players):
                answer["round_end"] = self.end_round("blocked", None)
        else:
            self.turn = (seat + 1) % self.players
        answer.update(scores=list(self.scores), winner=self.winner, round=self.round)
        answer["turn"] = self.shown_turn(answer["round_end"])
        return answer

    def shown_turn(self, round_end: dict[str, Any] | None) -> int | None:
        """The turn a move answer shows: null once the match is won or its deals ran out."""
        return None if self.winner is not None or self.dealt_out else self.turn

    def end_round(self, end: str, finisher: int | None) -> dict[str, Any]:
        """Settle the round and deal the next; the round_end answer."""
        deductions, _, self.scores = self.rules.settle(
            self.players, self.hands, finisher, self.scores
        )
        result = {"round": self.round, "end": end, "finisher": finisher}
        result["hands"] = [[text(t) for t in hand] for hand in self.hands]
        result.update(deductions=deductions, scores=list(self.scores))
        self.deal(finisher)
        return result

    def state(self) -> dict[str, Any]:
        """The public facts of the match."""
        return {
            "players": self.players,
            "round": self.round,
            "opener": self.opener,
            "turn": None if self.winner is not None else self.turn,
            "target": _TARGET[self.players],
            "scores": list(self.scores),
            "winner": self.winner,
            "hand_sizes": [len(hand) for hand in self.hands],
            "stock_size": len(self.stock),
            "table": self.table.facts(),
        }


def _int(value: object) -> bool:
    return type(value) is int


def _nullable(check: Callable[[object], bool]) -> Callable[[object], bool]:
    return lambda value: value is None or check(value)


def _list_of(check: Callable[[object], bool]) -> Callable[[object], bool]:
    return lambda value: type(value) is list and all(check(item) for item in value)


def _str(value: object) -> bool:
    return type(value) is str


def _deal(value: object) -> bool:
    return (
        type(value) is dict
        and set(value) <= {"hands", "stock", "opener"}
        and {"hands", "stock"} <= set(value)
        and _list_of(_list_of(_str))(value["hands"])
        and _list_of(_str)(value["stock"])
        and _nullable(_int)(value.get("opener"))
    )


#: Each command's keys: (required, the check of the value).
_REQUESTS: dict[str, dict[str, tuple[bool, Callable[[object], bool]]]] = {
    "hello": {"protocol_version": (True, _int), "rules_version": (False, _nullable(_str))},
    "new": {
        "players": (True, _int),
        "deals": (False, _list_of(_deal)),
        "seed": (False, _nullable(_str)),
        "scores": (False, _nullable(_list_of(_int))),
        "round": (False, _nullable(_int)),
    },
    "legal": {},
    "move": {"move": (True, _str)},
    "state": {},
    "table": {"moves": (True, _list_of(_str))},
    "settle": {
        "players": (True, _int),
        "hands": (True, _list_of(_list_of(_str))),
        "finisher": (False, _nullable(_int)),
        "scores": (False, _nullable(_list_of(_int))),
    },
    "quit": {},
}


def check_request(request: dict[str, Any]) -> None:
    """Refuse a request whose command or keys are not the protocol's."""
    cmd = request.get("cmd")
    keys = _REQUESTS.get(cmd) if isinstance(cmd, str) else None
    if keys is None:
        raise BadRequest("bad_request", f"unknown cmd {cmd!r}")
    for key in request:
        if key != "cmd" and key not in keys:
            raise BadRequest("bad_request", f"unknown key {key!r}")
    for key, (required, check) in keys.items():
        if key not in request:
            if required:
                raise BadRequest("bad_request", f"missing key {key!r}")
        elif not check(request[key]):
            raise BadRequest("bad_request", f"{key} has the wrong type")


def _no_float(text: str) -> Any:
    raise ValueError(f"not an integer: {text}")


def _safe_int(text: str) -> int:
    number = int(text)
    if abs(number) > (1 << 53) - 1:
        raise ValueError(f"{text} is beyond 2**53 - 1")
    return number


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise ValueError("a key appears twice")
    return result


def depth(line: str) -> int:
    """How deeply the arrays and objects of a JSON text nest (strings skipped)."""
    deepest = level = 0
    for bracket in re.findall(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', line):
        if bracket in "[{":
            level += 1
            deepest = max(deepest, level)
        elif bracket in "]}":
            level -= 1
    return deepest


def parse_line(line: str) -> Any:
    """A request line's JSON, read as strictly as the protocol asks, nesting bounded."""
    if depth(line) > MAX_DEPTH:
        raise ValueError(f"the line nests deeper than {MAX_DEPTH}")
    return parse_unbounded(line)


def parse_unbounded(line: str) -> Any:
    """A request line's JSON, read strictly, however deeply it nests."""
    if not line.strip():
        raise ValueError("the line is empty")
    return json.loads(
        line,
        parse_float=_no_float,
        parse_int=_safe_int,
        parse_constant=_no_float,
        object_pairs_hook=_pairs,
    )


def _next(state: int) -> tuple[int, int]:
    """One SplitMix64 step: (output, state)."""
    state = (state + 0x9E3779B97F4A7C15) & _MASK
    z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31), state


def _below(n: int, state: int) -> tuple[int, int]:
    limit = (1 << 64) - (1 << 64) % n
    while True:
        out, state = _next(state)
        if out < limit:
            return out % n, state


class Dealer:
    """Deals rounds from a seed, as docs/rules.md and american_sniff.rng describe."""

    def __init__(
        self, seed: int, players: int, below: Callable[[int, int], tuple[int, int]] = _below
    ) -> None:
        self.state = seed
        self.players = players
        self.below = below

    def lot(self) -> int:
        """The opener drawn by lot."""
        opener, self.state = self.below(self.players, self.state)
        return opener

    def deal(self, lot_due: bool) -> dict[str, Any]:
        """The next round's deal; its opener drawn by lot if one is due."""
        tiles = [(a, b) for a in range(7) for b in range(a, 7)]
        for i in range(len(tiles) - 1, 0, -1):
            j, self.state = self.below(i + 1, self.state)
            tiles[i], tiles[j] = tiles[j], tiles[i]
        size = {2: 7, 3: 6, 4: 5}[self.players]
        hands = [tiles[k * size : (k + 1) * size] for k in range(self.players)]
        opener = self.lot() if lot_due else 0
        return {
            "hands": [[text(t) for t in hand] for hand in hands],
            "stock": [text(t) for t in tiles[self.players * size :]],
            "opener": opener,
        }


class Engine:
    """Answers protocol requests with :class:`Rules` (or a subclass)."""

    #: How a request line is read.
    parse = staticmethod(parse_line)
    #: The match a ``new`` request starts.
    match_class: type[Match] = Match
    #: How a request's command and keys are checked.
    check = staticmethod(check_request)

    def __init__(self, rules: Rules, name: str) -> None:
        self.rules = rules
        self.name = name
        self.match: Match | None = None

    def current(self) -> Match:
        """The match being played, if it can go on."""
        if self.match is None:
            raise BadRequest("no_match", "no match yet")
        if self.match.dealt_out:
            raise BadRequest("no_deal", "the match outlasted its deals")
        return self.match

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        """The answer to one request (without ok)."""
        handlers: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "hello": self.hello,
            "new": self.new,
            "legal": lambda _: {"moves": self.current().legal()},
            "move": lambda r: self.current().move(r["move"]),
            "state": lambda _: self.current().state(),
            "table": self.table,
            "settle": self.settle,
            "quit": lambda _: {"quit": True},
        }
        return handlers[request["cmd"]](request)

    def hello(self, request: dict[str, Any]) -> dict[str, Any]:
        """The handshake."""
        if request.get("protocol_version") != 1 or request.get("rules_version") not in (None, "1"):
            raise BadRequest("unsupported", "protocol version 1 and rules version 1 only")
        return {
            "protocol": "american-sniff/engine",
            "protocol_version": 1,
            "rules_version": "1",
            "engine": self.name,
            "features": ["seed"],
        }

    def new(self, request: dict[str, Any]) -> dict[str, Any]:
        """Start a match from the request's deals, then its seed."""
        players = request["players"]
        if players not in _TARGET:
            raise BadRequest("invalid_deal", "players must be 2, 3 or 4")
        seed = request.get("seed")
        if seed is not None and not self.seed_ok(seed):
            raise BadRequest("invalid_deal", f"bad seed {seed!r}")
        deals = list(request.get("deals", []))
        if seed is None and self.lacks_deals(request):
            raise BadRequest("invalid_deal", "no deals and no seed")
        for deal in deals:
            self.check_deal(deal, players, seed is not None)
        sides = 2 if players == 4 else players
        scores = request.get("scores")
        scores = [0] * sides if scores is None else scores
        if len(scores) != sides or any(
            s % 5 or not _MIN_SCORE <= s < _TARGET[players] for s in scores
        ):
            raise BadRequest("invalid_deal", f"bad scores {scores}")
        first = request.get("round")
        first = 1 if first is None else first
        if not 1 <= first <= _MAX_ROUND:
            raise BadRequest("invalid_deal", f"bad round {first}")
        dealer = None if seed is None else Dealer(int(seed), players, self.rules.below)
        self.match = self.match_class(self.rules, players, deals, list(scores), first, dealer)
        return self.match.state()

    @staticmethod
    def seed_ok(seed: str) -> bool:
        """Whether a seed's text is ASCII digits of 0 to 2**64 - 1, without a leading zero."""
        return re.fullmatch(r"0|[1-9][0-9]*", seed) is not None and int(seed) <= _MASK

    @staticmethod
    def lacks_deals(request: dict[str, Any]) -> bool:
        """Whether a new request gives no deal (missing or empty)."""
        return not request.get("deals")

    def check_deal(self, deal: dict[str, Any], players: int, seeded: bool) -> None:
        """Refuse a deal that is not one of the whole set to ``players`` players."""
        size = {2: 7, 3: 6, 4: 5}[players]
        try:
            tiles = [read_tile(t) for hand in deal["hands"] for t in hand]
            tiles += [read_tile(t) for t in deal["stock"]]
        except Refused:
            raise BadRequest("invalid_deal", "a tile is not a tile") from None
        opener = deal.get("opener")
        if (
            len(deal["hands"]) != players
            or any(len(hand) != size for hand in deal["hands"])
            or len(set(tiles)) != 28
            or len(tiles) != 28
            or (opener is None and not seeded)
            or (opener is not None and not 0 <= opener < players)
        ):
            raise BadRequest("invalid_deal", "the deal is not a deal")

    def table(self, request: dict[str, Any]) -> dict[str, Any]:
        """The table after the request's placements."""
        table = Table(self.rules)
        for index, move in enumerate(request["moves"]):
            try:
                kind, tile, at, broken = self.rules.read_move(move)
                if kind in ("draw", "pass"):
                    raise BadRequest("bad_request", "a table takes placements only")
                if tile is not None and "not_a_point" not in broken:
                    broken |= table.broken(tile, at)
                if broken:
                    raise Refused(self.rules.first(broken), f"{move!r} breaks a rule")
                assert tile is not None
                table.place(tile, at)
            except Refused as refused:
                refused.index = index  # type: ignore[attr-defined]
                raise
        total = table.end_sum()
        return {**table.facts(), "points": total if total > 0 and total % 5 == 0 else 0}

    def settle(self, request: dict[str, Any]) -> dict[str, Any]:
        """The settlement of the request's hands."""
        players = request["players"]
        if players not in _TARGET or len(request["hands"]) != players:
            raise BadRequest("bad_request", "one hand per seat of 2, 3 or 4")
        try:
            hands = [[read_tile(t) for t in hand] for hand in request["hands"]]
        except Refused:
            raise BadRequest("bad_request", "a tile is not a tile") from None
        every = [tile for hand in hands for tile in hand]
        finisher = request.get("finisher")
        if len(set(every)) != len(every) or (
            finisher is not None and (not 0 <= finisher < players or hands[finisher])
        ):
            raise BadRequest("bad_request", "a tile twice, or a finisher holding tiles")
        scores = request.get("scores")
        scores = [0] * (2 if players == 4 else players) if scores is None else scores
        self.check_scores(scores, players)
        deductions, totals, after = self.rules.settle(
            players, hands, request.get("finisher"), list(scores)
        )
        return {"deductions": deductions, "side_totals": totals, "scores": after}

    def check_scores(self, scores: list[int], players: int) -> None:
        """Refuse the scores of a settle request unless there is one per side."""
        if len(scores) != (2 if players == 4 else players):
            raise BadRequest("bad_request", "settle needs one score per side")

    def raw_line(self, data: bytes) -> dict[str, Any]:
        """The answer to one line as bytes (without its newline): bad_json unless UTF-8."""
        try:
            line = self.decode(data)
        except UnicodeDecodeError:
            return {"ok": False, "error": "bad_json", "message": "not UTF-8"}
        return self.line(line)

    @staticmethod
    def decode(data: bytes) -> str:
        """A line's text: its bytes read as UTF-8, strictly."""
        return data.decode("utf-8")

    def line(self, line: str) -> dict[str, Any]:
        """The answer to one request line (without its newline)."""
        try:
            try:
                if len(line.encode("utf-8")) + 1 > MAX_LINE_BYTES:
                    raise ValueError("the line is longer than 1 MiB, its newline counted")
                request = self.parse(line)
            except ValueError as exc:  # JSONDecodeError is a ValueError too
                raise BadRequest("bad_json", str(exc)) from None
            if not isinstance(request, dict):
                raise BadRequest("bad_json", "a request is a JSON object")
            self.check(request)
            return {"ok": True, **self.answer(request)}
        except Refused as refused:
            answer = {"ok": False, "error": "illegal_move", "code": refused.code}
            answer["message"] = str(refused)
            if hasattr(refused, "index"):
                answer["index"] = refused.index
            return answer
        except BadRequest as bad:
            return {"ok": False, "error": bad.kind, "message": str(bad)}
        except Exception as exc:  # an engine answers every line
            return {"ok": False, "error": "internal", "message": repr(exc)}


def serve(rules: Rules, name: str, engine: Engine | None = None) -> None:
    """Answer the requests on standard input until quit or its end (with ``engine`` if given)."""
    engine = Engine(rules, name) if engine is None else engine
    for raw in sys.stdin.buffer:
        answer = engine.raw_line(raw.removesuffix(b"\n"))
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
        if answer.get("ok") and answer.get("quit"):
            break


if __name__ == "__main__":
    serve(Rules(), "minimal (tests/wrong_engines, correct)")
