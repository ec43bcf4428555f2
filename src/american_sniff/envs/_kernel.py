"""The OpenSpiel game's own work, step by step, compiled with the engine (no OpenSpiel in it).

:class:`Kernel` holds a match of the OpenSpiel game ``american_sniff`` (see
:mod:`american_sniff.envs.openspiel`): the engine's state, the chance nodes
due (the round's lot, the deal one tile at a time, the tile of a draw), the
legal actions of the player to move with their moves, and the actions of the
round that the observations' :class:`~american_sniff.observation.RoundFacts`
have not taken in yet. The OpenSpiel state class (which, a subclass of
OpenSpiel's C++ state, cannot itself be compiled) keeps one kernel and hands
every query and every action on to it.

The module is on the compile list of ``pyproject.toml``: in the compiled build
it is native code beside the engine, so its calls into the engine and its reads
of :class:`~american_sniff.MatchState`'s fields are direct. It imports nothing
of OpenSpiel or numpy, so the base install can load and test it.

A kernel changes in place as actions are applied (an OpenSpiel state does);
:meth:`Kernel.copy` (and :func:`copy.deepcopy`, which OpenSpiel's clone uses)
gives an independent one. Every value it holds besides its lists is immutable.
"""

from __future__ import annotations

from typing import Any, Final

from .._fast import DRAW, DRAW_ONLY, OPEN, PASS, PASS_ONLY, PLACE
from ..actions import DRAW_ACTION, PASS_ACTION, move_of, placement_action
from ..engine import apply, legal_moves
from ..moves import Draw, Move, Pass, Place
from ..observation import RoundFacts
from ..rules import HAND_SIZE
from ..state import MatchState, RoundEnd, RoundInfo, log_of
from ..tiles import ALL_TILES

__all__ = ["CHANCE", "TERMINAL", "Kernel"]

#: OpenSpiel's player id of chance (``pyspiel.PlayerId.CHANCE``).
CHANCE: Final = -1
#: OpenSpiel's player id once the game is over (``pyspiel.PlayerId.TERMINAL``).
TERMINAL: Final = -4

_TILES: Final = len(ALL_TILES)


def _outcome_rows() -> list[tuple[Any, ...]]:
    """``rows[n][i]`` is the chance outcome ``(i, 1 / n)``: made once, shared by every node.

    (Typed loosely on purpose: compiled, a ``tuple[int, float]`` would be
    unpacked into a C struct when read, and packed into a new tuple when put
    in a list; an object is only referenced again.)
    """
    rows: list[tuple[Any, ...]] = [()]
    rows.extend(tuple((i, 1.0 / n) for i in range(_TILES)) for n in range(1, _TILES + 1))
    return rows


_OUTCOMES: Final = _outcome_rows()


def _actions_by_identity() -> dict[int, int]:
    """The action of each of the engine's interned moves, by the move object's ``id``.

    The engine's :func:`~american_sniff.legal_moves` lists only these objects,
    which live as long as the engine's tables, so an ``id`` among them always
    names the same move.
    """
    table = {id(move): move.tile.index for move in OPEN}
    for row in PLACE:
        for place in row:
            if place is not None:
                table[id(place)] = placement_action(place.tile, place.at)
    table[id(DRAW)] = DRAW_ACTION
    table[id(PASS)] = PASS_ACTION
    return table


_ACTION_OF_ID: Final = _actions_by_identity()


def _position(values: list[int], value: int) -> int:
    """Where ``value`` first stands in ``values``, or -1 (a list's index without the exception)."""
    for i in range(len(values)):
        if values[i] == value:
            return i
    return -1


