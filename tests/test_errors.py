"""Refusals: every illegal move and every bad input is refused with a message naming it.

Illegal moves raise ``IllegalMove`` (a ``ValueError``) and leave the state as it was:
equal to a deep copy made before, and with the very same field objects. Bad
arguments to ``Tile``, ``Point``, ``Deal``, ``new_match`` and ``score_of`` raise
``ValueError`` (``InvalidDeal`` for deals).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import pytest

from american_sniff import (
    ALL_TILES,
    Deal,
    Draw,
    IllegalMove,
    InvalidDeal,
    Layout,
    MatchState,
    Move,
    Pass,
    Place,
    Point,
    RoundEnd,
    Side,
    Tile,
    apply,
    legal_moves,
    new_match,
    parse_tile,
    score_of,
)
from scenarios import DRAW_DEAL, PASS_DEAL, act, deal, first_move_match, pt, tiles

# -- helpers ------------------------------------------------------------------------------


def draw(state: MatchState, times: int = 1) -> MatchState:
    """Apply ``times`` draws, each checked to be the only legal move."""
    for _ in range(times):
        assert legal_moves(state) == (Draw(),)
        state = apply(state, Draw())
    return state


def fields_of(state: MatchState) -> dict[str, Any]:
    """Every field of the state, by name."""
    return {field.name: getattr(state, field.name) for field in attrs.fields(MatchState)}


def assert_refused(state: MatchState, move: object, message: str) -> IllegalMove:
    """``apply(state, move)`` raises IllegalMove matching ``message``; ``state`` is unchanged."""
    legal_before = legal_moves(state)
    twin = copy.deepcopy(state)
    before = fields_of(state)
    with pytest.raises(IllegalMove, match=message) as caught:
        apply(state, move)  # type: ignore[arg-type]  # some tests pass things that are not moves
    assert isinstance(caught.value, ValueError)
    assert state == twin
    after = fields_of(state)
    assert after.keys() == before.keys()
    for name, value in before.items():
        assert after[name] is value, name
    assert legal_moves(state) == legal_before
    assert move not in legal_before
    return caught.value


def assert_refused_cold(state: MatchState, move: object, message: str) -> None:
    """As :func:`assert_refused`, on a twin of ``state`` whose legal moves were never listed."""
    cold = state.evolve()
    assert cold == state
    twin = copy.deepcopy(cold)
    with pytest.raises(IllegalMove, match=message):
        apply(cold, move)  # type: ignore[arg-type]  # some tests pass things that are not moves
    assert cold == twin
    assert_refused(state, move, message)


# -- the positions --------------------------------------------------------------------------

#: Two players; seat 0 opens [1|4], seat 1 plays [1|1] (the Sniff) on its low end,
#: seat 0 [4|4] on its high end, seat 1 [3|4] on [4|4] line B. Open: [1|1] line B (1)
#: and [3|4] low (3). Seat 0 then holds [1|6] [4|6] [2|5] [0|0] [0|1].
TABLE_DEAL = deal(
    [
        "[1|4] [4|4] [1|6] [4|6] [2|5] [0|0] [0|1]",
        "[1|1] [3|4] [2|2] [2|3] [2|4] [2|6] [3|3]",
    ]
)


def opening() -> MatchState:
    """The empty table, seat 0 to open."""
    return new_match(2, seed=3, deals=[TABLE_DEAL])


def table() -> MatchState:
    """Four tiles on the table, seat 0 to move and able to place."""
    state = opening()
    for text in (
        "[1|4] opens",
        "[1|1] on [1|4] low",
        "[4|4] on [1|4] high",
        "[3|4] on [4|4] line_b",
    ):
        state = act(state, text)
    return state


def must_draw() -> MatchState:
    """Seat 1 cannot place and the stock is not empty."""
    return act(new_match(2, seed=3, deals=[DRAW_DEAL]), "[0|0] opens")


def drawn_fits() -> MatchState:
    """Seat 1 has just drawn [0|3], which fits."""
    state = draw(must_draw(), 3)
    assert state.drawn == Tile(0, 3)
    return state


def stock_empty() -> MatchState:
    """Seat 1 has drawn the whole stock without a fit and must pass."""
    state = draw(act(new_match(2, seed=3, deals=[PASS_DEAL]), "[0|0] opens"), 14)
    assert legal_moves(state) == (Pass(),)
    return state


def match_over() -> MatchState:
    """A seeded two-player match played to its end (first legal move each time)."""
    final = first_move_match(2, 0)[-1]
    assert final.is_over, "the seeded match did not end"
    return final


# -- illegal moves ----------------------------------------------------------------------------


@pytest.mark.parametrize("warm", [True, False], ids=["listed", "not-listed"])
def test_a_tile_not_in_hand_is_refused(warm: bool) -> None:
    """Placing a tile the player does not hold (another's, or one on the table) is refused.

    ``listed`` tries it on the state whose legal moves were listed first; ``not-listed`` first
    on a twin whose legal moves were never listed, so ``apply`` has no cache to consult.
    """
    state = table()
    refused: Callable[[MatchState, object, str], object] = (
        assert_refused if warm else assert_refused_cold
    )
    refused(state, Place(Tile(2, 3), pt("[3|4] low")), r"\[2\|3\] is not in the hand of seat 0")
    refused(state, Place(Tile(1, 1), pt("[1|1] line_b")), "not in the hand of seat 0")
    refused(state, Place(Tile(5, 5), pt("[3|4] low")), "not in the hand")


def test_a_point_on_a_tile_not_on_the_table_is_refused() -> None:
    """A point of a tile that is not on the table is not open."""
    assert_refused_cold(
        table(), Place(Tile(1, 6), pt("[6|6] line_b")), r"not open: \[6\|6\] is not on the table"
    )


def test_a_joined_point_is_refused() -> None:
    """A side that is already joined is not open."""
    state = table()
    assert_refused_cold(state, Place(Tile(1, 6), pt("[1|4] low")), "already joined")
    assert_refused_cold(state, Place(Tile(4, 6), pt("[4|4] line_b")), "already joined")
    assert_refused_cold(state, Place(Tile(0, 1), pt("[1|1] line_a")), "already joined")


def test_a_branch_before_both_line_sides_are_joined_is_refused() -> None:
    """The Sniff's branches are not open until both its line sides are joined."""
    for branch in ("branch_a", "branch_b"):
        assert_refused_cold(
            table(),
            Place(Tile(1, 6), pt(f"[1|1] {branch}")),
            "branches open only once both of its line sides are joined",
        )


def test_why_a_branch_of_the_sniff_is_not_open() -> None:
    """A branch is refused as not yet open while a line side is free, as joined after.

    The opening Sniff joined at line B still has line A free: its branches are
    not open yet. Once both line sides are joined, a branch that is taken is
    "already joined". Kills ``layout.Layout._why_not_open`` mutants 14 and 15.
    """
    sniff = Tile(4, 4)
    table = Layout.empty().place(sniff).place(Tile(4, 6), Point(sniff, Side.LINE_B))
    assert [str(p) for p in table.points()] == ["[4|4] line_a", "[4|6] high"]
    with pytest.raises(IllegalMove) as error:
        table.place(Tile(1, 4), Point(sniff, Side.BRANCH_A))
    assert error.value.code == "point_not_open"
    assert str(error.value) == (
        "point [4|4] branch_a is not open: the Sniff's branches open only once "
        "both of its line sides are joined"
    )
    table = table.place(Tile(1, 4), Point(sniff, Side.LINE_A))
    table = table.place(Tile(2, 4), Point(sniff, Side.BRANCH_A))
    with pytest.raises(IllegalMove) as error:
        table.place(Tile(3, 4), Point(sniff, Side.BRANCH_A))
    assert str(error.value) == "point [4|4] branch_a is not open: it is already joined"


def test_a_branch_of_a_later_double_is_refused() -> None:
    """Only the Sniff has branches: [4|4], the second double, has none."""
    state = table()
    for branch in ("branch_a", "branch_b"):
        assert_refused_cold(
            state, Place(Tile(4, 6), pt(f"[4|4] {branch}")), r"only the Sniff \(\[1\|1\]\)"
        )


def test_values_that_do_not_match_are_refused() -> None:
    """A tile showing no half of the point's value is refused."""
    state = table()
    error = assert_refused(state, Place(Tile(2, 5), pt("[3|4] low")), "values do not match")
    assert "[2|5]" in str(error)
    assert "3" in str(error)
    assert_refused(state, Place(Tile(4, 6), pt("[1|1] line_b")), "values do not match")


def test_the_opening_needs_no_point() -> None:
    """On the empty table a tile is placed with at=None; naming a point is refused."""
    assert_refused_cold(opening(), Place(Tile(1, 4), pt("[1|4] high")), "table is empty.*at=None")


def test_a_placement_on_a_non_empty_table_needs_a_point() -> None:
    """On a non-empty table, a placement without a point is refused."""
    assert_refused_cold(table(), Place(Tile(1, 6)), "table is not empty: name the open point")


def test_a_player_able_to_place_cannot_draw_or_pass() -> None:
    """A player holding a legal placement must place: Draw and Pass are refused."""
    state = table()
    assert_refused_cold(state, Draw(), "holds a legal placement and must place; it cannot draw")
    assert_refused_cold(state, Pass(), "holds a legal placement and must place; it cannot pass")


def test_the_opener_cannot_draw_or_pass() -> None:
    """On the empty table the opener must place a tile."""
    state = opening()
    assert_refused_cold(state, Draw(), "opens the round and must place a tile; it cannot draw")
    assert_refused_cold(state, Pass(), "opens the round and must place a tile; it cannot pass")


def test_passing_with_tiles_in_the_stock_is_refused() -> None:
    """A player who cannot place must draw while the stock has tiles: Pass is refused."""
    assert_refused_cold(must_draw(), Pass(), "cannot pass: the stock is not empty, so it must draw")


def test_anything_but_the_drawn_tile_is_refused() -> None:
    """A drawn tile that fits must be placed at once: other tiles, Draw and Pass are refused."""
    state = drawn_fits()
    assert_refused_cold(
        state, Place(Tile(1, 2), pt("[0|0] line_a")), r"must place the tile just drawn, \[0\|3\]"
    )
    assert_refused_cold(state, Draw(), r"must place the tile just drawn, \[0\|3\]; it cannot draw")
    assert_refused_cold(state, Pass(), r"must place the tile just drawn, \[0\|3\]; it cannot pass")


def test_the_drawn_tile_on_a_wrong_point_is_refused() -> None:
    """The drawn tile must still go on an open point."""
    assert_refused_cold(drawn_fits(), Place(Tile(0, 3), pt("[0|0] branch_a")), "not open")


@pytest.mark.parametrize(
    ("situation", "move", "code"),
    [
        (table, Draw(), "must_place"),  # holds a legal placement
        (table, Pass(), "must_place"),
        (opening, Draw(), "must_place"),  # opens the round
        (opening, Pass(), "must_place"),
        (must_draw, Pass(), "must_draw"),
        (drawn_fits, Draw(), "must_place_drawn"),
        (drawn_fits, Pass(), "must_place_drawn"),
        (drawn_fits, Place(Tile(1, 2), pt("[0|0] line_a")), "must_place_drawn"),
        (stock_empty, Draw(), "stock_empty"),
        (table, Place(Tile(2, 3), pt("[3|4] low")), "not_in_hand"),
    ],
)
@pytest.mark.parametrize("warm", [True, False], ids=["listed", "not-listed"])
def test_each_refusal_of_a_turn_carries_its_code(
    situation: Callable[[], MatchState], move: object, code: str, warm: bool
) -> None:
    """The refusal's code names the rule the move breaks, whether the moves were listed or not.

    Kills the code mutants of ``engine._check_required`` and ``engine._checked_place``.
    """
    state = situation()
    if warm:
        legal_moves(state)
    with pytest.raises(IllegalMove) as error:
        apply(state, move)  # type: ignore[arg-type]
    assert error.value.code == code


def test_drawing_from_an_empty_stock_is_refused() -> None:
    """With an empty stock a player who cannot place passes; Draw is refused."""
    assert_refused_cold(stock_empty(), Draw(), "cannot draw: the stock is empty, so it must pass")


def test_every_move_after_the_match_is_over_is_refused() -> None:
    """Once a side has won, every move is refused: the match is over."""
    state = match_over()
    assert legal_moves(state) == ()
    hand = state.hands[state.turn]
    moves: list[Move] = [Draw(), Pass(), *(Place(t) for t in hand)]
    moves += [Place(t, p) for t in hand for p in state.layout.fits(t)]
    for move in moves:
        assert_refused_cold(state, move, f"the match is over: side {state.winner} has won")


@pytest.mark.parametrize("thing", ["draw", None, 3, Tile(1, 4), Point(Tile(1, 4), Side.LOW)])
def test_something_that_is_not_a_move_is_refused(thing: object) -> None:
    """``apply`` takes a Place, a Draw or a Pass; anything else is not a move."""
    assert_refused_cold(table(), thing, "not a move")


def test_each_refusal_of_apply_carries_its_code() -> None:
    """A finished match, a non-move and a non-tile are refused with their own codes.

    Kills ``engine.apply`` mutants 11, 14, 15, 40, 43, 44 and ``engine._checked_place``
    mutants 6, 9, 10.
    """
    state = new_match(2, seed=1)
    won = state.evolve(winner=0)
    with pytest.raises(IllegalMove, match="the match is over: side 0 has won") as over:
        apply(won, legal_moves(state)[0])
    assert over.value.code == "match_over"
    with pytest.raises(IllegalMove, match=r"not a move: 'draw' \(expected") as word:
        apply(state, "draw")  # type: ignore[arg-type]
    assert word.value.code == "not_a_move"
    with pytest.raises(IllegalMove, match="not a tile: 'x'") as tile:
        apply(state, Place("x"))  # type: ignore[arg-type]
    assert tile.value.code == "not_a_tile"


def test_a_place_of_something_that_is_not_a_tile_is_refused() -> None:
    """A Place whose tile is not a Tile, or whose point is not a Point, is refused."""
    state = table()
    bad_tile = Place("[1|6]", pt("[1|1] line_b"))  # type: ignore[arg-type]  # deliberately wrong
    assert_refused_cold(state, bad_tile, "not a tile")
    bad_point = Place(Tile(1, 6), "[1|1] line_b")  # type: ignore[arg-type]  # deliberately wrong
    assert_refused_cold(state, bad_point, "not a connection point")


def test_layout_check_place_names_what_is_not_a_tile_or_a_point() -> None:
    """Layout.check_place refuses a non-tile and a non-point with their codes.

    Kills ``Layout.check_place`` mutants 3, 6, 7, 25, 28, 29.
    """
    layout = Layout.empty().place(Tile(1, 4))
    with pytest.raises(IllegalMove, match="not a tile: 'x'") as tile:
        layout.check_place("x", None)
    assert tile.value.code == "not_a_tile"
    with pytest.raises(IllegalMove, match="not a connection point: 'low'") as point:
        layout.check_place(Tile(4, 4), "low")
    assert point.value.code == "not_a_point"


@pytest.mark.parametrize(
    ("tiles_on_table", "tile", "at", "code"),
    [
        (["[1|4]"], "[1|4]", "[1|4] high", "already_on_table"),
        (["[1|4]"], "[4|4]", None, "point_required"),
        ([], "[4|4]", "[1|4] high", "opening_has_no_point"),
        (["[1|4]"], "[4|6]", "[6|6] line_b", "point_not_open"),
        (["[1|4]"], "[2|3]", "[1|4] high", "values_differ"),
    ],
)
def test_each_refusal_of_a_placement_on_the_table_carries_its_code(
    tiles_on_table: list[str], tile: str, at: str | None, code: str
) -> None:
    """Layout.check_place and Layout.place refuse each kind of bad placement with its code.

    Kills the code mutants of ``Layout.check_place``.
    """
    layout = Layout.empty()
    for placed in tiles_on_table:
        layout = layout.place(parse_tile(placed))
    point = None if at is None else pt(at)
    for check in (layout.check_place, layout.place):
        with pytest.raises(IllegalMove) as error:
            check(parse_tile(tile), point)
        assert error.value.code == code


def test_layout_place_refusals_leave_the_layout_unchanged() -> None:
    """``Layout.place`` refuses with a message naming the problem; the layout stays as it was."""
    layout = Layout.empty().place(Tile(1, 4)).place(Tile(1, 1), pt("[1|4] low"))
    twin = copy.deepcopy(layout)
    cases: list[tuple[object, object, str]] = [
        (Tile(1, 4), pt("[1|1] line_b"), r"\[1\|4\] is already on the table"),
        (Tile(1, 2), None, "table is not empty"),
        (Tile(1, 2), pt("[1|4] low"), "already joined"),
        (Tile(1, 2), pt("[1|1] branch_a"), "both of its line sides"),
        (Tile(2, 3), pt("[1|4] high"), "values do not match"),
        (Tile(2, 6), pt("[2|2] line_a"), "not on the table"),
        ("[1|2]", pt("[1|1] line_b"), "not a tile"),
        (Tile(1, 2), (Tile(1, 1), Side.LINE_B), "not a connection point"),
    ]
    for tile, at, message in cases:
        with pytest.raises(IllegalMove, match=message):
            layout.place(tile, at)  # type: ignore[call-overload]  # some cases are deliberately wrong
        assert layout == twin
    with pytest.raises(IllegalMove, match=r"opening tile .* at=None"):
        Layout.empty().place(Tile(1, 2), pt("[1|4] low"))
    assert Layout.empty().is_empty


def test_a_next_deal_naming_another_opener_than_the_finisher_is_ignored() -> None:
    """The finisher opens the next round: a given deal's opener is used only where a lot is due.

    Seat 0 goes out while the next deal names seat 1 as opener. The listed legal placement that
    ends the round is applied without error; round 2 is dealt from that deal and seat 0 opens.
    """
    walk = tiles("[0|1] [1|2] [2|3] [3|4] [4|5] [5|6] [0|6] [0|2] [2|4] [4|6] [1|6] [1|3] [3|5]")
    first = deal(
        [
            " ".join(str(t) for t in walk[0::2]),  # seat 0 goes out with its seventh tile
            " ".join(str(t) for t in walk[1::2]) + " [6|6]",
        ]
    )
    later = deal(
        [" ".join(str(t) for t in ALL_TILES[:7]), " ".join(str(t) for t in ALL_TILES[7:14])],
        opener=1,
    )
    state = new_match(2, seed=3, deals=[first, later])
    state = apply(state, Place(walk[0]))
    for tile in walk[1:-1]:
        (point,) = [p for p in state.layout.fits(tile) if p.tile != walk[0] or p.value != 0]
        state = apply(state, Place(tile, point))
    (last,) = [Place(walk[-1], p) for p in state.layout.fits(walk[-1]) if p.value == 3]
    assert state.hands[0] == (walk[-1],)
    assert last in legal_moves(state)
    twin = copy.deepcopy(state)
    after = apply(state, last)
    assert state == twin
    result = after.last_round
    assert result is not None
    assert result.round == 1
    assert result.end is RoundEnd.DOMINO
    assert result.finisher == 0
    assert after.round == 2
    assert after.hands == later.hands
    assert (after.opener, after.turn) == (0, 0)
    assert legal_moves(after) == tuple(Place(t) for t in later.hands[0])


# -- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"), [(7, 0), (0, 7), (-1, 2), (1.0, 2), ("1", 2), (True, 1), (None, 0)]
)
def test_tile_halves_must_be_integers_from_0_to_6(a: object, b: object) -> None:
    """``Tile`` refuses halves that are not integers from 0 to 6, naming the bad half."""
    with pytest.raises(ValueError, match="a tile half must be an integer from 0 to 6") as caught:
        Tile(a, b)  # deliberately wrong halves (refused at run time)
    bad = a if not (type(a) is int and 0 <= a <= 6) else b
    assert repr(bad) in str(caught.value)


