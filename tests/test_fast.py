"""The fast representation (``_fast.py``) agrees with the plain definitions it stands for.

These checks run in both builds: the pure-Python one and the mypyc-compiled
one, where ``_fast`` takes other routes (native integers for the shuffle,
direct stores for the constructors).
"""

from __future__ import annotations

import random

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff import (
    COMPILED,
    Layout,
    MatchState,
    legal_moves,
    new_match,
    rng,
)
from american_sniff import _fast as fast
from american_sniff import _native as native
from american_sniff import state as state_module
from american_sniff.rng import MASK64, below, next_u64, shuffled
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
def test_the_shuffle_on_halves_agrees_at_the_edges_of_64_bits(count: int) -> None:
    """Same order and generator state as rng.shuffled, at the edges of 64 bits and beyond.

    States whose halves are all zeros or all ones carry and wrap correctly, and
    so do 40 others, for sizes from 0 to 64. Kills the mutants of
    ``_fast._times``, ``_fast._output`` and ``_rng.shuffled_indices_in_halves``.
    """
    chooser = random.Random(count)
    states = [0, 1, MASK64, 2**63, 2**32 - 1, 2**32] + [chooser.getrandbits(64) for _ in range(40)]
    for state in states:
        order, after = shuffled(tuple(range(count)), state)
        assert rng.shuffled_indices_in_halves(count, state) == (list(order), after)


def test_the_shuffle_on_halves_takes_at_most_64_items() -> None:
    """Up to 64 items are shuffled; 65 are refused with a ValueError naming the count.

    Its table of redraw limits stops at 64: more is refused, not mis-shuffled.
    Kills the mutants of the bound check in ``_rng.shuffled_indices_in_halves``.
    """
    assert sorted(rng.shuffled_indices_in_halves(64, 5)[0]) == list(range(64))
    with pytest.raises(ValueError, match=r"^the shuffle on halves takes up to 64 items, not 65$"):
        rng.shuffled_indices_in_halves(65, 1)


@pytest.mark.parametrize("count", range(2, 65))
def test_the_shuffle_on_halves_redraws_exactly_where_below_does(count: int) -> None:
    """An output at or above ``2**64 - 2**64 % n`` is drawn again; one just below it is kept.

    The shuffle's first draw is ``below(count)``. Outputs that high come once in
    about 2**60 draws, so the generator state is chosen to give them: for every
    size up to 64 the redraw limit is met exactly (a power of two redraws
    nothing). Kills the comparison mutants of
    ``_rng.shuffled_indices_in_halves`` and pins ``rng._REDRAW`` through
    what the shuffle does with it.
    """
    limit = (1 << 64) - (1 << 64) % count
    for output in sorted({limit - 1, min(limit, MASK64), MASK64}):
        state = _state_before(output)
        assert next_u64(state)[0] == output
        order, after = shuffled(tuple(range(count)), state)
        assert rng.shuffled_indices_in_halves(count, state) == (list(order), after)
        # The first swap took one draw below the limit, and two from it up.
        draws = 1 if output < limit else 2
        assert below(count, state)[1] == (state + draws * 0x9E3779B97F4A7C15) & MASK64


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


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_compiled_builds_code_paths_play_the_same_match(
    players: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The branches that only the mypyc build takes give the very same states and moves.

    ``COMPILED`` picks the compiled build's shuffle in ``_fast``; run by the
    interpreter it must play the same match, state for state, as the
    pure-Python branch (the issue asks both builds to behave identically).
    Kills the mutants of the ``if COMPILED:`` branch of ``_fast.shuffled_indices``.
    (The slot stores of ``Layout.__init__``'s compiled branch need the native
    class: the compiled CI step runs them.)
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

    Kills ``_native.same_names`` mutants 1 to 6 (it runs only while _fast loads).
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
    assert "_hash" not in names  # the kept hash, in the base's slot: no constructor sets it
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
