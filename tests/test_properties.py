"""Property tests: random matches of 2, 3 and 4 players against the rules.

Each test plays random legal moves (chosen by a ``random.Random`` seeded by
Hypothesis) and checks one property of the rules at every action, against
the plain oracles in :mod:`strategies`.
"""

from __future__ import annotations

import contextlib
import random
from typing import cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from american_sniff import (
    ALL_TILES,
    Draw,
    IllegalMove,
    Layout,
    MatchState,
    Move,
    Pass,
    Place,
    Point,
    Side,
    Tile,
    apply,
    legal_moves,
    new_match,
    score_of,
)
from reference import (
    HAND_SIZE,
    TARGETS,
    check_layout,
    check_score_change,
    check_state,
    check_transition,
    expected_legal_moves,
    point_key,
    refuse,
    side_of,
    snapshot,
    tiles_accounted_for,
)
from scenarios import last
from strategies import (
    any_moves,
    layouts,
    matches,
    mid_match_states,
    player_counts,
    points,
    seeds,
    tiles,
    walk,
)

choice_seeds = st.integers(min_value=0, max_value=2**32 - 1)

#: No match may take this many actions: each round has at most 28 placements
#: and 28 draws, and rounds end in a few dozen actions.
ACTION_LIMIT = 20_000


def full_match(players: int, seed: int, choices: int) -> list[tuple[MatchState, Move, MatchState]]:
    """Every action of one random match, played to its end."""
    actions = list(walk(new_match(players, seed=seed), random.Random(choices), ACTION_LIMIT))
    assert actions, "a match has at least one action"
    assert actions[-1][2].is_over, f"no winner after {ACTION_LIMIT} actions"
    return actions


def rebuilt(move: Move) -> Move:
    """A move equal to ``move`` made of new objects (tiles written high half first)."""
    if isinstance(move, Place):
        tile = Tile(move.tile.high, move.tile.low)
        if move.at is None:
            return Place(tile)
        at_tile = Tile(move.at.tile.high, move.at.tile.low)
        return Place(tile, Point(at_tile, Side(move.at.side.value)))
    return Draw() if isinstance(move, Draw) else Pass()


# -- dealing -------------------------------------------------------------------


@given(matches())
def test_a_match_starts_with_full_hands_and_no_score(state: MatchState) -> None:
    """A new match deals 7/6/5 tiles a hand, the rest to the stock, and the opener places."""
    players = state.players
    assert [len(hand) for hand in state.hands] == [HAND_SIZE[players]] * players
    assert state.stock_size == 28 - players * HAND_SIZE[players]
    assert state.round == 1
    assert state.layout.tiles == ()
    assert state.scores == (0,) * (2 if players == 4 else players)
    assert state.winner is None
    assert state.drawn is None
    assert state.last_action is None
    assert state.history == ()
    assert state.target == TARGETS[players]
    assert 0 <= state.turn < players
    assert state.turn == state.info.opener
    assert set(legal_moves(state)) == {Place(tile) for tile in state.hands[state.turn]}
    check_state(state)


@given(player_counts(), seeds(), choice_seeds)
def test_hand_sizes_and_the_stock_shrinks_only_from_the_front_by_draws(
    players: int, seed: int, choices: int
) -> None:
    """Every round starts with 7/6/5 tiles a hand; only a draw takes a tile, the front one."""
    rounds_started = 1
    for before, move, after in full_match(players, seed, choices):
        if after.round != before.round:
            rounds_started += 1
            assert [len(h) for h in after.hands] == [HAND_SIZE[players]] * players
            assert after.stock_size == 28 - players * HAND_SIZE[players]
            assert after.drawn_count == 0
            continue
        if isinstance(move, Draw):
            assert after.stock == before.stock[1:]
            drawn = before.stock[0]
            assert drawn in after.hands[before.turn]
            assert len(after.hands[before.turn]) == len(before.hands[before.turn]) + 1
        else:
            assert after.stock == before.stock
        assert after.info.deck == before.info.deck
    assert rounds_started == after.round


# -- the 28 tiles --------------------------------------------------------------


@pytest.mark.sweep
@given(player_counts(), seeds(), choice_seeds)
def test_all_28_tiles_are_accounted_for_after_every_action(
    players: int, seed: int, choices: int
) -> None:
    """Hands, stock and table hold each tile exactly once, across round changes too."""
    for before, move, after in full_match(players, seed, choices):
        tiles_accounted_for(before)
        tiles_accounted_for(after)
        if after.round != before.round:
            # The finished round, as revealed at settlement, held all 28 too.
            result = after.last_round
            assert result is not None
            left = before.stock[1:] if isinstance(move, Draw) else before.stock
            held = [t for hand in result.hands for t in hand] + list(result.layout.tiles)
            assert sorted([*held, *left]) == list(ALL_TILES)


