"""The search bot and the determinisation of what a seat cannot see."""

from __future__ import annotations

import itertools
import time
from collections import Counter
from collections.abc import Sequence

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff import (
    ALL_TILES,
    Deal,
    MatchState,
    PlayerView,
    Tile,
    apply,
    legal_moves,
    new_match,
    view_for,
)
from american_sniff.bots import Determiniser, GreedyBot, SearchBot
from american_sniff.bots.search import playout_value
from american_sniff.tournament import run_tournament
from strategies import mid_match_states

# -- determinisation ---------------------------------------------------------------


def _hidden(view: PlayerView) -> list[Tile]:
    """The tiles the view does not show."""
    shown = set(view.hand) | set(view.layout.tiles)
    return [tile for tile in ALL_TILES if tile not in shown]


def _allowed(tile: Tile, voids: frozenset[int]) -> bool:
    return tile.low not in voids and tile.high not in voids


def _brute_force_count(view: PlayerView) -> int:
    """How many ways the hidden tiles can fill the other hands (the rest is the stock)."""
    others = [s for s in range(view.players) if s != view.seat]

    def fill(index: int, left: frozenset[Tile]) -> int:
        if index == len(others):
            return 1
        seat = others[index]
        allowed = sorted((t for t in left if _allowed(t, view.voids[seat])), key=str)
        return sum(
            fill(index + 1, left - set(hand))
            for hand in itertools.combinations(allowed, view.hand_sizes[seat])
        )

    return fill(0, frozenset(_hidden(view)))


def _check_world(view: PlayerView, world: MatchState) -> None:
    """Assert that ``world`` shows exactly what ``view`` shows, and respects the voids."""
    assert world.hands[view.seat] == view.hand
    assert world.layout == view.layout
    assert (world.turn, world.scores, world.round, world.opener) == (
        view.turn,
        view.scores,
        view.round,
        view.opener,
    )
    assert world.drawn == view.drawn
    assert tuple(len(hand) for hand in world.hands) == view.hand_sizes
    assert world.stock_size == view.stock_size
    placed = [t for hand in world.hands for t in hand] + list(world.layout.tiles)
    assert sorted(placed + list(world.stock), key=str) == sorted(ALL_TILES, key=str)
    for seat, hand in enumerate(world.hands):
        if seat != view.seat:
            assert all(_allowed(tile, view.voids[seat]) for tile in hand), (seat, hand)
            assert list(hand) == sorted(hand, key=lambda t: t.index)
    if view.is_my_turn:
        assert legal_moves(world) == view.legal_moves


@given(state=mid_match_states(max_steps=400), seat=st.integers(0, 3), rng=st.integers(0, 2**64 - 1))
def test_a_determinisation_agrees_with_the_view(state: MatchState, seat: int, rng: int) -> None:
    """Each sampled state shows what the view shows, respects every void, and plays on."""
    if state.is_over:
        return
    view = view_for(state, seat % state.players)
    determiniser = Determiniser(view)
    assert determiniser.count >= 1
    for _ in range(3):
        world, rng = determiniser.sample(rng)
        _check_world(view, world)
        moves = legal_moves(world)
        assert moves
        apply(world, moves[-1])  # the engine plays on from it


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_count_of_deals_is_exact(players: int) -> None:
    """Late in a round, where the hidden tiles are few, the count matches a brute force."""
    checked = with_voids = 0
    for seed in range(8):
        state = new_match(players, seed=seed)
        bot = GreedyBot()
        while state.winner is None and state.round == 1:
            for seat in range(players):
                view = view_for(state, seat)
                if len(_hidden(view)) <= 10:
                    assert Determiniser(view).count == _brute_force_count(view), view
                    checked += 1
                    with_voids += any(view.voids)
            state = apply(state, bot.choose(view_for(state, state.turn)))
    assert checked > 20
    assert with_voids > 5


def _view_with_few_deals() -> PlayerView:
    """A view, late in a round with some voids known, that allows only a few deals."""
    for seed in range(200):
        state = new_match(3, seed=seed)
        bots = [GreedyBot(), GreedyBot(), GreedyBot()]
        while state.winner is None and state.round == 1:
            view = view_for(state, state.turn)
            if any(view.voids) and view.stock_size and 3 <= Determiniser(view).count <= 12:
                return view
            state = apply(state, bots[state.turn].choose(view))
    raise AssertionError("no such view in 200 matches")  # pragma: no cover


def test_every_agreeing_deal_is_equally_likely() -> None:
    """Sampling many times hits every agreeing deal about equally often."""
    view = _view_with_few_deals()
    determiniser = Determiniser(view)
    rng = 99
    seen: Counter[tuple[tuple[Tile, ...], ...]] = Counter()
    draws = 300 * determiniser.count
    for _ in range(draws):
        world, rng = determiniser.sample(rng)
        seen[world.hands] += 1
    assert len(seen) == determiniser.count
    mean = draws / determiniser.count
    assert all(0.75 * mean < n < 1.25 * mean for n in seen.values()), seen


