"""The search bot's reading of the other seats' choices (``SearchBot.infer``, ``bots._infer``).

The weights are checked against a reference written on the public API (the
past tables rebuilt with ``Layout.place`` and the hands' placements listed
with ``Layout.fits``), on a hand-made position and on random views; the
resampling and the sampled deals against what the view allows. CI runs this
file against the compiled wheel too.
"""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from american_sniff import (
    ALL_TILES,
    Deal,
    Draw,
    Layout,
    MatchState,
    Place,
    PlayerView,
    SearchBot,
    Tile,
    apply,
    legal_moves,
    new_match,
    placement_points,
    view_for,
)
from american_sniff.bots import Determiniser
from american_sniff.bots._infer import (
    DealPool,
    deal_weight,
    inferred_totals,
    pick_counts,
    view_tables,
)
from american_sniff.bots._kernel import score_deal
from strategies import mid_match_states

# -- the reference --------------------------------------------------------------------


def _exp_sum(layout: Layout, tiles: list[Tile], beta: float) -> float:
    """The sum of ``exp(beta * points)`` over every placement of ``tiles`` on ``layout``."""
    total = 0.0
    for tile in tiles:
        ats = [None] if layout.is_empty else list(layout.fits(tile))
        for at in ats:
            after = layout.place(tile) if at is None else layout.place(tile, at)
            total += math.exp(beta * placement_points(after.end_sum))
    return total


def _reference_weight(view: PlayerView, hands: tuple[tuple[Tile, ...], ...], beta: float) -> float:
    """The model's chance of the other seats' choices read since their draws, given ``hands``."""
    history = view.history
    weight = 1.0
    for seat in range(view.players):
        if seat == view.seat:
            continue
        # The seat's placements since its last draw, not right after it.
        start = 0
        for position, action in enumerate(history):
            if action.seat == seat and type(action.move) is Draw:
                start = position + 1
        table = Layout.empty()
        for action in history[:start]:
            move = action.move
            if type(move) is Place:
                table = table.place(move.tile, move.at)
        drew_just_before = start > 0
        for position in range(start, len(history)):
            action = history[position]
            move = action.move
            if type(move) is not Place:
                drew_just_before = False
                continue
            if action.seat == seat and not drew_just_before:
                later = [
                    a.move.tile
                    for a in history[position:]
                    if a.seat == seat and type(a.move) is Place
                ]
                chosen = table.place(move.tile, move.at)
                top = math.exp(beta * placement_points(chosen.end_sum))
                weight *= top / _exp_sum(table, [*hands[seat], *later], beta)
            drew_just_before = False
            table = table.place(move.tile, move.at)
    return weight


def _world(view: PlayerView, hands: tuple[tuple[Tile, ...], ...]) -> MatchState:
    """A state of ``view``'s moment with the given hands (a determinisation's shape)."""
    world, _ = Determiniser(view).sample(1)
    return MatchState(world.info, view.turn, hands, view.layout, view.scores, None, view.drawn, 0)


# -- a hand-made position: a seat that passed up 10 points ------------------------------

T = {(tile.low, tile.high): tile for tile in ALL_TILES}


def _passed_up_ten() -> PlayerView:
    """Seat 0 opens [5|5] (10 points); seat 1 places [1|5] for 0 while it holds [0|5] (10)."""
    hand0 = (T[5, 5], T[1, 1], T[2, 2], T[3, 3], T[4, 4], T[6, 6], T[0, 0])
    hand1 = (T[0, 5], T[1, 5], T[1, 2], T[1, 3], T[2, 3], T[2, 4], T[3, 4])
    shown = set(hand0) | set(hand1)
    stock = tuple(tile for tile in ALL_TILES if tile not in shown)
    state = new_match(2, seed=3, deals=[Deal(hands=(hand0, hand1), stock=stock, opener=0)])
    assert state.turn == 0
    state = apply(state, Place(T[5, 5]))
    passed_up = [m for m in legal_moves(state) if type(m) is Place and m.tile == T[0, 5]]
    assert placement_points(state.layout.place(T[0, 5], passed_up[0].at).end_sum) == 10
    chosen = next(m for m in legal_moves(state) if type(m) is Place and m.tile == T[1, 5])
    state = apply(state, chosen)
    assert state.turn == 0
    return view_for(state, 0)


@pytest.mark.parametrize("beta", [0.0, 0.18, 0.5])
def test_a_seat_that_passed_up_ten_points_weighs_the_scoring_tile_down(beta: float) -> None:
    """Deals giving the seat the 10-point tile it did not play weigh less, as the model says."""
    view = _passed_up_ten()
    tables = view_tables(view, view.history, beta)
    assert tables[0] == [1]  # one choice read: seat 1's
    theirs = (T[0, 5], T[1, 2], T[1, 3], T[2, 3], T[2, 4], T[3, 4])
    without = (T[0, 6], T[1, 2], T[1, 3], T[2, 3], T[2, 4], T[3, 4])
    weights = []
    for hand in (theirs, without):
        hands = (view.hand, hand)
        weight = deal_weight(_world(view, hands), tables)
        assert weight == pytest.approx(_reference_weight(view, hands, beta), rel=1e-12)
        weights.append(weight)
    # [1|5] has two placements on the lone [5|5] (for 0 points), [0|5] two
    # worth 10; [0|6] and the others do not fit it.
    assert weights[1] == pytest.approx(1 / 2)
    assert weights[0] == pytest.approx(1 / (2 + 2 * math.exp(10 * beta)))
    if beta > 0:
        assert weights[0] < weights[1] / 2


