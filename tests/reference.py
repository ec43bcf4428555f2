"""Reference checkers: the rules recomputed plainly, to check the engine against.

They recompute from the rules text what the engine keeps in its fast fields
(open points, contributions, end sums, legal moves) and check one state or
one action at a time. They are written plainly and share no code with the
engine. The Hypothesis strategies that make the matches are in
``strategies.py``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import cast

from american_sniff import (
    ALL_TILES,
    Connection,
    Draw,
    IllegalMove,
    Layout,
    MatchState,
    Move,
    Pass,
    Place,
    Point,
    RoundEnd,
    RoundResult,
    Side,
    Tile,
    apply,
    legal_moves,
    placement_points,
)
from scenarios import last

__all__ = [
    "HAND_SIZE",
    "TARGETS",
    "check_layout",
    "check_score_change",
    "check_state",
    "check_transition",
    "contributions_from_scratch",
    "end_sum_from_scratch",
    "expected_legal_moves",
    "fits",
    "joining_side",
    "nobody_can_place",
    "open_points_from_scratch",
    "placements",
    "point_key",
    "point_value",
    "refuse",
    "rounded_hand",
    "side_of",
    "sides_of",
    "snapshot",
    "tiles_accounted_for",
]

#: Tiles dealt to each hand, by number of players (from the rules text).
HAND_SIZE = {2: 7, 3: 6, 4: 5}


#: Raw points to win, by number of players (from the rules text).
TARGETS = {2: 250, 3: 200, 4: 200}


_END_SIDES = (Side.LOW, Side.HIGH)


_LINE_SIDES = (Side.LINE_A, Side.LINE_B)


_BRANCH_SIDES = (Side.BRANCH_A, Side.BRANCH_B)


_SIDE_ORDER = (Side.LOW, Side.HIGH, Side.LINE_A, Side.LINE_B, Side.BRANCH_A, Side.BRANCH_B)


def sides_of(tile: Tile) -> tuple[Side, ...]:
    """The sides a tile has on the table: line and branch sides for a double, else its ends."""
    return _LINE_SIDES + _BRANCH_SIDES if tile.is_double else _END_SIDES


# Every valid point, built once: the oracles look points up here rather than
# constructing thousands of them per match.
_POINT = {(tile, side): Point(tile, side) for tile in ALL_TILES for side in sides_of(tile)}


def side_of(players: int, seat: int) -> int:
    """The scoring side of a seat: partners 0/2 and 1/3 with four players."""
    return seat % 2 if players == 4 else seat


def rounded_hand(pips: int) -> int:
    """A hand's pips to the nearest five: remainders 1 and 2 down, 3 and 4 up."""
    remainder = pips % 5
    return pips - remainder + (5 if remainder >= 3 else 0)


def point_value(point: Point) -> int:
    """The number a tile must show to be placed on ``point``."""
    return point.tile.high if point.side is Side.HIGH else point.tile.low


def fits(tile: Tile, point: Point) -> bool:
    """Whether one half of ``tile`` matches the value of ``point``."""
    return point_value(point) in (tile.low, tile.high)


def point_key(point: Point) -> tuple[int, int, int]:
    """The documented point order: by tile (set order), then by side in ``Side`` order.

    The side order (low, high, line A, line B, branch A, branch B) is written
    out here from the documentation, not taken from the engine's ``Point.order``.
    """
    return point.tile.low, point.tile.high, _SIDE_ORDER.index(point.side)


def open_points_from_scratch(
    table: Sequence[Tile], connections: Sequence[Connection]
) -> tuple[Point, ...]:
    """The legal connection points, from the tiles and joints alone, in point order.

    Every side of every tile on the table is open unless a joint covers it;
    the Sniff (the first double on the table) also has its two branches, but
    only once both of its line sides are joined.
    """
    joined: set[Point] = set()
    for connection in connections:
        joined.add(connection.at)
        joined.add(connection.joined)
    sniff = next((tile for tile in table if tile.is_double), None)
    found: list[Point] = []
    for tile in table:
        if tile.is_double:
            lines = [_POINT[tile, side] for side in _LINE_SIDES]
            found.extend(p for p in lines if p not in joined)
            if tile == sniff and all(p in joined for p in lines):
                found.extend(
                    _POINT[tile, s] for s in _BRANCH_SIDES if _POINT[tile, s] not in joined
                )
        else:
            found.extend(_POINT[tile, s] for s in _END_SIDES if _POINT[tile, s] not in joined)
    return tuple(sorted(found, key=point_key))