@pytest.mark.parametrize("text", ["1|4", "[1|4", "[8|1]", "", "[1|4]x"])
def test_parse_tile_refuses_bad_text(text: str) -> None:
    """``parse_tile`` refuses text that is not one tile of the set."""
    with pytest.raises(ValueError, match=r"not a tile|from 0 to 6"):
        parse_tile(text)


def test_point_refuses_sides_the_tile_does_not_have() -> None:
    """``Point`` needs a Tile and a Side that exists on it."""
    with pytest.raises(
        ValueError, match=r"\[1\|1\] is a double: it has line and branch sides"
    ) as error:
        Point(Tile(1, 1), Side.LOW)
    assert str(error.value) == "[1|1] is a double: it has line and branch sides, not low"
    with pytest.raises(ValueError, match="is not a double") as error:
        Point(Tile(1, 4), Side.LINE_A)
    assert str(error.value) == "[1|4] is not a double: it has only low and high ends, not line_a"
    with pytest.raises(ValueError, match=r"\[1\|4\] is not a double: it has only low and high"):
        Point(Tile(1, 4), Side.BRANCH_A)
    with pytest.raises(ValueError, match="a point needs a Tile"):
        Point("[1|4]", Side.LOW)  # type: ignore[arg-type]  # deliberately wrong
    with pytest.raises(ValueError, match="a point needs a Side"):
        Point(Tile(1, 4), "low")  # type: ignore[arg-type]  # deliberately wrong


