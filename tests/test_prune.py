"""The search bot's pruning: moves clearly behind leave the search, and the choice ends early.

The reference below is written apart from the bot's loop, on the public
determiniser and the kernel's playout scoring: deals one at a time, every
move still in the race scored on each, and after every 8 deals a paired
comparison of each move with the leader, computed here in plain floats. The
bot's choices must be the reference's on many random views, with and without
reading the other seats' choices.
"""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from american_sniff import (
    MatchState,
    Move,
    PlayerView,
    SearchBot,
    apply,
    legal_moves,
    new_match,
    view_for,
)
from american_sniff.bots import LEVELS, Determiniser, decision_rng, winning_moves
from american_sniff.bots import search as search_module
from american_sniff.bots._infer import DealPool, inferred_deals, play_deals, view_tables
from american_sniff.bots._kernel import racing, score_deal
from american_sniff.bots.search import SETTLE_WEIGHTS
from strategies import mid_match_states

# -- the race itself -------------------------------------------------------------------


def _race(rows: list[list[float]], prune: float, weights: list[float] | None = None) -> list[int]:
    """``racing`` over every move, with ``rows`` given deal by deal (one list per deal)."""
    by_move = [list(column) for column in zip(*rows, strict=True)]
    weights = [1.0] * len(rows) if weights is None else weights
    totals = [sum(w * v for w, v in zip(weights, values, strict=True)) for values in by_move]
    return racing(by_move, weights, list(range(len(by_move))), totals, prune)


def test_a_move_behind_on_every_deal_alike_leaves_and_the_leader_stays() -> None:
    """A constant deficit has no spread: the move is surely behind, whatever ``prune``."""
    rows = [[10.0, 7.0, 12.0], [-4.0, -7.0, -2.0], [3.0, 0.0, 5.0]]
    assert _race(rows, 1000.0) == [2]


def test_a_move_level_on_every_deal_leaves_and_the_first_of_two_equals_stays() -> None:
    """Two moves that did the same on every deal: a tie goes to the first, so the other leaves."""
    rows = [[1.0, 5.0, 5.0], [2.0, -3.0, -3.0], [0.0, 8.0, 8.0]]
    assert _race(rows, 3.0) == [0, 1]


def test_a_deficit_leaves_only_beyond_prune_standard_errors() -> None:
    """The leader's lead over move 1 is 1, 3, 1, 3 (mean 2, standard error 1/sqrt(3))."""
    rows = [[1.0, 0.0], [3.0, 0.0], [1.0, 0.0], [3.0, 0.0]]
    threshold = 2 / (1 / math.sqrt(3))  # the mean's z: 3.46...
    assert _race(rows, threshold * 1.001) == [0, 1]
    assert _race(rows, threshold * 0.999) == [0]


def test_the_order_of_the_moves_is_kept_and_the_leader_can_be_any() -> None:
    """The moves left come in their first order; the leader is the best total."""
    rows = [[0.0, 5.0, 1.0, 4.0], [0.0, 6.0, 2.0, 7.0], [0.0, 4.0, 0.0, 6.0]]
    assert _race(rows, 1.0) == [1, 3]
    assert _race(rows, 100.0) == [0, 1, 2, 3]


def test_one_deal_or_less_keeps_every_move() -> None:
    """With a total weight of 1 or less nothing is known of the spread: nobody leaves."""
    assert _race([[3.0, 1.0, 3.0]], 2.5) == [0, 1, 2]
    assert _race([[3.0, 1.0], [3.0, 1.0]], 2.5, [0.3, 0.4]) == [0, 1]
    assert racing([[], []], [], [0, 1], [0.0, 0.0], 2.5) == [0, 1]


def test_fractional_weights_weigh_the_mean_and_the_spread() -> None:
    """Weights 0.5 and 1.5 count the deals by those amounts in the mean and the spread."""
    rows = [[4.0, 0.0], [1.0, 0.0]]  # leads 4 and 1, weighted mean (2 + 1.5) / 2 = 1.75
    weights = [0.5, 1.5]
    mean = 1.75
    spread = 0.5 * (4 - mean) ** 2 + 1.5 * (1 - mean) ** 2
    z = mean / math.sqrt(spread / (2.0 - 1.0) / 2.0)
    assert _race(rows, z * 1.001, weights) == [0, 1]
    assert _race(rows, z * 0.999, weights) == [0]


def test_weights_count_as_repeated_deals() -> None:
    """A deal of weight 2 counts as the same deal played twice."""
    rows = [[1.0, 0.5, 0.0], [3.0, 3.5, 2.0], [2.0, 0.0, 2.5]]
    for prune in (0.5, 1.0, 2.0, 4.0):
        twice = _race([rows[0], rows[0], rows[1], rows[2], rows[2], rows[2]], prune)
        assert _race(rows, prune, [2.0, 1.0, 3.0]) == twice


# -- the bot against a reference ---------------------------------------------------------


