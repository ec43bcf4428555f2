"""Behaviour that mutation testing (mutmut, see CONTRIBUTING.md) found unpinned.

Each test pins something the rules, the docs or the docstrings define; the
mutants it was written for are named in its docstring's last line. The
mutants that no test can tell apart from the code are listed, with the reason,
in ``tests/mutmut-equivalents.md``.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from american_sniff import (
    ALL_TILES,
    COMPILED,
    Draw,
    IllegalMove,
    Layout,
    MatchState,
    Pass,
    Place,
    Point,
    Side,
    Tile,
    apply,
    engine,
    legal_moves,
    new_match,
    rng,
    rules,
)
from american_sniff import _fast as fast
from american_sniff import _native as native
from american_sniff import layout as geometry
from american_sniff import points as point_table
from american_sniff import state as state_module
from american_sniff.layout import parse_point
from american_sniff.points import point_of_key
from american_sniff.rng import MASK64, below, next_u64, shuffled
from american_sniff.state import Action
from scenarios import random_play

_DOUBLE_SIDES = (Side.LINE_A, Side.LINE_B, Side.BRANCH_A, Side.BRANCH_B)

# -- the shuffle on 32-bit halves (the compiled build's shuffle) ------------------------


def _unshift(value: int, shift: int) -> int:
    """The x with ``x ^ (x >> shift) == value`` (64-bit)."""
    result = value
    for _ in range(64 // shift + 1):
        result = value ^ (result >> shift)
    return result


def _state_before(output: int) -> int:
    """A generator state whose next SplitMix64 output is ``output`` (the mix is a bijection)."""
    z = _unshift(output, 31)
    z = z * pow(0x94D049BB133111EB, -1, 1 << 64) & MASK64
    z = _unshift(z, 27)
    z = z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64) & MASK64
    z = _unshift(z, 30)
    return (z - 0x9E3779B97F4A7C15) & MASK64


@pytest.mark.parametrize("count", [0, 1, 2, 3, 5, 7, 8, 13, 28, 31, 33, 63, 64])
def test_the_shuffle_on_halves_is_the_specified_shuffle(count: int) -> None:
    """The compiled build's shuffle gives rng.shuffled's order and generator state.

    Kills the mutants of ``_fast._times``, ``_rng._output`` and
    ``_rng.shuffled_indices_in_halves``.
    """
    chooser = random.Random(count)
    states = [0, 1, MASK64, 2**63, 2**32 - 1, 2**32] + [chooser.getrandbits(64) for _ in range(40)]
    for state in states:
        order, after = shuffled(tuple(range(count)), state)
        assert rng.shuffled_indices_in_halves(count, state) == (list(order), after)


@pytest.mark.parametrize("count", [3, 5, 6, 7, 28, 63])
def test_the_shuffle_on_halves_redraws_exactly_where_below_does(count: int) -> None:
    """An output at or above ``2**64 - 2**64 % n`` is drawn again; one just below it is kept.

    Outputs that high come once in about 2**60 draws, so the generator state is
    chosen to give them. Kills the comparison mutants of
    ``_rng.shuffled_indices_in_halves`` and of ``_rng._REDRAW``'s use.
    """
    limit = (1 << 64) - (1 << 64) % count
    for output in (limit - 1, limit, MASK64):
        state = _state_before(output)
        assert next_u64(state)[0] == output
        order, after = shuffled(tuple(range(count)), state)
        assert rng.shuffled_indices_in_halves(count, state) == (list(order), after)
        # The first swap took one draw below the limit, and two from it up.
        draws = 1 if output < limit else 2
        assert below(count, state)[1] == (state + draws * 0x9E3779B97F4A7C15) & MASK64


def test_the_shuffle_on_halves_takes_at_most_64_items() -> None:
    """Up to 64 items are shuffled; 65 are refused with a ValueError naming the count.

    Kills the mutants of the bound check in ``_rng.shuffled_indices_in_halves``.
    """
    assert sorted(rng.shuffled_indices_in_halves(64, 5)[0]) == list(range(64))
    with pytest.raises(ValueError, match=r"^the shuffle on halves takes up to 64 items, not 65$"):
        rng.shuffled_indices_in_halves(65, 5)


# -- the compiled build's constructors, run by the interpreter ---------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_compiled_builds_code_paths_play_the_same_match(
    players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The branches that only the mypyc build takes give the very same states and moves.

    ``_fast.COMPILED`` picks the compiled build's slot stores, legal-move cache
    and shuffle; run by the interpreter they must play the same match, state
    for state, as the pure-Python branches (the issue asks both builds to behave
    identically). Kills the mutants of the ``if COMPILED:`` branches of
    ``new_layout``, ``new_state``, ``set_legal_cache`` and ``shuffled_indices``.
    """
    interpreted = random_play(new_match(players, seed=31 + players), 250, seed=players)
    monkeypatch.setattr(fast, "COMPILED", True)
    compiled = random_play(new_match(players, seed=31 + players), 250, seed=players)
    assert compiled == interpreted
    for mine, theirs in zip(compiled, interpreted, strict=True):
        assert type(mine) is MatchState
        assert type(mine.layout) is type(theirs.layout)
        assert mine.layout.open_keys == theirs.layout.open_keys
        assert mine.layout.end_sum == theirs.layout.end_sum
        assert mine.layout.sniff is theirs.layout.sniff
        assert mine.layout.tile_mask == theirs.layout.tile_mask
        assert mine.layout.value_mask == theirs.layout.value_mask
        assert mine.layout.tiles == theirs.layout.tiles
        assert mine.history == theirs.history
        assert mine.drawn_count == theirs.drawn_count
        assert mine.drawn is theirs.drawn
        assert mine.winner == theirs.winner
        # The compiled build's store fills the cache that legal_moves reads back.
        moves = legal_moves(mine)
        assert state_module.legal_cache(mine) is moves