def _hands(sizes: Sequence[int]) -> list[list[Tile]]:
    """Hands of the given sizes, dealt from the set in order."""
    hands, start = [], 0
    for size in sizes:
        hands.append(list(ALL_TILES[start : start + size]))
        start += size
    return hands


def _rest(hands: Sequence[Sequence[Tile]]) -> list[Tile]:
    used = {t for hand in hands for t in hand}
    return [t for t in ALL_TILES if t not in used]


@pytest.mark.parametrize("count", [0, 1, 5])
def test_deal_needs_two_to_four_hands(count: int) -> None:
    """A deal has 2, 3 or 4 hands."""
    hands = _hands([5] * count)
    with pytest.raises(InvalidDeal, match=f"a deal has 2, 3 or 4 hands, got {count}"):
        Deal(hands=hands, stock=_rest(hands))


@pytest.mark.parametrize(
    ("sizes", "message"),
    [
        ([7, 6], "with 2 players each hand has 7 tiles; hand 1 has 6"),
        ([6, 7], "with 2 players each hand has 7 tiles; hand 0 has 6"),
        ([7, 7, 7], "with 3 players each hand has 6 tiles; hand 0 has 7"),
        ([5, 5, 5, 6], "with 4 players each hand has 5 tiles; hand 3 has 6"),
    ],
)
def test_deal_hands_must_have_the_rules_size(sizes: list[int], message: str) -> None:
    """Each hand holds 7, 6 or 5 tiles with 2, 3 or 4 players."""
    hands = _hands(sizes)
    with pytest.raises(InvalidDeal, match=message):
        Deal(hands=hands, stock=_rest(hands))