def _reference_racing(rows: list[list[float]], alive: list[int], prune: float) -> list[int]:
    """The race, in plain floats: a deal's rows are its values of every move left then."""
    totals = {index: sum(row[index] for row in rows) for index in alive}
    leader = max(alive, key=lambda index: (totals[index], -index))
    kept = []
    for index in alive:
        gaps = [row[leader] - row[index] for row in rows]
        count = len(gaps)
        mean = sum(gaps) / count
        spread = sum((gap - mean) ** 2 for gap in gaps)
        if index != leader:
            if spread == 0.0 and mean >= 0.0:
                continue
            if spread and mean > prune * math.sqrt(spread / (count - 1) / count):
                continue
        kept.append(index)
    return kept


def _reference_choice(view: PlayerView, bot: SearchBot) -> Move:
    """The pruning bot's choice for a view whose stock is not empty, without reading."""
    random_rollout = bot.rollout == "random"
    depth = -1 if bot.depth is None else bot.depth
    assert bot.prune is not None
    moves = view.legal_moves
    if len(moves) == 1:
        return moves[0]
    wins = winning_moves(view)
    if wins:
        return wins[0]
    determiniser = Determiniser(view)
    rng = decision_rng(bot.seed, view)
    alive = list(range(len(moves)))
    weight = SETTLE_WEIGHTS[view.players]
    rows: list[list[float]] = []
    for played in range(1, bot.playouts + 1):
        world, rng = determiniser.sample(rng)
        part = [0.0] * len(alive)
        rng = score_deal(
            world,
            tuple(moves[i] for i in alive),
            view.seat,
            random_rollout,
            depth,
            weight,
            part,
            rng,
        )
        row = [math.nan] * len(moves)
        for position, index in enumerate(alive):
            row[index] = part[position]
        rows.append(row)
        if played % 8 == 0 and played < bot.playouts:
            alive = _reference_racing(rows, alive, bot.prune)
            if len(alive) == 1:
                break
    totals = {index: sum(row[index] for row in rows) for index in alive}
    return moves[max(alive, key=lambda index: (totals[index], -index))]


def _views(count: int, seed: int) -> list[PlayerView]:
    """Views with a choice to make and stock left, from matches of random moves."""
    chooser = random.Random(seed)
    views: list[PlayerView] = []
    match = 0
    while len(views) < count:
        state = new_match((2, 3, 4)[match % 3], seed=seed * 100 + match)
        match += 1
        while state.winner is None and len(views) < count:
            moves = legal_moves(state)
            if len(moves) > 1 and state.stock_size and chooser.random() < 0.2:
                views.append(view_for(state, state.turn))
            state = apply(state, moves[chooser.randrange(len(moves))])
    return views


VIEWS = _views(60, 3)


@pytest.mark.parametrize(
    ("playouts", "prune", "options"),
    [
        (24, 1.0, {}),
        (40, 2.5, {}),
        (20, 4.0, {}),
        (19, 1.0, {"rollout": "random"}),
        (17, 1.0, {"depth": None}),
    ],
)
@pytest.mark.sweep
def test_the_pruning_bot_chooses_as_the_reference(
    playouts: int, prune: float, options: dict[str, Any]
) -> None:
    """Whole choices with pruning are the reference's, on views of 2, 3 and 4 players."""
    for number, view in enumerate(VIEWS):
        bot = SearchBot(seed=number, playouts=playouts, prune=prune, **options)
        assert bot.choose(view) is _reference_choice(view, bot)


@settings(max_examples=30, deadline=None)
@given(state=mid_match_states(max_steps=300), seed=st.integers(0, 2**64 - 1))
def test_on_any_mid_match_view_the_pruned_choice_is_the_references(
    state: MatchState, seed: int
) -> None:
    """Hypothesis finds no view with stock left where the pruned choice differs."""
    if state.is_over or state.stock_size == 0:
        return
    view = view_for(state, state.turn)
    bot = SearchBot(seed=seed, playouts=17, prune=1.5)
    assert bot.choose(view) is _reference_choice(view, bot)


def _reference_reading_choice(view: PlayerView, bot: SearchBot) -> Move:
    """The choice with pruning and reading: resampled pools of 8 playouts, raced after each."""
    assert bot.prune is not None
    assert bot.infer is not None
    moves = view.legal_moves
    determiniser = Determiniser(view)
    pool = DealPool(
        view, determiniser._groups, determiniser._choices, determiniser._capacities,
        determiniser._others,
    )  # fmt: skip
    tables = view_tables(view, view.history, bot.infer)
    rng = decision_rng(bot.seed, view)
    alive = list(range(len(moves)))
    rows: list[list[float]] = []
    spent = 0
    while spent < bot.playouts:
        size = min(8, bot.playouts - spent)
        played, factors, rng = inferred_deals(tables, pool, size, size * bot.infer_pool, rng)
        for tiles, factor in zip(played, factors, strict=True):
            world, rng = pool.state(tiles, rng)
            part = [0.0] * len(alive)
            trying = tuple(moves[i] for i in alive)
            rng = score_deal(
                world, trying, view.seat, False, 4, SETTLE_WEIGHTS[view.players], part, rng
            )
            row = [math.nan] * len(moves)
            for position, index in enumerate(alive):
                row[index] = part[position]
            # Integer factors (resampled picks) count as repeated deals.
            assert factor == int(factor)
            rows.extend([row] * int(factor))
        spent += size
        if spent < bot.playouts:
            alive = _reference_racing(rows, alive, bot.prune)
            if len(alive) == 1:
                break
    totals = {index: sum(row[index] for row in rows) for index in alive}
    return moves[max(alive, key=lambda index: (totals[index], -index))]