def contributions_from_scratch(
    table: Sequence[Tile], connections: Sequence[Connection]
) -> tuple[tuple[Point, int], ...]:
    """Every counted scoring end as ``(point, value)``, in point order.

    A non-double counts each free end; a double with a free line side is
    terminal and counts both halves once (a lone opening double is listed at
    line A); an opened Sniff counts half its value at each free branch.
    """
    free = set(open_points_from_scratch(table, connections))
    found: list[tuple[Point, int]] = []
    for tile in table:
        if tile.is_double:
            free_lines = [_POINT[tile, s] for s in _LINE_SIDES if _POINT[tile, s] in free]
            if free_lines:
                found.append((free_lines[0], 2 * tile.low))
            else:
                found.extend(
                    (_POINT[tile, s], tile.low) for s in _BRANCH_SIDES if _POINT[tile, s] in free
                )
        else:
            if _POINT[tile, Side.LOW] in free:
                found.append((_POINT[tile, Side.LOW], tile.low))
            if _POINT[tile, Side.HIGH] in free:
                found.append((_POINT[tile, Side.HIGH], tile.high))
    return tuple(sorted(found, key=lambda item: point_key(item[0])))


def end_sum_from_scratch(table: Sequence[Tile], connections: Sequence[Connection]) -> int:
    """The end sum the rules give for this table."""
    return sum(value for _, value in contributions_from_scratch(table, connections))


def joining_side(tile: Tile, at: Point) -> Point:
    """The side of ``tile`` that covers ``at``: line A for a double, else the matching end."""
    if tile.is_double:
        return _POINT[tile, Side.LINE_A]
    return _POINT[tile, Side.LOW if tile.low == point_value(at) else Side.HIGH]


def check_layout(layout: Layout) -> None:
    """Assert the table's fast fields agree with a recomputation from its joints.

    The newest joint is also checked against the table before it: it covers
    a point that was open, with a matching value, by the right side of the tile.
    """
    table = layout.tiles
    connections = layout.connections
    assert len(table) == len(layout) == layout.count
    assert len(set(table)) == len(table)
    assert len(connections) == max(len(table) - 1, 0)
    for index, connection in enumerate(connections):
        assert connection.joined.tile == table[index + 1]
        assert connection.at.tile in table[: index + 1]
    if connections:
        newest = connections[-1]
        assert newest.at in open_points_from_scratch(table[:-1], connections[:-1])
        assert newest.joined == joining_side(table[-1], newest.at)
    open_points = open_points_from_scratch(table, connections)
    assert layout.points() == open_points
    expected = contributions_from_scratch(table, connections)
    assert tuple((c.point, c.value) for c in layout.contributions()) == expected
    assert sum(c.value for c in layout.contributions()) == layout.end_sum
    assert layout.end_sum == sum(value for _, value in expected)
    assert layout.sniff == next((t for t in table if t.is_double), None)
    for tile in ALL_TILES:
        assert (tile in layout) == (tile in table)
        assert layout.fits(tile) == tuple(p for p in open_points if fits(tile, p))


def placements(tiles_: Sequence[Tile], layout: Layout) -> set[Move]:
    """Every placement of ``tiles_`` on the open points, recomputed from scratch."""
    if not layout.tiles:
        return {Place(tile) for tile in tiles_}
    open_points = open_points_from_scratch(layout.tiles, layout.connections)
    return {Place(tile, p) for tile in tiles_ for p in open_points if fits(tile, p)}


def expected_legal_moves(state: MatchState) -> set[Move]:
    """The legal moves by the rules: place (the drawn tile only, if any), else draw, else pass."""
    if state.winner is not None:
        return set()
    hand = state.hands[state.turn]
    moves = placements(hand if state.drawn is None else (state.drawn,), state.layout)
    if moves:
        return moves
    return {Draw()} if state.stock_size else {Pass()}


def nobody_can_place(hands: Sequence[Sequence[Tile]], layout: Layout) -> bool:
    """Whether no hand holds a tile that fits an open point of a non-empty table."""
    return bool(layout.tiles) and not any(placements(hand, layout) for hand in hands)