def test_deal_needs_every_tile_exactly_once() -> None:
    """A deal uses each of the 28 tiles once: no repeats, nothing missing."""
    hands = _hands([7, 7])
    stock = _rest(hands)
    with pytest.raises(InvalidDeal, match=r"\[0\|0\] is dealt twice"):
        Deal(hands=hands, stock=[Tile(0, 0), *stock[1:]])
    with pytest.raises(InvalidDeal, match=r"the deal lacks \[6\|6\]"):
        Deal(hands=hands, stock=stock[:-1])
    with pytest.raises(InvalidDeal, match="is dealt twice"):
        Deal(hands=[hands[0], hands[0]], stock=stock)
    # Every missing tile is listed, in set order.
    with pytest.raises(InvalidDeal) as error:
        Deal(hands=[ALL_TILES[:7], ALL_TILES[7:14]], stock=ALL_TILES[14:26])
    assert str(error.value) == "the deal lacks [5|6], [6|6]"


def test_deal_holds_only_tiles() -> None:
    """Hands and stock must be sequences of Tile."""
    hands = _hands([7, 7])
    stock = _rest(hands)
    with pytest.raises(InvalidDeal, match="hand 0 holds '0-0', which is not a Tile"):
        Deal(hands=[["0-0", *hands[0][1:]], hands[1]], stock=stock)
    with pytest.raises(InvalidDeal, match="the stock holds 5, which is not a Tile"):
        Deal(hands=hands, stock=[5, *stock])
    with pytest.raises(InvalidDeal, match="hands must be a sequence of hands"):
        Deal(hands=7, stock=stock)  # type: ignore[arg-type]  # deliberately wrong
    with pytest.raises(InvalidDeal, match="hand 1 must be a sequence of tiles"):
        Deal(hands=[hands[0], 3], stock=stock)  # type: ignore[list-item]  # deliberately wrong
    with pytest.raises(InvalidDeal, match="the stock must be a sequence"):
        Deal(hands=hands, stock=None)  # type: ignore[arg-type]  # deliberately wrong


