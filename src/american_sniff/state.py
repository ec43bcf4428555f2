"""The match state and the records of finished rounds.

A :class:`MatchState` is an immutable value. The engine (:mod:`american_sniff.engine`)
makes new states from old ones; the fields an action does not change are the
very same objects in both states, so a move costs little memory.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast, overload

import attrs

from ._native import COMPILED, attrs_fields
from .deal import Deal
from .layout import Layout
from .rules import TARGET, side_count, side_of
from .tiles import Tile

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
    "round_log_of",
    "set_legal_cache",
]


def check_seat(players: int, seat: object) -> int:
    """Return ``seat`` if it is a seat of a ``players``-player match.

    :raises ValueError: otherwise, naming the range and the value.
    """
    if type(seat) is not int or not 0 <= seat < players:
        raise ValueError(f"seat must be an integer from 0 to {players - 1}, got {seat!r}")
    return seat


_ROUND_END_DOC = """How a round ended.

    :cvar DOMINO: ``"domino"``: a player placed their last tile (went out).
    :cvar BLOCKED: ``"blocked"``: the stock was empty and nobody could place.
    """


class RoundEnd(enum.Enum):  # noqa: D101 (the docstring is _ROUND_END_DOC, set below)
    DOMINO = "domino"
    BLOCKED = "blocked"

    def __repr__(self) -> str:
        return f"RoundEnd.{self.name}"


# Set from outside the class: mypyc, which compiles this module, drops the
# docstrings of the (non-native) classes it builds, and attrs would take a
# ``__doc__`` written in the class body of a compiled module for a field.
setattr(RoundEnd, "__doc__", _ROUND_END_DOC)  # noqa: B010


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


def action_node(
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
    # (Typed as any tuple: compiled, a node typed as the 7-tuple would be
    # unpacked, item by item, at every step.)
    node: tuple[Any, ...] | None = log
    while node is not None:
        count += 1
        node = node[6]
    return count


_ACTION_DOC = """One action of a round and what it did.

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


@attrs.frozen
class Action:  # noqa: D101 (the docstring is _ACTION_DOC, set below)
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


# (See RoundEnd's docstring above.)
setattr(Action, "__doc__", _ACTION_DOC)  # noqa: B010


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


# -- the native classes ----------------------------------------------------------
# RoundResult, RoundInfo and MatchState are written out by hand rather than with
# attrs, as Layout is, so that the compiled build makes them native classes: the
# engine reads their fields on every action, and a native class's field is a
# load from the object where an attrs class's is a dictionary look-up in its
# type. One definition serves both builds (the interpreter runs it as a plain
# slotted class). Each keeps the surface of a frozen attrs class: the same
# constructor, ``attrs.fields``, ``attrs.evolve`` and ``attrs.asdict`` (through
# ``__attrs_attrs__``, which attrs itself builds; see ``_native.attrs_fields``),
# equality and hashing by the fields (the hash computed once and kept), a repr
# in attrs' style, pickle and copy, and a ``FrozenInstanceError`` on any
# assignment. The hash is kept in the slot ``_hash``, which no constructor
# sets: it is filled on the first ``hash()``.


def _attribute(**options: Any) -> Any:
    """``attrs.field(**options)``, typed as what it is: a field's description, not its value."""
    return attrs.field(**options)


def _fields_of(value: object) -> tuple[attrs.Attribute[Any], ...]:
    """The attrs description of the fields of ``value``'s class."""
    fields: tuple[attrs.Attribute[Any], ...] = attrs.fields(
        cast("type[attrs.AttrsInstance]", type(value))
    )
    return fields


def _attrs_repr(value: object) -> str:
    """``Class(field=value, ...)``, as attrs writes it, over the fields shown in reprs."""
    shown = ", ".join(
        f"{field.name}={getattr(value, field.name)!r}" for field in _fields_of(value) if field.repr
    )
    return f"{type(value).__name__}({shown})"


def _evolve(value: object, changes: dict[str, Any]) -> Any:
    """``attrs.evolve(value, **changes)``: a new instance, every field not changed kept."""
    for field in _fields_of(value):
        alias = field.alias or field.name
        if field.init and alias not in changes:
            changes[alias] = getattr(value, field.name)
    return type(value)(**changes)


def _frozen() -> attrs.exceptions.FrozenInstanceError:
    """The error of an assignment to a frozen instance, as attrs raises it."""
    return attrs.exceptions.FrozenInstanceError()


_V = TypeVar("_V", bound="_FrozenValue")