def tiles_accounted_for(state: MatchState) -> None:
    """Assert hands, stock and table hold each of the 28 tiles exactly once."""
    held = [t for hand in state.hands for t in hand] + list(state.stock) + list(state.layout.tiles)
    counts = Counter(held)
    assert set(counts) == set(ALL_TILES), sorted(set(ALL_TILES) - set(counts))
    assert all(n == 1 for n in counts.values()), {t: n for t, n in counts.items() if n > 1}


def snapshot(state: MatchState, *, listed: bool = True) -> tuple[object, ...]:
    """A deep structural copy of ``state`` in plain immutable values.

    With ``listed`` (the default) it includes the legal moves, which lists
    (and caches) them; without, the state's cache is left alone.
    """
    info = state.info
    return (
        info.players,
        info.seed,
        info.round,
        info.opener,
        info.deck,
        info.deals,
        info.rng,
        _round_snapshot(info.last_round),
        state.turn,
        state.hands,
        _layout_snapshot(state.layout),
        state.scores,
        state.winner,
        state.drawn,
        state.drawn_count,
        state.last_action,
        state.history,
        state.stock,
        tuple(legal_moves(state)) if listed else None,
    )


def _layout_snapshot(layout: Layout) -> tuple[object, ...]:
    return (
        layout.tiles,
        layout.connections,
        layout.points(),
        layout.contributions(),
        layout.end_sum,
        layout.sniff,
        layout.tile_mask,
        layout.value_mask,
        layout.count,
    )


def _round_snapshot(result: RoundResult | None) -> tuple[object, ...] | None:
    if result is None:
        return None
    return (
        result.round,
        result.end,
        result.finisher,
        _layout_snapshot(result.layout),
        result.hands,
        result.deductions,
        result.scores,
    )


def check_state(state: MatchState) -> None:
    """Assert everything that must hold in any single state of a match."""
    players = state.players
    tiles_accounted_for(state)
    check_layout(state.layout)
    assert len(state.hands) == players
    assert all(list(hand) == sorted(hand) for hand in state.hands)
    assert len(state.scores) == (2 if players == 4 else players)
    assert state.target == TARGETS[players]
    assert state.stock == state.info.deck[state.drawn_count :]
    assert state.stock_size == len(state.stock)
    legal = legal_moves(state)
    assert len(set(legal)) == len(legal)
    assert set(legal) == expected_legal_moves(state)
    if not state.layout.tiles:
        # A round starts with full hands and the whole stock; the opener places.
        assert [len(hand) for hand in state.hands] == [HAND_SIZE[players]] * players
        assert state.drawn_count == 0
        assert state.stock_size == 28 - players * HAND_SIZE[players]
        assert state.turn == state.info.opener
    if state.winner is not None:
        assert legal == ()
        assert state.scores[state.winner] >= state.target
        others = [s for side, s in enumerate(state.scores) if side != state.winner]
        assert all(score < state.target for score in others)
        return
    assert legal
    assert all(score < state.target for score in state.scores)
    # Rule 1: a block is declared as soon as it holds, so a live round never shows one.
    assert not (state.stock_size == 0 and nobody_can_place(state.hands, state.layout))
    if state.drawn is not None:
        assert last(state).move == Draw()
        assert last(state).seat == state.turn
        assert state.drawn in state.hands[state.turn]
        assert all(isinstance(m, Place) and m.tile == state.drawn for m in legal)
    if Pass() in legal:
        assert legal == (Pass(),)
        assert state.stock_size == 0
    if Draw() in legal:
        assert legal == (Draw(),)
        assert state.stock_size > 0


def check_score_change(before: MatchState, move: object, after: MatchState) -> None:
    """Assert the scores changed only by a scoring placement or by a settlement.

    A placement scores :func:`placement_points` of the table right after it,
    on the placer's side only; a settlement takes each seat's rounded hand
    (each hand on its own) from that seat's side. Nothing else moves a score.
    """
    players = before.players
    seat = before.turn
    result = after.last_round if after.round != before.round else None
    table = after.layout if result is None else result.layout
    if isinstance(move, Place):
        points = placement_points(table.end_sum)
        assert points == (table.end_sum if table.end_sum > 0 and table.end_sum % 5 == 0 else 0)
    else:
        points = 0
    assert last(after).points == points
    expected = list(before.scores)
    expected[side_of(players, seat)] += points
    if result is not None:
        deductions = tuple(rounded_hand(sum(t.pips for t in hand)) for hand in result.hands)
        assert result.deductions == deductions
        for owner, amount in enumerate(deductions):
            expected[side_of(players, owner)] -= amount
        assert result.scores == tuple(expected)
    assert after.scores == tuple(expected)


