"""Check another Python implementation of American Sniff against this library, in-process.

Wrap the implementation in an adapter with the five methods of
:class:`Implementation` (start a match from deals, list the legal moves,
apply a move, report the public facts, report one seat's view), then call
:func:`check_implementation` (or :func:`assert_conforms` in a test). The
adapter speaks in the library's types: :class:`~american_sniff.Deal`,
:class:`~american_sniff.Move`, :class:`~american_sniff.IllegalMove` and the
two small records :class:`PublicFacts` and :class:`SeatView`.

The check plays seeded random matches in both implementations side by side
and compares, at every action, the public facts and the set of legal moves;
at sampled positions it also applies every legal move (each must be accepted,
with the same outcome), tries illegal moves (each must be refused with the
library's refusal code, leaving the state as it was), and compares every
seat's view (a seat sees its own hand and draws, never another's). Finally
it replays a match and checks that the same moves give the same facts.

>>> report = check_implementation(LibraryImplementation(), players=(2,), seeds=(1,))
>>> report.passed, report.checks > 100
(True, True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol, TypeVar

import attrs

from .bots import random_match
from .engine import apply, legal_moves, new_match
from .errors import IllegalMove
from .layout import Point, Side
from .moves import Draw, Move, Pass, Place
from .rng import MASK64, below
from .state import Deal, MatchState
from .tiles import ALL_TILES, Tile
from .views import PlayerView, view_for

__all__ = [
    "Failure",
    "Implementation",
    "LibraryImplementation",
    "PublicFacts",
    "Report",
    "SeatView",
    "assert_conforms",
    "check_implementation",
]

#: The state type of an implementation (any type: the check only passes states back).
_S = TypeVar("_S")


def _points(points: Iterable[Point]) -> frozenset[Point]:
    return frozenset(points)


def _moves(moves: Iterable[Move]) -> frozenset[Move]:
    return frozenset(moves)


def _ints(values: Iterable[int]) -> tuple[int, ...]:
    return tuple(values)


def _tiles(values: Iterable[Tile]) -> frozenset[Tile]:
    return frozenset(values)


@attrs.frozen
class PublicFacts:
    """What everyone at the table knows of a match, as the check compares it.

    Lists may be given in any order where a set is meant.

    :ivar players: The number of players.
    :ivar round: The round being played, 1 for the first.
    :ivar turn: The seat to move, or None once the match is over.
    :ivar scores: Each side's score (per partnership with 4 players).
    :ivar winner: The side that won, or None.
    :ivar hand_sizes: How many tiles each seat holds, seat 0 first.
    :ivar stock_size: How many tiles are left to draw.
    :ivar open_points: The legal connection points of the table (a set).
    :ivar end_sum: The table's end sum.
    """

    players: int
    round: int
    turn: int | None
    scores: tuple[int, ...] = attrs.field(converter=_ints)
    winner: int | None
    hand_sizes: tuple[int, ...] = attrs.field(converter=_ints)
    stock_size: int
    open_points: frozenset[Point] = attrs.field(converter=_points)
    end_sum: int

    @classmethod
    def of(cls, state: MatchState) -> PublicFacts:
        """The public facts of one of the library's states."""
        return cls(
            players=state.players,
            round=state.round,
            turn=None if state.winner is not None else state.turn,
            scores=state.scores,
            winner=state.winner,
            hand_sizes=tuple(len(hand) for hand in state.hands),
            stock_size=state.stock_size,
            open_points=state.layout.points(),
            end_sum=state.layout.end_sum,
        )


def _history(actions: Iterable[tuple[int, Move, Tile | None]]) -> tuple[Any, ...]:
    return tuple((seat, move, tile) for seat, move, tile in actions)


@attrs.frozen
class SeatView:
    """What one seat sees of a match, as the check compares it.

    :ivar seat: The seat.
    :ivar hand: Its own tiles (a set).
    :ivar drawn: The tile it has just drawn and must place, if it is to move; else None.
    :ivar legal_moves: Its legal moves if it is to move, else empty (a set).
    :ivar history: The round's actions so far, oldest first, as ``(seat, move,
        tile)``: ``tile`` is the tile drawn by a draw of this seat, and None for
        any other action, another seat's draws included (they stay hidden).
    """

    seat: int
    hand: frozenset[Tile] = attrs.field(converter=_tiles)
    drawn: Tile | None
    legal_moves: frozenset[Move] = attrs.field(converter=_moves)
    history: tuple[tuple[int, Move, Tile | None], ...] = attrs.field(converter=_history)

    @classmethod
    def of(cls, view: PlayerView) -> SeatView:
        """The seat view of one of the library's :class:`~american_sniff.PlayerView`."""
        return cls(
            seat=view.seat,
            hand=view.hand,
            drawn=view.drawn,
            legal_moves=view.legal_moves,
            history=[(action.seat, action.move, action.tile) for action in view.history],
        )


