"""The rules engine: start a match, list the legal moves, apply a move, read a score."""

from __future__ import annotations

import secrets
from collections.abc import Iterable

from .errors import IllegalMove, InvalidDeal
from .layout import _POINT_OF_KEY, Layout
from .moves import Draw, Move, Pass, Place
from .rng import below, check_seed, shuffled
from .rules import (
    HAND_SIZE,
    PLAYER_COUNTS,
    TARGET,
    round_hand,
    side_count,
    side_of,
)
from .state import (
    ActionLog,
    Deal,
    MatchState,
    RoundEnd,
    RoundInfo,
    RoundResult,
    _new_state,
    _set_legal,
    tile_index,
)
from .tiles import ALL_TILES, Tile

__all__ = ["apply", "compiled", "legal_moves", "new_match", "score_of"]


def compiled() -> bool:
    """Whether this module runs compiled by mypyc (else it is the pure-Python build)."""
    return not __file__.endswith(".py")


# -- interned moves ----------------------------------------------------------
# legal_moves hands out these instances, so apply recognises them by identity.

_DRAW = Draw()
_PASS = Pass()
#: The legal moves of a player who must draw, or must pass. apply knows that a
#: state whose cache is one of these has already been checked for that move.
_DRAW_ONLY: tuple[Move, ...] = (_DRAW,)
_PASS_ONLY: tuple[Move, ...] = (_PASS,)
_OPEN = tuple(Place(tile) for tile in ALL_TILES)
#: _PLACE[tile.index][key] is the Place of that tile on the point with that key
#: (``Point.order``), or None where the tile does not fit (or is that point's own).
_PLACE: tuple[list[Place | None], ...] = tuple(
    [
        None
        if point is None or point.tile == tile or not tile.has(point.value)
        else Place(tile, point)
        for point in _POINT_OF_KEY
    ]
    for tile in ALL_TILES
)
#: 0 to 27, the indices of ALL_TILES, for the seeded shuffle.
_TILE_INDICES = tuple(range(len(ALL_TILES)))
#: Bit v is set in _VALUES[tile.index] for each half v of the tile.
_VALUES = tuple(1 << tile.low | 1 << tile.high for tile in ALL_TILES)


# -- starting a match ----------------------------------------------------------


def new_match(
    players: int,
    *,
    seed: int | None = None,
    deals: Iterable[Deal] = (),
) -> MatchState:
    """Deal a new match for ``players`` players and pick the opener by lot.

    The deal and every lot come from ``seed`` (an integer from 0 to 2**64 - 1)
    through :mod:`american_sniff.rng`, so the same seed gives the same match
    everywhere. Without a seed, a random one is chosen and kept in
    :attr:`MatchState.seed`.

    ``deals`` replaces the seeded deal of the first rounds, one :class:`Deal`
    per round in order; later rounds are dealt from the seed again. A deal's
    opener is used where a lot is due (see :class:`Deal`).

    >>> state = new_match(4, seed=7)
    >>> state.players, len(state.hands[0]), len(state.stock), state.round
    (4, 5, 8, 1)

    :raises ValueError: if ``players`` is not 2, 3 or 4 or ``seed`` is out of range.
    :raises InvalidDeal: if a deal is malformed or dealt for another number of players.
    """
    if type(players) is not int or players not in PLAYER_COUNTS:
        raise ValueError(f"American Sniff is played by 2, 3 or 4 players, got {players!r}")
    seed = secrets.randbits(64) if seed is None else check_seed(seed)
    try:
        deal_list = tuple(deals)
    except TypeError:
        raise InvalidDeal(f"deals must be a sequence of Deal, got {deals!r}") from None
    for number, deal in enumerate(deal_list, start=1):
        if not isinstance(deal, Deal):
            raise InvalidDeal(f"deal {number} is not a Deal: {deal!r}")
        if deal.players != players:
            raise InvalidDeal(f"deal {number} is for {deal.players} players, not {players}")
    return _deal_round(
        players=players,
        seed=seed,
        number=1,
        rng=seed,
        deals=deal_list,
        scores=(0,) * side_count(players),
        finisher=None,
    )