def test_only_the_other_seats_choices_since_their_draws_are_read() -> None:
    """The view's own seat's choices are never read; the other seats' are."""
    view = _passed_up_ten()
    # Seen from seat 0: its own opening is not read, seat 1's placement is.
    assert view_tables(view, view.history[:1], 0.2)[0] == []
    assert view_tables(view, view.history, 0.2)[0] == [1]
    # Seen from seat 1 after the opening: seat 0's opening is read.
    seat1 = view_for(_after_the_opening(), 1)
    assert view_tables(seat1, seat1.history, 0.2)[0] == [0]


def _after_the_opening() -> MatchState:
    """The position of :func:`_passed_up_ten` before seat 1 places."""
    hand0 = (T[5, 5], T[1, 1], T[2, 2], T[3, 3], T[4, 4], T[6, 6], T[0, 0])
    hand1 = (T[0, 5], T[1, 5], T[1, 2], T[1, 3], T[2, 3], T[2, 4], T[3, 4])
    shown = set(hand0) | set(hand1)
    stock = tuple(tile for tile in ALL_TILES if tile not in shown)
    state = new_match(2, seed=3, deals=[Deal(hands=(hand0, hand1), stock=stock, opener=0)])
    return apply(state, Place(T[5, 5]))


# -- random views -----------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.data(), st.sampled_from([0.0, 0.1, 0.18, 0.7]))
def test_the_weight_of_a_deal_is_the_models_chance_of_the_choices(
    data: st.DataObject, beta: float
) -> None:
    """On random views a deal's weight is the reference's chance of the choices."""
    state = data.draw(mid_match_states(max_steps=120))
    if state.winner is not None:
        return
    view = view_for(state, state.turn)
    tables = view_tables(view, view.history, beta)
    # The true hands, then some sampled ones.
    worlds = [state]
    determiniser = Determiniser(view)
    rng = 5
    for _ in range(3):
        world, rng = determiniser.sample(rng)
        worlds.append(world)
    for world in worlds:
        expected = _reference_weight(view, world.hands, beta)
        assert deal_weight(world, tables) == pytest.approx(expected, rel=1e-9)
        assert 0 < deal_weight(world, tables) <= 1


def _agrees(view: PlayerView, world: MatchState) -> bool:
    """Whether ``world`` is a deal that ``view`` allows (hands, sizes, voids, unseen tiles)."""
    if world.hands[view.seat] != view.hand or world.layout != view.layout:
        return False
    seen: set[Tile] = set(view.layout.tiles) | set(view.hand)
    held: list[Tile] = []
    for seat, hand in enumerate(world.hands):
        if len(hand) != view.hand_sizes[seat]:
            return False
        if seat != view.seat:
            held.extend(hand)
            if any(tile.low in view.voids[seat] or tile.high in view.voids[seat] for tile in hand):
                return False
    if seen & set(held) or len(set(held)) != len(held):
        return False
    return len(held) + world.stock_size == len(ALL_TILES) - len(seen)


