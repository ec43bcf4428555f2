"""The one replayer: a round's actions played again from a start, each problem a typed value.

Everything in the library that plays recorded actions again goes through this
module: :func:`~american_sniff.validate_state` (a loaded state's round and the
round before it), :func:`~american_sniff.replay` and
:func:`~american_sniff.records.seed_discrepancy` (a match record), and the
referee (:func:`~american_sniff.check_record`). Each of them asks the same
questions of every action, in the same order, and gets the answer as a
value:

1. :class:`AfterWin`: a side has already won the match;
2. :class:`AfterRoundEnd`: the action's round has already ended;
3. :class:`WrongSeat`: the action is made by a seat whose turn it is not;
4. :class:`IllegalAction`: the rules refuse the move (with its refusal code);
5. :class:`ClaimDiffers`: the action was played, but what it claims (the
   tile drawn, the end sum, the points, the scores) differs from what the
   rules give.

:func:`step` asks the first four of one action, :func:`claim_differences`
compares the claims, and :func:`replay_actions` plays a whole sequence,
raising :class:`ReplayError` at the first problem. The callers keep their
own way to say *where* an action is (``"action 3 of round 2"``, ``"round 2,
action 3"``); the sentence that says *what* is wrong is the problem's own
(:meth:`Problem.describe`).

:func:`hands_as_dealt` rebuilds a round's hands as dealt from what the seats
hold now and the round's actions, and :func:`replay_table` a table from its
placements alone (a loaded state's table, the engine protocol's ``table``
request), its problem an :class:`IllegalPlacement`. :func:`table_after` is
the replay's step on the table alone, and :func:`round_tables` a round's
tables one action after another: what the views and
:func:`~american_sniff.views.known_voids` walk to learn which values each seat is
known not to hold.

>>> from american_sniff import new_match, Draw
>>> start = new_match(2, seed=3)
>>> problem = step(start, start.turn, Draw())
>>> problem.kind, problem.code
('illegal_action', 'must_place')
>>> print(problem.describe("action 1"))
action 1 is illegal [must_place]: seat 1 opens the round and must place a tile; it cannot draw
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, ClassVar, Protocol

import attrs

from .engine import apply
from .errors import IllegalMove
from .layout import Layout, placed
from .moves import Draw, Move, Place
from .state import Action, MatchState
from .tiles import ALL_TILES, Tile

__all__ = [
    "CLAIMS",
    "AfterRoundEnd",
    "AfterWin",
    "ClaimDiffers",
    "Claimed",
    "IllegalAction",
    "IllegalPlacement",
    "Problem",
    "ReplayError",
    "WrongSeat",
    "claim_differences",
    "deal_difference",
    "dealt_from_log",
    "hands_as_dealt",
    "replay_actions",
    "replay_table",
    "round_tables",
    "step",
    "table_after",
]

#: What an action claims, in the order they are compared: the tile a draw
#: took, a placement's end sum and points, and the scores right after it.
CLAIMS = ("tile", "end_sum", "points", "scores")

#: How a claim is named in a sentence.
_CLAIM_NAMES = {"tile": "tile drawn", "end_sum": "end sum"}


class Claimed(Protocol):
    """An action to replay: a seat and its move.

    An :class:`~american_sniff.Action`, an :class:`~american_sniff.ActionRecord`,
    or anything with these two attributes.
    """

    @property
    def seat(self) -> int:
        """The seat that made the action."""

    @property
    def move(self) -> Move:
        """The move it made."""


@attrs.frozen
class Problem:
    """Why an action of a replay cannot be taken as recorded (the base of every kind).

    :ivar index: The action's position, as the caller counts (from 1 in a
        state's history, from 0 in a record's ``actions``).
    :ivar seat: The seat the action is recorded for.
    :ivar move: The move recorded.
    :cvar kind: The problem's stable name, the same as the referee's
        discrepancy kind (:data:`~american_sniff.referee.DISCREPANCY_KINDS`).
    :cvar fatal: Whether nothing after it can be replayed: the action was not
        played. Only a :class:`ClaimDiffers` is not fatal.
    """

    index: int
    seat: int
    move: Move

    kind: ClassVar[str] = "problem"
    fatal: ClassVar[bool] = True

    @property
    def code(self) -> str | None:
        """The refusal code of an :class:`IllegalAction`; None for every other kind."""
        return None

    def describe(self, where: str) -> str:
        """The sentence that says what is wrong, its subject ``where`` (which action it is)."""
        return f"{where} cannot be replayed"


@attrs.frozen
class AfterWin(Problem):
    """The action comes after a side won the match: nothing follows a win.

    :ivar winner: The side that had won.
    """

    winner: int
    kind: ClassVar[str] = "after_win"

    def describe(self, where: str) -> str:
        """``"... comes after side 0 won the match"``."""
        return f"{where} comes after side {self.winner} won the match"


@attrs.frozen
class AfterRoundEnd(Problem):
    """The action comes after the action that ended its round.

    :ivar round: The round the action is recorded in, which has ended.
    """

    round: int
    kind: ClassVar[str] = "after_round_end"

    def describe(self, where: str) -> str:
        """``"... comes after the round ended"``."""
        return f"{where} comes after the round ended"


@attrs.frozen
class WrongSeat(Problem):
    """The action is recorded for a seat whose turn it is not.

    :ivar turn: The seat whose turn it is.
    """

    turn: int
    kind: ClassVar[str] = "wrong_seat"

    def describe(self, where: str) -> str:
        """``"... is made by seat 1, but it is seat 0's turn"``."""
        return f"{where} is made by seat {self.seat}, but it is seat {self.turn}'s turn"


@attrs.frozen
class IllegalAction(Problem):
    """The rules refuse the move.

    :ivar error: The refusal, as :func:`~american_sniff.apply` raised it.
    """

    error: IllegalMove
    kind: ClassVar[str] = "illegal_action"

    @property
    def code(self) -> str:
        """The refusal code (:attr:`IllegalMove.code <american_sniff.IllegalMove.code>`)."""
        return self.error.code

    def describe(self, where: str) -> str:
        """``"... is illegal [must_draw]: seat 1 cannot pass: ..."``."""
        return f"{where} is illegal [{self.error.code}]: {self.error}"


@attrs.frozen
class ClaimDiffers(Problem):
    """The action was played, but one of its claims is not what the rules give.

    :ivar field: The claim: one of :data:`CLAIMS`.
    :ivar claimed: What the action claims.
    :ivar rules: What the rules give.
    """

    field: str
    claimed: object
    rules: object
    kind: ClassVar[str] = "claim"
    fatal: ClassVar[bool] = False

    def describe(self, where: str) -> str:
        """``"... claims end sum 5; the rules give 10"``."""
        name = _CLAIM_NAMES.get(self.field, self.field)
        return f"{where} claims {name} {self.claimed!r}; the rules give {self.rules!r}"


class ReplayError(ValueError):
    """The first problem of :func:`replay_actions`; its message names the action.

    :ivar problem: The problem, as a value.
    """

    problem: Problem

    def __init__(self, problem: Problem, where: str) -> None:
        super().__init__(problem.describe(where))
        self.problem = problem


def step(
    state: MatchState, seat: int, move: Move, *, index: int = 0, round: int | None = None
) -> MatchState | Problem:
    """The state after ``seat`` makes ``move`` in ``state``; or why it cannot.

    The questions are asked in this order: has a side won (:class:`AfterWin`),
    has round ``round`` ended (:class:`AfterRoundEnd`; not asked when
    ``round`` is None), is it ``seat``'s turn (:class:`WrongSeat`), and do the
    rules allow the move (:class:`IllegalAction`). ``index`` is the action's
    position, kept in the problem.
    """
    if state.winner is not None:
        return AfterWin(index, seat, move, state.winner)
    if round is not None and state.round != round:
        return AfterRoundEnd(index, seat, move, round)
    if seat != state.turn:
        return WrongSeat(index, seat, move, state.turn)
    try:
        return apply(state, move)
    except IllegalMove as error:
        return IllegalAction(index, seat, move, error)


def claim_differences(
    claim: object, rules: object, *, index: int, fields: Sequence[str] = CLAIMS
) -> tuple[ClaimDiffers, ...]:
    """Every one of ``fields`` in which ``claim`` differs from ``rules``, in order.

    ``claim`` is the recorded action and ``rules`` the same action as the
    rules made it (both with the attributes ``seat``, ``move`` and
    ``fields``), e.g. two :class:`~american_sniff.Action` values, or an
    :class:`~american_sniff.ActionRecord` and ``ActionRecord.of(action)``.
    """
    differing = [field for field in fields if getattr(claim, field) != getattr(rules, field)]
    if not differing:  # the common case, kept cheap: every load replays its round
        return ()
    seat: int = getattr(claim, "seat")  # noqa: B009 - any object with the fields
    move: Move = getattr(claim, "move")  # noqa: B009
    return tuple(
        ClaimDiffers(index, seat, move, field, getattr(claim, field), getattr(rules, field))
        for field in differing
    )


def replay_actions(  # noqa: PLR0913 - keyword-only options, each with a default
    state: MatchState,
    actions: Iterable[Claimed],
    *,
    round: int | None = None,
    claims: Sequence[str] = (),
    first: int = 0,
    where: str = "action {index} ({move})",
) -> Iterator[MatchState]:
    """Play ``actions`` from ``state``; yield the state after each one.

    Each action is checked by :func:`step` (in round ``round``, if given)
    and, when ``claims`` names some of :data:`CLAIMS`, its claims by
    :func:`claim_differences` against the action the rules made. The actions
    are numbered from ``first``; ``where`` says which action a problem is
    about, with ``{index}`` and ``{move}`` in it.

    >>> from american_sniff import new_match, Draw
    >>> start = new_match(2, seed=3)
    >>> list(replay_actions(start, [Action(0, Draw())], first=1))
    Traceback (most recent call last):
    ...
    american_sniff.replayer.ReplayError: action 1 (draw) is made by seat 0, but it is seat 1's turn

    :raises ReplayError: at the first problem, as a value in its ``problem``.
    """
    for index, action in enumerate(actions, start=first):
        after = step(state, action.seat, action.move, index=index, round=round)
        if isinstance(after, Problem):
            raise ReplayError(after, where.format(index=index, move=action.move))
        if claims:
            made = after.last_action
            assert made is not None
            differences = claim_differences(action, made, index=index, fields=claims)
            if differences:
                raise ReplayError(differences[0], where.format(index=index, move=action.move))
        yield after
        state = after


@attrs.frozen
class IllegalPlacement:
    """A placement of a table's sequence that the table built before it refuses.

    :ivar index: The placement's position, as the caller counts.
    :ivar move: The placement.
    :ivar error: The refusal, as :meth:`Layout.place <american_sniff.Layout.place>`
        raised it.
    """

    index: int
    move: Place
    error: IllegalMove

    kind: ClassVar[str] = "illegal_action"

    @property
    def code(self) -> str:
        """The refusal code (:attr:`IllegalMove.code <american_sniff.IllegalMove.code>`)."""
        return self.error.code

    def describe(self, where: str) -> str:
        """``"... is illegal: [5|5] is already on the table"``."""
        return f"{where} is illegal: {self.error}"


def replay_table(placements: Iterable[Place], *, first: int = 0) -> Layout | IllegalPlacement:
    """The table that ``placements`` build from an empty one, in order; or the first refused.

    Only the table is replayed (no hands, no turns): this is how a saved
    table, or the engine protocol's ``table`` request, is rebuilt. The
    placements are numbered from ``first`` and read one at a time, so an
    iterator that raises on a bad entry stops the replay there.

    >>> from american_sniff import Place, Tile, parse_point
    >>> replay_table([Place(Tile(3, 3)), Place(Tile(3, 4), parse_point("[3|3] line_a"))]).end_sum
    10
    >>> print(replay_table([Place(Tile(3, 3)), Place(Tile(3, 3))], first=1).describe("placement 2"))
    placement 2 is illegal: [3|3] is already on the table
    """
    layout = Layout.empty()
    for index, move in enumerate(placements, start=first):
        try:
            layout = layout.place(move.tile, move.at)
        except IllegalMove as error:
            return IllegalPlacement(index, move, error)
    return layout


def hands_as_dealt(
    hands: Sequence[Sequence[Tile]],
    actions: Iterable[Action],
    *,
    hand_size: int | None = None,
    round_name: str = "",
) -> tuple[tuple[Tile, ...], ...]:
    """Each hand as dealt: what the seat holds, plus what it placed, less what it drew.

    ``hands`` are the hands after ``actions``, the actions of the round so
    far. A drawn tile may have been placed since, so the placed tiles are
    added first. The hands come back sorted by tile. With ``hand_size``,
    every hand must have been dealt that many tiles.

    >>> from american_sniff import new_match, apply, legal_moves
    >>> start = new_match(2, seed=3)
    >>> state = apply(start, legal_moves(start)[0])
    >>> hands_as_dealt(state.hands, state.history) == start.hands
    True

    :raises ValueError: if a seat drew a tile it neither holds nor placed, or
        (with ``hand_size``) a hand was dealt another number of tiles; the
        message names the seat (and ``round_name``, e.g. ``" of round 2"``).
    """
    triples = [(action.seat, action.move, action.tile) for action in actions]
    return dealt_from_log(hands, triples, hand_size=hand_size, round_name=round_name)


def dealt_from_log(
    hands: Sequence[Sequence[Tile]],
    actions: Sequence[Sequence[Any]],
    *,
    hand_size: int | None = None,
    round_name: str = "",
) -> tuple[tuple[Tile, ...], ...]:
    """:func:`hands_as_dealt` of actions given as sequences that open with seat, move and tile.

    The nodes of an action log (:func:`american_sniff.state.action_node`),
    oldest first, are such sequences: validation reads them without making an
    :class:`~american_sniff.Action` of each.

    :raises ValueError: as :func:`hands_as_dealt` does.
    """
    # Tiles are counted by index: integers compare in C.
    dealt = [[tile.index for tile in hand] for hand in hands]
    placed = [0] * len(dealt)
    drew = [0] * len(dealt)
    # One pass over the actions: every placement is counted in before any
    # draw is taken out, so the draws (in order) are checked after it.
    draws: list[tuple[int, Tile]] = []
    for action in actions:
        move = action[1]
        kind = type(move)
        if kind is Place:
            seat = action[0]
            dealt[seat].append(move.tile.index)
            placed[seat] += 1
        elif kind is Draw and action[2] is not None:
            draws.append((action[0], action[2]))
    for seat, tile in draws:
        drew[seat] += 1
        if tile.index not in dealt[seat]:
            raise ValueError(
                f"seat {seat} drew {tile}{round_name}, but neither holds it nor placed it"
            )
        dealt[seat].remove(tile.index)
    if hand_size is not None:
        for seat, hand in enumerate(hands):
            count = len(hand) + placed[seat] - drew[seat]
            if count != hand_size:
                raise ValueError(
                    f"hand sizes no play can reach{round_name}: seat {seat} holds "
                    f"{len(hand)} tiles, placed {placed[seat]} and drew {drew[seat]}, "
                    f"so it was dealt {count}; with {len(hands)} players a hand is dealt "
                    f"{hand_size}"
                )
    # Sorted by tile index (tile_index's order), the integers sorted in C.
    tiles = ALL_TILES
    return tuple([tuple([tiles[i] for i in sorted(hand)]) for hand in dealt])


def deal_difference(
    state: MatchState,
    hands: Sequence[Sequence[Tile]],
    stock: Sequence[Tile],
    opener: int,
    source: str,
) -> str | None:
    """How the round starting at ``state`` differs from a recorded start, or None.

    The recorded start is ``hands`` as dealt (in any order within a hand),
    ``stock`` in draw order, and ``opener``; ``source`` names what dealt
    ``state`` in the sentence (``"seed 7"``). The first difference is told:
    a hand, the number of hands, the stock, then the opener.

    >>> from american_sniff import new_match
    >>> state = new_match(2, seed=3)
    >>> deal_difference(state, state.hands, state.stock, state.opener, "seed 3") is None
    True
    >>> print(deal_difference(state, state.hands, state.stock, 1 - state.opener, "seed 3"))
    seat 1 opens by seed 3, not seat 0 as recorded
    """
    dealt = tuple(tuple(sorted(hand)) for hand in hands)
    for seat, hand in enumerate(state.hands):
        if seat >= len(dealt) or dealt[seat] != hand:
            recorded = _text(dealt[seat]) if seat < len(dealt) else "nothing"
            return f"{source} deals hand {seat} as {_text(hand)}, not {recorded} as recorded"
    if len(dealt) != len(state.hands):
        return f"{source} deals {len(state.hands)} hands, not {len(dealt)} as recorded"
    if tuple(stock) != state.stock:
        return f"{source} deals the stock as {_text(state.stock)}, not as recorded"
    if opener != state.opener:
        return f"seat {state.opener} opens by {source}, not seat {opener} as recorded"
    return None


def _text(tiles: Sequence[Tile]) -> str:
    return " ".join(map(str, tiles)) if tiles else "(none)"


def table_after(table: Layout, move: Move, *, checked: bool = True) -> Layout:
    """The table after ``move``: a placement joins ``table``; a draw or a pass leaves it.

    This is the replay's step on the table alone, what every walk over a
    round's public facts takes (:func:`~american_sniff.views.known_voids`, the
    views). With ``checked`` (the default) a placement is checked as
    :meth:`Layout.place <american_sniff.Layout.place>` checks it; without,
    ``move`` must be one the rules made on this very table (a state's own
    action log), and it is placed with no check, which costs less.

    >>> from american_sniff import Draw, Place, Tile
    >>> table = table_after(Layout.empty(), Place(Tile(3, 3)))
    >>> table.end_sum, table_after(table, Draw()) is table
    (6, True)

    :raises IllegalMove: if ``checked`` and the placement does not fit ``table``.
    """
    if type(move) is not Place:
        return table
    if checked:
        return table.place(move.tile, move.at)
    at = move.at
    return placed(table, move.tile, None if at is None else at.order)


def round_tables(moves: Iterable[Move], *, checked: bool = True) -> Iterator[Layout]:
    """The table after each of a round's ``moves``, in order, from the empty table.

    Each step is :func:`table_after`: a draw or a pass yields the table as it
    was.

    >>> from american_sniff import Draw, Place, Tile, parse_point
    >>> moves = [Place(Tile(3, 3)), Draw(), Place(Tile(3, 4), parse_point("[3|3] line_a"))]
    >>> [table.end_sum for table in round_tables(moves)]
    [6, 6, 10]

    :raises IllegalMove: if ``checked`` and a placement does not fit the table
        before it.
    """
    table = Layout.empty()
    for move in moves:
        table = table_after(table, move, checked=checked)
        yield table