def test_deal_stock_must_have_a_draw_order() -> None:
    """The stock is drawn in the order given (decision 4), so an unordered set is refused."""
    hands = _hands([7, 7])
    with pytest.raises(InvalidDeal, match=r"the stock must be a sequence .* in draw order"):
        Deal(hands=hands, stock=set(_rest(hands)))
    ordered = Deal(hands=hands, stock=_rest(hands)[::-1])
    assert ordered.stock == tuple(_rest(hands)[::-1])


@pytest.mark.parametrize("opener", [-1, 2, 5, "0", True, 1.0])
def test_deal_opener_must_be_a_seat(opener: object) -> None:
    """A deal's opener is None or a seat number of the deal."""
    hands = _hands([7, 7])
    with pytest.raises(InvalidDeal, match="opener must be a seat from 0 to 1"):
        Deal(hands=hands, stock=_rest(hands), opener=opener)  # type: ignore[arg-type]  # wrong


def test_invalid_deal_is_a_value_error() -> None:
    """``InvalidDeal`` and ``IllegalMove`` are both ``ValueError``."""
    assert issubclass(InvalidDeal, ValueError)
    assert issubclass(IllegalMove, ValueError)


@pytest.mark.parametrize("players", [0, 1, 5, "2", 2.0, True, None])
def test_new_match_needs_two_to_four_players(players: object) -> None:
    """``new_match`` refuses any number of players but 2, 3 or 4."""
    with pytest.raises(ValueError, match="played by 2, 3 or 4 players"):
        new_match(players, seed=1)  # deliberately wrong


