"""The rules engine: start a match, list the legal moves, apply a move, read a score.

It reads like the rules (``docs/rules.md``), step by step, and leaves every
decision to :mod:`american_sniff.rules`: a round is dealt and opened
(:func:`~american_sniff.new_match`), the player to move must place, draw or
pass (:func:`~american_sniff.legal_moves`), and a move is applied with its
consequences in the rules' order (:func:`~american_sniff.apply`): points, the
target, going out, a block, and the settlement of a finished round. Each rule
call decides what it names, with the real facts as its arguments. The table's
geometry is :mod:`american_sniff.layout`'s (:func:`~american_sniff.layout.placed`,
:func:`~american_sniff.layout.can_place`); the interned moves and the
slot-level constructors are the private module ``american_sniff._fast``; the
state's action log and legal-move cache are reached through
:mod:`american_sniff.state`'s functions.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import Any, Final, cast

from . import rules
from ._fast import (
    DRAW,
    DRAW_ONLY,
    OPEN,
    PASS,
    PASS_ONLY,
    PLACE,
    interned_place,
    new_round_info,
    new_round_result,
    new_state,
    shuffled_indices,
    with_tile,
)
from ._native import COMPILED
from .deal import MAX_DEALS
from .errors import IllegalMove, InvalidDeal
from .layout import FITTING_TILES, TILE_VALUES, Layout, can_place, placed
from .moves import Draw, Move, Pass, Place
from .points import Point
from .rng import below, check_seed
from .state import (
    ActionLog,
    Deal,
    MatchState,
    RoundEnd,
    RoundResult,
    check_seat,
    extended_log,
    legal_cache,
    log_length,
    set_legal_cache,
)
from .tiles import ALL_TILES, Tile

__all__ = ["apply", "compiled", "legal_moves", "new_match", "score_of", "seeded_deal"]

# The move classes, as compiled-module constants: compiled code reads a Final
# of its own module directly, but looks a name imported from an interpreted
# module (moves) up in the module's dictionary at every use.
_PLACE: Final = Place
_DRAW: Final = Draw
_PASS: Final = Pass


def compiled() -> bool:
    """Whether this module runs compiled by mypyc (else it is the pure-Python build)."""
    return COMPILED


# -- starting a match ----------------------------------------------------------


def new_match(
    players: object,
    *,
    seed: object = None,
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
    :raises InvalidDeal: if a deal is malformed or dealt for another number of
        players, or there are more than :data:`~american_sniff.deal.MAX_DEALS`.
    """
    # (players and seed are checked here, not by their annotations: the
    # compiled build would refuse a wrong type before this code runs.)
    if type(players) is not int or players not in rules.PLAYER_COUNTS:
        raise ValueError(f"American Sniff is played by 2, 3 or 4 players, got {players!r}")
    seed = secrets.randbits(64) if seed is None else check_seed(seed)
    try:
        deal_list = tuple(deals)
    except TypeError:
        raise InvalidDeal(f"deals must be a sequence of Deal, got {deals!r}") from None
    if len(deal_list) > MAX_DEALS:
        raise InvalidDeal(f"a match is given at most {MAX_DEALS} deals, got {len(deal_list)}")
    for number, deal in enumerate(deal_list, start=1):
        if not isinstance(deal, Deal):
            raise InvalidDeal(f"deal {number} is not a Deal: {deal!r}")
        if deal.players != players:
            raise InvalidDeal(f"deal {number} is for {deal.players} players, not {players}")
    return _start_round(
        players=players,
        seed=seed,
        number=1,
        rng=seed,
        deals=deal_list,
        scores=(0,) * rules.side_count(players),
        finisher=None,
        last_round=None,
        actions_before=0,
    )


