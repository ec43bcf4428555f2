"""The search bot's compiled loops (``bots._kernel``) choose exactly as the code they replaced.

The reference below is the search bot's sampling, playout and scoring code as
it was before the loops moved into :mod:`american_sniff.bots._kernel`,
written on the public functions it used (``greedy_choice``, ``Layout.place``,
``rules.settle``, ``outcome_value``, ``rng.below`` and ``rng.shuffled``). On
many random views every step of the kernel must give the same values *and the
same generator states*: so the same seed and view give the same choice in the
pure build and in the compiled one, and the strength measured before the move
still holds. CI runs this file against the compiled wheel too.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from american_sniff import (
    ALL_TILES,
    MatchState,
    Move,
    Place,
    PlayerView,
    SearchBot,
    Tile,
    apply,
    legal_moves,
    new_match,
    view_for,
)
from american_sniff.bots import Determiniser, decision_rng, winning_moves
from american_sniff.bots._kernel import greedy_pick, outcome, play_out, score_deal
from american_sniff.bots.endgame import endgame_values, outcome_value
from american_sniff.bots.greedy import greedy_choice
from american_sniff.bots.search import ENDGAME_NODES, SETTLE_WEIGHTS, playout_value, tile_voids
from american_sniff.deal import tile_index
from american_sniff.layout import Layout
from american_sniff.moves import Draw
from american_sniff.rng import below, next_u64, shuffled
from american_sniff.rules import HAND_SIZE, side_of
from american_sniff.rules import settle as settle_round
from american_sniff.state import RoundInfo
from strategies import mid_match_states

# -- the reference: the search bot's loops before the kernel --------------------------


def _reference_tile_voids(view: PlayerView) -> tuple[tuple[frozenset[int], ...], ...]:
    """``tile_voids`` as it was, on ``Layout.place`` and sets of values."""
    players = view.players
    slots: list[list[frozenset[int]]] = [
        [] if seat == view.seat else [frozenset()] * HAND_SIZE[players] for seat in range(players)
    ]
    table = Layout.empty()
    last_drew = -1
    for action in view.history:
        seat, move = action.seat, action.move
        mine = slots[seat]
        if type(move) is Place:
            if seat != view.seat and mine:
                if last_drew == seat:
                    mine.pop()
                else:
                    values = (1 << move.tile.low) | (1 << move.tile.high)
                    for index, known in enumerate(mine):
                        if not any(values >> v & 1 for v in known):
                            del mine[index]
                            break
                    else:  # pragma: no cover - a real history always finds one
                        mine.pop()
            table = table.place(move.tile, move.at)
            last_drew = -1
            continue
        if seat != view.seat:
            shown = frozenset(v for v in range(7) if table.value_mask >> v & 1)
            slots[seat] = mine = [known | shown for known in mine]
            if type(move) is Draw:
                mine.append(frozenset())
        last_drew = seat if type(move) is Draw else -1
    return tuple(tuple(seat_slots) for seat_slots in slots)


def _reference_tables(
    view: PlayerView, history: bool
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[tuple[int, ...], tuple[Tile, ...]], ...]]:
    """The determiniser's locations and groups as it made them before the kernel."""
    slots = _reference_tile_voids(view) if history else ()
    seen = {t.index for t in view.hand} | {t.index for t in view.layout.tiles}
    hidden = [t for t in ALL_TILES if t.index not in seen]
    others = tuple(s for s in range(view.players) if s != view.seat)
    kinds: list[tuple[int, frozenset[int], int]] = []
    for seat in others:
        known = slots[seat] if slots else ()
        if len(known) != view.hand_sizes[seat] or not known:
            kinds.append((seat, view.voids[seat], view.hand_sizes[seat]))
            continue
        counts: dict[frozenset[int], int] = {}
        for slot in known:
            voids = slot | view.voids[seat]
            counts[voids] = counts.get(voids, 0) + 1
        kinds.extend((seat, voids, n) for voids, n in sorted(counts.items(), key=str))
    capacities = tuple(n for _, _, n in kinds) + (view.stock_size,)
    stock = len(kinds)
    groups: dict[tuple[int, ...], list[Tile]] = {}
    for tile in hidden:
        where = tuple(
            location
            for location, (_, voids, _) in enumerate(kinds)
            if tile.low not in voids and tile.high not in voids
        ) + (stock,)
        groups.setdefault(where, []).append(tile)
    return (
        tuple(seat for seat, _, _ in kinds),
        capacities,
        tuple((where, tuple(tiles)) for where, tiles in sorted(groups.items())),
    )