class _FrozenValue:
    """The surface of a frozen attrs class, shared by the hand-written native classes.

    A subclass lists its fields in :meth:`_fields` (in its constructor's
    order) and keeps ``__attrs_attrs__``; this class gives it equality and a
    hash by those fields (the hash kept in ``_hash`` once worked out),
    ``evolve`` and ``copy.replace``, pickling by the constructor, and attrs'
    repr. Each subclass refuses assignment itself (its own ``__setattr__``
    and ``__delattr__``): mypyc compiles a native class's stores in its own
    constructor past the ``__setattr__`` it defines, not past one it inherits.
    """

    __slots__ = ("_hash",)
    _hash: int

    def _fields(self) -> tuple[object, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, _FrozenValue)
        return self is other or self._fields() == other._fields()

    def __ne__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, _FrozenValue)
        return self is not other and self._fields() != other._fields()

    def __hash__(self) -> int:
        try:
            return self._hash
        except AttributeError:
            pass
        value = hash(self._fields())
        object.__setattr__(self, "_hash", value)
        return value

    def __replace__(self: _V, **changes: Any) -> _V:
        """``copy.replace(value, ...)`` (Python 3.13 on): the same as :meth:`evolve`."""
        return self.evolve(**changes)

    def evolve(self: _V, **changes: Any) -> _V:
        """A copy with the fields named in ``changes`` replaced, as ``attrs.evolve(self, ...)``.

        Fields are named as the constructor names them (``log`` for the action
        log). ``attrs.evolve`` works too; this method is its typed equivalent
        (mypy's attrs plugin knows only classes that attrs built).
        """
        evolved: _V = _evolve(self, changes)
        return evolved

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), self._fields())

    def __repr__(self) -> str:
        return _attrs_repr(self)


class RoundResult(_FrozenValue):
    """What happened at the end of a round, kept for display in the next state.

    It behaves as a frozen attrs class: it compares, hashes, pickles and
    evolves (``attrs.evolve``) by its fields.

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

    __slots__ = (
        "_log",
        "deductions",
        "end",
        "finisher",
        "given",
        "hands",
        "layout",
        "round",
        "scores",
    )
    #: attrs' description of the fields (set below the class), for attrs' functions.
    __attrs_attrs__: ClassVar[Any]
    __match_args__: ClassVar[tuple[str, ...]] = (
        "round",
        "end",
        "finisher",
        "layout",
        "hands",
        "deductions",
        "scores",
        "_log",
        "given",
    )

    round: int
    end: RoundEnd
    finisher: int | None
    layout: Layout
    hands: tuple[tuple[Tile, ...], ...]
    deductions: tuple[int, ...]
    scores: tuple[int, ...]
    # The round's action log, newest first (see :attr:`history`); typed
    # loosely, as Layout's, so that validate_state can report a malformed one.
    _log: Any
    given: bool

    def __init__(
        self,
        round: int,
        end: RoundEnd,
        finisher: int | None,
        layout: Layout,
        hands: tuple[tuple[Tile, ...], ...],
        deductions: tuple[int, ...],
        scores: tuple[int, ...],
        log: ActionLog | object = None,
        given: bool = False,
    ) -> None:
        if COMPILED:
            # A native class: its own stores go straight into the object,
            # past the __setattr__ that refuses everyone else's.
            self.round = round
            self.end = end
            self.finisher = finisher
            self.layout = layout
            self.hands = hands
            self.deductions = deductions
            self.scores = scores
            self._log = log
            self.given = given
            return
        values = (round, end, finisher, layout, hands, deductions, scores, log, given)
        for name, value in zip(RoundResult.__match_args__, values, strict=True):
            object.__setattr__(self, name, value)

    def _fields(self) -> tuple[object, ...]:
        return (
            self.round,
            self.end,
            self.finisher,
            self.layout,
            self.hands,
            self.deductions,
            self.scores,
            self._log,
            self.given,
        )

    def __setattr__(self, name: str, value: object) -> None:
        raise _frozen()

    def __delattr__(self, name: str) -> None:
        raise _frozen()

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


class RoundInfo(_FrozenValue):
    """What stays fixed for a whole round; shared by every state of the round.

    It behaves as a frozen attrs class: it compares, hashes, pickles and
    evolves (``attrs.evolve``) by its fields.

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

    __slots__ = (
        "actions_before",
        "deals",
        "deck",
        "given",
        "last_round",
        "opener",
        "players",
        "rng",
        "round",
        "seed",
    )
    #: attrs' description of the fields (set below the class), for attrs' functions.
    __attrs_attrs__: ClassVar[Any]
    __match_args__: ClassVar[tuple[str, ...]] = (
        "players",
        "seed",
        "round",
        "opener",
        "deck",
        "deals",
        "rng",
        "last_round",
        "actions_before",
        "given",
    )

    players: int
    seed: int
    round: int
    opener: int
    deck: tuple[Tile, ...]
    deals: tuple[Deal, ...]
    rng: int
    last_round: RoundResult | None
    actions_before: int
    given: bool

    def __init__(
        self,
        players: int,
        seed: int,
        round: int,
        opener: int,
        deck: tuple[Tile, ...],
        deals: tuple[Deal, ...],
        rng: int,
        last_round: RoundResult | None,
        actions_before: int = 0,
        given: bool = False,
    ) -> None:
        if COMPILED:
            self.players = players
            self.seed = seed
            self.round = round
            self.opener = opener
            self.deck = deck
            self.deals = deals
            self.rng = rng
            self.last_round = last_round
            self.actions_before = actions_before
            self.given = given
            return
        values = (players, seed, round, opener, deck, deals, rng, last_round, actions_before, given)
        for name, value in zip(RoundInfo.__match_args__, values, strict=True):
            object.__setattr__(self, name, value)

    def _fields(self) -> tuple[object, ...]:
        return (
            self.players,
            self.seed,
            self.round,
            self.opener,
            self.deck,
            self.deals,
            self.rng,
            self.last_round,
            self.actions_before,
            self.given,
        )

    def __setattr__(self, name: str, value: object) -> None:
        raise _frozen()

    def __delattr__(self, name: str) -> None:
        raise _frozen()