def _deal_round(
    *,
    players: int,
    seed: int,
    number: int,
    rng: int,
    deals: tuple[Deal, ...],
    scores: tuple[int, ...],
    finisher: int | None,
    last_round: RoundResult | None = None,
) -> MatchState:
    """The first state of round ``number``, opened by the finisher or by lot.

    The round is dealt from the next given deal, or else from the generator
    state ``rng``; ``last_round`` is the result of the round before.
    """
    lot: int | None = None
    if deals:
        deal, deals = deals[0], deals[1:]
        hands, deck, lot = deal.hands, deal.stock, deal.opener
    else:
        # A seeded shuffle: hands are dealt in seat order from the front of the
        # shuffled set, and the rest is the stock in draw order.
        # (Shuffling the tile indices gives the same order as shuffling the
        # tiles, and integers sort in C.)
        size = HAND_SIZE[players]
        order, rng = shuffled(_TILE_INDICES, rng)
        hands = tuple(
            tuple([ALL_TILES[i] for i in sorted(order[seat * size : (seat + 1) * size])])
            for seat in range(players)
        )
        deck = tuple([ALL_TILES[i] for i in order[players * size :]])
    # The player who went out opens; otherwise a lot is drawn (or was given).
    if finisher is not None:
        opener = finisher
    elif lot is not None:
        opener = lot
    else:
        opener, rng = below(players, rng)
    info = RoundInfo(
        players=players,
        seed=seed,
        round=number,
        opener=opener,
        deck=deck,
        deals=deals,
        rng=rng,
        last_round=last_round,
    )
    return _new_state(
        info,
        opener,
        hands,
        Layout.empty(),
        scores,
        None,
        None,
        0,
        None,
    )


# -- legal moves ------------------------------------------------------------


def _placements(tiles: tuple[Tile, ...], layout: Layout) -> list[Place]:
    """Every placement of ``tiles`` on ``layout``: by tile, then in point order."""
    values = layout.value_mask
    keys = layout.open_keys
    moves = []
    for tile in tiles:
        index = tile.index
        if _VALUES[index] & values:
            row = _PLACE[index]
            for key in keys:
                place = row[key]
                if place is not None:
                    moves.append(place)
    return moves


def _can_place(hand: tuple[Tile, ...], values: int) -> bool:
    for tile in hand:
        if _VALUES[tile.index] & values:
            return True
    return False


def legal_moves(state: MatchState) -> tuple[Move, ...]:
    """Every legal move of the player to move, in a stable order.

    * On the empty table: placing any tile of the hand (``at=None``).
    * Right after drawing a tile that fits: that tile's placements only.
    * Otherwise every placement of every tile of the hand, if there is one;
      failing that ``(Draw(),)`` while the stock has tiles, else ``(Pass(),)``.

    Placements are ordered by tile (as in the sorted hand), then by point (as
    in :meth:`Layout.points`). A finished match has no legal moves.

    :raises TypeError: if ``state`` is not a :class:`MatchState`.

    >>> len(legal_moves(new_match(2, seed=1)))
    7
    """
    if type(state) is not MatchState:
        raise _not_a_state("legal_moves", state)
    cached = state._legal
    if cached is not None:
        return cached
    result: tuple[Move, ...]
    if state.winner is not None:
        result = ()
    else:
        layout = state.layout
        hand = state.hands[state.turn]
        if not layout.tile_mask:
            result = tuple(_OPEN[tile.index] for tile in hand)
        else:
            drawn = state.drawn
            moves = _placements(hand if drawn is None else (drawn,), layout)
            if moves:
                result = tuple(moves)
            elif state.drawn_count < len(state.info.deck):
                result = _DRAW_ONLY
            else:
                result = _PASS_ONLY
    _set_legal(state, result)  # the cache is not part of the state's value
    return result


# -- applying a move ---------------------------------------------------------