def test_the_search_sees_only_the_view() -> None:
    """Two deals that differ only in what seat 0 cannot see give seat 0 the same samples."""
    first = new_match(2, seed=8)
    hands, stock = first.hands, first.stock
    # Swap seat 1's hand with the front of the stock: seat 0's view is unchanged.
    second_deal = Deal(hands=(hands[0], stock[:7]), stock=stock[7:] + hands[1], opener=0)
    first = new_match(2, deals=[Deal(hands=hands, stock=stock, opener=0)], seed=8)
    second = new_match(2, deals=[second_deal], seed=8)
    assert first.hands[1] != second.hands[1]
    view = view_for(first, 0)
    assert view_for(second, 0) == view
    assert Determiniser(view).sample(5)[0] == Determiniser(view_for(second, 0)).sample(5)[0]
    bots = SearchBot(seed=1, playouts=4), SearchBot(seed=1, playouts=4)
    assert bots[0].choose(view) is bots[1].choose(view_for(second, 0))


def test_determiniser_names_the_problem() -> None:
    """A view no deal agrees with, a finished match, or not a view at all."""
    state = new_match(2, seed=1)
    view = view_for(state, 0)
    with pytest.raises(ValueError, match="no deal agrees with the view"):
        Determiniser(attrs.evolve(view, voids=(frozenset(), frozenset(range(7)))))
    with pytest.raises(ValueError, match="hides 21 tiles, but its hand sizes and stock hold 22"):
        Determiniser(attrs.evolve(view, stock_size=15))
    with pytest.raises(ValueError, match="match is over"):
        Determiniser(attrs.evolve(view, winner=0))
    with pytest.raises(TypeError, match="needs a PlayerView"):
        Determiniser(state)  # type: ignore[arg-type]


# -- the bot -------------------------------------------------------------------------


def _choices(bot: SearchBot, seed: int, moves: int) -> list[object]:
    state = new_match(3, seed=seed)
    chosen: list[object] = []
    while len(chosen) < moves and state.winner is None:
        move = bot.choose(view_for(state, state.turn))
        chosen.append(move)
        state = apply(state, move)
    return chosen


def test_search_is_reproducible_from_its_seed() -> None:
    """With a playout budget, the same seed makes the same choices."""
    assert _choices(SearchBot(seed=4, playouts=3), 6, 30) == _choices(
        SearchBot(seed=4, playouts=3), 6, 30
    )


@pytest.mark.parametrize(
    "bot",
    [
        SearchBot(seed=1, seconds=0.002),
        SearchBot(seed=1, playouts=2, rollout="random"),
        SearchBot(seed=1, playouts=2, depth=None),
    ],
    ids=repr,
)
def test_search_plays_whole_matches_with_every_budget_and_policy(bot: SearchBot) -> None:
    """A time budget, random playouts and playouts to the round's end all play legally."""
    players = 4
    state = new_match(players, seed=30)
    others = GreedyBot()
    while state.winner is None:
        view = view_for(state, state.turn)
        move = (bot if state.turn % 2 == 0 else others).choose(view)
        assert move in view.legal_moves
        state = apply(state, move)


def test_a_time_budget_is_kept() -> None:
    """A choice with a time budget takes about that long (at least one deal is sampled)."""
    state = new_match(2, seed=3)
    bot = SearchBot(seconds=0.05)
    start = time.monotonic()
    bot.choose(view_for(state, state.turn))
    assert 0.05 <= time.monotonic() - start < 2


def test_a_lone_move_leaves_the_generator_alone() -> None:
    """Returning a lone legal move samples nothing, so later choices are unchanged."""
    state = new_match(2, seed=1)
    while len(legal_moves(state)) != 1 or state.layout.is_empty:
        state = apply(state, GreedyBot().choose(view_for(state, state.turn)))
    lone = view_for(state, state.turn)
    later = view_for(new_match(2, seed=2), new_match(2, seed=2).turn)
    used, fresh = SearchBot(seed=9, playouts=2), SearchBot(seed=9, playouts=2)
    assert used.choose(lone) is lone.legal_moves[0]
    assert [used.choose(later) for _ in range(3)] == [fresh.choose(later) for _ in range(3)]


def test_playout_value_is_own_gain_less_the_others_mean_and_a_win_counts_the_target() -> None:
    """Gains are measured from the start; the winning side adds the target to its gain."""
    start = new_match(3, seed=1)
    end = attrs.evolve(start, scores=(20, 5, -5))
    assert playout_value(start, end, 0) == 20 - 0
    assert playout_value(start, end, 1) == 5 - 7.5
    won = attrs.evolve(start, scores=(200, 10, 0), winner=0)
    assert playout_value(start, won, 0) == 400 - 5
    assert playout_value(start, won, 2) == 0 - 205
    four = new_match(4, seed=1)
    assert playout_value(four, attrs.evolve(four, scores=(15, 10)), 2) == 5


def _wins(summary_wins: dict[str, int], names: Sequence[str]) -> list[int]:
    return [summary_wins[name] for name in names]


def test_search_beats_greedy_in_most_of_200_two_player_matches() -> None:
    """The search bot wins at least 60% of 200 seeded whole matches against greedy.

    Seats alternate from match to match. The budget (8 deals per choice,
    playouts of 4 placements) keeps this test near 20 seconds of CPU time.
    """
    summary = run_tournament(
        ["search", "greedy"],
        players=2,
        matches=200,
        seed=2024,
        options={"search": {"playouts": 8, "depth": 4}},
    )
    search, greedy = _wins(summary.wins, ["search", "greedy"])
    assert search + greedy == 200
    assert search >= 120, summary.table()
