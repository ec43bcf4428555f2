"""A minimal engine for the protocol, written apart from the library: the base of the wrong engines.

It follows docs/rules.md and docs/protocol.md and imports nothing from
``american_sniff``, so that the kit is shown to check any engine, not just
ours. It lists legal moves and open points in its own order (newest tile
first), which the kit must accept. It deals no match from a seed.

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


def read_move(move: str) -> tuple[str, Tile | None, Point | None]:
    """("draw" | "pass" | "place", tile, point) of a move's text."""
    if move in ("draw", "pass"):
        return move, None, None
    if move.endswith(" opens"):
        return "place", read_tile(move[: -len(" opens")]), None
    tile_word, on, point_word = move.partition(" on ")
    if not on:
        raise Refused("not_a_move", f"not a move: {move!r}")
    tile = read_tile(tile_word)
    where, _, side = point_word.partition(" ")
    at = read_tile(where, "not_a_point")
    double = at[0] == at[1]
    if side not in _SIDES or double != (side not in ("low", "high")):
        raise Refused("not_a_point", f"not a point: {point_word!r}")
    return "place", tile, (at, side)


def value(point: Point) -> int:
    """The number a tile placed on ``point`` must show."""
    tile, side = point
    return tile[1] if side == "high" else tile[0]


def rounded(pips: int) -> int:
    """Pips rounded to the nearest five (1-2 down, 3-4 up)."""
    remainder = pips % 5
    return pips - remainder if remainder < 3 else pips - remainder + 5


class Rules:
    """The rule decisions the wrong engines change: each is one method."""

    def opener(self, dealt: int, finisher: int | None) -> int:
        """Who opens a round: the finisher of the round before, else the deal's lot."""
        return dealt if finisher is None else finisher

    def branches_open(self, joined: set[str]) -> bool:
        """Whether the Sniff offers its branches, given its joined sides."""
        return "line_a" in joined and "line_b" in joined

    def terminal_worth(self, half: int) -> int:
        """What a terminal double of ``half`` pips a half adds to the sum."""
        return 2 * half

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

    def check(self, tile: Tile, at: Point | None) -> None:
        """Refuse the placement of ``tile`` on ``at`` if the rules do."""
        if tile in self.joined:
            raise Refused("already_on_table", f"{text(tile)} is on the table")
        if at is None:
            if self.tiles:
                raise Refused("point_required", "name the point")
            return
        if not self.tiles:
            raise Refused("opening_has_no_point", "the opening tile takes no point")
        if at not in set(self.points()):
            raise Refused("point_not_open", f"{point_text(at)} is not open")
        if value(at) not in tile:
            raise Refused("values_differ", f"{text(tile)} does not fit {point_text(at)}")

    def place(self, tile: Tile, at: Point | None) -> None:
        """Place ``tile`` on ``at`` (None for the opening)."""
        self.check(tile, at)
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

    def __init__(
        self, rules: Rules, players: int, deals: list[dict[str, Any]], scores: list[int], first: int
    ) -> None:
        self.rules = rules
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
        if not self.deals:
            self.dealt_out = True
            return
        deal = self.deals.pop(0)
        self.hands = [sorted(read_tile(t) for t in hand) for hand in deal["hands"]]
        self.stock = [read_tile(t) for t in deal["stock"]]
        self.opener = self.rules.opener(deal["opener"], finisher)
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
        if self.winner is not None:
            raise Refused("match_over", "the match is over")
        kind, tile, at = read_move(move)
        seat = self.turn
        answer: dict[str, Any] = {"seat": seat, "move": move, "tile": None}
        answer.update(end_sum=None, points=None, round_end=None)
        if kind == "place":
            assert tile is not None
            if tile not in self.hands[seat]:
                raise Refused("not_in_hand", f"{text(tile)} is not in the hand")
            if self.drawn is not None and tile != self.drawn:
                raise Refused("must_place_drawn", "place the drawn tile")
            self.table.place(tile, at)
            self.hands[seat].remove(tile)
            self.drawn = None
            total = self.table.end_sum()
            points = total if total > 0 and total % 5 == 0 else 0
            self.scores[self.side(seat)] += points
            answer.update(end_sum=total, points=points)
            if self.scores[self.side(seat)] >= _TARGET[self.players]:
                self.winner = self.side(seat)
            elif not self.hands[seat]:
                answer["round_end"] = self.end_round("domino", seat)
            elif not self.stock and not any(map(self.can_place, range(self.players))):
                answer["round_end"] = self.end_round("blocked", None)
            else:
                self.turn = (seat + 1) % self.players
        else:
            if self.drawn is not None:
                raise Refused("must_place_drawn", "place the drawn tile")
            if not self.table.tiles or self.can_place(seat):
                raise Refused("must_place", "a placement is possible")
            if kind == "draw":
                if not self.stock:
                    raise Refused("stock_empty", "the stock is empty")
                drawn = self.stock.pop(0)
                self.hands[seat] = sorted([*self.hands[seat], drawn])
                answer["tile"] = text(drawn)
                if self.table.fits(drawn):
                    self.drawn = drawn
                elif not self.stock and not any(map(self.can_place, range(self.players))):
                    answer["round_end"] = self.end_round("blocked", None)
            else:
                if self.stock:
                    raise Refused("must_draw", "the stock has tiles")
                self.turn = (seat + 1) % self.players
        over = self.winner is not None or self.dealt_out
        answer.update(scores=list(self.scores), winner=self.winner, round=self.round)
        answer["turn"] = None if over else self.turn
        return answer

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