class MatchState(_FrozenValue):
    """A whole match at one moment: the hands, the stock, the table and the scores.

    Make one with :func:`~american_sniff.new_match` and advance it with
    :func:`~american_sniff.apply`; save it with :meth:`to_json` and load it
    with :meth:`from_json`. A state never changes. The constructor (and so
    ``attrs.evolve``) does not check that the fields are consistent with each
    other; :func:`~american_sniff.validate_state` does. It behaves as a frozen
    attrs class: it compares, hashes, pickles and evolves (``attrs.evolve``)
    by its fields; the legal-move cache is not part of its value.

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

    __slots__ = (
        "_legal",
        "_log",
        "drawn",
        "drawn_count",
        "hands",
        "info",
        "layout",
        "scores",
        "turn",
        "winner",
    )
    #: attrs' description of the fields (set below the class), for attrs' functions.
    __attrs_attrs__: ClassVar[Any]
    __match_args__: ClassVar[tuple[str, ...]] = (
        "info",
        "turn",
        "hands",
        "layout",
        "scores",
        "winner",
        "drawn",
        "drawn_count",
        "_log",
    )

    info: RoundInfo
    turn: int
    hands: tuple[tuple[Tile, ...], ...]
    layout: Layout
    scores: tuple[int, ...]
    winner: int | None
    drawn: Tile | None
    drawn_count: int
    # The round's action log, newest first (see :attr:`history`); typed
    # loosely, as Layout's, so that validate_state can report a malformed one.
    _log: Any
    # Cache of the legal moves, filled on first use; not part of the value.
    _legal: tuple[Move, ...] | None

    def __init__(
        self,
        info: RoundInfo,
        turn: int,
        hands: tuple[tuple[Tile, ...], ...],
        layout: Layout,
        scores: tuple[int, ...],
        winner: int | None,
        drawn: Tile | None,
        drawn_count: int,
        log: ActionLog | object = None,
    ) -> None:
        if COMPILED:
            self.info = info
            self.turn = turn
            self.hands = hands
            self.layout = layout
            self.scores = scores
            self.winner = winner
            self.drawn = drawn
            self.drawn_count = drawn_count
            self._log = log
            self._legal = None
            return
        values = (info, turn, hands, layout, scores, winner, drawn, drawn_count, log, None)
        for name, value in zip(_STATE_INIT_SLOTS, values, strict=True):
            object.__setattr__(self, name, value)

    def _fields(self) -> tuple[object, ...]:
        return (
            self.info,
            self.turn,
            self.hands,
            self.layout,
            self.scores,
            self.winner,
            self.drawn,
            self.drawn_count,
            self._log,
        )

    def __setattr__(self, name: str, value: object) -> None:
        raise _frozen()

    def __delattr__(self, name: str) -> None:
        raise _frozen()

    def __reduce__(self) -> tuple[object, ...]:
        # The legal-move cache travels too: it is still right for the equal state.
        return (MatchState, self._fields(), self._legal)

    def __setstate__(self, legal: tuple[Move, ...] | None) -> None:
        self._cache_legal(legal)

    def _cache_legal(self, moves: tuple[Move, ...] | None) -> None:
        """Keep ``moves`` as the legal moves of this state (the engine's cache)."""
        # In a method of the native class this store goes straight into the object.
        object.__setattr__(self, "_legal", moves)

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
    def seq(self) -> int:
        """The sequence number: how many actions the match has had, across rounds.

        It is ``info.actions_before + len(history)``: 0 at the start of the
        match and one more with each action. Every view and event of this
        state carries the same number (:attr:`~american_sniff.SpectatorView.seq`),
        so a host can name the state a move was planned on by it. It counts
        the round's actions, without building :attr:`history`.
        """
        return self.info.actions_before + log_length(self._log)

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

    # The public signatures are the overloads; the implementations take any
    # value, so that a wrong one is refused by serial's checks (a ValueError
    # naming it) in both builds, not by the compiled build's argument check.
    @overload
    def to_json(self) -> str: ...
    @overload
    def to_json(self, *, key: bytes | None) -> str: ...
    def to_json(self, *, key: object = None) -> str:
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

        # (Any, not a cast: compiled, a cast checks the type, and serial does.)
        unchecked: Any = key
        return state_to_json(self, key=unchecked)

    @overload
    @classmethod
    def from_json(cls, text: str | bytes) -> MatchState: ...
    @overload
    @classmethod
    def from_json(cls, text: str | bytes, *, key: bytes | None) -> MatchState: ...
    @classmethod
    def from_json(cls, text: object, *, key: object = None) -> MatchState:
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

        unchecked_text: Any = text
        unchecked_key: Any = key
        return state_from_json(unchecked_text, key=unchecked_key)

    def _check_seat(self, seat: object) -> None:
        """Raise :class:`ValueError` unless ``seat`` is a seat of this match."""
        check_seat(self.info.players, seat)

    def __repr__(self) -> str:
        status = f"winner={self.winner}" if self.winner is not None else f"turn={self.turn}"
        return (
            f"<MatchState players={self.players} round={self.round} {status} "
            f"scores={self.scores} table={len(self.layout)} stock={self.stock_size}>"
        )


#: MatchState's slots in the order of its constructor's arguments, then the cache.
_STATE_INIT_SLOTS = (*MatchState.__match_args__, "_legal")

# attrs' view of the three classes: each field as attrs would declare it. A
# field with an alias (``log``) is stored under its name (``_log``); the legal-
# move cache is no argument and no part of the value.
setattr(  # noqa: B010 (a class attribute of a native class is set like this)
    RoundResult,
    "__attrs_attrs__",
    attrs_fields(
        "RoundResult",
        {
            **{name: _attribute() for name in RoundResult.__match_args__[:7]},
            "_log": _attribute(alias="log", default=None, repr=False),
            "given": _attribute(default=False),
        },
    ),
)
setattr(  # noqa: B010
    RoundInfo,
    "__attrs_attrs__",
    attrs_fields(
        "RoundInfo",
        {
            **{name: _attribute() for name in RoundInfo.__match_args__[:8]},
            "actions_before": _attribute(default=0),
            "given": _attribute(default=False),
        },
    ),
)
setattr(  # noqa: B010
    MatchState,
    "__attrs_attrs__",
    attrs_fields(
        "MatchState",
        {
            **{name: _attribute() for name in MatchState.__match_args__[:8]},
            "_log": _attribute(alias="log", default=None, repr=False),
            "_legal": _attribute(init=False, default=None, eq=False, repr=False, hash=False),
        },
    ),
)


# -- the engine's access to a state's own slots ---------------------------------------
# The action log and the legal-move cache are private slots of MatchState; the
# engine and the views reach them through these functions only.


def log_of(state: MatchState) -> ActionLog:
    """The action log of ``state``'s round, newest first."""
    log: ActionLog = state._log
    return log


def round_log_of(result: RoundResult) -> ActionLog:
    """The action log of a finished round ``result``, newest first."""
    log: ActionLog = result._log
    return log


def extended_log(
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


def legal_cache(state: MatchState) -> tuple[Move, ...] | None:
    """The legal moves cached in ``state``, or None if they were not listed yet.

    A move that is one of the very objects of that tuple was produced for that
    very state, so it is legal there and needs no check (see the private
    ``american_sniff._fast``).
    """
    return state._legal


def set_legal_cache(state: MatchState, moves: tuple[Move, ...]) -> None:
    """Cache ``moves`` as the legal moves of ``state`` (not part of its value)."""
    if COMPILED:
        state._cache_legal(moves)  # a native method, which stores into the object directly
    else:
        _set_legal(state, moves)


# (Compiled, log_of, legal_cache and set_legal_cache are native functions on
# the native class's fields: faster than the C-level slot readers, which go
# through Python's attribute look-up.)
_set_legal = vars(MatchState)["_legal"].__set__  # the interpreter's fastest store
