"""The view classes: a spectator's view, a player's view, a move's preview, an event.

Also the formats' names and the few pieces every module of the package
shares. The classes' ``to_json`` and ``from_json`` call the writer
(:mod:`american_sniff.views.writer`) and the reader
(:mod:`american_sniff.views.reader`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import attrs

from .. import rules
from ..errors import InvalidView
from ..layout import Layout, end_sum_after
from ..moves import Move, Place
from ..state import Action, ActionLog, RoundResult, node_fields, previous_node
from ..tiles import Tile

if TYPE_CHECKING:
    from ..render.geometry import Geometry


#: The page a view's table is drawn on unless told otherwise, in the drawing's
#: units: :data:`american_sniff.render.DEFAULT_PAGE` (a test checks they agree;
#: the views do not load the rendering until a table is drawn).
TABLE_PAGE: Final = (48, 40)

__all__ = [
    "EVENT_FORMAT",
    "VIEW_FORMAT",
    "MovePreview",
    "PlayerView",
    "SpectatorView",
    "ViewEvent",
]

#: The ``format`` of a view document (a player's or a spectator's).
VIEW_FORMAT = "american-sniff/view"
#: The ``format`` of an event document.
EVENT_FORMAT = "american-sniff/event"

#: A node of an action log as the views' code holds it: an object, never
#: narrowed to its tuple type, which compiled code would unbox and box again
#: into a new tuple, losing the identity by which the views key what they keep.
Node = Any
#: How many public results of rounds, and their documents, the views keep
#: (each holds a finished round); when full, a table starts afresh.
PUBLIC_LIMIT = 1 << 10


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
        from .writer import view_text  # noqa: PLC0415 - the writer imports this module

        return view_text(self, geometry, page)

    def table_geometry(self, page: tuple[int, int] | None = TABLE_PAGE) -> Geometry:
        """The table laid out in the plane for drawing: a rectangle per tile, an anchor per point.

        This is :func:`american_sniff.render.table_geometry` of :attr:`layout`;
        ``to_json(geometry=True)`` writes it.

        >>> from american_sniff import new_match, spectator_view
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
        from .reader import view_from_json  # noqa: PLC0415 - the reader imports this module

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

        >>> from american_sniff import new_match, view_for
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
        from .reader import view_from_json  # noqa: PLC0415 - the reader imports this module

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
        from .writer import event_text  # noqa: PLC0415 - the writer imports this module

        return event_text(self)

    @classmethod
    def from_json(cls, text: str | bytes) -> ViewEvent:
        """Read an event written by :meth:`~american_sniff.SpectatorView.to_json`.

        :raises InvalidView: naming the first problem.
        """
        from .reader import event_from_json  # noqa: PLC0415 - the reader imports this module

        return event_from_json(text)


setattr(ViewEvent, "__doc__", _VIEW_EVENT_DOC)  # noqa: B010  (see MovePreview)


def tile_order(tile: Tile) -> int:
    """Where ``tile`` goes in a sorted hand: its index (the sort key of hands)."""
    return tile.index


# -- the views' private slots, for the package's other modules -----------------------


def view_log(view: SpectatorView) -> Node:
    """The round's actions as ``view``'s viewer sees them, newest first (its log's newest node)."""
    log: Node = view._log
    return log


def ended_of(view: SpectatorView) -> Action | None:
    """In a round's first view, the action that ended the round before; else None."""
    return view._ended
