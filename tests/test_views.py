"""What each seat may see: ``view_for``, ``PlayerView`` and its JSON."""

from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff import (
    Draw,
    MatchState,
    Pass,
    Place,
    PlayerView,
    Tile,
    apply,
    legal_moves,
    new_match,
    view_for,
)
from american_sniff.views import known_voids
from scenarios import DRAW_DEAL, PASS_DEAL, act, deal

_TILE_TEXT = re.compile(r"\[\d\|\d\]")


def _hidden(state: MatchState, seat: int) -> set[Tile]:
    """The tiles ``seat`` may not see: the other hands (drawn tiles included) and the stock."""
    others = {t for s, hand in enumerate(state.hands) if s != seat for t in hand}
    return others | set(state.stock)


def _check_view(state: MatchState, seat: int) -> None:
    """Assert that the view of ``seat`` shows nothing hidden, as a value and as JSON."""
    view = view_for(state, seat)
    hidden = _hidden(state, seat)
    assert view.hand == state.hands[seat]
    assert not hidden & set(view.hand)
    assert not hidden & set(view.layout.tiles)
    for action in view.history:
        assert action.tile is None or action.tile not in hidden
    if view.drawn is not None:
        assert view.drawn in view.hand
    doc = json.loads(view.to_json())
    # The previous round is over: its revealed hands are public, checked apart.
    last_round = doc.pop("last_round")
    shown = set(_TILE_TEXT.findall(json.dumps(doc)))
    assert not shown & {str(t) for t in hidden}, (seat, shown & {str(t) for t in hidden})
    for key in ("seed", "rng", "stock", "deals", "hands"):
        assert key not in doc
    if last_round is not None:
        for action in last_round["history"]:
            if action["seat"] != seat:
                assert action["tile"] is None


def _play(players: int, seed: int, steps: int) -> list[MatchState]:
    rng = random.Random(seed)
    states = [new_match(players, seed=seed)]
    while not states[-1].is_over and len(states) <= steps:
        states.append(apply(states[-1], rng.choice(legal_moves(states[-1]))))
    return states


@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32), st.integers(20, 400))
def test_no_hidden_tile_ever_appears_in_a_view_or_its_json(
    players: int, seed: int, steps: int
) -> None:
    """Other hands, the stock and a tile another seat drew never show in a seat's view."""
    for state in _play(players, seed, steps)[-40:]:
        for seat in range(players):
            _check_view(state, seat)


def test_a_tile_drawn_by_another_seat_stays_hidden_until_it_is_placed() -> None:
    """Seat 0 sees that seat 1 drew, but not what, while seat 1 sees its own tiles."""
    state = act(new_match(2, seed=1, deals=[DRAW_DEAL]), "[0|0] opens")
    state = act(state, "draw")  # seat 1 draws [5|5]
    mine, theirs = view_for(state, 1), view_for(state, 0)
    assert mine.history[-1].tile == Tile(5, 5)
    assert theirs.history[-1].tile is None
    assert theirs.history[-1].move == Draw()
    assert theirs.hand_sizes == (6, 8)
    assert '"[5|5]"' not in theirs.to_json()
    for text in ("draw", "draw", "[0|3] on [0|0] line_b"):
        state = act(state, text)
    assert "[0|3]" in view_for(state, 0).to_json()  # placed: now public
    assert "[6|6]" not in view_for(state, 0).to_json()  # kept: still hidden


def test_only_the_seat_to_move_sees_legal_moves_and_its_drawn_tile() -> None:
    """The legal moves and the must-place drawn tile belong to the seat to move alone."""
    state = act(new_match(2, seed=1, deals=[DRAW_DEAL]), "[0|0] opens")
    for _ in range(3):
        state = act(state, "draw")
    assert state.drawn == Tile(0, 3)
    mover, other = view_for(state, 1), view_for(state, 0)
    assert mover.is_my_turn
    assert not other.is_my_turn
    assert mover.drawn == Tile(0, 3)
    assert other.drawn is None
    assert mover.legal_moves == legal_moves(state)
    assert other.legal_moves == ()