def apply(state: MatchState, move: Move) -> MatchState:
    """The state after ``move``; ``state`` itself is left as it was.

    A placement scores its end sum when that is a positive multiple of five.
    Then, in this order: a side that reaches its target wins at once (nothing
    else happens); a player who placed their last tile ends the round; a round
    where the stock is empty and nobody can place ends blocked. A round that
    ends is settled and the next one is dealt in the same call: the returned
    state keeps the finished round in :attr:`MatchState.last_round`.

    :raises IllegalMove: if the move is not legal here; the message says why
        (the match is over, the tile is not in hand, the point is not open, the
        values do not match, the drawn tile must be placed, the player must
        place or must draw, cannot draw or cannot pass).
    :raises TypeError: if ``state`` is not a :class:`MatchState`.
    """
    if type(state) is not MatchState:
        raise _not_a_state("apply", state)
    if state.winner is not None:
        raise IllegalMove(f"the match is over: side {state.winner} has won", "match_over")
    kind = type(move)
    if kind is Place:
        return _apply_place(state, move)  # type: ignore[arg-type]
    if kind is Draw:
        return _apply_draw(state)
    if kind is Pass:
        return _apply_pass(state)
    raise IllegalMove(f"not a move: {move!r} (expected Place, Draw or Pass)", "not_a_move")


def _apply_place(state: MatchState, move: Place) -> MatchState:
    """Place a tile: score it, then check the target, an empty hand and a block, in order."""
    seat = state.turn
    hand = state.hands[seat]
    # A move that legal_moves handed out for this state is recognised by
    # identity; anything else is checked rule by rule.
    legal = state._legal
    handed_out = False
    if legal is not None:
        for candidate in legal:
            if candidate is move:
                handed_out = True
                break
    if not handed_out:
        move = _checked_place(state, move)
    tile = move.tile
    at = move.at
    key = None if at is None else at.order
    # The placement itself, and its points.  Hands hold the interned tiles.
    position = 0
    for held in hand:
        if held is tile:
            break
        position += 1
    else:  # a hand built outside the engine may hold equal, non-interned tiles
        position = hand.index(tile)
    new_hand = hand[:position] + hand[position + 1 :]
    hands = state.hands[:seat] + (new_hand,) + state.hands[seat + 1 :]
    layout = state.layout._place(tile, key)
    end_sum = layout.end_sum
    points = end_sum if end_sum > 0 and end_sum % 5 == 0 else 0
    players = state.info.players
    scores = state.scores
    winner = None
    if points:
        side = seat % 2 if players == 4 else seat  # rules.side_of, inlined
        total = scores[side] + points
        scores = scores[:side] + (total,) + scores[side + 1 :]
        # The target is checked first: reaching it ends the match at once.
        winner = side if total >= TARGET[players] else None
    log = (seat, move, None, end_sum, points, scores, state._log)
    if winner is not None:
        return _new_state(
            state.info, seat, hands, layout, scores, winner, None, state.drawn_count, log
        )
    # Then an empty hand: the player went out.
    if not new_hand:
        return _end_round(state, hands, layout, scores, RoundEnd.DOMINO, seat, log)
    # Then a block: an empty stock and nobody able to place.
    if state.drawn_count == len(state.info.deck) and _blocked(hands, layout.value_mask):
        return _end_round(state, hands, layout, scores, RoundEnd.BLOCKED, None, log)
    return _new_state(
        state.info,
        (seat + 1) % players,
        hands,
        layout,
        scores,
        None,
        None,
        state.drawn_count,
        log,
    )


def _checked_place(state: MatchState, move: Place) -> Place:
    """The interned placement equal to ``move``, or IllegalMove naming the rule it breaks."""
    tile = move.tile
    at = move.at
    seat = state.turn
    if not isinstance(tile, Tile):
        raise IllegalMove(f"not a tile: {tile!r}", "not_a_tile")
    if tile not in state.hands[seat]:
        raise IllegalMove(f"{tile} is not in the hand of seat {seat}", "not_in_hand")
    drawn = state.drawn
    if drawn is not None and tile != drawn:
        raise IllegalMove(
            f"seat {seat} must place the tile just drawn, {drawn}, not {tile}", "must_place_drawn"
        )
    state.layout.check_place(tile, at)
    if at is None:
        return _OPEN[tile.index]
    interned = _PLACE[tile.index][at.order]
    assert interned is not None  # check_place has just accepted the move
    return interned