class Implementation(Protocol[_S]):
    """The adapter an implementation gives the check; ``_S`` is its state type.

    ``apply`` must leave the state it is given as it was (copy first, if the
    implementation's states are mutable): the check applies several moves to
    one state.
    """

    def new_match(self, players: int, deals: Sequence[Deal]) -> _S:
        """A new match dealt from ``deals``, one per round in order.

        A deal's ``opener`` is the lot's outcome, used where the rules call for
        a lot (the first round, and a round after a block); otherwise the
        previous round's finisher opens. The check gives one deal more than the
        match it plays needs.
        """

    def legal_moves(self, state: _S) -> Iterable[Move]:
        """The legal moves of the player to move, in any order."""

    def apply(self, state: _S, move: Move) -> _S:
        """The state after ``move``.

        :raises IllegalMove: with the library's refusal code, if the move is
            not legal (the adapter translates its own error).
        """

    def public(self, state: _S) -> PublicFacts:
        """The public facts of ``state``."""

    def view(self, state: _S, seat: int) -> SeatView:
        """What ``seat`` sees of ``state``."""


class LibraryImplementation:
    """The adapter of this library itself: it passes every check.

    It is also a worked example of an adapter.
    """

    def new_match(self, players: int, deals: Sequence[Deal]) -> MatchState:
        """``new_match`` with the given deals (seed 0 deals any later round)."""
        return new_match(players, seed=0, deals=deals)

    def legal_moves(self, state: MatchState) -> Iterable[Move]:
        """The library's legal moves."""
        return legal_moves(state)

    def apply(self, state: MatchState, move: Move) -> MatchState:
        """The library's apply."""
        return apply(state, move)

    def public(self, state: MatchState) -> PublicFacts:
        """The library's public facts."""
        return PublicFacts.of(state)

    def view(self, state: MatchState, seat: int) -> SeatView:
        """The library's view, as a seat view."""
        return SeatView.of(view_for(state, seat))


@attrs.frozen
class Failure:
    """One way the implementation differs from the library.

    :ivar check: Which check found it: ``"random play"``, ``"legal moves
        accepted"``, ``"illegal moves refused"``, ``"views"`` or ``"replay"``.
    :ivar where: The match and the action: ``"3 players, seed 1, action 17 (round 2)"``.
    :ivar message: What differs, in words.
    """

    check: str
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.check}, {self.where}: {self.message}"


@attrs.frozen
class Report:
    """The outcome of :func:`check_implementation`.

    :ivar checks: How many comparisons were made.
    :ivar failures: The differences found (the first in each match and check).
    """

    checks: int
    failures: tuple[Failure, ...]

    @property
    def passed(self) -> bool:
        """Whether no difference was found."""
        return not self.failures

    def __str__(self) -> str:
        if self.passed:
            return f"the implementation agrees with the library ({self.checks} checks)"
        lines = [f"{len(self.failures)} difference(s) from the library in {self.checks} checks:"]
        lines += [f"  {failure}" for failure in self.failures]
        return "\n".join(lines)


def assert_conforms(implementation: Implementation[Any], **options: Any) -> None:
    """Run :func:`check_implementation`; raise AssertionError listing the differences, if any."""
    report = check_implementation(implementation, **options)
    if not report.passed:
        raise AssertionError(str(report))


def check_implementation(
    implementation: Implementation[Any],
    *,
    players: Iterable[int] = (2, 3, 4),
    seeds: Iterable[int] = (1, 2),
    sample: int = 6,
) -> Report:
    """Compare ``implementation`` with the library on seeded random matches.

    For each number of players and each seed, the match the library deals
    from that seed is played by seeded random bots in both implementations at
    once. At every action the public facts and the legal moves (as sets) are
    compared; at every ``sample``-th position the legal moves are all applied,
    illegal moves are tried, and every seat's view is compared. The first
    match of each player count is then replayed and must give the same facts.
    A match stops at its first difference.
    """
    checker = _Checker(implementation, sample)
    for count in players:
        for number, seed in enumerate(seeds):
            checker.match(count, seed, replay=number == 0)
    return Report(checks=checker.checks, failures=tuple(checker.failures))


# -- the checks ----------------------------------------------------------------------


class _Difference(Exception):
    """A difference that stops the current match (at ``step``, if not the current one)."""

    def __init__(self, check: str, message: str, step: int | None = None) -> None:
        super().__init__(message)
        self.check = check
        self.step = step