def test_the_view_holds_the_public_facts() -> None:
    """Scores, target, turn, round, opener, table and counts match the state."""
    state = _play(4, 3, 60)[-1]
    view = view_for(state, 2)
    assert isinstance(view, PlayerView)
    assert (view.seat, view.players, view.round, view.opener, view.turn) == (
        2,
        4,
        state.round,
        state.opener,
        state.turn,
    )
    assert (view.scores, view.target, view.winner) == (state.scores, 200, state.winner)
    assert view.layout == state.layout
    assert view.hand_sizes == tuple(len(h) for h in state.hands)
    assert view.stock_size == state.stock_size
    assert [a.move for a in view.history] == [a.move for a in state.history]
    assert view.last_action is not None
    assert view.last_action.move == (state.last_action.move if state.last_action else None)


def test_the_previous_round_is_public_but_its_draws_by_others_are_not() -> None:
    """``last_round`` keeps the revealed hands and hides the tiles other seats drew."""
    state = next(s for s in _play(2, 8, 3000) if s.round == 2 and s.last_round is not None)
    assert state.last_round is not None
    assert any(isinstance(a.move, Draw) for a in state.last_round.history)
    for seat in (0, 1):
        result = view_for(state, seat).last_round
        assert result is not None
        assert result.hands == state.last_round.hands
        assert result.scores == state.last_round.scores
        for action in result.history:
            if isinstance(action.move, Draw):
                assert (action.tile is None) == (action.seat != seat)


def test_the_view_json_follows_the_shared_conventions() -> None:
    """Header, key order, and the table's placements, open points and contributions."""
    state = act(act(new_match(2, seed=1, deals=[DRAW_DEAL]), "[0|0] opens"), "draw")
    doc = json.loads(view_for(state, 0).to_json())
    assert list(doc) == [
        "format",
        "format_version",
        "rules_version",
        "players",
        "seat",
        "round",
        "opener",
        "turn",
        "target",
        "scores",
        "winner",
        "hand",
        "drawn",
        "hand_sizes",
        "stock_size",
        "table",
        "legal_moves",
        "history",
        "last_round",
        "voids",
    ]
    assert doc["format"] == "american-sniff/view"
    assert doc["table"] == {
        "placements": ["[0|0] opens"],
        "open_points": ["[0|0] line_a", "[0|0] line_b"],
        "contributions": [{"point": "[0|0] line_a", "value": 0}],
        "end_sum": 0,
        "sniff": "[0|0]",
    }
    assert doc["history"][1] == {
        "seat": 1,
        "move": "draw",
        "tile": None,
        "end_sum": None,
        "points": None,
    }
    assert doc["voids"] == [[], []]


def test_view_for_refuses_what_is_not_a_state_or_a_seat() -> None:
    """A wrong state argument is a TypeError; a seat out of range a ValueError."""
    with pytest.raises(TypeError, match="view_for"):
        view_for("state", 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seat must be an integer from 0 to 1"):
        view_for(new_match(2, seed=1), 2)


# -- known voids ---------------------------------------------------------------------------


@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32))
def test_known_voids_are_never_wrong(players: int, seed: int) -> None:
    """No seat ever holds a tile showing a value it is said to be void in."""
    for state in _play(players, seed, 600):
        voids = view_for(state, 0).voids
        for seat, values in enumerate(voids):
            for tile in state.hands[seat]:
                assert tile.low not in values, (seat, tile, values)
                assert tile.high not in values, (seat, tile, values)


def test_drawing_then_placing_the_drawn_tile_shows_the_open_values_missing() -> None:
    """Seat 1 draws [5|5] and [6|6] (kept) then places [0|3]: it holds no 0 now, nothing more.

    While it was still drawing, nothing was known: the tile just drawn might fit.
    """
    state = act(new_match(2, seed=1, deals=[DRAW_DEAL]), "[0|0] opens")
    state = act(state, "draw")
    assert view_for(state, 0).voids == (frozenset(), frozenset())
    for text in ("draw", "draw", "[0|3] on [0|0] line_b"):
        state = act(state, text)
    assert view_for(state, 0).voids == (frozenset(), frozenset({0}))