@pytest.mark.parametrize("seed", [-1, 2**64, "1", 1.5, True])
def test_new_match_needs_a_64_bit_seed(seed: object) -> None:
    """``new_match`` refuses a seed that is not an integer from 0 to 2**64 - 1."""
    with pytest.raises(ValueError, match=r"seed must be an integer from 0 to 2\*\*64 - 1"):
        new_match(2, seed=seed)  # deliberately wrong


def test_new_match_refuses_deals_that_do_not_fit() -> None:
    """Deals must be Deal objects dealt for the match's number of players."""
    three = Deal(hands=_hands([6, 6, 6]), stock=_rest(_hands([6, 6, 6])))
    with pytest.raises(InvalidDeal, match="deal 1 is for 3 players, not 2"):
        new_match(2, seed=1, deals=[three])
    two = Deal(hands=_hands([7, 7]), stock=_rest(_hands([7, 7])))
    with pytest.raises(InvalidDeal, match="deal 2 is not a Deal"):
        new_match(2, seed=1, deals=[two, "deal"])  # type: ignore[list-item]  # deliberately wrong
    assert new_match(2, seed=1, deals=[two]).hands == two.hands


@pytest.mark.parametrize(
    ("players", "seat"), [(2, 2), (2, -1), (3, 3), (4, 4), (4, "0"), (4, True)]
)
def test_score_of_needs_a_seat_of_the_match(players: int, seat: object) -> None:
    """``score_of`` refuses anything but a seat number of the match."""
    state = new_match(players, seed=1)
    with pytest.raises(ValueError, match=f"seat must be an integer from 0 to {players - 1}"):
        score_of(state, seat)  # deliberately wrong