class Engine:
    """Answers protocol requests with :class:`Rules` (or a subclass)."""

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
            "quit": lambda _: {},
        }
        handler = handlers.get(request.get("cmd", ""))
        if handler is None:
            raise BadRequest("bad_request", f"unknown cmd {request.get('cmd')!r}")
        return handler(request)

    def hello(self, request: dict[str, Any]) -> dict[str, Any]:
        """The handshake."""
        if request.get("protocol_version") != 1:
            raise BadRequest("unsupported", "protocol version 1 only")
        return {
            "protocol": "american-sniff/engine",
            "protocol_version": 1,
            "rules_version": "1",
            "engine": self.name,
            "features": [],
        }

    def new(self, request: dict[str, Any]) -> dict[str, Any]:
        """Start a match from the request's deals."""
        if request.get("seed") is not None:
            raise BadRequest("unsupported", "this engine deals no match from a seed")
        players = request["players"]
        scores = request.get("scores") or [0] * (2 if players == 4 else players)
        first = request.get("round") or 1
        self.match = Match(self.rules, players, list(request["deals"]), list(scores), first)
        return self.match.state()

    def table(self, request: dict[str, Any]) -> dict[str, Any]:
        """The table after the request's placements."""
        table = Table(self.rules)
        for index, move in enumerate(request["moves"]):
            try:
                kind, tile, at = read_move(move)
                if kind != "place" or tile is None:
                    raise BadRequest("bad_request", "a table takes placements only")
                table.place(tile, at)
            except Refused as refused:
                refused.index = index  # type: ignore[attr-defined]
                raise
        total = table.end_sum()
        return {**table.facts(), "points": total if total > 0 and total % 5 == 0 else 0}

    def settle(self, request: dict[str, Any]) -> dict[str, Any]:
        """The settlement of the request's hands."""
        players = request["players"]
        hands = [[read_tile(t) for t in hand] for hand in request["hands"]]
        scores = request.get("scores") or [0] * (2 if players == 4 else players)
        deductions, totals, after = self.rules.settle(
            players, hands, request.get("finisher"), list(scores)
        )
        return {"deductions": deductions, "side_totals": totals, "scores": after}

    def line(self, line: str) -> dict[str, Any]:
        """The answer to one request line."""
        try:
            request = json.loads(line)
            if not isinstance(request, dict):
                raise BadRequest("bad_json", "a request is a JSON object")
            return {"ok": True, **self.answer(request)}
        except Refused as refused:
            answer = {"ok": False, "error": "illegal_move", "code": refused.code}
            answer["message"] = str(refused)
            if hasattr(refused, "index"):
                answer["index"] = refused.index
            return answer
        except BadRequest as bad:
            return {"ok": False, "error": bad.kind, "message": str(bad)}
        except json.JSONDecodeError as exc:
            return {"ok": False, "error": "bad_json", "message": str(exc)}
        except Exception as exc:  # an engine answers every line
            return {"ok": False, "error": "internal", "message": repr(exc)}


def serve(rules: Rules, name: str) -> None:
    """Answer the requests on standard input until quit or its end."""
    engine = Engine(rules, name)
    for line in sys.stdin:
        answer = engine.line(line)
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
        if answer.get("ok") and json.loads(line).get("cmd") == "quit":
            break


if __name__ == "__main__":
    serve(Rules(), "minimal (tests/wrong_engines, correct)")
