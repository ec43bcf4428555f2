"""The fast representation (``_fast.py``) agrees with the plain definitions it stands for.

These checks run in both builds: the pure-Python one and the mypyc-compiled
one, where ``_fast`` takes other routes (native integers for the shuffle,
direct stores for the constructors).
"""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff import COMPILED, Layout, MatchState, Point, Side, Tile, new_match, rng
from american_sniff import _fast as fast
from american_sniff import _native as native
from american_sniff import layout as geometry
from american_sniff import points as point_table
from american_sniff.rng import MASK64, shuffled
from american_sniff.state import RoundInfo, RoundResult
from scenarios import random_play
from test_rng import splitmix64_output


@given(st.integers(min_value=0, max_value=MASK64), st.sampled_from([2, 5, 7, 28, 33, 64]))
def test_the_shuffle_on_halves_is_the_documented_shuffle(state: int, count: int) -> None:
    """Same permutation and same next generator state as rng.shuffled, for any state."""
    expected, after = shuffled(tuple(range(count)), state)
    order, state_after = rng.shuffled_indices_in_halves(count, state)
    assert tuple(order) == expected
    assert state_after == after
    assert fast.shuffled_indices(count, state) == (list(expected), after)


@pytest.mark.parametrize("state", [0, 1, MASK64, 1 << 63, (1 << 32) - 1, 1 << 32])
def test_the_shuffle_on_halves_agrees_at_the_edges_of_64_bits(state: int) -> None:
    """States whose halves are all zeros or all ones carry and wrap correctly."""
    assert rng.shuffled_indices_in_halves(28, state) == (
        list(shuffled(tuple(range(28)), state)[0]),
        shuffled(tuple(range(28)), state)[1],
    )


def test_the_shuffle_on_halves_takes_at_most_64_items() -> None:
    """Its table of redraw limits stops at 64; more is refused, not mis-shuffled."""
    with pytest.raises(ValueError, match="up to 64"):
        rng.shuffled_indices_in_halves(65, 1)


@pytest.mark.parametrize("n", [2, 3, 5, 6, 7, 28, 33, 64])
def test_the_redraw_limits_are_those_of_below(n: int) -> None:
    """An output is redrawn exactly from 2**64 - 2**64 % n up: its low half from _REDRAW[n]."""
    limit = (1 << 64) - (1 << 64) % n
    assert (((1 << 32) - 1) << 32) + rng._REDRAW[n] == limit
    # The test on halves and the test on the whole output agree around the limit.
    for out in (limit - 1, limit, limit + 1, (1 << 64) - 1):
        if out >= 1 << 64:
            continue
        high, low = out >> 32, out & 0xFFFFFFFF
        redrawn = high == 0xFFFFFFFF and low >= rng._REDRAW[n]
        assert redrawn is (out >= limit)


@given(st.integers(min_value=0, max_value=MASK64))
def test_the_output_on_halves_is_splitmix64(state: int) -> None:
    """The mixing function on halves gives SplitMix64's output for the state after a step."""
    stepped = (state + 0x9E3779B97F4A7C15) & MASK64
    expected = splitmix64_output(stepped)
    high, low = rng._output(stepped >> 32, stepped & 0xFFFFFFFF)
    assert high << 32 | low == expected


def test_round_constructors_fill_exactly_the_attrs_fields() -> None:
    """RoundInfo and RoundResult made by _fast equal those made by attrs from the same fields."""
    seen_results = 0
    for state in random_play(new_match(4, seed=3), 400, seed=3):
        info = state.info
        fields = {(f.alias or f.name): getattr(info, f.name) for f in attrs.fields(RoundInfo)}
        assert RoundInfo(**fields) == info
        result = state.last_round
        if result is not None:
            seen_results += 1
            fields = {
                (f.alias or f.name): getattr(result, f.name) for f in attrs.fields(RoundResult)
            }
            assert RoundResult(**fields) == result
            assert hash(RoundResult(**fields)) == hash(result)
    assert seen_results > 0


def test_states_built_by_the_engine_are_plain_frozen_states() -> None:
    """The twin-class route (interpreter) and the direct route (compiled) give true MatchStates."""
    for state in random_play(new_match(4, seed=8), 60, seed=8):
        assert type(state) is MatchState
        assert type(state.layout) is Layout
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            state.turn = 0
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            del state.layout.end_sum


def test_point_keys_are_point_orders_and_the_tables_agree_with_the_points() -> None:
    """Every key is its Point's order, and each table row describes that point."""
    for key, point in enumerate(point_table.POINT_OF_KEY):
        if point is None:
            continue
        assert point.order == key == point_table.key_of(point.tile, point.side)
        assert point_table.VALUE_OF_KEY[key] == point.value
        assert point_table.BIT_OF_KEY[key] == 1 << point.value
        doubled = point.side in (Side.LINE_A, Side.LINE_B)
        assert geometry.WORTH_OF_KEY[key] == (2 * point.value if doubled else point.value)
    # 21 non-doubles with two ends, 7 doubles with two lines and two branches.
    assert sum(point is not None for point in point_table.POINT_OF_KEY) == 21 * 2 + 7 * 4