# -- scores --------------------------------------------------------------------


@given(player_counts(), seeds(), choice_seeds)
def test_scores_change_only_by_scoring_placements_and_settlements(
    players: int, seed: int, choices: int
) -> None:
    """Scores change only by scoring placements and by settlements.

    A placement adds ``placement_points`` of the table right after it to the
    placer's side only; a settlement takes each seat's rounded hand (each
    hand on its own) from that seat's side; nothing else moves a score.
    """
    for before, move, after in full_match(players, seed, choices):
        check_score_change(before, move, after)
        if isinstance(move, Place) and after.round == before.round:
            changed = [
                i
                for i, (a, b) in enumerate(zip(before.scores, after.scores, strict=True))
                if a != b
            ]
            assert changed == ([side_of(players, before.turn)] if last(after).points else [])


@given(mid_match_states())
def test_score_of_reads_the_seat_side(state: MatchState) -> None:
    """``score_of`` gives a seat its own score, or its partnership's with four players."""
    for seat in range(state.players):
        assert score_of(state, seat) == state.scores[side_of(state.players, seat)]
    if state.players == 4:
        assert score_of(state, 0) == score_of(state, 2)
        assert score_of(state, 1) == score_of(state, 3)


# -- apply is pure -------------------------------------------------------------


@pytest.mark.sweep
@given(mid_match_states(), st.lists(any_moves(), max_size=10), choice_seeds)
def test_apply_never_changes_its_input(
    state: MatchState, tries: list[object], choices: int
) -> None:
    """Neither a legal nor a refused move changes the state, nor its cached legal moves."""
    legal = legal_moves(state)
    kept = list(legal)
    before = snapshot(state)
    candidates: list[object] = [*tries, *(random.Random(choices).sample(legal, min(3, len(legal))))]
    for move in candidates:
        with contextlib.suppress(IllegalMove):
            apply(state, cast(Move, move))  # junk is tried on purpose
        assert snapshot(state) == before
        assert legal_moves(state) is legal
        assert list(legal) == kept


# -- legal and illegal moves -----------------------------------------------------


@given(mid_match_states(), st.lists(any_moves(), min_size=1, max_size=25))
def test_legal_moves_are_accepted_and_every_other_move_is_refused(
    state: MatchState, tries: list[object]
) -> None:
    """Each legal move applies; anything else raises IllegalMove and changes nothing.

    The moves are tried first before the state's legal moves were ever listed
    (``apply`` checks them itself), then again once they are listed and cached.
    """
    tries = [*tries, Draw(), Pass()]  # must-draw and must-pass states are common enough
    expected = expected_legal_moves(state)  # the oracle leaves the cache alone
    for attempt in tries:
        if attempt in expected:
            check_transition(state, attempt, apply(state, attempt))
        else:
            refuse(state, attempt, listed=False)
    legal = legal_moves(state)
    assert set(legal) == expected
    for move in legal:
        check_transition(state, move, apply(state, move))
    for attempt in tries:
        if attempt in legal:  # narrows `attempt` to a Move
            check_transition(state, attempt, apply(state, attempt))
        else:
            refuse(state, attempt)


@pytest.mark.sweep
@given(player_counts(), seeds(), choice_seeds)
def test_legal_moves_are_exactly_what_the_rules_allow(
    players: int, seed: int, choices: int
) -> None:
    """The legal moves are exactly those the rules allow, in a stable order.

    Placements of the hand (or only of the tile just drawn), else a draw,
    else a pass; placements come by tile, then by point.
    """
    for before, _, _ in full_match(players, seed, choices):
        legal = legal_moves(before)
        assert set(legal) == expected_legal_moves(before)
        places = [m for m in legal if isinstance(m, Place)]
        if places:
            assert len(places) == len(legal)
            assert places == sorted(
                places, key=lambda m: (m.tile, (0, 0, 0) if m.at is None else point_key(m.at))
            )


@given(player_counts(), seeds(), st.integers(min_value=0, max_value=600), choice_seeds)
def test_an_equal_copy_of_a_legal_move_is_accepted(
    players: int, seed: int, steps: int, choices: int
) -> None:
    """A legal move rebuilt from new Tile and Point objects is accepted.

    It gives an equal state, both where the legal moves were listed (and
    cached) and where they never were.
    """
    rng = random.Random(choices)
    state = new_match(players, seed=seed)
    fresh = state
    for _ in range(steps):
        legal = legal_moves(state)
        if not legal:
            break
        move = rng.choice(legal)
        copy = rebuilt(move)
        assert copy == move
        if isinstance(move, Place):
            assert copy is not move
        state = apply(state, move)
        # `fresh` never has its legal moves listed, so apply checks the copy itself.
        fresh = apply(fresh, copy)
        assert fresh == state
    for move in legal_moves(state):
        assert apply(state, rebuilt(move)) == apply(state, move)
        assert apply(fresh, rebuilt(move)) == apply(state, move)


