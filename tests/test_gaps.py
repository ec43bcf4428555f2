"""Behaviour that mutation testing found unpinned: exact texts, fallbacks and ranges."""

from __future__ import annotations

import pytest

from american_sniff import (
    ALL_TILES,
    COMPILED,
    Deal,
    InvalidDeal,
    Point,
    Side,
    Tile,
    apply,
    legal_moves,
    new_match,
    parse_move,
    parse_tile,
    score_of,
)


def test_tile_and_move_text_may_hold_spaces_inside_the_brackets() -> None:
    """``[ 1 | 4 ]`` is read like ``[1|4]``, in a tile and inside a move."""
    assert parse_tile(" [ 4 | 1 ] ") == Tile(1, 4)
    assert parse_move("[ 1 | 4 ] opens") == parse_move("[1|4] opens")
    assert str(parse_move("[ 4 | 1 ] on [ 1 | 1 ] line_b")) == "[1|4] on [1|1] line_b"


def test_an_unseeded_match_draws_a_64_bit_seed() -> None:
    """Without a seed, a random one from 0 to 2**64 - 1 is drawn and kept."""
    seeds = {new_match(2).seed for _ in range(20)}
    assert all(type(seed) is int and 0 <= seed < 2**64 for seed in seeds)
    assert len(seeds) > 1


def test_the_repr_of_a_state_summarises_it() -> None:
    """The repr names the players, round, turn, scores, table and stock."""
    state = new_match(2, seed=1)
    assert repr(state) == "<MatchState players=2 round=1 turn=1 scores=(0, 0) table=0 stock=14>"
    after = apply(state, legal_moves(state)[0])
    assert repr(after) == "<MatchState players=2 round=1 turn=0 scores=(0, 0) table=1 stock=14>"


def test_hands_of_equal_but_foreign_tiles_play_like_the_engines_own() -> None:
    """A hand holding equal tiles that are not the library's instances still plays."""
    state = new_match(2, seed=4)
    foreign = tuple(tuple(Tile(t.high, t.low) for t in hand) for hand in state.hands)
    assert all(t is not u for t, u in zip(foreign[0], state.hands[0], strict=True))
    twin = state.evolve(hands=foreign)
    for _ in range(30):
        move = legal_moves(state)[0]
        state, twin = apply(state, move), apply(twin, legal_moves(twin)[0])
        assert twin.hands == state.hands
        assert twin.layout == state.layout


@pytest.mark.parametrize("value", ["x", None, 3])
def test_a_wrong_state_argument_names_the_value(value: object) -> None:
    """The TypeError shows the function and the value it got.

    In the compiled build MatchState is a native class, and the compiled
    function's own argument check refuses the value first: its message names
    the class expected and the type it got.
    """
    with pytest.raises(TypeError) as error:
        score_of(value, 0)  # type: ignore[arg-type]
    if COMPILED:
        got = "None" if value is None else type(value).__name__
        assert str(error.value) == f"american_sniff.state.MatchState object expected; got {got}"
    else:
        assert str(error.value) == f"score_of() needs a MatchState (from new_match), got {value!r}"


def test_a_deal_lacking_tiles_lists_every_missing_one() -> None:
    """The message of an incomplete deal lists all the missing tiles, in set order."""
    hands = [ALL_TILES[:7], ALL_TILES[7:14]]
    with pytest.raises(InvalidDeal) as error:
        Deal(hands=hands, stock=ALL_TILES[14:26])
    assert str(error.value) == "the deal lacks [5|6], [6|6]"


def test_a_side_a_tile_does_not_have_is_named_exactly() -> None:
    """A point refuses a side of the wrong kind and says which sides the tile has."""
    with pytest.raises(ValueError, match="is not a double") as error:
        Point(Tile(1, 4), Side.LINE_A)
    assert str(error.value) == "[1|4] is not a double: it has only low and high ends, not line_a"
    with pytest.raises(ValueError, match="is a double") as error:
        Point(Tile(1, 1), Side.LOW)
    assert str(error.value) == "[1|1] is a double: it has line and branch sides, not low"


@pytest.mark.parametrize("pips", [-3, True, 2.0, "7"])
def test_round_hand_refuses_what_no_hand_holds(pips: object) -> None:
    """A hand's pips are a whole number, 0 or more."""
    from american_sniff import round_hand

    with pytest.raises(ValueError, match="whole number of pips"):
        round_hand(pips)
