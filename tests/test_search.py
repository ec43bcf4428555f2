"""The search bot and the determinisation of what a seat cannot see."""

from __future__ import annotations

import itertools
import math
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
    Place,
    PlayerView,
    Tile,
    apply,
    legal_moves,
    new_match,
    placement_points,
    round_hand,
    view_for,
)
from american_sniff.bots import Bot, Determiniser, GreedyBot, SearchBot, winning_moves
from american_sniff.bots.search import SETTLE_WEIGHTS, playout_value, tile_voids
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
                    assert Determiniser(view, history=False).count == _brute_force_count(view), view
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


def _matches_slots(hand: Sequence[Tile], slots: Sequence[frozenset[int]]) -> bool:
    """Whether each tile of ``hand`` can go to its own slot that allows it (a matching)."""
    free = list(range(len(slots)))
    if len(hand) != len(slots):
        return False

    def fill(tiles: list[Tile]) -> bool:
        if not tiles:
            return True
        tile = tiles[0]
        for slot in list(free):
            if _allowed(tile, slots[slot]):
                free.remove(slot)
                if fill(tiles[1:]):
                    return True
                free.append(slot)
        return False

    return fill(list(hand))


@given(state=mid_match_states(max_steps=400), seat=st.integers(0, 3))
def test_tile_voids_never_exclude_a_tile_a_seat_holds(state: MatchState, seat: int) -> None:
    """Every real hidden hand fills its seat's slots, and they know the view's voids."""
    if state.is_over:
        return
    view = view_for(state, seat % state.players)
    slots = tile_voids(view)
    for other in range(state.players):
        if other == view.seat:
            assert slots[other] == ()
            continue
        assert all(known >= view.voids[other] for known in slots[other])
        assert _matches_slots(state.hands[other], slots[other]), (other, slots[other])
    assert Determiniser(view).count >= 1


def test_a_tile_kept_since_before_a_draw_keeps_its_older_voids() -> None:
    """The slots rule out deals that the seat-wide voids allow, and the samples obey them.

    Over the first rounds of some greedy matches, every deal sampled with the
    history fills each seat's slots; and in many positions a deal sampled from
    the seat-wide voids alone does not (it gives a seat a tile that it would
    have had to play before it drew).
    """
    sharper = 0
    rng = 5
    for seed in range(40):
        state = new_match(2, seed=seed)
        bot = GreedyBot()
        while state.winner is None and state.round == 1:
            view = view_for(state, state.turn)
            other = 1 - view.seat
            slots = tile_voids(view)[other]
            if any(known > view.voids[other] for known in slots):
                for history in (True, False):
                    determiniser = Determiniser(view, history=history)
                    fits = []
                    for _ in range(10):
                        world, rng = determiniser.sample(rng)
                        fits.append(_matches_slots(world.hands[other], slots))
                    if history:
                        assert all(fits)
                    else:
                        sharper += not all(fits)
            state = apply(state, bot.choose(view))
    assert sharper > 10


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


def test_a_choice_is_a_pure_function_of_the_seed_and_the_view() -> None:
    """A bot that has chosen many times chooses as a fresh one; the seed matters."""
    state = new_match(3, seed=8)
    used = SearchBot(seed=9, playouts=2)
    views: list[PlayerView] = []
    while state.winner is None and len(views) < 40:
        view = view_for(state, state.turn)
        views.append(view)
        state = apply(state, used.choose(view))
    for view in views:
        assert used.choose(view) is SearchBot(seed=9, playouts=2).choose(view)
    other = [SearchBot(seed=10, playouts=2).choose(view) for view in views]
    assert other != [used.choose(view) for view in views]


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


def test_playout_value_is_own_gain_less_the_others_mean_and_a_win_is_worth_the_same() -> None:
    """Gains are measured from the start; a won match is worth twice the target, however won."""
    start = new_match(3, seed=1)
    end = start.evolve(scores=(20, 5, -5))
    assert playout_value(start, end, 0, settle=False) == 20 - 0
    assert playout_value(start, end, 1, settle=False) == 5 - 7.5
    won = start.evolve(scores=(200, 10, 0), winner=0)
    assert playout_value(start, won, 0) == 400
    assert playout_value(start, won.evolve(scores=(235, 10, 0)), 0) == 400
    assert playout_value(start, won, 2) == -400
    four = new_match(4, seed=1)
    assert playout_value(four, four.evolve(scores=(15, 10)), 2, settle=False) == 5


def test_a_playout_cut_short_counts_the_settlement_the_hands_would_cost() -> None:
    """In a round still going, each hand's rounded pips come off its side's gain."""
    start = new_match(3, seed=1)
    end = start.evolve(scores=(20, 5, -5))
    cost = [round_hand(sum(t.pips for t in hand)) for hand in end.hands]
    assert any(cost)
    gains = [20 - cost[0], 5 - cost[1], -5 - cost[2]]
    assert playout_value(start, end, 0) == gains[0] - (gains[1] + gains[2]) / 2
    assert playout_value(start, end, 1) == gains[1] - (gains[0] + gains[2]) / 2
    four = new_match(4, seed=1)
    cost = [round_hand(sum(t.pips for t in hand)) for hand in four.hands]
    sides = [cost[0] + cost[2], cost[1] + cost[3]]
    assert playout_value(four, four, 1) == sides[0] - sides[1]
    # After the round's end, its settlement is in the scores already: nothing more counts.
    state = four
    while state.round == four.round:
        state = apply(state, legal_moves(state)[0])
    assert playout_value(four, state, 0) == playout_value(four, state, 0, settle=False)