# -- determinism ---------------------------------------------------------------


@pytest.mark.sweep
@given(player_counts(), seeds(), choice_seeds)
def test_the_same_seed_replays_the_same_match(players: int, seed: int, choices: int) -> None:
    """Two runs from one seed with the same choices are equal at every step."""
    first = new_match(players, seed=seed)
    second = new_match(players, seed=seed)
    assert first == second
    assert snapshot(first) == snapshot(second)
    assert first.seed == seed
    run_a = walk(first, random.Random(choices), ACTION_LIMIT)
    run_b = walk(second, random.Random(choices), ACTION_LIMIT)
    for (_, move_a, after_a), (_, move_b, after_b) in zip(run_a, run_b, strict=True):
        assert move_a == move_b
        assert after_a == after_b
        assert legal_moves(after_a) == legal_moves(after_b)


def splitmix_deal(
    players: int, seed: int
) -> tuple[tuple[tuple[Tile, ...], ...], tuple[Tile, ...], int]:
    """The first deal as documented in ``american_sniff.rng``, written out again.

    SplitMix64; an unbiased ``below(n)`` by rejection; a Fisher-Yates shuffle
    of the set from the last position down; hands from the front in seat
    order, the rest the stock; then one ``below(players)`` for the opener.
    """
    mask = 2**64 - 1
    state = seed

    def below(n: int) -> int:
        nonlocal state
        while True:
            state = (state + 0x9E3779B97F4A7C15) & mask
            z = state
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
            z ^= z >> 31
            if z < 2**64 - 2**64 % n:
                return z % n

    order = list(ALL_TILES)
    for i in range(len(order) - 1, 0, -1):
        j = below(i + 1)
        order[i], order[j] = order[j], order[i]
    size = HAND_SIZE[players]
    hands = tuple(tuple(sorted(order[s * size : (s + 1) * size])) for s in range(players))
    return hands, tuple(order[players * size :]), below(players)


@given(player_counts(), seeds())
def test_the_deal_follows_the_documented_generator(players: int, seed: int) -> None:
    """The first deal and lot equal an independent SplitMix64 implementation of them."""
    state = new_match(players, seed=seed)
    assert (state.hands, state.stock, state.info.opener) == splitmix_deal(players, seed)


def T(a: int, b: int) -> Tile:
    """Shorthand for the literal deals below."""
    return Tile(a, b)


def test_golden_deal_two_players_seed_2024() -> None:
    """The deal of ``new_match(2, seed=2024)`` is pinned, on every machine."""
    state = new_match(2, seed=2024)
    assert state.hands == (
        (T(0, 1), T(1, 4), T(2, 2), T(2, 3), T(3, 6), T(4, 5), T(5, 5)),
        (T(0, 3), T(1, 3), T(1, 6), T(2, 5), T(3, 3), T(3, 4), T(4, 4)),
    )
    assert state.stock == (
        T(0, 4), T(3, 5), T(0, 6), T(0, 5), T(4, 6), T(5, 6), T(1, 5),
        T(2, 4), T(1, 1), T(0, 2), T(0, 0), T(6, 6), T(1, 2), T(2, 6),
    )  # fmt: skip
    assert state.info.opener == 1
    assert state.turn == 1


def test_golden_deal_four_players_seed_1() -> None:
    """The deal of ``new_match(4, seed=1)`` is pinned, on every machine."""
    state = new_match(4, seed=1)
    assert state.hands == (
        (T(0, 2), T(0, 5), T(1, 2), T(2, 2), T(4, 5)),
        (T(0, 4), T(1, 6), T(2, 5), T(2, 6), T(5, 6)),
        (T(0, 1), T(1, 1), T(3, 6), T(4, 4), T(4, 6)),
        (T(0, 0), T(0, 6), T(2, 4), T(3, 3), T(3, 4)),
    )
    assert state.stock == (T(0, 3), T(1, 5), T(3, 5), T(6, 6), T(1, 4), T(2, 3), T(5, 5), T(1, 3))
    assert state.info.opener == 3
    assert state.turn == 3