def _reference_choices(
    determiniser: Determiniser,
) -> tuple[int, dict[tuple[int, tuple[int, ...]], tuple[list[tuple[int, ...]], list[int]]]]:
    """The determiniser's count and table of splits as it made them before the kernel."""
    groups = determiniser._groups
    locations = len(determiniser._capacities)
    choices: dict[tuple[int, tuple[int, ...]], tuple[list[tuple[int, ...]], list[int]]] = {}

    def splits(group: int, capacities: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        where, tiles = groups[group]
        split = [0] * locations

        def fill(position: int, left: int) -> Iterator[tuple[int, ...]]:
            location = where[position]
            if position == len(where) - 1:
                if left <= capacities[location]:
                    split[location] = left
                    yield tuple(split)
                    split[location] = 0
                return
            for amount in range(min(left, capacities[location]) + 1):
                split[location] = amount
                yield from fill(position + 1, left - amount)
            split[location] = 0

        return fill(0, len(tiles))

    def count(group: int, capacities: tuple[int, ...]) -> int:
        if group == len(groups):
            return 1 if not any(capacities) else 0
        key = (group, capacities)
        known = choices.get(key)
        if known is None:
            size = len(groups[group][1])
            found: list[tuple[int, ...]] = []
            weights: list[int] = []
            for split in splits(group, capacities):
                rest = tuple(c - k for c, k in zip(capacities, split, strict=True))
                ways = math.factorial(size)
                for amount in split:
                    ways //= math.factorial(amount)
                ways *= count(group + 1, rest)
                if ways:
                    found.append(split)
                    weights.append(ways)
            known = choices[key] = (found, weights)
        return sum(known[1])

    return count(0, determiniser._capacities), choices


def _reference_sample(determiniser: Determiniser, rng: int) -> tuple[MatchState, int]:
    """``Determiniser.sample`` as it was: the same draws, in the same order."""
    view: PlayerView = determiniser._view
    capacities = determiniser._capacities
    placed: list[list[object]] = [[] for _ in range(len(capacities))]
    for group, (_, tiles) in enumerate(determiniser._groups):
        splits, weights = determiniser._choices[(group, capacities)]
        pick, rng = below(sum(weights), rng)
        choice = 0
        while pick >= weights[choice]:
            pick -= weights[choice]
            choice += 1
        split = splits[choice]
        order, rng = shuffled(tiles, rng)
        start = 0
        for location, amount in enumerate(split):
            placed[location].extend(order[start : start + amount])
            start += amount
        capacities = tuple(c - k for c, k in zip(capacities, split, strict=True))
    stock, rng = shuffled(tuple(placed[-1]), rng)
    later, rng = next_u64(rng)
    held: list[list[object]] = [[] for _ in range(view.players)]
    for location, seat in enumerate(determiniser._others):
        held[seat].extend(placed[location])
    hands = [tuple(sorted(tiles, key=tile_index)) for tiles in held]  # type: ignore[arg-type]
    hands[view.seat] = view.hand
    info = RoundInfo(
        players=view.players,
        seed=0,
        round=view.round,
        opener=view.opener,
        deck=stock,  # type: ignore[arg-type]
        deals=(),
        rng=later,
        last_round=None,
    )
    state = MatchState(
        info,
        view.turn,
        tuple(hands),  # type: ignore[arg-type]
        view.layout,
        view.scores,
        None,
        view.drawn,
        0,
    )
    return state, rng


def _reference_play_out(
    state: MatchState, rollout: str, rng: int, depth: int | None
) -> tuple[MatchState, int]:
    """The playout as it was: a policy for every seat to the depth, or the round's end."""
    number = state.round
    left = -1 if depth is None else depth
    while left and state.winner is None and state.round == number:
        moves = legal_moves(state)
        if rollout == "greedy":
            move = greedy_choice(moves, state.layout)
        elif len(moves) == 1:
            move = moves[0]
        else:
            index, rng = below(len(moves), rng)
            move = moves[index]
        if type(move) is Place:
            left -= 1
        state = apply(state, move)
    return state, rng


def _reference_value(start: MatchState, end: MatchState, seat: int, settle: float) -> float:
    """``playout_value`` as it was, on ``rules.settle`` and ``outcome_value``.

    A settlement counted ``settle`` times (from 0 to 1) mixes the value
    without it and the value with it in full (the value is linear in it).
    """
    scores = end.scores
    if settle and end.winner is None and end.round == start.round:
        hands = [sum([t.pips for t in h]) for h in end.hands]
        _, scores = settle_round(start.players, scores, hands)
        full = outcome_value(start, end, seat, scores)
        if settle == 1:
            return full
        bare = outcome_value(start, end, seat, end.scores)
        return (1 - settle) * bare + settle * full
    return outcome_value(start, end, seat, scores)


def _reference_totals(
    view: PlayerView, bot: SearchBot, rng: int
) -> tuple[list[float], list[int], int]:
    """The totals of the bot's sampled playouts (no endgame), the generator after each deal."""
    determiniser = Determiniser(view, history=bot.history)
    moves = view.legal_moves
    totals = [0.0] * len(moves)
    states = []
    for _ in range(bot.playouts):
        world, rng = _reference_sample(determiniser, rng)
        for index, move in enumerate(moves):
            end, rng = _reference_play_out(apply(world, move), bot.rollout, rng, bot.depth)
            weight = SETTLE_WEIGHTS[view.players] if bot.settle else 0.0
            totals[index] += _reference_value(world, end, view.seat, weight)
        states.append(rng)
    return totals, states, rng


def _reference_choice(view: PlayerView, bot: SearchBot) -> Move:
    """The search bot's choice as it was, for views whose stock is not empty."""
    moves = view.legal_moves
    if len(moves) == 1:
        return moves[0]
    wins = winning_moves(view)
    if wins:
        return wins[0]
    totals, _, _ = _reference_totals(view, bot, decision_rng(bot.seed, view))
    return moves[totals.index(max(totals))]


# -- random views -------------------------------------------------------------------


#: The states :data:`VIEWS` were made from, in the same order.
_STATES: list[MatchState] = []


def _views(count: int, seed: int) -> list[PlayerView]:
    """``count`` views of the player to move with two legal moves or more, from random matches."""
    chooser = random.Random(seed)
    views: list[PlayerView] = []
    match = 0
    while len(views) < count:
        players = (2, 3, 4)[match % 3]
        state = new_match(players, seed=seed * 1000 + match)
        match += 1
        while state.winner is None and len(views) < count:
            moves = legal_moves(state)
            if len(moves) > 1 and chooser.random() < 0.15:
                views.append(view_for(state, state.turn))
                _STATES.append(state)
            state = apply(state, moves[chooser.randrange(len(moves))])
    return views


VIEWS = _views(120, 7)


def test_the_views_cover_every_number_of_players_and_both_kinds_of_stock() -> None:
    """The random views are varied enough to mean something."""
    assert {view.players for view in VIEWS} == {2, 3, 4}
    assert any(view.stock_size == 0 for view in VIEWS)
    assert sum(view.stock_size > 0 for view in VIEWS) > 60


# -- the kernel against the reference -----------------------------------------------


def test_the_tile_slots_are_the_references() -> None:
    """``tile_voids`` (now the kernel's) reads every history as before."""
    assert len(_STATES) == len(VIEWS)
    for state in _STATES:
        for seat in range(state.players):
            view = view_for(state, seat)
            assert tile_voids(view) == _reference_tile_voids(view)


@settings(max_examples=40, deadline=None)
@given(state=mid_match_states(max_steps=500), seat=st.integers(0, 3))
def test_on_any_mid_match_view_the_tile_slots_are_the_references(
    state: MatchState, seat: int
) -> None:
    """Hypothesis finds no history that the kernel reads otherwise."""
    view = view_for(state, seat % state.players)
    assert tile_voids(view) == _reference_tile_voids(view)


@pytest.mark.parametrize("history", [True, False])
def test_the_locations_and_groups_of_tiles_are_the_references(history: bool) -> None:
    """The kernel sorts the hidden tiles into the same places, in the same order."""
    for state in _STATES:
        for seat in range(state.players):
            view = view_for(state, seat)
            determiniser = Determiniser(view, history=history)
            tables = (determiniser._others, determiniser._capacities, determiniser._groups)
            assert tables == _reference_tables(view, history)


@pytest.mark.parametrize("history", [True, False])
def test_the_count_and_the_table_of_splits_are_the_references(history: bool) -> None:
    """The kernel counts the deals and lists each group's splits exactly as before."""
    for view in VIEWS:
        determiniser = Determiniser(view, history=history)
        count, choices = _reference_choices(determiniser)
        assert determiniser.count == count
        assert determiniser._choices == choices


@pytest.mark.parametrize("history", [True, False])
def test_a_sampled_deal_and_the_generator_after_it_are_the_references(history: bool) -> None:
    """``Determiniser.sample`` (now the kernel's) draws exactly what it drew before."""
    for number, view in enumerate(VIEWS):
        determiniser = Determiniser(view, history=history)
        rng = number * 0x9E3779B97F4A7C15 % 2**64
        for _ in range(3):
            world, after = determiniser.sample(rng)
            expected, expected_after = _reference_sample(determiniser, rng)
            assert world == expected
            assert world.info == expected.info
            assert after == expected_after
            rng = after


def test_the_greedy_pick_is_greedy_choice() -> None:
    """On every position of random playouts the kernel's greedy pick is ``greedy_choice``'s."""
    checked = 0
    for view in VIEWS:
        world, _ = Determiniser(view).sample(len(view.history))
        state = world
        while state.winner is None and state.round == world.round:
            moves = legal_moves(state)
            if len(moves) > 1:
                assert greedy_pick(moves, state.layout) is greedy_choice(moves, state.layout)
                # Moves that are not the engine's own objects are read, not looked up.
                copies = [Place(move.tile, move.at) for move in moves if type(move) is Place]
                assert greedy_pick(tuple(copies), state.layout) is greedy_choice(
                    copies, state.layout
                )
                checked += 1
            state = apply(state, moves[-1])
    assert checked > 500


@pytest.mark.sweep
@pytest.mark.parametrize("rollout", ["greedy", "random"])
@pytest.mark.parametrize("depth", [1, 4, None])
def test_a_playout_and_its_value_are_the_references(rollout: str, depth: int | None) -> None:
    """The kernel's playout reaches the same state with the same generator, and values it alike."""
    for number, view in enumerate(VIEWS):
        world, rng = Determiniser(view).sample(number)
        for move in view.legal_moves:
            after = apply(world, move)
            end, end_rng = play_out(after, rollout == "random", rng, -1 if depth is None else depth)
            expected, expected_rng = _reference_play_out(after, rollout, rng, depth)
            assert end == expected
            assert end_rng == expected_rng
            for settle in (True, False, 0.25, 0.5):
                value = outcome(world, end, view.seat, settle)
                assert value == _reference_value(world, end, view.seat, settle)
                assert type(value) is float
            assert playout_value(world, end, view.seat) == outcome(world, end, view.seat, True)


@pytest.mark.sweep
@pytest.mark.parametrize(
    "bot",
    [
        SearchBot(seed=11, playouts=3),
        SearchBot(seed=12, playouts=2, rollout="random"),
        SearchBot(seed=13, playouts=2, depth=None),
        SearchBot(seed=14, playouts=1, depth=1),
    ],
    ids=repr,
)
def test_the_totals_of_every_deal_are_the_references(bot: SearchBot) -> None:
    """Scoring every move on a deal adds exactly the reference's values, with its generator."""
    for view in VIEWS:
        rng = decision_rng(bot.seed, view)
        expected, states, _ = _reference_totals(view, bot, rng)
        determiniser = Determiniser(view)
        totals = [0.0] * len(view.legal_moves)
        depth = -1 if bot.depth is None else bot.depth
        for expected_rng in states:
            world, rng = determiniser.sample(rng)
            random_rollout = bot.rollout == "random"
            weight = SETTLE_WEIGHTS[view.players]
            rng = score_deal(
                world, view.legal_moves, view.seat, random_rollout, depth, weight, totals, rng
            )
            assert rng == expected_rng
        assert totals == expected


@pytest.mark.sweep
@pytest.mark.parametrize("playouts", [1, 8])
def test_the_search_bot_chooses_as_the_reference(playouts: int) -> None:
    """Whole choices (the stock not empty, so no exact endgame) are the reference's."""
    compared = 0
    for number, view in enumerate(VIEWS):
        if view.stock_size == 0 and view.players != 3:
            continue
        bot = SearchBot(seed=number, playouts=playouts)
        assert bot.choose(view) is _reference_choice(view, bot)
        compared += 1
    assert compared > 60


@settings(max_examples=40, deadline=None)
@given(state=mid_match_states(max_steps=300), seed=st.integers(0, 2**64 - 1))
def test_on_any_mid_match_view_the_choice_is_the_references(state: MatchState, seed: int) -> None:
    """Hypothesis finds no view of a stock still full where the kernel's choice differs."""
    if state.is_over or state.stock_size == 0:
        return
    view = view_for(state, state.turn)
    bot = SearchBot(seed=seed, playouts=2)
    assert bot.choose(view) is _reference_choice(view, bot)


# -- the exact endgame ------------------------------------------------------------------


class _ReferenceOut(Exception):
    """Raised inside a reference search that has spent its nodes."""


class _ReferenceSearch:
    """The endgame's alpha-beta search as it was before the kernel."""

    def __init__(self, start: MatchState, seat: int, nodes: int) -> None:
        self.start = start
        self.seat = seat
        self.mine = side_of(start.players, seat)
        self.round = start.round
        self.left = nodes
        self.table: dict[object, tuple[float, float]] = {}

    def children(self, state: MatchState) -> list[MatchState]:
        moves = legal_moves(state)
        if len(moves) > self.left:
            raise _ReferenceOut
        self.left -= len(moves)
        after = [apply(state, move) for move in moves]
        if len(after) > 1:
            mover = side_of(state.players, state.turn)
            after.sort(key=lambda child: -self.terminal_or_gain(child, mover))
        return after

    def terminal_or_gain(self, state: MatchState, side: int) -> float:
        if state.winner is not None:
            return math.inf if state.winner == side else -math.inf
        return state.scores[side]

    def value(self, state: MatchState, alpha: float, beta: float) -> float:
        if state.winner is not None or state.round != self.round:
            return outcome_value(self.start, state, self.seat)
        layout = state.layout
        key = (
            state.turn,
            state.hands,
            (layout.open_keys, layout.end_sum, layout.sniff),
            state.scores,
        )
        low, high = self.table.get(key, (-math.inf, math.inf))
        if low >= beta:
            return low
        if high <= alpha:
            return high
        if low == high:
            return low
        first_alpha, first_beta = alpha, beta
        alpha, beta = max(alpha, low), min(beta, high)
        maximise = side_of(state.players, state.turn) == self.mine
        best = -math.inf if maximise else math.inf
        for child in self.children(state):
            found = self.value(child, alpha, beta)
            if maximise:
                best = max(best, found)
                alpha = max(alpha, best)
            else:
                best = min(best, found)
                beta = min(beta, best)
            if alpha >= beta:
                break
        if best <= first_alpha:
            self.table[key] = (low, min(high, best))
        elif best >= first_beta:
            self.table[key] = (max(low, best), high)
        else:
            self.table[key] = (best, best)
        return best


def _reference_endgame(
    state: MatchState, moves: tuple[Move, ...], nodes: int
) -> tuple[list[float], int] | None:
    """``endgame_values`` as it was (without a deadline)."""
    search = _ReferenceSearch(state, state.turn, nodes)
    try:
        if len(moves) > search.left:
            raise _ReferenceOut
        search.left -= len(moves)
        values = [search.value(apply(state, move), -math.inf, math.inf) for move in moves]
    except _ReferenceOut:
        return None
    return values, nodes - search.left


def _endgames(players: int, count: int, seed: int) -> list[MatchState]:
    """Positions of random matches with the stock empty and a choice to make."""
    chooser = random.Random(seed)
    found: list[MatchState] = []
    deal = seed
    while len(found) < count:
        state = new_match(players, seed=deal)
        deal += 1
        while state.winner is None and len(found) < count:
            moves = legal_moves(state)
            if state.stock_size == 0 and len(moves) > 1 and chooser.random() < 0.5:
                found.append(state)
            state = apply(state, moves[chooser.randrange(len(moves))])
    return found


@pytest.mark.sweep
@pytest.mark.parametrize("players", [2, 4])
def test_the_exact_endgame_values_the_nodes_and_the_give_ups_are_the_references(
    players: int,
) -> None:
    """Every value, every count of nodes spent, and every search that gives up, as before."""
    outcomes = set()
    for state in _endgames(players, 40, 3 + players):
        moves = legal_moves(state)
        for nodes in (3, 40, 500, 4000):
            found = endgame_values(state, state.turn, moves, nodes)
            assert found == _reference_endgame(state, moves, nodes)
            outcomes.add(found is None)
    assert outcomes == {True, False}


@pytest.mark.parametrize("players", [2, 4])
def test_the_search_bot_chooses_as_before_with_the_stock_empty(players: int) -> None:
    """Whole choices with the stock empty (exact endgame, or playouts if it gives up)."""
    for number, state in enumerate(_endgames(players, 30, 20 + players)):
        view = view_for(state, state.turn)
        for playouts in (1, 8):
            bot = SearchBot(seed=number, playouts=playouts)
            assert bot.choose(view) is _reference_endgame_choice(view, bot)


def _reference_endgame_choice(view: PlayerView, bot: SearchBot) -> Move:
    """The search bot's choice as it was, for views with the stock empty (2 or 4 players)."""
    moves = view.legal_moves
    wins = winning_moves(view)
    if wins:
        return wins[0]
    determiniser = Determiniser(view)
    rng = decision_rng(bot.seed, view)
    left = bot.playouts * ENDGAME_NODES[view.players]
    worlds = 1 if view.players == 2 else bot.playouts
    totals = [0.0] * len(moves)
    searched = 0
    sample_rng = rng
    for _ in range(worlds):
        world, sample_rng = _reference_sample(determiniser, sample_rng)
        found = _reference_endgame(world, moves, left)
        if found is None:
            break
        values, spent = found
        left -= spent
        totals = [total + value for total, value in zip(totals, values, strict=True)]
        searched += 1
    if searched:
        return moves[totals.index(max(totals))]
    totals, _, _ = _reference_totals(view, bot, rng)
    return moves[totals.index(max(totals))]