# -- the tables of point keys, built once at import --------------------------------------
# mutmut runs each mutant in a process that imported the package unmutated, so
# a function that only builds a module-level table is checked by calling it.


def test_a_points_key_is_its_order_and_the_table_of_keys_lists_every_point() -> None:
    """``key_of`` is ``Point.order``; ``_points`` puts each point at its key, None elsewhere.

    Kills the mutants of ``_fast.key_of`` and ``_fast._points``.
    """
    expected: list[Point | None] = [None] * (8 * len(ALL_TILES))
    for tile in ALL_TILES:
        sides = _DOUBLE_SIDES if tile.is_double else (Side.LOW, Side.HIGH)
        for side in sides:
            point = Point(tile, side)
            assert (
                point_table.key_of(tile, side)
                == point.order
                == tile.index * 8 + list(Side).index(side)
            )
            expected[point.order] = point
    assert point_table._point_table() == expected
    assert expected == point_table.POINT_OF_KEY


def test_the_keys_a_tile_leaves_open_are_the_points_of_the_table() -> None:
    """``_opening_keys`` and ``_free_key`` give the keys of the points the table shows.

    An opening tile leaves both its sides open (both line sides of a double);
    a tile joined to a point leaves its other end open, and a double its line B.
    Kills the mutants of ``_fast._opening_keys`` and ``_fast._free_key``.
    """
    for tile in ALL_TILES:
        table = Layout.empty().place(tile)
        assert geometry._opening_keys(tile) == tuple(p.order for p in table.points())
        for point in table.points():
            for other in ALL_TILES:
                if other is tile or not other.has(point.value):
                    continue
                after = table.place(other, point)
                (new,) = [p for p in after.points() if p.tile is other]
                assert geometry._free_key(other, point.order) == new.order
                assert geometry.FREE_KEY[other.index][point.order] == new.order


# -- what the engine reports about itself ------------------------------------------------


def test_compiled_says_which_build_runs() -> None:
    """``compiled()`` is False for the pure-Python build (the engine's file is a .py file).

    Kills the mutants of ``engine.compiled``.
    """
    assert engine.compiled() is native.COMPILED
    if engine.__file__.endswith(".py"):
        assert engine.compiled() is False


def test_an_action_in_words_names_the_sum_and_the_points_of_a_placement() -> None:
    """``str(action)`` of a placement gives the seat, the move, the end sum and the points.

    Kills ``state.Action.__str__`` mutants 6 and 7.
    """
    action = Action(0, Place(Tile(1, 4)), None, 5, 5, (5, 0))
    assert str(action) == "seat 0: [1|4] opens, sum 5, 5 points"
    state = new_match(2, seed=1)
    state = apply(state, legal_moves(state)[0])
    last = state.last_action
    assert last is not None
    assert str(last) == f"seat {last.seat}: {last.move}, sum {last.end_sum}, {last.points} points"


