"""The match state and the records of finished rounds.

A :class:`MatchState` is an immutable value. The engine (:mod:`american_sniff.engine`)
makes new states from old ones; the fields an action does not change are the
very same objects in both states, so a move costs little memory.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import attrs

from .errors import InvalidDeal
from .layout import Layout
from .rules import HAND_SIZE, PLAYER_COUNTS, TARGET, side_count, side_of
from .tiles import ALL_TILES, Tile

if TYPE_CHECKING:
    from .moves import Move

__all__ = ["Deal", "MatchState", "RoundEnd", "RoundInfo", "RoundResult"]


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

    :raises InvalidDeal: if the hands are not all the same size or the tiles
        are not exactly the 28 tiles of the set, each once.
    """

    #: The tiles dealt to each seat, seat 0 first.
    hands: tuple[tuple[Tile, ...], ...] = attrs.field(converter=_hands)
    #: The undealt tiles, in the order they will be drawn.
    stock: tuple[Tile, ...] = attrs.field(converter=_stock)
    #: The outcome of the lot, used only where the rules call for one (the
    #: first round, and a round after a block); None to draw the lot from the
    #: seed. Where the previous round's finisher opens, it is not used.
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
    """How a round ended."""

    #: A player placed their last tile.
    DOMINO = "domino"
    #: The stock was empty and nobody could place.
    BLOCKED = "blocked"

    def __repr__(self) -> str:
        return f"RoundEnd.{self.name}"


@attrs.frozen
class RoundResult:
    """What happened at the end of a round, kept for display in the next state."""

    #: The number of the round that ended (1 for the first).
    round: int
    #: Whether a player went out or the round was blocked.
    end: RoundEnd
    #: The seat that went out, or None after a block.
    finisher: int | None
    #: The table as the round left it.
    layout: Layout
    #: Each seat's hand as revealed at settlement.
    hands: tuple[tuple[Tile, ...], ...]
    #: What settlement took from each seat (each hand rounded on its own).
    deductions: tuple[int, ...]
    #: Each side's score after settlement.
    scores: tuple[int, ...]


@attrs.frozen
class RoundInfo:
    """What stays fixed for a whole round; shared by every state of the round."""

    #: The number of players (2, 3 or 4).
    players: int
    #: The seed the match was dealt from (see :mod:`american_sniff.rng`).
    seed: int
    #: The round number, 1 for the first deal.
    round: int
    #: The seat that opened this round.
    opener: int
    #: The stock as dealt, in draw order (tiles already drawn included).
    deck: tuple[Tile, ...]
    #: Deals still to be used for later rounds, if the match was given deals.
    deals: tuple[Deal, ...]
    #: The generator state for the next deal or lot.
    rng: int
    #: The result of the previous round, or None in the first round.
    last_round: RoundResult | None


@attrs.frozen(repr=False)
class MatchState:
    """A whole match at one moment: the hands, the stock, the table and the scores.

    Make one with :func:`~american_sniff.new_match` and advance it with
    :func:`~american_sniff.apply`. A state never changes. The constructor (and
    so ``attrs.evolve``) does not check that the fields are consistent with
    each other; states made that way are the caller's responsibility.
    """

    #: The round's constants, shared by every state of the round.
    info: RoundInfo
    #: The seat to move (after the match ends, the seat whose placement won it).
    turn: int
    #: Each seat's hand, sorted by tile, seat 0 first.
    hands: tuple[tuple[Tile, ...], ...]
    #: The table.
    layout: Layout
    #: Each side's score: per seat with 2 or 3 players, per partnership with 4.
    scores: tuple[int, ...]
    #: The winning side, or None while the match goes on.
    winner: int | None
    #: A tile just drawn that fits and so must be placed now, else None.
    drawn: Tile | None
    #: How many tiles of the round's stock have been drawn.
    drawn_count: int
    #: The last action applied, or None at the start of the match.
    last_move: Move | None
    #: The seat that made the last action, or None at the start of the match.
    last_seat: int | None
    #: Points the last action scored (0 unless it was a scoring placement).
    last_points: int
    #: Cache of the legal moves, filled on first use.
    _legal: tuple[Move, ...] | None = attrs.field(
        init=False, default=None, eq=False, repr=False, hash=False
    )

    @property
    def players(self) -> int:
        """The number of players (2, 3 or 4)."""
        return self.info.players

    @property
    def round(self) -> int:
        """The round being played: 1 for the first deal, counting up."""
        return self.info.round

    @property
    def opener(self) -> int:
        """The seat that opened the current round."""
        return self.info.opener

    @property
    def seed(self) -> int:
        """The seed the match is dealt from."""
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

    def _check_seat(self, seat: object) -> None:
        """Raise :class:`ValueError` unless ``seat`` is a seat of this match."""
        if type(seat) is not int or not 0 <= seat < self.info.players:
            raise ValueError(
                f"seat must be an integer from 0 to {self.info.players - 1}, got {seat!r}"
            )

    def __repr__(self) -> str:
        status = f"winner={self.winner}" if self.winner is not None else f"turn={self.turn}"
        return (
            f"<MatchState players={self.players} round={self.round} {status} "
            f"scores={self.scores} table={len(self.layout)} stock={self.stock_size}>"
        )


_new_object = object.__new__
_set_info = MatchState.__dict__["info"].__set__
_set_turn = MatchState.__dict__["turn"].__set__
_set_hands = MatchState.__dict__["hands"].__set__
_set_layout = MatchState.__dict__["layout"].__set__
_set_scores = MatchState.__dict__["scores"].__set__
_set_winner = MatchState.__dict__["winner"].__set__
_set_drawn = MatchState.__dict__["drawn"].__set__
_set_drawn_count = MatchState.__dict__["drawn_count"].__set__
_set_last_move = MatchState.__dict__["last_move"].__set__
_set_last_seat = MatchState.__dict__["last_seat"].__set__
_set_last_points = MatchState.__dict__["last_points"].__set__
_set_legal = MatchState.__dict__["_legal"].__set__


def _new_state(
    info: RoundInfo,
    turn: int,
    hands: tuple[tuple[Tile, ...], ...],
    layout: Layout,
    scores: tuple[int, ...],
    winner: int | None,
    drawn: Tile | None,
    drawn_count: int,
    last_move: Move | None,
    last_seat: int | None,
    last_points: int,
) -> MatchState:
    """``MatchState(...)`` for the engine's own, already consistent values.

    It stores the fields through their slots, skipping the per-field
    ``object.__setattr__`` of attrs' frozen ``__init__`` (about a third less
    time for the state every action builds). The result is an ordinary frozen
    MatchState; a test checks that this sets exactly the fields attrs defines.
    """
    state = _new_object(MatchState)
    _set_info(state, info)
    _set_turn(state, turn)
    _set_hands(state, hands)
    _set_layout(state, layout)
    _set_scores(state, scores)
    _set_winner(state, winner)
    _set_drawn(state, drawn)
    _set_drawn_count(state, drawn_count)
    _set_last_move(state, last_move)
    _set_last_seat(state, last_seat)
    _set_last_points(state, last_points)
    _set_legal(state, None)
    return state