def test_golden_random_match_two_players_seed_2024() -> None:
    """A whole match, ``new_match(2, seed=2024)`` with ``random.Random(0).choice``, is pinned."""
    rng = random.Random(0)
    state = new_match(2, seed=2024)
    actions = 0
    while not state.is_over and actions < ACTION_LIMIT:
        state = apply(state, rng.choice(legal_moves(state)))
        actions += 1
    assert actions == 315
    assert state.scores == (200, 250)
    assert state.winner == 1
    assert state.round == 15
    assert last(state).move == Place(T(4, 5), Point(T(0, 5), Side.HIGH))
    assert last(state).points == 10


# -- the end of the match --------------------------------------------------------


@pytest.mark.sweep
@given(player_counts(), seeds(), choice_seeds)
def test_a_match_played_to_the_end_has_a_winner_at_the_target(
    players: int, seed: int, choices: int
) -> None:
    """A match played to its end has a winner at or above the target.

    The target is 250 with 2 players and 200 with 3 or 4; every other side is
    below it; there are no legal moves, and every move is refused.
    """
    before, move, final = full_match(players, seed, choices)[-1]
    target = 250 if players == 2 else 200
    assert final.winner is not None
    assert final.winner == side_of(players, before.turn)
    assert isinstance(move, Place)
    assert final.scores[final.winner] >= target
    assert all(s < target for side, s in enumerate(final.scores) if side != final.winner)
    assert score_of(final, before.turn) == final.scores[final.winner]
    assert legal_moves(final) == ()
    everything: list[object] = [Draw(), Pass(), None, "draw", 0]
    everything += [Place(tile) for tile in ALL_TILES]
    everything += [
        Place(tile, point)
        for tile in ALL_TILES
        for point in final.layout.points()
        if point.value in (tile.low, tile.high)
    ]
    for attempt in everything:
        refuse(final, attempt)


@given(mid_match_states(max_steps=2000), any_moves())
def test_a_finished_match_refuses_everything(state: MatchState, move: object) -> None:
    """Once a side has won, ``legal_moves`` is empty and ``apply`` refuses any move."""
    if state.is_over:
        assert legal_moves(state) == ()
        refuse(state, move)
    else:
        assert legal_moves(state)


# -- the table's geometry ---------------------------------------------------------


@pytest.mark.sweep
@given(player_counts(), seeds(), choice_seeds)
def test_the_table_matches_an_independent_recomputation(
    players: int, seed: int, choices: int
) -> None:
    """The table after every action matches a recomputation from scratch.

    The open points and the contributions, and so the end sum, are those
    recomputed from the opening tile and the joints alone.
    """
    for before, _, after in full_match(players, seed, choices):
        check_layout(after.layout)
        if after.round != before.round:
            assert after.last_round is not None
            check_layout(after.last_round.layout)


@given(layouts())
def test_any_grown_table_matches_an_independent_recomputation(
    built: tuple[Layout, tuple[tuple[Tile, Point | None], ...]],
) -> None:
    """Tables grown with ``Layout.place`` match a recomputation from scratch.

    Up to all 28 tiles, at every step; and equal placements give equal tables.
    """
    layout, placed = built
    again = Layout.empty()
    check_layout(again)
    for tile, at in placed:
        again = again.place(tile, at)
        check_layout(again)
    assert again == layout
    assert layout.tiles == tuple(tile for tile, _ in placed)


@given(layouts(), tiles(), st.none() | points())
def test_a_table_refuses_placements_the_rules_forbid(
    built: tuple[Layout, tuple[tuple[Tile, Point | None], ...]],
    tile: Tile,
    at: Point | None,
) -> None:
    """``Layout.place`` refuses exactly the placements the rules forbid.

    It accepts a tile exactly on an open point it matches (any tile with
    ``at=None`` on the empty table) and refuses the rest without changing
    the table.
    """
    layout, _ = built
    if layout.is_empty:
        allowed = at is None
    else:
        allowed = (
            tile not in layout
            and at is not None
            and at in layout.points()
            and at.value in (tile.low, tile.high)
        )
    before = (layout.tiles, layout.points(), layout.end_sum)
    if allowed:
        grown = layout.place(tile, at)
        check_layout(grown)
        assert grown.tiles == (*layout.tiles, tile)
    else:
        with pytest.raises(IllegalMove):
            layout.place(tile, at)
    assert (layout.tiles, layout.points(), layout.end_sum) == before


# -- every action, every rule ----------------------------------------------------


@pytest.mark.sweep
@given(player_counts(), seeds(), choice_seeds)
def test_every_action_of_a_match_follows_the_rules(players: int, seed: int, choices: int) -> None:
    """Every state and every action of a random match follows the rules.

    Each state passes every state check, and each action every transition
    check (turn order, draws, passes, round ends, settlement, the win).
    """
    actions = full_match(players, seed, choices)
    check_state(actions[0][0])
    for before, move, after in actions:
        check_transition(before, move, after)
        check_state(after)