def test_the_repr_of_a_won_match_names_the_winner() -> None:
    """Once a side has won, the repr shows ``winner=`` in place of ``turn=``.

    Kills ``state.MatchState.__repr__`` mutant 2.
    """
    state = new_match(2, seed=3)
    while state.winner is None:
        state = apply(state, legal_moves(state)[0])
    assert repr(state) == (
        f"<MatchState players=2 round={state.round} winner={state.winner} "
        f"scores={state.scores} table={len(state.layout)} stock={state.stock_size}>"
    )
    assert "turn=" not in repr(state)


# -- refusals, word for word --------------------------------------------------------------


def test_a_point_with_an_unknown_side_lists_the_sides() -> None:
    """The refusal names the text and lists the six side names, comma separated.

    Kills ``layout.parse_point`` mutant 17.
    """
    with pytest.raises(ValueError, match="not a point") as error:
        parse_point("[1|4] middle")
    assert str(error.value) == (
        "not a point: '[1|4] middle' (expected '[a|b] SIDE' with SIDE one of "
        "low, high, line_a, line_b, branch_a, branch_b)"
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


# -- the rules as functions (american_sniff.rules), called directly --------------------------
# The engine calls each of them only with the arguments a match produces; these
# pin every case the rules text gives them.


def test_the_numbers_of_the_game_by_player_count() -> None:
    """Hands of 7, 6, 5; targets 250, 200, 200; one side per seat but two with 4 players.

    Kills the mutants of ``rules.hand_size``, ``target`` and ``side_count``.
    """
    assert [rules.hand_size(n) for n in (2, 3, 4)] == [7, 6, 5]
    assert [rules.target(n) for n in (2, 3, 4)] == [250, 200, 200]
    assert [rules.side_count(n) for n in (2, 3, 4)] == [2, 3, 2]
    for players in rules.PLAYER_COUNTS:
        assert rules.hand_size(players) == rules.HAND_SIZE[players]
        assert rules.target(players) == rules.TARGET[players]


def test_sides_and_turn_order() -> None:
    """Partners sit opposite with 4 players; play goes to seat ``(i + 1) % players``.

    Kills the mutants of ``rules.side_of`` and ``rules.next_seat``.
    """
    assert [rules.side_of(4, seat) for seat in range(4)] == [0, 1, 0, 1]
    assert [rules.side_of(3, seat) for seat in range(3)] == [0, 1, 2]
    assert [rules.side_of(2, seat) for seat in range(2)] == [0, 1]
    assert [rules.next_seat(4, seat) for seat in range(4)] == [1, 2, 3, 0]
    assert [rules.next_seat(3, seat) for seat in range(3)] == [1, 2, 0]
    assert [rules.next_seat(2, seat) for seat in range(2)] == [1, 0]


def test_who_opens_a_round() -> None:
    """The player who went out opens (seat 0 too); otherwise the lot, which must be given.

    Kills the mutants of ``rules.lot_is_due`` and ``rules.opener``.
    """
    assert rules.lot_is_due(None) is True
    assert rules.lot_is_due(0) is False
    assert rules.lot_is_due(3) is False
    assert rules.opener(0, 1) == 0
    assert rules.opener(2, None) == 2
    assert rules.opener(None, 0) == 0
    assert rules.opener(None, 3) == 3
    with pytest.raises(ValueError, match="drawn by lot") as error:
        rules.opener(None, None)
    assert str(error.value) == (
        "no player went out, so the opener is drawn by lot, and none was given"
    )


@pytest.mark.parametrize(
    ("table_empty", "can_place", "stock_left", "required"),
    [
        (True, False, 0, "place"),  # the opener places any tile
        (True, False, 9, "place"),
        (False, True, 0, "place"),  # a player who can place must
        (False, True, 4, "place"),
        (False, False, 1, "draw"),  # else draw while the stock lasts
        (False, False, 14, "draw"),
        (False, False, 0, "pass"),  # and pass once it is empty
    ],
)
def test_what_the_player_to_move_must_do(
    table_empty: bool, can_place: bool, stock_left: int, required: str
) -> None:
    """Place if the table is empty or a tile fits; else draw while the stock lasts; else pass.

    Kills the mutants of ``rules.required_action``.
    """
    assert rules.required_action(table_empty, can_place, stock_left) == required


@pytest.mark.parametrize(
    ("end_sum", "points"),
    [(0, 0), (1, 0), (4, 0), (5, 5), (6, 0), (10, 10), (15, 15), (16, 0), (35, 35), (36, 0)],
)
def test_a_placement_scores_a_positive_multiple_of_five(end_sum: int, points: int) -> None:
    """The end sum is scored when it is a positive multiple of five; zero scores nothing.

    Kills the mutants of ``rules.placement_points``.
    """
    assert rules.placement_points(end_sum) == points


def test_the_target_and_a_block() -> None:
    """Reaching or passing the target wins; a round blocks when the stock is empty and none fits.

    Kills the mutants of ``rules.has_won`` and ``rules.is_blocked``.
    """
    assert not rules.has_won(2, 249)
    assert rules.has_won(2, 250)
    assert rules.has_won(2, 251)
    assert not rules.has_won(3, 199)
    assert rules.has_won(3, 200)
    assert not rules.has_won(4, 195)
    assert rules.has_won(4, 200)
    assert rules.is_blocked(0, False) is True
    assert rules.is_blocked(0, True) is False
    assert rules.is_blocked(1, False) is False
    assert rules.is_blocked(5, True) is False


@pytest.mark.parametrize(
    ("pips", "rounded"),
    [(0, 0), (1, 0), (2, 0), (3, 5), (4, 5), (5, 5), (6, 5), (7, 5), (8, 10), (12, 10), (13, 15)],
)
def test_a_hand_is_rounded_to_the_nearest_multiple_of_five(pips: int, rounded: int) -> None:
    """Remainders 1 and 2 round down, 3 and 4 up; multiples stay.

    Kills the mutants of ``rules.round_hand``.
    """
    assert rules.round_hand(pips) == rounded


def test_round_hand_names_what_it_refuses() -> None:
    """A negative or non-integer count of pips is refused with a message naming it.

    Kills the message mutants of ``rules.round_hand``.
    """
    with pytest.raises(ValueError, match="whole number") as error:
        rules.round_hand(-1)
    assert str(error.value) == "a hand holds a whole number of pips, 0 or more, got -1"


def test_settlement_takes_each_hand_rounded_on_its_own_from_its_side() -> None:
    """Each hand is rounded alone and taken from its side; no floor; nothing is gained.

    Kills the mutants of ``rules.settle``.
    """
    assert rules.settle(4, (40, 25), (7, 0, 13, 2)) == ((5, 0, 15, 0), (20, 25))
    # Partners are rounded separately (2 + 2 pooled would round to 5).
    assert rules.settle(4, (10, 10), (2, 0, 2, 3)) == ((0, 0, 0, 5), (10, 5))
    assert rules.settle(2, (10, 3), (0, 8)) == ((0, 10), (10, -7))
    assert rules.settle(3, (0, 5, 0), (3, 0, 12)) == ((5, 0, 10), (-5, 5, -10))


# -- module-level tables ------------------------------------------------------------------
# mutmut 3 mutates only code inside functions, so the tables that _fast builds
# at module level are pinned here, each against the public values it stands for.


def test_the_key_tables_match_the_points_they_stand_for() -> None:
    """Each key's value, bit and worth are those of its point, from the rules' scoring ends.

    A non-double's end and a branch of the Sniff count their number; a line
    side of a double counts both halves (its tile is then a terminal double).
    """
    for key, point in enumerate(point_table.POINT_OF_KEY):
        if point is None:
            assert point_table.VALUE_OF_KEY[key] == geometry.WORTH_OF_KEY[key] == 0
            assert point_table.BIT_OF_KEY[key] == 1
            continue
        assert point_table.VALUE_OF_KEY[key] == point.value
        assert point_table.BIT_OF_KEY[key] == 1 << point.value
        lines = (Side.LINE_A, Side.LINE_B)
        assert geometry.WORTH_OF_KEY[key] == (
            2 * point.value if point.side in lines else point.value
        )


def test_the_tile_tables_match_the_tiles() -> None:
    """Per tile: the bits of its halves, whether it is a double, its opening sides and moves."""
    for tile in ALL_TILES:
        assert geometry.TILE_VALUES[tile.index] == (1 << tile.low) | (1 << tile.high)
        assert geometry.IS_DOUBLE[tile.index] is tile.is_double
        assert geometry.TILES[tile.index] is tile
        opening = Layout.empty().place(tile)
        assert geometry.OPENING_KEYS[tile.index] == tuple(p.order for p in opening.points())
        assert fast.OPEN[tile.index] == Place(tile)


def test_the_table_of_placements_holds_exactly_the_placements_that_fit() -> None:
    """``PLACE[tile][key]`` is ``Place(tile, point)`` where the tile shows the point's value.

    It is None where no point has the key, where the point is the tile's own,
    and where the tile shows no half of the point's value; and where it is not
    None, ``FREE_KEY`` gives the key the tile leaves open there.
    """
    for tile in ALL_TILES:
        row = fast.PLACE[tile.index]
        assert len(row) == len(point_table.POINT_OF_KEY)
        for key, point in enumerate(point_table.POINT_OF_KEY):
            fits = point is not None and point.tile is not tile and tile.has(point.value)
            if not fits:
                assert row[key] is None
                assert geometry.FREE_KEY[tile.index][key] == -1
                continue
            assert point is not None
            assert row[key] == Place(tile, point)
            assert geometry.FREE_KEY[tile.index][key] == geometry._free_key(tile, key)


def test_the_redraw_limits_are_those_of_below() -> None:
    """``_REDRAW[n]`` is the low half from which an all-ones high half is drawn again.

    ``below(n)`` redraws outputs from ``2**64 - 2**64 % n`` up; on halves that
    is the high half all ones and the low half from ``2**32 - 2**64 % n``.
    """
    assert len(rng._REDRAW) == 65
    assert rng._REDRAW[0] == 0
    for n in range(1, 65):
        limit = (1 << 64) - (1 << 64) % n
        if limit >> 32 == 0xFFFFFFFF:  # below the limit: any high half but all ones
            assert rng._REDRAW[n] == limit & 0xFFFFFFFF
        else:  # n a power of two: nothing is redrawn
            assert (rng._REDRAW[n], limit) == (1 << 32, 1 << 64)


# -- refusal codes and the values named in errors ---------------------------------------


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


@pytest.mark.parametrize("function", [engine.apply, engine.legal_moves])
def test_a_call_without_a_state_names_the_value_it_got(function: Any) -> None:
    """The TypeError quotes the value passed instead of a state.

    Kills ``engine.legal_moves`` mutant 4 and ``engine.apply`` mutant 4. (In
    the compiled build, where MatchState is a native class, the compiled
    functions' own argument check refuses it first, naming the type it got.)
    """
    arguments = ("no state",) if function is engine.legal_moves else ("no state", Draw())
    message = (
        r"^american_sniff\.state\.MatchState object expected; got str$"
        if COMPILED
        else r"needs a MatchState \(from new_match\), got 'no state'"
    )
    with pytest.raises(TypeError, match=message):
        function(*arguments)


def test_a_key_that_is_no_point_is_refused_by_number() -> None:
    """point_of_key says which key has no point (7 is no side's rank).

    Kills ``points._point`` mutant 3 (and ``layout._point`` mutant 3, merged into it).
    """
    assert point_of_key(Point(Tile(1, 4), Side.HIGH).order) == Point(Tile(1, 4), Side.HIGH)
    with pytest.raises(ValueError, match=r"^no point has the order 7$"):
        point_of_key(7)
    for key in (-1, 28 * 8, "8"):
        with pytest.raises(ValueError, match="no point has the order"):
            point_of_key(key)  # type: ignore[arg-type]


def test_layouts_of_a_round_have_distinct_hashes() -> None:
    """A layout's hash depends on what is on the table, not on the class alone.

    Kills ``Layout.__hash__`` mutant 1.
    """
    layouts = {state.layout for state in random_play(new_match(2, seed=6), 40, seed=6)}
    assert len(layouts) > 10
    assert len({hash(layout) for layout in layouts}) == len(layouts)


def test_after_a_fitting_draw_only_the_drawn_tile_is_offered() -> None:
    """legal_moves reads the drawn tile from the state: the rest of the hand is not offered.

    The engine never reaches a state where another tile of the hand fits after
    a draw, so the state is made with attrs.evolve: ``drawn`` alone decides.

    Kills ``engine.legal_moves`` mutants 15 and 18.
    """
    state = apply(new_match(2, seed=1), legal_moves(new_match(2, seed=1))[0])
    hand = state.hands[state.turn]
    fitting = [move for move in legal_moves(state) if isinstance(move, Place)]
    assert len({move.tile for move in fitting}) > 1
    drawn = fitting[-1].tile
    waiting = state.evolve(drawn=drawn)
    assert drawn in hand
    assert legal_moves(waiting) == tuple(move for move in fitting if move.tile == drawn)


def test_draw_and_pass_write_themselves() -> None:
    """str() is the move's word and repr() its constructor call.

    Kills ``moves._Word.__repr__`` mutant 1.
    """
    assert (str(Draw()), repr(Draw())) == ("draw", "Draw()")
    assert (str(Pass()), repr(Pass())) == ("pass", "Pass()")