class _Checker:
    """The state of one run of :func:`check_implementation`."""

    def __init__(self, implementation: Implementation[Any], sample: int) -> None:
        self.impl = implementation
        self.sample = max(1, sample)
        self.checks = 0
        self.failures: list[Failure] = []

    def match(self, players: int, seed: int, *, replay: bool) -> None:
        """Play one seeded match in both implementations, comparing as it goes."""
        deals, states, moves = _library_match(players, seed)
        where = f"{players} players, seed {seed}"
        step = 0
        try:
            ours = self._call("random play", self.impl.new_match, players, deals)
            facts = [self._compare_facts(states[0], ours)]
            for step, move in enumerate(moves):
                state = states[step]
                self._compare_legal(state, ours)
                if step % self.sample == 0:
                    self._accepts_legal_moves(state, ours)
                    self._refuses_other_moves(state, ours, seed + step)
                    self._views_hide(state, ours)
                ours = self._call("random play", self.impl.apply, ours, move)
                facts.append(self._compare_facts(states[step + 1], ours, move))
            step = len(moves)
            if replay:
                self._replays(players, deals, moves, facts)
        except _Difference as difference:
            if difference.step is not None:
                step = difference.step
            state = states[min(step, len(states) - 1)]
            self.failures.append(
                Failure(
                    difference.check,
                    f"{where}, action {step + 1} (round {state.round})",
                    str(difference),
                )
            )

    def _call(self, check: str, function: Callable[..., Any], *args: Any) -> Any:
        """``function(*args)``, with an exception it raises reported as a difference.

        When the last argument is a move, a refusal names it.
        """
        try:
            return function(*args)
        except IllegalMove as exc:
            move = args[-1] if args else None
            raise _Difference(check, f"{move} was refused ({exc.code}: {exc})") from None
        except Exception as exc:  # the implementation failed; say how
            raise _Difference(check, f"it raised {type(exc).__name__}: {exc}") from None

    def _compare_facts(self, state: MatchState, ours: Any, move: Move | None = None) -> PublicFacts:
        self.checks += 1
        expected = PublicFacts.of(state)
        got = self._call("random play", self.impl.public, ours)
        if got != expected:
            after = "at the start" if move is None else f"after {move}"
            raise _Difference("random play", f"public facts {after}: {_diff(expected, got)}")
        return expected

    def _compare_legal(self, state: MatchState, ours: Any) -> None:
        self.checks += 1
        expected = frozenset(legal_moves(state))
        got = frozenset(self._call("random play", self.impl.legal_moves, ours))
        if got != expected:
            raise _Difference("random play", f"legal moves: {_set_diff(expected, got)}")

    def _accepts_legal_moves(self, state: MatchState, ours: Any) -> None:
        before = self.impl.public(ours)
        for move in legal_moves(state):
            self.checks += 1
            check = "legal moves accepted"
            after = self._call(check, self.impl.apply, ours, move)
            expected = PublicFacts.of(apply(state, move))
            got = self.impl.public(after)
            if got != expected:
                raise _Difference(check, f"after {move}: {_diff(expected, got)}")
            if self.impl.public(ours) != before:
                raise _Difference(check, f"applying {move} changed the state it was applied to")

    def _refuses_other_moves(self, state: MatchState, ours: Any, seed: int) -> None:
        check = "illegal moves refused"
        before = self.impl.public(ours)
        for move in _candidates(state, seed):
            try:
                apply(state, move)
            except IllegalMove as exc:
                code = exc.code
            else:
                continue  # a legal move: the other check takes it
            self.checks += 1
            try:
                self.impl.apply(ours, move)
            except IllegalMove as exc:
                if exc.code != code:
                    raise _Difference(
                        check, f"{move} was refused with {exc.code}, not {code}"
                    ) from None
            except Exception as exc:  # it must say IllegalMove
                raise _Difference(
                    check, f"{move} raised {type(exc).__name__}, not IllegalMove ({code})"
                ) from None
            else:
                raise _Difference(check, f"{move} was accepted; the rules refuse it ({code})")
            if self.impl.public(ours) != before:
                raise _Difference(check, f"refusing {move} changed the state")

    def _views_hide(self, state: MatchState, ours: Any) -> None:
        for seat in range(state.players):
            self.checks += 1
            expected = SeatView.of(view_for(state, seat))
            got = self._call("views", self.impl.view, ours, seat)
            if got != expected:
                raise _Difference("views", f"seat {seat}: {_diff(expected, got)}")

    def _replays(
        self, players: int, deals: Sequence[Deal], moves: Sequence[Move], facts: list[PublicFacts]
    ) -> None:
        check = "replay"
        ours = self._call(check, self.impl.new_match, players, deals)
        for step, move in enumerate(moves):
            try:
                ours = self._call(check, self.impl.apply, ours, move)
            except _Difference as difference:
                raise _Difference(check, str(difference), step) from None
            self.checks += 1
            got = self.impl.public(ours)
            if got != facts[step + 1]:
                raise _Difference(
                    check,
                    f"the same moves gave other facts: {_diff(facts[step + 1], got)}",
                    step,
                )