def test_one_draw_placed_keeps_what_was_known_before() -> None:
    """A seat that draws once and places that tile holds the same hand as before its turn."""
    two = deal(
        [
            "[0|0] [0|1] [0|2] [0|4] [0|5] [1|1] [1|2]",
            "[1|3] [1|4] [1|5] [1|6] [2|2] [2|3] [3|3]",
        ],
        stock="[0|3] [0|6]",
    )
    state = act(new_match(2, seed=1, deals=[two]), "[0|0] opens")
    state = act(state, "draw")  # seat 1 (no 0) draws [0|3], which fits
    state = act(state, "[0|3] on [0|0] line_b")
    assert view_for(state, 0).voids[1] == frozenset({0})
    state = act(state, "[0|1] on [0|0] line_a")  # open: 3 (of [0|3]) and 1, branches 0 and 0
    assert view_for(state, 0).voids[1] == frozenset({0})


def test_a_pass_after_drawing_the_whole_stock_shows_only_the_open_values() -> None:
    """Seat 1 draws all fourteen tiles and passes: it is void in 0 only."""
    state = act(new_match(2, seed=1, deals=[PASS_DEAL]), "[0|0] opens")
    while legal_moves(state) == (Draw(),):
        state = act(state, "draw")
    assert legal_moves(state) == (Pass(),)
    state = act(state, "pass")
    assert view_for(state, 1).voids == (frozenset(), frozenset({0}))


def test_known_voids_start_empty_and_ignore_placements_by_choice() -> None:
    """An empty history, and a round of placements only, tell nothing."""
    assert known_voids((), 3) == (frozenset(),) * 3
    state = next(s for s in _play(3, 0, 40) if s.layout.count == 4)
    assert all(not isinstance(a.move, Draw | Pass) for a in state.history)
    assert known_voids(state.history, 3) == (frozenset(),) * 3


def _one_draw_turns(states: list[MatchState]) -> list[tuple[MatchState, MatchState, int]]:
    """Each turn of exactly one draw whose tile is then placed: (state before, after, seat)."""
    turns = []
    for before, drew, placed in zip(states, states[1:], states[2:], strict=False):
        first, second = drew.last_action, placed.last_action
        if first is None or second is None or placed.round != before.round:
            continue
        if not (isinstance(first.move, Draw) and isinstance(second.move, Place)):
            continue
        if second.seat != first.seat or (before.history and before.history[-1].seat == first.seat):
            continue  # not one draw then the drawn tile, in one turn
        turns.append((before, placed, first.seat))
    return turns


def _check_one_draw_turn(before: MatchState, placed: MatchState, seat: int) -> None:
    known = view_for(before, 0).voids[seat]
    shown = frozenset(p.value for p in before.layout.points())
    assert view_for(placed, 0).voids[seat] == known | shown


@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32))
def test_drawing_once_and_placing_that_tile_keeps_what_was_known(players: int, seed: int) -> None:
    """After one draw whose tile is placed, the seat holds its old hand: old voids stay.

    And the values open when it had to draw are added to them.
    """
    for before, placed, seat in _one_draw_turns(_play(players, seed, 800)):
        _check_one_draw_turn(before, placed, seat)


def test_a_seeded_match_keeps_old_voids_through_a_one_draw_turn() -> None:
    """Seeded turns where something outside the open values was known before the draw."""
    found = []
    for seed in range(60):
        for before, placed, seat in _one_draw_turns(_play(2, seed, 800)):
            shown = frozenset(p.value for p in before.layout.points())
            if view_for(before, 0).voids[seat] - shown:
                found.append((before, placed, seat))
    assert found
    for turn in found:
        _check_one_draw_turn(*turn)