def _apply_draw(state: MatchState) -> MatchState:
    seat = state.turn
    if state._legal is not _DRAW_ONLY:
        _check_cannot_place(state, "draw")
    deck = state.info.deck
    count = state.drawn_count
    if count == len(deck):
        raise IllegalMove(
            f"seat {seat} cannot draw: the stock is empty, so it must pass", "stock_empty"
        )
    # Draw one tile; it must be placed at once if it fits.
    tile = deck[count]
    count += 1
    hand = tuple(sorted(state.hands[seat] + (tile,), key=tile_index))
    hands = state.hands[:seat] + (hand,) + state.hands[seat + 1 :]
    layout = state.layout
    log = (seat, _DRAW, tile, None, 0, state.scores, state._log)
    fits = bool(_VALUES[tile.index] & layout.value_mask)
    if not fits and count == len(deck) and _blocked(hands, layout.value_mask):
        return _end_round(state, hands, layout, state.scores, RoundEnd.BLOCKED, None, log)
    return _new_state(
        state.info,
        seat,
        hands,
        layout,
        state.scores,
        None,
        tile if fits else None,
        count,
        log,
    )


def _apply_pass(state: MatchState) -> MatchState:
    seat = state.turn
    if state._legal is not _PASS_ONLY:
        _check_cannot_place(state, "pass")
    if state.drawn_count < len(state.info.deck):
        raise IllegalMove(
            f"seat {seat} cannot pass: the stock is not empty, so it must draw", "must_draw"
        )
    # Nothing on the table or in the stock changes, so a pass cannot newly
    # block the round: a block would have been declared by the action before.
    return _new_state(
        state.info,
        (seat + 1) % state.info.players,
        state.hands,
        state.layout,
        state.scores,
        None,
        None,
        state.drawn_count,
        (seat, _PASS, None, None, 0, state.scores, state._log),
    )


def _check_cannot_place(state: MatchState, action: str) -> None:
    """Refuse a draw or a pass from a player who holds a legal placement."""
    seat = state.turn
    if state.drawn is not None:
        raise IllegalMove(
            f"seat {seat} must place the tile just drawn, {state.drawn}; it cannot {action}",
            "must_place_drawn",
        )
    layout = state.layout
    if not layout.tile_mask:
        raise IllegalMove(
            f"seat {seat} opens the round and must place a tile; it cannot {action}", "must_place"
        )
    if _can_place(state.hands[seat], layout.value_mask):
        raise IllegalMove(
            f"seat {seat} holds a legal placement and must place; it cannot {action}", "must_place"
        )


def _blocked(hands: tuple[tuple[Tile, ...], ...], values: int) -> bool:
    """Whether no seat holds a tile that fits an open point (the stock being empty)."""
    for hand in hands:
        if _can_place(hand, values):
            return False
    return True


def _end_round(
    state: MatchState,
    hands: tuple[tuple[Tile, ...], ...],
    layout: Layout,
    scores: tuple[int, ...],
    end: RoundEnd,
    finisher: int | None,
    log: ActionLog,
) -> MatchState:
    """Settle the round and deal the next one; ``log`` ends with the action that ended it."""
    players = state.info.players
    # Each hand is rounded on its own and deducted from its side; no floor.
    deductions = tuple(round_hand(sum(t.pips for t in hand)) for hand in hands)
    settled = list(scores)
    for seat, amount in enumerate(deductions):
        settled[side_of(players, seat)] -= amount
    result = RoundResult(
        round=state.info.round,
        end=end,
        finisher=finisher,
        layout=layout,
        hands=hands,
        deductions=deductions,
        scores=tuple(settled),
        log=log,
    )
    info = state.info
    return _deal_round(
        players=players,
        seed=info.seed,
        number=info.round + 1,
        rng=info.rng,
        deals=info.deals,
        scores=tuple(settled),
        finisher=finisher,
        last_round=result,
    )


# -- scores ------------------------------------------------------------------


def score_of(state: MatchState, seat: int) -> int:
    """The score of ``seat``'s side: its own, or its partnership's with 4 players.

    :raises ValueError: if ``seat`` is not a seat of the match.
    :raises TypeError: if ``state`` is not a :class:`MatchState`.
    """
    if type(state) is not MatchState:
        raise _not_a_state("score_of", state)
    return state.scores[state.side_of(seat)]


def _not_a_state(function: str, value: object) -> TypeError:
    return TypeError(f"{function}() needs a MatchState (from new_match), got {value!r}")
