"""The match state and the records of finished rounds.

A :class:`MatchState` is an immutable value. The engine (:mod:`american_sniff.engine`)
makes new states from old ones; the fields an action does not change are the
very same objects in both states, so a move costs little memory.
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from .errors import InvalidDeal
from .layout import Layout
from .rules import HAND_SIZE, PLAYER_COUNTS, TARGET, side_count, side_of
from .tiles import ALL_TILES, Tile

if TYPE_CHECKING:
    from .moves import Move

__all__ = [
    "Action",
    "ActionLog",
    "Deal",
    "MatchState",
    "RoundEnd",
    "RoundInfo",
    "RoundResult",
    "action_node",
    "extended_log",
    "legal_cache",
    "log_length",
    "log_of",
    "node_fields",
    "previous_node",
    "set_legal_cache",
]


def check_seat(players: int, seat: object) -> int:
    """Return ``seat`` if it is a seat of a ``players``-player match.

    :raises ValueError: otherwise, naming the range and the value.
    """
    if type(seat) is not int or not 0 <= seat < players:
        raise ValueError(f"seat must be an integer from 0 to {players - 1}, got {seat!r}")
    return seat


def tile_index(tile: Tile) -> int:
    """Sort key of tiles: their index in ALL_TILES."""
    return tile.index


def _sorted_hand(tiles: tuple[Tile, ...]) -> tuple[Tile, ...]:
    return tuple(sorted(tiles, key=tile_index))


def _tile_tuple(value: Iterable[object], what: str) -> tuple[Tile, ...]:
    try:
        tiles = tuple(value)
    except TypeError:
        raise InvalidDeal(f"{what} must be a sequence of tiles, got {value!r}") from None
    for tile in tiles:
        if not isinstance(tile, Tile):
            raise InvalidDeal(f"{what} holds {tile!r}, which is not a Tile")
    # The engine works with the interned tiles of ALL_TILES (it compares them
    # by identity), so equal tiles made elsewhere are swapped for those.
    return tuple(ALL_TILES[tile.index] for tile in tiles)  # type: ignore[attr-defined]


def _hands(value: Iterable[Iterable[object]]) -> tuple[tuple[Tile, ...], ...]:
    # Hands are given seat by seat, so an unordered collection is refused.
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise InvalidDeal(f"hands must be a sequence of hands, seat 0 first, got {value!r}")
    hands = tuple(value)
    return tuple(_sorted_hand(_tile_tuple(h, f"hand {i}")) for i, h in enumerate(hands))


def _stock(value: Iterable[object]) -> tuple[Tile, ...]:
    # The stock is drawn in the order given, so an unordered collection is refused.
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise InvalidDeal(
            f"the stock must be a sequence (tuple or list) in draw order, got {value!r}"
        )
    return _tile_tuple(value, "the stock")


@attrs.frozen
class Deal:
    """The deal of one round: every hand, the stock in draw order, and maybe the opener.

    Give deals to :func:`~american_sniff.new_match` to replay a recorded match
    or to test another implementation on chosen positions. Hands are kept
    sorted; the stock keeps the given order, and its first tile is drawn
    first.

    :ivar hands: The tiles dealt to each seat, seat 0 first (each kept sorted).
    :ivar stock: The undealt tiles, in the order they will be drawn.
    :ivar opener: The outcome of the lot, used only where the rules call for
        one (the first round, and a round after a block); None to draw the lot
        from the seed. Where the previous round's finisher opens, it is not used.

    :raises InvalidDeal: if the hands are not all the same size or the tiles
        are not exactly the 28 tiles of the set, each once.
    """

    hands: tuple[tuple[Tile, ...], ...] = attrs.field(converter=_hands)
    stock: tuple[Tile, ...] = attrs.field(converter=_stock)
    opener: int | None = None

    def __attrs_post_init__(self) -> None:
        players = len(self.hands)
        if players not in PLAYER_COUNTS:
            raise InvalidDeal(f"a deal has 2, 3 or 4 hands, got {players}")
        size = HAND_SIZE[players]
        for seat, hand in enumerate(self.hands):
            if len(hand) != size:
                raise InvalidDeal(
                    f"with {players} players each hand has {size} tiles; "
                    f"hand {seat} has {len(hand)}"
                )
        dealt = [t for hand in self.hands for t in hand] + list(self.stock)
        seen: set[Tile] = set()
        for tile in dealt:
            if tile in seen:
                raise InvalidDeal(f"{tile} is dealt twice")
            seen.add(tile)
        missing = [str(t) for t in ALL_TILES if t not in seen]
        if missing:
            raise InvalidDeal(f"the deal lacks {', '.join(missing)}")
        if self.opener is not None and (
            type(self.opener) is not int or not 0 <= self.opener < players
        ):
            raise InvalidDeal(f"opener must be a seat from 0 to {players - 1}, got {self.opener!r}")

    @property
    def players(self) -> int:
        """The number of seats dealt to."""
        return len(self.hands)


class RoundEnd(enum.Enum):
    """How a round ended.

    :cvar DOMINO: ``"domino"``: a player placed their last tile (went out).
    :cvar BLOCKED: ``"blocked"``: the stock was empty and nobody could place.
    """

    DOMINO = "domino"
    BLOCKED = "blocked"

    def __repr__(self) -> str:
        return f"RoundEnd.{self.name}"


# -- the action log ----------------------------------------------------------
# Every state keeps the actions of its round as a chain of tuples, newest
# first, shared with the states before it: an action adds one node and copies
# nothing. A node is (seat, move, tile drawn or None, end sum or None, points,
# scores after the action, previous node). :class:`Action` is the public,
# readable form of a node.

#: A node of the action log, or None for a round with no action yet. The last
#: item is the previous node, itself an ActionLog (the alias is kept one level
#: deep so that mypyc can compile the modules that use it).
ActionLog = tuple[int, "Move", Tile | None, int | None, int, tuple[int, ...], Any] | None

# The named API of a node, for every module that builds or reads one (only
# this module knows its layout).


def action_node(  # noqa: PLR0913, PLR0917 - a node has seven fields
    seat: int,
    move: Move,
    drawn: Tile | None,
    end_sum: int | None,
    points: int,
    scores: tuple[int, ...],
    previous: ActionLog,
) -> ActionLog:
    """A log node: the action's seat, move, tile drawn, end sum, points and scores after.

    ``previous`` is the log before the action. The fields mean what
    :class:`Action`'s do.
    """
    return (seat, move, drawn, end_sum, points, scores, previous)


def node_fields(
    node: ActionLog,
) -> tuple[int, Move, Tile | None, int | None, int, tuple[int, ...]]:
    """The six fields of a log node (which must not be None), as :func:`action_node` took them."""
    assert node is not None
    return node[0], node[1], node[2], node[3], node[4], node[5]


def previous_node(node: ActionLog) -> ActionLog:
    """The node before ``node`` (which must not be None): the log before its action."""
    assert node is not None
    previous: ActionLog = node[6]
    return previous


def log_length(log: ActionLog) -> int:
    """How many actions the action ``log`` holds (it walks the whole chain)."""
    count = 0
    node = log
    while node is not None:
        count += 1
        node = node[6]
    return count


@attrs.frozen
class Action:
    """One action of a round and what it did.

    :attr:`MatchState.last_action` is the action that produced a state, and
    :attr:`MatchState.history` lists the actions of the round so far.

    :ivar seat: The seat that acted.
    :ivar move: The move it made.
    :ivar tile: The tile drawn, for a :class:`~american_sniff.Draw`; None for
        other moves, and in a :class:`~american_sniff.PlayerView` for a tile that
        another seat drew (it stays hidden).
    :ivar end_sum: The table's end sum right after a placement; None for a draw
        or a pass.
    :ivar points: What a placement scored (its end sum when that is a positive
        multiple of five, else 0); 0 for a draw or a pass.
    :ivar scores: Each side's score right after the action, before any
        settlement that the action caused.
    :ivar round_result: The result of the round, if this action ended it;
        else None.
    :ivar winner: The side that won the match with this action, else None.
    """

    seat: int
    move: Move
    tile: Tile | None = None
    end_sum: int | None = None
    points: int = 0
    scores: tuple[int, ...] = ()
    round_result: RoundResult | None = None
    winner: int | None = None

    def __str__(self) -> str:
        text = f"seat {self.seat}: {self.move}"
        if self.tile is not None:
            text += f" {self.tile}"
        if self.end_sum is not None:
            text += f", sum {self.end_sum}, {self.points} points"
        return text


def _action(node: ActionLog, result: RoundResult | None, winner: int | None) -> Action:
    """The :class:`Action` of a log node (which must not be None)."""
    assert node is not None
    seat, move, tile, end_sum, points, scores, _ = node
    return Action(seat, move, tile, end_sum, points, scores, result, winner)


def _actions(node: ActionLog, result: RoundResult | None, winner: int | None) -> tuple[Action, ...]:
    """Every action of a log, oldest first; ``result`` and ``winner`` go to the newest."""
    actions = []
    last = True
    while node is not None:
        actions.append(_action(node, result, winner) if last else _action(node, None, None))
        last = False
        node = node[6]
    actions.reverse()
    return tuple(actions)


@attrs.frozen
class RoundResult:
    """What happened at the end of a round, kept for display in the next state.

    :ivar round: The number of the round that ended (1 for the first).
    :ivar end: Whether a player went out or the round was blocked.
    :ivar finisher: The seat that went out, or None after a block.
    :ivar layout: The table as the round left it.
    :ivar hands: Each seat's hand as revealed at settlement, seat 0 first.
    :ivar deductions: What settlement took from each seat: its hand's pips
        rounded to the nearest multiple of five, each hand on its own.
    :ivar scores: Each side's score after settlement.
    :ivar given: Whether the round was dealt from a given :class:`Deal` (else
        from the seed).
    """

    round: int
    end: RoundEnd
    finisher: int | None
    layout: Layout
    hands: tuple[tuple[Tile, ...], ...]
    deductions: tuple[int, ...]
    scores: tuple[int, ...]
    #: The round's action log, newest first (see :attr:`history`).
    _log: ActionLog = attrs.field(alias="log", default=None, repr=False)
    given: bool = False

    @property
    def history(self) -> tuple[Action, ...]:
        """Every action of the round, oldest first; the last one ended it.

        The last action carries this result as its
        :attr:`~Action.round_result`.
        """
        return _actions(self._log, self, None)

    @property
    def opener(self) -> int | None:
        """The seat that opened the round (the seat of its first action)."""
        node = self._log
        seat = None
        while node is not None:
            seat, node = node[0], node[6]
        return seat


@attrs.frozen
class RoundInfo:
    """What stays fixed for a whole round; shared by every state of the round.

    :ivar players: The number of players (2, 3 or 4).
    :ivar seed: The seed the match was dealt from (see :mod:`american_sniff.rng`).
    :ivar round: The round number, 1 for the first deal.
    :ivar opener: The seat that opened this round.
    :ivar deck: The stock as dealt, in draw order (tiles already drawn included).
    :ivar deals: Deals still to be used for later rounds, if the match was given deals.
    :ivar rng: The generator state for the next deal or lot.
    :ivar last_round: The result of the previous round, or None in the first round.
    :ivar actions_before: How many actions the match had before this round began
        (0 in the first round); with the round's own actions it makes the
        sequence number of views and events (:mod:`american_sniff.views`).
    :ivar given: Whether this round was dealt from a given :class:`Deal`
        (else it was dealt from the seed, and loading checks that it is the
        seeded deal).
    """

    players: int
    seed: int
    round: int
    opener: int
    deck: tuple[Tile, ...]
    deals: tuple[Deal, ...]
    rng: int
    last_round: RoundResult | None
    actions_before: int = 0
    given: bool = False


@attrs.frozen(repr=False, weakref_slot=False)
class MatchState:
    """A whole match at one moment: the hands, the stock, the table and the scores.

    Make one with :func:`~american_sniff.new_match` and advance it with
    :func:`~american_sniff.apply`; save it with :meth:`to_json` and load it
    with :meth:`from_json`. A state never changes. The constructor (and so
    ``attrs.evolve``) does not check that the fields are consistent with each
    other; :func:`~american_sniff.validate_state` does.

    :ivar info: The round's constants (players, seed, round number, opener, the
        stock as dealt, deals still to use, generator state, previous round),
        shared by every state of the round.
    :ivar turn: The seat to move. Once the match is over, the seat whose
        placement won it (and there is no legal move).
    :ivar hands: Each seat's hand, sorted by tile, seat 0 first.
    :ivar layout: The table of the current round.
    :ivar scores: Each side's score: per seat with 2 or 3 players, per
        partnership with 4 (side 0 is seats 0 and 2, side 1 seats 1 and 3).
    :ivar winner: The side that reached the target, or None while the match
        goes on. Once it is set the match is over: nothing more is applied.
    :ivar drawn: A tile the player to move has just drawn that fits, and so
        must be placed now; else None.
    :ivar drawn_count: How many tiles of the round's stock have been drawn.
    """

    info: RoundInfo
    turn: int
    hands: tuple[tuple[Tile, ...], ...]
    layout: Layout
    scores: tuple[int, ...]
    winner: int | None
    drawn: Tile | None
    drawn_count: int
    #: The round's action log, newest first (see :attr:`history`).
    _log: ActionLog = attrs.field(alias="log", default=None, repr=False)
    #: Cache of the legal moves, filled on first use.
    _legal: tuple[Move, ...] | None = attrs.field(
        init=False, default=None, eq=False, repr=False, hash=False
    )

    @property
    def players(self) -> int:
        """The number of players (2, 3 or 4).

        With 4, seats 0 and 2 play against seats 1 and 3 (:meth:`side_of`).
        """
        return self.info.players

    @property
    def round(self) -> int:
        """The round being played: 1 for the first deal, counting up."""
        return self.info.round

    @property
    def opener(self) -> int:
        """The seat that opened the current round.

        The player who went out in the round before opens; in the first round
        and after a blocked round, a lot decides.
        """
        return self.info.opener

    @property
    def seed(self) -> int:
        """The seed the match is dealt from.

        ``new_match(players, seed=seed)`` deals the same match again (given
        deals, if any, aside).
        """
        return self.info.seed

    @property
    def stock(self) -> tuple[Tile, ...]:
        """The tiles left to draw, the next one first."""
        return self.info.deck[self.drawn_count :]

    @property
    def stock_size(self) -> int:
        """How many tiles are left to draw."""
        return len(self.info.deck) - self.drawn_count

    @property
    def last_round(self) -> RoundResult | None:
        """The result of the last finished round, or None during the first round."""
        return self.info.last_round

    @property
    def last_action(self) -> Action | None:
        """The action that produced this state, or None at the start of the match.

        In the first state of a round it is the action that ended the round
        before; its :attr:`~Action.round_result` is that round's result (also
        :attr:`last_round`), and its move refers to that round's table.
        """
        node = self._log
        if node is not None:
            return _action(node, None, self.winner)
        last = self.info.last_round
        if last is not None and last._log is not None:
            return _action(last._log, last, None)
        return None

    @property
    def history(self) -> tuple[Action, ...]:
        """The actions of the current round so far, oldest first.

        They are kept as a chain shared with the earlier states of the round,
        so an action costs the same whatever came before; this property builds
        the tuple when it is read. The previous round's actions are in
        ``last_round.history``.
        """
        return _actions(self._log, None, self.winner)

    @property
    def target(self) -> int:
        """Raw points a side needs to win: 250 with 2 players, 200 with 3 or 4."""
        return TARGET[self.info.players]

    @property
    def is_over(self) -> bool:
        """Whether a side has won."""
        return self.winner is not None

    def side_of(self, seat: int) -> int:
        """The scoring side of ``seat`` (its partnership with 4 players)."""
        self._check_seat(seat)
        return side_of(self.info.players, seat)

    @property
    def sides(self) -> int:
        """The number of scoring sides."""
        return side_count(self.info.players)

    def to_json(self, *, key: bytes | None = None) -> str:
        """The state as JSON text, in the documented state format.

        The text holds everything needed to go on playing; see
        :mod:`american_sniff.serial` for the conventions and ``docs/formats.md``
        for the format, field by field. With ``key`` (bytes, at least 16; keep
        it secret on the server) the text is signed, HMAC-SHA256, so that
        ``from_json(text, key=key)`` loads it fast, with no replay.
        """
        # The JSON layer (and cattrs) loads only when used: the rules core
        # imports nothing beyond attrs and the standard library.
        from .serial import state_to_json  # noqa: PLC0415

        return state_to_json(self, key=key)

    @classmethod
    def from_json(cls, text: str | bytes, *, key: bytes | None = None) -> MatchState:
        """Load a state saved with :meth:`to_json`, checking everything.

        Without ``key`` (untrusted text) every field is checked and the round
        replayed once, and a seeded deal must be the seed's. With ``key`` the
        text must be signed with it (``to_json(key=key)``): the signature is
        checked and nothing is replayed, so the load costs time in proportion
        to the text's length.

        :raises InvalidState: naming the first problem, if ``text`` is not
            JSON, not in the state format, or not a state the rules can reach
            (with ``key``: also if it is not signed with that key).
        :raises ValueError: if ``key`` is not bytes of at least 16 bytes.
        """
        from .serial import state_from_json  # noqa: PLC0415

        return state_from_json(text, key=key)

    def _check_seat(self, seat: object) -> None:
        """Raise :class:`ValueError` unless ``seat`` is a seat of this match."""
        check_seat(self.info.players, seat)

    def __repr__(self) -> str:
        status = f"winner={self.winner}" if self.winner is not None else f"turn={self.turn}"
        return (
            f"<MatchState players={self.players} round={self.round} {status} "
            f"scores={self.scores} table={len(self.layout)} stock={self.stock_size}>"
        )


# -- the engine's access to a state's own slots ---------------------------------------
# The action log and the legal-move cache are private slots of MatchState; the
# engine and the views reach them through these functions only.


#: ``log_of(state)``: the action log of ``state``'s round, newest first (a
#: C-level reader of the slot, as fast from compiled code as from Python).
log_of: Callable[[MatchState], ActionLog] = operator.attrgetter("_log")


def extended_log(  # noqa: PLR0913, PLR0917 - the state and a node's six fields
    state: MatchState,
    seat: int,
    move: Move,
    drawn: Tile | None,
    end_sum: int | None,
    points: int,
    scores: tuple[int, ...],
) -> ActionLog:
    """``state``'s action log extended by one node (see :func:`action_node`)."""
    return (seat, move, drawn, end_sum, points, scores, state._log)


#: ``legal_cache(state)``: the legal moves cached in ``state``, or None if they
#: were not listed yet (a C-level reader of the slot). A move that is one of
#: the very objects of that tuple was produced for that very state, so it is
#: legal there and needs no check (see the private ``american_sniff._fast``).
legal_cache: Callable[[MatchState], tuple[Move, ...] | None] = operator.attrgetter("_legal")

#: ``set_legal_cache(state, moves)`` caches ``moves`` as the legal moves of
#: ``state`` (not part of its value): the slot's own setter, the interpreter's
#: fastest store.
set_legal_cache: Callable[[MatchState, tuple[Move, ...]], None] = MatchState.__dict__[
    "_legal"
].__set__
