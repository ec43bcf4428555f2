"""``american_sniff.testing``: the in-process check of other Python implementations.

The library's own adapter passes; adapters with one deliberate fault each
fail, and the report says which check caught them, where, and how.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import attrs
import pytest

from american_sniff import Deal, Draw, IllegalMove, MatchState, Move, Pass, Tile, apply, view_for
from american_sniff.testing import (
    Failure,
    Implementation,
    LibraryImplementation,
    PublicFacts,
    Report,
    SeatView,
    assert_conforms,
    check_implementation,
)


@pytest.mark.sweep
def test_the_library_conforms_to_itself() -> None:
    """The library's adapter agrees with the library on every check, for 2, 3 and 4 players."""
    report = check_implementation(LibraryImplementation())
    assert report.passed, str(report)
    assert report.checks > 10_000
    assert str(report) == f"the implementation agrees with the library ({report.checks} checks)"
    assert_conforms(LibraryImplementation(), players=(3,), seeds=(5,))


class LeakyViews(LibraryImplementation):
    """Shows every seat the tiles the other seats drew."""

    def view(self, state: MatchState, seat: int) -> SeatView:
        """The view, with the round's history unhidden."""
        view = view_for(state, seat)
        return attrs.evolve(
            SeatView.of(view), history=[(a.seat, a.move, a.tile) for a in state.history]
        )


class LaxPass(LibraryImplementation):
    """Lets a player pass while the stock still has tiles (as a no-op)."""

    def apply(self, state: MatchState, move: Move) -> MatchState:
        """Apply, but let the refused pass through."""
        try:
            return apply(state, move)
        except IllegalMove as error:
            if isinstance(move, Pass) and error.code == "must_draw":
                return state
            raise


class VagueCodes(LibraryImplementation):
    """Says point_not_open where the values differ."""

    def apply(self, state: MatchState, move: Move) -> MatchState:
        """Apply, with one refusal code replaced."""
        try:
            return apply(state, move)
        except IllegalMove as error:
            if error.code == "values_differ":
                raise IllegalMove(str(error), "point_not_open") from None
            raise


class PlainErrors(LibraryImplementation):
    """Refuses moves with a plain ValueError, not IllegalMove."""

    def apply(self, state: MatchState, move: Move) -> MatchState:
        """Apply, with refusals as ValueError."""
        try:
            return apply(state, move)
        except IllegalMove as error:
            raise ValueError(str(error)) from None


class NoBranchB(LibraryImplementation):
    """Never lists placements on the Sniff's branch B."""

    def legal_moves(self, state: MatchState) -> Iterable[Move]:
        """The legal moves but those on a branch B."""
        return [m for m in super().legal_moves(state) if "branch_b" not in str(m)]


class Forgetful(LibraryImplementation):
    """Starts a match it has seen before from its second deal."""

    def __init__(self) -> None:
        self.seen: list[Sequence[Deal]] = []

    def new_match(self, players: int, deals: Sequence[Deal]) -> MatchState:
        """The match, or a wrong one the second time."""
        again = deals in self.seen
        self.seen.append(deals)
        return super().new_match(players, deals[1:] if again else deals)


class Haunted(LibraryImplementation):
    """Starts a match it has seen before with 5 points for side 0."""

    def __init__(self) -> None:
        self.seen: list[Sequence[Deal]] = []

    def new_match(self, players: int, deals: Sequence[Deal]) -> MatchState:
        """The match, with points left over the second time."""
        match = super().new_match(players, deals)
        again = deals in self.seen
        self.seen.append(deals)
        return match.evolve(scores=(5, 0)) if again else match


class Boxed:
    """Keeps each state in a one-item list, and applies moves in place (a mutable design)."""

    library = LibraryImplementation()

    def new_match(self, players: int, deals: Sequence[Deal]) -> list[MatchState]:
        """The match, in a box."""
        return [self.library.new_match(players, deals)]

    def legal_moves(self, state: list[MatchState]) -> Iterable[Move]:
        """The legal moves."""
        return self.library.legal_moves(state[0])

    def apply(self, state: list[MatchState], move: Move) -> list[MatchState]:
        """Apply ``move`` to the boxed state, in place."""
        state[0] = self.library.apply(state[0], move)
        return state

    def public(self, state: list[MatchState]) -> PublicFacts:
        """The public facts."""
        return self.library.public(state[0])

    def view(self, state: list[MatchState], seat: int) -> SeatView:
        """A seat's view."""
        return self.library.view(state[0], seat)


class Crashes(LibraryImplementation):
    """Fails to build a view."""

    def view(self, state: MatchState, seat: int) -> SeatView:
        """No view at all."""
        raise KeyError("no such seat")


@pytest.mark.parametrize(
    ("adapter_class", "check", "words"),
    [
        (
            LeakyViews,
            "views",
            "seat 0: history: action 9: expected 'seat 1 draw', got 'seat 1 draw [",
        ),
        (LaxPass, "illegal moves refused", "pass was accepted; the rules refuse it (must_draw)"),
        (
            VagueCodes,
            "illegal moves refused",
            "was refused with point_not_open, not values_differ",
        ),
        (PlainErrors, "illegal moves refused", "raised ValueError, not IllegalMove (must_place)"),
        (NoBranchB, "random play", "legal moves: missing "),
        (Forgetful, "replay", "was refused (not_in_hand"),
        (
            Haunted,
            "replay",
            "the same moves gave other facts: scores: expected (0, 0), got (5, 0)",
        ),
        (Boxed, "legal moves accepted", "changed the state it was applied to"),
        (Crashes, "views", "it raised KeyError: 'no such seat'"),
    ],
)
def test_a_faulty_adapter_fails_with_a_clear_message(
    adapter_class: type[Implementation[Any]], check: str, words: str
) -> None:
    """Each fault is caught by the check meant for it, and the message says where and what."""
    # A fresh adapter each run: Forgetful and Haunted remember the matches they saw.
    adapter = adapter_class()
    report = check_implementation(adapter, players=(2,), seeds=(1,))
    assert not report.passed
    failure = report.failures[0]
    assert failure.check == check, str(report)
    assert failure.where.startswith("2 players, seed 1, action ")
    assert words in failure.message, str(report)
    with pytest.raises(AssertionError, match="difference"):
        assert_conforms(adapter, players=(2,), seeds=(1,))


def test_the_report_in_words() -> None:
    """A report lists each difference on its own line, under a count."""
    failure = Failure("views", "2 players, seed 1, action 3 (round 1)", "seat 1: hand differs")
    report = Report(checks=10, failures=(failure,))
    assert str(report) == (
        "1 difference(s) from the library in 10 checks:\n"
        "  views, 2 players, seed 1, action 3 (round 1): seat 1: hand differs"
    )


def test_seat_views_take_lists_in_any_order() -> None:
    """Sets are compared as sets: an adapter may build a view from lists in its own order."""
    one = SeatView(0, [Tile(1, 2), Tile(0, 0)], None, [Draw()], [])
    other = SeatView(0, (Tile(0, 0), Tile(1, 2)), None, {Draw()}, ())
    assert one == other