def _library_match(
    players: int, seed: int
) -> tuple[tuple[Deal, ...], list[MatchState], list[Move]]:
    """The deals, states and moves of the match the random bots play from ``seed``.

    The states are those of the match replayed from its deals, so that a move
    the bots did not choose leads to the same next deal in both implementations;
    one more deal than the match used is given for the same reason.
    """
    deals = []
    moves = []
    for state in random_match(players, seed):
        action = state.last_action
        if action is not None:
            moves.append(action.move)
        if not state.history and state.winner is None:
            deals.append(Deal(hands=state.hands, stock=state.info.deck, opener=state.opener))
    # One more deal, for a move the bots did not choose that ends the last round.
    spare = new_match(players, seed=(seed + 1) & MASK64)
    deals.append(Deal(hands=spare.hands, stock=spare.info.deck, opener=spare.opener))
    state = new_match(players, seed=0, deals=deals)
    states = [state]
    for move in moves:
        state = apply(state, move)
        states.append(state)
    return tuple(deals), states, moves


def _candidates(state: MatchState, seed: int) -> Iterator[Move]:
    """Moves to try: a draw, a pass, and placements of a few tiles on many points.

    The tiles are the mover's hand, a tile of the table and a tile of another
    hand; the points are the open ones, every side of the Sniff and of up to
    four tiles of the table (joined sides and branches not yet open included).
    """
    yield Draw()
    yield Pass()
    hand = state.hands[state.turn]
    layout = state.layout
    others = [t for seat, h in enumerate(state.hands) if seat != state.turn for t in h]
    tiles = list(hand)
    rng = seed & MASK64
    for pool in (layout.tiles, others):
        if pool:
            index, rng = below(len(pool), rng)
            tiles.append(pool[index])
    placed = list(layout.tiles)
    chosen = {layout.sniff} if layout.sniff is not None else set()
    while placed and len(chosen) < 5:
        index, rng = below(len(placed), rng)
        chosen.add(placed.pop(index))
    points = set(layout.points())
    for tile in chosen:
        sides = (Side.LOW, Side.HIGH) if not tile.is_double else tuple(Side)[2:]
        points.update(Point(tile, side) for side in sides)
    for tile in tiles:
        yield Place(tile)
        for point in sorted(points, key=lambda p: p.order):
            if tile.has(point.value) or point in layout.points():
                yield Place(tile, point)
    yield Place(ALL_TILES[0], Point(ALL_TILES[-1], Side.LINE_A))


def _diff(expected: Any, got: Any) -> str:
    """The fields of two records that differ, in words."""
    if type(got) is not type(expected):
        return f"expected a {type(expected).__name__}, got {got!r}"
    parts = []
    for field in attrs.fields(type(expected)):
        want, have = getattr(expected, field.name), getattr(got, field.name)
        if want != have:
            if isinstance(want, frozenset) and isinstance(have, frozenset):
                parts.append(f"{field.name}: {_set_diff(want, have)}")
            elif field.name == "history":
                parts.append(f"history: {_history_diff(want, have)}")
            else:
                parts.append(f"{field.name}: expected {want!r}, got {have!r}")
    return "; ".join(parts)


def _history_diff(expected: Sequence[Any], got: Sequence[Any]) -> str:
    """The first entry where two histories differ, in words."""

    def text(entry: Any) -> str:
        seat, move, tile = entry
        return f"seat {seat} {move}" + ("" if tile is None else f" {tile}")

    for index, (want, have) in enumerate(zip(expected, got, strict=False)):
        if want != have:
            return f"action {index + 1}: expected '{text(want)}', got '{text(have)}'"
    return f"expected {len(expected)} actions, got {len(got)}"


def _set_diff(expected: frozenset[Any], got: frozenset[Any]) -> str:
    missing = ", ".join(sorted(map(str, expected - got)))
    extra = ", ".join(sorted(map(str, got - expected)))
    parts = ([f"missing {missing}"] if missing else []) + ([f"unexpected {extra}"] if extra else [])
    return "; ".join(parts)