def check_transition(before: MatchState, move: object, after: MatchState) -> None:
    """Assert one action followed the rules, given the states on both sides of it.

    Scores change only by a scoring placement (on the placer's side) or by a
    settlement (each hand rounded on its own, taken from its seat's side);
    the stock only loses its front tile, by a draw; turns pass clockwise
    except after a draw; rounds end by domino or block exactly when they should.
    """
    players = before.players
    seat = before.turn
    assert move in expected_legal_moves(before)
    assert last(after).move == move
    assert last(after).seat == seat
    assert after.seed == before.seed
    assert after.players == players
    new_round = after.round != before.round
    if new_round:
        assert after.round == before.round + 1
        assert after.winner is None
        result = after.last_round
        assert result is not None
        assert result.round == before.round
        table = result.layout
        hands = result.hands
    else:
        assert after.info is before.info
        result = None
        table = after.layout
        hands = after.hands
    hands_before = list(before.hands)
    if isinstance(move, Place):
        # A placement: the tile leaves the hand and joins the table on `at`.
        assert move.tile in before.hands[seat]
        assert before.drawn in (None, move.tile)
        hands_before[seat] = tuple(t for t in before.hands[seat] if t != move.tile)
        assert tuple(hands_before) == hands
        assert table.tiles == (*before.layout.tiles, move.tile)
        if move.at is not None:
            assert table.connections[-1] == Connection(move.at, joining_side(move.tile, move.at))
        stock_used = 0
    else:
        assert isinstance(move, (Draw, Pass))
        assert before.drawn is None
        assert not placements(before.hands[seat], before.layout)
        assert table == before.layout
        if isinstance(move, Draw):
            # A draw takes the front tile of the stock into the drawer's hand.
            assert before.stock_size > 0
            drawn = before.stock[0]
            hands_before[seat] = tuple(sorted((*before.hands[seat], drawn)))
            stock_used = 1
        else:
            assert before.stock_size == 0
            stock_used = 0
        assert tuple(hands_before) == hands
    check_score_change(before, move, after)
    if after.winner is not None:
        # The target is checked first: the match ends at this placement.
        assert isinstance(move, Place)
        assert last(after).points > 0
        assert after.winner == side_of(players, seat)
        assert after.scores[after.winner] >= after.target > before.scores[after.winner]
        assert after.turn == seat
        assert after.stock == before.stock
        return
    if result is not None:
        # A round ended: settle each hand on its own and deal the next round.
        assert result.scores == after.scores
        if result.end is RoundEnd.DOMINO:
            assert isinstance(move, Place)
            assert not hands[seat]
            assert result.finisher == seat
            assert after.turn == seat
        else:
            assert result.end is RoundEnd.BLOCKED
            assert result.finisher is None
            assert all(hands)
            assert before.stock_size == stock_used
            assert nobody_can_place(hands, table)
        assert after.info.opener == after.turn
        return
    # The round goes on.
    assert after.stock == before.stock[stock_used:]
    assert after.drawn_count == before.drawn_count + stock_used
    assert all(hands)
    if isinstance(move, Draw):
        assert after.turn == seat
        drawn = before.stock[0]
        assert after.drawn == (drawn if placements((drawn,), table) else None)
    else:
        assert after.turn == (seat + 1) % players
        assert after.drawn is None


def refuse(state: MatchState, move: object, *, listed: bool = True) -> None:
    """Assert ``apply`` refuses ``move`` with IllegalMove and leaves ``state`` as it was.

    Without ``listed`` the state's legal moves are not listed first, so
    ``apply`` has no cache to consult.
    """
    before = snapshot(state, listed=listed)
    try:
        apply(state, cast(Move, move))
    except IllegalMove:
        pass
    else:
        raise AssertionError(f"apply accepted {move!r}, which is not legal here")
    assert snapshot(state, listed=listed) == before