def _deal(
    players: int, rng: int, deals: tuple[Deal, ...]
) -> tuple[tuple[tuple[Tile, ...], ...], tuple[Tile, ...], int | None, tuple[Deal, ...], int]:
    """Deal a round: ``(hands, stock, given lot or None, deals left, generator state)``.

    The next given deal is used if there is one; otherwise the set is shuffled
    with the generator: hands are cut from the front of the shuffled tiles in
    seat order, and the rest is the stock in draw order.
    """
    if deals:
        deal = deals[0]
        return deal.hands, deal.stock, deal.opener, deals[1:], rng
    hands, stock, rng = seeded_deal(players, rng)
    return hands, stock, None, deals, rng


def seeded_deal(
    players: int, rng: int
) -> tuple[tuple[tuple[Tile, ...], ...], tuple[Tile, ...], int]:
    """The deal from the generator state ``rng``: ``(hands, stock, generator state after)``.

    The set is shuffled with the generator (:mod:`american_sniff.rng`); the
    hands are cut from the front of the shuffled tiles in seat order, each
    sorted, and the rest is the stock in draw order.
    """
    # Shuffling the tile indices gives the same order as shuffling the tiles,
    # and integers sort in C.
    size = rules.hand_size(players)
    tiles = ALL_TILES
    order, rng = shuffled_indices(len(tiles), rng)
    hands = tuple(
        [
            tuple([tiles[i] for i in sorted(order[seat * size : (seat + 1) * size])])
            for seat in range(players)
        ]
    )
    stock = tuple([tiles[i] for i in order[players * size :]])
    return hands, stock, rng


def _start_round(
    *,
    players: int,
    seed: int,
    number: int,
    rng: int,
    deals: tuple[Deal, ...],
    scores: tuple[int, ...],
    finisher: int | None,
    last_round: RoundResult | None,
    actions_before: int,
) -> MatchState:
    """The first state of round ``number``: deal it, then pick who opens.

    ``actions_before`` is how many actions the match had before it.
    """
    given = bool(deals)
    hands, stock, lot, deals, rng = _deal(players, rng, deals)
    # The player who went out opens; otherwise a lot is drawn (unless a deal gave it).
    if rules.lot_is_due(finisher) and lot is None:
        lot, rng = below(players, rng)
    info = new_round_info(
        players=players,
        seed=seed,
        round=number,
        opener=rules.opener(finisher, lot),
        deck=stock,
        deals=deals,
        rng=rng,
        last_round=last_round,
        actions_before=actions_before,
        given=given,
    )
    return new_state(
        info=info,
        turn=info.opener,
        hands=hands,
        layout=Layout.empty(),
        scores=scores,
        drawn_count=0,
        log=None,
    )