@pytest.mark.sweep
@pytest.mark.parametrize("playouts", [40, 21])
def test_with_reading_the_pools_are_raced_eight_playouts_at_a_time(playouts: int) -> None:
    """With ``infer``, each pool of 8 resampled playouts is played, then the race is looked at."""
    compared = 0
    for number, view in enumerate(VIEWS):
        if winning_moves(view) or not view_tables(view, view.history, 0.1)[0]:
            continue
        bot = SearchBot(seed=number, playouts=playouts, prune=1.0, infer=0.1)
        expected = _reference_reading_choice(view, bot)
        assert bot.choose(view) is expected
        compared += 1
    assert compared > 20


def test_with_nothing_to_read_pruning_chooses_as_without_reading() -> None:
    """Where no other seat has placed by choice since its draws, ``infer`` changes nothing."""
    compared = 0
    for number, view in enumerate(VIEWS):
        if view_tables(view, view.history, 0.1)[0]:
            continue
        reading = SearchBot(seed=number, playouts=24, prune=2.0, infer=0.1)
        assert reading.choose(view) is SearchBot(seed=number, playouts=24, prune=2.0).choose(view)
        compared += 1
    assert compared > 5


# -- what it saves, and the field ---------------------------------------------------------


def _deals_played(bot: SearchBot, view: PlayerView, monkeypatch: pytest.MonkeyPatch) -> int:
    """How many deals the bot plays out for ``view``."""
    played = 0

    def counting(*args: Any) -> int:
        nonlocal played
        # play_deals(pool, played, factors, count, ...): the deals given, or ``count`` fresh.
        played += args[3] if args[1] is None else len(args[1])
        rng: int = play_deals(*args)
        return rng

    monkeypatch.setattr(search_module, "play_deals", counting)
    bot.choose(view)
    monkeypatch.undo()
    return played


@pytest.mark.sweep
def test_a_clear_choice_ends_early_and_no_choice_plays_more_than_the_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Pruning plays at most the budget, and far less on most views; without it, all of it."""
    pruned = [
        _deals_played(SearchBot(seed=1, playouts=64, prune=3.0), v, monkeypatch) for v in VIEWS
    ]
    full = [_deals_played(SearchBot(seed=1, playouts=64), v, monkeypatch) for v in VIEWS]
    assert all(count <= 64 for count in pruned)
    assert all(
        count == 64 for count, view in zip(full, VIEWS, strict=True) if not winning_moves(view)
    )
    assert sum(pruned) < 0.8 * sum(full)
    assert any(count == 8 for count in pruned)


def test_a_time_budget_prunes_too() -> None:
    """With a time budget the pruning bot returns a legal move, and is done early on clear views."""
    for view in VIEWS[:10]:
        assert SearchBot(seed=2, seconds=0.002, prune=2.0).choose(view) in view.legal_moves
        assert (
            SearchBot(seed=2, seconds=0.002, prune=2.0, infer=0.1).choose(view) in view.legal_moves
        )


def test_the_same_seed_gives_the_same_pruned_choice() -> None:
    """A pruned choice is a pure function of the bot's fields and the view."""
    for view in VIEWS[:20]:
        bot = SearchBot(seed=5, playouts=24, prune=2.0, infer=0.1)
        first = bot.choose(view)
        assert eval(repr(bot), {"SearchBot": SearchBot}).choose(view) is first
        assert bot.choose(view) is first


def test_the_repr_shows_prune_only_when_set() -> None:
    """The repr is the call that makes the bot again, with prune only when set."""
    assert "prune" not in repr(SearchBot(seed=1))
    bot = SearchBot(seed=1, playouts=64, prune=2.5)
    assert repr(bot).endswith("depth=4, prune=2.5)")
    assert repr(eval(repr(bot), {"SearchBot": SearchBot})) == repr(bot)


@pytest.mark.parametrize("bad", [0, -1.0, math.inf, math.nan, "3", True, [2.0]])
def test_a_bad_prune_is_refused(bad: object) -> None:
    """Zero, negative, infinite, NaN or non-number z is refused with a clear message."""
    with pytest.raises(ValueError, match="prune must be a positive finite number, or None"):
        SearchBot(prune=bad)  # type: ignore[arg-type]


def test_the_expert_level_prunes() -> None:
    """The strong level is 64 playouts with pruning and reading choices."""
    assert dict(LEVELS["expert"]) == {"playouts": 64, "infer": 0.1, "prune": 2.5}
    assert all("prune" not in options for name, options in LEVELS.items() if name != "expert")