class Kernel:
    """A match of the OpenSpiel game, with its chance nodes (see the module).

    Made for a number of players and a limit of actions; the match starts
    before its first chance node (the lot for the opener).
    """

    #: The number of players.
    players: int
    #: The most actions (chance outcomes included) the match may take.
    max_moves: int
    #: How many tiles a round deals (to all hands together).
    deal_size: int
    #: The round's state before its deal (its own deal is replaced by the chance nodes').
    base: MatchState
    #: The tiles dealt so far this round, by index, in the order dealt (seat 0's hand first).
    deal: list[int]
    #: The tiles not dealt yet (while dealing), then the stock's, by index, in increasing order.
    left: list[int]
    #: The engine's state with the tiles dealt so far, or None until it is asked for.
    match: MatchState | None
    #: Whether the round's opener is still to be drawn by lot.
    lot_due: bool
    #: Whether the round is still being dealt (its lot included).
    dealing: bool
    #: Whether a draw action awaits the chance node that picks the drawn tile.
    drawing: bool
    #: How many actions the match has taken, chance outcomes included.
    moves: int
    #: The round's opener, once the lot (or the rules) named it.
    opener: int
    #: Who acts now: :data:`CHANCE`, :data:`TERMINAL` or the seat to move.
    player: int
    #: The action of each legal move of the player to move, in the engine's order of
    #: :attr:`legal`, once worked out; else None.
    actions: list[int] | None
    #: The engine's legal moves (:func:`~american_sniff.legal_moves`) of the player to move.
    legal: tuple[Move, ...]
    #: The round's public facts as of some action of the round.
    facts: RoundFacts
    #: The round's actions since :attr:`facts`, oldest first, three entries each: the
    #: seat, the move, the values open before it (flat: no tuple made per action).
    since: list[object]

    def __init__(self, players: int, max_moves: int, blank: MatchState) -> None:
        self.players = players
        self.max_moves = max_moves
        self.deal_size = players * HAND_SIZE[players]
        self.base = blank
        self.deal = []
        self.left = list(range(_TILES))
        self.match = None
        self.lot_due = True
        self.dealing = True
        self.drawing = False
        self.moves = 0
        self.opener = 0
        self.player = CHANCE
        self.actions = None
        self.legal = ()
        self.facts = RoundFacts(1, (0,) * players, (0,) * players)
        self.since = []

    def copy(self) -> Kernel:
        """An independent copy: applying actions to one leaves the other as it was."""
        other = Kernel(self.players, self.max_moves, self.base)
        other.deal = self.deal.copy()
        other.left = self.left.copy()
        other.match = self.match
        other.lot_due = self.lot_due
        other.dealing = self.dealing
        other.drawing = self.drawing
        other.moves = self.moves
        other.opener = self.opener
        other.player = self.player
        actions = self.actions
        other.actions = None if actions is None else actions.copy()
        other.legal = self.legal
        other.facts = self.facts
        other.since = self.since.copy()
        return other

    def __deepcopy__(self, memo: dict[int, object]) -> Kernel:
        return self.copy()

    def __reduce__(self) -> tuple[object, ...]:
        # Pickle (as OpenSpiel's Python states are) by the fields, not by __init__.
        return (_restored, (self._fields(),))

    def _fields(self) -> tuple[object, ...]:
        return (
            self.players,
            self.max_moves,
            self.base,
            self.deal,
            self.left,
            self.match,
            self.lot_due,
            self.dealing,
            self.drawing,
            self.moves,
            self.opener,
            self.player,
            self.actions,
            self.legal,
            self.facts,
            self.since,
        )

    # -- what OpenSpiel asks -------------------------------------------------

    def state(self) -> MatchState:
        """The engine's state (while a round is dealt: the tiles dealt so far in hand)."""
        match = self.match
        if match is None:
            match = self.match = self._dealt()
        return match

    def set_state(self, state: MatchState) -> None:
        """Make ``state``, of the same moment of the round, the engine's state (a resampled world).

        Its stock may hold other tiles; the legal actions are worked out again.
        """
        self.match = state
        self.actions = None
        if not self.dealing:
            self.left = sorted([tile.index for tile in state.stock])

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The outcomes of this chance node, each with the same probability (a new list)."""
        if self.lot_due and self.dealing:
            row = _OUTCOMES[self.players]
            return [row[seat] for seat in range(self.players)]
        left = self.left  # the tiles to deal, or the stock's (a draw)
        row = _OUTCOMES[len(left)]
        return [row[index] for index in left]

    def chance_actions(self) -> list[int]:
        """The actions of this chance node's outcomes, in increasing order (a new list)."""
        if self.lot_due and self.dealing:
            return list(range(self.players))
        return self.left.copy()

    def legal_actions(self) -> list[int]:
        """The legal actions of the player to move, in increasing order (a new list)."""
        actions = self.actions
        if actions is None:
            actions = self._work_out_legal()
        return sorted(actions) if len(actions) > 1 else actions.copy()

    def round_facts(self) -> RoundFacts:
        """The public facts of the round so far (brought up to date with the actions since)."""
        since = self.since
        facts = self.facts
        if since:
            for i in range(0, len(since), 3):
                seat = since[i]
                move = since[i + 1]
                values = since[i + 2]
                assert isinstance(seat, int)
                assert isinstance(move, Place | Draw | Pass)
                assert isinstance(values, int)
                facts = facts.step(seat, move, values)
            self.facts = facts
            self.since = []
        return facts

    # -- applying an action ------------------------------------------------------

    def apply(self, action: int) -> int:
        """Apply a chance outcome or the player's action; return who acts next.

        An action refused (a :class:`ValueError` or
        :class:`~american_sniff.IllegalMove` that says why) changes nothing.
        """
        if self.dealing:
            self._deal_one(action)
        else:
            self._play(action)
        self.moves += 1
        self.actions = None
        if self.moves >= self.max_moves:
            player = TERMINAL
        elif self.dealing or self.drawing:
            player = CHANCE
        else:
            state = self.state()
            player = TERMINAL if state.winner is not None else state.turn
        self.player = player
        return player

    def _deal_one(self, action: int) -> None:
        """The chance node of a round's lot or of one tile of its deal."""
        if self.lot_due:
            if not 0 <= action < self.players:
                raise ValueError(f"the lot's outcome is a seat, 0 to {self.players - 1}: {action}")
            self.lot_due = False
            self.opener = action
        else:
            left = self.left
            at = _position(left, action)
            if at < 0:
                raise ValueError(f"chance outcome {action} is not a tile left to deal")
            del left[at]
            self.deal.append(action)
            if len(self.deal) == self.deal_size:
                self.dealing = False
        self.match = None

    def _work_out_legal(self) -> list[int]:
        """Work out the legal moves and the action of each (in the engine's order); the actions."""
        legal = legal_moves(self.state())
        if legal is DRAW_ONLY:
            actions = [DRAW_ACTION]
        elif legal is PASS_ONLY:
            actions = [PASS_ACTION]
        else:
            table = _ACTION_OF_ID
            actions = [table[id(move)] for move in legal]
        self.actions = actions
        self.legal = legal
        return actions

    def _play(self, action: int) -> None:
        """A player's action, or the chance node of a drawn tile."""
        state = self.state()
        if self.drawing:
            self._draw(state, action)
            return
        actions = self.actions
        if actions is None:
            actions = self._work_out_legal()
        at = _position(actions, action)
        move: Move | None = None if at < 0 else self.legal[at]
        if move is None:
            move_of(state, action)  # raises the error that says why
            raise AssertionError(f"action {action} is not among the legal actions")
        if move is DRAW:
            self.drawing = True
            return
        self._record(state, move, apply(state, move))

    def _draw(self, state: MatchState, action: int) -> None:
        """The drawn tile, ``action``, put first in the stock, then drawn by the engine."""
        left = self.left
        at = _position(left, action)
        if at < 0:
            raise ValueError(f"chance outcome {action} is not a tile of the stock")
        self.drawing = False
        del left[at]
        info = state.info
        start = state.drawn_count
        # The rest of the stock in increasing order, as it was dealt.
        deck = info.deck[:start] + (ALL_TILES[action],) + tuple([ALL_TILES[i] for i in left])
        stacked_info = RoundInfo(
            info.players,
            info.seed,
            info.round,
            info.opener,
            deck,
            info.deals,
            info.rng,
            info.last_round,
            info.actions_before,
            info.given,
        )
        stacked = MatchState(
            stacked_info,
            state.turn,
            state.hands,
            state.layout,
            state.scores,
            state.winner,
            state.drawn,
            start,
            log_of(state),
        )
        self._record(stacked, DRAW, apply(stacked, DRAW))

    def _record(self, before: MatchState, move: Move, after: MatchState) -> None:
        """Make ``after`` the engine's state, and note the action for the round's facts.

        A move that ended the round (a placement, or drawing the last tile
        when that blocks the round) leads to the next round's chance nodes.
        """
        self.match = after
        if after.info.round == before.info.round:
            since = self.since
            since.append(before.turn)
            since.append(move)
            since.append(before.layout.value_mask)
            return
        players = self.players
        self.facts = RoundFacts(after.info.round, (0,) * players, (0,) * players)
        self.since = []
        if after.winner is None:
            # A new round: its deal (and its lot, after a block) are chance nodes.
            last = after.info.last_round
            self.lot_due = last is not None and last.end is RoundEnd.BLOCKED
            self.opener = after.info.opener
            self.base = after
            self.deal = []
            self.left = list(range(_TILES))
            self.match = None
            self.dealing = True

    def _dealt(self) -> MatchState:
        """The round's state with the tiles dealt so far in the hands, the rest in the stock."""
        base = self.base
        info = base.info
        size = HAND_SIZE[self.players]
        deal = self.deal
        hands = tuple(
            [
                tuple([ALL_TILES[i] for i in sorted(deal[seat * size : (seat + 1) * size])])
                for seat in range(self.players)
            ]
        )
        stock = tuple([ALL_TILES[i] for i in self.left])
        opener = info.opener if self.lot_due else self.opener
        dealt_info = RoundInfo(
            info.players,
            info.seed,
            info.round,
            opener,
            stock,
            info.deals,
            info.rng,
            info.last_round,
            info.actions_before,
            info.given,
        )
        return MatchState(
            dealt_info,
            opener,
            hands,
            base.layout,
            base.scores,
            base.winner,
            base.drawn,
            0,
            log_of(base),
        )


def _restored(fields: tuple[Any, ...]) -> Kernel:
    """The kernel whose fields (as ``Kernel._fields`` lists them) are ``fields``: unpickling."""
    (players, max_moves, base, deal, left, match, lot_due, dealing, drawing) = fields[:9]
    (moves, opener, player, actions, legal, facts, since) = fields[9:]
    kernel = Kernel(players, max_moves, base)
    kernel.deal = deal
    kernel.left = left
    kernel.match = match
    kernel.lot_due = lot_due
    kernel.dealing = dealing
    kernel.drawing = drawing
    kernel.moves = moves
    kernel.opener = opener
    kernel.player = player
    kernel.actions = actions
    kernel.legal = legal
    kernel.facts = facts
    kernel.since = since
    return kernel
