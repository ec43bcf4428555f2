"""What one seat may see of a match: :class:`PlayerView` and :func:`~american_sniff.view_for`.

A view holds the seat's own hand and everything public: the table, how many
tiles each hand and the stock hold, the scores, whose turn it is, the round's
actions (a draw by another seat shows that a tile was drawn, not which), the
previous round's result (its hands are revealed at settlement), and what each
seat is known not to hold. It never holds the other hands, the stock, the
seed or the generator state, from which the deal could be worked out.

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
from typing import Any

import attrs

from .engine import legal_moves
from .layout import Connection, Layout
from .moves import Draw, Move, Place
from .rules import TARGET
from .serial import action_to_json, document_header, round_result_to_json, tile_text
from .state import Action, ActionLog, MatchState, RoundResult, check_seat
from .tiles import Tile

__all__ = ["VIEW_FORMAT", "PlayerView", "known_voids", "view_for", "view_to_dict"]

#: The ``format`` of a view document.
VIEW_FORMAT = "american-sniff/view"


@attrs.frozen
class PlayerView:
    """What ``seat`` may see of a match at one moment; made by :func:`~american_sniff.view_for`.

    :ivar seat: The seat this view belongs to.
    :ivar players: The number of players (2, 3 or 4).
    :ivar round: The round being played, 1 for the first.
    :ivar opener: The seat that opened the round.
    :ivar turn: The seat to move; once the match is over, the seat whose
        placement won it.
    :ivar target: The raw points a side needs to win.
    :ivar scores: Each side's score (per partnership with 4 players).
    :ivar winner: The side that won, or None while the match goes on.
    :ivar hand: The seat's own tiles, sorted.
    :ivar drawn: A tile this seat has just drawn that fits, and so must be
        placed now; else None. (Whether another seat's drawn tile fits is not
        shown.)
    :ivar hand_sizes: How many tiles each seat holds, seat 0 first.
    :ivar stock_size: How many tiles are left to draw.
    :ivar layout: The table: its placements, open points, contributions and
        end sum.
    :ivar legal_moves: This seat's legal moves if it is to move, else empty.
    :ivar history: The round's actions so far, oldest first; another seat's
        draw has ``tile=None``.
    :ivar last_round: The previous round's result (public: hands are revealed
        at settlement), with other seats' drawn tiles hidden in its history;
        None in the first round.
    :ivar voids: For each seat, the values it is known not to hold (see the
        module's notes). The same for every viewer: it comes from public facts.
    """

    seat: int
    players: int
    round: int
    opener: int
    turn: int
    target: int
    scores: tuple[int, ...]
    winner: int | None
    hand: tuple[Tile, ...]
    drawn: Tile | None
    hand_sizes: tuple[int, ...]
    stock_size: int
    layout: Layout
    legal_moves: tuple[Move, ...]
    history: tuple[Action, ...]
    last_round: RoundResult | None
    voids: tuple[frozenset[int], ...]

    @property
    def is_my_turn(self) -> bool:
        """Whether this seat is to move (and the match goes on)."""
        return self.winner is None and self.turn == self.seat

    @property
    def last_action(self) -> Action | None:
        """The last action, as in :attr:`MatchState.last_action`, with hidden tiles hidden."""
        if self.history:
            return self.history[-1]
        if self.last_round is not None:
            return self.last_round.history[-1]
        return None

    def to_json(self) -> str:
        """The view as JSON text, in the documented view format (``docs/formats.md``)."""
        return json.dumps(view_to_dict(self), separators=(",", ":"))


def view_for(state: MatchState, seat: int) -> PlayerView:
    """What ``seat`` may see of ``state``.

    >>> from american_sniff import new_match
    >>> view = view_for(new_match(2, seed=1), 0)
    >>> len(view.hand), view.hand_sizes, view.stock_size
    (7, (7, 7), 14)

    :raises TypeError: if ``state`` is not a :class:`MatchState`.
    :raises ValueError: if ``seat`` is not a seat of the match.
    """
    if type(state) is not MatchState:
        raise TypeError(f"view_for() needs a MatchState, got {state!r}")
    check_seat(state.players, seat)
    to_move = state.winner is None and state.turn == seat
    last = state.last_round
    return PlayerView(
        seat=seat,
        players=state.players,
        round=state.round,
        opener=state.opener,
        turn=state.turn,
        target=TARGET[state.players],
        scores=state.scores,
        winner=state.winner,
        hand=state.hands[seat],
        drawn=state.drawn if to_move else None,
        hand_sizes=tuple(len(hand) for hand in state.hands),
        stock_size=state.stock_size,
        layout=state.layout,
        legal_moves=legal_moves(state) if to_move else (),
        history=_hide_draws(state.history, seat),
        last_round=None if last is None else _public_result(last, seat),
        voids=known_voids(state.history, state.players),
    )


def view_to_dict(view: PlayerView) -> dict[str, Any]:
    """The view document as a dict of JSON values.

    :meth:`PlayerView.to_json <american_sniff.PlayerView.to_json>` writes it.
    """
    layout = view.layout
    return {
        **document_header(VIEW_FORMAT),
        "players": view.players,
        "seat": view.seat,
        "round": view.round,
        "opener": view.opener,
        "turn": view.turn,
        "target": view.target,
        "scores": list(view.scores),
        "winner": view.winner,
        "hand": [tile_text(t) for t in view.hand],
        "drawn": None if view.drawn is None else tile_text(view.drawn),
        "hand_sizes": list(view.hand_sizes),
        "stock_size": view.stock_size,
        "table": {
            "placements": [str(Place(t, c.at if c else None)) for t, c in _placements(layout)],
            "open_points": [str(p) for p in layout.points()],
            "contributions": [
                {"point": str(c.point), "value": c.value} for c in layout.contributions()
            ],
            "end_sum": layout.end_sum,
            "sniff": None if layout.sniff is None else tile_text(layout.sniff),
        },
        "legal_moves": [str(m) for m in view.legal_moves],
        "history": [action_to_json(a) for a in view.history],
        "last_round": round_result_to_json(view.last_round),
        "voids": [sorted(values) for values in view.voids],
    }


def _placements(layout: Layout) -> list[tuple[Tile, Connection | None]]:
    """Each tile of the table in the order placed, with the connection it made (None first)."""
    connections = iter(layout.connections)
    return [(tile, None if n == 0 else next(connections)) for n, tile in enumerate(layout.tiles)]


def _hide_draws(actions: tuple[Action, ...], seat: int) -> tuple[Action, ...]:
    """``actions`` with the tiles that other seats drew hidden."""
    return tuple(
        attrs.evolve(action, tile=None)
        if action.tile is not None and action.seat != seat
        else action
        for action in actions
    )


def _public_result(result: RoundResult, seat: int) -> RoundResult:
    """``result`` with other seats' drawn tiles hidden in its history."""
    log: ActionLog = None
    for action in _hide_draws(result.history, seat):
        log = (
            action.seat,
            action.move,
            action.tile,
            action.end_sum,
            action.points,
            action.scores,
            log,
        )
    return attrs.evolve(result, log=log)


def known_voids(history: tuple[Action, ...], players: int) -> tuple[frozenset[int], ...]:
    """For each seat, the values it is known not to hold after the round's ``history``.

    Only public facts are used (who drew, passed or placed, and the table), so
    the result is the same for every viewer. See the module's notes.

    :raises IllegalMove: if a placement of ``history`` does not fit the table.
    """
    voids: list[frozenset[int]] = [frozenset()] * players
    table = Layout.empty()
    current = -1  # the seat whose turn is under way, or -1 between turns
    draws = 0  # how many tiles it has drawn this turn
    known = frozenset[int]()  # what was known of it when its turn began
    shown = frozenset[int]()  # the values open during its turn
    for action in history:
        seat = action.seat
        if seat != current:
            current, draws, known = seat, 0, voids[seat]
            shown = frozenset(v for v in range(7) if table.value_mask >> v & 1)
        move = action.move
        if isinstance(move, Draw):
            # It could not place; the tile it drew may show anything until its
            # turn ends.
            draws += 1
            voids[seat] = frozenset()
            continue
        kept = draws  # a pass keeps every tile drawn this turn
        if isinstance(move, Place):
            table = table.place(move.tile, move.at)
            if draws == 0:
                current = -1
                continue  # a placement by choice tells nothing new
            kept -= 1  # the placed tile is the one just drawn
        # The hand held none of the values shown. Tiles it kept from this turn's
        # draws show none of them either, but may show values known before.
        voids[seat] = shown | (known if kept == 0 else frozenset())
        current = -1
    return tuple(voids)