# -- legal moves ------------------------------------------------------------


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
    cached = legal_cache(state)
    if cached is not None:
        return cached
    moves: tuple[Move, ...]
    if state.winner is not None:
        moves = ()
    else:
        layout = state.layout
        drawn = state.drawn
        tiles = state.hands[state.turn] if drawn is None else (drawn,)
        values = layout.value_mask
        # (Only the empty table shows no open value.)
        if not values:  # the opener places any tile of the hand
            moves = tuple([OPEN[tile.index] for tile in tiles])
        else:  # every placement, by tile, then in point order
            keys = layout.open_keys
            placements: list[Move] = []
            for tile in tiles:
                index = tile.index
                if TILE_VALUES[index] & values:
                    row = PLACE[index]
                    for key in keys:
                        place = row[key]
                        if place is not None:
                            placements.append(place)
            moves = tuple(placements)
        required = rules.required_action(
            not values, len(moves) != 0, len(state.info.deck) - state.drawn_count
        )
        if required != "place":
            moves = DRAW_ONLY if required == "draw" else PASS_ONLY
    set_legal_cache(state, moves)  # the cache is not part of the state's value
    return moves


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
    if type(move) is not _PLACE:
        if type(move) is _DRAW:
            return _apply_draw(state)
        if type(move) is _PASS:
            return _apply_pass(state)
        raise IllegalMove(f"not a move: {move!r} (expected Place, Draw or Pass)", "not_a_move")
    # A placement. A move legal_moves handed out for this very state (one of
    # the very objects it cached there) needs no check.
    for listed in legal_cache(state) or ():
        if listed is move:
            break
    else:
        move = _checked_place(state, move)
    # The tile leaves the hand and joins the table, which scores its end sum.
    seat = state.turn
    info = state.info
    players = info.players
    drawn_count = state.drawn_count
    tile = move.tile
    at = move.at
    # (By identity: the engine's tiles are interned.)
    kept = [held for held in state.hands[seat] if held is not tile]
    if len(kept) == len(state.hands[seat]):
        # A hand built outside the engine may hold an equal, non-interned tile.
        kept = list(state.hands[seat])
        kept.remove(tile)
    hand = tuple(kept)
    seats = list(state.hands)
    seats[seat] = hand
    hands = tuple(seats)
    layout = placed(state.layout, tile, None if at is None else at.order)
    end_sum = layout.end_sum
    points = rules.placement_points(end_sum)
    scores = state.scores
    winner = None
    if points:
        side = rules.side_of(players, seat)
        scores = scores[:side] + (scores[side] + points,) + scores[side + 1 :]
        # The target is checked first: reaching it ends the match at once.
        if rules.has_won(players, scores[side]):
            winner = side
    log = extended_log(state, seat, move, None, end_sum, points, scores)
    if winner is None:
        # Then an empty hand: the player went out.
        if not hand:
            return _end_round(state, hands, layout, scores, seat, log)
        # Then a block: an empty stock and nobody able to place (the hands
        # are looked at only once the stock is empty).
        stock_left = len(info.deck) - drawn_count
        if rules.is_blocked(stock_left, _ANYONE_CAN_PLACE, layout):
            return _end_round(state, hands, layout, scores, None, log)
        seat = rules.next_seat(players, seat)
    return new_state(
        info=info,
        turn=seat,
        hands=hands,
        layout=layout,
        scores=scores,
        winner=winner,
        drawn_count=drawn_count,
        log=log,
    )


def _checked_place(state: MatchState, move: Place) -> Place:
    """The interned placement equal to ``move``, or IllegalMove naming the rule it breaks."""
    # A Place built outside the engine may hold anything: its fields are read
    # untyped (compiled, a typed read of a native Tile would check its type).
    fields: Any = move
    tile: object = fields.tile
    at: object = fields.at
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
    state.layout.check_place(tile, at)  # (so at is a Point, or None)
    return interned_place(tile, cast("Point | None", at))


def _apply_draw(state: MatchState) -> MatchState:
    """Draw the next tile of the stock; one that fits must then be placed at once."""
    seat = state.turn
    if legal_cache(state) is not DRAW_ONLY:  # (else legal_moves has decided: draw)
        _check_required(state, "draw")
    deck = state.info.deck
    count = state.drawn_count
    tile = deck[count]
    count += 1
    hands = state.hands
    hands = hands[:seat] + (with_tile(hands[seat], tile),) + hands[seat + 1 :]
    layout = state.layout
    log = extended_log(state, seat, DRAW, tile, None, 0, state.scores)
    fits = bool(TILE_VALUES[tile.index] & layout.value_mask)
    # Drawing the last tile may leave nobody able to place.
    stock_left = len(deck) - count
    if rules.is_blocked(stock_left, fits or _ANYONE_CAN_PLACE, layout):
        return _end_round(state, hands, layout, state.scores, None, log)
    return new_state(
        info=state.info,
        turn=seat,
        hands=hands,
        layout=layout,
        scores=state.scores,
        drawn=tile if fits else None,
        drawn_count=count,
        log=log,
    )


def _apply_pass(state: MatchState) -> MatchState:
    """Pass the turn: only when no placement is legal and the stock is empty."""
    seat = state.turn
    if legal_cache(state) is not PASS_ONLY:  # (else legal_moves has decided: pass)
        _check_required(state, "pass")
    # Nothing on the table or in the stock changes, so a pass cannot newly
    # block the round: a block would have been declared by the action before.
    return new_state(
        info=state.info,
        turn=rules.next_seat(state.info.players, seat),
        hands=state.hands,
        layout=state.layout,
        scores=state.scores,
        drawn_count=state.drawn_count,
        log=extended_log(state, seat, PASS, None, None, 0, state.scores),
    )


