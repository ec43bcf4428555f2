"""Observations: a :class:`~american_sniff.PlayerView` as a fixed-size vector of integers.

Learning agents take a vector of numbers of one size whatever the position.
:func:`encode` turns a view into :data:`OBSERVATION_SIZE` (375) integers, and
:func:`information_state` into a text that tells information states apart. Both
read only the view, so they cannot leak a hidden tile: two states that give a
seat the same view give it the same observation.

**Relative seats.** Seats are counted from the viewer: relative seat ``k`` is
seat ``(view.seat + k) % players``, so relative seat 0 is the viewer, and with
4 players relative seat 2 is the partner. Sides (the scoring sides: seats with
2 or 3 players, partnerships with 4) are counted the same way from the
viewer's side. Slots for seats or sides a match does not have hold 0.

**The vector**, segment by segment in this order (:data:`OBSERVATION_FIELDS`
lists the names and sizes); tiles are numbered by
:attr:`~american_sniff.Tile.index` and points ``p`` as in
:mod:`american_sniff.actions`:

==============  ======  =====================================================
Segment         Size    Meaning
==============  ======  =====================================================
``hand``        28      1 for each tile in the viewer's hand
``drawn``       28      1 for the tile the viewer has just drawn and must place
``played``      4 x 28  ``[k * 28 + t]``: 1 if relative seat ``k`` placed tile
                        ``t`` this round
``open``        70      1 for each open connection point ``p``
``counts``      70      what each open point adds to the end sum (a terminal
                        double counts both halves at its free line side, a lone
                        opening double once, at ``line_a``), else 0
``end_sum``     1       the table's end sum
``values``      7       ``[v]``: how many open points show the number ``v``
``sniff``       7       ``[v]``: 1 if the Sniff is ``[v|v]``
``hand_sizes``  4       tiles held, by relative seat
``stock``       1       tiles left to draw
``voids``       4 x 7   ``[k * 7 + v]``: 1 if relative seat ``k`` is known to
                        hold no tile showing ``v`` (see
                        :mod:`american_sniff.views`)
``scores``      3       scores, by relative side (may be negative)
``target``      1       the points a side needs to win (250 or 200)
``players``     3       1 at ``players - 2``: one-hot 2, 3 or 4 players
``turn``        4       1 at the relative seat to move, while the match goes on
``opener``      4       1 at the relative seat that opened the round
``round``       1       the round number, 1 for the first
``winner``      3       1 at the relative side that won, once the match is over
==============  ======  =====================================================

Every entry is an integer: 0 or 1 for flags, counts from 0 to 28, the end sum
up to 36, the round number, and the scores, which have no floor.

>>> from american_sniff import new_match, view_for
>>> observation = encode(view_for(new_match(2, seed=1), 0))
>>> len(observation) == OBSERVATION_SIZE, sum(observation[:28])
(True, 7)
>>> segment(observation, "hand_sizes"), segment(observation, "target")
((7, 7, 0, 0), (250,))

**Without building a view.** An environment that encodes at every step can
keep the round's public facts beside the engine's state instead: a
:class:`RoundFacts` (what each seat placed, what it is known not to hold),
advanced by :meth:`RoundFacts.after` with each action, and
:func:`encode_state` reads the rest from the state. The result is the same
vector as ``encode(view_for(state, seat))``, entry for entry (the tests check
it at every step of random matches), at a fraction of the cost:

>>> from american_sniff import legal_moves, apply
>>> state = new_match(2, seed=1)
>>> facts = RoundFacts.start(state)
>>> move = legal_moves(state)[0]
>>> after = apply(state, move)
>>> facts = facts.after(state, move, after)
>>> encode_state(after, 1, facts) == encode(view_for(after, 1))
True
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import attrs

from .actions import POINTS
from .layout import Layout
from .moves import Draw, Move, Pass, Place
from .rules import MAX_PIPS, PLAYER_COUNTS, TARGET, TILE_COUNT, side_count, side_of, stock_size
from .state import MatchState
from .views import PlayerView
from .views.facts import void_at_turn_end

__all__ = [
    "ACTION_SLOT_FIELDS",
    "OBSERVATION_BOUNDS",
    "OBSERVATION_FIELDS",
    "OBSERVATION_SIZE",
    "SCALED_BOUNDS",
    "SCALE_CLIPS",
    "SCALE_DIVISORS",
    "RoundFacts",
    "action_slots",
    "encode",
    "encode_information_state",
    "encode_list",
    "encode_state",
    "information_state",
    "information_state_size",
    "observation_string",
    "scaled",
    "segment",
]

_VALUES = MAX_PIPS + 1  # the numbers a half can show: 0 to 6
_SEATS = max(PLAYER_COUNTS)
_SIDES = max(side_count(players) for players in PLAYER_COUNTS)

#: The segments of the vector in order, as (name, size); see the module's table.
OBSERVATION_FIELDS: tuple[tuple[str, int], ...] = (
    ("hand", TILE_COUNT),
    ("drawn", TILE_COUNT),
    ("played", _SEATS * TILE_COUNT),
    ("open", 70),
    ("counts", 70),
    ("end_sum", 1),
    ("values", _VALUES),
    ("sniff", _VALUES),
    ("hand_sizes", _SEATS),
    ("stock", 1),
    ("voids", _SEATS * _VALUES),
    ("scores", _SIDES),
    ("target", 1),
    ("players", len(PLAYER_COUNTS)),
    ("turn", _SEATS),
    ("opener", _SEATS),
    ("round", 1),
    ("winner", _SIDES),
)

#: The length of every observation vector (375).
OBSERVATION_SIZE = sum(size for _, size in OBSERVATION_FIELDS)

_INF = float("inf")
# The least and greatest value of each segment's entries.
_RANGES = {
    "counts": (0, 12),  # a terminal [6|6]
    "end_sum": (0, 36),
    "values": (0, TILE_COUNT),
    "hand_sizes": (0, TILE_COUNT),
    "stock": (0, TILE_COUNT),
    "scores": (-_INF, _INF),  # scores have no floor, and the winning placement may pass the target
    "target": (0, max(TARGET.values())),
    "round": (0, _INF),
}

#: The least and the greatest value of each entry of the vector, as two tuples
#: (flags are 0 to 1; the scores and the round number are unbounded).
OBSERVATION_BOUNDS: tuple[tuple[float, ...], tuple[float, ...]] = (
    tuple(
        float(_RANGES.get(name, (0, 1))[0])
        for name, size in OBSERVATION_FIELDS
        for _ in range(size)
    ),
    tuple(
        float(_RANGES.get(name, (0, 1))[1])
        for name, size in OBSERVATION_FIELDS
        for _ in range(size)
    ),
)


def _offsets() -> dict[str, int]:
    offsets, start = {}, 0
    for name, size in OBSERVATION_FIELDS:
        offsets[name] = start
        start += size
    return offsets


_AT = _offsets()
_SIZE = dict(OBSERVATION_FIELDS)
# The dense point number p of each point's order.
_P_OF_ORDER = {point.order: p for p, point in enumerate(POINTS)}


def segment(observation: tuple[int, ...], name: str) -> tuple[int, ...]:
    """The entries of the segment ``name`` of an observation vector.

    :raises ValueError: if no segment has that name.
    """
    if name not in _AT:
        raise ValueError(f"no segment is named {name!r}; see OBSERVATION_FIELDS")
    start = _AT[name]
    return tuple(observation[start : start + _SIZE[name]])


def _check_view(view: object, function: str) -> PlayerView:
    if type(view) is not PlayerView:
        raise TypeError(f"{function}() needs a PlayerView, got {view!r}")
    return view


def encode(view: PlayerView) -> tuple[int, ...]:
    """The observation vector of ``view``: :data:`OBSERVATION_SIZE` integers.

    :raises TypeError: if ``view`` is not a :class:`~american_sniff.PlayerView`.
    """
    _check_view(view, "encode")
    out = [0] * OBSERVATION_SIZE
    players, seat = view.players, view.seat
    sides = side_count(players)
    my_side = side_of(players, seat)
    for tile in view.hand:
        out[tile.index] = 1
    if view.drawn is not None:
        out[_AT["drawn"] + view.drawn.index] = 1
    played = _AT["played"]
    for action in view.history:
        move = action.move
        if isinstance(move, Place):
            out[played + (action.seat - seat) % players * TILE_COUNT + move.tile.index] = 1
    layout = view.layout
    opened, values = _AT["open"], _AT["values"]
    for key in layout.open_keys:
        out[opened + _P_OF_ORDER[key]] = 1
    for point in layout.points():
        out[values + point.value] += 1
    counts = _AT["counts"]
    for contribution in layout.contributions():
        out[counts + _P_OF_ORDER[contribution.point.order]] = contribution.value
    out[_AT["end_sum"]] = layout.end_sum
    if layout.sniff is not None:
        out[_AT["sniff"] + layout.sniff.low] = 1
    sizes, voids = _AT["hand_sizes"], _AT["voids"]
    for k in range(players):
        other = (seat + k) % players
        out[sizes + k] = view.hand_sizes[other]
        for value in view.voids[other]:
            out[voids + _VALUES * k + value] = 1
    out[_AT["stock"]] = view.stock_size
    scores = _AT["scores"]
    for r in range(sides):
        out[scores + r] = view.scores[(my_side + r) % sides]
    out[_AT["target"]] = view.target
    out[_AT["players"] + players - 2] = 1
    if view.winner is None:
        out[_AT["turn"] + (view.turn - seat) % players] = 1
    else:
        out[_AT["winner"] + (view.winner - my_side) % sides] = 1
    out[_AT["opener"] + (view.opener - seat) % players] = 1
    out[_AT["round"]] = view.round
    return tuple(out)


def observation_string(view: PlayerView) -> str:
    """A one-line text of what ``view`` shows now (not how the round got here).

    The hand, the table's open points with their counts, hand sizes, stock,
    scores and whose turn it is.

    :raises TypeError: if ``view`` is not a :class:`~american_sniff.PlayerView`.
    """
    _check_view(view, "observation_string")
    hand = " ".join(map(str, view.hand))
    drawn = "" if view.drawn is None else f" drawn {view.drawn}"
    table = ", ".join(f"{c.point}={c.value}" for c in view.layout.contributions())
    open_points = ", ".join(map(str, view.layout.points()))
    status = f"turn {view.turn}" if view.winner is None else f"won by side {view.winner}"
    return (
        f"seat {view.seat}/{view.players} round {view.round} opener {view.opener}; "
        f"hand {hand}{drawn}; open {open_points or '-'}; counts {table or '-'} "
        f"sum {view.layout.end_sum}; sniff {view.layout.sniff}; "
        f"hands {list(view.hand_sizes)} stock {view.stock_size}; "
        f"voids {[sorted(v) for v in view.voids]}; "
        f"scores {list(view.scores)} of {view.target}; {status}"
    )


def information_state(view: PlayerView) -> str:
    """A text that names the viewer's information state: what it saw and did.

    It is :func:`observation_string` followed by the round's actions as the
    view shows them (another seat's draw without its tile) and the previous
    round's result (its end, finisher, revealed hands and scores). Two
    positions with the same text are the same to the viewer. (Rounds before the
    previous one are not in a view; they leave nothing that matters to the
    rest of the match beyond the scores, which the text holds.)

    :raises TypeError: if ``view`` is not a :class:`~american_sniff.PlayerView`.
    """
    _check_view(view, "information_state")
    actions = " | ".join(map(str, view.history))
    last = view.last_round
    before = (
        "-"
        if last is None
        else (
            f"round {last.round} {last.end.value} finisher {last.finisher} "
            f"hands {[' '.join(map(str, h)) for h in last.hands]} scores {list(last.scores)}"
        )
    )
    return f"{observation_string(view)}; actions {actions or '-'}; last round {before}"


# -- encoding from the state and the round's public facts ------------------------------


@attrs.frozen
class RoundFacts:
    """The public facts of the round under way that an observation needs beyond the state.

    They are what a view works out from the round's history, kept up to date
    one action at a time (:meth:`after`) so that :func:`encode_state` needs no
    history. Seats are absolute here (seat 0 first).

    :ivar round: The round these facts are about (a new round starts afresh).
    :ivar played: For each seat, the tiles it placed this round, as a mask
        (bit ``t`` for the tile of index ``t``).
    :ivar voids: For each seat, the values it is known not to hold, as a mask
        (bit ``v`` for value ``v``), by the rules of :mod:`american_sniff.views`.
    :ivar mover: The seat whose turn is under way (it drew, or has not acted
        yet this turn), or -1 between turns.
    :ivar draws: How many tiles :attr:`mover` has drawn this turn.
    :ivar known: :attr:`mover`'s voids when its turn began.
    :ivar shown: The values open on the table when :attr:`mover`'s turn began (a mask).
    """

    round: int
    played: tuple[int, ...]
    voids: tuple[int, ...]
    mover: int = -1
    draws: int = 0
    known: int = 0
    shown: int = 0

    @classmethod
    def start(cls, state: MatchState) -> RoundFacts:
        """The facts of ``state``'s round, worked out from its history (once, at a round's start).

        :raises TypeError: if ``state`` is not a :class:`~american_sniff.MatchState`.
        """
        if type(state) is not MatchState:
            raise TypeError(f"RoundFacts.start() needs a MatchState, got {state!r}")
        players = state.players
        facts = cls(state.round, (0,) * players, (0,) * players)
        table = Layout.empty()
        for action in state.history:
            move = action.move
            facts = facts.step(action.seat, move, table.value_mask)
            if type(move) is Place:
                table = table.place(move.tile, move.at)
        return facts

    def after(self, before: MatchState, move: Move, after: MatchState) -> RoundFacts:
        """The facts once ``move``, played in ``before``, has led to ``after``.

        ``after`` must be ``apply(before, move)``. A move that ends the round
        gives the next round's facts (fresh).
        """
        if after.round != self.round:
            return RoundFacts(after.round, (0,) * after.players, (0,) * after.players)
        return self.step(before.turn, move, before.layout.value_mask)

    def step(self, seat: int, move: Move, values: int) -> RoundFacts:
        """The facts after ``seat`` played ``move`` in this round, with the values ``values`` open.

        ``values`` is the table's :attr:`~american_sniff.Layout.value_mask`
        before the move. (:meth:`after` reads these from the states.)
        """
        voids = self.voids
        mover, draws, known, shown = self.mover, self.draws, self.known, self.shown
        if seat != mover:
            mover, draws, known, shown = seat, 0, voids[seat], values
        kind = type(move)
        played = self.played
        if kind is Place:
            assert isinstance(move, Place)
            played = played[:seat] + (played[seat] | 1 << move.tile.index,) + played[seat + 1 :]
        if kind is Draw:
            # It could not place; the tile it drew may show anything until its turn ends.
            draws += 1
            void = 0
        elif kind is Place and draws == 0:
            return RoundFacts(self.round, played, voids)  # a placement by choice tells nothing
        else:
            void = void_at_turn_end(kind is Pass, draws, known, shown)
            mover = -1
        if void != voids[seat]:
            voids = voids[:seat] + (void,) + voids[seat + 1 :]
        if mover == -1:
            return RoundFacts(self.round, played, voids)
        return RoundFacts(self.round, played, voids, mover, draws, known, shown)


# The value shown by each point p.
_VALUE_OF_P = tuple(point.value for point in POINTS)
# What each open point adds to the end sum, by key, as the layouts' own
# contributions() say: learned from tables of two tiles or more (on a table of
# one tile, a lone opening double counts once: the one case where a point's
# worth depends on more than the point, so such tables always ask).
_WORTH: dict[int, int] = {}


def _table_entries(layout: Layout) -> list[tuple[int, int]]:
    """The nonzero entries that ``layout`` puts in the vector, as (index, value)."""
    opened, values, counts = _AT["open"], _AT["values"], _AT["counts"]
    keys = layout.open_keys
    worth = _WORTH if layout.tile_mask & (layout.tile_mask - 1) else {}
    shown = [0] * _VALUES
    pairs = []
    for key in keys:
        p = _P_OF_ORDER[key]
        pairs.append((opened + p, 1))
        shown[_VALUE_OF_P[p]] += 1
        if key not in worth:
            worth = {}  # unknown: ask the layout
    pairs.extend([(values + v, n) for v, n in enumerate(shown) if n])
    if worth:
        pairs.extend([(counts + _P_OF_ORDER[key], worth[key]) for key in keys if worth[key]])
    else:
        contributions = layout.contributions()
        if layout.tile_mask & (layout.tile_mask - 1):
            for contribution in contributions:
                _WORTH[contribution.point.order] = contribution.value
        pairs.extend(
            [(counts + _P_OF_ORDER[c.point.order], c.value) for c in contributions if c.value]
        )
    if layout.end_sum:
        pairs.append((_AT["end_sum"], layout.end_sum))
    if layout.sniff is not None:
        pairs.append((_AT["sniff"] + layout.sniff.low, 1))
    return pairs


def _bits(mask: int) -> list[int]:
    """The positions of the bits set in ``mask``, lowest first."""
    found = []
    while mask:
        low = mask & -mask
        found.append(low.bit_length() - 1)
        mask ^= low
    return found


def encode_state(state: MatchState, seat: int, facts: RoundFacts) -> tuple[int, ...]:
    """``encode(view_for(state, seat))``, from the state and its round's :class:`RoundFacts`.

    ``facts`` must be those of ``state`` (from :meth:`RoundFacts.start`, or
    advanced with :meth:`RoundFacts.after` along every action of the round).
    Only what ``seat`` may see is read: its hand, its drawn tile when it is to
    move, and the public facts.

    :raises TypeError: if ``state`` is not a :class:`~american_sniff.MatchState`.
    :raises ValueError: if ``seat`` is not a seat of the match, or ``facts``
        are of another round.
    """
    return tuple(encode_list(state, seat, facts, 1))


_ZEROS: dict[type, list[Any]] = {int: [0] * OBSERVATION_SIZE, float: [0.0] * OBSERVATION_SIZE}


def encode_list(state: MatchState, seat: int, facts: RoundFacts, one: float) -> list[Any]:
    """The vector of :func:`encode_state` as a new list, of ints if ``one`` is 1, of floats if 1.0.

    For environments that hand the numbers on (a float list is what
    OpenSpiel's tensors are); checked as :func:`encode_state` is.
    """
    if type(state) is not MatchState:
        raise TypeError(f"encode_state() needs a MatchState, got {state!r}")
    if type(facts) is not RoundFacts:
        raise TypeError(f"encode_state() needs RoundFacts, got {facts!r}")
    info = state.info
    players = info.players
    if type(seat) is not int or not 0 <= seat < players:
        raise ValueError(f"seat must be an integer from 0 to {players - 1}, got {seat!r}")
    if facts.round != info.round or len(facts.played) != players:
        raise ValueError(
            f"the facts are of round {facts.round} ({len(facts.played)} players), "
            f"the state is in round {info.round} ({players} players)"
        )
    out = _ZEROS[type(one)].copy()
    hands = state.hands
    for tile in hands[seat]:
        out[tile.index] = one
    winner = state.winner
    turn = state.turn
    if winner is None and turn == seat and state.drawn is not None:
        out[_DRAWN + state.drawn.index] = one
    for index, value in _table_entries(state.layout):
        out[index] = value * one
    played_masks, void_masks = facts.played, facts.voids
    for k in range(players):
        other = (seat + k) % players
        at = _PLAYED + TILE_COUNT * k
        for t in _bits(played_masks[other]):
            out[at + t] = one
        out[_HAND_SIZES + k] = len(hands[other]) * one
        at = _VOIDS + _VALUES * k
        for v in _bits(void_masks[other]):
            out[at + v] = one
    out[_STOCK] = (len(info.deck) - state.drawn_count) * one
    sides = side_count(players)
    my_side = side_of(players, seat)
    scores = state.scores
    for r in range(sides):
        out[_SCORES + r] = scores[(my_side + r) % sides] * one
    out[_TARGET] = TARGET[players] * one
    out[_PLAYERS + players - 2] = one
    if winner is None:
        out[_TURN + (turn - seat) % players] = one
    else:
        out[_WINNER + (winner - my_side) % sides] = one
    out[_OPENER + (info.opener - seat) % players] = one
    out[_ROUND] = info.round * one
    return out


_DRAWN, _PLAYED, _HAND_SIZES, _VOIDS = _AT["drawn"], _AT["played"], _AT["hand_sizes"], _AT["voids"]
_STOCK, _SCORES, _TARGET, _PLAYERS = _AT["stock"], _AT["scores"], _AT["target"], _AT["players"]
_TURN, _WINNER, _OPENER, _ROUND = _AT["turn"], _AT["winner"], _AT["opener"], _AT["round"]


# -- the perfect-recall information-state tensor ---------------------------------------

#: The parts of each action slot of :func:`encode_information_state`, as (name, size).
ACTION_SLOT_FIELDS: tuple[tuple[str, int], ...] = (
    ("actor", 4),
    ("kind", 3),
    ("tile", TILE_COUNT),
    ("point", 70),
)
_SLOT = sum(size for _, size in ACTION_SLOT_FIELDS)  # 105
_KIND_AT, _TILE_AT, _POINT_AT = 4, 7, 35


def action_slots(players: int) -> int:
    """How many actions a round can take at most with ``players`` players: the slots of the tensor.

    A round places at most the 28 tiles and draws at most its stock
    (``28 - players * hand size``). A pass needs an empty stock, and the rules
    declare the block as soon as no hand can place, so at most ``players - 1``
    passes come between two placements once the stock is empty, or after the
    last draw: at most ``(players - 1) * 29`` in all. So 71, 96 and 123
    slots for 2, 3 and 4 players.

    :raises ValueError: if ``players`` is not 2, 3 or 4.
    """
    if players not in PLAYER_COUNTS:
        raise ValueError(f"players must be 2, 3 or 4, got {players!r}")
    return TILE_COUNT + stock_size(players) + (players - 1) * (TILE_COUNT + 1)


def information_state_size(players: int) -> int:
    """The length of :func:`encode_information_state`'s vector with ``players`` players.

    :data:`OBSERVATION_SIZE` + 28 + 105 x :func:`action_slots`: 7,858, 10,483
    and 13,318 for 2, 3 and 4 players.

    :raises ValueError: if ``players`` is not 2, 3 or 4.
    """
    return OBSERVATION_SIZE + TILE_COUNT + _SLOT * action_slots(players)


def encode_information_state(view: PlayerView) -> tuple[int, ...]:
    """The perfect-recall information-state vector of ``view``: what it saw this round, in order.

    Unlike :func:`encode`, which says where the round stands, this tells
    apart every two histories of the round that the viewer can tell apart. It
    is :func:`information_state_size` integers (0 or 1 beyond the first part),
    in three parts:

    1. ``observation``: the :data:`OBSERVATION_SIZE` entries of :func:`encode`;
    2. ``dealt``: 28 entries, 1 for each tile dealt to the viewer this round
       (its hand and the tiles it placed, less the tiles it drew);
    3. ``actions``: :func:`action_slots` slots of 105 entries, slot ``i`` for
       the round's ``i``-th action (a placement, draw or pass, chance nodes
       left out), then empty slots of zeros. A slot is, by
       :data:`ACTION_SLOT_FIELDS`: ``actor`` (4, 1 at the relative seat that
       acted), ``kind`` (3: placement, draw, pass), ``tile`` (28: the tile
       placed, or the tile the *viewer* drew; another seat's draw shows no
       tile) and ``point`` (70: the point ``p`` of :mod:`american_sniff.actions`
       that a placement went on; none for the opening tile).

    So the draws are counted (one slot each) and the passes are there, with
    who made them. Earlier rounds are not in the vector: they leave nothing to
    the rest of the match but what the observation holds (the scores, the
    round number, the opener). It reads only the view, so it is a function of
    the viewer's information state: every world of it (for instance each one
    that OpenSpiel's ``resample_from_infostate`` draws) gives the same vector.

    :raises TypeError: if ``view`` is not a :class:`~american_sniff.PlayerView`.
    """
    _check_view(view, "encode_information_state")
    players, seat = view.players, view.seat
    out = list(encode(view))
    out.extend([0] * (information_state_size(players) - OBSERVATION_SIZE))
    held = {tile.index for tile in view.hand}
    drew = set()
    base = OBSERVATION_SIZE + TILE_COUNT
    for i, action in enumerate(view.history):
        at = base + _SLOT * i
        move = action.move
        out[at + (action.seat - seat) % players] = 1
        if isinstance(move, Place):
            out[at + _KIND_AT] = 1
            out[at + _TILE_AT + move.tile.index] = 1
            if move.at is not None:
                out[at + _POINT_AT + _P_OF_ORDER[move.at.order]] = 1
            if action.seat == seat:
                held.add(move.tile.index)
        elif isinstance(move, Draw):
            out[at + _KIND_AT + 1] = 1
            if action.seat == seat and action.tile is not None:
                out[at + _TILE_AT + action.tile.index] = 1
                drew.add(action.tile.index)
        else:
            out[at + _KIND_AT + 2] = 1
    for index in held - drew:
        out[OBSERVATION_SIZE + index] = 1
    return tuple(out)


# -- the scaled observation ------------------------------------------------------

# What each segment's entries are divided by (flags: 1); docs/ai.md gives the reasons.
_DIVISORS = {
    "counts": 12.0,  # a terminal [6|6] adds 12, the most one point adds
    "end_sum": 35.0,  # the best scoring sum (36 scores nothing)
    "values": 8.0,  # a number can offer at most 8 open points
    "hand_sizes": float(TILE_COUNT),
    "stock": float(TILE_COUNT),
    "target": float(max(TARGET.values())),  # the larger target
    "round": 100.0,
}
#: The segments that :func:`scaled` clips, with the bounds it clips them to
#: (where they have no natural ones): the scores to [-2, 1.2], the round to [0, 1].
SCALE_CLIPS: Mapping[str, tuple[float, float]] = MappingProxyType(
    {"scores": (-2.0, 1.2), "round": (0.0, 1.0)}
)
_CLIPS = SCALE_CLIPS

#: What each entry of the vector is divided by in :func:`scaled`: 1 for the
#: flags, a bound of the entry for the counts; the ``scores`` entries are
#: divided by the vector's own ``target`` entry instead (their 0 here says so).
SCALE_DIVISORS: tuple[float, ...] = tuple(
    0.0 if name == "scores" else _DIVISORS.get(name, 1.0)
    for name, size in OBSERVATION_FIELDS
    for _ in range(size)
)

#: The least and the greatest value of each entry of a scaled vector, as two
#: tuples: the scores are clipped to [-2, 1.2] and the round to [0, 1]; every
#: other entry lies in [0, 1] without clipping, but the end sum, in [0, 36/35].
SCALED_BOUNDS: tuple[tuple[float, ...], tuple[float, ...]] = (
    tuple(
        _CLIPS.get(name, (0.0, 0.0))[0] for name, size in OBSERVATION_FIELDS for _ in range(size)
    ),
    tuple(
        _CLIPS[name][1] if name in _CLIPS else 36 / 35 if name == "end_sum" else 1.0
        for name, size in OBSERVATION_FIELDS
        for _ in range(size)
    ),
)


def scaled(observation: tuple[int, ...] | list[int]) -> tuple[float, ...]:
    """The observation vector brought to about [0, 1]: the one scaling the library advises.

    Each entry is divided by its :data:`SCALE_DIVISORS` entry (1 for the
    flags, so they stay 0 or 1), the ``scores`` by the vector's own
    ``target`` (so 1 is the score that wins), and the scores and the round
    are clipped to the bounds of :data:`SCALED_BOUNDS` ([-2, 1.2] and
    [0, 1]). Rounded to ``float32``, the result is exactly what the batched
    :func:`american_sniff.batch.observe.scale_observations` gives and what
    the environments give with ``scaled=True``. docs/ai.md gives each
    divisor's reason.

    >>> from american_sniff import new_match, view_for
    >>> vector = scaled(encode(view_for(new_match(2, seed=1), 0)))
    >>> segment(vector, "hand_sizes"), segment(vector, "target")
    ((0.25, 0.25, 0.0, 0.0), (1.0,))

    :raises ValueError: if ``observation`` does not have :data:`OBSERVATION_SIZE` entries.
    """
    if len(observation) != OBSERVATION_SIZE:
        raise ValueError(f"an observation has {OBSERVATION_SIZE} entries, got {len(observation)}")
    target = observation[_AT["target"]] or 1
    out = [x / d if d else x / target for x, d in zip(observation, SCALE_DIVISORS, strict=True)]
    for name, (low, high) in _CLIPS.items():
        start = _AT[name]
        for i in range(start, start + _SIZE[name]):
            out[i] = min(max(out[i], low), high)
    return tuple(out)