def test_a_weighed_settlement_counts_that_share_of_the_hands_cost() -> None:
    """``settle=w`` takes ``w`` times each hand's rounded pips; the bot's weights are by players."""
    start = new_match(2, seed=4)
    end = start.evolve(scores=(30, 10))
    cost = [round_hand(sum(t.pips for t in hand)) for hand in end.hands]
    assert cost[0] != cost[1]
    for weight in (0.0, 0.25, 0.5, 1.0, 2.0):
        expected = (30 - weight * cost[0]) - (10 - weight * cost[1])
        assert playout_value(start, end, 0, settle=weight) == expected
    assert playout_value(start, end, 0, settle=True) == playout_value(start, end, 0)
    assert playout_value(start, end, 0, settle=False) == 20
    assert dict(SETTLE_WEIGHTS) == {2: 0.25, 3: 1.0, 4: 1.0}
    with pytest.raises(TypeError):
        SETTLE_WEIGHTS[2] = 1.0  # type: ignore[index]


@pytest.mark.parametrize("bad", [-0.5, math.inf, math.nan, "1", None])
def test_a_bad_settlement_weight_is_refused(bad: object) -> None:
    """A negative, infinite, NaN or non-number weight is refused with a clear message."""
    start = new_match(2, seed=4)
    with pytest.raises(ValueError, match="settle must be a finite number from 0 up"):
        playout_value(start, start, 0, settle=bad)  # type: ignore[arg-type]


def _wins(summary_wins: dict[str, int], names: Sequence[str]) -> list[int]:
    return [summary_wins[name] for name in names]


@pytest.mark.strength
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


# -- a win now is never declined -----------------------------------------------------


def _scores_of(state: MatchState, move: object) -> int:
    """What a placement scores in ``state``, by the engine (0 for anything else)."""
    if not isinstance(move, Place):
        return 0
    return placement_points(state.layout.place(move.tile, move.at).end_sum)


def _one_short(state: MatchState, points: int) -> MatchState:
    """``state`` with the mover's side ``points`` short of the target."""
    side = state.side_of(state.turn)
    scores = list(state.scores)
    scores[side] = state.target - points
    return state.evolve(scores=tuple(scores))


_WIN_BUDGETS: list[Bot] = [
    SearchBot(seed=3, playouts=1),
    SearchBot(seed=3, playouts=8),
    SearchBot(seed=3, playouts=64),
    SearchBot(seed=3, playouts=4, depth=None, rollout="random"),
    GreedyBot(),
]


@given(state=mid_match_states(), pick=st.integers(min_value=0, max_value=30))
def test_whenever_a_legal_move_wins_the_match_at_once_the_bots_play_a_winning_move(
    state: MatchState, pick: int
) -> None:
    """Put the mover just short of the target: every search budget and greedy take a win."""
    if state.winner is not None:
        return
    scoring = sorted({_scores_of(state, m) for m in legal_moves(state)} - {0})
    if not scoring:
        return
    # Short by one of the scores on offer: the moves scoring that much or more win.
    position = _one_short(state, scoring[pick % len(scoring)])
    view = view_for(position, position.turn)
    side = position.side_of(position.turn)
    wins = {m for m in view.legal_moves if apply(position, m).winner == side}
    assert wins
    assert set(winning_moves(view)) == wins
    for bot in _WIN_BUDGETS:
        assert bot.choose(view) in wins, bot


def _endgames(count: int) -> list[MatchState]:
    """Two-player positions like the issue's: the stock empty, the opponent on one tile.

    In each, one placement scores more than another, and the mover is exactly
    the best placement's points short of the target.
    """
    found: list[MatchState] = []
    greedy = GreedyBot()
    seed = 0
    while len(found) < count:
        state = new_match(2, seed=seed)
        seed += 1
        while state.winner is None and len(found) < count:
            moves = legal_moves(state)
            other = 1 - state.turn
            points = {_scores_of(state, m) for m in moves}
            if (
                state.stock_size == 0
                and len(state.hands[other]) == 1
                and max(points) > 0
                and len(points) > 1
            ):
                found.append(_one_short(state, max(points)))
                break
            state = apply(state, greedy.choose(view_for(state, state.turn)))
    return found


def test_in_endgames_like_the_issues_the_bot_plays_the_win_at_every_budget() -> None:
    """235 of 250 with the stock empty: the 15-or-more placement is played, not a smaller one."""
    for position in _endgames(6):
        view = view_for(position, position.turn)
        best = max(_scores_of(position, m) for m in view.legal_moves)
        for bot in _WIN_BUDGETS:
            move = bot.choose(view)
            assert _scores_of(position, move) == best
            assert apply(position, move).winner == position.side_of(position.turn)