def _check_required(state: MatchState, action: rules.Required) -> None:
    """Refuse a draw or a pass unless it is what the rules require of the player to move.

    :func:`rules.required_action` decides, from the table, whether the player
    can place (the tile just drawn if there is one, else any tile of the
    hand) and the stock; the message says why the action is refused.
    """
    seat = state.turn
    layout = state.layout
    drawn = state.drawn
    tiles = state.hands[seat] if drawn is None else (drawn,)
    stock_left = len(state.info.deck) - state.drawn_count
    required = rules.required_action(
        layout.is_empty, can_place(tiles, layout.value_mask), stock_left
    )
    if required == action:
        return
    if required == "draw":
        raise IllegalMove(
            f"seat {seat} cannot pass: the stock is not empty, so it must draw", "must_draw"
        )
    if required == "pass":
        raise IllegalMove(
            f"seat {seat} cannot draw: the stock is empty, so it must pass", "stock_empty"
        )
    if drawn is not None:
        raise IllegalMove(
            f"seat {seat} must place the tile just drawn, {drawn}; it cannot {action}",
            "must_place_drawn",
        )
    if layout.is_empty:
        raise IllegalMove(
            f"seat {seat} opens the round and must place a tile; it cannot {action}", "must_place"
        )
    raise IllegalMove(
        f"seat {seat} holds a legal placement and must place; it cannot {action}", "must_place"
    )


def _anyone_can_place(layout: Layout) -> bool:
    """Whether some seat holds a tile that fits ``layout``, once the stock is empty.

    With the stock empty every tile off the table is in a hand, so some seat
    holds a tile that fits exactly when some tile off the table fits: no hand
    needs to be looked at. :func:`rules.is_blocked` calls it only then.
    """
    return bool(FITTING_TILES[layout.value_mask] & ~layout.tile_mask)


#: The function, as a compiled-module constant (compiled code looks a function
#: taken as a value up in the module's dictionary, but reads a Final directly).
_ANYONE_CAN_PLACE: Final = _anyone_can_place


def _end_round(
    state: MatchState,
    hands: tuple[tuple[Tile, ...], ...],
    layout: Layout,
    scores: tuple[int, ...],
    finisher: int | None,
    log: ActionLog,
) -> MatchState:
    """Settle the round and deal the next one; ``log`` ends with the action that ended it.

    The round ended with a domino when ``finisher`` went out, else it was blocked.
    """
    info = state.info
    pips = [sum([tile.pips for tile in hand]) for hand in hands]
    deductions, settled = rules.settle(info.players, scores, pips)
    result = new_round_result(
        round=info.round,
        end=RoundEnd.BLOCKED if finisher is None else RoundEnd.DOMINO,
        finisher=finisher,
        layout=layout,
        hands=hands,
        deductions=deductions,
        scores=settled,
        log=log,
        given=info.given,
    )
    return _start_round(
        players=info.players,
        seed=info.seed,
        number=info.round + 1,
        rng=info.rng,
        deals=info.deals,
        scores=settled,
        finisher=finisher,
        last_round=result,
        actions_before=info.actions_before + log_length(log),
    )


# -- scores ------------------------------------------------------------------


def score_of(state: MatchState, seat: object) -> int:
    """The score of ``seat``'s side: its own, or its partnership's with 4 players.

    :raises ValueError: if ``seat`` is not a seat of the match.
    :raises TypeError: if ``state`` is not a :class:`MatchState`.
    """
    if type(state) is not MatchState:
        raise _not_a_state("score_of", state)
    players = state.info.players
    return state.scores[rules.side_of(players, check_seat(players, seat))]


def _not_a_state(function: str, value: object) -> TypeError:
    return TypeError(f"{function}() needs a MatchState (from new_match), got {value!r}")