def test_the_end_sum_counts_a_lone_opening_double_once() -> None:
    """[3|3] alone counts 6, not 12; joined on one side it still counts 6 through the other."""
    alone = Layout.empty().place(Tile(3, 3))
    assert geometry.is_lone_double(alone.open_keys)
    assert alone.end_sum == sum(part.value for part in alone.contributions()) == 6
    joined = alone.place(Tile(0, 3), Point(Tile(3, 3), Side.LINE_A))
    assert not geometry.is_lone_double(joined.open_keys)
    assert joined.end_sum == 6  # line_b counts both halves, and [0|3] shows 0


def test_a_twin_constructor_stores_every_slot_and_keeps_the_keywords() -> None:
    """A generated constructor takes the same keywords, defaults included, and fills each slot."""

    def make(*, info: object, turn: int, winner: object = None) -> object:
        """Doc."""
        raise AssertionError("replaced by the generated constructor")

    class Three:
        __slots__ = ("_spare", "info", "turn", "winner")
        _spare: object
        info: object
        turn: object
        winner: object

    build = native.twin_constructor(
        Three, make, {"info": "info", "turn": "turn", "winner": "winner", "_spare": "None"}
    )
    made = build(info="i", turn=2)
    assert type(made) is Three
    assert (made.info, made.turn, made.winner, made._spare) == ("i", 2, None, None)
    assert build(info="i", turn=2, winner=1).winner == 1
    assert build.__doc__ == "Doc."
    with pytest.raises(TypeError):
        build("i", 2)
    with pytest.raises(TypeError, match="turn"):
        build(info="i")


def test_the_twin_constructors_set_each_slot_from_its_own_argument() -> None:
    """Each slot comes from the argument of its name; ``_log`` from ``log``.

    Kills ``_fast._same_names`` mutants 1 to 6 (it runs only while _fast loads).
    Only the interpreted build uses it: compiled, Layout and MatchState are
    native classes.
    """
    if COMPILED:
        pytest.skip("the twin constructors serve the interpreted build only")
    assert native.same_names(Layout) == {
        "_log": "log",
        "end_sum": "end_sum",
        "open_keys": "open_keys",
        "sniff": "sniff",
        "tile_mask": "tile_mask",
        "value_mask": "value_mask",
    }
    names = native.same_names(MatchState)
    assert names["_log"] == "log"
    assert names["_legal"] == "legal"
    assert names["_hash"] == ""  # the kept hash: no constructor sets it
    assert all(names[slot] == slot for slot in names if not slot.startswith("_"))


@pytest.mark.parametrize(
    "slots",
    [
        {"info": "info", "turn": "turn"},
        {"info": "info", "turn": "turn", "winner": "winner", "extra": "None"},
        {"info": "info", "turn": "info", "winner": "winner"},
    ],
)
def test_a_twin_constructor_refuses_slots_that_do_not_match(slots: dict[str, str]) -> None:
    """Every slot must be set once, from an argument of the model function or None."""

    def make(*, info: object, turn: int, winner: object = None) -> object:
        raise AssertionError

    class Three:
        __slots__ = ("info", "turn", "winner")

    with pytest.raises(TypeError, match="Three: the slots and the arguments do not match"):
        native.twin_constructor(Three, make, slots)


def test_layouts_refuse_assignment_in_both_builds() -> None:
    """Layout's constructor stores past __setattr__; nobody else can."""
    layout = Layout((), 0, None, 0, 0, None)
    assert layout == Layout.empty()
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        layout.end_sum = 5
    assert layout.end_sum == 0


def test_a_twin_constructor_refuses_a_default_other_than_none() -> None:
    """The generated function writes every default as None, so no other default is allowed."""

    def make(*, info: object, turn: int = 0) -> object:
        raise AssertionError

    class Two:
        __slots__ = ("info", "turn")

    with pytest.raises(TypeError, match="make: turn may default to None only"):
        native.twin_constructor(Two, make, {"info": "info", "turn": "turn"})


def test_a_twin_constructor_takes_arguments_by_position_where_its_model_does() -> None:
    """The generated function keeps each argument's kind: positional, or keyword only."""

    def make(info: object, turn: int, *, winner: object = None, spare: object = None) -> object:
        raise AssertionError("replaced by the generated constructor")

    class Four:
        __slots__ = ("info", "spare", "turn", "winner")
        info: object
        spare: object
        turn: object
        winner: object

    build = native.twin_constructor(
        Four, make, {"info": "info", "turn": "turn", "winner": "winner", "spare": "spare"}
    )
    made = build("i", 2, spare=3)
    assert (made.info, made.turn, made.winner, made.spare) == ("i", 2, None, 3)
    assert build(turn=2, info="i").turn == 2
    with pytest.raises(TypeError):
        build("i", 2, 1)  # winner is keyword-only, as in make


def test_the_interned_placement_is_the_one_legal_moves_hands_out() -> None:
    """``interned_place`` gives the very object of the tables, and refuses what does not fit."""
    from american_sniff import ALL_TILES, Place, legal_moves
    from american_sniff.points import POINT_OF_KEY

    for tile in ALL_TILES:
        assert fast.interned_place(tile, None) is fast.OPEN[tile.index] == Place(tile)
        for point in POINT_OF_KEY:
            if point is None:
                continue
            if point.tile is not tile and tile.has(point.value):
                assert fast.interned_place(tile, point) == Place(tile, point)
            else:
                with pytest.raises(ValueError, match="does not fit"):
                    fast.interned_place(tile, point)
    state = new_match(2, seed=5)
    for move in legal_moves(state):
        assert isinstance(move, Place)
        assert fast.interned_place(move.tile, move.at) is move