def _pool(view: PlayerView) -> DealPool:
    """The search bot's pool of deals for ``view``."""
    d = Determiniser(view)
    return DealPool(view, d._groups, d._choices, d._capacities, d._others)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_the_pool_holds_only_deals_the_view_allows(data: st.DataObject) -> None:
    """The pool draws as the determiniser does; its deals agree with the view, weighed right."""
    state = data.draw(mid_match_states(max_steps=120))
    if state.winner is not None:
        return
    view = view_for(state, state.turn)
    determiniser = Determiniser(view)
    deals = _pool(view)
    tables = view_tables(view, view.history, 0.18)
    rng = pool_rng = 9
    for _ in range(6):
        tiles, pool_rng = deals.tiles(pool_rng)
        world, pool_rng = deals.state(tiles, pool_rng)
        expected, rng = determiniser.sample(rng)
        assert (world.hands, world.info.deck, world.info.rng) == (
            expected.hands,
            expected.info.deck,
            expected.info.rng,
        )
        assert pool_rng == rng
        assert _agrees(view, world)
        assert deals.weight(tiles, tables) == pytest.approx(deal_weight(world, tables), rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_without_a_larger_pool_every_deal_counts_by_its_weight(data: st.DataObject) -> None:
    """With a pool of one deal per playout, the totals are the weighted sum of the playouts."""
    state = data.draw(mid_match_states(max_steps=120))
    if state.winner is not None:
        return
    view = view_for(state, state.turn)
    moves = view.legal_moves
    deals = _pool(view)
    tables = view_tables(view, view.history, 0.3)
    totals = [0.0] * len(moves)
    inferred_totals(tables, deals, moves, view.seat, 5, 5, False, 4, True, totals, 9)
    expected = [0.0] * len(moves)
    worlds = []
    weights = []
    rng = 9
    if tables[0]:  # the pool's tiles first, then the states
        pooled = []
        for _ in range(5):
            tiles, rng = deals.tiles(rng)
            pooled.append(tiles)
            weights.append(deals.weight(tiles, tables))
        for tiles in pooled:
            world, rng = deals.state(tiles, rng)
            worlds.append(world)
    else:  # nothing to read: deal by deal, unweighted
        for _ in range(5):
            tiles, rng = deals.tiles(rng)
            world, rng = deals.state(tiles, rng)
            worlds.append(world)
            weights.append(1.0)
    for world, weight in zip(worlds, weights, strict=True):
        part = [0.0] * len(moves)
        score_deal(world, moves, view.seat, False, 4, True, part, 0)
        for index, value in enumerate(part):
            expected[index] += 5 * weight / sum(weights) * value
    assert totals == pytest.approx(expected, rel=1e-9, abs=1e-9)


# -- resampling ----------------------------------------------------------------------------


@given(
    st.lists(st.floats(min_value=0, max_value=1e6), min_size=1, max_size=40),
    st.integers(min_value=1, max_value=64),
    st.integers(min_value=0, max_value=2**64 - 1),
)
def test_systematic_resampling_gives_each_deal_its_share(
    weights: list[float], count: int, rng: int
) -> None:
    """Each deal gets its share of the picks, rounded; a deal of weight 0 gets none."""
    counts, after = pick_counts(weights, count, rng)
    assert len(counts) == len(weights)
    assert sum(counts) == count
    assert after != rng
    total = sum(weights)
    if total > 0:
        for weight, picks in zip(weights, counts, strict=True):
            if weight == 0:
                assert picks == 0
            share = weight * count / total
            assert math.floor(share) - 1 <= picks <= math.ceil(share) + 1
    else:
        assert max(counts) - min(counts) <= 1


def test_a_heavy_deal_takes_the_picks() -> None:
    """The picks follow the weights on a fixed case."""
    counts, _ = pick_counts([1e-9, 1.0, 1e-9, 3.0], 8, 77)
    assert counts == [0, 2, 0, 6]


# -- the bot -----------------------------------------------------------------------------


def _views(players: int, count: int) -> list[PlayerView]:
    """Views with a choice to make, from matches of random moves."""
    chooser = random.Random(players)
    views: list[PlayerView] = []
    seed = 0
    while len(views) < count:
        seed += 1
        state = new_match(players, seed=seed)
        for _ in range(chooser.randrange(4, 60)):
            if state.winner is not None:
                break
            state = apply(state, chooser.choice(legal_moves(state)))
        if state.winner is None and len(legal_moves(state)) > 1:
            views.append(view_for(state, state.turn))
    return views


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_same_seed_gives_the_same_choice(players: int) -> None:
    """A choice with inference is a pure function of the bot's fields and the view."""
    for view in _views(players, 12):
        bot = SearchBot(seed=11, playouts=6, infer=0.18)
        first = bot.choose(view)
        assert first in view.legal_moves
        assert bot.choose(view) == first
        assert eval(repr(bot), {"SearchBot": SearchBot}).choose(view) == first
        assert SearchBot(seed=11, playouts=6, infer=0.18).choose(view) == first


@pytest.mark.sweep
def test_the_choice_uses_the_weights() -> None:
    """Reading the choices changes some choices: the weights are used."""
    # Somewhere among many views, reading the choices must change a choice.
    views = _views(2, 80) + _views(4, 80)
    plain = [SearchBot(seed=2, playouts=8).choose(view) for view in views]
    read = [SearchBot(seed=2, playouts=8, infer=0.5).choose(view) for view in views]
    assert plain != read


def test_the_time_budget_also_reads_the_choices() -> None:
    """With a time budget the bot reads the choices too and returns a legal move."""
    view = _passed_up_ten()
    move = SearchBot(seed=1, seconds=0.005, infer=0.18).choose(view)
    assert move in view.legal_moves


def test_the_repr_shows_infer_only_when_set() -> None:
    """The repr is the call that makes the bot again, with infer only when set."""
    assert "infer" not in repr(SearchBot(seed=1))
    bot = SearchBot(seed=1, playouts=4, infer=0.25)
    assert repr(bot).endswith("depth=4, infer=0.25)")
    again = eval(repr(bot), {"SearchBot": SearchBot})
    assert (again.seed, again.playouts, again.infer) == (1, 4, 0.25)
    assert repr(again) == repr(bot)


@pytest.mark.parametrize("bad", [-0.1, math.inf, math.nan, "0.2", True, [0.1]])
def test_a_bad_infer_is_refused(bad: object) -> None:
    """A negative, infinite, NaN or non-number beta is refused with a clear message."""
    with pytest.raises(ValueError, match="infer must be a number from 0 up, or None"):
        SearchBot(infer=bad)  # type: ignore[arg-type]
