"""What a seat, or a spectator, may see of a match; and one action at a time.

* :func:`~american_sniff.view_for` gives a :class:`~american_sniff.PlayerView`: one seat's own
  hand and everything public. :func:`~american_sniff.spectator_view` (also
  ``view_for(state, None)``) gives a :class:`~american_sniff.SpectatorView`: everything public
  and nothing any one seat alone may see (no hand, no drawn tile, no legal
  moves, no tile drawn by anyone).
* :func:`~american_sniff.event_for` gives the :class:`~american_sniff.ViewEvent`
  of one action as a seat (or a spectator) sees it, with a sequence number;
  :func:`~american_sniff.apply_event` turns the view before the action into the
  view after it, exactly. A server sends the
  first view once and then one small event per action.

A view holds the table, how many tiles each hand and the stock hold, the
scores, whose turn it is, the round's actions (a draw by another seat shows
that a tile was drawn, not which), the previous round's *result* (its hands
are revealed at settlement; its actions only on request), and what each seat
is known not to hold. It never holds the other hands, the stock, the seed or
the generator state, from which the deal could be worked out.

**Cost.** A view costs the same at any point of a round. What views need
beyond the state (the voids, the histories with hidden draws, the sequence
number) is worked out once per action and kept beside the state's own action
log, as a chain that shares every earlier link: the view of a state whose
previous action was already seen is one step from it. A view of a state seen
cold (say, just loaded) walks its round once, on the tables a signed load
kept if it was one (nothing is placed again), and makes only its own
viewer's history, which is the round's own log until a draw by another seat
must be hidden. The voids are played through the replayer's step on the
table (:func:`~american_sniff.replayer.table_after`). The history and the
previous round's history are built as tuples only when read.

**Sequence numbers.** A view's ``seq`` is how many actions the match
has had: 0 at its start, and one more with each action, across rounds. The
event of an action carries the number of the view it leads to, so a server
can refuse a move sent for an older view.

**Known voids.** The rules make a player place whenever they can, so a seat
that draws or passes shows that it holds no tile with any value open at that
moment. What stays known afterwards, for the current round:

* a seat that passes without drawing, or draws exactly once and places the
  tile it drew, is known to hold none of the values that were open, on top of
  what was known before (it holds the same hand as before);
* a seat that keeps a drawn tile this turn (it drew two tiles or more and
  placed the last, or drew and then passed) kept tiles that showed none of the
  open values but may show others: it is known to hold none of the values
  that were open, and nothing else;
* while a seat has just drawn and is still to move, its new tile may show
  anything, so nothing is known about it;
* placing a tile by choice tells nothing new, and a new round starts afresh.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any, Final, overload

import attrs

from .. import rules
from .._fast import OPEN, PLACE
from .._view_docs import (
    EventDoc,
    GeometryDoc,
    ViewDoc,
    ViewRoundDoc,
)
from ..engine import legal_moves
from ..errors import InvalidState, InvalidView
from ..layout import WORTH_OF_KEY, Layout, end_sum_after, is_lone_double
from ..moves import Draw, Move, Pass, Place, parse_move
from ..points import POINT_OF_KEY
from ..replayer import round_tables, table_after
from ..rules import TARGET
from ..serial import (
    LOG_TEXTS,
    SIGNED_PLACEMENTS,
    SIGNED_TABLES,
    ActionDoc,
    action_log_from,
    action_text,
    action_to_dict,
    check_header,
    document_header,
    ints_text,
    log_text,
    read_json,
    structure,
    tile_text,
    tiles_text,
)
from ..serial import kept_move_text as _move_text
from ..state import (
    Action,
    ActionLog,
    MatchState,
    RoundEnd,
    RoundResult,
    action_node,
    check_seat,
    log_of,
    node_fields,
    previous_node,
)
from ..tiles import Tile, parse_tile

if TYPE_CHECKING:
    from ..render.geometry import Geometry, Rect

#: The page a view's table is drawn on unless told otherwise, in the drawing's
#: units: :data:`american_sniff.render.DEFAULT_PAGE` (a test checks they agree;
#: the views do not load the rendering until a table is drawn).
TABLE_PAGE: Final = (48, 40)


__all__ = [
    "EVENT_FORMAT",
    "MAX_VIEW_BYTES",
    "VIEW_FORMAT",
    "MovePreview",
    "PlayerView",
    "SpectatorView",
    "ViewEvent",
    "apply_event",
    "event_for",
    "event_from_json",
    "event_to_dict",
    "geometry_to_dict",
    "known_voids",
    "spectator_view",
    "view_for",
    "view_from_json",
    "view_to_dict",
]

#: The ``format`` of a view document (a player's or a spectator's).
VIEW_FORMAT = "american-sniff/view"
#: The ``format`` of an event document.
EVENT_FORMAT = "american-sniff/event"

#: The set of values of each 7-bit mask (bit ``v`` for value ``v``).
_VALUES_OF_MASK: tuple[frozenset[int], ...] = tuple(
    frozenset(v for v in range(7) if mask >> v & 1) for mask in range(128)
)


_MOVE_PREVIEW_DOC = """\
What a legal move would give: the end sum after it and the points it scores.

    :ivar move: The legal move.
    :ivar end_sum: The table's end sum after the placement; None for a draw
        or a pass.
    :ivar points: What the placement would score (0 if it scores nothing);
        0 for a draw or a pass.
    """


@attrs.frozen
class MovePreview:  # noqa: D101 (the docstring is _MOVE_PREVIEW_DOC, set below)
    move: Move
    end_sum: int | None
    points: int


_SPECTATOR_VIEW_DOC = """\
What everyone may see of a match at one moment; see :func:`~american_sniff.spectator_view`.

    A :class:`~american_sniff.PlayerView` is a spectator's view plus one
    seat's own hand, its drawn tile, its legal moves and its own drawn tiles
    in the history.

    (The fields it shares with a player's view are listed below.)
    """


@attrs.frozen(kw_only=True)
class SpectatorView:  # noqa: D101 (the docstring is _SPECTATOR_VIEW_DOC, set below)
    players: int
    round: int
    opener: int
    turn: int
    target: int
    scores: tuple[int, ...]
    winner: int | None
    hand_sizes: tuple[int, ...]
    stock_size: int
    layout: Layout
    last_round: RoundResult | None
    voids: tuple[frozenset[int], ...]
    seq: int
    #: The round's actions as the viewer sees them, newest first (see :attr:`history`).
    _log: ActionLog = attrs.field(alias="log", default=None, repr=False)
    #: In a round's first view, the action that ended the round before (see
    #: :attr:`last_action`); else None.
    _ended: Action | None = attrs.field(alias="ended", default=None, repr=False)

    @property
    def last_action(self) -> Action | None:
        """The action that led to this view, as the viewer sees it; None at the match's start.

        Another seat's drawn tile is hidden. At a round's start it is the
        action that ended the round before, with that round's result (as in
        :attr:`last_round`) as its ``round_result``.
        """
        node = self._log
        if node is None:
            return self._ended
        seat, move, tile, end_sum, points, scores = node_fields(node)
        return Action(seat, move, tile, end_sum, points, scores, None, self.winner)

    @property
    def viewer(self) -> int | None:
        """The seat this view belongs to; None for a spectator."""
        return None

    @property
    def history(self) -> tuple[Action, ...]:
        """The round's actions so far, oldest first, with hidden tiles hidden.

        Built when read: the view keeps them as a chain shared with earlier views.
        """
        actions: list[Action] = []
        node = self._log
        while node is not None:
            seat, move, tile, end_sum, points, scores = node_fields(node)
            node = previous_node(node)
            actions.append(Action(seat, move, tile, end_sum, points, scores))
        actions.reverse()
        if actions and self.winner is not None:
            actions[-1] = attrs.evolve(actions[-1], winner=self.winner)
        return tuple(actions)

    @property
    def is_my_turn(self) -> bool:
        """Whether the viewer is to move (and the match goes on); never for a spectator."""
        return False

    def to_json(self, *, geometry: bool = False, page: tuple[int, int] | None = TABLE_PAGE) -> str:
        """The view as JSON text, in the documented view format (``docs/formats.md``).

        With ``geometry=True`` the text holds the table laid out for drawing
        (:meth:`table_geometry` on ``page``); it costs a search, so it is
        left out (null) unless asked for.
        """
        return _view_text(self, geometry, page)

    def table_geometry(self, page: tuple[int, int] | None = TABLE_PAGE) -> Geometry:
        """The table laid out in the plane for drawing: a rectangle per tile, an anchor per point.

        This is :func:`american_sniff.render.table_geometry` of :attr:`layout`;
        ``to_json(geometry=True)`` writes it.

        >>> from american_sniff import new_match
        >>> spectator_view(new_match(2, seed=1)).table_geometry().tiles
        ()

        :raises ValueError: if ``page`` is not None or a pair of positive integers.
        """
        from ..render.geometry import table_geometry  # noqa: PLC0415 (loaded when drawn)

        return table_geometry(self.layout, page=page)

    @classmethod
    def from_json(cls, text: str | bytes) -> SpectatorView:
        """Read a spectator's view written by :meth:`~american_sniff.SpectatorView.to_json`.

        :raises InvalidView: naming the first problem, if ``text`` is not a
            spectator's view (a player's view is refused: use
            :meth:`~american_sniff.PlayerView.from_json`).
        """
        view = view_from_json(text)
        if type(view) is not SpectatorView:
            raise InvalidView("the view is a player's view (its seat is not null)")
        return view


_PLAYER_VIEW_DOC = """\
What ``seat`` may see of a match at one moment; made by :func:`~american_sniff.view_for`.

    Everything in a :class:`~american_sniff.SpectatorView` (listed below), and:

    :ivar seat: The seat this view belongs to.
    :ivar hand: The seat's own tiles, sorted.
    :ivar drawn: A tile this seat has just drawn that fits, and so must be
        placed now; else None. (Whether another seat's drawn tile fits is not
        shown.)
    :ivar legal_moves: This seat's legal moves if it is to move, else empty.
    """


@attrs.frozen(kw_only=True)
class PlayerView(SpectatorView):  # noqa: D101 (the docstring is _PLAYER_VIEW_DOC, set below)
    seat: int
    hand: tuple[Tile, ...]
    drawn: Tile | None
    legal_moves: tuple[Move, ...]

    @property
    def viewer(self) -> int | None:
        """The seat this view belongs to."""
        return self.seat

    @property
    def is_my_turn(self) -> bool:
        """Whether this seat is to move (and the match goes on)."""
        return self.winner is None and self.turn == self.seat

    @property
    def previews(self) -> tuple[MovePreview, ...]:
        """For each legal move, in order, the end sum and points it would give.

        >>> from american_sniff import new_match
        >>> view = view_for(new_match(2, seed=1), 1)
        >>> view.previews[0]
        MovePreview(move=Place(Tile(0, 1)), end_sum=1, points=0)
        """
        return tuple(_preview(self.layout, move) for move in self.legal_moves)

    @classmethod
    def from_json(cls, text: str | bytes) -> PlayerView:
        """Read a player's view written by ``to_json``: the very view written.

        :raises InvalidView: naming the first problem, if ``text`` is not a
            player's view in the view format, or is not consistent (a table
            that is not a legal sequence, counts that do not add up).
        """
        view = view_from_json(text)
        if type(view) is not PlayerView:
            raise InvalidView("the view is a spectator's view (its seat is null)")
        return view


#: The fields every view has, documented once for both view classes.
_PUBLIC_FIELDS_DOC = """
    :ivar players: The number of players (2, 3 or 4).
    :ivar round: The round being played, 1 for the first.
    :ivar opener: The seat that opened the round.
    :ivar turn: The seat to move; once the match is over, the seat whose
        placement won it.
    :ivar target: The raw points a side needs to win.
    :ivar scores: Each side's score (per partnership with 4 players).
    :ivar winner: The side that won, or None while the match goes on.
    :ivar hand_sizes: How many tiles each seat holds, seat 0 first.
    :ivar stock_size: How many tiles are left to draw.
    :ivar layout: The table: its placements, open points, contributions and
        end sum.
    :ivar last_round: The previous round's result (public: hands are revealed
        at settlement); None in the first round. Its history is empty unless
        the view was made with ``last_round_history=True``, and then it hides
        the tiles the viewer may not see.
    :ivar voids: For each seat, the values it is known not to hold (see the
        module's notes). The same for every viewer: it comes from public facts.
    :ivar seq: The sequence number: how many actions the match has had.
"""
# Set from outside the classes (as state.py does): mypyc, when it compiles this
# module, drops the docstrings of the (non-native) classes it builds.
setattr(MovePreview, "__doc__", _MOVE_PREVIEW_DOC)  # noqa: B010
setattr(SpectatorView, "__doc__", _SPECTATOR_VIEW_DOC + _PUBLIC_FIELDS_DOC)  # noqa: B010
setattr(PlayerView, "__doc__", _PLAYER_VIEW_DOC + _PUBLIC_FIELDS_DOC)  # noqa: B010


def _preview(layout: Layout, move: Move) -> MovePreview:
    if type(move) is not Place:
        return MovePreview(move, None, 0)
    at = move.at
    end_sum = end_sum_after(layout, move.tile, None if at is None else at.order)
    return MovePreview(move, end_sum, rules.placement_points(end_sum))


# -- what views keep beside the state --------------------------------------------------
# For each node of a round's action log that a view has seen: the public facts
# that views need after that action (the table, the voids, how many actions),
# worked out from those after the node before by one step of the replayer
# (replayer.table_after); and, made only when a viewer asks for it, the log as
# that viewer sees it. Kept by node identity (the entry holds the node, so its
# id cannot be reused while the entry lives), and bounded: when full, it
# starts afresh.

#: A node of an action log as the code below holds it: an object, never
#: narrowed to its tuple type, which compiled code would unbox and box again
#: into a new tuple, losing the identity by which the views key what they keep.
_Node = Any
#: A viewer's log not made yet (None is the empty log).
_UNSET: Final[Any] = object()


class _Seen:
    """What views know after one node of an action log.

    ``voids`` are masks and ``void_sets`` the same as sets; ``current``,
    ``draws``, ``known`` and ``shown`` follow the turn under way (see
    :func:`_step`); ``hidden[v]`` is the log as viewer ``v`` sees it (index
    ``players``: a spectator), or ``_UNSET`` until a view for ``v`` needs it.
    """

    __slots__ = (
        "actions",
        "current",
        "draws",
        "hidden",
        "known",
        "layout",
        "node",
        "shown",
        "void_sets",
        "voids",
    )

    def __init__(  # noqa: PLR0913, PLR0917 - one slot each
        self,
        node: _Node,
        actions: int,
        layout: Layout,
        voids: tuple[int, ...],
        void_sets: tuple[frozenset[int], ...],
        current: int,
        draws: int,
        known: int,
        shown: int,
    ) -> None:
        self.node = node
        self.actions = actions
        self.layout = layout
        self.voids = voids
        self.void_sets = void_sets
        self.current = current
        self.draws = draws
        self.known = known
        self.shown = shown
        self.hidden: list[Any] = [_UNSET] * (len(voids) + 1)


_SEEN: dict[int, _Seen] = {}
_SEEN_LIMIT = 1 << 14


def _start(players: int) -> _Seen:
    """What is known before a round's first action."""
    return _STARTS[players]


_STARTS = {
    players: _Seen(None, 0, Layout.empty(), (0,) * players, (frozenset(),) * players, -1, 0, 0, 0)
    for players in rules.PLAYER_COUNTS
}


def _step(before: _Seen, node: _Node, layout: Layout | None) -> _Seen:
    """What is known after ``node``, from what was known before it.

    ``layout`` is the table after the node, if the caller has it (else the
    replayer's step places the node's tile, unchecked: the log is a state's).
    """
    seat, move, _, _, _, _ = node_fields(node)
    voids = before.voids
    sets = before.void_sets
    current, draws, known, shown = before.current, before.draws, before.known, before.shown
    table = before.layout
    if seat != current:
        current, draws, known, shown = seat, 0, voids[seat], table.value_mask
    kind = type(move)
    if kind is Place:
        table = table_after(table, move, checked=False) if layout is None else layout
        if draws == 0:  # a placement by choice tells nothing new
            return _Seen(node, before.actions + 1, table, voids, sets, -1, 0, known, shown)
    if kind is Draw:
        # It could not place; the tile it drew may show anything until its turn ends.
        draws += 1
        void = 0
    else:
        kept = draws if kind is Pass else draws - 1  # the placed tile was just drawn
        # The hand held none of the values shown. Tiles it kept from this turn's
        # draws show none of them either, but may show values known before.
        void = shown | (known if kept == 0 else 0)
        current = -1
    if void != voids[seat]:
        voids = voids[:seat] + (void,) + voids[seat + 1 :]
        sets = sets[:seat] + (_VALUES_OF_MASK[void],) + sets[seat + 1 :]
    return _Seen(node, before.actions + 1, table, voids, sets, current, draws, known, shown)


def _seen(log: _Node, players: int, layout: Layout, viewer: int) -> _Seen:
    """What is known after the newest node of ``log``, whose table is ``layout``.

    The nodes walked are seen for ``viewer`` too (its log, see
    :func:`_hidden_log`), where its log at the node before is known.
    """
    if log is None:
        return _start(players)
    entry = _SEEN.get(id(log))
    if entry is not None and entry.node is log:
        return entry
    # Walk back to the newest node already seen (the one before, as a rule).
    pending = []
    node: _Node = log
    known = None
    while node is not None:
        entry = _SEEN.get(id(node))
        if entry is not None and entry.node is node:
            known = entry
            break
        pending.append(node)
        node = previous_node(node)
    state = _start(players) if known is None else known
    hidden: _Node = None if known is None else known.hidden[viewer]
    if len(_SEEN) + len(pending) > _SEEN_LIMIT:
        _SEEN.clear()
    # A history a signed load read comes with its tables: nothing is placed again.
    signed = SIGNED_TABLES.get(id(log))
    tables = signed[1] if signed is not None and signed[0] is log else None
    last = -1 if tables is None else len(tables) - 1
    for index in range(len(pending) - 1, -1, -1):
        node = pending[index]
        table = layout if index == 0 else None if tables is None else tables[last - index]
        state = _step(state, node, table)
        if hidden is not _UNSET:
            hidden = _hide(node, viewer, hidden)
            state.hidden[viewer] = hidden
        _SEEN[id(node)] = state
    return state


def _hidden_log(log: _Node, viewer: int) -> _Node:
    """``log`` as ``viewer`` sees it (a spectator: the number of players): others' draws hidden.

    Made once per node and viewer, from the viewer's log at the node before.
    While nothing is hidden yet, the viewer's log is the log itself: only a
    draw by another seat needs a node of the viewer's own.
    """
    pending: list[tuple[_Node, _Seen | None]] = []
    node = log
    hidden: _Node = None
    while node is not None:
        entry = _SEEN.get(id(node))
        if entry is not None and entry.node is node:
            made = entry.hidden[viewer]
            if made is not _UNSET:
                hidden = made
                break
        else:
            entry = None
        pending.append((node, entry))
        node = previous_node(node)
    for index in range(len(pending) - 1, -1, -1):
        node, entry = pending[index]
        hidden = _hide(node, viewer, hidden)
        if entry is not None:
            entry.hidden[viewer] = hidden
    return hidden


def _hide(node: _Node, viewer: int, before: _Node) -> _Node:
    """``node`` as ``viewer`` sees it, after ``before``, the viewer's log at the node before."""
    seat, move, tile, end_sum, points, scores = node_fields(node)
    if tile is not None and seat != viewer:
        return action_node(seat, move, None, end_sum, points, scores, before)
    if before is previous_node(node):
        return node
    return action_node(seat, move, tile, end_sum, points, scores, before)


# -- views ---------------------------------------------------------------------------


@overload
def view_for(state: MatchState, seat: int, *, last_round_history: bool = False) -> PlayerView: ...


@overload
def view_for(
    state: MatchState, seat: None, *, last_round_history: bool = False
) -> SpectatorView: ...


def view_for(
    state: object, seat: int | None, *, last_round_history: bool = False
) -> PlayerView | SpectatorView:
    """What ``seat`` may see of ``state``; with ``seat=None``, what a spectator may see.

    The view costs the same at any point of a round (see the module's notes).
    The previous round's actions are left out unless ``last_round_history``.

    >>> from american_sniff import new_match
    >>> view = view_for(new_match(2, seed=1), 0)
    >>> len(view.hand), view.hand_sizes, view.stock_size, view.seq
    (7, (7, 7), 14, 0)

    :raises TypeError: if ``state`` is not a :class:`MatchState`.
    :raises ValueError: if ``seat`` is neither None nor a seat of the match.
    """
    if type(state) is not MatchState:
        raise TypeError(f"view_for() needs a MatchState, got {state!r}")
    info = state.info
    players = info.players
    if seat is not None:
        check_seat(players, seat)
    layout = state.layout
    log: _Node = log_of(state)
    viewer = players if seat is None else seat
    seen = _seen(log, players, layout, viewer)
    hidden = _hidden_log(log, viewer)
    _keep_hidden_text(log, hidden, viewer)
    last = info.last_round
    public = None if last is None else _public_result(last, viewer, last_round_history)
    ended = None if seen.actions else _ended(state, viewer, last_round_history)
    hand_sizes = tuple([len(hand) for hand in state.hands])
    stock_size = len(info.deck) - state.drawn_count
    seq = info.actions_before + seen.actions
    if seat is None:
        return SpectatorView(
            players=players,
            round=info.round,
            opener=info.opener,
            turn=state.turn,
            target=TARGET[players],
            scores=state.scores,
            winner=state.winner,
            hand_sizes=hand_sizes,
            stock_size=stock_size,
            layout=layout,
            last_round=public,
            voids=seen.void_sets,
            seq=seq,
            log=hidden,
            ended=ended,
        )
    to_move = state.winner is None and state.turn == seat
    return PlayerView(
        players=players,
        round=info.round,
        opener=info.opener,
        turn=state.turn,
        target=TARGET[players],
        scores=state.scores,
        winner=state.winner,
        hand_sizes=hand_sizes,
        stock_size=stock_size,
        layout=layout,
        last_round=public,
        voids=seen.void_sets,
        seq=seq,
        log=hidden,
        ended=ended,
        seat=seat,
        hand=state.hands[seat],
        drawn=state.drawn if to_move else None,
        legal_moves=legal_moves(state) if to_move else (),
    )


def spectator_view(state: MatchState, *, last_round_history: bool = False) -> SpectatorView:
    """What a spectator may see of ``state``: ``view_for(state, None)``.

    Everything every seat may see, and nothing any one seat alone may see: no
    hand, no drawn tile, no legal moves, and no tile drawn by anyone.

    >>> from american_sniff import new_match
    >>> view = spectator_view(new_match(3, seed=1))
    >>> view.viewer, view.hand_sizes, view.stock_size
    (None, (6, 6, 6), 10)

    :raises TypeError: if ``state`` is not a :class:`MatchState`.
    """
    return view_for(state, None, last_round_history=last_round_history)


#: The public forms of the last rounds' results, by the result's id (the entry
#: holds the result, so the id cannot be reused while it lives).
_PUBLIC: dict[tuple[int, int, bool], tuple[RoundResult, RoundResult]] = {}
#: How many public results are kept (each holds a finished round); when full,
#: the table starts afresh.
_PUBLIC_LIMIT = 1 << 10


def _public_result(result: RoundResult, viewer: int, with_history: bool) -> RoundResult:
    """``result`` without its history, or with the tiles ``viewer`` may not see hidden in it.

    Made once per result and viewer: every view of the round shares it.
    """
    key = (id(result), viewer, with_history)
    entry = _PUBLIC.get(key)
    if entry is not None and entry[0] is result:
        return entry[1]
    if len(_PUBLIC) >= _PUBLIC_LIMIT:
        _PUBLIC.clear()
    public = _hide_in_result(result, viewer, with_history)
    _PUBLIC[key] = (result, public)
    return public


def _hide_in_result(result: RoundResult, viewer: int, with_history: bool) -> RoundResult:
    """``result`` without its history, or with the tiles ``viewer`` may not see hidden in it."""
    log: ActionLog = None
    if with_history:
        for action in result.history:
            tile = action.tile if action.seat == viewer else None
            log = action_node(
                action.seat, action.move, tile, action.end_sum, action.points, action.scores, log
            )
    # Built field by field, as evolve(log=log) would, without its generic walk of the fields.
    return RoundResult(
        round=result.round,
        end=result.end,
        finisher=result.finisher,
        layout=result.layout,
        hands=result.hands,
        deductions=result.deductions,
        scores=result.scores,
        log=log,
        given=result.given,
    )


def _ended(state: MatchState, viewer: int, last_round_history: bool) -> Action | None:
    """In a round's first state, the action that ended the round before, as ``viewer`` sees it."""
    action = state.last_action
    if action is None:
        return None
    result = action.round_result
    assert result is not None  # a round's first state: the round before ended
    public = _public_result(result, viewer, last_round_history)
    tile = action.tile if action.seat == viewer else None
    return attrs.evolve(action, tile=tile, round_result=public)


# -- events ---------------------------------------------------------------------------


_VIEW_EVENT_DOC = """\
One action as one seat (or a spectator) sees it; made by :func:`~american_sniff.event_for`.

    :func:`~american_sniff.apply_event` applies it to the view before the action and gives the
    view after it. It holds nothing the viewer may not see.

    :ivar viewer: The seat it is for, or None for a spectator.
    :ivar seq: The sequence number of the view it leads to (one more than the
        view before).
    :ivar action: The action, another seat's drawn tile hidden, with the
        ``winner`` it made (its ``round_result`` is always None: see
        ``next_round``).
    :ivar turn: The seat to move after the action.
    :ivar drawn: The viewer's drawn tile that must be placed now, or None.
    :ivar legal_moves: The viewer's legal moves after the action (empty when
        it is not to move, and for a spectator).
    :ivar voids: What each seat is known not to hold after the action.
    :ivar next_round: If the action ended the round, the viewer's view of the
        next round's start (which carries the round's result); else None.
    """


@attrs.frozen(kw_only=True)
class ViewEvent:  # noqa: D101 (the docstring is _VIEW_EVENT_DOC, set below)
    viewer: int | None
    seq: int
    action: Action
    turn: int
    drawn: Tile | None
    legal_moves: tuple[Move, ...]
    voids: tuple[frozenset[int], ...]
    next_round: SpectatorView | None

    def to_json(self) -> str:
        """The event as JSON text, in the documented event format (``docs/formats.md``)."""
        return _event_text(self)

    @classmethod
    def from_json(cls, text: str | bytes) -> ViewEvent:
        """Read an event written by :meth:`~american_sniff.SpectatorView.to_json`.

        :raises InvalidView: naming the first problem.
        """
        return event_from_json(text)


setattr(ViewEvent, "__doc__", _VIEW_EVENT_DOC)  # noqa: B010  (see MovePreview)


def event_for(state: MatchState, seat: int | None) -> ViewEvent:
    """The event of the action that led to ``state``, as ``seat`` (None: a spectator) sees it.

    ``apply_event(view_for(before, seat), event_for(after, seat))`` equals
    ``view_for(after, seat)``. It costs the same at any point of a round.

    >>> from american_sniff import apply, legal_moves, new_match
    >>> state = new_match(2, seed=1)
    >>> after = apply(state, legal_moves(state)[0])
    >>> event = event_for(after, 0)
    >>> event.seq, str(event.action)
    (1, 'seat 1: [0|1] opens, sum 1, 0 points')
    >>> apply_event(view_for(state, 0), event) == view_for(after, 0)
    True

    :raises ValueError: if no action led to ``state`` (it starts the match),
        or ``seat`` is neither None nor a seat of the match.
    :raises TypeError: if ``state`` is not a :class:`MatchState`.
    """
    view = view_for(state, seat)
    action = view.last_action
    if action is None:
        raise ValueError("no action led to this state: it is the start of the match")
    started = action.round_result is not None
    if started:
        a = action
        action = Action(a.seat, a.move, a.tile, a.end_sum, a.points, a.scores, None, a.winner)
    return ViewEvent(
        viewer=seat,
        seq=view.seq,
        action=action,
        turn=view.turn,
        drawn=view.drawn if isinstance(view, PlayerView) else None,
        legal_moves=view.legal_moves if isinstance(view, PlayerView) else (),
        voids=view.voids,
        next_round=view if started else None,
    )


@overload
def apply_event(view: PlayerView, event: ViewEvent) -> PlayerView: ...


@overload
def apply_event(view: SpectatorView, event: ViewEvent) -> SpectatorView: ...


def apply_event(view: SpectatorView, event: ViewEvent) -> SpectatorView:
    """The view after ``event``, from the view before it; the same as ``view_for`` gives.

    It costs the same at any point of a round.

    :raises ValueError: if the event is for another viewer, or does not follow
        ``view`` (its sequence number is not the next one).
    """
    if event.viewer != view.viewer:
        raise ValueError(f"the event is for viewer {event.viewer}, the view for {view.viewer}")
    if event.seq != view.seq + 1:
        raise ValueError(
            f"the event has sequence number {event.seq}; the view expects {view.seq + 1}"
        )
    if event.next_round is not None:
        return event.next_round
    action = event.action
    seat, move = action.seat, action.move
    hand_sizes = list(view.hand_sizes)
    stock_size = view.stock_size
    layout = view.layout
    if type(move) is Place:
        hand_sizes[seat] -= 1
        layout = layout.place(move.tile, move.at)
    elif type(move) is Draw:
        hand_sizes[seat] += 1
        stock_size -= 1
    changes: dict[str, Any] = {
        "turn": event.turn,
        "scores": action.scores,
        "winner": action.winner,
        "hand_sizes": tuple(hand_sizes),
        "stock_size": stock_size,
        "layout": layout,
        "voids": event.voids,
        "seq": event.seq,
        "ended": None,
        "log": action_node(
            seat, move, action.tile, action.end_sum, action.points, action.scores, view._log
        ),
    }
    if isinstance(view, PlayerView):
        hand = view.hand
        if type(move) is Place and seat == view.seat:
            hand = tuple([tile for tile in hand if tile != move.tile])
        elif type(move) is Draw and action.tile is not None:
            hand = tuple(sorted((*hand, action.tile), key=_tile_order))
        changes.update(hand=hand, drawn=event.drawn, legal_moves=event.legal_moves)
    return attrs.evolve(view, **changes)


def _tile_order(tile: Tile) -> int:
    return tile.index


# -- known voids ---------------------------------------------------------------------


def known_voids(history: tuple[Action, ...], players: int) -> tuple[frozenset[int], ...]:
    """For each seat, the values it is known not to hold after the round's ``history``.

    Only public facts are used (who drew, passed or placed, and the table), so
    the result is the same for every viewer. See the module's notes. The
    round is played through the replayer (:func:`~american_sniff.replayer.round_tables`,
    each placement checked); views take the same steps one action at a time.

    >>> from american_sniff import Draw, Pass, Place, Tile
    >>> known_voids((Action(0, Place(Tile(3, 3))), Action(1, Draw()), Action(1, Pass())), 2)
    (frozenset(), frozenset({3}))

    :raises IllegalMove: if a placement of ``history`` does not fit the table.
    """
    seen = _start(players)
    log: ActionLog = None
    tables = round_tables([action.move for action in history])
    for action, table in zip(history, tables, strict=True):
        log = action_node(action.seat, action.move, None, None, 0, (), log)
        seen = _step(seen, log, table)
    return seen.void_sets


# -- JSON: writing ----------------------------------------------------------------------


def _placements(layout: Layout) -> list[str]:
    """The moves that built the table, in the order placed (the engine's own moves)."""
    tiles = layout.tiles
    if not tiles:
        return []
    moves = [str(OPEN[tiles[0].index])]
    for tile, connection in zip(tiles[1:], layout.connections, strict=True):
        moves.append(str(PLACE[tile.index][connection.at.order]))
    return moves


def _table_doc(layout: Layout) -> dict[str, Any]:
    return {
        "placements": _placements(layout),
        "open_points": [str(POINT_OF_KEY[key]) for key in layout.open_keys],
        "contributions": [
            {"point": str(c.point), "value": c.value} for c in layout.contributions()
        ],
        "end_sum": layout.end_sum,
        "sniff": None if layout.sniff is None else tile_text(layout.sniff),
    }


#: The documents of the public results views hold, by the result's id (the
#: entry holds the result, so the id cannot be reused while it lives): every
#: view of a round writes the same one.
_ROUND_DOCS: dict[int, tuple[RoundResult, dict[str, Any]]] = {}


def _round_doc(result: RoundResult) -> dict[str, Any]:
    """The document of a finished round: a fresh copy of the one made for the round."""
    entry = _ROUND_DOCS.get(id(result))
    if entry is None or entry[0] is not result:
        if len(_ROUND_DOCS) >= _PUBLIC_LIMIT:
            _ROUND_DOCS.clear()
        entry = (result, _new_round_doc(result))
        _ROUND_DOCS[id(result)] = entry
    doc = entry[1]
    history = doc["history"]
    # A copy, so that a caller who changes the dict it gets changes no other view's.
    return {
        **doc,
        "hands": [list(hand) for hand in doc["hands"]],
        "deductions": list(doc["deductions"]),
        "scores": list(doc["scores"]),
        "placements": list(doc["placements"]),
        "history": None if history is None else [dict(action) for action in history],
    }


def _new_round_doc(result: RoundResult) -> dict[str, Any]:
    history = result.history
    return {
        "round": result.round,
        "end": result.end.value,
        "finisher": result.finisher,
        "hands": [[tile_text(t) for t in hand] for hand in result.hands],
        "deductions": list(result.deductions),
        "scores": list(result.scores),
        "placements": _placements(result.layout),
        "history": [action_to_dict(a) for a in history] if history else None,
        "dealt_from": "deal" if result.given else "seed",
    }


def _rect(rect: Rect) -> list[int]:
    return [rect.x0, rect.y0, rect.x1, rect.y1]


def geometry_to_dict(geometry: Geometry) -> dict[str, Any]:
    """The ``geometry`` key of a view document: the table laid out for drawing.

    Rectangles and segments are ``[x0, y0, x1, y1]`` in geometry units
    (``half`` units to a half tile), ``y`` growing downwards; directions are
    ``"east"``, ``"south"``, ``"west"`` or ``"north"``. See ``docs/formats.md``.

    >>> from american_sniff import Layout, Tile
    >>> from american_sniff.render import table_geometry
    >>> doc = geometry_to_dict(table_geometry(Layout.empty().place(Tile(1, 4))))
    >>> doc["tiles"][0]["rect"], doc["anchors"][0]["point"], doc["anchors"][0]["facing"]
    ([-2, -1, 2, 1], '[1|4] low', 'west')
    """
    from ..render.geometry import HALF  # noqa: PLC0415 (loaded when drawn)

    return {
        "page": None if geometry.page is None else list(geometry.page),
        "half": HALF,
        "bounds": _rect(geometry.bounds),
        "tiles": [
            {
                "tile": tile_text(placed.tile),
                "rect": _rect(placed.rect),
                "heading": placed.heading.name.lower(),
                "low_half": _rect(placed.low_half),
                "high_half": _rect(placed.high_half),
                "edges": [
                    {
                        "side": edge.side.value,
                        "segment": [edge.x0, edge.y0, edge.x1, edge.y1],
                        "facing": edge.facing.name.lower(),
                    }
                    for edge in placed.edges
                ],
            }
            for placed in geometry.tiles
        ],
        "anchors": [
            {
                "point": str(anchor.point),
                "x": anchor.x,
                "y": anchor.y,
                "facing": anchor.facing.name.lower(),
                "marker": _rect(anchor.marker),
                "value": anchor.value,
            }
            for anchor in geometry.anchors
        ],
    }


def view_to_dict(
    view: SpectatorView, *, geometry: bool = False, page: tuple[int, int] | None = TABLE_PAGE
) -> dict[str, Any]:
    """The view document as a dict of JSON values (what ``view.to_json()`` writes).

    A spectator's view has ``seat``, ``hand`` and ``drawn`` null and
    ``legal_moves`` and ``previews`` null. ``geometry`` is null unless asked
    for (see :meth:`~american_sniff.SpectatorView.to_json`).
    """
    player = view if isinstance(view, PlayerView) else None
    last = view.last_action
    return {
        **document_header(VIEW_FORMAT),
        "players": view.players,
        "seat": None if player is None else player.seat,
        "round": view.round,
        "opener": view.opener,
        "turn": view.turn,
        "target": view.target,
        "scores": list(view.scores),
        "winner": view.winner,
        "hand": None if player is None else [tile_text(t) for t in player.hand],
        "drawn": None if player is None or player.drawn is None else tile_text(player.drawn),
        "hand_sizes": list(view.hand_sizes),
        "stock_size": view.stock_size,
        "table": _table_doc(view.layout),
        "legal_moves": None if player is None else [str(m) for m in player.legal_moves],
        "previews": None
        if player is None
        else [
            {"move": str(p.move), "end_sum": p.end_sum, "points": p.points} for p in player.previews
        ],
        "history": [action_to_dict(a) for a in view.history],
        "last_round": None if view.last_round is None else _round_doc(view.last_round),
        "voids": [sorted(values) for values in view.voids],
        "seq": view.seq,
        "last_action": None if last is None else action_to_dict(last),
        "geometry": geometry_to_dict(view.table_geometry(page)) if geometry else None,
    }


# -- JSON: writing, fast ------------------------------------------------------------------
# view.to_json() writes json.dumps(view_to_dict(view), separators=(",", ":")),
# byte for byte (the tests compare them), by joining pieces of text; the pieces
# shared by many views (the table, the previous round, the histories) are kept
# once made, so a view's text costs about the same at any point of a round.

_VIEW_HEAD = json.dumps(document_header(VIEW_FORMAT), separators=(",", ":"))[:-1]
#: The JSON text (a quoted string) of each open point, by its key.
_POINT_JSON = tuple("" if point is None else f'"{point}"' for point in POINT_OF_KEY)
#: The JSON text of each table met (its ``table`` object), by the layout's id.
_TABLE_TEXTS: dict[int, tuple[Layout, str]] = {}
#: The JSON text of each public result met (a view's ``last_round``), by its id.
_VIEW_ROUND_TEXTS: dict[int, tuple[RoundResult, str]] = {}
_TEXTS_LIMIT = 1 << 12


#: The text of each table's placements met (what ``_placements_text`` writes,
#: without its brackets), by the id of the newest node of the table's chain of
#: placements.
_PLACEMENT_TEXTS: dict[int, tuple[object, str]] = {}


def _placements_text(layout: Layout) -> str:
    """The JSON list ``_placements(layout)`` gives, kept by the table's chain of placements.

    The text of a table whose table before was written costs one placement;
    a table that a signed load built has its text from the load.
    """
    log = layout._log
    if log is None:
        return "[]"
    entry = _PLACEMENT_TEXTS.get(id(log))
    if entry is not None and entry[0] is log:
        return "[" + entry[1] + "]"
    signed = SIGNED_PLACEMENTS.get(id(layout))
    if signed is not None and signed[0] is layout:  # a table a signed load built
        if len(_PLACEMENT_TEXTS) >= _TEXTS_LIMIT:
            _PLACEMENT_TEXTS.clear()
        _PLACEMENT_TEXTS[id(log)] = (log, signed[1])
        return "[" + signed[1] + "]"
    pending: list[tuple[Tile, int | None, Any]] = []
    node = log
    text = ""
    while node is not None:
        entry = _PLACEMENT_TEXTS.get(id(node))
        if entry is not None and entry[0] is node:
            text = entry[1]
            break
        pending.append(node)
        node = node[2]
    pieces = [text] if text else []
    for index in range(len(pending) - 1, -1, -1):
        tile, key, _ = pending[index]
        move = OPEN[tile.index] if key is None else PLACE[tile.index][key]
        assert move is not None  # the key of a placement on the table
        pieces.append(f'"{_move_text(move)}"')
    text = ",".join(pieces)
    if len(_PLACEMENT_TEXTS) >= _TEXTS_LIMIT:
        _PLACEMENT_TEXTS.clear()
    _PLACEMENT_TEXTS[id(log)] = (log, text)
    return "[" + text + "]"


def _table_text(layout: Layout) -> str:
    """``_table_doc(layout)`` as compact JSON text, kept once made."""
    entry = _TABLE_TEXTS.get(id(layout))
    if entry is not None and entry[0] is layout:
        return entry[1]
    if len(_TABLE_TEXTS) >= _TEXTS_LIMIT:
        _TABLE_TEXTS.clear()
    keys = layout.open_keys
    worths = [f'{{"point":{_POINT_JSON[key]},"value":{WORTH_OF_KEY[key]}}}' for key in keys]
    if is_lone_double(keys):
        del worths[1]  # a lone opening double counts once, at line_a
    sniff = layout.sniff
    text = (
        f'{{"placements":{_placements_text(layout)},'
        f'"open_points":[{",".join([_POINT_JSON[key] for key in keys])}],'
        f'"contributions":[{",".join(worths)}],"end_sum":{layout.end_sum},'
        f'"sniff":{"null" if sniff is None else chr(34) + tile_text(sniff) + chr(34)}}}'
    )
    _TABLE_TEXTS[id(layout)] = (layout, text)
    return text


def _view_round_text(result: RoundResult | None) -> str:
    """``_round_doc(result)`` as compact JSON text, kept once made."""
    if result is None:
        return "null"
    entry = _VIEW_ROUND_TEXTS.get(id(result))
    if entry is not None and entry[0] is result:
        return entry[1]
    if len(_VIEW_ROUND_TEXTS) >= _TEXTS_LIMIT:
        _VIEW_ROUND_TEXTS.clear()
    log: _Node = result._log
    finisher = "null" if result.finisher is None else str(result.finisher)
    hands = ",".join([tiles_text(hand) for hand in result.hands])
    text = (
        f'{{"round":{result.round},"end":"{result.end.value}","finisher":{finisher},'
        f'"hands":[{hands}],"deductions":{ints_text(result.deductions)},'
        f'"scores":{ints_text(result.scores)},"placements":{_placements_text(result.layout)},'
        f'"history":{"null" if log is None else log_text(log)},'
        f'"dealt_from":"{"deal" if result.given else "seed"}"}}'
    )
    _VIEW_ROUND_TEXTS[id(result)] = (result, text)
    return text


#: A draw's action in the text of a history: its seat and its tile.
_DRAW_TEXT = re.compile(r'\{"seat":([0-9]),"move":"draw","tile":"\[[0-6]\|[0-6]\]"')


#: How many actions back :func:`_keep_hidden_text` looks for a viewer's history
#: with a text: two turns of every seat.
_HIDDEN_TEXT_REACH: Final = 8


def _keep_hidden_text(log: _Node, hidden: _Node, viewer: int) -> None:
    """Keep the text of a viewer's history made from the round's own text, if that is kept.

    A viewer's history is the round's with other seats' drawn tiles hidden, so
    its text is the round's text (kept, say, by a signed load) with those
    tiles written null. This is done only when none of the viewer's histories
    of the last :data:`_HIDDEN_TEXT_REACH` actions has a text yet: otherwise
    writing the view adds those few actions to the text already made (a
    server that loads each state and views the seat to move meets a seat's
    history of a few actions back, not of the action before).
    """
    kept = LOG_TEXTS.get(id(log))
    if kept is None or kept[0] is not log or hidden is None:
        return
    node: _Node = hidden
    for _ in range(_HIDDEN_TEXT_REACH):
        if node is None:
            break
        entry = LOG_TEXTS.get(id(node))
        if entry is not None and entry[0] is node:
            return
        node = node[6]
    mine = str(viewer)

    def hide(draw: re.Match[str]) -> str:
        if draw.group(1) == mine:
            return draw.group(0)
        return f'{{"seat":{draw.group(1)},"move":"draw","tile":null'

    LOG_TEXTS[id(hidden)] = (hidden, _DRAW_TEXT.sub(hide, kept[1]))


def _view_text(view: SpectatorView, geometry: bool, page: tuple[int, int] | None) -> str:
    """``json.dumps(view_to_dict(view, ...), separators=(",", ":"))``, from kept pieces."""
    log: _Node = view._log
    if log is not None:
        last = action_text(log)  # the newest action alone
    elif view._ended is not None:
        last = json.dumps(action_to_dict(view._ended), separators=(",", ":"))
    else:
        last = "null"
    winner = "null" if view.winner is None else str(view.winner)
    voids = ",".join([ints_text(sorted(values)) for values in view.voids])
    if isinstance(view, PlayerView):
        layout = view.layout
        moves = [_move_text(move) for move in view.legal_moves]
        previews = []
        for move, text in zip(view.legal_moves, moves, strict=True):
            if type(move) is Place:
                at = move.at
                end_sum = end_sum_after(layout, move.tile, None if at is None else at.order)
                points = rules.placement_points(end_sum)
                previews.append(f'{{"move":"{text}","end_sum":{end_sum},"points":{points}}}')
            else:
                previews.append(f'{{"move":"{text}","end_sum":null,"points":0}}')
        drawn = view.drawn
        own = (
            f'"seat":{view.seat}',
            f'"hand":{tiles_text(view.hand)}',
            "null" if drawn is None else f'"{tile_text(drawn)}"',
            "[" + ",".join([f'"{text}"' for text in moves]) + "]",
            "[" + ",".join(previews) + "]",
        )
    else:
        own = ('"seat":null', '"hand":null', "null", "null", "null")
    drawing = "null"
    if geometry:
        drawing = json.dumps(geometry_to_dict(view.table_geometry(page)), separators=(",", ":"))
    return (
        f'{_VIEW_HEAD},"players":{view.players},{own[0]},"round":{view.round},'
        f'"opener":{view.opener},"turn":{view.turn},"target":{view.target},'
        f'"scores":{ints_text(view.scores)},"winner":{winner},{own[1]},"drawn":{own[2]},'
        f'"hand_sizes":{ints_text(view.hand_sizes)},"stock_size":{view.stock_size},'
        f'"table":{_table_text(view.layout)},"legal_moves":{own[3]},"previews":{own[4]},'
        f'"history":{log_text(log)},"last_round":{_view_round_text(view.last_round)},'
        f'"voids":[{voids}],"seq":{view.seq},"last_action":{last},"geometry":{drawing}}}'
    )


_EVENT_HEAD = json.dumps(document_header(EVENT_FORMAT), separators=(",", ":"))[:-1]


def _event_text(event: ViewEvent) -> str:
    """``json.dumps(event_to_dict(event), separators=(",", ":"))``, from kept pieces."""
    action = event.action
    tile = action.tile
    move = _move_text(action.move)
    if type(action.move) is Place:
        sums = f'"end_sum":{action.end_sum},"points":{action.points}'
    else:
        sums = '"end_sum":null,"points":null'
    viewer = "null" if event.viewer is None else str(event.viewer)
    winner = "null" if action.winner is None else str(action.winner)
    drawn = "null" if event.drawn is None else f'"{tile_text(event.drawn)}"'
    moves = ",".join([f'"{_move_text(m)}"' for m in event.legal_moves])
    voids = ",".join([ints_text(sorted(values)) for values in event.voids])
    view = event.next_round
    next_round = "null" if view is None else _view_text(view, False, TABLE_PAGE)
    return (
        f'{_EVENT_HEAD},"viewer":{viewer},"seq":{event.seq},'
        f'"action":{{"seat":{action.seat},"move":"{move}",'
        f'"tile":{"null" if tile is None else chr(34) + tile_text(tile) + chr(34)},{sums}}},'
        f'"scores":{ints_text(action.scores)},"winner":{winner},"turn":{event.turn},'
        f'"drawn":{drawn},"legal_moves":[{moves}],"voids":[{voids}],'
        f'"next_round":{next_round}}}'
    )


def event_to_dict(event: ViewEvent) -> dict[str, Any]:
    """The event document as a dict of JSON values (what ``event.to_json()`` writes)."""
    action = event.action
    return {
        **document_header(EVENT_FORMAT),
        "viewer": event.viewer,
        "seq": event.seq,
        "action": action_to_dict(action),
        "scores": list(action.scores),
        "winner": action.winner,
        "turn": event.turn,
        "drawn": None if event.drawn is None else tile_text(event.drawn),
        "legal_moves": [str(m) for m in event.legal_moves],
        "voids": [sorted(values) for values in event.voids],
        "next_round": None if event.next_round is None else view_to_dict(event.next_round),
    }


# -- JSON: reading ----------------------------------------------------------------------

#: The longest view or event text that reading accepts: 256 KiB.
MAX_VIEW_BYTES = 1 << 18


def view_from_json(text: object) -> SpectatorView:
    """Read a view document: a player's view, or a spectator's if its seat is null.

    :raises InvalidView: naming the first problem.
    """
    data = read_json(text, max_bytes=MAX_VIEW_BYTES, error=InvalidView, what="the view")
    if isinstance(data, dict):
        check_header(data, VIEW_FORMAT, InvalidView)
    return _view_from(structure(data, ViewDoc, InvalidView, "the view"), "$")


def event_from_json(text: object) -> ViewEvent:
    """Read an event document.

    :raises InvalidView: naming the first problem.
    """
    data = read_json(text, max_bytes=MAX_VIEW_BYTES, error=InvalidView, what="the event")
    if isinstance(data, dict):
        check_header(data, EVENT_FORMAT, InvalidView)
        if isinstance(data.get("next_round"), dict):
            check_header(data["next_round"], VIEW_FORMAT, InvalidView)
    doc = structure(data, EventDoc, InvalidView, "the event")
    next_round = None if doc.next_round is None else _view_from(doc.next_round, "$.next_round")
    players = len(doc.voids)
    if players not in rules.PLAYER_COUNTS:
        raise InvalidView(f"$.voids must hold one list per seat, got {players}")
    action = _action_from(doc.action, doc.scores, doc.winner, players, "$.action")
    if next_round is not None and next_round.viewer != doc.viewer:
        raise InvalidView("$.next_round is a view for another viewer than the event's")
    return ViewEvent(
        viewer=_optional_seat(doc.viewer, players, "$.viewer"),
        seq=_count(doc.seq, "$.seq"),
        action=action,
        turn=_seat(doc.turn, players, "$.turn"),
        drawn=None if doc.drawn is None else _tile(doc.drawn, "$.drawn"),
        legal_moves=tuple(_move(m, f"$.legal_moves[{i}]") for i, m in enumerate(doc.legal_moves)),
        voids=_voids(doc.voids, players, "$.voids"),
        next_round=next_round,
    )


def _seat(value: int, players: int, where: str) -> int:
    if not 0 <= value < players:
        raise InvalidView(f"{where} must be a seat from 0 to {players - 1}, got {value}")
    return value


def _optional_seat(value: int | None, players: int, where: str) -> int | None:
    return None if value is None else _seat(value, players, where)


def _count(value: int, where: str) -> int:
    if value < 0:
        raise InvalidView(f"{where} must not be negative, got {value}")
    return value


def _tile(text: str, where: str) -> Tile:
    try:
        return parse_tile(text, strict=True)
    except ValueError as exc:
        raise InvalidView(f"{where}: {exc}") from None


def _move(text: str, where: str) -> Move:
    try:
        return parse_move(text, strict=True)
    except ValueError as exc:
        raise InvalidView(f"{where}: {exc}") from None


def _voids(docs: list[list[int]], players: int, where: str) -> tuple[frozenset[int], ...]:
    if len(docs) != players:
        raise InvalidView(f"{where} must hold {players} lists, one per seat")
    for seat, values in enumerate(docs):
        if values != sorted(set(values)) or any(not 0 <= v <= 6 for v in values):
            raise InvalidView(f"{where}[{seat}] must be distinct values from 0 to 6, in order")
    return tuple(frozenset(values) for values in docs)


def _action_from(
    doc: ActionDoc, scores: list[int], winner: int | None, players: int, where: str
) -> Action:
    log = _log([doc], players, tuple(scores), where, "the action", check_sides=True)
    assert log is not None
    seat, move, tile, end_sum, points, after = node_fields(log)
    return Action(seat, move, tile, end_sum, points, after, None, winner)


def _log(  # noqa: PLR0913 - one keyword-only switch beyond the five
    docs: list[ActionDoc],
    players: int,
    scores: tuple[int, ...],
    where: str,
    what: str,
    *,
    check_sides: bool = False,
) -> ActionLog:
    if check_sides and len(scores) != rules.side_count(players):
        raise InvalidView(f"{where}: the scores must hold one integer per side")
    try:
        return action_log_from(docs, players, scores, where, hidden_draws=True)
    except InvalidState as exc:
        raise InvalidView(f"{what}: {exc}") from None


def _layout(placements: list[str], where: str) -> Layout:
    layout = Layout.empty()
    for index, text in enumerate(placements):
        move = _move(text, f"{where}[{index}]")
        if type(move) is not Place:
            raise InvalidView(f"{where}[{index}] is not a placement: {text!r}")
        try:
            layout = layout.place(move.tile, move.at)
        except ValueError as exc:
            raise InvalidView(f"{where}[{index}] ({text}) is illegal: {exc}") from None
    return layout


def _view_from(doc: ViewDoc, where: str) -> SpectatorView:
    """The view a document describes; every derived key must agree with the rest."""
    players = doc.players
    if players not in rules.PLAYER_COUNTS:
        raise InvalidView(f"{where}.players must be 2, 3 or 4, got {players}")
    sides = rules.side_count(players)
    scores = tuple(doc.scores)
    if len(scores) != sides:
        raise InvalidView(f"{where}.scores must hold one integer per side, got {len(scores)}")
    layout = _layout(doc.table.placements, f"{where}.table.placements")
    if _table_doc(layout) != attrs.asdict(doc.table):
        raise InvalidView(f"{where}.table does not match the table its placements build")
    if len(doc.hand_sizes) != players:
        raise InvalidView(f"{where}.hand_sizes must hold {players} integers")
    log = _log(doc.history, players, scores, f"{where}.history", "the history")
    last_round = None if doc.last_round is None else _round_from(doc.last_round, players, where)
    last_action = _last_action_from(doc, players, log, last_round, where)
    ended = last_action if log is None else None
    public: dict[str, Any] = {
        "players": players,
        "round": _count(doc.round, f"{where}.round"),
        "opener": _seat(doc.opener, players, f"{where}.opener"),
        "turn": _seat(doc.turn, players, f"{where}.turn"),
        "target": doc.target,
        "scores": scores,
        "winner": None if doc.winner is None else _seat(doc.winner, sides, f"{where}.winner"),
        "hand_sizes": tuple(_count(n, f"{where}.hand_sizes") for n in doc.hand_sizes),
        "stock_size": _count(doc.stock_size, f"{where}.stock_size"),
        "layout": layout,
        "last_round": last_round,
        "voids": _voids(doc.voids, players, f"{where}.voids"),
        "seq": _count(doc.seq, f"{where}.seq"),
        "ended": ended,
        "log": log,
    }
    if doc.target != TARGET[players]:
        raise InvalidView(f"{where}.target is {TARGET[players]} with {players} players")
    if doc.geometry is not None:
        _check_geometry(doc.geometry, layout, f"{where}.geometry")
    _check_draws_shown(log, doc.seat, f"{where}.history")
    if last_round is not None:
        _check_draws_shown(_log_of(last_round), doc.seat, f"{where}.last_round.history")
    if doc.seat is None:
        for key in ("hand", "drawn", "legal_moves", "previews"):
            if getattr(doc, key) is not None:
                raise InvalidView(f"{where}.{key} must be null in a spectator's view")
        return SpectatorView(**public)
    seat = _seat(doc.seat, players, f"{where}.seat")
    if doc.hand is None or doc.legal_moves is None or doc.previews is None:
        raise InvalidView(f"{where}: a player's view has a hand, legal moves and previews")
    hand = tuple(_tile(t, f"{where}.hand[{i}]") for i, t in enumerate(doc.hand))
    if list(hand) != sorted(set(hand), key=_tile_order) or len(hand) != doc.hand_sizes[seat]:
        raise InvalidView(f"{where}.hand must be distinct tiles, sorted, as many as its size")
    view = PlayerView(
        **public,
        seat=seat,
        hand=hand,
        drawn=None if doc.drawn is None else _tile(doc.drawn, f"{where}.drawn"),
        legal_moves=tuple(
            _move(m, f"{where}.legal_moves[{i}]") for i, m in enumerate(doc.legal_moves)
        ),
    )
    previews = [attrs.astuple(p) for p in doc.previews]
    if previews != [(str(p.move), p.end_sum, p.points) for p in view.previews]:
        raise InvalidView(f"{where}.previews do not match the legal moves on this table")
    return view


def _check_geometry(doc: GeometryDoc, layout: Layout, where: str) -> None:
    """The geometry written must be the table's, laid out on the page it names."""
    page = doc.page
    if page is not None and (len(page) != 2 or min(page) <= 0):
        raise InvalidView(f"{where}.page must be null or two positive integers, got {page}")
    from ..render.geometry import table_geometry  # noqa: PLC0415 (loaded when drawn)

    made = table_geometry(layout, page=None if page is None else (page[0], page[1]))
    if geometry_to_dict(made) != attrs.asdict(doc):
        raise InvalidView(f"{where} is not the table's geometry on its page")


def _check_draws_shown(log: ActionLog, viewer: int | None, where: str) -> None:
    """A view shows the tiles its own seat drew and hides every other."""
    while log is not None:
        seat, move, tile, *_ = node_fields(log)
        log = previous_node(log)
        if type(move) is Draw and (tile is not None) != (seat == viewer):
            need = "the tile drawn" if seat == viewer else "null (hidden from this viewer)"
            raise InvalidView(f"{where}: the tile of a draw by seat {seat} must be {need}")


def _log_of(result: RoundResult) -> ActionLog:
    """The log of a finished round, newest first, from its history."""
    log: ActionLog = None
    for a in result.history:
        log = action_node(a.seat, a.move, a.tile, a.end_sum, a.points, a.scores, log)
    return log


def _round_from(doc: ViewRoundDoc, players: int, where: str) -> RoundResult:
    where = f"{where}.last_round"
    try:
        end = RoundEnd(doc.end)
    except ValueError:
        raise InvalidView(f"{where}.end must be 'domino' or 'blocked', got {doc.end!r}") from None
    if len(doc.deductions) != players or len(doc.hands) != players:
        raise InvalidView(f"{where}: the hands and deductions must hold one entry per seat")
    if len(doc.scores) != rules.side_count(players):
        raise InvalidView(f"{where}.scores must hold one integer per side")
    layout = _layout(doc.placements, f"{where}.placements")
    log = None
    if doc.history is not None:
        log = _log(doc.history, players, _before_settlement(doc), f"{where}.history", "last round")
    return RoundResult(
        round=doc.round,
        end=end,
        finisher=None if doc.finisher is None else _seat(doc.finisher, players, where),
        layout=layout,
        hands=tuple(
            tuple(_tile(t, f"{where}.hands[{s}]") for t in hand) for s, hand in enumerate(doc.hands)
        ),
        deductions=tuple(doc.deductions),
        scores=tuple(doc.scores),
        log=log,
        given=_dealt_from(doc.dealt_from, where),
    )


def _dealt_from(text: str, where: str) -> bool:
    if text not in ("seed", "deal"):
        raise InvalidView(f"{where}.dealt_from must be 'seed' or 'deal', got {text!r}")
    return text == "deal"


def _before_settlement(doc: ViewRoundDoc) -> tuple[int, ...]:
    """The scores a round ended at, before its settlement took the deductions."""
    players = len(doc.deductions)
    before = list(doc.scores)
    for seat, amount in enumerate(doc.deductions):
        before[rules.side_of(players, seat)] += amount
    return tuple(before)


def _last_action_from(
    doc: ViewDoc,
    players: int,
    log: ActionLog,
    last_round: RoundResult | None,
    where: str,
) -> Action | None:
    """The view's last action: the newest of its history, or the one that ended the round before."""
    if doc.last_action is None:
        if log is not None or last_round is not None:
            raise InvalidView(f"{where}.last_action is null, but an action led to this view")
        return None
    if log is not None:
        seat, move, tile, end_sum, points, scores = node_fields(log)
        action = Action(seat, move, tile, end_sum, points, scores, None, doc.winner)
    elif doc.last_round is not None and last_round is not None:
        action = _action_from(
            doc.last_action, list(_before_settlement(doc.last_round)), None, players, where
        )
        action = attrs.evolve(action, round_result=last_round)
    else:
        raise InvalidView(f"{where}.last_action is given, but no action led to this view")
    if action_to_dict(action) != attrs.asdict(doc.last_action):
        raise InvalidView(f"{where}.last_action does not match the history")
    return action
